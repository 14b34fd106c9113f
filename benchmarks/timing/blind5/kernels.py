"""Kernels of the fifth blind validation set, written in simt from the algorithms of public GPU
suites and well-known GPU workloads (the CUDA samples, image processing, ML operators, graph
analytics, physics simulation, checksums, computational geometry). Each is written from the
algorithm's description, as a user of simt would write it; none is a translation of a suite's
source, and none repeats an algorithm of the earlier blind sets (../blind/kernels.py,
../blind2/kernels.py, ../blind3/kernels.py, ../blind4/kernels.py) or of the held-out set
(../kernels.py, ../cases.py). Where a kernel has variants of element type it is generic
(``typing.Any``) and each launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x); with ``block_dim=(BH, BW)``, ``ty, tx = wp.thread_idx()``.
Launch shapes and inputs are in ``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = wp.uint32(0xFFFFFFFF)


@wp.func
def hash32(x: wp.uint32):
    """A 32-bit integer hash (the finaliser of MurmurHash3): the counter-based random numbers of
    the dropout and Ising kernels."""
    h = x
    h = h ^ (h >> wp.uint32(16))
    h = h * wp.uint32(0x85EBCA6B)
    h = h ^ (h >> wp.uint32(13))
    h = h * wp.uint32(0xC2B2AE35)
    h = h ^ (h >> wp.uint32(16))
    return h


@wp.func
def uniform24(h: wp.uint32):
    """The top 24 bits of a hash as a float in [0, 1) (exact in fp32)."""
    return float(int(h >> wp.uint32(8))) * 5.9604644775390625e-08


# ---- the CUDA samples: fastWalshTransform ------------------------------------------------------


@wp.kernel
def fwt_stage(x: wp.array(dtype=float), half: int):
    """fastWalshTransform (CUDA samples), one radix-2 stage in global memory: a thread per
    butterfly, the pair ``half`` apart (lanes two words apart when half is 1, adjacent when it
    is large)."""
    i = wp.tid()
    a = (i // half) * 2 * half + i % half
    b = a + half
    u = x[a]
    v = x[b]
    x[a] = u + v
    x[b] = u - v


@wp.kernel
def fwt_shared(x: wp.array(dtype=float)):
    """fastWalshTransform's in-block part: a block of 512 threads loads 1024 consecutive values
    into shared memory and does the transform's first ten stages there (a barrier a stage),
    then writes them back."""
    s = wp.shared.array(shape=(1024,), dtype=float)
    t = wp.thread_idx()
    base = wp.block_idx() * 1024
    s[t] = x[base + t]
    s[t + 512] = x[base + t + 512]
    wp.sync_threads()
    half = int(1)
    while half < 1024:
        a = (t // half) * 2 * half + t % half
        u = s[a]
        v = s[a + half]
        s[a] = u + v
        s[a + half] = u - v
        half = half * 2
        wp.sync_threads()
    x[base + t] = s[t]
    x[base + t + 512] = s[t + 512]


# ---- image processing --------------------------------------------------------------------------


@wp.kernel
def median3x3(img: wp.array2d(dtype=Any), out: wp.array2d(dtype=Any)):
    """3x3 median filter (edges clamped) by the 19-exchange selection network for nine values;
    generic pixel type: bytes or fp32."""
    y, x = wp.tid()
    hm = img.shape[0] - 1
    wm = img.shape[1] - 1
    ya = wp.max(y - 1, 0)
    yb = wp.min(y + 1, hm)
    xa = wp.max(x - 1, 0)
    xb = wp.min(x + 1, wm)
    p0 = img[ya, xa]
    p1 = img[ya, x]
    p2 = img[ya, xb]
    p3 = img[y, xa]
    p4 = img[y, x]
    p5 = img[y, xb]
    p6 = img[yb, xa]
    p7 = img[yb, x]
    p8 = img[yb, xb]
    t = wp.min(p1, p2)
    p2 = wp.max(p1, p2)
    p1 = t
    t = wp.min(p4, p5)
    p5 = wp.max(p4, p5)
    p4 = t
    t = wp.min(p7, p8)
    p8 = wp.max(p7, p8)
    p7 = t
    t = wp.min(p0, p1)
    p1 = wp.max(p0, p1)
    p0 = t
    t = wp.min(p3, p4)
    p4 = wp.max(p3, p4)
    p3 = t
    t = wp.min(p6, p7)
    p7 = wp.max(p6, p7)
    p6 = t
    t = wp.min(p1, p2)
    p2 = wp.max(p1, p2)
    p1 = t
    t = wp.min(p4, p5)
    p5 = wp.max(p4, p5)
    p4 = t
    t = wp.min(p7, p8)
    p8 = wp.max(p7, p8)
    p7 = t
    p3 = wp.max(p0, p3)
    p5 = wp.min(p5, p8)
    t = wp.min(p4, p7)
    p7 = wp.max(p4, p7)
    p4 = t
    p6 = wp.max(p3, p6)
    p4 = wp.max(p1, p4)
    p2 = wp.min(p2, p5)
    p4 = wp.min(p4, p7)
    t = wp.min(p4, p2)
    p2 = wp.max(p4, p2)
    p4 = t
    p4 = wp.max(p6, p4)
    out[y, x] = wp.min(p4, p2)


@wp.kernel
def erode_naive(img: wp.array2d(dtype=wp.uint8), r: int, out: wp.array2d(dtype=wp.uint8)):
    """Grey-scale erosion with a (2r+1)^2 square: each pixel the minimum of its window (edges
    clamped), every tap read from global memory."""
    y, x = wp.tid()
    hm = img.shape[0] - 1
    wm = img.shape[1] - 1
    m = int(255)
    for dy in range(-r, r + 1):
        yy = wp.min(wp.max(y + dy, 0), hm)
        for dx in range(-r, r + 1):
            xx = wp.min(wp.max(x + dx, 0), wm)
            m = wp.min(m, int(img[yy, xx]))
    out[y, x] = wp.uint8(m)


@wp.kernel
def erode_tiled(img: wp.array2d(dtype=wp.uint8), out: wp.array2d(dtype=wp.uint8)):
    """The same erosion for r = 2 with a 16x16 block staging its 20x20 tile (the halo included,
    edges clamped) in shared memory, then the 25 taps from there."""
    tile = wp.shared.array(shape=(20, 20), dtype=int)
    y, x = wp.tid()
    ty, tx = wp.thread_idx()
    hm = img.shape[0] - 1
    wm = img.shape[1] - 1
    y0 = y - ty - 2
    x0 = x - tx - 2
    t = ty * 16 + tx
    for e in range(t, 400, 256):
        yy = wp.min(wp.max(y0 + e // 20, 0), hm)
        xx = wp.min(wp.max(x0 + e % 20, 0), wm)
        tile[e // 20, e % 20] = int(img[yy, xx])
    wp.sync_threads()
    m = int(255)
    for dy in range(5):
        for dx in range(5):
            m = wp.min(m, tile[ty + dy, tx + dx])
    out[y, x] = wp.uint8(m)


@wp.kernel
def integral_rows(img: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    """Integral image, the row pass: a thread per row keeps a running sum along it (lanes a row
    apart)."""
    i = wp.tid()
    s = float(0.0)
    for j in range(img.shape[1]):
        s += img[i, j]
        out[i, j] = s


@wp.kernel
def integral_cols(img: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    """Integral image, the column pass: a thread per column walks down it (lanes adjacent)."""
    j = wp.tid()
    s = float(0.0)
    for i in range(img.shape[0]):
        s += img[i, j]
        out[i, j] = s


@wp.kernel
def rgb_gray_interleaved(rgb: wp.array2d(dtype=wp.uint8), gray: wp.array(dtype=wp.uint8)):
    """RGB to grey on bytes, interleaved pixels (RGBRGB...): integer BT.601 weights
    (77 R + 150 G + 29 B + 128) >> 8."""
    i = wp.tid()
    v = 77 * int(rgb[i, 0]) + 150 * int(rgb[i, 1]) + 29 * int(rgb[i, 2]) + 128
    gray[i] = wp.uint8(v >> 8)


@wp.kernel
def rgb_gray_planar(rgb: wp.array2d(dtype=wp.uint8), gray: wp.array(dtype=wp.uint8)):
    """The same conversion on planar bytes (three planes, R then G then B)."""
    i = wp.tid()
    v = 77 * int(rgb[0, i]) + 150 * int(rgb[1, i]) + 29 * int(rgb[2, i]) + 128
    gray[i] = wp.uint8(v >> 8)


@wp.kernel
def resize_bilinear(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    """Bilinear resize (pixel centres aligned, edges clamped): a thread per output pixel, four
    taps of the source."""
    y, x = wp.tid()
    sh = src.shape[0]
    sw = src.shape[1]
    fy = (float(y) + 0.5) * float(sh) / float(dst.shape[0]) - 0.5
    fx = (float(x) + 0.5) * float(sw) / float(dst.shape[1]) - 0.5
    fy = wp.min(wp.max(fy, 0.0), float(sh - 1))
    fx = wp.min(wp.max(fx, 0.0), float(sw - 1))
    y0 = int(fy)
    x0 = int(fx)
    y1 = wp.min(y0 + 1, sh - 1)
    x1 = wp.min(x0 + 1, sw - 1)
    wy = fy - float(y0)
    wx = fx - float(x0)
    top = src[y0, x0] + wx * (src[y0, x1] - src[y0, x0])
    bot = src[y1, x0] + wx * (src[y1, x1] - src[y1, x0])
    dst[y, x] = top + wy * (bot - top)


# ---- ML operators ------------------------------------------------------------------------------


@wp.kernel
def maxpool3x3s2(x: wp.array3d(dtype=float), y: wp.array3d(dtype=float)):
    """Max pooling, 3x3 windows at stride 2 with padding 1 (ResNet's stem), NCHW with the batch
    and channels folded: a thread per output element."""
    c, oy, ox = wp.tid()
    h = x.shape[1]
    w = x.shape[2]
    m = float(-3.0e38)
    for dy in range(3):
        iy = oy * 2 - 1 + dy
        if iy >= 0 and iy < h:
            for dx in range(3):
                ix = ox * 2 - 1 + dx
                if ix >= 0 and ix < w:
                    m = wp.max(m, x[c, iy, ix])
    y[c, oy, ox] = m


@wp.kernel
def batchnorm_nchw(x: wp.array3d(dtype=float), mean: wp.array(dtype=float), var: wp.array(dtype=float),
                   gamma: wp.array(dtype=float), beta: wp.array(dtype=float), eps: float,
                   y: wp.array3d(dtype=float)):
    """Batch normalisation at inference, NCHW (the spatial dimensions folded): a thread per
    element, the channel's four parameters (the same words across a warp)."""
    n, c, p = wp.tid()
    s = gamma[c] / wp.sqrt(var[c] + eps)
    y[n, c, p] = (x[n, c, p] - mean[c]) * s + beta[c]


@wp.kernel
def batchnorm_nhwc(x: wp.array2d(dtype=float), mean: wp.array(dtype=float), var: wp.array(dtype=float),
                   gamma: wp.array(dtype=float), beta: wp.array(dtype=float), eps: float,
                   y: wp.array2d(dtype=float)):
    """The same normalisation, NHWC (batch and pixels folded, channels fastest): the parameters
    differ lane to lane."""
    p, c = wp.tid()
    s = gamma[c] / wp.sqrt(var[c] + eps)
    y[p, c] = (x[p, c] - mean[c]) * s + beta[c]


@wp.kernel
def gelu_tanh(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
    """GELU, the tanh approximation, elementwise; generic: fp32 or fp64."""
    i = wp.tid()
    v = x[i]
    T = type(v)
    u = T(0.7978845608028654) * (v + T(0.044715) * v * v * v)
    y[i] = T(0.5) * v * (T(1.0) + wp.tanh(u))


@wp.kernel
def im2col3x3(img: wp.array3d(dtype=float), cols: wp.array2d(dtype=float)):
    """im2col for a 3x3 convolution with padding 1 (CHW input): row c*9 + ky*3 + kx of the
    output holds, for every pixel, the input at that offset (zero outside); a thread per output
    element."""
    r, p = wp.tid()
    h = img.shape[1]
    w = img.shape[2]
    c = r // 9
    ky = (r % 9) // 3 - 1
    kx = r % 3 - 1
    iy = p // w + ky
    ix = p % w + kx
    v = float(0.0)
    if iy >= 0 and iy < h and ix >= 0 and ix < w:
        v = img[c, iy, ix]
    cols[r, p] = v


@wp.kernel
def attn_scores_naive(q: wp.array2d(dtype=float), k: wp.array2d(dtype=float), scale: float,
                      s: wp.array2d(dtype=float)):
    """Attention scores S = Q K^T * scale: a thread per score, a dot product along the head
    dimension read from global memory (Q's row the same words across a warp, K's rows a row
    apart)."""
    i, j = wp.tid()
    acc = float(0.0)
    for d in range(q.shape[1]):
        acc += q[i, d] * k[j, d]
    s[i, j] = acc * scale


@wp.kernel
def attn_scores_tiled(q: wp.array2d(dtype=float), k: wp.array2d(dtype=float), scale: float,
                      s: wp.array2d(dtype=float)):
    """The same scores with a 16x16 block staging its 16 rows of Q and 16 rows of K (head
    dimension 64) in shared memory, K's tile padded by one word against bank conflicts."""
    qs = wp.shared.array(shape=(16, 64), dtype=float)
    ks = wp.shared.array(shape=(16, 65), dtype=float)
    i, j = wp.tid()
    ty, tx = wp.thread_idx()
    i0 = i - ty
    j0 = j - tx
    t = ty * 16 + tx
    for e in range(t, 1024, 256):
        qs[e // 64, e % 64] = q[i0 + e // 64, e % 64]
        ks[e // 64, e % 64] = k[j0 + e // 64, e % 64]
    wp.sync_threads()
    acc = float(0.0)
    for d in range(64):
        acc += qs[ty, d] * ks[tx, d]
    s[i, j] = acc * scale


@wp.kernel
def cross_entropy_warp(logits: wp.array2d(dtype=float), target: wp.array(dtype=int),
                       loss: wp.array(dtype=float), total: wp.array(dtype=float)):
    """Softmax cross-entropy loss, a warp per row: the row's maximum and then its sum of
    exponentials by strided walks and shuffle butterflies, the loss log-sum-exp minus the
    target's logit stored per row, and added by lane 0 to one total by a float atomic."""
    tid = wp.tid()
    row = tid // 32
    lane = wp.lane_id()
    n = logits.shape[1]
    m = float(-3.0e38)
    for c in range(lane, n, 32):
        m = wp.max(m, logits[row, c])
    off = int(16)
    while off > 0:
        m = wp.max(m, wp.shfl_xor_sync(FULL, m, off))
        off = off // 2
    s = float(0.0)
    for c in range(lane, n, 32):
        s += wp.exp(logits[row, c] - m)
    off = 16
    while off > 0:
        s += wp.shfl_xor_sync(FULL, s, off)
        off = off // 2
    if lane == 0:
        l = wp.log(s) + m - logits[row, target[row]]
        loss[row] = l
        wp.atomic_add(total, 0, l)


@wp.kernel
def adam_step(p: wp.array(dtype=float), g: wp.array(dtype=float), m: wp.array(dtype=float),
              v: wp.array(dtype=float), lr: float, b1: float, b2: float, eps: float, bc1: float,
              bc2: float):
    """The Adam optimiser's update, elementwise (bias corrections passed in): four arrays read,
    three written."""
    i = wp.tid()
    gi = g[i]
    mi = b1 * m[i] + (1.0 - b1) * gi
    vi = b2 * v[i] + (1.0 - b2) * gi * gi
    m[i] = mi
    v[i] = vi
    p[i] = p[i] - lr * (mi / bc1) / (wp.sqrt(vi / bc2) + eps)


@wp.kernel
def dropout_hash(x: wp.array(dtype=float), seed: wp.uint32, p: float, y: wp.array(dtype=float)):
    """Dropout with a counter-based random number per element (a hash of the index and the
    seed): kept elements scaled by 1 / (1 - p), the others zero."""
    i = wp.tid()
    h = hash32(wp.uint32(i) * wp.uint32(0x9E3779B1) ^ seed)
    out = float(0.0)
    if uniform24(h) >= p:
        out = x[i] / (1.0 - p)
    y[i] = out


@wp.kernel
def quantize_rows(x: wp.array2d(dtype=float), q: wp.array2d(dtype=wp.int8), scale: wp.array(dtype=float)):
    """Symmetric int8 quantisation per row, a warp per row: the row's largest magnitude by a
    strided walk and a shuffle butterfly, then every value times 127 / max rounded to int8."""
    tid = wp.tid()
    row = tid // 32
    lane = wp.lane_id()
    n = x.shape[1]
    a = float(0.0)
    for c in range(lane, n, 32):
        a = wp.max(a, wp.abs(x[row, c]))
    off = int(16)
    while off > 0:
        a = wp.max(a, wp.shfl_xor_sync(FULL, a, off))
        off = off // 2
    a = wp.max(a, 1.0e-12)
    inv = 127.0 / a
    for c in range(lane, n, 32):
        q[row, c] = wp.int8(int(wp.rint(x[row, c] * inv)))
    if lane == 0:
        scale[row] = a / 127.0


# ---- physics -----------------------------------------------------------------------------------


@wp.kernel
def ising_checker(spins: wp.array2d(dtype=Any), color: int, accept: wp.array(dtype=float),
                  seed: wp.uint32):
    """Ising model, one colour of a checkerboard Metropolis sweep on a periodic lattice: a
    thread per site (half of them of the other colour, idle), the four neighbours' sum, a flip
    when it lowers the energy or when a hashed uniform falls below the Boltzmann factor (a table
    by the energy change). Generic spin type: int8 or int32."""
    i, j = wp.tid()
    h = spins.shape[0]
    w = spins.shape[1]
    if (i + j) % 2 == color:
        v = spins[i, j]
        s = int(v)
        nb = int(spins[(i + h - 1) % h, j]) + int(spins[(i + 1) % h, j])
        nb = nb + int(spins[i, (j + w - 1) % w]) + int(spins[i, (j + 1) % w])
        de = s * nb
        flip = de <= 0
        if not flip:
            u = uniform24(hash32(wp.uint32(i * w + j) ^ seed))
            flip = u < accept[de // 2]
        if flip:
            spins[i, j] = type(v)(-s)


@wp.kernel
def pic_deposit(px: wp.array(dtype=float), py: wp.array(dtype=float), charge: float,
                rho: wp.array2d(dtype=float)):
    """Particle-in-cell charge deposition, cloud-in-cell weights: a thread per particle adds its
    charge to the four grid points around it (periodic) by float atomics."""
    i = wp.tid()
    h = rho.shape[0]
    w = rho.shape[1]
    x = px[i]
    y = py[i]
    ix = int(x)
    iy = int(y)
    fx = x - float(ix)
    fy = y - float(iy)
    jx = (ix + 1) % w
    jy = (iy + 1) % h
    wp.atomic_add(rho, iy, ix, charge * (1.0 - fx) * (1.0 - fy))
    wp.atomic_add(rho, iy, jx, charge * fx * (1.0 - fy))
    wp.atomic_add(rho, jy, ix, charge * (1.0 - fx) * fy)
    wp.atomic_add(rho, jy, jx, charge * fx * fy)


@wp.kernel
def sph_density(pos: wp.array(dtype=wp.vec3), cell_start: wp.array(dtype=int), cell_end: wp.array(dtype=int),
                order: wp.array(dtype=int), cells: int, h: float, mass: float, rho: wp.array(dtype=float)):
    """SPH density summation over a uniform cell list (the particles sorted by cell, cells of
    side h in a cube of ``cells``^3): a thread per particle, taken in the order ``order`` gives
    (the cell order, or shuffled), walks the 27 cells around its own and sums the poly6 kernel
    over the neighbours within h."""
    t = wp.tid()
    i = order[t]
    pi = pos[i]
    cx = int(pi[0] / h)
    cy = int(pi[1] / h)
    cz = int(pi[2] / h)
    h2 = h * h
    acc = float(0.0)
    for dz in range(-1, 2):
        z = cz + dz
        if z >= 0 and z < cells:
            for dy in range(-1, 2):
                y = cy + dy
                if y >= 0 and y < cells:
                    for dx in range(-1, 2):
                        x = cx + dx
                        if x >= 0 and x < cells:
                            c = (z * cells + y) * cells + x
                            for k in range(cell_start[c], cell_end[c]):
                                r2 = wp.length_sq(pos[k] - pi)
                                if r2 < h2:
                                    d = h2 - r2
                                    acc += d * d * d
    rho[i] = mass * 1.5666814710608448 / (h2 * h2 * h2 * h2 * h) * acc


# ---- graphs ------------------------------------------------------------------------------------


@wp.kernel
def pagerank_pull(in_ptr: wp.array(dtype=int), in_src: wp.array(dtype=int), contrib: wp.array(dtype=float),
                  damping: float, rank: wp.array(dtype=float)):
    """PageRank, one pull iteration over the in-edges (CSR): a thread per vertex sums its
    in-neighbours' contributions (rank / out-degree, precomputed), no atomics."""
    v = wp.tid()
    s = float(0.0)
    for e in range(in_ptr[v], in_ptr[v + 1]):
        s += contrib[in_src[e]]
    rank[v] = (1.0 - damping) / float(rank.shape[0]) + damping * s


@wp.kernel
def pagerank_push(out_ptr: wp.array(dtype=int), out_dst: wp.array(dtype=int), rank: wp.array(dtype=float),
                  damping: float, acc: wp.array(dtype=float)):
    """PageRank, one push iteration over the out-edges: a thread per vertex adds its damped
    rank / out-degree to each out-neighbour's sum by float atomics (the base term already in
    ``acc``)."""
    v = wp.tid()
    b = out_ptr[v]
    e1 = out_ptr[v + 1]
    if e1 > b:
        c = damping * rank[v] / float(e1 - b)
        for e in range(b, e1):
            wp.atomic_add(acc, out_dst[e], c)


# ---- checksums ---------------------------------------------------------------------------------


@wp.kernel
def crc32_global(msg: wp.array2d(dtype=wp.uint8), table: wp.array(dtype=wp.uint32), crc: wp.array(dtype=wp.uint32)):
    """CRC-32 (the reflected 0xEDB88320 polynomial) of fixed-length messages, a byte at a time
    through the 256-entry table in global memory; a thread per message (lanes a message apart)."""
    i = wp.tid()
    c = wp.uint32(0xFFFFFFFF)
    for k in range(msg.shape[1]):
        b = wp.uint32(msg[i, k])
        c = table[int((c ^ b) & wp.uint32(255))] ^ (c >> wp.uint32(8))
    crc[i] = c ^ wp.uint32(0xFFFFFFFF)


@wp.kernel
def crc32_shared(msg: wp.array2d(dtype=wp.uint8), table: wp.array(dtype=wp.uint32), crc: wp.array(dtype=wp.uint32)):
    """The same CRC-32 with the table staged in shared memory by each block of 256."""
    tab = wp.shared.array(shape=(256,), dtype=wp.uint32)
    tab[wp.thread_idx()] = table[wp.thread_idx()]
    wp.sync_threads()
    i = wp.tid()
    c = wp.uint32(0xFFFFFFFF)
    for k in range(msg.shape[1]):
        b = wp.uint32(msg[i, k])
        c = tab[int((c ^ b) & wp.uint32(255))] ^ (c >> wp.uint32(8))
    crc[i] = c ^ wp.uint32(0xFFFFFFFF)


# ---- geometry ----------------------------------------------------------------------------------


@wp.kernel
def point_in_polygon(px: wp.array(dtype=float), py: wp.array(dtype=float), vx: wp.array(dtype=float),
                     vy: wp.array(dtype=float), inside: wp.array(dtype=int)):
    """Point in polygon by the even-odd crossing rule (as in spatial joins): a thread per point
    walks the polygon's edges (every lane the same words), a test and a division for each edge
    its horizontal ray meets."""
    i = wp.tid()
    x = px[i]
    y = py[i]
    m = vx.shape[0]
    c = int(0)
    j = m - 1
    for k in range(m):
        yk = vy[k]
        yj = vy[j]
        if (yk > y) != (yj > y):
            xc = vx[k] + (y - yk) * (vx[j] - vx[k]) / (yj - yk)
            if x < xc:
                c = 1 - c
        j = k
    inside[i] = c


@wp.kernel
def ray_spheres(spheres: wp.array(dtype=wp.vec4), out: wp.array2d(dtype=float)):
    """Ray casting against a list of spheres (x, y, z, radius): a thread per pixel shoots a ray
    from the origin through the image plane at z = 1, finds the nearest hit over every sphere
    (every lane the same words) and stores its Lambert shade (a light along the view), 0 on a
    miss."""
    y, x = wp.tid()
    hh = float(out.shape[0])
    ww = float(out.shape[1])
    d = wp.normalize(wp.vec3((float(x) + 0.5) / ww * 2.0 - 1.0, (float(y) + 0.5) / hh * 2.0 - 1.0, 1.0))
    best = float(1.0e30)
    shade = float(0.0)
    for s in range(spheres.shape[0]):
        sp = spheres[s]
        c = wp.vec3(sp[0], sp[1], sp[2])
        b = wp.dot(d, c)
        disc = b * b - wp.dot(c, c) + sp[3] * sp[3]
        if disc > 0.0:
            t = b - wp.sqrt(disc)
            if t > 0.0 and t < best:
                best = t
                n = (d * t - c) / sp[3]
                shade = wp.max(-wp.dot(n, d), 0.0)
    out[y, x] = shade
