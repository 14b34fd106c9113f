"""Run the op probes, the calibration kernels or the validation launches once each on a GPU, for Nsight Compute to profile.

    ncu --clock-control none --csv --metrics ... python3 benchmarks/timing/measure_gpu.py \
        --set validation --manifest validation_manifest.csv

Every launch of this process is a kernel the profiler records, in order; the manifest names
each one (launch index, case, unroll) so fit_arch.py and validate_timing.py can match the
profiler's rows. measure.sh runs the whole measurement.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from timing import calib, cases, probes  # noqa: E402


def run_probes(writer, device: str, only: list[str]) -> None:
    for k, (name, unroll, kernel, inputs) in enumerate(probes.launches(device, only or None)):
        wp.launch(kernel, dim=32, inputs=inputs, block_dim=32, device=device)
        wp.synchronize()
        writer.writerow([k, name, unroll, kernel.key])


def run_launches(launches, writer, device: str, only: list[str]) -> None:
    k = 0
    for launch in launches:
        if only and launch.name not in only:
            continue
        inputs, dim, block = cases.instantiate(launch, device)
        wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device=device)
        wp.synchronize()
        writer.writerow([k, launch.name, "", launch.kernel.key])
        k += 1
        del inputs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=["probes", "calib", "validation"], required=True)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--only", default="", help="comma-separated launch (or probe) names")
    args = ap.parse_args()
    with open(args.manifest, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["launch", "name", "unroll", "kernel"])
        if args.set == "probes":
            run_probes(writer, args.device, [s for s in args.only.split(",") if s])
        else:
            launches = calib.LAUNCHES if args.set == "calib" else cases.LAUNCHES
            run_launches(launches, writer, args.device, [s for s in args.only.split(",") if s])


if __name__ == "__main__":
    main()
