"""Check every kernel of the second blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind2/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

import simt as wp  # noqa: E402
from timing.blind2 import cases as C  # noqa: E402
from timing.blind2 import kernels as K  # noqa: E402
from timing.cases import _arrays  # noqa: E402


def ref_doitgen(v):
    a, c4, _ = v
    return {2: np.einsum("rqs,sp->rqp", a.astype(np.float64), c4)}


def ref_jacobi1d(v):
    a, b = v
    o = b.copy()
    o[1:-1] = 0.33333 * (a[:-2].astype(np.float64) + a[1:-1] + a[2:])
    return {1: o}


def thomas_forward(a, b, x):
    """The forward sweep along axis 1, in float64."""
    a, b, x = (t.astype(np.float64) for t in (a, b, x))
    for j in range(1, x.shape[1]):
        w = a[:, j] / b[:, j - 1]
        x[:, j] -= x[:, j - 1] * w
        b[:, j] -= a[:, j] * w
    return b, x


def ref_adi_rows(v):
    b, x = thomas_forward(*v)
    return {1: b, 2: x}


def ref_adi_cols(v):
    b, x = thomas_forward(*(t.T for t in v))
    return {1: b.T, 2: x.T}


def ref_gaussian(v):
    a, k = v
    k = int(k)
    o = a.astype(np.float64)
    o[k + 1:, k + 1:] -= np.outer(o[k + 1:, k] / o[k, k], o[k, k + 1:])
    return {0: o}


def ref_backprop(v):
    delta, ly, w, oldw, eta, mom = v
    dw = eta * np.outer(ly, delta).astype(np.float64) + mom * oldw
    return {2: w + dw, 3: dw}


def ref_bfs(v):
    row_ptr, cols, frontier, visited, cost, nxt = v
    cost, nxt = cost.copy(), nxt.copy()
    src = np.repeat(np.arange(len(frontier)), np.diff(row_ptr))
    hit = cols[(frontier[src] == 1) & (visited[cols] == 0)]
    cost[hit] = cost[frontier == 1][0] + 1
    nxt[hit] = 1
    return {2: np.zeros_like(frontier), 4: cost, 5: nxt}


def ref_cfd(v):
    var, nbr, normals, _ = v
    g = 1.4
    u = var.astype(np.float64)

    def state(w):
        rho, m, e = w[0], w[1:4], w[4]
        vel = m / rho
        sq = (vel * vel).sum(axis=0)
        p = (g - 1.0) * (e - 0.5 * rho * sq)
        return rho, m, e, vel, sq, p, np.sqrt(g * p / rho)

    rho, m, e, vel, sq, p, c = state(u)
    flux = np.zeros_like(u)
    for k in range(4):
        nv = normals[3 * k:3 * k + 3].astype(np.float64)
        nlen = np.sqrt((nv * nv).sum(axis=0))
        rho_n, m_n, e_n, vel_n, sq_n, p_n, c_n = state(u[:, nbr[k]])
        factor = -0.1 * nlen * 0.5 * (np.sqrt(sq) + np.sqrt(sq_n) + c + c_n)
        un = (vel * nv).sum(axis=0)
        vn = (vel_n * nv).sum(axis=0)
        flux[0] += factor * (rho - rho_n) + 0.5 * (rho * un + rho_n * vn)
        for d in range(3):
            flux[1 + d] += factor * (m[d] - m_n[d]) + 0.5 * (m[d] * un + m_n[d] * vn + (p + p_n) * nv[d])
        flux[4] += factor * (e - e_n) + 0.5 * ((e + p) * un + (e_n + p_n) * vn)
    return {3: flux}


def ref_lud(v):
    a = v[0].astype(np.float64)
    for k in range(31):
        a[:, k + 1:, k] /= a[:, k:k + 1, k]
        a[:, k + 1:, k + 1:] -= a[:, k + 1:, k:k + 1] * a[:, k:k + 1, k + 1:]
    return {0: a}


def ref_resample(v):
    cdf, u, _ = v
    return {2: np.minimum(np.searchsorted(cdf, u, side="left"), len(cdf) - 1)}


def ref_md5(v):
    seed, digest = v
    n = digest.shape[0]
    i = np.arange(n, dtype=np.uint32)
    with np.errstate(over="ignore"):
        m = [i ^ seed, i * np.uint32(2654435761), (i ^ seed) + np.uint32(0x5BD1E995), np.full(n, 0x80, np.uint32)]
        a, b, c, d = (np.full(n, x, np.uint32) for x in (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476))
        for r in range(64):
            if r < 16:
                f, g = (b & c) | (~b & d), r
            elif r < 32:
                f, g = (d & b) | (~d & c), 5 * r + 1
            elif r < 48:
                f, g = b ^ c ^ d, 3 * r + 5
            else:
                f, g = c ^ (b | ~d), 7 * r
            k = np.uint32((r + 1) * 0x9E3779B9 % 2**32)
            s = np.uint32(7 + 5 * (r % 4))
            x = a + f + k + m[g % 4]
            a, b, c, d = d, b + ((x << s) | (x >> (np.uint32(32) - s))), b, c
    return {1: np.stack([a, b, c, d], axis=1)}


def ref_s3d(v):
    t, log_a, beta, ea, dh, ds, _ = (x.astype(np.float64) for x in v)
    lt, inv = np.log(t), 1.0 / t
    kf = np.exp(log_a[:, None] + beta[:, None] * lt - ea[:, None] * inv)
    return {6: kf - kf * np.exp(dh[:, None] * inv - ds[:, None])}


def ref_qtc(v):
    p, thr2, _ = v
    d = p[:, None, :] - p[None, :, :]                 # float32, as the kernel
    r2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
    return {2: (r2 < thr2).sum(axis=1)}


def ref_radix(v):
    keys, shift, n, counts = v
    blocks = counts.shape[1]
    block_of = np.arange(len(keys)) % (blocks * 256) // 256
    digit = (keys >> int(shift)) & 15
    out = np.zeros((16, blocks), np.int64)
    np.add.at(out, (digit, block_of), 1)
    return {3: out}


def ref_ell(row_major):
    def ref(v):
        row_len, cols, vals, x, _ = v
        if not row_major:
            cols, vals = cols.T, vals.T
        return {4: (vals.astype(np.float64) * x[cols]).sum(axis=1)}
    return ref


def ref_mri_q(v):
    kx, ky, kz, phi, x, y, z, _, _ = (a.astype(np.float64) for a in v)
    arg = 6.2831853 * (np.outer(x, kx) + np.outer(y, ky) + np.outer(z, kz))
    return {7: (phi * np.cos(arg)).sum(axis=1), 8: (phi * np.sin(arg)).sum(axis=1)}


def ref_cutcp(v):
    atoms, nb, spacing, cutoff2, pot = v
    side = pot.shape[0]
    at = atoms.reshape(-1, 4).astype(np.float64)
    at = at[at[:, 0] < 1.0e3]
    g = np.arange(side) * float(spacing)
    zz, yy, xx = np.meshgrid(g, g, g, indexing="ij")
    pts = np.stack([xx.ravel(), yy.ravel(), zz.ravel()], axis=1)
    r2 = ((pts[:, None, :] - at[None, :, :3]) ** 2).sum(axis=2)
    inside = r2 < float(cutoff2)
    sw = 1.0 - r2 / float(cutoff2)
    contrib = np.where(inside, at[None, :, 3] * sw * sw / np.sqrt(np.where(inside, r2, 1.0)), 0.0)
    return {4: contrib.sum(axis=1).reshape(pot.shape)}


def ref_tpacf(v):
    a, b, edges, hist = v
    d = a @ b.T                                        # float32
    bins = np.searchsorted(-edges, -d.ravel(), side="right")   # first edge with d >= edge
    return {3: np.bincount(bins, minlength=len(hist))}


LBM_C = [(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)]


def ref_lbm(aos):
    def ref(v):
        f, _, omega = v
        f = (f.transpose(2, 0, 1) if aos else f).astype(np.float64)
        # direction (cx, cy) moves +x along j and +y towards smaller i
        g = np.stack([np.roll(np.roll(f[q], cx, axis=1), -cy, axis=0) for q, (cx, cy) in enumerate(LBM_C)])
        rho = g.sum(axis=0)
        ux = sum(cx * g[q] for q, (cx, _) in enumerate(LBM_C)) / rho
        uy = sum(cy * g[q] for q, (_, cy) in enumerate(LBM_C)) / rho
        usq = ux * ux + uy * uy
        out = np.empty_like(g)
        for q, (cx, cy) in enumerate(LBM_C):
            cu = cx * ux + cy * uy
            feq = C.LBM_W[q] * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq)
            out[q] = g[q] + float(omega) * (feq - g[q])
        return {1: out.transpose(1, 2, 0) if aos else out}
    return ref


def ref_transpose(v):
    return {1: v[0].T}


def ref_piecewise(v):
    x = v[0]
    ra, rb, rc = x.copy(), x.copy(), x.copy()
    for _ in range(8):
        ra = np.float32(0.9) * ra + np.sin(ra)
        rb = np.float32(0.9) * rb + np.cos(rb)
        rc = np.float32(0.5) * rc + np.sqrt(rc + np.float32(1.0))
    return {1: np.where(x < np.float32(0.3333), ra, np.where(x < np.float32(0.6667), rb, rc))}


L = C.Launch
# (launch at a small size, reference, relative tolerance for floats or the share of integer
# elements that may differ: counts whose float32 distances fall on a threshold may go either way)
CHECKS = [
    (L("doitgen", K.doitgen, C.doitgen(8, 4, 64, 32), ""), ref_doitgen, 2e-5),
    (L("doitgen_unroll4", K.doitgen_unroll4, C.doitgen(8, 4, 64, 32), ""), ref_doitgen, 2e-5),
    (L("jacobi1d", K.jacobi1d, C.jacobi1d(10_000), ""), ref_jacobi1d, 2e-5),
    (L("adi_rows", K.adi_rows, C.adi(96), ""), ref_adi_rows, 2e-5),
    (L("adi_cols", K.adi_cols, C.adi(96), ""), ref_adi_cols, 2e-5),
    (L("gaussian_k0", K.gaussian_step, C.gaussian(64, 0), ""), ref_gaussian, 2e-5),
    (L("gaussian_k37", K.gaussian_step, C.gaussian(64, 37), ""), ref_gaussian, 2e-5),
    (L("backprop_adjust", K.backprop_adjust, C.backprop(96, 64, (8, 32)), ""), ref_backprop, 2e-5),
    (L("backprop_adjust_b32", K.backprop_adjust, C.backprop(96, 64, (1, 32)), ""), ref_backprop, 2e-5),
    (L("bfs_f5", K.bfs_step, C.bfs(4096, 8, 0.05), ""), ref_bfs, 0),
    (L("bfs_f50", K.bfs_step, C.bfs(4096, 8, 0.5), ""), ref_bfs, 0),
    (L("cfd_flux", K.cfd_flux, C.cfd(4096), ""), ref_cfd, 1e-4),
    (L("lud_diagonal", K.lud_diagonal, C.lud(5), ""), ref_lud, 2e-5),
    (L("resample_linear", K.resample_linear, C.resample(1000, 512), ""), ref_resample, 0),
    (L("resample_binary", K.resample_binary, C.resample(1000, 512), ""), ref_resample, 0),
    (L("resample_binary_odd", K.resample_binary, C.resample(777, 300), ""), ref_resample, 0),
    (L("md5", K.md5_rounds, C.md5(5000), ""), ref_md5, 0),
    (L("s3d", K.s3d_rates, C.s3d(5000), ""), ref_s3d, 1e-4),
    (L("s3d_f64", K.s3d_rates, C.s3d(5000, np.float64), ""), ref_s3d, 1e-9),
    (L("qtc_global", K.qtc_count_global, C.qtc(1024), "", C.VEC3_0), ref_qtc, 1e-3),
    (L("qtc_tiled", K.qtc_count_tiled, C.qtc(1024), "", C.VEC3_0), ref_qtc, 1e-3),
    (L("radix_atomic", K.radix_hist_atomic, C.radix(100_000, 12), ""), ref_radix, 0),
    (L("radix_private", K.radix_hist_private, C.radix(100_000, 12), ""), ref_radix, 0),
    (L("spmv_ell", K.spmv_ell, C.ell(2000, 48, False), ""), ref_ell(False), 2e-5),
    (L("spmv_ell_rowmajor", K.spmv_ell_rowmajor, C.ell(2000, 48, True), ""), ref_ell(True), 2e-5),
    (L("mri_q", K.mri_q, C.mri_q(1024, 128), ""), ref_mri_q, 1e-4),
    (L("cutcp", K.cutcp, C.cutcp(16, 4, 12), "", C.VEC4_0), ref_cutcp, 1e-4),
    (L("tpacf", K.tpacf, C.tpacf(512, 300), "", C.VEC3_01), ref_tpacf, 1e-3),
    (L("lbm_soa", K.lbm_soa, C.lbm(32, 64, False), ""), ref_lbm(False), 2e-5),
    (L("lbm_aos", K.lbm_aos, C.lbm(32, 64, True), ""), ref_lbm(True), 2e-5),
    (L("transpose_naive", K.transpose_naive, C.transpose(96, False), ""), ref_transpose, 0),
    (L("transpose_tiled", K.transpose_tiled, C.transpose(96, True), ""), ref_transpose, 0),
    (L("piecewise_branchy", K.piecewise_branchy, C.piecewise(10_000, False), ""), ref_piecewise, 1e-4),
    (L("piecewise_branchy_sorted", K.piecewise_branchy, C.piecewise(10_000, True), ""), ref_piecewise, 1e-4),
    (L("piecewise_select", K.piecewise_select, C.piecewise(10_000, False), ""), ref_piecewise, 1e-4),
]


def check(launch, reference, tol, device="cpu") -> tuple[bool, str]:
    values, dim, block = launch.make(np.random.default_rng(1))
    host = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
    inputs = _arrays(values, launch.dtypes, device)
    wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device=device)
    worst = 0.0
    for k, want in reference(host).items():
        got = inputs[k].numpy().reshape(np.shape(want))
        if got.dtype.kind in "iu":
            bad = int(np.sum(got != want))
            if bad > tol * got.size:
                return False, f"argument {k}: {bad} of {got.size} elements differ"
            worst = max(worst, bad / got.size)
            continue
        err = float(np.max(np.abs(got - want) / (np.abs(want) + 1.0)))
        worst = max(worst, err)
        if not err <= tol:
            return False, f"argument {k}: relative error {err:.2e}"
    return True, f"worst error {worst:.1e}"


def main() -> None:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="checks to run (default: all)")
    ap.add_argument("--device", default="cpu", help="cpu (default) or cuda: the same checks on a GPU")
    args = ap.parse_args()
    failed = ran = 0
    for launch, ref, tol in CHECKS:
        if args.names and launch.name not in args.names:
            continue
        ok, why = check(launch, ref, tol, args.device)
        ran += 1
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {launch.name:26s} {launch.kernel.key:22s} {why}", flush=True)
    print(f"{ran} kernels checked; {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
