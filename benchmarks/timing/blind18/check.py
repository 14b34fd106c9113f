"""Check every kernel of the eighteenth blind set against numpy (the Van der Pol endpoints
against scipy's LSODA at tight tolerances, Speck against a Python version checked on the
published test vectors, rANS against the symbols that were encoded), on the fast cpu engine at
small sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind18/check.py [names] [--device cuda]
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind18 import cases as C  # noqa: E402
from timing.blind18 import kernels as K  # noqa: E402
from timing.blind18 import kernels_apps as KA  # noqa: E402

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (a tie between codes, rounding at a box's edge).


def close_share(want, atol, axis=None):
    """A transform for results where a few elements may differ by rounding at a boundary: 1
    where the kernel's value is within atol of the reference's (all of a row along axis), 0
    elsewhere (compared with ones, so that the tolerance is the share of elements allowed to
    differ)."""
    def fn(got, res):
        ok = np.abs(got.astype(f64).reshape(np.shape(want)) - want) <= atol
        return (ok.all(axis) if axis is not None else ok).astype(i32)
    shape = np.shape(want) if axis is None else np.shape(want)[:axis]
    return fn, np.ones(shape, i32)


# ---- LIBOR -------------------------------------------------------------------------------------------------

def ref_libor(v):
    """The path recursion, discount factors, annuities and swaptions in fp64, all paths at once."""
    z, lam, l0, mat, strike, delta = (np.asarray(a, f64) for a in v[:6])
    delta = float(delta)
    npath = z.shape[1]
    rate = np.repeat(l0[:, None], npath, 1)
    for n in range(K.LB_NMAT):
        sq = math.sqrt(delta) * z[n]
        acc = np.zeros(npath)
        for i in range(n + 1, K.LB_NN):
            lm = lam[i - n - 1]
            c1 = delta * lm
            acc += c1 * rate[i] / (1.0 + delta * rate[i])
            rate[i] *= np.exp(c1 * acc + lm * (sq - 0.5 * c1))
    disc = np.cumprod(1.0 / (1.0 + delta * rate[K.LB_NMAT:]), 0)
    ann = np.cumsum(delta * disc, 0)
    val = np.zeros(npath)
    for m, k in zip(mat.astype(int), strike):
        val += 100.0 * np.maximum(0.0, 1.0 - disc[m - 1] - k * ann[m - 1])
    val /= np.prod(1.0 + delta * rate[:K.LB_NMAT], 0)
    return {6: val}


# ---- Dormand-Prince ----------------------------------------------------------------------------------------

DP_A = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
        [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
        [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
        [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
DP_BSTAR = [5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40]


def dp_replay(mu, t_end, tol):
    """The kernel's integrator replayed in numpy, all oscillators at once (the tableau written
    out here from Dormand and Prince's; the error weights as b - b*): the steps tried."""
    def f(y):
        return np.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])
    err_w = [b - bs for b, bs in zip(DP_A[6] + [0.0], DP_BSTAR)]
    n = len(mu)
    y = np.stack([np.full(n, 2.0), np.zeros(n)])
    k1 = f(y)
    t = np.zeros(n)
    h = np.full(n, 1e-3)
    steps = np.zeros(n, np.int64)
    act = t < t_end
    while act.any():
        h = np.where(act, np.minimum(h, t_end - t), h)
        ks = [k1]
        for s in range(1, 7):
            ks.append(f(y + h * sum(a * k for a, k in zip(DP_A[s], ks))))
        ynew = y + h * sum(b * k for b, k in zip(DP_A[6], ks))
        e = h * sum(w * k for w, k in zip(err_w, ks))
        sc = e / (tol * (1 + np.maximum(np.abs(y), np.abs(ynew))))
        err = np.sqrt(0.5 * (sc ** 2).sum(0))
        steps += act
        with np.errstate(divide="ignore"):
            fac = np.where(err > 0, np.clip(0.9 * err ** -0.2, 0.2, 5.0), 5.0)
        ok = act & (err <= 1)
        t = np.where(ok, t + h, t)
        y = np.where(ok, ynew, y)
        k1 = np.where(ok, ks[6], k1)
        fac = np.where(err <= 1, fac, np.minimum(fac, 1.0))
        h = np.where(act, h * fac, h)
        act = (t < t_end) & (steps < K.DP_MAXSTEPS)
    return steps


def ref_dopri(v):
    """The endpoints by scipy's LSODA at rtol = atol = 1e-11 (independent of the kernel's
    method), the steps tried by a numpy replay of the kernel's controller."""
    from scipy.integrate import solve_ivp
    mu, t_end, tol = v[0], float(v[1]), float(v[2])
    want = []
    for m in mu:
        r = solve_ivp(lambda t, y: [y[1], m * (1 - y[0] ** 2) * y[1] - y[0]], (0.0, t_end), [2.0, 0.0],
                      method="LSODA", rtol=1e-11, atol=1e-11)
        want.append(r.y[:, -1])
    return {3: np.array(want), 4: dp_replay(mu, t_end, tol).astype(i32)}


# ---- Kalman filter -----------------------------------------------------------------------------------------

def ref_kalman(v):
    """The filter in matrix form (numpy, fp64, tracks at once): P = F P F^T + Q, S = H P H^T +
    R, K = P H^T S^-1 by numpy's inverse, x += K nu, P = (I - K H) P."""
    z, par, nt = v[0].astype(f64), v[1].astype(f64), int(v[2])
    n = len(v[4])
    dt, q, r, p0, pv0 = par
    z = z.reshape(nt, n, 2)
    F = np.eye(4)
    F[0, 2] = F[1, 3] = dt
    qa = q * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    Q = np.zeros((4, 4))
    Q[np.ix_([0, 2], [0, 2])] = qa
    Q[np.ix_([1, 3], [1, 3])] = qa
    H = np.zeros((2, 4))
    H[0, 0] = H[1, 1] = 1.0
    x = np.zeros((n, 4))
    x[:, :2] = z[0]
    P = np.broadcast_to(np.diag([p0, p0, pv0, pv0]), (n, 4, 4)).copy()
    ll = np.zeros(n)
    for t in range(1, nt):
        x = x @ F.T
        P = F @ P @ F.T + Q
        nu = z[t] - x[:, :2]
        S = H @ P @ H.T + r * np.eye(2)
        Si = np.linalg.inv(S)
        G = P @ H.T @ Si
        x = x + np.einsum("nij,nj->ni", G, nu)
        P = P - G @ H @ P
        ll += -0.5 * (np.log(np.linalg.det(S)) + np.einsum("ni,nij,nj->n", nu, Si, nu)) - math.log(2 * math.pi)
    return {3: x.ravel(), 4: ll}


# ---- polyphase filterbank ----------------------------------------------------------------------------------

def ref_pfb(v):
    x, h, nch = v[0].astype(f64), v[1].astype(f64), int(v[2])
    nspec = len(v[3]) // nch
    xs = x.reshape(-1, nch)
    hs = h.reshape(K.PFB_P, nch)
    return {3: sum(hs[p] * xs[p:p + nspec] for p in range(K.PFB_P)).ravel()}


# ---- P1 assembly -------------------------------------------------------------------------------------------

def ref_fem(v):
    """Every element's matrix (kappa / (4 area)) (b b^T + c c^T) in fp64, summed into a scipy
    CSR matrix; its values in the pattern's order."""
    from scipy.sparse import coo_matrix
    xy, tri, kappa, row_ptr, col = v[0].astype(f64), v[1], v[2].astype(f64), v[3], v[4]
    p = xy[tri]                                                         # (e, 3, 2)
    b = np.stack([p[:, 1, 1] - p[:, 2, 1], p[:, 2, 1] - p[:, 0, 1], p[:, 0, 1] - p[:, 1, 1]], 1)
    c = np.stack([p[:, 2, 0] - p[:, 1, 0], p[:, 0, 0] - p[:, 2, 0], p[:, 1, 0] - p[:, 0, 0]], 1)
    area2 = ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
             - (p[:, 2, 0] - p[:, 0, 0]) * (p[:, 1, 1] - p[:, 0, 1]))
    assert (area2 > 0).all()
    ke = (b[:, :, None] * b[:, None, :] + c[:, :, None] * c[:, None, :]) * (kappa / (2 * area2))[:, None, None]
    nv = len(row_ptr) - 1
    rows = np.repeat(tri, 3, 1).ravel()
    cols = np.tile(tri, (1, 3)).ravel()
    a = coo_matrix((ke.ravel(), (rows, cols)), shape=(nv, nv)).tocsr()
    a.sort_indices()
    assert np.array_equal(a.indptr, row_ptr) and np.array_equal(a.indices, col)
    return {len(v) - 1: a.data}


# ---- product quantisation ----------------------------------------------------------------------------------

def pq_dists(codes, lut, nq):
    """The distances of every query to every code (fp64)."""
    by = codes.view(np.uint8).reshape(len(codes), K.PQ_M)               # little-endian: byte k of word 0 first
    t = lut.astype(f64).reshape(nq, K.PQ_M, K.PQ_K)
    return sum(t[:, m, by[:, m]] for m in range(K.PQ_M))                # (nq, ncode)


def ref_pq(v):
    """Each (query, chunk)'s nearest code; the kernel's index is accepted when its distance is
    the chunk's smallest within 1e-4 (a tie between codes, summed in another order)."""
    codes, lut, nchunk = v[0], v[1], int(v[2])
    nq = len(v[3]) // nchunk
    d = pq_dists(codes, lut, nq).reshape(nq, nchunk, -1)
    best = d.min(2).ravel()
    size = d.shape[2]

    def fn(got, res):
        idx = got.astype(np.int64)
        ch = np.arange(len(idx)) % nchunk
        ok = (idx // size == ch) & (idx >= 0)
        dd = d.reshape(nq * nchunk, -1)[np.arange(len(idx)), np.clip(idx - ch * size, 0, size - 1)]
        return (ok & (np.abs(dd - best) <= 1e-4 * (1 + best))).astype(i32)
    return {3: best, 4: (fn, np.ones(len(best), i32))}


# ---- rANS --------------------------------------------------------------------------------------------------

def rans_decode_np(words, start, tab, ns, lanes, nsym):
    """A numpy rANS decoder (the same stream layout, lanes read in order), to check the encoder."""
    x = np.zeros((ns, lanes), np.uint64)
    w = words.astype(np.uint64)
    for l in range(lanes):
        x[:, l] = w[start + 2 * l] | (w[start + 2 * l + 1] << np.uint64(16))
    p = start.astype(np.int64) + 2 * lanes
    out = np.zeros((ns, lanes, nsym), np.int64)
    t = tab.astype(np.uint64)
    for j in range(nsym):
        slot = x & np.uint64(KA.RANS_MASK)
        e = t[slot]
        out[:, :, j] = e & np.uint64(255)
        freq = (e >> np.uint64(8)) & np.uint64(KA.RANS_MASK)
        x = freq * (x >> np.uint64(KA.RANS_SCALE)) + slot - (e >> np.uint64(20))
        for l in range(lanes):
            nd = x[:, l] < np.uint64(KA.RANS_L)
            x[nd, l] = (x[nd, l] << np.uint64(16)) | w[p[nd]]
            p[nd] += 1
    return out


def make_ref_rans(ns, nsym, warp):
    def ref(v):
        words, start, tab = v[:3]
        lanes = 32 if warp else 1
        sym = C.rans_symbols(np.random.default_rng(1), ns, lanes, nsym)     # the maker's first draw
        assert np.array_equal(rans_decode_np(words, start, tab, ns, lanes, nsym), sym)
        if warp:                                                        # out[w, j, lane]
            return {4: sym.transpose(0, 2, 1).astype(np.uint8).ravel()}
        return {4: sym.astype(np.uint8).ravel().view("<u4").astype(u32)}
    return ref


# ---- Speck -------------------------------------------------------------------------------------------------

def speck_encrypt(x, y, ks, n):
    mask = (1 << n) - 1
    for k in ks:
        x = ((((x >> 8) | (x << (n - 8))) & mask) + y) & mask ^ k
        y = (((y << 3) | (y >> (n - 3))) & mask) ^ x
    return x, y


def _speck_vectors():
    """The key schedule (cases.py's) and the round function (here) against the published
    vectors of Speck64/128 and Speck128/128 (Beaulieu et al., 2013)."""
    ks = C.speck_round_keys([0x1B1A1918, 0x13121110, 0x0B0A0908, 0x03020100], 32, 27)
    assert speck_encrypt(0x3B726574, 0x7475432D, ks, 32) == (0x8C6FA548, 0x454E028B)
    ks = C.speck_round_keys([0x0F0E0D0C0B0A0908, 0x0706050403020100], 64, 32)
    assert speck_encrypt(0x6C61766975716520, 0x7469206564616D20, ks, 64) == (0xA65D985179783265, 0x7860FEDF5C570D18)


def ref_speck(v):
    _speck_vectors()
    pt, rk, iv, n = v[0], [int(k) for k in v[1]], int(v[2][0]), int(v[3])
    ks = np.array([speck_encrypt(iv, i, rk, n) for i in range(len(pt) // 2)], dtype=object).ravel()
    return {4: pt ^ ks.astype(pt.dtype)}


# ---- cuckoo hashing ----------------------------------------------------------------------------------------

def ref_cuckoo(v):
    """The table's own key-value pairs (a sorted search), CK_EMPTY for a key it does not hold;
    and the table itself checked: every stored key sits in one of its three slots."""
    table, seeds, bits, q = v[0], v[1], int(v[2]), v[3]
    keys = (table >> u64(32)).astype(u32)
    full = keys != u32(KA.CK_EMPTY)
    slots = np.nonzero(full)[0]
    home = np.zeros(len(slots), bool)
    for s in seeds:
        home |= C.cuckoo_slots(keys[full], s, bits) == slots
    assert home.all()
    order = np.argsort(keys[full])
    sk, sv = keys[full][order], (table[full][order] & u64(0xFFFFFFFF)).astype(u32)
    pos = np.clip(np.searchsorted(sk, q), 0, len(sk) - 1)
    return {4: np.where(sk[pos] == q, sv[pos], u32(KA.CK_EMPTY)).astype(u32)}


# ---- clipping ----------------------------------------------------------------------------------------------

def ref_clip(v):
    """Liang and Barsky's parametric clipping in fp64 (numpy); segments agree when every end
    coordinate is within 1e-4 (0.1% may not: a segment through a corner)."""
    s = v[0].astype(f64)
    xmin, ymin, xmax, ymax = (float(b) for b in v[1:5])
    dx, dy = s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]
    u0, u1 = np.zeros(len(s)), np.ones(len(s))
    for p, q in ((-dx, s[:, 0] - xmin), (dx, xmax - s[:, 0]), (-dy, s[:, 1] - ymin), (dy, ymax - s[:, 1])):
        with np.errstate(divide="ignore", invalid="ignore"):
            r = q / p
        u0 = np.where(p < 0, np.maximum(u0, r), u0)
        u1 = np.where(p > 0, np.minimum(u1, r), u1)
        u1 = np.where((p == 0) & (q < 0), -1.0, u1)
    keep = u0 <= u1
    out = np.stack([s[:, 0] + u0 * dx, s[:, 1] + u0 * dy, s[:, 0] + u1 * dx, s[:, 1] + u1 * dy], 1)
    out[~keep] = 0.0
    return {5: close_share(out, 1e-4, axis=1), 6: keep.astype(i32)}


# ---- local entropy -----------------------------------------------------------------------------------------

def ref_entropy(v):
    """Every pixel's 5 x 5 window (edges replicated) counted into 16 bins, the entropy in fp64."""
    img = v[0].astype(np.int64)
    h, w = img.shape
    pad = np.pad(img, KA.ENT_R, mode="edge")
    cnt = np.zeros((h, w, KA.ENT_BINS))
    for dy in range(KA.ENT_W):
        for dx in range(KA.ENT_W):
            cnt += np.eye(KA.ENT_BINS)[pad[dy:dy + h, dx:dx + w]]
    n = KA.ENT_W ** 2
    p = cnt / n
    with np.errstate(divide="ignore", invalid="ignore"):
        e = -np.where(cnt > 0, p * np.log2(p), 0.0).sum(2)
    return {1: e}


# ---- Count-Min ---------------------------------------------------------------------------------------------

def ref_cms(v):
    items, ha, hb, bits = v[0], v[1], v[2], int(v[3])
    sk = np.zeros(KA.CMS_D << bits, np.int64)
    for r in range(KA.CMS_D):
        c = ((ha[r] * items + hb[r]).astype(u32) >> u32(32 - bits)).astype(np.int64)
        np.add.at(sk, (r << bits) + c, 1)
    return {4: sk.astype(i32)}


L = C.Launch


def rans_launch(name, kernel, ns, nsym, warp):
    launch = L(name, kernel, C.rans(ns, nsym, warp), "")
    return launch, make_ref_rans(ns, nsym, warp)


# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("libor_small", K.libor_path, C.libor(128), ""), ref_libor, 1e-4),
    (L("libor_large", K.libor_path, C.libor(256), ""), ref_libor, 1e-4),
    (L("dopri_shuffled", K.dopri5_vdp, C.dopri(64, False), ""), ref_dopri, 1e-4),
    (L("dopri_sorted", K.dopri5_vdp, C.dopri(64, True), ""), ref_dopri, 1e-4),
    (L("kalman_f64", K.kalman_cv, C.kalman(256, 64, f64), ""), ref_kalman, 1e-9),
    (L("kalman_f32", K.kalman_cv, C.kalman(256, 64, f32), ""), ref_kalman, 1e-3),
    (L("pfb_direct", K.pfb_direct, C.pfb(256, 128, False), ""), ref_pfb, 1e-5),
    (L("pfb_ring", K.pfb_ring, C.pfb(256, 128, True), ""), ref_pfb, 1e-5),
    (L("fem_elem", K.fem_assemble_elem, C.fem(24, False), "", C.FEM_T), ref_fem, 1e-5),
    (L("fem_row", K.fem_assemble_row, C.fem(24, True), "", C.FEM_T), ref_fem, 1e-5),
    (L("pq_q1", K.pq_scan_q1, C.pq(8, 8192, 4, 1), ""), ref_pq, 1e-5),
    (L("pq_q4", K.pq_scan_q4, C.pq(8, 8192, 4, K.PQ_QB), ""), ref_pq, 1e-5),
    (*rans_launch("rans_thread", KA.rans_thread, 256, 64, False), 0),
    (*rans_launch("rans_warp", KA.rans_warp, 8, 64, True), 0),
    (L("speck128", KA.speck_ctr, C.speck(8192, 64), ""), ref_speck, 0),
    (L("speck64", KA.speck_ctr, C.speck(8192, 32), ""), ref_speck, 0),
    (L("cuckoo_large", KA.cuckoo_lookup, C.cuckoo(14, 0.6, 4096), ""), ref_cuckoo, 0),
    (L("cuckoo_small", KA.cuckoo_lookup, C.cuckoo(11, 0.6, 4096), ""), ref_cuckoo, 0),
    (L("clip_cs", KA.clip_cs, C.clip(8192), "", C.CLIP_T), ref_clip, 1e-3),
    (L("clip_lb", KA.clip_lb, C.clip(8192), "", C.CLIP_T), ref_clip, 1e-3),
    (L("entropy_global", KA.entropy_global, C.entropy(64, 96), ""), ref_entropy, 1e-5),
    (L("entropy_tiled", KA.entropy_tiled, C.entropy(64, 96), ""), ref_entropy, 1e-5),
    (L("cms_narrow", KA.cms_update, C.cms(8192, 10, ndist=4096), ""), ref_cms, 0),
    (L("cms_wide", KA.cms_update, C.cms(8192, 16, ndist=4096), ""), ref_cms, 0),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
