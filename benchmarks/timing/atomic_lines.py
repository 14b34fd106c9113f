"""Global reductions to many lines, and random reads, writes and updates of a table, from
simt/calibrate/cuda/atomic_lines.cu's profile: per kernel and table size, the lane operations a
cycle GPU-wide (the difference between the launches of 16 and 4 steps, so the launch's own cost
drops out) and the DRAM bytes an operation moves; with ``--model`` simt's prediction of the
same kernels written in simt, and the ratio of the model's cycles to the GPU's.

    PYTHONPATH=. python3 benchmarks/timing/atomic_lines.py [--data DIR] [--model] [--arch FILE [--fit-window]]

Measured on an H100 80GB HBM3 (data/h100/atomic_lines.csv, its manifest and log); to measure,
from the repository root on the GPU's machine (BASE from ncu_metrics.sh):
    nvcc -O3 -arch=sm_90 -o /tmp/atomic_lines simt/calibrate/cuda/atomic_lines.cu
    ncu --clock-control none --csv --print-units base \\
        --metrics "$BASE,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum" \\
        --log-file atomic_lines.csv /tmp/atomic_lines atomic_lines_manifest.csv
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import simt as wp
from simt.calibrate import ncu_csv

DATA = Path(__file__).parent / "data" / "h100"
CYC = "sm__cycles_elapsed.max"
BLOCK = 256


@wp.func
def mix32(x: wp.uint32):
    x = x ^ (x >> wp.uint32(16))
    x = x * wp.uint32(0x7FEB352D)
    x = x ^ (x >> wp.uint32(15))
    x = x * wp.uint32(0x846CA68B)
    return x ^ (x >> wp.uint32(16))


@wp.kernel
def red_rand(p: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """Each lane a line hashed over the table (word 0 of the line)."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    for i in range(n):
        wp.atomic_add(p, int(mix32(t + wp.uint32(i) * lanes) & mask) * 32, wp.uint32(1))


@wp.kernel
def red_run(p: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """Each warp 32 consecutive lines at a hashed base (a multiple of 32 lines)."""
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    for i in range(n):
        base = mix32(t / wp.uint32(32) + wp.uint32(i) * warps) & mask & ~wp.uint32(31)
        wp.atomic_add(p, int(base + (t & wp.uint32(31))) * 32, wp.uint32(1))


@wp.kernel
def red_wline(p: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """Each warp one hashed line, a word a lane."""
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    for i in range(n):
        line = mix32(t / wp.uint32(32) + wp.uint32(i) * warps) & mask
        wp.atomic_add(p, int(line) * 32 + int(t & wp.uint32(31)), wp.uint32(1))


@wp.kernel
def ld_rand(p: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """Each lane loads word 0 of a hashed line; the sum is stored."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    s = wp.uint32(0)
    for i in range(n):
        s = s + p[int(mix32(t + wp.uint32(i) * lanes) & mask) * 32]
    out[int(t)] = s


@wp.kernel
def ld_wline(p: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """Each warp loads one hashed line, a word a lane."""
    t = wp.uint32(wp.tid())
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    s = wp.uint32(0)
    for i in range(n):
        line = mix32(t / wp.uint32(32) + wp.uint32(i) * warps) & mask
        s = s + p[int(line) * 32 + int(t & wp.uint32(31))]
    out[int(t)] = s


@wp.kernel
def st_rand(p: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """Each lane stores word 0 of a hashed line."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    for i in range(n):
        p[int(mix32(t + wp.uint32(i) * lanes) & mask) * 32] = t + wp.uint32(i)


KERNELS = {"red_rand": red_rand, "red_run": red_run, "red_wline": red_wline,
           "ld_rand": ld_rand, "ld_wline": ld_wline, "st_rand": st_rand}


def predict(bench: str, log2_lines: int, n: int, grid: int, arch: str | None) -> float:
    threads = grid * BLOCK
    table = wp.zeros(32 << log2_lines, dtype=wp.uint32)
    mask = wp.uint32((1 << log2_lines) - 1)
    args = [table, wp.zeros(threads, dtype=wp.uint32), mask, n] if bench.startswith("ld") else [table, mask, n]
    extra = {"arch": arch} if arch else {}
    r = wp.launch(KERNELS[bench], threads, args, block_dim=BLOCK, device="cpu:precise", **extra)
    return float(r.cycles)


def with_window(arch: str, data: Path) -> str:
    """A copy of the architecture file ``arch`` with atomic_cold_sector_cycles and
    atomic_hot_window_cycles fitted from ``data``'s measurements (simt.calibrate.fit)."""
    import json
    from simt.arch import with_timing
    from simt.calibrate import fit, fit_atomics
    t = json.loads(Path(arch).read_text())["timing"]
    scatter = 1.0 / fit.slope(ncu_csv.load("micro", data / "calibrated" / "measured"), "red_scatter_l2")
    cold, window = fit_atomics.atomic_cold_and_window(scatter, ncu_csv.load("atomic_lines", data), t["atomic_units"],
                                              t["atomic_line_cycles"])
    print(f"# {arch} with atomic_cold_sector_cycles {cold:.3f}, atomic_hot_window_cycles {window:.1f} (fitted from {data})")
    return with_timing(arch, atomic_cold_sector_cycles=round(cold, 3), atomic_hot_window_cycles=round(window, 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of atomic_lines.csv (default: data/h100)")
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    ap.add_argument("--arch", help="architecture file for the model (default: the shipped sm_90.json)")
    ap.add_argument("--fit-window", action="store_true",
                    help="with --arch: give the file the atomic units' cold cost and hot window fitted from --data "
                         "(its atomic_lines.csv and calibrated/measured/micro.csv), as fit_arch.py does for the H100")
    args = ap.parse_args()
    if args.fit_window:
        args.arch = with_window(args.arch, args.data)
    if not (args.data / "atomic_lines.csv").exists():
        raise SystemExit(f"atomic_lines: not measured in {args.data} (no atomic_lines.csv; "
                         "the command is in this script's docstring)")
    df = ncu_csv.load("atomic_lines", args.data)
    df["lg"], df["n"] = df.value // 100, df.value % 100
    head = f"{'kernel':10s} {'table':>9s} {'ops a cycle':>11s} {'DRAM B/op read':>14s} {'written':>7s}"
    print(head + ("  model ops a cycle  cycles ratio" if args.model else ""))
    for (bench, lg), g in df.groupby(["bench", "lg"], sort=False):
        g = g.sort_values("n")
        a, z = g.iloc[0], g.iloc[-1]
        rate = (z.work - a.work) / (z[CYC] - a[CYC])
        line = (f"{bench:10s} {f'2^{lg} lines':>9s} {rate:11.2f} {z['dram__bytes_read.sum'] / z.work:14.1f} "
                f"{z['dram__bytes_write.sum'] / z.work:7.1f}")
        if args.model:
            c0, c1 = (predict(bench, int(lg), int(r.n), int(r.grid), args.arch) for r in (a, z))
            mrate = (z.work - a.work) / (c1 - c0)
            line += f"  {mrate:17.2f}  {(c1 - c0) / (z[CYC] - a[CYC]):12.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
