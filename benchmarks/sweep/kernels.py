"""Three kernels whose configurations are ranked by simt.sweep (cpu:precise, sm_90) and by an
H200 (measure_gpu.py under Nsight Compute): a shared-tile matmul, a block reduction and a
shared-tile transpose, each made by a factory from its configuration.

Each ``*_setup(**point)`` returns simt.launch's keyword arguments with arrays on the current
default device, so the same function feeds simt.sweep (cpu) and the GPU run (``with
simt.ScopedDevice("cuda")``). ``KERNELS`` maps each kernel's name to its setup, its space
and a check of its outputs against numpy.
"""
from __future__ import annotations

import functools

import numpy as np

import simt as wp

# ---- 1. matmul: C = A B, N x N, shared tiles ------------------------------------------------
#
# A block computes a TILE x TILE tile of C with TILE x (TILE / ROWS) threads, each thread ROWS
# rows of it (register blocking). The A tile is stored transposed (a_s[k, row]) so the inner
# loop reads one broadcast word; its stores then go down a column of a_s, one bank for every
# lane unless the row is padded.

MATMUL_N = 256


@functools.lru_cache(maxsize=None)
def matmul_kernel(tile: int, pad: int, rows: int):
    step = tile // rows                    # threads along y; thread ty owns rows ty, ty + step, ...

    @wp.kernel
    def matmul(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
        a_s = wp.shared.array(shape=(tile, tile), dtype=float, pad=pad)
        b_s = wp.shared.array(shape=(tile, tile), dtype=float, pad=pad)
        ty, tx = wp.thread_idx()
        by, bx = wp.block_idx()
        row0 = by * tile
        col = bx * tile + tx
        n = a.shape[1]
        s0 = float(0.0)
        s1 = float(0.0)
        s2 = float(0.0)
        s3 = float(0.0)
        for k0 in range(0, n, tile):
            for r in range(0, tile, step):
                a_s[tx, ty + r] = a[row0 + ty + r, k0 + tx]      # transposed: a column of a_s
                b_s[ty + r, tx] = b[k0 + ty + r, col]
            wp.sync_threads()
            for kk in range(tile):
                bv = b_s[kk, tx]
                s0 += a_s[kk, ty] * bv
                if wp.static(rows > 1):
                    s1 += a_s[kk, ty + step] * bv
                if wp.static(rows > 2):
                    s2 += a_s[kk, ty + 2 * step] * bv
                    s3 += a_s[kk, ty + 3 * step] * bv
            wp.sync_threads()
        c[row0 + ty, col] = s0
        if wp.static(rows > 1):
            c[row0 + ty + step, col] = s1
        if wp.static(rows > 2):
            c[row0 + ty + 2 * step, col] = s2
            c[row0 + ty + 3 * step, col] = s3

    return matmul


def matmul_inputs():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((MATMUL_N, MATMUL_N)).astype(np.float32),
            rng.standard_normal((MATMUL_N, MATMUL_N)).astype(np.float32))


def matmul_setup(tile: int, pad: int, rows: int) -> dict:
    a, b = matmul_inputs()
    return dict(kernel=matmul_kernel(tile, pad, rows), dim=(MATMUL_N // rows, MATMUL_N),
                block_dim=(tile // rows, tile), inputs=[wp.array(a), wp.array(b), wp.zeros((MATMUL_N, MATMUL_N))])


def matmul_check(kwargs: dict) -> bool:
    a, b, c = (x.numpy() for x in kwargs["inputs"])
    return bool(np.allclose(c, a.astype(np.float64) @ b, rtol=1e-3, atol=1e-3))


MATMUL_SPACE = {"tile": [8, 16, 32], "pad": [0, 1], "rows": [1, 2, 4]}


# ---- 2. reduction: the sum of N floats -------------------------------------------------------
#
# Each thread adds PER_THREAD elements, strided by the grid's size (coalesced), a block sums its
# threads in shared memory (a tree, sequential addressing), and its thread 0 adds the block's sum
# to the result with one atomic: fewer, bigger blocks mean fewer atomics and more tree steps.

REDUCE_N = 1 << 22


@functools.lru_cache(maxsize=None)
def reduce_kernel(block: int, per_thread: int):
    @wp.kernel
    def block_sum(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        partial = wp.shared.array(shape=(block,), dtype=float)
        t = wp.thread_idx()
        threads = wp.grid_dim() * block
        i = wp.block_idx() * block + t
        s = float(0.0)
        for j in range(per_thread):
            s += x[i + j * threads]
        partial[t] = s
        wp.sync_threads()
        stride = block // 2
        while stride > 0:
            if t < stride:
                partial[t] = partial[t] + partial[t + stride]
            wp.sync_threads()
            stride = stride // 2
        if t == 0:
            wp.atomic_add(out, 0, partial[0])

    return block_sum


def reduce_inputs():
    return np.random.default_rng(2).random(REDUCE_N).astype(np.float32)


def reduce_setup(block: int, per_thread: int) -> dict:
    return dict(kernel=reduce_kernel(block, per_thread), dim=REDUCE_N // per_thread, block_dim=block,
                inputs=[wp.array(reduce_inputs()), wp.zeros(1)])


def reduce_check(kwargs: dict) -> bool:
    x, out = (a.numpy() for a in kwargs["inputs"])
    return bool(np.isclose(out[0], x.astype(np.float64).sum(), rtol=1e-4))


REDUCE_SPACE = {"block": [64, 128, 256, 512, 1024], "per_thread": [1, 4, 16]}


# ---- 3. transpose: B = A^T, N x N, through a shared tile -------------------------------------
#
# A block moves a TILE x TILE tile with TILE x (TILE / ROWS) threads: reads rows of A, writes
# rows of B, both coalesced; the tile is read down its columns, which conflict unless padded.

TRANSPOSE_N = 2048


@functools.lru_cache(maxsize=None)
def transpose_kernel(tile: int, pad: int, rows: int):
    step = tile // rows

    @wp.kernel
    def transpose(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
        t = wp.shared.array(shape=(tile, tile), dtype=float, pad=pad)
        ty, tx = wp.thread_idx()
        by, bx = wp.block_idx()
        for r in range(0, tile, step):
            t[ty + r, tx] = a[by * tile + ty + r, bx * tile + tx]
        wp.sync_threads()
        for r in range(0, tile, step):
            b[bx * tile + ty + r, by * tile + tx] = t[tx, ty + r]

    return transpose


def transpose_inputs():
    return np.random.default_rng(3).random((TRANSPOSE_N, TRANSPOSE_N)).astype(np.float32)


def transpose_setup(tile: int, pad: int, rows: int) -> dict:
    return dict(kernel=transpose_kernel(tile, pad, rows), dim=(TRANSPOSE_N // rows, TRANSPOSE_N),
                block_dim=(tile // rows, tile), inputs=[wp.array(transpose_inputs()),
                                                        wp.zeros((TRANSPOSE_N, TRANSPOSE_N))])


def transpose_check(kwargs: dict) -> bool:
    a, b = (x.numpy() for x in kwargs["inputs"])
    return bool(np.array_equal(b, a.T))


TRANSPOSE_SPACE = {"tile": [8, 16, 32], "pad": [0, 1], "rows": [1, 4]}


KERNELS = {
    "matmul": (matmul_setup, MATMUL_SPACE, matmul_check),
    "reduce": (reduce_setup, REDUCE_SPACE, reduce_check),
    "transpose": (transpose_setup, TRANSPOSE_SPACE, transpose_check),
}
