"""Warp 1.19's kernel-language surface on simt: the kernels of tests/warp_surface_kernels.py
run verbatim under warp-lang's CPU backend and under simt, and must agree (integers and the
random generator's integer and uniform outputs bit for bit, everything else within the ulps
transcendental functions may differ by); plus what needs no warp-lang: printing, errors for
the unsupported parts, float16 rounding, the engines and the PTX backend."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import simt as wp
from simt.ir.registry import LIBRARY, REGISTRY, BuiltinFunction

import warp_surface_kernels as K

HERE = Path(__file__).parent
N = 8


# --- one set of inputs, built with either library --------------------------------------------------

def random_family_args(api, n=N):
    return [42, api.zeros((n, 4), dtype=int), api.zeros((n, 3), dtype=api.uint32),
            api.zeros((n, 6), dtype=float), api.zeros((n, 5), dtype=api.vec2),
            api.zeros((n, 5), dtype=api.vec3)]


def transform_args(api, n=N):
    rng = np.random.default_rng(3)
    return [api.array(rng.normal(size=(n, 3)), dtype=api.vec3),
            api.array(np.linspace(0.1, 2.0, n), dtype=float),
            api.zeros((n, 5), dtype=api.vec3), api.zeros((n, 5), dtype=api.quat),
            api.zeros((n, 4), dtype=api.spatial_vector), api.zeros((n, 8), dtype=float)]


def struct_args(api, module, n=N):
    parts = api.zeros(n, dtype=module.Particle)
    data = parts.numpy()
    data["pos"] = np.arange(3 * n).reshape(n, 3) * 0.25
    data["mass"] = 1.5
    data["tag"] = np.arange(n)
    parts = api.array(data, dtype=module.Particle)
    scene = module.Scene()
    scene.gravity = api.vec3(0.0, 0.0, -9.8)
    scene.scale = 0.5
    scene.masses = api.array(np.arange(n, dtype=np.float32), dtype=float)
    return [parts, scene, api.zeros(n, dtype=api.vec3),
            api.array(np.linspace(0.0, 2.0, n), dtype=api.float16),
            api.array(np.arange(n) * 50, dtype=api.int16),
            api.array(np.arange(n), dtype=api.uint16),
            api.array(np.linspace(-3.0, 5.0, n), dtype=api.bfloat16)]


def form_args(api, n=N):
    return [api.array(np.arange(n, dtype=np.float32), dtype=float),
            api.array(np.ones((n, 1, 3), dtype=np.float32), dtype=api.vec3),
            api.array(np.full(n, 0.5, dtype=np.float32), dtype=float), api.zeros(n, dtype=float),
            api.array(np.array([0, -1, 0], dtype=np.int32), dtype=api.int32)]


def function_args(api, n=N):
    return [api.array(np.linspace(-2.0, 2.0, n, dtype=np.float32), dtype=float),
            api.zeros((n, 7), dtype=float)]


def subscript_args(api, n=N):
    return [api.array(np.linspace(-2.0, 2.0, n, dtype=np.float32), dtype=float),
            api.zeros((n, 3), dtype=float)]


def slice_args(api, bounds=(7, 0, -3), n=N):
    grid = np.arange(8 * 3, dtype=np.float32).reshape(8, 3)
    return [api.array(grid, dtype=float), *bounds, api.zeros(8, dtype=api.vec3),
            api.zeros((n, 4), dtype=float)]


def constant_branch_args(api, n=N):
    return [api.zeros((n, 2), dtype=int)]


def transform_ref_args(api, n=N):
    return [api.array(np.linspace(-2.0, 2.0, n, dtype=np.float32), dtype=float),
            api.zeros((n, 2), dtype=float)]


def outputs(args) -> list[np.ndarray]:
    return [np.array(a.numpy()) for a in args if hasattr(a, "numpy")]


def run(api, kernel, args, device):
    api.launch(kernel, dim=N, inputs=args, device=device)
    return outputs(args)


# --- against warp-lang ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def on_warp(tmp_path_factory):
    warp = pytest.importorskip("warp")
    from test_warp_compat import load_under_warp
    warp.config.quiet = True
    warp.init()
    module = load_under_warp(HERE / "warp_surface_kernels.py", tmp_path_factory.mktemp("surface"),
                             "simt_warp_surface_on_warp")
    return warp, module


def assert_close(got, want, exact: bool, what: str):
    if want.dtype.names:
        for name in want.dtype.names:
            assert_close(np.asarray(got[name]), np.asarray(want[name]), exact, f"{what}.{name}")
        return
    assert got.dtype == want.dtype, what
    if exact or not np.issubdtype(want.dtype, np.floating):
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6, err_msg=what)


def test_random_family_matches_warp(on_warp):
    warp, wk = on_warp
    want = run(warp, wk.random_family, random_family_args(warp), "cpu")
    got = run(wp, K.random_family, random_family_args(wp), "cpu:precise")
    ints, uints, floats, vec2s, vec3s = zip(got, want)
    assert_close(*ints, True, "randi / poisson")
    assert_close(*uints, True, "randu / state")
    assert_close(got[2][:, :2], want[2][:, :2], True, "randf")   # no rounding but the generator's
    assert_close(*floats, False, "randn / noise")
    assert_close(*vec2s, False, "2-D samplers")
    assert_close(*vec3s, False, "3-D samplers")


def test_transforms_spatial_quaternions_match_warp(on_warp):
    warp, wk = on_warp
    want = run(warp, wk.transforms_and_spatial, transform_args(warp), "cpu")
    got = run(wp, K.transforms_and_spatial, transform_args(wp), "cpu:precise")
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, False, f"output {k}")


def test_structs_and_small_types_match_warp(on_warp):
    warp, wk = on_warp
    want = run(warp, wk.structs_and_types, struct_args(warp, wk), "cpu")
    got = run(wp, K.structs_and_types, struct_args(wp, K), "cpu:precise")
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, True, f"output {k}")      # + - * only: bit for bit


def test_annotation_spellings_and_forms_match_warp(on_warp):
    warp, wk = on_warp
    want = run(warp, wk.annotations_and_forms, form_args(warp), "cpu")
    got = run(wp, K.annotations_and_forms, form_args(wp), "cpu:precise")
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, True, f"output {k}")


def view_args(api, n=N):
    return [api.array(np.arange(4 * n, dtype=np.float32).reshape(n, 4), dtype=float),
            api.array(np.arange(6 * n, dtype=np.float32).reshape(n, 2, 3), dtype=float),
            api.zeros(n, dtype=float)]


def test_array_views_match_warp(on_warp):
    warp, wk = on_warp
    want = run(warp, wk.array_views, view_args(warp), "cpu")
    got = run(wp, K.array_views, view_args(wp), "cpu:precise")
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, True, f"output {k}")


def test_struct_array_fields_and_type_of_match_warp(on_warp):
    warp, wk = on_warp
    make = (lambda api: [api.array(np.arange(N, dtype=np.float32), dtype=float),
                         api.zeros(N, dtype=float)])
    want = run(warp, wk.struct_array_fields, make(warp), "cpu")
    got = run(wp, K.struct_array_fields, make(wp), "cpu:precise")
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, True, f"output {k}")


def test_none_array_argument_is_an_empty_array():
    out = wp.zeros(N, dtype=float)
    wp.launch(K.struct_array_fields, dim=N, inputs=[None, out], device="cpu:precise")
    np.testing.assert_array_equal(out.numpy(), 0.0)     # `if masses:` is false


# --- the engines agree, the PTX assembles ----------------------------------------------------------

@wp.kernel
def uniform_draws(seed: int, ints: wp.array2d[int], floats: wp.array2d[float]):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    ints[i, 0] = wp.randi(state)
    ints[i, 1] = wp.randi(state, -7, 9)
    ints[i, 2] = int(wp.randu(state) >> wp.uint32(3))
    floats[i, 0] = wp.randf(state)
    floats[i, 1] = wp.randf(state, -1.0, 4.0)


def test_fast_engine_matches_precise_engine():
    """Bit for bit (no transcendental function is involved)."""
    for kernel, make in ((K.structs_and_types, lambda: struct_args(wp, K)),
                         (K.annotations_and_forms, lambda: form_args(wp)),
                         (K.array_views, lambda: view_args(wp)),
                         (uniform_draws, lambda: [9, wp.zeros((N, 3), dtype=int),
                                                  wp.zeros((N, 2), dtype=float)])):
        precise = run(wp, kernel, make(), "cpu:precise")
        fast = run(wp, kernel, make(), "cpu")
        for k, (p, f) in enumerate(zip(precise, fast)):
            assert_close(f, p, True, f"{kernel.key} output {k}")


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not installed")
@pytest.mark.parametrize("kernel", [K.random_family, K.transforms_and_spatial, K.structs_and_types,
                                    K.annotations_and_forms, K.array_views], ids=lambda k: k.key)
def test_ptx_assembles(kernel, tmp_path):
    path = tmp_path / f"{kernel.key}.ptx"
    path.write_text(wp.ptx(kernel))
    done = subprocess.run(["ptxas", "-arch=sm_90", str(path), "-o", str(tmp_path / "out.cubin")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- printing ----------------------------------------------------------------------------------------

@wp.kernel
def printing(values: wp.array[float]):
    i = wp.tid()
    wp.printf("thread %d value %.2f big %lld\n", i, values[i], wp.int64(1) << wp.int64(40))
    print(wp.vec3(1.0, 2.5, float(i)))
    wp.expect_eq(i, 0)
    wp.expect_near(values[i], 1.0, 0.25)


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_printf_print_and_expect(device, capfd):
    wp.launch(printing, dim=2, inputs=[wp.array([1.0, 2.0], dtype=float)], device=device)
    out = capfd.readouterr().out
    for line in ("thread 0 value 1.00 big 1099511627776", "thread 1 value 2.00 big 1099511627776",
                 "1 2.5 0 ", "1 2.5 1 ", "Error, expect_eq() failed:", "\t Expected: 0",
                 "\t Actual: 1", "Error, expect_near() failed with tolerance 0.25"):
        assert line in out, (line, out)
    assert out.count("expect_eq() failed") == 1 and out.count("expect_near() failed") == 1


def test_printf_format_must_fit_its_values():
    @wp.kernel
    def bad(x: wp.array[float]):
        wp.printf("%d and %d\n", 1)

    with pytest.raises(wp.CompileError, match="2 conversion"):
        wp.mir(bad)


# --- what simt does not support says so ------------------------------------------------------------

@pytest.mark.parametrize("name", ["tile_load", "mesh_query_point", "volume_sample_f", "bvh_query_ray",
                                  "texture_sample", "hash_grid_query"])
def test_unsupported_warp_builtins_are_compile_errors_naming_them(name, tmp_path):
    handle = getattr(wp, name)                       # never an AttributeError
    namespace = {"wp": wp}
    source = (f"def k(x: wp.array(dtype=float)):\n    wp.{name}(x)\n")
    path = tmp_path / f"probe_{name}.py"
    path.write_text(source)
    exec(compile(source, str(path), "exec"), namespace)
    kernel = wp.kernel(namespace["k"])
    with pytest.raises(wp.CompileError, match=f"wp.{name}\\(\\) is not supported by simt"):
        wp.mir(kernel)
    assert handle.name == name


def test_every_warp_builtin_name_is_known():
    pytest.importorskip("warp")
    from warp._src import context
    from simt.ir.warp_names import WARP_BUILTINS
    missing = set(context.builtin_functions) - set(WARP_BUILTINS)
    assert not missing, f"regenerate with tools/gen_warp_coverage.py: {sorted(missing)[:5]}"


def test_library_builtins_are_exported_and_documented():
    for name, lib in LIBRARY.items():
        assert isinstance(getattr(wp, name), BuiltinFunction), name
        assert lib.doc and name not in REGISTRY, name


# --- float16: every operation rounds to float16, as Warp's half does ----------------------------

@wp.kernel
def half_chain(a: wp.array[wp.float16], b: wp.array[wp.float16], out: wp.array[wp.float16]):
    i = wp.tid()
    out[i] = (a[i] * b[i] + a[i]) / b[i] - wp.float16(0.3)


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_float16_rounds_after_each_operation(device):
    rng = np.random.default_rng(5)
    a = rng.uniform(-4, 4, N).astype(np.float16)
    b = rng.uniform(0.5, 4, N).astype(np.float16)
    out = wp.zeros(N, dtype=wp.float16)
    wp.launch(half_chain, dim=N, inputs=[wp.array(a), wp.array(b), out], device=device)
    want = (a * b + a) / b - np.float16(0.3)      # numpy's float16 rounds each operation too
    np.testing.assert_array_equal(out.numpy(), want)


# --- on a GPU (skipped without one): the same answers from the PTX backend ------------------

@pytest.mark.simt_gpu
@pytest.mark.parametrize("kernel, make, exact", [
    (K.structs_and_types, lambda: struct_args(wp, K), True),
    (K.annotations_and_forms, lambda: form_args(wp), True),
    (K.array_views, lambda: view_args(wp), True),
    (K.random_family, lambda: random_family_args(wp), False),
    (K.transforms_and_spatial, lambda: transform_args(wp), False),
    (K.function_parameters, lambda: function_args(wp), True),
    (K.negative_subscripts, lambda: subscript_args(wp), True),
    (K.array_slices, lambda: slice_args(wp), True),
    (K.transform_part_refs, lambda: transform_ref_args(wp), True),
    (K.constant_branches, lambda: constant_branch_args(wp), True),
], ids=lambda x: getattr(x, "key", ""))
def test_gpu_matches_precise_engine(kernel, make, exact):
    want = run(wp, kernel, make(), "cpu:precise")
    got = run(wp, kernel, [a.to("cuda") if hasattr(a, "to") and not isinstance(a, np.ndarray)
                           else a for a in make()], "cuda")
    for k, (g, w) in enumerate(zip(got, want)):
        if not exact and np.issubdtype(w.dtype, np.floating):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4, err_msg=f"output {k}")
        else:
            assert_close(g, w, exact, f"output {k}")


@pytest.mark.simt_gpu
def test_gpu_prints(capfd):
    wp.launch(printing, dim=2, inputs=[wp.array([1.0, 2.0], dtype=float, device="cuda")],
              device="cuda")
    wp.synchronize()
    out = capfd.readouterr().out
    assert "thread 1 value 2.00 big 1099511627776" in out and "expect_eq() failed" in out


def matches_warp(on_warp, name: str, make, outputs=(1,)):
    """Kernel ``name`` of warp_surface_kernels on warp-lang's CPU backend, then on both CPU
    engines: the listed outputs bit for bit."""
    warp, wk = on_warp
    want = run(warp, getattr(wk, name), make(warp), "cpu")
    for device in ("cpu:precise", "cpu"):
        got = run(wp, getattr(K, name), make(wp), device)
        for k in outputs:
            assert_close(got[k], want[k], True, f"{name} output {k} on {device}")


def test_function_parameters_match_warp(on_warp):
    """wp.Function parameters: user functions, a default, keywords, a local alias, builtins."""
    matches_warp(on_warp, "function_parameters", function_args)


def test_negative_subscripts_and_constant_local_slice_bounds_match_warp(on_warp):
    matches_warp(on_warp, "negative_subscripts", subscript_args)


@pytest.mark.parametrize("bounds", [(1, 8, 2), (7, 0, -3), (-3, 100, 1)])
def test_array_slices_in_kernels_match_warp(on_warp, bounds):
    """Slices with runtime bounds and steps (negative, clamped), views of views, slices passed
    to functions and written through: each as Warp computes it."""
    matches_warp(on_warp, "array_slices", lambda api: slice_args(api, bounds), outputs=(1, 2))


def test_references_to_transform_parts_match_warp(on_warp):
    matches_warp(on_warp, "transform_part_refs", transform_ref_args)


def test_branches_on_module_constants_match_warp(on_warp):
    """if CONSTANT: only the branch taken is compiled, so a name (here a function alias) bound
    in it is bound after it."""
    matches_warp(on_warp, "constant_branches", constant_branch_args, outputs=(0,))
