"""The simt kernels of benchmarks/timing/atomic_hot.py and issue_mix.py do what their CUDA twins
(simt/calibrate/cuda/atomic_hot.cu, issue_mix.cu) do, so that the model's replay of one is
compared with the GPU's profile of the other: the tables the atomics leave against numpy's count
of the same hashed indices, and the fp64 chains against numpy's arithmetic."""
import sys
from pathlib import Path

import numpy as np
import pytest

import simt as wp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "timing"))
import atomic_hot  # noqa: E402
import issue_mix  # noqa: E402

THREADS, BLOCK, STEPS = 1024, 256, 3


def mix32(x):
    x = np.asarray(x, np.uint32)
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846CA68B)
    return x ^ (x >> np.uint32(16))


def hashed(per_lane: bool, mask: int) -> np.ndarray:
    """The hashed index of every lane's every step: mix32(t + i * lanes) (with ``per_lane`` off,
    the lane's warp's: mix32(warp + i * warps)) & mask."""
    t = np.arange(THREADS, dtype=np.uint32)
    units = np.uint32(THREADS) if per_lane else np.uint32(THREADS // 32)
    key = t if per_lane else t // np.uint32(32)
    with np.errstate(over="ignore"):
        return np.concatenate([mix32(key + np.uint32(i) * units) & np.uint32(mask) for i in range(STEPS)])


@pytest.mark.parametrize("bench", ["red_word", "red_word_f32", "red_line", "red_line_f32"])
def test_atomic_hot_tables_count_the_hashed_words(bench):
    lg = 3
    f32 = bench.endswith("f32")
    table = wp.zeros(32 << lg, dtype=wp.float32 if f32 else wp.uint32, device="cpu")
    words = "word" in bench
    mask = (32 << lg) - 1 if words else (1 << lg) - 1
    wp.launch(atomic_hot.KERNELS[bench], THREADS, [table, wp.uint32(mask), STEPS], block_dim=BLOCK, device="cpu")
    idx = hashed(True, mask) * (1 if words else 32)
    want = np.bincount(idx, minlength=32 << lg)
    np.testing.assert_array_equal(table.numpy(), want.astype(table.numpy().dtype))


def test_atom_word_returns_the_old_values():
    mask = (32 << 3) - 1
    table = wp.zeros(32 << 3, dtype=wp.uint32, device="cpu")
    out = wp.zeros(THREADS, dtype=wp.uint32, device="cpu")
    wp.launch(atomic_hot.atom_word, THREADS, [table, out, wp.uint32(mask), STEPS], block_dim=BLOCK, device="cpu")
    want = np.bincount(hashed(True, mask), minlength=32 << 3)
    np.testing.assert_array_equal(table.numpy(), want.astype(np.uint32))
    # the old values a word hands out are 0, 1, ..., k - 1 in some order: their sum is fixed
    assert int(out.numpy().astype(np.uint64).sum()) == int((want * (want - 1) // 2).sum())


@pytest.mark.parametrize("words_log2,stride_log2", [(0, 0), (5, 0), (5, 5)])
@pytest.mark.parametrize("bench", ["red_wword", "red_wword_f32"])
def test_red_wword_puts_a_warps_lanes_on_one_word(bench, words_log2, stride_log2):
    words, stride = 1 << words_log2, 1 << stride_log2
    f32 = bench.endswith("f32")
    table = wp.zeros(max(words * stride, 32), dtype=wp.float32 if f32 else wp.uint32, device="cpu")
    wp.launch(atomic_hot.KERNELS[bench], THREADS, [table, wp.uint32(words - 1), stride, STEPS], block_dim=BLOCK,
              device="cpu")
    want = np.bincount(hashed(False, words - 1) * stride, minlength=table.shape[0])
    np.testing.assert_array_equal(table.numpy(), want.astype(table.numpy().dtype))


@pytest.mark.parametrize("mode", [8, 10])
def test_issue_mix_fp64_chains(mode):
    n, threads = 5, 256
    out = wp.zeros(threads, dtype=float, device="cpu")
    wp.launch(issue_mix._mix(mode), threads, [out, n, issue_mix.B, wp.uint32(issue_mix.M)], block_dim=256,
              device="cpu")
    t = np.arange(threads)
    f = (t % 256)[:, None].astype(np.float32) + np.arange(8, dtype=np.float32)
    d = f.astype(np.float64)
    b = np.float64(np.float32(issue_mix.B))
    for _ in range(n):
        d = d * b + 1.0
    u = (t % 256)[:, None].astype(np.uint32) * np.arange(1, 9, dtype=np.uint32)
    if mode & 2:
        for _ in range(n):
            u = (u ^ np.uint32(issue_mix.M)) + np.arange(3, 11, dtype=np.uint32)
    s = f.sum(axis=1, dtype=np.float32) + u.sum(axis=1, dtype=np.uint32).astype(np.float32)
    s = s + d.sum(axis=1).astype(np.float32)
    np.testing.assert_allclose(out.numpy(), s, rtol=1e-6)
