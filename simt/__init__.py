"""simt: a cycle-approximate SIMT GPU simulator with a Warp-compatible kernel language.

``import simt as wp`` runs NVIDIA Warp kernels: the names below follow warp-lang 1.19.
"""
from __future__ import annotations

__version__ = "0.1.0"

from importlib import import_module as _import_module

from .errors import (BarrierDivergenceError, CompileError, DeviceError, HazardError,
                     KernelRuntimeError, LaunchError, MetricUnavailableError, OutOfBoundsError,
                     SimtError, StepLimitError, WarpSyncError)
from .types import (float32, float64, int8, uint8, int32, uint32, int64, uint64,
                    vec2, vec3, vec4, mat22, mat33, mat44, quat,
                    vec2f, vec3f, vec4f, mat22f, mat33f, mat44f, quatf,
                    vec2d, vec3d, vec4d, mat22d, mat33d, mat44d, quatd,
                    vec2i, vec3i, vec4i, vec2ui, vec3ui, vec4ui, vec2l, vec3l, vec4l,
                    vec2ul, vec3ul, vec4ul, vec2b, vec3b, vec4b, vec2ub, vec3ub, vec4ub,
                    vector, matrix, quaternion)
from .arrays import (array, array1d, array2d, array3d, array4d, zeros, zeros_like, empty,
                     empty_like, full, full_like, ones, ones_like, clone, copy, from_numpy)
from .devices import (Device, ScopedDevice, get_device, set_device, get_devices,
                      get_preferred_device, get_cuda_device_count, is_cuda_available,
                      is_cpu_available, synchronize, synchronize_device, init)
from .options import config, get_module_options, set_module_options
from .kernel import Func, Kernel, constant, func, kernel, mir, ptx, ptxas_info
from .launch import launch
from .sim.common import LaunchResult
from .ir.registry import REGISTRY as _REGISTRY, BuiltinFunction as _BuiltinFunction

try:  # registering the builtins fills _REGISTRY; absent while the library is being built
    _import_module(f"{__name__}.ir.builtins")
except ModuleNotFoundError as _e:  # pragma: no cover - only while simt.ir.builtins does not exist
    if _e.name != f"{__name__}.ir.builtins":
        raise


class _Shared:
    """``simt.shared.array(shape=..., dtype=...)``: a block's shared-memory array (in kernels)."""

    array = _BuiltinFunction("shared_array")

    def __repr__(self) -> str:
        return "<simt shared memory>"


shared = _Shared()

# Execution-model queries and atomics the front end lowers itself, found by name.
_SPECIAL_FORMS = ("tid", "thread_idx", "block_idx", "block_dim", "grid_dim", "lane_id", "warp_id",
                  "sync_threads", "block_until", "clock", "atomic_add", "atomic_sub", "atomic_min",
                  "atomic_max", "atomic_cas", "atomic_exch")


def _export_builtins(namespace: dict) -> None:
    """``simt.<name>`` for every special form and registry builtin not already a type or API name."""
    for name in (*_SPECIAL_FORMS, *sorted(_REGISTRY)):
        if not name.startswith("_") and name not in namespace:
            namespace[name] = _BuiltinFunction(name)


_export_builtins(globals())

# Last, because it shadows the Python builtin in this module: simt.bool is the kernel bool type.
from .types import bool  # noqa: E402,A004
