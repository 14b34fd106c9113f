"""Check every kernel of the eleventh blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind11/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind11 import cases as C  # noqa: E402
from timing.blind11 import kernels as K  # noqa: E402
from timing.blind11 import kernels_media as KM  # noqa: E402

f32, f64, i32, u8, u32, U64 = np.float32, np.float64, np.int32, np.uint8, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (the order of atomics, a rounding at a boundary).


# ---- NPB --------------------------------------------------------------------------------------------

def ref_ep(v):
    """NPB EP in numpy: the generator in wrapped uint64 products masked to 46 bits (NPB's numbers
    exactly), the polar method in fp64, the batches' sums in the kernel's order."""
    seed, a, an, nk, sx, _, _ = v
    nk = int(nk)
    threads = len(sx)
    mask = U64((1 << 46) - 1)
    a, an = U64(int(a)), U64(int(an))
    x = np.full(threads, U64(int(seed)))
    p = np.full(threads, an)
    e = np.arange(threads)
    while e.any():
        x = np.where(e & 1, (x * p) & mask, x)
        p = (p * p) & mask
        e >>= 1
    tx, ty = np.zeros(threads), np.zeros(threads)
    q = np.zeros(K.NQ, np.int64)
    r46 = 2.0 ** -46
    for _ in range(nk):
        x = (x * a) & mask
        x1 = 2.0 * (r46 * x.astype(f64)) - 1.0
        x = (x * a) & mask
        x2 = 2.0 * (r46 * x.astype(f64)) - 1.0
        s = x1 * x1 + x2 * x2
        ok = s <= 1.0
        f = np.sqrt(-2.0 * np.log(np.where(ok, s, 0.5)) / np.where(ok, s, 0.5))
        g1, g2 = x1 * f, x2 * f
        lv = np.minimum(np.maximum(np.abs(g1), np.abs(g2)).astype(np.int64), K.NQ - 1)
        q += np.bincount(lv[ok], minlength=K.NQ)
        tx += np.where(ok, g1, 0.0)
        ty += np.where(ok, g2, 0.0)
    return {4: tx, 5: ty, 6: q.astype(i32)}


def ref_mg(v):
    u, vv, a0, a1, a2, a3, r = v
    n0, n1, n2 = u.shape
    want = r.copy()

    def s(dz, dy, dx):
        return u[1 + dz:n0 - 1 + dz, 1 + dy:n1 - 1 + dy, 1 + dx:n2 - 1 + dx]
    face = sum(s(*o) for o in [(0, 0, -1), (0, 0, 1), (0, -1, 0), (0, 1, 0), (-1, 0, 0), (1, 0, 0)])
    edge = sum(s(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
               if abs(dz) + abs(dy) + abs(dx) == 2)
    corner = sum(s(dz, dy, dx) for dz in (-1, 1) for dy in (-1, 1) for dx in (-1, 1))
    want[1:-1, 1:-1, 1:-1] = (vv[1:-1, 1:-1, 1:-1] - float(a0) * s(0, 0, 0) - float(a1) * face
                              - float(a2) * edge - float(a3) * corner)
    return {6: want}


def ft_twiddle(nx, ny, nz, ap):
    fold = [np.where(2 * np.arange(m) >= m, np.arange(m) - m, np.arange(m)) for m in (nx, ny, nz)]
    kk, jj, ii = np.meshgrid(fold[2], fold[1], fold[0], indexing="ij")
    return np.exp(ap * (ii * ii + jj * jj + kk * kk)).ravel()


def ref_ft_exp(v):
    u0, nx, ny, nz, ap, _ = v
    want = u0 * np.repeat(ft_twiddle(int(nx), int(ny), int(nz), float(ap)), 2)
    return {0: want, 5: want}


def ref_ft_table(v):
    u0, tw, _ = v
    want = u0 * np.repeat(tw, 2)
    return {0: want, 2: want}


# ---- proxy applications -------------------------------------------------------------------------------

def ref_lulesh(v):
    x, y, z, nl, volo, vold, _, _, _ = v
    px, py, pz = x[nl], y[nl], z[nl]                 # (elements, 8)

    def d(a, i, j):
        return a[:, i] - a[:, j]

    def triple(a, b, c):
        return a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0])

    def vec(i, j, k=None, m=None):
        if k is None:
            return [d(px, i, j), d(py, i, j), d(pz, i, j)]
        return [d(px, i, j) + d(px, k, m), d(py, i, j) + d(py, k, m), d(pz, i, j) + d(pz, k, m)]
    vol = (triple(vec(3, 1, 7, 2), vec(6, 3), vec(2, 0)) + triple(vec(4, 3, 5, 7), vec(6, 4), vec(7, 0))
           + triple(vec(1, 4, 2, 5), vec(6, 1), vec(5, 0))) / 12.0

    def area(a, b, c, e):
        f = [(q[:, c] - q[:, a]) - (q[:, e] - q[:, b]) for q in (px, py, pz)]
        g = [(q[:, c] - q[:, a]) + (q[:, e] - q[:, b]) for q in (px, py, pz)]
        fg = f[0] * g[0] + f[1] * g[1] + f[2] * g[2]
        return (f[0] ** 2 + f[1] ** 2 + f[2] ** 2) * (g[0] ** 2 + g[1] ** 2 + g[2] ** 2) - fg * fg
    ar = np.max([area(0, 1, 2, 3), area(4, 5, 6, 7), area(0, 1, 5, 4), area(1, 2, 6, 5), area(2, 3, 7, 6),
                 area(3, 0, 4, 7)], axis=0)
    rel = vol / volo
    return {6: rel, 7: rel - vold, 8: 4.0 * vol / np.sqrt(ar)}


def ref_clover(v):
    dxs, dys, rho, p, xv, yv, visc = v
    ny, nx = rho.shape
    k, j = np.mgrid[1:ny - 1, 1:nx - 1]
    dx, dy = dxs[j], dys[k]
    ugrad = (xv[k, j + 1] + xv[k + 1, j + 1]) - (xv[k, j] + xv[k + 1, j])
    vgrad = (yv[k + 1, j] + yv[k + 1, j + 1]) - (yv[k, j] + yv[k, j + 1])
    div = dx * ugrad + dy * vgrad
    strain2 = (0.5 * (xv[k + 1, j] + xv[k + 1, j + 1] - xv[k, j] - xv[k, j + 1]) / dy
               + 0.5 * (yv[k, j + 1] + yv[k + 1, j + 1] - yv[k, j] - yv[k + 1, j]) / dx)
    pgx = (p[k, j + 1] - p[k, j - 1]) / (dx + dxs[j + 1])
    pgy = (p[k + 1, j] - p[k - 1, j]) / (dy + dys[k + 1])
    tiny = float(f32(1e-16))
    lim = ((0.5 * ugrad / dx) * pgx ** 2 + (0.5 * vgrad / dy) * pgy ** 2 + strain2 * pgx * pgy) \
        / np.maximum(pgx ** 2 + pgy ** 2, tiny)
    px = np.copysign(np.maximum(tiny, np.abs(pgx)), np.where(pgx < 0, -1.0, 1.0))
    py = np.copysign(np.maximum(tiny, np.abs(pgy)), np.where(pgy < 0, -1.0, 1.0))
    pg = np.sqrt(px * px + py * py)
    grad = np.minimum(np.abs(dx * pg / px), np.abs(dy * pg / py))
    want = visc.copy()
    want[1:-1, 1:-1] = np.where((lim <= 0) & (div < 0), 2.0 * rho[k, j] * grad * grad * lim * lim, 0.0)
    return {6: want}


def ref_halo(v):
    field, n2, n3, base, s1, s2, s3, buf = v
    g = np.arange(len(buf))
    c, b, a = g % int(n3), (g // int(n3)) % int(n2), g // (int(n3) * int(n2))
    return {7: field[int(base) + a * int(s1) + b * int(s2) + c * int(s3)]}


def moc_ref(v, table):
    if table:
        fsr, seg_len, sigt, qst, psi_in, wgt, slope, icept, inv_h, flux, psi_out = v
    else:
        fsr, seg_len, sigt, qst, psi_in, wgt, flux, psi_out = v
    tracks, segs = fsr.shape
    ng = sigt.shape[1]
    psi = psi_in.astype(f64)
    fl = np.zeros(flux.size)
    g = np.arange(ng)[None, :]
    for s in range(segs):
        f = fsr[:, s][:, None]
        tau = sigt[f, g] * seg_len[:, s][:, None]              # float32, as the kernel
        if table:
            idx = np.minimum((tau * inv_h).astype(np.int64), K.MOC_NTAB - 1)
            att = (slope[idx] * tau + icept[idx]).astype(f64)
        else:
            att = -np.expm1(-tau.astype(f64))
        d = (psi - qst[f, g]) * att
        psi = psi - d
        np.add.at(fl, (f * ng + g).ravel(), (d * float(wgt)).ravel())
    return fl, psi


def ref_moc_exp(v):
    fl, psi = moc_ref(v, False)
    return {6: fl, 7: psi}


def ref_moc_table(v):
    fl, psi = moc_ref(v, True)
    return {9: fl, 10: psi}


# ---- graph analytics ---------------------------------------------------------------------------------

def ref_bc(v):
    row, col, dist, sigma, d, delta = v
    n = len(dist)
    src = np.repeat(np.arange(n), np.diff(row))
    on = (dist[src] == int(d)) & (dist[col] == int(d) + 1)
    s, w = src[on], col[on]
    add = np.bincount(s, weights=sigma[s].astype(f64) / sigma[w] * (1.0 + delta[w].astype(f64)), minlength=n)
    want = np.where(dist == int(d), add, delta.astype(f64))
    return {5: want}


# ---- genomics ---------------------------------------------------------------------------------------

def ref_phmm(v):
    rd, err, hp, tr = v[:4]
    out = v[-1]
    mm, gm, mx, xx, my, yy = tr.astype(f64)
    pairs = len(out)
    init = 1.0 / K.HLEN
    pm_, px_, py_ = np.zeros((pairs, K.HLEN + 1)), np.zeros((pairs, K.HLEN + 1)), np.full((pairs, K.HLEN + 1), init)
    e = err.astype(f64)
    for i in range(K.RLEN):
        cm, cx, cy = np.zeros_like(pm_), np.zeros_like(px_), np.zeros_like(py_)
        prior = np.where(rd[:, i:i + 1] == hp, 1.0 - e[:, i:i + 1], e[:, i:i + 1] * float(f32(0.33333334)))
        cm[:, 1:] = prior * (mm * pm_[:, :-1] + gm * (px_[:, :-1] + py_[:, :-1]))
        cx[:, 1:] = mx * pm_[:, 1:] + xx * px_[:, 1:]
        for j in range(1, K.HLEN + 1):
            cy[:, j] = my * cm[:, j - 1] + yy * cy[:, j - 1]
        pm_, px_, py_ = cm, cx, cy
    return {len(v) - 1: np.log10((pm_[:, 1:] + px_[:, 1:]).sum(1))}


def ref_fm(v):
    occ, cbase, cstride, mbase, mstride, ccum, dpos, total, reads, lo_o, hi_o = v
    total = int(total)
    # rebuild the BWT's occurrences from the kernel's own table layout is circular: recount from
    # the bitmaps' bits instead (independent of the counts), then search in numpy
    nblk = total // 32 + 1
    masks = np.array([[occ[int(mbase) + b * int(mstride) + c] for c in range(4)] for b in range(nblk)], np.int64)
    bits = (masks[:, :, None] >> np.arange(32)[None, None, :]) & 1          # (block, c, position)
    onehot = bits.transpose(0, 2, 1).reshape(-1, 4)[:total]
    onehot[int(dpos), 0] = 0                                               # the sentinel
    pref = np.concatenate([np.zeros((1, 4), np.int64), np.cumsum(onehot, 0)])
    n = len(reads)
    lo, hi = np.zeros(n, np.int64), np.full(n, total, np.int64)
    for k in range(reads.shape[1] - 1, -1, -1):
        live = lo < hi
        c = reads[:, k].astype(np.int64)
        lo = np.where(live, ccum[c] + pref[lo, c], lo)
        hi = np.where(live, ccum[c] + pref[hi, c], hi)
    return {9: lo.astype(i32), 10: hi.astype(i32)}


# ---- computer vision -----------------------------------------------------------------------------------

def ref_hough(v):
    ex, ey, ct, st, _, off, acc = v
    r = np.floor(ex[:, None].astype(f32) * ct[None, :] + ey[:, None].astype(f32) * st[None, :] + f32(0.5))
    r = r.astype(np.int64) + int(off)
    na = len(ct)
    nrho = len(acc) // na
    cell = np.arange(na)[None, :] * nrho + r
    return {6: np.bincount(cell.ravel(), minlength=len(acc)).astype(i32)}


POP8 = np.array([bin(k).count("1") for k in range(256)], np.int64)


def ref_bf(v):
    q, t = v[0], v[1]
    qb, tb = q.view(u8), t.view(u8)
    d = sum(POP8[qb[:, None, k] ^ tb[None, :, k]] for k in range(qb.shape[1]))
    return {2: np.argmin(d, 1).astype(i32), 3: d.min(1).astype(i32), 4: np.partition(d, 1, axis=1)[:, 1].astype(i32)}


def ref_hog(v):
    img = v[0].astype(np.int64)
    out = v[1]
    h, w = img.shape
    xp, xm = np.minimum(np.arange(w) + 1, w - 1), np.maximum(np.arange(w) - 1, 0)
    yp, ym = np.minimum(np.arange(h) + 1, h - 1), np.maximum(np.arange(h) - 1, 0)
    gx = (img[:, xp] - img[:, xm]).astype(f64)
    gy = (img[yp, :] - img[ym, :]).astype(f64)
    ang = np.degrees(np.arctan2(gy, gx))
    ang = np.where(ang < 0, ang + 180.0, ang)
    ang = np.where(ang >= 180.0, ang - 180.0, ang)
    mag = np.hypot(gx, gy)
    b = ang / 20.0 - 0.5
    b0 = np.floor(b).astype(np.int64)
    f = b - b0
    cells = (np.arange(h)[:, None] // 8) * (w // 8) + np.arange(w)[None, :] // 8
    nb = KM.HOG_BINS
    hist = (np.bincount((cells * nb + (b0 + nb) % nb).ravel(), (mag * (1 - f)).ravel(), minlength=out.size)
            + np.bincount((cells * nb + (b0 + 1) % nb).ravel(), (mag * f).ravel(), minlength=out.size))
    return {1: hist.reshape(out.shape)}


# ---- graphics -------------------------------------------------------------------------------------------

def ref_mt(v):
    tri, ox, oy, oz, dirs, hit, tout = v
    o = np.array([ox, oy, oz], f32)
    v0, e1, e2 = tri[:, 0:3], tri[:, 3:6], tri[:, 6:9]
    d = dirs[:, None, :]
    pv = np.cross(d, e2[None])
    det = np.sum(e1[None] * pv, -1)
    ok = np.abs(det) > f32(1e-8)
    inv = f32(1.0) / np.where(ok, det, f32(1.0))
    tv = (o - v0)[None]
    u = np.sum(tv * pv, -1) * inv
    qv = np.cross(tv, e1[None])
    vv = np.sum(d * qv, -1) * inv
    tt = np.sum(e2[None] * qv, -1) * inv
    good = ok & (u >= 0) & (u <= 1) & (vv >= 0) & (u + vv <= 1) & (tt > f32(1e-4))
    tt = np.where(good, tt, f32(1e30))
    best = np.argmin(tt, 1)
    bt = tt[np.arange(len(tt)), best]
    want_hit = np.where(bt < f32(1e30), best, -1).astype(i32)
    # a ray grazing an edge may fall either side where a compiler contracts the products
    return {5: want_hit,
            6: (lambda got, res: np.where(res(5) == want_hit, got, bt), bt.astype(f64))}


# ---- signal processing ------------------------------------------------------------------------------------

def tone_power(x, w):
    n = np.arange(x.shape[1])
    z = x.astype(f64) @ np.exp(-1j * np.outer(n, w))
    return np.abs(z) ** 2


def ref_goertzel(v):
    x, coef, out = v
    return {2: tone_power(x, np.arccos(coef.astype(f64) / 2.0))}


def ref_dft(v):
    x, w, out = v
    return {2: tone_power(x, w.astype(f64))}


# ---- data encoding -----------------------------------------------------------------------------------------

def ref_itoa(v):
    vals = v[0]
    text = b"".join(b"%*d" % (KM.FIELD, int(x)) for x in vals)
    return {len(v) - 1: np.frombuffer(text, u8).reshape(len(vals), KM.FIELD)}


def ref_sz(v):
    x, inv2eb, radius, code, count, oidx, oval = v
    q = np.zeros((x.shape[0] + 1, x.shape[1] + 1), np.int64)
    q[1:, 1:] = np.rint(x * f32(inv2eb)).astype(np.int64)
    d = q[1:, 1:] - q[:-1, 1:] - q[1:, :-1] + q[:-1, :-1]
    r = int(radius)
    inside = (d > -r) & (d < r)
    want_code = np.where(inside, d + r, 0).astype(np.uint16)
    idx = np.nonzero(~inside.ravel())[0]
    cnt = len(idx)

    def firsts(got, res):
        return np.sort(got[:cnt]) if res(4)[0] == cnt else got[:0]

    def vals(got, res):
        return got[:cnt][np.argsort(res(5)[:cnt])] if res(4)[0] == cnt else got[:0]
    want = {3: want_code, 4: np.array([cnt], i32)}
    if cnt:                                     # the outlier list, in index order
        want.update({5: (firsts, idx.astype(i32)), 6: (vals, d.ravel()[idx].astype(i32))})
    return want


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("ep_randlc", K.ep_randlc, C.ep(512, 16, False), ""), ref_ep, 1e-10),
    (L("ep_lcg46", K.ep_lcg46, C.ep(512, 16, True), ""), ref_ep, 1e-10),
    (L("mg_resid", K.mg_resid, C.mg(32), ""), ref_mg, 1e-12),
    (L("mg_resid_tiled", K.mg_resid_tiled, C.mg(32), ""), ref_mg, 1e-12),
    (L("ft_exp", K.ft_evolve_exp, C.ft(32, 16, 8, False), ""), ref_ft_exp, 1e-12),
    (L("ft_table", K.ft_evolve_table, C.ft(32, 16, 8, True), ""), ref_ft_table, 1e-12),
    (L("lulesh_ordered", K.lulesh_kinematics, C.lulesh(12, False), ""), ref_lulesh, 1e-10),
    (L("lulesh_shuffled", K.lulesh_kinematics, C.lulesh(12, True), ""), ref_lulesh, 1e-10),
    (L("clover_visc", K.clover_viscosity, C.clover(96), ""), ref_clover, 1e-10),
    (L("halo_zface", K.halo_pack, C.halo(3, 32, "z"), ""), ref_halo, 0),
    (L("halo_xface", K.halo_pack, C.halo(3, 32, "x"), ""), ref_halo, 0),
    (L("moc_exp", K.moc_sweep_exp, C.moc(64, 24, 32, 8, False), ""), ref_moc_exp, 1e-4),
    (L("moc_table", K.moc_sweep_table, C.moc(64, 24, 32, 8, True), ""), ref_moc_table, 1e-4),
    (L("bc_pull", K.bc_pull, C.bc(4096, 16384), ""), ref_bc, 1e-5),
    (L("bc_push", K.bc_push, C.bc(4096, 16384), ""), ref_bc, 1e-5),
    (L("phmm_thread", K.phmm_thread, C.phmm(128, False), ""), ref_phmm, 1e-4),
    (L("phmm_warp", K.phmm_warp, C.phmm(128, True), ""), ref_phmm, 1e-4),
    (L("fm_split", K.fm_search, C.fm(20000, 1024, 16, False), ""), ref_fm, 0),
    (L("fm_interleaved", K.fm_search, C.fm(20000, 1024, 16, True), ""), ref_fm, 0),
    (L("hough_angles", KM.hough_vote, C.hough(1024, 180, 1, 256), ""), ref_hough, 2e-3),
    (L("hough_pixels", KM.hough_vote, C.hough(1024, 180, 0, 256), ""), ref_hough, 2e-3),
    (L("bf_global", KM.bf_match_global, C.bf(512, 2048, 256), ""), ref_bf, 0),
    (L("bf_shared", KM.bf_match_shared, C.bf(512, 2048, 256), ""), ref_bf, 0),
    (L("bf_shared_b64", KM.bf_match_shared, C.bf(512, 2048, 64), ""), ref_bf, 0),
    (L("hog_thread", KM.hog_thread, C.hog(256, False), ""), ref_hog, 1e-4),
    (L("hog_shared", KM.hog_shared, C.hog(256, True), ""), ref_hog, 1e-4),
    (L("mt_coherent", KM.mt_rays, C.rays(64, 32, False), ""), ref_mt, 2e-3),
    (L("mt_shuffled", KM.mt_rays, C.rays(64, 32, True), ""), ref_mt, 2e-3),
    (L("goertzel", KM.goertzel, C.tones(64, False), ""), ref_goertzel, 1e-3),
    (L("dft_direct", KM.dft_direct, C.tones(64, True), ""), ref_dft, 1e-3),
    (L("itoa_div10", KM.itoa_div10, C.itoa(4096, False), ""), ref_itoa, 0),
    (L("itoa_pairs", KM.itoa_pairs, C.itoa(4096, True), ""), ref_itoa, 0),
    (L("sz_loose", KM.sz_lorenzo, C.sz(128, 256, 1e-3), ""), ref_sz, 0),
    (L("sz_tight", KM.sz_lorenzo, C.sz(128, 256, 3e-5), ""), ref_sz, 0),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
