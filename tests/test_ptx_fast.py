"""The fast engine's shortcuts for imported kernels' byte addresses (simt/sim/fast/provenance.py,
pointers.py, bounds.py): which array an address derives from, accesses checked once per
block, and the general path wherever a shortcut does not hold (same bits and errors as
cpu:precise)."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import simt
from simt.ir.mir import AtomArg, Op, Pointer
from simt.sim.fast import codegen
from simt.sim.fast.provenance import origins

PTX = Path(__file__).resolve().parent / "ptx_corpus" / "kernels.ptx"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


def _mir(name: str):
    k = simt.from_ptx(PTX, name)
    return k.compile(frozenset(p for p, t in k.params if t == "u64"))


def _accesses(fn):
    return [ins for ins in fn.instructions()
            if isinstance(ins.arg, Pointer) or (isinstance(ins.arg, AtomArg) and isinstance(ins.arg.mem, Pointer))]


def test_every_address_of_saxpy_and_matmul_is_traced_to_its_array():
    # saxpy: y[i] = a * x[i] + y[i]: loads of x (param 2) and y (param 3), a store to y
    fn = _mir("saxpy")
    got = [(ins.op, origins(fn)[ins.srcs[0].id].name) for ins in _accesses(fn)]
    assert got == [(Op.LD, "saxpy_param_2"), (Op.LD, "saxpy_param_3"), (Op.ST, "saxpy_param_3")]
    # matmul: the tiles' shared stores and loads reach As and Bs, the global ones A, B and C
    fn = _mir("matmul")
    seen = {origins(fn)[ins.srcs[0].id].name for ins in _accesses(fn)}
    assert seen == {"matmul_param_0", "matmul_param_1", "matmul_param_2", "_ZZ6matmulE2As", "_ZZ6matmulE2Bs"}


PICK = """
.version 8.0
.target sm_80
.address_size 64

.visible .entry pick(.param .u64 pick_a, .param .u64 pick_b, .param .u32 pick_w)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [pick_a];
    ld.param.u64 %rd2, [pick_b];
    ld.param.u32 %r1, [pick_w];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $L_A;
    mov.u64 %rd3, %rd2;
    bra.uni $L_GO;
$L_A:
    mov.u64 %rd3, %rd1;
$L_GO:
    cvta.to.global.u64 %rd4, %rd3;
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd5, %r2, 4;
    add.s64 %rd6, %rd4, %rd5;
    ld.global.f32 %f1, [%rd6];
    add.f32 %f2, %f1, %f1;
    st.global.f32 [%rd6], %f2;
    ret;
}
"""


def test_a_register_that_holds_either_of_two_arrays_has_no_origin():
    k = simt.from_ptx(PICK, "pick")
    fn = k.compile(frozenset({"pick_a", "pick_b"}))
    found = origins(fn)
    assert [ins.srcs[0].id in found for ins in _accesses(fn)] == [False, False]
    x = np.arange(8, dtype=np.float32)
    for w in (0, 1):
        a, b = simt.array(x), simt.array(-x)
        simt.launch(k, grid=1, block=8, inputs=[a, b, w], device="cpu")
        np.testing.assert_array_equal(a.numpy(), 2 * x if w == 0 else x)
        np.testing.assert_array_equal(b.numpy(), -x if w == 0 else -2 * x)


def test_vadd_accesses_are_checked_once_per_block():
    fn = _mir("vadd")
    gen = codegen._Generator(fn)
    assert len(gen.hoisting.pointers) == 3        # both loads and the store
    assert {m.name for m in gen.hoisting.pointers.values()} == {"vadd_param_0", "vadd_param_1",
                                                               "vadd_param_2"}
    assert "if fast:" in gen.run().source         # the threads' loop for proven blocks


@pytest.mark.parametrize("n", [1024, 1000, 77])
def test_vadd_in_full_and_partial_blocks_gives_the_precise_bits(n):
    k = simt.from_ptx(PTX, "vadd")
    rng = np.random.default_rng(n)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = {}
    for device in ("cpu:precise", "cpu"):
        c = simt.zeros(n)
        simt.launch(k, grid=-(-n // 128), block=128, inputs=[simt.array(a), simt.array(b), c, n],
                    device=device)
        out[device] = c.numpy()
    np.testing.assert_array_equal(out["cpu"], a + b)
    assert out["cpu"].tobytes() == out["cpu:precise"].tobytes()


CROSS = r"""
extern "C" __global__ void cross(const float* a, float* c, int off, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i + off] = 2.0f * a[i];
}
"""


@needs_nvcc
def test_an_address_derived_from_one_array_that_lands_in_another_takes_the_general_path():
    # a launch places its arrays one after the other, 256-byte aligned: 64 floats before c
    # is a, so the store's addresses (derived from c) lie in a: each thread doubles its a[i]
    # (off = -64: PTX passes int as .u32, its bits)
    k = simt.from_cuda(CROSS, "cross")
    x = np.arange(64, dtype=np.float32)
    out = {}
    for device in ("cpu:precise", "cpu"):
        a, c = simt.array(x), simt.zeros(64)
        simt.launch(k, grid=2, block=32, inputs=[a, c, 2**32 - 64, 64], device=device)
        out[device] = a.numpy(), c.numpy()
    np.testing.assert_array_equal(out["cpu"][0], 2 * x)
    np.testing.assert_array_equal(out["cpu"][1], np.zeros(64, np.float32))
    assert out["cpu"][0].tobytes() == out["cpu:precise"][0].tobytes()


OFFSETS = r"""
extern "C" __global__ void offsets(const float* a, const double* d, const unsigned char* b,
                                   float* out, int n) {
    __shared__ float s[264];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t + 4] = a[i + 4];
    if (t < 4) s[t] = a[i];
    if (t >= blockDim.x - 4) s[t + 8] = a[i + 8];
    __syncthreads();
    if (i < n)
        out[i] = s[t] + 2.0f * s[t + 1] + 3.0f * s[t + 3] + s[t + 8] + (float)d[i + 2] + (float)b[i + 3];
}
"""


def _offsets_reference(a, d, b, n, block):
    out = np.zeros(n, np.float32)
    for start in range(0, n, block):
        s = a[start:start + block + 8]
        t = np.arange(min(block, n - start))
        out[start + t] = (s[t] + np.float32(2) * s[t + 1] + np.float32(3) * s[t + 3] + s[t + 8]
                          + d[start + t + 2].astype(np.float32) + b[start + t + 3].astype(np.float32))
    return out


@needs_nvcc
def test_accesses_at_constant_offsets_from_a_register_give_the_precise_bits():
    # nvcc folds s[t + 1] and a[i + 4] into [%r + 4] and [%rd + 16]: in blocks shown fast the
    # index is the base's plus the offset's (bounds.Hoisting.offsets)
    k = simt.from_cuda(OFFSETS, "offsets")
    fn = k.compile(frozenset(p for p, t in k.params if t == "u64"))
    gen = codegen._Generator(fn)
    gen.run()
    assert len(gen.hoisting.offsets) >= 4
    assert {c for _, c in gen.hoisting.offsets.values()} >= {4, 12, 16}
    rng = np.random.default_rng(3)
    n, block = 512, 128
    a = rng.random(n + 8, dtype=np.float32)
    d = rng.random(n + 2)
    b = rng.integers(0, 255, n + 3, dtype=np.uint8)
    out = {}
    for device in ("cpu:precise", "cpu"):
        o = simt.zeros(n)
        simt.launch(k, grid=n // block, block=block,
                    inputs=[simt.array(a), simt.array(d), simt.array(b), o, n], device=device)
        out[device] = o.numpy()
    np.testing.assert_allclose(out["cpu"], _offsets_reference(a, d, b, n, block), rtol=1e-6)
    assert out["cpu"].tobytes() == out["cpu:precise"].tobytes()
    # a too short: the last block's a[i + 8] lies past it, so that block is not shown fast;
    # its addresses land in the next array (launches place them one after another, as
    # test_an_address_derived_from_one_array... says), on both engines alike
    short = {}
    for device in ("cpu:precise", "cpu"):
        o = simt.zeros(n)
        simt.launch(k, grid=n // block, block=block,
                    inputs=[simt.array(a[:n]), simt.array(d), simt.array(b), o, n], device=device)
        short[device] = o.numpy()
    assert short["cpu"].tobytes() == short["cpu:precise"].tobytes()
    assert short["cpu"][:n - block].tobytes() == out["cpu"][:n - block].tobytes()
    assert short["cpu"][n - block:].tobytes() != out["cpu"][n - block:].tobytes()
