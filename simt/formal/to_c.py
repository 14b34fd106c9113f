"""``simt.to_c(kernel, harness="cbmc")``: the kernel's MIR as C for CBMC.

One symbolic thread: the launch, the scalars and the array shapes are nondet values
constrained by ``__CPROVER_assume``; arrays are unbounded nondet memory; every access is
preceded by an assertion that it lies in its array. Ops without a C spelling here (float
math builtins, warp collectives) give nondet values, an over-approximation as in simt.verify.
"""
from __future__ import annotations

from ..errors import SimtError
from ..ir.mir import AtomArg, ArrayParam, Imm, LaunchSig, Op, ScalarParam, SReg
from ..ir.types import Scalar

_C = {Scalar.BOOL: "_Bool", Scalar.I8: "int8_t", Scalar.U8: "uint8_t", Scalar.I16: "int16_t",
      Scalar.U16: "uint16_t", Scalar.I32: "int32_t", Scalar.U32: "uint32_t", Scalar.I64: "int64_t",
      Scalar.U64: "uint64_t", Scalar.F16: "uint16_t", Scalar.BF16: "uint16_t", Scalar.F32: "float",
      Scalar.F64: "double"}
_BIN = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.AND: "&", Op.OR: "|", Op.XOR: "^",
        Op.EQ: "==", Op.NE: "!=", Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">="}
_PRELUDE = """#include <stdint.h>
#ifndef __CPROVER
/* compiled without CBMC: the nondet values are zeros and the checks plain asserts */
#include <assert.h>
#define __CPROVER_assume(c) do { if (!(c)) return 0; } while (0)
#define __CPROVER_assert(c, msg) assert(c)
#endif
"""


def _nondet(t: Scalar) -> str:
    return f"nondet_{_C[t]}()"


def to_c(kernel, harness: str = "cbmc", dim=None, block_dim=None) -> str:
    from ..kernel import Kernel
    if harness != "cbmc":
        raise SimtError(f"simt.to_c: unknown harness {harness!r}; the one harness is 'cbmc'")
    if not isinstance(kernel, Kernel):
        raise SimtError(f"simt.to_c expects a @simt.kernel, got {kernel!r}")
    if block_dim is not None and not (isinstance(block_dim, int) and not isinstance(block_dim, bool)):
        raise SimtError(f"simt.to_c takes an int block_dim (Warp's mapping) or None; n-D blocks "
                        f"are not supported by the C harness yet (simt.verify supports them), "
                        f"got {block_dim!r}")
    fn = kernel.compile(LaunchSig(max(1, kernel.index_dims[0]), 1))
    out = [_PRELUDE]
    types = sorted({_C[t] for t in Scalar})
    for ct in types:
        out.append(f"{ct} nondet_{ct}(void);")
    out.append("")
    out.append(f"/* kernel '{fn.name}' */")
    out.append("int main(void) {")
    body: list[str] = []
    add = body.append
    add(f"  int32_t block_dim = {block_dim if block_dim is not None else 'nondet_int32_t()'};")
    add("  __CPROVER_assume(block_dim >= 1 && block_dim <= 1024);")
    add("  int64_t total = 1;")
    for k in range(fn.launch.dim_ndim):
        d = dim[k] if isinstance(dim, (tuple, list)) else (dim if dim is not None and k == 0 else None)
        add(f"  int32_t dim_{k} = {d if d is not None else 'nondet_int32_t()'};")
        add(f"  __CPROVER_assume(dim_{k} >= 0); total *= dim_{k};")
    add("  __CPROVER_assume(total < (1 << 30));")
    add("  int32_t grid_dim = (int32_t)((total + block_dim - 1) / block_dim);")
    add("  if (grid_dim < 1) grid_dim = 1;")
    add("  int32_t tid_x = nondet_int32_t(), ctaid_x = nondet_int32_t();")
    add("  __CPROVER_assume(tid_x >= 0 && tid_x < block_dim && ctaid_x >= 0 && ctaid_x < grid_dim);")
    sizes = {}
    for p in fn.params:
        if isinstance(p, ScalarParam):
            add(f"  {_C[p.reg.type]} r{p.reg.id} = {_nondet(p.reg.type)};  /* {p.name} */")
        elif isinstance(p, ArrayParam):
            m = p.mem
            prod = [str(m.ncomp)]
            for k in range(m.ndim):
                add(f"  int32_t {m.name}_shape_{k} = nondet_int32_t(); __CPROVER_assume({m.name}_shape_{k} >= 0);")
                prod.append(f"(int64_t){m.name}_shape_{k}")
            add(f"  int64_t {m.name}_size = {' * '.join(prod)}; __CPROVER_assume({m.name}_size < (1 << 30));")
            add(f"  {_C[m.elem]} *{m.name} = malloc(sizeof({_C[m.elem]}) * (size_t){m.name}_size);")
            sizes[m.name] = f"{m.name}_size"
    for m in fn.shared:
        add(f"  {_C[m.elem]} {m.name}[{m.size}];")
        sizes[m.name] = str(m.size)
    regs = {}
    for ins in fn.instructions():
        for r in ins.dsts:
            regs.setdefault(r.id, r)
    params = {p.reg.id for p in fn.params if isinstance(p, ScalarParam)}
    for rid, r in regs.items():
        if rid not in params:
            add(f"  {_C[r.type]} r{rid} = 0;")
    sreg = {SReg.TID_X: "tid_x", SReg.CTAID_X: "ctaid_x", SReg.NTID_X: "block_dim",
            SReg.NCTAID_X: "grid_dim", SReg.LANEID: "(tid_x & 31)", SReg.WARPID: "(tid_x >> 5)"}
    for k in range(fn.launch.dim_ndim):
        sreg[getattr(SReg, f"DIM_{k}")] = f"dim_{k}"

    def val(o) -> str:
        if isinstance(o, Imm):
            if o.type is Scalar.BOOL:
                return "1" if o.value else "0"
            if o.type.is_float:
                return repr(float(o.value)) if o.value == o.value and abs(o.value) != float("inf") else "0.0"
            return f"(({_C[o.type]}){int(o.value)}LL)"
        return f"r{o.id}"

    for block in fn.blocks:
        add(f" {block.label}:;")
        for ins in block.instrs:
            add("  " + _stmt(ins, val, sreg, sizes))
    out += body
    out.append("}")
    out.insert(1, "#include <stdlib.h>")
    return "\n".join(out) + "\n"


def _stmt(ins, val, sreg, sizes) -> str:
    op = ins.op
    line = f"  /* line {ins.loc.line} */" if ins.loc else ""
    if op is Op.BR:
        return f"goto {ins.arg};"
    if op is Op.CBR:
        return f"if ({val(ins.srcs[0])}) goto {ins.arg[0]}; else goto {ins.arg[1]};"
    if op is Op.RET:
        return "return 0;"
    if op in (Op.LD, Op.ST, Op.ATOM):
        mem = ins.arg.mem if isinstance(ins.arg, AtomArg) else ins.arg
        idx = val(ins.srcs[0])
        width = len(ins.dsts) if op is Op.LD else (len(ins.srcs) - 1 if op is Op.ST else 1)
        check = (f"__CPROVER_assert((int64_t){idx} >= 0 && (int64_t){idx} + {width} <= {sizes[mem.name]}, "
                 f"\"{mem.name} in bounds\");{line}")
        if op is Op.LD:
            moves = " ".join(f"r{d.id} = {mem.name}[{idx} + {k}];" for k, d in enumerate(ins.dsts))
        elif op is Op.ST:
            moves = " ".join(f"{mem.name}[{idx} + {k}] = {val(s)};" for k, s in enumerate(ins.srcs[1:]))
        else:
            moves = f"r{ins.dst.id} = {mem.name}[{idx}];" if ins.dsts else ""
        return f"{check} {moves}"
    if op is Op.CHECK:
        return (f"__CPROVER_assert({val(ins.srcs[0])} >= 0 && {val(ins.srcs[0])} < {val(ins.srcs[1])}, "
                f"\"index in bounds\");{line}")
    if op in (Op.BAR, Op.BAR_AND, Op.SYNCWARP, Op.PRINT) and not ins.dsts:
        return f"/* {op.name.lower()} */"
    if not ins.dsts:
        return f"/* {op.name.lower()} */"
    d, t = ins.dst, ins.dst.type
    s = [val(x) for x in ins.srcs]
    if op is Op.SREG:
        return f"r{d.id} = {sreg.get(ins.arg, _nondet(t))};"
    if op is Op.DIM:
        m = ins.arg.mem
        return f"r{d.id} = {m.shape[ins.arg.dim] if m.shape else f'{m.name}_shape_{ins.arg.dim}'};"
    if op in (Op.MOV, Op.CVT):
        return f"r{d.id} = ({_C[t]}){s[0]};"
    if op is Op.SELECT:
        return f"r{d.id} = {s[0]} ? {s[1]} : {s[2]};"
    if op in _BIN and not (t.is_float and op in (Op.AND, Op.OR, Op.XOR)):
        ut = ins.srcs[0].type
        if ut.is_int and op in (Op.ADD, Op.SUB, Op.MUL):   # wrap-around, as the kernel language
            u = "uint" + _C[ut].lstrip("u").removeprefix("int")
            return f"r{d.id} = ({_C[t]})(({u}){s[0]} {_BIN[op]} ({u}){s[1]});"
        return f"r{d.id} = {s[0]} {_BIN[op]} {s[1]};"
    if op in (Op.DIV, Op.REM) and t.is_int:
        return f"r{d.id} = {s[1]} == 0 ? {_nondet(t)} : {s[0]} {'/' if op is Op.DIV else '%'} {s[1]};"
    if op in (Op.MIN, Op.MAX):
        cmp = "<" if op is Op.MIN else ">"
        return f"r{d.id} = {s[0]} {cmp} {s[1]} ? {s[0]} : {s[1]};"
    if op is Op.NOT:
        return f"r{d.id} = {'!' if t is Scalar.BOOL else '~'}{s[0]};"
    if op is Op.NEG:
        return f"r{d.id} = -{s[0]};"
    if op in (Op.SHL, Op.SHR) and t.is_int:
        return f"r{d.id} = {s[0]} {'<<' if op is Op.SHL else '>>'} ({s[1]} & {t.bits - 1});"
    return f"r{d.id} = {_nondet(t)};  /* {op.name.lower()} */"
