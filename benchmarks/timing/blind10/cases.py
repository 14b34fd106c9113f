"""The tenth blind validation set's launches: kernels from Monte Carlo neutron transport, number
theory and coding, cryptography, CFD and pattern formation, columnar databases, graphs, batched
dense linear algebra, bioinformatics, an ML operator, stereo and image analysis, ultrasound
beamforming and graphics (kernels.py, kernels_ml.py) at one or two sizes each, with seeded
inputs, and the pairs users compare.

Not yet measured; to be measured once on an H200 (measure.sh here) and never used to fit or
tune a constant of the timing model (see README.md). Sizes keep each launch at a few
milliseconds at most on the GPU.
"""
from __future__ import annotations

import numpy as np
import simt as wp

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_ml as KM

f32, f64, i32, u8, u32, u64 = np.float32, np.float64, np.int32, np.uint8, np.uint32, np.uint64
M = 1 << 20
K1 = 1024

VEC2_06 = {0: wp.vec2, 6: wp.vec2}


# ---- host-side functions -----------------------------------------------------------------------

# XSBench-like materials: nuclides each holds and how often a lookup falls in it (a fuel of 32
# nuclides, the rest cladding, moderator, structure; chosen here, not XSBench's table)
MAT_NUCS = [32, 6, 4, 8, 24, 20, 16, 12, 20, 18, 10, 8]
MAT_PROB = [0.14, 0.05, 0.27, 0.13, 0.15, 0.06, 0.07, 0.05, 0.01, 0.02, 0.03, 0.02]


def xs_tables(nnuc, npts, rng):
    """Nuclide grids (energies sorted in [0, 1], each grid from 0 to 1, five random cross
    sections a point), the unionized grid and its index grid, and the materials."""
    e = np.sort(rng.random((nnuc, npts)), axis=1)
    e[:, 0], e[:, -1] = 0.0, 1.0
    grid = np.concatenate([e[..., None], rng.random((nnuc, npts, K.XS))], -1)
    union = np.sort(e.ravel())
    index = np.stack([np.clip(np.searchsorted(e[k], union, side="right") - 1, 0, npts - 2) for k in range(nnuc)], 1)
    counts = np.minimum(np.array(MAT_NUCS), nnuc)
    nucs = np.zeros((len(counts), counts.max()), np.int64)
    for m, c in enumerate(counts):
        nucs[m, :c] = rng.choice(nnuc, c, replace=False)
    conc = rng.random(nucs.shape)
    return grid, union, index, counts, nucs, conc


def mulmod_np(a, b, n):
    return (a * b) % n          # a, b < n < 2^32: the product fits uint64


def powmod_np(a, d, n):
    x = np.ones_like(n)
    p = a % n
    e = d.copy()
    for _ in range(33):
        x = np.where(e & u64(1), mulmod_np(x, p, n), x)
        p = mulmod_np(p, p, n)
        e = e >> u64(1)
    return x


def miller_rabin_np(n):
    """Deterministic Miller-Rabin (bases 2, 7, 61) of odd uint64 values in (61, 2^32)."""
    n = np.asarray(n, u64)
    d = n - u64(1)
    s = np.zeros(n.shape, np.int64)
    while True:
        even = (d & u64(1)) == 0
        if not even.any():
            break
        d = np.where(even, d >> u64(1), d)
        s += even
    prime = np.ones(n.shape, bool)
    for base in (2, 7, 61):
        x = powmod_np(np.full(n.shape, base, u64), d, n)
        ok = (x == 1) | (x == n - u64(1))
        for r in range(1, int(s.max())):
            x = mulmod_np(x, x, n)
            ok |= (x == n - u64(1)) & (r < s)
        prime &= ok
    return prime


def gf256_tables():
    """GF(2^8) with x^8 + x^4 + x^3 + x^2 + 1 (0x11D), alpha = 2: antilog doubled (512) and log."""
    gexp = np.zeros(512, np.int64)
    glog = np.zeros(256, np.int64)
    x = 1
    for k in range(255):
        gexp[k] = x
        glog[x] = k
        x <<= 1
        if x & 0x100:
            x ^= 0x11D
    gexp[255:510] = gexp[:255]
    return gexp.astype(i32), glog.astype(i32)


def icbrt(n):
    """The integer cube root of a Python int (floor)."""
    x = 1 << ((n.bit_length() + 2) // 3)
    while True:
        y = (2 * x + n // (x * x)) // 3
        if y >= x:
            break
        x = y
    while x ** 3 > n:
        x -= 1
    while (x + 1) ** 3 <= n:
        x += 1
    return x


def sha256_k():
    """SHA-256's round constants: the first 32 fractional bits of the cube roots of the first 64
    primes, in exact integer arithmetic."""
    primes = [p for p in range(2, 312) if all(p % q for q in range(2, int(p ** 0.5) + 1))][:64]
    return np.array([icbrt(p << 96) & 0xFFFFFFFF for p in primes], u32)


def sha256_padded(msgs):
    """Messages of equal length (bytes, (n, L)) padded (0x80, zeros, the bit length) to whole
    64-byte blocks, as big-endian 32-bit words (n, blocks * 16)."""
    n, length = msgs.shape
    total = (length + 9 + 63) // 64 * 64
    buf = np.zeros((n, total), u8)
    buf[:, :length] = msgs
    buf[:, length] = 0x80
    buf[:, -8:] = np.frombuffer((8 * length).to_bytes(8, "big"), u8)
    return buf.view(">u4").astype(u32)


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


def smooth_image(n, rng, scale=8):
    """A byte image of bright and dark discs and boxes over a gradient, blurred, with noise."""
    yy, xx = np.mgrid[0:n, 0:n].astype(f32)
    img = 60.0 + 40.0 * xx / n + 30.0 * yy / n
    for _ in range(max(8, n // 64)):
        cy, cx = rng.uniform(0, n, 2)
        r = rng.uniform(n / 64, n / 12)
        val = rng.uniform(-60, 120)
        if rng.random() < 0.5:
            img += val * (((yy - cy) ** 2 + (xx - cx) ** 2) < r * r)
        else:
            img += val * ((np.abs(yy - cy) < r) & (np.abs(xx - cx) < 0.7 * r))
    for ax in (0, 1):                       # a box blur of ``scale`` pixels, periodic
        img = sum(np.roll(img, s, ax) for s in range(-scale // 2, scale // 2)) / scale
    img += rng.normal(0, 3, (n, n))
    return np.clip(img, 0, 255).astype(u8)


def sobel(img):
    """Sobel derivatives of a byte image (zero at the border) as float32 integers."""
    a = img.astype(np.int64)
    gx = np.zeros_like(a)
    gy = np.zeros_like(a)
    gx[1:-1, 1:-1] = (a[:-2, 2:] + 2 * a[1:-1, 2:] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[1:-1, :-2] + a[2:, :-2])
    gy[1:-1, 1:-1] = (a[2:, :-2] + 2 * a[2:, 1:-1] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[:-2, 1:-1] + a[:-2, 2:])
    return gx.astype(f32), gy.astype(f32)


def quat_to_mat(q):
    w, x, y, z = q.T
    return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                     2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                     2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], 1).reshape(-1, 3, 3)


def quat_mul(a, b):
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], 1)


def rig(nb, rng):
    """``nb`` bones: unit rotations (random sign) and translations; (quaternions, translations)."""
    q = rng.standard_normal((nb, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q, rng.uniform(-1.0, 1.0, (nb, 3))


def triangles(count, radius, width, height, rng):
    """``count`` counter-clockwise triangles of about ``radius`` pixels in fixed point (SUB a
    pixel) inside a width x height screen, none degenerate, and their depths in (0.1, 0.9)."""
    out = []
    while sum(len(t) for t in out) < count:
        c = np.stack([rng.uniform(radius + 1, width - radius - 1, count),
                      rng.uniform(radius + 1, height - radius - 1, count)], 1)
        ang = np.sort(rng.uniform(0, 2 * np.pi, (count, 3)), axis=1)
        rad = radius * rng.uniform(0.6, 1.0, (count, 3))
        v = c[:, None, :] + rad[..., None] * np.stack([np.cos(ang), np.sin(ang)], -1)
        v = np.round(v * KM.SUB).astype(np.int64).reshape(count, 6)
        x0, y0, x1, y1, x2, y2 = v.T
        area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
        out.append(v[area > 0])
    tri = np.concatenate(out)[:count]
    return tri.astype(i32), rng.uniform(0.1, 0.9, (count, 3)).astype(f32)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def xs(nnuc, npts, lookups, unionized):
    def make(rng):
        grid, union, index, counts, nucs, conc = xs_tables(nnuc, npts, rng)
        p = np.array(MAT_PROB) / np.sum(MAT_PROB)
        energy = rng.random(lookups)
        mat = rng.choice(len(counts), lookups, p=p)
        tail = [counts.astype(i32), nucs.astype(i32), conc, energy, mat.astype(i32), np.zeros((lookups, K.XS))]
        if unionized:
            return [grid, union, index.astype(i32), *tail], lookups, 256
        return [grid, *tail], lookups, 256
    return make


def primes_or_random(n, primes):
    """``n`` odd 32-bit numbers at or above 2^31: random, or only primes."""
    def make(rng):
        if not primes:
            c = rng.integers(1 << 30, 1 << 31, n, dtype=np.int64) * 2 + 1
        else:
            found = []
            while sum(len(f) for f in found) < n:
                c = rng.integers(1 << 30, 1 << 31, 4 * n, dtype=np.int64) * 2 + 1
                for p in (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47):
                    c = c[c % p != 0]
                found.append(c[miller_rabin_np(c.astype(u64))])
            c = np.concatenate(found)[:n]
        return [c.astype(u32), np.zeros(n, u8)], n, 256
    return make


def rs(codewords, tables):
    def make(rng):
        cw = rng.integers(0, 256, (codewords, K.RS_N)).astype(u8)
        out = np.zeros((codewords, K.RS_T2), u8)
        if tables:
            return [cw, *gf256_tables(), out], codewords * 32, 256
        return [cw, out], codewords * 32, 256
    return make


def sha(messages, blocks):
    """``messages`` random messages of 64 ``blocks`` - 9 bytes (padded to exactly ``blocks``)."""
    def make(rng):
        msgs = rng.integers(0, 256, (messages, 64 * blocks - 9)).astype(u8)
        return [sha256_padded(msgs), sha256_k(), i32(blocks), np.zeros((messages, 8), u32)], messages, 256
    return make


def burgers(n, dtype=f32):
    """Rows of a sine wave plus a step (a shock), each row its own phase."""
    def make(rng):
        x = np.arange(n) / n
        ph = rng.uniform(0, 2 * np.pi, (n, 1))
        u = 0.5 + np.sin(2 * np.pi * x[None, :] + ph) + 0.5 * (((x[None, :] + ph / 7) % 1.0) < 0.5)
        alpha = float(np.abs(u).max())
        return [u.astype(dtype), f32(alpha), f32(n), np.zeros((n, n), dtype)], (n, n), (8, 32)
    return make


def gray_scott(n, aos):
    """u = 1, v = 0 with square patches of u = 1/2, v = 1/4 and a little noise; Pearson's
    parameters (Du 0.16, Dv 0.08, F 0.035, k 0.065, dt 1)."""
    def make(rng):
        u = np.ones((n, n))
        v = np.zeros((n, n))
        for _ in range(max(4, n // 32)):
            cy, cx = rng.integers(0, n - 8, 2)
            s = rng.integers(4, 9)
            u[cy:cy + s, cx:cx + s] = 0.5
            v[cy:cy + s, cx:cx + s] = 0.25
        u += rng.uniform(-0.01, 0.01, (n, n))
        v += rng.uniform(-0.01, 0.01, (n, n))
        par = [f32(0.16), f32(0.08), f32(0.035), f32(0.065), f32(1.0)]
        if aos:
            return [np.stack([u, v], -1).astype(f32), *par, np.zeros((n, n, 2), f32)], (n, n), (8, 32)
        return [u.astype(f32), v.astype(f32), *par, np.zeros((n, n), f32), np.zeros((n, n), f32)], (n, n), (8, 32)
    return make


def runs(n, mean, search):
    """``n`` outputs in runs of geometric length (mean ``mean``), random values."""
    def make(rng):
        lens = rng.geometric(1.0 / mean, n // mean * 2 + 64)
        ends = np.cumsum(lens)
        r = int(np.searchsorted(ends, n)) + 1
        lens = lens[:r]
        lens[-1] -= int(ends[r - 1]) - n
        start = np.concatenate([[0], np.cumsum(lens)]).astype(i32)
        vals = rng.integers(-(1 << 30), 1 << 30, r).astype(i32)
        return [vals, start, np.zeros(n, i32)], (n if search else r), 256
    return make


def lineitem(n, rows):
    """TPC-H lineitem's four columns of Q6 (quantity 1-50, extended price, discount 0-0.10,
    ship date 1992-01-01 + 0-2525 days) as columns or in 64-byte rows (fields 4, 5, 6, 10;
    the other fields zero); the query's year from day 731 (1994-01-01)."""
    def make(rng):
        qty = rng.integers(1, 51, n).astype(f32)
        price = (qty * rng.uniform(900.0, 2100.0, n)).astype(f32)
        disc = (rng.integers(0, 11, n) / 100.0).astype(f32)
        day = rng.integers(0, 2526, n).astype(f32)
        out = [f32(731.0), np.zeros(1, f32), np.zeros(1, i32)]
        if rows:
            r = np.zeros((n, 16), f32)
            r[:, 4], r[:, 5], r[:, 6], r[:, 10] = qty, price, disc, day
            return [r, *out], n, 256
        return [qty, price, disc, day, *out], n, 256
    return make


def kcore(n, m, skew, k=16):
    """A graph of n vertices and about m undirected edges: endpoints uniform, or drawn with
    weights (rank + 1)^-skew over a random order (hubs); a peeling round at k."""
    def make(rng):
        if skew:
            w = (np.arange(n) + 1.0) ** -skew
            w = w[rng.permutation(n)]
            src = rng.choice(n, m, p=w / w.sum())
            dst = rng.integers(0, n, m)
        else:
            src = rng.integers(0, n, m)
            dst = rng.integers(0, n, m)
        row, col = csr_undirected(n, src, dst)
        deg = np.diff(row).astype(i32)
        return [row, col, deg, i32(k), np.ones(n, u8), deg.copy()], n, 256
    return make


def lu_batch(batch, interleaved):
    def make(rng):
        a = rng.uniform(-1.0, 1.0, (batch, K.LU, K.LU)).astype(f32)
        if interleaved:
            return [np.ascontiguousarray(a.transpose(1, 2, 0)).ravel(), i32(1), i32(batch),
                    np.zeros((batch, K.LU), i32)], batch, 256
        return [a.ravel(), i32(K.LU * K.LU), i32(1), np.zeros((batch, K.LU), i32)], batch, 256
    return make


def pwm(n):
    """DNA (codes 0-3) and a 16-long log-odds matrix (log2 of Dirichlet frequencies over 1/4)."""
    def make(rng):
        seq = rng.integers(0, 4, n + K.MOTIF - 1).astype(u8)
        p = rng.dirichlet(np.full(4, 0.5), K.MOTIF) * 0.96 + 0.01
        return [seq, np.log2(p / 0.25).astype(f32), np.zeros(n, f32)], n, 256
    return make


def ssm(batch, length, channels, time_fastest):
    """Mamba's scan inputs: x and delta (B, L, D) or (B, D, L), A = -(1..N) times a jitter,
    B and C (B, L, N); 128 threads a block."""
    def make(rng):
        n = KM.SSM_N
        x = rng.standard_normal((batch, length, channels)).astype(f32)
        dl = rng.normal(-1.0, 0.5, (batch, length, channels)).astype(f32)
        a = -(np.arange(1, n + 1)[None, :] * rng.uniform(0.5, 1.5, (channels, n))).astype(f32)
        bm = rng.standard_normal((batch, length, n)).astype(f32)
        cm = rng.standard_normal((batch, length, n)).astype(f32)
        dbias = rng.normal(0.0, 0.1, channels).astype(f32)
        dskip = np.ones(channels, f32)
        if time_fastest:
            x, dl = (np.ascontiguousarray(v.transpose(0, 2, 1)) for v in (x, dl))
            sb, st, sd = channels * length, 1, length
        else:
            sb, st, sd = length * channels, channels, 1
        return [x.ravel(), dl.ravel(), dbias, a, bm, cm, dskip, i32(channels), i32(sb), i32(st), i32(sd),
                np.zeros(batch * length * channels, f32)], batch * channels, 128
    return make


def census(n, wide):
    def make(rng):
        out = np.zeros((n, n), u64 if wide else u32)
        return [smooth_image(n, rng, 4), out], (n, n), (8, 32)
    return make


def canny(n):
    def make(rng):
        gx, gy = sobel(smooth_image(n, rng))
        return [gx, gy, f32(40.0), f32(100.0), np.zeros((n, n), u8)], (n, n), (8, 32)
    return make


def flow(n, r):
    """Derivatives of a blurred random texture moving by a smooth flow (about a pixel), with
    noise in It."""
    def make(rng):
        tex = rng.standard_normal((n, n))
        for ax in (0, 1):
            tex = (np.roll(tex, 1, ax) + 2 * tex + np.roll(tex, -1, ax)) / 4
        ix = (np.roll(tex, -1, 1) - np.roll(tex, 1, 1)) / 2
        iy = (np.roll(tex, -1, 0) - np.roll(tex, 1, 0)) / 2
        yy, xx = np.mgrid[0:n, 0:n] / n
        fu, fv = np.sin(2 * np.pi * yy), np.cos(2 * np.pi * xx)
        it = -(ix * fu + iy * fv) + 0.01 * rng.standard_normal((n, n))
        return [ix.astype(f32), iy.astype(f32), it.astype(f32), i32(r), np.zeros((n, n), f32), np.zeros((n, n), f32)], \
            (n, n), (8, 32)
    return make


def ultrasound(nz, nx, nch, zfast):
    """A 0-degree plane-wave acquisition: ``nch`` elements 0.3 mm apart, 40 MHz sampling, 1540
    m/s (25.97 samples a mm), band-limited noise as the RF traces; pixels a quarter of the
    pitch across and 0.154 mm (half a wavelength at 5 MHz) deep from 5 mm; f-number 1.5."""
    def make(rng):
        fs_c = 40.0 / 1.54
        pitch = 0.3
        xe = ((np.arange(nch) - (nch - 1) / 2) * pitch).astype(f32)
        dxp, dzp, z0 = pitch / 4, 0.154, 5.0
        x0 = -(nx - 1) / 2 * dxp
        zmax = z0 + nz * dzp
        ns = int((zmax + np.hypot(zmax, nx * dxp + nch * pitch)) * fs_c) + 64
        noise = rng.standard_normal((nch, ns + 8))
        rf = sum(np.cos(np.pi * (k - 3.5) / 8) * noise[:, k:k + ns] for k in range(8))
        dim = (nx, nz) if zfast else (nz, nx)
        return [rf.astype(f32), xe, f32(x0), f32(dxp), f32(z0), f32(dzp), f32(fs_c), f32(1.5), i32(zfast),
                np.zeros((nz, nx), f32)], dim, (8, 32)
    return make


def skinning(n, nb, dual):
    """``n`` vertices in a box, four bones each near the vertex's own (weights from a Dirichlet,
    largest first), ``nb`` bones as 3 x 4 matrices or unit dual quaternions of the same rig."""
    def make(rng):
        pos = rng.uniform(-1.0, 1.0, (n, 3)).astype(f32)
        home = (np.arange(n) * nb) // n
        bone = (home[:, None] + np.concatenate([np.zeros((n, 1), np.int64), rng.integers(-3, 4, (n, 3))], 1)) % nb
        w = -np.sort(-rng.dirichlet(np.full(4, 1.0), n), axis=1)
        q, t = rig(nb, rng)
        if dual:
            qd = 0.5 * quat_mul(np.concatenate([np.zeros((nb, 1)), t], 1), q)
            bones = np.concatenate([q, qd], 1)
        else:
            bones = np.concatenate([quat_to_mat(q), t[:, :, None]], 2).reshape(nb, 12)
        return [pos, bone.astype(i32), w.astype(f32), bones.astype(f32), np.zeros((n, 3), f32)], n, 256
    return make


def raster(count, radius, width=1024, height=1024):
    def make(rng):
        tri, z = triangles(count, radius, width, height, rng)
        zbuf = np.full(width * height, np.iinfo(np.uint64).max, u64)
        return [tri, z, i32(width), i32(height), zbuf], count, 256
    return make


LAUNCHES: list[Launch] = [
    # Monte Carlo neutron transport
    Launch("xs_nuclide@512K", K.xs_lookup_nuclide, xs(68, 4096, 512 * K1, False), "latency"),
    Launch("xs_unionized@512K", K.xs_lookup_unionized, xs(68, 4096, 512 * K1, True), "dram"),
    # number theory and coding
    Launch("mr_random@256K", K.miller_rabin, primes_or_random(256 * K1, False), "issue"),
    Launch("mr_primes@256K", K.miller_rabin, primes_or_random(256 * K1, True), "issue"),
    Launch("rs_log@8K", K.rs_syndromes_log, rs(8 * K1, True), "shared"),
    Launch("rs_bitwise@8K", K.rs_syndromes_bitwise, rs(8 * K1, False), "issue"),
    # cryptography
    Launch("sha256_1blk@512K", K.sha256_msgs, sha(512 * K1, 1), "issue"),
    Launch("sha256_16blk@32K", K.sha256_msgs, sha(32 * K1, 16), "latency"),
    # CFD and pattern formation
    Launch("weno5@2048", K.weno5_burgers, burgers(2048), "issue"),
    Launch("weno5_f64@2048", K.weno5_burgers, burgers(2048, f64), "fp64"),
    Launch("gs_soa@4096", K.gray_scott_soa, gray_scott(4096, False), "dram"),
    Launch("gs_aos@4096", K.gray_scott_aos, gray_scott(4096, True), "dram", VEC2_06),
    # columnar data
    Launch("rle_runs@8M", K.rle_decode_runs, runs(8 * M, 8, False), "dram"),
    Launch("rle_search@8M", K.rle_decode_search, runs(8 * M, 8, True), "l2"),
    Launch("q6_columns@8M", K.q6_columns, lineitem(8 * M, False), "dram"),
    Launch("q6_rows@8M", K.q6_rows, lineitem(8 * M, True), "dram"),
    # graphs
    Launch("kcore_uniform@1M", K.kcore_peel, kcore(M, 8 * M, 0.0), "atomic"),
    Launch("kcore_skewed@1M", K.kcore_peel, kcore(M, 8 * M, 0.8), "atomic"),
    # batched dense linear algebra
    Launch("lu8_aos@256K", K.lu8_batched, lu_batch(256 * K1, False), "l1"),
    Launch("lu8_interleaved@256K", K.lu8_batched, lu_batch(256 * K1, True), "dram"),
    # bioinformatics
    Launch("pwm_global@8M", K.pwm_scan_global, pwm(8 * M), "l1"),
    Launch("pwm_shared@8M", K.pwm_scan_shared, pwm(8 * M), "shared"),
    # ML operator
    Launch("scan_bld@8x4096x256", KM.selective_scan, ssm(8, 256, 4096, False), "sfu"),
    Launch("scan_bdl@8x4096x256", KM.selective_scan, ssm(8, 256, 4096, True), "l1"),
    # stereo and image analysis
    Launch("census5x5@2048", KM.census5x5, census(2048, False), "issue"),
    Launch("census9x7@2048", KM.census9x7, census(2048, True), "issue"),
    Launch("canny@4096", KM.canny_nms, canny(4096), "dram"),
    Launch("canny@1024", KM.canny_nms, canny(1024), "launch"),
    Launch("lk_r2@1024", KM.lucas_kanade, flow(1024, 2), "l1"),
    Launch("lk_r4@1024", KM.lucas_kanade, flow(1024, 4), "l1"),
    # ultrasound beamforming
    Launch("das_xfast@1024x512", KM.das_beamform, ultrasound(1024, 512, 128, False), "l1"),
    Launch("das_zfast@1024x512", KM.das_beamform, ultrasound(1024, 512, 128, True), "l1"),
    # graphics
    Launch("skin_lbs@1M", KM.skin_lbs, skinning(M, 128, False), "dram"),
    Launch("skin_dqs@1M", KM.skin_dqs, skinning(M, 128, True), "dram"),
    Launch("raster_small@256K", KM.raster_tris, raster(256 * K1, 4.0), "atomic"),
    Launch("raster_large@4K", KM.raster_tris, raster(4 * K1, 32.0), "latency"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("nuclide grids / unionized grid, XSBench 512K lookups", "xs_nuclide@512K", "xs_unionized@512K"),
    ("primes / random odd numbers, Miller-Rabin 256K", "mr_primes@256K", "mr_random@256K"),
    ("bitwise products / log tables in shared memory, RS syndromes 8K codewords", "rs_bitwise@8K", "rs_log@8K"),
    ("16-block / 1-block messages, SHA-256 32 MB", "sha256_16blk@32K", "sha256_1blk@512K"),
    ("fp64 / fp32 WENO5 Burgers, 2048^2", "weno5_f64@2048", "weno5@2048"),
    ("interleaved vec2 / two planes, Gray-Scott 4096^2", "gs_aos@4096", "gs_soa@4096"),
    ("a thread per output (bisection) / per run, RLE decoding 8M", "rle_search@8M", "rle_runs@8M"),
    ("64-byte rows / columns, TPC-H Q6 8M rows", "q6_rows@8M", "q6_columns@8M"),
    ("skewed / uniform degrees, k-core peeling 1M vertices", "kcore_skewed@1M", "kcore_uniform@1M"),
    ("matrix after matrix / interleaved, batched LU 8x8", "lu8_aos@256K", "lu8_interleaved@256K"),
    ("global / shared table, PWM motif scan 8M", "pwm_global@8M", "pwm_shared@8M"),
    ("time fastest / channels fastest, selective scan", "scan_bdl@8x4096x256", "scan_bld@8x4096x256"),
    ("9x7 (64-bit) / 5x5 (32-bit) window, census transform 2048^2", "census9x7@2048", "census5x5@2048"),
    ("4096^2 / 1024^2, Canny non-maximum suppression", "canny@4096", "canny@1024"),
    ("9x9 / 5x5 window, Lucas-Kanade 1024^2", "lk_r4@1024", "lk_r2@1024"),
    ("lanes down / across the image, delay-and-sum 1024x512", "das_zfast@1024x512", "das_xfast@1024x512"),
    ("dual quaternions / matrices, skinning 1M vertices", "skin_dqs@1M", "skin_lbs@1M"),
    ("4K large / 256K small triangles, rasterisation", "raster_large@4K", "raster_small@256K"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
