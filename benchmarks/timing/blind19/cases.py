"""The nineteenth blind validation set's launches: miniWeather's tendencies (the x sweep and the z
sweep, fp64), Kessler's warm-rain microphysics (columns stored level-major or column-major), the
EOS-80 density of seawater (fp64 and fp32), MLS-MPM's particle-to-grid transfer (particles
sorted by cell or shuffled), Levenberg-Marquardt fits of 2-D Gaussians (4K and 64K fits) and
SDDMM (a thread or a warp a non-zero) (kernels.py); k-d tree nearest neighbours (the stack a
thread's vector or in shared memory), 64-bit GCDs (Euclid and Stein), Blowfish in counter mode
(S-boxes in global or in shared memory), Forward+ light culling (512 and 4096 lights), RANSAC
scoring (a thread or a block a hypothesis) and Aho-Corasick matching (the full automaton over
chunks, or PFAC a byte a thread) (kernels_apps.py), with seeded inputs, and the pairs users
compare.

To be measured once on an H200 (measure.sh here) and never used to fit or tune a constant of
the timing model (see README.md). Sizes aim at a few tens of microseconds to a few milliseconds
a launch on the GPU (estimated from the work and the bytes; not yet run on one).
"""
from __future__ import annotations

import math

import numpy as np

import simt as wp

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K
from . import kernels_apps as KA

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64
M = 1 << 20
K1 = 1024

MW_DOMAIN = (2.0e4, 1.0e4)          # miniWeather: the domain's width and height (m)
MW_THETA0, MW_CP, MW_RD, MW_P0 = 300.0, 1004.0, 287.0, 1.0e5
MW_HV_BETA = 0.05                   # miniWeather: the hyperviscosity's coefficient
KS_TOP, KS_DT = 12000.0, 50.0       # Kessler: the model top (m) and the time step (s)
MPM_PAR = (1.0e-4, 400.0)           # MPM: time step and the fluid's bulk modulus E
LM_SPOT = (300.0, 2000.0, 1.1, 1.8, 5.0, 30.0)   # Gaussian fits: amplitude, width and background ranges
BF_KEY = bytes(range(0x10, 0x20))   # Blowfish: the 128-bit key
BF_NONCE = (0x01234567, 0x89ABCDEF)
LC_FOV = math.radians(60.0)         # light culling: the vertical field of view
RS_THR = 3.0                        # RANSAC: the inlier threshold (pixels)
AC_CHUNK = 1024                     # Aho-Corasick: bytes a thread (the automaton kernel)
# Aho-Corasick: the text's alphabet (space and a-z) and English-like frequencies
AC_ALPHA = np.frombuffer(b" etaoinshrdlucmwfgypbvkxjqz", np.uint8)
AC_FREQ = np.array([18, 10, 7.5, 6.5, 6.2, 5.7, 5.7, 5.3, 5, 5, 3.4, 3.3, 2.3, 2.2, 2, 1.9, 1.8, 1.6, 1.6, 1.5,
                    1.2, 0.8, 0.6, 0.15, 0.1, 0.1, 0.07])


# ---- host-side functions -----------------------------------------------------------------------

def mw_background(z):
    """miniWeather's hydrostatic background of constant potential temperature at heights z:
    density, density x theta and pressure."""
    exner = 1.0 - K.MW_GRAV * z / (MW_CP * MW_THETA0)
    p = MW_P0 * exner ** (MW_CP / MW_RD)
    rt = (p / K.MW_C0) ** (1.0 / K.MW_GAMMA)
    return rt / MW_THETA0, rt, p


def mw_state(nx, nz, rng):
    """A state of the nz x nx grid with halos: the background's density perturbed by 1%, a wind
    of 10 m/s with 1 m/s noise, vertical motion of 1 m/s noise, and theta a 3 K warm bubble
    (and 0.1 K noise) above the background's 300 K; (dx, dz, dt) with miniWeather's CFL 1.5 at
    450 m/s."""
    dx, dz = MW_DOMAIN[0] / nx, MW_DOMAIN[1] / nz
    zc = (np.arange(nz + 2 * K.MW_HS) - K.MW_HS + 0.5) * dz
    xc = (np.arange(nx + 2 * K.MW_HS) - K.MW_HS + 0.5) * dx
    r0, rt0, _ = mw_background(zc)
    shape = (nz + 2 * K.MW_HS, nx + 2 * K.MW_HS)
    dens = r0[:, None] * 0.01 * rng.standard_normal(shape)
    r = r0[:, None] + dens
    bubble = 3.0 * np.exp(-(((xc[None, :] - 1.0e4) / 2.0e3) ** 2 + ((zc[:, None] - 2.0e3) / 2.0e3) ** 2))
    theta = MW_THETA0 + bubble + 0.1 * rng.standard_normal(shape)
    state = np.stack([dens, r * (10.0 + rng.standard_normal(shape)), r * rng.standard_normal(shape),
                      r * theta - rt0[:, None]])
    dt = min(dx, dz) / 450.0 * 1.5
    return state.astype(f64), dx, dz, dt


def ks_columns(ncol, nz, rng):
    """ncol columns of nz levels (uniform to KS_TOP): surface pressures of 1000 +- 10 mb and a
    scale height of 8 km; theta 300 K + 4 K/km with 0.5 K noise; humidity 50-105% of
    saturation; cloud water where nearly saturated below 6 km; rain from a column amplitude of up
    to 3 g/kg around 3 km (a tenth of the columns dry). Fields (nz, ncol): theta, qv, qc, qr,
    rho, pk; and the heights."""
    z = (np.arange(nz) + 0.5) * KS_TOP / nz
    p = rng.uniform(990.0, 1010.0, ncol)[None, :] * np.exp(-z[:, None] / 8000.0)
    pk = (p / K.KS_PSL) ** K.KS_XK
    theta = 300.0 + 0.004 * z[:, None] + 0.5 * rng.standard_normal((nz, ncol))
    tk = pk * theta
    rho = p * 100.0 / (287.0 * tk)
    qvs = 3.8 / p * np.exp(K.KS_F2X * (tk - 273.0) / (tk - 36.0))
    rh = rng.uniform(0.5, 1.05, (nz, ncol))
    qv = rh * qvs
    qc = np.where((rh > 0.95) & (z[:, None] < 6000.0), rng.uniform(0.0, 1.5e-3, (nz, ncol)), 0.0)
    amp = rng.uniform(0.0, 3.0e-3, ncol) * (rng.random(ncol) > 0.1)
    qr = amp[None, :] * np.exp(-((z[:, None] - 3000.0) / 2000.0) ** 2) * rng.uniform(0.5, 1.0, (nz, ncol))
    return [a.astype(f64) for a in (theta, qv, qc, qr, rho, pk)], z.astype(f64)


def mpm_particles(npart, n, rng):
    """npart fluid particles uniform over [0.2, 0.7] x [0.1, 0.6] of a unit square with n x n
    cells (about eight a cell for npart = n^2 / 2): velocities of 1 (with a downward 1), APIC
    matrices C with entries of 5 / s, volume ratios J in [0.95, 1.05]."""
    x = np.stack([rng.uniform(0.2, 0.7, npart), rng.uniform(0.1, 0.6, npart)], 1)
    v = rng.standard_normal((npart, 2)) + np.array([0.0, -1.0])
    c = 5.0 * rng.standard_normal((npart, 2, 2))
    j = rng.uniform(0.95, 1.05, npart)
    return x.astype(f32), v.astype(f32), c.astype(f32), j.astype(f32)


def spots(nfit, rng):
    """nfit LM_S x LM_S regions of a 2-D Gaussian spot (LM_SPOT's ranges, the centre within a
    pixel of the middle) with Poisson noise, and initial parameters off by up to 20% (half a
    pixel for the centre)."""
    a0, a1, s0, s1, b0, b1 = LM_SPOT
    true = np.stack([rng.uniform(a0, a1, nfit), 5.0 + rng.uniform(-1, 1, nfit), 5.0 + rng.uniform(-1, 1, nfit),
                     rng.uniform(s0, s1, nfit), rng.uniform(b0, b1, nfit)], 1)
    py, px = np.divmod(np.arange(K.LM_S * K.LM_S), K.LM_S)
    r2 = (px[None, :] - true[:, 1:2]) ** 2 + (py[None, :] - true[:, 2:3]) ** 2
    model = true[:, 0:1] * np.exp(-0.5 * r2 / true[:, 3:4] ** 2) + true[:, 4:5]
    data = rng.poisson(model).astype(f32)
    init = true * np.stack([rng.uniform(0.8, 1.2, nfit), np.ones(nfit), np.ones(nfit), rng.uniform(0.85, 1.15, nfit),
                            rng.uniform(0.7, 1.3, nfit)], 1)
    init[:, 1:3] += rng.uniform(-0.5, 0.5, (nfit, 2))
    return data, init.astype(f32)


def kd_build(pts, levels):
    """The complete k-d tree of 2^levels - 1 points as an implicit array: the node at depth d
    splits on axis d mod 3 at the median of its points (node i's children 2i + 1 and 2i + 2)."""
    n = (1 << levels) - 1
    tree = np.empty((n, 3), pts.dtype)
    cur = pts.reshape(1, n, 3)
    for d in range(levels):
        order = np.argsort(cur[:, :, d % 3], axis=1, kind="stable")
        cur = np.take_along_axis(cur, order[:, :, None], 1)
        h = cur.shape[1] // 2
        tree[(1 << d) - 1:(2 << d) - 1] = cur[:, h]
        if d < levels - 1:
            cur = np.stack([cur[:, :h], cur[:, h + 1:]], 1).reshape(2 << d, h, 3)
    return tree


def pi_words(nw):
    """The first nw 32-bit words of pi's fraction in hexadecimal (0x243F6A88, ...), by Machin's
    formula in integers."""
    bits = 32 * nw + 64
    one = 1 << bits

    def arctan_inv(x):
        term = one // x
        total, x2, k, sign = term, x * x, 1, -1
        while term:
            term //= x2
            total += sign * (term // (2 * k + 1))
            sign, k = -sign, k + 1
        return total
    frac = 16 * arctan_inv(5) - 4 * arctan_inv(239) - 3 * one
    top = frac >> (bits - 32 * nw)
    return [(top >> (32 * (nw - 1 - k))) & 0xFFFFFFFF for k in range(nw)]


def bf_encrypt(xl, xr, p, s):
    """Blowfish's encryption of the block (xl, xr) under subkeys p and S-boxes s (1024 words)."""
    for r in range(16):
        xl ^= p[r]
        f = ((((s[xl >> 24] + s[256 + ((xl >> 16) & 255)]) & 0xFFFFFFFF) ^ s[512 + ((xl >> 8) & 255)])
             + s[768 + (xl & 255)]) & 0xFFFFFFFF
        xl, xr = xr ^ f, xl
    xl, xr = xr, xl
    return xl ^ p[17], xr ^ p[16]


def bf_expand(key):
    """Blowfish's key schedule: pi's words XORed with the key (cyclically) into the subkeys, then
    the zero block encrypted again and again into the subkeys and S-boxes in turn."""
    w = pi_words(18 + 1024)
    p, s = w[:18], w[18:]
    j = 0
    for i in range(18):
        d = 0
        for _ in range(4):
            d = (d << 8) | key[j % len(key)]
            j += 1
        p[i] ^= d
    xl = xr = 0
    for i in range(0, 18 + 1024, 2):
        xl, xr = bf_encrypt(xl, xr, p, s)
        box, at = (p, i) if i < 18 else (s, i - 18)
        box[at], box[at + 1] = xl, xr
    return p, s


def depth_scene(w, h, focal, rng):
    """The view depth (m) of a street-like scene: a ground plane 1.7 m below the eye, a far
    plane at 100 m above the horizon, and 400 boxes (a 192nd to a 12th of the width wide and
    high, 3 to 80 m away) in front of them."""
    py = np.arange(h)[:, None] + 0.5 - h / 2
    d = np.minimum(np.where(py > 0, 1.7 * focal / np.maximum(py, 1e-3), 100.0), 100.0) * np.ones((1, w))
    for _ in range(400):
        bw, bh = rng.integers(w // 192, w // 12, 2)
        x0, y0 = rng.integers(0, w - bw), rng.integers(0, h - bh)
        d[y0:y0 + bh, x0:x0 + bw] = np.minimum(d[y0:y0 + bh, x0:x0 + bw], rng.uniform(3.0, 80.0))
    return d.astype(f32)


def scene_lights(depth, nl, focal, rng):
    """nl point lights near the scene's surfaces: at random pixels, 95% of the way to the surface
    seen there, radii of 0.5 to 3 m (larger further away); view space (x right, y down, z
    depth) and radius."""
    h, w = depth.shape
    px, py = rng.integers(0, w, nl), rng.integers(0, h, nl)
    d = 0.95 * depth[py, px].astype(f64)
    pos = np.stack([(px + 0.5 - w / 2) * d / focal, (py + 0.5 - h / 2) * d / focal, d], 1)
    r = rng.uniform(0.5, 3.0, nl) * (0.5 + d / 40.0)
    return np.concatenate([pos, r[:, None]], 1).astype(f32)


def homography_data(ncorr, nhyp, rng):
    """ncorr correspondences between two 1000 x 1000 images under a fixed homography, 60%
    inliers (0.7-pixel noise) and 40% uniform outliers, as (x, y, u, v); and nhyp hypotheses,
    each the homography through four random correspondences (the direct linear transform with
    h33 = 1), row-major."""
    h0 = np.array([[1.05, 0.02, 30.0], [-0.03, 0.98, -20.0], [2e-5, -1e-5, 1.0]])
    xy = rng.uniform(0.0, 1000.0, (ncorr, 2))
    hp = np.concatenate([xy, np.ones((ncorr, 1))], 1) @ h0.T
    uv = hp[:, :2] / hp[:, 2:] + rng.normal(0.0, 0.7, (ncorr, 2))
    out = rng.random(ncorr) > 0.6
    uv[out] = rng.uniform(0.0, 1000.0, (int(out.sum()), 2))
    idx = np.stack([rng.choice(ncorr, 4, replace=False) for _ in range(nhyp)])
    x, y, u, v = xy[idx, 0], xy[idx, 1], uv[idx, 0], uv[idx, 1]
    z, o = np.zeros_like(x), np.ones_like(x)
    rows_u = np.stack([x, y, o, z, z, z, -u * x, -u * y], 2)
    rows_v = np.stack([z, z, z, x, y, o, -v * x, -v * y], 2)
    a = np.concatenate([rows_u, rows_v], 1)
    b = np.concatenate([u, v], 1)
    hyp = np.concatenate([np.linalg.solve(a, b[:, :, None])[:, :, 0], np.ones((nhyp, 1))], 1)
    return np.concatenate([xy, uv], 1).astype(f32), hyp.astype(f32)


def ac_text(n, rng):
    """n bytes of English-like text: AC_ALPHA's letters drawn independently with AC_FREQ."""
    return AC_ALPHA[rng.choice(len(AC_ALPHA), n, p=AC_FREQ / AC_FREQ.sum())]


def ac_patterns(npat, rng):
    """npat distinct patterns of 3 to 8 bytes, each cut from a sample of the same text."""
    sample = ac_text(1 << 16, rng).tobytes()
    pats = []
    while len(pats) < npat:
        ln = int(rng.integers(3, 9))
        at = int(rng.integers(0, len(sample) - ln))
        if sample[at:at + ln] not in pats:
            pats.append(sample[at:at + ln])
    return pats


def ac_build(pats):
    """The trie (goto, -1 where there is no edge), Aho-Corasick's full transition table (goto
    completed by the failure function), each state's pattern (-1 if none) and its dictionary
    suffix link (the nearest state along the failure chain that ends a pattern, -1 if none)."""
    gto, term = [[-1] * 256], [-1]
    for pid, pat in enumerate(pats):
        s = 0
        for c in pat:
            if gto[s][c] < 0:
                gto[s][c] = len(gto)
                gto.append([-1] * 256)
                term.append(-1)
            s = gto[s][c]
        term[s] = pid
    gto, term = np.array(gto, np.int64), np.array(term, np.int64)
    ns = len(gto)
    fail, dlink, delta = np.zeros(ns, np.int64), np.full(ns, -1, np.int64), np.zeros_like(gto)
    delta[0] = np.maximum(gto[0], 0)
    queue = [int(u) for u in gto[0] if u >= 0]
    head = 0
    while head < len(queue):
        s = queue[head]
        head += 1
        f = fail[s]
        delta[s] = np.where(gto[s] >= 0, gto[s], delta[f])
        dlink[s] = f if term[f] >= 0 else dlink[f]
        for c in np.nonzero(gto[s] >= 0)[0]:
            u = int(gto[s][c])
            fail[u] = delta[f][c]
            queue.append(u)
    return gto.astype(i32), delta.astype(i32), term.astype(i32), dlink.astype(i32)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def miniweather(nx, nz, zdir):
    """mw_state(nx, nz) and the background at the cells' levels (x) or at the interfaces (z);
    blocks of 8 x 32."""
    def make(rng):
        state, dx, dz, dt = mw_state(nx, nz, rng)
        tend = np.zeros((K.MW_NV, nz, nx), f64)
        if zdir:
            ri, rti, pi = mw_background(np.arange(nz + 1) * dz)
            return [state, ri, rti, pi, f64(dz), f64(dt), f64(MW_HV_BETA), tend], (nz, nx), (8, 32)
        zc = (np.arange(nz + 2 * K.MW_HS) - K.MW_HS + 0.5) * dz
        r, rt, _ = mw_background(zc)
        return [state, r, rt, f64(dx), f64(dt), f64(MW_HV_BETA), tend], (nz, nx), (8, 32)
    return make


def kessler(ncol, nz, level_major):
    """ks_columns(ncol, nz) stored level-major (k ncol + c) or column-major (c nz + k), KS_DT;
    blocks of 128."""
    def make(rng):
        fields, z = ks_columns(ncol, nz, rng)
        if level_major:
            flat, sk, sc = [f.ravel() for f in fields], ncol, 1
        else:
            flat, sk, sc = [np.ascontiguousarray(f.T).ravel() for f in fields], 1, nz
        return [*flat, z, i32(sk), i32(sc), f64(KS_DT), np.zeros(ncol, f64)], ncol, 128
    return make


def eos(n, dtype):
    """n points of 64-level ocean columns in dtype: pressure 0-6000 dbar (denser near the
    surface), temperature 2 deg C + a 24 deg C thermocline (0.5 deg C noise), salinity 34.7 psu
    with a fresher or saltier surface layer; blocks of 256."""
    def make(rng):
        p = np.tile(6000.0 * (np.arange(64) / 63.0) ** 2, n // 64) + rng.uniform(0.0, 5.0, n)
        t = 2.0 + 24.0 * np.exp(-p / 700.0) + 0.5 * rng.standard_normal(n)
        s = 34.7 + np.exp(-p / 300.0) * rng.uniform(-2.0, 1.5, n) + 0.05 * rng.standard_normal(n)
        return [s.astype(dtype), t.astype(dtype), p.astype(dtype), np.zeros(n, dtype)], n, 256
    return make


MPM_T = {0: wp.vec2, 1: wp.vec2, 2: wp.mat22}


def mpm(npart, n, order):
    """mpm_particles(npart, n) sorted by cell (row-major) or shuffled, MPM_PAR, a particle's
    volume a quarter cell and its mass 1, a zeroed n x n grid; blocks of 256."""
    def make(rng):
        x, v, c, j = mpm_particles(npart, n, rng)
        cell = (x[:, 1] * n).astype(np.int64) * n + (x[:, 0] * n).astype(np.int64)
        perm = np.argsort(cell, kind="stable") if order == "sorted" else rng.permutation(npart)
        dx, (dt, e) = 1.0 / n, MPM_PAR
        return ([x[perm], v[perm], c[perm], j[perm], i32(n), f32(dx), f32(dt), f32(0.25 * dx * dx), f32(1.0),
                 f32(e), *(np.zeros(n * n, f32) for _ in range(3))], npart, 256)
    return make


def lm(nfit):
    """spots(nfit); blocks of 128."""
    def make(rng):
        data, init = spots(nfit, rng)
        return ([data, init, np.zeros((nfit, K.LM_NP), f32), np.zeros(nfit, f32), np.zeros(nfit, i32)],
                nfit, 128)
    return make


def sddmm(nnode, nnz, warp):
    """A sparse nnode x nnode matrix of nnz uniformly placed non-zeros (COO, rows sorted; values
    uniform), dense N(0, 1) matrices of nnode x SD_K; a thread (or a warp) a non-zero, blocks
    of 256."""
    def make(rng):
        row = np.sort(rng.integers(0, nnode, nnz)).astype(i32)
        col = rng.integers(0, nnode, nnz).astype(i32)
        val = rng.random(nnz, dtype=f32)
        x = rng.standard_normal((nnode, K.SD_K), dtype=f32)
        y = rng.standard_normal((nnode, K.SD_K), dtype=f32)
        return [row, col, val, x, y, np.zeros(nnz, f32)], nnz * (32 if warp else 1), 256
    return make


KD_T = {0: wp.vec3, 1: wp.vec3}


def kdtree(levels, nq):
    """kd_build of 2^levels - 1 points uniform in the unit cube, nq uniform queries; blocks of
    KD_BLOCK."""
    def make(rng):
        pts = rng.random(((1 << levels) - 1, 3), dtype=f32)
        q = rng.random((nq, 3), dtype=f32)
        return [kd_build(pts, levels), q, np.zeros(nq, i32), np.zeros(nq, f32)], nq, KA.KD_BLOCK
    return make


def gcd(n):
    """n pairs g x, g y below 2^63: x, y uniform below 2^44, g a power of two up to 2^7 times a
    number below 2^12; blocks of 256."""
    def make(rng):
        g = (np.uint64(1) << rng.integers(0, 8, n).astype(u64)) * rng.integers(1, 1 << 12, n).astype(u64)
        x, y = (rng.integers(1, 1 << 44, n).astype(u64) for _ in range(2))
        return [g * x, g * y, np.zeros(n, u64)], n, 256
    return make


def blowfish(nbytes):
    """nbytes of random plaintext (uint32 words), bf_expand(BF_KEY), BF_NONCE; a thread a 64-bit
    block, blocks of BF_BLOCK."""
    def make(rng):
        p, s = bf_expand(BF_KEY)
        pt = rng.integers(0, 1 << 32, nbytes // 4, dtype=np.uint64).astype(u32)
        return ([pt, np.array(p, u32), np.array(s, u32), np.array(BF_NONCE, u32), np.zeros(nbytes // 4, u32)],
                nbytes // 8, KA.BF_BLOCK)
    return make


LIGHT_T = {1: wp.vec4}


def lights(w, h, nl):
    """depth_scene(w, h) and scene_lights(nl) for a LC_FOV camera; a block a tile of LC_T x
    LC_T pixels."""
    def make(rng):
        focal = 0.5 * h / math.tan(0.5 * LC_FOV)
        depth = depth_scene(w, h, focal, rng)
        lts = scene_lights(depth, nl, focal, rng)
        ntile = (w // KA.LC_T) * (h // KA.LC_T)
        return ([depth, lts, f32(focal), f32(w / 2), f32(h / 2), np.zeros(ntile, i32),
                 np.zeros(ntile * KA.LC_MAX, i32)], (h, w), (KA.LC_T, KA.LC_T))
    return make


RS_T = {0: wp.vec4}


def ransac(ncorr, nhyp, per_block):
    """homography_data(ncorr, nhyp), RS_THR squared; a thread a hypothesis (blocks of 128) or a
    block of RS_BLOCK a hypothesis."""
    def make(rng):
        corr, hyp = homography_data(ncorr, nhyp, rng)
        inputs = [corr, hyp, f32(RS_THR ** 2), np.zeros(nhyp, i32), np.zeros(nhyp, f32)]
        return (inputs, nhyp * KA.RS_BLOCK, KA.RS_BLOCK) if per_block else (inputs, nhyp, 128)
    return make


def aho_corasick(nbytes, npat, pfac):
    """ac_text(nbytes), ac_build(ac_patterns(npat)); the automaton a chunk of AC_CHUNK bytes a
    thread, or PFAC a byte a thread; blocks of 256."""
    def make(rng):
        text = ac_text(nbytes, rng)
        pats = ac_patterns(npat, rng)
        gto, delta, term, dlink = ac_build(pats)
        hits = np.zeros(npat, i32)
        if pfac:
            return [text, gto, term, hits], nbytes, 256
        maxlen = max(len(p) for p in pats)
        return [text, delta, term, dlink, i32(AC_CHUNK), i32(maxlen), hits], -(-nbytes // AC_CHUNK), 256
    return make


LAUNCHES: list[Launch] = [
    # miniWeather, Kessler, EOS-80
    Launch("mw_x@4Kx1K", K.mw_tend_x, miniweather(4 * K1, K1, False), "fp64"),
    Launch("mw_z@4Kx1K", K.mw_tend_z, miniweather(4 * K1, K1, True), "fp64"),
    Launch("kessler_levels@64Kx64", K.kessler_column, kessler(64 * K1, 64, True), "fp64"),
    Launch("kessler_columns@64Kx64", K.kessler_column, kessler(64 * K1, 64, False), "l1"),
    Launch("eos80_f64@16M", K.eos80_density, eos(16 * M, f64), "dram"),
    Launch("eos80_f32@16M", K.eos80_density, eos(16 * M, f32), "dram"),
    # MPM, Gaussian fits, SDDMM
    Launch("mpm_sorted@2M", K.mpm_p2g, mpm(2 * M, K1, "sorted"), "atomic", MPM_T),
    Launch("mpm_shuffled@2M", K.mpm_p2g, mpm(2 * M, K1, "shuffled"), "atomic", MPM_T),
    Launch("lm_fit@4K", K.lm_gauss2d, lm(4 * K1), "latency"),
    Launch("lm_fit@64K", K.lm_gauss2d, lm(64 * K1), "l1"),
    Launch("sddmm_thread@4M", K.sddmm_thread, sddmm(512 * K1, 4 * M, False), "l1"),
    Launch("sddmm_warp@4M", K.sddmm_warp, sddmm(512 * K1, 4 * M, True), "dram"),
    # k-d tree, GCD, Blowfish
    Launch("kd_local@1M", KA.kd_nn_local, kdtree(20, M), "l2", KD_T),
    Launch("kd_shared@1M", KA.kd_nn_shared, kdtree(20, M), "occupancy", KD_T),
    Launch("gcd_euclid@8M", KA.gcd_euclid, gcd(8 * M), "issue"),
    Launch("gcd_binary@8M", KA.gcd_binary, gcd(8 * M), "issue"),
    Launch("bf_global@128MB", KA.bf_ctr_global, blowfish(128 * M), "l1"),
    Launch("bf_shared@128MB", KA.bf_ctr_shared, blowfish(128 * M), "shared"),
    # light culling, RANSAC, Aho-Corasick
    Launch("lights_512@4K", KA.light_cull, lights(3840, 2160, 512), "dram", LIGHT_T),
    Launch("lights_4096@4K", KA.light_cull, lights(3840, 2160, 4096), "issue", LIGHT_T),
    Launch("ransac_thread@8Kx4K", KA.ransac_thread, ransac(8 * K1, 4 * K1, False), "latency", RS_T),
    Launch("ransac_block@8Kx4K", KA.ransac_block, ransac(8 * K1, 4 * K1, True), "issue", RS_T),
    Launch("ac_dfa@64MB", KA.ac_dfa, aho_corasick(64 * M, 256, False), "latency"),
    Launch("ac_pfac@64MB", KA.ac_pfac, aho_corasick(64 * M, 256, True), "l2"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("x / z sweep, miniWeather tendencies 4096 x 1024 fp64", "mw_x@4Kx1K", "mw_z@4Kx1K"),
    ("level-major / column-major, Kessler microphysics 64K columns x 64 levels", "kessler_levels@64Kx64",
     "kessler_columns@64Kx64"),
    ("fp64 / fp32, EOS-80 density 16M points", "eos80_f64@16M", "eos80_f32@16M"),
    ("sorted / shuffled particles, MLS-MPM P2G 2M particles on 1024^2", "mpm_sorted@2M", "mpm_shuffled@2M"),
    ("64K / 4K fits, Levenberg-Marquardt 2-D Gaussians 11 x 11", "lm_fit@64K", "lm_fit@4K"),
    ("a thread / a warp a non-zero, SDDMM 4M non-zeros x 32", "sddmm_thread@4M", "sddmm_warp@4M"),
    ("a thread's vector / shared memory for the stack, k-d tree nearest neighbours 1M queries in 1M points",
     "kd_local@1M", "kd_shared@1M"),
    ("Euclid / Stein, GCD of 8M 64-bit pairs", "gcd_euclid@8M", "gcd_binary@8M"),
    ("global / shared S-boxes, Blowfish CTR 128 MB", "bf_global@128MB", "bf_shared@128MB"),
    ("4096 / 512 lights, Forward+ light culling 3840 x 2160", "lights_4096@4K", "lights_512@4K"),
    ("a thread / a block a hypothesis, RANSAC 4K homographies x 8K correspondences", "ransac_thread@8Kx4K",
     "ransac_block@8Kx4K"),
    ("chunked automaton / PFAC, Aho-Corasick 256 patterns over 64 MB", "ac_dfa@64MB", "ac_pfac@64MB"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
