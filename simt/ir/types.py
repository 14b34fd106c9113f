"""Types of the kernel language, shared by the HIR and the MIR.

Scalars are the only register types of the MIR; vectors, matrices and quaternions are
HIR types that lowering expands into ``flat_count`` scalars of their element type.
"""
from __future__ import annotations

import enum
import typing
from dataclasses import dataclass, field

import numpy as np


class Scalar(enum.Enum):
    BOOL = "bool"
    I8 = "int8"
    U8 = "uint8"
    I16 = "int16"
    U16 = "uint16"
    I32 = "int32"
    U32 = "uint32"
    I64 = "int64"
    U64 = "uint64"
    F16 = "float16"     # storage types: arithmetic on them happens in float32 (see Builder)
    BF16 = "bfloat16"   # held as its 16 bits (numpy has no bfloat16)
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
        return self in (Scalar.F16, Scalar.BF16, Scalar.F32, Scalar.F64)

    @property
    def is_storage(self) -> bool:
        """float16 and bfloat16: only moved, stored and converted; computed in float32."""
        return self in (Scalar.F16, Scalar.BF16)

    @property
    def is_int(self) -> bool:
        return not self.is_float and self is not Scalar.BOOL

    @property
    def is_signed(self) -> bool:
        return self in (Scalar.I8, Scalar.I16, Scalar.I32, Scalar.I64) or self.is_float

    @property
    def short(self) -> str:
        """Name used by the MIR printer: i32, u8, f32, bool..."""
        return _SHORT[self]

    def __repr__(self) -> str:  # readable in error messages and dataclass reprs
        return self.value

    __str__ = __repr__


_NP_NAMES = {s: s.value for s in Scalar} | {Scalar.BF16: "uint16"}
_BITS = {Scalar.BOOL: 1, Scalar.I8: 8, Scalar.U8: 8, Scalar.I16: 16, Scalar.U16: 16,
         Scalar.I32: 32, Scalar.U32: 32, Scalar.I64: 64, Scalar.U64: 64, Scalar.F16: 16,
         Scalar.BF16: 16, Scalar.F32: 32, Scalar.F64: 64}
_SHORT = {Scalar.BOOL: "bool", Scalar.I8: "i8", Scalar.U8: "u8", Scalar.I16: "i16",
          Scalar.U16: "u16", Scalar.I32: "i32", Scalar.U32: "u32", Scalar.I64: "i64",
          Scalar.U64: "u64", Scalar.F16: "f16", Scalar.BF16: "bf16", Scalar.F32: "f32",
          Scalar.F64: "f64"}


# Composite types compare by structure: the name is how the user spelled it (vec3, vec3f).

@dataclass(frozen=True)
class VectorType:
    elem: Scalar
    n: int
    name: str = field(default="", compare=False)  # vec2, vec3, vec3d, spatial_vector, ...

    def __str__(self) -> str:
        return self.name or f"vec{self.n}{SUFFIX[self.elem]}"


@dataclass(frozen=True)
class MatrixType:
    elem: Scalar
    rows: int
    cols: int
    name: str = field(default="", compare=False)  # mat22, mat33, mat44, mat23d, ...

    def __str__(self) -> str:
        return self.name or f"mat{self.rows}{self.cols}{SUFFIX[self.elem]}"


@dataclass(frozen=True)
class QuatType:
    elem: Scalar
    name: str = field(default="quat", compare=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class TransformType:
    """Warp's rigid transform: a translation p (3 scalars) then a rotation q (x, y, z, w)."""
    elem: Scalar
    name: str = field(default="transform", compare=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class StructType:
    """A ``@simt.struct`` class: named fields of value, array or struct type. Two struct
    types are equal when they come from the same class (``key``)."""
    name: str
    key: str
    fields: tuple = field(default=(), compare=False)   # ((name, type), ...)
    error: str = field(default="", compare=False)      # why kernels cannot use it, if they cannot

    def __str__(self) -> str:
        return self.name

    def field_index(self, name: str) -> int:
        for k, (n, _) in enumerate(self.fields):
            if n == name:
                return k
        return -1


ValueType = Scalar | VectorType | MatrixType | QuatType | TransformType | StructType


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
class GenericType:
    """A type with something left open, fixed per call (funcs) or per launch (kernels):
    ``typing.Any`` (``kind`` "any"), Warp's ``Float``/``Int``/``Scalar`` ("float", "int",
    "scalar"), or a composite whose length or element type is open (``vector(Any, float)``:
    "vec" with ``n`` None and ``elem`` float32)."""
    kind: str = "any"
    elem: object = None            # Scalar or GenericType constraining the elements, or None
    n: int | None = None           # vector length
    rows: int | None = None
    cols: int | None = None

    def __str__(self) -> str:
        if self.kind == "any":
            return "Any"
        if self.kind in ("float", "int", "scalar"):
            return self.kind.capitalize()
        return f"{self.kind}({self.n or self.rows or 'Any'}, {self.elem or 'Any'})"

    def matches(self, t) -> bool:
        if self.kind == "any":
            return True
        if self.kind in ("float", "int", "scalar"):
            return isinstance(t, Scalar) and t is not Scalar.BOOL and (
                self.kind == "scalar" or (t.is_float if self.kind == "float" else t.is_int))
        kinds = {"vec": VectorType, "mat": MatrixType, "quat": QuatType, "transform": TransformType}
        if not isinstance(t, kinds[self.kind]):
            return False
        if self.elem is not None and not (t.elem is self.elem or (
                isinstance(self.elem, GenericType) and self.elem.matches(t.elem))):
            return False
        if self.kind == "vec" and self.n is not None and t.n != self.n:
            return False
        if self.kind == "mat" and ((self.rows is not None and t.rows != self.rows) or
                                   (self.cols is not None and t.cols != self.cols)):
            return False
        return True


ANY = GenericType()


@dataclass(frozen=True)
class RefType:
    """``wp.ref[T]`` on a device function's parameter: the argument (a variable, a field or an
    array element) receives the parameter's final value when the call returns."""
    value: object

    def __str__(self) -> str:
        return f"ref[{self.value}]"


@dataclass(frozen=True)
class VoidType:
    def __str__(self) -> str:
        return "None"


VOID = VoidType()
AnyType = ValueType | ArrayType | TupleType | VoidType | GenericType


def is_generic(t) -> bool:
    """Whether an annotation's type still has something open (``Any``, ``Float``...)."""
    if isinstance(t, GenericType):
        return True
    return isinstance(t, ArrayType) and isinstance(t.dtype, GenericType)


def generic_matches(annotated, t) -> bool:
    """Whether a value of type ``t`` fits a generic annotation."""
    if isinstance(annotated, ArrayType):
        return isinstance(t, ArrayType) and t.ndim == annotated.ndim and \
            annotated.dtype.matches(t.dtype)
    return annotated.matches(t) and not isinstance(t, ArrayType) or annotated.kind == "any"


def scalar_of(t: ValueType) -> Scalar:
    return t if isinstance(t, Scalar) else t.elem


def flat_count(t: ValueType) -> int:
    """Number of scalars a value of type ``t`` expands to in the MIR (for a struct: its
    slots, an array field counting as one)."""
    if isinstance(t, Scalar):
        return 1
    if isinstance(t, VectorType):
        return t.n
    if isinstance(t, MatrixType):
        return t.rows * t.cols
    if isinstance(t, QuatType):
        return 4
    if isinstance(t, TransformType):
        return 7
    if isinstance(t, StructType):
        return sum(1 if isinstance(ft, ArrayType) else flat_count(ft) for _, ft in t.fields)
    raise TypeError(f"{t} has no scalar expansion")


def flat_slots(t) -> list:
    """What each position of a value's flat expansion holds: a Scalar, or (struct fields)
    an ArrayType, whose position holds the array itself rather than a register."""
    if isinstance(t, StructType):
        return [s for _, ft in t.fields for s in ([ft] if isinstance(ft, ArrayType) else flat_slots(ft))]
    return [scalar_of(t)] * flat_count(t)


def field_offset(t: StructType, index: int) -> int:
    """Position of field ``index``'s first slot in the struct's flat expansion."""
    return sum(1 if isinstance(ft, ArrayType) else flat_count(ft) for _, ft in t.fields[:index])


def has_arrays(t) -> bool:
    return isinstance(t, StructType) and any(isinstance(s, ArrayType) for s in flat_slots(t))


def value_nbytes(t: ValueType) -> int:
    return flat_count(t) * scalar_of(t).nbytes


# Warp's type-name suffixes: vec3h, vec3s, vec3i, mat33d, quatd ...
SUFFIX = {Scalar.F16: "h", Scalar.BF16: "bf", Scalar.F32: "f", Scalar.F64: "d", Scalar.I8: "b", Scalar.U8: "ub",
          Scalar.I16: "s", Scalar.U16: "us", Scalar.I32: "i", Scalar.U32: "ui", Scalar.I64: "l",
          Scalar.U64: "ul", Scalar.BOOL: "bool"}

# The canonical composite types of the language (float32 unless suffixed).
vec2 = VectorType(Scalar.F32, 2, "vec2")
vec3 = VectorType(Scalar.F32, 3, "vec3")
vec4 = VectorType(Scalar.F32, 4, "vec4")
mat22 = MatrixType(Scalar.F32, 2, 2, "mat22")
mat33 = MatrixType(Scalar.F32, 3, 3, "mat33")
mat44 = MatrixType(Scalar.F32, 4, 4, "mat44")
quat = QuatType(Scalar.F32, "quat")
transform = TransformType(Scalar.F32, "transform")


def vector_type(elem: Scalar, n: int) -> VectorType:
    """The vector type with Warp's name: vec3 for float32 vec2-4, else vec<n><suffix>."""
    if elem is Scalar.F32 and n in (2, 3, 4):
        return (vec2, vec3, vec4)[n - 2]
    if n == 6 and elem in (Scalar.F16, Scalar.F32, Scalar.F64):
        return VectorType(elem, n, "spatial_vector" + ("" if elem is Scalar.F32 else SUFFIX[elem]))
    return VectorType(elem, n, f"vec{n}{SUFFIX[elem]}")


def matrix_type(elem: Scalar, rows: int, cols: int) -> MatrixType:
    if elem is Scalar.F32 and rows == cols and rows in (2, 3, 4):
        return (mat22, mat33, mat44)[rows - 2]
    if rows == cols == 6 and elem in (Scalar.F16, Scalar.F32, Scalar.F64):
        return MatrixType(elem, 6, 6, "spatial_matrix" + ("" if elem is Scalar.F32 else SUFFIX[elem]))
    return MatrixType(elem, rows, cols, f"mat{rows}{cols}{SUFFIX[elem]}")


def quat_type(elem: Scalar) -> QuatType:
    return quat if elem is Scalar.F32 else QuatType(elem, f"quat{SUFFIX[elem]}")


def transform_type(elem: Scalar) -> TransformType:
    return transform if elem is Scalar.F32 else TransformType(elem, f"transform{SUFFIX[elem]}")


COMPOSITES: dict[str, ValueType] = {t.name: t for t in (vec2, vec3, vec4, mat22, mat33, mat44, quat,
                                                         transform)}
SCALARS: dict[str, Scalar] = {s.value: s for s in Scalar}


_PY_TYPES = {float: Scalar.F32, int: Scalar.I32, bool: Scalar.BOOL}


def resolve_type(obj) -> AnyType | None:
    """The IR type a Python object names: ``float``, ``simt.float32`` (numpy's float32),
    ``simt.vec3``, an ``simt.array(dtype=...)`` annotation, ``typing.Any``, or an IR type
    itself. Warp's own type objects are understood too, so annotations that name them
    (``warp.types.vec3``) work unchanged."""
    if isinstance(obj, (Scalar, VectorType, MatrixType, QuatType, TransformType, StructType,
                        ArrayType, GenericType, RefType)):
        return obj
    if obj is typing.Any:
        return ANY
    try:
        if obj in _PY_TYPES:
            return _PY_TYPES[obj]
    except TypeError:   # unhashable
        return None
    t = getattr(obj, "_simt_type", None)
    if isinstance(t, StructType) and t.error:
        return None          # a struct with an unsupported field: not a type kernels can use
    if t is not None:
        return t
    foreign = _warp_type(obj)
    if foreign is not None:
        return foreign
    try:
        dt = np.dtype(obj)
    except TypeError:
        return None
    for s in Scalar:
        if s.np == dt and isinstance(obj, type) and issubclass(obj, np.generic):
            return s
    return None


def _warp_type(obj) -> AnyType | None:
    """The IR type of one of warp-lang's type objects (read by attribute, never imported)."""
    generic = getattr(obj, "_wp_generic_type_str_", None)
    params = getattr(obj, "_wp_type_params_", None)
    if generic is not None and params is not None:
        elem = resolve_type(params[-1])
        if not isinstance(elem, Scalar):
            return None
        if generic == "vec_t":
            return vector_type(elem, int(params[0]))
        if generic == "mat_t":
            return matrix_type(elem, int(params[0]), int(params[1]))
        if generic == "quat_t":
            return quat_type(elem)
        if generic == "transform_t":
            return transform_type(elem)
        return None
    if isinstance(obj, type) and getattr(obj, "__module__", "").startswith("warp.") and \
            hasattr(obj, "_type_"):
        name = obj.__name__
        return SCALARS.get(name) or {"bool": Scalar.BOOL}.get(name)
    dtype, ndim = getattr(obj, "dtype", None), getattr(obj, "ndim", None)
    if type(obj).__name__ in ("_ArrayAnnotation", "array") and isinstance(ndim, int):
        inner = resolve_type(dtype)
        if inner is not None:
            return ArrayType(inner, ndim)
    return None
