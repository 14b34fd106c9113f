"""Kernels of the sixth blind validation set, written in simt from the algorithms of public GPU
suites and well-known GPU workloads (PolyBench, the CUDA samples, Rodinia, sparse linear
algebra, ML operators, databases, text compression and search, graphics, cellular automata).
Each is written from the algorithm's description, as a user of simt would write it; none is a
translation of a suite's source, and none repeats an algorithm of the earlier blind sets
(../blind/kernels.py to ../blind5/kernels.py) or of the held-out set (../kernels.py,
../cases.py). Where a kernel has variants of element type it is generic (``typing.Any``) and
each launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x); with ``block_dim=(BH, BW)``, ``ty, tx = wp.thread_idx()``.
Launch shapes and inputs are in ``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = wp.uint32(0xFFFFFFFF)


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


# ---- sparse and segmented ----------------------------------------------------------------------


@wp.kernel
def segreduce_warp(keys: wp.array(dtype=int), vals: wp.array(dtype=float), out: wp.array(dtype=float)):
    """Segmented reduction by key (keys sorted, as after a sort by key): a segmented inclusive
    scan across the warp by shuffles up (a partial is taken only from a lane of the same key),
    then the last lane of each run in the warp adds its run's sum to the key's total by a float
    atomic."""
    i = wp.tid()
    lane = wp.lane_id()
    k = keys[i]
    v = vals[i]
    off = int(1)
    while off < 32:
        ov = wp.shfl_up_sync(FULL, v, off)
        ok = wp.shfl_up_sync(FULL, k, off)
        if lane >= off and ok == k:
            v += ov
        off = off * 2
    nk = wp.shfl_down_sync(FULL, k, 1)
    if lane == 31 or nk != k:
        wp.atomic_add(out, k, v)


@wp.kernel
def csr_transpose_scatter(rows: wp.array(dtype=int), cols: wp.array(dtype=int), vals: wp.array(dtype=float),
                          cursor: wp.array(dtype=int), t_rows: wp.array(dtype=int), t_vals: wp.array(dtype=float)):
    """Sparse transpose (COO or CSR to CSC), the scatter: a thread per nonzero takes the next slot
    of its column by an integer atomic on the column's cursor (the column pointers, from a count
    and a scan done before) and writes its row and value there."""
    e = wp.tid()
    slot = wp.atomic_add(cursor, cols[e], 1)
    t_rows[slot] = rows[e]
    t_vals[slot] = vals[e]


@wp.kernel
def spmm_csr(ptr: wp.array(dtype=int), col: wp.array(dtype=int), val: wp.array(dtype=float),
             b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    """SpMM, a CSR matrix times a dense one (as in graph neural networks' aggregation): a thread
    per output element (row i, column j); the row's nonzeros are the same words for the lanes
    of a row, the dense rows read along j."""
    i, j = wp.tid()
    acc = float(0.0)
    for e in range(ptr[i], ptr[i + 1]):
        acc += val[e] * b[col[e], j]
    c[i, j] = acc


# ---- search and neighbours ---------------------------------------------------------------------


@wp.kernel
def knn4_brute(qx: wp.array(dtype=float), qy: wp.array(dtype=float), rx: wp.array(dtype=float),
               ry: wp.array(dtype=float), dist: wp.array2d(dtype=float), idx: wp.array2d(dtype=int)):
    """k-nearest neighbours by brute force (k = 4, in 2-D): a thread per query walks every
    reference point (the same words across the warp) and keeps its four best in registers by
    an insertion that runs only when a point beats the fourth."""
    q = wp.tid()
    x = qx[q]
    y = qy[q]
    d0 = float(3.0e38)
    d1 = float(3.0e38)
    d2 = float(3.0e38)
    d3 = float(3.0e38)
    i0 = int(-1)
    i1 = int(-1)
    i2 = int(-1)
    i3 = int(-1)
    for r in range(rx.shape[0]):
        dx = rx[r] - x
        dy = ry[r] - y
        d = dx * dx + dy * dy
        if d < d3:
            if d < d2:
                d3 = d2
                i3 = i2
                if d < d1:
                    d2 = d1
                    i2 = i1
                    if d < d0:
                        d1 = d0
                        i1 = i0
                        d0 = d
                        i0 = r
                    else:
                        d1 = d
                        i1 = r
                else:
                    d2 = d
                    i2 = r
            else:
                d3 = d
                i3 = r
    dist[q, 0] = d0
    dist[q, 1] = d1
    dist[q, 2] = d2
    dist[q, 3] = d3
    idx[q, 0] = i0
    idx[q, 1] = i1
    idx[q, 2] = i2
    idx[q, 3] = i3


@wp.kernel
def merge_path(a: wp.array(dtype=float), b: wp.array(dtype=float), per: int, out: wp.array(dtype=float)):
    """Merge of two sorted arrays by merge path (as in GPU merge sorts): a thread per ``per``
    outputs finds where its diagonal crosses the path by a binary search, then merges its
    ``per`` outputs sequentially (ties taken from ``a`` first)."""
    t = wp.tid()
    na = a.shape[0]
    nb = b.shape[0]
    diag = t * per
    lo = wp.max(0, diag - nb)
    hi = wp.min(diag, na)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] <= b[diag - 1 - mid]:
            lo = mid + 1
        else:
            hi = mid
    i = lo
    j = diag - lo
    for k in range(per):
        take_a = j >= nb
        if i < na and not take_a:
            take_a = a[i] <= b[j]
        if take_a:
            out[diag + k] = a[i]
            i += 1
        else:
            out[diag + k] = b[j]
            j += 1


# ---- ML operators ------------------------------------------------------------------------------


@wp.kernel
def mish(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
    """Mish activation, x tanh(softplus(x)), elementwise; softplus is x itself above 20.
    Generic: fp32 or fp64."""
    i = wp.tid()
    v = x[i]
    T = type(v)
    sp = v
    if v < T(20.0):
        sp = wp.log(T(1.0) + wp.exp(v))
    y[i] = v * wp.tanh(sp)


@wp.kernel
def layernorm_bwd_warp(dy: wp.array2d(dtype=float), x: wp.array2d(dtype=float), mean: wp.array(dtype=float),
                       rstd: wp.array(dtype=float), gamma: wp.array(dtype=float), dx: wp.array2d(dtype=float)):
    """Layer normalisation backward, the input gradient, a warp per row: the sums of g = dy gamma
    and of g xhat by strided walks and shuffle butterflies, then dx = rstd (g - mean(g) -
    xhat mean(g xhat)) (the row read twice)."""
    tid = wp.tid()
    row = tid // 32
    lane = wp.lane_id()
    n = x.shape[1]
    mu = mean[row]
    rs = rstd[row]
    a = float(0.0)
    b = float(0.0)
    for c in range(lane, n, 32):
        g = dy[row, c] * gamma[c]
        a += g
        b += g * (x[row, c] - mu) * rs
    off = int(16)
    while off > 0:
        a += wp.shfl_xor_sync(FULL, a, off)
        b += wp.shfl_xor_sync(FULL, b, off)
        off = off // 2
    a = a / float(n)
    b = b / float(n)
    for c in range(lane, n, 32):
        g = dy[row, c] * gamma[c]
        xh = (x[row, c] - mu) * rs
        dx[row, c] = rs * (g - a - xh * b)


@wp.kernel
def rmsnorm_block(x: wp.array2d(dtype=float), w: wp.array(dtype=float), eps: float, y: wp.array2d(dtype=float)):
    """RMSNorm, a block of 1024 threads per row: strided sums of squares, a shuffle butterfly per
    warp, the 32 warps' partials through shared memory (every thread adds them up), then the
    row scaled by rsqrt(mean square + eps) and the weights."""
    part = wp.shared.array(shape=(32,), dtype=float)
    row = wp.block_idx()
    t = wp.thread_idx()
    lane = wp.lane_id()
    n = x.shape[1]
    s = float(0.0)
    for c in range(t, n, 1024):
        v = x[row, c]
        s += v * v
    off = int(16)
    while off > 0:
        s += wp.shfl_xor_sync(FULL, s, off)
        off = off // 2
    if lane == 0:
        part[t // 32] = s
    wp.sync_threads()
    tot = float(0.0)
    for k in range(32):
        tot += part[k]
    r = 1.0 / wp.sqrt(tot / float(n) + eps)
    for c in range(t, n, 1024):
        y[row, c] = x[row, c] * r * w[c]


@wp.kernel
def rope_sincos(x: wp.array3d(dtype=float), log_base: float, y: wp.array3d(dtype=float)):
    """Rotary position embedding (tokens x heads x head dimension, pairs interleaved): a thread
    per pair computes its angle position * base^(-2p/d) and rotates the pair by its sine and
    cosine."""
    t, h, p = wp.tid()
    d = x.shape[2]
    theta = float(t) * wp.exp(-float(2 * p) / float(d) * log_base)
    c = wp.cos(theta)
    s = wp.sin(theta)
    a = x[t, h, 2 * p]
    b = x[t, h, 2 * p + 1]
    y[t, h, 2 * p] = a * c - b * s
    y[t, h, 2 * p + 1] = a * s + b * c


@wp.kernel
def rope_table(x: wp.array3d(dtype=float), cos_t: wp.array2d(dtype=float), sin_t: wp.array2d(dtype=float),
               y: wp.array3d(dtype=float)):
    """The same rotation with the sines and cosines read from tables (tokens x pairs), shared by
    every head."""
    t, h, p = wp.tid()
    c = cos_t[t, p]
    s = sin_t[t, p]
    a = x[t, h, 2 * p]
    b = x[t, h, 2 * p + 1]
    y[t, h, 2 * p] = a * c - b * s
    y[t, h, 2 * p + 1] = a * s + b * c


@wp.kernel
def top_p_cut(probs: wp.array2d(dtype=float), p: float, cut: wp.array(dtype=int)):
    """Top-p (nucleus) sampling's cut, a warp per row of probabilities sorted in decreasing
    order: 32 at a time, an inclusive scan by shuffles up carried across chunks, a ballot of
    the lanes whose running sum reaches p; the walk stops at the first chunk that has one, and
    the row's cut is the count of tokens kept."""
    tid = wp.tid()
    row = tid // 32
    lane = wp.lane_id()
    n = probs.shape[1]
    run = float(0.0)
    found = int(n)
    base = int(0)
    while base < n:
        v = probs[row, base + lane]
        off = int(1)
        while off < 32:
            o = wp.shfl_up_sync(FULL, v, off)
            if lane >= off:
                v += o
            off = off * 2
        mask = wp.ballot_sync(FULL, run + v >= p)
        if mask != wp.uint32(0):
            found = base + wp.bit_count((mask & (wp.uint32(0) - mask)) - wp.uint32(1)) + 1
            break
        run += wp.shfl_sync(FULL, v, 31)
        base += 32
    if lane == 0:
        cut[row] = found


# ---- databases and probabilistic structures -----------------------------------------------------


@wp.kernel
def hash_probe(tkeys: wp.array(dtype=int), tvals: wp.array(dtype=int), keys: wp.array(dtype=int),
               out: wp.array(dtype=int)):
    """Hash join's probe into an open-addressing table with linear probing (capacity a power of
    two, -1 marks an empty slot): a thread per probe key walks from its hashed slot until the
    key or an empty slot; the payload or -1."""
    i = wp.tid()
    k = keys[i]
    mask = tkeys.shape[0] - 1
    s = int(hash32(wp.uint32(k)) & wp.uint32(mask))
    r = int(-1)
    while True:
        tk = tkeys[s]
        if tk == k:
            r = tvals[s]
            break
        if tk == -1:
            break
        s = (s + 1) & mask
    out[i] = r


@wp.kernel
def bloom_insert(keys: wp.array(dtype=wp.uint32), bits: wp.array(dtype=wp.uint32)):
    """Bloom filter insertion, four bits a key by double hashing (h1 + i h2 over 32 * words bits,
    a power of two): each bit set by an integer atomic or into its word."""
    i = wp.tid()
    k = keys[i]
    h1 = hash32(k)
    h2 = hash32(k ^ wp.uint32(0x5BD1E995)) | wp.uint32(1)
    m = wp.uint32(bits.shape[0] * 32 - 1)
    for r in range(4):
        b = (h1 + wp.uint32(r) * h2) & m
        wp.atomic_or(bits, int(b >> wp.uint32(5)), wp.uint32(1) << (b & wp.uint32(31)))


@wp.kernel
def bloom_query(keys: wp.array(dtype=wp.uint32), bits: wp.array(dtype=wp.uint32), hit: wp.array(dtype=wp.uint8)):
    """Bloom filter query: the same four bits read; the key may be present if all are set (the
    walk stops at the first clear one)."""
    i = wp.tid()
    k = keys[i]
    h1 = hash32(k)
    h2 = hash32(k ^ wp.uint32(0x5BD1E995)) | wp.uint32(1)
    m = wp.uint32(bits.shape[0] * 32 - 1)
    ok = int(1)
    for r in range(4):
        b = (h1 + wp.uint32(r) * h2) & m
        if (bits[int(b >> wp.uint32(5))] >> (b & wp.uint32(31))) & wp.uint32(1) == wp.uint32(0):
            ok = 0
            break
    hit[i] = wp.uint8(ok)


@wp.kernel
def atomic_mix(slots: wp.array2d(dtype=int)):
    """simpleAtomicIntrinsics (CUDA samples) in spirit: every thread applies add, exchange, max,
    min, and, or and xor to the seven counters of slot tid % slots (one slot: every thread on the
    same seven words; many: spread)."""
    i = wp.tid()
    s = i % slots.shape[0]
    wp.atomic_add(slots, s, 0, 10)
    wp.atomic_exch(slots, s, 1, i)
    wp.atomic_max(slots, s, 2, i)
    wp.atomic_min(slots, s, 3, i)
    wp.atomic_and(slots, s, 4, 2 * i + 7)
    wp.atomic_or(slots, s, 5, 1 << (i % 31))
    wp.atomic_xor(slots, s, 6, i)


# ---- text: search, compression -----------------------------------------------------------------


@wp.kernel
def strmatch_naive(text: wp.array(dtype=wp.uint8), pat: wp.array(dtype=wp.uint8), hit: wp.array(dtype=wp.uint8),
                   count: wp.array(dtype=int)):
    """Naive substring search: a thread per text position compares the pattern from there until
    the first mismatch (the pattern the same words across the warp); a match marks the position
    and adds one to a single counter by an integer atomic."""
    i = wp.tid()
    m = pat.shape[0]
    j = int(0)
    while j < m:
        if text[i + j] != pat[j]:
            break
        j += 1
    f = int(0)
    if j == m:
        f = 1
        wp.atomic_add(count, 0, 1)
    hit[i] = wp.uint8(f)


@wp.kernel
def lz_match(data: wp.array(dtype=wp.uint8), window: int, maxlen: int, best_len: wp.array(dtype=wp.int16),
             best_off: wp.array(dtype=wp.int16)):
    """LZ77-style match finding: a thread per position tries every offset back to ``window`` and
    extends each match byte by byte (up to ``maxlen`` and the end of the data), keeping the
    longest (the nearest on ties)."""
    i = wp.tid()
    n = data.shape[0]
    bl = int(0)
    bo = int(0)
    for d in range(1, window + 1):
        if d <= i:
            l = int(0)
            while l < maxlen and i + l < n:
                if data[i - d + l] != data[i + l]:
                    break
                l += 1
            if l > bl:
                bl = l
                bo = d
    best_len[i] = wp.int16(bl)
    best_off[i] = wp.int16(bo)


@wp.kernel
def vle_pack(sym: wp.array(dtype=wp.uint8), code: wp.array(dtype=wp.uint32), length: wp.array(dtype=int),
             bitpos: wp.array(dtype=int), out: wp.array(dtype=wp.uint32)):
    """Variable-length (Huffman) encoding's packing step: a thread per symbol looks up its code
    and length and ors the code, most significant bit first, into the output words at its bit
    offset (from a scan of the lengths done before) by integer atomics, two words when it
    straddles a boundary."""
    i = wp.tid()
    s = int(sym[i])
    c = code[s]
    l = length[s]
    p = bitpos[i]
    w = p >> 5
    sh = 32 - (p & 31) - l
    if sh >= 0:
        wp.atomic_or(out, w, c << wp.uint32(sh))
    else:
        wp.atomic_or(out, w, c >> wp.uint32(-sh))
        wp.atomic_or(out, w + 1, c << wp.uint32(32 + sh))


# ---- image, graphics, cellular automata ---------------------------------------------------------


@wp.kernel
def gradient_polar(img: wp.array2d(dtype=wp.uint8), mag: wp.array2d(dtype=float), ang: wp.array2d(dtype=wp.int16)):
    """Image gradient in polar form (as leukocyte tracking's gradient step): central differences
    of a byte image (edges clamped), the magnitude in fp32 and the direction in hundredths of a
    degree as int16."""
    y, x = wp.tid()
    hm = img.shape[0] - 1
    wm = img.shape[1] - 1
    gx = float(int(img[y, wp.min(x + 1, wm)]) - int(img[y, wp.max(x - 1, 0)])) * 0.5
    gy = float(int(img[wp.min(y + 1, hm), x]) - int(img[wp.max(y - 1, 0), x])) * 0.5
    mag[y, x] = wp.sqrt(gx * gx + gy * gy)
    ang[y, x] = wp.int16(int(wp.floor(wp.atan2(gy, gx) * 5729.5779513 + 0.5)))


@wp.kernel
def raymarch_volume(vol: wp.array3d(dtype=float), out: wp.array2d(dtype=float)):
    """Volume rendering by ray marching: a thread per pixel steps through a density volume
    (z, y, x) one slice a step along a slightly diverging ray (integer offsets), nearest
    voxel, composited front to back; the march stops once the transmittance is below 1%."""
    py, px = wp.tid()
    d = vol.shape[0]
    ix0 = (px * d) // out.shape[1]
    iy0 = (py * d) // out.shape[0]
    trans = float(1.0)
    acc = float(0.0)
    for s in range(d):
        ix = wp.min(ix0 + (ix0 * s) // (4 * d) - s // 8, d - 1)
        iy = wp.min(iy0 + (iy0 * s) // (4 * d) - s // 8, d - 1)
        if ix >= 0 and iy >= 0:
            dens = vol[s, iy, ix]
            a = wp.min(dens * 0.25, 1.0)
            acc += trans * a * dens
            trans = trans * (1.0 - a)
            if trans < 0.01:
                break
    out[py, px] = acc


@wp.kernel
def marching_squares(f: wp.array2d(dtype=float), iso: float, case: wp.array2d(dtype=wp.uint8),
                     active: wp.array(dtype=int), segments: wp.array(dtype=float)):
    """Marching squares' classification: a thread per cell builds its four-bit case from the
    corners above the iso level; a cell the contour crosses adds one to a counter (integer
    atomic) and its segment count (two for the saddles) to a total (float atomic), both single
    words."""
    y, x = wp.tid()
    c = int(0)
    if f[y, x] > iso:
        c = c | 1
    if f[y, x + 1] > iso:
        c = c | 2
    if f[y + 1, x + 1] > iso:
        c = c | 4
    if f[y + 1, x] > iso:
        c = c | 8
    case[y, x] = wp.uint8(c)
    if c != 0 and c != 15:
        wp.atomic_add(active, 0, 1)
        segs = float(1.0)
        if c == 5 or c == 10:
            segs = 2.0
        wp.atomic_add(segments, 0, segs)


@wp.kernel
def life_naive(g: wp.array2d(dtype=wp.uint8), out: wp.array2d(dtype=wp.uint8)):
    """Conway's Game of Life, one generation on a periodic byte grid: a thread per cell reads its
    eight neighbours from global memory."""
    y, x = wp.tid()
    h = g.shape[0]
    w = g.shape[1]
    ym = (y + h - 1) % h
    yp = (y + 1) % h
    xm = (x + w - 1) % w
    xp = (x + 1) % w
    n = int(g[ym, xm]) + int(g[ym, x]) + int(g[ym, xp]) + int(g[y, xm]) + int(g[y, xp])
    n = n + int(g[yp, xm]) + int(g[yp, x]) + int(g[yp, xp])
    alive = int(g[y, x])
    r = int(0)
    if n == 3 or (n == 2 and alive == 1):
        r = 1
    out[y, x] = wp.uint8(r)


@wp.kernel
def life_shared(g: wp.array2d(dtype=wp.uint8), out: wp.array2d(dtype=wp.uint8)):
    """The same generation with a 32x32 block (1024 threads) staging its 34x34 tile (periodic
    halo) in shared memory as ints, the neighbours read from there."""
    tile = wp.shared.array(shape=(34, 34), dtype=int)
    y, x = wp.tid()
    ty, tx = wp.thread_idx()
    h = g.shape[0]
    w = g.shape[1]
    y0 = y - ty - 1 + h
    x0 = x - tx - 1 + w
    t = ty * 32 + tx
    for e in range(t, 34 * 34, 1024):
        tile[e // 34, e % 34] = int(g[(y0 + e // 34) % h, (x0 + e % 34) % w])
    wp.sync_threads()
    n = tile[ty, tx] + tile[ty, tx + 1] + tile[ty, tx + 2] + tile[ty + 1, tx] + tile[ty + 1, tx + 2]
    n = n + tile[ty + 2, tx] + tile[ty + 2, tx + 1] + tile[ty + 2, tx + 2]
    alive = tile[ty + 1, tx + 1]
    r = int(0)
    if n == 3 or (n == 2 and alive == 1):
        r = 1
    out[y, x] = wp.uint8(r)


# ---- numerical -----------------------------------------------------------------------------------


@wp.kernel
def durbin_batched(r: wp.array2d(dtype=Any), y: wp.array2d(dtype=Any), z: wp.array2d(dtype=Any)):
    """PolyBench's durbin (Levinson-Durbin recursion for a Toeplitz system), batched: a thread per
    system, the systems side by side in memory (element k of every system in one row, lanes
    adjacent), ``z`` the scratch vector. Generic: fp32 or fp64."""
    sys = wp.tid()
    n = r.shape[0]
    r0 = r[0, sys]
    T = type(r0)
    y[0, sys] = -r0
    beta = T(1.0)
    alpha = -r0
    for k in range(1, n):
        beta = (T(1.0) - alpha * alpha) * beta
        s = T(0.0)
        for i in range(k):
            s += r[k - i - 1, sys] * y[i, sys]
        alpha = -(r[k, sys] + s) / beta
        for i in range(k):
            z[i, sys] = y[i, sys] + alpha * y[k - i - 1, sys]
        for i in range(k):
            y[i, sys] = z[i, sys]
        y[k, sys] = alpha


@wp.kernel
def box_muller(seed: wp.uint32, out: wp.array(dtype=float)):
    """Normal random numbers by the Box-Muller transform (as in the CUDA samples' random number
    generators): a thread per pair hashes two uniforms from its index and the seed and writes
    sqrt(-2 ln u1) times the cosine and the sine of 2 pi u2."""
    i = wp.tid()
    h1 = hash32(wp.uint32(2 * i) ^ seed)
    h2 = hash32(wp.uint32(2 * i + 1) ^ seed)
    u1 = (float(int(h1 >> wp.uint32(8))) + 1.0) * 5.9604644775390625e-08
    u2 = float(int(h2 >> wp.uint32(8))) * 5.9604644775390625e-08
    rad = wp.sqrt(-2.0 * wp.log(u1))
    a = 6.283185307179586 * u2
    out[2 * i] = rad * wp.cos(a)
    out[2 * i + 1] = rad * wp.sin(a)


@wp.kernel
def list_rank_jump(nxt: wp.array(dtype=int), rank: wp.array(dtype=int), nxt_out: wp.array(dtype=int),
                   rank_out: wp.array(dtype=int)):
    """List ranking by pointer jumping (Wyllie), one round: a thread per node adds its successor's
    rank to its own and takes its successor's successor (-1 ends the list); double-buffered."""
    i = wp.tid()
    j = nxt[i]
    r = rank[i]
    if j >= 0:
        r += rank[j]
        j = nxt[j]
    rank_out[i] = r
    nxt_out[i] = j
