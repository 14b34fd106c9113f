"""Bit and warp instructions the compilers emit around their arithmetic: prmt, lop3,
redux.sync, elect.sync, createpolicy and 32-bit carry chains, lowered to existing MIR ops."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.mir import Imm, Op, Reg, ShflMode, SReg
from ..ir.types import Scalar
from . import parser as P
from .table import handles

if TYPE_CHECKING:
    from .lower import Lowering

U32, U64, I32, BOOL = Scalar.U32, Scalar.U64, Scalar.I32, Scalar.BOOL


@handles("prmt", doc="prmt.b32 (the default mode): each result byte picked from the 8 bytes of "
                     "{b, a} by a selector nibble, its sign replicated when the nibble's bit 3 is set")
def _prmt(L: Lowering, s: P.Instruction) -> None:
    if s.mods != ("b32",):
        raise L.unsupported("modes other than the default (.f4e .b4e .rc8 .ecl .ecr .rc16)")
    d, a, b, c = s.operands
    both = L.value(Op.OR, U64, L.value(Op.SHL, U64, L.value(Op.CVT, U64, L.read(b, U32)), Imm(32, U64)),
                   L.value(Op.CVT, U64, L.read(a, U32)))
    known = L.constant(c)
    sel = None if known is not None else L.read(c, U32)
    out = None
    for k in range(4):
        if known is not None:
            nib = (known >> (4 * k)) & 15
            byte = L.value(Op.AND, U64, L.value(Op.SHR, U64, both, Imm(8 * (nib & 7), U64)), Imm(255, U64))
            if nib & 8:          # 0xFF if the byte's top bit is set, else 0
                top = L.value(Op.SHR, U64, byte, Imm(7, U64))
                byte = L.value(Op.MUL, U64, top, Imm(255, U64))
        else:
            nib = L.value(Op.AND, U32, L.value(Op.SHR, U32, sel, Imm(4 * k, U32)), Imm(15, U32))
            pos = L.value(Op.CVT, U64, L.value(Op.SHL, U32, L.value(Op.AND, U32, nib, Imm(7, U32)), Imm(3, U32)))
            byte = L.value(Op.AND, U64, L.value(Op.SHR, U64, both, pos), Imm(255, U64))
            rep = L.value(Op.CVT, U64, L.value(Op.SHR, U32, nib, Imm(3, U32)))
            top = L.value(Op.SHR, U64, byte, Imm(7, U64))
            byte = L.value(Op.SELECT, U64, L.value(Op.NE, BOOL, rep, Imm(0, U64)),
                           L.value(Op.MUL, U64, top, Imm(255, U64)), byte)
        if k:
            byte = L.value(Op.SHL, U64, byte, Imm(8 * k, U64))
        out = byte if out is None else L.value(Op.OR, U64, out, byte)
    L.emit(Op.CVT, (L.write(d, U32),), (out,))


@handles("lop3", doc="lop3.b32 d, a, b, c, immLut: any logic function of three inputs, as the "
                     "OR of the minterms the lookup table selects")
def _lop3(L: Lowering, s: P.Instruction) -> None:
    if s.mods != ("b32",) or len(s.operands) != 5:
        raise L.unsupported("forms other than lop3.b32 d, a, b, c, immLut")
    d, a, b, c, lut_o = s.operands
    lut = L.constant(lut_o)
    if lut is None:
        raise L.unsupported("a lookup table that is not an immediate")
    xs = [L.read(o, U32) for o in (a, b, c)]
    nots = [L.value(Op.NOT, U32, x) for x in xs]
    out = None
    for i in range(8):               # minterm i: a is bit 2 of i, b bit 1, c bit 0 (0xF0, 0xCC, 0xAA)
        if not (lut >> i) & 1:
            continue
        term = None
        for j, bit in enumerate((4, 2, 1)):
            lit = xs[j] if i & bit else nots[j]
            term = lit if term is None else L.value(Op.AND, U32, term, lit)
        out = term if out is None else L.value(Op.OR, U32, out, term)
    L.emit(Op.MOV, (L.write(d, U32),), (out if out is not None else Imm(0, U32),))


_REDUX = {"add": Op.ADD, "min": Op.MIN, "max": Op.MAX, "and": Op.AND, "or": Op.OR, "xor": Op.XOR}


@handles("redux", doc="redux.sync .add/.min/.max (.u32/.s32) and .and/.or/.xor (.b32) over the "
                      "full warp: a butterfly of five shuffles")
def _redux(L: Lowering, s: P.Instruction) -> None:
    ops = [m for m in s.mods if m in _REDUX]
    types = {"u32": U32, "s32": I32, "b32": U32}
    t = next((types[m] for m in s.mods if m in types), None)
    if "sync" not in s.mods or len(ops) != 1 or t is None or len(s.mods) != 3:
        raise L.unsupported()
    d, a, mask = s.operands
    if L.constant(mask) not in (0xFFFFFFFF, -1):
        raise L.unsupported("a member mask other than the full warp")
    x = L.read(a, t)
    full = Imm(0xFFFFFFFF, U32)
    for k in (16, 8, 4, 2, 1):
        other = L.value(Op.SHFL, t, x, Imm(k, I32), full, arg=ShflMode.XOR)
        x = L.value(_REDUX[ops[0]], t, x, other)
    L.emit(Op.MOV, (L.write(d, t),), (x,))


@handles("elect", doc="elect.sync with a lane and a predicate result and a member mask: the lowest "
                      "active lane of the mask is the leader (the lane result its number, the "
                      "predicate true in it); as every .sync instruction, every lane of the mask must "
                      "execute it (a WarpSyncError otherwise: on the GPU it hangs or is undefined)")
def _elect(L: Lowering, s: P.Instruction) -> None:
    if s.mods != ("sync",) or len(s.operands) != 2:
        raise L.unsupported()
    dp, mask = s.operands
    names = dp.name.split("|") if isinstance(dp, P.Reg) else []
    if len(names) != 2:
        raise L.unsupported("a destination other than d|p")
    L.emit(Op.SYNCWARP, (), (L.read(mask, U32),))       # the .sync rule, checked as bar.warp.sync's
    active = L.value(Op.AND, U32, L.value(Op.ACTIVEMASK, U32), L.read(mask, U32))
    lowest = L.value(Op.AND, U32, active, L.value(Op.NEG, U32, active))
    leader = L.value(Op.POPC, U32, L.value(Op.SUB, U32, lowest, Imm(1, U32)))
    me = L.value(Op.SREG, I32, arg=SReg.LANEID)
    if names[0] != "_":
        L.emit(Op.MOV, (L.write(P.Reg(names[0]), U32),), (leader,))
    if names[1] != "_":
        L.emit(Op.EQ, (L.write(P.Reg(names[1]), BOOL),), (L.cast_bits(me, U32), leader))


@handles("createpolicy", doc="createpolicy.* .b64: an opaque L2 cache policy (0: simt does not model "
                             "eviction priorities; loads and cp.async with .L2::cache_hint ignore it)")
def _createpolicy(L: Lowering, s: P.Instruction) -> None:
    d = s.operands[0]
    if s.mods[-1:] != ("b64",):
        raise L.unsupported()
    L.emit(Op.MOV, (L.write(d, U64),), (Imm(0, U64),))


# --- carry chains: add.cc / addc / sub.cc / subc / mad.lo.cc / madc (32-bit) ----------------

def _carry_reg(L: Lowering) -> Reg:
    """The carry flag (CC.CF) as a u32 register of 0 or 1, one per kernel."""
    r = L.regs.get("%cc.cf")
    if r is None:
        r = L.regs["%cc.cf"] = L.new_reg(Scalar.U32, "cf")
    return r


@handles("addc", "subc", "madc", doc="32-bit carry chains: add.cc/addc(.cc), sub.cc/subc(.cc), "
                                     "mad.lo/.hi.cc and madc.lo/.hi(.cc), the carry a hidden flag")
def carry(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    if t.bits != 32 or any(m not in ("cc", "lo", "hi", "u32", "s32", "b32") for m in s.mods):
        raise L.unsupported("carry chains other than 32-bit integers")
    u32, u64 = Scalar.U32, Scalar.U64
    base = {"addc": "add", "subc": "sub", "madc": "mad"}.get(s.opcode, s.opcode)
    carry_in = s.opcode in ("addc", "subc", "madc")
    d, a, b, *rest = s.operands
    x = L.value(Op.CVT, u64, L.read(a, u32))
    y = L.value(Op.CVT, u64, L.read(b, u32))
    if base == "mad":
        p = L.value(Op.MUL, u64, x, y)
        if "hi" in s.mods:
            p = L.value(Op.SHR, u64, p, Imm(32, u64))
        else:
            p = L.value(Op.AND, u64, p, Imm(0xFFFFFFFF, u64))
        x, y = p, L.value(Op.CVT, u64, L.read(rest[0], u32))
    cf = _carry_reg(L)
    if base == "sub":       # a - b - borrow, as a + ~b + (1 - borrow) (PTX's CF is a borrow)
        y = L.value(Op.XOR, u64, y, Imm(0xFFFFFFFF, u64))
        cin = L.value(Op.SUB, u64, Imm(1, u64), L.value(Op.CVT, u64, cf)) if carry_in else Imm(1, u64)
    else:
        cin = L.value(Op.CVT, u64, cf) if carry_in else Imm(0, u64)
    total = L.value(Op.ADD, u64, L.value(Op.ADD, u64, x, y), cin)
    L.emit(Op.CVT, (L.write(d, u32),), (total,))
    if "cc" in s.mods:
        out = L.value(Op.CVT, u32, L.value(Op.SHR, u64, total, Imm(32, u64)))
        if base == "sub":
            out = L.value(Op.XOR, u32, out, Imm(1, u32))
        L.emit(Op.MOV, (cf,), (out,))


def carry_form(s: P.Instruction) -> bool:
    """add.cc / sub.cc / mad.lo.cc / mad.hi.cc: the first of a chain (handled by carry)."""
    return "cc" in s.mods and s.opcode in ("add", "sub", "mad")
