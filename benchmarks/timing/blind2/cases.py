"""The second blind validation set's launches: kernels from PolyBench/GPU, Rodinia, SHOC,
Parboil and the CUDA samples (kernels.py) at one to three sizes each, with seeded inputs, and
the pairs users compare.

Measured once on an H200 (measure.sh here); never used to fit or tune a constant of the timing
model (see README.md). Sizes keep each launch at a few milliseconds at most on the GPU and the
whole set's prediction on cpu:precise at a few minutes.
"""
from __future__ import annotations

import numpy as np

import simt as wp

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K

f32, f64, i32, u32 = np.float32, np.float64, np.int32, np.uint32
M = 1 << 20
K4 = 4096


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def doitgen(r, q, p, s):
    return lambda rng: ([rng.random((r, q, s), dtype=f32), rng.random((s, p), dtype=f32),
                         np.zeros((r, q, p), f32)], (r, q, p), (1, 256 // p, p))


def jacobi1d(n):
    return lambda rng: ([rng.random(n, dtype=f32), np.zeros(n, f32)], n, 256)


def adi(n):
    """A tridiagonal system per row (or column): sub-diagonal in [0, 0.5), diagonal in [1, 2)."""
    return lambda rng: ([(0.5 * rng.random((n, n))).astype(f32), (1.0 + rng.random((n, n))).astype(f32),
                         rng.random((n, n), dtype=f32)], n, 128)


def gaussian(n, k):
    def make(rng):
        a = rng.random((n, n), dtype=f32)
        a[np.arange(n), np.arange(n)] += f32(n)          # diagonally dominant: no pivoting needed
        return [a, i32(k)], (n, n), (8, 32)
    return make


def backprop(n_in, n_hid, block):
    return lambda rng: ([(rng.random(n_hid) - 0.5).astype(f32), rng.random(n_in, dtype=f32),
                         (rng.random((n_in, n_hid)) - 0.5).astype(f32), (0.01 * rng.random((n_in, n_hid))).astype(f32),
                         f32(0.3), f32(0.3)], (n_in, n_hid), block)


def bfs(n, degree, frontier_fraction):
    """A random graph, degree / 2 to 3 degree / 2 edges a node; the frontier a random fraction of
    the nodes at level 3, visited the frontier and a further 30% of the nodes."""
    def make(rng):
        counts = rng.integers(degree // 2, 3 * degree // 2 + 1, n)
        row_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(i32)
        cols = rng.integers(0, n, int(row_ptr[-1])).astype(i32)
        frontier = (rng.random(n) < frontier_fraction).astype(i32)
        visited = (frontier.astype(bool) | (rng.random(n) < 0.3)).astype(i32)
        cost = np.where(frontier == 1, 3, np.where(visited == 1, rng.integers(0, 3, n), -1)).astype(i32)
        return [row_ptr, cols, frontier, visited, cost, np.zeros(n, i32)], n, 256
    return make


def cfd(n):
    """Cells with positive density and pressure; each cell's four neighbours within 1000 cells
    of it (a mesh numbered with some locality), face normals in [-1, 1)."""
    def make(rng):
        rho = 1.0 + rng.random(n)
        mom = rng.random((3, n)) - 0.5
        p = 1.0 + rng.random(n)
        e = p / 0.4 + 0.5 * (mom * mom).sum(axis=0) / rho
        var = np.vstack([rho, mom, e]).astype(f32)
        nbr = ((np.arange(n) + rng.integers(-1000, 1001, (4, n))) % n).astype(i32)
        normals = (2.0 * rng.random((12, n)) - 1.0).astype(f32)
        return [var, nbr, normals, np.zeros((5, n), f32)], n, 128
    return make


def lud(tiles):
    def make(rng):
        a = rng.random((tiles, 32, 32), dtype=f32)
        a[:, np.arange(32), np.arange(32)] += f32(32.0)
        return [a], tiles * 32, 32
    return make


def resample(n, draws):
    """The normalised CDF of n random weights and systematic draws (u0 + i) / draws."""
    def make(rng):
        cdf = np.cumsum(rng.random(n))
        cdf = (cdf / cdf[-1]).astype(f32)
        cdf[-1] = 1.0
        u = ((rng.random() + np.arange(draws)) / draws).astype(f32)
        return [cdf, u, np.zeros(draws, i32)], draws, 256
    return make


def md5(n):
    return lambda rng: ([u32(rng.integers(0, 2**32)), np.zeros((n, 4), u32)], n, 256)


def s3d(n, dtype=f32, reactions=8):
    return lambda rng: ([(800.0 + 1700.0 * rng.random(n)).astype(dtype),
                         (5.0 + 10.0 * rng.random(reactions)).astype(dtype),
                         (2.0 * rng.random(reactions) - 1.0).astype(dtype),
                         (5000.0 + 15000.0 * rng.random(reactions)).astype(dtype),
                         (4000.0 * rng.random(reactions) - 2000.0).astype(dtype),
                         (4.0 * rng.random(reactions) - 2.0).astype(dtype),
                         np.zeros((reactions, n), dtype)], n, 256)


def qtc(n):
    return lambda rng: ([rng.random((n, 3), dtype=f32), f32(0.15 ** 2), np.zeros(n, i32)], n, 256)


def radix(n, blocks):
    return lambda rng: ([rng.integers(0, 1 << 30, n, dtype=i32), i32(4), i32(n), np.zeros((16, blocks), i32)],
                        blocks * 256, 256)


def ell(rows, width, row_major):
    """ELLPACK-R: width / 3 to width entries a row in random columns, padded with zeros."""
    def make(rng):
        row_len = rng.integers(width // 3, width + 1, rows).astype(i32)
        cols = rng.integers(0, rows, (rows, width)).astype(i32)
        vals = rng.random((rows, width), dtype=f32)
        pad = np.arange(width)[None, :] >= row_len[:, None]
        cols[pad] = 0
        vals[pad] = 0.0
        if not row_major:
            cols, vals = np.ascontiguousarray(cols.T), np.ascontiguousarray(vals.T)
        return [row_len, cols, vals, rng.random(rows, dtype=f32), np.zeros(rows, f32)], rows, 128
    return make


def mri_q(voxels, samples):
    def make(rng):
        k = [(rng.random(samples) - 0.5).astype(f32) for _ in range(3)]
        phi = rng.random(samples, dtype=f32)
        x = [(2.0 * rng.random(voxels) - 1.0).astype(f32) for _ in range(3)]
        return [*k, phi, *x, np.zeros(voxels, f32), np.zeros(voxels, f32)], voxels, 256
    return make


def cutcp(side, nb, slots, spacing=0.5):
    """A side^3 lattice, nb^3 bins as wide as the cut-off, atoms at 3/4 of the slots on
    average (uniform in the box; those that find their bin full are dropped), charges in
    [-1, 1), empty slots at 1e4 with no charge."""
    def make(rng):
        box = side * spacing
        width = box / nb
        natoms = int(0.75 * slots * nb ** 3)
        pos = rng.random((natoms, 3)) * box
        q = 2.0 * rng.random(natoms) - 1.0
        b = np.minimum((pos / width).astype(int), nb - 1)
        bins = (b[:, 2] * nb + b[:, 1]) * nb + b[:, 0]
        atoms = np.zeros((nb ** 3, slots, 4), f32)
        atoms[:, :, :3] = 1.0e4
        fill = np.zeros(nb ** 3, int)
        for a in range(natoms):
            k = bins[a]
            if fill[k] < slots:
                atoms[k, fill[k]] = (*pos[a], q[a])
                fill[k] += 1
        return ([atoms, i32(nb), f32(spacing), f32(width * width), np.zeros((side, side, side), f32)],
                (side, side, side), (2, 8, 16))
    return make


def tpacf(n, m, edges=20):
    def unit(rng, k):
        v = rng.normal(size=(k, 3))
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(f32)
    return lambda rng: ([unit(rng, n), unit(rng, m), np.cos(np.geomspace(0.01, np.pi, edges)).astype(f32),
                         np.zeros(edges + 1, i32)], n, 256)


LBM_W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)


def lbm(h, w, aos):
    def make(rng):
        f = (LBM_W[:, None, None] * (1.0 + 0.1 * rng.random((9, h, w)))).astype(f32)
        if aos:
            f = np.ascontiguousarray(f.transpose(1, 2, 0))
        return [f, np.zeros_like(f), f32(1.2)], (h, w), (8, 32)
    return make


def transpose(n, tiled):
    return lambda rng: ([rng.random((n, n), dtype=f32), np.zeros((n, n), f32)],
                        (n // 4, n) if tiled else (n, n), (8, 32))


def piecewise(n, ordered):
    def make(rng):
        x = rng.random(n, dtype=f32)
        return [np.sort(x) if ordered else x, np.zeros(n, f32)], n, 256
    return make


VEC3_0 = {0: wp.vec3}
VEC3_01 = {0: wp.vec3, 1: wp.vec3}
VEC4_0 = {0: wp.vec4}

LAUNCHES: list[Launch] = [
    # PolyBench/GPU
    Launch("doitgen@64", K.doitgen, doitgen(64, 64, 64, 64), "l1"),
    Launch("doitgen_unroll4@64", K.doitgen_unroll4, doitgen(64, 64, 64, 64), "l1"),
    Launch("doitgen@16x16", K.doitgen, doitgen(16, 16, 64, 256), "latency"),
    Launch("doitgen_unroll4@16x16", K.doitgen_unroll4, doitgen(16, 16, 64, 256), "latency"),
    Launch("jacobi1d@1M", K.jacobi1d, jacobi1d(M), "dram"),
    Launch("jacobi1d@32M", K.jacobi1d, jacobi1d(32 * M), "dram"),
    Launch("adi_rows@2048", K.adi_rows, adi(2048), "latency"),
    Launch("adi_cols@2048", K.adi_cols, adi(2048), "latency"),
    Launch("adi_rows@4096", K.adi_rows, adi(K4), "latency"),
    Launch("adi_cols@4096", K.adi_cols, adi(K4), "latency"),
    # Rodinia
    Launch("gaussian_k0@2048", K.gaussian_step, gaussian(2048, 0), "dram"),
    Launch("gaussian_k1536@2048", K.gaussian_step, gaussian(2048, 1536), "launch"),
    Launch("backprop_adjust@4096x1024", K.backprop_adjust, backprop(K4, 1024, (8, 32)), "dram"),
    Launch("backprop_adjust_b32@4096x1024", K.backprop_adjust, backprop(K4, 1024, (1, 32)), "occupancy"),
    Launch("bfs_f5@1M", K.bfs_step, bfs(M, 8, 0.05), "l2"),
    Launch("bfs_f50@1M", K.bfs_step, bfs(M, 8, 0.5), "l2"),
    Launch("cfd_flux@192K", K.cfd_flux, cfd(192 * 1024), "l2"),
    Launch("cfd_flux@768K", K.cfd_flux, cfd(768 * 1024), "dram"),
    Launch("lud_diagonal@132", K.lud_diagonal, lud(132), "shared"),
    Launch("lud_diagonal@1056", K.lud_diagonal, lud(1056), "shared"),
    Launch("resample_linear@4096", K.resample_linear, resample(K4, K4), "latency"),
    Launch("resample_binary@4096", K.resample_binary, resample(K4, K4), "launch"),
    Launch("resample_binary@1M", K.resample_binary, resample(M, M), "l2"),
    # SHOC
    Launch("md5@1M", K.md5_rounds, md5(M), "issue"),
    Launch("md5@4M", K.md5_rounds, md5(4 * M), "issue"),
    Launch("s3d@1M", K.s3d_rates, s3d(M), "sfu"),
    Launch("s3d_f64@1M", K.s3d_rates, s3d(M, f64), "fp64"),
    Launch("s3d@4M", K.s3d_rates, s3d(4 * M), "dram"),
    Launch("qtc_global@4096", K.qtc_count_global, qtc(K4), "l1", VEC3_0),
    Launch("qtc_tiled@4096", K.qtc_count_tiled, qtc(K4), "shared", VEC3_0),
    Launch("qtc_tiled@8192", K.qtc_count_tiled, qtc(8192), "shared", VEC3_0),
    Launch("radix_atomic@4M", K.radix_hist_atomic, radix(4 * M, 1056), "atomic"),
    Launch("radix_private@4M", K.radix_hist_private, radix(4 * M, 1056), "dram"),
    Launch("spmv_ell@64K", K.spmv_ell, ell(65536, 48, False), "l2"),
    Launch("spmv_ell_rowmajor@64K", K.spmv_ell_rowmajor, ell(65536, 48, True), "l1"),
    Launch("spmv_ell@256K", K.spmv_ell, ell(256 * 1024, 48, False), "dram"),
    # Parboil
    Launch("mri_q@32Kx512", K.mri_q, mri_q(32 * 1024, 512), "sfu"),
    Launch("mri_q@128Kx256", K.mri_q, mri_q(128 * 1024, 256), "sfu"),
    Launch("cutcp@32", K.cutcp, cutcp(32, 4, 24), "issue", VEC4_0),
    Launch("cutcp@48", K.cutcp, cutcp(48, 6, 16), "issue", VEC4_0),
    Launch("tpacf@2048x2048", K.tpacf, tpacf(2048, 2048), "shared", VEC3_01),
    Launch("tpacf@4096x4096", K.tpacf, tpacf(K4, K4), "shared", VEC3_01),
    Launch("lbm_soa@512", K.lbm_soa, lbm(512, 512, False), "dram"),
    Launch("lbm_soa@2048", K.lbm_soa, lbm(2048, 2048, False), "dram"),
    Launch("lbm_aos@2048", K.lbm_aos, lbm(2048, 2048, True), "dram"),
    # the CUDA samples, and a common pattern
    Launch("transpose_naive@1024", K.transpose_naive, transpose(1024, False), "dram"),
    Launch("transpose_tiled@1024", K.transpose_tiled, transpose(1024, True), "dram"),
    Launch("transpose_naive@4096", K.transpose_naive, transpose(K4, False), "dram"),
    Launch("transpose_tiled@4096", K.transpose_tiled, transpose(K4, True), "dram"),
    Launch("piecewise_branchy@4M", K.piecewise_branchy, piecewise(4 * M, False), "sfu"),
    Launch("piecewise_branchy_sorted@4M", K.piecewise_branchy, piecewise(4 * M, True), "sfu"),
    Launch("piecewise_select@4M", K.piecewise_select, piecewise(4 * M, False), "sfu"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("one / four accumulators doitgen, 64^3", "doitgen@64", "doitgen_unroll4@64"),
    ("one / four accumulators doitgen, 16x16x64", "doitgen@16x16", "doitgen_unroll4@16x16"),
    ("row / column ADI sweep, 2048", "adi_rows@2048", "adi_cols@2048"),
    ("row / column ADI sweep, 4096", "adi_rows@4096", "adi_cols@4096"),
    ("first / late gaussian step, 2048", "gaussian_k0@2048", "gaussian_k1536@2048"),
    ("32 / 256 threads a block backprop adjust", "backprop_adjust_b32@4096x1024", "backprop_adjust@4096x1024"),
    ("50% / 5% frontier bfs step, 1M", "bfs_f50@1M", "bfs_f5@1M"),
    ("linear / binary resampling search, 4096", "resample_linear@4096", "resample_binary@4096"),
    ("fp64 / fp32 s3d rates, 1M", "s3d_f64@1M", "s3d@1M"),
    ("global / shared-tiled qtc count, 4096", "qtc_global@4096", "qtc_tiled@4096"),
    ("atomic / per-thread radix histogram, 4M", "radix_atomic@4M", "radix_private@4M"),
    ("row-major / slot-major ELL spmv, 64K", "spmv_ell_rowmajor@64K", "spmv_ell@64K"),
    ("AoS / SoA lbm step, 2048", "lbm_aos@2048", "lbm_soa@2048"),
    ("naive / tiled transpose, 4096", "transpose_naive@4096", "transpose_tiled@4096"),
    ("naive / tiled transpose, 1024", "transpose_naive@1024", "transpose_tiled@1024"),
    ("branchy / select piecewise, 4M", "piecewise_branchy@4M", "piecewise_select@4M"),
    ("random / sorted input piecewise branchy, 4M", "piecewise_branchy@4M", "piecewise_branchy_sorted@4M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
