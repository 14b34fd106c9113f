"""Byte-addressed memory on the fast engine: LD, ST and ATOM with a MIR ``Pointer``, and ADDR
(kernels imported from PTX). The precise engine's definition is simt/sim/precise/pointers.py.

The generated code sees memory as typed views of bytes:
- global: every array of the launch, as one argument per element type (``g1_float32``: array
  1's bytes read as float32) plus ``pb``, each array's [device address, end) pair; an access
  branches on the array it reached (a tuple indexed at run time would count references to
  the array on every access, which threads on several cores contend for);
- shared: one window per block (``sw``, zeroed at each block), its arrays at their offsets;
- local: one window per thread (``lw``, ``LW`` bytes each, zeroed at each block).
An access finds the array that holds all its bytes (``ptr_find``) and must be aligned to its
size; otherwise it records ERR_PTR (address, bytes, where) and engine.py raises the precise
engine's OutOfBoundsError. A generic address is resolved per thread by the windows of
simt/ir/mir.py (GENERIC_SHARED_BASE, GENERIC_LOCAL_BASE).

Before that general path an access tries shortcuts to the array its address register derives
from (provenance.py): unchecked in a block whose prologue showed all its addresses inside
(bounds.py), else after one range and alignment test.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...ir.mir import (GENERIC_LOCAL_BASE, GENERIC_SHARED_BASE, ArrayParam, AtomArg, AtomOp,
                       Function, Instr, MemRef, Op, Pointer, Reg, Space)
from ...ir.types import Scalar
from .ops import CAST, OpWriter, reg_name
from .provenance import origins

ERR_PTR = 6
WINDOW = 1 << 32                     # as simt/sim/precise/pointers.py's SHARED_WINDOW
SPACE_CODE = {Space.GLOBAL: 0, Space.SHARED: 1, Space.LOCAL: 2}
LOCAL_ALIGN = 16                     # a thread's window: a multiple of the widest access


def uses_pointers(fn: Function) -> bool:
    return any(ins.op is Op.ADDR or isinstance(ins.arg, Pointer)
               or (isinstance(ins.arg, AtomArg) and isinstance(ins.arg.mem, Pointer))
               for ins in fn.instructions())


def _pointer(ins: Instr) -> Pointer | None:
    if isinstance(ins.arg, Pointer):
        return ins.arg
    if isinstance(ins.arg, AtomArg) and isinstance(ins.arg.mem, Pointer):
        return ins.arg.mem
    return None


def _storage(t: Scalar) -> np.dtype:
    """The dtype the compiled code holds ``t`` in (float16 and bfloat16 as their bits)."""
    return np.dtype(np.uint16) if t in (Scalar.F16, Scalar.BF16) else np.dtype(t.np)


def typed_view(data: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """An array's bytes as elements of ``dtype`` (whole elements only)."""
    if data.dtype == dtype and data.ndim == 1:
        return data
    raw = data.view(np.uint8)
    return raw[:raw.size - raw.size % dtype.itemsize].view(dtype)


@dataclass
class PointerArgs:
    """What a launch passes for pointer accesses, and what an error names."""
    values: tuple                      # run_blocks' trailing arguments: pb, then g<k>_<type>...
    arrays: list                       # (name, simulated address, bytes) of each global array


class PointerCode:
    """The generated lines of one function's pointer accesses."""

    def __init__(self, fn: Function, fail, instr_id, arrays: list[ArrayParam]):
        self.fn, self.fail, self.instr_id, self.arrays = fn, fail, instr_id, arrays
        types = {Space.GLOBAL: set(), Space.SHARED: set(), Space.LOCAL: set()}
        for ins in fn.instructions():
            ptr = _pointer(ins)
            if ptr is None:
                continue
            spaces = list(types) if ptr.space is Space.GENERIC else [ptr.space]
            for sp in spaces:
                types[sp].add(_storage(ptr.elem).name)
        self.types = {sp: sorted(ts) for sp, ts in types.items()}
        self.global_dtypes = [np.dtype(t) for t in self.types[Space.GLOBAL]]
        shared = sorted(fn.shared, key=lambda m: m.offset)
        self.shared_ranges = [x for m in shared for x in (m.offset, m.offset + m.size * m.elem.nbytes)]
        self.shared_bytes = max(self.shared_ranges[1::2], default=0)
        local = sorted(fn.local, key=lambda m: m.offset)
        self.local_ranges = [x for m in local for x in (m.offset, m.offset + m.size * m.elem.nbytes)]
        self.local_bytes = -(-max(self.local_ranges[1::2], default=0) // LOCAL_ALIGN) * LOCAL_ALIGN
        self.plain_global_atomics = False
        self._placed: tuple = (None, None, None)    # (places and sizes, arrays, pb) of the last launch
        self.origins = origins(fn)         # the array each address register derives from
        self.hoisted: dict[int, MemRef] = {}   # accesses bounds.py checks per block -> array
        self.offsets: dict[int, tuple[Reg, int]] = {}   # of those, at base + c (bounds.Hoisting)
        # per access and space: the array it reached last, tried first (the prologue sets 0)
        self.hints = [f"pkl{instr_id(ins)}{'gsl'[SPACE_CODE[sp]]}" for ins in fn.instructions()
                      if _pointer(ins) is not None
                      for sp in ([Space.GLOBAL, Space.SHARED, Space.LOCAL]
                                 if _pointer(ins).space is Space.GENERIC else [_pointer(ins).space])]

    # --- the function's frame ---------------------------------------------------------------
    def params(self) -> list[str]:
        return ["pb"] + [f"g{k}_{t}" for t in self.types[Space.GLOBAL] for k in range(len(self.arrays))]

    def module_lines(self) -> list[str]:
        return [f"SR = np.array({self.shared_ranges or [0, 0]}, dtype=np.int64)",
                f"LR = np.array({self.local_ranges or [0, 0]}, dtype=np.int64)",
                f"LW = np.int64({self.local_bytes})"]

    def prologue(self) -> list[str]:
        """Lines before the blocks' loop: the access hints, the windows and their views."""
        windows = self._windows()
        lines = [*(f"{h} = 0" for h in self.hints),
                 *(x for k in range(len(self.arrays))       # each global array's [start, end)
                   for x in (f"pbs{k} = pb[{2 * k}]", f"pbe{k} = pb[{2 * k + 1}]")),
                 *([f"sw = np.zeros({self.shared_bytes}, np.uint8)"] if windows[Space.SHARED] else []),
                 *([f"lw = np.zeros(max(T, 1) * {self.local_bytes}, np.uint8)"] if windows[Space.LOCAL]
                   else [])]
        for window, sp in (("sw", Space.SHARED), ("lw", Space.LOCAL)):
            for t in self.types[sp] if windows[sp] else ():
                size = np.dtype(t).itemsize
                lines.append(f"{window}_{t} = {window}[:{window}.size - {window}.size % {size}]"
                             f".view(np.{t})")
        return lines

    def block_reset(self) -> list[str]:
        windows = self._windows()
        return [x for x, sp in (("sw[:] = 0", Space.SHARED), ("lw[:] = 0", Space.LOCAL)) if windows[sp]]

    def _windows(self) -> dict:
        """Whether the function has shared and local arrays (an access to a space without
        any is an error before it reads a window)."""
        return {Space.SHARED: self.shared_bytes > 0, Space.LOCAL: self.local_bytes > 0}

    def arguments(self, array_args: list) -> PointerArgs:
        """The trailing arguments of a launch whose arrays (ArrayArg, in parameter order) are
        ``array_args``."""
        from .engine import storage_array
        # the precise engine's addresses depend on the arrays' places and sizes alone
        key = tuple((a.base_addr, a.allocation, a.data.nbytes, a.name) for a in array_args)
        if key != self._placed[0]:
            from ..precise.memory import launch_addresses
            starts = launch_addresses(array_args)
            pb = np.array([x for a, s in zip(array_args, starts) for x in (s, s + a.data.nbytes)]
                          or [0, 0], dtype=np.int64)
            arrays = [(a.name, s, a.data.nbytes) for a, s in zip(array_args, starts)]
            self._placed = (key, arrays, pb)
        _, arrays, pb = self._placed
        values = [pb]
        for dtype in self.global_dtypes:
            values += [typed_view(storage_array(a.data), dtype) for a in array_args]
        return PointerArgs(tuple(values), arrays)

    # --- instructions ---------------------------------------------------------------------
    def write(self, ins: Instr, val) -> list[str]:
        if ins.op is Op.ADDR:
            return self._addr(ins)
        ptr = _pointer(ins)
        n = self.instr_id(ins)
        pa = f"pa{n}"
        lines = [f"{pa} = np.int64({val(ins.srcs[0])})"]
        general = self._general(ins, ptr, n, pa, val)
        # shortcuts to the array the address derives from, tried first: in a block whose
        # prologue showed every address in it (bounds.py), and where this one lies in it
        shortcuts = []
        hoisted = self.hoisted.get(id(ins))
        direct = hoisted and self._direct(ins, ptr, hoisted, pa, val, self.offsets.get(id(ins)))
        if direct:
            shortcuts.append(("not slow", direct[1]))
        origin = self.origins.get(ins.srcs[0].id) if isinstance(ins.srcs[0], Reg) else None
        direct = origin and self._direct(ins, ptr, origin, pa, val)
        if direct:
            shortcuts.append(direct)
        if not shortcuts:
            return lines + general
        for k, (cond, body) in enumerate(shortcuts):
            lines += [f"{'if' if k == 0 else 'elif'} {cond}:", *_indent(body)]
        return lines + ["else:", *_indent(general)]

    def span(self, mem: MemRef) -> tuple[str, str] | None:
        """The first and one-past-last byte address of a global or shared array (the
        expressions the generated code has for them), or None."""
        if mem.space is Space.GLOBAL:
            k = next((i for i, p in enumerate(self.arrays) if p.mem is mem), None)
            return None if k is None else (f"pbs{k}", f"pbe{k}")
        if mem.space is Space.SHARED and any(m is mem for m in self.fn.shared):
            return str(mem.offset), str(mem.offset + mem.size * mem.elem.nbytes)
        return None

    def _direct(self, ins: Instr, ptr: Pointer, mem: MemRef, pa: str, val,
                offset: tuple[Reg, int] | None = None) -> tuple[str, list[str]] | None:
        """(whether address ``pa`` lies wholly in ``mem`` and is aligned, the access there), or
        None where ``mem`` is not one the access can reach. The same access the general path
        makes there: arrays do not overlap but as views of one allocation, which share their
        bytes, and launches place global arrays above the generic shared and local windows.
        ``offset``: (base, c) where ``pa`` is base + c with no wrap (a hoisted access in a
        block shown ``fast``); the index is then base's plus c's, which LLVM folds into the
        access (base's shift is shared by every access at an offset from it)."""
        space = Space.GLOBAL if ptr.space is Space.GENERIC else ptr.space
        bounds = self.span(mem)
        if mem.space is not space or bounds is None:
            return None
        start, end = bounds
        dtype = _storage(ptr.elem)
        width = len(ins.dsts) if ins.op is Op.LD else (len(ins.srcs) - 1 if ins.op is Op.ST else 1)
        span = width * dtype.itemsize
        shift = dtype.itemsize.bit_length() - 1
        aligned = f"{pa} & {span - 1} == 0" if span & (span - 1) == 0 else f"{pa} % {span} == 0"
        px = f"px{self.instr_id(ins)}{'gsl'[SPACE_CODE[space]]}"
        # as uint64 (never negative here): numba then skips its negative-index wraparound,
        # which would keep LLVM from vectorising the thread loop
        byte = pa
        if offset is not None and offset[1] % dtype.itemsize == 0:
            byte = f"np.int64({val(offset[0])})"
        rel = f"{byte} - {start}" if space is Space.GLOBAL else byte
        index = f"({rel}) >> {shift}" if space is Space.GLOBAL else f"{rel} >> {shift}"
        if byte != pa and offset[1]:
            index = f"({index}) + {offset[1] >> shift}"
        index = f"np.uint64({index})"
        view = (f"g{int(start[len('pbs'):])}_{dtype.name}" if space is Space.GLOBAL
                else f"sw_{dtype.name}")
        # [start, end - span] as one unsigned compare (an address below start wraps to a huge
        # offset), and no short-circuit: one branch
        room = (str(max(int(end) - int(start) - span + 1, 0)) if start.isdigit()
                else f"max({end} - {start} - {span - 1}, 0)")
        return (f"(np.uint64({pa} - {start}) < np.uint64({room})) & ({aligned})",
                [f"{px} = {index}", *self._move(ins, ptr, space, view, px, val)])

    def _general(self, ins: Instr, ptr: Pointer, n: int, pa: str, val) -> list[str]:
        """Lines that find the array holding address ``pa`` and run the access."""
        if ptr.space is not Space.GENERIC:
            return self._access(ins, ptr, ptr.space, pa, val)
        shared = self._access(ins, ptr, Space.SHARED, f"ps{n}", val)
        local = self._access(ins, ptr, Space.LOCAL, f"pl{n}", val)
        glob = self._access(ins, ptr, Space.GLOBAL, pa, val)
        return [
            f"if {pa} >= {GENERIC_SHARED_BASE} and {pa} < {GENERIC_SHARED_BASE + WINDOW}:",
            f"    ps{n} = {pa} - {GENERIC_SHARED_BASE}", *_indent(shared),
            f"elif {pa} >= {GENERIC_LOCAL_BASE} and {pa} < {GENERIC_LOCAL_BASE + WINDOW}:",
            f"    pl{n} = {pa} - {GENERIC_LOCAL_BASE}", *_indent(local),
            "else:", *_indent(glob)]

    def _addr(self, ins: Instr) -> list[str]:
        mem = ins.arg
        cast = CAST[ins.dst.type]
        if mem.space in (Space.SHARED, Space.LOCAL):
            return [f"{reg_name(ins.dst)} = {cast}({mem.offset})"]
        k = next(i for i, p in enumerate(self.arrays) if p.mem.name == mem.name)
        return [f"{reg_name(ins.dst)} = {cast}(pbs{k})"]

    def _access(self, ins: Instr, ptr: Pointer, space: Space, pa: str, val) -> list[str]:
        """Lines that find the bytes at address ``pa`` in ``space`` and run the access."""
        n = self.instr_id(ins)
        tag = f"{n}{'gsl'[SPACE_CODE[space]]}"
        dtype = _storage(ptr.elem)
        width = len(ins.dsts) if ins.op is Op.LD else (len(ins.srcs) - 1 if ins.op is Op.ST else 1)
        span = width * dtype.itemsize
        pk, px = f"pk{tag}", f"px{tag}"
        ranges = {Space.GLOBAL: "pb", Space.SHARED: "SR", Space.LOCAL: "LR"}[space]
        if not (self._windows()[space] if space is not Space.GLOBAL else self.arrays):
            # nothing to reach: an error (the registers are defined for the compiler only)
            return (self.fail(ERR_PTR, ins, pa, str(span), str(SPACE_CODE[space]))
                    + [f"{reg_name(d)} = {CAST[d.type]}(0)" for d in ins.dsts])
        shift = dtype.itemsize.bit_length() - 1
        # the array this instruction reached last is tried first (a loop's accesses stay in one)
        last = f"pkl{tag}"
        lines = [f"if {pa} >= {ranges}[2 * {last}] and {pa} + {span} <= {ranges}[2 * {last} + 1]:",
                 f"    {pk} = {last}",
                 "else:",
                 f"    {pk} = ptr_find({ranges}, {pa}, {span})",
                 f"    if {pk} >= 0:",
                 f"        {last} = {pk}",
                 f"if {pk} < 0 or {pa} {f'& {span - 1}' if span & (span - 1) == 0 else f'% {span}'} != 0:",
                 *_indent(self.fail(ERR_PTR, ins, pa, str(span),
                                    f"{SPACE_CODE[space]} + 4 * ({pk} >= 0)"))]
        if space is Space.GLOBAL:
            lines.append(f"{px} = ({pa} - pb[2 * {pk}]) >> {shift}")
            for k in range(len(self.arrays)):
                lines += [f"{'if' if k == 0 else 'elif'} {pk} == {k}:",
                          *_indent(self._move(ins, ptr, space, f"g{k}_{dtype.name}", px, val))]
            return lines
        elif space is Space.SHARED:
            view = f"sw_{dtype.name}"
            lines.append(f"{px} = {pa} >> {shift}")
        else:
            view = f"lw_{dtype.name}"
            lines.append(f"{px} = (t * LW + {pa}) >> {shift}")
        return lines + self._move(ins, ptr, space, view, px, val)

    def _move(self, ins: Instr, ptr: Pointer, space: Space, view: str, px: str, val) -> list[str]:
        held = CAST[ptr.elem]
        if ins.op is Op.LD:
            out = []
            for k, d in enumerate(ins.dsts):
                item = f"{view}[{px}{f' + {k}' if k else ''}]"
                out.append(f"{reg_name(d)} = {item if CAST[d.type] == held else f'{CAST[d.type]}({item})'}")
            return out
        if ins.op is Op.ST:
            return [f"{view}[{px}{f' + {k}' if k else ''}] = {held}({val(v)})"
                    for k, v in enumerate(ins.srcs[1:])]
        arg: AtomArg = ins.arg
        t = ptr.elem
        out = reg_name(ins.dst)
        v = f"{held}({val(ins.srcs[-1])})"
        cmp = f"{held}({val(ins.srcs[1])})" if arg.op is AtomOp.CAS else None
        if space is not Space.GLOBAL or self.plain_global_atomics:
            return [f"{out} = {view}[{px}]",
                    f"{view}[{px}] = {OpWriter._apply(arg.op, t, out, v, cmp)}"]
        kind = "float" if t.is_float else "int"
        if arg.op is AtomOp.CAS:
            call = (f"atomic_cas_value({view}, {px}, {cmp}, {v})" if t.is_float else
                    f"atomic_cas_bits({view}, {px}, {cmp}, {v})[0]")
        else:
            call = f"atomic_{arg.op.name.lower()}_{kind}({view}, {px}, {v})"
        return [f"{out} = {call}"]


def _indent(lines: list[str]) -> list[str]:
    return ["    " + x for x in lines]
