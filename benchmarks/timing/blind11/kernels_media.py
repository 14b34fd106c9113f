"""Kernels of the eleventh blind validation set, second part: computer vision (the Hough
transform's voting, brute-force matching of binary ORB descriptors, HOG cell histograms),
graphics (Möller-Trumbore ray-triangle intersection), signal processing (Goertzel's algorithm
and the direct DFT bin) and data encoding (integers to decimal text, cuSZ's dual-quantisation
Lorenzo predictor). See kernels.py for the rules they were written under and the conventions.
"""
import simt as wp

DESC_WORDS = 8      # a 256-bit ORB / BRIEF descriptor in 32-bit words
BF_TILE = 1024      # bf_match_shared: train descriptors a block stages at a time (32 KB)
HOG_BINS = 9        # HOG: unsigned orientation bins of 20 degrees
HOG_CELL = 8        # HOG: cell side in pixels
FIELD = 12          # itoa: the fixed width of a formatted integer, right-aligned
NTRI = 128          # mt_rays: triangles in the scene (staged in shared memory)


# ---- vision: the Hough transform for lines -------------------------------------------------------


@wp.kernel
def hough_vote(ex: wp.array(dtype=int), ey: wp.array(dtype=int), cos_t: wp.array(dtype=float),
               sin_t: wp.array(dtype=float), angle_fastest: int, rho_off: int, acc: wp.array(dtype=int)):
    """The Hough transform's voting for lines (OpenCV's and NPP's CUDA Hough lines): a thread
    per (edge pixel, angle) computes rho = x cos(theta) + y sin(theta) rounded, from tables of
    the angles' cosines and sines, and adds one to the accumulator cell (theta, rho) by an
    integer atomic. Angles on adjacent lanes (different accumulator rows) or edge pixels on
    adjacent lanes (one row; pixels in raster order land on nearby cells, contended)."""
    g = wp.tid()
    na = cos_t.shape[0]
    ne = ex.shape[0]
    a = int(0)
    p = int(0)
    if angle_fastest != 0:
        a = g % na
        p = g // na
    else:
        p = g % ne
        a = g // ne
    nrho = acc.shape[0] // na
    r = int(wp.floor(float(ex[p]) * cos_t[a] + float(ey[p]) * sin_t[a] + 0.5)) + rho_off
    wp.atomic_add(acc, a * nrho + r, 1)


# ---- vision: brute-force matching of binary descriptors -------------------------------------------


@wp.kernel
def bf_match_global(qd: wp.array2d(dtype=wp.uint32), td: wp.array2d(dtype=wp.uint32), best_i: wp.array(dtype=int),
                    best_d: wp.array(dtype=int), second_d: wp.array(dtype=int)):
    """Brute-force matching of 256-bit binary descriptors (ORB, BRIEF; OpenCV's CUDA
    BFMatcher with the Hamming norm, k = 2 for Lowe's ratio test): a thread per query keeps
    its eight words in registers and walks every train descriptor (the same one for the whole
    warp, from global memory): eight xors and popcounts, the best index and the two smallest
    distances."""
    i = wp.tid()
    q0 = qd[i, 0]
    q1 = qd[i, 1]
    q2 = qd[i, 2]
    q3 = qd[i, 3]
    q4 = qd[i, 4]
    q5 = qd[i, 5]
    q6 = qd[i, 6]
    q7 = qd[i, 7]
    best = int(1000)
    second = int(1000)
    bi = int(-1)
    for j in range(td.shape[0]):
        d = (wp.bit_count(q0 ^ td[j, 0]) + wp.bit_count(q1 ^ td[j, 1]) + wp.bit_count(q2 ^ td[j, 2])
             + wp.bit_count(q3 ^ td[j, 3]) + wp.bit_count(q4 ^ td[j, 4]) + wp.bit_count(q5 ^ td[j, 5])
             + wp.bit_count(q6 ^ td[j, 6]) + wp.bit_count(q7 ^ td[j, 7]))
        if d < best:
            second = best
            best = d
            bi = j
        elif d < second:
            second = d
    best_i[i] = bi
    best_d[i] = best
    second_d[i] = second


@wp.kernel
def bf_match_shared(qd: wp.array2d(dtype=wp.uint32), td: wp.array2d(dtype=wp.uint32), best_i: wp.array(dtype=int),
                    best_d: wp.array(dtype=int), second_d: wp.array(dtype=int)):
    """The same matching with the train descriptors staged BF_TILE at a time in shared memory
    (32 KB a block, which bounds the blocks an SM holds), barriers around each tile; the
    train set's size a multiple of BF_TILE."""
    tile = wp.shared.array(shape=(BF_TILE * DESC_WORDS,), dtype=wp.uint32)
    i = wp.tid()
    t = wp.thread_idx()
    nt = wp.block_dim()
    q0 = qd[i, 0]
    q1 = qd[i, 1]
    q2 = qd[i, 2]
    q3 = qd[i, 3]
    q4 = qd[i, 4]
    q5 = qd[i, 5]
    q6 = qd[i, 6]
    q7 = qd[i, 7]
    best = int(1000)
    second = int(1000)
    bi = int(-1)
    for base in range(0, td.shape[0], BF_TILE):
        for k in range(t, BF_TILE * DESC_WORDS, nt):
            tile[k] = td[base + (k >> 3), k & 7]
        wp.sync_threads()
        for j in range(BF_TILE):
            o = j * DESC_WORDS
            d = (wp.bit_count(q0 ^ tile[o]) + wp.bit_count(q1 ^ tile[o + 1]) + wp.bit_count(q2 ^ tile[o + 2])
                 + wp.bit_count(q3 ^ tile[o + 3]) + wp.bit_count(q4 ^ tile[o + 4]) + wp.bit_count(q5 ^ tile[o + 5])
                 + wp.bit_count(q6 ^ tile[o + 6]) + wp.bit_count(q7 ^ tile[o + 7]))
            if d < best:
                second = best
                best = d
                bi = base + j
            elif d < second:
                second = d
        wp.sync_threads()
    best_i[i] = bi
    best_d[i] = best
    second_d[i] = second


# ---- vision: histograms of oriented gradients ---------------------------------------------------------


@wp.func
def hog_grad(img: wp.array2d(dtype=wp.uint8), y: int, x: int):
    """The pixel's gradient (central differences, edges clamped) as (magnitude, bin position):
    the unsigned orientation in degrees over 20, less a half (bin centres at 10, 30, ...)."""
    h = img.shape[0]
    w = img.shape[1]
    gx = float(int(img[y, wp.min(x + 1, w - 1)]) - int(img[y, wp.max(x - 1, 0)]))
    gy = float(int(img[wp.min(y + 1, h - 1), x]) - int(img[wp.max(y - 1, 0), x]))
    ang = wp.atan2(gy, gx) * 57.29577951
    if ang < 0.0:
        ang += 180.0
    if ang >= 180.0:
        ang -= 180.0
    return wp.vec2(wp.sqrt(gx * gx + gy * gy), ang * 0.05 - 0.5)


@wp.kernel
def hog_thread(img: wp.array2d(dtype=wp.uint8), hist: wp.array3d(dtype=float)):
    """HOG's cell histograms (Dalal and Triggs; OpenCV's CUDA HOG descriptor): a thread per
    8 x 8 cell walks its 64 pixels, each voting its gradient magnitude into the two nearest of
    nine orientation bins (linear interpolation, wrapping at 180 degrees), the histogram in a
    local vector indexed by the bins (local memory)."""
    cy, cx = wp.tid()
    hv = wp.vector(length=HOG_BINS, dtype=float)
    for k in range(HOG_BINS):
        hv[k] = 0.0
    for py in range(HOG_CELL):
        for px in range(HOG_CELL):
            mb = hog_grad(img, cy * HOG_CELL + py, cx * HOG_CELL + px)
            b0 = int(wp.floor(mb[1]))
            f = mb[1] - float(b0)
            lo = (b0 + HOG_BINS) % HOG_BINS
            hi = (b0 + 1) % HOG_BINS
            hv[lo] = hv[lo] + mb[0] * (1.0 - f)
            hv[hi] = hv[hi] + mb[0] * f
    for k in range(HOG_BINS):
        hist[cy, cx, k] = hv[k]


@wp.kernel
def hog_shared(img: wp.array2d(dtype=wp.uint8), hist: wp.array3d(dtype=float)):
    """The same histograms a thread per pixel: a block of 16 x 16 pixels (four cells) votes by
    float atomics into its 36 bins in shared memory, then writes them after a barrier."""
    sh = wp.shared.array(shape=(4 * HOG_BINS,), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    t = ty * 16 + tx
    if t < 4 * HOG_BINS:
        sh[t] = 0.0
    wp.sync_threads()
    y, x = wp.tid()
    mb = hog_grad(img, y, x)
    b0 = int(wp.floor(mb[1]))
    f = mb[1] - float(b0)
    lo = (b0 + HOG_BINS) % HOG_BINS
    hi = (b0 + 1) % HOG_BINS
    c = (ty >> 3) * 2 + (tx >> 3)
    wp.atomic_add(sh, c * HOG_BINS + lo, mb[0] * (1.0 - f))
    wp.atomic_add(sh, c * HOG_BINS + hi, mb[0] * f)
    wp.sync_threads()
    if t < 4 * HOG_BINS:
        cell = t // HOG_BINS
        hist[by * 2 + (cell >> 1), bx * 2 + (cell & 1), t % HOG_BINS] = sh[t]


# ---- graphics: ray-triangle intersection -----------------------------------------------------------------


@wp.kernel
def mt_rays(tri: wp.array2d(dtype=float), ox: float, oy: float, oz: float, dirs: wp.array2d(dtype=float),
            hit: wp.array(dtype=int), tout: wp.array(dtype=float)):
    """Closest hits of rays against a small scene by the Möller-Trumbore test (the brute-force
    inner loop of GPU ray tracers and collision queries): the block stages NTRI triangles (a
    vertex and two edges, nine floats each) in shared memory; a thread per ray tests them all:
    a determinant, then the barycentric u, then v, then the distance, each test able to end
    the triangle early (lanes of a warp take different exits)."""
    sh = wp.shared.array(shape=(NTRI * 9,), dtype=float)
    for k in range(wp.thread_idx(), NTRI * 9, wp.block_dim()):
        sh[k] = tri[k // 9, k % 9]
    wp.sync_threads()
    r = wp.tid()
    o = wp.vec3(ox, oy, oz)
    d = wp.vec3(dirs[r, 0], dirs[r, 1], dirs[r, 2])
    best = float(1.0e30)
    bi = int(-1)
    for k in range(NTRI):
        b = k * 9
        v0 = wp.vec3(sh[b], sh[b + 1], sh[b + 2])
        e1 = wp.vec3(sh[b + 3], sh[b + 4], sh[b + 5])
        e2 = wp.vec3(sh[b + 6], sh[b + 7], sh[b + 8])
        pv = wp.cross(d, e2)
        det = wp.dot(e1, pv)
        if wp.abs(det) > 1.0e-8:
            inv = 1.0 / det
            tv = o - v0
            u = wp.dot(tv, pv) * inv
            if u >= 0.0 and u <= 1.0:
                qv = wp.cross(tv, e1)
                v = wp.dot(d, qv) * inv
                if v >= 0.0 and u + v <= 1.0:
                    tt = wp.dot(e2, qv) * inv
                    if tt > 1.0e-4 and tt < best:
                        best = tt
                        bi = k
    hit[r] = bi
    tout[r] = best


# ---- signal processing: one DFT bin, two ways ----------------------------------------------------------


@wp.kernel
def goertzel(x: wp.array2d(dtype=float), coef: wp.array(dtype=float), power: wp.array2d(dtype=float)):
    """Goertzel's algorithm (DTMF and tone detection; GPU spectrum monitors): a thread per
    (frame, frequency), frequencies on adjacent lanes, runs the second-order recurrence
    s = x + 2 cos(w) s1 - s2 over the frame's samples (one dependent multiply-add chain) and
    returns the bin's power s1^2 + s2^2 - 2 cos(w) s1 s2."""
    g = wp.tid()
    nk = coef.shape[0]
    f = g // nk
    k = g % nk
    c = coef[k]
    s1 = float(0.0)
    s2 = float(0.0)
    for n in range(x.shape[1]):
        s = x[f, n] + c * s1 - s2
        s2 = s1
        s1 = s
    power[f, k] = s1 * s1 + s2 * s2 - c * s1 * s2


@wp.kernel
def dft_direct(x: wp.array2d(dtype=float), omega: wp.array(dtype=float), power: wp.array2d(dtype=float)):
    """The same bins' power by the direct sum: a sine and a cosine of w n a sample (full-range
    fp32 sinf and cosf), accumulated as the real and imaginary parts."""
    g = wp.tid()
    nk = omega.shape[0]
    f = g // nk
    k = g % nk
    w = omega[k]
    re = float(0.0)
    im = float(0.0)
    for n in range(x.shape[1]):
        a = w * float(n)
        v = x[f, n]
        re += v * wp.cos(a)
        im -= v * wp.sin(a)
    power[f, k] = re * re + im * im


# ---- data encoding: integers to text, and an error-bounded compressor's predictor -----------------------


@wp.kernel
def itoa_div10(v: wp.array(dtype=int), out: wp.array2d(dtype=wp.uint8)):
    """Integers to fixed-width decimal text (a column writer's to-string, as in cuDF's CSV and
    JSON writers): a thread per 32-bit value, its digits from the right by division and
    remainder by 10 (unsigned), then the sign, then spaces to the field's width (FIELD bytes a
    value, lanes FIELD bytes apart)."""
    i = wp.tid()
    x = v[i]
    u = wp.uint32(wp.abs(x))
    ten = wp.uint32(10)
    pos = FIELD - 1
    out[i, pos] = wp.uint8(48 + int(u % ten))
    u = u // ten
    pos -= 1
    while u != wp.uint32(0):
        out[i, pos] = wp.uint8(48 + int(u % ten))
        u = u // ten
        pos -= 1
    if x < 0:
        out[i, pos] = wp.uint8(45)
        pos -= 1
    while pos >= 0:
        out[i, pos] = wp.uint8(32)
        pos -= 1


@wp.kernel
def itoa_pairs(v: wp.array(dtype=int), digits: wp.array(dtype=wp.uint8), out: wp.array2d(dtype=wp.uint8)):
    """The same text two digits at a time: division and remainder by 100, the pair's two
    characters from the 200-byte table "00" .. "99" each block stages in shared memory (the
    fast integer formatters' method); half the divisions."""
    tab = wp.shared.array(shape=(200,), dtype=wp.uint8)
    for k in range(wp.thread_idx(), 200, wp.block_dim()):
        tab[k] = digits[k]
    wp.sync_threads()
    i = wp.tid()
    x = v[i]
    u = wp.uint32(wp.abs(x))
    hundred = wp.uint32(100)
    pos = FIELD - 1
    while u >= hundred:
        r = int(u % hundred)
        u = u // hundred
        out[i, pos] = tab[2 * r + 1]
        out[i, pos - 1] = tab[2 * r]
        pos -= 2
    if u >= wp.uint32(10):
        r = int(u)
        out[i, pos] = tab[2 * r + 1]
        out[i, pos - 1] = tab[2 * r]
        pos -= 2
    else:
        out[i, pos] = wp.uint8(48 + int(u))
        pos -= 1
    if x < 0:
        out[i, pos] = wp.uint8(45)
        pos -= 1
    while pos >= 0:
        out[i, pos] = wp.uint8(32)
        pos -= 1


@wp.func
def sz_prequant(x: wp.array2d(dtype=float), i: int, j: int, inv2eb: float):
    r = int(0)
    if i >= 0 and j >= 0:
        r = int(wp.rint(x[i, j] * inv2eb))
    return r


@wp.kernel
def sz_lorenzo(x: wp.array2d(dtype=float), inv2eb: float, radius: int, code: wp.array2d(dtype=wp.uint16),
               count: wp.array(dtype=int), oidx: wp.array(dtype=int), oval: wp.array(dtype=int)):
    """cuSZ's dual-quantisation Lorenzo predictor (error-bounded lossy compression of 2-D
    fields): a thread per value prequantises it and its three upper-left neighbours to
    integers (x / 2 eb, rounded to even), predicts by the 2-D Lorenzo stencil and writes the
    difference as a 16-bit code offset by the radius; a difference out of range is an outlier,
    appended to a list by an integer atomic (its index and value) with code 0."""
    i, j = wp.tid()
    nx = x.shape[1]
    d = (sz_prequant(x, i, j, inv2eb) - sz_prequant(x, i - 1, j, inv2eb) - sz_prequant(x, i, j - 1, inv2eb)
         + sz_prequant(x, i - 1, j - 1, inv2eb))
    if d > -radius and d < radius:
        code[i, j] = wp.uint16(d + radius)
    else:
        code[i, j] = wp.uint16(0)
        k = wp.atomic_add(count, 0, 1)
        oidx[k] = i * nx + j
        oval[k] = d
