"""The MIR verifier: the contract every pass must keep, checked after each one in tests.

Instruction rules are a table (op -> check); each check returns an error string or None.
Function-level rules follow: block structure, register typing and definition, barrier
placement, shared-memory layout, and the block-layout property the engines rely on to
reconverge in layout order (every block between a branch and its immediate
post-dominator comes before that post-dominator).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import cfg
from .mir import (BARRIERS, BINARY, COMPARE, FLOAT_ONLY, INT_ONLY, SREG_TYPE, ArrayParam,
                  AtomArg, AtomOp, Block, CheckArg, DimArg, Function, Imm, Instr, MemRef, Op,
                  Pointer, Reg, ScalarParam, ShflMode, Space, SReg, VoteMode, UNARY)
from .printer import format_instr
from .types import Scalar


class MirVerifyError(Exception):
    """The MIR breaks a rule: a bug in the pass that produced it, never in the user's code."""


SHUFFLE_TYPES = frozenset({Scalar.I32, Scalar.U32, Scalar.I64, Scalar.U64, Scalar.F32, Scalar.F64})
INDEX_TYPES = frozenset({Scalar.I32, Scalar.I64, Scalar.U32, Scalar.U64})
LOGICAL = frozenset({Op.AND, Op.OR, Op.XOR, Op.NOT})   # bitwise on ints, logical on bool
VECTOR_WIDTHS = (1, 2, 4)

Check = Callable[[Instr], "str | None"]


# --- helpers for the rule table --------------------------------------------------------

def _shape(ins: Instr, ndsts: int | tuple[int, ...], nsrcs: int | tuple[int, ...]) -> str | None:
    ok_d = ndsts if isinstance(ndsts, tuple) else (ndsts,)
    ok_s = nsrcs if isinstance(nsrcs, tuple) else (nsrcs,)
    if len(ins.dsts) not in ok_d:
        return f"{ins.op.name} takes {' or '.join(map(str, ok_d))} destination(s), has {len(ins.dsts)}"
    if len(ins.srcs) not in ok_s:
        return f"{ins.op.name} takes {' or '.join(map(str, ok_s))} source(s), has {len(ins.srcs)}"
    return None


def _types(ins: Instr) -> str:
    return ", ".join(str(s.type) for s in ins.srcs)


def _value_class(op: Op, t: Scalar) -> str | None:
    """Whether an arithmetic/logic op accepts values of type ``t``."""
    if t.is_storage:
        return f"{op.name} on {t.short}: {t} is computed in f32 (CVT there and back)"
    if op in FLOAT_ONLY and not t.is_float:
        return f"{op.name} needs a float type, got {t}"
    if op in INT_ONLY and not t.is_int:
        return f"{op.name} needs an integer type, got {t}"
    if op in LOGICAL and t.is_float:
        return f"{op.name} needs an integer or bool type, got {t}"
    if op not in LOGICAL and t is Scalar.BOOL:
        return f"{op.name} does not take bool"
    return None


# --- per-op checks --------------------------------------------------------------------

def check_binary(ins: Instr) -> str | None:
    err = _shape(ins, 1, 2)
    if err:
        return err
    t = ins.dst.type
    if any(s.type is not t for s in ins.srcs):
        return f"{ins.op.name} sources must have the destination type {t}, got {_types(ins)}"
    return _value_class(ins.op, t)


def check_unary(ins: Instr) -> str | None:
    err = _shape(ins, 1, 1)
    if err:
        return err
    t = ins.dst.type
    if ins.srcs[0].type is not t:
        return f"{ins.op.name} source must have the destination type {t}, got {ins.srcs[0].type}"
    return _value_class(ins.op, t)


def check_classify(ins: Instr) -> str | None:     # ISNAN, ISINF
    err = _shape(ins, 1, 1)
    if err:
        return err
    if ins.dst.type is not Scalar.BOOL:
        return f"{ins.op.name} writes bool, not {ins.dst.type}"
    if not ins.srcs[0].type.is_float or ins.srcs[0].type.is_storage:
        return f"{ins.op.name} needs an f32 or f64 source, got {ins.srcs[0].type}"
    return None


def check_compare(ins: Instr) -> str | None:
    err = _shape(ins, 1, 2)
    if err:
        return err
    if ins.dst.type is not Scalar.BOOL:
        return f"comparison writes bool, not {ins.dst.type}"
    if ins.srcs[0].type is not ins.srcs[1].type:
        return f"comparison sources must share one type, got {_types(ins)}"
    if ins.srcs[0].type.is_storage:
        return f"comparison of {ins.srcs[0].type.short}: it is compared in f32 (CVT first)"
    return None


def check_mov(ins: Instr) -> str | None:
    err = _shape(ins, 1, 1)
    if err:
        return err
    if ins.srcs[0].type is not ins.dst.type:
        return f"MOV changes type {ins.srcs[0].type} -> {ins.dst.type} (use CVT)"
    return None


def check_cvt(ins: Instr) -> str | None:
    err = _shape(ins, 1, 1)
    if err:
        return err
    src, dst = ins.srcs[0].type, ins.dst.type
    if (src.is_storage or dst.is_storage) and Scalar.F32 not in (src, dst):
        return f"CVT {src} -> {dst}: f16 and bf16 convert only to and from f32"
    return None


def check_select(ins: Instr) -> str | None:
    err = _shape(ins, 1, 3)
    if err:
        return err
    cond, a, b = ins.srcs
    if cond.type is not Scalar.BOOL:
        return f"SELECT condition must be bool, got {cond.type}"
    if a.type is not ins.dst.type or b.type is not ins.dst.type:
        return f"SELECT values must have the destination type {ins.dst.type}, got {a.type}, {b.type}"
    return None


def _index_ok(ins: Instr) -> str | None:
    if not ins.srcs:
        return f"{ins.op.name} needs an index source"
    if ins.srcs[0].type not in INDEX_TYPES:
        return f"{ins.op.name} index must be an integer, got {ins.srcs[0].type}"
    return None


def _address_ok(ins: Instr, ptr: Pointer) -> str | None:
    """A byte address: a 64-bit integer, or a 32-bit one for an offset in a shared or local window."""
    if not ins.srcs:
        return f"{ins.op.name} needs an address source"
    want = (Scalar.U64, Scalar.I64)
    want += (Scalar.U32, Scalar.I32) if ptr.space in (Space.SHARED, Space.LOCAL) else ()
    if ptr.space not in (Space.GLOBAL, Space.SHARED, Space.LOCAL, Space.GENERIC):
        return f"{ins.op.name} through a {ptr.space.value} pointer is not supported"
    if ins.srcs[0].type not in want:
        return f"{ins.op.name} address must be {' or '.join(map(str, want))}, got {ins.srcs[0].type}"
    if ptr.elem is Scalar.BOOL:
        return f"{ins.op.name} cannot move bool through a pointer"
    return None


def check_pointer_access(ins: Instr) -> str | None:      # LD, ST, ATOM with a Pointer
    arg = ins.arg
    ptr = arg.mem if isinstance(arg, AtomArg) else arg
    if ins.op is Op.LD:
        err = _shape(ins, VECTOR_WIDTHS, 1)
        values = ins.dsts
    elif ins.op is Op.ST:
        err = _shape(ins, 0, tuple(1 + w for w in VECTOR_WIDTHS))
        values = ins.srcs[1:]
    else:
        err = _shape(ins, 1, 3 if arg.op is AtomOp.CAS else 2)
        values = (*ins.dsts, *ins.srcs[1:])
        if not err and arg.op in (AtomOp.AND, AtomOp.OR, AtomOp.XOR) and not ptr.elem.is_int:
            err = f"atomic {arg.op.value} needs integer elements, not {ptr.elem}"
    err = err or _address_ok(ins, ptr)
    if err:
        return err
    if any(v.type is not ptr.elem for v in values):
        return f"{ins.op.name} values must have the pointer's element type {ptr.elem}"
    return None


def check_addr(ins: Instr) -> str | None:
    if not isinstance(ins.arg, MemRef):
        return "ADDR needs a MemRef argument"
    err = _shape(ins, 1, 0)
    if err:
        return err
    want = (Scalar.U64, Scalar.U32) if ins.arg.space in (Space.SHARED, Space.LOCAL) else (Scalar.U64,)
    if ins.dst.type not in want:
        return f"ADDR of {ins.arg} writes {' or '.join(map(str, want))}, not {ins.dst.type}"
    return None


def check_fma(ins: Instr) -> str | None:
    err = _shape(ins, 1, 3)
    if err:
        return err
    t = ins.dst.type
    if any(s.type is not t for s in ins.srcs):
        return f"FMA sources must have the destination type {t}, got {_types(ins)}"
    if t not in (Scalar.F32, Scalar.F64):
        return f"FMA needs f32 or f64, got {t}"
    if ins.arg not in (None, "rz", "rm", "rp"):
        return f"FMA rounds to nearest or by 'rz', 'rm', 'rp', not {ins.arg!r}"
    if ins.arg is not None and t is not Scalar.F32:
        return "FMA with a directed rounding takes f32 only"
    return None


def check_bitcast(ins: Instr) -> str | None:
    err = _shape(ins, 1, 1)
    if err:
        return err
    src, dst = ins.srcs[0].type, ins.dst.type
    if Scalar.BOOL in (src, dst) or src.bits != dst.bits:
        return f"BITCAST needs two non-bool types of one width, got {src} -> {dst}"
    return None


def check_ld(ins: Instr) -> str | None:
    mem = ins.arg
    if isinstance(mem, Pointer):
        return check_pointer_access(ins)
    if not isinstance(mem, MemRef):
        return "LD needs a MemRef argument"
    err = _shape(ins, VECTOR_WIDTHS, 1) or _index_ok(ins)
    if err:
        return err
    if any(d.type is not mem.elem for d in ins.dsts):
        return f"LD destinations must have the element type {mem.elem} of {mem}"
    return None


def check_st(ins: Instr) -> str | None:
    mem = ins.arg
    if isinstance(mem, Pointer):
        return check_pointer_access(ins)
    if not isinstance(mem, MemRef):
        return "ST needs a MemRef argument"
    err = _shape(ins, 0, tuple(1 + w for w in VECTOR_WIDTHS)) or _index_ok(ins)
    if err:
        return err
    if any(s.type is not mem.elem for s in ins.srcs[1:]):
        return f"ST values must have the element type {mem.elem} of {mem}, got {_types(ins)}"
    return None


def check_atom(ins: Instr) -> str | None:
    arg = ins.arg
    if not isinstance(arg, AtomArg):
        return "ATOM needs an AtomArg argument"
    if isinstance(arg.mem, Pointer):
        return check_pointer_access(ins)
    nsrcs = 3 if arg.op is AtomOp.CAS else 2
    err = _shape(ins, 1, nsrcs) or _index_ok(ins)
    if err:
        return err
    elem = arg.mem.elem
    if ins.dst.type is not elem or any(s.type is not elem for s in ins.srcs[1:]):
        return f"ATOM value and result must have the element type {elem} of {arg.mem}"
    if elem is Scalar.BOOL:
        return "ATOM on bool arrays is not supported"
    if arg.op in (AtomOp.AND, AtomOp.OR, AtomOp.XOR) and not elem.is_int:
        return f"atomic {arg.op.value} needs integer elements, not {elem}"
    return None


def check_dim(ins: Instr) -> str | None:
    arg = ins.arg
    if not isinstance(arg, DimArg):
        return "DIM needs a DimArg argument"
    err = _shape(ins, 1, 0)
    if err:
        return err
    if ins.dst.type is not Scalar.I32:
        return f"DIM writes i32, not {ins.dst.type}"
    if not 0 <= arg.dim < arg.mem.ndim:
        return f"DIM {arg.dim} out of range for {arg.mem} with {arg.mem.ndim} dimension(s)"
    return None


def check_sreg(ins: Instr) -> str | None:
    if not isinstance(ins.arg, SReg):
        return "SREG needs an SReg argument"
    err = _shape(ins, 1, 0)
    if err:
        return err
    want = SREG_TYPE[ins.arg]
    if ins.dst.type is not want:
        return f"special register {ins.arg.value} is {want}, not {ins.dst.type}"
    return None


def check_bar(ins: Instr) -> str | None:
    return _shape(ins, 0, 0)


def check_bar_and(ins: Instr) -> str | None:
    err = _shape(ins, 1, 1)
    if err:
        return err
    if ins.dst.type is not Scalar.BOOL or ins.srcs[0].type is not Scalar.BOOL:
        return "BAR_AND takes and writes bool"
    return None


def check_syncwarp(ins: Instr) -> str | None:
    err = _shape(ins, 0, 1)
    if err:
        return err
    if ins.srcs[0].type is not Scalar.U32:
        return f"SYNCWARP mask must be u32, got {ins.srcs[0].type}"
    return None


def check_shfl(ins: Instr) -> str | None:
    if not isinstance(ins.arg, ShflMode):
        return "SHFL needs a ShflMode argument"
    err = _shape(ins, 1, 3)
    if err:
        return err
    value, lane, mask = ins.srcs
    if value.type not in SHUFFLE_TYPES:
        return f"SHFL moves 32- or 64-bit values, not {value.type}"
    if ins.dst.type is not value.type:
        return f"SHFL result {ins.dst.type} differs from its value {value.type}"
    if lane.type is not Scalar.I32:
        return f"SHFL lane/delta must be i32, got {lane.type}"
    if mask.type is not Scalar.U32:
        return f"SHFL mask must be u32, got {mask.type}"
    return None


def check_vote(ins: Instr) -> str | None:
    if not isinstance(ins.arg, VoteMode):
        return "VOTE needs a VoteMode argument"
    err = _shape(ins, 1, 2)
    if err:
        return err
    want = Scalar.U32 if ins.arg is VoteMode.BALLOT else Scalar.BOOL
    if ins.dst.type is not want:
        return f"vote.{ins.arg.value} writes {want}, not {ins.dst.type}"
    if ins.srcs[0].type is not Scalar.BOOL:
        return f"VOTE predicate must be bool, got {ins.srcs[0].type}"
    if ins.srcs[1].type is not Scalar.U32:
        return f"VOTE mask must be u32, got {ins.srcs[1].type}"
    return None


def check_activemask(ins: Instr) -> str | None:
    err = _shape(ins, 1, 0)
    if err:
        return err
    if ins.dst.type is not Scalar.U32:
        return f"ACTIVEMASK writes u32, not {ins.dst.type}"
    return None


def check_check(ins: Instr) -> str | None:
    if not isinstance(ins.arg, CheckArg):
        return "CHECK needs a CheckArg argument"
    err = _shape(ins, 0, 2)
    if err:
        return err
    a, b = ins.srcs
    if a.type not in (Scalar.I32, Scalar.I64) or a.type is not b.type:
        return f"CHECK compares two i32 or two i64 values, got {_types(ins)}"
    return None


def check_print(ins: Instr) -> str | None:
    from .printf import conversions
    if ins.dsts:
        return "PRINT has no destinations"
    if not isinstance(ins.arg, str):
        return "PRINT needs a format string argument"
    try:
        n = len(conversions(ins.arg))
    except ValueError as e:
        return f"PRINT format: {e}"
    if n != len(ins.srcs):
        return f"PRINT format has {n} conversion(s) for {len(ins.srcs)} value(s)"
    bad = [s.type for s in ins.srcs if s.type is Scalar.BOOL or s.type.is_storage]
    if bad:
        return f"PRINT takes integers, f32 and f64 (convert first), not {bad[0]}"
    return None


def check_br(ins: Instr) -> str | None:
    err = _shape(ins, 0, 0)
    if err:
        return err
    if not isinstance(ins.arg, str):
        return "BR needs a target label"
    return None


def check_cbr(ins: Instr) -> str | None:
    err = _shape(ins, 0, 1)
    if err:
        return err
    if ins.srcs[0].type is not Scalar.BOOL:
        return f"CBR condition must be bool, got {ins.srcs[0].type}"
    arg = ins.arg
    if not (isinstance(arg, tuple) and len(arg) == 2 and all(isinstance(x, str) for x in arg)):
        return "CBR needs a (true label, false label) argument"
    return None


def check_ret(ins: Instr) -> str | None:
    return _shape(ins, 0, 0)


RULES: dict[Op, Check] = {
    **{op: check_binary for op in BINARY},
    **{op: check_unary for op in UNARY},
    **{op: check_compare for op in COMPARE},
    Op.ISNAN: check_classify, Op.ISINF: check_classify,
    Op.MOV: check_mov, Op.BITCAST: check_bitcast, Op.FMA: check_fma, Op.ADDR: check_addr,
    Op.CVT: check_cvt, Op.SELECT: check_select,
    Op.LD: check_ld, Op.ST: check_st, Op.ATOM: check_atom, Op.DIM: check_dim,
    Op.SREG: check_sreg, Op.BAR: check_bar, Op.BAR_AND: check_bar_and,
    Op.SYNCWARP: check_syncwarp, Op.SHFL: check_shfl, Op.VOTE: check_vote,
    Op.ACTIVEMASK: check_activemask, Op.CHECK: check_check, Op.PRINT: check_print,
    Op.BR: check_br, Op.CBR: check_cbr, Op.RET: check_ret,
}


# --- operand checks ---------------------------------------------------------------------

# the largest finite value of each float type (bfloat16 is held as its 16 bits in a uint16)
_FLOAT_MAX = {Scalar.F16: 65504.0, Scalar.BF16: 3.3895313892515355e38,
              Scalar.F32: float(np.finfo(np.float32).max), Scalar.F64: float(np.finfo(np.float64).max)}


def imm_fits(imm: Imm) -> bool:
    """An immediate's Python value is of its type's kind and in its range.

    Float immediates need not be exactly representable (engines round to nearest), but
    must not overflow the type.
    """
    t, v = imm.type, imm.value
    if t is Scalar.BOOL:
        return isinstance(v, (bool, np.bool_))
    if t.is_float:
        if not isinstance(v, (float, np.floating)):
            return False
        return not np.isfinite(v) or abs(v) <= _FLOAT_MAX[t]
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        return False
    info = np.iinfo(t.np)
    return int(info.min) <= int(v) <= int(info.max)


# --- the verifier -----------------------------------------------------------------------

class _Verifier:
    def __init__(self, fn: Function):
        self.fn = fn

    def fail(self, msg: str, block: Block | None = None, index: int | None = None) -> None:
        where = f"kernel {self.fn.name}"
        if block is not None:
            where += f", block {block.label}"
            if index is not None and 0 <= index < len(block.instrs):
                where += f", instruction {index} `{format_instr(block.instrs[index])}`"
        raise MirVerifyError(f"{where}: {msg}")

    def run(self) -> None:
        self.check_params_and_shared()
        self.check_blocks()
        self.check_instructions()
        self.check_register_types()
        self.check_definitions()
        self.check_layout()

    # structure ------------------------------------------------------------------------
    def check_params_and_shared(self) -> None:
        fn = self.fn
        names: set[str] = set()
        for p in fn.params:
            if p.name in names:
                self.fail(f"parameter {p.name!r} declared twice")
            names.add(p.name)
            if isinstance(p, ArrayParam) and p.mem.space is not Space.GLOBAL:
                self.fail(f"array parameter {p.name!r} must be in global space, not {p.mem.space.value}")
        self.memrefs = {p.mem.name: p.mem for p in fn.params if isinstance(p, ArrayParam)}
        spans: list[tuple[int, int, MemRef]] = []
        for mem in fn.shared:
            if mem.space is not Space.SHARED or mem.shape is None:
                self.fail(f"shared allocation {mem} must be in shared space with a static shape")
            if mem.name in self.memrefs:
                self.fail(f"shared allocation {mem} reuses the name of another array")
            self.memrefs[mem.name] = mem
            if mem.offset % mem.elem.nbytes:
                self.fail(f"shared allocation {mem} at offset {mem.offset} is not aligned to "
                          f"{mem.elem.nbytes} bytes")
            spans.append((mem.offset, mem.offset + mem.size * mem.elem.nbytes, mem))
        for mem in fn.local:
            if mem.space is not Space.LOCAL or mem.shape is None or mem.name in self.memrefs:
                self.fail(f"local allocation {mem} must be in local space with a static shape "
                          f"and a name of its own")
            self.memrefs[mem.name] = mem
        spans.sort(key=lambda s: (s[0], s[1]))
        reach_end, owner = 0, None
        for start, end, mem in spans:
            if end == start:
                continue
            if owner is not None and start < reach_end:
                self.fail(f"shared allocations {owner} and {mem} overlap at byte {start}")
            if end > reach_end:
                reach_end, owner = end, mem

    def check_blocks(self) -> None:
        fn = self.fn
        if not fn.blocks:
            self.fail("function has no blocks")
        labels: set[str] = set()
        for b in fn.blocks:
            if b.label in labels:
                self.fail(f"label {b.label!r} used twice")
            labels.add(b.label)
        for b in fn.blocks:
            if not b.instrs:
                self.fail("block is empty (needs a terminator)", b)
            for i, ins in enumerate(b.instrs):
                last = i == len(b.instrs) - 1
                if ins.is_terminator and not last:
                    self.fail("terminator before the end of the block", b, i)
                if last and not ins.is_terminator:
                    self.fail("block does not end in a terminator", b, i)
                if ins.op in BARRIERS and i != 0:
                    self.fail(f"{ins.op.name} must be the first instruction of its block", b, i)
            term = b.term
            targets = ((term.arg,) if term.op is Op.BR else
                       tuple(term.arg) if term.op is Op.CBR and isinstance(term.arg, tuple) else ())
            for t in targets:
                if t not in labels:
                    self.fail(f"branch to unknown block {t!r}", b, len(b.instrs) - 1)

    def check_instructions(self) -> None:
        for b in self.fn.blocks:
            for i, ins in enumerate(b.instrs):
                rule = RULES.get(ins.op)
                if rule is None:
                    self.fail(f"no verifier rule for {ins.op.name}", b, i)
                err = rule(ins)
                if err:
                    self.fail(err, b, i)
                for d in ins.dsts:
                    if not isinstance(d, Reg):
                        self.fail(f"destination {d} is not a register", b, i)
                for s in ins.srcs:
                    if isinstance(s, Imm) and not imm_fits(s):
                        self.fail(f"immediate {s.value!r} does not fit {s.type}", b, i)
                    elif not isinstance(s, (Reg, Imm)):
                        self.fail(f"source {s!r} is neither a register nor an immediate", b, i)
                mem = _memref_of(ins)
                if mem is not None and mem.name not in self.memrefs:
                    self.fail(f"{mem} is neither a parameter nor a shared or local allocation", b, i)

    def check_register_types(self) -> None:
        seen: dict[int, Reg] = {}

        def note(r: Reg, block: Block | None, index: int | None) -> None:
            first = seen.setdefault(r.id, r)
            if first.type is not r.type:
                self.fail(f"register id {r.id} used as {first.type} ({first}) and as {r.type} ({r})",
                          block, index)

        for p in self.fn.params:
            if isinstance(p, ScalarParam):
                note(p.reg, None, None)
        for b in self.fn.blocks:
            for i, ins in enumerate(b.instrs):
                for r in (*ins.dsts, *ins.srcs):
                    if isinstance(r, Reg):
                        note(r, b, i)

    def check_definitions(self) -> None:
        """Every register read is written on some path from the entry (or is a parameter)."""
        fn = self.fn
        params = {p.reg.id for p in fn.params if isinstance(p, ScalarParam)}
        defs_in_block = {b.label: {d.id for ins in b.instrs for d in ins.dsts} for b in fn.blocks}
        everything = params.union(*defs_in_block.values())
        reach = cfg.reachable(fn)
        preds = cfg.predecessors(fn)
        live_in: dict[str, set[int]] = {b.label: set() for b in fn.blocks}
        live_in[fn.entry.label] = set(params)
        changed = True
        while changed:
            changed = False
            for b in fn.blocks:
                if b.label not in reach:
                    continue
                incoming = set(params) if b is fn.entry else set()
                for p in preds[b.label]:
                    if p in reach:
                        incoming |= live_in[p] | defs_in_block[p]
                if incoming != live_in[b.label]:
                    live_in[b.label] = incoming
                    changed = True
        for b in fn.blocks:
            defined = set(live_in[b.label]) if b.label in reach else set(everything)
            for i, ins in enumerate(b.instrs):
                for s in ins.srcs:
                    if isinstance(s, Reg) and s.id not in defined:
                        self.fail(f"register {s} is read but never written before on any path", b, i)
                defined.update(d.id for d in ins.dsts)

    def check_layout(self) -> None:
        """Between a branch and its immediate post-dominator, every block comes before it."""
        fn = self.fn
        index = {b.label: i for i, b in enumerate(fn.blocks)}
        ipdom = cfg.ipdom(fn)
        loops = cfg.back_edges(fn)
        for b in fn.blocks:
            if b.term.op is not Op.CBR:
                continue
            join = ipdom[b.label]
            if join is cfg.EXIT:
                continue
            for label in cfg.region(fn, b.label, join, loops):
                if index[label] > index[join]:
                    self.fail(f"block {label} lies between this branch and its reconvergence "
                              f"point {join} but is laid out after it", b, len(b.instrs) - 1)


def _memref_of(ins: Instr) -> MemRef | None:
    arg = ins.arg
    if isinstance(arg, MemRef):
        return arg
    if isinstance(arg, (AtomArg, DimArg, CheckArg)):
        return arg.mem if isinstance(arg.mem, MemRef) else None
    return None


def verify(fn: Function) -> None:
    """Raise ``MirVerifyError`` naming the block and instruction of the first broken rule."""
    _Verifier(fn).run()
