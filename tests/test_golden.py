"""Golden comparisons that cannot pass empty, engines chosen from the command line or the
environment, and stored goldens (.npz) that CI without a GPU compares the simulators with."""
from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest

import simt
from simt import golden as goldens
from simt import testing
from simt.cli import main

pytest_plugins = ["pytester"]
HERE = Path(__file__).parent
KERNELS = HERE / "golden_kernels.py"


@pytest.fixture(scope="module")
def mix():
    """The example kernel and its inputs, as `simt diff` finds them."""
    kernel, namespace = testing.load_target(f"{KERNELS}::golden_mix")
    dim, inputs, block = testing.target_inputs(kernel, namespace, None)
    return kernel, dim, inputs, block


def test_committed_golden_matches_the_simulators(simt_compare, mix):
    """CI without a GPU: both CPU engines against the stored outputs (a GPU's, once recorded
    there; with a GPU present it is compared too)."""
    kernel, dim, inputs, block = mix
    report = simt_compare(kernel, dim, inputs, engines=["cuda", "cpu:precise", "cpu"],
                          golden="golden/golden_mix.npz", block_dim=block)
    assert report.reference.startswith("golden:") and report.compared
    assert {"cpu:precise", "cpu"} <= set(report.engines)
    meta = report.golden
    assert meta["kernel"] == "golden_mix" and meta["simt"] and meta["device"]["name"]
    # an independent check of the stored data: the atomic histogram of |x|*4 mod 8
    x = inputs[0]
    want = np.bincount((np.abs(x) * np.float32(4.0)).astype(np.int64) % 8, minlength=8)
    stored = np.load(HERE / "golden" / "golden_mix.npz")["out/bins"]
    np.testing.assert_array_equal(stored, want)


def test_fewer_than_two_engines_never_pass(mix):
    kernel, dim, inputs, block = mix
    with pytest.raises(testing.NothingComparedError, match="nothing compared"):
        testing.compare(kernel, dim, inputs, engines=["cpu:precise", "cuda:7"], block_dim=block)
    with pytest.raises(AssertionError):      # what a plain `assert`-style test sees: a failure
        testing.compare(kernel, dim, inputs, engines=["cpu"], block_dim=block)


def test_record_then_compare_a_golden(tmp_path, mix):
    kernel, dim, inputs, block = mix
    path = tmp_path / "g.npz"
    testing.compare(kernel, dim, inputs, engines=["cpu:precise"], block_dim=block,
                    golden=path, record=True)
    with np.load(path, allow_pickle=False) as data:          # numpy-native, nothing pickled
        meta = json.loads(str(data["simt_golden"][()]))
        assert sorted(data.files) == ["out/bins", "out/x", "out/y", "simt_golden"]
    assert meta["engine"] == "cpu:precise" and "not a GPU" in meta["device"]["name"]
    assert meta["simt"] == simt.__version__ and meta["dim"] == dim and meta["block_dim"] == block
    # one engine plus the golden is a comparison
    report = testing.compare(kernel, dim, inputs, engines=["cpu", "cuda:7"], block_dim=block,
                             golden=path)
    assert report.ok and report.engines[1:] == ["cpu"]
    # a stored value that no engine computes is found
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["out/y"] = arrays["out/y"].copy()
    arrays["out/y"][17] += 1.0
    np.savez(path, **arrays)
    with pytest.raises(AssertionError, match=r"y: float32 \(1000,\): 1 of 1000 values differ"):
        testing.compare(kernel, dim, inputs, engines=["cpu"], block_dim=block, golden=path)
    # other inputs than recorded: refused, naming what changed
    changed = list(inputs)
    changed[1] = 2.5
    with pytest.raises(goldens.GoldenError, match="inputs_sha256"):
        testing.compare(kernel, dim, changed, engines=["cpu"], block_dim=block, golden=path)
    with pytest.raises(goldens.GoldenError, match="no golden file"):
        testing.compare(kernel, dim, inputs, engines=["cpu"], block_dim=block,
                        golden=tmp_path / "missing.npz")


def test_cli_diff_exit_status_and_record(tmp_path, capsys, monkeypatch):
    target = f"{KERNELS}::golden_mix"
    assert main(["diff", target, "--engines", "cpu:precise,cuda:7"]) == 3
    assert "nothing compared" in capsys.readouterr().err
    path = tmp_path / "mix.npz"
    assert main(["diff", target, "--engines", "cpu:precise,cpu", "--record", str(path)]) == 0
    assert "recorded" in capsys.readouterr().out and path.exists()
    assert main(["diff", target, "--engines", "cpu,cuda:7", "--golden", str(path)]) == 0
    assert "cpu matches" in capsys.readouterr().out
    monkeypatch.setenv("SIMT_ENGINES", "cpu:precise,cpu")     # the default engines
    assert main(["diff", target]) == 0
    out = capsys.readouterr().out
    assert "reference 'cpu:precise'" in out and "cpu matches" in out


INNER = """
    import numpy as np
    import simt
    from simt import testing

    @simt.kernel
    def twice(x: simt.array(dtype=float), y: simt.array(dtype=float)):
        i = simt.tid()
        y[i] = x[i] * 2.0

    ARGS = [np.arange(64, dtype=np.float32), np.zeros(64, np.float32)]

    def test_fixture(simt_compare):
        simt_compare(twice, 64, ARGS)

    def test_plain():
        testing.compare(twice, 64, ARGS)
"""


def _inner(pytester, *args):
    """A pytest run of INNER in its own process (an in-process run would unload the modules
    it imported, numba's among them, which cannot be imported twice)."""
    pytester.makeconftest('pytest_plugins = ["simt.testing"]\n')
    pytester.makepyfile(test_inner=textwrap.dedent(INNER))
    return pytester.runpytest_subprocess("-rs", "-p", "no:cacheprovider", *args, timeout=300)


@pytest.fixture
def inner_env(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(HERE.parent))     # this simt, not an installed one
    monkeypatch.delenv("SIMT_ENGINES", raising=False)


def test_pytest_skip_points_at_the_test_and_plain_compare_fails(pytester, inner_env):
    result = _inner(pytester, "--simt-engines", "cpu:precise,cuda:7")
    result.assert_outcomes(skipped=1, failed=1)
    skip_line = next(line for line in result.outlines if line.startswith("SKIPPED"))
    assert "test_inner.py" in skip_line and "simt/testing.py" not in skip_line
    assert "cuda:7" in skip_line


def test_engines_from_the_command_line_and_the_environment(pytester, inner_env, monkeypatch):
    _inner(pytester, "--simt-engines", "cpu:precise,cpu").assert_outcomes(passed=2)
    monkeypatch.setenv("SIMT_ENGINES", "cpu,cpu:precise")
    _inner(pytester).assert_outcomes(passed=2)
