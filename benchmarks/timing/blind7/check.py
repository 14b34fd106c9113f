"""Check every kernel of the seventh blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind7/check.py [names] [--device cuda]
"""
from __future__ import annotations

import base64
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind7 import cases as C  # noqa: E402
from timing.blind7 import kernels as K  # noqa: E402

f32, f64, u32, U64 = np.float32, np.float64, np.uint32, np.uint64
hash32 = C.hash32
MASK = U64(0xFFFFFFFF)


def unit24(x):
    return (x >> 8).astype(f64) * 5.9604644775390625e-08


# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result's order is the atomics' (a hash table's slots, an expert's list).

# ---- random number generators ------------------------------------------------------------------

def ref_philox(v):
    seed, out = v
    c = [np.arange(len(out) // 4, dtype=U64), *(np.zeros(len(out) // 4, U64) for _ in range(3))]
    k0, k1 = U64(seed), U64(0x5A5A5A5A)
    for _ in range(10):
        p0 = c[0] * U64(0xD2511F53)
        p1 = c[2] * U64(0xCD9E8D57)
        c = [(p1 >> U64(32)) ^ c[1] ^ k0, p1 & MASK, (p0 >> U64(32)) ^ c[3] ^ k1, p0 & MASK]
        k0 = (k0 + U64(0x9E3779B9)) & MASK
        k1 = (k1 + U64(0xBB67AE85)) & MASK
    return {1: np.stack([unit24(x) for x in c], 1).ravel()}


def ref_xorwow(v):
    st, out = v
    x, y, z, w, vv, d = (s.astype(U64) for s in st)
    o = np.empty((len(x), 4))
    for k in range(4):
        t = x ^ (x >> U64(2))
        x, y, z, w = y, z, w, vv
        vv = ((vv ^ (vv << U64(4))) ^ (t ^ (t << U64(1)))) & MASK
        d = (d + U64(362437)) & MASK
        o[:, k] = unit24((vv + d) & MASK)
    return {1: o.ravel(), 0: np.stack([x, y, z, w, vv, d]).astype(u32)}


# ---- finance -----------------------------------------------------------------------------------

def ref_ivol(v):
    s, k, t, p, r, _ = (np.asarray(a, f64) for a in v)
    lo, hi = np.full(len(s), 0.001), np.full(len(s), 5.0)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        up = C.bs_call(s, k, t, float(r), mid) > p
        hi, lo = np.where(up, mid, hi), np.where(up, lo, mid)
    return {5: 0.5 * (lo + hi)}


# ---- cryptography and encoding ------------------------------------------------------------------

def ref_chacha(v):
    key, nonce, rounds, src, _ = v
    nb = src.shape[0]
    st = np.zeros((16, nb), U64)
    st[0:4] = np.array([0x61707865, 0x3320646E, 0x79622D32, 0x6B206574], U64)[:, None]
    st[4:12] = key.astype(U64)[:, None]
    st[12] = np.arange(nb, dtype=U64)
    st[13:16] = nonce.astype(U64)[:, None]
    x = st.copy()

    def rot(a, n):
        return ((a << U64(n)) | (a >> U64(32 - n))) & MASK

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & MASK
        x[d] = rot(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & MASK
        x[b] = rot(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & MASK
        x[d] = rot(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & MASK
        x[b] = rot(x[b] ^ x[c], 7)
    for _ in range(int(rounds) // 2):
        for q in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                  (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
            qr(*q)
    ks = ((x + st) & MASK).T
    return {4: (src.astype(U64) ^ ks).astype(u32)}


def ref_base64(v):
    src, _, _ = v
    return {2: np.frombuffer(base64.b64encode(src.tobytes()), np.uint8)}


# ---- spatial indexing --------------------------------------------------------------------------

def ref_morton(v):
    q = [np.clip((a * f32(1024.0)).astype(np.int64), 0, 1023) for a in v[:3]]
    c = np.zeros(len(q[0]), np.int64)
    for b in range(10):
        for s, a in zip((2, 1, 0), q):
            c |= ((a >> b) & 1) << (3 * b + s)
    return {3: c.astype(u32)}


def ref_jfa(v):
    g, k, _ = v
    h, w = g.shape
    yy, xx = np.mgrid[0:h, 0:w]
    best = np.full((h, w), -1, np.int64)
    bd = np.full((h, w), 2**31 - 1, np.int64)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            qy, qx = yy + dy * int(k), xx + dx * int(k)
            ok = (qy >= 0) & (qy < h) & (qx >= 0) & (qx < w)
            s = np.where(ok, g[np.clip(qy, 0, h - 1), np.clip(qx, 0, w - 1)], -1).astype(np.int64)
            d = (s // w - yy) ** 2 + (s % w - xx) ** 2
            take = (s >= 0) & (d < bd)
            bd = np.where(take, d, bd)
            best = np.where(take, s, best)
    return {2: best.astype(np.int32)}


# ---- image processing --------------------------------------------------------------------------

def shifted(img, dy, dx):
    h, w = img.shape
    return img[np.clip(np.arange(h) + dy, 0, h - 1)][:, np.clip(np.arange(w) + dx, 0, w - 1)]


def ref_knn(v):
    img, h2, _ = v
    img = img.astype(f64)
    sw = sv = 0.0
    for dy in range(-3, 4):
        for dx in range(-3, 4):
            q = shifted(img, dy, dx)
            wgt = np.exp(-((q - img) ** 2) / float(h2) - (dy * dy + dx * dx) * 0.0555556)
            sw, sv = sw + wgt, sv + wgt * q
    return {2: sv / sw}


def ref_nlm(v):
    img, h2, _ = v
    img = img.astype(f64)
    sw = sv = 0.0
    for dy in range(-3, 4):
        for dx in range(-3, 4):
            dist = 0.0
            for py in (-1, 0, 1):
                for px in (-1, 0, 1):
                    a = shifted(img, py, px)
                    # the candidate's patch: rows clamped at y+dy+py, columns at x+dx+px
                    b = shifted(img, dy + py, dx + px)
                    dist = dist + (a - b) ** 2
            wgt = np.exp(-dist * 0.11111111 / float(h2))
            q = shifted(img, dy, dx)
            sw, sv = sw + wgt, sv + wgt * q
    return {2: sv / sw}


def cubic_w(t):
    a = np.abs(t)
    return np.where(a < 1, (1.5 * a - 2.5) * a * a + 1, np.where(a < 2, ((-0.5 * a + 2.5) * a - 4) * a + 2, 0.0))


def ref_bicubic(v):
    src, dst = v
    sh, sw = src.shape
    dh, dw = dst.shape
    fy = (np.arange(dh) + 0.5) * sh / dh - 0.5
    fx = (np.arange(dw) + 0.5) * sw / dw - 0.5
    iy, ix = np.floor(fy).astype(int), np.floor(fx).astype(int)
    ty, tx = fy - iy, fx - ix
    out = np.zeros((dh, dw))
    s = src.astype(f64)
    for m in range(-1, 3):
        rows = s[np.clip(iy + m, 0, sh - 1)]
        for n in range(-1, 3):
            out += cubic_w(ty - m)[:, None] * cubic_w(tx - n)[None, :] * rows[:, np.clip(ix + n, 0, sw - 1)]
    return {1: out}


def ref_demosaic(v):
    raw = v[0].astype(f64)
    h, w = raw.shape
    s = lambda dy, dx: shifted(raw, dy, dx)  # noqa: E731
    cross = 0.25 * (s(-1, 0) + s(1, 0) + s(0, -1) + s(0, 1))
    diag = 0.25 * (s(-1, -1) + s(-1, 1) + s(1, -1) + s(1, 1))
    horiz, vert = 0.5 * (s(0, -1) + s(0, 1)), 0.5 * (s(-1, 0) + s(1, 0))
    ey = (np.arange(h) % 2 == 0)[:, None]
    ex = (np.arange(w) % 2 == 0)[None, :]
    rr, bb = ey & ex, ~ey & ~ex
    r = np.where(rr, raw, np.where(bb, diag, np.where(ey, horiz, vert)))
    g = np.where(rr | bb, cross, raw)
    b = np.where(bb, raw, np.where(rr, diag, np.where(ey, vert, horiz)))
    return {1: np.floor(np.stack([r, g, b]) + 0.5).astype(np.uint8)}


def ref_tonemap(v):
    x, e, _ = v
    y = x.astype(f64) * float(e)
    return {2: (y / (1 + y)) ** (1 / 2.2)}


# ---- linear algebra and numerical series --------------------------------------------------------

def ref_gemver(v):
    a, u1, v1, u2, v2 = (t.astype(f64) for t in v)
    return {0: a + np.outer(u1, v1) + np.outer(u2, v2)}


def ref_tridiag(v):
    a, b, c, d, _ = (t.astype(f64) for t in v)
    s, n = b.shape
    m = np.zeros((s, n, n))
    r = np.arange(n)
    m[:, r, r] = b
    m[:, r[1:], r[:-1]] = a[:, 1:]
    m[:, r[:-1], r[1:]] = c[:, :-1]
    return {4: np.linalg.solve(m, d[..., None])[..., 0]}


def ref_cheb(v):
    x, coef, _ = v
    return {2: np.polynomial.chebyshev.chebval(x.astype(f64), coef.astype(f64))}


def ref_sort(v):
    k, _ = v
    return {1: np.sort(k.reshape(-1, K.SORT_N), axis=1).ravel().astype(f64)}


# ---- databases ---------------------------------------------------------------------------------

def by_table_key(got, res):
    tk = res(1)
    m = tk != -1
    return got[m][np.argsort(tk[m])]


def ref_build(v):
    keys, tk, _ = v
    o = np.argsort(keys)
    return {1: (lambda got, res: np.sort(got[got != -1]), keys[o]), 2: (by_table_key, o.astype(np.int32))}


def ref_groupby(v):
    keys, vals, tk, _, _ = v
    u, inv = np.unique(keys, return_inverse=True)

    def order(got, res):
        t = res(2)
        m = t != -1
        return got[m][np.argsort(t[m])]
    sums = np.zeros(len(u))
    np.add.at(sums, inv, vals.astype(f64))
    return {2: (lambda got, res: np.sort(got[got != -1]), u), 3: (order, sums),
            4: (order, np.bincount(inv).astype(np.int32))}


# ---- graph sampling ----------------------------------------------------------------------------

def ref_walk(v):
    ptr, col, start, length, seed, _, _ = v
    w = np.arange(len(start), dtype=np.int64)
    cur = start.astype(np.int64)
    live = np.ones(len(start), bool)
    steps = np.zeros(len(start), np.int32)
    for st in range(int(length)):
        lo = ptr[cur].astype(np.int64)
        deg = ptr[cur + 1] - lo
        live &= deg > 0
        r = hash32(((w * int(length) + st) & 0xFFFFFFFF) ^ int(seed)).astype(np.int64)
        nxt = col[np.where(live, lo + r % np.maximum(deg, 1), 0)]
        cur = np.where(live, nxt, cur)
        steps += live
    return {5: cur.astype(np.int32), 6: steps}


# ---- ML operators ------------------------------------------------------------------------------

def ref_moe(v):
    logits, counts, tok, _ = v
    e, cap = tok.shape
    p = np.exp(logits.astype(f64) - logits.max(1, keepdims=True))
    top = np.argsort(-p, axis=1, kind="stable")[:, :2]
    pv = np.take_along_axis(p, top, 1)
    g = pv / pv.sum(1, keepdims=True)
    want_t = np.full((e, cap), -1, np.int32)
    want_g = np.zeros((e, cap))
    cnt = np.zeros(e, np.int32)
    for x in range(e):
        sel = np.nonzero(top == x)
        t = sel[0]
        o = np.argsort(t)
        cnt[x] = len(t)
        want_t[x, :len(t)] = t[o]
        want_g[x, :len(t)] = g[sel][o]

    def by_token(got, res):
        t = res(2)
        key = np.where(t < 0, 2**31 - 1, t)
        return np.take_along_axis(got, np.argsort(key, axis=1, kind="stable"), 1)
    assert (cnt <= cap).all()
    return {1: cnt, 2: (by_token, want_t), 3: (by_token, want_g)}


def ref_embed(v):
    tok, g, table = v
    want = np.zeros(table.shape)
    np.add.at(want, tok, g.astype(f64))
    return {2: want}


def ref_swiglu(v):
    x, y = v
    h = y.shape[1]
    a, b = x[:, :h].astype(f64), x[:, h:].astype(f64)
    return {1: a / (1 + np.exp(-a)) * b}


def dwconv_ref(x, w):
    """x: N x C x H x W, w: C x 3 x 3."""
    p = np.pad(x.astype(f64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    h, ww = x.shape[2:]
    out = np.zeros(x.shape)
    for dy in range(3):
        for dx in range(3):
            out += w[None, :, dy, dx, None, None] * p[:, :, dy:dy + h, dx:dx + ww]
    return out


def ref_dw_nchw(v):
    x, w, _ = v
    c = w.shape[0]
    return {2: dwconv_ref(x.reshape(-1, c, *x.shape[1:]), w.astype(f64)).reshape(x.shape)}


def ref_dw_nhwc(v):
    x, h, w, _ = v
    nh, ww, c = x.shape
    xn = x.reshape(nh // int(h), int(h), ww, c).transpose(0, 3, 1, 2)
    out = dwconv_ref(xn, w.transpose(2, 0, 1).astype(f64))
    return {3: out.transpose(0, 2, 3, 1).reshape(x.shape)}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("philox", K.philox_uniform, C.philox(4096, 64), ""), ref_philox, 1e-7),
    (L("xorwow", K.xorwow_uniform, C.xorwow(4096), ""), ref_xorwow, 1e-7),
    (L("ivol_newton", K.implied_vol_newton, C.options(3000), ""), ref_ivol, 1e-3),
    (L("ivol_bisect", K.implied_vol_bisect, C.options(3000), ""), ref_ivol, 1e-3),
    (L("chacha20", K.chacha_xor, C.chacha(700, 20), ""), ref_chacha, 0),
    (L("chacha8", K.chacha_xor, C.chacha(300, 8), ""), ref_chacha, 0),
    (L("base64", K.base64_encode, C.base64(5000), ""), ref_base64, 0),
    (L("morton_magic", K.morton3d_magic, C.points(5000), ""), ref_morton, 0),
    (L("morton_loop", K.morton3d_loop, C.points(5000), ""), ref_morton, 0),
    (L("jfa_k16", K.jfa_step, C.voronoi(128, 16, 16), ""), ref_jfa, 0),
    (L("jfa_k1", K.jfa_step, C.voronoi(128, 1, 16), ""), ref_jfa, 0),
    (L("knn_denoise", K.knn_denoise, C.denoise(64), ""), ref_knn, 1e-4),
    (L("nlm_denoise", K.nlm_denoise, C.denoise(64), ""), ref_nlm, 1e-4),
    (L("bicubic_up", K.bicubic_resize, C.resize(48, 96), ""), ref_bicubic, 1e-5),
    (L("bicubic_down", K.bicubic_resize, C.resize(200, 64), ""), ref_bicubic, 1e-5),
    (L("demosaic", K.demosaic_bilinear, C.bayer(64), ""), ref_demosaic, 0),
    (L("tonemap", K.tonemap, C.hdr(5000), ""), ref_tonemap, 1e-6),
    (L("tonemap_f64", K.tonemap, C.hdr(5000, f64), ""), ref_tonemap, 1e-13),
    (L("gemver_rows", K.gemver_rank2_rows, C.gemver(64), ""), ref_gemver, 1e-6),
    (L("gemver_cols", K.gemver_rank2_cols, C.gemver(64), ""), ref_gemver, 1e-6),
    (L("tridiag_cr", K.tridiag_cr, C.tridiag(6, False), ""), ref_tridiag, 1e-5),
    (L("tridiag_pcr", K.tridiag_pcr, C.tridiag(6, True), ""), ref_tridiag, 1e-5),
    (L("chebyshev", K.chebyshev_clenshaw, C.chebyshev(4096, 256), ""), ref_cheb, 1e-5),
    (L("chebyshev_f64", K.chebyshev_clenshaw, C.chebyshev(4096, 256, f64), ""), ref_cheb, 1e-12),
    (L("sort_oddeven", K.sort_oddeven_shared, C.block_keys(2048, True), ""), ref_sort, 0),
    (L("sort_rank", K.sort_rank_shared, C.block_keys(2048, True), ""), ref_sort, 0),
    (L("hash_build_l50", K.hash_build, C.build(4096, 2048), ""), ref_build, 0),
    (L("hash_build_l90", K.hash_build, C.build(4096, 3700), ""), ref_build, 0),
    (L("groupby_few", K.groupby_sum, C.groupby(20_000, 8), ""), ref_groupby, 1e-4),
    (L("groupby_many", K.groupby_sum, C.groupby(20_000, 3000), ""), ref_groupby, 1e-4),
    (L("walk_uniform", K.random_walk, C.walks(2000, 16_000, 3000, 16, False), ""), ref_walk, 0),
    (L("walk_powerlaw", K.random_walk, C.walks(2000, 16_000, 3000, 16, True), ""), ref_walk, 0),
    (L("moe_e8", K.moe_route_top2, C.moe(3000, 8), ""), ref_moe, 1e-5),
    (L("moe_e64", K.moe_route_top2, C.moe(3000, 64), ""), ref_moe, 1e-5),
    (L("embed_bwd_zipf", K.embedding_backward, C.embedding(1000, 64, 3000, True), ""), ref_embed, 1e-5),
    (L("embed_bwd_uniform", K.embedding_backward, C.embedding(1000, 64, 3000, False), ""), ref_embed, 1e-5),
    (L("swiglu", K.swiglu, C.swiglu(16, 256), ""), ref_swiglu, 1e-5),
    (L("dwconv_nchw", K.dwconv3x3_nchw, C.dwconv(2, 8, 16, 32, False), ""), ref_dw_nchw, 1e-5),
    (L("dwconv_nhwc", K.dwconv3x3_nhwc, C.dwconv(2, 64, 16, 12, True), ""), ref_dw_nhwc, 1e-5),
]


def rfc8439_ok() -> None:
    """ref_chacha against RFC 8439's test vector of the block function (section 2.3.2: key
    00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, counter 1)."""
    key = np.frombuffer(bytes(range(32)), "<u4").astype(u32)
    nonce = np.frombuffer(bytes.fromhex("000000090000004a00000000"), "<u4").astype(u32)
    ks = ref_chacha([key, nonce, 20, np.zeros((2, 16), u32), None])[4][1]
    want = [0xE4E7F110, 0x15593BD1, 0x1FDD0F50, 0xC47120A3, 0xC7F4D1C7, 0x0368C033, 0x9AAA2204, 0x4E6CD4C3,
            0x466482D2, 0x09AA9F07, 0x05D7C214, 0xA2028BD9, 0xD19C12B5, 0xB94E16DE, 0xE883D0CB, 0x4E3C50A2]
    assert list(ks) == want, "the numpy ChaCha reference does not match RFC 8439"


def main() -> None:
    rfc8439_ok()
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
