"""A warp's reductions to its own line again and again, from atomic_own_line.cu's profile
(data/h200/atomic_own_line.csv, its manifest and log; the command is in the .cu): per kernel
(the same line every step, two lines in turn, a new line every step) and warps an SM, the SM
cycles a step (the difference between the launches of 64 and 16 steps).

    PYTHONPATH=. python3 benchmarks/timing/atomic_own_line.py [--data DIR]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from simt.calibrate import ncu_csv

CYC = "sm__cycles_elapsed.max"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).parent / "data" / "h200")
    args = ap.parse_args()
    df = ncu_csv.load("atomic_own_line", args.data)
    print(f"{'kernel':6s} {'warps an SM':>11s} {'cycles a step':>13s} {'lines a cycle GPU-wide':>22s}")
    for (bench, block), g in df.groupby(["bench", "block"], sort=False):
        g = g.sort_values("value")
        a, z = g.iloc[0], g.iloc[-1]
        step = (z[CYC] - a[CYC]) / (z.value - a.value)
        print(f"{bench:6s} {block // 32:11d} {step:13.1f} {z.grid * block // 32 / step:22.1f}")


if __name__ == "__main__":
    main()
