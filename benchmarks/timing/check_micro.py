"""The timing model on microbenchmarks measured on the H200 (data/h200/micro.csv, micro3.csv),
written again in simt and predicted on cpu:precise:

- DRAM and L2 streams of several sizes (micro.cu, micro3.cu: float4, grid-stride, 8 blocks of
  256 per SM): read, copy, write, two reads one write, one read two writes;
- global reductions at several contention levels (micro.cu: 4 blocks of 256 per SM): 32 or
  1,024 hot lines with one lane each, one address per warp, every lane its own word.

Like check_calibration.py this checks the model's structure on microbenchmarks, not its
accuracy: some of these launches set constants (dram_bytes_per_cycle from the 256 MB-1 GB
reads, dram_write_cost from the copies, the atomic units from the reductions). What no
constant covers shows at the other sizes and levels: a small copy costs its reads plus its
writes even while the L2 keeps everything it writes.

    PYTHONPATH=. python3 benchmarks/timing/check_micro.py [--sizes 4,16,64,256]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from timing import calib, compare, ncu  # noqa: E402

THREADS = calib.SMS * 8 * 256
CYC = "sm__cycles_elapsed.max"


@wp.kernel
def write4(dst: wp.array(dtype=wp.vec4), n: int):
    k = wp.tid()
    while k < n:
        dst[k] = wp.vec4(1.0, 1.0, 1.0, 1.0)
        k = k + wp.grid_dim() * wp.block_dim()


@wp.kernel
def r2w1(a: wp.array(dtype=wp.vec4), b: wp.array(dtype=wp.vec4), c: wp.array(dtype=wp.vec4), n: int):
    k = wp.tid()
    while k < n:
        c[k] = a[k] + b[k]
        k = k + wp.grid_dim() * wp.block_dim()


@wp.kernel
def r1w2(a: wp.array(dtype=wp.vec4), b: wp.array(dtype=wp.vec4), c: wp.array(dtype=wp.vec4), n: int):
    k = wp.tid()
    while k < n:
        x = a[k]
        b[k] = x
        c[k] = wp.vec4(x[3], x[2], x[1], x[0])
        k = k + wp.grid_dim() * wp.block_dim()


@wp.kernel
def red_tput(p: wp.array(dtype=int), group: int, n_addr: int, n: int):
    """micro.cu k_red_tput: address (thread / group) % n_addr, lines 128 bytes apart."""
    t = wp.tid()
    a = ((t / group) % n_addr) * 32
    for i in range(n):
        wp.atomic_add(p, a, 1)


@wp.kernel
def red_distinct(p: wp.array(dtype=int), n: int):
    t = wp.tid()
    for i in range(n):
        wp.atomic_add(p, t, 1)


REDUCTIONS = {"red_32_addresses": (1, 32), "red_1024_addresses": (1, 1024),
              "red_per_warp_address": (32, 1 << 30)}


def predict_reduction(name: str, n: int) -> int:
    threads = calib.SMS * 4 * 256
    p = wp.zeros(threads * 32, dtype=int)
    if name == "red_distinct":
        args, kernel = [p, n], red_distinct
    else:
        args, kernel = [p, *REDUCTIONS[name], n], red_tput
    return wp.launch(kernel, threads, args, block_dim=256, device="cpu:precise").cycles


def vec4s(n: int, k: int) -> list:
    return [wp.zeros(n, dtype=wp.vec4) for _ in range(k)]


def predict(name: str, mb: int) -> int:
    n = (mb << 20) // 16
    if name == "stream_read":
        args, kernel = [wp.array(np.ones((n, 4), np.float32), dtype=wp.vec4), n, wp.zeros(THREADS)], calib.stream_read4
    elif name == "stream_copy":
        args, kernel = vec4s(n, 2) + [n], calib.stream_copy4
    elif name == "stream_write":
        args, kernel = vec4s(n, 1) + [n], write4
    else:
        args, kernel = vec4s(n, 3) + [n], {"stream_r2w1": r2w1, "stream_r1w2": r1w2}[name]
    return wp.launch(kernel, THREADS, args, block_dim=256, device="cpu:precise").cycles


def table(what: str, unit: str, launches, measured: dict, predict_one) -> None:
    """Measured against predicted cycles for ``launches`` ((bench, value) pairs), and the mean
    absolute error."""
    meas, pred = [], []
    print(f"{what:22s} {unit:>5s} {'measured':>10s} {'model':>10s} {'ratio':>6s}")
    for name, value in launches:
        m, p = measured[(name, value)], predict_one(name, value)
        meas.append(m)
        pred.append(p)
        print(f"{name:22s} {value:5d} {m:10,.0f} {p:10,} {p / m:6.2f}", flush=True)
    print(f"mean absolute error {compare.mape(pred, meas):.1f}% over {len(meas)} launches\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4,16,64,256", help="MB per array")
    sizes = [int(s) for s in ap.parse_args().sizes.split(",")]
    measured = {}
    for part in ("micro", "micro3"):
        df = ncu.load(part)
        for _, r in df[df.bench.str.startswith(("stream_", "red_"))].iterrows():
            measured[(r.bench, int(r.value))] = float(r[CYC])
    streams = [(name, mb) for name in ("stream_read", "stream_copy", "stream_write", "stream_r2w1", "stream_r1w2")
               for mb in sizes if (name, mb) in measured]
    table("stream", "MB", streams, measured, predict)
    reductions = [(name, n) for name in (*REDUCTIONS, "red_distinct")
                  for n in sorted(v for (b, v) in measured if b == name)]
    table("reduction", "n", reductions, measured, predict_reduction)


if __name__ == "__main__":
    main()
