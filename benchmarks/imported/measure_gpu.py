"""Launch every case of cases.py on a GPU through simt's ``cuda`` device (the PTX nvcc made of
probes.cu, loaded as it is), for Nsight Compute to profile; write the manifest naming each
profiled launch in order. measure.sh runs this under ncu.

    python3 benchmarks/imported/measure_gpu.py --manifest imported_manifest.csv
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent)]

import simt  # noqa: E402
import cases  # noqa: E402

FIELDS = ["launch", "name", "kernel", "grid", "block", "part"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args()
    kernels = {}
    with open(args.manifest, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(FIELDS)
        for k, (name, kname, grid, block, _, part) in enumerate(cases.CASES):
            t0 = time.perf_counter()
            if kname not in kernels:
                kernels[kname] = simt.from_cuda(cases.SOURCE, kname)
            args_ = [simt.array(a, device=args.device) if isinstance(a, np.ndarray) else a
                     for a in cases.inputs(cases.CASES[k])]
            simt.launch(kernels[kname], grid=grid, block=block, inputs=args_, device=args.device)
            simt.synchronize()
            writer.writerow([k, name, kname, "x".join(map(str, grid)), "x".join(map(str, block)), part])
            print(f"{k:3d} {name:26s} {time.perf_counter() - t0:6.2f} s", flush=True)
            del args_


if __name__ == "__main__":
    main()
