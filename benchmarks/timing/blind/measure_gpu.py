"""Run every launch of a blind set once on a GPU, for Nsight Compute to profile (measure.sh
here runs it under ncu), and write the manifest naming each profiled launch in order. The sets:
``blind`` (this folder, the default), ``blind2`` (../blind2), ``blind3`` (../blind3), ``blind4``
(../blind4), ``blind5`` (../blind5), ``blind6`` (../blind6), ``blind7`` (../blind7), ``blind8``
(../blind8), ``blind9`` (../blind9), ``blind10`` (../blind10), ``blind11`` (../blind11),
``blind12`` (../blind12), ``blind13`` (../blind13), ``blind14`` (../blind14), ``blind15``
(../blind15), ``blind16`` (../blind16), ``blind17`` (../blind17), ``blind18`` (../blind18) and
``blind19`` (../blind19), chosen by ``--set``.

    python3 benchmarks/timing/blind/measure_gpu.py --manifest blind_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind2 --manifest blind2_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind3 --manifest blind3_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind4 --manifest blind4_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind5 --manifest blind5_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind6 --manifest blind6_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind7 --manifest blind7_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind8 --manifest blind8_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind9 --manifest blind9_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind10 --manifest blind10_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind11 --manifest blind11_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind12 --manifest blind12_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind13 --manifest blind13_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind14 --manifest blind14_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind15 --manifest blind15_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind16 --manifest blind16_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind17 --manifest blind17_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind18 --manifest blind18_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --set blind19 --manifest blind19_manifest.csv
    python3 benchmarks/timing/blind/measure_gpu.py --manifest m.csv --dry-run

``--dry-run`` needs no GPU: it builds every launch's inputs on the host, compiles the kernel for
the launch's signature exactly as a cuda launch does, lowers it to PTX and assembles it with
``ptxas -arch=sm_90`` (registers, shared memory, spills), and writes the same manifest.
"""
from __future__ import annotations

import argparse
import csv
import importlib
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

import simt as wp  # noqa: E402
from timing.blind import SETS  # noqa: E402

FIELDS = ["launch", "name", "unroll", "kernel", "dim", "block_dim", "limiter"]


def row(k, launch, dim, block) -> list:
    return [k, launch.name, "", launch.kernel.key, "x".join(map(str, np.atleast_1d(dim))),
            "x".join(map(str, np.atleast_1d(block))), launch.limiter]


def ptx_for(launch, inputs, dim, block) -> tuple[str, str]:
    """The PTX (and its entry name) a cuda launch of ``launch`` would run."""
    from simt.gpu.ptx import emit
    from simt.launch import bind_arguments, launch_geometry, normalise_dim
    from simt.devices import get_device
    kernel = launch.kernel
    opts = kernel.effective_options()
    dims = normalise_dim(dim, kernel.key)
    sig, _, _ = launch_geometry(dims, block, kernel.key)
    bound = bind_arguments(kernel, inputs, get_device("cpu"))
    fn = kernel.compile(sig, opts["debug"], opts["fastmath"], tuple(t for _, t, _ in bound))
    text, entry, _ = emit(fn, "sm_90")
    return text, entry


def dry_run(cases, launches, writer) -> int:
    from simt.gpu.ptxas import resource_usage
    bad = 0
    print(f"{'#':>3s} {'launch':26s} {'kernel':24s} {'threads':>10s} {'regs':>5s} {'smem':>6s} {'spill':>6s}  inputs MB")
    for k, launch in enumerate(launches):
        inputs, dim, block = cases.instantiate(launch, "cpu")
        mb = sum(a.numpy().nbytes for a in inputs if isinstance(a, wp.array)) / 1e6
        threads = math.prod(np.atleast_1d(dim))
        try:
            text, _ = ptx_for(launch, inputs, dim, block)
            info = resource_usage(text, "sm_90")
            regs, smem, spill = info["registers"], info["shared_bytes"], info["spill_store_bytes"]
        except Exception as e:       # report every launch, then fail
            bad += 1
            print(f"{k:3d} {launch.name:26s} FAILED: {e}")
            continue
        print(f"{k:3d} {launch.name:26s} {launch.kernel.key:24s} {threads:10,d} {regs:5d} {smem:6d} {spill:6d}  {mb:8.1f}")
        writer.writerow(row(k, launch, dim, block))
        del inputs
    return bad


def measure(cases, launches, writer, device: str) -> None:
    for k, launch in enumerate(launches):
        t0 = time.perf_counter()
        inputs, dim, block = cases.instantiate(launch, device)
        wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device=device)
        wp.synchronize()
        writer.writerow(row(k, launch, dim, block))
        print(f"{k:3d} {launch.name:26s} {time.perf_counter() - t0:6.1f} s", flush=True)
        del inputs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--set", default="blind", choices=SETS, help="which blind set")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--only", default="", help="comma-separated launch names")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: PTX and ptxas for every launch, the manifest")
    args = ap.parse_args()
    cases = importlib.import_module(f"timing.{args.set}.cases")
    only = [s for s in args.only.split(",") if s]
    launches = [l for l in cases.LAUNCHES if not only or l.name in only]
    with open(args.manifest, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(FIELDS)
        if args.dry_run:
            bad = dry_run(cases, launches, writer)
            print(f"{len(launches) - bad} of {len(launches)} launches assembled with ptxas -arch=sm_90; "
                  f"manifest {args.manifest}")
            sys.exit(1 if bad else 0)
        measure(cases, launches, writer, args.device)


if __name__ == "__main__":
    main()
