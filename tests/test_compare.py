"""simt.testing.compare on CPU engines: the diff report, tolerances, skips. No GPU needed."""
from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import testing
from simt.sim.precise import engine as precise_engine
from simt.suite import portable

N = 100


@simt.kernel
def scale_and_count(x: simt.array(dtype=float), k: float, y: simt.array(dtype=float),
                    hits: simt.array(dtype=int)):
    i = simt.tid()
    y[i] = x[i] * k
    if x[i] > 0.0:
        simt.atomic_add(hits, 0, 1)


def _inputs():
    x = np.linspace(-1.0, 1.0, N, dtype=np.float32)
    return [x, np.float32(3.0), np.zeros(N, np.float32), np.zeros(1, np.int32)]


@pytest.fixture
def corrupting_engine(monkeypatch):
    """An engine named 'cpu:precise' twice over: the second run's y[7] gets nudged by ``delta``
    and hits[0] gets one extra count, as a buggy backend would."""
    calls = {"n": 0, "delta": 1e-3}
    real_run = precise_engine.run

    def run(fn, cfg, args):
        metrics = real_run(fn, cfg, args)
        calls["n"] += 1
        if calls["n"] % 2 == 0:
            args[2].data[7] += np.float32(calls["delta"])
            args[3].data[0] += 1
        return metrics

    monkeypatch.setattr(precise_engine, "run", run)
    monkeypatch.setattr("simt.sim.precise.run", run)
    return calls


def test_same_engine_twice_matches():
    report = testing.compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cpu:precise"])
    assert report.ok and report.compared
    assert {d.name for d in report.diffs} == {"x", "y", "hits"}
    assert all(d.mismatches == 0 for d in report.diffs)
    assert report.engines == ["cpu:precise#1", "cpu:precise#2"]
    np.testing.assert_array_equal(report.outputs["cpu:precise#2"]["y"],
                                  np.linspace(-1.0, 1.0, N, dtype=np.float32) * np.float32(3.0))


def test_inputs_are_copied_per_engine():
    """Each engine starts from the same data: an in-place kernel (saxpy) does not accumulate."""
    x = simt.array(np.arange(8, dtype=np.float32))
    y = simt.array(np.ones(8, dtype=np.float32))
    report = testing.compare(portable.saxpy, 8, [2.0, x, y], engines=["cpu:precise", "cpu:precise"])
    assert report.ok
    np.testing.assert_array_equal(y.numpy(), np.ones(8, np.float32))   # the caller's array untouched
    for label in report.engines:
        np.testing.assert_array_equal(report.outputs[label]["y"], 2 * np.arange(8) + 1)


def test_corrupted_output_is_reported(corrupting_engine):
    with pytest.raises(AssertionError) as info:
        testing.compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cpu:precise"])
    text = str(info.value)
    assert "engines disagree" in text and "DIFFERS" in text
    assert "y: float32 (100,): 1 of 100 values differ" in text
    assert "at (7,)" in text
    assert "hits: int32 (1,): 1 of 1 values differ" in text


def test_report_fields_without_raising(corrupting_engine):
    report = testing.compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cpu:precise"],
                             raise_on_mismatch=False)
    assert not report.ok
    y = next(d for d in report.diffs if d.name == "y")
    hits = next(d for d in report.diffs if d.name == "hits")
    assert (y.mismatches, y.first_index) == (1, (7,))
    assert y.max_abs == pytest.approx(1e-3, rel=1e-2)
    assert y.max_ulp > 1000
    assert (hits.mismatches, hits.first_index, hits.max_abs, hits.max_ulp) == (1, (0,), 1.0, None)
    assert next(d for d in report.diffs if d.name == "x").ok


def test_float_tolerance_absorbs_small_differences(corrupting_engine):
    corrupting_engine["delta"] = 5e-7            # y[7] is about -2.6: two ulps
    report = testing.compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cpu:precise"],
                             raise_on_mismatch=False)
    y = next(d for d in report.diffs if d.name == "y")
    assert y.ok and 0 < y.max_ulp < 100          # within the default atol, still reported in ulps
    assert not report.ok                          # ...but the int count must match exactly
    strict = testing.compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cpu:precise"],
                             rtol=0.0, atol=0.0, raise_on_mismatch=False)
    assert not next(d for d in strict.diffs if d.name == "y").ok


def test_ulps_and_nans():
    a = np.array([1.0, np.nan, np.inf, -0.0, 1.0], np.float32)
    b = np.array([np.nextafter(np.float32(1.0), np.float32(2.0)), np.nan, np.inf, 0.0, -1.0],
                 np.float32)
    d = testing.diff_arrays("v", a, b, "e", "ref", rtol=0.0, atol=0.0)
    assert d.mismatches == 2 and d.first_index == (0,)
    assert d.max_ulp == 0x7F000000                 # 1.0 vs -1.0: twice 1.0's bits, the largest
    shape = testing.diff_arrays("v", a, b[:3], "e", "ref", 0.0, 0.0)
    assert not shape.ok and "gave" in shape.note


def test_unavailable_engine_is_skipped_with_a_note():
    if testing.engine_unavailable("cuda:7") is None:
        pytest.skip("this machine has 8 GPUs")
    report = testing.compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cpu", "cuda:7"])
    assert report.engines == ["cpu:precise", "cpu"] and report.compared
    assert "cuda:7" in report.skipped
    assert "skipped" in report.summary()
    with pytest.raises(testing.NothingComparedError, match="nothing compared"):
        testing.compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cuda:7"])


def test_fixture_skips_when_an_engine_is_unavailable(simt_compare):
    report = simt_compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cpu:precise"])
    assert report.ok
    if testing.gpu_unavailable():
        with pytest.raises(pytest.skip.Exception):
            simt_compare(scale_and_count, N, _inputs(), engines=["cpu:precise", "cuda"])


@pytest.mark.simt_gpu
def test_marker_skips_without_gpu():
    assert testing.gpu_unavailable() is None


def test_cli_diff(tmp_path, capsys):
    script = tmp_path / "kern.py"
    script.write_text(
        "import numpy as np\nimport simt\n\n"
        "@simt.kernel\n"
        "def double(x: simt.array(dtype=float), y: simt.array(dtype=float)):\n"
        "    i = simt.tid()\n"
        "    y[i] = x[i] * 2.0\n\n"
        "def simt_inputs(dim):\n"
        "    n = dim or 64\n"
        "    return n, [np.arange(n, dtype=np.float32), np.zeros(n, np.float32)]\n")
    from simt.cli import main
    assert main(["diff", f"{script}::double", "--dim", "96", "--engines", "cpu:precise,cpu:precise,cuda"]) == 0
    out = capsys.readouterr().out
    assert "cpu:precise#2 matches" in out and "all 96 values match" in out
    assert main(["diff", f"{script}::nope"]) == 2
    assert "no @simt.kernel named 'nope'" in capsys.readouterr().err


def test_no_gpu_is_a_clear_device_error():
    if testing.gpu_unavailable() is None:
        pytest.skip("a GPU is present")
    with pytest.raises(simt.DeviceError, match="cuda:0"):
        simt.array(np.zeros(4, np.float32), device="cuda")
    with pytest.raises(simt.LaunchError, match="is not available: "):
        simt.launch(scale_and_count, N, _inputs()[:1] + [3.0, simt.zeros(N), simt.zeros(1, dtype=int)],
                    device="cuda")
    assert simt.get_cuda_device_count() == 0 and not simt.is_cuda_available()
