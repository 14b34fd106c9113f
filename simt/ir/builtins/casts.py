"""Scalar conversions: ``float32(x)``, ``int32(x)``, ``bool(x)`` ... with C semantics.

Float to integer truncates toward zero; integer to narrower integer wraps; anything to
bool is ``x != 0``. Composite conversions are the composite constructors (``vec3d(v)``).
"""
from __future__ import annotations

from typing import Sequence

from ..builder import Builder
from ..mir import Operand
from ..registry import register
from ..types import AnyType, Scalar
from .common import Args, arity, fail, is_scalar, truthy

GROUP = "cast"


def make_cast(to: Scalar):
    name = to.value

    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, 1)
        if not is_scalar(arg_types[0]):
            fail(f"{name}() converts a scalar, not {arg_types[0]} (use the vector or matrix "
                 f"constructor to convert composites)")
        return to

    def lower(b: Builder, arg_types, args: Args) -> list[Operand]:
        x = args[0][0]
        if to is Scalar.BOOL:
            return [truthy(b, x)]
        return [b.cvt(x, to)]

    rule = ("nonzero is True" if to is Scalar.BOOL else
            "floats truncate toward zero, integers wrap" if to.is_int else
            "rounds to nearest")
    register(name, infer, lower, f"{name}(x): x converted to {name} ({rule}).", GROUP)


CASTS = {s.value: s for s in Scalar}
for _s in Scalar:
    make_cast(_s)
