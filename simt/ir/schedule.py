"""Instruction scheduling within a basic block, as GPU compilers do it.

``rename_block_locals`` gives every value that a block defines and overwrites before its end
a register of its own (the MIR reuses a variable's register for each assignment; an
unrolled loop reuses them in every copy), so independent work is no longer chained by
reused names. ``schedule_blocks`` then reorders each block by list scheduling, longest
latency path first, so independent loads issue back to back instead of each waiting for
the previous iteration's store: the memory-level parallelism nvcc's scheduler creates.
Order between memory operations of one address space, and everything around barriers,
warp collectives, atomics, bounds checks and clock reads, is kept.
"""
from __future__ import annotations

import itertools

from .mir import BARRIERS, Function, Instr, Op, Reg

_FENCES = frozenset({Op.SYNCWARP, Op.SHFL, Op.VOTE, Op.ACTIVEMASK, Op.CHECK, Op.ATOM,
                      Op.PRINT}) | BARRIERS
_LOAD_LATENCY = 400
_ALU_LATENCY = 4


def rename_block_locals(fn: Function) -> Function:
    next_id = itertools.count(max((r.id for r in fn.registers()), default=0) + 1)
    for b in fn.blocks:
        last_def: dict[int, int] = {}
        for k, ins in enumerate(b.instrs):
            for d in ins.dsts:
                last_def[d.id] = k
        current: dict[int, Reg] = {}          # original register id -> its name right now
        for k, ins in enumerate(b.instrs):
            if current:
                ins.srcs = tuple(current.get(s.id, s) if isinstance(s, Reg) else s for s in ins.srcs)
            new_dsts = []
            for d in ins.dsts:
                if last_def[d.id] != k:       # overwritten later in this block: a local value
                    fresh = Reg(next(next_id), d.type, d.name)
                    current[d.id] = fresh
                    new_dsts.append(fresh)
                else:
                    current.pop(d.id, None)
                    new_dsts.append(d)
            ins.dsts = tuple(new_dsts)
    return fn


def schedule_blocks(fn: Function) -> Function:
    for b in fn.blocks:
        if len(b.instrs) > 3:
            b.instrs = _schedule(b.instrs)
    return fn


def _schedule(instrs: list[Instr]) -> list[Instr]:
    body, term = instrs[:-1], instrs[-1]
    n = len(body)
    deps: list[set[int]] = [set() for _ in range(n)]
    last_write: dict[int, int] = {}
    reads_since: dict[int, list[int]] = {}
    last_fence = -1
    mem_last: dict[object, int] = {}        # space -> last store/atomic position
    loads_since: dict[object, list[int]] = {}
    for k, ins in enumerate(body):
        d = deps[k]
        if ins.op in _FENCES or (ins.op is Op.SREG and ins.arg.name == "CLOCK"):
            d.update(range(k))                 # nothing moves across a fence
            last_fence = k
        elif last_fence >= 0:
            d.add(last_fence)
        for s in ins.srcs:
            if isinstance(s, Reg) and s.id in last_write:
                d.add(last_write[s.id])
        for r in ins.dsts:
            if r.id in last_write:
                d.add(last_write[r.id])
            d.update(reads_since.get(r.id, ()))
        if ins.op in (Op.LD, Op.ST):
            space = ins.arg.space
            if space in mem_last:
                d.add(mem_last[space])
            if ins.op is Op.ST:
                d.update(loads_since.get(space, ()))
                mem_last[space] = k
                loads_since[space] = []
            else:
                loads_since.setdefault(space, []).append(k)
        for s in ins.srcs:
            if isinstance(s, Reg):
                reads_since.setdefault(s.id, []).append(k)
        for r in ins.dsts:
            last_write[r.id] = k
            reads_since[r.id] = []
        d.discard(k)
    users: list[list[int]] = [[] for _ in range(n)]
    for k, d in enumerate(deps):
        for j in d:
            users[j].append(k)
    height = [0] * n
    for k in reversed(range(n)):
        own = _LOAD_LATENCY if body[k].op is Op.LD else _ALU_LATENCY
        height[k] = own + max((height[u] for u in users[k]), default=0)
    waiting = [len(d) for d in deps]
    ready = [k for k in range(n) if waiting[k] == 0]
    order: list[int] = []
    while ready:
        ready.sort(key=lambda k: (-height[k], k))
        k = ready.pop(0)
        order.append(k)
        for u in users[k]:
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.append(u)
    assert len(order) == n, "scheduling lost an instruction"
    return [body[k] for k in order] + [term]
