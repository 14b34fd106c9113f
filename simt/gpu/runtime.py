"""The ``cuda`` engine: runs MIR on a real GPU through the CUDA driver API (cuda-python).

Everything is lazy: cuda-python is imported, ``cuInit`` called and the device's primary
context retained on first use, so ``import simt`` never touches the driver. Every driver
call goes through ``check``, which turns a failing CUresult into ``DeviceError`` carrying
the driver's own error name (``CUDA_ERROR_ILLEGAL_ADDRESS``...). When there is no driver,
no GPU, or no cuda-python, the first use raises one ``DeviceError`` that says which.

Kernel ABI (shared with ``simt.gpu.ptx``): for each MIR parameter in order, an array is a
u64 device pointer followed by int32 extents of each dimension, a scalar is its value at
its exact width; then three hidden int32s: the launch ``dim`` padded with 1s.
"""
from __future__ import annotations

import ctypes
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from ..errors import DeviceError
from ..ir.mir import ArrayParam, Function
from ..ir.types import Scalar
from ..sim.common import ArrayArg, LaunchConfig

_lock = threading.RLock()
_driver = None
_init_error: DeviceError | None = None
_contexts: dict[int, "Context"] = {}

CTYPES = {Scalar.BOOL: ctypes.c_uint8, Scalar.I8: ctypes.c_int8, Scalar.U8: ctypes.c_uint8,
          Scalar.I16: ctypes.c_int16, Scalar.U16: ctypes.c_uint16, Scalar.F16: ctypes.c_uint16, Scalar.BF16: ctypes.c_uint16,
          Scalar.I32: ctypes.c_int32, Scalar.U32: ctypes.c_uint32, Scalar.I64: ctypes.c_int64,
          Scalar.U64: ctypes.c_uint64, Scalar.F32: ctypes.c_float, Scalar.F64: ctypes.c_double}

_RERUN = ("launch it on 'cpu:precise' with simt.set_module_options({'debug': True}) for the exact "
          "index, thread and line. The GPU context is unusable until the process restarts")
ERROR_HINTS = {
    "CUDA_ERROR_ILLEGAL_ADDRESS": f"the kernel touched memory outside its arrays; {_RERUN}",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE": f"the kernel used an address outside its arrays; {_RERUN}",
    "CUDA_ERROR_MISALIGNED_ADDRESS": f"the kernel used a misaligned address; {_RERUN}",
    "CUDA_ERROR_LAUNCH_FAILED": f"the kernel trapped (in debug mode: an index out of bounds); {_RERUN}",
    "CUDA_ERROR_NO_BINARY_FOR_GPU": "the PTX targets a newer GPU than this one; set the 'arch' option",
}


# ---- the driver ---------------------------------------------------------------------------

def driver():
    """``cuda.bindings.driver`` after a successful ``cuInit``; DeviceError saying why not."""
    global _driver, _init_error
    if _driver is not None:
        return _driver
    with _lock:
        if _init_error is not None:
            raise _init_error
        try:
            from cuda.bindings import driver as drv
        except Exception as e:  # noqa: BLE001 - ImportError, or a broken install
            _init_error = DeviceError(f"the 'cuda' device needs cuda-python (pip install "
                                      f"cuda-python), which could not be imported: {e}")
            raise _init_error from None
        try:
            result = drv.cuInit(0)
        except Exception as e:  # noqa: BLE001 - the binding could not load libcuda
            _init_error = DeviceError(f"no NVIDIA driver found (libcuda could not be loaded): "
                                      f"{_first_line(e)}")
            raise _init_error from None
        err = result[0] if isinstance(result, tuple) else result
        if int(err) != 0:
            _init_error = DeviceError(f"the CUDA driver could not start (cuInit returned "
                                      f"{_error_name(drv, err)}): is there a GPU on this machine?")
            raise _init_error
        _driver = drv
        return drv


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _error_name(drv, err) -> str:
    try:
        res, name = drv.cuGetErrorName(err)
        if int(res) == 0 and name:
            return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # noqa: BLE001 - fall back to the enum's own name
        pass
    return getattr(err, "name", str(err))


def check(result, what: str, hint: str = ""):
    """The values of a driver call after its CUresult; DeviceError naming the call and error."""
    err, values = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
    if int(err) != 0:
        name = _error_name(_driver, err)
        if not hint:
            hint = ERROR_HINTS.get(name, "")
        raise DeviceError(f"{what} failed with {name}" + (f": {hint}" if hint else ""))
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def device_count() -> int:
    """How many GPUs the driver sees; 0 when there is no driver or no GPU."""
    try:
        return int(check(driver().cuDeviceGetCount(), "cuDeviceGetCount"))
    except DeviceError:
        return 0


def unavailable_reason(ordinal: int = 0) -> str | None:
    """Why ``cuda:ordinal`` cannot be used, or None when it can."""
    try:
        driver()
    except DeviceError as e:
        return str(e)
    count = device_count()
    if ordinal >= count:
        return (f"device 'cuda:{ordinal}' does not exist: the driver sees {count} GPU"
                f"{'' if count == 1 else 's'}")
    return None


def is_available(ordinal: int = 0) -> bool:
    return unavailable_reason(ordinal) is None


# ---- contexts -----------------------------------------------------------------------------

class Context:
    """A GPU's primary context (shared with any other CUDA library in the process)."""

    def __init__(self, ordinal: int):
        drv = driver()
        reason = unavailable_reason(ordinal)
        if reason:
            raise DeviceError(reason)
        self.ordinal = ordinal
        self.device = check(drv.cuDeviceGet(ordinal), f"cuDeviceGet({ordinal})")
        self.handle = check(drv.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        self.name = self._name()
        self.compute_capability = (self._attribute("COMPUTE_CAPABILITY_MAJOR"),
                                   self._attribute("COMPUTE_CAPABILITY_MINOR"))
        self.clock_rate_khz = self._attribute("CLOCK_RATE")
        self.num_sms = self._attribute("MULTIPROCESSOR_COUNT")
        self.make_current()
        self._events = None
        self.launch_lock = threading.Lock()

    def _name(self) -> str:
        raw = check(driver().cuDeviceGetName(256, self.device), "cuDeviceGetName")
        return raw.split(b"\0", 1)[0].decode() if isinstance(raw, bytes) else str(raw)

    def _attribute(self, name: str) -> int:
        drv = driver()
        attr = getattr(drv.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
        return int(check(drv.cuDeviceGetAttribute(attr, self.device), f"cuDeviceGetAttribute({name})"))

    @property
    def arch(self) -> str:
        return f"sm_{self.compute_capability[0]}{self.compute_capability[1]}"

    def make_current(self) -> None:
        check(driver().cuCtxSetCurrent(self.handle), "cuCtxSetCurrent")

    def events(self):
        """A (start, stop) pair of timing events, made once per context."""
        if self._events is None:
            drv = driver()
            flags = drv.CUevent_flags.CU_EVENT_DEFAULT
            self._events = (check(drv.cuEventCreate(flags), "cuEventCreate"),
                            check(drv.cuEventCreate(flags), "cuEventCreate"))
        return self._events

    def synchronize(self) -> None:
        self.make_current()
        check(driver().cuCtxSynchronize(), f"synchronizing 'cuda:{self.ordinal}'")


def context(ordinal: int = 0) -> Context:
    """The (current) context of ``cuda:ordinal``, created on first use."""
    with _lock:
        ctx = _contexts.get(ordinal)
        if ctx is None:
            ctx = _contexts[ordinal] = Context(ordinal)
        else:
            ctx.make_current()
        return ctx


def synchronize(ordinal: int | None = None) -> None:
    """Wait for every GPU simt has used (or one of them); nothing to do if none was."""
    for o, ctx in list(_contexts.items()):
        if ordinal is None or o == ordinal:
            ctx.synchronize()


# ---- modules ------------------------------------------------------------------------------

@dataclass
class LoadedKernel:
    """A kernel entry in a loaded module: what a launch needs."""
    name: str
    function: object          # CUfunction
    module: object            # CUmodule (kept so it lives as long as the function)
    ptx: str
    param_layout: object = None


# per MIR function (weakly, so recompiled kernels do not pin old modules): (arch, ordinal) -> kernel
_modules: "weakref.WeakKeyDictionary[Function, dict]" = weakref.WeakKeyDictionary()


def load_module(image: bytes | str, ordinal: int, what: str, arch: str = "sm_90"):
    """cuModuleLoadData on PTX text or a cubin; a PTX error includes the JIT's log."""
    drv = driver()
    context(ordinal)
    data = image.encode() + b"\0" if isinstance(image, str) else bytes(image)
    log = bytearray(16384)
    try:
        opts = [drv.CUjit_option.CU_JIT_ERROR_LOG_BUFFER, drv.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
        result = drv.cuModuleLoadDataEx(data, len(opts), opts, [log, len(log)])
    except Exception:  # noqa: BLE001 - bindings that take option values differently
        log = bytearray()
        result = drv.cuModuleLoadData(data)
    if int(result[0]) != 0:
        text = bytes(log).split(b"\0", 1)[0].decode(errors="replace").strip()
        if not text and isinstance(image, str):
            text = ptxas_diagnostics(image, arch)
        check(result, f"loading {what}", hint=text)
    return result[1]


def ptxas_diagnostics(ptx: str, arch: str) -> str:
    """ptxas's complaints about ``ptx`` where ptxas is installed (the JIT gave no log)."""
    from .ptxas import assemble
    try:
        assemble(ptx, arch)
    except DeviceError as e:
        return str(e)
    return ""


def get_function(module, entry: str, what: str):
    drv = driver()
    return check(drv.cuModuleGetFunction(module, entry.encode()), f"finding entry '{entry}' in {what}")


def compile_and_load(fn: Function, arch: str, ordinal: int) -> LoadedKernel:
    """The kernel for ``fn`` on ``cuda:ordinal``: emitted, loaded and cached per (MIR, arch)."""
    with _lock:           # first launches from several threads load the module once
        return _compile_and_load(fn, arch, ordinal)


def _compile_and_load(fn: Function, arch: str, ordinal: int) -> LoadedKernel:
    per_fn = _modules.setdefault(fn, {})
    loaded = per_fn.get((arch, ordinal))
    if loaded is not None:
        return loaded
    try:
        from . import ptx as ptx_backend
    except ModuleNotFoundError as e:
        raise DeviceError(f"the PTX backend is not available ({e})") from None
    ptx_text, entry, layout = ptx_backend.emit(fn, arch)
    what = f"the PTX of kernel '{fn.name}' ({arch})"
    module = load_module(ptx_text, ordinal, what, arch)
    loaded = LoadedKernel(entry, get_function(module, entry, what), module, ptx_text, layout)
    per_fn[(arch, ordinal)] = loaded
    return loaded


# ---- launching ----------------------------------------------------------------------------

def scalar_value(scalar: Scalar, a):
    """A scalar argument as the ctypes value the kernel's parameter takes: a float16 goes as
    its 16 bits (a bfloat16 is bound as its bits already, launch_values.py)."""
    if scalar is Scalar.F16:
        return ctypes.c_uint16(int(np.asarray(a, np.float16).view(np.uint16)))
    raw = a.item() if hasattr(a, "item") else a
    return CTYPES[scalar](bool(raw) if scalar is Scalar.BOOL else raw)


def kernel_parameters(fn: Function, cfg: LaunchConfig, args: list) -> list:
    """The ABI's values as ctypes scalars of exact width, in order."""
    values: list = []
    for p, a in zip(fn.params, args):
        if isinstance(p, ArrayParam):
            assert isinstance(a, ArrayArg)
            values.append(ctypes.c_uint64(int(a.base_addr)))
            values.extend(ctypes.c_int32(int(extent)) for extent in a.shape[:p.mem.ndim])
        else:
            values.append(scalar_value(p.reg.type, a))
    dims = tuple(cfg.dim) + (1,) * (4 - len(cfg.dim))
    values.extend(ctypes.c_int32(int(d)) for d in dims)
    return values


def launch_function(function, grid, block, values: list, ordinal: int, what: str,
                    shared_bytes: int = 0, repeat: int = 1) -> float:
    """Launch ``function`` with ctypes ``values`` (``repeat`` times back to back) between two
    events; return the milliseconds per launch."""
    drv = driver()
    ctx = context(ordinal)
    pointers = (ctypes.c_void_p * max(1, len(values)))(*[ctypes.addressof(v) for v in values])
    with ctx.launch_lock:     # the context's one pair of timing events: a launch at a time
        return _timed_launch(drv, ctx, function, grid, block, pointers, what, shared_bytes, repeat)


def _timed_launch(drv, ctx, function, grid, block, pointers, what: str, shared_bytes: int,
                  repeat: int) -> float:
    start, stop = ctx.events()
    stream = drv.CUstream(0)
    check(drv.cuEventRecord(start, stream), "cuEventRecord")
    for _ in range(repeat):
        check(drv.cuLaunchKernel(function, *(int(g) for g in grid), *(int(b) for b in block),
                                 int(shared_bytes), stream, ctypes.addressof(pointers), 0),
              f"launching {what}")
    check(drv.cuEventRecord(stop, stream), "cuEventRecord")
    check(drv.cuEventSynchronize(stop), f"running {what}")
    elapsed = getattr(drv, "cuEventElapsedTime_v2", None) or drv.cuEventElapsedTime
    return float(check(elapsed(start, stop), "cuEventElapsedTime")) / repeat


def function_attribute(function, name: str) -> int:
    """A CUfunction attribute such as NUM_REGS (registers per thread)."""
    drv = driver()
    attr = getattr(drv.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")
    return int(check(drv.cuFuncGetAttribute(attr, function), f"cuFuncGetAttribute({name})"))


def check_layout(values: list, layout, kernel: str) -> None:
    """The values agree in number and width with the emitter's ``param_layout``."""
    if layout is None:
        return
    widths = [getattr(getattr(entry, "dtype", None), "itemsize", None) for entry in layout]
    if len(widths) != len(values) or any(w is not None and w != ctypes.sizeof(v)
                                         for w, v in zip(widths, values)):
        described = ", ".join(f"{getattr(e, 'name', e)}:{w}" for e, w in zip(layout, widths))
        raise DeviceError(f"kernel '{kernel}': internal error, the runtime passes "
                          f"{[ctypes.sizeof(v) for v in values]} bytes per argument but the PTX "
                          f"expects ({described})")


def run(fn: Function, cfg: LaunchConfig, args: list, ordinal: int = 0) -> dict[str, float]:
    """The engine entry point: one synchronous, event-timed launch."""
    from ..arch import load_arch
    loaded = compile_and_load(fn, load_arch(cfg.arch).ptx_target, ordinal)
    values = kernel_parameters(fn, cfg, args)
    check_layout(values, loaded.param_layout, fn.name)
    ms = launch_function(loaded.function, cfg.grid, cfg.block, values, ordinal,
                         f"kernel '{fn.name}'")
    return {"gpu_time_ms": ms, "gpu__time_duration.sum": ms * 1e6}


# ---- PTX imported as it is (simt.from_ptx, simt.from_cuda) -----------------------------------

_ptx_modules: dict[tuple[str, int], object] = {}


def load_ptx(ptx: str, entry: str, ordinal: int, what: str, arch: str = "sm_90"):
    """The CUfunction ``entry`` of PTX text loaded as it is, one module per text and GPU (so
    its __device__ variables persist across launches, as in a CUDA program)."""
    import hashlib
    key = (hashlib.sha1(ptx.encode()).hexdigest(), ordinal)
    with _lock:
        module = _ptx_modules.get(key)
        if module is None:
            module = _ptx_modules[key] = load_module(ptx, ordinal, what, arch)
    return get_function(module, entry, what)


def run_ptx(ptx: str, entry: str, grid, block, values: list, ordinal: int, what: str,
            shared_bytes: int = 0, arch: str = "sm_90") -> dict[str, float]:
    """One synchronous, event-timed launch of an imported kernel: ``values`` are its
    parameters as ctypes scalars (a pointer: the array's device address)."""
    function = load_ptx(ptx, entry, ordinal, what, arch)
    if shared_bytes > 48 * 1024:        # above the default: the kernel must opt in
        drv = driver()
        attr = drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        check(drv.cuFuncSetAttribute(function, attr, int(shared_bytes)),
              f"allowing {shared_bytes} bytes of dynamic shared memory for {what}")
    ms = launch_function(function, grid, block, values, ordinal, what, shared_bytes)
    return {"gpu_time_ms": ms, "gpu__time_duration.sum": ms * 1e6}
