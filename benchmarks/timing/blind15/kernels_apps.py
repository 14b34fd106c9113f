"""Kernels of the fifteenth blind validation set from applications: GateKeeper's pre-alignment
filter of short reads (GateKeeper-GPU: 2-bit bases in 64-bit words, shifted Hamming masks,
short match streaks amended, the masks ANDed and counted); the R3 viewshed of a digital
elevation model (GIS line-of-sight analysis: a thread a target cell, a fixed-point walk to the
observer keeping the steepest slope); BLAKE2b and BLAKE2s (RFC 7693) of short messages, a
thread a message; the multiresolution hash encoding of instant-NGP (tiny-cuda-nn: sixteen
levels of hashed or dense feature grids, eight corners gathered and blended trilinearly); the
assignment step of SLIC superpixels (gSLIC: each pixel against the nine nearest cluster
centres in colour and position); point-cloud splatting by 64-bit atomic minima (depth and
colour packed in one word, as compute-shader point renderers do). Written from the
algorithms, as kernels.py's; none is a translation of a suite's source.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x).
"""
import simt as wp

GK_LO = 0x5555555555555555        # GateKeeper: the low bit of every 2-bit base
VS_FRAC = 16                       # viewshed: fraction bits of the fixed-point walk
HG_LEVELS = 16                     # hash encoding: levels
HG_LOG2T = 19                      # hash encoding: log2 of the table entries a level
HG_T = 1 << HG_LOG2T
HG_P1 = 2654435761                 # hash encoding: instant-NGP's primes (the first is 1)
HG_P2 = 805459861

B2_IV64 = (0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
           0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179)
B2_IV32 = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
B2_SIGMA = ((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            (14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3),
            (11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4),
            (7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8),
            (9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13),
            (2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9),
            (12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11),
            (13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10),
            (6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5),
            (10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0))


# ---- GateKeeper (Alser et al., 2017; GateKeeper-GPU): pre-alignment filtering ---------------------------


@wp.func
def shl4(a: wp.vec4ul, k: int):
    """The 256-bit value a (word 0 least significant) shifted left by k bits, 0 < k < 64."""
    s = wp.uint64(k)
    r = wp.uint64(64 - k)
    return wp.vec4ul(a[0] << s, (a[1] << s) | (a[0] >> r), (a[2] << s) | (a[1] >> r), (a[3] << s) | (a[2] >> r))


@wp.func
def shr4(a: wp.vec4ul, k: int):
    """The 256-bit value a shifted right by k bits, 0 < k < 64."""
    s = wp.uint64(k)
    r = wp.uint64(64 - k)
    return wp.vec4ul((a[0] >> s) | (a[1] << r), (a[1] >> s) | (a[2] << r), (a[2] >> s) | (a[3] << r), a[3] >> s)


@wp.kernel
def gatekeeper(rd: wp.array2d(dtype=wp.uint64), rf: wp.array2d(dtype=wp.uint64), e: int,
               edits: wp.array(dtype=int), accept: wp.array(dtype=int)):
    """GateKeeper's filter, a thread a (read, reference segment) pair of 128 bases (2 bits a
    base, four 64-bit words): for each shift s in -e..e the reference shifted by s bases
    (vacated bases counted as matches), XORed with the read and reduced to a bit a base (the
    Hamming mask), streaks of one or two matching bases between mismatches amended to
    mismatches; the 2e + 1 masks ANDed; the pair accepted when at most e bases remain set."""
    i = wp.tid()
    lo = wp.uint64(GK_LO)
    a = wp.vec4ul(rd[i, 0], rd[i, 1], rd[i, 2], rd[i, 3])
    b = wp.vec4ul(rf[i, 0], rf[i, 1], rf[i, 2], rf[i, 3])
    acc = wp.vec4ul(lo, lo, lo, lo)
    for s in range(-e, e + 1):
        sh = b
        if s > 0:
            sh = shl4(b, 2 * s)
        elif s < 0:
            sh = shr4(b, -2 * s)
        x0 = a[0] ^ sh[0]
        x1 = a[1] ^ sh[1]
        x2 = a[2] ^ sh[2]
        x3 = a[3] ^ sh[3]
        h0 = (x0 | (x0 >> wp.uint64(1))) & lo
        h1 = (x1 | (x1 >> wp.uint64(1))) & lo
        h2 = (x2 | (x2 >> wp.uint64(1))) & lo
        h3 = (x3 | (x3 >> wp.uint64(1))) & lo
        if s > 0:
            h0 = h0 & ~((wp.uint64(1) << wp.uint64(2 * s)) - wp.uint64(1))
        elif s < 0:
            h3 = h3 & (~wp.uint64(0) >> wp.uint64(-2 * s))
        h = wp.vec4ul(h0, h1, h2, h3)
        l1 = shl4(h, 2)
        r1 = shr4(h, 2)
        l2 = shl4(h, 4)
        r2 = shr4(h, 4)
        acc = wp.vec4ul(acc[0] & (h0 | (l1[0] & r1[0]) | (l1[0] & r2[0]) | (l2[0] & r1[0])),
                        acc[1] & (h1 | (l1[1] & r1[1]) | (l1[1] & r2[1]) | (l2[1] & r1[1])),
                        acc[2] & (h2 | (l1[2] & r1[2]) | (l1[2] & r2[2]) | (l2[2] & r1[2])),
                        acc[3] & (h3 | (l1[3] & r1[3]) | (l1[3] & r2[3]) | (l2[3] & r1[3])))
    cnt = int(wp.bit_count(acc[0]) + wp.bit_count(acc[1]) + wp.bit_count(acc[2]) + wp.bit_count(acc[3]))
    edits[i] = cnt
    accept[i] = wp.where(cnt <= e, 1, 0)


# ---- GIS: the R3 viewshed of an elevation model -------------------------------------------------------


@wp.kernel
def viewshed(dem: wp.array2d(dtype=float), oy: int, ox: int, eye_h: float, cell: float,
             vis: wp.array2d(dtype=int), horizon: wp.array2d(dtype=float)):
    """The R3 viewshed, a thread a target cell: the line to the observer walked one cell of the
    major axis a step (fixed point, VS_FRAC fraction bits, the minor coordinate rounded), the
    largest slope (z - eye) / distance of the terrain crossed kept; the target is visible when
    its own slope reaches it. The horizon slope is stored beside."""
    i, j = wp.tid()
    di = i - oy
    dj = j - ox
    adi = wp.abs(di)
    adj = wp.abs(dj)
    n = wp.max(adi, adj)
    eye = dem[oy, ox] + eye_h
    if n == 0:
        vis[i, j] = 1
        horizon[i, j] = -1.0e30
        return
    dist = wp.sqrt(float(di * di + dj * dj)) * cell
    dstep = dist / float(n)
    sy = (adi << VS_FRAC) // n
    sx = (adj << VS_FRAC) // n
    if di < 0:
        sy = -sy
    if dj < 0:
        sx = -sx
    fy = (oy << VS_FRAC) + (1 << (VS_FRAC - 1))
    fx = (ox << VS_FRAC) + (1 << (VS_FRAC - 1))
    mx = float(-1.0e30)
    for s in range(1, n):
        fy += sy
        fx += sx
        z = dem[fy >> VS_FRAC, fx >> VS_FRAC]
        mx = wp.max(mx, (z - eye) / (float(s) * dstep))
    vis[i, j] = wp.where((dem[i, j] - eye) / dist >= mx, 1, 0)
    horizon[i, j] = mx


# ---- BLAKE2b and BLAKE2s (RFC 7693) -------------------------------------------------------------------------


@wp.func
def rotr64(x: wp.uint64, n: int):
    return (x >> wp.uint64(n)) | (x << wp.uint64(64 - n))


@wp.func
def rotr32(x: wp.uint32, n: int):
    return (x >> wp.uint32(n)) | (x << wp.uint32(32 - n))


@wp.func
def g64(a: wp.uint64, b: wp.uint64, c: wp.uint64, d: wp.uint64, x: wp.uint64, y: wp.uint64):
    a = a + b + x
    d = rotr64(d ^ a, 32)
    c = c + d
    b = rotr64(b ^ c, 24)
    a = a + b + y
    d = rotr64(d ^ a, 16)
    c = c + d
    b = rotr64(b ^ c, 63)
    return a, b, c, d


@wp.func
def g32(a: wp.uint32, b: wp.uint32, c: wp.uint32, d: wp.uint32, x: wp.uint32, y: wp.uint32):
    a = a + b + x
    d = rotr32(d ^ a, 16)
    c = c + d
    b = rotr32(b ^ c, 12)
    a = a + b + y
    d = rotr32(d ^ a, 8)
    c = c + d
    b = rotr32(b ^ c, 7)
    return a, b, c, d


@wp.kernel
def blake2b_msg(msg: wp.array2d(dtype=wp.uint64), out: wp.array2d(dtype=wp.uint64)):
    """BLAKE2b-256 of a 128-byte message a thread: the parameter block (digest 32 bytes, no
    key) folded into the IV, one final compression (counter 128): 12 rounds of the eight G
    mixings (column then diagonal steps) with the message words in SIGMA's order; the first
    four words of h are the digest."""
    i = wp.tid()
    m = wp.vector(length=16, dtype=wp.uint64)
    for k in range(16):
        m[k] = msg[i, k]
    h0 = wp.uint64(wp.static(B2_IV64[0] ^ 0x01010020))
    h1 = wp.uint64(wp.static(B2_IV64[1]))
    h2 = wp.uint64(wp.static(B2_IV64[2]))
    h3 = wp.uint64(wp.static(B2_IV64[3]))
    v0 = h0
    v1 = h1
    v2 = h2
    v3 = h3
    v4 = wp.uint64(wp.static(B2_IV64[4]))
    v5 = wp.uint64(wp.static(B2_IV64[5]))
    v6 = wp.uint64(wp.static(B2_IV64[6]))
    v7 = wp.uint64(wp.static(B2_IV64[7]))
    v8 = wp.uint64(wp.static(B2_IV64[0]))
    v9 = wp.uint64(wp.static(B2_IV64[1]))
    v10 = wp.uint64(wp.static(B2_IV64[2]))
    v11 = wp.uint64(wp.static(B2_IV64[3]))
    v12 = wp.uint64(wp.static(B2_IV64[4] ^ 128))
    v13 = wp.uint64(wp.static(B2_IV64[5]))
    v14 = wp.uint64(wp.static(B2_IV64[6] ^ 0xFFFFFFFFFFFFFFFF))
    v15 = wp.uint64(wp.static(B2_IV64[7]))
    for r in range(12):
        v0, v4, v8, v12 = g64(v0, v4, v8, v12, m[wp.static(B2_SIGMA[r % 10][0])], m[wp.static(B2_SIGMA[r % 10][1])])
        v1, v5, v9, v13 = g64(v1, v5, v9, v13, m[wp.static(B2_SIGMA[r % 10][2])], m[wp.static(B2_SIGMA[r % 10][3])])
        v2, v6, v10, v14 = g64(v2, v6, v10, v14, m[wp.static(B2_SIGMA[r % 10][4])], m[wp.static(B2_SIGMA[r % 10][5])])
        v3, v7, v11, v15 = g64(v3, v7, v11, v15, m[wp.static(B2_SIGMA[r % 10][6])], m[wp.static(B2_SIGMA[r % 10][7])])
        v0, v5, v10, v15 = g64(v0, v5, v10, v15, m[wp.static(B2_SIGMA[r % 10][8])], m[wp.static(B2_SIGMA[r % 10][9])])
        v1, v6, v11, v12 = g64(v1, v6, v11, v12, m[wp.static(B2_SIGMA[r % 10][10])], m[wp.static(B2_SIGMA[r % 10][11])])
        v2, v7, v8, v13 = g64(v2, v7, v8, v13, m[wp.static(B2_SIGMA[r % 10][12])], m[wp.static(B2_SIGMA[r % 10][13])])
        v3, v4, v9, v14 = g64(v3, v4, v9, v14, m[wp.static(B2_SIGMA[r % 10][14])], m[wp.static(B2_SIGMA[r % 10][15])])
    out[i, 0] = h0 ^ v0 ^ v8
    out[i, 1] = h1 ^ v1 ^ v9
    out[i, 2] = h2 ^ v2 ^ v10
    out[i, 3] = h3 ^ v3 ^ v11


@wp.func
def b2s_compress(h: wp.vector(length=8, dtype=wp.uint32), m: wp.vector(length=16, dtype=wp.uint32),
                 t: int, last: int):
    """BLAKE2s's compression of one 64-byte block into h: 10 rounds of the eight G mixings."""
    v0 = h[0]
    v1 = h[1]
    v2 = h[2]
    v3 = h[3]
    v4 = h[4]
    v5 = h[5]
    v6 = h[6]
    v7 = h[7]
    v8 = wp.uint32(wp.static(B2_IV32[0]))
    v9 = wp.uint32(wp.static(B2_IV32[1]))
    v10 = wp.uint32(wp.static(B2_IV32[2]))
    v11 = wp.uint32(wp.static(B2_IV32[3]))
    v12 = wp.uint32(wp.static(B2_IV32[4])) ^ wp.uint32(t)
    v13 = wp.uint32(wp.static(B2_IV32[5]))
    v14 = wp.uint32(wp.static(B2_IV32[6]))
    if last != 0:
        v14 = ~v14
    v15 = wp.uint32(wp.static(B2_IV32[7]))
    for r in range(10):
        v0, v4, v8, v12 = g32(v0, v4, v8, v12, m[wp.static(B2_SIGMA[r][0])], m[wp.static(B2_SIGMA[r][1])])
        v1, v5, v9, v13 = g32(v1, v5, v9, v13, m[wp.static(B2_SIGMA[r][2])], m[wp.static(B2_SIGMA[r][3])])
        v2, v6, v10, v14 = g32(v2, v6, v10, v14, m[wp.static(B2_SIGMA[r][4])], m[wp.static(B2_SIGMA[r][5])])
        v3, v7, v11, v15 = g32(v3, v7, v11, v15, m[wp.static(B2_SIGMA[r][6])], m[wp.static(B2_SIGMA[r][7])])
        v0, v5, v10, v15 = g32(v0, v5, v10, v15, m[wp.static(B2_SIGMA[r][8])], m[wp.static(B2_SIGMA[r][9])])
        v1, v6, v11, v12 = g32(v1, v6, v11, v12, m[wp.static(B2_SIGMA[r][10])], m[wp.static(B2_SIGMA[r][11])])
        v2, v7, v8, v13 = g32(v2, v7, v8, v13, m[wp.static(B2_SIGMA[r][12])], m[wp.static(B2_SIGMA[r][13])])
        v3, v4, v9, v14 = g32(v3, v4, v9, v14, m[wp.static(B2_SIGMA[r][14])], m[wp.static(B2_SIGMA[r][15])])
    h[0] = h[0] ^ v0 ^ v8
    h[1] = h[1] ^ v1 ^ v9
    h[2] = h[2] ^ v2 ^ v10
    h[3] = h[3] ^ v3 ^ v11
    h[4] = h[4] ^ v4 ^ v12
    h[5] = h[5] ^ v5 ^ v13
    h[6] = h[6] ^ v6 ^ v14
    h[7] = h[7] ^ v7 ^ v15
    return h


@wp.kernel
def blake2s_msg(msg: wp.array2d(dtype=wp.uint32), out: wp.array2d(dtype=wp.uint32)):
    """BLAKE2s-256 of a 128-byte message a thread: two compressions of 64-byte blocks
    (counters 64 and 128, the second final), 10 rounds each; h (eight words) is the digest."""
    i = wp.tid()
    h = wp.vector(length=8, dtype=wp.uint32)
    for k in range(8):
        h[k] = wp.uint32(wp.static(B2_IV32[k]))
    h[0] = h[0] ^ wp.uint32(0x01010020)
    m = wp.vector(length=16, dtype=wp.uint32)
    for k in range(16):
        m[k] = msg[i, k]
    h = b2s_compress(h, m, 64, 0)
    for k in range(16):
        m[k] = msg[i, 16 + k]
    h = b2s_compress(h, m, 128, 1)
    for k in range(8):
        out[i, k] = h[k]


# ---- instant-NGP (Muller et al., 2022; tiny-cuda-nn): multiresolution hash encoding ---------------------------


@wp.kernel
def hashgrid_encode(pos: wp.array(dtype=wp.vec3), table: wp.array(dtype=wp.vec2), res: wp.array(dtype=int),
                    dense: wp.array(dtype=int), npts: int, out: wp.array(dtype=wp.vec2)):
    """The multiresolution hash encoding, a thread a (level, point) (the points of a level
    adjacent): the point scaled to the level's resolution, its cell's eight corners indexed
    densely where the level's grid fits its table, else by instant-NGP's spatial hash
    (x ^ 2654435761 y ^ 805459861 z, modulo 2^19), their two features gathered and blended
    with the trilinear weights."""
    t = wp.tid()
    lvl = t // npts
    p = t - lvl * npts
    r = res[lvl]
    rf = float(r)
    q = pos[p]
    x = q[0] * rf
    y = q[1] * rf
    z = q[2] * rf
    fx0 = wp.floor(x)
    fy0 = wp.floor(y)
    fz0 = wp.floor(z)
    ix = int(fx0)
    iy = int(fy0)
    iz = int(fz0)
    wx = x - fx0
    wy = y - fy0
    wz = z - fz0
    stride = r + 1
    isdense = dense[lvl]
    base = lvl * HG_T
    acc = wp.vec2(0.0, 0.0)
    for c in range(8):
        cx = ix + (c & 1)
        cy = iy + ((c >> 1) & 1)
        cz = iz + ((c >> 2) & 1)
        idx = int(0)
        if isdense != 0:
            idx = cx + stride * (cy + stride * cz)
        else:
            hsh = wp.uint32(cx) ^ (wp.uint32(cy) * wp.uint32(HG_P1)) ^ (wp.uint32(cz) * wp.uint32(HG_P2))
            idx = int(hsh & wp.uint32(HG_T - 1))
        w = wp.where((c & 1) != 0, wx, 1.0 - wx) * wp.where((c & 2) != 0, wy, 1.0 - wy) * wp.where((c & 4) != 0, wz, 1.0 - wz)
        acc = acc + w * table[base + idx]
    out[t] = acc


# ---- SLIC superpixels (Achanta et al., 2012; gSLIC): the assignment step -------------------------------------------


@wp.kernel
def slic_assign(lab: wp.array3d(dtype=float), cen: wp.array2d(dtype=float), s: int, gw: int, gh: int,
                m2s2: float, label: wp.array2d(dtype=int), dist: wp.array2d(dtype=float)):
    """SLIC's assignment, a thread a pixel (CIELAB planes): the nine cluster centres of its
    grid cell and the neighbouring ones (centres [l, a, b, y, x], the grid s pixels a cell),
    the distance d_lab^2 + (m / s)^2 d_xy^2 to each, the nearest taken (the first on ties)."""
    i, j = wp.tid()
    l0 = lab[0, i, j]
    a0 = lab[1, i, j]
    b0 = lab[2, i, j]
    cy = i // s
    cx = j // s
    yf = float(i)
    xf = float(j)
    best = float(1.0e30)
    bl = int(-1)
    for dy in range(-1, 2):
        gy = cy + dy
        if gy >= 0 and gy < gh:
            for dx in range(-1, 2):
                gx = cx + dx
                if gx >= 0 and gx < gw:
                    k = gy * gw + gx
                    dl = l0 - cen[k, 0]
                    da = a0 - cen[k, 1]
                    db = b0 - cen[k, 2]
                    ey = yf - cen[k, 3]
                    ex = xf - cen[k, 4]
                    d = dl * dl + da * da + db * db + m2s2 * (ey * ey + ex * ex)
                    if d < best:
                        best = d
                        bl = k
    label[i, j] = bl
    dist[i, j] = best


# ---- point-cloud rendering by atomic minima (Schutz, Kerbl and Wimmer, 2021) ----------------------------------------


@wp.kernel
def splat_points(pos: wp.array(dtype=wp.vec3), col: wp.array(dtype=wp.uint32), mvp: wp.array(dtype=float),
                 near: float, far: float, w: int, h: int, fb: wp.array(dtype=wp.uint64)):
    """A thread a point: the point projected by the 4 x 4 view-projection matrix (row-major),
    culled behind the near plane and outside the viewport, its depth quantised to 24 bits and
    packed above its 32-bit colour; the pixel's word lowered to it by a 64-bit atomic minimum
    (the nearest point wins, its colour with it)."""
    i = wp.tid()
    p = pos[i]
    cx = mvp[0] * p[0] + mvp[1] * p[1] + mvp[2] * p[2] + mvp[3]
    cy = mvp[4] * p[0] + mvp[5] * p[1] + mvp[6] * p[2] + mvp[7]
    cw = mvp[12] * p[0] + mvp[13] * p[1] + mvp[14] * p[2] + mvp[15]
    if cw <= near:
        return
    sx = (cx / cw * 0.5 + 0.5) * float(w)
    sy = (cy / cw * 0.5 + 0.5) * float(h)
    if sx < 0.0 or sy < 0.0 or sx >= float(w) or sy >= float(h):
        return
    px = int(sx)
    py = int(sy)
    depth = wp.uint32(wp.clamp((cw - near) / (far - near), 0.0, 1.0) * 16777215.0)
    key = (wp.uint64(depth) << wp.uint64(32)) | wp.uint64(col[i])
    wp.atomic_min(fb, py * w + px, key)
