"""Kernels of the ninth blind validation set, written in simt from the algorithms of public GPU
suites and well-known GPU workloads (sparse formats DIA and JDS, HPCC's RandomAccess,
Borůvka's minimum spanning tree, AES, bit-parallel approximate string matching, segmented
sieves, bit unpacking of columnar data, shallow-water and seismic-wave stencils, Monte Carlo
photon migration, stochastic-volatility path simulation). Each is written from the algorithm's
description, as a user of simt would write it; none is a translation of a suite's source, and
none repeats an algorithm of the earlier blind sets (../blind/kernels.py to
../blind8/kernels_ml.py) or of the held-out set (../kernels.py, ../cases.py); the ML
operators, image and signal kernels are in kernels_ml.py. Where a kernel has variants of element
type it is generic (``typing.Any``) and each launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Launch shapes and inputs are in ``cases.py``; numpy
references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = wp.uint32(0xFFFFFFFF)
SEG = 32768         # numbers a block of the segmented sieves covers
SEG_WORDS = 1024    # its bitmap's 32-bit words (sieve_bits)
GUPS_POLY = wp.uint64(7)    # HPCC RandomAccess's generator polynomial


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
def unit_open(x: wp.uint32):
    """The top 24 bits of x as a float in (0, 1]."""
    return (float(int(x >> wp.uint32(8))) + 1.0) * 5.9604644775390625e-08


@wp.func
def warp_isum(v: int):
    s = v
    for k in range(5):
        s += wp.shfl_xor_sync(FULL, s, 16 >> k)
    return s


@wp.func
def warp_fsum(v: float):
    s = v
    for k in range(5):
        s += wp.shfl_xor_sync(FULL, s, 16 >> k)
    return s


# ---- sparse formats ------------------------------------------------------------------------------


@wp.kernel
def spmv_dia(offsets: wp.array(dtype=int), data: wp.array2d(dtype=float), x: wp.array(dtype=float),
             y: wp.array(dtype=float)):
    """SpMV in diagonal format (DIA: Bell and Garland; cuSPARSE's former dia format), for
    matrices of a few long diagonals such as a structured grid's: the diagonals' offsets, and
    their values diagonal-major (data[d, r] the entry of row r on diagonal d, zero where the
    diagonal leaves the matrix); a thread per row, adjacent lanes reading adjacent words."""
    r = wp.tid()
    n = x.shape[0]
    acc = float(0.0)
    for d in range(offsets.shape[0]):
        c = r + offsets[d]
        if c >= 0 and c < n:
            acc += data[d, r] * x[c]
    y[r] = acc


@wp.kernel
def spmv_jds(perm: wp.array(dtype=int), jd_ptr: wp.array(dtype=int), col: wp.array(dtype=int),
             val: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """SpMV in jagged diagonal storage (JDS, as in Parboil's spmv): rows sorted by decreasing
    length (perm[t] the t-th longest), the k-th entries of all rows that have one stored
    together as jagged diagonal k (from jd_ptr[k]); a thread per sorted row walks the diagonals
    while its row reaches them and writes its result to its original row."""
    t = wp.tid()
    acc = float(0.0)
    k = int(0)
    while k < jd_ptr.shape[0] - 1:
        p = jd_ptr[k] + t
        if p >= jd_ptr[k + 1]:
            break
        acc += val[p] * x[col[p]]
        k += 1
    y[perm[t]] = acc


# ---- random access and graphs --------------------------------------------------------------------


@wp.kernel
def gups_xor(table: wp.array(dtype=wp.uint64), seed: wp.uint64, per: int):
    """HPCC's RandomAccess (GUPS): a thread per stream of ``per`` updates, each value the next
    of the stream's x^63 + x^2 + x + 1 shift-register sequence (started from a splitmix64 hash
    of the thread's index), xored into the table entry its low bits name by a 64-bit atomic."""
    i = wp.tid()
    mask = wp.uint64(table.shape[0] - 1)
    v = seed + wp.uint64(i) * wp.uint64(0x9E3779B97F4A7C15)
    v = (v ^ (v >> wp.uint64(30))) * wp.uint64(0xBF58476D1CE4E5B9)
    v = (v ^ (v >> wp.uint64(27))) * wp.uint64(0x94D049BB133111EB)
    v = v ^ (v >> wp.uint64(31))
    for k in range(per):
        top = v >> wp.uint64(63)
        v = v << wp.uint64(1)
        if top == wp.uint64(1):
            v = v ^ GUPS_POLY
        wp.atomic_xor(table, int(v & mask), v)


@wp.kernel
def boruvka_lightest(src: wp.array(dtype=int), dst: wp.array(dtype=int), weight: wp.array(dtype=int),
                     comp: wp.array(dtype=int), best: wp.array(dtype=wp.uint64)):
    """Borůvka's minimum spanning tree (Lonestar's MST), the step that finds every component's
    lightest outgoing edge: a thread per edge whose ends lie in different components offers
    (weight, edge id) packed in 64 bits to both components by atomic min (ties broken by id)."""
    e = wp.tid()
    a = comp[src[e]]
    b = comp[dst[e]]
    if a != b:
        key = (wp.uint64(weight[e]) << wp.uint64(32)) | wp.uint64(e)
        wp.atomic_min(best, a, key)
        wp.atomic_min(best, b, key)


# ---- cryptography and strings --------------------------------------------------------------------


@wp.func
def ror32(x: wp.uint32, n: int):
    return (x >> wp.uint32(n)) | (x << wp.uint32(32 - n))


@wp.func
def byte_of(x: wp.uint32, shift: int):
    return int((x >> wp.uint32(shift)) & wp.uint32(255))


@wp.func
def aes_last(t: wp.array(dtype=wp.uint32), a: wp.uint32, b: wp.uint32, c: wp.uint32, d: wp.uint32):
    """The last round's column (SubBytes and ShiftRows, no MixColumns): S(x) is byte 1 of
    Te0[x]."""
    m = wp.uint32(0xFF00)
    return (((t[byte_of(a, 24)] & m) << wp.uint32(16)) | ((t[byte_of(b, 16)] & m) << wp.uint32(8))
            | (t[byte_of(c, 8)] & m) | ((t[byte_of(d, 0)] & m) >> wp.uint32(8)))


@wp.kernel
def aes128_t4(te0: wp.array(dtype=wp.uint32), rk: wp.array(dtype=wp.uint32), data: wp.array2d(dtype=wp.uint32),
              out: wp.array2d(dtype=wp.uint32)):
    """AES-128 encryption (FIPS-197) by T-tables, a thread per 16-byte block (four big-endian
    column words): the block's 256 threads copy the four 1 KB tables (Te0 and its byte
    rotations) into shared memory, then each of nine rounds is 16 table lookups and xors with
    the round key (44 expanded words, read by every thread alike); the last round takes the
    S-box bytes out of Te0."""
    t0s = wp.shared.array(shape=(256,), dtype=wp.uint32)
    t1s = wp.shared.array(shape=(256,), dtype=wp.uint32)
    t2s = wp.shared.array(shape=(256,), dtype=wp.uint32)
    t3s = wp.shared.array(shape=(256,), dtype=wp.uint32)
    i = wp.tid()
    for k in range(wp.thread_idx(), 256, wp.block_dim()):
        w = te0[k]
        t0s[k] = w
        t1s[k] = ror32(w, 8)
        t2s[k] = ror32(w, 16)
        t3s[k] = ror32(w, 24)
    wp.sync_threads()
    s0 = data[i, 0] ^ rk[0]
    s1 = data[i, 1] ^ rk[1]
    s2 = data[i, 2] ^ rk[2]
    s3 = data[i, 3] ^ rk[3]
    for r in range(1, 10):
        u0 = t0s[byte_of(s0, 24)] ^ t1s[byte_of(s1, 16)] ^ t2s[byte_of(s2, 8)] ^ t3s[byte_of(s3, 0)] ^ rk[4 * r]
        u1 = t0s[byte_of(s1, 24)] ^ t1s[byte_of(s2, 16)] ^ t2s[byte_of(s3, 8)] ^ t3s[byte_of(s0, 0)] ^ rk[4 * r + 1]
        u2 = t0s[byte_of(s2, 24)] ^ t1s[byte_of(s3, 16)] ^ t2s[byte_of(s0, 8)] ^ t3s[byte_of(s1, 0)] ^ rk[4 * r + 2]
        u3 = t0s[byte_of(s3, 24)] ^ t1s[byte_of(s0, 16)] ^ t2s[byte_of(s1, 8)] ^ t3s[byte_of(s2, 0)] ^ rk[4 * r + 3]
        s0 = u0
        s1 = u1
        s2 = u2
        s3 = u3
    out[i, 0] = aes_last(t0s, s0, s1, s2, s3) ^ rk[40]
    out[i, 1] = aes_last(t0s, s1, s2, s3, s0) ^ rk[41]
    out[i, 2] = aes_last(t0s, s2, s3, s0, s1) ^ rk[42]
    out[i, 3] = aes_last(t0s, s3, s0, s1, s2) ^ rk[43]


@wp.kernel
def aes128_t1(te0: wp.array(dtype=wp.uint32), rk: wp.array(dtype=wp.uint32), data: wp.array2d(dtype=wp.uint32),
              out: wp.array2d(dtype=wp.uint32)):
    """The same encryption with one 1 KB table in shared memory: the other three lookups of a
    column rotate Te0's word by 8, 16 and 24 bits (a quarter of the shared memory, three
    rotations more a lookup)."""
    ts = wp.shared.array(shape=(256,), dtype=wp.uint32)
    i = wp.tid()
    for k in range(wp.thread_idx(), 256, wp.block_dim()):
        ts[k] = te0[k]
    wp.sync_threads()
    s0 = data[i, 0] ^ rk[0]
    s1 = data[i, 1] ^ rk[1]
    s2 = data[i, 2] ^ rk[2]
    s3 = data[i, 3] ^ rk[3]
    for r in range(1, 10):
        u0 = (ts[byte_of(s0, 24)] ^ ror32(ts[byte_of(s1, 16)], 8) ^ ror32(ts[byte_of(s2, 8)], 16)
              ^ ror32(ts[byte_of(s3, 0)], 24) ^ rk[4 * r])
        u1 = (ts[byte_of(s1, 24)] ^ ror32(ts[byte_of(s2, 16)], 8) ^ ror32(ts[byte_of(s3, 8)], 16)
              ^ ror32(ts[byte_of(s0, 0)], 24) ^ rk[4 * r + 1])
        u2 = (ts[byte_of(s2, 24)] ^ ror32(ts[byte_of(s3, 16)], 8) ^ ror32(ts[byte_of(s0, 8)], 16)
              ^ ror32(ts[byte_of(s1, 0)], 24) ^ rk[4 * r + 2])
        u3 = (ts[byte_of(s3, 24)] ^ ror32(ts[byte_of(s0, 16)], 8) ^ ror32(ts[byte_of(s1, 8)], 16)
              ^ ror32(ts[byte_of(s2, 0)], 24) ^ rk[4 * r + 3])
        s0 = u0
        s1 = u1
        s2 = u2
        s3 = u3
    out[i, 0] = aes_last(ts, s0, s1, s2, s3) ^ rk[40]
    out[i, 1] = aes_last(ts, s1, s2, s3, s0) ^ rk[41]
    out[i, 2] = aes_last(ts, s2, s3, s0, s1) ^ rk[42]
    out[i, 3] = aes_last(ts, s3, s0, s1, s2) ^ rk[43]


@wp.func
def peq_of(c: int, e0: wp.uint32, e1: wp.uint32, e2: wp.uint32, e3: wp.uint32):
    r = e3
    if c == 0:
        r = e0
    elif c == 1:
        r = e1
    elif c == 2:
        r = e2
    return r


@wp.kernel
def myers_search(pat: wp.array2d(dtype=wp.uint8), text: wp.array(dtype=wp.uint8), tlen: int, sp: int, sc: int,
                 dist: wp.array(dtype=int), end: wp.array(dtype=int)):
    """Approximate matching by Myers' bit-parallel algorithm (Myers 1999, as GPU read mappers
    and aligners use it): a thread per (pattern, text) pair, a 32-letter DNA pattern as bit
    vectors, one pass over the text of ``tlen`` letters keeping the vertical deltas in two
    words; the least edit distance of the pattern to any substring and where it first ends.
    Letter j of text p is text[p * sp + j * sc] (row-major texts: sp = tlen, sc = 1;
    interleaved: sp = 1, sc = the number of texts)."""
    p = wp.tid()
    e0 = wp.uint32(0)
    e1 = wp.uint32(0)
    e2 = wp.uint32(0)
    e3 = wp.uint32(0)
    for k in range(32):
        c = int(pat[p, k])
        bit = wp.uint32(1) << wp.uint32(k)
        if c == 0:
            e0 = e0 | bit
        elif c == 1:
            e1 = e1 | bit
        elif c == 2:
            e2 = e2 | bit
        else:
            e3 = e3 | bit
    hb = wp.uint32(1) << wp.uint32(31)
    pv = FULL
    mv = wp.uint32(0)
    score = int(32)
    best = int(32)
    at = int(-1)
    base = p * sp
    for j in range(tlen):
        eq = peq_of(int(text[base + j * sc]), e0, e1, e2, e3)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | ~(xh | pv)
        mh = pv & xh
        if (ph & hb) != wp.uint32(0):
            score += 1
        elif (mh & hb) != wp.uint32(0):
            score -= 1
        ph = ph << wp.uint32(1)
        mh = mh << wp.uint32(1)
        pv = mh | ~(xv | ph)
        mv = ph & xv
        if score < best:
            best = score
            at = j
    dist[p] = best
    end[p] = at


# ---- integer kernels: sieving and unpacking ------------------------------------------------------


@wp.kernel
def sieve_bytes(primes: wp.array(dtype=int), count: wp.array(dtype=int)):
    """A segmented sieve of Eratosthenes (as GPU prime sieves and primesieve segment it), a
    block per SEG numbers held one byte each in shared memory (32 KB a block): every thread
    takes every base prime in turn and crosses out its share of the prime's multiples in the
    segment (lanes p apart), then the block counts what is left (a shuffle sum and an atomic a
    warp)."""
    mark = wp.shared.array(shape=(SEG,), dtype=wp.uint8)
    t = wp.thread_idx()
    nt = wp.block_dim()
    lo = wp.block_idx() * SEG
    hi = lo + SEG
    for k in range(t, SEG, nt):
        mark[k] = wp.uint8(1)
    wp.sync_threads()
    for q in range(primes.shape[0]):
        p = primes[q]
        if p * p >= hi:
            break
        first = wp.max(p * p, ((lo + p - 1) // p) * p) - lo
        for m in range(first + t * p, SEG, nt * p):
            mark[m] = wp.uint8(0)
    wp.sync_threads()
    c = int(0)
    for k in range(t, SEG, nt):
        c += int(mark[k])
    if lo == 0 and t == 0:
        c -= 2          # 0 and 1
    c = warp_isum(c)
    if wp.lane_id() == 0:
        wp.atomic_add(count, wp.block_idx(), c)


@wp.kernel
def sieve_bits(primes: wp.array(dtype=int), count: wp.array(dtype=int)):
    """The same sieve with the segment a bitmap in shared memory (4 KB a block): a multiple is
    crossed out by a shared atomic AND on its word, and the block counts the set bits."""
    bits = wp.shared.array(shape=(SEG_WORDS,), dtype=wp.uint32)
    t = wp.thread_idx()
    nt = wp.block_dim()
    lo = wp.block_idx() * SEG
    hi = lo + SEG
    for k in range(t, SEG_WORDS, nt):
        bits[k] = FULL
    wp.sync_threads()
    for q in range(primes.shape[0]):
        p = primes[q]
        if p * p >= hi:
            break
        first = wp.max(p * p, ((lo + p - 1) // p) * p) - lo
        for m in range(first + t * p, SEG, nt * p):
            wp.atomic_and(bits, m >> 5, ~(wp.uint32(1) << wp.uint32(m & 31)))
    wp.sync_threads()
    c = int(0)
    for k in range(t, SEG_WORDS, nt):
        c += wp.bit_count(bits[k])
    if lo == 0 and t == 0:
        c -= 2          # 0 and 1
    c = warp_isum(c)
    if wp.lane_id() == 0:
        wp.atomic_add(count, wp.block_idx(), c)


@wp.kernel
def bitunpack_for(words: wp.array(dtype=wp.uint32), width: int, base: wp.array(dtype=int),
                  out: wp.array(dtype=int)):
    """Decoding bit-packed integers with a frame of reference (columnar formats such as Parquet
    and GPU databases' FOR-bitpacking): value i is the ``width`` bits from bit i * width of a
    little-endian stream of 32-bit words (one or two words), plus its block of 128's base."""
    i = wp.tid()
    bit = i * width
    w = bit >> 5
    s = bit & 31
    v = words[w] >> wp.uint32(s)
    if s + width > 32:
        v = v | (words[w + 1] << wp.uint32(32 - s))
    v = v & ((wp.uint32(1) << wp.uint32(width)) - wp.uint32(1))
    out[i] = base[i >> 7] + int(v)


# ---- physics: stencils ---------------------------------------------------------------------------


@wp.kernel
def shallow_water(h: wp.array2d(dtype=Any), hu: wp.array2d(dtype=Any), hv: wp.array2d(dtype=Any), g: float,
                  lam: float, ho: wp.array2d(dtype=Any), huo: wp.array2d(dtype=Any), hvo: wp.array2d(dtype=Any)):
    """One Lax-Friedrichs step of the 2-D shallow-water equations on a periodic grid (the
    classic GPU teaching and tsunami-code scheme): each cell averages its four neighbours' depth
    and momenta and subtracts the centred differences of the fluxes F = (hu, hu^2/h + g h^2/2,
    hu hv/h) along x and G = (hv, hu hv/h, hv^2/h + g h^2/2) along y (lam = dt / 2dx); twelve
    loads, four divisions, three stores a cell. Generic: fp32 or fp64."""
    i, j = wp.tid()
    ny = h.shape[0]
    nx = h.shape[1]
    T = type(h[0, 0])
    gh = T(0.5) * T(g)
    lm = T(lam)
    q = T(0.25)
    jp = (j + 1) % nx
    jm = (j + nx - 1) % nx
    ip = (i + 1) % ny
    im = (i + ny - 1) % ny
    he = h[i, jp]
    ue = hu[i, jp]
    ve = hv[i, jp]
    hw = h[i, jm]
    uw = hu[i, jm]
    vw = hv[i, jm]
    hn = h[ip, j]
    un = hu[ip, j]
    vn = hv[ip, j]
    hs = h[im, j]
    us = hu[im, j]
    vs = hv[im, j]
    fe = ue * ue / he + gh * he * he
    fw = uw * uw / hw + gh * hw * hw
    ge = ue * ve / he
    gw = uw * vw / hw
    fn = un * vn / hn
    fs = us * vs / hs
    gn = vn * vn / hn + gh * hn * hn
    gs = vs * vs / hs + gh * hs * hs
    ho[i, j] = q * (he + hw + hn + hs) - lm * (ue - uw) - lm * (vn - vs)
    huo[i, j] = q * (ue + uw + un + us) - lm * (fe - fw) - lm * (fn - fs)
    hvo[i, j] = q * (ve + vw + vn + vs) - lm * (ge - gw) - lm * (gn - gs)


@wp.kernel
def wave3d_o8(p: wp.array3d(dtype=float), prev: wp.array3d(dtype=float), vel2: wp.array3d(dtype=float),
              out: wp.array3d(dtype=float)):
    """A time step of the acoustic wave equation, eighth order in space and second in time (the
    propagation kernel of seismic reverse-time migration): a thread per point at least four
    from the faces (the launch covers the interior; index + 4) sums the 25-point star of p
    with the eighth-order weights; out = 2 p - prev + (v dt / h)^2 times that Laplacian."""
    z0, y0, x0 = wp.tid()
    z = z0 + 4
    y = y0 + 4
    x = x0 + 4
    c = p[z, y, x]
    lap = -8.541666666666666 * c
    lap += 1.6 * (p[z, y, x - 1] + p[z, y, x + 1] + p[z, y - 1, x] + p[z, y + 1, x] + p[z - 1, y, x] + p[z + 1, y, x])
    lap += -0.2 * (p[z, y, x - 2] + p[z, y, x + 2] + p[z, y - 2, x] + p[z, y + 2, x] + p[z - 2, y, x] + p[z + 2, y, x])
    lap += 0.025396825396825397 * (p[z, y, x - 3] + p[z, y, x + 3] + p[z, y - 3, x] + p[z, y + 3, x]
                                   + p[z - 3, y, x] + p[z + 3, y, x])
    lap += -0.0017857142857142857 * (p[z, y, x - 4] + p[z, y, x + 4] + p[z, y - 4, x] + p[z, y + 4, x]
                                     + p[z - 4, y, x] + p[z + 4, y, x])
    out[z, y, x] = 2.0 * c - prev[z, y, x] + vel2[z, y, x] * lap


# ---- Monte Carlo ---------------------------------------------------------------------------------


@wp.func
def xorshift32(s: wp.uint32):
    x = s ^ (s << wp.uint32(13))
    x = x ^ (x >> wp.uint32(17))
    return x ^ (x << wp.uint32(5))


@wp.kernel
def photon_mc(seed: wp.uint32, mua: float, mus: float, g: float, dr: float, dz: float,
              absorb: wp.array2d(dtype=float), refl: wp.array(dtype=float)):
    """Monte Carlo photon migration in a semi-infinite turbid medium (MCML's hop, drop and spin,
    as CUDAMCML runs it), a photon per thread launched straight down at the origin: a step of
    -ln(u) / mu_t, a share 1 - albedo of its weight dropped into the (depth, radius) grid by a
    float atomic, a Henyey-Greenstein turn; it leaves through the surface into a radial
    reflectance bin (atomic), or ends below weight 1e-4 (the rest dropped where it is, so that
    all weight is accounted for). xorshift32 a thread; the walks' lengths differ widely."""
    i = wp.tid()
    st = hash32(wp.uint32(i) ^ seed) | wp.uint32(1)
    nz = absorb.shape[0]
    nr = absorb.shape[1]
    mut = mua + mus
    alb = mus / mut
    x = float(0.0)
    y = float(0.0)
    z = float(0.0)
    ux = float(0.0)
    uy = float(0.0)
    uz = float(1.0)
    w = float(1.0)
    while w > 0.0:
        st = xorshift32(st)
        s = -wp.log(unit_open(st)) / mut
        if z + uz * s < 0.0:
            sb = -z / uz
            xe = x + ux * sb
            ye = y + uy * sb
            ir = wp.min(int(wp.sqrt(xe * xe + ye * ye) / dr), nr - 1)
            wp.atomic_add(refl, ir, w)
            w = 0.0
        else:
            x += ux * s
            y += uy * s
            z += uz * s
            dw = w * (1.0 - alb)
            w -= dw
            if w < 1.0e-4:
                dw += w
                w = 0.0
            ir = wp.min(int(wp.sqrt(x * x + y * y) / dr), nr - 1)
            iz = wp.min(int(z / dz), nz - 1)
            wp.atomic_add(absorb, iz, ir, dw)
            if w > 0.0:
                st = xorshift32(st)
                tmp = (1.0 - g * g) / (1.0 - g + 2.0 * g * unit_open(st))
                cost = wp.clamp((1.0 + g * g - tmp * tmp) / (2.0 * g), -1.0, 1.0)
                sint = wp.sqrt(1.0 - cost * cost)
                st = xorshift32(st)
                phi = 6.283185307179586 * unit_open(st)
                cp = wp.cos(phi)
                sp = wp.sin(phi)
                if wp.abs(uz) > 0.99999:
                    ux = sint * cp
                    uy = sint * sp
                    uz = wp.sign(uz) * cost
                else:
                    r = wp.sqrt(1.0 - uz * uz)
                    nx = sint * (ux * uz * cp - uy * sp) / r + ux * cost
                    ny = sint * (uy * uz * cp + ux * sp) / r + uy * cost
                    uz = -sint * cp * r + uz * cost
                    ux = nx
                    uy = ny


@wp.kernel
def heston_euler(steps: int, dt: float, s0: float, v0: float, kappa: float, theta: float, xi: float,
                 rho: float, rate: float, strike: float, seed: wp.uint32, payoff: wp.array(dtype=float),
                 total: wp.array(dtype=float)):
    """Heston stochastic-volatility paths by full-truncation Euler (the Monte Carlo of equity
    derivatives desks), a thread per path: each step two uniforms from a hash of (path, step),
    Box-Muller's log, sqrt, cos and sin for two normals, correlated; log-Euler for the price.
    The discounted call payoff per path, and their sum (a shuffle sum and an atomic a warp)."""
    i = wp.tid()
    s = s0
    v = v0
    rc = wp.sqrt(1.0 - rho * rho)
    ctr = wp.uint32(i) * wp.uint32(2 * steps)
    for k in range(steps):
        u1 = unit_open(hash32((ctr + wp.uint32(2 * k)) ^ seed))
        u2 = unit_open(hash32((ctr + wp.uint32(2 * k + 1)) ^ seed))
        r = wp.sqrt(-2.0 * wp.log(u1))
        z1 = r * wp.cos(6.283185307179586 * u2)
        z2 = r * wp.sin(6.283185307179586 * u2)
        vp = wp.max(v, 0.0)
        sq = wp.sqrt(vp * dt)
        s = s * wp.exp((rate - 0.5 * vp) * dt + sq * z1)
        v = v + kappa * (theta - vp) * dt + xi * sq * (rho * z1 + rc * z2)
    pay = wp.exp(-rate * dt * float(steps)) * wp.max(s - strike, 0.0)
    payoff[i] = pay
    pay = warp_fsum(pay)
    if wp.lane_id() == 0:
        wp.atomic_add(total, 0, pay)
