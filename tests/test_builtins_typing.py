"""Builtin library: typing rules (infer), lowering shapes, and the numbers the lowered MIR
computes (checked with a small straight-line MIR evaluator, against Python/numpy and,
where installed, NVIDIA Warp itself)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import simt.ir.builtins  # noqa: F401  (registers the builtins)
from simt.ir.builder import Builder
from simt.ir.mir import Function, Imm, Loc, Op, ScalarParam, ShflMode, VoteMode
from simt.ir.registry import REGISTRY, BuiltinTypeError
from simt.ir.types import (VOID, ArrayType, Scalar, flat_count, mat22, mat33, mat44, quat,
                           scalar_of, vec2, vec3, vec4)
from simt.ir.verify import verify
from simt.ir.builtins.common import matrix_type, vector_type

F32, F64, I32, U32, I64, I8, U8, BOOL = (Scalar.F32, Scalar.F64, Scalar.I32, Scalar.U32,
                                         Scalar.I64, Scalar.I8, Scalar.U8, Scalar.BOOL)


def infer(name, *types):
    return REGISTRY[name].infer(list(types))


def lower(name, *types, values=None):
    """Lower ``name`` on fresh parameter registers (or the given immediates); return the
    result type, the result operands and the verified function holding the code."""
    b = Builder(Loc("test.py", 1, 0))
    b.set_block(b.new_block("bb"))
    params, args = [], []
    for k, t in enumerate(types):
        if values is not None and values[k] is not None:
            args.append([Imm(v, scalar_of(t)) for v in np.ravel(values[k]).tolist()])
            continue
        regs = [b.reg(scalar_of(t), f"a{k}_") for _ in range(flat_count(t))]
        params += [ScalarParam(f"p{r.id}", r) for r in regs]
        args.append(regs)
    rt = REGISTRY[name].infer(list(types))
    out = REGISTRY[name].lower(b, list(types), args)
    b.ret()
    fn = Function(name, params, b.blocks)
    verify(fn)
    return rt, out, fn


def ops_of(fn):
    return [ins.op for ins in fn.instructions()]


# --- a straight-line MIR evaluator with the engines' semantics ---------------------------------

def _wrap(value: int, t: Scalar):
    return np.array(int(value) & ((1 << 64) - 1), dtype=np.uint64).astype(t.np)[()]


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _round_half_away(x):
    x64 = np.float64(x)
    return np.copysign(np.floor(np.abs(x64) + 0.5), x64)


FLOAT_UNARY = {Op.NEG: np.negative, Op.ABS: np.abs, Op.SQRT: np.sqrt, Op.SIN: np.sin,
               Op.COS: np.cos, Op.TAN: np.tan, Op.ASIN: np.arcsin, Op.ACOS: np.arccos,
               Op.ATAN: np.arctan, Op.SINH: np.sinh, Op.COSH: np.cosh, Op.TANH: np.tanh,
               Op.EXP: np.exp, Op.LOG: np.log, Op.LOG2: np.log2, Op.LOG10: np.log10,
               Op.FLOOR: np.floor, Op.CEIL: np.ceil, Op.TRUNC: np.trunc}
COMPARE = {Op.EQ: np.equal, Op.NE: np.not_equal, Op.LT: np.less, Op.LE: np.less_equal,
           Op.GT: np.greater, Op.GE: np.greater_equal}


def evaluate(fn: Function, inputs: dict[int, object]) -> dict[int, object]:
    """Run one block of scalar code; ``inputs`` maps parameter register ids to values."""
    env = {rid: np.array(v).astype(next(p.reg.type.np for p in fn.params if p.reg.id == rid))[()]
           for rid, v in inputs.items()}

    def val(x):
        return x.type.np.type(x.value) if isinstance(x, Imm) else env[x.id]

    with np.errstate(all="ignore"):
        for ins in fn.blocks[0].instrs[:-1]:
            s = [val(x) for x in ins.srcs]
            t = ins.dsts[0].type if ins.dsts else None
            op = ins.op
            if op is Op.MOV:
                r = s[0]
            elif op is Op.CVT:
                src = ins.srcs[0].type
                if t is BOOL:
                    r = np.bool_(s[0] != 0)
                elif t.is_float:
                    r = t.np.type(s[0])
                elif src.is_float:
                    r = _wrap(math.trunc(float(s[0])), t)
                else:
                    r = _wrap(int(s[0]), t)
            elif op is Op.SELECT:
                r = s[1] if s[0] else s[2]
            elif op in (Op.ADD, Op.SUB, Op.MUL) and t.is_int:
                f = {Op.ADD: lambda a, b: a + b, Op.SUB: lambda a, b: a - b,
                     Op.MUL: lambda a, b: a * b}[op]
                r = _wrap(f(int(s[0]), int(s[1])), t)
            elif op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.POW, Op.ATAN2):
                f = {Op.ADD: np.add, Op.SUB: np.subtract, Op.MUL: np.multiply, Op.DIV: np.divide,
                     Op.POW: np.power, Op.ATAN2: np.arctan2}[op]
                r = t.np.type(f(s[0], s[1]))
            elif op is Op.DIV:
                r = _wrap(_c_div(int(s[0]), int(s[1])), t)
            elif op is Op.REM:
                if t.is_float:
                    r = t.np.type(np.fmod(s[0], s[1]))
                else:
                    a, b = int(s[0]), int(s[1])
                    r = _wrap(a - b * _c_div(a, b), t)
            elif op in (Op.MIN, Op.MAX):
                f = np.fmin if op is Op.MIN else np.fmax
                r = t.np.type(f(s[0], s[1]))
            elif op in (Op.AND, Op.OR, Op.XOR):
                f = {Op.AND: np.bitwise_and, Op.OR: np.bitwise_or, Op.XOR: np.bitwise_xor}[op]
                r = f(s[0], s[1])
            elif op is Op.NOT:
                r = np.logical_not(s[0]) if t is BOOL else np.invert(s[0])
            elif op is Op.NEG and t.is_int:
                r = _wrap(-int(s[0]), t)
            elif op is Op.ROUND:
                r = t.np.type(_round_half_away(s[0]))
            elif op in FLOAT_UNARY:
                r = t.np.type(FLOAT_UNARY[op](s[0]))
            elif op is Op.ISNAN:
                r = np.isnan(s[0])
            elif op is Op.ISINF:
                r = np.isinf(s[0])
            elif op in COMPARE:
                r = COMPARE[op](s[0], s[1])
            else:
                raise NotImplementedError(op)
            env[ins.dsts[0].id] = r
    return env


def run(name, *types, args):
    """Lower ``name`` and evaluate it on ``args`` (one value or list per argument)."""
    rt, out, fn = lower(name, *types)
    inputs = {}
    regs = [p.reg for p in fn.params]
    flat = [v for a in args for v in np.ravel(a).tolist()]
    assert len(flat) == len(regs)
    for r, v in zip(regs, flat):
        inputs[r.id] = v
    env = evaluate(fn, inputs)
    values = [(o.type.np.type(o.value) if isinstance(o, Imm) else env[o.id]) for o in out]
    return rt, values


# --- operators: typing ---------------------------------------------------------------------------

def test_scalar_operators_need_one_type():
    assert infer("add", F32, F32) is F32
    assert infer("lt", I32, I32) is BOOL
    with pytest.raises(BuiltinTypeError, match=r"mismatched operand types int32 and float32: "
                                               r"convert one with int\(x\) or float\(x\)"):
        infer("add", I32, F32)
    with pytest.raises(BuiltinTypeError, match="mismatched operand types"):
        infer("lt", F64, F32)


def test_composite_operator_rules():
    assert infer("add", vec3, vec3) == vec3
    assert infer("mul", vec3, F32) == vec3
    assert infer("mul", F32, vec3) == vec3
    assert infer("div", vec3, F32) == vec3
    assert infer("div", F32, vec3) == vec3
    assert infer("mul", mat33, vec3) == vec3
    assert infer("mul", vec3, mat33) == vec3
    assert infer("mul", mat33, mat33) == mat33
    assert infer("mul", quat, quat) == quat
    assert infer("mul", quat, F32) == quat
    assert infer("add", quat, quat) == quat
    assert infer("neg", mat22) == mat22
    assert infer("eq", vec3, vec3) is BOOL
    assert infer("mul", matrix_type(F32, 2, 3), matrix_type(F32, 3, 4)) == matrix_type(F32, 2, 4)
    with pytest.raises(BuiltinTypeError, match="cannot add vec2 and float32"):
        infer("add", vec2, F32)
    with pytest.raises(BuiltinTypeError, match="cw_mul"):
        infer("mul", vec3, vec3)
    with pytest.raises(BuiltinTypeError, match="cw_div"):
        infer("div", vec3, vec3)
    with pytest.raises(BuiltinTypeError, match="cannot multiply"):
        infer("mul", quat, vec3)
    with pytest.raises(BuiltinTypeError, match="cannot multiply"):
        infer("mul", mat33, vec2)
    with pytest.raises(BuiltinTypeError, match="element types"):
        infer("mul", vec3, F64)
    with pytest.raises(BuiltinTypeError, match="ordering comparisons take scalars"):
        infer("lt", vec3, vec3)
    with pytest.raises(BuiltinTypeError, match="scalars only"):
        infer("floordiv", vec3, vec3)
    with pytest.raises(BuiltinTypeError):
        infer("add", ArrayType(F32, 1), ArrayType(F32, 1))


def test_bitwise_rules():
    assert infer("bit_and", I32, I32) is I32
    assert infer("bit_xor", BOOL, BOOL) is BOOL
    assert infer("lshift", U32, U32) is U32
    assert infer("invert", I8) is I8
    with pytest.raises(BuiltinTypeError, match="integers"):
        infer("bit_or", F32, F32)
    with pytest.raises(BuiltinTypeError, match="integers"):
        infer("lshift", BOOL, BOOL)
    with pytest.raises(BuiltinTypeError, match="mismatched"):
        infer("rshift", U32, I32)
    with pytest.raises(BuiltinTypeError, match="not x"):
        infer("invert", BOOL)
    with pytest.raises(BuiltinTypeError, match="bool"):
        infer("add", BOOL, BOOL)


# --- operators: lowering shapes ---------------------------------------------------------------------

def test_lowering_shapes():
    assert len(lower("cross", vec3, vec3)[1]) == 3
    assert len(lower("mul", mat33, vec3)[1]) == 3
    assert len(lower("mul", vec4, mat44)[1]) == 4
    assert len(lower("mul", mat44, mat44)[1]) == 16
    assert len(lower("mul", quat, quat)[1]) == 4
    assert len(lower("add", mat22, mat22)[1]) == 4
    _, out, fn = lower("eq", vec3, vec3)
    assert len(out) == 1 and out[0].type is BOOL
    assert ops_of(fn).count(Op.EQ) == 3 and ops_of(fn).count(Op.AND) == 2
    _, out, fn = lower("mul", vec3, F32)
    assert ops_of(fn) == [Op.MUL] * 3 + [Op.RET]


def test_div_mod_floordiv_lowering():
    assert ops_of(lower("div", I32, I32)[2])[:-1] == [Op.DIV]
    assert ops_of(lower("mod", I32, I32)[2])[:-1] == [Op.REM]
    assert ops_of(lower("mod", F32, F32)[2])[:-1] == [Op.REM]
    assert ops_of(lower("floordiv", F32, F32)[2])[:-1] == [Op.DIV, Op.FLOOR]
    assert ops_of(lower("floordiv", U32, U32)[2])[:-1] == [Op.DIV]
    assert Op.SELECT in ops_of(lower("floordiv", I32, I32)[2])


@pytest.mark.parametrize("t", [I32, I64, I8])
def test_integer_division_semantics(t):
    lim = 100 if t is I8 else 1000
    cases = [(-7, 2), (7, -2), (-7, -2), (7, 2), (-8, 2), (0, -3), (lim, 7), (-lim, 7), (5, 10)]
    for a, b in cases:
        assert run("div", t, t, args=[a, b])[1][0] == _c_div(a, b)
        assert run("mod", t, t, args=[a, b])[1][0] == a - b * _c_div(a, b)
        assert run("floordiv", t, t, args=[a, b])[1][0] == a // b, (a, b)


def test_float_floordiv_and_mod():
    assert run("floordiv", F32, F32, args=[-7.0, 2.0])[1][0] == -4.0
    assert run("mod", F32, F32, args=[-7.0, 2.0])[1][0] == -1.0
    assert run("mod", F64, F64, args=[7.5, -2.0])[1][0] == 1.5


# --- scalar math -------------------------------------------------------------------------------------

def test_math_typing():
    assert infer("sqrt", F32) is F32
    assert infer("atan2", F64, F64) is F64
    assert infer("min", I32, I32) is I32
    assert infer("min", vec3, vec3) == vec3
    assert infer("max", vec3) is F32
    assert infer("abs", vec2) == vec2
    assert infer("clamp", I32, I32, I32) is I32
    assert infer("where", BOOL, mat33, mat33) == mat33
    assert infer("isnan", vec3) is BOOL
    assert infer("lerp", vec3, vec3, F32) == vec3
    with pytest.raises(BuiltinTypeError, match=r"float32 or float64, got int32: convert with float"):
        infer("sqrt", I32)
    with pytest.raises(BuiltinTypeError, match="mismatched"):
        infer("pow", F32, F64)
    with pytest.raises(BuiltinTypeError, match="mismatched"):
        infer("min", I32, F32)
    with pytest.raises(BuiltinTypeError, match="same type"):
        infer("where", BOOL, vec3, F32)
    with pytest.raises(BuiltinTypeError, match="takes 1 argument"):
        infer("sin", F32, F32)


def test_math_values():
    assert run("round", F32, args=[-2.5])[1][0] == -3.0
    assert run("round", F32, args=[2.5])[1][0] == 3.0
    assert run("round", F32, args=[0.49999997])[1][0] == 0.0
    assert run("sign", F32, args=[0.0])[1][0] == 1.0
    assert run("sign", F32, args=[-2.0])[1][0] == -1.0
    assert run("sign", I32, args=[-5])[1][0] == -1
    assert run("sign", U32, args=[0])[1][0] == 1
    assert run("step", F32, args=[-1.0])[1][0] == 1.0
    assert run("step", F32, args=[0.0])[1][0] == 0.0
    assert run("abs", I32, args=[-4])[1][0] == 4
    assert run("clamp", F32, F32, F32, args=[5.0, 0.0, 1.0])[1][0] == 1.0
    assert run("clamp", I32, I32, I32, args=[-5, 0, 3])[1][0] == 0
    assert run("min", F32, F32, args=[float("nan"), 1.0])[1][0] == 1.0
    assert run("max", vec3, args=[[1.0, 7.0, 3.0]])[1][0] == 7.0
    assert run("acos", F32, args=[1.0000001])[1][0] == 0.0          # clamped, no NaN
    assert run("degrees", F32, args=[1.0])[1][0] == np.float32(np.float64(1.0) * (180 / math.pi))
    assert run("frac", F32, args=[-2.25])[1][0] == -0.25
    assert run("smoothstep", F32, F32, F32, args=[0.0, 1.0, 0.5])[1][0] == 0.5
    assert run("lerp", F32, F32, F32, args=[2.0, 4.0, 0.25])[1][0] == 2.5
    assert run("isfinite", vec2, args=[[1.0, float("inf")]])[1][0] == False  # noqa: E712
    assert run("isnan", vec2, args=[[1.0, float("nan")]])[1][0] == True  # noqa: E712
    assert run("isnan", I32, args=[3])[1][0] == False  # noqa: E712


def test_where_and_select_orders():
    assert run("where", BOOL, F32, F32, args=[True, 1.0, 2.0])[1] == [1.0]
    assert run("where", I32, vec2, vec2, args=[0, [1.0, 2.0], [3.0, 4.0]])[1] == [3.0, 4.0]
    # Warp's old select(cond, value_if_false, value_if_true)
    assert run("select", BOOL, F32, F32, args=[True, 1.0, 2.0])[1] == [2.0]


# --- casts ----------------------------------------------------------------------------------------------

def test_casts():
    assert infer("int32", F32) is I32
    assert infer("bool", I32) is BOOL
    with pytest.raises(BuiltinTypeError, match="constructor"):
        infer("float32", vec3)
    assert run("int32", F32, args=[-2.7])[1][0] == -2
    assert run("uint8", I32, args=[300])[1][0] == 44
    assert run("bool", F32, args=[0.5])[1][0] == True  # noqa: E712
    assert run("float32", I32, args=[7])[1][0] == 7.0
    assert ops_of(lower("float32", I32)[2])[:-1] == [Op.CVT]
    # immediates fold: no instruction at all
    _, out, fn = lower("uint32", I32, values=[0xFFFFFFFF])
    assert ops_of(fn) == [Op.RET] and out[0] == Imm(0xFFFFFFFF, U32)


# --- vectors -----------------------------------------------------------------------------------------

def test_vector_constructors():
    assert infer("vec3") == vec3
    assert infer("vec3", F32, F32, F32) == vec3
    assert infer("vec3d", F32) == vector_type(F64, 3)
    _, out, fn = lower("vec3")
    assert [o.value for o in out] == [0.0, 0.0, 0.0]
    _, out, _ = lower("vec4", F32)
    assert len(out) == 4 and len({id(o) for o in out}) == 1
    assert run("vec3i", vec3, args=[[1.5, -2.5, 3.0]])[1] == [1, -2, 3]
    with pytest.raises(BuiltinTypeError, match="takes 0, 1 or 3 argument"):
        infer("vec3", F32, F32)
    with pytest.raises(BuiltinTypeError, match="lengths differ"):
        infer("vec3", vec2)


def test_vector_functions():
    assert infer("dot", vec3, vec3) is F32
    assert infer("length", quat) is F32
    assert infer("normalize", vec2) == vec2
    with pytest.raises(BuiltinTypeError, match="3-vectors"):
        infer("cross", vec2, vec2)
    with pytest.raises(BuiltinTypeError):
        infer("dot", vec3, vec4)
    assert run("cross", vec3, vec3, args=[[1.0, 0, 0], [0, 1.0, 0]])[1] == [0, 0, 1.0]
    assert run("dot", vec4, vec4, args=[[1.0, 2, 3, 4], [1.0, 1, 1, 1]])[1] == [10.0]
    assert run("length", vec3, args=[[3.0, 4.0, 0.0]])[1] == [5.0]
    assert run("normalize", vec3, args=[[0.0, 0.0, 0.0]])[1] == [0.0, 0.0, 0.0]
    assert run("normalize", vec2, args=[[3.0, 4.0]])[1] == [np.float32(0.6), np.float32(0.8)]
    assert run("normalize", quat, args=[[0.0] * 4])[1] == [0.0, 0.0, 0.0, 1.0]
    assert run("cw_mul", vec2, vec2, args=[[2.0, 3.0], [4.0, 5.0]])[1] == [8.0, 15.0]
    assert run("eq", vec2, vec2, args=[[1.0, 2.0], [1.0, 2.0]])[1] == [True]
    assert run("ne", vec2, vec2, args=[[1.0, 2.0], [1.0, 3.0]])[1] == [True]


# --- matrices -----------------------------------------------------------------------------------------

def _mat(vals):
    return np.array(vals, dtype=np.float32)


def test_matrix_typing():
    assert infer("mat33") == mat33
    assert infer("mat22", *[F32] * 4) == mat22
    assert infer("matrix_from_rows", vec3, vec3) == matrix_type(F32, 2, 3)
    assert infer("transpose", matrix_type(F32, 2, 3)) == matrix_type(F32, 3, 2)
    assert infer("determinant", mat44) is F32
    assert infer("diag", vec3) == mat33
    assert infer("get_diag", mat33) == vec3
    with pytest.raises(BuiltinTypeError, match="matrix_from_rows"):
        infer("mat33", vec3, vec3, vec3)
    with pytest.raises(BuiltinTypeError, match="square"):
        infer("inverse", matrix_type(F32, 2, 3))


def test_matrix_values():
    rng = np.random.default_rng(1)
    m3 = _mat(rng.normal(size=(3, 3)))
    v3 = _mat(rng.normal(size=3))
    _, mv = run("mul", mat33, vec3, args=[m3, v3])
    np.testing.assert_allclose(mv, m3 @ v3, rtol=1e-5)
    _, vm = run("mul", vec3, mat33, args=[v3, m3])
    np.testing.assert_allclose(vm, v3 @ m3, rtol=1e-5)
    _, mm = run("mul", mat33, mat33, args=[m3, m3.T])
    np.testing.assert_allclose(np.reshape(mm, (3, 3)), m3 @ m3.T, rtol=1e-5, atol=1e-6)
    _, rows = run("matrix_from_rows", vec3, vec3, args=[[1.0, 2, 3], [4.0, 5, 6]])
    assert rows == [1, 2, 3, 4, 5, 6]
    _, cols = run("matrix_from_cols", vec3, vec3, args=[[1.0, 2, 3], [4.0, 5, 6]])
    assert cols == [1, 4, 2, 5, 3, 6]
    _, tr = run("transpose", matrix_type(F32, 2, 3), args=[[1.0, 2, 3, 4, 5, 6]])
    assert tr == [1, 4, 2, 5, 3, 6]
    assert run("trace", mat33, args=[m3])[1][0] == pytest.approx(np.trace(m3), rel=1e-6)


@pytest.mark.parametrize("n, t", [(2, mat22), (3, mat33), (4, mat44)])
def test_inverse_and_determinant(n, t):
    rng = np.random.default_rng(n)
    m = _mat(rng.normal(size=(n, n)) + 2 * np.eye(n))
    _, det = run("determinant", t, args=[m])
    assert det[0] == pytest.approx(np.linalg.det(m.astype(np.float64)), rel=1e-5)
    _, inv = run("inverse", t, args=[m])
    np.testing.assert_allclose(np.reshape(inv, (n, n)), np.linalg.inv(m), rtol=1e-4, atol=1e-5)
    _, singular = run("inverse", t, args=[np.zeros((n, n), np.float32)])
    assert list(singular) == [0.0] * (n * n)


# --- quaternions ----------------------------------------------------------------------------------------

def test_quaternions():
    assert infer("quat") == quat
    assert infer("quat", vec3, F32) == quat
    assert infer("quat_from_axis_angle", vec3, F32) == quat
    assert infer("quat_rotate", quat, vec3) == vec3
    assert infer("quat_to_matrix", quat) == mat33
    with pytest.raises(BuiltinTypeError):
        infer("quat_rotate", quat, vec2)
    _, q = run("quat_from_axis_angle", vec3, F32, args=[[0.0, 0.0, 1.0], math.pi / 2])
    np.testing.assert_allclose(q, [0, 0, math.sqrt(0.5), math.sqrt(0.5)], atol=1e-7)
    _, v = run("quat_rotate", quat, vec3, args=[q, [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(v, [0, 1, 0], atol=1e-6)
    _, back = run("quat_rotate_inv", quat, vec3, args=[q, v])
    np.testing.assert_allclose(back, [1, 0, 0], atol=1e-6)
    _, m = run("quat_to_matrix", quat, args=[q])
    np.testing.assert_allclose(np.reshape(m, (3, 3)) @ [1, 0, 0], [0, 1, 0], atol=1e-6)
    _, qq = run("mul", quat, quat, args=[q, q])     # two quarter turns: a half turn
    np.testing.assert_allclose(qq, [0, 0, 1, 0], atol=1e-6)
    assert run("quat_inverse", quat, args=[[1.0, 2, 3, 4]])[1] == [-1, -2, -3, 4]
    assert [o.value for o in lower("quat_identity")[1]] == [0.0, 0.0, 0.0, 1.0]


# --- warp intrinsics ---------------------------------------------------------------------------------

def test_shuffles_lower_per_component():
    rt, out, fn = lower("shfl_down_sync", I32, vec3, I32, values=[0xFFFFFFFF, None, 1])
    assert rt == vec3 and len(out) == 3
    shfls = [i for i in fn.instructions() if i.op is Op.SHFL]
    assert len(shfls) == 3 and all(i.arg is ShflMode.DOWN for i in shfls)
    assert shfls[0].srcs[2] == Imm(0xFFFFFFFF, U32) and shfls[0].srcs[1] == Imm(1, I32)
    assert not REGISTRY["shfl_sync"].pure
    _, out, fn = lower("shfl_xor_sync", U32, BOOL, I32)       # bool travels as int32
    assert out[0].type is BOOL and Op.SHFL in ops_of(fn)
    with pytest.raises(BuiltinTypeError, match="mask"):
        infer("shfl_sync", F32, F32, I32)


def test_votes_activemask_syncwarp():
    assert infer("ballot_sync", U32, BOOL) is U32
    assert infer("any_sync", I32, I32) is BOOL
    _, out, fn = lower("ballot_sync", I32, BOOL)
    vote = next(i for i in fn.instructions() if i.op is Op.VOTE)
    assert vote.arg is VoteMode.BALLOT and vote.srcs[1].type is U32
    _, out, fn = lower("active_mask")
    assert ops_of(fn)[0] is Op.ACTIVEMASK and out[0].type is U32
    assert infer("syncwarp") is VOID
    _, out, fn = lower("syncwarp")
    sync = fn.blocks[0].instrs[0]
    assert out == [] and sync.op is Op.SYNCWARP and sync.srcs[0] == Imm(0xFFFFFFFF, U32)


# --- the registry as a whole -----------------------------------------------------------------------------

def test_every_builtin_is_documented_and_grouped():
    groups = {"operator", "math", "vector", "matrix", "quaternion", "cast", "warp", "random",
              "transformation", "spatial"}
    for name, b in REGISTRY.items():
        assert b.doc, name
        assert b.group in groups, (name, b.group)
    for name in ["add", "sub", "mul", "div", "mod", "floordiv", "neg", "pos", "bit_and", "bit_or",
                 "bit_xor", "lshift", "rshift", "invert", "eq", "ne", "lt", "le", "gt", "ge",
                 "min", "max", "abs", "clamp", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
                 "atan2", "sinh", "cosh", "tanh", "exp", "log", "log2", "log10", "pow", "floor",
                 "ceil", "round", "trunc", "sign", "where", "lerp", "isnan", "isinf", "vec2",
                 "vec3", "vec4", "dot", "cross", "length", "length_sq", "normalize", "cw_mul",
                 "cw_div", "mat22", "mat33", "mat44", "transpose", "determinant", "inverse",
                 "quat", "quat_identity", "quat_from_axis_angle", "quat_rotate", "quat_rotate_inv",
                 "quat_inverse", "quat_to_matrix", "float32", "float64", "int32", "uint32",
                 "int64", "uint64", "int8", "uint8", "bool", "active_mask", "ballot_sync",
                 "any_sync", "all_sync", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
                 "shfl_xor_sync", "syncwarp"]:
        assert name in REGISTRY, name


def test_every_accepted_signature_lowers_and_verifies():
    """Across many argument-type combinations: infer either accepts or raises
    BuiltinTypeError (never crashes), and whatever it accepts lowers to verified MIR with
    one operand of the result's element type per component."""
    import itertools
    from simt.ir.types import TupleType
    pool = [F32, F64, I32, U32, I64, I8, U8, BOOL, vec2, vec3, vec4, vector_type(F64, 3),
            vector_type(I32, 3), mat22, mat33, mat44, matrix_type(F32, 2, 3), quat,
            ArrayType(F32, 1), VOID, TupleType((I32, I32))]
    small = [F32, I32, U32, BOOL, vec3, mat33, quat, vector_type(I32, 3)]
    accepted = 0
    for name in sorted(REGISTRY):
        combos = ([()] + [(a,) for a in pool] + list(itertools.product(pool, repeat=2))
                  + list(itertools.product(small, repeat=3)))
        if name.startswith(("mat", "vec")):
            combos += [tuple([t] * k) for t in (F32, I32) for k in (4, 9, 16)]
        for types in combos:
            try:
                rt = REGISTRY[name].infer(list(types))
            except BuiltinTypeError:
                continue
            _, out, _ = lower(name, *types)
            # the result, then the new value of each argument the builtin updates (rand state)
            parts = ([] if rt == VOID else list(rt.elems) if isinstance(rt, TupleType) else [rt])
            parts += [types[k] for k in REGISTRY[name].inout]
            want = [scalar_of(p) for p in parts for _ in range(flat_count(p))]
            assert [o.type for o in out] == want, (name, types)
            accepted += 1
    assert accepted > 1500


# --- against NVIDIA Warp itself (CPU backend), bit for bit ----------------------------------------------

WARP_CASES = [
    ("inverse", [mat22], "wp.inverse(a0)"), ("inverse", [mat33], "wp.inverse(a0)"),
    ("inverse", [mat44], "wp.inverse(a0)"), ("determinant", [mat33], "wp.determinant(a0)"),
    ("determinant", [mat44], "wp.determinant(a0)"), ("mul", [mat33, vec3], "a0 * a1"),
    ("mul", [vec3, mat33], "a0 * a1"), ("mul", [quat, quat], "a0 * a1"),
    ("quat_rotate", [quat, vec3], "wp.quat_rotate(a0, a1)"),
    ("quat_rotate_inv", [quat, vec3], "wp.quat_rotate_inv(a0, a1)"),
    ("quat_to_matrix", [quat], "wp.quat_to_matrix(a0)"), ("normalize", [vec3], "wp.normalize(a0)"),
    ("normalize", [vec4], "wp.normalize(a0)"), ("normalize", [quat], "wp.normalize(a0)"),
    ("length", [vec4], "wp.length(a0)"), ("dot", [vec4, vec4], "wp.dot(a0, a1)"),
    ("cross", [vec3, vec3], "wp.cross(a0, a1)"), ("degrees", [F32], "wp.degrees(a0)"),
    ("radians", [F32], "wp.radians(a0)"), ("round", [F32], "wp.round(a0)"),
    ("floordiv", [F32, F32], "a0 // a1"), ("mod", [F32, F32], "a0 % a1"),
    ("lerp", [vec3, vec3, F32], "wp.lerp(a0, a1, a2)"),
    ("smoothstep", [F32, F32, F32], "wp.smoothstep(a0, a1, a2)"), ("sign", [F32], "wp.sign(a0)"),
    ("step", [F32], "wp.step(a0)"), ("frac", [F32], "wp.frac(a0)"),
    ("outer", [vec3, vec2], "wp.outer(a0, a1)"), ("skew", [vec3], "wp.skew(a0)"),
    ("div", [F32, vec3], "a0 / a1"),
]
# Only builtins made of exact operations belong here: transcendentals (asin, sin ...) come
# from a C library and are checked against warp-lang within docs/ulp.md's bound
# (tests/test_mathlib.py), never bit for bit.
_WARP_TYPES = {F32: "float", vec2: "wp.vec2", vec3: "wp.vec3", vec4: "wp.vec4", mat22: "wp.mat22",
               mat33: "wp.mat33", mat44: "wp.mat44", quat: "wp.quat"}


def _warp_kernel_source(k, name, types):
    from simt.ir.types import MatrixType
    lines, off = [], 0
    for j, t in enumerate(types):
        n = flat_count(t)
        comps = ", ".join(f"x[b + {off + c}]" for c in range(n))
        lines.append(f"    a{j} = x[b + {off}]" if t is F32 else f"    a{j} = {_WARP_TYPES[t]}({comps})")
        off += n
    rt = REGISTRY[name].infer(types)
    if rt is F32:
        store = ["    out[o] = r"]
    elif isinstance(rt, MatrixType):
        store = [f"    out[o + {r * rt.cols + c}] = r[{r}][{c}]"
                 for r in range(rt.rows) for c in range(rt.cols)]
    else:
        store = [f"    out[o + {c}] = r[{c}]" for c in range(flat_count(rt))]
    expr = WARP_CASES[k][2]
    return (f"\n@wp.kernel\ndef k{k}(x: wp.array(dtype=float), out: wp.array(dtype=float)):\n"
            f"    i = wp.tid()\n    b = i * {off}\n" + "\n".join(lines) +
            f"\n    r = {expr}\n    o = i * 16\n" + "\n".join(store) + "\n")


def test_bit_exact_against_warp(tmp_path):
    """The lowered MIR rounds exactly like Warp's C++ (same operations, same order): for
    builtins made of exact operations only."""
    wp = pytest.importorskip("warp")
    import importlib.util
    wp.config.quiet = True
    wp.init()
    source = "import warp as wp\n" + "".join(
        _warp_kernel_source(k, name, types) for k, (name, types, _) in enumerate(WARP_CASES))
    path = tmp_path / "simt_warp_reference.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("simt_warp_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    n = 16
    for k, (name, types, _) in enumerate(WARP_CASES):
        width = sum(flat_count(t) for t in types)
        x = rng.normal(size=(n, width)).astype(np.float32)
        x[0] = 0.0
        if name == "round":
            x[1, 0], x[2, 0] = -2.5, 0.5
        out = wp.zeros(n * 16, dtype=float, device="cpu")
        wp.launch(getattr(module, f"k{k}"), dim=n, inputs=[wp.array(x.ravel(), dtype=float, device="cpu"), out],
                  device="cpu")
        expected = out.numpy().reshape(n, 16)
        for s in range(n):
            args, off = [], 0
            for t in types:
                w = flat_count(t)
                args.append(list(x[s, off:off + w]) if w > 1 else float(x[s, off]))
                off += w
            mine = np.array(run(name, *types, args=args)[1], dtype=np.float32)
            theirs = expected[s, :len(mine)]
            same = (mine.view(np.int32) == theirs.view(np.int32)) | (np.isnan(mine) & np.isnan(theirs))
            assert same.all(), (name, types, s, mine, theirs)


def test_constructor_for_user_composites():
    from simt.ir.builtins import constructor_for
    from simt.ir.types import MatrixType, VectorType
    v5 = VectorType(F32, 5, "vec5f")
    assert constructor_for(v5) == "vec5f" and constructor_for(v5) == "vec5f"
    assert infer("vec5f", *[F32] * 5) == v5
    m23 = MatrixType(I32, 2, 3, "mat23i")
    assert constructor_for(m23) == "mat23i"
    assert run("mat23i", F32, args=[2.7])[1] == [2] * 6
    assert constructor_for(vec3) == "vec3"
