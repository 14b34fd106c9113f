"""Check every kernel of the fifteenth blind set against numpy (and hashlib for BLAKE2), on the
fast cpu engine at small sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind15/check.py [names] [--device cuda]
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind15 import cases as C  # noqa: E402
from timing.blind15 import kernels as K  # noqa: E402
from timing.blind15 import kernels_apps as KA  # noqa: E402

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (the order of atomics, a tolerance of a search).


def snap_counts(want):
    """A transform for iteration counts: differences of one step are taken as agreement (a
    stopping test on the edge of its tolerance)."""
    def fn(got, res):
        return np.where(np.abs(got.astype(np.int64) - want) <= 1, want, got).astype(want.dtype)
    return fn


# ---- AIDW ---------------------------------------------------------------------------------------------

def ref_aidw(v):
    qx, qy, px, py, pz, r_exp = v[:6]
    d2 = ((qx.astype(f64)[:, None] - px.astype(f64)[None, :]) ** 2
          + (qy.astype(f64)[:, None] - py.astype(f64)[None, :]) ** 2)
    near = np.sort(d2, 1)[:, :K.AIDW_K]
    r_obs = np.sqrt(near).mean(1)
    rr = r_obs / float(r_exp)
    mu = np.where(rr < 2.0, 0.5 - 0.5 * np.cos(np.pi * rr * 0.5), 1.0)
    alpha = np.clip(1.0 + 5.0 * (mu - 0.1), 1.0, 5.0)
    w = np.maximum(d2, 1e-20) ** (-0.5 * alpha[:, None])
    return {6: alpha, 7: (w * pz.astype(f64)[None, :]).sum(1) / w.sum(1)}


# ---- farthest point sampling ----------------------------------------------------------------------------

def ref_fps(v):
    pts, temp, idx, n, k = v
    n, k = int(n), int(k)
    b = len(pts) // n
    p = pts.astype(f64).reshape(b, n, 3)
    out = np.zeros((b, k), i32)
    for c in range(b):
        dist = temp[c * n:(c + 1) * n].astype(f64)
        old = 0
        for j in range(1, k):
            dist = np.minimum(dist, np.sum((p[c] - p[c, old]) ** 2, 1))
            old = int(np.argmax(dist))
            out[c, j] = old
    return {2: out.ravel()}


# ---- Householder QR -------------------------------------------------------------------------------------

def ref_tsqr(v):
    a, tau = v
    nmat = len(tau) // K.QR_N
    am = a.astype(f64).reshape(nmat, K.QR_N, K.QR_M)
    hh = np.zeros_like(am)
    tt = np.zeros((nmat, K.QR_N))
    for m in range(nmat):
        h, t = np.linalg.qr(am[m].T, mode="raw")       # h: the packed result, transposed
        hh[m] = h
        tt[m] = t
    return {0: hh.ravel(), 1: tt.ravel()}


# ---- Kepler ----------------------------------------------------------------------------------------------

def kepler_np(el, t, tol):
    m = el[0] + el[1] * t
    m = m - 2 * np.pi * np.floor((m + np.pi) / (2 * np.pi))
    e = el[2]
    ea = m + 0.85 * e * np.where(np.sin(m) >= 0, 1.0, -1.0)
    it = np.zeros(len(m), i32)
    live = np.ones(len(m), bool)
    for k in range(K.KP_ITER):
        de = (ea - e * np.sin(ea) - m) / (1 - e * np.cos(ea))
        ea = np.where(live, ea - de, ea)
        it = np.where(live, k + 1, it)
        live &= ~(np.abs(de) < tol)
    xp = el[3] * (np.cos(ea) - e)
    yp = el[3] * np.sqrt(1 - e * e) * np.sin(ea)
    cw, sw, ci, si, cn, sn = (np.cos(el[4]), np.sin(el[4]), np.cos(el[5]), np.sin(el[5]),
                              np.cos(el[6]), np.sin(el[6]))
    x = (cn * cw - sn * sw * ci) * xp - (cn * sw + sn * cw * ci) * yp
    y = (sn * cw + cn * sw * ci) * xp + (cn * cw * ci - sn * sw) * yp
    z = (sw * si) * xp + (cw * si) * yp
    return np.stack([x, y, z], 1), it


def ref_kepler(v):
    pos, it = kepler_np(v[0], float(v[1]), float(v[2]))
    return {3: pos, 4: (snap_counts(it), it)}


# ---- Gillespie -------------------------------------------------------------------------------------------

def ssa_np(x0, seed, k, t_end):
    x = x0.astype(np.int64)
    s = seed.copy()
    t = np.zeros(len(x))
    n = np.zeros(len(x), i32)
    live = np.ones(len(x), bool)

    def step(s):
        s = s ^ (s >> u64(12))
        s = s ^ (s << u64(25))
        s = s ^ (s >> u64(27))
        r = (s * u64(0x2545F4914F6CDD1D)) >> u64(11)
        return s, (r.astype(f64) + 1.0) * 1.1102230246251565e-16
    for _ in range(K.SSA_MAX):
        if not live.any():
            break
        xf = x.astype(f64)
        a1 = k[0] * xf * (xf - 1)
        a2 = k[1] * xf * (xf - 1) * (xf - 2)
        a4 = k[3] * xf
        a12 = a1 + a2
        a123 = a12 + k[2]
        a0 = a123 + a4
        s2, u1 = step(s)
        s2, u2 = step(s2)
        s = np.where(live, s2, s)
        t = np.where(live, t - np.log(u1) / a0, t)
        live &= ~(t > t_end)
        r = u2 * a0
        dx = np.where(r < a1, 1, np.where(r < a12, -1, np.where(r < a123, 1, -1)))
        x = np.where(live, x + dx, x)
        n = n + live
    return x.astype(i32), n


def ref_ssa(v):
    x, n = ssa_np(v[0], v[1], v[2], float(v[3]))
    return {4: x, 5: n}


# ---- polynomial roots ------------------------------------------------------------------------------------

def ref_roots(v):
    c = v[0].astype(f64)
    n = c.shape[1]
    want = np.array([np.roots(np.r_[1.0, c[::-1, p]]) for p in range(n)])     # (n, deg)

    def dist(got, res):
        z = got[:K.RT_DEG].T.astype(f64) + 1j * got[K.RT_DEG:].T.astype(f64)
        return np.min(np.abs(want[:, :, None] - z[:, None, :]), 2) / (1 + np.abs(want))
    return {2: (dist, np.zeros(want.shape))}


# ---- Sinkhorn ---------------------------------------------------------------------------------------------

def ref_sinkhorn(v):
    km, a, b, iters = v[:4]
    bn, n = a.shape
    kk = km.astype(f64).reshape(bn, n, n)
    vv = np.ones((bn, n))
    for _ in range(int(iters)):
        uu = a / np.einsum("pij,pj->pi", kk, vv)
        vv = b / np.einsum("pij,pi->pj", kk, uu)
    return {4: uu, 5: vv}


# ---- advection ----------------------------------------------------------------------------------------------

def ref_advect(v):
    u, vv, q, dt = v[:4]
    h, w = u.shape
    ii, jj = np.mgrid[0:h, 0:w]
    x = np.clip(jj.astype(f32) - f32(dt) * u, f32(0), f32(w - 1)).astype(f32)     # the kernel's float32
    y = np.clip(ii.astype(f32) - f32(dt) * vv, f32(0), f32(h - 1)).astype(f32)
    j0 = np.minimum(x.astype(int), w - 2)
    i0 = np.minimum(y.astype(int), h - 2)
    fx, fy = (x - j0.astype(f32)).astype(f64), (y - i0.astype(f32)).astype(f64)

    def bl(f):
        f = f.astype(f64)
        top = f[i0, j0] + fx * (f[i0, j0 + 1] - f[i0, j0])
        bot = f[i0 + 1, j0] + fx * (f[i0 + 1, j0 + 1] - f[i0 + 1, j0])
        return top + fy * (bot - top)
    return {4: bl(u), 5: bl(vv), 6: bl(q)}


# ---- spiking networks ----------------------------------------------------------------------------------------

def ref_izh(v):
    vv, uu, cur, ext, prm = (a.astype(f64) for a in v[:5])
    inp = cur + ext
    for _ in range(2):
        vv = vv + 0.5 * (0.04 * vv * vv + 5.0 * vv + 140.0 - uu + inp)
    uu = uu + prm[:, 0] * (prm[:, 1] * vv - uu)
    fired = vv >= 30.0
    vv = np.where(fired, prm[:, 2], vv)
    uu = np.where(fired, uu + prm[:, 3], uu)
    n = len(vv)

    def mask(got, res):
        cnt = int(res(5)[0])
        m = np.zeros(n, i32)
        m[got[:cnt]] = 1
        return m
    return {0: vv, 1: uu, 2: np.zeros(n), 5: np.array([fired.sum()], i32), 6: (mask, fired.astype(i32))}


def ref_snn(v):
    spk, post, w, cur = v
    rows = (spk[:, None].astype(np.int64) * K.SN_FAN + np.arange(K.SN_FAN)[None, :]).ravel()
    want = np.zeros(len(cur))
    np.add.at(want, post[rows], w[rows].astype(f64))
    return {3: want}


# ---- GateKeeper ---------------------------------------------------------------------------------------------------

def gatekeeper_py(rd, rf, e):
    full = (1 << 256) - 1
    lo = int("01" * 128, 2)

    def big(w):
        return sum(int(w[k]) << (64 * k) for k in range(4))
    a, b = big(rd), big(rf)
    acc = lo
    for s in range(-e, e + 1):
        sh = ((b << (2 * s)) & full) if s >= 0 else (b >> (-2 * s))
        x = a ^ sh
        h = (x | (x >> 1)) & lo
        if s > 0:
            h &= ~((1 << (2 * s)) - 1)
        elif s < 0:
            h &= full >> (-2 * s)
        l1, r1, l2, r2 = (h << 2) & full, h >> 2, (h << 4) & full, h >> 4
        acc &= h | (l1 & r1) | (l1 & r2) | (l2 & r1)
    return bin(acc).count("1")


def ref_gatekeeper(v):
    rd, rf, e = v[:3]
    edits = np.array([gatekeeper_py(rd[p], rf[p], int(e)) for p in range(len(rd))], i32)
    return {3: edits, 4: (edits <= int(e)).astype(i32)}


# ---- viewshed -----------------------------------------------------------------------------------------------------

def ref_viewshed(v):
    dem, oy, ox, eye_h, cell = v[:5]
    oy, ox = int(oy), int(ox)
    h, w = dem.shape
    ii, jj = np.mgrid[0:h, 0:w]
    di, dj = ii - oy, jj - ox
    n = np.maximum(np.abs(di), np.abs(dj))
    eye = f32(dem[oy, ox] + eye_h)
    nz = np.maximum(n, 1)
    dist = (np.sqrt((di * di + dj * dj).astype(f32)) * f32(cell)).astype(f32)
    dstep = (dist / nz.astype(f32)).astype(f32)
    sy = np.where(di < 0, -((np.abs(di) << 16) // nz), (np.abs(di) << 16) // nz)
    sx = np.where(dj < 0, -((np.abs(dj) << 16) // nz), (np.abs(dj) << 16) // nz)
    fy = (oy << 16) + (1 << 15) + 0 * di
    fx = (ox << 16) + (1 << 15) + 0 * dj
    mx = np.full((h, w), f32(-1e30), f32)
    np.seterr(divide="ignore", invalid="ignore")
    for s in range(1, int(n.max())):
        fy = fy + sy
        fx = fx + sx
        act = s < n
        yy = np.where(act, fy >> 16, 0)
        xx = np.where(act, fx >> 16, 0)
        slope = ((dem[yy, xx] - eye).astype(f32) / (f32(s) * dstep).astype(f32)).astype(f32)
        mx = np.where(act, np.maximum(mx, slope), mx)
    tgt = ((dem - eye).astype(f32) / dist).astype(f32)
    np.seterr(divide="warn", invalid="warn")
    vis = np.where(n == 0, 1, (tgt >= mx).astype(i32)).astype(i32)
    return {5: vis, 6: mx.astype(f64)}


# ---- BLAKE2 ----------------------------------------------------------------------------------------------------------

def ref_blake2b(v):
    msg = v[0]
    out = np.zeros((len(msg), 4), u64)
    for m in range(len(msg)):
        out[m] = np.frombuffer(hashlib.blake2b(msg[m].astype("<u8").tobytes(), digest_size=32).digest(), "<u8")
    return {1: out}


def ref_blake2s(v):
    msg = v[0]
    out = np.zeros((len(msg), 8), u32)
    for m in range(len(msg)):
        out[m] = np.frombuffer(hashlib.blake2s(msg[m].astype("<u4").tobytes(), digest_size=32).digest(), "<u4")
    return {1: out}


# ---- hash encoding ------------------------------------------------------------------------------------------------------

def ref_hashgrid(v):
    pos, table, res, dense, npts = v[:5]
    npts = int(npts)
    out = np.zeros((KA.HG_LEVELS, npts, 2))
    for lv in range(KA.HG_LEVELS):
        r = int(res[lv])
        x = (pos * f32(r)).astype(f32)
        x0 = np.floor(x)
        ix = x0.astype(np.int64)
        fr = (x - x0).astype(f64)
        for c in range(8):
            o = np.array([c & 1, (c >> 1) & 1, (c >> 2) & 1])
            cc = ix + o[None, :]
            if dense[lv]:
                idx = cc[:, 0] + (r + 1) * (cc[:, 1] + (r + 1) * cc[:, 2])
            else:
                cu = cc.astype(u32)
                idx = (cu[:, 0] ^ (cu[:, 1] * u32(KA.HG_P1)) ^ (cu[:, 2] * u32(KA.HG_P2))) & u32(KA.HG_T - 1)
            wgt = np.prod(np.where(o[None, :] == 1, fr, 1 - fr), 1)
            out[lv] += wgt[:, None] * table[lv * KA.HG_T + idx.astype(np.int64)]
    return {5: out.reshape(-1, 2)}


# ---- SLIC -------------------------------------------------------------------------------------------------------------------

def ref_slic(v):
    lab, cen, s, gw, gh, m2s2 = v[:6]
    s, gw, gh = int(s), int(gw), int(gh)
    _, h, w = lab.shape
    ii, jj = np.mgrid[0:h, 0:w]
    cy, cx = ii // s, jj // s
    best = np.full((h, w), np.inf)
    lbl = np.full((h, w), -1, i32)
    lab64 = lab.astype(f64)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            gy, gx = cy + dy, cx + dx
            ok = (gy >= 0) & (gy < gh) & (gx >= 0) & (gx < gw)
            k = np.where(ok, gy * gw + gx, 0)
            c = cen[k].astype(f64)
            d = ((lab64[0] - c[..., 0]) ** 2 + (lab64[1] - c[..., 1]) ** 2 + (lab64[2] - c[..., 2]) ** 2
                 + float(m2s2) * ((ii - c[..., 3]) ** 2 + (jj - c[..., 4]) ** 2))
            better = ok & (d < best)
            best = np.where(better, d, best)
            lbl = np.where(better, k, lbl)
    return {6: lbl, 7: best}


# ---- point splatting -----------------------------------------------------------------------------------------------------------

def ref_splat(v):
    """The frame buffer by np.minimum.at over the same float32 operations; compared by depth:
    a pixel agrees when its depth is within two quanta of the reference's (the winner among
    points that close is a matter of rounding)."""
    pos, col, mvp, near, far, w, h, fb = v
    w, h = int(w), int(h)
    m = mvp.astype(f32)
    x, y, z = (pos[:, k].astype(f32) for k in range(3))

    def row(r):
        return ((m[4 * r] * x + m[4 * r + 1] * y).astype(f32) + m[4 * r + 2] * z).astype(f32) + m[4 * r + 3]
    cx, cy, cw = row(0).astype(f32), row(1).astype(f32), row(3).astype(f32)
    ok = cw > near
    cws = np.where(ok, cw, f32(1))
    sx = ((cx / cws * f32(0.5) + f32(0.5)) * f32(w)).astype(f32)
    sy = ((cy / cws * f32(0.5) + f32(0.5)) * f32(h)).astype(f32)
    ok &= (sx >= 0) & (sy >= 0) & (sx < w) & (sy < h)
    depth = (np.clip((cw - near) / (far - near), f32(0), f32(1)).astype(f32) * f32(16777215.0)).astype(np.int64)
    key = (depth.astype(u64) << u64(32)) | col.astype(u64)
    want = fb.copy()
    idx = sy.astype(np.int64) * w + sx.astype(np.int64)
    np.minimum.at(want, idx[ok], key[ok])
    wd = (want >> u64(32)).astype(np.int64)

    def agree(got, res):
        return (np.abs((got >> u64(32)).astype(np.int64) - wd) <= 2).astype(i32)
    return {7: (agree, np.ones(len(want), i32))}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("aidw_naive", K.aidw_naive, C.aidw(1024, 256), ""), ref_aidw, 1e-4),
    (L("aidw_tiled", K.aidw_tiled, C.aidw(1024, 256), ""), ref_aidw, 1e-4),
    (L("fps_global", K.fps_global, C.fps(4, 1024, 64), "", C.FPS_T), ref_fps, 0),
    (L("fps_shared", K.fps_shared, C.fps(4, 1024, 64), "", C.FPS_T), ref_fps, 0),
    (L("tsqr_f64", K.tsqr_warp, C.tsqr(256, f64), ""), ref_tsqr, 1e-10),
    (L("tsqr_f32", K.tsqr_warp, C.tsqr(256, f32), ""), ref_tsqr, 1e-4),
    (L("kepler_low", K.kepler_orbit, C.kepler(4096, False), "", C.KP_T), ref_kepler, 1e-9),
    (L("kepler_high", K.kepler_orbit, C.kepler(4096, True), "", C.KP_T), ref_kepler, 1e-9),
    (L("ssa_mixed", K.ssa_schlogl, C.ssa(1024, 0.05, False), ""), ref_ssa, 5e-3),
    (L("ssa_sorted", K.ssa_schlogl, C.ssa(1024, 0.05, True), ""), ref_ssa, 5e-3),
    (L("roots_dk", K.roots_dk, C.roots(1024), ""), ref_roots, 1e-3),
    (L("roots_aberth", K.roots_aberth, C.roots(1024), ""), ref_roots, 1e-3),
    (L("sinkhorn_shared", K.sinkhorn_shared, C.sinkhorn(8, 30), ""), ref_sinkhorn, 1e-4),
    (L("sinkhorn_global", K.sinkhorn_global, C.sinkhorn(8, 30), ""), ref_sinkhorn, 1e-4),
    (L("advect_calm", K.advect_sl, C.advect(64, 0.5, 0.1), ""), ref_advect, 1e-5),
    (L("advect_turbulent", K.advect_sl, C.advect(64, 4.0, 4.0), ""), ref_advect, 1e-5),
    (L("izh_quiet", K.izh_update, C.izh(16 * 1024, 0.01), "", C.IZ_T), ref_izh, 1e-5),
    (L("izh_burst", K.izh_update, C.izh(16 * 1024, 0.3), "", C.IZ_T), ref_izh, 1e-5),
    (L("snn_random", K.snn_deliver, C.snn(4096, 1024, False), ""), ref_snn, 1e-5),
    (L("snn_local", K.snn_deliver, C.snn(4096, 1024, True), ""), ref_snn, 1e-5),
    (L("gatekeeper_e2", KA.gatekeeper, C.gatekeeper(4096, 2), ""), ref_gatekeeper, 0),
    (L("gatekeeper_e6", KA.gatekeeper, C.gatekeeper(4096, 6), ""), ref_gatekeeper, 0),
    (L("viewshed_centre", KA.viewshed, C.viewshed(64, 32, 32), ""), ref_viewshed, 1e-6),
    (L("viewshed_corner", KA.viewshed, C.viewshed(64, 2, 2), ""), ref_viewshed, 1e-6),
    (L("blake2b", KA.blake2b_msg, C.blake2(256, True), ""), ref_blake2b, 0),
    (L("blake2s", KA.blake2s_msg, C.blake2(256, False), ""), ref_blake2s, 0),
    (L("hashgrid_ray", KA.hashgrid_encode, C.hashgrid(64, 64, False), "", C.HG_T), ref_hashgrid, 1e-5),
    (L("hashgrid_random", KA.hashgrid_encode, C.hashgrid(64, 64, True), "", C.HG_T), ref_hashgrid, 1e-5),
    (L("slic_s16", KA.slic_assign, C.slic(128, 16), ""), ref_slic, 1e-3),
    (L("slic_s64", KA.slic_assign, C.slic(128, 64), ""), ref_slic, 1e-3),
    (L("splat_near", KA.splat_points, C.splat(64 * 1024, 2.2, 128), "", C.SP_T), ref_splat, 1e-3),
    (L("splat_far", KA.splat_points, C.splat(64 * 1024, 40.0, 128), "", C.SP_T), ref_splat, 1e-3),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
