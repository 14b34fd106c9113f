"""Replay loops in the order the GPU issues them: ptxas's unrolled, load-hoisted schedule.

The recorder keeps what each warp executed in program order: one iteration of a loop after
another. ptxas unrolls such a loop by U and issues the loads of several iterations before
the first use of the first one, so on the GPU a warp has several loads in flight where the
program-order replay has one; with few warps per SM that is the difference between waiting
out every load's latency and overlapping them.

This module reads the schedule from the SASS (``simt.gpu.sass``: per loop, the unroll factor
and the loads issued before the first use) and rewrites what the machine replays:

- for each loop the MIR closes within one block and ptxas unrolled (U >= 2) with at least
  two loads issued before the first use, a *group block*: U copies of the loop body,
  registers renamed per copy (so a hoisted load of copy j does not overwrite the value copy
  j-1 still reads), list-scheduled so that the group's global loads, with their address
  arithmetic, come as early as their dependences allow (a gather right after the load of
  its index, as ptxas places it); everything else keeps its order, and every register
  (read-after-write, write-after-read, write-after-write) and memory dependence (loads never
  pass a store) holds;
- each warp's stream: every run of U consecutive iterations of such a loop becomes one
  entry of the group block (a remainder stays as single iterations), with the memory events
  of the U iterations attached in the new order.

A loop where no later copy has a load whose address is free of the group's loads (a pointer
chase: each address is the previous load's value) is left in program order, as ptxas's
schedule has one load in flight there too. Where ptxas or a disassembler is missing, or
with ``simt.set_module_options({"timing_sass": False})``, the replay is the program order;
``r.details["timing_schedule"]`` says which one ran and why.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ...ir.mir import Op, Reg, Space
from . import isa


@dataclass
class GroupBlock:
    block: int                 # the MIR block of the loop
    unroll: int                # U: iterations per group
    loads_in_flight: int       # SASS loads before the first use
    order: list                # (copy, position in the block) per instruction of the group
    srcs: list                 # renamed source registers per instruction of the group
    dsts: list
    names: list                # per instruction: register -> its name in the copy, before it


@dataclass
class Schedule:
    replay: str                # "sass" or "program order"
    why: str
    groups: list = field(default_factory=list)
    sass_loops: list = field(default_factory=list)

    def summary(self) -> dict:
        return {"replay": self.replay, "why": self.why,
                "loops": [{"block": g.block, "unroll": g.unroll, "loads_in_flight": g.loads_in_flight}
                          for g in self.groups],
                "sass_loops": self.sass_loops}


def plan(prog, arch, tab: isa.Tables, enabled: bool = True) -> Schedule:
    """The schedule for ``prog`` (a precise Program, ``tab`` its timing tables) on ``arch``;
    cached per PTX target (a calibrated architecture file replays its target's SASS)."""
    if not enabled:
        return Schedule("program order", "switched off (module option timing_sass)")
    key = ("sass-schedule", arch.ptx_target)
    got = prog.timing.get(key)
    if got is None:
        got = prog.timing[key] = _plan(prog, arch, tab)
    return got


def _plan(prog, arch, tab) -> Schedule:
    from ...errors import DeviceError
    from ...gpu import sass
    candidates = [b for b, blk in enumerate(prog.fn.blocks)
                  if _self_loop(blk) and _groupable(blk) and any(_is_global_load(i) for i in blk.instrs)]
    if not candidates:
        return Schedule("program order", "no one-block loop with global loads")
    if arch.ptx_target not in ("sm_80", "sm_90"):      # an architecture file's target: its SASS
        return Schedule("program order", f"no SASS for PTX target {arch.ptx_target}")
    if not sass.available():
        return Schedule("program order", "ptxas or a disassembler (pip install simt[sass]) is missing")
    try:
        df = sass.sass_of_function(prog.fn, arch.ptx_target)
    except (DeviceError, OSError, ValueError, KeyError) as e:   # a refinement: never fail the launch
        return Schedule("program order", f"reading the SASS failed: {str(e).splitlines()[0] if str(e) else e!r}")
    loops = df.attrs["loops"]
    groups = []
    index = prog.reg_index
    for lp in loops:
        b, u, lbf = lp["mir_loop"], lp["unroll"], lp["loads_before_first_use"]
        if b not in candidates or u < 2 or lbf < 2 or any(g.block == b for g in groups):
            continue
        blk = prog.fn.blocks[b]
        kept = [list(tab.src[tab.src_ptr[o]:tab.src_ptr[o + 1]])
                for o in range(int(tab.block_first[b]), int(tab.block_first[b] + tab.block_len[b]))]
        g = _group(blk, b, u, lbf, index, prog.nregs, kept)
        if g is not None:
            groups.append(g)
    why = "loops unrolled by ptxas replay their SASS order" if groups else "no loop to regroup"
    return Schedule("sass" if groups else "program order", why, groups, loops)


def _self_loop(blk) -> bool:
    term = blk.instrs[-1]
    return term.op is Op.CBR and blk.label in term.arg


def _groupable(blk) -> bool:
    """Only loads, stores and arithmetic: no barriers, atomics or warp collectives."""
    for ins in blk.instrs:
        if ins.op in (Op.ATOM, Op.BAR, Op.BAR_AND):
            return False
        if ins.op.name.startswith(("SHFL", "VOTE", "MATCH", "REDUX")):
            return False
    return True


HOIST = True      # False: groups keep the program order (a check that regrouping alone changes nothing)


def _is_global_load(ins) -> bool:
    return ins.op is Op.LD and ins.arg.space is Space.GLOBAL


def _group(blk, b, u, lbf, index, nregs, kept) -> GroupBlock | None:
    """The group block of U copies of ``blk`` (``kept``: per instruction, the sources the
    timing tables keep: a repeated computation reads the register that holds it)."""
    body = blk.instrs
    n = len(body)
    defined = {index[d.id] for ins in body for d in ins.dsts}
    fresh = {}
    for j in range(u - 1):                       # the last copy writes the original registers
        for r in sorted(defined):
            fresh[(j, r)] = nregs + len(fresh)
    seq, srcs, dsts, names = [], [], [], []
    for j in range(u):
        name = {}                                 # register -> its name so far in copy j
        if j > 0:
            name = {r: fresh.get((j - 1, r), r) for r in defined}
        for pos, ins in enumerate(body):
            names.append(dict(name))
            mir = {index[s.id] for s in ins.srcs if isinstance(s, Reg)}
            reads = [name.get(r, r) for r in sorted(mir | {int(r) for r in kept[pos]})]
            writes = []
            for d in ins.dsts:
                r = index[d.id]
                new = fresh.get((j, r), r)
                name[r] = new
                writes.append(new)
            seq.append((j, pos))
            srcs.append(reads)
            dsts.append(writes)
    m = len(seq)
    # dependences within the group
    preds = [set() for _ in range(m)]
    last_write, reads_since = {}, {}
    last_store, mem_since_store = -1, []
    for i, (j, pos) in enumerate(seq):
        ins = body[pos]
        for r in srcs[i]:
            if r in last_write:
                preds[i].add(last_write[r])
        for r in dsts[i]:
            if r in last_write:
                preds[i].add(last_write[r])
            preds[i].update(reads_since.get(r, ()))
        for r in srcs[i]:
            reads_since.setdefault(r, []).append(i)
        for r in dsts[i]:
            last_write[r] = i
            reads_since[r] = []
        if ins.op in (Op.LD, Op.ST):
            if ins.op is Op.ST:
                preds[i].update(mem_since_store)
                mem_since_store = []
                last_store = i
            elif last_store >= 0:
                preds[i].add(last_store)
            mem_since_store.append(i)
        preds[i].discard(i)
    preds[m - 1].update(range(m - 1))             # the loop's branch ends the group
    # loads whose address depends on no load of the group
    tainted = [False] * m
    for i, (j, pos) in enumerate(seq):
        raw = [p for p in preds[i] if set(dsts[p]) & set(srcs[i])]
        tainted[i] = any(tainted[p] or body[seq[p][1]].op is Op.LD for p in raw)
    movable = [i for i, (j, pos) in enumerate(seq) if _is_global_load(body[pos]) and not tainted[i]]
    if not any(seq[i][0] > 0 for i in movable):
        return None                              # nothing of a later copy can move up
    # as ptxas does, every global load of the group goes as early as its dependences allow
    # (a gather right after the load of its index), the rest keeps its order
    slice_ = set()
    stack = [i for i, (j, pos) in enumerate(seq) if HOIST and _is_global_load(body[pos])]
    while stack:                                  # the hoisted loads and what they wait for
        i = stack.pop()
        if i in slice_:
            continue
        slice_.add(i)
        stack.extend(preds[i])
    order, done, waiting = [], [False] * m, [len(p) for p in preds]
    succ = [[] for _ in range(m)]
    for i in range(m):
        for p in preds[i]:
            succ[p].append(i)
    ready = [i for i in range(m) if waiting[i] == 0]
    while ready:
        i = min(ready, key=lambda x: (x not in slice_, x))
        ready.remove(i)
        order.append(i)
        done[i] = True
        for s in succ[i]:
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    assert len(order) == m
    return GroupBlock(b, u, lbf, [seq[i] for i in order], [srcs[i] for i in order], [dsts[i] for i in order],
                      [names[i] for i in order])


# ---- the rewritten tables and streams ---------------------------------------------------------

@dataclass
class Replay:
    tab: isa.Tables
    origin: np.ndarray          # per instruction of ``tab``: the original instruction
    n_regs: int
    unroll: np.ndarray          # per original block: U, or 0
    group_block: np.ndarray     # per original block: its group block, or -1
    slot_copy: np.ndarray       # per memory slot of the group blocks (group_slot_ptr): copy
    slot_mem: np.ndarray        # ... and the original memory slot
    group_slot_ptr: np.ndarray  # per group block (numbered from 0)
    n_slots: np.ndarray         # memory slots per block of ``tab``


def replay_tables(prog, arch, tab: isa.Tables, sched: Schedule) -> Replay:
    """``tables`` for ``prog`` on ``arch``, built once: nothing in them depends on the launch."""
    key = ("sass-replay", arch.key)
    got = prog.timing.get(key)
    if got is None:
        got = prog.timing[key] = tables(tab, sched, prog.nregs)
    return got


def tables(tab: isa.Tables, sched: Schedule, nregs: int) -> Replay:
    """``tab`` with a group block appended per group of ``sched``."""
    nb = tab.block_first.size
    cols = {k: list(getattr(tab, k)) for k in ("kind", "pipe", "sass", "latency", "branch", "mem_slot",
                                                 "float_atomic")}
    src_ptr, src = list(tab.src_ptr), list(tab.src)
    dst_ptr, dst = list(tab.dst_ptr), list(tab.dst)
    first, length = list(tab.block_first), list(tab.block_len)
    origin = list(range(tab.kind.size))
    unroll = np.zeros(nb, np.int64)
    group_block = np.full(nb, -1, np.int64)
    slot_copy, slot_mem, gptr = [], [], [0]
    n_regs = nregs
    for g in sched.groups:
        unroll[g.block] = g.unroll
        group_block[g.block] = len(first)
        first.append(len(origin))
        length.append(len(g.order))
        slot = 0
        for (j, pos), writes, name in zip(g.order, g.dsts, g.names):
            o = int(tab.block_first[g.block]) + pos
            origin.append(o)
            for k in cols:
                cols[k].append(getattr(tab, k)[o])
            # the sources the timing tables keep (a repeated computation reads the register
            # that holds it), in the copy's names
            reads = [name.get(int(r), int(r)) for r in tab.src[tab.src_ptr[o]:tab.src_ptr[o + 1]]]
            src.extend(reads)
            src_ptr.append(len(src))
            dst.extend(writes)
            dst_ptr.append(len(dst))
            n_regs = max([n_regs] + [r + 1 for r in reads + writes])
            if tab.mem_slot[o] >= 0:
                cols["mem_slot"][-1] = slot
                slot_copy.append(j)
                slot_mem.append(int(tab.mem_slot[o]))
                slot += 1
        gptr.append(len(slot_copy))
    i8, i32, f64 = np.int8, np.int32, np.float64
    new = isa.Tables(np.array(cols["kind"], i8), np.array(cols["pipe"], i8), np.array(cols["sass"], f64),
                     np.array(cols["latency"], f64), np.array(cols["branch"], f64),
                     np.array(src_ptr, np.int64), np.array(src, i32), np.array(dst_ptr, np.int64),
                     np.array(dst, i32), np.array(cols["mem_slot"], i32), np.array(cols["float_atomic"], i8),
                     np.array(first, np.int64), np.array(length, np.int64))
    n_slots = np.zeros(len(first), np.int64)
    for blk in range(len(first)):
        ms = new.mem_slot[first[blk]:first[blk] + length[blk]]
        n_slots[blk] = int((ms >= 0).sum())
    return Replay(new, np.array(origin, np.int64), n_regs, unroll, group_block, np.array(slot_copy, np.int64),
                  np.array(slot_mem, np.int64), np.array(gptr, np.int64), n_slots)


def regroup(rep: Replay, ptr, e_step, e_k, step_block, step_nrun, step_ev, ev_n, ev_ptr, ev_same):
    """The warps' streams with every U consecutive iterations of a grouped loop as one entry
    of its group block: (ptr, entry_step, entry_k, step_block, step_nrun, step_ev, ev_n,
    ev_ptr, ev_same), one step per entry."""
    counts = _count(rep.unroll, rep.n_slots, rep.group_block, ptr, e_step, step_block)
    return _fill(rep.unroll, rep.n_slots, rep.group_block, rep.slot_copy, rep.slot_mem, rep.group_slot_ptr,
                 int(rep.unroll.size), ptr, e_step, e_k, step_block, step_nrun, step_ev, ev_n, ev_ptr,
                 ev_same, counts[0], counts[1])


@njit(cache=True, nogil=True)
def _count(unroll, n_slots, group_block, ptr, e_step, step_block):
    entries = 0
    events = 0
    for w in range(ptr.size - 1):
        e = ptr[w]
        while e < ptr[w + 1]:
            b = step_block[e_step[e]]
            u = unroll[b]
            if u < 2:
                entries += 1
                events += n_slots[b]
                e += 1
                continue
            run = 1
            while e + run < ptr[w + 1] and step_block[e_step[e + run]] == b:
                run += 1
            groups = run // u
            rest = run - groups * u
            entries += groups + rest
            events += groups * n_slots[group_block[b]] + rest * n_slots[b]
            e += run
    return entries, events


@njit(cache=True, nogil=True)
def _fill(unroll, n_slots, group_block, slot_copy, slot_mem, gptr, n_orig, ptr, e_step, e_k, step_block,
          step_nrun, step_ev, ev_n, ev_ptr, ev_same, n_entries, n_events):
    new_ptr = np.zeros(ptr.size, np.int64)
    s_block = np.empty(n_entries, np.int32)
    s_nrun = np.ones(n_entries, np.int32)
    s_ev = np.empty(n_entries, np.int64)
    o_n = np.empty(n_events, ev_n.dtype)
    o_ptr = np.empty(n_events, ev_ptr.dtype)
    o_same = np.empty(n_events, ev_same.dtype)
    v = 0
    q = 0
    for w in range(ptr.size - 1):
        new_ptr[w] = v
        e = ptr[w]
        while e < ptr[w + 1]:
            b = step_block[e_step[e]]
            u = unroll[b]
            run = 1
            if u >= 2:
                while e + run < ptr[w + 1] and step_block[e_step[e + run]] == b:
                    run += 1
            groups = run // u if u >= 2 else 0
            for gi in range(groups):
                gb = group_block[b]
                s_block[v] = gb
                s_ev[v] = q
                base = gptr[gb - n_orig]
                for slot in range(n_slots[gb]):
                    ee = e + gi * u + slot_copy[base + slot]
                    st = e_step[ee]
                    src = step_ev[st] + slot_mem[base + slot] * step_nrun[st] + e_k[ee]
                    o_n[q] = ev_n[src]
                    o_ptr[q] = ev_ptr[src]
                    o_same[q] = ev_same[src]
                    q += 1
                v += 1
            for ee in range(e + groups * u, e + run):
                st = e_step[ee]
                s_block[v] = b
                s_ev[v] = q
                for slot in range(n_slots[b]):
                    src = step_ev[st] + slot * step_nrun[st] + e_k[ee]
                    o_n[q] = ev_n[src]
                    o_ptr[q] = ev_ptr[src]
                    o_same[q] = ev_same[src]
                    q += 1
                v += 1
            e += run
    new_ptr[ptr.size - 1] = v
    entry_step = np.arange(n_entries).astype(np.int64)
    entry_k = np.zeros(n_entries, np.int32)
    return new_ptr, entry_step, entry_k, s_block, s_nrun, s_ev, o_n, o_ptr, o_same


def fold_stalls(stalls: np.ndarray, rep: Replay, n_orig: int) -> np.ndarray:
    """The stall table of the rewritten tables, per original instruction."""
    out = np.zeros((n_orig, stalls.shape[1]), stalls.dtype)
    np.add.at(out, rep.origin, stalls)
    return out
