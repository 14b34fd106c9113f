"""Kernels of the thirteenth blind validation set, written in simt from the algorithms of
PolyBench/GPU, Rodinia and SHOC: PolyBench's SYR2K (a thread per element, and the
shared-memory tiling a user writes next) and TRISOLV (forward substitution, here for many
right-hand sides at once, in two layouts); the GICOV score of Rodinia's leukocyte tracking
(sample points on circles computed by sine and cosine, or read from tables); SHOC's
DeviceMemory read kernels (coalesced and unit-stride reads of a wrapped buffer in global
memory, and reads of a block's buffer in shared memory). Each is written from the
algorithm's description, as a user of simt would write it; none is a translation of a
suite's source, and none repeats an algorithm of the earlier blind sets (../blind/kernels.py
to ../blind12/kernels_media.py) or of the held-out set (../kernels.py, ../cases.py); the
proxy-application and graph kernels (miniFE, miniMD, TeaLeaf, CoMD, Lonestar) and
leukocyte's MGVF iteration are in kernels_apps.py.

Conventions as in simt's suite: with ``dim=(H, W)`` and ``i, j = wp.tid()``, ``j`` is the
fastest-varying index (CUDA's x). Launch shapes and inputs are in ``cases.py``; numpy
references in ``check.py``.
"""
import simt as wp

SY_T = 16               # syr2k_tiled: tile edge (blocks of 16 x 16)
GC_NR = 7               # GICOV: circle radii GC_R0 .. GC_R0 + GC_NR - 1
GC_R0 = 4
GC_NP = 16              # GICOV: sample points a circle
DM_UNROLL = 16          # DeviceMemory: reads a thread per repetition
DM_LOCAL = 4096         # devmem_shared: words of the block's shared buffer (16 KB)


# ---- PolyBench/GPU: SYR2K -----------------------------------------------------------------------------


@wp.kernel
def syr2k_naive(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), alpha: float, beta: float,
                c: wp.array2d(dtype=float)):
    """PolyBench's SYR2K, C = alpha A B^T + alpha B A^T + beta C (A, B n x m): a thread per
    element of C walks row i of A and B and row j of B and A in global memory (lanes' j rows
    apart: the second pair of reads is strided)."""
    i, j = wp.tid()
    s = float(0.0)
    for k in range(a.shape[1]):
        s += a[i, k] * b[j, k] + b[i, k] * a[j, k]
    c[i, j] = alpha * s + beta * c[i, j]


@wp.kernel
def syr2k_tiled(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), alpha: float, beta: float,
                c: wp.array2d(dtype=float)):
    """The same update through shared memory: a 16 x 16 block stages the k-tiles of A's and
    B's rows of its i range and of its j range (four tiles, padded to 17 columns), then every
    thread sums its 16 products of each pair from them; two barriers a tile."""
    ai = wp.shared.array(shape=(SY_T, SY_T + 1), dtype=float)
    bi = wp.shared.array(shape=(SY_T, SY_T + 1), dtype=float)
    aj = wp.shared.array(shape=(SY_T, SY_T + 1), dtype=float)
    bj = wp.shared.array(shape=(SY_T, SY_T + 1), dtype=float)
    i, j = wp.tid()
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    ri = by * SY_T + ty
    rj = bx * SY_T + ty
    s = float(0.0)
    for k0 in range(0, a.shape[1], SY_T):
        ai[ty, tx] = a[ri, k0 + tx]
        bi[ty, tx] = b[ri, k0 + tx]
        aj[ty, tx] = a[rj, k0 + tx]
        bj[ty, tx] = b[rj, k0 + tx]
        wp.sync_threads()
        for kk in range(SY_T):
            s += ai[ty, kk] * bj[tx, kk] + bi[ty, kk] * aj[tx, kk]
        wp.sync_threads()
    c[i, j] = alpha * s + beta * c[i, j]


# ---- PolyBench/GPU: TRISOLV ---------------------------------------------------------------------------


@wp.kernel
def trisolv_rhs(l: wp.array2d(dtype=float), b: wp.array(dtype=float), sr: int, si: int,
                x: wp.array(dtype=float)):
    """PolyBench's TRISOLV (forward substitution, L x = b, L lower triangular n x n) for many
    right-hand sides: a thread per right-hand side r, x_i = (b_i - sum_{j<i} L_ij x_j) / L_ii,
    its solution kept in global memory; b and x at r sr + i si (sr = n: a thread's vector
    contiguous; si = number of right-hand sides: lanes' values adjacent). L's reads are the
    same address in every lane."""
    r = wp.tid()
    n = l.shape[0]
    base = r * sr
    for i in range(n):
        s = b[base + i * si]
        for j in range(i):
            s -= l[i, j] * x[base + j * si]
        x[base + i * si] = s / l[i, i]


# ---- Rodinia: leukocyte, the GICOV score -------------------------------------------------------------


@wp.func
def clampi(v: int, lo: int, hi: int):
    return wp.min(wp.max(v, lo), hi)


@wp.kernel
def gicov_trig(gx: wp.array2d(dtype=float), gy: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    """Rodinia leukocyte's GICOV (gradient inverse coefficient of variation): a thread per
    pixel, for each of GC_NR circles (radii GC_R0 ..) about it, the gradient's component along
    the outward normal at GC_NP sample points (rounded positions, clamped to the image);
    mean^2 / variance of the samples, the largest over the circles. The sample angles' sine
    and cosine are computed at every point."""
    i, j = wp.tid()
    h = gx.shape[0]
    w = gx.shape[1]
    best = float(0.0)
    for ri in range(GC_NR):
        r = float(GC_R0 + ri)
        s = float(0.0)
        s2 = float(0.0)
        for k in range(GC_NP):
            t = float(k) * (2.0 * 3.14159265358979 / float(GC_NP))
            ct = wp.cos(t)
            st = wp.sin(t)
            y = clampi(int(wp.floor(float(i) + r * st + 0.5)), 0, h - 1)
            x = clampi(int(wp.floor(float(j) + r * ct + 0.5)), 0, w - 1)
            g = gx[y, x] * ct + gy[y, x] * st
            s += g
            s2 += g * g
        mean = s / float(GC_NP)
        var = (s2 - s * mean) / float(GC_NP - 1)
        best = wp.max(best, mean * mean / (var + 1.0e-6))
    out[i, j] = best


@wp.kernel
def gicov_table(gx: wp.array2d(dtype=float), gy: wp.array2d(dtype=float), dy: wp.array2d(dtype=int),
                dx: wp.array2d(dtype=int), cost: wp.array(dtype=float), sint: wp.array(dtype=float),
                out: wp.array2d(dtype=float)):
    """The same score as Rodinia computes it: the sample points' offsets [circle, point] and
    the angles' cosine and sine read from tables in global memory (the same in every lane)."""
    i, j = wp.tid()
    h = gx.shape[0]
    w = gx.shape[1]
    best = float(0.0)
    for ri in range(GC_NR):
        s = float(0.0)
        s2 = float(0.0)
        for k in range(GC_NP):
            y = clampi(i + dy[ri, k], 0, h - 1)
            x = clampi(j + dx[ri, k], 0, w - 1)
            g = gx[y, x] * cost[k] + gy[y, x] * sint[k]
            s += g
            s2 += g * g
        mean = s / float(GC_NP)
        var = (s2 - s * mean) / float(GC_NP - 1)
        best = wp.max(best, mean * mean / (var + 1.0e-6))
    out[i, j] = best


# ---- SHOC: DeviceMemory, the global-memory read kernels -------------------------------------------


@wp.kernel
def devmem_coalesced(data: wp.array(dtype=float), mask: int, nrep: int, out: wp.array(dtype=float)):
    """SHOC DeviceMemory's coalesced read: a thread starts at its index and reads DM_UNROLL
    values a repetition, each the grid's size apart (adjacent lanes adjacent words), the
    position wrapped by a mask (the buffer a power of two), and moves on by DM_UNROLL grids; the
    sum written once so that the reads stay."""
    g = wp.tid()
    nt = out.shape[0]
    s = g
    acc = float(0.0)
    for rep in range(nrep):
        for u in range(DM_UNROLL):
            acc += data[(s + u * nt) & mask]
        s = (s + DM_UNROLL * nt) & mask
    out[g] = acc


@wp.kernel
def devmem_unit(data: wp.array(dtype=float), mask: int, nrep: int, out: wp.array(dtype=float)):
    """SHOC DeviceMemory's unit-stride read: a thread reads DM_UNROLL consecutive values a
    repetition from its own chunk (adjacent lanes DM_UNROLL words apart), the position wrapped
    by the mask, moving on by DM_UNROLL grids."""
    g = wp.tid()
    nt = out.shape[0]
    s = g * DM_UNROLL
    acc = float(0.0)
    for rep in range(nrep):
        for u in range(DM_UNROLL):
            acc += data[(s + u) & mask]
        s = (s + DM_UNROLL * nt) & mask
    out[g] = acc


@wp.kernel
def devmem_shared(data: wp.array(dtype=float), nrep: int, out: wp.array(dtype=float)):
    """SHOC DeviceMemory's local (shared) memory read: a block fills a DM_LOCAL-word shared
    buffer from global memory (coalesced), then after a barrier every thread reads DM_UNROLL
    consecutive words a repetition from a position starting at its own index (adjacent lanes
    adjacent banks), wrapped by the buffer's mask, moving on by DM_UNROLL words."""
    buf = wp.shared.array(shape=(DM_LOCAL,), dtype=float)
    g = wp.tid()
    t = wp.thread_idx()
    nb = wp.block_dim()
    base = wp.block_idx() * DM_LOCAL
    for k in range(t, DM_LOCAL, nb):
        buf[k] = data[(base + k) & (data.shape[0] - 1)]
    wp.sync_threads()
    s = t
    acc = float(0.0)
    for rep in range(nrep):
        for u in range(DM_UNROLL):
            acc += buf[(s + u) & (DM_LOCAL - 1)]
        s = (s + DM_UNROLL) & (DM_LOCAL - 1)
    out[g] = acc
