"""Check every kernel of the fourth blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind4/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

import simt as wp  # noqa: E402
from timing.blind import checking  # noqa: E402
from timing.blind4 import cases as C  # noqa: E402
from timing.blind4 import kernels as K  # noqa: E402
from timing.cases import _arrays  # noqa: E402

f64 = np.float64


# ---- PolyBench/GPU -----------------------------------------------------------------------------

def ref_covariance(v):
    d, _ = v
    d = d.astype(f64)
    return {1: d.T @ d / (d.shape[0] - 1)}


def ref_symm(v):
    a, b, c, alpha, beta = v
    low = np.tril(np.nan_to_num(a.astype(f64)))
    full = low + np.tril(low, -1).T
    return {2: float(alpha) * full @ b.astype(f64) + float(beta) * c.astype(f64)}


def ref_cholesky(v):
    a, k, ldiag = v
    k = int(k)
    a = a.astype(f64)
    lkk = np.sqrt(a[k, k] - a[k, :k] @ a[k, :k])
    out = a.copy()
    out[k + 1:, k] = (a[k + 1:, k] - a[k + 1:, :k] @ a[k, :k]) / lkk
    diag = ldiag.astype(f64)
    diag[k] = lkk
    return {0: out, 2: diag}


def ref_nussinov(v):
    seq, table, d = v
    d = int(d)
    n = table.shape[0]
    out = table.copy()
    for i in range(n - d):
        j = i + d
        pair = int(int(seq[i]) + int(seq[j]) == 3)
        best = max(table[i + 1, j], table[i, j - 1], table[i + 1, j - 1] + pair)
        if j > i + 1:
            best = max(best, int(np.max(table[i, i + 1:j] + table[i + 2:j + 1, j])))
        out[i, j] = best
    return {1: out}


# ---- Rodinia -----------------------------------------------------------------------------------

def ref_buckets(v):
    keys, pivots, n, counts = v
    blocks = counts.shape[0]
    stride = blocks * 256
    bucket = np.searchsorted(pivots, keys, side="right")
    out = np.zeros_like(counts)
    owner = (np.arange(int(n)) % stride) // 256
    np.add.at(out, (owner, bucket), 1)
    return {3: out}


def ref_template(v):
    img, tmpl, py, px, _ = v
    img = img.astype(f64)
    out = np.zeros((len(py), 256))
    for p in range(len(py)):
        for t in range(256):
            y0, x0 = py[p] + t // 16 - 8, px[p] + t % 16 - 8
            patch = img[y0:y0 + 16, x0:x0 + 16]
            out[p, t] = (patch * tmpl[p]).sum() / np.sqrt((patch * patch).sum() + 1.0)
    return {4: out}


def ref_hh(v):
    state, drive, steps = v
    s = state.astype(f64)
    vv, m, h, n = s[:, 0].copy(), s[:, 1].copy(), s[:, 2].copy(), s[:, 3].copy()
    cur = drive.astype(f64)
    dt = 0.01
    for _ in range(int(steps)):
        am = 1.0 / (1.0 + np.exp(-(vv + 40.0) * 0.1))
        bm = 4.0 * np.exp(-(vv + 65.0) / 18.0)
        ah = 0.07 * np.exp(-(vv + 65.0) * 0.05)
        bh = 1.0 / (1.0 + np.exp(-(vv + 35.0) * 0.1))
        an = 0.1 / (1.0 + np.exp(-(vv + 55.0) * 0.1))
        bn = 0.125 * np.exp(-(vv + 65.0) / 80.0)
        ina = 120.0 * m ** 3 * h * (vv - 50.0)
        ik = 36.0 * n ** 4 * (vv + 77.0)
        il = 0.3 * (vv + 54.4)
        vv, m, h, n = (vv + dt * (cur - ina - ik - il), m + dt * (am * (1 - m) - bm * m),
                       h + dt * (ah * (1 - h) - bh * h), n + dt * (an * (1 - n) - bn * n))
    return {0: np.stack([vv, m, h, n], axis=1)}


# ---- the CUDA samples --------------------------------------------------------------------------

def ref_montecarlo(v):
    z, s, x, t, _ = (a.astype(f64) for a in v)
    r, vol = 0.02, 0.30
    st = s[:, None] * np.exp((r - 0.5 * vol * vol) * t[:, None] + vol * np.sqrt(t)[:, None] * z[None, :])
    return {4: np.maximum(st - x[:, None], 0.0).mean(axis=1) * np.exp(-r * t)}


def ref_binomial(v):
    s, x, t, steps, _ = v
    steps = int(steps)
    r, vol = 0.02, 0.30
    out = np.zeros(len(s))
    for o in range(len(s)):
        dt = float(t[o]) / steps
        vdt = vol * np.sqrt(dt)
        u = np.exp(vdt)
        pu = (np.exp(r * dt) - 1 / u) / (u - 1 / u)
        disc = np.exp(-r * dt)
        val = np.maximum(float(s[o]) * np.exp(vdt * (2 * np.arange(steps + 1) - steps)) - float(x[o]), 0.0)
        for lv in range(steps, 0, -1):
            val = pu * disc * val[1:lv + 1] + (1 - pu) * disc * val[:lv]
        out[o] = val[0]
    return {4: out}


def ref_sturm(v):
    d, e2, x, _ = v
    dt = d.dtype.type
    tiny = dt(1e-30)
    q = d[0] - x
    cnt = (q < 0).astype(np.int32)
    for k in range(1, len(d)):
        q = np.where(np.abs(q) < tiny, tiny, q)
        q = (d[k] - x) - e2[k - 1] / q
        cnt += (q < 0)
    return {3: cnt}


def ref_bilateral(v):
    img, space, inv, _ = v
    img = img.astype(f64)
    n0, n1 = img.shape
    pad = np.pad(img, 3, mode="edge")
    sw = np.zeros_like(img)
    sv = np.zeros_like(img)
    for dy in range(7):
        for dx in range(7):
            nb = pad[dy:dy + n0, dx:dx + n1]
            w = float(space[dy, dx]) * np.exp(-(nb - img) ** 2 * float(inv))
            sw += w
            sv += w * nb
    return {3: sv / sw}


# ---- ML operators ------------------------------------------------------------------------------

def ref_layernorm(v):
    x, g, b, _ = (a.astype(f64) for a in v)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return {3: (x - mu) / np.sqrt(var + 1e-5) * g + b}


def ref_softmax(v):
    x = v[0].astype(f64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {1: e / e.sum(axis=1, keepdims=True)}


def ref_embedding(v):
    table, index, offsets, out = v
    t = table.astype(f64)
    return {3: np.stack([t[index[offsets[b]:offsets[b + 1]]].sum(axis=0) for b in range(out.shape[0])])}


def ref_topk(v):
    x, k, _, _ = v
    k = int(k)
    order = np.argsort(-x, axis=1, kind="stable")[:, :k]
    return {2: np.take_along_axis(x, order, axis=1), 3: order.astype(np.int32)}


# ---- graphs ------------------------------------------------------------------------------------

def ref_cc(v):
    src, dst, label, out = v
    out = out.copy()
    lu, lv = label[src], label[dst]
    np.minimum.at(out, dst[lu < lv], lu[lu < lv])
    np.minimum.at(out, src[lv < lu], lv[lv < lu])
    return {3: out}


def ref_sssp(v):
    row_ptr, cols, w, dist, out = v
    out = out.copy()
    src = np.repeat(np.arange(len(dist)), np.diff(row_ptr))
    live = dist[src] < C.INF
    np.minimum.at(out, cols[live], dist[src][live] + w[live])
    return {4: out}


def ref_color(v):
    row_ptr, cols, rand, color, step, out = v
    out = out.copy()
    for u in range(len(color)):
        if color[u] >= 0:
            continue
        nb = cols[row_ptr[u]:row_ptr[u + 1]]
        nb = nb[color[nb] < 0]
        if not np.any((rand[nb] > rand[u]) | ((rand[nb] == rand[u]) & (nb > u))):
            out[u] = int(step)
    return {5: out}


def ref_tc(v):
    src, dst, row_ptr, cols, _ = v
    n = 0
    for u, w in zip(src, dst):
        n += len(np.intersect1d(cols[row_ptr[u]:row_ptr[u + 1]], cols[row_ptr[w]:row_ptr[w + 1]]))
    return {4: np.array([n], np.int32)}


def ref_filter(v):
    x, thr, out, _ = v
    kept = np.sort(x[x > thr])
    return {2: np.concatenate([kept, np.zeros(len(x) - len(kept), x.dtype)]), 3: np.array([len(kept)], np.int32)}


# ---- sequences ---------------------------------------------------------------------------------

def fmix64(h):
    m = np.uint64(0xFFFFFFFFFFFFFFFF)
    h = h ^ (h >> np.uint64(33))
    h = (h * np.uint64(0xFF51AFD7ED558CCD)) & m
    h = h ^ (h >> np.uint64(33))
    h = (h * np.uint64(0xC4CEB9FE1A85EC53)) & m
    return h ^ (h >> np.uint64(33))


def ref_kmer(v):
    seq, k, counts = v
    k = int(k)
    n = len(seq) - k + 1
    code = np.zeros(n, np.uint64)
    bits = ((seq.astype(np.int64) >> 1) & 3).astype(np.uint64)
    for j in range(k):
        code = (code << np.uint64(2)) | bits[j:j + n]
    with np.errstate(over="ignore"):
        slot = (fmix64(code) & np.uint64(len(counts) - 1)).astype(np.int64)
    return {2: np.bincount(slot, minlength=len(counts)).astype(np.int32)}


def sw_cell(a, b, h, e, f, i, j, hd, hl, hu, el, fu):
    ev = max(el - 1, hl - 3)
    fv = max(fu - 1, hu - 3)
    hv = max(max(0, hd + (2 if a[i - 1] == b[j - 1] else -1)), max(ev, fv))
    return ev, fv, hv


def ref_sw(diagmajor):
    def ref(v):
        a, b, h, e, f, d = v
        d = int(d)
        h, e, f = (x.astype(np.int32) for x in (h, e, f))
        m, n = len(a), len(b)
        for i in range(max(1, d - n), min(d - 1, m) + 1):
            j = d - i
            if diagmajor:
                ev, fv, hv = sw_cell(a, b, h, e, f, i, j, h[d - 2, i - 1], h[d - 1, i], h[d - 1, i - 1],
                                     e[d - 1, i], f[d - 1, i - 1])
                e[d, i], f[d, i], h[d, i] = ev, fv, hv
            else:
                ev, fv, hv = sw_cell(a, b, h, e, f, i, j, h[i - 1, j - 1], h[i, j - 1], h[i - 1, j],
                                     e[i, j - 1], f[i - 1, j])
                e[i, j], f[i, j], h[i, j] = ev, fv, hv
        return {2: h, 3: e, 4: f}
    return ref


L = C.Launch
U8, U16, F16, F32, F64 = np.uint8, np.uint16, np.float16, np.float32, np.float64
# outputs compared after sorting (their order is the atomics')
SORTED = {"filter_atomic", "filter_agg", "filter_agg_sparse"}
# (launch at a small size, reference, relative tolerance for floats or the share of integer
# elements that may differ)
CHECKS = [
    (L("covariance", K.covariance, C.covariance(50, 72), ""), ref_covariance, 2e-5),
    (L("symm", K.symm, C.symm(72, 40), ""), ref_symm, 2e-5),
    (L("cholesky_k37", K.cholesky_col, C.cholesky(150, 37), ""), ref_cholesky, 2e-5),
    (L("cholesky_k0", K.cholesky_col, C.cholesky(150, 0), ""), ref_cholesky, 2e-5),
    (L("cholesky_f64_k100", K.cholesky_col, C.cholesky(150, 100, F64), ""), ref_cholesky, 1e-12),
    (L("nussinov_d1", K.nussinov_diag, C.nussinov(200, 1), ""), ref_nussinov, 0),
    (L("nussinov_d77", K.nussinov_diag, C.nussinov(200, 77), ""), ref_nussinov, 0),
    (L("bucket_uniform", K.bucket_count, C.buckets(50_000, False, 8), ""), ref_buckets, 0),
    (L("bucket_clustered", K.bucket_count, C.buckets(50_000, True, 8), ""), ref_buckets, 0),
    (L("template_u16", K.template_corr, C.templates(6, U16, 96), ""), ref_template, 2e-5),
    (L("template_u8", K.template_corr, C.templates(6, U8, 96), ""), ref_template, 2e-5),
    (L("hh", K.hh_cells, C.hh(1024, 50), ""), ref_hh, 1e-4),
    (L("hh_f64", K.hh_cells, C.hh(1024, 50, F64), ""), ref_hh, 1e-11),
    (L("montecarlo", K.montecarlo_option, C.montecarlo(12, 5000), ""), ref_montecarlo, 1e-4),
    (L("binomial_b128", K.binomial_options, C.binomial(6, 300, 128), ""), ref_binomial, 1e-4),
    (L("binomial_b64", K.binomial_options, C.binomial(6, 1024, 64), ""), ref_binomial, 5e-4),
    (L("sturm", K.sturm_count, C.sturm(2048, 200), ""), ref_sturm, 0),
    (L("sturm_f64", K.sturm_count, C.sturm(2048, 200, F64), ""), ref_sturm, 0),
    (L("bilateral_u8", K.bilateral, C.bilateral(64, U8), ""), ref_bilateral, 2e-5),
    (L("bilateral_f32", K.bilateral, C.bilateral(64, F32), ""), ref_bilateral, 2e-5),
    (L("layernorm_warp", K.layernorm_warp, C.rows(40, 200, True), ""), ref_layernorm, 2e-5),
    (L("layernorm_thread", K.layernorm_thread, C.rows(256, 200, False), ""), ref_layernorm, 2e-5),
    (L("softmax", K.softmax_online, C.softmax(40, 300), ""), ref_softmax, 2e-6),
    (L("embedding_f32", K.embedding_bag, C.embedding(64, 1000, 64, F32), ""), ref_embedding, 2e-5),
    (L("embedding_f16", K.embedding_bag, C.embedding(64, 1000, 64, F16), ""), ref_embedding, 2e-5),
    (L("topk8", K.topk_warp, C.topk(64, 8), ""), ref_topk, 0),
    (L("topk32", K.topk_warp, C.topk(64, 32), ""), ref_topk, 0),
    (L("cc_uniform", K.cc_hook, C.cc_graph(5000, 40_000, False), ""), ref_cc, 0),
    (L("cc_skewed", K.cc_hook, C.cc_graph(5000, 40_000, True), ""), ref_cc, 0),
    (L("sssp_uniform", K.sssp_relax, C.sssp_graph(5000, 40_000, False), ""), ref_sssp, 0),
    (L("sssp_skewed", K.sssp_relax, C.sssp_graph(5000, 40_000, True), ""), ref_sssp, 0),
    (L("color_uniform", K.color_jp, C.color_graph(5000, 20_000, False), ""), ref_color, 0),
    (L("color_skewed", K.color_jp, C.color_graph(5000, 20_000, True), ""), ref_color, 0),
    (L("tc_atomic", K.tc_atomic, C.tc_graph(500, 6000), ""), ref_tc, 0),
    (L("tc_warp", K.tc_warp, C.tc_graph(500, 6000), ""), ref_tc, 0),
    (L("filter_atomic", K.filter_atomic, C.filtered(20_000, 0.5), ""), ref_filter, 0),
    (L("filter_agg", K.filter_warp_agg, C.filtered(20_000, 0.5), ""), ref_filter, 0),
    (L("filter_agg_sparse", K.filter_warp_agg, C.filtered(20_000, 0.02), ""), ref_filter, 0),
    (L("kmer31", K.kmer_count, C.kmer(20_000, 31, 1024), ""), ref_kmer, 0),
    (L("kmer7", K.kmer_count, C.kmer(20_000, 7, 1 << 16), ""), ref_kmer, 0),
    (L("sw_rowmajor_d200", K.sw_rowmajor, C.sw(150, 200, False), ""), ref_sw(False), 0),
    (L("sw_rowmajor_d90", K.sw_rowmajor, C.sw(150, 90, False), ""), ref_sw(False), 0),
    (L("sw_diagmajor_d200", K.sw_diagmajor, C.sw(150, 200, True), ""), ref_sw(True), 0),
    (L("sw_diagmajor_d90", K.sw_diagmajor, C.sw(150, 90, True), ""), ref_sw(True), 0),
]


def check(launch, reference, tol, device="cpu") -> tuple[bool, str]:
    values, dim, block = launch.make(np.random.default_rng(1))
    host = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
    inputs = _arrays(values, launch.dtypes, device)
    wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device=device)
    worst = 0.0
    for k, want in reference(host).items():
        got = inputs[k].numpy().reshape(np.shape(want))
        if launch.name in SORTED and k == 2:
            n = int(inputs[3].numpy()[0])
            got = np.concatenate([np.sort(got[:n]), got[n:]])
        if got.dtype.kind in "iu":
            bad = int(np.sum(got != want))
            if bad > tol * got.size:
                return False, f"argument {k}: {bad} of {got.size} elements differ"
            worst = max(worst, bad / got.size)
            continue
        err = float(np.max(np.abs(got.astype(f64) - want) / (np.abs(want) + 1.0)))
        worst = max(worst, err)
        if not err <= tol:
            return False, f"argument {k}: relative error {err:.2e}"
    return True, f"worst error {worst:.1e}"


def main() -> None:
    checking.run(CHECKS, check, __doc__)


if __name__ == "__main__":
    main()
