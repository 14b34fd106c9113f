"""Kernels of the twelfth blind validation set, second part: tomography (parallel-beam
back-projection), vision (the Harris corner response), flow visualisation (RK4 particle
advection), physics (mass-spring cloth forces), radar (cell-averaging CFAR detection),
geometry (bicubic Bézier patch evaluation) and convolutional networks (Winograd's input
transform). See kernels.py for the rules they were written under and the conventions.
"""
import simt as wp

BP_MAXANG = 512     # backproject_table: angles the shared cosine and sine tables hold
HB = 16             # harris_tiled: a block of 16 x 16 pixels
HR = 2              # Harris: the structure tensor's window radius (5 x 5)
CF_GUARD = 2        # CFAR: guard cells each side
CF_TRAIN = 16       # CFAR: training cells each side
BZ_RES = 16         # Bézier: samples along u and along v a patch


# ---- tomography: parallel-beam back-projection ------------------------------------------------------


@wp.func
def bp_sample(sino: wp.array2d(dtype=float), a: int, t: float):
    """The sinogram row a at detector position t, linearly interpolated (zero outside)."""
    nd = sino.shape[1]
    i0 = int(wp.floor(t))
    f = t - float(i0)
    r = float(0.0)
    if i0 >= 0 and i0 < nd - 1:
        r = sino[a, i0] * (1.0 - f) + sino[a, i0 + 1] * f
    return r


@wp.kernel
def backproject_trig(sino: wp.array2d(dtype=float), dtheta: float, scale: float, img: wp.array2d(dtype=float)):
    """Back-projection of a parallel-beam sinogram (the second half of filtered back-projection,
    as the GPU CT toolkits ASTRA, TIGRE and RTK run it): a thread per image pixel loops over
    the projection angles, projects its centre onto the detector, t = x cos + y sin, and adds
    the row's linearly interpolated value; the cosine and sine computed each angle."""
    y, x = wp.tid()
    n = img.shape[0]
    c0 = 0.5 * float(n - 1)
    d0 = 0.5 * float(sino.shape[1] - 1)
    px = float(x) - c0
    py = float(y) - c0
    s = float(0.0)
    for a in range(sino.shape[0]):
        th = float(a) * dtheta
        s += bp_sample(sino, a, px * wp.cos(th) + py * wp.sin(th) + d0)
    img[y, x] = s * scale


@wp.kernel
def backproject_table(sino: wp.array2d(dtype=float), cos_t: wp.array(dtype=float), sin_t: wp.array(dtype=float),
                      scale: float, img: wp.array2d(dtype=float)):
    """The same back-projection with the angles' cosines and sines from tables each block
    stages in shared memory first."""
    cs = wp.shared.array(shape=(BP_MAXANG,), dtype=float)
    sn = wp.shared.array(shape=(BP_MAXANG,), dtype=float)
    ty, tx = wp.thread_idx()
    na = sino.shape[0]
    for k in range(ty * 16 + tx, na, 256):
        cs[k] = cos_t[k]
        sn[k] = sin_t[k]
    wp.sync_threads()
    y, x = wp.tid()
    n = img.shape[0]
    c0 = 0.5 * float(n - 1)
    d0 = 0.5 * float(sino.shape[1] - 1)
    px = float(x) - c0
    py = float(y) - c0
    s = float(0.0)
    for a in range(na):
        s += bp_sample(sino, a, px * cs[a] + py * sn[a] + d0)
    img[y, x] = s * scale


# ---- vision: the Harris corner response ----------------------------------------------------------------


@wp.func
def px_at(img: wp.array2d(dtype=float), y: int, x: int):
    return img[wp.clamp(y, 0, img.shape[0] - 1), wp.clamp(x, 0, img.shape[1] - 1)]


@wp.func
def sobel_x(img: wp.array2d(dtype=float), y: int, x: int):
    return (px_at(img, y - 1, x + 1) + 2.0 * px_at(img, y, x + 1) + px_at(img, y + 1, x + 1)
            - px_at(img, y - 1, x - 1) - 2.0 * px_at(img, y, x - 1) - px_at(img, y + 1, x - 1))


@wp.func
def sobel_y(img: wp.array2d(dtype=float), y: int, x: int):
    return (px_at(img, y + 1, x - 1) + 2.0 * px_at(img, y + 1, x) + px_at(img, y + 1, x + 1)
            - px_at(img, y - 1, x - 1) - 2.0 * px_at(img, y - 1, x) - px_at(img, y - 1, x + 1))


@wp.kernel
def harris_direct(img: wp.array2d(dtype=float), k: float, resp: wp.array2d(dtype=float)):
    """The Harris corner response (OpenCV's cornerHarris, its CUDA module's Harris detector): the
    structure tensor's entries (Ix^2, Iy^2, Ix Iy) summed over a 5 x 5 window of Sobel
    gradients (borders clamped), then det - k trace^2. A thread per pixel recomputes the
    gradients of its whole window from global memory (8 loads each of 25)."""
    y, x = wp.tid()
    sxx = float(0.0)
    syy = float(0.0)
    sxy = float(0.0)
    for dy in range(-HR, HR + 1):
        for dx in range(-HR, HR + 1):
            yy = wp.clamp(y + dy, 0, img.shape[0] - 1)
            xx = wp.clamp(x + dx, 0, img.shape[1] - 1)
            gx = sobel_x(img, yy, xx)
            gy = sobel_y(img, yy, xx)
            sxx += gx * gx
            syy += gy * gy
            sxy += gx * gy
    tr = sxx + syy
    resp[y, x] = sxx * syy - sxy * sxy - k * tr * tr


@wp.kernel
def harris_tiled(img: wp.array2d(dtype=float), k: float, resp: wp.array2d(dtype=float)):
    """The same response a 16 x 16 block at a time: the block stages its pixels and a halo of
    three (22 x 22) in shared memory, computes the gradients of the window's 20 x 20 pixels
    into two more shared tiles after a barrier, then every thread sums its 5 x 5 window from
    them after another."""
    im = wp.shared.array(shape=(HB + 2 * HR + 2, HB + 2 * HR + 2), dtype=float)
    gxs = wp.shared.array(shape=(HB + 2 * HR, HB + 2 * HR), dtype=float)
    gys = wp.shared.array(shape=(HB + 2 * HR, HB + 2 * HR), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    t = ty * HB + tx
    h = img.shape[0]
    w = img.shape[1]
    oy = by * HB - HR - 1
    ox = bx * HB - HR - 1
    side = HB + 2 * HR + 2
    for q in range(t, side * side, HB * HB):
        ly = q // side
        lx = q - ly * side
        im[ly, lx] = img[wp.clamp(oy + ly, 0, h - 1), wp.clamp(ox + lx, 0, w - 1)]
    wp.sync_threads()
    gs = HB + 2 * HR
    for q in range(t, gs * gs, HB * HB):
        ly = q // gs
        lx = q - ly * gs
        # the gradient at the clamped position, as the direct kernel takes it
        cy = wp.clamp(oy + 1 + ly, 0, h - 1) - oy
        cx = wp.clamp(ox + 1 + lx, 0, w - 1) - ox
        gxs[ly, lx] = (im[cy - 1, cx + 1] + 2.0 * im[cy, cx + 1] + im[cy + 1, cx + 1]
                       - im[cy - 1, cx - 1] - 2.0 * im[cy, cx - 1] - im[cy + 1, cx - 1])
        gys[ly, lx] = (im[cy + 1, cx - 1] + 2.0 * im[cy + 1, cx] + im[cy + 1, cx + 1]
                       - im[cy - 1, cx - 1] - 2.0 * im[cy - 1, cx] - im[cy - 1, cx + 1])
    wp.sync_threads()
    sxx = float(0.0)
    syy = float(0.0)
    sxy = float(0.0)
    for dy in range(2 * HR + 1):
        for dx in range(2 * HR + 1):
            gx = gxs[ty + dy, tx + dx]
            gy = gys[ty + dy, tx + dx]
            sxx += gx * gx
            syy += gy * gy
            sxy += gx * gy
    tr = sxx + syy
    resp[by * HB + ty, bx * HB + tx] = sxx * syy - sxy * sxy - k * tr * tr


# ---- flow visualisation: RK4 particle advection ----------------------------------------------------------


@wp.func
def vel_at(vel: wp.array3d(dtype=float), px: float, py: float):
    """The velocity at (px, py) in grid units, bilinear, the position clamped into the grid."""
    ny = vel.shape[0]
    nx = vel.shape[1]
    x = wp.clamp(px, 0.0, float(nx - 1) - 0.001)
    y = wp.clamp(py, 0.0, float(ny - 1) - 0.001)
    i = int(y)
    j = int(x)
    fy = y - float(i)
    fx = x - float(j)
    u = ((vel[i, j, 0] * (1.0 - fx) + vel[i, j + 1, 0] * fx) * (1.0 - fy)
         + (vel[i + 1, j, 0] * (1.0 - fx) + vel[i + 1, j + 1, 0] * fx) * fy)
    v = ((vel[i, j, 1] * (1.0 - fx) + vel[i, j + 1, 1] * fx) * (1.0 - fy)
         + (vel[i + 1, j, 1] * (1.0 - fx) + vel[i + 1, j + 1, 1] * fx) * fy)
    return wp.vec2(u, v)


@wp.kernel
def rk4_advect(vel: wp.array3d(dtype=float), seeds: wp.array2d(dtype=float), nsteps: int, dt: float,
               out: wp.array2d(dtype=float)):
    """Particle advection through a steady 2-D velocity field by classical Runge-Kutta (VTK-m's
    and ParaView's GPU streamline and FTLE filters): a thread per particle takes ``nsteps``
    RK4 steps, four bilinear samples of the gridded velocity (u, v interleaved) a step."""
    p = wp.tid()
    x = seeds[p, 0]
    y = seeds[p, 1]
    for s in range(nsteps):
        k1 = vel_at(vel, x, y)
        k2 = vel_at(vel, x + 0.5 * dt * k1[0], y + 0.5 * dt * k1[1])
        k3 = vel_at(vel, x + 0.5 * dt * k2[0], y + 0.5 * dt * k2[1])
        k4 = vel_at(vel, x + dt * k3[0], y + dt * k3[1])
        x = x + dt * 0.16666667 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0])
        y = y + dt * 0.16666667 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1])
    out[p, 0] = x
    out[p, 1] = y


# ---- physics: mass-spring cloth -------------------------------------------------------------------------


@wp.func
def spring_force(pos: wp.array2d(dtype=float), i: int, j: int, rest: float, ks: float):
    """Hooke's force on node i from the spring to node j: ks (|d| - rest) d / |d|."""
    d = wp.vec3(pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2])
    l = wp.sqrt(wp.dot(d, d))
    return d * (ks * (l - rest) / l)


@wp.kernel
def cloth_gather(pos: wp.array2d(dtype=float), n: int, rest: float, ks: float, force: wp.array2d(dtype=float)):
    """Spring forces of a mass-spring cloth (Provot's model; the cloth solvers of games and of
    GPU physics samples): an n x n grid of nodes, structural springs to the four neighbours
    and shear springs to the four diagonal ones. A thread per node gathers the forces of its
    up to eight springs (a square root and a division each) and writes its total."""
    i = wp.tid()
    r = i // n
    c = i - r * n
    f = wp.vec3(0.0, 0.0, 0.0)
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            rr = r + dr
            cc = c + dc
            if (dr != 0 or dc != 0) and rr >= 0 and rr < n and cc >= 0 and cc < n:
                l0 = rest
                if dr != 0 and dc != 0:
                    l0 = rest * 1.4142135
                f = f + spring_force(pos, i, rr * n + cc, l0, ks)
    force[i, 0] = f[0]
    force[i, 1] = f[1]
    force[i, 2] = f[2]


@wp.kernel
def cloth_scatter(pos: wp.array2d(dtype=float), springs: wp.array2d(dtype=int), rest: wp.array(dtype=float),
                  ks: float, force: wp.array2d(dtype=float)):
    """The same forces a thread per spring (the list of the grid's springs, row by row): the
    force computed once and added to both ends, with opposite signs, by six float atomics."""
    s = wp.tid()
    i = springs[s, 0]
    j = springs[s, 1]
    f = spring_force(pos, i, j, rest[s], ks)
    wp.atomic_add(force, i, 0, f[0])
    wp.atomic_add(force, i, 1, f[1])
    wp.atomic_add(force, i, 2, f[2])
    wp.atomic_add(force, j, 0, -f[0])
    wp.atomic_add(force, j, 1, -f[1])
    wp.atomic_add(force, j, 2, -f[2])


# ---- radar: cell-averaging CFAR ------------------------------------------------------------------------------


@wp.kernel
def cfar_direct(pw: wp.array2d(dtype=float), alpha: float, noise: wp.array2d(dtype=float),
                det: wp.array2d(dtype=wp.uint8)):
    """Cell-averaging CFAR detection along range (constant false-alarm-rate detection on a
    range-Doppler map, as GPU radar pipelines run it): for each cell under test the mean of
    CF_TRAIN training cells each side beyond CF_GUARD guard cells, a detection where the
    cell's power exceeds alpha times it; cells without a full window get neither. A thread per
    cell sums its 32 training cells from global memory."""
    d, r = wp.tid()
    nr = pw.shape[1]
    m = float(0.0)
    flag = wp.uint8(0)
    if r >= CF_GUARD + CF_TRAIN and r < nr - CF_GUARD - CF_TRAIN:
        s = float(0.0)
        for k in range(CF_TRAIN):
            s += pw[d, r - CF_GUARD - 1 - k] + pw[d, r + CF_GUARD + 1 + k]
        m = s * (1.0 / float(2 * CF_TRAIN))
        if pw[d, r] > alpha * m:
            flag = wp.uint8(1)
    noise[d, r] = m
    det[d, r] = flag


@wp.kernel
def cfar_prefix(pw: wp.array2d(dtype=float), cum: wp.array2d(dtype=wp.float64), alpha: float,
                noise: wp.array2d(dtype=float), det: wp.array2d(dtype=wp.uint8)):
    """The same detection from each Doppler row's inclusive prefix sums (fp64, computed
    beforehand, as a scan would): the two training windows' sums are two differences of four
    loads."""
    d, r = wp.tid()
    nr = pw.shape[1]
    m = float(0.0)
    flag = wp.uint8(0)
    if r >= CF_GUARD + CF_TRAIN and r < nr - CF_GUARD - CF_TRAIN:
        lo = cum[d, r - CF_GUARD] - cum[d, r - CF_GUARD - CF_TRAIN]
        hi = cum[d, r + CF_GUARD + CF_TRAIN + 1] - cum[d, r + CF_GUARD + 1]
        m = float(lo + hi) * (1.0 / float(2 * CF_TRAIN))
        if pw[d, r] > alpha * m:
            flag = wp.uint8(1)
    noise[d, r] = m
    det[d, r] = flag


# ---- geometry: bicubic Bézier patches ---------------------------------------------------------------------


@wp.func
def cp(ctrl: wp.array3d(dtype=float), p: int, k: int):
    return wp.vec3(ctrl[p, k, 0], ctrl[p, k, 1], ctrl[p, k, 2])


@wp.func
def casteljau(a: wp.vec3, b: wp.vec3, c: wp.vec3, d: wp.vec3, t: float):
    """A cubic Bézier curve at t by de Casteljau's repeated interpolation (six lerps)."""
    ab = wp.lerp(a, b, t)
    bc = wp.lerp(b, c, t)
    cd = wp.lerp(c, d, t)
    abc = wp.lerp(ab, bc, t)
    bcd = wp.lerp(bc, cd, t)
    return wp.lerp(abc, bcd, t)


@wp.kernel
def bezier_casteljau(ctrl: wp.array3d(dtype=float), out: wp.array2d(dtype=float)):
    """Tessellation of bicubic Bézier patches (the GPU tessellation samples' and CAD viewers'
    evaluation): a thread per (patch, u, v) sample of a BZ_RES x BZ_RES grid reads the patch's
    16 control points (all the patch's threads reading the same), evaluates the four rows at u
    by de Casteljau, then the resulting curve at v."""
    g = wp.tid()
    p = g // (BZ_RES * BZ_RES)
    q = g % (BZ_RES * BZ_RES)
    u = float(q % BZ_RES) / float(BZ_RES - 1)
    v = float(q // BZ_RES) / float(BZ_RES - 1)
    r0 = casteljau(cp(ctrl, p, 0), cp(ctrl, p, 1), cp(ctrl, p, 2), cp(ctrl, p, 3), u)
    r1 = casteljau(cp(ctrl, p, 4), cp(ctrl, p, 5), cp(ctrl, p, 6), cp(ctrl, p, 7), u)
    r2 = casteljau(cp(ctrl, p, 8), cp(ctrl, p, 9), cp(ctrl, p, 10), cp(ctrl, p, 11), u)
    r3 = casteljau(cp(ctrl, p, 12), cp(ctrl, p, 13), cp(ctrl, p, 14), cp(ctrl, p, 15), u)
    s = casteljau(r0, r1, r2, r3, v)
    out[g, 0] = s[0]
    out[g, 1] = s[1]
    out[g, 2] = s[2]


@wp.kernel
def bezier_bernstein(ctrl: wp.array3d(dtype=float), out: wp.array2d(dtype=float)):
    """The same samples by the Bernstein form: the four cubic Bernstein weights of u and of v,
    then the sum of the 16 control points times their products."""
    g = wp.tid()
    p = g // (BZ_RES * BZ_RES)
    q = g % (BZ_RES * BZ_RES)
    u = float(q % BZ_RES) / float(BZ_RES - 1)
    v = float(q // BZ_RES) / float(BZ_RES - 1)
    bu = wp.vec4((1.0 - u) * (1.0 - u) * (1.0 - u), 3.0 * u * (1.0 - u) * (1.0 - u), 3.0 * u * u * (1.0 - u), u * u * u)
    bv = wp.vec4((1.0 - v) * (1.0 - v) * (1.0 - v), 3.0 * v * (1.0 - v) * (1.0 - v), 3.0 * v * v * (1.0 - v), v * v * v)
    s = wp.vec3(0.0, 0.0, 0.0)
    for j in range(4):
        for i in range(4):
            s = s + cp(ctrl, p, j * 4 + i) * (bu[i] * bv[j])
    out[g, 0] = s[0]
    out[g, 1] = s[1]
    out[g, 2] = s[2]


# ---- convolutional networks: Winograd's input transform ------------------------------------------------


@wp.kernel
def winograd_input(x: wp.array3d(dtype=float), tiles_x: int, se: int, sc: int, st: int,
                   v: wp.array(dtype=float)):
    """The input transform of Winograd's F(2 x 2, 3 x 3) convolution (cuDNN's and NNPACK's
    Winograd algorithms; Lavin and Gray): a thread per (channel, 4 x 4 input tile, stride 2)
    reads the tile (CHW input) and writes V = B^T d B, 16 values by additions only, to
    v[e se + c sc + tile st]: element-major (16 matrices for the batched products; lanes'
    writes adjacent) or tile-major (each thread's 16 values contiguous)."""
    c, t = wp.tid()
    ty = t // tiles_x
    tx = t - ty * tiles_x
    y0 = 2 * ty
    x0 = 2 * tx
    # B^T d, from the tile's 16 values
    e00 = x[c, y0, x0] - x[c, y0 + 2, x0]
    e01 = x[c, y0, x0 + 1] - x[c, y0 + 2, x0 + 1]
    e02 = x[c, y0, x0 + 2] - x[c, y0 + 2, x0 + 2]
    e03 = x[c, y0, x0 + 3] - x[c, y0 + 2, x0 + 3]
    e10 = x[c, y0 + 1, x0] + x[c, y0 + 2, x0]
    e11 = x[c, y0 + 1, x0 + 1] + x[c, y0 + 2, x0 + 1]
    e12 = x[c, y0 + 1, x0 + 2] + x[c, y0 + 2, x0 + 2]
    e13 = x[c, y0 + 1, x0 + 3] + x[c, y0 + 2, x0 + 3]
    e20 = x[c, y0 + 2, x0] - x[c, y0 + 1, x0]
    e21 = x[c, y0 + 2, x0 + 1] - x[c, y0 + 1, x0 + 1]
    e22 = x[c, y0 + 2, x0 + 2] - x[c, y0 + 1, x0 + 2]
    e23 = x[c, y0 + 2, x0 + 3] - x[c, y0 + 1, x0 + 3]
    e30 = x[c, y0 + 1, x0] - x[c, y0 + 3, x0]
    e31 = x[c, y0 + 1, x0 + 1] - x[c, y0 + 3, x0 + 1]
    e32 = x[c, y0 + 1, x0 + 2] - x[c, y0 + 3, x0 + 2]
    e33 = x[c, y0 + 1, x0 + 3] - x[c, y0 + 3, x0 + 3]
    b = c * sc + t * st
    v[b + 0 * se] = e00 - e02
    v[b + 1 * se] = e01 + e02
    v[b + 2 * se] = e02 - e01
    v[b + 3 * se] = e01 - e03
    v[b + 4 * se] = e10 - e12
    v[b + 5 * se] = e11 + e12
    v[b + 6 * se] = e12 - e11
    v[b + 7 * se] = e11 - e13
    v[b + 8 * se] = e20 - e22
    v[b + 9 * se] = e21 + e22
    v[b + 10 * se] = e22 - e21
    v[b + 11 * se] = e21 - e23
    v[b + 12 * se] = e30 - e32
    v[b + 13 * se] = e31 + e32
    v[b + 14 * se] = e32 - e31
    v[b + 15 * se] = e31 - e33
