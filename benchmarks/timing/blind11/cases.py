"""The eleventh blind validation set's launches: kernels from NPB (EP, MG, FT), proxy
applications (LULESH, CloverLeaf, miniGhost, SimpleMOC), graph analytics (betweenness
centrality), genomics (PairHMM, FM-index search), computer vision (Hough voting, ORB matching,
HOG), graphics (ray-triangle tests), signal processing (Goertzel, the direct DFT) and data
encoding (integer formatting, cuSZ's Lorenzo predictor) (kernels.py, kernels_media.py) at one
or two sizes each, with seeded inputs, and the pairs users compare.

Not yet measured; to be measured once on an H200 (measure.sh here) and never used to fit or
tune a constant of the timing model (see README.md). Sizes keep each launch at a few
milliseconds at most on the GPU, and the whole set cheap to simulate.
"""
from __future__ import annotations

import numpy as np

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_media as KM

f32, f64, i32, u8, u16, u32, u64 = np.float32, np.float64, np.int32, np.uint8, np.uint16, np.uint32, np.uint64
M = 1 << 20
K1 = 1024

EP_A = 1220703125       # NPB's multiplier 5^13
EP_SEED = 271828183     # NPB EP's seed


# ---- host-side functions -----------------------------------------------------------------------

def smooth_field(shape, rng, modes=8, noise=0.0):
    """A sum of ``modes`` random plane waves over a 2-D grid (unit amplitude each, over the
    number of modes), plus white noise of standard deviation ``noise``."""
    ny, nx = shape
    yy, xx = np.mgrid[0:ny, 0:nx] / max(ny, nx)
    f = np.zeros(shape)
    for _ in range(modes):
        ky, kx = rng.uniform(-6, 6, 2)
        f += np.sin(2 * np.pi * (ky * yy + kx * xx) + rng.uniform(0, 2 * np.pi)) / modes
    return f + noise * rng.standard_normal(shape) if noise else f


def gray_image(n, rng):
    """A byte image of bright and dark discs and boxes over a gradient, lightly blurred, with
    noise."""
    yy, xx = np.mgrid[0:n, 0:n].astype(f32)
    img = 70.0 + 50.0 * xx / n + 20.0 * yy / n
    for _ in range(max(8, n // 32)):
        cy, cx = rng.uniform(0, n, 2)
        r = rng.uniform(n / 64, n / 10)
        val = rng.uniform(-60, 110)
        if rng.random() < 0.5:
            img += val * (((yy - cy) ** 2 + (xx - cx) ** 2) < r * r)
        else:
            img += val * ((np.abs(yy - cy) < r) & (np.abs(xx - cx) < 0.6 * r))
    for ax in (0, 1):
        img = (np.roll(img, 1, ax) + 2 * img + np.roll(img, -1, ax)) / 4
    img += rng.normal(0, 4, (n, n))
    return np.clip(img, 0, 255).astype(u8)


def csr_undirected(n, src, dst):
    """Both directions of the edges (self-loops and duplicates dropped) in CSR."""
    keep = src != dst
    a, b = np.minimum(src, dst)[keep], np.maximum(src, dst)[keep]
    e = np.unique(a.astype(np.int64) * n + b)
    a, b = e // n, e % n
    s = np.concatenate([a, b])
    d = np.concatenate([b, a])
    order = np.argsort(s, kind="stable")
    row = np.concatenate([[0], np.cumsum(np.bincount(s, minlength=n))])
    return row.astype(i32), d[order].astype(i32)


def bfs_paths(row, col, source=0):
    """BFS depths (-1 unreached) and shortest-path counts from ``source`` (float64)."""
    n = len(row) - 1
    src = np.repeat(np.arange(n), np.diff(row))
    dist = np.full(n, -1, np.int64)
    sigma = np.zeros(n)
    dist[source] = 0
    sigma[source] = 1.0
    level = 0
    frontier = np.array([source])
    while len(frontier):
        on = np.isin(src, frontier) if len(frontier) < 64 else (dist[src] == level)
        s, d = src[on], col[on]
        new = d[dist[d] == -1]
        dist[new] = level + 1
        nxt = dist[d] == level + 1
        sigma += np.bincount(d[nxt], weights=sigma[s[nxt]], minlength=n)
        frontier = np.unique(new)
        level += 1
    return dist, sigma


def bc_dependencies(row, col, dist, sigma, stop):
    """Brandes' dependencies delta for every vertex deeper than ``stop`` (pulled level by level
    from the deepest), zero elsewhere; float64."""
    n = len(row) - 1
    src = np.repeat(np.arange(n), np.diff(row))
    delta = np.zeros(n)
    for lev in range(int(dist.max()) - 1, stop, -1):
        on = (dist[src] == lev) & (dist[col] == lev + 1)
        s, w = src[on], col[on]
        delta += np.bincount(s, weights=sigma[s] / sigma[w] * (1.0 + delta[w]), minlength=n)
    return delta


def suffix_array(text):
    """The suffix array of a base string (codes 0-3) by prefix doubling from 12-mers, a suffix
    that ends first sorting first (as before a sentinel)."""
    n = len(text)
    k = 12
    pad = np.concatenate([text.astype(np.int64) + 1, np.zeros(k, np.int64)])
    key = np.zeros(n, np.int64)
    for j in range(k):
        key = key * 5 + pad[j:j + n]
    h = k
    while True:
        order = np.argsort(key, kind="stable")
        sk = key[order]
        rank = np.empty(n, np.int64)
        rank[order] = np.cumsum(np.concatenate([[1], sk[1:] != sk[:-1]]))
        if rank.max() == n:
            return order
        nxt = np.concatenate([rank, np.zeros(h, np.int64)])[h:h + n]
        key = rank * (n + 1) + nxt
        h *= 2


def fm_index(text):
    """The FM-index of text + sentinel: the BWT (the sentinel stored as base 0), its position,
    the per-32-position counts (n_blocks, 4) and bitmaps (n_blocks, 4), and C (4)."""
    n = len(text)
    sa = np.concatenate([[n], suffix_array(text)])
    bwt = np.where(sa > 0, text[np.maximum(sa - 1, 0)], 0).astype(np.int64)
    dpos = int(np.nonzero(sa == 0)[0][0])
    total = n + 1
    nblk = total // 32 + 1
    padded = np.full(nblk * 32, 4, np.int64)
    padded[:total] = bwt
    blocks = padded.reshape(nblk, 32)
    weights = (np.uint64(1) << np.arange(32, dtype=np.uint64))
    masks = np.stack([((blocks == c).astype(np.uint64) * weights).sum(1) for c in range(4)], 1).astype(u32)
    per = np.stack([(blocks == c).sum(1) for c in range(4)], 1)
    counts = np.concatenate([np.zeros((1, 4), np.int64), np.cumsum(per, 0)[:-1]]).astype(u32)
    ccum = np.array([1 + int(np.sum(text < c)) for c in range(4)], i32)
    return bwt, dpos, total, counts, masks, ccum


def exp_table(ntab, tau_max):
    """OpenMOC's linear table of 1 - exp(-tau): slope and intercept of each interval's chord."""
    h = tau_max / ntab
    t0 = np.arange(ntab) * h
    f0, f1 = -np.expm1(-t0), -np.expm1(-(t0 + h))
    slope = (f1 - f0) / h
    return slope.astype(f32), (f0 - slope * t0).astype(f32), f32(ntab / tau_max)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def ep(threads, nk, integer):
    """NPB EP's batches: ``threads`` batches of ``nk`` pairs from NPB's seed (deterministic)."""
    def make(rng):
        an = pow(EP_A, 2 * nk, 1 << 46)
        out = [np.zeros(threads, f64), np.zeros(threads, f64), np.zeros(K.NQ, i32)]
        if integer:
            return [u64(EP_SEED), u64(EP_A), u64(an), i32(nk), *out], threads, 256
        return [f64(EP_SEED), f64(EP_A), f64(an), i32(nk), *out], threads, 256
    return make


def mg(n):
    """Random u and v on an n^3 grid, NPB's operator A (-8/3, 0, 1/6, 1/12); blocks of
    4 x 8 x 32."""
    def make(rng):
        u = rng.standard_normal((n, n, n))
        v = rng.standard_normal((n, n, n))
        a = [f64(-8.0 / 3.0), f64(0.0), f64(1.0 / 6.0), f64(1.0 / 12.0)]
        return [u, v, *a, np.zeros((n, n, n))], (n, n, n), (K.MG_BZ, K.MG_BY, K.MG_BX)
    return make


def ft(nx, ny, nz, table):
    """A random spectrum (complex, interleaved) and NPB's alpha = 1e-6 at t = 1."""
    def make(rng):
        n = nx * ny * nz
        u0 = rng.standard_normal(2 * n)
        ap = -4.0 * 1e-6 * np.pi ** 2
        if table:
            fold = [np.where(2 * np.arange(m) >= m, np.arange(m) - m, np.arange(m)) for m in (nx, ny, nz)]
            kk, jj, ii = np.meshgrid(fold[2], fold[1], fold[0], indexing="ij")
            tw = np.exp(ap * (ii * ii + jj * jj + kk * kk)).ravel()
            return [u0, tw, np.zeros(2 * n)], n, 256
        return [u0, i32(nx), i32(ny), i32(nz), f64(ap), np.zeros(2 * n)], n, 256
    return make


def lulesh(n, shuffled):
    """An n^3 hexahedral mesh of the unit cube, nodes jittered by up to a fifth of the spacing,
    LULESH's corner order; nodes numbered in order or by a random permutation (the same
    geometry)."""
    def make(rng):
        m = n + 1
        h = 1.0 / n
        kk, jj, ii = np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij")
        x = (ii * h + rng.uniform(-0.2, 0.2, ii.shape) * h).ravel()
        y = (jj * h + rng.uniform(-0.2, 0.2, ii.shape) * h).ravel()
        z = (kk * h + rng.uniform(-0.2, 0.2, ii.shape) * h).ravel()
        ek, ej, ei = (a.ravel() for a in np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij"))

        def node(dk, dj, di):
            return ((ek + dk) * m + ej + dj) * m + ei + di
        nl = np.stack([node(0, 0, 0), node(0, 0, 1), node(0, 1, 1), node(0, 1, 0),
                       node(1, 0, 0), node(1, 0, 1), node(1, 1, 1), node(1, 1, 0)], 1)
        ne = n ** 3
        volo = np.full(ne, h ** 3)
        v = rng.uniform(0.95, 1.05, ne)
        if shuffled:
            perm = rng.permutation(m ** 3)
            xs, ys, zs = np.empty_like(x), np.empty_like(y), np.empty_like(z)
            xs[perm], ys[perm], zs[perm] = x, y, z
            x, y, z, nl = xs, ys, zs, perm[nl]
        return [x, y, z, nl.astype(i32), volo, v, np.zeros(ne), np.zeros(ne), np.zeros(ne)], ne, 256
    return make


def clover(n):
    """An n x n CloverLeaf grid over a 10 x 10 box (cell widths jittered by 10%): smooth density
    and pressure, smooth node velocities with some noise."""
    def make(rng):
        celldx = 10.0 / n * rng.uniform(0.9, 1.1, n)
        celldy = 10.0 / n * rng.uniform(0.9, 1.1, n)
        density = 1.0 + 0.5 * smooth_field((n, n), rng)
        pressure = 1.0 + 0.5 * smooth_field((n, n), rng, noise=0.01)
        xvel = smooth_field((n + 1, n + 1), rng, noise=0.05)
        yvel = smooth_field((n + 1, n + 1), rng, noise=0.05)
        return [celldx, celldy, density, pressure, xvel, yvel, np.zeros((n, n))], (n, n), (8, 32)
    return make


def halo(nv, n, face):
    """``nv`` variables of an n^3 block (fp64) and the face to pack: its first x plane (a value a
    row) or its first z plane (whole rows)."""
    def make(rng):
        field = rng.standard_normal(nv * n * n * n)
        count = nv * n * n
        if face == "x":
            geo = [i32(n), i32(1), i32(0), i32(n * n), i32(n), i32(1)]
        else:
            geo = [i32(n), i32(n), i32(0), i32(n * n * n), i32(n), i32(1)]
        return [field, *geo, np.zeros(count)], count, 256
    return make


def moc(tracks, segs, groups, side, table):
    """``tracks`` straight tracks over a side x side grid of flat source regions (periodic),
    ``segs`` segments each (lengths 0.05-1.5), sigma_t 0.2-3 and reduced sources a region and
    group, incoming fluxes; the exponential table for the table kernel."""
    def make(rng):
        start = rng.uniform(0, side, (tracks, 2))
        ang = rng.uniform(0, 2 * np.pi, tracks)
        step = 0.7 * np.stack([np.cos(ang), np.sin(ang)], 1)
        pos = start[:, None, :] + np.arange(segs)[None, :, None] * step[:, None, :]
        cell = np.floor(pos).astype(np.int64) % side
        fsr = (cell[..., 1] * side + cell[..., 0]).astype(i32)
        seg_len = rng.uniform(0.05, 1.5, (tracks, segs)).astype(f32)
        nf = side * side
        sigt = rng.uniform(0.2, 3.0, (nf, groups)).astype(f32)
        qst = rng.uniform(0.0, 1.0, (nf, groups)).astype(f32)
        psi_in = rng.uniform(0.0, 1.0, (tracks, groups)).astype(f32)
        head = [fsr, seg_len, sigt, qst, psi_in, f32(0.01)]
        tail = [np.zeros(nf * groups, f32), np.zeros((tracks, groups), f32)]
        if table:
            return [*head, *exp_table(K.MOC_NTAB, 10.0), *tail], tracks * groups, 256
        return [*head, *tail], tracks * groups, 256
    return make


def bc(n, m):
    """A uniform random graph (n vertices, about m undirected edges), BFS from vertex 0; the
    step for the level d just before the largest, every deeper dependency already known."""
    def make(rng):
        row, col = csr_undirected(n, rng.integers(0, n, m), rng.integers(0, n, m))
        dist, sigma = bfs_paths(row, col)
        sizes = np.bincount(dist[dist >= 0])
        d = int(np.argmax(sizes)) - 1
        delta = bc_dependencies(row, col, dist, sigma, d)
        return [row, col, dist.astype(i32), sigma.astype(f32), i32(d), delta.astype(f32)], n, 256
    return make


def hough(ne, na, angle_fastest, size=1024):
    """``ne`` distinct edge pixels of a size x size image (70% along 24 random segments, the rest
    clutter) in raster order; ``na`` angles over [0, pi); rho from -diagonal to +diagonal."""
    def make(rng):
        pts = []
        for _ in range(24):
            p0, p1 = rng.uniform(0, size, 2), rng.uniform(0, size, 2)
            t = rng.random(ne)
            pts.append(p0[None, :] + t[:, None] * (p1 - p0)[None, :] + rng.normal(0, 0.7, (ne, 2)))
        on = np.concatenate(pts)
        on = on[rng.permutation(len(on))[:int(0.7 * ne) * 2]]
        allp = np.concatenate([on, rng.uniform(0, size, (ne, 2))])
        xy = np.clip(np.round(allp).astype(np.int64), 0, size - 1)
        key = np.unique(xy[:, 1] * size + xy[:, 0])
        key = np.sort(rng.choice(key, ne, replace=False))
        theta = np.arange(na) * np.pi / na
        diag = int(np.ceil(np.hypot(size, size)))
        acc = np.zeros(na * (2 * diag + 1), i32)
        return [(key % size).astype(i32), (key // size).astype(i32), np.cos(theta).astype(f32),
                np.sin(theta).astype(f32), i32(angle_fastest), i32(diag), acc], ne * na, 256
    return make


def bf(nq, nt, block):
    """``nt`` random 256-bit train descriptors; ``nq`` queries, 60% of them a train descriptor
    with about 10% of its bits flipped, the rest random."""
    def make(rng):
        train = rng.integers(0, 1 << 32, (nt, KM.DESC_WORDS), dtype=np.int64).astype(u32)
        q = train[rng.integers(0, nt, nq)]
        flips = np.packbits(rng.random((nq, 256)) < 0.1, axis=1).view(u32)
        q = q ^ flips
        rand = rng.random(nq) < 0.4
        q[rand] = rng.integers(0, 1 << 32, (int(rand.sum()), KM.DESC_WORDS), dtype=np.int64).astype(u32)
        return [q, train, np.zeros(nq, i32), np.zeros(nq, i32), np.zeros(nq, i32)], nq, block
    return make


def hog(n, shared):
    def make(rng):
        img = gray_image(n, rng)
        cells = n // KM.HOG_CELL
        out = np.zeros((cells, cells, KM.HOG_BINS), f32)
        if shared:
            return [img, out], (n, n), (16, 16)
        return [img, out], (cells, cells), (8, 32)
    return make


def fm(text_len, nreads, rlen, interleaved):
    """The FM-index of a random base string; ``nreads`` reads of ``rlen`` bases, half copied from
    the string (found), half random (most die after about log4 of the length bases), mixed."""
    def make(rng):
        text = rng.integers(0, 4, text_len).astype(np.int64)
        _, dpos, total, counts, masks, ccum = fm_index(text)
        nblk = len(counts)
        if interleaved:
            occ = np.concatenate([counts, masks], 1).ravel()
            lay = [i32(0), i32(8), i32(4), i32(8)]
        else:
            occ = np.concatenate([counts.ravel(), masks.ravel()])
            lay = [i32(0), i32(4), i32(4 * nblk), i32(4)]
        start = rng.integers(0, text_len - rlen, nreads)
        reads = text[start[:, None] + np.arange(rlen)[None, :]]
        rand = rng.random(nreads) < 0.5
        reads[rand] = rng.integers(0, 4, (int(rand.sum()), rlen))
        return [occ.astype(u32), *lay, ccum, i32(dpos), i32(total), reads.astype(u8),
                np.zeros(nreads, i32), np.zeros(nreads, i32)], nreads, 256
    return make


def phmm(pairs, warp):
    """Random haplotypes of HLEN bases; reads of RLEN bases from a random offset of their
    haplotype with 3% substitutions, base qualities 10-40 (error rates 10^(-q/10)); gap open
    Q45, gap extension Q10."""
    def make(rng):
        hp = rng.integers(0, 4, (pairs, K.HLEN))
        off = rng.integers(0, K.HLEN - K.RLEN + 1, pairs)
        rd = hp[np.arange(pairs)[:, None], off[:, None] + np.arange(K.RLEN)[None, :]]
        sub = rng.random((pairs, K.RLEN)) < 0.03
        rd = np.where(sub, rng.integers(0, 4, (pairs, K.RLEN)), rd)
        err = 10.0 ** (-rng.integers(10, 41, (pairs, K.RLEN)) / 10.0)
        gop, gcp = 10.0 ** -4.5, 0.1
        tr = np.array([1.0 - 2.0 * gop, 1.0 - gcp, gop, gcp, gop, gcp], f32)
        head = [rd.astype(u8), err.astype(f32), hp.astype(u8), tr]
        if warp:
            return [*head, np.zeros(pairs, f32)], pairs * 32, 128
        scratch = [np.zeros((K.HLEN + 1, pairs), f32) for _ in range(3)]
        return [*head, *scratch, np.zeros(pairs, f32)], pairs, 128
    return make


def itoa(n, pairs):
    """``n`` 32-bit integers of log-uniform magnitude (1 to 10 digits), 30% negative."""
    def make(rng):
        mag = np.minimum(np.floor(10.0 ** rng.uniform(0, 9.33, n)), 2 ** 31 - 1).astype(np.int64)
        v = np.where(rng.random(n) < 0.3, -mag, mag).astype(i32)
        out = np.zeros((n, KM.FIELD), u8)
        if pairs:
            digits = np.frombuffer(b"".join(b"%02d" % k for k in range(100)), u8).copy()
            return [v, digits, out], n, 256
        return [v, out], n, 256
    return make


def sz(ny, nx, eb):
    """A smooth field plus noise (sd 0.01) and the absolute error bound ``eb``; radius 512."""
    def make(rng):
        x = smooth_field((ny, nx), rng, noise=0.01).astype(f32)
        n = ny * nx
        return [x, f32(1.0 / (2.0 * eb)), i32(512), np.zeros((ny, nx), u16), np.zeros(1, i32),
                np.zeros(n, i32), np.zeros(n, i32)], (ny, nx), (8, 32)
    return make


DTMF = [697.0, 770.0, 852.0, 941.0, 1209.0, 1336.0, 1477.0, 1633.0]


def tones(frames, direct, n=205, fs=8000.0):
    """``frames`` frames of ``n`` samples at 8 kHz: 70% a DTMF digit (a row and a column tone,
    random phases), all with noise (sd 0.3); the eight DTMF frequencies and their second
    harmonics (16 bins)."""
    def make(rng):
        freq = np.array(DTMF + [2 * f for f in DTMF])
        w = 2 * np.pi * freq / fs
        t = np.arange(n)
        x = 0.3 * rng.standard_normal((frames, n))
        digit = rng.random(frames) < 0.7
        r, c = rng.integers(0, 4, frames), rng.integers(4, 8, frames)
        ph = rng.uniform(0, 2 * np.pi, (frames, 2))
        x += digit[:, None] * (np.sin(w[r][:, None] * t + ph[:, :1]) + np.sin(w[c][:, None] * t + ph[:, 1:]))
        out = np.zeros((frames, len(freq)), f32)
        if direct:
            return [x.astype(f32), w.astype(f32), out], frames * len(freq), 256
        return [x.astype(f32), (2 * np.cos(w)).astype(f32), out], frames * len(freq), 256
    return make


def rays(w, h, shuffled):
    """NTRI random triangles (sides about 0.6) in front of a pinhole camera at the origin, and a
    ray per pixel of a w x h image (a 50-degree field), in raster order or shuffled."""
    def make(rng):
        c = np.stack([rng.uniform(-2.0, 2.0, KM.NTRI), rng.uniform(-1.2, 1.2, KM.NTRI),
                      rng.uniform(4.0, 8.0, KM.NTRI)], 1)
        v = c[:, None, :] + rng.uniform(-0.6, 0.6, (KM.NTRI, 3, 3))
        tri = np.concatenate([v[:, 0], v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]], 1).astype(f32)
        yy, xx = np.mgrid[0:h, 0:w]
        half = np.tan(np.radians(25.0))
        d = np.stack([(2 * (xx + 0.5) / w - 1) * half, (2 * (yy + 0.5) / h - 1) * half * h / w,
                      np.ones((h, w))], -1).reshape(-1, 3)
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        if shuffled:
            d = d[rng.permutation(len(d))]
        r = w * h
        return [tri, f32(0.0), f32(0.0), f32(0.0), d.astype(f32), np.zeros(r, i32), np.zeros(r, f32)], r, 256
    return make


LAUNCHES: list[Launch] = [
    # NPB
    Launch("ep_randlc@32K", K.ep_randlc, ep(32 * K1, 128, False), "fp64"),
    Launch("ep_lcg46@32K", K.ep_lcg46, ep(32 * K1, 128, True), "fp64"),
    Launch("mg_resid@128", K.mg_resid, mg(128), "dram"),
    Launch("mg_resid_tiled@128", K.mg_resid_tiled, mg(128), "shared"),
    Launch("ft_exp@256x128x64", K.ft_evolve_exp, ft(256, 128, 64, False), "fp64"),
    Launch("ft_table@256x128x64", K.ft_evolve_table, ft(256, 128, 64, True), "dram"),
    # proxy applications
    Launch("lulesh_ordered@64", K.lulesh_kinematics, lulesh(64, False), "l1"),
    Launch("lulesh_shuffled@64", K.lulesh_kinematics, lulesh(64, True), "l2"),
    Launch("clover_visc@480", K.clover_viscosity, clover(480), "launch"),
    Launch("clover_visc@1920", K.clover_viscosity, clover(1920), "dram"),
    Launch("halo_zface@16x128", K.halo_pack, halo(16, 128, "z"), "launch"),
    Launch("halo_xface@16x128", K.halo_pack, halo(16, 128, "x"), "dram"),
    Launch("moc_exp@8Kx32", K.moc_sweep_exp, moc(8 * K1, 48, 32, 64, False), "atomic"),
    Launch("moc_table@8Kx32", K.moc_sweep_table, moc(8 * K1, 48, 32, 64, True), "atomic"),
    # graph analytics
    Launch("bc_pull@1M", K.bc_pull, bc(M, 4 * M), "l2"),
    Launch("bc_push@1M", K.bc_push, bc(M, 4 * M), "atomic"),
    # genomics
    Launch("phmm_thread@4K", K.phmm_thread, phmm(4 * K1, False), "latency"),
    Launch("phmm_warp@4K", K.phmm_warp, phmm(4 * K1, True), "issue"),
    Launch("fm_split@128K", K.fm_search, fm(8 * M, 128 * K1, 24, False), "l2"),
    Launch("fm_interleaved@128K", K.fm_search, fm(8 * M, 128 * K1, 24, True), "l2"),
    # computer vision
    Launch("hough_angles@16K", KM.hough_vote, hough(16 * K1, 180, 1), "atomic"),
    Launch("hough_pixels@16K", KM.hough_vote, hough(16 * K1, 180, 0), "atomic"),
    Launch("bf_global@8K", KM.bf_match_global, bf(8 * K1, K1, 256), "issue"),
    Launch("bf_shared@8K", KM.bf_match_shared, bf(8 * K1, K1, 256), "issue"),
    Launch("bf_shared_b64@8K", KM.bf_match_shared, bf(8 * K1, K1, 64), "issue"),
    Launch("hog_thread@1024", KM.hog_thread, hog(1024, False), "l1"),
    Launch("hog_shared@1024", KM.hog_shared, hog(1024, True), "shared"),
    # graphics
    Launch("mt_coherent@512x256", KM.mt_rays, rays(512, 256, False), "issue"),
    Launch("mt_shuffled@512x256", KM.mt_rays, rays(512, 256, True), "issue"),
    # signal processing
    Launch("goertzel@4K", KM.goertzel, tones(4 * K1, False), "latency"),
    Launch("dft_direct@4K", KM.dft_direct, tones(4 * K1, True), "issue"),
    # data encoding
    Launch("itoa_div10@4M", KM.itoa_div10, itoa(4 * M, False), "issue"),
    Launch("itoa_pairs@4M", KM.itoa_pairs, itoa(4 * M, True), "issue"),
    Launch("sz_loose@2048", KM.sz_lorenzo, sz(2048, 2048, 1e-3), "dram"),
    Launch("sz_tight@2048", KM.sz_lorenzo, sz(2048, 2048, 3e-5), "atomic"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("integer / double generator, NPB EP 32K batches", "ep_lcg46@32K", "ep_randlc@32K"),
    ("shared tile / global loads, NPB MG residual 128^3", "mg_resid_tiled@128", "mg_resid@128"),
    ("exponential / table, NPB FT evolve 256x128x64", "ft_exp@256x128x64", "ft_table@256x128x64"),
    ("shuffled / ordered node numbering, LULESH kinematics 64^3", "lulesh_shuffled@64", "lulesh_ordered@64"),
    ("1920^2 / 480^2, CloverLeaf viscosity", "clover_visc@1920", "clover_visc@480"),
    ("x face / z face, miniGhost halo packing", "halo_xface@16x128", "halo_zface@16x128"),
    ("exponential / table, MOC sweep", "moc_exp@8Kx32", "moc_table@8Kx32"),
    ("push (atomics) / pull, BC dependencies 1M vertices", "bc_push@1M", "bc_pull@1M"),
    ("warp wavefront / thread per pair, PairHMM 4K pairs", "phmm_warp@4K", "phmm_thread@4K"),
    ("split tables / interleaved records, FM-index search 128K reads", "fm_split@128K", "fm_interleaved@128K"),
    ("pixels / angles on lanes, Hough voting", "hough_pixels@16K", "hough_angles@16K"),
    ("global / shared tile, ORB brute-force matching", "bf_global@8K", "bf_shared@8K"),
    ("64 / 256 threads a block, ORB matching with a 32 KB tile", "bf_shared_b64@8K", "bf_shared@8K"),
    ("thread per cell / shared atomics, HOG 1024^2", "hog_thread@1024", "hog_shared@1024"),
    ("shuffled / coherent rays, Möller-Trumbore", "mt_shuffled@512x256", "mt_coherent@512x256"),
    ("direct DFT / Goertzel, 16 bins of 4K frames", "dft_direct@4K", "goertzel@4K"),
    ("by 10 / by 100 with a table, integers to text 4M", "itoa_div10@4M", "itoa_pairs@4M"),
    ("tight / loose error bound, cuSZ Lorenzo 2048^2", "sz_tight@2048", "sz_loose@2048"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
