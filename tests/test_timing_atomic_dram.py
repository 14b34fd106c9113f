"""What global atomics cost the DRAM in the timing model: an atomic that misses in the L2 reads
only its own sectors (warp_words.py on the H200: a warp's atomics on one word read 32 bytes of
its line, not a load's 64), and the update leaves the sectors dirty, written back like a
store's once the L2 holds more dirty data than it keeps. Hand counts are the oracle."""
import numpy as np
import pytest

import simt as wp

L2 = 256 * 1024


@wp.kernel
def one_word_a_sector(table: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    wp.atomic_add(table, i * 8, wp.uint32(1))     # sector i: every other sector of a pair untouched


@pytest.fixture
def small_l2(timing_data):
    timing_data(l2_bytes=L2, l2_dirty_bytes=L2 // 4, l1_bytes=0)


def dram(n):
    table = wp.zeros(n * 8, dtype=wp.uint32, device="cpu:precise")
    r = wp.launch(one_word_a_sector, dim=n, inputs=[table], device="cpu:precise")
    assert int(table.numpy()[::8].sum()) == n
    return r.metrics["dram__bytes_read.sum"], r.metrics["dram__bytes_write.sum"]


def test_an_atomic_reads_its_own_sector_and_writes_it_back(small_l2):
    n = 1 << 15                                   # 32K sectors: 1 MB of them, four L2s
    read, written = dram(n)
    assert read == pytest.approx(32 * n, rel=0.02)            # not 64 bytes a miss
    assert 32 * n - L2 // 4 - 4096 <= written <= 32 * n       # all but what the L2 keeps dirty


def test_atomics_that_fit_stay_in_the_l2(small_l2):
    read, written = dram(1 << 10)                 # 32 KB of sectors: below the dirty bound
    assert written == 0
