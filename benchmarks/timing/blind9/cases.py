"""The ninth blind validation set's launches: kernels from sparse formats, random access and
graphs, cryptography and strings, integer sieving and unpacking, physics stencils, Monte Carlo,
ML operators, channel decoding, procedural noise, image analysis and stereo, and geometry
(kernels.py, kernels_ml.py) at one to three sizes each, with seeded inputs, and the pairs users
compare.

Not yet measured; to be measured once on an H200 (measure.sh here) and never used to fit or
tune a constant of the timing model (see README.md). Sizes keep each launch at a few
milliseconds at most on the GPU.
"""
from __future__ import annotations

import numpy as np

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_ml as KM

f32, f64, i32, u8, u16, u32, u64 = np.float32, np.float64, np.int32, np.uint8, np.uint16, np.uint32, np.uint64
M = 1 << 20
K4 = 4096


# ---- host-side helpers -------------------------------------------------------------------------

def laplace5(n, rng):
    """A 5-point matrix on an n x n grid (a diagonally dominant variable-coefficient operator):
    the offsets and the values diagonal-major, zero where a diagonal leaves the grid."""
    rows = n * n
    offs = np.array([-n, -1, 0, 1, n], np.int64)
    r = np.arange(rows)
    data = rng.uniform(-1.0, 0.0, (5, rows))
    data[2] = rng.uniform(4.0, 5.0, rows)
    data[0, r < n] = 0
    data[1, r % n == 0] = 0
    data[3, r % n == n - 1] = 0
    data[4, r >= rows - n] = 0
    return offs, data.astype(f32)


def jds_from_dia(offs, data):
    """The same matrix in jagged diagonal storage: (perm, jd_ptr, col, val)."""
    rows = data.shape[1]
    cols = np.arange(rows)[:, None] + offs[None, :]
    vals = data.T
    valid = vals != 0
    order = np.argsort(~valid, axis=1, kind="stable")     # each row's entries to the left, in order
    cols = np.take_along_axis(cols, order, 1)
    vals = np.take_along_axis(vals, order, 1)
    length = valid.sum(1)
    perm = np.argsort(-length, kind="stable")
    ls = length[perm]
    ptr, cs, vs = [0], [], []
    for k in range(len(offs)):
        cnt = int((ls > k).sum())
        if cnt == 0:
            break
        cs.append(cols[perm[:cnt], k])
        vs.append(vals[perm[:cnt], k])
        ptr.append(ptr[-1] + cnt)
    return perm.astype(i32), np.array(ptr, i32), np.concatenate(cs).astype(i32), np.concatenate(vs).astype(f32)


def aes_sbox():
    """The AES S-box: the inverse in GF(2^8) (x^8 + x^4 + x^3 + x + 1) and the affine map."""
    def mul(a, b):
        p = 0
        while b:
            if b & 1:
                p ^= a
            a = ((a << 1) ^ 0x11B) if a & 0x80 else a << 1
            b >>= 1
        return p

    def inv(a):
        r = 1
        for _ in range(254):
            r = mul(r, a)
        return r if a else 0

    def rotl8(x, k):
        return ((x << k) | (x >> (8 - k))) & 0xFF
    s = []
    for a in range(256):
        b = inv(a)
        s.append(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63)
    return np.array(s, np.uint8)


def xtime(a):
    a = np.asarray(a, np.int64)
    return ((a << 1) ^ np.where(a & 0x80, 0x11B, 0)) & 0xFF


def aes_te0(sbox):
    """Te0[x] = (2 S(x), S(x), S(x), 3 S(x)) as a big-endian word."""
    s = sbox.astype(np.int64)
    s2 = xtime(s)
    return ((s2 << 24) | (s << 16) | (s << 8) | (s2 ^ s)).astype(u32)


def aes_expand(key, sbox):
    """AES-128's 44 round-key words (big-endian) from 16 key bytes."""
    w = [int.from_bytes(bytes(int(b) for b in key[4 * i:4 * i + 4]), "big") for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = w[i - 1]
        if i % 4 == 0:
            t = ((t << 8) | (t >> 24)) & 0xFFFFFFFF
            t = int.from_bytes(bytes(int(sbox[(t >> s) & 0xFF]) for s in (24, 16, 8, 0)), "big")
            t ^= rcon << 24
            rcon = int(xtime(rcon))
        w.append(w[i - 4] ^ t)
    return np.array(w, u32)


def primes_upto(n):
    s = np.ones(n + 1, bool)
    s[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if s[p]:
            s[p * p::p] = False
    return np.nonzero(s)[0]


def pack_bits(vals, width):
    """Little-endian bit packing of ``width``-bit values into 32-bit words (one spare word)."""
    n = len(vals)
    off = np.arange(n, dtype=np.int64) * width
    w, s = off >> 5, off & 31
    v = vals.astype(np.int64)
    nw = (n * width + 31) // 32 + 1
    lo = np.bincount(w, weights=((v << s) & 0xFFFFFFFF).astype(f64), minlength=nw)
    spill = s + width > 32
    hi = np.bincount(w[spill] + 1, weights=(v[spill] >> (32 - s[spill])).astype(f64), minlength=nw)
    return (lo + hi).astype(np.int64).astype(u32)[:nw]


FAST_RING = np.array([(-3, 0), (-3, 1), (-2, 2), (-1, 3), (0, 3), (1, 3), (2, 2), (3, 1), (3, 0), (3, -1),
                      (2, -2), (1, -3), (0, -3), (-1, -3), (-2, -2), (-3, -1)], i32)


def grid_mesh(n, rng):
    """An n x n grid of vertices over a smooth height field (jittered in the plane), two
    triangles a cell in row order: (positions, triangles)."""
    i, j = np.mgrid[0:n, 0:n].astype(f64)
    z = 8.0 * np.sin(i / 37.0) * np.cos(j / 23.0) + rng.standard_normal((n, n)) * 0.1
    pos = np.stack([j + rng.uniform(-0.2, 0.2, (n, n)), i + rng.uniform(-0.2, 0.2, (n, n)), z], -1)
    v = np.arange(n * n).reshape(n, n)
    a, b, c, d = v[:-1, :-1].ravel(), v[:-1, 1:].ravel(), v[1:, :-1].ravel(), v[1:, 1:].ravel()
    tri = np.stack([np.stack([a, b, c], 1), np.stack([b, d, c], 1)], 1).reshape(-1, 3)
    return pos.reshape(-1, 3).astype(f32), tri.astype(i32)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def dia(n):
    def make(rng):
        offs, data = laplace5(n, rng)
        x = rng.standard_normal(n * n).astype(f32)
        return [offs.astype(i32), data, x, np.zeros(n * n, f32)], n * n, 256
    return make


def jds(n):
    def make(rng):
        offs, data = laplace5(n, rng)
        x = rng.standard_normal(n * n).astype(f32)
        return [*jds_from_dia(offs, data), x, np.zeros(n * n, f32)], n * n, 256
    return make


def gups(words, threads, per=4):
    """A table of ``words`` 64-bit words (HPCC's start: table[i] = i) and threads x per
    updates."""
    return lambda rng: ([np.arange(words, dtype=u64), u64(rng.integers(0, 2**63)), i32(per)], threads, 256)


def boruvka(n, tile):
    """The edges of an n x n grid graph (right then down edge of each vertex, row-major) with
    random 20-bit weights; components single vertices (tile 0) or tile x tile squares."""
    def make(rng):
        v = np.arange(n * n).reshape(n, n)
        right = np.full((n, n), -1)
        right[:, :-1] = v[:, 1:]
        down = np.full((n, n), -1)
        down[:-1] = v[1:]
        dst = np.stack([right, down], -1).reshape(-1)
        src = np.repeat(v.reshape(-1), 2)
        keep = dst >= 0
        src, dst = src[keep], dst[keep]
        w = rng.integers(0, 1 << 20, len(src))
        ii, jj = np.divmod(np.arange(n * n), n)
        comp = np.arange(n * n) if tile == 0 else (ii // tile) * (n // tile) + jj // tile
        best = np.full(n * n, np.iinfo(np.uint64).max, u64)
        return [src.astype(i32), dst.astype(i32), w.astype(i32), comp.astype(i32), best], len(src), 256
    return make


def aes(blocks):
    def make(rng):
        sb = aes_sbox()
        rk = aes_expand(rng.integers(0, 256, 16), sb)
        data = rng.integers(0, 2**32, (blocks, 4), dtype=np.uint64).astype(u32)
        return [aes_te0(sb), rk, data, np.zeros((blocks, 4), u32)], blocks, 256
    return make


def dna(pairs, tlen, interleaved):
    """32-letter DNA patterns (codes 0-3) and texts of ``tlen`` letters, each text holding a copy
    of its pattern with about one letter in ten changed; row-major or interleaved texts."""
    def make(rng):
        pat = rng.integers(0, 4, (pairs, 32)).astype(u8)
        text = rng.integers(0, 4, (pairs, tlen)).astype(u8)
        at = rng.integers(0, tlen - 32, pairs)
        copy = np.where(rng.random((pairs, 32)) < 0.1, rng.integers(0, 4, (pairs, 32)), pat).astype(u8)
        text[np.arange(pairs)[:, None], at[:, None] + np.arange(32)] = copy
        flat = np.ascontiguousarray(text.T).ravel() if interleaved else text.ravel()
        sp, sc = (1, pairs) if interleaved else (tlen, 1)
        return [pat, flat, i32(tlen), i32(sp), i32(sc), np.zeros(pairs, i32), np.zeros(pairs, i32)], pairs, 128
    return make


def sieve(numbers):
    """The base primes up to sqrt(numbers) and a count per segment of K.SEG numbers."""
    def make(rng):
        base = primes_upto(int(np.sqrt(numbers)) + 1).astype(i32)
        nseg = numbers // K.SEG
        return [base, np.zeros(nseg, i32)], nseg * 256, 256
    return make


def bitpacked(n, width):
    def make(rng):
        vals = rng.integers(0, 1 << width, n)
        base = rng.integers(-(1 << 20), 1 << 20, n // 128).astype(i32)
        return [pack_bits(vals, width), i32(width), base, np.zeros(n, i32)], n, 256
    return make


def water(n, dtype=f32):
    """Still water of depth 1 with Gaussian bumps, small random currents."""
    def make(rng):
        yy, xx = np.mgrid[0:n, 0:n] / n
        h = np.ones((n, n))
        for _ in range(8):
            cy, cx, r = rng.random(), rng.random(), rng.uniform(0.02, 0.08)
            h += 0.3 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / r ** 2)
        hu = 0.05 * rng.standard_normal((n, n))
        hv = 0.05 * rng.standard_normal((n, n))
        z = [np.zeros((n, n), dtype) for _ in range(3)]
        return [h.astype(dtype), hu.astype(dtype), hv.astype(dtype), f32(9.81), f32(0.05), *z], (n, n), (8, 32)
    return make


def wave(n):
    def make(rng):
        p = rng.standard_normal((n, n, n)).astype(f32)
        prev = rng.standard_normal((n, n, n)).astype(f32)
        vel2 = rng.uniform(0.05, 0.2, (n, n, n)).astype(f32)
        return [p, prev, vel2, np.zeros((n, n, n), f32)], (n - 8, n - 8, n - 8), (1, 8, 32)
    return make


def photons(n, nr=64, nz=64):
    """Photons into a medium of mu_a = 1 and mu_s = 9 per cm, g = 0.75; bins of 0.02 cm."""
    return lambda rng: ([u32(rng.integers(0, 2**32)), f32(1.0), f32(9.0), f32(0.75), f32(0.02), f32(0.02),
                         np.zeros((nz, nr), f32), np.zeros(nr, f32)], n, 256)


def heston(paths, steps):
    """An at-the-money one-year call under Heston (kappa 1.5, theta 0.04, xi 0.5, rho -0.7)."""
    return lambda rng: ([i32(steps), f32(1.0 / steps), f32(100.0), f32(0.04), f32(1.5), f32(0.04), f32(0.5),
                         f32(-0.7), f32(0.02), f32(100.0), u32(rng.integers(0, 2**32)), np.zeros(paths, f32),
                         np.zeros(1, f32)], paths, 256)


def lstm(batch, hidden, planar):
    def make(rng):
        pre = rng.standard_normal((batch, 4 * hidden)).astype(f32)
        bias = (0.1 * rng.standard_normal(4 * hidden)).astype(f32)
        c = rng.standard_normal((batch, hidden)).astype(f32)
        gs, us = (hidden, 1) if planar else (1, 4)
        return [pre, bias, c, i32(gs), i32(us), np.zeros((batch, hidden), f32), np.zeros((batch, hidden), f32)], \
            (batch, hidden), (1, 256)
    return make


def roi(rois, ch, size, nhwc, image=1024):
    """Features of ``ch`` channels on a size x size map (stride image / size) and random boxes of
    16 to 400 pixels a side."""
    def make(rng):
        f = rng.standard_normal((ch, size, size)).astype(f32)
        if nhwc:
            f = np.ascontiguousarray(f.transpose(1, 2, 0))
        x1 = rng.uniform(0, image - 16, rois)
        y1 = rng.uniform(0, image - 16, rois)
        x2 = np.minimum(x1 + rng.uniform(16, 400, rois), image)
        y2 = np.minimum(y1 + rng.uniform(16, 400, rois), image)
        box = np.stack([x1, y1, x2, y2], 1).astype(f32)
        n = rois * ch * KM.ROI_P ** 2
        return [f, box, f32(size / image), np.zeros(n, f32)], n, 256
    return make


def ldpc(nvar, sigma=0.8):
    """A random regular (3, 6) code of nvar variables (edges slot-major), the channel's LLRs of
    BPSK in Gaussian noise, and old check messages."""
    def make(rng):
        checks = nvar * 3 // KM.DC
        sock = rng.permutation(np.repeat(np.arange(nvar), 3))
        var = np.ascontiguousarray(sock.reshape(checks, KM.DC).T).astype(i32)
        y = 1.0 - 2.0 * rng.integers(0, 2, nvar) + sigma * rng.standard_normal(nvar)
        llr = (2.0 * y / sigma ** 2).astype(f32)
        r_in = (0.5 * rng.standard_normal((KM.DC, checks))).astype(f32)
        return [var, llr, r_in, f32(0.75), np.zeros((KM.DC, checks), f32)], checks, 256
    return make


def perlin(n, hashed, octaves=4):
    def make(rng):
        first = u32(rng.integers(0, 2**32)) if hashed else np.tile(rng.permutation(256), 2).astype(i32)
        return [first, f32(1.0 / 64), f32(0.37), i32(octaves), np.zeros((n, n), f32)], (n, n), (8, 32)
    return make


def corners_image(n, rng):
    """An 8-bit image of 64-pixel patches of random grey over a smooth gradient, each patch
    plain or textured (noise of 4 to 28 grey levels): about a fifth of the pixels pass FAST's
    rejection test at threshold 20 and 4% are corners."""
    coarse = rng.integers(0, 256, (n // 64 + 1, n // 64 + 1))
    blocks = np.kron(coarse, np.ones((64, 64)))[:n, :n]
    tex = np.kron(rng.choice([0.0, 0.0, 6.0, 12.0, 24.0], (n // 64 + 1, n // 64 + 1)), np.ones((64, 64)))[:n, :n]
    yy, xx = np.mgrid[0:n, 0:n]
    img = 0.5 * blocks + 64 + 30 * np.sin(xx / 300.0) * np.cos(yy / 200.0) + rng.normal(0, 1, (n, n)) * (4 + tex)
    return np.clip(img, 0, 255).astype(u8)


def fast(n, thr=20):
    return lambda rng: ([corners_image(n, rng), FAST_RING, i32(thr), np.zeros((n, n), u8)], (n, n), (8, 32))


def sgm(h, w, cols):
    """A cost volume (h, w, SGM_D) of bytes and one aggregation direction: along rows (a path a
    row) or down columns (a path a column); p1 = 8, p2 = 32."""
    def make(rng):
        cost = rng.integers(0, 64, h * w * KM.SGM_D).astype(u8)
        paths, ps, ss, length = (w, 1, w, h) if cols else (h, w, 1, w)
        return [cost, i32(ps), i32(ss), i32(length), i32(8), i32(32), np.zeros(h * w * KM.SGM_D, u16)], \
            paths * 32, 256
    return make


def normals(n, gather):
    def make(rng):
        pos, tri = grid_mesh(n, rng)
        nrm = np.zeros((n * n, 3), f32)
        if not gather:
            return [pos, tri, nrm], len(tri), 256
        flat = tri.ravel()
        order = np.argsort(flat, kind="stable")
        vptr = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=n * n))]).astype(i32)
        return [pos, tri, vptr, (order // 3).astype(i32), nrm], n * n, 256
    return make


LAUNCHES: list[Launch] = [
    # sparse formats
    Launch("spmv_dia@2048", K.spmv_dia, dia(2048), "dram"),
    Launch("spmv_jds@2048", K.spmv_jds, jds(2048), "dram"),
    Launch("spmv_dia@512", K.spmv_dia, dia(512), "launch"),
    # random access and graphs
    Launch("gups@256MB", K.gups_xor, gups(32 * M, 4 * M), "dram"),
    Launch("gups@4MB", K.gups_xor, gups(512 * 1024, 4 * M), "atomic"),
    Launch("boruvka_vertices@1M", K.boruvka_lightest, boruvka(1024, 0), "atomic"),
    Launch("boruvka_tiles@1M", K.boruvka_lightest, boruvka(1024, 32), "atomic"),
    # cryptography and strings
    Launch("aes_t4@4M", K.aes128_t4, aes(4 * M), "shared"),
    Launch("aes_t1@4M", K.aes128_t1, aes(4 * M), "shared"),
    Launch("aes_t4@64K", K.aes128_t4, aes(64 * 1024), "latency"),
    Launch("myers_rows@512Kx256", K.myers_search, dna(512 * 1024, 256, False), "l1"),
    Launch("myers_interleaved@512Kx256", K.myers_search, dna(512 * 1024, 256, True), "issue"),
    # integer sieving and unpacking
    Launch("sieve_bytes@32M", K.sieve_bytes, sieve(32 * M), "shared"),
    Launch("sieve_bits@32M", K.sieve_bits, sieve(32 * M), "shared"),
    Launch("unpack7@64M", K.bitunpack_for, bitpacked(64 * M, 7), "dram"),
    Launch("unpack21@64M", K.bitunpack_for, bitpacked(64 * M, 21), "dram"),
    # physics stencils
    Launch("swe@4096", K.shallow_water, water(K4), "dram"),
    Launch("swe_f64@4096", K.shallow_water, water(K4, f64), "dram"),
    Launch("wave3d_o8@256", K.wave3d_o8, wave(256), "l2"),
    # Monte Carlo
    Launch("photon_mc@128K", K.photon_mc, photons(128 * 1024), "atomic"),
    Launch("heston@64Kx256", K.heston_euler, heston(64 * 1024, 256), "latency"),
    Launch("heston@256Kx64", K.heston_euler, heston(256 * 1024, 64), "issue"),
    # ML operators
    Launch("lstm_interleaved@512x8192", KM.lstm_cell, lstm(512, 8192, False), "dram"),
    Launch("lstm_planar@512x8192", KM.lstm_cell, lstm(512, 8192, True), "dram"),
    Launch("roi_nchw@512x256", KM.roi_align_nchw, roi(512, 256, 64, False), "l1"),
    Launch("roi_nhwc@512x256", KM.roi_align_nhwc, roi(512, 256, 64, True), "l2"),
    # channel decoding
    Launch("ldpc_minsum@1M", KM.ldpc_minsum, ldpc(M), "l2"),
    Launch("ldpc_tanh@1M", KM.ldpc_tanh, ldpc(M), "issue"),
    # procedural noise
    Launch("perlin_table@2048", KM.perlin_table, perlin(2048, False), "l1"),
    Launch("perlin_hash@2048", KM.perlin_hash, perlin(2048, True), "issue"),
    # image analysis and stereo
    Launch("fast_full@4096", KM.fast9_full, fast(K4), "l1"),
    Launch("fast_early@4096", KM.fast9_early, fast(K4), "dram"),
    Launch("sgm_rows@1024x2048", KM.sgm_path, sgm(1024, 2048, False), "latency"),
    Launch("sgm_cols@1024x2048", KM.sgm_path, sgm(1024, 2048, True), "latency"),
    # geometry
    Launch("normals_scatter@1M", KM.normals_scatter, normals(1024, False), "atomic"),
    Launch("normals_gather@1M", KM.normals_gather, normals(1024, True), "l1"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("JDS / DIA, the same 5-point matrix 4M rows", "spmv_jds@2048", "spmv_dia@2048"),
    ("256 MB / 4 MB table, GUPS 16M updates", "gups@256MB", "gups@4MB"),
    ("32x32 tiles / single vertices as components, Boruvka 1024^2", "boruvka_tiles@1M", "boruvka_vertices@1M"),
    ("one table rotated / four tables, AES-128 64 MB", "aes_t1@4M", "aes_t4@4M"),
    ("row-major / interleaved texts, Myers search 512K", "myers_rows@512Kx256", "myers_interleaved@512Kx256"),
    ("bitmap with shared atomics / bytes, segmented sieve 32M", "sieve_bits@32M", "sieve_bytes@32M"),
    ("21-bit / 7-bit values, bit unpacking 64M", "unpack21@64M", "unpack7@64M"),
    ("fp64 / fp32 shallow water, 4096^2", "swe_f64@4096", "swe@4096"),
    ("256 steps x 64K / 64 steps x 256K paths, Heston", "heston@64Kx256", "heston@256Kx64"),
    ("gate-interleaved / gate-planar, LSTM cell", "lstm_interleaved@512x8192", "lstm_planar@512x8192"),
    ("NCHW / NHWC features, ROI Align 512 boxes", "roi_nchw@512x256", "roi_nhwc@512x256"),
    ("tanh rule / min-sum, LDPC check nodes 512K", "ldpc_tanh@1M", "ldpc_minsum@1M"),
    ("permutation table / hashed corners, Perlin fBm 2048^2", "perlin_table@2048", "perlin_hash@2048"),
    ("full test / early rejection, FAST-9 4096^2", "fast_full@4096", "fast_early@4096"),
    ("down columns / along rows, SGM aggregation", "sgm_cols@1024x2048", "sgm_rows@1024x2048"),
    ("atomic scatter / CSR gather, vertex normals 1M", "normals_scatter@1M", "normals_gather@1M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
