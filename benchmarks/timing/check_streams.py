"""The timing model on DRAM and L2 streams of several sizes, against micro.cu's and micro3.cu's
CUDA C streams measured on the H200 (data/h200/micro.csv, micro3.csv): the same access pattern
(float4, grid-stride, 8 blocks of 256 per SM) written in simt and predicted on cpu:precise.

Like check_calibration.py this checks the model's structure on microbenchmarks, not its
accuracy: some of these launches set constants (dram_bytes_per_cycle from the 256 MB-1 GB
reads, dram_write_cost from the copies). The small sizes show what no constant covers: a copy
costs its reads plus its writes even while the L2 keeps everything it writes.

    PYTHONPATH=. python3 benchmarks/timing/check_streams.py [--sizes 4,16,64,256]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from timing import calib, ncu  # noqa: E402

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4,16,64,256", help="MB per array")
    sizes = [int(s) for s in ap.parse_args().sizes.split(",")]
    measured = {}
    for part in ("micro", "micro3"):
        df = ncu.load(part)
        for _, r in df[df.bench.str.startswith("stream_")].iterrows():
            measured[(r.bench, int(r.value))] = float(r[CYC])
    print(f"{'stream':14s} {'MB':>5s} {'measured':>10s} {'model':>10s} {'ratio':>6s}")
    ratios = []
    for name in ("stream_read", "stream_copy", "stream_write", "stream_r2w1", "stream_r1w2"):
        for mb in sizes:
            if (name, mb) not in measured:
                continue
            m = measured[(name, mb)]
            p = predict(name, mb)
            ratios.append(p / m)
            print(f"{name:14s} {mb:5d} {m:10,.0f} {p:10,} {p / m:6.2f}", flush=True)
    print(f"\nmean absolute error {100 * float(np.mean(np.abs(np.array(ratios) - 1))):.1f}% over {len(ratios)} streams")


if __name__ == "__main__":
    main()
