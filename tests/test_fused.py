"""The precise engine's compiled pure blocks (simt/sim/precise/fused.py) against its numpy
ops: the same registers bit for bit, the same counters and cycles, on the suite kernels, on
random kernels, and on both of the engine's lane layouts (dense and compact)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simt
import simt as wp
from simt import suite
from simt.sim.precise import fused
from simt.sim.precise.program import prepare

PRECISE = "cpu:precise"


def _program(kernel):
    return prepare(kernel.compile())


_READY = fused.Fusion.ready


def _never(monkeypatch):
    """The numpy ops only, whatever a kernel's program compiled before (its fusion state is
    cached on the compiled kernel and outlives any change of HOT_STEPS)."""
    monkeypatch.setattr(fused.Fusion, "ready", lambda self, b: False)


def _at_once(monkeypatch):
    """Every pure block compiled from its first step."""
    monkeypatch.setattr(fused.Fusion, "ready", _READY)
    monkeypatch.setattr(fused, "HOT_STEPS", 1)


@pytest.fixture
def compiled_steps(monkeypatch):
    """The steps each call of the compiled step loop ran (appended as they run)."""
    steps = []
    run = fused.Fusion.run

    def spy(self, b, batch, step, *rest):
        out = run(self, b, batch, step, *rest)
        if out is not None:
            steps.append(out[2] - step)
        return out

    monkeypatch.setattr(fused.Fusion, "run", spy)
    return steps


def _same(a: dict, b: dict, what: str) -> None:
    for name, want in a.items():
        got = b[name]
        if want.dtype.kind == "f":
            same = (want.view(np.uint8) == got.view(np.uint8)).reshape(want.shape + (-1,)).all(-1)
            same |= np.isnan(want) & np.isnan(got)
        else:
            same = want == got
        assert same.all(), f"{what}: {name} differs at {np.argwhere(~same)[:3].tolist()}"


def _metrics_equal(a, b, what: str) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]), f"{what}: {k} {a[k]} != {b[k]}"


# suite kernels none of whose pure blocks run at the small size (straight-line code around
# memory accesses): there, both runs would be the numpy ops
NOTHING_COMPILES = {"vec_mat_quat", "stencil_2d", "arith_semantics", "transpose_tile",
                    "transpose_tile_padded"}


@pytest.mark.parametrize("case", [c for c in suite.CASES if c.name not in NOTHING_COMPILES],
                         ids=lambda c: c.name)
def test_suite_kernels_give_the_same_bits_and_cycles_compiled(case, monkeypatch, compiled_steps):
    _never(monkeypatch)
    plain = suite.run_case(case, "small", device=PRECISE, seed=3)
    assert not compiled_steps
    _at_once(monkeypatch)
    compiled = suite.run_case(case, "small", device=PRECISE, seed=3)
    assert sum(compiled_steps) >= 1, f"{case.name}: no block ran compiled"
    compiled.check()
    _same(plain.outputs, compiled.outputs, case.name)
    _metrics_equal(plain.result.metrics, compiled.result.metrics, case.name)


@wp.kernel
def escape(out: wp.array(dtype=wp.int32), counts: wp.array(dtype=wp.float32), width: wp.int32,
           limit: wp.int32):
    i = wp.tid()
    x = wp.float32(i % width) * 0.05 - 3.0
    y = wp.float32(i // width) * 0.05 - 1.6
    zx = wp.float32(0.0)
    zy = wp.float32(0.0)
    k = wp.int32(0)
    acc = wp.uint32(i)
    while k < limit:
        if zx * zx + zy * zy > 4.0:
            break
        t = zx * zx - zy * zy + x
        zy = 2.0 * zx * zy + y
        zx = t
        acc = acc * wp.uint32(1664525) + wp.uint32(1013904223)   # wraps
        k += 1
    out[i] = k + wp.int32(acc >> wp.uint32(28)) * wp.int32(0)
    counts[i] = wp.float32(acc % wp.uint32(977)) / wp.float32(k + 1)


def _escape_reference(n: int, width: int, limit: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(n)
    x = (i % width).astype(np.float32) * np.float32(0.05) - np.float32(3.0)
    y = (i // width).astype(np.float32) * np.float32(0.05) - np.float32(1.6)
    zx, zy = np.zeros(n, np.float32), np.zeros(n, np.float32)
    k = np.zeros(n, np.int32)
    acc = i.astype(np.uint32)
    live = np.ones(n, bool)
    for _ in range(limit):
        live &= ~(zx * zx + zy * zy > np.float32(4.0))
        t = zx * zx - zy * zy + x
        new_zy = np.float32(2.0) * zx * zy + y
        zx, zy = np.where(live, t, zx), np.where(live, new_zy, zy)
        acc = np.where(live, acc * np.uint32(1664525) + np.uint32(1013904223), acc)
        k += live
    counts = (acc % np.uint32(977)).astype(np.float32) / (k + 1).astype(np.float32)
    return k, counts


@pytest.mark.parametrize("n", [1024, 8192], ids=["few-warps", "many-warps"])
def test_a_divergent_loop_compiled_matches_numpy_and_the_numpy_ops(n, monkeypatch,
                                                                  compiled_steps):
    """Most lanes leave the loop early: late steps run a few warps, some of them partly
    (the compiled loop walks only the running warps' active lanes)."""
    width, limit = 128, 200
    runs = {}
    for mode in (_never, _at_once):
        mode(monkeypatch)
        assert not compiled_steps
        out = simt.zeros(n, dtype=wp.int32, device=PRECISE)
        counts = simt.zeros(n, dtype=wp.float32, device=PRECISE)
        result = simt.launch(escape, dim=n, inputs=[out, counts, width, limit], device=PRECISE,
                             block_dim=256)
        runs[mode.__name__] = ({"out": out.numpy(), "counts": counts.numpy()}, result.metrics)
    want_k, want_counts = _escape_reference(n, width, limit)
    np.testing.assert_array_equal(runs["_at_once"][0]["out"], want_k)
    np.testing.assert_array_equal(runs["_at_once"][0]["counts"], want_counts)
    _same(runs["_never"][0], runs["_at_once"][0], "escape")
    _metrics_equal(runs["_never"][1], runs["_at_once"][1], "escape")
    fusion = _program(escape).fusion
    assert fusion.run_steps is not None and fusion.failed is None
    assert sum(w >= 0 for w in fusion.which) >= 2       # the loop's test and its body
    assert sum(compiled_steps) >= 2 * want_k.max()      # every iteration ran compiled


def test_the_counters_are_the_same_compiled_with_the_timing_model_off(monkeypatch, compiled_steps):
    """With the timing model off nothing records the steps, and the compiled loop still
    counts each step's running warps (it once counted with a number left from another step:
    far too few warp instructions, and not the same from run to run)."""
    n, width, limit = 8192, 128, 200
    metrics = {}
    simt.set_module_options({"timing": False})
    try:
        for mode in (_never, _at_once, _at_once):
            mode(monkeypatch)
            out = simt.zeros(n, dtype=wp.int32, device=PRECISE)
            counts = simt.zeros(n, dtype=wp.float32, device=PRECISE)
            result = simt.launch(escape, dim=n, inputs=[out, counts, width, limit], device=PRECISE,
                                 block_dim=256)
            metrics.setdefault(mode.__name__, []).append(result.metrics)
    finally:
        simt.set_module_options({"timing": True})
    assert sum(compiled_steps) >= limit
    (plain,), (first, again) = metrics["_never"], metrics["_at_once"]
    _metrics_equal(plain, first, "escape, timing off")
    _metrics_equal(first, again, "escape, timing off, again")


def test_blocks_with_memory_or_collectives_stay_on_the_numpy_ops():
    @wp.kernel
    def mixed(a: wp.array(dtype=wp.float32), h: wp.array(dtype=wp.float16)):
        i = wp.tid()
        v = a[i] * 2.0
        if v > 1.0:
            v = v - 1.0
        a[i] = v
        h[i] = wp.float16(v)

    prog = _program(mixed)
    for blk, pure in zip(prog.blocks, prog.fusion.pure):
        ops = {ins.op.name for ins in blk.instrs}
        half = any(x.type.name == "F16" for ins in blk.instrs for x in (*ins.dsts, *ins.srcs))
        assert pure == (not ops & {"LD", "ST", "SREG"} and not half), (blk.label, ops)
    assert prog.fusion.pure.count(True) >= 1            # v - 1.0 under the branch


def test_a_short_launch_compiles_nothing():
    @wp.kernel
    def short(a: wp.array(dtype=wp.int32)):
        i = wp.tid()
        k = wp.int32(0)
        while k < 3:
            k += 1
        a[i] = k

    a = simt.zeros(64, dtype=wp.int32, device=PRECISE)
    simt.launch(short, dim=64, inputs=[a], device=PRECISE)
    assert list(a.numpy()) == [3] * 64
    assert _program(short).fusion.run_steps is None


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from simt import fuzz  # noqa: E402


@settings(max_examples=8, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fuzz.programs())
def test_random_kernels_give_the_same_bits_compiled(source):
    old = fused.HOT_STEPS
    try:
        fused.Fusion.ready = lambda self, b: False
        plain = fuzz.run(source, PRECISE)
        fused.Fusion.ready = _READY
        fused.HOT_STEPS = 1
        compiled = fuzz.run(source, PRECISE)
    finally:
        fused.Fusion.ready = _READY
        fused.HOT_STEPS = old
    found = fuzz.differences(plain, compiled, source=source)
    assert not found, "\n".join(found) + "\n\n" + source


def test_a_block_that_does_not_compile_runs_with_numpy_and_says_so(monkeypatch):
    """A gap in the translation must cost speed, never a wrong result or a traceback."""
    @wp.kernel
    def loop(a: wp.array(dtype=wp.int32)):
        i = wp.tid()
        k = wp.int32(0)
        s = wp.int32(0)
        while k < 100:
            s = s + k * i
            k += 1
        a[i] = s

    def broken(*_):
        raise fused.UnsupportedOp("no translation for this op")

    _at_once(monkeypatch)
    monkeypatch.setattr(fused, "generate", broken)
    a = simt.zeros(64, dtype=wp.int32, device=PRECISE)
    with pytest.warns(fused.CompileFallbackWarning, match="'loop'.*same results"):
        simt.launch(loop, dim=64, inputs=[a], device=PRECISE)
    np.testing.assert_array_equal(a.numpy(), np.arange(64) * 4950)
    assert "no translation" in _program(loop).fusion.failed


@wp.kernel
def stuck(a: wp.array(dtype=wp.int32), n: wp.int32):
    i = wp.tid()
    k = wp.int32(0)
    while k < n:          # k never changes: the same state every iteration
        k = k * wp.int32(1)
    a[i] = k


@wp.kernel
def counting(a: wp.array(dtype=wp.int32), n: wp.int32):
    i = wp.tid()
    k = wp.int32(0)
    while k >= 0:         # k changes every iteration (until it wraps): no repeated state
        k = k + n
    a[i] = k


def test_runaway_loops_are_stopped_the_same_compiled(monkeypatch, compiled_steps):
    """The compiled step loop hands the runaway watch and the step limit every step they
    must see: the same errors, after the same steps, as with the numpy ops."""
    source = Path(__file__).read_text().splitlines()
    loop_line = source.index("    while k < n:          # k never changes: the same state every iteration") + 1
    messages = []
    for mode in (_never, _at_once):
        mode(monkeypatch)
        a = simt.zeros(64, dtype=wp.int32, device=PRECISE)
        with pytest.raises(simt.StepLimitError, match=f"the loop at line {loop_line} never ends") as e:
            simt.launch(stuck, dim=64, inputs=[a, 5], device=PRECISE)
        simt.set_module_options({"max_steps": 3000})
        try:
            with pytest.raises(simt.StepLimitError, match="more than 3000 basic blocks") as e2:
                simt.launch(counting, dim=64, inputs=[a, 1], device=PRECISE)
        finally:
            simt.set_module_options({"max_steps": 1_000_000})
        messages.append((str(e.value), str(e2.value)))
        assert bool(compiled_steps) == (mode is _at_once)
    assert messages[0] == messages[1]
    assert int(messages[0][0].split("after ")[1].split(" ")[0]) < 4000
    assert _program(stuck).fusion.run_steps is not None
    assert _program(counting).fusion.run_steps is not None
