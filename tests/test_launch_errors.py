"""simt.launch: every mistake a launch can make is a LaunchError naming kernel, parameter,
expected and got; and the launches that are right run on cpu:precise."""
from __future__ import annotations

import numpy as np
import pytest

import simt as wp
from simt.options import reset_module_options


@pytest.fixture(autouse=True)
def _clean_state():
    reset_module_options()
    wp.set_device("cpu:precise")
    yield
    reset_module_options()
    wp.set_device("cpu:precise")


@wp.kernel
def scale(x: wp.array(dtype=float), factor: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] * factor


@wp.kernel
def add_int(x: wp.array(dtype=wp.int32), k: wp.int32):
    i = wp.tid()
    x[i] = x[i] + k


@wp.kernel
def offset_points(p: wp.array(dtype=wp.vec3), d: wp.vec3):
    i = wp.tid()
    p[i] = p[i] + d


@wp.kernel
def fill_2d(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = float(i * 100 + j)


@wp.kernel
def fill_3d(a: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    a[i, j, k] = 1.0


@wp.kernel
def flag(a: wp.array(dtype=wp.int32), on: wp.bool):
    i = wp.tid()
    if on:
        a[i] = 1


@wp.kernel
def too_much_shared(a: wp.array(dtype=float)):
    big = wp.shared.array(shape=(16384,), dtype=float)   # 64 KB > 48 KB
    i = wp.tid()
    big[i] = a[i]
    a[i] = big[i]


def f32(*values):
    return wp.array(np.array(values, dtype=np.float32))


# ---- launches that run ---------------------------------------------------------------

def test_scale_runs_and_outputs_are_appended_to_inputs():
    x, out = f32(1, 2, 3, 4), wp.zeros(4)
    result = wp.launch(scale, dim=4, inputs=[x, 2.0], outputs=[out])
    np.testing.assert_array_equal(out.numpy(), [2, 4, 6, 8])
    assert result.kernel == "scale" and result.device == "cpu:precise"
    assert isinstance(result.metrics, dict)


def test_python_int_becomes_int32_and_numpy_scalars_are_converted():
    x = wp.array(np.arange(5, dtype=np.int32))
    wp.launch(add_int, dim=5, inputs=[x, 10])
    wp.launch(add_int, dim=5, inputs=[x, np.int64(1)])
    np.testing.assert_array_equal(x.numpy(), np.arange(5) + 11)
    out = wp.zeros(2)
    wp.launch(scale, dim=2, inputs=[f32(1, 2), 3, out])      # int for a float parameter
    np.testing.assert_array_equal(out.numpy(), [3, 6])


def test_composite_parameter_from_tuple_or_numpy():
    p = wp.zeros(3, dtype=wp.vec3)
    wp.launch(offset_points, dim=3, inputs=[p, (1.0, 2.0, 3.0)])
    wp.launch(offset_points, dim=3, inputs=[p, wp.vec3(1, 1, 1)])
    np.testing.assert_array_equal(p.numpy(), [[2, 3, 4]] * 3)


def test_bool_parameter():
    a = wp.zeros(4, dtype=wp.int32)
    wp.launch(flag, dim=4, inputs=[a, False])
    assert not a.numpy().any()
    wp.launch(flag, dim=4, inputs=[a, True])
    assert (a.numpy() == 1).all()


@pytest.mark.parametrize("block_dim", [7, 64, (2, 4), (4, 1)])
def test_2d_launch_with_linear_and_tuple_blocks(block_dim):
    a = wp.zeros((5, 6))
    wp.launch(fill_2d, dim=(5, 6), inputs=[a], block_dim=block_dim)
    expected = np.add.outer(np.arange(5) * 100, np.arange(6)).astype(np.float32)
    np.testing.assert_array_equal(a.numpy(), expected)


def test_dim_zero_is_a_no_op():
    out = wp.zeros(0)
    result = wp.launch(scale, dim=0, inputs=[wp.zeros(0), 1.0, out])
    assert result.metrics == {}


def test_arrays_made_on_another_cpu_device_share_host_memory():
    x, out = wp.array(np.ones(2, dtype=np.float32), device="cpu"), wp.zeros(2, device="cpu")
    wp.launch(scale, dim=2, inputs=[x, 5.0, out], device="cpu:precise")
    np.testing.assert_array_equal(out.numpy(), [5, 5])


# ---- argument errors -------------------------------------------------------------------

def test_wrong_argument_count_names_the_parameters():
    with pytest.raises(wp.LaunchError, match=r"kernel 'scale' takes 3 arguments \(x, factor, out\), got 2"):
        wp.launch(scale, dim=4, inputs=[f32(1, 2, 3, 4), 2.0])


def test_scalar_for_array():
    with pytest.raises(wp.LaunchError,
                       match=r"kernel 'scale', parameter 'x': expected array\(float32, 1d\), got float 1.0"):
        wp.launch(scale, dim=1, inputs=[1.0, 2.0, wp.zeros(1)])


def test_array_for_scalar():
    with pytest.raises(wp.LaunchError, match=r"parameter 'factor': expected a float32 scalar, got array"):
        wp.launch(scale, dim=1, inputs=[wp.zeros(1), wp.zeros(1), wp.zeros(1)])


def test_numpy_array_for_array_suggests_wrapping():
    with pytest.raises(wp.LaunchError, match=r"parameter 'x'.*numpy array.*wrap it with simt.array"):
        wp.launch(scale, dim=1, inputs=[np.zeros(1, dtype=np.float32), 2.0, wp.zeros(1)])


def test_annotation_for_array():
    with pytest.raises(wp.LaunchError, match=r"parameter 'x'.*annotation"):
        wp.launch(scale, dim=1, inputs=[wp.array(dtype=float), 2.0, wp.zeros(1)])


def test_wrong_array_dtype():
    with pytest.raises(wp.LaunchError,
                       match=r"parameter 'x': expected an array of float32, got an array of float64"):
        wp.launch(scale, dim=1, inputs=[wp.array([1.0]), 2.0, wp.zeros(1)])
    with pytest.raises(wp.LaunchError, match=r"parameter 'p': expected an array of vec3, got an array of float32"):
        wp.launch(offset_points, dim=1, inputs=[wp.zeros(1), (0.0, 0.0, 0.0)])


def test_wrong_array_ndim():
    with pytest.raises(wp.LaunchError, match=r"parameter 'a': expected a 2-d array, got a 1-d array of shape \(4,\)"):
        wp.launch(fill_2d, dim=(2, 2), inputs=[wp.zeros(4)])


def test_float_for_int_parameter():
    with pytest.raises(wp.LaunchError, match=r"parameter 'k': expected int32, got float 1.5"):
        wp.launch(add_int, dim=1, inputs=[wp.zeros(1, dtype=int), 1.5])


def test_int_out_of_range():
    with pytest.raises(wp.LaunchError, match=r"parameter 'k': 4294967296 is out of the range of int32"):
        wp.launch(add_int, dim=1, inputs=[wp.zeros(1, dtype=int), 2**32])


def test_float_out_of_float32_range():
    with pytest.raises(wp.LaunchError, match=r"parameter 'factor': 1e\+300 is out of the range of float32"):
        wp.launch(scale, dim=1, inputs=[wp.zeros(1), 1e300, wp.zeros(1)])


def test_composite_of_wrong_length():
    with pytest.raises(wp.LaunchError, match=r"parameter 'd': expected a vec3 of 3 numbers"):
        wp.launch(offset_points, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3), (1.0, 2.0)])
    with pytest.raises(wp.LaunchError, match=r"parameter 'd': expected a vec3"):
        wp.launch(offset_points, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3), 1.0])


def test_non_bool_for_bool():
    with pytest.raises(wp.LaunchError, match=r"parameter 'on': expected a bool, got float"):
        wp.launch(flag, dim=1, inputs=[wp.zeros(1, dtype=int), 0.5])


# ---- launch shape errors ---------------------------------------------------------------

def test_block_over_1024_threads():
    with pytest.raises(wp.LaunchError, match=r"kernel 'scale': a block of 2048 threads is over the limit of 1024"):
        wp.launch(scale, dim=4, inputs=[wp.zeros(4), 1.0, wp.zeros(4)], block_dim=2048)
    with pytest.raises(wp.LaunchError, match="a block of 2048 threads"):
        wp.launch(fill_2d, dim=(64, 64), inputs=[wp.zeros((64, 64))], block_dim=(32, 64))


def test_block_z_over_64():
    with pytest.raises(wp.LaunchError, match="128 threads along CUDA's z axis; the limit is 64"):
        wp.launch(fill_3d, dim=(128, 1, 1), inputs=[wp.zeros((128, 1, 1))], block_dim=(128, 1, 1))


def test_block_dim_tuple_must_match_dim():
    with pytest.raises(wp.LaunchError,
                       match=r"block_dim \(4, 4, 4\) has 3 dimensions but dim \(8, 8\) has 2"):
        wp.launch(fill_2d, dim=(8, 8), inputs=[wp.zeros((8, 8))], block_dim=(4, 4, 4))


def test_grid_over_the_limit():
    with pytest.raises(wp.LaunchError, match=r"65536 blocks along CUDA's y axis; the limit is 65535"):
        wp.launch(fill_2d, dim=(65536, 1), inputs=[wp.zeros((1, 1))], block_dim=(1, 1))


@pytest.mark.parametrize("dim, message", [
    ((1, 2, 3, 4, 5), "dim must have 1 to 4 dimensions"),
    (-1, "dim must not be negative"),
    (2.5, "dim must be an int or a tuple of ints"),
])
def test_bad_dim(dim, message):
    with pytest.raises(wp.LaunchError, match=message):
        wp.launch(scale, dim=dim, inputs=[wp.zeros(1), 1.0, wp.zeros(1)])


def test_non_positive_block_dim():
    with pytest.raises(wp.LaunchError, match="block_dim must be positive"):
        wp.launch(scale, dim=1, inputs=[wp.zeros(1), 1.0, wp.zeros(1)], block_dim=0)


@wp.kernel
def visits_2d(counts: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    wp.atomic_add(counts, i, j, 1)


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
@pytest.mark.parametrize("dim", [16, (4, 8), (4, 8, 3)])
def test_tid_unpacking_more_or_fewer_values_than_the_launch_has_follows_warp(dim, device):
    """Warp 1.19: tid() gives the launch's first coordinates, padded with 0s; a launch of more
    dimensions than the kernel unpacks visits each kept coordinate once per dropped index."""
    dims = (dim,) if isinstance(dim, int) else dim
    kept = (dims + (1,))[:2]
    counts = wp.zeros(kept, dtype=wp.int32)
    wp.launch(visits_2d, dim=dim, inputs=[counts], device=device)
    repeats = int(np.prod(dims)) // int(np.prod(kept))
    np.testing.assert_array_equal(counts.numpy(), np.full(kept, repeats, dtype=np.int32))


@wp.kernel
def block_coords(a: wp.array2d(dtype=int)):
    ty, tx = wp.thread_idx()
    i, j = wp.tid()
    a[i, j] = ty * 10 + tx


def test_thread_idx_dimensionality_must_match_the_block():
    with pytest.raises(wp.LaunchError, match=r"unpacks 2 value\(s\) from thread_idx\(\).*an int "
                                             r"block_dim; give block_dim as a 2-tuple"):
        wp.launch(block_coords, dim=(4, 4), inputs=[wp.zeros((4, 4), dtype=int)], block_dim=16)
    a = wp.zeros((4, 4), dtype=int)
    wp.launch(block_coords, dim=(4, 4), inputs=[a], block_dim=(2, 2))
    np.testing.assert_array_equal(a.numpy(), np.add.outer(np.arange(4) % 2 * 10, np.arange(4) % 2))


def test_shared_memory_over_the_static_limit():
    with pytest.raises(wp.LaunchError,
                       match=r"kernel 'too_much_shared' declares 65536 bytes of shared memory; "
                             r"the static limit per block on sm_90 is 49152 bytes"):
        wp.launch(too_much_shared, dim=32, inputs=[wp.zeros(32)])


# ---- device, kernel and option errors ------------------------------------------------------

def test_unknown_device():
    with pytest.raises(wp.LaunchError, match=r"kernel 'scale': unknown device 'tpu'; valid devices"):
        wp.launch(scale, dim=1, inputs=[wp.zeros(1), 1.0, wp.zeros(1)], device="tpu")


@pytest.mark.parametrize("device", ["cpu", "cpu:precise"])
def test_every_cpu_engine_runs(device):
    x, out = wp.array([1.0, 2.0], dtype=float), wp.zeros(2)
    wp.launch(scale, dim=2, inputs=[x, 3.0, out], device=device)
    assert (out.numpy() == [3.0, 6.0]).all()


def test_trace_device_needs_a_file():
    with pytest.raises(wp.LaunchError, match="device 'cpu:trace' needs a file to write"):
        wp.launch(scale, dim=1, inputs=[wp.zeros(1), 1.0, wp.zeros(1)], device="cpu:trace")


@pytest.mark.parametrize("device", ["cuda", "cuda:7"])
def test_gpu_not_available_says_why(device):
    if wp.get_cuda_device_count() > wp.get_device(device).ordinal:
        pytest.skip(f"{device} exists here")
    with pytest.raises(wp.LaunchError, match=r"\(a real GPU\) is not available: "):
        wp.launch(scale, dim=1, inputs=[wp.zeros(1), 1.0, wp.zeros(1)], device=device)


def test_default_device_is_used_when_none_is_given():
    wp.set_device("cpu")
    try:
        x, out = wp.array([2.0], dtype=float), wp.zeros(1)
        result = wp.launch(scale, dim=1, inputs=[x, 1.0, out])
        assert result.device == "cpu" and out.numpy()[0] == 2.0
    finally:
        wp.set_device("cpu:precise")


def test_launch_needs_a_kernel():
    def plain(x):
        pass
    with pytest.raises(wp.LaunchError, match="simt.launch expects a @simt.kernel"):
        wp.launch(plain, dim=1, inputs=[])


def test_unknown_arch_and_bad_max_steps():
    args = [wp.zeros(1), 1.0, wp.zeros(1)]
    with pytest.raises(wp.LaunchError, match=r"unknown arch 'sm_75'"):
        wp.launch(scale, dim=1, inputs=args, arch="sm_75")
    with pytest.raises(wp.LaunchError, match=r"max_steps must be a positive int"):
        wp.launch(scale, dim=1, inputs=args, max_steps=0)


def test_adjoint_launch_is_refused():
    with pytest.raises(wp.LaunchError, match="adjoint"):
        wp.launch(scale, dim=1, inputs=[wp.zeros(1), 1.0, wp.zeros(1)], adjoint=True)


def test_errors_are_caught_before_anything_runs():
    out = wp.full(2, 7.0)
    with pytest.raises(wp.LaunchError):
        wp.launch(scale, dim=2, inputs=[wp.zeros(2), "two", out])
    np.testing.assert_array_equal(out.numpy(), [7, 7])


def test_compile_cache_is_keyed_by_signature_and_options():
    x, out = f32(1, 2), wp.zeros(2)
    wp.launch(scale, dim=2, inputs=[x, 1.0, out])
    wp.launch(scale, dim=2, inputs=[x, 1.0, out])
    n = len(scale._compiled)
    wp.set_module_options({"debug": True})
    wp.launch(scale, dim=2, inputs=[x, 1.0, out])
    assert len(scale._compiled) == n + 1


# ---- Warp's launch arguments simt has no machinery for ------------------------------------

def _scale_args():
    return [wp.array(np.arange(64, dtype=np.float32)), 2.0, wp.zeros(64)]


def test_warp_launch_defaults_and_an_idle_tape_flag_are_quiet():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wp.launch(scale, dim=64, inputs=_scale_args(), adj_inputs=[], adj_outputs=[], stream=None,
                  record_tape=True, record_cmd=False, max_blocks=0)
        wp.launch(scale, dim=64, inputs=_scale_args(), record_tape=False)   # no tape records in simt


def test_record_cmd_and_stream_are_refused_by_name():
    with pytest.raises(wp.LaunchError, match="kernel 'scale': record_cmd=True .* not supported"):
        wp.launch(scale, dim=64, inputs=_scale_args(), record_cmd=True)
    with pytest.raises(wp.LaunchError, match="kernel 'scale': stream=.* not supported: simt has no streams"):
        wp.launch(scale, dim=64, inputs=_scale_args(), stream=object())
    with pytest.raises(wp.LaunchError, match="max_blocks must be an int, got 2.5"):
        wp.launch(scale, dim=64, inputs=_scale_args(), max_blocks=2.5)


def test_max_blocks_and_adjoint_arrays_warn_and_the_launch_still_runs():
    args = _scale_args()
    with pytest.warns(wp.LaunchWarning, match="max_blocks=2 is not honoured"):
        wp.launch(scale, dim=64, inputs=args, max_blocks=2, block_dim=16)
    assert (args[2].numpy() == 2.0 * np.arange(64)).all()
    with pytest.warns(wp.LaunchWarning, match="adj_inputs are not used"):
        wp.launch(scale, dim=64, inputs=_scale_args(), adj_inputs=[None, 0.0, None])
    with pytest.warns(wp.LaunchWarning, match="adj_outputs are not used"):
        wp.launch(scale, dim=64, inputs=_scale_args(), adj_outputs=[wp.zeros(64)])
