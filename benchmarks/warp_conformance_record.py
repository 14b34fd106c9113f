"""Recording half of the Warp conformance run (see warp_conformance.py).

Runs one of warp-lang's own test files on Warp's CPU device with ``warp.launch`` wrapped:
every launch of a kernel defined at module level in that file is recorded with its
launch shape, a copy of every argument before the launch and of every array after it.
The records are pickled, so the simt half can replay the very same launches.

Run as ``python benchmarks/warp_conformance_record.py MODULE OUT.pkl``; it runs in a
process of its own per test file, so a crash or a hang in one file costs only that file.
"""
from __future__ import annotations

import importlib
import io
import pickle
import sys
import unittest

import numpy as np

MAX_LAUNCHES_PER_KERNEL = 4
MAX_ELEMENTS = 1 << 20          # launches touching bigger arrays are not kept


class Unsupported(Exception):
    """An argument the replay cannot reproduce (strided views, indexed arrays, ...)."""


def describe_type(wp, t):
    """A plain description of a Warp dtype, independent of either library's objects."""
    T = wp._src.types
    if t in (int, float, bool):
        return ("scalar", {int: "int32", float: "float32", bool: "bool"}[t])
    if isinstance(t, wp._src.codegen.Struct):
        fields = tuple((name, describe_field(wp, var.type)) for name, var in t.vars.items())
        return ("struct", t.key, fields)
    if T.type_is_transformation(t):
        return ("transform", T.type_repr(t._wp_scalar_type_))
    if T.type_is_quaternion(t):
        return ("quat", T.type_repr(t._wp_scalar_type_))
    if T.type_is_matrix(t):
        return ("mat", t._shape_[0], t._shape_[1], T.type_repr(t._wp_scalar_type_))
    if T.type_is_vector(t):
        return ("vec", t._length_, T.type_repr(t._wp_scalar_type_))
    if t in T.scalar_types or t is T.bool:
        return ("scalar", T.type_repr(t))
    raise Unsupported(f"dtype {t!r}")


def describe_field(wp, t):
    plain_array = isinstance(t, wp._src.types.array) or type(t).__name__ == "_ArrayAnnotation"
    if plain_array and isinstance(getattr(t, "ndim", None), int) and type(t).__name__ in (
            "array", "_ArrayAnnotation"):
        return ("array", t.ndim, describe_type(wp, t.dtype))
    if wp._src.types.is_array(t):
        raise Unsupported(f"struct field of type {t!r}")
    return describe_type(wp, t)


def snapshot(wp, value):
    """A picklable copy of one launch argument."""
    T = wp._src.types
    if isinstance(value, T.array):
        if type(value) is not T.array:
            raise Unsupported(f"{type(value).__name__} argument")
        if value.size > MAX_ELEMENTS:
            raise Unsupported("array larger than the recording limit")
        if not value.is_contiguous:
            raise Unsupported("non-contiguous array")
        if value.ptr is None and value.size == 0:
            return ("array", describe_type(wp, value.dtype), np.zeros(value.shape), value.ndim)
        data = np.array(value.numpy(), copy=True)
        return ("array", describe_type(wp, value.dtype), data, value.ndim)
    if isinstance(value, wp._src.codegen.StructInstance):
        cls = value._cls
        fields = {name: snapshot(wp, getattr(value, name)) if getattr(value, name) is not None
                  else ("none",) for name in cls.vars}
        return ("struct", describe_type(wp, cls), fields)
    if value is None:
        return ("none",)
    if isinstance(value, (bool, int, float)):
        return ("py", value)
    if isinstance(value, np.generic):
        return ("np", value)
    t = type(value)
    if T.type_is_vector(t) or T.type_is_matrix(t) or T.type_is_quaternion(t) or \
            T.type_is_transformation(t):
        return ("value", describe_type(wp, t), np.array(value, copy=True))
    if t in T.scalar_types or t is T.bool:
        return ("value", describe_type(wp, t), np.array(value.value))
    raise Unsupported(f"argument of type {t.__name__}")


def arrays_after(wp, args):
    out = []
    for value in args:
        if isinstance(value, wp._src.types.array):
            out.append(np.array(value.numpy(), copy=True))
        elif isinstance(value, wp._src.codegen.StructInstance):
            out.append({name: np.array(getattr(value, name).numpy(), copy=True)
                        for name in value._cls.vars
                        if isinstance(getattr(value, name), wp._src.types.array)})
        else:
            out.append(None)
    return out


def record_module(module_name: str) -> dict:
    import warp as wp
    wp.config.quiet = True
    wp.init()
    module = importlib.import_module(module_name)
    records: dict[str, list] = {}
    unsupported: dict[str, str] = {}
    real_launch = wp.launch

    def is_own_kernel(kernel) -> bool:
        f = getattr(kernel, "func", None)
        return (f is not None and f.__module__ == module_name and "<locals>" not in f.__qualname__
                and getattr(module, f.__name__, None) is kernel)

    def launch(kernel, dim=None, inputs=(), outputs=(), *args, **kwargs):
        if not is_own_kernel(kernel) or kwargs.get("adjoint") or kwargs.get("record_cmd") or args:
            return real_launch(kernel, dim, inputs, outputs, *args, **kwargs)
        name = kernel.func.__name__
        values = list(inputs or []) + list(outputs or [])
        entry = None
        if len(records.get(name, [])) < MAX_LAUNCHES_PER_KERNEL:
            try:
                before = [snapshot(wp, v) for v in values]
                entry = {"dim": dim, "block_dim": kwargs.get("block_dim"), "before": before}
            except Unsupported as e:
                unsupported.setdefault(name, str(e))
        result = real_launch(kernel, dim, inputs, outputs, *args, **kwargs)
        if entry is not None:
            wp.synchronize()
            entry["after"] = arrays_after(wp, values)
            records.setdefault(name, []).append(entry)
        return result

    wp.launch = launch
    try:
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
        cpu_only = unittest.TestSuite(t for t in _flatten(suite) if t.id().endswith("_cpu"))
        # Warp's test wrapper captures output at the file-descriptor level: leave stdout alone
        # (the caller runs this file with its output discarded).
        unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(cpu_only)
    finally:
        wp.launch = real_launch
    kernels = sorted(name for name, obj in vars(module).items()
                     if isinstance(obj, wp.Kernel) and is_own_kernel(obj))
    return {"module": module_name, "kernels": kernels, "records": records,
            "unsupported": unsupported}


def _flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flatten(t)
        else:
            yield t


def main() -> None:
    module_name, out = sys.argv[1], sys.argv[2]
    result = record_module(module_name)
    with open(out, "wb") as f:
        pickle.dump(result, f)


if __name__ == "__main__":
    main()
