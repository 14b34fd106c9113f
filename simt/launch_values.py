"""Launch arguments beyond plain scalars, composites and arrays: the concrete type of an
argument bound to a generic (``Any``) parameter, and ``@simt.struct`` instances, which
the compiled kernel receives field by field (scalars in registers, arrays as arrays)."""
from __future__ import annotations

import numpy as np

from .arrays import array
from .errors import LaunchError
from .ir import types as ir
from .ir.types import ANY, ArrayType, Scalar, StructType


def value_type(value) -> ir.AnyType | None:
    """The type an argument brings to a generic parameter, or None when it has none."""
    if isinstance(value, array):
        return None if value.is_annotation else ArrayType(value._ir_dtype, value.ndim)
    st = getattr(type(value), "_simt_type", None)
    if isinstance(st, StructType):
        return st
    if isinstance(value, (bool, np.bool_)):
        return Scalar.BOOL
    if isinstance(value, int):
        return Scalar.I32
    if isinstance(value, float):
        return Scalar.F32
    if isinstance(value, np.generic):
        t = ir.resolve_type(type(value))
        return t if isinstance(t, Scalar) else None
    foreign = ir.resolve_type(type(value))          # a value of one of Warp's own types
    if foreign is not None and ir.flat_count(foreign) == np.asarray(value).size:
        return foreign
    if isinstance(value, (np.ndarray, tuple, list)):
        data = np.asarray(value)
        if data.dtype == object or data.ndim not in (1, 2):
            return None
        t = ir.resolve_type(data.dtype.type if data.dtype != np.float64 else np.float32)
        if not isinstance(t, Scalar):
            return None
        return ir.vector_type(t, data.shape[0]) if data.ndim == 1 else \
            ir.matrix_type(t, data.shape[0], data.shape[1])
    return None


def specialize(kernel_name: str, name: str, annotated, value):
    """The concrete type of ``value`` for a parameter annotated ``Any`` or ``array(dtype=Any)``."""
    where = f"kernel '{kernel_name}', parameter '{name}'"
    t = value_type(value)
    if annotated is ANY:
        if t is None:
            raise LaunchError(f"{where} is generic (Any), and {type(value).__name__} {value!r} has "
                              f"no kernel type to give it")
        return t
    if not isinstance(t, ArrayType):
        raise LaunchError(f"{where}: expected an array (array(dtype=Any, ndim={annotated.ndim})), "
                          f"got {type(value).__name__}")
    if t.ndim != annotated.ndim:
        raise LaunchError(f"{where}: expected a {annotated.ndim}-d array, got a {t.ndim}-d array")
    return t


def convert_struct(kernel_name: str, name: str, st: StructType, value, device) -> list:
    """A struct argument as its flat slots, in the order of the compiled kernel's parameters:
    numpy scalars for scalar slots, ArrayArg for array fields."""
    from .sim.common import ArrayArg
    where = f"kernel '{kernel_name}', parameter '{name}'"
    if getattr(type(value), "_simt_type", None) != st:
        raise LaunchError(f"{where}: expected a {st.name} struct, got {type(value).__name__}")
    out: list = []
    for field, t in st.fields:
        v = getattr(value, field)
        path = f"{name}.{field}"
        if isinstance(t, StructType):
            out.extend(convert_struct(kernel_name, path, t, v, device))
        elif isinstance(t, ArrayType):
            if v is None:
                raise LaunchError(f"kernel '{kernel_name}': struct field '{path}' holds no array; "
                                  f"assign one before the launch")
            if v.device.memory_space != device.memory_space:
                raise LaunchError(f"kernel '{kernel_name}': the array in '{path}' is on "
                                  f"'{v.device}' but the launch is on '{device}'")
            out.append(ArrayArg(v.flat_scalars(), v.shape, v.ptr, path))
        else:
            scalar = ir.scalar_of(t)
            out.extend(np.asarray(v, dtype=scalar.np).reshape(-1)[k] for k in range(ir.flat_count(t)))
    return out
