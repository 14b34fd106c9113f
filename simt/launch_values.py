"""Launch arguments beyond plain scalars, composites and arrays: the concrete type of an
argument bound to a generic (``Any``) parameter, and ``@simt.struct`` instances, which
the compiled kernel receives field by field (scalars in registers, arrays as arrays)."""
from __future__ import annotations

import numpy as np

from .arrays import allocation_of, array
from .errors import LaunchError
from .ir import types as ir
from .ir.types import ArrayType, Scalar, StructType


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
    tagged = getattr(value, "_simt_value_type", None)     # simt.vec3(...) and friends
    if tagged is not None:
        return tagged
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
    if t is None:
        raise LaunchError(f"{where} is generic ({annotated}), and {type(value).__name__} "
                          f"{value!r} has no kernel type to give it")
    if not ir.generic_matches(annotated, t):
        raise LaunchError(f"{where}: expected {annotated}, got {t}")
    return t


class Bound(list):
    """The engine arguments one kernel argument becomes, and what to do after the launch
    (copy the fields of an array of structs back into it).

    ``arrays`` pairs each user array with the engine arguments that carry it, as
    (ArrayArg, scalars per element): None where the ArrayArg views the array's own memory,
    a count where it holds a copy of one struct field (initcheck maps its records through)."""

    def __init__(self, items=(), write_backs=(), arrays=()):
        super().__init__(items)
        self.write_backs = list(write_backs)
        self.arrays = list(arrays)

    def extend_bound(self, other: "Bound") -> None:
        self.extend(other)
        self.write_backs.extend(other.write_backs)
        self.arrays.extend(other.arrays)


def convert_struct(kernel_name: str, name: str, st: StructType, value, device) -> Bound:
    """A struct argument as its flat slots, in the order of the compiled kernel's parameters:
    numpy scalars for scalar slots, ArrayArg for array fields."""
    where = f"kernel '{kernel_name}', parameter '{name}'"
    if getattr(type(value), "_simt_type", None) != st:
        raise LaunchError(f"{where}: expected a {st.name} struct, got {type(value).__name__}")
    out = Bound()
    for field, t in st.fields:
        v = getattr(value, field)
        path = f"{name}.{field}"
        if isinstance(t, StructType):
            out.extend_bound(convert_struct(kernel_name, path, t, v, device))
        elif isinstance(t, ArrayType):
            if v is None:
                raise LaunchError(f"kernel '{kernel_name}': struct field '{path}' holds no array; "
                                  f"assign one before the launch")
            if v.device.memory_space != device.memory_space:
                raise LaunchError(f"kernel '{kernel_name}': the array in '{path}' is on "
                                  f"'{v.device}' but the launch is on '{device}'")
            out.extend_bound(array_arguments(path, v))
        else:
            scalar = ir.scalar_of(t)
            out.extend(np.asarray(v, dtype=scalar.np).reshape(-1)[k] for k in range(ir.flat_count(t)))
    return out


def array_arguments(name: str, value: array) -> Bound:
    """An array argument: one ArrayArg, or for an array of structs one per leaf field (each a
    contiguous copy of that field, copied back after the launch)."""
    from .ir.lower_memory import struct_leaves
    from .sim.common import ArrayArg
    st = value._ir_dtype
    if not isinstance(st, StructType):
        arg = ArrayArg(value.flat_scalars(), value.shape, value.ptr, name,
                       allocation=allocation_of(value.ptr) if value._gpu is None else None)
        return Bound([arg], arrays=[(value, [(arg, None)])])
    host = value._launch_read()
    temps = []
    for path, leaf in struct_leaves(st):
        data = host
        for part in path.split("."):
            data = data[part]
        temps.append((path, array(np.ascontiguousarray(data), dtype=leaf, device=value.device)))

    def write_back() -> None:
        out = value._launch_read()
        for path, tmp in temps:
            *parents, last = path.split(".")
            target = out
            for part in parents:
                target = target[part]
            target[last] = tmp._launch_read().reshape(target[last].shape)
        value._launch_write(out)

    args = [ArrayArg(t.flat_scalars(), value.shape, t.ptr, f"{name}.{p}", allocation=t.ptr)
            for p, t in temps]
    per_element = [t.flat_scalars().size // max(1, value.size) for _, t in temps]
    return Bound(args, [write_back], [(value, list(zip(args, per_element)))])
