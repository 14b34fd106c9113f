"""Vectors: constructors, dot, cross, length, normalize, component-wise products.

``dot``, ``length``, ``length_sq`` and ``normalize`` also take quaternions (Warp does).
Formulas follow Warp's ``native/vec.h`` and ``quat.h`` operation by operation.
"""
from __future__ import annotations

from typing import Sequence

from ..builder import Builder
from ..mir import Op, Operand
from ..registry import register
from ..types import SUFFIX, AnyType, Scalar, VectorType, scalar_of
from .common import (FLOATS, Args, V, arity, const, elementwise, fail, fold, is_mat,
                     is_quat, is_scalar, is_vec, ops, same_type, select, vals, vector_type, zeros)

GROUP = "vector"


# --- constructors -------------------------------------------------------------------------------

def make_constructor(name: str, t: VectorType):
    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, *sorted({0, 1, t.n}))
        if len(arg_types) == 1 and is_vec(arg_types[0]):
            if arg_types[0].n != t.n:
                fail(f"cannot build {name} from {arg_types[0]}: lengths differ")
            return t
        if not all(is_scalar(a) and (a is not Scalar.BOOL or t.elem is Scalar.BOOL)
                   for a in arg_types):
            fail(f"{name}() takes {t.n} numbers, one number (repeated), a {t.n}-vector, or "
                 f"nothing; got {', '.join(map(str, arg_types))}")
        return t

    def lower(b: Builder, arg_types: Sequence[AnyType], args: Args) -> list[Operand]:
        if not args:
            return zeros(t)
        flat = [x for a in args for x in a]
        if len(flat) == 1:
            flat = flat * t.n
        return [b.cvt(x, t.elem) for x in flat]

    doc = (f"{name}(x, ...) from {t.n} {t.elem} components; {name}(s) repeats s; {name}() is "
           f"zero; {name}(v) converts another {t.n}-vector. Numbers are converted to {t.elem}.")
    register(name, infer, lower, doc, GROUP)


VECTOR_CONSTRUCTORS: dict[str, VectorType] = {}
for _elem in (Scalar.F32, Scalar.F64, Scalar.I32, Scalar.U32, Scalar.I64, Scalar.U64,
              Scalar.I8, Scalar.U8):
    for _n in (2, 3, 4):
        names = [f"vec{_n}{SUFFIX[_elem]}"] + ([f"vec{_n}"] if _elem is Scalar.F32 else [])
        for _name in names:
            VECTOR_CONSTRUCTORS[_name] = vector_type(_elem, _n)
            make_constructor(_name, vector_type(_elem, _n))


# --- dot, length, normalize ---------------------------------------------------------------------

def dot_of(b: Builder, t: AnyType, xs: Sequence[Operand], ys: Sequence[Operand]) -> Operand:
    products = elementwise(b, Op.MUL, xs, ys)
    if is_vec(t) and t.n not in (2, 3):
        # Warp's generic loop: ret = 0; ret += a[i] * b[i]
        return fold(b, Op.ADD, [const(0, scalar_of(t))] + products)
    return fold(b, Op.ADD, products)


def _float_vec_or_quat(name: str, t: AnyType) -> None:
    if not ((is_vec(t) or is_quat(t)) and t.elem in FLOATS):
        fail(f"{name}() takes a float vector or quaternion, not {t}")


def dot_infer(arg_types):
    arity("dot", arg_types, 2)
    a, c = arg_types
    if not (is_vec(a) or is_quat(a)) or not same_type(a, c):
        fail(f"dot() takes two vectors (or quaternions) of one type, got {a} and {c}")
    return a.elem


def dot_lower(b, arg_types, args):
    return [dot_of(b, arg_types[0], args[0], args[1])]


def length_sq_infer(arg_types):
    arity("length_sq", arg_types, 1)
    t = arg_types[0]
    if not (is_vec(t) or is_quat(t)):
        fail(f"length_sq() takes a vector or quaternion, not {t}")
    return t.elem


def length_sq_lower(b, arg_types, args):
    return [dot_of(b, arg_types[0], args[0], args[0])]


def length_infer(arg_types):
    arity("length", arg_types, 1)
    _float_vec_or_quat("length", arg_types[0])
    return arg_types[0].elem


def length_lower(b, arg_types, args):
    return [b.unary(Op.SQRT, dot_of(b, arg_types[0], args[0], args[0]))]


def normalize_infer(arg_types):
    arity("normalize", arg_types, 1)
    _float_vec_or_quat("normalize", arg_types[0])
    return arg_types[0]


def normalize_lower(b, arg_types, args):
    t = arg_types[0]
    xs = vals(b, args[0])
    length = V(b, length_lower(b, arg_types, args)[0])
    ok = length.cmp(Op.GT, 0.0)
    zero = const(0, t.elem)
    if is_quat(t):
        # Warp: multiply by 1/l; a zero quaternion normalizes to the identity (0, 0, 0, 1)
        inv = 1.0 / length
        fallback = [zero, zero, zero, const(1, t.elem)]
        return ops([select(ok, x * inv, f) for x, f in zip(xs, fallback)])
    return ops([select(ok, x / length, zero) for x in xs])


register("dot", dot_infer, dot_lower, "dot(a, b): sum of a[i] * b[i] (vectors or quaternions).", GROUP)
register("length_sq", length_sq_infer, length_sq_lower, "length_sq(v): dot(v, v).", GROUP)
register("length", length_infer, length_lower, "length(v): sqrt(dot(v, v)) of a float vector or "
         "quaternion.", GROUP)
register("normalize", normalize_infer, normalize_lower,
         "normalize(v): v / length(v); as in Warp, a zero-length vector gives the zero vector "
         "and a zero quaternion gives the identity quaternion.", GROUP)


# --- cross, component-wise ---------------------------------------------------------------------

def cross_infer(arg_types):
    arity("cross", arg_types, 2)
    a, c = arg_types
    if not (is_vec(a) and a.n == 3 and same_type(a, c)):
        fail(f"cross() takes two 3-vectors of one type, got {a} and {c}")
    return a


def cross_lower(b, arg_types, args):
    a0, a1, a2 = vals(b, args[0])
    b0, b1, b2 = vals(b, args[1])
    return ops([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


register("cross", cross_infer, cross_lower, "cross(a, b): the cross product of two 3-vectors.", GROUP)


def make_cw(name: str, op: Op, what: str):
    def infer(arg_types):
        arity(name, arg_types, 2)
        a, c = arg_types
        if not ((is_vec(a) or is_mat(a)) and same_type(a, c)):
            fail(f"{name}() takes two vectors or two matrices of one type, got {a} and {c}")
        return a

    def lower(b, arg_types, args):
        return elementwise(b, op, args[0], args[1])

    register(name, infer, lower, f"{name}(a, b): component-wise {what} of two vectors or matrices.",
             GROUP)


make_cw("cw_mul", Op.MUL, "product")
make_cw("cw_div", Op.DIV, "quotient")
