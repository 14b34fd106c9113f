"""Check every kernel of the sixth blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind6/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

import simt as wp  # noqa: E402
from timing.blind import checking  # noqa: E402
from timing.blind6 import cases as C  # noqa: E402
from timing.blind6 import kernels as K  # noqa: E402
from timing.cases import _arrays  # noqa: E402

f32, f64 = np.float32, np.float64
hash32 = C.hash32


# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result's order is the atomics' (a scatter's slots, an exchange's winner).

# ---- sparse and segmented ----------------------------------------------------------------------

def ref_segreduce(v):
    keys, vals, out = v
    s = np.zeros(len(out))
    np.add.at(s, keys, vals.astype(f64))
    return {2: s}


def ref_csr_transpose(v):
    r, c, val, cursor, _, _ = v
    o = np.lexsort((r, c))
    col_of_slot = c[o]

    def by_row(k):
        def f(got, res):
            rows = res(4)
            p = np.lexsort((rows, col_of_slot))
            return got[p]
        return f
    return {4: (by_row(4), r[o]), 5: (by_row(5), val[o].astype(f64))}


def ref_spmm(v):
    ptr, col, val, b, _ = v
    m = len(ptr) - 1
    a = np.zeros((m, b.shape[0]))
    rows = np.repeat(np.arange(m), np.diff(ptr))
    np.add.at(a, (rows, col), val.astype(f64))
    return {4: a @ b.astype(f64)}


# ---- search ------------------------------------------------------------------------------------

def ref_knn(v):
    qx, qy, rx, ry, _, _ = v
    d = ((rx[None, :] - qx[:, None]) ** 2 + (ry[None, :] - qy[:, None]) ** 2).astype(f32)
    o = np.argsort(d, axis=1, kind="stable")[:, :4]
    return {4: np.take_along_axis(d, o, 1).astype(f64), 5: o.astype(np.int32)}


def ref_merge(v):
    a, b, _, _ = v
    return {3: np.sort(np.concatenate([a, b])).astype(f64)}


# ---- ML operators ------------------------------------------------------------------------------

def ref_mish(v):
    x = v[0].astype(f64)
    return {1: x * np.tanh(np.where(x < 20, np.log1p(np.exp(np.minimum(x, 20))), x))}


def ref_lnbwd(v):
    dy, x, mean, rstd, gamma, _ = (a.astype(f64) for a in v)
    xh = (x - mean[:, None]) * rstd[:, None]
    g = dy * gamma[None, :]
    return {5: rstd[:, None] * (g - g.mean(1, keepdims=True) - xh * (g * xh).mean(1, keepdims=True))}


def ref_rmsnorm(v):
    x, w, eps, _ = v
    x = x.astype(f64)
    return {3: x / np.sqrt((x * x).mean(1, keepdims=True) + float(eps)) * w.astype(f64)}


def rope_ref(x, c, s):
    x = x.astype(f64)
    a, b = x[..., 0::2], x[..., 1::2]
    y = np.empty_like(x)
    y[..., 0::2] = a * c[:, None, :] - b * s[:, None, :]
    y[..., 1::2] = a * s[:, None, :] + b * c[:, None, :]
    return y


def ref_rope_sincos(v):
    x, lb, _ = v
    t, _, d = x.shape
    theta = np.arange(t)[:, None] * np.exp(-2.0 * np.arange(d // 2)[None, :] / d * float(lb))
    return {2: rope_ref(x, np.cos(theta), np.sin(theta))}


def ref_rope_table(v):
    x, c, s, _ = v
    return {3: rope_ref(x, c.astype(f64), s.astype(f64))}


def ref_top_p(v):
    pr, p, _ = v
    cs = np.cumsum(pr.astype(f64), axis=1)
    reach = cs >= float(p)
    return {2: np.where(reach.any(1), reach.argmax(1) + 1, pr.shape[1]).astype(np.int32)}


# ---- databases ---------------------------------------------------------------------------------

def ref_probe(v):
    tk, tv, q, _ = v
    d = {int(k): int(x) for k, x in zip(tk, tv) if k != -1}
    return {3: np.array([d.get(int(k), -1) for k in q], np.int32)}


def ref_bloom_insert(v):
    keys, bits = v
    return {1: C.bloom_bits(keys, len(bits))}


def ref_bloom_query(v):
    keys, bits, _ = v
    k = keys.astype(np.uint64)
    h1 = hash32(k).astype(np.uint64)
    h2 = (hash32(k ^ 0x5BD1E995) | 1).astype(np.uint64)
    ok = np.ones(len(keys), bool)
    for r in range(4):
        b = (h1 + r * h2) & (len(bits) * 32 - 1)
        ok &= ((bits[(b >> 5).astype(np.int64)] >> (b & 31).astype(np.uint32)) & 1) == 1
    return {2: ok.astype(np.uint8)}


def ref_mix(v):
    (s,) = v
    slots = len(s)

    def exch_ok(got, res):      # the exchange's winner: any thread of the slot
        col = got[:, 1]
        ok = (col % slots == np.arange(slots)) & (col >= 0) & (col < NMIX)
        return np.where(ok, 0, 1)
    want = np.zeros((slots, 7), np.int64)
    i = np.arange(NMIX)
    for k in range(slots):
        t = i[i % slots == k]
        want[k, 0] = 10 * len(t)
        want[k, 2] = t.max()
        want[k, 3] = t.min()
        want[k, 4] = np.bitwise_and.reduce(np.concatenate([[-1], 2 * t + 7]))
        want[k, 5] = np.bitwise_or.reduce(1 << (t % 31))
        want[k, 6] = np.bitwise_xor.reduce(t)

    def cols(got, res):
        g = got.copy()
        g[:, 1] = 0
        return g
    w = want.astype(np.int32)
    return {0: (cols, w), -1: (lambda got, res: exch_ok(res(0), res), np.zeros(slots, np.int32))}


NMIX = 2000


# ---- text --------------------------------------------------------------------------------------

def ref_strmatch(v):
    text, pat, hit, _ = v
    n = len(text) - len(pat)
    w = np.lib.stride_tricks.sliding_window_view(text, len(pat))[:n]
    m = (w == pat[None, :]).all(1)
    h = np.zeros(len(hit), np.uint8)
    h[:n] = m
    return {2: h, 3: np.array([m.sum()], np.int32)}


def ref_lz(v):
    data, window, maxlen, _, _ = v
    n = len(data)
    bl = np.zeros(n, np.int16)
    bo = np.zeros(n, np.int16)
    for i in range(n):
        for d in range(1, min(int(window), i) + 1):
            ln = 0
            while ln < maxlen and i + ln < n and data[i - d + ln] == data[i + ln]:
                ln += 1
            if ln > bl[i]:
                bl[i], bo[i] = ln, d
    return {3: bl, 4: bo}


def ref_vle(v):
    sym, code, length, pos, out = v
    total = int(pos[-1] + length[sym[-1]])
    bits = np.zeros(len(out) * 32, np.uint8)
    for s, p in zip(sym, pos):
        ln = int(length[s])
        c = int(code[s])
        for b in range(ln):
            bits[p + b] = (c >> (ln - 1 - b)) & 1
    assert total <= len(bits)
    return {4: np.packbits(bits).view(">u4").astype(np.uint32)}


# ---- image, graphics, automata -----------------------------------------------------------------

def ref_gradient(v):
    img = v[0].astype(f64)
    p = np.pad(img, 1, mode="edge")
    gx = (p[1:-1, 2:] - p[1:-1, :-2]) * 0.5
    gy = (p[2:, 1:-1] - p[:-2, 1:-1]) * 0.5
    ang = np.floor(np.arctan2(gy, gx) * 5729.5779513 + 0.5).astype(np.int16)
    return {1: np.sqrt(gx * gx + gy * gy), 2: ang}


def ref_raymarch(v):
    vol, out = v
    d = vol.shape[0]
    hh, ww = out.shape
    ix0 = (np.arange(ww) * d) // ww
    iy0 = (np.arange(hh) * d) // hh
    trans = np.ones((hh, ww), f32)
    acc = np.zeros((hh, ww), f32)
    live = np.ones((hh, ww), bool)
    for s in range(d):
        ix = np.minimum(ix0 + (ix0 * s) // (4 * d) - s // 8, d - 1)
        iy = np.minimum(iy0 + (iy0 * s) // (4 * d) - s // 8, d - 1)
        ok = live & (iy[:, None] >= 0) & (ix[None, :] >= 0)
        dens = vol[s][np.clip(iy, 0, d - 1)][:, np.clip(ix, 0, d - 1)]
        a = np.minimum(dens * f32(0.25), f32(1.0))
        acc = np.where(ok, acc + trans * a * dens, acc)
        trans = np.where(ok, trans * (f32(1.0) - a), trans)
        live &= ~(ok & (trans < f32(0.01)))
    return {1: acc.astype(f64)}


def ref_msquares(v):
    f, iso, _, _, _ = v
    g = f > iso
    c = g[:-1, :-1] * 1 + g[:-1, 1:] * 2 + g[1:, 1:] * 4 + g[1:, :-1] * 8
    act = (c != 0) & (c != 15)
    segs = act.sum() + ((c == 5) | (c == 10)).sum()
    return {2: c.astype(np.uint8), 3: np.array([act.sum()], np.int32), 4: np.array([float(segs)])}


def ref_life(v):
    g = v[0].astype(np.int64)
    n = sum(np.roll(np.roll(g, dy, 0), dx, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)) - g
    return {1: ((n == 3) | ((n == 2) & (g == 1))).astype(np.uint8)}


# ---- numerical ---------------------------------------------------------------------------------

def ref_durbin(v):
    r = v[0].astype(f64)
    n, _ = r.shape
    y = np.zeros_like(r)
    y[0] = -r[0]
    beta = np.ones(r.shape[1])
    alpha = -r[0]
    for k in range(1, n):
        beta = (1 - alpha * alpha) * beta
        s = (r[k - 1::-1][:k] * y[:k]).sum(0)
        alpha = -(r[k] + s) / beta
        z = y[:k] + alpha * y[k - 1::-1][:k]
        y[:k] = z
        y[k] = alpha
    return {1: y}


def ref_boxmuller(v):
    seed, out = v
    i = np.arange(len(out) // 2, dtype=np.uint64)
    h1 = hash32((2 * i) ^ int(seed)).astype(np.int64)
    h2 = hash32((2 * i + 1) ^ int(seed)).astype(np.int64)
    u1 = ((h1 >> 8) + 1) * 5.9604644775390625e-08
    u2 = (h2 >> 8) * 5.9604644775390625e-08
    rad = np.sqrt(-2 * np.log(u1))
    o = np.empty(len(out))
    o[0::2] = rad * np.cos(2 * np.pi * u2)
    o[1::2] = rad * np.sin(2 * np.pi * u2)
    return {1: o}


def ref_listrank(v):
    nxt, rank, _, _ = v
    j = nxt.astype(np.int64)
    has = j >= 0
    r = rank.astype(np.int64) + np.where(has, rank[np.where(has, j, 0)], 0)
    return {3: r.astype(np.int32), 2: np.where(has, nxt[np.where(has, j, 0)], -1).astype(np.int32)}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("segreduce_short", K.segreduce_warp, C.segreduce(8192, 4), ""), ref_segreduce, 1e-5),
    (L("segreduce_long", K.segreduce_warp, C.segreduce(8192, 300), ""), ref_segreduce, 1e-5),
    (L("csr_transpose_uniform", K.csr_transpose_scatter, C.csr_transpose(500, 400, 4000, False), ""),
     ref_csr_transpose, 0),
    (L("csr_transpose_skewed", K.csr_transpose_scatter, C.csr_transpose(500, 400, 4000, True), ""),
     ref_csr_transpose, 0),
    (L("spmm_n64", K.spmm_csr, C.spmm(256, 8, 64, (4, 64)), ""), ref_spmm, 1e-5),
    (L("spmm_n8", K.spmm_csr, C.spmm(256, 8, 8, (32, 8)), ""), ref_spmm, 1e-5),
    (L("knn4", K.knn4_brute, C.knn(512, 700), ""), ref_knn, 1e-6),
    (L("knn4_b64", K.knn4_brute, C.knn(256, 300, 64), ""), ref_knn, 1e-6),
    (L("merge_path_p8", K.merge_path, C.merge(4096, 8), ""), ref_merge, 0),
    (L("merge_path_p32", K.merge_path, C.merge(4096, 32), ""), ref_merge, 0),
    (L("mish", K.mish, C.act(5000), ""), ref_mish, 1e-5),
    (L("mish_f64", K.mish, C.act(5000, f64), ""), ref_mish, 1e-12),
    (L("lnbwd", K.layernorm_bwd_warp, C.lnbwd(16, 1024), ""), ref_lnbwd, 1e-4),
    (L("lnbwd_short", K.layernorm_bwd_warp, C.lnbwd(24, 100), ""), ref_lnbwd, 1e-4),
    (L("rmsnorm_8192", K.rmsnorm_block, C.rmsnorm(4, 8192), ""), ref_rmsnorm, 1e-4),
    (L("rmsnorm_1000", K.rmsnorm_block, C.rmsnorm(6, 1000), ""), ref_rmsnorm, 1e-4),
    (L("rope_sincos", K.rope_sincos, C.rope(64, 4, 128, False), ""), ref_rope_sincos, 1e-4),
    (L("rope_table", K.rope_table, C.rope(64, 4, 128, True), ""), ref_rope_table, 1e-5),
    (L("top_p_flat", K.top_p_cut, C.top_p(64, 1024, 1.0), ""), ref_top_p, 0.02),
    (L("top_p_peaked", K.top_p_cut, C.top_p(64, 1024, 0.25), ""), ref_top_p, 0.02),
    (L("hash_probe_l50", K.hash_probe, C.probe(4096, 0.5, 3000), ""), ref_probe, 0),
    (L("hash_probe_l90", K.hash_probe, C.probe(4096, 0.9, 3000), ""), ref_probe, 0),
    (L("bloom_insert", K.bloom_insert, C.bloom(3000, 1024, False), ""), ref_bloom_insert, 0),
    (L("bloom_query", K.bloom_query, C.bloom(6000, 512, True), ""), ref_bloom_query, 0),
    (L("atomic_mix_one", K.atomic_mix, C.mix(NMIX, 1), ""), ref_mix, 0),
    (L("atomic_mix_spread", K.atomic_mix, C.mix(NMIX, 37), ""), ref_mix, 0),
    (L("strmatch_dna", K.strmatch_naive, C.strmatch(20_000, 8, 4, 20), ""), ref_strmatch, 0),
    (L("strmatch_bytes", K.strmatch_naive, C.strmatch(20_000, 16, 256, 20), ""), ref_strmatch, 0),
    (L("lz_text", K.lz_match, C.lz(3000, True, 64, 32), ""), ref_lz, 0),
    (L("lz_random", K.lz_match, C.lz(3000, False, 16, 8), ""), ref_lz, 0),
    (L("vle_pack", K.vle_pack, C.vle(3000), ""), ref_vle, 0),
    (L("gradient", K.gradient_polar, C.gradient(64), ""), ref_gradient, 0.002),
    (L("raymarch_dense", K.raymarch_volume, C.volume(32, 64, True), ""), ref_raymarch, 0.02),
    (L("raymarch_sparse", K.raymarch_volume, C.volume(32, 64, False), ""), ref_raymarch, 1e-4),
    (L("msquares", K.marching_squares, C.msquares(97), ""), ref_msquares, 0),
    (L("life_naive", K.life_naive, C.life(64, False), ""), ref_life, 0),
    (L("life_shared", K.life_shared, C.life(64, True), ""), ref_life, 0),
    (L("durbin", K.durbin_batched, C.durbin(64, 256), ""), ref_durbin, 1e-4),
    (L("durbin_f64", K.durbin_batched, C.durbin(64, 256, f64), ""), ref_durbin, 1e-12),
    (L("box_muller", K.box_muller, C.boxmuller(4096), ""), ref_boxmuller, 1e-4),
    (L("list_rank_seq", K.list_rank_jump, C.linked_list(5000, False), ""), ref_listrank, 0),
    (L("list_rank_random", K.list_rank_jump, C.linked_list(5000, True), ""), ref_listrank, 0),
]


def check(launch, reference, tol, device="cpu") -> tuple[bool, str]:
    values, dim, block = launch.make(np.random.default_rng(1))
    host = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
    inputs = _arrays(values, launch.dtypes, device)
    wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device=device)
    cache = {}

    def res(k):
        if k not in cache:
            cache[k] = inputs[k].numpy()
        return cache[k]
    worst = 0.0
    for k, want in reference(host).items():
        fn = None
        if isinstance(want, tuple):
            fn, want = want
        got = res(max(k, 0))
        if fn is not None:
            got = fn(got, res)
        got = got.reshape(np.shape(want))
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
