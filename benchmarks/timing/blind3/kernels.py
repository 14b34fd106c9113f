"""Kernels of the third blind validation set, written in simt from the algorithms of public GPU
suites (PolyBench/GPU, Rodinia, SHOC, Parboil, the CUDA samples). Each is written from the
algorithm's description, as a user of simt would write it; none is a translation of a suite's
source, and none repeats an algorithm of the first two blind sets (../blind/kernels.py,
../blind2/kernels.py) or of the held-out set (../kernels.py, ../cases.py). Where a kernel has a
single- and a double-precision variant it is generic (``typing.Any``) and each launch picks its
dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x); with ``block_dim=(BH, BW)``, ``ty, tx = wp.thread_idx()``.
Launch shapes and inputs are in ``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

# ---- PolyBench/GPU -----------------------------------------------------------------------------


@wp.kernel
def trmm(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float), alpha: float):
    """trmm: C = alpha (B + strictly-lower(A)^T B), one thread per element; row i sums over the
    rows below it, so the loop's length falls from m - 1 to 0 down the matrix."""
    i, j = wp.tid()
    acc = b[i, j]
    for k in range(i + 1, b.shape[0]):
        acc += a[k, i] * b[k, j]
    c[i, j] = alpha * acc


@wp.kernel
def gramschmidt_norm(a: wp.array2d(dtype=float), k: int, q: wp.array2d(dtype=float), r: wp.array2d(dtype=float)):
    """Gram-Schmidt's first step of column k: one block of 256 threads sums the squares of the
    column (a strided walk down it, then a tree in shared memory), stores the norm in R and
    the normalised column in Q."""
    part = wp.shared.array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    m = a.shape[0]
    s = float(0.0)
    for i in range(t, m, 256):
        v = a[i, k]
        s += v * v
    part[t] = s
    wp.sync_threads()
    stride = int(128)
    while stride > 0:
        if t < stride:
            part[t] = part[t] + part[t + stride]
        wp.sync_threads()
        stride = stride // 2
    nrm = wp.sqrt(part[0])
    if t == 0:
        r[k, k] = nrm
    for i in range(t, m, 256):
        q[i, k] = a[i, k] / nrm


@wp.kernel
def gramschmidt_project(a: wp.array2d(dtype=float), q: wp.array2d(dtype=float), r: wp.array2d(dtype=float), k: int):
    """Gram-Schmidt's second step of column k: a thread per later column j projects it on q_k
    (a walk down the column) and removes that component (a second walk); columns up to k
    return."""
    j = wp.tid()
    if j > k:
        s = float(0.0)
        for i in range(a.shape[0]):
            s += q[i, k] * a[i, j]
        r[k, j] = s
        for i in range(a.shape[0]):
            a[i, j] = a[i, j] - q[i, k] * s


@wp.kernel
def heat3d(a: wp.array3d(dtype=float), b: wp.array3d(dtype=float)):
    """heat-3d: one explicit step of the heat equation, a seven-point stencil, a thread per
    interior point of a 3-D grid."""
    z, y, x = wp.tid()
    if z >= 1 and z < a.shape[0] - 1 and y >= 1 and y < a.shape[1] - 1 and x >= 1 and x < a.shape[2] - 1:
        c = a[z, y, x]
        b[z, y, x] = (c + 0.125 * (a[z + 1, y, x] - 2.0 * c + a[z - 1, y, x])
                      + 0.125 * (a[z, y + 1, x] - 2.0 * c + a[z, y - 1, x])
                      + 0.125 * (a[z, y, x + 1] - 2.0 * c + a[z, y, x - 1]))


@wp.kernel
def heat3d_zmarch(a: wp.array3d(dtype=float), b: wp.array3d(dtype=float)):
    """The same step with a 2-D grid of threads, each marching up its column in z and keeping
    the point below and its own in registers (the z-marching of Rodinia's hotspot3D)."""
    y, x = wp.tid()
    if y >= 1 and y < a.shape[1] - 1 and x >= 1 and x < a.shape[2] - 1:
        below = a[0, y, x]
        c = a[1, y, x]
        for z in range(1, a.shape[0] - 1):
            above = a[z + 1, y, x]
            b[z, y, x] = (c + 0.125 * (above - 2.0 * c + below)
                          + 0.125 * (a[z, y + 1, x] - 2.0 * c + a[z, y - 1, x])
                          + 0.125 * (a[z, y, x + 1] - 2.0 * c + a[z, y, x - 1]))
            below = c
            c = above


@wp.kernel
def seidel_branch(a: wp.array2d(dtype=float), color: int):
    """One colour of a red-black Gauss-Seidel sweep (PolyBench's seidel-2d, reordered so it runs
    in parallel), in place: a thread per point, those of the other colour idle (every other
    lane of a warp)."""
    i, j = wp.tid()
    if i >= 1 and i < a.shape[0] - 1 and j >= 1 and j < a.shape[1] - 1:
        if (i + j) % 2 == color:
            a[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@wp.kernel
def seidel_compact(a: wp.array2d(dtype=float), color: int):
    """The same sweep with a thread per point of the colour only (half as many threads; lanes
    two words apart)."""
    i, jj = wp.tid()
    j = 2 * jj + (i + color) % 2
    if i >= 1 and i < a.shape[0] - 1 and j >= 1 and j < a.shape[1] - 1:
        a[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@wp.kernel
def floyd_step(d: wp.array2d(dtype=float), k: int):
    """Floyd-Warshall's step k (PolyBench's floyd-warshall): every path may go through vertex
    k. Row and column k do not change at step k, so the update is in place."""
    i, j = wp.tid()
    via = d[i, k] + d[k, j]
    if via < d[i, j]:
        d[i, j] = via


@wp.kernel
def deriche_rows(x: wp.array2d(dtype=float), coef: wp.array(dtype=float), y: wp.array2d(dtype=float)):
    """Deriche's recursive edge filter along rows (PolyBench's deriche, its first two loops and
    their sum): a second-order causal pass left to right, an anti-causal pass right to left,
    a thread per row (lanes a row apart). coef = a1, a2, a3, a4, b1, b2, c1."""
    i = wp.tid()
    a1 = coef[0]
    a2 = coef[1]
    a3 = coef[2]
    a4 = coef[3]
    b1 = coef[4]
    b2 = coef[5]
    c1 = coef[6]
    w = x.shape[1]
    xm1 = float(0.0)
    ym1 = float(0.0)
    ym2 = float(0.0)
    for j in range(w):
        xv = x[i, j]
        yv = a1 * xv + a2 * xm1 + b1 * ym1 + b2 * ym2
        y[i, j] = yv
        xm1 = xv
        ym2 = ym1
        ym1 = yv
    xp1 = float(0.0)
    xp2 = float(0.0)
    yp1 = float(0.0)
    yp2 = float(0.0)
    for jr in range(w):
        j = w - 1 - jr
        yv = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
        y[i, j] = c1 * (y[i, j] + yv)
        xp2 = xp1
        xp1 = x[i, j]
        yp2 = yp1
        yp1 = yv


@wp.kernel
def deriche_cols(x: wp.array2d(dtype=float), coef: wp.array(dtype=float), y: wp.array2d(dtype=float)):
    """The same filter down columns, a thread per column (lanes on adjacent words)."""
    j = wp.tid()
    a1 = coef[0]
    a2 = coef[1]
    a3 = coef[2]
    a4 = coef[3]
    b1 = coef[4]
    b2 = coef[5]
    c1 = coef[6]
    h = x.shape[0]
    xm1 = float(0.0)
    ym1 = float(0.0)
    ym2 = float(0.0)
    for i in range(h):
        xv = x[i, j]
        yv = a1 * xv + a2 * xm1 + b1 * ym1 + b2 * ym2
        y[i, j] = yv
        xm1 = xv
        ym2 = ym1
        ym1 = yv
    xp1 = float(0.0)
    xp2 = float(0.0)
    yp1 = float(0.0)
    yp2 = float(0.0)
    for ir in range(h):
        i = h - 1 - ir
        yv = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
        y[i, j] = c1 * (y[i, j] + yv)
        xp2 = xp1
        xp1 = x[i, j]
        yp2 = yp1
        yp1 = yv


# ---- Rodinia -----------------------------------------------------------------------------------


@wp.kernel
def streamcluster_gain(pts: wp.array2d(dtype=float), weight: wp.array(dtype=float), cost: wp.array(dtype=float),
                       assign: wp.array(dtype=int), center: wp.array(dtype=float), switch: wp.array(dtype=int),
                       lower: wp.array(dtype=float)):
    """Streamcluster's gain of opening a candidate centre (Rodinia's streamcluster, pgain): each
    point's weighted distance to the candidate (points stored feature-major); a point that
    would move marks itself and adds its saving to its current centre's total by a float
    atomic (as many addresses as open centres: the contention)."""
    i = wp.tid()
    d = float(0.0)
    for f in range(pts.shape[0]):
        t = pts[f, i] - center[f]
        d += t * t
    x_cost = d * weight[i]
    if x_cost < cost[i]:
        switch[i] = 1
        wp.atomic_add(lower, assign[i], cost[i] - x_cost)


@wp.kernel
def pf_likelihood(frame: wp.array2d(dtype=wp.uint8), px: wp.array(dtype=float), py: wp.array(dtype=float),
                  oy: wp.array(dtype=int), ox: wp.array(dtype=int), w: wp.array(dtype=float)):
    """Particle filter's likelihood (Rodinia's particlefilter): each particle reads the frame's
    bytes under a disc of offsets around its position (clamped at the edges), scores them
    against foreground and background intensities (228 and 100; the score scaled by 1/128^2
    so that fp32's exp stays finite), and scales its weight by exp of the mean."""
    i = wp.tid()
    x = int(px[i])
    y = int(py[i])
    hmax = frame.shape[0] - 1
    wmax = frame.shape[1] - 1
    acc = float(0.0)
    for k in range(oy.shape[0]):
        yy = wp.min(wp.max(y + oy[k], 0), hmax)
        xx = wp.min(wp.max(x + ox[k], 0), wmax)
        v = float(frame[yy, xx])
        acc += ((v - 100.0) * (v - 100.0) - (v - 228.0) * (v - 228.0)) / 16384.0
    w[i] = w[i] * wp.exp(acc / float(oy.shape[0]))


@wp.kernel
def btree_thread(keys: wp.array(dtype=int), levels: int, query: wp.array(dtype=int), found: wp.array(dtype=int)):
    """B+tree search (Rodinia's b+tree, findK) in an implicit tree of fan-out 32, one thread per
    query: at each level the node's 32 keys are counted against the query (no early exit) and
    the walk goes to the last child whose first key is at or below it. Nodes of level l start
    at node (32^l - 1) / 31; the result is the leaf index."""
    qi = wp.tid()
    q = query[qi]
    node = int(0)
    base = int(0)
    width = int(1)
    for l in range(levels):
        cnt = int(0)
        for c in range(32):
            if keys[(base + node) * 32 + c] <= q:
                cnt += 1
        node = node * 32 + wp.max(cnt - 1, 0)
        base += width
        width *= 32
    found[qi] = node


@wp.kernel
def btree_warp(keys: wp.array(dtype=int), levels: int, query: wp.array(dtype=int), found: wp.array(dtype=int)):
    """The same search with a warp per query: each lane compares one key of the node, a ballot
    and a population count give the child (blocks a multiple of 32 threads)."""
    tid = wp.tid()
    qi = tid // 32
    lane = wp.lane_id()
    q = query[qi]
    node = int(0)
    base = int(0)
    width = int(1)
    for l in range(levels):
        below = wp.ballot_sync(wp.uint32(0xFFFFFFFF), keys[(base + node) * 32 + lane] <= q)
        node = node * 32 + wp.max(wp.bit_count(below) - 1, 0)
        base += width
        width *= 32
    if lane == 0:
        found[qi] = node


@wp.kernel
def dwt_haar(img: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    """One level of a 2-D Haar wavelet transform (Rodinia's dwt2d, with the Haar filter): a
    thread per 2x2 block writes the four sub-band coefficients into the four quadrants."""
    i, j = wp.tid()
    hh = out.shape[0] // 2
    hw = out.shape[1] // 2
    a = img[2 * i, 2 * j]
    b = img[2 * i, 2 * j + 1]
    c = img[2 * i + 1, 2 * j]
    d = img[2 * i + 1, 2 * j + 1]
    out[i, j] = 0.5 * (a + b + c + d)
    out[i, j + hw] = 0.5 * (a - b + c - d)
    out[i + hh, j] = 0.5 * (a + b - c - d)
    out[i + hh, j + hw] = 0.5 * (a - b - c + d)


@wp.func
def box_of(bz: int, by: int, bx: int, nb: int):
    return (bz * nb + by) * nb + bx


@wp.kernel
def lavamd_box(atoms: wp.array2d(dtype=wp.vec4), nb: int, a2: float, out: wp.array2d(dtype=wp.vec4)):
    """lavaMD (Rodinia): particles in boxes of a cubic grid (nb a side, 32 particles a box,
    x, y, z, charge); each particle sums exp(-a2 r^2) potentials and forces over the particles
    of its own and the neighbouring boxes. A block of 32 per box stages one neighbour box at a
    time through shared memory (512 bytes), with a barrier before and after each box."""
    sx = wp.shared.array(shape=(32,), dtype=float)
    sy = wp.shared.array(shape=(32,), dtype=float)
    sz = wp.shared.array(shape=(32,), dtype=float)
    sq = wp.shared.array(shape=(32,), dtype=float)
    box = wp.block_idx()
    t = wp.thread_idx()
    bz = box // (nb * nb)
    by = (box // nb) % nb
    bx = box % nb
    me = atoms[box, t]
    pot = float(0.0)
    fx = float(0.0)
    fy = float(0.0)
    fz = float(0.0)
    for cz in range(wp.max(bz - 1, 0), wp.min(bz + 2, nb)):
        for cy in range(wp.max(by - 1, 0), wp.min(by + 2, nb)):
            for cx in range(wp.max(bx - 1, 0), wp.min(bx + 2, nb)):
                other = atoms[box_of(cz, cy, cx, nb), t]
                sx[t] = other[0]
                sy[t] = other[1]
                sz[t] = other[2]
                sq[t] = other[3]
                wp.sync_threads()
                for p in range(32):
                    dx = me[0] - sx[p]
                    dy = me[1] - sy[p]
                    dz = me[2] - sz[p]
                    vij = wp.exp(-a2 * (dx * dx + dy * dy + dz * dz))
                    qv = sq[p] * vij
                    pot += qv
                    fx += 2.0 * qv * dx
                    fy += 2.0 * qv * dy
                    fz += 2.0 * qv * dz
                wp.sync_threads()
    out[box, t] = wp.vec4(pot, fx, fy, fz)


@wp.kernel
def lavamd_staged(atoms: wp.array2d(dtype=wp.vec4), nb: int, a2: float, out: wp.array2d(dtype=wp.vec4)):
    """The same sums with every neighbour box staged into shared memory at once (up to 27
    boxes, 13.5 KB a block, which limits the blocks an SM holds), one barrier, then one loop
    over them all."""
    sx = wp.shared.array(shape=(864,), dtype=float)
    sy = wp.shared.array(shape=(864,), dtype=float)
    sz = wp.shared.array(shape=(864,), dtype=float)
    sq = wp.shared.array(shape=(864,), dtype=float)
    box = wp.block_idx()
    t = wp.thread_idx()
    bz = box // (nb * nb)
    by = (box // nb) % nb
    bx = box % nb
    me = atoms[box, t]
    n = int(0)
    for cz in range(wp.max(bz - 1, 0), wp.min(bz + 2, nb)):
        for cy in range(wp.max(by - 1, 0), wp.min(by + 2, nb)):
            for cx in range(wp.max(bx - 1, 0), wp.min(bx + 2, nb)):
                other = atoms[box_of(cz, cy, cx, nb), t]
                sx[n + t] = other[0]
                sy[n + t] = other[1]
                sz[n + t] = other[2]
                sq[n + t] = other[3]
                n += 32
    wp.sync_threads()
    pot = float(0.0)
    fx = float(0.0)
    fy = float(0.0)
    fz = float(0.0)
    for p in range(n):
        dx = me[0] - sx[p]
        dy = me[1] - sy[p]
        dz = me[2] - sz[p]
        vij = wp.exp(-a2 * (dx * dx + dy * dy + dz * dz))
        qv = sq[p] * vij
        pot += qv
        fx += 2.0 * qv * dx
        fy += 2.0 * qv * dy
        fz += 2.0 * qv * dz
    out[box, t] = wp.vec4(pot, fx, fy, fz)


# ---- Parboil -----------------------------------------------------------------------------------


@wp.kernel
def sad_4x4(cur: wp.array2d(dtype=wp.uint8), ref: wp.array2d(dtype=wp.uint8), sad: wp.array3d(dtype=int)):
    """Parboil's SAD (motion estimation): the sum of absolute differences between each 4x4 block
    of the current frame and the reference frame at each of 64 offsets (-4 to 3 each way,
    clamped at the edges); a thread per block and offset, offsets fastest. Bytes, integer ALU."""
    by, bx, o = wp.tid()
    dy = o // 8 - 4
    dx = o % 8 - 4
    hmax = ref.shape[0] - 1
    wmax = ref.shape[1] - 1
    s = int(0)
    for r in range(4):
        y = by * 4 + r
        ry = wp.min(wp.max(y + dy, 0), hmax)
        for c in range(4):
            x = bx * 4 + c
            rx = wp.min(wp.max(x + dx, 0), wmax)
            s += wp.abs(int(cur[y, x]) - int(ref[ry, rx]))
    sad[by, bx, o] = s


@wp.kernel
def gridding(kx: wp.array(dtype=float), ky: wp.array(dtype=float), val: wp.array(dtype=float),
             grid: wp.array2d(dtype=float)):
    """Gridding of non-Cartesian samples (Parboil's mri-gridding, as a scatter): each sample adds
    its value, weighted by a separable triangle kernel of half-width 2, to the 4x4 grid cells
    around it by float atomics; where the samples crowd, the atomics contend."""
    i = wp.tid()
    x = kx[i]
    y = ky[i]
    v = val[i]
    x0 = int(wp.floor(x)) - 1
    y0 = int(wp.floor(y)) - 1
    for a in range(4):
        gy = y0 + a
        wy = wp.max(1.0 - wp.abs(float(gy) - y) * 0.5, 0.0)
        for b in range(4):
            gx = x0 + b
            wx = wp.max(1.0 - wp.abs(float(gx) - x) * 0.5, 0.0)
            if gy >= 0 and gy < grid.shape[0] and gx >= 0 and gx < grid.shape[1]:
                wp.atomic_add(grid, gy, gx, v * wy * wx)


# ---- SHOC --------------------------------------------------------------------------------------


@wp.kernel
def fft_stage(re: wp.array(dtype=Any), im: wp.array(dtype=Any), half: int):
    """One radix-2 stage of an in-place decimation-in-time FFT (SHOC's FFT, done stage by stage
    in global memory): a thread per butterfly, the pair ``half`` elements apart, its twiddle
    from sin and cos. Generic: fp32 or fp64."""
    t = wp.tid()
    g = t // half
    k = t - g * half
    i = g * 2 * half + k
    j = i + half
    ar = re[i]
    T = type(ar)
    ang = T(-3.14159265358979) * T(k) / T(half)
    c = wp.cos(ang)
    s = wp.sin(ang)
    br = re[j] * c - im[j] * s
    bi = re[j] * s + im[j] * c
    ai = im[i]
    re[i] = ar + br
    im[i] = ai + bi
    re[j] = ar - br
    im[j] = ai - bi


@wp.kernel
def fft256_shared(re: wp.array(dtype=float), im: wp.array(dtype=float)):
    """A whole 256-point FFT per block of 128 threads in shared memory (SHOC's FFT works on
    small transforms per block): a bit-reversed load, eight stages of butterflies with a
    barrier after each, the result written back in place."""
    sre = wp.shared.array(shape=(256,), dtype=float)
    sim = wp.shared.array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    base = wp.block_idx() * 256
    for e in range(t, 256, 128):
        rev = int(0)
        v = e
        for b in range(8):
            rev = rev * 2 + v % 2
            v = v // 2
        sre[rev] = re[base + e]
        sim[rev] = im[base + e]
    wp.sync_threads()
    half = int(1)
    while half < 256:
        g = t // half
        k = t - g * half
        i = g * 2 * half + k
        j = i + half
        ang = -3.14159265 * float(k) / float(half)
        c = wp.cos(ang)
        s = wp.sin(ang)
        br = sre[j] * c - sim[j] * s
        bi = sre[j] * s + sim[j] * c
        ar = sre[i]
        ai = sim[i]
        sre[i] = ar + br
        sim[i] = ai + bi
        sre[j] = ar - br
        sim[j] = ai - bi
        wp.sync_threads()
        half = half * 2
    for e in range(t, 256, 128):
        re[base + e] = sre[e]
        im[base + e] = sim[e]


@wp.kernel
def maxflops(x: wp.array(dtype=Any), n: int, out: wp.array(dtype=Any)):
    """SHOC's MaxFlops: eight independent multiply-add chains per thread for n steps (the chains
    contract to FMAs), their sum written once. Generic: fp32 or fp64."""
    i = wp.tid()
    v = x[i]
    T = type(v)
    a = T(0.999)
    b = T(0.001)
    v0 = v
    v1 = v + T(1.0)
    v2 = v + T(2.0)
    v3 = v + T(3.0)
    v4 = v + T(4.0)
    v5 = v + T(5.0)
    v6 = v + T(6.0)
    v7 = v + T(7.0)
    for s in range(n):
        v0 = v0 * a + b
        v1 = v1 * a + b
        v2 = v2 * a + b
        v3 = v3 * a + b
        v4 = v4 * a + b
        v5 = v5 * a + b
        v6 = v6 * a + b
        v7 = v7 * a + b
    out[i] = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7))


# ---- the CUDA samples --------------------------------------------------------------------------


@wp.kernel
def sepconv_rows(img: wp.array2d(dtype=float), w: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    """convolutionSeparable's row pass: a 1-D filter of radius 8 along each row, zero outside
    the image, read straight from global memory (lanes on adjacent words)."""
    i, j = wp.tid()
    s = float(0.0)
    for k in range(17):
        jj = j + k - 8
        if jj >= 0 and jj < img.shape[1]:
            s += w[k] * img[i, jj]
    out[i, j] = s


@wp.kernel
def sepconv_cols(img: wp.array2d(dtype=float), w: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    """convolutionSeparable's column pass: the same filter down each column (each tap a row
    apart)."""
    i, j = wp.tid()
    s = float(0.0)
    for k in range(17):
        ii = i + k - 8
        if ii >= 0 and ii < img.shape[0]:
            s += w[k] * img[ii, j]
    out[i, j] = s


@wp.kernel
def dct8x8(img: wp.array2d(dtype=float), cos8: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    """dct8x8 (CUDA samples): the 2-D DCT of every 8x8 block, a thread per coefficient, blocks
    of (8, 32) threads holding four image blocks: the rows transformed through one shared
    tile, a barrier, the columns through a second."""
    tile = wp.shared.array(shape=(8, 32), dtype=float)
    tmp = wp.shared.array(shape=(8, 32), dtype=float)
    ty, tx = wp.thread_idx()
    i, j = wp.tid()
    tile[ty, tx] = img[i, j]
    wp.sync_threads()
    u = tx % 8
    col0 = tx - u
    s = float(0.0)
    for k in range(8):
        s += cos8[u, k] * tile[ty, col0 + k]
    tmp[ty, tx] = s
    wp.sync_threads()
    s2 = float(0.0)
    for k in range(8):
        s2 += cos8[ty, k] * tmp[k, tx]
    out[i, j] = s2


@wp.kernel
def scalar_prod_shared(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    """scalarProd (CUDA samples): the dot products of many vector pairs, a block of 256 per
    pair: strided partial sums, then a tree in shared memory with a barrier per level."""
    part = wp.shared.array(shape=(256,), dtype=float)
    v = wp.block_idx()
    t = wp.thread_idx()
    s = float(0.0)
    for e in range(t, a.shape[1], 256):
        s += a[v, e] * b[v, e]
    part[t] = s
    wp.sync_threads()
    stride = int(128)
    while stride > 0:
        if t < stride:
            part[t] = part[t] + part[t + stride]
        wp.sync_threads()
        stride = stride // 2
    if t == 0:
        out[v] = part[0]


@wp.kernel
def scalar_prod_shfl(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    """The same dot products reduced by warp shuffles: each warp's sum by shuffles, the eight
    warp sums through shared memory, one barrier, and the first warp's shuffles again."""
    warp_sums = wp.shared.array(shape=(8,), dtype=float)
    v = wp.block_idx()
    t = wp.thread_idx()
    lane = t % 32
    s = float(0.0)
    for e in range(t, a.shape[1], 256):
        s += a[v, e] * b[v, e]
    off = int(16)
    while off > 0:
        s += wp.shfl_down_sync(0xFFFFFFFF, s, off)
        off = off // 2
    if lane == 0:
        warp_sums[t // 32] = s
    wp.sync_threads()
    if t < 32:
        s = float(0.0)
        if lane < 8:
            s = warp_sums[lane]
        off = int(4)
        while off > 0:
            s += wp.shfl_down_sync(0xFFFFFFFF, s, off)
            off = off // 2
        if t == 0:
            out[v] = s


@wp.func
def cnd(d: Any):
    """The cumulative normal distribution by the Abramowitz-Stegun polynomial."""
    T = type(d)
    k = T(1.0) / (T(1.0) + T(0.2316419) * wp.abs(d))
    poly = k * (T(0.31938153) + k * (T(-0.356563782) + k * (T(1.781477937) + k * (T(-1.821255978) + k * T(1.330274429)))))
    c = T(0.3989422804014327) * wp.exp(T(-0.5) * d * d) * poly
    return wp.where(d > T(0.0), T(1.0) - c, c)


@wp.kernel
def black_scholes(s: wp.array(dtype=Any), x: wp.array(dtype=Any), t: wp.array(dtype=Any),
                  call: wp.array(dtype=Any), put: wp.array(dtype=Any)):
    """BlackScholes (CUDA samples): European call and put prices of each option, the riskless
    rate 0.02 and volatility 0.30 fixed; log, sqrt, two exps and a division. Generic: fp32 or
    fp64."""
    i = wp.tid()
    sv = s[i]
    T = type(sv)
    xv = x[i]
    tv = t[i]
    r = T(0.02)
    vol = T(0.30)
    sqrt_t = wp.sqrt(tv)
    d1 = (wp.log(sv / xv) + (r + T(0.5) * vol * vol) * tv) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    c1 = cnd(d1)
    c2 = cnd(d2)
    exp_rt = wp.exp(-r * tv)
    call[i] = sv * c1 - xv * exp_rt * c2
    put[i] = xv * exp_rt * (T(1.0) - c2) - sv * (T(1.0) - c1)


@wp.kernel
def sobol_branch(dirs: wp.array2d(dtype=wp.uint32), out: wp.array2d(dtype=float)):
    """quasirandomGenerator (CUDA samples), its generator: point i of dimension d is the xor of
    the direction numbers at the set bits of i's Gray code, a loop over 32 bits with a branch
    per bit (lanes disagree on the low bits)."""
    d, i = wp.tid()
    g = wp.uint32(i) ^ (wp.uint32(i) >> wp.uint32(1))
    x = wp.uint32(0)
    for b in range(32):
        if ((g >> wp.uint32(b)) & wp.uint32(1)) != wp.uint32(0):
            x = x ^ dirs[d, b]
    out[d, i] = float(x) * 2.3283064365386963e-10


@wp.kernel
def sobol_mask(dirs: wp.array2d(dtype=wp.uint32), out: wp.array2d(dtype=float)):
    """The same generator branch-free: every direction number is loaded and masked by its bit."""
    d, i = wp.tid()
    g = wp.uint32(i) ^ (wp.uint32(i) >> wp.uint32(1))
    x = wp.uint32(0)
    for b in range(32):
        bit = (g >> wp.uint32(b)) & wp.uint32(1)
        x = x ^ (dirs[d, b] & (wp.uint32(0) - bit))
    out[d, i] = float(x) * 2.3283064365386963e-10


@wp.kernel
def merge_rank(keys: wp.array(dtype=int), run: int, out: wp.array(dtype=int)):
    """mergeSort's merge by ranks (CUDA samples): sorted runs of ``run`` keys are merged in
    pairs; each key finds its rank in the partner run by bisection (keys of the first run
    before equal keys of the second) and is written straight to its merged place."""
    i = wp.tid()
    r = i // run
    pos = i - r * run
    first = r % 2 == 0
    partner = (r + 1) * run
    if not first:
        partner = (r - 1) * run
    v = keys[i]
    lo = int(0)
    hi = run
    while lo < hi:
        mid = (lo + hi) // 2
        pv = keys[partner + mid]
        if pv < v or (pv == v and not first):
            lo = mid + 1
        else:
            hi = mid
    out[(r // 2) * 2 * run + pos + lo] = v
