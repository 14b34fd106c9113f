"""Scalar semantics of the MIR's arithmetic ops on numpy arrays of lanes.

Every function takes and returns numpy arrays (or numpy scalars) of the op's MIR type and
follows PTX: integer ops wrap, integer division truncates toward zero, shifts clamp their
amount to the register width, float-to-int conversion truncates and saturates (NaN -> 0).
Math functions (sin, pow, erf, popc ...) are simt/sim/mathlib.py's, vectorised: the fast
engine calls the same code, so both engines give the same bits. The ops left to numpy here
are exact (IEEE +, -, *, /, sqrt, fmod, floor ...): one right answer, whoever computes it.
"""
from __future__ import annotations

import numpy as np

from ...ir.mir import Op
from ...ir import bfloat16
from ...ir.types import Scalar
from .. import mathlib


def int_div(a, b, t: Scalar):
    """C division: truncates toward zero. x/0 gives all ones (-1), as the GPU does."""
    wide = np.int64 if t.bits <= 32 else None
    if wide is not None:
        a64 = np.asarray(a, dtype=np.int64)
        b64 = np.asarray(b, dtype=np.int64)
        zero = b64 == 0
        safe = np.where(zero, 1, b64)
        q = np.abs(a64) // np.abs(safe)
        q = np.where((a64 < 0) != (safe < 0), -q, q)
        q = np.where(zero, -1, q)
        return q.astype(t.np)
    # 64-bit: work in the type itself (uint64 cannot be widened)
    a = np.asarray(a, dtype=t.np)
    b = np.asarray(b, dtype=t.np)
    zero = b == 0
    safe = np.where(zero, 1, b).astype(t.np)
    if t.is_signed:
        q = np.floor_divide(a, safe)
        r = a - q * safe
        q = np.where((r != 0) & ((a < 0) != (safe < 0)), q + 1, q).astype(t.np)
    else:
        q = a // safe
    return np.where(zero, np.array(-1).astype(t.np), q).astype(t.np)


def int_rem(a, b, t: Scalar):
    """C remainder: has the sign of the dividend. x % 0 gives x."""
    q = int_div(a, b, t)
    b_t = np.asarray(b, dtype=t.np)
    r = (np.asarray(a, dtype=t.np) - q * b_t).astype(t.np)
    return np.where(b_t == 0, np.asarray(a, dtype=t.np), r).astype(t.np)


def shl(a, b, t: Scalar):
    s = np.asarray(b).astype(np.uint64)
    big = s >= t.bits
    s = np.minimum(s, t.bits - 1).astype(t.np)
    return np.where(big, np.zeros((), t.np), np.left_shift(a, s)).astype(t.np)


def shr(a, b, t: Scalar):
    s = np.asarray(b).astype(np.uint64)
    big = s >= t.bits
    s = np.minimum(s, t.bits - 1).astype(t.np)
    shifted = np.right_shift(a, s)
    if t.is_signed:  # arithmetic shift: a clamped shift fills with the sign
        fill = np.where(np.asarray(a) < 0, np.array(-1, t.np), np.zeros((), t.np))
    else:
        fill = np.zeros((), t.np)
    return np.where(big, fill, shifted).astype(t.np)


def round_half_away(x):
    t = np.trunc(x)
    frac = x - t
    return np.where(np.abs(frac) >= 0.5, t + np.sign(x), t).astype(np.asarray(x).dtype)


_INT_LIMITS = {s: (np.iinfo(s.np).min, np.iinfo(s.np).max) for s in Scalar if s.is_int}


def convert(x, src: Scalar, dst: Scalar):
    """CVT with C/PTX semantics: float->int truncates and saturates, NaN -> 0; ints wrap.
    bfloat16 values are their bits (the MIR converts them only from/to float32)."""
    if dst is Scalar.BF16:
        return bfloat16.to_bits(x)
    if src is Scalar.BF16:
        return bfloat16.from_bits(x)
    if dst is Scalar.BOOL:
        return np.asarray(x) != 0
    if src.is_float and dst.is_int:
        lo, hi = _INT_LIMITS[dst]
        t = np.trunc(np.asarray(x, dtype=np.float64))
        over = t >= float(hi)
        under = t <= float(lo)
        bad = over | under | np.isnan(t)
        out = np.where(bad, 0.0, t).astype(dst.np)
        out = np.where(over, np.array(hi, dst.np), out)
        return np.where(under, np.array(lo, dst.np), out).astype(dst.np)
    return np.asarray(x).astype(dst.np)


def fmin(a, b):
    """The MIR's float MIN (Warp's CPU code): a NaN loses, a tie gives the first operand
    (numpy's fmin gives the second for -0.0 and +0.0)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.where((a <= b) | (b != b), a, b)[()]


def fmax(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.where((a >= b) | (b != b), a, b)[()]


def binary_fn(op: Op, t: Scalar):
    """The numpy function implementing a BINARY op on type ``t``."""
    if op in mathlib.FUNCTIONS:
        return mathlib.ufunc(op, t.np)
    if op is Op.DIV:
        return np.divide if t.is_float else (lambda a, b: int_div(a, b, t))
    if op is Op.REM:
        return np.fmod if t.is_float else (lambda a, b: int_rem(a, b, t))
    if op is Op.SHL:
        return lambda a, b: shl(a, b, t)
    if op is Op.SHR:
        return lambda a, b: shr(a, b, t)
    if op is Op.MIN:
        return fmin if t.is_float else np.minimum
    if op is Op.MAX:
        return fmax if t.is_float else np.maximum
    if t is Scalar.BOOL and op in (Op.AND, Op.OR, Op.XOR):
        return {Op.AND: np.logical_and, Op.OR: np.logical_or, Op.XOR: np.logical_xor}[op]
    return _BINARY[op]


_BINARY = {
    Op.ADD: np.add, Op.SUB: np.subtract, Op.MUL: np.multiply, Op.AND: np.bitwise_and,
    Op.OR: np.bitwise_or, Op.XOR: np.bitwise_xor,
}

COMPARE_FN = {Op.EQ: np.equal, Op.NE: np.not_equal, Op.LT: np.less, Op.LE: np.less_equal,
              Op.GT: np.greater, Op.GE: np.greater_equal}


def _rsqrt(x):
    return (np.ones((), x.dtype) / np.sqrt(x)).astype(x.dtype)


def unary_fn(op: Op, t: Scalar):
    if op in mathlib.FUNCTIONS:
        return mathlib.ufunc(op, t.np)
    if op is Op.NOT:
        return np.logical_not if t is Scalar.BOOL else np.invert
    if op is Op.ROUND:
        return round_half_away
    if op is Op.RSQRT:
        return lambda x: _rsqrt(np.asarray(x))
    return _UNARY[op]


_UNARY = {
    Op.NEG: np.negative, Op.ABS: np.abs, Op.SQRT: np.sqrt, Op.FLOOR: np.floor, Op.CEIL: np.ceil,
    Op.TRUNC: np.trunc, Op.ISNAN: np.isnan, Op.ISINF: np.isinf,
}
