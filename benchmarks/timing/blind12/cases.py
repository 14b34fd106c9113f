"""The twelfth blind validation set's launches: kernels from machine learning and data systems
(tree-ensemble inference, HyperLogLog, SpGEMM's symbolic phase, varint decoding, SipHash),
cryptography (the number-theoretic transform), bioinformatics (BEAGLE's partial likelihoods,
minimap2's minimizers), quantum Monte Carlo (miniQMC's B-spline orbitals), tomography
(back-projection), vision (Harris corners), flow visualisation (RK4 advection), physics
(mass-spring cloth), radar (CA-CFAR), geometry (Bézier patches) and convolutional networks
(Winograd's input transform) (kernels.py, kernels_media.py) at one or two sizes each, with
seeded inputs, and the pairs users compare.

Not yet measured; to be measured once on an H200 (measure.sh here) and never used to fit or
tune a constant of the timing model (see README.md). Sizes keep each launch at a few
milliseconds at most on the GPU, and the whole set cheap to simulate.
"""
from __future__ import annotations

import numpy as np

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_media as KM

f32, f64, i32, u8, u32, u64 = np.float32, np.float64, np.int32, np.uint8, np.uint32, np.uint64
M = 1 << 20
K1 = 1024


# ---- host-side functions -----------------------------------------------------------------------

def smooth_field(shape, rng, modes=8):
    """A sum of ``modes`` random plane waves over a 2-D grid (unit amplitude each, over the
    number of modes)."""
    ny, nx = shape
    yy, xx = np.mgrid[0:ny, 0:nx] / max(ny, nx)
    f = np.zeros(shape)
    for _ in range(modes):
        ky, kx = rng.uniform(-6, 6, 2)
        f += np.sin(2 * np.pi * (ky * yy + kx * xx) + rng.uniform(0, 2 * np.pi)) / modes
    return f


def random_forest(ntrees, depth, nfeat, rng):
    """Complete trees, breadth-first: features (ntrees, 2^depth - 1), thresholds (normal, like
    the features), leaf values (ntrees, 2^depth)."""
    ni = (1 << depth) - 1
    feat = rng.integers(0, nfeat, (ntrees, ni)).astype(i32)
    thr = rng.normal(0, 0.8, (ntrees, ni)).astype(f32)
    leaf = rng.normal(0, 0.1, (ntrees, ni + 1)).astype(f32)
    return feat, thr, leaf


def sparse_forest(feat, thr, leaf, depth):
    """The same trees in FIL's sparse layout: flat arrays of every tree's nodes (feature, -1
    at a leaf; threshold, or the leaf's value; the left child's index), a node's two children
    stored next to each other (the right child at the left's index + 1), subtrees depth-first;
    and each tree's root."""
    ntrees = feat.shape[0]
    ni = (1 << depth) - 1
    F, T, L, R = [], [], [], []
    for t in range(ntrees):
        R.append(len(F))
        # breadth-first node b placed at slot pos[b]; children placed as an adjacent pair
        base = len(F)
        F.append(0), T.append(0.0), L.append(-1)
        queue = [(0, base)]
        while queue:
            b, slot = queue.pop()
            if b >= ni:
                F[slot], T[slot], L[slot] = -1, float(leaf[t, b - ni]), -1
                continue
            F[slot], T[slot] = int(feat[t, b]), float(thr[t, b])
            c = len(F)
            F.extend([0, 0]), T.extend([0.0, 0.0]), L.extend([-1, -1])
            L[slot] = c
            queue.append((2 * b + 2, c + 1))
            queue.append((2 * b + 1, c))
    return (np.array(F, i32), np.array(T, f32), np.array(L, i32), np.array(R, i32))


def csr_random(n, ncols, lo, hi, rng):
    """A random n x ncols CSR matrix (pattern only), lo to hi columns drawn a row, duplicates
    dropped (columns sorted)."""
    cnt = rng.integers(lo, hi + 1, n)
    rows = np.repeat(np.arange(n, dtype=np.int64), cnt)
    key = np.unique(rows * ncols + rng.integers(0, ncols, len(rows)))
    row = np.concatenate([[0], np.cumsum(np.bincount(key // ncols, minlength=n))]).astype(i32)
    return row, (key % ncols).astype(i32)


def ntt_root_table(n, p=K.NTT_P, g=3):
    """Powers w^j, j < n/2, of a primitive n-th root of unity mod p, and Shoup's quotients
    floor(w^j 2^32 / p)."""
    w = pow(g, (p - 1) // n, p)
    half = n // 2
    blk = 1024
    low = np.empty(blk, np.int64)
    x = 1
    for j in range(blk):
        low[j] = x
        x = x * w % p
    nb = (half + blk - 1) // blk
    high = np.array([pow(w, blk * k, p) for k in range(nb)], np.int64)
    tw = (high[:, None] * low[None, :] % p).ravel()[:half]
    q = (tw << 32) // p
    return tw.astype(u32), q.astype(u32)


def varint_bytes(vals):
    """Zigzag LEB128 encoding of int32 values: (byte string, offsets of the values)."""
    z = ((vals.astype(np.int64) << 1) ^ (vals.astype(np.int64) >> 63)) & 0xFFFFFFFF
    nb = np.ones(len(z), np.int64)
    for k in range(1, 5):
        nb += z >= (1 << (7 * k))
    offs = np.concatenate([[0], np.cumsum(nb)])
    data = np.zeros(offs[-1] + 8, u8)
    for k in range(5):
        on = nb > k
        byte = (z[on] >> (7 * k)) & 0x7F
        byte |= np.where(nb[on] > k + 1, 0x80, 0)
        data[offs[:-1][on] + k] = byte
    return data, offs[:-1].astype(i32)


def gray_image(n, rng):
    """A float image in [0, 1]: bright and dark boxes and discs over a gradient, noise."""
    yy, xx = np.mgrid[0:n, 0:n].astype(f32)
    img = 0.3 + 0.2 * xx / n + 0.1 * yy / n
    for _ in range(max(8, n // 24)):
        cy, cx = rng.uniform(0, n, 2)
        r = rng.uniform(n / 64, n / 12)
        val = rng.uniform(-0.25, 0.45)
        if rng.random() < 0.5:
            img += val * (((yy - cy) ** 2 + (xx - cx) ** 2) < r * r)
        else:
            img += val * ((np.abs(yy - cy) < r) & (np.abs(xx - cx) < r))
    img += rng.normal(0, 0.01, (n, n))
    return np.clip(img, 0, 1).astype(f32)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def forest(nsamp, ntrees, depth, nfeat, sparse):
    """``ntrees`` complete trees of ``depth`` levels over ``nfeat`` standard normal features."""
    def make(rng):
        x = rng.standard_normal((nsamp, nfeat)).astype(f32)
        feat, thr, leaf = random_forest(ntrees, depth, nfeat, rng)
        out = np.zeros(nsamp, f32)
        if sparse:
            return [x, *sparse_forest(feat, thr, leaf, depth), out], nsamp, 128
        return [x, feat, thr, leaf, i32(depth), out], nsamp, 128
    return make


def hll(nitems, ndistinct, nthreads, shared):
    """``nitems`` 32-bit items drawn from ``ndistinct`` distinct values; a fixed grid of
    ``nthreads`` threads striding over them."""
    def make(rng):
        pool = rng.choice(1 << 31, ndistinct, replace=False).astype(u32)
        items = pool[rng.integers(0, ndistinct, nitems)]
        return [items, i32(nthreads), np.zeros(K.HLL_M, i32)], nthreads, 256
    return make


def spgemm(n, shared):
    """A and B n x n with 4 to 10 entries a row (so at most 100 products a row of C)."""
    def make(rng):
        arow, acol = csr_random(n, n, 4, 10, rng)
        brow, bcol = csr_random(n, n, 4, 10, rng)
        nnz = np.zeros(n, i32)
        if shared:
            return [arow, acol, brow, bcol, nnz], n, K.SPG_BLOCK
        return [arow, acol, brow, bcol, np.zeros(K.SPG_SLOTS * n, i32), nnz], n, 128
    return make


def ntt(logn, logh, shoup):
    """Random residues mod p, 2^logn of them; the stage of half-size 2^logh."""
    def make(rng):
        n = 1 << logn
        a = rng.integers(0, K.NTT_P, n).astype(u32)
        tw, twq = ntt_root_table(n)
        shift = logn - 1 - logh
        if shoup:
            return [a, tw, twq, i32(logh), i32(shift)], n // 2, 256
        return [a, tw, i32(logh), i32(shift)], n // 2, 256
    return make


def sip(n, c, d):
    """``n`` random 16-byte messages, a random key, SipHash-c-d."""
    def make(rng):
        msg = rng.integers(0, 1 << 63, (n, 2), dtype=np.int64).astype(u64) * u64(2) + u64(1)
        k = rng.integers(0, 1 << 63, 2, dtype=np.int64)
        return [msg, u64(int(k[0])), u64(int(k[1])), i32(c), i32(d), np.zeros(n, u64)], n, 256
    return make


def varint(n, small):
    """``n`` int32 values, zigzag-varint encoded: small ones (|v| < 64: one byte each), or of
    log-uniform magnitude up to 2^31 (1 to 5 bytes), half negative."""
    def make(rng):
        if small:
            v = rng.integers(-64, 64, n)
        else:
            mag = np.minimum(np.floor(2.0 ** rng.uniform(0, 31, n)), 2 ** 31 - 1).astype(np.int64)
            v = np.where(rng.random(n) < 0.5, -mag, mag)
        data, offs = varint_bytes(v.astype(i32))
        return [data, offs, np.zeros(n, i32)], n, 256
    return make


def beagle(ncat, nsites, per_state):
    """Child partials in (0, 1], transition matrices exp(Q t) of a random GTR-like rate matrix
    (rows summing to one), per category."""
    def make(rng):
        l1 = rng.uniform(0.01, 1.0, (ncat, nsites, 4)).astype(f32)
        l2 = rng.uniform(0.01, 1.0, (ncat, nsites, 4)).astype(f32)
        p = rng.uniform(0.0, 0.2, (2, ncat, 4, 4)) + 0.6 * np.eye(4)
        p /= p.sum(-1, keepdims=True)
        out = np.zeros((ncat, nsites, 4), f32)
        if per_state:
            return [l1, l2, p[0].astype(f32), p[1].astype(f32), out], (ncat, nsites, 4), (1, 64, 4)
        return [l1, l2, p[0].astype(f32), p[1].astype(f32), out], (ncat, nsites), (1, 256)
    return make


def minimizers(nbases, rolling):
    """A random base sequence (codes 0-3, one a byte) with a few repeats copied in; the
    minimizer of every full window."""
    def make(rng):
        seq = rng.integers(0, 4, nbases).astype(u8)
        for _ in range(16):
            a, b = rng.integers(0, nbases - 512, 2)
            seq[b:b + 500] = seq[a:a + 500]
        nwin = nbases - (K.MZ_W + K.MZ_K - 1) + 1
        out = np.zeros(nwin, u32)
        if rolling:
            return [seq, out], (nwin + K.MZ_CHUNK - 1) // K.MZ_CHUNK, 128
        return [seq, out], nwin, 256
    return make


def orbitals(grid, norb, npos, orb_fastest):
    """Random B-spline coefficients on a grid^3 box (padded by three), ``npos`` random
    positions inside, ``norb`` orbitals."""
    def make(rng):
        g = grid + 3
        coef = rng.standard_normal(g * g * g * norb).astype(f32)
        pos = rng.uniform(0, grid - 1e-3, (npos, 3)).astype(f32)
        return [coef, i32(g), i32(g), i32(g), i32(norb), pos, i32(orb_fastest),
                np.zeros((npos, norb), f32)], npos * norb, 256
    return make


def phantom_sinogram(n, nang, rng):
    """The parallel-beam sinogram of random ellipses (analytic line integrals), ramp-filtered
    along the detector (as the filtering step of FBP leaves it); detector of sqrt(2) n + 1."""
    nd = int(np.ceil(np.sqrt(2.0) * n)) + 1
    th = np.arange(nang) * np.pi / nang
    t = np.arange(nd) - 0.5 * (nd - 1)
    sino = np.zeros((nang, nd))
    for _ in range(10):
        cx, cy = rng.uniform(-0.3 * n, 0.3 * n, 2)
        a, b = rng.uniform(0.05 * n, 0.25 * n, 2)
        phi = rng.uniform(0, np.pi)
        rho = rng.uniform(0.2, 1.0)
        ang = th[:, None] - phi
        r2 = (a * np.cos(ang)) ** 2 + (b * np.sin(ang)) ** 2
        s = t[None, :] - (cx * np.cos(th) + cy * np.sin(th))[:, None]
        sino += np.where(s * s < r2, 2 * rho * a * b * np.sqrt(np.maximum(r2 - s * s, 0)) / r2, 0)
    freq = np.abs(np.fft.fftfreq(nd))
    return np.real(np.fft.ifft(np.fft.fft(sino, axis=1) * freq, axis=1)).astype(f32)


def backproj(n, nang, table):
    def make(rng):
        sino = phantom_sinogram(n, nang, rng)
        dth = np.pi / nang
        img = np.zeros((n, n), f32)
        scale = f32(np.pi / nang)
        if table:
            th = (np.arange(nang) * f32(dth)).astype(f32)
            return [sino, np.cos(th).astype(f32), np.sin(th).astype(f32), scale, img], (n, n), (16, 16)
        return [sino, f32(dth), scale, img], (n, n), (16, 16)
    return make


def harris(n, tiled):
    def make(rng):
        img = gray_image(n, rng)
        return [img, f32(0.04), np.zeros((n, n), f32)], (n, n), (KM.HB, KM.HB)
    return make


def advect(grid, npart, nsteps, shuffled):
    """A steady field of 24 Gaussian vortices on a grid x grid mesh (u, v interleaved, up to
    about a cell a time unit); particles seeded on a regular lattice over the middle 80%, in
    raster order or shuffled."""
    def make(rng):
        yy, xx = np.mgrid[0:grid, 0:grid].astype(f64)
        u = np.zeros((grid, grid))
        v = np.zeros((grid, grid))
        for _ in range(24):
            cy, cx = rng.uniform(0, grid, 2)
            r = rng.uniform(0.03, 0.12) * grid
            s = rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.0) * 2.0
            e = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (r * r))
            u += -s * (yy - cy) / r * e
            v += s * (xx - cx) / r * e
        vel = np.stack([u, v], -1).astype(f32)
        side = int(np.sqrt(npart))
        g = np.linspace(0.1 * grid, 0.9 * grid, side)
        sy, sx = np.meshgrid(g, g, indexing="ij")
        seeds = np.stack([sx.ravel(), sy.ravel()], 1).astype(f32)
        if shuffled:
            seeds = seeds[rng.permutation(len(seeds))]
        n = len(seeds)
        return [vel, seeds, i32(nsteps), f32(0.5), np.zeros((n, 2), f32)], n, 256
    return make


def cloth_pos(n, rng):
    """An n x n cloth of spacing 1 / n, hanging and rippled, nodes jittered by 20% of the
    spacing."""
    h = 1.0 / n
    r, c = np.mgrid[0:n, 0:n].astype(f64)
    x = c * h + rng.uniform(-0.2, 0.2, r.shape) * h
    y = 0.05 * np.sin(6.0 * c * h) * np.cos(4.0 * r * h)
    z = -r * h + rng.uniform(-0.2, 0.2, r.shape) * h
    return np.stack([x.ravel(), y.ravel(), z.ravel()], 1).astype(f32), f32(h)


def cloth_springs(n, rest):
    """The grid's springs, node by node: right, down, down-right, down-left (each spring once)."""
    r, c = np.mgrid[0:n, 0:n]
    i = (r * n + c).ravel()
    r, c = r.ravel(), c.ravel()
    out, lens = [], []
    for dr, dc, l in [(0, 1, 1.0), (1, 0, 1.0), (1, 1, np.sqrt(2.0)), (1, -1, np.sqrt(2.0))]:
        ok = (r + dr < n) & (c + dc >= 0) & (c + dc < n)
        out.append(np.stack([i[ok], i[ok] + dr * n + dc], 1))
        lens.append(np.full(int(ok.sum()), l))
    s = np.concatenate(out)
    order = np.argsort(s[:, 0], kind="stable")
    return s[order].astype(i32), (np.concatenate(lens)[order] * rest).astype(f32)


def cloth(n, scatter):
    def make(rng):
        pos, h = cloth_pos(n, rng)
        force = np.zeros((n * n, 3), f32)
        if scatter:
            springs, rest = cloth_springs(n, h)
            return [pos, springs, rest, f32(100.0), force], len(springs), 256
        return [pos, i32(n), h, f32(100.0), force], n * n, 256
    return make


def cfar(ndop, nrange, prefix):
    """A range-Doppler power map: exponential noise (mean one, slowly varying with range) and
    about 0.5% of cells with targets 10 to 30 dB up; threshold factor for 32 training cells."""
    def make(rng):
        level = 1.0 + 0.5 * np.sin(np.linspace(0, 6 * np.pi, nrange))[None, :]
        pw = rng.exponential(1.0, (ndop, nrange)) * level
        hit = rng.random((ndop, nrange)) < 0.005
        pw = np.where(hit, pw + 10 ** rng.uniform(1, 3, (ndop, nrange)), pw).astype(f32)
        alpha = f32(2 * KM.CF_TRAIN * (1e-4 ** (-1.0 / (2 * KM.CF_TRAIN)) - 1))
        outs = [np.zeros((ndop, nrange), f32), np.zeros((ndop, nrange), u8)]
        if prefix:
            cum = np.concatenate([np.zeros((ndop, 1)), np.cumsum(pw.astype(f64), 1)], 1)
            return [pw, cum, alpha, *outs], (ndop, nrange), (1, 256)
        return [pw, alpha, *outs], (ndop, nrange), (1, 256)
    return make


def bezier(npatch):
    """``npatch`` random patches: a 4 x 4 control grid over a unit square, heights random."""
    def make(rng):
        base = rng.uniform(-10, 10, (npatch, 1, 3))
        j, i = np.mgrid[0:4, 0:4]
        grid = np.stack([i.ravel() / 3.0, j.ravel() / 3.0, np.zeros(16)], 1)[None]
        ctrl = (base + grid + rng.normal(0, 0.3, (npatch, 16, 3))).astype(f32)
        n = npatch * KM.BZ_RES * KM.BZ_RES
        return [ctrl, np.zeros((n, 3), f32)], n, 256
    return make


def winograd(ch, tiles, tile_major):
    """A ch x (2 tiles + 2)^2 input (normal), its tiles^2 tiles a channel; the output
    element-major [16][ch][tiles^2] or tile-major [ch][tiles^2][16]."""
    def make(rng):
        hw = 2 * tiles + 2
        x = rng.standard_normal((ch, hw, hw)).astype(f32)
        nt = tiles * tiles
        if tile_major:
            strides = [i32(1), i32(nt * 16), i32(16)]
        else:
            strides = [i32(ch * nt), i32(nt), i32(1)]
        return [x, i32(tiles), *strides, np.zeros(16 * ch * nt, f32)], (ch, nt), (1, 256)
    return make


LAUNCHES: list[Launch] = [
    # machine learning and data systems
    Launch("fil_dense@64K", K.forest_dense, forest(64 * K1, 64, 8, 32, False), "l1"),
    Launch("fil_sparse@64K", K.forest_sparse, forest(64 * K1, 64, 8, 32, True), "latency"),
    Launch("fil_sparse@4K", K.forest_sparse, forest(4 * K1, 64, 8, 32, True), "launch"),
    Launch("hll_global@4M", K.hll_global, hll(4 * M, M, 64 * K1, False), "atomic"),
    Launch("hll_shared@4M", K.hll_shared, hll(4 * M, M, 64 * K1, True), "shared"),
    Launch("spgemm_global@64K", K.spgemm_count_global, spgemm(64 * K1, False), "l2"),
    Launch("spgemm_shared@64K", K.spgemm_count_shared, spgemm(64 * K1, True), "shared"),
    Launch("varint_mixed@8M", K.varint_decode, varint(8 * M, False), "dram"),
    Launch("varint_small@8M", K.varint_decode, varint(8 * M, True), "dram"),
    # cryptography
    Launch("ntt_mod@4M", K.ntt_stage_mod, ntt(22, 10, False), "issue"),
    Launch("ntt_shoup@4M", K.ntt_stage_shoup, ntt(22, 10, True), "dram"),
    Launch("siphash24@2M", K.siphash, sip(2 * M, 2, 4), "issue"),
    Launch("siphash13@2M", K.siphash, sip(2 * M, 1, 3), "issue"),
    # bioinformatics
    Launch("beagle_site@4x256K", K.beagle_site, beagle(4, 256 * K1, False), "dram"),
    Launch("beagle_state@4x256K", K.beagle_state, beagle(4, 256 * K1, True), "dram"),
    Launch("mz_window@2M", K.minimizer_window, minimizers(2 * M, False), "issue"),
    Launch("mz_rolling@2M", K.minimizer_rolling, minimizers(2 * M, True), "latency"),
    # quantum Monte Carlo
    Launch("qmc_orb_lanes@2Kx128", K.spline_orbitals, orbitals(24, 128, 2 * K1, 1), "l1"),
    Launch("qmc_pos_lanes@2Kx128", K.spline_orbitals, orbitals(24, 128, 2 * K1, 0), "l2"),
    # tomography
    Launch("bp_trig@256", KM.backproject_trig, backproj(256, 180, False), "issue"),
    Launch("bp_table@256", KM.backproject_table, backproj(256, 180, True), "l1"),
    Launch("bp_trig@512", KM.backproject_trig, backproj(512, 180, False), "issue"),
    # vision
    Launch("harris_direct@1024", KM.harris_direct, harris(1024, False), "l1"),
    Launch("harris_tiled@1024", KM.harris_tiled, harris(1024, True), "shared"),
    # flow visualisation
    Launch("rk4_sorted@256K", KM.rk4_advect, advect(1024, 256 * K1, 32, False), "l1"),
    Launch("rk4_shuffled@256K", KM.rk4_advect, advect(1024, 256 * K1, 32, True), "l2"),
    # physics
    Launch("cloth_gather@1024", KM.cloth_gather, cloth(1024, False), "l1"),
    Launch("cloth_scatter@1024", KM.cloth_scatter, cloth(1024, True), "atomic"),
    # radar
    Launch("cfar_direct@256x4096", KM.cfar_direct, cfar(256, 4096, False), "l1"),
    Launch("cfar_prefix@256x4096", KM.cfar_prefix, cfar(256, 4096, True), "dram"),
    # geometry
    Launch("bz_casteljau@4K", KM.bezier_casteljau, bezier(4 * K1), "issue"),
    Launch("bz_bernstein@4K", KM.bezier_bernstein, bezier(4 * K1), "issue"),
    # convolutional networks
    Launch("wino_elem@128x64", KM.winograd_input, winograd(128, 64, False), "dram"),
    Launch("wino_tile@128x64", KM.winograd_input, winograd(128, 64, True), "dram"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("sparse / dense layout, tree-ensemble inference 64K samples", "fil_sparse@64K", "fil_dense@64K"),
    ("64K / 4K samples, sparse tree-ensemble inference", "fil_sparse@64K", "fil_sparse@4K"),
    ("global / shared registers, HyperLogLog 4M items", "hll_global@4M", "hll_shared@4M"),
    ("global / shared hash tables, SpGEMM row counts 64K rows", "spgemm_global@64K", "spgemm_shared@64K"),
    ("mixed / one-byte values, varint decoding 8M", "varint_mixed@8M", "varint_small@8M"),
    ("64-bit remainder / Shoup, NTT stage 2^22", "ntt_mod@4M", "ntt_shoup@4M"),
    ("SipHash-2-4 / SipHash-1-3, 2M messages", "siphash24@2M", "siphash13@2M"),
    ("thread per state / per site, BEAGLE partials", "beagle_state@4x256K", "beagle_site@4x256K"),
    ("thread per window / rolling chunks, minimizers 2M bases", "mz_window@2M", "mz_rolling@2M"),
    ("positions / orbitals on lanes, miniQMC B-splines", "qmc_pos_lanes@2Kx128", "qmc_orb_lanes@2Kx128"),
    ("computed / tabled angles, back-projection 256^2", "bp_trig@256", "bp_table@256"),
    ("512^2 / 256^2, back-projection", "bp_trig@512", "bp_trig@256"),
    ("direct / shared tiles, Harris response 1024^2", "harris_direct@1024", "harris_tiled@1024"),
    ("shuffled / sorted particles, RK4 advection", "rk4_shuffled@256K", "rk4_sorted@256K"),
    ("scatter (atomics) / gather, cloth spring forces 1024^2", "cloth_scatter@1024", "cloth_gather@1024"),
    ("direct sums / prefix sums, CA-CFAR 256x4096", "cfar_direct@256x4096", "cfar_prefix@256x4096"),
    ("de Casteljau / Bernstein, Bézier patches", "bz_casteljau@4K", "bz_bernstein@4K"),
    ("tile-major / element-major, Winograd input transform", "wino_tile@128x64", "wino_elem@128x64"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
