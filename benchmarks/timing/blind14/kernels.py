"""Kernels of the fourteenth blind validation set from HPC proxy applications and physics
codes, written in simt from the algorithms: Nekbone's local spectral-element Laplacian (the
``ax`` operator: tensor-product derivatives of a degree-7 element through shared memory, two
barriers); RSBench's multipole cross-section lookup (fp64 complex arithmetic, with Doppler
broadening by the Faddeeva function, or at 0 K); the Barnes-Hut force walk of Lonestar's BH
(warp-coherent traversal of an octree, the warp voting on every opening); the exact Riemann
solver of the PRACE / CEA Hydro benchmark (Toro's Newton iteration for the star pressure and
the sampling of the wave pattern, fp64); miniBUDE's docking energy (a pose a thread, or four
poses a thread sharing each protein atom's loads); the COO MTTKRP of sparse-tensor
benchmarks (ParTI, SPLATT; FROSTT tensors) by float atomics; the cell-start and reorder
kernel of the CUDA samples' particles (a shared-memory neighbour comparison and a gather).
Each is written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/ to ../blind13/) or of the held-out set (../kernels.py, ../cases.py). The kernels
from vision, cryptography, geodesy, compression, machine learning and geometry are in
kernels_apps.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Where a kernel has variants of element type it is generic
(``typing.Any``) and each launch picks its dtype. Launch shapes and inputs are in
``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = 0xFFFFFFFF

NX = 8                  # Nekbone: points an element edge (polynomial degree 7)
NPT = NX * NX * NX      # Nekbone: points an element (threads a block)
RS_NL = 4               # RSBench: angular momenta l = 0..3 (phase-shift factors)
RS_TAU = 12.0           # RSBench: the Faddeeva series' period tau_m
RS_NA = 10              # RSBench: terms of the Faddeeva series
RM_ITER = 20            # Riemann: Newton iterations at most
RM_TOL = 1.0e-6         # Riemann: relative change of the star pressure that ends them
BUDE_P = 4              # miniBUDE: poses a thread in bude_poses4
CS_BLOCK = 256          # cell start: threads a block
MT_RANK = 16            # MTTKRP: rank (columns of the factor matrices)


# ---- Nekbone (CESAR / ECP proxy): the local Laplacian w = D^T G D u -----------------------------


@wp.kernel
def nekbone_ax(u: wp.array(dtype=Any), dmat: wp.array(dtype=Any), g: wp.array(dtype=Any),
               w: wp.array(dtype=Any)):
    """Nekbone's ax on a spectral element of NX^3 points, a block of NPT threads an element
    (point (k, j, i) at thread (k NX + j) NX + i): u and the NX x NX derivative matrix staged
    in shared memory; the three reference-space derivatives (an NX-term sum each along i, j,
    k); the symmetric geometric factors G (six a point, component-major within the element)
    applied; the three products staged; after a second barrier w = D^T applied along each
    direction and summed."""
    d0 = dmat[0]
    T = type(d0)
    us = wp.shared.array(shape=(NPT,), dtype=T)
    ds = wp.shared.array(shape=(NX * NX,), dtype=T)
    wr = wp.shared.array(shape=(NPT,), dtype=T)
    ws = wp.shared.array(shape=(NPT,), dtype=T)
    wt = wp.shared.array(shape=(NPT,), dtype=T)
    t = wp.thread_idx()
    e = wp.block_idx()
    i = t % NX
    j = (t // NX) % NX
    k = t // (NX * NX)
    base = e * NPT
    us[t] = u[base + t]
    if t < NX * NX:
        ds[t] = dmat[t]
    wp.sync_threads()
    ur = T(0.0)
    vs = T(0.0)
    vt = T(0.0)
    for m in range(NX):
        ur += ds[i * NX + m] * us[(k * NX + j) * NX + m]
        vs += ds[j * NX + m] * us[(k * NX + m) * NX + i]
        vt += ds[k * NX + m] * us[(m * NX + j) * NX + i]
    gb = e * 6 * NPT + t
    g0 = g[gb]
    g1 = g[gb + NPT]
    g2 = g[gb + 2 * NPT]
    g3 = g[gb + 3 * NPT]
    g4 = g[gb + 4 * NPT]
    g5 = g[gb + 5 * NPT]
    wr[t] = g0 * ur + g1 * vs + g2 * vt
    ws[t] = g1 * ur + g3 * vs + g4 * vt
    wt[t] = g2 * ur + g4 * vs + g5 * vt
    wp.sync_threads()
    acc = T(0.0)
    for m in range(NX):
        acc += (ds[m * NX + i] * wr[(k * NX + j) * NX + m] + ds[m * NX + j] * ws[(k * NX + m) * NX + i]
                + ds[m * NX + k] * wt[(m * NX + j) * NX + i])
    w[base + t] = acc


# ---- RSBench (ECP / ANL proxy): multipole cross-section lookups --------------------------------------


@wp.func
def cmul(a: wp.vec2d, b: wp.vec2d):
    return wp.vec2d(a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


@wp.func
def cdiv(a: wp.vec2d, b: wp.vec2d):
    den = b[0] * b[0] + b[1] * b[1]
    return wp.vec2d((a[0] * b[0] + a[1] * b[1]) / den, (a[1] * b[0] - a[0] * b[1]) / den)


@wp.func
def faddeeva(z: wp.vec2d, an: wp.array(dtype=wp.float64)):
    """w(z) = exp(-z^2) erfc(-iz) for Im z > 0: far from the origin (|z| >= 6) the two-pole
    Gauss-Hermite form i z (a / (z^2 - b) + c / (z^2 - d)); near it the exponential-series
    approximation of Abrarov and Quine (exp(-t^2/4) as a cosine series of period tau = 12,
    RS_NA terms, coefficients an[n - 1] = 2 sqrt(pi) / tau exp(-n^2 pi^2 / tau^2))."""
    zz = cmul(z, z)
    one = wp.float64(1.0)
    res = wp.vec2d(wp.float64(0.0), wp.float64(0.0))
    if zz[0] * zz[0] + zz[1] * zz[1] >= wp.float64(1296.0):
        p1 = cdiv(wp.vec2d(wp.float64(0.512424224754768), wp.float64(0.0)),
                  wp.vec2d(zz[0] - wp.float64(0.275255128608411), zz[1]))
        p2 = cdiv(wp.vec2d(wp.float64(0.0517653587929878), wp.float64(0.0)),
                  wp.vec2d(zz[0] - wp.float64(2.72474487139159), zz[1]))
        s = p1 + p2
        iz = wp.vec2d(-z[1], z[0])
        res = cmul(iz, s)
    else:
        tau = wp.float64(RS_TAU)
        tz = z * tau
        # exp(i tau z) = exp(-tau y) (cos tau x + i sin tau x)
        mag = wp.exp(-tz[1])
        ex = wp.vec2d(mag * wp.cos(tz[0]), mag * wp.sin(tz[0]))
        # i (1 - e) / (tau z)
        q = cdiv(wp.vec2d(one - ex[0], -ex[1]), tz)
        res = wp.vec2d(-q[1], q[0])
        tz2 = cmul(tz, tz)
        s = wp.vec2d(wp.float64(0.0), wp.float64(0.0))
        sgn = -one
        for n in range(1, RS_NA + 1):
            nn = wp.float64(n * n) * wp.float64(9.86960440108936)
            num = wp.vec2d(sgn * ex[0] - one, sgn * ex[1])
            s += an[n - 1] * cdiv(num, wp.vec2d(nn - tz2[0], -tz2[1]))
            sgn = -sgn
        # + i tau^2 z / sqrt(pi) * s
        f = cmul(tz * (tau / wp.float64(1.77245385090552)), s)
        res += wp.vec2d(-f[1], f[0])
    return res


@wp.func
def phase_factor(k0: wp.float64, l: int, sqrt_e: wp.float64):
    """The hard-sphere phase shift of angular momentum l at sqrt(E), exp(-2 i phi_l)."""
    phi = k0 * sqrt_e
    if l == 1:
        phi = phi - wp.atan(phi)
    elif l == 2:
        phi = phi - wp.atan(wp.float64(3.0) * phi / (wp.float64(3.0) - phi * phi))
    elif l == 3:
        phi = phi - wp.atan(phi * (wp.float64(15.0) - phi * phi) / (wp.float64(15.0) - wp.float64(6.0) * phi * phi))
    two = wp.float64(2.0) * phi
    return wp.vec2d(wp.cos(two), -wp.sin(two))


@wp.func
def rs_micro(nuc: int, e: wp.float64, doppler: int, n_windows: int, wstart: wp.array2d(dtype=int),
             wend: wp.array2d(dtype=int), fit: wp.array2d(dtype=wp.float64),
             poles: wp.array2d(dtype=wp.float64), lval: wp.array(dtype=int),
             k0rs: wp.array2d(dtype=wp.float64), an: wp.array(dtype=wp.float64), dopp: wp.float64):
    """One nuclide's total, absorption and fission cross sections at energy e (0 < e < 1): the
    window's background fit (c0 + c1 sqrt(E) + c2 E a reaction), then every pole of the window,
    each a complex pole p and residues (total, absorption, fission): with Doppler broadening
    Re(r w(z)) sqrt(pi) dopp with z = (sqrt(E) - p) dopp (the total's residue turned by its l's
    phase factor), at 0 K Re(r (-i) / (p - sqrt(E))) / E."""
    sq = wp.sqrt(e)
    win = wp.min(int(e * wp.float64(n_windows)), n_windows - 1)
    row = nuc * n_windows + win
    sig_t = fit[row, 0] + fit[row, 1] * sq + fit[row, 2] * e
    sig_a = fit[row, 3] + fit[row, 4] * sq + fit[row, 5] * e
    sig_f = fit[row, 6] + fit[row, 7] * sq + fit[row, 8] * e
    f0 = phase_factor(k0rs[nuc, 0], 0, sq)
    f1 = phase_factor(k0rs[nuc, 1], 1, sq)
    f2 = phase_factor(k0rs[nuc, 2], 2, sq)
    f3 = phase_factor(k0rs[nuc, 3], 3, sq)
    for p in range(wstart[nuc, win], wend[nuc, win]):
        pole = wp.vec2d(poles[p, 0], poles[p, 1])
        rt = wp.vec2d(poles[p, 2], poles[p, 3])
        ra = wp.vec2d(poles[p, 4], poles[p, 5])
        rf = wp.vec2d(poles[p, 6], poles[p, 7])
        l = lval[p]
        fac = f0
        if l == 1:
            fac = f1
        elif l == 2:
            fac = f2
        elif l == 3:
            fac = f3
        c = wp.vec2d(wp.float64(0.0), wp.float64(0.0))
        if doppler != 0:
            z = (wp.vec2d(sq, wp.float64(0.0)) - pole) * dopp
            c = faddeeva(z, an) * (dopp * wp.float64(1.77245385090552))
        else:
            q = cdiv(wp.vec2d(wp.float64(0.0), wp.float64(-1.0)), pole - wp.vec2d(sq, wp.float64(0.0)))
            c = q / e
        sig_t += cmul(cmul(rt, fac), c)[0]
        sig_a += cmul(ra, c)[0]
        sig_f += cmul(rf, c)[0]
    return wp.vec3d(sig_t, sig_a, sig_f)


@wp.func
def rs_macro(i: int, doppler: int, energy: wp.array(dtype=wp.float64), mat: wp.array(dtype=int),
             num_nucs: wp.array(dtype=int), mats: wp.array2d(dtype=int), concs: wp.array2d(dtype=wp.float64),
             n_windows: int, wstart: wp.array2d(dtype=int), wend: wp.array2d(dtype=int),
             fit: wp.array2d(dtype=wp.float64), poles: wp.array2d(dtype=wp.float64), lval: wp.array(dtype=int),
             k0rs: wp.array2d(dtype=wp.float64), an: wp.array(dtype=wp.float64), dopp: wp.float64,
             out: wp.array2d(dtype=wp.float64)):
    e = energy[i]
    m = mat[i]
    tot = wp.vec3d(wp.float64(0.0), wp.float64(0.0), wp.float64(0.0))
    for k in range(num_nucs[m]):
        nuc = mats[m, k]
        tot += concs[m, k] * rs_micro(nuc, e, doppler, n_windows, wstart, wend, fit, poles, lval, k0rs, an, dopp)
    out[i, 0] = tot[0]
    out[i, 1] = tot[1]
    out[i, 2] = tot[2]
    out[i, 3] = tot[0] - tot[1]


@wp.kernel
def rsbench_doppler(energy: wp.array(dtype=wp.float64), mat: wp.array(dtype=int), num_nucs: wp.array(dtype=int),
                    mats: wp.array2d(dtype=int), concs: wp.array2d(dtype=wp.float64), n_windows: int,
                    wstart: wp.array2d(dtype=int), wend: wp.array2d(dtype=int), fit: wp.array2d(dtype=wp.float64),
                    poles: wp.array2d(dtype=wp.float64), lval: wp.array(dtype=int),
                    k0rs: wp.array2d(dtype=wp.float64), an: wp.array(dtype=wp.float64), dopp: wp.float64,
                    out: wp.array2d(dtype=wp.float64)):
    """RSBench's event-based lookup with Doppler broadening: a thread per (energy, material)
    sums, over the material's nuclides (4 to 24), the concentration times the nuclide's
    multipole cross sections (rs_micro: the poles of the energy's window, each through the
    Faddeeva function); total, absorption, fission and their elastic difference stored."""
    i = wp.tid()
    rs_macro(i, 1, energy, mat, num_nucs, mats, concs, n_windows, wstart, wend, fit, poles, lval, k0rs, an,
             dopp, out)


@wp.kernel
def rsbench_0k(energy: wp.array(dtype=wp.float64), mat: wp.array(dtype=int), num_nucs: wp.array(dtype=int),
               mats: wp.array2d(dtype=int), concs: wp.array2d(dtype=wp.float64), n_windows: int,
               wstart: wp.array2d(dtype=int), wend: wp.array2d(dtype=int), fit: wp.array2d(dtype=wp.float64),
               poles: wp.array2d(dtype=wp.float64), lval: wp.array(dtype=int),
               k0rs: wp.array2d(dtype=wp.float64), an: wp.array(dtype=wp.float64), dopp: wp.float64,
               out: wp.array2d(dtype=wp.float64)):
    """The same lookup at 0 K (RSBench without Doppler broadening): each pole a complex
    division instead of the Faddeeva function."""
    i = wp.tid()
    rs_macro(i, 0, energy, mat, num_nucs, mats, concs, n_windows, wstart, wend, fit, poles, lval, k0rs, an,
             dopp, out)


# ---- Lonestar: Barnes-Hut, the force computation --------------------------------------------------


@wp.kernel
def bh_force(mine: wp.array2d(dtype=float), node_c: wp.array2d(dtype=float), node_s2: wp.array(dtype=float),
             node_next: wp.array(dtype=int), node_leaf: wp.array(dtype=int), node_cnt: wp.array(dtype=int),
             body: wp.array2d(dtype=float), eps2: float, acc: wp.array2d(dtype=float)):
    """Lonestar BH's force kernel: a thread per body (mine: its position), the octree in
    depth-first order (node_next: the node after a node's subtree; node_c: centre of mass and
    mass; node_s2: (edge / theta)^2; leaves hold node_cnt bodies of the Morton-ordered body
    array from node_leaf, internal nodes -1). The warp walks the tree together: a leaf's
    bodies are summed directly; an internal node far enough from every lane (all_sync) is
    taken whole, else the warp descends into it. Softened gravity, G = 1."""
    t = wp.tid()
    px = mine[t, 0]
    py = mine[t, 1]
    pz = mine[t, 2]
    ax = float(0.0)
    ay = float(0.0)
    az = float(0.0)
    nn = node_next.shape[0]
    i = int(0)
    while i < nn:
        first = node_leaf[i]
        if first >= 0:
            for b in range(first, first + node_cnt[i]):
                dx = body[b, 0] - px
                dy = body[b, 1] - py
                dz = body[b, 2] - pz
                r2 = dx * dx + dy * dy + dz * dz + eps2
                inv = 1.0 / wp.sqrt(r2)
                s = body[b, 3] * inv * inv * inv
                ax += s * dx
                ay += s * dy
                az += s * dz
            i = node_next[i]
        else:
            dx = node_c[i, 0] - px
            dy = node_c[i, 1] - py
            dz = node_c[i, 2] - pz
            d2 = dx * dx + dy * dy + dz * dz
            if wp.all_sync(FULL, d2 > node_s2[i]):
                r2 = d2 + eps2
                inv = 1.0 / wp.sqrt(r2)
                s = node_c[i, 3] * inv * inv * inv
                ax += s * dx
                ay += s * dy
                az += s * dz
                i = node_next[i]
            else:
                i = i + 1
    acc[t, 0] = ax
    acc[t, 1] = ay
    acc[t, 2] = az


# ---- PRACE / CEA Hydro: the exact Riemann solver (Toro) ---------------------------------------------


@wp.func
def rm_pressure_fn(p: wp.float64, rho: wp.float64, pk: wp.float64, ck: wp.float64, gam: wp.float64):
    """Toro's pressure function f_K(p) and its derivative: a rarefaction below p_K, a shock
    above."""
    one = wp.float64(1.0)
    f = wp.float64(0.0)
    df = wp.float64(0.0)
    if p <= pk:
        prat = p / pk
        f = wp.float64(2.0) * ck / (gam - one) * (wp.pow(prat, (gam - one) / (wp.float64(2.0) * gam)) - one)
        df = wp.pow(prat, -(gam + one) / (wp.float64(2.0) * gam)) / (rho * ck)
    else:
        a = wp.float64(2.0) / ((gam + one) * rho)
        b = (gam - one) / (gam + one) * pk
        q = wp.sqrt(a / (b + p))
        f = (p - pk) * q
        df = (one - wp.float64(0.5) * (p - pk) / (b + p)) * q
    return wp.vec2d(f, df)


@wp.kernel
def riemann_exact(rl: wp.array(dtype=wp.float64), ul: wp.array(dtype=wp.float64), pl: wp.array(dtype=wp.float64),
                  rr: wp.array(dtype=wp.float64), ur: wp.array(dtype=wp.float64), pr: wp.array(dtype=wp.float64),
                  gam: wp.float64, rho_o: wp.array(dtype=wp.float64), u_o: wp.array(dtype=wp.float64),
                  p_o: wp.array(dtype=wp.float64), it_o: wp.array(dtype=int)):
    """Hydro's Godunov flux state: a thread per interface solves the exact Riemann problem of
    its left and right states (density, velocity, pressure; ideal gas): the star pressure by
    Newton's method from the primitive-variable guess (at most RM_ITER iterations, until the
    relative change is below RM_TOL), the star velocity, then the solution sampled at x / t = 0
    (left or right of the contact; shock or rarefaction, inside the fan or not)."""
    i = wp.tid()
    one = wp.float64(1.0)
    half = wp.float64(0.5)
    dl = rl[i]
    vl = ul[i]
    ql = pl[i]
    dr = rr[i]
    vr = ur[i]
    qr = pr[i]
    cl = wp.sqrt(gam * ql / dl)
    cr = wp.sqrt(gam * qr / dr)
    tiny = wp.float64(1.0e-10)
    p = wp.max(tiny, half * (ql + qr) - wp.float64(0.125) * (vr - vl) * (dl + dr) * (cl + cr))
    du = vr - vl
    fl = wp.float64(0.0)
    fr = wp.float64(0.0)
    it = int(0)
    while it < RM_ITER:
        a = rm_pressure_fn(p, dl, ql, cl, gam)
        b = rm_pressure_fn(p, dr, qr, cr, gam)
        pn = wp.max(tiny, p - (a[0] + b[0] + du) / (a[1] + b[1]))
        change = wp.float64(2.0) * wp.abs(pn - p) / (pn + p)
        p = pn
        it += 1
        if change < wp.float64(RM_TOL):
            break
    fl = rm_pressure_fn(p, dl, ql, cl, gam)[0]
    fr = rm_pressure_fn(p, dr, qr, cr, gam)[0]
    us = half * (vl + vr) + half * (fr - fl)
    g1 = (gam - one) / (wp.float64(2.0) * gam)
    g2 = (gam + one) / (wp.float64(2.0) * gam)
    g6 = (gam - one) / (gam + one)
    g5 = wp.float64(2.0) / (gam + one)
    g7 = half * (gam - one)
    d = dl
    v = vl
    q = ql
    if us >= wp.float64(0.0):
        # left of the contact
        if p <= ql:
            # left rarefaction
            if vl - cl < wp.float64(0.0):
                cml = cl * wp.pow(p / ql, g1)
                if us - cml > wp.float64(0.0):
                    # inside the fan (its head left of x / t = 0, its tail right)
                    c = g5 * (cl + g7 * vl)
                    d = dl * wp.pow(c / cl, wp.float64(2.0) / (gam - one))
                    v = c
                    q = ql * wp.pow(c / cl, wp.float64(2.0) * gam / (gam - one))
                else:
                    d = dl * wp.pow(p / ql, one / gam)
                    v = us
                    q = p
        else:
            # left shock
            pml = p / ql
            if vl - cl * wp.sqrt(g2 * pml + g1) < wp.float64(0.0):
                d = dl * (pml + g6) / (pml * g6 + one)
                v = us
                q = p
    else:
        d = dr
        v = vr
        q = qr
        if p <= qr:
            # right rarefaction
            if vr + cr > wp.float64(0.0):
                cmr = cr * wp.pow(p / qr, g1)
                if us + cmr < wp.float64(0.0):
                    # inside the fan
                    c = g5 * (cr - g7 * vr)
                    d = dr * wp.pow(c / cr, wp.float64(2.0) / (gam - one))
                    v = -c
                    q = qr * wp.pow(c / cr, wp.float64(2.0) * gam / (gam - one))
                else:
                    d = dr * wp.pow(p / qr, one / gam)
                    v = us
                    q = p
        else:
            pmr = p / qr
            if vr + cr * wp.sqrt(g2 * pmr + g1) > wp.float64(0.0):
                d = dr * (pmr + g6) / (pmr * g6 + one)
                v = us
                q = p
    rho_o[i] = d
    u_o[i] = v
    p_o[i] = q
    it_o[i] = it


# ---- miniBUDE (University of Bristol; BUDE's docking energy) -----------------------------------------


@wp.func
def bude_pair(lx: float, ly: float, lz: float, lrad: float, lhphb: float, lelsc: float, lhb: int,
              px: float, py: float, pz: float, prad: float, phphb: float, pelsc: float, phb: int):
    """BUDE-like pair energy of a ligand and a protein atom (all terms continuous in the
    distance): a steric clash inside the sum of the radii; electrostatics tapered to zero
    ELCDST beyond it, doubled for a hydrogen-bond pair (donor with acceptor); desolvation of a
    hydrophobic with a polar atom tapered over DSLVDST."""
    dx = lx - px
    dy = ly - py
    dz = lz - pz
    dist = wp.sqrt(dx * dx + dy * dy + dz * dz)
    radij = lrad + prad
    e = float(0.0)
    if dist < radij:
        e += 2.0 * (1.0 - dist / radij)
    over = wp.max(dist - radij, 0.0)
    if over < 4.0:
        chrg = lelsc * pelsc * (1.0 - 0.25 * over)
        if lhb * phb == -1:
            chrg = chrg * 2.0
        e += chrg
    if over < 2.0:
        if lhphb * phphb < 0.0:
            e += -(wp.abs(lhphb) + wp.abs(phphb)) * (1.0 - 0.5 * over)
    return e


@wp.func
def bude_transform(tr: wp.array2d(dtype=float), pose: int):
    """The pose's rotation (three angles: x, then y, then z) and translation as a 3 x 4
    matrix."""
    sx = wp.sin(tr[pose, 0])
    cx = wp.cos(tr[pose, 0])
    sy = wp.sin(tr[pose, 1])
    cy = wp.cos(tr[pose, 1])
    sz = wp.sin(tr[pose, 2])
    cz = wp.cos(tr[pose, 2])
    return wp.mat44(cy * cz, sx * sy * cz - cx * sz, cx * sy * cz + sx * sz, tr[pose, 3],
                    cy * sz, sx * sy * sz + cx * cz, cx * sy * sz - sx * cz, tr[pose, 4],
                    -sy, sx * cy, cx * cy, tr[pose, 5],
                    0.0, 0.0, 0.0, 1.0)


@wp.kernel
def bude_pose1(tr: wp.array2d(dtype=float), lig: wp.array2d(dtype=float), ligt: wp.array(dtype=int),
               prot: wp.array2d(dtype=float), prott: wp.array(dtype=int), ff: wp.array2d(dtype=float),
               ffhb: wp.array(dtype=int), energy: wp.array(dtype=float)):
    """miniBUDE's fasten kernel, a pose a thread: the pose's transform (sines and cosines of
    three angles), then for every ligand atom its transformed position and force-field
    parameters (radius, hydrophobicity, charge, hydrogen-bond type: ff and ffhb by atom type)
    against every protein atom (the same words across the warp)."""
    pose = wp.tid()
    m = bude_transform(tr, pose)
    etot = float(0.0)
    for l in range(lig.shape[0]):
        x = lig[l, 0]
        y = lig[l, 1]
        z = lig[l, 2]
        lx = m[0, 0] * x + m[0, 1] * y + m[0, 2] * z + m[0, 3]
        ly = m[1, 0] * x + m[1, 1] * y + m[1, 2] * z + m[1, 3]
        lz = m[2, 0] * x + m[2, 1] * y + m[2, 2] * z + m[2, 3]
        lt = ligt[l]
        lrad = ff[lt, 0]
        lhphb = ff[lt, 1]
        lelsc = ff[lt, 2]
        lhb = ffhb[lt]
        for p in range(prot.shape[0]):
            pt = prott[p]
            etot += bude_pair(lx, ly, lz, lrad, lhphb, lelsc, lhb, prot[p, 0], prot[p, 1], prot[p, 2],
                              ff[pt, 0], ff[pt, 1], ff[pt, 2], ffhb[pt])
    energy[pose] = 0.5 * etot


@wp.kernel
def bude_poses4(tr: wp.array2d(dtype=float), lig: wp.array2d(dtype=float), ligt: wp.array(dtype=int),
                prot: wp.array2d(dtype=float), prott: wp.array(dtype=int), ff: wp.array2d(dtype=float),
                ffhb: wp.array(dtype=int), energy: wp.array(dtype=float)):
    """The same with BUDE_P (4) consecutive poses a thread, as miniBUDE's poses-per-work-item
    blocking does: four transforms, each ligand atom transformed four times, every protein atom
    and its parameters loaded once for the four."""
    t = wp.tid()
    p0 = t * BUDE_P
    m0 = bude_transform(tr, p0)
    m1 = bude_transform(tr, p0 + 1)
    m2 = bude_transform(tr, p0 + 2)
    m3 = bude_transform(tr, p0 + 3)
    e0 = float(0.0)
    e1 = float(0.0)
    e2 = float(0.0)
    e3 = float(0.0)
    for l in range(lig.shape[0]):
        x = lig[l, 0]
        y = lig[l, 1]
        z = lig[l, 2]
        a = wp.vec3(m0[0, 0] * x + m0[0, 1] * y + m0[0, 2] * z + m0[0, 3],
                    m0[1, 0] * x + m0[1, 1] * y + m0[1, 2] * z + m0[1, 3],
                    m0[2, 0] * x + m0[2, 1] * y + m0[2, 2] * z + m0[2, 3])
        b = wp.vec3(m1[0, 0] * x + m1[0, 1] * y + m1[0, 2] * z + m1[0, 3],
                    m1[1, 0] * x + m1[1, 1] * y + m1[1, 2] * z + m1[1, 3],
                    m1[2, 0] * x + m1[2, 1] * y + m1[2, 2] * z + m1[2, 3])
        c = wp.vec3(m2[0, 0] * x + m2[0, 1] * y + m2[0, 2] * z + m2[0, 3],
                    m2[1, 0] * x + m2[1, 1] * y + m2[1, 2] * z + m2[1, 3],
                    m2[2, 0] * x + m2[2, 1] * y + m2[2, 2] * z + m2[2, 3])
        d = wp.vec3(m3[0, 0] * x + m3[0, 1] * y + m3[0, 2] * z + m3[0, 3],
                    m3[1, 0] * x + m3[1, 1] * y + m3[1, 2] * z + m3[1, 3],
                    m3[2, 0] * x + m3[2, 1] * y + m3[2, 2] * z + m3[2, 3])
        lt = ligt[l]
        lrad = ff[lt, 0]
        lhphb = ff[lt, 1]
        lelsc = ff[lt, 2]
        lhb = ffhb[lt]
        for p in range(prot.shape[0]):
            pt = prott[p]
            px = prot[p, 0]
            py = prot[p, 1]
            pz = prot[p, 2]
            prad = ff[pt, 0]
            phphb = ff[pt, 1]
            pelsc = ff[pt, 2]
            phb = ffhb[pt]
            e0 += bude_pair(a[0], a[1], a[2], lrad, lhphb, lelsc, lhb, px, py, pz, prad, phphb, pelsc, phb)
            e1 += bude_pair(b[0], b[1], b[2], lrad, lhphb, lelsc, lhb, px, py, pz, prad, phphb, pelsc, phb)
            e2 += bude_pair(c[0], c[1], c[2], lrad, lhphb, lelsc, lhb, px, py, pz, prad, phphb, pelsc, phb)
            e3 += bude_pair(d[0], d[1], d[2], lrad, lhphb, lelsc, lhb, px, py, pz, prad, phphb, pelsc, phb)
    energy[p0] = 0.5 * e0
    energy[p0 + 1] = 0.5 * e1
    energy[p0 + 2] = 0.5 * e2
    energy[p0 + 3] = 0.5 * e3


# ---- sparse tensors (ParTI, SPLATT; FROSTT): MTTKRP of a COO tensor --------------------------------


@wp.kernel
def mttkrp_coo(ii: wp.array(dtype=int), jj: wp.array(dtype=int), kk: wp.array(dtype=int),
               val: wp.array(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float),
               m: wp.array2d(dtype=float)):
    """The mode-1 matricised tensor times Khatri-Rao product of a third-order COO tensor,
    M[i, :] += x_ijk B[j, :] * C[k, :]: a thread per (nonzero, rank column), MT_RANK lanes a
    nonzero (two nonzeros a warp), the row of M updated by float atomics."""
    t = wp.tid()
    e = t // MT_RANK
    r = t % MT_RANK
    v = val[e] * b[jj[e], r] * c[kk[e], r]
    wp.atomic_add(m, ii[e], r, v)


# ---- CUDA samples: particles, reorderDataAndFindCellStart ---------------------------------------------


@wp.kernel
def cell_start_reorder(ghash: wp.array(dtype=int), gindex: wp.array(dtype=int), pos: wp.array(dtype=wp.vec4),
                       vel: wp.array(dtype=wp.vec4), cell_start: wp.array(dtype=int), cell_end: wp.array(dtype=int),
                       spos: wp.array(dtype=wp.vec4), svel: wp.array(dtype=wp.vec4)):
    """After particles are sorted by cell hash: a thread per sorted particle puts its hash in a
    shared array one place up (thread 0 also the previous block's last), and after a barrier
    compares it with its neighbour's: where they differ a cell starts here and the previous
    one ends; then it gathers its particle's position and velocity (float4) into sorted
    order."""
    sh = wp.shared.array(shape=(CS_BLOCK + 1,), dtype=int)
    i = wp.tid()
    t = wp.thread_idx()
    n = ghash.shape[0]
    h = ghash[i]
    sh[t + 1] = h
    if t == 0 and i > 0:
        sh[0] = ghash[i - 1]
    wp.sync_threads()
    if i == 0 or h != sh[t]:
        cell_start[h] = i
        if i > 0:
            cell_end[sh[t]] = i
    if i == n - 1:
        cell_end[h] = i + 1
    src = gindex[i]
    spos[i] = pos[src]
    svel[i] = vel[src]
