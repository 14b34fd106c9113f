"""Inputs and numpy references for the CUDA-style kernels in ``cuda_style.py``.

Float references replay the kernel's own order of float32 operations (tree reductions,
butterfly shuffles, sequential dot products), so the precise engine must match them
exactly; the stated tolerances leave room for engines that fuse multiply-adds.
"""
from __future__ import annotations

import numpy as np

from .case import ArrayInput, Case, ScalarInput

MODULE = "simt.suite.cuda_style"
f32 = np.float32

# Launch geometry; the kernels' shared array shapes are written to match.
BLOCK = 256          # block_sum_shared: threads per block = shared array length
NUM_SHARED_BINS = 64
TILE = 32            # transpose tile edge
TILE_ROWS = 8        # transpose block_dim=(8, 32), as in CUDA's transpose sample
MM_TILE = 16         # matmul tile edge, block_dim=(16, 16)


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


# ---- block reduction through shared memory -------------------------------------------

def block_sum_inputs(rng, n):
    dim = _round_up(n, BLOCK)
    x = rng.uniform(-1.0, 1.0, n).astype(f32)
    return [ArrayInput("x", x, "float32"), ScalarInput("n", np.int32(n)),
            ArrayInput("block_sums", np.zeros(dim // BLOCK, f32), "float32")], dim, BLOCK


def block_sum_reference(v):
    nblocks = len(v["block_sums"])
    partial = np.zeros(nblocks * BLOCK, f32)
    partial[: len(v["x"])] = v["x"]
    partial = partial.reshape(nblocks, BLOCK)
    stride = BLOCK // 2
    while stride > 0:
        partial[:, :stride] = partial[:, :stride] + partial[:, stride: 2 * stride]
        stride //= 2
    return {"block_sums": partial[:, 0].copy()}


# ---- warp-shuffle reduction ----------------------------------------------------------

def shuffle_sum_inputs(rng, n):
    dim = _round_up(n, 32)          # whole warps; the last block (128 threads) may be partial
    # Multiples of 1/8: every partial sum is exact, so the atomics' order cannot matter.
    x = (rng.integers(-64, 65, n) / 8).astype(f32)
    return [ArrayInput("x", x, "float32"), ScalarInput("n", np.int32(n)),
            ArrayInput("warp_sums", np.zeros(dim // 32, f32), "float32"),
            ArrayInput("total", np.zeros(1, f32), "float32")], dim, 128


def shuffle_sum_reference(v):
    nwarps = len(v["warp_sums"])
    lanes = np.zeros(nwarps * 32, f32)
    lanes[: len(v["x"])] = v["x"]
    lanes = lanes.reshape(nwarps, 32)
    offset = 16
    while offset > 0:
        # shfl_down: lane l reads lane l+offset; lanes past the end read their own value.
        shifted = lanes.copy()
        shifted[:, : 32 - offset] = lanes[:, offset:]
        lanes = lanes + shifted
        offset //= 2
    sums = lanes[:, 0].copy()
    return {"warp_sums": sums, "total": np.array([sums.astype(np.float64).sum()], f32)}


# ---- tile transpose ------------------------------------------------------------------

def transpose_inputs(rng, n):
    """``n`` rows by ``3n/2`` columns (both multiples of 32); blocks of 8x32 threads each
    move one 32x32 tile, as in CUDA's transpose sample."""
    if n % 64:
        raise ValueError(f"transpose sizes must be multiples of 64, got {n}")
    h, w = n, 3 * n // 2
    src = rng.standard_normal((h, w)).astype(f32)
    dim = (h // (TILE // TILE_ROWS), w)
    return [ArrayInput("src", src, "float32"),
            ArrayInput("dst", np.zeros((w, h), f32), "float32")], dim, (TILE_ROWS, TILE)


def transpose_reference(v):
    return {"dst": np.ascontiguousarray(v["src"].T)}


# ---- histogram with shared-memory atomics --------------------------------------------

HIST_BLOCK = 128


def histogram_shared_inputs(rng, n):
    dim = _round_up(n, HIST_BLOCK)
    values = np.minimum(rng.geometric(0.08, n) - 1, NUM_SHARED_BINS - 1).astype(np.int32)
    return [ArrayInput("values", values, "int32"), ScalarInput("n", np.int32(n)),
            ArrayInput("bins", np.zeros(NUM_SHARED_BINS, np.int32), "int32")], dim, HIST_BLOCK


def histogram_shared_reference(v):
    return {"bins": np.bincount(v["values"], minlength=NUM_SHARED_BINS).astype(np.int32)}


# ---- tiled matrix multiply -----------------------------------------------------------

def matmul_inputs(rng, n):
    """C (m x p) = A (m x depth) @ B (depth x p), sizes not multiples of the 16x16 tile."""
    m, depth, p = n + 8, n + 4, n - 8
    a = rng.uniform(-1.0, 1.0, (m, depth)).astype(f32)
    b = rng.uniform(-1.0, 1.0, (depth, p)).astype(f32)
    dim = (_round_up(m, MM_TILE), _round_up(p, MM_TILE))
    return [ArrayInput("a", a, "float32"), ArrayInput("b", b, "float32"),
            ArrayInput("c", np.zeros((m, p), f32), "float32")], dim, (MM_TILE, MM_TILE)


def matmul_reference(v):
    a, b = v["a"], v["b"]
    acc = np.zeros((a.shape[0], b.shape[1]), f32)
    for kk in range(a.shape[1]):            # the kernel's order: one product added at a time
        acc = acc + a[:, kk: kk + 1] * b[kk: kk + 1, :]
    return {"c": acc}


def _cuda(name, kernel_name, make_inputs, reference, outputs, sizes, rtol=0.0, atol=0.0,
          description=""):
    return Case(name, MODULE, kernel_name, make_inputs, reference, tuple(outputs), rtol, atol,
                warp_compatible=False, sizes=sizes, description=description)


CASES = [
    _cuda("block_sum_shared", "block_sum_shared", block_sum_inputs, block_sum_reference,
          ["block_sums"], {"small": 1000, "large": 1 << 20}, rtol=1e-5, atol=1e-5,
          description="shared-memory tree reduction, sync_threads in a loop, block_dim=256"),
    _cuda("warp_shuffle_sum", "warp_shuffle_sum", shuffle_sum_inputs, shuffle_sum_reference,
          ["warp_sums", "total"], {"small": 1100, "large": 1 << 20},
          description="shfl_down_sync butterfly per warp, lane 0 atomic_add to a total"),
    _cuda("transpose_tile", "transpose_tile", transpose_inputs, transpose_reference, ["dst"],
          {"small": 64, "large": 1024},
          description="32x32 shared tile transpose, 2-D blocks (8, 32): bank conflicts"),
    _cuda("transpose_tile_padded", "transpose_tile_padded", transpose_inputs,
          transpose_reference, ["dst"], {"small": 64, "large": 1024},
          description="32x33 padded shared tile transpose: no bank conflicts"),
    _cuda("histogram_shared", "histogram_shared", histogram_shared_inputs,
          histogram_shared_reference, ["bins"], {"small": 1000, "large": 1 << 20},
          description="per-block shared bins with shared atomics, then global atomics"),
    _cuda("matmul_tiled", "matmul_tiled", matmul_inputs, matmul_reference, ["c"],
          {"small": 32, "large": 256}, rtol=1e-5, atol=1e-5,
          description="16x16 shared tiles, sync_threads in the k loop, ragged edges"),
]
