"""Scalar math with Warp 1.19's names, types and edge cases.

Transcendentals take float32/float64 only (``sqrt(2)`` with an int is an error, as in
Warp). ``min``/``max``/``abs``/``sign`` also take integers and work per component on
vectors; ``min(v)``/``max(v)`` reduce a vector. Float ``min``/``max`` ignore a NaN
operand (C's fminf/fmaxf, PTX min.f32), which is how the MIN/MAX ops are defined.
"""
from __future__ import annotations

import math
from typing import Sequence

from ..builder import Builder
from ..mir import Op, Operand
from ..registry import lookup, register
from ..types import AnyType, Scalar, scalar_of
from .common import (FLOATS, Args, V, arity, const, elementwise, fail, fold, is_composite,
                     is_mat, is_quat, is_scalar, is_vec, mismatch, ops, same_type, truthy,
                     vals, want_float_scalar, want_same)

GROUP = "math"

UNARY_FLOAT = {
    "sqrt": (Op.SQRT, "square root"),
    "sin": (Op.SIN, "sine (radians)"), "cos": (Op.COS, "cosine (radians)"),
    "tan": (Op.TAN, "tangent (radians)"), "atan": (Op.ATAN, "arc tangent"),
    "sinh": (Op.SINH, "hyperbolic sine"), "cosh": (Op.COSH, "hyperbolic cosine"),
    "tanh": (Op.TANH, "hyperbolic tangent"),
    "exp": (Op.EXP, "e**x"), "log": (Op.LOG, "natural logarithm"),
    "log2": (Op.LOG2, "base-2 logarithm"), "log10": (Op.LOG10, "base-10 logarithm"),
    "floor": (Op.FLOOR, "largest integer value <= x"),
    "ceil": (Op.CEIL, "smallest integer value >= x"),
    "round": (Op.ROUND, "nearest integer value, halfway cases away from zero (C round(): "
                        "round(-2.5) == -3.0, unlike Python's round)"),
    "trunc": (Op.TRUNC, "integer part, rounding toward zero"),
    "rint": (Op.RINT, "nearest integer value, halfway cases to even (numpy.rint)"),
    "cbrt": (Op.CBRT, "cube root"),
    "erf": (Op.ERF, "the error function"),
    "erfc": (Op.ERFC, "the complementary error function, 1 - erf(x)"),
    "erfinv": (Op.ERFINV, "the inverse error function, on [-1, 1]"),
    "erfcinv": (Op.ERFCINV, "the inverse complementary error function, on [0, 2] (computed "
                            "as erfinv(1 - x), as Warp does)"),
}


def make_unary_float(name: str, op: Op, what: str):
    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, 1)
        return want_float_scalar(name, arg_types[0])

    def lower(b: Builder, arg_types, args: Args) -> list[Operand]:
        return [b.unary(op, args[0][0])]

    register(name, infer, lower, f"{name}(x): {what}. Takes float32 or float64.", GROUP)


for _name, (_op, _what) in UNARY_FLOAT.items():
    make_unary_float(_name, _op, _what)


def float_unary_infer(name: str):
    def infer(arg_types):
        arity(name, arg_types, 1)
        return want_float_scalar(name, arg_types[0])
    return infer


def clamped_inverse_trig(op: Op):
    """Warp clamps the argument of asin/acos to [-1, 1] first, so rounding error near
    +-1 does not make NaN."""
    def lower(b, arg_types, args):
        x = V(b, args[0][0])
        inside = V(b, b.binary(Op.MIN, b.binary(Op.MAX, x.x, const(-1, x.type)), const(1, x.type)))
        return [inside.apply(op).x]
    return lower


register("asin", float_unary_infer("asin"), clamped_inverse_trig(Op.ASIN),
         "asin(x): arc sine; x is clamped to [-1, 1] first, as in Warp.", GROUP)
register("acos", float_unary_infer("acos"), clamped_inverse_trig(Op.ACOS),
         "acos(x): arc cosine; x is clamped to [-1, 1] first, as in Warp.", GROUP)


def frac_lower(b, arg_types, args):
    x = V(b, args[0][0])
    return [(x - x.apply(Op.TRUNC)).x]


register("frac", float_unary_infer("frac"), frac_lower, "frac(x): x - trunc(x).", GROUP)


def angle_lower(factor: float):
    """x * constant with the constant in double precision, as Warp's C code computes it."""
    def lower(b, arg_types, args):
        x = V(b, args[0][0])
        return [(x.to(Scalar.F64) * factor).to(x.type).x]
    return lower


register("degrees", float_unary_infer("degrees"), angle_lower(180.0 / math.pi),
         "degrees(x): radians to degrees.", GROUP)
register("radians", float_unary_infer("radians"), angle_lower(math.pi / 180.0),
         "radians(x): degrees to radians.", GROUP)


# --- two floats ---------------------------------------------------------------------------------

def make_binary_float(name: str, op: Op, doc: str):
    def infer(arg_types):
        arity(name, arg_types, 2)
        a, c = arg_types
        want_float_scalar(name, a)
        want_float_scalar(name, c)
        want_same(name, a, c)
        return a

    def lower(b, arg_types, args):
        return [b.binary(op, args[0][0], args[1][0])]

    register(name, infer, lower, doc, GROUP)


make_binary_float("pow", Op.POW, "pow(x, y): x raised to the power y (floats).")
make_binary_float("copysign", Op.COPYSIGN,
                  "copysign(x, y): the magnitude of x with the sign of y (its sign bit: "
                  "copysign(1.0, -0.0) == -1.0).")
make_binary_float("atan2", Op.ATAN2, "atan2(y, x): the angle of the point (x, y), in (-pi, pi].")


# --- min, max, abs, sign, step, clamp ---------------------------------------------------------------

def _numeric(name: str, t: AnyType, composites: bool = True) -> None:
    if scalar_of(t) is Scalar.BOOL:
        fail(f"{name}() does not take bool")
    if is_composite(t) and not (composites and (is_vec(t) or is_mat(t))):
        fail(f"{name}() takes numbers{' or vectors' if composites else ''}, not {t}")


def make_minmax(name: str, op: Op):
    def infer(arg_types):
        arity(name, arg_types, 1, 2)
        if len(arg_types) == 1:
            (v,) = arg_types
            if not is_vec(v) or v.elem is Scalar.BOOL:
                fail(f"{name}(v) with one argument takes a vector, not {v}")
            return v.elem
        a, c = arg_types
        _numeric(name, a)
        want_same(name, a, c)
        return a

    def lower(b, arg_types, args):
        if len(args) == 1:
            return [fold(b, op, args[0])]
        return elementwise(b, op, args[0], args[1])

    register(name, infer, lower,
             f"{name}(a, b): the {'smaller' if op is Op.MIN else 'larger'} of two numbers, or "
             f"per component of two vectors; {name}(v): the "
             f"{'smallest' if op is Op.MIN else 'largest'} component of v. Floats ignore a NaN "
             f"operand (fminf/fmaxf).", GROUP)


make_minmax("min", Op.MIN)
make_minmax("max", Op.MAX)


def same_as_arg(name: str):
    def infer(arg_types):
        arity(name, arg_types, 1)
        _numeric(name, arg_types[0])
        return arg_types[0]
    return infer


def abs_lower(b, arg_types, args):
    elem = scalar_of(arg_types[0])
    if not elem.is_signed:
        return list(args[0])
    return [b.unary(Op.ABS, x) for x in args[0]]


def sign_lower(b, arg_types, args):
    elem = scalar_of(arg_types[0])
    one = const(1, elem)
    if not elem.is_signed:
        return [one] * len(args[0])
    minus_one = const(-1, elem)
    return [b.select(b.compare(Op.LT, x, const(0, elem)), minus_one, one) for x in args[0]]


def step_lower(b, arg_types, args):
    elem = scalar_of(arg_types[0])
    if not elem.is_signed:
        return [const(0, elem)] * len(args[0])
    return [b.select(b.compare(Op.LT, x, const(0, elem)), const(1, elem), const(0, elem))
            for x in args[0]]


register("abs", same_as_arg("abs"), abs_lower,
         "abs(x): absolute value (per component on vectors); unsigned values are returned as is.",
         GROUP)
register("sign", same_as_arg("sign"), sign_lower,
         "sign(x): -1 if x < 0 else 1 (so sign(0) == 1 and sign(nan) == 1, as in Warp); per "
         "component on vectors.", GROUP)


def step_infer(arg_types):
    arity("step", arg_types, 1)
    _numeric("step", arg_types[0], composites=False)
    return arg_types[0]


register("step", step_infer, step_lower,
         "step(x): 1 if x < 0 else 0 (Warp's definition, the reverse of GLSL's step).", GROUP)


def clamp_infer(arg_types):
    arity("clamp", arg_types, 3)
    x, lo, hi = arg_types
    _numeric("clamp", x, composites=False)
    want_same("clamp", x, lo)
    want_same("clamp", x, hi)
    return x


def clamp_lower(b, arg_types, args):
    x, lo, hi = (a[0] for a in args)
    return [b.binary(Op.MIN, b.binary(Op.MAX, lo, x), hi)]


register("clamp", clamp_infer, clamp_lower,
         "clamp(x, a, b): min(max(a, x), b) on numbers of one type.", GROUP)


# --- lerp, smoothstep ------------------------------------------------------------------------------

def lerp_infer(arg_types):
    arity("lerp", arg_types, 3)
    a, c, t = arg_types
    want_same("lerp", a, c)
    if scalar_of(a) not in FLOATS:
        fail(f"lerp() takes float values, not {a}")
    if t is not scalar_of(a):
        fail(f"lerp() weight t must be {scalar_of(a)}, not {t}")
    return a


def lerp_lower(b, arg_types, args):
    (t,) = vals(b, args[2])
    keep = 1.0 - t
    return ops([x * keep + y * t for x, y in zip(vals(b, args[0]), vals(b, args[1]))])


register("lerp", lerp_infer, lerp_lower,
         "lerp(a, b, t): a * (1 - t) + b * t, on floats, vectors, matrices or quaternions.", GROUP)


def smoothstep_infer(arg_types):
    arity("smoothstep", arg_types, 3)
    t = want_float_scalar("smoothstep", arg_types[0])
    for other in arg_types[1:]:
        want_same("smoothstep", t, other)
    return t


def smoothstep_lower(b, arg_types, args):
    e0, e1, x = (V(b, a[0]) for a in args)
    u = (x - e0) / (e1 - e0)
    u = V(b, b.binary(Op.MIN, b.binary(Op.MAX, u.x, const(0, u.type)), const(1, u.type)))
    return [(u * u * (3.0 - 2.0 * u)).x]


register("smoothstep", smoothstep_infer, smoothstep_lower,
         "smoothstep(edge0, edge1, x): Hermite interpolation between 0 and 1.", GROUP)


# --- classification ---------------------------------------------------------------------------------

def make_classify(name: str):
    def infer(arg_types):
        arity(name, arg_types, 1)
        t = arg_types[0]
        if is_quat(t) or scalar_of(t) is Scalar.BOOL:
            fail(f"{name}() takes numbers or vectors, not {t}")
        return Scalar.BOOL

    def lower(b, arg_types, args):
        elem = scalar_of(arg_types[0])
        if not elem.is_float:
            return [const(name == "isfinite", Scalar.BOOL)]
        if name == "isfinite":
            parts = [b.unary(Op.NOT, b.binary(Op.OR, b.unary(Op.ISNAN, x), b.unary(Op.ISINF, x)))
                     for x in args[0]]
            return [fold(b, Op.AND, parts)]
        op = Op.ISNAN if name == "isnan" else Op.ISINF
        return [fold(b, Op.OR, [b.unary(op, x) for x in args[0]])]

    what = {"isnan": "is NaN", "isinf": "is infinite",
            "isfinite": "is neither NaN nor infinite"}[name]
    quant = "all components" if name == "isfinite" else "any component"
    register(name, infer, lower, f"{name}(x): whether x {what} ({quant}, on vectors). False "
             f"for integers{' (true for isfinite)' if name == 'isfinite' else ''}.", GROUP)


for _name in ("isnan", "isinf", "isfinite"):
    make_classify(_name)


# --- where, select ------------------------------------------------------------------------------------

def where_infer(arg_types):
    arity("where", arg_types, 3)
    cond, a, c = arg_types
    if not is_scalar(cond) or cond.is_float:
        fail(f"where() condition must be a bool or an integer, not {cond}")
    if not same_type(a, c):
        if is_scalar(a) and is_scalar(c):
            fail(f"where(): {mismatch(a, c)}")
        fail(f"where() values must have the same type, got {a} and {c}")
    return a


def where_lower(b, arg_types, args):
    cond = truthy(b, args[0][0])
    return [b.select(cond, x, y) for x, y in zip(args[1], args[2])]


def select_infer(arg_types):
    arity("select", arg_types, 3)
    return where_infer(arg_types)


def select_lower(b, arg_types, args):
    cond = truthy(b, args[0][0])
    return [b.select(cond, t, f) for f, t in zip(args[1], args[2])]


register("where", where_infer, where_lower,
         "where(cond, value_if_true, value_if_false): one of two values of one type (any "
         "scalar or composite), chosen per thread without branching. An integer cond means "
         "cond != 0.", GROUP)
register("select", select_infer, select_lower,
         "select(cond, value_if_false, value_if_true): Warp's older form of where() with the "
         "values in the opposite order (removed in Warp 1.19; kept here for old kernels).", GROUP)


# --- bits, nonzero, div_approx ---------------------------------------------------------------------

def bit_count_infer(arg_types):
    arity("bit_count", arg_types, 1)
    t = arg_types[0]
    if not (is_scalar(t) and t.is_int):
        fail(f"bit_count() takes an integer, not {t}")
    return Scalar.I32


def bit_count_lower(b, arg_types, args):
    return [b.cvt(b.unary(Op.POPC, args[0][0]), Scalar.I32)]


register("bit_count", bit_count_infer, bit_count_lower,
         "bit_count(x): the number of set bits of an integer, as an int32. Signed values count "
         "their two's-complement bits (bit_count(-1) == 32 for an int32), unlike Python's "
         "int.bit_count().", GROUP)


def nonzero_infer(arg_types):
    arity("nonzero", arg_types, 1)
    t = arg_types[0]
    if not is_scalar(t) or t is Scalar.BOOL:
        fail(f"nonzero() takes a number, not {t}")
    return t


def nonzero_lower(b, arg_types, args):
    x = args[0][0]
    return [b.select(b.compare(Op.EQ, x, const(0, x.type)), const(0, x.type), const(1, x.type))]


register("nonzero", nonzero_infer, nonzero_lower,
         "nonzero(x): 1 if x != 0 else 0, in x's type (NaN counts as nonzero).", GROUP)


def div_approx_infer(arg_types):
    arity("div_approx", arg_types, 2)
    if not all(scalar_of(t) in FLOATS for t in arg_types):
        fail(f"div_approx() takes float values, not {arg_types[0]} and {arg_types[1]}")
    return lookup("div").infer(arg_types)


def div_approx_lower(b, arg_types, args):
    return lookup("div").lower(b, arg_types, args)


register("div_approx", div_approx_infer, div_approx_lower,
         "div_approx(a, b): a / b where the GPU may divide approximately; simt divides "
         "exactly on every device, as Warp does on the CPU. Floats, and vectors, matrices or "
         "quaternions with a float.", GROUP)
