"""The timing model on microbenchmarks measured on the H200 (data/h200/micro.csv, micro3.csv),
written again in simt and predicted on cpu:precise:

- DRAM and L2 streams of several sizes (micro.cu, micro3.cu: float4, grid-stride, 8 blocks of
  256 per SM): read, copy, write, two reads one write, one read two writes;
- scattered reads (micro.cu scatter_read: 4M threads, one float each, 8-64 floats apart);
- global reductions at several contention levels (micro.cu: 4 blocks of 256 per SM): 32 or
  1,024 hot lines with one lane each, one address per warp, every lane its own word;
- one element a thread (micro6.cu): y[i] = x[i] + 1 and its read-only, write-only, float4
  and grid-stride forms, from 16 to 512 blocks of 256 per SM (2-69 MB per array);
- lines in flight (micro7.cu): 69 MB read by 1-8 resident blocks per SM, a line (float), four
  lines (float4) or four loads of a line each per step, and the same with a copy;
- one L1 data stage (micro9.cu): per step, shared loads with 32-way conflicts, global loads
  that hit in L1 and global stores, alone and mixed, at 4 blocks of 256 per SM; measured as
  written in simt (micro9_simt.py, so the hardware runs the instructions the model predicts).

Like check_calibration.py this checks the model's structure on microbenchmarks, not its
accuracy: some of these launches set constants (dram_bytes_per_cycle from the 256 MB-1 GB
reads, dram_write_cost from the copies, the atomic units from the reductions). What no
constant covers shows at the other sizes and levels: a small copy costs its reads plus its
writes even while the L2 keeps everything it writes.

    PYTHONPATH=. python3 benchmarks/timing/check_micro.py [--sizes 4,16,64,256] [--parts streams,...]
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


@wp.kernel
def red_scatter(p: wp.array(dtype=wp.uint32), mask: wp.uint32, n: int):
    """micro.cu k_red_scatter: update i of lane t at a hashed word (mix32(t + i * lanes) & mask)."""
    t = wp.tid()
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    for i in range(n):
        x = wp.uint32(t) + wp.uint32(i) * lanes
        x = x ^ (x >> wp.uint32(16))
        x = x * wp.uint32(0x7FEB352D)
        x = x ^ (x >> wp.uint32(15))
        x = x * wp.uint32(0x846CA68B)
        x = x ^ (x >> wp.uint32(16))
        wp.atomic_add(p, int(x & mask), wp.uint32(1))


STREAMS = ("stream_read", "stream_copy", "stream_write", "stream_r2w1", "stream_r1w2")
REDUCTIONS = {"red_32_addresses": (1, 32), "red_1024_addresses": (1, 1024),
              "red_per_warp_address": (32, 1 << 30), "red_1024_addresses_x2": (1, 1024)}
# updates at random over a table of 2^20 words (4 MB, the L2 holds it) or 2^26 (256 MB)
SCATTER = {"red_scatter_l2": 20, "red_scatter_l2_x2": 20, "red_scatter_dram": 26}
# blocks of 256 an SM where micro.cu launches other than its atomics' 4
BLOCKS_PER_SM = {"red_1024_addresses_x2": 8, "red_scatter_l2_x2": 8, "red_scatter_dram": 8}


def predict_reduction(name: str, n: int) -> int:
    threads = calib.SMS * BLOCKS_PER_SM.get(name, 4) * 256
    if name in SCATTER:
        args = [wp.zeros(1 << SCATTER[name], dtype=wp.uint32), wp.uint32((1 << SCATTER[name]) - 1), n]
        return wp.launch(red_scatter, threads, args, block_dim=256, device="cpu:precise").cycles
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


@wp.kernel
def scatter_read(src: wp.array(dtype=float), stride: int, out: wp.array(dtype=float)):
    """micro.cu k_scatter_read: one float a thread, ``stride`` floats apart."""
    i = wp.tid()
    v = src[i * stride]
    if v == 1234.5:
        out[i] = v


def predict_scatter(name: str, stride: int) -> int:
    threads = 1 << 22
    args = [wp.zeros(threads * stride, dtype=float), stride, wp.zeros(threads, dtype=float)]
    return wp.launch(scatter_read, threads, args, block_dim=256, device="cpu:precise").cycles


# -- micro6.cu and micro7.cu -------------------------------------------------------------------

@wp.kernel
def elem_load_store(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i] + 1.0


@wp.kernel
def elem_load(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    v = src[i]
    if v == 1234.5:                 # never: the block ends without storing
        dst[0] = v


@wp.kernel
def elem_store(dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = float(wp.thread_idx())


@wp.kernel
def elem4_load_store(src: wp.array(dtype=wp.vec4), dst: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    dst[i] = src[i] + wp.vec4(1.0, 1.0, 1.0, 1.0)


@wp.kernel
def stride_load_store(src: wp.array(dtype=float), dst: wp.array(dtype=float), n: int):
    i = wp.tid()
    while i < n:
        dst[i] = src[i] + 1.0
        i = i + wp.grid_dim() * wp.block_dim()


@wp.kernel
def read(src: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    acc = float(0.0)
    while i < n:
        acc = acc + src[i]
        i = i + wp.grid_dim() * wp.block_dim()
    if acc == -1.0:                 # never: keeps the loads
        out[0] = acc


@wp.kernel
def read4(src: wp.array(dtype=wp.vec4), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    acc = float(0.0)
    while i < n:
        v = src[i]
        acc = acc + (v[0] + v[1] + v[2] + v[3])
        i = i + wp.grid_dim() * wp.block_dim()
    if acc == -1.0:
        out[0] = acc


@wp.kernel
def read_unroll4(src: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = wp.grid_dim() * wp.block_dim()
    acc = float(0.0)
    while i < n:
        a = src[i]
        b = src[i + s]
        c = src[i + 2 * s]
        d = src[i + 3 * s]
        acc = acc + ((a + b) + (c + d))
        i = i + 4 * s
    if acc == -1.0:
        out[0] = acc


def _floats(n: int, width: int = 1):
    """``n`` random floats (fixed seed), as floats or, with ``width`` 4, as n / 4 vec4s."""
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    return wp.array(x, dtype=float) if width == 1 else wp.array(x.reshape(-1, 4), dtype=wp.vec4)


def predict_elem(bench: str, per_sm: int) -> int:
    """micro6.cu: ``per_sm`` blocks of 256 per SM, one element a thread (float4: a quarter)."""
    n = calib.SMS * 256 * per_sm
    if bench == "elem_store":
        args, dim = [wp.zeros(n)], n
    elif bench == "elem4_load_store":
        args, dim = [_floats(n, 4), wp.zeros(n // 4, dtype=wp.vec4)], n // 4
    elif bench == "stride_load_store":
        args, dim = [_floats(n), wp.zeros(n), n], calib.SMS * 8 * 256
    else:
        args, dim = [_floats(n), wp.zeros(n)], n
    kernel = globals()[bench]
    return wp.launch(kernel, dim, args, block_dim=256, device="cpu:precise").cycles


def predict_inflight(bench: str, per_sm: int) -> int:
    """micro7.cu: 69 MB of floats, ``per_sm`` resident blocks of 256 per SM."""
    n = calib.SMS * 256 * 512
    if bench == "read4":
        kernel, args = read4, [_floats(n, 4), wp.zeros(1), n // 4]
    elif bench == "copy":
        kernel, args = stride_load_store, [_floats(n), wp.zeros(n), n]
    else:
        kernel, args = {"read": read, "read_unroll4": read_unroll4}[bench], [_floats(n), wp.zeros(1), n]
    return wp.launch(kernel, calib.SMS * per_sm * 256, args, block_dim=256, device="cpu:precise").cycles


# -- micro9.cu --------------------------------------------------------------------------------

MIX = {"lds2": (2, 0, 0), "ldg16": (0, 16, 0), "ldg64": (0, 64, 0), "lds2_ldg16": (2, 16, 0),
       "lds2_ldg64": (2, 64, 0), "lds1_ldg32": (1, 32, 0), "stg4": (0, 0, 4), "lds2_stg4": (2, 0, 4),
       "lds2_ldg16_stg4": (2, 16, 4)}


@wp.kernel
def mix(src: wp.array(dtype=float), dst: wp.array(dtype=float), out: wp.array(dtype=float),
        ls: int, lg: int, sg: int, n: int):
    s = wp.shared.array(shape=(1024,), dtype=float)
    t = wp.thread_idx()
    for k in range(t, 1024, 256):
        s[k] = float(k)
    wp.sync_threads()
    lane = wp.lane_id()
    base = wp.block_idx() * 4096
    off = (t // 32) * 512 + lane
    acc = float(0.0)
    for i in range(n):
        for u in range(ls):
            acc = acc + s[(lane * 32 + u * 33 + i) & 1023]
        for u in range(lg):
            acc = acc + src[base + ((off + u * 32 + i * 32) & 4095)]
        for u in range(sg):
            dst[base + ((off + u * 32 + i * 32) & 4095)] = acc
    out[wp.tid()] = acc


def launch_mix(bench: str, n: int, device: str):
    """micro9.cu: ``bench``'s loads and stores per step, ``n`` steps, 4 blocks of 256 per SM."""
    blocks = calib.SMS * 4
    args = [wp.zeros(blocks * 4096, device=device), wp.zeros(blocks * 4096, device=device),
            wp.zeros(blocks * 256, device=device), *MIX[bench], n]
    return wp.launch(mix, blocks * 256, args, block_dim=256, device=device)


def predict_mix(bench: str, n: int) -> int:
    return launch_mix(bench, n, "cpu:precise").cycles


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
    ap.add_argument("--parts", default="streams,scatter,reductions,elements,inflight,datastage",
                    help="which tables (streams, scatter, reductions, elements, inflight, datastage)")
    ap.add_argument("--micro", default="", help="read micro.cu's measurements from this folder "
                    "(simt calibrate's --keep) instead of data/h200")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    parts = set(a.parts.split(","))
    measured = {}
    for part in ("micro", "micro3", "micro6", "micro7", "micro9_simt"):
        df = ncu.load(part, Path(a.micro)) if part == "micro" and a.micro else ncu.load(part)
        for _, r in df.iterrows():
            measured[(part, r.bench, int(r.value))] = float(r[CYC])

    def launches(files, names):
        """The measured cycles of ``names`` in ``files``, and their (bench, value) in order."""
        m = {(b, v): c for (p, b, v), c in measured.items() if p in files and b in names}
        return m, [(b, v) for b in names for v in sorted(v for (x, v) in m if x == b)]
    if "streams" in parts:
        m, order = launches(("micro", "micro3"), STREAMS)
        table("stream", "MB", [(b, mb) for b, mb in order if mb in sizes], m, predict)
    for part, what, unit, files, names, predict_one in (
            ("scatter", "scattered reads", "apart", ("micro",), ("scatter_read",), predict_scatter),
            ("reductions", "reduction", "n", ("micro",), (*REDUCTIONS, "red_distinct", *SCATTER), predict_reduction),
            ("elements", "one element a thread", "/SM", ("micro6",),
             ("elem_load_store", "elem_load", "elem_store", "elem4_load_store", "stride_load_store"), predict_elem),
            ("inflight", "lines in flight", "/SM", ("micro7",), ("read", "read4", "read_unroll4", "copy"),
             predict_inflight),
            ("datastage", "one L1 data stage", "n", ("micro9_simt",), tuple(MIX), predict_mix)):
        if part in parts:
            m, order = launches(files, names)
            table(what, unit, order, m, predict_one)


if __name__ == "__main__":
    main()
