"""A plain loop issues, per iteration, the SASS instructions of the loop ptxas made of it
(sass_slots.py): the SASS table (simt.sass) is the oracle, not the op table."""
import numpy as np
import pytest

import simt as wp
from simt.arch import load_arch
from simt.gpu import sass
from simt.ir.mir import LaunchSig
from simt.sim.precise.program import prepare
from simt.sim.timing import model, sass_slots

pytestmark = pytest.mark.skipif(not sass.available(), reason="ptxas and a disassembler are needed")


@wp.kernel
def sines(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for _ in range(iters):
        v = wp.sin(v) * 1.01
    y[i] = v


@wp.kernel
def ramp(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for j in range(iters):
        v = v * 1.01 + float(j)
    y[i] = v


@wp.kernel
def branchy(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for _ in range(iters):
        if v > 0.5:
            v = wp.sin(v)
        else:
            v = wp.exp(v) * 0.1
    y[i] = v


@wp.kernel
def countdown(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for j in range(iters, 0, -1):
        v = v * 1.01 + float(j)
    y[i] = v


@wp.kernel
def either(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    w = x[i]
    for _ in range(iters):
        if w > 0.5:
            v = wp.sin(v) * 1.02
        else:
            v = wp.exp(v) * 0.2
    y[i] = v


def issued_per_iteration(kernel, value=0.5):
    """The model's issue slots a warp spends on one more iteration of the loop."""
    n = 1 << 12
    out = []
    for iters in (0, 64):
        x = wp.array(np.full(n, value, np.float32), device="cpu:precise")
        y = wp.zeros(n, dtype=float, device="cpu:precise")
        r = wp.launch(kernel, dim=n, inputs=[x, y, iters], device="cpu:precise")
        out.append(r.metrics["smsp__inst_issued.sum"])
    return (out[1] - out[0]) / (n // 32) / 64


def main_loop(kernel):
    df = wp.sass(kernel)
    loops = sass_slots._plain_sass_loops(df)
    return max(loops, key=lambda kl: len(kl[1]))[1]


@pytest.mark.parametrize("kernel, unroll", [(sines, 1), (ramp, 4), (countdown, 4)])
def test_an_iteration_issues_the_sass_loops_instructions(kernel, unroll):
    own = main_loop(kernel)
    counter_line = int(own["line"].iloc[-1])          # the back edge sits on the loop's line
    step = -1 if kernel is countdown else 1           # (a counter going down: IADD3 R2, R2, -0x4)
    assert sass_slots._unroll(own, counter_line, step) == unroll
    assert issued_per_iteration(kernel) == pytest.approx(len(own) / unroll, rel=0.05)


def test_a_loop_whose_body_branches_keeps_the_op_tables_slots():
    fn = branchy.compile(LaunchSig(1, 1))
    prog = prepare(fn)
    tab = model._tables(prog, load_arch("sm_90"))
    assert sass_slots.loop_scales(prog, wp.sass(branchy), tab) == {}


def test_a_loop_that_keeps_its_branch_issues_each_sides_sass():
    """ptxas keeps the branch of ``either`` in its loop (BSSY, two BRAs): an iteration down the
    sin side issues that side's SASS instructions, the exp side its own; the lines both sides
    share cost the same, so the difference per iteration is the two sides' SASS counts."""
    df = wp.sass(either)
    (k, own, lines), = sass_slots._innermost_sass_loops(df)
    assert k not in {j for j, _ in sass_slots._plain_sass_loops(df)}
    text = open(__file__).read().splitlines()
    then_line, else_line = (1 + next(n for n, t in enumerate(text) if t.strip() == stmt)
                            for stmt in ("v = wp.sin(v) * 1.02", "v = wp.exp(v) * 0.2"))
    counts = own["line"].value_counts()
    want = int(counts[then_line]) - int(counts[else_line])
    got = issued_per_iteration(either, 0.9) - issued_per_iteration(either, 0.1)
    assert got == pytest.approx(want, rel=0.05)
