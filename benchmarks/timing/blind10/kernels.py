"""Kernels of the tenth blind validation set, written in simt from the algorithms of public GPU
suites and well-known GPU workloads (XSBench's cross-section lookups, Miller-Rabin primality,
Reed-Solomon syndromes, SHA-256, WENO5 reconstruction, Gray-Scott reaction-diffusion, run-length
decoding, TPC-H's query 6, k-core peeling, batched LU factorisation, position-weight-matrix
motif scanning). Each is written from the algorithm's description, as a user of simt would write
it; none is a translation of a suite's source, and none repeats an algorithm of the earlier
blind sets (../blind/kernels.py to ../blind9/kernels_ml.py) or of the held-out set
(../kernels.py, ../cases.py); the ML operators, image, signal and graphics kernels are in
kernels_ml.py. Where a kernel has variants of element type it is generic (``typing.Any``) and
each launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Launch shapes and inputs are in ``cases.py``; numpy
references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = wp.uint32(0xFFFFFFFF)
XS = 5              # cross sections a nuclide grid point holds (total, elastic, absorption, fission, nu-fission)
RS_N = 255          # Reed-Solomon RS(255, 223): code length in bytes
RS_T2 = 32          # its 32 syndromes (2t: 16 correctable byte errors)
LU = 8              # batched LU: the matrices' order
MOTIF = 16          # the position weight matrix's length


@wp.func
def warp_fsum(v: float):
    s = v
    for k in range(5):
        s += wp.shfl_xor_sync(FULL, s, 16 >> k)
    return s


@wp.func
def warp_isum(v: int):
    s = v
    for k in range(5):
        s += wp.shfl_xor_sync(FULL, s, 16 >> k)
    return s


# ---- Monte Carlo neutron transport: XSBench's macroscopic cross-section lookup -------------------


@wp.kernel
def xs_lookup_nuclide(grid: wp.array3d(dtype=wp.float64), num_nucs: wp.array(dtype=int),
                      mat_nucs: wp.array2d(dtype=int), conc: wp.array2d(dtype=wp.float64),
                      energy: wp.array(dtype=wp.float64), mat: wp.array(dtype=int),
                      macro: wp.array2d(dtype=wp.float64)):
    """XSBench's event-based macroscopic cross-section lookup (the proxy of OpenMC's hot loop),
    on the nuclide grids: a thread per lookup (an energy and a material) walks the material's
    nuclides, finds the energy in each nuclide's own grid by bisection (grid[nuc, k] holds the
    k-th energy then its five cross sections, 48 bytes a point), interpolates the five cross
    sections between the two bracketing points and adds them times the nuclide's
    concentration."""
    i = wp.tid()
    e = energy[i]
    m = mat[i]
    npts = grid.shape[1]
    a0 = wp.float64(0.0)
    a1 = wp.float64(0.0)
    a2 = wp.float64(0.0)
    a3 = wp.float64(0.0)
    a4 = wp.float64(0.0)
    for k in range(num_nucs[m]):
        nuc = mat_nucs[m, k]
        lo = int(0)
        hi = npts - 1
        while hi - lo > 1:
            mid = (lo + hi) >> 1
            if grid[nuc, mid, 0] > e:
                hi = mid
            else:
                lo = mid
        e0 = grid[nuc, lo, 0]
        e1 = grid[nuc, lo + 1, 0]
        f = (e1 - e) / (e1 - e0)
        c = conc[m, k]
        a0 += c * (grid[nuc, lo + 1, 1] - f * (grid[nuc, lo + 1, 1] - grid[nuc, lo, 1]))
        a1 += c * (grid[nuc, lo + 1, 2] - f * (grid[nuc, lo + 1, 2] - grid[nuc, lo, 2]))
        a2 += c * (grid[nuc, lo + 1, 3] - f * (grid[nuc, lo + 1, 3] - grid[nuc, lo, 3]))
        a3 += c * (grid[nuc, lo + 1, 4] - f * (grid[nuc, lo + 1, 4] - grid[nuc, lo, 4]))
        a4 += c * (grid[nuc, lo + 1, 5] - f * (grid[nuc, lo + 1, 5] - grid[nuc, lo, 5]))
    macro[i, 0] = a0
    macro[i, 1] = a1
    macro[i, 2] = a2
    macro[i, 3] = a3
    macro[i, 4] = a4


@wp.kernel
def xs_lookup_unionized(grid: wp.array3d(dtype=wp.float64), union_e: wp.array(dtype=wp.float64),
                        index: wp.array2d(dtype=int), num_nucs: wp.array(dtype=int),
                        mat_nucs: wp.array2d(dtype=int), conc: wp.array2d(dtype=wp.float64),
                        energy: wp.array(dtype=wp.float64), mat: wp.array(dtype=int),
                        macro: wp.array2d(dtype=wp.float64)):
    """The same lookup on XSBench's unionized energy grid: one bisection in the union of all
    nuclides' energies, whose row of the index grid gives every nuclide's bracketing point
    directly (a gather a nuclide in place of a bisection)."""
    i = wp.tid()
    e = energy[i]
    m = mat[i]
    lo = int(0)
    hi = union_e.shape[0] - 1
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if union_e[mid] > e:
            hi = mid
        else:
            lo = mid
    u = lo
    a0 = wp.float64(0.0)
    a1 = wp.float64(0.0)
    a2 = wp.float64(0.0)
    a3 = wp.float64(0.0)
    a4 = wp.float64(0.0)
    for k in range(num_nucs[m]):
        nuc = mat_nucs[m, k]
        p = index[u, nuc]
        e0 = grid[nuc, p, 0]
        e1 = grid[nuc, p + 1, 0]
        f = (e1 - e) / (e1 - e0)
        c = conc[m, k]
        a0 += c * (grid[nuc, p + 1, 1] - f * (grid[nuc, p + 1, 1] - grid[nuc, p, 1]))
        a1 += c * (grid[nuc, p + 1, 2] - f * (grid[nuc, p + 1, 2] - grid[nuc, p, 2]))
        a2 += c * (grid[nuc, p + 1, 3] - f * (grid[nuc, p + 1, 3] - grid[nuc, p, 3]))
        a3 += c * (grid[nuc, p + 1, 4] - f * (grid[nuc, p + 1, 4] - grid[nuc, p, 4]))
        a4 += c * (grid[nuc, p + 1, 5] - f * (grid[nuc, p + 1, 5] - grid[nuc, p, 5]))
    macro[i, 0] = a0
    macro[i, 1] = a1
    macro[i, 2] = a2
    macro[i, 3] = a3
    macro[i, 4] = a4


# ---- number theory and coding --------------------------------------------------------------------


@wp.func
def mulmod(a: wp.uint64, b: wp.uint64, n: wp.uint64):
    """a b mod n for a, b < n < 2^32 (the product fits 64 bits)."""
    return (a * b) % n


@wp.func
def mr_composite(base: wp.uint64, d: wp.uint64, s: int, n: wp.uint64):
    """1 when ``base`` is a Miller-Rabin witness that n = d 2^s + 1 is composite, else 0."""
    one = wp.uint64(1)
    x = one
    p = base % n
    e = d
    while e != wp.uint64(0):
        if (e & one) != wp.uint64(0):
            x = mulmod(x, p, n)
        p = mulmod(p, p, n)
        e = e >> one
    r = int(1)
    if x == one or x == n - one:
        r = 0
    else:
        for k in range(1, s):
            x = mulmod(x, x, n)
            if x == n - one:
                r = 0
                break
    return r


@wp.kernel
def miller_rabin(cand: wp.array(dtype=wp.uint32), prime: wp.array(dtype=wp.uint8)):
    """Deterministic Miller-Rabin for odd 32-bit numbers above 61 (bases 2, 7 and 61 decide
    every n < 4,759,123,141; GPU primality searches and key generators): a thread per
    candidate writes n - 1 = d 2^s, then tries the bases in turn, each a modular power by
    squaring (64-bit products and remainders) and up to s - 1 squarings; a composite usually
    stops after the first base, a prime runs all three."""
    i = wp.tid()
    n = wp.uint64(cand[i])
    d = n - wp.uint64(1)
    s = int(0)
    while (d & wp.uint64(1)) == wp.uint64(0):
        d = d >> wp.uint64(1)
        s += 1
    r = wp.uint8(1)
    if mr_composite(wp.uint64(2), d, s, n) == 1:
        r = wp.uint8(0)
    elif mr_composite(wp.uint64(7), d, s, n) == 1:
        r = wp.uint8(0)
    elif mr_composite(wp.uint64(61), d, s, n) == 1:
        r = wp.uint8(0)
    prime[i] = r


@wp.kernel
def rs_syndromes_log(cw: wp.array2d(dtype=wp.uint8), gexp: wp.array(dtype=int), glog: wp.array(dtype=int),
                     synd: wp.array2d(dtype=wp.uint8)):
    """Reed-Solomon RS(255, 223) syndromes over GF(2^8) (x^8 + x^4 + x^3 + x^2 + 1; the first
    step of CCSDS, DVB and storage decoders): a thread per (codeword, syndrome j), the 32
    syndromes of a codeword on a warp's lanes; S_j = c(alpha^j) for j = 1..32 by Horner's rule
    over the 255 bytes (every lane reads the same byte), each product by alpha^j through the
    log and antilog tables the block stages in shared memory (the antilog doubled, 512
    entries, so no reduction mod 255)."""
    se = wp.shared.array(shape=(512,), dtype=int)
    sl = wp.shared.array(shape=(256,), dtype=int)
    for k in range(wp.thread_idx(), 512, wp.block_dim()):
        se[k] = gexp[k]
        if k < 256:
            sl[k] = glog[k]
    wp.sync_threads()
    g = wp.tid()
    c = g >> 5
    j = (g & 31) + 1
    s = int(0)
    for k in range(RS_N):
        if s != 0:
            s = se[sl[s] + j]
        s = s ^ int(cw[c, k])
    synd[c, j - 1] = wp.uint8(s)


@wp.func
def gf_xtime(x: int):
    r = x << 1
    if r > 255:
        r = r ^ 0x11D
    return r


@wp.kernel
def rs_syndromes_bitwise(cw: wp.array2d(dtype=wp.uint8), synd: wp.array2d(dtype=wp.uint8)):
    """The same syndromes with no tables: alpha^j by j doublings, then each Horner step a
    shift-and-add product by it, eight conditional xors and doublings (lanes hold different
    multipliers, so the conditions differ across the warp)."""
    g = wp.tid()
    c = g >> 5
    j = (g & 31) + 1
    aj = int(1)
    for k in range(j):
        aj = gf_xtime(aj)
    s = int(0)
    for k in range(RS_N):
        p = int(0)
        x = s
        m = aj
        for b in range(8):
            if (m & 1) != 0:
                p = p ^ x
            x = gf_xtime(x)
            m = m >> 1
        s = p ^ int(cw[c, k])
    synd[c, j - 1] = wp.uint8(s)


# ---- cryptography: SHA-256 -----------------------------------------------------------------------


@wp.func
def rotr(x: wp.uint32, n: int):
    return (x >> wp.uint32(n)) | (x << wp.uint32(32 - n))


@wp.kernel
def sha256_msgs(words: wp.array2d(dtype=wp.uint32), kc: wp.array(dtype=wp.uint32), nblk: int,
                digest: wp.array2d(dtype=wp.uint32)):
    """SHA-256 (FIPS 180-4) of many messages, a thread per message already padded to ``nblk``
    64-byte blocks (big-endian words, message-major: lanes a message apart): per block the
    64 rounds, the message schedule kept as a rolling window of 16 words in a local vector,
    the round constants read from global memory (one word for the whole warp); the eight
    digest words out."""
    i = wp.tid()
    h0 = wp.uint32(0x6A09E667)
    h1 = wp.uint32(0xBB67AE85)
    h2 = wp.uint32(0x3C6EF372)
    h3 = wp.uint32(0xA54FF53A)
    h4 = wp.uint32(0x510E527F)
    h5 = wp.uint32(0x9B05688C)
    h6 = wp.uint32(0x1F83D9AB)
    h7 = wp.uint32(0x5BE0CD19)
    w = wp.vector(length=16, dtype=wp.uint32)
    for b in range(nblk):
        for t in range(16):
            w[t] = words[i, b * 16 + t]
        a = h0
        bb = h1
        c = h2
        d = h3
        e = h4
        f = h5
        g = h6
        h = h7
        for t in range(64):
            if t >= 16:
                w2 = w[(t - 2) & 15]
                w15 = w[(t - 15) & 15]
                s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> wp.uint32(3))
                s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> wp.uint32(10))
                w[t & 15] = s1 + w[(t - 7) & 15] + s0 + w[t & 15]
            big1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            ch = (e & f) ^ (~e & g)
            t1 = h + big1 + ch + kc[t] + w[t & 15]
            big0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            maj = (a & bb) ^ (a & c) ^ (bb & c)
            t2 = big0 + maj
            h = g
            g = f
            f = e
            e = d + t1
            d = c
            c = bb
            bb = a
            a = t1 + t2
        h0 += a
        h1 += bb
        h2 += c
        h3 += d
        h4 += e
        h5 += f
        h6 += g
        h7 += h
    digest[i, 0] = h0
    digest[i, 1] = h1
    digest[i, 2] = h2
    digest[i, 3] = h3
    digest[i, 4] = h4
    digest[i, 5] = h5
    digest[i, 6] = h6
    digest[i, 7] = h7


# ---- CFD and pattern formation -------------------------------------------------------------------


@wp.func
def weno5(v0: Any, v1: Any, v2: Any, v3: Any, v4: Any):
    """WENO5-JS (Jiang and Shu): the value at the right face of v2's cell from the left-biased
    five-point stencil: three third-order candidates weighted by their smoothness."""
    T = type(v2)
    c13 = T(1.0833333333333333)     # 13 / 12 (a literal: 13.0 / 12.0 would be folded in fp32)
    q = T(0.25)
    eps = T(1.0e-6)
    d0 = v0 - T(2.0) * v1 + v2
    d1 = v1 - T(2.0) * v2 + v3
    d2 = v2 - T(2.0) * v3 + v4
    e0 = v0 - T(4.0) * v1 + T(3.0) * v2
    e1 = v1 - v3
    e2 = T(3.0) * v2 - T(4.0) * v3 + v4
    b0 = c13 * d0 * d0 + q * e0 * e0
    b1 = c13 * d1 * d1 + q * e1 * e1
    b2 = c13 * d2 * d2 + q * e2 * e2
    a0 = T(0.1) / ((eps + b0) * (eps + b0))
    a1 = T(0.6) / ((eps + b1) * (eps + b1))
    a2 = T(0.3) / ((eps + b2) * (eps + b2))
    p0 = T(2.0) * v0 - T(7.0) * v1 + T(11.0) * v2
    p1 = -v1 + T(5.0) * v2 + T(2.0) * v3
    p2 = T(2.0) * v2 + T(5.0) * v3 - v4
    return (a0 * p0 + a1 * p1 + a2 * p2) / (T(6.0) * (a0 + a1 + a2))


@wp.kernel
def weno5_burgers(u: wp.array2d(dtype=Any), alpha: float, inv_dx: float, dudt: wp.array2d(dtype=Any)):
    """The right-hand side of the inviscid Burgers equation u_t + (u^2 / 2)_x = 0 along each
    row of a periodic 2-D field by WENO5 with global Lax-Friedrichs flux splitting (the
    finite-difference scheme of shock-capturing codes): a thread per cell loads u at j - 3 to
    j + 3, splits f = u^2 / 2 into f+- = (f +- alpha u) / 2, reconstructs f+ from the left and
    f- from the right at both faces (four WENO5 reconstructions, twelve divisions) and writes
    -(F_{j+1/2} - F_{j-1/2}) / dx. Generic: fp32 or fp64."""
    i, j = wp.tid()
    n = u.shape[1]
    T = type(u[0, 0])
    al = T(alpha)
    hf = T(0.5)
    um3 = u[i, (j + n - 3) % n]
    um2 = u[i, (j + n - 2) % n]
    um1 = u[i, (j + n - 1) % n]
    u0 = u[i, j]
    up1 = u[i, (j + 1) % n]
    up2 = u[i, (j + 2) % n]
    up3 = u[i, (j + 3) % n]
    pm3 = hf * (hf * um3 * um3 + al * um3)
    pm2 = hf * (hf * um2 * um2 + al * um2)
    pm1 = hf * (hf * um1 * um1 + al * um1)
    p0 = hf * (hf * u0 * u0 + al * u0)
    pp1 = hf * (hf * up1 * up1 + al * up1)
    pp2 = hf * (hf * up2 * up2 + al * up2)
    mm2 = hf * (hf * um2 * um2 - al * um2)
    mm1 = hf * (hf * um1 * um1 - al * um1)
    m0 = hf * (hf * u0 * u0 - al * u0)
    mp1 = hf * (hf * up1 * up1 - al * up1)
    mp2 = hf * (hf * up2 * up2 - al * up2)
    mp3 = hf * (hf * up3 * up3 - al * up3)
    right = weno5(pm2, pm1, p0, pp1, pp2) + weno5(mp3, mp2, mp1, m0, mm1)
    left = weno5(pm3, pm2, pm1, p0, pp1) + weno5(mp2, mp1, m0, mm1, mm2)
    dudt[i, j] = -(right - left) * T(inv_dx)


@wp.kernel
def gray_scott_soa(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), du: float, dv: float, feed: float,
                   kill: float, dt: float, uo: wp.array2d(dtype=float), vo: wp.array2d(dtype=float)):
    """A forward-Euler step of the Gray-Scott reaction-diffusion model (Pearson's patterns; the
    GPU demos' and Gray-Scott benchmarks' kernel) on a periodic grid, the two species in two
    planes: five-point Laplacians of u and v, the reaction u v^2, feed and kill."""
    i, j = wp.tid()
    ny = u.shape[0]
    nx = u.shape[1]
    ip = (i + 1) % ny
    im = (i + ny - 1) % ny
    jp = (j + 1) % nx
    jm = (j + nx - 1) % nx
    uc = u[i, j]
    vc = v[i, j]
    lu = u[ip, j] + u[im, j] + u[i, jp] + u[i, jm] - 4.0 * uc
    lv = v[ip, j] + v[im, j] + v[i, jp] + v[i, jm] - 4.0 * vc
    r = uc * vc * vc
    uo[i, j] = uc + dt * (du * lu - r + feed * (1.0 - uc))
    vo[i, j] = vc + dt * (dv * lv + r - (feed + kill) * vc)


@wp.kernel
def gray_scott_aos(uv: wp.array2d(dtype=wp.vec2), du: float, dv: float, feed: float, kill: float, dt: float,
                   out: wp.array2d(dtype=wp.vec2)):
    """The same step with the species interleaved, a vec2 (u, v) a cell (one 8-byte load a
    neighbour)."""
    i, j = wp.tid()
    ny = uv.shape[0]
    nx = uv.shape[1]
    ip = (i + 1) % ny
    im = (i + ny - 1) % ny
    jp = (j + 1) % nx
    jm = (j + nx - 1) % nx
    c = uv[i, j]
    lap = uv[ip, j] + uv[im, j] + uv[i, jp] + uv[i, jm] - 4.0 * c
    uc = c[0]
    vc = c[1]
    r = uc * vc * vc
    out[i, j] = wp.vec2(uc + dt * (du * lap[0] - r + feed * (1.0 - uc)),
                        vc + dt * (dv * lap[1] + r - (feed + kill) * vc))


# ---- columnar data: run-length decoding and a TPC-H query ----------------------------------------


@wp.kernel
def rle_decode_runs(value: wp.array(dtype=int), start: wp.array(dtype=int), out: wp.array(dtype=int)):
    """Run-length decoding (columnar formats such as Parquet and ORC, GPU decompressors), a
    thread per run: it writes its value over its run, start[r] to start[r + 1] (the exclusive
    scan of the run lengths): loops as long as the runs, each lane its own stretch."""
    r = wp.tid()
    v = value[r]
    for k in range(start[r], start[r + 1]):
        out[k] = v


@wp.kernel
def rle_decode_search(value: wp.array(dtype=int), start: wp.array(dtype=int), out: wp.array(dtype=int)):
    """The same decoding a thread per output: its run found by bisection in the run starts (the
    last start at or below it), coalesced stores."""
    i = wp.tid()
    lo = int(0)
    hi = start.shape[0] - 1
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if start[mid] > i:
            hi = mid
        else:
            lo = mid
    out[i] = value[lo]


@wp.func
def q6_keep(qty: float, price: float, disc: float, day: float, d0: float):
    """TPC-H Q6's predicate's revenue: price times discount where the ship date is in the year
    from d0, the discount within 0.06 +- 0.01 and the quantity below 24; else 0."""
    r = float(0.0)
    if day >= d0 and day < d0 + 365.0 and disc >= 0.05 and disc <= 0.07 and qty < 24.0:
        r = price * disc
    return r


@wp.kernel
def q6_columns(qty: wp.array(dtype=float), price: wp.array(dtype=float), disc: wp.array(dtype=float),
               day: wp.array(dtype=float), d0: float, revenue: wp.array(dtype=float), hits: wp.array(dtype=int)):
    """TPC-H query 6 (the forecasting-revenue scan of GPU databases: a filter and a sum) on a
    column store: a thread per lineitem row loads its four columns, keeps the revenue where
    the predicate holds; a shuffle sum and one float atomic a warp for the revenue, the same
    for the count of rows kept."""
    i = wp.tid()
    r = q6_keep(qty[i], price[i], disc[i], day[i], d0)
    hit = int(0)
    if r > 0.0:
        hit = 1
    r = warp_fsum(r)
    hit = warp_isum(hit)
    if wp.lane_id() == 0:
        wp.atomic_add(revenue, 0, r)
        wp.atomic_add(hits, 0, hit)


@wp.kernel
def q6_rows(rows: wp.array2d(dtype=float), d0: float, revenue: wp.array(dtype=float), hits: wp.array(dtype=int)):
    """The same query on a row store: lineitem's 16 fields of four bytes a row (64 bytes; the
    ship date as a day number), fields 4, 5, 6 and 10 used (quantity, extended price,
    discount, ship date)."""
    i = wp.tid()
    r = q6_keep(rows[i, 4], rows[i, 5], rows[i, 6], rows[i, 10], d0)
    hit = int(0)
    if r > 0.0:
        hit = 1
    r = warp_fsum(r)
    hit = warp_isum(hit)
    if wp.lane_id() == 0:
        wp.atomic_add(revenue, 0, r)
        wp.atomic_add(hits, 0, hit)


# ---- graphs: k-core peeling ----------------------------------------------------------------------


@wp.kernel
def kcore_peel(row: wp.array(dtype=int), col: wp.array(dtype=int), deg: wp.array(dtype=int), k: int,
               alive: wp.array(dtype=wp.uint8), deg_out: wp.array(dtype=int)):
    """A round of k-core decomposition by peeling (GPU k-core codes; Lonestar's and Gunrock's
    kcore): a thread per vertex still alive whose degree (the round's, in ``deg``) is below k
    removes itself and takes one off every neighbour's degree for the next round (``deg_out``,
    a copy of ``deg``) by an integer atomic; a hub's neighbours contend on its counter."""
    v = wp.tid()
    if alive[v] != wp.uint8(0) and deg[v] < k:
        alive[v] = wp.uint8(0)
        for e in range(row[v], row[v + 1]):
            wp.atomic_sub(deg_out, col[e], 1)


# ---- dense linear algebra: batched LU --------------------------------------------------------------


@wp.kernel
def lu8_batched(a: wp.array(dtype=float), sb: int, se: int, piv: wp.array2d(dtype=int)):
    """Batched LU factorisation with partial pivoting of LU x LU matrices (cuBLAS's and MAGMA's
    batched getrf for small matrices), a thread per matrix, in place in global memory: for
    each column the largest magnitude below the diagonal is found, its row swapped up, the
    multipliers stored below the diagonal and the trailing block updated. Entry (r, c) of
    matrix b is a[b * sb + (r * LU + c) * se]: matrices one after another (sb = 64, se = 1;
    lanes 256 bytes apart) or interleaved (sb = 1, se = the batch; lanes adjacent)."""
    b = wp.tid()
    base = b * sb
    for k in range(LU):
        p = k
        best = wp.abs(a[base + (k * LU + k) * se])
        for r in range(k + 1, LU):
            v = wp.abs(a[base + (r * LU + k) * se])
            if v > best:
                best = v
                p = r
        piv[b, k] = p
        if p != k:
            for c in range(LU):
                t = a[base + (k * LU + c) * se]
                a[base + (k * LU + c) * se] = a[base + (p * LU + c) * se]
                a[base + (p * LU + c) * se] = t
        inv = 1.0 / a[base + (k * LU + k) * se]
        for r in range(k + 1, LU):
            l = a[base + (r * LU + k) * se] * inv
            a[base + (r * LU + k) * se] = l
            for c in range(k + 1, LU):
                a[base + (r * LU + c) * se] = a[base + (r * LU + c) * se] - l * a[base + (k * LU + c) * se]


# ---- bioinformatics: motif scanning ----------------------------------------------------------------


@wp.kernel
def pwm_scan_global(seq: wp.array(dtype=wp.uint8), pwm: wp.array2d(dtype=float), score: wp.array(dtype=float)):
    """Motif scanning with a position weight matrix (MEME's FIMO, HOMER; GPU motif finders): a
    thread per position scores the MOTIF letters from it on both strands (the reverse
    complement read backwards) by log-odds lookups, and keeps the better; the 16 x 4 table read
    from global memory at data-dependent entries."""
    i = wp.tid()
    fw = float(0.0)
    rc = float(0.0)
    for k in range(MOTIF):
        fw += pwm[k, int(seq[i + k])]
        rc += pwm[k, 3 - int(seq[i + MOTIF - 1 - k])]
    score[i] = wp.max(fw, rc)


@wp.kernel
def pwm_scan_shared(seq: wp.array(dtype=wp.uint8), pwm: wp.array2d(dtype=float), score: wp.array(dtype=float)):
    """The same scan with the table staged in shared memory by each block first (64 words)."""
    tab = wp.shared.array(shape=(MOTIF * 4,), dtype=float)
    for k in range(wp.thread_idx(), MOTIF * 4, wp.block_dim()):
        tab[k] = pwm[k >> 2, k & 3]
    wp.sync_threads()
    i = wp.tid()
    fw = float(0.0)
    rc = float(0.0)
    for k in range(MOTIF):
        fw += tab[k * 4 + int(seq[i + k])]
        rc += tab[k * 4 + 3 - int(seq[i + MOTIF - 1 - k])]
    score[i] = wp.max(fw, rc)
