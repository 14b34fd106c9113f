"""A loop of global reductions (atomics whose old value nothing reads: ptxas issues REDG, a
write, as it issues a store) replays in the order ptxas issues it: unrolled, the copies'
address arithmetic interleaved, as a store loop is. The oracle is the H200's measurement of
benchmarks/timing/atomic_own_line.cu (data/h200/atomic_own_line.csv): a warp alone on its SM
adding to a new line of its own each step takes 16.9 cycles a step, where replaying the MIR
one iteration after another waited out each iteration's address chain (1.9x)."""
import pytest

import simt as wp
from benchmark_scripts import ROOT, timing_script
from simt.calibrate import ncu_csv
from simt.gpu import sass
from simt.sim.timing import sass_replay

atomic_own_line = timing_script("atomic_own_line")

needs_sass = pytest.mark.skipif(not sass.available(), reason="ptxas and a disassembler are needed")
CYC = "sm__cycles_elapsed.max"


def gpu_step(bench: str, warps: int) -> float:
    """The H200's cycles a step: the launch of 64 steps less the one of 16, over 48."""
    df = ncu_csv.load("atomic_own_line", ROOT / "benchmarks" / "timing" / "data" / "h200")
    g = df[(df.bench == bench) & (df.block == 32 * warps)].sort_values("value")
    return float((g[CYC].iloc[-1] - g[CYC].iloc[0]) / (g.value.iloc[-1] - g.value.iloc[0]))


def model_step(bench: str, warps: int) -> float:
    c = [atomic_own_line.predict(bench, 132, 32 * warps, n, None) for n in (16, 64)]
    return (c[1] - c[0]) / 48


@needs_sass
def test_a_lone_warps_reduction_loop_runs_at_the_h200s_rate(monkeypatch):
    on = model_step("new", 1)
    assert on == pytest.approx(gpu_step("new", 1), rel=0.25)
    monkeypatch.setattr(sass_replay, "REDUCTIONS", False)
    assert model_step("new", 1) > 1.5 * on          # one iteration after another


@wp.kernel
def _returned(p: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32), n: int):
    t = wp.tid()
    s = wp.uint32(0)
    for i in range(n):
        s = s + wp.atomic_add(p, (t >> 5) * 2048 + (i & 63) * 32 + (t & 31), wp.uint32(1))
    out[t] = s


@needs_sass
def test_only_loops_whose_atomics_return_nothing_are_regrouped():
    table = wp.zeros(132 * 2048, dtype=wp.uint32)
    red = wp.launch(atomic_own_line.KERNELS["new"], 132 * 32, [table, 16], block_dim=32, device="cpu:precise")
    assert red.details["timing_schedule"]["replay"] == "sass"
    assert red.details["timing_schedule"]["loops"][0]["unroll"] >= 2
    ret = wp.launch(_returned, 132 * 32, [table, wp.zeros(132 * 32, dtype=wp.uint32), 16], block_dim=32,
                    device="cpu:precise")
    assert ret.details["timing_schedule"]["loops"] == []      # its ATOMs' values feed the sum
