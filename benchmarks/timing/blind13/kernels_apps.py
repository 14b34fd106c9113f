"""Kernels of the thirteenth blind validation set from proxy applications, graph benchmarks
and Rodinia's leukocyte tracking: TeaLeaf's conjugate-gradient operator with its dot product
(fp64; the product summed by a float atomic a thread, or by a block's shared-memory tree and
an atomic a block); CoMD's embedded-atom method (fp64, tabulated functions: the density and
embedding energy over a neighbour list in two layouts, then the forces) and its link-cell
binning (a slot claimed in an atom's cell by an integer atomic); miniMD's neighbour-list
build from those cells; miniFE's element diffusion operator (a hexahedron's 8 x 8 matrix by
2 x 2 x 2 Gauss quadrature); Luby's maximal independent set as Lonestar's MIS runs it (a
selection round and a removal round over a CSR graph); an iteration of the motion gradient
vector flow of Rodinia's leukocyte (eight arctangents a pixel). Written from the algorithms,
as kernels.py's; none is a translation of a suite's source.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x).
"""
import simt as wp

CG_BLOCK = 256          # tealeaf_cg_w_block: threads a block (blocks of 1 x 256)
EAM_K = 32              # CoMD EAM: neighbour slots an atom
BIN_CAP = 16            # CoMD link cells: atom slots a cell
NB_MAX = 48             # miniMD neighbour lists: slots an atom
MIS_UNDECIDED = 0
MIS_IN = 1
MIS_OUT = 2


# ---- TeaLeaf (Mantevo / UK Mini-App Consortium): the CG operator and p.w ----------------------------


@wp.func
def tealeaf_w(p: wp.array2d(dtype=wp.float64), kx: wp.array2d(dtype=wp.float64),
              ky: wp.array2d(dtype=wp.float64), i: int, j: int):
    """w = A p at interior cell (i, j) of a grid with a one-cell halo: TeaLeaf's five-point
    heat-conduction operator with face coefficients Kx (west faces) and Ky (south faces)."""
    diag = wp.float64(1.0) + kx[i, j + 1] + kx[i, j] + ky[i + 1, j] + ky[i, j]
    return (diag * p[i, j] - kx[i, j + 1] * p[i, j + 1] - kx[i, j] * p[i, j - 1]
            - ky[i + 1, j] * p[i + 1, j] - ky[i, j] * p[i - 1, j])


@wp.kernel
def tealeaf_cg_w_atomic(p: wp.array2d(dtype=wp.float64), kx: wp.array2d(dtype=wp.float64),
                        ky: wp.array2d(dtype=wp.float64), w: wp.array2d(dtype=wp.float64),
                        pw: wp.array(dtype=wp.float64)):
    """TeaLeaf's cg_calc_w: a thread per interior cell computes w = A p, stores it, and adds
    p w to the dot product by an fp64 atomic (every thread on one address)."""
    ii, jj = wp.tid()
    i = ii + 1
    j = jj + 1
    v = tealeaf_w(p, kx, ky, i, j)
    w[i, j] = v
    wp.atomic_add(pw, 0, p[i, j] * v)


@wp.kernel
def tealeaf_cg_w_block(p: wp.array2d(dtype=wp.float64), kx: wp.array2d(dtype=wp.float64),
                       ky: wp.array2d(dtype=wp.float64), w: wp.array2d(dtype=wp.float64),
                       pw: wp.array(dtype=wp.float64)):
    """The same with the dot product reduced a block first, as TeaLeaf's CUDA port does: the
    products into shared memory, a tree of halving strides with a barrier each, and one fp64
    atomic a block."""
    red = wp.shared.array(shape=(CG_BLOCK,), dtype=wp.float64)
    ii, jj = wp.tid()
    ty, tx = wp.thread_idx()
    i = ii + 1
    j = jj + 1
    v = tealeaf_w(p, kx, ky, i, j)
    w[i, j] = v
    red[tx] = p[i, j] * v
    wp.sync_threads()
    half = CG_BLOCK // 2
    while half > 0:
        if tx < half:
            red[tx] = red[tx] + red[tx + half]
        wp.sync_threads()
        half = half // 2
    if tx == 0:
        wp.atomic_add(pw, 0, red[0])


# ---- CoMD (ExMatEx / Mantevo): the embedded-atom method's density and embedding energy --------------


@wp.func
def table_lookup(tab: wp.array(dtype=wp.float64), x: wp.float64, inv_dx: wp.float64):
    """A tabulated function at x >= 0 by linear interpolation between samples dx apart
    (clamped at the table's end)."""
    u = x * inv_dx
    k = int(u)
    last = tab.shape[0] - 2
    if k > last:
        k = last
    f = u - wp.float64(k)
    return tab[k] + f * (tab[k + 1] - tab[k])


@wp.kernel
def eam_density(pos: wp.array2d(dtype=wp.float64), nbr: wp.array(dtype=int), sa: int, sk: int,
                rho_tab: wp.array(dtype=wp.float64), f_tab: wp.array(dtype=wp.float64),
                inv_dr: wp.float64, inv_drho: wp.float64, rc: wp.float64,
                rho: wp.array(dtype=wp.float64), fe: wp.array(dtype=wp.float64)):
    """CoMD's EAM force's first pass: a thread per atom sums the tabulated electron density
    rho(r) of its neighbours within the cut-off (EAM_K slots of a neighbour list, -1 where
    empty: the neighbour of slot k of atom a at a sa + k sk), then the embedding energy
    F(rho) from a second table; fp64 throughout (a square root a pair)."""
    a = wp.tid()
    xa = pos[a, 0]
    ya = pos[a, 1]
    za = pos[a, 2]
    rc2 = rc * rc
    s = wp.float64(0.0)
    for k in range(EAM_K):
        b = nbr[a * sa + k * sk]
        if b >= 0:
            dx = pos[b, 0] - xa
            dy = pos[b, 1] - ya
            dz = pos[b, 2] - za
            r2 = dx * dx + dy * dy + dz * dz
            if r2 < rc2:
                s += table_lookup(rho_tab, wp.sqrt(r2), inv_dr)
    rho[a] = s
    fe[a] = table_lookup(f_tab, s, inv_drho)


@wp.kernel
def eam_force(pos: wp.array2d(dtype=wp.float64), nbr: wp.array(dtype=int), sa: int, sk: int,
              drho_tab: wp.array(dtype=wp.float64), inv_dr: wp.float64, rc: wp.float64,
              dfe: wp.array(dtype=wp.float64), force: wp.array2d(dtype=wp.float64)):
    """CoMD's EAM force's second pass: a thread per atom a, over its neighbours b within the
    cut-off, the embedding part of the pair force, -(F'(rho_a) + F'(rho_b)) rho'(r) r_ab / r
    (F' of every atom from the first pass, rho' tabulated); the sum written once."""
    a = wp.tid()
    xa = pos[a, 0]
    ya = pos[a, 1]
    za = pos[a, 2]
    rc2 = rc * rc
    da = dfe[a]
    fx = wp.float64(0.0)
    fy = wp.float64(0.0)
    fz = wp.float64(0.0)
    for k in range(EAM_K):
        b = nbr[a * sa + k * sk]
        if b >= 0:
            dx = pos[b, 0] - xa
            dy = pos[b, 1] - ya
            dz = pos[b, 2] - za
            r2 = dx * dx + dy * dy + dz * dz
            if r2 < rc2:
                r = wp.sqrt(r2)
                c = (da + dfe[b]) * table_lookup(drho_tab, r, inv_dr) / r
                fx += c * dx
                fy += c * dy
                fz += c * dz
    force[a, 0] = fx
    force[a, 1] = fy
    force[a, 2] = fz


@wp.kernel
def bin_atoms(pos: wp.array2d(dtype=float), inv_cell: float, nc: int, count: wp.array(dtype=int),
              cells: wp.array(dtype=int)):
    """CoMD's link cells: a thread per atom finds its cell (nc^3 cells over the box, clamped),
    claims the next slot of the cell by an integer atomic add on its count, and writes its
    index there (BIN_CAP slots a cell; an atom beyond them is only counted)."""
    a = wp.tid()
    cx = wp.min(wp.max(int(wp.floor(pos[a, 0] * inv_cell)), 0), nc - 1)
    cy = wp.min(wp.max(int(wp.floor(pos[a, 1] * inv_cell)), 0), nc - 1)
    cz = wp.min(wp.max(int(wp.floor(pos[a, 2] * inv_cell)), 0), nc - 1)
    c = (cx * nc + cy) * nc + cz
    slot = wp.atomic_add(count, c, 1)
    if slot < BIN_CAP:
        cells[c * BIN_CAP + slot] = a


# ---- miniMD (Mantevo): the neighbour-list build ---------------------------------------------------------


@wp.kernel
def neigh_build(pos: wp.array2d(dtype=float), inv_cell: float, nc: int, count: wp.array(dtype=int),
                cells: wp.array(dtype=int), rc2: float, nbr: wp.array2d(dtype=int),
                nnbr: wp.array(dtype=int)):
    """miniMD's neighbour-list build over link cells (bin_atoms' layout): a thread per atom
    scans the 27 cells around its own (those inside the box), and appends every other atom
    within the cut-off to its own list (NB_MAX slots; its count kept whole)."""
    a = wp.tid()
    xa = pos[a, 0]
    ya = pos[a, 1]
    za = pos[a, 2]
    cx = wp.min(wp.max(int(wp.floor(xa * inv_cell)), 0), nc - 1)
    cy = wp.min(wp.max(int(wp.floor(ya * inv_cell)), 0), nc - 1)
    cz = wp.min(wp.max(int(wp.floor(za * inv_cell)), 0), nc - 1)
    k = int(0)
    for ox in range(-1, 2):
        qx = cx + ox
        if qx >= 0 and qx < nc:
            for oy in range(-1, 2):
                qy = cy + oy
                if qy >= 0 and qy < nc:
                    for oz in range(-1, 2):
                        qz = cz + oz
                        if qz >= 0 and qz < nc:
                            c = (qx * nc + qy) * nc + qz
                            m = wp.min(count[c], BIN_CAP)
                            for t in range(m):
                                b = cells[c * BIN_CAP + t]
                                if b != a:
                                    dx = pos[b, 0] - xa
                                    dy = pos[b, 1] - ya
                                    dz = pos[b, 2] - za
                                    if dx * dx + dy * dy + dz * dz < rc2:
                                        if k < NB_MAX:
                                            nbr[a, k] = b
                                        k += 1
    nnbr[a] = k


# ---- miniFE (Mantevo): the element diffusion operator ---------------------------------------------------


@wp.kernel
def minife_diffusion(xyz: wp.array2d(dtype=float), se: int, sk: int, ke: wp.array(dtype=float)):
    """miniFE's element operator: a thread per trilinear hexahedron (xyz[e] its eight nodes'
    coordinates, node n at the corner whose xi, eta, zeta signs are n's bits) integrates the
    diffusion matrix K_mn = sum over the 2 x 2 x 2 Gauss points of det J grad N_m . grad N_n:
    at each point the Jacobian from the shape functions' derivatives, its determinant and
    inverse, the eight physical gradients (local vectors), 64 products; entry (m, n) of
    element e written to e se + (8 m + n) sk."""
    e = wp.tid()
    px = wp.vector(length=8, dtype=float)
    py = wp.vector(length=8, dtype=float)
    pz = wp.vector(length=8, dtype=float)
    for n in range(8):
        px[n] = xyz[e, 3 * n]
        py[n] = xyz[e, 3 * n + 1]
        pz[n] = xyz[e, 3 * n + 2]
    k = wp.vector(length=64, dtype=float)
    for m in range(64):
        k[m] = 0.0
    gx = wp.vector(length=8, dtype=float)
    gy = wp.vector(length=8, dtype=float)
    gz = wp.vector(length=8, dtype=float)
    q = 0.577350269189626
    for gp in range(8):
        xi = q * float(2 * (gp & 1) - 1)
        et = q * float(2 * ((gp >> 1) & 1) - 1)
        ze = q * float(2 * ((gp >> 2) & 1) - 1)
        j00 = float(0.0)
        j01 = float(0.0)
        j02 = float(0.0)
        j10 = float(0.0)
        j11 = float(0.0)
        j12 = float(0.0)
        j20 = float(0.0)
        j21 = float(0.0)
        j22 = float(0.0)
        for n in range(8):
            sx = float(2 * (n & 1) - 1)
            sy = float(2 * ((n >> 1) & 1) - 1)
            sz = float(2 * ((n >> 2) & 1) - 1)
            dxi = 0.125 * sx * (1.0 + sy * et) * (1.0 + sz * ze)
            det_ = 0.125 * sy * (1.0 + sx * xi) * (1.0 + sz * ze)
            dze = 0.125 * sz * (1.0 + sx * xi) * (1.0 + sy * et)
            gx[n] = dxi
            gy[n] = det_
            gz[n] = dze
            j00 += dxi * px[n]
            j01 += dxi * py[n]
            j02 += dxi * pz[n]
            j10 += det_ * px[n]
            j11 += det_ * py[n]
            j12 += det_ * pz[n]
            j20 += dze * px[n]
            j21 += dze * py[n]
            j22 += dze * pz[n]
        c00 = j11 * j22 - j12 * j21
        c01 = j02 * j21 - j01 * j22
        c02 = j01 * j12 - j02 * j11
        c10 = j12 * j20 - j10 * j22
        c11 = j00 * j22 - j02 * j20
        c12 = j02 * j10 - j00 * j12
        c20 = j10 * j21 - j11 * j20
        c21 = j01 * j20 - j00 * j21
        c22 = j00 * j11 - j01 * j10
        det = j00 * c00 + j01 * c10 + j02 * c20
        inv = 1.0 / det
        for n in range(8):
            a = gx[n]
            b = gy[n]
            c = gz[n]
            gx[n] = (c00 * a + c01 * b + c02 * c) * inv
            gy[n] = (c10 * a + c11 * b + c12 * c) * inv
            gz[n] = (c20 * a + c21 * b + c22 * c) * inv
        for m in range(8):
            for n in range(8):
                k[8 * m + n] += det * (gx[m] * gx[n] + gy[m] * gy[n] + gz[m] * gz[n])
    for m in range(64):
        ke[e * se + m * sk] = k[m]


# ---- Rodinia: leukocyte, the MGVF iteration ------------------------------------------------------------


@wp.func
def heaviside(x: float):
    """The regularised Heaviside step of MGVF, 1/2 + atan(x / eps) / pi (eps = 1)."""
    return 0.5 + wp.atan(x) * 0.318309886183791


@wp.kernel
def mgvf_step(u: wp.array2d(dtype=float), im: wp.array2d(dtype=float), vx: float, vy: float,
              mu: float, lam: float, unew: wp.array2d(dtype=float)):
    """One iteration of the motion gradient vector flow (Ray and Acton) of Rodinia's leukocyte
    tracking: a thread per pixel takes the eight differences to its neighbours (clamped at the
    edges), each weighted by the regularised Heaviside (an arctangent) of its product with the
    cell's motion along that direction, and relaxes towards the image: u + mu sum - lam im^2
    (u - im)."""
    i, j = wp.tid()
    h = u.shape[0]
    w = u.shape[1]
    c = u[i, j]
    s = float(0.0)
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            if dy != 0 or dx != 0:
                y = wp.min(wp.max(i + dy, 0), h - 1)
                x = wp.min(wp.max(j + dx, 0), w - 1)
                d = u[y, x] - c
                s += heaviside((vx * float(dx) + vy * float(dy)) * d) * d
    g = im[i, j]
    unew[i, j] = c + mu * s - lam * g * g * (c - g)


# ---- Lonestar: maximal independent set (Luby's algorithm with random priorities) -----------------------


@wp.kernel
def mis_select(row: wp.array(dtype=int), col: wp.array(dtype=int), prio: wp.array(dtype=wp.uint32),
               state: wp.array(dtype=int), sel: wp.array(dtype=int)):
    """A selection round of Luby's MIS: a thread per vertex; an undecided vertex is selected
    when no undecided neighbour has a higher priority (ties to the higher index), the scan of
    its neighbours stopping at the first that beats it."""
    v = wp.tid()
    pick = int(0)
    if state[v] == MIS_UNDECIDED:
        pick = 1
        pv = prio[v]
        for e in range(row[v], row[v + 1]):
            u = col[e]
            if state[u] == MIS_UNDECIDED:
                pu = prio[u]
                if pu > pv or (pu == pv and u > v):
                    pick = 0
                    break
    sel[v] = pick


@wp.kernel
def mis_remove(row: wp.array(dtype=int), col: wp.array(dtype=int), sel: wp.array(dtype=int),
               state: wp.array(dtype=int)):
    """The removal round: a selected vertex joins the set; an undecided vertex with a selected
    neighbour leaves the graph (the scan stopping at the first); the others stay undecided."""
    v = wp.tid()
    if state[v] == MIS_UNDECIDED:
        if sel[v] != 0:
            state[v] = MIS_IN
        else:
            for e in range(row[v], row[v + 1]):
                if sel[col[e]] != 0:
                    state[v] = MIS_OUT
                    break
