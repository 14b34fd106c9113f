"""Shared pieces of the builtin library: type tests, error messages, composite types, and
``V``, a scalar MIR value with C-like arithmetic so builtin bodies read like Warp's C++.

Builtins lower to straight-line code in the current block (no new blocks): a choice
between results is a SELECT, so builtins never create divergence.
"""
from __future__ import annotations

from typing import Sequence


from ..builder import Builder
from ..mir import COMPARE, Imm, Op, Operand
from ..registry import BuiltinTypeError
from .. import types
from ..types import (AnyType, MatrixType, QuatType, Scalar, TransformType, ValueType,
                     VectorType, flat_count, scalar_of)

FLOATS = (Scalar.F32, Scalar.F64, Scalar.F16, Scalar.BF16)   # halves compute in float32
Args = Sequence[Sequence[Operand]]


# --- type tests ---------------------------------------------------------------------------

def is_scalar(t: AnyType) -> bool:
    return isinstance(t, Scalar)


def is_vec(t: AnyType) -> bool:
    return isinstance(t, VectorType)


def is_mat(t: AnyType) -> bool:
    return isinstance(t, MatrixType)


def is_quat(t: AnyType) -> bool:
    return isinstance(t, QuatType)


def is_composite(t: AnyType) -> bool:
    return isinstance(t, (VectorType, MatrixType, QuatType, TransformType))


def is_value(t: AnyType) -> bool:
    return is_scalar(t) or is_composite(t)


def is_int(t: AnyType) -> bool:
    return is_value(t) and scalar_of(t).is_int


def same_type(a: AnyType, b: AnyType) -> bool:
    """Same scalar type, or composites of the same kind, shape and element type (names of
    aliases such as vec3 / vec3f may differ)."""
    if is_scalar(a) or is_scalar(b):
        return a is b
    if is_vec(a) and is_vec(b):
        return a.elem is b.elem and a.n == b.n
    if is_mat(a) and is_mat(b):
        return a.elem is b.elem and (a.rows, a.cols) == (b.rows, b.cols)
    if is_quat(a) and is_quat(b):
        return a.elem is b.elem
    if isinstance(a, TransformType) and isinstance(b, TransformType):
        return a.elem is b.elem
    return False


# --- errors -------------------------------------------------------------------------------

def fail(message: str) -> None:
    raise BuiltinTypeError(message)


def py_name(t: Scalar) -> str:
    """How the user spells a conversion to ``t`` in a kernel."""
    return {Scalar.F32: "float", Scalar.I32: "int", Scalar.BOOL: "bool"}.get(t, f"wp.{t.value}")


def mismatch(a: Scalar, b: Scalar) -> str:
    return (f"mismatched operand types {a} and {b}: convert one with "
            f"{py_name(a)}(x) or {py_name(b)}(x)")


def arity(name: str, arg_types: Sequence[AnyType], *counts: int) -> None:
    if len(arg_types) not in counts:
        names = [str(c) for c in counts]
        want = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        fail(f"{name}() takes {want} argument(s), got {len(arg_types)}")
    for t in arg_types:
        if not is_value(t):
            fail(f"{name}() takes values (scalars, vectors, matrices, quaternions), not {t}")


def want_float_scalar(name: str, t: AnyType) -> Scalar:
    if not (is_scalar(t) and t.is_float):
        hint = ": convert with float(x)" if is_scalar(t) else ""
        fail(f"{name}() expects float32 or float64, got {t}{hint}")
    return t


def want_same(name: str, a: AnyType, b: AnyType) -> None:
    if same_type(a, b):
        return
    if is_scalar(a) and is_scalar(b):
        fail(f"{name}(): {mismatch(a, b)}")
    fail(f"{name}() arguments must have the same type, got {a} and {b}")


# --- composite types ----------------------------------------------------------------------

# Composite types with Warp's names come from the type module (one table of suffixes).
vector_type, matrix_type, quat_type, transform_type = (types.vector_type, types.matrix_type,
                                                       types.quat_type, types.transform_type)


# --- lowering helpers ---------------------------------------------------------------------

def const(value, t: Scalar) -> Imm:
    """An immediate of type ``t`` (same rules as ``Builder.imm``)."""
    if t is Scalar.BOOL:
        return Imm(bool(value), t)
    if t.is_storage:
        from ..builder import _convert_constant
        return Imm(_convert_constant(float(value), t), t)
    return Imm(float(value), t) if t.is_float else Imm(int(value), t)


def zeros(t: ValueType) -> list[Operand]:
    return [const(0, scalar_of(t))] * flat_count(t)


def elementwise(b: Builder, op: Op, xs: Sequence[Operand], ys: Sequence[Operand]) -> list[Operand]:
    """op applied per component; a 1-element side broadcasts (vec * scalar)."""
    if len(xs) == 1 and len(ys) > 1:
        xs = list(xs) * len(ys)
    if len(ys) == 1 and len(xs) > 1:
        ys = list(ys) * len(xs)
    assert len(xs) == len(ys)
    if op in COMPARE:
        return [b.compare(op, x, y) for x, y in zip(xs, ys)]
    return [b.binary(op, x, y) for x, y in zip(xs, ys)]


def fold(b: Builder, op: Op, xs: Sequence[Operand]) -> Operand:
    """Left fold: ((x0 op x1) op x2) ..."""
    acc = xs[0]
    for x in xs[1:]:
        acc = b.binary(op, acc, x)
    return acc


class V:
    """A scalar operand with C arithmetic: ``a * b + c`` emits MUL then ADD.

    Python numbers become immediates of the other side's type (like ``Type(2)`` in C);
    mixing float32 and float64 promotes to float64 as C does (Warp's 4x4 inverse relies on it).
    """

    __slots__ = ("b", "x")

    def __init__(self, b: Builder, x: Operand):
        self.b = b
        self.x = x

    @property
    def type(self) -> Scalar:
        return self.x.type

    def _pair(self, other) -> tuple[Operand, Operand]:
        o = other.x if isinstance(other, V) else self.b.imm(other, self.type)
        a = self.x
        if a.type is not o.type:
            assert a.type.is_float and o.type.is_float, (a.type, o.type)
            a, o = self.b.cvt(a, Scalar.F64), self.b.cvt(o, Scalar.F64)
        return a, o

    def _bin(self, op: Op, other, reverse: bool = False) -> "V":
        a, o = self._pair(other)
        if reverse:
            a, o = o, a
        return V(self.b, self.b.binary(op, a, o))

    def __add__(self, o): return self._bin(Op.ADD, o)
    def __radd__(self, o): return self._bin(Op.ADD, o, True)
    def __sub__(self, o): return self._bin(Op.SUB, o)
    def __rsub__(self, o): return self._bin(Op.SUB, o, True)
    def __mul__(self, o): return self._bin(Op.MUL, o)
    def __rmul__(self, o): return self._bin(Op.MUL, o, True)
    def __truediv__(self, o): return self._bin(Op.DIV, o)
    def __rtruediv__(self, o): return self._bin(Op.DIV, o, True)

    def __neg__(self) -> "V":
        return V(self.b, self.b.unary(Op.NEG, self.x))

    def cmp(self, op: Op, other) -> "V":
        a, o = self._pair(other)
        return V(self.b, self.b.compare(op, a, o))

    def apply(self, op: Op) -> "V":
        return V(self.b, self.b.unary(op, self.x))

    def to(self, t: Scalar) -> "V":
        return V(self.b, self.b.cvt(self.x, t))


def vals(b: Builder, xs: Sequence[Operand]) -> list[V]:
    return [V(b, x) for x in xs]


def ops(xs: Sequence[V]) -> list[Operand]:
    return [x.x for x in xs]


def select(cond: V, a: V | Operand, b: V | Operand) -> V:
    """cond ? a : b (per scalar)."""
    x = a.x if isinstance(a, V) else a
    y = b.x if isinstance(b, V) else b
    return V(cond.b, cond.b.select(cond.x, x, y))


def to_u32(b: Builder, x: Operand) -> Operand:
    return b.cvt(x, Scalar.U32)


def truthy(b: Builder, x: Operand) -> Operand:
    """A bool from a bool or a number (nonzero is true), as C and Python conditions read it."""
    if x.type is Scalar.BOOL:
        return x
    return b.compare(Op.NE, x, b.imm(0, x.type))
