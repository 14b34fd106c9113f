"""Kernels of the sixteenth blind validation set from scientific computing, numerical methods
and signal processing, written in simt from the algorithms: Hodgkin-Huxley neurons stepped by
exponential Euler (the rates from their exponentials, or interpolated in voltage tables as
NEURON and GENESIS do); the E-step of a Gaussian mixture model (scikit-learn's and cuML's
log-responsibilities through Cholesky factors of the precisions, a log-sum-exp a point; fp64
and fp32); chi-square p-values by the regularised upper incomplete gamma function (Numerical
Recipes' series and Lentz continued fraction, as GPU association-study codes evaluate them;
fp64); a one-qubit gate applied to a state vector (the kernel of state-vector quantum-circuit
simulators such as qsim and cuStateVec); incoherent dedispersion of a filterbank (radio
transient searches, Barsdell's dedisp: the sum over channels along each dispersion measure's
delays); dynamic time warping of a query against many candidate series (GPU subsequence
search: a thread a candidate, its column of the cost matrix in shared memory, thread-major or
interleaved).

Each is written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/ to ../blind15/) or of the held-out set (../kernels.py, ../cases.py). The kernels
from genetics, graphics, physics engines, space-filling curves and hashing are in
kernels_apps.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Where a kernel has variants of element type it is generic
(``typing.Any``) and each launch picks its dtype. Launch shapes and inputs are in
``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

HH_GNA = 120.0          # Hodgkin-Huxley: maximal sodium conductance (mS / cm^2)
HH_GK = 36.0            # potassium
HH_GL = 0.3             # leak
HH_ENA = 50.0           # reversal potentials (mV)
HH_EK = -77.0
HH_EL = -54.387
HH_TV0 = -100.0         # HH tables: first voltage (mV)
HH_TDV = 0.1            # HH tables: voltage step (mV)
HH_TN = 1601            # HH tables: rows (-100 to +60 mV)
GM_K = 16               # Gaussian mixture: components
GM_D = 4                # Gaussian mixture: dimensions
GM_U = GM_D * (GM_D + 1) // 2   # entries of an upper-triangular Cholesky factor, packed by rows
IG_EPS = 1.0e-15        # incomplete gamma: relative tolerance
IG_FPMIN = 1.0e-300     # incomplete gamma: Lentz's floor
IG_MAXIT = 1000         # incomplete gamma: terms at most
DTW_Q = 64              # dynamic time warping: query length (rows of the cost matrix)
DTW_C = 48              # dynamic time warping: candidate length (columns)
DTW_BLOCK = 128         # dynamic time warping: threads a block (a candidate each)


# ---- Hodgkin-Huxley neurons, exponential Euler (NEURON's cnexp, GENESIS, GPU network simulators) ----


@wp.func
def vtrap(x: float):
    """x / (1 - exp(-x)), its limit 1 + x / 2 near 0."""
    r = float(0.0)
    if wp.abs(x) < 1.0e-4:
        r = 1.0 + 0.5 * x
    else:
        r = x / (1.0 - wp.exp(-x))
    return r


@wp.func
def hh_current(v: float, m: float, h: float, n: float, iext: float):
    """dV/dt (C = 1 uF / cm^2): the external current less the sodium, potassium and leak
    currents."""
    m3 = m * m * m
    n2 = n * n
    return (iext - HH_GNA * m3 * h * (v - HH_ENA) - HH_GK * n2 * n2 * (v - HH_EK)
            - HH_GL * (v - HH_EL))


@wp.kernel
def hh_exp(v: wp.array(dtype=float), m: wp.array(dtype=float), h: wp.array(dtype=float),
           n: wp.array(dtype=float), iext: wp.array(dtype=float), nsub: int, dt: float):
    """nsub steps of dt of Hodgkin and Huxley's squid axon a thread a neuron: the six rate
    functions of V from their exponentials, each gate x moved to x_inf = a / (a + b) by the
    factor 1 - exp(-dt (a + b)) (exponential Euler), then V by forward Euler with the new
    gates (nine exponentials a step)."""
    i = wp.tid()
    vv = v[i]
    mm = m[i]
    hh = h[i]
    nn = n[i]
    ie = iext[i]
    for s in range(nsub):
        am = vtrap((vv + 40.0) * 0.1)
        bm = 4.0 * wp.exp(-(vv + 65.0) * (1.0 / 18.0))
        ah = 0.07 * wp.exp(-(vv + 65.0) * 0.05)
        bh = 1.0 / (1.0 + wp.exp(-(vv + 35.0) * 0.1))
        an = 0.1 * vtrap((vv + 55.0) * 0.1)
        bn = 0.125 * wp.exp(-(vv + 65.0) * 0.0125)
        sm = am + bm
        sh = ah + bh
        sn = an + bn
        mm = mm + (1.0 - wp.exp(-dt * sm)) * (am / sm - mm)
        hh = hh + (1.0 - wp.exp(-dt * sh)) * (ah / sh - hh)
        nn = nn + (1.0 - wp.exp(-dt * sn)) * (an / sn - nn)
        vv = vv + dt * hh_current(vv, mm, hh, nn, ie)
    v[i] = vv
    m[i] = mm
    h[i] = hh
    n[i] = nn


@wp.kernel
def hh_table(v: wp.array(dtype=float), m: wp.array(dtype=float), h: wp.array(dtype=float),
             n: wp.array(dtype=float), iext: wp.array(dtype=float), nsub: int, dt: float,
             tab: wp.array2d(dtype=float)):
    """The same steps with the gates' factors and steady states tabulated for this dt (rows
    of HH_TDV mV from HH_TV0: 1 - exp(-dt (a + b)) and a / (a + b) for m, h and n, six floats
    a row), interpolated linearly in V (twelve table loads a step), as NEURON's and GENESIS'
    rate tables do; V clamped to the table."""
    i = wp.tid()
    vv = v[i]
    mm = m[i]
    hh = h[i]
    nn = n[i]
    ie = iext[i]
    top = float(HH_TN - 1) - 0.001
    for s in range(nsub):
        x = wp.clamp((vv - HH_TV0) * (1.0 / HH_TDV), 0.0, top)
        r = int(x)
        f = x - float(r)
        g = 1.0 - f
        fm = g * tab[r, 0] + f * tab[r + 1, 0]
        im = g * tab[r, 1] + f * tab[r + 1, 1]
        fh = g * tab[r, 2] + f * tab[r + 1, 2]
        ih = g * tab[r, 3] + f * tab[r + 1, 3]
        fn = g * tab[r, 4] + f * tab[r + 1, 4]
        inn = g * tab[r, 5] + f * tab[r + 1, 5]
        mm = mm + fm * (im - mm)
        hh = hh + fh * (ih - hh)
        nn = nn + fn * (inn - nn)
        vv = vv + dt * hh_current(vv, mm, hh, nn, ie)
    v[i] = vv
    m[i] = mm
    h[i] = hh
    n[i] = nn


# ---- Gaussian mixture model: the E-step (scikit-learn, cuML) ----------------------------------------


@wp.kernel
def gmm_estep(x: wp.array2d(dtype=Any), mu: wp.array2d(dtype=Any), uch: wp.array2d(dtype=Any),
              cst: wp.array(dtype=Any), resp: wp.array2d(dtype=Any), loglik: wp.array(dtype=Any)):
    """The E-step of a GM_K-component Gaussian mixture in GM_D dimensions, a thread a point:
    for each component y = (x - mu_k) U_k with U_k the upper Cholesky factor of its precision
    (packed by rows), log p_k = cst_k - |y|^2 / 2 (cst_k = log pi_k + log det U_k -
    D log(2 pi) / 2); the point's log-likelihood by a log-sum-exp and the responsibilities
    exp(log p_k - log-likelihood) stored as a row; generic in the float type."""
    p = wp.tid()
    x0 = x[p, 0]
    T = type(x0)
    half = T(0.5)
    xs = wp.vector(length=GM_D, dtype=T)
    xs[0] = x0
    for d in range(1, GM_D):
        xs[d] = x[p, d]
    lp = wp.vector(length=GM_K, dtype=T)
    best = T(-3.0e38)
    for k in range(GM_K):
        dx = wp.vector(length=GM_D, dtype=T)
        for d in range(GM_D):
            dx[d] = xs[d] - mu[k, d]
        q = T(0.0)
        u = int(0)
        for c in range(GM_D):          # y_c = sum_(r <= c) dx_r U[r, c]; packed row r: U[r, r..D-1]
            y = T(0.0)
            for r in range(c + 1):
                y = y + dx[r] * uch[k, r * GM_D - (r * (r - 1)) // 2 + (c - r)]
            q = q + y * y
        l = cst[k] - half * q
        lp[k] = l
        best = wp.max(best, l)
    s = T(0.0)
    for k in range(GM_K):
        s = s + wp.exp(lp[k] - best)
    ll = best + wp.log(s)
    for k in range(GM_K):
        resp[p, k] = wp.exp(lp[k] - ll)
    loglik[p] = ll


# ---- chi-square p-values: the regularised upper incomplete gamma function (fp64) --------------------


@wp.func
def lgamma_lanczos(a: wp.float64):
    """log Gamma(a) for a > 0 by Lanczos' approximation (g = 5, six terms, as Numerical
    Recipes' gammln)."""
    one = wp.float64(1.0)
    x = a
    y = a
    tmp = x + wp.float64(5.5)
    tmp = tmp - (x + wp.float64(0.5)) * wp.log(tmp)
    ser = wp.float64(1.000000000190015)
    y = y + one
    ser = ser + wp.float64(76.18009172947146) / y
    y = y + one
    ser = ser - wp.float64(86.50532032941677) / y
    y = y + one
    ser = ser + wp.float64(24.01409824083091) / y
    y = y + one
    ser = ser - wp.float64(1.231739572450155) / y
    y = y + one
    ser = ser + wp.float64(0.1208650973866179e-2) / y
    y = y + one
    ser = ser - wp.float64(0.5395239384953e-5) / y
    return -tmp + wp.log(wp.float64(2.5066282746310005) * ser / x)


@wp.kernel
def gammq_chi2(stat: wp.array(dtype=wp.float64), df: wp.array(dtype=wp.float64),
               pval: wp.array(dtype=wp.float64), terms: wp.array(dtype=int)):
    """The p-value of a chi-square statistic with df degrees of freedom, a thread a test:
    Q(a, x) with a = df / 2, x = stat / 2; below x = a + 1 by the series of P (1 - P), above
    by Lentz's continued fraction for Q (two divisions a term), each until a term changes the
    result by less than IG_EPS; the prefactor exp(-x + a log x - log Gamma(a)). The number of
    terms is stored beside."""
    i = wp.tid()
    one = wp.float64(1.0)
    a = wp.float64(0.5) * df[i]
    x = wp.float64(0.5) * stat[i]
    gln = lgamma_lanczos(a)
    q = wp.float64(0.0)
    cnt = int(0)
    if x <= wp.float64(0.0):
        q = one
    elif x < a + one:
        ap = a
        dl = one / a
        sm = dl
        for it in range(IG_MAXIT):
            ap = ap + one
            dl = dl * x / ap
            sm = sm + dl
            cnt = it + 1
            if wp.abs(dl) < wp.abs(sm) * wp.float64(IG_EPS):
                break
        q = one - sm * wp.exp(-x + a * wp.log(x) - gln)
    else:
        b = x + one - a
        c = one / wp.float64(IG_FPMIN)
        d = one / b
        hh = d
        for it in range(1, IG_MAXIT + 1):
            an = -wp.float64(it) * (wp.float64(it) - a)
            b = b + wp.float64(2.0)
            d = an * d + b
            if wp.abs(d) < wp.float64(IG_FPMIN):
                d = wp.float64(IG_FPMIN)
            c = b + an / c
            if wp.abs(c) < wp.float64(IG_FPMIN):
                c = wp.float64(IG_FPMIN)
            d = one / d
            de = d * c
            hh = hh * de
            cnt = it
            if wp.abs(de - one) < wp.float64(IG_EPS):
                break
        q = wp.exp(-x + a * wp.log(x) - gln) * hh
    pval[i] = q
    terms[i] = cnt


# ---- state-vector quantum simulation: a one-qubit gate (qsim, cuStateVec) -----------------------------


@wp.kernel
def qsim_gate1(psi: wp.array(dtype=wp.vec2), g: wp.array(dtype=wp.vec2), q: int):
    """A 2 x 2 complex gate (row-major, g[0..3]) on qubit q of a state vector of complex64
    amplitudes, in place, a thread a pair: the thread's index with a zero bit inserted at q
    gives the amplitude whose bit q is 0, its partner has it set; both are loaded, mixed and
    stored."""
    k = wp.tid()
    lo = k & ((1 << q) - 1)
    i0 = ((k >> q) << (q + 1)) | lo
    i1 = i0 | (1 << q)
    a = psi[i0]
    b = psi[i1]
    g00 = g[0]
    g01 = g[1]
    g10 = g[2]
    g11 = g[3]
    psi[i0] = wp.vec2(g00[0] * a[0] - g00[1] * a[1] + g01[0] * b[0] - g01[1] * b[1],
                      g00[0] * a[1] + g00[1] * a[0] + g01[0] * b[1] + g01[1] * b[0])
    psi[i1] = wp.vec2(g10[0] * a[0] - g10[1] * a[1] + g11[0] * b[0] - g11[1] * b[1],
                      g10[0] * a[1] + g10[1] * a[0] + g11[0] * b[1] + g11[1] * b[0])


# ---- incoherent dedispersion of a filterbank (radio transient searches; Barsdell's dedisp) ------------


@wp.kernel
def dedisperse(fb: wp.array2d(dtype=Any), delay: wp.array2d(dtype=int), out: wp.array2d(dtype=float)):
    """Direct dedispersion, a thread a (trial dispersion measure, output sample): the sum over
    the filterbank's channels (rows) of the sample delayed by that channel's dispersion delay
    (delay[dm, c] samples, the same across the warp); the samples float32 or 8-bit (generic)."""
    dm, t = wp.tid()
    nch = fb.shape[0]
    s = float(0.0)
    for c in range(nch):
        s += float(fb[c, t + delay[dm, c]])
    out[dm, t] = s


# ---- dynamic time warping: subsequence search against many candidates ----------------------------------


@wp.func
def dtw_cost(a: float, b: float):
    return wp.abs(a - b)


@wp.kernel
def dtw_rowmajor(qry: wp.array(dtype=float), cand: wp.array2d(dtype=float), dist: wp.array(dtype=float)):
    """The DTW distance (|a - b| costs, steps right, down and diagonal, no window) of the
    DTW_Q-sample query against a DTW_C-sample candidate a thread (candidates stored
    position-major: cand[j, n], coalesced), the cost matrix kept a column at a time in shared
    memory, the thread's column contiguous (thread t's cell i at t * DTW_Q + i: every lane on one
    bank); the query read from global memory (the same word across the warp)."""
    col = wp.shared.array(shape=(DTW_BLOCK * DTW_Q,), dtype=float)
    nidx = wp.tid()
    t = wp.thread_idx()
    base = t * DTW_Q
    cj = cand[0, nidx]
    acc = float(0.0)
    for i in range(DTW_Q):
        acc += dtw_cost(qry[i], cj)
        col[base + i] = acc
    for j in range(1, DTW_C):
        cj = cand[j, nidx]
        diag = col[base]
        up = diag + dtw_cost(qry[0], cj)
        col[base] = up
        for i in range(1, DTW_Q):
            left = col[base + i]
            val = dtw_cost(qry[i], cj) + wp.min(wp.min(left, diag), up)
            diag = left
            up = val
            col[base + i] = val
    dist[nidx] = col[base + DTW_Q - 1]


@wp.kernel
def dtw_interleaved(qry: wp.array(dtype=float), cand: wp.array2d(dtype=float), dist: wp.array(dtype=float)):
    """The same DTW with the block's columns interleaved in shared memory (thread t's cell i
    at i * DTW_BLOCK + t: consecutive lanes on consecutive banks)."""
    col = wp.shared.array(shape=(DTW_BLOCK * DTW_Q,), dtype=float)
    nidx = wp.tid()
    t = wp.thread_idx()
    cj = cand[0, nidx]
    acc = float(0.0)
    for i in range(DTW_Q):
        acc += dtw_cost(qry[i], cj)
        col[i * DTW_BLOCK + t] = acc
    for j in range(1, DTW_C):
        cj = cand[j, nidx]
        diag = col[t]
        up = diag + dtw_cost(qry[0], cj)
        col[t] = up
        for i in range(1, DTW_Q):
            left = col[i * DTW_BLOCK + t]
            val = dtw_cost(qry[i], cj) + wp.min(wp.min(left, diag), up)
            diag = left
            up = val
            col[i * DTW_BLOCK + t] = val
    dist[nidx] = col[(DTW_Q - 1) * DTW_BLOCK + t]
