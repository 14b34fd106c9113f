"""Few words a warp in the timing model, through real kernels (benchmarks/timing/warp_words.py
measured each on the H200):

- global loads whose lanes read records 36 bytes apart take 9 lines a request with no two
  lanes in one L1 bank, and run about twice as fast as records 32 bytes apart (8 lines, eight
  words a bank): the data stage pays bank conflicts, the tag stage lines;
- a warp's float atomics on one word cost what integer ones cost (the float adder's wait is
  between updates queued on a word, not between lanes of one request);
- a sampled replay of atomics whose lines 32 consecutive warps share agrees with replaying
  every SM (the sample's SMs are consecutive, so their lines are too).

The tests compare orderings and the model with itself, not constants.
"""
import copy

import numpy as np
import pytest

import simt as wp


@wp.kernel
def records(x: wp.array(dtype=float), stride: int, out: wp.array(dtype=float)):
    i = wp.tid()
    base = (i % 4096) * stride
    s = float(0.0)
    for f in range(8):
        s += x[base + f]
    if s == 1234.5:
        out[i] = s


def _records(stride: int) -> int:
    n = 132 * 4 * 256
    x = wp.array(np.ones(4096 * stride + 8, np.float32))
    return wp.launch(records, n, [x, stride, wp.zeros(n)], block_dim=256, device="cpu:precise").cycles


def test_records_36_bytes_apart_beat_records_32_bytes_apart(timing_data):
    """L1 hits: 9 lines and no bank conflict against 8 lines with eight words a bank."""
    from simt.arch import load_arch
    assert "l1_tag_line_cycles" in load_arch("sm_90").data["timing"]
    assert _records(9) < 0.85 * _records(8)
    # a file without the tag rate (simt calibrate's): a load's lines take the data stage a cycle each, so the
    # 9-line request is the slower one
    timing_data(l1_tag_line_cycles=None)
    assert _records(9) > _records(8)


def test_bad_tag_rate_is_refused(tmp_path):
    import json
    from simt.arch import load_arch
    from simt.errors import SimtError
    data = copy.deepcopy(load_arch("sm_90").data)
    data["timing"]["l1_tag_line_cycles"] = 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SimtError, match="l1_tag_line_cycles"):
        load_arch(str(path))


@wp.kernel
def warp_word_add(fp: wp.array(dtype=float), ip: wp.array(dtype=int), spacing: int, as_float: int):
    i = wp.tid()
    word = (i >> 5) << spacing
    if as_float == 1:
        wp.atomic_add(fp, word, 1.0)
    else:
        wp.atomic_add(ip, word, 1)


def _warp_word_add(n: int, spacing: int, as_float: int, sample: bool = True) -> int:
    size = (n >> 5 << spacing) + 1
    wp.set_module_options({"timing_sample": sample})
    try:
        r = wp.launch(warp_word_add, n, [wp.zeros(size), wp.zeros(size, dtype=int), spacing, as_float],
                      block_dim=256, device="cpu:precise")
    finally:
        wp.set_module_options({"timing_sample": True})
    return r.cycles


def test_a_warps_float_atomics_on_one_word_cost_what_integer_ones_cost():
    n = 1 << 18
    assert _warp_word_add(n, 5, 1) == pytest.approx(_warp_word_add(n, 5, 0), rel=0.05)


def test_sampled_atomics_on_lines_shared_by_consecutive_warps_match_the_full_replay():
    """32 warps a line (spacing 0): the sample's consecutive SMs hold consecutive blocks,
    whose updates all fall on a few lines; they stand for other SMs' updates on other lines."""
    n = 1 << 21
    full = _warp_word_add(n, 0, 0, sample=False)
    assert _warp_word_add(n, 0, 0) == pytest.approx(full, rel=0.15)


@wp.kernel
def hot_add(fp: wp.array(dtype=float), ip: wp.array(dtype=int), mask: int, as_float: int):
    i = wp.tid()
    h = wp.uint32(i) * wp.uint32(0x9E3779B1)
    word = int((h >> wp.uint32(16)) & wp.uint32(mask))
    if as_float == 1:
        wp.atomic_add(fp, word, 1.0)
    else:
        wp.atomic_add(ip, word, 1)


def _hot_add(words: int, as_float: int) -> int:
    n = 1 << 18
    return wp.launch(hot_add, n, [wp.zeros(max(words, 32)), wp.zeros(max(words, 32), dtype=int), words - 1,
                                  as_float], block_dim=256, device="cpu:precise").cycles


def test_float_atomics_of_every_warp_wait_only_where_lanes_repeat_a_word():
    """Every warp of the grid adds to the same words, each lane to one a hash of its thread
    picks (a group-by of few groups). On one word the float adder's wait serialises each
    update behind the last (the H200: 2.4x the integer adds, hot_words.py); spread over 32
    words (a few lanes a word in each sector), the waits of a word overlap the other words'
    turns, and float adds cost what integer ones cost (the H200: 1.01x)."""
    assert _hot_add(1, 1) > 2 * _hot_add(1, 0)
    assert _hot_add(32, 1) == pytest.approx(_hot_add(32, 0), rel=0.1)


@wp.kernel
def warp_on_word(fp: wp.array(dtype=float), ip: wp.array(dtype=int), mask: int, stride: int, as_float: int):
    i = wp.tid()
    h = wp.uint32(i / 32) * wp.uint32(0x9E3779B1)
    word = int((h >> wp.uint32(16)) & wp.uint32(mask)) * stride
    if as_float == 1:
        wp.atomic_add(fp, word, 1.0)
    else:
        wp.atomic_add(ip, word, 1)


def _warp_on_word(words: int, stride: int, as_float: int) -> int:
    n, size = 1 << 18, max(words * stride, 32)
    return wp.launch(warp_on_word, n, [wp.zeros(size), wp.zeros(size, dtype=int), words - 1, stride, as_float],
                     block_dim=256, device="cpu:precise").cycles


def test_float_atomics_of_a_warp_on_one_word_wait_only_behind_their_own_sector():
    """Each warp's 32 lanes add to one word a hash of the warp picks. All on one word, the
    float adder's wait serialises every update (an H100, atomic_hot.py: 3.5 cycles a lane
    against 1.45 for integers, 2.4x); the words a line apart, a few at each atomic unit, the
    update to another sector between two on one word hides the wait (the H100: 1.29x the
    integer adds)."""
    one = _warp_on_word(1, 1, 1) / _warp_on_word(1, 1, 0)
    lines = _warp_on_word(32, 32, 1) / _warp_on_word(32, 32, 0)
    assert one > 2.0
    assert lines < 1.5
