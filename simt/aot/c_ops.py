"""MIR instructions as lines of C: the fast engine's per-op semantics (simt/sim/fast/ops.py)
spelled for a C compiler, one method per kind of op.

Every register is a C variable of exactly its MIR type (float16 and bfloat16 as their bits,
bool as a 0/1 byte). Integer ops compute in 64 bits, unsigned, and are cast back to their
type: the same wrap as the fast engine's numba casts. Floats stay in their own type, so
+, -, *, / and sqrt round as numba's float32/float64 do; the math library's ops call the
C library's double-precision function and round to the argument's type, as
simt/sim/mathlib.py does.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..errors import CompileError
from ..ir.mir import (BINARY, COMPARE, UNARY, AtomArg, AtomOp, DimArg, Instr, MemRef, Op, Reg,
                      SReg)
from ..ir.types import Scalar
from ..sim import mathlib
from ..sim.fast.ops import ERR_CHECK, ERR_OOB

CTYPE = {Scalar.BOOL: "uint8_t", Scalar.I8: "int8_t", Scalar.U8: "uint8_t",
         Scalar.I16: "int16_t", Scalar.U16: "uint16_t", Scalar.I32: "int32_t",
         Scalar.U32: "uint32_t", Scalar.I64: "int64_t", Scalar.U64: "uint64_t",
         Scalar.F16: "uint16_t", Scalar.BF16: "uint16_t", Scalar.F32: "float",
         Scalar.F64: "double"}
_COMPARE = {Op.EQ: "==", Op.NE: "!=", Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">="}
_RING = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.AND: "&", Op.OR: "|", Op.XOR: "^"}
_EXACT_UNARY = {Op.SQRT: "sqrt", Op.FLOOR: "floor", Op.CEIL: "ceil", Op.TRUNC: "trunc"}
_SREG = {SReg.TID_X: "tid_x", SReg.TID_Y: "tid_y", SReg.TID_Z: "tid_z",
         SReg.NTID_X: "bx", SReg.NTID_Y: "by", SReg.NTID_Z: "bz",
         SReg.CTAID_X: "ctaid_x", SReg.CTAID_Y: "ctaid_y", SReg.CTAID_Z: "ctaid_z",
         SReg.NCTAID_X: "gx", SReg.NCTAID_Y: "gy", SReg.NCTAID_Z: "gz",
         SReg.DIM_0: "dim0", SReg.DIM_1: "dim1", SReg.DIM_2: "dim2", SReg.DIM_3: "dim3",
         SReg.LANEID: "(t & 31)", SReg.WARPID: "(t >> 5)"}


def unsupported(what: str, ins: Instr | None = None) -> CompileError:
    where = f" (at {ins.loc})" if ins is not None and ins.loc is not None else ""
    return CompileError(f"the cpu target of simt.build_kernel does not support {what}{where} in "
                        f"this version")


def literal(value, t: Scalar) -> str:
    """A C expression of exactly the value the fast engine's typed constant holds."""
    v = np.array(value).astype(t.np)[()]
    if t is Scalar.F16:
        return f"((uint16_t){int(np.array(value).astype(np.float16).view(np.uint16))}u)"
    if t is Scalar.BF16:
        from ..ir.bfloat16 import to_bits
        return f"((uint16_t){int(to_bits(float(value)))}u)"
    if t is Scalar.BOOL:
        return "1" if bool(v) else "0"
    if t is Scalar.F32:
        return f"simt_bits_f32(0x{int(np.float32(v).view(np.uint32)):08x}u)"
    if t is Scalar.F64:
        return f"simt_bits_f64(0x{int(np.float64(v).view(np.uint64)):016x}ULL)"
    bits = int(v) & ((1 << t.bits) - 1)
    return f"(({CTYPE[t]})0x{bits:x}ULL)"


def _wide(t: Scalar, x: str) -> str:
    """``x`` (of type ``t``) as a 64-bit unsigned value: sign- or zero-extended."""
    return f"(uint64_t)(int64_t)({x})" if t.is_signed else f"(uint64_t)({x})"


class COpWriter:
    """``memory(mem)`` -> (array variable, scalar extent); ``dim_of(mem, d)`` -> extent;
    ``fail(code, ins, *values)`` -> the C statement recording a runtime error."""

    def __init__(self, reg: Callable[[Reg], str], memory: Callable, dim_of: Callable,
                 fail: Callable, atomic_hook: Callable | None = None):
        self.reg = reg
        self.memory = memory
        self.dim_of = dim_of
        self.fail = fail
        self.atomic_hook = atomic_hook   # ins -> lines or None: deferred float atomics

    def val(self, x) -> str:
        return self.reg(x) if isinstance(x, Reg) else literal(x.value, x.type)

    def write(self, ins: Instr) -> list[str]:
        op = ins.op
        if op in BINARY:
            return [f"{self.reg(ins.dst)} = {self.binary(ins)};"]
        if op in COMPARE:
            a, b = (self.val(s) for s in ins.srcs)
            return [f"{self.reg(ins.dst)} = ({a} {_COMPARE[op]} {b});"]
        if op in UNARY or op in (Op.ISNAN, Op.ISINF):
            return [f"{self.reg(ins.dst)} = {self.unary(ins)};"]
        if op is Op.MOV:
            return [f"{self.reg(ins.dst)} = {self.val(ins.srcs[0])};"]
        if op is Op.CVT:
            return [f"{self.reg(ins.dst)} = {self.convert(ins)};"]
        if op is Op.SELECT:
            c, a, b = (self.val(s) for s in ins.srcs)
            return [f"{self.reg(ins.dst)} = {c} ? {a} : {b};"]
        if op is Op.LD:
            return self.load(ins)
        if op is Op.ST:
            return self.store(ins)
        if op is Op.ATOM:
            return self.atomic(ins)
        if op is Op.DIM:
            arg: DimArg = ins.arg
            return [f"{self.reg(ins.dst)} = (int32_t)({self.dim_of(arg.mem, arg.dim)});"]
        if op is Op.SREG:
            src = "steps" if ins.arg is SReg.CLOCK else _SREG[ins.arg]
            return [f"{self.reg(ins.dst)} = ({CTYPE[ins.dst.type]})({src});"]
        if op is Op.PRINT:
            return self.print_(ins)
        if op is Op.CHECK:
            i, n = (self.val(s) for s in ins.srcs)
            return [f"if ({i} < 0 || {i} >= {n}) {{ {self.fail(ERR_CHECK, ins, i, n)} }}"]
        raise unsupported(f"the MIR op {op.name}", ins)

    def print_(self, ins: Instr) -> list[str]:
        """The fast engine's print_c (simt/ir/printf.format_c on values boxed as Python int or
        float), spelled with printf: one C conversion per value, in 64 bits."""
        from ..ir.printf import _SPEC, INTEGER
        fmt = ins.arg
        lines, pos = [], 0
        values = iter(ins.srcs)
        for m in _SPEC.finditer(fmt):
            if m.start() > pos:
                lines.append(f"fputs({_c_text(fmt[pos:m.start()])}, stdout);")
            pos = m.end()
            conv = m.group("conv")
            if conv == "%":
                lines.append("fputc('%', stdout);")
                continue
            src = next(values)
            v = self.val(src)
            flags, width, prec = m.group("flags") or "", m.group("width") or "", m.group("prec")
            spec = "%" + flags + width + (f".{prec}" if prec is not None else "")
            if conv in INTEGER:
                if "#" in flags and conv == "o":
                    raise unsupported("printf's %#o (Python and C spell it differently)", ins)
                as_int = f"(long long)trunc((double)({v}))" if src.type.is_float else f"(long long)({v})"
                if conv == "c":
                    lines.append(f"simt_put_char({as_int});")
                else:
                    letter = "d" if conv in "iu" else conv
                    if conv == "u":       # a negative value wraps at 64 bits (a boxed int's size)
                        lines.append(f"{{ long long q = {as_int}; if (q < 0) printf({_c_text(spec + 'llu')}, "
                                     f"(unsigned long long)q); else printf({_c_text(spec + 'lld')}, q); }}")
                    elif letter == "d":
                        lines.append(f"printf({_c_text(spec + 'lld')}, {as_int});")
                    else:
                        lines.append(f"printf({_c_text(spec + 'll' + letter)}, (unsigned long long){as_int});")
            else:                          # Python prints a NaN without its sign
                finite = f"printf({_c_text(spec + conv)}, q);"
                if "0" in flags and "-" not in flags and width:
                    # Python pads inf and nan with zeros after the sign, where C pads with spaces
                    bare = "%" + flags.replace("0", "") + (f".{prec}" if prec is not None else "") + conv
                    finite = (f"if (isfinite(q)) {finite} else simt_put_zero_padded(q, {_c_text(bare)}, "
                              f"{int(width)});")
                lines.append(f"{{ double q = (double)({v}); if (q != q) q = fabs(q); {finite} }}")
        if pos < len(fmt):
            lines.append(f"fputs({_c_text(fmt[pos:])}, stdout);")
        return lines

    # --- arithmetic ----------------------------------------------------------------------
    def binary(self, ins: Instr) -> str:
        op, t = ins.op, ins.dst.type
        a, b = (self.val(s) for s in ins.srcs)
        ct = CTYPE[t]
        if t is Scalar.BOOL:
            return {Op.AND: f"({a} && {b})", Op.OR: f"({a} || {b})", Op.XOR: f"({a} != {b})"}[op]
        if t in (Scalar.F16, Scalar.BF16):
            raise unsupported(f"{op.name} on {t.value} registers", ins)
        if t.is_float:
            if op in _RING and op not in (Op.AND, Op.OR, Op.XOR):
                return f"({a} {_RING[op]} {b})"
            if op in mathlib.FUNCTIONS:
                return f"({ct}){mathlib.FUNCTIONS[op]}((double)({a}), (double)({b}))"
            sfx = "f32" if t is Scalar.F32 else "f64"
            if op is Op.DIV:
                return f"({a} / {b})"
            if op is Op.REM:
                return f"({ct})fmod((double)({a}), (double)({b}))"
            if op is Op.MIN:
                return f"simt_fmin_{sfx}({a}, {b})"
            if op is Op.MAX:
                return f"simt_fmax_{sfx}({a}, {b})"
            raise unsupported(f"{op.name} on {t.value}", ins)
        if op in _RING:
            return f"({ct})({_wide(t, a)} {_RING[op]} {_wide(t, b)})"
        s = "s" if t.is_signed else "u"
        w = "int64_t" if t.is_signed else "uint64_t"
        if op is Op.DIV:
            return f"({ct})simt_div_{s}(({w})({a}), ({w})({b}))"
        if op is Op.REM:
            return f"({ct})simt_rem_{s}(({w})({a}), ({w})({b}))"
        if op is Op.MIN:
            return f"(({a}) < ({b}) ? ({a}) : ({b}))"
        if op is Op.MAX:
            return f"(({a}) > ({b}) ? ({a}) : ({b}))"
        if op is Op.SHL:
            return f"({ct})simt_shl_{s}(({w})({a}), ({w})({b}), {t.bits})"
        if op is Op.SHR:
            return f"({ct})simt_shr_{s}(({w})({a}), ({w})({b}), {t.bits})"
        if op in mathlib.FUNCTIONS:
            raise unsupported(f"{op.name} on {t.value}", ins)
        raise unsupported(f"{op.name} on {t.value}", ins)

    def unary(self, ins: Instr) -> str:
        op, t = ins.op, ins.srcs[0].type
        a = self.val(ins.srcs[0])
        ct = CTYPE[t]
        if t in (Scalar.F16, Scalar.BF16):
            raise unsupported(f"{op.name} on {t.value} registers", ins)
        if op is Op.NOT:
            return f"(!{a})" if t is Scalar.BOOL else f"({ct})(~{_wide(t, a)})"
        if op is Op.NEG:
            return f"(-{a})" if t.is_float else f"({ct})(0ULL - {_wide(t, a)})"
        if op is Op.ABS:
            if t.is_float:
                return f"({ct})fabs((double)({a}))"
            return f"({ct})(({a}) < 0 ? 0ULL - {_wide(t, a)} : {_wide(t, a)})" if t.is_signed else a
        if op is Op.POPC:
            return f"({ct})__builtin_popcountll((uint64_t)({CTYPE[_unsigned(t)]})({a}))"
        if not t.is_float:
            raise unsupported(f"{op.name} on {t.value}", ins)
        sfx = "f32" if t is Scalar.F32 else "f64"
        if op is Op.ROUND:
            return f"simt_round_{sfx}({a})"
        if op is Op.RSQRT:
            return f"({literal(1.0, t)} / {'sqrtf' if t is Scalar.F32 else 'sqrt'}({a}))"
        if op is Op.ERFINV:
            return f"({ct})simt_erfinv64((double)({a}))"
        if op is Op.ERFCINV:
            return f"({ct})simt_erfinv64(1.0 - (double)({a}))"
        if op in mathlib.FUNCTIONS:
            return f"({ct}){mathlib.FUNCTIONS[op]}((double)({a}))"
        if op is Op.ISNAN:
            return f"({a} != {a})"
        if op is Op.ISINF:
            return f"({a} == INFINITY || {a} == -INFINITY)"
        fn = _EXACT_UNARY[op]
        return f"{fn}f({a})" if t is Scalar.F32 else f"{fn}({a})"

    def convert(self, ins: Instr) -> str:
        src, dst = ins.srcs[0].type, ins.dst.type
        a = self.val(ins.srcs[0])
        cd = CTYPE[dst]
        if dst is Scalar.F16:
            return f"simt_f32_to_f16((float)({a}))"
        if src is Scalar.F16:
            return f"({cd})simt_f16_to_f32({a})"
        if dst is Scalar.BF16:
            return f"simt_f32_to_bf16((float)({a}))"
        if src is Scalar.BF16:
            return f"({cd})simt_bf16_to_f32({a})"
        if dst is Scalar.BOOL:
            return a if src is Scalar.BOOL else f"({a} != 0)"
        if src.is_float and dst.is_int:
            if dst.is_signed:
                lo, hi = -(1 << (dst.bits - 1)), (1 << (dst.bits - 1)) - 1
                lo_c = "(-9223372036854775807LL - 1)" if dst.bits == 64 else f"({lo}LL)"
                return (f"({cd})simt_f2s((double)({a}), {float(lo)!r}, {float(hi + 1)!r}, "
                        f"{lo_c}, {hi}LL)")
            hi = (1 << dst.bits) - 1
            return f"({cd})simt_f2u((double)({a}), {float(hi + 1)!r}, {hi}ULL)"
        if src is Scalar.BOOL:
            return f"({cd})(int64_t)({a})"
        return f"({cd})({a})"

    # --- memory ----------------------------------------------------------------------------
    def _index(self, ins: Instr, width: int) -> tuple[list[str], str]:
        mem = ins.arg.mem if isinstance(ins.arg, AtomArg) else ins.arg
        _, extent = self.memory(mem)
        index = self.val(ins.srcs[0])
        if width == 1:
            return [f"ix = (uint64_t)({index});",
                    f"if (ix >= (uint64_t)({extent})) {{ {self.fail(ERR_OOB, ins, '(int64_t)ix')} }}"], "ix"
        return [f"six = (int64_t)({index});",
                f"if (six < 0 || six >= (int64_t)({extent}) - {width - 1}) "
                f"{{ {self.fail(ERR_OOB, ins, 'six')} }}"], "six"

    def load(self, ins: Instr) -> list[str]:
        arr, _ = self.memory(ins.arg)
        lines, ix = self._index(ins, len(ins.dsts))
        for k, d in enumerate(ins.dsts):
            lines.append(f"{self.reg(d)} = {arr}[{ix}{f' + {k}' if k else ''}];")
        return lines

    def store(self, ins: Instr) -> list[str]:
        arr, _ = self.memory(ins.arg)
        values = ins.srcs[1:]
        lines, ix = self._index(ins, len(values))
        for k, v in enumerate(values):
            lines.append(f"{arr}[{ix}{f' + {k}' if k else ''}] = {self.val(v)};")
        return lines

    def atomic(self, ins: Instr) -> list[str]:
        """One OS thread runs the launch: a plain read-modify-write is atomic."""
        arg: AtomArg = ins.arg
        if not isinstance(arg.mem, MemRef):
            raise unsupported("atomics through byte addresses", ins)
        arr, _ = self.memory(arg.mem)
        t = arg.mem.elem
        if t in (Scalar.F16, Scalar.BF16):
            raise unsupported(f"atomics on {t.value} arrays", ins)
        lines, ix = self._index(ins, 1)
        v = self.val(ins.srcs[-1])
        if self.atomic_hook is not None:
            deferred = self.atomic_hook(ins, ix, v)
            if deferred is not None:
                return lines + deferred
        out = self.reg(ins.dst)
        cmp = self.val(ins.srcs[1]) if arg.op is AtomOp.CAS else None
        lines.append(f"{out} = {arr}[{ix}];")
        lines.append(f"{arr}[{ix}] = {self.apply(arg.op, t, out, v, cmp)};")
        return lines

    @staticmethod
    def apply(op: AtomOp, t: Scalar, old: str, v: str, cmp: str | None) -> str:
        ct = CTYPE[t]
        sfx = "f32" if t is Scalar.F32 else "f64"
        if op in (AtomOp.ADD, AtomOp.SUB):
            sym = "+" if op is AtomOp.ADD else "-"
            return f"({ct})({old} {sym} {v})" if t.is_float else f"({ct})({_wide(t, old)} {sym} {_wide(t, v)})"
        if op is AtomOp.MIN:
            return f"simt_fmin_{sfx}({old}, {v})" if t.is_float else f"({old} < {v} ? {old} : {v})"
        if op is AtomOp.MAX:
            return f"simt_fmax_{sfx}({old}, {v})" if t.is_float else f"({old} > {v} ? {old} : {v})"
        if op is AtomOp.EXCH:
            return v
        if op in (AtomOp.AND, AtomOp.OR, AtomOp.XOR):
            sym = {AtomOp.AND: "&", AtomOp.OR: "|", AtomOp.XOR: "^"}[op]
            return f"({ct})({_wide(t, old)} {sym} {_wide(t, v)})"
        if op is AtomOp.CAS:
            return f"(({old} == {cmp}) ? {v} : {old})"
        raise unsupported(f"atomic {op.name}")


def _c_text(text: str) -> str:
    """A C string literal of ``text``'s UTF-8 bytes (Python writes stdout as UTF-8)."""
    return '"' + "".join(c if 32 <= ord(c) < 127 and c not in '"\\?' else f"\\{ord(c):03o}"
                         for c in text.encode().decode("latin-1")) + '"'


def _unsigned(t: Scalar) -> Scalar:
    return {8: Scalar.U8, 16: Scalar.U16, 32: Scalar.U32, 64: Scalar.U64}[t.bits]


def math_constants() -> str:
    """The constants of mathlib's erfinv, as C definitions (the same doubles)."""
    def arr(name, values):
        body = ", ".join(repr(float(x)) for x in values)
        return f"static const double {name}[] = {{{body}}};\n#define {name}_N {len(values)}"
    m = mathlib
    lines = [f"#define SIMT_SQRT_2PI {m._SQRT_2PI!r}", f"#define SIMT_EXP_NEG2 {m._EXP_NEG2!r}",
             f"#define SIMT_TWO_OVER_SQRT_PI {m._TWO_OVER_SQRT_PI!r}",
             f"#define SIMT_HALF_SQRT_PI {0.5 * math.sqrt(math.pi)!r}",
             f"#define SIMT_C3 {1.0 / 3.0!r}", f"#define SIMT_C5 {7.0 / 30.0!r}",
             f"#define SIMT_C7 {127.0 / 630.0!r}", f"#define SIMT_C9 {4369.0 / 22680.0!r}"]
    for name in ("P0", "Q0", "P1", "Q1", "P2", "Q2"):
        lines.append(arr(f"SIMT_{name}", getattr(m, f"_{name}")))
    return "\n".join(lines) + "\n"
