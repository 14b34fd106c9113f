"""What a launch hands back: errors that name the engine reporting a metric, Warp's
``inputs=None``, progress bars on long launches, and the per-line table people read."""
from __future__ import annotations

import io

import numpy as np
import pytest

import simt
from simt import progress
from simt.suite.cuda_style import transpose_tile


@simt.kernel
def fill(x: simt.array(dtype=float)):
    i = simt.tid()
    x[i] = float(i)


@simt.kernel
def no_args():
    i = simt.tid()


@simt.kernel
def branchy(x: simt.array(dtype=float), out: simt.array(dtype=float)):
    i = simt.tid()
    if i % 4 == 0:        # 8 of a warp's 32 lanes: a divergent branch in every warp
        out[i] = x[i] * 2.0
    else:
        out[i] = x[i]


@pytest.mark.parametrize("device,says", [("cpu", "the fast engine ('cpu')"),
                                         ("cpu:precise", "the timing model, which was off")])
def test_precise_only_results_say_which_engine_reports_them(device, says):
    x = simt.zeros(64)
    if device == "cpu:precise":
        simt.set_module_options({"timing": False})
    try:
        r = simt.launch(fill, 64, [x], device=device)
    finally:
        simt.set_module_options({"timing": True})
    for get in (lambda: r.cycles, lambda: r.stalls, lambda: r["sm__cycles_elapsed.max"],
                lambda: r.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]):
        with pytest.raises(simt.MetricUnavailableError, match=r"precise engine|timing model") as e:
            get()
        assert says in str(e.value) and isinstance(e.value, KeyError)
    if device == "cpu":
        with pytest.raises(simt.MetricUnavailableError, match="precise engine"):
            r.lines
    else:                                   # counted without the timing model
        assert r.lines["inst_executed"].sum() == r["smsp__inst_executed.sum"]


def test_unknown_metric_names_a_near_miss():
    r = simt.launch(fill, 64, [simt.zeros(64)])
    with pytest.raises(simt.MetricUnavailableError, match="did you mean 'smsp__inst_executed.sum'"):
        r["smsp__inst_executed.sums"]


def test_inputs_none_is_no_inputs_as_in_warp():
    r = simt.launch(no_args, 64, inputs=None, outputs=None)
    assert r["smsp__inst_executed.sum"] > 0
    with pytest.raises(simt.LaunchError, match=r"takes 1 arguments \(x\), got 0"):
        simt.launch(fill, 64, inputs=None)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_long_launches_show_a_progress_bar_unless_turned_off(device, monkeypatch):
    monkeypatch.setattr(progress, "DELAY_S", 0.0)      # "long" = from the first moment
    n = 64 * 256
    for setting, shown in ((None, True), (False, False), ("env", False)):
        err = _Terminal()
        monkeypatch.setattr("sys.stderr", err)
        if setting == "env":
            monkeypatch.setenv("SIMT_PROGRESS", "0")
        if setting is False:
            simt.set_module_options({"progress": False})
        try:
            fill.clear_cache()           # the fast engine's first launch is the one it chunks
            simt.launch(fill, n, [simt.zeros(n)], device=device, block_dim=256)
        finally:
            simt.set_module_options({"progress": True})
            monkeypatch.delenv("SIMT_PROGRESS", raising=False)
        text = err.getvalue()
        assert ("simt fill" in text and "64/64" in text) == shown, (setting, text)


def test_lines_have_source_text_branch_efficiency_and_short_file_names():
    a = simt.array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64))
    r = simt.launch(transpose_tile, dim=(16, 64), inputs=[a, simt.zeros((64, 64))],
                    block_dim=(8, 32))
    t = r.lines
    assert list(t.columns[:3]) == ["file", "line", "source"]
    assert set(t["file"]) == {"cuda_style.py"}
    assert t.attrs["files"]["cuda_style.py"].endswith("simt/suite/cuda_style.py")
    row = t[t["bank_conflicts"] > 0].iloc[0]
    assert row["source"] == "dst[row + k, col] = tile[tx, ty + k]"
    assert list(t["line"]) == sorted(t["line"])
    assert np.isnan(t.set_index("source").loc["row = by * 32 + ty", "branch_efficiency_pct"])
    # one stall column per reason the launch reports; counters are whole numbers
    assert {c[len("stall_"):] for c in t.columns if c.startswith("stall_")} == set(r.stalls)
    assert all(t[c].dtype == np.int64 for c in ("inst_executed", "shared_wavefronts",
                                                "branch_targets_divergent", "bank_conflicts"))

    x = simt.array(np.ones(64, np.float32))
    lines = simt.launch(branchy, 64, [x, simt.zeros(64)]).lines.set_index("source")
    # hand count: 2 warps, each splits at `if i % 4 == 0`: 2 divergent executions, 4 targets
    branch = lines.loc["if i % 4 == 0:        # 8 of a warp's 32 lanes: a divergent branch in every warp"]
    assert branch["branch_targets_divergent"] == 4 and branch["branch_efficiency_pct"] == 0.0
    assert lines.loc["out[i] = x[i]", "branch_efficiency_pct"] == 100.0     # its jump to the join


def test_short_names_tell_equal_base_names_apart():
    from simt.sim.precise.metrics import short_names
    names = short_names(["/a/x/k.py", "/b/y/k.py", "/c/other.py"])
    assert names == {"/a/x/k.py": "x/k.py", "/b/y/k.py": "y/k.py", "/c/other.py": "other.py"}
