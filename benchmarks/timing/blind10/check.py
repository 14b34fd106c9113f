"""Check every kernel of the tenth blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind10/check.py [names] [--device cuda]
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind10 import cases as C  # noqa: E402
from timing.blind10 import kernels as K  # noqa: E402
from timing.blind10 import kernels_ml as KM  # noqa: E402

f32, f64, i32, u8, u32, U64 = np.float32, np.float64, np.int32, np.uint8, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (an LU's pivots' effect, a depth buffer's keys).


# ---- Monte Carlo neutron transport -----------------------------------------------------------------

def xs_ref(grid, counts, nucs, conc, energy, mat):
    """The macroscopic cross sections by searchsorted in each nuclide's grid, in fp64."""
    nnuc, npts = grid.shape[:2]
    want = np.zeros((len(energy), K.XS))
    for k in range(int(counts.max())):
        on = k < counts[mat]
        nuc = nucs[mat, k]
        lo = np.zeros(len(energy), np.int64)
        for q in np.unique(nuc):
            at = nuc == q
            lo[at] = np.searchsorted(grid[q, :, 0], energy[at], side="right") - 1
        lo = np.clip(lo, 0, npts - 2)
        e0, e1 = grid[nuc, lo, 0], grid[nuc, lo + 1, 0]
        f = (e1 - energy) / (e1 - e0)
        lo_xs, hi_xs = grid[nuc, lo, 1:], grid[nuc, lo + 1, 1:]
        want += np.where(on, conc[mat, k], 0.0)[:, None] * (hi_xs - f[:, None] * (hi_xs - lo_xs))
    return want


def ref_xs_nuclide(v):
    grid, counts, nucs, conc, energy, mat, _ = v
    return {6: xs_ref(grid, counts, nucs, conc, energy, mat)}


def ref_xs_unionized(v):
    grid, _, _, counts, nucs, conc, energy, mat, _ = v
    return {8: xs_ref(grid, counts, nucs, conc, energy, mat)}


# ---- number theory and coding ------------------------------------------------------------------------

def ref_primes(v):
    """Primality by trial division by every prime below 2^16 (independent of Miller-Rabin)."""
    cand = v[0].astype(np.int64)
    s = np.ones(1 << 16, bool)
    s[:2] = False
    for p in range(2, 256):
        if s[p]:
            s[p * p::p] = False
    prime = np.ones(len(cand), bool)
    for p in np.nonzero(s)[0]:
        prime &= cand % p != 0
    return {1: prime.astype(u8)}


def gf_mul_np(a, b):
    """Products in GF(2^8) mod 0x11D by shift and add (numpy, elementwise)."""
    a, b = np.asarray(a, np.int64).copy(), np.asarray(b, np.int64).copy()
    p = np.zeros(np.broadcast(a, b).shape, np.int64)
    for _ in range(8):
        p ^= np.where(b & 1, a, 0)
        a = a << 1
        a = np.where(a & 0x100, a ^ 0x11D, a)
        b >>= 1
    return p


def ref_rs(v):
    cw = v[0].astype(np.int64)
    root = np.ones(K.RS_T2, np.int64)
    for j in range(K.RS_T2):
        for _ in range(j + 1):
            root[j] = gf_mul_np(root[j], 2)
    s = np.zeros((len(cw), K.RS_T2), np.int64)
    for k in range(K.RS_N):
        s = gf_mul_np(s, root[None, :]) ^ cw[:, k:k + 1]
    return {len(v) - 1: s.astype(u8)}


# ---- cryptography -------------------------------------------------------------------------------------

def ref_sha(v):
    """hashlib's SHA-256 of the messages before padding (the known answer: FIPS 180-4)."""
    words, _, nblk, _ = v
    length = 64 * int(nblk) - 9
    raw = words.astype(">u4").view(u8).reshape(len(words), -1)[:, :length]
    want = np.array([np.frombuffer(hashlib.sha256(m.tobytes()).digest(), ">u4") for m in raw]).astype(u32)
    return {3: want}


# ---- CFD and pattern formation ----------------------------------------------------------------------

def weno5_np(v0, v1, v2, v3, v4):
    b0 = 13 / 12 * (v0 - 2 * v1 + v2) ** 2 + 0.25 * (v0 - 4 * v1 + 3 * v2) ** 2
    b1 = 13 / 12 * (v1 - 2 * v2 + v3) ** 2 + 0.25 * (v1 - v3) ** 2
    b2 = 13 / 12 * (v2 - 2 * v3 + v4) ** 2 + 0.25 * (3 * v2 - 4 * v3 + v4) ** 2
    a0, a1, a2 = 0.1 / (1e-6 + b0) ** 2, 0.6 / (1e-6 + b1) ** 2, 0.3 / (1e-6 + b2) ** 2
    p0 = (2 * v0 - 7 * v1 + 11 * v2) / 6
    p1 = (-v1 + 5 * v2 + 2 * v3) / 6
    p2 = (2 * v2 + 5 * v3 - v4) / 6
    return (a0 * p0 + a1 * p1 + a2 * p2) / (a0 + a1 + a2)


def ref_weno(v):
    u, alpha, inv_dx, _ = v
    u = u.astype(f64)
    fp = 0.5 * (0.5 * u * u + float(alpha) * u)
    fm = 0.5 * (0.5 * u * u - float(alpha) * u)

    def s(a, k):                    # a[:, j + k], periodic
        return np.roll(a, -k, 1)
    right = (weno5_np(s(fp, -2), s(fp, -1), fp, s(fp, 1), s(fp, 2))
             + weno5_np(s(fm, 3), s(fm, 2), s(fm, 1), fm, s(fm, -1)))
    left = (weno5_np(s(fp, -3), s(fp, -2), s(fp, -1), fp, s(fp, 1))
            + weno5_np(s(fm, 2), s(fm, 1), fm, s(fm, -1), s(fm, -2)))
    return {3: -(right - left) * float(inv_dx)}


def gs_ref(u, v, du, dv, feed, kill, dt):
    def lap(a):
        return np.roll(a, 1, 0) + np.roll(a, -1, 0) + np.roll(a, 1, 1) + np.roll(a, -1, 1) - 4 * a
    r = u * v * v
    return u + dt * (du * lap(u) - r + feed * (1 - u)), v + dt * (dv * lap(v) + r - (feed + kill) * v)


def ref_gs_soa(v):
    u, w, *par, _, _ = v
    uo, vo = gs_ref(u.astype(f64), w.astype(f64), *map(float, par))
    return {7: uo, 8: vo}


def ref_gs_aos(v):
    uv, *par, _ = v
    uo, vo = gs_ref(uv[..., 0].astype(f64), uv[..., 1].astype(f64), *map(float, par))
    return {6: np.stack([uo, vo], -1)}


# ---- columnar data -------------------------------------------------------------------------------------

def ref_rle(v):
    vals, start, _ = v
    return {2: np.repeat(vals, np.diff(start))}


def q6_ref(qty, price, disc, day, d0):
    keep = (day >= d0) & (day < d0 + f32(365.0)) & (disc >= f32(0.05)) & (disc <= f32(0.07)) & (qty < f32(24.0))
    return np.array([np.sum((price.astype(f64) * disc)[keep])]), np.array([keep.sum()], i32)


def ref_q6_columns(v):
    qty, price, disc, day, d0, _, _ = v
    rev, hits = q6_ref(qty, price, disc, day, f32(d0))
    return {5: rev, 6: hits}


def ref_q6_rows(v):
    r, d0, _, _ = v
    rev, hits = q6_ref(r[:, 4], r[:, 5], r[:, 6], r[:, 10], f32(d0))
    return {2: rev, 3: hits}


# ---- graphs ---------------------------------------------------------------------------------------------

def ref_kcore(v):
    row, col, deg, k, alive, deg_out = v
    gone = (alive != 0) & (deg < int(k))
    src = np.repeat(np.arange(len(deg)), np.diff(row))
    want = deg_out - np.bincount(col[gone[src]], minlength=len(deg))
    return {4: np.where(gone, 0, alive).astype(u8), 5: want.astype(i32)}


# ---- batched dense linear algebra -------------------------------------------------------------------------

def lu_check(layout_of):
    """P A = L U rebuilt from the kernel's factors and pivots (and |L| <= 1: partial pivoting),
    against the original matrices."""
    def ref(v):
        a0, sb, se, _ = v
        n = K.LU
        batch = a0.size // (n * n)
        orig = layout_of(a0, batch)

        def rebuild(got, res):
            f = layout_of(got, batch).astype(f64)
            piv = res(3)
            lo = np.tril(f, -1) + np.eye(n)
            up = np.triu(f)
            pa = lo @ up
            if np.abs(np.tril(f, -1)).max() > 1 + 1e-6:
                return pa * np.nan
            for k in range(n - 1, -1, -1):       # undo the row swaps, last first
                b = np.arange(batch)
                p = piv[:, k]
                rk, rp = pa[b, k].copy(), pa[b, p].copy()
                pa[b, k], pa[b, p] = rp, rk
            return pa
        return {0: (rebuild, orig.astype(f64))}
    return ref


def aos_layout(a, batch):
    return a.reshape(batch, K.LU, K.LU)


def interleaved_layout(a, batch):
    return a.reshape(K.LU, K.LU, batch).transpose(2, 0, 1)


# ---- bioinformatics ----------------------------------------------------------------------------------------

def ref_pwm(v):
    seq, pwm, out = v
    n = len(out)
    s = seq.astype(np.int64)
    fw = sum(pwm[k, s[k:k + n]].astype(f64) for k in range(K.MOTIF))
    rc = sum(pwm[k, 3 - s[K.MOTIF - 1 - k:K.MOTIF - 1 - k + n]].astype(f64) for k in range(K.MOTIF))
    return {2: np.maximum(fw, rc)}


# ---- ML operator -------------------------------------------------------------------------------------------

def ref_scan(v):
    x, dl, dbias, a, bm, cm, dskip, nd, sb, st, sd, _ = v
    batch, length, _ = bm.shape
    nd = int(nd)
    b, t, d = np.meshgrid(np.arange(batch), np.arange(length), np.arange(nd), indexing="ij")
    idx = b * int(sb) + t * int(st) + d * int(sd)            # (B, L, D) positions in the flat arrays
    xs, z = x[idx].astype(f64), dl[idx].astype(f64) + dbias[None, None, :]
    dt = np.where(z < 20, np.log1p(np.exp(np.minimum(z, 20))), z)
    h = np.zeros((batch, nd, KM.SSM_N))
    y = np.zeros((batch, length, nd))
    for s in range(length):
        h = np.exp(dt[:, s, :, None] * a[None]) * h + dt[:, s, :, None] * bm[:, s, None, :] * xs[:, s, :, None]
        y[:, s] = (h * cm[:, s, None, :]).sum(-1) + dskip[None] * xs[:, s]
    want = np.zeros(x.size)
    want[idx] = y
    return {11: want}


# ---- stereo and image analysis -----------------------------------------------------------------------------

def ref_census(rh, rw):
    def ref(v):
        img = v[0].astype(np.int64)
        h, w = img.shape
        pad = np.pad(img, ((rh, rh), (rw, rw)), mode="edge")
        bits = np.zeros((h, w), np.uint64)
        for dy in range(-rh, rh + 1):
            for dx in range(-rw, rw + 1):
                if dy or dx:
                    nb = pad[rh + dy:rh + dy + h, rw + dx:rw + dx + w]
                    bits = (bits << U64(1)) | (nb < img).astype(np.uint64)
        return {1: bits}
    return ref


def ref_canny(v):
    gx, gy, lo, hi, _ = v
    h, w = gx.shape
    m = np.sqrt(gx * gx + gy * gy)                          # float32, as the kernel
    ux, uy = np.abs(gx), np.abs(gy)
    di = np.where(uy <= f32(KM.TAN22) * ux, 0, 1)
    dj = np.where(uy <= f32(KM.TAN22) * ux, 1, np.where(uy >= f32(KM.TAN67) * ux, 0, np.where(gx * gy > 0, 1, -1)))
    ii, jj = np.mgrid[1:h - 1, 1:w - 1]
    d_i, d_j = di[1:-1, 1:-1], dj[1:-1, 1:-1]
    mc = m[1:-1, 1:-1]
    m1 = m[ii + d_i, jj + d_j]
    m2 = m[ii - d_i, jj - d_j]
    keep = (mc >= f32(lo)) & (mc > m1) & (mc >= m2)
    want = np.zeros((h, w), u8)
    want[1:-1, 1:-1] = np.where(keep, np.where(mc >= f32(hi), 2, 1), 0)
    return {4: want}


def ref_lk(v):
    ix, iy, it, r, _, _ = v
    r = int(r)
    h, w = ix.shape

    def wsum(a):
        p = np.pad(a.astype(f64), r, mode="edge")
        return sum(p[r + dy:r + dy + h, r + dx:r + dx + w] for dy in range(-r, r + 1) for dx in range(-r, r + 1))
    sxx, sxy, syy, sxt, syt = wsum(ix * ix.astype(f64)), wsum(ix * iy.astype(f64)), wsum(iy * iy.astype(f64)), \
        wsum(ix * it.astype(f64)), wsum(iy * it.astype(f64))
    det = sxx * syy - sxy * sxy
    tr = sxx + syy
    ok = det > 0.01 * tr * tr
    near = np.abs(det / np.maximum(tr * tr, 1e-30) - 0.01) < 1e-3      # too close to the threshold to tell
    u = np.where(ok, (sxy * syt - syy * sxt) / np.where(ok, det, 1), 0)
    vv = np.where(ok, (sxy * sxt - sxx * syt) / np.where(ok, det, 1), 0)
    return {4: (lambda got, res: np.where(near, 0, got), np.where(near, 0, u)),
            5: (lambda got, res: np.where(near, 0, got), np.where(near, 0, vv))}


# ---- ultrasound beamforming ---------------------------------------------------------------------------------

def ref_das(v):
    rf, xe, x0, dxp, z0, dzp, fs_c, fnum, _, img = v
    nz, nx = img.shape
    ns = rf.shape[1]
    z = (float(z0) + np.arange(nz) * float(dzp))[:, None]
    x = (float(x0) + np.arange(nx) * float(dxp))[None, :]
    half = z / (2 * float(fnum))
    acc = np.zeros((nz, nx))
    for ch in range(rf.shape[0]):
        dx = x - float(xe[ch])
        s = (z + np.sqrt(z * z + dx * dx)) * float(fs_c)
        k = np.floor(s).astype(np.int64)
        on = (np.abs(dx) <= half) & (k < ns - 1)
        k = np.clip(k, 0, ns - 2)
        f = s - k
        apod = 0.5 + 0.5 * np.cos(np.pi * dx / half)
        acc += np.where(on, apod * ((1 - f) * rf[ch, k] + f * rf[ch, k + 1]), 0)
    return {9: acc}


# ---- graphics ---------------------------------------------------------------------------------------------------

def ref_lbs(v):
    pos, bone, w, mats, _ = v
    m = mats.astype(f64).reshape(-1, 3, 4)
    p = np.concatenate([pos.astype(f64), np.ones((len(pos), 1))], 1)
    out = sum(w[:, k, None] * np.einsum("nij,nj->ni", m[bone[:, k]], p) for k in range(4))
    return {4: out}


def ref_dqs(v):
    pos, bone, w, dq, _ = v
    dq = dq.astype(f64)
    q = dq[bone]                                   # (n, 4, 8)
    sign = np.where((q[:, :, :4] * q[:, :1, :4]).sum(-1) < 0, -1.0, 1.0)
    b = (w[:, :, None] * sign[:, :, None] * q).sum(1)
    b /= np.linalg.norm(b[:, :4], axis=1, keepdims=True)
    rw, rv, tw, tv = b[:, :1], b[:, 1:4], b[:, 4:5], b[:, 5:8]
    p = pos.astype(f64)
    out = p + 2 * np.cross(rv, np.cross(rv, p) + rw * p) + 2 * (rw * tv - tw * rv + np.cross(rv, tv))
    return {4: out}


def ref_raster(v):
    tri, z, width, height, zbuf = v
    width, height = int(width), int(height)
    best = zbuf.copy()
    for t in range(len(tri)):
        x0, y0, x1, y1, x2, y2 = (int(c) for c in tri[t])
        xs = np.arange(max(min(x0, x1, x2) // KM.SUB, 0), min(max(x0, x1, x2) // KM.SUB, width - 1) + 1)
        ys = np.arange(max(min(y0, y1, y2) // KM.SUB, 0), min(max(y0, y1, y2) // KM.SUB, height - 1) + 1)
        py, px = np.meshgrid(ys, xs, indexing="ij")
        cx, cy = px * KM.SUB + KM.SUB // 2, py * KM.SUB + KM.SUB // 2
        e0 = (x2 - x1) * (cy - y1) - (y2 - y1) * (cx - x1)
        e1 = (x0 - x2) * (cy - y2) - (y0 - y2) * (cx - x2)
        e2 = (x1 - x0) * (cy - y0) - (y1 - y0) * (cx - x0)
        inside = (e0 >= 0) & (e1 >= 0) & (e2 >= 0)
        inv = f32(1.0) / f32((x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0))
        zz = (e0.astype(f32) * z[t, 0] + e1.astype(f32) * z[t, 1] + e2.astype(f32) * z[t, 2]) * inv
        key = ((zz * f32(16777216.0)).astype(np.int64).astype(U64) << U64(32)) | U64(t)
        np.minimum.at(best, (py * width + px)[inside], key[inside])
    low = U64(0xFFFFFFFF)
    # the winning triangle of each pixel (a depth's last bit may round differently on a device)
    return {4: (lambda got, res: got & low, best & low)}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("xs_nuclide", K.xs_lookup_nuclide, C.xs(40, 64, 1024, False), ""), ref_xs_nuclide, 1e-12),
    (L("xs_unionized", K.xs_lookup_unionized, C.xs(40, 64, 1024, True), ""), ref_xs_unionized, 1e-12),
    (L("mr_random", K.miller_rabin, C.primes_or_random(2048, False), ""), ref_primes, 0),
    (L("mr_primes", K.miller_rabin, C.primes_or_random(512, True), ""), ref_primes, 0),
    (L("rs_log", K.rs_syndromes_log, C.rs(64, True), ""), ref_rs, 0),
    (L("rs_bitwise", K.rs_syndromes_bitwise, C.rs(64, False), ""), ref_rs, 0),
    (L("sha256_1blk", K.sha256_msgs, C.sha(256, 1), ""), ref_sha, 0),
    (L("sha256_3blk", K.sha256_msgs, C.sha(64, 3), ""), ref_sha, 0),
    (L("weno5", K.weno5_burgers, C.burgers(64), ""), ref_weno, 3e-4),
    (L("weno5_f64", K.weno5_burgers, C.burgers(64, f64), ""), ref_weno, 1e-10),
    (L("gs_soa", K.gray_scott_soa, C.gray_scott(64, False), ""), ref_gs_soa, 1e-6),
    (L("gs_aos", K.gray_scott_aos, C.gray_scott(64, True), "", C.VEC2_06), ref_gs_aos, 1e-6),
    (L("rle_runs", K.rle_decode_runs, C.runs(5000, 8, False), ""), ref_rle, 0),
    (L("rle_search", K.rle_decode_search, C.runs(5000, 8, True), ""), ref_rle, 0),
    (L("q6_columns", K.q6_columns, C.lineitem(1 << 16, False), ""), ref_q6_columns, 1e-5),
    (L("q6_rows", K.q6_rows, C.lineitem(1 << 16, True), ""), ref_q6_rows, 1e-5),
    (L("kcore_uniform", K.kcore_peel, C.kcore(4096, 32768, 0.0), ""), ref_kcore, 0),
    (L("kcore_skewed", K.kcore_peel, C.kcore(4096, 32768, 0.8), ""), ref_kcore, 0),
    (L("lu8_aos", K.lu8_batched, C.lu_batch(1000, False), ""), lu_check(aos_layout), 1e-4),
    (L("lu8_interleaved", K.lu8_batched, C.lu_batch(1000, True), ""), lu_check(interleaved_layout), 1e-4),
    (L("pwm_global", K.pwm_scan_global, C.pwm(10240), ""), ref_pwm, 1e-5),
    (L("pwm_shared", K.pwm_scan_shared, C.pwm(10240), ""), ref_pwm, 1e-5),
    (L("scan_bld", KM.selective_scan, C.ssm(2, 32, 96, False), ""), ref_scan, 1e-4),
    (L("scan_bdl", KM.selective_scan, C.ssm(2, 32, 96, True), ""), ref_scan, 1e-4),
    (L("census5x5", KM.census5x5, C.census(96, False), ""), ref_census(2, 2), 0),
    (L("census9x7", KM.census9x7, C.census(96, True), ""), ref_census(3, 4), 0),
    (L("canny", KM.canny_nms, C.canny(128), ""), ref_canny, 0),
    (L("lk_r2", KM.lucas_kanade, C.flow(64, 2), ""), ref_lk, 2e-3),
    (L("lk_r4", KM.lucas_kanade, C.flow(64, 4), ""), ref_lk, 2e-3),
    (L("das_xfast", KM.das_beamform, C.ultrasound(64, 48, 32, False), ""), ref_das, 1e-3),
    (L("das_zfast", KM.das_beamform, C.ultrasound(64, 48, 32, True), ""), ref_das, 1e-3),
    (L("skin_lbs", KM.skin_lbs, C.skinning(3000, 16, False), ""), ref_lbs, 1e-5),
    (L("skin_dqs", KM.skin_dqs, C.skinning(3000, 16, True), ""), ref_dqs, 1e-5),
    (L("raster_small", KM.raster_tris, C.raster(2000, 4.0, 128, 128), ""), ref_raster, 2e-3),
    (L("raster_large", KM.raster_tris, C.raster(40, 24.0, 128, 128), ""), ref_raster, 2e-3),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
