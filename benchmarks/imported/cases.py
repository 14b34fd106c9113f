"""The launches of probes.cu that measure.sh profiles on a GPU and report.py predicts.

Each case: (name, kernel as written in probes.cu, grid, block, inputs(rng), part), CUDA's
x-first grid and block. ``part`` is "counters" (shared bank conflicts and wavefronts, global
requests and sectors, which must equal Nsight Compute's) or "cycles" (the held-out cycle set:
measured once, reported, never used to fit or tune anything).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

SOURCE = Path(__file__).resolve().parent / "probes.cu"


def f32(rng, n, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, n).astype(np.float32)


def zeros(n, dtype=np.float32):
    return np.zeros(n, dtype)


def csr(rng, rows: int, per_row: int, ncols: int):
    """A random CSR matrix with ``per_row`` nonzeros in every row."""
    rowptr = (np.arange(rows + 1) * per_row).astype(np.int32)
    cols = rng.integers(0, ncols, rows * per_row).astype(np.int32)
    return rowptr, cols, f32(rng, rows * per_row)


CASES = []


def case(name, kernel, grid, block, inputs, part):
    CASES.append((name, kernel, grid, block, inputs, part))


# ---- counters: 4 blocks of one warp each unless said otherwise ---------------------------------
for s in (1, 2, 4, 8, 16, 32, 33):
    case(f"shared_ld32_s{s}", "shared_ld32", (4,), (32,), lambda r, s=s: [zeros(128), s], "counters")
for s in (1, 2, 4, 16):
    case(f"shared_ld64_s{s}", "shared_ld64", (4,), (32,), lambda r, s=s: [zeros(128), s], "counters")
for s in (1, 2, 8):
    case(f"shared_ld128_s{s}", "shared_ld128", (4,), (32,), lambda r, s=s: [zeros(128), s], "counters")
for s in (1, 2, 32):
    case(f"shared_st32_s{s}", "shared_st32", (4,), (32,), lambda r, s=s: [zeros(128), s], "counters")
for pad in (0, 1):
    case(f"transpose_tile_p{pad}", f"transpose_tile<{pad}>", (8, 8), (32, 8),
         lambda r: [f32(r, 256 * 256), zeros(256 * 256), 256], "counters")
case("transpose_naive", "transpose_naive", (16, 16), (16, 16), lambda r: [f32(r, 256 * 256), zeros(256 * 256), 256],
     "counters")
for s in (1, 2, 4, 8, 32):
    case(f"copy_strided_s{s}", "copy_strided", (16,), (128,),
         lambda r, s=s: [f32(r, 2048 * s), zeros(2048), s, 2048], "counters")
for off in (1, 8):
    case(f"copy_offset_o{off}", "copy_offset", (16,), (128,),
         lambda r, off=off: [f32(r, 2048 + off), zeros(2048), off, 2048], "counters")
case("copy_double", "copy_double", (16,), (128,), lambda r: [r.standard_normal(2048), zeros(2048, np.float64), 2048],
     "counters")
case("copy_float4", "copy_float4", (16,), (128,), lambda r: [f32(r, 4 * 2048), zeros(4 * 2048), 2048], "counters")

# ---- cycles: realistic sizes ---------------------------------------------------------------------
N4M = 1 << 22
case("saxpy_4M", "saxpy_grid", (1056,), (256,), lambda r: [N4M, np.float32(2.0), f32(r, N4M), f32(r, N4M)], "cycles")
case("saxpy_64K", "saxpy_grid", (256,), (256,), lambda r: [1 << 16, np.float32(2.0), f32(r, 1 << 16), f32(r, 1 << 16)],
     "cycles")
case("reduce_shared_4M", "reduce_shared", (528,), (256,), lambda r: [f32(r, N4M), zeros(1), N4M], "cycles")
case("reduce_shuffle_4M", "reduce_shuffle", (528,), (256,), lambda r: [f32(r, N4M), zeros(1), N4M], "cycles")
case("matmul_tiled_512", "matmul_tiled", (32, 32), (16, 16),
     lambda r: [f32(r, 512 * 512), f32(r, 512 * 512), zeros(512 * 512), 512], "cycles")
case("matmul_naive_512", "matmul_naive", (32, 32), (16, 16),
     lambda r: [f32(r, 512 * 512), f32(r, 512 * 512), zeros(512 * 512), 512], "cycles")
case("transpose_tile_p0_2048", "transpose_tile<0>", (64, 64), (32, 8),
     lambda r: [f32(r, 2048 * 2048), zeros(2048 * 2048), 2048], "cycles")
case("transpose_tile_p1_2048", "transpose_tile<1>", (64, 64), (32, 8),
     lambda r: [f32(r, 2048 * 2048), zeros(2048 * 2048), 2048], "cycles")
case("transpose_naive_2048", "transpose_naive", (128, 128), (16, 16),
     lambda r: [f32(r, 2048 * 2048), zeros(2048 * 2048), 2048], "cycles")
case("stencil5_2048", "stencil5", (64, 256), (32, 8), lambda r: [f32(r, 2048 * 2048), zeros(2048 * 2048), 2048],
     "cycles")
case("histogram_shared_1M", "histogram_shared", (264,), (256,),
     lambda r: [r.integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32), zeros(256, np.uint32), 1 << 20],
     "cycles")
case("histogram_global_256K", "histogram_global", (1024,), (256,),
     lambda r: [r.integers(0, 2**32, 1 << 18, dtype=np.uint64).astype(np.uint32), zeros(64, np.uint32), 1 << 18],
     "cycles")
case("black_scholes_1M", "black_scholes", (4096,), (256,),
     lambda r: [f32(r, 1 << 20, 10, 100), f32(r, 1 << 20, 10, 100), f32(r, 1 << 20, 0.1, 2), zeros(1 << 20), 1 << 20],
     "cycles")
case("mandel_512", "mandel", (16, 64), (32, 8), lambda r: [zeros(512 * 512, np.int32), 512, 512, 64], "cycles")
case("spmv_csr_16K_r32", "spmv_csr", (64,), (256,),
     lambda r: [*csr(r, 1 << 14, 32, 1 << 14), f32(r, 1 << 14), zeros(1 << 14), 1 << 14], "cycles")
case("softmax_warp_2048x512", "softmax_warp", (256,), (256,),
     lambda r: [f32(r, 2048 * 512, -4, 4), zeros(2048 * 512), 512], "cycles")


def inputs(c, seed: int = 0) -> list:
    return c[4](np.random.default_rng(seed))
