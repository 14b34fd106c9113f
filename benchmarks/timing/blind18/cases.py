"""The eighteenth blind validation set's launches: Giles' LIBOR market model (4K and 128K paths),
Dormand-Prince on Van der Pol oscillators (parameters shuffled or sorted), a batched Kalman filter
(fp64 and fp32), the polyphase filterbank's FIR (a thread an output, or a register ring a
channel), P1 finite-element assembly (by element with atomics, or by row) and product-quantisation
scans (one or four queries a block) (kernels.py); rANS decoding (a stream a thread, or 32
interleaved states a warp), Speck in counter mode (64-bit and 32-bit words), cuckoo hash lookups
(a table beyond the L2 and one within it), segment clipping (Cohen-Sutherland and Liang-Barsky),
the local entropy filter (windows from global memory or from a shared tile) and Count-Min
sketch updates (a narrow and a wide sketch) (kernels_apps.py), with seeded inputs, and the pairs
users compare.

To be measured once on an H200 (measure.sh here) and never used to fit or tune a constant of
the timing model (see README.md). Sizes aim at a few tens of microseconds to a few milliseconds
a launch on the GPU (estimated from the work and the bytes; not yet run on one).
"""
from __future__ import annotations

import math

import numpy as np

import simt as wp

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_apps as KA

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64
M = 1 << 20
K1 = 1024

LB_DELTA = 0.25                     # LIBOR: the period (years)
# LIBOR: the portfolio's swaptions, tenors in periods and strikes (all exercised at LB_NMAT)
LB_MAT = [4, 4, 4, 8, 8, 8, 20, 20, 20, 28, 28, 28, 40, 40, 40]
LB_STRIKE = [0.045, 0.05, 0.055] * 5
KF_PAR = (0.1, 1.0, 4.0, 4.0, 100.0)  # Kalman: dt, q, r, initial position and velocity variances
CLIP_BOX = (-1.0, -0.75, 1.0, 0.75)   # clipping: xmin, ymin, xmax, ymax
SPECK_KEY = {64: [0x1F1E1D1C1B1A1918, 0x1716151413121110], 32: [0x1B1A1918, 0x13121110, 0x0B0A0908, 0x03020100]}
SPECK_NONCE = {64: 0x0123456789ABCDEF, 32: 0x89ABCDEF}
SPECK_ROUNDS = {64: 32, 32: 27}


# ---- host-side functions -----------------------------------------------------------------------

def libor_curve():
    """The initial forward curve (4% rising to 5%) and the volatilities by time to fixing (25%
    falling to 15%), LB_NN each."""
    i = np.arange(K.LB_NN)
    l0 = 0.04 + 0.01 * (1.0 - np.exp(-i / 20.0))
    lam = 0.15 + 0.10 * np.exp(-i / 15.0)
    return l0.astype(f32), lam.astype(f32)


def tracks(n, nt, rng, dtype):
    """n constant-velocity tracks of nt positions (time-major, x and y beside each other): the
    truth from uniform starts on [0, 1000]^2, N(0, 10^2) velocities and white-noise accelerations
    of KF_PAR's q, measured with KF_PAR's r."""
    dt, q, r = KF_PAR[:3]
    acc = rng.standard_normal((nt, n, 2)).astype(f32) * f32(math.sqrt(q / dt))
    vel = rng.normal(0.0, 10.0, (n, 2)).astype(f32) + np.cumsum(acc, 0) * f32(dt)
    pos = rng.uniform(0.0, 1000.0, (n, 2)).astype(f32) + np.cumsum(vel, 0) * f32(dt)
    pos += rng.standard_normal((nt, n, 2)).astype(f32) * f32(math.sqrt(r))
    return pos.astype(dtype).ravel()


def pfb_prototype(ntap, nch):
    """The prototype low-pass of a PFB: a sinc of ntap lobes over ntap nch taps, Hamming
    windowed."""
    n = np.arange(ntap * nch)
    return (np.sinc((n - ntap * nch / 2) / nch) * np.hamming(ntap * nch)).astype(f32)


def p1_mesh(n, rng):
    """An n x n grid of vertices on the unit square (interior ones jittered by up to a quarter
    of the spacing), each cell cut into two counter-clockwise triangles; the coordinates, the
    triangles (row-major cells), log-normal element coefficients, and the vertices' CSR pattern
    (each vertex with its six neighbours, columns sorted)."""
    h = 1.0 / (n - 1)
    r, c = np.divmod(np.arange(n * n), n)
    xy = np.stack([c * h, r * h], 1)
    inner = (r > 0) & (r < n - 1) & (c > 0) & (c < n - 1)
    xy[inner] += rng.uniform(-0.25 * h, 0.25 * h, (int(inner.sum()), 2))
    cr, cc = np.divmod(np.arange((n - 1) ** 2), n - 1)
    v = cr * n + cc
    tri = np.stack([np.stack([v, v + 1, v + n + 1], 1), np.stack([v, v + n + 1, v + n], 1)], 1).reshape(-1, 3)
    kappa = np.exp(rng.normal(0.0, 0.5, len(tri)))
    offs = [-n - 1, -n, -1, 0, 1, n, n + 1]
    ok = [(r > 0) & (c > 0), r > 0, c > 0, np.ones(n * n, bool), c < n - 1, r < n - 1, (r < n - 1) & (c < n - 1)]
    valid = np.stack(ok, 1)
    cols = np.arange(n * n)[:, None] + np.array(offs)[None, :]
    row_ptr = np.concatenate([[0], np.cumsum(valid.sum(1))])
    return xy.astype(f32), tri.astype(i32), kappa.astype(f32), row_ptr.astype(i32), cols[valid].astype(i32)


def p1_vertex_elements(tri, nv):
    """For each vertex the triangles around it, as 3 e + its corner in e (grouped by vertex)."""
    ent = np.arange(tri.size)
    order = np.argsort(tri.ravel(), kind="stable")
    ptr = np.concatenate([[0], np.cumsum(np.bincount(tri.ravel(), minlength=nv))])
    return ptr.astype(i32), ent[order].astype(i32)


def pq_tables(nq, rng, d=32):
    """The distance tables of nq queries: 32-D vectors in PQ_M subspaces of 4, PQ_K Gaussian
    centroids a subspace, the squared distance of each query's subvector to each centroid."""
    sub = d // K.PQ_M
    cent = rng.standard_normal((K.PQ_M, K.PQ_K, sub))
    q = rng.standard_normal((nq, K.PQ_M, sub))
    lut = ((q[:, :, None, :] - cent[None]) ** 2).sum(3)
    return lut.astype(f32).ravel()


def rans_model():
    """The symbol frequencies (sum 4096) of a two-sided geometric law around 128 (scale 8), every
    symbol at least 1 (5.7 bits a symbol); the slot table (symbol | freq << 8 | cum << 20) and
    the slot-to-symbol map."""
    s = np.arange(256)
    p = np.exp(-np.abs(s - 128) / 8.0)
    f = np.maximum(1, np.floor(p / p.sum() * (1 << KA.RANS_SCALE))).astype(np.int64)
    f[128] += (1 << KA.RANS_SCALE) - f.sum()
    cum = np.concatenate([[0], np.cumsum(f)[:-1]])
    sym = np.repeat(s, f)
    tab = (sym | (f[sym] << 8) | (cum[sym] << 20)).astype(u32)
    return f, cum, tab, sym


def rans_symbols(rng, ns, lanes, nsym):
    """ns x lanes x nsym symbols of rans_model()'s law (a uniform slot's symbol), as bytes."""
    slot_sym = rans_model()[3].astype(np.uint8)
    return slot_sym[rng.integers(0, 1 << KA.RANS_SCALE, (ns, lanes, nsym), dtype=np.int16)]


def rans_encode(sym, f, cum):
    """rANS-encode sym (streams x lanes x steps: lane l's j-th symbol at [., l, j]), all streams
    and lanes at once, last symbol first: a 16-bit word emitted when the state would pass
    f << 20. The decoder takes the words back in the opposite order: after step j, the words
    the lanes emitted before encoding step j, in lane order. Returns each stream's words in that
    order (the lanes' final states, low half first, then the emitted words of step 0, step 1,
    ...) concatenated, and the streams' starts."""
    ns, nl, nsym = sym.shape
    steps = np.ascontiguousarray(sym.transpose(2, 0, 1))          # (step, stream, lane)
    f, cum = f.astype(np.uint64), cum.astype(np.uint64)
    x = np.full((ns, nl), KA.RANS_L, np.uint64)
    word = np.zeros((nsym, ns, nl), np.uint16)
    emitted = np.zeros((nsym, ns, nl), bool)
    for j in range(nsym - 1, -1, -1):
        fs = f[steps[j]]
        emit = x >= (fs << np.uint64(20))
        word[j] = x & np.uint64(0xFFFF)
        emitted[j] = emit
        x = np.where(emit, x >> np.uint64(16), x)
        q, r = np.divmod(x, fs)
        x = (q << np.uint64(KA.RANS_SCALE)) + r + cum[steps[j]]
    head = np.stack([x & np.uint64(0xFFFF), x >> np.uint64(16)], 2).reshape(ns, 2 * nl).astype(np.uint16)
    full = np.concatenate([head, word.transpose(1, 0, 2).reshape(ns, -1)], 1)
    keep = np.concatenate([np.ones((ns, 2 * nl), bool), emitted.transpose(1, 0, 2).reshape(ns, -1)], 1)
    start = np.concatenate([[0], np.cumsum(keep.sum(1))[:-1]])
    return full[keep], start.astype(i32)


def speck_round_keys(key, n, rounds):
    """Speck's key schedule for the key words as published (high word first), n-bit words:
    l_(i+m-1) = (k_i + (l_i >>> 8)) xor i, k_(i+1) = (k_i <<< 3) xor l_(i+m-1)."""
    mask = (1 << n) - 1
    kw = list(reversed(key))
    k, l = [kw[0]], kw[1:]
    for i in range(rounds - 1):
        l.append(((k[i] + ((l[i] >> 8) | (l[i] << (n - 8)))) & mask) ^ i)
        k.append((((k[i] << 3) | (k[i] >> (n - 3))) & mask) ^ l[-1])
    return k


def fmix32_np(h):
    """fmix32 (kernels_apps.py) on uint32 arrays."""
    h = h.astype(u32)
    h ^= h >> u32(16)
    h *= u32(0x85EBCA6B)
    h ^= h >> u32(13)
    h *= u32(0xC2B2AE35)
    h ^= h >> u32(16)
    return h


def cuckoo_slots(k, seed, bits):
    return (fmix32_np(k ^ u32(seed)) >> u32(32 - bits)).astype(np.int64)


def distinct_keys(n, salt):
    """n distinct uint32 keys (an invertible mix of 0..n-1 offset by salt), none CK_EMPTY."""
    k = (np.arange(n, dtype=np.uint64) + np.uint64(salt)).astype(u32)
    k = (k * u32(0x9E3779B1)).astype(u32)
    k ^= k >> u32(15)
    return k[k != u32(KA.CK_EMPTY)]


def cuckoo_build(keys, vals, bits, seeds, max_rounds=1000):
    """Insert keys by cuckoo hashing, all pending keys a round: each writes its current slot,
    one key a slot wins, the losers and the keys they displaced move on to their next hash
    function. Keys still pending after max_rounds are left out. Returns the table (key << 32 |
    value, CK_EMPTY keys where free) and the keys inserted."""
    size = 1 << bits
    table = np.full(size, np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64)
    pk, pv, pf = keys.astype(u32), vals.astype(u32), np.zeros(len(keys), np.int64)
    for _ in range(max_rounds):
        if not len(pk):
            break
        slot = np.empty(len(pk), np.int64)
        for h in range(KA.CK_HASHES):
            m = pf == h
            slot[m] = cuckoo_slots(pk[m], seeds[h], bits)
        old = table[slot]
        table[slot] = (pk.astype(np.uint64) << np.uint64(32)) | pv.astype(np.uint64)
        won = (table[slot] >> np.uint64(32)).astype(u32) == pk
        # each slot won once: the key it held before (if any) is displaced
        okey = (old[won] >> np.uint64(32)).astype(u32)
        oval = (old[won] & np.uint64(0xFFFFFFFF)).astype(u32)
        dis = okey != u32(KA.CK_EMPTY)
        okey, oval, oslot = okey[dis], oval[dis], slot[won][dis]
        of = np.zeros(len(okey), np.int64)
        for h in range(KA.CK_HASHES - 1, -1, -1):
            of[cuckoo_slots(okey, seeds[h], bits) == oslot] = h
        lose = ~won
        pk = np.concatenate([pk[lose], okey])
        pv = np.concatenate([pv[lose], oval])
        pf = np.concatenate([(pf[lose] + 1) % KA.CK_HASHES, (of + 1) % KA.CK_HASHES])
    stored = (table >> np.uint64(32)).astype(u32)
    return table, stored[stored != u32(KA.CK_EMPTY)]


def segments(n, rng):
    """n segments of a map-like scene: midpoints uniform on [-1.5, 1.5]^2, random directions,
    exponential lengths (mean 0.4); as (x0, y0, x1, y1)."""
    mid = rng.uniform(-1.5, 1.5, (n, 2))
    ang = rng.uniform(0.0, 2 * np.pi, n)
    half = 0.5 * rng.exponential(0.4, n)
    d = np.stack([np.cos(ang), np.sin(ang)], 1) * half[:, None]
    return np.concatenate([mid - d, mid + d], 1).astype(f32)


def grey_levels(h, w, rng):
    """An h x w image of ENT_BINS grey levels: 16 x 16 patches of random levels with noise of
    up to two levels on every pixel, clipped."""
    base = np.repeat(np.repeat(rng.integers(0, KA.ENT_BINS, (h // 16 + 1, w // 16 + 1)), 16, 0), 16, 1)[:h, :w]
    img = np.clip(base + rng.integers(-2, 3, (h, w)), 0, KA.ENT_BINS - 1)
    return img.astype(np.uint8)


def zipf_items(n, ndist, s, rng):
    """n items from a Zipf law of exponent s over ndist distinct random uint32 keys."""
    w = np.arange(1, ndist + 1, dtype=f64) ** -s
    cdf = np.cumsum(w)
    rank = np.searchsorted(cdf, rng.random(n) * cdf[-1])
    keys = rng.integers(0, 1 << 32, ndist, dtype=np.uint64).astype(u32)
    return keys[np.minimum(rank, ndist - 1)]


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def libor(npath):
    """npath paths of LB_NMAT N(0, 1) increments (time-major), libor_curve(), the portfolio;
    blocks of LB_BLOCK."""
    def make(rng):
        z = rng.standard_normal((K.LB_NMAT, npath)).astype(f32)
        l0, lam = libor_curve()
        return ([z, lam, l0, np.array(LB_MAT, i32), np.array(LB_STRIKE, f32), f32(LB_DELTA), np.zeros(npath, f32)],
                npath, K.LB_BLOCK)
    return make


def dopri(n, ordered, t_end=10.0, tol=1e-6):
    """n values of mu uniform on [1, 100], sorted or in random order; blocks of 128."""
    def make(rng):
        mu = rng.uniform(1.0, 100.0, n)
        if ordered:
            mu = np.sort(mu)
        return [mu, f64(t_end), f64(tol), np.zeros((n, 2), f64), np.zeros(n, i32)], n, 128
    return make


def kalman(n, nt, dtype):
    """tracks(n, nt) and KF_PAR in dtype; blocks of 128."""
    def make(rng):
        return ([tracks(n, nt, rng, dtype), np.array(KF_PAR, dtype), i32(nt), np.zeros(4 * n, dtype),
                 np.zeros(n, dtype)], n, 128)
    return make


def pfb(nch, nspec, ring):
    """nspec spectra of nch channels of N(0, 1) samples (and PFB_P - 1 more), the prototype
    filter; a thread an output (direct) or a channel and PFB_SEG spectra (ring); blocks of
    256."""
    def make(rng):
        x = rng.standard_normal((nspec + K.PFB_P - 1) * nch).astype(f32)
        h = pfb_prototype(K.PFB_P, nch)
        n = nspec // K.PFB_SEG * nch if ring else nspec * nch
        return [x, h, i32(nch), np.zeros(nspec * nch, f32)], n, 256
    return make


FEM_T = {0: wp.vec2}


def fem(n, by_row):
    """p1_mesh(n): by element (a thread a triangle) or by row (a thread a vertex, with the
    vertex-to-triangle lists); blocks of 128."""
    def make(rng):
        xy, tri, kappa, row_ptr, col = p1_mesh(n, rng)
        vals = np.zeros(len(col), f32)
        if by_row:
            ptr, ent = p1_vertex_elements(tri, n * n)
            return [xy, tri, kappa, row_ptr, col, ptr, ent, vals], n * n, 128
        return [xy, tri, kappa, row_ptr, col, vals], len(tri), 128
    return make


def pq(nq, ncode, nchunk, per_block):
    """ncode uniformly random PQ codes (two words each), pq_tables(nq), nchunk chunks; a block
    of PQ_BLOCK threads a (query, chunk), or a (group of PQ_QB queries, chunk)."""
    def make(rng):
        codes = rng.integers(0, 1 << 32, (ncode, 2), dtype=np.uint64).astype(u32)
        lut = pq_tables(nq, rng)
        nblk = nq // per_block * nchunk
        return ([codes, lut, i32(nchunk), np.zeros(nq * nchunk, f32), np.zeros(nq * nchunk, i32)],
                nblk * K.PQ_BLOCK, K.PQ_BLOCK)
    return make


def rans(nstream, nsym, warp):
    """nstream streams of symbols drawn from rans_model()'s law, encoded by rans_encode: nsym a
    thread (a stream a thread) or 32 lanes of nsym (a stream a warp); blocks of 256."""
    def make(rng):
        f, cum, tab, _ = rans_model()
        sym = rans_symbols(rng, nstream, 32 if warp else 1, nsym)
        words, start = rans_encode(sym, f, cum)
        if warp:
            return [words, start, tab, i32(nsym), np.zeros(nstream * 32 * nsym, np.uint8)], nstream * 32, 256
        return [words, start, tab, i32(nsym), np.zeros(nstream * nsym // 4, u32)], nstream, 256
    return make


def speck(nbytes, wbits):
    """nbytes of random plaintext in wbits-bit words, Speck's round keys of SPECK_KEY, the
    nonce; a thread a block of two words, blocks of 256."""
    def make(rng):
        dt = u64 if wbits == 64 else u32
        nw = nbytes // (wbits // 8)
        pt = rng.integers(0, 1 << wbits, nw, dtype=np.uint64).astype(dt)
        rk = np.array(speck_round_keys(SPECK_KEY[wbits], wbits, SPECK_ROUNDS[wbits]), dt)
        return [pt, rk, np.array([SPECK_NONCE[wbits]], dt), i32(wbits), np.zeros(nw, dt)], nw // 2, 256
    return make


def cuckoo(bits, load, nquery, seeds=(0x3C6EF372, 0xA54FF53A, 0x510E527F)):
    """A cuckoo table of 2^bits slots filled to `load` with random values, and nquery queries,
    half of them inserted keys (uniformly), half keys never inserted, in random order; blocks
    of 256."""
    def make(rng):
        keys = distinct_keys(int(load * (1 << bits)) + nquery // 2, int(rng.integers(0, 1 << 31)))
        ins, absent = keys[:-(nquery // 2)], keys[-(nquery // 2):]
        vals = rng.integers(0, 1 << 32, len(ins), dtype=np.uint64).astype(u32)
        table, stored = cuckoo_build(ins, vals, bits, seeds)
        q = np.concatenate([stored[rng.integers(0, len(stored), nquery - nquery // 2)], absent])
        q = q[rng.permutation(nquery)]
        return [table, np.array(seeds, u32), i32(bits), q, np.zeros(nquery, u32)], nquery, 256
    return make


CLIP_T = {0: wp.vec4, 5: wp.vec4}


def clip(n):
    """segments(n), CLIP_BOX; blocks of 256."""
    def make(rng):
        return [segments(n, rng), *(f32(b) for b in CLIP_BOX), np.zeros((n, 4), f32), np.zeros(n, i32)], n, 256
    return make


def entropy(h, w):
    """grey_levels(h, w); blocks of ENT_BY x ENT_BX."""
    def make(rng):
        return [grey_levels(h, w, rng), np.zeros((h, w), f32)], (h, w), (KA.ENT_BY, KA.ENT_BX)
    return make


def cms(n, bits, ndist=M, s=0.9):
    """n items of zipf_items(n, ndist, s), CMS_D random odd multipliers and offsets, a zeroed
    sketch of CMS_D x 2^bits counters; blocks of 256."""
    def make(rng):
        items = zipf_items(n, ndist, s, rng)
        ha = (rng.integers(0, 1 << 32, KA.CMS_D, dtype=np.uint64) | np.uint64(1)).astype(u32)
        hb = rng.integers(0, 1 << 32, KA.CMS_D, dtype=np.uint64).astype(u32)
        return [items, ha, hb, i32(bits), np.zeros(KA.CMS_D << bits, i32)], n, 256
    return make


LAUNCHES: list[Launch] = [
    # LIBOR, Dormand-Prince, Kalman
    Launch("libor@4K", K.libor_path, libor(4 * K1), "latency"),
    Launch("libor@128K", K.libor_path, libor(128 * K1), "l1"),
    Launch("dopri_shuffled@32K", K.dopri5_vdp, dopri(32 * K1, False), "fp64"),
    Launch("dopri_sorted@32K", K.dopri5_vdp, dopri(32 * K1, True), "fp64"),
    Launch("kalman_f64@64Kx256", K.kalman_cv, kalman(64 * K1, 256, f64), "fp64"),
    Launch("kalman_f32@64Kx256", K.kalman_cv, kalman(64 * K1, 256, f32), "issue"),
    # polyphase filterbank, P1 assembly, product quantisation
    Launch("pfb_direct@4Kx4K", K.pfb_direct, pfb(4 * K1, 4 * K1, False), "l2"),
    Launch("pfb_ring@4Kx4K", K.pfb_ring, pfb(4 * K1, 4 * K1, True), "dram"),
    Launch("fem_elem@1024", K.fem_assemble_elem, fem(1024, False), "atomic", FEM_T),
    Launch("fem_row@1024", K.fem_assemble_row, fem(1024, True), "l1", FEM_T),
    Launch("pq_q1@64x2M", K.pq_scan_q1, pq(64, 2 * M, 32, 1), "shared"),
    Launch("pq_q4@64x2M", K.pq_scan_q4, pq(64, 2 * M, 32, K.PQ_QB), "shared"),
    # rANS, Speck, cuckoo hashing
    Launch("rans_thread@64M", KA.rans_thread, rans(64 * K1, 1024, False), "l1"),
    Launch("rans_warp@64M", KA.rans_warp, rans(2 * K1, 1024, True), "latency"),
    Launch("speck128@128MB", KA.speck_ctr, speck(128 * M, 64), "issue"),
    Launch("speck64@128MB", KA.speck_ctr, speck(128 * M, 32), "issue"),
    Launch("cuckoo_dram@8M", KA.cuckoo_lookup, cuckoo(24, 0.6, 8 * M), "dram"),
    Launch("cuckoo_l2@8M", KA.cuckoo_lookup, cuckoo(21, 0.6, 8 * M), "l2"),
    # clipping, local entropy, Count-Min
    Launch("clip_cs@16M", KA.clip_cs, clip(16 * M), "dram", CLIP_T),
    Launch("clip_lb@16M", KA.clip_lb, clip(16 * M), "dram", CLIP_T),
    Launch("entropy_global@4K", KA.entropy_global, entropy(4 * K1, 4 * K1), "l1"),
    Launch("entropy_tiled@4K", KA.entropy_tiled, entropy(4 * K1, 4 * K1), "shared"),
    Launch("cms_narrow@8M", KA.cms_update, cms(8 * M, 10), "atomic"),
    Launch("cms_wide@8M", KA.cms_update, cms(8 * M, 20), "atomic"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("128K / 4K paths, LIBOR market model 80 rates x 40 steps", "libor@128K", "libor@4K"),
    ("shuffled / sorted mu, Dormand-Prince Van der Pol 32K oscillators", "dopri_shuffled@32K", "dopri_sorted@32K"),
    ("fp64 / fp32, Kalman filter 64K tracks x 256 steps", "kalman_f64@64Kx256", "kalman_f32@64Kx256"),
    ("direct / register ring, polyphase FIR 4K channels x 4K spectra x 16 taps", "pfb_direct@4Kx4K", "pfb_ring@4Kx4K"),
    ("by element (atomics) / by row, P1 assembly 1024^2 vertices", "fem_elem@1024", "fem_row@1024"),
    ("one / four queries a block, PQ scan 64 queries x 2M codes", "pq_q1@64x2M", "pq_q4@64x2M"),
    ("a stream a thread / 32 interleaved states a warp, rANS decoding 64M symbols", "rans_thread@64M",
     "rans_warp@64M"),
    ("64-bit / 32-bit words, Speck CTR 128 MB", "speck128@128MB", "speck64@128MB"),
    ("2^24 / 2^21 slots, cuckoo lookups 8M queries", "cuckoo_dram@8M", "cuckoo_l2@8M"),
    ("Cohen-Sutherland / Liang-Barsky, clipping 16M segments", "clip_cs@16M", "clip_lb@16M"),
    ("global / shared tile, local entropy 4096^2", "entropy_global@4K", "entropy_tiled@4K"),
    ("2^10 / 2^20 counters a row, Count-Min 8M items", "cms_narrow@8M", "cms_wide@8M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
