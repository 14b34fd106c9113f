"""Check every kernel of the sixteenth blind set against numpy (scipy for the incomplete gamma
function, a Python xxHash compared with the `xxhash` package where it is installed), on the
fast cpu engine at small sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind16/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind16 import cases as C  # noqa: E402
from timing.blind16 import kernels as K  # noqa: E402
from timing.blind16 import kernels_apps as KA  # noqa: E402

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (rounding at a pixel's edge).


def close_share(want, atol):
    """A transform for results where a few elements may differ by rounding at a boundary: 1
    where the kernel's value is within atol of the reference's, 0 elsewhere (compared with
    ones, so that the tolerance is the share of elements allowed to differ)."""
    def fn(got, res):
        return (np.abs(got.astype(f64) - want) <= atol).astype(i32)
    return fn, np.ones(np.shape(want), i32)


# ---- Hodgkin-Huxley ----------------------------------------------------------------------------------

def hh_np(v, m, h, n, ie, nsub, dt, gates):
    v, m, h, n, ie = (a.astype(f64) for a in (v, m, h, n, ie))
    for _ in range(nsub):
        fm, im, fh, ih, fn, inn = gates(v)
        m = m + fm * (im - m)
        h = h + fh * (ih - h)
        n = n + fn * (inn - n)
        cur = (ie - K.HH_GNA * m ** 3 * h * (v - K.HH_ENA) - K.HH_GK * n ** 4 * (v - K.HH_EK)
               - K.HH_GL * (v - K.HH_EL))
        v = v + dt * cur
    return {0: v, 1: m, 2: h, 3: n}


def ref_hh_exp(v):
    dt = float(v[6])

    def gates(vv):
        am, bm, ah, bh, an, bn = C.hh_rates(vv)
        out = []
        for a, b in ((am, bm), (ah, bh), (an, bn)):
            out += [1.0 - np.exp(-dt * (a + b)), a / (a + b)]
        return out
    return hh_np(*v[:5], int(v[5]), dt, gates)


def ref_hh_table(v):
    tab = v[7].astype(f64)

    def gates(vv):
        x = np.clip((vv - K.HH_TV0) / K.HH_TDV, 0.0, K.HH_TN - 1 - 0.001)
        r = x.astype(int)
        f = (x - r)[:, None]
        row = (1 - f) * tab[r] + f * tab[r + 1]
        return [row[:, c] for c in range(6)]
    return hh_np(*v[:5], int(v[5]), float(v[6]), gates)


# ---- Gaussian mixture -------------------------------------------------------------------------------------

def ref_gmm(v):
    x, mu, packed, cst = (a.astype(f64) for a in v[:4])
    d = K.GM_D
    lp = np.zeros((len(x), K.GM_K))
    for k in range(K.GM_K):
        u = np.zeros((d, d))
        o = 0
        for r in range(d):
            u[r, r:] = packed[k, o:o + d - r]
            o += d - r
        y = (x - mu[k]) @ u
        lp[:, k] = cst[k] - 0.5 * np.sum(y * y, 1)
    best = lp.max(1, keepdims=True)
    ll = best[:, 0] + np.log(np.exp(lp - best).sum(1))
    return {4: np.exp(lp - ll[:, None]), 5: ll}


# ---- incomplete gamma --------------------------------------------------------------------------------------

def ref_gammq(v):
    from scipy.special import gammaincc
    stat, df = v[:2]
    return {2: gammaincc(df / 2, stat / 2)}


# ---- state vector --------------------------------------------------------------------------------------------

def ref_qsim(v):
    psi, g, q = v
    q = int(q)
    z = psi[:, 0].astype(f64) + 1j * psi[:, 1].astype(f64)
    gm = (g[:, 0].astype(f64) + 1j * g[:, 1].astype(f64)).reshape(2, 2)
    z = z.reshape(-1, 2, 1 << q)                         # (high bits, bit q, low bits)
    z = np.einsum("ab,hbl->hal", gm, z).reshape(-1)
    return {0: np.stack([z.real, z.imag], 1)}


# ---- dedispersion ------------------------------------------------------------------------------------------------

def ref_dedisp(v):
    fb, delay, out = v
    ndm, nout = out.shape
    fb = fb.astype(f64)
    t = np.arange(nout)
    want = np.zeros((ndm, nout))
    for dm in range(ndm):
        for c in range(fb.shape[0]):
            want[dm] += fb[c, t + delay[dm, c]]
    return {2: want}


# ---- dynamic time warping -------------------------------------------------------------------------------------------

def ref_dtw(v):
    q, cand = v[0].astype(f64), v[1].astype(f64)
    nq, (nc, n) = len(q), cand.shape
    cost = np.abs(q[:, None, None] - cand[None, :, :])        # (i, j, candidate)
    d = np.full((nq + 1, nc + 1, n), np.inf)
    d[0, 0] = 0.0
    for i in range(1, nq + 1):
        for j in range(1, nc + 1):
            d[i, j] = cost[i - 1, j - 1] + np.minimum(np.minimum(d[i - 1, j], d[i, j - 1]), d[i - 1, j - 1])
    return {2: d[nq, nc]}


# ---- epistasis ---------------------------------------------------------------------------------------------------------

def ref_epi(v):
    flat, nw, ss, ps, ws, ni, nj, tab = v
    nw, ss, ps, ws, ni, nj = (int(a) for a in (nw, ss, ps, ws, ni, nj))
    ns = ni + nj
    s = np.arange(ns)[:, None, None]
    p = np.arange(2)[None, :, None]
    w = np.arange(nw)[None, None, :]
    planes = flat[s * ss + p * ps + w * ws]                      # (ns, 2, nw)
    bits = np.unpackbits(planes.view(np.uint8), axis=2, bitorder="little").astype(np.int64)
    g = np.stack([bits[:, 0], bits[:, 1], 1 - bits[:, 0] - bits[:, 1]], 1)   # (ns, 3, nsamp)
    a, b = g[:ni], g[ni:]
    want = np.einsum("ixs,jys->ijxy", a, b).reshape(ni * nj, 9)
    return {7: want.astype(i32)}


# ---- the chaos game -------------------------------------------------------------------------------------------------------

def ref_fern(v):
    """The walkers replayed in float32 (the same draws and maps); pixels compared within 2
    hits (a point on a pixel's edge may round to its neighbour), at most 0.5% may differ."""
    seed, steps, skip, res, img = v
    steps, skip, res = int(steps), int(skip), int(res)
    s = seed.copy()
    x = np.zeros(len(s), f32)
    y = np.zeros(len(s), f32)
    sx, sy = f32(res) / f32(KA.FERN_W), f32(res) / f32(KA.FERN_H)
    want = np.zeros(res * res, np.int64)
    for k in range(steps):
        s ^= s << u32(13)
        s ^= s >> u32(17)
        s ^= s << u32(5)
        r = (s >> u32(8)).astype(np.int64)
        m1, m2, m3 = r < KA.FERN_T1, r < KA.FERN_T2, r < KA.FERN_T3
        nx = np.select([m1, m2, m3], [f32(0) * x, f32(0.85) * x + f32(0.04) * y, f32(0.2) * x - f32(0.26) * y],
                       f32(-0.15) * x + f32(0.28) * y).astype(f32)
        ny = np.select([m1, m2, m3], [f32(0.16) * y, f32(-0.04) * x + f32(0.85) * y + f32(1.6),
                                      f32(0.23) * x + f32(0.22) * y + f32(1.6)],
                       f32(0.26) * x + f32(0.24) * y + f32(0.44)).astype(f32)
        x, y = nx, ny
        if k >= skip:
            px = np.clip(((x - f32(KA.FERN_X0)) * sx).astype(np.int64), 0, res - 1)
            py = np.clip((y * sy).astype(np.int64), 0, res - 1)
            np.add.at(want, py * res + px, 1)
    return {4: close_share(want, 2)}


# ---- sweep and prune -----------------------------------------------------------------------------------------------------------

def ref_sap(v):
    lx, hx, ly, hy, lz, hz = (a.astype(f64) for a in v[:6])
    n = len(lx)
    want = np.zeros(n, i32)
    for i in range(n):
        j = np.arange(i + 1, n)
        ok = (lx[j] <= hx[i]) & (ly[j] <= hy[i]) & (hy[j] >= ly[i]) & (lz[j] <= hz[i]) & (hz[j] >= lz[i])
        want[i] = ok.sum()
    return {6: want}


# ---- Hilbert curve -----------------------------------------------------------------------------------------------------------

def hilbert_np(x, y, order=KA.HB_ORDER):
    x = x.astype(np.int64)
    y = y.astype(np.int64)
    nm1 = (1 << order) - 1
    d = np.zeros(len(x), np.int64)
    s = 1 << (order - 1)
    while s > 0:
        rx = ((x & s) > 0).astype(np.int64)
        ry = ((y & s) > 0).astype(np.int64)
        d += s * s * ((3 * rx) ^ ry)
        flip = (ry == 0) & (rx == 1)
        x = np.where(flip, nm1 - x, x)
        y = np.where(flip, nm1 - y, y)
        sw = ry == 0
        x, y = np.where(sw, y, x), np.where(sw, x, y)
        s >>= 1
    return d.astype(u32)


def ref_hilbert(v):
    want = hilbert_np(v[0], v[1])
    # the curve visits every cell once: the indices of the 2^8 x 2^8 grid of order 8 are a permutation
    g = np.arange(1 << 16)
    assert np.array_equal(np.sort(hilbert_np(g >> 8, g & 255, 8)), g.astype(u32))
    return {len(v) - 1: want}


# ---- SSAO -----------------------------------------------------------------------------------------------------------------------

def ref_ssao(v):
    """The same float32 operations in numpy; pixels compared within 1e-6, at most 0.5% may
    differ (an offset on an integer's edge rounds to the next pixel)."""
    z, kx, ky, rot, radius, bias, rng = v[:7]
    h, w = z.shape
    ii, jj = np.mgrid[0:h, 0:w]
    r = rot[(ii & 3) * 4 + (jj & 3)]
    occ = np.zeros((h, w))
    for s in range(KA.SS_N):
        ox = (r[..., 0] * kx[s] - r[..., 1] * ky[s]).astype(f32)
        oy = (r[..., 1] * kx[s] + r[..., 0] * ky[s]).astype(f32)
        sj = np.clip(jj + (f32(radius) * ox).astype(np.int64), 0, w - 1)
        si = np.clip(ii + (f32(radius) * oy).astype(np.int64), 0, h - 1)
        ds = z[si, sj]
        occ += (ds < (z - f32(bias)).astype(f32)) & ((z - ds).astype(f32) < f32(rng))
    return {7: close_share(1.0 - occ / KA.SS_N, 1e-6)}


# ---- xxHash -----------------------------------------------------------------------------------------------------------------------

def _rotl(x, r, bits):
    m = (1 << bits) - 1
    return ((x << r) | (x >> (bits - r))) & m


def xxh32_py(data: bytes, seed: int) -> int:
    m = 0xFFFFFFFF
    p1, p2, p3 = KA.XX32_P1, KA.XX32_P2, KA.XX32_P3
    v = [(seed + p1 + p2) & m, (seed + p2) & m, seed & m, (seed - p1) & m]
    words = np.frombuffer(data, "<u4").tolist()
    for k in range(0, len(words), 4):
        for lane in range(4):
            a = (v[lane] + words[k + lane] * p2) & m
            v[lane] = (_rotl(a, 13, 32) * p1) & m
    h = (_rotl(v[0], 1, 32) + _rotl(v[1], 7, 32) + _rotl(v[2], 12, 32) + _rotl(v[3], 18, 32) + len(data)) & m
    h ^= h >> 15
    h = (h * p2) & m
    h ^= h >> 13
    h = (h * p3) & m
    return h ^ (h >> 16)


def xxh64_py(data: bytes, seed: int) -> int:
    m = (1 << 64) - 1
    p1, p2, p3, p4 = KA.XX64_P1, KA.XX64_P2, KA.XX64_P3, KA.XX64_P4

    def rnd(acc, lane):
        return (_rotl((acc + lane * p2) & m, 31, 64) * p1) & m
    v = [(seed + p1 + p2) & m, (seed + p2) & m, seed & m, (seed - p1) & m]
    words = np.frombuffer(data, "<u8").tolist()
    for k in range(0, len(words), 4):
        for lane in range(4):
            v[lane] = rnd(v[lane], words[k + lane])
    h = (_rotl(v[0], 1, 64) + _rotl(v[1], 7, 64) + _rotl(v[2], 12, 64) + _rotl(v[3], 18, 64)) & m
    for lane in range(4):
        h = ((h ^ rnd(0, v[lane])) * p1 + p4) & m
    h = (h + len(data)) & m
    h ^= h >> 33
    h = (h * p2) & m
    h ^= h >> 29
    h = (h * p3) & m
    return h ^ (h >> 32)


def _xxhash_package_agrees():
    """The Python xxHash against the `xxhash` package on a few keys, where it is installed."""
    try:
        import xxhash
    except ImportError:
        return
    rng = np.random.default_rng(7)
    for _ in range(4):
        data = rng.integers(0, 256, KA.XX_LEN, dtype=np.int64).astype(np.uint8).tobytes()
        assert xxh32_py(data, 0x9747B28C) == xxhash.xxh32_intdigest(data, seed=0x9747B28C)
        assert xxh64_py(data, 0x9747B28C) == xxhash.xxh64_intdigest(data, seed=0x9747B28C)


def ref_xxh32(v):
    _xxhash_package_agrees()
    msg, seed = v[0], int(v[1])
    return {2: np.array([xxh32_py(msg[k].astype("<u4").tobytes(), seed) for k in range(len(msg))], u32)}


def ref_xxh64(v):
    _xxhash_package_agrees()
    msg, seed = v[0], int(v[1])
    return {2: np.array([xxh64_py(msg[k].astype("<u8").tobytes(), seed) for k in range(len(msg))], u64)}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("hh_exp", K.hh_exp, C.hh(4096, False), ""), ref_hh_exp, 1e-3),
    (L("hh_table", K.hh_table, C.hh(4096, True), ""), ref_hh_table, 1e-3),
    (L("gmm_f64", K.gmm_estep, C.gmm(2048, f64), ""), ref_gmm, 1e-10),
    (L("gmm_f32", K.gmm_estep, C.gmm(2048, f32), ""), ref_gmm, 1e-4),
    (L("gammq_mixed", K.gammq_chi2, C.gammq(4096, False), ""), ref_gammq, 1e-10),
    (L("gammq_sorted", K.gammq_chi2, C.gammq(4096, True), ""), ref_gammq, 1e-10),
    (L("qsim_q0", K.qsim_gate1, C.qsim(12, 0), "", C.QS_T), ref_qsim, 1e-5),
    (L("qsim_q20", K.qsim_gate1, C.qsim(12, 10), "", C.QS_T), ref_qsim, 1e-5),
    (L("dedisp_f32", K.dedisperse, C.dedisp(8, 64, 512, 128, False), ""), ref_dedisp, 1e-5),
    (L("dedisp_u8", K.dedisperse, C.dedisp(8, 64, 512, 128, True), ""), ref_dedisp, 1e-6),
    (L("dtw_rowmajor", K.dtw_rowmajor, C.dtw(512), ""), ref_dtw, 1e-4),
    (L("dtw_interleaved", K.dtw_interleaved, C.dtw(512), ""), ref_dtw, 1e-4),
    (L("epi_snpmajor", KA.epi_tables, C.epi(8, 256, 512, False), ""), ref_epi, 0),
    (L("epi_wordmajor", KA.epi_tables, C.epi(8, 256, 512, True), ""), ref_epi, 0),
    (L("fern_small", KA.fern_chaos, C.fern(4096, 64, 64), ""), ref_fern, 5e-3),
    (L("fern_large", KA.fern_chaos, C.fern(4096, 64, 512), ""), ref_fern, 5e-3),
    (L("sap_dense", KA.sap_count, C.sap(4096, 0.01, 0.01), ""), ref_sap, 0),
    (L("sap_sparse", KA.sap_count, C.sap(4096, 2e-4, 0.01), ""), ref_sap, 0),
    (L("hilbert_loop", KA.hilbert_loop, C.hilbert(64 * 1024, False), ""), ref_hilbert, 0),
    (L("hilbert_table", KA.hilbert_table, C.hilbert(64 * 1024, True), ""), ref_hilbert, 0),
    (L("ssao_r48", KA.ssao, C.ssao(256, 48.0), "", C.SS_T), ref_ssao, 5e-3),
    (L("ssao_r4", KA.ssao, C.ssao(256, 4.0), "", C.SS_T), ref_ssao, 5e-3),
    (L("xxh64", KA.xxh64_keys, C.xxh(1024, True), ""), ref_xxh64, 0),
    (L("xxh32", KA.xxh32_keys, C.xxh(1024, False), ""), ref_xxh32, 0),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
