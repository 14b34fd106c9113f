"""Kernels of the eighth blind validation set, second part: ML operators (weight-only quantised
GEMV, sliding-window attention, dilated convolution, Gaussian splatting's colours, non-maximum
suppression), image analysis (connected-component labelling, histogram equalisation) and
decoding and irregular work (Viterbi, Collatz with a work queue). See kernels.py for the rules
they were written under and the conventions.
"""
import simt as wp

from .kernels import NMS_B, QG, VS, warp_sum  # noqa: F401  (the constants cases.py reads here)


# ---- ML operators -------------------------------------------------------------------------------


@wp.kernel
def gemv_w8(w: wp.array2d(dtype=wp.uint32), scale: wp.array2d(dtype=float), x: wp.array(dtype=float),
            y: wp.array(dtype=float)):
    """Weight-only int8 GEMV (LLM decoding's y = W x with quantised weights, as in
    bitsandbytes and TensorRT-LLM): four signed bytes a 32-bit word, a scale per QG weights of a
    row; a warp per row, lanes along it a word at a time, dequantised on the fly, the row summed
    by shuffles."""
    g = wp.tid()
    r = g // 32
    lane = wp.lane_id()
    acc = float(0.0)
    for q in range(lane, w.shape[1], 32):
        word = w[r, q]
        part = float(0.0)
        for k in range(4):
            v = int((word >> wp.uint32(8 * k)) & wp.uint32(255))
            v = v - ((v & 128) << 1)
            part += float(v) * x[4 * q + k]
        acc += scale[r, (4 * q) // QG] * part
    acc = warp_sum(acc)
    if lane == 0:
        y[r] = acc


@wp.kernel
def gemv_w4(w: wp.array2d(dtype=wp.uint32), scale: wp.array2d(dtype=float), x: wp.array(dtype=float),
            y: wp.array(dtype=float)):
    """The same GEMV with int4 weights (GPTQ's and AWQ's storage): eight 4-bit weights a word,
    zero point 8, a scale per QG weights."""
    g = wp.tid()
    r = g // 32
    lane = wp.lane_id()
    acc = float(0.0)
    for q in range(lane, w.shape[1], 32):
        word = w[r, q]
        part = float(0.0)
        for k in range(8):
            v = int((word >> wp.uint32(4 * k)) & wp.uint32(15)) - 8
            part += float(v) * x[8 * q + k]
        acc += scale[r, (8 * q) // QG] * part
    acc = warp_sum(acc)
    if lane == 0:
        y[r] = acc


@wp.kernel
def attn_window(q: wp.array3d(dtype=float), k: wp.array3d(dtype=float), v: wp.array3d(dtype=float), win: int,
                scl: float, out: wp.array3d(dtype=float)):
    """Causal sliding-window attention (Longformer's and Mistral's local attention), head
    dimension 64: a warp per (token, head), each lane two dimensions; for each of the ``win``
    previous keys a dot product summed by shuffles and an online softmax (running maximum and
    normaliser) over the values."""
    g = wp.tid()
    lane = wp.lane_id()
    wi = g // 32
    nh = q.shape[1]
    t = wi // nh
    hd = wi % nh
    d0 = 2 * lane
    q0 = q[t, hd, d0] * scl
    q1 = q[t, hd, d0 + 1] * scl
    m = float(-3.0e38)
    l = float(0.0)
    a0 = float(0.0)
    a1 = float(0.0)
    for j in range(wp.max(t - win + 1, 0), t + 1):
        s = warp_sum(q0 * k[j, hd, d0] + q1 * k[j, hd, d0 + 1])
        mn = wp.max(m, s)
        corr = wp.exp(m - mn)
        p = wp.exp(s - mn)
        l = l * corr + p
        a0 = a0 * corr + p * v[j, hd, d0]
        a1 = a1 * corr + p * v[j, hd, d0 + 1]
        m = mn
    out[t, hd, d0] = a0 / l
    out[t, hd, d0 + 1] = a1 / l


@wp.kernel
def conv1d_dilated(x: wp.array3d(dtype=float), w: wp.array3d(dtype=float), dil: int, y: wp.array3d(dtype=float)):
    """WaveNet's dilated causal convolution (kernel width 2): y[b, o, t] = sum_c w[o, c, 1]
    x[b, c, t] + w[o, c, 0] x[b, c, t - dil] (zero before the start), a thread per output,
    direct (no im2col), lanes along time."""
    bo, t = wp.tid()
    no = w.shape[0]
    o = bo % no
    b = bo // no
    acc = float(0.0)
    for c in range(x.shape[1]):
        acc += w[o, c, 1] * x[b, c, t]
        if t >= dil:
            acc += w[o, c, 0] * x[b, c, t - dil]
    y[b, o, t] = acc


@wp.func
def sh_basis(dx: float, dy: float, dz: float):
    """The 16 real spherical harmonics of degree <= 3 at a unit direction (3D Gaussian
    splatting's constants and signs)."""
    xx = dx * dx
    yy = dy * dy
    zz = dz * dz
    s = wp.vector(length=16, dtype=float)
    s[0] = 0.28209479177387814
    s[1] = -0.4886025119029199 * dy
    s[2] = 0.4886025119029199 * dz
    s[3] = -0.4886025119029199 * dx
    s[4] = 1.0925484305920792 * dx * dy
    s[5] = -1.0925484305920792 * dy * dz
    s[6] = 0.31539156525252005 * (2.0 * zz - xx - yy)
    s[7] = -1.0925484305920792 * dx * dz
    s[8] = 0.5462742152960396 * (xx - yy)
    s[9] = -0.5900435899266435 * dy * (3.0 * xx - yy)
    s[10] = 2.890611442640554 * dx * dy * dz
    s[11] = -0.4570457994644658 * dy * (4.0 * zz - xx - yy)
    s[12] = 0.3731763325901154 * dz * (2.0 * zz - 3.0 * xx - 3.0 * yy)
    s[13] = -0.4570457994644658 * dx * (4.0 * zz - xx - yy)
    s[14] = 1.445305721320277 * dz * (xx - yy)
    s[15] = -0.5900435899266435 * dx * (xx - 3.0 * yy)
    return s


@wp.kernel
def sh_color_aos(mean: wp.array2d(dtype=float), cx: float, cy: float, cz: float, sh: wp.array2d(dtype=float),
                 rgb: wp.array2d(dtype=float)):
    """3D Gaussian splatting's view-dependent colour (Kerbl et al.'s preprocessing): a thread per
    Gaussian normalises the direction from the camera, evaluates the 16 degree-3 spherical
    harmonics and dots them with its 48 coefficients (Gaussian-major: its 16 x 3 in a row),
    adds 1/2 and clamps at zero."""
    i = wp.tid()
    dx = mean[i, 0] - cx
    dy = mean[i, 1] - cy
    dz = mean[i, 2] - cz
    inv = 1.0 / wp.sqrt(dx * dx + dy * dy + dz * dz)
    s = sh_basis(dx * inv, dy * inv, dz * inv)
    for c in range(3):
        acc = float(0.5)
        for k in range(16):
            acc += s[k] * sh[i, 3 * k + c]
        rgb[i, c] = wp.max(acc, 0.0)


@wp.kernel
def sh_color_soa(mean: wp.array2d(dtype=float), cx: float, cy: float, cz: float, sh: wp.array2d(dtype=float),
                 rgb: wp.array2d(dtype=float)):
    """The same colours with the coefficients coefficient-major (48 rows of N: adjacent lanes
    read adjacent words)."""
    i = wp.tid()
    dx = mean[i, 0] - cx
    dy = mean[i, 1] - cy
    dz = mean[i, 2] - cz
    inv = 1.0 / wp.sqrt(dx * dx + dy * dy + dz * dz)
    s = sh_basis(dx * inv, dy * inv, dz * inv)
    for c in range(3):
        acc = float(0.5)
        for k in range(16):
            acc += s[k] * sh[3 * k + c, i]
        rgb[i, c] = wp.max(acc, 0.0)


@wp.kernel
def nms_mask(boxes: wp.array2d(dtype=float), thr: float, mask: wp.array2d(dtype=wp.uint32)):
    """Non-maximum suppression's overlap mask (torchvision's and Detectron's CUDA NMS, boxes
    sorted by score): a block of NMS_B threads per (column block, row block) stages the column
    block's boxes in shared memory; each thread sets bit k of its word when box i overlaps box
    j = column block + k, j > i, with IoU above ``thr``; blocks below the diagonal write zero."""
    sb = wp.shared.array(shape=(NMS_B * 4,), dtype=float)
    cb, i = wp.tid()
    lane = wp.lane_id()
    j0 = cb * NMS_B
    for k in range(4):
        sb[lane * 4 + k] = boxes[j0 + lane, k]
    wp.sync_threads()
    bits = wp.uint32(0)
    if cb >= i // NMS_B:
        x1 = boxes[i, 0]
        y1 = boxes[i, 1]
        x2 = boxes[i, 2]
        y2 = boxes[i, 3]
        area = (x2 - x1) * (y2 - y1)
        for k in range(NMS_B):
            if j0 + k > i:
                ox = wp.max(wp.min(x2, sb[4 * k + 2]) - wp.max(x1, sb[4 * k]), 0.0)
                oy = wp.max(wp.min(y2, sb[4 * k + 3]) - wp.max(y1, sb[4 * k + 1]), 0.0)
                inter = ox * oy
                other = (sb[4 * k + 2] - sb[4 * k]) * (sb[4 * k + 3] - sb[4 * k + 1])
                if inter > thr * (area + other - inter):
                    bits = bits | (wp.uint32(1) << wp.uint32(k))
    mask[i, cb] = bits


# ---- image analysis ------------------------------------------------------------------------------


@wp.kernel
def ccl_propagate(fg: wp.array2d(dtype=wp.uint8), lin: wp.array2d(dtype=int), lout: wp.array2d(dtype=int),
                  changed: wp.array(dtype=int)):
    """Connected-component labelling by label propagation (Hawick, Leist and Playne's
    label-equivalence family, its simplest sweep): every foreground pixel takes the least label
    among itself and its 4-connected foreground neighbours; a flag is raised if any changed."""
    y, x = wp.tid()
    h = fg.shape[0]
    w = fg.shape[1]
    l = lin[y, x]
    if int(fg[y, x]) != 0:
        m = l
        if y > 0 and int(fg[y - 1, x]) != 0:
            m = wp.min(m, lin[y - 1, x])
        if y + 1 < h and int(fg[y + 1, x]) != 0:
            m = wp.min(m, lin[y + 1, x])
        if x > 0 and int(fg[y, x - 1]) != 0:
            m = wp.min(m, lin[y, x - 1])
        if x + 1 < w and int(fg[y, x + 1]) != 0:
            m = wp.min(m, lin[y, x + 1])
        if m < l:
            changed[0] = 1
        l = m
    lout[y, x] = l


@wp.func
def uf_find(parent: wp.array(dtype=int), a: int):
    r = a
    while parent[r] != r:
        r = parent[r]
    return r


@wp.func
def uf_union(parent: wp.array(dtype=int), a0: int, b0: int):
    """Join the sets of a0 and b0: the larger root hooked under the smaller by atomic min,
    retried from the new roots when another thread got there first."""
    a = a0
    b = b0
    done = int(0)
    while done == 0:
        a = uf_find(parent, a)
        b = uf_find(parent, b)
        if a < b:
            old = wp.atomic_min(parent, b, a)
            if old == b:
                done = 1
            else:
                b = old
        elif b < a:
            old = wp.atomic_min(parent, a, b)
            if old == a:
                done = 1
            else:
                a = old
        else:
            done = 1
    return done


@wp.kernel
def ccl_uf_merge(fg: wp.array2d(dtype=wp.uint8), parent: wp.array(dtype=int)):
    """Connected-component labelling by union-find (Playne and Hawick's, Komura's GPU union-find),
    its merge pass over the whole image: every foreground pixel joins its set with its left and
    upper foreground neighbours' (parents a flat array, each pixel its own at first)."""
    y, x = wp.tid()
    w = fg.shape[1]
    if int(fg[y, x]) != 0:
        p = y * w + x
        if x > 0 and int(fg[y, x - 1]) != 0:
            uf_union(parent, p, p - 1)
        if y > 0 and int(fg[y - 1, x]) != 0:
            uf_union(parent, p, p - w)


@wp.kernel
def histeq_global(img: wp.array(dtype=wp.uint8), lut: wp.array(dtype=wp.uint8), out: wp.array(dtype=wp.uint8)):
    """Histogram equalisation's mapping (the histogram and its table already built): a thread per
    pixel looks its value up in the 256-entry table in global memory."""
    i = wp.tid()
    out[i] = lut[int(img[i])]


@wp.kernel
def histeq_shared(img: wp.array(dtype=wp.uint8), hist: wp.array(dtype=int), out: wp.array(dtype=wp.uint8)):
    """The same mapping with every block of 256 threads building the table from the histogram
    itself: an inclusive scan in shared memory (Hillis-Steele, eight steps), the first non-zero
    count found, the table round((cdf - cdf_min) 255 / (n - cdf_min)), then a grid-stride loop
    over the pixels."""
    cdf = wp.shared.array(shape=(256,), dtype=int)
    lut = wp.shared.array(shape=(256,), dtype=int)
    t = wp.thread_idx()
    n = img.shape[0]
    cdf[t] = hist[t]
    off = int(1)
    while off < 256:
        wp.sync_threads()
        v = cdf[t]
        if t >= off:
            v += cdf[t - off]
        wp.sync_threads()
        cdf[t] = v
        off = off * 2
    wp.sync_threads()
    if t == 0:
        k = int(0)
        while cdf[k] == 0:
            k += 1
        lut[256 - 1] = cdf[k]
    wp.sync_threads()
    cmin = lut[256 - 1]
    wp.sync_threads()
    lut[t] = int(wp.floor(float(cdf[t] - cmin) * 255.0 / float(n - cmin) + 0.5))
    wp.sync_threads()
    stride = wp.grid_dim() * 256
    for i in range(wp.tid(), n, stride):
        out[i] = wp.uint8(lut[int(img[i])])


# ---- decoding and irregular work -----------------------------------------------------------------


@wp.kernel
def viterbi(trans: wp.array2d(dtype=float), emit: wp.array3d(dtype=float), back: wp.array3d(dtype=wp.uint8),
            best: wp.array(dtype=float), last: wp.array(dtype=int)):
    """Viterbi decoding of a hidden Markov model of VS states (speech and sequence decoders), a
    block of VS threads per sequence: the log transition matrix held in shared memory (16 KB,
    so few blocks an SM), the path metrics double-buffered there; each step every state takes
    the best predecessor (max-plus over VS), stores it as a back pointer and adds its emission;
    the best final state and score at the end."""
    st = wp.shared.array(shape=(VS * VS,), dtype=float)
    m = wp.shared.array(shape=(2 * VS,), dtype=float)
    q = wp.block_idx()
    s = wp.thread_idx()
    for p in range(VS):
        st[p * VS + s] = trans[p, s]
    m[s] = emit[q, 0, s]
    wp.sync_threads()
    cur = int(0)
    for t in range(1, emit.shape[1]):
        bv = float(-3.0e38)
        bp = int(0)
        for p in range(VS):
            c = m[cur * VS + p] + st[p * VS + s]
            if c > bv:
                bv = c
                bp = p
        m[(1 - cur) * VS + s] = bv + emit[q, t, s]
        back[q, t, s] = wp.uint8(bp)
        wp.sync_threads()
        cur = 1 - cur
    if s == 0:
        bv = float(-3.0e38)
        bp = int(0)
        for p in range(VS):
            if m[cur * VS + p] > bv:
                bv = m[cur * VS + p]
                bp = p
        best[q] = bv
        last[q] = bp


@wp.func
def collatz_steps(v0: wp.uint64):
    v = v0
    c = int(0)
    while v != wp.uint64(1):
        if (v & wp.uint64(1)) == wp.uint64(1):
            v = wp.uint64(3) * v + wp.uint64(1)
        else:
            v = v >> wp.uint64(1)
        c += 1
    return c


@wp.kernel
def collatz_static(start: wp.uint64, steps: wp.array(dtype=int)):
    """Collatz stopping times (a classic irregular workload): a thread per number start + i
    iterates 3n + 1 and n / 2 down to 1 (a data-dependent trip count)."""
    i = wp.tid()
    steps[i] = collatz_steps(start + wp.uint64(i))


@wp.kernel
def collatz_queue(start: wp.uint64, head: wp.array(dtype=int), steps: wp.array(dtype=int)):
    """The same stopping times by persistent threads (Aila and Laine's dynamic fetching): a fixed
    grid pulls one number at a time from a global counter by an atomic add until the work runs
    out (every thread contends for one word)."""
    n = steps.shape[0]
    while True:
        i = wp.atomic_add(head, 0, 1)
        if i >= n:
            break
        steps[i] = collatz_steps(start + wp.uint64(i))
