"""Kernels imported from PTX (simt.from_ptx, simt.from_cuda) on the precise engine (the other
engines: tests/test_ptx_engines.py).

CUDA C kernels (tests/ptx_corpus/kernels.cu) are compiled by nvcc where it is installed and
compared with numpy; the same kernels' committed PTX (kernels.ptx, nvcc -O3 for sm_90) and
hand-written PTX (control_flow.ptx) run without nvcc.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import simt
from simt.errors import CompileError, LaunchError, OutOfBoundsError, SimtError
from simt.ir.verify import verify
from simt.ptx_import import parser
from simt.ptx_import.lower import HANDLERS

CORPUS = Path(__file__).parent / "ptx_corpus"
CUDA_SOURCE = CORPUS / "kernels.cu"
DEV = "cpu:precise"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.fixture(scope="module")
def ptx_text(tmp_path_factory) -> str:
    """kernels.cu compiled now by nvcc (the committed kernels.ptx where nvcc is missing)."""
    if shutil.which("nvcc") is None:
        return (CORPUS / "kernels.ptx").read_text()
    import subprocess
    out = tmp_path_factory.mktemp("ptx") / "kernels.ptx"
    subprocess.run(["nvcc", "-ptx", "-O3", "-arch=sm_90", "-lineinfo", str(CUDA_SOURCE), "-o", str(out)],
                   check=True)
    return out.read_text()


def kernel(ptx_text: str, name: str):
    return simt.from_ptx(ptx_text, name)


def run(k, **kw):
    return simt.launch(k, device=kw.pop("device", DEV), **kw)


# --- CUDA C kernels against numpy -----------------------------------------------------------

@needs_nvcc
def test_from_cuda_saxpy_grid_stride_and_line_info():
    k = simt.from_cuda(CUDA_SOURCE, "saxpy")
    n = 1000
    x = simt.array(np.arange(n, dtype=np.float32))
    y = simt.array(np.ones(n, dtype=np.float32))
    r = run(k, grid=(2,), block=(128,), inputs=[n, 2.0, x, y])      # 256 threads stride over 1000
    np.testing.assert_array_equal(y.numpy(), 2 * np.arange(n, dtype=np.float32) + 1)
    lines = r.lines
    assert set(lines["file"]) == {"kernels.cu"}
    assert lines.attrs["files"]["kernels.cu"].endswith("tests/ptx_corpus/kernels.cu")
    assert {3, 4} <= set(lines["line"])
    assert r.metrics["smsp__inst_executed.sum"] > 0 and r.cycles > 0


@needs_nvcc
def test_from_cuda_source_text_and_extern_c_name():
    src = 'extern "C" __global__ void twice(int* a) { a[threadIdx.x] *= 2; }\n'
    a = simt.array(np.arange(32, dtype=np.int32))
    run(simt.from_cuda(src, "twice"), grid=1, block=32, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), 2 * np.arange(32))


def test_from_cuda_without_nvcc_names_it(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SimtError, match="nvcc"):
        simt.from_cuda(CUDA_SOURCE, "saxpy")


def test_vector_add_with_early_return(ptx_text):
    n = 1000
    a = simt.array(np.arange(n, dtype=np.float32))
    b = simt.array(np.full(n, 0.5, dtype=np.float32))
    c = simt.zeros(n)
    r = run(kernel(ptx_text, "vadd"), dim=n, block_dim=128, inputs=[a, b, c, n])
    np.testing.assert_array_equal(c.numpy(), np.arange(n) + 0.5)
    assert r.metrics["smsp__inst_executed.sum"] > 0


def test_shared_memory_block_reduction(ptx_text):
    n = 1000
    data = np.random.default_rng(0).random(n).astype(np.float32)
    out = simt.zeros(4)
    run(kernel(ptx_text, "block_sum"), grid=4, block=256, inputs=[simt.array(data), out, n])
    want = [data[i * 256:(i + 1) * 256].sum() for i in range(4)]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)


def test_warp_shuffle_reduction(ptx_text):
    data = np.random.default_rng(1).integers(-1000, 1000, 256).astype(np.int32)
    out = simt.zeros(8, dtype=simt.int32)
    run(kernel(ptx_text, "warp_sum"), grid=2, block=128, inputs=[simt.array(data), out])
    np.testing.assert_array_equal(out.numpy(), data.reshape(8, 32).sum(axis=1))


def test_atomic_histogram(ptx_text):
    data = np.random.default_rng(2).integers(0, 256, 5000).astype(np.uint8)
    bins = simt.zeros(16, dtype=simt.uint32)
    run(kernel(ptx_text, "histogram"), grid=20, block=256, inputs=[simt.array(data), bins, 5000])
    np.testing.assert_array_equal(bins.numpy(), np.bincount(data % 16, minlength=16))


def test_transpose_through_a_shared_tile_2d_grid(ptx_text):
    w, h = 70, 45
    a = np.random.default_rng(3).random((h, w)).astype(np.float32)
    out = simt.zeros(w * h)
    run(kernel(ptx_text, "transpose"), grid=(3, 2), block=(32, 32), inputs=[simt.array(a.ravel()), out, w, h])
    np.testing.assert_array_equal(out.numpy().reshape(w, h), a.T)
    out2 = simt.zeros(w * h)      # simt's spelling of the same grid: dim and block_dim, x last
    run(kernel(ptx_text, "transpose"), dim=(64, 96), block_dim=(32, 32), inputs=[simt.array(a.ravel()), out2, w, h])
    np.testing.assert_array_equal(out2.numpy(), out.numpy())


def test_templated_kernel_by_its_cpp_name(ptx_text):
    if shutil.which("c++filt") is None and shutil.which("cu++filt") is None:
        pytest.skip("no c++filt to read mangled names")
    x = simt.array(np.arange(10, dtype=np.float32))
    run(kernel(ptx_text, "scale<4>"), grid=1, block=32, inputs=[x, 10])
    np.testing.assert_array_equal(x.numpy(), 4 * np.arange(10))


def test_templated_kernel_by_its_mangled_name(ptx_text):
    x = simt.array(np.arange(10, dtype=np.float32))
    run(kernel(ptx_text, "_Z5scaleILi4EEvPfi"), grid=1, block=32, inputs=[x, 10])
    np.testing.assert_array_equal(x.numpy(), 4 * np.arange(10))


def test_data_dependent_loop_with_break(ptx_text):
    data = np.random.default_rng(4).integers(0, 5, (64, 20)).astype(np.int32)
    where = simt.zeros(64, dtype=simt.int32)
    run(kernel(ptx_text, "find_first"), grid=2, block=32, inputs=[simt.array(data.ravel()), 20, 3, where])
    want = [list(row).index(3) if 3 in row else -1 for row in data]
    np.testing.assert_array_equal(where.numpy(), want)


def test_int32_wraparound_and_c_division(ptx_text):
    a = np.array([7, -7, 7, -7, 2**31 - 1, -2**31 + 1, 100, -1], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 3, -1, 7, 5], dtype=np.int32)
    q, r, w = (simt.zeros(8, dtype=simt.int32) for _ in range(3))
    run(kernel(ptx_text, "int_ops"), grid=1, block=8, inputs=[simt.array(a), simt.array(b), q, r, w])
    np.testing.assert_array_equal(q.numpy(), np.trunc(a / b).astype(np.int32))     # toward zero
    np.testing.assert_array_equal(r.numpy(), np.fmod(a, b))                          # sign of a
    np.testing.assert_array_equal(w.numpy(), (a.astype(np.int64) * 65537 + 2147483000).astype(np.int32))


def test_float_to_int_conversions(ptx_text):
    x = np.array([1.5, 2.5, -1.5, -2.7, 3e9, -3e9, np.nan, 0.49], dtype=np.float32)
    t, rn = simt.zeros(8, dtype=simt.int32), simt.zeros(8, dtype=simt.int32)
    u = simt.zeros(8, dtype=simt.uint32)
    run(kernel(ptx_text, "to_int"), grid=1, block=8, inputs=[simt.array(x), t, rn, u])
    big, small = 2**31 - 1, -2**31
    np.testing.assert_array_equal(t.numpy(), [1, 2, -1, -2, big, small, 0, 0])    # trunc, saturate, NaN->0
    np.testing.assert_array_equal(rn.numpy(), [2, 2, -2, -3, big, small, 0, 0])   # to nearest even
    np.testing.assert_array_equal(u.numpy(), [1, 2, 1, 2, 3_000_000_000, 3_000_000_000, 0, 0])


@pytest.mark.parametrize("stride, ways", [(1, 1), (2, 2), (4, 4), (32, 32), (33, 1)])
def test_bank_conflicts_of_strided_shared_loads(ptx_text, stride, ways):
    """One warp per block reads s[(t * stride) % 1024]: floats in 32 banks, so a stride s
    puts gcd(s, 32) lanes on one bank: gcd - 1 extra wavefronts per warp and load."""
    blocks = 2
    out = simt.zeros(32 * blocks)
    r = run(kernel(ptx_text, "strided_shared"), grid=blocks, block=32, inputs=[out, stride])
    np.testing.assert_array_equal(out.numpy(), np.tile((np.arange(32) * stride) % 1024, blocks))
    assert r.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == (ways - 1) * blocks


def test_committed_ptx_line_info_points_at_the_cu_file_beside_it():
    n = 64
    a, b, c = simt.array(np.ones(n, np.float32)), simt.array(np.ones(n, np.float32)), simt.zeros(n)
    r = run(simt.from_ptx(CORPUS / "kernels.ptx", "vadd"), grid=2, block=32, inputs=[a, b, c, n])
    lines = r.lines
    assert Path(lines.attrs["files"]["kernels.cu"]) == CUDA_SOURCE
    assert "c[i] = a[i] + b[i];" in " ".join(lines["source"])


def test_cpu_trace_runs_imported_kernels(ptx_text, tmp_path):
    n = 64
    a, b, c = simt.array(np.ones(n, np.float32)), simt.array(np.ones(n, np.float32)), simt.zeros(n)
    trace = tmp_path / "run.jsonl"
    run(kernel(ptx_text, "vadd"), grid=2, block=32, inputs=[a, b, c, n], device="cpu:trace", trace=str(trace))
    np.testing.assert_array_equal(c.numpy(), 2)
    assert trace.stat().st_size > 0


# --- hand-written PTX: arbitrary control flow --------------------------------------------------

CONTROL = CORPUS / "control_flow.ptx"


def test_two_entry_loop_irreducible_cfg():
    out = simt.zeros(64, dtype=simt.uint32)
    k = simt.from_ptx(CONTROL, "jump_in")
    verify(k.compile(frozenset({"jump_in_param_0"})))
    run(k, grid=1, block=64, inputs=[out])

    def reference(t):
        acc, i, top = 0, 0, t % 2 == 1
        while True:
            acc += 1 if top else 0
            acc += 10
            i += 1
            if i >= t:
                return acc
            top = True
    np.testing.assert_array_equal(out.numpy(), [reference(t) for t in range(64)])


def test_loop_with_two_exits_and_negated_predicates():
    data = np.random.default_rng(5).integers(0, 9, 200).astype(np.uint32)
    out = simt.zeros(64, dtype=simt.uint32)
    run(simt.from_ptx(CONTROL, "two_exits"), grid=1, block=64, inputs=[simt.array(data), 10, out])
    want = [next((j for j in range(10) if data[t + j] == 7), 0xFFFFFFFF) for t in range(64)]
    np.testing.assert_array_equal(out.numpy(), want)


def test_predicated_return_and_store():
    out = simt.full(64, 99, dtype=simt.uint32)
    run(simt.from_ptx(CONTROL, "guarded"), grid=1, block=64, inputs=[out, 40])
    want = np.full(64, 99)
    t = np.arange(40)
    want[t[t % 4 != 0]] = t[t % 4 != 0]
    np.testing.assert_array_equal(out.numpy(), want)


def test_divergent_lanes_reconverge_at_the_post_dominator():
    """In jump_in, odd lanes run TOP first and wait for the even ones at MID: MID's first
    pass is one warp instruction per instruction, not two."""
    k = simt.from_ptx(CONTROL, "jump_in")
    out = simt.zeros(2, dtype=simt.uint32)
    r = run(k, grid=1, block=2, inputs=[out])        # tid 0 (enters at MID), tid 1 (at TOP)
    np.testing.assert_array_equal(out.numpy(), [10, 11])
    # entry 8, TOP once (2 instructions), MID once together (4), the tail (8): 22 if reconverged
    fn = k.compile(frozenset({"jump_in_param_0"}))
    sizes = {b.label: len(b.instrs) for b in fn.blocks}
    assert r.metrics["smsp__inst_executed.sum"] == sum(sizes.values())


# --- errors ---------------------------------------------------------------------------------

def test_every_mir_the_corpus_makes_verifies(ptx_text):
    module = parser.parse(ptx_text)
    for name, entry in module.entries.items():
        k = simt.from_ptx(ptx_text, name)
        verify(k.compile(frozenset(p.name for p in entry.params if p.type == "u64")))


def test_unsupported_instruction_names_it_and_its_line():
    ptx = (CORPUS / "kernels.ptx").read_text().replace("fma.rn.f32", "fma.rn.sat.f32", 1)
    line = next(i + 1 for i, s in enumerate(ptx.split("\n")) if "fma.rn.sat.f32" in s)
    k = simt.from_ptx(ptx, "saxpy")
    with pytest.raises(CompileError, match=rf"PTX line {line}: `fma.rn.sat.f32` is not supported"):
        k.compile(frozenset({"saxpy_param_2", "saxpy_param_3"}))


def test_unknown_opcode_is_a_compile_error():
    ptx = (CORPUS / "kernels.ptx").read_text().replace("abs.f32", "testp.normal.f32", 1)
    with pytest.raises(CompileError, match=r"PTX instruction `testp.normal.f32` is not supported"):
        simt.from_ptx(ptx, "to_int").compile(frozenset())


def test_out_of_bounds_pointer_names_array_line_thread_block(ptx_text):
    a, b, c = (simt.array(np.zeros(16, np.float32)) for _ in range(3))
    with pytest.raises(OutOfBoundsError) as e:
        run(kernel(ptx_text, "vadd"), grid=1, block=32, inputs=[a, b, c, 32])   # n past the arrays
    msg = str(e.value)
    assert "vadd" in msg and "kernels.cu" in msg and "threadIdx (x=16" in msg and "blockIdx (x=0" in msg
    assert "bytes past its end" in msg or "byte" in msg


def test_wrong_arguments_name_the_parameter(ptx_text):
    k = kernel(ptx_text, "vadd")
    a = simt.array(np.zeros(8, np.float32))
    with pytest.raises(LaunchError, match="takes 4 arguments"):
        run(k, grid=1, block=8, inputs=[a, a, a])
    with pytest.raises(LaunchError, match=r"parameter 3 \(vadd_param_3, .u32\): got an array"):
        run(k, grid=1, block=8, inputs=[a, a, a, a])
    with pytest.raises(LaunchError, match=r"parameter 0 \(vadd_param_0, .u64\)"):
        run(k, grid=1, block=8, inputs=[np.zeros(8, np.float32), a, a, 8])
    with pytest.raises(LaunchError, match=r"parameter 3 \(vadd_param_3, .u32\)"):
        run(k, grid=1, block=8, inputs=[a, a, a, -1])
    with pytest.raises(LaunchError, match=r"parameter 3 \(vadd_param_3, .u32\)"):
        run(k, grid=1, block=8, inputs=[a, a, a, 2.5])


def test_simts_own_ptx_backend_refuses_imported_mir(ptx_text):
    """The cuda engine loads an imported kernel's own PTX; simt's backend does not re-emit it."""
    k = kernel(ptx_text, "vadd")
    fn = k.compile(frozenset({"vadd_param_0", "vadd_param_1", "vadd_param_2"}))
    from simt.gpu.ptx import emit
    with pytest.raises(CompileError, match="byte-addressed"):
        emit(fn)


def test_cuda_without_a_gpu_is_a_launch_error(ptx_text):
    from simt.gpu import runtime
    if runtime.unavailable_reason(0) is None:
        pytest.skip("a GPU is present")
    a = simt.array(np.zeros(8, np.float32))
    with pytest.raises((LaunchError, simt.errors.DeviceError)):
        run(kernel(ptx_text, "vadd"), grid=1, block=8, inputs=[a, a, a, 8], device="cuda")


def test_unknown_kernel_name_lists_the_module_kernels(ptx_text):
    with pytest.raises(CompileError, match="no kernel 'nope'.*saxpy"):
        simt.from_ptx(ptx_text, "nope")


def test_grid_and_dim_do_not_mix(ptx_text):
    a = simt.array(np.zeros(8, np.float32))
    with pytest.raises(LaunchError, match="not both"):
        run(kernel(ptx_text, "vadd"), dim=8, grid=1, block=8, inputs=[a, a, a, 8])


# --- the census -----------------------------------------------------------------------------

def test_census_every_corpus_instruction_is_handled():
    """Fails when a PTX file in tests/ptx_corpus holds an instruction the importer does not
    lower (add the handler, or leave the file out)."""
    for path in sorted(CORPUS.glob("*.ptx")):
        module = parser.parse(path.read_text(), str(path))
        for name, entry in module.entries.items():
            for s in entry.body:
                if isinstance(s, parser.Instruction):
                    assert s.opcode in HANDLERS, f"{path.name}:{s.line}: {s.full} has no handler"
            k = simt.from_ptx(path, name)
            verify(k.compile(frozenset(p.name for p in entry.params if p.type == "u64")))


def test_coverage_doc_is_current():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen", Path(__file__).parent.parent / "tools" / "gen_ptx_coverage.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    doc = Path(__file__).parent.parent / "docs" / "ptx_coverage.md"
    assert doc.read_text() == gen.render(), "run tools/gen_ptx_coverage.py"


# --- more of what nvcc emits ---------------------------------------------------------------

def test_warp_votes(ptx_text):
    x = np.random.default_rng(6).integers(-3, 9, 128).astype(np.int32)
    x[64:96] = np.abs(x[64:96])                       # one warp with no negatives
    ballots, anys, alls = simt.zeros(4, dtype=simt.uint32), simt.zeros(4, dtype=simt.int32), simt.zeros(4, dtype=simt.int32)
    run(kernel(ptx_text, "votes"), grid=2, block=64, inputs=[simt.array(x), ballots, anys, alls])
    w = x.reshape(4, 32)
    want = [int(sum(1 << k for k in range(32) if row[k] > 0)) for row in w]
    np.testing.assert_array_equal(ballots.numpy(), want)
    np.testing.assert_array_equal(anys.numpy(), (w > 5).any(axis=1))
    np.testing.assert_array_equal(alls.numpy(), (w >= 0).all(axis=1))


def test_atomics_global_and_shared(ptx_text):
    v = np.random.default_rng(7).integers(-100, 100, 64).astype(np.int32)
    m = simt.array(np.array([-1000, 0, 0, 0], dtype=np.int32))
    bits = simt.array(np.array([0, 0, 0xFFFFFFFF], dtype=np.uint32))
    cas_out = simt.zeros(64, dtype=simt.int32)
    run(kernel(ptx_text, "atomics"), grid=1, block=64, inputs=[m, bits, cas_out, simt.array(v)])
    got = m.numpy()
    assert got[0] == v.max() and got[1] == v.min() and got[2] == 5
    xor = np.bitwise_xor.reduce(v.astype(np.uint32))
    np.testing.assert_array_equal(bits.numpy(), [0xFFFFFFFF, xor, 0])
    # simt applies one instruction's atomics in lane order: thread t finds t and writes t + 1
    np.testing.assert_array_equal(cas_out.numpy(), np.arange(64))
    assert got[3] == 64


def test_vector_loads_and_stores(ptx_text):
    a = np.arange(64 * 4, dtype=np.float32)
    b = simt.zeros(64 * 4)
    run(kernel(ptx_text, "reverse4"), grid=2, block=32, inputs=[simt.array(a), b])
    np.testing.assert_array_equal(b.numpy(), a.reshape(-1, 4)[:, ::-1].ravel())


def test_float_math(ptx_text):
    x = np.array([0.25, 1.0, 2.0, 3.0, 10.0, 1e-3, 7.5, 100.0], dtype=np.float32)
    xd = np.linspace(0.5, 9.0, 8)
    y, yd = simt.zeros(32), simt.zeros(16, dtype=simt.float64)
    run(kernel(ptx_text, "math"), grid=1, block=8, inputs=[simt.array(x), y, simt.array(xd), yd])
    got = y.numpy().reshape(8, 4)
    np.testing.assert_array_equal(got[:, 0], np.sqrt(x))
    np.testing.assert_array_equal(got[:, 1], np.float32(1) / x)
    np.testing.assert_array_equal(got[:, 2], x / np.float32(3))
    np.testing.assert_array_equal(got[:, 3], np.minimum(x, 2) - np.maximum(-x, -1))
    gd = yd.numpy().reshape(8, 2)
    np.testing.assert_array_equal(gd[:, 0], np.sqrt(xd) + x.astype(np.float64))
    np.testing.assert_array_equal(gd[:, 1], xd / 3.0)


def test_generic_addressing_of_shared_and_global():
    a = simt.array(np.arange(64, dtype=np.uint32))
    run(simt.from_ptx(CONTROL, "generic"), grid=1, block=64, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), np.arange(64) ^ 1)


def test_shared_out_of_bounds_names_the_shared_array():
    ptx = CONTROL.read_text().replace("xor.b32 \t%r3, %r1, 1;", "add.u32 \t%r3, %r1, 1;")
    a = simt.array(np.arange(64, dtype=np.uint32))
    with pytest.raises(OutOfBoundsError, match=r"out-of-bounds shared read") as e:
        run(simt.from_ptx(ptx, "generic"), grid=1, block=64, inputs=[a])
    assert "words, 256 bytes" in str(e.value) and "threadIdx (x=63" in str(e.value)


# --- the MIR the importer makes ---------------------------------------------------------------

def test_pointer_ops_print_and_verify():
    text = simt.from_ptx(CONTROL, "generic").mir()
    assert simt.mir(simt.from_ptx(CONTROL, "generic")) == text
    assert "ld.generic.u32 [" in text and "st.generic.u32 [" in text
    assert "addr @words" in text and "addr @generic_param_0" in text


def test_verifier_rules_of_the_new_ops():
    from simt.ir.mir import Block, Function, Instr, Op, Pointer, Reg, Space
    from simt.ir.types import Scalar
    from simt.ir.verify import MirVerifyError

    def fn_with(*instrs):
        return Function("k", [], [Block("entry", [*instrs, Instr(Op.RET)])])

    a64, f, i32 = Reg(1, Scalar.U64), Reg(2, Scalar.F32), Reg(3, Scalar.I32)
    ok = [Instr(Op.MOV, (a64,), (simt.ir.mir.Imm(0, Scalar.U64),)),
          Instr(Op.LD, (f,), (a64,), Pointer(Space.GLOBAL, Scalar.F32))]
    verify(fn_with(*ok))
    bad_cases = {
        "address must be": [Instr(Op.MOV, (f,), (simt.ir.mir.Imm(0.0, Scalar.F32),)),
                            Instr(Op.LD, (Reg(4, Scalar.F32),), (f,), Pointer(Space.GLOBAL, Scalar.F32))],
        "element type": [ok[0], Instr(Op.LD, (i32,), (a64,), Pointer(Space.GLOBAL, Scalar.F32))],
        "one width": [ok[0], Instr(Op.BITCAST, (i32,), (a64,))],
        "FMA sources": [ok[0], ok[1], Instr(Op.FMA, (Reg(5, Scalar.F32),), (f, f, Reg(6, Scalar.F64)))],
    }
    for message, instrs in bad_cases.items():
        with pytest.raises(MirVerifyError, match=message):
            verify(fn_with(*instrs))


@needs_nvcc
def test_launch_errors_use_the_cuda_parameter_names():
    k = simt.from_cuda(CUDA_SOURCE, "scale<4>")
    assert k.source_names == ["x", "n"]
    x = simt.array(np.zeros(4, np.float32))
    with pytest.raises(LaunchError, match=r"parameter 1 'n' \(_Z5scaleILi4EEvPfi_param_1, .u32\)"):
        run(k, grid=1, block=4, inputs=[x, 1.5])
    with pytest.raises(LaunchError, match=r"takes 2 arguments \(x: .u64, n: .u32\)"):
        run(k, grid=1, block=4, inputs=[x])


@needs_nvcc
def test_nvcc_errors_come_back_as_compile_errors():
    with pytest.raises(CompileError, match="nvcc failed"):
        simt.from_cuda('extern "C" __global__ void broken(int* a) { a[0] = ; }\n', "broken")


def test_negative_offsets_in_addresses():
    ptx = CONTROL.read_text().replace("ld.u32 \t%r4, [%rd9];", "ld.u32 \t%r4, [%rd9+-4];") \
        .replace("xor.b32 \t%r3, %r1, 1;", "xor.b32 \t%r3, %r1, 0;\n\tadd.u32 \t%r3, %r3, 1;")
    if "[%rd9+-4]" not in ptx:
        pytest.skip("pattern not found")
    a = simt.array(np.arange(64, dtype=np.uint32))
    run(simt.from_ptx(ptx, "generic"), grid=1, block=64, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), np.arange(64))


# --- ordinary CUDA: tiles, expf, float atomics, bit tricks, switch, local memory ------------------

def test_tiled_matmul(ptx_text):
    n = 40
    rng = np.random.default_rng(8)
    a, b = rng.random((n, n)).astype(np.float32), rng.random((n, n)).astype(np.float32)
    c = simt.zeros(n * n)
    run(kernel(ptx_text, "matmul"), grid=(3, 3), block=(16, 16),
        inputs=[simt.array(a.ravel()), simt.array(b.ravel()), c, n])
    np.testing.assert_allclose(c.numpy().reshape(n, n), a @ b, rtol=1e-5)


def test_softmax_with_expf(ptx_text):
    x = np.random.default_rng(9).normal(size=(4, 50)).astype(np.float32)
    y = simt.zeros(200)
    run(kernel(ptx_text, "softmax_row"), grid=4, block=32, inputs=[simt.array(x.ravel()), y, 50])
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.numpy().reshape(4, 50), e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_float_double_and_64_bit_atomics(ptx_text):
    x = np.random.default_rng(10).random(256).astype(np.float32)
    f, d, u = simt.zeros(1), simt.zeros(1, dtype=simt.float64), simt.zeros(1, dtype=simt.uint64)
    run(kernel(ptx_text, "fatomics"), grid=2, block=128, inputs=[f, d, u, simt.array(x)])
    assert abs(f.numpy()[0] - x.sum()) < 1e-3
    assert d.numpy()[0] == pytest.approx(x.astype(np.float64).sum(), rel=1e-12)
    assert u.numpy()[0] == 256


def test_bit_tricks_and_64_bit_division_by_a_constant(ptx_text):
    a = np.random.default_rng(11).integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    out = simt.zeros(256, dtype=simt.int32)
    run(kernel(ptx_text, "bits"), grid=1, block=64, inputs=[simt.array(a), out])
    got = out.numpy().reshape(64, 4)
    s = a.view(np.int32)
    np.testing.assert_array_equal(got[:, 0], [bin(int(v)).count("1") for v in a])
    np.testing.assert_array_equal(got[:, 1], np.minimum(s, 100) + np.maximum(s, 7))
    np.testing.assert_array_equal(got[:, 2], (a >> 3).view(np.int32) ^ (a << np.uint32(2)).view(np.int32))
    # nvcc computes the (non-negative, as far as C is concerned) product unsigned: mul.hi.u64
    np.testing.assert_array_equal(got[:, 3], [(int(v) * 3000000000 % 2**64) % 1000003 for v in a])


def test_switch(ptx_text):
    a = np.random.default_rng(12).integers(-50, 50, 64).astype(np.int32)
    out = simt.zeros(64, dtype=simt.int32)
    run(kernel(ptx_text, "switchy"), grid=1, block=64, inputs=[simt.array(a), out])
    want = [{0: 10, 1: int(v) * 3, 2: -int(v), 3: int(int(v) / 3), 5: 99}.get(int(v) & 7, 0) for v in a]
    np.testing.assert_array_equal(out.numpy(), want)


def test_count_leading_zeros(ptx_text):
    a = np.array([0, 1, 2, 3, 255, 2**31, 2**32 - 1, 12345], dtype=np.uint32)
    out = simt.zeros(8, dtype=simt.int32)
    run(kernel(ptx_text, "clz_kernel"), grid=1, block=8, inputs=[simt.array(a), out])
    np.testing.assert_array_equal(out.numpy(), [32 - int(v).bit_length() for v in a])


def test_double_precision(ptx_text):
    a = np.random.default_rng(13).random(32) * 10
    out = simt.zeros(32, dtype=simt.float64)
    run(kernel(ptx_text, "dbl"), grid=1, block=32, inputs=[simt.array(a), out])
    np.testing.assert_allclose(out.numpy(), a * a + 1 / (a + 3) + np.trunc(a), rtol=1e-15)


def test_local_memory_and_module_constants_in_sinf(ptx_text):
    """sinf of a large argument reduces it with a local array and a module-level table."""
    x = np.array([0.5, 1.0, 2.5, 1e5, -2e4, 123456.7, 1e30, 7e3], dtype=np.float32)
    out = simt.zeros(8)
    k = kernel(ptx_text, "transcend")
    fn = k.compile(frozenset({p for p, t in k.params if t == "u64"}))
    assert fn.local and any(p.name == "__cudart_i2opi_f" for p in fn.params)
    run(k, grid=1, block=8, inputs=[simt.array(x), out])
    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore"):         # log of a negative number: NaN, on the GPU too
        want = np.tanh(x64) + np.sin(x64) + np.log(x64 + 2)
    np.testing.assert_allclose(out.numpy(), want, atol=1e-5)


def test_calls_are_a_clear_error():
    ptx = ('.version 8.0\n.target sm_90\n.address_size 64\n'
           '.extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n'
           '.visible .entry p(.param .u64 p_param_0)\n{\n\t.reg .b64 %rd<3>;\n'
           '\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd1;\n'
           '\tcall.uni (retval0), vprintf, (param0, param1);\n\t}\n\tret;\n}\n')
    with pytest.raises(CompileError, match="PTX line 11: `call vprintf`: vprintf is declared but not defined"):
        simt.from_ptx(ptx, "p").compile(frozenset())


def test_integer_instructions():
    """Instructions lowered to several MIR ops, against Python integers on random operands."""
    rng = np.random.default_rng(14)
    n = 64
    a = rng.integers(0, 2**64, n, dtype=np.uint64)
    b = rng.integers(0, 2**64, n, dtype=np.uint64)
    a[:4] = [0, 2**64 - 1, 2**63, 1]
    b[:4] = [2**64 - 1, 2**64 - 1, 2**63, 0x100000001]
    out = simt.zeros(n * 12, dtype=simt.uint64)
    run(simt.from_ptx(CORPUS / "integer_ops.ptx", "intops"), grid=1, block=n,
        inputs=[simt.array(a), simt.array(b), out])
    words = out.numpy().view(np.uint32).reshape(n, 24)
    quads = out.numpy().reshape(n, 12)

    def s64(x):
        return x - 2**64 if x >= 2**63 else x

    def s32(x):
        return x - 2**32 if x >= 2**31 else x

    for k in range(n):
        x, y = int(a[k]), int(b[k])
        x32, y32 = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        assert int(quads[k, 0]) == (x * y) >> 64
        assert int(quads[k, 1]) == ((s64(x) * s64(y)) >> 64) % 2**64
        assert int(words[k, 4]) == ((s32(x32) * s32(y32)) >> 32) % 2**32
        assert int(words[k, 5]) == (x32 * y32) >> 32
        sh = y32 & 63
        both = (y32 << 32) | x32
        assert int(words[k, 6]) == ((both << (sh & 31)) >> 32) & 0xFFFFFFFF          # shf.l.wrap
        assert int(words[k, 7]) == (both >> min(sh, 32)) & 0xFFFFFFFF                # shf.r.clamp
        field = (x32 >> 5) & 0x7FF
        assert int(words[k, 8]) == (field - 0x800 if field & 0x400 else field) % 2**32  # bfe.s32
        assert int(words[k, 9]) == (x32 >> 20) & 0xFFF                                # bfe.u32
        mask = 0xFFF << 8
        assert int(words[k, 10]) == (y32 & ~mask & 0xFFFFFFFF) | ((x32 << 8) & mask)  # bfi.b32
        assert int(words[k, 11]) == 64 - x.bit_length()                                # clz.b64
        assert int(words[k, 12]) == bin(y).count("1")                                  # popc.b64
        assert int(quads[k, 7]) == (s32(x32) * s32(y32) + x) % 2**64                   # mad.wide.s32
        assert int(words[k, 16]) == (s32(x32) >> 7) % 2**32
        assert int(words[k, 17]) == x32 >> 7
        if y32:
            assert int(words[k, 18]) == x32 % y32 and int(words[k, 19]) == x32 // y32
        assert int(words[k, 20]) == int(x32 < y32)


def test_paths_through_a_loop_reconverge_every_iteration():
    k = simt.from_ptx(CONTROL, "two_latches")
    fn = k.compile(frozenset({"two_latches_param_0"}))
    verify(fn)
    out = simt.zeros(32, dtype=simt.uint32)
    r = run(k, grid=1, block=32, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [sum(5 if t & i == 0 else 3 for i in range(1, 9)) for t in range(32)])
    size = {b.label: len(b.instrs) for b in fn.blocks}
    body = sum(n for label, n in size.items() if label not in ("entry", "HEAD", "DONE"))
    # one warp: 8 iterations each running every block of the body once (both paths, then
    # the shared latch together), then the header's last test and the tail
    assert r.metrics["smsp__inst_executed.sum"] == size["entry"] + 9 * size["HEAD"] + 8 * body + size["DONE"]


def test_float_comparisons_ordered_and_unordered():
    names = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
    vals = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan]
    pairs = [(x, y) for x in vals for y in vals]
    a = np.array([p[0] for p in pairs], np.float32)
    b = np.array([p[1] for p in pairs], np.float32)
    out = simt.zeros(len(pairs) * len(names), dtype=simt.uint32)
    run(simt.from_ptx(CONTROL, "compares"), grid=1, block=len(pairs), inputs=[simt.array(a), simt.array(b), out])
    got = out.numpy().reshape(len(pairs), len(names))
    for k, (x, y) in enumerate(pairs):
        unordered = np.isnan(x) or np.isnan(y)
        ordered = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}
        want = {c: (not unordered) and v for c, v in ordered.items()}
        want.update({c + "u": unordered or v for c, v in ordered.items()})
        want.update(num=not unordered, nan=unordered)
        assert list(got[k]) == [int(want[c]) for c in names], (x, y)


def test_shuffles_within_segments_of_the_warp(ptx_text):
    a = np.random.default_rng(15).integers(-1000, 1000, 64).astype(np.int32)
    out = simt.zeros(256, dtype=simt.int32)
    run(kernel(ptx_text, "shfl_width"), grid=1, block=64, inputs=[simt.array(a), out])
    got = out.numpy().reshape(64, 4)
    lane = np.arange(64) % 32
    base = np.arange(64) - lane
    src_xor = base + (lane ^ 4)
    src_down = np.where(lane % 8 + 3 < 8, np.arange(64) + 3, np.arange(64))
    src_up = np.where(lane % 8 >= 2, np.arange(64) - 2, np.arange(64))
    src_idx = base + (lane // 16) * 16 + 5
    np.testing.assert_array_equal(got, np.stack([a[src_xor], a[src_down], a[src_up], a[src_idx]], axis=1))


def test_float_rounding_functions_and_bit_reversal(ptx_text):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7, 0.49999997, 1e8, -3.0, 0.0], np.float32)
    out, rev = simt.zeros(4 * x.size), simt.zeros(x.size, dtype=simt.uint32)
    run(kernel(ptx_text, "rounding"), grid=1, block=x.size, inputs=[simt.array(x), out, rev])
    got = out.numpy().reshape(-1, 4)
    np.testing.assert_array_equal(got[:, 0], np.floor(x))
    np.testing.assert_array_equal(got[:, 1], np.ceil(x))
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(got[:, 2], np.sign(x64) * np.floor(np.abs(x64) + 0.5))   # half away from 0
    np.testing.assert_array_equal(got[:, 3], np.trunc(x) + np.rint(x))
    want = [int(f"{(i * 2654435761) % 2**32:032b}"[::-1], 2) for i in range(x.size)]
    np.testing.assert_array_equal(rev.numpy(), want)


def test_device_variables_persist_and_are_shared_by_a_modules_kernels():
    text = (CORPUS / "kernels.ptx").read_text() + "\n// a module of its own for this test\n"
    count, read = simt.from_ptx(text, "count_launch"), simt.from_ptx(text, "read_launches")
    seen, out = simt.zeros(1, dtype=simt.int32), simt.zeros(1, dtype=simt.int32)
    for k in range(3):
        run(count, grid=1, block=32, inputs=[seen])
        assert seen.numpy()[0] == k
    run(read, grid=1, block=1, inputs=[out])
    assert out.numpy()[0] == 3


def test_template_names_as_demanglers_write_them():
    """c++filt writes 'f<0>'; cu++filt writes some integer arguments with their type,
    'f<(int)0>': both are the name 'f<0>' as the source spells it."""
    from simt.ptx_import.kernel import _plain_name
    assert _plain_name("void transpose_tile<(int)0>(const float *, float *, int)") == "transpose_tile<0>"
    assert _plain_name("void tile<(unsigned int)32, (long)-1>(float*)") == "tile<32,-1>"
    assert _plain_name("void scale<4>(float*, int)") == "scale<4>"
    assert _plain_name("void pick<float>(float*)") == "pick<float>"
