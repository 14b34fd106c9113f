"""The front end and lowering: small kernels compiled to MIR, checked for the MIR's shape."""
from __future__ import annotations

import numpy as np
import pytest

import simt as wp
from simt.ir import hir
from simt.ir.compile import check_kernel, compile_kernel, kernel_dims, kernel_params
from simt.ir.mir import AtomOp, LaunchSig, Op, Space, SReg
from simt.ir.types import ArrayType, Scalar, vec3


def mir(kernel, sig=LaunchSig(), debug=False, fastmath=False):
    return compile_kernel(kernel.py_func, sig, debug, fastmath)


def ops(fn, op):
    return [i for i in fn.instructions() if i.op is op]


def labels(fn):
    return [b.label for b in fn.blocks]


# ---- kernels -------------------------------------------------------------------------------

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def loop_break_continue(out: wp.array(dtype=int), n: int):
    i = wp.tid()
    s = 0
    for j in range(n):
        if j == 3:
            continue
        if j > 10:
            break
        s += j
    k = 0
    while k < n:
        k += 2
    out[i] = s + k


@wp.kernel
def nested_if_return(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i < n:
        if a[i] > 0.0:
            return
        elif a[i] < -1.0:
            a[i] = -1.0
        else:
            a[i] = 0.0
    a[i] = a[i] * 2.0


@wp.kernel
def shared_reverse(a: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.thread_idx()
    s = wp.shared.array(shape=(64,), dtype=float)
    cm = wp.shared.array(shape=(4, 8), dtype=wp.int32, layout="column_major")
    s[t] = a[i]
    cm[1, 2] = t
    wp.sync_threads()
    a[i] = s[63 - t]


@wp.kernel
def atomics(a: wp.array(dtype=float), c: wp.array(dtype=int), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_add(a, 0, 1.0)
    old = wp.atomic_cas(c, 1, 0, i)
    wp.atomic_max(c, 2, old)
    c[3] += 1
    v[i] += wp.vec3(1.0, 2.0, 3.0)


@wp.kernel
def multi_dim(m: wp.array2d(dtype=float), t: wp.array3d(dtype=int)):
    i, j = wp.tid()
    m[i, j] = float(i * 10 + j)
    t[i, j, 0] = m.shape[1]


@wp.kernel
def vec_arrays(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec4), q: wp.array(dtype=wp.quat),
               m4: wp.array(dtype=wp.mat44), v2: wp.array(dtype=wp.vec2), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    r = q[i]
    m = m4[i]
    w = v2[i]
    out[i] = x.x + y[3] + r.w + m[1, 2] + w[1]
    a[i] = x
    b[i] = y


@wp.func
def clamp01(x: float) -> float:
    if x < 0.0:
        return 0.0
    if x > 1.0:
        return 1.0
    return x


@wp.func
def bump(v: wp.vec3):
    v[0] = v[0] + 1.0   # changes the callee's copy only
    return v


@wp.kernel
def calls(a: wp.array(dtype=float), vs: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v = vs[i]
    w = bump(v)
    a[i] = clamp01(a[i]) + v[0] + w[0]


@wp.kernel
def short_circuit(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i < n and a[i] > 0.0:
        a[i] = 1.0
    b = 2.0 if i < n else 3.0
    a[0] = b


@wp.kernel
def block_wait(flags: wp.array(dtype=int)):
    i = wp.tid()
    wp.block_until(flags[0] > i)


@wp.kernel
def launch_queries(out: wp.array(dtype=int)):
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    out[0] = ty + tx + by + bx + wp.lane_id() + wp.warp_id()


@wp.kernel
def dynamic_components(v: wp.array(dtype=wp.vec3), k: int, out: wp.array(dtype=float)):
    i = wp.tid()
    x = v[i]
    x[k] = 5.0
    out[i] = x[k] + v[i][k]


@wp.kernel
def negative_step(out: wp.array(dtype=int), step: int):
    for j in range(10, 0, -2):
        out[j] = j
    for j in range(0, 10, step):
        out[j] = j


# ---- tests ---------------------------------------------------------------------------------

def test_kernel_params():
    params = kernel_params(saxpy.py_func)
    assert [n for n, _ in params] == ["x", "y", "a"]
    assert params[0][1] == ArrayType(Scalar.F32, 1)
    assert params[2][1] is Scalar.F32
    params = kernel_params(vec_arrays.py_func)
    assert params[0][1] == ArrayType(vec3, 1)


def test_saxpy_shape():
    fn = mir(saxpy)
    assert fn.name == "saxpy"
    assert [type(p).__name__ for p in fn.params] == ["ArrayParam", "ArrayParam", "ScalarParam"]
    assert fn.params[0].mem.space is Space.GLOBAL and fn.params[0].mem.ncomp == 1
    assert len(ops(fn, Op.LD)) == 2 and len(ops(fn, Op.ST)) == 1
    assert not ops(fn, Op.CHECK)
    assert fn.loc.line == saxpy.py_func.__code__.co_firstlineno + 1   # the def line
    assert all(i.loc is not None and i.loc.func == "saxpy" for i in fn.instructions())
    assert fn.entry.term.op is Op.CBR     # the out-of-range guard


def test_debug_adds_bounds_checks():
    fn = mir(saxpy, debug=True)
    checks = ops(fn, Op.CHECK)
    assert len(checks) == 3
    assert {c.arg.mem.name for c in checks} == {"x", "y"}
    assert fn.debug is True


def test_loops_layout_back_edges_go_up():
    fn = mir(loop_break_continue)
    index = {b.label: k for k, b in enumerate(fn.blocks)}
    back_edges = [(b.label, s) for b in fn.blocks for s in b.successors if index[s] <= index[b.label]]
    assert len(back_edges) == 2     # one latch per loop
    for src, dst in back_edges:
        assert dst.startswith(("for", "while"))
    # break jumps forward to the loop exit, continue to the latch
    assert labels(fn).index("endfor0") > labels(fn).index("latch0")


def test_nested_if_return_emits_ret():
    fn = mir(nested_if_return)
    rets = ops(fn, Op.RET)
    assert len(rets) >= 3   # guard, early return, end
    assert all(b.instrs and b.term.is_terminator for b in fn.blocks)


def test_shared_memory_and_barrier_block():
    fn = mir(shared_reverse)
    s, cm = fn.shared
    assert s.space is Space.SHARED and s.shape == (64,) and s.offset == 0
    assert cm.offset == 256 and cm.layout == "column_major" and cm.elem is Scalar.I32
    for b in fn.blocks:
        for k, ins in enumerate(b.instrs):
            if ins.op is Op.BAR:
                assert k == 0
    # column-major cm[1, 2] -> 1 + 4 * 2 = 9, folded
    st = [i for i in ops(fn, Op.ST) if i.arg is cm][0]
    assert st.srcs[0].value == 9


def test_atomics():
    fn = mir(atomics)
    atoms = ops(fn, Op.ATOM)
    kinds = [a.arg.op for a in atoms]
    assert kinds[:3] == [AtomOp.ADD, AtomOp.CAS, AtomOp.MAX]
    assert len(atoms[1].srcs) == 3    # index, compare, value
    assert kinds[3] == AtomOp.ADD     # c[3] += 1 is atomic, like Warp
    assert kinds[4:] == [AtomOp.ADD] * 3   # vec3 += is three scalar atomics
    assert all(a.dsts for a in atoms)


def test_multi_dim_tid_linear_mapping():
    fn = mir(multi_dim, LaunchSig(2, 1))
    sregs = {i.arg for i in ops(fn, Op.SREG)}
    assert {SReg.DIM_0, SReg.DIM_1, SReg.TID_X, SReg.CTAID_X, SReg.NTID_X} <= sregs
    assert ops(fn, Op.REM) and ops(fn, Op.DIV)   # unravel of the linear index
    assert fn.tid_ndim == 2
    assert kernel_dims(multi_dim.py_func) == (2, 0)


def test_multi_dim_tid_grid_mapping():
    fn = mir(multi_dim, LaunchSig(2, 2))
    sregs = {i.arg for i in ops(fn, Op.SREG)}
    assert {SReg.TID_Y, SReg.CTAID_Y, SReg.NTID_Y} <= sregs
    assert not ops(fn, Op.REM)


def test_vector_loads_use_wide_accesses():
    fn = mir(vec_arrays)
    widths = {}
    for i in ops(fn, Op.LD):
        widths.setdefault(i.arg.name, []).append(len(i.dsts))
    assert widths["a"] == [1, 1, 1]       # vec3: one scalar at a time
    assert widths["b"] == [4]             # vec4: ld.v4
    assert widths["q"] == [4]
    assert widths["m4"] == [4, 4, 4, 4]   # mat44: four ld.v4
    assert widths["v2"] == [2]
    st_widths = {i.arg.name: len(i.srcs) - 1 for i in ops(fn, Op.ST)}
    assert st_widths["b"] == 4 and st_widths["a"] == 1


def test_component_of_array_element_loads_one_scalar():
    fn = mir(dynamic_components)
    loads = [i for i in ops(fn, Op.LD)]
    assert len(loads) == 3 + 1            # x = v[i] (3 scalars) + v[i][k] (one)
    assert ops(fn, Op.SELECT)             # x[k] with a runtime k


def test_device_functions_are_inlined():
    fn = mir(calls)
    assert fn.name == "calls"
    funcs = {i.loc.func for i in fn.instructions()}
    assert {"calls", "clamp01", "bump"} <= funcs


def test_short_circuit_and_skips_load():
    fn = mir(short_circuit)
    # the load of a[i] sits in a block reached only when i < n
    load_blocks = [b for b in fn.blocks if any(i.op is Op.LD for i in b.instrs)]
    assert load_blocks and load_blocks[0] is not fn.entry
    assert load_blocks[0].label.startswith("and")


def test_block_until_uses_bar_and_first_in_block():
    fn = mir(block_wait)
    bar_blocks = [b for b in fn.blocks if any(i.op is Op.BAR_AND for i in b.instrs)]
    assert len(bar_blocks) == 1 and bar_blocks[0].instrs[0].op is Op.BAR_AND
    assert bar_blocks[0].term.op is Op.CBR


def test_launch_queries_numpy_order():
    fn = mir(launch_queries, LaunchSig(2, 2))
    sregs = [i.arg for i in ops(fn, Op.SREG)]
    assert SReg.TID_Y in sregs and SReg.CTAID_Y in sregs
    assert SReg.LANEID in sregs and SReg.WARPID in sregs
    assert kernel_dims(launch_queries.py_func) == (0, 2)


def test_negative_and_runtime_steps():
    fn = mir(negative_step)
    compares = [i.op for i in fn.instructions() if i.op in (Op.LT, Op.GT)]
    assert Op.GT in compares            # the constant negative step counts down
    assert ops(fn, Op.SELECT)           # the runtime step picks its comparison by sign


def test_hir_is_typed():
    fd = check_kernel(saxpy.py_func, LaunchSig())
    assign = fd.body[0]
    assert isinstance(assign, hir.Assign) and assign.value.type is Scalar.I32
    store = fd.body[1]
    assert isinstance(store, hir.ArrayStore) and store.value.type is Scalar.F32
    assert store.loc.line == saxpy.py_func.__code__.co_firstlineno + 3


def test_literal_adapts_and_folds_in_float32():
    @wp.kernel
    def k(a: wp.array(dtype=float), d: wp.array(dtype=wp.float64)):
        i = wp.tid()
        a[i] = a[i] * 2 + 1.0 / 3.0
        d[i] = wp.float64(0.1)

    fn = mir(k)
    imms = [s for i in fn.instructions() for s in i.srcs if type(s).__name__ == "Imm"]
    values = {(s.value, s.type) for s in imms}
    assert (2.0, Scalar.F32) in values
    assert (float(np.float32(1) / np.float32(3)), Scalar.F32) in values
    assert (0.1, Scalar.F64) in values


def test_variable_of_constant_needs_no_copy():
    @wp.kernel
    def k(a: wp.array(dtype=int)):
        i = wp.tid()
        a[i] = i

    fn = mir(k)
    assert not ops(fn, Op.MOV)


def test_fastmath_flag():
    assert mir(saxpy, fastmath=True).fastmath is True


@pytest.mark.parametrize("kernel", [saxpy, loop_break_continue, nested_if_return, shared_reverse,
                                    atomics, vec_arrays, calls, short_circuit, block_wait,
                                    dynamic_components, negative_step])
def test_verifier_accepts(kernel):
    from simt.ir.verify import verify
    verify(mir(kernel))
    verify(mir(kernel, debug=True))


@wp.func
def div_mod(a: int, b: int):
    return a / b, a % b


@wp.kernel
def while_true_tuple_return(out: wp.array(dtype=int), v: wp.vec3, m: wp.mat22):
    i = wp.tid()
    q, r = div_mod(i, 3)
    t = 0
    while True:
        t += 1
        if t > 3:
            break
    out[i] = q + r + t + int(v.x + m[1, 0])


def test_while_true_break_keeps_exit_edge_and_verifies():
    fn = mir(while_true_tuple_return)   # compile_kernel runs the verifier (layout rule)
    header = fn.block("while0")
    assert header.term.op is Op.CBR
    names = [p.name for p in fn.params]
    assert names == ["out", "v_0", "v_1", "v_2", "m_0", "m_1", "m_2", "m_3"]


def test_end_to_end_semantics():
    import simt
    out = simt.array(np.zeros(6, np.int32))
    simt.launch(while_true_tuple_return, dim=6, inputs=[out, wp.vec3(1, 2, 3), wp.mat22(1, 2, 3, 4)],
                device="cpu:precise")
    assert out.numpy().tolist() == [i // 3 + i % 3 + 4 + 4 for i in range(6)]


def test_augmented_store_global_is_atomic_shared_is_not():
    @wp.kernel
    def k(a: wp.array(dtype=float)):
        i = wp.tid()
        s = wp.shared.array(shape=(32,), dtype=float)
        s[0] += 1.0
        a[i] -= s[0]
        a[i] *= 2.0

    fn = mir(k)
    atoms = ops(fn, Op.ATOM)
    assert [a.arg.op for a in atoms] == [AtomOp.SUB] and atoms[0].arg.mem.name == "a"
    assert [i.arg.space for i in ops(fn, Op.ST)] == [Space.SHARED, Space.GLOBAL]


def test_kernel_dims_single_index():
    assert kernel_dims(saxpy.py_func) == (1, 0)
    assert kernel_dims(shared_reverse.py_func) == (1, 1)
