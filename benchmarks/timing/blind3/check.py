"""Check every kernel of the third blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind3/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

import simt as wp  # noqa: E402
from timing.blind import checking  # noqa: E402
from timing.blind3 import cases as C  # noqa: E402
from timing.blind3 import kernels as K  # noqa: E402
from timing.cases import _arrays  # noqa: E402

f64 = np.float64


# ---- PolyBench/GPU -----------------------------------------------------------------------------

def ref_trmm(v):
    a, b, _, alpha = v
    b = b.astype(f64)
    return {2: float(alpha) * (b + np.tril(a.astype(f64), -1).T @ b)}


def ref_gs_norm(v):
    a, k, q, r = v
    k = int(k)
    nrm = np.linalg.norm(a[:, k].astype(f64))
    q, r = q.astype(f64), r.astype(f64)
    q[:, k] = a[:, k] / nrm
    r[k, k] = nrm
    return {2: q, 3: r}


def ref_gs_project(v):
    a, q, r, k = v
    k = int(k)
    a, r = a.astype(f64), r.astype(f64)
    s = q[:, k].astype(f64) @ a[:, k + 1:]
    r[k, k + 1:] = s
    a[:, k + 1:] -= np.outer(q[:, k], s)
    return {0: a, 2: r}


def ref_heat3d(v):
    a, b = v
    a = a.astype(f64)
    o = b.astype(f64)
    c = a[1:-1, 1:-1, 1:-1]
    o[1:-1, 1:-1, 1:-1] = (c + 0.125 * (a[2:, 1:-1, 1:-1] - 2.0 * c + a[:-2, 1:-1, 1:-1])
                           + 0.125 * (a[1:-1, 2:, 1:-1] - 2.0 * c + a[1:-1, :-2, 1:-1])
                           + 0.125 * (a[1:-1, 1:-1, 2:] - 2.0 * c + a[1:-1, 1:-1, :-2]))
    return {1: o}


def ref_seidel(v):
    a, color = v
    o = a.astype(f64)
    i, j = np.mgrid[0:a.shape[0], 0:a.shape[1]]
    mine = ((i + j) % 2 == int(color)) & (i > 0) & (j > 0) & (i < a.shape[0] - 1) & (j < a.shape[1] - 1)
    p = np.pad(a.astype(f64), 1)
    avg = 0.25 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])
    o[mine] = avg[mine]
    return {0: o}


def ref_floyd(v):
    d, k = v
    k = int(k)
    return {0: np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])}       # float32, as the kernel


def deriche_rows_f64(x, coef):
    a1, a2, a3, a4, b1, b2, c1 = (float(c) for c in coef)
    x = x.astype(f64)
    h, w = x.shape
    y1 = np.zeros_like(x)
    xm1 = ym1 = ym2 = np.zeros(h)
    for j in range(w):
        y1[:, j] = a1 * x[:, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
        xm1, ym2, ym1 = x[:, j], ym1, y1[:, j]
    y2 = np.zeros_like(x)
    xp1 = xp2 = yp1 = yp2 = np.zeros(h)
    for j in range(w - 1, -1, -1):
        y2[:, j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
        xp2, xp1, yp2, yp1 = xp1, x[:, j], yp1, y2[:, j]
    return c1 * (y1 + y2)


def ref_deriche_rows(v):
    x, coef, _ = v
    return {2: deriche_rows_f64(x, coef)}


def ref_deriche_cols(v):
    x, coef, _ = v
    return {2: deriche_rows_f64(x.T, coef).T}


# ---- Rodinia -----------------------------------------------------------------------------------

def ref_streamcluster(v):
    pts, weight, cost, assign, centre, switch, lower = v
    x_cost = ((pts.astype(f64) - centre[:, None]) ** 2).sum(axis=0) * weight
    gain = x_cost < cost
    low = np.zeros(len(lower))
    np.add.at(low, assign[gain], cost[gain] - x_cost[gain])
    return {5: gain.astype(np.int32), 6: low}


def ref_pf(v):
    frame, px, py, oy, ox, w = v
    h, wd = frame.shape
    yy = np.clip(py.astype(int)[:, None] + oy[None, :], 0, h - 1)
    xx = np.clip(px.astype(int)[:, None] + ox[None, :], 0, wd - 1)
    val = frame[yy, xx].astype(f64)
    score = ((val - 100.0) ** 2 - (val - 228.0) ** 2) / 16384.0
    return {5: w * np.exp(score.mean(axis=1))}


def ref_btree(v):
    keys, levels, q, _ = v
    n = 32 ** int(levels)
    s = keys[-n:]                               # the leaf level holds every key
    return {3: np.maximum(np.searchsorted(s, q, side="right") - 1, 0)}


def ref_dwt(v):
    img, out = v
    a, b, c, d = (img[r::2, s::2].astype(f64) for r, s in ((0, 0), (0, 1), (1, 0), (1, 1)))
    return {1: np.block([[0.5 * (a + b + c + d), 0.5 * (a - b + c - d)],
                         [0.5 * (a + b - c - d), 0.5 * (a - b - c + d)]])}


def ref_lavamd(v):
    atoms, nb, a2, _ = v
    nb = int(nb)
    at = atoms.astype(f64)
    out = np.zeros_like(at)
    for box in range(nb ** 3):
        bz, by, bx = box // (nb * nb), (box // nb) % nb, box % nb
        others = [at[(cz * nb + cy) * nb + cx]
                  for cz in range(max(bz - 1, 0), min(bz + 2, nb))
                  for cy in range(max(by - 1, 0), min(by + 2, nb))
                  for cx in range(max(bx - 1, 0), min(bx + 2, nb))]
        o = np.concatenate(others)
        d = at[box][:, None, :3] - o[None, :, :3]
        qv = o[None, :, 3] * np.exp(-float(a2) * (d * d).sum(axis=2))
        out[box, :, 0] = qv.sum(axis=1)
        out[box, :, 1:] = 2.0 * (qv[:, :, None] * d).sum(axis=1)
    return {3: out}


# ---- Parboil -----------------------------------------------------------------------------------

def ref_sad(v):
    cur, ref, out = v
    h, w = cur.shape
    res = np.zeros(out.shape, np.int64)
    y, x = np.mgrid[0:h, 0:w]
    for o in range(64):
        dy, dx = o // 8 - 4, o % 8 - 4
        diff = np.abs(cur.astype(int) - ref[np.clip(y + dy, 0, h - 1), np.clip(x + dx, 0, w - 1)].astype(int))
        res[:, :, o] = diff.reshape(h // 4, 4, w // 4, 4).sum(axis=(1, 3))
    return {2: res}


def ref_gridding(v):
    kx, ky, val, grid = v
    g = np.zeros(grid.shape)
    x0 = np.floor(kx).astype(int) - 1
    y0 = np.floor(ky).astype(int) - 1
    for a in range(4):
        gy = y0 + a
        wy = np.maximum(1.0 - np.abs(gy - ky.astype(f64)) * 0.5, 0.0)
        for b in range(4):
            gx = x0 + b
            wx = np.maximum(1.0 - np.abs(gx - kx.astype(f64)) * 0.5, 0.0)
            ok = (gy >= 0) & (gy < g.shape[0]) & (gx >= 0) & (gx < g.shape[1])
            np.add.at(g, (gy[ok], gx[ok]), (val * wy * wx)[ok])
    return {3: g}


# ---- SHOC --------------------------------------------------------------------------------------

def ref_fft_stage(v):
    re, im, half = v
    half = int(half)
    z = (re.astype(f64) + 1j * im.astype(f64)).reshape(-1, 2, half)
    w = np.exp(-1j * np.pi * np.arange(half) / half)
    a, b = z[:, 0, :], w * z[:, 1, :]
    out = np.stack([a + b, a - b], axis=1).ravel()
    return {0: out.real, 1: out.imag}


def ref_fft256(v):
    re, im = v
    z = np.fft.fft((re.astype(f64) + 1j * im).reshape(-1, 256), axis=1).ravel()
    return {0: z.real, 1: z.imag}


def ref_maxflops(v):
    x, steps, _ = v
    dt = x.dtype.type
    a, b = dt(0.999), dt(0.001)
    chains = [x + dt(k) for k in range(8)]
    for _ in range(int(steps)):
        chains = [c * a + b for c in chains]
    c = chains
    return {2: ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]))}


# ---- the CUDA samples --------------------------------------------------------------------------

def ref_sepconv(axis):
    def ref(v):
        img, w, _ = v
        r = len(w) // 2
        pad = [(r, r) if ax == axis else (0, 0) for ax in range(2)]
        p = np.pad(img.astype(f64), pad)
        n = img.shape[axis]
        out = sum(float(w[k]) * np.take(p, np.arange(k, k + n), axis=axis) for k in range(len(w)))
        return {2: out}
    return ref


def ref_dct(v):
    img, c, _ = v
    h, w = img.shape
    blocks = img.astype(f64).reshape(h // 8, 8, w // 8, 8).transpose(0, 2, 1, 3)
    out = np.einsum("uk,abkl,vl->abuv", c.astype(f64), blocks, c.astype(f64))
    return {2: out.transpose(0, 2, 1, 3).reshape(h, w)}


def ref_scalar_prod(v):
    a, b, _ = v
    return {2: (a.astype(f64) * b).sum(axis=1)}


def cnd_f64(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    c = 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - c, c)


def ref_black_scholes(v):
    s, x, t, _, _ = (a.astype(f64) for a in v)
    r, vol = 0.02, 0.30
    d1 = (np.log(s / x) + (r + 0.5 * vol * vol) * t) / (vol * np.sqrt(t))
    d2 = d1 - vol * np.sqrt(t)
    e = np.exp(-r * t)
    return {3: s * cnd_f64(d1) - x * e * cnd_f64(d2), 4: x * e * (1.0 - cnd_f64(d2)) - s * (1.0 - cnd_f64(d1))}


def ref_sobol(v):
    dirs, out = v
    n = out.shape[1]
    i = np.arange(n, dtype=np.uint32)
    g = i ^ (i >> np.uint32(1))
    x = np.zeros(out.shape, np.uint32)
    for b in range(32):
        on = ((g >> np.uint32(b)) & np.uint32(1)).astype(bool)
        x[:, on] ^= dirs[:, b:b + 1]
    return {1: x.astype(np.float32) * np.float32(2.3283064365386963e-10)}


def ref_merge(v):
    keys, run, _ = v
    run = int(run)
    return {2: np.sort(keys.reshape(-1, 2 * run), axis=1).ravel()}


L = C.Launch
V4 = C.VEC4_03
# (launch at a small size, reference, relative tolerance for floats or the share of integer
# elements that may differ)
CHECKS = [
    (L("trmm", K.trmm, C.trmm(96, 64), ""), ref_trmm, 2e-5),
    (L("gs_norm", K.gramschmidt_norm, C.gs_norm(700, 3), ""), ref_gs_norm, 2e-5),
    (L("gs_project", K.gramschmidt_project, C.gs_project(256, 0, 256), ""), ref_gs_project, 1e-4),
    (L("gs_project_k37_b64", K.gramschmidt_project, C.gs_project(200, 37, 64), ""), ref_gs_project, 1e-4),
    (L("heat3d", K.heat3d, C.heat3d(24, False), ""), ref_heat3d, 2e-5),
    (L("heat3d_zmarch", K.heat3d_zmarch, C.heat3d(24, True), ""), ref_heat3d, 2e-5),
    (L("seidel_branch", K.seidel_branch, C.seidel(96, False), ""), ref_seidel, 2e-5),
    (L("seidel_branch_c1", K.seidel_branch, C.seidel(96, False, 1), ""), ref_seidel, 2e-5),
    (L("seidel_compact", K.seidel_compact, C.seidel(96, True), ""), ref_seidel, 2e-5),
    (L("seidel_compact_c1", K.seidel_compact, C.seidel(96, True, 1), ""), ref_seidel, 2e-5),
    (L("floyd", K.floyd_step, C.floyd(128, 77, (8, 32)), ""), ref_floyd, 0),
    (L("floyd_b64", K.floyd_step, C.floyd(128, 5, (2, 32)), ""), ref_floyd, 0),
    (L("deriche_rows", K.deriche_rows, C.deriche(96, 32), ""), ref_deriche_rows, 2e-5),
    (L("deriche_cols", K.deriche_cols, C.deriche(96, 32), ""), ref_deriche_cols, 2e-5),
    (L("streamcluster_k16", K.streamcluster_gain, C.streamcluster(20_000, 16), ""), ref_streamcluster, 1e-4),
    (L("streamcluster_k4K", K.streamcluster_gain, C.streamcluster(20_000, 4096), ""), ref_streamcluster, 1e-4),
    (L("pf_likelihood", K.pf_likelihood, C.particles(5000, 256), ""), ref_pf, 1e-4),
    (L("btree_thread", K.btree_thread, C.btree(3000, 3, False), ""), ref_btree, 0),
    (L("btree_warp", K.btree_warp, C.btree(3000, 3, True), ""), ref_btree, 0),
    (L("dwt_haar", K.dwt_haar, C.dwt(128), ""), ref_dwt, 2e-5),
    (L("lavamd_box", K.lavamd_box, C.lavamd(3), "", V4), ref_lavamd, 1e-4),
    (L("lavamd_staged", K.lavamd_staged, C.lavamd(3), "", V4), ref_lavamd, 1e-4),
    (L("sad", K.sad_4x4, C.sad(64, 96), ""), ref_sad, 0),
    (L("gridding_uniform", K.gridding, C.gridding_samples(20_000, 128, False), ""), ref_gridding, 1e-4),
    (L("gridding_clustered", K.gridding, C.gridding_samples(20_000, 128, True), ""), ref_gridding, 1e-4),
    (L("fft_stage_h1", K.fft_stage, C.fft_stage(4096, 1), ""), ref_fft_stage, 2e-5),
    (L("fft_stage_h64", K.fft_stage, C.fft_stage(4096, 64), ""), ref_fft_stage, 2e-5),
    (L("fft_stage_h2048", K.fft_stage, C.fft_stage(4096, 2048), ""), ref_fft_stage, 2e-5),
    (L("fft_stage_f64_h64", K.fft_stage, C.fft_stage(4096, 64, np.float64), ""), ref_fft_stage, 1e-12),
    (L("fft256", K.fft256_shared, C.fft256(12), ""), ref_fft256, 1e-4),
    (L("maxflops", K.maxflops, C.maxflops(2048, 40), ""), ref_maxflops, 1e-5),
    (L("maxflops_f64", K.maxflops, C.maxflops(2048, 40, np.float64), ""), ref_maxflops, 1e-12),
    (L("sepconv_rows", K.sepconv_rows, C.sepconv(96), ""), ref_sepconv(1), 2e-5),
    (L("sepconv_cols", K.sepconv_cols, C.sepconv(96), ""), ref_sepconv(0), 2e-5),
    (L("dct8x8", K.dct8x8, C.dct(64), ""), ref_dct, 1e-4),
    (L("scalar_prod_shared", K.scalar_prod_shared, C.scalar_prod(40, 1000), ""), ref_scalar_prod, 2e-5),
    (L("scalar_prod_shfl", K.scalar_prod_shfl, C.scalar_prod(40, 1000), ""), ref_scalar_prod, 2e-5),
    (L("black_scholes", K.black_scholes, C.black_scholes(5000), ""), ref_black_scholes, 2e-4),
    (L("black_scholes_f64", K.black_scholes, C.black_scholes(5000, np.float64), ""), ref_black_scholes, 1e-9),
    (L("sobol_branch", K.sobol_branch, C.sobol(3, 4096), ""), ref_sobol, 0),
    (L("sobol_mask", K.sobol_mask, C.sobol(3, 4096), ""), ref_sobol, 0),
    (L("merge_r64", K.merge_rank, C.merge(8192, 64), ""), ref_merge, 0),
    (L("merge_r2048", K.merge_rank, C.merge(8192, 2048), ""), ref_merge, 0),
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
    checking.run(CHECKS, check, __doc__)


if __name__ == "__main__":
    main()
