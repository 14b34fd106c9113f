"""The seventh blind validation set's launches: kernels from random number generation, finance,
cryptography and encoding, spatial indexing, image processing, linear algebra, block sorts,
databases, graph sampling and ML operators (kernels.py) at one to three sizes each, with seeded
inputs, and the pairs users compare.

Not yet measured; to be measured once on an H200 (measure.sh here) and never used to fit or
tune a constant of the timing model (see README.md). Sizes keep each launch at a few
milliseconds at most on the GPU.
"""
from __future__ import annotations

import numpy as np

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K

f32, f64, i32, u8, u32 = np.float32, np.float64, np.int32, np.uint8, np.uint32
M = 1 << 20
K4 = 4096


def hash32(x):
    """numpy twin of kernels.hash32 (uint32 in, uint32 out)."""
    x = np.asarray(x, np.uint64) & 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & 0xFFFFFFFF
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & 0xFFFFFFFF
    x ^= x >> 16
    return x.astype(u32)


def distinct(rng, n, high=2**31 - 1):
    """n distinct non-negative int32 values in random order."""
    v = np.unique(rng.integers(0, high, int(n * 1.2) + 16))
    rng.shuffle(v)
    assert len(v) >= n
    return v[:n].astype(i32)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def philox(outputs, block=256):
    return lambda rng: ([u32(rng.integers(0, 2**32)), np.zeros(outputs, f32)], outputs // 4, block)


def xorwow(outputs):
    def make(rng):
        n = outputs // 4
        st = rng.integers(1, 2**32, (6, n), dtype=np.uint64).astype(u32)
        return [st, np.zeros(outputs, f32)], n, 256
    return make


def options(n, rate=0.03):
    """n calls (spot 100, strikes 80-120, 0.25-2 years) priced at volatilities 0.1-0.6; the
    kernel recovers the volatilities from the prices."""
    def make(rng):
        s = np.full(n, 100.0)
        k = rng.uniform(80, 120, n)
        t = rng.uniform(0.25, 2.0, n)
        sig = rng.uniform(0.1, 0.6, n)
        p = bs_call(s, k, t, rate, sig)
        return [s.astype(f32), k.astype(f32), t.astype(f32), p.astype(f32), f32(rate), np.zeros(n, f32)], n, 256
    return make


def bs_call(s, k, t, r, sig):
    from math import erfc
    erfc_v = np.vectorize(erfc)
    sq = sig * np.sqrt(t)
    d1 = (np.log(s / k) + (r + 0.5 * sig * sig) * t) / sq
    d2 = d1 - sq
    return s * 0.5 * erfc_v(-d1 / np.sqrt(2)) - k * np.exp(-r * t) * 0.5 * erfc_v(-d2 / np.sqrt(2))


def chacha(blocks, rounds):
    def make(rng):
        key = rng.integers(0, 2**32, 8, dtype=np.uint64).astype(u32)
        nonce = rng.integers(0, 2**32, 3, dtype=np.uint64).astype(u32)
        src = rng.integers(0, 2**32, (blocks, 16), dtype=np.uint64).astype(u32)
        return [key, nonce, i32(rounds), src, np.zeros((blocks, 16), u32)], blocks, 256
    return make


B64 = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", u8).copy()


def base64(groups):
    def make(rng):
        return [rng.integers(0, 256, 3 * groups).astype(u8), B64.copy(), np.zeros(4 * groups, u8)], groups, 256
    return make


def points(n):
    def make(rng):
        p = rng.random((3, n), dtype=f32)
        return [p[0].copy(), p[1].copy(), p[2].copy(), np.zeros(n, u32)], n, 256
    return make


def voronoi(n, k, cell=64):
    """An n x n grid already flooded to about the right seeds: one seed in each cell x cell square
    at a random place, every pixel holding its square's seed (-1 for a few squares with none);
    one jump flooding pass with step k refines it."""
    def make(rng):
        c = n // cell
        sy = np.arange(c)[:, None] * cell + rng.integers(0, cell, (c, c))
        sx = np.arange(c)[None, :] * cell + rng.integers(0, cell, (c, c))
        seed = (sy * n + sx).astype(i32)
        seed[rng.random((c, c)) < 0.05] = -1
        g = np.repeat(np.repeat(seed, cell, 0), cell, 1)
        return [np.ascontiguousarray(g), i32(k), np.zeros((n, n), i32)], (n, n), (8, 32)
    return make


def noisy(rng, h, w):
    """A smooth grey image with edges, in [0, 1], with Gaussian noise (sigma 0.05)."""
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.where((yy // 97 + xx // 61) % 2 == 0, 0.3, 0.7) + 0.15 * np.sin(xx / 37.0) * np.cos(yy / 53.0)
    return (base + rng.normal(0, 0.05, (h, w))).astype(f32)


def denoise(n, h=0.1):
    return lambda rng: ([noisy(rng, n, n), f32(h * h), np.zeros((n, n), f32)], (n, n), (8, 32))


def resize(src, dst):
    return lambda rng: ([rng.random((src, src), dtype=f32), np.zeros((dst, dst), f32)], (dst, dst), (8, 32))


def bayer(n):
    def make(rng):
        return [(noisy(rng, n, n).clip(0, 1) * 255).astype(u8), np.zeros((3, n, n), u8)], (n, n), (8, 32)
    return make


def hdr(n, dtype=f32):
    return lambda rng: ([rng.lognormal(0.0, 1.5, n).astype(dtype), f32(0.8), np.zeros(n, dtype)], n, 256)


def gemver(n):
    def make(rng):
        v = [rng.standard_normal(n).astype(f32) for _ in range(4)]
        return [rng.standard_normal((n, n)).astype(f32)] + v, (n, n), (8, 32)
    return make


def tridiag(systems, pcr):
    """systems diagonally dominant tridiagonal systems of CR_N unknowns (a row each)."""
    def make(rng):
        n = K.CR_N
        a = rng.uniform(-1, 1, (systems, n)).astype(f32)
        c = rng.uniform(-1, 1, (systems, n)).astype(f32)
        a[:, 0] = 0
        c[:, -1] = 0
        b = (4.0 + rng.random((systems, n))).astype(f32)
        d = rng.standard_normal((systems, n)).astype(f32)
        return [a, b, c, d, np.zeros((systems, n), f32)], systems * (n if pcr else n // 2), (n if pcr else n // 2)
    return make


def chebyshev(n, degree, dtype=f32):
    def make(rng):
        coef = rng.standard_normal(degree) / (1.0 + np.arange(degree))
        return [rng.uniform(-1, 1, n).astype(dtype), coef.astype(dtype), np.zeros(n, dtype)], n, 256
    return make


def block_keys(n, ties=False):
    def make(rng):
        k = rng.integers(0, 50, n).astype(f32) if ties else rng.standard_normal(n).astype(f32)
        return [k, np.zeros(n, f32)], n, K.SORT_N
    return make


def build(cap, n):
    def make(rng):
        return [distinct(rng, n), np.full(cap, -1, i32), np.full(cap, -1, i32)], n, 256
    return make


def groupby(rows, groups):
    """rows of keys drawn uniformly from ``groups`` distinct keys; the table twice the groups."""
    def make(rng):
        cap = 1 << int(np.ceil(np.log2(2 * groups)))
        keys = distinct(rng, groups)[rng.integers(0, groups, rows)]
        return [keys, rng.standard_normal(rows).astype(f32), np.full(cap, -1, i32), np.zeros(cap, f32),
                np.zeros(cap, i32)], rows, 256
    return make


def graph(n, m, skewed, rng):
    """CSR of n vertices and m edges, every vertex with at least one: sources and targets
    uniform, or both power-law (hubs)."""
    if skewed:
        perm = rng.permutation(n)
        pick = lambda k: perm[np.minimum((n * rng.random(k) ** 3).astype(np.int64), n - 1)]  # noqa: E731
    else:
        pick = lambda k: rng.integers(0, n, k)  # noqa: E731
    src = np.concatenate([np.arange(n), pick(m - n)])
    deg = np.bincount(src, minlength=n)
    ptr = np.concatenate([[0], np.cumsum(deg)]).astype(i32)
    return ptr, pick(m).astype(i32)


def walks(n, m, walkers, length, skewed):
    def make(rng):
        ptr, col = graph(n, m, skewed, rng)
        return [ptr, col, rng.integers(0, n, walkers).astype(i32), i32(length), u32(rng.integers(0, 2**32)),
                np.zeros(walkers, i32), np.zeros(walkers, i32)], walkers, 256
    return make


def moe(tokens, experts):
    def make(rng):
        cap = max(64, 4 * tokens // experts)
        return [rng.standard_normal((tokens, experts)).astype(f32), np.zeros(experts, i32),
                np.full((experts, cap), -1, i32), np.zeros((experts, cap), f32)], tokens, 128
    return make


def embedding(tokens, dim, vocab, zipf):
    def make(rng):
        if zipf:
            tok = (rng.zipf(1.1, tokens) - 1) % vocab
            tok = rng.permutation(vocab)[tok]
        else:
            tok = rng.integers(0, vocab, tokens)
        return [tok.astype(i32), rng.standard_normal((tokens, dim)).astype(f32), np.zeros((vocab, dim), f32)], \
            (tokens, dim), (8, 64)
    return make


def swiglu(rows, h):
    return lambda rng: ([rng.standard_normal((rows, 2 * h)).astype(f32), np.zeros((rows, h), f32)], (rows, h), 256)


def dwconv(n, c, h, w, nhwc):
    def make(rng):
        x = rng.standard_normal((n, c, h, w)).astype(f32)
        wt = rng.standard_normal((c, 3, 3)).astype(f32)
        if nhwc:
            xs = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).reshape(n * h, w, c)
            return [xs, i32(h), np.ascontiguousarray(wt.transpose(1, 2, 0)), np.zeros((n * h, w, c), f32)], \
                (n * h, w, c), (1, 4, 64)
        return [x.reshape(n * c, h, w), wt, np.zeros((n * c, h, w), f32)], (n * c, h, w), (1, 8, 32)
    return make


LAUNCHES: list[Launch] = [
    # random number generation
    Launch("philox@16M", K.philox_uniform, philox(16 * M), "issue"),
    Launch("xorwow@16M", K.xorwow_uniform, xorwow(16 * M), "dram"),
    Launch("philox@64K", K.philox_uniform, philox(64 * 1024), "launch"),
    # finance
    Launch("ivol_newton@2M", K.implied_vol_newton, options(2 * M), "issue"),
    Launch("ivol_bisect@2M", K.implied_vol_bisect, options(2 * M), "issue"),
    Launch("ivol_newton@64K", K.implied_vol_newton, options(64 * 1024), "latency"),
    # cryptography and encoding
    Launch("chacha20@1M", K.chacha_xor, chacha(M, 20), "issue"),
    Launch("chacha8@1M", K.chacha_xor, chacha(M, 8), "dram"),
    Launch("base64@16M", K.base64_encode, base64(16 * M), "dram"),
    Launch("base64@1M", K.base64_encode, base64(M), "launch"),
    # spatial indexing
    Launch("morton_magic@16M", K.morton3d_magic, points(16 * M), "dram"),
    Launch("morton_loop@16M", K.morton3d_loop, points(16 * M), "issue"),
    Launch("jfa_k512@4096", K.jfa_step, voronoi(K4, 512), "l2"),
    Launch("jfa_k1@4096", K.jfa_step, voronoi(K4, 1), "l1"),
    # image processing
    Launch("knn_denoise@2048", K.knn_denoise, denoise(2048), "issue"),
    Launch("nlm_denoise@2048", K.nlm_denoise, denoise(2048), "l1"),
    Launch("bicubic_up@4096", K.bicubic_resize, resize(2048, K4), "issue"),
    Launch("bicubic_down@4096", K.bicubic_resize, resize(8192, K4), "dram"),
    Launch("demosaic@4096", K.demosaic_bilinear, bayer(K4), "dram"),
    Launch("demosaic@1024", K.demosaic_bilinear, bayer(1024), "launch"),
    Launch("tonemap@16M", K.tonemap, hdr(16 * M), "dram"),
    Launch("tonemap_f64@16M", K.tonemap, hdr(16 * M, f64), "fp64"),
    # linear algebra and numerical series
    Launch("gemver_rows@4096", K.gemver_rank2_rows, gemver(K4), "dram"),
    Launch("gemver_cols@4096", K.gemver_rank2_cols, gemver(K4), "dram"),
    Launch("tridiag_cr@16Kx256", K.tridiag_cr, tridiag(16 * 1024, False), "shared"),
    Launch("tridiag_pcr@16Kx256", K.tridiag_pcr, tridiag(16 * 1024, True), "shared"),
    Launch("tridiag_pcr@256x256", K.tridiag_pcr, tridiag(256, True), "latency"),
    Launch("chebyshev@8Mx256", K.chebyshev_clenshaw, chebyshev(8 * M, 256), "issue"),
    Launch("chebyshev_f64@8Mx256", K.chebyshev_clenshaw, chebyshev(8 * M, 256, f64), "fp64"),
    # block sorts
    Launch("sort_oddeven@4M", K.sort_oddeven_shared, block_keys(4 * M), "shared"),
    Launch("sort_rank@4M", K.sort_rank_shared, block_keys(4 * M), "shared"),
    # databases
    Launch("hash_build_l50@4M", K.hash_build, build(8 * M, 4 * M), "atomic"),
    Launch("hash_build_l90@7M", K.hash_build, build(8 * M, 7 * M + 563 * 1024), "atomic"),
    Launch("groupby_few@8M", K.groupby_sum, groupby(8 * M, 64), "atomic"),
    Launch("groupby_many@8M", K.groupby_sum, groupby(8 * M, M), "atomic"),
    # graph sampling
    Launch("walk_uniform@1M", K.random_walk, walks(4 * M, 32 * M, M, 16, False), "latency"),
    Launch("walk_powerlaw@1M", K.random_walk, walks(4 * M, 32 * M, M, 16, True), "latency"),
    # ML operators
    Launch("moe_top2_e8@512K", K.moe_route_top2, moe(512 * 1024, 8), "atomic"),
    Launch("moe_top2_e64@512K", K.moe_route_top2, moe(512 * 1024, 64), "dram"),
    Launch("embed_bwd_zipf@256Kx64", K.embedding_backward, embedding(256 * 1024, 64, 512 * 1024, True), "atomic"),
    Launch("embed_bwd_uniform@256Kx64", K.embedding_backward, embedding(256 * 1024, 64, 512 * 1024, False),
           "atomic"),
    Launch("swiglu@8Kx2048", K.swiglu, swiglu(8 * 1024, 2048), "dram"),
    Launch("swiglu@512x2048", K.swiglu, swiglu(512, 2048), "launch"),
    Launch("dwconv_nchw@8x64x128", K.dwconv3x3_nchw, dwconv(8, 64, 128, 128, False), "l1"),
    Launch("dwconv_nhwc@8x64x128", K.dwconv3x3_nhwc, dwconv(8, 64, 128, 128, True), "l1"),
    Launch("dwconv_nhwc@32x256x56", K.dwconv3x3_nhwc, dwconv(32, 256, 56, 56, True), "dram"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("counter-based / stateful generator, 16M uniforms", "philox@16M", "xorwow@16M"),
    ("bisection / Newton implied volatility, 2M", "ivol_bisect@2M", "ivol_newton@2M"),
    ("20 / 8 rounds, ChaCha 64 MB", "chacha20@1M", "chacha8@1M"),
    ("bit loop / magic numbers, Morton codes 16M", "morton_loop@16M", "morton_magic@16M"),
    ("step 512 / step 1, jump flooding 4096^2", "jfa_k512@4096", "jfa_k1@4096"),
    ("non-local means / KNN denoising, 2048^2", "nlm_denoise@2048", "knn_denoise@2048"),
    ("downscale / upscale bicubic, 4096^2 out", "bicubic_down@4096", "bicubic_up@4096"),
    ("fp64 / fp32 tone mapping, 16M", "tonemap_f64@16M", "tonemap@16M"),
    ("columns / rows, gemver rank-2 update 4096", "gemver_cols@4096", "gemver_rows@4096"),
    ("PCR / CR tridiagonal, 16K systems", "tridiag_pcr@16Kx256", "tridiag_cr@16Kx256"),
    ("fp64 / fp32 Clenshaw, 8M x 256 terms", "chebyshev_f64@8Mx256", "chebyshev@8Mx256"),
    ("odd-even / rank block sort, 4M", "sort_oddeven@4M", "sort_rank@4M"),
    ("90% / 50% load, hash build", "hash_build_l90@7M", "hash_build_l50@4M"),
    ("64 / 1M groups, hash group-by 8M", "groupby_few@8M", "groupby_many@8M"),
    ("power-law / uniform graph, random walks", "walk_powerlaw@1M", "walk_uniform@1M"),
    ("64 / 8 experts, top-2 routing 512K", "moe_top2_e64@512K", "moe_top2_e8@512K"),
    ("Zipf / uniform tokens, embedding backward", "embed_bwd_zipf@256Kx64", "embed_bwd_uniform@256Kx64"),
    ("NCHW / NHWC depthwise 3x3", "dwconv_nchw@8x64x128", "dwconv_nhwc@8x64x128"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
