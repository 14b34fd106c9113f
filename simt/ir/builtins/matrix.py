"""Matrices: constructors, products, transpose, determinant, inverse (Warp 1.19 semantics).

A matrix is ``rows * cols`` scalars in row-major order. The formulas follow Warp's
``native/mat.h`` operation by operation (including its float64 intermediates in the 4x4
determinant and inverse) so results round the same way. One known difference: Warp's
matrix product accumulates with fused multiply-add; the MIR has no FMA, so ``mat * mat``
rounds each product and sum separately.
"""
from __future__ import annotations

from typing import Sequence

from ..builder import Builder
from ..mir import Op, Operand
from ..registry import register
from ..types import AnyType, MatrixType, Scalar
from .common import (FLOATS, Args, V, arity, fail, is_mat, is_scalar, is_vec, matrix_type,
                     ops, select, vals, vector_type, zeros)

GROUP = "matrix"


# --- products (used by the * operator) -------------------------------------------------------

def matvec(b: Builder, rows: int, cols: int, m: Sequence[Operand], v: Sequence[Operand]) -> list[Operand]:
    """m * v: Warp sums the columns scaled by v's components, left to right."""
    out = []
    for i in range(rows):
        acc = b.binary(Op.MUL, m[i * cols], v[0])
        for k in range(1, cols):
            acc = b.binary(Op.ADD, acc, b.binary(Op.MUL, m[i * cols + k], v[k]))
        out.append(acc)
    return out


def vecmat(b: Builder, rows: int, cols: int, v: Sequence[Operand], m: Sequence[Operand]) -> list[Operand]:
    """v * m (v as a row vector): the rows of m scaled by v's components."""
    out = []
    for j in range(cols):
        acc = b.binary(Op.MUL, m[j], v[0])
        for k in range(1, rows):
            acc = b.binary(Op.ADD, acc, b.binary(Op.MUL, m[k * cols + j], v[k]))
        out.append(acc)
    return out


def matmul(b: Builder, rows: int, inner: int, cols: int, x: Sequence[Operand],
           y: Sequence[Operand]) -> list[Operand]:
    out = []
    for i in range(rows):
        for j in range(cols):
            acc = b.binary(Op.MUL, x[i * inner], y[j])
            for k in range(1, inner):
                acc = b.binary(Op.ADD, acc, b.binary(Op.MUL, x[i * inner + k], y[k * cols + j]))
            out.append(acc)
    return out


# --- constructors ------------------------------------------------------------------------------

def make_constructor(name: str, t: MatrixType):
    n = t.rows * t.cols

    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        if any(is_vec(a) for a in arg_types):
            fail(f"passing vectors to {name}() isn't supported, use wp.matrix_from_rows() or "
                 f"wp.matrix_from_cols() instead")
        arity(name, arg_types, *sorted({0, 1, n}))
        if len(arg_types) == 1 and is_mat(arg_types[0]):
            a = arg_types[0]
            if (a.rows, a.cols) != (t.rows, t.cols):
                fail(f"cannot build {name} from {a}: shapes differ")
            return t
        if not all(is_scalar(a) and (a is not Scalar.BOOL or t.elem is Scalar.BOOL)
                   for a in arg_types):
            fail(f"{name}() takes {n} numbers (row-major), one number, a {t.rows}x{t.cols} "
                 f"matrix, or nothing; got {', '.join(map(str, arg_types))}")
        return t

    def lower(b: Builder, arg_types: Sequence[AnyType], args: Args) -> list[Operand]:
        if not args:
            return zeros(t)
        flat = [x for a in args for x in a]
        if len(args) == 1 and is_scalar(arg_types[0]):
            flat = flat * n
        return [b.cvt(x, t.elem) for x in flat]

    doc = (f"{name}(m00, m01, ..., ) from {n} scalars in row-major order; {name}(s) fills every "
           f"component with s; {name}() is zero; {name}(m) converts another {t.rows}x{t.cols} "
           f"matrix. Vectors are not accepted: use matrix_from_rows / matrix_from_cols.")
    register(name, infer, lower, doc, GROUP)


for _elem, _suffixes in ((Scalar.F32, ("", "f")), (Scalar.F64, ("d",))):
    for _n in (2, 3, 4):
        for _suffix in _suffixes:
            make_constructor(f"mat{_n}{_n}{_suffix}", matrix_type(_elem, _n, _n))


def make_from_vectors(name: str, as_rows: bool):
    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        if not arg_types or not all(is_vec(a) for a in arg_types):
            fail(f"{name}() takes one or more vectors")
        first = arg_types[0]
        if any(a.n != first.n or a.elem is not first.elem for a in arg_types):
            fail(f"{name}() vectors must share one type, got {', '.join(map(str, arg_types))}")
        k = len(arg_types)
        return matrix_type(first.elem, k, first.n) if as_rows else matrix_type(first.elem, first.n, k)

    def lower(b: Builder, arg_types: Sequence[AnyType], args: Args) -> list[Operand]:
        if as_rows:
            return [x for a in args for x in a]
        return [args[j][i] for i in range(len(args[0])) for j in range(len(args))]

    what = "rows" if as_rows else "columns"
    register(name, infer, lower, f"{name}(v0, v1, ...): a matrix whose {what} are the given vectors.",
             GROUP)


make_from_vectors("matrix_from_rows", True)
make_from_vectors("matrix_from_cols", False)


# --- transpose, diagonal, trace, outer, skew -----------------------------------------------------

def _one_matrix(name: str, arg_types: Sequence[AnyType], square: bool = False) -> MatrixType:
    arity(name, arg_types, 1)
    m = arg_types[0]
    if not is_mat(m):
        fail(f"{name}() takes a matrix, not {m}")
    if square and m.rows != m.cols:
        fail(f"{name}() takes a square matrix, not {m}")
    return m


def transpose_infer(arg_types):
    m = _one_matrix("transpose", arg_types)
    return matrix_type(m.elem, m.cols, m.rows)


def transpose_lower(b, arg_types, args):
    m = arg_types[0]
    x = args[0]
    return [x[i * m.cols + j] for j in range(m.cols) for i in range(m.rows)]


register("transpose", transpose_infer, transpose_lower, "transpose(m): rows become columns.", GROUP)


def get_diag_infer(arg_types):
    m = _one_matrix("get_diag", arg_types, square=True)
    return vector_type(m.elem, m.rows)


def get_diag_lower(b, arg_types, args):
    n = arg_types[0].rows
    return [args[0][i * n + i] for i in range(n)]


register("get_diag", get_diag_infer, get_diag_lower,
         "get_diag(m): the diagonal of a square matrix as a vector.", GROUP)


def diag_infer(arg_types):
    arity("diag", arg_types, 1)
    v = arg_types[0]
    if not is_vec(v):
        fail(f"diag() takes a vector, not {v} (use get_diag(m) to read a matrix's diagonal)")
    return matrix_type(v.elem, v.n, v.n)


def diag_lower(b, arg_types, args):
    v = arg_types[0]
    zero = zeros(v.elem)[0]
    return [args[0][i] if i == j else zero for i in range(v.n) for j in range(v.n)]


register("diag", diag_infer, diag_lower,
         "diag(v): the square matrix with v on its diagonal and zeros elsewhere.", GROUP)


def trace_infer(arg_types):
    return _one_matrix("trace", arg_types, square=True).elem


def trace_lower(b, arg_types, args):
    n = arg_types[0].rows
    acc = args[0][0]
    for i in range(1, n):
        acc = b.binary(Op.ADD, acc, args[0][i * n + i])
    return [acc]


register("trace", trace_infer, trace_lower, "trace(m): the sum of the diagonal.", GROUP)


def outer_infer(arg_types):
    arity("outer", arg_types, 2)
    a, c = arg_types
    if not (is_vec(a) and is_vec(c) and a.elem is c.elem):
        fail(f"outer() takes two vectors of one element type, got {a} and {c}")
    return matrix_type(a.elem, a.n, c.n)


def outer_lower(b, arg_types, args):
    xs, ys = args
    return [b.binary(Op.MUL, x, y) for x in xs for y in ys]


register("outer", outer_infer, outer_lower, "outer(a, b): the matrix a b^T, m[i][j] = a[i] * b[j].",
         GROUP)


def skew_infer(arg_types):
    arity("skew", arg_types, 1)
    v = arg_types[0]
    if not (is_vec(v) and v.n == 3):
        fail(f"skew() takes a 3-vector, not {v}")
    return matrix_type(v.elem, 3, 3)


def skew_lower(b, arg_types, args):
    x, y, z = args[0]
    zero = zeros(arg_types[0].elem)[0]
    neg = [b.unary(Op.NEG, c) for c in (x, y, z)]
    return [zero, neg[2], y,
            z, zero, neg[0],
            neg[1], x, zero]


register("skew", skew_infer, skew_lower,
         "skew(v): the cross-product matrix of v, so skew(a) * b == cross(a, b).", GROUP)


# --- determinant and inverse --------------------------------------------------------------------

def _square_float(name: str, arg_types) -> MatrixType:
    m = _one_matrix(name, arg_types, square=True)
    if m.rows not in (2, 3, 4) or m.elem not in FLOATS:
        fail(f"{name}() takes a 2x2, 3x3 or 4x4 float matrix, not {m}")
    return m


def det2(m: list[V]) -> V:
    return m[0] * m[3] - m[2] * m[1]


def det3(m: list[V]) -> V:
    a, c = m[0:3], m[3:6]
    d = m[6:9]
    cross = [c[1] * d[2] - c[2] * d[1], c[2] * d[0] - c[0] * d[2], c[0] * d[1] - c[1] * d[0]]
    return a[0] * cross[0] + a[1] * cross[1] + a[2] * cross[2]


def _pickle4(m: list[V]):
    """Warp's USD-derived 4x4 scheme: 2x2 minors of column pairs, kept in float64."""
    T = m[0].type
    F64 = Scalar.F64
    x = [[m[i * 4 + j] for j in range(4)] for i in range(4)]

    def minors(c0: int, c1: int) -> dict[str, V]:
        def y(i, k):
            return (x[i][c0] * x[k][c1] - x[k][c0] * x[i][c1]).to(F64)
        return {"01": y(0, 1), "02": y(0, 2), "03": y(0, 3),
                "12": y(1, 2), "13": y(1, 3), "23": y(2, 3)}
    return T, x, minors


def det4(m: list[V]) -> V:
    T, x, minors = _pickle4(m)
    y = minors(2, 3)
    x00, x01, x10, x11 = x[0][0], x[0][1], x[1][0], x[1][1]
    x20, x21, x30, x31 = x[2][0], x[2][1], x[3][0], x[3][1]
    z30 = (x11 * y["02"] - x21 * y["01"] - x01 * y["12"]).to(T)
    z20 = (x01 * y["13"] - x11 * y["03"] + x31 * y["01"]).to(T)
    z10 = (x21 * y["03"] - x31 * y["02"] - x01 * y["23"]).to(T)
    z00 = (x11 * y["23"] - x21 * y["13"] + x31 * y["12"]).to(T)
    # Warp stores this sum in a double and returns it as Type: a no-op round trip
    return x30 * z30 + x20 * z20 + x10 * z10 + x00 * z00


DETERMINANTS = {2: det2, 3: det3, 4: det4}


def determinant_infer(arg_types):
    return _square_float("determinant", arg_types).elem


def determinant_lower(b, arg_types, args):
    n = arg_types[0].rows
    return [DETERMINANTS[n](vals(b, args[0])).x]


register("determinant", determinant_infer, determinant_lower,
         "determinant(m) of a 2x2, 3x3 or 4x4 float matrix.", GROUP)


def inverse2(m: list[V]) -> list[V]:
    det = det2(m)
    ok = V(det.b, det.b.binary(Op.OR, det.cmp(Op.GT, 0.0).x, det.cmp(Op.LT, -0.0).x))
    rcp = 1.0 / det
    adj = [m[3], -m[1], -m[2], m[0]]
    zero = _zero(det)
    return [select(ok, a * rcp, zero) for a in adj]


def _zero(v: V) -> V:
    return V(v.b, zeros(v.type)[0])


def inverse3(m: list[V]) -> list[V]:
    det = det3(m)
    ok = det.cmp(Op.NE, 0.0)
    d = [[m[i * 3 + j] for j in range(3)] for i in range(3)]
    inv = [[None] * 3 for _ in range(3)]
    inv[0][0] = d[1][1] * d[2][2] - d[1][2] * d[2][1]
    inv[1][0] = d[1][2] * d[2][0] - d[1][0] * d[2][2]
    inv[2][0] = d[1][0] * d[2][1] - d[1][1] * d[2][0]
    inv[0][1] = d[0][2] * d[2][1] - d[0][1] * d[2][2]
    inv[1][1] = d[0][0] * d[2][2] - d[0][2] * d[2][0]
    inv[2][1] = d[0][1] * d[2][0] - d[0][0] * d[2][1]
    inv[0][2] = d[0][1] * d[1][2] - d[0][2] * d[1][1]
    inv[1][2] = d[0][2] * d[1][0] - d[0][0] * d[1][2]
    inv[2][2] = d[0][0] * d[1][1] - d[0][1] * d[1][0]
    rcp = 1.0 / det
    zero = _zero(det)
    return [select(ok, inv[i][j] * rcp, zero) for i in range(3) for j in range(3)]


def inverse4(m: list[V]) -> list[V]:
    T, x, minors = _pickle4(m)
    F64 = Scalar.F64
    (x00, x01, x02, x03), (x10, x11, x12, x13), (x20, x21, x22, x23), (x30, x31, x32, x33) = x
    y = minors(0, 1)
    z33 = (x02 * y["12"] - x12 * y["02"] + x22 * y["01"]).to(F64)
    z23 = (x12 * y["03"] - x32 * y["01"] - x02 * y["13"]).to(F64)
    z13 = (x02 * y["23"] - x22 * y["03"] + x32 * y["02"]).to(F64)
    z03 = (x22 * y["13"] - x32 * y["12"] - x12 * y["23"]).to(F64)
    z32 = (x13 * y["02"] - x23 * y["01"] - x03 * y["12"]).to(F64)
    z22 = (x03 * y["13"] - x13 * y["03"] + x33 * y["01"]).to(F64)
    z12 = (x23 * y["03"] - x33 * y["02"] - x03 * y["23"]).to(F64)
    z02 = (x13 * y["23"] - x23 * y["13"] + x33 * y["12"]).to(F64)
    y = minors(2, 3)
    z30 = (x11 * y["02"] - x21 * y["01"] - x01 * y["12"]).to(T)
    z20 = (x01 * y["13"] - x11 * y["03"] + x31 * y["01"]).to(T)
    z10 = (x21 * y["03"] - x31 * y["02"] - x01 * y["23"]).to(T)
    z00 = (x11 * y["23"] - x21 * y["13"] + x31 * y["12"]).to(T)
    z31 = (x00 * y["12"] - x10 * y["02"] + x20 * y["01"]).to(T)
    z21 = (x10 * y["03"] - x30 * y["01"] - x00 * y["13"]).to(T)
    z11 = (x00 * y["23"] - x20 * y["03"] + x30 * y["02"]).to(T)
    z01 = (x20 * y["13"] - x30 * y["12"] - x10 * y["23"]).to(T)
    det = (x30 * z30 + x20 * z20 + x10 * z10 + x00 * z00).to(F64)
    ok = det.apply(Op.ABS).cmp(Op.GT, 0.0)
    rcp = 1.0 / det
    cof = [[z00, z10, z20, z30], [z01, z11, z21, z31], [z02, z12, z22, z32], [z03, z13, z23, z33]]
    zero = _zero(x00)
    return [select(ok, (cof[i][j] * rcp).to(T), zero) for i in range(4) for j in range(4)]


INVERSES = {2: inverse2, 3: inverse3, 4: inverse4}


def inverse_infer(arg_types):
    return _square_float("inverse", arg_types)


def inverse_lower(b, arg_types, args):
    n = arg_types[0].rows
    return ops(INVERSES[n](vals(b, args[0])))


register("inverse", inverse_infer, inverse_lower,
         "inverse(m) of a 2x2, 3x3 or 4x4 float matrix; the zero matrix when m is singular "
         "(determinant zero), as in Warp.", GROUP)
