"""Python operators as builtins (the front end maps ``a + b`` to ``add``), with Warp's rules.

Scalars: both operands of one type (an untyped literal was already adapted by the front
end). Composites follow Warp 1.19: vec +- vec, vec */ scalar, scalar */ vec, mat +- mat,
mat */ scalar, mat * vec, vec * mat, mat * mat (matrix product), quat * quat (Hamilton
product), quat */ scalar, quat +- quat; ``vec * vec`` is an error (use ``cw_mul``).
Integer ``/`` and ``%`` truncate like C, ``//`` floors, float ``%`` is fmod.
"""
from __future__ import annotations

from typing import Sequence

from ..builder import Builder
from ..mir import Imm, Op, Operand
from ..registry import register
from ..types import AnyType, Scalar, TransformType, ValueType, scalar_of
from .common import (Args, arity, elementwise, fail, fold, is_composite, is_int,
                     is_mat, is_quat, is_scalar, is_vec, matrix_type, mismatch, same_type,
                     vector_type)
from .matrix import matmul, matvec, vecmat
from .quat import hamilton

# name -> (MIR op for scalars, verb for messages, Python symbol)
ARITHMETIC = {
    "add": (Op.ADD, "add", "+"),
    "sub": (Op.SUB, "subtract", "-"),
    "mul": (Op.MUL, "multiply", "*"),
    "div": (Op.DIV, "divide", "/"),
    "mod": (Op.REM, "take the remainder of", "%"),
    "floordiv": (None, "floor-divide", "//"),
}
BITWISE = {
    "bit_and": (Op.AND, "&"), "bit_or": (Op.OR, "|"), "bit_xor": (Op.XOR, "^"),
    "lshift": (Op.SHL, "<<"), "rshift": (Op.SHR, ">>"),
}
COMPARISONS = {
    "eq": (Op.EQ, "=="), "ne": (Op.NE, "!="), "lt": (Op.LT, "<"),
    "le": (Op.LE, "<="), "gt": (Op.GT, ">"), "ge": (Op.GE, ">="),
}


# --- arithmetic: classify the operand shapes once, for infer and lower ------------------

def classify(name: str, a: AnyType, b: AnyType) -> tuple[str, ValueType]:
    """The operand pattern (``ss``, ``cc``, ``cs``, ``sc``, ``mv``, ``vm``, ``mm``, ``qq``)
    and the result type; raises BuiltinTypeError with Warp's advice when none applies."""
    verb = ARITHMETIC[name][1]
    if is_scalar(a) and is_scalar(b):
        if a is not b:
            fail(mismatch(a, b))
        if a is Scalar.BOOL:
            fail(f"cannot {verb} bool values: convert with int(x)")
        return "ss", a
    if not (is_composite(a) or is_scalar(a)) or not (is_composite(b) or is_scalar(b)):
        fail(f"cannot {verb} {a} and {b}")
    if scalar_of(a) is not scalar_of(b):
        fail(f"cannot {verb} {a} and {b}: element types {scalar_of(a)} and {scalar_of(b)} differ")
    if name in ("add", "sub"):
        if same_type(a, b):
            return "cc", a
    elif name == "mul":
        if is_composite(a) and is_scalar(b):
            return "cs", a
        if is_scalar(a) and is_composite(b):
            return "sc", b
        if is_mat(a) and is_vec(b) and a.cols == b.n:
            return "mv", vector_type(a.elem, a.rows)
        if is_vec(a) and is_mat(b) and a.n == b.rows:
            return "vm", vector_type(b.elem, b.cols)
        if is_mat(a) and is_mat(b) and a.cols == b.rows:
            return "mm", matrix_type(a.elem, a.rows, b.cols)
        if is_quat(a) and is_quat(b):
            return "qq", a
        if isinstance(a, TransformType) and isinstance(b, TransformType):
            return "tt", a
        if is_vec(a) and is_vec(b):
            fail(f"cannot multiply {a} and {b}: use wp.cw_mul(a, b) for the component-wise "
                 f"product or wp.dot(a, b) for the dot product")
    elif name == "div":
        if is_composite(a) and is_scalar(b):
            return "cs", a
        if is_scalar(a) and is_composite(b):
            return "sc", b
        if is_vec(a) and is_vec(b):
            fail(f"cannot divide {a} by {b}: use wp.cw_div(a, b) for the component-wise quotient")
    elif name == "mod":
        if same_type(a, b) and not is_quat(a):
            return "cc", a
    if name == "floordiv":
        fail(f"cannot floor-divide {a} and {b}: // takes scalars only")
    fail(f"cannot {verb} {a} and {b} (operator {ARITHMETIC[name][2]})")
    raise AssertionError


def scalar_arith(b: Builder, name: str, x: Operand, y: Operand) -> Operand:
    t = x.type
    if name == "floordiv":
        return floordiv(b, x, y)
    if name == "mod" and t.is_float:
        return b.binary(Op.REM, x, y)   # fmod
    return b.binary(ARITHMETIC[name][0], x, y)


def floordiv(b: Builder, x: Operand, y: Operand) -> Operand:
    """Python's //: floor of the quotient. Signed ints: C's truncating quotient, minus one
    when the remainder is nonzero and its sign differs from the divisor's."""
    t = x.type
    if t.is_float:
        return b.unary(Op.FLOOR, b.binary(Op.DIV, x, y))
    shift = power_of_two_shift(y)
    if shift is not None:
        return x if shift == 0 else b.binary(Op.SHR, x, b.imm(shift, t))
    q = b.binary(Op.DIV, x, y)
    if not t.is_signed:
        return q
    r = b.binary(Op.REM, x, y)
    nonzero = b.compare(Op.NE, r, b.imm(0, t))
    signs_differ = b.compare(Op.LT, b.binary(Op.XOR, r, y), b.imm(0, t))
    adjust = b.binary(Op.AND, nonzero, signs_differ)
    return b.select(adjust, b.binary(Op.SUB, q, b.imm(1, t)), q)


def power_of_two_shift(y: Operand) -> int | None:
    """k when ``y`` is the integer constant 2**k (k >= 0), else None.

    Dividing by 2**k and flooring is a right shift by k: arithmetic for signed types (it
    rounds toward minus infinity, exactly Python's //), logical for unsigned ones. Without
    the div/rem/fix-up sequence, loops like ``s //= 2`` keep a trip count ptxas can see."""
    if not isinstance(y, Imm) or isinstance(y.value, bool) or y.value <= 0:
        return None
    value = int(y.value)
    if value & (value - 1):
        return None
    shift = value.bit_length() - 1
    return shift if shift < 8 * y.type.nbytes else None


def make_arith(name: str):
    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, 2)
        return classify(name, *arg_types)[1]

    def lower(b: Builder, arg_types: Sequence[AnyType], args: Args) -> list[Operand]:
        kind, _ = classify(name, *arg_types)
        xs, ys = args
        a, c = arg_types
        if kind == "mv":
            return matvec(b, a.rows, a.cols, xs, ys)
        if kind == "vm":
            return vecmat(b, c.rows, c.cols, xs, ys)
        if kind == "mm":
            return matmul(b, a.rows, a.cols, c.cols, xs, ys)
        if kind == "qq":
            return hamilton(b, xs, ys)
        if kind == "tt":
            from .spatial import multiply
            return multiply(b, xs, ys)
        if len(xs) == 1 and len(ys) > 1:
            xs = list(xs) * len(ys)
        if len(ys) == 1 and len(xs) > 1:
            ys = list(ys) * len(xs)
        return [scalar_arith(b, name, x, y) for x, y in zip(xs, ys)]

    return infer, lower


ARITH_DOCS = {
    "add": "a + b: scalars of one type, or vectors/matrices/quaternions of one type (per component).",
    "sub": "a - b: scalars of one type, or vectors/matrices/quaternions of one type (per component).",
    "mul": ("a * b: scalars; composite * scalar and scalar * composite; mat * vec, vec * mat and "
            "mat * mat are matrix products; quat * quat is the Hamilton product. vec * vec is an "
            "error (use cw_mul or dot)."),
    "div": ("a / b: integers truncate toward zero like C (-7 / 2 == -3); floats are IEEE "
            "division; composite / scalar and scalar / composite work per component."),
    "mod": ("a % b: integers take the sign of the dividend like C (-7 % 2 == -1); floats are "
            "fmod; same-typed vectors/matrices work per component."),
    "floordiv": "a // b: floor of the quotient (-7 // 2 == -4); floats give floor(a / b). Scalars only.",
}

for _name in ARITHMETIC:
    _infer, _lower = make_arith(_name)
    register(_name, _infer, _lower, ARITH_DOCS[_name], "operator")


# --- bitwise and shifts --------------------------------------------------------------------

def make_bitwise(name: str):
    op, symbol = BITWISE[name]
    allows_bool = op in (Op.AND, Op.OR, Op.XOR)

    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, 2)
        a, c = arg_types
        if is_scalar(a) and is_scalar(c) and a is not c:
            fail(mismatch(a, c))
        if not same_type(a, c):
            fail(f"operator {symbol} needs operands of one type, got {a} and {c}")
        elem = scalar_of(a)
        if not (elem.is_int or (allows_bool and elem is Scalar.BOOL)):
            kinds = "integers or bools" if allows_bool else "integers"
            fail(f"operator {symbol} takes {kinds}, not {a}")
        if is_quat(a):
            fail(f"operator {symbol} does not take quaternions")
        return a

    def lower(b: Builder, arg_types: Sequence[AnyType], args: Args) -> list[Operand]:
        return elementwise(b, op, args[0], args[1])

    return infer, lower


for _name, (_op, _symbol) in BITWISE.items():
    _infer, _lower = make_bitwise(_name)
    _doc = (f"a {_symbol} b on integers of one type (and on bools for &, |, ^); per component "
            "on integer vectors and matrices. >> is arithmetic on signed types.")
    register(_name, _infer, _lower, _doc, "operator")


# --- comparisons ---------------------------------------------------------------------------

def make_compare(name: str):
    op, symbol = COMPARISONS[name]

    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, 2)
        a, c = arg_types
        if is_scalar(a) and is_scalar(c):
            if a is not c:
                fail(mismatch(a, c))
            return Scalar.BOOL
        if op in (Op.EQ, Op.NE) and same_type(a, c):
            return Scalar.BOOL
        fail(f"cannot compare {a} {symbol} {c}" + ("" if op in (Op.EQ, Op.NE) else
             ": ordering comparisons take scalars"))
        raise AssertionError

    def lower(b: Builder, arg_types: Sequence[AnyType], args: Args) -> list[Operand]:
        results = elementwise(b, op, args[0], args[1])
        # composites: == is all components equal, != is any component different
        return [fold(b, Op.AND if op is Op.EQ else Op.OR, results)]

    return infer, lower


for _name, (_op, _symbol) in COMPARISONS.items():
    _infer, _lower = make_compare(_name)
    _doc = (f"a {_symbol} b on scalars of one type, giving bool." +
            (" On vectors/matrices/quaternions of one type: "
             + ("all components equal." if _op is Op.EQ else "any component differs.")
             if _op in (Op.EQ, Op.NE) else ""))
    register(_name, _infer, _lower, _doc, "operator")


# --- unary -----------------------------------------------------------------------------------

def neg_infer(arg_types: Sequence[AnyType]) -> AnyType:
    arity("neg", arg_types, 1)
    (a,) = arg_types
    if scalar_of(a) is Scalar.BOOL:
        fail("cannot negate a bool: use `not x`")
    return a


def neg_lower(b: Builder, arg_types, args: Args) -> list[Operand]:
    return [b.unary(Op.NEG, x) for x in args[0]]


def pos_infer(arg_types: Sequence[AnyType]) -> AnyType:
    arity("pos", arg_types, 1)
    return arg_types[0]


def pos_lower(b: Builder, arg_types, args: Args) -> list[Operand]:
    return list(args[0])


def invert_infer(arg_types: Sequence[AnyType]) -> AnyType:
    arity("invert", arg_types, 1)
    (a,) = arg_types
    if scalar_of(a) is Scalar.BOOL:
        fail("~ on a bool is not allowed (in Python ~True == -2): use `not x`")
    if not is_int(a) or is_quat(a):
        fail(f"~ takes integers, not {a}")
    return a


def invert_lower(b: Builder, arg_types, args: Args) -> list[Operand]:
    return [b.unary(Op.NOT, x) for x in args[0]]


register("neg", neg_infer, neg_lower,
         "-a: negation of a number, vector, matrix or quaternion (integers wrap).", "operator")
register("pos", pos_infer, pos_lower, "+a: the value itself.", "operator")
register("invert", invert_infer, invert_lower,
         "~a: bitwise complement of an integer (per component on integer vectors).", "operator")
