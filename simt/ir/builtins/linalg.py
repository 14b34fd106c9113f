"""More of Warp 1.19's vector, matrix and quaternion builtins: argmin/argmax, ddot, identity,
quat_from_matrix, quat_to_axis_angle, quat_slerp, inverse_approx and the ``float``/``int``
cast spellings (nonzero and div_approx are in scalar_math.py). Formulas follow Warp's
``native/vec.h``, ``mat.h`` and ``quat.h`` operation by operation; branches there are
selects here (every side is computed, which cannot trap on floats)."""
from __future__ import annotations

from ..mir import Op
from ..registry import StaticArg, lookup, register
from ..types import Scalar
from .common import (FLOATS, V, arity, const, fail, is_mat, is_quat, is_vec,
                     matrix_type, ops, quat_type, select, vals, vector_type)
from .quat import hamilton
from .vector import dot_of


# --- argmin, argmax ---------------------------------------------------------------------------

def make_arg_extreme(name: str, cmp: Op):
    def infer(arg_types):
        arity(name, arg_types, 1)
        v = arg_types[0]
        if not is_vec(v) or v.elem is Scalar.BOOL:
            fail(f"{name}() takes a vector, not {v}")
        return Scalar.U32

    def lower(b, arg_types, args):
        """The first index of the smallest (largest) component, as Warp's loop finds it."""
        xs = args[0]
        best, index = xs[0], const(0, Scalar.U32)
        for k in range(1, len(xs)):
            better = b.compare(cmp, xs[k], best)
            best = b.select(better, xs[k], best)
            index = b.select(better, const(k, Scalar.U32), index)
        return [index]

    register(name, infer, lower, f"{name}(v): the index (uint32) of the "
             f"{'smallest' if cmp is Op.LT else 'largest'} component, the first one on ties.",
             "vector")


make_arg_extreme("argmin", Op.LT)
make_arg_extreme("argmax", Op.GT)


# --- ddot, identity ---------------------------------------------------------------------------

def ddot_infer(arg_types):
    arity("ddot", arg_types, 2)
    a, c = arg_types
    if not (is_mat(a) and a == c):
        fail(f"ddot() takes two matrices of one type, got {a} and {c}")
    return a.elem


def ddot_lower(b, arg_types, args):
    """sum over rows of dot(a[i], b[i]), row by row."""
    t = arg_types[0]
    acc = None
    for i in range(t.rows):
        row = slice(i * t.cols, (i + 1) * t.cols)
        d = dot_of(b, vector_type(t.elem, t.cols), args[0][row], args[1][row])
        acc = d if acc is None else b.binary(Op.ADD, acc, d)
    return [acc]


register("ddot", ddot_infer, ddot_lower, "ddot(a, b): the double dot product, sum of a[i][j] b[i][j].",
         "matrix")


def identity_infer(arg_types):
    if len(arg_types) == 2 and all(isinstance(a, StaticArg) for a in arg_types):
        named = {a.name: a.value for a in arg_types}
        n, dtype = named.get("n"), named.get("dtype")
        if isinstance(n, int) and isinstance(dtype, Scalar):
            return matrix_type(dtype, n, n)
    fail("identity(n=..., dtype=...) takes a constant size and a scalar type as keywords")
    raise AssertionError


def identity_lower(b, arg_types, args):
    t = identity_infer(arg_types)
    return [const(1 if i == j else 0, t.elem) for i in range(t.rows) for j in range(t.cols)]


register("identity", identity_infer, identity_lower,
         "identity(n=N, dtype=T): the N x N identity matrix.", "matrix")


# --- quaternions ------------------------------------------------------------------------------

def from_matrix_infer(arg_types):
    arity("quat_from_matrix", arg_types, 1)
    m = arg_types[0]
    if not (is_mat(m) and (m.rows, m.cols) in ((3, 3), (4, 4)) and m.elem in FLOATS):
        fail(f"quat_from_matrix() takes a 3x3 or 4x4 float matrix, not {m}")
    return quat_type(m.elem)


def from_matrix_lower(b, arg_types, args):
    m = arg_types[0]
    x = vals(b, args[0])

    def e(i, j):
        return x[i * m.cols + j]
    T = m.elem
    tr = e(0, 0) + e(1, 1) + e(2, 2)
    # tr >= 0
    h = (tr + 1.0).apply(Op.SQRT)
    w0 = 0.5 * h
    h0 = V(b, const(0.5, T)) / h
    q0 = [(e(2, 1) - e(1, 2)) * h0, (e(0, 2) - e(2, 0)) * h0, (e(1, 0) - e(0, 1)) * h0, w0]
    # largest diagonal element otherwise (Warp's max_diag, ties to the first)
    d1 = e(1, 1).cmp(Op.GT, e(0, 0))
    diag = select(d1, e(1, 1), e(0, 0))
    d2 = e(2, 2).cmp(Op.GT, diag)
    h = ((e(0, 0) - (e(1, 1) + e(2, 2))) + 1.0).apply(Op.SQRT)
    hx = V(b, const(0.5, T)) / h
    qa = [0.5 * h, (e(0, 1) + e(1, 0)) * hx, (e(2, 0) + e(0, 2)) * hx, (e(2, 1) - e(1, 2)) * hx]
    h = ((e(1, 1) - (e(2, 2) + e(0, 0))) + 1.0).apply(Op.SQRT)
    hy = V(b, const(0.5, T)) / h
    qb = [(e(0, 1) + e(1, 0)) * hy, 0.5 * h, (e(1, 2) + e(2, 1)) * hy, (e(0, 2) - e(2, 0)) * hy]
    h = ((e(2, 2) - (e(0, 0) + e(1, 1))) + 1.0).apply(Op.SQRT)
    hz = V(b, const(0.5, T)) / h
    qc = [(e(2, 0) + e(0, 2)) * hz, (e(1, 2) + e(2, 1)) * hz, 0.5 * h, (e(1, 0) - e(0, 1)) * hz]
    positive = tr.cmp(Op.GE, 0.0)
    q = []
    for k in range(4):
        other = select(d2, qc[k], select(d1, qb[k], qa[k]))
        q.append(select(positive, q0[k], other))
    return normalize_quat(b, q)


def normalize_quat(b, q: list[V]) -> list:
    normalize = lookup("normalize")
    t = quat_type(q[0].type)
    return normalize.lower(b, [t], [ops(q)])


register("quat_from_matrix", from_matrix_infer, from_matrix_lower,
         "quat_from_matrix(m): the rotation of a 3x3 (or the upper 3x3 of a 4x4) rotation matrix.",
         "quaternion")


def axis_angle_parts(b, q: list[V]) -> tuple[list[V], V]:
    """Warp's quat_to_axis_angle: axis = +-normalize(q.xyz), angle = 2 atan2(|q.xyz|, |w|)."""
    T = q[0].type
    v = q[:3]
    vec = vector_type(T, 3)
    n = vals(b, lookup("normalize").lower(b, [vec], [ops(v)]))
    negative = q[3].cmp(Op.LT, 0.0)
    axis = [select(negative, -c, c) for c in n]
    length = V(b, lookup("length").lower(b, [vec], [ops(v)])[0])
    angle = 2.0 * V(b, b.binary(Op.ATAN2, length.x, q[3].apply(Op.ABS).x))
    return axis, angle


def to_axis_angle_infer(arg_types):
    arity("quat_to_axis_angle", arg_types, 1)
    q = arg_types[0]
    if not (is_quat(q) and q.elem in FLOATS):
        fail(f"quat_to_axis_angle() takes a quaternion, not {q}")
    from ..types import TupleType
    return TupleType((vector_type(q.elem, 3), q.elem))


def to_axis_angle_lower(b, arg_types, args):
    axis, angle = axis_angle_parts(b, vals(b, args[0]))
    return ops(axis) + [angle.x]


register("quat_to_axis_angle", to_axis_angle_infer, to_axis_angle_lower,
         "quat_to_axis_angle(q): (axis, angle) of a unit quaternion.", "quaternion")


def slerp_infer(arg_types):
    arity("quat_slerp", arg_types, 3)
    q0, q1, t = arg_types
    if not (is_quat(q0) and q0 == q1 and t is q0.elem):
        fail(f"quat_slerp() takes two quaternions of one type and a weight of their scalar type, "
             f"got {', '.join(map(str, arg_types))}")
    return q0


def slerp_lower(b, arg_types, args):
    """q0 * quat_from_axis_angle(axis, t * angle) of q0^-1 * q1."""
    q0 = vals(b, args[0])
    x, y, z, w = q0
    rel = vals(b, hamilton(b, ops([-x, -y, -z, w]), args[1]))
    axis, angle = axis_angle_parts(b, rel)
    (t,) = vals(b, args[2])
    half = (t * angle) * 0.5
    s = half.apply(Op.SIN)
    step = ops([a * s for a in axis] + [half.apply(Op.COS)])
    return hamilton(b, args[0], step)


register("quat_slerp", slerp_infer, slerp_lower,
         "quat_slerp(q0, q1, t): spherical linear interpolation from q0 (t = 0) to q1 (t = 1).",
         "quaternion")


# --- approximate inverse, casts ------------------------------------------------------------

def approx(name: str, exact: str):
    base = lookup(exact)
    register(name, base.infer, base.lower,
             f"{name}(...): {exact}, which Warp may compute approximately on a GPU; simt computes "
             f"it exactly (IEEE) on every engine.", "math")


approx("inverse_approx", "inverse")

for _alias, _target in (("float", "float32"), ("int", "int32")):
    _cast = lookup(_target)
    register(_alias, _cast.infer, _cast.lower, f"{_alias}(x): {_target}(x).", "cast")
