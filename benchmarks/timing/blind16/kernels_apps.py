"""Kernels of the sixteenth blind validation set from applications: the genotype contingency
tables of exhaustive SNP-SNP epistasis searches (BOOST / GBOOST-style: genotypes as bit planes,
the nine cell counts of a pair by ANDs and population counts); the chaos game of Barnsley's
fern rendered by integer atomics into a density image (iterated function systems, fractal-flame
renderers); the sweep-and-prune broad phase of physics engines (GPU Gems 3's sort-and-sweep:
a thread a box sorted by its lower x, sweeping forward while the x-intervals overlap); the
Hilbert curve index of 2-D points (Wikipedia's rotate-and-flip loop, and a four-state table
walk with the table in shared memory); screen-space ambient occlusion (Crytek's SSAO: a
rotated kernel of depth-buffer samples a pixel); xxHash32 and xxHash64 of short keys.
Written from the algorithms, as kernels.py's; none is a translation of a suite's source.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x).
"""
import simt as wp

HB_ORDER = 16                      # Hilbert curve: bits a coordinate
SS_N = 16                          # SSAO: samples a pixel
FERN_T1 = int(0.01 * (1 << 24))    # fern: cumulative map probabilities on 24-bit draws
FERN_T2 = int(0.86 * (1 << 24))
FERN_T3 = int(0.93 * (1 << 24))
FERN_X0 = -2.2                     # fern: the image's box, x in [-2.2, 2.7), y in [0, 10)
FERN_W = 4.9
FERN_H = 10.0
XX_LEN = 128                       # xxHash: key bytes
XX32_P1 = 0x9E3779B1
XX32_P2 = 0x85EBCA77
XX32_P3 = 0xC2B2AE3D
XX64_P1 = 0x9E3779B185EBCA87
XX64_P2 = 0xC2B2AE3D27D4EB4F
XX64_P3 = 0x165667B19E3779F9
XX64_P4 = 0x85EBCA77C2B2AE63


def hilbert_state_table():
    """The Hilbert walk as a four-state machine: entry state * 4 + (bx << 1 | by), for the
    bits (bx, by) of the original coordinates at a level, holds digit | next_state << 2. A
    state is (swap, complement) of the coordinates, what the rotate-and-flip loop has done
    to them so far (the two commute)."""
    out = []
    for st in range(4):
        swp, cmp = st >> 1, st & 1
        for quad in range(4):
            bx, by = quad >> 1, quad & 1
            ex, ey = (by, bx) if swp else (bx, by)
            rx, ry = ex ^ cmp, ey ^ cmp
            digit = (3 * rx) ^ ry
            nswp, ncmp = swp, cmp
            if ry == 0:
                if rx == 1:
                    ncmp ^= 1
                nswp ^= 1
            out.append(digit | ((nswp << 1 | ncmp) << 2))
    return out


# ---- epistasis: SNP-pair genotype contingency tables (BOOST, GBOOST, GPU epistasis searches) --------


@wp.kernel
def epi_tables(g: wp.array(dtype=wp.uint64), nw: int, ss: int, ps: int, ws: int, nb0: int, nj: int,
               tab: wp.array2d(dtype=int)):
    """The 3 x 3 genotype table of SNP i (of the first set) against SNP nb0 + j, a thread a
    pair: genotypes as two bit planes a SNP (samples with genotype 0, with genotype 1; genotype
    2 is neither), nw 64-bit words a plane; word w of plane p of SNP s at s * ss + p * ps +
    w * ws (SNP-major or word-major); the nine counts by ANDs and population counts."""
    i, j = wp.tid()
    sa = i * ss
    sb = (nb0 + j) * ss
    c00 = int(0)
    c01 = int(0)
    c02 = int(0)
    c10 = int(0)
    c11 = int(0)
    c12 = int(0)
    c20 = int(0)
    c21 = int(0)
    c22 = int(0)
    for w in range(nw):
        o = w * ws
        a0 = g[sa + o]
        a1 = g[sa + ps + o]
        b0 = g[sb + o]
        b1 = g[sb + ps + o]
        a2 = ~(a0 | a1)
        b2 = ~(b0 | b1)
        c00 += int(wp.bit_count(a0 & b0))
        c01 += int(wp.bit_count(a0 & b1))
        c02 += int(wp.bit_count(a0 & b2))
        c10 += int(wp.bit_count(a1 & b0))
        c11 += int(wp.bit_count(a1 & b1))
        c12 += int(wp.bit_count(a1 & b2))
        c20 += int(wp.bit_count(a2 & b0))
        c21 += int(wp.bit_count(a2 & b1))
        c22 += int(wp.bit_count(a2 & b2))
    r = i * nj + j
    tab[r, 0] = c00
    tab[r, 1] = c01
    tab[r, 2] = c02
    tab[r, 3] = c10
    tab[r, 4] = c11
    tab[r, 5] = c12
    tab[r, 6] = c20
    tab[r, 7] = c21
    tab[r, 8] = c22


# ---- the chaos game: Barnsley's fern by integer atomics ------------------------------------------------


@wp.func
def xorshift32(s: wp.uint32):
    s = s ^ (s << wp.uint32(13))
    s = s ^ (s >> wp.uint32(17))
    s = s ^ (s << wp.uint32(5))
    return s


@wp.kernel
def fern_chaos(seed: wp.array(dtype=wp.uint32), nsteps: int, skip: int, res: int, img: wp.array(dtype=int)):
    """The chaos game of Barnsley's fern, a thread a walker from the origin: each step one of
    the four affine maps picked with probabilities 1%, 85%, 7%, 7% by the walker's xorshift32
    draw (24 bits against integer thresholds), applied to the point; after skip steps every
    point increments its pixel of a res x res density image (the box [-2.2, 2.7) x [0, 10)) by
    an integer atomic."""
    w = wp.tid()
    s = seed[w]
    x = float(0.0)
    y = float(0.0)
    sx = float(res) / FERN_W
    sy = float(res) / FERN_H
    for k in range(nsteps):
        s = xorshift32(s)
        r = int(s >> wp.uint32(8))
        nx = float(0.0)
        ny = float(0.0)
        if r < FERN_T1:
            ny = 0.16 * y
        elif r < FERN_T2:
            nx = 0.85 * x + 0.04 * y
            ny = -0.04 * x + 0.85 * y + 1.6
        elif r < FERN_T3:
            nx = 0.2 * x - 0.26 * y
            ny = 0.23 * x + 0.22 * y + 1.6
        else:
            nx = -0.15 * x + 0.28 * y
            ny = 0.26 * x + 0.24 * y + 0.44
        x = nx
        y = ny
        if k >= skip:
            px = wp.clamp(int((x - FERN_X0) * sx), 0, res - 1)
            py = wp.clamp(int(y * sy), 0, res - 1)
            wp.atomic_add(img, py * res + px, 1)


# ---- sweep and prune: the broad phase of rigid-body engines (GPU Gems 3, sort and sweep) -------------


@wp.kernel
def sap_count(minx: wp.array(dtype=float), maxx: wp.array(dtype=float), miny: wp.array(dtype=float),
              maxy: wp.array(dtype=float), minz: wp.array(dtype=float), maxz: wp.array(dtype=float),
              cnt: wp.array(dtype=int)):
    """The sweep of sort-and-sweep, a thread a box of the list sorted by lower x: the later
    boxes read one after another while their lower x is within the box's x-interval, each
    tested for overlap in y and z; the number of overlapping pairs the box starts stored."""
    i = wp.tid()
    n = minx.shape[0]
    hx = maxx[i]
    ly = miny[i]
    hy = maxy[i]
    lz = minz[i]
    hz = maxz[i]
    c = int(0)
    j = i + 1
    while j < n:
        if minx[j] > hx:
            break
        if miny[j] <= hy and maxy[j] >= ly:
            if minz[j] <= hz and maxz[j] >= lz:
                c += 1
        j += 1
    cnt[i] = c


# ---- Hilbert curve index of 2-D points ---------------------------------------------------------------


@wp.kernel
def hilbert_loop(px: wp.array(dtype=int), py: wp.array(dtype=int), d: wp.array(dtype=wp.uint32)):
    """The index along the Hilbert curve of order HB_ORDER of a point a thread, by the
    rotate-and-flip loop (a bit of each coordinate a level, high to low: the quadrant's digit
    s^2 ((3 rx) ^ ry) added, the coordinates flipped and swapped when ry is 0)."""
    i = wp.tid()
    x = wp.uint32(px[i])
    y = wp.uint32(py[i])
    nm1 = wp.uint32((1 << HB_ORDER) - 1)
    s = wp.uint32(1 << (HB_ORDER - 1))
    acc = wp.uint32(0)
    for lvl in range(HB_ORDER):
        rx = wp.uint32(0)
        ry = wp.uint32(0)
        if (x & s) != wp.uint32(0):
            rx = wp.uint32(1)
        if (y & s) != wp.uint32(0):
            ry = wp.uint32(1)
        acc = acc + s * s * ((wp.uint32(3) * rx) ^ ry)
        if ry == wp.uint32(0):
            if rx == wp.uint32(1):
                x = nm1 - x
                y = nm1 - y
            t = x
            x = y
            y = t
        s = s >> wp.uint32(1)
    d[i] = acc


@wp.kernel
def hilbert_table(px: wp.array(dtype=int), py: wp.array(dtype=int), tab: wp.array(dtype=int),
                  d: wp.array(dtype=wp.uint32)):
    """The same index by the four-state machine (hilbert_state_table: 16 entries, copied into
    shared memory at the block's start), two bits of index a level, high to low."""
    st_tab = wp.shared.array(shape=(16,), dtype=int)
    i = wp.tid()
    t = wp.thread_idx()
    if t < 16:
        st_tab[t] = tab[t]
    wp.sync_threads()
    x = px[i]
    y = py[i]
    st = int(0)
    acc = wp.uint32(0)
    for lvl in range(HB_ORDER):
        sh = HB_ORDER - 1 - lvl
        quad = (((x >> sh) & 1) << 1) | ((y >> sh) & 1)
        e = st_tab[st * 4 + quad]
        acc = (acc << wp.uint32(2)) | wp.uint32(e & 3)
        st = e >> 2
    d[i] = acc


# ---- screen-space ambient occlusion (Crytek) ---------------------------------------------------------


@wp.kernel
def ssao(depth: wp.array2d(dtype=float), kx: wp.array(dtype=float), ky: wp.array(dtype=float),
         rot: wp.array(dtype=wp.vec2), radius: float, bias: float, rng: float, ao: wp.array2d(dtype=float)):
    """Ambient occlusion from the depth buffer a thread a pixel: SS_N sample offsets of a disc
    kernel rotated by the pixel's entry of a 4 x 4 tile of random rotations, scaled by radius
    pixels and clamped to the image; a sample occludes when it is nearer than the pixel by more
    than bias and less than rng (the range check); the ambient term 1 - occluders / SS_N."""
    i, j = wp.tid()
    h = depth.shape[0]
    w = depth.shape[1]
    z = depth[i, j]
    r = rot[(i & 3) * 4 + (j & 3)]
    occ = float(0.0)
    for s in range(SS_N):
        ox = r[0] * kx[s] - r[1] * ky[s]
        oy = r[1] * kx[s] + r[0] * ky[s]
        sj = wp.clamp(j + int(radius * ox), 0, w - 1)
        si = wp.clamp(i + int(radius * oy), 0, h - 1)
        ds = depth[si, sj]
        if ds < z - bias:
            if z - ds < rng:
                occ += 1.0
    ao[i, j] = 1.0 - occ * (1.0 / float(SS_N))


# ---- xxHash32 and xxHash64 of short keys -----------------------------------------------------------------


@wp.func
def rotl32(x: wp.uint32, r: int):
    return (x << wp.uint32(r)) | (x >> wp.uint32(32 - r))


@wp.func
def rotl64(x: wp.uint64, r: int):
    return (x << wp.uint64(r)) | (x >> wp.uint64(64 - r))


@wp.func
def xx32_round(acc: wp.uint32, lane: wp.uint32):
    acc = acc + lane * wp.uint32(XX32_P2)
    acc = rotl32(acc, 13)
    return acc * wp.uint32(XX32_P1)


@wp.func
def xx64_round(acc: wp.uint64, lane: wp.uint64):
    acc = acc + lane * wp.uint64(XX64_P2)
    acc = rotl64(acc, 31)
    return acc * wp.uint64(XX64_P1)


@wp.func
def xx64_merge(h: wp.uint64, v: wp.uint64):
    h = h ^ xx64_round(wp.uint64(0), v)
    return h * wp.uint64(XX64_P1) + wp.uint64(XX64_P4)


@wp.kernel
def xxh32_keys(msg: wp.array2d(dtype=wp.uint32), seed: wp.uint32, out: wp.array(dtype=wp.uint32)):
    """XXH32 of a XX_LEN-byte key a thread (a row of 32-bit little-endian words): four
    accumulators over 16-byte stripes (multiply, rotate by 13, multiply), merged by rotations,
    the length added, the final avalanche."""
    i = wp.tid()
    v1 = seed + wp.uint32(XX32_P1) + wp.uint32(XX32_P2)
    v2 = seed + wp.uint32(XX32_P2)
    v3 = seed
    v4 = seed - wp.uint32(XX32_P1)
    for st in range(XX_LEN // 16):
        v1 = xx32_round(v1, msg[i, 4 * st])
        v2 = xx32_round(v2, msg[i, 4 * st + 1])
        v3 = xx32_round(v3, msg[i, 4 * st + 2])
        v4 = xx32_round(v4, msg[i, 4 * st + 3])
    h = rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18)
    h = h + wp.uint32(XX_LEN)
    h = h ^ (h >> wp.uint32(15))
    h = h * wp.uint32(XX32_P2)
    h = h ^ (h >> wp.uint32(13))
    h = h * wp.uint32(XX32_P3)
    h = h ^ (h >> wp.uint32(16))
    out[i] = h


@wp.kernel
def xxh64_keys(msg: wp.array2d(dtype=wp.uint64), seed: wp.uint64, out: wp.array(dtype=wp.uint64)):
    """XXH64 of a XX_LEN-byte key a thread (a row of 64-bit little-endian words): four
    accumulators over 32-byte stripes (64-bit multiply, rotate by 31, multiply), merged by
    rotations and four merge rounds, the length added, the final avalanche."""
    i = wp.tid()
    v1 = seed + wp.uint64(XX64_P1) + wp.uint64(XX64_P2)
    v2 = seed + wp.uint64(XX64_P2)
    v3 = seed
    v4 = seed - wp.uint64(XX64_P1)
    for st in range(XX_LEN // 32):
        v1 = xx64_round(v1, msg[i, 4 * st])
        v2 = xx64_round(v2, msg[i, 4 * st + 1])
        v3 = xx64_round(v3, msg[i, 4 * st + 2])
        v4 = xx64_round(v4, msg[i, 4 * st + 3])
    h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18)
    h = xx64_merge(h, v1)
    h = xx64_merge(h, v2)
    h = xx64_merge(h, v3)
    h = xx64_merge(h, v4)
    h = h + wp.uint64(XX_LEN)
    h = h ^ (h >> wp.uint64(33))
    h = h * wp.uint64(XX64_P2)
    h = h ^ (h >> wp.uint64(29))
    h = h * wp.uint64(XX64_P3)
    h = h ^ (h >> wp.uint64(32))
    out[i] = h
