"""Kernels of the blind validation set, written in simt from the algorithms of three public GPU
suites (PolyBench/GPU, Rodinia, SHOC). Each is written from the algorithm's description, as a
user of simt would write it; none is a translation of a suite's source. Where a suite has a
single- and a double-precision variant, the kernel is generic (``typing.Any``) and each
launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x); with ``block_dim=(BH, BW)``, ``ty, tx = wp.thread_idx()``.
Launch shapes and inputs are in ``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

# ---- PolyBench/GPU: linear algebra ------------------------------------------------------------


@wp.kernel
def gemm_naive(a: wp.array2d(dtype=Any), b: wp.array2d(dtype=Any), c: wp.array2d(dtype=Any),
               alpha: float, beta: float):
    """gemm: C = alpha A B + beta C, one thread per element of C, the k loop in global memory."""
    i, j = wp.tid()
    x = c[i, j]
    T = type(x)
    acc = T(0.0)
    for k in range(a.shape[1]):
        acc += a[i, k] * b[k, j]
    c[i, j] = T(alpha) * acc + T(beta) * x


@wp.kernel
def gemm_tiled(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float),
               alpha: float, beta: float):
    """gemm with 32x32 shared tiles; a block of (8, 32) threads, four rows of C per thread.
    The matrix sizes are multiples of 32."""
    a_s = wp.shared.array(shape=(32, 32), dtype=float)
    b_s = wp.shared.array(shape=(32, 32), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    row0 = by * 32
    col = bx * 32 + tx
    acc0 = float(0.0)
    acc1 = float(0.0)
    acc2 = float(0.0)
    acc3 = float(0.0)
    for k0 in range(0, a.shape[1], 32):
        for r in range(0, 32, 8):
            a_s[ty + r, tx] = a[row0 + ty + r, k0 + tx]
            b_s[ty + r, tx] = b[k0 + ty + r, col]
        wp.sync_threads()
        for kk in range(32):
            bv = b_s[kk, tx]
            acc0 += a_s[ty, kk] * bv
            acc1 += a_s[ty + 8, kk] * bv
            acc2 += a_s[ty + 16, kk] * bv
            acc3 += a_s[ty + 24, kk] * bv
        wp.sync_threads()
    c[row0 + ty, col] = alpha * acc0 + beta * c[row0 + ty, col]
    c[row0 + ty + 8, col] = alpha * acc1 + beta * c[row0 + ty + 8, col]
    c[row0 + ty + 16, col] = alpha * acc2 + beta * c[row0 + ty + 16, col]
    c[row0 + ty + 24, col] = alpha * acc3 + beta * c[row0 + ty + 24, col]


@wp.kernel
def atax_rows(a: wp.array2d(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """atax's first step, y = A x: one thread per row walks its row (lanes a row apart)."""
    i = wp.tid()
    acc = float(0.0)
    for j in range(a.shape[1]):
        acc += a[i, j] * x[j]
    y[i] = acc


@wp.kernel
def bicg_cols(a: wp.array2d(dtype=float), r: wp.array(dtype=float), s: wp.array(dtype=float)):
    """bicg's s = A^T r: one thread per column walks down it (lanes on adjacent words)."""
    j = wp.tid()
    acc = float(0.0)
    for i in range(a.shape[0]):
        acc += r[i] * a[i, j]
    s[j] = acc


@wp.kernel
def gemv_tiled(a: wp.array2d(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """y = A x with 32x32 tiles of A staged through shared memory: loaded along rows, then
    read along columns (lane l reads row l of the tile: 32 lanes on one bank)."""
    tile = wp.shared.array(shape=(32, 32), dtype=float)
    part = wp.shared.array(shape=(8, 32), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    row0 = bx * 32
    acc = float(0.0)
    for c0 in range(0, a.shape[1], 32):
        for r in range(0, 32, 8):
            tile[ty + r, tx] = a[row0 + ty + r, c0 + tx]
        wp.sync_threads()
        for kk in range(4):
            k = ty * 4 + kk
            acc += tile[tx, k] * x[c0 + k]
        wp.sync_threads()
    part[ty, tx] = acc
    wp.sync_threads()
    if ty == 0:
        total = float(0.0)
        for w in range(8):
            total += part[w, tx]
        y[row0 + tx] = total


@wp.kernel
def gemv_tiled_padded(a: wp.array2d(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """gemv_tiled with the tile padded to 32x33: the column reads spread over all banks."""
    tile = wp.shared.array(shape=(32, 33), dtype=float)
    part = wp.shared.array(shape=(8, 32), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    row0 = bx * 32
    acc = float(0.0)
    for c0 in range(0, a.shape[1], 32):
        for r in range(0, 32, 8):
            tile[ty + r, tx] = a[row0 + ty + r, c0 + tx]
        wp.sync_threads()
        for kk in range(4):
            k = ty * 4 + kk
            acc += tile[tx, k] * x[c0 + k]
        wp.sync_threads()
    part[ty, tx] = acc
    wp.sync_threads()
    if ty == 0:
        total = float(0.0)
        for w in range(8):
            total += part[w, tx]
        y[row0 + tx] = total


@wp.kernel
def mvt(a: wp.array2d(dtype=float), y1: wp.array(dtype=float), y2: wp.array(dtype=float),
        x1: wp.array(dtype=float), x2: wp.array(dtype=float)):
    """mvt, both products in one pass: x1 += A y1 (a row walk) and x2 += A^T y2 (a column walk)."""
    i = wp.tid()
    s1 = x1[i]
    s2 = x2[i]
    for j in range(a.shape[1]):
        s1 += a[i, j] * y1[j]
        s2 += a[j, i] * y2[j]
    x1[i] = s1
    x2[i] = s2


@wp.kernel
def gesummv(a: wp.array2d(dtype=Any), b: wp.array2d(dtype=Any), x: wp.array(dtype=Any),
            y: wp.array(dtype=Any), alpha: float, beta: float):
    """gesummv: y = alpha A x + beta B x, one thread per row."""
    i = wp.tid()
    T = type(x[0])
    sa = T(0.0)
    sb = T(0.0)
    for j in range(a.shape[1]):
        xj = x[j]
        sa += a[i, j] * xj
        sb += b[i, j] * xj
    y[i] = T(alpha) * sa + T(beta) * sb


@wp.kernel
def syrk(a: wp.array2d(dtype=float), c: wp.array2d(dtype=float), alpha: float, beta: float):
    """syrk: C = alpha A A^T + beta C, one thread per element of C."""
    i, j = wp.tid()
    acc = float(0.0)
    for k in range(a.shape[1]):
        acc += a[i, k] * a[j, k]
    c[i, j] = alpha * acc + beta * c[i, j]


@wp.kernel
def corr_mean_std(data: wp.array2d(dtype=float), mean: wp.array(dtype=float), std: wp.array(dtype=float)):
    """correlation's first kernels: the mean and standard deviation of each column (one thread
    per column, two passes down it)."""
    j = wp.tid()
    n = data.shape[0]
    s = float(0.0)
    for i in range(n):
        s += data[i, j]
    m = s / float(n)
    v = float(0.0)
    for i in range(n):
        d = data[i, j] - m
        v += d * d
    sd = wp.sqrt(v / float(n))
    if sd <= 0.005:
        sd = 1.0
    mean[j] = m
    std[j] = sd


# ---- PolyBench/GPU: stencils ------------------------------------------------------------------


@wp.kernel
def jacobi2d(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    """One Jacobi sweep: the five-point average of the interior."""
    i, j = wp.tid()
    n = a.shape[0]
    m = a.shape[1]
    if i >= 1 and i < n - 1 and j >= 1 and j < m - 1:
        b[i, j] = 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i - 1, j] + a[i + 1, j])


@wp.kernel
def fdtd_hz(ex: wp.array2d(dtype=float), ey: wp.array2d(dtype=float), hz: wp.array2d(dtype=float)):
    """fdtd-2d's magnetic-field update from the two electric fields."""
    i, j = wp.tid()
    if i < hz.shape[0] - 1 and j < hz.shape[1] - 1:
        hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])


@wp.kernel
def conv2d(img: wp.array2d(dtype=float), w: wp.array2d(dtype=float), out: wp.array2d(dtype=float),
           radius: int):
    """2-D convolution with a (2r+1)^2 filter read from global memory, interior pixels only."""
    i, j = wp.tid()
    h = img.shape[0]
    wd = img.shape[1]
    if i < radius or j < radius or i >= h - radius or j >= wd - radius:
        return
    acc = float(0.0)
    for di in range(-radius, radius + 1):
        for dj in range(-radius, radius + 1):
            acc += w[di + radius, dj + radius] * img[i + di, j + dj]
    out[i, j] = acc


@wp.kernel
def conv3d(v: wp.array3d(dtype=float), w: wp.array3d(dtype=float), out: wp.array3d(dtype=float)):
    """3-D convolution with a 3x3x3 filter, interior voxels only."""
    i, j, k = wp.tid()
    if i < 1 or j < 1 or k < 1 or i >= v.shape[0] - 1 or j >= v.shape[1] - 1 or k >= v.shape[2] - 1:
        return
    acc = float(0.0)
    for a in range(3):
        for b in range(3):
            for c in range(3):
                acc += w[a, b, c] * v[i + a - 1, j + b - 1, k + c - 1]
    out[i, j, k] = acc


# ---- Rodinia -----------------------------------------------------------------------------------


@wp.kernel
def hotspot(temp: wp.array2d(dtype=float), power: wp.array2d(dtype=float), out: wp.array2d(dtype=float),
            cap_inv: float, rx_inv: float, ry_inv: float, rz_inv: float, amb: float):
    """One step of hotspot's thermal simulation: each cell's temperature moves by its power,
    its four neighbours' differences (edges clamped) and the ambient temperature."""
    i, j = wp.tid()
    h = temp.shape[0]
    w = temp.shape[1]
    t = temp[i, j]
    n = temp[wp.max(i - 1, 0), j]
    s = temp[wp.min(i + 1, h - 1), j]
    west = temp[i, wp.max(j - 1, 0)]
    east = temp[i, wp.min(j + 1, w - 1)]
    delta = cap_inv * (power[i, j] + (n + s - 2.0 * t) * ry_inv + (east + west - 2.0 * t) * rx_inv
                       + (amb - t) * rz_inv)
    out[i, j] = t + delta


@wp.kernel
def srad_coeff(img: wp.array2d(dtype=float), q0sqr: float,
               dn: wp.array2d(dtype=float), ds: wp.array2d(dtype=float), dw: wp.array2d(dtype=float),
               de: wp.array2d(dtype=float), coeff: wp.array2d(dtype=float)):
    """SRAD's first kernel: directional derivatives and the diffusion coefficient of each pixel."""
    i, j = wp.tid()
    h = img.shape[0]
    w = img.shape[1]
    jc = img[i, j]
    n = img[wp.max(i - 1, 0), j] - jc
    s = img[wp.min(i + 1, h - 1), j] - jc
    west = img[i, wp.max(j - 1, 0)] - jc
    e = img[i, wp.min(j + 1, w - 1)] - jc
    g2 = (n * n + s * s + west * west + e * e) / (jc * jc)
    lap = (n + s + west + e) / jc
    num = 0.5 * g2 - (1.0 / 16.0) * lap * lap
    den = 1.0 + 0.25 * lap
    qsqr = num / (den * den)
    den = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr))
    c = 1.0 / (1.0 + den)
    dn[i, j] = n
    ds[i, j] = s
    dw[i, j] = west
    de[i, j] = e
    coeff[i, j] = wp.clamp(c, 0.0, 1.0)


@wp.kernel
def layer_forward_thread(w: wp.array2d(dtype=float), x: wp.array(dtype=float), out: wp.array(dtype=float)):
    """A fully connected layer with a sigmoid, one thread per output unit (its weight row)."""
    j = wp.tid()
    acc = float(0.0)
    for i in range(w.shape[1]):
        acc += w[j, i] * x[i]
    out[j] = 1.0 / (1.0 + wp.exp(-acc))


@wp.kernel
def layer_forward_block(w: wp.array2d(dtype=float), x: wp.array(dtype=float), out: wp.array(dtype=float)):
    """The same layer with one block of 256 threads per output unit: strided partial sums,
    then a tree in shared memory."""
    part = wp.shared.array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    j = wp.block_idx()
    acc = float(0.0)
    for i in range(t, w.shape[1], 256):
        acc += w[j, i] * x[i]
    part[t] = acc
    wp.sync_threads()
    s = int(128)
    while s > 0:
        if t < s:
            part[t] = part[t] + part[t + s]
        wp.sync_threads()
        s = s // 2
    if t == 0:
        out[j] = 1.0 / (1.0 + wp.exp(-part[0]))


@wp.kernel
def kmeans_assign_points(features: wp.array2d(dtype=float), centroids: wp.array2d(dtype=float),
                         membership: wp.array(dtype=int)):
    """k-means assignment, features stored point-major (n, f): the nearest centroid per point."""
    p = wp.tid()
    best = float(3.0e38)
    best_c = int(0)
    for c in range(centroids.shape[0]):
        d = float(0.0)
        for q in range(features.shape[1]):
            diff = features[p, q] - centroids[c, q]
            d += diff * diff
        if d < best:
            best = d
            best_c = c
    membership[p] = best_c


@wp.kernel
def kmeans_assign_features(features: wp.array2d(dtype=float), centroids: wp.array2d(dtype=float),
                           membership: wp.array(dtype=int)):
    """The same with features stored feature-major (f, n), so a warp's loads are adjacent."""
    p = wp.tid()
    best = float(3.0e38)
    best_c = int(0)
    for c in range(centroids.shape[0]):
        d = float(0.0)
        for q in range(features.shape[0]):
            diff = features[q, p] - centroids[c, q]
            d += diff * diff
        if d < best:
            best = d
            best_c = c
    membership[p] = best_c


@wp.kernel
def nn_distance(records: wp.array(dtype=wp.vec2), lat: float, lng: float, dist: wp.array(dtype=float)):
    """Nearest neighbour's first step: each record's distance to the query point."""
    i = wp.tid()
    r = records[i]
    dx = r[0] - lat
    dy = r[1] - lng
    dist[i] = wp.sqrt(dx * dx + dy * dy)


@wp.kernel
def pathfinder(wall: wp.array2d(dtype=int), src: wp.array(dtype=int), dst: wp.array(dtype=int),
               start_row: int, steps: int):
    """Pathfinder's dynamic programming, ``steps`` rows per launch: a block of 256 threads keeps
    its row in shared memory and finishes the 256 - 2 steps columns whose inputs it holds
    (a pyramid: blocks overlap by ``steps`` columns each side)."""
    prev = wp.shared.array(shape=(256,), dtype=int)
    cur = wp.shared.array(shape=(256,), dtype=int)
    t = wp.thread_idx()
    cols = src.shape[0]
    col = wp.block_idx() * (256 - 2 * steps) - steps + t
    inside = col >= 0 and col < cols
    if inside:
        prev[t] = src[col]
    wp.sync_threads()
    for r in range(steps):
        done = False
        if inside and t > r and t < 255 - r:
            up = prev[t]
            left = up
            right = up
            if col > 0:
                left = prev[t - 1]
            if col < cols - 1:
                right = prev[t + 1]
            cur[t] = wp.min(wp.min(left, up), right) + wall[start_row + r, col]
            done = True
        wp.sync_threads()
        if done:
            prev[t] = cur[t]
        wp.sync_threads()
    if inside and t >= steps and t < 256 - steps:
        dst[col] = prev[t]


@wp.kernel
def nw_diagonal(score: wp.array2d(dtype=int), ref: wp.array2d(dtype=int), diag: int, penalty: int):
    """Needleman-Wunsch, one anti-diagonal of 16x16 tiles per launch (Rodinia's nw): a block of
    16 threads per tile copies the tile's upper and left borders and its similarity scores into
    shared memory, sweeps the tile's 31 inner anti-diagonals with a barrier after each, and
    writes the tile back. ``score`` is (n + 1) x (n + 1), ``ref`` n x n."""
    s = wp.shared.array(shape=(17, 17), dtype=int)
    r = wp.shared.array(shape=(16, 16), dtype=int)
    tx = wp.thread_idx()
    tiles = ref.shape[0] // 16
    br = wp.block_idx() + wp.max(0, diag - (tiles - 1))
    bc = diag - br
    i0 = br * 16 + 1
    j0 = bc * 16 + 1
    if tx == 0:
        s[0, 0] = score[i0 - 1, j0 - 1]
    s[0, tx + 1] = score[i0 - 1, j0 + tx]
    s[tx + 1, 0] = score[i0 + tx, j0 - 1]
    for k in range(16):
        r[k, tx] = ref[i0 - 1 + k, j0 - 1 + tx]
    wp.sync_threads()
    for m in range(31):
        y = m - tx
        if y >= 0 and y < 16:
            best = s[tx, y] + r[tx, y]
            best = wp.max(best, s[tx, y + 1] - penalty)
            best = wp.max(best, s[tx + 1, y] - penalty)
            s[tx + 1, y + 1] = best
        wp.sync_threads()
    for k in range(16):
        score[i0 + k, j0 + tx] = s[k + 1, tx + 1]


# ---- SHOC --------------------------------------------------------------------------------------


@wp.kernel
def reduce_sum(x: wp.array(dtype=float), n: int, partial: wp.array(dtype=float)):
    """SHOC's reduction: each thread sums a grid-stride slice, the block a tree in shared memory
    down to one warp, the warp by shuffles; one partial sum per block."""
    s = wp.shared.array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    stride = wp.grid_dim() * 256
    acc = float(0.0)
    for i in range(wp.tid(), n, stride):
        acc += x[i]
    s[t] = acc
    wp.sync_threads()
    h = int(128)
    while h >= 32:
        if t < h:
            s[t] = s[t] + s[t + h]
        wp.sync_threads()
        h = h // 2
    if t < 32:
        v = s[t]
        off = int(16)
        while off > 0:
            v += wp.shfl_down_sync(0xFFFFFFFF, v, off)
            off = off // 2
        if t == 0:
            partial[wp.block_idx()] = v


@wp.kernel
def scan_block(x: wp.array(dtype=float), out: wp.array(dtype=float), block_sums: wp.array(dtype=float)):
    """SHOC's scan, its block step: an inclusive scan of 256 elements per block (shuffles in each
    warp, the eight warp totals scanned by the first warp) and the block's total."""
    totals = wp.shared.array(shape=(8,), dtype=float)
    i = wp.tid()
    t = wp.thread_idx()
    lane = t % 32
    warp = t // 32
    v = x[i]
    d = int(1)
    while d < 32:
        u = wp.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += u
        d = d * 2
    if lane == 31:
        totals[warp] = v
    wp.sync_threads()
    if warp == 0:
        w = float(0.0)
        if lane < 8:
            w = totals[lane]
        d = 1
        while d < 8:
            u = wp.shfl_up_sync(0xFFFFFFFF, w, d)
            if lane >= d:
                w += u
            d = d * 2
        if lane < 8:
            totals[lane] = w
    wp.sync_threads()
    if warp > 0:
        v += totals[warp - 1]
    out[i] = v
    if t == 255:
        block_sums[wp.block_idx()] = v


@wp.kernel
def stencil9(a: wp.array2d(dtype=Any), weights: wp.array(dtype=Any), b: wp.array2d(dtype=Any)):
    """SHOC's Stencil2D: a nine-point stencil (centre, edge and corner weights), interior only."""
    i, j = wp.tid()
    if i < 1 or j < 1 or i >= a.shape[0] - 1 or j >= a.shape[1] - 1:
        return
    centre = a[i, j]
    edges = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]
    corners = a[i - 1, j - 1] + a[i - 1, j + 1] + a[i + 1, j - 1] + a[i + 1, j + 1]
    b[i, j] = weights[0] * centre + weights[1] * edges + weights[2] * corners


@wp.kernel
def md_lj(pos: wp.array(dtype=wp.vec3), neighbors: wp.array2d(dtype=int), force: wp.array(dtype=wp.vec3),
          cutsq: float, lj1: float, lj2: float):
    """SHOC's MD: Lennard-Jones forces over a neighbour list stored neighbour-major
    (neighbors[k, i]: atom i's k-th neighbour), so each step gathers positions."""
    i = wp.tid()
    p = pos[i]
    f = wp.vec3(0.0, 0.0, 0.0)
    for k in range(neighbors.shape[0]):
        d = p - pos[neighbors[k, i]]
        r2 = wp.dot(d, d)
        if r2 < cutsq:
            r2inv = 1.0 / r2
            r6inv = r2inv * r2inv * r2inv
            f = f + d * (r2inv * r6inv * (lj1 * r6inv - lj2))
    force[i] = f


@wp.kernel
def spmv_csr_scalar(row_ptr: wp.array(dtype=int), cols: wp.array(dtype=int), vals: wp.array(dtype=float),
                    x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """CSR sparse matrix times vector, one thread per row."""
    r = wp.tid()
    acc = float(0.0)
    for k in range(row_ptr[r], row_ptr[r + 1]):
        acc += vals[k] * x[cols[k]]
    y[r] = acc


@wp.kernel
def spmv_csr_vector(row_ptr: wp.array(dtype=int), cols: wp.array(dtype=int), vals: wp.array(dtype=float),
                    x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """CSR sparse matrix times vector, one warp per row: strided partial sums, then shuffles."""
    g = wp.tid()
    r = g // 32
    lane = g % 32
    acc = float(0.0)
    for k in range(row_ptr[r] + lane, row_ptr[r + 1], 32):
        acc += vals[k] * x[cols[k]]
    off = int(16)
    while off > 0:
        acc += wp.shfl_down_sync(0xFFFFFFFF, acc, off)
        off = off // 2
    if lane == 0:
        y[r] = acc


@wp.kernel
def triad(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float), s: float):
    """SHOC's Triad: a = b + s c."""
    i = wp.tid()
    a[i] = b[i] + s * c[i]


@wp.kernel
def bitonic_step(keys: wp.array(dtype=float), j: int, k: int):
    """One compare-exchange step of a bitonic sort (SHOC's Sort benchmarks a radix sort; this is
    the merge network GPU sorts are also built from): pairs j apart, direction by bit k."""
    i = wp.tid()
    partner = i ^ j
    if partner > i:
        a = keys[i]
        b = keys[partner]
        ascending = (i & k) == 0
        if (ascending and a > b) or (not ascending and a < b):
            keys[i] = b
            keys[partner] = a


@wp.kernel
def histogram256_global(values: wp.array(dtype=int), n: int, bins: wp.array(dtype=int)):
    """A 256-bin histogram, every count an atomic add in global memory (grid-stride)."""
    stride = wp.grid_dim() * wp.block_dim()
    for i in range(wp.tid(), n, stride):
        wp.atomic_add(bins, values[i], 1)


@wp.kernel
def histogram256_shared(values: wp.array(dtype=int), n: int, bins: wp.array(dtype=int)):
    """The same histogram privatised per block in shared memory, merged once per block."""
    local = wp.shared.array(shape=(256,), dtype=int)
    t = wp.thread_idx()
    local[t] = 0
    wp.sync_threads()
    stride = wp.grid_dim() * 256
    for i in range(wp.tid(), n, stride):
        wp.atomic_add(local, values[i], 1)
    wp.sync_threads()
    c = local[t]
    if c > 0:
        wp.atomic_add(bins, t, c)
