"""Launch arguments: each checked against its parameter and converted to what the engines
take (scalars, composites, arrays), the concrete type of an argument bound to a generic
(``Any``) parameter, and ``@simt.struct`` instances, which the compiled kernel receives
field by field (scalars in registers, arrays as arrays)."""
from __future__ import annotations

import numpy as np

from .arrays import array
from .devices import Device
from .errors import LaunchError
from .ir import types as ir
from .ir.types import ArrayType, Scalar, StructType, ValueType, flat_count, scalar_of


def _describe(value) -> str:
    if isinstance(value, array):
        if value.is_annotation:
            return "an array annotation (simt.array(dtype=...)) instead of an array with data"
        return f"array({value._ir_dtype}, {value.ndim}d) on '{value.device}'"
    if isinstance(value, np.ndarray):
        return f"a numpy array of {value.dtype} with shape {value.shape}"
    return f"{type(value).__name__} {value!r}"


def _param_name(kernel, name: str) -> str:
    return f"kernel '{kernel.key}', parameter '{name}'"


def check_array(kernel, name: str, expected: ArrayType, value, device: Device) -> array:
    where = _param_name(kernel, name)
    if value is None:           # Warp's null array: no elements (any access is out of bounds)
        return array(shape=(0,) * expected.ndim, dtype=expected.dtype, device=device)
    if isinstance(value, np.ndarray):
        raise LaunchError(f"{where}: expected {expected}, got {_describe(value)}; "
                          f"wrap it with simt.array(...)")
    if not isinstance(value, array) or value.is_annotation:
        raise LaunchError(f"{where}: expected {expected}, got {_describe(value)}")
    if value._ir_dtype != expected.dtype:
        raise LaunchError(f"{where}: expected an array of {expected.dtype}, got an array of "
                          f"{value._ir_dtype}; convert it with simt.array(x, dtype=...)")
    if value.ndim != expected.ndim:
        raise LaunchError(f"{where}: expected a {expected.ndim}-d array, got a {value.ndim}-d array "
                          f"of shape {value.shape}")
    if value.device.memory_space != device.memory_space:
        raise LaunchError(f"{where}: the array is on '{value.device}' but the launch is on "
                          f"'{device}'; copy it with .to('{device}')")
    return value


def convert_scalar(kernel, name: str, expected: Scalar, value) -> np.generic:
    """``value`` as a numpy scalar of ``expected``, if it represents exactly that kind of value."""
    where = _param_name(kernel, name)
    if isinstance(value, (array, list, tuple)) or (isinstance(value, np.ndarray) and value.ndim != 0):
        raise LaunchError(f"{where}: expected a {expected} scalar, got {_describe(value)}")
    if isinstance(value, np.ndarray):
        value = value[()]
    is_bool = isinstance(value, (bool, np.bool_))
    is_int = isinstance(value, (int, np.integer)) and not is_bool
    is_float = isinstance(value, (float, np.floating))
    if not (is_bool or is_int or is_float):
        raise LaunchError(f"{where}: expected a {expected} scalar, got {_describe(value)}")
    if expected is Scalar.BOOL:
        if is_float or (is_int and value not in (0, 1)):
            raise LaunchError(f"{where}: expected a bool, got {_describe(value)}")
        return np.bool_(bool(value))
    if expected is Scalar.BF16:                 # passed as its bits
        from .ir.bfloat16 import to_bits
        return np.uint16(to_bits(float(value)))
    if expected.is_float:
        try:
            with np.errstate(over="ignore"):
                out = expected.np.type(value)
        except OverflowError:
            out = expected.np.type(np.inf)
        if np.isinf(out) and not (is_float and np.isinf(value)):
            raise LaunchError(f"{where}: {value!r} is out of the range of {expected}")
        return out
    if is_float:
        raise LaunchError(f"{where}: expected {expected}, got {_describe(value)}; "
                          f"integer parameters take ints")
    info = np.iinfo(expected.np)
    if not info.min <= int(value) <= info.max:
        raise LaunchError(f"{where}: {int(value)} is out of the range of {expected} "
                          f"[{info.min}, {info.max}]")
    return expected.np.type(int(value))


def convert_composite(kernel, name: str, expected: ValueType, value) -> list[np.generic]:
    """A vector/matrix/quaternion argument as its flattened (row-major) scalars."""
    where = _param_name(kernel, name)
    count = flat_count(expected)
    if isinstance(value, array) or not isinstance(value, (tuple, list, np.ndarray)):
        raise LaunchError(f"{where}: expected a {expected} (a tuple or numpy array of {count} "
                          f"numbers), got {_describe(value)}")
    try:
        flat = np.asarray(value).reshape(-1)
    except ValueError:
        flat = np.empty(0)
    if flat.size != count or flat.dtype == object:
        raise LaunchError(f"{where}: expected a {expected} of {count} numbers, got {_describe(value)}")
    scalar = scalar_of(expected)
    return [convert_scalar(kernel, f"{name}[{i}]", scalar, v.item()) for i, v in enumerate(flat)]


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
                       allocation=value._allocation if value._gpu is None else None)
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
