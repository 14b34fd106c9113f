"""A flag every warp stores, in the timing model, through real kernels (benchmarks/timing/
hot_stores.py measured each on the H200):

- a sweep whose warps each store 1 to one flag word after their load takes longer than the
  same sweep storing to a word per warp, and than the sweep alone: each SM's store of the
  flag waits for its last one's acknowledgement, and holds the SM's requests behind it;
- flags spread over 64 lines cost less than one flag (a line comes back to an SM after its
  last store's acknowledgement), 8 lines cost about what one does (they come back within it);
- flag stores back to back, nothing between them, go together: the flag alone costs little
  more than a word per warp;
- only stores to the same words wait: warps that store one word each of a shared sector (a
  result per warp) run as a word per line does;
- a sweep held behind its flag names the SM's memory queue as its limiter (lg_queue), not
  latency or occupancy.

The tests compare orderings and the model with itself, not constants.
"""
import numpy as np

import simt as wp

N = 1 << 18


@wp.kernel
def flag_stream(x: wp.array(dtype=int), y: wp.array(dtype=int), flag: wp.array(dtype=int), lines: int,
                spread: int, stream: int):
    i = wp.tid()
    w = i >> 5
    v = int(0)
    if stream != 0:
        v = x[i]
        y[i] = v + 1
    if v >= 0:
        flag[(w % lines) * spread] = 1


def _cycles(lines: int, spread: int, stream: int = 1) -> int:
    a = [wp.zeros(N, dtype=int) for _ in range(3)]
    return wp.launch(flag_stream, N, [*a, lines, spread, stream], block_dim=256, device="cpu:precise").cycles


def test_a_flag_every_warp_stores_slows_a_sweep():
    one = _cycles(1, 32)
    own = _cycles(N // 32, 32)             # a word of its own, a line each
    assert one > 1.5 * own
    assert own >= 0.9 * _cycles(N // 32, 32, stream=1)


def test_flags_over_many_lines_cost_less_than_one():
    one, eight, many = _cycles(1, 32), _cycles(8, 32), _cycles(64, 32)
    assert many < 0.8 * one
    assert eight > 0.6 * one


def test_back_to_back_flags_go_together():
    assert _cycles(1, 32, stream=0) < 1.3 * _cycles(N // 32, 32, stream=0)


def test_a_word_per_warp_in_a_shared_sector_does_not_wait():
    shared = _cycles(N // 32, 1)           # warp w stores word w: eight warps a sector
    assert shared < 1.2 * _cycles(N // 32, 32)


def test_a_sweep_held_behind_its_flag_names_the_memory_queue():
    # no unit is busy: the flagged sweep's warps wait for room in the SM's global-memory queue,
    # held behind the flag stores, which more resident warps would not hide; the same sweep
    # storing a word per warp is not limited by that queue
    n = 1 << 20
    runs = {}
    for lines in (1, n // 32):
        a = [wp.zeros(n, dtype=int) for _ in range(3)]
        runs[lines] = wp.launch(flag_stream, n, [*a, lines, 32, 1], block_dim=256, device="cpu:precise")
    held = runs[1].bottleneck
    assert held["limiter"] == "lg_queue", held["why"]
    assert "lg_throttle" in held["why"]
    assert runs[n // 32].bottleneck["limiter"] != "lg_queue"
