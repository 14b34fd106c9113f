"""Evaluation order follows Python (and Warp): the right-hand side before the target,
arguments left to right, an augmented assignment's target once, short-circuit and/or, a
chained comparison's middle operand once.

The kernels (tests/eval_order_kernels.py) log every call they make into an array, so a
result records the order. The oracle is Python itself: the same file runs as plain Python
with ``wp`` a small shim; warp-lang's CPU backend, where installed, must agree too.
"""
from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import simt

KERNELS = Path(__file__).with_name("eval_order_kernels.py")
SLOTS, OUTPUTS = 13, 14


def _load(wp_module, name: str, tmp_path: Path | None = None):
    """Import the kernel file with ``import simt as wp`` bound to ``wp_module``."""
    text = KERNELS.read_text()
    path = KERNELS
    if tmp_path is not None:              # warp reads kernel source through inspect: a file
        path = tmp_path / f"{name}.py"
        path.write_text(text.replace("import simt as wp", "import warp as wp"))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if tmp_path is None:
        sys.modules["simt"], saved = wp_module, sys.modules["simt"]
        try:
            spec.loader.exec_module(module)
        finally:
            sys.modules["simt"] = saved
    else:
        spec.loader.exec_module(module)
    return module


def _python_shim():
    """Just enough of ``wp`` for the kernel file to run as ordinary Python."""
    shim = types.ModuleType("wp_shim")
    shim.func = shim.kernel = lambda f: f
    shim.array = lambda dtype=None, ndim=1: None
    shim.int32 = int
    shim.vec3 = lambda *xs: np.array(xs, dtype=np.float64)
    shim.max = max
    return shim


def _inputs():
    return (np.zeros(SLOTS, np.float32), np.arange(OUTPUTS, dtype=np.float32) + 100,
            np.arange(4, dtype=np.int32) + 10)


@pytest.fixture(scope="module")
def python_result():
    module = _load(_python_shim(), "eval_order_python")
    s, d, n = _inputs()
    module.order(s, d, n)
    return s, d, n


def _run_simt(device):
    module = _load(simt, "eval_order_simt") if "eval_order_simt" not in sys.modules \
        else sys.modules["eval_order_simt"]
    arrays = [simt.array(a) for a in _inputs()]
    simt.launch(module.order, dim=1, inputs=arrays, device=device)
    return tuple(a.numpy() for a in arrays)


def test_python_oracle_records_the_expected_order(python_result):
    """The oracle itself, spelled out: a reversed order would give other digits."""
    s, d, n = python_result
    assert list(s) == [2, 12, 12, 34, 12, 12, 5, 1, 23, 1, 3, 12, 4]
    assert d[2] == 0.0                  # s[0] read before log() wrote it
    assert d[5] == 1.0 and d[7] == 21.0 and d[8] == 113.0 and d[9] == 6.0
    assert list(n) == [10, 33, 12, 13]


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_simt_evaluates_in_python_order(device, python_result):
    for mine, expected in zip(_run_simt(device), python_result):
        np.testing.assert_array_equal(mine, np.asarray(expected, dtype=mine.dtype))


def test_warp_agrees(python_result, tmp_path):
    warp = pytest.importorskip("warp")
    warp.config.quiet = True
    warp.init()
    module = _load(warp, "eval_order_warp", tmp_path)
    arrays = [warp.array(a, device="cpu") for a in _inputs()]
    warp.launch(module.order, dim=1, inputs=arrays, device="cpu")
    for got, expected in zip(arrays, python_result):
        np.testing.assert_array_equal(got.numpy(), np.asarray(expected, dtype=got.numpy().dtype))


# --- targets that are slices or references (simt's forms beside Warp's) ------------------------
# Python's rule (a target's index runs once) for places spelled v[i][0:2] and for array
# elements passed to a ``ref`` parameter; the oracle is the digit log, counted by hand.

@simt.func
def _log(s: simt.array(dtype=float), slot: int, k: int) -> int:
    s[slot] = s[slot] * 10.0 + float(k)
    return k


@simt.func
def _logf(s: simt.array(dtype=float), slot: int, k: int) -> float:
    s[slot] = s[slot] * 10.0 + float(k)
    return float(k)


@simt.func
def _scale_add(total: simt.ref[float], amount: float):
    total = total * 10.0 + amount


@simt.kernel
def _places(s: simt.array(dtype=float), d: simt.array(dtype=float), v: simt.array(dtype=simt.vec3)):
    v[_log(s, 0, 1)][0:2] += simt.vec2(_logf(s, 0, 2), 5.0)      # index once, then the value
    v[_log(s, 3, 2)][1:3] = simt.vec2(_logf(s, 3, 1), 7.0)       # the value, then the index once
    _scale_add(d[_log(s, 1, 1)], _logf(s, 1, 2))                  # a ref: read and stored once
    _scale_add(amount=_logf(s, 2, 2), total=d[_log(s, 2, 3)])     # keywords in source order


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_slice_and_ref_targets_evaluate_once(device):
    s, d = simt.zeros(4, dtype=float), simt.array(np.arange(4, dtype=np.float32) + 1)
    v = simt.zeros(3, dtype=simt.vec3)
    simt.launch(_places, dim=1, inputs=[s, d, v], device=device)
    assert s.numpy().tolist() == [12, 12, 23, 12]
    assert v.numpy().tolist() == [[0, 0, 0], [2, 5, 0], [0, 1, 7]]
    assert d.numpy().tolist() == [1, 22, 3, 42]      # 2 * 10 + 2, 4 * 10 + 2
