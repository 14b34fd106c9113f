"""The eighth blind validation set's launches: kernels from sparse linear algebra, sorting and
stream primitives, physics, search, checksums, ML operators, image analysis and decoding
(kernels.py, kernels_ml.py) at one to three sizes each, with seeded inputs, and the pairs users
compare.

Measured once on an H200 (at 433c235; README.md) and never used to fit or
tune a constant of the timing model (see README.md). Sizes keep each launch at a few
milliseconds at most on the GPU.
"""
from __future__ import annotations

import numpy as np

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_ml as KM

f32, f64, i32, u8, u32, u64 = np.float32, np.float64, np.int32, np.uint8, np.uint32, np.uint64
M = 1 << 20
K4 = 4096


def morton3(p):
    """30-bit Morton codes of points in the unit cube (rows x, y, z)."""
    q = [np.clip((a * 1024).astype(np.int64), 0, 1023) for a in p]
    c = np.zeros(len(q[0]), np.int64)
    for b in range(10):
        for s, a in zip((2, 1, 0), q):
            c |= ((a >> b) & 1) << (3 * b + s)
    return c


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def block_sparse(rows, cols, per_row, rng):
    """A block-sparse rows x cols matrix of dense 4x4 blocks, per_row blocks a block row at random
    block columns (sorted): (bptr, bcol, bval)."""
    nbr = rows // 4
    bcol = np.sort(rng.integers(0, cols // 4, (nbr, per_row)), axis=1).ravel().astype(i32)
    bptr = (np.arange(nbr + 1) * per_row).astype(i32)
    return bptr, bcol, rng.standard_normal((nbr * per_row, 16)).astype(f32)


def spmv(rows, cols, per_row, coo):
    def make(rng):
        bptr, bcol, bval = block_sparse(rows, cols, per_row, rng)
        x = rng.standard_normal(cols).astype(f32)
        y = np.zeros(rows, f32)
        if not coo:
            return [bptr, bcol, bval, x, y], rows, 256
        # the same entries in COO, ordered by row then column (as a CSR converted)
        nbr = rows // 4
        br = np.repeat(np.arange(nbr), per_row)
        r = (br[:, None] * 4 + np.arange(16)[None, :] // 4).reshape(nbr, per_row, 4, 4).transpose(0, 2, 1, 3)
        c = (bcol[:, None] * 4 + np.arange(16)[None, :] % 4).reshape(nbr, per_row, 4, 4).transpose(0, 2, 1, 3)
        v = bval.reshape(nbr, per_row, 4, 4).transpose(0, 2, 1, 3)
        return [r.ravel().astype(i32), c.ravel().astype(i32), v.ravel().copy(), x, y], r.size, 256
    return make


def sptrsv(n, level, per_row, warp):
    """One level of a lower-triangular system of n unknowns: ``level`` rows scattered among them,
    each with per_row strictly lower entries among the unknowns of earlier levels (the nearest
    few hundred before it, as in a banded PDE matrix); those unknowns already solved."""
    def make(rng):
        rows = np.sort(rng.choice(np.arange(per_row * 8, n), level, replace=False))
        solved = np.ones(n, bool)
        solved[rows] = False
        comp = np.nonzero(solved)[0]
        at = np.searchsorted(comp, rows)
        back = rng.integers(1, per_row * 8, (level, per_row))
        cols = np.sort(comp[np.maximum(at[:, None] - back, 0)], axis=1)
        deg = np.zeros(n, np.int64)
        deg[rows] = per_row
        ptr = np.concatenate([[0], np.cumsum(deg)]).astype(i32)
        col = np.zeros(level * per_row, i32)
        val = np.zeros(level * per_row, f32)
        for_rows = (ptr[rows][:, None] + np.arange(per_row)).ravel()
        col[for_rows] = cols.ravel()
        val[for_rows] = (rng.standard_normal(level * per_row) / per_row).astype(f32)
        diag = rng.uniform(1.0, 2.0, n).astype(f32)
        x = np.where(solved, rng.standard_normal(n), 0.0).astype(f32)
        order = rng.permutation(rows).astype(i32)
        return [ptr, col, val, diag, order, rng.standard_normal(n).astype(f32), x], \
            level * (32 if warp else 1), 256
    return make


def radix(n, shift, bits):
    """n keys and the exclusive offsets of every warp tile's digits (digit-major, then tile:
    the scan radix sort does before its scatter)."""
    def make(rng):
        keys = rng.integers(0, 2**32, n, dtype=np.uint64).astype(u32)
        tile = 32 * K.RADIX_TILE
        d = ((keys >> shift) & ((1 << bits) - 1)).astype(np.int64).reshape(-1, tile)
        nd = 1 << bits
        cnt = np.bincount((np.arange(len(d))[:, None] * nd + d).ravel(), minlength=len(d) * nd).reshape(-1, nd)
        flat = cnt.T.ravel()
        off = (np.concatenate([[0], np.cumsum(flat)[:-1]]).reshape(1 << bits, -1).T).astype(i32)
        return [keys, i32(shift), i32(bits), np.ascontiguousarray(off), np.zeros(n, u32)], n // K.RADIX_TILE, \
            32 * K.RADIX_WARPS
    return make


def compact(n, thr):
    return lambda rng: ([rng.standard_normal(n).astype(f32), f32(thr), np.zeros(n, f32), np.zeros(1, i32)], n,
                        K.COMPACT_BLOCK)


def keys(n):
    return lambda rng: ([rng.standard_normal(n).astype(f32), np.zeros(n, f32)], n, 256)


def bitmap(n):
    return lambda rng: ([rng.standard_normal(n).astype(f32), f32(0.0), np.zeros(n // 32, u32)], n, 256)


def lattice(size, dtype=f32):
    def make(rng):
        v = size ** 4
        u = (rng.standard_normal((v, 4, 18)) / 3).astype(dtype)
        return [u, rng.standard_normal((v, 6)).astype(dtype), i32(size), np.zeros((v, 6), dtype)], v, 256
    return make


def particles(n, h, w, by_cell):
    """n particles in an h x w periodic grid (grid units), speeds about 0.3 cells a step, fields
    smooth plus noise; by cell (sorted, as codes sort them) or in random order."""
    def make(rng):
        x = rng.uniform(0, w, n)
        y = rng.uniform(0, h, n)
        o = np.argsort(np.floor(y).astype(np.int64) * w + np.floor(x).astype(np.int64)) if by_cell else \
            rng.permutation(n)
        # float32 rounds values just under w (h) up to w (h): keep every particle inside the grid
        x = np.minimum(x[o].astype(f32), np.nextafter(f32(w), f32(0)))
        y = np.minimum(y[o].astype(f32), np.nextafter(f32(h), f32(0)))
        v = [(0.3 * rng.standard_normal(n)).astype(f32) for _ in range(3)]
        yy, xx = np.mgrid[0:h, 0:w]
        f = [(np.sin(xx / 97.0 + k) * np.cos(yy / 61.0) + 0.1 * rng.standard_normal((h, w))).astype(f32)
             for k in range(3)]
        return [x, y, *v, *f, f32(0.5), f32(0.2)], n, 256
    return make


def matrices(n):
    """n 4x4 matrices with norms spread over 2.6 orders of magnitude (0 to about 5 halvings)."""
    def make(rng):
        a = rng.standard_normal((n, 16)) * 10.0 ** rng.uniform(-2, 0.6, (n, 1))
        return [a.astype(f32), np.zeros((n, 16), f32)], n, 256
    return make


def bvh(nleaf, queries, sorted_queries):
    """A complete BVH over nleaf small boxes sorted by Morton code (heap order, node 0 unused) and
    queries uniform in the unit cube, in random or Morton order."""
    def make(rng):
        c = rng.random((3, nleaf))
        half = rng.uniform(0.002, 0.01, (3, nleaf))
        o = np.argsort(morton3(c))
        box = np.zeros((2 * nleaf, 6), f32)
        box[nleaf:, :3] = (c - half)[:, o].T
        box[nleaf:, 3:] = (c + half)[:, o].T
        lev = nleaf // 2
        while lev >= 1:
            ch = box[2 * lev:4 * lev].reshape(lev, 2, 6)
            box[lev:2 * lev, :3] = ch[:, :, :3].min(1)
            box[lev:2 * lev, 3:] = ch[:, :, 3:].max(1)
            lev //= 2
        q = rng.random((3, queries))
        if sorted_queries:
            q = q[:, np.argsort(morton3(q))]
        q = q.astype(f32)
        return [box, i32(nleaf), q[0].copy(), q[1].copy(), q[2].copy(), np.zeros(queries, i32),
                np.zeros(queries, i32)], queries, 128
    return make


def queen_prefixes(n, depth):
    """Every placement of the first ``depth`` rows of n queens with no two attacking: the
    column, left- and right-diagonal masks for the next row."""
    out = []
    full = (1 << n) - 1

    def go(d, c, l, r):
        if d == depth:
            out.append((c, l, r))
            return
        free = full & ~(c | l | r)
        while free:
            bit = free & -free
            free ^= bit
            go(d + 1, c | bit, ((l | bit) << 1) & full, (r | bit) >> 1)
    go(0, 0, 0, 0)
    return np.array(out, np.int64).astype(u32).T


def queens(n, depth):
    def make(rng):
        c, l, r = queen_prefixes(n, depth)
        return [c.copy(), l.copy(), r.copy(), i32(n), i32(n - depth), np.zeros(len(c), i32)], len(c), 128
    return make


def chunks(count, size, warp):
    return lambda rng: ([rng.integers(0, 256, (count, size)).astype(u8), np.zeros(count, u32)],
                        count * (32 if warp else 1), 256 if warp else 128)


def qgemv(rows, cols, bits):
    """Quantised weights (rows x cols, packed 32 / bits a word, little end first), a scale per
    QG of a row, and x."""
    def make(rng):
        per = 32 // bits
        q = rng.integers(0, 1 << bits, (rows, cols // per, per)).astype(np.uint64)
        w = (q << (bits * np.arange(per, dtype=np.uint64))).sum(2).astype(u32)
        s = rng.uniform(0.005, 0.02, (rows, cols // KM.QG)).astype(f32)
        return [w, s, rng.standard_normal(cols).astype(f32), np.zeros(rows, f32)], rows * 32, 256
    return make


def attention(t, heads, win):
    def make(rng):
        q, k, v = (rng.standard_normal((t, heads, 64)).astype(f32) for _ in range(3))
        return [q, k, v, i32(win), f32(0.125), np.zeros((t, heads, 64), f32)], t * heads * 32, 256
    return make


def wavenet(b, c, t, dil):
    def make(rng):
        x = rng.standard_normal((b, c, t)).astype(f32)
        w = (rng.standard_normal((c, c, 2)) / np.sqrt(2 * c)).astype(f32)
        return [x, w, i32(dil), np.zeros((b, c, t), f32)], (b * c, t), (1, 256)
    return make


def gaussians(n, soa):
    def make(rng):
        mean = rng.uniform(-5, 5, (n, 3)).astype(f32)
        sh = (rng.standard_normal((n, 48)) * 0.3).astype(f32)
        if soa:
            sh = np.ascontiguousarray(sh.T)
        return [mean, f32(0.5), f32(-1.0), f32(12.0), sh, np.zeros((n, 3), f32)], n, 256
    return make


def boxes(n, thr=0.5):
    def make(rng):
        cxy = rng.uniform(0, 1000, (n, 2))
        wh = rng.uniform(20, 120, (n, 2))
        # clusters: every fourth box a jittered copy of another (as detectors produce)
        j = np.arange(n) % 4 != 0
        src = rng.integers(0, n, n)
        cxy[j] = cxy[src[j]] + rng.normal(0, 8, (j.sum(), 2))
        b = np.concatenate([cxy - wh / 2, cxy + wh / 2], 1).astype(f32)
        return [b, f32(thr), np.zeros((n, n // KM.NMS_B), u32)], (n // KM.NMS_B, n), (1, KM.NMS_B)
    return make


def blobs(rng, h, w):
    """A binary image of blobs: a coarse random field (8x8 cells, 40% on: below percolation, so
    the components stay bounded) with one pixel in twenty flipped."""
    coarse = rng.random((h // 8 + 1, w // 8 + 1)) < 0.4
    img = np.repeat(np.repeat(coarse, 8, 0), 8, 1)[:h, :w]
    return (img ^ (rng.random((h, w)) < 0.05)).astype(u8)


def ccl(h, w, uf):
    def make(rng):
        fg = blobs(rng, h, w)
        idx = np.arange(h * w, dtype=np.int64).reshape(h, w)
        if uf:
            return [fg, np.where(fg.ravel() != 0, idx.ravel(), -1).astype(i32)], (h, w), (8, 32)
        lab = np.where(fg != 0, idx, 2**31 - 1).astype(i32)
        return [fg, lab, np.zeros((h, w), i32), np.zeros(1, i32)], (h, w), (8, 32)
    return make


def equalize(n, shared, blocks=1024):
    """An n-pixel 8-bit image with a skewed histogram, its histogram, and (global) its table."""
    def make(rng):
        img = np.clip(rng.gamma(2.0, 20.0, n), 0, 255).astype(u8)
        hist = np.bincount(img, minlength=256).astype(i32)
        if shared:
            return [img, hist, np.zeros(n, u8)], blocks * 256, 256
        return [img, equalize_lut(hist, n), np.zeros(n, u8)], n, 256
    return make


def equalize_lut(hist, n):
    cdf = np.cumsum(hist).astype(np.int64)
    cmin = cdf[np.nonzero(cdf)[0][0]]
    return np.floor((cdf - cmin).astype(f32) * f32(255.0) / f32(n - cmin) + f32(0.5)).astype(u8)


def hmm(seqs, steps):
    def make(rng):
        tr = np.log(rng.dirichlet(np.full(KM.VS, 0.3), KM.VS) + 1e-12).astype(f32)
        em = np.log(rng.dirichlet(np.full(KM.VS, 0.5), (seqs, steps)) + 1e-12).astype(f32)
        return [tr, em, np.zeros((seqs, steps, KM.VS), u8), np.zeros(seqs, f32), np.zeros(seqs, i32)], \
            seqs * KM.VS, KM.VS
    return make


def collatz(n, start, queue, blocks=1024):
    def make(rng):
        if queue:
            return [u64(start), np.zeros(1, i32), np.zeros(n, i32)], blocks * 256, 256
        return [u64(start), np.zeros(n, i32)], n, 256
    return make


LAUNCHES: list[Launch] = [
    # sparse linear algebra
    Launch("spmv_coo@1Mx32M", K.spmv_coo, spmv(M, 32 * M, 8, True), "atomic"),
    Launch("spmv_bsr4@1Mx32M", K.spmv_bsr4, spmv(M, 32 * M, 8, False), "dram"),
    Launch("sptrsv_thread@1M", K.sptrsv_level_thread, sptrsv(8 * M, M, 24, False), "dram"),
    Launch("sptrsv_warp@1M", K.sptrsv_level_warp, sptrsv(8 * M, M, 24, True), "dram"),
    Launch("sptrsv_thread@4K", K.sptrsv_level_thread, sptrsv(64 * 1024, 4096, 24, False), "launch"),
    # sorting and stream primitives
    Launch("radix4@16M", K.radix_scatter, radix(16 * M, 8, 4), "dram"),
    Launch("radix8@16M", K.radix_scatter, radix(16 * M, 8, 8), "dram"),
    Launch("compact_half@32M", K.compact_block_scan, compact(32 * M, 0.0), "dram"),
    Launch("compact_5pc@32M", K.compact_block_scan, compact(32 * M, 1.645), "dram"),
    Launch("bitonic32@16M", K.warp_bitonic32, keys(16 * M), "issue"),
    Launch("bitonic32@64K", K.warp_bitonic32, keys(64 * 1024), "launch"),
    Launch("pack_ballot@64M", K.pack_bits_ballot, bitmap(64 * M), "dram"),
    Launch("pack_atomic@64M", K.pack_bits_atomic, bitmap(64 * M), "atomic"),
    # physics and numerical kernels
    Launch("su3_hop@24", K.su3_hop, lattice(24), "dram"),
    Launch("su3_hop_f64@24", K.su3_hop, lattice(24, f64), "dram"),
    Launch("boris_random@8M", K.boris_push, particles(8 * M, 2048, K4, False), "l2"),
    Launch("boris_sorted@8M", K.boris_push, particles(8 * M, 2048, K4, True), "dram"),
    Launch("expm4@1M", K.expm4_taylor, matrices(M), "issue"),
    Launch("expm4@64K", K.expm4_taylor, matrices(64 * 1024), "latency"),
    # search
    Launch("bvh_random@1M", K.bvh_count, bvh(2 * M, M, False), "latency"),
    Launch("bvh_sorted@1M", K.bvh_count, bvh(2 * M, M, True), "l1"),
    Launch("queens13_d3", K.nqueens_dfs, queens(13, 3), "latency"),
    Launch("queens13_d5", K.nqueens_dfs, queens(13, 5), "issue"),
    # checksums
    Launch("adler_thread@16Kx4K", K.adler32_thread, chunks(16 * 1024, K4, False), "l1"),
    Launch("adler_warp@16Kx4K", K.adler32_warp, chunks(16 * 1024, K4, True), "issue"),
    # ML operators
    Launch("gemv_w8@8192", KM.gemv_w8, qgemv(8192, 8192, 8), "dram"),
    Launch("gemv_w4@8192", KM.gemv_w4, qgemv(8192, 8192, 4), "dram"),
    Launch("gemv_w4@4096", KM.gemv_w4, qgemv(K4, K4, 4), "latency"),
    Launch("attn_win256@4Kx16", KM.attn_window, attention(K4, 16, 256), "issue"),
    Launch("attn_win64@4Kx16", KM.attn_window, attention(K4, 16, 64), "issue"),
    Launch("wavenet_d1@4x64x16K", KM.conv1d_dilated, wavenet(4, 64, 16 * 1024, 1), "l1"),
    Launch("wavenet_d1024@4x64x16K", KM.conv1d_dilated, wavenet(4, 64, 16 * 1024, 1024), "l1"),
    Launch("sh_aos@1M", KM.sh_color_aos, gaussians(M, False), "dram"),
    Launch("sh_soa@1M", KM.sh_color_soa, gaussians(M, True), "dram"),
    Launch("nms@8192", KM.nms_mask, boxes(8192), "issue"),
    Launch("nms@2048", KM.nms_mask, boxes(2048), "launch"),
    # image analysis
    Launch("ccl_prop@2048", KM.ccl_propagate, ccl(2048, 2048, False), "dram"),
    Launch("ccl_uf@2048", KM.ccl_uf_merge, ccl(2048, 2048, True), "latency"),
    Launch("histeq_global@64M", KM.histeq_global, equalize(64 * M, False), "dram"),
    Launch("histeq_shared@64M", KM.histeq_shared, equalize(64 * M, True), "dram"),
    # decoding and irregular work
    Launch("viterbi@2048x128", KM.viterbi, hmm(2048, 128), "shared"),
    Launch("viterbi@128x128", KM.viterbi, hmm(128, 128), "latency"),
    Launch("collatz_static@2M", KM.collatz_static, collatz(2 * M, 1_000_000_007, False), "issue"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("COO atomics / BSR 4x4, the same matrix", "spmv_coo@1Mx32M", "spmv_bsr4@1Mx32M"),
    ("warp / thread a row, triangular-solve level 1M", "sptrsv_warp@1M", "sptrsv_thread@1M"),
    ("8-bit / 4-bit digit, radix scatter 16M", "radix8@16M", "radix4@16M"),
    ("50% / 5% kept, block-scan compaction 32M", "compact_half@32M", "compact_5pc@32M"),
    ("atomic OR / ballot, bit packing 64M", "pack_atomic@64M", "pack_ballot@64M"),
    ("fp64 / fp32 SU(3) hopping term, 24^4", "su3_hop_f64@24", "su3_hop@24"),
    ("random / cell-sorted particles, Boris push 8M", "boris_random@8M", "boris_sorted@8M"),
    ("random / Morton-sorted queries, BVH 2M leaves", "bvh_random@1M", "bvh_sorted@1M"),
    ("3-row / 5-row prefixes, 13 queens", "queens13_d3", "queens13_d5"),
    ("thread / warp per chunk, Adler-32 64 MB", "adler_thread@16Kx4K", "adler_warp@16Kx4K"),
    ("int8 / int4 weights, GEMV 8192", "gemv_w8@8192", "gemv_w4@8192"),
    ("window 256 / 64, sliding-window attention", "attn_win256@4Kx16", "attn_win64@4Kx16"),
    ("dilation 1024 / 1, WaveNet convolution", "wavenet_d1024@4x64x16K", "wavenet_d1@4x64x16K"),
    ("Gaussian-major / coefficient-major SH colours 1M", "sh_aos@1M", "sh_soa@1M"),
    ("8192 / 2048 boxes, NMS mask", "nms@8192", "nms@2048"),
    ("union-find merge / one propagation sweep, CCL 2048^2", "ccl_uf@2048", "ccl_prop@2048"),
    ("table per block in shared / precomputed, equalisation 64M", "histeq_shared@64M", "histeq_global@64M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
