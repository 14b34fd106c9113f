"""The third blind validation set's launches: kernels from PolyBench/GPU, Rodinia, Parboil,
SHOC and the CUDA samples (kernels.py) at one to three sizes each, with seeded inputs, and the
pairs users compare.

Measured once on an H200 (measure.sh here); never used to fit or tune a constant of the timing
model (see README.md). Sizes keep each launch at a few milliseconds at most on the GPU and the
whole set's prediction on cpu:precise at a few minutes.
"""
from __future__ import annotations

import numpy as np

import simt as wp

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K

f32, f64, i32, u32, u8 = np.float32, np.float64, np.int32, np.uint32, np.uint8
M = 1 << 20
K4 = 4096


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def trmm(m, n):
    """A scaled by 1/m so the sums stay near B's size."""
    return lambda rng: ([(rng.random((m, m)) / m).astype(f32), rng.random((m, n), dtype=f32),
                         np.zeros((m, n), f32), f32(1.5)], (m, n), (8, 32))


def gs_norm(n, k=0):
    return lambda rng: ([rng.random((n, n), dtype=f32), i32(k), np.zeros((n, n), f32), np.zeros((n, n), f32)],
                        256, 256)


def gs_project(n, k, block):
    """Column k of Q already normalised (the state after gramschmidt_norm at step k)."""
    def make(rng):
        a = rng.random((n, n), dtype=f32)
        q = np.zeros((n, n), f32)
        q[:, k] = a[:, k] / np.linalg.norm(a[:, k].astype(f64))
        return [a, q, np.zeros((n, n), f32), i32(k)], n, block
    return make


def heat3d(n, zmarch):
    def make(rng):
        a = rng.random((n, n, n), dtype=f32)
        out = np.zeros((n, n, n), f32)
        return ([a, out], (n, n), (8, 32)) if zmarch else ([a, out], (n, n, n), (1, 8, 32))
    return make


def seidel(n, compact, color=0):
    return lambda rng: ([rng.random((n, n), dtype=f32), i32(color)],
                        (n, n // 2) if compact else (n, n), (8, 32))


def floyd(n, k, block):
    def make(rng):
        d = rng.random((n, n), dtype=f32)
        d[np.arange(n), np.arange(n)] = 0.0
        return [d, i32(k)], (n, n), block
    return make


def deriche_coef(alpha=0.25):
    """PolyBench's deriche coefficients for its alpha."""
    e, e2 = np.exp(-alpha), np.exp(-2.0 * alpha)
    k = (1.0 - e) ** 2 / (1.0 + 2.0 * alpha * e - e2)
    return np.array([k, k * e * (alpha - 1.0), k * e * (alpha + 1.0), -k * e2, 2.0 ** -alpha, -e2, 1.0], f32)


def deriche(n, block=128):
    return lambda rng: ([rng.random((n, n), dtype=f32), deriche_coef(), np.zeros((n, n), f32)], n, block)


def streamcluster(n, centres, dims=16):
    """Points uniform in the unit cube (feature-major), weights in [1, 2), the candidate a random
    point; each point's current cost its cost to the candidate times a factor in [0.5, 0.98) or
    [1.02, 1.5), so about half of them gain and no float rounding decides which."""
    def make(rng):
        pts = rng.random((dims, n), dtype=f32)
        weight = (1.0 + rng.random(n)).astype(f32)
        centre = pts[:, rng.integers(n)].copy()
        x_cost = ((pts.astype(f64) - centre[:, None]) ** 2).sum(axis=0) * weight
        factor = np.where(rng.random(n) < 0.5, 0.5 + 0.48 * rng.random(n), 1.02 + 0.48 * rng.random(n))
        cost = (x_cost * factor + 1e-3).astype(f32)
        assign = rng.integers(0, centres, n).astype(i32)
        return [pts, weight, cost, assign, centre, np.zeros(n, i32), np.zeros(centres, f32)], n, 256
    return make


def disc(radius=5):
    oy, ox = np.mgrid[-radius:radius + 1, -radius:radius + 1]
    inside = oy ** 2 + ox ** 2 <= radius ** 2
    return oy[inside].astype(i32), ox[inside].astype(i32)


def particles(n, side=1024):
    """A byte frame (dark background, a bright disc of radius 40 at the centre, noise), n
    particles scattered about the centre (sigma 30 pixels) with unnormalised weights of 1, and
    the 81 offsets of a radius-5 disc."""
    def make(rng):
        yy, xx = np.mgrid[0:side, 0:side]
        bright = (yy - side / 2) ** 2 + (xx - side / 2) ** 2 < 40 ** 2
        frame = np.clip(np.where(bright, 228.0, 100.0) + rng.normal(0, 10, (side, side)), 0, 255).astype(u8)
        px = np.clip(side / 2 + rng.normal(0, 30, n), 0, side - 1).astype(f32)
        py = np.clip(side / 2 + rng.normal(0, 30, n), 0, side - 1).astype(f32)
        oy, ox = disc()
        return [frame, px, py, oy, ox, np.ones(n, f32)], n, 256
    return make


def btree_keys(rng, levels):
    """Sorted distinct keys (gaps 1 to 8) and the implicit tree over them: level l holds 32^l
    nodes of 32 keys, node m's key c the first key of its child's range."""
    n = 32 ** levels
    s = np.cumsum(rng.integers(1, 9, n)).astype(i32)
    flat = [s[::32 ** (levels - 1 - l)] for l in range(levels)]
    return s, np.concatenate(flat).astype(i32)


def btree(queries, levels, warp):
    def make(rng):
        s, keys = btree_keys(rng, levels)
        q = rng.integers(0, int(s[-1]) + 16, queries).astype(i32)
        return [keys, i32(levels), q, np.zeros(queries, i32)], queries * 32 if warp else queries, 256
    return make


def dwt(n):
    return lambda rng: ([rng.random((n, n), dtype=f32), np.zeros((n, n), f32)], (n // 2, n // 2), (8, 32))


def lavamd(nb, per_box=32):
    """nb^3 unit boxes of 32 particles each, uniform within their box, charges in [0, 1)."""
    def make(rng):
        boxes = nb ** 3
        b = np.arange(boxes)
        corner = np.stack([b % nb, (b // nb) % nb, b // (nb * nb)], axis=1).astype(f64)
        atoms = np.zeros((boxes, per_box, 4), f32)
        atoms[:, :, :3] = corner[:, None, :] + rng.random((boxes, per_box, 3))
        atoms[:, :, 3] = rng.random((boxes, per_box))
        return [atoms, i32(nb), f32(2.0), np.zeros((boxes, per_box, 4), f32)], boxes * per_box, per_box
    return make


def sad(h, w):
    """A byte frame of smooth structure and noise, and the reference: the frame moved by (2, -3)
    pixels with fresh noise."""
    def make(rng):
        yy, xx = np.mgrid[0:h + 8, 0:w + 8]
        base = 128 + 60 * np.sin(yy / 9.0) * np.cos(xx / 13.0)
        cur = np.clip(base[4:4 + h, 4:4 + w] + rng.normal(0, 6, (h, w)), 0, 255).astype(u8)
        ref = np.clip(base[2:2 + h, 7:7 + w] + rng.normal(0, 6, (h, w)), 0, 255).astype(u8)
        return [cur, ref, np.zeros((h // 4, w // 4, 64), i32)], (h // 4, w // 4, 64), (1, 4, 64)
    return make


def gridding_samples(n, side, clustered):
    """n samples on a side x side grid: uniform, or crowded about the centre (a normal of sigma
    side / 64, as the centre of k-space is sampled most densely); values in [0, 1)."""
    def make(rng):
        if clustered:
            k = np.clip(side / 2 + rng.normal(0, side / 64, (2, n)), 0, side - 1e-3)
        else:
            k = rng.random((2, n)) * side
        return [k[0].astype(f32), k[1].astype(f32), rng.random(n, dtype=f32), np.zeros((side, side), f32)], n, 256
    return make


def fft_stage(n, half, dtype=f32):
    return lambda rng: ([rng.random(n).astype(dtype), rng.random(n).astype(dtype), i32(half)], n // 2, 256)


def fft256(transforms):
    return lambda rng: ([rng.random(transforms * 256, dtype=f32), rng.random(transforms * 256, dtype=f32)],
                        transforms * 128, 128)


def maxflops(n, steps, dtype=f32):
    return lambda rng: ([rng.random(n).astype(dtype), i32(steps), np.zeros(n, dtype)], n, 256)


def sepconv(n, radius=8):
    def make(rng):
        w = np.exp(-0.5 * (np.arange(-radius, radius + 1) / 3.0) ** 2)
        return [rng.random((n, n), dtype=f32), (w / w.sum()).astype(f32), np.zeros((n, n), f32)], (n, n), (8, 32)
    return make


def dct_matrix():
    """The orthonormal DCT-II matrix: C[u, k] = alpha(u) cos((2k + 1) u pi / 16)."""
    u, k = np.mgrid[0:8, 0:8]
    c = np.sqrt(2.0 / 8.0) * np.cos((2 * k + 1) * u * np.pi / 16.0)
    c[0] /= np.sqrt(2.0)
    return c.astype(f32)


def dct(n):
    return lambda rng: ([(255.0 * rng.random((n, n))).astype(f32), dct_matrix(), np.zeros((n, n), f32)],
                        (n, n), (8, 32))


def scalar_prod(vectors, length):
    return lambda rng: ([rng.random((vectors, length), dtype=f32), rng.random((vectors, length), dtype=f32),
                         np.zeros(vectors, f32)], vectors * 256, 256)


def black_scholes(n, dtype=f32):
    """Prices in [5, 30), strikes in [1, 100), expiries in [0.25, 10) years (the samples' ranges)."""
    return lambda rng: ([(5.0 + 25.0 * rng.random(n)).astype(dtype), (1.0 + 99.0 * rng.random(n)).astype(dtype),
                         (0.25 + 9.75 * rng.random(n)).astype(dtype), np.zeros(n, dtype), np.zeros(n, dtype)],
                        n, 128)


def sobol(dims, n):
    """Direction numbers: random words whose top bits follow the Sobol shape (bit b's number has
    its highest bit at 31 - b), not a published table; the kernel's work is the same."""
    def make(rng):
        b = np.arange(32)
        top = (np.uint64(1) << (31 - b).astype(np.uint64))
        low = rng.integers(0, 2 ** 32, (dims, 32), dtype=np.uint64) & (top - np.uint64(1))
        return [(top | low).astype(u32), np.zeros((dims, n), f32)], (dims, n), (1, 256)
    return make


def merge(n, run):
    """n keys in sorted runs of ``run``, drawn from [0, n / 4) so equal keys occur."""
    def make(rng):
        keys = np.sort(rng.integers(0, n // 4, (n // run, run)), axis=1).astype(i32).ravel()
        return [keys, i32(run), np.zeros(n, i32)], n, 256
    return make


VEC4_03 = {0: wp.vec4, 3: wp.vec4}

LAUNCHES: list[Launch] = [
    # PolyBench/GPU
    Launch("trmm@512", K.trmm, trmm(512, 512), "l1"),
    Launch("trmm@1024x256", K.trmm, trmm(1024, 256), "l1"),
    Launch("gs_norm@2048", K.gramschmidt_norm, gs_norm(2048), "latency"),
    Launch("gs_project@2048", K.gramschmidt_project, gs_project(2048, 0, 256), "latency"),
    Launch("gs_project_b64@2048", K.gramschmidt_project, gs_project(2048, 0, 64), "latency"),
    Launch("heat3d@256", K.heat3d, heat3d(256, False), "dram"),
    Launch("heat3d_zmarch@256", K.heat3d_zmarch, heat3d(256, True), "dram"),
    Launch("heat3d@128", K.heat3d, heat3d(128, False), "dram"),
    Launch("seidel_branch@4096", K.seidel_branch, seidel(K4, False), "dram"),
    Launch("seidel_compact@4096", K.seidel_compact, seidel(K4, True), "dram"),
    Launch("floyd@4096", K.floyd_step, floyd(K4, 1234, (8, 32)), "dram"),
    Launch("floyd_b64@4096", K.floyd_step, floyd(K4, 1234, (2, 32)), "dram"),
    Launch("deriche_rows@2048", K.deriche_rows, deriche(2048), "latency"),
    Launch("deriche_cols@2048", K.deriche_cols, deriche(2048), "latency"),
    Launch("deriche_rows@1024", K.deriche_rows, deriche(1024), "latency"),
    Launch("deriche_cols@1024", K.deriche_cols, deriche(1024), "latency"),
    # Rodinia
    Launch("streamcluster_k16@1M", K.streamcluster_gain, streamcluster(M, 16), "atomic"),
    Launch("streamcluster_k64K@1M", K.streamcluster_gain, streamcluster(M, 65536), "dram"),
    Launch("pf_likelihood@64K", K.pf_likelihood, particles(64 * 1024), "l1"),
    Launch("pf_likelihood@512K", K.pf_likelihood, particles(512 * 1024), "l1"),
    Launch("btree_thread@64K", K.btree_thread, btree(64 * 1024, 4, False), "l1"),
    Launch("btree_warp@64K", K.btree_warp, btree(64 * 1024, 4, True), "l2"),
    Launch("btree_thread@512K", K.btree_thread, btree(512 * 1024, 4, False), "l1"),
    Launch("dwt_haar@1024", K.dwt_haar, dwt(1024), "dram"),
    Launch("dwt_haar@4096", K.dwt_haar, dwt(K4), "dram"),
    Launch("lavamd_box@6", K.lavamd_box, lavamd(6), "sfu", VEC4_03),
    Launch("lavamd_box@13", K.lavamd_box, lavamd(13), "sfu", VEC4_03),
    Launch("lavamd_staged@13", K.lavamd_staged, lavamd(13), "occupancy", VEC4_03),
    # Parboil
    Launch("sad@512", K.sad_4x4, sad(512, 512), "issue"),
    Launch("sad@1024", K.sad_4x4, sad(1024, 1024), "issue"),
    Launch("gridding_uniform@1M", K.gridding, gridding_samples(M, 1024, False), "atomic"),
    Launch("gridding_clustered@1M", K.gridding, gridding_samples(M, 1024, True), "atomic"),
    # SHOC
    Launch("fft_stage_h1@4M", K.fft_stage, fft_stage(4 * M, 1), "dram"),
    Launch("fft_stage_h1024@4M", K.fft_stage, fft_stage(4 * M, 1024), "dram"),
    Launch("fft_stage_h2M@4M", K.fft_stage, fft_stage(4 * M, 2 * M), "dram"),
    Launch("fft_stage_f64_h1024@4M", K.fft_stage, fft_stage(4 * M, 1024, f64), "fp64"),
    Launch("fft256@4K", K.fft256_shared, fft256(K4), "shared"),
    Launch("fft256@16K", K.fft256_shared, fft256(16 * 1024), "shared"),
    Launch("maxflops@128K", K.maxflops, maxflops(128 * 1024, 256), "issue"),
    Launch("maxflops_f64@128K", K.maxflops, maxflops(128 * 1024, 256, f64), "fp64"),
    # the CUDA samples
    Launch("sepconv_rows@2048", K.sepconv_rows, sepconv(2048), "l1"),
    Launch("sepconv_cols@2048", K.sepconv_cols, sepconv(2048), "l1"),
    Launch("dct8x8@1024", K.dct8x8, dct(1024), "shared"),
    Launch("dct8x8@2048", K.dct8x8, dct(2048), "shared"),
    Launch("scalar_prod_shared@4096x1024", K.scalar_prod_shared, scalar_prod(K4, 1024), "shared"),
    Launch("scalar_prod_shfl@4096x1024", K.scalar_prod_shfl, scalar_prod(K4, 1024), "dram"),
    Launch("black_scholes@1M", K.black_scholes, black_scholes(M), "issue"),
    Launch("black_scholes_f64@1M", K.black_scholes, black_scholes(M, f64), "fp64"),
    Launch("black_scholes@8M", K.black_scholes, black_scholes(8 * M), "dram"),
    Launch("sobol_branch@2x1M", K.sobol_branch, sobol(2, M), "issue"),
    Launch("sobol_mask@2x1M", K.sobol_mask, sobol(2, M), "issue"),
    Launch("merge_r256@2M", K.merge_rank, merge(2 * M, 256), "l1"),
    Launch("merge_r64K@2M", K.merge_rank, merge(2 * M, 65536), "l2"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("64 / 256 threads a block gramschmidt project", "gs_project_b64@2048", "gs_project@2048"),
    ("3-D grid / z-marching heat-3d, 256", "heat3d@256", "heat3d_zmarch@256"),
    ("branch / compact red-black sweep, 4096", "seidel_branch@4096", "seidel_compact@4096"),
    ("64 / 256 threads a block floyd step, 4096", "floyd_b64@4096", "floyd@4096"),
    ("row / column deriche, 2048", "deriche_rows@2048", "deriche_cols@2048"),
    ("row / column deriche, 1024", "deriche_rows@1024", "deriche_cols@1024"),
    ("16 / 64K centres streamcluster gain, 1M", "streamcluster_k16@1M", "streamcluster_k64K@1M"),
    ("thread / warp per query b+tree, 64K", "btree_thread@64K", "btree_warp@64K"),
    ("box by box / all staged lavaMD, 13", "lavamd_box@13", "lavamd_staged@13"),
    ("clustered / uniform gridding, 1M", "gridding_clustered@1M", "gridding_uniform@1M"),
    ("first / last FFT stage, 4M", "fft_stage_h1@4M", "fft_stage_h2M@4M"),
    ("fp64 / fp32 FFT stage, 4M", "fft_stage_f64_h1024@4M", "fft_stage_h1024@4M"),
    ("fp64 / fp32 maxflops, 128K", "maxflops_f64@128K", "maxflops@128K"),
    ("column / row separable convolution, 2048", "sepconv_cols@2048", "sepconv_rows@2048"),
    ("shared tree / shuffle scalar products, 4096x1024", "scalar_prod_shared@4096x1024", "scalar_prod_shfl@4096x1024"),
    ("fp64 / fp32 black-scholes, 1M", "black_scholes_f64@1M", "black_scholes@1M"),
    ("branch / mask sobol, 2x1M", "sobol_branch@2x1M", "sobol_mask@2x1M"),
    ("long / short runs merge ranks, 2M", "merge_r64K@2M", "merge_r256@2M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
