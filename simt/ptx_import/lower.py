"""PTX instructions -> MIR, one handler per opcode (the table ``HANDLERS``).

PTX registers are untyped bit containers of a width; each becomes one typed MIR register
(the type its defining instructions give it most often), and an instruction that reads or
writes it as another type of that width goes through BITCAST. Memory is reached through
byte addresses (MIR ``Pointer`` accesses). Predicated instructions other than branches get
a block of their own. Blocks are laid out in reverse post-order, which puts everything
between a branch and its immediate post-dominator before the post-dominator: the layout the
engines reconverge by (simt/ir/cfg.py, the verifier's layout rule).

Whatever is not in the table is a CompileError naming the instruction and its PTX line.
"""
from __future__ import annotations

import struct
from collections import Counter
from dataclasses import dataclass
from typing import Callable

from ..errors import CompileError
from ..ir import mir
from ..ir.mir import (GENERIC_SHARED_BASE, ArrayParam, AtomArg, AtomOp, Block, Function, Imm,
                      Instr, Loc, MemRef, Op, Pointer, Reg, ScalarParam, ShflMode, Space, SReg,
                      VoteMode)
from ..ir.types import Scalar
from . import parser as P

TYPES = {"s8": Scalar.I8, "s16": Scalar.I16, "s32": Scalar.I32, "s64": Scalar.I64,
         "u8": Scalar.U8, "u16": Scalar.U16, "u32": Scalar.U32, "u64": Scalar.U64,
         "b8": Scalar.U8, "b16": Scalar.U16, "b32": Scalar.U32, "b64": Scalar.U64,
         "f32": Scalar.F32, "f64": Scalar.F64, "pred": Scalar.BOOL}

SREGS = {"%tid.x": SReg.TID_X, "%tid.y": SReg.TID_Y, "%tid.z": SReg.TID_Z,
         "%ntid.x": SReg.NTID_X, "%ntid.y": SReg.NTID_Y, "%ntid.z": SReg.NTID_Z,
         "%ctaid.x": SReg.CTAID_X, "%ctaid.y": SReg.CTAID_Y, "%ctaid.z": SReg.CTAID_Z,
         "%nctaid.x": SReg.NCTAID_X, "%nctaid.y": SReg.NCTAID_Y, "%nctaid.z": SReg.NCTAID_Z,
         "%laneid": SReg.LANEID, "%warpid": SReg.WARPID}

SHARED_ALIGN = 16
IGNORED_MODS = {"ftz", "uni", "aligned", "nc", "ca", "cg", "cs", "lu", "cv", "volatile",
                "relaxed", "gpu", "cta", "sys", "full", "approx", "rn", "sync", "wide", "lo",
                "hi", "to", "shared::cta"}


@dataclass
class Handler:
    fn: Callable
    doc: str                     # forms handled, for docs/ptx_coverage.md


HANDLERS: dict[str, Handler] = {}


def handles(*opcodes: str, doc: str):
    def wrap(fn):
        for op in opcodes:
            HANDLERS[op] = Handler(fn, doc)
        return fn
    return wrap


class Lowering:
    """One .entry -> one MIR Function. ``pointer_params``: the u64 parameters bound to arrays."""

    def __init__(self, module: P.Module, entry: P.Entry, name: str, pointer_params: frozenset[str]):
        self.module, self.entry, self.name = module, entry, name
        self.pointer_params = pointer_params
        self.next_id = 0
        self.blocks: list[Block] = []
        self.cur: Block | None = None
        self.ins: P.Instruction | None = None
        self.loc: Loc | None = None
        self.after_write: list[Instr] = []
        self.params: list = []
        self.param_value: dict[str, tuple] = {}       # param name -> ("reg", Reg) | ("array", MemRef)
        self.shared: dict[str, MemRef] = {}
        self.regs: dict[str, Reg] = {}
        self.read_regs = {o.name for s in entry.body if isinstance(s, P.Instruction)
                          for o in _reads(s) if isinstance(o, P.Reg)}

    # --- errors, registers, operands -----------------------------------------------------
    def error(self, message: str, line: int | None = None) -> CompileError:
        line = line if line is not None else (self.ins.line if self.ins else self.entry.line)
        return P.ptx_error(self.module.path, line, f"{message} (kernel {self.name})")

    def unsupported(self, what: str = "") -> CompileError:
        ins = self.ins
        return self.error(f"`{ins.full}` is not supported{': ' + what if what else ''}: `{ins.text}`")

    def new_reg(self, t: Scalar, name: str = "") -> Reg:
        self.next_id += 1
        return Reg(self.next_id, t, name)

    def emit(self, op: Op, dsts=(), srcs=(), arg=None) -> Instr:
        ins = Instr(op, tuple(dsts), tuple(srcs), arg, self.loc)
        self.cur.instrs.append(ins)
        return ins

    def value(self, op: Op, t: Scalar, *srcs, arg=None) -> Reg:
        d = self.new_reg(t)
        self.emit(op, (d,), srcs, arg)
        return d

    def reg_of(self, name: str) -> Reg:
        r = self.regs.get(name)
        if r is None:
            raise self.error(f"register {name} is not declared")
        return r

    def read(self, o: P.Operand, t: Scalar) -> Reg | Imm:
        """An operand as a MIR value of type ``t``."""
        if isinstance(o, P.Imm):
            return self.imm(o.text, t)
        if isinstance(o, P.Reg):
            if o.name in SREGS:
                r = self.value(Op.SREG, Scalar.I32, arg=SREGS[o.name])
                return self.cast_bits(r, t)
            return self.cast_bits(self.reg_of(o.name), t)
        if isinstance(o, P.Sym) and o.name in self.shared:
            if t not in (Scalar.U32, Scalar.U64, Scalar.I32, Scalar.I64):
                raise self.unsupported(f"the address of {o.name} as {t}")
            a = self.value(Op.ADDR, Scalar.U64 if t.bits == 64 else Scalar.U32, arg=self.shared[o.name])
            return self.cast_bits(a, t)
        raise self.unsupported(f"operand {o}")

    def cast_bits(self, r: Reg, t: Scalar) -> Reg:
        if r.type is t:
            return r
        if r.type.bits == t.bits and Scalar.BOOL not in (r.type, t):
            return self.value(Op.BITCAST, t, r)
        if r.type.is_int and t.is_int:       # a wider or narrower register: PTX extends/truncates
            return self.value(Op.CVT, t, r)
        raise self.unsupported(f"a {r.type} register used as {t}")

    def imm(self, text: str, t: Scalar) -> Imm:
        s = text.rstrip("U")
        neg = s.startswith("-")
        body = s.lstrip("+-")
        if body[:2] in ("0f", "0F"):
            v = struct.unpack(">f", bytes.fromhex(body[2:].rjust(8, "0")))[0]
            v = -v if neg else v
            if t.is_float:
                return Imm(float(v), t)
            raise self.unsupported(f"float immediate {text} as {t}")
        if body[:2] in ("0d", "0D"):
            v = struct.unpack(">d", bytes.fromhex(body[2:].rjust(16, "0")))[0]
            return Imm(float(-v if neg else v), t) if t.is_float else self._bad_imm(text, t)
        if "." in body or "e" in body.lower() and not body[:2].lower() == "0x":
            return Imm(float(s), t) if t.is_float else self._bad_imm(text, t)
        v = int(body, 0)
        v = -v if neg else v
        if t.is_float:
            return Imm(float(v), t)
        if t is Scalar.BOOL:
            return Imm(bool(v), t)
        bits = t.bits
        v &= (1 << bits) - 1
        if t.np.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        return Imm(v, t)

    def _bad_imm(self, text, t):
        raise self.unsupported(f"immediate {text} as {t}")

    def write(self, o: P.Operand, t: Scalar) -> Reg:
        """The register an instruction of type ``t`` writes; converted into the PTX register after."""
        if not isinstance(o, P.Reg) or o.name in SREGS:
            raise self.unsupported(f"destination {o}")
        r = self.reg_of(o.name)
        if r.type is t:
            return r
        tmp = self.new_reg(t)
        if r.type.bits == t.bits and Scalar.BOOL not in (r.type, t):
            self.after_write.append(Instr(Op.BITCAST, (r,), (tmp,), None, self.loc))
        elif r.type.is_int and t.is_int:
            self.after_write.append(Instr(Op.CVT, (r,), (tmp,), None, self.loc))
        else:
            raise self.unsupported(f"a {t} result written to a {r.type} register")
        return tmp

    # --- blocks ---------------------------------------------------------------------------
    def start_block(self, label: str) -> None:
        if self.cur is not None and not (self.cur.instrs and self.cur.instrs[-1].is_terminator):
            self.cur.instrs.append(Instr(Op.BR, (), (), label, self.loc))
        self.cur = Block(label)
        self.blocks.append(self.cur)

    def fresh_label(self, hint: str) -> str:
        self.next_id += 1
        return f"{hint}{self.next_id}"

    def terminate(self, op: Op, srcs=(), arg=None) -> None:
        self.emit(op, (), srcs, arg)
        self.start_block(self.fresh_label("L"))

    # --- the function ---------------------------------------------------------------------
    def run(self) -> Function:
        entry = self.entry
        self._type_registers()
        for p in entry.params:
            t = TYPES.get(p.type)
            if t is None or t is Scalar.BOOL:
                raise self.error(f"parameter {p.name} of type .{p.type} is not supported", p.line)
            if p.name in self.pointer_params:
                if t.bits != 64:
                    raise self.error(f"parameter {p.name} is .{p.type}, not a 64-bit pointer", p.line)
                mem = MemRef(p.name, Space.GLOBAL, Scalar.U8, 1, dtype_name="bytes")
                self.params.append(ArrayParam(p.name, mem))
                self.param_value[p.name] = ("array", mem)
            else:
                r = self.new_reg(t, "param")
                self.params.append(ScalarParam(p.name, r))
                self.param_value[p.name] = ("reg", r)
        offset = 0
        for v in entry.shared:
            align = max(v.align, SHARED_ALIGN)
            offset = -(-offset // align) * align
            size = -(-v.nbytes // SHARED_ALIGN) * SHARED_ALIGN
            self.shared[v.name] = MemRef(v.name, Space.SHARED, Scalar.U8, 1, shape=(size,),
                                         offset=offset, dtype_name="bytes")
            offset += size
        self.start_block("entry")
        for s in entry.body:
            if isinstance(s, P.Label):
                self.start_block(s.name)
                continue
            self.ins = s
            self.loc = self._loc(s)
            self.lower(s)
        self.ins = None
        if not self.cur.instrs or not self.cur.instrs[-1].is_terminator:
            self.emit(Op.RET)
        from .simplify import simplify, thread_jumps
        fixed = {r.id for r in self.regs.values()} | {p.reg.id for p in self.params
                                                       if isinstance(p, ScalarParam)}
        thread_jumps(self.blocks)
        blocks = _layout(self.blocks)
        for b in blocks:
            simplify(b, fixed)
        fn = Function(self.name, self.params, blocks,
                      shared=list(self.shared.values()), loc=Loc(self.module.path, entry.line, 0, self.name))
        return fn

    def _loc(self, s: P.Instruction) -> Loc:
        if s.loc is not None and s.loc[0] in self.module.files:
            return Loc(self.module.files[s.loc[0]], s.loc[1], max(0, s.loc[2] - 1), self.name)
        return Loc(self.module.path, s.line, 0, self.name)

    def _type_registers(self) -> None:
        """Each PTX register's MIR type: its declared float/pred type, else the integer type
        its definitions use most (signed if tied)."""
        votes: dict[str, Counter] = {}
        for s in self.entry.body:
            if isinstance(s, P.Instruction) and s.operands:
                t = _result_type(s)
                d = s.operands[0]
                if t is not None and isinstance(d, P.Reg):
                    votes.setdefault(d.name, Counter())[t] += 1
                u = _operand_type(s)
                if u is not None:
                    for o in _reads(s):
                        if isinstance(o, P.Reg):
                            votes.setdefault(o.name, Counter())[u] += 1
        for name, decl in self.entry.regs.items():
            t = TYPES.get(decl)
            if t is None:
                raise self.error(f"registers of type .{decl} are not supported ({name})")
            if t.is_int:
                same = [(c, k.np.kind == "i", k) for k, c in votes.get(name, Counter()).items()
                        if k.is_int and k.bits == t.bits]
                if same:
                    t = max(same, key=lambda x: (x[0], x[1]))[2]
                else:
                    t = {8: Scalar.I8, 16: Scalar.I16, 32: Scalar.I32, 64: Scalar.I64}[t.bits]
            self.regs[name] = Reg(self._id(), t, name.lstrip("%").rstrip("0123456789") or "r")

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def lower(self, s: P.Instruction) -> None:
        h = HANDLERS.get(s.opcode)
        if h is None:
            raise self.error(f"PTX instruction `{s.full}` is not supported: `{s.text}`")
        if s.guard is not None and s.opcode != "bra":
            # a predicated instruction: a block of its own, entered when the guard holds
            body, cont = self.fresh_label("pred"), self.fresh_label("L")
            cond = self.reg_of(s.guard)
            self.emit(Op.CBR, (), (cond,), (cont, body) if s.negated else (body, cont))
            self.cur = Block(body)
            self.blocks.append(self.cur)
            self._lower_one(h, s)
            self.start_block(cont)
            return
        self._lower_one(h, s)

    def _lower_one(self, h: Handler, s: P.Instruction) -> None:
        h.fn(self, s)
        if self.after_write:
            for ins in self.after_write:
                self.cur.instrs.insert(len(self.cur.instrs) - (1 if self.cur.instrs and self.cur.instrs[-1].is_terminator else 0), ins)
            self.after_write = []

    # helpers for handlers
    def constant(self, o: P.Operand) -> int | None:
        """An integer operand's value when known here: an immediate, or a register whose one
        definition moves an immediate into it."""
        if isinstance(o, P.Imm):
            return int(o.text.rstrip("U"), 0)
        if isinstance(o, P.Reg):
            defs = [s for s in self.entry.body if isinstance(s, P.Instruction) and s.operands
                    and s.operands[0] == o and s.opcode not in ("st", "red", "bar", "bra")]
            if len(defs) == 1 and defs[0].opcode == "mov" and isinstance(defs[0].operands[1], P.Imm) \
                    and defs[0].guard is None:
                return int(defs[0].operands[1].text.rstrip("U"), 0)
        return None

    def type_of(self, s: P.Instruction) -> Scalar:
        for m in reversed(s.mods):
            if m in TYPES:
                return TYPES[m]
        raise self.unsupported("no type")


def _reads(s: P.Instruction):
    ops = s.operands[1:] if s.opcode not in ("st", "red", "bar", "barrier", "bra") else s.operands
    for o in ops:
        if isinstance(o, P.Vec):
            yield from o.items
        elif isinstance(o, P.Mem):
            yield o.base
        else:
            yield o
    if s.guard:
        yield P.Reg(s.guard)


def _result_type(s: P.Instruction) -> Scalar | None:
    if s.opcode in ("st", "red", "bar", "barrier", "bra", "ret", "exit"):
        return None
    if s.opcode in ("setp", "vote") and "ballot" not in s.mods:
        return Scalar.BOOL
    if s.opcode in ("mul", "mad") and "wide" in s.mods:
        t = TYPES.get(s.mods[-1])
        return {Scalar.I32: Scalar.I64, Scalar.U32: Scalar.U64}.get(t)
    if s.opcode == "cvt":
        return TYPES.get(s.mods[-2]) if len(s.mods) >= 2 else None
    for m in reversed(s.mods):
        if m in TYPES:
            return TYPES[m]
    return None


def _operand_type(s: P.Instruction) -> Scalar | None:
    """The type an instruction reads its (non-address) register operands as, when one."""
    if s.opcode in ("add", "sub", "mul", "mad", "div", "rem", "min", "max", "setp", "selp", "neg",
                    "abs", "and", "or", "xor", "not"):
        for m in reversed(s.mods):
            if m in TYPES:
                return TYPES[m]
    if s.opcode == "cvt" and len(s.mods) >= 2:
        return TYPES.get(s.mods[-1])
    return None


def _layout(blocks: list[Block]) -> list[Block]:
    """An order of the reachable blocks in which everything between a branch and its
    immediate post-dominator comes before the post-dominator (what the engines reconverge
    by): forward edges and those constraints sorted topologically, ties in reverse
    post-order. Without such an order (none found) reverse post-order is kept: threads still
    compute the same, they may reconverge later than the post-dominator."""
    from ..ir import cfg
    rpo = _reverse_postorder(blocks)
    fn = Function("layout", [], rpo)
    rank = {b.label: i for i, b in enumerate(rpo)}
    back = cfg.back_edges(fn)
    ipdom = cfg.ipdom(fn)
    constraints: dict[str, set[str]] = {b.label: set() for b in rpo}
    for b in rpo:
        if b.term.op is Op.CBR and ipdom[b.label] is not cfg.EXIT:
            join = ipdom[b.label]
            for r in cfg.region(fn, b.label, join, back):
                constraints[r].add(join)
    after = {label: set(c) for label, c in constraints.items()}
    for b in rpo:
        after[b.label] |= {x for x in b.successors if (b.label, x) not in back}
    reversed_back = _back_edges_reversed(rpo)
    order = _topological(after, rank)
    if order is None:      # an irreducible loop: its edges read the other way round may do
        after = {label: set(c) for label, c in constraints.items()}
        for b in rpo:
            after[b.label] |= {x for x in b.successors if (b.label, x) not in reversed_back}
        order = _topological(after, rank)
    if order is None or order[0] != rpo[0].label:
        return rpo
    return [fn.block(label) for label in order]


def _topological(after: dict[str, set[str]], rank: dict[str, int]) -> list[str] | None:
    import heapq
    indegree = {label: 0 for label in after}
    for targets in after.values():
        for t in targets:
            indegree[t] += 1
    ready = [(rank[label], label) for label, n in indegree.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, label = heapq.heappop(ready)
        order.append(label)
        for t in after[label]:
            indegree[t] -= 1
            if indegree[t] == 0:
                heapq.heappush(ready, (rank[t], t))
    return order if len(order) == len(after) else None


def _back_edges_reversed(rpo: list[Block]) -> set[tuple[str, str]]:
    """Back edges of a depth-first search taking successors last to first."""
    flipped = [Block(b.label, [Instr(b.term.op, (), (), (b.term.arg[1], b.term.arg[0]))
                               if b.term.op is Op.CBR else b.term]) for b in rpo]
    from ..ir import cfg
    return cfg.back_edges(Function("layout", [], flipped))


def _reverse_postorder(blocks: list[Block]) -> list[Block]:
    by_label = {b.label: b for b in blocks}
    seen: set[str] = set()
    post: list[str] = []
    stack = [(blocks[0].label, iter(blocks[0].successors))]
    seen.add(blocks[0].label)
    while stack:
        label, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            post.append(label)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(by_label[nxt].successors)))
    return [by_label[x] for x in reversed(post)]


# --- the handlers -------------------------------------------------------------------------

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
         doc="s32/u32/s64/u64/f32/f64 (and/or/xor also .pred, .b32, .b64); .rn (the default), .ftz "
             "(subnormals are kept), div.approx/.full (IEEE division)")
def _arith(L: Lowering, s: P.Instruction) -> None:
    _check_mods(L, s)
    t = L.type_of(s)
    _binary(L, s, _BIN[s.opcode], t)


@handles("mul", doc=".lo, .wide, .hi (32-bit) on integers; f32/f64")
def _mul(L: Lowering, s: P.Instruction) -> None:
    _check_mods(L, s)
    t = L.type_of(s)
    d, a, b = s.operands
    if t.is_float or "lo" in s.mods or not ("wide" in s.mods or "hi" in s.mods):
        return _binary(L, s, Op.MUL, t)
    if t.bits != 32:
        raise L.unsupported("64-bit .wide/.hi")
    wide = Scalar.I64 if t.np.kind == "i" else Scalar.U64
    x = L.value(Op.CVT, wide, L.read(a, t))
    y = L.value(Op.CVT, wide, L.read(b, t))
    if "wide" in s.mods:
        L.emit(Op.MUL, (L.write(d, wide),), (x, y))
        return
    p = L.value(Op.MUL, wide, x, y)
    h = L.value(Op.SHR, wide, p, Imm(32, wide))
    L.emit(Op.CVT, (L.write(d, t),), (h,))


@handles("mad", doc=".lo and .wide (32-bit) on integers; mad.rn.f32/f64 is fma")
def _mad(L: Lowering, s: P.Instruction) -> None:
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


@handles("fma", doc="fma.rn.f32/f64")
def _fma(L: Lowering, s: P.Instruction) -> None:
    _check_mods(L, s)
    if any(m in s.mods for m in ("rz", "rm", "rp", "sat")):
        raise L.unsupported("rounding modes other than .rn")
    t = L.type_of(s)
    d, a, b, c = s.operands
    L.emit(Op.FMA, (L.write(d, t),), (L.read(a, t), L.read(b, t), L.read(c, t)))


_UN = {"neg": Op.NEG, "abs": Op.ABS, "not": Op.NOT, "sqrt": Op.SQRT, "rsqrt": Op.RSQRT,
       "ex2": Op.EXP2, "lg2": Op.LOG2, "sin": Op.SIN, "cos": Op.COS}


@handles("neg", "abs", "not", doc="integers and floats (not: .b32/.b64/.pred)")
@handles("sqrt", "rsqrt", "ex2", "lg2", "sin", "cos",
         doc=".approx and .rn f32/f64, computed as the MIR's SQRT/RSQRT/EXP2/LOG2/SIN/COS (to "
             "within the host math library's error, not the GPU's .approx error)")
def _unary(L: Lowering, s: P.Instruction) -> None:
    _check_mods(L, s)
    t = L.type_of(s)
    d, a = s.operands
    L.emit(_UN[s.opcode], (L.write(d, t),), (L.read(a, t),))


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
        raise L.unsupported("packing or unpacking vectors")
    if isinstance(a, P.Reg) and a.name.startswith("%") and a.name not in SREGS and a.name not in L.regs:
        raise L.unsupported(f"special register {a.name}")
    if isinstance(a, P.Reg) and a.name in SREGS:
        L.emit(Op.SREG, (L.write(d, Scalar.I32),), (), SREGS[a.name])
        return
    L.emit(Op.MOV, (L.write(d, t),), (L.read(a, t),))


@handles("cvta", doc="cvta(.to).global/.shared .u64 (generic <-> global is the identity; shared "
                     "lies at a fixed window of the generic space)")
def _cvta(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    d, a = s.operands
    if t is not Scalar.U64:
        raise L.unsupported("32-bit addresses")
    x = L.read(a, t)
    if "global" in s.mods:
        L.emit(Op.MOV, (L.write(d, t),), (x,))
    elif "shared" in s.mods:
        L.emit(Op.SUB if "to" in s.mods else Op.ADD, (L.write(d, t),), (x, Imm(GENERIC_SHARED_BASE, t)))
    else:
        raise L.unsupported("state spaces other than .global and .shared")


_ROUND = {"rni": Op.RINT, "rzi": Op.TRUNC, "rmi": Op.FLOOR, "rpi": Op.CEIL}


@handles("cvt", doc="int <-> int (wraps, sign- or zero-extends), float -> int (.rni .rzi .rmi .rpi; "
                    "saturating, NaN -> 0), int -> float (.rn), f32 <-> f64 (.rn), float -> same-size "
                    "float rounding to an integer (.rni .rzi .rmi .rpi)")
def _cvt(L: Lowering, s: P.Instruction) -> None:
    mods = [m for m in s.mods if m != "ftz"]
    if len(mods) < 2 or mods[-1] not in TYPES or mods[-2] not in TYPES or "sat" in mods:
        raise L.unsupported()
    dt, st = TYPES[mods[-2]], TYPES[mods[-1]]
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


_MEMORY_MODS = {"global", "shared", "shared::cta", "param", "nc", "ca", "cg", "cs", "lu", "cv",
                "volatile", "relaxed", "weak", "gpu", "cta", "sys", "v2", "v4"}


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
        if m in ("local", "const", "param", "shared::cluster"):
            raise L.unsupported(f".{m} memory")
    return Space.GENERIC


def _address(L: Lowering, m: P.Operand, space: Space) -> Reg | Imm:
    if not isinstance(m, P.Mem):
        raise L.unsupported(f"address {m}")
    at = Scalar.U32 if space is Space.SHARED else Scalar.U64
    if isinstance(m.base, P.Reg) and m.base.name in L.regs:
        r = L.regs[m.base.name]
        if r.type.is_int and (r.type.bits == 64 or (space is Space.SHARED and r.type.bits == 32)):
            at = r.type                # any integer of an address's width will do
    if isinstance(m.base, P.Sym):
        if m.base.name not in L.shared or space is not Space.SHARED:
            raise L.unsupported(f"address [{m.base.name}]")
        base = L.value(Op.ADDR, Scalar.U32, arg=L.shared[m.base.name])
    elif isinstance(m.base, P.Imm):
        raise L.unsupported("absolute addresses")
    else:
        base = L.read(m.base, at)
    if m.offset:
        base = L.value(Op.ADD, base.type, base, Imm(m.offset % (1 << base.type.bits), base.type))
    return base


_ELEM = {Scalar.I8, Scalar.U8, Scalar.I16, Scalar.U16}


def _vector(s: P.Instruction) -> int:
    for m in s.mods:
        if m in ("v2", "v4"):
            return int(m[1])
    return 1


@handles("ld", doc="ld.param of the kernel's parameters; ld.global/.shared/generic, .v2/.v4, .nc, "
                   "cache hints, 8- to 64-bit integers and f32/f64")
def _ld(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    d, m = s.operands
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
    if not isinstance(m, P.Mem) or not isinstance(m.base, P.Sym) or m.offset or m.base.name not in L.param_value:
        raise L.unsupported("only whole kernel parameters can be read from .param")
    kind, v = L.param_value[m.base.name]
    if kind == "array":
        if t.bits != 64:
            raise L.unsupported("a pointer parameter read as 32 bits")
        L.emit(Op.ADDR, (L.write(d, Scalar.U64),), (), v)
        return
    L.emit(Op.MOV, (L.write(d, v.type),), (v,)) if t.bits == v.type.bits else \
        L.emit(Op.CVT, (L.write(d, t),), (L.cast_bits(v, v.type),))


@handles("st", doc="st.global/.shared/generic, .v2/.v4, cache hints, 8- to 64-bit integers and f32/f64")
def _st(L: Lowering, s: P.Instruction) -> None:
    t = L.type_of(s)
    m, v = s.operands
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
                            "32/64-bit integers (add also f32/f64); .relaxed/.gpu/.cta/.sys scopes")
def _atom(L: Lowering, s: P.Instruction) -> None:
    kinds = [m for m in s.mods if m in _ATOM]
    if len(kinds) != 1 or any(m in ("acquire", "release", "acq_rel", "noftz") for m in s.mods):
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


@handles("shfl", doc="shfl.sync up/down/bfly/idx .b32 over the whole warp (clamp 31, or 0 for up); "
                     "the in-range predicate output")
def _shfl(L: Lowering, s: P.Instruction) -> None:
    modes = [m for m in s.mods if m in _SHFL]
    if "sync" not in s.mods or len(modes) != 1:
        raise L.unsupported()
    mode = _SHFL[modes[0]]
    d, a, b, c, mask = s.operands
    clamp = L.constant(c)
    if clamp != (0 if mode is ShflMode.UP else 31):
        raise L.unsupported("a shuffle over a part of the warp (width < 32)")
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


@handles("membar", "fence", doc="no-ops: the precise engine applies every access in program order, "
                                "so every fence already holds (.proxy and .mbarrier forms are refused)")
def _fence(L: Lowering, s: P.Instruction) -> None:
    if any(m.startswith(("proxy", "mbarrier")) or m in ("async", "cluster") for m in s.mods):
        raise L.unsupported()


@handles("activemask", doc="activemask.b32")
def _activemask(L: Lowering, s: P.Instruction) -> None:
    (d,) = s.operands
    L.emit(Op.ACTIVEMASK, (L.write(d, Scalar.U32),))


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


@handles("vote", doc="vote.sync .any/.all .pred and .ballot.b32")
def _vote(L: Lowering, s: P.Instruction) -> None:
    modes = [m for m in s.mods if m in _VOTE]
    if "sync" not in s.mods or len(modes) != 1:
        raise L.unsupported()
    mode = _VOTE[modes[0]]
    d, p, mask = s.operands
    t = Scalar.U32 if mode is VoteMode.BALLOT else Scalar.BOOL
    if isinstance(p, P.Reg) and p.name.startswith("!"):
        raise L.unsupported("a negated predicate")
    L.emit(Op.VOTE, (L.write(d, t),), (L.read(p, Scalar.BOOL), L.read(mask, Scalar.U32)), mode)


def lower(module: P.Module, entry: P.Entry, name: str, pointer_params: frozenset[str]) -> Function:
    return Lowering(module, entry, name, pointer_params).run()
