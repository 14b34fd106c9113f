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



def _numba_kernels():
    cuda = pytest.importorskip("numba.cuda", reason="needs numba-cuda (the numba-cuda extra)")
    if not hasattr(cuda, "compile_ptx"):
        pytest.skip("needs numba-cuda's compile_ptx")
    import numba_kernels
    return numba_kernels


def numba_kernel(name: str):
    nk = _numba_kernels()
    return simt.from_numba(getattr(nk, name), nk.SIGNATURES[name])


def triton_kernel(name: str, signature=None, constexprs=None, **changes):
    pytest.importorskip("triton", reason="needs Triton (the triton extra)")
    import triton_kernels as tk
    sig, ce, options = tk.KERNELS[name]
    return simt.from_triton(getattr(tk, name), signature or sig, ce if constexprs is None else constexprs,
                            **{**options, **changes})


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


def test_numba_kernel_from_ptx_compiled_elsewhere(tmp_path):
    """ptx= takes the PTX numba-cuda made of the function on another machine (the corpus's,
    committed): the kernel runs as a freshly compiled one does, from text or from a path."""
    nk = _numba_kernels()
    path = CORPUS / "numba" / "axpy_sm_80.ptx"
    x, y = np.arange(200, dtype=np.float32), np.full(200, 2.0, np.float32)
    outs = []
    for ptx in (path, path.read_text()):
        k = simt.from_numba(nk.axpy, nk.SIGNATURES["axpy"], ptx=ptx)
        out = simt.zeros(200, dtype=simt.float32)
        run(k, grid=1, block=256, inputs=[np.float32(0.5), simt.array(x), simt.array(y), out])
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[0], 0.5 * x + y)
    np.testing.assert_array_equal(outs[1], outs[0])
    with pytest.raises(simt.errors.SimtError, match="cannot read the PTX file"):
        simt.from_numba(nk.axpy, nk.SIGNATURES["axpy"], ptx=tmp_path / "missing.ptx")


# --- Triton ----------------------------------------------------------------------------------

@pytest.mark.parametrize("device", ["cpu:precise", "cpu:trace"])
def test_triton_vector_add_masks_the_tail(device, tmp_path):
    n = 700
    rng = np.random.default_rng(10)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = simt.zeros(n + 5, dtype=simt.float32)                 # past n stays untouched
    k = triton_kernel("add_kernel")
    trace = {"trace": str(tmp_path / "add.jsonl")} if device == "cpu:trace" else {}
    r = run(k, grid=(3,), inputs=[simt.array(x), simt.array(y), out, n], device=device, **trace)
    np.testing.assert_array_equal(out.numpy()[:n], x + y)
    np.testing.assert_array_equal(out.numpy()[n:], 0)
    assert any(f.endswith("triton_kernels.py") for f in r.lines.attrs["files"].values())


def test_triton_softmax_rows_dynamic_shared_memory():
    x = np.random.default_rng(11).standard_normal((6, 100)).astype(np.float32) * 4
    out = simt.zeros((6, 100), dtype=simt.float32)
    k = triton_kernel("softmax_kernel")
    assert k.dynamic_shared_bytes > 0 and k.entry.shared[0].dynamic     # reductions across warps
    run(k, grid=(6,), inputs=[out, simt.array(x), 100, 100, 100])
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_triton_fp16_matmul_mma_and_ldmatrix():
    M, N, K = 20, 40, 48
    rng = np.random.default_rng(12)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = simt.zeros((M, N), dtype=simt.float32)
    k = triton_kernel("matmul_kernel")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in _opcodes(k)
    run(k, grid=(1, 2), inputs=[simt.array(a), simt.array(b), c, M, N, K, K, 1, N, 1, N, 1])
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-5, atol=1e-5)     # f32 sums of exact products


def test_triton_bf16_matmul_pipelined_with_cp_async():
    from simt.ir import bfloat16
    M, N, K = 32, 48, 64
    rng = np.random.default_rng(13)
    a = bfloat16.from_bits(bfloat16.to_bits(rng.standard_normal((M, K))))
    b = bfloat16.from_bits(bfloat16.to_bits(rng.standard_normal((K, N))))
    c = simt.zeros((M, N), dtype=simt.float32)
    k = triton_kernel("matmul_pipelined")
    assert {"cp.async.cg.shared.global", "cp.async.wait_group"} <= _opcodes(k)
    run(k, grid=(1, 2), inputs=[simt.array(a, dtype=simt.bfloat16), simt.array(b, dtype=simt.bfloat16),
                                c, M, N, K, K, N, N])
    np.testing.assert_allclose(c.numpy(), a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)
    with pytest.raises(LaunchError, match="'stride_am'.*divisible by 16"):
        run(k, grid=(1, 2), inputs=[simt.array(a, dtype=simt.bfloat16), simt.array(b, dtype=simt.bfloat16),
                                    c, M, N, K, K + 1, N, N])


def test_triton_half_arithmetic_rounds_like_numpy():
    from simt.ir import bfloat16
    n = 256
    rng = np.random.default_rng(14)
    x = (rng.standard_normal(n) * 30).astype(np.float16)
    y = bfloat16.from_bits(bfloat16.to_bits(rng.standard_normal(n).astype(np.float32)))
    out = simt.zeros(n, dtype=simt.float16)
    run(triton_kernel("half_kernel"), grid=(2,),
        inputs=[simt.array(x), simt.array(y, dtype=simt.bfloat16), out, n])
    square = x * x                                              # rounded to f16, as mul.f16
    fused = (square.astype(np.float64) + x.astype(np.float64) * y).astype(np.float32)
    np.testing.assert_array_equal(out.numpy(), fused.astype(np.float16))


def test_triton_launch_errors():
    k = triton_kernel("add_kernel")
    a = simt.zeros(8, dtype=simt.float32)
    with pytest.raises(LaunchError, match="block is 32 \\* num_warps = 128"):
        run(k, grid=(1,), block=(64,), inputs=[a, a, a, 8])
    with pytest.raises(LaunchError, match="'y_ptr'.*\\*fp32.*int32"):
        run(k, grid=(1,), inputs=[a, simt.zeros(8, dtype=simt.int32), a, 8])
    with pytest.raises(LaunchError, match="takes 4 arguments"):
        run(k, grid=(1,), inputs=[a, a, a])


def _opcodes(k) -> set[str]:
    from simt.ptx_import import parser
    return {s.full for s in k.entry.body if isinstance(s, parser.Instruction)}


# --- the compilers' corpus (committed PTX: runs without numba-cuda or Triton) -----------------

COMPILER_PTX = sorted((CORPUS / "numba").glob("*.ptx")) + sorted((CORPUS / "triton").glob("*.ptx"))


def test_compiler_corpus_is_there():
    assert {p.parent.name for p in COMPILER_PTX} == {"numba", "triton"}
    assert {"sm_80", "sm_90"} <= {p.stem[-5:] for p in COMPILER_PTX}


@pytest.mark.parametrize("path", COMPILER_PTX, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_census_of_compiler_corpus(path):
    """Fails when Numba's or Triton's committed PTX holds an instruction the importer does not
    lower (tools/gen_ptx_corpus.py rewrites the files)."""
    import json

    from simt.ir.verify import verify
    from simt.ptx_import import parser
    from simt.ptx_import.lower import HANDLERS
    module = parser.parse(path.read_text(), str(path))
    meta = json.loads((CORPUS / "triton" / "meta.json").read_text()).get(path.name, {})
    for name, entry in module.entries.items():
        for s in entry.body:
            if isinstance(s, parser.Instruction):
                assert s.opcode in HANDLERS, f"{path.name}:{s.line}: {s.full} has no handler"
        k = simt.from_ptx(path, name)
        k.dynamic_shared_bytes = meta.get("shared")
        verify(k.compile(frozenset(p.name for p in entry.params if p.type in ("u64", "b64"))))


def test_triton_layernorm_fp16_rows():
    rng = np.random.default_rng(15)
    x = rng.standard_normal((3, 200)).astype(np.float16)
    w = rng.standard_normal(200).astype(np.float32)
    out = simt.zeros((3, 200), dtype=simt.float16)
    run(triton_kernel("layernorm_kernel"), grid=(3,),
        inputs=[simt.array(x), simt.array(w), out, 200, np.float32(1e-5)])
    d = x.astype(np.float64) - x.astype(np.float64).mean(1, keepdims=True)
    want = d / np.sqrt((d * d).mean(1, keepdims=True) + 1e-5) * w
    np.testing.assert_allclose(out.numpy().astype(np.float64), want, rtol=1e-3, atol=1e-3)   # an f16 result


def test_triton_scan_argmax_and_acq_rel_atomics():
    n = 200
    x = np.random.default_rng(16).integers(-50, 50, n).astype(np.int32)
    csum, idx, hist = simt.zeros(n, dtype=simt.int32), simt.zeros(1, dtype=simt.int32), simt.zeros(8, dtype=simt.int32)
    run(triton_kernel("scan_argmax_kernel"), grid=(1,), inputs=[simt.array(x), csum, idx, hist, n])
    np.testing.assert_array_equal(csum.numpy(), np.cumsum(x))
    assert idx.numpy()[0] == np.argmax(x)
    np.testing.assert_array_equal(hist.numpy(), np.bincount(x & 7, minlength=8))


def test_triton_fused_f16_fma_is_correctly_rounded():
    n = 1000
    rng = np.random.default_rng(17)
    a, b = rng.standard_normal(n).astype(np.float16), rng.standard_normal(n).astype(np.float16)
    out = simt.zeros(n, dtype=simt.float16)
    k = triton_kernel("half_fma_kernel")
    assert "fma.rn.f16" in _opcodes(k)
    run(k, grid=(2,), inputs=[simt.array(a), simt.array(b), out, n])
    s = a + b                                           # add.f16
    np.testing.assert_array_equal(out.numpy(), (s.astype(np.float64) * a - b).astype(np.float16))


# --- hand-written PTX for the rest of the ISA (tests/ptx_corpus/isa_extras.ptx) ---------------

EXTRAS = CORPUS / "isa_extras.ptx"


def _pairs(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """u32 words of two 16-bit fields, ``lo`` in the low half (as PTX packs .f16x2)."""
    return lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))


def _halves_of(w: np.ndarray):
    return (w & 0xFFFF).astype(np.uint16), (w >> 16).astype(np.uint16)


def test_packed_half_arithmetic_and_conversions():
    from simt.ir import bfloat16
    n = 64
    rng = np.random.default_rng(20)
    xs = rng.standard_normal((n, 2)).astype(np.float16)
    ys = rng.standard_normal((n, 2)).astype(np.float16)
    # x*y + x rounded to f32 and then to f16 would be off by one ulp for these (a search)
    xs[0], ys[0] = np.array([1167, 1765], np.uint16).view(np.float16), np.array([8235, 10989], np.uint16).view(np.float16)
    x, y = _pairs(xs[:, 0].view(np.uint16), xs[:, 1].view(np.uint16)), _pairs(ys[:, 0].view(np.uint16), ys[:, 1].view(np.uint16))
    f = (rng.standard_normal(n) * 100).astype(np.float32)
    g = rng.standard_normal(n).astype(np.float32)
    out = simt.zeros(n * 10, dtype=simt.uint32)
    run(simt.from_ptx(EXTRAS, "halves"), grid=1, block=n,
        inputs=[simt.array(x), simt.array(y), simt.array(f), simt.array(g), out])
    o = out.numpy().reshape(n, 10)
    x64, y64 = xs.astype(np.float64), ys.astype(np.float64)

    def f16(v):         # one rounding from the exact value (exact in f64 here)
        v = v.astype(np.float16).view(np.uint16)
        return _pairs(v[:, 0], v[:, 1])
    np.testing.assert_array_equal(o[:, 0], f16(x64 + y64))
    np.testing.assert_array_equal(o[:, 1], f16(x64 * y64))
    np.testing.assert_array_equal(o[:, 2], f16(x64 * y64 + x64))
    np.testing.assert_array_equal(o[:, 3], x ^ np.uint32(0x80008000))
    np.testing.assert_array_equal(o[:, 4], f16(np.abs(y64)))
    bx = np.stack(_halves_of(x), 1)
    by = np.stack(_halves_of(y), 1)                  # the same bits read as bfloat16
    s = bfloat16.from_bits(bx).astype(np.float64) + bfloat16.from_bits(by)
    b = bfloat16.to_bits(s.astype(np.float32))       # f32 then bf16: rounding twice is exact here
    np.testing.assert_array_equal(o[:, 5], _pairs(b[:, 0], b[:, 1]))
    np.testing.assert_array_equal(o[:, 6], _pairs(g.astype(np.float16).view(np.uint16), f.astype(np.float16).view(np.uint16)))
    np.testing.assert_array_equal(o[:, 7], _pairs(bfloat16.to_bits(g), bfloat16.to_bits(f)))
    lo = np.minimum(xs[:, 0], ys[:, 0]).view(np.uint16)
    hi = np.maximum(xs[:, 1], ys[:, 1]).view(np.uint16)
    np.testing.assert_array_equal(o[:, 8], _pairs(lo, hi))
    np.testing.assert_array_equal(o[:, 9], (xs[:, 1] < ys[:, 1]) * 1 + (ys[:, 0] > 0) * 2)


def _prmt(a: int, b: int, c: int) -> int:
    """PTX ISA, prmt default mode: result byte k is byte (c >> 4k) & 7 of {b, a}, or its sign
    spread over the byte when bit 3 of that nibble is set."""
    source = (b << 32) | a
    out = 0
    for k in range(4):
        nib = (c >> (4 * k)) & 15
        byte = (source >> (8 * (nib & 7))) & 255
        if nib & 8:
            byte = 255 if byte & 128 else 0
        out |= byte << (8 * k)
    return out


def test_prmt_lop3_carry_chain_and_cache_policy():
    n = 64
    rng = np.random.default_rng(21)
    a, b, c = (rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    out = simt.zeros(n * 6, dtype=simt.uint32)
    run(simt.from_ptx(EXTRAS, "bits"), grid=1, block=n, inputs=[simt.array(a), simt.array(b), simt.array(c), out])
    o = out.numpy().reshape(n, 6)
    np.testing.assert_array_equal(o[:, 0], [_prmt(int(p), int(q), 0x9E40) for p, q in zip(a, b)])
    np.testing.assert_array_equal(o[:, 1], [_prmt(int(p), int(q), int(r)) for p, q, r in zip(a, b, c)])
    np.testing.assert_array_equal(o[:, 2], a ^ b ^ c)
    np.testing.assert_array_equal(o[:, 3], (a & b) | (~a & c))
    total = [((int(q) << 32 | int(p)) + (int(p) << 32 | int(r))) % 2**64 for p, q, r in zip(a, b, c)]
    np.testing.assert_array_equal(o[:, 4], [t & 0xFFFFFFFF for t in total])
    np.testing.assert_array_equal(o[:, 5], [t >> 32 for t in total])


def test_redux_elect_and_vote_uni():
    rng = np.random.default_rng(22)
    v = rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    v[32:] = np.abs(v[32:] // 2) + 1                 # warp 1: all positive
    out = simt.zeros(64 * 5, dtype=simt.uint32)
    run(simt.from_ptx(EXTRAS, "warp"), grid=1, block=64, inputs=[simt.array(v), out])
    o = out.numpy().reshape(2, 32, 5)
    w = v.reshape(2, 32)
    for k in range(2):
        assert (o[k, :, 0] == np.uint32(w[k].astype(np.int64).sum() % 2**32)).all()
        assert (o[k, :, 1] == w[k].view(np.uint32).max()).all()
        odd = np.flatnonzero(w[k] & 1)
        np.testing.assert_array_equal(o[k, :, 2], np.where(w[k] & 1, odd[0], 0))
        np.testing.assert_array_equal(o[k, :, 3], np.arange(32) == odd[0])
        assert (o[k, :, 4] == int(len(set(w[k] > 0)) == 1)).all()


ELECT_DIVERGENT = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry elect_odd(.param .u64 pv, .param .u64 pout)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [pv];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.b32 %r2, [%rd4];
    mov.u32 %r6, 0;
    and.b32 %r3, %r2, 1;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra SKIP;
    elect.sync %r6|%p2, 0xFFFFFFFF;
SKIP:
    add.s64 %rd5, %rd2, %rd3;
    st.global.b32 [%rd5], %r6;
    ret;
}
"""


def test_elect_with_lanes_of_its_mask_elsewhere_is_a_warp_sync_error():
    """elect.sync's member mask names lanes that must all execute it: with the full warp
    named in a branch only odd lanes take, the GPU waits for the others (the launch never
    returns). simt says which lanes did not arrive instead."""
    from simt.errors import WarpSyncError
    v = np.arange(32, dtype=np.int32)
    with pytest.raises(WarpSyncError, match=r"mask 0xffffffff names lanes .*did not reach"):
        run(simt.from_ptx(ELECT_DIVERGENT, "elect_odd"), grid=1, block=32,
            inputs=[simt.array(v), simt.zeros(32, dtype=simt.uint32)])


def test_ldmatrix_stmatrix_x1_x2_and_trans_fragments():
    out, back = simt.zeros(32 * 5, dtype=simt.uint32), simt.zeros(96, dtype=simt.uint32)
    run(simt.from_ptx(EXTRAS, "ldm"), grid=1, block=32, inputs=[out, back])
    o = out.numpy().reshape(32, 5)
    t = np.arange(32)
    # PTX ISA (ldmatrix): lane t holds row t // 4, columns 2*(t % 4) and + 1 of each matrix;
    # .trans: of the transposed matrix. Element (r, c) of matrix m holds m*64 + r*8 + c.
    row, col = t // 4, 2 * (t % 4)
    plain = lambda m: _pairs(m * 64 + row * 8 + col, m * 64 + row * 8 + col + 1)   # noqa: E731
    trans = lambda m: _pairs(m * 64 + col * 8 + row, m * 64 + (col + 1) * 8 + row)  # noqa: E731
    for k, want in enumerate([plain(0), plain(0), plain(1), trans(0), trans(1)]):
        np.testing.assert_array_equal(o[:, k], want, err_msg=f"word {k}")
    # stmatrix undoes ldmatrix: matrices 0 and 1 come back as they were; .trans of matrix 0
    # writes its transpose
    halves = back.numpy().view(np.uint16).reshape(3, 8, 8)
    np.testing.assert_array_equal(halves[:2].ravel(), np.arange(128))
    np.testing.assert_array_equal(halves[2], np.arange(64).reshape(8, 8).T)


def test_numba_jit_dispatcher_and_scalar_types():
    cuda = _numba_kernels().cuda

    @cuda.jit
    def fill(out, v, k):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = v * i + k
    k = simt.from_numba(fill, "void(int64[:], int64, int16)")
    out = simt.zeros(50, dtype=simt.int64)
    run(k, grid=2, block=32, inputs=[out, 3_000_000_000, -7])
    np.testing.assert_array_equal(out.numpy(), 3_000_000_000 * np.arange(50) - 7)


def test_missing_compilers_name_their_extras(monkeypatch):
    from simt.errors import SimtError
    monkeypatch.setitem(sys.modules, "numba.cuda", None)
    with pytest.raises(SimtError, match=r"simt\[numba-cuda\]"):
        simt.from_numba(lambda x: None, "void(float32[:])")
    monkeypatch.setitem(sys.modules, "triton", None)
    with pytest.raises(SimtError, match=r"simt\[triton\]"):
        simt.from_triton(None, signature={})


def test_triton_half_scalar_argument():
    pytest.importorskip("triton", reason="needs Triton (the triton extra)")
    import triton
    import triton.language as tl

    @triton.jit
    def scale(x_ptr, s, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * s, mask=offs < n)
    k = simt.from_triton(scale, signature={"x_ptr": "*fp16", "s": "fp16", "n": "i32"},
                         constexprs={"BLOCK": 64}, num_warps=1)
    x = np.linspace(-3, 3, 50).astype(np.float16)
    a = simt.array(x)
    run(k, grid=(1,), inputs=[a, 1.5, 50])
    np.testing.assert_array_equal(a.numpy(), x * np.float16(1.5))


def _tf32(x: np.ndarray) -> np.ndarray:
    """What a .tf32 mma operand keeps of an f32: its low 13 bits dropped."""
    return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("acc_f16", [False, True], ids=["tf32", "f16acc"])
def test_triton_dot_tf32_and_f16_accumulators(acc_f16):
    rng = np.random.default_rng(18)
    dtype, t = (np.float16, "*fp16") if acc_f16 else (np.float32, "*fp32")
    a, b = rng.standard_normal((32, 16)).astype(dtype), rng.standard_normal((16, 32)).astype(dtype)
    c = simt.zeros((32, 32), dtype=simt.float16 if acc_f16 else simt.float32)
    k = triton_kernel("dot_tile", signature={"a_ptr": t, "b_ptr": t, "c_ptr": t},
                      constexprs={"BM": 32, "BN": 32, "BK": 16, "ACC_F16": acc_f16})
    shape = "m16n8k16.row.col.f16.f16.f16.f16" if acc_f16 else "m16n8k8.row.col.f32.tf32.tf32.f32"
    assert f"mma.sync.aligned.{shape}" in _opcodes(k)
    run(k, grid=(1,), inputs=[simt.array(a), simt.array(b), c])
    if acc_f16:              # 16 exact products summed in f32, then rounded to f16: within an ulp
        exact = a.astype(np.float64) @ b
        ulp = np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64)
        assert (np.abs(c.numpy() - exact) <= ulp).all()
        assert (c.numpy() == exact.astype(np.float16)).mean() > 0.99
    else:
        np.testing.assert_allclose(c.numpy(), _tf32(a) @ _tf32(b), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(c.numpy(), a.astype(np.float64) @ b, rtol=1e-2, atol=1e-2)


def test_numba_device_function_calls_are_inlined():
    rng = np.random.default_rng(23)
    n = 100
    x, v = rng.standard_normal(n), rng.integers(-10**12, 10**12, n)
    out, largest = simt.zeros((n, 4), dtype=simt.int64), simt.array(np.array([-2**62]))
    k = numba_kernel("misc_ops")
    assert k.module.funcs and "call" not in _opcodes(k)           # libdevice's pow, inlined
    run(k, grid=1, block=128, inputs=[simt.array(x), simt.array(v), out, largest])
    local = [v * (j + 1) // 3 - v % 7 for j in range(4)]
    want = np.stack([local[0] + local[3], np.floor(x * 10).astype(np.int64),
                     (np.abs(x) ** 1.5 * 1000).astype(np.int64), (np.arctan2(x, 1.0) * 1000).astype(np.int64)], 1)
    np.testing.assert_array_equal(out.numpy(), want)
    assert largest.numpy()[0] == v.max()


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_noinline_device_function_is_inlined():
    src = r"""
    __device__ __noinline__ float twice_plus(float x, int k) { if (x < 0) return -x; return 2 * x + k; }
    extern "C" __global__ void calls(float* a) { a[threadIdx.x] = twice_plus(a[threadIdx.x], threadIdx.x); }
    """
    k = simt.from_cuda(src, "calls")
    assert any("twice_plus" in f for f in k.module.funcs)       # nvcc kept it a .func, called
    x = np.linspace(-4, 4, 32).astype(np.float32)
    a = simt.array(x)
    run(k, grid=1, block=32, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), np.where(x < 0, -x, 2 * x + np.arange(32, dtype=np.float32)))


def test_recursive_device_function_is_a_compile_error():
    ptx = """
    .version 8.0
    .target sm_80
    .address_size 64
    .func (.param .b32 r) down(.param .b32 n)
    {
        .reg .b32 %r<3>;
        ld.param.b32 %r1, [n];
        { .param .b32 p0; st.param.b32 [p0+0], %r1; .param .b32 q0;
          call.uni (q0), down, (p0); ld.param.b32 %r2, [q0+0]; }
        st.param.b32 [r+0], %r2;
        ret;
    }
    .visible .entry top(.param .u64 out)
    {
        .reg .b32 %r<3>;
        mov.u32 %r1, 3;
        { .param .b32 p0; st.param.b32 [p0+0], %r1; .param .b32 q0;
          call.uni (q0), down, (p0); ld.param.b32 %r2, [q0+0]; }
        ret;
    }
    """
    k = simt.from_ptx(ptx, "top")
    with pytest.raises(CompileError, match=r"PTX line 10: `call down`: recursive calls are not supported"):
        k.compile(frozenset({"out"}))


def test_cp_async_zero_fill_and_ignore_src():
    src = np.arange(1, 32 * 16 + 1, dtype=np.uint8)          # no zero bytes of its own
    out = simt.zeros(160, dtype=simt.uint32)
    run(simt.from_ptx(EXTRAS, "async"), grid=1, block=32, inputs=[simt.array(src), out])
    got = out.numpy().view(np.uint8)
    rows = src.reshape(32, 16).copy()
    for t in range(32):
        rows[t, t % 17:] = 0                                    # past src-size: zeros
    np.testing.assert_array_equal(got[:512].reshape(32, 16), rows)
    words = src.reshape(32, 16)[:, :4].copy()
    words[1::2] = 0                                             # ignore-src
    np.testing.assert_array_equal(got[512:].reshape(32, 4), words)


def test_triton_signature_errors():
    pytest.importorskip("triton", reason="needs Triton (the triton extra)")
    import triton_kernels as tk
    from simt.errors import SimtError
    with pytest.raises(SimtError, match=r"no type or constexpr value for \['n'\]"):
        simt.from_triton(tk.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32"},
                         constexprs={"BLOCK": 64})
    with pytest.raises(SimtError, match=r"\['m'\] are not arguments"):
        simt.from_triton(tk.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                                   "n": "i32", "m": "i32"}, constexprs={"BLOCK": 64})
    with pytest.raises(CompileError, match="Triton could not compile add_kernel"):
        simt.from_triton(tk.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                                   "n": "i32"}, constexprs={"BLOCK": 100})   # not a power of 2


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_half2_and_bfloat16_intrinsics():
    """cuda_fp16.h and cuda_bf16.h: inline asm with .f16 registers named without a %."""
    from simt.ir import bfloat16
    n = 64
    rng = np.random.default_rng(24)
    x = (rng.standard_normal(2 * n) * 4).astype(np.float16)
    y = bfloat16.from_bits(bfloat16.to_bits(rng.standard_normal(n).astype(np.float32)))
    out, outf = simt.zeros(n, dtype=simt.uint32), simt.zeros(n)
    run(simt.from_cuda(CORPUS / "cuda_halves.cu", "halves", arch="sm_80"), grid=1, block=n,
        inputs=[simt.array(x.view(np.uint32)), simt.array(y, dtype=simt.bfloat16), out, outf])
    v = x.astype(np.float64)
    want = (v * v + (v + v).astype(np.float16)).astype(np.float16)     # hfma2 rounds once
    np.testing.assert_array_equal(out.numpy().view(np.float16), want)
    np.testing.assert_array_equal(outf.numpy(), y * np.float32(2) + (x[0::2] * x[1::2]).astype(np.float32))


def test_mir_of_imported_kernels_shows_array_pointers():
    """simt.mir prints the MIR a launch runs: Numba's data and Triton's pointer parameters as
    pointers, the rest of Numba's array ABI and Triton's empty scratch as values."""
    assert simt.mir(numba_kernel("axpy")).split("\n")[0].count("global bytes") == 3
    assert simt.mir(triton_kernel("add_kernel")).split("\n")[0].count("global bytes") == 3


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_wmma_f32_and_f16_accumulators():
    rng = np.random.default_rng(25)
    a = rng.standard_normal((16, 48)).astype(np.float16)
    bt = rng.standard_normal((16, 48)).astype(np.float16)       # B column-major: column n is bt[n]
    c = simt.zeros((16, 16), dtype=simt.float32)
    run(simt.from_cuda(CORPUS / "cuda_wmma.cu", "wmma_f32", arch="sm_80"), grid=1, block=32,
        inputs=[simt.array(a), simt.array(bt), c, 48, 48, 48, 16])
    np.testing.assert_allclose(c.numpy(), a.astype(np.float64) @ bt.astype(np.float64).T, rtol=1e-5, atol=1e-5)
    # f16 accumulators, col-major A, B through shared memory, elementwise 2 * fd + fc, col-major store
    a, b, cc = (rng.standard_normal((16, 16)).astype(np.float16) for _ in range(3))
    d = simt.zeros(256, dtype=simt.float16)
    run(simt.from_cuda(CORPUS / "cuda_wmma.cu", "wmma_f16", arch="sm_80"), grid=1, block=32,
        inputs=[simt.array(a.T.copy()), simt.array(b), simt.array(cc), d])
    product = (a.astype(np.float64) @ b).astype(np.float16)
    np.testing.assert_array_equal(d.numpy().reshape(16, 16).T, product * np.float16(2) + cc)
