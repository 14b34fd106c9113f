"""simt: a cycle-approximate SIMT GPU simulator with a Warp-compatible kernel language.

``import simt as wp`` runs NVIDIA Warp kernels: the names below follow warp-lang 1.19.
"""
from __future__ import annotations

__version__ = "0.1.0"

from importlib import import_module as _import_module

from .errors import (BarrierDivergenceError, CompileError, DeviceError, HazardError,
                     KernelRuntimeError, LaunchError, LaunchWarning, MetricUnavailableError, OutOfBoundsError,
                     SimtError, StepLimitError, WarpSyncError)
from . import types as _types
from .types import vector, matrix, quaternion, transformation, Float, Int
from .types import Scalar_ as Scalar, ref

globals().update({_name: getattr(_types, _name) for _name in _types.TYPE_NAMES})
from .arrays import (array, array1d, array2d, array3d, array4d, zeros, zeros_like, empty,
                     empty_like, full, full_like, ones, ones_like, clone, copy, from_numpy)
from .devices import (Device, ScopedDevice, get_device, set_device, get_devices,
                      get_preferred_device, get_cuda_device_count, is_cuda_available,
                      is_cpu_available, synchronize, synchronize_device, init)
from .options import ScopedModuleOptions, config, get_module_options, set_module_options
from .kernel import Func, Function, Kernel, constant, func, kernel, mir, ptx, ptxas_info, static
from .structs import struct
from .kernel import sass
from .warp_compat import (Module, dtype_from_numpy, dtype_to_numpy, func_grad, func_native,
                          func_replay, get_module, overload)

# Warp's math constants (Python floats: in kernels they are literals, float32 unless the
# other operand makes them float64).
import math as _math
e = E = _math.e
pi = PI = _math.pi
half_pi = HALF_PI = _math.pi / 2
tau = TAU = _math.tau
inf = INF = _math.inf
nan = NAN = _math.nan
phi = PHI = (1 + _math.sqrt(5)) / 2
ln2 = LN2 = _math.log(2)
ln10 = LN10 = _math.log(10)
log2e = LOG2E = _math.log2(_math.e)
log10e = LOG10E = _math.log10(_math.e)
from .launch import launch
from .aot import build_kernel
from .ptx_import import from_cuda, from_numba, from_ptx, from_triton
from .formal import verify, to_c
from .sim.common import LaunchResult
from .sweep import sweep, tune   # noqa: E402 - binds simt.sweep to the function; the package stays importable
from .ir.registry import (LIBRARY as _LIBRARY, REGISTRY as _REGISTRY,
                          BuiltinFunction as _BuiltinFunction)

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
                  "atomic_max", "atomic_cas", "atomic_exch", "atomic_and", "atomic_or", "atomic_xor",
                  "printf", "print", "expect_eq", "expect_neq", "expect_near")


def _export_builtins(namespace: dict) -> None:
    """``simt.<name>`` for every special form and registry builtin not already a type or API name."""
    for name in (*_SPECIAL_FORMS, *sorted(_REGISTRY), *sorted(_LIBRARY)):
        if not name.startswith("_") and name not in namespace:
            namespace[name] = _BuiltinFunction(name)


_export_builtins(globals())


def __getattr__(name: str):
    """``simt.<name>`` of a Warp builtin simt does not have: a handle that is a CompileError
    naming it when a kernel uses it (tiles, meshes, volumes, ... are outside simt)."""
    if name in ("VerifyReport", "Counterexample"):       # simt.verify's, loaded with it
        from .formal import report
        return getattr(report, name)
    from .ir.warp_names import WARP_API, WARP_BUILTINS
    if name in WARP_BUILTINS and not name.startswith("_"):
        return _BuiltinFunction(name)
    if name in WARP_API:
        from .warp_compat import Unsupported
        return Unsupported(name)
    raise AttributeError(f"module 'simt' has no attribute {name!r}")

# Last, because it shadows the Python builtin in this module: simt.bool is the kernel bool type.
from .types import bool  # noqa: E402,A004

