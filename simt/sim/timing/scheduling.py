"""The timing machine's scheduling helpers, compiled: the event heap that orders the
schedulers by the time of their next event, where an SM's warp slots sit among its
schedulers, and a scheduler's pick among its warps. See machine.py for the model they serve.

An SM's warp slot ``sl`` (block slot q's warp w is slot q * warps_per_cta + w) is on its
scheduler ``sl % n_sched``, the ``sl // n_sched``-th of that scheduler's SQ slots; the slots
of all schedulers are numbered scheduler by scheduler (``slot_index``).
"""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

INF = 1e300


@njit(cache=True, nogil=True, _nrt=False)
def _swap(hk, hv, hn, i, j):
    """Exchange heap entries ``i`` and ``j`` (time, scheduler, version)."""
    hk[i], hk[j] = hk[j], hk[i]
    hv[i], hv[j] = hv[j], hv[i]
    hn[i], hn[j] = hn[j], hn[i]


@njit(cache=True, nogil=True, _nrt=False)
def _sift_down(hk, hv, hn, size, i):
    """Move entry ``i`` down the heap of ``size`` entries until its children are later."""
    while True:
        l = 2 * i + 1
        if l >= size:
            break
        r = l + 1
        c = r if r < size and hk[r] < hk[l] else l
        if hk[i] <= hk[c]:
            break
        _swap(hk, hv, hn, i, c)
        i = c


@njit(cache=True, nogil=True, _nrt=False)
def heap_push(hk, hv, hn, size, key, sp, ver, sp_ver):
    """Push (key, scheduler, version) on the event heap; return its new size. A full heap is
    first cleared of entries an earlier push superseded (at most one per scheduler is live)."""
    if size == hk.size:
        live = 0
        for i in range(size):
            if hn[i] == sp_ver[hv[i]]:
                hk[live], hv[live], hn[live] = hk[i], hv[i], hn[i]
                live += 1
        size = live
        for start in range(size // 2 - 1, -1, -1):          # heapify
            _sift_down(hk, hv, hn, size, start)
    i = size
    hk[i] = key
    hv[i] = sp
    hn[i] = ver
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] <= hk[i]:
            break
        _swap(hk, hv, hn, i, p)
        i = p
    return size + 1


@njit(cache=True, nogil=True, _nrt=False)
def heap_pop(hk, hv, hn, size):
    key, sp, ver = hk[0], hv[0], hn[0]
    size -= 1
    hk[0], hv[0], hn[0] = hk[size], hv[size], hn[size]
    _sift_down(hk, hv, hn, size, 0)
    return key, sp, ver, size


@njit(cache=True, nogil=True, _nrt=False)
def queue_event(hk, hv, hn, size, sp_next, sp_ver, sp, t):
    """Queue scheduler ``sp``'s next event at ``t``, superseding the one it has; return the
    heap's new size."""
    sp_ver[sp] += 1
    sp_next[sp] = t
    return heap_push(hk, hv, hn, size, t, sp, sp_ver[sp], sp_ver)


@njit(cache=True, nogil=True, _nrt=False)
def wake(hk, hv, hn, size, sp_next, sp_ver, sp, t):
    """Scheduler ``sp`` may have a warp to issue at ``t``: queue its event there unless it
    has an earlier one; return the heap's new size."""
    if t < sp_next[sp]:
        size = queue_event(hk, hv, hn, size, sp_next, sp_ver, sp, t)
    return size


@njit(cache=True, nogil=True, _nrt=False)
def wake_others(hk, hv, hn, size, sp_next, sp_ver, m, n_sched, t, skip):
    """``wake`` every scheduler of SM ``m`` but ``skip`` (-1: none) at ``t``; the heap's size."""
    for sp in range(m * n_sched, (m + 1) * n_sched):
        if sp != skip:
            size = wake(hk, hv, hn, size, sp_next, sp_ver, sp, t)
    return size


@njit(cache=True, nogil=True, _nrt=False)
def scheduler_of(m, sl, n_sched):
    """The scheduler (numbered GPU-wide) of SM ``m``'s warp slot ``sl``."""
    return m * n_sched + sl % n_sched


@njit(cache=True, nogil=True, _nrt=False)
def slot_index(m, sl, n_sched, SQ):
    """Where SM ``m``'s warp slot ``sl`` is in the machine's slot arrays: its scheduler's
    ``SQ`` slots, the ``sl // n_sched``-th of them."""
    return scheduler_of(m, sl, n_sched) * SQ + sl // n_sched


@njit(cache=True, nogil=True, _nrt=False)
def _age(sl_warp, lo, i):
    """Slot ``i`` of the scheduler whose slots start at ``lo``, as the pick orders it: by warp
    id, then slot; empty slots last."""
    w = sl_warp[lo + i]
    return w * 32 + i if w >= 0 else (np.int64(1) << 62) + i


@njit(cache=True, nogil=True, _nrt=False)
def mark_slots(q, m, warps_per_cta, sp_slots, sl_warp, n_sched, SQ, sp_order):
    """Block slot ``q`` of SM ``m`` got a block: its warps' slots count as used from now on,
    and each of the SM's ``n_sched`` schedulers lists its used slots oldest warp first
    (``sp_order``, empty slots last), the order in which the pick looks at them."""
    for w in range(warps_per_cta):
        sl = q * warps_per_cta + w
        sp = scheduler_of(m, sl, n_sched)
        sp_slots[sp] = max(sp_slots[sp], sl // n_sched + 1)
    for sp in range(m * n_sched, (m + 1) * n_sched):
        lo = sp * SQ
        order = sp_order[sp]
        for i in range(sp_slots[sp]):      # insertion sort by age; at most SQ slots
            key = _age(sl_warp, lo, i)
            j = i
            while j > 0:
                o = order[j - 1]
                if _age(sl_warp, lo, o) <= key:
                    break
                order[j] = o
                j -= 1
            order[j] = i


@njit(cache=True, nogil=True, _nrt=False)
def when_ready(sp, g, sl_c0, sl_pp, pipe_free):
    """When the warp in slot ``g`` of scheduler ``sp`` could issue: its own and its sources'
    time (``sl_c0``) or its next instruction's pipe's, whichever is later (the column past the
    last pipe is never busy)."""
    return max(sl_c0[g], pipe_free[sp, sl_pp[g]])


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def hold_pipe(pipe_free, sp, pp, n_pipes, T, busy, stretch):
    """An instruction issued at T takes ``busy`` cycles of pipe ``pp`` of scheduler ``sp``;
    returns nothing, updates when the pipe next takes an instruction (``pipe_free[sp, pp]``,
    what warps wait for) and when its queued work ends (column ``n_pipes + 1 + pp``).

    One MIR instruction can stand for many SASS instructions (a conversion's LOP3, ISETP and
    SEL; a block's address arithmetic): ``stretch`` of its cycles are the part of its pipe
    work beyond its own issue slots, which the GPU spreads over the cycles after it issues,
    one SASS instruction at a time, and other warps' instructions for the pipe go between
    them. The pipe takes the next instruction once the rest of its queue is no more than the
    longest stretch still in it (this one's, or what is left of an earlier one's); its work
    goes on the end of the queue, so the pipe's rate is kept and only the order within a
    burst changes. Without stretch (one SASS instruction, or work within its issue slots) the
    next waits for the queue's end, as a pipe that takes one instruction per interval."""
    e = n_pipes + 1 + pp
    start = max(pipe_free[sp, e], T)
    end = start + busy
    pipe_free[sp, e] = end
    pipe_free[sp, pp] = end - max(stretch, start - T)


@njit(cache=True, nogil=True, _nrt=False)
def pick_warp(sp, SQ, n, base, sl_c0, sl_pp, pipe_free, last, sp_order):
    """The scheduler's look over its warps: (earliest issue time c of any, the warp with it,
    the warp to issue among those ready by ``base``: -1 if none). Ties go to the warp that
    issued last (``last``), then to the oldest (lowest warp id). The look goes oldest first
    (``sp_order``) and stops at the first warp ready by ``base``: that is the one to issue,
    and the earliest time only matters when no warp is ready. Slots from ``n`` on have never
    held a warp."""
    lo = sp * SQ
    c_last = INF
    if last >= 0:
        c_last = when_ready(sp, last, sl_c0, sl_pp, pipe_free)
        if c_last <= base:
            return c_last, last, last
    earliest = INF
    min1_g = -1
    for j in range(n):
        g = lo + sp_order[sp, j]
        if g == last:                   # looked at already, and not ready by base
            continue
        c = when_ready(sp, g, sl_c0, sl_pp, pipe_free)
        if c <= base:
            return c, g, g
        if c < earliest:
            earliest = c
            min1_g = g
    if c_last <= earliest and c_last < INF:     # the earliest, or as early: it wins
        return c_last, last, -1
    if min1_g < 0:                      # no warp, or all at a barrier
        return INF, -1, -1
    return earliest, min1_g, -1
