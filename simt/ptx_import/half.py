"""Half precision: PTX's .f16, .bf16, .f16x2 and .bf16x2 forms, lowered to existing MIR ops.

A half lives in a 16-bit register (two in a 32-bit one, the first element in the low bits).
Arithmetic widens to f32 (exact), computes there and rounds back to nearest even:
add, sub, mul, min and max on two halves are correctly rounded so (f32 carries more than
twice a half's precision plus two bits, so rounding twice gives the same bits). fma is
computed as an exact product plus one f64 addition, rounded to f32 to odd and then to the
half: correctly rounded too (rounding to odd with two spare bits makes the second rounding
exact). Only .rn rounding is supported.

The handlers of ops.py call ``lower_half`` first when an instruction names a half type.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..ir.mir import Imm, Op, Reg
from ..ir.types import Scalar
from . import parser as P

if TYPE_CHECKING:
    from .lower import Lowering

HALF = {"f16": (Scalar.F16, 1), "f16x2": (Scalar.F16, 2), "bf16": (Scalar.BF16, 1),
        "bf16x2": (Scalar.BF16, 2)}
U16, U32, F32, F64 = Scalar.U16, Scalar.U32, Scalar.F32, Scalar.F64
_SIGN = {1: 0x8000, 2: 0x8000_8000}
DOC = ("f16, bf16, f16x2, bf16x2: add/sub/mul/min/max/fma (.rn, .ftz, .sat) computed in f32 or "
       "exactly and rounded to nearest even (correctly rounded), neg/abs, setp (one predicate), "
       "cvt to and from f32/f64 and 8- to 32-bit integers (.rn to a half; f16x2/bf16x2 from two "
       "f32), ld/st/mov/selp as 16- or 32-bit data")


def half_form(s: P.Instruction) -> tuple[Scalar, int] | None:
    """(the half type, 1 or 2 lanes) when the instruction names a half type."""
    for m in s.mods:
        if m in HALF:
            return HALF[m]
    return None


def _data_mods(s: P.Instruction) -> P.Instruction:
    """The instruction with its half types spelled as the same-width bits (b16/b32)."""
    mods = tuple({"f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32"}.get(m, m) for m in s.mods)
    return P.Instruction(s.opcode, mods, s.operands, s.guard, s.negated, s.line, s.loc, s.text)


# --- halves <-> f32 values ------------------------------------------------------------------

def _bits_to_value(bits: int, ht: Scalar) -> float:
    b = np.uint16(bits)
    if ht is Scalar.F16:
        return float(b.view(np.float16))
    return float((np.uint32(b) << np.uint32(16)).view(np.float32))


def read_lanes(L: Lowering, o: P.Operand, ht: Scalar, lanes: int) -> list:
    """An operand's halves as f32 values (exact), lane 0 first."""
    if isinstance(o, P.Imm):          # half immediates are their bits (0x3C00), or 0f floats
        text = o.text.rstrip("U")
        if text[:2] in ("0f", "0F", "0d", "0D"):
            v = L.imm(text, F32)
            return [v] * lanes
        bits = int(text, 0)
        return [Imm(_bits_to_value((bits >> (16 * k)) & 0xFFFF, ht), F32) for k in range(lanes)]
    if lanes == 1:
        parts = [L.read(o, U16)]
    else:
        w = L.read(o, U32)
        parts = [L.value(Op.CVT, U16, w), L.value(Op.CVT, U16, L.value(Op.SHR, U32, w, Imm(16, U32)))]
    return [L.value(Op.CVT, F32, L.value(Op.BITCAST, ht, p)) for p in parts]


def round_bits(L: Lowering, v, ht: Scalar) -> Reg:
    """An f32 value rounded to nearest even as a half's 16 bits."""
    return L.value(Op.BITCAST, U16, L.value(Op.CVT, ht, v))


def write_lanes(L: Lowering, d: P.Operand, bits: list) -> None:
    if len(bits) == 1:
        L.emit(Op.MOV, (L.write(d, U16),), (bits[0],))
        return
    lo = L.value(Op.CVT, U32, bits[0])
    hi = L.value(Op.SHL, U32, L.value(Op.CVT, U32, bits[1]), Imm(16, U32))
    L.emit(Op.OR, (L.write(d, U32),), (lo, hi))


def f64_to_f32_odd(L: Lowering, x) -> Reg:
    """An f64 value rounded to f32 toward zero, its last bit set when inexact (round to odd):
    rounding that to a half to nearest gives the half nearest ``x``."""
    r = L.value(Op.CVT, F32, x)
    back = L.value(Op.CVT, F64, r)
    over = L.value(Op.GT, Scalar.BOOL, L.value(Op.ABS, F64, back), L.value(Op.ABS, F64, x))
    bits = L.value(Op.BITCAST, U32, r)
    bits = L.value(Op.SUB, U32, bits, L.value(Op.SELECT, U32, over, Imm(1, U32), Imm(0, U32)))
    inexact = L.value(Op.NE, Scalar.BOOL, L.value(Op.CVT, F64, L.value(Op.BITCAST, F32, bits)), x)
    odd = L.value(Op.OR, U32, bits, L.value(Op.SELECT, U32, inexact, Imm(1, U32), Imm(0, U32)))
    return L.value(Op.BITCAST, F32, odd)


# --- the instructions ------------------------------------------------------------------------

_BIN = {"add": Op.ADD, "sub": Op.SUB, "mul": Op.MUL, "min": Op.MIN, "max": Op.MAX}
_ALLOWED = {"rn", "ftz", "sat", *HALF}


def lower_half(L: Lowering, s: P.Instruction, fallback) -> None:
    """Lower an instruction naming a half type; ``fallback`` lowers plain data forms."""
    ht, lanes = half_form(s)
    op = s.opcode
    if op in ("ld", "st", "mov", "selp", "and", "or", "xor", "not"):
        return fallback(L, _data_mods(s))
    if op == "cvt":
        return _cvt(L, s)
    bad = [m for m in s.mods if m not in _ALLOWED and not (op == "setp")]
    if bad:
        raise L.unsupported(f"modifier .{bad[0]} on a half type")
    if op in _BIN:
        d, a, b = s.operands
        xs, ys = read_lanes(L, a, ht, lanes), read_lanes(L, b, ht, lanes)
        out = [_sat(L, s, L.value(_BIN[op], F32, x, y)) for x, y in zip(xs, ys)]
        return write_lanes(L, d, [round_bits(L, v, ht) for v in out])
    if op in ("fma", "mad"):
        d, a, b, c = s.operands
        lanes_in = [read_lanes(L, o, ht, lanes) for o in (a, b, c)]
        out = []
        for x, y, z in zip(*lanes_in):
            wide = [L.value(Op.CVT, F64, v) if isinstance(v, Reg) else Imm(float(v.value), F64)
                    for v in (x, y, z)]
            exact = L.value(Op.MUL, F64, wide[0], wide[1])         # 22 bits: exact
            total = L.value(Op.ADD, F64, exact, wide[2])
            out.append(round_bits(L, _sat(L, s, f64_to_f32_odd(L, total)), ht))
        return write_lanes(L, d, out)
    if op in ("neg", "abs"):
        d, a = s.operands
        t = U16 if lanes == 1 else U32
        x = L.read(a, t)
        sign = _SIGN[lanes]
        if op == "neg":
            L.emit(Op.XOR, (L.write(d, t),), (x, Imm(sign, t)))
        else:
            L.emit(Op.AND, (L.write(d, t),), (x, Imm(~sign & (1 << t.bits) - 1, t)))
        return
    if op == "setp":
        if lanes != 1 or len(s.operands) != 3:
            raise L.unsupported("setp of half pairs (two predicates), or with a predicate operand")
        from .ops import _compare
        d, a, b = s.operands
        cmp = s.mods[0]
        (x,), (y,) = read_lanes(L, a, ht, 1), read_lanes(L, b, ht, 1)
        L.emit(Op.MOV, (L.write(d, Scalar.BOOL),), (_compare(L, cmp, F32, x, y),))
        return
    raise L.unsupported("this instruction on half types")


def _sat(L: Lowering, s: P.Instruction, v):
    if "sat" not in s.mods:
        return v
    return L.value(Op.MIN, F32, L.value(Op.MAX, F32, v, Imm(0.0, F32)), Imm(1.0, F32))


_INTS = {"s8": Scalar.I8, "s16": Scalar.I16, "s32": Scalar.I32, "u8": Scalar.U8, "u16": Scalar.U16,
         "u32": Scalar.U32}
_ROUND_INT = {"rni": Op.RINT, "rzi": Op.TRUNC, "rmi": Op.FLOOR, "rpi": Op.CEIL}


def _cvt(L: Lowering, s: P.Instruction) -> None:
    mods = [m for m in s.mods if m not in ("ftz",)]
    if len(mods) < 2:
        raise L.unsupported()
    dst, src = mods[-2], mods[-1]
    rnd = mods[:-2]
    d, *srcs = s.operands
    if src in HALF and dst in ("f32", "f64") and not rnd:            # exact widening
        (v,) = read_lanes(L, srcs[0], HALF[src][0], 1)
        L.emit(Op.MOV if dst == "f32" else Op.CVT, (L.write(d, F32 if dst == "f32" else F64),), (v,))
        return
    if src in HALF and (dst in _INTS or dst in ("s64", "u64")) and len(rnd) == 1 and rnd[0] in _ROUND_INT:
        from .table import TYPES
        (v,) = read_lanes(L, srcs[0], HALF[src][0], 1)
        if rnd[0] != "rzi":
            v = L.value(_ROUND_INT[rnd[0]], F32, v)
        L.emit(Op.CVT, (L.write(d, TYPES[dst]),), (v,))
        return
    if dst in HALF and src not in HALF:
        ht, lanes = HALF[dst]
        if rnd not in (["rn"], ["rn", "relu"]) and not (rnd == [] and src in _INTS):
            raise L.unsupported("conversions to a half other than .rn")
        if len(srcs) != lanes:
            raise L.unsupported("operand count")
        out = []
        for o in reversed(srcs) if lanes == 2 else srcs:         # f16x2 d, a, b: a in the high half
            out.append(round_bits(L, _exactish(L, o, src, s, "relu" in rnd), ht))
        return write_lanes(L, d, out)
    raise L.unsupported("this conversion between half and other types")


def _exactish(L: Lowering, o: P.Operand, src: str, s: P.Instruction, relu: bool):
    """A value to round to a half: f32 as it is (one rounding); f64 and integers through f64
    rounded to odd (so the rounding to the half is the only one that counts)."""
    from .table import TYPES
    if src == "f32":
        v = L.read(o, F32)
    elif src == "f64" or src in _INTS:
        x = L.read(o, TYPES[src])
        x = x if src == "f64" else L.value(Op.CVT, F64, x)
        v = f64_to_f32_odd(L, x)
    else:
        raise L.unsupported(f"conversion from .{src} to a half")
    if relu:      # negative -> 0, NaN stays NaN
        v = L.value(Op.SELECT, F32, L.value(Op.LT, Scalar.BOOL, v, Imm(0.0, F32)), Imm(0.0, F32), v)
    return v
