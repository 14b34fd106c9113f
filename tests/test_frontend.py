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
    """Lowering's output (the shape these tests check), before the MIR passes."""
    return compile_kernel(kernel.py_func, sig, debug, fastmath, passes=False)


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


# ---- loops with continue, predicated and/or, copy folding ------------------------------------

def launch_cpu(kernel, n, *inputs):
    import simt
    arrays = [simt.array(a) if isinstance(a, np.ndarray) else a for a in inputs]
    simt.launch(kernel, dim=n, inputs=arrays, device="cpu:precise")
    return [a.numpy() for a in arrays if isinstance(a, simt.array)]


def back_edges(fn):
    index = {b.label: k for k, b in enumerate(fn.blocks)}
    return [(b.label, s) for b in fn.blocks for s in b.successors if index[s] <= index[b.label]]


@wp.kernel
def while_continue_only(out: wp.array(dtype=int), n: int):
    i = wp.tid()
    s = 0
    j = 0
    while j < n:
        j += 1
        if (j + i) % 3 == 0:
            continue
        s += j
    out[i] = s


def test_while_continue_only_goes_through_a_latch():
    fn = mir(while_continue_only)     # compile_kernel verifies the block layout
    edges = back_edges(fn)
    assert len(edges) == 1 and edges[0][1].startswith("while")
    (out,) = launch_cpu(while_continue_only, 40, np.zeros(40, np.int32), 10)
    j = np.arange(1, 11)
    expected = [int(j[(j + i) % 3 != 0].sum()) for i in range(40)]
    np.testing.assert_array_equal(out, expected)


def test_while_without_continue_has_no_latch():
    fn = mir(loop_break_continue)
    assert not any(label.startswith("latch") and label != "latch0" for label in labels(fn))


@wp.kernel
def nested_loop_mix(out: wp.array(dtype=int), n: int):
    i = wp.tid()
    s = 0
    a = 0
    while a < n:                      # while > for: continue and break in both
        a += 1
        if a == i % 5:
            continue
        for b in range(a):
            if (b + i) % 4 == 1:
                continue
            if b > 6:
                break
            s += a * b
        if s > 400 + i:
            break
    for c in range(n):                # for > while > while
        d = 0
        while d < c:
            d += 1
            if d % 2 == 0:
                continue
            e = 0
            while True:
                e += 1
                if e == 3:
                    break
                if (e + d + i) % 2 == 0:
                    continue
                s += e
        if c == i % 7:
            continue
        s += 1
    out[i] = s


def nested_loop_mix_reference(i, n):
    s = 0
    a = 0
    while a < n:
        a += 1
        if a == i % 5:
            continue
        for b in range(a):
            if (b + i) % 4 == 1:
                continue
            if b > 6:
                break
            s += a * b
        if s > 400 + i:
            break
    for c in range(n):
        d = 0
        while d < c:
            d += 1
            if d % 2 == 0:
                continue
            e = 0
            while True:
                e += 1
                if e == 3:
                    break
                if (e + d + i) % 2 == 0:
                    continue
                s += e
        if c == i % 7:
            continue
        s += 1
    return s


def test_nested_loops_mixing_continue_and_break():
    fn = mir(nested_loop_mix)
    index = {b.label: k for k, b in enumerate(fn.blocks)}
    for src, dst in back_edges(fn):   # back edges leave only from latches (or a body's end)
        assert dst.startswith(("for", "while"))
        assert all(index[s] > index[src] for s in fn.block(src).successors if s != dst)
    (out,) = launch_cpu(nested_loop_mix, 64, np.zeros(64, np.int32), 12)
    np.testing.assert_array_equal(out, [nested_loop_mix_reference(i, 12) for i in range(64)])


@wp.kernel
def escape_time(out: wp.array(dtype=int), max_iter: int):
    i = wp.tid()
    cx = float(i % 16) / 8.0 - 1.5
    cy = float(i / 16) / 8.0 - 1.0
    x = 0.0
    y = 0.0
    n = 0
    while n < max_iter and x * x + y * y <= 4.0:
        t = x * x - y * y + cx
        y = 2.0 * x * y + cy
        x = t
        n += 1
    out[i] = n if n < max_iter else -1


def test_safe_and_operands_are_predicated_not_branched():
    fn = mir(escape_time)
    header = fn.block("while0")
    assert header.term.op is Op.CBR
    assert any(i.op is Op.AND for i in header.instrs)
    assert not any(label.startswith(("and", "endand", "ifexp")) for label in labels(fn))
    assert ops(fn, Op.SELECT)                      # `n if n < max_iter else -1`
    (out,) = launch_cpu(escape_time, 256, np.zeros(256, np.int32), 30)
    expected = []
    for i in range(256):
        cx = np.float32(i % 16) / np.float32(8) - np.float32(1.5)
        cy = np.float32(i // 16) / np.float32(8) - np.float32(1)
        x = y = np.float32(0)
        n = 0
        while n < 30 and x * x + y * y <= np.float32(4):
            x, y = x * x - y * y + cx, np.float32(2) * x * y + cy
            n += 1
        expected.append(n if n < 30 else -1)
    np.testing.assert_array_equal(out, expected)


@wp.kernel
def guarded_reads(a: wp.array(dtype=int), n: int, d: int, out: wp.array(dtype=int)):
    i = wp.tid()
    r = 0
    if i < n and a[i] > 0:            # a load: keeps its branch (a has n elements)
        r += 1
    if i >= n or a[i] < 5:
        r += 10
    if d != 0 and 100 / d > i:        # integer division: keeps its branch
        r += 100
    v = a[i] if i < n else -1         # a load on one side: branches
    w = i * 2 if i % 2 == 0 else i + 3                     # both sides safe: select
    p = i > 20 or i % 3 == 0                               # division by a constant is safe
    out[i] = r + v * 1000 + w * 100000 + int(p) * 10000000


def test_unsafe_operands_keep_short_circuit():
    fn = mir(guarded_reads)
    for b in fn.blocks:
        if any(i.op is Op.LD for i in b.instrs):
            assert b is not fn.entry and not b.label.startswith("body")
    division_blocks = [b for b in fn.blocks if any(i.op is Op.DIV for i in b.instrs)]
    assert division_blocks and all(b.label.startswith("and") for b in division_blocks)
    assert not any(label.startswith("or") for label in labels(fn) if label != "or0")
    assert ops(fn, Op.SELECT)
    a = np.array([3, -1, 7, 0, 4, 9, 1, 2], np.int32)
    for d in (0, 7):
        (_, out) = launch_cpu(guarded_reads, 32, a, 8, d, np.zeros(32, np.int32))
        i = np.arange(32)
        ai = np.concatenate([a, np.zeros(24, np.int32)])
        inside = i < 8
        r = (inside & (ai > 0)) * 1 + (~inside | (ai < 5)) * 10
        if d:
            r += (100 // d > i) * 100
        v = np.where(inside, ai, -1)
        w = np.where(i % 2 == 0, i * 2, i + 3)
        p = (i > 20) | (i % 3 == 0)
        np.testing.assert_array_equal(out, r + v * 1000 + w * 100000 + p * 10000000)


def test_assignment_needs_no_copy():
    @wp.kernel
    def k(a: wp.array(dtype=float), n: int):
        i = wp.tid()
        x = a[i]
        for j in range(n):
            x = x * 0.5 + 1.0
        a[i] = x

    fn = mir(k)
    loop_body = fn.block("body1")
    assert [i.op for i in loop_body.instrs].count(Op.MOV) == 1   # only the loop variable j
    (out,) = launch_cpu(k, 4, np.arange(4, dtype=np.float32), 3)
    expected = np.arange(4, dtype=np.float32)
    for _ in range(3):
        expected = expected * np.float32(0.5) + np.float32(1)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("kernel", [while_continue_only, nested_loop_mix, escape_time, guarded_reads])
def test_verifier_accepts_loop_and_predication_kernels(kernel):
    from simt.ir.verify import verify
    verify(mir(kernel))
    verify(mir(kernel, debug=True))
