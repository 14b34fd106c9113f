"""Builtins called on the host, as Warp allows: the same bits a kernel computes."""
from __future__ import annotations

import numpy as np
import pytest

import simt as wp


@wp.kernel
def in_a_kernel(v: wp.array(dtype=wp.vec3), out_v: wp.array(dtype=wp.vec3),
                out_q: wp.array(dtype=wp.quat), out_f: wp.array(dtype=float)):
    out_v[0] = wp.normalize(v[0])
    out_q[0] = wp.quat_from_axis_angle(wp.normalize(v[0]), 0.7)
    out_f[0] = wp.length(v[0])
    out_f[1] = wp.sin(out_f[0])


def test_host_calls_give_the_bits_a_kernel_gives():
    v = wp.vec3(1.0, 2.0, 3.0)
    out_v, out_q, out_f = wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=wp.quat), wp.zeros(2)
    wp.launch(in_a_kernel, 1, [wp.array([v], dtype=wp.vec3), out_v, out_q, out_f])
    n = wp.normalize(v)
    assert np.array_equal(np.asarray(n), out_v.numpy()[0])
    assert np.array_equal(np.asarray(wp.quat_from_axis_angle(n, 0.7)), out_q.numpy()[0])
    assert np.float32(wp.length(v)) == out_f.numpy()[0]
    assert np.float32(wp.sin(wp.length(v))) == out_f.numpy()[1]
    np.testing.assert_allclose(np.asarray(n), np.array([1, 2, 3]) / np.sqrt(14), rtol=1e-6)


def test_host_results_are_simt_values_kernels_can_capture():
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), wp.pi / 2.0)
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), q)
    p = wp.transform_point(t, wp.vec3(1.0, 0.0, 0.0))      # (1, 0, 0) turned about y, moved
    np.testing.assert_allclose(np.asarray(p), [1.0, 2.0, 2.0], atol=1e-6)
    assert wp.dot(p, p) == pytest.approx(9.0, rel=1e-6)
    assert wp.min(3, 4) == 3 and wp.clamp(5.0, 0.0, 1.0) == 1.0


def test_host_calls_that_cannot_be_made_are_clear_errors():
    with pytest.raises(RuntimeError, match=r"simt.tid\(\) can only be called inside a @simt.kernel"):
        wp.tid()
    with pytest.raises(RuntimeError, match="inside a @simt.kernel"):
        wp.atomic_add(wp.zeros(1), 0, 1.0)
    with pytest.raises(wp.SimtError, match="a numpy array is not a simt vector"):
        wp.length(np.zeros(3))
    with pytest.raises(wp.SimtError, match=r"simt.dot\(vec3, float32\)"):
        wp.dot(wp.vec3(1.0, 2.0, 3.0), 1.0)
