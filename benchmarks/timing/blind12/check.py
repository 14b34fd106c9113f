"""Check every kernel of the twelfth blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind12/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind12 import cases as C  # noqa: E402
from timing.blind12 import kernels as K  # noqa: E402
from timing.blind12 import kernels_media as KM  # noqa: E402

f32, f64, i32, u8, u32, U64 = np.float32, np.float64, np.int32, np.uint8, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (the order of atomics, a rounding at a boundary).


def fmix32(h):
    h = h.astype(u32)
    h = h ^ (h >> u32(16))
    h = h * u32(0x85EBCA6B)
    h = h ^ (h >> u32(13))
    h = h * u32(0xC2B2AE35)
    return h ^ (h >> u32(16))


# ---- machine learning and data systems --------------------------------------------------------------

def ref_forest_dense(v):
    x, feat, thr, leaf, depth, _ = v
    n = len(x)
    rows = np.arange(n)
    first = (1 << int(depth)) - 1
    s = np.zeros(n, f32)
    for t in range(feat.shape[0]):
        node = np.zeros(n, np.int64)
        for _ in range(int(depth)):
            node = 2 * node + 1 + (x[rows, feat[t, node]] > thr[t, node])
        s += leaf[t, node - first]
    return {5: s}


def ref_forest_sparse(v):
    x, feat, thr, left, root, _ = v
    n = len(x)
    rows = np.arange(n)
    s = np.zeros(n, f32)
    for r in root:
        node = np.full(n, r, np.int64)
        while True:
            inner = feat[node] >= 0
            if not inner.any():
                break
            go = x[rows, np.maximum(feat[node], 0)] > thr[node]
            node = np.where(inner, left[node] + go, node)
        s += thr[node]
    return {5: s}


def ref_hll(v):
    items, _, reg = v
    h = fmix32(items)
    idx = (h >> u32(32 - K.HLL_P)).astype(np.int64)
    w = (h << u32(K.HLL_P)).astype(np.int64)
    bl = np.zeros(len(w), np.int64)
    for k in range(32):
        bl = np.where((w >> k) != 0, k + 1, bl)
    rank = np.minimum(32 - bl, 32 - K.HLL_P) + 1
    want = np.zeros(len(reg), np.int64)
    np.maximum.at(want, idx, rank)
    return {2: want.astype(i32)}


def ref_spgemm(v):
    arow, acol, brow, bcol = v[:4]
    n = len(arow) - 1
    ai = np.repeat(np.arange(n), np.diff(arow))
    blen = np.diff(brow)[acol]
    ci = np.repeat(ai, blen)
    start = np.repeat(brow[acol], blen)
    within = np.arange(len(ci)) - np.repeat(np.cumsum(blen) - blen, blen)
    cc = bcol[start + within]
    key = np.unique(ci.astype(np.int64) * n + cc)
    return {len(v) - 1: np.bincount(key // n, minlength=n).astype(i32)}


def ref_varint(v):
    data, offs, _ = v
    u = np.zeros(len(offs), np.int64)
    going = np.ones(len(offs), bool)
    for k in range(5):
        b = data[offs + k].astype(np.int64)
        u |= np.where(going, (b & 0x7F) << (7 * k), 0)
        going &= b >= 128
    return {2: ((u >> 1) ^ -(u & 1)).astype(i32)}


# ---- cryptography ----------------------------------------------------------------------------------------

def ref_ntt(v):
    a, tw = v[0].astype(np.int64), v[1].astype(np.int64)
    logh, shift = int(v[-2]), int(v[-1])
    p = K.NTT_P
    b = np.arange(len(a) // 2)
    h = 1 << logh
    j = b & (h - 1)
    i0 = ((b >> logh) << (logh + 1)) + j
    i1 = i0 + h
    w = tw[j << shift]
    u, x = a[i0], a[i1] * w % p
    out = a.copy()
    out[i0] = (u + x) % p
    out[i1] = (u - x) % p
    return {0: out.astype(u32)}


def rotl(x, r):
    return (x << U64(r)) | (x >> U64(64 - r))


def sipround(v0, v1, v2, v3):
    v0 = v0 + v1
    v1 = rotl(v1, 13) ^ v0
    v0 = rotl(v0, 32)
    v2 = v2 + v3
    v3 = rotl(v3, 16) ^ v2
    v0 = v0 + v3
    v3 = rotl(v3, 21) ^ v0
    v2 = v2 + v1
    v1 = rotl(v1, 17) ^ v2
    v2 = rotl(v2, 32)
    return v0, v1, v2, v3


def siphash_np(words, k0, k1, c, d, nbytes):
    """SipHash-c-d of messages of whole 64-bit words (``words``: (n, nw) uint64; ``nbytes`` =
    8 nw)."""
    n = len(words)
    k0, k1 = U64(k0), U64(k1)
    v0 = np.full(n, k0 ^ U64(0x736F6D6570736575))
    v1 = np.full(n, k1 ^ U64(0x646F72616E646F6D))
    v2 = np.full(n, k0 ^ U64(0x6C7967656E657261))
    v3 = np.full(n, k1 ^ U64(0x7465646279746573))
    blocks = [words[:, w] for w in range(words.shape[1])] + [np.full(n, U64(nbytes << 56))]
    for m in blocks:
        v3 = v3 ^ m
        for _ in range(c):
            v0, v1, v2, v3 = sipround(v0, v1, v2, v3)
        v0 = v0 ^ m
    v2 = v2 ^ U64(0xFF)
    for _ in range(d):
        v0, v1, v2, v3 = sipround(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


# the reference against the published SipHash-2-4 vector (key 00..0f, the empty message)
assert int(siphash_np(np.zeros((1, 0), U64), 0x0706050403020100, 0x0F0E0D0C0B0A0908, 2, 4, 0)[0]) \
    == 0x726FDB47DD0E0E31


def ref_sip(v):
    msg, k0, k1, c, d, _ = v
    return {5: siphash_np(msg, int(k0), int(k1), int(c), int(d), 8 * msg.shape[1])}


# ---- bioinformatics ----------------------------------------------------------------------------------------

def ref_beagle(v):
    l1, l2, p1, p2, _ = v
    want = np.einsum("ckj,csj->csk", p1.astype(f64), l1) * np.einsum("ckj,csj->csk", p2.astype(f64), l2)
    return {4: want}


def ref_mz(v):
    seq, out = v
    n = len(seq)
    nk = n - K.MZ_K + 1
    code = np.zeros(nk, np.int64)
    for q in range(K.MZ_K):
        code = (code << 2) | seq[q:q + nk]
    h = fmix32(code.astype(u32))
    win = np.lib.stride_tricks.sliding_window_view(h, K.MZ_W).min(1)
    return {1: win[:len(out)].astype(u32)}


# ---- quantum Monte Carlo ------------------------------------------------------------------------------------

def bspline_weights(t):
    t = t.astype(f64)
    return np.stack([(1 - t) ** 3, 3 * t ** 3 - 6 * t ** 2 + 4, -3 * t ** 3 + 3 * t ** 2 + 3 * t + 1, t ** 3], 1) / 6


def ref_orbitals(v):
    coef, nx, ny, nz, norb, pos, _, val = v
    c4 = coef.reshape(int(nx), int(ny), int(nz), int(norb)).astype(f64)
    i = np.floor(pos).astype(np.int64)
    w = [bspline_weights(pos[:, k] - i[:, k]) for k in range(3)]
    want = np.zeros(val.shape)
    for a in range(4):
        for b in range(4):
            for c in range(4):
                wt = w[0][:, a] * w[1][:, b] * w[2][:, c]
                want += wt[:, None] * c4[i[:, 0] + a, i[:, 1] + b, i[:, 2] + c]
    return {7: want}


# ---- tomography, vision, flow, physics, radar, geometry, networks -------------------------------------------

def backproject_np(sino, cos_t, sin_t, scale, n):
    nd = sino.shape[1]
    c0, d0 = 0.5 * (n - 1), 0.5 * (nd - 1)
    py, px = np.mgrid[0:n, 0:n].astype(f64) - c0
    img = np.zeros((n, n))
    for a in range(len(cos_t)):
        t = px * cos_t[a] + py * sin_t[a] + d0
        i0 = np.floor(t).astype(np.int64)
        f = t - i0
        ok = (i0 >= 0) & (i0 < nd - 1)
        i0c = np.clip(i0, 0, nd - 2)
        img += np.where(ok, sino[a, i0c] * (1 - f) + sino[a, i0c + 1] * f, 0.0)
    return img * scale


def ref_bp_trig(v):
    sino, dth, scale, img = v
    th = np.arange(sino.shape[0]) * float(dth)
    return {3: backproject_np(sino, np.cos(th), np.sin(th), float(scale), img.shape[0])}


def ref_bp_table(v):
    sino, cos_t, sin_t, scale, img = v
    return {4: backproject_np(sino, cos_t, sin_t, float(scale), img.shape[0])}


def ref_harris(v):
    img, k, _ = v
    h, w = img.shape
    p = np.pad(img.astype(f64), 1, mode="edge")

    def at(dy, dx):
        return p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    gx = at(-1, 1) + 2 * at(0, 1) + at(1, 1) - at(-1, -1) - 2 * at(0, -1) - at(1, -1)
    gy = at(1, -1) + 2 * at(1, 0) + at(1, 1) - at(-1, -1) - 2 * at(-1, 0) - at(-1, 1)
    r = KM.HR

    def box(a):
        q = np.pad(a, r, mode="edge")
        return sum(q[r + dy:r + dy + h, r + dx:r + dx + w] for dy in range(-r, r + 1) for dx in range(-r, r + 1))
    sxx, syy, sxy = box(gx * gx), box(gy * gy), box(gx * gy)
    return {2: sxx * syy - sxy * sxy - float(k) * (sxx + syy) ** 2}


def ref_rk4(v):
    vel, seeds, nsteps, dt, _ = v
    ny, nx = vel.shape[:2]
    dt = f32(dt)

    def at(x, y):
        x = np.clip(x, f32(0), f32(nx - 1) - f32(0.001))
        y = np.clip(y, f32(0), f32(ny - 1) - f32(0.001))
        i, j = y.astype(np.int64), x.astype(np.int64)
        fy, fx = (y - i).astype(f32)[:, None], (x - j).astype(f32)[:, None]
        q = ((vel[i, j] * (1 - fx) + vel[i, j + 1] * fx) * (1 - fy)
             + (vel[i + 1, j] * (1 - fx) + vel[i + 1, j + 1] * fx) * fy)
        return q[:, 0], q[:, 1]
    x, y = seeds[:, 0].copy(), seeds[:, 1].copy()
    h = f32(0.5) * dt
    for _ in range(int(nsteps)):
        u1, v1 = at(x, y)
        u2, v2 = at(x + h * u1, y + h * v1)
        u3, v3 = at(x + h * u2, y + h * v2)
        u4, v4 = at(x + dt * u3, y + dt * v3)
        x = x + dt * f32(0.16666667) * (u1 + 2 * u2 + 2 * u3 + u4)
        y = y + dt * f32(0.16666667) * (v1 + 2 * v2 + 2 * v3 + v4)
    return {4: np.stack([x, y], 1)}


def cloth_forces(pos, springs, rest, ks):
    p = pos.astype(f64)
    d = p[springs[:, 1]] - p[springs[:, 0]]
    ln = np.sqrt((d * d).sum(1))
    f = d * (ks * (ln - rest) / ln)[:, None]
    out = np.zeros_like(p)
    np.add.at(out, springs[:, 0], f)
    np.add.at(out, springs[:, 1], -f)
    return out


def ref_cloth_gather(v):
    pos, n, h, ks, _ = v
    springs, rest = C.cloth_springs(int(n), h)
    return {4: cloth_forces(pos, springs, rest.astype(f64), float(ks))}


def ref_cloth_scatter(v):
    pos, springs, rest, ks, _ = v
    return {4: cloth_forces(pos, springs, rest.astype(f64), float(ks))}


def cfar_np(pw, alpha):
    nd, nr = pw.shape
    g, t = KM.CF_GUARD, KM.CF_TRAIN
    cum = np.concatenate([np.zeros((nd, 1)), np.cumsum(pw.astype(f64), 1)], 1)
    r = np.arange(g + t, nr - g - t)
    noise = np.zeros((nd, nr))
    noise[:, r] = ((cum[:, r - g] - cum[:, r - g - t]) + (cum[:, r + g + t + 1] - cum[:, r + g + 1])) / (2 * t)
    det = np.zeros((nd, nr), u8)
    det[:, r] = pw[:, r] > float(alpha) * noise[:, r]
    return noise, det


def ref_cfar_direct(v):
    pw, alpha, _, _ = v
    noise, det = cfar_np(pw, alpha)
    return {2: noise, 3: det}


def ref_cfar_prefix(v):
    pw, _, alpha, _, _ = v
    noise, det = cfar_np(pw, alpha)
    return {3: noise, 4: det}


def ref_bezier(v):
    ctrl, out = v
    r = KM.BZ_RES
    q = np.arange(r * r)
    u, w = (q % r) / (r - 1), (q // r) / (r - 1)

    def bern(t):
        return np.stack([(1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3], 1)
    wt = (bern(w)[:, :, None] * bern(u)[:, None, :]).reshape(r * r, 16)
    want = np.einsum("qk,pkc->pqc", wt, ctrl.astype(f64)).reshape(-1, 3)
    return {1: want}


def ref_wino(v):
    x, tiles, se, sc, st, out = v
    bt = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], f64)
    ch = x.shape[0]
    tiles = int(tiles)
    want = np.zeros(out.shape)
    ty, tx = np.divmod(np.arange(tiles * tiles), tiles)
    for c in range(ch):
        d = x[c][2 * ty[:, None, None] + np.arange(4)[None, :, None], 2 * tx[:, None, None] + np.arange(4)[None, None, :]]
        vv = np.einsum("ia,tab,jb->tij", bt, d.astype(f64), bt).reshape(-1, 16)
        t = np.arange(tiles * tiles)
        for e in range(16):
            want[e * int(se) + c * int(sc) + t * int(st)] = vv[:, e]
    return {5: want}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("fil_dense", K.forest_dense, C.forest(512, 8, 6, 16, False), ""), ref_forest_dense, 1e-5),
    (L("fil_sparse", K.forest_sparse, C.forest(512, 8, 6, 16, True), ""), ref_forest_sparse, 1e-5),
    (L("hll_global", K.hll_global, C.hll(1 << 16, 4096, 1024, False), ""), ref_hll, 0),
    (L("hll_shared", K.hll_shared, C.hll(1 << 16, 4096, 1024, True), ""), ref_hll, 0),
    (L("spgemm_global", K.spgemm_count_global, C.spgemm(2048, False), ""), ref_spgemm, 0),
    (L("spgemm_shared", K.spgemm_count_shared, C.spgemm(2048, True), ""), ref_spgemm, 0),
    (L("varint_mixed", K.varint_decode, C.varint(20000, False), ""), ref_varint, 0),
    (L("varint_small", K.varint_decode, C.varint(20000, True), ""), ref_varint, 0),
    (L("ntt_mod", K.ntt_stage_mod, C.ntt(12, 3, False), ""), ref_ntt, 0),
    (L("ntt_shoup", K.ntt_stage_shoup, C.ntt(12, 3, True), ""), ref_ntt, 0),
    (L("ntt_shoup_wide", K.ntt_stage_shoup, C.ntt(12, 11, True), ""), ref_ntt, 0),
    (L("siphash24", K.siphash, C.sip(4096, 2, 4), ""), ref_sip, 0),
    (L("siphash13", K.siphash, C.sip(4096, 1, 3), ""), ref_sip, 0),
    (L("beagle_site", K.beagle_site, C.beagle(2, 2048, False), ""), ref_beagle, 1e-5),
    (L("beagle_state", K.beagle_state, C.beagle(2, 2048, True), ""), ref_beagle, 1e-5),
    (L("mz_window", K.minimizer_window, C.minimizers(20000, False), ""), ref_mz, 0),
    (L("mz_rolling", K.minimizer_rolling, C.minimizers(20000, True), ""), ref_mz, 0),
    (L("qmc_orb_lanes", K.spline_orbitals, C.orbitals(8, 32, 64, 1), ""), ref_orbitals, 1e-4),
    (L("qmc_pos_lanes", K.spline_orbitals, C.orbitals(8, 32, 64, 0), ""), ref_orbitals, 1e-4),
    (L("bp_trig", KM.backproject_trig, C.backproj(64, 45, False), ""), ref_bp_trig, 1e-3),
    (L("bp_table", KM.backproject_table, C.backproj(64, 45, True), ""), ref_bp_table, 1e-3),
    (L("harris_direct", KM.harris_direct, C.harris(64, False), ""), ref_harris, 1e-4),
    (L("harris_tiled", KM.harris_tiled, C.harris(64, True), ""), ref_harris, 1e-4),
    (L("rk4_sorted", KM.rk4_advect, C.advect(128, 1024, 8, False), ""), ref_rk4, 1e-3),
    (L("rk4_shuffled", KM.rk4_advect, C.advect(128, 1024, 8, True), ""), ref_rk4, 1e-3),
    (L("cloth_gather", KM.cloth_gather, C.cloth(48, False), ""), ref_cloth_gather, 1e-4),
    (L("cloth_scatter", KM.cloth_scatter, C.cloth(48, True), ""), ref_cloth_scatter, 1e-4),
    (L("cfar_direct", KM.cfar_direct, C.cfar(16, 1024, False), ""), ref_cfar_direct, 1e-4),
    (L("cfar_prefix", KM.cfar_prefix, C.cfar(16, 1024, True), ""), ref_cfar_prefix, 1e-4),
    (L("bz_casteljau", KM.bezier_casteljau, C.bezier(64), ""), ref_bezier, 1e-4),
    (L("bz_bernstein", KM.bezier_bernstein, C.bezier(64), ""), ref_bezier, 1e-4),
    (L("wino_elem", KM.winograd_input, C.winograd(4, 8, False), ""), ref_wino, 1e-5),
    (L("wino_tile", KM.winograd_input, C.winograd(4, 8, True), ""), ref_wino, 1e-5),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
