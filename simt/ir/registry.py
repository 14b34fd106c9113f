"""The one registry of value builtins (math, vector/matrix/quaternion, casts, warp intrinsics).

A builtin is declared once: how it types its arguments (``infer``), how it lowers to MIR
(``lower``: scalar operands in, scalar operands out, with composites flattened in
row-major component order), and its documentation. The front end, the docs and the public
``simt`` namespace are all driven from here; engines and the PTX backend only see MIR.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from .builder import Builder
from .mir import Operand
from .types import AnyType


class BuiltinTypeError(Exception):
    """Raised by ``infer`` when the arguments do not fit; the front end adds the location."""


@dataclass(frozen=True)
class StaticArg:
    """A keyword argument known while compiling (``dtype=float64``, ``length=3``): it reaches
    ``infer`` as its type and ``lower`` as no operands."""
    name: str
    value: object

    def __str__(self) -> str:
        return f"{self.name}={getattr(self.value, '__name__', self.value)}"


InferFn = Callable[[Sequence[AnyType]], AnyType]
LowerFn = Callable[[Builder, Sequence[AnyType], Sequence[Sequence[Operand]]], list[Operand]]


@dataclass(frozen=True)
class Builtin:
    name: str
    infer: InferFn
    lower: LowerFn
    doc: str = ""
    group: str = ""
    pure: bool = True        # False for warp intrinsics and clock(): never folded or reordered
    # Arguments the builtin updates in place (Warp's ``uint32& state``): ``lower`` returns the
    # result's operands followed by each such argument's new value, which the caller's
    # variable receives.
    inout: tuple[int, ...] = ()


@dataclass(frozen=True)
class LibraryFunction:
    """A builtin written in the kernel language itself (``simt/lib/``): loops and branches
    that straight-line MIR cannot express (SVD, noise, Poisson sampling...). It is compiled
    like a ``@simt.func`` at each call. ``inout``: as for Builtin; the function returns its
    result followed by the new values of those arguments."""
    name: str
    module: str              # e.g. "simt.lib.random"
    function: str
    doc: str = ""
    group: str = ""
    inout: tuple[int, ...] = ()


REGISTRY: dict[str, Builtin] = {}
LIBRARY: dict[str, LibraryFunction] = {}


def register(name: str, infer: InferFn, lower: LowerFn, doc: str = "", group: str = "",
             pure: bool = True, inout: tuple[int, ...] = ()) -> Builtin:
    if name in REGISTRY or name in LIBRARY:
        raise ValueError(f"builtin {name!r} registered twice")
    b = Builtin(name, infer, lower, doc, group, pure, inout)
    REGISTRY[name] = b
    return b


def register_library(name: str, module: str, function: str | None = None, doc: str = "",
                     group: str = "", inout: tuple[int, ...] = ()) -> LibraryFunction:
    if name in REGISTRY or name in LIBRARY:
        raise ValueError(f"builtin {name!r} registered twice")
    f = LibraryFunction(name, module, function or name, doc, group, inout)
    LIBRARY[name] = f
    return f


def lookup(name: str) -> Builtin | None:
    return REGISTRY.get(name)


class BuiltinFunction:
    """What ``simt.dot`` etc. are on the host: a handle the front end recognises in kernels."""

    def __init__(self, name: str):
        self.__name__ = self.name = name

    @property
    def __doc__(self):  # type: ignore[override]
        b = REGISTRY.get(self.name) or LIBRARY.get(self.name)
        return b.doc if b else None

    def __call__(self, *args, **kwargs):
        """On the host: the builtin evaluated as a kernel would (simt/host_call.py)."""
        from ..host_call import call
        return call(self.name, args, kwargs)

    def __repr__(self) -> str:
        return f"<simt builtin {self.name}>"
