"""Each source line's work takes the pipes its SASS takes (sass_pipes.py): the SASS table
(simt.sass) and the H200's own pipe counts are the oracles, not the op table."""
import sys
from pathlib import Path

import numpy as np
import pytest

import simt as wp
from simt.arch import load_arch
from simt.gpu import sass
from simt.sim.timing import isa, model, sass_pipes

# the measured sets' own kernels: the H200's counts below are theirs
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from timing.blind16 import cases as c16  # noqa: E402
from timing.blind16.kernels_apps import ssao  # noqa: E402

pytestmark = pytest.mark.skipif(not sass.available(), reason="ptxas and a disassembler are needed")

ALU = "sm__inst_executed_pipe_alu.sum"


@wp.kernel
def clamped_indices(x: wp.array(dtype=float), out: wp.array(dtype=int), w: int):
    """Straight-line code, every line a float-to-int conversion clamped to [0, w): on the op
    table an FMA multiply, an XU conversion and two ALU min/max; in the SASS mostly ALU."""
    i = wp.tid()
    v = x[i]
    a = wp.clamp(int(v * 3.0), 0, w - 1)
    b = wp.clamp(int(v * 5.0), 0, w - 1)
    c = wp.clamp(int(v * 7.0), 0, w - 1)
    d = wp.clamp(int(v * 11.0), 0, w - 1)
    out[i] = a ^ b ^ c ^ d


def _run(kernel, inputs, dim, block, pipes: bool):
    model.SASS_PIPES = pipes
    try:
        return wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:precise")
    finally:
        model.SASS_PIPES = True


def test_opcode_table_names_known_pipes_once():
    """Every opcode of the architecture files' table takes one of the model's pipes, and
    none takes two."""
    for name in ("sm_90", "sm_80"):
        table = load_arch(name).data["timing"]["sass_pipes"]
        assert set(table) <= set(isa.PIPES)
        ops = [op for group in table.values() for op in group]
        assert len(ops) == len(set(ops))
        assert {"LOP3", "ISETP", "SEL"} <= set(table["alu"]) and "IMAD" in table["imad"]


def test_alu_instructions_follow_the_sass_of_straight_code():
    """Without loops each thread runs every SASS instruction once: the ALU pipe's warp
    instructions are the SASS table's ALU rows times the warps (hand count from simt.sass),
    where the op table's pipes put under two thirds of them there."""
    n = 4096
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32) * 100.0
    out = wp.zeros(n, dtype=int)
    inputs = [wp.array(x), out, np.int32(200)]
    df = wp.sass(clamped_indices)
    alu_ops = set(load_arch("sm_90").data["timing"]["sass_pipes"]["alu"])
    per_warp = int(df["opcode"].isin(alu_ops).sum())
    want = per_warp * n // 32
    on = _run(clamped_indices, inputs, n, 256, True)
    off = _run(clamped_indices, inputs, n, 256, False)
    each = np.clip((x[:, None] * np.float32([3, 5, 7, 11])).astype(np.int32), 0, 199)
    np.testing.assert_array_equal(out.numpy(), np.bitwise_xor.reduce(each, axis=1))
    assert on.metrics[ALU] == pytest.approx(want, rel=0.15)
    assert off.metrics[ALU] < 0.67 * want


def test_ssao_alu_share_is_the_h200s():
    """Set 16's SSAO: 44% of the warp instructions the H200 executed took the ALU pipe
    (Nsight Compute, data/h200/blind16.csv). With each line's pipes from its SASS the model
    puts the same share there (at a smaller image: the share does not depend on its size);
    with the op table's pipes, about a quarter. More ALU work, the same instructions: the
    launch takes longer."""
    from simt.calibrate import ncu_csv
    meas = ncu_csv.load("blind16", Path(__file__).resolve().parent.parent / "benchmarks/timing/data/h200")
    row = meas[meas["name"] == "ssao_r48@2048"].iloc[0]
    h200 = row[ALU] / row["smsp__inst_executed.sum"]
    launch = c16.Launch("ssao_r48@256", ssao, c16.ssao(256, 48.0), "l2", c16.SS_T)
    on = _run(ssao, *c16.instantiate(launch, "cpu:precise", 0), True)
    off = _run(ssao, *c16.instantiate(launch, "cpu:precise", 0), False)
    share = {k: r.metrics[ALU] / r.metrics["smsp__inst_issued.sum"] for k, r in (("on", on), ("off", off))}
    assert share["on"] == pytest.approx(h200, abs=0.05)
    assert share["off"] < h200 - 0.1
    assert on.metrics["smsp__inst_issued.sum"] == pytest.approx(off.metrics["smsp__inst_issued.sum"], rel=1e-9)
    assert on.cycles > off.cycles


def test_without_line_info_nothing_changes():
    """The documented fallback: a SASS table without source lines leaves the op table's pipes."""
    import pandas as pd
    df = pd.DataFrame({"opcode": ["LOP3"], "line": [-1]})
    assert sass_pipes.apply(None, df, None, load_arch("sm_90")) == 0
    assert sass_pipes.apply(None, None, None, load_arch("sm_90")) == 0


def test_a_blocks_lines_pool_their_sass(monkeypatch):
    """Set 7's block rank sort: the loop's ``if u < v or (u == v and j < t)`` line has one
    SASS instruction (an ISETP: the ALU) and its two FSETPs sit on the ``for`` line. Per
    line, the compare line's slots all went to the ALU (72% of the instructions there);
    pooled over the loop block's lines the share is the H200's (55%: Nsight Compute's pipe
    counts of the launch, data/h200/pipes)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "timing"))
    import pipe_mix
    from timing.blind7 import cases as c7
    pipes = pipe_mix.launches()
    h200 = float(pipes.loc[pipes["launch"] == "sort_rank@4M", "alu share"].iloc[0])
    launch = next(x for x in c7.LAUNCHES if x.name == "sort_rank@4M")
    small = c7.Launch(launch.name, launch.kernel, c7.block_keys(1 << 16), launch.limiter, launch.dtypes)

    def share(pool: bool) -> float:
        monkeypatch.setattr(sass_pipes, "POOL", pool)
        inputs, dim, block = c7.instantiate(small, "cpu:precise", 0)
        r = wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:precise")
        return r.metrics[ALU] / r.metrics["smsp__inst_issued.sum"]

    assert share(True) == pytest.approx(h200, abs=0.05)
    assert share(False) > h200 + 0.1


def _adu_share_h200(launch: str) -> float:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "timing"))
    import pipe_mix
    for _, m, r in pipe_mix.profiled():
        if m["name"] == launch:
            return r["sm__inst_executed_pipe_adu.sum"] / r["smsp__inst_executed.sum"]
    raise KeyError(launch)


def test_constant_loads_under_a_branch_take_the_adu(monkeypatch):
    """Set 3's Sobol generator with a branch a bit: under each bit's predicate ptxas reloads
    the direction table's address and row stride from the constant bank (LDC), and those
    loads take the SM's ADU (one every 2 cycles an SM: adu_tput.cu). On the H200 21% of the
    launch's warp instructions are ADU ones (Nsight Compute, data/h200/pipes/pipes_blind3.csv)
    and it runs 1.46x as long as the branch-free version of the same generator
    (data/h200/blind3.csv). The model puts the same share on the ADU, names it the
    bottleneck and keeps the pair's order; without the ADU it reversed the pair."""
    from timing.blind3 import cases as c3
    from timing.blind3 import kernels as k3
    h200 = _adu_share_h200("sobol_branch@2x1M")

    def run(kernel, adu: bool):
        monkeypatch.setattr(sass_pipes, "ADU", adu)
        launch = c3.Launch("sobol", kernel, c3.sobol(2, 1 << 16), "issue")
        inputs, dim, block = c3.instantiate(launch, "cpu:precise", 0)
        return wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:precise")

    branch, mask = run(k3.sobol_branch, True), run(k3.sobol_mask, True)
    share = branch.metrics["sm__inst_executed_pipe_adu.sum"] / branch.metrics["smsp__inst_issued.sum"]
    assert share == pytest.approx(h200, abs=0.04)
    assert branch.bottleneck["limiter"] == "adu"
    assert mask.bottleneck["limiter"] != "adu"
    assert branch.cycles > 1.1 * mask.cycles
    assert run(k3.sobol_branch, False).cycles < run(k3.sobol_mask, False).cycles


def test_every_pipe_the_sass_has_work_for_gets_an_instruction(monkeypatch):
    """Set 3's separable convolution: one ADD carries 11 of the loop block's 12 issue slots
    (ptxas's unrolled taps), beside a SUB and three one-tenth-slot compares; the SASS puts 22%
    of the block's instructions on the ADU and 15% on the FMA pipe. Each pipe's work is carried
    whole (the units on its instructions add up to its share of the slots), where keeping the
    compares on the ALU left the ADU's and the FMA pipe's work on no instruction at all."""
    slots = np.array([11.24, 0.59, 0.12, 0.12, 0.11])
    own = np.array([isa.PIPES.index(p) for p in ("alu", "imad", "alu", "alu", "alu")])
    mix = dict(fma=0.151, alu=0.316, imad=0.151, adu=0.222)
    demand = np.array([mix.get(p, 0.0) for p in isa.PIPES]) * (slots.sum() + 1.0)   # and the branch's slot

    def carried(every: bool) -> dict[str, float]:
        monkeypatch.setattr(sass_pipes, "EVERY_PIPE", every)
        pipe, units = sass_pipes._assign(slots, own, demand)
        return {p: float(units[pipe == isa.PIPES.index(p)].sum()) for p in mix}

    on, off = carried(True), carried(False)
    for p, share in mix.items():
        assert on[p] == pytest.approx(share * (slots.sum() + 1.0))
    assert off["adu"] == 0.0 and off["fma"] == 0.0
