"""Warp-wide matrix instructions, lowered to shuffles and per-lane arithmetic:
``ldmatrix`` (m8n8 .x1/.x2/.x4, .trans) and ``mma.sync`` (m16n8k16 f16/bf16, m16n8k8 tf32), plus
``cp.async`` and its groups.

Both matrix instructions are .sync.aligned: every lane of the warp executes them together,
so each lane can fetch what it needs from the others with SHFL. ldmatrix: lane t of matrix i
reads 4 bytes of row t/4 (the row whose address lane 8*i + t/4 gave), at byte 4*(t%4); with
.trans, the two halves at column t/4 of rows 2*(t%4) and 2*(t%4)+1. mma: each lane gathers
the rows of A and columns of B its four results need from the lanes holding them (the
fragment layouts of the PTX ISA, "Matrix Fragments for mma.m16n8k16"), then accumulates
16 exact products (f16 and bf16 products fit an f32) onto C in k order, rounding each sum
to f32. The tensor core's internal summation order and rounding are not specified: results
agree with it to a few f32 ulps, not bit for bit.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.mir import Imm, Op, Pointer, ShflMode, Space, SReg
from ..ir.types import Scalar
from . import parser as P
from .half import HALF
from .table import handles

if TYPE_CHECKING:
    from .lower import Lowering

I32, U32, U16, F32 = Scalar.I32, Scalar.U32, Scalar.U16, Scalar.F32
FULL = Imm(0xFFFFFFFF, U32)


def _lane(L: Lowering):
    return L.value(Op.SREG, I32, arg=SReg.LANEID)


def _shfl(L: Lowering, value, lane):
    """``value`` (32- or 64-bit) as held by lane ``lane`` (all lanes take part)."""
    return L.value(Op.SHFL, value.type, value, lane, FULL, arg=ShflMode.IDX)


def _vec(L: Lowering, o: P.Operand, n: int) -> tuple:
    items = o.items if isinstance(o, P.Vec) else (o,)
    if len(items) != n:
        raise L.unsupported(f"expected {n} registers in {{...}}, got {len(items)}")
    return items


# --- ldmatrix --------------------------------------------------------------------------------

@handles("ldmatrix", "stmatrix",
         doc="ldmatrix / stmatrix .sync.aligned.m8n8 .x1/.x2/.x4 (.trans) .shared .b16: each lane's "
             "row address shuffled to the lanes that read or write the row")
def _ldmatrix(L: Lowering, s: P.Instruction) -> None:
    from .ops import _address
    mods = set(s.mods)
    count = next((int(m[1]) for m in s.mods if m in ("x1", "x2", "x4")), None)
    if not {"sync", "aligned", "m8n8", "b16"} <= mods or count is None \
            or not mods <= {"sync", "aligned", "m8n8", "b16", "x1", "x2", "x4", "trans", "shared",
                            "shared::cta"}:
        raise L.unsupported()
    store = s.opcode == "stmatrix"
    m, regs = s.operands if store else s.operands[::-1]
    regs = _vec(L, regs, count)
    space = Space.SHARED
    addr = _address(L, m, space)
    at = addr.type
    me = _lane(L)
    quad = L.value(Op.SHR, I32, me, Imm(2, I32))          # t / 4
    col = L.value(Op.AND, I32, me, Imm(3, I32))           # t % 4

    def at_row(lane, byte):           # the address lane ``lane`` gave, plus ``byte`` bytes
        return L.value(Op.ADD, at, _shfl(L, addr, lane), L.value(Op.CVT, at, byte))

    for i, o in enumerate(regs):
        if "trans" not in mods:      # the word at row t/4, bytes 4*(t%4) of matrix i
            where = at_row(L.value(Op.ADD, I32, quad, Imm(8 * i, I32)), L.value(Op.SHL, I32, col, Imm(2, I32)))
            if store:
                L.emit(Op.ST, (), (where, L.read(o, U32)), Pointer(space, U32))
                continue
            word = L.new_reg(U32)
            L.emit(Op.LD, (word,), (where,), Pointer(space, U32))
        else:                        # halves at column t/4 of rows 2*(t%4) and 2*(t%4) + 1
            places = [at_row(L.value(Op.ADD, I32, L.value(Op.SHL, I32, col, Imm(1, I32)), Imm(8 * i + k, I32)),
                             L.value(Op.SHL, I32, quad, Imm(1, I32))) for k in (0, 1)]
            if store:
                w = L.read(o, U32)
                halves = (L.value(Op.CVT, U16, w), L.value(Op.CVT, U16, L.value(Op.SHR, U32, w, Imm(16, U32))))
                for where, h in zip(places, halves):
                    L.emit(Op.ST, (), (where, h), Pointer(space, U16))
                continue
            halves = []
            for where in places:
                h = L.new_reg(U16)
                L.emit(Op.LD, (h,), (where,), Pointer(space, U16))
                halves.append(L.value(Op.CVT, U32, h))
            word = L.value(Op.OR, U32, halves[0], L.value(Op.SHL, U32, halves[1], Imm(16, U32)))
        L.emit(Op.MOV, (L.write(o, U32),), (word,))
        L.cur.instrs.extend(L.after_write)
        L.after_write = []


# --- mma.sync m16n8k16 -----------------------------------------------------------------------

def _halves(L: Lowering, word, ht: Scalar) -> tuple:
    lo = L.value(Op.CVT, U16, word)
    hi = L.value(Op.CVT, U16, L.value(Op.SHR, U32, word, Imm(16, U32)))
    return tuple(L.value(Op.CVT, F32, L.value(Op.BITCAST, ht, h)) for h in (lo, hi))


@handles("mma", doc="mma.sync.aligned.row.col: m16n8k16 with f16 or bf16 inputs and f32 "
                    "accumulators (or f16 ones with f16 inputs), m16n8k8 with tf32 inputs (the low "
                    "13 bits of each f32 ignored) and f32 accumulators; operands gathered by "
                    "shuffles, exact products summed in f32 in k order (the tensor core's own "
                    "summation agrees to a few ulps; f16 results rounded once at the end)")
def _mma(L: Lowering, s: P.Instruction) -> None:
    mods = list(s.mods)
    if mods[:2] != ["sync", "aligned"] or mods[3:5] != ["row", "col"] or len(mods) != 9:
        raise L.unsupported("only mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>")
    shape, (dt, at, bt, ct) = mods[2], mods[5:]
    if at != bt or dt != ct or not ((shape == "m16n8k16" and at in ("f16", "bf16") and dt == "f32")
                                    or (shape == "m16n8k16" and at == "f16" and dt == "f16")
                                    or (shape == "m16n8k8" and at == "tf32" and dt == "f32")):
        raise L.unsupported("only m16n8k16 f16/bf16 into f32 (or f16 into f16) and m16n8k8 tf32 into f32")
    k_dim = 16 if shape == "m16n8k16" else 8
    d, a, b, c = s.operands
    a_regs = [L.read(o, U32) for o in _vec(L, a, 4)]
    b_regs = [L.read(o, U32) for o in _vec(L, b, 2)]
    if dt == "f32":
        c_vals = [L.read(o, F32) for o in _vec(L, c, 4)]
    else:                                     # two f16x2 registers: {c0, c1}, {c2, c3}
        c_vals = [h for o in _vec(L, c, 2) for h in _halves(L, L.read(o, U32), Scalar.F16)]
    me = _lane(L)
    group = L.value(Op.SHR, I32, me, Imm(2, I32))          # groupID
    tig = L.value(Op.AND, I32, me, Imm(3, I32))            # thread in group
    base = L.value(Op.SHL, I32, group, Imm(2, I32))        # first lane of my group
    unpack = (lambda w: _halves(L, w, HALF[at][0])) if k_dim == 16 else (lambda w: (_tf32(L, w),))
    per_reg = 2 if k_dim == 16 else 1                      # elements of A or B per register
    # A rows group and group + 8: A[r][k] sits in lane 4*(r%8) + (k % (k_dim/2)) / per_reg,
    # register (r >= 8) + 2*(k >= k_dim/2), element k % per_reg
    half_k = k_dim // 2
    rows = {0: [None] * k_dim, 8: [None] * k_dim}
    for j in range(4):
        src = L.value(Op.ADD, I32, base, Imm(j, I32))
        for reg in range(4):
            values = unpack(_shfl(L, a_regs[reg], src))
            r, kbase = (8 if reg & 1 else 0), (half_k if reg & 2 else 0)
            for e, v in enumerate(values):
                rows[r][kbase + per_reg * j + e] = v
    # B columns 2*tig and 2*tig + 1: B[k][n] sits in lane 4*n + (k % (k_dim/2)) / per_reg,
    # register k >= k_dim/2
    cols = {0: [None] * k_dim, 1: [None] * k_dim}
    for cs in (0, 1):
        n = L.value(Op.ADD, I32, L.value(Op.SHL, I32, tig, Imm(1, I32)), Imm(cs, I32))
        first = L.value(Op.SHL, I32, n, Imm(2, I32))
        for j in range(4):
            src = L.value(Op.ADD, I32, first, Imm(j, I32))
            for reg in range(2):
                for e, v in enumerate(unpack(_shfl(L, b_regs[reg], src))):
                    cols[cs][half_k * reg + per_reg * j + e] = v
    sums = []
    for i in range(4):          # d[i]: row group + 8*(i >= 2), column 2*tig + i % 2
        acc = c_vals[i]
        row, col = rows[8 if i >= 2 else 0], cols[i & 1]
        for k in range(k_dim):
            acc = L.value(Op.FMA, F32, row[k], col[k], acc)     # the product is exact: a sum
        sums.append(acc)
    if dt == "f32":
        for o, acc in zip(_vec(L, d, 4), sums):
            L.emit(Op.MOV, (L.write(o, F32),), (acc,))
            L.cur.instrs.extend(L.after_write)
            L.after_write = []
        return
    for o, pair in zip(_vec(L, d, 2), (sums[:2], sums[2:])):
        lo, hi = (L.value(Op.CVT, U32, L.value(Op.BITCAST, U16, L.value(Op.CVT, Scalar.F16, v))) for v in pair)
        L.emit(Op.OR, (L.write(o, U32),), (lo, L.value(Op.SHL, U32, hi, Imm(16, U32))))
        L.cur.instrs.extend(L.after_write)
        L.after_write = []


def _tf32(L: Lowering, word):
    """A .tf32 operand: the f32 in ``word`` with its low 13 bits ignored."""
    return L.value(Op.BITCAST, F32, L.value(Op.AND, U32, word, Imm(0xFFFFE000, U32)))


# --- cp.async ----------------------------------------------------------------------------------

@handles("cp", doc="cp.async.ca/.cg.shared.global 4/8/16 bytes (a smaller src-size zero-fills the "
                   "rest, a true ignore-src predicate all of it): the copy is done when issued, "
                   "commit_group/wait_group/wait_all are no-ops. PTX lets the copy complete at any "
                   "time before the wait, so this is one of the executions the hardware may give; a "
                   "kernel that reads the destination before waiting is racy, and that race is not "
                   "reported")
def _cp_async(L: Lowering, s: P.Instruction) -> None:
    from .ops import _address
    mods = list(s.mods)
    if mods[:1] != ["async"]:
        raise L.unsupported()
    rest = [m for m in mods[1:] if not m.startswith("L2::")]
    if rest in (["commit_group"], ["wait_group"], ["wait_all"]):
        return
    if not rest or rest[0] not in ("ca", "cg") or rest[1:] not in (["shared", "global"],
                                                                   ["shared::cta", "global"]):
        raise L.unsupported()
    dst, src, size, *more = s.operands
    nbytes = L.constant(size)
    if nbytes not in (4, 8, 16):
        raise L.unsupported("cp-size other than 4, 8 or 16")
    hint = any(m == "L2::cache_hint" for m in mods)
    src_size = more[0] if len(more) == (2 if hint else 1) else None
    if len(more) > (2 if hint else 1):
        raise L.unsupported("operands")
    d_addr = _address(L, dst, Space.SHARED)
    s_addr = _address(L, src, Space.GLOBAL)
    words = nbytes // 4
    if isinstance(src_size, P.Reg) and src_size.name in L.regs and L.regs[src_size.name].type is Scalar.BOOL:
        ignore = L.read(src_size, Scalar.BOOL)          # ignore-src: zero-fill instead of reading
        _if(L, ignore, lambda: _zero(L, d_addr, words), lambda: _copy(L, d_addr, s_addr, words))
        return
    known = nbytes if src_size is None else L.constant(src_size)
    if known == nbytes:
        return _copy(L, d_addr, s_addr, words)
    if known == 0:
        return _zero(L, d_addr, words)
    n = L.read(src_size, U32)
    # src-size is 0 or cp-size in the kernels compilers emit; any other value copies byte by byte
    full = L.value(Op.GE, Scalar.BOOL, n, Imm(nbytes, U32))
    _if(L, full, lambda: _copy(L, d_addr, s_addr, words),
        lambda: _partial(L, d_addr, s_addr, n, nbytes))


def _copy(L: Lowering, d_addr, s_addr, words: int) -> None:
    vals = [L.new_reg(U32) for _ in range(words)]
    L.emit(Op.LD, vals, (s_addr,), Pointer(Space.GLOBAL, U32))
    L.emit(Op.ST, (), (d_addr, *vals), Pointer(Space.SHARED, U32))


def _zero(L: Lowering, d_addr, words: int) -> None:
    L.emit(Op.ST, (), (d_addr, *[Imm(0, U32)] * words), Pointer(Space.SHARED, U32))


def _partial(L: Lowering, d_addr, s_addr, n, nbytes: int) -> None:
    _zero(L, d_addr, nbytes // 4)
    for k in range(nbytes):
        def one(k=k):
            v = L.new_reg(Scalar.U8)
            L.emit(Op.LD, (v,), (_plus(L, s_addr, k),), Pointer(Space.GLOBAL, Scalar.U8))
            L.emit(Op.ST, (), (_plus(L, d_addr, k), v), Pointer(Space.SHARED, Scalar.U8))
        _if(L, L.value(Op.GT, Scalar.BOOL, n, Imm(k, U32)), one, None)


def _plus(L: Lowering, addr, k: int):
    return L.value(Op.ADD, addr.type, addr, Imm(k, addr.type)) if k else addr


def _if(L: Lowering, cond, then, otherwise) -> None:
    """Blocks for ``if cond: then() else: otherwise()`` (lanes reconverge after)."""
    from ..ir.mir import Block
    yes, no, cont = L.fresh_label("cp"), L.fresh_label("cp"), L.fresh_label("L")
    L.emit(Op.CBR, (), (cond,), (yes, no if otherwise else cont))
    L.cur = Block(yes)
    L.blocks.append(L.cur)
    then()
    if otherwise:
        L.emit(Op.BR, arg=cont)
        L.start_block(no)
        otherwise()
    L.start_block(cont)


# --- wmma (CUDA C's nvcuda::wmma): m16n16k16 -------------------------------------------------
# PTX leaves wmma's fragment layouts unspecified (opaque), so any layout that load, mma and
# store agree on is one the hardware may have. simt's: lane l holds row l % 16 of A (all 16
# k, two per register) and column l % 16 of B; of C and D, row l % 16, columns 8*(l // 16)
# to + 8 (f32: one per register; f16: two). Elementwise operations on fragments (fill,
# scale) are layout-independent.

_WMMA_TYPES = {"f16": (Scalar.F16, 2), "bf16": (Scalar.BF16, 2), "f32": (F32, 4)}


def _wmma_elements(frag: str, etype: str):
    """(row, column) of each element a lane holds, as functions of (r = l % 16, h = l // 16),
    in register order (two halves per register where 16-bit)."""
    if frag == "a":
        return [("r", k) for k in range(16)]
    if frag == "b":
        return [(k, "r") for k in range(16)]
    return [("r", ("h", j)) for j in range(8)]


@handles("wmma", doc="wmma.load/.store/.mma.sync.aligned m16n16k16 (CUDA C's nvcuda::wmma) with f16 or "
                     "bf16 A and B, f32 or f16 C and D, row or col memory layouts: fragments in a layout "
                     "of simt's own (PTX leaves them opaque), products summed in f32 in k order")
def _wmma(L: Lowering, s: P.Instruction) -> None:
    from .ops import _address, _space
    mods = list(s.mods)
    if "m16n16k16" not in mods or "sync" not in mods or "aligned" not in mods:
        raise L.unsupported("only the m16n16k16 shape")
    kind = mods[0]
    if kind == "mma":
        return _wmma_mma(L, s, mods[mods.index("m16n16k16") + 1:])
    if kind not in ("load", "store") or len(mods) < 7:
        raise L.unsupported()
    frag, layout, etype = mods[1], mods[4], mods[-1]
    valid = {"a": ("f16", "bf16"), "b": ("f16", "bf16"), "c": ("f16", "f32"), "d": ("f16", "f32")}
    if frag not in (("a", "b", "c") if kind == "load" else ("d",)) or layout not in ("row", "col") \
            or etype not in valid[frag]:
        raise L.unsupported()
    space = _space(L, s)
    if kind == "load":
        regs_o, mem, *stride_o = s.operands
    else:
        mem, regs_o, *stride_o = s.operands
    et, per = _WMMA_TYPES[etype][0], (1 if etype == "f32" else 2)
    elements = _wmma_elements("c" if frag == "d" else frag, etype)
    regs = _vec(L, regs_o, len(elements) // per)
    base = _address(L, mem, space)
    at = base.type
    stride = L.read(stride_o[0], I32) if stride_o else Imm(16, I32)
    me = _lane(L)
    r = L.value(Op.AND, I32, me, Imm(15, I32))
    h8 = L.value(Op.SHL, I32, L.value(Op.SHR, I32, me, Imm(4, I32)), Imm(3, I32))

    def coord(x):
        if x == "r":
            return r
        if isinstance(x, tuple):
            return L.value(Op.ADD, I32, h8, Imm(x[1], I32))
        return Imm(x, I32)

    bits = U16 if per == 2 else U32
    addresses = []
    for row, col in elements:
        i, j = coord(row), coord(col)
        if layout == "col":
            i, j = j, i
        index = L.value(Op.ADD, I32, L.value(Op.MUL, I32, i, stride), j)
        offset = L.value(Op.CVT, at, L.value(Op.MUL, I32, index, Imm(et.nbytes, I32)))
        addresses.append(L.value(Op.ADD, at, base, offset))
    for k, o in enumerate(regs):
        where = addresses[per * k:per * (k + 1)]
        if kind == "load":
            parts = []
            for a in where:
                v = L.new_reg(bits)
                L.emit(Op.LD, (v,), (a,), Pointer(space, bits))
                parts.append(v)
            word = parts[0] if per == 1 else L.value(
                Op.OR, U32, L.value(Op.CVT, U32, parts[0]),
                L.value(Op.SHL, U32, L.value(Op.CVT, U32, parts[1]), Imm(16, U32)))
            L.emit(Op.MOV, (L.write(o, U32),), (word,))
            L.cur.instrs.extend(L.after_write)
            L.after_write = []
        else:
            w = L.read(o, U32)
            parts = [w] if per == 1 else [L.value(Op.CVT, U16, w),
                                          L.value(Op.CVT, U16, L.value(Op.SHR, U32, w, Imm(16, U32)))]
            for a, v in zip(where, parts):
                L.emit(Op.ST, (), (a, v), Pointer(space, bits))


def _wmma_mma(L: Lowering, s: P.Instruction, types: list) -> None:
    if len(types) == 2:
        dt, at, ct = types[0], "f16", types[1]
    elif len(types) == 4 and types[1] == types[2]:
        dt, at, ct = types[0], types[1], types[3]
    else:
        raise L.unsupported()
    if at not in ("f16", "bf16") or dt not in ("f32", "f16") or ct not in ("f32", "f16") or \
            (at == "bf16" and (dt, ct) != ("f32", "f32")) or "satfinite" in s.mods:
        raise L.unsupported("types other than f16/bf16 inputs with f32 or f16 accumulators")
    ht = HALF[at][0]
    d, a, b, c = s.operands
    a_vals = [v for o in _vec(L, a, 8) for v in _halves(L, L.read(o, U32), ht)]     # my row of A
    if ct == "f32":
        c_vals = [L.read(o, F32) for o in _vec(L, c, 8)]
    else:
        c_vals = [v for o in _vec(L, c, 4) for v in _halves(L, L.read(o, U32), Scalar.F16)]
    b_regs = [L.read(o, U32) for o in _vec(L, b, 8)]
    me = _lane(L)
    h8 = L.value(Op.SHL, I32, L.value(Op.SHR, I32, me, Imm(4, I32)), Imm(3, I32))
    sums = []
    for j in range(8):                   # my columns 8*h + j: lane 8*h + j holds that column of B
        src = L.value(Op.ADD, I32, h8, Imm(j, I32))
        column = [v for w in b_regs for v in _halves(L, _shfl(L, w, src), ht)]
        acc = c_vals[j]
        for k in range(16):
            acc = L.value(Op.FMA, F32, a_vals[k], column[k], acc)
        sums.append(acc)
    if dt == "f32":
        for o, v in zip(_vec(L, d, 8), sums):
            L.emit(Op.MOV, (L.write(o, F32),), (v,))
            L.cur.instrs.extend(L.after_write)
            L.after_write = []
        return
    for o, pair in zip(_vec(L, d, 4), zip(sums[0::2], sums[1::2])):
        lo, hi = (L.value(Op.CVT, U32, L.value(Op.BITCAST, U16, L.value(Op.CVT, Scalar.F16, v))) for v in pair)
        L.emit(Op.OR, (L.write(o, U32),), (lo, L.value(Op.SHL, U32, hi, Imm(16, U32))))
        L.cur.instrs.extend(L.after_write)
        L.after_write = []
