"""Check every kernel of the blind set against numpy, on the fast cpu engine at small sizes
(logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

import simt as wp  # noqa: E402
from timing.blind import cases as C  # noqa: E402
from timing.blind import kernels as K  # noqa: E402
from timing.cases import _arrays  # noqa: E402


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def ref_gemm(v):
    a, b, c, alpha, beta = v
    return {2: alpha * (a @ b) + beta * c}


def ref_syrk(v):
    a, c, alpha, beta = v
    return {1: alpha * (a @ a.T) + beta * c}


def ref_atax(v):
    return {2: v[0] @ v[1]}


def ref_bicg(v):
    return {2: v[0].T @ v[1]}


def ref_mvt(v):
    a, y1, y2, x1, x2 = v
    return {3: x1 + a @ y1, 4: x2 + a.T @ y2}


def ref_gesummv(v):
    a, b, x, _, alpha, beta = v
    return {3: alpha * (a @ x) + beta * (b @ x)}


def ref_corr(v):
    d = v[0].astype(np.float64)
    m = d.mean(axis=0)
    sd = np.sqrt(((d - m) ** 2).mean(axis=0))
    return {1: m, 2: np.where(sd <= 0.005, 1.0, sd)}


def ref_jacobi(v):
    a = v[0]
    b = v[1].copy()
    b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[:-2, 1:-1] + a[2:, 1:-1])
    return {1: b}


def ref_fdtd(v):
    ex, ey, hz = v
    out = hz.copy()
    out[:-1, :-1] = hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return {2: out}


def ref_conv2d(v):
    img, w, out, r = v
    r = int(r)
    h, wd = img.shape
    o = out.copy()
    acc = np.zeros((h - 2 * r, wd - 2 * r))
    for di in range(-r, r + 1):
        for dj in range(-r, r + 1):
            acc += w[di + r, dj + r] * img[r + di:h - r + di, r + dj:wd - r + dj]
    o[r:h - r, r:wd - r] = acc
    return {2: o}


def ref_conv3d(v):
    x, w, out = v
    n0, n1, n2 = x.shape
    o = out.copy()
    acc = np.zeros((n0 - 2, n1 - 2, n2 - 2))
    for a in range(3):
        for b in range(3):
            for c in range(3):
                acc += w[a, b, c] * x[a:n0 - 2 + a, b:n1 - 2 + b, c:n2 - 2 + c]
    o[1:-1, 1:-1, 1:-1] = acc
    return {2: o}


def neighbours(t):
    p = np.pad(t, 1, mode="edge")
    return p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]     # north, south, west, east


def ref_hotspot(v):
    temp, power, _, cap_inv, rx, ry, rz, amb = v
    n, s, w, e = neighbours(temp)
    return {2: temp + cap_inv * (power + (n + s - 2 * temp) * ry + (e + w - 2 * temp) * rx + (amb - temp) * rz)}


def ref_srad(v):
    img, q0 = v[0].astype(np.float64), float(v[1])
    n, s, w, e = (x - img for x in neighbours(img))
    g2 = (n * n + s * s + w * w + e * e) / (img * img)
    lap = (n + s + w + e) / img
    num = 0.5 * g2 - lap * lap / 16
    den = 1 + 0.25 * lap
    q = num / (den * den)
    c = 1 / (1 + (q - q0) / (q0 * (1 + q0)))
    return {2: n, 3: s, 4: w, 5: e, 6: np.clip(c, 0, 1)}


def ref_layer(v):
    return {2: sigmoid(v[0] @ v[1])}


def ref_kmeans(feature_major):
    def ref(v):
        feats, cents, _ = v
        pts = feats.T if feature_major else feats
        d = ((pts[:, None, :].astype(np.float64) - cents[None, :, :]) ** 2).sum(axis=2)
        return {2: d.argmin(axis=1)}
    return ref


def ref_nn(v):
    rec, lat, lng, _ = v
    return {3: np.sqrt((rec[:, 0] - lat) ** 2 + (rec[:, 1] - lng) ** 2)}


def ref_pathfinder(v):
    wall, src, _, start, steps = v
    prev = src.astype(np.int64)
    for r in range(int(steps)):
        p = np.pad(prev, 1, mode="edge")
        prev = np.minimum(np.minimum(p[:-2], p[1:-1]), p[2:]) + wall[int(start) + r]
    return {2: prev}


def nw_full(ref, penalty):
    n = ref.shape[0]
    s = np.zeros((n + 1, n + 1), np.int64)
    s[0, :] = -penalty * np.arange(n + 1)
    s[:, 0] = -penalty * np.arange(n + 1)
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            s[i, j] = max(s[i - 1, j - 1] + ref[i - 1, j - 1], s[i - 1, j] - penalty, s[i, j - 1] - penalty)
    return s


def nw_case(n, diag):
    """The full table with the launch's diagonal of tiles wiped: the kernel must rebuild it."""
    def make(rng):
        ref = rng.integers(-10, 11, (n, n), dtype=np.int32)
        full = nw_full(ref, 10).astype(np.int32)
        score = full.copy()
        for t in range(n // 16):
            u = diag - t
            if 0 <= u < n // 16:
                score[1 + 16 * t:17 + 16 * t, 1 + 16 * u:17 + 16 * u] = 0
        values, dim, block = C.nw(n, diag)(rng)
        return [score, ref, np.int32(diag), np.int32(10)], dim, block
    return make


def ref_nw(v):
    return {0: nw_full(v[1], int(v[3]))}


def ref_reduce(v):
    x, n, partial = v
    blocks = len(partial)
    idx = np.arange(len(x)) % (blocks * 256) // 256
    return {2: np.bincount(idx, weights=x.astype(np.float64), minlength=blocks)}


def ref_scan(v):
    x = v[0].astype(np.float64).reshape(-1, 256)
    s = np.cumsum(x, axis=1)
    return {1: s.ravel(), 2: s[:, -1]}


def ref_stencil9(v):
    a, w, b = v
    o = b.copy()
    c = a[1:-1, 1:-1]
    edges = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
    corners = a[:-2, :-2] + a[:-2, 2:] + a[2:, :-2] + a[2:, 2:]
    o[1:-1, 1:-1] = w[0] * c + w[1] * edges + w[2] * corners
    return {2: o}


def ref_md(v):
    pos, nb, _, cutsq, lj1, lj2 = v
    p = pos.astype(np.float64)
    d = p[None, :, :] - p[nb]                     # (k, n, 3)
    r2 = (d * d).sum(axis=2)
    inside = r2 < cutsq
    r2inv = np.where(inside, 1 / np.where(inside, r2, 1), 0)
    r6 = r2inv ** 3
    fs = r2inv * r6 * (lj1 * r6 - lj2)
    return {2: (d * fs[..., None]).sum(axis=0)}


def ref_spmv(v):
    row_ptr, cols, vals, x, _ = v
    rows = len(row_ptr) - 1
    row_of = np.repeat(np.arange(rows), np.diff(row_ptr))
    return {4: np.bincount(row_of, weights=vals.astype(np.float64) * x[cols], minlength=rows)}


def ref_triad(v):
    return {0: v[1] + v[3] * v[2]}


def ref_bitonic(v):
    keys, j, k = v
    j, k = int(j), int(k)
    out = keys.copy()
    i = np.arange(len(keys))
    lo = i[(i ^ j) > i]
    hi = lo ^ j
    a, b = keys[lo], keys[hi]
    up = (lo & k) == 0
    swap = (up & (a > b)) | (~up & (a < b))
    out[lo[swap]], out[hi[swap]] = b[swap], a[swap]
    return {0: out}


def ref_hist(v):
    return {2: np.bincount(v[0], minlength=256)}


L = C.Launch
CHECKS = [
    (L("gemm", K.gemm_naive, C.gemm(64), ""), ref_gemm),
    (L("gemm_f64", K.gemm_naive, C.gemm(64, np.float64), ""), ref_gemm),
    (L("gemm_tiled", K.gemm_tiled, C.gemm_tiled(96), ""), ref_gemm),
    (L("atax_rows", K.atax_rows, C.matvec(96, 160), ""), ref_atax),
    (L("bicg_cols", K.bicg_cols, C.matvec_t(160, 96), ""), ref_bicg),
    (L("gemv_tiled", K.gemv_tiled, C.gemv_tiles(96, 160), ""), ref_atax),
    (L("gemv_tiled_padded", K.gemv_tiled_padded, C.gemv_tiles(96, 160), ""), ref_atax),
    (L("mvt", K.mvt, C.mvt(128), ""), ref_mvt),
    (L("gesummv", K.gesummv, C.gesummv(128), ""), ref_gesummv),
    (L("gesummv_f64", K.gesummv, C.gesummv(128, np.float64), ""), ref_gesummv),
    (L("syrk", K.syrk, C.syrk(64), ""), ref_syrk),
    (L("corr_mean_std", K.corr_mean_std, C.corr(100, 256), ""), ref_corr),
    (L("jacobi2d", K.jacobi2d, C.two_grids(64), ""), ref_jacobi),
    (L("fdtd_hz", K.fdtd_hz, C.fdtd(64), ""), ref_fdtd),
    (L("conv2d_3x3", K.conv2d, C.conv2d(64, 1), ""), ref_conv2d),
    (L("conv2d_5x5", K.conv2d, C.conv2d(64, 2), ""), ref_conv2d),
    (L("conv3d", K.conv3d, C.conv3d(24, 16, 32), ""), ref_conv3d),
    (L("hotspot", K.hotspot, C.hotspot(64), ""), ref_hotspot),
    (L("srad", K.srad_coeff, C.srad(64), ""), ref_srad),
    (L("layer_thread", K.layer_forward_thread, C.layer_thread(1000, 64), ""), ref_layer),
    (L("layer_block", K.layer_forward_block, C.layer_block(1000, 16), ""), ref_layer),
    (L("kmeans_points", K.kmeans_assign_points, C.kmeans(1024, 8, 5, False), ""), ref_kmeans(False)),
    (L("kmeans_features", K.kmeans_assign_features, C.kmeans(1024, 8, 5, True), ""), ref_kmeans(True)),
    (L("nn", K.nn_distance, C.nn(4096), "", C.VEC2), ref_nn),
    (L("pathfinder", K.pathfinder, C.pathfinder(1000, 8), ""), ref_pathfinder),
    (L("pathfinder_4", K.pathfinder, C.pathfinder(3000, 4), ""), ref_pathfinder),
    (L("nw_diag2", K.nw_diagonal, nw_case(64, 2), ""), ref_nw),
    (L("nw_diag5", K.nw_diagonal, nw_case(64, 5), ""), ref_nw),
    (L("reduce", K.reduce_sum, C.reduce(100_000, 12), ""), ref_reduce),
    (L("scan", K.scan_block, C.scan(8192), ""), ref_scan),
    (L("stencil9", K.stencil9, C.stencil9(64), ""), ref_stencil9),
    (L("stencil9_f64", K.stencil9, C.stencil9(64, np.float64), ""), ref_stencil9),
    (L("md", K.md_lj, C.md(8, 32), "", C.VEC3), ref_md),
    (L("spmv_scalar", K.spmv_csr_scalar, C.spmv_scalar(512, 32), ""), ref_spmv),
    (L("spmv_vector", K.spmv_csr_vector, C.spmv_vector(512, 32), ""), ref_spmv),
    (L("spmv_vector_long", K.spmv_csr_vector, C.spmv_vector(256, 128), ""), ref_spmv),
    (L("triad", K.triad, C.triad(10_000), ""), ref_triad),
    (L("bitonic_j1", K.bitonic_step, C.bitonic(4096, 1, 2), ""), ref_bitonic),
    (L("bitonic_j512", K.bitonic_step, C.bitonic(4096, 512, 1024), ""), ref_bitonic),
    (L("histogram_global", K.histogram256_global, C.histogram(100_000, 16), ""), ref_hist),
    (L("histogram_shared", K.histogram256_shared, C.histogram(100_000, 16), ""), ref_hist),
]


def check(launch, reference, device="cpu") -> tuple[bool, str]:
    values, dim, block = launch.make(np.random.default_rng(1))
    host = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
    inputs = _arrays(values, launch.dtypes, device)
    wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device=device)
    worst = 0.0
    for k, want in reference(host).items():
        got = inputs[k].numpy().reshape(np.shape(want))
        if got.dtype.kind in "iu":
            bad = int(np.sum(got != want))
            if launch.name.startswith("kmeans"):        # ties within rounding may pick either
                bad = int(np.sum(got != want)) > len(want) // 1000
            if bad:
                return False, f"argument {k}: {int(np.sum(got != want))} elements differ"
            continue
        tol = 1e-9 if got.dtype == np.float64 else 2e-5
        err = float(np.max(np.abs(got - want) / (np.abs(want) + 1.0)))
        worst = max(worst, err)
        if err > tol:
            return False, f"argument {k}: relative error {err:.2e}"
    return True, f"worst relative error {worst:.1e}"


def main() -> None:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="checks to run (default: all)")
    ap.add_argument("--device", default="cpu", help="cpu (default) or cuda: the same checks on a GPU")
    args = ap.parse_args()
    only = args.names
    failed = 0
    for launch, ref in CHECKS:
        if only and launch.name not in only:
            continue
        ok, why = check(launch, ref, args.device)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {launch.name:22s} {launch.kernel.key:26s} {why}")
    print(f"{len(CHECKS) - failed if not only else ''} kernels checked; {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
