"""PTX instructions -> MIR, one handler per opcode (the table ``HANDLERS``).

PTX registers are untyped bit containers of a width; each becomes one typed MIR register
(the type its defining instructions give it most often), and an instruction that reads or
writes it as another type of that width goes through BITCAST. Memory is reached through
byte addresses (MIR ``Pointer`` accesses). Predicated instructions other than branches get
a block of their own. Blocks are laid out so that lanes reconverge at immediate
post-dominators (layout.py); the lowering's own temporaries are cleaned up (simplify.py).

The handlers are in ops.py; whatever is not in the table is a CompileError naming the
instruction and its PTX line.
"""
from __future__ import annotations

import struct
from collections import Counter

from ..errors import CompileError
from ..ir.mir import (ArrayParam, Block, Function, Imm, Instr, LaunchSig, Loc, MemRef, Op, Reg,
                      ScalarParam, Space)
from ..ir.types import Scalar
from . import ops  # noqa: F401  (registers the handlers)
from . import parser as P
from .layout import _layout
from .table import HANDLERS, SHARED_ALIGN, SREGS, TYPES, Handler

__all__ = ["HANDLERS", "Lowering", "lower"]


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
        self.local: dict[str, MemRef] = {}
        self.variables: dict[str, MemRef] = {}      # module-level variables the kernel uses
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
        if isinstance(o, P.Sym) and (o.name in self.shared or o.name in self.local):
            if t not in (Scalar.U32, Scalar.U64, Scalar.I32, Scalar.I64):
                raise self.unsupported(f"the address of {o.name} as {t}")
            mem = self.shared.get(o.name) or self.local[o.name]
            a = self.value(Op.ADDR, Scalar.U64 if t.bits == 64 else Scalar.U32, arg=mem)
            return self.cast_bits(a, t)
        if isinstance(o, P.Sym) and o.name in self.module.variables:
            return self.cast_bits(self.value(Op.ADDR, Scalar.U64, arg=self.variable(o.name)), t)
        raise self.unsupported(f"operand {o}")

    def variable(self, name: str) -> MemRef:
        """A module-level variable: a hidden array parameter the launch binds to its data."""
        v = self.module.variables[name]
        if isinstance(v, str):
            raise self.unsupported(f"module-level variable {name}: {v}")
        mem = self.variables.get(name)
        if mem is None:
            mem = self.variables[name] = MemRef(name, Space.GLOBAL, Scalar.U8, 1, dtype_name="bytes")
        return mem

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
        if entry.problem is not None:
            raise entry.problem
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
        self.shared.update(_place(entry.shared, Space.SHARED))
        self.local.update(_place(entry.local, Space.LOCAL))
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
        self.params += [ArrayParam(name, mem) for name, mem in self.variables.items()]
        fn = Function(self.name, self.params, blocks,
                      shared=list(self.shared.values()), local=list(self.local.values()),
                      loc=self._entry_loc(), launch=LaunchSig(3, 3))    # blocks of any shape
        return fn

    def _entry_loc(self) -> Loc:
        """The kernel's first source line: in the CUDA file where the PTX has line info."""
        for s in self.entry.body:
            if isinstance(s, P.Instruction) and s.loc is not None and s.loc[0] in self.module.files:
                return self._loc(s)
        return Loc(self.module.path, self.entry.line, 0, self.name)

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
        if s.opcode == "call":
            raise self.error(f"`{s.full}` calls a device function: calls are not supported in this "
                             f"version (inline the callee, e.g. __forceinline__; printf and "
                             f"malloc are calls too): `{s.text}`")
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
        self.cur.instrs.extend(self.after_write)     # results into registers of another type
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


def lower(module: P.Module, entry: P.Entry, name: str, pointer_params: frozenset[str]) -> Function:
    return Lowering(module, entry, name, pointer_params).run()


def _place(variables, space: Space) -> dict[str, MemRef]:
    """Byte arrays for a kernel's ``.shared`` or ``.local`` variables, one after another, each
    aligned as declared and at least to SHARED_ALIGN."""
    out, offset = {}, 0
    for v in variables:
        align = max(v.align, SHARED_ALIGN)
        offset = -(-offset // align) * align
        size = -(-v.nbytes // SHARED_ALIGN) * SHARED_ALIGN
        out[v.name] = MemRef(v.name, space, Scalar.U8, 1, shape=(size,), offset=offset, dtype_name="bytes")
        offset += size
    return out
