"""Builtins called on the host (``wp.normalize(v)``, ``wp.quat_from_axis_angle(axis, angle)``),
as Warp allows: each call runs the builtin in a one-thread kernel on the precise engine, so the
host gets the very bits a kernel would compute.

A kernel per builtin and argument count is written once per process (kernels are read from
source files) and specialised per argument types like any generic kernel.
"""
from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from pathlib import Path

import numpy as np

from .errors import SimtError
from .source_module import module_from_source

_lock = threading.Lock()
_dir: Path | None = None
_kernels: dict[tuple, object] = {}

# launch-time forms and builtins with effects: they mean nothing outside a kernel
KERNEL_ONLY = frozenset(("tid", "thread_idx", "block_idx", "block_dim", "grid_dim", "lane_id",
                         "warp_id", "clock", "sync_threads", "block_until", "shared_array",
                         "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_cas",
                         "atomic_exch", "atomic_and", "atomic_or", "atomic_xor", "printf", "print",
                         "expect_eq", "expect_neq", "expect_near"))


def call(name: str, args: tuple, kwargs: dict):
    """``simt.<name>(*args, **kwargs)`` evaluated on the host."""
    if name in KERNEL_ONLY:
        raise RuntimeError(f"simt.{name}() can only be called inside a @simt.kernel or @simt.func")
    from .arrays import array
    values = list(args) + list(kwargs.values())
    for v in values:
        if isinstance(v, array) or not _is_value(v):
            raise SimtError(f"simt.{name}() on the host takes numbers, vectors, matrices, "
                            f"quaternions and transforms, got {type(v).__name__}")
    kernel = _kernel(name, len(args), tuple(kwargs))
    inputs = [_as_array(v) for v in values]
    import simt
    out_dtype = _result_type(name, inputs)
    out = simt.zeros(1, dtype=out_dtype, device="cpu")
    simt.launch(kernel, 1, inputs + [out], device="cpu:precise")
    value = out.numpy()[0]
    if isinstance(value, np.ndarray):
        from .types import CompositeValue
        v = np.array(value).view(CompositeValue)
        v._simt_value_type = out._ir_dtype
        return v
    return value.item() if hasattr(value, "item") else value


def _is_value(v) -> bool:
    return isinstance(v, (bool, int, float, np.generic, np.ndarray))


def _as_array(v):
    import simt
    from .types import CompositeValue, public_type
    if isinstance(v, CompositeValue) and v._simt_value_type is not None:
        return simt.array(np.asarray(v)[None], dtype=public_type(v._simt_value_type), device="cpu")
    if isinstance(v, (bool, np.bool_)):
        return simt.array(np.array([bool(v)]), dtype=simt.bool, device="cpu")
    if isinstance(v, int):
        return simt.array(np.array([v], dtype=np.int32), device="cpu")
    if isinstance(v, float):
        return simt.array(np.array([v], dtype=np.float32), device="cpu")
    if isinstance(v, np.generic):
        return simt.array(np.array([v]), device="cpu")
    raise SimtError(f"a host call cannot take a {type(v).__name__} (a numpy array is not a "
                    f"simt vector: build one with simt.vec3(...) and friends)")


def _result_type(name: str, inputs: list):
    from .ir.registry import BuiltinTypeError, lookup
    from .types import public_type
    builtin = lookup(name)
    if builtin is None:
        raise SimtError(f"simt.{name}() cannot be evaluated on the host (it is written in the "
                        f"kernel language); call it inside a @simt.kernel or @simt.func")
    try:
        return public_type(builtin.infer([a._ir_dtype for a in inputs]))
    except BuiltinTypeError as e:
        raise SimtError(f"simt.{name}({', '.join(str(a._ir_dtype) for a in inputs)}): {e}") from None


def _kernel(name: str, nargs: int, keywords: tuple):
    global _dir
    key = (name, nargs, keywords)
    with _lock:
        k = _kernels.get(key)
        if k is not None:
            return k
        if _dir is None:
            _dir = Path(tempfile.mkdtemp(prefix="simt-host-calls-"))
            atexit.register(shutil.rmtree, _dir, True)     # the process's generated kernels
        params = [f"a{i}" for i in range(nargs)] + list(keywords)
        call_args = [f"a{i}[0]" for i in range(nargs)] + [f"{kw}={kw}[0]" for kw in keywords]
        module = f"simt_host_call_{name}_{nargs}_{'_'.join(keywords)}"
        source = (
            "from typing import Any\n\nimport simt as wp\n\n\n"
            "@wp.kernel(module_options={'timing': False})\n"
            f"def host_{name}({', '.join(f'{p}: wp.array(dtype=Any)' for p in params + ['out'])}):\n"
            f"    out[0] = wp.{name}({', '.join(call_args)})\n")
        mod = module_from_source(module, source, _dir)
        k = _kernels[key] = getattr(mod, f"host_{name}")
        return k
