"""The timing machine's scheduling helpers, compiled: the event heap that orders the
schedulers by the time of their next event, and a scheduler's pick among its warps.
See machine.py for the model they serve.
"""
from __future__ import annotations

import numpy as np
from numba import njit

INF = 1e300


@njit(cache=True, nogil=True, inline="always")
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
        hk[c], hk[i] = hk[i], hk[c]
        hv[c], hv[i] = hv[i], hv[c]
        hn[c], hn[i] = hn[i], hn[c]
        i = c


@njit(cache=True, nogil=True, inline="always")
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
        hk[p], hk[i] = hk[i], hk[p]
        hv[p], hv[i] = hv[i], hv[p]
        hn[p], hn[i] = hn[i], hn[p]
        i = p
    return size + 1


@njit(cache=True, nogil=True, inline="always")
def heap_pop(hk, hv, hn, size):
    key, sp, ver = hk[0], hv[0], hn[0]
    size -= 1
    hk[0], hv[0], hn[0] = hk[size], hv[size], hn[size]
    _sift_down(hk, hv, hn, size, 0)
    return key, sp, ver, size


@njit(cache=True, nogil=True, inline="always")
def mark_slots(q, m, warps_per_cta, sp_slots):
    """Block slot ``q`` of SM ``m`` got a block: its warps' slots count as used from now on."""
    for w in range(warps_per_cta):
        sl = q * warps_per_cta + w
        sp = m * 4 + sl % 4
        sp_slots[sp] = max(sp_slots[sp], sl // 4 + 1)


@njit(cache=True, nogil=True, inline="always")
def pick_warp(sp, SQ, n, base, sl_c0, sl_pp, sl_warp, pipe_free, last, pick_c):
    """The scheduler's look over its warps: (earliest issue time c of any, the warp with it,
    the warp to issue among those ready by ``base``: -1 if none). Ties go to the warp that
    issued last (``last``), then to the oldest (lowest warp id). Written as passes without
    branches on the data (a slot's key: warp id * 32 + position), which the CPU runs faster
    than the equivalent compare-and-keep loop. Slots from ``n`` on have never held a warp."""
    lo = sp * SQ
    pf = pipe_free[sp]
    earliest = INF
    for i in range(n):
        c = max(sl_c0[lo + i], pf[sl_pp[lo + i]])
        pick_c[i] = c
        earliest = min(earliest, c)
    if earliest == INF:                 # no warp, or all at a barrier
        return INF, -1, -1
    none = np.int64(1) << 62
    k_min = none
    k_best = none
    for i in range(n):
        key = sl_warp[lo + i] * 32 + i
        c = pick_c[i]
        k_min = min(k_min, key if c == earliest else none)
        k_best = min(k_best, key if c <= base else none)
    min1_g = lo + k_min % 32
    best = lo + k_best % 32 if k_best != none else -1
    if last >= 0:
        if pick_c[last - lo] == earliest:
            min1_g = last
        if pick_c[last - lo] <= base:
            best = last
    return earliest, min1_g, best
