"""Types of the kernel language, shared by the HIR and the MIR.

Scalars are the only register types of the MIR; vectors, matrices and quaternions are
HIR types that lowering expands into ``flat_count`` scalars of their element type.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np


class Scalar(enum.Enum):
    BOOL = "bool"
    I8 = "int8"
    U8 = "uint8"
    I32 = "int32"
    U32 = "uint32"
    I64 = "int64"
    U64 = "uint64"
    F32 = "float32"
    F64 = "float64"

    @property
    def np(self) -> np.dtype:
        return np.dtype(_NP_NAMES[self])

    @property
    def bits(self) -> int:
        return _BITS[self]

    @property
    def nbytes(self) -> int:
        return max(1, self.bits // 8)

    @property
    def is_float(self) -> bool:
        return self in (Scalar.F32, Scalar.F64)

    @property
    def is_int(self) -> bool:
        return not self.is_float and self is not Scalar.BOOL

    @property
    def is_signed(self) -> bool:
        return self in (Scalar.I8, Scalar.I32, Scalar.I64) or self.is_float

    @property
    def short(self) -> str:
        """Name used by the MIR printer: i32, u8, f32, bool..."""
        return _SHORT[self]

    def __repr__(self) -> str:  # readable in error messages and dataclass reprs
        return self.value

    __str__ = __repr__


_NP_NAMES = {Scalar.BOOL: "bool", Scalar.I8: "int8", Scalar.U8: "uint8", Scalar.I32: "int32",
             Scalar.U32: "uint32", Scalar.I64: "int64", Scalar.U64: "uint64",
             Scalar.F32: "float32", Scalar.F64: "float64"}
_BITS = {Scalar.BOOL: 1, Scalar.I8: 8, Scalar.U8: 8, Scalar.I32: 32, Scalar.U32: 32,
         Scalar.I64: 64, Scalar.U64: 64, Scalar.F32: 32, Scalar.F64: 64}
_SHORT = {Scalar.BOOL: "bool", Scalar.I8: "i8", Scalar.U8: "u8", Scalar.I32: "i32",
          Scalar.U32: "u32", Scalar.I64: "i64", Scalar.U64: "u64", Scalar.F32: "f32",
          Scalar.F64: "f64"}


@dataclass(frozen=True)
class VectorType:
    elem: Scalar
    n: int
    name: str  # vec2, vec3, vec4, vec3d, ...

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class MatrixType:
    elem: Scalar
    rows: int
    cols: int
    name: str  # mat22, mat33, mat44

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class QuatType:
    elem: Scalar
    name: str = "quat"

    def __str__(self) -> str:
        return self.name


ValueType = Scalar | VectorType | MatrixType | QuatType


@dataclass(frozen=True)
class ArrayType:
    """A kernel parameter of array type, or a shared array (then ``shape`` is static)."""
    dtype: ValueType
    ndim: int
    shape: tuple[int, ...] | None = None  # static shape: shared arrays only
    layout: str = "row_major"             # shared arrays may be column_major
    pad: int = 0                          # shared arrays: extra elements on the fastest dimension

    def __str__(self) -> str:
        dims = ",".join(str(s) for s in self.shape) if self.shape else f"{self.ndim}d"
        return f"array({self.dtype}, {dims})"


@dataclass(frozen=True)
class TupleType:
    """Result of tid()/thread_idx()/... in multi-dimensional launches."""
    elems: tuple[ValueType, ...]

    def __str__(self) -> str:
        return "tuple(" + ", ".join(str(e) for e in self.elems) + ")"


@dataclass(frozen=True)
class VoidType:
    def __str__(self) -> str:
        return "None"


VOID = VoidType()
AnyType = ValueType | ArrayType | TupleType | VoidType


def scalar_of(t: ValueType) -> Scalar:
    return t if isinstance(t, Scalar) else t.elem


def flat_count(t: ValueType) -> int:
    """Number of scalars a value of type ``t`` expands to in the MIR."""
    if isinstance(t, Scalar):
        return 1
    if isinstance(t, VectorType):
        return t.n
    if isinstance(t, MatrixType):
        return t.rows * t.cols
    if isinstance(t, QuatType):
        return 4
    raise TypeError(f"{t} has no scalar expansion")


def value_nbytes(t: ValueType) -> int:
    return flat_count(t) * scalar_of(t).nbytes


# The canonical composite types of the language (float32 unless suffixed).
vec2 = VectorType(Scalar.F32, 2, "vec2")
vec3 = VectorType(Scalar.F32, 3, "vec3")
vec4 = VectorType(Scalar.F32, 4, "vec4")
mat22 = MatrixType(Scalar.F32, 2, 2, "mat22")
mat33 = MatrixType(Scalar.F32, 3, 3, "mat33")
mat44 = MatrixType(Scalar.F32, 4, 4, "mat44")
quat = QuatType(Scalar.F32, "quat")

COMPOSITES: dict[str, ValueType] = {t.name: t for t in (vec2, vec3, vec4, mat22, mat33, mat44, quat)}
SCALARS: dict[str, Scalar] = {s.value: s for s in Scalar}


_PY_TYPES = {float: Scalar.F32, int: Scalar.I32, bool: Scalar.BOOL}


def resolve_type(obj) -> AnyType | None:
    """The IR type a Python object names: ``float``, ``simt.float32`` (numpy's float32),
    ``simt.vec3``, an ``simt.array(dtype=...)`` annotation, or an IR type itself."""
    if isinstance(obj, (Scalar, VectorType, MatrixType, QuatType, ArrayType)):
        return obj
    if obj in _PY_TYPES:
        return _PY_TYPES[obj]
    t = getattr(obj, "_simt_type", None)
    if t is not None:
        return t
    try:
        dt = np.dtype(obj)
    except TypeError:
        return None
    for s in Scalar:
        if s.np == dt and isinstance(obj, type) and issubclass(obj, np.generic):
            return s
    return None
