"""The blind validation set's launches: kernels from PolyBench/GPU, Rodinia and SHOC
(kernels.py) at two or three sizes each, with seeded inputs, and the pairs users compare.

Measured once on an H200 (measure.sh here); never used to fit or tune a constant of the timing
model (see README.md). Sizes keep each launch under about 50 ms on the GPU and about 20M
thread-iterations for the model.
"""
from __future__ import annotations

import numpy as np

import simt as wp

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K

f32, f64, i32 = np.float32, np.float64, np.int32
M = 1 << 20


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def gemm(n, dtype=f32):
    return lambda rng: ([rng.random((n, n)).astype(dtype), rng.random((n, n)).astype(dtype),
                         rng.random((n, n)).astype(dtype), f32(1.5), f32(0.5)], (n, n), (8, 32))


def gemm_tiled(n):
    # a block of (8, 32) threads per 32x32 tile of C: dim = (n / 4, n)
    return lambda rng: ([rng.random((n, n), dtype=f32), rng.random((n, n), dtype=f32),
                         rng.random((n, n), dtype=f32), f32(1.5), f32(0.5)], (n // 4, n), (8, 32))


def matvec(n, m):
    """A (n, m), a vector of m, an output of n: one thread per output element."""
    return lambda rng: ([rng.random((n, m), dtype=f32), rng.random(m, dtype=f32), np.zeros(n, f32)], n, 256)


def matvec_t(n, m):
    """A (n, m), a vector of n, an output of m (A^T r)."""
    return lambda rng: ([rng.random((n, m), dtype=f32), rng.random(n, dtype=f32), np.zeros(m, f32)], m, 256)


def gemv_tiles(n, m):
    # a block of (8, 32) threads per 32 rows: dim = (8, n)
    return lambda rng: ([rng.random((n, m), dtype=f32), rng.random(m, dtype=f32), np.zeros(n, f32)],
                        (8, n), (8, 32))


def mvt(n):
    return lambda rng: ([rng.random((n, n), dtype=f32), rng.random(n, dtype=f32), rng.random(n, dtype=f32),
                         rng.random(n, dtype=f32), rng.random(n, dtype=f32)], n, 256)


def gesummv(n, dtype=f32):
    return lambda rng: ([rng.random((n, n)).astype(dtype), rng.random((n, n)).astype(dtype),
                         rng.random(n).astype(dtype), np.zeros(n, dtype), f32(1.5), f32(0.5)], n, 256)


def syrk(n):
    return lambda rng: ([rng.random((n, n), dtype=f32), rng.random((n, n), dtype=f32), f32(1.5), f32(0.5)],
                        (n, n), (8, 32))


def corr(rows, cols):
    return lambda rng: ([rng.random((rows, cols), dtype=f32), np.zeros(cols, f32), np.zeros(cols, f32)], cols, 128)


def two_grids(n):
    return lambda rng: ([rng.random((n, n), dtype=f32), np.zeros((n, n), f32)], (n, n), (8, 32))


def fdtd(n):
    return lambda rng: ([rng.random((n, n), dtype=f32), rng.random((n, n), dtype=f32),
                         rng.random((n, n), dtype=f32)], (n, n), (8, 32))


def conv2d(n, radius):
    k = 2 * radius + 1
    return lambda rng: ([rng.random((n, n), dtype=f32), (rng.random((k, k)) / (k * k)).astype(f32),
                         np.zeros((n, n), f32), i32(radius)], (n, n), (8, 32))


def conv3d(d, h, w):
    return lambda rng: ([rng.random((d, h, w), dtype=f32), (rng.random((3, 3, 3)) / 27).astype(f32),
                         np.zeros((d, h, w), f32)], (d, h, w), (1, 8, 32))


def hotspot(n):
    return lambda rng: ([(320.0 + 20.0 * rng.random((n, n))).astype(f32), (rng.random((n, n)) * 0.5).astype(f32),
                         np.zeros((n, n), f32), f32(0.5), f32(0.1), f32(0.1), f32(0.002), f32(300.0)],
                        (n, n), (8, 32))


def srad(n):
    def make(rng):
        img = np.exp(rng.random((n, n)) * 0.5).astype(f32)     # positive, as SRAD's extracted image
        return [img, f32(0.05), *[np.zeros((n, n), f32) for _ in range(5)]], (n, n), (8, 32)
    return make


def layer_thread(n_in, n_out):
    return lambda rng: ([(rng.random((n_out, n_in)) - 0.5).astype(f32) * f32(0.1), rng.random(n_in, dtype=f32),
                         np.zeros(n_out, f32)], n_out, 128)


def layer_block(n_in, n_out):
    return lambda rng: ([(rng.random((n_out, n_in)) - 0.5).astype(f32) * f32(0.1), rng.random(n_in, dtype=f32),
                         np.zeros(n_out, f32)], n_out * 256, 256)


def kmeans(n, k, f, feature_major):
    def make(rng):
        pts = rng.random((n, f), dtype=f32)
        cents = pts[rng.choice(n, k, replace=False)].copy()
        feats = np.ascontiguousarray(pts.T) if feature_major else pts
        return [feats, cents, np.zeros(n, i32)], n, 256
    return make


def nn(n):
    return lambda rng: ([(rng.random((n, 2)) * [180.0, 360.0] - [90.0, 180.0]).astype(f32), f32(30.0),
                         f32(90.0), np.zeros(n, f32)], n, 256)


def pathfinder(cols, steps):
    def make(rng):
        blocks = -(-cols // (256 - 2 * steps))
        return ([rng.integers(0, 10, (steps, cols), dtype=i32), rng.integers(0, 10, cols, dtype=i32),
                 np.zeros(cols, i32), i32(0), i32(steps)], blocks * 256, 256)
    return make


def nw(n, diag):
    def make(rng):
        score = rng.integers(-50, 50, (n + 1, n + 1), dtype=i32)
        score[0, :] = -10 * np.arange(n + 1)
        score[:, 0] = -10 * np.arange(n + 1)
        tiles = n // 16
        blocks = min(diag, tiles - 1) - max(0, diag - (tiles - 1)) + 1
        return [score, rng.integers(-10, 11, (n, n), dtype=i32), i32(diag), i32(10)], blocks * 16, 16
    return make


def reduce(n, blocks):
    return lambda rng: ([rng.random(n, dtype=f32), i32(n), np.zeros(blocks, f32)], blocks * 256, 256)


def scan(n):
    return lambda rng: ([(rng.integers(0, 16, n) / 16).astype(f32), np.zeros(n, f32), np.zeros(n // 256, f32)],
                        n, 256)


def stencil9(n, dtype=f32):
    return lambda rng: ([rng.random((n, n)).astype(dtype), np.array([0.25, 0.125, 0.0625], dtype),
                         np.zeros((n, n), dtype)], (n, n), (8, 32))


def md(side, max_neighbors):
    """Atoms near the points of a side^3 lattice, in lattice order; each atom's neighbours are
    lattice points up to two cells away in each direction (wrapped at the edges, so some lie
    beyond the cut-off), stored neighbour-major."""
    def make(rng):
        n = side ** 3
        idx = np.arange(n)
        xyz = np.stack([idx % side, (idx // side) % side, idx // (side * side)], axis=1)
        pos = (xyz + 0.2 * (rng.random((n, 3)) - 0.5)).astype(f32)
        offsets = np.array([(a, b, c) for a in range(-2, 3) for b in range(-2, 3) for c in range(-2, 3)
                            if (a, b, c) != (0, 0, 0)])
        pick = np.argsort(rng.random((n, len(offsets))), axis=1)[:, :max_neighbors]
        nb = (xyz[:, None, :] + offsets[pick]) % side
        neighbors = (nb[..., 0] + side * nb[..., 1] + side * side * nb[..., 2]).T.astype(i32)
        return ([pos, np.ascontiguousarray(neighbors), np.zeros((n, 3), f32), f32(6.25), f32(1.5), f32(2.0)],
                n, 128)
    return make


def csr(rows, avg):
    """A random sparse matrix, rows x rows, avg / 2 to 3 avg / 2 nonzeros a row in sorted columns."""
    def matrix(rng):
        counts = rng.integers(avg // 2, 3 * avg // 2 + 1, rows)
        row_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(i32)
        row_of = np.repeat(np.arange(rows), counts)
        cols = rng.integers(0, rows, int(row_ptr[-1]))
        cols = cols[np.lexsort((cols, row_of))].astype(i32)
        return [row_ptr, cols, rng.random(len(cols), dtype=f32), rng.random(rows, dtype=f32), np.zeros(rows, f32)]
    return matrix


def spmv_scalar(rows, avg):
    matrix = csr(rows, avg)
    return lambda rng: (matrix(rng), rows, 128)


def spmv_vector(rows, avg):
    matrix = csr(rows, avg)
    return lambda rng: (matrix(rng), rows * 32, 128)


def triad(n):
    return lambda rng: ([np.zeros(n, f32), rng.random(n, dtype=f32), rng.random(n, dtype=f32), f32(1.75)], n, 256)


def bitonic(n, j, k):
    return lambda rng: ([rng.random(n, dtype=f32), i32(j), i32(k)], n, 256)


def histogram(n, blocks):
    return lambda rng: ([rng.integers(0, 256, n, dtype=i32), i32(n), np.zeros(256, i32)], blocks * 256, 256)


VEC2 = {0: wp.vec2}
VEC3 = {0: wp.vec3, 2: wp.vec3}
K4 = 4096

LAUNCHES: list[Launch] = [
    # PolyBench/GPU
    Launch("gemm@128", K.gemm_naive, gemm(128), "latency"),
    Launch("gemm@256", K.gemm_naive, gemm(256), "issue"),
    Launch("gemm_f64@256", K.gemm_naive, gemm(256, f64), "fp64"),
    Launch("gemm_tiled@128", K.gemm_tiled, gemm_tiled(128), "launch"),
    Launch("gemm_tiled@256", K.gemm_tiled, gemm_tiled(256), "shared"),
    Launch("atax_rows@2048", K.atax_rows, matvec(2048, 2048), "l1"),
    Launch("atax_rows@4096", K.atax_rows, matvec(K4, K4), "dram"),
    Launch("bicg_cols@2048", K.bicg_cols, matvec_t(2048, 2048), "latency"),
    Launch("bicg_cols@4096", K.bicg_cols, matvec_t(K4, K4), "dram"),
    Launch("gemv_tiled@4096", K.gemv_tiled, gemv_tiles(K4, K4), "shared"),
    Launch("gemv_tiled_padded@4096", K.gemv_tiled_padded, gemv_tiles(K4, K4), "dram"),
    Launch("mvt@2048", K.mvt, mvt(2048), "latency"),
    Launch("gesummv@2048", K.gesummv, gesummv(2048), "l1"),
    Launch("gesummv_f64@2048", K.gesummv, gesummv(2048, f64), "l1"),
    Launch("syrk@256", K.syrk, syrk(256), "l1"),
    Launch("jacobi2d@1024", K.jacobi2d, two_grids(1024), "dram"),
    Launch("jacobi2d@4096", K.jacobi2d, two_grids(K4), "dram"),
    Launch("fdtd_hz@1024", K.fdtd_hz, fdtd(1024), "dram"),
    Launch("fdtd_hz@4096", K.fdtd_hz, fdtd(K4), "dram"),
    Launch("corr_mean_std@1024", K.corr_mean_std, corr(1024, 1024), "latency"),
    Launch("corr_mean_std@2048", K.corr_mean_std, corr(2048, 2048), "latency"),
    Launch("conv2d_3x3@512", K.conv2d, conv2d(512, 1), "l1"),
    Launch("conv2d_5x5@512", K.conv2d, conv2d(512, 2), "l1"),
    Launch("conv2d_3x3@1024", K.conv2d, conv2d(1024, 1), "l1"),
    Launch("conv3d@64", K.conv3d, conv3d(64, 64, 64), "l1"),
    Launch("conv3d@96x96x64", K.conv3d, conv3d(96, 96, 64), "l1"),
    # Rodinia
    Launch("hotspot@1024", K.hotspot, hotspot(1024), "dram"),
    Launch("hotspot@4096", K.hotspot, hotspot(K4), "dram"),
    Launch("srad@1024", K.srad_coeff, srad(1024), "dram"),
    Launch("srad@2048", K.srad_coeff, srad(2048), "dram"),
    Launch("layer_thread@4096x1024", K.layer_forward_thread, layer_thread(K4, 1024), "l1"),
    Launch("layer_block@4096x1024", K.layer_forward_block, layer_block(K4, 1024), "dram"),
    Launch("layer_block@16384x256", K.layer_forward_block, layer_block(16384, 256), "dram"),
    Launch("kmeans_points@32K", K.kmeans_assign_points, kmeans(32768, 16, 16, False), "l1"),
    Launch("kmeans_features@32K", K.kmeans_assign_features, kmeans(32768, 16, 16, True), "issue"),
    Launch("kmeans_features@128K", K.kmeans_assign_features, kmeans(131072, 8, 8, True), "issue"),
    Launch("nn@16M", K.nn_distance, nn(16 * M), "dram", VEC2),
    Launch("pathfinder@256K", K.pathfinder, pathfinder(256 * 1024, 8), "shared"),
    Launch("pathfinder@1M", K.pathfinder, pathfinder(M, 4), "dram"),
    Launch("nw@2048", K.nw_diagonal, nw(2048, 127), "latency"),
    Launch("nw@4096", K.nw_diagonal, nw(4096, 255), "latency"),
    # SHOC
    Launch("reduce@4M", K.reduce_sum, reduce(4 * M, 1056), "dram"),
    Launch("reduce@16M", K.reduce_sum, reduce(16 * M, 1056), "dram"),
    Launch("reduce_132blocks@16M", K.reduce_sum, reduce(16 * M, 132), "occupancy"),
    Launch("scan@1M", K.scan_block, scan(M), "dram"),
    Launch("scan@8M", K.scan_block, scan(8 * M), "dram"),
    Launch("stencil9@1024", K.stencil9, stencil9(1024), "dram"),
    Launch("stencil9@4096", K.stencil9, stencil9(K4), "dram"),
    Launch("stencil9_f64@4096", K.stencil9, stencil9(K4, f64), "dram"),
    Launch("md@32K", K.md_lj, md(32, 32), "latency", VEC3),
    Launch("md@110K", K.md_lj, md(48, 64), "l2", VEC3),
    Launch("spmv_scalar@64K", K.spmv_csr_scalar, spmv_scalar(65536, 32), "l1"),
    Launch("spmv_vector@64K", K.spmv_csr_vector, spmv_vector(65536, 32), "dram"),
    Launch("spmv_scalar@16K", K.spmv_csr_scalar, spmv_scalar(16384, 128), "latency"),
    Launch("spmv_vector@16K", K.spmv_csr_vector, spmv_vector(16384, 128), "dram"),
    Launch("triad@16M", K.triad, triad(16 * M), "dram"),
    Launch("bitonic_j1@4M", K.bitonic_step, bitonic(4 * M, 1, 2), "dram"),
    Launch("bitonic_j1M@4M", K.bitonic_step, bitonic(4 * M, M, 2 * M), "dram"),
    Launch("histogram_global@4M", K.histogram256_global, histogram(4 * M, 1024), "atomic"),
    Launch("histogram_shared@4M", K.histogram256_shared, histogram(4 * M, 1024), "shared"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("row / column walk (atax / bicg), 4096", "atax_rows@4096", "bicg_cols@4096"),
    ("row / column walk (atax / bicg), 2048", "atax_rows@2048", "bicg_cols@2048"),
    ("naive / shared-tiled gemm, 256", "gemm@256", "gemm_tiled@256"),
    ("naive / shared-tiled gemm, 128", "gemm@128", "gemm_tiled@128"),
    ("fp64 / fp32 gemm, 256", "gemm_f64@256", "gemm@256"),
    ("row walk / shared-tiled gemv, 4096", "atax_rows@4096", "gemv_tiled_padded@4096"),
    ("unpadded / padded shared tile gemv, 4096", "gemv_tiled@4096", "gemv_tiled_padded@4096"),
    ("fp64 / fp32 gesummv, 2048", "gesummv_f64@2048", "gesummv@2048"),
    ("fp64 / fp32 nine-point stencil, 4096", "stencil9_f64@4096", "stencil9@4096"),
    ("nine-point / five-point stencil, 4096", "stencil9@4096", "jacobi2d@4096"),
    ("5x5 / 3x3 convolution, 512", "conv2d_5x5@512", "conv2d_3x3@512"),
    ("point-major / feature-major k-means, 32K", "kmeans_points@32K", "kmeans_features@32K"),
    ("scalar / vector CSR spmv, 64K rows", "spmv_scalar@64K", "spmv_vector@64K"),
    ("scalar / vector CSR spmv, 16K rows", "spmv_scalar@16K", "spmv_vector@16K"),
    ("thread / block per output layer, 4096x1024", "layer_thread@4096x1024", "layer_block@4096x1024"),
    ("global / shared-privatised histogram, 4M", "histogram_global@4M", "histogram_shared@4M"),
    ("1 / 8 blocks per SM reduction, 16M", "reduce_132blocks@16M", "reduce@16M"),
    ("far / near bitonic partners, 4M", "bitonic_j1M@4M", "bitonic_j1@4M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
