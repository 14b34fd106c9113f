"""Run the op probes once each on a GPU, for Nsight Compute to profile (``simt calibrate`` runs
this module under ``ncu``); every launch of this process is one row of the manifest.

    python3 -m simt.calibrate.run_probes --manifest probes_manifest.csv [--device cuda] [--arch sm_90]
"""
from __future__ import annotations

import argparse
import csv

import simt as wp
from simt.calibrate import probes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--arch", default="sm_90", help="the PTX target of simt's kernels")
    ap.add_argument("--only", default="", help="comma-separated probe names")
    args = ap.parse_args()
    wp.set_module_options({"arch": args.arch})
    only = [s for s in args.only.split(",") if s] or None
    with open(args.manifest, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["launch", "name", "unroll", "kernel"])
        for k, (name, unroll, kernel, inputs) in enumerate(probes.launches(args.device, only)):
            wp.launch(kernel, dim=32, inputs=inputs, block_dim=32, device=args.device)
            wp.synchronize()
            writer.writerow([k, name, unroll, kernel.key])
            f.flush()


if __name__ == "__main__":
    main()
