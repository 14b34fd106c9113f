"""Kernels of the eighth blind validation set, written in simt from the algorithms of public GPU
suites and well-known GPU workloads (sparse formats and triangular solves, radix sort's scatter,
block-scan compaction, register sorting networks, bit packing, lattice QCD, particle-in-cell,
matrix exponentials, BVH traversal, backtracking, checksums, weight-only quantised GEMV, sliding
window attention, dilated convolution, Gaussian splatting's colours, non-maximum suppression,
connected-component labelling, Viterbi decoding, histogram equalisation, work queues). Each is
written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/kernels.py to ../blind7/kernels.py) or of the held-out set (../kernels.py,
../cases.py); the ML operators, image analysis and decoding kernels are in
kernels_ml.py. Where a kernel has variants of element type it is generic (``typing.Any``) and
each launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Launch shapes and inputs are in ``cases.py``; numpy
references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = wp.uint32(0xFFFFFFFF)
RADIX_TILE = 8      # keys each lane of radix_scatter moves (a warp moves 32 * RADIX_TILE)
RADIX_WARPS = 4     # warps a block of radix_scatter
COMPACT_BLOCK = 256  # threads a block of compact_block_scan
COMPACT_WARPS = 8   # its warps
QG = 128            # quantised weights per scale (a group along the row)
NMS_B = 32          # boxes a column block of nms_mask
VS = 64             # states of the Viterbi decoder's hidden Markov model
ADLER_MOD = 65521


@wp.func
def warp_sum(v: float):
    s = v
    for k in range(5):
        s += wp.shfl_xor_sync(FULL, s, 16 >> k)
    return s


# ---- sparse linear algebra ----------------------------------------------------------------------


@wp.kernel
def spmv_coo(rows: wp.array(dtype=int), cols: wp.array(dtype=int), vals: wp.array(dtype=float),
             x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """SpMV in coordinate format (cuSPARSE's and Bell and Garland's COO): a thread per stored
    entry multiplies it by its x and adds the product to its row of y by a float atomic."""
    i = wp.tid()
    wp.atomic_add(y, rows[i], vals[i] * x[cols[i]])


@wp.kernel
def spmv_bsr4(bptr: wp.array(dtype=int), bcol: wp.array(dtype=int), bval: wp.array2d(dtype=float),
              x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """SpMV in block sparse row format with dense 4x4 blocks (cuSPARSE's bsrmv; the blocks
    row-major): a thread per row walks its block row, four products a block."""
    r = wp.tid()
    br = r // 4
    o = (r % 4) * 4
    acc = float(0.0)
    for k in range(bptr[br], bptr[br + 1]):
        c = bcol[k] * 4
        acc += bval[k, o] * x[c] + bval[k, o + 1] * x[c + 1] + bval[k, o + 2] * x[c + 2] + bval[k, o + 3] * x[c + 3]
    y[r] = acc


@wp.kernel
def sptrsv_level_thread(ptr: wp.array(dtype=int), col: wp.array(dtype=int), val: wp.array(dtype=float),
                        diag: wp.array(dtype=float), rows: wp.array(dtype=int), b: wp.array(dtype=float),
                        x: wp.array(dtype=float)):
    """Sparse lower-triangular solve by level sets (Anderson and Saad; cuSPARSE's csrsv), one
    level: a thread per row of the level subtracts its strictly lower entries times the unknowns
    already solved (CSR) and divides by the diagonal."""
    t = wp.tid()
    r = rows[t]
    s = b[r]
    for k in range(ptr[r], ptr[r + 1]):
        s -= val[k] * x[col[k]]
    x[r] = s / diag[r]


@wp.kernel
def sptrsv_level_warp(ptr: wp.array(dtype=int), col: wp.array(dtype=int), val: wp.array(dtype=float),
                      diag: wp.array(dtype=float), rows: wp.array(dtype=int), b: wp.array(dtype=float),
                      x: wp.array(dtype=float)):
    """The same level with a warp per row: lanes stride over the row's entries, the products
    summed by shuffles, lane 0 writes the unknown."""
    g = wp.tid()
    lane = wp.lane_id()
    r = rows[g // 32]
    s = float(0.0)
    end = ptr[r + 1]
    k = ptr[r] + lane
    while k < end:
        s += val[k] * x[col[k]]
        k += 32
    s = warp_sum(s)
    if lane == 0:
        x[r] = (b[r] - s) / diag[r]


# ---- sorting and stream primitives ---------------------------------------------------------------


@wp.kernel
def radix_scatter(keys: wp.array(dtype=wp.uint32), shift: int, bits: int, offsets: wp.array2d(dtype=int),
                  out: wp.array(dtype=wp.uint32)):
    """LSD radix sort's scatter pass (as in CUB's and Onesweep's), the digit offsets of every
    warp's tile already scanned: each warp moves 32 * RADIX_TILE keys, ranking each key among
    its warp's peers of the same digit by ``bits`` ballots, a counter a digit a warp in shared
    memory; the keys land stably ordered by the digit."""
    cnt = wp.shared.array(shape=(RADIX_WARPS * 256,), dtype=int)
    g = wp.tid()
    lane = wp.lane_id()
    w = g // 32
    wl = (wp.thread_idx() // 32) * 256
    nd = 1 << bits
    k = lane
    while k < nd:
        cnt[wl + k] = offsets[w, k]
        k += 32
    wp.sync_threads()
    below = (wp.uint32(1) << wp.uint32(lane)) - wp.uint32(1)
    for r in range(RADIX_TILE):
        key = keys[w * 32 * RADIX_TILE + r * 32 + lane]
        d = int((key >> wp.uint32(shift)) & wp.uint32(nd - 1))
        peers = FULL
        for b in range(bits):
            on = ((d >> b) & 1) == 1
            bal = wp.ballot_sync(FULL, on)
            if on:
                peers = peers & bal
            else:
                peers = peers & ~bal
        rank = wp.bit_count(peers & below)
        out[cnt[wl + d] + rank] = key
        wp.sync_threads()
        if rank == 0:
            cnt[wl + d] = cnt[wl + d] + wp.bit_count(peers)
        wp.sync_threads()


@wp.kernel
def compact_block_scan(x: wp.array(dtype=float), thr: float, out: wp.array(dtype=float), count: wp.array(dtype=int)):
    """Stream compaction by a block-wide scan (the scan-then-scatter of Billeter et al. and of
    thrust's copy_if, one pass): each warp ranks its kept values by a ballot, a block scans the
    warps' counts in shared memory and reserves its block's range by one atomic, and every kept
    value is written at its place (order kept within a block)."""
    wsum = wp.shared.array(shape=(COMPACT_WARPS,), dtype=int)
    base = wp.shared.array(shape=(1,), dtype=int)
    i = wp.tid()
    t = wp.thread_idx()
    lane = wp.lane_id()
    v = x[i]
    keep = v > thr
    bal = wp.ballot_sync(FULL, keep)
    pre = wp.bit_count(bal & ((wp.uint32(1) << wp.uint32(lane)) - wp.uint32(1)))
    if lane == 0:
        wsum[t // 32] = wp.bit_count(bal)
    wp.sync_threads()
    if t == 0:
        s = int(0)
        for k in range(COMPACT_WARPS):
            c = wsum[k]
            wsum[k] = s
            s += c
        base[0] = wp.atomic_add(count, 0, s)
    wp.sync_threads()
    if keep:
        out[base[0] + wsum[t // 32] + pre] = v


@wp.kernel
def warp_bitonic32(keys: wp.array(dtype=float), out: wp.array(dtype=float)):
    """A bitonic sorting network over the 32 lanes of a warp in registers (the in-warp stage of
    GPU sorts such as CUB's and of top-k kernels): 15 compare-exchanges with the partner lane by
    shuffles, each warp's 32 keys ascending."""
    i = wp.tid()
    lane = wp.lane_id()
    v = keys[i]
    k = int(2)
    while k <= 32:
        j = k // 2
        while j > 0:
            p = wp.shfl_xor_sync(FULL, v, j)
            m = lane & (k | j)
            if m == 0 or m == (k | j):
                v = wp.min(v, p)
            else:
                v = wp.max(v, p)
            j = j // 2
        k = k * 2
    out[i] = v


@wp.kernel
def pack_bits_ballot(x: wp.array(dtype=float), thr: float, bits: wp.array(dtype=wp.uint32)):
    """A predicate packed into a bitmap (GPU bitmap indexes and column scans): a warp's 32
    results gathered by a ballot, lane 0 stores the word."""
    i = wp.tid()
    b = wp.ballot_sync(FULL, x[i] > thr)
    if wp.lane_id() == 0:
        bits[i // 32] = b


@wp.kernel
def pack_bits_atomic(x: wp.array(dtype=float), thr: float, bits: wp.array(dtype=wp.uint32)):
    """The same bitmap with a bitwise-or atomic a set bit (the bitmap zeroed first): 32 lanes
    contend for each word."""
    i = wp.tid()
    if x[i] > thr:
        wp.atomic_or(bits, i // 32, wp.uint32(1) << wp.uint32(i % 32))


# ---- physics and numerical kernels --------------------------------------------------------------


@wp.kernel
def su3_hop(u: wp.array3d(dtype=Any), psi: wp.array2d(dtype=Any), lsize: int, out: wp.array2d(dtype=Any)):
    """Lattice QCD's hopping term, forward half (the SU(3) matrix-vector products of the Wilson
    Dslash, as in MILC and QUDA, without spin): on a periodic L^4 lattice each site sums
    U_mu(x) psi(x + mu) over the four directions, U a complex 3x3 link (18 reals, row-major,
    re/im interleaved) and psi a colour vector (6 reals). Generic: fp32 or fp64."""
    s = wp.tid()
    L = lsize
    x = s % L
    y = (s // L) % L
    z = (s // (L * L)) % L
    t = s // (L * L * L)
    T = type(psi[s, 0])
    c0r = T(0.0)
    c0i = c0r
    c1r = c0r
    c1i = c0r
    c2r = c0r
    c2i = c0r
    for mu in range(4):
        n = s - x + (x + 1) % L
        if mu == 1:
            n = s + ((y + 1) % L - y) * L
        elif mu == 2:
            n = s + ((z + 1) % L - z) * L * L
        elif mu == 3:
            n = s + ((t + 1) % L - t) * L * L * L
        p0r = psi[n, 0]
        p0i = psi[n, 1]
        p1r = psi[n, 2]
        p1i = psi[n, 3]
        p2r = psi[n, 4]
        p2i = psi[n, 5]
        a0 = u[s, mu, 0]
        a1 = u[s, mu, 1]
        a2 = u[s, mu, 2]
        a3 = u[s, mu, 3]
        a4 = u[s, mu, 4]
        a5 = u[s, mu, 5]
        c0r += a0 * p0r - a1 * p0i + a2 * p1r - a3 * p1i + a4 * p2r - a5 * p2i
        c0i += a0 * p0i + a1 * p0r + a2 * p1i + a3 * p1r + a4 * p2i + a5 * p2r
        a0 = u[s, mu, 6]
        a1 = u[s, mu, 7]
        a2 = u[s, mu, 8]
        a3 = u[s, mu, 9]
        a4 = u[s, mu, 10]
        a5 = u[s, mu, 11]
        c1r += a0 * p0r - a1 * p0i + a2 * p1r - a3 * p1i + a4 * p2r - a5 * p2i
        c1i += a0 * p0i + a1 * p0r + a2 * p1i + a3 * p1r + a4 * p2i + a5 * p2r
        a0 = u[s, mu, 12]
        a1 = u[s, mu, 13]
        a2 = u[s, mu, 14]
        a3 = u[s, mu, 15]
        a4 = u[s, mu, 16]
        a5 = u[s, mu, 17]
        c2r += a0 * p0r - a1 * p0i + a2 * p1r - a3 * p1i + a4 * p2r - a5 * p2i
        c2i += a0 * p0i + a1 * p0r + a2 * p1i + a3 * p1r + a4 * p2i + a5 * p2r
    out[s, 0] = c0r
    out[s, 1] = c0i
    out[s, 2] = c1r
    out[s, 3] = c1i
    out[s, 4] = c2r
    out[s, 5] = c2i


@wp.func
def cic(f: wp.array2d(dtype=float), iy: int, ix: int, iy1: int, ix1: int, fy: float, fx: float):
    """Bilinear (cloud-in-cell) interpolation of a grid field at a particle."""
    return (1.0 - fy) * ((1.0 - fx) * f[iy, ix] + fx * f[iy, ix1]) + fy * ((1.0 - fx) * f[iy1, ix] + fx * f[iy1, ix1])


@wp.kernel
def boris_push(px: wp.array(dtype=float), py: wp.array(dtype=float), vx: wp.array(dtype=float),
               vy: wp.array(dtype=float), vz: wp.array(dtype=float), ex: wp.array2d(dtype=float),
               ey: wp.array2d(dtype=float), bz: wp.array2d(dtype=float), qm: float, dt: float):
    """Particle-in-cell's particle push (the Boris scheme, as in PIConGPU and VPIC) in 2-D with
    E in the plane and B along z: a thread per particle gathers the three fields at its place by
    bilinear weights (twelve grid loads), half-accelerates, rotates, half-accelerates, and moves
    (periodic), in place."""
    i = wp.tid()
    h = ex.shape[0]
    w = ex.shape[1]
    x = px[i]
    y = py[i]
    ix = int(wp.floor(x))
    iy = int(wp.floor(y))
    fx = x - float(ix)
    fy = y - float(iy)
    ix1 = (ix + 1) % w
    iy1 = (iy + 1) % h
    e1 = cic(ex, iy, ix, iy1, ix1, fy, fx)
    e2 = cic(ey, iy, ix, iy1, ix1, fy, fx)
    b3 = cic(bz, iy, ix, iy1, ix1, fy, fx)
    k = 0.5 * qm * dt
    mx = vx[i] + k * e1
    my = vy[i] + k * e2
    tz = k * b3
    sz = 2.0 * tz / (1.0 + tz * tz)
    qx = mx + my * tz
    qy = my - mx * tz
    nx = mx + qy * sz + k * e1
    ny = my - qx * sz + k * e2
    vx[i] = nx
    vy[i] = ny
    x = x + nx * dt
    y = y + ny * dt
    x = x - float(w) * wp.floor(x / float(w))
    y = y - float(h) * wp.floor(y / float(h))
    if x >= float(w):
        x = x - float(w)
    if y >= float(h):
        y = y - float(h)
    px[i] = x
    py[i] = y


@wp.kernel
def expm4_taylor(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    """Batched 4x4 matrix exponentials (rigid-body and robotics kinematics, continuous-time
    Markov chains) by scaling and squaring: a thread per matrix halves it until its infinity
    norm is at most 1/2 (a data-dependent count s), sums the degree-8 Taylor series by Horner's
    rule and squares the result s times."""
    i = wp.tid()
    m = wp.mat44(a[i, 0], a[i, 1], a[i, 2], a[i, 3], a[i, 4], a[i, 5], a[i, 6], a[i, 7],
                 a[i, 8], a[i, 9], a[i, 10], a[i, 11], a[i, 12], a[i, 13], a[i, 14], a[i, 15])
    nrm = float(0.0)
    for r in range(4):
        nrm = wp.max(nrm, wp.abs(m[r, 0]) + wp.abs(m[r, 1]) + wp.abs(m[r, 2]) + wp.abs(m[r, 3]))
    s = int(0)
    scale = float(1.0)
    while nrm > 0.5 and s < 30:
        nrm = nrm * 0.5
        scale = scale * 0.5
        s += 1
    m = m * scale
    eye = wp.mat44(1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    e = eye
    for k in range(8, 0, -1):
        e = eye + (m * e) * (1.0 / float(k))
    for r in range(s):
        e = e * e
    for r in range(4):
        for c in range(4):
            out[i, 4 * r + c] = e[r, c]


# ---- search --------------------------------------------------------------------------------------


@wp.kernel
def bvh_count(box: wp.array2d(dtype=float), nleaf: int, qx: wp.array(dtype=float), qy: wp.array(dtype=float),
              qz: wp.array(dtype=float), hits: wp.array(dtype=int), idsum: wp.array(dtype=int)):
    """Point queries on a bounding volume hierarchy (collision detection, ray tracers' BVHs),
    stackless: a complete binary tree in heap order (node h's children 2h and 2h + 1, leaves
    nleaf to 2 nleaf - 1, boxes as lo xyz, hi xyz); a thread per query descends into boxes that
    hold its point and otherwise moves to the next subtree by the bits of h; it counts the leaf
    boxes holding the point and sums their indices."""
    i = wp.tid()
    x = qx[i]
    y = qy[i]
    z = qz[i]
    h = int(1)
    c = int(0)
    sid = int(0)
    while h > 0:
        down = False
        if x >= box[h, 0] and x <= box[h, 3] and y >= box[h, 1] and y <= box[h, 4] and z >= box[h, 2] and z <= box[h, 5]:
            if h >= nleaf:
                c += 1
                sid += h - nleaf
            else:
                down = True
        if down:
            h = 2 * h
        else:
            while (h & 1) == 1:
                h = h >> 1
            if h > 0:
                h = h + 1
    hits[i] = c
    idsum[i] = sid


@wp.kernel
def nqueens_dfs(cols: wp.array(dtype=wp.uint32), ld: wp.array(dtype=wp.uint32), rd: wp.array(dtype=wp.uint32),
                n: int, rem: int, count: wp.array(dtype=int)):
    """N-queens by backtracking on bitboards (the classic GPU formulation: a thread per placement
    of the first rows), each thread an iterative depth-first search over the ``rem`` rows left
    with its stack of column, diagonal and free-square masks in local vectors; it counts the
    solutions below its prefix."""
    i = wp.tid()
    allm = (wp.uint32(1) << wp.uint32(n)) - wp.uint32(1)
    sc = wp.vector(length=16, dtype=wp.uint32)
    sl = wp.vector(length=16, dtype=wp.uint32)
    sr = wp.vector(length=16, dtype=wp.uint32)
    sa = wp.vector(length=16, dtype=wp.uint32)
    sc[0] = cols[i]
    sl[0] = ld[i]
    sr[0] = rd[i]
    sa[0] = allm & ~(cols[i] | ld[i] | rd[i])
    d = int(0)
    c = int(0)
    while d >= 0:
        a = sa[d]
        if a == wp.uint32(0):
            d -= 1
        else:
            bit = a & (~a + wp.uint32(1))
            sa[d] = a ^ bit
            nc = sc[d] | bit
            nl = ((sl[d] | bit) << wp.uint32(1)) & allm
            nr = (sr[d] | bit) >> wp.uint32(1)
            if d + 1 == rem:
                c += 1
            else:
                d += 1
                sc[d] = nc
                sl[d] = nl
                sr[d] = nr
                sa[d] = allm & ~(nc | nl | nr)
    count[i] = c


# ---- checksums -----------------------------------------------------------------------------------


@wp.kernel
def adler32_thread(data: wp.array2d(dtype=wp.uint8), out: wp.array(dtype=wp.uint32)):
    """Adler-32 (RFC 1950, zlib) of every row of ``data`` (chunks of a stream, as parallel
    compressors checksum them), a thread per chunk walking its bytes: A and B folded modulo
    65521 every 256 bytes."""
    c = wp.tid()
    n = data.shape[1]
    mod = wp.uint32(ADLER_MOD)
    a = wp.uint32(1)
    b = wp.uint32(0)
    for k in range(n):
        a = a + wp.uint32(int(data[c, k]))
        b = b + a
        if (k & 255) == 255:
            a = a % mod
            b = b % mod
    a = a % mod
    b = b % mod
    out[c] = (b << wp.uint32(16)) | a


@wp.kernel
def adler32_warp(data: wp.array2d(dtype=wp.uint8), out: wp.array(dtype=wp.uint32)):
    """The same checksums with a warp per chunk: lane l sums bytes l, l + 32, ... and their
    weights (n - position) (B = n + sum (n - p) d_p), folded modulo 65521, then the lanes'
    sums combined by shuffles."""
    g = wp.tid()
    c = g // 32
    lane = wp.lane_id()
    n = data.shape[1]
    mod = wp.uint32(ADLER_MOD)
    sa = wp.uint32(0)
    sb = wp.uint32(0)
    it = int(0)
    for p in range(lane, n, 32):
        d = wp.uint32(int(data[c, p]))
        sa = sa + d
        sb = sb + wp.uint32(n - p) * d
        it += 1
        if (it & 63) == 0:
            sa = sa % mod
            sb = sb % mod
    sa = sa % mod
    sb = sb % mod
    for k in range(5):
        sa = (sa + wp.shfl_xor_sync(FULL, sa, 16 >> k)) % mod
        sb = (sb + wp.shfl_xor_sync(FULL, sb, 16 >> k)) % mod
    if lane == 0:
        a = (sa + wp.uint32(1)) % mod
        b = (sb + wp.uint32(n) % mod) % mod
        out[c] = (b << wp.uint32(16)) | a
