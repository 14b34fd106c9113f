"""Kernels of the seventh blind validation set, written in simt from the algorithms of public GPU
suites and well-known GPU workloads (random number generation, finance, cryptography and
encoding, spatial indexing, image processing from the CUDA samples, PolyBench's gemver, parallel
tridiagonal solvers, numerical series, block sorts, databases, graph sampling and ML operators).
Each is written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/kernels.py to ../blind6/kernels.py) or of the held-out set (../kernels.py,
../cases.py). Where a kernel has variants of element type it is generic (``typing.Any``) and
each launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x); with ``block_dim=(BH, BW)``, ``ty, tx = wp.thread_idx()``.
Launch shapes and inputs are in ``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = wp.uint32(0xFFFFFFFF)
CR_N = 256          # unknowns of a system solved by the shared-memory tridiagonal solvers
SORT_N = 256        # keys a block sorts


@wp.func
def hash32(x: wp.uint32):
    """A 32-bit integer hash (the finaliser of MurmurHash3)."""
    h = x
    h = h ^ (h >> wp.uint32(16))
    h = h * wp.uint32(0x85EBCA6B)
    h = h ^ (h >> wp.uint32(13))
    h = h * wp.uint32(0xC2B2AE35)
    h = h ^ (h >> wp.uint32(16))
    return h


@wp.func
def rotl32(x: wp.uint32, n: int):
    return (x << wp.uint32(n)) | (x >> wp.uint32(32 - n))


@wp.func
def unit24(x: wp.uint32):
    """The top 24 bits of x as a float in [0, 1)."""
    return float(int(x >> wp.uint32(8))) * 5.9604644775390625e-08


# ---- random number generators -------------------------------------------------------------------


@wp.kernel
def philox_uniform(seed: wp.uint32, out: wp.array(dtype=float)):
    """Philox4x32-10 (Salmon et al., counter-based): a thread per counter (its index) runs ten
    rounds of two 32x32->64-bit products and a Weyl key schedule, and writes four uniforms."""
    i = wp.tid()
    c0 = wp.uint32(i)
    c1 = wp.uint32(0)
    c2 = wp.uint32(0)
    c3 = wp.uint32(0)
    k0 = seed
    k1 = wp.uint32(0x5A5A5A5A)
    for r in range(10):
        p0 = wp.uint64(c0) * wp.uint64(0xD2511F53)
        p1 = wp.uint64(c2) * wp.uint64(0xCD9E8D57)
        h0 = wp.uint32(p0 >> wp.uint64(32))
        l0 = wp.uint32(p0 & wp.uint64(0xFFFFFFFF))
        h1 = wp.uint32(p1 >> wp.uint64(32))
        l1 = wp.uint32(p1 & wp.uint64(0xFFFFFFFF))
        c0 = h1 ^ c1 ^ k0
        c1 = l1
        c2 = h0 ^ c3 ^ k1
        c3 = l0
        k0 = k0 + wp.uint32(0x9E3779B9)
        k1 = k1 + wp.uint32(0xBB67AE85)
    out[4 * i] = unit24(c0)
    out[4 * i + 1] = unit24(c1)
    out[4 * i + 2] = unit24(c2)
    out[4 * i + 3] = unit24(c3)


@wp.kernel
def xorwow_uniform(state: wp.array2d(dtype=wp.uint32), out: wp.array(dtype=float)):
    """xorwow (Marsaglia; the default generator of cuRAND), one stateful generator a thread: its
    six words (five of xorshift, a Weyl counter) read from a structure of arrays, four uniforms
    drawn, the state written back."""
    i = wp.tid()
    x = state[0, i]
    y = state[1, i]
    z = state[2, i]
    w = state[3, i]
    v = state[4, i]
    d = state[5, i]
    for k in range(4):
        t = x ^ (x >> wp.uint32(2))
        x = y
        y = z
        z = w
        w = v
        v = (v ^ (v << wp.uint32(4))) ^ (t ^ (t << wp.uint32(1)))
        d = d + wp.uint32(362437)
        out[4 * i + k] = unit24(v + d)
    state[0, i] = x
    state[1, i] = y
    state[2, i] = z
    state[3, i] = w
    state[4, i] = v
    state[5, i] = d


# ---- finance ------------------------------------------------------------------------------------


@wp.func
def bs_call(s: float, k: float, t: float, r: float, sig: float):
    """Black-Scholes price of a European call (N by erfc)."""
    sq = sig * wp.sqrt(t)
    d1 = (wp.log(s / k) + (r + 0.5 * sig * sig) * t) / sq
    d2 = d1 - sq
    n1 = 0.5 * wp.erfc(-d1 * 0.70710678)
    n2 = 0.5 * wp.erfc(-d2 * 0.70710678)
    return s * n1 - k * wp.exp(-r * t) * n2


@wp.kernel
def implied_vol_newton(spot: wp.array(dtype=float), strike: wp.array(dtype=float), tau: wp.array(dtype=float),
                       price: wp.array(dtype=float), rate: float, vol: wp.array(dtype=float)):
    """Implied volatility of a call by Newton's method on the Black-Scholes price: from 0.3, step
    by (price - target) / vega until the step is below 1e-6 (at most 40 steps), kept in
    [0.001, 5]: a data-dependent loop of log, exp, erfc and sqrt."""
    i = wp.tid()
    s = spot[i]
    k = strike[i]
    t = tau[i]
    target = price[i]
    sig = float(0.3)
    for it in range(40):
        sq = sig * wp.sqrt(t)
        d1 = (wp.log(s / k) + (rate + 0.5 * sig * sig) * t) / sq
        vega = s * wp.sqrt(t) * 0.39894228 * wp.exp(-0.5 * d1 * d1)
        diff = bs_call(s, k, t, rate, sig) - target
        step = diff / wp.max(vega, 1.0e-8)
        sig = wp.min(wp.max(sig - step, 0.001), 5.0)
        if wp.abs(step) < 1.0e-6:
            break
    vol[i] = sig


@wp.kernel
def implied_vol_bisect(spot: wp.array(dtype=float), strike: wp.array(dtype=float), tau: wp.array(dtype=float),
                       price: wp.array(dtype=float), rate: float, vol: wp.array(dtype=float)):
    """The same implied volatility by bisection on [0.001, 5]: 24 halvings, each a Black-Scholes
    price (a fixed trip count)."""
    i = wp.tid()
    s = spot[i]
    k = strike[i]
    t = tau[i]
    target = price[i]
    lo = float(0.001)
    hi = float(5.0)
    for it in range(24):
        mid = 0.5 * (lo + hi)
        if bs_call(s, k, t, rate, mid) > target:
            hi = mid
        else:
            lo = mid
    vol[i] = 0.5 * (lo + hi)


# ---- cryptography and encoding ------------------------------------------------------------------


@wp.func
def chacha_qr(s: Any, a: int, b: int, c: int, d: int):
    """ChaCha's quarter-round on words a, b, c, d of the state."""
    s[a] = s[a] + s[b]
    s[d] = rotl32(s[d] ^ s[a], 16)
    s[c] = s[c] + s[d]
    s[b] = rotl32(s[b] ^ s[c], 12)
    s[a] = s[a] + s[b]
    s[d] = rotl32(s[d] ^ s[a], 8)
    s[c] = s[c] + s[d]
    s[b] = rotl32(s[b] ^ s[c], 7)
    return s


@wp.kernel
def chacha_xor(key: wp.array(dtype=wp.uint32), nonce: wp.array(dtype=wp.uint32), rounds: int,
               src: wp.array2d(dtype=wp.uint32), dst: wp.array2d(dtype=wp.uint32)):
    """ChaCha stream cipher (Bernstein; RFC 8439's block function), a thread per 64-byte block:
    the 16-word state (a local vector) from the constants, key, block counter and nonce,
    ``rounds`` rounds (column and diagonal quarter-rounds of add, xor and rotate), the input
    state added back, and the keystream xored into the block."""
    b = wp.tid()
    st = wp.vector(length=16, dtype=wp.uint32)
    st[0] = wp.uint32(0x61707865)
    st[1] = wp.uint32(0x3320646E)
    st[2] = wp.uint32(0x79622D32)
    st[3] = wp.uint32(0x6B206574)
    for k in range(8):
        st[4 + k] = key[k]
    st[12] = wp.uint32(b)
    for k in range(3):
        st[13 + k] = nonce[k]
    x = st
    for r in range(rounds // 2):
        x = chacha_qr(x, 0, 4, 8, 12)
        x = chacha_qr(x, 1, 5, 9, 13)
        x = chacha_qr(x, 2, 6, 10, 14)
        x = chacha_qr(x, 3, 7, 11, 15)
        x = chacha_qr(x, 0, 5, 10, 15)
        x = chacha_qr(x, 1, 6, 11, 12)
        x = chacha_qr(x, 2, 7, 8, 13)
        x = chacha_qr(x, 3, 4, 9, 14)
    for k in range(16):
        dst[b, k] = src[b, k] ^ (x[k] + st[k])


@wp.kernel
def base64_encode(src: wp.array(dtype=wp.uint8), alphabet: wp.array(dtype=wp.uint8), dst: wp.array(dtype=wp.uint8)):
    """Base64 encoding (RFC 4648), a thread per three input bytes: their 24 bits cut into four
    sextets, each looked up in the 64-letter alphabet, four bytes written."""
    g = wp.tid()
    v = (int(src[3 * g]) << 16) | (int(src[3 * g + 1]) << 8) | int(src[3 * g + 2])
    dst[4 * g] = alphabet[(v >> 18) & 63]
    dst[4 * g + 1] = alphabet[(v >> 12) & 63]
    dst[4 * g + 2] = alphabet[(v >> 6) & 63]
    dst[4 * g + 3] = alphabet[v & 63]


# ---- spatial indexing ----------------------------------------------------------------------------


@wp.func
def quantize10(v: float):
    return wp.uint32(wp.min(wp.max(int(v * 1024.0), 0), 1023))


@wp.func
def spread3(v: wp.uint32):
    """The ten bits of v spread two zeros apart, by multiplications and masks."""
    x = (v * wp.uint32(0x00010001)) & wp.uint32(0xFF0000FF)
    x = (x * wp.uint32(0x00000101)) & wp.uint32(0x0F00F00F)
    x = (x * wp.uint32(0x00000011)) & wp.uint32(0xC30C30C3)
    x = (x * wp.uint32(0x00000005)) & wp.uint32(0x49249249)
    return x


@wp.kernel
def morton3d_magic(px: wp.array(dtype=float), py: wp.array(dtype=float), pz: wp.array(dtype=float),
                   code: wp.array(dtype=wp.uint32)):
    """30-bit 3-D Morton codes of points in the unit cube (as for building a linear BVH): each
    coordinate quantised to ten bits and spread by four multiply-and-mask steps."""
    i = wp.tid()
    code[i] = (spread3(quantize10(px[i])) << wp.uint32(2)) | (spread3(quantize10(py[i])) << wp.uint32(1)) | \
        spread3(quantize10(pz[i]))


@wp.kernel
def morton3d_loop(px: wp.array(dtype=float), py: wp.array(dtype=float), pz: wp.array(dtype=float),
                  code: wp.array(dtype=wp.uint32)):
    """The same Morton codes interleaved bit by bit in a loop of ten steps."""
    i = wp.tid()
    x = quantize10(px[i])
    y = quantize10(py[i])
    z = quantize10(pz[i])
    c = wp.uint32(0)
    for b in range(10):
        bb = wp.uint32(b)
        c = c | (((x >> bb) & wp.uint32(1)) << (wp.uint32(3) * bb + wp.uint32(2)))
        c = c | (((y >> bb) & wp.uint32(1)) << (wp.uint32(3) * bb + wp.uint32(1)))
        c = c | (((z >> bb) & wp.uint32(1)) << (wp.uint32(3) * bb))
    code[i] = c


@wp.kernel
def jfa_step(seed_in: wp.array2d(dtype=int), k: int, seed_out: wp.array2d(dtype=int)):
    """One pass of the jump flooding algorithm (Rong and Tan) for a Voronoi diagram / distance
    transform: a pixel looks at the nine pixels k apart (itself included), reads the seed each
    holds (a flat pixel index, -1 for none) and keeps the nearest (the first on ties)."""
    y, x = wp.tid()
    h = seed_in.shape[0]
    w = seed_in.shape[1]
    best = int(-1)
    bd = int(2147483647)
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            qy = y + dy * k
            qx = x + dx * k
            if qy >= 0 and qy < h and qx >= 0 and qx < w:
                s = seed_in[qy, qx]
                if s >= 0:
                    ey = s // w - y
                    ex = s % w - x
                    d = ey * ey + ex * ex
                    if d < bd:
                        bd = d
                        best = s
    seed_out[y, x] = best


# ---- image processing ---------------------------------------------------------------------------


@wp.kernel
def knn_denoise(img: wp.array2d(dtype=float), h2: float, out: wp.array2d(dtype=float)):
    """Image denoising by the KNN (bilateral-like) filter of the CUDA samples' imageDenoising, in
    spirit: over a 7x7 window (edges clamped), weights exp(-(pixel difference)^2 / h^2 -
    (distance^2) / 18), the weighted mean."""
    y, x = wp.tid()
    hm = img.shape[0] - 1
    wm = img.shape[1] - 1
    c = img[y, x]
    sw = float(0.0)
    sv = float(0.0)
    for dy in range(-3, 4):
        yy = wp.min(wp.max(y + dy, 0), hm)
        for dx in range(-3, 4):
            v = img[yy, wp.min(wp.max(x + dx, 0), wm)]
            e = v - c
            wgt = wp.exp(-(e * e) / h2 - float(dy * dy + dx * dx) * 0.0555556)
            sw += wgt
            sv += wgt * v
    out[y, x] = sv / sw


@wp.kernel
def nlm_denoise(img: wp.array2d(dtype=float), h2: float, out: wp.array2d(dtype=float)):
    """Non-local means denoising (Buades et al.): over a 7x7 search window, each candidate
    weighted by exp(-(mean squared difference of the 3x3 patches) / h^2) (edges clamped); the
    weighted mean."""
    y, x = wp.tid()
    hm = img.shape[0] - 1
    wm = img.shape[1] - 1
    sw = float(0.0)
    sv = float(0.0)
    for dy in range(-3, 4):
        for dx in range(-3, 4):
            dist = float(0.0)
            for py in range(-1, 2):
                ay = wp.min(wp.max(y + py, 0), hm)
                by = wp.min(wp.max(y + dy + py, 0), hm)
                for px in range(-1, 2):
                    a = img[ay, wp.min(wp.max(x + px, 0), wm)]
                    b = img[by, wp.min(wp.max(x + dx + px, 0), wm)]
                    dist += (a - b) * (a - b)
            wgt = wp.exp(-dist * 0.11111111 / h2)
            v = img[wp.min(wp.max(y + dy, 0), hm), wp.min(wp.max(x + dx, 0), wm)]
            sw += wgt
            sv += wgt * v
    out[y, x] = sv / sw


@wp.func
def cubic_w(t: float):
    """Catmull-Rom (Keys, a = -0.5) kernel weight at distance |t| < 2."""
    a = wp.abs(t)
    r = float(0.0)
    if a < 1.0:
        r = (1.5 * a - 2.5) * a * a + 1.0
    elif a < 2.0:
        r = ((-0.5 * a + 2.5) * a - 4.0) * a + 2.0
    return r


@wp.kernel
def bicubic_resize(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    """Bicubic resampling (as the CUDA samples' bicubicTexture, done by hand): a thread per output
    pixel maps its centre into the source, and sums the 4x4 neighbours (edges clamped) by
    Catmull-Rom weights."""
    y, x = wp.tid()
    sh = src.shape[0]
    sw = src.shape[1]
    fy = (float(y) + 0.5) * float(sh) / float(dst.shape[0]) - 0.5
    fx = (float(x) + 0.5) * float(sw) / float(dst.shape[1]) - 0.5
    iy = int(wp.floor(fy))
    ix = int(wp.floor(fx))
    ty = fy - float(iy)
    tx = fx - float(ix)
    acc = float(0.0)
    for m in range(-1, 3):
        wy = cubic_w(ty - float(m))
        yy = wp.min(wp.max(iy + m, 0), sh - 1)
        row = float(0.0)
        for n in range(-1, 3):
            row += cubic_w(tx - float(n)) * src[yy, wp.min(wp.max(ix + n, 0), sw - 1)]
        acc += wy * row
    dst[y, x] = acc


@wp.func
def bayer_at(raw: wp.array2d(dtype=wp.uint8), y: int, x: int):
    yy = wp.min(wp.max(y, 0), raw.shape[0] - 1)
    xx = wp.min(wp.max(x, 0), raw.shape[1] - 1)
    return float(int(raw[yy, xx]))


@wp.kernel
def demosaic_bilinear(raw: wp.array2d(dtype=wp.uint8), rgb: wp.array3d(dtype=wp.uint8)):
    """Bilinear demosaicing of an RGGB Bayer mosaic (camera pipelines): a thread per pixel keeps
    its own colour and averages the two or four nearest samples of each other colour (edges
    clamped); planar 8-bit output."""
    y, x = wp.tid()
    c = bayer_at(raw, y, x)
    cross = 0.25 * (bayer_at(raw, y - 1, x) + bayer_at(raw, y + 1, x) + bayer_at(raw, y, x - 1) + bayer_at(raw, y, x + 1))
    diag = 0.25 * (bayer_at(raw, y - 1, x - 1) + bayer_at(raw, y - 1, x + 1) + bayer_at(raw, y + 1, x - 1)
                   + bayer_at(raw, y + 1, x + 1))
    horiz = 0.5 * (bayer_at(raw, y, x - 1) + bayer_at(raw, y, x + 1))
    vert = 0.5 * (bayer_at(raw, y - 1, x) + bayer_at(raw, y + 1, x))
    r = c
    g = c
    b = c
    if (y & 1) == 0 and (x & 1) == 0:
        g = cross
        b = diag
    elif (y & 1) == 1 and (x & 1) == 1:
        r = diag
        g = cross
    elif (y & 1) == 0:
        r = horiz
        b = vert
    else:
        r = vert
        b = horiz
    rgb[0, y, x] = wp.uint8(int(r + 0.5))
    rgb[1, y, x] = wp.uint8(int(g + 0.5))
    rgb[2, y, x] = wp.uint8(int(b + 0.5))


@wp.kernel
def tonemap(hdr: wp.array(dtype=Any), exposure: float, ldr: wp.array(dtype=Any)):
    """Tone mapping of HDR values: Reinhard's x / (1 + x) after an exposure, then the display's
    gamma by pow(., 1 / 2.2). Generic: fp32 or fp64."""
    i = wp.tid()
    x = hdr[i]
    T = type(x)
    v = x * T(exposure)
    ldr[i] = wp.pow(v / (T(1.0) + v), T(0.45454545454545453))


# ---- linear algebra ------------------------------------------------------------------------------


@wp.kernel
def gemver_rank2_rows(a: wp.array2d(dtype=float), u1: wp.array(dtype=float), v1: wp.array(dtype=float),
                      u2: wp.array(dtype=float), v2: wp.array(dtype=float)):
    """PolyBench's gemver, its first step: the rank-2 update A += u1 v1^T + u2 v2^T in place, a
    thread per element with adjacent lanes along a row (coalesced)."""
    i, j = wp.tid()
    a[i, j] = a[i, j] + u1[i] * v1[j] + u2[i] * v2[j]


@wp.kernel
def gemver_rank2_cols(a: wp.array2d(dtype=float), u1: wp.array(dtype=float), v1: wp.array(dtype=float),
                      u2: wp.array(dtype=float), v2: wp.array(dtype=float)):
    """The same update with adjacent lanes down a column (a row apart in memory)."""
    j, i = wp.tid()
    a[i, j] = a[i, j] + u1[i] * v1[j] + u2[i] * v2[j]


@wp.kernel
def tridiag_cr(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float),
               d: wp.array2d(dtype=float), x: wp.array2d(dtype=float)):
    """Tridiagonal systems by cyclic reduction in shared memory (Hockney; Zhang, Cohen and
    Owens's GPU formulation), a block of CR_N / 2 threads per system of CR_N unknowns (rows of
    the arrays): forward reduction halving the active equations with a barrier a level, the two
    last unknowns solved, backward substitution doubling them."""
    sa = wp.shared.array(shape=(CR_N,), dtype=float)
    sb = wp.shared.array(shape=(CR_N,), dtype=float)
    sc = wp.shared.array(shape=(CR_N,), dtype=float)
    sd = wp.shared.array(shape=(CR_N,), dtype=float)
    sx = wp.shared.array(shape=(CR_N,), dtype=float)
    s = wp.block_idx()
    t = wp.thread_idx()
    n = CR_N
    sa[t] = a[s, t]
    sa[t + n // 2] = a[s, t + n // 2]
    sb[t] = b[s, t]
    sb[t + n // 2] = b[s, t + n // 2]
    sc[t] = c[s, t]
    sc[t + n // 2] = c[s, t + n // 2]
    sd[t] = d[s, t]
    sd[t + n // 2] = d[s, t + n // 2]
    stride = int(1)
    active = n // 2
    while active > 1:
        wp.sync_threads()
        stride = stride * 2
        delta = stride // 2
        if t < active:
            i = stride * t + stride - 1
            il = i - delta
            ir = wp.min(i + delta, n - 1)
            k1 = sa[i] / sb[il]
            k2 = sc[i] / sb[ir]
            sb[i] = sb[i] - sc[il] * k1 - sa[ir] * k2
            sd[i] = sd[i] - sd[il] * k1 - sd[ir] * k2
            sa[i] = -sa[il] * k1
            sc[i] = -sc[ir] * k2
        active = active // 2
    wp.sync_threads()
    if t == 0:
        i1 = stride - 1
        i2 = 2 * stride - 1
        det = sb[i2] * sb[i1] - sc[i1] * sa[i2]
        sx[i1] = (sb[i2] * sd[i1] - sc[i1] * sd[i2]) / det
        sx[i2] = (sd[i2] * sb[i1] - sd[i1] * sa[i2]) / det
    active = 2
    while stride > 1:
        delta = stride // 2
        wp.sync_threads()
        if t < active:
            i = stride * t + delta - 1
            if i == delta - 1:
                sx[i] = (sd[i] - sc[i] * sx[i + delta]) / sb[i]
            else:
                sx[i] = (sd[i] - sa[i] * sx[i - delta] - sc[i] * sx[i + delta]) / sb[i]
        stride = delta
        active = active * 2
    wp.sync_threads()
    x[s, t] = sx[t]
    x[s, t + n // 2] = sx[t + n // 2]


@wp.kernel
def tridiag_pcr(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float),
                d: wp.array2d(dtype=float), x: wp.array2d(dtype=float)):
    """The same systems by parallel cyclic reduction (Hockney and Jesshope), a block of CR_N
    threads per system: every equation eliminates its neighbours ``stride`` away, the stride
    doubling each of log2(CR_N) steps (two barriers a step), until every unknown stands alone."""
    sa = wp.shared.array(shape=(CR_N,), dtype=float)
    sb = wp.shared.array(shape=(CR_N,), dtype=float)
    sc = wp.shared.array(shape=(CR_N,), dtype=float)
    sd = wp.shared.array(shape=(CR_N,), dtype=float)
    s = wp.block_idx()
    i = wp.thread_idx()
    n = CR_N
    sa[i] = a[s, i]
    sb[i] = b[s, i]
    sc[i] = c[s, i]
    sd[i] = d[s, i]
    stride = int(1)
    while stride < n:
        wp.sync_threads()
        na = float(0.0)
        nc = float(0.0)
        nb = sb[i]
        nd = sd[i]
        if i - stride >= 0:
            k1 = sa[i] / sb[i - stride]
            nb = nb - sc[i - stride] * k1
            nd = nd - sd[i - stride] * k1
            na = -sa[i - stride] * k1
        if i + stride < n:
            k2 = sc[i] / sb[i + stride]
            nb = nb - sa[i + stride] * k2
            nd = nd - sd[i + stride] * k2
            nc = -sc[i + stride] * k2
        wp.sync_threads()
        sa[i] = na
        sb[i] = nb
        sc[i] = nc
        sd[i] = nd
        stride = stride * 2
    x[s, i] = sd[i] / sb[i]


@wp.kernel
def chebyshev_clenshaw(xs: wp.array(dtype=Any), coef: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    """A Chebyshev series sum_k c_k T_k(x) evaluated by Clenshaw's recurrence (the coefficients
    the same words across the warp). Generic: fp32 or fp64."""
    i = wp.tid()
    x = xs[i]
    T = type(x)
    n = coef.shape[0]
    b1 = T(0.0)
    b2 = T(0.0)
    x2 = T(2.0) * x
    for k in range(n - 1, 0, -1):
        b0 = x2 * b1 - b2 + coef[k]
        b2 = b1
        b1 = b0
    out[i] = x * b1 - b2 + coef[0]


# ---- block sorts ---------------------------------------------------------------------------------


@wp.kernel
def sort_oddeven_shared(keys: wp.array(dtype=float), out: wp.array(dtype=float)):
    """Odd-even transposition sort of SORT_N keys a block in shared memory: SORT_N phases, each
    comparing and swapping the even (or odd) neighbours, a barrier between phases."""
    s = wp.shared.array(shape=(SORT_N,), dtype=float)
    t = wp.thread_idx()
    base = wp.block_idx() * SORT_N
    s[t] = keys[base + t]
    for ph in range(SORT_N):
        wp.sync_threads()
        if (t & 1) == (ph & 1) and t + 1 < SORT_N:
            a = s[t]
            b = s[t + 1]
            if b < a:
                s[t] = b
                s[t + 1] = a
    wp.sync_threads()
    out[base + t] = s[t]


@wp.kernel
def sort_rank_shared(keys: wp.array(dtype=float), out: wp.array(dtype=float)):
    """The same block sort by ranking: the keys staged in shared memory, each thread counts the
    keys below its own (ties by position: a stable sort) and writes its key at its rank."""
    s = wp.shared.array(shape=(SORT_N,), dtype=float)
    t = wp.thread_idx()
    base = wp.block_idx() * SORT_N
    v = keys[base + t]
    s[t] = v
    wp.sync_threads()
    r = int(0)
    for j in range(SORT_N):
        u = s[j]
        if u < v or (u == v and j < t):
            r += 1
    out[base + r] = v


# ---- databases ------------------------------------------------------------------------------------


@wp.kernel
def hash_build(keys: wp.array(dtype=int), tkeys: wp.array(dtype=int), tvals: wp.array(dtype=int)):
    """Hash join's build into an open-addressing table with linear probing (capacity a power of
    two, -1 empty): a thread per key claims the first empty slot from its hash by compare-and-
    swap, then writes its payload (its row)."""
    i = wp.tid()
    k = keys[i]
    mask = tkeys.shape[0] - 1
    s = int(hash32(wp.uint32(k)) & wp.uint32(mask))
    while True:
        old = wp.atomic_cas(tkeys, s, -1, k)
        if old == -1:
            tvals[s] = i
            break
        s = (s + 1) & mask


@wp.kernel
def groupby_sum(keys: wp.array(dtype=int), vals: wp.array(dtype=float), tkeys: wp.array(dtype=int),
                sums: wp.array(dtype=float), counts: wp.array(dtype=int)):
    """Hash aggregation (GROUP BY key: SUM, COUNT): a thread per row finds or inserts its key in
    an open-addressing table by compare-and-swap with linear probing, then adds its value and
    one to the group's slot by atomics."""
    i = wp.tid()
    k = keys[i]
    mask = tkeys.shape[0] - 1
    s = int(hash32(wp.uint32(k)) & wp.uint32(mask))
    while True:
        cur = tkeys[s]
        if cur == -1:
            cur = wp.atomic_cas(tkeys, s, -1, k)
            if cur == -1:
                cur = k
        if cur == k:
            break
        s = (s + 1) & mask
    wp.atomic_add(sums, s, vals[i])
    wp.atomic_add(counts, s, 1)


# ---- graph sampling ------------------------------------------------------------------------------


@wp.kernel
def random_walk(ptr: wp.array(dtype=int), col: wp.array(dtype=int), start: wp.array(dtype=int), length: int,
                seed: wp.uint32, end: wp.array(dtype=int), visits: wp.array(dtype=int)):
    """Uniform random walks on a CSR graph (DeepWalk's and node2vec's sampling): a walker per
    thread takes ``length`` steps, each to a neighbour picked by a hash of (walker, step), and
    stops at a vertex without edges; its last vertex and the steps taken."""
    w = wp.tid()
    v = start[w]
    steps = int(0)
    for st in range(length):
        lo = ptr[v]
        deg = ptr[v + 1] - lo
        if deg == 0:
            break
        r = hash32(wp.uint32(w * length + st) ^ seed)
        v = col[lo + int(r % wp.uint32(deg))]
        steps += 1
    end[w] = v
    visits[w] = steps


# ---- ML operators ---------------------------------------------------------------------------------


@wp.kernel
def moe_route_top2(logits: wp.array2d(dtype=float), counts: wp.array(dtype=int), slot_token: wp.array2d(dtype=int),
                   slot_gate: wp.array2d(dtype=float)):
    """Mixture-of-experts routing, top-2 (as in GShard and Mixtral): a thread per token takes the
    softmax of its expert logits, picks the two largest, renormalises their gates, and appends
    itself to each expert's list by an integer atomic on the expert's count (dropped past the
    capacity)."""
    t = wp.tid()
    ne = logits.shape[1]
    cap = slot_token.shape[1]
    m = float(-3.0e38)
    for e in range(ne):
        m = wp.max(m, logits[t, e])
    z = float(0.0)
    b0 = int(-1)
    b1 = int(-1)
    v0 = float(-1.0)
    v1 = float(-1.0)
    for e in range(ne):
        p = wp.exp(logits[t, e] - m)
        z += p
        if p > v0:
            v1 = v0
            b1 = b0
            v0 = p
            b0 = e
        elif p > v1:
            v1 = p
            b1 = e
    g = v0 + v1
    s0 = wp.atomic_add(counts, b0, 1)
    if s0 < cap:
        slot_token[b0, s0] = t
        slot_gate[b0, s0] = v0 / g
    s1 = wp.atomic_add(counts, b1, 1)
    if s1 < cap:
        slot_token[b1, s1] = t
        slot_gate[b1, s1] = v1 / g


@wp.kernel
def embedding_backward(tokens: wp.array(dtype=int), grad_out: wp.array2d(dtype=float),
                       grad_table: wp.array2d(dtype=float)):
    """An embedding's backward pass: a thread per (token, feature) adds the output gradient to its
    token's row of the table gradient by a float atomic (frequent tokens contend)."""
    t, f = wp.tid()
    wp.atomic_add(grad_table, tokens[t], f, grad_out[t, f])


@wp.kernel
def swiglu(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    """SwiGLU's gate (Shazeer, as in LLaMA's feed-forward), the rows holding [a | b]: y = SiLU(a)
    b = a sigmoid(a) b, a thread per output element."""
    r, j = wp.tid()
    h = y.shape[1]
    a = x[r, j]
    y[r, j] = a / (1.0 + wp.exp(-a)) * x[r, h + j]


@wp.kernel
def dwconv3x3_nchw(x: wp.array3d(dtype=float), w: wp.array3d(dtype=float), y: wp.array3d(dtype=float)):
    """Depthwise 3x3 convolution (MobileNet), stride 1, zero padding, NCHW with the batch and
    channels folded ((N C) x H x W): a thread per output, adjacent lanes along a row."""
    nc, i, j = wp.tid()
    ch = nc % w.shape[0]
    hh = x.shape[1]
    ww = x.shape[2]
    acc = float(0.0)
    for dy in range(3):
        yy = i + dy - 1
        if yy >= 0 and yy < hh:
            for dx in range(3):
                xx = j + dx - 1
                if xx >= 0 and xx < ww:
                    acc += w[ch, dy, dx] * x[nc, yy, xx]
    y[nc, i, j] = acc


@wp.kernel
def dwconv3x3_nhwc(x: wp.array3d(dtype=float), height: int, w: wp.array3d(dtype=float), y: wp.array3d(dtype=float)):
    """The same convolution in NHWC with the batch and rows folded ((N H) x W x C, images
    ``height`` rows tall; the weights 3 x 3 x C): adjacent lanes along the channels."""
    nh, j, ch = wp.tid()
    i = nh % height
    ww = x.shape[1]
    acc = float(0.0)
    for dy in range(3):
        yy = i + dy - 1
        if yy >= 0 and yy < height:
            for dx in range(3):
                xx = j + dx - 1
                if xx >= 0 and xx < ww:
                    acc += w[dy, dx, ch] * x[nh + dy - 1, xx, ch]
    y[nh, j, ch] = acc

