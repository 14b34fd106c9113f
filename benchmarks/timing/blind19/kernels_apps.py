"""Kernels of the nineteenth blind validation set from applications: nearest neighbours in a k-d
tree (Friedman, Bentley and Finkel 1977; a thread a query with its traversal stack in a
per-thread vector or in shared memory, as GPU k-d tree searches keep it); the greatest common
divisors of 64-bit pairs (Euclid's remainders or Stein's binary algorithm, as batch-GCD audits
of RSA moduli run them); Blowfish (Schneier 1993) in counter mode, its S-boxes read from global
memory or copied into shared memory; the light culling of tiled forward rendering (Forward+;
Harada, McKee and Yang 2012: a block a screen tile, its depth range reduced, the lights' spheres
tested against the tile's frustum and appended by shared atomics); RANSAC's hypothesis scoring
(Fischler and Bolles 1981; MSAC's truncated cost, Torr and Zisserman 2000: homographies scored
on all correspondences, a thread or a block a hypothesis); and Aho-Corasick multi-pattern
matching (Aho and Corasick 1975: the full automaton walked over chunks of text, or Lin et al.'s
failureless PFAC, a thread a starting byte), as GPU intrusion-detection and virus-scanning
matchers run them. Written from the algorithms, as kernels.py's; none is a translation of a
suite's source.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x).
"""
import simt as wp

FULL = 0xFFFFFFFF

KD_STACK = 24           # k-d tree: traversal stack entries a thread (the tree is at most 22 levels deep)
KD_BLOCK = 256          # k-d tree: threads a block (the shared-memory stacks' stride)
BF_ROUNDS = 16          # Blowfish: Feistel rounds (18 subkeys)
BF_BLOCK = 256          # Blowfish: threads a block (each copies four S-box words)
LC_T = 16               # light culling: a tile's side (pixels; a block of LC_T x LC_T threads)
LC_THREADS = LC_T * LC_T
LC_WARPS = LC_THREADS // 32
LC_MAX = 512            # light culling: a tile's list at most
RS_BLOCK = 256          # RANSAC: threads a block (the block-a-hypothesis kernel)
RS_WARPS = RS_BLOCK // 32


# ---- k-d tree nearest neighbours -------------------------------------------------------------------------------


@wp.func
def kd_coord(v: wp.vec3, d: int):
    """Coordinate d (0, 1 or 2) of v, by selection."""
    a = v[0]
    if d == 1:
        a = v[1]
    elif d == 2:
        a = v[2]
    return a


@wp.kernel
def kd_nn_local(pts: wp.array(dtype=wp.vec3), queries: wp.array(dtype=wp.vec3), best_i: wp.array(dtype=int),
                best_d: wp.array(dtype=float)):
    """The nearest point to a query a thread, in a complete k-d tree stored implicitly (node i's
    children at 2i + 1 and 2i + 2, split on axis depth mod 3): descend to the side of each
    split the query is on, pushing the far child with its squared distance to the splitting
    plane; then pop until an entry could hold a nearer point. The stack (node << 2 | axis, and
    the bound) is a pair of per-thread vectors indexed by the stack pointer. The index and
    squared distance of the nearest point are stored."""
    i = wp.tid()
    n = pts.shape[0]
    q = queries[i]
    st_node = wp.vector(length=KD_STACK, dtype=int)
    st_d2 = wp.vector(length=KD_STACK, dtype=float)
    sp = int(0)
    best = float(3.0e38)
    bi = int(-1)
    node = int(0)
    ax = int(0)
    while node < n:
        p = pts[node]
        dd = wp.length_sq(q - p)
        if dd < best:
            best = dd
            bi = node
        diff = kd_coord(q, ax) - kd_coord(p, ax)
        near = 2 * node + 1
        far = near + 1
        if diff > 0.0:
            near = far
            far = near - 1
        nax = ax + 1
        if nax == 3:
            nax = 0
        if far < n:
            st_node[sp] = (far << 2) | nax
            st_d2[sp] = diff * diff
            sp += 1
        node = near
        ax = nax
        while node >= n and sp > 0:
            sp -= 1
            if st_d2[sp] < best:
                node = st_node[sp] >> 2
                ax = st_node[sp] & 3
    best_i[i] = bi
    best_d[i] = best


@wp.kernel
def kd_nn_shared(pts: wp.array(dtype=wp.vec3), queries: wp.array(dtype=wp.vec3), best_i: wp.array(dtype=int),
                 best_d: wp.array(dtype=float)):
    """The same search with each thread's stack in shared memory (entry s of thread t at
    s KD_BLOCK + t: 48 KB a block of KD_BLOCK threads, so shared memory bounds the blocks an
    SM holds)."""
    sh_node = wp.shared.array(shape=(KD_STACK * KD_BLOCK,), dtype=int)
    sh_d2 = wp.shared.array(shape=(KD_STACK * KD_BLOCK,), dtype=float)
    i = wp.tid()
    t = wp.thread_idx()
    n = pts.shape[0]
    q = queries[i]
    sp = int(0)
    best = float(3.0e38)
    bi = int(-1)
    node = int(0)
    ax = int(0)
    while node < n:
        p = pts[node]
        dd = wp.length_sq(q - p)
        if dd < best:
            best = dd
            bi = node
        diff = kd_coord(q, ax) - kd_coord(p, ax)
        near = 2 * node + 1
        far = near + 1
        if diff > 0.0:
            near = far
            far = near - 1
        nax = ax + 1
        if nax == 3:
            nax = 0
        if far < n:
            sh_node[sp * KD_BLOCK + t] = (far << 2) | nax
            sh_d2[sp * KD_BLOCK + t] = diff * diff
            sp += 1
        node = near
        ax = nax
        while node >= n and sp > 0:
            sp -= 1
            if sh_d2[sp * KD_BLOCK + t] < best:
                node = sh_node[sp * KD_BLOCK + t] >> 2
                ax = sh_node[sp * KD_BLOCK + t] & 3
    best_i[i] = bi
    best_d[i] = best


# ---- greatest common divisors ----------------------------------------------------------------------------------


@wp.kernel
def gcd_euclid(a: wp.array(dtype=wp.uint64), b: wp.array(dtype=wp.uint64), g: wp.array(dtype=wp.uint64)):
    """gcd(a, b) of 64-bit unsigned pairs by Euclid's algorithm: (x, y) <- (y, x mod y) until y
    is 0."""
    i = wp.tid()
    x = a[i]
    y = b[i]
    while y != wp.uint64(0):
        r = x % y
        x = y
        y = r
    g[i] = x


@wp.func
def ctz64(v: wp.uint64):
    """The trailing zero bits of v (v != 0): the population count of (v & -v) - 1."""
    return wp.bit_count((v & (wp.uint64(0) - v)) - wp.uint64(1))


@wp.kernel
def gcd_binary(a: wp.array(dtype=wp.uint64), b: wp.array(dtype=wp.uint64), g: wp.array(dtype=wp.uint64)):
    """The same by Stein's binary algorithm: the common power of two set aside, both odd, the
    smaller subtracted from the larger and the difference's factors of two shifted out, until
    it is 0."""
    i = wp.tid()
    x = a[i]
    y = b[i]
    if x == wp.uint64(0) or y == wp.uint64(0):
        g[i] = x | y
    else:
        sh = ctz64(x | y)
        x = x >> wp.uint64(ctz64(x))
        while y != wp.uint64(0):
            y = y >> wp.uint64(ctz64(y))
            if x > y:
                s = x
                x = y
                y = s
            y = y - x
        g[i] = x << wp.uint64(sh)


# ---- Blowfish in counter mode ----------------------------------------------------------------------------------


@wp.func
def bf_f(sbox: wp.array(dtype=wp.uint32), x: wp.uint32):
    """Blowfish's round function: ((S0[a] + S1[b]) xor S2[c]) + S3[d] for x's bytes a b c d
    (the four S-boxes one after another in sbox)."""
    a = sbox[int(x >> wp.uint32(24))]
    b = sbox[256 + int((x >> wp.uint32(16)) & wp.uint32(255))]
    c = sbox[512 + int((x >> wp.uint32(8)) & wp.uint32(255))]
    d = sbox[768 + int(x & wp.uint32(255))]
    return ((a + b) ^ c) + d


@wp.kernel
def bf_ctr_global(pt: wp.array(dtype=wp.uint32), parr: wp.array(dtype=wp.uint32), sbox: wp.array(dtype=wp.uint32),
                  nonce: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32)):
    """Blowfish in counter mode, a thread a 64-bit block: (nonce high, nonce low xor i)
    encrypted under the expanded key (18 subkeys, four 256-word S-boxes, all read from global
    memory), XORed into the plaintext's two words."""
    i = wp.tid()
    xl = nonce[0]
    xr = nonce[1] ^ wp.uint32(i)
    for r in range(BF_ROUNDS):
        xl = xl ^ parr[r]
        xr = xr ^ bf_f(sbox, xl)
        s = xl
        xl = xr
        xr = s
    s = xl
    xl = xr ^ parr[BF_ROUNDS + 1]
    xr = s ^ parr[BF_ROUNDS]
    out[2 * i] = pt[2 * i] ^ xl
    out[2 * i + 1] = pt[2 * i + 1] ^ xr


@wp.kernel
def bf_ctr_shared(pt: wp.array(dtype=wp.uint32), parr: wp.array(dtype=wp.uint32), sbox: wp.array(dtype=wp.uint32),
                  nonce: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32)):
    """The same with the block's copy of the S-boxes and subkeys in shared memory (4 KB and 72
    bytes, copied before a barrier)."""
    sh = wp.shared.array(shape=(1024,), dtype=wp.uint32)
    sp = wp.shared.array(shape=(BF_ROUNDS + 2,), dtype=wp.uint32)
    i = wp.tid()
    t = wp.thread_idx()
    for k in range(4):
        sh[k * BF_BLOCK + t] = sbox[k * BF_BLOCK + t]
    if t < BF_ROUNDS + 2:
        sp[t] = parr[t]
    wp.sync_threads()
    xl = nonce[0]
    xr = nonce[1] ^ wp.uint32(i)
    for r in range(BF_ROUNDS):
        xl = xl ^ sp[r]
        a = sh[int(xl >> wp.uint32(24))]
        b = sh[256 + int((xl >> wp.uint32(16)) & wp.uint32(255))]
        c = sh[512 + int((xl >> wp.uint32(8)) & wp.uint32(255))]
        d = sh[768 + int(xl & wp.uint32(255))]
        xr = xr ^ (((a + b) ^ c) + d)
        s = xl
        xl = xr
        xr = s
    s = xl
    xl = xr ^ sp[BF_ROUNDS + 1]
    xr = s ^ sp[BF_ROUNDS]
    out[2 * i] = pt[2 * i] ^ xl
    out[2 * i + 1] = pt[2 * i + 1] ^ xr


# ---- tiled light culling (Forward+) ----------------------------------------------------------------------------


@wp.kernel
def light_cull(depth: wp.array2d(dtype=float), lights: wp.array(dtype=wp.vec4), focal: float, cx: float, cy: float,
               count: wp.array(dtype=int), lists: wp.array(dtype=int)):
    """A block a 16 x 16 screen tile of a pinhole camera (focal length and principal point in
    pixels; view depth z > 0 along the axis): the tile's depth range (each thread's pixel,
    minima and maxima by warp shuffles then across warps in shared memory), then every light
    (view-space centre and radius) tested against the tile's four side planes through the eye
    and its depth range, the visible ones appended to the tile's list in shared memory by an
    atomic counter; the count (even beyond LC_MAX) and the list (at most LC_MAX) stored."""
    wmin = wp.shared.array(shape=(LC_WARPS,), dtype=float)
    wmax = wp.shared.array(shape=(LC_WARPS,), dtype=float)
    cnt = wp.shared.array(shape=(1,), dtype=int)
    lst = wp.shared.array(shape=(LC_MAX,), dtype=int)
    y, x = wp.tid()
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    t = ty * LC_T + tx
    tile = by * (depth.shape[1] // LC_T) + bx
    zmin = depth[y, x]
    zmax = zmin
    for o in range(5):
        zmin = wp.min(zmin, wp.shfl_xor_sync(FULL, zmin, 16 >> o))
        zmax = wp.max(zmax, wp.shfl_xor_sync(FULL, zmax, 16 >> o))
    if (t & 31) == 0:
        wmin[t >> 5] = zmin
        wmax[t >> 5] = zmax
    if t == 0:
        cnt[0] = 0
    wp.sync_threads()
    for w in range(LC_WARPS):
        zmin = wp.min(zmin, wmin[w])
        zmax = wp.max(zmax, wmax[w])
    a0 = (float(bx * LC_T) - cx) / focal
    a1 = (float(bx * LC_T + LC_T) - cx) / focal
    b0 = (float(by * LC_T) - cy) / focal
    b1 = (float(by * LC_T + LC_T) - cy) / focal
    na0 = 1.0 / wp.sqrt(1.0 + a0 * a0)
    na1 = 1.0 / wp.sqrt(1.0 + a1 * a1)
    nb0 = 1.0 / wp.sqrt(1.0 + b0 * b0)
    nb1 = 1.0 / wp.sqrt(1.0 + b1 * b1)
    for l in range(t, lights.shape[0], LC_THREADS):
        s = lights[l]
        r = s[3]
        vis = s[2] + r >= zmin and s[2] - r <= zmax
        vis = vis and (s[0] - a0 * s[2]) * na0 >= -r and (a1 * s[2] - s[0]) * na1 >= -r
        vis = vis and (s[1] - b0 * s[2]) * nb0 >= -r and (b1 * s[2] - s[1]) * nb1 >= -r
        if vis:
            k = wp.atomic_add(cnt, 0, 1)
            if k < LC_MAX:
                lst[k] = l
    wp.sync_threads()
    nv = cnt[0]
    if t == 0:
        count[tile] = nv
    for k in range(t, wp.min(nv, LC_MAX), LC_THREADS):
        lists[tile * LC_MAX + k] = lst[k]


# ---- RANSAC's hypothesis scoring -------------------------------------------------------------------------------


@wp.func
def rs_err(h: wp.mat33, m: wp.vec4):
    """The squared transfer error of correspondence m = (x, y, u, v) under homography h: (u, v)
    against h (x, y, 1) dehomogenised."""
    w = h[2, 0] * m[0] + h[2, 1] * m[1] + h[2, 2]
    du = (h[0, 0] * m[0] + h[0, 1] * m[1] + h[0, 2]) / w - m[2]
    dv = (h[1, 0] * m[0] + h[1, 1] * m[1] + h[1, 2]) / w - m[3]
    return du * du + dv * dv


@wp.func
def rs_hyp(hyp: wp.array2d(dtype=float), k: int):
    """Hypothesis k's homography (row-major, nine entries) as a 3 x 3 matrix."""
    return wp.mat33(hyp[k, 0], hyp[k, 1], hyp[k, 2], hyp[k, 3], hyp[k, 4], hyp[k, 5], hyp[k, 6], hyp[k, 7],
                    hyp[k, 8])


@wp.kernel
def ransac_thread(corr: wp.array(dtype=wp.vec4), hyp: wp.array2d(dtype=float), thr2: float,
                  inliers: wp.array(dtype=int), cost: wp.array(dtype=float)):
    """A thread a homography hypothesis scored on every correspondence in turn (the whole warp
    reading the same one): its inliers (squared error below thr2) and MSAC's cost, the sum of
    min(error, thr2)."""
    k = wp.tid()
    h = rs_hyp(hyp, k)
    cnt = int(0)
    c = float(0.0)
    for j in range(corr.shape[0]):
        e = rs_err(h, corr[j])
        if e < thr2:
            cnt += 1
            c += e
        else:
            c += thr2
    inliers[k] = cnt
    cost[k] = c


@wp.kernel
def ransac_block(corr: wp.array(dtype=wp.vec4), hyp: wp.array2d(dtype=float), thr2: float,
                 inliers: wp.array(dtype=int), cost: wp.array(dtype=float)):
    """The same scores a block a hypothesis: the correspondences spread over the block's
    threads, each thread's count and cost reduced by butterfly shuffles, then across the warps
    in shared memory."""
    scnt = wp.shared.array(shape=(RS_WARPS,), dtype=int)
    scost = wp.shared.array(shape=(RS_WARPS,), dtype=float)
    k = wp.block_idx()
    t = wp.thread_idx()
    h = rs_hyp(hyp, k)
    cnt = int(0)
    c = float(0.0)
    for j in range(t, corr.shape[0], RS_BLOCK):
        e = rs_err(h, corr[j])
        if e < thr2:
            cnt += 1
            c += e
        else:
            c += thr2
    for o in range(5):
        cnt += wp.shfl_xor_sync(FULL, cnt, 16 >> o)
        c += wp.shfl_xor_sync(FULL, c, 16 >> o)
    if (t & 31) == 0:
        scnt[t >> 5] = cnt
        scost[t >> 5] = c
    wp.sync_threads()
    if t == 0:
        for w in range(1, RS_WARPS):
            cnt += scnt[w]
            c += scost[w]
        inliers[k] = cnt
        cost[k] = c


# ---- Aho-Corasick matching -------------------------------------------------------------------------------------


@wp.kernel
def ac_dfa(text: wp.array(dtype=wp.uint8), delta: wp.array2d(dtype=int), term: wp.array(dtype=int),
           dlink: wp.array(dtype=int), chunk: int, maxlen: int, hits: wp.array(dtype=int)):
    """Aho-Corasick's automaton (goto and failure folded into a full transition table delta)
    over a chunk of the text a thread: started maxlen - 1 bytes before the chunk so that it
    is in the right state at the chunk's first byte, it counts every pattern ending inside the
    chunk (the state's own pattern, term, and those along its dictionary-suffix links, dlink)
    into hits by integer atomics."""
    k = wp.tid()
    n = text.shape[0]
    start = k * chunk
    end = wp.min(start + chunk, n)
    s = int(0)
    for p in range(wp.max(start - maxlen + 1, 0), end):
        s = delta[s, int(text[p])]
        if p >= start:
            u = s
            if term[u] < 0:
                u = dlink[u]
            while u >= 0:
                wp.atomic_add(hits, term[u], 1)
                u = dlink[u]


@wp.kernel
def ac_pfac(text: wp.array(dtype=wp.uint8), gto: wp.array2d(dtype=int), term: wp.array(dtype=int),
            hits: wp.array(dtype=int)):
    """Lin et al.'s failureless Aho-Corasick (PFAC), a thread a starting byte: the trie's goto
    function followed from the root until it has no transition or the text ends, every
    pattern met on the way (one starting at this byte) counted into hits by an atomic."""
    i = wp.tid()
    n = text.shape[0]
    s = int(0)
    p = i
    while p < n:
        s = gto[s, int(text[p])]
        if s < 0:
            break
        if term[s] >= 0:
            wp.atomic_add(hits, term[s], 1)
        p += 1
