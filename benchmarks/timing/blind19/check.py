"""Check every kernel of the nineteenth blind set against numpy (the Gaussian fits against
scipy's Levenberg-Marquardt, the k-d tree against scipy's cKDTree, EOS-80 and Blowfish against
their published check values, the GCDs against numpy's gcd), on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind19/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind19 import cases as C  # noqa: E402
from timing.blind19 import kernels as K  # noqa: E402
from timing.blind19 import kernels_apps as KA  # noqa: E402

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (an order, a tie, rounding at a boundary).


def scaled(want, factor):
    """A transform comparing got x factor with want x factor (mixing ratios in g/kg)."""
    return (lambda got, res: got.astype(f64) * factor), np.asarray(want) * factor


# ---- miniWeather -------------------------------------------------------------------------------------------

def mw_fluxes(a, b, c, d):
    """Fourth-order interface values and third differences of four cells."""
    return (-a + 7 * b + 7 * c - d) / 12.0, -a + 3 * b - 3 * c + d


def ref_mw_x(v):
    """The x tendencies in numpy: every interface's flux at once (the cells on its two sides),
    then the flux differences."""
    st, r0, rt0, dx, dt, beta = v[0], v[1], v[2], float(v[3]), float(v[4]), float(v[5])
    hs = K.MW_HS
    nz, nx = st.shape[1] - 2 * hs, st.shape[2] - 2 * hs
    q = st[:, hs:hs + nz]
    val, d3 = mw_fluxes(*(q[:, :, s:s + nx + 1] for s in range(4)))
    hv = -beta * dx / (16 * dt)
    r = val[0] + r0[hs:hs + nz, None]
    u, w, t = val[1] / r, val[2] / r, (val[3] + rt0[hs:hs + nz, None]) / r
    p = K.MW_C0 * (r * t) ** K.MW_GAMMA
    f = np.stack([r * u - hv * d3[0], r * u * u + p - hv * d3[1], r * u * w - hv * d3[2], r * u * t - hv * d3[3]])
    return {6: -(f[:, :, 1:] - f[:, :, :-1]) / dx}


def ref_mw_z(v):
    """The z tendencies in numpy: the interfaces' fluxes with the background there, no normal
    velocity or density diffusion at the walls, then the differences and gravity."""
    st, ri, rti, pi, dz, dt, beta = v[0], v[1], v[2], v[3], float(v[4]), float(v[5]), float(v[6])
    hs = K.MW_HS
    nz, nx = st.shape[1] - 2 * hs, st.shape[2] - 2 * hs
    q = st[:, :, hs:hs + nx]
    val, d3 = mw_fluxes(*(q[:, s:s + nz + 1] for s in range(4)))
    hv = -beta * dz / (16 * dt)
    r = val[0] + ri[:, None]
    u, w, t = val[1] / r, val[2] / r, (val[3] + rti[:, None]) / r
    p = K.MW_C0 * (r * t) ** K.MW_GAMMA - pi[:, None]
    w[[0, -1]] = 0.0
    d3[0][[0, -1]] = 0.0
    f = np.stack([r * w - hv * d3[0], r * w * u - hv * d3[1], r * w * w + p - hv * d3[2], r * w * t - hv * d3[3]])
    tend = -(f[:, 1:] - f[:, :-1]) / dz
    tend[2] -= st[0, hs:hs + nz, hs:hs + nx] * K.MW_GRAV
    return {7: tend}


# ---- Kessler -----------------------------------------------------------------------------------------------

def ref_kessler(v):
    """Kessler's scheme in numpy, all levels of all columns at once per sub-step (the
    sedimentation from the sub-step's starting values, as the scheme defines it), columns with
    fewer sub-steps left unchanged in the later ones. Mixing ratios compared in g/kg."""
    z, sk, sc, dt = v[6], int(v[7]), int(v[8]), float(v[9])
    nz = len(z)
    ncol = len(v[10])
    shape = (nz, ncol) if sc == 1 else (ncol, nz)
    th, qv, qc, qr, rho, pk = (np.array(a, f64).reshape(shape) if sc == 1 else np.array(a, f64).reshape(shape).T
                               for a in v[:6])
    r = 0.001 * rho
    rhalf = np.sqrt(rho[0] / rho)
    pc = 3.8 / (pk ** (1.0 / K.KS_XK) * K.KS_PSL)
    dzs = np.diff(z)[:, None]
    vel = 36.34 * (qr * r) ** 0.1364 * rhalf
    ratio = np.where(vel[:-1] != 0, 0.8 * dzs / np.where(vel[:-1] != 0, vel[:-1], 1.0), np.inf)
    nsub = np.ceil(dt / np.minimum(dt, ratio.min(0)))
    dt0 = dt / nsub
    prec = np.zeros(ncol)
    for n in range(int(nsub.max())):
        act = n < nsub
        vel = 36.34 * (qr * r) ** 0.1364 * rhalf
        prec += np.where(act, rho[0] * qr[0] * vel[0] / K.KS_RHOQR, 0.0)
        flux = r * qr * vel
        sed = np.empty_like(qr)
        sed[:-1] = dt0 * (flux[1:] - flux[:-1]) / (r[:-1] * dzs)
        sed[-1] = -dt0 * qr[-1] * vel[-1] / (0.5 * (z[-1] - z[-2]))
        prodr = qc - (qc - dt0 * np.maximum(0.001 * (qc - 0.001), 0.0)) / (1.0 + dt0 * 2.2 * qr ** 0.875)
        qc1 = np.maximum(qc - prodr, 0.0)
        qr1 = np.maximum(qr + prodr + sed, 0.0)
        tk = pk * th
        qvs = pc * np.exp(K.KS_F2X * (tk - 273.0) / (tk - 36.0))
        prod = (qv - qvs) / (1.0 + qvs * K.KS_F5 / (tk - 36.0) ** 2)
        rq = r * qr1
        evap = (dt0 * ((1.6 + 124.9 * rq ** 0.2046) * rq ** 0.525) / (2.55e6 * pc / (3.8 * qvs) + 5.4e5)
                * (np.maximum(qvs - qv, 0.0) / (r * qvs)))
        ern = np.minimum.reduce([evap, np.maximum(-prod - qc1, 0.0), qr1])
        product = np.maximum(prod, -qc1)
        th = np.where(act, th + 2.5e6 / (1003.0 * pk) * (product - ern), th)
        qv = np.where(act, np.maximum(qv - product + ern, 0.0), qv)
        qc = np.where(act, qc1 + product, qc)
        qr = np.where(act, qr1 - ern, qr)

    def lay(a):
        return (a if sc == 1 else a.T).ravel()
    return {0: lay(th), 1: scaled(lay(qv), 1e3), 2: scaled(lay(qc), 1e3), 3: scaled(lay(qr), 1e3),
            10: scaled(prec / nsub, 1e3)}


# ---- EOS-80 ------------------------------------------------------------------------------------------------

# UNESCO's coefficients (Fofonoff and Millard 1983), lowest power first
EOS_RW = [999.842594, 6.793952e-2, -9.095290e-3, 1.001685e-4, -1.120083e-6, 6.536332e-9]
EOS_A = [8.24493e-1, -4.0899e-3, 7.6438e-5, -8.2467e-7, 5.3875e-9]
EOS_B = [-5.72466e-3, 1.0227e-4, -1.6546e-6]
EOS_KW = [19652.21, 148.4206, -2.327105, 1.360477e-2, -5.155288e-5]
EOS_AW = [3.239908, 1.43713e-3, 1.16092e-4, -5.77905e-7]
EOS_BW = [8.50935e-5, -6.12293e-6, 5.2787e-8]
EOS_K1 = [54.6746, -0.603459, 1.09987e-2, -6.1670e-5]
EOS_K15 = [7.944e-2, 1.6483e-2, -5.3009e-4]
EOS_A1 = [2.2838e-3, -1.0981e-5, -1.6078e-6]
EOS_B1 = [-9.9348e-7, 2.0816e-8, 9.1697e-10]


def eos80(s, t, p):
    """EOS-80's density in fp64 (p in dbar)."""
    def pv(c, x):
        return np.polynomial.polynomial.polyval(x, c)
    pb = p / 10.0
    r0 = pv(EOS_RW, t) + pv(EOS_A, t) * s + pv(EOS_B, t) * s ** 1.5 + 4.8314e-4 * s ** 2
    k = (pv(EOS_KW, t) + pv(EOS_K1, t) * s + pv(EOS_K15, t) * s ** 1.5
         + (pv(EOS_AW, t) + pv(EOS_A1, t) * s + 1.91075e-4 * s ** 1.5) * pb
         + (pv(EOS_BW, t) + pv(EOS_B1, t) * s) * pb ** 2)
    return r0 / (1.0 - pb / k)


def ref_eos(v):
    """The density in fp64, the formula first checked on UNESCO's published check values."""
    got = eos80(np.array([0.0, 35.0, 35.0]), np.array([5.0, 5.0, 25.0]), np.array([0.0, 0.0, 10000.0]))
    assert np.allclose(got, [999.96675, 1027.67547, 1062.53817], rtol=0, atol=1e-5), got
    return {3: eos80(*(np.asarray(a, f64) for a in v[:3]))}


# ---- MPM ---------------------------------------------------------------------------------------------------

def ref_mpm(v):
    """The particle-to-grid sums in fp64 by np.add.at, the weights written from the quadratic
    B-spline."""
    x, vel, c, jac = (np.asarray(a, f64) for a in v[:4])
    n, dx, dt, vol, mass, e = int(v[4]), *(float(a) for a in v[5:10])
    xp = x / dx
    base = np.floor(xp - 0.5).astype(np.int64)
    fx = xp - base
    w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
    stress = -dt * 4 * e * vol * (jac - 1.0) / dx ** 2
    aff = stress[:, None, None] * np.eye(2) + mass * c
    gm, gv = np.zeros(n * n), np.zeros((n * n, 2))
    for i in range(3):
        for j in range(3):
            wt = w[i][:, 0] * w[j][:, 1]
            dpos = (np.array([i, j]) - fx) * dx
            node = (base[:, 1] + j) * n + base[:, 0] + i
            np.add.at(gm, node, wt * mass)
            np.add.at(gv, node, wt[:, None] * (mass * vel + np.einsum("pab,pb->pa", aff, dpos)))
    return {10: gm, 11: gv[:, 0], 12: gv[:, 1]}


# ---- Gaussian fits -----------------------------------------------------------------------------------------

def ref_lm(v):
    """Each fit by scipy's Levenberg-Marquardt (MINPACK) in fp64 from the same start, to tight
    tolerances; the iterations taken only checked to lie in 1..LM_MAXIT."""
    from scipy.optimize import least_squares
    data, init = v[0].astype(f64), v[1].astype(f64)
    py, px = np.divmod(np.arange(K.LM_S * K.LM_S), K.LM_S)

    def resid(p, y):
        return y - (p[0] * np.exp(-0.5 * ((px - p[1]) ** 2 + (py - p[2]) ** 2) / p[3] ** 2) + p[4])
    par = np.array([least_squares(resid, p0, args=(y,), method="lm", xtol=1e-14, ftol=1e-14, gtol=1e-14).x
                    for p0, y in zip(init, data)])
    par[:, 3] = np.abs(par[:, 3])
    chi2 = np.array([(resid(p, y) ** 2).sum() for p, y in zip(par, data)])
    iters = (lambda got, res: ((got >= 1) & (got <= K.LM_MAXIT)).astype(i32)), np.ones(len(data), i32)
    return {2: par, 3: chi2, 4: iters}


# ---- SDDMM -------------------------------------------------------------------------------------------------

def ref_sddmm(v):
    row, col, val, x, y = v[0], v[1], v[2].astype(f64), v[3].astype(f64), v[4].astype(f64)
    return {5: val * (x[row] * y[col]).sum(1)}


# ---- k-d tree ----------------------------------------------------------------------------------------------

def ref_kd(v):
    """scipy's cKDTree over the same points; an index is accepted when its point is as near as
    the nearest within 1e-6 (a tie computed in another order)."""
    from scipy.spatial import cKDTree
    pts, q = v[0].astype(f64), v[1].astype(f64)
    d, _ = cKDTree(pts).query(q)
    best = d ** 2

    def fn(got, res):
        idx = np.clip(got.astype(np.int64), 0, len(pts) - 1)
        dd = ((pts[idx] - q) ** 2).sum(1)
        return ((got >= 0) & (np.abs(dd - best) <= 1e-6 * (1 + best))).astype(i32)
    return {2: (fn, np.ones(len(q), i32)), 3: best}


# ---- GCD ---------------------------------------------------------------------------------------------------

def ref_gcd(v):
    return {2: np.gcd(v[0].astype(np.int64), v[1].astype(np.int64)).astype(u64)}


# ---- Blowfish ----------------------------------------------------------------------------------------------

def _bf_vectors():
    """cases.py's key schedule and encryption against Eric Young's published Blowfish vectors
    (64-bit keys)."""
    for key, pt, ct in [("0000000000000000", 0, 0x4EF997456198DD78),
                        ("FFFFFFFFFFFFFFFF", 0xFFFFFFFFFFFFFFFF, 0x51866FD5B85ECB8A),
                        ("3000000000000000", 0x1000000000000001, 0x7D856F9A613063F2),
                        ("0123456789ABCDEF", 0x1111111111111111, 0x61F9C3802281B096)]:
        p, s = C.bf_expand(bytes.fromhex(key))
        xl, xr = C.bf_encrypt(pt >> 32, pt & 0xFFFFFFFF, p, s)
        assert (xl << 32 | xr) == ct, key


def ref_bf(v):
    _bf_vectors()
    pt, p, s, nonce = v[0], [int(a) for a in v[1]], [int(a) for a in v[2]], [int(a) for a in v[3]]
    ks = [C.bf_encrypt(nonce[0], nonce[1] ^ i, p, s) for i in range(len(pt) // 2)]
    return {4: pt ^ np.array(ks, u32).ravel()}


# ---- light culling -----------------------------------------------------------------------------------------

def ref_lights(v):
    """Every tile's depth range and every light's five tests in fp64 (numpy); the counts may
    differ on 2% of the tiles (a sphere touching a plane within rounding), the lists are
    compared as sets."""
    depth, lts = v[0].astype(f64), v[1].astype(f64)
    focal, cx, cy = (float(a) for a in v[2:5])
    t = KA.LC_T
    h, w = depth.shape
    tiles = depth.reshape(h // t, t, w // t, t)
    zmin, zmax = tiles.min((1, 3)).ravel(), tiles.max((1, 3)).ravel()
    by, bx = np.divmod(np.arange(len(zmin)), w // t)
    a0, a1 = (bx * t - cx) / focal, ((bx + 1) * t - cx) / focal
    b0, b1 = (by * t - cy) / focal, ((by + 1) * t - cy) / focal
    x, y, z, r = (lts[:, k][None, :] for k in range(4))
    vis = (z + r >= zmin[:, None]) & (z - r <= zmax[:, None])
    for a, sgn, c in ((a0, 1, x), (a1, -1, x), (b0, 1, y), (b1, -1, y)):
        vis &= sgn * (c - a[:, None] * z) / np.sqrt(1 + a[:, None] ** 2) >= -r
    count = vis.sum(1)
    assert count.max() <= KA.LC_MAX

    def lists(got, res):
        cnt = res(5)
        ok = [np.array_equal(np.sort(got[k * KA.LC_MAX:k * KA.LC_MAX + min(cnt[k], KA.LC_MAX)]), np.nonzero(vis[k])[0])
              for k in range(len(cnt))]
        return np.array(ok, i32)
    return {5: count.astype(i32), 6: (lists, np.ones(len(count), i32))}


# ---- RANSAC ------------------------------------------------------------------------------------------------

def ref_ransac(v):
    """Every hypothesis's transfer errors in fp64; a count is accepted within one of numpy's (an
    error at the threshold within rounding), the cost within 1e-3 (a correspondence near a
    hypothesis's horizon line, w ~ 1e-5, loses digits in fp32)."""
    corr, hyp, thr2 = v[0].astype(f64), v[1].astype(f64).reshape(-1, 3, 3), float(v[2])
    xy1 = np.concatenate([corr[:, :2], np.ones((len(corr), 1))], 1)
    pr = np.einsum("hij,nj->hni", hyp, xy1)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = ((pr[:, :, :2] / pr[:, :, 2:] - corr[None, :, 2:]) ** 2).sum(2)
    inl = e < thr2
    want = inl.sum(1)
    near = (lambda got, res: (np.abs(got.astype(np.int64) - want) <= 1).astype(i32)), np.ones(len(want), i32)
    return {3: near, 4: np.where(inl, e, thr2).sum(1)}


# ---- Aho-Corasick ------------------------------------------------------------------------------------------

def ref_ac(pats):
    """Every pattern's occurrences (overlapping) counted by comparing it with every window of the
    text; the patterns as the maker drew them (its second draw, after the text)."""
    def ref(v):
        text = v[0]
        hits = []
        for p in pats(len(text)):
            win = np.lib.stride_tricks.sliding_window_view(text, len(p))
            hits.append(int((win == np.frombuffer(p, np.uint8)).all(1).sum()))
        return {len(v) - 1: np.array(hits, i32)}
    return ref


def ac_pats(npat):
    def pats(n):
        rng = np.random.default_rng(1)
        C.ac_text(n, rng)
        return C.ac_patterns(npat, rng)
    return pats


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("mw_x", K.mw_tend_x, C.miniweather(64, 32, False), ""), ref_mw_x, 1e-10),
    (L("mw_z", K.mw_tend_z, C.miniweather(64, 32, True), ""), ref_mw_z, 1e-10),
    (L("kessler_levels", K.kessler_column, C.kessler(256, 32, True), ""), ref_kessler, 1e-10),
    (L("kessler_columns", K.kessler_column, C.kessler(256, 32, False), ""), ref_kessler, 1e-10),
    (L("eos80_f64", K.eos80_density, C.eos(4096, f64), ""), ref_eos, 1e-12),
    (L("eos80_f32", K.eos80_density, C.eos(4096, f32), ""), ref_eos, 1e-5),
    (L("mpm_sorted", K.mpm_p2g, C.mpm(4096, 64, "sorted"), "", C.MPM_T), ref_mpm, 1e-4),
    (L("mpm_shuffled", K.mpm_p2g, C.mpm(4096, 64, "shuffled"), "", C.MPM_T), ref_mpm, 1e-4),
    (L("lm_fit_small", K.lm_gauss2d, C.lm(128), ""), ref_lm, 2e-3),
    (L("lm_fit_large", K.lm_gauss2d, C.lm(256), ""), ref_lm, 2e-3),
    (L("sddmm_thread", K.sddmm_thread, C.sddmm(1024, 8192, False), ""), ref_sddmm, 1e-5),
    (L("sddmm_warp", K.sddmm_warp, C.sddmm(1024, 8192, True), ""), ref_sddmm, 1e-5),
    (L("kd_local", KA.kd_nn_local, C.kdtree(12, 2048), "", C.KD_T), ref_kd, 1e-5),
    (L("kd_shared", KA.kd_nn_shared, C.kdtree(12, 2048), "", C.KD_T), ref_kd, 1e-5),
    (L("gcd_euclid", KA.gcd_euclid, C.gcd(4096), ""), ref_gcd, 0),
    (L("gcd_binary", KA.gcd_binary, C.gcd(4096), ""), ref_gcd, 0),
    (L("bf_global", KA.bf_ctr_global, C.blowfish(1 << 16), ""), ref_bf, 0),
    (L("bf_shared", KA.bf_ctr_shared, C.blowfish(1 << 16), ""), ref_bf, 0),
    (L("lights_few", KA.light_cull, C.lights(256, 128, 64), "", C.LIGHT_T), ref_lights, 0.02),
    (L("lights_many", KA.light_cull, C.lights(256, 128, 512), "", C.LIGHT_T), ref_lights, 0.02),
    (L("ransac_thread", KA.ransac_thread, C.ransac(1024, 256, False), "", C.RS_T), ref_ransac, 1e-3),
    (L("ransac_block", KA.ransac_block, C.ransac(1024, 256, True), "", C.RS_T), ref_ransac, 1e-3),
    (L("ac_dfa", KA.ac_dfa, C.aho_corasick(1 << 16, 256, False), ""), ref_ac(ac_pats(256)), 0),
    (L("ac_pfac", KA.ac_pfac, C.aho_corasick(1 << 16, 256, True), ""), ref_ac(ac_pats(256)), 0),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
