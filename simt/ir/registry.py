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


REGISTRY: dict[str, Builtin] = {}


def register(name: str, infer: InferFn, lower: LowerFn, doc: str = "", group: str = "",
             pure: bool = True) -> Builtin:
    if name in REGISTRY:
        raise ValueError(f"builtin {name!r} registered twice")
    b = Builtin(name, infer, lower, doc, group, pure)
    REGISTRY[name] = b
    return b


def lookup(name: str) -> Builtin | None:
    return REGISTRY.get(name)


class BuiltinFunction:
    """What ``simt.dot`` etc. are on the host: a handle the front end recognises in kernels."""

    def __init__(self, name: str):
        self.__name__ = self.name = name

    @property
    def __doc__(self):  # type: ignore[override]
        b = REGISTRY.get(self.name)
        return b.doc if b else None

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"simt.{self.name}() can only be called inside a @simt.kernel or @simt.func")

    def __repr__(self) -> str:
        return f"<simt builtin {self.name}>"
