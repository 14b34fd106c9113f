"""Kernels compiled by Numba-CUDA and Triton (no GPU: their PTX compilers only), imported with
simt.from_numba / simt.from_triton and run on the precise engine, against numpy.

The kernels are tests/ptx_corpus/numba_kernels.py and triton_kernels.py; their committed PTX
(numba_kernels.ptx, triton_*.ptx) feeds the census in test_ptx_import.py.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import simt
from simt.errors import CompileError, LaunchError

CORPUS = Path(__file__).parent / "ptx_corpus"
sys.path.insert(0, str(CORPUS))
DEV = "cpu:precise"

numba_cuda = pytest.importorskip("numba.cuda", reason="needs numba-cuda (the numba-cuda extra)")
if not hasattr(numba_cuda, "compile_ptx"):
    pytest.skip("needs numba-cuda's compile_ptx", allow_module_level=True)

import numba_kernels as nk  # noqa: E402


def numba_kernel(name: str):
    return simt.from_numba(getattr(nk, name), nk.SIGNATURES[name])


def run(k, **kw):
    return simt.launch(k, device=kw.pop("device", DEV), **kw)


# --- Numba-CUDA ------------------------------------------------------------------------------

def test_numba_axpy_matches_numpy_and_points_at_python_lines():
    rng = np.random.default_rng(1)
    n = 300
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = simt.zeros(n, dtype=simt.float32)
    r = run(numba_kernel("axpy"), grid=3, block=128,
            inputs=[np.float32(1.5), simt.array(x), simt.array(y), out])
    fused = (1.5 * x.astype(np.float64) + y).astype(np.float32)    # one rounding: an fma
    np.testing.assert_array_equal(out.numpy(), fused)
    lines = r.lines
    source = (CORPUS / "numba_kernels.py").read_text().split("\n")
    assert source.index("        out[i] = a * x[i] + y[i]") + 1 in set(lines["line"])
    assert any(f.endswith("numba_kernels.py") for f in lines.attrs["files"].values())


def test_numba_transpose_2d_arrays_and_shared_memory():
    src = np.arange(40 * 24, dtype=np.float32).reshape(40, 24)
    dst = simt.zeros((24, 40), dtype=simt.float32)
    run(numba_kernel("transpose"), grid=(2, 3), block=(16, 16), inputs=[simt.array(src), dst])
    np.testing.assert_array_equal(dst.numpy(), src.T)


def test_numba_block_sum_shared_tree_and_atomic():
    x = np.random.default_rng(2).standard_normal(500).astype(np.float32)
    out = simt.zeros(1, dtype=simt.float32)
    run(numba_kernel("block_sum"), grid=4, block=128, inputs=[simt.array(x), out])
    np.testing.assert_allclose(out.numpy()[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-5)


def test_numba_histogram_integer_atomics():
    v = np.random.default_rng(3).integers(0, 1000, 700).astype(np.int32)
    bins = simt.zeros(7, dtype=simt.int32)
    run(numba_kernel("histogram"), grid=3, block=256, inputs=[simt.array(v), bins])
    np.testing.assert_array_equal(bins.numpy(), np.bincount(v % 7, minlength=7))


def test_numba_math_functions_carry_chains_and_packing():
    x = np.linspace(0.01, 40.0, 64, dtype=np.float32)     # sin's large-argument path too
    out = simt.zeros((64, 6), dtype=simt.float32)
    run(numba_kernel("math_funcs"), grid=1, block=64, inputs=[simt.array(x), out])
    x64 = x.astype(np.float64)
    want = np.stack([np.exp(x64), np.sqrt(x64), np.log(x64 + 1), np.sin(x64), np.tanh(x64), x64 ** 3], 1)
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-6, atol=1e-6)


def test_numba_integer_semantics_floor_division():
    rng = np.random.default_rng(4)
    a = rng.integers(-1000, 1000, 96).astype(np.int32)
    b = rng.integers(1, 50, 96).astype(np.int32) * rng.choice([-1, 1], 96).astype(np.int32)
    out = simt.zeros((96, 5), dtype=simt.int32)
    run(numba_kernel("int_ops"), grid=1, block=96, inputs=[simt.array(a), simt.array(b), out])
    want = np.stack([a // b, a % b, (a << 3) ^ (b >> 1), np.maximum(a, b), np.minimum(a * b, 1000)], 1)
    np.testing.assert_array_equal(out.numpy(), want)     # Python's floor // and %, as Numba


def test_numba_warp_shuffle_reduction():
    x = np.random.default_rng(5).standard_normal(128).astype(np.float32)
    out = simt.zeros(4, dtype=simt.float32)
    run(numba_kernel("warp_reduce"), grid=1, block=128, inputs=[simt.array(x), out])
    np.testing.assert_allclose(out.numpy(), x.reshape(4, 32).sum(1), rtol=1e-5, atol=1e-6)


def test_numba_float64_loop_on_trace_engine(tmp_path):
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((33, 5)), rng.standard_normal((33, 5))
    out = simt.zeros(33, dtype=simt.float64)
    run(numba_kernel("f64_dot"), grid=2, block=32, inputs=[simt.array(x), simt.array(y), out],
        device="cpu:trace", trace=str(tmp_path / "run.jsonl"))
    np.testing.assert_allclose(out.numpy(), (x * y).sum(1), rtol=1e-12)


def test_numba_wrong_arguments_are_launch_errors_naming_them():
    k = numba_kernel("axpy")
    a = simt.zeros(8, dtype=simt.float32)
    with pytest.raises(LaunchError, match="takes 4 arguments"):
        run(k, grid=1, block=8, inputs=[1.0, a, a])
    with pytest.raises(LaunchError, match=r"argument 1 'x'.*float32.*int32"):
        run(k, grid=1, block=8, inputs=[1.0, simt.zeros(8, dtype=simt.int32), a, a])
    with pytest.raises(LaunchError, match=r"argument 2 'y'.*expected a simt array"):
        run(k, grid=1, block=8, inputs=[1.0, a, np.zeros(8, np.float32), a])


def test_numba_compile_errors_are_simt_errors():
    def bad(x):
        x[0] = undefined_name  # noqa: F821
    with pytest.raises(CompileError, match="numba-cuda could not compile bad"):
        simt.from_numba(bad, "void(float32[:])")
