"""A warp's reductions to its own line again and again, from atomic_own_line.cu's profile
(data/h200/atomic_own_line.csv, its manifest and log; the command is in the .cu): per kernel
(the same line every step, two lines in turn, a new line every step) and warps an SM, the SM
cycles a step (the difference between the launches of 64 and 16 steps); with ``--model``
simt's cycles a step for the same kernels written in simt, and the ratio of the model's
cycles to the GPU's.

    PYTHONPATH=. python3 benchmarks/timing/atomic_own_line.py [--data DIR] [--model] [--arch FILE]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import simt as wp
from simt.calibrate import ncu_csv

CYC = "sm__cycles_elapsed.max"
LINES = 64                       # lines of its own each warp has (the .cu's table: 64 a warp)


@wp.kernel
def own(p: wp.array(dtype=wp.uint32), n: int):
    """Each lane its own word of its warp's own line, the same line every step."""
    t = wp.tid()
    a = (t >> 5) * LINES * 32 + (t & 31)
    for i in range(n):
        wp.atomic_add(p, a, wp.uint32(1))


@wp.kernel
def two(p: wp.array(dtype=wp.uint32), n: int):
    """Two lines of its own in turn."""
    t = wp.tid()
    a = (t >> 5) * LINES * 32 + (t & 31)
    for i in range(n):
        wp.atomic_add(p, a + (i & 1) * 32, wp.uint32(1))


@wp.kernel
def new(p: wp.array(dtype=wp.uint32), n: int):
    """A new line of its own every step (its 64 lines in turn)."""
    t = wp.tid()
    a = (t >> 5) * LINES * 32 + (t & 31)
    for i in range(n):
        wp.atomic_add(p, a + (i & (LINES - 1)) * 32, wp.uint32(1))


KERNELS = {"own": own, "two": two, "new": new}


def predict(bench: str, grid: int, block: int, n: int, arch: str | None) -> float:
    """simt's cycles for one launch: ``grid`` blocks of ``block`` threads, n steps."""
    extra = {"arch": arch} if arch else {}
    table = wp.zeros(grid * 32 * LINES * 32, dtype=wp.uint32)
    return float(wp.launch(KERNELS[bench], grid * block, [table, n], block_dim=block, device="cpu:precise",
                           **extra).cycles)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).parent / "data" / "h200")
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    ap.add_argument("--arch", help="architecture file for the model (default: the shipped sm_90.json)")
    args = ap.parse_args()
    df = ncu_csv.load("atomic_own_line", args.data)
    head = f"{'kernel':6s} {'warps an SM':>11s} {'cycles a step':>13s} {'lines a cycle GPU-wide':>22s}"
    print(head + ("  model cycles a step  model lines a cycle  cycles ratio" if args.model else ""))
    for (bench, block), g in df.groupby(["bench", "block"], sort=False):
        g = g.sort_values("value")
        a, z = g.iloc[0], g.iloc[-1]
        step = (z[CYC] - a[CYC]) / (z.value - a.value)
        line = f"{bench:6s} {block // 32:11d} {step:13.1f} {z.grid * block // 32 / step:22.1f}"
        if args.model:
            c0, c1 = (predict(bench, int(r.grid), int(block), int(r.value), args.arch) for r in (a, z))
            m = (c1 - c0) / (z.value - a.value)
            line += f"  {m:19.1f}  {z.grid * block // 32 / m:19.1f}  {m / step:12.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
