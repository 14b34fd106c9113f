"""``@simt.kernel`` and ``@simt.func``: the decorated objects and the kernel compile cache.

A kernel is compiled once per (launch signature, debug, fastmath): the launch signature
matters because ``tid()`` returns one index per launch dimension and Warp's linear block
mapping differs from an n-D grid.
"""
from __future__ import annotations

import functools
import inspect

from .errors import LaunchError
from .ir.mir import Function, LaunchSig
from .ir.types import AnyType, is_generic, resolve_type
from . import options as simt_options
from .options import get_module_options

CacheKey = tuple[LaunchSig, bool, bool, tuple | None]


class Kernel:
    """A ``@simt.kernel`` function: launch it with ``simt.launch``; it is compiled on first launch."""

    def __init__(self, py_func=None, name: str | None = None, module_options: dict | None = None,
                 *, func=None, key: str | None = None, options: dict | None = None, module=None):
        """``Kernel(f)``; Warp's spelling ``Kernel(func=f, key=..., options=...)`` works too."""
        py_func = py_func if py_func is not None else func
        name = name or key
        module_options = module_options if module_options is not None else options
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.key = name or py_func.__name__
        self.module_options = dict(module_options or {})
        from .warp_compat import get_module
        self._module = get_module(module if module is not None and module != "unique"
                                  else getattr(py_func, "__module__", "") or "")
        self._params: list[tuple[str, AnyType]] | None = None
        self._compiled: dict[CacheKey, Function] = {}
        self._index_dims: tuple[int, int] | None = None
        self._launchers: dict = {}      # repeat launches on the fast engine (launch_bound.py)

    @property
    def index_dims(self) -> tuple[int, int]:
        """(values unpacked from tid(), from thread_idx()/block_idx()/...): 0 when never called."""
        if self._index_dims is None:
            from .ir.compile import kernel_dims
            self._index_dims = tuple(kernel_dims(self.py_func))
        return self._index_dims

    @property
    def params(self) -> list[tuple[str, AnyType]]:
        """(name, type) of each parameter, from the annotations."""
        if self._params is None:
            from .ir.compile import kernel_params
            self._params = list(kernel_params(self.py_func))
        return self._params

    def effective_options(self) -> dict:
        """The module options, this kernel's module's, then its ``module_options`` on top."""
        from .options import _normalise
        from .warp_compat import WARP_MODULE_DEFAULTS
        module = {k: v for k, v in self._module.options.items()
                  if k not in WARP_MODULE_DEFAULTS or v != WARP_MODULE_DEFAULTS[k]}
        return get_module_options() | _normalise(module) | _normalise(self.module_options)

    def options_inputs(self) -> tuple:
        """What effective_options() is computed from (the live dicts, not copies): a launcher
        bound under equal ones is reused (launch_bound.py)."""
        return (simt_options._options, simt_options.config.mode, self._module.options,
                self.module_options)

    @property
    def options(self) -> dict:
        """Warp's ``kernel.options``: the options given to this kernel."""
        return self.module_options

    @property
    def module(self):
        """Warp's ``kernel.module``: the named options it was declared with."""
        return self._module

    @property
    def is_generic(self) -> bool:
        """Whether some parameter is annotated with ``Any``: typed at each launch."""
        return any(is_generic(t) for _, t in self.params)

    def compile(self, sig: LaunchSig = LaunchSig(), debug: bool | None = None,
                fastmath: bool | None = None, param_types: tuple | None = None) -> Function:
        """The MIR for one launch signature (and, for a generic kernel, one set of concrete
        parameter types); cached."""
        opts = self.effective_options()
        debug = opts["debug"] if debug is None else bool(debug)
        fastmath = opts["fastmath"] if fastmath is None else bool(fastmath)
        param_types = tuple(param_types) if param_types is not None and self.is_generic else None
        key = (sig, debug, fastmath, param_types)
        fn = self._compiled.get(key)
        if fn is None:
            from .ir.compile import compile_kernel
            fn = compile_kernel(self.py_func, sig, debug, fastmath, param_types=param_types)
            self._compiled[key] = fn
        return fn

    def clear_cache(self) -> None:
        self._compiled.clear()
        self._launchers.clear()
        self._params = None
        self._index_dims = None

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"kernel '{self.key}' cannot be called directly; launch it with "
                          f"simt.launch({self.key}, dim=..., inputs=[...])")

    def __repr__(self) -> str:
        return f"<simt kernel {self.key}>"


def kernel(f=None, *, name: str | None = None, enable_backward=None, launch_bounds=None,
           cuda_max_registers=None, enable_cuda_smem_spilling=None, cluster_dim=None,
           module=None, module_options: dict | None = None, entry_point_abi=None, grid_stride=None):
    """Decorator: ``@simt.kernel`` or ``@simt.kernel(...)`` (Warp's keywords are accepted)."""
    def wrap(fn) -> Kernel:
        return Kernel(fn, name=name, module_options=module_options, module=module)
    return wrap(f) if f is not None else wrap


class Func:
    """A ``@simt.func`` device function. Same-named definitions with different annotations
    in one module are overloads (as in Warp); the front end picks one by argument types."""

    _simt_func = True

    def __init__(self, py_func, name: str | None = None):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.key = name or py_func.__name__
        self.overloads = [py_func]

    def add_overload(self, py_func) -> None:
        self.overloads.append(py_func)

    def __call__(self, *args, **kwargs):
        """On the host a device function is plain Python; overloads are chosen by isinstance."""
        if len(self.overloads) > 1:
            for f in self.overloads:
                if _host_args_fit(f, args):
                    return f(*args, **kwargs)
        return self.py_func(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<simt func {self.key}>"


def _annotations(py_func) -> tuple:
    """Parameter annotations, evaluated when written as strings (``from __future__ import annotations``)."""
    try:
        sig = inspect.signature(py_func, eval_str=True)
    except Exception:  # noqa: BLE001 - an annotation naming a local: compare the text instead
        sig = inspect.signature(py_func)
    return tuple(p.annotation for p in sig.parameters.values())


def _signature_key(py_func) -> tuple:
    """Annotations as IR types where they name one, so equal signatures compare equal."""
    keys = []
    for ann in _annotations(py_func):
        try:
            resolved = resolve_type(ann)
        except Exception:  # noqa: BLE001 - unhashable or odd annotations compare as written
            resolved = None
        keys.append(ann if resolved is None else resolved)
    return tuple(keys)


def _host_args_fit(py_func, args) -> bool:
    for value, ann in zip(args, _annotations(py_func)):
        if isinstance(ann, type) and not isinstance(value, ann):
            return False
    return True


_funcs: dict[tuple[str, str], Func] = {}


def func(f=None, *, name: str | None = None, module=None, inline=None):
    """Decorator: ``@simt.func`` marks a device function callable from kernels.

    As in Warp, a definition is an overload of the function its name is bound to in the
    scope it is written in (the module, or the enclosing function's locals) when that is a
    ``@simt.func`` with other annotations, and replaces that overload when the annotations
    are the same. Functions made by separate calls of a factory are separate functions, even
    with the same name and signature."""
    frame = inspect.currentframe()
    try:
        scope = frame.f_back.f_locals if frame is not None and frame.f_back is not None else {}
    finally:
        del frame

    def wrap(fn) -> Func:
        existing = scope.get(fn.__name__)
        if isinstance(existing, Func):
            sig = _signature_key(fn)
            same = [k for k, f in enumerate(existing.overloads) if _signature_key(f) == sig]
            if not same:
                existing.add_overload(fn)
                _funcs[(fn.__module__, fn.__qualname__)] = existing
                return existing
            if len(existing.overloads) > 1:   # redefines one overload; the others stay
                existing.overloads[same[0]] = fn
                if same[0] == 0:
                    existing.py_func = fn
                return existing
        made = Func(fn, name=name)
        _funcs[(fn.__module__, fn.__qualname__)] = made   # for @wp.overload on a typed stub
        return made
    return wrap(f) if f is not None else wrap


class Function:
    """Warp's ``wp.Function`` as a parameter annotation: ``def apply(g: wp.Function, x: float)``
    takes a ``@simt.func`` or a builtin (``wp.sin``) and calls it. Each function passed makes
    its own specialization, as if its name were written in the body."""

    def __init__(self, *args, **kwargs):
        raise TypeError("simt.Function is a parameter annotation, not a constructor")


def constant(x):
    """Warp's ``wp.constant``: the value itself; kernels read module globals at compile time."""
    return x


def static(expr):
    """Warp's ``wp.static(expr)``: in a kernel, ``expr`` is evaluated while compiling (in the
    function's module and closure); on the host it is the value itself."""
    return expr


static._simt_static = True


def mir(k: Kernel, dim_ndim: int = 1, block_ndim: int = 1) -> str:
    """The printed MIR of a kernel compiled for a launch signature (with the module options)."""
    from .ir.printer import format_function
    from .ptx_import import ImportedKernel
    if isinstance(k, ImportedKernel):          # every 64-bit parameter taken as a pointer
        return k.mir()
    if not isinstance(k, Kernel):
        raise TypeError(f"simt.mir expects a @simt.kernel, got {k!r}")
    return format_function(k.compile(LaunchSig(dim_ndim, block_ndim)))


def ptx(k: Kernel, arch: str = "sm_90", dim_ndim: int = 1, block_ndim: int = 1,
        lineinfo: bool = False) -> str:
    """The PTX text of a kernel compiled for a launch signature (with the module options);
    ``lineinfo`` adds .file/.loc directives naming the kernel's source lines."""
    from .gpu.ptx import emit
    if not isinstance(k, Kernel):
        raise TypeError(f"simt.ptx expects a @simt.kernel, got {k!r}")
    return emit(k.compile(LaunchSig(dim_ndim, block_ndim)), arch, lineinfo)[0]


def sass(k: Kernel, arch: str = "sm_90", dim_ndim: int = 1, block_ndim: int = 1):
    """The SASS ptxas makes of the kernel's PTX, one row per instruction (a pandas DataFrame:
    opcode, modifiers, operands, predicate, source line, the function it is in: the kernel's or
    a subroutine ptxas calls, basic block, loop); ``.attrs`` holds
    the registers and per loop its unroll factor and loads in flight (simt/gpu/sass.py).
    DeviceError without ptxas or a disassembler (``pip install simt[sass]``)."""
    from .gpu.sass import sass_of_function
    if not isinstance(k, Kernel):
        raise TypeError(f"simt.sass expects a @simt.kernel, got {k!r}")
    return sass_of_function(k.compile(LaunchSig(dim_ndim, block_ndim)), arch)


def ptxas_info(k: Kernel, arch: str = "sm_90", dim_ndim: int = 1, block_ndim: int = 1) -> dict:
    """``ptxas -v`` on the kernel's PTX: registers, shared_bytes, spill_store_bytes,
    spill_load_bytes, stack_frame_bytes, barriers, constant_bytes. DeviceError without ptxas."""
    from .gpu.ptxas import resource_usage
    return resource_usage(ptx(k, arch, dim_ndim, block_ndim), arch)
