"""Check every kernel of the thirteenth blind set against numpy, on the fast cpu engine at small
sizes (logic only: no timing model is run).

    PYTHONPATH=. python3 benchmarks/timing/blind13/check.py [names] [--device cuda]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

from timing.blind import checking  # noqa: E402
from timing.blind13 import cases as C  # noqa: E402
from timing.blind13 import kernels as K  # noqa: E402
from timing.blind13 import kernels_apps as KA  # noqa: E402

f32, f64, i32, u32 = np.float32, np.float64, np.int32, np.uint32

# A reference maps an argument's position to the wanted array, or to (transform, wanted): the
# transform is applied to the kernel's result first (got, all results) -> array, where the
# result is only defined up to something (the order of atomics).


# ---- PolyBench/GPU ----------------------------------------------------------------------------------

def ref_syr2k(v):
    a, b, alpha, beta, c = v
    a, b = a.astype(f64), b.astype(f64)
    return {4: float(alpha) * (a @ b.T + b @ a.T) + float(beta) * c}


def ref_trisolv(v):
    l, b, sr, si, x = v
    n = l.shape[0]
    nrhs = len(b) // n
    idx = np.arange(nrhs)[:, None] * int(sr) + np.arange(n)[None, :] * int(si)
    bb = b[idx].astype(f64)                               # [rhs, i]
    xs = np.linalg.solve(l.astype(f64), bb.T).T
    want = np.zeros(len(b))
    want[idx] = xs
    return {4: want}


# ---- Rodinia ----------------------------------------------------------------------------------------

def gicov_np(gx, gy):
    h, w = gx.shape
    dy, dx, ct, st = C.gicov_tables()
    ii, jj = np.mgrid[0:h, 0:w]
    best = np.zeros((h, w))
    for r in range(K.GC_NR):
        g = np.zeros((K.GC_NP, h, w))
        for k in range(K.GC_NP):
            y = np.clip(ii + dy[r, k], 0, h - 1)
            x = np.clip(jj + dx[r, k], 0, w - 1)
            g[k] = gx[y, x].astype(f64) * ct[k] + gy[y, x].astype(f64) * st[k]
        mean = g.mean(0)
        var = g.var(0, ddof=1)
        best = np.maximum(best, mean * mean / (var + 1e-6))
    return best


def ref_gicov_trig(v):
    return {2: gicov_np(v[0], v[1])}


def ref_gicov_table(v):
    return {6: gicov_np(v[0], v[1])}


# ---- SHOC -------------------------------------------------------------------------------------------

def devmem_np(data, nrep, nt, unit):
    mask = len(data) - 1
    g = np.arange(nt, dtype=np.int64)
    s = g * K.DM_UNROLL if unit else g.copy()
    acc = np.zeros(nt)
    for _ in range(nrep):
        for u in range(K.DM_UNROLL):
            acc += data[(s + u) & mask] if unit else data[(s + u * nt) & mask]
        s = (s + K.DM_UNROLL * nt) & mask
    return acc


def ref_devmem_coal(v):
    data, _, nrep, out = v
    return {3: devmem_np(data, int(nrep), len(out), False)}


def ref_devmem_unit(v):
    data, _, nrep, out = v
    return {3: devmem_np(data, int(nrep), len(out), True)}


def ref_devmem_shared(v):
    data, nrep, out = v
    nt = len(out)
    g = np.arange(nt)
    t = g % 256
    blk = g // 256
    acc = np.zeros(nt)
    s = t.copy()
    for _ in range(int(nrep)):
        for u in range(K.DM_UNROLL):
            acc += data[(blk * K.DM_LOCAL + ((s + u) & (K.DM_LOCAL - 1))) & (len(data) - 1)]
        s = (s + K.DM_UNROLL) & (K.DM_LOCAL - 1)
    return {2: acc}


def ref_minife(v):
    xyz, se, sk, ke = v
    ne = len(xyz)
    p = xyz.reshape(ne, 8, 3).astype(f64)
    sg = np.array([[2 * (n & 1) - 1, 2 * ((n >> 1) & 1) - 1, 2 * ((n >> 2) & 1) - 1] for n in range(8)], f64)
    q = 1 / np.sqrt(3.0)
    kk = np.zeros((ne, 8, 8))
    for gp in range(8):
        xi, et, ze = q * sg[gp]
        dn = np.stack([0.125 * sg[:, 0] * (1 + sg[:, 1] * et) * (1 + sg[:, 2] * ze),
                       0.125 * sg[:, 1] * (1 + sg[:, 0] * xi) * (1 + sg[:, 2] * ze),
                       0.125 * sg[:, 2] * (1 + sg[:, 0] * xi) * (1 + sg[:, 1] * et)], 0)   # [a, n]
        jac = np.einsum("an,enb->eab", dn, p)
        det = np.linalg.det(jac)
        grad = np.linalg.solve(jac, np.broadcast_to(dn, (ne, 3, 8)))                     # [e, b, n]
        kk += det[:, None, None] * np.einsum("ebm,ebn->emn", grad, grad)
    want = np.zeros(64 * ne)
    e = np.arange(ne)[:, None]
    want[e * int(se) + np.arange(64)[None, :] * int(sk)] = kk.reshape(ne, 64)
    return {3: want}


# ---- TeaLeaf, CoMD, miniMD, Lonestar, leukocyte's MGVF -----------------------------------------------------------------------

def tealeaf_np(p, kx, ky):
    c = (slice(1, -1), slice(1, -1))
    diag = 1.0 + kx[1:-1, 2:] + kx[c] + ky[2:, 1:-1] + ky[c]
    w = np.zeros_like(p)
    w[c] = (diag * p[c] - kx[1:-1, 2:] * p[1:-1, 2:] - kx[c] * p[1:-1, :-2]
            - ky[2:, 1:-1] * p[2:, 1:-1] - ky[c] * p[:-2, 1:-1])
    return w, np.array([np.sum(p[c] * w[c])])


def ref_tealeaf(v):
    p, kx, ky = v[:3]
    w, pw = tealeaf_np(p, kx, ky)
    return {3: w, 4: pw}


def ref_eam(v):
    pos, flat, sa, sk, rho_t, f_t, inv_dr, inv_drho, rc = v[:9]
    n = len(pos)

    def look(tab, x, inv):
        u = x * float(inv)
        k = np.minimum(u.astype(np.int64), len(tab) - 2)
        f = u - k
        return tab[k] + f * (tab[k + 1] - tab[k])
    rho = np.zeros(n)
    for k in range(KA.EAM_K):
        b = flat[np.arange(n) * int(sa) + k * int(sk)]
        ok = b >= 0
        d = pos[np.maximum(b, 0)] - pos
        r2 = np.sum(d * d, 1)
        ok &= r2 < float(rc) ** 2
        rho += np.where(ok, look(rho_t, np.sqrt(r2), inv_dr), 0.0)
    return {9: rho, 10: look(f_t, rho, inv_drho)}


def ref_eam_force(v):
    pos, flat, sa, sk, drho_t, inv_dr, rc, dfe, _ = v
    n = len(pos)
    nbr = flat.reshape(n, KA.EAM_K)
    d = pos[np.maximum(nbr, 0)] - pos[:, None, :]
    r = np.sqrt(np.sum(d * d, -1))
    ok = (nbr >= 0) & (r < float(rc))
    u = r * float(inv_dr)
    k = np.minimum(u.astype(np.int64), len(drho_t) - 2)
    dr = drho_t[k] + (u - k) * (drho_t[k + 1] - drho_t[k])
    c = np.where(ok, (dfe[:, None] + dfe[np.maximum(nbr, 0)]) * dr / np.where(ok, r, 1.0), 0.0)
    return {8: np.sum(c[:, :, None] * d, 1)}


def rows_sorted(got, res):
    return np.sort(got.reshape(-1, KA.BIN_CAP), 1)


def ref_bin(v):
    pos, inv_cell, nc, count, cells = v
    nc = int(nc)
    c = np.clip(np.floor(pos * float(inv_cell)).astype(np.int64), 0, nc - 1)
    cell = (c[:, 0] * nc + c[:, 1]) * nc + c[:, 2]
    cnt = np.bincount(cell, minlength=nc ** 3)
    assert cnt.max() <= KA.BIN_CAP
    want = np.full((nc ** 3, KA.BIN_CAP), -1, np.int64)
    order = np.argsort(cell, kind="stable")
    start = np.concatenate([[0], np.cumsum(cnt)])
    for q in range(nc ** 3):
        want[q, :cnt[q]] = order[start[q]:start[q + 1]]
    return {3: cnt.astype(i32), 4: (rows_sorted, np.sort(want, 1).astype(i32))}


def nbr_sorted(got, res):
    return np.sort(got, 1)


def ref_neigh(v):
    pos, _, _, _, _, rc2, nbr, _ = v
    n = len(pos)
    # the kernel's test in float32, as it computes it
    d32 = pos[None, :, :] - pos[:, None, :]
    r2 = np.sum(d32 * d32, -1, dtype=f32)
    close = (r2 < rc2) & ~np.eye(n, dtype=bool)
    cnt = close.sum(1)
    assert cnt.max() <= KA.NB_MAX
    want = np.full((n, KA.NB_MAX), -1, np.int64)
    for a in range(n):
        b = np.nonzero(close[a])[0]
        want[a, :len(b)] = b
    return {6: (nbr_sorted, np.sort(want, 1).astype(i32)), 7: cnt.astype(i32)}


def ref_mgvf(v):
    u, im, vx, vy, mu, lam, _ = v
    h, w = u.shape
    ii, jj = np.mgrid[0:h, 0:w]
    u64 = u.astype(f64)
    s = np.zeros((h, w))
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy or dx:
                d = u64[np.clip(ii + dy, 0, h - 1), np.clip(jj + dx, 0, w - 1)] - u64
                s += (0.5 + np.arctan((float(vx) * dx + float(vy) * dy) * d) / np.pi) * d
    g = im.astype(f64)
    return {6: u64 + float(mu) * s - float(lam) * g * g * (u64 - g)}


def ref_mis_select(v):
    row, col, prio, state, _ = v
    return {4: C.mis_select_np(row, col, prio, state)}


def ref_mis_remove(v):
    row, col, sel, state = v
    n = len(row) - 1
    src = np.repeat(np.arange(n), np.diff(row))
    hit = np.zeros(n, bool)
    hit[src[sel[col] != 0]] = True
    und = state == KA.MIS_UNDECIDED
    want = state.copy()
    want[und & (sel != 0)] = KA.MIS_IN
    want[und & (sel == 0) & hit] = KA.MIS_OUT
    return {3: want}


L = C.Launch

# (launch, reference, tolerance): relative error for floats, share of differing elements for
# integers
CHECKS = [
    (L("syr2k_naive", K.syr2k_naive, C.syr2k(64, False), ""), ref_syr2k, 1e-4),
    (L("syr2k_tiled", K.syr2k_tiled, C.syr2k(64, True), ""), ref_syr2k, 1e-4),
    (L("trisolv_rows", K.trisolv_rhs, C.trisolv(32, 512, True), ""), ref_trisolv, 1e-4),
    (L("trisolv_cols", K.trisolv_rhs, C.trisolv(32, 512, False), ""), ref_trisolv, 1e-4),
    (L("gicov_trig", K.gicov_trig, C.gicov(64, False), ""), ref_gicov_trig, 1e-3),
    (L("gicov_table", K.gicov_table, C.gicov(64, True), ""), ref_gicov_table, 1e-3),
    (L("devmem_coal", K.devmem_coalesced, C.devmem(1 << 14, 1024, 4, False), ""), ref_devmem_coal, 0),
    (L("devmem_unit", K.devmem_unit, C.devmem(1 << 14, 1024, 4, True), ""), ref_devmem_unit, 0),
    (L("devmem_shared", K.devmem_shared, C.devmem_local(1024, 4), ""), ref_devmem_shared, 0),
    (L("minife_elem", KA.minife_diffusion, C.hexes(6, False), ""), ref_minife, 1e-4),
    (L("minife_entry", KA.minife_diffusion, C.hexes(6, True), ""), ref_minife, 1e-4),
    (L("cg_w_atomic", KA.tealeaf_cg_w_atomic, C.tealeaf(256), ""), ref_tealeaf, 1e-10),
    # n a multiple of CG_BLOCK, as in the measured launches: at 64 a block's last 192 threads
    # do not run, and its reduction reads shared words nobody wrote (zeros on the cpu engine,
    # whatever the shared memory held on a GPU)
    (L("cg_w_block", KA.tealeaf_cg_w_block, C.tealeaf(256), ""), ref_tealeaf, 1e-10),
    (L("eam_atoms", KA.eam_density, C.eam(10, False), ""), ref_eam, 1e-10),
    (L("eam_slots", KA.eam_density, C.eam(10, True), ""), ref_eam, 1e-10),
    (L("eam_force", KA.eam_force, C.eam_forces(10), ""), ref_eam_force, 1e-10),
    (L("bin_sorted", KA.bin_atoms, C.binning(16, False), ""), ref_bin, 0),
    (L("bin_shuffled", KA.bin_atoms, C.binning(16, True), ""), ref_bin, 0),
    (L("neigh_sorted", KA.neigh_build, C.neighbours(12, False), ""), ref_neigh, 0),
    (L("neigh_shuffled", KA.neigh_build, C.neighbours(12, True), ""), ref_neigh, 0),
    (L("mgvf", KA.mgvf_step, C.mgvf(64), ""), ref_mgvf, 1e-5),
    (L("mis_select_uniform", KA.mis_select, C.mis(4096, 8, 0.0, False), ""), ref_mis_select, 0),
    (L("mis_select_skewed", KA.mis_select, C.mis(4096, 8, 0.8, False), ""), ref_mis_select, 0),
    (L("mis_remove", KA.mis_remove, C.mis(4096, 8, 0.0, True), ""), ref_mis_remove, 0),
]


def main() -> None:
    checking.run(CHECKS, checking.check, __doc__)


if __name__ == "__main__":
    main()
