"""The fifteenth blind validation set's launches: HeCBench's adaptive inverse distance
weighting, PointNet++'s farthest point sampling, batched Householder QR of tall-skinny panels,
Kepler's equation for a catalogue of orbits, Gillespie's stochastic simulation of Schlogl's
model, batched polynomial roots (Durand-Kerner and Aberth-Ehrlich), Sinkhorn-Knopp scaling,
Stable Fluids' semi-Lagrangian advection, Izhikevich neurons and spike delivery (kernels.py);
GateKeeper's pre-alignment filter, the R3 viewshed, BLAKE2b and BLAKE2s, instant-NGP's hash
encoding, SLIC's assignment step and point splatting by 64-bit atomic minima
(kernels_apps.py), at one or two inputs each, with seeded inputs, and the pairs users compare.

To be measured once on an H200 (measure.sh here) and never used to fit or tune a constant of
the timing model (see README.md). Sizes keep each launch at a few milliseconds at most on the
GPU, and the whole set cheap to simulate.
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


# ---- host-side functions -----------------------------------------------------------------------

def aidw_points(n, rng):
    """n data points in the unit square, 60% in eight Gaussian clusters and 40% uniform, with
    values of a smooth surface plus noise."""
    nc = int(0.6 * n)
    cent = rng.uniform(0.15, 0.85, (8, 2))
    sig = rng.uniform(0.03, 0.08, 8)
    lab = rng.integers(0, 8, nc)
    p = np.concatenate([cent[lab] + rng.normal(size=(nc, 2)) * sig[lab, None], rng.random((n - nc, 2))])
    p = np.clip(p, 0.0, 1.0)
    z = np.sin(3 * p[:, 0]) * np.cos(2 * p[:, 1]) + 0.05 * rng.normal(size=n)
    return p[:, 0].astype(f32), p[:, 1].astype(f32), z.astype(f32)


def aidw_r_exp(n, k=K.AIDW_K):
    """The mean distance to the k nearest of n points of a uniform (Poisson) pattern of unit
    area: mean over j <= k of Gamma(j + 1/2) / (Gamma(j) sqrt(pi n))."""
    return f32(np.mean([math.exp(math.lgamma(j + 0.5) - math.lgamma(j)) for j in range(1, k + 1)])
               / math.sqrt(math.pi * n))


def fps_clouds(b, n, rng):
    """b clouds of n points with integer coordinates in [0, 1024)^3 (distances exact in
    float32): each a mixture of six Gaussian blobs."""
    out = np.zeros((b, n, 3), f32)
    for c in range(b):
        cent = rng.uniform(200, 824, (6, 3))
        sig = rng.uniform(30, 120, 6)
        lab = rng.integers(0, 6, n)
        out[c] = np.clip(np.rint(cent[lab] + rng.normal(size=(n, 3)) * sig[lab, None]), 0, 1023)
    return out.reshape(b * n, 3)


def orbital_elements(n, high, rng):
    """n orbits (component-major): mean anomaly at epoch, mean motion (rad / min, LEO to
    GEO), eccentricity (0 to 0.1, or 0.5 to 0.99), semi-major axis (km), argument of
    periapsis, inclination, longitude of the ascending node."""
    el = np.zeros((7, n))
    el[0] = rng.uniform(0, 2 * np.pi, n)
    el[1] = rng.uniform(0.0044, 0.07, n)
    el[2] = rng.uniform(0.5, 0.99, n) if high else rng.uniform(0.0, 0.1, n)
    el[3] = rng.uniform(6600.0, 42200.0, n)
    el[4] = rng.uniform(0, 2 * np.pi, n)
    el[5] = rng.uniform(0, np.pi, n)
    el[6] = rng.uniform(0, 2 * np.pi, n)
    return el


SSA_K = np.array([3e-7 * 1e5 / 2, 1e-4 / 6, 1e-3 * 2e5, 3.5])    # Schlogl: c1 A / 2, c2 / 6, c3 B, c4


def poly_batch(n, rng):
    """n monic degree-8 real polynomials (coefficients c_0..c_7, component-major), each with
    four conjugate pairs of roots of modulus 0.5 to 1.3, all roots at least 0.3 apart (sets
    drawn again until they are)."""
    z = np.zeros((n, K.RT_DEG), complex)
    todo = np.arange(n)
    while len(todo):
        r = rng.uniform(0.5, 1.3, (len(todo), 4)) * np.exp(1j * rng.uniform(0.2, np.pi - 0.2, (len(todo), 4)))
        zz = np.concatenate([r, r.conj()], 1)
        d = np.abs(zz[:, :, None] - zz[:, None, :]) + 10 * np.eye(K.RT_DEG)[None]
        ok = d.min((1, 2)) >= 0.3
        z[todo[ok]] = zz[ok]
        todo = todo[~ok]
    c = np.zeros((n, K.RT_DEG + 1), complex)          # c[:, d]: the coefficient of z^d
    c[:, 0] = 1.0
    for k in range(K.RT_DEG):                          # multiply by (z - z_k)
        c[:, 1:] = c[:, :-1] - z[:, k:k + 1] * c[:, 1:]
        c[:, 0] = -z[:, k] * c[:, 0]
    return c.real[:, :K.RT_DEG].T.astype(f32).copy(), z


def gibbs_kernels(b, n, eps, rng):
    """b Gibbs kernels exp(-|x_i - y_j|^2 / eps) of point sets uniform in the unit square."""
    x = rng.random((b, n, 2))
    y = rng.random((b, n, 2))
    c = np.sum((x[:, :, None, :] - y[:, None, :, :]) ** 2, -1)
    return np.exp(-c / eps).astype(f32)


def flow_field(n, speed, noise, rng):
    """A smooth swirling velocity field of about `speed` cells a step plus Gaussian noise of
    `noise` cells (the small-scale part that scatters the back-traced points), and a dye."""
    yy, xx = np.mgrid[0:n, 0:n].astype(f64) / n
    ph = rng.uniform(0, 2 * np.pi, 4)
    u = speed * np.sin(2 * np.pi * 3 * yy + ph[0]) * np.cos(2 * np.pi * 2 * xx + ph[1])
    v = speed * np.cos(2 * np.pi * 3 * xx + ph[2]) * np.sin(2 * np.pi * 2 * yy + ph[3])
    u += noise * rng.normal(size=(n, n))
    v += noise * rng.normal(size=(n, n))
    q = 0.5 + 0.5 * np.sin(2 * np.pi * 7 * xx) * np.sin(2 * np.pi * 5 * yy)
    return u.astype(f32), v.astype(f32), q.astype(f32)


def izh_population(n, active, rng):
    """n neurons, 80% excitatory (a 0.02, b 0.2, c -65 + 15 r^2, d 8 - 6 r^2) and 20%
    inhibitory (a 0.02 + 0.08 r, b 0.25 - 0.05 r, c -65, d 2), as Izhikevich's network; a
    share `active` of them on the upswing of a spike (v in -20..25 mV), the rest near rest
    (-75..-55); u = b v; external (thalamic) input 5 N(0, 1) (2 N(0, 1) inhibitory) and
    synaptic input N(0, 2)."""
    exc = rng.random(n) < 0.8
    r = rng.random(n)
    prm = np.zeros((n, 4), f32)
    prm[:, 0] = np.where(exc, 0.02, 0.02 + 0.08 * r)
    prm[:, 1] = np.where(exc, 0.2, 0.25 - 0.05 * r)
    prm[:, 2] = np.where(exc, -65 + 15 * r * r, -65)
    prm[:, 3] = np.where(exc, 8 - 6 * r * r, 2)
    up = rng.random(n) < active
    v = np.where(up, rng.uniform(-20, 25, n), rng.uniform(-75, -55, n)).astype(f32)
    u = (prm[:, 1] * v).astype(f32)
    ext = (np.where(exc, 5.0, 2.0) * rng.normal(size=n)).astype(f32)
    cur = (2.0 * rng.normal(size=n)).astype(f32)
    return v, u, cur, ext, prm


def encode_bases(b):
    """Bases (n, 128) in 0..3 as four 64-bit words a row, base i at bits 2 (i mod 32) of word
    i // 32."""
    n, length = b.shape
    w = np.zeros((n, length // 32), u64)
    for k in range(length // 32):
        blk = b[:, 32 * k:32 * (k + 1)].astype(u64)
        w[:, k] = np.bitwise_or.reduce(blk << (2 * np.arange(32, dtype=u64))[None, :], axis=1)
    return w


def read_pairs(n, rng, length=128):
    """n (read, reference segment) pairs of 128 bases: half the reads from the segment's
    genome with Poisson(3) edits at uniform positions (60% substitutions, 20% insertions and
    20% deletions before the base), half unrelated."""
    genome = rng.integers(0, 4, (n, length + 32), dtype=np.uint8)
    reads = rng.integers(0, 4, (n, length), dtype=np.uint8)
    rows = np.nonzero(rng.random(n) < 0.5)[0]
    ns = len(rows)
    cnt = rng.poisson(3.0, ns)
    er = np.repeat(np.arange(ns), cnt)
    ep = rng.integers(0, length, len(er))
    kind = rng.random(len(er))
    sub = np.zeros((ns, length), bool)
    ins = np.zeros((ns, length), np.int16)
    dele = np.zeros((ns, length), np.int16)
    sub[er[kind < 0.6], ep[kind < 0.6]] = True
    np.add.at(ins, (er[(kind >= 0.6) & (kind < 0.8)], ep[(kind >= 0.6) & (kind < 0.8)]), 1)
    np.add.at(dele, (er[kind >= 0.8], ep[kind >= 0.8]), 1)
    src = np.arange(length, dtype=np.int16)[None, :] + np.cumsum(dele, 1, dtype=np.int16) - np.cumsum(ins, 1, dtype=np.int16)
    src = np.clip(src, 0, length + 31)
    edited = np.take_along_axis(genome[rows], src.astype(np.intp), 1)
    edited = np.where(sub, (edited + rng.integers(1, 4, (ns, length), dtype=np.uint8)) % 4, edited)
    edited = np.where(ins > 0, rng.integers(0, 4, (ns, length), dtype=np.uint8), edited)
    reads[rows] = edited
    return encode_bases(reads), encode_bases(genome[:, :length])


def terrain(n, rng):
    """An n x n elevation model (metres): six octaves of randomly oriented ridges plus noise."""
    yy, xx = np.mgrid[0:n, 0:n].astype(f64) / n
    z = np.zeros((n, n))
    for o in range(6):
        f = 2.0 ** o * 1.5
        th = rng.uniform(0, np.pi, 2)
        ph = rng.uniform(0, 2 * np.pi, 2)
        z += 200.0 / 1.8 ** o * (np.sin(2 * np.pi * f * (np.cos(th[0]) * xx + np.sin(th[0]) * yy) + ph[0])
                                 * np.cos(2 * np.pi * f * (np.cos(th[1]) * xx + np.sin(th[1]) * yy) + ph[1]))
    return (z - z.min() + rng.uniform(0, 2, (n, n))).astype(f32)


def hash_levels(levels=KA.HG_LEVELS, base=16, top=2048):
    """instant-NGP's resolutions (a geometric series from base to top) and whether a level's
    grid of (r + 1)^3 vertices fits the table densely."""
    b = math.exp((math.log(top) - math.log(base)) / (levels - 1))
    res = np.array([int(math.floor(base * b ** lv)) for lv in range(levels)], i32)
    dense = np.array([(int(r) + 1) ** 3 <= KA.HG_T for r in res], i32)
    return res, dense


def ray_samples(nrays, per_ray, rng):
    """nrays camera rays through the unit cube (from a sphere of radius 2 about its centre,
    aimed near the centre), per_ray points on each between its entry and exit, in order."""
    d = rng.normal(size=(nrays, 3))
    org = 0.5 + 2.0 * d / np.linalg.norm(d, axis=1, keepdims=True)
    tgt = 0.5 + rng.uniform(-0.3, 0.3, (nrays, 3))
    dirn = tgt - org
    dirn /= np.linalg.norm(dirn, axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        t0 = (0.0 - org) / dirn
        t1 = (1.0 - org) / dirn
    tn = np.max(np.minimum(t0, t1), 1)
    tf = np.min(np.maximum(t0, t1), 1)
    s = (np.arange(per_ray) + 0.5) / per_ray
    t = tn[:, None] + (tf - tn)[:, None] * s[None, :]
    p = org[:, None, :] + t[:, :, None] * dirn[:, None, :]
    return np.clip(p.reshape(-1, 3), 0.0, 0.999999).astype(f32)


def lab_image(n, rng, nseg=300):
    """An n x n CIELAB image (planes L, a, b): a Voronoi partition into nseg regions of random
    colours (drawn on a grid of 8 x 8-pixel tiles), a gentle gradient and noise."""
    g = n // 8
    seeds = rng.random((nseg, 2)) * g
    cols = np.stack([rng.uniform(10, 95, nseg), rng.uniform(-60, 60, nseg), rng.uniform(-60, 60, nseg)], 1)
    yy, xx = np.mgrid[0:g, 0:g].astype(f32)
    best = np.full((g, g), np.inf, f32)
    lbl = np.zeros((g, g), np.int64)
    for s in range(nseg):
        d = (yy - seeds[s, 0]) ** 2 + (xx - seeds[s, 1]) ** 2
        m = d < best
        best[m] = d[m]
        lbl[m] = s
    lbl = np.repeat(np.repeat(lbl, 8, 0), 8, 1)
    lab = np.moveaxis(cols[lbl], -1, 0).astype(f32)
    lab[0] += (10 * np.arange(n) / n).astype(f32)[None, :]
    lab += rng.normal(0, 2.0, lab.shape).astype(f32)
    return lab


def slic_centres(lab, s, rng):
    """SLIC's centres after a first update: on the grid of s pixels (cell centres jittered by
    s / 6), their colour the image's there plus noise; [l, a, b, y, x] a row."""
    n = lab.shape[1]
    g = n // s
    gy, gx = np.mgrid[0:g, 0:g]
    y = np.clip((gy + 0.5) * s + rng.normal(0, s / 6, gy.shape), 0, n - 1)
    x = np.clip((gx + 0.5) * s + rng.normal(0, s / 6, gx.shape), 0, n - 1)
    yi, xi = y.astype(int), x.astype(int)
    cen = np.stack([lab[0, yi, xi], lab[1, yi, xi], lab[2, yi, xi], y, x], -1).reshape(-1, 5)
    cen[:, :3] += rng.normal(0, 1.0, (g * g, 3))
    return cen.astype(f32), g


def view_projection(dist, fov=60.0, near=0.1, far=100.0):
    """A perspective projection times a look-at from (0.3 d, 0.2 d, d) normalised to distance
    `dist`, towards the origin; row-major, clip w = the view depth."""
    eye = np.array([0.3, 0.2, 1.0])
    eye = eye / np.linalg.norm(eye) * dist
    fwd = -eye / np.linalg.norm(eye)
    right = np.cross(fwd, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = right, up, -fwd
    view[:3, 3] = -view[:3, :3] @ eye
    f = 1.0 / math.tan(math.radians(fov) / 2)
    proj = np.zeros((4, 4))
    proj[0, 0] = f
    proj[1, 1] = f
    proj[2, 2] = (far + near) / (near - far)
    proj[2, 3] = 2 * far * near / (near - far)
    proj[3, 2] = -1.0
    return (proj @ view).astype(f32).ravel()


def sphere_cloud(n, rng):
    """n points on a bumpy unit sphere, random 32-bit colours."""
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    r = 1.0 + 0.05 * np.sin(7 * d[:, 0]) * np.cos(5 * d[:, 1]) + 0.01 * rng.normal(size=n)
    return (d * r[:, None]).astype(f32), rng.integers(0, 1 << 32, n, dtype=np.int64).astype(u32)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def aidw(nq, n):
    """nq query points uniform in the unit square, n data points (aidw_points); blocks of
    AIDW_TILE."""
    def make(rng):
        px, py, pz = aidw_points(n, rng)
        q = rng.random((2, nq)).astype(f32)
        return ([q[0].copy(), q[1].copy(), px, py, pz, aidw_r_exp(n), np.zeros(nq, f32), np.zeros(nq, f32)],
                nq, K.AIDW_TILE)
    return make


def fps(b, n, k):
    """b clouds of n points (fps_clouds), k samples each; a block of FPS_BLOCK a cloud."""
    def make(rng):
        return ([fps_clouds(b, n, rng), np.full(b * n, 1e10, f32), np.zeros(b * k, i32), i32(n), i32(k)],
                b * K.FPS_BLOCK, K.FPS_BLOCK)
    return make


def tsqr(nmat, dtype):
    """nmat QR_M x QR_N matrices of standard normal entries, column-major, one after another;
    a warp a matrix, blocks of 128."""
    def make(rng):
        a = rng.standard_normal((nmat, K.QR_N, K.QR_M)).astype(dtype)
        return [a.ravel(), np.zeros(nmat * K.QR_N, dtype)], nmat * 32, 128
    return make


def kepler(n, high):
    """orbital_elements(); propagated by a day (1440 min), Newton tolerance 1e-12."""
    def make(rng):
        return ([orbital_elements(n, high, rng), f64(1440.0), f64(1e-12), np.zeros((n, 3)), np.zeros(n, i32)],
                n, 256)
    return make


def ssa(n, t_end, ordered):
    """n trajectories of Schlogl's model from x0 uniform on 0..700 (either side of the unstable
    state near 250, so a warp's trajectories split between the two states and their rates),
    seeds random; in random order, or sorted by x0 (the seeds travel with their states)."""
    def make(rng):
        x0 = rng.integers(0, 701, n).astype(i32)
        seed = rng.integers(1, 1 << 63, n, dtype=np.int64).astype(u64)
        if ordered:
            o = np.argsort(x0, kind="stable")
            x0, seed = x0[o], seed[o]
        return ([x0, seed, SSA_K.copy(), f64(t_end), np.zeros(n, i32), np.zeros(n, i32)], n, 128)
    return make


def gatekeeper(n, e):
    """read_pairs(n), edit threshold e; blocks of 256."""
    def make(rng):
        rd, rf = read_pairs(n, rng)
        return [rd, rf, i32(e), np.zeros(n, i32), np.zeros(n, i32)], n, 256
    return make


def viewshed(n, oy, ox):
    """terrain(n), 30 m cells, the observer 20 m above cell (oy, ox); blocks of 16 x 16."""
    def make(rng):
        return ([terrain(n, rng), i32(oy), i32(ox), f32(20.0), f32(30.0), np.zeros((n, n), i32),
                 np.zeros((n, n), f32)], (n, n), (16, 16))
    return make


def advect(n, speed, noise):
    """flow_field(n, speed, noise), a unit time step; blocks of 8 x 32."""
    def make(rng):
        u, v, q = flow_field(n, speed, noise, rng)
        return ([u, v, q, f32(1.0), np.zeros((n, n), f32), np.zeros((n, n), f32), np.zeros((n, n), f32)],
                (n, n), (8, 32))
    return make


def roots(n):
    """poly_batch(n); relative tolerance 1e-4; blocks of 128."""
    def make(rng):
        c, _ = poly_batch(n, rng)
        return [c, f32(1e-4), np.zeros((2 * K.RT_DEG, n), f32), np.zeros(n, i32)], n, 128
    return make


def sinkhorn(b, iters, eps=0.05):
    """b problems of SK_N points a side (gibbs_kernels, eps 0.05), marginals random and
    normalised; a block of SK_N threads a problem."""
    def make(rng):
        km = gibbs_kernels(b, K.SK_N, eps, rng)
        a = rng.uniform(0.5, 1.5, (b, K.SK_N))
        bb = rng.uniform(0.5, 1.5, (b, K.SK_N))
        a = (a / a.sum(1, keepdims=True)).astype(f32)
        bb = (bb / bb.sum(1, keepdims=True)).astype(f32)
        return ([km.ravel(), a, bb, i32(iters), np.zeros((b, K.SK_N), f32), np.zeros((b, K.SK_N), f32)],
                b * K.SK_N, K.SK_N)
    return make


def izh(n, active):
    """izh_population(n, active); the spike queue sized for every neuron; blocks of 256."""
    def make(rng):
        v, u, cur, ext, prm = izh_population(n, active, rng)
        return [v, u, cur, ext, prm, np.zeros(1, i32), np.zeros(n, i32)], n, 256
    return make


def snn(n, nspk, local):
    """n neurons of SN_FAN synapses (weights uniform on 0 to 0.5): targets uniform over the
    network, or within 256 neurons either side of the source (a row sorted); nspk distinct
    spiking neurons in random order; blocks of 256."""
    def make(rng):
        src = np.arange(n)[:, None]
        if local:
            post = np.sort((src + rng.integers(-256, 257, (n, K.SN_FAN))) % n, 1)
        else:
            post = rng.integers(0, n, (n, K.SN_FAN))
        w = rng.uniform(0.0, 0.5, (n, K.SN_FAN)).astype(f32)
        spk = rng.choice(n, nspk, replace=False).astype(i32)
        return [spk, post.astype(i32).ravel(), w.ravel(), np.zeros(n, f32)], nspk * K.SN_FAN, 256
    return make


def blake2(n, wide):
    """n random 128-byte messages, as sixteen 64-bit words (BLAKE2b) or thirty-two 32-bit words
    (BLAKE2s) a row; blocks of 128."""
    def make(rng):
        raw = rng.integers(0, 256, (n, 128), dtype=np.int64).astype(np.uint8)
        if wide:
            return [raw.view("<u8").astype(u64), np.zeros((n, 4), u64)], n, 128
        return [raw.view("<u4").astype(u32), np.zeros((n, 8), u32)], n, 128
    return make


def hashgrid(nrays, per_ray, shuffled):
    """ray_samples(nrays, per_ray) in ray order or shuffled; the tables (16 levels of 2^19
    two-feature entries) uniform on +-1e-1; blocks of 256."""
    def make(rng):
        pos = ray_samples(nrays, per_ray, rng)
        if shuffled:
            pos = pos[rng.permutation(len(pos))]
        res, dense = hash_levels()
        table = rng.uniform(-0.1, 0.1, (KA.HG_LEVELS * KA.HG_T, 2)).astype(f32)
        npts = len(pos)
        return ([pos, table, res, dense, i32(npts), np.zeros((KA.HG_LEVELS * npts, 2), f32)],
                KA.HG_LEVELS * npts, 256)
    return make


def slic(n, s, m=10.0):
    """lab_image(n), centres on a grid of s pixels (slic_centres), compactness m; blocks of
    16 x 16."""
    def make(rng):
        lab = lab_image(n, rng)
        cen, g = slic_centres(lab, s, rng)
        return ([lab, cen, i32(s), i32(g), i32(g), f32((m / s) ** 2), np.zeros((n, n), i32),
                 np.zeros((n, n), f32)], (n, n), (16, 16))
    return make


def splat(n, dist, size=1024):
    """sphere_cloud(n) seen from `dist` (view_projection) into a size x size frame buffer of
    all-ones words; near 0.1, far 100; blocks of 256. From 2.2 the sphere fills most of the
    frame (a few points a pixel); from 40 it covers about 2,000 pixels (about 2,000 points a
    pixel)."""
    def make(rng):
        pos, col = sphere_cloud(n, rng)
        return ([pos, col, view_projection(dist), f32(0.1), f32(100.0), i32(size), i32(size),
                 np.full(size * size, np.iinfo(np.uint64).max, u64)], n, 256)
    return make


FPS_T = {0: wp.vec3}
KP_T = {3: wp.vec3d}
IZ_T = {4: wp.vec4}
HG_T = {0: wp.vec3, 1: wp.vec2, 5: wp.vec2}
SP_T = {0: wp.vec3}


LAUNCHES: list[Launch] = [
    # HeCBench AIDW, PointNet++ farthest point sampling
    Launch("aidw_naive@32Kx1K", K.aidw_naive, aidw(32 * K1, K1), "issue"),
    Launch("aidw_tiled@32Kx1K", K.aidw_tiled, aidw(32 * K1, K1), "issue"),
    Launch("fps_global@32x2K", K.fps_global, fps(32, 2 * K1, 512), "latency", FPS_T),
    Launch("fps_shared@32x2K", K.fps_shared, fps(32, 2 * K1, 512), "latency", FPS_T),
    # batched Householder QR, Kepler, Gillespie
    Launch("tsqr_f64@32K", K.tsqr_warp, tsqr(32 * K1, f64), "fp64"),
    Launch("tsqr_f32@32K", K.tsqr_warp, tsqr(32 * K1, f32), "issue"),
    Launch("kepler_low@1M", K.kepler_orbit, kepler(M, False), "fp64", KP_T),
    Launch("kepler_high@1M", K.kepler_orbit, kepler(M, True), "fp64", KP_T),
    Launch("ssa_mixed@16K", K.ssa_schlogl, ssa(16 * K1, 0.2, False), "latency"),
    Launch("ssa_sorted@16K", K.ssa_schlogl, ssa(16 * K1, 0.2, True), "latency"),
    # polynomial roots, Sinkhorn, Stable Fluids
    Launch("roots_dk@64K", K.roots_dk, roots(64 * K1), "issue"),
    Launch("roots_aberth@64K", K.roots_aberth, roots(64 * K1), "issue"),
    Launch("sinkhorn_shared@512x96", K.sinkhorn_shared, sinkhorn(512, 30), "shared"),
    Launch("sinkhorn_global@512x96", K.sinkhorn_global, sinkhorn(512, 30), "l1"),
    Launch("advect_calm@2048", K.advect_sl, advect(2048, 0.5, 0.1), "dram"),
    Launch("advect_turbulent@2048", K.advect_sl, advect(2048, 4.0, 4.0), "l2"),
    # spiking networks
    Launch("izh_quiet@4M", K.izh_update, izh(4 * M, 0.01), "dram", IZ_T),
    Launch("izh_burst@4M", K.izh_update, izh(4 * M, 0.3), "atomic", IZ_T),
    Launch("snn_random@64Kx128", K.snn_deliver, snn(256 * K1, 64 * K1, False), "atomic"),
    Launch("snn_local@64Kx128", K.snn_deliver, snn(256 * K1, 64 * K1, True), "atomic"),
    # GateKeeper, viewshed
    Launch("gatekeeper_e2@1M", KA.gatekeeper, gatekeeper(M, 2), "issue"),
    Launch("gatekeeper_e6@1M", KA.gatekeeper, gatekeeper(M, 6), "issue"),
    Launch("viewshed_centre@512", KA.viewshed, viewshed(512, 256, 256), "l1"),
    Launch("viewshed_corner@512", KA.viewshed, viewshed(512, 8, 8), "l1"),
    # BLAKE2
    Launch("blake2b@256K", KA.blake2b_msg, blake2(256 * K1, True), "issue"),
    Launch("blake2s@256K", KA.blake2s_msg, blake2(256 * K1, False), "issue"),
    # instant-NGP, SLIC, point splatting
    Launch("hashgrid_ray@512K", KA.hashgrid_encode, hashgrid(8 * K1, 64, False), "l2", HG_T),
    Launch("hashgrid_random@512K", KA.hashgrid_encode, hashgrid(8 * K1, 64, True), "dram", HG_T),
    Launch("slic_s16@2048", KA.slic_assign, slic(2048, 16), "issue"),
    Launch("slic_s64@2048", KA.slic_assign, slic(2048, 64), "issue"),
    Launch("splat_near@4M", KA.splat_points, splat(4 * M, 2.2), "atomic", SP_T),
    Launch("splat_far@4M", KA.splat_points, splat(4 * M, 40.0), "atomic", SP_T),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("naive / tiled, AIDW 32K queries x 1K points", "aidw_naive@32Kx1K", "aidw_tiled@32Kx1K"),
    ("global / shared distances, farthest point sampling 32 clouds x 2K", "fps_global@32x2K", "fps_shared@32x2K"),
    ("fp64 / fp32, Householder QR of 32K 32 x 8 panels", "tsqr_f64@32K", "tsqr_f32@32K"),
    ("high / low eccentricity, Kepler's equation 1M orbits", "kepler_high@1M", "kepler_low@1M"),
    ("mixed / sorted initial states, Gillespie SSA 16K trajectories", "ssa_mixed@16K", "ssa_sorted@16K"),
    ("Durand-Kerner / Aberth, roots of 64K degree-8 polynomials", "roots_dk@64K", "roots_aberth@64K"),
    ("global / shared kernel matrix, Sinkhorn 512 problems of 96", "sinkhorn_global@512x96", "sinkhorn_shared@512x96"),
    ("turbulent / calm flow, semi-Lagrangian advection 2048^2", "advect_turbulent@2048", "advect_calm@2048"),
    ("burst / quiet, Izhikevich step 4M neurons", "izh_burst@4M", "izh_quiet@4M"),
    ("random / local targets, spike delivery 64K spikes x 128", "snn_random@64Kx128", "snn_local@64Kx128"),
    ("e = 6 / e = 2, GateKeeper 1M read pairs", "gatekeeper_e6@1M", "gatekeeper_e2@1M"),
    ("corner / centre observer, viewshed 512^2", "viewshed_corner@512", "viewshed_centre@512"),
    ("BLAKE2b / BLAKE2s, 256K 128-byte messages", "blake2b@256K", "blake2s@256K"),
    ("shuffled / ray order, hash encoding 512K points", "hashgrid_random@512K", "hashgrid_ray@512K"),
    ("16 / 64-pixel superpixels, SLIC assignment 2048^2", "slic_s16@2048", "slic_s64@2048"),
    ("far / near view, point splatting 4M points", "splat_far@4M", "splat_near@4M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
