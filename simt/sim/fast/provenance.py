"""Which array a byte address was computed from (kernels imported from PTX).

PTX reaches an array through integer arithmetic on its address: ``addr @p``, moved, cast
and offset by adds and subtracts. This finds, for every register, the one array (global
parameter, shared or local allocation) that all its definitions derive from, if there is
one. The fast engine uses it only as a guess it checks (pointers.py): an access whose
address lies wholly in its register's array reads that array's view directly, and any other
address takes the general path that finds the array by address. A wrong or missing answer
costs speed, never correctness.

The analysis is flow-insensitive (PTX registers are redefined, around loops too): a register
has an origin when every instruction writing it gives the same one.
"""
from __future__ import annotations

from ...ir.mir import Function, Instr, MemRef, Op, Reg

_COPIES = (Op.MOV, Op.BITCAST, Op.CVT)
_CONFLICT = object()                 # definitions disagree (or one is a plain integer)


def origins(fn: Function) -> dict[int, MemRef]:
    """Register id -> the array every definition of the register derives its address from."""
    defs: dict[int, list[Instr]] = {}
    for ins in fn.instructions():
        for d in ins.dsts:
            defs.setdefault(d.id, []).append(ins)
    found: dict[int, object] = {}     # absent: nothing known yet (a loop not yet gone round)
    changed = True
    while changed:                    # each register moves at most twice: unknown -> array -> conflict
        changed = False
        for rid, writers in defs.items():
            if found.get(rid) is _CONFLICT:
                continue
            got = [_derived(ins, found, defs) for ins in writers]
            known = [g for g in got if g is not None]
            if not known:
                continue
            value = known[0] if all(g is known[0] for g in known) else _CONFLICT
            if found.get(rid) is not value:
                found[rid] = value
                changed = True
    return {rid: m for rid, m in found.items() if isinstance(m, MemRef)}


def _derived(ins: Instr, found: dict, defs: dict) -> object:
    """The origin one definition gives its register: a MemRef, _CONFLICT, or None (it
    depends on registers not known yet)."""
    if ins.op is Op.ADDR and isinstance(ins.arg, MemRef):
        return ins.arg
    if len(ins.dsts) != 1:
        return _CONFLICT
    srcs = [_origin_of(s, found, defs) for s in ins.srcs]
    if ins.op in _COPIES and len(srcs) == 1:
        return srcs[0]
    if ins.op is Op.ADD and len(srcs) == 2:
        if None in srcs:
            return None
        arrays = [s for s in srcs if isinstance(s, MemRef)]
        return arrays[0] if len(arrays) == 1 and _CONFLICT in srcs else _CONFLICT
    if ins.op is Op.SUB and len(srcs) == 2:       # array - integer
        return srcs[0] if isinstance(srcs[0], MemRef) and srcs[1] is _CONFLICT else (
            None if None in srcs else _CONFLICT)
    return _CONFLICT


def _origin_of(x, found: dict, defs: dict) -> object:
    """_CONFLICT also stands for 'a plain integer': an immediate, a parameter (a register
    no instruction writes), or a register whose definitions disagree."""
    if isinstance(x, Reg) and x.id in defs:
        return found.get(x.id)
    return _CONFLICT
