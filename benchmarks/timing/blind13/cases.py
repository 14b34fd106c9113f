"""The thirteenth blind validation set's launches: kernels from PolyBench/GPU (SYR2K, TRISOLV),
Rodinia (leukocyte's GICOV score and MGVF iteration), SHOC (DeviceMemory's global and shared
read kernels) and proxy applications and graph benchmarks (Mantevo's miniFE element operator
and miniMD neighbour-list build, TeaLeaf's CG operator and dot product, CoMD's embedded-atom
density and forces and its link-cell binning, Lonestar's maximal independent set)
(kernels.py, kernels_apps.py) at one or two sizes each, with seeded inputs, and the pairs
users compare.

Measured once on an H200 (measure.sh here, at bc55c33) and never used to fit or
tune a constant of the timing model (see README.md). Sizes keep each launch at a few
milliseconds at most on the GPU, and the whole set cheap to simulate.
"""
from __future__ import annotations

import numpy as np

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_apps as KA

f32, f64, i32, u32 = np.float32, np.float64, np.int32, np.uint32
M = 1 << 20
K1 = 1024


# ---- host-side functions -----------------------------------------------------------------------

def gray_image(n, rng):
    """A float image in [0, 1]: bright discs (cells) on a darker, noisy background."""
    yy, xx = np.mgrid[0:n, 0:n].astype(f64)
    img = 0.2 + 0.05 * np.sin(xx / 37.0) * np.cos(yy / 23.0)
    for _ in range(max(4, n * n // 2048)):
        cy, cx = rng.uniform(0, n, 2)
        r = rng.uniform(4, 11)
        img += rng.uniform(0.3, 0.6) * (((yy - cy) ** 2 + (xx - cx) ** 2) < r * r)
    img += rng.normal(0, 0.03, (n, n))
    return np.clip(img, 0, 1)


def gradients(img):
    """Central differences (one-sided at the edges), as float32."""
    gy, gx = np.gradient(img)
    return gx.astype(f32), gy.astype(f32)


def gicov_tables():
    """Rounded sample offsets (dy, dx) [circle, point] and the angles' cosine and sine."""
    t = np.arange(K.GC_NP) * (2.0 * np.pi / K.GC_NP)
    r = (K.GC_R0 + np.arange(K.GC_NR))[:, None]
    dy = np.floor(r * np.sin(t)[None, :] + 0.5).astype(i32)
    dx = np.floor(r * np.cos(t)[None, :] + 0.5).astype(i32)
    return dy, dx, np.cos(t).astype(f32), np.sin(t).astype(f32)


def lattice_atoms(side, rng):
    """side^3 atoms on a cubic lattice of spacing 1 jittered by up to 0.15, and their lattice
    neighbours with |offset|^2 <= 4 (32 slots; -1 outside the box): [atom][slot]."""
    g = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)
    pos = g + rng.uniform(-0.15, 0.15, g.shape)
    offs = [(a, b, c) for a in range(-2, 3) for b in range(-2, 3) for c in range(-2, 3)
            if 0 < a * a + b * b + c * c <= 4]
    assert len(offs) == KA.EAM_K
    nbr = np.full((len(g), KA.EAM_K), -1, np.int64)
    for k, o in enumerate(offs):
        q = g + np.array(o)
        ok = np.all((q >= 0) & (q < side), 1)
        nbr[ok, k] = (q[ok, 0] * side + q[ok, 1]) * side + q[ok, 2]
    return pos, nbr.astype(i32)


def eam_tables():
    """Tabulated density rho(r) (a decaying exponential times a smooth cut-off at 2.0) on 0 to
    2.2, and embedding energy F(rho) = -sqrt(rho) + 0.1 rho^2 on 0 to 40."""
    nr, nrho = 512, 1024
    dr, drho = 2.2 / (nr - 1), 40.0 / (nrho - 1)
    r = np.arange(nr) * dr
    rho = np.exp(-2.0 * (r - 1.0)) * np.clip(1.0 - (r / 2.0) ** 4, 0, None) ** 2
    x = np.arange(nrho) * drho
    fe = -np.sqrt(x) + 0.1 * x * x
    return rho, fe, f64(1.0 / dr), f64(1.0 / drho)


def random_graph(n, avg_deg, skew, rng):
    """An undirected graph (CSR, both directions, no self-loops or duplicates) of about
    n avg_deg / 2 edges: endpoints uniform, or drawn with weights (i + 1)^-skew over a random
    labelling (a heavy-tailed degree distribution)."""
    m = n * avg_deg // 2
    if skew > 0:
        w = (np.arange(n) + 1.0) ** -skew
        w = w[rng.permutation(n)]
        p = w / w.sum()
        u, v = rng.choice(n, m, p=p), rng.choice(n, m, p=p)
    else:
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = u != v
    a = np.concatenate([u[keep], v[keep]]).astype(np.int64)
    b = np.concatenate([v[keep], u[keep]]).astype(np.int64)
    key = np.unique(a * n + b)
    src, dst = key // n, key % n
    row = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))]).astype(i32)
    return row, dst.astype(i32)


def mis_state(n, rng):
    """A middle round's states: 10% in the set, 30% out, the rest undecided."""
    x = rng.random(n)
    return np.where(x < 0.1, KA.MIS_IN, np.where(x < 0.4, KA.MIS_OUT, KA.MIS_UNDECIDED)).astype(i32)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def syr2k(n, tiled):
    """A and B n x n, normal; C normal."""
    def make(rng):
        a = rng.standard_normal((n, n)).astype(f32)
        b = rng.standard_normal((n, n)).astype(f32)
        c = rng.standard_normal((n, n)).astype(f32)
        return [a, b, f32(1.5), f32(1.2), c], (n, n), (K.SY_T, K.SY_T)
    return make


def trisolv(n, nrhs, contiguous):
    """L unit-ish lower triangular (diagonal 1 to 2, off-diagonal entries small), ``nrhs``
    normal right-hand sides; a thread's vector contiguous, or lanes' values adjacent."""
    def make(rng):
        l = np.tril(rng.uniform(-1, 1, (n, n)) / n, -1) + np.diag(rng.uniform(1, 2, n))
        b = rng.standard_normal(n * nrhs).astype(f32)
        sr, si = (n, 1) if contiguous else (1, nrhs)
        return [l.astype(f32), b, i32(sr), i32(si), np.zeros(n * nrhs, f32)], nrhs, 128
    return make


def gicov(n, table):
    def make(rng):
        gx, gy = gradients(gray_image(n, rng))
        out = np.zeros((n, n), f32)
        if table:
            return [gx, gy, *gicov_tables(), out], (n, n), (8, 32)
        return [gx, gy, out], (n, n), (8, 32)
    return make


def devmem(nwords, nthreads, nrep, unit):
    """A buffer of ``nwords`` (a power of two) small integers as floats (sums exact)."""
    def make(rng):
        data = rng.integers(0, 8, nwords).astype(f32)
        return [data, i32(nwords - 1), i32(nrep), np.zeros(nthreads, f32)], nthreads, 256
    return make


def tealeaf(n):
    """An (n + 2)^2 grid with its halo: p normal, face coefficients from a conductivity field
    varying over two orders of magnitude (harmonic means, times dt / h^2 = 0.2)."""
    def make(rng):
        cond = 10.0 ** (1.0 + np.sin(np.linspace(0, 5, n + 2))[:, None] * np.cos(np.linspace(0, 3, n + 2))[None, :])
        kx = np.zeros((n + 2, n + 2))
        ky = np.zeros((n + 2, n + 2))
        kx[:, 1:] = 0.2 * 2 * cond[:, 1:] * cond[:, :-1] / (cond[:, 1:] + cond[:, :-1])
        ky[1:, :] = 0.2 * 2 * cond[1:, :] * cond[:-1, :] / (cond[1:, :] + cond[:-1, :])
        p = rng.standard_normal((n + 2, n + 2))
        return [p, kx, ky, np.zeros((n + 2, n + 2)), np.zeros(1)], (n, n), (1, KA.CG_BLOCK)
    return make


def eam(side, slot_major):
    """side^3 atoms of a jittered cubic lattice, cut-off 1.9 (about 26 of the 32 slots
    inside); the neighbour list atom-major [atom][slot] or slot-major [slot][atom]."""
    def make(rng):
        pos, nbr = lattice_atoms(side, rng)
        n = len(pos)
        if slot_major:
            flat, sa, sk = nbr.T.ravel().copy(), 1, n
        else:
            flat, sa, sk = nbr.ravel().copy(), KA.EAM_K, 1
        rho_t, f_t, inv_dr, inv_drho = eam_tables()
        return [pos, flat, i32(sa), i32(sk), rho_t, f_t, inv_dr, inv_drho, f64(1.9),
                np.zeros(n), np.zeros(n)], n, 128
    return make


def eam_forces(side):
    """The force pass on eam()'s atoms (atom-major list), F'(rho) of every atom from the
    density pass computed here (derivative tables by central differences)."""
    def make(rng):
        pos, nbr = lattice_atoms(side, rng)
        n = len(pos)
        rho_t, f_t, inv_dr, inv_drho = eam_tables()
        drho_t = np.gradient(rho_t) * inv_dr
        df_t = np.gradient(f_t) * inv_drho
        d = pos[np.maximum(nbr, 0)] - pos[:, None, :]
        r = np.sqrt(np.sum(d * d, -1))
        ok = (nbr >= 0) & (r < 1.9)
        u = r * inv_dr
        k = np.minimum(u.astype(np.int64), len(rho_t) - 2)
        rho = np.sum(np.where(ok, rho_t[k] + (u - k) * (rho_t[k + 1] - rho_t[k]), 0), 1)
        u = rho * inv_drho
        k = np.minimum(u.astype(np.int64), len(df_t) - 2)
        dfe = df_t[k] + (u - k) * (df_t[k + 1] - df_t[k])
        return [pos, nbr.ravel().copy(), i32(KA.EAM_K), i32(1), drho_t, inv_dr, f64(1.9), dfe,
                np.zeros((n, 3))], n, 128
    return make


def binning(side, shuffled):
    """side^3 jittered lattice atoms (spacing 1, float32) into cells of edge 2 (8 atoms a cell
    on average), in lattice order or shuffled."""
    def make(rng):
        g = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)
        pos = (g + 0.5 + rng.uniform(-0.45, 0.45, g.shape)).astype(f32)
        if shuffled:
            pos = pos[rng.permutation(len(pos))]
        nc = side // 2
        return [pos, f32(0.5), i32(nc), np.zeros(nc ** 3, i32),
                np.full(nc ** 3 * KA.BIN_CAP, -1, i32)], len(pos), 256
    return make


def neighbours(side, shuffled):
    """binning()'s atoms already binned (each cell's atoms in increasing index), cut-off 1.9
    (about 28 neighbours an atom)."""
    def make(rng):
        pos, inv_cell, nc, count, cells = binning(side, shuffled)(rng)[0]
        c = np.clip(np.floor(pos * inv_cell).astype(np.int64), 0, int(nc) - 1)
        cell = (c[:, 0] * int(nc) + c[:, 1]) * int(nc) + c[:, 2]
        cnt = np.bincount(cell, minlength=len(count))
        order = np.argsort(cell, kind="stable")
        start = np.concatenate([[0], np.cumsum(cnt)])
        slot = np.arange(len(pos)) - start[cell[order]]
        keep = slot < KA.BIN_CAP
        cells[cell[order][keep] * KA.BIN_CAP + slot[keep]] = order[keep]
        n = len(pos)
        return [pos, inv_cell, nc, cnt.astype(i32), cells, f32(1.9 * 1.9),
                np.full((n, KA.NB_MAX), -1, i32), np.zeros(n, i32)], n, 128
    return make


def hexes(side, entry_major):
    """side^3 hexahedra of a unit-spaced grid, nodes jittered by up to 0.2 (J stays well
    conditioned), each element's 24 coordinates contiguous; the matrices element-major
    [e][64] or entry-major [64][e]."""
    def make(rng):
        g = np.stack(np.meshgrid(*[np.arange(side + 1)] * 3, indexing="ij"), -1).astype(f64)
        g += rng.uniform(-0.2, 0.2, g.shape)
        e = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)
        corners = [(n & 1, (n >> 1) & 1, (n >> 2) & 1) for n in range(8)]
        xyz = np.stack([g[e[:, 0] + cx, e[:, 1] + cy, e[:, 2] + cz] for cx, cy, cz in corners], 1)
        ne = len(e)
        se, sk = (1, ne) if entry_major else (64, 1)
        return [xyz.reshape(ne, 24).astype(f32), i32(se), i32(sk), np.zeros(64 * ne, f32)], ne, 128
    return make


def devmem_local(nthreads, nrep):
    """DeviceMemory's shared read: a buffer of small integers as floats, DM_LOCAL words a
    block of 256."""
    def make(rng):
        nwords = nthreads // 256 * K.DM_LOCAL
        data = rng.integers(0, 8, nwords).astype(f32)
        return [data, i32(nrep), np.zeros(nthreads, f32)], nthreads, 256
    return make


def mgvf(n):
    """u starting at the image (a cell's edge map: blurred discs), a motion direction, MGVF's
    weights."""
    def make(rng):
        im = gray_image(n, rng).astype(f32)
        u = (im + rng.normal(0, 0.05, (n, n))).astype(f32)
        return [u, im, f32(0.6), f32(-0.8), f32(0.1), f32(0.2), np.zeros((n, n), f32)], (n, n), (8, 32)
    return make


def mis(n, avg_deg, skew, remove):
    """A graph, random distinct priorities, a middle round's states; for the removal round the
    selection a round would make (computed here)."""
    def make(rng):
        row, col = random_graph(n, avg_deg, skew, rng)
        prio = rng.permutation(n).astype(u32)
        state = mis_state(n, rng)
        if remove:
            sel = mis_select_np(row, col, prio, state)
            return [row, col, sel, state], n, 256
        return [row, col, prio, state, np.zeros(n, i32)], n, 256
    return make


def mis_select_np(row, col, prio, state):
    """The selection round in numpy (also check.py's reference)."""
    n = len(row) - 1
    src = np.repeat(np.arange(n), np.diff(row))
    und = state == KA.MIS_UNDECIDED
    pu, pv = prio[col].astype(np.int64), prio[src].astype(np.int64)
    beats = und[col] & ((pu > pv) | ((pu == pv) & (col > src)))
    beaten = np.zeros(n, bool)
    beaten[src[beats]] = True
    return (und & ~beaten).astype(i32)


LAUNCHES: list[Launch] = [
    # PolyBench/GPU
    Launch("syr2k_naive@256", K.syr2k_naive, syr2k(256, False), "l1"),
    Launch("syr2k_tiled@256", K.syr2k_tiled, syr2k(256, True), "shared"),
    Launch("syr2k_naive@128", K.syr2k_naive, syr2k(128, False), "latency"),
    Launch("syr2k_tiled@128", K.syr2k_tiled, syr2k(128, True), "launch"),
    Launch("trisolv_rows@64x8K", K.trisolv_rhs, trisolv(64, 8 * K1, True), "l1"),
    Launch("trisolv_cols@64x8K", K.trisolv_rhs, trisolv(64, 8 * K1, False), "latency"),
    # Rodinia
    Launch("gicov_trig@512", K.gicov_trig, gicov(512, False), "issue"),
    Launch("gicov_table@512", K.gicov_table, gicov(512, True), "l1"),
    Launch("mgvf@512", KA.mgvf_step, mgvf(512), "issue"),
    Launch("mgvf@1024", KA.mgvf_step, mgvf(1024), "issue"),
    # SHOC
    Launch("devmem_coal@16M", K.devmem_coalesced, devmem(16 * M, 256 * K1, 4, False), "dram"),
    Launch("devmem_unit@16M", K.devmem_unit, devmem(16 * M, 256 * K1, 4, True), "dram"),
    Launch("devmem_coal@1M", K.devmem_coalesced, devmem(M, 64 * K1, 4, False), "l2"),
    Launch("devmem_shared@128K", K.devmem_shared, devmem_local(128 * K1, 16), "shared"),
    # Mantevo and the UK Mini-App Consortium: miniFE, TeaLeaf, CoMD, miniMD
    Launch("minife_elem@32", KA.minife_diffusion, hexes(32, False), "issue"),
    Launch("minife_entry@32", KA.minife_diffusion, hexes(32, True), "issue"),
    Launch("cg_w_atomic@1024", KA.tealeaf_cg_w_atomic, tealeaf(1024), "atomic"),
    Launch("cg_w_block@1024", KA.tealeaf_cg_w_block, tealeaf(1024), "dram"),
    Launch("cg_w_block@2048", KA.tealeaf_cg_w_block, tealeaf(2048), "dram"),
    Launch("eam_atoms@48", KA.eam_density, eam(48, False), "l1"),
    Launch("eam_slots@48", KA.eam_density, eam(48, True), "issue"),
    Launch("eam_force@48", KA.eam_force, eam_forces(48), "issue"),
    Launch("bin_sorted@64", KA.bin_atoms, binning(64, False), "atomic"),
    Launch("bin_shuffled@64", KA.bin_atoms, binning(64, True), "atomic"),
    Launch("neigh_sorted@48", KA.neigh_build, neighbours(48, False), "l1"),
    Launch("neigh_shuffled@48", KA.neigh_build, neighbours(48, True), "l2"),
    # Lonestar
    Launch("mis_select_uniform@256K", KA.mis_select, mis(256 * K1, 8, 0.0, False), "latency"),
    Launch("mis_select_skewed@256K", KA.mis_select, mis(256 * K1, 8, 0.8, False), "latency"),
    Launch("mis_remove_uniform@256K", KA.mis_remove, mis(256 * K1, 8, 0.0, True), "latency"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("naive / tiled, SYR2K 256^2", "syr2k_naive@256", "syr2k_tiled@256"),
    ("256^2 / 128^2, naive SYR2K", "syr2k_naive@256", "syr2k_naive@128"),
    ("naive / tiled, SYR2K 128^2", "syr2k_naive@128", "syr2k_tiled@128"),
    ("contiguous / interleaved vectors, TRISOLV 8K right-hand sides", "trisolv_rows@64x8K", "trisolv_cols@64x8K"),
    ("computed / tabled sample points, GICOV 512^2", "gicov_trig@512", "gicov_table@512"),
    ("unit-stride / coalesced reads, DeviceMemory 64 MB", "devmem_unit@16M", "devmem_coal@16M"),
    ("64 MB / 4 MB buffer, DeviceMemory coalesced reads", "devmem_coal@16M", "devmem_coal@1M"),
    ("element-major / entry-major matrices, miniFE diffusion operator 32^3", "minife_elem@32", "minife_entry@32"),
    ("atomic a thread / a block, TeaLeaf CG w 1024^2", "cg_w_atomic@1024", "cg_w_block@1024"),
    ("2048^2 / 1024^2, TeaLeaf CG w", "cg_w_block@2048", "cg_w_block@1024"),
    ("atom-major / slot-major neighbour list, CoMD EAM density", "eam_atoms@48", "eam_slots@48"),
    ("shuffled / lattice-ordered atoms, CoMD link-cell binning 64^3", "bin_shuffled@64", "bin_sorted@64"),
    ("shuffled / lattice-ordered atoms, miniMD neighbour-list build 48^3", "neigh_shuffled@48", "neigh_sorted@48"),
    ("1024^2 / 512^2, MGVF iteration", "mgvf@1024", "mgvf@512"),
    ("skewed / uniform degrees, MIS selection 256K vertices", "mis_select_skewed@256K", "mis_select_uniform@256K"),
    ("selection / removal round, MIS 256K vertices", "mis_select_uniform@256K", "mis_remove_uniform@256K"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
