"""Kernels of the second blind validation set, written in simt from the algorithms of public GPU
suites (PolyBench/GPU, Rodinia, SHOC, Parboil, the CUDA samples). Each is written from the
algorithm's description, as a user of simt would write it; none is a translation of a suite's
source, and none repeats an algorithm of the first blind set (../blind/kernels.py). Where a
kernel has a single- and a double-precision variant it is generic (``typing.Any``) and each
launch picks its dtype.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x); with ``block_dim=(BH, BW)``, ``ty, tx = wp.thread_idx()``.
Launch shapes and inputs are in ``cases.py``; numpy references in ``check.py``.
"""
from typing import Any

import simt as wp

# ---- PolyBench/GPU -----------------------------------------------------------------------------


@wp.kernel
def doitgen(a: wp.array3d(dtype=float), c4: wp.array2d(dtype=float), out: wp.array3d(dtype=float)):
    """doitgen: out[r, q, p] = sum_s A[r, q, s] C4[s, p], one thread per output, one accumulator."""
    r, q, p = wp.tid()
    acc = float(0.0)
    for s in range(a.shape[2]):
        acc += a[r, q, s] * c4[s, p]
    out[r, q, p] = acc


@wp.kernel
def doitgen_unroll4(a: wp.array3d(dtype=float), c4: wp.array2d(dtype=float), out: wp.array3d(dtype=float)):
    """doitgen with the s loop unrolled by hand into four independent accumulators (the depth
    is a multiple of 4)."""
    r, q, p = wp.tid()
    acc0 = float(0.0)
    acc1 = float(0.0)
    acc2 = float(0.0)
    acc3 = float(0.0)
    for s in range(0, a.shape[2], 4):
        acc0 += a[r, q, s] * c4[s, p]
        acc1 += a[r, q, s + 1] * c4[s + 1, p]
        acc2 += a[r, q, s + 2] * c4[s + 2, p]
        acc3 += a[r, q, s + 3] * c4[s + 3, p]
    out[r, q, p] = (acc0 + acc1) + (acc2 + acc3)


@wp.kernel
def jacobi1d(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    """One Jacobi sweep in one dimension: the three-point average of the interior."""
    i = wp.tid()
    if i >= 1 and i < a.shape[0] - 1:
        b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1])


@wp.kernel
def adi_rows(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), x: wp.array2d(dtype=float)):
    """ADI's row sweep: the forward elimination of a tridiagonal system along each row, one
    thread per row carrying the recurrence (lanes a row apart), x and b updated in place."""
    i = wp.tid()
    prev_x = x[i, 0]
    prev_b = b[i, 0]
    for j in range(1, x.shape[1]):
        w = a[i, j] / prev_b
        xv = x[i, j] - prev_x * w
        bv = b[i, j] - a[i, j] * w
        x[i, j] = xv
        b[i, j] = bv
        prev_x = xv
        prev_b = bv


@wp.kernel
def adi_cols(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), x: wp.array2d(dtype=float)):
    """ADI's column sweep: the same elimination down each column, one thread per column
    (lanes on adjacent words)."""
    j = wp.tid()
    prev_x = x[0, j]
    prev_b = b[0, j]
    for i in range(1, x.shape[0]):
        w = a[i, j] / prev_b
        xv = x[i, j] - prev_x * w
        bv = b[i, j] - a[i, j] * w
        x[i, j] = xv
        b[i, j] = bv
        prev_x = xv
        prev_b = bv


# ---- Rodinia -----------------------------------------------------------------------------------


@wp.kernel
def gaussian_step(a: wp.array2d(dtype=float), k: int):
    """Gaussian elimination's step k (Rodinia's gaussian, its two kernels in one): every element
    below and right of the pivot loses its row's multiple of the pivot row; the grid covers the
    whole matrix and threads outside the trailing block return."""
    i, j = wp.tid()
    if i > k and j > k:
        a[i, j] = a[i, j] - a[i, k] / a[k, k] * a[k, j]


@wp.kernel
def backprop_adjust(delta: wp.array(dtype=float), ly: wp.array(dtype=float), w: wp.array2d(dtype=float),
                    oldw: wp.array2d(dtype=float), eta: float, momentum: float):
    """Backprop's weight adjustment: each weight moves by the learning rate times its unit's
    error and input, plus momentum times its previous change."""
    i, j = wp.tid()
    dw = eta * delta[j] * ly[i] + momentum * oldw[i, j]
    w[i, j] = w[i, j] + dw
    oldw[i, j] = dw


@wp.kernel
def bfs_step(row_ptr: wp.array(dtype=int), cols: wp.array(dtype=int), frontier: wp.array(dtype=int),
             visited: wp.array(dtype=int), cost: wp.array(dtype=int), nxt: wp.array(dtype=int)):
    """One level of breadth-first search over a CSR graph (Rodinia's bfs, its first kernel): a
    frontier node leaves the frontier and marks each unvisited neighbour for the next one."""
    v = wp.tid()
    if frontier[v] != 0:
        frontier[v] = 0
        c = cost[v] + 1
        for e in range(row_ptr[v], row_ptr[v + 1]):
            u = cols[e]
            if visited[u] == 0:
                cost[u] = c
                nxt[u] = 1


@wp.kernel
def cfd_flux(var: wp.array2d(dtype=float), nbr: wp.array2d(dtype=int), normals: wp.array2d(dtype=float),
             flux: wp.array2d(dtype=float)):
    """CFD's flux step (Rodinia's cfd, an Euler solver on an unstructured mesh): each cell
    gathers its four neighbours' conserved variables (density, momentum, energy; stored
    variable-major) and sums a smoothed central flux through each face (normals (12, n))."""
    i = wp.tid()
    g = 1.4
    rho = var[0, i]
    mx = var[1, i]
    my = var[2, i]
    mz = var[3, i]
    e = var[4, i]
    ux = mx / rho
    uy = my / rho
    uz = mz / rho
    sp2 = ux * ux + uy * uy + uz * uz
    p = (g - 1.0) * (e - 0.5 * rho * sp2)
    c = wp.sqrt(g * p / rho)
    f_rho = float(0.0)
    f_mx = float(0.0)
    f_my = float(0.0)
    f_mz = float(0.0)
    f_e = float(0.0)
    for k in range(4):
        n = nbr[k, i]
        nx = normals[3 * k, i]
        ny = normals[3 * k + 1, i]
        nz = normals[3 * k + 2, i]
        nlen = wp.sqrt(nx * nx + ny * ny + nz * nz)
        rho_n = var[0, n]
        mx_n = var[1, n]
        my_n = var[2, n]
        mz_n = var[3, n]
        e_n = var[4, n]
        vx = mx_n / rho_n
        vy = my_n / rho_n
        vz = mz_n / rho_n
        sq_n = vx * vx + vy * vy + vz * vz
        p_n = (g - 1.0) * (e_n - 0.5 * rho_n * sq_n)
        c_n = wp.sqrt(g * p_n / rho_n)
        factor = -0.1 * nlen * 0.5 * (wp.sqrt(sp2) + wp.sqrt(sq_n) + c + c_n)
        un = ux * nx + uy * ny + uz * nz
        vn = vx * nx + vy * ny + vz * nz
        f_rho += factor * (rho - rho_n) + 0.5 * (rho * un + rho_n * vn)
        f_mx += factor * (mx - mx_n) + 0.5 * (mx * un + mx_n * vn + (p + p_n) * nx)
        f_my += factor * (my - my_n) + 0.5 * (my * un + my_n * vn + (p + p_n) * ny)
        f_mz += factor * (mz - mz_n) + 0.5 * (mz * un + mz_n * vn + (p + p_n) * nz)
        f_e += factor * (e - e_n) + 0.5 * ((e + p) * un + (e_n + p_n) * vn)
    flux[0, i] = f_rho
    flux[1, i] = f_mx
    flux[2, i] = f_my
    flux[3, i] = f_mz
    flux[4, i] = f_e


@wp.kernel
def lud_diagonal(a: wp.array3d(dtype=float)):
    """LU's diagonal tile (Rodinia's lud_diagonal), one 32x32 tile per block of 32 threads,
    factored in shared memory without pivoting: thread t owns row t, so the column reads of
    each step fall on one bank."""
    s = wp.shared.array(shape=(32, 32), dtype=float)
    t = wp.thread_idx()
    b = wp.block_idx()
    for r in range(32):
        s[r, t] = a[b, r, t]
    wp.sync_threads()
    for k in range(31):
        if t > k:
            s[t, k] = s[t, k] / s[k, k]
        wp.sync_threads()
        if t > k:
            l = s[t, k]
            for j in range(k + 1, 32):
                s[t, j] = s[t, j] - l * s[k, j]
        wp.sync_threads()
    for r in range(32):
        a[b, r, t] = s[r, t]


@wp.kernel
def resample_linear(cdf: wp.array(dtype=float), u: wp.array(dtype=float), index: wp.array(dtype=int)):
    """Particle filter's resampling (Rodinia's particlefilter, find index): each particle's
    draw is located in the weights' CDF by a linear search from the start."""
    i = wp.tid()
    target = u[i]
    n = cdf.shape[0]
    found = n - 1
    for x in range(n):
        if cdf[x] >= target:
            found = x
            break
    index[i] = found


@wp.kernel
def resample_binary(cdf: wp.array(dtype=float), u: wp.array(dtype=float), index: wp.array(dtype=int)):
    """The same search by bisection: the first CDF entry at or above the draw."""
    i = wp.tid()
    target = u[i]
    lo = int(0)
    hi = cdf.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] >= target:
            hi = mid
        else:
            lo = mid + 1
    index[i] = lo


# ---- SHOC --------------------------------------------------------------------------------------


@wp.func
def rotl(x: wp.uint32, s: wp.uint32):
    return (x << s) | (x >> (wp.uint32(32) - s))


@wp.kernel
def md5_rounds(seed: wp.uint32, digest: wp.array2d(dtype=wp.uint32)):
    """MD5-style hashing (SHOC's MD5Hash enumerates keys and hashes each): a thread builds a
    four-word message from its index and runs 64 rounds of the four MD5 round functions with
    rotations and additive constants, writing the four-word digest. Integer ALU only."""
    i = wp.tid()
    m0 = wp.uint32(i) ^ seed
    m1 = wp.uint32(i) * wp.uint32(2654435761)
    m2 = m0 + wp.uint32(0x5BD1E995)
    m3 = wp.uint32(0x80)
    a = wp.uint32(0x67452301)
    b = wp.uint32(0xEFCDAB89)
    c = wp.uint32(0x98BADCFE)
    d = wp.uint32(0x10325476)
    for r in range(64):
        f = wp.uint32(0)
        g = int(0)
        if r < 16:
            f = (b & c) | (~b & d)
            g = r
        elif r < 32:
            f = (d & b) | (~d & c)
            g = 5 * r + 1
        elif r < 48:
            f = b ^ c ^ d
            g = 3 * r + 5
        else:
            f = c ^ (b | ~d)
            g = 7 * r
        w = m3
        if g % 4 == 0:
            w = m0
        elif g % 4 == 1:
            w = m1
        elif g % 4 == 2:
            w = m2
        k = wp.uint32(r + 1) * wp.uint32(0x9E3779B9)
        s = wp.uint32(7 + 5 * (r % 4))
        tmp = d
        d = c
        c = b
        b = b + rotl(a + f + k + w, s)
        a = tmp
    digest[i, 0] = a
    digest[i, 1] = b
    digest[i, 2] = c
    digest[i, 3] = d


@wp.kernel
def s3d_rates(temp: wp.array(dtype=Any), log_a: wp.array(dtype=Any), beta: wp.array(dtype=Any),
              ea: wp.array(dtype=Any), dh: wp.array(dtype=Any), ds: wp.array(dtype=Any),
              rates: wp.array2d(dtype=Any)):
    """S3D-style reaction rates (SHOC's S3D: transcendental-heavy chemistry per grid point):
    for each reaction the Arrhenius forward rate exp(ln A + beta ln T - Ea / T), the reverse
    rate through the equilibrium constant exp(dH / T - dS), and their difference."""
    i = wp.tid()
    t = temp[i]
    T = type(t)
    lt = wp.log(t)
    inv = T(1.0) / t
    for r in range(log_a.shape[0]):
        kf = wp.exp(log_a[r] + beta[r] * lt - ea[r] * inv)
        kr = kf * wp.exp(dh[r] * inv - ds[r])
        rates[r, i] = kf - kr


@wp.kernel
def qtc_count_global(pts: wp.array(dtype=wp.vec3), thr2: float, counts: wp.array(dtype=int)):
    """Quality-threshold clustering's candidate step (SHOC's QTC): how many points lie within the
    threshold of each point, every other point read from global memory."""
    i = wp.tid()
    p = pts[i]
    c = int(0)
    for j in range(pts.shape[0]):
        d = p - pts[j]
        if wp.dot(d, d) < thr2:
            c += 1
    counts[i] = c


@wp.kernel
def qtc_count_tiled(pts: wp.array(dtype=wp.vec3), thr2: float, counts: wp.array(dtype=int)):
    """The same count with the points staged through shared memory 256 at a time (blocks of 256;
    the number of points a multiple of 256)."""
    sx = wp.shared.array(shape=(256,), dtype=float)
    sy = wp.shared.array(shape=(256,), dtype=float)
    sz = wp.shared.array(shape=(256,), dtype=float)
    i = wp.tid()
    t = wp.thread_idx()
    p = pts[i]
    c = int(0)
    for base in range(0, pts.shape[0], 256):
        q = pts[base + t]
        sx[t] = q[0]
        sy[t] = q[1]
        sz[t] = q[2]
        wp.sync_threads()
        for k in range(256):
            dx = p[0] - sx[k]
            dy = p[1] - sy[k]
            dz = p[2] - sz[k]
            if dx * dx + dy * dy + dz * dz < thr2:
                c += 1
        wp.sync_threads()
    counts[i] = c


@wp.kernel
def radix_hist_atomic(keys: wp.array(dtype=int), shift: int, n: int, counts: wp.array2d(dtype=int)):
    """Radix sort's local histogram (SHOC's Sort): a 4-bit digit of each key counted per block by
    shared-memory atomics on 16 bins (grid-stride), written digit-major for the scan."""
    hist = wp.shared.array(shape=(16,), dtype=int)
    t = wp.thread_idx()
    if t < 16:
        hist[t] = 0
    wp.sync_threads()
    for i in range(wp.tid(), n, wp.grid_dim() * 256):
        wp.atomic_add(hist, (keys[i] >> shift) & 15, 1)
    wp.sync_threads()
    if t < 16:
        counts[t, wp.block_idx()] = hist[t]


@wp.kernel
def radix_hist_private(keys: wp.array(dtype=int), shift: int, n: int, counts: wp.array2d(dtype=int)):
    """The same histogram privatised per thread: 16 counters per thread in shared memory (no
    atomics), then 16 threads per digit sum 16 threads' counters each and a shuffle tree adds
    those (blocks of 256)."""
    hist = wp.shared.array(shape=(16, 256), dtype=int)
    t = wp.thread_idx()
    for d in range(16):
        hist[d, t] = 0
    for i in range(wp.tid(), n, wp.grid_dim() * 256):
        d = (keys[i] >> shift) & 15
        hist[d, t] = hist[d, t] + 1
    wp.sync_threads()
    digit = t // 16
    part = t % 16
    v = int(0)
    for k in range(16):
        v += hist[digit, part * 16 + k]
    off = int(8)
    while off > 0:
        v += wp.shfl_down_sync(0xFFFFFFFF, v, off)
        off = off // 2
    if part == 0:
        counts[digit, wp.block_idx()] = v


@wp.kernel
def spmv_ell(row_len: wp.array(dtype=int), cols: wp.array2d(dtype=int), vals: wp.array2d(dtype=float),
             x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """Sparse matrix times vector in ELLPACK-R (SHOC's Spmv, ELLPACK-R variant): a thread per
    row, the row's entries stored slot-major (cols[k, row]) so a warp's loads are adjacent."""
    r = wp.tid()
    acc = float(0.0)
    for k in range(row_len[r]):
        acc += vals[k, r] * x[cols[k, r]]
    y[r] = acc


@wp.kernel
def spmv_ell_rowmajor(row_len: wp.array(dtype=int), cols: wp.array2d(dtype=int), vals: wp.array2d(dtype=float),
                      x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """The same with the padded rows stored row-major (cols[row, k]): lanes a row apart."""
    r = wp.tid()
    acc = float(0.0)
    for k in range(row_len[r]):
        acc += vals[r, k] * x[cols[r, k]]
    y[r] = acc


# ---- Parboil -----------------------------------------------------------------------------------


@wp.kernel
def mri_q(kx: wp.array(dtype=float), ky: wp.array(dtype=float), kz: wp.array(dtype=float),
          phi_mag: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float),
          z: wp.array(dtype=float), qr: wp.array(dtype=float), qi: wp.array(dtype=float)):
    """Parboil's MRI-Q: for each voxel, the sum over k-space samples of |phi|^2 times the cosine
    and sine of 2 pi k . x (the samples read by every thread alike)."""
    i = wp.tid()
    px = x[i]
    py = y[i]
    pz = z[i]
    sr = float(0.0)
    si = float(0.0)
    for k in range(kx.shape[0]):
        arg = 6.2831853 * (kx[k] * px + ky[k] * py + kz[k] * pz)
        m = phi_mag[k]
        sr += m * wp.cos(arg)
        si += m * wp.sin(arg)
    qr[i] = sr
    qi[i] = si


@wp.kernel
def cutcp(atoms: wp.array2d(dtype=wp.vec4), nb: int, spacing: float, cutoff2: float,
          pot: wp.array3d(dtype=float)):
    """Parboil's cutcp: the electrostatic potential at each lattice point from the atoms within a
    cut-off, with a smooth switching factor. Atoms are binned on a cubic grid of bins as wide as
    the cut-off, nb a side (atoms[bin, slot] = x, y, z, charge; empty slots far away; the lattice is
    cubic), and each point visits
    the 27 bins around its own, testing every atom against the cut-off."""
    z, y, x = wp.tid()
    px = float(x) * spacing
    py = float(y) * spacing
    pz = float(z) * spacing
    width = float(pot.shape[2]) * spacing / float(nb)
    bx = wp.min(int(px / width), nb - 1)
    by = wp.min(int(py / width), nb - 1)
    bz = wp.min(int(pz / width), nb - 1)
    acc = float(0.0)
    for cz in range(wp.max(bz - 1, 0), wp.min(bz + 2, nb)):
        for cy in range(wp.max(by - 1, 0), wp.min(by + 2, nb)):
            for cx in range(wp.max(bx - 1, 0), wp.min(bx + 2, nb)):
                b = (cz * nb + cy) * nb + cx
                for s in range(atoms.shape[1]):
                    at = atoms[b, s]
                    dx = at[0] - px
                    dy = at[1] - py
                    dz = at[2] - pz
                    r2 = dx * dx + dy * dy + dz * dz
                    if r2 < cutoff2:
                        sw = 1.0 - r2 / cutoff2
                        acc += at[3] * sw * sw / wp.sqrt(r2)
    pot[z, y, x] = acc


@wp.kernel
def tpacf(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), edges: wp.array(dtype=float),
          hist: wp.array(dtype=int)):
    """Parboil's TPACF: a histogram of the angular separation of every pair of points on the unit
    sphere (one point of a per thread, every point of b): the dot product is binned by bisection
    of the bins' descending cosine edges into a per-block histogram in shared memory, merged
    into the global one by atomics (blocks of 256, at most 256 bins)."""
    local = wp.shared.array(shape=(256,), dtype=int)
    t = wp.thread_idx()
    nbins = edges.shape[0] + 1
    if t < nbins:
        local[t] = 0
    wp.sync_threads()
    p = a[wp.tid()]
    for j in range(b.shape[0]):
        d = wp.dot(p, b[j])
        lo = int(0)
        hi = edges.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if d >= edges[mid]:
                hi = mid
            else:
                lo = mid + 1
        wp.atomic_add(local, lo, 1)
    wp.sync_threads()
    if t < nbins:
        if local[t] > 0:
            wp.atomic_add(hist, t, local[t])


@wp.func
def bgk(fq: float, wq: float, cu: float, usq: float, rho: float, omega: float):
    feq = wq * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq)
    return fq + omega * (feq - fq)


@wp.kernel
def lbm_soa(f: wp.array3d(dtype=float), out: wp.array3d(dtype=float), omega: float):
    """Lattice Boltzmann (Parboil's lbm, here D2Q9 on a periodic grid), one stream-and-collide
    step: each cell pulls its nine distributions from its neighbours, takes their moments and
    relaxes towards equilibrium (BGK). Distributions stored direction-major, f[q, y, x]."""
    i, j = wp.tid()
    h = f.shape[1]
    w = f.shape[2]
    n = (i + h - 1) % h
    s = (i + 1) % h
    e = (j + w - 1) % w
    west = (j + 1) % w
    f0 = f[0, i, j]
    f1 = f[1, i, e]
    f2 = f[2, s, j]
    f3 = f[3, i, west]
    f4 = f[4, n, j]
    f5 = f[5, s, e]
    f6 = f[6, s, west]
    f7 = f[7, n, west]
    f8 = f[8, n, e]
    rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8
    ux = (f1 - f3 + f5 - f6 - f7 + f8) / rho
    uy = (f2 - f4 + f5 + f6 - f7 - f8) / rho
    usq = ux * ux + uy * uy
    out[0, i, j] = bgk(f0, 4.0 / 9.0, 0.0, usq, rho, omega)
    out[1, i, j] = bgk(f1, 1.0 / 9.0, ux, usq, rho, omega)
    out[2, i, j] = bgk(f2, 1.0 / 9.0, uy, usq, rho, omega)
    out[3, i, j] = bgk(f3, 1.0 / 9.0, -ux, usq, rho, omega)
    out[4, i, j] = bgk(f4, 1.0 / 9.0, -uy, usq, rho, omega)
    out[5, i, j] = bgk(f5, 1.0 / 36.0, ux + uy, usq, rho, omega)
    out[6, i, j] = bgk(f6, 1.0 / 36.0, uy - ux, usq, rho, omega)
    out[7, i, j] = bgk(f7, 1.0 / 36.0, -ux - uy, usq, rho, omega)
    out[8, i, j] = bgk(f8, 1.0 / 36.0, ux - uy, usq, rho, omega)


@wp.kernel
def lbm_aos(f: wp.array3d(dtype=float), out: wp.array3d(dtype=float), omega: float):
    """The same step with the distributions stored cell-major, f[y, x, q] (an array of cells)."""
    i, j = wp.tid()
    h = f.shape[0]
    w = f.shape[1]
    n = (i + h - 1) % h
    s = (i + 1) % h
    e = (j + w - 1) % w
    west = (j + 1) % w
    f0 = f[i, j, 0]
    f1 = f[i, e, 1]
    f2 = f[s, j, 2]
    f3 = f[i, west, 3]
    f4 = f[n, j, 4]
    f5 = f[s, e, 5]
    f6 = f[s, west, 6]
    f7 = f[n, west, 7]
    f8 = f[n, e, 8]
    rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8
    ux = (f1 - f3 + f5 - f6 - f7 + f8) / rho
    uy = (f2 - f4 + f5 + f6 - f7 - f8) / rho
    usq = ux * ux + uy * uy
    out[i, j, 0] = bgk(f0, 4.0 / 9.0, 0.0, usq, rho, omega)
    out[i, j, 1] = bgk(f1, 1.0 / 9.0, ux, usq, rho, omega)
    out[i, j, 2] = bgk(f2, 1.0 / 9.0, uy, usq, rho, omega)
    out[i, j, 3] = bgk(f3, 1.0 / 9.0, -ux, usq, rho, omega)
    out[i, j, 4] = bgk(f4, 1.0 / 9.0, -uy, usq, rho, omega)
    out[i, j, 5] = bgk(f5, 1.0 / 36.0, ux + uy, usq, rho, omega)
    out[i, j, 6] = bgk(f6, 1.0 / 36.0, uy - ux, usq, rho, omega)
    out[i, j, 7] = bgk(f7, 1.0 / 36.0, -ux - uy, usq, rho, omega)
    out[i, j, 8] = bgk(f8, 1.0 / 36.0, ux - uy, usq, rho, omega)


# ---- the CUDA samples, and a common pattern ------------------------------------------------------


@wp.kernel
def transpose_naive(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    """Matrix transpose (the CUDA samples' transpose, its naive kernel): reads along rows,
    writes down columns."""
    i, j = wp.tid()
    b[j, i] = a[i, j]


@wp.kernel
def transpose_tiled(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    """Transpose through a 32x33 shared tile (the samples' coalesced, conflict-free kernel): a
    block of (8, 32) threads per 32x32 tile, both global sides along rows."""
    tile = wp.shared.array(shape=(32, 33), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    row0 = by * 32
    col0 = bx * 32
    for r in range(0, 32, 8):
        tile[ty + r, tx] = a[row0 + ty + r, col0 + tx]
    wp.sync_threads()
    for r in range(0, 32, 8):
        b[col0 + ty + r, row0 + tx] = tile[tx, ty + r]


@wp.kernel
def piecewise_branchy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """A piecewise function by branches: each of three ranges of x runs its own eight-step chain
    (sine, cosine or square root); lanes of a warp on different ranges run every path taken."""
    i = wp.tid()
    v = x[i]
    r = v
    if v < 0.3333:
        for k in range(8):
            r = 0.9 * r + wp.sin(r)
    elif v < 0.6667:
        for k in range(8):
            r = 0.9 * r + wp.cos(r)
    else:
        for k in range(8):
            r = 0.5 * r + wp.sqrt(r + 1.0)
    y[i] = r


@wp.kernel
def piecewise_select(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """The same function branch-free: all three chains, then a select."""
    i = wp.tid()
    v = x[i]
    ra = v
    rb = v
    rc = v
    for k in range(8):
        ra = 0.9 * ra + wp.sin(ra)
        rb = 0.9 * rb + wp.cos(rb)
        rc = 0.5 * rc + wp.sqrt(rc + 1.0)
    y[i] = wp.where(v < 0.3333, ra, wp.where(v < 0.6667, rb, rc))
