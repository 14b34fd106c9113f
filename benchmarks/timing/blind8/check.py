"""Check every kernel of the eighth blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind8/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind8 import cases as C  # noqa: E402
from timing.blind8 import kernels as K  # noqa: E402
from timing.blind8 import kernels_ml as KM  # noqa: E402

f32, f64, u32, U64 = np.float32, np.float64, np.uint32, np.uint64

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result's order is the atomics' (a compaction's blocks, a union-find's trees).

# ---- sparse linear algebra ----------------------------------------------------------------------


def ref_coo(v):
    rows, cols, vals, x, y = v
    want = np.zeros(len(y))
    np.add.at(want, rows, vals.astype(f64) * x[cols])
    return {4: want}


def ref_bsr(v):
    bptr, bcol, bval, x, y = v
    nbr = len(bptr) - 1
    xb = x.astype(f64).reshape(-1, 4)[bcol]
    prod = np.einsum("kij,kj->ki", bval.astype(f64).reshape(-1, 4, 4), xb)
    want = np.zeros((nbr, 4))
    np.add.at(want, np.repeat(np.arange(nbr), np.diff(bptr)), prod)
    return {4: want.ravel()}


def ref_sptrsv(v):
    ptr, col, val, diag, rows, b, x = v
    want = x.astype(f64)
    for r in rows:
        lo, hi = ptr[r], ptr[r + 1]
        want[r] = (b[r] - np.dot(val[lo:hi].astype(f64), x[col[lo:hi]])) / diag[r]
    return {6: want}


# ---- sorting and stream primitives ---------------------------------------------------------------

def ref_radix(v):
    keys, shift, bits, _, _ = v
    d = (keys >> u32(shift)) & u32((1 << int(bits)) - 1)
    return {4: keys[np.argsort(d, kind="stable")]}


def ref_compact(v):
    x, thr, _, _ = v
    kept = x[x > thr]
    return {3: np.array([len(kept)], np.int32),
            2: (lambda got, res: np.sort(got[:res(3)[0]]).astype(f64), np.sort(kept).astype(f64))}


def ref_bitonic(v):
    k, _ = v
    return {1: np.sort(k.reshape(-1, 32), axis=1).ravel().astype(f64)}


def ref_pack(v):
    x, thr, _ = v
    b = (x > thr).reshape(-1, 32).astype(U64)
    return {2: (b << np.arange(32, dtype=U64)).sum(1).astype(u32)}


# ---- physics and numerical kernels --------------------------------------------------------------

def ref_su3(v):
    u, psi, size, _ = v
    L = int(size)
    uc = (u[..., 0::2] + 1j * u[..., 1::2]).astype(np.complex128).reshape(-1, 4, 3, 3)
    pc = (psi[:, 0::2] + 1j * psi[:, 1::2]).astype(np.complex128)
    p4 = pc.reshape(L, L, L, L, 3)          # t, z, y, x
    out = np.zeros_like(pc)
    for mu, axis in enumerate((3, 2, 1, 0)):
        nb = np.roll(p4, -1, axis=axis).reshape(-1, 3)
        out += np.einsum("sij,sj->si", uc[:, mu], nb)
    want = np.zeros(psi.shape)
    want[:, 0::2], want[:, 1::2] = out.real, out.imag
    return {3: want}


def ref_boris(v):
    px, py, vx, vy, vz, ex, ey, bz, qm, dt = v
    h, w = ex.shape
    x, y = px.astype(f64), py.astype(f64)
    ix, iy = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - ix, y - iy
    ix1, iy1 = (ix + 1) % w, (iy + 1) % h

    def cic(f):
        f = f.astype(f64)
        return (1 - fy) * ((1 - fx) * f[iy, ix] + fx * f[iy, ix1]) + fy * ((1 - fx) * f[iy1, ix] + fx * f[iy1, ix1])
    e1, e2, b3 = cic(ex), cic(ey), cic(bz)
    k = 0.5 * float(qm) * float(dt)
    mx, my = vx + k * e1, vy + k * e2
    tz = k * b3
    sz = 2 * tz / (1 + tz * tz)
    qx, qy = mx + my * tz, my - mx * tz
    nx, ny = mx + qy * sz + k * e1, my - qx * sz + k * e2
    return {0: np.mod(x + nx * float(dt), w), 1: np.mod(y + ny * float(dt), h), 2: nx, 3: ny, 4: vz.astype(f64)}


def expm64(a):
    """exp of each 4x4 matrix in fp64: halved until its norm is under 1/64, a 24-term Taylor
    series (an error far under fp32's), then squared back."""
    norm = np.abs(a).sum(axis=2).max(axis=1)
    s = np.maximum(0, np.ceil(np.log2(np.maximum(norm, 1e-300) * 64))).astype(int)
    x = a / (2.0 ** s)[:, None, None]
    term = np.broadcast_to(np.eye(4), x.shape).copy()
    e = term.copy()
    for k in range(1, 25):
        term = term @ x / k
        e += term
    for i in range(len(e)):
        for _ in range(s[i]):
            e[i] = e[i] @ e[i]
    return e


def label4(mask):
    """4-connected components of a boolean image by breadth-first search: labels 1..n in
    row-major order of each component's first pixel, 0 off the mask; and n."""
    lab = np.zeros(mask.shape, np.int64)
    h, w = mask.shape
    n = 0
    for y0, x0 in zip(*np.nonzero(mask)):
        if lab[y0, x0]:
            continue
        n += 1
        lab[y0, x0] = n
        todo = [(y0, x0)]
        while todo:
            y, x = todo.pop()
            for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                if 0 <= yy < h and 0 <= xx < w and mask[yy, xx] and not lab[yy, xx]:
                    lab[yy, xx] = n
                    todo.append((yy, xx))
    return lab, n


def ref_expm(v):
    a, _ = v
    e = expm64(a.astype(f64).reshape(-1, 4, 4))
    norm = np.abs(e).max(axis=(1, 2), keepdims=True)
    return {1: (lambda got, res: got.reshape(-1, 4, 4) / norm, e / norm)}


# ---- search --------------------------------------------------------------------------------------

def ref_bvh(v):
    box, nleaf, qx, qy, qz, _, _ = v
    leaf = box[int(nleaf):]
    q = np.stack([qx, qy, qz], 1)
    inside = ((q[:, None, :] >= leaf[None, :, :3]) & (q[:, None, :] <= leaf[None, :, 3:])).all(2)
    return {5: inside.sum(1).astype(np.int32), 6: (inside * np.arange(len(leaf))).sum(1).astype(np.int32)}


def count_queens(n, c, l, r, rem):
    if rem == 0:
        return 1
    full = (1 << n) - 1
    free, total = full & ~(c | l | r), 0
    while free:
        bit = free & -free
        free ^= bit
        total += count_queens(n, c | bit, ((l | bit) << 1) & full, (r | bit) >> 1, rem - 1)
    return total


def ref_queens(v):
    c, l, r, n, rem, _ = v
    return {5: np.array([count_queens(int(n), int(a), int(b), int(d), int(rem)) for a, b, d in zip(c, l, r)],
                        np.int32)}


# ---- checksums -----------------------------------------------------------------------------------

def ref_adler(v):
    data, _ = v
    return {1: np.array([zlib.adler32(row.tobytes()) for row in data], u32)}


# ---- ML operators -------------------------------------------------------------------------------

def dequant(w, s, bits):
    per = 32 // bits
    q = ((w.astype(U64)[..., None] >> (bits * np.arange(per, dtype=U64))) & U64((1 << bits) - 1)).astype(np.int64)
    q = q - 256 * (q >= 128) if bits == 8 else q - 8
    q = q.reshape(w.shape[0], -1).astype(f64)
    return q * np.repeat(s.astype(f64), KM.QG, axis=1)


def ref_gemv(bits):
    def ref(v):
        w, s, x, _ = v
        return {3: dequant(w, s, bits) @ x.astype(f64)}
    return ref


def ref_attn(v):
    q, k, vv, win, scl, _ = v
    t = q.shape[0]
    s = np.einsum("thd,jhd->htj", q.astype(f64) * float(scl), k.astype(f64))
    ti, tj = np.arange(t)[:, None], np.arange(t)[None, :]
    s = np.where((tj <= ti) & (tj > ti - int(win)), s, -np.inf)
    p = np.exp(s - s.max(2, keepdims=True))
    p /= p.sum(2, keepdims=True)
    return {5: np.einsum("htj,jhd->thd", p, vv.astype(f64))}


def ref_wavenet(v):
    x, w, dil, _ = v
    x, w, d = x.astype(f64), w.astype(f64), int(dil)
    xs = np.zeros_like(x)
    xs[:, :, d:] = x[:, :, :-d]
    return {3: np.einsum("oc,bct->bot", w[:, :, 1], x) + np.einsum("oc,bct->bot", w[:, :, 0], xs)}


def sh_basis(d):
    x, y, z = d
    xx, yy, zz = x * x, y * y, z * z
    return np.stack([np.full_like(x, 0.28209479177387814), -0.4886025119029199 * y, 0.4886025119029199 * z,
                     -0.4886025119029199 * x, 1.0925484305920792 * x * y, -1.0925484305920792 * y * z,
                     0.31539156525252005 * (2 * zz - xx - yy), -1.0925484305920792 * x * z,
                     0.5462742152960396 * (xx - yy), -0.5900435899266435 * y * (3 * xx - yy),
                     2.890611442640554 * x * y * z, -0.4570457994644658 * y * (4 * zz - xx - yy),
                     0.3731763325901154 * z * (2 * zz - 3 * xx - 3 * yy), -0.4570457994644658 * x * (4 * zz - xx - yy),
                     1.445305721320277 * z * (xx - yy), -0.5900435899266435 * x * (xx - 3 * yy)], 1)


def ref_sh(soa):
    def ref(v):
        mean, cx, cy, cz, sh, _ = v
        d = mean.astype(f64) - np.array([cx, cy, cz], f64)
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        coef = (sh.T if soa else sh).astype(f64).reshape(-1, 16, 3)
        return {5: np.maximum(np.einsum("nk,nkc->nc", sh_basis(d.T), coef) + 0.5, 0)}
    return ref


def ref_nms(v):
    b, thr, _ = v
    n = len(b)
    x1, y1, x2, y2 = (b[:, k] for k in range(4))
    ox = np.maximum(np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]), f32(0))
    oy = np.maximum(np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]), f32(0))
    inter = ox * oy
    area = (x2 - x1) * (y2 - y1)
    hit = (inter > f32(thr) * (area[:, None] + area[None] - inter)) & (np.arange(n)[None] > np.arange(n)[:, None])
    bits = hit.reshape(n, -1, KM.NMS_B).astype(U64) << np.arange(KM.NMS_B, dtype=U64)
    return {2: bits.sum(2).astype(u32)}


# ---- image analysis, decoding -------------------------------------------------------------------

def ref_ccl_prop(v):
    fg, lab, _, _ = v
    big = np.iinfo(np.int32).max
    pad = np.pad(np.where(fg != 0, lab, big), 1, constant_values=big)
    m = np.minimum.reduce([pad[1:-1, 1:-1], pad[:-2, 1:-1], pad[2:, 1:-1], pad[1:-1, :-2], pad[1:-1, 2:]])
    out = np.where(fg != 0, m, lab)
    return {2: out, 3: np.array([int((out != lab).any())], np.int32)}


def roots(got, res):
    p = got.astype(np.int64)
    fg = p >= 0
    while True:
        q = np.where(fg, p[np.where(fg, p, 0)], -1)
        if (q == p).all():
            return q
        p = q


def ref_ccl_uf(v):
    fg, _ = v
    lab, n = label4(fg != 0)
    flat = lab.ravel()
    idx = np.arange(flat.size)
    first = np.full(n + 1, flat.size)
    np.minimum.at(first, flat, idx)
    return {1: (roots, np.where(flat > 0, first[flat], -1))}


def ref_histeq(v):
    img, tab, _ = v
    lut = tab if tab.dtype == np.uint8 else C.equalize_lut(tab, len(img))
    return {2: lut[img]}


def ref_viterbi(v):
    tr, em, _, _, _ = v
    seqs, steps, s = em.shape
    m = em[:, 0].copy()
    back = np.zeros(em.shape, np.uint8)
    for t in range(1, steps):
        c = m[:, :, None] + tr[None]            # seq, predecessor, state (fp32, as the kernel)
        back[:, t] = c.argmax(1)
        m = c.max(1) + em[:, t]
    return {2: back, 3: m.max(1).astype(f64), 4: m.argmax(1).astype(np.int32)}


def ref_collatz(v):
    start, steps = v[0], v[-1]
    x = U64(start) + np.arange(len(steps), dtype=U64)
    c = np.zeros(len(x), np.int32)
    while (x != 1).any():
        live = x != 1
        c += live
        x = np.where(live, np.where(x & U64(1), U64(3) * x + U64(1), x >> U64(1)), x)
    return {len(v) - 1: c}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("spmv_coo", K.spmv_coo, C.spmv(64, 256, 3, True), ""), ref_coo, 1e-5),
    (L("spmv_bsr4", K.spmv_bsr4, C.spmv(64, 256, 3, False), ""), ref_bsr, 1e-5),
    (L("sptrsv_thread", K.sptrsv_level_thread, C.sptrsv(4096, 500, 24, False), ""), ref_sptrsv, 1e-5),
    (L("sptrsv_warp", K.sptrsv_level_warp, C.sptrsv(4096, 500, 24, True), ""), ref_sptrsv, 1e-5),
    (L("radix4", K.radix_scatter, C.radix(4096, 8, 4), ""), ref_radix, 0),
    (L("radix8", K.radix_scatter, C.radix(4096, 20, 8), ""), ref_radix, 0),
    (L("compact_half", K.compact_block_scan, C.compact(4096, 0.0), ""), ref_compact, 0),
    (L("compact_5pc", K.compact_block_scan, C.compact(4096, 1.645), ""), ref_compact, 0),
    (L("bitonic32", K.warp_bitonic32, C.keys(2048), ""), ref_bitonic, 0),
    (L("pack_ballot", K.pack_bits_ballot, C.bitmap(4096), ""), ref_pack, 0),
    (L("pack_atomic", K.pack_bits_atomic, C.bitmap(4096), ""), ref_pack, 0),
    (L("su3_hop", K.su3_hop, C.lattice(4), ""), ref_su3, 1e-5),
    (L("su3_hop_f64", K.su3_hop, C.lattice(4, np.float64), ""), ref_su3, 1e-12),
    (L("boris_random", K.boris_push, C.particles(3000, 32, 64, False), ""), ref_boris, 1e-4),
    (L("boris_sorted", K.boris_push, C.particles(3000, 32, 64, True), ""), ref_boris, 1e-4),
    (L("expm4", K.expm4_taylor, C.matrices(2000), ""), ref_expm, 1e-4),
    (L("bvh_random", K.bvh_count, C.bvh(1024, 700, False), ""), ref_bvh, 0),
    (L("bvh_sorted", K.bvh_count, C.bvh(1024, 700, True), ""), ref_bvh, 0),
    (L("queens8_d2", K.nqueens_dfs, C.queens(8, 2), ""), ref_queens, 0),
    (L("queens9_d3", K.nqueens_dfs, C.queens(9, 3), ""), ref_queens, 0),
    (L("adler_thread", K.adler32_thread, C.chunks(40, 3000, False), ""), ref_adler, 0),
    (L("adler_warp", K.adler32_warp, C.chunks(40, 3000, True), ""), ref_adler, 0),
    (L("gemv_w8", KM.gemv_w8, C.qgemv(64, 512, 8), ""), ref_gemv(8), 1e-4),
    (L("gemv_w4", KM.gemv_w4, C.qgemv(64, 512, 4), ""), ref_gemv(4), 1e-4),
    (L("attn_win16", KM.attn_window, C.attention(100, 2, 16), ""), ref_attn, 1e-4),
    (L("attn_win64", KM.attn_window, C.attention(100, 2, 64), ""), ref_attn, 1e-4),
    (L("wavenet_d1", KM.conv1d_dilated, C.wavenet(2, 8, 512, 1), ""), ref_wavenet, 1e-5),
    (L("wavenet_d37", KM.conv1d_dilated, C.wavenet(2, 8, 512, 37), ""), ref_wavenet, 1e-5),
    (L("sh_aos", KM.sh_color_aos, C.gaussians(3000, False), ""), ref_sh(False), 1e-5),
    (L("sh_soa", KM.sh_color_soa, C.gaussians(3000, True), ""), ref_sh(True), 1e-5),
    (L("nms", KM.nms_mask, C.boxes(256), ""), ref_nms, 1e-3),
    (L("ccl_prop", KM.ccl_propagate, C.ccl(64, 96, False), ""), ref_ccl_prop, 0),
    (L("ccl_uf", KM.ccl_uf_merge, C.ccl(64, 96, True), ""), ref_ccl_uf, 0),
    (L("histeq_global", KM.histeq_global, C.equalize(20_000, False), ""), ref_histeq, 1e-3),
    (L("histeq_shared", KM.histeq_shared, C.equalize(20_000, True, blocks=8), ""), ref_histeq, 1e-3),
    (L("viterbi", KM.viterbi, C.hmm(6, 20), ""), ref_viterbi, 1e-5),
    (L("collatz_static", KM.collatz_static, C.collatz(3000, 27, False), ""), ref_collatz, 0),
    (L("collatz_queue", KM.collatz_queue, C.collatz(3000, 27, True, blocks=4), ""), ref_collatz, 0),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
