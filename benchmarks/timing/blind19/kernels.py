"""Kernels of the nineteenth blind validation set from numerical methods, the geosciences,
physics and machine learning, written in simt from the algorithms: the tendencies of Norman's
miniWeather mini-app (the compressible Euler equations of a 2-D atmosphere by fourth-order
finite volumes with hyperviscosity, in fp64: the x sweep and the z sweep with its hydrostatic
background and gravity); Kessler's warm-rain microphysics (Kessler 1969, as Klemp and
Wilhelmson 1978 formulate it and the DCMIP test cases run it: a thread a column walking its
levels, the rain's fall sub-cycled by its CFL bound; columns stored level-major or
column-major); the UNESCO EOS-80 equation of state of seawater (Millero and Poisson's
one-atmosphere density, Millero et al.'s secant bulk modulus; fp64 or fp32); the particle-to-grid
transfer of MLS-MPM (Hu et al. 2018's moving-least-squares material point method, as the
88-line mpm88 writes it: quadratic B-spline weights, APIC's affine momentum, float atomics on
a 3 x 3 stencil of grid nodes); Levenberg-Marquardt fits of 2-D Gaussians to spots
(Gpufit's batched fitting, Przybylski et al. 2017; a thread a fit); and the sampled dense-dense
matrix product (SDDMM, GraphBLAS's masked mxm as DGL and cuSPARSE run it for graph attention:
a thread or a warp a non-zero).

Each is written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/ to ../blind18/) or of the held-out set (../kernels.py, ../cases.py). The kernels
from data structures, number theory, cryptography, graphics, vision and text search are in
kernels_apps.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Where a kernel has variants of element type it is generic
(``typing.Any``) and each launch picks its dtype. Launch shapes and inputs are in
``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = 0xFFFFFFFF
f64 = wp.float64

MW_NV = 4               # miniWeather: state variables (density, x and z momentum, density x theta)
MW_HS = 2               # miniWeather: halo cells each side
MW_GRAV = 9.8
MW_C0 = 27.5629410929725921310572974482      # miniWeather: p = C0 (rho theta)^gamma
MW_GAMMA = 1.40027894002789400278940027894   # cp / cv
KS_F2X = 17.27          # Kessler: the saturation formula's constants
KS_F5 = 237.3 * 17.27 * 2500000.0 / 1003.0
KS_XK = 0.2875          # Kessler: R / cp
KS_IXK = 1.0 / KS_XK    # Kessler: cp / R (the power that turns the Exner function into pressure)
KS_PSL = 1000.0         # Kessler: sea-level pressure (mb)
KS_RHOQR = 1000.0       # Kessler: liquid water's density (kg / m^3)
KS_LVCP = 2500000.0 / 1003.0
LM_S = 11               # Gaussian fits: the region of interest's side (pixels)
LM_NP = 5               # Gaussian fits: parameters (amplitude, x0, y0, sigma, background)
LM_MAXIT = 20           # Gaussian fits: iterations at most
LM_TOL = 1.0e-4         # Gaussian fits: converged when a trial changes chi^2 by less (relative)
SD_K = 32               # SDDMM: the dense matrices' width
LMV = wp.vector(length=LM_NP, dtype=float)
LMM = wp.matrix(shape=(LM_NP, LM_NP), dtype=float)


# ---- miniWeather's tendencies ----------------------------------------------------------------------------


@wp.func
def mw_state_flux(vals: wp.vec4d, d3: wp.vec4d, r0: f64, t0: f64, hv: f64, xdir: int, p0: f64, wall: int):
    """The flux of the four variables through an interface, from the interface values vals
    (perturbations of the background r0, t0) and their third differences d3 (the
    hyperviscosity, coefficient hv): along x (xdir = 1) or along z (the background pressure p0
    taken off; at a wall no normal velocity and no density diffusion)."""
    r = vals[0] + r0
    u = vals[1] / r
    w = vals[2] / r
    t = (vals[3] + t0) / r
    p = MW_C0 * wp.pow(r * t, f64(MW_GAMMA)) - p0
    dd = d3[0]
    if wall != 0:
        w = f64(0.0)
        dd = f64(0.0)
    if xdir != 0:
        return wp.vec4d(r * u - hv * dd, r * u * u + p - hv * d3[1], r * u * w - hv * d3[2], r * u * t - hv * d3[3])
    return wp.vec4d(r * w - hv * dd, r * w * u - hv * d3[1], r * w * w + p - hv * d3[2], r * w * t - hv * d3[3])


@wp.func
def mw_flux_x(state: wp.array3d(dtype=f64), kk: int, ii: int, r0: f64, t0: f64, hv: f64):
    """The x flux through the interface between halo columns ii + 1 and ii + 2 of halo row kk:
    each variable's fourth-order interface value and third difference from the four cells
    around it."""
    vals = wp.vec4d()
    d3 = wp.vec4d()
    for v in range(MW_NV):
        a = state[v, kk, ii]
        b = state[v, kk, ii + 1]
        c = state[v, kk, ii + 2]
        d = state[v, kk, ii + 3]
        vals[v] = (-a + 7.0 * b + 7.0 * c - d) / 12.0
        d3[v] = -a + 3.0 * b - 3.0 * c + d
    return mw_state_flux(vals, d3, r0, t0, hv, 1, f64(0.0), 0)


@wp.func
def mw_flux_z(state: wp.array3d(dtype=f64), kf: int, ii: int, r0: f64, t0: f64, p0: f64, hv: f64, wall: int):
    """The z flux through interface kf (between halo rows kf + 1 and kf + 2) of halo column ii,
    with the hydrostatic background's density, density x theta and pressure at the interface."""
    vals = wp.vec4d()
    d3 = wp.vec4d()
    for v in range(MW_NV):
        a = state[v, kf, ii]
        b = state[v, kf + 1, ii]
        c = state[v, kf + 2, ii]
        d = state[v, kf + 3, ii]
        vals[v] = (-a + 7.0 * b + 7.0 * c - d) / 12.0
        d3[v] = -a + 3.0 * b - 3.0 * c + d
    return mw_state_flux(vals, d3, r0, t0, hv, 0, p0, wall)


@wp.kernel
def mw_tend_x(state: wp.array3d(dtype=f64), hy_r: wp.array(dtype=f64), hy_rt: wp.array(dtype=f64), dx: f64,
              dt: f64, hv_beta: f64, tend: wp.array3d(dtype=f64)):
    """miniWeather's x tendencies, a thread a cell (k, i) of the nz x nx grid: the fluxes
    through its left and right faces (each from four cells of the halo-padded state, the
    background density and density x theta of the cell's level), hyperviscosity -hv_beta dx /
    (16 dt), and tend = -(right - left) / dx for the four variables."""
    k, i = wp.tid()
    hv = -hv_beta * dx / (16.0 * dt)
    kk = k + MW_HS
    fl = mw_flux_x(state, kk, i, hy_r[kk], hy_rt[kk], hv)
    fr = mw_flux_x(state, kk, i + 1, hy_r[kk], hy_rt[kk], hv)
    for v in range(MW_NV):
        tend[v, k, i] = -(fr[v] - fl[v]) / dx


@wp.kernel
def mw_tend_z(state: wp.array3d(dtype=f64), hy_ri: wp.array(dtype=f64), hy_rti: wp.array(dtype=f64),
              hy_pi: wp.array(dtype=f64), dz: f64, dt: f64, hv_beta: f64, tend: wp.array3d(dtype=f64)):
    """miniWeather's z tendencies, a thread a cell: the fluxes through its lower and upper
    faces with the background at the interfaces (hy_ri, hy_rti, hy_pi; rigid walls at the
    bottom and the top), tend = -(upper - lower) / dz, and gravity's source on the z
    momentum."""
    k, i = wp.tid()
    nz = tend.shape[1]
    hv = -hv_beta * dz / (16.0 * dt)
    ii = i + MW_HS
    wl = 0
    if k == 0:
        wl = 1
    wu = 0
    if k + 1 == nz:
        wu = 1
    fl = mw_flux_z(state, k, ii, hy_ri[k], hy_rti[k], hy_pi[k], hv, wl)
    fu = mw_flux_z(state, k + 1, ii, hy_ri[k + 1], hy_rti[k + 1], hy_pi[k + 1], hv, wu)
    for v in range(MW_NV):
        tv = -(fu[v] - fl[v]) / dz
        if v == 2:
            tv = tv - state[0, k + MW_HS, ii] * MW_GRAV
        tend[v, k, i] = tv


# ---- Kessler's warm-rain microphysics ------------------------------------------------------------------------


@wp.func
def ks_fall(qr: f64, r: f64, rhalf: f64):
    """Rain's terminal velocity (m/s; Klemp and Wilhelmson's fit) from its mixing ratio, the
    density in g/cm^3 and the density correction sqrt(rho_surface / rho)."""
    return 36.34 * wp.pow(qr * r, f64(0.1364)) * rhalf


@wp.kernel
def kessler_column(theta: wp.array(dtype=f64), qv: wp.array(dtype=f64), qc: wp.array(dtype=f64),
                   qr: wp.array(dtype=f64), rho: wp.array(dtype=f64), pk: wp.array(dtype=f64),
                   z: wp.array(dtype=f64), sk: int, sc: int, dt: f64, precl: wp.array(dtype=f64)):
    """Kessler's warm rain a column a thread (level k of column c at k sk + c sc): the step dt
    split into as many sub-steps as the fastest-falling rain's CFL bound (0.8 dz / v) needs;
    each sub-step adds the surface rain rate, then walks the levels upward: the rain's
    sedimentation from the flux divergence with the level above (its values not yet updated),
    autoconversion and accretion of cloud into rain, saturation adjustment (Tetens' formula on
    the temperature pk theta) and rain evaporation, updating theta, qv, qc and qr in place. The
    mean surface rain rate is stored in precl."""
    c = wp.tid()
    nz = z.shape[0]
    base = c * sc
    rho0 = rho[base]
    dtmax = dt
    for k in range(nz - 1):
        o = base + k * sk
        v = ks_fall(qr[o], 0.001 * rho[o], wp.sqrt(rho0 / rho[o]))
        if v != 0.0:
            dtmax = wp.min(dtmax, 0.8 * (z[k + 1] - z[k]) / v)
    nsub = int(wp.ceil(dt / dtmax))
    dt0 = dt / f64(nsub)
    pr = f64(0.0)
    for n in range(nsub):
        r_c = 0.001 * rho0
        qr_c = qr[base]
        v_c = ks_fall(qr_c, r_c, f64(1.0))
        pr += rho0 * qr_c * v_c / KS_RHOQR
        r_n = r_c
        qr_n = qr_c
        v_n = v_c
        for k in range(nz):
            o = base + k * sk
            sed = f64(0.0)
            if k < nz - 1:
                r_n = 0.001 * rho[o + sk]
                qr_n = qr[o + sk]
                v_n = ks_fall(qr_n, r_n, wp.sqrt(rho0 / rho[o + sk]))
                sed = dt0 * (r_n * qr_n * v_n - r_c * qr_c * v_c) / (r_c * (z[k + 1] - z[k]))
            else:
                sed = -dt0 * qr_c * v_c / (0.5 * (z[k] - z[k - 1]))
            p = pk[o]
            th = theta[o]
            qvk = qv[o]
            qck = qc[o]
            pc = 3.8 / (wp.pow(p, f64(KS_IXK)) * KS_PSL)
            prodr = qck - (qck - dt0 * wp.max(0.001 * (qck - 0.001), f64(0.0))) \
                / (1.0 + dt0 * 2.2 * wp.pow(qr_c, f64(0.875)))
            qck = wp.max(qck - prodr, f64(0.0))
            qrk = wp.max(qr_c + prodr + sed, f64(0.0))
            tk = p * th
            qvs = pc * wp.exp(KS_F2X * (tk - 273.0) / (tk - 36.0))
            prod = (qvk - qvs) / (1.0 + qvs * KS_F5 / ((tk - 36.0) * (tk - 36.0)))
            rq = r_c * qrk
            ev = dt0 * ((1.6 + 124.9 * wp.pow(rq, f64(0.2046))) * wp.pow(rq, f64(0.525))) \
                / (2550000.0 * pc / (3.8 * qvs) + 540000.0) * (wp.max(qvs - qvk, f64(0.0)) / (r_c * qvs))
            ern = wp.min(wp.min(ev, wp.max(-prod - qck, f64(0.0))), qrk)
            product = wp.max(prod, -qck)
            theta[o] = th + KS_LVCP / p * (product - ern)
            qv[o] = wp.max(qvk - product + ern, f64(0.0))
            qc[o] = qck + product
            qr[o] = qrk - ern
            r_c = r_n
            qr_c = qr_n
            v_c = v_n
    precl[c] = pr / f64(nsub)


# ---- the EOS-80 equation of state of seawater ------------------------------------------------------------------


@wp.kernel
def eos80_density(s: wp.array(dtype=Any), t: wp.array(dtype=Any), p: wp.array(dtype=Any), rho: wp.array(dtype=Any)):
    """The in-situ density of seawater (UNESCO's EOS-80) a point a thread: salinity s (psu),
    temperature t (deg C), pressure p (dbar): pure water's density, the one-atmosphere density
    rho0 = rho_w + A s + B s^1.5 + C s^2, the secant bulk modulus K(s, t, p) and rho0 / (1 - p /
    K), the polynomials in t by Horner's rule; generic in the float type."""
    i = wp.tid()
    sa = s[i]
    tc = t[i]
    pb = p[i] * 0.1
    F = type(sa)
    s15 = sa * wp.sqrt(sa)
    rw = 999.842594 + tc * (6.793952e-2 + tc * (-9.095290e-3 + tc * (1.001685e-4 + tc * (-1.120083e-6
                                                                              + tc * 6.536332e-9))))
    ra = 8.24493e-1 + tc * (-4.0899e-3 + tc * (7.6438e-5 + tc * (-8.2467e-7 + tc * 5.3875e-9)))
    rb = -5.72466e-3 + tc * (1.0227e-4 - tc * 1.6546e-6)
    r0 = rw + ra * sa + rb * s15 + 4.8314e-4 * sa * sa
    kw = 19652.21 + tc * (148.4206 + tc * (-2.327105 + tc * (1.360477e-2 - tc * 5.155288e-5)))
    aw = 3.239908 + tc * (1.43713e-3 + tc * (1.16092e-4 - tc * 5.77905e-7))
    bw = 8.50935e-5 + tc * (-6.12293e-6 + tc * 5.2787e-8)
    k0 = kw + sa * (54.6746 + tc * (-0.603459 + tc * (1.09987e-2 - tc * 6.1670e-5))) \
        + s15 * (7.944e-2 + tc * (1.6483e-2 - tc * 5.3009e-4))
    ka = aw + sa * (2.2838e-3 + tc * (-1.0981e-5 - tc * 1.6078e-6)) + 1.91075e-4 * s15
    kb = bw + sa * (-9.9348e-7 + tc * (2.0816e-8 + tc * 9.1697e-10))
    kk = k0 + pb * (ka + pb * kb)
    rho[i] = r0 / (F(1.0) - pb / kk)


# ---- MLS-MPM's particle-to-grid transfer -----------------------------------------------------------------------


@wp.kernel
def mpm_p2g(x: wp.array(dtype=wp.vec2), v: wp.array(dtype=wp.vec2), cmat: wp.array(dtype=wp.mat22),
            jac: wp.array(dtype=float), n: int, dx: float, dt: float, p_vol: float, p_mass: float, e_mod: float,
            gm: wp.array(dtype=float), gvx: wp.array(dtype=float), gvy: wp.array(dtype=float)):
    """The particle-to-grid step of MLS-MPM (a weakly compressible fluid, as mpm88), a thread a
    particle: its quadratic B-spline weights over the 3 x 3 nodes around it, the stress from its
    volume ratio J, the affine momentum matrix (stress + APIC's C), and for each node the
    weighted mass and momentum (m v + affine dpos) added by float atomics into the n x n grid
    (node (gx, gy) at gy n + gx)."""
    p = wp.tid()
    inv_dx = 1.0 / dx
    xp = x[p] * inv_dx
    bx = int(xp[0] - 0.5)
    by = int(xp[1] - 0.5)
    fx = xp - wp.vec2(float(bx), float(by))
    w0 = 0.5 * wp.cw_mul(wp.vec2(1.5, 1.5) - fx, wp.vec2(1.5, 1.5) - fx)
    w1 = wp.vec2(0.75, 0.75) - wp.cw_mul(fx - wp.vec2(1.0, 1.0), fx - wp.vec2(1.0, 1.0))
    w2 = 0.5 * wp.cw_mul(fx - wp.vec2(0.5, 0.5), fx - wp.vec2(0.5, 0.5))
    wx = wp.vec3(w0[0], w1[0], w2[0])
    wy = wp.vec3(w0[1], w1[1], w2[1])
    stress = -dt * 4.0 * e_mod * p_vol * (jac[p] - 1.0) * inv_dx * inv_dx
    affine = wp.mat22(stress, 0.0, 0.0, stress) + p_mass * cmat[p]
    mv = p_mass * v[p]
    for i in range(3):
        for j in range(3):
            dpos = (wp.vec2(float(i), float(j)) - fx) * dx
            weight = wx[i] * wy[j]
            mom = weight * (mv + affine * dpos)
            g = (by + j) * n + bx + i
            wp.atomic_add(gm, g, weight * p_mass)
            wp.atomic_add(gvx, g, mom[0])
            wp.atomic_add(gvy, g, mom[1])


# ---- Levenberg-Marquardt fits of 2-D Gaussians -------------------------------------------------------------------


@wp.func
def lm_system(data: wp.array2d(dtype=float), k: int, p: LMV):
    """chi^2 of fit k's model A exp(-((x - x0)^2 + (y - y0)^2) / (2 s^2)) + b at parameters p
    over its LM_S x LM_S pixels (row-major in data's row k), the gradient J^T r and the
    normal matrix J^T J (r the residuals, J the model's derivatives)."""
    is2 = 1.0 / (p[3] * p[3])
    chi2 = float(0.0)
    g = LMV()
    h = LMM()
    jv = LMV()
    for q in range(LM_S * LM_S):
        py = q // LM_S
        ddx = float(q - py * LM_S) - p[1]
        ddy = float(py) - p[2]
        r2 = ddx * ddx + ddy * ddy
        e = wp.exp(-0.5 * r2 * is2)
        ae = p[0] * e
        res = data[k, q] - (ae + p[4])
        chi2 += res * res
        jv[0] = e
        jv[1] = ae * ddx * is2
        jv[2] = ae * ddy * is2
        jv[3] = ae * r2 * is2 / p[3]
        jv[4] = 1.0
        g = g + jv * res
        h = h + wp.outer(jv, jv)
    return chi2, g, h


@wp.func
def lm_chi2(data: wp.array2d(dtype=float), k: int, p: LMV):
    """chi^2 of fit k at parameters p (lm_system's without the derivatives)."""
    is2 = 1.0 / (p[3] * p[3])
    chi2 = float(0.0)
    for q in range(LM_S * LM_S):
        py = q // LM_S
        ddx = float(q - py * LM_S) - p[1]
        ddy = float(py) - p[2]
        res = data[k, q] - (p[0] * wp.exp(-0.5 * (ddx * ddx + ddy * ddy) * is2) + p[4])
        chi2 += res * res
    return chi2


@wp.func
def lm_solve(h: LMM, g: LMV, lam: float):
    """The damped normal equations (J^T J + lam diag(J^T J)) d = J^T r by Gaussian elimination
    (the matrix is symmetric positive definite: no pivoting) and back substitution."""
    a = h
    for q in range(LM_NP):
        a[q, q] = h[q, q] * (1.0 + lam)
    d = g
    for c in range(LM_NP):
        for r in range(c + 1, LM_NP):
            f = a[r, c] / a[c, c]
            for q in range(c + 1, LM_NP):
                a[r, q] = a[r, q] - f * a[c, q]
            d[r] = d[r] - f * d[c]
    for cc in range(LM_NP):
        c = LM_NP - 1 - cc
        s = d[c]
        for q in range(c + 1, LM_NP):
            s = s - a[c, q] * d[q]
        d[c] = s / a[c, c]
    return d


@wp.kernel
def lm_gauss2d(data: wp.array2d(dtype=float), init: wp.array2d(dtype=float), params: wp.array2d(dtype=float),
               chi2_out: wp.array(dtype=float), iters: wp.array(dtype=int)):
    """Levenberg-Marquardt least squares of a 2-D Gaussian with background to a spot, a thread a
    fit (Gpufit's algorithm): from the initial parameters, each iteration solves the damped
    normal equations (damping lam starting at 1e-3), evaluates chi^2 at the trial point, and
    accepts it (lam / 10, a new normal matrix) or rejects it (lam x 10; a trial width <= 0 is
    rejected); it stops when the trial's chi^2 differs from the current one by less than LM_TOL
    relative (the step taken if it lowers chi^2), or after LM_MAXIT iterations. The
    parameters, chi^2 and the iterations taken are stored."""
    k = wp.tid()
    p = LMV()
    for q in range(LM_NP):
        p[q] = init[k, q]
    chi2, g, h = lm_system(data, k, p)
    lam = float(1.0e-3)
    it = int(0)
    done = int(0)
    while it < LM_MAXIT and done == 0:
        it += 1
        pn = p + lm_solve(h, g, lam)
        cn = float(3.0e38)
        if pn[3] > 0.0:
            cn = lm_chi2(data, k, pn)
        if wp.abs(chi2 - cn) < LM_TOL * chi2:
            done = 1
        if cn < chi2:
            p = pn
            lam = lam * 0.1
            chi2, g, h = lm_system(data, k, p)
        else:
            lam = lam * 10.0
    for q in range(LM_NP):
        params[k, q] = p[q]
    chi2_out[k] = chi2
    iters[k] = it


# ---- SDDMM: the sampled dense-dense product --------------------------------------------------------------------


@wp.kernel
def sddmm_thread(row: wp.array(dtype=int), col: wp.array(dtype=int), val: wp.array(dtype=float),
                 x: wp.array2d(dtype=float), y: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    """out[e] = val[e] (x[row[e]] . y[col[e]]) over a sparse matrix's non-zeros (COO, rows
    sorted), a thread a non-zero: the two SD_K-wide rows read element by element."""
    e = wp.tid()
    i = row[e]
    j = col[e]
    s = float(0.0)
    for k in range(SD_K):
        s += x[i, k] * y[j, k]
    out[e] = val[e] * s


@wp.kernel
def sddmm_warp(row: wp.array(dtype=int), col: wp.array(dtype=int), val: wp.array(dtype=float),
               x: wp.array2d(dtype=float), y: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    """The same product a warp a non-zero: a lane a column of the two rows (SD_K = 32, each row
    one coalesced read), the dot product by five butterfly shuffles, lane 0 storing it."""
    t = wp.tid()
    e = t >> 5
    lane = t & 31
    s = x[row[e], lane] * y[col[e], lane]
    for o in range(5):
        s += wp.shfl_xor_sync(FULL, s, 16 >> o)
    if lane == 0:
        out[e] = val[e] * s
