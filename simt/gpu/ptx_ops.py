"""PTX for each MIR op: arithmetic, comparisons, conversions and control flow.

Memory, atomics and warp/block ops are in ptx_memory.py, float math routines in ptx_math.py.
Every lowering writes its destination last, so a destination that is also a source is safe.
"""
from __future__ import annotations

from ..ir.mir import BINARY, COMPARE, UNARY, Imm, Instr, Op
from ..ir.types import Scalar
from . import ptx_math, ptx_special, ptx_memory
from .ptx import BITS_TYPE, INT_TYPE, Emitter, imm_text


def lower_function(em: Emitter) -> None:
    fn = em.fn
    em.load_params()
    for i, block in enumerate(fn.blocks):
        following = fn.blocks[i + 1].label if i + 1 < len(fn.blocks) else None
        em.label(block_label(block.label))
        for ins in block.instrs:
            em.loc(ins.loc)
            if ins.is_terminator:
                lower_terminator(em, ins, following)
            else:
                lower_instr(em, ins)


def block_label(label: str) -> str:
    return f"$B_{label}"


def lower_terminator(em: Emitter, ins: Instr, following: str | None) -> None:
    if ins.op is Op.RET:
        em.ins("ret")
    elif ins.op is Op.BR:
        if ins.arg != following:
            em.ins(f"bra {block_label(ins.arg)}")
    else:
        on_true, on_false = ins.arg
        cond = ins.srcs[0]
        if isinstance(cond, Imm):
            target = on_true if cond.value else on_false
            if target != following:
                em.ins(f"bra {block_label(target)}")
            return
        p = em.reg(cond)
        if on_true == following:
            em.ins(f"@!{p} bra {block_label(on_false)}")
        else:
            em.ins(f"@{p} bra {block_label(on_true)}")
            if on_false != following:
                em.ins(f"bra {block_label(on_false)}")


def lower_instr(em: Emitter, ins: Instr) -> None:
    op = ins.op
    if op in BINARY:
        t = ins.srcs[0].type
        if t.is_float:
            ptx_math.binary(em, op, em.reg(ins.dst), em.val(ins.srcs[0]), em.val(ins.srcs[1]), t)
        else:
            _int_binary(em, ins, t)
    elif op in COMPARE:
        _compare(em, ins)
    elif op in UNARY or op in (Op.ISNAN, Op.ISINF):
        t = ins.srcs[0].type
        if op in ptx_special.ROUTINES:
            routine = ptx_special.ROUTINES[op]
            ptx_math.approximate(em, op, t, em.reg(ins.dst), [em.val(ins.srcs[0])],
                                 lambda m, args: routine(m, args[0]))
        elif t.is_float:
            ptx_math.unary(em, op, em.reg(ins.dst), em.val(ins.srcs[0]), t)
        else:
            _int_unary(em, ins, t)
    elif op is Op.MOV:
        em.ins(f"mov.{BITS_TYPE[ins.dst.type]} {em.reg(ins.dst)}, {em.val(ins.srcs[0])}")
    elif op is Op.SELECT:
        _select(em, ins)
    elif op is Op.CVT:
        convert(em, em.reg(ins.dst), ins.srcs[0], ins.dst.type)
    else:
        ptx_memory.lower(em, ins)


# ---- integers -----------------------------------------------------------------------------

def normalize_8bit(em: Emitter, d: str, t: Scalar) -> None:
    """Re-extend an 8- or 16-bit value from its low bits, so it wraps like int8/uint8/int16/uint16."""
    if t is Scalar.I8:
        em.ins(f"cvt.s32.s8 {d}, {d}")
    elif t is Scalar.U8:
        em.ins(f"and.b32 {d}, {d}, 255")
    elif t is Scalar.I16:
        em.ins(f"cvt.s32.s16 {d}, {d}")
    elif t is Scalar.U16:
        em.ins(f"and.b32 {d}, {d}, 65535")


_SIMPLE_INT = {Op.ADD: "add", Op.SUB: "sub", Op.MUL: "mul.lo", Op.MIN: "min", Op.MAX: "max"}
_BITWISE = {Op.AND: "and", Op.OR: "or", Op.XOR: "xor"}


def _int_binary(em: Emitter, ins: Instr, t: Scalar) -> None:
    op = ins.op
    d = em.reg(ins.dst)
    a, b = (em.val(s) for s in ins.srcs)
    if t is Scalar.BOOL:
        em.ins(f"{_BITWISE[op]}.pred {d}, {a}, {b}")
        return
    if op in _SIMPLE_INT:
        em.ins(f"{_SIMPLE_INT[op]}.{INT_TYPE[t]} {d}, {a}, {b}")
    elif op in _BITWISE:
        em.ins(f"{_BITWISE[op]}.{BITS_TYPE[t]} {d}, {a}, {b}")
    elif op in (Op.SHL, Op.SHR):
        _shift(em, ins, t, d, a)
        return
    elif op in (Op.DIV, Op.REM):
        _div_rem(em, ins, t, d, a)
    else:
        raise NotImplementedError(f"PTX backend: {op.name} on {t}")
    if op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV):
        normalize_8bit(em, d, t)


def _shift(em: Emitter, ins: Instr, t: Scalar, d: str, a: str) -> None:
    """PTX clamps shift amounts >= the width, as the MIR does; 64-bit shifts take a u32
    amount, so a 64-bit amount is clamped to 64 first."""
    op_name = "shl" if ins.op is Op.SHL else "shr"
    kind = "b" + BITS_TYPE[t][1:] if ins.op is Op.SHL else INT_TYPE[t]
    amount = ins.srcs[1]
    if isinstance(amount, Imm):
        count = int(amount.value) % (1 << 64)          # negative amounts are huge unsigned ones
        s = str(min(count, 64 if t.bits == 64 else 32))
    elif t.bits == 64:
        big, low, s = em.tmp(Scalar.BOOL), em.tmp("%r"), em.tmp("%r")
        em.ins(f"setp.gt.u64 {big}, {em.reg(amount)}, 63")
        em.ins(f"cvt.u32.u64 {low}, {em.reg(amount)}")
        em.ins(f"selp.b32 {s}, 64, {low}, {big}")
    else:
        s = em.reg(amount)
    em.ins(f"{op_name}.{kind} {d}, {a}, {s}")
    if ins.op is Op.SHL:
        normalize_8bit(em, d, t)


def _div_rem(em: Emitter, ins: Instr, t: Scalar, d: str, a: str) -> None:
    """C division and remainder with the MIR's defined edge cases, which PTX leaves undefined:
    x / 0 == -1 (all ones), x % 0 == x, INT_MIN / -1 == INT_MIN, x % -1 == 0."""
    it, bt = INT_TYPE[t], BITS_TYPE[t]
    is_div = ins.op is Op.DIV
    name = "div" if is_div else "rem"
    divisor = ins.srcs[1]
    if isinstance(divisor, Imm):
        value = int(divisor.value)
        if value == 0:
            em.ins(f"mov.{bt} {d}, {'-1' if is_div else a}")
        elif value == -1 and t.is_signed:
            em.ins(f"neg.{it} {d}, {a}" if is_div else f"mov.{bt} {d}, 0")
        else:
            em.ins(f"{name}.{it} {d}, {a}, {em.val(divisor)}")
        return
    b = em.reg(divisor)
    zero, safe = em.tmp(Scalar.BOOL), em.tmp(t)
    em.ins(f"setp.eq.{it} {zero}, {b}, 0")
    minus_one = None
    if t.is_signed:
        minus_one, unsafe = em.tmp(Scalar.BOOL), em.tmp(Scalar.BOOL)
        em.ins(f"setp.eq.{it} {minus_one}, {b}, -1")
        em.ins(f"or.pred {unsafe}, {zero}, {minus_one}")
        em.ins(f"selp.{bt} {safe}, 1, {b}, {unsafe}")
    else:
        em.ins(f"selp.{bt} {safe}, 1, {b}, {zero}")
    result = em.tmp(t)
    em.ins(f"{name}.{it} {result}, {a}, {safe}")
    if is_div:
        if minus_one is not None:
            negated = em.tmp(t)
            em.ins(f"neg.{it} {negated}, {a}")
            em.ins(f"selp.{bt} {result}, {negated}, {result}, {minus_one}")
        em.ins(f"selp.{bt} {d}, -1, {result}, {zero}")
    else:
        em.ins(f"selp.{bt} {d}, {a}, {result}, {zero}")


def _int_unary(em: Emitter, ins: Instr, t: Scalar) -> None:
    d, a = em.reg(ins.dst), em.val(ins.srcs[0])
    op = ins.op
    if t is Scalar.BOOL:
        if op is not Op.NOT:
            raise NotImplementedError(f"PTX backend: {op.name} on bool")
        em.ins(f"not.pred {d}, {a}")
        return
    signed = "s" + INT_TYPE[t][1:]
    if op is Op.NEG:
        em.ins(f"neg.{signed} {d}, {a}")
    elif op is Op.NOT:
        em.ins(f"not.{BITS_TYPE[t]} {d}, {a}")
    elif op is Op.ABS:
        em.ins(f"abs.{signed} {d}, {a}" if t.is_signed else f"mov.{BITS_TYPE[t]} {d}, {a}")
    elif op is Op.POPC:
        _popc(em, t, d, a)
        return
    else:
        raise NotImplementedError(f"PTX backend: {op.name} on {t}")
    normalize_8bit(em, d, t)


def _popc(em: Emitter, t: Scalar, d: str, a: str) -> None:
    """Set bits of the type's own width: popc.b32/.b64 (a u32 count); 8- and 16-bit values
    sit sign-extended in 32-bit registers, so only their low byte(s) are counted."""
    if t.bits == 64:
        count = em.tmp("%r")
        em.ins(f"popc.b64 {count}, {a}")
        em.ins(f"cvt.u64.u32 {d}, {count}")
    elif t.bits in (8, 16):
        low = em.tmp("%r")
        em.ins(f"and.b32 {low}, {a}, {(1 << t.bits) - 1}")
        em.ins(f"popc.b32 {d}, {low}")
    else:
        em.ins(f"popc.b32 {d}, {a}")


# ---- comparisons, select, conversions -----------------------------------------------------

_SETP = {Op.EQ: "eq", Op.NE: "ne", Op.LT: "lt", Op.LE: "le", Op.GT: "gt", Op.GE: "ge"}


def _compare(em: Emitter, ins: Instr) -> None:
    d = em.reg(ins.dst)
    t = ins.srcs[0].type
    if t is Scalar.BOOL:
        a, b = (em.val(s) for s in ins.srcs)
        if ins.op in (Op.EQ, Op.NE):
            if ins.op is Op.NE:
                em.ins(f"xor.pred {d}, {a}, {b}")
            else:
                differ = em.tmp(Scalar.BOOL)
                em.ins(f"xor.pred {differ}, {a}, {b}")
                em.ins(f"not.pred {d}, {differ}")
            return
        ia, ib = em.tmp("%r"), em.tmp("%r")
        em.ins(f"selp.u32 {ia}, 1, 0, {a}")
        em.ins(f"selp.u32 {ib}, 1, 0, {b}")
        em.ins(f"setp.{_SETP[ins.op]}.u32 {d}, {ia}, {ib}")
        return
    cmp = _SETP[ins.op]
    if t.is_float and ins.op is Op.NE:
        cmp = "neu"            # NaN != x is true, as in C and numpy
    a, b = (em.val(s) for s in ins.srcs)
    em.ins(f"setp.{cmp}.{INT_TYPE[t]} {d}, {a}, {b}")


def _select(em: Emitter, ins: Instr) -> None:
    cond, on_true, on_false = ins.srcs
    d = em.reg(ins.dst)
    t = ins.dst.type
    if isinstance(cond, Imm):
        em.ins(f"mov.{BITS_TYPE[t]} {d}, {em.val(on_true if cond.value else on_false)}")
        return
    c = em.reg(cond)
    if t is Scalar.BOOL:
        both, other, not_c = em.tmp(t), em.tmp(t), em.tmp(t)
        em.ins(f"and.pred {both}, {c}, {em.val(on_true)}")
        em.ins(f"not.pred {not_c}, {c}")
        em.ins(f"and.pred {other}, {not_c}, {em.val(on_false)}")
        em.ins(f"or.pred {d}, {both}, {other}")
        return
    em.ins(f"selp.{BITS_TYPE[t]} {d}, {em.val(on_true)}, {em.val(on_false)}, {c}")


_8BIT_LIMITS = {Scalar.I8: (-128, 127), Scalar.U8: (0, 255), Scalar.I16: (-32768, 32767),
                Scalar.U16: (0, 65535)}


def convert(em: Emitter, d: str, x, dst: Scalar) -> None:
    """CVT with the MIR's C semantics: ints wrap, float->int truncates and saturates (NaN -> 0),
    int->float and float64->float32 round to nearest, anything -> bool is ``!= 0``."""
    src = x.type
    a = em.val(x)
    if src is dst:
        em.ins(f"mov.{BITS_TYPE[dst]} {d}, {a}")
    elif dst is Scalar.BOOL:
        em.ins(f"setp.{'neu' if src.is_float else 'ne'}.{INT_TYPE[src]} {d}, {a}, 0")
    elif src is Scalar.BOOL:
        one, zero = imm_text(1, dst), imm_text(0, dst)
        em.ins(f"selp.{BITS_TYPE[dst]} {d}, {one}, {zero}, {a}")
    elif dst is Scalar.F16:                 # the MIR converts float16 only from/to float32
        em.ins(f"cvt.rn.f16.f32 {d}, {a}")
    elif src is Scalar.F16:
        em.ins(f"cvt.f32.f16 {d}, {a}")
    elif dst is Scalar.BF16:
        em.ins(f"cvt.rn.bf16.f32 {d}, {a}")
    elif src is Scalar.BF16:                # exact: the bits are the top half of a float32
        wide = em.tmp("%r")
        em.ins(f"cvt.u32.u16 {wide}, {em.materialize(x)}")
        em.ins(f"shl.b32 {wide}, {wide}, 16")
        em.ins(f"mov.b32 {d}, {wide}")
    elif src.is_float and dst.is_float:
        em.ins(f"cvt.rn.f32.f64 {d}, {a}" if dst is Scalar.F32 else f"cvt.f64.f32 {d}, {a}")
    elif src.is_float:
        _float_to_int(em, d, x, src, dst)
    elif dst.is_float:
        em.ins(f"cvt.rn.{INT_TYPE[dst]}.{INT_TYPE[src]} {d}, {a}")
    else:
        _int_to_int(em, d, a, src, dst)


def _float_to_int(em: Emitter, d: str, x, src: Scalar, dst: Scalar) -> None:
    """cvt.rzi saturates; 8-bit targets saturate through 32 bits. NaN gives 0 explicitly:
    the hardware's cvt gives the most negative integer for NaN in some type pairs."""
    value = em.materialize(x)
    wide = em.tmp(dst)
    em.ins(f"cvt.rzi.{INT_TYPE[dst]}.{INT_TYPE[src]} {wide}, {value}")
    if dst in _8BIT_LIMITS:
        lo, hi = _8BIT_LIMITS[dst]
        if dst.is_signed:
            em.ins(f"max.s32 {wide}, {wide}, {lo}")
        em.ins(f"min.{INT_TYPE[dst]} {wide}, {wide}, {hi}")
    nan = em.tmp(Scalar.BOOL)
    em.ins(f"testp.notanumber.{INT_TYPE[src]} {nan}, {value}")
    em.ins(f"selp.{BITS_TYPE[dst]} {d}, 0, {wide}, {nan}")


def _int_to_int(em: Emitter, d: str, a: str, src: Scalar, dst: Scalar) -> None:
    if src.bits == 64 and dst.bits < 64:
        em.ins(f"cvt.u32.u64 {d}, {a}")
        normalize_8bit(em, d, dst)
    elif src.bits < 64 and dst.bits == 64:     # 8-bit values are already extended to 32
        em.ins(f"cvt.{'s64.s32' if src.is_signed else 'u64.u32'} {d}, {a}")
    else:
        em.ins(f"mov.{BITS_TYPE[dst]} {d}, {a}")
        if dst.bits < 32:
            normalize_8bit(em, d, dst)

