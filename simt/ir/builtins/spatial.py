"""Transforms (translation p, rotation q) and spatial vectors/matrices, after Warp 1.19's
``native/spatial.h``, operation by operation.

A transform is 7 scalars: p (x, y, z) then q (x, y, z, w). A spatial vector is a 6-vector
whose top 3 components are the angular part w and bottom 3 the linear part v.
"""
from __future__ import annotations

from typing import Sequence

from ..builder import Builder
from ..mir import Operand
from ..registry import StaticArg, register
from ..types import AnyType, Scalar, TransformType, VectorType
from .common import (FLOATS, Args, V, arity, const, fail, is_mat, is_quat, is_scalar, is_vec,
                     matrix_type, ops, quat_type, transform_type, vals, vector_type, zeros)
from .quat import hamilton, rotate

GROUP = "transformation"


def is_transform(t: AnyType) -> bool:
    return isinstance(t, TransformType)


def static_dtype(name: str, args: Sequence[AnyType], default: Scalar = Scalar.F32) -> tuple[list, Scalar]:
    """The value arguments and the ``dtype=`` keyword (a float type) of a call."""
    values, dtype = [], None
    for a in args:
        if isinstance(a, StaticArg):
            if a.name != "dtype" or not (isinstance(a.value, Scalar) and a.value in FLOATS):
                fail(f"{name}() takes dtype=<float type>, not {a}")
            dtype = a.value
        else:
            values.append(a)
    return values, dtype or default


def cross3(a: list[V], b: list[V]) -> list[V]:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


# --- constructors ----------------------------------------------------------------------------

def make_transform_constructor(name: str, fixed: Scalar | None):
    def infer(arg_types):
        values, dtype = static_dtype(name, arg_types, fixed or Scalar.F32)
        n = len(values)
        if n == 0:
            return transform_type(dtype if fixed is None else fixed)
        if n == 1 and is_transform(values[0]):
            return transform_type(fixed or values[0].elem)
        if n == 1 and is_scalar(values[0]) and values[0] is not Scalar.BOOL:
            return transform_type(fixed or dtype)          # every component s
        if n == 2 and is_vec(values[0]) and values[0].n == 3 and is_quat(values[1]):
            elem = fixed or (dtype if any(isinstance(a, StaticArg) for a in arg_types) else values[0].elem)
            return transform_type(elem)
        if n == 7 and all(is_scalar(a) and a is not Scalar.BOOL for a in values):
            return transform_type(fixed or dtype)
        fail(f"{name}() takes (p: vec3, q: quat), 7 numbers, a transform, or nothing; got "
             f"{', '.join(map(str, arg_types))}")
        raise AssertionError

    def lower(b: Builder, arg_types, args: Args) -> list[Operand]:
        t = infer(arg_types)
        flat = [x for a in args for x in a]
        if not flat:
            return zeros(t)
        if len(flat) == 1:
            flat = flat * 7
        return [b.cvt(x, t.elem) for x in flat]

    register(name, infer, lower,
             f"{name}(p, q) from a translation vec3 and a rotation quat (or 7 numbers); "
             f"{name}() is all zeros (use transform_identity() for no motion).", GROUP)


for _elem, _suffixes in ((Scalar.F32, ("transform", "transformf")), (Scalar.F64, ("transformd",)),
                         (Scalar.F16, ("transformh",))):
    for _name in _suffixes:
        make_transform_constructor(_name, _elem)


def identity_infer(arg_types):
    values, dtype = static_dtype("transform_identity", arg_types)
    if values:
        fail("transform_identity() takes only dtype=")
    return transform_type(dtype)


def identity_lower(b, arg_types, args):
    t = identity_infer(arg_types)
    return [const(0, t.elem)] * 6 + [const(1, t.elem)]


register("transform_identity", identity_infer, identity_lower,
         "transform_identity(dtype=float32): translation zero, rotation identity.", GROUP)


# --- accessors --------------------------------------------------------------------------------

def _want_transform(name: str, t) -> TransformType:
    if not is_transform(t):
        fail(f"{name}() takes a transform, not {t}")
    return t


def getter(name: str, part: str):
    def infer(arg_types):
        arity(name, arg_types, 1)
        t = _want_transform(name, arg_types[0])
        return vector_type(t.elem, 3) if part == "p" else quat_type(t.elem)

    def lower(b, arg_types, args):
        return list(args[0][:3] if part == "p" else args[0][3:])

    what = "translation p" if part == "p" else "rotation q"
    register(name, infer, lower, f"{name}(t): the {what} of a transform.", GROUP)


getter("transform_get_translation", "p")
getter("transform_get_rotation", "q")


def setter(name: str, part: str):
    def infer(arg_types):
        arity(name, arg_types, 2)
        t = _want_transform(name, arg_types[0])
        want = vector_type(t.elem, 3) if part == "p" else quat_type(t.elem)
        if arg_types[1] != want:
            fail(f"{name}() takes a {want}, not {arg_types[1]}")
        from ..types import VOID
        return VOID

    def lower(b, arg_types, args):
        t, value = list(args[0]), list(args[1])
        return (value + t[3:]) if part == "p" else (t[:3] + value)

    register(name, infer, lower, f"{name}(t, value): set the {'translation' if part == 'p' else 'rotation'} "
             f"of the transform variable t.", GROUP, inout=(0,))


setter("transform_set_translation", "p")
setter("transform_set_rotation", "q")


# --- products -----------------------------------------------------------------------------------

def multiply(b: Builder, x: Sequence[Operand], y: Sequence[Operand]) -> list[Operand]:
    """{ quat_rotate(a.q, b.p) + a.p, a.q * b.q }"""
    aq, bp = vals(b, x[3:]), vals(b, y[:3])
    p = [r + ap for r, ap in zip(rotate(aq, bp), vals(b, x[:3]))]
    return ops(p) + hamilton(b, x[3:], y[3:])


def two_transforms(name: str):
    def infer(arg_types):
        arity(name, arg_types, 2)
        a, c = arg_types
        if not (is_transform(a) and a == c):
            fail(f"{name}() takes two transforms of one type, got {a} and {c}")
        return a
    return infer


register("transform_multiply", two_transforms("transform_multiply"),
         lambda b, t, args: multiply(b, args[0], args[1]),
         "transform_multiply(a, b): the transform applying b then a.", GROUP)


def inverse_infer(arg_types):
    arity("transform_inverse", arg_types, 1)
    return _want_transform("transform_inverse", arg_types[0])


def inverse_lower(b, arg_types, args):
    x, y, z, w = vals(b, args[0][3:])
    q_inv = [-x, -y, -z, w]
    p = [-c for c in rotate(q_inv, vals(b, args[0][:3]))]
    return ops(p + q_inv)


register("transform_inverse", inverse_infer, inverse_lower,
         "transform_inverse(t): the inverse rigid transform.", GROUP)


def make_apply(name: str, with_translation: bool):
    def infer(arg_types):
        arity(name, arg_types, 2)
        t, v = arg_types
        if is_mat(t) and (t.rows, t.cols) == (4, 4) and is_vec(v) and v.n == 3 and v.elem is t.elem:
            return v
        _want_transform(name, t)
        if v != vector_type(t.elem, 3):
            fail(f"{name}() takes a transform and a {vector_type(t.elem, 3)}, got {t} and {v}")
        return v

    def lower(b, arg_types, args):
        t = arg_types[0]
        v = vals(b, args[1])
        if is_mat(t):                    # 4x4 matrix: m * (v, 1) or m * (v, 0), first 3 rows
            m = vals(b, args[0])
            out = []
            for i in range(3):
                acc = m[i * 4] * v[0] + m[i * 4 + 1] * v[1] + m[i * 4 + 2] * v[2]
                out.append(acc + m[i * 4 + 3] if with_translation else acc)
            return ops(out)
        r = rotate(vals(b, args[0][3:]), v)
        if with_translation:
            r = [p + c for p, c in zip(vals(b, args[0][:3]), r)]
        return ops(r)

    what = "point (rotated, then translated)" if with_translation else "vector (rotated only)"
    register(name, infer, lower, f"{name}(t, v): v as a {what}; t may be a transform or a 4x4 "
             f"matrix.", GROUP)


make_apply("transform_point", True)
make_apply("transform_vector", False)


# --- spatial vectors ------------------------------------------------------------------------------

SPATIAL = "spatial"


def _want_spatial(name: str, t) -> VectorType:
    if not (is_vec(t) and t.n == 6 and t.elem in FLOATS):
        fail(f"{name}() takes a spatial vector (6 floats), not {t}")
    return t


def spatial_vector_infer(arg_types):
    values, dtype = static_dtype("spatial_vector", arg_types)
    explicit = any(isinstance(a, StaticArg) for a in arg_types)
    if not values:
        return vector_type(dtype, 6)
    if len(values) == 2 and all(is_vec(v) and v.n == 3 for v in values) and values[0] == values[1]:
        return vector_type(dtype if explicit else values[0].elem, 6)
    if len(values) == 6 and all(is_scalar(v) and v is not Scalar.BOOL for v in values):
        return vector_type(dtype, 6)
    if len(values) == 1 and is_vec(values[0]) and values[0].n == 6:
        return vector_type(dtype if explicit else values[0].elem, 6)
    fail(f"spatial_vector() takes (w: vec3, v: vec3), 6 numbers, or nothing; got "
         f"{', '.join(map(str, arg_types))}")
    raise AssertionError


def spatial_vector_lower(b, arg_types, args):
    t = spatial_vector_infer(arg_types)
    flat = [x for a in args for x in a]
    return [b.cvt(x, t.elem) for x in flat] if flat else zeros(t)


for _name in ("spatial_vector",):
    register(_name, spatial_vector_infer, spatial_vector_lower,
             "spatial_vector(w, v): the 6-vector (angular w, linear v); or from 6 numbers.", SPATIAL)


def half(name: str, top: bool):
    def infer(arg_types):
        arity(name, arg_types, 1)
        return vector_type(_want_spatial(name, arg_types[0]).elem, 3)

    register(name, infer, lambda b, t, args: list(args[0][:3] if top else args[0][3:]),
             f"{name}(a): the {'angular (top)' if top else 'linear (bottom)'} 3 components of a "
             f"spatial vector.", SPATIAL)


half("spatial_top", True)
half("spatial_bottom", False)


def two_spatial(name: str):
    def infer(arg_types):
        arity(name, arg_types, 2)
        a, c = arg_types
        _want_spatial(name, a)
        if a != c:
            fail(f"{name}() takes two spatial vectors of one type, got {a} and {c}")
        return a
    return infer


def spatial_cross_lower(dual: bool):
    def lower(b, arg_types, args):
        a, c = vals(b, args[0]), vals(b, args[1])
        aw, av, cw, cv = a[:3], a[3:], c[:3], c[3:]
        if dual:
            w = [x + y for x, y in zip(cross3(aw, cw), cross3(av, cv))]
            v = cross3(aw, cv)
        else:
            w = cross3(aw, cw)
            v = [x + y for x, y in zip(cross3(av, cw), cross3(aw, cv))]
        return ops(w + v)
    return lower


register("spatial_cross", two_spatial("spatial_cross"), spatial_cross_lower(False),
         "spatial_cross(a, b): the spatial (motion) cross product.", SPATIAL)
register("spatial_cross_dual", two_spatial("spatial_cross_dual"), spatial_cross_lower(True),
         "spatial_cross_dual(a, b): the dual (force) spatial cross product.", SPATIAL)


def spatial_dot_infer(arg_types):
    return two_spatial("spatial_dot")(arg_types).elem


def spatial_dot_lower(b, arg_types, args):
    from .vector import dot_of
    return [dot_of(b, arg_types[0], args[0], args[1])]


register("spatial_dot", spatial_dot_infer, spatial_dot_lower,
         "spatial_dot(a, b): the dot product of two spatial vectors.", SPATIAL)


def adjoint_infer(arg_types):
    arity("spatial_adjoint", arg_types, 2)
    r, s = arg_types
    if not (is_mat(r) and (r.rows, r.cols) == (3, 3) and r == s):
        fail(f"spatial_adjoint() takes two 3x3 matrices of one type, got {r} and {s}")
    return matrix_type(r.elem, 6, 6)


def adjoint_lower(b, arg_types, args):
    """[[R, 0], [S, R]] as a 6x6 matrix (Warp's spatial_adjoint)."""
    r, s = list(args[0]), list(args[1])
    zero = zeros(arg_types[0].elem)[0]
    out = []
    for i in range(6):
        for j in range(6):
            if i < 3:
                out.append(r[i * 3 + j] if j < 3 else zero)
            else:
                out.append(s[(i - 3) * 3 + j] if j < 3 else r[(i - 3) * 3 + j - 3])
    return out


register("spatial_adjoint", adjoint_infer, adjoint_lower,
         "spatial_adjoint(R, S): the 6x6 matrix [[R, 0], [S, R]].", SPATIAL)
