"""Kernels of the ninth blind validation set, second part: ML operators (the LSTM cell's
pointwise part, ROI Align), channel decoding (LDPC check nodes), procedural noise, image
analysis and stereo (FAST corners, semi-global matching) and geometry (vertex normals). See
kernels.py for the rules they were written under and the conventions.
"""
import simt as wp

from .kernels import FULL, hash32

DC = 6              # edges a check node of the LDPC code has (a regular (3, 6) code)
SGM_D = 32          # disparities of the semi-global matcher: a lane each
ROI_P = 7           # ROI Align's pooled height and width
BIG = 1 << 20       # "no neighbour" in the semi-global matcher's recurrence


# ---- ML operators -------------------------------------------------------------------------------


@wp.func
def sigmoid(x: float):
    return 1.0 / (1.0 + wp.exp(-x))


@wp.kernel
def lstm_cell(pre: wp.array2d(dtype=float), bias: wp.array(dtype=float), c: wp.array2d(dtype=float), gs: int,
              us: int, h_out: wp.array2d(dtype=float), c_out: wp.array2d(dtype=float)):
    """The pointwise part of an LSTM cell (cuDNN's and PyTorch's fused LSTM cell, after the
    GEMMs): a thread per (sequence, unit) adds the bias to its four gate pre-activations,
    takes three sigmoids and two tanh, and writes the new cell and hidden states. Gate k of
    unit u sits at column k * gs + u * us of a row of ``pre`` (and of ``bias``): gate-planar
    (gs = H, us = 1) or gate-interleaved (gs = 1, us = 4)."""
    b, u = wp.tid()
    o = u * us
    gi = sigmoid(pre[b, o] + bias[o])
    gf = sigmoid(pre[b, o + gs] + bias[o + gs])
    gg = wp.tanh(pre[b, o + 2 * gs] + bias[o + 2 * gs])
    go = sigmoid(pre[b, o + 3 * gs] + bias[o + 3 * gs])
    cn = gf * c[b, u] + gi * gg
    c_out[b, u] = cn
    h_out[b, u] = go * wp.tanh(cn)


@wp.func
def tap_lo(v: float, n: int):
    """The lower of ROI Align's two taps along an axis (the sample at v >= -1 clamped in)."""
    return wp.min(int(wp.max(v, 0.0)), n - 1)


@wp.func
def tap_frac(v: float, n: int):
    """The weight of the upper tap (0 at or past the last row)."""
    vv = wp.max(v, 0.0)
    lo = int(vv)
    f = float(0.0)
    if lo < n - 1:
        f = vv - float(lo)
    return f


@wp.func
def roi_sample_chw(f: wp.array3d(dtype=float), c: int, y: float, x: float):
    h = f.shape[1]
    w = f.shape[2]
    v = float(0.0)
    if y >= -1.0 and y <= float(h) and x >= -1.0 and x <= float(w):
        y0 = tap_lo(y, h)
        x0 = tap_lo(x, w)
        y1 = wp.min(y0 + 1, h - 1)
        x1 = wp.min(x0 + 1, w - 1)
        ly = tap_frac(y, h)
        lx = tap_frac(x, w)
        v = ((1.0 - ly) * ((1.0 - lx) * f[c, y0, x0] + lx * f[c, y0, x1])
             + ly * ((1.0 - lx) * f[c, y1, x0] + lx * f[c, y1, x1]))
    return v


@wp.func
def roi_sample_hwc(f: wp.array3d(dtype=float), c: int, y: float, x: float):
    h = f.shape[0]
    w = f.shape[1]
    v = float(0.0)
    if y >= -1.0 and y <= float(h) and x >= -1.0 and x <= float(w):
        y0 = tap_lo(y, h)
        x0 = tap_lo(x, w)
        y1 = wp.min(y0 + 1, h - 1)
        x1 = wp.min(x0 + 1, w - 1)
        ly = tap_frac(y, h)
        lx = tap_frac(x, w)
        v = ((1.0 - ly) * ((1.0 - lx) * f[y0, x0, c] + lx * f[y0, x1, c])
             + ly * ((1.0 - lx) * f[y1, x0, c] + lx * f[y1, x1, c]))
    return v


@wp.kernel
def roi_align_nchw(feat: wp.array3d(dtype=float), rois: wp.array2d(dtype=float), scale: float,
                   out: wp.array(dtype=float)):
    """ROI Align (Mask R-CNN; torchvision's roi_align, aligned, two by two samples a bin) on
    channel-major features (C, H, W): a thread per output (roi, channel, bin row, bin column),
    bins fastest, averaging four bilinear samples (16 gathered loads) inside its bin of the
    box (x1, y1, x2, y2 in image pixels, times ``scale``)."""
    i = wp.tid()
    nc = feat.shape[0]
    pw = i % ROI_P
    ph = (i // ROI_P) % ROI_P
    c = (i // (ROI_P * ROI_P)) % nc
    r = i // (ROI_P * ROI_P * nc)
    x0 = rois[r, 0] * scale - 0.5
    y0 = rois[r, 1] * scale - 0.5
    bw = (rois[r, 2] - rois[r, 0]) * scale / float(ROI_P)
    bh = (rois[r, 3] - rois[r, 1]) * scale / float(ROI_P)
    acc = float(0.0)
    for iy in range(2):
        y = y0 + float(ph) * bh + (float(iy) + 0.5) * bh * 0.5
        for ix in range(2):
            x = x0 + float(pw) * bw + (float(ix) + 0.5) * bw * 0.5
            acc += roi_sample_chw(feat, c, y, x)
    out[i] = 0.25 * acc


@wp.kernel
def roi_align_nhwc(feat: wp.array3d(dtype=float), rois: wp.array2d(dtype=float), scale: float,
                   out: wp.array(dtype=float)):
    """The same ROI Align on channel-last features (H, W, C), a thread per output (roi, bin
    row, bin column, channel), channels fastest: a warp's 32 lanes read 32 adjacent words at
    each tap."""
    i = wp.tid()
    nc = feat.shape[2]
    c = i % nc
    pw = (i // nc) % ROI_P
    ph = (i // (nc * ROI_P)) % ROI_P
    r = i // (nc * ROI_P * ROI_P)
    x0 = rois[r, 0] * scale - 0.5
    y0 = rois[r, 1] * scale - 0.5
    bw = (rois[r, 2] - rois[r, 0]) * scale / float(ROI_P)
    bh = (rois[r, 3] - rois[r, 1]) * scale / float(ROI_P)
    acc = float(0.0)
    for iy in range(2):
        y = y0 + float(ph) * bh + (float(iy) + 0.5) * bh * 0.5
        for ix in range(2):
            x = x0 + float(pw) * bw + (float(ix) + 0.5) * bw * 0.5
            acc += roi_sample_hwc(feat, c, y, x)
    out[i] = 0.25 * acc


# ---- channel decoding ----------------------------------------------------------------------------


@wp.kernel
def ldpc_minsum(var: wp.array2d(dtype=int), llr: wp.array(dtype=float), r_in: wp.array2d(dtype=float),
                alpha: float, r_out: wp.array2d(dtype=float)):
    """An LDPC decoder's check-node update by normalised min-sum (5G and DVB-S2 GPU decoders),
    a thread per check node of degree DC, its edges slot-major (adjacent checks adjacent): the
    variable-to-check messages (the variables' posteriors, gathered, less the old
    check-to-variable messages), their sign product and two least magnitudes; each edge gets
    alpha times the least magnitude of the others with the others' sign."""
    c = wp.tid()
    q = wp.vector(length=DC, dtype=float)
    m1 = float(3.0e38)
    m2 = float(3.0e38)
    at = int(-1)
    sgn = float(1.0)
    for k in range(DC):
        qv = llr[var[k, c]] - r_in[k, c]
        q[k] = qv
        a = wp.abs(qv)
        if qv < 0.0:
            sgn = -sgn
        if a < m1:
            m2 = m1
            m1 = a
            at = k
        elif a < m2:
            m2 = a
    for k in range(DC):
        mag = m1
        if k == at:
            mag = m2
        s = sgn
        if q[k] < 0.0:
            s = -sgn
        r_out[k, c] = alpha * s * mag


@wp.kernel
def ldpc_tanh(var: wp.array2d(dtype=int), llr: wp.array(dtype=float), r_in: wp.array2d(dtype=float),
              alpha: float, r_out: wp.array2d(dtype=float)):
    """The same check-node update by the sum-product rule (belief propagation's tanh rule):
    each edge gets 2 atanh of the product of the others' tanh(Q / 2), the product clamped
    inside +-(1 - 1e-6); alpha is unused (the same arguments as ldpc_minsum)."""
    c = wp.tid()
    t = wp.vector(length=DC, dtype=float)
    for k in range(DC):
        t[k] = wp.tanh(0.5 * (llr[var[k, c]] - r_in[k, c]))
    for k in range(DC):
        p = float(1.0)
        for j in range(DC):
            if j != k:
                p = p * t[j]
        p = wp.clamp(p, -0.999999, 0.999999)
        r_out[k, c] = wp.log((1.0 + p) / (1.0 - p))


# ---- procedural noise ----------------------------------------------------------------------------


@wp.func
def fade(t: float):
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@wp.func
def grad3(h: int, x: float, y: float, z: float):
    """Perlin's improved-noise gradient: twelve edge directions of a cube picked by h's low four
    bits."""
    b = h & 15
    u = y
    if b < 8:
        u = x
    v = z
    if b < 4:
        v = y
    elif b == 12 or b == 14:
        v = x
    if (b & 1) != 0:
        u = -u
    if (b & 2) != 0:
        v = -v
    return u + v


@wp.func
def mix_corners(u: float, v: float, w: float, xf: float, yf: float, zf: float, h000: int, h100: int, h010: int,
                h110: int, h001: int, h101: int, h011: int, h111: int):
    x1 = xf - 1.0
    y1 = yf - 1.0
    z1 = zf - 1.0
    a = wp.lerp(wp.lerp(grad3(h000, xf, yf, zf), grad3(h100, x1, yf, zf), u),
                wp.lerp(grad3(h010, xf, y1, zf), grad3(h110, x1, y1, zf), u), v)
    b = wp.lerp(wp.lerp(grad3(h001, xf, yf, z1), grad3(h101, x1, yf, z1), u),
                wp.lerp(grad3(h011, xf, y1, z1), grad3(h111, x1, y1, z1), u), v)
    return wp.lerp(a, b, w)


@wp.func
def noise_table(perm: wp.array(dtype=int), x: float, y: float, z: float):
    """Perlin's improved noise (2002) with his permutation table (512 entries, in global
    memory): three dependent lookups to each corner's hash."""
    fx = wp.floor(x)
    fy = wp.floor(y)
    fz = wp.floor(z)
    cx = int(fx) & 255
    cy = int(fy) & 255
    cz = int(fz) & 255
    xf = x - fx
    yf = y - fy
    zf = z - fz
    a = perm[cx] + cy
    aa = perm[a] + cz
    ab = perm[a + 1] + cz
    b = perm[cx + 1] + cy
    ba = perm[b] + cz
    bb = perm[b + 1] + cz
    return mix_corners(fade(xf), fade(yf), fade(zf), xf, yf, zf, perm[aa], perm[ba], perm[ab], perm[bb],
                       perm[aa + 1], perm[ba + 1], perm[ab + 1], perm[bb + 1])


@wp.func
def corner_hash(cx: int, cy: int, cz: int, seed: wp.uint32):
    return int(hash32((wp.uint32(cx) * wp.uint32(0x8DA6B343)) ^ (wp.uint32(cy) * wp.uint32(0xD8163841))
                      ^ (wp.uint32(cz) * wp.uint32(0xCB1AB31F)) ^ seed))


@wp.func
def noise_hash(seed: wp.uint32, x: float, y: float, z: float):
    """The same gradient noise with each corner's gradient picked by an integer hash of its
    coordinates (no table)."""
    fx = wp.floor(x)
    fy = wp.floor(y)
    fz = wp.floor(z)
    cx = int(fx)
    cy = int(fy)
    cz = int(fz)
    xf = x - fx
    yf = y - fy
    zf = z - fz
    return mix_corners(fade(xf), fade(yf), fade(zf), xf, yf, zf, corner_hash(cx, cy, cz, seed),
                       corner_hash(cx + 1, cy, cz, seed), corner_hash(cx, cy + 1, cz, seed),
                       corner_hash(cx + 1, cy + 1, cz, seed), corner_hash(cx, cy, cz + 1, seed),
                       corner_hash(cx + 1, cy, cz + 1, seed), corner_hash(cx, cy + 1, cz + 1, seed),
                       corner_hash(cx + 1, cy + 1, cz + 1, seed))


@wp.kernel
def perlin_table(perm: wp.array(dtype=int), scale: float, z0: float, octaves: int, out: wp.array2d(dtype=float)):
    """Fractal Brownian motion of 3-D Perlin noise (terrain and texture synthesis), a thread per
    pixel of a slice at depth z0: ``octaves`` octaves, each of twice the frequency and half
    the amplitude, by the permutation table."""
    i, j = wp.tid()
    x = float(j) * scale
    y = float(i) * scale
    amp = float(1.0)
    f = float(1.0)
    s = float(0.0)
    for o in range(octaves):
        s += amp * noise_table(perm, x * f, y * f, z0 * f)
        amp *= 0.5
        f *= 2.0
    out[i, j] = s


@wp.kernel
def perlin_hash(seed: wp.uint32, scale: float, z0: float, octaves: int, out: wp.array2d(dtype=float)):
    """The same fractal noise with hashed corners (eight integer hashes an octave, no loads)."""
    i, j = wp.tid()
    x = float(j) * scale
    y = float(i) * scale
    amp = float(1.0)
    f = float(1.0)
    s = float(0.0)
    for o in range(octaves):
        s += amp * noise_hash(seed, x * f, y * f, z0 * f)
        amp *= 0.5
        f *= 2.0
    out[i, j] = s


# ---- image analysis and stereo -------------------------------------------------------------------


@wp.func
def arc9(m: wp.uint32):
    """Whether the 16-bit circular mask m has nine consecutive set bits."""
    d = m | (m << wp.uint32(16))
    a = d
    for k in range(1, 9):
        a = a & (d >> wp.uint32(k))
    return a != wp.uint32(0)


@wp.func
def segment_test(img: wp.array2d(dtype=wp.uint8), ring: wp.array2d(dtype=int), i: int, j: int, c: int, thr: int):
    """FAST's full segment test: 1 for a bright corner, 2 for a dark one, else 0."""
    bright = wp.uint32(0)
    dark = wp.uint32(0)
    for k in range(16):
        v = int(img[i + ring[k, 0], j + ring[k, 1]])
        if v > c + thr:
            bright = bright | (wp.uint32(1) << wp.uint32(k))
        elif v < c - thr:
            dark = dark | (wp.uint32(1) << wp.uint32(k))
    r = int(0)
    if arc9(bright):
        r = 1
    elif arc9(dark):
        r = 2
    return r


@wp.kernel
def fast9_full(img: wp.array2d(dtype=wp.uint8), ring: wp.array2d(dtype=int), thr: int,
               out: wp.array2d(dtype=wp.uint8)):
    """FAST-9 corner detection (Rosten and Drummond; OpenCV's CUDA FAST), a thread per pixel:
    the 16 pixels of the radius-3 Bresenham circle (offsets in ``ring``) compared with the
    centre plus and minus ``thr``; a corner where nine consecutive are all brighter or all
    darker. Every pixel runs the full test."""
    i, j = wp.tid()
    h = img.shape[0]
    w = img.shape[1]
    r = int(0)
    if i >= 3 and i < h - 3 and j >= 3 and j < w - 3:
        r = segment_test(img, ring, i, j, int(img[i, j]), thr)
    out[i, j] = wp.uint8(r)


@wp.kernel
def fast9_early(img: wp.array2d(dtype=wp.uint8), ring: wp.array2d(dtype=int), thr: int,
                out: wp.array2d(dtype=wp.uint8)):
    """The same detector with FAST's high-speed rejection first: nine consecutive circle pixels
    always include one of each opposite pair of the four compass points, so a pixel whose
    compass points fail that for brighter and for darker is rejected after four loads; the rest
    run the full test."""
    i, j = wp.tid()
    h = img.shape[0]
    w = img.shape[1]
    r = int(0)
    if i >= 3 and i < h - 3 and j >= 3 and j < w - 3:
        c = int(img[i, j])
        n = int(img[i - 3, j])
        e = int(img[i, j + 3])
        s = int(img[i + 3, j])
        west = int(img[i, j - 3])
        hi = c + thr
        lo = c - thr
        maybe_bright = (n > hi or s > hi) and (e > hi or west > hi)
        maybe_dark = (n < lo or s < lo) and (e < lo or west < lo)
        if maybe_bright or maybe_dark:
            r = segment_test(img, ring, i, j, c, thr)
    out[i, j] = wp.uint8(r)


@wp.func
def warp_imin(v: int):
    m = v
    for k in range(5):
        m = wp.min(m, wp.shfl_xor_sync(FULL, m, 16 >> k))
    return m


@wp.kernel
def sgm_path(cost: wp.array(dtype=wp.uint8), pstride: int, sstride: int, length: int, p1: int, p2: int,
             out: wp.array(dtype=wp.uint16)):
    """Semi-global matching's cost aggregation along one direction (Hirschmüller; the GPU SGM
    of stereo pipelines), a warp per path and a lane per disparity (SGM_D of them, a pixel's
    costs contiguous): each step takes the matching cost plus the least of the previous
    pixel's cost at the same disparity, at the next ones (plus p1, by shuffles up and down)
    and at any (plus p2), less the previous least (a shuffle minimum). Path q starts at pixel
    q * pstride and steps by sstride for ``length`` pixels (rows: W and 1; columns: 1 and W)."""
    g = wp.tid()
    lane = wp.lane_id()
    pix = (g // 32) * pstride
    prev = int(cost[pix * SGM_D + lane])
    out[pix * SGM_D + lane] = wp.uint16(prev)
    m = warp_imin(prev)
    for s in range(1, length):
        pix += sstride
        up = wp.shfl_up_sync(FULL, prev, 1)
        dn = wp.shfl_down_sync(FULL, prev, 1)
        if lane == 0:
            up = BIG
        if lane == 31:
            dn = BIG
        best = wp.min(wp.min(prev, wp.min(up, dn) + p1), m + p2)
        cur = int(cost[pix * SGM_D + lane]) + best - m
        out[pix * SGM_D + lane] = wp.uint16(cur)
        prev = cur
        m = warp_imin(cur)


# ---- geometry ------------------------------------------------------------------------------------


@wp.func
def face_normal(pos: wp.array2d(dtype=float), a: int, b: int, c: int):
    """A triangle's normal weighted by twice its area: (p1 - p0) x (p2 - p0)."""
    p0 = wp.vec3(pos[a, 0], pos[a, 1], pos[a, 2])
    p1 = wp.vec3(pos[b, 0], pos[b, 1], pos[b, 2])
    p2 = wp.vec3(pos[c, 0], pos[c, 1], pos[c, 2])
    return wp.cross(p1 - p0, p2 - p0)


@wp.kernel
def normals_scatter(pos: wp.array2d(dtype=float), tri: wp.array2d(dtype=int), nrm: wp.array2d(dtype=float)):
    """Area-weighted vertex normals of a triangle mesh (every renderer's and mesh library's
    first pass; normalisation follows), scattered: a thread per triangle computes its normal
    and adds it to its three vertices' by float atomics (nine a triangle)."""
    t = wp.tid()
    a = tri[t, 0]
    b = tri[t, 1]
    c = tri[t, 2]
    n = face_normal(pos, a, b, c)
    for k in range(3):
        wp.atomic_add(nrm, a, k, n[k])
        wp.atomic_add(nrm, b, k, n[k])
        wp.atomic_add(nrm, c, k, n[k])


@wp.kernel
def normals_gather(pos: wp.array2d(dtype=float), tri: wp.array2d(dtype=int), vptr: wp.array(dtype=int),
                   vtri: wp.array(dtype=int), nrm: wp.array2d(dtype=float)):
    """The same normals gathered: a thread per vertex walks its incident triangles (a CSR
    list) and recomputes each one's normal (each triangle's thrice in all), no atomics."""
    v = wp.tid()
    s = wp.vec3(0.0, 0.0, 0.0)
    for k in range(vptr[v], vptr[v + 1]):
        t = vtri[k]
        s += face_normal(pos, tri[t, 0], tri[t, 1], tri[t, 2])
    nrm[v, 0] = s[0]
    nrm[v, 1] = s[1]
    nrm[v, 2] = s[2]
