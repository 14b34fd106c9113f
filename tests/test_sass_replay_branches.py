"""The SASS-order replay (simt/sim/timing/sass_replay.py) of loops whose bodies branch in ways
ptxas resolves or predicates away: an ``if`` inside a then-block, a window that skips its
centre, registers reused across simt's own unrolled iterations, branches on the loop
counter. The kernels are the blind sets' (set 10's census transform, set 12's B-spline
weights); the outputs are checked against numpy."""
import sys
from pathlib import Path

import numpy as np
import pytest

import simt as wp
from simt.gpu import sass as sass_mod

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from timing.blind10.kernels_ml import census5x5  # noqa: E402
from timing.blind12.kernels import bspline_w  # noqa: E402

pytestmark = pytest.mark.skipif(not sass_mod.available(),
                                reason="needs ptxas and nvdisasm or cuobjdump (pip install simt[sass])")


def _census(monkeypatch, module, switch, value):
    from simt.sim.timing import replay_streams, sass_replay
    monkeypatch.setattr({"sass_replay": sass_replay, "replay_streams": replay_streams}[module], switch, value)
    img = np.random.default_rng(3).integers(0, 256, (32, 64)).astype(np.uint8)
    out = wp.zeros((32, 64), dtype=wp.uint32)
    census5x5.clear_cache()
    try:
        r = wp.launch(census5x5, dim=(32, 64), inputs=[wp.array(img), out], block_dim=(8, 32), device="cpu:precise")
    finally:
        census5x5.clear_cache()
    want = np.zeros((32, 64), np.uint32)          # numpy's census of the same image
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if dy or dx:
                y = np.clip(np.arange(32) + dy, 0, 31)[:, None]
                x = np.clip(np.arange(64) + dx, 0, 63)[None, :]
                want = (want << np.uint32(1)) | (img[y, x] < img).astype(np.uint32)
    np.testing.assert_array_equal(out.numpy(), want)
    return r.cycles, r.details["timing_schedule"]["loops"], r.metrics["smsp__inst_issued.sum"]


@pytest.mark.parametrize("switch", ["NESTED_THEN", "UNROLLED_TRIPS"])
def test_a_completely_unrolled_window_with_an_if_inside_an_if_replays_its_loads_together(monkeypatch, switch):
    """The census loop: its then-block (``if dy != 0 or dx != 0``) holds a branch of its own
    (``if img[y, x] < c``) to the same join, and its 24 loads over 5 iterations do not divide
    evenly (the centre is skipped). ptxas unrolled it completely and left no branch; the
    replay groups its 5 iterations as one (both switches needed) and waits out far fewer load
    latencies, issuing the same instructions."""
    off, loops_off, slots_off = _census(monkeypatch, "sass_replay", switch, False)
    on, loops_on, slots_on = _census(monkeypatch, "sass_replay", switch, True)
    assert loops_off == [] and [lp["unroll"] for lp in loops_on] == [5]
    assert slots_on == pytest.approx(slots_off, rel=1e-12)
    assert on < 0.8 * off


def test_a_group_renames_every_write_as_ptxas_allocates_values(monkeypatch):
    """simt's own unrolled ``dx`` iterations reuse one register for ``x`` and the loaded byte;
    renamed per copy only, each iteration's load waits (write after read) for the previous
    iteration's compare, and so for its load: one latency after another. Every write its own
    register lets the group's loads go first, as in the SASS."""
    off, loops_off, slots_off = _census(monkeypatch, "sass_replay", "SSA", False)
    on, loops_on, slots_on = _census(monkeypatch, "sass_replay", "SSA", True)
    assert [lp["unroll"] for lp in loops_off] == [lp["unroll"] for lp in loops_on] == [5]
    assert slots_on == pytest.approx(slots_off, rel=1e-12)
    assert on < 0.8 * off


def test_branches_ptxas_predicated_away_cost_no_resolve_time(monkeypatch):
    """In a group, the branch guarding a then-block is gone from the SASS (the group exists
    because it is): no warp waits for it to resolve."""
    off, _, slots_off = _census(monkeypatch, "replay_streams", "PREDICATED_BRANCHES", False)
    on, loops, slots_on = _census(monkeypatch, "replay_streams", "PREDICATED_BRANCHES", True)
    assert [lp["unroll"] for lp in loops] == [5] and slots_on == pytest.approx(slots_off, rel=1e-12)
    assert on < 0.9 * off


@wp.kernel
def spline_sum(coef: wp.array(dtype=float), t: wp.array(dtype=float), out: wp.array(dtype=float)):
    """A B-spline's weighted sum: the ``a`` loop's branches read only its counter; ptxas
    unrolls it completely and picks each copy's weight at compile time."""
    i = wp.tid()
    x = t[i]
    s = float(0.0)
    for a in range(4):
        w = bspline_w(x, a)
        for c in range(2):
            s += w * coef[(a * 2 + c) * 64 + i]
    out[i] = s


def test_a_loop_branching_on_its_counter_replays_each_copys_own_path(monkeypatch):
    """With STATIC_PATHS the loop's four iterations, each on the path its counter picks,
    replay as one group with their eight loads issued together (as the SASS, which has no
    branch left there, issues them); without, one load latency after another. The same
    instructions issue, and the sums are numpy's."""
    from simt.sim.timing import sass_replay
    rng = np.random.default_rng(0)
    coef, t = rng.random(8 * 64).astype(np.float32), rng.random(64).astype(np.float32)
    got = {}
    for on in (False, True):
        monkeypatch.setattr(sass_replay, "STATIC_PATHS", on)
        out = wp.zeros(64)
        spline_sum.clear_cache()
        try:
            r = wp.launch(spline_sum, dim=64, inputs=[wp.array(coef), wp.array(t), out], block_dim=64,
                          device="cpu:precise")
        finally:
            spline_sum.clear_cache()
        got[on] = (r.cycles, r.metrics["smsp__inst_issued.sum"], r.details["timing_schedule"]["paths"])
        w = [(1 - t) ** 3 / 6, (3 * t ** 3 - 6 * t ** 2 + 4) / 6, (-3 * t ** 3 + 3 * t ** 2 + 3 * t + 1) / 6, t ** 3 / 6]
        want = sum(w[a] * coef[(a * 2 + c) * 64 + np.arange(64)] for a in range(4) for c in range(2))
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)
    assert any(len(p["blocks"]) > 8 for p in got[True][2]) and not any(len(p["blocks"]) > 8 for p in got[False][2])
    assert got[True][1] == pytest.approx(got[False][1], rel=1e-12)
    assert got[True][0] < 0.6 * got[False][0]



def _sh_colours(d, sh):
    """numpy's degree-3 spherical-harmonic colours (the kernel's constants) of directions ``d``
    and coefficient-major coefficients ``sh`` [48, n]."""
    d = (d / np.sqrt((d * d).sum(axis=1, keepdims=True))).astype(np.float64)
    x, y, z = d.T
    xx, yy, zz = x * x, y * y, z * z
    s = [np.full_like(x, 0.28209479177387814), -0.4886025119029199 * y, 0.4886025119029199 * z,
         -0.4886025119029199 * x, 1.0925484305920792 * x * y, -1.0925484305920792 * y * z,
         0.31539156525252005 * (2 * zz - xx - yy), -1.0925484305920792 * x * z, 0.5462742152960396 * (xx - yy),
         -0.5900435899266435 * y * (3 * xx - yy), 2.890611442640554 * x * y * z,
         -0.4570457994644658 * y * (4 * zz - xx - yy), 0.3731763325901154 * z * (2 * zz - 3 * xx - 3 * yy),
         -0.4570457994644658 * x * (4 * zz - xx - yy), 1.445305721320277 * z * (xx - yy),
         -0.5900435899266435 * x * (xx - 3 * yy)]
    rgb = [0.5 + sum(s[k] * sh[3 * k + c] for k in range(16)) for c in range(3)]
    return np.maximum(np.stack(rgb, axis=1), 0.0)


def test_a_copied_loop_groups_no_more_iterations_than_it_runs(monkeypatch):
    """Set 8's spherical-harmonic colours (coefficient-major): three channels, each a 16-term
    dot product; simt's front end unrolls the channel loop, so three 16-trip loops share one
    source line, whose SASS (every loop unrolled by ptxas) holds all 48 loads. Read as one
    loop's unroll factor, 48 made a group no warp's 16 iterations filled, and the loads went
    one at a time (the model gave the launch 1.9x the H200's cycles). Capped at the trip
    count (``TRIPS_CAP``; the counter, set to 0 before each copy, read as one start:
    ``loop_trips.SAME_INITS``) each loop is one group of 16 with its loads in flight, sooner;
    the same instructions issue, and the colours are numpy's."""
    from simt.sim.timing import loop_trips, sass_replay
    from timing.blind8 import cases as c8
    from timing.blind8.kernels_ml import sh_color_soa
    inputs, n, block = c8.gaussians(1 << 14, True)(np.random.default_rng(1))
    mean, cx, cy, cz, sh = inputs[:5]
    want = _sh_colours(mean - np.float32([cx, cy, cz]), sh)
    got = {}
    for on in (False, True):
        monkeypatch.setattr(sass_replay, "TRIPS_CAP", on)
        monkeypatch.setattr(loop_trips, "SAME_INITS", on)
        out = wp.zeros((n, 3))
        sh_color_soa.clear_cache()
        try:
            r = wp.launch(sh_color_soa, dim=n, inputs=[wp.array(mean), cx, cy, cz, wp.array(sh), out],
                          block_dim=block, device="cpu:precise")
        finally:
            sh_color_soa.clear_cache()
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
        got[on] = (r.cycles, r.metrics["smsp__inst_issued.sum"],
                   sorted(lp["unroll"] for lp in r.details["timing_schedule"]["loops"]))
    assert got[True][2] == [16, 16, 16] and got[False][2] == [48, 48, 48]
    assert got[True][1] == pytest.approx(got[False][1], rel=1e-12)
    assert got[True][0] < 0.8 * got[False][0]
