"""``@simt.struct``: Warp's structs, user classes of named, typed fields.

The decorator turns the annotated class into a struct type: its ``_simt_type`` is the IR
``StructType`` the front end compiles against, and its instances are host values whose
fields keep the field types (numpy scalars, numpy arrays for vectors and matrices,
``simt.array`` or None for array fields, nested struct instances). Assigning a field
converts the value, as Warp does. In kernels a struct is a value: fields are read and
written with ``s.field``, ``S()`` is the zero struct and ``S(a, b, ...)`` builds one.

Arrays of structs keep their elements as a numpy structured array (``numpy_dtype()``).
"""
from __future__ import annotations

import itertools
import sys

import numpy as np

from . import types as user_types
from .errors import SimtError
from .ir import types as ir
from .ir.types import ArrayType, Scalar, StructType

_serial = itertools.count()


def struct(cls):
    """Decorator: a Warp-style struct type from a class with annotated fields."""
    hints = _field_annotations(cls)
    fields = []
    error = ""
    for name, annotation in hints.items():
        t = ir.resolve_type(annotation)
        if t is None or ir.is_generic(t) or not (isinstance(t, ArrayType) or _is_value(t)):
            # the class still loads; kernels that use it get a CompileError saying why
            error = error or f"field {name!r} has an unsupported type {annotation!r}"
            continue
        fields.append((name, t))
    key = f"{cls.__module__}.{cls.__qualname__}#{next(_serial)}"
    st = StructType(cls.__name__, key, tuple(fields), error)
    namespace = {"_simt_type": st, "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                 "__doc__": cls.__doc__, "vars": dict(fields)}
    out = type(cls.__name__, (StructInstance,), namespace)
    user_types._STRUCT_CLASSES[key] = out
    return out


def _field_annotations(cls) -> dict:
    raw = dict(cls.__dict__.get("__annotations__", {}))
    module = sys.modules.get(cls.__module__)
    scope = dict(vars(module)) if module is not None else {}
    out = {}
    for name, ann in raw.items():
        if isinstance(ann, str):       # from __future__ import annotations
            ann = eval(ann, scope, dict(vars(cls)))  # noqa: S307 - the user's own annotation
        out[name] = ann
    return out


def _is_value(t) -> bool:
    return isinstance(t, (Scalar, ir.VectorType, ir.MatrixType, ir.QuatType, ir.TransformType,
                          StructType))


class StructInstance:
    """A host value of a struct type: fields are attributes with the field's type."""

    _simt_type: StructType

    def __init__(self, *args, **kwargs):
        fields = self._simt_type.fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes at most {len(fields)} field values")
        for name, t in fields:
            object.__setattr__(self, name, _default(t))
        for (name, _), value in zip(fields, args):
            setattr(self, name, value)
        for name, value in kwargs.items():
            setattr(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        t = dict(self._simt_type.fields).get(name)
        if t is None:
            raise AttributeError(f"struct {type(self).__name__} has no field {name!r}")
        object.__setattr__(self, name, _convert(t, value, f"{type(self).__name__}.{name}"))

    def __repr__(self) -> str:
        body = ", ".join(f"{n}={getattr(self, n)!r}" for n, _ in self._simt_type.fields)
        return f"{type(self).__name__}({body})"

    @classmethod
    def numpy_dtype(cls) -> np.dtype:
        """The numpy structured dtype of one element of an array of this struct."""
        return struct_numpy_dtype(cls._simt_type)

    def numpy_value(self) -> tuple:
        return tuple(_numpy_field(t, getattr(self, n)) for n, t in self._simt_type.fields)

    def assign(self, other) -> None:
        for name, _ in self._simt_type.fields:
            setattr(self, name, getattr(other, name))

    def to(self, device):
        out = type(self)()
        for name, t in self._simt_type.fields:
            value = getattr(self, name)
            setattr(out, name, value.to(device) if isinstance(t, ArrayType) and value is not None
                    else value)
        return out


def struct_numpy_dtype(st: StructType) -> np.dtype:
    parts = []
    for name, t in st.fields:
        if isinstance(t, ArrayType):
            raise SimtError(f"struct {st.name} holds an array ({name!r}): simt does not support "
                            f"arrays of such structs (pass the array as its own kernel argument)")
        if isinstance(t, StructType):
            parts.append((name, struct_numpy_dtype(t)))
        else:
            parts.append((name, ir.scalar_of(t).np, user_types.component_shape(t)))
    return np.dtype(parts)


def _numpy_field(t, value):
    if isinstance(t, StructType):
        return value.numpy_value()
    return value


def _default(t):
    if isinstance(t, ArrayType):
        return None
    if isinstance(t, StructType):
        return user_types.public_type(t)()
    if isinstance(t, Scalar):
        return t.np.type(0)
    return user_types.public_type(t)()


def _convert(t, value, what: str):
    from .arrays import array
    if isinstance(t, ArrayType):
        if value is None:
            return None
        if not isinstance(value, array) or value.is_annotation:
            raise TypeError(f"{what} takes a simt.array of {t.dtype}, got {type(value).__name__}")
        if value._ir_dtype != t.dtype or value.ndim != t.ndim:
            raise TypeError(f"{what} takes a {t.ndim}-d array of {t.dtype}, got a {value.ndim}-d "
                            f"array of {value._ir_dtype}")
        return value
    if isinstance(t, StructType):
        if getattr(type(value), "_simt_type", None) != t:
            raise TypeError(f"{what} takes a {t.name}, got {type(value).__name__}")
        copy = type(value)()
        copy.assign(value)
        return copy
    if isinstance(t, Scalar):
        if t is Scalar.BOOL:
            return np.bool_(bool(value))
        if t is Scalar.BF16:
            from .ir.bfloat16 import to_bits
            return np.uint16(to_bits(float(value)))
        with np.errstate(over="ignore"):
            return t.np.type(value.item() if isinstance(value, np.ndarray) else value)
    data = np.asarray(value, dtype=ir.scalar_of(t).np)
    shape = user_types.component_shape(t)
    if data.ndim == 0:
        data = np.full(shape, data)                     # a number fills every component
    if data.size != int(np.prod(shape)):
        raise TypeError(f"{what} takes a {t} ({int(np.prod(shape))} numbers), got {value!r}")
    return user_types.public_type(t)(data.reshape(-1))


__all__ = ["struct", "StructInstance", "struct_numpy_dtype"]
