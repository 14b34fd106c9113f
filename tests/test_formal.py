"""simt.verify: verdicts on a corpus of correct kernels and seeded-bug mutants, every
counterexample replayed on cpu:precise; the CLI; the C harness for CBMC.

The full corpus (87 kernels, a few minutes) runs with SIMT_FORMAL_FULL=1; by default a quick
subset that covers bounds, races, barriers and both kinds of loop.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("z3")

import simt  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from formal_corpus.kernels import (PAIRS, SINGLES, countdown, tree_reduce, saxpy,  # noqa: E402
                                   transpose_tile, TRANSPOSED)

QUICK = {"tiles_m", "copy_guarded", "copy_off_by_one", "tree_reduce", "tree_reduce_no_sync",
         "tree_reduce_divergent_sync", "histogram_unguarded", "thread_dependent_sync",
         "sum_rows", "sum_rows_inclusive", "gather_unchecked", "per_block_same_slot",
         # lanes of a warp storing to one element in one instruction: different values are a
         # bug (the replay's WAW_LANES), one value is not
         "halves_collide", "halves_same_value",
         # n-D blocks, a 3-D dim; a grid-stride loop's races
         "transpose_tile", "transpose_tile_no_sync", "stencil_2d_edge", "volume_3d_swapped",
         "strided_scale", "strided_scale_block_stride",
         # CUDA's while-loop spelling: a stride of block_dim only races across blocks; the
         # grid stride recomputed in the loop only after a first step of block_dim is no
         # invariant
         "stride_while_block", "stride_while_stored_late"}
FULL = os.environ.get("SIMT_FORMAL_FULL") == "1"


def cases():
    seen = set()
    for good, bad, kw, check in PAIRS:
        for k, broken in ((good, None), (bad, check)):
            if k.key in seen or (not FULL and k.key not in QUICK):
                continue
            seen.add(k.key)
            yield pytest.param(k, kw, broken, id=k.key)
    for k, kw in SINGLES:
        if FULL or k.key in QUICK:
            yield pytest.param(k, kw, None, id=k.key)


def test_corpus_size():
    correct = {good.key for good, _, _, _ in PAIRS} | {k.key for k, _ in SINGLES}
    mutants = {bad.key for _, bad, _, _ in PAIRS}
    assert not correct & mutants
    assert len(correct) + len(mutants) >= 60 and len(correct) >= 30 and len(mutants) >= 30


@pytest.mark.parametrize("kernel,kw,broken", list(cases()))
def test_corpus_verdict(kernel, kw, broken):
    report = simt.verify(kernel, **kw)
    verdicts = {c: report.verdict(c) for c in report.checks}
    for check, verdict in verdicts.items():
        if verdict == "unsafe":
            cex = report.counterexample(check)
            assert cex is not None and cex.reproduces(), (check, cex)
    if broken is None:
        assert "unsafe" not in verdicts.values(), report
    else:
        assert verdicts[broken] == "unsafe", report
        replay = report.counterexample(broken).replay()
        if broken == "bounds":
            assert isinstance(replay, simt.OutOfBoundsError)
        else:
            assert len(replay[replay["check"] == {"race": "race", "barrier": "sync"}[broken]]) > 0


def test_correct_kernels_proved():
    """The checks of the quick subset's correct kernels are all proved."""
    for kernel, kw in ((tree_reduce, dict(block_dim=64, assume=("out.shape[0] * 64 >= dim[0]",
                                                                  "dim[0] <= x.shape[0]"))),
                       (saxpy, dict(block_dim=64, assume=("n <= x.shape[0]", "n <= y.shape[0]")))):
        report = simt.verify(kernel, **kw)
        assert all(report.verdict(c) == "safe" for c in report.checks), report
        assert {"bounds", "race"} <= set(report.verdicts["check"])
        assert ("barrier" in set(report.verdicts["check"])) == (kernel is tree_reduce)
    # what "safe" promises, against the sanitizers on launches the assumptions allow
    rng = np.random.default_rng(0)
    for dim in (1, 63, 130):
        x = simt.array(rng.standard_normal(dim + int(rng.integers(0, 5))).astype(np.float32))
        out = simt.zeros(-(-dim // 64))
        result = simt.launch(tree_reduce, dim=dim, inputs=[x, out], block_dim=64,
                             device="cpu:precise", check="all")
        assert len(result.hazards[result.hazards["check"] != "init"]) == 0


def test_missing_assumption_is_a_bug_with_a_counterexample():
    report = simt.verify(saxpy, block_dim=64, checks="bounds")
    cex = report.counterexample("bounds")
    assert report.verdict("bounds") == "unsafe"
    n, shape = cex.scalars["n"], min(cex.shapes["x"][0], cex.shapes["y"][0])
    assert n > shape            # the guard i < n lets a thread past the shorter array


def test_int32_wraparound_found():
    """countdown starts at n - 1: with n = -2**31 that wraps to 2**31 - 1, past any array."""
    report = simt.verify(countdown, block_dim=64, assume=("n <= x.shape[0]",), checks="bounds")
    cex = report.counterexample("bounds")
    assert report.verdict("bounds") == "unsafe"
    assert cex.scalars["n"] < 0 and isinstance(cex.replay(), simt.OutOfBoundsError)
    assert simt.verify(countdown, block_dim=64, assume=("0 <= n", "n <= x.shape[0]"),
                       checks="bounds").verdict("bounds") == "safe"


def test_vacuous_and_bad_assumptions():
    report = simt.verify(saxpy, block_dim=64, assume=("n > 5", "n < 3"))
    assert report.verdict("bounds") == "vacuous"
    with pytest.raises(simt.SimtError, match="unknown name 'm'"):
        simt.verify(saxpy, assume=("m < 3",))
    with pytest.raises(simt.SimtError, match="unknown check"):
        simt.verify(saxpy, checks=("speed",))


def test_cli_exit_status(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("import simt as wp\n\n@wp.kernel\ndef f(n: int, x: wp.array(dtype=float)):\n"
                   "    i = wp.tid()\n    if i < n:\n        x[i] = 1.0\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    run = lambda *a: subprocess.run([sys.executable, "-m", "simt", "verify", f"{src}::f", "--block-dim", "32", *a],  # noqa: E731
                                    capture_output=True, text=True, env=env)
    assert run("--assume", "n <= x.shape[0]").returncode == 0
    bad = run()
    assert bad.returncode == 1 and "bounds unsafe" in bad.stdout
    assert run("--assume", "n <=").returncode == 2
    assert run("--assume", "n > 5", "--assume", "n < 3").returncode == 4      # vacuous


def test_missing_solver_names_the_extra(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_z3(name, *args, **kwargs):
        if name == "z3":
            raise ImportError("no z3")
        return real(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_z3)
    with pytest.raises(simt.SimtError, match=r"simt\[verify\]"):
        simt.verify(saxpy)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_to_c_compiles(tmp_path):
    for kernel in (tree_reduce, saxpy):
        path = tmp_path / f"{kernel.key}.c"
        path.write_text(simt.to_c(kernel, harness="cbmc", block_dim=64))
        out = subprocess.run(["gcc", "-std=c11", "-Wall", "-Werror", "-Wno-unused-label",
                              "-Wno-unused-variable", "-Wno-unused-but-set-variable", "-c",
                              str(path), "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert "__CPROVER_assert" in path.read_text()
    with pytest.raises(simt.SimtError, match="harness"):
        simt.to_c(saxpy, harness="klee")


def test_proved_where_the_old_limits_were():
    """Each proved safe for any launch extents: a transpose through shared memory in 16x16
    blocks and a 2-D stencil (an n-D array's index as its coordinates), a grid-stride
    loop's races (the residue of the index modulo the stride is each thread's own), lanes
    storing one value to one element."""
    from formal_corpus.kernels import strided_scale, halves_same_value, stencil_2d, GRID2, TILED
    for kernel, kw in ((transpose_tile, dict(block_dim=(16, 16), assume=TILED + TRANSPOSED)),
                       (stencil_2d, dict(block_dim=(8, 32), assume=GRID2)),
                       (strided_scale, dict(block_dim=64, assume=("n <= x.shape[0]",))),
                       (halves_same_value, dict(block_dim=64, assume=("dim[0] <= 2 * y.shape[0]",)))):
        report = simt.verify(kernel, **kw)
        assert all(report.verdict(c) == "safe" for c in report.checks), report


def test_grid_stride_while_loops_proved_like_range():
    """The grid-stride loop as CUDA writes it, a while loop adding the stride at its end
    (``i += ...``, ``i = i + ...``, a stride computed in the loop or stored before it), is
    proved race-free as the ``range`` form is."""
    from formal_corpus.kernels import stride_while, stride_while_assign, stride_while_stored, NSIZED
    for kernel, assume in ((stride_while, ("n <= x.shape[0]",)),
                           (stride_while_assign, ("n <= x.shape[0]",)), (stride_while_stored, NSIZED)):
        report = simt.verify(kernel, block_dim=64, assume=assume, checks=("bounds", "race"))
        assert all(report.verdict(c) == "safe" for c in report.checks), report


def test_same_slot_counterexample_replays_as_a_lane_conflict():
    from formal_corpus.kernels import halves_collide
    report = simt.verify(halves_collide, block_dim=64, checks="race",
                         assume=("dim[0] <= x.shape[0]", "dim[0] <= 2 * y.shape[0]"))
    cex = report.counterexample("race")
    assert report.verdict("race") == "unsafe"
    (b1, t1), (b2, t2) = cex.threads
    assert b1 == b2 and t1 // 32 == t2 // 32 and t1 // 2 == t2 // 2      # two lanes, one slot
    hazards = cex.replay()
    assert "WAW_LANES" in set(hazards.kind)


def test_nd_block_counterexample_and_errors():
    from formal_corpus.kernels import transpose_tile_no_sync
    report = simt.verify(transpose_tile_no_sync, dim=(32, 48), block_dim=(16, 16), checks="race",
                         assume=TRANSPOSED)
    cex = report.counterexample("race")
    assert report.verdict("race") == "unsafe" and cex.block_dim == (16, 16)
    (blk1, th1), (blk2, th2) = cex.threads          # (y, x) coordinates, as thread_idx() gives
    assert blk1 == blk2 and th1 == th2[::-1] and th1 != th2   # a thread and its transpose
    with pytest.raises(simt.SimtError, match="give block_dim as a tuple of 2 ints"):
        simt.verify(transpose_tile, dim=(64, 64), block_dim=256)
    with pytest.raises(simt.SimtError, match="has 2 dimensions but dim"):
        simt.verify(transpose_tile, dim=(64, 64, 2), block_dim=(16, 16))
    with pytest.raises(simt.SimtError, match="over the limit"):
        simt.verify(transpose_tile, dim=(64, 64), block_dim=(64, 64))
    with pytest.raises(simt.SimtError, match="n-D blocks"):
        simt.to_c(transpose_tile, block_dim=(16, 16))


def test_a_bug_too_big_to_replay_is_explained():
    """vec4_tail's guard i * 4 + 3 < n wraps past 2**29 threads (int32, as on the GPU): too big
    a launch to replay, so unknown, with the size and the assumption that rules it out."""
    from formal_corpus.kernels import vec4_tail, NSIZED
    report = simt.verify(vec4_tail, block_dim=64, assume=NSIZED, checks="bounds")
    assert report.verdict("bounds") == "unknown"
    detail = report.verdicts.detail.iloc[0]
    assert "too big to replay" in detail and "wrap" in detail and '"dim[0] < 2**29"' in detail
    assert simt.verify(vec4_tail, block_dim=64, assume=NSIZED + ("dim[0] < 2**29",),
                       checks="bounds").verdict("bounds") == "safe"


def test_no_history():
    """The same proof takes the same solver steps whatever the process proved before: z3
    numbers terms in the order its context meets them, and one shared context once made a
    2-D stencil's proof run out of steps after other proofs (the call gets a context of its
    own)."""
    from formal_corpus.kernels import stencil_2d, GRID2

    def steps():
        report = simt.verify(stencil_2d, block_dim=(8, 32), assume=GRID2)
        assert all(report.verdict(c) == "safe" for c in report.checks), report
        return report.solver_steps

    first = steps()
    assert first > 0
    for k, kw in ((tree_reduce, dict(block_dim=64)), (transpose_tile, dict(block_dim=(16, 16), assume=TRANSPOSED))):
        simt.verify(k, **kw)
    assert steps() == first
