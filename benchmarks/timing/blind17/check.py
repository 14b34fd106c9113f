"""Check every kernel of the seventeenth blind set against numpy (a Python RC4 checked against
published test vectors, BLOSUM62 against Biopython's where that is installed), on the fast cpu
engine at small sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind17/check.py [names] [--device cuda]
"""
from __future__ import annotations

import math
import sys
from itertools import product
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind17 import cases as C  # noqa: E402
from timing.blind17 import kernels as K  # noqa: E402
from timing.blind17 import kernels_apps as KA  # noqa: E402

f32, f64, i32, u32 = np.float32, np.float64, np.int32, np.uint32

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (rounding at a voxel's edge).


def close_share(want, atol):
    """A transform for results where a few elements may differ by rounding at a boundary: 1
    where the kernel's value is within atol of the reference's, 0 elsewhere (compared with
    ones, so that the tolerance is the share of elements allowed to differ)."""
    def fn(got, res):
        return (np.abs(got.astype(f64) - want) <= atol).astype(i32)
    return fn, np.ones(np.shape(want), i32)


# ---- Lomb-Scargle ------------------------------------------------------------------------------------

def ref_ls(v):
    """The periodogram by its definition: tau from tan(2 omega tau) = sum sin 2 omega t /
    sum cos 2 omega t, then the sums of y cos and y sin of omega (t - tau) directly (fp64)."""
    t, y, om = (a.astype(f64) for a in v[:3])
    wt = om[:, None] * t[None, :]
    tau = np.arctan2(np.sin(2 * wt).sum(1), np.cos(2 * wt).sum(1)) / (2 * om)
    arg = om[:, None] * (t[None, :] - tau[:, None])
    c, s = np.cos(arg), np.sin(arg)
    p = 0.5 * ((c @ y) ** 2 / (c * c).sum(1) + (s @ y) ** 2 / (s * s).sum(1))
    return {3: p}


# ---- biquad cascade ------------------------------------------------------------------------------------

def ref_sos(v):
    """Each section by its difference equation (direct form I), fp64, channels at once."""
    flat, sos, nt, cs, ts = v[:5]
    nt, cs, ts = int(nt), int(cs), int(ts)
    nch = flat.size // nt
    idx = np.arange(nch)[:, None] * cs + np.arange(nt)[None, :] * ts
    x = flat[idx].astype(f64)                               # (channel, t)
    for b0, b1, b2, _, a1, a2 in sos.astype(f64):
        y = np.zeros_like(x)
        for t in range(nt):
            acc = b0 * x[:, t]
            if t >= 1:
                acc += b1 * x[:, t - 1] - a1 * y[:, t - 1]
            if t >= 2:
                acc += b2 * x[:, t - 2] - a2 * y[:, t - 2]
            y[:, t] = acc
        x = y
    want = np.zeros(flat.size)
    want[idx] = x
    return {5: want}


# ---- Kuramoto ----------------------------------------------------------------------------------------------

def ref_kura(v):
    """The all-pairs sine sum in fp64 (the check's step is 1, so that the coupling term is not
    lost beside the phase)."""
    th, om, kc, dt = v[0].astype(f64), v[1].astype(f64), float(v[2]), float(v[3])
    s = np.sin(th[None, :] - th[:, None]).sum(1)
    return {4: th + dt * (om + kc / len(th) * s)}


# ---- CTC ------------------------------------------------------------------------------------------------------

def ctc_nll_np(logp, lab):
    """-log p(labels | x) by the forward recursion over the extended sequence, fp64."""
    ext = np.zeros(2 * len(lab) + 1, int)
    ext[1::2] = lab
    ns = len(ext)
    skip = np.zeros(ns, bool)
    skip[3::2] = ext[3::2] != ext[1:-2:2]
    a = np.full(ns, -np.inf)
    a[:2] = logp[0, ext[:2]]
    for t in range(1, len(logp)):
        b = a.copy()
        b[1:] = np.logaddexp(b[1:], a[:-1])
        b[2:] = np.where(skip[2:], np.logaddexp(b[2:], a[:-2]), b[2:])
        a = b + logp[t, ext]
    return -np.logaddexp(a[-1], a[-2])


def ctc_brute(logp, lab):
    """-log of the sum over every frame-wise path that collapses to the labels (tiny cases)."""
    tot = 0.0
    for path in product(range(logp.shape[1]), repeat=len(logp)):
        out = []
        prev = -1
        for p in path:
            if p != prev and p != 0:
                out.append(p)
            prev = p
        if out == list(lab):
            tot += math.exp(sum(logp[t, p] for t, p in enumerate(path)))
    return -math.log(tot)


def ref_ctc(v):
    logp, lab, nlab, nfr = v[:4]
    r = np.random.default_rng(3)
    for small in ([1, 2], [2, 2], [1, 1, 3]):       # the numpy recursion against brute force
        lp = np.log(r.dirichlet(np.ones(4), 6))
        assert abs(ctc_nll_np(lp, small) - ctc_brute(lp, small)) < 1e-9
    want = np.array([ctc_nll_np(logp[b, :nfr[b]].astype(f64), lab[b, :nlab[b]]) for b in range(len(nlab))])
    return {4: want}


# ---- logistic regression --------------------------------------------------------------------------------------

def ref_logreg(v):
    x, y, w = (a.astype(f64) for a in v[:3])
    e = 1.0 / (1.0 + np.exp(-(w @ x))) - y
    return {3: x @ e}


# ---- LRN ---------------------------------------------------------------------------------------------------------

def ref_lrn(v):
    a, _, nc, hw, cs, ps, isz, alpha, beta, kk = v
    nc, hw, cs, ps, isz = (int(z) for z in (nc, hw, cs, ps, isz))
    nimg = a.size // isz
    idx = (np.arange(nimg)[:, None, None] * isz + np.arange(nc)[None, :, None] * cs
           + np.arange(hw)[None, None, :] * ps)
    x = a[idx].astype(f64)                                   # (image, channel, pixel)
    half = K.LRN_N // 2
    sq = np.pad(x * x, ((0, 0), (half, half), (0, 0)))
    s = sum(sq[:, k:k + nc] for k in range(K.LRN_N))
    want = np.zeros(a.size)
    want[idx] = x * (float(kk) + float(alpha) / K.LRN_N * s) ** (-float(beta))
    return {1: want}


# ---- adaptive Simpson ---------------------------------------------------------------------------------------------

def ref_simpson(v):
    """The integrals in closed form: (b - e^-a (a sin b + b cos b)) / (a^2 + b^2)."""
    a, b = v[0].astype(f64), v[1].astype(f64)
    return {3: (b - np.exp(-a) * (a * np.sin(b) + b * np.cos(b))) / (a * a + b * b)}


# ---- RC4 ------------------------------------------------------------------------------------------------------------

def rc4_py(key: bytes, n: int, drop: int = 0) -> bytes:
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) & 255
        s[i], s[j] = s[j], s[i]
    i = j = 0
    out = []
    for k in range(drop + n):
        i = (i + 1) & 255
        j = (j + s[i]) & 255
        s[i], s[j] = s[j], s[i]
        if k >= drop:
            out.append(s[(s[i] + s[j]) & 255])
    return bytes(out)


def _rc4_vectors():
    """The Python RC4 against the published test vectors (Key/Plaintext, Wiki/pedia,
    Secret/Attack at dawn)."""
    for key, pt, ct in ((b"Key", b"Plaintext", "bbf316e8d940af0ad3"), (b"Wiki", b"pedia", "1021bf0420"),
                        (b"Secret", b"Attack at dawn", "45a01f645fc35b383552544b9bf5")):
        ks = rc4_py(key, len(pt))
        assert bytes(p ^ k for p, k in zip(pt, ks)).hex() == ct


def ref_rc4(v):
    _rc4_vectors()
    key = v[0]
    out = [np.frombuffer(rc4_py(key[k].astype("<u4").tobytes(), 4 * KA.RC4_WORDS, KA.RC4_DROP), "<u4")
           for k in range(len(key))]
    return {1: np.array(out, u32)}


# ---- distance transform ----------------------------------------------------------------------------------------------

def ref_edt(v):
    """d(q) = min_p (q - p)^2 + f(p) along each line, by brute force (fp64)."""
    f, n, nl, lpi, isz, sl, sk = v[:7]
    n, nl, lpi, isz, sl, sk = (int(z) for z in (n, nl, lpi, isz, sl, sk))
    lines = np.arange(nl)
    idx = ((lines // lpi) * isz + (lines % lpi) * sl)[:, None] + np.arange(n)[None, :] * sk
    fl = f[idx].astype(f64)                                   # (line, q)
    q = np.arange(n)
    d = ((q[:, None] - q[None, :]) ** 2)[None, :, :] + fl[:, None, :]
    want = np.zeros(f.size)
    want[idx] = d.min(2)
    return {9: want}


# ---- voxel traversal -------------------------------------------------------------------------------------------------

def ref_dda(v):
    """The same traversal replayed in numpy with the kernel's float32 operations, all rays at
    once; voxels compared exactly and entry parameters within 1e-3, at most 0.5% may differ (a
    ray through a voxel's edge or corner)."""
    occ, g, o, d = v[:4]
    g = int(g)
    gf = f32(g)
    one, zero = f32(1.0), f32(0.0)
    inv = (one / d).astype(f32)
    t0 = ((zero - o) * inv).astype(f32)
    t1 = ((gf - o) * inv).astype(f32)
    tin = np.maximum(np.minimum(t0, t1).max(1), zero)
    tout = np.maximum(t0, t1).min(1)
    n = len(d)
    found = np.full(n, -1, np.int64)
    tf = np.full(n, -1.0, f32)
    act = tin < tout
    p = (o + d * tin[:, None]).astype(f32)
    c = np.clip(np.floor(p).astype(np.int64), 0, g - 1)
    st = np.where(d < 0, -1, 1)
    tm = (((c + (st + 1) // 2).astype(f32) - o) * inv).astype(f32)
    td = np.abs(inv)
    t = tin.copy()
    r = np.arange(n)
    while act.any():
        a = r[act]
        cell = (c[a, 2] * g + c[a, 1]) * g + c[a, 0]
        occd = occ[cell] != 0
        found[a[occd]] = cell[occd]
        tf[a[occd]] = t[a[occd]]
        act[a[occd]] = False
        a = a[~occd]
        m = tm[a]
        ax = np.where((m[:, 0] < m[:, 1]) & (m[:, 0] < m[:, 2]), 0, np.where(m[:, 1] < m[:, 2], 1, 2))
        c[a, ax] += st[a, ax]
        t[a] = tm[a, ax]
        tm[a, ax] = (tm[a, ax] + td[a, ax]).astype(f32)
        out = (c[a, ax] < 0) | (c[a, ax] >= g)
        act[a[out]] = False
    return {4: close_share(found, 0), 5: close_share(tf, 1e-3)}


# ---- BLAST X-drop -------------------------------------------------------------------------------------------------------

def _blosum_agrees():
    """The kernels' BLOSUM62 against Biopython's, where it is installed; symmetric either way."""
    m = np.array(KA.BLOSUM62).reshape(20, 20)
    assert np.array_equal(m, m.T)
    try:
        from Bio.Align import substitution_matrices
    except ImportError:
        return
    b = substitution_matrices.load("BLOSUM62")
    aa = "ARNDCQEGHILKMFPSTWYV"
    assert all(m[i, j] == b[x][y] for i, x in enumerate(aa) for j, y in enumerate(aa))


def ref_xdrop(v):
    _blosum_agrees()
    q, s, qp, sp, mat, word, xd = v[:7]
    q, s = q.astype(int).tolist(), s.astype(int).tolist()
    m = np.array(mat).reshape(20, 20).tolist()
    word, xd = int(word), int(xd)
    sc, er, el = [], [], []
    for a, b in zip(qp.tolist(), sp.tolist()):
        w = sum(m[q[a + k]][s[b + k]] for k in range(word))
        run = best = br = 0
        k = word
        while a + k < len(q) and b + k < len(s):
            run += m[q[a + k]][s[b + k]]
            k += 1
            if run > best:
                best, br = run, k - word
            elif best - run > xd:
                break
        run = bestl = bl = 0
        k = 1
        while a - k >= 0 and b - k >= 0:
            run += m[q[a - k]][s[b - k]]
            if run > bestl:
                bestl, bl = run, k
            elif bestl - run > xd:
                break
            k += 1
        sc.append(w + best + bestl)
        er.append(br)
        el.append(bl)
    return {7: np.array(sc, i32), 8: np.array(er, i32), 9: np.array(el, i32)}


# ---- decimal parsing -------------------------------------------------------------------------------------------------

def ref_atof(v):
    """Python's float() of each field (correctly rounded, as the kernels' quotient of exact
    values is): equal bit for bit."""
    raw = v[0].view(np.uint8).reshape(-1, KA.AF_W)
    return {1: np.array([float(bytes(r).decode().strip()) for r in raw])}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("ls_f64", K.lomb_scargle, C.ls(512, 256, f64), ""), ref_ls, 1e-10),
    (L("ls_f32", K.lomb_scargle, C.ls(512, 256, f32), ""), ref_ls, 1e-3),
    (L("sos_chanmajor", K.sos_filter, C.sos(256, 64, True), ""), ref_sos, 1e-5),
    (L("sos_timemajor", K.sos_filter, C.sos(256, 64, False), ""), ref_sos, 1e-5),
    (L("kura_sin", K.kuramoto_sin, C.kura(512, 1.0), ""), ref_kura, 1e-5),
    (L("kura_sincos", K.kuramoto_sincos, C.kura(512, 1.0), ""), ref_kura, 1e-5),
    (L("ctc_large", K.ctc_alpha, C.ctc(16), ""), ref_ctc, 1e-4),
    (L("ctc_small", K.ctc_alpha, C.ctc(8), ""), ref_ctc, 1e-4),
    (L("logreg_atomic", K.logreg_grad_atomic, C.logreg(8192), ""), ref_logreg, 1e-4),
    (L("logreg_block", K.logreg_grad_block, C.logreg(8192), ""), ref_logreg, 1e-4),
    (L("lrn_nhwc", K.lrn_across, C.lrn(2, 24, 13, 13, True), ""), ref_lrn, 1e-5),
    (L("lrn_nchw", K.lrn_across, C.lrn(2, 24, 13, 13, False), ""), ref_lrn, 1e-5),
    (L("simpson_1e6", K.simpson_adapt, C.simpson(1024, 1e-6), ""), ref_simpson, 1e-5),
    (L("simpson_1e4", K.simpson_adapt, C.simpson(1024, 1e-4), ""), ref_simpson, 1e-3),
    (L("rc4_words", KA.rc4_words, C.rc4(256), ""), ref_rc4, 0),
    (L("rc4_bytes", KA.rc4_bytes, C.rc4(256), ""), ref_rc4, 0),
    (L("edt_rows", KA.edt_lines, C.edt(2, 64, False, 0.03), ""), ref_edt, 1e-6),
    (L("edt_cols", KA.edt_lines, C.edt(2, 64, True, 0.03), ""), ref_edt, 1e-6),
    (L("dda_shuffled", KA.voxel_dda, C.dda(64, 48, True), "", C.DDA_T), ref_dda, 5e-3),
    (L("dda_coherent", KA.voxel_dda, C.dda(64, 48, False), "", C.DDA_T), ref_dda, 5e-3),
    (L("xdrop_global", KA.xdrop_global, C.xdrop(2048, 512, 64 * 1024, 0.1, 40), ""), ref_xdrop, 0),
    (L("xdrop_shared", KA.xdrop_shared, C.xdrop(2048, 512, 64 * 1024, 0.1, 40), ""), ref_xdrop, 0),
    (L("atof_bytes", KA.atof_bytes, C.atof(4096, False), ""), ref_atof, 0),
    (L("atof_words", KA.atof_words, C.atof(4096, True), ""), ref_atof, 0),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
