"""Kernels of the tenth blind validation set, second part: an ML operator (Mamba's selective
scan), stereo and image analysis (census transform, Canny's non-maximum suppression,
Lucas-Kanade optical flow), signal processing (ultrasound delay-and-sum beamforming) and
graphics (linear-blend and dual-quaternion skinning, triangle rasterisation into a depth
buffer). See kernels.py for the rules they were written under and the conventions.
"""
import simt as wp

SSM_N = 16          # the selective scan's state size a channel (Mamba's d_state)
TAN22 = 0.41421356  # tan(22.5 degrees): Canny's direction sectors
TAN67 = 2.41421356  # tan(67.5 degrees)
SUB = 16            # the rasteriser's subpixel steps a pixel (fixed point, 4 bits)


# ---- ML operators: the selective scan --------------------------------------------------------------


@wp.kernel
def selective_scan(x: wp.array(dtype=float), delta: wp.array(dtype=float), dbias: wp.array(dtype=float),
                   a: wp.array2d(dtype=float), bm: wp.array3d(dtype=float), cm: wp.array3d(dtype=float),
                   dskip: wp.array(dtype=float), nd: int, sb: int, st: int, sd: int, y: wp.array(dtype=float)):
    """Mamba's selective state-space scan (S6; the sequential form of its selective_scan
    kernel), a thread per (sequence b, channel d) walking the sequence: each step the step
    size softplus(delta + bias), SSM_N states decayed by exp(dt A) and fed dt B_t x_t, the
    output C_t . h + D x_t. B and C are shared by all channels of a sequence (one word for the
    whole warp). Element (b, t, d) of x, delta and y is at b * sb + t * st + d * sd: channels
    fastest (B, L, D: lanes adjacent) or time fastest (B, D, L: lanes a sequence apart)."""
    g = wp.tid()
    b = g // nd
    d = g % nd
    av = wp.vector(length=SSM_N, dtype=float)
    h = wp.vector(length=SSM_N, dtype=float)
    for n in range(SSM_N):
        av[n] = a[d, n]
        h[n] = 0.0
    base = b * sb + d * sd
    bias = dbias[d]
    ds = dskip[d]
    for t in range(bm.shape[1]):
        o = base + t * st
        xv = x[o]
        z = delta[o] + bias
        dt = z
        if z < 20.0:
            dt = wp.log(1.0 + wp.exp(z))
        yv = float(0.0)
        for n in range(SSM_N):
            hn = wp.exp(dt * av[n]) * h[n] + dt * bm[b, t, n] * xv
            h[n] = hn
            yv += hn * cm[b, t, n]
        y[o] = yv + ds * xv


# ---- stereo and image analysis ---------------------------------------------------------------------


@wp.kernel
def census5x5(img: wp.array2d(dtype=wp.uint8), out: wp.array2d(dtype=wp.uint32)):
    """The census transform (Zabih and Woodfill; the matching cost of GPU stereo pipelines) over
    a 5 x 5 window: a bit a neighbour, set where it is darker than the centre, 24 bits in
    row order; edges clamped."""
    i, j = wp.tid()
    h = img.shape[0]
    w = img.shape[1]
    c = int(img[i, j])
    bits = wp.uint32(0)
    for dy in range(-2, 3):
        y = wp.clamp(i + dy, 0, h - 1)
        for dx in range(-2, 3):
            if dy != 0 or dx != 0:
                x = wp.clamp(j + dx, 0, w - 1)
                bits = bits << wp.uint32(1)
                if int(img[y, x]) < c:
                    bits = bits | wp.uint32(1)
    out[i, j] = bits


@wp.kernel
def census9x7(img: wp.array2d(dtype=wp.uint8), out: wp.array2d(dtype=wp.uint64)):
    """The same transform over a 9-wide, 7-high window (62 bits in a 64-bit word, as in
    semi-global matching's census costs)."""
    i, j = wp.tid()
    h = img.shape[0]
    w = img.shape[1]
    c = int(img[i, j])
    bits = wp.uint64(0)
    for dy in range(-3, 4):
        y = wp.clamp(i + dy, 0, h - 1)
        for dx in range(-4, 5):
            if dy != 0 or dx != 0:
                x = wp.clamp(j + dx, 0, w - 1)
                bits = bits << wp.uint64(1)
                if int(img[y, x]) < c:
                    bits = bits | wp.uint64(1)
    out[i, j] = bits


@wp.func
def grad_mag(gx: wp.array2d(dtype=float), gy: wp.array2d(dtype=float), i: int, j: int):
    a = gx[i, j]
    b = gy[i, j]
    return wp.sqrt(a * a + b * b)


@wp.kernel
def canny_nms(gx: wp.array2d(dtype=float), gy: wp.array2d(dtype=float), lo: float, hi: float,
              out: wp.array2d(dtype=wp.uint8)):
    """Canny's edge thinning (non-maximum suppression) and double threshold (OpenCV's and NPP's
    Canny), a thread per pixel of a gradient image (gx along rows, gy down columns): where
    the magnitude reaches ``lo``, its direction is put in one of four sectors (by comparing
    |gy| with tan 22.5 and tan 67.5 times |gx|, no arctangent), the two neighbours across the
    edge recomputed and compared; a maximum is 2 (strong, at least ``hi``) or 1 (weak), all
    else 0, the border 0."""
    i, j = wp.tid()
    h = gx.shape[0]
    w = gx.shape[1]
    r = int(0)
    if i > 0 and i < h - 1 and j > 0 and j < w - 1:
        ax = gx[i, j]
        ay = gy[i, j]
        m = wp.sqrt(ax * ax + ay * ay)
        if m >= lo:
            ux = wp.abs(ax)
            uy = wp.abs(ay)
            di = int(0)
            dj = int(1)
            if uy <= TAN22 * ux:
                di = 0
                dj = 1
            elif uy >= TAN67 * ux:
                di = 1
                dj = 0
            elif ax * ay > 0.0:
                di = 1
                dj = 1
            else:
                di = 1
                dj = -1
            m1 = grad_mag(gx, gy, i + di, j + dj)
            m2 = grad_mag(gx, gy, i - di, j - dj)
            if m > m1 and m >= m2:
                r = 1
                if m >= hi:
                    r = 2
    out[i, j] = wp.uint8(r)


@wp.kernel
def lucas_kanade(ix: wp.array2d(dtype=float), iy: wp.array2d(dtype=float), it: wp.array2d(dtype=float), r: int,
                 u: wp.array2d(dtype=float), v: wp.array2d(dtype=float)):
    """Lucas-Kanade optical flow (OpenCV's dense LK, the first level of pyramidal trackers), a
    thread per pixel: over a (2r + 1)^2 window (edges clamped) the sums of Ix^2, Ix Iy, Iy^2,
    Ix It and Iy It from the three derivative images (three loads a tap), then the 2 x 2
    system solved where it is well conditioned (determinant above a hundredth of the trace
    squared), else no flow."""
    i, j = wp.tid()
    h = ix.shape[0]
    w = ix.shape[1]
    sxx = float(0.0)
    sxy = float(0.0)
    syy = float(0.0)
    sxt = float(0.0)
    syt = float(0.0)
    for dy in range(-r, r + 1):
        y = wp.clamp(i + dy, 0, h - 1)
        for dx in range(-r, r + 1):
            x = wp.clamp(j + dx, 0, w - 1)
            gx = ix[y, x]
            gy = iy[y, x]
            gt = it[y, x]
            sxx += gx * gx
            sxy += gx * gy
            syy += gy * gy
            sxt += gx * gt
            syt += gy * gt
    det = sxx * syy - sxy * sxy
    tr = sxx + syy
    uu = float(0.0)
    vv = float(0.0)
    if det > 0.01 * tr * tr:
        uu = (sxy * syt - syy * sxt) / det
        vv = (sxy * sxt - sxx * syt) / det
    u[i, j] = uu
    v[i, j] = vv


# ---- signal processing: ultrasound beamforming ----------------------------------------------------


@wp.kernel
def das_beamform(rf: wp.array2d(dtype=float), xe: wp.array(dtype=float), x0: float, dxp: float, z0: float,
                 dzp: float, fs_c: float, fnum: float, zfast: int, img: wp.array2d(dtype=float)):
    """Delay-and-sum beamforming of a plane-wave ultrasound acquisition (the GPU beamformers of
    ultrafast imaging), a thread per image pixel (x, z): for every channel within the dynamic
    aperture (|x - x_e| at most z / (2 f#)) the two-way delay (z + sqrt(z^2 + (x - x_e)^2)) / c
    in samples, a linear interpolation of the channel's RF trace there, a Hann apodisation
    (a cosine); ``rf`` is channel-major. The launch is (nz, nx) with x fastest (zfast = 0:
    lanes across the image) or (nx, nz) with z fastest (zfast = 1: lanes down it)."""
    i, j = wp.tid()
    iz = i
    ix = j
    if zfast != 0:
        iz = j
        ix = i
    x = x0 + float(ix) * dxp
    z = z0 + float(iz) * dzp
    half = z / (2.0 * fnum)
    ns = rf.shape[1]
    acc = float(0.0)
    for ch in range(rf.shape[0]):
        dx = x - xe[ch]
        if wp.abs(dx) <= half:
            s = (z + wp.sqrt(z * z + dx * dx)) * fs_c
            k = int(s)
            if k < ns - 1:
                f = s - float(k)
                apod = 0.5 + 0.5 * wp.cos(3.141592653589793 * dx / half)
                acc += apod * ((1.0 - f) * rf[ch, k] + f * rf[ch, k + 1])
    img[iz, ix] = acc


# ---- graphics: skinning and rasterisation ---------------------------------------------------------


@wp.kernel
def skin_lbs(pos: wp.array2d(dtype=float), bone: wp.array2d(dtype=int), weight: wp.array2d(dtype=float),
             mats: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    """Linear blend skinning (every game engine's and glTF's vertex skinning), a thread per
    vertex: four bone influences, each bone's 3 x 4 matrix (12 floats, row-major, gathered)
    applied to the rest position and weighted."""
    i = wp.tid()
    px = pos[i, 0]
    py = pos[i, 1]
    pz = pos[i, 2]
    ox = float(0.0)
    oy = float(0.0)
    oz = float(0.0)
    for k in range(4):
        b = bone[i, k]
        w = weight[i, k]
        ox += w * (mats[b, 0] * px + mats[b, 1] * py + mats[b, 2] * pz + mats[b, 3])
        oy += w * (mats[b, 4] * px + mats[b, 5] * py + mats[b, 6] * pz + mats[b, 7])
        oz += w * (mats[b, 8] * px + mats[b, 9] * py + mats[b, 10] * pz + mats[b, 11])
    out[i, 0] = ox
    out[i, 1] = oy
    out[i, 2] = oz


@wp.kernel
def skin_dqs(pos: wp.array2d(dtype=float), bone: wp.array2d(dtype=int), weight: wp.array2d(dtype=float),
             dq: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    """Dual-quaternion skinning (Kavan et al.), a thread per vertex: the four bones' unit dual
    quaternions (8 floats: real w, x, y, z, then dual w, x, y, z) blended with their weights,
    each flipped into the first's hemisphere, normalised by the real part's length; the rest
    position rotated by the real part and translated by 2 q_d q_r*."""
    i = wp.tid()
    b0 = bone[i, 0]
    r0w = dq[b0, 0]
    r0x = dq[b0, 1]
    r0y = dq[b0, 2]
    r0z = dq[b0, 3]
    rw = float(0.0)
    rv = wp.vec3(0.0, 0.0, 0.0)
    tw = float(0.0)
    tv = wp.vec3(0.0, 0.0, 0.0)
    for k in range(4):
        b = bone[i, k]
        w = weight[i, k]
        qw = dq[b, 0]
        qv = wp.vec3(dq[b, 1], dq[b, 2], dq[b, 3])
        if qw * r0w + qv[0] * r0x + qv[1] * r0y + qv[2] * r0z < 0.0:
            w = -w
        rw += w * qw
        rv += w * qv
        tw += w * dq[b, 4]
        tv += w * wp.vec3(dq[b, 5], dq[b, 6], dq[b, 7])
    inv = 1.0 / wp.sqrt(rw * rw + wp.dot(rv, rv))
    rw *= inv
    rv *= inv
    tw *= inv
    tv *= inv
    p = wp.vec3(pos[i, 0], pos[i, 1], pos[i, 2])
    q = p + 2.0 * wp.cross(rv, wp.cross(rv, p) + rw * p) + 2.0 * (rw * tv - tw * rv + wp.cross(rv, tv))
    out[i, 0] = q[0]
    out[i, 1] = q[1]
    out[i, 2] = q[2]


@wp.kernel
def raster_tris(tri: wp.array2d(dtype=int), z: wp.array2d(dtype=float), width: int, height: int,
                zbuf: wp.array(dtype=wp.uint64)):
    """Triangle rasterisation into a depth buffer, a thread per triangle (the software
    rasterisers of point-cloud and CUDA renderers): screen vertices in fixed point (SUB steps
    a pixel, counter-clockwise), the bounding box walked pixel by pixel, three integer edge
    functions at the pixel's centre, and where all are non-negative the interpolated depth
    (24 bits) above the triangle's id offered to the pixel by a 64-bit atomic min; a large
    triangle is a long loop for one thread."""
    t = wp.tid()
    x0 = tri[t, 0]
    y0 = tri[t, 1]
    x1 = tri[t, 2]
    y1 = tri[t, 3]
    x2 = tri[t, 4]
    y2 = tri[t, 5]
    z0 = z[t, 0]
    z1 = z[t, 1]
    z2 = z[t, 2]
    area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
    inv = 1.0 / float(area)
    xmin = wp.max(wp.min(wp.min(x0, x1), x2) // SUB, 0)
    xmax = wp.min(wp.max(wp.max(x0, x1), x2) // SUB, width - 1)
    ymin = wp.max(wp.min(wp.min(y0, y1), y2) // SUB, 0)
    ymax = wp.min(wp.max(wp.max(y0, y1), y2) // SUB, height - 1)
    for py in range(ymin, ymax + 1):
        cy = py * SUB + SUB // 2
        for px in range(xmin, xmax + 1):
            cx = px * SUB + SUB // 2
            e0 = (x2 - x1) * (cy - y1) - (y2 - y1) * (cx - x1)
            e1 = (x0 - x2) * (cy - y2) - (y0 - y2) * (cx - x2)
            e2 = (x1 - x0) * (cy - y0) - (y1 - y0) * (cx - x0)
            if e0 >= 0 and e1 >= 0 and e2 >= 0:
                zz = (float(e0) * z0 + float(e1) * z1 + float(e2) * z2) * inv
                key = (wp.uint64(int(zz * 16777216.0)) << wp.uint64(32)) | wp.uint64(t)
                wp.atomic_min(zbuf, py * width + px, key)
