"""Warp's random numbers, bit for bit: the PCG hash of Jarzynski and Olano (Warp's
``native/rand.h``) on uint32 state, and the float samplers built on it.

The state is a uint32 variable that every sampler advances (``inout``): ``randf(state)``
returns a number and stores the next state into the caller's variable, as Warp's
``uint32& state`` does. The integer part is exact on every engine; the samplers that use
log, cos, sin, acos, sqrt or pow round as those functions do.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..builder import Builder
from ..mir import Op, Operand
from ..registry import register
from ..types import AnyType, Scalar
from .common import V, const, fail, ops, vector_type

GROUP = "random"
U32, I32, F32 = Scalar.U32, Scalar.I32, Scalar.F32
PI_F = float(np.float32(math.pi))
TWO_PI_F = float(np.float32(2.0) * np.float32(math.pi))
ONE_THIRD_F = float(np.float32(1.0) / np.float32(3.0))
RANDN_EPSILON = float(np.float32(5.96e-8))


def pcg(b: Builder, state: Operand) -> Operand:
    """rand_pcg: b = state * 747796405 + 2891336453; c = ((b >> ((b >> 28) + 4)) ^ b) * 277803737;
    return (c >> 22) ^ c -- all uint32."""
    x = b.binary(Op.ADD, b.binary(Op.MUL, state, const(747796405, U32)), const(2891336453, U32))
    shift = b.binary(Op.ADD, b.binary(Op.SHR, x, const(28, U32)), const(4, U32))
    c = b.binary(Op.MUL, b.binary(Op.XOR, b.binary(Op.SHR, x, shift), x), const(277803737, U32))
    return b.binary(Op.XOR, b.binary(Op.SHR, c, const(22, U32)), c)


class Stream:
    """The state while a sampler draws numbers from it."""

    def __init__(self, b: Builder, state: Operand):
        self.b = b
        self.state = state

    def next_u32(self) -> Operand:
        self.state = pcg(self.b, self.state)
        return self.state

    def randf(self) -> V:
        """(state >> 8) * 2**-24: uniform in [0, 1 - 2**-24] (exact in float32)."""
        u = self.b.binary(Op.SHR, self.next_u32(), const(8, U32))
        return V(self.b, self.b.cvt(u, F32)) * (1.0 / 16777216.0)



def _want(name: str, args: Sequence[AnyType], shapes: Sequence[Sequence[Scalar]]) -> int:
    """Which of the allowed argument lists ``args`` matches; fails with Warp's signatures."""
    for k, shape in enumerate(shapes):
        if len(args) == len(shape) and all(a is s for a, s in zip(args, shape)):
            return k
    sigs = " or ".join(f"{name}({', '.join(map(str, s))})" for s in shapes)
    fail(f"{name}() takes {sigs}; got ({', '.join(map(str, args))})")
    raise AssertionError


# --- rand_init ----------------------------------------------------------------------------------

def rand_init_infer(args):
    _want("rand_init", args, [(I32,), (I32, I32)])
    return U32


def rand_init_lower(b, arg_types, args):
    seed = b.cvt(args[0][0], U32)
    if len(args) == 1:
        return [pcg(b, seed)]
    return [pcg(b, b.binary(Op.ADD, seed, pcg(b, b.cvt(args[1][0], U32))))]


register("rand_init", rand_init_infer, rand_init_lower,
         "rand_init(seed[, offset]): a random state (uint32) for randf/randi/... from a seed and "
         "an offset (e.g. the thread index).", GROUP)


# --- randi, randu, randf, randn -------------------------------------------------------------------

def make_integer(name: str, elem: Scalar):
    def infer(args):
        _want(name, args, [(U32,), (U32, elem, elem)])
        return elem

    def lower(b, arg_types, args):
        s = Stream(b, args[0][0])
        x = s.next_u32()
        if len(args) == 3:
            # C: state % (max - min) + min, computed in uint32 (the int operands convert to it)
            lo, hi = (b.cvt(a[0], U32) for a in args[1:])
            x = b.binary(Op.ADD, b.binary(Op.REM, x, b.binary(Op.SUB, hi, lo)), lo)
        return [b.cvt(x, elem), s.state]

    kind = "int32" if elem is I32 else "uint32"
    register(name, infer, lower,
             f"{name}(state[, min, max]): a random {kind} (with bounds: state % (max - min) + min, "
             f"as Warp computes it); advances state.", GROUP, inout=(0,))


make_integer("randi", I32)
make_integer("randu", U32)


def randf_infer(args):
    _want("randf", args, [(U32,), (U32, F32, F32)])
    return F32


def randf_lower(b, arg_types, args):
    s = Stream(b, args[0][0])
    if len(args) == 1:
        return [s.randf().x, s.state]
    lo, hi = V(b, args[1][0]), V(b, args[2][0])
    return [((hi - lo) * s.randf() + lo).x, s.state]


register("randf", randf_infer, randf_lower,
         "randf(state[, min, max]): a random float32 uniform in [0, 1) (or [min, max)); "
         "advances state.", GROUP, inout=(0,))


def randn_infer(args):
    _want("randn", args, [(U32,)])
    return F32


def randn_lower(b, arg_types, args):
    """Box-Muller: sqrt(-2 log(randf + eps)) * cos(2 pi randf)."""
    s = Stream(b, args[0][0])
    radius = (-2.0 * (s.randf() + RANDN_EPSILON).apply(Op.LOG)).apply(Op.SQRT)
    angle = V(b, const(TWO_PI_F, F32)) * s.randf()
    return [(radius * angle.apply(Op.COS)).x, s.state]


register("randn", randn_infer, randn_lower,
         "randn(state): a random float32 from the standard normal distribution (Box-Muller); "
         "advances state.", GROUP, inout=(0,))


# --- samplers of shapes -------------------------------------------------------------------------

def _angle(s: Stream) -> V:
    return V(s.b, const(TWO_PI_F, F32)) * s.randf()      # randf(state, 0, 2 pi)


def sample_triangle(s: Stream) -> list[V]:
    r = s.randf().apply(Op.SQRT)
    u = 1.0 - r
    v = s.randf() * r
    return [u, v]


def sample_unit_ring(s: Stream) -> list[V]:
    theta = _angle(s)
    return [theta.apply(Op.COS), theta.apply(Op.SIN)]


def sample_unit_disk(s: Stream) -> list[V]:
    r = s.randf().apply(Op.SQRT)
    theta = _angle(s)
    return [r * theta.apply(Op.COS), r * theta.apply(Op.SIN)]


def _sphere(s: Stream, hemisphere: bool, solid: bool) -> list[V]:
    u = s.randf()
    phi = (1.0 - u if hemisphere else 1.0 - 2.0 * u).apply(Op.ACOS)
    theta = _angle(s)
    ct, st, sp = theta.apply(Op.COS), theta.apply(Op.SIN), phi.apply(Op.SIN)
    if not solid:
        return [ct * sp, st * sp, phi.apply(Op.COS)]
    r = V(s.b, s.b.binary(Op.POW, s.randf().x, const(ONE_THIRD_F, F32)))
    return [r * ct * sp, r * st * sp, r * phi.apply(Op.COS)]


def sample_unit_square(s: Stream) -> list[V]:
    x = s.randf() - 0.5
    y = s.randf() - 0.5
    return [x, y]


def sample_unit_cube(s: Stream) -> list[V]:
    x = s.randf() - 0.5
    y = s.randf() - 0.5
    z = s.randf() - 0.5
    return [x, y, z]


SAMPLERS = {
    "sample_triangle": (sample_triangle, 2, "uniform barycentric coordinates (u, v) on a triangle"),
    "sample_unit_ring": (sample_unit_ring, 2, "a uniform point on the unit circle"),
    "sample_unit_disk": (sample_unit_disk, 2, "a uniform point in the unit disk"),
    "sample_unit_sphere_surface": (lambda s: _sphere(s, False, False), 3,
                                   "a uniform point on the unit sphere"),
    "sample_unit_sphere": (lambda s: _sphere(s, False, True), 3, "a uniform point in the unit ball"),
    "sample_unit_hemisphere_surface": (lambda s: _sphere(s, True, False), 3,
                                       "a uniform point on the unit hemisphere (z >= 0)"),
    "sample_unit_hemisphere": (lambda s: _sphere(s, True, True), 3,
                               "a uniform point in the unit half ball (z >= 0)"),
    "sample_unit_square": (sample_unit_square, 2, "a uniform point in [-0.5, 0.5]^2"),
    "sample_unit_cube": (sample_unit_cube, 3, "a uniform point in [-0.5, 0.5]^3"),
}


def make_sampler(name: str, draw, n: int, what: str):
    def infer(args):
        _want(name, args, [(U32,)])
        return vector_type(F32, n)

    def lower(b, arg_types, args):
        s = Stream(b, args[0][0])
        return ops(draw(s)) + [s.state]

    register(name, infer, lower, f"{name}(state): {what} (vec{n}); advances state.", GROUP,
             inout=(0,))


for _name, (_draw, _n, _what) in SAMPLERS.items():
    make_sampler(_name, _draw, _n, _what)


__all__ = ["pcg", "Stream"]
