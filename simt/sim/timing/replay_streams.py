"""The tables and streams the timing machine replays, rewritten for a ``Schedule``
(sass_replay.py): a group block appended per group, and each warp's stream with the
iterations (or path runs) a group covers folded into one entry of it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from . import isa
from .sass_replay import Schedule

# False: the branches of a group's blocks that guard a then-block wait to resolve as a branch
# does, though ptxas predicated them (the group exists because the SASS has no branch there)
PREDICATED_BRANCHES = True


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
    path_len: np.ndarray        # per original block: the blocks of the path group it starts, or 0
    path_ptr: np.ndarray        # ... where they are in path_blocks
    path_blocks: np.ndarray
    path_then: np.ndarray       # ... and per block there, a then-block (a warp may skip it)?


def replay_tables(prog, arch, tab: isa.Tables, sched: Schedule) -> Replay:
    """``tables`` for ``prog`` on ``arch``, built once: nothing in them depends on the launch
    (``tab`` and ``sched`` are the program's own, cached beside these; a different one, as the
    model's switches make, gets its own)."""
    key = ("sass-replay", arch.key, id(tab), id(sched), PREDICATED_BRANCHES)
    got = prog.timing.get(key)
    if got is None:
        got = prog.timing[key] = tables(tab, sched, prog.nregs)
    return got


def tables(tab: isa.Tables, sched: Schedule, nregs: int) -> Replay:
    """``tab`` with a group block appended per group of ``sched``."""
    nb = tab.block_first.size
    cols = {k: list(getattr(tab, k)) for k in ("kind", "pipe", "sass", "latency", "branch", "mem_slot", "units",
                                                 "atomic")}
    src_ptr, src = list(tab.src_ptr), list(tab.src)
    dst_ptr, dst = list(tab.dst_ptr), list(tab.dst)
    first, length = list(tab.block_first), list(tab.block_len)
    origin = list(range(tab.kind.size))
    unroll = np.zeros(nb, np.int64)
    group_block = np.full(nb, -1, np.int64)
    slot_copy, slot_mem, gptr = [], [], [0]
    n_regs = nregs
    path_len = np.zeros(nb, np.int64)
    path_ptr = np.zeros(nb, np.int64)
    path_blocks, path_then = [], []
    for g in sched.groups:
        then = g.then_blocks() if g.path else []
        if g.path:
            path_len[g.block] = len(g.path)
            path_ptr[g.block] = len(path_blocks)
            path_blocks.extend(g.path)
            path_then.extend(then)
        if g.loop or not g.path:
            unroll[g.block] = g.unroll
        group_block[g.block] = len(first)
        first.append(len(origin))
        length.append(len(g.order))
        slot = 0
        for (j, pos), writes, name in zip(g.order, g.dsts, g.names):
            o = int(tab.block_first[g.block_of(j)]) + pos
            origin.append(o)
            for k in cols:
                cols[k].append(getattr(tab, k)[o])
            p = j % len(g.path) if g.path else -1
            if tab.kind[o] == isa.BRANCH and (g.static or PREDICATED_BRANCHES and 0 <= p < len(then) - 1
                                              and then[p + 1] and pos == int(tab.block_len[g.path[p]]) - 1):
                cols["branch"][-1] = 0.0          # a branch ptxas predicated away: nothing to resolve
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
                     np.array(dst, i32), np.array(cols["mem_slot"], i32), np.array(cols["atomic"], i8),
                     np.array(first, np.int64), np.array(length, np.int64), np.array(cols["units"], f64))
    n_slots = np.zeros(len(first), np.int64)
    for blk in range(len(first)):
        ms = new.mem_slot[first[blk]:first[blk] + length[blk]]
        n_slots[blk] = int((ms >= 0).sum())
    return Replay(new, np.array(origin, np.int64), n_regs, unroll, group_block, np.array(slot_copy, np.int64),
                  np.array(slot_mem, np.int64), np.array(gptr, np.int64), n_slots, path_len, path_ptr,
                  np.array(path_blocks + [0], np.int64), np.array(path_then + [False], np.bool_))


def regroup(rep: Replay, ptr, e_step, e_k, step_block, step_nrun, step_ev, ev_n, ev_ptr, ev_same):
    """The warps' streams with every U consecutive iterations of a grouped loop as one entry
    of its group block: (ptr, entry_step, entry_k, step_block, step_nrun, step_ev, ev_n,
    ev_ptr, ev_same), one step per entry."""
    paths = (rep.path_len, rep.path_ptr, rep.path_blocks, rep.path_then)
    counts = _count(rep.unroll, rep.n_slots, rep.group_block, *paths, ptr, e_step, step_block)
    return _fill(rep.unroll, rep.n_slots, rep.group_block, *paths, rep.slot_copy, rep.slot_mem,
                 rep.group_slot_ptr, int(rep.unroll.size), ptr, e_step, e_k, step_block, step_nrun, step_ev,
                 ev_n, ev_ptr, ev_same, counts[0], counts[1])


@njit(cache=True, nogil=True)
def _runs_path(b, e, end, path_len, path_ptr, path_blocks, e_step, step_block) -> bool:
    """Do the entries from ``e`` run the whole path group that starts at block ``b``?"""
    n = path_len[b]
    if n == 0 or e + n > end:
        return False
    for i in range(n):
        if step_block[e_step[e + i]] != path_blocks[path_ptr[b] + i]:
            return False
    return True


@njit(cache=True, nogil=True)
def _iteration(e, end, n, pp, path_blocks, path_then, e_step, step_block):
    """The entry after one iteration, from ``e``, of the loop whose body is the path at
    ``pp`` (``n`` blocks: x, then, join, ...; a then-block may be skipped), or -1."""
    p = 0
    while p < n:
        if e >= end:
            return -1
        blk = step_block[e_step[e]]
        if blk == path_blocks[pp + p]:
            e += 1
            p += 1
        elif path_then[pp + p]:
            p += 1                                # no lane took the then-block
        else:
            return -1
    return e


@njit(cache=True, nogil=True)
def _iterations(e, end, n, pp, u, path_blocks, path_then, e_step, step_block):
    """(complete iterations from ``e``, the entry after them, the entry after the last whole
    group of ``u`` of them)."""
    k = 0
    grouped = e
    while True:
        nxt = _iteration(e, end, n, pp, path_blocks, path_then, e_step, step_block)
        if nxt < 0:
            return k, e, grouped
        k += 1
        e = nxt
        if k % u == 0:
            grouped = e


@njit(cache=True, nogil=True)
def _map_iterations(e, u, n, pp, path_blocks, e_step, step_block, at):
    """``at[c * n + p]``: the entry of block p of iteration c (of U from ``e``), -1 where
    the warp skipped that then-block. Returns the entry after them."""
    for c in range(u):
        for p in range(n):
            if step_block[e_step[e]] == path_blocks[pp + p]:
                at[c * n + p] = e
                e += 1
            else:
                at[c * n + p] = -1
    return e


@njit(cache=True, nogil=True)
def _count(unroll, n_slots, group_block, path_len, path_ptr, path_blocks, path_then, ptr, e_step, step_block):
    entries = 0
    events = 0
    for w in range(ptr.size - 1):
        e = ptr[w]
        while e < ptr[w + 1]:
            b = step_block[e_step[e]]
            if path_len[b] > 0 and unroll[b] >= 2:          # a loop whose body branches
                k, stop, first = _iterations(e, ptr[w + 1], path_len[b], path_ptr[b], unroll[b], path_blocks,
                                             path_then, e_step, step_block)
                if k == 0:
                    stop = e + 1                      # not a whole iteration: the entry as it ran
                groups = k // unroll[b]
                entries += groups
                events += groups * n_slots[group_block[b]]
                for ee in range(first, stop):
                    entries += 1
                    events += n_slots[step_block[e_step[ee]]]
                e = stop
                continue
            if _runs_path(b, e, ptr[w + 1], path_len, path_ptr, path_blocks, e_step, step_block):
                entries += 1
                events += n_slots[group_block[b]]
                e += path_len[b]
                continue
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
def _put_event(src, q, ev_n, ev_ptr, ev_same, o_n, o_ptr, o_same):
    o_n[q] = ev_n[src]
    o_ptr[q] = ev_ptr[src]
    o_same[q] = ev_same[src]


@njit(cache=True, nogil=True)
def _as_ran(ee, v, q, e_step, e_k, step_block, step_ev, step_nrun, n_slots, s_block, s_ev, ev_n, ev_ptr, ev_same,
            o_n, o_ptr, o_same):
    """Entry ``ee`` as the warp ran it, as new entry ``v`` with its events from ``q``; returns
    the next event."""
    st = e_step[ee]
    bb = step_block[st]
    s_block[v] = bb
    s_ev[v] = q
    for slot in range(n_slots[bb]):
        _put_event(step_ev[st] + slot * step_nrun[st] + e_k[ee], q, ev_n, ev_ptr, ev_same, o_n, o_ptr, o_same)
        q += 1
    return q


@njit(cache=True, nogil=True)
def _fill(unroll, n_slots, group_block, path_len, path_ptr, path_blocks, path_then, slot_copy, slot_mem, gptr, n_orig,
          ptr, e_step, e_k, step_block, step_nrun, step_ev, ev_n, ev_ptr, ev_same, n_entries, n_events):
    new_ptr = np.zeros(ptr.size, np.int64)
    s_block = np.empty(n_entries, np.int32)
    s_nrun = np.ones(n_entries, np.int32)
    s_ev = np.empty(n_entries, np.int64)
    o_n = np.empty(n_events, ev_n.dtype)
    o_ptr = np.empty(n_events, ev_ptr.dtype)
    o_same = np.empty(n_events, ev_same.dtype)
    v = 0
    q = 0
    at = np.empty(max(1, unroll.max() * path_len.max()), np.int64)
    for w in range(ptr.size - 1):
        new_ptr[w] = v
        e = ptr[w]
        while e < ptr[w + 1]:
            b = step_block[e_step[e]]
            u = unroll[b]
            if path_len[b] > 0 and u >= 2:               # a loop whose body branches
                n = path_len[b]
                k, stop, _ = _iterations(e, ptr[w + 1], n, path_ptr[b], u, path_blocks, path_then, e_step,
                                         step_block)
                if k == 0:
                    stop = e + 1                          # not a whole iteration: the entry as it ran
                gb = group_block[b]
                base = gptr[gb - n_orig]
                for gi in range(k // u):
                    nxt = _map_iterations(e, u, n, path_ptr[b], path_blocks, e_step, step_block, at)
                    s_block[v] = gb
                    s_ev[v] = q
                    for slot in range(n_slots[gb]):
                        ee = at[slot_copy[base + slot]]
                        if ee < 0:                        # predicated off: no access
                            o_n[q] = 0
                            o_ptr[q] = -1
                            o_same[q] = 1
                        else:
                            st = e_step[ee]
                            _put_event(step_ev[st] + slot_mem[base + slot] * step_nrun[st] + e_k[ee], q,
                                       ev_n, ev_ptr, ev_same, o_n, o_ptr, o_same)
                        q += 1
                    v += 1
                    e = nxt
                for ee in range(e, stop):                 # the iterations left over, as they ran
                    q = _as_ran(ee, v, q, e_step, e_k, step_block, step_ev, step_nrun, n_slots, s_block, s_ev,
                                ev_n, ev_ptr, ev_same, o_n, o_ptr, o_same)
                    v += 1
                e = stop
                continue
            run = 1
            groups = 0
            if _runs_path(b, e, ptr[w + 1], path_len, path_ptr, path_blocks, e_step, step_block):
                u = path_len[b]                   # one group of the path's blocks, one entry each
                run = u
                groups = 1
            elif u >= 2:
                while e + run < ptr[w + 1] and step_block[e_step[e + run]] == b:
                    run += 1
                groups = run // u
            for gi in range(groups):
                gb = group_block[b]
                s_block[v] = gb
                s_ev[v] = q
                base = gptr[gb - n_orig]
                for slot in range(n_slots[gb]):
                    ee = e + gi * u + slot_copy[base + slot]
                    st = e_step[ee]
                    _put_event(step_ev[st] + slot_mem[base + slot] * step_nrun[st] + e_k[ee], q,
                               ev_n, ev_ptr, ev_same, o_n, o_ptr, o_same)
                    q += 1
                v += 1
            for ee in range(e + groups * u, e + run):
                q = _as_ran(ee, v, q, e_step, e_k, step_block, step_ev, step_nrun, n_slots, s_block, s_ev,
                            ev_n, ev_ptr, ev_same, o_n, o_ptr, o_same)
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
