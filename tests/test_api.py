"""The public API: type objects, arrays, devices, options, decorators, exported builtins."""
from __future__ import annotations

import numpy as np
import pytest

import simt
import simt as wp
from simt.ir import types as ir
from simt.ir.mir import LaunchSig
from simt.ir.registry import REGISTRY, BuiltinFunction
from simt.launch import launch_geometry, normalise_dim
from simt.options import reset_module_options


@pytest.fixture(autouse=True)
def _clean_state():
    reset_module_options()
    simt.set_device("cpu:precise")
    yield
    reset_module_options()
    simt.set_device("cpu:precise")


# ---- types ---------------------------------------------------------------------------

def test_scalar_types_are_numpy_types():
    assert simt.float32 is np.float32 and simt.float64 is np.float64
    assert simt.int32 is np.int32 and simt.uint32 is np.uint32
    assert simt.int64 is np.int64 and simt.uint64 is np.uint64
    assert simt.int8 is np.int8 and simt.uint8 is np.uint8
    assert ir.resolve_type(simt.float32) is ir.Scalar.F32


def test_bool_is_a_type_object_callable_on_the_host():
    assert ir.resolve_type(simt.bool) is ir.Scalar.BOOL
    assert simt.bool(1) == np.bool_(True) and isinstance(simt.bool(0), np.bool_)


@pytest.mark.parametrize("obj, ir_type, shape", [
    (simt.vec2, ir.vec2, (2,)), (simt.vec3, ir.vec3, (3,)), (simt.vec4, ir.vec4, (4,)),
    (simt.mat22, ir.mat22, (2, 2)), (simt.mat33, ir.mat33, (3, 3)), (simt.mat44, ir.mat44, (4, 4)),
    (simt.quat, ir.quat, (4,)),
])
def test_composite_types_carry_canonical_ir_types(obj, ir_type, shape):
    assert obj._simt_type is ir_type
    assert ir.resolve_type(obj) is ir_type
    value = obj()
    assert value.shape == shape and value.dtype == np.float32 and not value.any()


def test_composite_constructors():
    np.testing.assert_array_equal(simt.vec3(1, 2, 3), [1, 2, 3])
    np.testing.assert_array_equal(simt.vec3(2.5), [2.5, 2.5, 2.5])
    np.testing.assert_array_equal(simt.vec3([4, 5, 6]), [4, 5, 6])
    np.testing.assert_array_equal(simt.mat22(1, 2, 3, 4), [[1, 2], [3, 4]])
    m = simt.mat33(simt.vec3(1, 2, 3), simt.vec3(4, 5, 6), simt.vec3(7, 8, 9))
    np.testing.assert_array_equal(m, np.arange(1, 10).reshape(3, 3))
    np.testing.assert_array_equal(simt.quat(0, 0, 0, 1), [0, 0, 0, 1])
    assert simt.vec3i(1, 2, 3).dtype == np.int32 and simt.vec3d().dtype == np.float64
    with pytest.raises(ValueError, match="vec3 takes 3 components, got 2"):
        simt.vec3(1, 2)


def test_vector_and_matrix_factories_return_the_named_objects():
    assert simt.vector(3, simt.float32) is simt.vec3
    assert simt.vector(3, float) is simt.vec3
    assert simt.matrix((3, 3), simt.float32) is simt.mat33
    assert simt.vector(3, simt.float64) is simt.vec3d
    assert simt.vec3f is simt.vec3


# ---- arrays --------------------------------------------------------------------------

def test_array_from_numpy_copies_and_converts():
    src = np.arange(4, dtype=np.float64)
    a = simt.array(src, dtype=float)
    assert a.dtype is simt.float32 and a.shape == (4,) and a.ndim == 1 and a.size == 4 and len(a) == 4
    src[0] = 100
    assert a.numpy()[0] == 0
    assert a.device == "cpu:precise"


def test_array_dtype_inference_matches_warp():
    assert simt.array([1, 2]).dtype is simt.int64
    assert simt.array([1.0, 2.0]).dtype is simt.float64
    assert simt.array(np.zeros(3, dtype=np.float32)).dtype is simt.float32
    assert simt.array(np.zeros(3, dtype=np.uint8)).dtype is simt.uint8
    assert simt.array([True, False]).dtype is simt.bool


def test_unsupported_numpy_dtype_is_rejected():
    with pytest.raises(TypeError, match="unsupported dtype"):
        simt.array(np.zeros(3, dtype=np.complex64))


def test_composite_array_has_trailing_component_axes():
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    a = simt.array(data, dtype=simt.vec3)
    assert a.shape == (4,) and a.dtype is simt.vec3 and a.numpy().shape == (4, 3)
    np.testing.assert_array_equal(a.numpy(), data)
    np.testing.assert_array_equal(a.flat_scalars(), data.reshape(-1))
    m = simt.zeros((2, 5), dtype=simt.mat22)
    assert m.shape == (2, 5) and m.numpy().shape == (2, 5, 2, 2)
    with pytest.raises(ValueError, match=r"trailing axes \(3,\)"):
        simt.array(np.zeros((4, 2), dtype=np.float32), dtype=simt.vec3)


def test_numpy_is_a_view_of_the_device_buffer():
    a = simt.zeros(3, dtype=simt.int32)
    a.numpy()[1] = 7
    assert a.numpy()[1] == 7
    np.testing.assert_array_equal(np.asarray(a), [0, 7, 0])


def test_zeros_full_ones_and_likes():
    z = simt.zeros((2, 3), dtype=float)
    assert z.shape == (2, 3) and z.dtype is simt.float32 and not z.numpy().any()
    assert simt.zeros(4).dtype is simt.float32
    assert simt.zeros(4, dtype=int).dtype is simt.int32
    f = simt.full(5, 2.5)
    assert f.dtype is simt.float32 and (f.numpy() == 2.5).all()
    assert simt.full(5, 3).dtype is simt.int32
    v = simt.full(2, simt.vec3(1, 2, 3))
    assert v.dtype is simt.vec3
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3], [1, 2, 3]])
    assert (simt.ones(3, dtype=simt.uint32).numpy() == 1).all()
    like = simt.full_like(v, 9.0)
    assert like.dtype is simt.vec3 and (like.numpy() == 9).all()
    assert simt.zeros_like(v).shape == (2,) and simt.empty(3).shape == (3,)


def test_shape_allocation_and_2d_round_trip():
    data = np.arange(6, dtype=np.int32).reshape(2, 3)
    a = simt.array(data)
    assert a.shape == (2, 3) and a.ndim == 2
    np.testing.assert_array_equal(a.numpy(), data)
    b = simt.array(shape=(2, 2), dtype=simt.uint8)
    assert b.numpy().dtype == np.uint8 and b.shape == (2, 2)


def test_clone_copy_assign_fill():
    a = simt.array(np.arange(5, dtype=np.float32))
    b = simt.clone(a)
    assert b.ptr != a.ptr
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    c = simt.zeros(5)
    simt.copy(c, a, dest_offset=1, src_offset=0, count=3)
    np.testing.assert_array_equal(c.numpy(), [0, 0, 1, 2, 0])
    c.fill_(4)
    assert (c.numpy() == 4).all()
    c.zero_()
    assert not c.numpy().any()
    c.assign([1, 2, 3, 4, 5])
    np.testing.assert_array_equal(c.numpy(), [1, 2, 3, 4, 5])


def test_addresses_are_aligned_and_disjoint():
    arrays = [simt.zeros(n, dtype=simt.uint8) for n in (0, 1, 255, 256, 257, 1000)]
    for a in arrays:
        assert a.ptr % 256 == 0
    ordered = sorted(arrays, key=lambda a: a.ptr)
    for lo, hi in zip(ordered, ordered[1:]):
        assert lo.ptr + max(1, lo.capacity) <= hi.ptr


def test_array_annotations():
    ann = simt.array(dtype=float)
    assert ann.is_annotation and ann._simt_type == ir.ArrayType(ir.Scalar.F32, 1)
    assert ir.resolve_type(ann) == ir.ArrayType(ir.Scalar.F32, 1)
    assert simt.array2d(dtype=simt.vec3)._simt_type == ir.ArrayType(ir.vec3, 2)
    assert simt.array3d(dtype=simt.int32)._simt_type == ir.ArrayType(ir.Scalar.I32, 3)
    assert simt.array(dtype=simt.float64, ndim=2)._simt_type == ir.ArrayType(ir.Scalar.F64, 2)
    with pytest.raises(TypeError, match="type annotation"):
        ann.numpy()


def test_array2d_with_data_checks_ndim():
    assert simt.array2d(np.zeros((2, 2), dtype=np.float32)).ndim == 2
    with pytest.raises(ValueError, match="ndim=2"):
        simt.array2d(np.zeros(3, dtype=np.float32))


def test_reshape_and_flatten_share_memory():
    a = simt.array(np.arange(6, dtype=np.float32))
    b = a.reshape((2, 3))
    assert b.shape == (2, 3) and b.ptr == a.ptr
    b.numpy()[1, 2] = 42
    assert a.numpy()[5] == 42
    assert b.flatten().shape == (6,)


# ---- devices -------------------------------------------------------------------------

def test_default_device_is_the_precise_engine():
    assert simt.get_device() == "cpu:precise"
    assert simt.get_device().is_cpu and not simt.get_device().is_cuda
    simt.init()
    simt.synchronize()
    assert simt.is_cuda_available() == (simt.get_cuda_device_count() > 0)


def test_set_device_and_scoped_device():
    simt.set_device("cpu")
    assert simt.get_device() == "cpu"
    with simt.ScopedDevice("cpu:trace") as d:
        assert d == "cpu:trace" and simt.get_device() == "cpu:trace"
    assert simt.get_device() == "cpu"
    assert simt.get_device("cuda") == "cuda:0"


def test_unknown_device_names_the_valid_ones():
    with pytest.raises(simt.DeviceError, match=r"unknown device 'gpu'.*'cpu:precise'"):
        simt.set_device("gpu")
    with pytest.raises(simt.DeviceError):
        simt.zeros(3, device="tpu")


def test_arrays_on_a_gpu_need_a_usable_gpu():
    if simt.is_cuda_available():
        pytest.skip("this machine has a GPU (tests/test_gpu.py covers GPU arrays)")
    with pytest.raises(simt.DeviceError, match="'cuda:0' \\(a real GPU\\) is not available: "):
        simt.zeros(3, device="cuda")


def test_arrays_on_any_cpu_device_live_in_host_memory():
    a = simt.zeros(3, device="cpu")
    assert a.device == "cpu" and a.device.memory_space == "host"
    assert a.to("cpu:precise").device == "cpu:precise"


# ---- options -------------------------------------------------------------------------

def test_module_options_round_trip():
    assert simt.get_module_options() == {"debug": False, "fastmath": False, "max_steps": 1_000_000,
                                         "arch": "sm_90", "timing": True, "timing_sample": True, "timing_sass": True,
                                         "progress": True, "trace": None, "check": None, "raise_on_hazard": False}
    simt.set_module_options({"debug": True, "max_steps": 50, "arch": "sm_80"})
    opts = simt.get_module_options()
    assert opts["debug"] is True and opts["max_steps"] == 50 and opts["arch"] == "sm_80"
    simt.set_module_options({"fast_math": True, "enable_backward": False}, module=__name__)
    assert simt.get_module_options()["fastmath"] is True


def test_warp_debug_mode_turns_debug_on():
    simt.set_module_options({"mode": "debug"})
    assert simt.get_module_options()["debug"] is True
    simt.set_module_options({"mode": "release"})
    simt.config.mode = "debug"
    assert simt.get_module_options()["debug"] is True


@pytest.mark.parametrize("options, message", [
    ({"debgu": True}, "unknown module option 'debgu'"),
    ({"arch": "sm_75"}, "must be one of sm_90, sm_80"),
    ({"max_steps": 0}, "positive int"),
    ({"debug": "yes"}, "True or False"),
])
def test_bad_module_options(options, message):
    with pytest.raises(simt.SimtError, match=message):
        simt.set_module_options(options)


# ---- decorators ----------------------------------------------------------------------

def test_kernel_decorator_with_and_without_arguments():
    @simt.kernel
    def k1(a: simt.array(dtype=float)):
        pass

    @simt.kernel(enable_backward=False, module="unique")
    def k2(a: simt.array(dtype=float)):
        pass

    for k, name in ((k1, "k1"), (k2, "k2")):
        assert isinstance(k, simt.Kernel) and k.key == name and k.__name__ == name
        assert callable(k.py_func)
    with pytest.raises(simt.LaunchError, match=r"launch it with\s+simt.launch\(k1"):
        k1(simt.zeros(1))


def test_func_is_plain_python_on_the_host():
    @simt.func
    def twice(x: float):
        return x * 2.0

    assert twice._simt_func is True and twice(3.0) == 6.0
    assert twice.py_func(1.0) == 2.0


def test_func_overloads_by_annotation():
    @simt.func
    def describe(x: float):
        return "float"

    first = describe

    @simt.func
    def describe(x: int):  # noqa: F811 - an overload, as in Warp
        return "int"

    assert describe is first and len(describe.overloads) == 2
    assert describe(1.0) == "float" and describe(1) == "int"


def _scaled(value):
    @simt.func
    def f():
        return value

    @simt.func
    def f(x: int):  # noqa: F811 - an overload of this call's f only
        return f() * x

    return f


scaled_by_2, scaled_by_3 = _scaled(2), _scaled(3)


@simt.kernel
def closures_kernel(a: simt.array(dtype=int)):
    a[0] = scaled_by_2()
    a[1] = scaled_by_2(5)
    a[2] = scaled_by_3()
    a[3] = scaled_by_3(5)


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_functions_made_by_separate_factory_calls_stay_separate(device):
    """As in Warp, a definition overloads only the function its name is bound to in its own
    scope: each call of the factory makes its own function (with its own captured value)."""
    assert scaled_by_2 is not scaled_by_3 and len(scaled_by_2.overloads) == 2
    a = simt.zeros(4, dtype=int)
    simt.launch(closures_kernel, 1, [a], device=device)
    assert a.numpy().tolist() == [2, 10, 3, 15]


def test_constant_is_the_value():
    assert simt.constant(3) == 3 and simt.constant(2.5) == 2.5


# ---- exported names -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["tid", "thread_idx", "block_idx", "block_dim", "grid_dim",
                                  "lane_id", "warp_id", "sync_threads", "block_until", "clock",
                                  "atomic_add", "atomic_sub", "atomic_min", "atomic_max",
                                  "atomic_cas", "atomic_exch"])
def test_special_forms_are_exported(name):
    handle = getattr(simt, name)
    assert isinstance(handle, BuiltinFunction) and handle.name == name
    with pytest.raises(RuntimeError, match="inside a @simt.kernel"):
        handle()


def test_shared_array_handle():
    assert isinstance(simt.shared.array, BuiltinFunction)
    assert simt.shared.array.name == "shared_array"


def test_every_registry_builtin_is_exported():
    """As a BuiltinFunction, or (casts such as int8, vec3) as the type object of that name."""
    assert REGISTRY, "the builtin library registered nothing"
    for name in REGISTRY:
        obj = getattr(simt, name)
        assert isinstance(obj, BuiltinFunction) or ir.resolve_type(obj) is not None, name


def test_errors_are_exported():
    for err in (simt.CompileError, simt.LaunchError, simt.OutOfBoundsError,
                simt.BarrierDivergenceError, simt.WarpSyncError, simt.StepLimitError):
        assert issubclass(err, simt.SimtError)


def test_import_simt_as_wp_exposes_warp_names():
    for name in ("kernel", "func", "launch", "array", "zeros", "tid", "vec3", "float32",
                 "set_module_options", "get_device", "synchronize", "init"):
        assert hasattr(wp, name), name


# ---- launch geometry (no kernel needed) ------------------------------------------------

def test_linear_block_mapping():
    sig, block, grid = launch_geometry((1000,), 256)
    assert sig == LaunchSig(1, 1) and block == (256, 1, 1) and grid == (4, 1, 1)
    sig, block, grid = launch_geometry((10, 30), 64)
    assert sig == LaunchSig(2, 1) and block == (64, 1, 1) and grid == (5, 1, 1)


def test_nd_block_mapping_puts_the_last_dimension_on_x():
    sig, block, grid = launch_geometry((30, 100), (8, 32))
    assert sig == LaunchSig(2, 2) and block == (32, 8, 1) and grid == (4, 4, 1)
    sig, block, grid = launch_geometry((5, 6, 7), (1, 2, 4))
    assert sig == LaunchSig(3, 3) and block == (4, 2, 1) and grid == (2, 3, 5)


def test_normalise_dim():
    assert normalise_dim(5) == (5,) and normalise_dim((2, 3)) == (2, 3)
    assert normalise_dim(np.int64(4)) == (4,)
    assert normalise_dim((1, 2, 3, 4)) == (1, 2, 3, 4)      # Warp launches up to 4-d
    with pytest.raises(simt.LaunchError, match="1 to 4 dimensions"):
        normalise_dim((1, 2, 3, 4, 5))


# ---- command line ---------------------------------------------------------------------

def test_cli_demo_checks_against_numpy_and_prints_metrics(capsys):
    from simt.cli import main
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert out.count("matches numpy") == 4 and "branch efficiency" in out
    assert "identical to cpu:precise" in out and "bank conflicts" in out


def test_cli_version(capsys):
    from simt.cli import main
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and simt.__version__ in capsys.readouterr().out


# ---- copy=False ----------------------------------------------------------------------------

@simt.kernel
def _add_one(a: simt.array(dtype=float)):
    i = simt.tid()
    a[i] = a[i] + 1.0


def test_copy_false_aliases_numpy_memory_as_warp_does_on_the_cpu():
    src = np.zeros(64, np.float32)
    a = simt.array(src, dtype=simt.float32, copy=False)
    for device in ("cpu", "cpu:precise"):
        simt.launch(_add_one, 64, [a], device=device)
    assert (src == 2.0).all()                       # the kernels wrote into src itself
    vecs = np.zeros((4, 3), np.float32)
    v = simt.array(vecs, dtype=simt.vec3, copy=False)
    v.fill_(5.0)
    assert (vecs == 5.0).all()
    copied = simt.array(src, dtype=simt.float32)    # copy=True stays a copy
    simt.launch(_add_one, 64, [copied])
    assert (src == 2.0).all()
    for bad, why in ((np.zeros(8), "dtype is float64"),
                     (np.zeros((8, 2), np.float32)[:, 0], "not C-contiguous")):
        with pytest.raises(ValueError, match=why):
            simt.array(bad, dtype=simt.float32, copy=False)


def test_host_assignment_by_index_is_a_clear_error():
    a = simt.zeros(4)
    with pytest.raises(simt.SimtError, match=r"assigned by index on the host \(a\[0\] = \.\.\.\)"):
        a[0] = 1.0


def test_arrays_of_structs_holding_arrays_are_a_clear_error():
    @simt.struct
    class Holder:
        values: simt.array(dtype=float)

    with pytest.raises(simt.SimtError, match="struct Holder holds an array \\('values'\\)"):
        simt.zeros(3, dtype=Holder)
