"""Launch every configuration of the three kernels of kernels.py on a GPU through simt's
``cuda`` device, for Nsight Compute to profile (measure.sh runs this under ncu), and write the
manifest naming each profiled launch in order.

    python3 benchmarks/sweep/measure_gpu.py --manifest sweep_manifest.csv
    python3 benchmarks/sweep/measure_gpu.py --manifest m.csv --dry-run

Each configuration is launched ``1 + --reps`` times: rep 0 warms up (the driver loads the
module) and its outputs are checked against numpy (``correct``); reps 1.. are what the report
ranks. ``--dry-run`` needs no GPU: it builds each configuration on the host, lowers its kernel
to PTX for sm_90 and assembles it with ptxas (registers, shared memory, spills), and writes the
same manifest.
"""
from __future__ import annotations

import argparse
import csv
import itertools
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from kernels import KERNELS  # noqa: E402

FIELDS = ["launch", "kernel", "config", "rep", "dim", "block_dim", "correct"]


def configurations(only: list[str]):
    for name, (setup, space, check) in KERNELS.items():
        if only and name not in only:
            continue
        for combo in itertools.product(*space.values()):
            yield name, setup, check, dict(zip(space, combo))


def shape(value) -> str:
    return "x".join(map(str, value)) if isinstance(value, (tuple, list)) else str(value)


def measure(only: list[str], reps: int, writer, device: str) -> int:
    launch_index, wrong = 0, 0
    for name, setup, check, point in configurations(only):
        t0 = time.perf_counter()
        with wp.ScopedDevice(device):
            kwargs = setup(**point)
        for rep in range(1 + reps):
            wp.launch(**kwargs, device=device)
            wp.synchronize()
            correct = ""
            if rep == 0:
                correct = ok = int(check(kwargs))
                wrong += 1 - ok
            writer.writerow([launch_index, name, json.dumps(point), rep, shape(kwargs["dim"]),
                             shape(kwargs["block_dim"]), correct])
            launch_index += 1
        print(f"{name:10s} {json.dumps(point):42s} {'ok' if ok else 'WRONG'} "
              f"{time.perf_counter() - t0:5.2f} s", flush=True)
        del kwargs
    return wrong


def dry_run(only: list[str], reps: int, writer) -> int:
    from simt.gpu.ptxas import resource_usage
    from timing.blind.measure_gpu import ptx_for          # the PTX a cuda launch would run
    bad, launch_index = 0, 0
    for name, setup, _check, point in configurations(only):
        kwargs = setup(**point)
        try:
            launch = type("Launch", (), {"kernel": kwargs["kernel"]})
            text, _ = ptx_for(launch, kwargs["inputs"], kwargs["dim"], kwargs["block_dim"])
            info = resource_usage(text, "sm_90")
        except Exception as e:          # report every configuration, then fail
            bad += 1
            print(f"{name:10s} {json.dumps(point):42s} FAILED: {e}")
            continue
        print(f"{name:10s} {json.dumps(point):42s} regs {info['registers']:3d} smem {info['shared_bytes']:6d} "
              f"spill {info['spill_store_bytes']}")
        for rep in range(1 + reps):
            writer.writerow([launch_index, name, json.dumps(point), rep, shape(kwargs["dim"]),
                             shape(kwargs["block_dim"]), ""])
            launch_index += 1
    return bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--reps", type=int, default=4, help="profiled launches per configuration after the warm-up")
    ap.add_argument("--only", default="", help="comma-separated kernel names (matmul, reduce, transpose)")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: PTX and ptxas for every configuration")
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    with open(args.manifest, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(FIELDS)
        if args.dry_run:
            bad = dry_run(only, args.reps, writer)
            print(f"{bad} configurations failed; manifest {args.manifest}")
            sys.exit(1 if bad else 0)
        wrong = measure(only, args.reps, writer, args.device)
    if wrong:
        print(f"{wrong} configurations computed wrong results", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
