"""A warp's 8- or 16-byte global load goes back to the registers in phases of 128 bytes (half-
or quarter-warps), one a cycle of the SM's L1 data stage, even where its lanes share one word.
The oracle: the hand count of the phases, and the GPU's measurement of
simt/calibrate/cuda/fp64_operands.cu (benchmarks/timing/data/h100/fp64_operands): at 16 warps a
scheduler, a warp's 64-bit load of one word keeps an SM's L1 busy about twice as long as its
32-bit load of one word (the L1's throughput times the cycles a step, 2.1x)."""
from typing import Any

import numpy as np
import pytest

import simt as wp
from benchmark_scripts import ROOT
from simt.calibrate import ncu_csv
from simt.sim.timing import recorder

BLOCK, GRID = 256, 8 * 132            # 8 blocks an SM: 16 warps a scheduler


def phases(lanes, span):
    """The L1 data stage's cycles the recorder gives one warp's load (lane addresses, -1: off)."""
    rows = np.array(lanes, np.int64).reshape(1, 32)
    sec, w, n = np.empty(64, np.int64), np.empty(64, np.int16), np.empty(1, np.int64)
    recorder._sectors(rows, sec, w, 0, n, 0, span, True)
    return int(w[0])


def test_a_load_of_one_word_takes_a_cycle_a_phase():
    one = [4096] * 32
    assert phases(one, 4) == 1                                  # 128 bytes: one phase
    assert phases(one, 8) == 2                                  # two half-warps
    assert phases(one, 16) == 4                                 # four quarter-warps
    assert phases([4096] * 16 + [-1] * 16, 8) == 1              # one half-warp active
    assert phases([4096 if i % 2 else -1 for i in range(32)], 8) == 2
    # where the lanes read their own words the banks already count as many
    assert phases([4096 + 8 * i for i in range(32)], 8) == 2
    assert phases([4096 + 16 * i for i in range(32)], 16) == 4


@wp.kernel
def two_words(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any), n: int):
    """Every warp adds two words the whole warp loads, a step."""
    s = a[0]
    t = b[0]
    for k in range(n - 1, 0, -1):
        s = s + a[k]
        t = t + b[k]
    out[wp.tid()] = s + t


def step_cycles(dtype) -> float:
    c = []
    for n in (32, 96):
        args = [wp.array(np.full(256, 0.5, dtype)), wp.array(np.full(256, 0.25, dtype)),
                wp.zeros(GRID * BLOCK, dtype=wp.float64 if dtype == np.float64 else wp.float32), n]
        c.append(wp.launch(two_words, GRID * BLOCK, args, block_dim=BLOCK, device="cpu:precise").cycles)
    return (c[1] - c[0]) / 64


def gpu_l1_per_load() -> float:
    """The GPU's L1 busy cycles a 64-bit load of one word over a 32-bit one's (ldg64, ldg32)."""
    data = ROOT / "benchmarks" / "timing" / "data" / "h100" / "fp64_operands"
    df, det = ncu_csv.load("fp64_operands", data), ncu_csv.load("fp64_operands_detail", data)
    busy = {}
    for bench in ("ldg64", "ldg32"):
        i = df.index[(df.bench == bench) & (df.value == 256)][0]
        busy[bench] = (df.loc[i, "sm__cycles_elapsed.max"]
                       * det.loc[i, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"])
    return busy["ldg64"] / busy["ldg32"]


def test_loads_of_one_64_bit_word_are_bound_by_the_l1s_phases(monkeypatch):
    assert gpu_l1_per_load() > 1.8                      # the GPU: two phases against one
    wide, narrow = step_cycles(np.float64), step_cycles(np.float32)
    assert wide > 1.15 * narrow
    monkeypatch.setattr(recorder, "WRITEBACK", False)   # a phase for the whole warp
    assert step_cycles(np.float64) < 1.05 * narrow
