"""Kernels of the fourth blind validation set, written in simt from the algorithms of public GPU
suites and well-known GPU workloads (PolyBench/GPU, Rodinia, the CUDA samples, Lonestar and
Pannotia graph kernels, common ML operators, sequence analysis). Each is written from the
algorithm's description, as a user of simt would write it; none is a translation of a suite's
source, and none repeats an algorithm of the earlier blind sets (../blind/kernels.py,
../blind2/kernels.py, ../blind3/kernels.py) or of the held-out set (../kernels.py,
../cases.py). Where a kernel has variants of element type it is generic (``typing.Any``) and
each launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x); with ``block_dim=(BH, BW)``, ``ty, tx = wp.thread_idx()``.
Launch shapes and inputs are in ``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

FULL = wp.uint32(0xFFFFFFFF)

# ---- PolyBench/GPU -----------------------------------------------------------------------------


@wp.kernel
def covariance(data: wp.array2d(dtype=float), cov: wp.array2d(dtype=float)):
    """covariance (its last kernel; the columns already centred): a thread per element of the
    upper triangle, cov[a, b] = sum_i data[i, a] data[i, b] / (n - 1), written to both
    halves; threads below the diagonal return (whole blocks of them, and half of the blocks
    on it)."""
    a, b = wp.tid()
    if b >= a:
        n = data.shape[0]
        s = float(0.0)
        for i in range(n):
            s += data[i, a] * data[i, b]
        s = s / float(n - 1)
        cov[a, b] = s
        cov[b, a] = s


@wp.kernel
def symm(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float),
         alpha: float, beta: float):
    """symm: C = alpha A B + beta C with A symmetric and only its lower triangle stored; a thread
    per element of C: row i of A up to the diagonal, then column i below it."""
    i, j = wp.tid()
    m = a.shape[0]
    acc = float(0.0)
    for k in range(i + 1):
        acc += a[i, k] * b[k, j]
    for k in range(i + 1, m):
        acc += a[k, i] * b[k, j]
    c[i, j] = alpha * acc + beta * c[i, j]


@wp.kernel
def cholesky_col(a: wp.array2d(dtype=Any), k: int, ldiag: wp.array(dtype=Any)):
    """cholesky, column k of a left-looking factorisation (L below the diagonal of ``a``,
    columns before k done; the diagonal of L in ``ldiag``, so that no thread reads a word
    another writes): a thread per row from k down; every one works out L[k, k] from row k,
    row k's thread stores it, the rows below walk their row up to column k (lanes a row
    apart) against row k's (the same words for the whole warp). Generic: fp32 or fp64."""
    i = wp.tid()
    if i >= k:
        d = a[k, k]
        for j in range(k):
            d -= a[k, j] * a[k, j]
        lkk = wp.sqrt(d)
        if i == k:
            ldiag[k] = lkk
        else:
            s = a[i, k]
            for j in range(k):
                s -= a[i, j] * a[k, j]
            a[i, k] = s / lkk


@wp.kernel
def nussinov_diag(seq: wp.array(dtype=wp.uint8), table: wp.array2d(dtype=int), d: int):
    """nussinov (RNA folding), one anti-diagonal j = i + d of the table, a thread per cell: the
    best of dropping an end, pairing the two ends (bases 0-3, a pair when they sum to 3) and
    every split point k (row i left of the cell, lanes a row apart; column j below it, lanes
    adjacent). Integer work."""
    i = wp.tid()
    n = table.shape[0]
    j = i + d
    if j < n:
        best = wp.max(table[i + 1, j], table[i, j - 1])
        pair = int(0)
        if int(seq[i]) + int(seq[j]) == 3:
            pair = 1
        best = wp.max(best, table[i + 1, j - 1] + pair)
        for k in range(i + 1, j):
            best = wp.max(best, table[i, k] + table[k + 1, j])
        table[i, j] = best


# ---- Rodinia -----------------------------------------------------------------------------------


@wp.kernel
def bucket_count(keys: wp.array(dtype=float), pivots: wp.array(dtype=float), n: int,
                 counts: wp.array2d(dtype=int)):
    """hybridsort's bucket count (Rodinia): the 1023 sorted pivots staged in shared memory, each
    key's bucket found by bisection (ten steps), counted by a shared integer atomic in the
    block's 1024 counters (the contention: how the keys crowd), the counters written out per
    block. Grid-stride over the keys, blocks of 256."""
    piv = wp.shared.array(shape=(1024,), dtype=float)
    cnt = wp.shared.array(shape=(1024,), dtype=int)
    t = wp.thread_idx()
    blk = wp.block_idx()
    for e in range(t, 1024, 256):
        cnt[e] = 0
        if e < 1023:
            piv[e] = pivots[e]
    wp.sync_threads()
    stride = wp.grid_dim() * 256
    for i in range(blk * 256 + t, n, stride):
        v = keys[i]
        lo = int(0)
        hi = int(1023)
        while lo < hi:
            mid = (lo + hi) // 2
            if piv[mid] <= v:
                lo = mid + 1
            else:
                hi = mid
        wp.atomic_add(cnt, lo, 1)
    wp.sync_threads()
    for e in range(t, 1024, 256):
        counts[blk, e] = cnt[e]


@wp.kernel
def template_corr(img: wp.array2d(dtype=Any), tmpl: wp.array3d(dtype=float), py: wp.array(dtype=int),
                  px: wp.array(dtype=int), corr: wp.array2d(dtype=float)):
    """Template tracking as in Rodinia's heartwall and leukocyte: a block of 256 per tracked
    point stages its 16x16 zero-mean template in shared memory; each thread takes one of the
    16x16 offsets of the search window and correlates the template with the image there (256
    image reads, 16-bit or byte pixels), normalised by the patch's energy. Generic pixel type."""
    tp = wp.shared.array(shape=(256,), dtype=float)
    p = wp.block_idx()
    t = wp.thread_idx()
    tp[t] = tmpl[p, t // 16, t % 16]
    wp.sync_threads()
    y0 = py[p] + t // 16 - 8
    x0 = px[p] + t % 16 - 8
    s = float(0.0)
    e = float(0.0)
    for r in range(16):
        for c in range(16):
            v = float(img[y0 + r, x0 + c])
            s += v * tp[r * 16 + c]
            e += v * v
    corr[p, t] = s / wp.sqrt(e + 1.0)


@wp.kernel
def hh_cells(state: wp.array2d(dtype=Any), drive: wp.array(dtype=Any), steps: int):
    """Cell-by-cell ODE integration in the manner of Rodinia's myocyte (there a cardiac cell
    model; here the Hodgkin-Huxley membrane, four states): a thread per cell, ``steps``
    explicit Euler steps of 0.01 ms, each with six exponentials and four divisions; the state
    in registers, read and written once. Generic: fp32 or fp64."""
    c = wp.tid()
    v = state[c, 0]
    T = type(v)
    m = state[c, 1]
    h = state[c, 2]
    nn = state[c, 3]
    cur = drive[c]
    dt = T(0.01)
    for s in range(steps):
        am = T(1.0) / (T(1.0) + wp.exp(-(v + T(40.0)) * T(0.1)))
        bm = T(4.0) * wp.exp(-(v + T(65.0)) / T(18.0))
        ah = T(0.07) * wp.exp(-(v + T(65.0)) * T(0.05))
        bh = T(1.0) / (T(1.0) + wp.exp(-(v + T(35.0)) * T(0.1)))
        an = T(0.1) / (T(1.0) + wp.exp(-(v + T(55.0)) * T(0.1)))
        bn = T(0.125) * wp.exp(-(v + T(65.0)) / T(80.0))
        ina = T(120.0) * m * m * m * h * (v - T(50.0))
        ik = T(36.0) * nn * nn * nn * nn * (v + T(77.0))
        il = T(0.3) * (v + T(54.4))
        v = v + dt * (cur - ina - ik - il)
        m = m + dt * (am * (T(1.0) - m) - bm * m)
        h = h + dt * (ah * (T(1.0) - h) - bh * h)
        nn = nn + dt * (an * (T(1.0) - nn) - bn * nn)
    state[c, 0] = v
    state[c, 1] = m
    state[c, 2] = h
    state[c, 3] = nn


# ---- the CUDA samples --------------------------------------------------------------------------


@wp.kernel
def montecarlo_option(z: wp.array(dtype=float), s0: wp.array(dtype=float), strike: wp.array(dtype=float),
                      years: wp.array(dtype=float), payoff: wp.array(dtype=float)):
    """MonteCarlo (CUDA samples): a European call priced by the mean payoff over pre-drawn normal
    samples (the same for every option), a block of 256 per option: strided sums of
    max(S_T - X, 0), a butterfly of shuffles per warp, and each warp's lane 0 adds its sum to
    the option's by a float atomic (eight an option)."""
    o = wp.block_idx()
    t = wp.thread_idx()
    r = 0.02
    vol = 0.30
    tv = years[o]
    sv = s0[o]
    xv = strike[o]
    mu = (r - 0.5 * vol * vol) * tv
    sig = vol * wp.sqrt(tv)
    acc = float(0.0)
    for p in range(t, z.shape[0], 256):
        st = sv * wp.exp(mu + sig * z[p])
        acc += wp.max(st - xv, 0.0)
    off = int(16)
    while off > 0:
        acc += wp.shfl_xor_sync(FULL, acc, off)
        off = off // 2
    if t % 32 == 0:
        wp.atomic_add(payoff, o, acc * wp.exp(-r * tv) / float(z.shape[0]))


@wp.kernel
def binomial_options(s0: wp.array(dtype=float), strike: wp.array(dtype=float), years: wp.array(dtype=float),
                     steps: int, price: wp.array(dtype=float)):
    """binomialOptions (CUDA samples): a European call on a binomial tree of ``steps`` levels
    (at most 1024), a block per option: the leaves' payoffs into shared memory, then backward
    induction level by level, each thread a strided share of the level's nodes, two shared
    buffers taken in turn and a barrier a level. The block's size is the launch's."""
    val = wp.shared.array(shape=(2, 1025), dtype=float)
    o = wp.block_idx()
    t = wp.thread_idx()
    nt = wp.block_dim()
    r = 0.02
    vol = 0.30
    dt = years[o] / float(steps)
    vdt = vol * wp.sqrt(dt)
    u = wp.exp(vdt)
    pu = (wp.exp(r * dt) - 1.0 / u) / (u - 1.0 / u)
    disc = wp.exp(-r * dt)
    pu_d = pu * disc
    pd_d = (1.0 - pu) * disc
    sv = s0[o]
    xv = strike[o]
    for i in range(t, steps + 1, nt):
        val[0, i] = wp.max(sv * wp.exp(vdt * float(2 * i - steps)) - xv, 0.0)
    wp.sync_threads()
    src = int(0)
    for lv in range(steps, 0, -1):
        for i in range(t, lv, nt):
            val[1 - src, i] = pu_d * val[src, i + 1] + pd_d * val[src, i]
        src = 1 - src
        wp.sync_threads()
    if t == 0:
        price[o] = val[src, 0]


@wp.kernel
def sturm_count(diag: wp.array(dtype=Any), off2: wp.array(dtype=Any), shifts: wp.array(dtype=Any),
                count: wp.array(dtype=int)):
    """eigenvalues (CUDA samples, the bisection's count): the number of eigenvalues of a
    symmetric tridiagonal matrix below each shift, as the negative pivots of its LDL^T
    factorisation (a Sturm sequence); a thread per shift walks the whole matrix (every lane
    the same words), a chain of divisions. off2 holds the squared off-diagonal. Generic: fp32
    or fp64."""
    i = wp.tid()
    x = shifts[i]
    T = type(x)
    tiny = T(1e-30)
    q = diag[0] - x
    cnt = int(0)
    if q < T(0.0):
        cnt = 1
    for k in range(1, diag.shape[0]):
        if wp.abs(q) < tiny:
            q = tiny
        q = (diag[k] - x) - off2[k - 1] / q
        if q < T(0.0):
            cnt += 1
    count[i] = cnt


@wp.kernel
def bilateral(img: wp.array2d(dtype=Any), space: wp.array2d(dtype=float), inv2s2: float,
              out: wp.array2d(dtype=float)):
    """bilateralFilter (CUDA samples), on a grey image: each pixel's mean over a 7x7 window
    weighted by a spatial Gaussian (a table) and a range Gaussian of the intensity difference
    (an exponential per tap), clamped at the edges. Generic pixel type: bytes or fp32."""
    y, x = wp.tid()
    hmax = img.shape[0] - 1
    wmax = img.shape[1] - 1
    c = float(img[y, x])
    sw = float(0.0)
    sv = float(0.0)
    for dy in range(7):
        yy = wp.min(wp.max(y + dy - 3, 0), hmax)
        for dx in range(7):
            xx = wp.min(wp.max(x + dx - 3, 0), wmax)
            v = float(img[yy, xx])
            w = space[dy, dx] * wp.exp(-(v - c) * (v - c) * inv2s2)
            sw += w
            sv += w * v
    out[y, x] = sv / sw


# ---- ML operators ------------------------------------------------------------------------------


@wp.kernel
def layernorm_warp(x: wp.array2d(dtype=float), gamma: wp.array(dtype=float), beta: wp.array(dtype=float),
                   y: wp.array2d(dtype=float)):
    """Layer normalisation forward, a warp per row: the mean by strided sums and a butterfly of
    shuffles, then the variance the same way (a second read of the row), then the normalised,
    scaled and shifted row."""
    tid = wp.tid()
    row = tid // 32
    lane = wp.lane_id()
    n = x.shape[1]
    s = float(0.0)
    for c in range(lane, n, 32):
        s += x[row, c]
    off = int(16)
    while off > 0:
        s += wp.shfl_xor_sync(FULL, s, off)
        off = off // 2
    mean = s / float(n)
    q = float(0.0)
    for c in range(lane, n, 32):
        d = x[row, c] - mean
        q += d * d
    off = 16
    while off > 0:
        q += wp.shfl_xor_sync(FULL, q, off)
        off = off // 2
    rstd = 1.0 / wp.sqrt(q / float(n) + 1e-5)
    for c in range(lane, n, 32):
        y[row, c] = (x[row, c] - mean) * rstd * gamma[c] + beta[c]


@wp.kernel
def layernorm_thread(x: wp.array2d(dtype=float), gamma: wp.array(dtype=float), beta: wp.array(dtype=float),
                     y: wp.array2d(dtype=float)):
    """The same normalisation with a thread per row (three walks along it; lanes a row apart)."""
    row = wp.tid()
    n = x.shape[1]
    s = float(0.0)
    for c in range(n):
        s += x[row, c]
    mean = s / float(n)
    q = float(0.0)
    for c in range(n):
        d = x[row, c] - mean
        q += d * d
    rstd = 1.0 / wp.sqrt(q / float(n) + 1e-5)
    for c in range(n):
        y[row, c] = (x[row, c] - mean) * rstd * gamma[c] + beta[c]


@wp.kernel
def softmax_online(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    """Row softmax by the online normaliser (one pass keeps the running maximum and the sum
    rescaled to it), a warp per row: each lane's pair, then a butterfly of shuffles merging
    pairs, then a second pass writing exp(x - max) / sum."""
    tid = wp.tid()
    row = tid // 32
    lane = wp.lane_id()
    n = x.shape[1]
    m = float(-3.0e38)
    s = float(0.0)
    for c in range(lane, n, 32):
        v = x[row, c]
        if v > m:
            s = s * wp.exp(m - v) + 1.0
            m = v
        else:
            s += wp.exp(v - m)
    off = int(16)
    while off > 0:
        mo = wp.shfl_xor_sync(FULL, m, off)
        so = wp.shfl_xor_sync(FULL, s, off)
        mn = wp.max(m, mo)
        s = s * wp.exp(m - mn) + so * wp.exp(mo - mn)
        m = mn
        off = off // 2
    inv = 1.0 / s
    for c in range(lane, n, 32):
        y[row, c] = wp.exp(x[row, c] - m) * inv


@wp.kernel
def embedding_bag(table: wp.array2d(dtype=Any), index: wp.array(dtype=int), offsets: wp.array(dtype=int),
                  out: wp.array2d(dtype=float)):
    """Embedding bag (sum mode, as in recommendation models): bag b sums the table rows named by
    index[offsets[b]:offsets[b + 1]] (random rows: gathers), a thread per bag and column, a
    warp on 32 adjacent columns of a row. Generic table type: fp32 or fp16 (summed in fp32)."""
    b, c = wp.tid()
    s = float(0.0)
    for e in range(offsets[b], offsets[b + 1]):
        s += float(table[index[e], c])
    out[b, c] = s


@wp.kernel
def topk_warp(x: wp.array2d(dtype=float), k: int, vals: wp.array2d(dtype=float), idx: wp.array2d(dtype=int)):
    """Top-k of each row of 256 by repeated maxima, a warp per row (eight rows a block of 256):
    the row staged in shared memory; each round every lane takes the best of its eight
    elements, a butterfly of shuffles finds the warp's best (the lower index on ties), and the
    winner's element is struck out."""
    row_s = wp.shared.array(shape=(8, 256), dtype=float)
    tid = wp.tid()
    row = tid // 32
    w = wp.thread_idx() // 32
    lane = wp.lane_id()
    for c in range(lane, 256, 32):
        row_s[w, c] = x[row, c]
    for r in range(k):
        best = float(-3.0e38)
        bi = int(1 << 30)
        for c in range(lane, 256, 32):
            v = row_s[w, c]
            if v > best:
                best = v
                bi = c
        off = int(16)
        while off > 0:
            ov = wp.shfl_xor_sync(FULL, best, off)
            oi = wp.shfl_xor_sync(FULL, bi, off)
            if ov > best or (ov == best and oi < bi):
                best = ov
                bi = oi
            off = off // 2
        if lane == 0:
            vals[row, r] = best
            idx[row, r] = bi
        if bi % 32 == lane:
            row_s[w, bi] = -3.0e38


# ---- graphs (Lonestar, Pannotia, GraphChallenge) -----------------------------------------------


@wp.kernel
def cc_hook(src: wp.array(dtype=int), dst: wp.array(dtype=int), label: wp.array(dtype=int),
            label_out: wp.array(dtype=int)):
    """Connected components by label propagation (Lonestar's and Pannotia's edge-parallel step):
    a thread per edge; the endpoint with the larger label takes the smaller by an integer
    atomic min on the next labels (hubs of a skewed graph draw many)."""
    e = wp.tid()
    u = src[e]
    v = dst[e]
    lu = label[u]
    lv = label[v]
    if lu < lv:
        wp.atomic_min(label_out, v, lu)
    elif lv < lu:
        wp.atomic_min(label_out, u, lv)


@wp.kernel
def sssp_relax(row_ptr: wp.array(dtype=int), cols: wp.array(dtype=int), weight: wp.array(dtype=int),
               dist: wp.array(dtype=int), dist_out: wp.array(dtype=int)):
    """Single-source shortest paths, one Bellman-Ford step (Lonestar's topology-driven SSSP): a
    thread per vertex with a finite distance relaxes its out-edges (CSR) by integer atomic min;
    the loop's length is the vertex's degree (a skewed graph diverges)."""
    u = wp.tid()
    du = dist[u]
    if du < 1000000000:
        for e in range(row_ptr[u], row_ptr[u + 1]):
            wp.atomic_min(dist_out, cols[e], du + weight[e])


@wp.kernel
def color_jp(row_ptr: wp.array(dtype=int), cols: wp.array(dtype=int), rand: wp.array(dtype=int),
             color: wp.array(dtype=int), step: int, color_out: wp.array(dtype=int)):
    """Graph colouring, one Jones-Plassmann round (Pannotia's color): an uncoloured vertex takes
    colour ``step`` when its random weight beats every uncoloured neighbour's (vertex id on
    ties); the neighbour walk stops at the first that beats it."""
    v = wp.tid()
    if color[v] < 0:
        rv = rand[v]
        wins = int(1)
        for e in range(row_ptr[v], row_ptr[v + 1]):
            u = cols[e]
            if color[u] < 0:
                ru = rand[u]
                if ru > rv or (ru == rv and u > v):
                    wins = 0
                    break
        if wins == 1:
            color_out[v] = step


@wp.func
def intersect_count(row_ptr: wp.array(dtype=int), cols: wp.array(dtype=int), u: int, v: int):
    a = row_ptr[u]
    ae = row_ptr[u + 1]
    b = row_ptr[v]
    be = row_ptr[v + 1]
    n = int(0)
    while a < ae and b < be:
        x = cols[a]
        y = cols[b]
        if x == y:
            n += 1
            a += 1
            b += 1
        elif x < y:
            a += 1
        else:
            b += 1
    return n


@wp.kernel
def tc_atomic(src: wp.array(dtype=int), dst: wp.array(dtype=int), row_ptr: wp.array(dtype=int),
              cols: wp.array(dtype=int), total: wp.array(dtype=int)):
    """Triangle counting (GraphChallenge, Lonestar's tc): a thread per edge u < v merges the two
    sorted lists of higher neighbours; each thread adds its count to one global counter by an
    integer atomic (every thread of the launch on one address)."""
    e = wp.tid()
    n = intersect_count(row_ptr, cols, src[e], dst[e])
    wp.atomic_add(total, 0, n)


@wp.kernel
def tc_warp(src: wp.array(dtype=int), dst: wp.array(dtype=int), row_ptr: wp.array(dtype=int),
            cols: wp.array(dtype=int), total: wp.array(dtype=int)):
    """The same count with each warp's counts summed by shuffles first: one atomic a warp (the
    launch a multiple of 32 threads)."""
    e = wp.tid()
    n = intersect_count(row_ptr, cols, src[e], dst[e])
    off = int(16)
    while off > 0:
        n += wp.shfl_xor_sync(FULL, n, off)
        off = off // 2
    if wp.lane_id() == 0:
        wp.atomic_add(total, 0, n)


# ---- stream compaction (warp-aggregated atomics) -----------------------------------------------


@wp.kernel
def filter_atomic(x: wp.array(dtype=float), thr: float, out: wp.array(dtype=float), count: wp.array(dtype=int)):
    """Stream compaction, the plain way: every kept element takes its output slot by an integer
    atomic add on one counter (the order of the output is the atomics')."""
    i = wp.tid()
    v = x[i]
    if v > thr:
        pos = wp.atomic_add(count, 0, 1)
        out[pos] = v


@wp.kernel
def filter_warp_agg(x: wp.array(dtype=float), thr: float, out: wp.array(dtype=float), count: wp.array(dtype=int)):
    """The same compaction with warp-aggregated atomics: a ballot of the keepers, one atomic by
    the lowest keeping lane for the whole warp, the base broadcast by a shuffle, each keeper's
    slot the population count of the keepers below it."""
    i = wp.tid()
    lane = wp.lane_id()
    v = x[i]
    keep = v > thr
    mask = wp.ballot_sync(FULL, keep)
    if mask != wp.uint32(0):
        leader = wp.bit_count((mask & (wp.uint32(0) - mask)) - wp.uint32(1))
        base = int(0)
        if lane == leader:
            base = wp.atomic_add(count, 0, wp.bit_count(mask))
        base = wp.shfl_sync(FULL, base, leader)
        if keep:
            below = mask & ((wp.uint32(1) << wp.uint32(lane)) - wp.uint32(1))
            out[base + wp.bit_count(below)] = v


# ---- sequences ---------------------------------------------------------------------------------


@wp.kernel
def kmer_count(seq: wp.array(dtype=wp.uint8), k: int, counts: wp.array(dtype=int)):
    """k-mer counting (as in GPU genome assemblers): a thread per position packs the k bases
    after it (ASCII A, C, G, T to two bits each) into a 64-bit word, mixes it by MurmurHash3's
    64-bit finaliser and counts it in a hash table of a power-of-two size by an integer atomic
    (no probing: a count-min row). Byte loads, 64-bit integer work."""
    i = wp.tid()
    code = wp.uint64(0)
    for j in range(k):
        b = wp.uint64((int(seq[i + j]) >> 1) & 3)
        code = (code << wp.uint64(2)) | b
    h = code ^ (code >> wp.uint64(33))
    h = h * wp.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> wp.uint64(33))
    h = h * wp.uint64(0xC4CEB9FE1A85EC53)
    h = h ^ (h >> wp.uint64(33))
    slot = int(h & wp.uint64(counts.shape[0] - 1))
    wp.atomic_add(counts, slot, 1)


@wp.kernel
def sw_rowmajor(a: wp.array(dtype=wp.uint8), b: wp.array(dtype=wp.uint8), h: wp.array2d(dtype=wp.int16),
                e: wp.array2d(dtype=wp.int16), f: wp.array2d(dtype=wp.int16), d: int):
    """Smith-Waterman with affine gaps (Gotoh), one anti-diagonal i + j = d of the score
    matrices, a thread per cell; the matrices are row-major 16-bit (lanes a row less one word
    apart). Match +2, mismatch -1, gap open 3, extension 1."""
    t = wp.tid()
    m = h.shape[0] - 1
    n = h.shape[1] - 1
    i0 = wp.max(1, d - n)
    i = i0 + t
    j = d - i
    if i <= m and j >= 1:
        ev = wp.max(int(e[i, j - 1]) - 1, int(h[i, j - 1]) - 3)
        fv = wp.max(int(f[i - 1, j]) - 1, int(h[i - 1, j]) - 3)
        sub = -1
        if a[i - 1] == b[j - 1]:
            sub = 2
        hv = wp.max(wp.max(0, int(h[i - 1, j - 1]) + sub), wp.max(ev, fv))
        e[i, j] = wp.int16(ev)
        f[i, j] = wp.int16(fv)
        h[i, j] = wp.int16(hv)


@wp.kernel
def sw_diagmajor(a: wp.array(dtype=wp.uint8), b: wp.array(dtype=wp.uint8), h: wp.array2d(dtype=wp.int16),
                 e: wp.array2d(dtype=wp.int16), f: wp.array2d(dtype=wp.int16), d: int):
    """The same step with the matrices stored by anti-diagonal, row i of diagonal d at [d, i]
    (lanes on adjacent half-words)."""
    t = wp.tid()
    m = a.shape[0]
    n = b.shape[0]
    i0 = wp.max(1, d - n)
    i = i0 + t
    j = d - i
    if i <= m and j >= 1:
        ev = wp.max(int(e[d - 1, i]) - 1, int(h[d - 1, i]) - 3)
        fv = wp.max(int(f[d - 1, i - 1]) - 1, int(h[d - 1, i - 1]) - 3)
        sub = -1
        if a[i - 1] == b[j - 1]:
            sub = 2
        hv = wp.max(wp.max(0, int(h[d - 2, i - 1]) + sub), wp.max(ev, fv))
        e[d, i] = wp.int16(ev)
        f[d, i] = wp.int16(fv)
        h[d, i] = wp.int16(hv)
