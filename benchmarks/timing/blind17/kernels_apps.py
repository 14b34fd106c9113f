"""Kernels of the seventeenth blind validation set from applications: the RC4 keystream of many
keys (key-search and password-recovery codes: a thread a key, its 256-entry state table in
shared memory as bytes or as 32-bit words); the exact squared Euclidean distance transform of
Felzenszwalb and Huttenlocher (the lower envelope of parabolas along each line of an image, a
thread a line, along rows or along columns); Amanatides and Woo's voxel traversal (a 3-D DDA a
ray through an occupancy grid to its first occupied voxel, as voxel renderers and ray-casting
visibility codes walk it); BLAST's ungapped X-drop extension of word hits under BLOSUM62 (a
thread a hit, the score matrix in shared or global memory); decimal text fields parsed into
doubles, as GPU CSV readers do (a thread a fixed-width field, read a byte or a 32-bit word at a
time). Written from the algorithms, as kernels.py's; none is a translation of a suite's source.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x).
"""
import simt as wp

RC4_BLOCK = 32          # RC4: threads a block (keys), each with 256 entries of shared memory
RC4_DROP = 256          # RC4: keystream bytes discarded (RC4-drop[256])
RC4_WORDS = 8           # RC4: keystream words kept (32 bytes)
EDT_INF = 1.0e20        # distance transform: f away from the features
BL_ALPHA = 20           # BLAST: amino acids (ARNDCQEGHILKMFPSTWYV)
BL_BLOCK = 128          # BLAST: threads a block
AF_W = 16               # decimal parsing: bytes a field

# BLOSUM62 on the 20 amino acids in the order ARNDCQEGHILKMFPSTWYV (Henikoff and Henikoff, 1992)
BLOSUM62 = [
    4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0,
    -1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3,
    -2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3,
    -2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3,
    0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1,
    -1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2,
    -1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2,
    0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3,
    -2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3,
    -1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3,
    -1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1,
    -1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2,
    -1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1,
    -2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1,
    -1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2,
    1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2,
    0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0,
    -3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3,
    -2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1,
    0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4,
]


# ---- RC4 keystreams (a thread a key, the state table in shared memory) ----------------------------------


@wp.kernel
def rc4_bytes(key: wp.array2d(dtype=wp.uint32), out: wp.array2d(dtype=wp.uint32)):
    """RC4 of a 16-byte key a thread (four little-endian words): the key schedule over the
    256-entry permutation, RC4_DROP bytes of keystream discarded, the next 4 RC4_WORDS bytes
    stored as words; the thread's table in shared memory as bytes, entry e of thread t at
    e * RC4_BLOCK + t (8 KB a block)."""
    st = wp.shared.array(shape=(256 * RC4_BLOCK,), dtype=wp.uint8)
    k = wp.tid()
    t = wp.thread_idx()
    kw = wp.vector(length=4, dtype=wp.uint32)
    for w in range(4):
        kw[w] = key[k, w]
    for e in range(256):
        st[e * RC4_BLOCK + t] = wp.uint8(e)
    j = int(0)
    for e in range(256):
        kb = int((kw[(e >> 2) & 3] >> wp.uint32((e & 3) * 8)) & wp.uint32(255))
        se = int(st[e * RC4_BLOCK + t])
        j = (j + se + kb) & 255
        st[e * RC4_BLOCK + t] = st[j * RC4_BLOCK + t]
        st[j * RC4_BLOCK + t] = wp.uint8(se)
    ii = int(0)
    jj = int(0)
    for n in range(RC4_DROP):
        ii = (ii + 1) & 255
        si = int(st[ii * RC4_BLOCK + t])
        jj = (jj + si) & 255
        sj = int(st[jj * RC4_BLOCK + t])
        st[ii * RC4_BLOCK + t] = wp.uint8(sj)
        st[jj * RC4_BLOCK + t] = wp.uint8(si)
    for w in range(RC4_WORDS):
        word = wp.uint32(0)
        for bb in range(4):
            ii = (ii + 1) & 255
            si = int(st[ii * RC4_BLOCK + t])
            jj = (jj + si) & 255
            sj = int(st[jj * RC4_BLOCK + t])
            st[ii * RC4_BLOCK + t] = wp.uint8(sj)
            st[jj * RC4_BLOCK + t] = wp.uint8(si)
            ks = wp.uint32(st[((si + sj) & 255) * RC4_BLOCK + t])
            word = word | (ks << wp.uint32(8 * bb))
        out[k, w] = word


@wp.kernel
def rc4_words(key: wp.array2d(dtype=wp.uint32), out: wp.array2d(dtype=wp.uint32)):
    """The same RC4 with the table's entries as 32-bit ints (32 KB of shared memory a block:
    fewer blocks fit on an SM)."""
    st = wp.shared.array(shape=(256 * RC4_BLOCK,), dtype=int)
    k = wp.tid()
    t = wp.thread_idx()
    kw = wp.vector(length=4, dtype=wp.uint32)
    for w in range(4):
        kw[w] = key[k, w]
    for e in range(256):
        st[e * RC4_BLOCK + t] = e
    j = int(0)
    for e in range(256):
        kb = int((kw[(e >> 2) & 3] >> wp.uint32((e & 3) * 8)) & wp.uint32(255))
        se = st[e * RC4_BLOCK + t]
        j = (j + se + kb) & 255
        st[e * RC4_BLOCK + t] = st[j * RC4_BLOCK + t]
        st[j * RC4_BLOCK + t] = se
    ii = int(0)
    jj = int(0)
    for n in range(RC4_DROP):
        ii = (ii + 1) & 255
        si = st[ii * RC4_BLOCK + t]
        jj = (jj + si) & 255
        sj = st[jj * RC4_BLOCK + t]
        st[ii * RC4_BLOCK + t] = sj
        st[jj * RC4_BLOCK + t] = si
    for w in range(RC4_WORDS):
        word = wp.uint32(0)
        for bb in range(4):
            ii = (ii + 1) & 255
            si = st[ii * RC4_BLOCK + t]
            jj = (jj + si) & 255
            sj = st[jj * RC4_BLOCK + t]
            st[ii * RC4_BLOCK + t] = sj
            st[jj * RC4_BLOCK + t] = si
            ks = wp.uint32(st[((si + sj) & 255) * RC4_BLOCK + t])
            word = word | (ks << wp.uint32(8 * bb))
        out[k, w] = word


# ---- the squared Euclidean distance transform (Felzenszwalb and Huttenlocher) --------------------------------


@wp.kernel
def edt_lines(f: wp.array(dtype=float), n: int, nlines: int, lpi: int, isz: int, sl: int, sk: int,
              v: wp.array(dtype=int), z: wp.array(dtype=float), d: wp.array(dtype=float)):
    """The 1-D squared distance transform d(q) = min_p (q - p)^2 + f(p) of a line of n
    samples, a thread a line, by the lower envelope of the parabolas rooted at the samples
    (Felzenszwalb and Huttenlocher): a left-to-right pass keeping the envelope's parabolas v and
    their boundaries z (a stack, popped while the new parabola's intersection lies left of the
    top's boundary), then a pass reading it off. Sample q of line l at (l / lpi) * isz +
    (l % lpi) * sl + q * sk (rows: sl = width, sk = 1; columns: sl = 1, sk = width); the
    envelope's scratch entry k of line l at k * nlines + l."""
    l = wp.tid()
    base = (l // lpi) * isz + (l % lpi) * sl
    k = int(0)
    v[l] = 0
    z[l] = -EDT_INF
    z[nlines + l] = EDT_INF
    for q in range(1, n):
        fq = f[base + q * sk] + float(q * q)
        vk = v[k * nlines + l]
        s = (fq - (f[base + vk * sk] + float(vk * vk))) / float(2 * q - 2 * vk)
        while s <= z[k * nlines + l]:
            k -= 1
            vk = v[k * nlines + l]
            s = (fq - (f[base + vk * sk] + float(vk * vk))) / float(2 * q - 2 * vk)
        k += 1
        v[k * nlines + l] = q
        z[k * nlines + l] = s
        z[(k + 1) * nlines + l] = EDT_INF
    k = 0
    for q in range(n):
        while z[(k + 1) * nlines + l] < float(q):
            k += 1
        vk = v[k * nlines + l]
        d[base + q * sk] = float((q - vk) * (q - vk)) + f[base + vk * sk]


# ---- Amanatides and Woo's voxel traversal -----------------------------------------------------------------


@wp.kernel
def voxel_dda(occ: wp.array(dtype=wp.uint8), g: int, org: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
              hit: wp.array(dtype=int), thit: wp.array(dtype=float)):
    """The first occupied voxel along a ray a thread, in a g^3 grid of unit voxels (x fastest):
    the ray clipped to the grid's box by the slab test, then Amanatides and Woo's traversal
    (the parameter of the next x, y and z boundary kept, the axis with the nearest one stepped);
    the voxel's index and the ray parameter where it is entered stored, -1 and -1 for a miss."""
    r = wp.tid()
    o = org[r]
    dv = dirs[r]
    gf = float(g)
    ix_ = 1.0 / dv[0]
    iy_ = 1.0 / dv[1]
    iz_ = 1.0 / dv[2]
    tx0 = (0.0 - o[0]) * ix_
    tx1 = (gf - o[0]) * ix_
    ty0 = (0.0 - o[1]) * iy_
    ty1 = (gf - o[1]) * iy_
    tz0 = (0.0 - o[2]) * iz_
    tz1 = (gf - o[2]) * iz_
    tin = wp.max(wp.max(wp.min(tx0, tx1), wp.min(ty0, ty1)), wp.min(tz0, tz1))
    tout = wp.min(wp.min(wp.max(tx0, tx1), wp.max(ty0, ty1)), wp.max(tz0, tz1))
    tin = wp.max(tin, 0.0)
    found = int(-1)
    tf = float(-1.0)
    if tin < tout:
        px = o[0] + dv[0] * tin
        py = o[1] + dv[1] * tin
        pz = o[2] + dv[2] * tin
        x = wp.clamp(int(wp.floor(px)), 0, g - 1)
        y = wp.clamp(int(wp.floor(py)), 0, g - 1)
        zz = wp.clamp(int(wp.floor(pz)), 0, g - 1)
        sx = int(1)
        sy = int(1)
        sz = int(1)
        if dv[0] < 0.0:
            sx = -1
        if dv[1] < 0.0:
            sy = -1
        if dv[2] < 0.0:
            sz = -1
        tmx = (float(x + (sx + 1) // 2) - o[0]) * ix_
        tmy = (float(y + (sy + 1) // 2) - o[1]) * iy_
        tmz = (float(zz + (sz + 1) // 2) - o[2]) * iz_
        tdx = wp.abs(ix_)
        tdy = wp.abs(iy_)
        tdz = wp.abs(iz_)
        t = tin
        inside = True
        while inside:
            if occ[(zz * g + y) * g + x] != wp.uint8(0):
                found = (zz * g + y) * g + x
                tf = t
                inside = False
            elif tmx < tmy and tmx < tmz:
                x += sx
                t = tmx
                tmx += tdx
                inside = x >= 0 and x < g
            elif tmy < tmz:
                y += sy
                t = tmy
                tmy += tdy
                inside = y >= 0 and y < g
            else:
                zz += sz
                t = tmz
                tmz += tdz
                inside = zz >= 0 and zz < g
    hit[r] = found
    thit[r] = tf


# ---- BLAST: ungapped X-drop extension of word hits ----------------------------------------------------------


@wp.kernel
def xdrop_global(qry: wp.array(dtype=wp.uint8), sbj: wp.array(dtype=wp.uint8), qpos: wp.array(dtype=int),
                 spos: wp.array(dtype=int), mat: wp.array(dtype=int), word: int, xdrop: int,
                 score: wp.array(dtype=int), ext_r: wp.array(dtype=int), ext_l: wp.array(dtype=int)):
    """BLAST's ungapped extension of a word hit a thread: the word's score, then to the right
    and to the left along the diagonal the running score under BLOSUM62 (read from global
    memory), kept at its best and stopped once it falls more than xdrop below it; the hit's
    score (word plus both best gains) and the two extension lengths stored."""
    h = wp.tid()
    qp = qpos[h]
    sp = spos[h]
    nq = qry.shape[0]
    ns = sbj.shape[0]
    sc = int(0)
    for k in range(word):
        sc += mat[int(qry[qp + k]) * BL_ALPHA + int(sbj[sp + k])]
    run = int(0)
    best = int(0)
    br = int(0)
    k = word
    while qp + k < nq and sp + k < ns:
        run += mat[int(qry[qp + k]) * BL_ALPHA + int(sbj[sp + k])]
        k += 1
        if run > best:
            best = run
            br = k - word
        elif best - run > xdrop:
            break
    run = 0
    bestl = int(0)
    bl = int(0)
    k = 1
    while qp - k >= 0 and sp - k >= 0:
        run += mat[int(qry[qp - k]) * BL_ALPHA + int(sbj[sp - k])]
        if run > bestl:
            bestl = run
            bl = k
        elif bestl - run > xdrop:
            break
        k += 1
    score[h] = sc + best + bestl
    ext_r[h] = br
    ext_l[h] = bl


@wp.kernel
def xdrop_shared(qry: wp.array(dtype=wp.uint8), sbj: wp.array(dtype=wp.uint8), qpos: wp.array(dtype=int),
                 spos: wp.array(dtype=int), mat: wp.array(dtype=int), word: int, xdrop: int,
                 score: wp.array(dtype=int), ext_r: wp.array(dtype=int), ext_l: wp.array(dtype=int)):
    """The same extension with BLOSUM62 copied into shared memory at the block's start."""
    sm = wp.shared.array(shape=(BL_ALPHA * BL_ALPHA,), dtype=int)
    h = wp.tid()
    t = wp.thread_idx()
    for e in range(t, BL_ALPHA * BL_ALPHA, BL_BLOCK):
        sm[e] = mat[e]
    wp.sync_threads()
    qp = qpos[h]
    sp = spos[h]
    nq = qry.shape[0]
    ns = sbj.shape[0]
    sc = int(0)
    for k in range(word):
        sc += sm[int(qry[qp + k]) * BL_ALPHA + int(sbj[sp + k])]
    run = int(0)
    best = int(0)
    br = int(0)
    k = word
    while qp + k < nq and sp + k < ns:
        run += sm[int(qry[qp + k]) * BL_ALPHA + int(sbj[sp + k])]
        k += 1
        if run > best:
            best = run
            br = k - word
        elif best - run > xdrop:
            break
    run = 0
    bestl = int(0)
    bl = int(0)
    k = 1
    while qp - k >= 0 and sp - k >= 0:
        run += sm[int(qry[qp - k]) * BL_ALPHA + int(sbj[sp - k])]
        if run > bestl:
            bestl = run
            bl = k
        elif bestl - run > xdrop:
            break
        k += 1
    score[h] = sc + best + bestl
    ext_r[h] = br
    ext_l[h] = bl


# ---- decimal text fields parsed into doubles (GPU CSV readers) ------------------------------------------------


@wp.kernel
def atof_bytes(buf: wp.array(dtype=wp.uint8), out: wp.array(dtype=wp.float64)):
    """A field of AF_W bytes a thread ([-]digits[.digits], padded with spaces), read a byte at a
    time until the first space: the digits into a 64-bit integer, the fraction's digits counted
    as a power of ten (exact in fp64), the value their quotient (correctly rounded)."""
    i = wp.tid()
    base = i * AF_W
    m = wp.int64(0)
    p = wp.float64(1.0)
    neg = False
    frac = False
    for k in range(AF_W):
        c = int(buf[base + k])
        if c == 32:
            break
        if c == 45:
            neg = True
        elif c == 46:
            frac = True
        else:
            m = m * wp.int64(10) + wp.int64(c - 48)
            if frac:
                p = p * wp.float64(10.0)
    val = wp.float64(m) / p
    if neg:
        val = -val
    out[i] = val


@wp.kernel
def atof_words(buf: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.float64)):
    """The same parse with the field read as AF_W / 4 little-endian 32-bit words, the bytes
    taken out of them by shifts."""
    i = wp.tid()
    base = i * (AF_W // 4)
    m = wp.int64(0)
    p = wp.float64(1.0)
    neg = False
    frac = False
    done = False
    for w in range(AF_W // 4):
        if not done:
            word = buf[base + w]
            for bb in range(4):
                c = int((word >> wp.uint32(8 * bb)) & wp.uint32(255))
                if c == 32:
                    done = True
                if not done:
                    if c == 45:
                        neg = True
                    elif c == 46:
                        frac = True
                    else:
                        m = m * wp.int64(10) + wp.int64(c - 48)
                        if frac:
                            p = p * wp.float64(10.0)
    val = wp.float64(m) / p
    if neg:
        val = -val
    out[i] = val
