"""Check every kernel of the ninth blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind9/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind9 import cases as C  # noqa: E402
from timing.blind9 import kernels as K  # noqa: E402
from timing.blind9 import kernels_ml as KM  # noqa: E402

f32, f64, i32, u32, U64 = np.float32, np.float64, np.int32, np.uint32, np.uint64
MASK32 = 0xFFFFFFFF

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is a statistic (the photons' tallies).


def hash32(x):
    """numpy twin of kernels.hash32 (uint32 in, uint32 out)."""
    x = np.asarray(x, U64) & MASK32
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & MASK32
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & MASK32
    x ^= x >> 16
    return x


def unit_open(h):
    return ((np.asarray(h, U64) >> 8).astype(f64) + 1.0) * 2.0 ** -24


# ---- sparse formats ------------------------------------------------------------------------------

def ref_dia(v):
    offs, data, x, _ = v
    n = len(x)
    want = np.zeros(n)
    for d, o in enumerate(offs):
        r = np.arange(max(0, -o), min(n, n - o))
        want[r] += data[d, r].astype(f64) * x[r + o]
    return {3: want}


def ref_jds(v):
    perm, ptr, col, val, x, _ = v
    want = np.zeros(len(x))
    for k in range(len(ptr) - 1):
        t = np.arange(ptr[k + 1] - ptr[k])
        want[perm[t]] += val[ptr[k] + t].astype(f64) * x[col[ptr[k] + t]]
    return {5: want}


# ---- random access and graphs --------------------------------------------------------------------

def ref_gups(threads):
    """The launch's ``threads`` streams of updates (the reference needs the launch's size)."""
    def ref(v):
        table, seed, per = v
        n = table.size
        with np.errstate(over="ignore"):
            x = U64(seed) + np.arange(threads, dtype=U64) * U64(0x9E3779B97F4A7C15)
            x = (x ^ (x >> U64(30))) * U64(0xBF58476D1CE4E5B9)
            x = (x ^ (x >> U64(27))) * U64(0x94D049BB133111EB)
            x = x ^ (x >> U64(31))
            want = table.copy()
            for _ in range(int(per)):
                x = (x << U64(1)) ^ ((x >> U64(63)) * U64(7))
                np.bitwise_xor.at(want, (x & U64(n - 1)).astype(np.int64), x)
        return {0: want}
    return ref


def ref_boruvka(v):
    src, dst, w, comp, best = v
    a, b = comp[src], comp[dst]
    cross = a != b
    key = (w.astype(U64) << U64(32)) | np.arange(len(src), dtype=U64)
    want = best.copy()
    np.minimum.at(want, a[cross], key[cross])
    np.minimum.at(want, b[cross], key[cross])
    return {4: want}


# ---- cryptography and strings --------------------------------------------------------------------

def aes_ref(words, rk, sbox):
    """Textbook AES-128 (SubBytes, ShiftRows, MixColumns, AddRoundKey) on the state bytes,
    column-major (byte 4c + r), from big-endian words."""
    def to_bytes(w):
        w = np.asarray(w, np.int64)
        return np.stack([(w >> (24 - 8 * r)) & 0xFF for r in range(4)], -1).reshape(*w.shape[:-1], 16)

    st = to_bytes(words)
    keys = to_bytes(rk.reshape(11, 4))
    shift = np.array([4 * ((c + r) % 4) + r for c in range(4) for r in range(4)])
    st = st ^ keys[0]
    for rnd in range(1, 11):
        st = sbox[st].astype(np.int64)[:, shift]
        if rnd < 10:
            a = st.reshape(-1, 4, 4)
            a1, a2, a3 = np.roll(a, -1, 2), np.roll(a, -2, 2), np.roll(a, -3, 2)
            st = (C.xtime(a) ^ C.xtime(a1) ^ a1 ^ a2 ^ a3).reshape(-1, 16)
        st = st ^ keys[rnd]
    b = st.reshape(-1, 4, 4)
    return ((b[..., 0] << 24) | (b[..., 1] << 16) | (b[..., 2] << 8) | b[..., 3]).astype(u32)


def fips197_ok():
    """FIPS-197 appendix C.1: the reference and the host key schedule against the standard."""
    sb = C.aes_sbox()
    rk = C.aes_expand(np.arange(16), sb)
    pt = np.array([[0x00112233, 0x44556677, 0x8899AABB, 0xCCDDEEFF]], u32)
    ct = aes_ref(pt, rk, sb)
    return ct.tolist() == [[0x69C4E0D8, 0x6A7B0430, 0xD8CDB780, 0x70B4C55A]]


def ref_aes(v):
    te0, rk, data, _ = v
    assert fips197_ok(), "the AES reference fails FIPS-197's example"
    sb = C.aes_sbox()
    assert (te0 == C.aes_te0(sb)).all()
    return {3: aes_ref(data, rk, sb)}


def ref_myers(v):
    pat, text, tlen, sp, sc, _, _ = v
    n, m = pat.shape
    tl = int(tlen)
    t = text[np.arange(n)[:, None] * int(sp) + np.arange(tl)[None, :] * int(sc)]
    prev = np.tile(np.arange(m + 1), (n, 1))
    best = np.full(n, m)
    at = np.full(n, -1)
    for j in range(tl):
        cur = np.zeros_like(prev)
        for i in range(1, m + 1):
            cur[:, i] = np.minimum(np.minimum(prev[:, i - 1] + (pat[:, i - 1] != t[:, j]), prev[:, i] + 1),
                                   cur[:, i - 1] + 1)
        better = cur[:, m] < best
        best = np.where(better, cur[:, m], best)
        at = np.where(better, j, at)
        prev = cur
    return {5: best.astype(i32), 6: at.astype(i32)}


# ---- integer kernels ----------------------------------------------------------------------------

def ref_sieve(v):
    _, count = v
    n = len(count) * K.SEG
    s = np.zeros(n, bool)
    s[C.primes_upto(n - 1)] = True
    return {1: s.reshape(-1, K.SEG).sum(1).astype(i32)}


def ref_unpack(v):
    words, width, base, out = v
    w = int(width)
    bits = np.unpackbits(words.astype("<u4").view(np.uint8), bitorder="little")
    vals = bits[:len(out) * w].reshape(-1, w).astype(np.int64) @ (1 << np.arange(w, dtype=np.int64))
    return {3: (base.astype(np.int64).repeat(128) + vals).astype(i32)}


# ---- physics stencils ---------------------------------------------------------------------------

def ref_swe(v):
    h, hu, hv, g, lam = (a.astype(f64) if isinstance(a, np.ndarray) else float(a) for a in v[:5])

    def at(a, dy, dx):
        return np.roll(a, (-dy, -dx), (0, 1))

    def flux(a, u, w):
        """F's and G's momentum parts: hu^2/h + g h^2/2, hu hv/h, hv^2/h + g h^2/2."""
        return u * u / a + 0.5 * g * a * a, u * w / a, w * w / a + 0.5 * g * a * a
    e, w_, n, s = ([at(q, dy, dx) for q in (h, hu, hv)] for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)))
    fe, fw, fn, fs = flux(*e), flux(*w_), flux(*n), flux(*s)
    return {5: 0.25 * (e[0] + w_[0] + n[0] + s[0]) - lam * (e[1] - w_[1]) - lam * (n[2] - s[2]),
            6: 0.25 * (e[1] + w_[1] + n[1] + s[1]) - lam * (fe[0] - fw[0]) - lam * (fn[1] - fs[1]),
            7: 0.25 * (e[2] + w_[2] + n[2] + s[2]) - lam * (fe[1] - fw[1]) - lam * (fn[2] - fs[2])}


def ref_wave(v):
    p, prev, vel2, out = (a.astype(f64) for a in v)
    n = p.shape
    w = [-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560]
    c = (slice(4, -4),) * 3
    lap = 3 * w[0] * p[c]
    for r in range(1, 5):
        for ax in range(3):
            for s in (-r, r):
                sl = [slice(4, -4)] * 3
                sl[ax] = slice(4 + s, n[ax] - 4 + s)
                lap = lap + w[r] * p[tuple(sl)]
    want = out.copy()
    want[c] = 2 * p[c] - prev[c] + vel2[c] * lap
    return {3: want}


# ---- Monte Carlo --------------------------------------------------------------------------------

def photon_reflectance(n, mua, mus, g, rng):
    """Diffuse reflectance of the same photon migration in fp64 with numpy's generator (an
    independent sample: the kernel's is compared with it within a few standard errors)."""
    mut, alb = mua + mus, mus / (mua + mus)
    z, w = np.zeros(n), np.ones(n)
    u = np.zeros((n, 3))
    u[:, 2] = 1.0
    refl = 0.0
    live = np.arange(n)
    while len(live):
        s = -np.log(1.0 - rng.random(len(live))) / mut
        out = z[live] + u[live, 2] * s < 0
        refl += w[live[out]].sum()
        live, s = live[~out], s[~out]
        z[live] += u[live, 2] * s
        w[live] *= alb
        live = live[w[live] >= 1e-4]
        k = len(live)
        tmp = (1 - g * g) / (1 - g + 2 * g * rng.random(k))
        ct = np.clip((1 + g * g - tmp * tmp) / (2 * g), -1, 1)
        st = np.sqrt(1 - ct * ct)
        phi = 2 * np.pi * rng.random(k)
        ux, uy, uz = u[live].T
        vert = np.abs(uz) > 0.99999
        r = np.sqrt(np.maximum(1 - uz * uz, 1e-30))
        nx = np.where(vert, st * np.cos(phi), st * (ux * uz * np.cos(phi) - uy * np.sin(phi)) / r + ux * ct)
        ny = np.where(vert, st * np.sin(phi), st * (uy * uz * np.cos(phi) + ux * np.sin(phi)) / r + uy * ct)
        nz = np.where(vert, np.sign(uz) * ct, -st * np.cos(phi) * r + uz * ct)
        u[live] = np.stack([nx, ny, nz], 1)
    return refl / n


def ref_photon(n):
    def ref(v):
        _, mua, mus, g, _, _, _, _ = v
        rd = photon_reflectance(50_000, float(mua), float(mus), float(g), np.random.default_rng(7))
        # all weight is tallied: (absorbed + reflected) / n = 1, its error magnified 100 times
        return {6: (lambda got, res: np.array([1 + 100 * ((got.sum() + res(7).sum()) / n - 1)]), np.array([1.0])),
                7: (lambda got, res: np.array([got.sum() / n]), np.array([rd]))}
    return ref


def ref_heston(v):
    steps, dt, s0, v0, kappa, theta, xi, rho, rate, strike, seed, payoff, _ = v
    n, k = len(payoff), int(steps)
    dt, kappa, theta, xi, rho, rate = map(float, (dt, kappa, theta, xi, rho, rate))
    ctr = np.arange(n, dtype=U64) * U64(2 * k)
    s = np.full(n, float(s0))
    var = np.full(n, float(v0))
    for j in range(k):
        u1 = unit_open(hash32(((ctr + U64(2 * j)) & MASK32) ^ U64(seed)))
        u2 = unit_open(hash32(((ctr + U64(2 * j + 1)) & MASK32) ^ U64(seed)))
        r = np.sqrt(-2 * np.log(u1))
        z1, z2 = r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)
        vp = np.maximum(var, 0)
        sq = np.sqrt(vp * dt)
        s = s * np.exp((rate - 0.5 * vp) * dt + sq * z1)
        var = var + kappa * (theta - vp) * dt + xi * sq * (rho * z1 + np.sqrt(1 - rho * rho) * z2)
    pay = np.exp(-rate * dt * k) * np.maximum(s - float(strike), 0)
    return {11: pay, 12: np.array([pay.sum()])}


# ---- ML operators -------------------------------------------------------------------------------

def ref_lstm(v):
    pre, bias, c, gs, us, _, _ = v
    hdim = c.shape[1]
    o = np.arange(hdim) * int(us)
    z = [pre[:, o + k * int(gs)].astype(f64) + bias[o + k * int(gs)] for k in range(4)]
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    cn = sig(z[1]) * c + sig(z[0]) * np.tanh(z[2])
    return {5: sig(z[3]) * np.tanh(cn), 6: cn}


def roi_ref(f_chw, rois, scale):
    ch, h, w = f_chw.shape
    P = KM.ROI_P
    f = f_chw.astype(f64)
    out = np.zeros((len(rois), ch, P, P))
    for r, (x1, y1, x2, y2) in enumerate(rois.astype(f64)):
        x0, y0 = x1 * scale - 0.5, y1 * scale - 0.5
        bw, bh = (x2 - x1) * scale / P, (y2 - y1) * scale / P
        for ph in range(P):
            for pw in range(P):
                for iy in range(2):
                    for ix in range(2):
                        y = y0 + ph * bh + (iy + 0.5) * bh / 2
                        x = x0 + pw * bw + (ix + 0.5) * bw / 2
                        if y < -1 or y > h or x < -1 or x > w:
                            continue
                        y, x = max(y, 0.0), max(x, 0.0)
                        ya, xa = min(int(y), h - 1), min(int(x), w - 1)
                        ly = y - ya if ya < h - 1 else 0.0
                        lx = x - xa if xa < w - 1 else 0.0
                        yb, xb = min(ya + 1, h - 1), min(xa + 1, w - 1)
                        out[r, :, ph, pw] += 0.25 * ((1 - ly) * ((1 - lx) * f[:, ya, xa] + lx * f[:, ya, xb])
                                                     + ly * ((1 - lx) * f[:, yb, xa] + lx * f[:, yb, xb]))
    return out


def ref_roi(nhwc):
    def ref(v):
        f, rois, scale, _ = v
        out = roi_ref(f.transpose(2, 0, 1) if nhwc else f, rois, float(scale))
        return {3: (out.transpose(0, 2, 3, 1) if nhwc else out).ravel()}
    return ref


def ldpc_q(v):
    var, llr, r_in, _, _ = v
    return (llr[var] - r_in).astype(f32)          # as the kernel forms it, in fp32


def ref_minsum(v):
    q = ldpc_q(v)
    a = np.abs(q).astype(f64)
    order = np.argsort(a, axis=0, kind="stable")
    m1, m2 = np.take_along_axis(a, order[:1], 0), np.take_along_axis(a, order[1:2], 0)
    mag = np.where(np.arange(KM.DC)[:, None] == order[:1], m2, m1)
    sgn = np.where(q < 0, -1.0, 1.0)
    return {4: float(v[3]) * sgn.prod(0, keepdims=True) * sgn * mag}


def ref_tanh(v):
    t = np.tanh(0.5 * ldpc_q(v).astype(f64))
    want = np.zeros(t.shape)
    for k in range(KM.DC):
        p = np.clip(np.prod(np.delete(t, k, axis=0), axis=0), -0.999999, 0.999999)
        want[k] = np.log((1 + p) / (1 - p))
    return {4: want}


# ---- procedural noise ----------------------------------------------------------------------------

def grad3(h, x, y, z):
    b = h & 15
    u = np.where(b < 8, x, y)
    v = np.where(b < 4, y, np.where((b == 12) | (b == 14), x, z))
    return np.where(b & 1, -u, u) + np.where(b & 2, -v, v)


def noise_ref(x, y, z, corner):
    """Improved noise at fp32 points in fp64; corner(cx, cy, cz) -> each corner's hash."""
    fx, fy, fz = np.floor(x), np.floor(y), np.floor(z)
    xf, yf, zf = (x - fx).astype(f64), (y - fy).astype(f64), (z - fz).astype(f64)
    cx, cy, cz = fx.astype(np.int64), fy.astype(np.int64), fz.astype(np.int64)

    def fade(t):
        return t * t * t * (t * (t * 6 - 15) + 10)

    def lerp(a, b, t):
        return a + t * (b - a)
    u, v, w = fade(xf), fade(yf), fade(zf)
    g = {}
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                g[dx, dy, dz] = grad3(corner(cx + dx, cy + dy, cz + dz), xf - dx, yf - dy, zf - dz)
    a = lerp(lerp(g[0, 0, 0], g[1, 0, 0], u), lerp(g[0, 1, 0], g[1, 1, 0], u), v)
    b = lerp(lerp(g[0, 0, 1], g[1, 0, 1], u), lerp(g[0, 1, 1], g[1, 1, 1], u), v)
    return lerp(a, b, w)


def ref_perlin(hashed):
    def ref(v):
        first, scale, z0, octaves, out = v
        n0, n1 = out.shape
        if hashed:
            def corner(cx, cy, cz):
                m = lambda a, k: (a.astype(U64) * U64(k)) & MASK32  # noqa: E731
                return hash32(m(cx, 0x8DA6B343) ^ m(cy, 0xD8163841) ^ m(cz, 0xCB1AB31F) ^ U64(first)).astype(np.int64)
        else:
            def corner(cx, cy, cz):
                p = first.astype(np.int64)
                return p[p[p[cx & 255] + (cy & 255)] + (cz & 255)]
        x = np.arange(n1, dtype=f32)[None, :] * f32(scale) + np.zeros((n0, 1), f32)
        y = np.arange(n0, dtype=f32)[:, None] * f32(scale) + np.zeros((1, n1), f32)
        s, amp, f = np.zeros((n0, n1)), 1.0, f32(1.0)
        for _ in range(int(octaves)):
            s += amp * noise_ref(x * f, y * f, np.full((n0, n1), f32(z0) * f, f32), corner)
            amp, f = amp * 0.5, f * f32(2.0)
        return {4: s}
    return ref


# ---- image analysis and stereo -------------------------------------------------------------------

def ref_fast(v):
    img, ring, thr, _ = v
    h, w = img.shape
    a = img.astype(np.int64)
    c = a[3:-3, 3:-3]
    bright = np.zeros((16,) + c.shape, bool)
    dark = np.zeros_like(bright)
    for k, (dy, dx) in enumerate(ring):
        nb = a[3 + dy:h - 3 + dy, 3 + dx:w - 3 + dx]
        bright[k] = nb > c + int(thr)
        dark[k] = nb < c - int(thr)

    def arc(m):
        return np.any([np.all([m[(s + k) % 16] for k in range(9)], 0) for s in range(16)], 0)
    want = np.zeros((h, w), np.uint8)
    want[3:-3, 3:-3] = np.where(arc(bright), 1, np.where(arc(dark), 2, 0))
    return {3: want}


def ref_sgm(v):
    cost, ps, ss, length, p1, p2, out = v
    d = KM.SGM_D
    paths = out.size // d // int(length)
    pix = np.arange(paths)[:, None] * int(ps) + np.arange(int(length))[None, :] * int(ss)
    c = cost.reshape(-1, d)[pix].astype(np.int64)          # path, step, disparity
    big = np.full((paths, 1), KM.BIG)
    want = np.zeros(out.size, np.int64).reshape(-1, d)
    prev = c[:, 0]
    want[pix[:, 0]] = prev
    for s in range(1, int(length)):
        m = prev.min(1, keepdims=True)
        up = np.concatenate([big, prev[:, :-1]], 1)
        dn = np.concatenate([prev[:, 1:], big], 1)
        prev = c[:, s] + np.minimum(np.minimum(prev, np.minimum(up, dn) + int(p1)), m + int(p2)) - m
        want[pix[:, s]] = prev
    return {6: want.ravel().astype(np.uint16)}


# ---- geometry ------------------------------------------------------------------------------------

def ref_normals(v):
    pos, tri = v[0].astype(f64), v[1]
    fn = np.cross(pos[tri[:, 1]] - pos[tri[:, 0]], pos[tri[:, 2]] - pos[tri[:, 0]])
    want = np.zeros_like(pos)
    for k in range(3):
        np.add.at(want, tri[:, k], fn)
    return {len(v) - 1: want}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("spmv_dia", K.spmv_dia, C.dia(32), ""), ref_dia, 1e-5),
    (L("spmv_jds", K.spmv_jds, C.jds(32), ""), ref_jds, 1e-5),
    (L("gups_small", K.gups_xor, C.gups(4096, 2048), ""), ref_gups(2048), 0),
    (L("gups_large", K.gups_xor, C.gups(1 << 16, 4096), ""), ref_gups(4096), 0),
    (L("boruvka_vertices", K.boruvka_lightest, C.boruvka(64, 0), ""), ref_boruvka, 0),
    (L("boruvka_tiles", K.boruvka_lightest, C.boruvka(64, 16), ""), ref_boruvka, 0),
    (L("aes_t4", K.aes128_t4, C.aes(2048), ""), ref_aes, 0),
    (L("aes_t1", K.aes128_t1, C.aes(2048), ""), ref_aes, 0),
    (L("myers_rows", K.myers_search, C.dna(300, 100, False), ""), ref_myers, 0),
    (L("myers_interleaved", K.myers_search, C.dna(300, 100, True), ""), ref_myers, 0),
    (L("sieve_bytes", K.sieve_bytes, C.sieve(6 * K.SEG), ""), ref_sieve, 0),
    (L("sieve_bits", K.sieve_bits, C.sieve(6 * K.SEG), ""), ref_sieve, 0),
    (L("unpack7", K.bitunpack_for, C.bitpacked(128 * 40, 7), ""), ref_unpack, 0),
    (L("unpack13", K.bitunpack_for, C.bitpacked(128 * 40, 13), ""), ref_unpack, 0),
    (L("unpack21", K.bitunpack_for, C.bitpacked(128 * 40, 21), ""), ref_unpack, 0),
    (L("swe", K.shallow_water, C.water(64), ""), ref_swe, 1e-5),
    (L("swe_f64", K.shallow_water, C.water(64, f64), ""), ref_swe, 1e-12),
    (L("wave3d_o8", K.wave3d_o8, C.wave(24), ""), ref_wave, 1e-5),
    (L("photon_mc", K.photon_mc, C.photons(16384), ""), ref_photon(16384), 0.02),
    (L("heston_64", K.heston_euler, C.heston(512, 64), ""), ref_heston, 1e-3),
    (L("heston_256", K.heston_euler, C.heston(256, 256), ""), ref_heston, 1e-3),
    (L("lstm_interleaved", KM.lstm_cell, C.lstm(8, 64, False), ""), ref_lstm, 1e-5),
    (L("lstm_planar", KM.lstm_cell, C.lstm(8, 64, True), ""), ref_lstm, 1e-5),
    (L("roi_nchw", KM.roi_align_nchw, C.roi(20, 8, 16, False, image=256), ""), ref_roi(False), 1e-4),
    (L("roi_nhwc", KM.roi_align_nhwc, C.roi(20, 8, 16, True, image=256), ""), ref_roi(True), 1e-4),
    (L("ldpc_minsum", KM.ldpc_minsum, C.ldpc(2048), ""), ref_minsum, 1e-5),
    (L("ldpc_tanh", KM.ldpc_tanh, C.ldpc(2048), ""), ref_tanh, 1e-3),
    (L("perlin_table", KM.perlin_table, C.perlin(96, False), ""), ref_perlin(False), 1e-5),
    (L("perlin_hash", KM.perlin_hash, C.perlin(96, True), ""), ref_perlin(True), 1e-5),
    (L("fast_full", KM.fast9_full, C.fast(256), ""), ref_fast, 0),
    (L("fast_early", KM.fast9_early, C.fast(256), ""), ref_fast, 0),
    (L("sgm_rows", KM.sgm_path, C.sgm(24, 40, False), ""), ref_sgm, 0),
    (L("sgm_cols", KM.sgm_path, C.sgm(24, 40, True), ""), ref_sgm, 0),
    (L("normals_scatter", KM.normals_scatter, C.normals(40, False), ""), ref_normals, 1e-5),
    (L("normals_gather", KM.normals_gather, C.normals(40, True), ""), ref_normals, 1e-5),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
