"""The fifth blind validation set's launches: kernels from the CUDA samples, image processing, ML
operators, physics, graph analytics, checksums and geometry (kernels.py) at one to three sizes
each, with seeded inputs, and the pairs users compare.

Measured once on an H200 (measure.sh here); never used to fit or tune a constant of the timing
model (see README.md). Sizes keep each launch at a few milliseconds at most on the GPU.
"""
from __future__ import annotations

import numpy as np
import simt as wp

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K

f32, f64, i8, i32, u8, u32 = np.float32, np.float64, np.int8, np.int32, np.uint8, np.uint32
M = 1 << 20
K4 = 4096
VEC3_0 = {0: wp.vec3}
VEC4_0 = {0: wp.vec4}


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def fwt(n, half):
    return lambda rng: ([rng.standard_normal(n).astype(f32), i32(half)], n // 2, 256)


def fwt_block(n):
    return lambda rng: ([rng.standard_normal(n).astype(f32)], n // 2, 512)


def photo(rng, h, w):
    """A smooth grey image with edges and noise, 0-255."""
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.where((yy // 97 + xx // 61) % 2 == 0, 70.0, 180.0) + 40 * np.sin(xx / 37.0) * np.cos(yy / 53.0)
    return np.clip(base + rng.normal(0, 12, (h, w)), 0, 255)


def median(n, dtype):
    def make(rng):
        img = photo(rng, n, n).astype(u8).astype(dtype)
        return [img, np.zeros((n, n), dtype)], (n, n), (8, 32)
    return make


def erode(n, r=None):
    """r given: the naive kernel with that radius; None: the tiled one (r = 2)."""
    def make(rng):
        img = photo(rng, n, n).astype(u8)
        if r is None:
            return [img, np.zeros((n, n), u8)], (n, n), (16, 16)
        return [img, i32(r), np.zeros((n, n), u8)], (n, n), (16, 16)
    return make


def integral(h, w, rows):
    def make(rng):
        img = (photo(rng, h, w) / 255.0).astype(f32)
        return [img, np.zeros((h, w), f32)], (h if rows else w), 128
    return make


def rgb(n, planar):
    def make(rng):
        px = rng.integers(0, 256, (n, 3)).astype(u8)
        return [np.ascontiguousarray(px.T) if planar else px, np.zeros(n, u8)], n, 256
    return make


def resize(src, dst):
    def make(rng):
        img = (photo(rng, src, src) / 255.0).astype(f32)
        return [img, np.zeros((dst, dst), f32)], (dst, dst), (8, 32)
    return make


def maxpool(c, n):
    def make(rng):
        o = (n + 1) // 2
        return [rng.standard_normal((c, n, n)).astype(f32), np.zeros((c, o, o), f32)], (c, o, o), (1, 8, 32)
    return make


def bn_params(rng, c):
    return [rng.standard_normal(c).astype(f32), (0.5 + rng.random(c)).astype(f32),
            (0.5 + rng.random(c)).astype(f32), rng.standard_normal(c).astype(f32), f32(1e-5)]


def batchnorm(n, c, hw, nhwc):
    def make(rng):
        if nhwc:
            x = rng.standard_normal((n * hw, c)).astype(f32)
            return [x, *bn_params(rng, c), np.zeros_like(x)], (n * hw, c), (4, 64)
        x = rng.standard_normal((n, c, hw)).astype(f32)
        return [x, *bn_params(rng, c), np.zeros_like(x)], (n, c, hw), (1, 1, 256)
    return make


def gelu(n, dtype=f32):
    return lambda rng: ([(3.0 * rng.standard_normal(n)).astype(dtype), np.zeros(n, dtype)], n, 256)


def im2col(c, h, w):
    return lambda rng: ([rng.standard_normal((c, h, w)).astype(f32), np.zeros((c * 9, h * w), f32)],
                        (c * 9, h * w), (1, 256))


def attn(seq, d=64):
    def make(rng):
        q = rng.standard_normal((seq, d)).astype(f32)
        k = rng.standard_normal((seq, d)).astype(f32)
        return [q, k, f32(1.0 / np.sqrt(d)), np.zeros((seq, seq), f32)], (seq, seq), (16, 16)
    return make


def xent(rows, classes):
    def make(rng):
        logits = (2.0 * rng.standard_normal((rows, classes))).astype(f32)
        target = rng.integers(0, classes, rows).astype(i32)
        return [logits, target, np.zeros(rows, f32), np.zeros(1, f32)], rows * 32, 256
    return make


def adam(n):
    def make(rng):
        return [rng.standard_normal(n).astype(f32), (0.1 * rng.standard_normal(n)).astype(f32),
                (0.01 * rng.standard_normal(n)).astype(f32), (1e-4 * rng.random(n)).astype(f32),
                f32(1e-3), f32(0.9), f32(0.999), f32(1e-8), f32(1 - 0.9 ** 10), f32(1 - 0.999 ** 10)], n, 256
    return make


def dropout(n, p):
    return lambda rng: ([rng.standard_normal(n).astype(f32), u32(rng.integers(0, 2**32)), f32(p),
                         np.zeros(n, f32)], n, 256)


def quantize(rows, n):
    def make(rng):
        x = (rng.standard_normal((rows, n)) * rng.uniform(0.1, 10.0, (rows, 1))).astype(f32)
        return [x, np.zeros((rows, n), i8), np.zeros(rows, f32)], rows * 32, 256
    return make


def ising(n, dtype, beta=0.44, color=0):
    """A random lattice of +-1 spins; accept[k] = exp(-2 beta * 2k) for an energy change of 2k
    (in units of 2J; index 0 unused)."""
    def make(rng):
        s = np.where(rng.random((n, n)) < 0.5, -1, 1).astype(dtype)
        accept = np.exp(-2.0 * beta * 2.0 * np.arange(3)).astype(f32)
        return [s, i32(color), accept, u32(rng.integers(0, 2**32))], (n, n), (8, 32)
    return make


def pic(n, grid, ordered):
    """n particles uniform over a periodic grid x grid, in random order or sorted by cell."""
    def make(rng):
        x = rng.random(n) * grid
        y = rng.random(n) * grid
        if ordered:
            o = np.argsort(y.astype(np.int64) * grid + x.astype(np.int64), kind="stable")
            x, y = x[o], y[o]
        return [x.astype(f32), y.astype(f32), f32(1.0), np.zeros((grid, grid), f32)], n, 256
    return make


def sph(n, cells, shuffled, h=1.0):
    """n particles uniform in a cube of cells^3 cells of side h, sorted by cell, with the cell
    list; threads take them in cell order or shuffled."""
    def make(rng):
        p = (rng.random((n, 3)) * cells * h * 0.999999).astype(f32)
        c = (p / h).astype(np.int64)
        cid = (c[:, 2] * cells + c[:, 1]) * cells + c[:, 0]
        o = np.argsort(cid, kind="stable")
        p, cid = p[o], cid[o]
        ncell = cells ** 3
        start = np.searchsorted(cid, np.arange(ncell), side="left").astype(i32)
        end = np.searchsorted(cid, np.arange(ncell), side="right").astype(i32)
        order = rng.permutation(n).astype(i32) if shuffled else np.arange(n, dtype=i32)
        return [p, start, end, order, i32(cells), f32(h), f32(1.0), np.zeros(n, f32)], n, 128
    return make


def edges(rng, n, count, skewed):
    """count directed edges on n vertices: uniform endpoints, or power-law destinations (hubs
    with large in-degree, scattered over the ids)."""
    src = rng.integers(0, n, count)
    if skewed:
        perm = rng.permutation(n)
        dst = perm[np.minimum((n * rng.random(count) ** 3).astype(np.int64), n - 1)]
    else:
        dst = rng.integers(0, n, count)
    return src, dst


def csr_of(n, key, other):
    order = np.lexsort((other, key))
    ptr = np.zeros(n + 1, np.int64)
    np.add.at(ptr, key + 1, 1)
    return np.cumsum(ptr).astype(i32), other[order].astype(i32)


def pagerank(n, count, skewed, push, damping=0.85):
    def make(rng):
        src, dst = edges(rng, n, count, skewed)
        outdeg = np.bincount(src, minlength=n)
        rank = (rng.random(n) / n).astype(f32)
        if push:
            ptr, dsts = csr_of(n, src, dst)
            base = np.full(n, (1.0 - damping) / n, f32)
            return [ptr, dsts, rank, f32(damping), base], n, 256
        ptr, srcs = csr_of(n, dst, src)
        contrib = np.where(outdeg > 0, rank / np.maximum(outdeg, 1), 0.0).astype(f32)
        return [ptr, srcs, contrib, f32(damping), np.zeros(n, f32)], n, 256
    return make


def crc_table():
    t = np.zeros(256, np.uint64)
    for b in range(256):
        c = b
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        t[b] = c
    return t.astype(u32)


def crc(messages, length):
    return lambda rng: ([rng.integers(0, 256, (messages, length)).astype(u8), crc_table(),
                         np.zeros(messages, u32)], messages, 256)


def polygon(rng, m):
    """A star-shaped polygon of m vertices about (0.5, 0.5), radii 0.2 to 0.45."""
    a = np.sort(rng.random(m)) * 2 * np.pi
    r = 0.2 + 0.25 * rng.random(m)
    return (0.5 + r * np.cos(a)).astype(f32), (0.5 + r * np.sin(a)).astype(f32)


def pip(n, m):
    def make(rng):
        vx, vy = polygon(rng, m)
        return [rng.random(n).astype(f32), rng.random(n).astype(f32), vx, vy, np.zeros(n, i32)], n, 256
    return make


def spheres(n, count):
    """count spheres in front of the camera (z in [3, 12)), radii 0.1 to 0.6."""
    def make(rng):
        s = np.stack([rng.uniform(-4, 4, count), rng.uniform(-4, 4, count), rng.uniform(3, 12, count),
                      rng.uniform(0.1, 0.6, count)], axis=1).astype(f32)
        return [s, np.zeros((n, n), f32)], (n, n), (8, 32)
    return make


LAUNCHES: list[Launch] = [
    # the CUDA samples: fastWalshTransform
    Launch("fwt_h1@16M", K.fwt_stage, fwt(16 * M, 1), "dram"),
    Launch("fwt_h4M@16M", K.fwt_stage, fwt(16 * M, 4 * M), "dram"),
    Launch("fwt_h1@1M", K.fwt_stage, fwt(M, 1), "l2"),
    Launch("fwt_shared@16M", K.fwt_shared, fwt_block(16 * M), "shared"),
    # image processing
    Launch("median_u8@4096", K.median3x3, median(K4, u8), "issue"),
    Launch("median_f32@4096", K.median3x3, median(K4, f32), "issue"),
    Launch("erode_naive_r2@4096", K.erode_naive, erode(K4, 2), "l1"),
    Launch("erode_naive_r1@4096", K.erode_naive, erode(K4, 1), "l1"),
    Launch("erode_tiled_r2@4096", K.erode_tiled, erode(K4), "shared"),
    Launch("integral_rows@4096", K.integral_rows, integral(K4, K4, True), "l1"),
    Launch("integral_cols@4096", K.integral_cols, integral(K4, K4, False), "latency"),
    Launch("rgb_gray_interleaved@16M", K.rgb_gray_interleaved, rgb(16 * M, False), "dram"),
    Launch("rgb_gray_planar@16M", K.rgb_gray_planar, rgb(16 * M, True), "dram"),
    Launch("resize_up@2048to4096", K.resize_bilinear, resize(2048, K4), "dram"),
    Launch("resize_down@4096to1024", K.resize_bilinear, resize(K4, 1024), "dram"),
    # ML operators
    Launch("maxpool@256x256", K.maxpool3x3s2, maxpool(256, 256), "dram"),
    Launch("maxpool@64x64", K.maxpool3x3s2, maxpool(64, 64), "launch"),
    Launch("bn_nchw@32x64x4096", K.batchnorm_nchw, batchnorm(32, 64, 4096, False), "dram"),
    Launch("bn_nhwc@32x64x4096", K.batchnorm_nhwc, batchnorm(32, 64, 4096, True), "dram"),
    Launch("gelu@16M", K.gelu_tanh, gelu(16 * M), "dram"),
    Launch("gelu_f64@16M", K.gelu_tanh, gelu(16 * M, f64), "fp64"),
    Launch("im2col@64x128", K.im2col3x3, im2col(64, 128, 128), "dram"),
    Launch("attn_naive@2048", K.attn_scores_naive, attn(2048), "l1"),
    Launch("attn_tiled@2048", K.attn_scores_tiled, attn(2048), "shared"),
    Launch("attn_naive@512", K.attn_scores_naive, attn(512), "latency"),
    Launch("xent@8Kx4096", K.cross_entropy_warp, xent(8 * 1024, 4096), "dram"),
    Launch("xent@16Kx1000", K.cross_entropy_warp, xent(16 * 1024, 1000), "dram"),
    Launch("adam@16M", K.adam_step, adam(16 * M), "dram"),
    Launch("adam@1M", K.adam_step, adam(M), "l2"),
    Launch("dropout_p10@16M", K.dropout_hash, dropout(16 * M, 0.1), "dram"),
    Launch("quantize@16Kx1024", K.quantize_rows, quantize(16 * 1024, 1024), "dram"),
    Launch("quantize@2Kx4096", K.quantize_rows, quantize(2 * 1024, 4096), "latency"),
    # physics
    Launch("ising_i8@8192", K.ising_checker, ising(8192, i8), "dram"),
    Launch("ising_i32@8192", K.ising_checker, ising(8192, i32), "dram"),
    Launch("ising_i32@1024", K.ising_checker, ising(1024, i32), "launch"),
    Launch("pic_random@4M", K.pic_deposit, pic(4 * M, 512, False), "atomic"),
    Launch("pic_sorted@4M", K.pic_deposit, pic(4 * M, 512, True), "atomic"),
    Launch("sph_ordered@256K", K.sph_density, sph(256 * 1024, 32, False), "l1", VEC3_0),
    Launch("sph_shuffled@256K", K.sph_density, sph(256 * 1024, 32, True), "l2", VEC3_0),
    # graphs
    Launch("pr_pull_uniform@1M", K.pagerank_pull, pagerank(M, 8 * M, False, False), "l2"),
    Launch("pr_pull_skewed@1M", K.pagerank_pull, pagerank(M, 8 * M, True, False), "latency"),
    Launch("pr_push_uniform@1M", K.pagerank_push, pagerank(M, 8 * M, False, True), "atomic"),
    Launch("pr_push_skewed@1M", K.pagerank_push, pagerank(M, 8 * M, True, True), "atomic"),
    # checksums
    Launch("crc32_global@64Kx256", K.crc32_global, crc(64 * 1024, 256), "l1"),
    Launch("crc32_shared@64Kx256", K.crc32_shared, crc(64 * 1024, 256), "shared"),
    Launch("crc32_shared@8Kx1024", K.crc32_shared, crc(8 * 1024, 1024), "latency"),
    # geometry
    Launch("pip_v64@1M", K.point_in_polygon, pip(M, 64), "issue"),
    Launch("pip_v1024@1M", K.point_in_polygon, pip(M, 1024), "issue"),
    Launch("ray_s64@1024", K.ray_spheres, spheres(1024, 64), "issue", VEC4_0),
    Launch("ray_s256@1024", K.ray_spheres, spheres(1024, 256), "issue", VEC4_0),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("far / near Walsh stage, 16M", "fwt_h4M@16M", "fwt_h1@16M"),
    ("ten shared stages / one global stage, 16M", "fwt_shared@16M", "fwt_h1@16M"),
    ("fp32 / byte median 3x3, 4096", "median_f32@4096", "median_u8@4096"),
    ("naive / tiled erosion r2, 4096", "erode_naive_r2@4096", "erode_tiled_r2@4096"),
    ("radius 2 / radius 1 erosion, 4096", "erode_naive_r2@4096", "erode_naive_r1@4096"),
    ("row / column integral pass, 4096", "integral_rows@4096", "integral_cols@4096"),
    ("interleaved / planar RGB to grey, 16M", "rgb_gray_interleaved@16M", "rgb_gray_planar@16M"),
    ("NHWC / NCHW batchnorm", "bn_nhwc@32x64x4096", "bn_nchw@32x64x4096"),
    ("fp64 / fp32 GELU, 16M", "gelu_f64@16M", "gelu@16M"),
    ("naive / tiled attention scores, 2048", "attn_naive@2048", "attn_tiled@2048"),
    ("int32 / int8 Ising lattice, 8192", "ising_i32@8192", "ising_i8@8192"),
    ("random / sorted particle deposit, 4M", "pic_random@4M", "pic_sorted@4M"),
    ("shuffled / cell-ordered SPH density, 256K", "sph_shuffled@256K", "sph_ordered@256K"),
    ("push / pull PageRank, uniform 1M", "pr_push_uniform@1M", "pr_pull_uniform@1M"),
    ("skewed / uniform PageRank pull, 1M", "pr_pull_skewed@1M", "pr_pull_uniform@1M"),
    ("global / shared table CRC-32, 64K", "crc32_global@64Kx256", "crc32_shared@64Kx256"),
    ("1024 / 64 polygon vertices, 1M points", "pip_v1024@1M", "pip_v64@1M"),
    ("256 / 64 spheres ray casting, 1024", "ray_s256@1024", "ray_s64@1024"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
