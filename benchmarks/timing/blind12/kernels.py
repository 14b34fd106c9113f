"""Kernels of the twelfth blind validation set, written in simt from the algorithms of public
GPU libraries and well-known GPU workloads: tree-ensemble inference (cuML's FIL, XGBoost's GPU
predictor) in two layouts; HyperLogLog's register updates; the symbolic phase of row-wise
SpGEMM (Gustavson's method with hash tables, as nsparse and cuSPARSE do it); a radix-2 stage of
the number-theoretic transform (GPU FHE and zero-knowledge libraries) with two modular
multiplications; SipHash; LEB128 varint decoding (protobuf, ORC and Parquet readers);
Felsenstein's pruning step as BEAGLE computes it; minimap2's (w, k)-minimizers; miniQMC's
tricubic B-spline orbital evaluation. Each is written from the algorithm's description, as a
user of simt would write it; none is a translation of a library's source, and none repeats an
algorithm of the earlier blind sets (../blind/kernels.py to ../blind11/kernels_media.py) or of
the held-out set (../kernels.py, ../cases.py); the imaging, physics, radar and geometry kernels
are in kernels_media.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Launch shapes and inputs are in ``cases.py``; numpy
references in ``check.py``.
"""
import simt as wp

HLL_P = 12              # HyperLogLog: 2^12 registers
HLL_M = 4096
SPG_SLOTS = 128         # SpGEMM symbolic: hash slots a row (products a row stay below 100)
SPG_BLOCK = 64          # spgemm_count_shared: threads a block (64 tables of 128 ints: 32 KB)
NTT_P = 998244353       # the NTT's prime, 119 * 2^23 + 1
MZ_K = 15               # minimizers: k-mer length (30 bits)
MZ_W = 10               # minimizers: k-mers a window
MZ_CHUNK = 64           # minimizer_rolling: windows a thread


@wp.func
def fmix32(h: wp.uint32):
    """MurmurHash3's 32-bit finaliser (an invertible mix)."""
    h = h ^ (h >> wp.uint32(16))
    h = h * wp.uint32(0x85EBCA6B)
    h = h ^ (h >> wp.uint32(13))
    h = h * wp.uint32(0xC2B2AE35)
    h = h ^ (h >> wp.uint32(16))
    return h


# ---- tree-ensemble inference (cuML FIL, XGBoost's GPU predictor) -----------------------------------


@wp.kernel
def forest_dense(x: wp.array2d(dtype=float), feat: wp.array2d(dtype=int), thr: wp.array2d(dtype=float),
                 leaf: wp.array2d(dtype=float), depth: int, out: wp.array(dtype=float)):
    """Inference of an ensemble of complete decision trees (gradient-boosted trees as cuML's
    FIL and XGBoost's GPU predictor run them): a thread per sample walks every tree from the
    root, ``depth`` levels, the nodes of a tree stored breadth-first (children of node n at
    2n + 1 and 2n + 2, no child index stored), going right where the sample's feature exceeds
    the threshold; the leaves' values summed over the trees."""
    i = wp.tid()
    first_leaf = (1 << depth) - 1
    s = float(0.0)
    for t in range(feat.shape[0]):
        n = int(0)
        for d in range(depth):
            c = 2 * n + 1
            if x[i, feat[t, n]] > thr[t, n]:
                c += 1
            n = c
        s += leaf[t, n - first_leaf]
    out[i] = s


@wp.kernel
def forest_sparse(x: wp.array2d(dtype=float), feat: wp.array(dtype=int), thr: wp.array(dtype=float),
                  left: wp.array(dtype=int), root: wp.array(dtype=int), out: wp.array(dtype=float)):
    """The same ensemble in FIL's sparse layout: every tree's nodes in depth-first order in
    flat arrays (feature, threshold or leaf value, index of the left child; the right child
    follows it), a leaf marked by feature -1; a thread per sample walks each tree from its root
    until a leaf, one dependent child index a level."""
    i = wp.tid()
    s = float(0.0)
    for t in range(root.shape[0]):
        n = root[t]
        f = feat[n]
        while f >= 0:
            c = left[n]
            if x[i, f] > thr[n]:
                c += 1
            n = c
            f = feat[n]
        s += thr[n]
    out[i] = s


# ---- HyperLogLog --------------------------------------------------------------------------------------


@wp.func
def hll_rank(h: wp.uint32):
    """One plus the leading zeros of the hash's low 32 - HLL_P bits (at most 32 - HLL_P + 1)."""
    w = h << wp.uint32(HLL_P)
    r = int(1)
    while r <= 32 - HLL_P and (w & wp.uint32(0x80000000)) == wp.uint32(0):
        w = w << wp.uint32(1)
        r += 1
    return r


@wp.kernel
def hll_global(items: wp.array(dtype=wp.uint32), nthreads: int, reg: wp.array(dtype=int)):
    """HyperLogLog's sketch update (distinct counting in GPU databases and stream analytics): a
    thread per stride of items hashes each (MurmurHash3's finaliser), takes the register index
    from the top HLL_P bits and the rank from the leading zeros of the rest, and raises the
    register by an integer atomic max in global memory (HLL_M registers)."""
    for k in range(wp.tid(), items.shape[0], nthreads):
        h = fmix32(items[k])
        wp.atomic_max(reg, int(h >> wp.uint32(32 - HLL_P)), hll_rank(h))


@wp.kernel
def hll_shared(items: wp.array(dtype=wp.uint32), nthreads: int, reg: wp.array(dtype=int)):
    """The same sketch with a private copy of the registers a block in shared memory (16 KB):
    atomic maxima there, then after a barrier the block's non-zero registers merged into the
    global sketch by atomic max."""
    sh = wp.shared.array(shape=(HLL_M,), dtype=int)
    t = wp.thread_idx()
    nb = wp.block_dim()
    for k in range(t, HLL_M, nb):
        sh[k] = 0
    wp.sync_threads()
    for k in range(wp.tid(), items.shape[0], nthreads):
        h = fmix32(items[k])
        wp.atomic_max(sh, int(h >> wp.uint32(32 - HLL_P)), hll_rank(h))
    wp.sync_threads()
    for k in range(t, HLL_M, nb):
        r = sh[k]
        if r > 0:
            wp.atomic_max(reg, k, r)


# ---- SpGEMM, the symbolic phase ----------------------------------------------------------------------


@wp.func
def spg_slot(c: int):
    return int((wp.uint32(c) * wp.uint32(2654435761)) >> wp.uint32(25))


@wp.kernel
def spgemm_count_global(arow: wp.array(dtype=int), acol: wp.array(dtype=int), brow: wp.array(dtype=int),
                        bcol: wp.array(dtype=int), table: wp.array(dtype=int), nnz: wp.array(dtype=int)):
    """The symbolic phase of row-wise SpGEMM C = A B (Gustavson's method with hash tables, as
    nsparse's and cuSPARSE's GPU SpGEMM count each row of C): a thread per row of A walks the
    rows of B its entries select and inserts every column into a hash table (SPG_SLOTS slots,
    multiplicative hash, linear probing), counting the distinct ones. The table in global
    scratch, slots interleaved across rows (lanes adjacent), cleared by the thread first."""
    i = wp.tid()
    n = nnz.shape[0]
    for s in range(SPG_SLOTS):
        table[s * n + i] = -1
    cnt = int(0)
    for e in range(arow[i], arow[i + 1]):
        k = acol[e]
        for f in range(brow[k], brow[k + 1]):
            c = bcol[f]
            s = spg_slot(c)
            while table[s * n + i] != c and table[s * n + i] != -1:
                s = (s + 1) & (SPG_SLOTS - 1)
            if table[s * n + i] == -1:
                table[s * n + i] = c
                cnt += 1
    nnz[i] = cnt


@wp.kernel
def spgemm_count_shared(arow: wp.array(dtype=int), acol: wp.array(dtype=int), brow: wp.array(dtype=int),
                        bcol: wp.array(dtype=int), nnz: wp.array(dtype=int)):
    """The same count with each thread's table in shared memory (SPG_BLOCK threads a block,
    SPG_BLOCK x SPG_SLOTS ints: 32 KB, slots interleaved across the block's threads)."""
    table = wp.shared.array(shape=(SPG_SLOTS * SPG_BLOCK,), dtype=int)
    t = wp.thread_idx()
    i = wp.tid()
    for s in range(SPG_SLOTS):
        table[s * SPG_BLOCK + t] = -1
    cnt = int(0)
    for e in range(arow[i], arow[i + 1]):
        k = acol[e]
        for f in range(brow[k], brow[k + 1]):
            c = bcol[f]
            s = spg_slot(c)
            while table[s * SPG_BLOCK + t] != c and table[s * SPG_BLOCK + t] != -1:
                s = (s + 1) & (SPG_SLOTS - 1)
            if table[s * SPG_BLOCK + t] == -1:
                table[s * SPG_BLOCK + t] = c
                cnt += 1
    nnz[i] = cnt


# ---- the number-theoretic transform: one radix-2 stage -----------------------------------------------


@wp.kernel
def ntt_stage_mod(a: wp.array(dtype=wp.uint32), tw: wp.array(dtype=wp.uint32), logh: int, twshift: int):
    """A radix-2 Cooley-Tukey stage of the number-theoretic transform modulo NTT_P (the NTT of
    GPU homomorphic-encryption and zero-knowledge libraries): a thread per butterfly of the
    stage with half-size h = 2^logh: u = a[i0], v = a[i1] w mod p, a[i0] = u + v, a[i1] = u - v
    (mod p), the twiddle w from the table of powers of the root at j << twshift. The product
    reduced by a 64-bit remainder."""
    b = wp.tid()
    h = 1 << logh
    j = b & (h - 1)
    i0 = ((b >> logh) << (logh + 1)) + j
    i1 = i0 + h
    p = wp.uint32(NTT_P)
    w = tw[j << twshift]
    u = a[i0]
    v = wp.uint32((wp.uint64(a[i1]) * wp.uint64(w)) % wp.uint64(NTT_P))
    s = u + v
    if s >= p:
        s -= p
    d = u + p - v
    if d >= p:
        d -= p
    a[i0] = s
    a[i1] = d


@wp.kernel
def ntt_stage_shoup(a: wp.array(dtype=wp.uint32), tw: wp.array(dtype=wp.uint32), twq: wp.array(dtype=wp.uint32),
                    logh: int, twshift: int):
    """The same stage with Shoup's modular multiplication: each twiddle comes with its
    precomputed quotient w' = floor(w 2^32 / p); q = the high word of v w', and v w - q p
    (32-bit, wrapping) lies in [0, 2p), one conditional subtraction from the product mod p."""
    b = wp.tid()
    h = 1 << logh
    j = b & (h - 1)
    i0 = ((b >> logh) << (logh + 1)) + j
    i1 = i0 + h
    p = wp.uint32(NTT_P)
    k = j << twshift
    w = tw[k]
    wq = twq[k]
    x = a[i1]
    q = wp.uint32((wp.uint64(x) * wp.uint64(wq)) >> wp.uint64(32))
    v = x * w - q * p
    if v >= p:
        v -= p
    u = a[i0]
    s = u + v
    if s >= p:
        s -= p
    d = u + p - v
    if d >= p:
        d -= p
    a[i0] = s
    a[i1] = d


# ---- SipHash ---------------------------------------------------------------------------------------------


@wp.func
def rotl64(x: wp.uint64, r: int):
    return (x << wp.uint64(r)) | (x >> wp.uint64(64 - r))


@wp.kernel
def siphash(msg: wp.array2d(dtype=wp.uint64), k0: wp.uint64, k1: wp.uint64, crounds: int, drounds: int,
            out: wp.array(dtype=wp.uint64)):
    """SipHash-c-d (the keyed hash of hash tables and of hash-flooding-safe GPU hash joins) of
    16-byte messages: a thread per message, its two 64-bit little-endian words compressed by
    ``crounds`` SipRounds each (additions, rotations and xors of four 64-bit words), the length
    block likewise, then ``drounds`` rounds of finalisation."""
    i = wp.tid()
    v0 = k0 ^ wp.uint64(0x736F6D6570736575)
    v1 = k1 ^ wp.uint64(0x646F72616E646F6D)
    v2 = k0 ^ wp.uint64(0x6C7967656E657261)
    v3 = k1 ^ wp.uint64(0x7465646279746573)
    nw = msg.shape[1]
    for w in range(nw + 1):
        m = wp.uint64(nw * 8) << wp.uint64(56)
        if w < nw:
            m = msg[i, w]
        v3 = v3 ^ m
        for r in range(crounds):
            v0 = v0 + v1
            v1 = rotl64(v1, 13) ^ v0
            v0 = rotl64(v0, 32)
            v2 = v2 + v3
            v3 = rotl64(v3, 16) ^ v2
            v0 = v0 + v3
            v3 = rotl64(v3, 21) ^ v0
            v2 = v2 + v1
            v1 = rotl64(v1, 17) ^ v2
            v2 = rotl64(v2, 32)
        v0 = v0 ^ m
    v2 = v2 ^ wp.uint64(0xFF)
    for r in range(drounds):
        v0 = v0 + v1
        v1 = rotl64(v1, 13) ^ v0
        v0 = rotl64(v0, 32)
        v2 = v2 + v3
        v3 = rotl64(v3, 16) ^ v2
        v0 = v0 + v3
        v3 = rotl64(v3, 21) ^ v0
        v2 = v2 + v1
        v1 = rotl64(v1, 17) ^ v2
        v2 = rotl64(v2, 32)
    out[i] = v0 ^ v1 ^ v2 ^ v3


# ---- varint decoding ---------------------------------------------------------------------------------------


@wp.kernel
def varint_decode(data: wp.array(dtype=wp.uint8), offs: wp.array(dtype=int), out: wp.array(dtype=int)):
    """LEB128 varints with zigzag signs (protobuf's sint32, ORC's and Parquet's integer runs, as
    GPU readers decode them once the values' offsets are known): a thread per value reads bytes
    from its offset, seven bits each, until one without the continuation bit (1 to 5 bytes),
    then undoes the zigzag: (u >> 1) ^ -(u & 1)."""
    i = wp.tid()
    p = offs[i]
    u = wp.uint32(0)
    sh = wp.uint32(0)
    b = wp.uint32(128)
    while b >= wp.uint32(128):
        b = wp.uint32(data[p])
        u = u | ((b & wp.uint32(127)) << sh)
        sh += wp.uint32(7)
        p += 1
    out[i] = int(u >> wp.uint32(1)) ^ (-int(u & wp.uint32(1)))


# ---- phylogenetics: Felsenstein's pruning as BEAGLE computes it ----------------------------------------


@wp.kernel
def beagle_site(l1: wp.array3d(dtype=float), l2: wp.array3d(dtype=float), p1: wp.array3d(dtype=float),
                p2: wp.array3d(dtype=float), lp: wp.array3d(dtype=float)):
    """A node's partial likelihoods from its two children (Felsenstein's pruning algorithm, the
    core of BEAGLE's GPU kernels for MrBayes, BEAST and RAxML), nucleotides (4 states), rate
    categories: for each state s, (sum_j P1[s, j] L1[j]) (sum_j P2[s, j] L2[j]). A thread per
    (category, site pattern) reads the two children's four partials and writes four (32
    multiply-adds); the transition matrices [category, 4, 4] are shared by all sites."""
    c, s = wp.tid()
    a0 = l1[c, s, 0]
    a1 = l1[c, s, 1]
    a2 = l1[c, s, 2]
    a3 = l1[c, s, 3]
    b0 = l2[c, s, 0]
    b1 = l2[c, s, 1]
    b2 = l2[c, s, 2]
    b3 = l2[c, s, 3]
    for k in range(4):
        x = p1[c, k, 0] * a0 + p1[c, k, 1] * a1 + p1[c, k, 2] * a2 + p1[c, k, 3] * a3
        y = p2[c, k, 0] * b0 + p2[c, k, 1] * b1 + p2[c, k, 2] * b2 + p2[c, k, 3] * b3
        lp[c, s, k] = x * y


@wp.kernel
def beagle_state(l1: wp.array3d(dtype=float), l2: wp.array3d(dtype=float), p1: wp.array3d(dtype=float),
                 p2: wp.array3d(dtype=float), lp: wp.array3d(dtype=float)):
    """The same partials a thread per (category, site pattern, state), states on adjacent
    lanes (BEAGLE's 4-state kernels' layout): each thread reads the children's eight partials of
    its site (four lanes reading the same) and writes one value."""
    c, s, k = wp.tid()
    x = (p1[c, k, 0] * l1[c, s, 0] + p1[c, k, 1] * l1[c, s, 1] + p1[c, k, 2] * l1[c, s, 2]
         + p1[c, k, 3] * l1[c, s, 3])
    y = (p2[c, k, 0] * l2[c, s, 0] + p2[c, k, 1] * l2[c, s, 1] + p2[c, k, 2] * l2[c, s, 2]
         + p2[c, k, 3] * l2[c, s, 3])
    lp[c, s, k] = x * y


# ---- genomics: minimap2's (w, k)-minimizers ---------------------------------------------------------------


@wp.kernel
def minimizer_window(seq: wp.array(dtype=wp.uint8), out: wp.array(dtype=wp.uint32)):
    """(w, k)-minimizers of a DNA sequence (minimap2's and Kraken2's seeds; GPU read mappers
    compute them in bulk): for every window of MZ_W consecutive k-mers (k = MZ_K, 2 bits a
    base), the smallest hash (MurmurHash3's finaliser of the 30-bit k-mer; forward strand). A
    thread per window builds its MZ_W + MZ_K - 1 bases' k-mers by shifting and keeps the
    minimum (24 byte loads, 10 hashes a window)."""
    s = wp.tid()
    mask = wp.uint32((1 << (2 * MZ_K)) - 1)
    code = wp.uint32(0)
    for q in range(MZ_K - 1):
        code = (code << wp.uint32(2)) | wp.uint32(seq[s + q])
    best = wp.uint32(0xFFFFFFFF)
    for j in range(MZ_W):
        code = ((code << wp.uint32(2)) | wp.uint32(seq[s + j + MZ_K - 1])) & mask
        best = wp.min(best, fmix32(code))
    out[s] = best


@wp.kernel
def minimizer_rolling(seq: wp.array(dtype=wp.uint8), out: wp.array(dtype=wp.uint32)):
    """The same minimizers a thread per MZ_CHUNK consecutive windows, as minimap2's sketching
    loop runs along a sequence: one new base, one k-mer and one hash a position, the last
    MZ_W hashes in a ring (a local vector), the minimum over the ring per window."""
    c = wp.tid()
    s0 = c * MZ_CHUNK
    nwin = out.shape[0]
    mask = wp.uint32((1 << (2 * MZ_K)) - 1)
    ring = wp.vector(length=MZ_W, dtype=wp.uint32)
    code = wp.uint32(0)
    for q in range(MZ_K - 1):
        code = (code << wp.uint32(2)) | wp.uint32(seq[s0 + q])
    for j in range(MZ_W - 1):
        code = ((code << wp.uint32(2)) | wp.uint32(seq[s0 + j + MZ_K - 1])) & mask
        ring[j] = fmix32(code)
    for w in range(MZ_CHUNK):
        s = s0 + w
        if s < nwin:
            code = ((code << wp.uint32(2)) | wp.uint32(seq[s + MZ_W + MZ_K - 2])) & mask
            ring[(w + MZ_W - 1) % MZ_W] = fmix32(code)
            best = ring[0]
            for j in range(1, MZ_W):
                best = wp.min(best, ring[j])
            out[s] = best


# ---- quantum Monte Carlo: miniQMC's B-spline orbitals ------------------------------------------------------


@wp.func
def bspline_w(t: float, k: int):
    """The uniform cubic B-spline's basis function k (0-3) at t in [0, 1)."""
    r = float(0.0)
    if k == 0:
        r = (1.0 - t) * (1.0 - t) * (1.0 - t) * 0.16666667
    elif k == 1:
        r = (3.0 * t * t * t - 6.0 * t * t + 4.0) * 0.16666667
    elif k == 2:
        r = (-3.0 * t * t * t + 3.0 * t * t + 3.0 * t + 1.0) * 0.16666667
    else:
        r = t * t * t * 0.16666667
    return r


@wp.kernel
def spline_orbitals(coef: wp.array(dtype=float), nx: int, ny: int, nz: int, norb: int,
                    pos: wp.array2d(dtype=float), orb_fastest: int, val: wp.array2d(dtype=float)):
    """miniQMC's (QMCPACK's) single-particle orbitals from tricubic B-splines (einspline): the
    value of orbital o at an electron's position is the sum over the 4 x 4 x 4 coefficients
    around it, weighted by the three coordinates' cubic B-spline weights; the coefficients
    stored [x][y][z][orbital]. A thread per (position, orbital): orbitals on adjacent lanes
    (the coefficients' contiguous dimension) or positions on adjacent lanes."""
    g = wp.tid()
    npos = pos.shape[0]
    o = int(0)
    p = int(0)
    if orb_fastest != 0:
        o = g % norb
        p = g // norb
    else:
        p = g % npos
        o = g // npos
    fx = pos[p, 0]
    fy = pos[p, 1]
    fz = pos[p, 2]
    ix = int(wp.floor(fx))
    iy = int(wp.floor(fy))
    iz = int(wp.floor(fz))
    tx = fx - float(ix)
    ty = fy - float(iy)
    tz = fz - float(iz)
    s = float(0.0)
    for a in range(4):
        wa = bspline_w(tx, a)
        for b in range(4):
            wab = wa * bspline_w(ty, b)
            base = (((ix + a) * ny + iy + b) * nz + iz) * norb + o
            for c in range(4):
                s += wab * bspline_w(tz, c) * coef[base + c * norb]
    val[p, o] = s
