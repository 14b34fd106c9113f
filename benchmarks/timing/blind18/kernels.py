"""Kernels of the eighteenth blind validation set from numerical methods, finance, signal
processing and machine learning, written in simt from the algorithms: Giles' LIBOR market model
Monte Carlo (a thread a path: 80 forward rates stepped through 40 periods under the spot
measure, then a portfolio of swaptions priced on the path; the rates in the thread's slice of
shared memory); an ensemble of Van der Pol oscillators integrated by Dormand and Prince's
adaptive 5(4) pair in fp64 (a thread a parameter, as GPU ensemble ODE solvers run parameter
sweeps); a batched
Kalman filter for constant-velocity tracks (a thread a track: predict and update, the
innovation's log-likelihood summed, as batched state-space codes evaluate it; fp32 or fp64);
the FIR stage of a polyphase filterbank channeliser (radio astronomy's PFB: a thread an output
reading every tap, or a thread a channel and a run of spectra keeping its taps and the last
inputs in registers); the global assembly of a P1 finite-element stiffness matrix into CSR
(a thread an element scattering its nine entries by float atomics, or a thread a row gathering
from the elements around its vertex, as Cecka, Lew and Darve compare them); product-quantisation
distance scans (Jegou et al.; Faiss's GPU IVF-PQ scan: the query's distance table in shared
memory, a block's best code by warp shuffles, one or four queries a block).

Each is written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/ to ../blind17/) or of the held-out set (../kernels.py, ../cases.py). The kernels
from compression, cryptography, data structures, geometry, image processing and stream
analytics are in kernels_apps.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Where a kernel has variants of element type it is generic
(``typing.Any``) and each launch picks its dtype. Launch shapes and inputs are in
``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = 0xFFFFFFFF

LB_NN = 80              # LIBOR: forward rates (quarterly, 20 years)
LB_NMAT = 40            # LIBOR: time steps simulated (the swaptions' common exercise date)
LB_NOPT = 15            # LIBOR: swaptions in the portfolio
LB_BLOCK = 128          # LIBOR: threads a block (each with LB_NN rates of shared memory)
DP_MAXSTEPS = 20000     # Dormand-Prince: step attempts at most
PFB_P = 16              # polyphase filterbank: taps a channel
PFB_SEG = 64            # polyphase filterbank: spectra a thread (the register-ring kernel)
FEM_ROW = 7             # P1 assembly: entries a row at most (the mesh's vertices have 6 neighbours)
PQ_M = 8                # product quantisation: sub-quantisers (bytes a code)
PQ_K = 256              # product quantisation: centroids a sub-quantiser
PQ_LUT = PQ_M * PQ_K    # product quantisation: a query's distance table
PQ_BLOCK = 256          # product quantisation: threads a block
PQ_WARPS = PQ_BLOCK // 32
PQ_QB = 4               # product quantisation: queries a block (the four-query kernel)


# ---- Giles' LIBOR market model Monte Carlo ------------------------------------------------------------


@wp.kernel
def libor_path(z: wp.array2d(dtype=float), lam: wp.array(dtype=float), l0: wp.array(dtype=float),
               mat: wp.array(dtype=int), strike: wp.array(dtype=float), delta: float,
               value: wp.array(dtype=float)):
    """One path of the LIBOR market model a thread (LB_BLOCK threads a block): the LB_NN forward
    rates, kept in the thread's slice of shared memory (rate i of thread t at i LB_BLOCK + t,
    40 KB a block), stepped LB_NMAT times under the spot measure, the step n moving each rate
    i > n by the drift accumulated over the rates before it (v += delta lam L / (1 + delta L))
    and the period's normal z[n, path] (log-normal: L *= exp(delta lam v + lam (sqrt(delta) z -
    delta lam / 2))), lam[i - n - 1] the volatility by time to fixing; then, at the exercise
    date, the discount factors and annuities of the remaining rates, a portfolio of LB_NOPT
    payer swaptions (tenor mat[k] periods, ascending; strike strike[k]; notional 100) and its
    value discounted along the path."""
    rate = wp.shared.array(shape=(LB_NN * LB_BLOCK,), dtype=float)
    p = wp.tid()
    t = wp.thread_idx()
    for i in range(LB_NN):
        rate[i * LB_BLOCK + t] = l0[i]
    sd = wp.sqrt(delta)
    for n in range(LB_NMAT):
        sq = sd * z[n, p]
        v = float(0.0)
        for i in range(n + 1, LB_NN):
            lm = lam[i - n - 1]
            c1 = delta * lm
            li = rate[i * LB_BLOCK + t]
            v += c1 * li / (1.0 + delta * li)
            rate[i * LB_BLOCK + t] = li * wp.exp(c1 * v + lm * (sq - 0.5 * c1))
    b = float(1.0)
    s = float(0.0)
    val = float(0.0)
    k = int(0)
    for n in range(LB_NMAT, LB_NN):
        b = b / (1.0 + delta * rate[n * LB_BLOCK + t])
        s += delta * b
        while k < LB_NOPT and mat[k] == n - LB_NMAT + 1:
            sv = b + strike[k] * s - 1.0
            if sv < 0.0:
                val -= 100.0 * sv
            k += 1
    for n in range(LB_NMAT):
        val = val / (1.0 + delta * rate[n * LB_BLOCK + t])
    value[p] = val


# ---- Dormand-Prince 5(4) on an ensemble of Van der Pol oscillators -------------------------------------

# The Dormand-Prince tableau (c, a) and the weights of the fifth-order solution b; DP_E are b
# minus the fourth-order weights (the error estimate's).
DP_A21 = 1.0 / 5.0
DP_A31, DP_A32 = 3.0 / 40.0, 9.0 / 40.0
DP_A41, DP_A42, DP_A43 = 44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0
DP_A51, DP_A52, DP_A53, DP_A54 = 19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0
DP_A61, DP_A62, DP_A63, DP_A64, DP_A65 = (9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0,
                                          -5103.0 / 18656.0)
DP_B1, DP_B3, DP_B4, DP_B5, DP_B6 = 35.0 / 384.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0
DP_E1, DP_E3, DP_E4, DP_E5, DP_E6, DP_E7 = (71.0 / 57600.0, -71.0 / 16695.0, 71.0 / 1920.0,
                                            -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0)


@wp.func
def vdp_f1(y1: wp.float64, y2: wp.float64, mu: wp.float64):
    """The Van der Pol oscillator's second equation: y2' = mu (1 - y1^2) y2 - y1 (y1' = y2)."""
    return mu * (wp.float64(1.0) - y1 * y1) * y2 - y1


@wp.kernel
def dopri5_vdp(mu: wp.array(dtype=wp.float64), t_end: wp.float64, tol: wp.float64,
               y_out: wp.array2d(dtype=wp.float64), steps: wp.array(dtype=int)):
    """The Van der Pol oscillator y1' = y2, y2' = mu (1 - y1^2) y2 - y1 from (2, 0) to t_end, a
    thread a mu, by the Dormand-Prince 5(4) pair: seven stages (the last one the next step's
    first), the error of the embedded fourth-order solution in the RMS norm scaled by tol (1 +
    max |y|), a step accepted when that is at most 1, the next step h 0.9 err^(-1/5) (at most 5
    times larger, at least 5 times smaller), the last one cut to end at t_end. The state at
    t_end and the number of steps tried are stored."""
    i = wp.tid()
    m = mu[i]
    one = wp.float64(1.0)
    y1 = wp.float64(2.0)
    y2 = wp.float64(0.0)
    k1a = y2
    k1b = vdp_f1(y1, y2, m)
    t = wp.float64(0.0)
    h = wp.float64(1.0e-3)
    n = int(0)
    while t < t_end and n < DP_MAXSTEPS:
        if h > t_end - t:
            h = t_end - t
        u1 = y1 + h * (DP_A21 * k1a)
        u2 = y2 + h * (DP_A21 * k1b)
        k2a = u2
        k2b = vdp_f1(u1, u2, m)
        u1 = y1 + h * (DP_A31 * k1a + DP_A32 * k2a)
        u2 = y2 + h * (DP_A31 * k1b + DP_A32 * k2b)
        k3a = u2
        k3b = vdp_f1(u1, u2, m)
        u1 = y1 + h * (DP_A41 * k1a + DP_A42 * k2a + DP_A43 * k3a)
        u2 = y2 + h * (DP_A41 * k1b + DP_A42 * k2b + DP_A43 * k3b)
        k4a = u2
        k4b = vdp_f1(u1, u2, m)
        u1 = y1 + h * (DP_A51 * k1a + DP_A52 * k2a + DP_A53 * k3a + DP_A54 * k4a)
        u2 = y2 + h * (DP_A51 * k1b + DP_A52 * k2b + DP_A53 * k3b + DP_A54 * k4b)
        k5a = u2
        k5b = vdp_f1(u1, u2, m)
        u1 = y1 + h * (DP_A61 * k1a + DP_A62 * k2a + DP_A63 * k3a + DP_A64 * k4a + DP_A65 * k5a)
        u2 = y2 + h * (DP_A61 * k1b + DP_A62 * k2b + DP_A63 * k3b + DP_A64 * k4b + DP_A65 * k5b)
        k6a = u2
        k6b = vdp_f1(u1, u2, m)
        n1 = y1 + h * (DP_B1 * k1a + DP_B3 * k3a + DP_B4 * k4a + DP_B5 * k5a + DP_B6 * k6a)
        n2 = y2 + h * (DP_B1 * k1b + DP_B3 * k3b + DP_B4 * k4b + DP_B5 * k5b + DP_B6 * k6b)
        k7a = n2
        k7b = vdp_f1(n1, n2, m)
        e1 = h * (DP_E1 * k1a + DP_E3 * k3a + DP_E4 * k4a + DP_E5 * k5a + DP_E6 * k6a + DP_E7 * k7a)
        e2 = h * (DP_E1 * k1b + DP_E3 * k3b + DP_E4 * k4b + DP_E5 * k5b + DP_E6 * k6b + DP_E7 * k7b)
        s1 = e1 / (tol * (one + wp.max(wp.abs(y1), wp.abs(n1))))
        s2 = e2 / (tol * (one + wp.max(wp.abs(y2), wp.abs(n2))))
        err = wp.sqrt(wp.float64(0.5) * (s1 * s1 + s2 * s2))
        n += 1
        fac = wp.float64(5.0)
        if err > wp.float64(0.0):
            fac = wp.min(wp.float64(5.0), wp.max(wp.float64(0.2), wp.float64(0.9) * wp.pow(err, wp.float64(-0.2))))
        if err <= one:
            t = t + h
            y1 = n1
            y2 = n2
            k1a = k7a
            k1b = k7b
        else:
            fac = wp.min(fac, one)
        h = h * fac
    y_out[i, 0] = y1
    y_out[i, 1] = y2
    steps[i] = n


# ---- a batched Kalman filter (constant-velocity tracks) ------------------------------------------------


@wp.kernel
def kalman_cv(z: wp.array(dtype=Any), par: wp.array(dtype=Any), nt: int, xout: wp.array(dtype=Any),
              loglik: wp.array(dtype=Any)):
    """The Kalman filter of a track a thread over nt noisy 2-D positions (time-major: position t
    of track k at z[2 (t ntracks + k)], y beside x): the state (x, y, vx, vy) of a constant-velocity
    model with white-noise acceleration (spectral density q), positions measured with variance
    r, started from the first position (variances p0 and pv0); each step predicts (x += dt v, P
    = F P F^T + Q), then updates from the position (innovation, its 2 x 2 covariance S inverted
    directly, gain K = P H^T S^-1, P -= K H P, symmetric: ten entries) and adds the innovation's
    Gaussian log-likelihood. par = (dt, q, r, p0, pv0); the final state and the log-likelihood
    are stored; generic in the float type."""
    k = wp.tid()
    ntr = loglik.shape[0]
    dt = par[0]
    T = type(dt)
    q = par[1]
    r = par[2]
    q33 = q * dt * dt * dt / T(3.0)
    q22 = q * dt * dt / T(2.0)
    q11 = q * dt
    half = T(0.5)
    l2pi = T(1.8378770664093453)
    x0 = z[2 * k]
    x1 = z[2 * k + 1]
    x2 = T(0.0)
    x3 = T(0.0)
    p00 = par[3]
    p01 = T(0.0)
    p02 = T(0.0)
    p03 = T(0.0)
    p11 = par[3]
    p12 = T(0.0)
    p13 = T(0.0)
    p22 = par[4]
    p23 = T(0.0)
    p33 = par[4]
    ll = T(0.0)
    for t in range(1, nt):
        # predict
        x0 = x0 + dt * x2
        x1 = x1 + dt * x3
        a00 = p00 + dt * (T(2.0) * p02 + dt * p22) + q33
        a01 = p01 + dt * (p03 + p12 + dt * p23)
        a02 = p02 + dt * p22 + q22
        a03 = p03 + dt * p23
        a11 = p11 + dt * (T(2.0) * p13 + dt * p33) + q33
        a12 = p12 + dt * p23
        a13 = p13 + dt * p33 + q22
        a22 = p22 + q11
        a23 = p23
        a33 = p33 + q11
        # update from the measured position
        o = 2 * (t * ntr + k)
        v0 = z[o] - x0
        v1 = z[o + 1] - x1
        s00 = a00 + r
        s11 = a11 + r
        det = s00 * s11 - a01 * a01
        idet = T(1.0) / det
        i00 = s11 * idet
        i01 = -a01 * idet
        i11 = s00 * idet
        g00 = a00 * i00 + a01 * i01
        g01 = a00 * i01 + a01 * i11
        g10 = a01 * i00 + a11 * i01
        g11 = a01 * i01 + a11 * i11
        g20 = a02 * i00 + a12 * i01
        g21 = a02 * i01 + a12 * i11
        g30 = a03 * i00 + a13 * i01
        g31 = a03 * i01 + a13 * i11
        x0 = x0 + g00 * v0 + g01 * v1
        x1 = x1 + g10 * v0 + g11 * v1
        x2 = x2 + g20 * v0 + g21 * v1
        x3 = x3 + g30 * v0 + g31 * v1
        p00 = a00 - g00 * a00 - g01 * a01
        p01 = a01 - g00 * a01 - g01 * a11
        p02 = a02 - g00 * a02 - g01 * a12
        p03 = a03 - g00 * a03 - g01 * a13
        p11 = a11 - g10 * a01 - g11 * a11
        p12 = a12 - g10 * a02 - g11 * a12
        p13 = a13 - g10 * a03 - g11 * a13
        p22 = a22 - g20 * a02 - g21 * a12
        p23 = a23 - g20 * a03 - g21 * a13
        p33 = a33 - g30 * a03 - g31 * a13
        ll = ll - half * (wp.log(det) + v0 * (i00 * v0 + i01 * v1) + v1 * (i01 * v0 + i11 * v1)) - l2pi
    xout[4 * k] = x0
    xout[4 * k + 1] = x1
    xout[4 * k + 2] = x2
    xout[4 * k + 3] = x3
    loglik[k] = ll


# ---- the FIR stage of a polyphase filterbank -------------------------------------------------------------


@wp.kernel
def pfb_direct(x: wp.array(dtype=float), h: wp.array(dtype=float), nch: int, y: wp.array(dtype=float)):
    """The polyphase FIR of a channeliser, a thread an output: y[s, c] = sum over the PFB_P
    taps p of h[p nch + c] x[(s + p) nch + c] (the prototype filter's taps and the input
    samples both read for every output; spectra of nch channels, row-major)."""
    i = wp.tid()
    s = i // nch
    c = i - s * nch
    acc = float(0.0)
    for p in range(PFB_P):
        acc += h[p * nch + c] * x[(s + p) * nch + c]
    y[i] = acc


@wp.kernel
def pfb_ring(x: wp.array(dtype=float), h: wp.array(dtype=float), nch: int, y: wp.array(dtype=float)):
    """The same FIR with a thread a channel and PFB_SEG consecutive spectra: its PFB_P taps
    held in registers, the last PFB_P inputs in a ring of registers (shifted by one a
    spectrum), so that every input is read once."""
    i = wp.tid()
    g = i // nch
    c = i - g * nch
    s0 = g * PFB_SEG
    taps = wp.vector(length=PFB_P, dtype=float)
    ring = wp.vector(length=PFB_P, dtype=float)
    for p in range(PFB_P):
        taps[p] = h[p * nch + c]
    for p in range(PFB_P - 1):
        ring[p + 1] = x[(s0 + p) * nch + c]
    for s in range(PFB_SEG):
        for p in range(PFB_P - 1):
            ring[p] = ring[p + 1]
        ring[PFB_P - 1] = x[(s0 + s + PFB_P - 1) * nch + c]
        acc = float(0.0)
        for p in range(PFB_P):
            acc += taps[p] * ring[p]
        y[(s0 + s) * nch + c] = acc


# ---- P1 finite-element assembly into CSR -----------------------------------------------------------------


@wp.func
def p1_grads(a: wp.vec2, b: wp.vec2, c: wp.vec2, kap: float):
    """The gradients' parts of a P1 triangle's stiffness (Laplacian, coefficient kap): K_ij =
    (gx_i gx_j + gy_i gy_j) s, returned as (gx, gy, s) with gx = (b.y - c.y, c.y - a.y, a.y -
    b.y), gy = (c.x - b.x, a.x - c.x, b.x - a.x) and s = kap / (2 det)."""
    gx = wp.vec3(b[1] - c[1], c[1] - a[1], a[1] - b[1])
    gy = wp.vec3(c[0] - b[0], a[0] - c[0], b[0] - a[0])
    det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
    return gx, gy, kap / (2.0 * det)


@wp.kernel
def fem_assemble_elem(xy: wp.array(dtype=wp.vec2), tri: wp.array2d(dtype=int), kappa: wp.array(dtype=float),
                      row_ptr: wp.array(dtype=int), col: wp.array(dtype=int), vals: wp.array(dtype=float)):
    """The stiffness matrix of P1 elements assembled by element, a thread a triangle: its 3 x 3
    matrix from the vertices' coordinates, each entry (a, b) added by a float atomic to the CSR
    value whose column is vertex b in vertex a's row (found by a search along the row)."""
    e = wp.tid()
    v0 = tri[e, 0]
    v1 = tri[e, 1]
    v2 = tri[e, 2]
    gx, gy, s = p1_grads(xy[v0], xy[v1], xy[v2], kappa[e])
    vs = wp.vec3i(v0, v1, v2)
    for a in range(3):
        r0 = row_ptr[vs[a]]
        r1 = row_ptr[vs[a] + 1]
        for b in range(3):
            cb = vs[b]
            k = r0
            while k < r1 and col[k] != cb:
                k += 1
            wp.atomic_add(vals, k, (gx[a] * gx[b] + gy[a] * gy[b]) * s)


@wp.kernel
def fem_assemble_row(xy: wp.array(dtype=wp.vec2), tri: wp.array2d(dtype=int), kappa: wp.array(dtype=float),
                     row_ptr: wp.array(dtype=int), col: wp.array(dtype=int), v2e_ptr: wp.array(dtype=int),
                     v2e: wp.array(dtype=int), vals: wp.array(dtype=float)):
    """The same matrix assembled by row, a thread a vertex: the triangles around it (v2e: 3
    e + the vertex's corner in e) each recomputed, the row of their matrices added into the
    row's entries (at most FEM_ROW, in registers) and stored once; no atomics."""
    v = wp.tid()
    r0 = row_ptr[v]
    nr = row_ptr[v + 1] - r0
    cols = wp.vector(length=FEM_ROW, dtype=int)
    acc = wp.vector(length=FEM_ROW, dtype=float)
    for j in range(FEM_ROW):
        cols[j] = -1
        if j < nr:
            cols[j] = col[r0 + j]
    for q in range(v2e_ptr[v], v2e_ptr[v + 1]):
        ent = v2e[q]
        e = ent // 3
        a = ent - 3 * e
        vs = wp.vec3i(tri[e, 0], tri[e, 1], tri[e, 2])
        gx, gy, s = p1_grads(xy[vs[0]], xy[vs[1]], xy[vs[2]], kappa[e])
        for b in range(3):
            kab = (gx[a] * gx[b] + gy[a] * gy[b]) * s
            for j in range(FEM_ROW):
                if cols[j] == vs[b]:
                    acc[j] += kab
    for j in range(FEM_ROW):
        if j < nr:
            vals[r0 + j] = acc[j]


# ---- product-quantisation distance scans (IVF-PQ's list scan) ---------------------------------------------


@wp.func
def pq_better(d: float, i: int, od: float, oi: int):
    """Whether (od, oi) beats (d, i): a smaller distance, or the same one at a smaller index."""
    return od < d or (od == d and oi < i)


@wp.kernel
def pq_scan_q1(codes: wp.array2d(dtype=wp.uint32), lut: wp.array(dtype=float), nchunk: int,
               best_d: wp.array(dtype=float), best_i: wp.array(dtype=int)):
    """The asymmetric distances of a query to a chunk of PQ codes (PQ_M bytes each, two words),
    a block a (query, chunk): the query's table of PQ_M x PQ_K distances copied into shared
    memory, then a thread a code at a time, the distance the sum of PQ_M table entries picked
    by the code's bytes; the thread's nearest code, then the block's by five butterfly shuffles
    a warp and the warps' results in shared memory (ties to the smaller index)."""
    tab = wp.shared.array(shape=(PQ_LUT,), dtype=float)
    wd = wp.shared.array(shape=(PQ_WARPS,), dtype=float)
    wi = wp.shared.array(shape=(PQ_WARPS,), dtype=int)
    blk = wp.block_idx()
    t = wp.thread_idx()
    q = blk // nchunk
    ch = blk - q * nchunk
    for k in range(PQ_M):
        tab[k * PQ_K + t] = lut[q * PQ_LUT + k * PQ_K + t]
    wp.sync_threads()
    size = codes.shape[0] // nchunk
    bd = float(3.0e38)
    bi = int(-1)
    for c in range(ch * size + t, (ch + 1) * size, PQ_BLOCK):
        w0 = codes[c, 0]
        w1 = codes[c, 1]
        d = float(0.0)
        for k in range(4):
            d += tab[k * PQ_K + int((w0 >> wp.uint32(8 * k)) & wp.uint32(255))]
        for k in range(4):
            d += tab[(k + 4) * PQ_K + int((w1 >> wp.uint32(8 * k)) & wp.uint32(255))]
        if d < bd:
            bd = d
            bi = c
    for o in range(5):
        od = wp.shfl_xor_sync(FULL, bd, 16 >> o)
        oi = wp.shfl_xor_sync(FULL, bi, 16 >> o)
        if pq_better(bd, bi, od, oi):
            bd = od
            bi = oi
    if (t & 31) == 0:
        wd[t >> 5] = bd
        wi[t >> 5] = bi
    wp.sync_threads()
    if t == 0:
        for w in range(1, PQ_WARPS):
            if pq_better(bd, bi, wd[w], wi[w]):
                bd = wd[w]
                bi = wi[w]
        best_d[blk] = bd
        best_i[blk] = bi


@wp.kernel
def pq_scan_q4(codes: wp.array2d(dtype=wp.uint32), lut: wp.array(dtype=float), nchunk: int,
               best_d: wp.array(dtype=float), best_i: wp.array(dtype=int)):
    """The same scan for PQ_QB queries a block: their PQ_QB tables in shared memory (32 KB), each
    code read once and its bytes taken out once for the PQ_QB distances; a nearest code a query
    kept by each thread and reduced as in pq_scan_q1; results at (query, chunk) as there."""
    tab = wp.shared.array(shape=(PQ_QB * PQ_LUT,), dtype=float)
    wd = wp.shared.array(shape=(PQ_QB * PQ_WARPS,), dtype=float)
    wi = wp.shared.array(shape=(PQ_QB * PQ_WARPS,), dtype=int)
    blk = wp.block_idx()
    t = wp.thread_idx()
    g = blk // nchunk
    ch = blk - g * nchunk
    for k in range(PQ_QB * PQ_M):
        tab[k * PQ_K + t] = lut[g * PQ_QB * PQ_LUT + k * PQ_K + t]
    wp.sync_threads()
    size = codes.shape[0] // nchunk
    bd = wp.vector(length=PQ_QB, dtype=float)
    bi = wp.vector(length=PQ_QB, dtype=int)
    for qq in range(PQ_QB):
        bd[qq] = 3.0e38
        bi[qq] = -1
    off = wp.vector(length=PQ_M, dtype=int)
    for c in range(ch * size + t, (ch + 1) * size, PQ_BLOCK):
        w0 = codes[c, 0]
        w1 = codes[c, 1]
        for k in range(4):
            off[k] = k * PQ_K + int((w0 >> wp.uint32(8 * k)) & wp.uint32(255))
            off[k + 4] = (k + 4) * PQ_K + int((w1 >> wp.uint32(8 * k)) & wp.uint32(255))
        for qq in range(PQ_QB):
            d = float(0.0)
            for k in range(PQ_M):
                d += tab[qq * PQ_LUT + off[k]]
            if d < bd[qq]:
                bd[qq] = d
                bi[qq] = c
    for qq in range(PQ_QB):
        md = bd[qq]
        mi = bi[qq]
        for o in range(5):
            od = wp.shfl_xor_sync(FULL, md, 16 >> o)
            oi = wp.shfl_xor_sync(FULL, mi, 16 >> o)
            if pq_better(md, mi, od, oi):
                md = od
                mi = oi
        if (t & 31) == 0:
            wd[qq * PQ_WARPS + (t >> 5)] = md
            wi[qq * PQ_WARPS + (t >> 5)] = mi
    wp.sync_threads()
    if t < PQ_QB:
        md = wd[t * PQ_WARPS]
        mi = wi[t * PQ_WARPS]
        for w in range(1, PQ_WARPS):
            if pq_better(md, mi, wd[t * PQ_WARPS + w], wi[t * PQ_WARPS + w]):
                md = wd[t * PQ_WARPS + w]
                mi = wi[t * PQ_WARPS + w]
        o = (g * PQ_QB + t) * nchunk + ch
        best_d[o] = md
        best_i[o] = mi
