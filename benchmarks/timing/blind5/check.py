"""Check every kernel of the fifth blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind5/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

import simt as wp  # noqa: E402
from timing.blind import checking  # noqa: E402
from timing.blind5 import cases as C  # noqa: E402
from timing.blind5 import kernels as K  # noqa: E402
from timing.cases import _arrays  # noqa: E402

f32, f64 = np.float32, np.float64


def hash32(x):
    x = np.asarray(x, np.uint64) & 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & 0xFFFFFFFF
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & 0xFFFFFFFF
    x ^= x >> 16
    return x


def uniform24(h):
    return ((h >> 8).astype(f32) * f32(5.9604644775390625e-08)).astype(f32)


# ---- fastWalshTransform ------------------------------------------------------------------------

def ref_fwt(v):
    x, half = v
    x = x.astype(f64)
    h = int(half)
    y = x.reshape(-1, 2, h)
    return {0: np.concatenate([y[:, 0] + y[:, 1], y[:, 0] - y[:, 1]], axis=1).ravel()}


def ref_fwt_shared(v):
    (x,) = v
    y = x.astype(f64).reshape(-1, 1024)
    h = 1
    while h < 1024:
        z = y.reshape(y.shape[0], -1, 2, h)
        y = np.concatenate([z[:, :, 0] + z[:, :, 1], z[:, :, 0] - z[:, :, 1]], axis=2).reshape(y.shape)
        h *= 2
    return {0: y.ravel()}


# ---- image processing --------------------------------------------------------------------------

def windows(img, r):
    p = np.pad(img, r, mode="edge")
    h, w = img.shape
    return np.stack([p[dy:dy + h, dx:dx + w] for dy in range(2 * r + 1) for dx in range(2 * r + 1)])


def ref_median(v):
    img, _ = v
    return {1: np.median(windows(img.astype(f64), 1), axis=0)}


def ref_erode(v):
    img, r = v[0], (int(v[1]) if len(v) == 3 else 2)
    return {len(v) - 1: windows(img, r).min(axis=0)}


def ref_integral_rows(v):
    return {1: np.cumsum(v[0].astype(f64), axis=1)}


def ref_integral_cols(v):
    return {1: np.cumsum(v[0].astype(f64), axis=0)}


def ref_rgb(planar):
    def ref(v):
        px = v[0].T if planar else v[0]
        p = px.astype(np.int64)
        return {1: ((77 * p[:, 0] + 150 * p[:, 1] + 29 * p[:, 2] + 128) >> 8).astype(np.uint8)}
    return ref


def ref_resize(v):
    src, dst = v
    sh, sw = src.shape
    dh, dw = dst.shape
    fy = np.clip((np.arange(dh) + 0.5) * sh / dh - 0.5, 0, sh - 1)
    fx = np.clip((np.arange(dw) + 0.5) * sw / dw - 0.5, 0, sw - 1)
    y0, x0 = fy.astype(int), fx.astype(int)
    y1, x1 = np.minimum(y0 + 1, sh - 1), np.minimum(x0 + 1, sw - 1)
    wy, wx = (fy - y0)[:, None], (fx - x0)[None, :]
    s = src.astype(f64)
    top = s[y0][:, x0] + wx * (s[y0][:, x1] - s[y0][:, x0])
    bot = s[y1][:, x0] + wx * (s[y1][:, x1] - s[y1][:, x0])
    return {1: top + wy * (bot - top)}


# ---- ML operators ------------------------------------------------------------------------------

def ref_maxpool(v):
    x, y = v
    c, h, w = x.shape
    p = np.pad(x.astype(f64), ((0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    oh, ow = y.shape[1:]
    out = np.full((c, oh, ow), -np.inf)
    for dy in range(3):
        for dx in range(3):
            out = np.maximum(out, p[:, dy:dy + 2 * oh:2, dx:dx + 2 * ow:2])
    return {1: out}


def ref_bn(nhwc):
    def ref(v):
        x, mean, var, gamma, beta, eps, _ = v
        s = gamma.astype(f64) / np.sqrt(var.astype(f64) + float(eps))
        if nhwc:
            return {6: (x - mean) * s + beta}
        return {6: (x - mean[None, :, None]) * s[None, :, None] + beta[None, :, None]}
    return ref


def ref_gelu(v):
    x = v[0].astype(f64)
    return {1: 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))}


def ref_im2col(v):
    img, cols = v
    c, h, w = img.shape
    p = np.pad(img.astype(f64), ((0, 0), (1, 1), (1, 1)))
    out = np.stack([p[:, ky:ky + h, kx:kx + w] for ky in range(3) for kx in range(3)], axis=1)
    return {1: out.reshape(c * 9, h * w)}


def ref_attn(v):
    q, k, scale, _ = v
    return {3: q.astype(f64) @ k.astype(f64).T * float(scale)}


def ref_xent(v):
    x, t, _, _ = v
    x = x.astype(f64)
    m = x.max(axis=1)
    loss = np.log(np.exp(x - m[:, None]).sum(axis=1)) + m - x[np.arange(len(t)), t]
    return {2: loss, 3: np.array([loss.sum()]) / len(t)}


def ref_adam(v):
    p, g, m, vv, lr, b1, b2, eps, bc1, bc2 = (np.asarray(a, f64) for a in v)
    m1 = b1 * m + (1 - b1) * g
    v1 = b2 * vv + (1 - b2) * g * g
    return {0: p - lr * (m1 / bc1) / (np.sqrt(v1 / bc2) + eps), 2: m1, 3: v1}


def ref_dropout(v):
    x, seed, p, _ = v
    idx = np.arange(len(x), dtype=np.uint64)
    h = hash32(((idx * 0x9E3779B1) & 0xFFFFFFFF) ^ int(seed))
    keep = uniform24(h) >= f32(p)
    return {3: np.where(keep, x.astype(f64) / (1.0 - float(p)), 0.0)}


def ref_quantize(v):
    x, _, _ = v
    a = np.maximum(np.abs(x).max(axis=1), f32(1e-12)).astype(f32)
    inv = (f32(127.0) / a).astype(f32)
    q = np.rint((x * inv[:, None]).astype(f32)).astype(np.int8)
    return {1: q, 2: a.astype(f64) / 127.0}


# ---- physics -----------------------------------------------------------------------------------

def ref_ising(v):
    s, color, accept, seed = v
    h, w = s.shape
    si = s.astype(np.int64)
    nb = np.roll(si, 1, 0) + np.roll(si, -1, 0) + np.roll(si, 1, 1) + np.roll(si, -1, 1)
    de = si * nb
    i, j = np.mgrid[0:h, 0:w]
    u = uniform24(hash32((i * w + j).astype(np.uint64) ^ int(seed)))
    flip = (de <= 0) | (u < accept[np.clip(de // 2, 0, 2)])
    flip &= (i + j) % 2 == int(color)
    return {0: np.where(flip, -si, si).astype(s.dtype)}


def ref_pic(v):
    px, py, q, rho = v
    h, w = rho.shape
    x, y = px.astype(f64), py.astype(f64)
    ix, iy = x.astype(int), y.astype(int)
    fx, fy = x - ix, y - iy
    out = np.zeros((h, w))
    for yy, xx, wt in ((iy, ix, (1 - fx) * (1 - fy)), (iy, (ix + 1) % w, fx * (1 - fy)),
                       ((iy + 1) % h, ix, (1 - fx) * fy), ((iy + 1) % h, (ix + 1) % w, fx * fy)):
        np.add.at(out, (yy, xx), float(q) * wt)
    return {3: out}


def ref_sph(v):
    p, start, end, order, cells, h, mass, _ = v
    p = p.astype(f64)
    h = float(h)
    d2 = ((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2)
    wgt = np.where(d2 < h * h, (h * h - d2) ** 3, 0.0)
    return {7: float(mass) * 315.0 / (64.0 * np.pi) / h ** 9 * wgt.sum(axis=1)}


# ---- graphs ------------------------------------------------------------------------------------

def ref_pr_pull(v):
    ptr, src, contrib, d, rank = v
    n = len(rank)
    s = np.zeros(n)
    dst = np.repeat(np.arange(n), np.diff(ptr))
    np.add.at(s, dst, contrib[src].astype(f64))
    return {4: (1 - float(d)) / n + float(d) * s}


def ref_pr_push(v):
    ptr, dst, rank, d, acc = v
    n = len(rank)
    deg = np.diff(ptr)
    src = np.repeat(np.arange(n), deg)
    out = acc.astype(f64).copy()
    np.add.at(out, dst, float(d) * rank[src].astype(f64) / deg[src])
    return {4: out}


# ---- checksums and geometry --------------------------------------------------------------------

def ref_crc(v):
    import zlib
    msg = v[0]
    return {2: np.array([zlib.crc32(row.tobytes()) for row in msg], np.uint32)}


def ref_pip(v):
    px, py, vx, vy, _ = v
    x, y = px[:, None], py[:, None]
    xk, yk = vx[None, :], vy[None, :]
    xj, yj = np.roll(vx, 1)[None, :], np.roll(vy, 1)[None, :]
    cross = (yk > y) != (yj > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        xc = (xk + (y - yk) * (xj - xk) / (yj - yk)).astype(f32)
    return {4: (np.sum(cross & (x < xc), axis=1) % 2).astype(np.int32)}


def ref_ray(v):
    s, out = v
    n = out.shape[0]
    yy, xx = np.mgrid[0:n, 0:out.shape[1]]
    d = np.stack([(xx + 0.5) / out.shape[1] * 2 - 1, (yy + 0.5) / n * 2 - 1, np.ones_like(xx, f64)], -1)
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    best = np.full(out.shape, 1e30)
    shade = np.zeros(out.shape)
    for sp in s.astype(f64):
        c, r = sp[:3], sp[3]
        b = d @ c
        disc = b * b - c @ c + r * r
        t = b - np.sqrt(np.maximum(disc, 0))
        hit = (disc > 0) & (t > 0) & (t < best)
        nrm = (d * t[..., None] - c) / r
        sh = np.maximum(-(nrm * d).sum(-1), 0)
        best = np.where(hit, t, best)
        shade = np.where(hit, sh, shade)
    return {1: shade}


L = C.Launch
VEC3_0, VEC4_0 = C.VEC3_0, C.VEC4_0

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("fwt_h1", K.fwt_stage, C.fwt(4096, 1), ""), ref_fwt, 1e-5),
    (L("fwt_h512", K.fwt_stage, C.fwt(4096, 512), ""), ref_fwt, 1e-5),
    (L("fwt_shared", K.fwt_shared, C.fwt_block(4096), ""), ref_fwt_shared, 1e-5),
    (L("median_u8", K.median3x3, C.median(64, np.uint8), ""), ref_median, 0),
    (L("median_f32", K.median3x3, C.median(64, f32), ""), ref_median, 0),
    (L("erode_naive_r2", K.erode_naive, C.erode(64, 2), ""), ref_erode, 0),
    (L("erode_naive_r1", K.erode_naive, C.erode(64, 1), ""), ref_erode, 0),
    (L("erode_tiled", K.erode_tiled, C.erode(64), ""), ref_erode, 0),
    (L("integral_rows", K.integral_rows, C.integral(128, 96, True), ""), ref_integral_rows, 1e-5),
    (L("integral_cols", K.integral_cols, C.integral(96, 128, False), ""), ref_integral_cols, 1e-5),
    (L("rgb_interleaved", K.rgb_gray_interleaved, C.rgb(5000, False), ""), ref_rgb(False), 0),
    (L("rgb_planar", K.rgb_gray_planar, C.rgb(5000, True), ""), ref_rgb(True), 0),
    (L("resize_up", K.resize_bilinear, C.resize(48, 96), ""), ref_resize, 1e-5),
    (L("resize_down", K.resize_bilinear, C.resize(128, 32), ""), ref_resize, 1e-5),
    (L("maxpool", K.maxpool3x3s2, C.maxpool(3, 64), ""), ref_maxpool, 0),
    (L("bn_nchw", K.batchnorm_nchw, C.batchnorm(2, 8, 256, False), ""), ref_bn(False), 1e-5),
    (L("bn_nhwc", K.batchnorm_nhwc, C.batchnorm(2, 64, 32, True), ""), ref_bn(True), 1e-5),
    (L("gelu", K.gelu_tanh, C.gelu(5000), ""), ref_gelu, 1e-5),
    (L("gelu_f64", K.gelu_tanh, C.gelu(5000, f64), ""), ref_gelu, 1e-12),
    (L("im2col", K.im2col3x3, C.im2col(3, 16, 16), ""), ref_im2col, 0),
    (L("attn_naive", K.attn_scores_naive, C.attn(64), ""), ref_attn, 1e-5),
    (L("attn_tiled", K.attn_scores_tiled, C.attn(64), ""), ref_attn, 1e-5),
    (L("xent_4096", K.cross_entropy_warp, C.xent(16, 4096), ""), ref_xent, 1e-4),
    (L("xent_1000", K.cross_entropy_warp, C.xent(40, 1000), ""), ref_xent, 1e-4),
    (L("adam", K.adam_step, C.adam(5000), ""), ref_adam, 1e-4),
    (L("dropout", K.dropout_hash, C.dropout(5000, 0.1), ""), ref_dropout, 1e-6),
    (L("quantize", K.quantize_rows, C.quantize(16, 1024), ""), ref_quantize, 1e-3),
    (L("ising_i8", K.ising_checker, C.ising(64, np.int8), ""), ref_ising, 0),
    (L("ising_i32_c1", K.ising_checker, C.ising(64, np.int32, color=1), ""), ref_ising, 0),
    (L("pic_random", K.pic_deposit, C.pic(20_000, 32, False), ""), ref_pic, 1e-5),
    (L("pic_sorted", K.pic_deposit, C.pic(20_000, 32, True), ""), ref_pic, 1e-5),
    (L("sph_ordered", K.sph_density, C.sph(1024, 6, False), "", VEC3_0), ref_sph, 1e-4),
    (L("sph_shuffled", K.sph_density, C.sph(1024, 6, True), "", VEC3_0), ref_sph, 1e-4),
    (L("pr_pull_uniform", K.pagerank_pull, C.pagerank(5000, 40_000, False, False), ""), ref_pr_pull, 1e-5),
    (L("pr_pull_skewed", K.pagerank_pull, C.pagerank(5000, 40_000, True, False), ""), ref_pr_pull, 1e-5),
    (L("pr_push_uniform", K.pagerank_push, C.pagerank(5000, 40_000, False, True), ""), ref_pr_push, 1e-5),
    (L("pr_push_skewed", K.pagerank_push, C.pagerank(5000, 40_000, True, True), ""), ref_pr_push, 1e-5),
    (L("crc32_global", K.crc32_global, C.crc(512, 64), ""), ref_crc, 0),
    (L("crc32_shared", K.crc32_shared, C.crc(512, 64), ""), ref_crc, 0),
    (L("pip_v64", K.point_in_polygon, C.pip(5000, 64), ""), ref_pip, 1e-3),
    (L("pip_v1024", K.point_in_polygon, C.pip(5000, 1024), ""), ref_pip, 1e-3),
    (L("ray_s64", K.ray_spheres, C.spheres(64, 64), "", VEC4_0), ref_ray, 1e-3),
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
        if launch.name.startswith("xent") and k == 3:   # the total against the mean loss
            got = got / host[1].size
        err = float(np.max(np.abs(got.astype(f64) - want) / (np.abs(want) + 1.0)))
        worst = max(worst, err)
        if not err <= tol:
            return False, f"argument {k}: relative error {err:.2e}"
    return True, f"worst error {worst:.1e}"


def main() -> None:
    checking.run(CHECKS, check, __doc__)


if __name__ == "__main__":
    main()
