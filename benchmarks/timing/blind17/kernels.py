"""Kernels of the seventeenth blind validation set from signal processing, numerical methods and
machine learning, written in simt from the algorithms: the Lomb-Scargle periodogram of an
unevenly sampled series (Townsend's single-pass form for GPUs, culsp: the five trigonometric
sums a frequency, then the time offset tau from them; fp64 and fp32); a cascade of biquad IIR
sections in transposed direct form II (scipy.signal.sosfilt, a thread a channel; the signals
channel-major or time-major); the Kuramoto model of coupled phase oscillators (the all-pairs
coupling sum through shared-memory tiles, by a sine a pair or by the sines and cosines of the
tile and the angle-difference identity); the forward (alpha) recursion of the connectionist
temporal classification loss (Graves et al.; warp-ctc's and cuDNN's CTC: a block an
utterance, a thread a state of the blank-extended label sequence, log-space, a barrier a
frame); the gradient of logistic regression (a float atomic a sample and feature, or a warp
shuffle and shared-memory reduction a block first); local response normalisation across
channels (AlexNet's LRN, Caffe's sliding window a pixel; NCHW and NHWC); adaptive Simpson
quadrature (an explicit stack in local memory a thread, two tolerances).

Each is written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/ to ../blind16/) or of the held-out set (../kernels.py, ../cases.py). The kernels
from cryptography, image processing, graphics, bioinformatics and data parsing are in
kernels_apps.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Where a kernel has variants of element type it is generic
(``typing.Any``) and each launch picks its dtype. Launch shapes and inputs are in
``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = 0xFFFFFFFF

SOS_N = 4               # biquad cascade: second-order sections
KU_TILE = 64            # Kuramoto: oscillators a shared tile (threads a block)
CTC_BLOCK = 128         # CTC: threads a block (states of the extended label sequence, at most)
CTC_NEG = -1.0e30       # CTC: log of zero (finite, so that log-sum-exp of two stays finite)
LR_D = 32               # logistic regression: features
LR_BLOCK = 256          # logistic regression: threads a block (the block-reduction kernel)
LR_WARPS = LR_BLOCK // 32
LRN_N = 5               # local response normalisation: channels in the window
SIMP_MIND = 3           # adaptive Simpson: shallowest accepted subdivision (oscillatory integrands)
SIMP_MAXD = 18          # adaptive Simpson: deepest subdivision
SIMP_STACK = SIMP_MAXD + 1


# ---- the Lomb-Scargle periodogram (Townsend's culsp form) ---------------------------------------------


@wp.kernel
def lomb_scargle(t: wp.array(dtype=Any), y: wp.array(dtype=Any), omega: wp.array(dtype=Any),
                 power: wp.array(dtype=Any)):
    """The Lomb-Scargle power at angular frequency omega[k] of the series (t, y) (y centred),
    a thread a frequency: in one pass over the samples the sums of y cos, y sin, cos^2, sin^2
    and cos sin of omega t (a sine and a cosine a sample); then omega tau from
    tan(2 omega tau) = 2 CS / (CC - SS) and the power from the sums rotated by omega tau, as
    Townsend's GPU periodogram does; generic in the float type."""
    k = wp.tid()
    w = omega[k]
    T = type(w)
    xc = T(0.0)
    xs = T(0.0)
    cc = T(0.0)
    ss = T(0.0)
    cs = T(0.0)
    for j in range(t.shape[0]):
        a = w * t[j]
        c = wp.cos(a)
        s = wp.sin(a)
        yj = y[j]
        xc += yj * c
        xs += yj * s
        cc += c * c
        ss += s * s
        cs += c * s
    wt = T(0.5) * wp.atan2(T(2.0) * cs, cc - ss)
    ct = wp.cos(wt)
    st = wp.sin(wt)
    ctt = ct * ct
    stt = st * st
    cst = T(2.0) * ct * st
    num_c = ct * xc + st * xs
    num_s = ct * xs - st * xc
    den_c = ctt * cc + cst * cs + stt * ss
    den_s = ctt * ss - cst * cs + stt * cc
    power[k] = T(0.5) * (num_c * num_c / den_c + num_s * num_s / den_s)


# ---- a biquad cascade (scipy.signal.sosfilt) ----------------------------------------------------------


@wp.kernel
def sos_filter(x: wp.array(dtype=float), sos: wp.array2d(dtype=float), nt: int, cs: int, ts: int,
               y: wp.array(dtype=float)):
    """SOS_N second-order sections in cascade over a channel of nt samples, a thread a
    channel, each section in transposed direct form II (two state values; a row of sos is
    b0 b1 b2 a0 a1 a2 with a0 = 1); sample t of channel c at c * cs + t * ts (time-major:
    cs = 1; channel-major: ts = 1)."""
    c = wp.tid()
    b0 = wp.vector(length=SOS_N, dtype=float)
    b1 = wp.vector(length=SOS_N, dtype=float)
    b2 = wp.vector(length=SOS_N, dtype=float)
    a1 = wp.vector(length=SOS_N, dtype=float)
    a2 = wp.vector(length=SOS_N, dtype=float)
    z1 = wp.vector(length=SOS_N, dtype=float)
    z2 = wp.vector(length=SOS_N, dtype=float)
    for s in range(SOS_N):
        b0[s] = sos[s, 0]
        b1[s] = sos[s, 1]
        b2[s] = sos[s, 2]
        a1[s] = sos[s, 4]
        a2[s] = sos[s, 5]
    base = c * cs
    for t in range(nt):
        v = x[base + t * ts]
        for s in range(SOS_N):
            o = b0[s] * v + z1[s]
            z1[s] = b1[s] * v - a1[s] * o + z2[s]
            z2[s] = b2[s] * v - a2[s] * o
            v = o
        y[base + t * ts] = v


# ---- the Kuramoto model of coupled oscillators ---------------------------------------------------------


@wp.kernel
def kuramoto_sin(theta: wp.array(dtype=float), omega: wp.array(dtype=float), kc: float, dt: float,
                 out: wp.array(dtype=float)):
    """One forward-Euler step of the Kuramoto model, a thread an oscillator: the phase moved by
    dt (omega_i + K / N sum_j sin(theta_j - theta_i)), the phases of the others read through
    shared-memory tiles of KU_TILE; a sine a pair."""
    tile = wp.shared.array(shape=(KU_TILE,), dtype=float)
    i = wp.tid()
    t = wp.thread_idx()
    n = theta.shape[0]
    ti = theta[i]
    acc = float(0.0)
    for base in range(0, n, KU_TILE):
        tile[t] = theta[base + t]
        wp.sync_threads()
        for j in range(KU_TILE):
            acc += wp.sin(tile[j] - ti)
        wp.sync_threads()
    out[i] = ti + dt * (omega[i] + kc / float(n) * acc)


@wp.kernel
def kuramoto_sincos(theta: wp.array(dtype=float), omega: wp.array(dtype=float), kc: float, dt: float,
                    out: wp.array(dtype=float)):
    """The same step with sin(theta_j - theta_i) = sin theta_j cos theta_i - cos theta_j
    sin theta_i: each tile's sines and cosines computed once as it is loaded into shared
    memory, two multiply-adds a pair."""
    tc = wp.shared.array(shape=(KU_TILE,), dtype=float)
    ts = wp.shared.array(shape=(KU_TILE,), dtype=float)
    i = wp.tid()
    t = wp.thread_idx()
    n = theta.shape[0]
    ti = theta[i]
    ci = wp.cos(ti)
    si = wp.sin(ti)
    acc = float(0.0)
    for base in range(0, n, KU_TILE):
        th = theta[base + t]
        tc[t] = wp.cos(th)
        ts[t] = wp.sin(th)
        wp.sync_threads()
        for j in range(KU_TILE):
            acc += ts[j] * ci - tc[j] * si
        wp.sync_threads()
    out[i] = ti + dt * (omega[i] + kc / float(n) * acc)


# ---- CTC: the forward (alpha) recursion in log space ----------------------------------------------------


@wp.func
def lse2(a: float, b: float):
    """log(exp(a) + exp(b))."""
    m = wp.max(a, b)
    return m + wp.log(1.0 + wp.exp(wp.min(a, b) - m))


@wp.kernel
def ctc_alpha(logp: wp.array3d(dtype=float), labels: wp.array2d(dtype=int), lab_len: wp.array(dtype=int),
              in_len: wp.array(dtype=int), nll: wp.array(dtype=float)):
    """The CTC negative log-likelihood of an utterance's label sequence, a block an utterance
    (CTC_BLOCK threads), a thread a state s of the extended sequence (blank, l1, blank, l2, ...,
    blank: 2L + 1 states): alpha_t(s) = log-sum-exp of alpha_(t-1) at s, s - 1 and, for a label
    differing from the one two states back, s - 2, plus log p_t of the state's symbol (blank is
    symbol 0); alpha kept in shared memory, two rows in turn, a barrier a frame."""
    buf = wp.shared.array(shape=(2 * CTC_BLOCK,), dtype=float)
    b = wp.block_idx()
    s = wp.thread_idx()
    nlab = lab_len[b]
    nfr = in_len[b]
    ns = 2 * nlab + 1
    sym = int(0)
    skip = False
    if s < ns and s % 2 == 1:
        sym = labels[b, (s - 1) // 2]
        if s >= 3:
            if labels[b, (s - 3) // 2] != sym:
                skip = True
    a = float(CTC_NEG)
    if s < 2 and s < ns:
        a = logp[b, 0, sym]
    buf[s] = a
    wp.sync_threads()
    cur = int(0)
    for t in range(1, nfr):
        prev = cur * CTC_BLOCK
        nxt = (1 - cur) * CTC_BLOCK
        if s < ns:
            v = buf[prev + s]
            if s >= 1:
                v = lse2(v, buf[prev + s - 1])
            if skip:
                v = lse2(v, buf[prev + s - 2])
            buf[nxt + s] = v + logp[b, t, sym]
        wp.sync_threads()
        cur = 1 - cur
    if s == 0:
        last = cur * CTC_BLOCK
        ll = lse2(buf[last + ns - 1], buf[last + ns - 2])
        nll[b] = -ll


# ---- the gradient of logistic regression --------------------------------------------------------------


@wp.kernel
def logreg_grad_atomic(x: wp.array2d(dtype=float), y: wp.array(dtype=float), w: wp.array(dtype=float),
                       grad: wp.array(dtype=float)):
    """The gradient of the logistic loss, sum_i (sigmoid(w . x_i) - y_i) x_i, a thread a sample
    (features stored feature-major: x[d, i]), each of its LR_D terms added to the gradient by a
    float atomic."""
    i = wp.tid()
    xv = wp.vector(length=LR_D, dtype=float)
    z = float(0.0)
    for d in range(LR_D):
        xv[d] = x[d, i]
        z += w[d] * xv[d]
    e = 1.0 / (1.0 + wp.exp(-z)) - y[i]
    for d in range(LR_D):
        wp.atomic_add(grad, d, e * xv[d])


@wp.kernel
def logreg_grad_block(x: wp.array2d(dtype=float), y: wp.array(dtype=float), w: wp.array(dtype=float),
                      grad: wp.array(dtype=float)):
    """The same gradient with each block's terms summed first: a feature at a time by five
    butterfly shuffles a warp, the warps' sums through shared memory, then one float atomic a
    feature and block (LR_BLOCK threads a block; the samples a multiple of it)."""
    part = wp.shared.array(shape=(LR_WARPS * LR_D,), dtype=float)
    i = wp.tid()
    t = wp.thread_idx()
    lane = t & 31
    wid = t >> 5
    xv = wp.vector(length=LR_D, dtype=float)
    z = float(0.0)
    for d in range(LR_D):
        xv[d] = x[d, i]
        z += w[d] * xv[d]
    e = 1.0 / (1.0 + wp.exp(-z)) - y[i]
    for d in range(LR_D):
        v = e * xv[d]
        for o in range(5):
            v += wp.shfl_xor_sync(FULL, v, 16 >> o)
        if lane == 0:
            part[wid * LR_D + d] = v
    wp.sync_threads()
    if t < LR_D:
        acc = float(0.0)
        for k in range(LR_WARPS):
            acc += part[k * LR_D + t]
        wp.atomic_add(grad, t, acc)


# ---- local response normalisation across channels (AlexNet, Caffe) ----------------------------------------


@wp.kernel
def lrn_across(a: wp.array(dtype=float), b: wp.array(dtype=float), nc: int, hw: int, cs: int, ps: int,
               isz: int, alpha: float, beta: float, kk: float):
    """b = a / (k + alpha / n sum of a^2 over the n channels around)^beta, a thread a pixel
    walking its channels with a sliding sum of squares (a channel enters, one leaves); element
    (image, channel c, pixel p) at image * isz + c * cs + p * ps (NCHW: cs = hw, ps = 1; NHWC:
    cs = 1, ps = nc)."""
    i = wp.tid()
    img = i // hw
    p = i - img * hw
    base = img * isz + p * ps
    half = LRN_N // 2
    sq = float(0.0)
    for c in range(half):
        if c < nc:
            v = a[base + c * cs]
            sq += v * v
    for c in range(nc):
        hi = c + half
        if hi < nc:
            v = a[base + hi * cs]
            sq += v * v
        lo = c - half - 1
        if lo >= 0:
            v = a[base + lo * cs]
            sq -= v * v
        scale = kk + alpha / float(LRN_N) * sq
        b[base + c * cs] = a[base + c * cs] * wp.pow(scale, -beta)


# ---- adaptive Simpson quadrature ----------------------------------------------------------------------


@wp.func
def simp_f(x: float, pa: float, pb: float):
    return wp.exp(-pa * x) * wp.sin(pb * x)


@wp.kernel
def simpson_adapt(pa: wp.array(dtype=float), pb: wp.array(dtype=float), tol: float,
                  res: wp.array(dtype=float), nev: wp.array(dtype=int)):
    """The integral over [0, 1] of exp(-a x) sin(b x), a thread a (a, b), by adaptive Simpson:
    an interval's two halves are kept when they differ from the whole by at most 15 tol times
    its width and it is at least SIMP_MIND halvings deep (or at depth SIMP_MAXD), with
    Richardson's correction; otherwise the right half
    is pushed on the thread's stack (local vectors) and the left one refined. The number of
    evaluations of the integrand is stored beside."""
    i = wp.tid()
    a = pa[i]
    b = pb[i]
    slo = wp.vector(length=SIMP_STACK, dtype=float)
    shi = wp.vector(length=SIMP_STACK, dtype=float)
    sfa = wp.vector(length=SIMP_STACK, dtype=float)
    sfm = wp.vector(length=SIMP_STACK, dtype=float)
    sfb = wp.vector(length=SIMP_STACK, dtype=float)
    swh = wp.vector(length=SIMP_STACK, dtype=float)
    sdp = wp.vector(length=SIMP_STACK, dtype=int)
    lo = float(0.0)
    hi = float(1.0)
    fa = simp_f(lo, a, b)
    fm = simp_f(0.5, a, b)
    fb = simp_f(hi, a, b)
    whole = (fa + 4.0 * fm + fb) * (1.0 / 6.0)
    depth = int(0)
    sp = int(0)
    ev = int(3)
    total = float(0.0)
    done = False
    while not done:
        h = hi - lo
        m = 0.5 * (lo + hi)
        flm = simp_f(0.5 * (lo + m), a, b)
        frm = simp_f(0.5 * (m + hi), a, b)
        ev += 2
        left = h * (1.0 / 12.0) * (fa + 4.0 * flm + fm)
        right = h * (1.0 / 12.0) * (fm + 4.0 * frm + fb)
        delta = left + right - whole
        if depth >= SIMP_MAXD or (depth >= SIMP_MIND and wp.abs(delta) <= 15.0 * tol * h):
            total += left + right + delta * (1.0 / 15.0)
            if sp == 0:
                done = True
            else:
                sp -= 1
                lo = slo[sp]
                hi = shi[sp]
                fa = sfa[sp]
                fm = sfm[sp]
                fb = sfb[sp]
                whole = swh[sp]
                depth = sdp[sp]
        else:
            slo[sp] = m
            shi[sp] = hi
            sfa[sp] = fm
            sfm[sp] = frm
            sfb[sp] = fb
            swh[sp] = right
            sdp[sp] = depth + 1
            sp += 1
            hi = m
            fb = fm
            fm = flm
            whole = left
            depth += 1
    res[i] = total
    nev[i] = ev
