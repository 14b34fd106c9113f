"""The builtin library: importing this package registers every builtin in
``simt.ir.registry.REGISTRY`` (operators, math, vectors, matrices, quaternions, casts,
warp intrinsics)."""
from . import (operators, scalar_math, vector, matrix, quat, casts, warp_intrinsics, random,  # noqa: F401
               spatial, linalg, library)
from ..registry import lookup
from ..types import MatrixType, QuatType, TransformType, ValueType, VectorType
from .casts import CASTS
from .vector import VECTOR_CONSTRUCTORS


def constructor_for(t: ValueType) -> str:
    """The builtin that constructs values of composite type ``t`` (its name, e.g. ``vec5f``
    for a user's ``vector(5, float32)``), registering one on first use."""
    name = t.name
    if lookup(name) is None:
        if isinstance(t, VectorType):
            vector.make_constructor(name, t)
        elif isinstance(t, MatrixType):
            matrix.make_constructor(name, t)
        elif isinstance(t, QuatType):
            quat.make_constructor(name, t)
        elif isinstance(t, TransformType):
            spatial.make_transform_constructor(name, t.elem)
        else:
            raise TypeError(f"{t} has no constructor")
    return name


__all__ = ["CASTS", "VECTOR_CONSTRUCTORS", "constructor_for"]
