"""Repeat launches on the fast engine (simt/launch_bound.py): a launch that reuses what an
earlier one bound computes the same results, and a wrong argument still raises the very
LaunchError a first launch raises (the fast path cannot skip a check)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt as wp
from simt.options import reset_module_options

FAST = "cpu"


@pytest.fixture(autouse=True)
def _clean_state():
    reset_module_options()
    yield
    reset_module_options()


@wp.kernel
def saxpy_many(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float), n: wp.int32,
               on: wp.bool, d: wp.vec3, out: wp.array2d(dtype=float)):
    i = wp.tid()
    if on and i < n:
        y[i] = a * x[i] + y[i] + d[1]
    out[0, i] = float(i)


@wp.kernel
def scale_any(x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    x[i] = x[i] * s


def good_args(n=8):
    x = wp.array(np.arange(n, dtype=np.float32), device=FAST)
    y = wp.array(np.ones(n, dtype=np.float32), device=FAST)
    out = wp.zeros((1, n), dtype=float, device=FAST)
    return [np.float32(2.0), x, y, n, True, wp.vec3(0.0, 0.5, 0.0), out]


def message(kernel, dim, args) -> str:
    with pytest.raises(wp.LaunchError) as info:
        wp.launch(kernel, dim=dim, inputs=args, device=FAST)
    return str(info.value)


def replace(args, k, value):
    out = list(args)
    out[k] = value
    return out


WRONG = {
    "array of another dtype":
        lambda a: replace(a, 1, wp.array(np.ones(8, dtype=np.float64), device=FAST)),
    "array of another ndim": lambda a: replace(a, 2, wp.zeros((2, 4), dtype=float, device=FAST)),
    "2-d array as 1-d": lambda a: replace(a, 6, wp.zeros(8, dtype=float, device=FAST)),
    "scalar where an array goes": lambda a: replace(a, 1, 1.0),
    "numpy array where an array goes": lambda a: replace(a, 1, np.ones(8, dtype=np.float32)),
    "array annotation": lambda a: replace(a, 1, wp.array(dtype=float)),
    "array where a scalar goes": lambda a: replace(a, 0, a[1]),
    "int out of range": lambda a: replace(a, 3, 2**40),
    "float where an int goes": lambda a: replace(a, 3, 3.5),
    "float out of float32's range": lambda a: replace(a, 0, 1e39),
    "int where a bool goes": lambda a: replace(a, 4, 2),
    "string scalar": lambda a: replace(a, 0, "2.0"),
    "vector of the wrong size": lambda a: replace(a, 5, (1.0, 2.0)),
    "one argument too few": lambda a: a[:-1],
    "one argument too many": lambda a: a + [a[1]],
}


@pytest.mark.parametrize("case", sorted(WRONG))
def test_a_repeat_launch_raises_the_first_launchs_error(case):
    saxpy_many.clear_cache()
    first = message(saxpy_many, 8, WRONG[case](good_args()))
    wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    assert saxpy_many._launchers, "the launch should have left a launcher"
    assert message(saxpy_many, 8, WRONG[case](good_args())) == first


@pytest.mark.parametrize("dim", [True, (8, True), np.int64(8), 8.0, -1])
def test_odd_dims_take_the_full_path(dim):
    wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    saxpy_many.clear_cache()
    try:
        wp.launch(saxpy_many, dim=dim, inputs=good_args(), device=FAST)
        first = None
    except wp.LaunchError as e:
        first = str(e)
    wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    if first is None:
        wp.launch(saxpy_many, dim=dim, inputs=good_args(), device=FAST)
    else:
        assert message(saxpy_many, dim, good_args()) == first


def test_repeat_launches_compute_what_first_launches_do():
    for n in (8, 8, 300, 300, 8):
        args = good_args(n)
        args[0], args[3] = np.float32(n), n // 2
        wp.launch(saxpy_many, dim=n, inputs=args, device=FAST)
        x = np.arange(n, dtype=np.float32)
        expected = np.where(np.arange(n) < n // 2, n * x + 1.5, 1.0).astype(np.float32)
        np.testing.assert_array_equal(args[2].numpy(), expected)
        np.testing.assert_array_equal(args[6].numpy()[0], np.arange(n, dtype=np.float32))


def test_python_scalars_convert_as_on_a_first_launch():
    args = good_args()
    wp.launch(saxpy_many, dim=8, inputs=args, device=FAST)
    args = good_args()
    args[0], args[4] = 3.0, False           # a python float and bool in place of numpy's
    wp.launch(saxpy_many, dim=8, inputs=args, device=FAST)
    np.testing.assert_array_equal(args[2].numpy(), np.ones(8, dtype=np.float32))
    args[4] = True
    wp.launch(saxpy_many, dim=8, inputs=args, device=FAST)
    np.testing.assert_array_equal(args[2].numpy(), 3 * np.arange(8, dtype=np.float32) + 1.5)


def test_a_generic_kernel_binds_each_signature():
    for dtype, scale in ((np.float32, 2.0), (np.int32, 3), (np.float32, 2.0), (np.int32, 3)):
        x = wp.array(np.arange(6, dtype=dtype), device=FAST)
        wp.launch(scale_any, dim=6, inputs=[x, scale], device=FAST)
        np.testing.assert_array_equal(x.numpy(), np.arange(6, dtype=dtype) * scale)
        assert x.numpy().dtype == dtype


def test_the_result_reads_like_a_first_launchs():
    saxpy_many.clear_cache()
    first = wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    again = wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    assert type(again) is not type(first)          # the repeat took the bound path
    assert dict(again.metrics) == dict(first.metrics)
    assert (again.kernel, again.device) == (first.kernel, first.device)
    with pytest.raises(wp.MetricUnavailableError, match="fast engine"):
        again.cycles


def test_changed_module_options_take_effect():
    wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    with wp.ScopedModuleOptions({"check": "race"}):     # checks run on the precise engine
        r = wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
        assert r.details["hazards"] == []
    r = wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    assert "hazards" not in r.details


def test_a_repeat_launch_counts_its_arrays_as_written():
    wp.launch(saxpy_many, dim=8, inputs=good_args(), device=FAST)
    args = good_args()
    args[6] = wp.empty((1, 8), dtype=float, device=FAST)
    wp.launch(saxpy_many, dim=8, inputs=args, device=FAST)
    assert args[6]._unwritten.mask() is None


@wp.kernel
def halves_and_points(h: wp.array(dtype=wp.float16), p: wp.array(dtype=wp.vec3), k: wp.float16):
    i = wp.tid()
    h[i] = h[i] * k
    p[i] = p[i] * 2.0


def test_half_and_vector_arrays_on_repeat_launches():
    outs = []
    for device in ("cpu:precise", FAST, FAST, FAST):
        h = wp.array(np.linspace(0, 1, 5, dtype=np.float16), dtype=wp.float16, device=device)
        p = wp.array(np.arange(15, dtype=np.float32).reshape(5, 3), dtype=wp.vec3, device=device)
        wp.launch(halves_and_points, dim=5, inputs=[h, p, np.float16(1.5)], device=device)
        outs.append((h.numpy().copy(), p.numpy().copy()))
    assert halves_and_points._launchers
    for h, p in outs[1:]:
        np.testing.assert_array_equal(h, outs[0][0])
        np.testing.assert_array_equal(p, outs[0][1])


@wp.kernel
def shifted_copy(x: wp.array(dtype=float), y: wp.array(dtype=float), k: int):
    i = wp.tid()
    y[i] = x[i + k]


def test_a_repeat_launch_reports_runtime_errors_as_a_first_launch_does():
    def run(k):
        x, y = wp.zeros(16, device=FAST), wp.zeros(16, device=FAST)
        wp.launch(shifted_copy, dim=16, inputs=[x, y, k], device=FAST)

    def error(k):
        with pytest.raises(Exception) as info:
            run(k)
        return type(info.value), str(info.value)

    shifted_copy.clear_cache()
    first = error(5)
    run(0)
    run(0)
    assert shifted_copy._launchers
    assert error(5) == first
    run(0)                      # and the next launch runs clean
