"""The type objects users write: ``simt.float32``, ``simt.vec3``, ``simt.mat33``, ``simt.bool``...

Scalar types ARE numpy's scalar types, so host code and array dtypes need no translation.
Composite types are small callable objects: calling one on the host builds a float32 (or
the type's element) numpy array of the type's shape, and each carries ``_simt_type``, the
canonical IR type the front end resolves annotations with (simt/ir/types.py).
"""
from __future__ import annotations

import builtins
import typing
from functools import lru_cache

import numpy as np

from .ir import types as ir
from .ir.types import Scalar

float32 = np.float32
float64 = np.float64
int8 = np.int8
uint8 = np.uint8
int32 = np.int32
uint32 = np.uint32
int64 = np.int64
uint64 = np.uint64


class BoolType:
    """``simt.bool``: the kernel language's boolean; on the host, ``simt.bool(x)`` is ``np.bool_(x)``."""

    _simt_type = Scalar.BOOL
    __name__ = "bool"

    def __call__(self, value=False) -> np.bool_:
        return np.bool_(value)

    def __repr__(self) -> str:
        return "simt.bool"


bool_ = BoolType()


class CompositeType:
    """``simt.vec3`` and friends: an IR type plus a host-side constructor returning numpy arrays."""

    def __init__(self, ir_type: ir.VectorType | ir.MatrixType | ir.QuatType):
        self._simt_type = ir_type
        self.__name__ = ir_type.name
        self.__qualname__ = ir_type.name

    @property
    def shape(self) -> tuple[int, ...]:
        t = self._simt_type
        if isinstance(t, ir.MatrixType):
            return (t.rows, t.cols)
        return (ir.flat_count(t),)

    @property
    def length(self) -> int:
        return ir.flat_count(self._simt_type)

    @property
    def scalar_type(self) -> type:
        return ir.scalar_of(self._simt_type).np.type

    def __call__(self, *args) -> np.ndarray:
        """Zeros; one scalar filling every component; or the components (scalars or rows)."""
        count = self.length
        dtype = self.scalar_type
        if not args:
            return np.zeros(self.shape, dtype=dtype)
        if len(args) == 1:
            value = np.asarray(args[0], dtype=dtype)
            if value.ndim == 0:
                return np.full(self.shape, value, dtype=dtype)
        else:
            value = np.concatenate([np.asarray(a, dtype=dtype).reshape(-1) for a in args])
        if value.size != count:
            raise ValueError(f"{self.__name__} takes {count} components, got {value.size}")
        return value.reshape(self.shape).copy()

    def __repr__(self) -> str:
        return f"simt.{self.__name__}"


_SUFFIX = {Scalar.F32: "", Scalar.F64: "d", Scalar.I32: "i", Scalar.U32: "ui", Scalar.I64: "l",
           Scalar.U64: "ul", Scalar.I8: "b", Scalar.U8: "ub"}


# ---- translating between what users write and IR types ---------------------------------

def ir_type(dtype) -> ir.ValueType:
    """The IR value type of a dtype as users write it (float, np.float32, simt.vec3, np.dtype)."""
    if dtype is None or dtype is typing.Any:
        raise TypeError("a dtype is required")
    if isinstance(dtype, np.dtype):
        dtype = dtype.type
    t = ir.resolve_type(dtype)
    if t is None and isinstance(dtype, str):
        t = ir.SCALARS.get(dtype) or ir.COMPOSITES.get(dtype)
    if t is None or not isinstance(t, (Scalar, ir.VectorType, ir.MatrixType, ir.QuatType)):
        raise TypeError(f"unsupported dtype {dtype!r}; use a simt scalar type (float32, int32, ...) "
                        f"or a composite (vec3, mat33, quat, ...)")
    return t


@lru_cache(maxsize=None)
def _composite(kind: str, scalar: Scalar, rows: int, cols: int = 1) -> CompositeType:
    """One CompositeType object per IR type, so ``simt.vector(3, float32) is simt.vec3``."""
    if scalar is Scalar.F32 and kind == "vec" and rows in (2, 3, 4):
        return CompositeType(ir.COMPOSITES[f"vec{rows}"])
    if scalar is Scalar.F32 and kind == "mat" and rows == cols and rows in (2, 3, 4):
        return CompositeType(ir.COMPOSITES[f"mat{rows}{cols}"])
    if scalar is Scalar.F32 and kind == "quat":
        return CompositeType(ir.quat)
    suffix = _SUFFIX[scalar]
    if kind == "vec":
        return CompositeType(ir.VectorType(scalar, rows, f"vec{rows}{suffix}"))
    if kind == "mat":
        return CompositeType(ir.MatrixType(scalar, rows, cols, f"mat{rows}{cols}{suffix}"))
    return CompositeType(ir.QuatType(scalar, f"quat{suffix}"))


def _scalar_arg(dtype, what: str) -> Scalar:
    s = ir_type(dtype)
    if not isinstance(s, Scalar) or s is Scalar.BOOL:
        raise TypeError(f"{what} needs a numeric scalar dtype, got {dtype!r}")
    return s


def vector(length: int, dtype=float32) -> CompositeType:
    """Warp's ``wp.types.vector(length, dtype)``."""
    return _composite("vec", _scalar_arg(dtype, "vector"), int(length))


def matrix(shape: tuple[int, int], dtype=float32) -> CompositeType:
    """Warp's ``wp.types.matrix(shape, dtype)``."""
    rows, cols = shape
    return _composite("mat", _scalar_arg(dtype, "matrix"), int(rows), int(cols))


def quaternion(dtype=float32) -> CompositeType:
    return _composite("quat", _scalar_arg(dtype, "quaternion"), 4)


vec2, vec3, vec4 = vector(2), vector(3), vector(4)
mat22, mat33, mat44 = matrix((2, 2)), matrix((3, 3)), matrix((4, 4))
quat = quaternion()
vec2f, vec3f, vec4f = vec2, vec3, vec4
mat22f, mat33f, mat44f, quatf = mat22, mat33, mat44, quat
vec2d, vec3d, vec4d = (vector(n, float64) for n in (2, 3, 4))
vec2i, vec3i, vec4i = (vector(n, int32) for n in (2, 3, 4))
vec2ui, vec3ui, vec4ui = (vector(n, uint32) for n in (2, 3, 4))
vec2l, vec3l, vec4l = (vector(n, int64) for n in (2, 3, 4))
vec2ul, vec3ul, vec4ul = (vector(n, uint64) for n in (2, 3, 4))
vec2b, vec3b, vec4b = (vector(n, int8) for n in (2, 3, 4))
vec2ub, vec3ub, vec4ub = (vector(n, uint8) for n in (2, 3, 4))
mat22d, mat33d, mat44d = (matrix((n, n), float64) for n in (2, 3, 4))
quatd = quaternion(float64)

_NAMED_COMPOSITES = [v for v in list(globals().values()) if isinstance(v, CompositeType)]


def public_type(t: ir.ValueType):
    """What ``array.dtype`` reports for an IR type: numpy's scalar type or a CompositeType."""
    if t is Scalar.BOOL:
        return bool_
    if isinstance(t, Scalar):
        return t.np.type
    for c in _NAMED_COMPOSITES:
        if c._simt_type == t:
            return c
    return CompositeType(t)


def component_shape(t: ir.ValueType) -> tuple[int, ...]:
    """Trailing numpy axes one element of type ``t`` occupies: () scalar, (3,) vec3, (3, 3) mat33."""
    if isinstance(t, Scalar):
        return ()
    if isinstance(t, ir.MatrixType):
        return (t.rows, t.cols)
    return (ir.flat_count(t),)


def numpy_scalar_type(t: ir.ValueType) -> np.dtype:
    return ir.scalar_of(t).np


def infer_scalar_dtype(value) -> ir.ValueType:
    """The IR type of a host value used to fill an array: Python float -> float32, int -> int32."""
    if isinstance(value, builtins.bool) or isinstance(value, np.bool_):
        return Scalar.BOOL
    if isinstance(value, builtins.int):
        return Scalar.I32
    if isinstance(value, builtins.float):
        return Scalar.F32
    if isinstance(value, np.generic):
        return ir_type(type(value))
    arr = np.asarray(value)
    if arr.dtype.kind == "f" and arr.shape in ((2,), (3,), (4,)):
        return vector(arr.shape[0], arr.dtype.type if arr.dtype != np.float64 else float32)._simt_type
    if arr.dtype.kind == "f" and arr.ndim == 2 and arr.shape[0] == arr.shape[1] and arr.shape[0] in (2, 3, 4):
        return matrix(arr.shape, arr.dtype.type if arr.dtype != np.float64 else float32)._simt_type
    raise TypeError(f"cannot infer a dtype from {value!r}; pass dtype=...")


# ``bool`` last: from here on the name means simt.bool in this module.
bool = bool_  # noqa: A001
