"""A MIR instruction that stands for many SASS instructions holds its pipe for longer than it
issues; other warps' instructions for that pipe go between the burst's (scheduling.hold_pipe).
The pipe's rate is the oracle for the unit tests (no more work leaves it than its busy cycles
allow); the H200's measured cycles of set 12's back-projection for the launch."""
import sys
from pathlib import Path

import numpy as np
import pytest

import simt as wp
from simt.gpu import sass
from simt.sim.timing import model
from simt.sim.timing.scheduling import hold_pipe

N_PIPES = 3
ALU = 1


def _pipes():
    p = np.zeros((1, 2 * N_PIPES + 1))
    p[0, N_PIPES] = -np.inf
    return p


def _issue(p, T, busy, stretch):
    """Issue at the later of T and when the pipe takes the next instruction; return that."""
    t = max(T, p[0, ALU])
    hold_pipe(p, 0, ALU, N_PIPES, t, busy, stretch)
    return t


def test_single_instructions_wait_for_the_pipe_as_before():
    """Without stretch each instruction waits for the one before to leave the pipe: back to
    back, one every ``busy`` cycles."""
    p = _pipes()
    starts = [_issue(p, 0.0, 2.0, 0.0) for _ in range(5)]
    assert starts == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_an_instruction_goes_between_a_bursts():
    """A burst of 15 ALU instructions (30 cycles of the pipe, 16 issue slots) and then
    another warp's single ALU instruction: it goes in when the burst has issued, not when its
    pipe work ends, and the burst's end moves back by its two cycles."""
    p = _pipes()
    _issue(p, 0.0, 30.0, 14.0)
    t = _issue(p, 16.0, 2.0, 0.0)
    assert t == 16.0
    assert p[0, N_PIPES + 1 + ALU] == 32.0
    # and the next single one still goes in: what is left of the burst is still spread out
    assert _issue(p, 18.0, 2.0, 0.0) == 18.0
    assert p[0, N_PIPES + 1 + ALU] == 34.0


def test_bursts_keep_the_pipes_rate():
    """However instructions are spread, the pipe finishes no more work than its busy cycles:
    after any stream of issues the queue ends at or after the sum of their busy cycles, and
    no instruction issues before the work queued ahead of it minus the longest stretch."""
    rng = np.random.default_rng(3)
    p = _pipes()
    total, t = 0.0, 0.0
    for _ in range(500):
        busy = float(rng.choice([2.0, 2.0, 4.0, 30.0]))
        stretch = max(0.0, busy - 16.0) if busy > 16.0 else 0.0
        queued = p[0, N_PIPES + 1 + ALU]
        t = _issue(p, t + float(rng.integers(0, 3)), busy, stretch)
        assert t >= queued - 14.0 - 1e-9
        total += busy
    end = p[0, N_PIPES + 1 + ALU]
    assert end >= total
    assert end <= total + t          # no idle time the stream did not leave


def test_a_kernel_without_bursts_keeps_its_cycles(monkeypatch):
    """A loop of single ALU instructions (shifts and XORs, each one SASS instruction) has no
    bursts: spreading them changes its cycles by little."""
    @wp.kernel
    def xorshift(a: wp.array(dtype=wp.uint32)):
        i = wp.tid()
        x = a[i]
        for _ in range(64):
            x = x ^ (x << wp.uint32(13))
            x = x ^ (x >> wp.uint32(17))
            x = x ^ (x << wp.uint32(5))
        a[i] = x

    def cycles(on):
        monkeypatch.setattr(model, "PIPE_STRETCH", on)
        a = wp.array(np.arange(1, 1 + 8192, dtype=np.uint32))
        return wp.launch(xorshift, dim=8192, inputs=[a], block_dim=256, device="cpu:precise").cycles

    on, off = cycles(True), cycles(False)
    assert on <= off * 1.02
    assert on >= off * 0.9


@pytest.mark.skipif(not sass.available(), reason="ptxas and a disassembler are needed")
def test_back_projection_runs_at_the_h200s_cycles(monkeypatch):
    """Set 12's back-projection at 512^2: each angle's cosine and sine are a conversion
    whose SASS is mostly ALU instructions on one line. Held as one burst, that conversion
    kept the other warps' ALU instructions out for 30 cycles; the warps waited twice as long
    on their loads (long-scoreboard stalls per issue 17.8, spread 8.8) and the launch took
    1.9x the H200's cycles (1.4x since each pipe the block's SASS uses has an instruction of
    its own: sass_pipes.EVERY_PIPE). With the burst spread it is within 15%."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from simt.calibrate import ncu_csv
    from timing import cases as bc
    from timing.blind12 import cases as c12
    meas = ncu_csv.load("blind12", Path(__file__).resolve().parent.parent / "benchmarks/timing/data/h200")
    h200 = float(meas.loc[meas["name"] == "bp_trig@512", "sm__cycles_elapsed.max"].iloc[0])
    launch = next(x for x in c12.LAUNCHES if x.name == "bp_trig@512")

    def ratio(on):
        monkeypatch.setattr(model, "PIPE_STRETCH", on)
        _, r = bc.run(launch, "cpu:precise")
        return r.metrics["sm__cycles_elapsed.max"] / h200

    assert ratio(True) == pytest.approx(1.0, abs=0.15)
    assert ratio(False) > 1.3
