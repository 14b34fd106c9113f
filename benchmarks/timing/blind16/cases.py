"""The sixteenth blind validation set's launches: Hodgkin-Huxley neurons (rates from exponentials
or tables), a Gaussian mixture's E-step (fp64 and fp32), chi-square p-values by the incomplete
gamma function, a one-qubit gate on a state vector, incoherent dedispersion of a filterbank
(float32 and 8-bit samples), dynamic time warping with the cost columns in shared memory
(kernels.py); SNP-pair genotype tables for epistasis searches, the chaos game of Barnsley's
fern by integer atomics, the sweep-and-prune broad phase, the Hilbert curve index (a loop and
a table walk), screen-space ambient occlusion and xxHash32 / xxHash64 (kernels_apps.py), at
one or two inputs each, with seeded inputs, and the pairs users compare.

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

HH_SUB = 20             # Hodgkin-Huxley: steps a launch
HH_DT = 0.025           # Hodgkin-Huxley: step (ms)


# ---- host-side functions -----------------------------------------------------------------------

def hh_rates(v):
    """Hodgkin and Huxley's six rate functions (1 / ms) of V (mV), fp64."""
    def vtrap(x):
        x = np.asarray(x, f64)
        small = np.abs(x) < 1e-4
        xs = np.where(small, 1.0, x)
        return np.where(small, 1.0 + 0.5 * x, xs / (1.0 - np.exp(-xs)))
    am = vtrap((v + 40.0) * 0.1)
    bm = 4.0 * np.exp(-(v + 65.0) / 18.0)
    ah = 0.07 * np.exp(-(v + 65.0) * 0.05)
    bh = 1.0 / (1.0 + np.exp(-(v + 35.0) * 0.1))
    an = 0.1 * vtrap((v + 55.0) * 0.1)
    bn = 0.125 * np.exp(-(v + 65.0) * 0.0125)
    return am, bm, ah, bh, an, bn


def hh_population(n, rng):
    """n neurons: V uniform on -75..-45 mV, 20% of them mid-spike (-40..+20 mV), the gates at
    their steady states for V, external currents uniform on 0..20 uA / cm^2."""
    v = np.where(rng.random(n) < 0.2, rng.uniform(-40.0, 20.0, n), rng.uniform(-75.0, -45.0, n))
    am, bm, ah, bh, an, bn = hh_rates(v)
    return (v.astype(f32), (am / (am + bm)).astype(f32), (ah / (ah + bh)).astype(f32),
            (an / (an + bn)).astype(f32), rng.uniform(0.0, 20.0, n).astype(f32))


def hh_tables(dt):
    """The rate tables of hh_table for step dt: rows of K.HH_TDV mV from K.HH_TV0, each
    1 - exp(-dt (a + b)) and a / (a + b) for m, h and n."""
    v = K.HH_TV0 + K.HH_TDV * np.arange(K.HH_TN)
    am, bm, ah, bh, an, bn = hh_rates(v)
    cols = []
    for a, b in ((am, bm), (ah, bh), (an, bn)):
        cols += [1.0 - np.exp(-dt * (a + b)), a / (a + b)]
    return np.stack(cols, 1).astype(f32)


def gmm_model(rng, k=K.GM_K, d=K.GM_D):
    """A k-component mixture in d dimensions: means N(0, 3^2), covariances A A^T / d + 0.2 I
    (A standard normal), weights Dirichlet(2); returned with U, the upper Cholesky factors of
    the precisions (precision = U U^T, as scikit-learn's precisions_cholesky_), packed by rows,
    and cst_k = log pi_k + log det U_k - d log(2 pi) / 2."""
    mu = rng.normal(0.0, 3.0, (k, d))
    cov = np.zeros((k, d, d))
    ups = np.zeros((k, d, d))
    for c in range(k):
        a = rng.standard_normal((d, d))
        cov[c] = a @ a.T / d + 0.2 * np.eye(d)
        ups[c] = np.linalg.inv(np.linalg.cholesky(cov[c])).T
    pi = rng.dirichlet(np.full(k, 2.0))
    packed = np.stack([np.concatenate([ups[c, r, r:] for r in range(d)]) for c in range(k)])
    cst = np.log(pi) + np.log(np.diagonal(ups, axis1=1, axis2=2)).sum(1) - 0.5 * d * math.log(2 * math.pi)
    return mu, cov, pi, packed, cst


def gmm_points(n, mu, cov, pi, rng):
    """n points drawn from the mixture."""
    lab = rng.choice(len(pi), n, p=pi)
    ch = np.linalg.cholesky(cov)
    z = rng.standard_normal((n, mu.shape[1]))
    return mu[lab] + np.einsum("nij,nj->ni", ch[lab], z)


def chi2_tests(n, rng):
    """n chi-square tests: degrees of freedom 1 to 40, statistics df times a log-normal factor
    (sigma 0.6): about half below a + 1 (the series), half above (the continued fraction)."""
    df = rng.integers(1, 41, n).astype(f64)
    stat = df * np.exp(rng.normal(0.0, 0.6, n))
    return stat, df


def random_state(nq, rng):
    """A random normalised state of nq qubits, complex64 as (re, im) pairs."""
    z = rng.standard_normal((1 << nq, 2))
    z /= np.sqrt(np.sum(z * z))
    return z.astype(f32)


def random_gate(rng):
    """A random 2 x 2 unitary (QR of a complex normal matrix), row-major (re, im) pairs."""
    a = rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2))
    q, r = np.linalg.qr(a)
    q = q * (np.diag(r) / np.abs(np.diag(r)))[None, :]
    return np.stack([q.real.ravel(), q.imag.ravel()], 1).astype(f32)


def dm_delays(ndm, nch, max_delay):
    """The dispersion delays (samples) of ndm trial DMs spaced evenly up to the one whose delay
    across the band is max_delay: proportional to f^-2 - f_top^-2, channels from 1500 MHz
    (top, row 0) down to 1200 MHz."""
    f = np.linspace(1500.0, 1200.0, nch)
    rel = (f ** -2 - 1500.0 ** -2) / (1200.0 ** -2 - 1500.0 ** -2)
    dms = np.arange(ndm) / max(ndm - 1, 1)
    return np.rint(dms[:, None] * rel[None, :] * max_delay).astype(i32)


def filterbank(nch, nin, rng, eight_bit):
    """A filterbank of nch channels x nin samples: Gaussian noise with a few dispersed pulses
    (float32), or the same quantised to 8 bits around 128 (scale 20)."""
    x = rng.standard_normal((nch, nin)).astype(f32)
    for t0 in rng.integers(0, nin // 2, 8):
        d = np.rint(np.linspace(0, nin // 4, nch)).astype(int)
        x[np.arange(nch), np.minimum(t0 + d, nin - 1)] += 3.0
    if eight_bit:
        return np.clip(np.rint(128.0 + 20.0 * x), 0, 255).astype(np.uint8)
    return x


def series_windows(n, length, rng):
    """n z-normalised random-walk series of `length` samples, position-major (length, n)."""
    w = np.cumsum(rng.standard_normal((length, n)), 0)
    w = (w - w.mean(0)) / (w.std(0) + 1e-6)
    return w.astype(f32)


def genotypes(nsnp, nsamp, rng):
    """nsnp SNPs of nsamp samples in Hardy-Weinberg equilibrium (minor allele frequency
    0.05 to 0.5): the bit planes (genotype 0, genotype 1) as 64-bit words, (nsnp, 2, nw)."""
    maf = rng.uniform(0.05, 0.5, nsnp)[:, None]
    g = (rng.random((nsnp, nsamp)) < maf).astype(int) + (rng.random((nsnp, nsamp)) < maf).astype(int)
    planes = np.stack([g == 0, g == 1], 1)                    # (nsnp, 2, nsamp)
    bits = np.packbits(planes, axis=2, bitorder="little")     # (nsnp, 2, nsamp / 8)
    return bits.view("<u8").astype(u64)


def sap_boxes(n, hx, hyz, rng):
    """n boxes: centres uniform in [0, 1] x [0, 0.05]^2, half-extents uniform on 0.25 to 1
    times hx (along x) and hyz (y and z); sorted by lower x (sort and sweep)."""
    c = rng.random((n, 3)) * np.array([1.0, 0.05, 0.05])
    h = rng.uniform(0.25, 1.0, (n, 3)) * np.array([hx, hyz, hyz])
    lo = (c - h).astype(f32)
    hi = (c + h).astype(f32)
    o = np.argsort(lo[:, 0], kind="stable")
    lo, hi = lo[o], hi[o]
    return [lo[:, 0].copy(), hi[:, 0].copy(), lo[:, 1].copy(), hi[:, 1].copy(), lo[:, 2].copy(), hi[:, 2].copy()]


def depth_scene(n, rng):
    """An n x n depth buffer (0 near, 1 far): a tilted rolling floor and 300 boxes in front
    of it (10 to 120 pixels, 0.02 to 0.1 nearer)."""
    yy, xx = np.mgrid[0:n, 0:n].astype(f64)
    z = 0.6 + 0.2 * yy / n + 0.02 * np.sin(xx / 37.0) * np.cos(yy / 53.0)
    for _ in range(300):
        y0, x0 = rng.integers(0, n, 2)
        hy, hx = rng.integers(10, 121, 2)
        z[y0:y0 + hy, x0:x0 + hx] -= rng.uniform(0.02, 0.1)
    return z.astype(f32)


def ssao_kernel(rng):
    """SS_N offsets in the unit disc, pulled towards the centre (scale 0.1 + 0.9 (s / n)^2);
    a 4 x 4 tile of random rotations (cos, sin)."""
    s = np.arange(KA.SS_N)
    r = np.sqrt(rng.random(KA.SS_N)) * (0.1 + 0.9 * (s / KA.SS_N) ** 2)
    th = rng.uniform(0, 2 * np.pi, KA.SS_N)
    a = rng.uniform(0, 2 * np.pi, 16)
    return ((r * np.cos(th)).astype(f32), (r * np.sin(th)).astype(f32),
            np.stack([np.cos(a), np.sin(a)], 1).astype(f32))


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def hh(n, table):
    """hh_population(n), HH_SUB steps of HH_DT; the tables of hh_tables(HH_DT) for hh_table;
    blocks of 256."""
    def make(rng):
        v, m, h, nn, ie = hh_population(n, rng)
        args = [v, m, h, nn, ie, i32(HH_SUB), f32(HH_DT)]
        if table:
            args.append(hh_tables(HH_DT))
        return args, n, 256
    return make


def gmm(n, dtype):
    """gmm_model() and n points of it, in dtype; blocks of 128."""
    def make(rng):
        mu, cov, pi, packed, cst = gmm_model(rng)
        x = gmm_points(n, mu, cov, pi, rng)
        return ([x.astype(dtype), mu.astype(dtype), packed.astype(dtype), cst.astype(dtype),
                 np.zeros((n, K.GM_K), dtype), np.zeros(n, dtype)], n, 128)
    return make


def gammq(n, ordered):
    """chi2_tests(n), in random order or sorted by method then statistic; blocks of 128."""
    def make(rng):
        stat, df = chi2_tests(n, rng)
        if ordered:
            o = np.lexsort((stat, stat / 2 >= df / 2 + 1))
            stat, df = stat[o], df[o]
        return [stat, df, np.zeros(n), np.zeros(n, i32)], n, 128
    return make


def qsim(nq, q):
    """random_state(nq), random_gate() on qubit q; a thread a pair, blocks of 256."""
    def make(rng):
        return [random_state(nq, rng), random_gate(rng), i32(q)], 1 << (nq - 1), 256
    return make


def dedisp(ndm, nch, nout, max_delay, eight_bit):
    """filterbank(nch, nout + max_delay), dm_delays(ndm, nch, max_delay); blocks of 1 x 256."""
    def make(rng):
        fb = filterbank(nch, nout + max_delay, rng, eight_bit)
        return [fb, dm_delays(ndm, nch, max_delay), np.zeros((ndm, nout), f32)], (ndm, nout), (1, 256)
    return make


def dtw(n):
    """a query of DTW_Q samples and n candidates of DTW_C (series_windows); blocks of
    DTW_BLOCK."""
    def make(rng):
        q = series_windows(1, K.DTW_Q, rng)[:, 0].copy()
        return [q, series_windows(n, K.DTW_C, rng), np.zeros(n, f32)], n, K.DTW_BLOCK
    return make


def epi(ni, nj, nsamp, word_major):
    """genotypes(ni + nj, nsamp): the first ni SNPs against the next nj; SNP-major
    (s, plane, word) or word-major (word, plane, s); blocks of 2 x 128."""
    def make(rng):
        g = genotypes(ni + nj, nsamp, rng)
        ns, _, nw = g.shape
        if word_major:
            flat, ss, ps, ws = np.ascontiguousarray(g.transpose(2, 1, 0)).ravel(), 1, ns, 2 * ns
        else:
            flat, ss, ps, ws = g.ravel(), 2 * nw, nw, 1
        return ([flat, i32(nw), i32(ss), i32(ps), i32(ws), i32(ni), i32(nj), np.zeros((ni * nj, 9), i32)],
                (ni, nj), (2, 128))
    return make


def fern(walkers, steps, res, skip=8):
    """walkers random nonzero xorshift32 seeds, steps steps (the first skip not drawn), a
    res x res image of zeros; blocks of 256."""
    def make(rng):
        seed = rng.integers(1, 1 << 32, walkers, dtype=np.int64).astype(u32)
        return [seed, i32(steps), i32(skip), i32(res), np.zeros(res * res, i32)], walkers, 256
    return make


def sap(n, hx, hyz):
    """sap_boxes(n, hx, hyz); blocks of 256."""
    def make(rng):
        return sap_boxes(n, hx, hyz, rng) + [np.zeros(n, i32)], n, 256
    return make


def hilbert(n, table):
    """n points uniform on [0, 2^16)^2 (the loop), and hilbert_state_table() (the table
    walk); blocks of 256."""
    def make(rng):
        x = rng.integers(0, 1 << KA.HB_ORDER, n).astype(i32)
        y = rng.integers(0, 1 << KA.HB_ORDER, n).astype(i32)
        if table:
            return [x, y, np.array(KA.hilbert_state_table(), i32), np.zeros(n, u32)], n, 256
        return [x, y, np.zeros(n, u32)], n, 256
    return make


def ssao(n, radius):
    """depth_scene(n), ssao_kernel(); bias 1e-4, range 0.05, radius in pixels; blocks of
    8 x 32."""
    def make(rng):
        z = depth_scene(n, rng)
        kx, ky, rot = ssao_kernel(rng)
        return ([z, kx, ky, rot, f32(radius), f32(1e-4), f32(0.05), np.zeros((n, n), f32)],
                (n, n), (8, 32))
    return make


def xxh(n, wide):
    """n random XX_LEN-byte keys as 64-bit (XXH64) or 32-bit (XXH32) little-endian words a
    row; seed 0x9747B28C; blocks of 256."""
    def make(rng):
        raw = rng.integers(0, 256, (n, KA.XX_LEN), dtype=np.int64).astype(np.uint8)
        if wide:
            return [raw.view("<u8").astype(u64), u64(0x9747B28C), np.zeros(n, u64)], n, 256
        return [raw.view("<u4").astype(u32), u32(0x9747B28C), np.zeros(n, u32)], n, 256
    return make


QS_T = {0: wp.vec2, 1: wp.vec2}
SS_T = {3: wp.vec2}


LAUNCHES: list[Launch] = [
    # Hodgkin-Huxley, Gaussian mixture, incomplete gamma
    Launch("hh_exp@1M", K.hh_exp, hh(M, False), "sfu"),
    Launch("hh_table@1M", K.hh_table, hh(M, True), "l1"),
    Launch("gmm_f64@1M", K.gmm_estep, gmm(M, f64), "fp64"),
    Launch("gmm_f32@1M", K.gmm_estep, gmm(M, f32), "dram"),
    Launch("gammq_mixed@1M", K.gammq_chi2, gammq(M, False), "fp64"),
    Launch("gammq_sorted@1M", K.gammq_chi2, gammq(M, True), "fp64"),
    # state vector, dedispersion, dynamic time warping
    Launch("qsim_q0@23q", K.qsim_gate1, qsim(23, 0), "dram", QS_T),
    Launch("qsim_q20@23q", K.qsim_gate1, qsim(23, 20), "dram", QS_T),
    Launch("dedisp_f32@128x8K", K.dedisperse, dedisp(128, 256, 8 * K1, 2 * K1, False), "l1"),
    Launch("dedisp_u8@128x8K", K.dedisperse, dedisp(128, 256, 8 * K1, 2 * K1, True), "l1"),
    Launch("dtw_rowmajor@64K", K.dtw_rowmajor, dtw(64 * K1), "shared"),
    Launch("dtw_interleaved@64K", K.dtw_interleaved, dtw(64 * K1), "shared"),
    # epistasis, chaos game, sweep and prune
    Launch("epi_snpmajor@256x2K", KA.epi_tables, epi(256, 2 * K1, 4096, False), "l1"),
    Launch("epi_wordmajor@256x2K", KA.epi_tables, epi(256, 2 * K1, 4096, True), "issue"),
    Launch("fern_small@256", KA.fern_chaos, fern(256 * K1, 128, 256), "atomic"),
    Launch("fern_large@4096", KA.fern_chaos, fern(256 * K1, 128, 4096), "atomic"),
    Launch("sap_dense@256K", KA.sap_count, sap(256 * K1, 6e-4, 0.01), "latency"),
    Launch("sap_sparse@256K", KA.sap_count, sap(256 * K1, 1.2e-5, 0.01), "dram"),
    # Hilbert curve, SSAO, xxHash
    Launch("hilbert_loop@4M", KA.hilbert_loop, hilbert(4 * M, False), "issue"),
    Launch("hilbert_table@4M", KA.hilbert_table, hilbert(4 * M, True), "shared"),
    Launch("ssao_r48@2048", KA.ssao, ssao(2048, 48.0), "l2", SS_T),
    Launch("ssao_r4@2048", KA.ssao, ssao(2048, 4.0), "l1", SS_T),
    Launch("xxh64@1M", KA.xxh64_keys, xxh(M, True), "dram"),
    Launch("xxh32@1M", KA.xxh32_keys, xxh(M, False), "dram"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("exponentials / tables, Hodgkin-Huxley 1M neurons x 20 steps", "hh_exp@1M", "hh_table@1M"),
    ("fp64 / fp32, Gaussian mixture E-step 1M points x 16 components", "gmm_f64@1M", "gmm_f32@1M"),
    ("mixed / sorted tests, chi-square p-values 1M", "gammq_mixed@1M", "gammq_sorted@1M"),
    ("qubit 0 / qubit 20, one-qubit gate on 23 qubits", "qsim_q0@23q", "qsim_q20@23q"),
    ("float32 / 8-bit samples, dedispersion 128 DMs x 8K samples x 256 channels", "dedisp_f32@128x8K",
     "dedisp_u8@128x8K"),
    ("thread-major / interleaved columns, DTW 64K candidates", "dtw_rowmajor@64K", "dtw_interleaved@64K"),
    ("SNP-major / word-major planes, epistasis tables 256 x 2K SNPs", "epi_snpmajor@256x2K", "epi_wordmajor@256x2K"),
    ("256^2 / 4096^2 image, fern chaos game 256K walkers", "fern_small@256", "fern_large@4096"),
    ("dense / sparse scene, sweep and prune 256K boxes", "sap_dense@256K", "sap_sparse@256K"),
    ("loop / table walk, Hilbert index 4M points", "hilbert_loop@4M", "hilbert_table@4M"),
    ("48 / 4-pixel radius, SSAO 2048^2", "ssao_r48@2048", "ssao_r4@2048"),
    ("XXH64 / XXH32, 1M 128-byte keys", "xxh64@1M", "xxh32@1M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
