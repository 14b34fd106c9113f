"""Kernels of the fourteenth blind validation set from applications outside the HPC proxies:
the Horn-Schunck optical flow iteration of the CUDA samples' HSOpticalFlow (from global
memory, or through a shared-memory tile with its halo); SHA-3 (Keccak-f[1600], FIPS 202) of
short messages, a thread a message or a warp a message (a lane a state word, the steps by
64-bit shuffles); the 3 x 3 singular value decomposition of McAdams et al. as HeCBench's
svd3x3 runs it (Jacobi sweeps on A^T A, the columns sorted, a Givens QR); Vincenty's inverse
geodesic formula as HeCBench's geodesic runs it (fp32 and fp64); ZFP's forward block
transform (the ECP compressor: block-floating-point quantisation, the decorrelating lifting
along x, y and z, the sequency order, negabinary); the perplexity calibration of t-SNE
(tsne-cuda, bhtsne: a bisection on each point's Gaussian precision, a thread a point or a warp
a point with shuffle sums); the triangle-triangle intersection test of AxBench's jmeint
(Moller's interval overlap test). Written from the algorithms, as kernels.py's; none is a
translation of a suite's source.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x); with ``block_dim=(BH, BW)``, ``ty, tx = wp.thread_idx()``.
"""
from typing import Any

import simt as wp

FULL = 0xFFFFFFFF

HS_BY = 8               # Horn-Schunck tiled: block rows
HS_BX = 32              # Horn-Schunck tiled: block columns
KC_ROUNDS = 24          # Keccak-f[1600] rounds
KC_WORDS = 16           # SHA-3 messages: 64-bit words (128 bytes: one block of SHA3-256's 136)
SV_SWEEPS = 4           # SVD 3 x 3: Jacobi sweeps
VC_ITER = 20            # Vincenty: iterations at most
PX_ITER = 64            # perplexity: bisection steps at most
TT_EPS = 1.0e-6         # triangle-triangle: distances below this count as zero
ZFP_BLOCK = 128         # ZFP: threads a block (a block of 4 x 4 x 4 values a thread)
ZFP_PAD = 65            # ZFP: shared words a thread's row (64 coefficients and a pad word)


# ---- CUDA samples: HSOpticalFlow, a Jacobi iteration of Horn-Schunck -----------------------------


@wp.func
def hs_update(ix: float, iy: float, it: float, ub: float, vb: float, alpha2: float):
    t = (ix * ub + iy * vb + it) / (alpha2 + ix * ix + iy * iy)
    return wp.vec2(ub - ix * t, vb - iy * t)


@wp.kernel
def hs_global(ix: wp.array2d(dtype=float), iy: wp.array2d(dtype=float), it: wp.array2d(dtype=float),
              u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), alpha2: float,
              un: wp.array2d(dtype=float), vn: wp.array2d(dtype=float)):
    """One Jacobi iteration of Horn and Schunck's optical flow: a thread per pixel forms the
    local averages of u and v (edge neighbours 1/6, corners 1/12; clamped at the image's
    edges) from global memory, then the flow update from the image derivatives:
    (u, v) = (ub, vb) - (Ix, Iy) (Ix ub + Iy vb + It) / (alpha^2 + Ix^2 + Iy^2)."""
    i, j = wp.tid()
    h = u.shape[0]
    w = u.shape[1]
    n = wp.max(i - 1, 0)
    s = wp.min(i + 1, h - 1)
    wl = wp.max(j - 1, 0)
    e = wp.min(j + 1, w - 1)
    ub = (u[n, j] + u[s, j] + u[i, wl] + u[i, e]) * (1.0 / 6.0) + (u[n, wl] + u[n, e] + u[s, wl] + u[s, e]) * (1.0 / 12.0)
    vb = (v[n, j] + v[s, j] + v[i, wl] + v[i, e]) * (1.0 / 6.0) + (v[n, wl] + v[n, e] + v[s, wl] + v[s, e]) * (1.0 / 12.0)
    r = hs_update(ix[i, j], iy[i, j], it[i, j], ub, vb, alpha2)
    un[i, j] = r[0]
    vn[i, j] = r[1]


@wp.kernel
def hs_tiled(ix: wp.array2d(dtype=float), iy: wp.array2d(dtype=float), it: wp.array2d(dtype=float),
             u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), alpha2: float,
             un: wp.array2d(dtype=float), vn: wp.array2d(dtype=float)):
    """The same iteration as the CUDA sample stages it: a block of HS_BY x HS_BX threads loads
    the (HS_BY + 2) x (HS_BX + 2) tiles of u and v (halo included, clamped) into shared memory,
    a barrier, then the averages from the tiles."""
    su = wp.shared.array(shape=(HS_BY + 2, HS_BX + 2), dtype=float)
    sv = wp.shared.array(shape=(HS_BY + 2, HS_BX + 2), dtype=float)
    i, j = wp.tid()
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    h = u.shape[0]
    w = u.shape[1]
    y0 = by * HS_BY - 1
    x0 = bx * HS_BX - 1
    for k in range(ty * HS_BX + tx, (HS_BY + 2) * (HS_BX + 2), HS_BY * HS_BX):
        r = k // (HS_BX + 2)
        c = k % (HS_BX + 2)
        gy = wp.min(wp.max(y0 + r, 0), h - 1)
        gx = wp.min(wp.max(x0 + c, 0), w - 1)
        su[r, c] = u[gy, gx]
        sv[r, c] = v[gy, gx]
    wp.sync_threads()
    r = ty + 1
    c = tx + 1
    ub = (su[r - 1, c] + su[r + 1, c] + su[r, c - 1] + su[r, c + 1]) * (1.0 / 6.0) + (
        su[r - 1, c - 1] + su[r - 1, c + 1] + su[r + 1, c - 1] + su[r + 1, c + 1]) * (1.0 / 12.0)
    vb = (sv[r - 1, c] + sv[r + 1, c] + sv[r, c - 1] + sv[r, c + 1]) * (1.0 / 6.0) + (
        sv[r - 1, c - 1] + sv[r - 1, c + 1] + sv[r + 1, c - 1] + sv[r + 1, c + 1]) * (1.0 / 12.0)
    res = hs_update(ix[i, j], iy[i, j], it[i, j], ub, vb, alpha2)
    un[i, j] = res[0]
    vn[i, j] = res[1]


# ---- SHA-3 (FIPS 202): Keccak-f[1600] ----------------------------------------------------------------


@wp.func
def rotl64(x: wp.uint64, r: int):
    """x rotated left by r (0 <= r < 64; no shift by 64)."""
    return (x << wp.uint64(r)) | ((x >> wp.uint64(1)) >> wp.uint64(63 - r))


@wp.kernel
def keccak_thread(msg: wp.array2d(dtype=wp.uint64), rc: wp.array(dtype=wp.uint64), rho: wp.array(dtype=int),
                  out: wp.array2d(dtype=wp.uint64)):
    """SHA3-256 of a KC_WORDS-word message, a thread a message: the message and SHA-3's
    padding (0x06 ... 0x80) absorbed into the 25-word state (word x + 5 y), then KC_ROUNDS
    rounds of theta (column parities), rho and pi (rotations by rho[x + 5 y], the words
    moved to (y, 2x + 3y)), chi and iota (rc[round]); the first four words are the digest."""
    m = wp.tid()
    a = wp.vector(length=25, dtype=wp.uint64)
    b = wp.vector(length=25, dtype=wp.uint64)
    c = wp.vector(length=5, dtype=wp.uint64)
    for k in range(25):
        a[k] = wp.uint64(0)
    for k in range(KC_WORDS):
        a[k] = msg[m, k]
    a[KC_WORDS] = wp.uint64(0x8000000000000006)
    for rnd in range(KC_ROUNDS):
        for x in range(5):
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20]
        for x in range(5):
            d = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1)
            for y in range(5):
                a[x + 5 * y] = a[x + 5 * y] ^ d
        for x in range(5):
            for y in range(5):
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl64(a[x + 5 * y], rho[x + 5 * y])
        for x in range(5):
            for y in range(5):
                a[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y])
        a[0] = a[0] ^ rc[rnd]
    for k in range(4):
        out[m, k] = a[k]


@wp.kernel
def keccak_warp(msg: wp.array2d(dtype=wp.uint64), rc: wp.array(dtype=wp.uint64), rho: wp.array(dtype=int),
                out: wp.array2d(dtype=wp.uint64)):
    """The same hash, a warp a message: lane x + 5 y holds state word (x, y) (lanes 25 to 31
    idle along), each step by 64-bit shuffles: the column parity from the column's four other
    lanes, theta's D from the neighbouring columns, rho by the lane's own rotation, pi as a
    gather from lane ((3y + x) mod 5) + 5x, chi from the next two lanes of the row."""
    t = wp.tid()
    m = t // 32
    lane = wp.lane_id()
    x = lane % 5
    y = lane // 5
    a = wp.uint64(0)
    if lane < KC_WORDS:
        a = msg[m, lane]
    elif lane == KC_WORDS:
        a = wp.uint64(0x8000000000000006)
    r = int(0)
    s1 = lane
    s2 = lane
    s3 = lane
    s4 = lane
    sm = lane
    sp = lane
    spi = lane
    sc1 = lane
    sc2 = lane
    if lane < 25:
        r = rho[lane]
        s1 = x + 5 * ((y + 1) % 5)
        s2 = x + 5 * ((y + 2) % 5)
        s3 = x + 5 * ((y + 3) % 5)
        s4 = x + 5 * ((y + 4) % 5)
        sm = (x + 4) % 5 + 5 * y
        sp = (x + 1) % 5 + 5 * y
        spi = (3 * y + x) % 5 + 5 * x
        sc1 = (x + 1) % 5 + 5 * y
        sc2 = (x + 2) % 5 + 5 * y
    for rnd in range(KC_ROUNDS):
        c = (a ^ wp.shfl_sync(FULL, a, s1) ^ wp.shfl_sync(FULL, a, s2) ^ wp.shfl_sync(FULL, a, s3)
             ^ wp.shfl_sync(FULL, a, s4))
        d = wp.shfl_sync(FULL, c, sm) ^ rotl64(wp.shfl_sync(FULL, c, sp), 1)
        a = rotl64(a ^ d, r)
        b = wp.shfl_sync(FULL, a, spi)
        b1 = wp.shfl_sync(FULL, b, sc1)
        b2 = wp.shfl_sync(FULL, b, sc2)
        a = b ^ (~b1 & b2)
        if lane == 0:
            a = a ^ rc[rnd]
    if lane < 4:
        out[m, lane] = a


# ---- HeCBench svd3x3 (McAdams et al., 2011): SVD of 3 x 3 matrices ---------------------------------


@wp.func
def jacobi_cs(app: float, aqq: float, apq: float):
    """The rotation (c, s) that zeroes the (p, q) entry of a symmetric matrix."""
    res = wp.vec2(1.0, 0.0)
    if wp.abs(apq) > 1.0e-30:
        th = (aqq - app) / (2.0 * apq)
        t = 1.0 / (wp.abs(th) + wp.sqrt(th * th + 1.0))
        if th < 0.0:
            t = -t
        c = 1.0 / wp.sqrt(t * t + 1.0)
        res = wp.vec2(c, t * c)
    return res


@wp.func
def givens_cs(a: float, b: float):
    """(c, s) with -s a + c b = 0 and c a + s b = sqrt(a^2 + b^2)."""
    r = wp.sqrt(a * a + b * b)
    res = wp.vec2(1.0, 0.0)
    if r > 1.0e-30:
        res = wp.vec2(a / r, b / r)
    return res


@wp.kernel
def svd3x3(a: wp.array(dtype=float), sm: int, sc: int, s3m: int, s3c: int, uo: wp.array(dtype=float),
           so: wp.array(dtype=float), vo: wp.array(dtype=float)):
    """A = U diag(S) V^T, a thread a matrix (entry c = 3 row + col of matrix m at m sm + c sc;
    S's entry c at m s3m + c s3c): SV_SWEEPS cyclic Jacobi sweeps of exact rotations
    diagonalise A^T A (V accumulated); B = A V's columns are sorted by decreasing norm (swaps
    with a sign change keep det V = 1); Givens rotations on rows (1, 0), (2, 0), (2, 1) reduce
    B to R = U^T B, S its diagonal (the last may be negative)."""
    mi = wp.tid()
    base = mi * sm
    am = wp.mat33(a[base], a[base + sc], a[base + 2 * sc],
                  a[base + 3 * sc], a[base + 4 * sc], a[base + 5 * sc],
                  a[base + 6 * sc], a[base + 7 * sc], a[base + 8 * sc])
    s = wp.transpose(am) * am
    v = wp.identity(n=3, dtype=float)
    for sweep in range(SV_SWEEPS):
        cs = jacobi_cs(s[0, 0], s[1, 1], s[0, 1])
        g = wp.mat33(cs[0], cs[1], 0.0, -cs[1], cs[0], 0.0, 0.0, 0.0, 1.0)
        s = wp.transpose(g) * s * g
        v = v * g
        cs = jacobi_cs(s[0, 0], s[2, 2], s[0, 2])
        g = wp.mat33(cs[0], 0.0, cs[1], 0.0, 1.0, 0.0, -cs[1], 0.0, cs[0])
        s = wp.transpose(g) * s * g
        v = v * g
        cs = jacobi_cs(s[1, 1], s[2, 2], s[1, 2])
        g = wp.mat33(1.0, 0.0, 0.0, 0.0, cs[0], cs[1], 0.0, -cs[1], cs[0])
        s = wp.transpose(g) * s * g
        v = v * g
    b = am * v
    b0 = wp.vec3(b[0, 0], b[1, 0], b[2, 0])
    b1 = wp.vec3(b[0, 1], b[1, 1], b[2, 1])
    b2 = wp.vec3(b[0, 2], b[1, 2], b[2, 2])
    v0 = wp.vec3(v[0, 0], v[1, 0], v[2, 0])
    v1 = wp.vec3(v[0, 1], v[1, 1], v[2, 1])
    v2 = wp.vec3(v[0, 2], v[1, 2], v[2, 2])
    n0 = wp.dot(b0, b0)
    n1 = wp.dot(b1, b1)
    n2 = wp.dot(b2, b2)
    if n0 < n1:
        tb = b0
        b0 = b1
        b1 = -tb
        tv = v0
        v0 = v1
        v1 = -tv
        tn = n0
        n0 = n1
        n1 = tn
    if n0 < n2:
        tb = b0
        b0 = b2
        b2 = -tb
        tv = v0
        v0 = v2
        v2 = -tv
        tn = n0
        n0 = n2
        n2 = tn
    if n1 < n2:
        tb = b1
        b1 = b2
        b2 = -tb
        tv = v1
        v1 = v2
        v2 = -tv
    r = wp.matrix_from_cols(b0, b1, b2)
    vm = wp.matrix_from_cols(v0, v1, v2)
    cs = givens_cs(r[0, 0], r[1, 0])
    q = wp.mat33(cs[0], cs[1], 0.0, -cs[1], cs[0], 0.0, 0.0, 0.0, 1.0)
    r = q * r
    u = wp.transpose(q)
    cs = givens_cs(r[0, 0], r[2, 0])
    q = wp.mat33(cs[0], 0.0, cs[1], 0.0, 1.0, 0.0, -cs[1], 0.0, cs[0])
    r = q * r
    u = u * wp.transpose(q)
    cs = givens_cs(r[1, 1], r[2, 1])
    q = wp.mat33(1.0, 0.0, 0.0, 0.0, cs[0], cs[1], 0.0, -cs[1], cs[0])
    r = q * r
    u = u * wp.transpose(q)
    for k in range(3):
        for l in range(3):
            uo[base + (3 * k + l) * sc] = u[k, l]
            vo[base + (3 * k + l) * sc] = vm[k, l]
        so[mi * s3m + k * s3c] = r[k, k]


# ---- HeCBench geodesic: Vincenty's inverse formula on the WGS-84 ellipsoid ---------------------------


@wp.kernel
def vincenty(lat1: wp.array(dtype=Any), lon1: wp.array(dtype=Any), lat2: wp.array(dtype=Any),
             lon2: wp.array(dtype=Any), tol: float, dist: wp.array(dtype=Any)):
    """The geodesic distance (km) between two points (radians) on the WGS-84 ellipsoid by
    Vincenty's inverse method: reduced latitudes, then the longitude on the auxiliary sphere
    iterated (sine, cosine, square root and arctangent a step) until it changes by less than
    tol (VC_ITER steps at most), then the series for the ellipsoidal distance."""
    i = wp.tid()
    p1 = lat1[i]
    T = type(p1)
    one = T(1.0)
    a = T(6378137.0)
    f = one / T(298.257223563)
    b = a * (one - f)
    ll = lon2[i] - lon1[i]
    u1 = wp.atan((one - f) * wp.tan(p1))
    u2 = wp.atan((one - f) * wp.tan(lat2[i]))
    su1 = wp.sin(u1)
    cu1 = wp.cos(u1)
    su2 = wp.sin(u2)
    cu2 = wp.cos(u2)
    lam = ll
    sin_s = T(0.0)
    cos_s = T(0.0)
    sig = T(0.0)
    cos2a = T(0.0)
    c2sm = T(0.0)
    for it in range(VC_ITER):
        sl = wp.sin(lam)
        cl = wp.cos(lam)
        t1 = cu2 * sl
        t2 = cu1 * su2 - su1 * cu2 * cl
        sin_s = wp.sqrt(t1 * t1 + t2 * t2)
        cos_s = su1 * su2 + cu1 * cu2 * cl
        sig = wp.atan2(sin_s, cos_s)
        sina = cu1 * cu2 * sl / sin_s
        cos2a = one - sina * sina
        c2sm = T(0.0)
        if cos2a != T(0.0):
            c2sm = cos_s - T(2.0) * su1 * su2 / cos2a
        cc = f / T(16.0) * cos2a * (T(4.0) + f * (T(4.0) - T(3.0) * cos2a))
        prev = lam
        lam = ll + (one - cc) * f * sina * (sig + cc * sin_s * (c2sm + cc * cos_s * (T(-1.0) + T(2.0) * c2sm * c2sm)))
        if wp.abs(lam - prev) < T(tol):
            break
    usq = cos2a * (a * a - b * b) / (b * b)
    ca = one + usq / T(16384.0) * (T(4096.0) + usq * (T(-768.0) + usq * (T(320.0) - T(175.0) * usq)))
    cb = usq / T(1024.0) * (T(256.0) + usq * (T(-128.0) + usq * (T(74.0) - T(47.0) * usq)))
    ds = cb * sin_s * (c2sm + cb / T(4.0) * (cos_s * (T(-1.0) + T(2.0) * c2sm * c2sm)
                                             - cb / T(6.0) * c2sm * (T(-3.0) + T(4.0) * sin_s * sin_s)
                                             * (T(-3.0) + T(4.0) * c2sm * c2sm)))
    dist[i] = b * ca * (sig - ds) / T(1000.0)


# ---- ZFP (LLNL; ECP): the forward transform of a 4 x 4 x 4 block ------------------------------------


@wp.func
def fwd_lift(p0: int, p1: int, p2: int, p3: int):
    """ZFP's forward decorrelating transform of four integers by lifting (non-orthogonal; the
    rows 4 4 4 4, 5 1 -1 -5, -4 4 4 -4, -2 6 -6 2 over 16, in integer steps)."""
    x = p0
    y = p1
    z = p2
    w = p3
    x += w
    x = x >> 1
    w -= x
    z += y
    z = z >> 1
    y -= z
    x += z
    x = x >> 1
    z -= x
    w += y
    w = w >> 1
    y -= w
    w += y >> 1
    y -= w >> 1
    return wp.vec4i(x, y, z, w)


@wp.kernel
def zfp_fwd(field: wp.array(dtype=float), nbx: int, nby: int, bsx: int, bsy: int, bsz: int, sj: int, sk: int,
            place: wp.array(dtype=int), coef: wp.array2d(dtype=wp.uint32), emax: wp.array(dtype=int)):
    """ZFP's fixed-rate front end on one 4 x 4 x 4 block a thread (block (bx, by, bz) from
    bx bsx + by bsy + bz bsz, value (k, j, i) at k sk + j sj + i past it; blocks of ZFP_BLOCK
    threads): the largest magnitude's exponent e (max = m 2^e, m in [0.5, 1)); the values read
    again, scaled by 2^(30 - e) and truncated to integers in the thread's own row of a shared
    array (ZFP_PAD words a row: no bank conflicts); the lifting transform along x, y and z
    there; the 64 coefficients in negabinary, each stored at its place in order of sequency
    (place[n] for coefficient 16 k + 4 j + i)."""
    qs = wp.shared.array(shape=(ZFP_BLOCK * ZFP_PAD,), dtype=int)
    bi = wp.tid()
    row = wp.thread_idx() * ZFP_PAD
    bx = bi % nbx
    by = (bi // nbx) % nby
    bz = bi // (nbx * nby)
    base = bx * bsx + by * bsy + bz * bsz
    mx = float(0.0)
    for k in range(4):
        for j in range(4):
            for i in range(4):
                mx = wp.max(mx, wp.abs(field[base + k * sk + j * sj + i]))
    e = int(0)
    sc = float(1.0)
    if mx > 0.0:
        m = mx
        while m >= 1.0:
            m = m * 0.5
            sc = sc * 0.5
            e += 1
        while m < 0.5:
            m = m * 2.0
            sc = sc * 2.0
            e -= 1
    sc = sc * 1073741824.0
    for k in range(4):
        for j in range(4):
            for i in range(4):
                qs[row + 16 * k + 4 * j + i] = int(field[base + k * sk + j * sj + i] * sc)
    for k in range(4):
        for j in range(4):
            o = row + 16 * k + 4 * j
            r = fwd_lift(qs[o], qs[o + 1], qs[o + 2], qs[o + 3])
            qs[o] = r[0]
            qs[o + 1] = r[1]
            qs[o + 2] = r[2]
            qs[o + 3] = r[3]
    for k in range(4):
        for i in range(4):
            o = row + 16 * k + i
            r = fwd_lift(qs[o], qs[o + 4], qs[o + 8], qs[o + 12])
            qs[o] = r[0]
            qs[o + 4] = r[1]
            qs[o + 8] = r[2]
            qs[o + 12] = r[3]
    for j in range(4):
        for i in range(4):
            o = row + 4 * j + i
            r = fwd_lift(qs[o], qs[o + 16], qs[o + 32], qs[o + 48])
            qs[o] = r[0]
            qs[o + 16] = r[1]
            qs[o + 32] = r[2]
            qs[o + 48] = r[3]
    nb = wp.uint32(0xAAAAAAAA)
    for n in range(64):
        coef[bi, place[n]] = (wp.uint32(qs[row + n]) + nb) ^ nb
    emax[bi] = e


# ---- t-SNE (tsne-cuda, bhtsne): the perplexity calibration --------------------------------------------


@wp.kernel
def perplexity_thread(d: wp.array2d(dtype=float), target_h: float, tol: float, beta_o: wp.array(dtype=float),
                      p_o: wp.array2d(dtype=float)):
    """t-SNE's conditional probabilities, a thread a point: over its k nearest neighbours'
    squared distances (ascending; row-major, lanes a row apart) a bisection on the Gaussian
    precision beta (doubled or halved until bracketed) until the entropy log(sum) +
    beta sum(d p) / sum is within tol of log(perplexity) (PX_ITER steps at most); distances
    taken relative to the nearest; then the normalised row p_j stored."""
    i = wp.tid()
    k = d.shape[1]
    d0 = d[i, 0]
    beta = float(1.0)
    bmin = float(-1.0)
    bmax = float(-1.0)
    for it in range(PX_ITER):
        s = float(0.0)
        sd = float(0.0)
        for j in range(k):
            dj = d[i, j] - d0
            pj = wp.exp(-beta * dj)
            s += pj
            sd += dj * pj
        hh = wp.log(s) + beta * sd / s
        diff = hh - target_h
        if wp.abs(diff) < tol:
            break
        if diff > 0.0:
            bmin = beta
            if bmax < 0.0:
                beta = beta * 2.0
            else:
                beta = 0.5 * (beta + bmax)
        else:
            bmax = beta
            if bmin < 0.0:
                beta = beta * 0.5
            else:
                beta = 0.5 * (beta + bmin)
    s = float(0.0)
    for j in range(k):
        s += wp.exp(-beta * (d[i, j] - d0))
    inv = 1.0 / s
    for j in range(k):
        p_o[i, j] = wp.exp(-beta * (d[i, j] - d0)) * inv
    beta_o[i] = beta


@wp.kernel
def perplexity_warp(d: wp.array2d(dtype=float), target_h: float, tol: float, beta_o: wp.array(dtype=float),
                    p_o: wp.array2d(dtype=float)):
    """The same calibration, a warp a point: lane l takes neighbours l, l + 32, ... (adjacent
    lanes adjacent words), the two sums of every step by xor-shuffle butterflies, so that every
    lane takes the same decisions."""
    t = wp.tid()
    i = t // 32
    lane = wp.lane_id()
    k = d.shape[1]
    d0 = d[i, 0]
    beta = float(1.0)
    bmin = float(-1.0)
    bmax = float(-1.0)
    for it in range(PX_ITER):
        s = float(0.0)
        sd = float(0.0)
        for j in range(lane, k, 32):
            dj = d[i, j] - d0
            pj = wp.exp(-beta * dj)
            s += pj
            sd += dj * pj
        for o in range(5):
            s += wp.shfl_xor_sync(FULL, s, 16 >> o)
            sd += wp.shfl_xor_sync(FULL, sd, 16 >> o)
        hh = wp.log(s) + beta * sd / s
        diff = hh - target_h
        if wp.abs(diff) < tol:
            break
        if diff > 0.0:
            bmin = beta
            if bmax < 0.0:
                beta = beta * 2.0
            else:
                beta = 0.5 * (beta + bmax)
        else:
            bmax = beta
            if bmin < 0.0:
                beta = beta * 0.5
            else:
                beta = 0.5 * (beta + bmin)
    s = float(0.0)
    for j in range(lane, k, 32):
        s += wp.exp(-beta * (d[i, j] - d0))
    for o in range(5):
        s += wp.shfl_xor_sync(FULL, s, 16 >> o)
    inv = 1.0 / s
    for j in range(lane, k, 32):
        p_o[i, j] = wp.exp(-beta * (d[i, j] - d0)) * inv
    if lane == 0:
        beta_o[i] = beta


# ---- AxBench jmeint: triangle-triangle intersection (Moller, 1997) ----------------------------------


@wp.func
def tt_interval(p0: float, p1: float, p2: float, d0: float, d1: float, d2: float):
    """Where a triangle crosses the other's plane, on the line of the two planes: projections
    p of its vertices, signed distances d to the plane (not all of one sign). The vertex alone
    on its side, and the two edges from it cut at d = 0; (lo, hi, 1), or (0, 0, 0) when the
    triangle lies in the plane."""
    a = float(0.0)
    b = float(0.0)
    ok = float(1.0)
    if d0 * d1 > 0.0:
        a = p2 + (p0 - p2) * d2 / (d2 - d0)
        b = p2 + (p1 - p2) * d2 / (d2 - d1)
    elif d0 * d2 > 0.0:
        a = p1 + (p0 - p1) * d1 / (d1 - d0)
        b = p1 + (p2 - p1) * d1 / (d1 - d2)
    elif d1 * d2 > 0.0 or d0 != 0.0:
        a = p0 + (p1 - p0) * d0 / (d0 - d1)
        b = p0 + (p2 - p0) * d0 / (d0 - d2)
    elif d1 != 0.0:
        a = p1 + (p0 - p1) * d1 / (d1 - d0)
        b = p1 + (p2 - p1) * d1 / (d1 - d2)
    elif d2 != 0.0:
        a = p2 + (p0 - p2) * d2 / (d2 - d0)
        b = p2 + (p1 - p2) * d2 / (d2 - d1)
    else:
        ok = 0.0
    return wp.vec3(wp.min(a, b), wp.max(a, b), ok)


@wp.func
def tt_snap(x: float):
    r = x
    if wp.abs(x) < TT_EPS:
        r = 0.0
    return r


@wp.kernel
def tri_tri(tris: wp.array2d(dtype=float), hit: wp.array(dtype=int)):
    """jmeint's test, a thread per pair of triangles (18 floats: V0 V1 V2, then U0 U1 U2): the
    signed distances of U's vertices to V's plane, rejected when all on one side; the same
    for V's vertices against U's plane; else both triangles' intervals on the planes' line of
    intersection, projected on its largest axis, and whether they overlap (1). Coplanar pairs
    count as disjoint."""
    n = wp.tid()
    v0 = wp.vec3(tris[n, 0], tris[n, 1], tris[n, 2])
    v1 = wp.vec3(tris[n, 3], tris[n, 4], tris[n, 5])
    v2 = wp.vec3(tris[n, 6], tris[n, 7], tris[n, 8])
    u0 = wp.vec3(tris[n, 9], tris[n, 10], tris[n, 11])
    u1 = wp.vec3(tris[n, 12], tris[n, 13], tris[n, 14])
    u2 = wp.vec3(tris[n, 15], tris[n, 16], tris[n, 17])
    res = int(0)
    n1 = wp.cross(v1 - v0, v2 - v0)
    e1 = -wp.dot(n1, v0)
    du0 = tt_snap(wp.dot(n1, u0) + e1)
    du1 = tt_snap(wp.dot(n1, u1) + e1)
    du2 = tt_snap(wp.dot(n1, u2) + e1)
    if not (du0 * du1 > 0.0 and du0 * du2 > 0.0):
        n2 = wp.cross(u1 - u0, u2 - u0)
        e2 = -wp.dot(n2, u0)
        dv0 = tt_snap(wp.dot(n2, v0) + e2)
        dv1 = tt_snap(wp.dot(n2, v1) + e2)
        dv2 = tt_snap(wp.dot(n2, v2) + e2)
        if not (dv0 * dv1 > 0.0 and dv0 * dv2 > 0.0):
            dd = wp.cross(n1, n2)
            ax = int(0)
            big = wp.abs(dd[0])
            if wp.abs(dd[1]) > big:
                ax = 1
                big = wp.abs(dd[1])
            if wp.abs(dd[2]) > big:
                ax = 2
            ia = tt_interval(v0[ax], v1[ax], v2[ax], dv0, dv1, dv2)
            ib = tt_interval(u0[ax], u1[ax], u2[ax], du0, du1, du2)
            if ia[2] > 0.0 and ib[2] > 0.0:
                if not (ia[1] < ib[0] or ib[1] < ia[0]):
                    res = 1
    hit[n] = res
