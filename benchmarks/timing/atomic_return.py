"""Returning global atomics against reductions, by the lines a warp's request spans, from
simt/calibrate/cuda/atomic_return.cu's profile: per kernel, table and lines a request, the
lane operations a cycle GPU-wide (the difference between the launches of 16 and 4 steps, so
the launch's own cost drops out) and the returning adds' rate over the reductions'; with
``--model`` simt's prediction of the same kernels written in simt, and the ratio of the
model's cycles to the GPU's.

    PYTHONPATH=. python3 benchmarks/timing/atomic_return.py [--data DIR] [--model] [--arch FILE]

What it asks: atomic_hot.cu's returning adds (each lane a word hashed over 2^7-2^11 lines, a
request of ~32 lines) ran at 0.75x the reductions' rate, and over 8 and 32 lines at the same
rate; a compaction's cursor that one lane a warp bumps runs on the H200 as simt times a
reduction. So where does a returned value cost the L2's atomic unit more: by the lines a
request spans (K = 1, 4, 32), by the table (2^5-2^14 lines), or for one lane a warp? And, one
lane a warp, does a float add wait for the one before it on its word (red_one_f32 against
red_one), and does an integer add to another table between two hide the wait (red_pair: two
updates a step, so its work counts both)?

To measure, from the repository root on the GPU's machine (BASE from ncu_metrics.sh; the
step ``atomicret`` of gpu_pending.sh does this):
    nvcc -O3 -arch=sm_90 -o /tmp/atomic_return simt/calibrate/cuda/atomic_return.cu
    ncu --clock-control none --csv --print-units base \\
        --metrics "$BASE,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum" \\
        --log-file atomic_return.csv /tmp/atomic_return atomic_return_manifest.csv
"""
from __future__ import annotations

import argparse
from pathlib import Path

import simt as wp
from simt.calibrate import ncu_csv

from atomic_lines import mix32

DATA = Path(__file__).parent / "data" / "h100" / "atomic_return"
CYC = "sm__cycles_elapsed.max"
BLOCK = 256


@wp.func
def word_of(t: wp.uint32, i: int, warps: wp.uint32, mask: wp.uint32, klog: int):
    """Lane t % 32 of warp t / 32 at step i: line t % K of the warp's K lines, word (t % 32) / K of it."""
    lane = t & wp.uint32(31)
    j = lane & ((wp.uint32(1) << wp.uint32(klog)) - wp.uint32(1))
    line = mix32((t / wp.uint32(32) + wp.uint32(i) * warps) * wp.uint32(32) + j) & mask
    return int(line) * 32 + int(lane >> wp.uint32(klog))


@wp.func
def lead_word(t: wp.uint32, i: int, warps: wp.uint32, mask: wp.uint32):
    """Lane 0 of warp t / 32 at step i: word 0 of a line hashed over the table."""
    return int(mix32(t / wp.uint32(32) + wp.uint32(i) * warps) & mask) * 32


@wp.kernel
def red_k(p: wp.array(dtype=wp.uint32), mask: wp.uint32, klog: int, n: int):
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    for i in range(n):
        wp.atomic_add(p, word_of(t, i, warps, mask, klog), wp.uint32(1))


@wp.kernel
def atom_k(p: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32), mask: wp.uint32, klog: int, n: int):
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    s = wp.uint32(0)
    for i in range(n):
        s = s + wp.atomic_add(p, word_of(t, i, warps, mask, klog), wp.uint32(1))
    out[int(t)] = s


@wp.kernel
def red_one(p: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    if (t & wp.uint32(31)) == wp.uint32(0):
        for i in range(n):
            wp.atomic_add(p, lead_word(t, i, warps, mask), wp.uint32(1))


@wp.kernel
def atom_one(p: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    if (t & wp.uint32(31)) == wp.uint32(0):
        s = wp.uint32(0)
        for i in range(n):
            s = s + wp.atomic_add(p, lead_word(t, i, warps, mask), wp.uint32(1))
        out[int(t / wp.uint32(32))] = s


@wp.kernel
def red_one_f32(p: wp.array(dtype=wp.float32), mask: wp.uint32, n: int):
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    if (t & wp.uint32(31)) == wp.uint32(0):
        for i in range(n):
            wp.atomic_add(p, lead_word(t, i, warps, mask), 1.0)


@wp.kernel
def red_pair(p: wp.array(dtype=wp.float32), q: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    if (t & wp.uint32(31)) == wp.uint32(0):
        for i in range(n):
            w = lead_word(t, i, warps, mask)
            wp.atomic_add(p, w, 1.0)
            wp.atomic_add(q, w, wp.uint32(1))


# the reduction each kernel's rate is set beside: the same lanes' REDG.ADD.U32
OVER = {"atom_k": "red_k", "atom_one": "red_one", "red_one_f32": "red_one", "red_pair": "red_one"}
KERNELS = {"red_k": red_k, "atom_k": atom_k, "red_one": red_one, "atom_one": atom_one,
           "red_one_f32": red_one_f32, "red_pair": red_pair}


def _arrays(bench: str, words: int, threads: int) -> list:
    """The kernel's arrays: its table (a float one for the float adds, both for red_pair) and,
    for the returning adds, the lanes' sums."""
    if bench == "red_one_f32":
        return [wp.zeros(words, dtype=wp.float32)]
    if bench == "red_pair":
        return [wp.zeros(words, dtype=wp.float32), wp.zeros(words, dtype=wp.uint32)]
    table = wp.zeros(words, dtype=wp.uint32)
    return [table, wp.zeros(threads, dtype=wp.uint32)] if bench.startswith("atom") else [table]


def predict(bench: str, lg: int, klog: int, n: int, grid: int, arch: str | None) -> float:
    """simt's cycles for one launch of ``bench``, n steps, over 2^lg lines, 2^klog lines a request."""
    threads = grid * BLOCK
    args = (_arrays(bench, 32 << max(lg, 5), threads) + [wp.uint32((1 << lg) - 1)]
            + ([klog] if bench.endswith("_k") else []) + [n])
    extra = {"arch": arch} if arch else {}
    return float(wp.launch(KERNELS[bench], threads, args, block_dim=BLOCK, device="cpu:precise", **extra).cycles)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of atomic_return.csv (default: data/h100/atomic_return)")
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    ap.add_argument("--arch", help="architecture file for the model (default: the shipped sm_90.json)")
    args = ap.parse_args()
    if not (args.data / "atomic_return.csv").exists():
        raise SystemExit(f"atomic_return: not measured in {args.data} (no atomic_return.csv; "
                         "the command is in this script's docstring)")
    df = ncu_csv.load("atomic_return", args.data)
    df["lg"], df["klog"], df["n"] = df.value // 1000, df.value // 100 % 10, df.value % 100
    rates = {}
    head = f"{'kernel':11s} {'lines':>6s} {'a request':>9s} {'ops a cycle':>11s} {'over red':>8s}"
    print(head + ("  model ops a cycle  model over red  cycles ratio" if args.model else ""))
    model = {}
    for (bench, lg, klog), g in df.groupby(["bench", "lg", "klog"], sort=False):
        g = g.sort_values("n")
        a, z = g.iloc[0], g.iloc[-1]
        rate = rates[bench, lg, klog] = (z.work - a.work) / (z[CYC] - a[CYC])
        other = rates.get((OVER[bench], lg, klog)) if bench in OVER else None
        line = (f"{bench:11s} {'2^' + str(lg):>6s} {('1 lane' if not bench.endswith('_k') else str(1 << klog)):>9s} {rate:11.2f} "
                f"{(f'{rate / other:.2f}' if other else ''):>8s}")
        if args.model:
            c0, c1 = (predict(bench, int(lg), int(klog), int(r.n), int(r.grid), args.arch) for r in (a, z))
            m = model[bench, lg, klog] = (z.work - a.work) / (c1 - c0)
            mo = model.get((OVER[bench], lg, klog)) if bench in OVER else None
            line += f"  {m:17.2f}  {(f'{m / mo:.2f}' if mo else ''):>14s}  {(c1 - c0) / (z[CYC] - a[CYC]):12.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
