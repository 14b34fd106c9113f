"""Quaternions, stored (x, y, z, w) with w the real part, as in Warp.

Formulas follow Warp's ``native/quat.h`` operation by operation so results round alike.
``length``, ``length_sq``, ``dot`` and ``normalize`` on quaternions live with the vector
functions (one builtin per name).
"""
from __future__ import annotations

from typing import Sequence

from ..builder import Builder
from ..mir import Op, Operand
from ..registry import register
from ..types import AnyType, QuatType, Scalar
from .common import (FLOATS, Args, V, arity, const, fail, is_quat, is_scalar, is_vec,
                     matrix_type, ops, quat_type, vals, vector_type, zeros)

GROUP = "quaternion"


def hamilton(b: Builder, a: Sequence[Operand], c: Sequence[Operand]) -> list[Operand]:
    """The Hamilton product a * c."""
    ax, ay, az, aw = vals(b, a)
    bx, by, bz, bw = vals(b, c)
    return ops([aw * bx + bw * ax + ay * bz - by * az,
                aw * by + bw * ay + az * bx - bz * ax,
                aw * bz + bw * az + ax * by - bx * ay,
                aw * bw - ax * bx - ay * by - az * bz])


def rotate(q: list[V], v: list[V], inverse: bool = False) -> list[V]:
    """Warp's quat_rotate / quat_rotate_inv: v*(2w^2-1) + q*2(q.v) +- cross(q, v)*w*2."""
    qx, qy, qz, qw = q
    x0, x1, x2 = v
    c = 2.0 * qw * qw - 1.0
    d = 2.0 * (qx * x0 + qy * x1 + qz * x2)
    cross = [qy * x2 - qz * x1, qz * x0 - qx * x2, qx * x1 - qy * x0]
    out = []
    for comp, qc, cr in zip(v, (qx, qy, qz), cross):
        base = comp * c + qc * d
        term = cr * qw * 2.0
        out.append(base - term if inverse else base + term)
    return out


# --- constructors -------------------------------------------------------------------------------

def make_constructor(name: str, t: QuatType):
    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, 0, 1, 2, 4)
        n = len(arg_types)
        if n == 1 and is_quat(arg_types[0]):
            return t
        if n == 2 and is_vec(arg_types[0]) and arg_types[0].n == 3 and is_scalar(arg_types[1]):
            return t
        if n in (0, 4) and all(is_scalar(a) and a is not Scalar.BOOL for a in arg_types):
            return t
        fail(f"{name}() takes (x, y, z, w), (vec3 imaginary part, w), a quaternion, or nothing; "
             f"got {', '.join(map(str, arg_types))}")
        raise AssertionError

    def lower(b: Builder, arg_types: Sequence[AnyType], args: Args) -> list[Operand]:
        if not args:
            return zeros(t)
        flat = [x for a in args for x in a]
        return [b.cvt(x, t.elem) for x in flat]

    register(name, infer, lower,
             f"{name}(x, y, z, w) with w the real part; {name}(v, w) from a vec3 and a scalar; "
             f"{name}(q) converts; {name}() is all zeros (use quat_identity() for no rotation).",
             GROUP)


make_constructor("quat", quat_type(Scalar.F32))
make_constructor("quatf", quat_type(Scalar.F32))
make_constructor("quatd", quat_type(Scalar.F64))


def identity_infer(arg_types):
    from ..registry import StaticArg
    if not arg_types:
        return quat_type(Scalar.F32)
    if len(arg_types) == 1 and isinstance(arg_types[0], StaticArg) and arg_types[0].name == "dtype" \
            and arg_types[0].value in FLOATS:
        return quat_type(arg_types[0].value)
    fail("quat_identity() takes only dtype= (a float type)")
    raise AssertionError


def identity_lower(b, arg_types, args):
    elem = identity_infer(arg_types).elem
    return [const(0, elem)] * 3 + [const(1, elem)]


register("quat_identity", identity_infer, identity_lower,
         "quat_identity(): the rotation by nothing, (0, 0, 0, 1).", GROUP)


# --- functions --------------------------------------------------------------------------------

def _want_quat(name: str, t: AnyType) -> QuatType:
    if not is_quat(t) or t.elem not in FLOATS:
        fail(f"{name}() takes a quaternion, not {t}")
    return t


def _want_vec3(name: str, t: AnyType, elem: Scalar) -> None:
    if not (is_vec(t) and t.n == 3 and t.elem is elem):
        fail(f"{name}() takes a {vector_type(elem, 3)} here, not {t}")


def axis_angle_infer(arg_types):
    arity("quat_from_axis_angle", arg_types, 2)
    axis, angle = arg_types
    if not (is_vec(axis) and axis.n == 3 and axis.elem in FLOATS):
        fail(f"quat_from_axis_angle() takes a float 3-vector axis, not {axis}")
    if angle is not axis.elem:
        fail(f"quat_from_axis_angle() angle must be {axis.elem}, not {angle}")
    return quat_type(axis.elem)


def axis_angle_lower(b, arg_types, args):
    axis = vals(b, args[0])
    (angle,) = vals(b, args[1])
    half = angle * 0.5
    w = half.apply(Op.COS)
    s = half.apply(Op.SIN)
    return ops([a * s for a in axis] + [w])


def rotate_infer(name: str):
    def infer(arg_types):
        arity(name, arg_types, 2)
        q = _want_quat(name, arg_types[0])
        _want_vec3(name, arg_types[1], q.elem)
        return vector_type(q.elem, 3)
    return infer


def rotate_lower(inverse: bool):
    def lower(b, arg_types, args):
        return ops(rotate(vals(b, args[0]), vals(b, args[1]), inverse))
    return lower


def inverse_infer(arg_types):
    arity("quat_inverse", arg_types, 1)
    return _want_quat("quat_inverse", arg_types[0])


def inverse_lower(b, arg_types, args):
    x, y, z, w = vals(b, args[0])
    return ops([-x, -y, -z, w])


def to_matrix_infer(arg_types):
    arity("quat_to_matrix", arg_types, 1)
    q = _want_quat("quat_to_matrix", arg_types[0])
    return matrix_type(q.elem, 3, 3)


def to_matrix_lower(b, arg_types, args):
    """Warp rotates the three unit vectors and uses them as columns."""
    q = vals(b, args[0])
    elem = arg_types[0].elem
    cols = []
    for k in range(3):
        unit = [V(b, const(1.0 if i == k else 0.0, elem)) for i in range(3)]
        cols.append(ops(rotate(q, unit)))
    return [cols[j][i] for i in range(3) for j in range(3)]


def rpy_infer(arg_types):
    arity("quat_rpy", arg_types, 3)
    t = arg_types[0]
    if not (is_scalar(t) and t.is_float) or any(a is not t for a in arg_types):
        fail(f"quat_rpy(roll, pitch, yaw) takes three floats of one type, got "
             f"{', '.join(map(str, arg_types))}")
    return quat_type(t)


def rpy_lower(b, arg_types, args):
    roll, pitch, yaw = (v[0] for v in (vals(b, a) for a in args))
    cy, sy = (yaw * 0.5).apply(Op.COS), (yaw * 0.5).apply(Op.SIN)
    cr, sr = (roll * 0.5).apply(Op.COS), (roll * 0.5).apply(Op.SIN)
    cp, sp = (pitch * 0.5).apply(Op.COS), (pitch * 0.5).apply(Op.SIN)
    w = cy * cr * cp + sy * sr * sp
    x = cy * sr * cp - sy * cr * sp
    y = cy * cr * sp + sy * sr * cp
    z = sy * cr * cp - cy * sr * sp
    return ops([x, y, z, w])


register("quat_from_axis_angle", axis_angle_infer, axis_angle_lower,
         "quat_from_axis_angle(axis, angle): rotation by angle radians about a unit axis.", GROUP)
register("quat_rotate", rotate_infer("quat_rotate"), rotate_lower(False),
         "quat_rotate(q, v): v rotated by the unit quaternion q.", GROUP)
register("quat_rotate_inv", rotate_infer("quat_rotate_inv"), rotate_lower(True),
         "quat_rotate_inv(q, v): v rotated by the inverse of the unit quaternion q.", GROUP)
register("quat_inverse", inverse_infer, inverse_lower,
         "quat_inverse(q): the conjugate (-x, -y, -z, w), the inverse of a unit quaternion.", GROUP)
register("quat_to_matrix", to_matrix_infer, to_matrix_lower,
         "quat_to_matrix(q): the 3x3 rotation matrix of a unit quaternion.", GROUP)
register("quat_rpy", rpy_infer, rpy_lower,
         "quat_rpy(roll, pitch, yaw): rotation from Euler angles in radians.", GROUP)
