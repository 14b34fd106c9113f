"""Corpus kernels on n-D blocks (CUDA's block=(bz, by, bx)): a shared-tile transpose, a 2-D
stencil and a 3-D copy, with their seeded-bug mutants (catalogued in kernels.py)."""
import simt as wp

@wp.kernel
def transpose_tile(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    s = wp.shared.array(shape=(16, 17), dtype=float)
    i, j = wp.tid()
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    s[ty, tx] = a[i, j]
    wp.sync_threads()
    b[bx * 16 + ty, by * 16 + tx] = s[tx, ty]


@wp.kernel
def transpose_tile_no_sync(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    s = wp.shared.array(shape=(16, 17), dtype=float)
    i, j = wp.tid()
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    s[ty, tx] = a[i, j]
    b[bx * 16 + ty, by * 16 + tx] = s[tx, ty]


@wp.kernel
def stencil_2d(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if i >= 1 and i < x.shape[0] - 1 and j >= 1 and j < x.shape[1] - 1:
        y[i, j] = 0.25 * (x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1])


@wp.kernel
def stencil_2d_edge(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if i >= 1 and i < x.shape[0] and j >= 1 and j < x.shape[1] - 1:
        y[i, j] = 0.25 * (x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1])


@wp.kernel
def stencil_2d_in_place(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if i >= 1 and i < x.shape[0] - 1 and j >= 1 and j < x.shape[1] - 1:
        x[i, j] = 0.25 * (x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1])


@wp.kernel
def volume_3d(x: wp.array3d(dtype=float), y: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    y[i, j, k] = x[i, j, k] * 2.0


@wp.kernel
def volume_3d_swapped(x: wp.array3d(dtype=float), y: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    y[k, j, i] = x[i, j, k] * 2.0
