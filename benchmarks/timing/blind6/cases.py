"""The sixth blind validation set's launches: kernels from sparse and segmented primitives,
search, ML operators, databases, text compression, graphics, cellular automata and numerical
codes (kernels.py) at one to three sizes each, with seeded inputs, and the pairs users compare.

Measured once on an H200 (measure.sh here); never used to fit or tune a constant of the timing
model (see README.md). Sizes keep each launch at a few milliseconds at most on the GPU.
"""
from __future__ import annotations

import heapq

import numpy as np

from ..cases import Launch, instantiate, run  # noqa: F401  (the same launch record and runners)
from . import kernels as K

f32, f64, i16, i32, u8, u32 = np.float32, np.float64, np.int16, np.int32, np.uint8, np.uint32
M = 1 << 20
K4 = 4096


def hash32(x):
    """numpy twin of kernels.hash32 (uint32 in, uint32 out)."""
    x = np.asarray(x, np.uint64) & 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & 0xFFFFFFFF
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & 0xFFFFFFFF
    x ^= x >> 16
    return x.astype(u32)


def distinct(rng, n, high=2**31 - 1):
    """n distinct non-negative int32 values in random order."""
    v = np.unique(rng.integers(0, high, int(n * 1.2) + 16))
    rng.shuffle(v)
    assert len(v) >= n
    return v[:n].astype(i32)


# ---- makers: rng -> (inputs, dim, block_dim) --------------------------------------------------

def segreduce(n, mean_len):
    """n sorted keys in runs of geometric length (mean ``mean_len``)."""
    def make(rng):
        lens = rng.geometric(1.0 / mean_len, n)
        starts = np.cumsum(lens)
        keys = np.searchsorted(starts, np.arange(n), side="right").astype(i32)
        nk = int(keys[-1]) + 1
        return [keys, rng.standard_normal(n).astype(f32), np.zeros(nk, f32)], n, 256
    return make


def coo(rng, rows, cols, nnz, skewed):
    """nnz distinct (row, col) entries: uniform columns, or power-law columns (hubs)."""
    r = rng.integers(0, rows, int(nnz * 1.1))
    if skewed:
        perm = rng.permutation(cols)
        c = perm[np.minimum((cols * rng.random(len(r)) ** 3).astype(np.int64), cols - 1)]
    else:
        c = rng.integers(0, cols, len(r))
    key = np.unique(r.astype(np.int64) * cols + c)
    key = key[rng.permutation(len(key))[:nnz]]
    key.sort()
    return (key // cols).astype(i32), (key % cols).astype(i32)


def csr_transpose(rows, cols, nnz, skewed):
    def make(rng):
        r, c = coo(rng, rows, cols, nnz, skewed)
        n = len(r)
        cnt = np.bincount(c, minlength=cols)
        cursor = np.concatenate([[0], np.cumsum(cnt)[:-1]]).astype(i32)
        return [r, c, rng.standard_normal(n).astype(f32), cursor, np.zeros(n, i32), np.zeros(n, f32)], n, 256
    return make


def spmm(m, per_row, n, block):
    def make(rng):
        nnz = m * per_row
        ptr = np.arange(0, nnz + 1, per_row, dtype=i32)
        col = np.sort(rng.integers(0, m, (m, per_row)), axis=1).ravel().astype(i32)
        return [ptr, col, rng.standard_normal(nnz).astype(f32), rng.standard_normal((m, n)).astype(f32),
                np.zeros((m, n), f32)], (m, n), block
    return make


def knn(nq, nr, block=256):
    def make(rng):
        return [rng.random(nq).astype(f32), rng.random(nq).astype(f32), rng.random(nr).astype(f32),
                rng.random(nr).astype(f32), np.zeros((nq, 4), f32), np.zeros((nq, 4), i32)], nq, block
    return make


def merge(n, per):
    """Two sorted arrays of n each (with some repeated values), merged ``per`` outputs a thread."""
    def make(rng):
        a = np.sort(rng.integers(0, 4 * n, n)).astype(f32)
        b = np.sort(rng.integers(0, 4 * n, n)).astype(f32)
        return [a, b, i32(per), np.zeros(2 * n, f32)], 2 * n // per, 128
    return make


def act(n, dtype=f32):
    return lambda rng: ([(3.0 * rng.standard_normal(n)).astype(dtype), np.zeros(n, dtype)], n, 256)


def lnbwd(rows, n):
    def make(rng):
        x = (rng.standard_normal((rows, n)) * 2 + 0.5).astype(f32)
        mean = x.astype(f64).mean(axis=1)
        rstd = 1.0 / np.sqrt(x.astype(f64).var(axis=1) + 1e-5)
        return [rng.standard_normal((rows, n)).astype(f32), x, mean.astype(f32), rstd.astype(f32),
                (1.0 + 0.1 * rng.standard_normal(n)).astype(f32), np.zeros((rows, n), f32)], rows * 32, 256
    return make


def rmsnorm(rows, n):
    def make(rng):
        return [rng.standard_normal((rows, n)).astype(f32), (1.0 + 0.1 * rng.standard_normal(n)).astype(f32),
                f32(1e-6), np.zeros((rows, n), f32)], rows * 1024, 1024
    return make


def rope(tokens, heads, d, table, base=10000.0):
    def make(rng):
        x = rng.standard_normal((tokens, heads, d)).astype(f32)
        y = np.zeros_like(x)
        dim = (tokens, heads, d // 2)
        if not table:
            return [x, f32(np.log(base)), y], dim, (1, 4, 64)
        p = np.arange(d // 2)
        theta = np.arange(tokens)[:, None] * base ** (-2.0 * p[None, :] / d)
        return [x, np.cos(theta).astype(f32), np.sin(theta).astype(f32), y], dim, (1, 4, 64)
    return make


def top_p(rows, n, temperature, p=0.9):
    """rows of softmax probabilities sorted in decreasing order; a low temperature peaks them."""
    def make(rng):
        z = rng.standard_normal((rows, n)) / temperature
        e = np.exp(z - z.max(axis=1, keepdims=True))
        pr = -np.sort(-(e / e.sum(axis=1, keepdims=True)), axis=1)
        return [pr.astype(f32), f32(p), np.zeros(rows, i32)], rows * 32, 256
    return make


def hash_table(rng, cap, keys):
    """An open-addressing table of capacity cap (a power of two) with linear probing, built in
    rounds: every key not yet placed tries its next slot; the first claimant of an empty slot
    takes it (so every slot between a key's hash and its place is occupied)."""
    tk = np.full(cap, -1, i32)
    tv = np.full(cap, -1, i32)
    home = hash32(keys.astype(np.uint64)).astype(np.int64) & (cap - 1)
    pend = np.arange(len(keys))
    step = 0
    while len(pend):
        s = (home[pend] + step) & (cap - 1)
        free = tk[s] == -1
        cand, cs = pend[free], s[free]
        _, first = np.unique(cs, return_index=True)
        won = cand[first]
        tk[cs[first]] = keys[won]
        tv[cs[first]] = won.astype(i32)
        placed = np.zeros(len(keys), bool)
        placed[won] = True
        pend = pend[~placed[pend]]
        step += 1
    return tk, tv


def probe(cap, load, nprobe):
    """A table filled to ``load``; half the probe keys present, half absent."""
    def make(rng):
        n = int(cap * load)
        allk = distinct(rng, n + nprobe // 2)
        keys = allk[:n]
        tk, tv = hash_table(rng, cap, keys)
        q = np.concatenate([keys[rng.integers(0, n, nprobe - nprobe // 2)], allk[n:]])
        rng.shuffle(q)
        return [tk, tv, q.astype(i32), np.zeros(nprobe, i32)], nprobe, 256
    return make


def bloom_bits(keys, words):
    """numpy twin of bloom_insert: the filter's words after inserting keys."""
    k = keys.astype(np.uint64)
    h1 = hash32(k).astype(np.uint64)
    h2 = (hash32(k ^ 0x5BD1E995) | 1).astype(np.uint64)
    bits = np.zeros(words, u32)
    for r in range(4):
        b = (h1 + r * h2) & (words * 32 - 1)
        np.bitwise_or.at(bits, (b >> 5).astype(np.int64), (np.uint64(1) << (b & 31)).astype(u32))
    return bits


def bloom(n, words, query):
    """insert: n keys into an empty filter; query: n keys (a quarter of them inserted) against a
    filter holding n // 4 keys."""
    def make(rng):
        keys = rng.integers(0, 2**32, n, dtype=np.uint64).astype(u32)
        if not query:
            return [keys, np.zeros(words, u32)], n, 256
        bits = bloom_bits(keys[: n // 4], words)
        return [keys[rng.permutation(n)], bits, np.zeros(n, u8)], n, 256
    return make


def mix(n, slots):
    def make(rng):
        s = np.zeros((slots, 7), i32)
        s[:, 3] = 2**31 - 1
        s[:, 4] = -1
        return [s], n, 512
    return make


def strmatch(n, m, alphabet, planted=1000):
    """A text of n + m bytes over an alphabet (4 letters: DNA; 256: bytes) with the pattern
    planted ``planted`` times."""
    def make(rng):
        sym = np.frombuffer(b"ACGT", u8) if alphabet == 4 else np.arange(256, dtype=u8)
        text = sym[rng.integers(0, len(sym), n + m)]
        pat = sym[rng.integers(0, len(sym), m)]
        for p in rng.integers(0, n, planted):
            text[p:p + m] = pat
        return [text, pat, np.zeros(n + m, u8), np.zeros(1, i32)], n, 256
    return make


def words_text(rng, n):
    """English-like bytes: words of a small vocabulary separated by spaces (many long repeats)."""
    letters = np.frombuffer(b"etaoinshrdlucmfwyp", u8)
    vocab = [bytes(letters[rng.integers(0, len(letters), rng.integers(2, 9))]) for _ in range(200)]
    pick = rng.zipf(1.3, n // 3) % len(vocab)
    return np.frombuffer(b" ".join(vocab[k] for k in pick)[:n], u8).copy()


def lz(n, text, window=64, maxlen=32):
    def make(rng):
        data = words_text(rng, n) if text else rng.integers(0, 256, n).astype(u8)
        return [data, i32(window), i32(maxlen), np.zeros(n, i16), np.zeros(n, i16)], n, 128
    return make


def huffman(freq):
    """Code lengths of a Huffman code for freq (every symbol at least 1), and canonical codes."""
    heap = [(float(f), s, (s,)) for s, f in enumerate(freq)]
    heapq.heapify(heap)
    depth = np.zeros(len(freq), np.int64)
    tie = len(freq)
    while len(heap) > 1:
        fa, _, a = heapq.heappop(heap)
        fb, _, b = heapq.heappop(heap)
        for s in a + b:
            depth[s] += 1
        heapq.heappush(heap, (fa + fb, tie, a + b))
        tie += 1
    order = np.lexsort((np.arange(len(freq)), depth))
    code = np.zeros(len(freq), np.uint64)
    c, prev = 0, depth[order[0]]
    for s in order:
        c <<= int(depth[s] - prev)
        prev = depth[s]
        code[s] = c
        c += 1
    return code.astype(u32), depth.astype(i32)


def vle(n):
    """n bytes drawn from a skewed distribution, its Huffman code, the exclusive scan of the
    lengths, and zeroed output words (one spare)."""
    def make(rng):
        p = 1.0 / (np.arange(256) + 1.0) ** 1.2
        p /= p.sum()
        sym = rng.choice(256, n, p=p).astype(u8)
        freq = np.maximum(np.bincount(sym, minlength=256), 1)
        code, length = huffman(freq)
        lens = length[sym].astype(np.int64)
        pos = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(i32)
        words = int((lens.sum() + 31) // 32) + 1
        return [sym, code, length, pos, np.zeros(words, u32)], n, 256
    return make


def photo(rng, h, w):
    """A smooth grey image with edges and noise, 0-255."""
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.where((yy // 97 + xx // 61) % 2 == 0, 70.0, 180.0) + 40 * np.sin(xx / 37.0) * np.cos(yy / 53.0)
    return np.clip(base + rng.normal(0, 12, (h, w)), 0, 255)


def gradient(n):
    def make(rng):
        return [photo(rng, n, n).astype(u8), np.zeros((n, n), f32), np.zeros((n, n), i16)], (n, n), (8, 32)
    return make


def volume(d, pixels, dense):
    """A d^3 density volume of Gaussian blobs: dense (the rays stop early) or sparse (most rays
    march through)."""
    def make(rng):
        z, y, x = np.mgrid[0:d, 0:d, 0:d].astype(f32) / d
        v = np.zeros((d, d, d), f32)
        nb, amp, rad = (24, 1.0, 0.12) if dense else (6, 0.15, 0.06)
        for cz, cy, cx in rng.random((nb, 3)):
            v += amp * np.exp(-((z - cz) ** 2 + (y - cy) ** 2 + (x - cx) ** 2) / (2 * rad * rad)).astype(f32)
        return [v, np.zeros((pixels, pixels), f32)], (pixels, pixels), (8, 32)
    return make


def msquares(n):
    """An n x n smooth field (sums of sines), cells (n-1)^2, the iso level 0."""
    def make(rng):
        yy, xx = np.mgrid[0:n, 0:n] / n
        f = np.zeros((n, n))
        for _ in range(6):
            fy, fx, ph = rng.uniform(2, 12), rng.uniform(2, 12), rng.uniform(0, 6.28)
            f += np.sin(fy * 6.28 * yy + ph) * np.cos(fx * 6.28 * xx)
        return [f.astype(f32), f32(0.0), np.zeros((n - 1, n - 1), u8), np.zeros(1, i32),
                np.zeros(1, f32)], (n - 1, n - 1), (8, 32)
    return make


def life(n, shared):
    def make(rng):
        g = (rng.random((n, n)) < 0.3).astype(u8)
        return [g, np.zeros((n, n), u8)], (n, n), ((32, 32) if shared else (8, 32))
    return make


def durbin(n, systems, dtype=f32, block=128):
    """systems Toeplitz systems of order n (r_k = 0.5 rho^(k+1), rho per system in 0.1-0.8),
    stored element-major."""
    def make(rng):
        rho = rng.uniform(0.1, 0.8, systems)
        r = 0.5 * rho[None, :] ** np.arange(1, n + 1)[:, None]
        return [r.astype(dtype), np.zeros((n, systems), dtype), np.zeros((n, systems), dtype)], systems, block
    return make


def boxmuller(pairs, block=64):
    return lambda rng: ([u32(rng.integers(0, 2**32)), np.zeros(2 * pairs, f32)], pairs, block)


def linked_list(n, shuffled):
    """One list through n nodes: in index order, or in a random order; ranks start at 1 (0 for
    the tail)."""
    def make(rng):
        order = rng.permutation(n) if shuffled else np.arange(n)
        nxt = np.full(n, -1, i32)
        nxt[order[:-1]] = order[1:]
        rank = np.ones(n, i32)
        rank[order[-1]] = 0
        return [nxt, rank, np.zeros(n, i32), np.zeros(n, i32)], n, 256
    return make


LAUNCHES: list[Launch] = [
    # sparse and segmented
    Launch("segreduce_short@16M", K.segreduce_warp, segreduce(16 * M, 4), "atomic"),
    Launch("segreduce_long@16M", K.segreduce_warp, segreduce(16 * M, 1000), "dram"),
    Launch("csr_transpose_uniform@8M", K.csr_transpose_scatter, csr_transpose(M, M, 8 * M, False), "atomic"),
    Launch("csr_transpose_skewed@8M", K.csr_transpose_scatter, csr_transpose(M, M, 8 * M, True), "atomic"),
    Launch("spmm_n64@64K", K.spmm_csr, spmm(64 * 1024, 16, 64, (4, 64)), "l2"),
    Launch("spmm_n8@64K", K.spmm_csr, spmm(64 * 1024, 16, 8, (32, 8)), "l2"),
    # search and neighbours
    Launch("knn4@64Kx4096", K.knn4_brute, knn(64 * 1024, K4), "issue"),
    Launch("knn4@8Kx1024", K.knn4_brute, knn(8 * 1024, 1024, 64), "latency"),
    Launch("merge_path_p8@16M", K.merge_path, merge(8 * M, 8), "dram"),
    Launch("merge_path_p32@16M", K.merge_path, merge(8 * M, 32), "latency"),
    # ML operators
    Launch("mish@16M", K.mish, act(16 * M), "dram"),
    Launch("mish_f64@16M", K.mish, act(16 * M, f64), "fp64"),
    Launch("lnbwd@16Kx1024", K.layernorm_bwd_warp, lnbwd(16 * 1024, 1024), "dram"),
    Launch("lnbwd@2Kx4096", K.layernorm_bwd_warp, lnbwd(2 * 1024, K4), "latency"),
    Launch("rmsnorm@4Kx8192", K.rmsnorm_block, rmsnorm(K4, 8192), "dram"),
    Launch("rmsnorm@32Kx1024", K.rmsnorm_block, rmsnorm(32 * 1024, 1024), "dram"),
    Launch("rope_sincos@4096x32x128", K.rope_sincos, rope(K4, 32, 128, False), "dram"),
    Launch("rope_table@4096x32x128", K.rope_table, rope(K4, 32, 128, True), "dram"),
    Launch("top_p_flat@8Kx4096", K.top_p_cut, top_p(8 * 1024, K4, 1.0), "dram"),
    Launch("top_p_peaked@8Kx4096", K.top_p_cut, top_p(8 * 1024, K4, 0.25), "latency"),
    # databases and probabilistic structures
    Launch("hash_probe_l50@4M", K.hash_probe, probe(8 * M, 0.5, 4 * M), "latency"),
    Launch("hash_probe_l90@4M", K.hash_probe, probe(8 * M, 0.9, 4 * M), "latency"),
    Launch("bloom_insert@4M", K.bloom_insert, bloom(4 * M, 4 * M, False), "atomic"),
    Launch("bloom_query@16M", K.bloom_query, bloom(16 * M, 4 * M, True), "l2"),
    Launch("atomic_mix_one@256K", K.atomic_mix, mix(256 * 1024, 1), "atomic"),
    Launch("atomic_mix_spread@256K", K.atomic_mix, mix(256 * 1024, 4096), "atomic"),
    # text: search and compression
    Launch("strmatch_dna@16M", K.strmatch_naive, strmatch(16 * M, 16, 4), "dram"),
    Launch("strmatch_bytes@16M", K.strmatch_naive, strmatch(16 * M, 16, 256), "dram"),
    Launch("lz_text@512K", K.lz_match, lz(512 * 1024, True), "l1"),
    Launch("lz_random@512K", K.lz_match, lz(512 * 1024, False), "issue"),
    Launch("vle_pack@16M", K.vle_pack, vle(16 * M), "atomic"),
    # image, graphics, cellular automata
    Launch("gradient@4096", K.gradient_polar, gradient(K4), "dram"),
    Launch("gradient@1024", K.gradient_polar, gradient(1024), "launch"),
    Launch("raymarch_dense@1024", K.raymarch_volume, volume(256, 1024, True), "l2"),
    Launch("raymarch_sparse@1024", K.raymarch_volume, volume(256, 1024, False), "l2"),
    Launch("msquares@4096", K.marching_squares, msquares(K4 + 1), "dram"),
    Launch("msquares@1024", K.marching_squares, msquares(1025), "atomic"),
    Launch("life_naive@8192", K.life_naive, life(8192, False), "dram"),
    Launch("life_shared@8192", K.life_shared, life(8192, True), "shared"),
    Launch("life_naive@1024", K.life_naive, life(1024, False), "launch"),
    # numerical
    Launch("durbin@64Kx64", K.durbin_batched, durbin(64, 64 * 1024), "l2"),
    Launch("durbin_f64@64Kx64", K.durbin_batched, durbin(64, 64 * 1024, f64), "l2"),
    Launch("durbin@8Kx64", K.durbin_batched, durbin(64, 8 * 1024), "latency"),
    Launch("box_muller@16M", K.box_muller, boxmuller(8 * M), "issue"),
    Launch("box_muller@1M", K.box_muller, boxmuller(512 * 1024, 256), "launch"),
    Launch("list_rank_seq@8M", K.list_rank_jump, linked_list(8 * M, False), "dram"),
    Launch("list_rank_random@8M", K.list_rank_jump, linked_list(8 * M, True), "latency"),
]

# (label, numerator launch, denominator launch): the ratios users act on
PAIRS = [
    ("short / long key runs, segmented reduction 16M", "segreduce_short@16M", "segreduce_long@16M"),
    ("skewed / uniform columns, CSR transpose 8M", "csr_transpose_skewed@8M", "csr_transpose_uniform@8M"),
    ("64 / 8 dense columns, SpMM 64K rows", "spmm_n64@64K", "spmm_n8@64K"),
    ("32 / 8 outputs a thread, merge path 16M", "merge_path_p32@16M", "merge_path_p8@16M"),
    ("fp64 / fp32 Mish, 16M", "mish_f64@16M", "mish@16M"),
    ("long / short rows, RMSNorm (same elements)", "rmsnorm@4Kx8192", "rmsnorm@32Kx1024"),
    ("sincos / table rotary embedding", "rope_sincos@4096x32x128", "rope_table@4096x32x128"),
    ("flat / peaked top-p cut, 8K x 4096", "top_p_flat@8Kx4096", "top_p_peaked@8Kx4096"),
    ("90% / 50% load, hash probe 4M", "hash_probe_l90@4M", "hash_probe_l50@4M"),
    ("one slot / spread, atomic mix 256K", "atomic_mix_one@256K", "atomic_mix_spread@256K"),
    ("DNA / byte text, substring search 16M", "strmatch_dna@16M", "strmatch_bytes@16M"),
    ("text / random bytes, LZ match finding", "lz_text@512K", "lz_random@512K"),
    ("sparse / dense volume, ray marching", "raymarch_sparse@1024", "raymarch_dense@1024"),
    ("naive / shared Game of Life, 8192", "life_naive@8192", "life_shared@8192"),
    ("fp64 / fp32 Levinson-Durbin, 64K systems", "durbin_f64@64Kx64", "durbin@64Kx64"),
    ("random / sequential list ranking, 8M", "list_rank_random@8M", "list_rank_seq@8M"),
    ("query 16M / insert 4M, Bloom filter", "bloom_query@16M", "bloom_insert@4M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
