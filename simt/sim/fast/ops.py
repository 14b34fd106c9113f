"""MIR instructions as lines of Python for numba: one function per kind of op.

Every value is a numba scalar of exactly its MIR type: constants are typed module
globals, and integer results are cast back to their type (numba widens small ints to 64
bits; the cast wraps the way the precise engine's numpy ``astype`` does). Float32 stays
float32 in numba, so +, -, *, / and sqrt round exactly as numpy's float32 loops do.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...ir.mir import (BINARY, COMPARE, UNARY, AtomArg, AtomOp, DimArg, Instr, MemRef, Op,
                       Pointer, Reg, Space, SReg)
from ...ir.types import Scalar
from .. import mathlib
from ..atomic_log import ADDRESS_BITS, THREADS_PER_BLOCK_KEY as LOG_KEY

# numba spelling of each scalar type's constructor (a cast when applied to a value). Numba has
# no float16: float16 registers and arrays hold the value's bits as uint16, and CVT to and
# from float32 (the only conversions of float16 in the MIR) translate the bits.
CAST = {Scalar.BOOL: "np.bool_", Scalar.I8: "np.int8", Scalar.U8: "np.uint8",
        Scalar.I16: "np.int16", Scalar.U16: "np.uint16", Scalar.I32: "np.int32",
        Scalar.U32: "np.uint32", Scalar.I64: "np.int64", Scalar.U64: "np.uint64",
        Scalar.F16: "np.uint16", Scalar.BF16: "np.uint16", Scalar.F32: "np.float32",
        Scalar.F64: "np.float64"}


def float16_bits(value) -> int:
    return int(np.array(value).astype(np.float16).view(np.uint16))

ERR_OOB, ERR_CHECK, ERR_WARP_SYNC, ERR_BARRIER, ERR_STEPS = 1, 2, 3, 4, 5

# numba computes +, -, * (and & | ^ for ints) of two values of these types in the same type
_EXACT_ARITH = frozenset({Scalar.F32, Scalar.F64, Scalar.I64, Scalar.U64})
_COMPARE = {Op.EQ: "==", Op.NE: "!=", Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">="}
_ARITH = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*"}
_BITWISE = {Op.AND: "&", Op.OR: "|", Op.XOR: "^"}
# exact ops (one right answer); the math library's ops call simt/sim/mathlib.py, as ``M``
_NP_UNARY = {Op.SQRT: "np.sqrt", Op.FLOOR: "np.floor", Op.CEIL: "np.ceil", Op.TRUNC: "np.trunc",
             Op.ISNAN: "np.isnan", Op.ISINF: "np.isinf"}
MATH_MODULE = "M"
_SREG_LOCAL = {SReg.TID_X: "tid_x", SReg.TID_Y: "tid_y", SReg.TID_Z: "tid_z",
               SReg.NTID_X: "bx", SReg.NTID_Y: "by", SReg.NTID_Z: "bz",
               SReg.CTAID_X: "ctaid_x", SReg.CTAID_Y: "ctaid_y", SReg.CTAID_Z: "ctaid_z",
               SReg.NCTAID_X: "gx", SReg.NCTAID_Y: "gy", SReg.NCTAID_Z: "gz",
               SReg.DIM_0: "dim0", SReg.DIM_1: "dim1", SReg.DIM_2: "dim2", SReg.DIM_3: "dim3",
               SReg.LANEID: "(t & 31)", SReg.WARPID: "(t >> 5)"}


class UnsupportedOp(NotImplementedError):
    """A MIR construct the fast engine has no translation for (never silently skipped)."""


def reg_name(r: Reg) -> str:
    return f"r{r.id}"


class Constants:
    """Typed module-level constants: one global per distinct (value, type)."""

    def __init__(self):
        self.names: dict[tuple, str] = {}
        self.lines: list[str] = []

    def text(self, value: str) -> str:
        """A string constant (a print format)."""
        key = (repr(value), None)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"K{len(self.names)}"
            self.lines.append(f"{name} = {value!r}")
        return name

    def get(self, value, t: Scalar) -> str:
        key = (repr(value), t)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"K{len(self.names)}"
            literal = np.array(value).astype(t.np)[()]      # the precise engine's rounding
            if t is Scalar.F16:
                text = f"np.uint16({float16_bits(literal)})"
            elif t is Scalar.BF16:
                from ...ir.bfloat16 import to_bits
                text = f"np.uint16({int(to_bits(float(value)))})"
            elif t is Scalar.BOOL:
                text = repr(bool(literal))
            elif t.is_float:
                f = float(literal)
                text = f"np.{t.np.name}({'np.nan' if f != f else repr(f).replace('inf', 'np.inf')})"
            else:
                text = f"np.{t.np.name}({int(literal)})"
            self.lines.append(f"{name} = {text}")
        return name


class OpWriter:
    """Writes the Python lines for one instruction. ``fail(code, ins, *values)`` gives the
    lines that record a runtime error and leave the compiled function."""

    def __init__(self, consts: Constants, memory: Callable[[MemRef], tuple[str, str]],
                 dim_of: Callable[[MemRef, int], str], fail: Callable[..., list[str]],
                 instr_id: Callable[[Instr], int]):
        self.consts = consts
        self.memory = memory        # MemRef -> (array variable, scalar extent expression)
        self.dim_of = dim_of        # (MemRef, dim) -> expression of that extent
        self.fail = fail
        self.instr_id = instr_id    # Instr -> its number in the function (stable across runs)
        # plain read-modify-write for global atomics: right when one OS thread runs the launch
        self.plain_global_atomics = False
        # deferred float atomics (simt/sim/atomic_log.py) are logged, not applied, when set
        self.deferral = None
        self.log_keys = False       # rows carry the thread's key (threads run in rounds)
        # accesses whose index the block's prologue showed in bounds when ``slow`` is False
        self.hoisted: set[int] = set()
        # how those accesses read: None, test ``slow`` at each; True, the copy of the thread
        # loop that only runs where ``slow`` is False (no test); False, the copy for where
        # it is True (test the index)
        self.unchecked: bool | None = None
        self.pointers = None        # pointers.PointerCode, for functions with byte addresses

    def index_name(self, ins: Instr) -> str:
        """One name per memory instruction: numba compiles single-assignment names faster."""
        return f"ix{self.instr_id(ins)}"

    def val(self, x) -> str:
        return reg_name(x) if isinstance(x, Reg) else self.consts.get(x.value, x.type)

    def write(self, ins: Instr) -> list[str]:
        op = ins.op
        if op in BINARY:
            return [f"{reg_name(ins.dst)} = {self.binary(ins)}"]
        if op in COMPARE:
            a, b = (self.val(s) for s in ins.srcs)
            return [f"{reg_name(ins.dst)} = {a} {_COMPARE[op]} {b}"]
        if op in UNARY or op in (Op.ISNAN, Op.ISINF):
            return [f"{reg_name(ins.dst)} = {self.unary(ins)}"]
        if op is Op.MOV:
            return [f"{reg_name(ins.dst)} = {self.val(ins.srcs[0])}"]
        if op is Op.CVT:
            return [f"{reg_name(ins.dst)} = {self.convert(ins)}"]
        if op is Op.SELECT:
            c, a, b = (self.val(s) for s in ins.srcs)
            return [f"{reg_name(ins.dst)} = {a} if {c} else {b}"]
        if op is Op.FMA:      # simt/sim/mathlib.py's, as the precise engine's
            a, b, c = (self.val(s) for s in ins.srcs)
            return [f"{reg_name(ins.dst)} = {MATH_MODULE}.{mathlib.FMA_FUNCTIONS[ins.arg]}({a}, {b}, {c})"]
        if op is Op.BITCAST:
            return [f"{reg_name(ins.dst)} = {self.bitcast(ins)}"]
        if op is Op.ADDR or _is_pointer_access(ins):     # byte addresses: pointers.py
            return self.pointers.write(ins, self.val)
        if op is Op.LD:
            return self.load(ins)
        if op is Op.ST:
            return self.store(ins)
        if op is Op.ATOM:
            return self.atomic(ins)
        if op is Op.DIM:
            arg: DimArg = ins.arg
            return [f"{reg_name(ins.dst)} = np.int32({self.dim_of(arg.mem, arg.dim)})"]
        if op is Op.SREG:
            return [f"{reg_name(ins.dst)} = {self.sreg(ins.arg)}"]
        if op is Op.PRINT:      # formatted on the host, in thread order (Python object mode)
            values = ", ".join(self.val(s) for s in ins.srcs)
            return ["with objmode():",
                    f"    print_c({self.consts.text(ins.arg)}{', ' if values else ''}{values})"]
        if op is Op.CHECK:
            i, n = (self.val(s) for s in ins.srcs)
            return [f"if {i} < 0 or {i} >= {n}:",
                    *("    " + x for x in self.fail(ERR_CHECK, ins, i, n))]
        raise UnsupportedOp(f"fast engine: no translation for MIR op {op.name}")

    # --- arithmetic ----------------------------------------------------------------------
    def binary(self, ins: Instr) -> str:
        op, t = ins.op, ins.dst.type
        a, b = (self.val(s) for s in ins.srcs)
        cast = CAST[t]
        if t is Scalar.BOOL:
            return {Op.AND: f"({a} and {b})", Op.OR: f"({a} or {b})", Op.XOR: f"({a} != {b})"}[op]
        if op in _ARITH or op in _BITWISE:
            sym = _ARITH.get(op) or _BITWISE[op]
            if t is Scalar.I64 and op in _ARITH:
                # numba marks signed int64 +, -, * "no signed wrap" (LLVM's nsw), and LLVM then
                # folds (x * c * y) / y to x * c where the product wraps: wrap in uint64 instead
                return f"np.int64(np.uint64({a}) {sym} np.uint64({b}))"
            if t in _EXACT_ARITH:         # numba keeps these types: no cast to type-check
                return f"{a} {sym} {b}"
            return f"{cast}({a} {sym} {b})"
        if op in mathlib.FUNCTIONS:
            return f"{MATH_MODULE}.{mathlib.FUNCTIONS[op]}({a}, {b})"
        if t.is_float:
            return {Op.DIV: f"{a} / {b}", Op.REM: f"np.fmod({a}, {b})",
                    Op.MIN: f"fmin({a}, {b})", Op.MAX: f"fmax({a}, {b})"}[op]
        kind = "signed" if t.is_signed else "unsigned"
        if op is Op.DIV:
            return f"{cast}(div_{kind}({a}, {b}))"
        if op is Op.REM:
            return f"{cast}(rem_{kind}({a}, {b}))"
        if op is Op.MIN:
            return f"{cast}(min({a}, {b}))"
        if op is Op.MAX:
            return f"{cast}(max({a}, {b}))"
        if op is Op.SHL:
            return f"{cast}(shl_{kind}({a}, {b}, {t.bits}))"
        if op is Op.SHR:
            return f"{cast}(shr_{kind}({a}, {b}, {t.bits}))"
        raise UnsupportedOp(f"fast engine: no translation for {op.name} on {t}")

    def unary(self, ins: Instr) -> str:
        op, t = ins.op, ins.srcs[0].type
        a = self.val(ins.srcs[0])
        cast = CAST[t]
        if op is Op.NOT:
            return f"(not {a})" if t is Scalar.BOOL else f"{cast}(~{a})"
        if op is Op.NEG:
            if t is Scalar.I64:           # as above: -INT64_MIN wraps
                return f"np.int64(np.uint64(0) - np.uint64({a}))"
            return f"-{a}" if t in _EXACT_ARITH else f"{cast}(-{a})"
        if op is Op.ABS:
            return f"abs({a})" if t.is_float else f"{cast}(abs({a}))"
        if op is Op.ROUND:
            return f"{cast}(round_half_away({a}))"
        if op is Op.RSQRT:
            return f"{cast}({self.consts.get(1.0, t)} / np.sqrt({a}))"
        if op in mathlib.FUNCTIONS:      # the type of the argument (float32 stays float32)
            return f"{MATH_MODULE}.{mathlib.FUNCTIONS[op]}({a})"
        return f"{_NP_UNARY[op]}({a})"

    def convert(self, ins: Instr) -> str:
        src, dst = ins.srcs[0].type, ins.dst.type
        a = self.val(ins.srcs[0])
        if dst is Scalar.F16:
            return f"f32_to_f16_bits({a})"
        if src is Scalar.F16:
            return f"f16_bits_to_f32({a})"
        if dst is Scalar.BF16:
            return f"f32_to_bf16_bits({a})"
        if src is Scalar.BF16:
            return f"bits_float32(np.uint32({a}) << np.uint32(16))"
        if dst is Scalar.BOOL:
            return a if src is Scalar.BOOL else f"({a} != 0)"
        if src.is_float and dst.is_int:       # LLVM's saturating conversion: no branches
            return f"{CAST[dst]}(float_to_{'i' if dst.is_signed else 'u'}{dst.bits}_sat({a}))"
        if src is Scalar.BOOL:
            return f"{CAST[dst]}(np.int64({a}))"
        return f"{CAST[dst]}({a})"

    def bitcast(self, ins: Instr) -> str:
        """The bits of a value read as another type of the same width (float16 and bfloat16
        are held as their bits already)."""
        src, dst = ins.srcs[0].type, ins.dst.type
        a = self.val(ins.srcs[0])
        if src is Scalar.F32:
            return f"{CAST[dst]}(float32_bits({a}))"
        if src is Scalar.F64:
            return f"{CAST[dst]}(float64_bits({a}))"
        if dst is Scalar.F32:
            return f"bits_float32({a})"
        if dst is Scalar.F64:
            return f"bits_float64({a})"
        return f"{CAST[dst]}({a})"      # integers (and 16-bit float bits): the cast wraps

    def sreg(self, which: SReg) -> str:
        if which is SReg.CLOCK:
            return "np.int64(steps)"
        return f"np.int32({_SREG_LOCAL[which]})"

    # --- memory ----------------------------------------------------------------------------
    def _index(self, ins: Instr, width: int) -> list[str]:
        """``ix`` = the flat index as int64 (as the precise engine reads it), checked."""
        mem = ins.arg.mem if isinstance(ins.arg, AtomArg) else ins.arg
        _, extent = self.memory(mem)
        limit = extent if width == 1 else f"{extent} - {width - 1}"
        ix = self.index_name(ins)
        index = self.val(ins.srcs[0])
        hoisted = id(ins) in self.hoisted
        if hoisted and self.unchecked:       # shown in bounds for the whole block
            return [f"{ix} = np.uint64({index})"]
        when = "slow and " if hoisted and self.unchecked is None else ""
        if width == 1:
            # as uint64: one compare (a negative index wraps to a huge one), and numba skips
            # its negative-index wraparound; the error record reads it back as int64
            return [f"{ix} = np.uint64({index})",
                    f"if {when}{ix} >= np.uint64({extent}):",
                    *("    " + x for x in self.fail(ERR_OOB, ins, ix))]
        if ins.srcs[0].type is Scalar.U64:      # read as int64, as the precise engine does
            index = f"np.int64({index})"
        # the limit of a wider access may itself be negative: two compares
        return [f"{ix} = {index}",
                f"if {when}({ix} < 0 or {ix} >= {limit}):",
                *("    " + x for x in self.fail(ERR_OOB, ins, ix))]

    def _element(self, ins: Instr, k: int) -> str:
        """The index of a wide access's ``k``-th scalar (an unchecked index is uint64: so is
        the offset, as numba types uint64 + int64 as float64)."""
        ix = self.index_name(ins)
        if not k:
            return ix
        if self.unchecked and id(ins) in self.hoisted:
            return f"{ix} + np.uint64({k})"
        return f"{ix} + {k}"

    def load(self, ins: Instr) -> list[str]:
        arr, _ = self.memory(ins.arg)
        lines = self._index(ins, len(ins.dsts))
        for k, d in enumerate(ins.dsts):
            lines.append(f"{reg_name(d)} = {arr}[{self._element(ins, k)}]")
        return lines

    def store(self, ins: Instr) -> list[str]:
        arr, _ = self.memory(ins.arg)
        values = ins.srcs[1:]
        lines = self._index(ins, len(values))
        for k, v in enumerate(values):
            lines.append(f"{arr}[{self._element(ins, k)}] = {self.val(v)}")
        return lines

    def atomic(self, ins: Instr) -> list[str]:
        arg: AtomArg = ins.arg
        arr, _ = self.memory(arg.mem)
        t = arg.mem.elem
        out = reg_name(ins.dst)
        lines = self._index(ins, 1)
        ix = self.index_name(ins)
        v = self.val(ins.srcs[-1])
        cmp = self.val(ins.srcs[1]) if arg.op is AtomOp.CAS else None
        if self.deferral is not None and self.deferral.deferred(ins):
            return lines + self.log_atomic(ins, v)
        if arg.mem.space is Space.SHARED or self.plain_global_atomics:
            # a block's threads run on one OS thread: a plain read-modify-write is atomic
            lines.append(f"{out} = {arr}[{ix}]")
            lines.append(f"{arr}[{ix}] = {self._apply(arg.op, t, out, v, cmp)}")
            return lines
        kind = "float" if t.is_float else "int"
        if arg.op is AtomOp.CAS:
            call = (f"atomic_cas_value({arr}, {ix}, {cmp}, {v})" if t.is_float else
                    f"atomic_cas_bits({arr}, {ix}, {cmp}, {v})[0]")
        else:
            call = f"atomic_{arg.op.name.lower()}_{kind}({arr}, {ix}, {v})"
        lines.append(f"{out} = {call}")
        return lines

    def log_atomic(self, ins: Instr, v: str) -> list[str]:
        """Append (array and element, value[, block * 1024 + thread]) to the launch's log of
        deferred float atomics; the (unread) old value is zero."""
        arg: AtomArg = ins.arg
        k = self.deferral.array_index(arg.mem.name)
        value = f"-np.float64({v})" if arg.op is AtomOp.SUB else f"np.float64({v})"
        where = f"np.int64({self.index_name(ins)})"
        if k:
            where += f" + np.int64({k << ADDRESS_BITS})"
        lines = []
        if self.deferral.in_loop:    # else the log has room for one row per thread and atomic
            lines = ["if ln == lcap:", "    lad, lva, lky = grow_log(lad, lva, lky)",
                     "    lcap = lad.size"]
        lines += [f"lad[ln] = {where}", f"lva[ln] = {value}"]
        if self.log_keys:
            lines.append(f"lky[ln] = cta * {LOG_KEY} + t")
        return lines + ["ln += 1", f"{reg_name(ins.dst)} = {self.consts.get(0.0, arg.mem.elem)}"]

    @staticmethod
    def _apply(op: AtomOp, t: Scalar, old: str, v: str, cmp: str | None) -> str:
        cast = CAST[t]
        if op is AtomOp.ADD:
            return f"{cast}({old} + {v})"
        if op is AtomOp.SUB:
            return f"{cast}({old} - {v})"
        if op is AtomOp.MIN:
            return f"fmin({old}, {v})" if t.is_float else f"{cast}(min({old}, {v}))"
        if op is AtomOp.MAX:
            return f"fmax({old}, {v})" if t.is_float else f"{cast}(max({old}, {v}))"
        if op is AtomOp.EXCH:
            return v
        if op in (AtomOp.AND, AtomOp.OR, AtomOp.XOR):
            return f"{cast}({old} {_BITWISE[getattr(Op, op.name)]} {v})"
        if op is AtomOp.CAS:
            return f"{v} if {old} == {cmp} else {old}"
        raise UnsupportedOp(f"fast engine: no translation for atomic {op.name}")


def _is_pointer_access(ins: Instr) -> bool:
    return isinstance(ins.arg, Pointer) or (isinstance(ins.arg, AtomArg)
                                             and isinstance(ins.arg.mem, Pointer))


def check_memref_space(mem: MemRef) -> None:
    if mem.space not in (Space.GLOBAL, Space.SHARED):
        raise UnsupportedOp(f"fast engine: arrays in {mem.space.value} space are not supported")


__all__ = ["CAST", "Constants", "OpWriter", "UnsupportedOp", "reg_name"]
