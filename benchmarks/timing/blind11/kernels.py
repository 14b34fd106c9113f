"""Kernels of the eleventh blind validation set, written in simt from the algorithms of public
GPU suites, proxy applications and well-known GPU workloads: NPB's EP (both of its random
number generators' forms), MG's residual and FT's evolution step; LULESH's element volumes and
characteristic lengths; CloverLeaf's artificial viscosity; miniGhost's halo packing;
SimpleMOC's characteristic sweep; the backward step of Brandes' betweenness centrality; GATK's
PairHMM forward algorithm; FM-index backward search. Each is written from the algorithm's
description, as a user of simt would write it; none is a translation of a suite's source, and
none repeats an algorithm of the earlier blind sets (../blind/kernels.py to
../blind10/kernels_ml.py) or of the held-out set (../kernels.py, ../cases.py); the vision,
graphics, signal and data-encoding kernels are in kernels_media.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Launch shapes and inputs are in ``cases.py``; numpy
references in ``check.py``.
"""
import simt as wp

FULL = wp.uint32(0xFFFFFFFF)
NQ = 10             # NPB EP: the annuli its Gaussian pairs are counted in
MOC_NTAB = 2048     # SimpleMOC / OpenMOC: entries of the linear exponential table
RLEN = 32           # PairHMM: read length (a warp's lanes in the wavefront kernel)
HLEN = 64           # PairHMM: haplotype length


# ---- NPB EP: Gaussian pairs by the polar method ---------------------------------------------------


@wp.func
def randlc(x: wp.float64, a: wp.float64):
    """NPB's linear congruential step x' = a x mod 2^46 in exact double arithmetic: both factors
    split into 23-bit halves, the partial products kept below 2^47 (NPB's randlc); returns x'."""
    r23 = wp.float64(1.1920928955078125e-07)       # 2^-23 (a power of two: exact as a literal)
    t23 = wp.float64(8388608.0)                     # 2^23
    r46 = r23 * r23
    t46 = t23 * t23
    t1 = r23 * a
    a1 = wp.float64(int(t1))
    a2 = a - t23 * a1
    t1 = r23 * x
    x1 = wp.float64(int(t1))
    x2 = x - t23 * x1
    t1 = a1 * x2 + a2 * x1
    t2 = wp.float64(int(r23 * t1))
    z = t1 - t23 * t2
    t3 = t23 * z + a2 * x2
    t4 = wp.float64(int(r46 * t3))
    return t3 - t46 * t4


@wp.kernel
def ep_randlc(seed: wp.float64, a: wp.float64, an: wp.float64, nk: int, sx: wp.array(dtype=wp.float64),
              sy: wp.array(dtype=wp.float64), q: wp.array(dtype=int)):
    """NPB EP (embarrassingly parallel): a thread per batch k of nk pairs of uniform numbers from
    NPB's generator (a = 5^13 mod 2^46), its start a^(2 nk k) s found by binary powering of
    an = a^(2 nk); each pair (x, y) in [-1, 1)^2 inside the unit disc becomes two Gaussians by
    Marsaglia's polar method (a log, a square root, a division, fp64), counted in the annulus
    max(|X|, |Y|) falls in by shared-memory atomics, and summed. The generator in doubles, as
    NPB writes it (float-int-float truncations)."""
    cnt = wp.shared.array(shape=(NQ,), dtype=int)
    t = wp.thread_idx()
    if t < NQ:
        cnt[t] = 0
    wp.sync_threads()
    k = wp.tid()
    r46 = wp.float64(1.4210854715202004e-14)        # 2^-46
    one = wp.float64(1.0)
    two = wp.float64(2.0)
    x = seed
    p = an
    e = k
    while e != 0:
        if (e & 1) != 0:
            x = randlc(x, p)
        p = randlc(p, p)
        e = e >> 1
    tx = wp.float64(0.0)
    ty = wp.float64(0.0)
    for i in range(nk):
        x = randlc(x, a)
        x1 = two * (r46 * x) - one
        x = randlc(x, a)
        x2 = two * (r46 * x) - one
        s = x1 * x1 + x2 * x2
        if s <= one:
            f = wp.sqrt(-two * wp.log(s) / s)
            g1 = x1 * f
            g2 = x2 * f
            l = wp.min(int(wp.max(wp.abs(g1), wp.abs(g2))), NQ - 1)
            wp.atomic_add(cnt, l, 1)
            tx += g1
            ty += g2
    sx[k] = tx
    sy[k] = ty
    wp.sync_threads()
    if t < NQ:
        wp.atomic_add(q, t, cnt[t])


@wp.kernel
def ep_lcg46(seed: wp.uint64, a: wp.uint64, an: wp.uint64, nk: int, sx: wp.array(dtype=wp.float64),
             sy: wp.array(dtype=wp.float64), q: wp.array(dtype=int)):
    """The same EP batches with the generator in 64-bit integers: a x mod 2^46 is the wrapped
    product masked to 46 bits, and each uniform a 64-bit integer converted to double (the same
    numbers as NPB's doubles, exactly)."""
    cnt = wp.shared.array(shape=(NQ,), dtype=int)
    t = wp.thread_idx()
    if t < NQ:
        cnt[t] = 0
    wp.sync_threads()
    k = wp.tid()
    mask = wp.uint64(0x3FFFFFFFFFFF)
    r46 = wp.float64(1.4210854715202004e-14)
    one = wp.float64(1.0)
    two = wp.float64(2.0)
    x = seed
    p = an
    e = k
    while e != 0:
        if (e & 1) != 0:
            x = (x * p) & mask
        p = (p * p) & mask
        e = e >> 1
    tx = wp.float64(0.0)
    ty = wp.float64(0.0)
    for i in range(nk):
        x = (x * a) & mask
        x1 = two * (r46 * wp.float64(x)) - one
        x = (x * a) & mask
        x2 = two * (r46 * wp.float64(x)) - one
        s = x1 * x1 + x2 * x2
        if s <= one:
            f = wp.sqrt(-two * wp.log(s) / s)
            g1 = x1 * f
            g2 = x2 * f
            l = wp.min(int(wp.max(wp.abs(g1), wp.abs(g2))), NQ - 1)
            wp.atomic_add(cnt, l, 1)
            tx += g1
            ty += g2
    sx[k] = tx
    sy[k] = ty
    wp.sync_threads()
    if t < NQ:
        wp.atomic_add(q, t, cnt[t])


# ---- NPB MG: the residual r = v - A u of the 27-point operator ------------------------------------


@wp.kernel
def mg_resid(u: wp.array3d(dtype=wp.float64), v: wp.array3d(dtype=wp.float64), a0: wp.float64, a1: wp.float64,
             a2: wp.float64, a3: wp.float64, r: wp.array3d(dtype=wp.float64)):
    """NPB MG's residual: r = v - A u, A the 27-point operator with one coefficient per class of
    neighbour (centre, 6 faces, 12 edges, 8 corners), a thread per interior point, all 27
    values from global memory; the sums grouped as NPB's resid does (u1, u2: the four edge and
    four corner neighbours in the y-z plane at x - 1, x and x + 1)."""
    z, y, x = wp.tid()
    if z >= 1 and z < u.shape[0] - 1 and y >= 1 and y < u.shape[1] - 1 and x >= 1 and x < u.shape[2] - 1:
        u1m = u[z, y - 1, x - 1] + u[z, y + 1, x - 1] + u[z - 1, y, x - 1] + u[z + 1, y, x - 1]
        u1c = u[z, y - 1, x] + u[z, y + 1, x] + u[z - 1, y, x] + u[z + 1, y, x]
        u1p = u[z, y - 1, x + 1] + u[z, y + 1, x + 1] + u[z - 1, y, x + 1] + u[z + 1, y, x + 1]
        u2m = u[z - 1, y - 1, x - 1] + u[z - 1, y + 1, x - 1] + u[z + 1, y - 1, x - 1] + u[z + 1, y + 1, x - 1]
        u2c = u[z - 1, y - 1, x] + u[z - 1, y + 1, x] + u[z + 1, y - 1, x] + u[z + 1, y + 1, x]
        u2p = u[z - 1, y - 1, x + 1] + u[z - 1, y + 1, x + 1] + u[z + 1, y - 1, x + 1] + u[z + 1, y + 1, x + 1]
        face = u1c + u[z, y, x - 1] + u[z, y, x + 1]
        edge = u2c + u1m + u1p
        corner = u2m + u2p
        r[z, y, x] = v[z, y, x] - a0 * u[z, y, x] - a1 * face - a2 * edge - a3 * corner


MG_BZ = 4           # mg_resid_tiled's block: 4 x 8 x 32 points, a (6, 10, 34) tile of u with its halo
MG_BY = 8
MG_BX = 32


@wp.kernel
def mg_resid_tiled(u: wp.array3d(dtype=wp.float64), v: wp.array3d(dtype=wp.float64), a0: wp.float64,
                   a1: wp.float64, a2: wp.float64, a3: wp.float64, r: wp.array3d(dtype=wp.float64)):
    """The same residual with a block of 4 x 8 x 32 threads staging its points and their halo
    (6 x 10 x 34 doubles, 16 KB) in shared memory first, every thread loading about two; the
    27 reads then from the tile."""
    tile = wp.shared.array(shape=(MG_BZ + 2, MG_BY + 2, MG_BX + 2), dtype=wp.float64)
    tz, ty, tx = wp.thread_idx()
    bz, by, bx = wp.block_idx()
    nz = u.shape[0]
    ny = u.shape[1]
    nx = u.shape[2]
    plane = (MG_BY + 2) * (MG_BX + 2)
    for k in range((tz * MG_BY + ty) * MG_BX + tx, (MG_BZ + 2) * plane, MG_BZ * MG_BY * MG_BX):
        lz = k // plane
        rem = k - lz * plane
        ly = rem // (MG_BX + 2)
        lx = rem - ly * (MG_BX + 2)
        gz = wp.clamp(bz * MG_BZ + lz - 1, 0, nz - 1)
        gy = wp.clamp(by * MG_BY + ly - 1, 0, ny - 1)
        gx = wp.clamp(bx * MG_BX + lx - 1, 0, nx - 1)
        tile[lz, ly, lx] = u[gz, gy, gx]
    wp.sync_threads()
    z = bz * MG_BZ + tz
    y = by * MG_BY + ty
    x = bx * MG_BX + tx
    if z >= 1 and z < nz - 1 and y >= 1 and y < ny - 1 and x >= 1 and x < nx - 1:
        c = tz + 1
        b = ty + 1
        a = tx + 1
        u1m = tile[c, b - 1, a - 1] + tile[c, b + 1, a - 1] + tile[c - 1, b, a - 1] + tile[c + 1, b, a - 1]
        u1c = tile[c, b - 1, a] + tile[c, b + 1, a] + tile[c - 1, b, a] + tile[c + 1, b, a]
        u1p = tile[c, b - 1, a + 1] + tile[c, b + 1, a + 1] + tile[c - 1, b, a + 1] + tile[c + 1, b, a + 1]
        u2m = tile[c - 1, b - 1, a - 1] + tile[c - 1, b + 1, a - 1] + tile[c + 1, b - 1, a - 1] + tile[c + 1, b + 1, a - 1]
        u2c = tile[c - 1, b - 1, a] + tile[c - 1, b + 1, a] + tile[c + 1, b - 1, a] + tile[c + 1, b + 1, a]
        u2p = tile[c - 1, b - 1, a + 1] + tile[c - 1, b + 1, a + 1] + tile[c + 1, b - 1, a + 1] + tile[c + 1, b + 1, a + 1]
        face = u1c + tile[c, b, a - 1] + tile[c, b, a + 1]
        edge = u2c + u1m + u1p
        corner = u2m + u2p
        r[z, y, x] = v[z, y, x] - a0 * tile[c, b, a] - a1 * face - a2 * edge - a3 * corner


# ---- NPB FT: the evolution step in Fourier space --------------------------------------------------


@wp.func
def ft_fold(i: int, n: int):
    """The signed frequency of index i of an n-point transform: i below n/2, else i - n."""
    r = i
    if 2 * i >= n:
        r = i - n
    return r


@wp.kernel
def ft_evolve_exp(u0: wp.array(dtype=wp.float64), nx: int, ny: int, nz: int, ap: wp.float64,
                  u1: wp.array(dtype=wp.float64)):
    """NPB FT's evolve: every complex coefficient (re, im interleaved) of the 3-D spectrum times
    exp(ap (i'^2 + j'^2 + k'^2)), ap = -4 alpha pi^2 t, the signed frequencies folded about
    n/2; u0 updated in place and copied to u1. The factor computed here: a thread per
    coefficient splits its index by divisions, and evaluates a double exponential."""
    g = wp.tid()
    i = g % nx
    j = (g // nx) % ny
    k = g // (nx * ny)
    ib = ft_fold(i, nx)
    jb = ft_fold(j, ny)
    kb = ft_fold(k, nz)
    f = wp.exp(ap * wp.float64(ib * ib + jb * jb + kb * kb))
    re = u0[2 * g] * f
    im = u0[2 * g + 1] * f
    u0[2 * g] = re
    u0[2 * g + 1] = im
    u1[2 * g] = re
    u1[2 * g + 1] = im


@wp.kernel
def ft_evolve_table(u0: wp.array(dtype=wp.float64), twiddle: wp.array(dtype=wp.float64),
                    u1: wp.array(dtype=wp.float64)):
    """The same step with the factors precomputed (NPB's twiddle array, computed once): a
    thread per coefficient reads its factor; three doubles read and four written a thread."""
    g = wp.tid()
    f = twiddle[g]
    re = u0[2 * g] * f
    im = u0[2 * g + 1] * f
    u0[2 * g] = re
    u0[2 * g + 1] = im
    u1[2 * g] = re
    u1[2 * g + 1] = im


# ---- LULESH: element volumes and characteristic lengths --------------------------------------------


@wp.func
def triple(ax: wp.float64, ay: wp.float64, az: wp.float64, bx: wp.float64, by: wp.float64, bz: wp.float64,
           cx: wp.float64, cy: wp.float64, cz: wp.float64):
    """a . (b x c)."""
    return ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)


@wp.func
def face_area2(x0: wp.float64, y0: wp.float64, z0: wp.float64, x1: wp.float64, y1: wp.float64, z1: wp.float64,
               x2: wp.float64, y2: wp.float64, z2: wp.float64, x3: wp.float64, y3: wp.float64, z3: wp.float64):
    """LULESH's squared-area measure of a quadrilateral face: |f|^2 |g|^2 - (f . g)^2 of its
    two diagonals' difference f and sum g."""
    fx = (x2 - x0) - (x3 - x1)
    fy = (y2 - y0) - (y3 - y1)
    fz = (z2 - z0) - (z3 - z1)
    gx = (x2 - x0) + (x3 - x1)
    gy = (y2 - y0) + (y3 - y1)
    gz = (z2 - z0) + (z3 - z1)
    fg = fx * gx + fy * gy + fz * gz
    return (fx * fx + fy * fy + fz * fz) * (gx * gx + gy * gy + gz * gz) - fg * fg


@wp.kernel
def lulesh_kinematics(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), z: wp.array(dtype=wp.float64),
                      nodelist: wp.array2d(dtype=int), volo: wp.array(dtype=wp.float64),
                      v: wp.array(dtype=wp.float64), vnew: wp.array(dtype=wp.float64),
                      delv: wp.array(dtype=wp.float64), arealg: wp.array(dtype=wp.float64)):
    """LULESH's kinematics for hexahedral elements (CalcElemVolume and
    CalcElemCharacteristicLength): a thread per element gathers its eight nodes' coordinates
    through the node list (three arrays, fp64), computes the volume as three triple products of
    edge combinations over 12, the relative volume and its change, and the characteristic
    length 4 V / sqrt(the largest of the six faces' area measures)."""
    e = wp.tid()
    n0 = nodelist[e, 0]
    n1 = nodelist[e, 1]
    n2 = nodelist[e, 2]
    n3 = nodelist[e, 3]
    n4 = nodelist[e, 4]
    n5 = nodelist[e, 5]
    n6 = nodelist[e, 6]
    n7 = nodelist[e, 7]
    x0 = x[n0]
    x1 = x[n1]
    x2 = x[n2]
    x3 = x[n3]
    x4 = x[n4]
    x5 = x[n5]
    x6 = x[n6]
    x7 = x[n7]
    y0 = y[n0]
    y1 = y[n1]
    y2 = y[n2]
    y3 = y[n3]
    y4 = y[n4]
    y5 = y[n5]
    y6 = y[n6]
    y7 = y[n7]
    z0 = z[n0]
    z1 = z[n1]
    z2 = z[n2]
    z3 = z[n3]
    z4 = z[n4]
    z5 = z[n5]
    z6 = z[n6]
    z7 = z[n7]
    vol = (triple(x3 - x1 + x7 - x2, y3 - y1 + y7 - y2, z3 - z1 + z7 - z2, x6 - x3, y6 - y3, z6 - z3,
                  x2 - x0, y2 - y0, z2 - z0)
           + triple(x4 - x3 + x5 - x7, y4 - y3 + y5 - y7, z4 - z3 + z5 - z7, x6 - x4, y6 - y4, z6 - z4,
                    x7 - x0, y7 - y0, z7 - z0)
           + triple(x1 - x4 + x2 - x5, y1 - y4 + y2 - y5, z1 - z4 + z2 - z5, x6 - x1, y6 - y1, z6 - z1,
                    x5 - x0, y5 - y0, z5 - z0)) * wp.float64(0.08333333333333333)
    area = face_area2(x0, y0, z0, x1, y1, z1, x2, y2, z2, x3, y3, z3)
    area = wp.max(area, face_area2(x4, y4, z4, x5, y5, z5, x6, y6, z6, x7, y7, z7))
    area = wp.max(area, face_area2(x0, y0, z0, x1, y1, z1, x5, y5, z5, x4, y4, z4))
    area = wp.max(area, face_area2(x1, y1, z1, x2, y2, z2, x6, y6, z6, x5, y5, z5))
    area = wp.max(area, face_area2(x2, y2, z2, x3, y3, z3, x7, y7, z7, x6, y6, z6))
    area = wp.max(area, face_area2(x3, y3, z3, x0, y0, z0, x4, y4, z4, x7, y7, z7))
    rel = vol / volo[e]
    vnew[e] = rel
    delv[e] = rel - v[e]
    arealg[e] = wp.float64(4.0) * vol / wp.sqrt(area)


# ---- CloverLeaf: artificial viscosity ---------------------------------------------------------------


@wp.kernel
def clover_viscosity(celldx: wp.array(dtype=wp.float64), celldy: wp.array(dtype=wp.float64),
                     density: wp.array2d(dtype=wp.float64), pressure: wp.array2d(dtype=wp.float64),
                     xvel: wp.array2d(dtype=wp.float64), yvel: wp.array2d(dtype=wp.float64),
                     visc: wp.array2d(dtype=wp.float64)):
    """CloverLeaf's artificial viscosity on its staggered 2-D grid (cell-centred density and
    pressure, node-centred velocities), a thread per interior cell: velocity gradients and the
    divergence, the pressure gradient, a limiter from their alignment; where the cell is
    compressing and the limiter is not positive, the viscosity 2 rho grad^2 limiter^2 from the
    directional cell widths (square roots, seven divisions); else zero. fp64."""
    k, j = wp.tid()
    ny = density.shape[0]
    nx = density.shape[1]
    if k >= 1 and k < ny - 1 and j >= 1 and j < nx - 1:
        half = wp.float64(0.5)
        tiny = wp.float64(1.0e-16)
        dx = celldx[j]
        dy = celldy[k]
        ugrad = (xvel[k, j + 1] + xvel[k + 1, j + 1]) - (xvel[k, j] + xvel[k + 1, j])
        vgrad = (yvel[k + 1, j] + yvel[k + 1, j + 1]) - (yvel[k, j] + yvel[k, j + 1])
        div = dx * ugrad + dy * vgrad
        strain2 = (half * (xvel[k + 1, j] + xvel[k + 1, j + 1] - xvel[k, j] - xvel[k, j + 1]) / dy
                   + half * (yvel[k, j + 1] + yvel[k + 1, j + 1] - yvel[k, j] - yvel[k + 1, j]) / dx)
        pgx = (pressure[k, j + 1] - pressure[k, j - 1]) / (dx + celldx[j + 1])
        pgy = (pressure[k + 1, j] - pressure[k - 1, j]) / (dy + celldy[k + 1])
        pgx2 = pgx * pgx
        pgy2 = pgy * pgy
        limiter = ((half * ugrad / dx) * pgx2 + (half * vgrad / dy) * pgy2 + strain2 * pgx * pgy) \
            / wp.max(pgx2 + pgy2, tiny)
        res = wp.float64(0.0)
        if limiter <= wp.float64(0.0) and div < wp.float64(0.0):
            px = wp.max(tiny, wp.abs(pgx))
            if pgx < wp.float64(0.0):
                px = -px
            py = wp.max(tiny, wp.abs(pgy))
            if pgy < wp.float64(0.0):
                py = -py
            pgrad = wp.sqrt(px * px + py * py)
            xgrad = wp.abs(dx * pgrad / px)
            ygrad = wp.abs(dy * pgrad / py)
            grad = wp.min(xgrad, ygrad)
            res = wp.float64(2.0) * density[k, j] * grad * grad * limiter * limiter
        visc[k, j] = res


# ---- miniGhost: packing a face for the halo exchange -------------------------------------------------


@wp.kernel
def halo_pack(field: wp.array(dtype=wp.float64), n2: int, n3: int, base: int, s1: int, s2: int, s3: int,
              buf: wp.array(dtype=wp.float64)):
    """miniGhost's (and the other stencil proxies') packing of a boundary face of several
    variables into a contiguous message buffer: a thread per buffer element, its (a, b, c)
    position by divisions, read from field[base + a s1 + b s2 + c s3]. Packing a z face reads
    rows (lanes adjacent); packing an x face reads one value a row (lanes a row apart)."""
    g = wp.tid()
    c = g % n3
    b = (g // n3) % n2
    a = g // (n3 * n2)
    buf[g] = field[base + a * s1 + b * s2 + c * s3]


# ---- SimpleMOC / OpenMOC: the characteristic sweep ----------------------------------------------------


@wp.kernel
def moc_sweep_exp(seg_fsr: wp.array2d(dtype=int), seg_len: wp.array2d(dtype=float), sigt: wp.array2d(dtype=float),
                  qst: wp.array2d(dtype=float), psi_in: wp.array2d(dtype=float), wgt: float,
                  flux: wp.array(dtype=float), psi_out: wp.array2d(dtype=float)):
    """The method of characteristics' transport sweep (SimpleMOC, OpenMOC's GPU solver): a
    thread per (track, energy group), groups on adjacent lanes, walks the track's segments: the
    optical length tau = sigma_t l of the segment's flat source region, the angular flux's
    change (psi - q / sigma_t)(1 - exp(-tau)), and its weighted contribution added to the
    region's scalar flux by a float atomic. The attenuation by the exponential itself."""
    gid = wp.tid()
    ng = sigt.shape[1]
    t = gid // ng
    g = gid % ng
    psi = psi_in[t, g]
    for s in range(seg_fsr.shape[1]):
        f = seg_fsr[t, s]
        tau = sigt[f, g] * seg_len[t, s]
        att = 1.0 - wp.exp(-tau)
        d = (psi - qst[f, g]) * att
        psi = psi - d
        wp.atomic_add(flux, f * ng + g, d * wgt)
    psi_out[t, g] = psi


@wp.kernel
def moc_sweep_table(seg_fsr: wp.array2d(dtype=int), seg_len: wp.array2d(dtype=float), sigt: wp.array2d(dtype=float),
                    qst: wp.array2d(dtype=float), psi_in: wp.array2d(dtype=float), wgt: float,
                    slope: wp.array(dtype=float), icept: wp.array(dtype=float), inv_h: float,
                    flux: wp.array(dtype=float), psi_out: wp.array2d(dtype=float)):
    """The same sweep with OpenMOC's linear-interpolation table of 1 - exp(-tau) (MOC_NTAB
    intervals up to tau = 10, slopes and intercepts), staged in shared memory by each block
    (16 KB): an index, a multiply-add and two shared loads in place of the exponential."""
    ts = wp.shared.array(shape=(MOC_NTAB,), dtype=float)
    ti = wp.shared.array(shape=(MOC_NTAB,), dtype=float)
    for k in range(wp.thread_idx(), MOC_NTAB, wp.block_dim()):
        ts[k] = slope[k]
        ti[k] = icept[k]
    wp.sync_threads()
    gid = wp.tid()
    ng = sigt.shape[1]
    t = gid // ng
    g = gid % ng
    psi = psi_in[t, g]
    for s in range(seg_fsr.shape[1]):
        f = seg_fsr[t, s]
        tau = sigt[f, g] * seg_len[t, s]
        idx = wp.min(int(tau * inv_h), MOC_NTAB - 1)
        att = ts[idx] * tau + ti[idx]
        d = (psi - qst[f, g]) * att
        psi = psi - d
        wp.atomic_add(flux, f * ng + g, d * wgt)
    psi_out[t, g] = psi


# ---- graphs: Brandes' betweenness centrality, the dependency step ------------------------------------


@wp.kernel
def bc_pull(row: wp.array(dtype=int), col: wp.array(dtype=int), dist: wp.array(dtype=int),
            sigma: wp.array(dtype=float), d: int, delta: wp.array(dtype=float)):
    """The backward step of Brandes' betweenness centrality for one BFS level (Lonestar's and
    Gunrock's bc, the GPU BC codes): a thread per vertex v at depth d pulls
    delta(v) = sum over neighbours w at depth d + 1 of sigma(v) / sigma(w) (1 + delta(w)),
    one division an edge, and writes it."""
    v = wp.tid()
    if dist[v] == d:
        s = float(0.0)
        sv = sigma[v]
        for e in range(row[v], row[v + 1]):
            w = col[e]
            if dist[w] == d + 1:
                s += sv / sigma[w] * (1.0 + delta[w])
        delta[v] = s


@wp.kernel
def bc_push(row: wp.array(dtype=int), col: wp.array(dtype=int), dist: wp.array(dtype=int),
            sigma: wp.array(dtype=float), d: int, delta: wp.array(dtype=float)):
    """The same step pushed: a thread per vertex w at depth d + 1 computes (1 + delta(w)) /
    sigma(w) once and adds sigma(v) times it to every neighbour v at depth d by a float
    atomic."""
    w = wp.tid()
    if dist[w] == d + 1:
        c = (1.0 + delta[w]) / sigma[w]
        for e in range(row[w], row[w + 1]):
            v = col[e]
            if dist[v] == d:
                wp.atomic_add(delta, v, sigma[v] * c)


# ---- genomics: GATK's PairHMM forward algorithm ---------------------------------------------------------


@wp.kernel
def phmm_thread(rd: wp.array2d(dtype=wp.uint8), err: wp.array2d(dtype=float), hp: wp.array2d(dtype=wp.uint8),
                tr: wp.array(dtype=float), rm: wp.array2d(dtype=float), rx: wp.array2d(dtype=float),
                ry: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    """GATK HaplotypeCaller's PairHMM forward algorithm (the likelihood of a read given a
    haplotype over all alignments: match, insertion and deletion states), a thread per
    (read, haplotype) pair filling the RLEN x HLEN matrices row by row, the previous row of each
    state kept in global scratch rows (HLEN + 1 floats a state, pairs interleaved: lanes
    adjacent); the emission a base quality's error rate, the transitions constant (tr: mm, gm,
    mx, xx, my, yy); log10 of the sum over the last row."""
    p = wp.tid()
    mm = tr[0]
    gm = tr[1]
    mx = tr[2]
    xx = tr[3]
    my = tr[4]
    yy = tr[5]
    init = 1.0 / float(HLEN)
    for j in range(HLEN + 1):
        rm[j, p] = 0.0
        rx[j, p] = 0.0
        ry[j, p] = init
    for i in range(RLEN):
        rb = rd[p, i]
        e = err[p, i]
        pm = 1.0 - e
        pe = e * 0.33333334
        dm = rm[0, p]
        dx = rx[0, p]
        dy = ry[0, p]
        rm[0, p] = 0.0
        rx[0, p] = 0.0
        ry[0, p] = 0.0
        lm = float(0.0)
        ly = float(0.0)
        for j in range(1, HLEN + 1):
            um = rm[j, p]
            ux = rx[j, p]
            uy = ry[j, p]
            prior = pe
            if rb == hp[p, j - 1]:
                prior = pm
            nm = prior * (mm * dm + gm * (dx + dy))
            nx = mx * um + xx * ux
            ny = my * lm + yy * ly
            rm[j, p] = nm
            rx[j, p] = nx
            ry[j, p] = ny
            dm = um
            dx = ux
            dy = uy
            lm = nm
            ly = ny
    s = float(0.0)
    for j in range(1, HLEN + 1):
        s += rm[j, p] + rx[j, p]
    out[p] = wp.log10(s)


@wp.kernel
def phmm_warp(rd: wp.array2d(dtype=wp.uint8), err: wp.array2d(dtype=float), hp: wp.array2d(dtype=wp.uint8),
              tr: wp.array(dtype=float), out: wp.array(dtype=float)):
    """The same likelihoods a warp per pair along anti-diagonals (the GPU PairHMMs' wavefront):
    lane i holds read position i + 1 and at step d computes column d - i + 1; the cell above
    comes from lane i - 1 by a shuffle up (three a step), the diagonal one is the previous
    step's, the left one its own; RLEN + HLEN - 1 steps, lanes idle outside the band; the last
    lane sums its row."""
    gid = wp.tid()
    p = gid >> 5
    lane = gid & 31
    mm = tr[0]
    gm = tr[1]
    mx = tr[2]
    xx = tr[3]
    my = tr[4]
    yy = tr[5]
    init = 1.0 / float(HLEN)
    rb = rd[p, lane]
    e = err[p, lane]
    pm = 1.0 - e
    pe = e * 0.33333334
    lm = float(0.0)
    lx = float(0.0)
    ly = float(0.0)
    dm = float(0.0)
    dx = float(0.0)
    dy = float(0.0)
    if lane == 0:
        dy = init
    acc = float(0.0)
    for d in range(RLEN + HLEN - 1):
        sm = wp.shfl_up_sync(FULL, lm, 1)
        sx = wp.shfl_up_sync(FULL, lx, 1)
        sy = wp.shfl_up_sync(FULL, ly, 1)
        if lane == 0:
            sm = 0.0
            sx = 0.0
            sy = init
        j = d - lane + 1
        if j >= 1 and j <= HLEN:
            prior = pe
            if rb == hp[p, j - 1]:
                prior = pm
            nm = prior * (mm * dm + gm * (dx + dy))
            nx = mx * sm + xx * sx
            ny = my * lm + yy * ly
            lm = nm
            lx = nx
            ly = ny
            if lane == RLEN - 1:
                acc += nm + nx
        dm = sm
        dx = sx
        dy = sy
    if lane == RLEN - 1:
        out[p] = wp.log10(acc)


# ---- genomics: FM-index backward search ------------------------------------------------------------------


@wp.func
def fm_occ(occ: wp.array(dtype=wp.uint32), cbase: int, cstride: int, mbase: int, mstride: int, c: int, i: int,
           dpos: int):
    """Occurrences of base c in BWT[0, i): the count at i's 32-position block plus the set bits
    of the block's bitmap of c below i; the sentinel, stored as base 0, taken off."""
    b = i >> 5
    m = occ[mbase + b * mstride + c] & ((wp.uint32(1) << wp.uint32(i & 31)) - wp.uint32(1))
    o = int(occ[cbase + b * cstride + c]) + wp.bit_count(m)
    if c == 0 and i > dpos:
        o -= 1
    return o


@wp.kernel
def fm_search(occ: wp.array(dtype=wp.uint32), cbase: int, cstride: int, mbase: int, mstride: int,
              ccum: wp.array(dtype=int), dpos: int, total: int, reads: wp.array2d(dtype=wp.uint8),
              lo_out: wp.array(dtype=int), hi_out: wp.array(dtype=int)):
    """Exact matching of reads by FM-index backward search (BWA's, Bowtie's and SOAP3's core;
    the GPU aligners' seeding): a thread per read walks it from its last base, narrowing the
    suffix-array interval [lo, hi) by two occurrence queries a base (a count and a popcount of
    a masked bitmap, 32 positions a block), until the read is consumed or the interval empty.
    The occurrence table's counts and bitmaps are at cbase + block * cstride + c and
    mbase + block * mstride + c: interleaved 32-byte records (counts, then bitmaps) or two
    separate tables."""
    r = wp.tid()
    lo = int(0)
    hi = total
    k = reads.shape[1] - 1
    while k >= 0 and lo < hi:
        c = int(reads[r, k])
        lo = ccum[c] + fm_occ(occ, cbase, cstride, mbase, mstride, c, lo, dpos)
        hi = ccum[c] + fm_occ(occ, cbase, cstride, mbase, mstride, c, hi, dpos)
        k -= 1
    lo_out[r] = lo
    hi_out[r] = hi
