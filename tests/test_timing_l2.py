"""The L2's two partitions and its request rate in the timing model, through real kernels.

The H200 (benchmarks/timing/l2_sharing.cu): random sectors gathered from every SM keep only
about half of the L2's bytes (a line both halves of the GPU read again and again is held in
both partitions), while a buffer read twice, by the same SM or by another, keeps all of them; and one-sector hits
come back at about half the rate of sectors streamed. The L2 is shrunk here so that small
launches reach its capacity; the tests check orderings against the same model with one
partition or no request rate, not the constants.
"""

import numpy as np
import pytest

import simt as wp

L2 = 256 << 10
SMS = 132


@pytest.fixture
def small_l2(timing_data):
    """Set the timing data the launches in a test see: ``small_l2(**timing_keys)``, a key
    set to None removed; the L2 is 256 KB throughout, and the L1s the least the model has
    (64 lines), so that a block's share of a buffer does not stay in its SM's L1."""
    return lambda **keys: timing_data(**{"l2_bytes": L2, "l2_dirty_bytes": L2 // 4, "l1_bytes": 0, **keys})


@wp.kernel
def gather(table: wp.array(dtype=float), sectors: int, iters: int, out: wp.array(dtype=float)):
    t = wp.tid()
    s = float(0.0)
    for i in range(iters):
        h = wp.uint32(t) * wp.uint32(0x9E3779B1) ^ wp.uint32(i) * wp.uint32(0x85EBCA77)
        h = h ^ (h >> wp.uint32(15))
        h = h * wp.uint32(0x2C1B3C6D)
        h = h ^ (h >> wp.uint32(13))
        s += table[int(h % wp.uint32(sectors)) * 8]
    if s == 1234.5:
        out[t] = s


@wp.kernel
def read_twice(src: wp.array(dtype=wp.vec4), n: int, shift: int, out: wp.array(dtype=float)):
    b = wp.block_idx()
    t = wp.thread_idx()
    step = wp.grid_dim() * wp.block_dim()
    acc = float(0.0)
    for p in range(2):
        bb = b
        if p == 1:
            bb = (b + shift) % wp.grid_dim()
        k = bb * wp.block_dim() + t
        while k < n:
            v = src[k]
            acc += v[0] + v[1] + v[2] + v[3]
            k += step
    if acc == 1234.5:
        out[b * wp.block_dim() + t] = acc


def gathered(table_bytes, iters=None):
    """(DRAM bytes read / table bytes, cycles) of a random one-sector gather from every SM,
    eight reads a sector on average unless ``iters`` says how many each thread makes."""
    sectors = table_bytes // 32
    threads = SMS * 2 * 128
    iters = iters or max(1, round(8 * sectors / threads))
    r = wp.launch(gather, threads, [wp.zeros(table_bytes // 4), sectors, iters, wp.zeros(threads)],
                  block_dim=128, device="cpu:precise")
    return r.metrics["dram__bytes_read.sum"] / table_bytes, r.cycles


def read_twice_dram(buffer_bytes, shift):
    """DRAM bytes read / buffer bytes of a buffer read twice, a block an SM, the second time
    by the block ``shift`` on (0: each block's share stays in its SM's L1)."""
    n = buffer_bytes // 16
    r = wp.launch(read_twice, SMS * 128, [wp.zeros(n, dtype=wp.vec4), n, shift, wp.zeros(SMS * 128)],
                  block_dim=128, device="cpu:precise")
    return r.metrics["dram__bytes_read.sum"] / buffer_bytes


def test_a_table_every_sm_gathers_from_keeps_about_half_the_l2(small_l2):
    small_l2()
    half, _ = gathered(int(L2 * 0.3))
    most, _ = gathered(int(L2 * 0.6))
    assert half < 1.1                  # it fits in each partition: read once from DRAM
    assert most > 1.25                 # it fits the L2 but not each partition
    small_l2(l2_partitions=1)
    one, _ = gathered(int(L2 * 0.6))
    assert one < 1.1 and most > 1.2 * one


@pytest.mark.parametrize("shift", [1, SMS // 2])
def test_a_buffer_read_twice_by_another_sm_keeps_the_whole_l2(small_l2, shift):
    small_l2()
    assert read_twice_dram(int(L2 * 0.6), shift) < 1.1
    assert read_twice_dram(int(L2 * 1.5), shift) > 1.5     # (and one that does not fit misses)


def test_one_sector_hits_are_limited_by_the_l2_request_rate_streams_by_bytes(small_l2):
    # (the gather's 51 KB table is hit by every SM at once: reads the L2 would merge, which
    # test_timing_l2_share.py checks, are left unmerged here so that each takes a request)
    small_l2(l2_merge_window_cycles=0)
    _, limited = gathered(int(L2 * 0.2), iters=48)
    small_l2(l2_requests_per_cycle=None, l2_merge_window_cycles=0)
    _, bytes_only = gathered(int(L2 * 0.2), iters=48)
    assert limited > 1.2 * bytes_only
    # a line of four sectors takes the L2 longer for its bytes than for its request
    n = int(L2 * 0.6) // 16
    args = [wp.zeros(n, dtype=wp.vec4), n, 1, wp.zeros(SMS * 128)]
    stream = wp.launch(read_twice, SMS * 128, args, block_dim=128, device="cpu:precise").cycles
    small_l2()
    assert wp.launch(read_twice, SMS * 128, args, block_dim=128, device="cpu:precise").cycles == stream


def test_an_arch_file_without_the_partition_keys_runs_with_one_partition(small_l2):
    small_l2(l2_partitions=None, l2_requests_per_cycle=None)
    without = gathered(int(L2 * 0.6))
    small_l2(l2_partitions=1, l2_requests_per_cycle=None)
    assert gathered(int(L2 * 0.6)) == without
    assert np.isfinite(without[1])


@pytest.mark.parametrize("key,value,message", [
    ("l2_partitions", 4, "has one L2 or two partitions"),
    ("l2_requests_per_cycle", 0, "must be a positive number"),
])
def test_an_arch_file_with_partitions_the_model_lacks_is_a_clear_error(tmp_path, key, value, message):
    import json
    from simt.arch import ARCH_DIR, ArchError, load_arch
    data = json.loads((ARCH_DIR / "sm_90.json").read_text())
    data["timing"][key] = value
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ArchError, match=message):
        load_arch(str(path))


# ---- the L2 queue takes requests by their time, not by the order the machine sees them ----

def test_a_request_waits_only_for_work_that_came_before_it():
    from simt.sim.timing.l2queue import L2_SPAN, l2_take
    ledger = np.zeros((2, 64), np.float64)
    ledger[1, :] = -1.0
    assert l2_take(4.0, 1000.0, ledger) == 1000.0     # looked at first, arrives late
    assert l2_take(1.0, 0.0, ledger) == 0.0           # arrives early: no wait behind it
    # work arriving together queues: each starts when the one before it leaves the L2
    starts = [l2_take(L2_SPAN, 96.0, ledger) for _ in range(3)]
    assert starts == [96.0, 96.0 + L2_SPAN, 96.0 + 2 * L2_SPAN]
    # a span the ring has come round to again is empty
    assert l2_take(1.0, 96.0 + 64 * L2_SPAN, ledger) == 96.0 + 64 * L2_SPAN


@wp.kernel
def scatter_steps(dst: wp.array(dtype=float), n: int):
    """Each lane stores to a line of its own (a warp's store: 32 lines), the word moving along
    the line from step to step."""
    t = wp.tid()
    b = ((t >> 5) * 32 + (t & 31)) * 32
    for i in range(n):
        dst[b + (i & 31)] = float(i)


def test_a_steady_loop_of_scattered_stores_costs_the_same_every_step():
    """16 warps on each of 16 SMs storing 32 lines a step: the SMs' tag stages hold their
    requests back and the L2 is far from busy. Each step must cost what the step before did
    (with one "free from" time for the L2, every SM waited behind the latest arrival of any,
    and 64 steps cost 9x what 16 did)."""
    def cycles(n):
        dst = wp.array(np.zeros(16 * 16 * 32 * 32, np.float32), device="cpu:precise")
        return wp.launch(scatter_steps, dim=16 * 16 * 32, inputs=[dst, n], block_dim=512,
                         device="cpu:precise").cycles
    c16, c32, c64 = cycles(16), cycles(32), cycles(64)
    early, late = (c32 - c16) / 16, (c64 - c32) / 32
    assert late == pytest.approx(early, rel=0.1)


# ---- a stored line's cost on its SM's path to the L2 ----

def _scatter_cycles(blocks: int, steps: int = 32) -> float:
    dst = wp.array(np.zeros(blocks * 16 * 32 * 32, np.float32), device="cpu:precise")
    return wp.launch(scatter_steps, dim=blocks * 16 * 32, inputs=[dst, steps], block_dim=512,
                     device="cpu:precise").cycles


def test_scattered_stores_on_a_few_sms_take_their_sms_path(timing_data):
    """16 warps on each of 16 SMs storing 32 one-sector lines a step: the L2 is far from busy,
    so each SM's own path to it sets the pace (l1_store_data.cu: 2.2 cycles a line on the H200,
    twice the tag stage's rate). Without the path's costs the loop goes at the tag stage's rate."""
    timing_data()
    with_path = _scatter_cycles(16)
    timing_data(l1_store_line_cycles=None, l1_store_sector_cycles=None)
    without = _scatter_cycles(16)
    assert with_path > 1.5 * without


def test_on_every_sm_the_l2_sets_the_pace_of_scattered_stores(timing_data):
    """The same loop with a block on every SM: the L2's rate for one-sector writes, not the
    SMs' paths, is the limit, with the path's costs or without them."""
    timing_data()
    with_path = _scatter_cycles(132)
    timing_data(l1_store_line_cycles=None, l1_store_sector_cycles=None)
    without = _scatter_cycles(132)
    assert with_path == pytest.approx(without, rel=0.05)


@wp.kernel
def load_store_steps(src: wp.array(dtype=float), dst: wp.array(dtype=float), n: int):
    """Each step a lane reads a word of a line of its own (an L1 hit after the first step) and
    stores a word to another line of its own: a warp's load of 32 lines and store of 32."""
    t = wp.tid()
    b = ((t >> 5) * 32 + (t & 31)) * 32
    acc = float(0.0)
    for i in range(n):
        acc += src[b + (i & 31)]
        dst[b + (i & 31)] = float(i)
    if acc == -1.0:
        dst[b] = acc


def _load_store_cycles(blocks: int, steps: int = 32) -> float:
    src = wp.array(np.zeros(blocks * 16 * 32 * 32, np.float32), device="cpu:precise")
    dst = wp.array(np.zeros(blocks * 16 * 32 * 32, np.float32), device="cpu:precise")
    return wp.launch(load_store_steps, dim=blocks * 16 * 32, inputs=[src, dst, steps], block_dim=512,
                     device="cpu:precise").cycles


def test_on_a_few_sms_loads_and_stores_take_the_l1_data_stage_in_turn(timing_data):
    """16 warps on each of 16 SMs loading 32 L1 lines and storing 32 one-sector lines a step:
    the stored lines go through the L1's data stage, in turn with the loaded lines, before
    their path to the L2 (l1_store_data.cu on the H200: 2.8 cycles a line pair, stores alone
    2.2, loads alone 1.0). Without the data stage's share the loads hide behind the stores;
    the stores alone keep their path's pace either way."""
    timing_data()
    both = _load_store_cycles(16)
    stores = _scatter_cycles(16)
    timing_data(l1_data_store_line_cycles=None)
    both_without = _load_store_cycles(16)
    stores_without = _scatter_cycles(16)
    assert both > 1.15 * both_without
    assert both > 1.15 * stores
    assert stores == pytest.approx(stores_without, rel=0.05)
