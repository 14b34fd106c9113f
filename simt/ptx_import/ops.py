"""The handlers: how each PTX opcode becomes MIR (registered in simt/ptx_import/table.py).

Each handler gets the Lowering (simt/ptx_import/lower.py: operands as typed MIR values,
destinations, blocks) and one parsed instruction, and raises ``L.unsupported(...)`` for any
form it does not handle, so the CompileError names the instruction and its PTX line.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.mir import (GENERIC_LOCAL_BASE, GENERIC_SHARED_BASE, AtomArg, AtomOp, Block, Imm, Op, Pointer, Reg,
                      ShflMode, Space, SReg, VoteMode)
from ..ir.types import Scalar
from . import parser as P
from . import half
from .bits import carry, carry_form
from .table import HANDLERS, IGNORED_MODS, SREGS, TYPES, Handler, handles

if TYPE_CHECKING:
    from .lower import Lowering

def _binary(L: Lowering, s: P.Instruction, op: Op, t: Scalar) -> None:
    d, a, b = s.operands
    x, y = L.read(a, t), L.read(b, t)
    L.emit(op, (L.write(d, t),), (x, y))


_BIN = {"add": Op.ADD, "sub": Op.SUB, "div": Op.DIV, "rem": Op.REM, "min": Op.MIN,
        "max": Op.MAX, "and": Op.AND, "or": Op.OR, "xor": Op.XOR}


def _check_mods(L: Lowering, s: P.Instruction, allowed=()) -> None:
    for m in s.mods:
        if m not in TYPES and m not in IGNORED_MODS and m not in allowed:
            raise L.unsupported(f"modifier .{m}")


@handles("add", "sub", "div", "rem", "min", "max", "and", "or", "xor",
         doc="s32/u32/s64/u64/f32/f64 (and/or/xor also .pred, .b32, .b64); .rn (the default), "
             "add/sub .rz/.rm/.rp on f32 (as an FMA with that rounding), .ftz "
             "(subnormals are kept), div.approx/.full (IEEE division)")
def _arith(L: Lowering, s: P.Instruction) -> None:
    if carry_form(s):
        return carry(L, s)
    mode = next((m for m in s.mods if m in ("rz", "rm", "rp")), None)
    if mode is not None and s.opcode in ("add", "sub"):
        return _directed(L, s, mode)
    _check_mods(L, s)
    t = L.type_of(s)
    _binary(L, s, _BIN[s.opcode], t)


def _directed(L: Lowering, s: P.Instruction, mode: str) -> None:
    """add/sub/mul .rz/.rm/.rp f32 as one FMA with that rounding (x*1 + y, x*y + 0)."""
    _check_mods(L, s, ("rz", "rm", "rp"))
    t = L.type_of(s)
    if t is not Scalar.F32:
        raise L.unsupported("directed rounding other than on f32")
    d, a, b = s.operands
    x, y = L.read(a, t), L.read(b, t)
    if s.opcode == "mul":
        srcs = (x, y, Imm(0.0, t))
    else:
        srcs = (x, Imm(1.0, t), y if s.opcode == "add" else L.value(Op.NEG, t, y))
    L.emit(Op.FMA, (L.write(d, t),), srcs, mode)


@handles("mul", doc=".lo, .wide (32-bit), .hi (32- and 64-bit) on integers; f32/f64, .rz/.rm/.rp on f32")
def _mul(L: Lowering, s: P.Instruction) -> None:
    mode = next((m for m in s.mods if m in ("rz", "rm", "rp")), None)
    if mode is not None:
        return _directed(L, s, mode)
    _check_mods(L, s)
    t = L.type_of(s)
    d, a, b = s.operands
    if t.is_float or "lo" in s.mods or not ("wide" in s.mods or "hi" in s.mods):
        return _binary(L, s, Op.MUL, t)
    if t.bits == 64 and "hi" in s.mods:
        L.emit(Op.MOV, (L.write(d, t),), (_mul_hi_64(L, L.read(a, t), L.read(b, t), t),))
        return
    if t.bits != 32:
        raise L.unsupported("64-bit .wide")
    wide = Scalar.I64 if t.np.kind == "i" else Scalar.U64
    x = L.value(Op.CVT, wide, L.read(a, t))
    y = L.value(Op.CVT, wide, L.read(b, t))
    if "wide" in s.mods:
        L.emit(Op.MUL, (L.write(d, wide),), (x, y))
        return
    p = L.value(Op.MUL, wide, x, y)
    h = L.value(Op.SHR, wide, p, Imm(32, wide))
    L.emit(Op.CVT, (L.write(d, t),), (h,))


def _mul_hi_64(L: Lowering, a, b, t: Scalar) -> Reg:
    """The high 64 bits of a 128-bit product, from 32-bit halves (no MIR op is wider)."""
    u = Scalar.U64
    x = a if a.type is u else (L.cast_bits(a, u) if isinstance(a, Reg) else Imm(a.value % 2**64, u))
    y = b if b.type is u else (L.cast_bits(b, u) if isinstance(b, Reg) else Imm(b.value % 2**64, u))
    mask, k32 = Imm(0xFFFFFFFF, u), Imm(32, u)
    xl, xh = L.value(Op.AND, u, x, mask), L.value(Op.SHR, u, x, k32)
    yl, yh = L.value(Op.AND, u, y, mask), L.value(Op.SHR, u, y, k32)
    low = L.value(Op.MUL, u, xl, yl)
    m1 = L.value(Op.ADD, u, L.value(Op.MUL, u, xh, yl), L.value(Op.SHR, u, low, k32))
    m2 = L.value(Op.ADD, u, L.value(Op.MUL, u, xl, yh), L.value(Op.AND, u, m1, mask))
    hi = L.value(Op.ADD, u, L.value(Op.MUL, u, xh, yh), L.value(Op.SHR, u, m1, k32))
    hi = L.value(Op.ADD, u, hi, L.value(Op.SHR, u, m2, k32))
    if t.np.kind == "i":     # signed: subtract b where a < 0 and a where b < 0 (mod 2**64)
        zero = Imm(0, u)
        neg_x = L.value(Op.SHR, u, x, Imm(63, u))
        neg_y = L.value(Op.SHR, u, y, Imm(63, u))
        hi = L.value(Op.SUB, u, hi, L.value(Op.SELECT, u, L.value(Op.NE, Scalar.BOOL, neg_x, zero), y, zero))
        hi = L.value(Op.SUB, u, hi, L.value(Op.SELECT, u, L.value(Op.NE, Scalar.BOOL, neg_y, zero), x, zero))
    return hi if t is u else L.cast_bits(hi, t)


@handles("mad", doc=".lo and .wide (32-bit) on integers; mad.rn.f32/f64 is fma")
def _mad(L: Lowering, s: P.Instruction) -> None:
    if carry_form(s):
        return carry(L, s)
    _check_mods(L, s)
    t = L.type_of(s)
    d, a, b, c = s.operands
    if t.is_float:
        L.emit(Op.FMA, (L.write(d, t),), (L.read(a, t), L.read(b, t), L.read(c, t)))
        return
    if "hi" in s.mods:
        raise L.unsupported("mad.hi")
    if "wide" in s.mods:
        if t.bits != 32:
            raise L.unsupported("64-bit .wide")
        wide = Scalar.I64 if t.np.kind == "i" else Scalar.U64
        x = L.value(Op.CVT, wide, L.read(a, t))
        y = L.value(Op.CVT, wide, L.read(b, t))
        p = L.value(Op.MUL, wide, x, y)
        L.emit(Op.ADD, (L.write(d, wide),), (p, L.read(c, wide)))
        return
    p = L.value(Op.MUL, t, L.read(a, t), L.read(b, t))
    L.emit(Op.ADD, (L.write(d, t),), (p, L.read(c, t)))


@handles("fma", doc="fma.rn.f32/f64; fma.rz/.rm/.rp.f32 (exact when the sum fits a double, as in expf's "
                    "range reduction)")
def _fma(L: Lowering, s: P.Instruction) -> None:
    _check_mods(L, s, ("rz", "rm", "rp"))
    t = L.type_of(s)
    mode = next((m for m in s.mods if m in ("rz", "rm", "rp")), None)
    if "sat" in s.mods or (mode is not None and t is not Scalar.F32):
        raise L.unsupported("directed rounding of f64, or .sat")
    d, a, b, c = s.operands
    L.emit(Op.FMA, (L.write(d, t),), (L.read(a, t), L.read(b, t), L.read(c, t)), mode)


_UN = {"neg": Op.NEG, "abs": Op.ABS, "not": Op.NOT, "sqrt": Op.SQRT, "rsqrt": Op.RSQRT,
       "ex2": Op.EXP2, "lg2": Op.LOG2, "sin": Op.SIN, "cos": Op.COS, "tanh": Op.TANH}


@handles("neg", "abs", "not", doc="integers and floats (not: .b32/.b64/.pred)")
@handles("sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh",
         doc=".approx and .rn f32/f64, computed as the MIR's SQRT/RSQRT/EXP2/LOG2/SIN/COS/TANH (to "
             "within the host math library's error, not the GPU's .approx error)")
def _unary(L: Lowering, s: P.Instruction) -> None:
    _check_mods(L, s)
    t = L.type_of(s)
    d, a = s.operands
    L.emit(_UN[s.opcode], (L.write(d, t),), (L.read(a, t),))


@handles("copysign", doc="copysign.f32/.f64 d, a, b: b's magnitude with a's sign")
def _copysign(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    d, a, b = s.operands
    L.emit(Op.COPYSIGN, (L.write(d, t),), (L.read(b, t), L.read(a, t)))


@handles("rcp", doc=".rn and .approx f32/f64: 1 / x")
def _rcp(L: Lowering, s: P.Instruction) -> None:
    _check_mods(L, s)
    t = L.type_of(s)
    d, a = s.operands
    L.emit(Op.DIV, (L.write(d, t),), (Imm(1.0, t), L.read(a, t)))


@handles("shl", "shr", doc=".b32/.b64 (shl, shr logical), .s32/.s64 (shr arithmetic), .u32/.u64")
def _shift(L: Lowering, s: P.Instruction) -> None:
    _check_mods(L, s)
    t = L.type_of(s)
    if s.opcode == "shr" and s.mods[-1].startswith("b"):
        t = Scalar.U32 if t.bits == 32 else Scalar.U64
    d, a, b = s.operands
    x = L.read(a, t)
    if isinstance(b, P.Imm):
        n = Imm(min(int(b.text.rstrip("U"), 0), t.bits), t)
    else:
        amount = L.read(b, Scalar.U32)
        n = L.cast_bits(amount, t) if t.bits == 32 else L.value(Op.CVT, t, amount)
    L.emit(Op.SHL if s.opcode == "shl" else Op.SHR, (L.write(d, t),), (x, n))


@handles("shf", doc="shf.l/.r .wrap/.clamp .b32: funnel shifts (rotations when both halves are one value)")
def _shf(L: Lowering, s: P.Instruction) -> None:
    direction = "l" if "l" in s.mods else "r" if "r" in s.mods else None
    mode = "wrap" if "wrap" in s.mods else "clamp" if "clamp" in s.mods else None
    if direction is None or mode is None or s.mods[-1] != "b32":
        raise L.unsupported()
    d, a, b, c = s.operands
    u32, u64 = Scalar.U32, Scalar.U64
    lo = L.value(Op.CVT, u64, L.read(a, u32))
    hi = L.value(Op.SHL, u64, L.value(Op.CVT, u64, L.read(b, u32)), Imm(32, u64))
    both = L.value(Op.OR, u64, hi, lo)                    # {b, a}: b the high half
    n = L.read(c, u32)
    n = L.value(Op.AND, u32, n, Imm(31, u32)) if mode == "wrap" else L.value(Op.MIN, u32, n, Imm(32, u32))
    n = L.value(Op.CVT, u64, n)
    if direction == "l":
        shifted = L.value(Op.SHR, u64, L.value(Op.SHL, u64, both, n), Imm(32, u64))
    else:
        shifted = L.value(Op.SHR, u64, both, n)
    L.emit(Op.CVT, (L.write(d, u32),), (shifted,))


_CMP = {"eq": Op.EQ, "ne": Op.NE, "lt": Op.LT, "le": Op.LE, "gt": Op.GT, "ge": Op.GE,
        "lo": Op.LT, "ls": Op.LE, "hi": Op.GT, "hs": Op.GE}
_UNORDERED = {"equ": Op.EQ, "neu": Op.NE, "ltu": Op.LT, "leu": Op.LE, "gtu": Op.GT, "geu": Op.GE}
_BOOLOP = {"and": Op.AND, "or": Op.OR, "xor": Op.XOR}


def _compare(L: Lowering, cmp: str, t: Scalar, x, y) -> Reg:
    if cmp in ("lo", "ls", "hi", "hs") and t.np.kind == "i":
        t2 = {32: Scalar.U32, 64: Scalar.U64}[t.bits]
        x, y = L.cast_bits(x, t2) if isinstance(x, Reg) else Imm(x.value % (1 << t.bits), t2), \
            L.cast_bits(y, t2) if isinstance(y, Reg) else Imm(y.value % (1 << t.bits), t2)
    if cmp in _CMP and not (t.is_float and cmp == "ne"):
        return L.value(_CMP[cmp], Scalar.BOOL, x, y)
    if not t.is_float:
        raise L.unsupported(f"comparison .{cmp} on integers")
    nan = L.value(Op.OR, Scalar.BOOL, L.value(Op.ISNAN, Scalar.BOOL, x), L.value(Op.ISNAN, Scalar.BOOL, y))
    if cmp == "nan":
        return nan
    if cmp == "num":
        return L.value(Op.NOT, Scalar.BOOL, nan)
    if cmp == "ne":      # ordered: false when either is NaN (the MIR's NE is true then)
        return L.value(Op.AND, Scalar.BOOL, L.value(Op.NE, Scalar.BOOL, x, y),
                       L.value(Op.NOT, Scalar.BOOL, nan))
    if cmp == "neu":
        return L.value(Op.NE, Scalar.BOOL, x, y)
    if cmp in _UNORDERED:
        return L.value(Op.OR, Scalar.BOOL, L.value(_UNORDERED[cmp], Scalar.BOOL, x, y), nan)
    raise L.unsupported(f"comparison .{cmp}")


@handles("setp", doc="every comparison (eq ne lt le gt ge, lo ls hi hs, equ neu ltu leu gtu geu, "
                     "num nan) on integers and f32/f64, with .and/.or/.xor of a predicate")
def _setp(L: Lowering, s: P.Instruction) -> None:
    mods = [m for m in s.mods if m != "ftz"]
    t = TYPES.get(mods[-1])
    if t is None or len(mods) not in (2, 3):
        raise L.unsupported()
    cmp = mods[0]
    if isinstance(s.operands[0], P.Sym) or "|" in str(s.operands[0]):
        raise L.unsupported("two destination predicates")
    d, a, b, *rest = s.operands
    p = _compare(L, cmp, t, L.read(a, t), L.read(b, t))
    if len(mods) == 3:
        if mods[1] not in _BOOLOP or len(rest) != 1:
            raise L.unsupported()
        c = rest[0]
        if isinstance(c, P.Reg) and c.name.startswith("!"):
            raise L.unsupported("negated predicate operand")
        p = L.value(_BOOLOP[mods[1]], Scalar.BOOL, p, L.read(c, Scalar.BOOL))
    L.emit(Op.MOV, (L.write(d, Scalar.BOOL),), (p,))


@handles("selp", doc="all integer and float types")
def _selp(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    d, a, b, c = s.operands
    L.emit(Op.SELECT, (L.write(d, t),), (L.read(c, Scalar.BOOL), L.read(a, t), L.read(b, t)))


@handles("mov", doc="registers, immediates, special registers (%tid %ntid %ctaid %nctaid .x/.y/.z, "
                    "%laneid, %warpid), the address of a shared array")
def _mov(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    d, a = s.operands
    if isinstance(a, P.Vec) or isinstance(d, P.Vec):
        return _pack(L, s, t, d, a)
    if isinstance(a, P.Reg) and a.name.startswith("%") and a.name not in SREGS and a.name not in L.regs:
        raise L.unsupported(f"special register {a.name}")
    if isinstance(a, P.Reg) and a.name in SREGS:
        L.emit(Op.SREG, (L.write(d, Scalar.I32),), (), SREGS[a.name])
        return
    if isinstance(a, P.Imm) and a.text[:2].lower() in ("0f", "0d") and t.is_int:
        bits = int(a.text[2:], 16)                  # a float immediate moved as its bits
        t = _UINT[t.bits]
        L.emit(Op.MOV, (L.write(d, t),), (Imm(bits % (1 << t.bits), t),))
        return
    L.emit(Op.MOV, (L.write(d, t),), (L.read(a, t),))


_UINT = {8: Scalar.U8, 16: Scalar.U16, 32: Scalar.U32, 64: Scalar.U64}


def _pack(L: Lowering, s: P.Instruction, t: Scalar, d, a) -> None:
    """mov.b64 {lo, hi}, x (unpack: lo the low bits) and mov.b32 x, {lo, hi} (pack)."""
    whole = _UINT.get(t.bits)
    parts = (d if isinstance(d, P.Vec) else a).items
    if whole is None or isinstance(a, P.Vec) == isinstance(d, P.Vec) or t.bits % len(parts) \
            or t.bits // len(parts) not in _UINT:
        raise L.unsupported("this packing of vector elements")
    pt = _UINT[t.bits // len(parts)]
    if isinstance(d, P.Vec):                         # unpack
        x = L.read(a, whole)
        for k, o in enumerate(parts):
            if isinstance(o, P.Sym) and o.name == "_":
                continue
            piece = L.value(Op.SHR, whole, x, Imm(k * pt.bits, whole)) if k else x
            L.emit(Op.CVT, (L.write(o, pt),), (piece,))
            L.cur.instrs.extend(L.after_write)
            L.after_write = []
        return
    acc = None                                       # pack
    for k, o in enumerate(parts):
        piece = L.value(Op.CVT, whole, L.read(o, pt))
        if k:
            piece = L.value(Op.SHL, whole, piece, Imm(k * pt.bits, whole))
        acc = piece if acc is None else L.value(Op.OR, whole, acc, piece)
    L.emit(Op.MOV, (L.write(d, whole),), (acc,))


@handles("cvta", doc="cvta(.to).global/.shared/.local .u64 (generic <-> global is the identity; "
                     "shared and local lie at fixed windows of the generic space)")
def _cvta(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    d, a = s.operands
    if t is not Scalar.U64:
        raise L.unsupported("32-bit addresses")
    x = L.read(a, t)
    if "global" in s.mods:
        L.emit(Op.MOV, (L.write(d, t),), (x,))
    elif "shared" in s.mods or "local" in s.mods:
        base = GENERIC_SHARED_BASE if "shared" in s.mods else GENERIC_LOCAL_BASE
        L.emit(Op.SUB if "to" in s.mods else Op.ADD, (L.write(d, t),), (x, Imm(base, t)))
    else:
        raise L.unsupported("state spaces other than .global, .shared and .local")


_ROUND = {"rni": Op.RINT, "rzi": Op.TRUNC, "rmi": Op.FLOOR, "rpi": Op.CEIL}


@handles("cvt", doc="int <-> int (wraps, sign- or zero-extends), float -> int (.rni .rzi .rmi .rpi; "
                    "saturating, NaN -> 0), int -> float (.rn), f32 <-> f64 (.rn), float -> same-size "
                    "float rounding to an integer (.rni .rzi .rmi .rpi), cvt.sat.f32.f32 (clamp to [0, 1])")
def _cvt(L: Lowering, s: P.Instruction) -> None:
    mods = [m for m in s.mods if m != "ftz"]
    sat = "sat" in mods
    mods = [m for m in mods if m != "sat"]
    if len(mods) < 2 or mods[-1] not in TYPES or mods[-2] not in TYPES:
        raise L.unsupported()
    dt, st = TYPES[mods[-2]], TYPES[mods[-1]]
    if sat:      # float results clamped to [0, 1], NaN -> 0 (MAX gives 0 for a NaN first operand)
        if not (dt is st and dt.is_float) or len(mods) != 2:
            raise L.unsupported(".sat other than cvt.sat.f32.f32 / .f64.f64")
        x = L.value(Op.MAX, dt, L.read(s.operands[1], st), Imm(0.0, dt))
        L.emit(Op.MIN, (L.write(s.operands[0], dt),), (x, Imm(1.0, dt)))
        return
    rnd = mods[0] if len(mods) == 3 else None
    d, a = s.operands
    x = L.read(a, st)
    if st.is_float and dt.is_int:
        if rnd not in _ROUND:
            raise L.unsupported("float -> int needs .rni/.rzi/.rmi/.rpi")
        if rnd != "rzi":
            x = L.value(_ROUND[rnd], st, x)
    elif st.is_float and dt.is_float:
        if rnd in _ROUND:
            if st is not dt:
                raise L.unsupported()
            L.emit(_ROUND[rnd], (L.write(d, dt),), (x,))
            return
        if rnd not in (None, "rn"):
            raise L.unsupported("rounding modes other than .rn")
    elif dt.is_float and rnd not in (None, "rn"):
        raise L.unsupported("rounding modes other than .rn")
    elif rnd is not None and not dt.is_float:
        raise L.unsupported()
    L.emit(Op.CVT if st is not dt else Op.MOV, (L.write(d, dt),), (x,))


_MEMORY_MODS = {"global", "shared", "local", "const", "shared::cta", "param", "nc", "ca", "cg", "cs",
                "lu", "cv", "volatile", "relaxed", "weak", "gpu", "cta", "sys", "v2", "v4",
                "acquire", "release"}


def _space(L: Lowering, s: P.Instruction) -> Space:
    for m in s.mods:
        if s.opcode in ("ld", "st") and m not in _MEMORY_MODS and m not in TYPES \
                and not m.startswith(("L1::", "L2::")):
            raise L.unsupported(f"modifier .{m}")
    for m in s.mods:
        if m in ("global",):
            return Space.GLOBAL
        if m in ("shared", "shared::cta"):
            return Space.SHARED
        if m == "local":
            return Space.LOCAL
        if m == "const":          # module constants: read-only global data here
            return Space.GLOBAL
        if m in ("param", "shared::cluster"):
            raise L.unsupported(f".{m} memory")
    return Space.GENERIC


def _address(L: Lowering, m: P.Operand, space: Space) -> Reg | Imm:
    if not isinstance(m, P.Mem):
        raise L.unsupported(f"address {m}")
    window = space in (Space.SHARED, Space.LOCAL)        # 32-bit offsets will do
    at = Scalar.U32 if window else Scalar.U64
    if isinstance(m.base, P.Reg) and m.base.name in L.regs:
        r = L.regs[m.base.name]
        if r.type.is_int and (r.type.bits == 64 or (window and r.type.bits == 32)):
            at = r.type                # any integer of an address's width will do
    if isinstance(m.base, P.Sym):
        if m.base.name in L.shared and space is Space.SHARED:
            base = L.value(Op.ADDR, Scalar.U32, arg=L.shared[m.base.name])
        elif m.base.name in L.local and space is Space.LOCAL:
            base = L.value(Op.ADDR, Scalar.U32, arg=L.local[m.base.name])
        elif m.base.name in L.module.variables and space in (Space.GLOBAL, Space.GENERIC):
            base = L.value(Op.ADDR, Scalar.U64, arg=L.variable(m.base.name))
        else:
            raise L.unsupported(f"address [{m.base.name}]")
    elif isinstance(m.base, P.Imm):
        raise L.unsupported("absolute addresses")
    else:
        base = L.read(m.base, at)
    if m.offset:
        t = base.type
        off = m.offset if t.np.kind == "i" else m.offset % (1 << t.bits)
        base = L.value(Op.ADD, t, base, Imm(off, t))
    return base


def _without_policy(L: Lowering, s: P.Instruction) -> tuple:
    """The operands of an ld/st; a .L2::cache_hint's cache-policy operand is dropped (simt
    does not model L2 eviction priorities)."""
    ops = s.operands
    if "L2::cache_hint" in s.mods:
        ops = ops[:-1]
    if len(ops) != 2:
        raise L.unsupported("operand count")
    return ops


_ELEM = {Scalar.I8, Scalar.U8, Scalar.I16, Scalar.U16}


def _vector(s: P.Instruction) -> int:
    for m in s.mods:
        if m in ("v2", "v4"):
            return int(m[1])
    return 1


@handles("ld", doc="ld.param of the kernel's parameters; ld.global/.shared/.local/generic, .v2/.v4, .nc, "
                   "cache hints, 8- to 64-bit integers and f32/f64")
def _ld(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    d, m = _without_policy(L, s)
    if "param" in s.mods:
        return _ld_param(L, s, t, d, m)
    space = _space(L, s)
    addr = _address(L, m, space)
    outs = d.items if isinstance(d, P.Vec) else (d,)
    if len(outs) != _vector(s):
        raise L.unsupported("vector width")
    regs = [L.new_reg(t) for _ in outs]
    L.emit(Op.LD, regs, (addr,), Pointer(space, t))
    for o, r in zip(outs, regs):
        if isinstance(o, P.Sym) and o.name == "_":
            continue
        dst = L.reg_of(o.name)
        if dst.type.bits == t.bits:
            L.emit(Op.BITCAST if dst.type is not t else Op.MOV, (dst,), (r,))
        elif dst.type.is_int and t.is_int:          # a narrow load into a wider register
            L.emit(Op.CVT, (dst,), (r,))
        else:
            raise L.unsupported(f"a {t} load into a {dst.type} register")


def _ld_param(L: Lowering, s, t, d, m) -> None:
    whole = isinstance(m, P.Mem) and isinstance(m.base, P.Sym) and not m.offset
    if not whole or m.base.name not in L.param_value:
        raise L.unsupported("only whole kernel parameters can be read from .param")
    kind, v = L.param_value[m.base.name]
    if kind == "array":
        if t.bits != 64:
            raise L.unsupported("a pointer parameter read as 32 bits")
        L.emit(Op.ADDR, (L.write(d, Scalar.U64),), (), v)
        return
    if t.bits == v.type.bits:
        L.emit(Op.MOV, (L.write(d, v.type),), (v,))
    else:                                  # read at another width: converted
        L.emit(Op.CVT, (L.write(d, t),), (v,))


@handles("st", doc="st.global/.shared/.local/generic, .v2/.v4, cache hints, 8- to 64-bit integers "
                   "and f32/f64")
def _st(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    m, v = _without_policy(L, s)
    space = _space(L, s)
    addr = _address(L, m, space)
    vals = v.items if isinstance(v, P.Vec) else (v,)
    if len(vals) != _vector(s):
        raise L.unsupported("vector width")
    srcs = []
    for o in vals:
        if isinstance(o, P.Reg) and o.name in L.regs and L.regs[o.name].type.bits != t.bits:
            srcs.append(L.value(Op.CVT, t, L.regs[o.name]))
        else:
            srcs.append(L.read(o, t))
    L.emit(Op.ST, (), (addr, *srcs), Pointer(space, t))


_ATOM = {"add": AtomOp.ADD, "min": AtomOp.MIN, "max": AtomOp.MAX, "exch": AtomOp.EXCH,
         "cas": AtomOp.CAS, "and": AtomOp.AND, "or": AtomOp.OR, "xor": AtomOp.XOR}


@handles("atom", "red", doc="global/shared/generic add, min, max, exch, cas, and, or, xor on "
                            "32/64-bit integers (add also f32/f64); .relaxed/.acquire/.release/"
                            ".acq_rel orders and .gpu/.cta/.sys scopes (accesses are applied in "
                            "program order, which every order allows)")
def _atom(L: Lowering, s: P.Instruction) -> None:
    kinds = [m for m in s.mods if m in _ATOM]
    # .acquire/.release/.acq_rel: the precise engine applies accesses one at a time in program
    # order (sequentially consistent), which every memory order allows
    if len(kinds) != 1 or "noftz" in s.mods:
        raise L.unsupported()
    op = _ATOM[kinds[0]]
    t = L.type_of(s)
    if t.is_float and op is not AtomOp.ADD:
        raise L.unsupported(f"float atomic {op.value}")
    space = _space(L, s)
    if s.opcode == "atom":
        d, m, *vals = s.operands
    else:
        m, *vals = s.operands
        d = None
    if len(vals) != (2 if op is AtomOp.CAS else 1):
        raise L.unsupported("operand count")
    addr = _address(L, m, space)
    srcs = [L.read(v, t) for v in vals]
    out = L.write(d, t) if d is not None else L.new_reg(t)
    L.emit(Op.ATOM, (out,), (addr, *srcs), AtomArg(Pointer(space, t), op))


@handles("bar", "barrier", doc="bar.sync 0 / barrier.sync(.aligned) 0: the block-wide barrier; "
                              "bar.warp.sync mask (__syncwarp)")
def _bar(L: Lowering, s: P.Instruction) -> None:
    if s.opcode == "bar" and s.mods == ("warp", "sync") and len(s.operands) == 1:
        L.emit(Op.SYNCWARP, (), (L.read(s.operands[0], Scalar.U32),))
        return
    if not ({"sync"} & set(s.mods)) or len(s.operands) != 1 or not isinstance(s.operands[0], P.Imm) \
            or int(s.operands[0].text, 0) != 0:
        raise L.unsupported("only barrier 0 for the whole block")
    if s.guard is not None:
        raise L.unsupported("a predicated barrier")
    L.start_block(L.fresh_label("bar"))
    L.emit(Op.BAR)


@handles("bra", doc="bra, bra.uni, predicated @p / @!p")
def _bra(L: Lowering, s: P.Instruction) -> None:
    (target,) = s.operands
    if not isinstance(target, P.Sym):
        raise L.unsupported("indirect branches")
    if s.guard is None:
        L.terminate(Op.BR, arg=target.name)
        return
    cont = L.fresh_label("L")
    cond = L.reg_of(s.guard)
    L.emit(Op.CBR, (), (cond,), (cont, target.name) if s.negated else (target.name, cont))
    L.cur = Block(cont)
    L.blocks.append(L.cur)


@handles("ret", "exit", doc="the thread exits")
def _ret(L: Lowering, s: P.Instruction) -> None:
    L.terminate(Op.RET)


_SHFL = {"up": ShflMode.UP, "down": ShflMode.DOWN, "bfly": ShflMode.XOR, "idx": ShflMode.IDX}


@handles("shfl", doc="shfl.sync up/down/bfly/idx .b32, over the whole warp or in segments (a "
                     "constant clamp/segment mask: __shfl_*_sync's width); the in-range predicate")
def _shfl(L: Lowering, s: P.Instruction) -> None:
    modes = [m for m in s.mods if m in _SHFL]
    if "sync" not in s.mods or len(modes) != 1:
        raise L.unsupported()
    mode = _SHFL[modes[0]]
    d, a, b, c, mask = s.operands
    clamp = L.constant(c)
    if clamp is None:
        raise L.unsupported("a clamp/segment operand that is not a constant")
    pred = None
    if isinstance(d, P.Vec):
        raise L.unsupported()
    dst_reg = d
    if isinstance(d, P.Sym) or "|" in getattr(d, "name", ""):
        dst_name, _, pred = d.name.partition("|")
        dst_reg = P.Reg(dst_name)
    t = L.regs[dst_reg.name].type if dst_reg.name in L.regs else Scalar.U32
    t = t if t.bits == 32 and t in (Scalar.I32, Scalar.U32, Scalar.F32) else Scalar.U32
    lane = L.read(b, Scalar.I32)
    if clamp != (0 if mode is ShflMode.UP else 31):      # segments narrower than the warp
        src, ok = _shfl_segment_lane(L, mode, lane, clamp)
        L.emit(Op.SHFL, (L.write(dst_reg, t),), (L.read(a, t), src, L.read(mask, Scalar.U32)),
               ShflMode.IDX)
        if pred and pred in L.read_regs:
            L.emit(Op.MOV, (L.write(P.Reg(pred), Scalar.BOOL),), (ok,))
        return
    L.emit(Op.SHFL, (L.write(dst_reg, t),), (L.read(a, t), lane, L.read(mask, Scalar.U32)), mode)
    if pred and pred in L.read_regs:
        me = L.value(Op.SREG, Scalar.I32, arg=SReg.LANEID)
        if mode is ShflMode.UP:
            ok = L.value(Op.GE, Scalar.BOOL, L.value(Op.SUB, Scalar.I32, me, lane), Imm(0, Scalar.I32))
        elif mode is ShflMode.DOWN:
            ok = L.value(Op.LE, Scalar.BOOL, L.value(Op.ADD, Scalar.I32, me, lane), Imm(31, Scalar.I32))
        else:
            ok = L.value(Op.MOV, Scalar.BOOL, Imm(True, Scalar.BOOL))
        L.emit(Op.MOV, (L.write(P.Reg(pred), Scalar.BOOL),), (ok,))


def _shfl_segment_lane(L: Lowering, mode: ShflMode, b, clamp: int):
    """PTX's source lane for a shuffle within segments (``c`` = clamp | segmask << 8), and
    whether it is in range (else a lane reads its own value): (lane to read, in range)."""
    i32, boolean = Scalar.I32, Scalar.BOOL
    segmask, cval = (clamp >> 8) & 31, clamp & 31
    me = L.value(Op.SREG, i32, arg=SReg.LANEID)
    min_lane = L.value(Op.AND, i32, me, Imm(segmask, i32))
    max_lane = L.value(Op.OR, i32, min_lane, Imm(cval & ~segmask & 31, i32))
    bval = b if isinstance(b, Imm) and 0 <= b.value < 32 else L.value(Op.AND, i32, b, Imm(31, i32))
    if mode is ShflMode.UP:
        j = L.value(Op.SUB, i32, me, bval)
        ok = L.value(Op.GE, boolean, j, max_lane)
    elif mode is ShflMode.DOWN:
        j = L.value(Op.ADD, i32, me, bval)
        ok = L.value(Op.LE, boolean, j, max_lane)
    elif mode is ShflMode.XOR:
        j = L.value(Op.XOR, i32, me, bval)
        ok = L.value(Op.LE, boolean, j, max_lane)
    else:
        j = L.value(Op.OR, i32, min_lane, L.value(Op.AND, i32, bval, Imm(~segmask & 31, i32)))
        ok = L.value(Op.LE, boolean, j, max_lane)
    return L.value(Op.SELECT, i32, ok, j, me), ok


@handles("membar", "fence", doc="no-ops: the precise engine applies every access in program order, "
                                "so every fence already holds (.proxy and .mbarrier forms are refused)")
def _fence(L: Lowering, s: P.Instruction) -> None:
    if any(m.startswith(("proxy", "mbarrier")) or m in ("async", "cluster") for m in s.mods):
        raise L.unsupported()


@handles("activemask", doc="activemask.b32")
def _activemask(L: Lowering, s: P.Instruction) -> None:
    (d,) = s.operands
    L.emit(Op.ACTIVEMASK, (L.write(d, Scalar.U32),))


@handles("clz", doc="clz.b32 / clz.b64 (a u32 count): leading zeros, through popc of the smeared bits")
def _clz(L: Lowering, s: P.Instruction) -> None:
    t = Scalar.U32 if L.type_of(s).bits == 32 else Scalar.U64
    d, a = s.operands
    x = L.read(a, t)
    for k in (1, 2, 4, 8, 16, 32)[:5 if t.bits == 32 else 6]:
        x = L.value(Op.OR, t, x, L.value(Op.SHR, t, x, Imm(k, t)))
    n = L.value(Op.SUB, t, Imm(t.bits, t), L.value(Op.POPC, t, x))
    L.emit(Op.MOV if t.bits == 32 else Op.CVT, (L.write(d, Scalar.U32),), (n,))


@handles("bfe", "bfi", doc="bfe.u32/.s32/.u64/.s64 and bfi.b32/.b64 with immediate position and length")
def _bitfield(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    *operands, pos_o, len_o = s.operands
    pos, n = L.constant(pos_o), L.constant(len_o)
    if pos is None or n is None:
        raise L.unsupported("a position or length that is not an immediate")
    bits = t.bits
    pos, n = min(pos & 255, bits), min(n & 255, bits)
    if s.opcode == "bfi":
        u = Scalar.U32 if bits == 32 else Scalar.U64
        d, a, b = operands
        n = min(n, bits - pos)
        mask = ((1 << n) - 1) << pos
        kept = L.value(Op.AND, u, L.read(b, u), Imm(~mask & ((1 << bits) - 1), u))
        put = L.value(Op.AND, u, L.value(Op.SHL, u, L.read(a, u), Imm(pos, u)), Imm(mask, u))
        L.emit(Op.OR, (L.write(d, u),), (kept, put))
        return
    d, a = operands
    x = L.read(a, t)
    if n == 0:
        L.emit(Op.MOV, (L.write(d, t),), (Imm(0, t),))
        return
    if pos + n > bits:     # PTX: bits past the top repeat the sign bit (signed) or are 0
        n = bits - pos
    up = L.value(Op.SHL, t, x, Imm(bits - pos - n, t))
    L.emit(Op.SHR, (L.write(d, t),), (up, Imm(bits - n, t)))     # SHR is arithmetic if signed


@handles("brev", doc="brev.b32 / brev.b64: bits reversed (swaps of halves, quarters, ... bits)")
def _brev(L: Lowering, s: P.Instruction) -> None:
    t = Scalar.U32 if L.type_of(s).bits == 32 else Scalar.U64
    d, a = s.operands
    x = L.read(a, t)
    full = (1 << t.bits) - 1
    width = t.bits // 2
    while width >= 1:
        lo = 0
        for k in range(0, t.bits, 2 * width):
            lo |= ((1 << width) - 1) << k                  # the low half of each pair of fields
        low = L.value(Op.SHL, t, L.value(Op.AND, t, x, Imm(lo, t)), Imm(width, t))
        high = L.value(Op.AND, t, L.value(Op.SHR, t, x, Imm(width, t)), Imm(lo & full, t))
        x = L.value(Op.OR, t, low, high)
        width //= 2
    L.emit(Op.MOV, (L.write(d, t),), (x,))


@handles("popc", doc="popc.b32 / popc.b64 (a u32 count)")
def _popc(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    d, a = s.operands
    if t.bits == 32:
        L.emit(Op.POPC, (L.write(d, Scalar.U32),), (L.read(a, Scalar.U32),))
    else:
        n = L.value(Op.POPC, Scalar.U64, L.read(a, Scalar.U64))
        L.emit(Op.CVT, (L.write(d, Scalar.U32),), (n,))


_VOTE = {"any": VoteMode.ANY, "all": VoteMode.ALL, "ballot": VoteMode.BALLOT}


@handles("vote", doc="vote.sync .any/.all/.uni .pred and .ballot.b32")
def _vote(L: Lowering, s: P.Instruction) -> None:
    if "uni" in s.mods and "sync" in s.mods:         # all equal: all true or all false
        d, p, mask = s.operands
        x, m = L.read(p, Scalar.BOOL), L.read(mask, Scalar.U32)
        yes = L.value(Op.VOTE, Scalar.BOOL, x, m, arg=VoteMode.ALL)
        no = L.value(Op.VOTE, Scalar.BOOL, L.value(Op.NOT, Scalar.BOOL, x), m, arg=VoteMode.ALL)
        L.emit(Op.OR, (L.write(d, Scalar.BOOL),), (yes, no))
        return
    modes = [m for m in s.mods if m in _VOTE]
    if "sync" not in s.mods or len(modes) != 1:
        raise L.unsupported()
    mode = _VOTE[modes[0]]
    d, p, mask = s.operands
    t = Scalar.U32 if mode is VoteMode.BALLOT else Scalar.BOOL
    if isinstance(p, P.Reg) and p.name.startswith("!"):
        raise L.unsupported("a negated predicate")
    L.emit(Op.VOTE, (L.write(d, t),), (L.read(p, Scalar.BOOL), L.read(mask, Scalar.U32)), mode)


# --- half precision: instructions naming .f16/.bf16(x2) go to half.py first ------------------

def _half_aware(h: Handler) -> Handler:
    def fn(L: Lowering, s: P.Instruction) -> None:
        if half.half_form(s) is not None:
            return half.lower_half(L, s, h.fn)
        return h.fn(L, s)
    return Handler(fn, h.doc)


for _op in ("add", "sub", "mul", "min", "max", "fma", "mad", "neg", "abs", "setp", "cvt", "ld", "st",
            "mov", "selp", "and", "or", "xor", "not"):
    HANDLERS[_op] = _half_aware(HANDLERS[_op])

from . import tensor  # noqa: E402,F401  (registers ldmatrix, mma and cp.async)
