"""Kernels of the eighteenth blind validation set from applications: rANS decoding (Duda's
asymmetric numeral systems, as GPU entropy decoders run it: a thread an independent stream, or
a warp decoding 32 interleaved states of one stream with the renormalisation words handed out
by a ballot); Speck (Beaulieu et al., NSA 2013) in counter mode, Speck128/128 on 64-bit words or
Speck64/128 on 32-bit words; lookups in a cuckoo hash table (Pagh and Rodler; Alcantara et al.'s
GPU cuckoo hashing: three hash functions, a key in one of its three slots); line-segment
clipping against a rectangle by Cohen and Sutherland's outcodes or by Liang and Barsky's
parametric form; the local entropy of an image (scikit-image's and MATLAB's entropy filter:
the histogram of a 5 x 5 window a pixel, read from global memory or from a shared-memory tile);
Count-Min sketch updates (Cormode and Muthukrishnan: four hashed counters an item, integer
atomics). Written from the algorithms, as kernels.py's; none is a translation of a suite's
source.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x).
"""
from typing import Any

import simt as wp

FULL = 0xFFFFFFFF

RANS_SCALE = 12         # rANS: probability bits (frequencies sum to 4096)
RANS_MASK = (1 << RANS_SCALE) - 1
RANS_L = 1 << 16        # rANS: the state's lower bound (32-bit state, 16-bit renormalisation)
CK_EMPTY = 0xFFFFFFFF   # cuckoo hashing: the empty slot's key (never a key)
CK_HASHES = 3           # cuckoo hashing: hash functions
ENT_R = 2               # local entropy: the window's radius (5 x 5)
ENT_W = 2 * ENT_R + 1
ENT_BINS = 16           # local entropy: grey levels
ENT_BY = 8              # local entropy: block rows
ENT_BX = 32             # local entropy: block columns
ENT_TY = ENT_BY + 2 * ENT_R
ENT_TX = ENT_BX + 2 * ENT_R
ENT_THREADS = ENT_BY * ENT_BX
CMS_D = 4               # Count-Min: rows (hash functions)


# ---- rANS decoding -----------------------------------------------------------------------------------------


@wp.kernel
def rans_thread(words: wp.array(dtype=wp.uint16), start: wp.array(dtype=int), tab: wp.array(dtype=wp.uint32),
                nsym: int, out: wp.array(dtype=wp.uint32)):
    """A thread an rANS stream of nsym symbols (a multiple of 4): the 32-bit state from the
    stream's first two 16-bit words, then per symbol the slot x mod 4096 looked up in tab (the
    symbol, its frequency and its cumulative frequency in one word), the state advanced
    x = f (x >> 12) + slot - cum, and one 16-bit word shifted in when x falls below 2^16; the
    symbols packed four to a word into the stream's part of out."""
    k = wp.tid()
    p = start[k]
    x = wp.uint32(words[p]) | (wp.uint32(words[p + 1]) << wp.uint32(16))
    p += 2
    nw = nsym // 4
    for j in range(nw):
        packed = wp.uint32(0)
        for b in range(4):
            slot = x & wp.uint32(RANS_MASK)
            e = tab[int(slot)]
            f = (e >> wp.uint32(8)) & wp.uint32(RANS_MASK)
            x = f * (x >> wp.uint32(RANS_SCALE)) + slot - (e >> wp.uint32(20))
            if x < wp.uint32(RANS_L):
                x = (x << wp.uint32(16)) | wp.uint32(words[p])
                p += 1
            packed = packed | ((e & wp.uint32(255)) << wp.uint32(8 * b))
        out[k * nw + j] = packed


@wp.kernel
def rans_warp(words: wp.array(dtype=wp.uint16), start: wp.array(dtype=int), tab: wp.array(dtype=wp.uint32),
              nsym: int, out: wp.array(dtype=wp.uint8)):
    """A warp a stream of 32 interleaved rANS states (symbol 32 j + lane is the lane's j-th),
    nsym symbols a lane: the states from the stream's first 64 words (two a lane), then each
    step decodes one symbol a lane as rans_thread does, and the lanes whose state fell below
    2^16 take the next words of the stream in lane order (a ballot of them, and the count of
    those below the lane); the symbols stored a byte each, a warp's 32 together."""
    i = wp.tid()
    w = i >> 5
    lane = i & 31
    p = start[w]
    x = wp.uint32(words[p + 2 * lane]) | (wp.uint32(words[p + 2 * lane + 1]) << wp.uint32(16))
    p += 64
    below = (wp.uint32(1) << wp.uint32(lane)) - wp.uint32(1)
    base = w * 32 * nsym + lane
    for j in range(nsym):
        slot = x & wp.uint32(RANS_MASK)
        e = tab[int(slot)]
        f = (e >> wp.uint32(8)) & wp.uint32(RANS_MASK)
        x = f * (x >> wp.uint32(RANS_SCALE)) + slot - (e >> wp.uint32(20))
        need = x < wp.uint32(RANS_L)
        m = wp.ballot_sync(FULL, need)
        if need:
            x = (x << wp.uint32(16)) | wp.uint32(words[p + wp.bit_count(m & below)])
        p += wp.bit_count(m)
        out[base + 32 * j] = wp.uint8(e & wp.uint32(255))


# ---- Speck in counter mode ---------------------------------------------------------------------------------


@wp.kernel
def speck_ctr(pt: wp.array(dtype=Any), rk: wp.array(dtype=Any), iv: wp.array(dtype=Any), wbits: int,
              out: wp.array(dtype=Any)):
    """Speck in counter mode, a thread a block of two words: the block (nonce, counter i)
    encrypted with the expanded round keys rk (x = (x >>> 8) + y xor k, y = (y <<< 3) xor x a
    round), XORed into the plaintext's two words; generic in the word type (wbits bits:
    Speck128/128 on uint64 with 32 rounds, Speck64/128 on uint32 with 27)."""
    i = wp.tid()
    x = iv[0]
    T = type(x)
    y = T(i)
    a = T(8)
    ra = T(wbits - 8)
    b = T(3)
    rb = T(wbits - 3)
    for r in range(rk.shape[0]):
        x = (((x >> a) | (x << ra)) + y) ^ rk[r]
        y = ((y << b) | (y >> rb)) ^ x
    out[2 * i] = pt[2 * i] ^ x
    out[2 * i + 1] = pt[2 * i + 1] ^ y


# ---- cuckoo hash table lookups -----------------------------------------------------------------------------


@wp.func
def fmix32(h: wp.uint32):
    """MurmurHash3's 32-bit finaliser (an avalanche of the key's bits)."""
    h = h ^ (h >> wp.uint32(16))
    h = h * wp.uint32(0x85EBCA6B)
    h = h ^ (h >> wp.uint32(13))
    h = h * wp.uint32(0xC2B2AE35)
    h = h ^ (h >> wp.uint32(16))
    return h


@wp.kernel
def cuckoo_lookup(table: wp.array(dtype=wp.uint64), seeds: wp.array(dtype=wp.uint32), bits: int,
                  query: wp.array(dtype=wp.uint32), result: wp.array(dtype=wp.uint32)):
    """A thread a query key: its slots under the CK_HASHES hash functions (the finaliser of the
    key XOR a seed, its top `bits` bits) tried in turn, each slot one 64-bit word (key in the
    high half, value in the low); the value stored, or CK_EMPTY when none holds the key."""
    i = wp.tid()
    k = query[i]
    sh = wp.uint32(32 - bits)
    res = wp.uint32(CK_EMPTY)
    for h in range(CK_HASHES):
        slot = fmix32(k ^ seeds[h]) >> sh
        e = table[int(slot)]
        if wp.uint32(e >> wp.uint64(32)) == k:
            res = wp.uint32(e & wp.uint64(0xFFFFFFFF))
            break
    result[i] = res


# ---- line-segment clipping ---------------------------------------------------------------------------------


@wp.func
def outcode(x: float, y: float, box: wp.vec4):
    """Cohen and Sutherland's region code of (x, y) for box (xmin, ymin, xmax, ymax): 1 left,
    2 right, 4 below, 8 above."""
    c = int(0)
    if x < box[0]:
        c = 1
    elif x > box[2]:
        c = 2
    if y < box[1]:
        c = c | 4
    elif y > box[3]:
        c = c | 8
    return c


@wp.kernel
def clip_cs(seg: wp.array(dtype=wp.vec4), xmin: float, ymin: float, xmax: float, ymax: float,
            out: wp.array(dtype=wp.vec4), keep: wp.array(dtype=int)):
    """Cohen-Sutherland clipping of a segment a thread: accepted when both endpoints' codes are
    0, rejected when they share a bit, otherwise an outside endpoint moved to the edge its code
    names (top, bottom, right, left in that order) and its code recomputed, at most four times;
    the clipped segment and 1 stored, or zeros and 0; the box is (xmin, ymin, xmax, ymax)."""
    i = wp.tid()
    box = wp.vec4(xmin, ymin, xmax, ymax)
    s = seg[i]
    x0 = s[0]
    y0 = s[1]
    x1 = s[2]
    y1 = s[3]
    c0 = outcode(x0, y0, box)
    c1 = outcode(x1, y1, box)
    acc = int(0)
    for it in range(5):
        if (c0 | c1) == 0:
            acc = 1
            break
        if (c0 & c1) != 0:
            break
        co = c0
        if co == 0:
            co = c1
        x = float(0.0)
        y = float(0.0)
        if (co & 8) != 0:
            x = x0 + (x1 - x0) * (box[3] - y0) / (y1 - y0)
            y = box[3]
        elif (co & 4) != 0:
            x = x0 + (x1 - x0) * (box[1] - y0) / (y1 - y0)
            y = box[1]
        elif (co & 2) != 0:
            y = y0 + (y1 - y0) * (box[2] - x0) / (x1 - x0)
            x = box[2]
        else:
            y = y0 + (y1 - y0) * (box[0] - x0) / (x1 - x0)
            x = box[0]
        if co == c0:
            x0 = x
            y0 = y
            c0 = outcode(x0, y0, box)
        else:
            x1 = x
            y1 = y
            c1 = outcode(x1, y1, box)
    if acc == 1:
        out[i] = wp.vec4(x0, y0, x1, y1)
    else:
        out[i] = wp.vec4(0.0, 0.0, 0.0, 0.0)
    keep[i] = acc


@wp.func
def lb_edge(p: float, q: float, u: wp.vec2):
    """One of Liang and Barsky's four edge tests on the parameter interval u = (u0, u1): for
    p < 0 the entering bound q / p raises u0, for p > 0 the leaving bound lowers u1; a
    segment parallel to the edge (p = 0) and outside it (q < 0) empties the interval."""
    r = u
    if p == 0.0:
        if q < 0.0:
            r = wp.vec2(1.0, 0.0)
    else:
        t = q / p
        if p < 0.0:
            r = wp.vec2(wp.max(u[0], t), u[1])
        else:
            r = wp.vec2(u[0], wp.min(u[1], t))
    return r


@wp.kernel
def clip_lb(seg: wp.array(dtype=wp.vec4), xmin: float, ymin: float, xmax: float, ymax: float,
            out: wp.array(dtype=wp.vec4), keep: wp.array(dtype=int)):
    """The same clipping by Liang and Barsky's parametric form: the segment's parameter
    interval [0, 1] narrowed by the four edges, accepted when it is not empty; the ends
    computed from the interval; outputs as clip_cs."""
    i = wp.tid()
    box = wp.vec4(xmin, ymin, xmax, ymax)
    s = seg[i]
    dx = s[2] - s[0]
    dy = s[3] - s[1]
    u = wp.vec2(0.0, 1.0)
    u = lb_edge(-dx, s[0] - box[0], u)
    u = lb_edge(dx, box[2] - s[0], u)
    u = lb_edge(-dy, s[1] - box[1], u)
    u = lb_edge(dy, box[3] - s[1], u)
    if u[0] <= u[1]:
        out[i] = wp.vec4(s[0] + u[0] * dx, s[1] + u[0] * dy, s[0] + u[1] * dx, s[1] + u[1] * dy)
        keep[i] = 1
    else:
        out[i] = wp.vec4(0.0, 0.0, 0.0, 0.0)
        keep[i] = 0


# ---- local entropy of an image -----------------------------------------------------------------------------


@wp.func
def ent_from_hist(hist: wp.vector(length=ENT_BINS, dtype=int)):
    """The entropy in bits of a window's histogram of ENT_W^2 samples: log2 n - sum c log2 c / n
    over the non-empty bins."""
    s = float(0.0)
    for b in range(ENT_BINS):
        c = hist[b]
        if c > 0:
            s += float(c) * wp.log2(float(c))
    n = float(ENT_W * ENT_W)
    return wp.log2(n) - s / n


@wp.kernel
def entropy_global(img: wp.array2d(dtype=wp.uint8), out: wp.array2d(dtype=float)):
    """The local entropy a pixel: the histogram of the ENT_BINS grey levels over the ENT_W x
    ENT_W window around it (edges replicated), in a local vector indexed by the level, the
    window read from global memory."""
    y, x = wp.tid()
    h = img.shape[0]
    w = img.shape[1]
    hist = wp.vector(length=ENT_BINS, dtype=int)
    for dy in range(ENT_W):
        yy = wp.clamp(y + dy - ENT_R, 0, h - 1)
        for dx in range(ENT_W):
            xx = wp.clamp(x + dx - ENT_R, 0, w - 1)
            v = int(img[yy, xx])
            hist[v] += 1
    out[y, x] = ent_from_hist(hist)


@wp.kernel
def entropy_tiled(img: wp.array2d(dtype=wp.uint8), out: wp.array2d(dtype=float)):
    """The same filter with the block's ENT_TY x ENT_TX tile (its ENT_BY x ENT_BX pixels and a
    border of ENT_R, edges replicated) copied into shared memory first, a barrier, then the
    windows read from the tile."""
    tile = wp.shared.array(shape=(ENT_TY * ENT_TX,), dtype=int)
    y, x = wp.tid()
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    h = img.shape[0]
    w = img.shape[1]
    t = ty * ENT_BX + tx
    for k in range(t, ENT_TY * ENT_TX, ENT_THREADS):
        r = k // ENT_TX
        c = k - r * ENT_TX
        yy = wp.clamp(by * ENT_BY + r - ENT_R, 0, h - 1)
        xx = wp.clamp(bx * ENT_BX + c - ENT_R, 0, w - 1)
        tile[k] = int(img[yy, xx])
    wp.sync_threads()
    hist = wp.vector(length=ENT_BINS, dtype=int)
    for dy in range(ENT_W):
        for dx in range(ENT_W):
            v = tile[(ty + dy) * ENT_TX + tx + dx]
            hist[v] += 1
    out[y, x] = ent_from_hist(hist)


# ---- Count-Min sketch updates ------------------------------------------------------------------------------


@wp.kernel
def cms_update(items: wp.array(dtype=wp.uint32), ha: wp.array(dtype=wp.uint32), hb: wp.array(dtype=wp.uint32),
               bits: int, sketch: wp.array(dtype=int)):
    """An item a thread counted in a Count-Min sketch of CMS_D rows of 2^bits counters: in row r
    the counter (ha[r] x + hb[r]) >> (32 - bits) (multiply-shift hashing, ha odd) incremented by
    an integer atomic."""
    i = wp.tid()
    v = items[i]
    sh = wp.uint32(32 - bits)
    for r in range(CMS_D):
        c = (ha[r] * v + hb[r]) >> sh
        wp.atomic_add(sketch, (r << bits) + int(c), 1)
