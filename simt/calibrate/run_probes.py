"""Run the op probes on a GPU (``simt calibrate`` runs this module); every launch of this
process is one row of the manifest.

- ``--timer ncu`` (default): each probe once, for Nsight Compute to profile;
- ``--timer clock64`` (no profiler): each probe runs ``SCALE`` times as many loop steps and
  times itself: a clock64 spin is queued first (so the host's launch latency is not timed),
  then the launch between CUDA events, ``REPEATS`` times, the median kept in ``--times``. The
  manifest also gets the probe's steps and its loop's SASS (instructions, ptxas's unroll:
  counts.probe_counts), from which the fit counts the instructions the profiler would have.

    python3 -m simt.calibrate.run_probes --manifest probes_manifest.csv [--device cuda] [--arch sm_90]
        [--timer clock64 --times probes_times.csv --sass-arch sm_90]
"""
from __future__ import annotations

import argparse
import csv
import ctypes
import statistics

import simt as wp
from simt.calibrate import probes

# clock64 mode: loop steps x SCALE (64 x 16 = 1024: a U = 16 probe runs 0.1-1 ms, far above the
# events' resolution), launches timed per probe, and the spin that hides the host's launch
GATE_CYCLES = 4_000_000          # about 2 ms at 2 GHz: more than a Python launch takes
SCALE, REPEATS = 16, 5
GATE_PTX = """.version 7.8
.target sm_80
.address_size 64
.visible .entry simt_calibrate_gate(.param .u64 cycles)
{
  .reg .pred %p;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [cycles];
  mov.u64 %rd2, %clock64;
SPIN:
  mov.u64 %rd3, %clock64;
  sub.s64 %rd4, %rd3, %rd2;
  setp.lt.s64 %p, %rd4, %rd1;
  @%p bra SPIN;
  ret;
}
"""


def gate(ordinal: int):
    """A function that queues the clock64 spin on the stream simt launches on."""
    from simt.gpu import runtime
    drv = runtime.driver()
    function = runtime.load_ptx(GATE_PTX, "simt_calibrate_gate", ordinal, "the spin of simt calibrate")
    cycles = ctypes.c_int64(GATE_CYCLES)
    params = (ctypes.c_void_p * 1)(ctypes.addressof(cycles))

    def spin() -> None:
        runtime.check(drv.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, drv.CUstream(0),
                                         ctypes.addressof(params), 0), "launching the spin of simt calibrate")
    spin.keep = (cycles, params)            # the kernel's parameters live as long as the function
    return spin


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--arch", default="sm_90", help="the PTX target of simt's kernels")
    ap.add_argument("--only", default="", help="comma-separated probe names")
    ap.add_argument("--timer", choices=("ncu", "clock64"), default="ncu")
    ap.add_argument("--times", help="clock64: where the launch times go (launch,ns)")
    ap.add_argument("--sass-arch", help="clock64: the GPU's own sm_XY, for the probes' SASS (default --arch)")
    args = ap.parse_args()
    if args.timer == "clock64" and not args.times:
        ap.error("--timer clock64 needs --times")
    wp.set_module_options({"arch": args.arch})
    only = [s for s in args.only.split(",") if s] or None
    if args.timer == "ncu":
        with open(args.manifest, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["launch", "name", "unroll", "kernel"])
            for k, (name, unroll, kernel, inputs) in enumerate(probes.launches(args.device, only)):
                wp.launch(kernel, dim=32, inputs=inputs, block_dim=32, device=args.device)
                wp.synchronize()
                writer.writerow([k, name, unroll, kernel.key])
                f.flush()
        return
    self_timed(args, only)


def self_timed(args, only) -> None:
    from simt.calibrate import counts
    from simt.calibrate.device import parse_device
    spin = gate(parse_device(args.device if ":" in args.device else "cuda:0"))
    with open(args.manifest, "w", newline="") as f, open(args.times, "w", newline="") as t:
        writer, times = csv.writer(f), csv.writer(t)
        writer.writerow(["launch", "name", "unroll", "kernel", "steps", "loop_instructions", "loop_unroll"])
        times.writerow(["launch", "ns"])
        for k, (name, unroll, kernel, inputs) in enumerate(probes.launches(args.device, only, scale=SCALE)):
            try:
                loop = counts.probe_counts(kernel, args.arch, args.sass_arch or args.arch)
            except counts.CountError:
                loop = ("", "")            # not countable from the SASS: its ops are not fitted
            wp.launch(kernel, dim=32, inputs=inputs, block_dim=32, device=args.device)   # compiles and loads
            ns = []
            for _ in range(REPEATS):
                spin()
                r = wp.launch(kernel, dim=32, inputs=inputs, block_dim=32, device=args.device)
                ns.append(float(r.metrics["gpu__time_duration.sum"]))
            writer.writerow([k, name, unroll, kernel.key, inputs[1], *loop])
            times.writerow([k, f"{statistics.median(ns):.1f}"])
            f.flush()
            t.flush()


if __name__ == "__main__":
    main()
