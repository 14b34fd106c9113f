"""How much of the L2 a line read by many SMs can use, on the H200 and in simt's model.

l2_sharing.cu (simt/calibrate/cuda; profiled once with Nsight Compute, raw CSV in
data/h200/l2_sharing.csv, its manifest's lines also in l2_sharing_manifest.csv) reads a
buffer twice with one 1024-thread block per SM, the second pass by the same SM (shift 0) or by
another one (shift 1, shift SMs/2), and gathers random 32-byte sectors of tables of 8-64 MB
from every SM, eight reads a sector on average. This script prints, per launch, the DRAM bytes
read against the bytes of the buffer, and simt's prediction of the same kernel (written here
in simt's language, the same hash; the read-twice kernel without its grid-wide barrier) on
cpu:precise. The gathers of tables that fit give the L2's one-sector request rate
(timing.l2_requests_per_cycle), printed at the end.

    PYTHONPATH=. python3 benchmarks/timing/l2_sharing.py [--no-predict]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import simt as wp
from simt.calibrate.ncu_csv import l2_request_rate, load

HERE = Path(__file__).resolve().parent
CSV = HERE / "data" / "h200" / "l2_sharing.csv"


@wp.kernel
def gather(table: wp.array(dtype=wp.vec4), sectors: wp.uint32, iters: int, out: wp.array(dtype=float)):
    t = wp.uint32(wp.tid())
    s = float(0.0)
    for i in range(iters):
        h = (t * wp.uint32(0x9E3779B1)) ^ (wp.uint32(i) * wp.uint32(0x85EBCA77))
        h = h ^ (h >> wp.uint32(15))
        h = h * wp.uint32(0x2C1B3C6D)
        h = h ^ (h >> wp.uint32(12))
        h = h * wp.uint32(0x297A2D39)
        h = h ^ (h >> wp.uint32(15))
        v = table[int(h % sectors) * 2]
        s += v[0]
    if s == 1234.5:
        out[int(t)] = s


@wp.kernel
def read_twice_shift(src: wp.array(dtype=wp.vec4), words4: int, shift: int, out: wp.array(dtype=float)):
    # l2_sharing.cu's kernel less its grid-wide barrier between the passes (cpu:precise runs
    # the blocks a batch at a time, so a spinning barrier would never open); the blocks do the
    # same work, so the second pass starts at about the same time on every SM
    b = wp.block_idx()
    t = wp.thread_idx()
    step = wp.grid_dim() * wp.block_dim()
    acc = float(0.0)
    for p in range(2):
        bb = b
        if p == 1:
            bb = (b + shift) % wp.grid_dim()
        k = bb * wp.block_dim() + t
        while k < words4:
            v = src[k]
            acc += v[0] + v[1] + v[2] + v[3]
            k += step
    if acc == 1234.5:
        out[b * wp.block_dim() + t] = acc


def _launch(kernel, threads: int, block: int, inputs) -> tuple[float, float]:
    """(DRAM bytes read, cycles) of one cpu:precise launch."""
    r = wp.launch(kernel, dim=threads, inputs=inputs, block_dim=block, device="cpu:precise")
    return r.metrics["dram__bytes_read.sum"], r.metrics["sm__cycles_elapsed.max"]


def predict(mb: int, iters: int, sms: int = 132) -> tuple[float, float]:
    threads = sms * 8 * 256
    table = wp.zeros((mb << 20) // 16, dtype=wp.vec4, device="cpu:precise")
    out = wp.zeros(threads, dtype=float, device="cpu:precise")
    return _launch(gather, threads, 256, [table, np.uint32((mb << 20) // 32), iters, out])


def predict_twice(mb: int, shift: int, sms: int = 132) -> tuple[float, float]:
    src = wp.zeros((mb << 20) // 16, dtype=wp.vec4, device="cpu:precise")
    out = wp.zeros(sms * 1024, dtype=float, device="cpu:precise")
    return _launch(read_twice_shift, sms * 1024, 1024, [src, (mb << 20) // 16, shift, out])


def _table(rows: pd.DataFrame, head: str, columns, predictor, unit: str, no_predict: bool) -> None:
    """Print the H200's rows (``columns(r)`` the measured part of each line) and, unless
    ``no_predict``, simt's DRAM bytes per ``unit`` byte, cycles and their ratio beside them."""
    label = f"simt DRAM / {unit}"
    width = len(label) + 1
    print(head + ("" if no_predict else f" {label:>{width}} {'simt cycles':>12} {'ratio':>6}"))
    for _, r in rows.iterrows():
        line = columns(r) + f"{r['sm__cycles_elapsed.max']:>10,.0f}"
        if not no_predict:
            dram, cycles = predictor(int(r.mb), int(r.param))
            line += (f" {dram / r.buffer:>{width}.2f} {cycles:>12,.0f} "
                     f"{cycles / r['sm__cycles_elapsed.max']:>6.2f}")
        print(line, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-predict", action="store_true", help="the H200's figures only")
    args = ap.parse_args()
    if not CSV.exists():
        sys.exit(f"{CSV} does not exist: measure first (l2_sharing.cu's header)")
    df = load("l2_sharing", CSV.parent)
    df["buffer"] = df.mb * (1 << 20)
    df["dram/buffer"] = df["dram__bytes_read.sum"] / df.buffer
    df["l2 hit"] = df["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] / df["lts__t_sectors_srcunit_tex_op_read.sum"]
    print("a buffer read twice, one block per SM; the second pass by the SM `shift` blocks on")
    _table(df[df.bench == "read_twice_shift"],
           f"{'MB':>4} {'shift':>6} {'DRAM / buffer':>14} {'second read missed':>19} {'cycles':>10}",
           lambda r: f"{r.mb:>4} {r.param:>6} {r['dram/buffer']:>14.2f} {r['dram/buffer'] - 1:>19.0%} ",
           predict_twice, "buffer", args.no_predict)
    print("\nrandom 32-byte sectors from every SM, 8 reads a sector on average")
    _table(df[df.bench == "gather"],
           f"{'MB':>4} {'iters':>6} {'DRAM / table':>13} {'L2 hit':>7} {'cycles':>10}",
           lambda r: f"{r.mb:>4} {r.param:>6} {r['dram/buffer']:>13.2f} {r['l2 hit']:>7.2f} ",
           predict, "table", args.no_predict)
    rate, mb = l2_request_rate(df)
    print(f"\nL2 read requests (one sector each) per cycle, gathering the largest table that fits "
          f"({mb:.0f} MB): {rate:.2f}  (timing.l2_requests_per_cycle)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
