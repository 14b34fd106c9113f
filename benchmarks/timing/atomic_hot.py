"""Global atomics on a few hot lines, from simt/calibrate/cuda/atomic_hot.cu's profile: per
kernel and table size, the lane operations a cycle GPU-wide (the difference between the
launches of 16 and 4 steps, so the launch's own cost drops out); with ``--model`` simt's
prediction of the same kernels written in simt, and the ratio of the model's cycles to the GPU's.

    PYTHONPATH=. python3 benchmarks/timing/atomic_hot.py [--data DIR] [--model] [--arch FILE]

Measured on an H100 80GB HBM3, the H200's SM, when no H200 came (data/h100/atomic_hot/: the raw
CSV, manifest, gpu.txt; the model's table before and after the change below,
atomic_hot_model_a92d9f9.txt and atomic_hot_model.txt). What it showed: a warp's 32 lanes on
one word take 1.45 cycles a lane at the unit for integer adds and 3.47 for float ones, as
micro.cu measured on the H200; but words a line apart, 2-4 at a unit, take 1.9 cycles a lane
for float adds, as the 32 words of one line do, and 1,024 such words go as fast as integer
adds. simt made every float add that the unit's last 8 updates had touched on one of its
words wait for the adder (1.42-1.77x the GPU's cycles on those launches and on a warp's lanes
over word 0 of 8-512 lines); a float add now waits only where the unit's last update was a
float add to one of its sectors (atomics.serve): 0.76-1.20x, as the integer adds' 0.76-1.14x.
Returning adds (atom_word) over 2^7 lines and more run at 0.75x the reductions' rate on the
GPU, and simt times them alike (0.62-0.65x the GPU's cycles): not modelled yet.

To measure, from the repository root on the GPU's machine (BASE from ncu_metrics.sh; the
step ``atomichot`` of gpu_pending.sh does this):
    nvcc -O3 -arch=sm_90 -o /tmp/atomic_hot simt/calibrate/cuda/atomic_hot.cu
    ncu --clock-control none --csv --print-units base \\
        --metrics "$BASE,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum" \\
        --log-file atomic_hot.csv /tmp/atomic_hot atomic_hot_manifest.csv
"""
from __future__ import annotations

import argparse
from pathlib import Path

import simt as wp
from simt.calibrate import ncu_csv

from atomic_lines import mix32
from atomic_lines import red_rand as red_line      # each lane word 0 of a line hashed over the table

DATA = Path(__file__).parent / "data" / "h100" / "atomic_hot"
CYC = "sm__cycles_elapsed.max"
BLOCK = 256


@wp.kernel
def red_word(p: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """Each lane a word hashed over the table."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    for i in range(n):
        wp.atomic_add(p, int(mix32(t + wp.uint32(i) * lanes) & mask), wp.uint32(1))


@wp.kernel
def red_word_f32(p: wp.array(dtype=wp.float32), mask: wp.uint32, n: int):
    """Each lane a word hashed over the table, a float addition."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    for i in range(n):
        wp.atomic_add(p, int(mix32(t + wp.uint32(i) * lanes) & mask), 1.0)


@wp.kernel
def atom_word(p: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """Each lane a word hashed over the table, the old values summed and stored."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    s = wp.uint32(0)
    for i in range(n):
        s = s + wp.atomic_add(p, int(mix32(t + wp.uint32(i) * lanes) & mask), wp.uint32(1))
    out[int(t)] = s


@wp.kernel
def red_line_f32(p: wp.array(dtype=wp.float32), mask: wp.uint32, n: int):
    """Each lane word 0 of a line hashed over the table, a float addition."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    for i in range(n):
        wp.atomic_add(p, int(mix32(t + wp.uint32(i) * lanes) & mask) * 32, 1.0)


@wp.kernel
def red_wword(p: wp.array(dtype=wp.uint32), mask: wp.uint32, stride: int, n: int):
    """A warp's lanes all on one word, hashed over the table's mask + 1 words, stride apart."""
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    for i in range(n):
        wp.atomic_add(p, int(mix32(t / wp.uint32(32) + wp.uint32(i) * warps) & mask) * stride, wp.uint32(1))


@wp.kernel
def red_wword_f32(p: wp.array(dtype=wp.float32), mask: wp.uint32, stride: int, n: int):
    """A warp's lanes all on one word, a float addition."""
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    for i in range(n):
        wp.atomic_add(p, int(mix32(t / wp.uint32(32) + wp.uint32(i) * warps) & mask) * stride, 1.0)


KERNELS = {"red_word": red_word, "red_word_f32": red_word_f32, "atom_word": atom_word,
           "red_line": red_line, "red_line_f32": red_line_f32, "red_wword": red_wword,
           "red_wword_f32": red_wword_f32}


def predict(bench: str, size: int, n: int, grid: int, arch: str | None) -> float:
    """simt's cycles for one launch of ``bench``, n steps, over 2^size lines (red_wword: size
    is 10 log2 W + log2 S, W words S apart)."""
    threads = grid * BLOCK
    dtype = wp.float32 if bench.endswith("f32") else wp.uint32
    if bench.startswith("red_wword"):
        words, stride = 1 << (size // 10), 1 << (size % 10)
        table = wp.zeros(max(words * stride, 32), dtype=dtype)
        args = [table, wp.uint32(words - 1), stride, n]
    else:
        table = wp.zeros(32 << size, dtype=dtype)
        mask = wp.uint32(((32 << size) if "word" in bench else (1 << size)) - 1)
        args = [table, wp.zeros(threads, dtype=wp.uint32), mask, n] if bench == "atom_word" else [table, mask, n]
    extra = {"arch": arch} if arch else {}
    r = wp.launch(KERNELS[bench], threads, args, block_dim=BLOCK, device="cpu:precise", **extra)
    return float(r.cycles)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of atomic_hot.csv (default: data/h100/atomic_hot)")
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    ap.add_argument("--arch", help="architecture file for the model (default: the shipped sm_90.json)")
    args = ap.parse_args()
    if not (args.data / "atomic_hot.csv").exists():
        raise SystemExit(f"atomic_hot: not measured in {args.data} (no atomic_hot.csv; "
                         "the command is in this script's docstring)")
    df = ncu_csv.load("atomic_hot", args.data)
    df["lg"], df["n"] = df.value // 100, df.value % 100
    red = [c for c in ("lts__t_sectors_op_red.sum", "lts__t_sectors_op_atom.sum") if c in df]
    head = f"{'kernel':13s} {'table':>9s} {'ops a cycle':>11s} {'L2 sectors/op':>13s}"
    print(head + ("  model ops a cycle  cycles ratio" if args.model else ""))
    for (bench, lg), g in df.groupby(["bench", "lg"], sort=False):
        g = g.sort_values("n")
        a, z = g.iloc[0], g.iloc[-1]
        rate = (z.work - a.work) / (z[CYC] - a[CYC])
        sectors = sum(z[c] for c in red) / z.work if red else float("nan")
        table = (f"2^{lg} lines" if not bench.startswith("red_wword")
                 else f"{1 << (lg // 10)}w/{1 << (lg % 10)}")     # W words S apart
        line = f"{bench:13s} {table:>9s} {rate:11.2f} {sectors:13.2f}"
        if args.model:
            c0, c1 = (predict(bench, int(lg), int(r.n), int(r.grid), args.arch) for r in (a, z))
            line += f"  {(z.work - a.work) / (c1 - c0):17.2f}  {(c1 - c0) / (z[CYC] - a[CYC]):12.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
