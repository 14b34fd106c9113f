"""The fourth blind validation set's launches: kernels from PolyBench/GPU, Rodinia, the CUDA
samples, graph suites (Lonestar, Pannotia, GraphChallenge), ML operators and sequence
analysis (kernels.py) at one to three sizes each, with seeded inputs, and the pairs users
compare.

Measured once on an H200 (measure.sh here); never used to fit or tune a constant of the timing
model (see README.md). Sizes keep each launch at a few milliseconds at most on the GPU and the
whole set's prediction on cpu:precise at a few minutes.
"""
from __future__ import annotations

import numpy as np

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K

f16, f32, f64, i16, i32, u8, u16 = np.float16, np.float32, np.float64, np.int16, np.int32, np.uint8, np.uint16
M = 1 << 20
K4 = 4096
INF = 1_000_000_000


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def covariance(n, m):
    """n observations of m variables, the columns centred (the earlier kernels' work)."""
    def make(rng):
        d = rng.random((n, m))
        return [(d - d.mean(axis=0)).astype(f32), np.zeros((m, m), f32)], (m, m), (8, 32)
    return make


def symm(m, n):
    """A's upper triangle holds garbage the kernel must not read (NaN)."""
    def make(rng):
        a = rng.random((m, m), dtype=f32) / m
        a[np.triu_indices(m, 1)] = np.nan
        return [a, rng.random((m, n), dtype=f32), rng.random((m, n), dtype=f32), f32(1.5), f32(1.2)], (m, n), (8, 32)
    return make


def spd_partial(rng, n, k, dtype):
    """A symmetric positive definite matrix with its Cholesky factor's first k columns already
    in place below the diagonal (the state before column k; the diagonal keeps A's)."""
    r = rng.random((n, 16)) - 0.5
    a = r @ r.T / 16.0 + np.eye(n)     # low-rank plus identity: well conditioned, cheap to factor
    # columns < k of L: the factor of the leading block and the rows below it
    lk = np.linalg.cholesky(a[:k, :k]) if k else np.zeros((0, 0))
    out = a.copy()
    if k:
        out[:k, :k] = np.tril(lk, -1) + np.triu(a[:k, :k])
        out[k:, :k] = np.linalg.solve(lk, a[:k, k:]).T
    return out.astype(dtype)


def cholesky(n, k, dtype=f32):
    return lambda rng: ([spd_partial(rng, n, k, dtype), i32(k), np.zeros(n, dtype)], n, 128)


def nussinov(n, d):
    """A random sequence of bases 0-3 and a table whose diagonals below d hold plausible scores
    (non-decreasing with the span, at most span / 2)."""
    def make(rng):
        seq = rng.integers(0, 4, n).astype(u8)
        i, j = np.mgrid[0:n, 0:n]
        span = np.maximum(j - i, 0)
        table = (span // 3 + rng.integers(0, 2, (n, n)) * (span > 0)).astype(i32)
        table[j - i >= d] = 0
        return [seq, table, i32(d)], n - d, 128
    return make


def buckets(n, clustered, blocks=512):
    """n keys in [0, 1) and 1023 pivots at the quantiles of a uniform sample; clustered keys
    crowd a few buckets (a normal of sigma 1e-3 about 0.5)."""
    def make(rng):
        pivots = np.sort(rng.random(1023)).astype(f32)
        if clustered:
            keys = np.clip(0.5 + rng.normal(0, 1e-3, n), 0, 1)
        else:
            keys = rng.random(n)
        return [keys.astype(f32), pivots, i32(n), np.zeros((blocks, 1024), i32)], blocks * 256, 256
    return make


def templates(points, dtype, side=2048):
    """A smooth image with noise (16-bit or bytes), ``points`` positions away from the edges,
    each point's zero-mean 16x16 template cut from the image near it."""
    def make(rng):
        top = 65535.0 if dtype == u16 else 255.0
        yy, xx = np.mgrid[0:side, 0:side]
        base = 0.5 + 0.3 * np.sin(yy / 23.0) * np.cos(xx / 17.0)
        img = np.clip((base + rng.normal(0, 0.05, (side, side))) * top, 0, top).astype(dtype)
        py = rng.integers(24, side - 24, points).astype(i32)
        px = rng.integers(24, side - 24, points).astype(i32)
        t = np.stack([img[y - 6:y + 10, x - 9:x + 7].astype(f64) for y, x in zip(py, px)])
        t = (t - t.mean(axis=(1, 2), keepdims=True)) / top
        return [img, t.astype(f32), py, px, np.zeros((points, 256), f32)], points * 256, 256
    return make


def hh(cells, steps, dtype=f32):
    """Cells at rest (-65 mV, the gates at their resting values) driven by currents of 0 to 15."""
    def make(rng):
        s = np.tile(np.array([-65.0, 0.053, 0.596, 0.318]), (cells, 1)) + rng.normal(0, 0.01, (cells, 4))
        return [s.astype(dtype), (15.0 * rng.random(cells)).astype(dtype), i32(steps)], cells, 128
    return make


def options(rng, n):
    """Prices in [5, 30), strikes in [1, 100), expiries in [0.25, 10) years (the samples' ranges)."""
    return [(5.0 + 25.0 * rng.random(n)).astype(f32), (1.0 + 99.0 * rng.random(n)).astype(f32),
            (0.25 + 9.75 * rng.random(n)).astype(f32)]


def montecarlo(n_options, paths):
    def make(rng):
        s, x, t = options(rng, n_options)
        return [rng.standard_normal(paths).astype(f32), s, x, t, np.zeros(n_options, f32)], n_options * 256, 256
    return make


def binomial(n_options, steps, block):
    return lambda rng: ([*options(rng, n_options), i32(steps), np.zeros(n_options, f32)], n_options * block, block)


def sturm(shifts, n, dtype=f32):
    """A random symmetric tridiagonal matrix (diagonal in [-1, 1), off-diagonal in [0.1, 1)) and
    shifts spread over its Gershgorin interval."""
    def make(rng):
        d = 2.0 * rng.random(n) - 1.0
        e = 0.1 + 0.9 * rng.random(n - 1)
        x = np.linspace(-3.0, 3.0, shifts) + 1e-4 * rng.random(shifts)
        return [d.astype(dtype), (e * e).astype(dtype), x.astype(dtype), np.zeros(shifts, i32)], shifts, 256
    return make


def bilateral_space(radius=3, sigma=2.0):
    o = np.arange(-radius, radius + 1)
    return np.exp(-(o[:, None] ** 2 + o[None, :] ** 2) / (2 * sigma * sigma)).astype(f32)


def bilateral(n, dtype):
    """A smooth image with edges and noise, 0-255 (bytes, or the same values in fp32); the range
    sigma 20 grey levels."""
    def make(rng):
        yy, xx = np.mgrid[0:n, 0:n]
        base = np.where((yy // 64 + xx // 64) % 2 == 0, 80.0, 170.0) + 30 * np.sin(xx / 29.0)
        img = np.clip(base + rng.normal(0, 8, (n, n)), 0, 255).astype(u8).astype(dtype)
        return [img, bilateral_space(), f32(1.0 / (2 * 20.0 ** 2)), np.zeros((n, n), f32)], (n, n), (8, 32)
    return make


def rows(n_rows, n, warp):
    def make(rng):
        x = (rng.standard_normal((n_rows, n)) * 2.0 + 0.5).astype(f32)
        return [x, (1.0 + 0.1 * rng.standard_normal(n)).astype(f32), (0.1 * rng.standard_normal(n)).astype(f32),
                np.zeros((n_rows, n), f32)], n_rows * 32 if warp else n_rows, 256 if warp else 128
    return make


def softmax(n_rows, n):
    return lambda rng: ([(3.0 * rng.standard_normal((n_rows, n))).astype(f32), np.zeros((n_rows, n), f32)],
                        n_rows * 32, 256)


def embedding(bags, table_rows, dim, dtype):
    """Bags of 1 to 40 random rows (mean 20.5) of a table of normals."""
    def make(rng):
        lens = rng.integers(1, 41, bags)
        offsets = np.concatenate([[0], np.cumsum(lens)]).astype(i32)
        index = rng.integers(0, table_rows, int(offsets[-1])).astype(i32)
        table = rng.standard_normal((table_rows, dim)).astype(dtype)
        return [table, index, offsets, np.zeros((bags, dim), f32)], (bags, dim), (8, 32)
    return make


def topk(n_rows, k):
    """Rows of 256 distinct values (a permutation of a fixed grid, so no ties decide anything)."""
    def make(rng):
        x = (rng.permuted(np.tile(np.arange(256), (n_rows, 1)), axis=1) * 0.01 - 1.0).astype(f32)
        return [x, i32(k), np.zeros((n_rows, k), f32), np.zeros((n_rows, k), i32)], n_rows * 32, 256
    return make


def endpoints(rng, n, count, skewed):
    """count vertex ids in [0, n): uniform, or skewed (a power law: u^3 scaled, vertex ids
    permuted so the hubs are scattered)."""
    if not skewed:
        return rng.integers(0, n, count)
    perm = rng.permutation(n)
    return perm[np.minimum((n * rng.random(count) ** 3).astype(np.int64), n - 1)]


def csr(n, src, dst, extra=()):
    order = np.lexsort((dst, src))
    row_ptr = np.zeros(n + 1, np.int64)
    np.add.at(row_ptr, src + 1, 1)
    return [np.cumsum(row_ptr).astype(i32), dst[order].astype(i32), *[x[order].astype(i32) for x in extra]]


def cc_graph(n, edges, skewed):
    """An edge list (random order) and labels as after a few rounds: each vertex's label the
    smallest of its id and a few random ones (non-increasing, ids shared by groups)."""
    def make(rng):
        src = endpoints(rng, n, edges, skewed)
        dst = rng.integers(0, n, edges)
        label = np.minimum(np.arange(n), rng.integers(0, n, n)).astype(i32)
        return [src.astype(i32), dst.astype(i32), label, label.copy()], edges, 256
    return make


def sssp_graph(n, edges, skewed):
    """A CSR graph whose out-degrees are uniform (binomial about edges / n) or skewed (the
    sources drawn from a power law), weights 1 to 100, half the vertices reached so far."""
    def make(rng):
        src = endpoints(rng, n, edges, skewed)
        dst = rng.integers(0, n, edges)
        w = rng.integers(1, 101, edges)
        row_ptr, cols, weight = csr(n, src, dst, (w,))
        dist = np.where(rng.random(n) < 0.5, rng.integers(0, 10_000, n), INF).astype(i32)
        return [row_ptr, cols, weight, dist, dist.copy()], n, 256
    return make


def color_graph(n, edges, skewed):
    """An undirected CSR graph (each edge both ways), random weights, a third of the vertices
    coloured in earlier rounds."""
    def make(rng):
        a = endpoints(rng, n, edges, skewed)
        b = rng.integers(0, n, edges)
        row_ptr, cols = csr(n, np.concatenate([a, b]), np.concatenate([b, a]))
        color = np.where(rng.random(n) < 1 / 3, rng.integers(0, 3, n), -1).astype(i32)
        return [row_ptr, cols, rng.integers(0, 1 << 30, n).astype(i32), color, i32(3), color.copy()], n, 256
    return make


def tc_graph(n, edges):
    """An undirected graph of random edges plus triangles planted about half of them (a third of
    the edges close a wedge), oriented from lower to higher id, lists sorted; a thread per
    edge (the edge count padded with self-loops of vertex 0, which count nothing)."""
    def make(rng):
        a = rng.integers(0, n, edges // 3)
        b = rng.integers(0, n, edges // 3)
        c = rng.integers(0, n, edges // 3)
        u = np.concatenate([a, b, a])
        v = np.concatenate([b, c, c])
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        keep = lo != hi
        pairs = np.unique(np.stack([lo[keep], hi[keep]], axis=1), axis=0)
        row_ptr, cols = csr(n, pairs[:, 0], pairs[:, 1])
        m = -(-len(pairs) // 256) * 256
        src = np.zeros(m, i32)
        dst = np.zeros(m, i32)
        src[:len(pairs)] = pairs[:, 0]
        dst[:len(pairs)] = pairs[:, 1]
        return [src, dst, row_ptr, cols, np.zeros(1, i32)], m, 256
    return make


def kmer(n, k, table):
    def make(rng):
        seq = np.frombuffer(b"ACGT", u8)[rng.integers(0, 4, n + k - 1)].copy()
        return [seq, i32(k), np.zeros(table, i32)], n, 256
    return make


def sw_scores(rng, m, n):
    """Two sequences of bases (ASCII) with the second a mutated copy of the first."""
    a = np.frombuffer(b"ACGT", u8)[rng.integers(0, 4, m)].copy()
    b = a[:n].copy()
    flip = rng.random(n) < 0.2
    b[flip] = np.frombuffer(b"ACGT", u8)[rng.integers(0, 4, int(flip.sum()))]
    return a, b


def sw(n, d, diagmajor):
    """The state before anti-diagonal d: the score matrices on diagonals below d hold
    plausible values (H in [0, 60), E and F a little below), zero on row and column 0."""
    def make(rng):
        a, b = sw_scores(rng, n, n)
        rows = 2 * n + 1 if diagmajor else n + 1
        mats = []
        for shift in (0, 8, 8):
            x = (rng.integers(0, 60, (rows, n + 1)) - shift).astype(i16)
            if diagmajor:
                x[:, 0] = 0
                x[d:] = 0
            else:
                x[0, :] = 0
                x[:, 0] = 0
                i, j = np.mgrid[0:n + 1, 0:n + 1]
                x[i + j >= d] = 0
            mats.append(x)
        cells = min(d - 1, n) - max(1, d - n) + 1
        threads = -(-cells // 128) * 128
        return [a, b, *mats, i32(d)], threads, 128
    return make


def filtered(n, keep):
    """n values uniform in [0, 1); the threshold keeps the share ``keep``."""
    return lambda rng: ([rng.random(n, dtype=f32), f32(1.0 - keep), np.zeros(n, f32), np.zeros(1, i32)], n, 256)


LAUNCHES: list[Launch] = [
    # PolyBench/GPU
    Launch("covariance@512", K.covariance, covariance(512, 512), "l1"),
    Launch("covariance@2048x256", K.covariance, covariance(2048, 256), "latency"),
    Launch("symm@512", K.symm, symm(512, 512), "l1"),
    Launch("symm@1024x64", K.symm, symm(1024, 64), "l1"),
    Launch("cholesky_k3000@4096", K.cholesky_col, cholesky(K4, 3000), "latency"),
    Launch("cholesky_f64_k3000@4096", K.cholesky_col, cholesky(K4, 3000, f64), "latency"),
    Launch("cholesky_k256@4096", K.cholesky_col, cholesky(K4, 256), "dram"),
    Launch("nussinov_d1024@4096", K.nussinov_diag, nussinov(K4, 1024), "latency"),
    Launch("nussinov_d3072@4096", K.nussinov_diag, nussinov(K4, 3072), "latency"),
    # Rodinia
    Launch("bucket_uniform@4M", K.bucket_count, buckets(4 * M, False), "shared"),
    Launch("bucket_clustered@4M", K.bucket_count, buckets(4 * M, True), "atomic"),
    Launch("template_u16@1024", K.template_corr, templates(1024, u16), "l1"),
    Launch("template_u8@1024", K.template_corr, templates(1024, u8), "l1"),
    Launch("template_u16@256", K.template_corr, templates(256, u16), "l1"),
    Launch("hh@64K", K.hh_cells, hh(64 * 1024, 50), "sfu"),
    Launch("hh_f64@64K", K.hh_cells, hh(64 * 1024, 50, f64), "fp64"),
    Launch("hh@8K", K.hh_cells, hh(8 * 1024, 50), "latency"),
    # the CUDA samples
    Launch("montecarlo@256x64K", K.montecarlo_option, montecarlo(256, 64 * 1024), "sfu"),
    Launch("montecarlo@2048x8K", K.montecarlo_option, montecarlo(2048, 8 * 1024), "sfu"),
    Launch("binomial_b128@256", K.binomial_options, binomial(256, 512, 128), "shared"),
    Launch("binomial_b256@256", K.binomial_options, binomial(256, 512, 256), "shared"),
    Launch("sturm@64Kx512", K.sturm_count, sturm(64 * 1024, 512), "issue"),
    Launch("sturm_f64@64Kx512", K.sturm_count, sturm(64 * 1024, 512, f64), "fp64"),
    Launch("sturm@8Kx512", K.sturm_count, sturm(8 * 1024, 512), "latency"),
    Launch("bilateral_u8@1024", K.bilateral, bilateral(1024, u8), "sfu"),
    Launch("bilateral_f32@1024", K.bilateral, bilateral(1024, f32), "sfu"),
    # ML operators
    Launch("layernorm_warp@16Kx1024", K.layernorm_warp, rows(16 * 1024, 1024, True), "dram"),
    Launch("layernorm_thread@16Kx1024", K.layernorm_thread, rows(16 * 1024, 1024, False), "l1"),
    Launch("layernorm_warp@2Kx1024", K.layernorm_warp, rows(2 * 1024, 1024, True), "latency"),
    Launch("softmax@8Kx2048", K.softmax_online, softmax(8 * 1024, 2048), "dram"),
    Launch("softmax@64Kx256", K.softmax_online, softmax(64 * 1024, 256), "dram"),
    Launch("embedding_f32@16K", K.embedding_bag, embedding(16 * 1024, 256 * 1024, 128, f32), "dram"),
    Launch("embedding_f16@16K", K.embedding_bag, embedding(16 * 1024, 256 * 1024, 128, f16), "dram"),
    Launch("topk8@16K", K.topk_warp, topk(16 * 1024, 8), "issue"),
    Launch("topk32@2K", K.topk_warp, topk(2 * 1024, 32), "latency"),
    # graphs
    Launch("cc_uniform@8M", K.cc_hook, cc_graph(M, 8 * M, False), "atomic"),
    Launch("cc_skewed@8M", K.cc_hook, cc_graph(M, 8 * M, True), "atomic"),
    Launch("sssp_uniform@1M", K.sssp_relax, sssp_graph(M, 8 * M, False), "l2"),
    Launch("sssp_skewed@1M", K.sssp_relax, sssp_graph(M, 8 * M, True), "latency"),
    Launch("color_uniform@1M", K.color_jp, color_graph(M, 4 * M, False), "l2"),
    Launch("color_skewed@1M", K.color_jp, color_graph(M, 4 * M, True), "latency"),
    Launch("tc_atomic@256K", K.tc_atomic, tc_graph(256 * 1024, 3 * M // 2), "atomic"),
    Launch("tc_warp@256K", K.tc_warp, tc_graph(256 * 1024, 3 * M // 2), "l2"),
    # stream compaction
    Launch("filter_atomic_k50@16M", K.filter_atomic, filtered(16 * M, 0.5), "atomic"),
    Launch("filter_agg_k50@16M", K.filter_warp_agg, filtered(16 * M, 0.5), "dram"),
    Launch("filter_atomic_k2@16M", K.filter_atomic, filtered(16 * M, 0.02), "dram"),
    # sequences
    Launch("kmer31_t1K@1M", K.kmer_count, kmer(M, 31, 1024), "atomic"),
    Launch("kmer31_t4M@1M", K.kmer_count, kmer(M, 31, 4 * M), "issue"),
    Launch("sw_rowmajor_d4096@4096", K.sw_rowmajor, sw(K4, K4, False), "dram"),
    Launch("sw_diagmajor_d4096@4096", K.sw_diagmajor, sw(K4, K4, True), "launch"),
    Launch("sw_rowmajor_d512@4096", K.sw_rowmajor, sw(K4, 512, False), "launch"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("fp64 / fp32 cholesky column, 4096", "cholesky_f64_k3000@4096", "cholesky_k3000@4096"),
    ("late / early nussinov diagonal, 4096", "nussinov_d3072@4096", "nussinov_d1024@4096"),
    ("clustered / uniform bucket count, 4M", "bucket_clustered@4M", "bucket_uniform@4M"),
    ("16-bit / byte image template correlation, 1024", "template_u16@1024", "template_u8@1024"),
    ("fp64 / fp32 Hodgkin-Huxley cells, 64K", "hh_f64@64K", "hh@64K"),
    ("few long / many short Monte Carlo options", "montecarlo@256x64K", "montecarlo@2048x8K"),
    ("256 / 128 threads an option binomial", "binomial_b256@256", "binomial_b128@256"),
    ("fp64 / fp32 Sturm counts, 64K", "sturm_f64@64Kx512", "sturm@64Kx512"),
    ("fp32 / byte image bilateral filter, 1024", "bilateral_f32@1024", "bilateral_u8@1024"),
    ("thread / warp per row layernorm, 16K", "layernorm_thread@16Kx1024", "layernorm_warp@16Kx1024"),
    ("fp32 / fp16 table embedding bags, 16K", "embedding_f32@16K", "embedding_f16@16K"),
    ("skewed / uniform label propagation, 8M edges", "cc_skewed@8M", "cc_uniform@8M"),
    ("skewed / uniform SSSP relaxation, 1M", "sssp_skewed@1M", "sssp_uniform@1M"),
    ("skewed / uniform colouring round, 1M", "color_skewed@1M", "color_uniform@1M"),
    ("per-thread / per-warp atomic triangle count", "tc_atomic@256K", "tc_warp@256K"),
    ("per-thread / warp-aggregated atomic compaction, 16M", "filter_atomic_k50@16M", "filter_agg_k50@16M"),
    ("small / large hash table k-mer count, 1M", "kmer31_t1K@1M", "kmer31_t4M@1M"),
    ("row-major / diagonal-major Smith-Waterman", "sw_rowmajor_d4096@4096", "sw_diagmajor_d4096@4096"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
