"""Reductions to words other warps also update, from atomic_words.cu's profile: per kernel
(runs of R warps in a row on one word, one lane each; all 32 lanes on one word, the word
cycling over W), the lane updates a cycle GPU-wide (the difference between the launches of 64
and 16 steps, so the launch's own cost drops out); with ``--model`` simt's prediction of the
same kernels written in simt, and the ratio of the model's cycles to the GPU's.

    PYTHONPATH=. python3 benchmarks/timing/atomic_words.py [--data DIR] [--model] [--arch FILE]

The command that measures is in atomic_words.cu; the CSV, manifest and log are kept in
data/<gpu>/atomic_words/.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import simt as wp
from simt.calibrate import ncu_csv

HERE = Path(__file__).resolve().parent
CYC = "sm__cycles_elapsed.max"
BLOCK = 256


# the twins compute the word as the .cu does, in unsigned 32-bit arithmetic: a signed floor
# division or modulo costs ptxas several more instructions, and runs1/runs32 are bound by
# their issue, not by the atomic units
@wp.kernel
def runs_f32(p: wp.array(dtype=float), n: int, r: int):
    """Lane 31 of each warp adds to word (step * warps + warp) / r."""
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    if (t & wp.uint32(31)) == wp.uint32(31):
        for i in range(n):
            wp.atomic_add(p, int((wp.uint32(i) * warps + t / wp.uint32(32)) / wp.uint32(r)), 1.0)


@wp.kernel
def runs_u32(p: wp.array(dtype=wp.uint32), n: int, r: int):
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    if (t & wp.uint32(31)) == wp.uint32(31):
        for i in range(n):
            wp.atomic_add(p, int((wp.uint32(i) * warps + t / wp.uint32(32)) / wp.uint32(r)), wp.uint32(1))


@wp.kernel
def cycle_f32(p: wp.array(dtype=float), n: int, w: int):
    """Every lane adds to word (step + warp) % w."""
    t = wp.uint32(wp.tid())
    for i in range(n):
        wp.atomic_add(p, int((wp.uint32(i) + t / wp.uint32(32)) % wp.uint32(w)), 1.0)


@wp.kernel
def cycle_u32(p: wp.array(dtype=wp.uint32), n: int, w: int):
    t = wp.uint32(wp.tid())
    for i in range(n):
        wp.atomic_add(p, int((wp.uint32(i) + t / wp.uint32(32)) % wp.uint32(w)), wp.uint32(1))


KERNELS = {"runs_f32": runs_f32, "runs_u32": runs_u32, "cycle_f32": cycle_f32, "cycle_u32": cycle_u32}


def split(bench: str) -> tuple[str, int]:
    """'runs32_f32' -> ('runs_f32', 32)."""
    m = re.fullmatch(r"([a-z]+)(\d+)_(\w+)", bench)
    return f"{m.group(1)}_{m.group(3)}", int(m.group(2))


def predict(bench: str, n: int, grid: int, arch: str | None) -> float:
    kind, param = split(bench)
    threads = grid * BLOCK
    words = 64 * threads // 32 + 64
    table = wp.zeros(words, dtype=float if kind.endswith("f32") else wp.uint32)
    extra = {"arch": arch} if arch else {}
    r = wp.launch(KERNELS[kind], threads, [table, n, param], block_dim=BLOCK, device="cpu:precise", **extra)
    return float(r.cycles)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE / "data" / "h100" / "atomic_words",
                    help="the folder of atomic_words.csv (default: data/h100/atomic_words)")
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    ap.add_argument("--arch", help="architecture file for the model (default: the shipped sm_90.json)")
    args = ap.parse_args()
    if not (args.data / "atomic_words.csv").exists():
        raise SystemExit(f"atomic_words: not measured in {args.data} (no atomic_words.csv; "
                         "the command is in atomic_words.cu)")
    df = ncu_csv.load("atomic_words", args.data)
    head = f"{'kernel':12s} {'lane updates a cycle':>20s} {'cycles an update a word':>24s}"
    print(head + ("  model updates a cycle  cycles ratio" if args.model else ""))
    for bench, g in df.groupby("bench", sort=False):
        g = g.sort_values("value")
        a, z = g.iloc[0], g.iloc[-1]
        rate = (z.work - a.work) / (z[CYC] - a[CYC])
        kind, param = split(bench)
        # words updated at once: runs of r warps share one, so warps / r words; cycle w: w words
        words = (z.grid * BLOCK // 32) / param if kind.startswith("runs") else param
        line = f"{bench:12s} {rate:20.2f} {words / rate:24.2f}"
        if args.model:
            c0, c1 = (predict(bench, int(r.value), int(r.grid), args.arch) for r in (a, z))
            mrate = (z.work - a.work) / (c1 - c0)
            line += f"  {mrate:22.2f}  {(c1 - c0) / (z[CYC] - a[CYC]):12.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
