"""A long kernel's timing replays only a prefix of its blocks (the recorder stops at a budget of
warp instructions) and extrapolates. The prefix starts with an empty L2, so a kernel that
writes far more than the L2 keeps dirty must still count the write-backs of the blocks after
it: the replay of the whole grid is the oracle."""
import numpy as np
import pytest

import simt as wp
from simt.sim.precise import engine

L2 = 256 * 1024


@wp.kernel
def copy_after_work(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for _ in range(iters):
        v = wp.sin(v) * 1.01
    y[i] = v


@wp.kernel
def bins_after_work(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for _ in range(iters):
        v = wp.sin(v) * 1.01
    y[i % 1024] = v


def dram_written(kernel, n, budget, monkeypatch):
    monkeypatch.setattr(engine, "RECORD_BUDGET", budget)
    monkeypatch.setattr(engine, "MIN_RECORDED_WAVES", 0)
    x = wp.array(np.full(n, 0.5, np.float32), device="cpu:precise")
    y = wp.zeros(n, dtype=float, device="cpu:precise")
    r = wp.launch(kernel, dim=n, inputs=[x, y, 8], block_dim=256, device="cpu:precise")
    return r.metrics["dram__bytes_write.sum"]


@pytest.fixture
def small_l2(timing_data):
    timing_data(l2_bytes=L2, l2_dirty_bytes=L2 // 4, l1_bytes=0)


def test_a_prefix_counts_the_write_backs_of_the_blocks_after_it(small_l2, monkeypatch):
    n = 1 << 19                                   # 2 MB written: eight L2s, 32 dirty bounds
    whole = dram_written(copy_after_work, n, 1 << 40, monkeypatch)
    prefix = dram_written(copy_after_work, n, 20_000, monkeypatch)
    assert whole > 0.8 * n * 4                    # nearly every written byte goes back to DRAM
    assert prefix == pytest.approx(whole, rel=0.1)


def test_lines_written_again_and_again_are_not_extrapolated(small_l2, monkeypatch):
    n = 1 << 19                                   # every block writes the same 4 KB
    whole = dram_written(bins_after_work, n, 1 << 40, monkeypatch)
    prefix = dram_written(bins_after_work, n, 20_000, monkeypatch)
    assert whole < L2 // 4 and prefix < L2 // 4
