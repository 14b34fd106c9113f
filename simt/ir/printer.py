"""MIR as text: what tests diff, what errors quote, what a reader debugs with.

The text is stable across runs (registers print by id and name, never by Python ``id``),
one instruction per line, with the source line as a trailing comment.
"""
from __future__ import annotations

import os

from .mir import (ArrayParam, AtomArg, CheckArg, DimArg, Function, Instr, MemRef, Op, Operand,
                  Pointer, Reg, ScalarParam)

LOC_COLUMN = 60   # where the "; file:line" comment starts, if the instruction is shorter


def format_operand(x: Operand) -> str:
    return str(x)


def format_def(r: Reg) -> str:
    """A register where it is defined: with its type."""
    return f"{r}:{r.type.short}"


def _mem_space(mem: MemRef) -> str:
    return mem.space.value


def _width_suffix(n: int) -> str:
    return f".v{n}" if n > 1 else ""


def _srcs(ins: Instr, start: int = 0) -> str:
    return ", ".join(format_operand(s) for s in ins.srcs[start:])


def _body(ins: Instr) -> str:
    """The instruction without its destinations."""
    op, arg = ins.op, ins.arg
    name = op.name.lower()
    if op in (Op.LD, Op.ST) and isinstance(arg, Pointer):
        addr = format_operand(ins.srcs[0]) if ins.srcs else "?"
        width = len(ins.dsts) if op is Op.LD else len(ins.srcs) - 1
        text = f"{name}.{arg.space.value}.{arg.elem.short}{_width_suffix(width)} [{addr}]"
        return text + (f", {_srcs(ins, 1)}" if op is Op.ST else "")
    if op is Op.ATOM and isinstance(arg, AtomArg) and isinstance(arg.mem, Pointer):
        addr = format_operand(ins.srcs[0]) if ins.srcs else "?"
        return f"atom.{arg.mem.space.value}.{arg.op.value}.{arg.mem.elem.short} [{addr}], {_srcs(ins, 1)}"
    if op is Op.ADDR and isinstance(arg, MemRef):
        return f"addr {arg}"
    if op is Op.LD and isinstance(arg, MemRef):
        idx = format_operand(ins.srcs[0]) if ins.srcs else "?"
        return f"ld.{_mem_space(arg)}{_width_suffix(len(ins.dsts))} {arg}[{idx}]"
    if op is Op.ST and isinstance(arg, MemRef):
        idx = format_operand(ins.srcs[0]) if ins.srcs else "?"
        vals = _srcs(ins, 1)
        return f"st.{_mem_space(arg)}{_width_suffix(len(ins.srcs) - 1)} {arg}[{idx}], {vals}"
    if op is Op.ATOM and isinstance(arg, AtomArg):
        idx = format_operand(ins.srcs[0]) if ins.srcs else "?"
        return f"atom.{_mem_space(arg.mem)}.{arg.op.value} {arg.mem}[{idx}], {_srcs(ins, 1)}"
    if op is Op.DIM and isinstance(arg, DimArg):
        return f"dim {arg.mem}, {arg.dim}"
    if op is Op.CHECK and isinstance(arg, CheckArg):
        return f"check {arg.mem}.shape[{arg.dim}], {_srcs(ins)}"
    if op is Op.SREG:
        return f"sreg {getattr(arg, 'value', arg)}"
    if op is Op.PRINT:
        return f"print {arg!r}" + (f", {_srcs(ins)}" if ins.srcs else "")
    if op in (Op.SHFL, Op.VOTE) and arg is not None:
        return f"{name}.{getattr(arg, 'value', arg)} {_srcs(ins)}"
    if op is Op.BAR_AND:
        return f"bar.and {_srcs(ins)}"
    if op is Op.CVT and ins.srcs and ins.dsts:
        return f"cvt.{ins.dst.type.short}.{ins.srcs[0].type.short} {_srcs(ins)}"
    if op is Op.BR:
        return f"br {arg}"
    if op is Op.CBR and isinstance(arg, tuple):
        return f"cbr {_srcs(ins)}, {arg[0]}, {arg[1]}"
    text = name
    if arg is not None:
        text += f".{getattr(arg, 'value', arg)}"
    if ins.srcs:
        text += " " + _srcs(ins)
    return text


def format_instr(ins: Instr, with_loc: bool = False) -> str:
    """One instruction, e.g. ``%r2:f32 = ld.global @x[%i1]``."""
    text = _body(ins)
    if ins.dsts:
        text = ", ".join(format_def(d) for d in ins.dsts) + " = " + text
    if with_loc and ins.loc is not None:
        text = f"{text:<{LOC_COLUMN}} ; {os.path.basename(ins.loc.file)}:{ins.loc.line}"
    return text


def format_memref(mem: MemRef) -> str:
    """An array's declaration: ``@x: global f32[1d]`` or ``@tile: f32[32,33] row_major +0``."""
    elem = mem.dtype_name or mem.elem.short
    if mem.ncomp > 1 and not mem.dtype_name:
        elem += f"x{mem.ncomp}"
    if mem.shape is not None:
        dims = ",".join(str(s) for s in mem.shape)
        pad = f" pad {mem.pad}" if mem.pad else ""
        return f"{mem}: {elem}[{dims}] {mem.layout}{pad} +{mem.offset}"
    return f"{mem}: {mem.space.value} {elem}[{mem.ndim}d]"


def format_header(fn: Function) -> str:
    params = []
    for p in fn.params:
        if isinstance(p, ScalarParam):
            params.append(format_def(p.reg))
        elif isinstance(p, ArrayParam):
            params.append(format_memref(p.mem))
        else:
            params.append(str(p))
    head = (f"kernel {fn.name}({', '.join(params)}) "
            f"launch(dim={fn.launch.dim_ndim}d, block={fn.launch.block_ndim}d)")
    if fn.debug:
        head += " debug"
    if fn.fastmath:
        head += " fastmath"
    return head


def format_function(fn: Function, with_loc: bool = True) -> str:
    lines = [format_header(fn)]
    for mem in fn.shared:
        lines.append(f"  shared {format_memref(mem)}")
    for mem in fn.local:
        lines.append(f"  local {format_memref(mem)}")
    for block in fn.blocks:
        lines.append(f"{block.label}:")
        for ins in block.instrs:
            lines.append("  " + format_instr(ins, with_loc))
    return "\n".join(lines) + "\n"


__all__ = ["format_function", "format_instr", "format_header", "format_memref", "format_operand",
           "format_def"]
