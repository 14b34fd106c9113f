"""Names of Warp's API that code written for Warp uses around kernels, so that such code
runs under ``import simt as wp`` unchanged.

Autodiff is not part of simt: ``func_grad`` and ``func_replay`` accept a custom gradient and
ignore it (``launch(adjoint=True)`` is a LaunchError). ``overload`` is a no-op, because simt
types generic kernels and functions from their arguments at every launch and call. Any
other Warp name simt lacks is an ``Unsupported`` placeholder: using it says so.
"""
from __future__ import annotations

import numpy as np

from .errors import SimtError


def func_grad(forward):
    """Warp's ``@wp.func_grad(f)``: a custom gradient of ``f``; ignored (no autodiff)."""
    def decorate(grad):
        return grad
    return decorate


func_replay = func_grad


def func_native(snippet=None, adj_snippet=None, replay_snippet=None):
    """Warp's native C++/CUDA snippets cannot run on simt's engines: calling one in a kernel
    is a CompileError naming it."""
    def decorate(f):
        from .kernel import Func
        out = Func(f)
        out._simt_native = True
        return out
    return decorate


def overload(target, arg_types=None):
    """Warp's ``wp.overload``: simt specializes generic kernels and functions for the
    argument types of each launch or call, so an explicit overload adds nothing."""
    if arg_types is None and callable(target) and not hasattr(target, "_simt_func") \
            and not hasattr(target, "py_func"):
        from .kernel import _funcs                      # @wp.overload on a typed stub
        existing = _funcs.get((target.__module__, target.__qualname__))
        if existing is not None:
            return existing
    return target


WARP_MODULE_DEFAULTS = {"enable_backward": True, "mode": "release", "fast_math": False,
                        "max_unroll": 16, "block_dim": 256, "lineinfo": False}


class Module:
    """Warp's ``wp.Module``/``wp.get_module(name)``: a named set of options. Kernels declared
    with ``@kernel(module=...)`` take its simt options (``mode``, ``fast_math``, ...); Warp's
    build options are kept and ignored."""

    def __init__(self, name: str, loader=None):
        self.name = name
        self.options = dict(WARP_MODULE_DEFAULTS)

    def __repr__(self) -> str:
        return f"<simt module {self.name!r}>"


_modules: dict[str, Module] = {}


def get_module(name: str) -> Module:
    if isinstance(name, Module):
        return name
    module = _modules.get(name)
    if module is None:
        module = _modules[name] = Module(name)
    return module


def dtype_from_numpy(numpy_dtype):
    from .ir.types import resolve_type
    from .types import public_type
    t = resolve_type(np.dtype(numpy_dtype).type)
    if t is None:
        raise TypeError(f"no simt dtype for numpy dtype {numpy_dtype!r}")
    return public_type(t)


def dtype_to_numpy(simt_dtype):
    from .types import ir_type, numpy_scalar_type
    return numpy_scalar_type(ir_type(simt_dtype))


class Unsupported:
    """A Warp API name simt does not provide. It can be imported and named (so modules written
    for Warp load); calling it, subscripting it or using it as a type says it is unsupported."""

    def __init__(self, name: str):
        self.__name__ = self.name = name

    def _fail(self, *args, **kwargs):
        raise SimtError(f"warp.{self.name} is not supported by simt")

    __call__ = _fail
    __getitem__ = _fail

    def __mro_entries__(self, bases):
        return (UnsupportedBase,)      # `class X(wp.indexedarray)` still defines X

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Unsupported(f"{self.name}.{attr}")

    def __repr__(self) -> str:
        return f"<warp.{self.name}: not supported by simt>"


class UnsupportedBase:
    """The base of classes derived from a Warp name simt does not provide."""


__all__ = ["Module", "get_module", "func_grad", "func_replay", "func_native", "overload", "dtype_from_numpy",
           "dtype_to_numpy", "Unsupported"]
