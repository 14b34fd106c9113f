"""Suite kernels that need simt's CUDA-style extensions to Warp's language: block-level
shared memory, ``sync_threads``, thread/block indices and warp intrinsics.

Conventions (numpy order, the last dimension varies fastest and is CUDA's x):
- ``i, j = wp.tid()`` with ``dim=(H, W)``: ``j`` is the global x index.
- ``ty, tx = wp.thread_idx()`` with ``block_dim=(BH, BW)``: ``tx`` is ``threadIdx.x``.
- ``by, bx = wp.block_idx()`` likewise; in 1-D launches these return plain ints.
Every kernel that reaches a barrier is launched with ``dim`` a multiple of ``block_dim``:
threads past the problem size run to the end and contribute nothing, as in CUDA.
Shared array shapes are literals; the launch geometry that must agree with them lives in
``cuda_cases.py``.
"""
import simt as wp


@wp.kernel
def block_sum_shared(x: wp.array(dtype=float), n: int, block_sums: wp.array(dtype=float)):
    partial = wp.shared.array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    v = float(0.0)
    if i < n:
        v = x[i]
    partial[t] = v
    wp.sync_threads()
    stride = int(128)
    while stride > 0:
        if t < stride:
            partial[t] = partial[t] + partial[t + stride]
        wp.sync_threads()
        stride = stride // 2
    if t == 0:
        block_sums[wp.block_idx()] = partial[0]


@wp.kernel
def warp_shuffle_sum(x: wp.array(dtype=float), n: int, warp_sums: wp.array(dtype=float),
                     total: wp.array(dtype=float)):
    i = wp.tid()
    v = float(0.0)
    if i < n:
        v = x[i]
    offset = int(16)
    while offset > 0:
        v = v + wp.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset = offset // 2
    if wp.lane_id() == 0:
        warp_sums[i // 32] = v
        wp.atomic_add(total, 0, v)


@wp.kernel
def transpose_tile(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    """CUDA's transposeCoalesced: a 32x32 shared tile, read column-wise (bank conflicts)."""
    tile = wp.shared.array(shape=(32, 32), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    row = by * 32 + ty
    col = bx * 32 + tx
    for k in range(0, 32, 8):
        tile[ty + k, tx] = src[row + k, col]
    wp.sync_threads()
    row = bx * 32 + ty
    col = by * 32 + tx
    for k in range(0, 32, 8):
        dst[row + k, col] = tile[tx, ty + k]


@wp.kernel
def transpose_tile_padded(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    """CUDA's transposeNoBankConflicts: the same with a 32x33 tile."""
    tile = wp.shared.array(shape=(32, 33), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    row = by * 32 + ty
    col = bx * 32 + tx
    for k in range(0, 32, 8):
        tile[ty + k, tx] = src[row + k, col]
    wp.sync_threads()
    row = bx * 32 + ty
    col = by * 32 + tx
    for k in range(0, 32, 8):
        dst[row + k, col] = tile[tx, ty + k]


@wp.kernel
def histogram_shared(values: wp.array(dtype=int), n: int, bins: wp.array(dtype=int)):
    local_bins = wp.shared.array(shape=(64,), dtype=int)
    t = wp.thread_idx()
    i = wp.tid()
    if t < 64:
        local_bins[t] = 0
    wp.sync_threads()
    if i < n:
        wp.atomic_add(local_bins, values[i], 1)
    wp.sync_threads()
    if t < 64:
        wp.atomic_add(bins, t, local_bins[t])


@wp.kernel
def matmul_tiled(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float),
                 c: wp.array2d(dtype=float)):
    a_tile = wp.shared.array(shape=(16, 16), dtype=float)
    b_tile = wp.shared.array(shape=(16, 16), dtype=float)
    row, col = wp.tid()
    ty, tx = wp.thread_idx()
    m = a.shape[0]
    depth = a.shape[1]
    n = b.shape[1]
    acc = float(0.0)
    for k0 in range(0, depth, 16):
        av = float(0.0)
        if row < m and k0 + tx < depth:
            av = a[row, k0 + tx]
        a_tile[ty, tx] = av
        bv = float(0.0)
        if k0 + ty < depth and col < n:
            bv = b[k0 + ty, col]
        b_tile[ty, tx] = bv
        wp.sync_threads()
        for kk in range(16):
            acc = acc + a_tile[ty, kk] * b_tile[kk, tx]
        wp.sync_threads()
    if row < m and col < n:
        c[row, col] = acc
