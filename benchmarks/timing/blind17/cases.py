"""The seventeenth blind validation set's launches: the Lomb-Scargle periodogram (fp64 and fp32),
a biquad cascade over channel-major or time-major signals, the Kuramoto coupling sum (a sine a
pair, or the sines and cosines of each tile), the CTC forward recursion (64 and 512
utterances), the logistic-regression gradient (atomics a sample, or a block's reduction
first), local response normalisation (NCHW and NHWC) and adaptive Simpson quadrature (two
tolerances) (kernels.py); RC4 keystreams with a byte or a word state table, the distance
transform along rows or columns, voxel traversal of coherent or shuffled rays, BLAST's X-drop
extension with the score matrix in global or shared memory, and decimal fields parsed a byte
or a word at a time (kernels_apps.py), with seeded inputs, and the pairs users compare.

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

f32, f64, i32, u32 = np.float32, np.float64, np.int32, np.uint32
M = 1 << 20
K1 = 1024

CTC_T = 150             # CTC: frames at most
CTC_V = 64              # CTC: symbols (blank is 0)
CTC_L = 60              # CTC: labels at most (2 L + 1 <= K.CTC_BLOCK states)
BL_WORD = 3             # BLAST: word length
BL_X = 16               # BLAST: X-drop (raw score)
# Robinson and Robinson's background frequencies of the amino acids, ARNDCQEGHILKMFPSTWYV
BL_FREQ = [0.07805, 0.05129, 0.04487, 0.05364, 0.01925, 0.04264, 0.06295, 0.07377, 0.02199, 0.05142,
           0.09019, 0.05744, 0.02243, 0.03856, 0.05203, 0.07120, 0.05841, 0.01330, 0.03216, 0.06441]


# ---- host-side functions -----------------------------------------------------------------------

def uneven_series(n, rng):
    """n samples at sorted uniform times on [0, 10): three sinusoids (0.7, 2.3 and 5.1 Hz)
    and unit noise, centred."""
    t = np.sort(rng.uniform(0.0, 10.0, n))
    y = (1.5 * np.sin(2 * np.pi * 0.7 * t) + 0.8 * np.sin(2 * np.pi * 2.3 * t + 1.0)
         + 0.5 * np.cos(2 * np.pi * 5.1 * t) + rng.standard_normal(n))
    return t, y - y.mean()


def biquads():
    """SOS_N biquads by the audio-EQ cookbook (Bristow-Johnson; frequencies as fractions of the
    sample rate): two low-pass sections at 0.15 (Q 0.54 and 1.31: a fourth-order Butterworth),
    a high-pass at 0.01 (Q 0.707) and a notch at 0.06 (Q 4); rows b0 b1 b2 1 a1 a2."""
    rows = []
    for kind, f0, q in (("lp", 0.15, 0.5412), ("lp", 0.15, 1.3066), ("hp", 0.01, 0.7071), ("notch", 0.06, 4.0)):
        w0 = 2 * math.pi * f0
        cw, al = math.cos(w0), math.sin(w0) / (2 * q)
        if kind == "lp":
            b = [(1 - cw) / 2, 1 - cw, (1 - cw) / 2]
        elif kind == "hp":
            b = [(1 + cw) / 2, -(1 + cw), (1 + cw) / 2]
        else:
            b = [1.0, -2 * cw, 1.0]
        a = [1 + al, -2 * cw, 1 - al]
        rows.append([b[0] / a[0], b[1] / a[0], b[2] / a[0], 1.0, a[1] / a[0], a[2] / a[0]])
    return np.array(rows, f32)


def ctc_batch(nb, rng, tmax=CTC_T, vocab=CTC_V, lmax=CTC_L):
    """nb utterances: frames uniform on 2/3 tmax..tmax, labels 1..vocab-1 (at most lmax, at
    most (frames - 1) / 2, at least a third of that), log-softmax of normal(0, 2) logits as
    the network's output; returned as (logp [nb, tmax, vocab], labels [nb, lmax], label
    lengths, frame counts)."""
    nfr = rng.integers(2 * tmax // 3, tmax + 1, nb)
    cap = np.minimum(lmax, (nfr - 1) // 2)
    nlab = rng.integers(cap // 3, cap + 1)
    lab = rng.integers(1, vocab, (nb, lmax)).astype(i32)
    logits = rng.normal(0.0, 2.0, (nb, tmax, vocab))
    logits -= logits.max(2, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(2, keepdims=True))
    return logp.astype(f32), lab, nlab.astype(i32), nfr.astype(i32)


def logreg_data(n, rng, d=K.LR_D):
    """n samples of d standard-normal features (feature-major), labels drawn from a logistic
    model with weights N(0, 1/d), and the current iterate: half those weights plus N(0, 0.1)."""
    x = rng.standard_normal((d, n)).astype(f32)
    wt = rng.normal(0.0, 1.0 / math.sqrt(d), d)
    p = 1.0 / (1.0 + np.exp(-(wt @ x.astype(f64))))
    y = (rng.random(n) < p).astype(f32)
    w = (0.5 * wt + rng.normal(0.0, 0.1, d)).astype(f32)
    return x, y, w


def voxel_scene(g, rng):
    """A g^3 occupancy grid (x fastest, then y up, then z): a rolling terrain below
    g (0.15 + 0.1 sin(x / 11) cos(z / 7)) and 40 floating balls of radius 3 to 10 voxels."""
    z, y, x = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    ht = g * (0.15 + 0.1 * np.sin(x / 11.0) * np.cos(z / 7.0))
    occ = y < ht
    for _ in range(40):
        c = rng.uniform([0.1 * g, 0.35 * g, 0.1 * g], [0.9 * g, 0.8 * g, 0.9 * g])
        r = rng.uniform(3.0, 10.0)
        occ |= (x + 0.5 - c[0]) ** 2 + (y + 0.5 - c[1]) ** 2 + (z + 0.5 - c[2]) ** 2 < r * r
    return occ.astype(np.uint8).ravel()


def camera_rays(res, g):
    """res x res pinhole rays (60 degrees) from outside the grid's corner, looking down at its
    middle, in pixel order: origins and unit directions."""
    eye = np.array([-0.3 * g, 0.7 * g, -0.3 * g])
    look = np.array([0.5 * g, 0.2 * g, 0.5 * g])
    fwd = (look - eye) / np.linalg.norm(look - eye)
    right = np.cross(fwd, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    s = math.tan(math.radians(30.0))
    v, u = np.meshgrid((np.arange(res) + 0.5) / res * 2 - 1, (np.arange(res) + 0.5) / res * 2 - 1, indexing="ij")
    d = fwd[None, None] + s * (u[..., None] * right + -v[..., None] * up)
    d = (d / np.linalg.norm(d, axis=2, keepdims=True)).reshape(-1, 3)
    d = np.where(np.abs(d) < 1e-6, 1e-6, d)
    return np.broadcast_to(eye, d.shape).astype(f32).copy(), d.astype(f32)


def protein(n, rng):
    """n residues (codes 0..19) drawn from the background frequencies."""
    p = np.array(BL_FREQ)
    return rng.choice(20, n, p=p / p.sum()).astype(np.uint8)


def blast_hits(nq, ns, nhits, frac_hom, nseg, rng):
    """A query of nq residues, a subject of ns with nseg planted homologues of query segments
    (60 to 300 residues, at most half the query; 30% substituted), and nhits word hits:
    frac_hom of them on a planted segment's diagonal, the rest at random positions; in random
    order."""
    q = protein(nq, rng)
    s = protein(ns, rng)
    segs = []
    for _ in range(nseg):
        ln = int(rng.integers(60, min(301, nq // 2 + 1)))
        q0 = int(rng.integers(0, nq - ln))
        s0 = int(rng.integers(0, ns - ln))
        seg = q[q0:q0 + ln].copy()
        sub = rng.random(ln) < 0.3
        seg[sub] = protein(int(sub.sum()), rng)
        s[s0:s0 + ln] = seg
        segs.append((q0, s0, ln))
    nh = int(nhits * frac_hom)
    pick = rng.integers(0, len(segs), nh)
    q0, s0, ln = (np.array([segs[k][c] for k in pick]) for c in range(3))
    off = (rng.random(nh) * (ln - BL_WORD)).astype(np.int64)
    qp = np.concatenate([q0 + off, rng.integers(0, nq - BL_WORD, nhits - nh)])
    sp = np.concatenate([s0 + off, rng.integers(0, ns - BL_WORD, nhits - nh)])
    o = rng.permutation(nhits)
    return q, s, qp[o].astype(i32), sp[o].astype(i32)


def decimal_fields(n, rng):
    """n fixed-width fields of KA.AF_W bytes: '-' on 30% of them, 1 to 8 integer digits, on
    6 in 7 of them a '.' and 1 to 6 fraction digits, padded with spaces; as (n, AF_W) bytes."""
    w = KA.AF_W
    neg = (rng.random(n) < 0.3).astype(np.int64)
    ni = rng.integers(1, 9, n)
    nf = rng.integers(0, 7, n)
    col = np.arange(w)[None, :]
    d0 = neg[:, None]
    dig = (col >= d0) & (col < d0 + ni[:, None])
    dot = (nf[:, None] > 0) & (col == d0 + ni[:, None])
    fr = (nf[:, None] > 0) & (col > d0 + ni[:, None]) & (col <= d0 + ni[:, None] + nf[:, None])
    out = np.full((n, w), ord(" "), np.uint8)
    rnd = rng.integers(ord("0"), ord("9") + 1, (n, w)).astype(np.uint8)
    out[dig | fr] = rnd[dig | fr]
    out[dot] = ord(".")
    out[:, 0] = np.where(neg == 1, ord("-"), out[:, 0])
    return out


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def ls(nf, ns, dtype):
    """uneven_series(ns), nf angular frequencies 2 pi (0.05 .. 10 Hz); blocks of 128."""
    def make(rng):
        t, y = uneven_series(ns, rng)
        om = 2 * np.pi * np.linspace(0.05, 10.0, nf)
        return [t.astype(dtype), y.astype(dtype), om.astype(dtype), np.zeros(nf, dtype)], nf, 128
    return make


def sos(nch, nt, chan_major):
    """nch channels of nt standard-normal samples, channel-major (c, t) or time-major (t, c);
    biquads(); blocks of 128."""
    def make(rng):
        x = rng.standard_normal((nch, nt)).astype(f32)
        if chan_major:
            flat, cs, ts = x.ravel(), nt, 1
        else:
            flat, cs, ts = np.ascontiguousarray(x.T).ravel(), 1, nch
        return [flat, biquads(), i32(nt), i32(cs), i32(ts), np.zeros(nch * nt, f32)], nch, 128
    return make


def kura(n, dt=0.01):
    """n phases uniform on [0, 2 pi), natural frequencies N(0, 1), K = 2, a step of dt; blocks
    of KU_TILE."""
    def make(rng):
        th = rng.uniform(0.0, 2 * np.pi, n).astype(f32)
        om = rng.standard_normal(n).astype(f32)
        return [th, om, f32(2.0), f32(dt), np.zeros(n, f32)], n, K.KU_TILE
    return make


def ctc(nb):
    """ctc_batch(nb): a block of CTC_BLOCK threads an utterance."""
    def make(rng):
        logp, lab, nlab, nfr = ctc_batch(nb, rng)
        return [logp, lab, nlab, nfr, np.zeros(nb, f32)], nb * K.CTC_BLOCK, K.CTC_BLOCK
    return make


def logreg(n):
    """logreg_data(n), the gradient zeroed; blocks of LR_BLOCK."""
    def make(rng):
        x, y, w = logreg_data(n, rng)
        return [x, y, w, np.zeros(K.LR_D, f32)], n, K.LR_BLOCK
    return make


def lrn(nimg, nc, h, w, nhwc):
    """nimg x nc x h x w activations N(0, 10^2), NCHW or NHWC; AlexNet's n = 5, alpha = 1e-4,
    beta = 0.75, k = 2; a thread a pixel, blocks of 128."""
    def make(rng):
        a = rng.normal(0.0, 10.0, (nimg, nc, h, w)).astype(f32)
        hw = h * w
        if nhwc:
            flat, cs, ps = np.ascontiguousarray(a.transpose(0, 2, 3, 1)).ravel(), 1, nc
        else:
            flat, cs, ps = a.ravel(), hw, 1
        return ([flat, np.zeros_like(flat), i32(nc), i32(hw), i32(cs), i32(ps), i32(nc * hw),
                 f32(1e-4), f32(0.75), f32(2.0)], nimg * hw, 128)
    return make


def simpson(n, tol):
    """n integrands exp(-a x) sin(b x), a uniform on [0, 5], b on [1, 40]; blocks of 128."""
    def make(rng):
        pa = rng.uniform(0.0, 5.0, n).astype(f32)
        pb = rng.uniform(1.0, 40.0, n).astype(f32)
        return [pa, pb, f32(tol), np.zeros(n, f32), np.zeros(n, i32)], n, 128
    return make


def rc4(n):
    """n random 16-byte keys (four words); blocks of RC4_BLOCK."""
    def make(rng):
        key = rng.integers(0, 1 << 32, (n, 4), dtype=np.int64).astype(u32)
        return [key, np.zeros((n, KA.RC4_WORDS), u32)], n, KA.RC4_BLOCK
    return make


def edt(nimg, size, cols, density=0.01):
    """nimg size x size images with features on `density` of the pixels (f = 0 there,
    EDT_INF elsewhere), the transform along rows or along columns; blocks of 128."""
    def make(rng):
        feat = rng.random((nimg, size, size)) < density
        f = np.where(feat, 0.0, KA.EDT_INF).astype(f32).ravel()
        nl = nimg * size
        sl, sk = (1, size) if cols else (size, 1)
        return ([f, i32(size), i32(nl), i32(size), i32(size * size), i32(sl), i32(sk),
                 np.zeros(nl * size, i32), np.zeros(nl * (size + 1), f32), np.zeros(nimg * size * size, f32)],
                nl, 128)
    return make


def dda(res, g, shuffled):
    """voxel_scene(g), camera_rays(res, g) in pixel order or in a random order; blocks of
    256."""
    def make(rng):
        occ = voxel_scene(g, rng)
        o, d = camera_rays(res, g)
        if shuffled:
            p = rng.permutation(len(d))
            o, d = o[p], d[p]
        n = len(d)
        return [occ, i32(g), o, d, np.zeros(n, i32), np.zeros(n, f32)], n, 256
    return make


def xdrop(nhits, nq=1024, ns=4 * M, frac_hom=0.05, nseg=400):
    """blast_hits(nq, ns, nhits, frac_hom, nseg), BLOSUM62, word BL_WORD, X-drop BL_X; blocks
    of BL_BLOCK."""
    def make(rng):
        q, s, qp, sp = blast_hits(nq, ns, nhits, frac_hom, nseg, rng)
        return ([q, s, qp, sp, np.array(KA.BLOSUM62, i32), i32(BL_WORD), i32(BL_X),
                 np.zeros(nhits, i32), np.zeros(nhits, i32), np.zeros(nhits, i32)], nhits, KA.BL_BLOCK)
    return make


def atof(n, words):
    """decimal_fields(n) as bytes or as little-endian 32-bit words; blocks of 256."""
    def make(rng):
        b = decimal_fields(n, rng)
        buf = b.view("<u4").astype(u32).ravel() if words else b.ravel()
        return [buf, np.zeros(n, f64)], n, 256
    return make


DDA_T = {2: wp.vec3, 3: wp.vec3}


LAUNCHES: list[Launch] = [
    # Lomb-Scargle, biquads, Kuramoto
    Launch("ls_f64@16Kx512", K.lomb_scargle, ls(16 * K1, 512, f64), "fp64"),
    Launch("ls_f32@16Kx512", K.lomb_scargle, ls(16 * K1, 512, f32), "issue"),
    Launch("sos_chanmajor@16K", K.sos_filter, sos(16 * K1, 256, True), "latency"),
    Launch("sos_timemajor@16K", K.sos_filter, sos(16 * K1, 256, False), "latency"),
    Launch("kura_sin@4K", K.kuramoto_sin, kura(4 * K1), "issue"),
    Launch("kura_sincos@4K", K.kuramoto_sincos, kura(4 * K1), "shared"),
    # CTC, logistic regression, LRN, adaptive Simpson
    Launch("ctc@512", K.ctc_alpha, ctc(512), "sync"),
    Launch("ctc@64", K.ctc_alpha, ctc(64), "launch"),
    Launch("logreg_atomic@128K", K.logreg_grad_atomic, logreg(128 * K1), "atomic"),
    Launch("logreg_block@128K", K.logreg_grad_block, logreg(128 * K1), "dram"),
    Launch("lrn_nhwc@16x96x55", K.lrn_across, lrn(16, 96, 55, 55, True), "l1"),
    Launch("lrn_nchw@16x96x55", K.lrn_across, lrn(16, 96, 55, 55, False), "sfu"),
    Launch("simpson_1e6@32K", K.simpson_adapt, simpson(32 * K1, 1e-6), "issue"),
    Launch("simpson_1e4@32K", K.simpson_adapt, simpson(32 * K1, 1e-4), "issue"),
    # RC4, distance transform, voxel traversal
    Launch("rc4_words@64K", KA.rc4_words, rc4(64 * K1), "shared"),
    Launch("rc4_bytes@64K", KA.rc4_bytes, rc4(64 * K1), "shared"),
    Launch("edt_rows@16x512", KA.edt_lines, edt(16, 512, False), "l1"),
    Launch("edt_cols@16x512", KA.edt_lines, edt(16, 512, True), "latency"),
    Launch("dda_shuffled@384", KA.voxel_dda, dda(384, 128, True), "l2", DDA_T),
    Launch("dda_coherent@384", KA.voxel_dda, dda(384, 128, False), "l1", DDA_T),
    # BLAST X-drop, decimal parsing
    Launch("xdrop_global@128K", KA.xdrop_global, xdrop(128 * K1), "l1"),
    Launch("xdrop_shared@128K", KA.xdrop_shared, xdrop(128 * K1), "shared"),
    Launch("atof_bytes@1M", KA.atof_bytes, atof(M, False), "l1"),
    Launch("atof_words@1M", KA.atof_words, atof(M, True), "issue"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("fp64 / fp32, Lomb-Scargle 16K frequencies x 512 samples", "ls_f64@16Kx512", "ls_f32@16Kx512"),
    ("channel-major / time-major, biquad cascade 16K channels x 256 samples", "sos_chanmajor@16K",
     "sos_timemajor@16K"),
    ("sine a pair / tile sines and cosines, Kuramoto 4K oscillators", "kura_sin@4K", "kura_sincos@4K"),
    ("512 / 64 utterances, CTC forward recursion", "ctc@512", "ctc@64"),
    ("atomics a sample / block reduction, logistic-regression gradient 128K x 32", "logreg_atomic@128K",
     "logreg_block@128K"),
    ("NHWC / NCHW, LRN 16 x 96 x 55 x 55", "lrn_nhwc@16x96x55", "lrn_nchw@16x96x55"),
    ("1e-6 / 1e-4 tolerance, adaptive Simpson 32K integrals", "simpson_1e6@32K", "simpson_1e4@32K"),
    ("word / byte state table, RC4-drop256 64K keys", "rc4_words@64K", "rc4_bytes@64K"),
    ("rows / columns, distance transform 16 x 512^2", "edt_rows@16x512", "edt_cols@16x512"),
    ("shuffled / coherent rays, voxel traversal 384^2 rays into 128^3", "dda_shuffled@384", "dda_coherent@384"),
    ("global / shared BLOSUM62, X-drop extension 128K hits", "xdrop_global@128K", "xdrop_shared@128K"),
    ("bytes / words, decimal parsing 1M 16-byte fields", "atof_bytes@1M", "atof_words@1M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
