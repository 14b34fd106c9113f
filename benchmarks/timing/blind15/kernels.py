"""Kernels of the fifteenth blind validation set from scientific computing, numerical methods
and simulation, written in simt from the algorithms: HeCBench's adaptive inverse distance
weighting (AIDW: a k-nearest-neighbour pass for the local density, then the weighted average,
from global memory or through shared-memory tiles); PointNet++'s farthest point sampling (a
block a point cloud, a block-wide arg-max by shuffles and shared memory every sample, the
running distances in global or shared memory); the Householder QR of tall-skinny 32 x 8
matrices as batched LAPACK-style panels (MAGMA's batched geqr2, the leaves of TSQR: a warp a
matrix, a lane a row, the reductions by shuffles; fp64 and fp32); the solution of Kepler's
equation by Newton's method for a catalogue of orbits (fp64); Gillespie's stochastic
simulation algorithm on Schlogl's bistable reaction network (fp64 propensities, a per-thread
xorshift generator); batched polynomial roots by the Durand-Kerner (Weierstrass) and
Aberth-Ehrlich simultaneous iterations (fp32 complex arithmetic); the Sinkhorn-Knopp scaling
of entropic optimal transport (a block a problem, the kernel matrix in shared memory or read
from global memory); the semi-Lagrangian advection step of Stam's Stable Fluids (the CUDA
samples' fluidsGL); Izhikevich neurons and the spike delivery of GPU spiking-network
simulators (an atomic spike queue; float atomics on the postsynaptic currents).

Each is written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/ to ../blind14/) or of the held-out set (../kernels.py, ../cases.py). The kernels
from genomics, geographic analysis, cryptography, graphics and vision are in kernels_apps.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Where a kernel has variants of element type it is generic
(``typing.Any``) and each launch picks its dtype. Launch shapes and inputs are in
``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = 0xFFFFFFFF

AIDW_K = 8              # AIDW: nearest neighbours whose mean distance is the observed spacing
AIDW_TILE = 128         # AIDW tiled: data points a tile (threads a block)
FPS_BLOCK = 512         # farthest point sampling: threads a block (a cloud)
FPS_WARPS = FPS_BLOCK // 32
FPS_N = 2048            # farthest point sampling: points a cloud (the shared variant's arrays)
QR_M = 32               # Householder QR: rows (a lane each)
QR_N = 8                # Householder QR: columns
KP_ITER = 50            # Kepler: Newton iterations at most
SSA_MAX = 4096          # Gillespie: reaction events a trajectory at most
RT_DEG = 8              # polynomial roots: degree
RT_ITER = 80            # polynomial roots: sweeps at most
SK_N = 96               # Sinkhorn: points a side (threads a block)
SK_PAD = SK_N + 1       # Sinkhorn: shared row pitch
SN_FAN = 128            # spike delivery: synapses a neuron


# ---- HeCBench aidw: adaptive inverse distance weighting (Lu and Wong, 2008) -------------------------


@wp.func
def aidw_alpha(r_obs: float, r_exp: float):
    """Lu and Wong's adaptive power: the nearest-neighbour statistic R = r_obs / r_exp mapped
    to mu in [0, 1] by the cosine membership on [R_min, R_max] = [0, 2], then the power by
    linear interpolation of the five levels 1 to 5 placed at mu = 0.1, 0.3, 0.5, 0.7, 0.9."""
    rr = r_obs / r_exp
    mu = float(1.0)
    if rr < 2.0:
        mu = 0.5 - 0.5 * wp.cos(3.14159265 * rr * 0.5)
    return wp.clamp(1.0 + 5.0 * (mu - 0.1), 1.0, 5.0)


@wp.kernel
def aidw_naive(qx: wp.array(dtype=float), qy: wp.array(dtype=float), px: wp.array(dtype=float),
               py: wp.array(dtype=float), pz: wp.array(dtype=float), r_exp: float,
               alpha: wp.array(dtype=float), out: wp.array(dtype=float)):
    """AIDW a thread a query point, the data points read from global memory (the same word
    across the warp) in two passes: the AIDW_K nearest squared distances kept sorted by
    compare-exchange insertion (only when a point beats the current k-th), their mean distance
    giving the adaptive power alpha; then the weighted average with weights d^-alpha."""
    q = wp.tid()
    x = qx[q]
    y = qy[q]
    n = px.shape[0]
    best = wp.vector(length=AIDW_K, dtype=float)
    for k in range(AIDW_K):
        best[k] = 1.0e30
    for p in range(n):
        dx = x - px[p]
        dy = y - py[p]
        d = dx * dx + dy * dy
        if d < best[AIDW_K - 1]:
            for k in range(AIDW_K):
                lo = wp.min(d, best[k])
                d = wp.max(d, best[k])
                best[k] = lo
    r_obs = float(0.0)
    for k in range(AIDW_K):
        r_obs += wp.sqrt(best[k])
    a = aidw_alpha(r_obs * (1.0 / float(AIDW_K)), r_exp)
    ha = -0.5 * a
    num = float(0.0)
    den = float(0.0)
    for p in range(n):
        dx = x - px[p]
        dy = y - py[p]
        w = wp.exp(ha * wp.log(wp.max(dx * dx + dy * dy, 1.0e-20)))
        num += w * pz[p]
        den += w
    alpha[q] = a
    out[q] = num / den


@wp.kernel
def aidw_tiled(qx: wp.array(dtype=float), qy: wp.array(dtype=float), px: wp.array(dtype=float),
               py: wp.array(dtype=float), pz: wp.array(dtype=float), r_exp: float,
               alpha: wp.array(dtype=float), out: wp.array(dtype=float)):
    """The same interpolation with the data points staged through shared memory a tile of
    AIDW_TILE at a time (a point a thread, a barrier before and after each tile), as HeCBench's
    tiled AIDW does; both passes tile the points."""
    sx = wp.shared.array(shape=(AIDW_TILE,), dtype=float)
    sy = wp.shared.array(shape=(AIDW_TILE,), dtype=float)
    sz = wp.shared.array(shape=(AIDW_TILE,), dtype=float)
    q = wp.tid()
    t = wp.thread_idx()
    x = qx[q]
    y = qy[q]
    n = px.shape[0]
    best = wp.vector(length=AIDW_K, dtype=float)
    for k in range(AIDW_K):
        best[k] = 1.0e30
    for base in range(0, n, AIDW_TILE):
        wp.sync_threads()
        sx[t] = px[base + t]
        sy[t] = py[base + t]
        wp.sync_threads()
        for p in range(AIDW_TILE):
            dx = x - sx[p]
            dy = y - sy[p]
            d = dx * dx + dy * dy
            if d < best[AIDW_K - 1]:
                for k in range(AIDW_K):
                    lo = wp.min(d, best[k])
                    d = wp.max(d, best[k])
                    best[k] = lo
    r_obs = float(0.0)
    for k in range(AIDW_K):
        r_obs += wp.sqrt(best[k])
    a = aidw_alpha(r_obs * (1.0 / float(AIDW_K)), r_exp)
    ha = -0.5 * a
    num = float(0.0)
    den = float(0.0)
    for base in range(0, n, AIDW_TILE):
        wp.sync_threads()
        sx[t] = px[base + t]
        sy[t] = py[base + t]
        sz[t] = pz[base + t]
        wp.sync_threads()
        for p in range(AIDW_TILE):
            dx = x - sx[p]
            dy = y - sy[p]
            w = wp.exp(ha * wp.log(wp.max(dx * dx + dy * dy, 1.0e-20)))
            num += w * sz[p]
            den += w
    alpha[q] = a
    out[q] = num / den


# ---- PointNet++: farthest point sampling ----------------------------------------------------------


@wp.func
def argmax_warp(v: float, i: int):
    """The warp's largest v and its index (the smallest index among equal values), in every
    lane (xor butterfly)."""
    for s in range(5):
        off = 16 >> s
        ov = wp.shfl_xor_sync(FULL, v, off)
        oi = wp.shfl_xor_sync(FULL, i, off)
        if ov > v or (ov == v and oi < i):
            v = ov
            i = oi
    return v, i


@wp.kernel
def fps_global(pts: wp.array(dtype=wp.vec3), temp: wp.array(dtype=float), idx: wp.array(dtype=int),
               n: int, k: int):
    """Farthest point sampling of PointNet++ a block a cloud of n points: k samples, the first
    point first; each step every thread lowers the running distance (in global memory, as
    PointNet++'s kernel keeps it) of its strided points to the newest sample and keeps its
    largest; the warps' arg-maxes by shuffles, the block's through shared memory (two
    barriers); ties go to the smallest index."""
    sv = wp.shared.array(shape=(FPS_WARPS,), dtype=float)
    si = wp.shared.array(shape=(FPS_WARPS,), dtype=int)
    sel = wp.shared.array(shape=(1,), dtype=int)
    b = wp.block_idx()
    t = wp.thread_idx()
    lane = t % 32
    wid = t // 32
    base = b * n
    old = int(0)
    if t == 0:
        idx[b * k] = 0
    for j in range(1, k):
        po = pts[base + old]
        best = float(-1.0)
        bi = int(0)
        for i in range(t, n, FPS_BLOCK):
            d = wp.length_sq(pts[base + i] - po)
            d2 = wp.min(d, temp[base + i])
            temp[base + i] = d2
            if d2 > best:
                best = d2
                bi = i
        best, bi = argmax_warp(best, bi)
        if lane == 0:
            sv[wid] = best
            si[wid] = bi
        wp.sync_threads()
        if wid == 0:
            v = float(-1.0)
            vi = int(0)
            if lane < FPS_WARPS:
                v = sv[lane]
                vi = si[lane]
            v, vi = argmax_warp(v, vi)
            if lane == 0:
                sel[0] = vi
                idx[b * k + j] = vi
        wp.sync_threads()
        old = sel[0]


@wp.kernel
def fps_shared(pts: wp.array(dtype=wp.vec3), temp: wp.array(dtype=float), idx: wp.array(dtype=int),
               n: int, k: int):
    """The same sampling with the cloud's coordinates (three FPS_N arrays) and running
    distances staged in shared memory (32 KB a block); temp gives the initial distances."""
    sx = wp.shared.array(shape=(FPS_N,), dtype=float)
    sy = wp.shared.array(shape=(FPS_N,), dtype=float)
    sz = wp.shared.array(shape=(FPS_N,), dtype=float)
    sd = wp.shared.array(shape=(FPS_N,), dtype=float)
    sv = wp.shared.array(shape=(FPS_WARPS,), dtype=float)
    si = wp.shared.array(shape=(FPS_WARPS,), dtype=int)
    sel = wp.shared.array(shape=(1,), dtype=int)
    b = wp.block_idx()
    t = wp.thread_idx()
    lane = t % 32
    wid = t // 32
    base = b * n
    for i in range(t, n, FPS_BLOCK):
        p = pts[base + i]
        sx[i] = p[0]
        sy[i] = p[1]
        sz[i] = p[2]
        sd[i] = temp[base + i]
    old = int(0)
    if t == 0:
        idx[b * k] = 0
    wp.sync_threads()
    for j in range(1, k):
        ox = sx[old]
        oy = sy[old]
        oz = sz[old]
        best = float(-1.0)
        bi = int(0)
        for i in range(t, n, FPS_BLOCK):
            dx = sx[i] - ox
            dy = sy[i] - oy
            dz = sz[i] - oz
            d2 = wp.min(dx * dx + dy * dy + dz * dz, sd[i])
            sd[i] = d2
            if d2 > best:
                best = d2
                bi = i
        best, bi = argmax_warp(best, bi)
        if lane == 0:
            sv[wid] = best
            si[wid] = bi
        wp.sync_threads()
        if wid == 0:
            v = float(-1.0)
            vi = int(0)
            if lane < FPS_WARPS:
                v = sv[lane]
                vi = si[lane]
            v, vi = argmax_warp(v, vi)
            if lane == 0:
                sel[0] = vi
                idx[b * k + j] = vi
        wp.sync_threads()
        old = sel[0]


# ---- batched Householder QR of tall-skinny panels (LAPACK's geqr2; MAGMA batched; TSQR leaves) ----


@wp.func
def warp_sum(x: Any):
    for s in range(5):
        x = x + wp.shfl_xor_sync(FULL, x, 16 >> s)
    return x


@wp.kernel
def tsqr_warp(a: wp.array(dtype=Any), tau: wp.array(dtype=Any)):
    """LAPACK's unblocked Householder QR (geqr2) of a QR_M x QR_N matrix (column-major, a
    matrix after another), a warp a matrix and a lane a row holding its QR_N entries: for each
    column the norm below the diagonal by a shuffle sum, the reflector as dlarfg makes it
    (beta = -sign(alpha) ||x||, tau = (beta - alpha) / beta, v scaled to v_k = 1), then each
    later column updated by a - tau (v . a) v, the dot product by a shuffle sum. R is left on
    and above the diagonal, the reflectors below it, tau beside."""
    t = wp.tid()
    m = t // 32
    lane = wp.lane_id()
    base = m * (QR_M * QR_N)
    a0 = a[base + lane]
    T = type(a0)
    zero = T(0.0)
    one = T(1.0)
    col = wp.vector(length=QR_N, dtype=T)
    col[0] = a0
    for c in range(1, QR_N):
        col[c] = a[base + c * QR_M + lane]
    for k in range(QR_N):
        x = col[k]
        alpha = wp.shfl_sync(FULL, x, k)
        sig = warp_sum(wp.where(lane > k, x * x, zero))
        beta = -wp.copysign(wp.sqrt(alpha * alpha + sig), alpha)
        tk = (beta - alpha) / beta
        scal = one / (alpha - beta)
        v = wp.where(lane > k, x * scal, wp.where(lane == k, one, zero))
        col[k] = wp.where(lane == k, beta, wp.where(lane > k, v, x))
        for j in range(k + 1, QR_N):
            s = warp_sum(v * col[j])
            col[j] = col[j] - tk * s * v
        if lane == k:
            tau[m * QR_N + k] = tk
    for c in range(QR_N):
        a[base + c * QR_M + lane] = col[c]


# ---- Kepler's equation: orbit propagation of a catalogue ---------------------------------------------


@wp.kernel
def kepler_orbit(el: wp.array2d(dtype=wp.float64), t: wp.float64, tol: wp.float64,
                 pos: wp.array(dtype=wp.vec3d), iters: wp.array(dtype=int)):
    """A thread an orbit (elements component-major: mean anomaly at epoch, mean motion,
    eccentricity, semi-major axis, argument of periapsis, inclination, longitude of the
    ascending node): the mean anomaly at time t reduced to [-pi, pi), Kepler's equation
    E - e sin E = M solved by Newton's method from Danby's start M + 0.85 e sign(sin M) until
    the step is below tol (at most KP_ITER steps), then the position in the orbital plane
    rotated by the three angles; fp64."""
    o = wp.tid()
    one = wp.float64(1.0)
    twopi = wp.float64(6.283185307179586)
    m = el[0, o] + el[1, o] * t
    m = m - twopi * wp.floor((m + wp.float64(3.141592653589793)) / twopi)
    e = el[2, o]
    sgn = wp.where(wp.sin(m) >= wp.float64(0.0), one, -one)
    ea = m + wp.float64(0.85) * e * sgn
    count = int(0)
    for it in range(KP_ITER):
        f = ea - e * wp.sin(ea) - m
        fp = one - e * wp.cos(ea)
        de = f / fp
        ea = ea - de
        count = it + 1
        if wp.abs(de) < tol:
            break
    sma = el[3, o]
    xp = sma * (wp.cos(ea) - e)
    yp = sma * wp.sqrt(one - e * e) * wp.sin(ea)
    cw = wp.cos(el[4, o])
    sw = wp.sin(el[4, o])
    ci = wp.cos(el[5, o])
    si = wp.sin(el[5, o])
    cn = wp.cos(el[6, o])
    sn = wp.sin(el[6, o])
    x = (cn * cw - sn * sw * ci) * xp - (cn * sw + sn * cw * ci) * yp
    y = (sn * cw + cn * sw * ci) * xp + (cn * cw * ci - sn * sw) * yp
    z = (sw * si) * xp + (cw * si) * yp
    pos[o] = wp.vec3d(x, y, z)
    iters[o] = count


# ---- Gillespie's direct method on Schlogl's model -----------------------------------------------------


@wp.func
def xorshift64(s: wp.uint64):
    s = s ^ (s >> wp.uint64(12))
    s = s ^ (s << wp.uint64(25))
    s = s ^ (s >> wp.uint64(27))
    return s


@wp.func
def unit64(s: wp.uint64):
    """xorshift64*'s output as a float64 on (0, 1]."""
    r = (s * wp.uint64(0x2545F4914F6CDD1D)) >> wp.uint64(11)
    return (wp.float64(wp.int64(r)) + wp.float64(1.0)) * wp.float64(1.1102230246251565e-16)


@wp.kernel
def ssa_schlogl(x0: wp.array(dtype=int), seed: wp.array(dtype=wp.uint64), k: wp.array(dtype=wp.float64),
                t_end: wp.float64, xout: wp.array(dtype=int), steps: wp.array(dtype=int)):
    """Gillespie's direct method, a thread a trajectory of Schlogl's network (A + 2X -> 3X,
    3X -> A + 2X, B -> X, X -> B, A and B buffered) from x0 until t_end or SSA_MAX events: the
    four propensities (k[0] x (x - 1), k[1] x (x - 1) (x - 2), k[2], k[3] x), the waiting time
    -log(u1) / a0, the reaction picked by u2 a0 against the running sums; two draws of the
    trajectory's xorshift64* generator an event. Bistable: trajectories end near x = 90 or
    x = 560, with about 40 times more events a unit time in the upper state."""
    i = wp.tid()
    x = x0[i]
    s = seed[i]
    k1 = k[0]
    k2 = k[1]
    k3 = k[2]
    k4 = k[3]
    one = wp.float64(1.0)
    tt = wp.float64(0.0)
    n = int(0)
    while n < SSA_MAX:
        xf = wp.float64(x)
        a1 = k1 * xf * (xf - one)
        a2 = k2 * xf * (xf - one) * (xf - wp.float64(2.0))
        a4 = k4 * xf
        a12 = a1 + a2
        a123 = a12 + k3
        a0 = a123 + a4
        s = xorshift64(s)
        u1 = unit64(s)
        s = xorshift64(s)
        u2 = unit64(s)
        tt = tt - wp.log(u1) / a0
        if tt > t_end:
            break
        r = u2 * a0
        if r < a1:
            x = x + 1
        elif r < a12:
            x = x - 1
        elif r < a123:
            x = x + 1
        else:
            x = x - 1
        n = n + 1
    xout[i] = x
    steps[i] = n


# ---- batched polynomial roots: Durand-Kerner and Aberth-Ehrlich ------------------------------------------


@wp.func
def root_start(c: wp.array2d(dtype=float), p: int, k: int):
    """The k-th starting point: on the circle of Fujiwara's bound 2 max |c_(n-j)|^(1/j), at
    angle 2 pi k / n + 0.4."""
    r = float(0.0)
    for j in range(1, RT_DEG + 1):
        r = wp.max(r, wp.pow(wp.abs(c[RT_DEG - j, p]), 1.0 / float(j)))
    r = 2.0 * r
    th = 6.28318531 * float(k) / float(RT_DEG) + 0.4
    return wp.vec2(r * wp.cos(th), r * wp.sin(th))


@wp.func
def cmulf(a: wp.vec2, b: wp.vec2):
    return wp.vec2(a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


@wp.func
def cdivf(a: wp.vec2, b: wp.vec2):
    den = b[0] * b[0] + b[1] * b[1]
    return wp.vec2((a[0] * b[0] + a[1] * b[1]) / den, (a[1] * b[0] - a[0] * b[1]) / den)


@wp.kernel
def roots_dk(c: wp.array2d(dtype=float), tol: float, roots: wp.array2d(dtype=float), iters: wp.array(dtype=int)):
    """The roots of a monic real polynomial of degree RT_DEG (coefficients c[0..n-1, p],
    component-major) a thread, by the Durand-Kerner (Weierstrass) iteration in place:
    z_i -= p(z_i) / prod_(j != i) (z_i - z_j) (Horner for p, complex fp32) for each root in
    turn, sweeps until every correction is below tol relative to 1 + |z_i| or RT_ITER sweeps."""
    p = wp.tid()
    cf = wp.vector(length=RT_DEG, dtype=float)
    zr = wp.vector(length=RT_DEG, dtype=float)
    zi = wp.vector(length=RT_DEG, dtype=float)
    for d in range(RT_DEG):
        cf[d] = c[d, p]
    for k in range(RT_DEG):
        z0 = root_start(c, p, k)
        zr[k] = z0[0]
        zi[k] = z0[1]
    tol2 = tol * tol
    count = int(0)
    for it in range(RT_ITER):
        worst = float(0.0)
        for i in range(RT_DEG):
            z = wp.vec2(zr[i], zi[i])
            pv = wp.vec2(1.0, 0.0)
            for d in range(RT_DEG - 1, -1, -1):
                pv = cmulf(pv, z) + wp.vec2(cf[d], 0.0)
            q = wp.vec2(1.0, 0.0)
            for j in range(RT_DEG):
                if j != i:
                    q = cmulf(q, wp.vec2(zr[i] - zr[j], zi[i] - zi[j]))
            w = cdivf(pv, q)
            zr[i] = zr[i] - w[0]
            zi[i] = zi[i] - w[1]
            worst = wp.max(worst, wp.length_sq(w) / (1.0 + wp.length_sq(z)))
        count = it + 1
        if worst < tol2:
            break
    for k in range(RT_DEG):
        roots[k, p] = zr[k]
        roots[RT_DEG + k, p] = zi[k]
    iters[p] = count


@wp.kernel
def roots_aberth(c: wp.array2d(dtype=float), tol: float, roots: wp.array2d(dtype=float),
                 iters: wp.array(dtype=int)):
    """The same roots by the Aberth-Ehrlich iteration in place: w = p(z_i) / p'(z_i) (Horner
    for both), s = sum_(j != i) 1 / (z_i - z_j), z_i -= w / (1 - w s); the same starting
    points and stopping rule."""
    p = wp.tid()
    cf = wp.vector(length=RT_DEG, dtype=float)
    zr = wp.vector(length=RT_DEG, dtype=float)
    zi = wp.vector(length=RT_DEG, dtype=float)
    for d in range(RT_DEG):
        cf[d] = c[d, p]
    for k in range(RT_DEG):
        z0 = root_start(c, p, k)
        zr[k] = z0[0]
        zi[k] = z0[1]
    tol2 = tol * tol
    count = int(0)
    for it in range(RT_ITER):
        worst = float(0.0)
        for i in range(RT_DEG):
            z = wp.vec2(zr[i], zi[i])
            pv = wp.vec2(1.0, 0.0)
            dv = wp.vec2(0.0, 0.0)
            for d in range(RT_DEG - 1, -1, -1):
                dv = cmulf(dv, z) + pv
                pv = cmulf(pv, z) + wp.vec2(cf[d], 0.0)
            w = cdivf(pv, dv)
            s = wp.vec2(0.0, 0.0)
            for j in range(RT_DEG):
                if j != i:
                    s = s + cdivf(wp.vec2(1.0, 0.0), wp.vec2(zr[i] - zr[j], zi[i] - zi[j]))
            corr = cdivf(w, wp.vec2(1.0, 0.0) - cmulf(w, s))
            zr[i] = zr[i] - corr[0]
            zi[i] = zi[i] - corr[1]
            worst = wp.max(worst, wp.length_sq(corr) / (1.0 + wp.length_sq(z)))
        count = it + 1
        if worst < tol2:
            break
    for k in range(RT_DEG):
        roots[k, p] = zr[k]
        roots[RT_DEG + k, p] = zi[k]
    iters[p] = count


# ---- Sinkhorn-Knopp: entropic optimal transport, batched ---------------------------------------------


@wp.kernel
def sinkhorn_shared(kmat: wp.array(dtype=float), a: wp.array2d(dtype=float), b: wp.array2d(dtype=float),
                    iters: int, uo: wp.array2d(dtype=float), vo: wp.array2d(dtype=float)):
    """Sinkhorn's scaling of a batch of SK_N x SK_N transport problems, a block a problem and
    a thread a row and a column: the Gibbs kernel K = exp(-C / eps) copied into shared memory
    (rows SK_PAD words apart, 37 KB a block), then iters rounds of u = a / (K v) (a thread's row
    of K) and v = b / (K^T u) (a thread's column), u and v in shared memory, a barrier after
    each half."""
    ks = wp.shared.array(shape=(SK_N * SK_PAD,), dtype=float)
    us = wp.shared.array(shape=(SK_N,), dtype=float)
    vs = wp.shared.array(shape=(SK_N,), dtype=float)
    pr = wp.block_idx()
    t = wp.thread_idx()
    base = pr * SK_N * SK_N
    for r in range(SK_N):
        ks[r * SK_PAD + t] = kmat[base + r * SK_N + t]
    vs[t] = 1.0
    ai = a[pr, t]
    bi = b[pr, t]
    wp.sync_threads()
    for it in range(iters):
        s = float(0.0)
        for j in range(SK_N):
            s += ks[t * SK_PAD + j] * vs[j]
        us[t] = ai / s
        wp.sync_threads()
        s = float(0.0)
        for i in range(SK_N):
            s += ks[i * SK_PAD + t] * us[i]
        vs[t] = bi / s
        wp.sync_threads()
    uo[pr, t] = us[t]
    vo[pr, t] = vs[t]


@wp.kernel
def sinkhorn_global(kmat: wp.array(dtype=float), a: wp.array2d(dtype=float), b: wp.array2d(dtype=float),
                    iters: int, uo: wp.array2d(dtype=float), vo: wp.array2d(dtype=float)):
    """The same iteration reading K from global memory every round (a thread's row: words
    SK_N apart across the warp; a thread's column: coalesced), u and v in shared memory."""
    us = wp.shared.array(shape=(SK_N,), dtype=float)
    vs = wp.shared.array(shape=(SK_N,), dtype=float)
    pr = wp.block_idx()
    t = wp.thread_idx()
    base = pr * SK_N * SK_N
    vs[t] = 1.0
    ai = a[pr, t]
    bi = b[pr, t]
    wp.sync_threads()
    for it in range(iters):
        s = float(0.0)
        for j in range(SK_N):
            s += kmat[base + t * SK_N + j] * vs[j]
        us[t] = ai / s
        wp.sync_threads()
        s = float(0.0)
        for i in range(SK_N):
            s += kmat[base + i * SK_N + t] * us[i]
        vs[t] = bi / s
        wp.sync_threads()
    uo[pr, t] = us[t]
    vo[pr, t] = vs[t]


# ---- Stable Fluids (Stam, 1999; CUDA samples fluidsGL): semi-Lagrangian advection ----------------------


@wp.func
def bilerp(f: wp.array2d(dtype=float), i0: int, j0: int, fy: float, fx: float):
    top = f[i0, j0] + fx * (f[i0, j0 + 1] - f[i0, j0])
    bot = f[i0 + 1, j0] + fx * (f[i0 + 1, j0 + 1] - f[i0 + 1, j0])
    return top + fy * (bot - top)


@wp.kernel
def advect_sl(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), q: wp.array2d(dtype=float), dt: float,
              un: wp.array2d(dtype=float), vn: wp.array2d(dtype=float), qn: wp.array2d(dtype=float)):
    """The advection step of Stable Fluids, a thread a cell: the cell's centre traced back
    along its velocity (x - dt u, in cells), clamped to the grid, and the velocity and a dye
    sampled there bilinearly (12 gathered loads, 3 stores)."""
    i, j = wp.tid()
    h = u.shape[0]
    w = u.shape[1]
    x = wp.clamp(float(j) - dt * u[i, j], 0.0, float(w - 1))
    y = wp.clamp(float(i) - dt * v[i, j], 0.0, float(h - 1))
    j0 = wp.min(int(x), w - 2)
    i0 = wp.min(int(y), h - 2)
    fx = x - float(j0)
    fy = y - float(i0)
    un[i, j] = bilerp(u, i0, j0, fy, fx)
    vn[i, j] = bilerp(v, i0, j0, fy, fx)
    qn[i, j] = bilerp(q, i0, j0, fy, fx)


# ---- spiking networks: Izhikevich neurons and spike delivery (GeNN, CARLsim, NEST GPU) -----------------


@wp.kernel
def izh_update(v: wp.array(dtype=float), u: wp.array(dtype=float), cur: wp.array(dtype=float),
               ext: wp.array(dtype=float), prm: wp.array(dtype=wp.vec4), count: wp.array(dtype=int),
               spikes: wp.array(dtype=int)):
    """A 1 ms step of Izhikevich's model a thread a neuron: v integrated in two half steps
    (v += 0.5 (0.04 v^2 + 5 v + 140 - u + I), I the synaptic and external input), u += a (b v -
    u); a neuron at v >= 30 mV is reset (v = c, u += d) and appended to the spike queue by an
    atomic increment of its one counter; the synaptic input is cleared for the next step."""
    n = wp.tid()
    vv = v[n]
    uu = u[n]
    inp = cur[n] + ext[n]
    pm = prm[n]
    vv = vv + 0.5 * (0.04 * vv * vv + 5.0 * vv + 140.0 - uu + inp)
    vv = vv + 0.5 * (0.04 * vv * vv + 5.0 * vv + 140.0 - uu + inp)
    uu = uu + pm[0] * (pm[1] * vv - uu)
    if vv >= 30.0:
        vv = pm[2]
        uu = uu + pm[3]
        slot = wp.atomic_add(count, 0, 1)
        spikes[slot] = n
    v[n] = vv
    u[n] = uu
    cur[n] = 0.0


@wp.kernel
def snn_deliver(spikes: wp.array(dtype=int), post: wp.array(dtype=int), w: wp.array(dtype=float),
                cur: wp.array(dtype=float)):
    """Spike delivery with a fixed fan-out of SN_FAN synapses a neuron (rows of post and w),
    a thread a (spike, synapse): the weight added to the postsynaptic neuron's input by a float
    atomic."""
    t = wp.tid()
    s = t // SN_FAN
    k = t - s * SN_FAN
    row = spikes[s] * SN_FAN + k
    wp.atomic_add(cur, post[row], w[row])
