"""The C++ program of tests/test_aot.py on cuda:0: kernels built with target="cuda" give the
Python ``cuda`` backend's results; the cubin with the ELF note and the PTX fallback load and
launch on their own; bad calls are refused; a rebuilt kernel replaces the loaded one.

Marked ``simt_gpu``: skips where there is no usable GPU (CI). benchmarks/aot/run_gpu.sh runs it.
"""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from simt import suite
from simt.aot import build_kernel

import test_aot_kernels as K

pytestmark = [pytest.mark.simt_gpu,
              pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")]

GPU = "cuda:0"
SUITE_CASES = ("saxpy", "vec_mat_quat", "mandelbrot", "arith_semantics", "block_sum_shared",
               "warp_shuffle_sum", "histogram_shared", "matmul_tiled", "transpose_tile")
# outputs whose bits depend on the order atomics land in on a GPU: compared within a tolerance
# (float sums) or as multisets (slots taken from an atomic counter)
ORDER_DEPENDENT = {"warp_shuffle_sum": {"total"}, "atomics_used": {"fsum", "slots"},
                   "shared_scan": {"sums"}}


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return K.compile_driver(tmp_path_factory.mktemp("driver"))


def _arch() -> str:
    from simt.gpu import runtime
    return runtime.context(0).arch


def _compare(name: str, python: dict, cpp: dict) -> None:
    loose = ORDER_DEPENDENT.get(name, set())
    assert K.differing({k: v for k, v in python.items() if k not in loose},
                       {k: v for k, v in cpp.items() if k not in loose}) == []
    for k in loose:
        if python[k].dtype.kind == "f":
            np.testing.assert_allclose(cpp[k], python[k], rtol=1e-5, atol=1e-4)
        else:
            assert sorted(cpp[k].tolist()) == sorted(python[k].tolist())


@pytest.mark.parametrize("name", SUITE_CASES)
def test_suite_kernel_from_cpp_on_gpu_matches_python_cuda_backend(name, driver, tmp_path):
    case = next(c for c in suite.CASES if c.name == name)
    inputs, dim, block = case.make_inputs(np.random.default_rng(3), case.sizes["small"])
    out = build_kernel(case.kernel, target="cuda", arch=_arch(), out_dir=tmp_path / "build",
                       block_dim=block, dim_ndim=len(dim) if isinstance(dim, tuple) else 1)
    got = K.run_driver(driver, GPU, out, inputs, dim, block, tmp_path)
    _compare(name, K.engine_outputs(case.kernel, inputs, dim, block, "cuda"), got)


@pytest.mark.parametrize("name", list(K.extra_cases()))
def test_more_ops_from_cpp_on_gpu_match_python_cuda_backend(name, driver, tmp_path):
    inputs, dim, block = K.extra_cases()[name]
    kernel = getattr(K, name)
    out = build_kernel(kernel, target="cuda", arch=_arch(), out_dir=tmp_path / "build", block_dim=block)
    got = K.run_driver(driver, GPU, out, inputs, dim, block, tmp_path)
    _compare(name, K.engine_outputs(kernel, inputs, dim, block, "cuda"), got)


@pytest.mark.parametrize("image", ["cubin", "ptx"])
def test_noted_cubin_and_ptx_fallback_load_and_launch(image, driver, tmp_path):
    """The manifest pointed at the cubin carrying the ELF note, or at the PTX (JIT), instead
    of the fatbin: the driver loads either and the results are the same."""
    inputs, dim, block = K.extra_cases()["float_math"]
    out = build_kernel(K.float_math, target="cuda", arch=_arch(), out_dir=tmp_path / "build", block_dim=block)
    manifest = json.loads((out / "manifest.json").read_text())
    files = manifest["files"]
    files["fatbin"] = files["cubin"][_arch()] if image == "cubin" else files["ptx"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    got = K.run_driver(driver, GPU, out, inputs, dim, block, tmp_path)
    _compare("float_math", K.engine_outputs(K.float_math, inputs, dim, block, "cuda"), got)


def test_bad_calls_are_refused_on_gpu(driver, tmp_path):
    out = build_kernel(K.saxpy_like(), target="cuda", arch=_arch(), out_dir=tmp_path / "saxpy")
    proc = subprocess.run([str(driver), "badcalls", GPU, str(out)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "refused 9" in proc.stdout and "good: accepted" in proc.stdout
    assert "kernel 'saxpy', parameter 'x' (argument 1): expected dtype float32, got float64" in proc.stdout


def test_hot_reload_on_gpu(driver, tmp_path):
    out = tmp_path / "fill"
    build_kernel(K.fill_version(1), target="cuda", arch=_arch(), out_dir=out)
    proc = subprocess.Popen([str(driver), "reload", GPU, "fill", str(out)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        build_kernel(K.fill_version(2), target="cuda", arch=_arch(), out_dir=out)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        second = proc.stdout.readline()
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert first.split() == ["generation", "0:"] + [str(100 + i) for i in range(8)]
    assert second.split() == ["generation", "1:"] + [str(200 + i) for i in range(8)]


def test_vector_and_matrix_values_on_gpu(driver, tmp_path):
    inputs = [suite.case.ScalarInput("v", np.array([1.5, -2.25, 3.0], np.float32)),
              suite.case.ScalarInput("m", np.array([[1.0, 2.5], [-3.0, 4.0]], np.float32)),
              suite.case.ScalarInput("s", np.float32(0.125)),
              K.array_input("out", np.zeros(40, np.float32))]
    out = build_kernel(K.vector_params, target="cuda", arch=_arch(), out_dir=tmp_path / "build")
    got = K.run_driver(driver, GPU, out, inputs, 40, 256, tmp_path)
    _compare("vector_params", K.engine_outputs(K.vector_params, inputs, 40, 256, "cuda"), got)


def test_struct_parameters_on_gpu_match_python_cuda_backend(tmp_path):
    """tests/test_aot_struct.cpp, compiled against the struct_params.h of the cuda build, on
    cuda:0: the struct's bytes unpacked into the kernel's parameters give the Python cuda
    backend's bits; calls that do not fit are refused there too."""
    out = build_kernel(K.struct_params, target="cuda", arch=_arch(), out_dir=tmp_path / "build")
    program = K.compile_struct_program(out, tmp_path)
    n = 200
    for seed in (0, 1):
        inputs = K.struct_inputs(n, seed)
        got = K.struct_outputs(K.run_struct_program(program, "run", GPU, out, n, inputs))
        _compare("struct_params", K.engine_outputs(K.struct_params, inputs, n, 256, "cuda"), got)
        cpu = K.engine_outputs(K.struct_params, inputs, n, 256, "cpu")
        assert got["ids"].tobytes() == cpu["ids"].tobytes()
    bad = K.run_struct_program(program, "bad", GPU, out, 32, K.struct_inputs(32))
    assert "short: kernel 'struct_params', parameter 'b' (argument 0): expected struct Body of 72 bytes" in bad
    assert "good: accepted" in bad and bad.count("kernel 'struct_params'") == 8


def test_struct_with_array_fields_on_gpu(tmp_path):
    """A C program passing a struct whose array fields hold device pointers, on cuda:0."""
    out = build_kernel(K.struct_with_array, target="cuda", arch=_arch(), out_dir=tmp_path / "build")
    exe = K.compile_c_program(K.C_ARRAY_STRUCT_PROGRAM, out, tmp_path)
    proc = subprocess.run([str(exe), GPU, str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    got = {"out": np.array([float.fromhex(v) for v in lines[:40]], np.float32)}
    python, _ = K.array_struct_expected("cuda")
    _compare("struct_with_array", python, got)
    assert "null: kernel 'struct_with_array', parameter 'h' (argument 0): field 'grid' holds a null array " \
           "pointer" in proc.stdout
