"""Check every kernel of the fourteenth blind set against numpy (and hashlib for SHA-3), on the
fast cpu engine at small sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind14/check.py [names] [--device cuda]
"""
from __future__ import annotations

import cmath
import hashlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind14 import cases as C  # noqa: E402
from timing.blind14 import kernels as K  # noqa: E402
from timing.blind14 import kernels_apps as KA  # noqa: E402

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (the order of atomics, a tolerance of a search).


# ---- Nekbone ------------------------------------------------------------------------------------

def ref_nekbone(v):
    u, d, g, w = v
    n = K.NX
    u = u.astype(f64).reshape(-1, n, n, n)                 # [e, k, j, i]
    d = d.astype(f64).reshape(n, n)
    g = g.astype(f64).reshape(-1, 6, n, n, n)
    ur = np.einsum("im,ekjm->ekji", d, u)
    us = np.einsum("jm,ekmi->ekji", d, u)
    ut = np.einsum("km,emji->ekji", d, u)
    wr = g[:, 0] * ur + g[:, 1] * us + g[:, 2] * ut
    ws = g[:, 1] * ur + g[:, 3] * us + g[:, 4] * ut
    wt = g[:, 2] * ur + g[:, 4] * us + g[:, 5] * ut
    out = (np.einsum("mi,ekjm->ekji", d, wr) + np.einsum("mj,ekmi->ekji", d, ws)
           + np.einsum("mk,emji->ekji", d, wt))
    return {3: out.ravel()}


# ---- RSBench ------------------------------------------------------------------------------------

def faddeeva_np(z, an):
    if abs(z) >= 6.0:
        a, b, c, d = 0.512424224754768, 0.275255128608411, 0.0517653587929878, 2.72474487139159
        return 1j * z * (a / (z * z - b) + c / (z * z - d))
    tau = K.RS_TAU
    e = cmath.exp(1j * tau * z)
    w = 1j * (1 - e) / (tau * z)
    s = 0j
    for n in range(1, K.RS_NA + 1):
        s += an[n - 1] * ((-1) ** n * e - 1) / (n * n * np.pi ** 2 - tau * tau * z * z)
    return w + 1j * tau * tau * z / np.sqrt(np.pi) * s


def phase_np(k0, l, sq):
    phi = k0 * sq
    if l == 1:
        phi -= np.arctan(phi)
    elif l == 2:
        phi -= np.arctan(3 * phi / (3 - phi * phi))
    elif l == 3:
        phi -= np.arctan(phi * (15 - phi * phi) / (15 - 6 * phi * phi))
    return cmath.exp(-2j * phi)


def rsbench_np(v, doppler):
    e, mat, num_nucs, mats, concs, nw, wstart, wend, fit, poles, lval, k0rs, an, dopp, out = v
    nw = int(nw)
    res = np.zeros((len(e), 4))
    for i in range(len(e)):
        m = mat[i]
        tot = np.zeros(3)
        for k in range(num_nucs[m]):
            nuc = mats[m, k]
            sq = np.sqrt(e[i])
            win = min(int(e[i] * nw), nw - 1)
            row = nuc * nw + win
            sig = np.array([fit[row, 3 * r] + fit[row, 3 * r + 1] * sq + fit[row, 3 * r + 2] * e[i] for r in range(3)])
            fac = [phase_np(k0rs[nuc, l], l, sq) for l in range(K.RS_NL)]
            for p in range(wstart[nuc, win], wend[nuc, win]):
                pole = poles[p, 0] + 1j * poles[p, 1]
                rt, ra, rf = (poles[p, 2 * r + 2] + 1j * poles[p, 2 * r + 3] for r in range(3))
                if doppler:
                    c = faddeeva_np((sq - pole) * float(dopp), an) * float(dopp) * np.sqrt(np.pi)
                else:
                    c = (-1j / (pole - sq)) / e[i]
                sig += [(rt * fac[lval[p]] * c).real, (ra * c).real, (rf * c).real]
            tot += concs[m, k] * sig
        res[i] = [tot[0], tot[1], tot[2], tot[0] - tot[1]]
    return res


def ref_rs_doppler(v):
    return {14: rsbench_np(v, True)}


def ref_rs_0k(v):
    return {14: rsbench_np(v, False)}


# ---- Barnes-Hut ---------------------------------------------------------------------------------

def ref_bh(v):
    mine, com, s2, nxt, leaf, cnt, body, eps2, _ = v
    n = len(mine)
    acc = np.zeros((n, 3))
    b64 = body.astype(f64)
    for w in range(0, n, 32):
        q = mine[w:w + 32]
        q64 = q.astype(f64)
        a = np.zeros((len(q), 3))
        i = 0
        while i < len(com):
            if leaf[i] >= 0:
                b = b64[leaf[i]:leaf[i] + cnt[i]]
                d = b[None, :, :3] - q64[:, None, :]
                r2 = np.sum(d * d, -1) + float(eps2)
                a += np.sum((b[None, :, 3] / r2 ** 1.5)[:, :, None] * d, 1)
                i = nxt[i]
            else:
                d32 = com[i, :3][None, :] - q                       # the kernel's test, in float32
                d2 = (d32[:, 0] * d32[:, 0] + d32[:, 1] * d32[:, 1]) + d32[:, 2] * d32[:, 2]
                if np.all(d2 > s2[i]):
                    d = com[i, :3].astype(f64)[None, :] - q64
                    r2 = np.sum(d * d, 1) + float(eps2)
                    a += (float(com[i, 3]) / r2 ** 1.5)[:, None] * d
                    i = nxt[i]
                else:
                    i += 1
        acc[w:w + 32] = a
    return {8: acc}


# ---- Hydro: the exact Riemann solver -------------------------------------------------------------

def riemann_np(rl, ul, pl, rr, ur, pr, g):
    def pfun(p, rho, pk, ck):
        prat = p / pk
        raref = p <= pk
        a = 2.0 / ((g + 1) * rho)
        b = (g - 1) / (g + 1) * pk
        q = np.sqrt(a / (b + p))
        f = np.where(raref, 2 * ck / (g - 1) * (prat ** ((g - 1) / (2 * g)) - 1), (p - pk) * q)
        df = np.where(raref, prat ** (-(g + 1) / (2 * g)) / (rho * ck), (1 - 0.5 * (p - pk) / (b + p)) * q)
        return f, df
    cl, cr = np.sqrt(g * pl / rl), np.sqrt(g * pr / rr)
    tiny = 1e-10
    p = np.maximum(tiny, 0.5 * (pl + pr) - 0.125 * (ur - ul) * (rl + rr) * (cl + cr))
    it = np.zeros(len(p), i32)
    live = np.ones(len(p), bool)
    for _ in range(K.RM_ITER):
        fl, dfl = pfun(p, rl, pl, cl)
        fr, dfr = pfun(p, rr, pr, cr)
        pn = np.maximum(tiny, p - (fl + fr + ur - ul) / (dfl + dfr))
        change = 2 * np.abs(pn - p) / (pn + p)
        p = np.where(live, pn, p)
        it += live
        live &= ~(change < K.RM_TOL)
    fl, _ = pfun(p, rl, pl, cl)
    fr, _ = pfun(p, rr, pr, cr)
    us = 0.5 * (ul + ur) + 0.5 * (fr - fl)
    g1, g2, g6, g5, g7 = (g - 1) / (2 * g), (g + 1) / (2 * g), (g - 1) / (g + 1), 2 / (g + 1), 0.5 * (g - 1)
    d, v, q = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    for k in range(len(p)):
        P = p[k]
        if us[k] >= 0:
            D, V, Q = rl[k], ul[k], pl[k]
            if P <= pl[k]:
                if ul[k] - cl[k] < 0:
                    cml = cl[k] * (P / pl[k]) ** g1
                    if us[k] - cml > 0:
                        c = g5 * (cl[k] + g7 * ul[k])
                        D, V, Q = rl[k] * (c / cl[k]) ** (2 / (g - 1)), c, pl[k] * (c / cl[k]) ** (2 * g / (g - 1))
                    else:
                        D, V, Q = rl[k] * (P / pl[k]) ** (1 / g), us[k], P
            else:
                pml = P / pl[k]
                if ul[k] - cl[k] * np.sqrt(g2 * pml + g1) < 0:
                    D, V, Q = rl[k] * (pml + g6) / (pml * g6 + 1), us[k], P
        else:
            D, V, Q = rr[k], ur[k], pr[k]
            if P <= pr[k]:
                if ur[k] + cr[k] > 0:
                    cmr = cr[k] * (P / pr[k]) ** g1
                    if us[k] + cmr < 0:
                        c = g5 * (cr[k] - g7 * ur[k])
                        D, V, Q = rr[k] * (c / cr[k]) ** (2 / (g - 1)), -c, pr[k] * (c / cr[k]) ** (2 * g / (g - 1))
                    else:
                        D, V, Q = rr[k] * (P / pr[k]) ** (1 / g), us[k], P
            else:
                pmr = P / pr[k]
                if ur[k] + cr[k] * np.sqrt(g2 * pmr + g1) > 0:
                    D, V, Q = rr[k] * (pmr + g6) / (pmr * g6 + 1), us[k], P
        d[k], v[k], q[k] = D, V, Q
    return d, v, q, it, p, us


def ref_riemann(v):
    d, u, p, it, _, _ = riemann_np(*v[:6], float(v[6]))
    return {7: d, 8: u, 9: p, 10: it}


# ---- miniBUDE -------------------------------------------------------------------------------------

def bude_np(tr, lig, ligt, prot, prott, ff, ffhb):
    tr = tr.astype(f64)
    sx, cx, sy, cy, sz, cz = (np.sin(tr[:, 0]), np.cos(tr[:, 0]), np.sin(tr[:, 1]), np.cos(tr[:, 1]),
                              np.sin(tr[:, 2]), np.cos(tr[:, 2]))
    rot = np.stack([np.stack([cy * cz, sx * sy * cz - cx * sz, cx * sy * cz + sx * sz], -1),
                    np.stack([cy * sz, sx * sy * sz + cx * cz, cx * sy * sz - sx * cz], -1),
                    np.stack([-sy, sx * cy, cx * cy], -1)], 1)                     # [pose, row, col]
    lpos = np.einsum("prc,lc->plr", rot, lig.astype(f64)) + tr[:, None, 3:6]     # [pose, l, 3]
    ff = ff.astype(f64)
    lp, pp = ff[ligt], ff[prott]
    lhb, phb = ffhb[ligt], ffhb[prott]
    d = lpos[:, :, None, :] - prot.astype(f64)[None, None, :, :]
    dist = np.sqrt(np.sum(d * d, -1))                                              # [pose, l, p]
    radij = lp[:, 0][:, None] + pp[:, 0][None, :]
    e = np.where(dist < radij, 2 * (1 - dist / radij), 0.0)
    over = np.maximum(dist - radij, 0)
    chrg = (lp[:, 2][:, None] * pp[:, 2][None, :]) * (1 - 0.25 * over)
    chrg = chrg * np.where((lhb[:, None] * phb[None, :]) == -1, 2.0, 1.0)
    e += np.where(over < 4, chrg, 0.0)
    hh = lp[:, 1][:, None] * pp[:, 1][None, :]
    des = -(np.abs(lp[:, 1])[:, None] + np.abs(pp[:, 1])[None, :]) * (1 - 0.5 * over)
    e += np.where((over < 2) & (hh < 0), des, 0.0)
    return 0.5 * e.sum((1, 2))


def ref_bude(v):
    return {7: bude_np(*v[:7])}


# ---- MTTKRP, cell start ------------------------------------------------------------------------------

def ref_mttkrp(v):
    ii, jj, kk, val, b, c, m = v
    want = np.zeros(m.shape)
    np.add.at(want, ii, val.astype(f64)[:, None] * b[jj].astype(f64) * c[kk].astype(f64))
    return {6: want}


def ref_cell_start(v):
    h, order, pos, vel, cs, ce = v[:6]
    n = len(h)
    cs, ce = cs.copy(), ce.copy()
    first = np.r_[True, h[1:] != h[:-1]]
    last = np.r_[h[1:] != h[:-1], True]
    cs[h[first]] = np.nonzero(first)[0]
    ce[h[last]] = np.nonzero(last)[0] + 1
    assert ce[h[-1]] == n
    return {4: cs, 5: ce, 6: pos[order], 7: vel[order]}


# ---- Horn-Schunck ------------------------------------------------------------------------------------

def ref_hs(v):
    ix, iy, it, u, v_, alpha2 = (a.astype(f64) if isinstance(a, np.ndarray) else float(a) for a in v[:6])
    h, w = u.shape
    ii, jj = np.mgrid[0:h, 0:w]

    def avg(a):
        n, s = np.maximum(ii - 1, 0), np.minimum(ii + 1, h - 1)
        wl, e = np.maximum(jj - 1, 0), np.minimum(jj + 1, w - 1)
        return ((a[n, jj] + a[s, jj] + a[ii, wl] + a[ii, e]) / 6
                + (a[n, wl] + a[n, e] + a[s, wl] + a[s, e]) / 12)
    ub, vb = avg(u), avg(v_)
    t = (ix * ub + iy * vb + it) / (alpha2 + ix * ix + iy * iy)
    return {6: ub - ix * t, 7: vb - iy * t}


# ---- SHA-3 -----------------------------------------------------------------------------------------

def ref_keccak(v):
    msg = v[0]
    out = np.zeros((len(msg), 4), u64)
    for m in range(len(msg)):
        dg = hashlib.sha3_256(msg[m].astype("<u8").tobytes()).digest()
        out[m] = np.frombuffer(dg, "<u8")
    return {3: out}


# ---- SVD 3 x 3 --------------------------------------------------------------------------------------

def mats_of(flat, n, soa):
    return (flat.reshape(9, n).T if soa else flat.reshape(n, 9)).reshape(n, 3, 3).astype(f64)


def ref_svd(v):
    a, sm, sc, s3m, s3c = v[:5]
    n = len(a) // 9
    soa = int(sm) == 1
    am = mats_of(a, n, soa)

    def svec(res):
        s = res(6)
        return (s.reshape(3, n).T if soa else s.reshape(n, 3)).astype(f64)

    def recon(got, res):
        uu, vv = mats_of(res(5), n, soa), mats_of(res(7), n, soa)
        ar = np.einsum("nik,nk,njk->nij", uu, svec(res), vv)
        return np.concatenate([ar, np.einsum("nki,nkj->nij", uu, uu)], 1)

    def sing(got, res):
        return np.abs(svec(res))

    def orth(got, res):
        vv = mats_of(got, n, soa)
        return np.concatenate([np.einsum("nki,nkj->nij", vv, vv), np.linalg.det(vv)[:, None, None] * np.ones((1, 1, 3))], 1)
    eye = np.broadcast_to(np.eye(3), (n, 3, 3))
    return {5: (recon, np.concatenate([am, eye], 1)),
            6: (sing, np.linalg.svd(am, compute_uv=False)),
            7: (orth, np.concatenate([eye, np.ones((n, 1, 3))], 1))}


# ---- Vincenty ----------------------------------------------------------------------------------------

def vincenty_np(la1, lo1, la2, lo2, tol=1e-12):
    a, f = 6378137.0, 1 / 298.257223563
    b = a * (1 - f)
    ll = lo2 - lo1
    u1, u2 = np.arctan((1 - f) * np.tan(la1)), np.arctan((1 - f) * np.tan(la2))
    su1, cu1, su2, cu2 = np.sin(u1), np.cos(u1), np.sin(u2), np.cos(u2)
    lam = ll.copy()
    live = np.ones(len(ll), bool)
    keep = [np.zeros(len(ll)) for _ in range(5)]
    for _ in range(KA.VC_ITER):
        sl, cl = np.sin(lam), np.cos(lam)
        sin_s = np.sqrt((cu2 * sl) ** 2 + (cu1 * su2 - su1 * cu2 * cl) ** 2)
        cos_s = su1 * su2 + cu1 * cu2 * cl
        sig = np.arctan2(sin_s, cos_s)
        sina = cu1 * cu2 * sl / sin_s
        cos2a = 1 - sina * sina
        c2sm = np.where(cos2a != 0, cos_s - 2 * su1 * su2 / np.where(cos2a != 0, cos2a, 1), 0.0)
        cc = f / 16 * cos2a * (4 + f * (4 - 3 * cos2a))
        new = ll + (1 - cc) * f * sina * (sig + cc * sin_s * (c2sm + cc * cos_s * (-1 + 2 * c2sm * c2sm)))
        for k, x in enumerate((sin_s, cos_s, sig, cos2a, c2sm)):
            keep[k] = np.where(live, x, keep[k])
        done = np.abs(new - lam) < tol
        lam = np.where(live, new, lam)
        live &= ~done
    sin_s, cos_s, sig, cos2a, c2sm = keep
    usq = cos2a * (a * a - b * b) / (b * b)
    ca = 1 + usq / 16384 * (4096 + usq * (-768 + usq * (320 - 175 * usq)))
    cb = usq / 1024 * (256 + usq * (-128 + usq * (74 - 47 * usq)))
    ds = cb * sin_s * (c2sm + cb / 4 * (cos_s * (-1 + 2 * c2sm * c2sm)
                                        - cb / 6 * c2sm * (-3 + 4 * sin_s * sin_s) * (-3 + 4 * c2sm * c2sm)))
    return b * ca * (sig - ds) / 1000.0


def ref_vincenty(v):
    return {5: vincenty_np(*(x.astype(f64) for x in v[:4]))}


# ---- ZFP -----------------------------------------------------------------------------------------------

def lift_np(x, y, z, w):
    x = x + w; x = x >> 1; w = w - x          # noqa: E702
    z = z + y; z = z >> 1; y = y - z          # noqa: E702
    x = x + z; x = x >> 1; z = z - x          # noqa: E702
    w = w + y; w = w >> 1; y = y - w          # noqa: E702
    w = w + (y >> 1); y = y - (w >> 1)        # noqa: E702
    return x, y, z, w


def ref_zfp(v):
    data, nbx, nby, bsx, bsy, bsz, sj, sk, place = v[:9]
    nbx, nby = int(nbx), int(nby)
    nb = len(v[10])
    bi = np.arange(nb)
    base = (bi % nbx) * int(bsx) + ((bi // nbx) % nby) * int(bsy) + (bi // (nbx * nby)) * int(bsz)
    n = np.arange(64)
    off = (n // 16) * int(sk) + ((n // 4) % 4) * int(sj) + n % 4
    f = data[base[:, None] + off[None, :]]                       # [block, 16 k + 4 j + i]
    mx = np.abs(f).max(1)
    _, e = np.frexp(mx.astype(f64))
    e = np.where(mx > 0, e, 0).astype(np.int64)
    q = np.trunc(f.astype(f64) * np.exp2(30 - e)[:, None]).astype(np.int64).astype(i32)
    q = q.reshape(nb, 4, 4, 4)                                   # [block, k, j, i]
    for axis in (3, 2, 1):
        parts = [np.take(q, t, axis=axis) for t in range(4)]
        q = np.stack(lift_np(*parts), axis=axis)
    q = q.reshape(nb, 64)[:, np.argsort(place)]
    nbm = u32(0xAAAAAAAA)
    return {9: (q.astype(u32) + nbm) ^ nbm, 10: e.astype(i32)}


# ---- t-SNE perplexity ----------------------------------------------------------------------------------

def entropy_np(d, beta):
    dd = d.astype(f64) - d[:, :1].astype(f64)
    p = np.exp(-beta.astype(f64)[:, None] * dd)
    s = p.sum(1)
    return np.log(s) + beta * (dd * p).sum(1) / s, p / s[:, None]


def ref_perplexity(v):
    d, target, _, beta, _ = v
    n = len(d)

    def h_of(got, res):
        return entropy_np(d, got)[0]

    def p_err(got, res):
        return got - entropy_np(d, res(3))[1]
    return {3: (h_of, np.full(n, float(target))), 4: (p_err, np.zeros(d.shape))}


# ---- triangle-triangle ------------------------------------------------------------------------------------

def tritri_np(tris):
    t = tris.astype(f64).reshape(-1, 6, 3)
    v0, v1, v2, u0, u1, u2 = (t[:, k] for k in range(6))

    def snap(x):
        return np.where(np.abs(x) < KA.TT_EPS, 0.0, x)
    n1 = np.cross(v1 - v0, v2 - v0)
    e1 = -np.sum(n1 * v0, 1)
    du = [snap(np.sum(n1 * u, 1) + e1) for u in (u0, u1, u2)]
    n2 = np.cross(u1 - u0, u2 - u0)
    e2 = -np.sum(n2 * u0, 1)
    dv = [snap(np.sum(n2 * v, 1) + e2) for v in (v0, v1, v2)]
    out = np.zeros(len(t), i32)
    for k in range(len(t)):
        a0, a1, a2 = du[0][k], du[1][k], du[2][k]
        if a0 * a1 > 0 and a0 * a2 > 0:
            continue
        b0, b1, b2 = dv[0][k], dv[1][k], dv[2][k]
        if b0 * b1 > 0 and b0 * b2 > 0:
            continue
        dd = np.cross(n1[k], n2[k])
        ax = 0
        if abs(dd[1]) > abs(dd[0]):
            ax = 1
        if abs(dd[2]) > abs(dd[ax]):
            ax = 2

        def interval(p, d):
            p0, p1, p2 = p
            d0, d1, d2 = d
            if d0 * d1 > 0:
                lo, hi = p2 + (p0 - p2) * d2 / (d2 - d0), p2 + (p1 - p2) * d2 / (d2 - d1)
            elif d0 * d2 > 0:
                lo, hi = p1 + (p0 - p1) * d1 / (d1 - d0), p1 + (p2 - p1) * d1 / (d1 - d2)
            elif d1 * d2 > 0 or d0 != 0:
                lo, hi = p0 + (p1 - p0) * d0 / (d0 - d1), p0 + (p2 - p0) * d0 / (d0 - d2)
            elif d1 != 0:
                lo, hi = p1 + (p0 - p1) * d1 / (d1 - d0), p1 + (p2 - p1) * d1 / (d1 - d2)
            elif d2 != 0:
                lo, hi = p2 + (p0 - p2) * d2 / (d2 - d0), p2 + (p1 - p2) * d2 / (d2 - d1)
            else:
                return None
            return min(lo, hi), max(lo, hi)
        ia = interval((v0[k, ax], v1[k, ax], v2[k, ax]), (b0, b1, b2))
        ib = interval((u0[k, ax], u1[k, ax], u2[k, ax]), (a0, a1, a2))
        if ia is not None and ib is not None and not (ia[1] < ib[0] or ib[1] < ia[0]):
            out[k] = 1
    return out


def ref_tritri(v):
    return {1: tritri_np(v[0])}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("ax_f64", K.nekbone_ax, C.nekbone(8, f64), ""), ref_nekbone, 1e-10),
    (L("ax_f32", K.nekbone_ax, C.nekbone(8, f32), ""), ref_nekbone, 1e-4),
    (L("rs_doppler", K.rsbench_doppler, C.rsbench(256, True), ""), ref_rs_doppler, 1e-9),
    (L("rs_0k", K.rsbench_0k, C.rsbench(256, False), ""), ref_rs_0k, 1e-9),
    (L("bude_pose1", K.bude_pose1, C.bude(256, 12, 64, 1), ""), ref_bude, 1e-3),
    (L("bude_poses4", K.bude_poses4, C.bude(256, 12, 64, K.BUDE_P), ""), ref_bude, 1e-3),
    (L("bh_sorted", K.bh_force, C.barnes_hut(1024, False), ""), ref_bh, 1e-3),
    (L("bh_shuffled", K.bh_force, C.barnes_hut(1024, True), ""), ref_bh, 1e-3),
    (L("riemann_random", K.riemann_exact, C.riemann(2048, False), ""), ref_riemann, 1e-8),
    (L("riemann_smooth", K.riemann_exact, C.riemann(2048, True), ""), ref_riemann, 1e-8),
    (L("mttkrp_uniform", K.mttkrp_coo, C.mttkrp(8192, 512, 0.0), ""), ref_mttkrp, 1e-4),
    (L("mttkrp_skewed", K.mttkrp_coo, C.mttkrp(8192, 512, 1.1), ""), ref_mttkrp, 1e-4),
    (L("cellstart_random", K.cell_start_reorder, C.cell_start(8192, 16, False), "", C.VEC4_2367), ref_cell_start, 0),
    (L("cellstart_sorted", K.cell_start_reorder, C.cell_start(8192, 16, True), "", C.VEC4_2367), ref_cell_start, 0),
    (L("hs_global", KA.hs_global, C.horn_schunck(64), ""), ref_hs, 1e-5),
    (L("hs_tiled", KA.hs_tiled, C.horn_schunck(64), ""), ref_hs, 1e-5),
    (L("keccak_thread", KA.keccak_thread, C.keccak(256, False), ""), ref_keccak, 0),
    (L("keccak_warp", KA.keccak_warp, C.keccak(256, True), ""), ref_keccak, 0),
    (L("svd_aos", KA.svd3x3, C.svd(2048, False), ""), ref_svd, 1e-4),
    (L("svd_soa", KA.svd3x3, C.svd(2048, True), ""), ref_svd, 1e-4),
    (L("vincenty_f32", KA.vincenty, C.geodesic(4096, f32), ""), ref_vincenty, 1e-3),
    (L("vincenty_f64", KA.vincenty, C.geodesic(4096, f64), ""), ref_vincenty, 1e-9),
    (L("zfp_field", KA.zfp_fwd, C.zfp(16, 16, 32, False), ""), ref_zfp, 0),
    (L("zfp_blocked", KA.zfp_fwd, C.zfp(16, 16, 32, True), ""), ref_zfp, 0),
    (L("perp_thread", KA.perplexity_thread, C.perplexity(1024, 64, 20.0, False), ""), ref_perplexity, 1e-4),
    (L("perp_warp", KA.perplexity_warp, C.perplexity(1024, 64, 20.0, True), ""), ref_perplexity, 1e-4),
    (L("tritri_near", KA.tri_tri, C.tritri(8192, True), ""), ref_tritri, 2e-3),
    (L("tritri_far", KA.tri_tri, C.tritri(8192, False), ""), ref_tritri, 2e-3),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
