"""What a warp's store of 32 lines costs its SM, and what a load of a line the warp has just
written waits for, on the H200, from simt/calibrate/cuda/l1_store_data.cu's profile
(data/h200/l1_store_data.csv and its manifest): per kernel and shape (warps a block, blocks),
the SM cycles per step of a warp and per line of its requests (the difference between the
launches of 1024 and 256 steps, so the launch's own cost drops out), and with ``--model``
simt's prediction of the same kernels written in simt beside them. simt calibrate fits
l1_store_line_cycles, l1_store_sector_cycles and l1_data_store_line_cycles from the same
launches (simt/calibrate/fit.py).

What it showed on the H200: with a block on every SM, stores of 32 one-sector lines go at the
L2's rate (about 4.1 cycles a line per SM); on an eighth of the SMs each SM's own path sets
the pace, 2.2 cycles a line (a whole-line store, 4.3), twice and more what its tag stage
takes; a load of 32 L1 lines beside the stores makes a step 2.8 cycles a line pair (the stored
lines take the L1's data stage in turn with the loaded ones, 1.8 cycles a line); and a row walk that reads
the word after the one it just wrote (rmw32) goes no slower than stores alone: a load does not
wait for the acknowledgement of the SM's store to its line.

    PYTHONPATH=. python3 benchmarks/timing/l1_store_data.py [--model]

Measured once on the H200 (the command is in the .cu's header):
    nvcc -O3 -arch=sm_90 -o /tmp/l1_store_data simt/calibrate/cuda/l1_store_data.cu
    ncu --clock-control none --csv --print-units base --metrics sm__cycles_elapsed.max,... \\
        --log-file l1_store_data.csv /tmp/l1_store_data l1_store_data_manifest.csv
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import simt as wp
from simt.calibrate import fit, ncu_csv

DATA = Path(__file__).parent / "data" / "h200"
LINE = 32
N_SM = 132



@wp.kernel
def ld32(src: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    t = wp.tid()
    a = ((t >> 5) * 32 + (t & 31)) * LINE
    acc = src[a] + src[a + 8] + src[a + 16] + src[a + 24]
    for i in range(n):
        acc += src[a + (i & 31)]
    if acc == -1.0:
        out[0] = acc


@wp.kernel
def st32_in(dst: wp.array(dtype=float), n: int):
    t = wp.tid()
    b = ((t >> 5) * 32 + (t & 31)) * LINE
    v = dst[b] + dst[b + 8] + dst[b + 16] + dst[b + 24]
    for i in range(n):
        dst[b + (i & 31)] = v + float(i)


@wp.kernel
def st32_out(dst: wp.array(dtype=float), n: int):
    t = wp.tid()
    b = ((t >> 5) * 32 + (t & 31)) * LINE
    for i in range(n):
        dst[b + (i & 31)] = float(i)


@wp.kernel
def ldst32_in(src: wp.array(dtype=float), dst: wp.array(dtype=float), n: int):
    t = wp.tid()
    a = ((t >> 5) * 32 + (t & 31)) * LINE
    acc = src[a] + src[a + 8] + src[a + 16] + src[a + 24] + dst[a] + dst[a + 8] + dst[a + 16] + dst[a + 24]
    for i in range(n):
        acc += src[a + (i & 31)]
        dst[a + (i & 31)] = float(i)
    if acc == -1.0:
        dst[a] = acc


@wp.kernel
def ldst32_out(src: wp.array(dtype=float), dst: wp.array(dtype=float), n: int):
    t = wp.tid()
    a = ((t >> 5) * 32 + (t & 31)) * LINE
    acc = src[a] + src[a + 8] + src[a + 16] + src[a + 24]
    for i in range(n):
        acc += src[a + (i & 31)]
        dst[a + (i & 31)] = float(i)
    if acc == -1.0:
        dst[a] = acc


@wp.kernel
def st1(dst: wp.array(dtype=float), n: int):
    t = wp.tid()
    b = (t >> 5) * 32 * LINE
    for i in range(n):
        dst[b + (i & 31) * LINE + (t & 31)] = float(i)


@wp.kernel
def rmw32(dst: wp.array(dtype=float), n: int):
    t = wp.tid()
    b = ((t >> 5) * 32 + (t & 31)) * LINE
    acc = dst[b] + dst[b + 8] + dst[b + 16] + dst[b + 24]
    for i in range(n):
        acc += dst[b + (i & 31)]
        dst[b + (i & 31)] = acc


@wp.kernel
def rmw1(dst: wp.array(dtype=float), n: int):
    t = wp.tid()
    b = (t >> 5) * 32 * LINE
    lane = t & 31
    acc = dst[b + lane * LINE] + dst[b + lane * LINE + 8] + dst[b + lane * LINE + 16] + dst[b + lane * LINE + 24]
    for i in range(n):
        acc += dst[b + (i & 31) * LINE + lane]
        dst[b + (i & 31) * LINE + lane] = acc


# each kernel, and whether it takes a buffer to read before the one it writes
KERNELS = {"ld32": (ld32, True), "st32_in": (st32_in, False), "st32_out": (st32_out, False),
           "ldst32_in": (ldst32_in, True), "ldst32_out": (ldst32_out, True), "st1": (st1, False),
           "rmw32": (rmw32, False), "rmw1": (rmw1, False)}


def predict(bench: str, warps: int, blocks: int, steps: int) -> float:
    kernel, reads = KERNELS[bench]
    floats = blocks * warps * 32 * LINE
    dst = wp.array(np.zeros(floats, np.float32), device="cpu:precise")
    args = [dst, steps]
    if reads:
        args.insert(0, wp.array(np.zeros(floats, np.float32), device="cpu:precise"))
    r = wp.launch(kernel, dim=blocks * warps * 32, inputs=args, block_dim=32 * warps, device="cpu:precise")
    return float(r.cycles)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    args = ap.parse_args()
    df = ncu_csv.load("l1_store_data", DATA)
    steps = fit.l1_store_steps(df)
    print(f"{'kernel':11s} {'warps':>5s} {'blocks':>6s} {'H200 cycles a step':>19s} {'a line per SM':>14s}"
          + (f" {'model a step':>13s} {'ratio':>6s}" if args.model else ""))
    for (bench, warps, blocks), per_step in steps.items():
        line = f"{bench:11s} {warps:5d} {blocks:6d} {per_step:19.1f} {per_step / 32 / warps:14.2f}"
        if args.model:
            lo, hi = (predict(bench, warps, blocks, n) for n in (256, 1024))
            model = (hi - lo) / 768
            line += f" {model:13.1f} {model / per_step:6.2f}"
        print(line, flush=True)
    line, sector = fit.l1_store_costs(df)
    print(f"\nfitted (simt/calibrate/fit.py l1_store_costs): l1_store_line_cycles {line}, "
          f"l1_store_sector_cycles {sector}; (l1_data_store_cycles): l1_data_store_line_cycles "
          f"{fit.l1_data_store_cycles(df)}")


if __name__ == "__main__":
    main()
