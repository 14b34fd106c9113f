"""The fourteenth blind validation set's launches: kernels from HPC proxy applications (Nekbone's
spectral-element Laplacian, RSBench's multipole cross-section lookups, miniBUDE's docking
energy), Lonestar's Barnes-Hut force walk, the PRACE / CEA Hydro benchmark's exact Riemann
solver, the sparse-tensor benchmarks' COO MTTKRP, the CUDA samples' cell start and reorder of
particles and Horn-Schunck optical flow, SHA-3, HeCBench's 3 x 3 SVD and Vincenty geodesics,
ZFP's forward block transform, t-SNE's perplexity calibration and AxBench's triangle-triangle
test (kernels.py, kernels_apps.py) at one or two sizes each, with seeded inputs, and the
pairs users compare.

To be measured once on an H200 (measure.sh here) and never used to fit or tune a constant of
the timing model (see README.md). Sizes keep each launch at a few milliseconds at most on the
GPU, and the whole set cheap to simulate.
"""
from __future__ import annotations

import numpy as np

import simt as wp

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_apps as KA

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64
M = 1 << 20
K1 = 1024

VEC4_2367 = {2: wp.vec4, 3: wp.vec4, 6: wp.vec4, 7: wp.vec4}


# ---- host-side functions -----------------------------------------------------------------------

def gll_derivative(n):
    """The spectral differentiation matrix on n Gauss-Lobatto-Legendre points (degree n - 1):
    D_ij = L(x_i) / (L(x_j) (x_i - x_j)), D_00 = -n (n - 1) / 4 = -D_nn."""
    from numpy.polynomial import legendre as L
    deg = n - 1
    c = np.zeros(deg + 1)
    c[-1] = 1.0
    x = np.concatenate([[-1.0], np.sort(L.legroots(L.legder(c))), [1.0]])
    lx = L.legval(x, c)
    d = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                d[i, j] = lx[i] / (lx[j] * (x[i] - x[j]))
    d[0, 0] = -deg * (deg + 1) / 4.0
    d[-1, -1] = deg * (deg + 1) / 4.0
    return d


RS_COUNTS = [24, 5, 4, 4, 20, 14, 14, 10, 10, 8, 6, 6]          # nuclides a material
RS_PROB = [0.14, 0.05, 0.28, 0.13, 0.15, 0.06, 0.07, 0.05, 0.01, 0.02, 0.03, 0.01]


def rs_data(rng, n_nuc=68, n_windows=12):
    """RSBench-like multipole data: n_nuc nuclides, 50 to 100 poles each at energies uniform on
    (0, 1) (real part sqrt(E), widths 0.002 to 0.02 below the axis), complex residues; poles
    grouped by energy window (wstart, wend: global pole indices); a window's background fit
    (three coefficients a reaction); four hard-sphere radii a nuclide; 12 materials (fuel
    with 24 nuclides, the others 4 to 20)."""
    npoles = rng.integers(50, 101, n_nuc)
    rows, wstart, wend, lval = [], np.zeros((n_nuc, n_windows), i32), np.zeros((n_nuc, n_windows), i32), []
    off = 0
    for nuc in range(n_nuc):
        e = np.sort(rng.uniform(0.0, 1.0, npoles[nuc]))
        win = np.minimum((e * n_windows).astype(np.int64), n_windows - 1)
        cnt = np.bincount(win, minlength=n_windows)
        start = off + np.concatenate([[0], np.cumsum(cnt)[:-1]])
        wstart[nuc] = start
        wend[nuc] = start + cnt
        p = np.zeros((npoles[nuc], 8))
        p[:, 0] = np.sqrt(e)
        p[:, 1] = -rng.uniform(0.002, 0.02, npoles[nuc])
        p[:, 2:] = rng.normal(0, 1e-3, (npoles[nuc], 6))
        rows.append(p)
        lval.append(rng.integers(0, K.RS_NL, npoles[nuc]))
        off += npoles[nuc]
    fit = rng.uniform(0.1, 1.0, (n_nuc * n_windows, 9))
    k0rs = rng.uniform(0.0, 0.5, (n_nuc, K.RS_NL))
    nmat = len(RS_COUNTS)
    mats = np.zeros((nmat, max(RS_COUNTS)), i32)
    concs = np.zeros((nmat, max(RS_COUNTS)))
    for m, c in enumerate(RS_COUNTS):
        mats[m, :c] = rng.choice(n_nuc, c, replace=False)
        concs[m, :c] = rng.uniform(0.1, 1.0, c)
    n = np.arange(1, K.RS_NA + 1)
    an = 2.0 * np.sqrt(np.pi) / K.RS_TAU * np.exp(-(n * np.pi / K.RS_TAU) ** 2)
    return dict(num_nucs=np.array(RS_COUNTS, i32), mats=mats, concs=concs, n_windows=i32(n_windows),
                wstart=wstart, wend=wend, fit=fit, poles=np.concatenate(rows), lval=np.concatenate(lval).astype(i32),
                k0rs=k0rs, an=an)


BH_LEAF = 8             # Barnes-Hut: bodies a leaf at most
BH_DEPTH = 10           # Barnes-Hut: levels below the root at most (Morton codes of 10 bits a dimension)


def morton3(ix):
    code = np.zeros(len(ix), np.int64)
    for b in range(BH_DEPTH):
        for d in range(3):
            code |= ((ix[:, d] >> b) & 1) << (3 * b + (2 - d))
    return code


def bh_bodies(n, rng):
    """n bodies in 24 Gaussian clusters inside the unit cube, masses summing to about 1."""
    k = 24
    cent = rng.uniform(0.15, 0.85, (k, 3))
    sig = rng.uniform(0.02, 0.08, k)
    lab = rng.integers(0, k, n)
    pos = np.clip(cent[lab] + rng.normal(size=(n, 3)) * sig[lab, None], 0.0, 0.999999)
    return pos, rng.uniform(0.5, 1.5, n) / n


def bh_tree(pos, m, theta):
    """The octree of the unit cube over the bodies in Morton order, nodes depth first: (order,
    bodies [x y z m] in Morton order, node centres of mass [x y z m], (edge / theta)^2, the
    node after each subtree, each leaf's first body (-1 for internal nodes), its count)."""
    ix = np.floor(pos * (1 << BH_DEPTH)).astype(np.int64)
    code = morton3(ix)
    order = np.argsort(code, kind="stable")
    code = code[order]
    p = pos[order]
    mm = m[order]
    com, s2, nxt, leaf, cnt = [], [], [], [], []

    def build(lo, hi, level, prefix):
        me = len(com)
        mt = mm[lo:hi].sum()
        com.append(np.r_[(p[lo:hi] * mm[lo:hi, None]).sum(0) / mt, mt])
        s2.append((1.0 / (1 << level) / theta) ** 2)
        nxt.append(-1)
        leaf.append(-1)
        cnt.append(0)
        if hi - lo <= BH_LEAF or level == BH_DEPTH:
            leaf[me] = lo
            cnt[me] = hi - lo
        else:
            sh = 3 * (BH_DEPTH - 1 - level)
            sub = code[lo:hi] >> sh
            for c in range(8):
                a = lo + np.searchsorted(sub, prefix * 8 + c, "left")
                b = lo + np.searchsorted(sub, prefix * 8 + c, "right")
                if b > a:
                    build(a, b, level + 1, prefix * 8 + c)
        nxt[me] = len(com)
    build(0, len(p), 0, 0)
    body = np.concatenate([p, mm[:, None]], 1)
    return (order, body.astype(f32), np.array(com, f32), np.array(s2, f32), np.array(nxt, i32),
            np.array(leaf, i32), np.array(cnt, i32))


def riemann_states(n, smooth, rng):
    """Left and right states of n interfaces (density, velocity, pressure): independent random
    states (densities and pressures log-uniform on 0.1 to 10, velocities on -1.5 to 1.5; pairs
    that would open a vacuum drawn again), or the interfaces of a row of n + 1 cells of a
    smooth subsonic flow (relative jumps of about 1e-3)."""
    g = 1.4
    if smooth:
        x = np.arange(n + 1) / (n + 1)
        ph = rng.uniform(0, 2 * np.pi, 3)
        rho = 1.0 + 0.3 * np.sin(2 * np.pi * 48 * x + ph[0])
        u = 0.3 + 0.1 * np.sin(2 * np.pi * 32 * x + ph[1])
        p = 1.0 + 0.3 * np.sin(2 * np.pi * 40 * x + ph[2])
        return rho[:-1], u[:-1], p[:-1], rho[1:], u[1:], p[1:]
    st = [None] * 6
    for k in range(6):
        st[k] = np.zeros(n)
    todo = np.arange(n)
    while len(todo):
        m = len(todo)
        rl, rr = 10 ** rng.uniform(-1, 1, m), 10 ** rng.uniform(-1, 1, m)
        pl, pr = 10 ** rng.uniform(-1, 1, m), 10 ** rng.uniform(-1, 1, m)
        ul, ur = rng.uniform(-1.5, 1.5, m), rng.uniform(-1.5, 1.5, m)
        cl, cr = np.sqrt(g * pl / rl), np.sqrt(g * pr / rr)
        ok = 2 / (g - 1) * (cl + cr) > (ur - ul) + 0.5
        for k, a in enumerate((rl, ul, pl, rr, ur, pr)):
            st[k][todo[ok]] = a[ok]
        todo = todo[~ok]
    return tuple(st)


BUDE_TYPES = 8


def bude_system(nposes, nlig, nprot, rng):
    """A protein of nprot atoms in a blob of radius 6 about the origin, a ligand of nlig atoms
    within 3 of its centre, force-field parameters of BUDE_TYPES atom types (radius,
    hydrophobicity (+) or polarity (-), charge; hydrogen-bond donor 1, acceptor -1, neither 0),
    and nposes poses (three angles, a translation within 5 of the origin in each coordinate)."""
    def blob(n, r):
        v = rng.normal(size=(n, 3))
        return (v / np.linalg.norm(v, axis=1, keepdims=True) * r * rng.random((n, 1)) ** (1 / 3)).astype(f32)
    ff = np.stack([rng.uniform(1.2, 2.0, BUDE_TYPES), rng.uniform(-1, 1, BUDE_TYPES),
                   rng.uniform(-0.5, 0.5, BUDE_TYPES)], 1).astype(f32)
    ffhb = np.array([0, 1, -1, 0, 1, -1, 0, 0], i32)
    tr = np.concatenate([rng.uniform(0, 2 * np.pi, (nposes, 3)), rng.uniform(-5, 5, (nposes, 3))], 1).astype(f32)
    return (tr, blob(nlig, 3.0), rng.integers(0, BUDE_TYPES, nlig).astype(i32), blob(nprot, 6.0),
            rng.integers(0, BUDE_TYPES, nprot).astype(i32), ff, ffhb)


def cell_hash(pos, ncell):
    c = np.clip(np.floor(pos[:, :3] * ncell).astype(np.int64), 0, ncell - 1)
    return (c[:, 2] * ncell + c[:, 1]) * ncell + c[:, 0]


def flow_frames(n, rng):
    """The derivatives of two frames of a smooth textured image (the second moved by a smooth
    flow of up to a pixel), by central differences and their difference, and a previous
    iterate (u, v) of the flow."""
    yy, xx = np.mgrid[0:n, 0:n].astype(f32)
    ph = rng.uniform(0, 2 * np.pi, 4).astype(f32)
    k = f32(2 * np.pi / 64)

    def img(dx, dy):
        x, y = xx + dx, yy + dy
        return (np.sin(k * x + ph[0]) * np.cos(f32(0.7) * k * y + ph[1])
                + f32(0.5) * np.sin(f32(2.3) * k * (x + y) + ph[2]))
    fu = f32(0.8) * np.sin(xx / f32(n / 3) + ph[3])
    fv = f32(0.6) * np.cos(yy / f32(n / 5))
    i0 = img(0, 0)
    i1 = img(fu, fv)
    gy, gx = np.gradient(i0)
    u = (fu * f32(0.5) + rng.normal(0, 0.05, (n, n))).astype(f32)
    v = (fv * f32(0.5) + rng.normal(0, 0.05, (n, n))).astype(f32)
    return gx.astype(f32), gy.astype(f32), (i1 - i0).astype(f32), u, v


def keccak_tables():
    """SHA-3's round constants (from its LFSR, x^8 + x^6 + x^5 + x^4 + 1) and the rho rotation
    offsets [x + 5 y], as FIPS 202 defines them."""
    def rc_bit(t):
        if t % 255 == 0:
            return 1
        r = [1, 0, 0, 0, 0, 0, 0, 0]
        for _ in range(t % 255):
            r = [0] + r
            r[0] ^= r[8]
            r[4] ^= r[8]
            r[5] ^= r[8]
            r[6] ^= r[8]
            r = r[:8]
        return r[0]
    rc = np.zeros(KA.KC_ROUNDS, u64)
    for ir in range(KA.KC_ROUNDS):
        v = 0
        for j in range(7):
            v |= rc_bit(j + 7 * ir) << ((1 << j) - 1)
        rc[ir] = v
    rho = np.zeros(25, i32)
    x, y = 1, 0
    for t in range(24):
        rho[x + 5 * y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return rc, rho


def zfp_place():
    """Each of a block's 64 coefficients (16 k + 4 j + i) its place in order of total sequency
    i + j + k (natural order within a sequency)."""
    n = np.arange(64)
    order = np.argsort(n // 16 + (n // 4) % 4 + n % 4, kind="stable")
    place = np.empty(64, i32)
    place[order] = np.arange(64)
    return place


def zfp_volume(nz, ny, nx, rng):
    zz, yy, xx = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    f = (10 * np.sin(xx / 7.0) * np.cos(yy / 11.0) + 3 * np.sin(zz / 5.0 + 1.0)).astype(f32)
    return f + rng.normal(0, 0.01, f.shape).astype(f32)


def knn_distances(n, k, rng):
    """Squared distances to each point's k nearest neighbours, ascending, as from an 8-D data
    set of varying density: a point's scale log-normal, the j-th distance growing as
    (j + 1)^(1/4) with noise."""
    scale = np.exp(rng.normal(0, 0.7, (n, 1)))
    base = (np.arange(1, k + 1) ** 0.25)[None, :]
    d = scale * base * (1 + 0.15 * rng.random((n, k)))
    return np.sort(d, 1).astype(f32)


def triangle_pairs(n, near, rng):
    """n pairs of triangles (vertices 0.3 (standard deviation) about their centres): the
    second's centre a step of 0.1 (standard deviation) from the first's (about 60% of the
    pairs pass the first plane test, a quarter intersect), or 1.5 to 3 away in a random
    direction (about 88% rejected by the first plane test, none intersect)."""
    c1 = rng.uniform(-10, 10, (n, 3))
    if near:
        c2 = c1 + rng.normal(0, 0.1, (n, 3))
    else:
        d = rng.normal(size=(n, 3))
        c2 = c1 + d / np.linalg.norm(d, axis=1, keepdims=True) * rng.uniform(1.5, 3.0, (n, 1))
    t1 = c1[:, None, :] + rng.normal(0, 0.3, (n, 3, 3))
    t2 = c2[:, None, :] + rng.normal(0, 0.3, (n, 3, 3))
    return np.concatenate([t1.reshape(n, 9), t2.reshape(n, 9)], 1).astype(f32)


def geodesic_pairs(n, rng):
    """n pairs of points (radians) uniform on the sphere, latitudes within 89.4 degrees of the
    equator, separated by 0.01 to 150 degrees (drawn again otherwise: Vincenty's iteration
    converges away from antipodes)."""
    out = np.zeros((4, n))
    todo = np.arange(n)
    while len(todo):
        m = len(todo)
        la1 = np.arcsin(rng.uniform(-0.99995, 0.99995, m))
        la2 = np.arcsin(rng.uniform(-0.99995, 0.99995, m))
        lo1, lo2 = rng.uniform(-np.pi, np.pi, m), rng.uniform(-np.pi, np.pi, m)
        c = np.sin(la1) * np.sin(la2) + np.cos(la1) * np.cos(la2) * np.cos(lo2 - lo1)
        sep = np.degrees(np.arccos(np.clip(c, -1, 1)))
        ok = (sep > 0.01) & (sep < 150)
        for k, a in enumerate((la1, lo1, la2, lo2)):
            out[k, todo[ok]] = a[ok]
        todo = todo[~ok]
    return out


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def nekbone(nel, dtype):
    """nel elements of NX^3 points: u normal, the GLL derivative matrix, geometric factors
    (diagonal 1 to 2, off-diagonal within 0.2)."""
    def make(rng):
        u = rng.standard_normal(nel * K.NPT).astype(dtype)
        g = rng.uniform(-0.2, 0.2, (nel, 6, K.NPT))
        g[:, [0, 3, 5], :] = rng.uniform(1.0, 2.0, (nel, 3, K.NPT))
        return ([u, gll_derivative(K.NX).ravel().astype(dtype), g.ravel().astype(dtype),
                 np.zeros(nel * K.NPT, dtype)], nel * K.NPT, K.NPT)
    return make


def rsbench(nlook, doppler):
    """nlook lookups: energies uniform on 0.01 to 1, materials drawn with RS_PROB (fuel 14%);
    Doppler width factor 250 (nearly half of the poles far enough, |z| >= 6, for the asymptotic
    form of the Faddeeva function, the rest through the series)."""
    def make(rng):
        d = rs_data(rng)
        e = rng.uniform(0.01, 1.0, nlook)
        p = np.array(RS_PROB) / np.sum(RS_PROB)
        mat = rng.choice(len(RS_COUNTS), nlook, p=p).astype(i32)
        return ([e, mat, d["num_nucs"], d["mats"], d["concs"], d["n_windows"], d["wstart"], d["wend"],
                 d["fit"], d["poles"], d["lval"], d["k0rs"], d["an"], f64(250.0), np.zeros((nlook, 4))],
                nlook, 128)
    return make


def barnes_hut(n, shuffled, theta=0.7):
    """n clustered bodies, theta = 0.7, softening 1e-3; a thread per body in Morton order, or
    in a random order (each warp's bodies spread over the whole system)."""
    def make(rng):
        pos, m = bh_bodies(n, rng)
        order, body, com, s2, nxt, leaf, cnt = bh_tree(pos, m, theta)
        mine = body[:, :3].copy()
        if shuffled:
            mine = mine[rng.permutation(n)]
        return ([mine, com, s2, nxt, leaf, cnt, body, f32(1e-6), np.zeros((n, 3), f32)], n, 64)
    return make


def riemann(n, smooth):
    def make(rng):
        st = riemann_states(n, smooth, rng)
        return ([*st, f64(1.4), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n, i32)], n, 128)
    return make


def bude(nposes, nlig, nprot, per_thread):
    """bude_system()'s poses, a pose a thread or BUDE_P a thread; blocks of 64."""
    def make(rng):
        sysm = bude_system(nposes, nlig, nprot, rng)
        return [*sysm, np.zeros(nposes, f32)], nposes // per_thread, 64
    return make


def mttkrp(nnz, dim, skew):
    """A dim^3 tensor of nnz nonzeros (values and factor matrices uniform on 0 to 1, in random
    order): mode-1 indices uniform, or drawn with weights (rank + 1)^-skew (a few rows take
    most nonzeros); the other modes uniform."""
    def make(rng):
        if skew > 0:
            w = (np.arange(dim) + 1.0) ** -skew
            ii = rng.permutation(dim)[rng.choice(dim, nnz, p=w / w.sum())]
        else:
            ii = rng.integers(0, dim, nnz)
        jj = rng.integers(0, dim, nnz)
        kk = rng.integers(0, dim, nnz)
        val = rng.random(nnz, dtype=f32)
        b = rng.random((dim, K.MT_RANK), dtype=f32)
        c = rng.random((dim, K.MT_RANK), dtype=f32)
        return ([ii.astype(i32), jj.astype(i32), kk.astype(i32), val, b, c, np.zeros((dim, K.MT_RANK), f32)],
                nnz * K.MT_RANK, 256)
    return make


def cell_start(n, ncell, presorted):
    """n particles uniform in the unit box, hashed to ncell^3 cells and sorted by hash
    (stable): in a random original order, or in the order a previous step's sort left them
    (positions jittered by a tenth of a cell since, so the sort moves few)."""
    def make(rng):
        pos = np.ones((n, 4), f32)
        pos[:, :3] = rng.random((n, 3), dtype=f32)
        if presorted:
            pos = pos[np.argsort(cell_hash(pos, ncell), kind="stable")]
            pos[:, :3] = np.clip(pos[:, :3] + rng.uniform(-0.1, 0.1, (n, 3)).astype(f32) / ncell, 0, 0.999999)
        vel = np.zeros((n, 4), f32)
        vel[:, :3] = rng.normal(0, 1, (n, 3)).astype(f32)
        h = cell_hash(pos, ncell)
        order = np.argsort(h, kind="stable")
        return ([h[order].astype(i32), order.astype(i32), pos, vel, np.full(ncell ** 3, -1, i32),
                 np.zeros(ncell ** 3, i32), np.zeros((n, 4), f32), np.zeros((n, 4), f32)], n, K.CS_BLOCK)
    return make


def horn_schunck(n):
    def make(rng):
        gx, gy, gt, u, v = flow_frames(n, rng)
        return ([gx, gy, gt, u, v, f32(0.1), np.zeros((n, n), f32), np.zeros((n, n), f32)], (n, n),
                (KA.HS_BY, KA.HS_BX))
    return make


def keccak(nmsg, warp):
    """nmsg random messages of KC_WORDS 64-bit words; a thread a message (blocks of 128) or a
    warp a message (blocks of 128: four messages)."""
    def make(rng):
        msg = rng.integers(0, 1 << 63, (nmsg, KA.KC_WORDS), dtype=np.int64).astype(u64)
        msg ^= rng.integers(0, 2, (nmsg, KA.KC_WORDS), dtype=np.int64).astype(u64) << u64(63)
        rc, rho = keccak_tables()
        return [msg, rc, rho, np.zeros((nmsg, 4), u64)], nmsg * (32 if warp else 1), 128
    return make


def svd(n, soa):
    """n matrices with entries uniform on -1 to 1; matrix-major (9 contiguous floats a matrix,
    S 3) or component-major (the matrices' entry c adjacent)."""
    def make(rng):
        a = rng.uniform(-1, 1, (n, 9)).astype(f32)
        if soa:
            strides = (i32(1), i32(n), i32(1), i32(n))
            a = a.T.copy()
        else:
            strides = (i32(9), i32(1), i32(3), i32(1))
        return ([a.ravel(), *strides, np.zeros(9 * n, f32), np.zeros(3 * n, f32), np.zeros(9 * n, f32)], n, 128)
    return make


def geodesic(n, dtype):
    """geodesic_pairs(); convergence tolerance 1e-6 rad in fp32, 1e-12 in fp64."""
    def make(rng):
        la1, lo1, la2, lo2 = geodesic_pairs(n, rng).astype(dtype)
        tol = f32(1e-6) if dtype == f32 else f32(1e-12)
        return [la1, lo1, la2, lo2, tol, np.zeros(n, dtype)], n, 256
    return make


def zfp(nz, ny, nx, blocked):
    """zfp_volume() of nz x ny x nx, read in place (a block's rows nx floats apart) or from a
    copy already blocked (64 contiguous floats a block, in the same block order)."""
    def make(rng):
        vol = zfp_volume(nz, ny, nx, rng)
        nbx, nby, nbz = nx // 4, ny // 4, nz // 4
        nb = nbx * nby * nbz
        if blocked:
            data = vol.reshape(nbz, 4, nby, 4, nbx, 4).transpose(0, 2, 4, 1, 3, 5).reshape(-1).copy()
            geo = (i32(64), i32(64 * nbx), i32(64 * nbx * nby), i32(4), i32(16))
        else:
            data = vol.ravel()
            geo = (i32(4), i32(4 * nx), i32(4 * nx * ny), i32(nx), i32(nx * ny))
        return ([data, i32(nbx), i32(nby), *geo, zfp_place(), np.zeros((nb, 64), u32), np.zeros(nb, i32)],
                nb, KA.ZFP_BLOCK)
    return make


def perplexity(n, k, perp, warp):
    """knn_distances(n, k); target entropy log(perp), tolerance 1e-5; a thread a point (blocks
    of 128) or a warp a point (blocks of 256)."""
    def make(rng):
        d = knn_distances(n, k, rng)
        return ([d, f32(np.log(perp)), f32(1e-5), np.zeros(n, f32), np.zeros((n, k), f32)],
                n * 32 if warp else n, 256 if warp else 128)
    return make


def tritri(n, near):
    def make(rng):
        return [triangle_pairs(n, near, rng), np.zeros(n, i32)], n, 256
    return make


LAUNCHES: list[Launch] = [
    # Nekbone, RSBench, miniBUDE (HPC proxy applications)
    Launch("ax_f64@4096", K.nekbone_ax, nekbone(4096, f64), "fp64"),
    Launch("ax_f32@4096", K.nekbone_ax, nekbone(4096, f32), "shared"),
    Launch("ax_f64@1024", K.nekbone_ax, nekbone(1024, f64), "fp64"),
    Launch("rs_doppler@16K", K.rsbench_doppler, rsbench(16 * K1, True), "fp64"),
    Launch("rs_0k@16K", K.rsbench_0k, rsbench(16 * K1, False), "latency"),
    Launch("bude_pose1@16K", K.bude_pose1, bude(16 * K1, 12, 64, 1), "issue"),
    Launch("bude_poses4@16K", K.bude_poses4, bude(16 * K1, 12, 64, K.BUDE_P), "issue"),
    # Lonestar, Hydro, sparse tensors, CUDA samples' particles
    Launch("bh_sorted@8K", K.bh_force, barnes_hut(8 * K1, False), "latency"),
    Launch("bh_shuffled@8K", K.bh_force, barnes_hut(8 * K1, True), "l1"),
    Launch("riemann_random@128K", K.riemann_exact, riemann(128 * K1, False), "fp64"),
    Launch("riemann_smooth@128K", K.riemann_exact, riemann(128 * K1, True), "fp64"),
    Launch("mttkrp_uniform@512K", K.mttkrp_coo, mttkrp(512 * K1, 64 * K1, 0.0), "atomic"),
    Launch("mttkrp_skewed@512K", K.mttkrp_coo, mttkrp(512 * K1, 64 * K1, 1.1), "atomic"),
    Launch("cellstart_random@4M", K.cell_start_reorder, cell_start(4 * M, 128, False), "dram", VEC4_2367),
    Launch("cellstart_sorted@4M", K.cell_start_reorder, cell_start(4 * M, 128, True), "dram", VEC4_2367),
    # CUDA samples: Horn-Schunck
    Launch("hs_global@2048", KA.hs_global, horn_schunck(2048), "dram"),
    Launch("hs_tiled@2048", KA.hs_tiled, horn_schunck(2048), "dram"),
    Launch("hs_global@512", KA.hs_global, horn_schunck(512), "l2"),
    # SHA-3
    Launch("keccak_thread@32K", KA.keccak_thread, keccak(32 * K1, False), "issue"),
    Launch("keccak_warp@32K", KA.keccak_warp, keccak(32 * K1, True), "issue"),
    # HeCBench: svd3x3, geodesic
    Launch("svd_aos@256K", KA.svd3x3, svd(256 * K1, False), "issue"),
    Launch("svd_soa@256K", KA.svd3x3, svd(256 * K1, True), "issue"),
    Launch("vincenty_f32@256K", KA.vincenty, geodesic(256 * K1, f32), "sfu"),
    Launch("vincenty_f64@256K", KA.vincenty, geodesic(256 * K1, f64), "fp64"),
    # ZFP
    Launch("zfp_field@256x256x128", KA.zfp_fwd, zfp(128, 256, 256, False), "l1"),
    Launch("zfp_blocked@256x256x128", KA.zfp_fwd, zfp(128, 256, 256, True), "l1"),
    # t-SNE
    Launch("perp_thread@32K", KA.perplexity_thread, perplexity(32 * K1, 64, 20.0, False), "l1"),
    Launch("perp_warp@32K", KA.perplexity_warp, perplexity(32 * K1, 64, 20.0, True), "sfu"),
    # AxBench jmeint
    Launch("tritri_near@1M", KA.tri_tri, tritri(M, True), "issue"),
    Launch("tritri_far@1M", KA.tri_tri, tritri(M, False), "dram"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("fp64 / fp32, Nekbone ax 4096 elements", "ax_f64@4096", "ax_f32@4096"),
    ("4096 / 1024 elements, Nekbone ax fp64", "ax_f64@4096", "ax_f64@1024"),
    ("Doppler-broadened / 0 K, RSBench 16K lookups", "rs_doppler@16K", "rs_0k@16K"),
    ("a pose / four poses a thread, miniBUDE 16K poses", "bude_pose1@16K", "bude_poses4@16K"),
    ("shuffled / Morton-ordered bodies, Barnes-Hut force 8K bodies", "bh_shuffled@8K", "bh_sorted@8K"),
    ("random / smooth states, exact Riemann solver 128K interfaces", "riemann_random@128K", "riemann_smooth@128K"),
    ("skewed / uniform rows, COO MTTKRP 512K nonzeros", "mttkrp_skewed@512K", "mttkrp_uniform@512K"),
    ("random / presorted particles, cell start and reorder 4M", "cellstart_random@4M", "cellstart_sorted@4M"),
    ("global / tiled, Horn-Schunck 2048^2", "hs_global@2048", "hs_tiled@2048"),
    ("2048^2 / 512^2, Horn-Schunck from global memory", "hs_global@2048", "hs_global@512"),
    ("a thread / a warp a message, SHA3-256 32K messages", "keccak_thread@32K", "keccak_warp@32K"),
    ("matrix-major / component-major, SVD 3x3 256K matrices", "svd_aos@256K", "svd_soa@256K"),
    ("fp64 / fp32, Vincenty 256K pairs", "vincenty_f64@256K", "vincenty_f32@256K"),
    ("in place / pre-blocked, ZFP forward transform 256x256x128", "zfp_field@256x256x128", "zfp_blocked@256x256x128"),
    ("a thread / a warp a point, t-SNE perplexity 32K points", "perp_thread@32K", "perp_warp@32K"),
    ("near / far pairs, triangle-triangle test 1M pairs", "tritri_near@1M", "tritri_far@1M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
