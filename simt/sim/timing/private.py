"""A scheduler's run of private instructions, compiled: the machine's issue loop (machine.py)
cut down to what arithmetic and branches need.

An instruction is private when it touches nothing another scheduler shares: not the memory
system, the LSU, a barrier or the block launcher. Once no block is left to launch and none
of a scheduler's warps waits at a barrier, nothing outside the scheduler can change what it
issues next, so it issues its private instructions here, in one tight loop, exactly as the
machine's loop would (the same pick, stall accounting, pipes and statistics), and hands
back at the first instruction that is not private or that may end its warp. A compute-bound
kernel spends nearly all its issues here.

Such a scheduler's run depends on nothing but its own state, which nothing else changes
until its next event, so once the last block is launched the machine runs the private runs
of every scheduler waiting for its next event at once, on several threads (``run_ahead``),
and takes each result when the scheduler's event comes. The schedulers are dealt to a fixed
number of groups (by the work ahead of them, so that the threads finish together), each with
its own stall and statistics sums, added up in group order: the result does not depend on
how many threads there are. Below ``PARALLEL_ABOVE`` instructions the same groups run on the
calling thread: waking numba's threads would cost more than they save.

The loop reads tables that ``tables`` builds once per launch: which instructions it may
issue, each instruction's sources padded to three with a register that is always ready (so
the scan of the next instruction's sources has no loop), its one destination, and the
instructions of each warp's recorded block.
"""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit, prange

from . import isa
from .indices import M_ISSUE, M_PIPE0, S_NOT_SELECTED, S_THROTTLE, S_WAIT
from .scheduling import INF, hold_pipe, pick_warp, when_ready

NO, YES, LAST = 0, 1, 2      # may the loop issue it: no; yes; yes, and it may end its warp
GROUPS = 4                   # run_ahead's groups of schedulers (fixed: see above)
WORTH = 16                   # the machine hands a warp to the loop with this much work ahead
PARALLEL_ABOVE = 32768       # instructions to issue, all groups: fewer run on this thread


@njit(cache=True, nogil=True, _nrt=False)
def is_private(k):
    """Does an instruction of kind ``k`` touch only its scheduler's state (not memory, not a
    barrier)?"""
    return k == isa.ALU or k == isa.BRANCH or k == isa.FREE


@njit(cache=True, nogil=True)
def tables(kind, src_ptr, src, dst_ptr, dst, blk_first, blk_len, entry_step, step_block, ready_reg):
    """(issue [instr]: NO, YES or LAST; sources [instr, 3], padded with ``ready_reg``;
    destination [instr], -1 if not exactly one; first and end instruction [warp entry])."""
    n = kind.size
    issue = np.zeros(n, np.int8)
    srcs = np.full((n, 3), ready_reg, np.int64)
    dest = np.full(n, -1, np.int64)
    for i in range(n):
        if src_ptr[i + 1] - src_ptr[i] <= 3:
            for j in range(src_ptr[i], src_ptr[i + 1]):
                srcs[i, j - src_ptr[i]] = src[j]
            if is_private(kind[i]):
                issue[i] = YES
        if dst_ptr[i + 1] - dst_ptr[i] == 1:
            dest[i] = dst[dst_ptr[i]]
    # the last issued instruction of a block: only free ones follow it
    for b in range(blk_first.size):
        i = blk_first[b] + blk_len[b] - 1
        while i >= blk_first[b]:
            if issue[i] == YES:
                issue[i] = LAST
            if kind[i] != isa.FREE:
                break
            i -= 1
    e_first = np.empty(entry_step.size, np.int64)
    e_end = np.empty(entry_step.size, np.int64)
    for e in range(entry_step.size):
        b = step_block[entry_step[e]]
        e_first[e] = blk_first[b]
        e_end[e] = blk_first[b] + blk_len[b]
    return issue, srcs, dest, e_first, e_end


@njit(cache=True, nogil=True)
def next_shared(issue):
    """Per instruction ``i``: the first instruction from ``i`` on that a private run may not
    issue (``issue`` NO), or ``issue.size``."""
    out = np.empty(issue.size, np.int64)
    nxt = issue.size
    for i in range(issue.size - 1, -1, -1):
        if issue[i] == NO:
            nxt = i
        out[i] = nxt
    return out


@njit(cache=True, nogil=True, _nrt=False)
def private_work(g, sl_ins, sl_e, sl_end, e_first, e_end, shared, most=1 << 62):
    """About how many instructions the warp in slot ``g`` can issue in a private run: up to
    the first one that touches something shared, or its end (or ``most``). A recorded block
    at a time: ``shared`` is ``next_shared``'s table (a block's instructions are consecutive)."""
    n = 0
    i = sl_ins[g]
    e = sl_e[g]
    while e < sl_end[g] and n < most:
        end = e_end[e]
        if shared[i] < end:
            return min(n + shared[i] - i, most)
        n += end - i
        e += 1
        if e < sl_end[g]:
            i = e_first[e]
    return min(n, most)


@njit(cache=True, nogil=True, _nrt=False)
def run_alone(issue, ins, e, end):
    """May ``run_private`` issue instruction ``ins`` of a warp at entry ``e`` of ``end``?"""
    return issue[ins] == YES or (issue[ins] == LAST and e != end - 1)


@njit(cache=True, nogil=True, _nrt=False)
def run_private(sp, m, t, greedy, SQ, n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr,
                dst, issue, srcs, dest, stall_cls, e_first, e_end, sl_e, sl_end, sl_bend, sl_ins,
                sl_own, sl_src, sl_sprod, sl_c0, sl_pp, reg_ready, reg_prod, pipe_free,
                pbusy, sp_free, sp_last, sp_slots, sp_order, stalls, smstat):
    """Scheduler ``sp`` (of SM ``m``) issues from time ``t``, ``greedy`` the warp that issued
    last and may go on without a look at the others (-1: none), while the warp to issue is at
    a private instruction that cannot end it. Returns (t, greedy, idle, instructions
    issued): idle when no warp can issue (all exited or at a barrier); else the machine's
    loop takes the same pick."""
    issued = 0
    while True:
        if greedy >= 0:
            g = greedy
            T = max(sp_free[sp], t)
            if when_ready(sp, g, sl_c0, sl_pp, pipe_free) > T:
                greedy = -1
            elif not run_alone(issue, sl_ins[g], sl_e[g], sl_end[g]):
                return t, greedy, False, issued
        if greedy < 0:
            base = max(sp_free[sp], t)
            min1_c, min1_g, best = pick_warp(sp, SQ, sp_slots[sp], base, sl_c0, sl_pp, pipe_free,
                                             sp_last[sp], sp_order)
            if min1_g < 0:
                return t, -1, True, issued
            if best < 0:
                best = min1_g
            T = max(min1_c, base)
            if not run_alone(issue, sl_ins[best], sl_e[best], sl_end[best]):
                return t, -1, False, issued
            g = best
        # ---- issue the next instruction of warp g at T (as machine.run does) -------------
        t = T
        issued += 1
        sp_last[sp] = g
        ins = sl_ins[g]
        own = sl_own[g]
        dep = own
        if sl_src[g] > own:
            dep = sl_src[g]
            prod = sl_sprod[g]
            if prod >= 0:
                stalls[prod, stall_cls[prod]] += dep - own
            else:
                stalls[ins, S_WAIT] += dep - own
        pp = pipe[ins]
        slots = sass[ins]
        if pp < n_pipes:
            if pipe_free[sp, pp] > dep:
                stalls[ins, S_THROTTLE] += pipe_free[sp, pp] - dep
                dep = pipe_free[sp, pp]
            hold_pipe(pipe_free, sp, pp, n_pipes, T, pbusy[ins, 0], pbusy[ins, 1])
            smstat[m, M_PIPE0 + pp] += pbusy[ins, 0]
        if T > dep:
            stalls[ins, S_NOT_SELECTED] += T - dep
        sp_free[sp] = T + slots
        smstat[m, M_ISSUE] += slots
        d = dest[ins]
        if d >= 0:
            reg_ready[g, d] = T + lat[ins]
            reg_prod[g, d] = ins
        else:
            for p in range(dst_ptr[ins], dst_ptr[ins + 1]):
                reg_ready[g, dst[p]] = T + lat[ins]
                reg_prod[g, dst[p]] = ins
        own = T + slots
        if bpen[ins] > 0.0:          # a conditional branch resolves before the next fetch
            own = T + bpen[ins]
        # ---- advance past this and any free instructions (not past the warp's end) -------
        nxt = ins + 1
        while True:
            if nxt == sl_bend[g]:
                e = sl_e[g] + 1
                sl_e[g] = e
                nxt = e_first[e]
                sl_bend[g] = e_end[e]
            if kind[nxt] != isa.FREE:
                break
            ready = own
            fp = -1
            for p in range(src_ptr[nxt], src_ptr[nxt + 1]):
                if reg_ready[g, src[p]] > ready:
                    ready = reg_ready[g, src[p]]
                    fp = reg_prod[g, src[p]]
            for p in range(dst_ptr[nxt], dst_ptr[nxt + 1]):
                reg_ready[g, dst[p]] = ready
                reg_prod[g, dst[p]] = fp
            nxt += 1
        sl_ins[g] = nxt
        sl_own[g] = own
        # the next instruction's sources: when the last is ready, and who produces the first
        # of the latest (selects, not branches: which one it is cannot be predicted)
        s0, s1, s2 = srcs[nxt, 0], srcs[nxt, 1], srcs[nxt, 2]
        r0, r1, r2 = reg_ready[g, s0], reg_ready[g, s1], reg_ready[g, s2]
        p0, p1, p2 = reg_prod[g, s0], reg_prod[g, s1], reg_prod[g, s2]
        ready = 0.0
        sprod = -1
        sprod = p0 if r0 > ready else sprod
        ready = r0 if r0 > ready else ready
        sprod = p1 if r1 > ready else sprod
        ready = r1 if r1 > ready else ready
        sprod = p2 if r2 > ready else sprod
        ready = r2 if r2 > ready else ready
        sl_sprod[g] = sprod
        sl_src[g] = ready
        sl_pp[g] = pipe[nxt]
        sl_c0[g] = max(own, ready)
        greedy = g


@njit(cache=True, nogil=True, _nrt=False)
def _take(w, a, lo):
    """w[:] = a[lo:lo + w.size] (a loop: numba compiles a slice assignment per use, slowly)."""
    for i in range(w.shape[0]):
        w[i] = a[lo + i]


@njit(cache=True, nogil=True, _nrt=False)
def _give(a, w, lo):
    for i in range(w.shape[0]):
        a[lo + i] = w[i]


@njit(cache=True, nogil=True, _nrt=False)
def _take2(w, a, lo):
    """w[:, :] = a[lo:lo + w.shape[0]]"""
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            w[i, j] = a[lo + i, j]


@njit(cache=True, nogil=True, _nrt=False)
def _give2(a, w, lo):
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            a[lo + i, j] = w[i, j]


@njit(cache=True, nogil=True)
def _run_group(k, sps, ts, group, out_t, out_greedy, out_idle, group_stalls, group_smstat, SQ, n_sched,
               n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, issue, srcs, dest, stall_cls,
               e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0,
               sl_pp, reg_ready, reg_prod, pipe_free, pbusy, sp_free, sp_last, sp_slots,
               sp_order):
    """Group ``k``'s share of the private runs of schedulers ``sps``: each from its next
    event's time ``ts``, with no greedy warp, as ``run_private``; results in ``out_*``.
    Scheduler ``sps[j]`` is in group ``group[j]``, whose stalls and per-SM statistics go to
    ``group_stalls`` and ``group_smstat`` [group]. Each run works on a copy of its
    scheduler's state, copied back when it is done: schedulers next to each other share
    cache lines, which threads writing them at once would pass back and forth at every
    issue."""
    # one scheduler's state: scheduler 0, slots 0..SQ-1
    w_e = np.empty(SQ, np.int64)
    w_end = np.empty(SQ, np.int64)
    w_bend = np.empty(SQ, np.int64)
    w_ins = np.empty(SQ, np.int64)
    w_own = np.empty(SQ, np.float64)
    w_src = np.empty(SQ, np.float64)
    w_sprod = np.empty(SQ, np.int64)
    w_c0 = np.empty(SQ, np.float64)
    w_pp = np.empty(SQ, np.int64)
    w_ready = np.empty((SQ, reg_ready.shape[1]), np.float64)
    w_prod = np.empty((SQ, reg_prod.shape[1]), reg_prod.dtype)
    w_pipe_free = np.empty((1, pipe_free.shape[1]), np.float64)
    w_sp_free = np.empty(1, np.float64)
    w_sp_last = np.empty(1, np.int64)
    w_sp_slots = np.empty(1, np.int64)
    w_sp_order = np.empty((1, SQ), np.int64)
    for j in range(sps.size):
        sp = sps[j]
        if group[j] != k:
            continue
        lo = sp * SQ
        _take(w_e, sl_e, lo)
        _take(w_end, sl_end, lo)
        _take(w_bend, sl_bend, lo)
        _take(w_ins, sl_ins, lo)
        _take(w_own, sl_own, lo)
        _take(w_src, sl_src, lo)
        _take(w_sprod, sl_sprod, lo)
        _take(w_c0, sl_c0, lo)
        _take(w_pp, sl_pp, lo)
        _take2(w_ready, reg_ready, lo)
        _take2(w_prod, reg_prod, lo)
        _take2(w_pipe_free, pipe_free, sp)
        w_sp_free[0] = sp_free[sp]
        w_sp_last[0] = sp_last[sp] - lo if sp_last[sp] >= 0 else -1
        w_sp_slots[0] = sp_slots[sp]
        _take2(w_sp_order, sp_order, sp)
        t, greedy, idle, _ = run_private(
            0, sp // n_sched, ts[j], -1, SQ, n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src,
            dst_ptr, dst, issue, srcs, dest, stall_cls, e_first, e_end, w_e, w_end, w_bend,
            w_ins, w_own, w_src, w_sprod, w_c0, w_pp, w_ready, w_prod, w_pipe_free,
            pbusy, w_sp_free, w_sp_last, w_sp_slots, w_sp_order, group_stalls[k],
            group_smstat[k])
        out_t[j] = t
        out_greedy[j] = greedy + lo if greedy >= 0 else -1
        out_idle[j] = idle
        _give(sl_e, w_e, lo)
        _give(sl_bend, w_bend, lo)
        _give(sl_ins, w_ins, lo)
        _give(sl_own, w_own, lo)
        _give(sl_src, w_src, lo)
        _give(sl_sprod, w_sprod, lo)
        _give(sl_c0, w_c0, lo)
        _give(sl_pp, w_pp, lo)
        _give2(reg_ready, w_ready, lo)
        _give2(reg_prod, w_prod, lo)
        _give2(pipe_free, w_pipe_free, sp)
        sp_free[sp] = w_sp_free[0]
        sp_last[sp] = w_sp_last[0] + lo if w_sp_last[0] >= 0 else -1


# run_ahead and run_ahead_waiting are never cached on disk (cache=False): they are compiled
# with the machine, which is. numba saves a broken machine (a segfault at every later load)
# when it compiles the machine against a cached caller of a parallel function, which happens
# whenever machine.py changes alone or two processes compile at once.
@njit(cache=False, nogil=True, parallel=True)
def run_ahead(sps, ts, group, out_t, out_greedy, out_idle, group_stalls, group_smstat, SQ, n_sched,
              n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, issue, srcs, dest, stall_cls,
              e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0,
              sl_pp, reg_ready, reg_prod, pipe_free, pbusy, sp_free, sp_last, sp_slots,
              sp_order):
    """``_run_group`` for every group, on numba's threads."""
    for k in prange(GROUPS):
        _run_group(k, sps, ts, group, out_t, out_greedy, out_idle, group_stalls, group_smstat, SQ, n_sched,
                   n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, issue, srcs, dest, stall_cls,
                   e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0,
                   sl_pp, reg_ready, reg_prod, pipe_free, pbusy, sp_free, sp_last, sp_slots,
                   sp_order)


@njit(cache=False, nogil=True)
def run_ahead_waiting(sp_next, sp_wait, ahead_t, ahead_greedy, ahead_idle, ahead, stalls, smstat, SQ,
                      n_sched, n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, issue, srcs,
                      dest, stall_cls, e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_src,
                      sl_sprod, sl_c0, sl_pp, reg_ready, reg_prod, pipe_free, pbusy, sp_free,
                      sp_last, sp_slots, sp_order, shared):
    """Run ahead (``run_ahead``) every scheduler that waits for its next event (``sp_next``)
    with none of its warps at a barrier (``sp_wait``); the machine calls it once no block is
    left to launch (``shared``: the launch's ``next_shared`` table). Marks them in ``ahead``
    (1) with their results in ``ahead_*``, and adds their stalls and statistics to ``stalls``
    and ``smstat``."""
    n = 0
    for sp in range(sp_next.size):
        if sp_next[sp] < INF and sp_wait[sp] == 0:
            n += 1
    sps = np.empty(n, np.int64)
    n = 0
    for sp in range(sp_next.size):
        if sp_next[sp] < INF and sp_wait[sp] == 0:
            sps[n] = sp
            n += 1
    ts = sp_next[sps]
    # deal the schedulers to the groups, the most work first, each to the group with the
    # least so far (work: the instructions its warps can issue alone), so that the threads
    # finish together
    work = np.zeros(n, np.int64)
    for j in range(n):
        for g in range(sps[j] * SQ, (sps[j] + 1) * SQ):
            if sl_end[g] > sl_e[g]:
                work[j] += private_work(g, sl_ins, sl_e, sl_end, e_first, e_end, shared)
    group = np.empty(n, np.int64)
    load = np.zeros(GROUPS, np.int64)
    for j in np.argsort(-work, kind="mergesort"):
        k = np.argmin(load)
        group[j] = k
        load[k] += work[j]
    out_t = np.empty(n, np.float64)
    out_greedy = np.empty(n, np.int64)
    out_idle = np.empty(n, np.bool_)
    group_stalls = np.zeros((GROUPS,) + stalls.shape, np.float64)
    group_smstat = np.zeros((GROUPS,) + smstat.shape, np.float64)
    if load.sum() >= PARALLEL_ABOVE:
        run_ahead(sps, ts, group, out_t, out_greedy, out_idle, group_stalls, group_smstat, SQ, n_sched,
                  n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, issue, srcs, dest, stall_cls,
                  e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0,
                  sl_pp, reg_ready, reg_prod, pipe_free, pbusy, sp_free, sp_last, sp_slots,
                  sp_order)
    else:          # not worth waking the threads: the same groups, one after another
        for k in range(GROUPS):
            _run_group(k, sps, ts, group, out_t, out_greedy, out_idle, group_stalls, group_smstat, SQ, n_sched,
                       n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, issue, srcs, dest, stall_cls,
                       e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0,
                       sl_pp, reg_ready, reg_prod, pipe_free, pbusy, sp_free, sp_last, sp_slots,
                       sp_order)
    for j in range(n):
        ahead[sps[j]] = 1
        ahead_t[sps[j]] = out_t[j]
        ahead_greedy[sps[j]] = out_greedy[j]
        ahead_idle[sps[j]] = out_idle[j]
    for k in range(GROUPS):
        stalls += group_stalls[k]
        smstat += group_smstat[k]
