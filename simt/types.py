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

float16 = np.float16
float32 = np.float32
float64 = np.float64
int8 = np.int8
uint8 = np.uint8
int16 = np.int16
uint16 = np.uint16
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


class BFloat16Type:
    """``simt.bfloat16``: arrays of it hold the values' 16 bits (numpy has no bfloat16), as
    Warp's ``.numpy()`` of a bfloat16 array shows them; ``simt.bfloat16(x)`` on the host is x
    rounded to bfloat16 (a float32)."""

    _simt_type = Scalar.BF16
    __name__ = "bfloat16"

    def __call__(self, value=0.0) -> np.float32:
        from .ir.bfloat16 import round_value
        return np.float32(round_value(value))

    def __repr__(self) -> str:
        return "simt.bfloat16"


bfloat16 = BFloat16Type()


class CompositeValue(np.ndarray):
    """A host vector/matrix/quaternion value: a numpy array that knows its simt type, so that a
    kernel reading it from the enclosing scope gets a constant of that type."""

    _simt_value_type = None

    def __array_finalize__(self, obj) -> None:
        self._simt_value_type = getattr(obj, "_simt_value_type", None)


class CompositeType:
    """``simt.vec3`` and friends: an IR type plus a host-side constructor returning numpy arrays."""

    def __init__(self, ir_type: ir.VectorType | ir.MatrixType | ir.QuatType | ir.TransformType):
        self._simt_type = ir_type
        self.__name__ = str(ir_type)
        self.__qualname__ = str(ir_type)

    @property
    def _length_(self) -> int:      # Warp's attribute names, read by code written for Warp
        return self.length

    @property
    def _shape_(self) -> tuple[int, ...]:
        return self.shape

    @property
    def _wp_scalar_type_(self) -> type:
        return self.scalar_type

    @property
    def dtype(self) -> type:
        return self.scalar_type

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
        """Zeros; one scalar filling every component; or the components (scalars or rows).
        The result is a numpy array that remembers its type (kernels can capture it)."""
        count = self.length
        dtype = self.scalar_type
        if not args:
            return self._tag(np.zeros(self.shape, dtype=dtype))
        if len(args) == 1:
            value = np.asarray(args[0], dtype=dtype)
            if value.ndim == 0:
                return self._tag(np.full(self.shape, value, dtype=dtype))
        else:
            value = np.concatenate([np.asarray(a, dtype=dtype).reshape(-1) for a in args])
        if value.size != count:
            raise ValueError(f"{self.__name__} takes {count} components, got {value.size}")
        return self._tag(value.reshape(self.shape).copy())

    def _tag(self, data: np.ndarray) -> np.ndarray:
        out = data.view(CompositeValue)
        out._simt_value_type = self._simt_type
        return out

    def __repr__(self) -> str:
        return f"simt.{self.__name__}"


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
    if t is None or not isinstance(t, (Scalar, ir.VectorType, ir.MatrixType, ir.QuatType,
                                       ir.TransformType, ir.StructType)):
        raise TypeError(f"unsupported dtype {dtype!r}; use a simt scalar type (float32, int32, ...) "
                        f"or a composite (vec3, mat33, quat, ...)")
    return t


@lru_cache(maxsize=None)
def _composite(ir_type) -> CompositeType:
    """One CompositeType object per IR type, so ``simt.vector(3, float32) is simt.vec3``."""
    return CompositeType(ir_type)


def _scalar_arg(dtype, what: str) -> Scalar:
    s = ir_type(dtype)
    if not isinstance(s, Scalar):
        raise TypeError(f"{what} needs a scalar dtype, got {dtype!r}")
    return s


def _static_int(value, what: str) -> int:
    """An int, or typing.Literal[n] as Warp's subscript forms write it."""
    args = typing.get_args(value)
    if typing.get_origin(value) is typing.Literal and len(args) == 1:
        value = args[0]
    if isinstance(value, builtins.bool) or not isinstance(value, (builtins.int, np.integer)):
        raise TypeError(f"{what} must be an int, got {value!r}")
    return builtins.int(value)


class GenericAnnotation:
    """An annotation with something left open: ``Float``, ``vector(Any, float32)``... Kernels
    and functions annotated with one are typed from their arguments."""

    def __init__(self, t: ir.GenericType, name: str):
        self._simt_type = t
        self.__name__ = name

    def __repr__(self) -> str:
        return f"simt.types.{self.__name__}"


Float = GenericAnnotation(ir.GenericType("float"), "Float")
Int = GenericAnnotation(ir.GenericType("int"), "Int")
Scalar_ = GenericAnnotation(ir.GenericType("scalar"), "Scalar")


def _open(value) -> bool:
    return value is typing.Any or isinstance(getattr(value, "_simt_type", None), ir.GenericType)


def _elem_constraint(dtype):
    t = ir.resolve_type(dtype)
    if t is None or not isinstance(t, (Scalar, ir.GenericType)):
        raise TypeError(f"unsupported dtype {dtype!r}; use a scalar type")
    return None if t == ir.ANY else t


def vector(length=None, dtype=float32):
    """Warp's ``wp.types.vector(length, dtype)`` (either may be ``Any``: an annotation)."""
    if _open(length) or _open(dtype):
        n = None if _open(length) else _static_int(length, "vector length")
        return GenericAnnotation(ir.GenericType("vec", _elem_constraint(dtype), n=n), "vector")
    return _composite(ir.vector_type(_scalar_arg(dtype, "vector"), _static_int(length, "vector length")))


def matrix(shape=None, dtype=float32):
    """Warp's ``wp.types.matrix(shape, dtype)`` (shape entries or dtype may be ``Any``)."""
    rows, cols = shape
    if _open(rows) or _open(cols) or _open(dtype):
        r = None if _open(rows) else _static_int(rows, "matrix rows")
        c = None if _open(cols) else _static_int(cols, "matrix columns")
        return GenericAnnotation(ir.GenericType("mat", _elem_constraint(dtype), rows=r, cols=c),
                                 "matrix")
    return _composite(ir.matrix_type(_scalar_arg(dtype, "matrix"), _static_int(rows, "matrix rows"),
                                     _static_int(cols, "matrix columns")))


def quaternion(dtype=float32):
    if _open(dtype):
        return GenericAnnotation(ir.GenericType("quat", _elem_constraint(dtype)), "quaternion")
    return _composite(ir.quat_type(_scalar_arg(dtype, "quaternion")))


def transformation(dtype=float32):
    """Warp's ``wp.types.transformation(dtype)``: translation p then rotation q (7 scalars)."""
    if _open(dtype):
        return GenericAnnotation(ir.GenericType("transform", _elem_constraint(dtype)),
                                 "transformation")
    return _composite(ir.transform_type(_scalar_arg(dtype, "transformation")))


for _factory in (vector, matrix, quaternion, transformation):
    _factory._simt_type_factory = True     # callable in kernels, at compile time

vec2, vec3, vec4 = vector(2), vector(3), vector(4)
mat22, mat33, mat44 = matrix((2, 2)), matrix((3, 3)), matrix((4, 4))
quat = quaternion()
transform = transformation()
spatial_vector, spatial_matrix = vector(6), matrix((6, 6))
vec2f, vec3f, vec4f = vec2, vec3, vec4
mat22f, mat33f, mat44f, quatf, transformf = mat22, mat33, mat44, quat, transform
spatial_vectorf, spatial_matrixf = spatial_vector, spatial_matrix
vec2d, vec3d, vec4d = (vector(n, float64) for n in (2, 3, 4))
vec2h, vec3h, vec4h = (vector(n, float16) for n in (2, 3, 4))
vec2i, vec3i, vec4i = (vector(n, int32) for n in (2, 3, 4))
vec2ui, vec3ui, vec4ui = (vector(n, uint32) for n in (2, 3, 4))
vec2l, vec3l, vec4l = (vector(n, int64) for n in (2, 3, 4))
vec2ul, vec3ul, vec4ul = (vector(n, uint64) for n in (2, 3, 4))
vec2s, vec3s, vec4s = (vector(n, int16) for n in (2, 3, 4))
vec2us, vec3us, vec4us = (vector(n, uint16) for n in (2, 3, 4))
vec2b, vec3b, vec4b = (vector(n, int8) for n in (2, 3, 4))
vec2ub, vec3ub, vec4ub = (vector(n, uint8) for n in (2, 3, 4))
mat22d, mat33d, mat44d = (matrix((n, n), float64) for n in (2, 3, 4))
mat22h, mat33h, mat44h = (matrix((n, n), float16) for n in (2, 3, 4))
quatd, quath = quaternion(float64), quaternion(float16)
transformd, transformh = transformation(float64), transformation(float16)
spatial_vectord, spatial_vectorh = vector(6, float64), vector(6, float16)
spatial_matrixd, spatial_matrixh = matrix((6, 6), float64), matrix((6, 6), float16)

TYPE_NAMES = [name for name, v in list(globals().items())
              if isinstance(v, (CompositeType, BFloat16Type))
              or (isinstance(v, type) and issubclass(v, np.generic))]


def public_type(t: ir.ValueType):
    """What ``array.dtype`` reports for an IR type: numpy's scalar type or a CompositeType."""
    if t is Scalar.BOOL:
        return bool_
    if t is Scalar.BF16:
        return bfloat16
    if isinstance(t, Scalar):
        return t.np.type
    if isinstance(t, ir.StructType):
        return _STRUCT_CLASSES.get(t.key, t)
    return _composite(t)


_STRUCT_CLASSES: dict[str, type] = {}     # StructType.key -> the user's @simt.struct class


def component_shape(t: ir.ValueType) -> tuple[int, ...]:
    """Trailing numpy axes one element of type ``t`` occupies: () scalar, (3,) vec3, (3, 3) mat33;
    () for a struct, whose elements are numpy structured values."""
    if isinstance(t, (Scalar, ir.StructType)):
        return ()
    if isinstance(t, ir.MatrixType):
        return (t.rows, t.cols)
    return (ir.flat_count(t),)


def numpy_scalar_type(t: ir.ValueType) -> np.dtype:
    if isinstance(t, ir.StructType):
        from .structs import struct_numpy_dtype
        return struct_numpy_dtype(t)
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


class _Ref:
    """``simt.ref[T]``: a device-function parameter passed by reference (Warp 1.19)."""

    def __getitem__(self, t):
        inner = ir.resolve_type(t)
        if inner is None:
            raise TypeError(f"ref[...] needs a type, got {t!r}")
        return RefAnnotation(inner)

    def __repr__(self) -> str:
        return "simt.ref"


class RefAnnotation:
    def __init__(self, inner):
        self._simt_type = ir.RefType(inner)
        self.dtype = self.value_type = public_type(inner) if not isinstance(
            inner, (ir.ArrayType, ir.GenericType)) else inner

    def __eq__(self, other) -> bool:
        return isinstance(other, RefAnnotation) and other._simt_type == self._simt_type

    def __hash__(self) -> int:
        return hash(self._simt_type)

    def __repr__(self) -> str:
        return f"simt.ref[{self._simt_type.value}]"


ref = _Ref()
