"""Host-side array views (``a[2:5]``, ``a[i]`` of a 2-D array), as Warp gives them: they share
the array's memory on every device; what simt's contiguous arrays cannot view is a clear error."""
from __future__ import annotations

import numpy as np
import pytest

import simt as wp


@wp.kernel
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


@wp.kernel
def shift(a: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a[i] = a[i] + wp.vec3(1.0, 2.0, 3.0)


@wp.kernel
def fill_ones(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def copy(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i]


DEVICES = ["cpu:precise", "cpu", pytest.param("cuda", marks=pytest.mark.simt_gpu)]


@pytest.mark.parametrize("device", DEVICES)
def test_a_launch_on_a_slice_writes_the_base_array(device):
    base = np.arange(10, dtype=np.float32)
    a = wp.array(base, device=device)
    part = a[2:5]
    assert part.shape == (3,)
    wp.launch(scale, 3, [part, 10.0], device=device)
    want = base.copy()
    want[2:5] *= 10.0
    np.testing.assert_array_equal(a.numpy(), want)
    np.testing.assert_array_equal(part.numpy(), want[2:5])


@pytest.mark.parametrize("device", DEVICES)
def test_rows_and_vector_slices_are_views(device):
    m0 = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = wp.array(m0, device=device)
    wp.launch(scale, 4, [m[1], -1.0], device=device)
    v = wp.zeros(4, dtype=wp.vec3, device=device)
    wp.launch(shift, 2, [v[1:3]], device=device)
    want = m0.copy()
    want[1] *= -1.0
    np.testing.assert_array_equal(m.numpy(), want)
    np.testing.assert_array_equal(v.numpy(), [[0, 0, 0], [1, 2, 3], [1, 2, 3], [0, 0, 0]])
    m[2].fill_(7.0)                       # host writes through a view reach the base too
    assert m.numpy()[2].tolist() == [7.0] * 4 and m.numpy()[0].tolist() == [0, 1, 2, 3]


def test_initcheck_sees_what_a_view_wrote():
    e = wp.empty(8)
    wp.launch(fill_ones, 4, [e[0:4]], check="init")
    r = wp.launch(copy, 8, [e, wp.zeros(8)], check="init")
    h = r.hazards
    assert len(h) == 1 and h.iloc[0]["kind"] == "uninitialized_read" and h.iloc[0]["count"] == 4
    assert str(h.iloc[0]["index"]) == "4"     # the first element the view did not write


@pytest.mark.parametrize("index, message", [
    ((slice(None), 1), r"a\[:, 1\] is not contiguous"),
    (slice(0, 3, 2), r"views with a step are not supported"),
    ((0, 0), r"a\[0, 0\] is one element: read it with a.numpy\(\)\[0, 0\]"),
    (5, r"index 5 is out of range for axis 0 of an array of shape \(3, 4\)"),
    ("x", r"takes up to 2 ints or slices"),
])
def test_views_simt_cannot_make_are_clear_errors(index, message):
    m = wp.zeros((3, 4))
    with pytest.raises(wp.SimtError, match=message):
        m[index]


# ---- slices inside kernels -----------------------------------------------------------------------

@wp.kernel
def column_slice(grid: wp.array2d(dtype=float), start: int, stop: int, step: int,
                 out: wp.array(dtype=float)):
    col = grid[start:stop:step, 1]
    out[0] = float(col.shape[0])
    for k in range(col.shape[0]):
        out[1 + k] = col[k]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bounds", [(1, 8, 2), (7, 0, -3), (-3, 100, 1), (5, 2, 1), (0, 8, -1)])
def test_kernel_slices_follow_python_slicing(device, bounds):
    grid = np.arange(24, dtype=np.float32).reshape(8, 3)
    want = grid[slice(*bounds), 1]
    out = wp.full(10, -1.0, device=device)
    wp.launch(column_slice, 1, [wp.array(grid, device=device), *bounds, out], device=device)
    got = out.numpy()
    assert got[0] == want.size
    np.testing.assert_array_equal(got[1:1 + want.size], want)


@wp.func
def second_of_row(values: wp.ref[wp.array2d(dtype=float)], row: int) -> float:
    alias = values
    r = alias[row]
    values[row, 0] = 7.0              # an array is a reference already: writes reach the caller
    return r[1]


@wp.kernel
def ref_to_array(values: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = second_of_row(values, i)


@pytest.mark.parametrize("device", DEVICES)
def test_a_ref_to_an_array_is_the_array(device):
    v0 = np.arange(6, dtype=np.float32).reshape(3, 2)
    v, out = wp.array(v0, device=device), wp.zeros(3, device=device)
    wp.launch(ref_to_array, 3, [v, out], device=device)
    np.testing.assert_array_equal(out.numpy(), v0[:, 1])
    np.testing.assert_array_equal(v.numpy()[:, 0], [7.0, 7.0, 7.0])
