"""The L2's queue and its table of recent reads (memsys.py asks both; compiled and inlined into
the machine's loop): the queue is a ledger of the L2's work by time, which a request takes from
its arrival on; a read reaching the L2 within timing.l2_merge_window_cycles of another SM's read
of the same sectors is served with it (``merges``)."""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from .indices import G_L2_BUSY, P_L2_READ_BPC, P_L2_REQUEST, ST_L2_FREE


@njit(cache=True, nogil=True, _nrt=False)
def merge_slot(line, n):
    """The row of the recent L2 reads' table (``l2x[7]``: line, arrival, sectors, when its data
    is back) that ``line`` goes in: a hash of it, the table direct-mapped."""
    return int((np.uint64(line) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) % n


@njit(cache=True, nogil=True, _nrt=False)
def merges(table, j, line, need, t, window, most):
    """Whether a read of ``need``'s sectors of ``line`` reaching the L2 at ``t`` is served with
    the read in row ``j``: the same line, arriving within ``window`` cycles of it, and no sector
    that read did not ask for (l2_share.cu, l2_share.py: blocks on S SMs that read the same
    lines at about the same time ask for 34.6M sectors, and the L2 counts 18.0M read sectors
    at S = 2 and 10.3M at S = 132, serving about 2.4 times the sectors a cycle of S = 1)."""
    return (table[j, 0] == float(line) and abs(t - table[j, 1]) <= window
            and (need & ~int(table[j, 2])) == 0 and (most <= 0.0 or table[j, 4] < most))


@njit(cache=True, nogil=True, _nrt=False)
def l2_queue(nbytes, bpc, arrive, state, glob, ledger):
    return l2_busy(nbytes / bpc, arrive, state, glob, ledger)


L2_SPAN = 16.0            # cycles: the L2 queue's ledger counts its work in spans this long


@njit(cache=True, nogil=True, _nrt=False)
def l2_take(busy, arrive, ledger):
    """The L2's queue as a ledger of its work by time: ``ledger[0, k]`` the cycles of work
    taken in span ``k`` (``L2_SPAN`` cycles from ``k * L2_SPAN``), ``ledger[1, k]`` which span
    the slot holds (a ring). A request arriving at ``arrive`` takes the room left in the spans
    from its own on: it waits for the work that came before it in time, not for work the
    machine happened to look at first that arrives later (schedulers run ahead of each other,
    and an SM's tag stage holds its own requests back). A single "free from" time made every
    SM wait behind the latest arrival any SM had made, and a steady loop of scattered stores
    on a few busy SMs cost more a step the longer it ran. Returns when its service starts."""
    n = ledger.shape[1]
    k = int(arrive // L2_SPAN)
    start = -1.0
    left = busy
    while True:
        j = k % n
        if ledger[1, j] != k:           # a span not used since the ring came round: empty
            ledger[1, j] = k
            ledger[0, j] = 0.0
        room = L2_SPAN - ledger[0, j]
        if room > 1e-9:
            if start < 0.0:
                start = max(arrive, k * L2_SPAN + ledger[0, j])
            take = min(room, left)
            ledger[0, j] += take
            left -= take
            if left <= 1e-9:
                return start
        k += 1


@njit(cache=True, nogil=True, _nrt=False)
def hit_busy(n_sectors, P):
    """The L2's time for a hit of ``n_sectors``: its bytes, and at least a request's time
    (l2_sharing.cu: random one-sector hits from every SM come back at about half the rate of
    sectors streamed)."""
    return max(n_sectors * 32.0 / P[P_L2_READ_BPC], P[P_L2_REQUEST])


@njit(cache=True, nogil=True, _nrt=False)
def l2_busy(busy, arrive, state, glob, ledger):
    """A request of ``busy`` L2 cycles arriving at ``arrive``: its wait in the L2's queue
    (``ST_L2_FREE``: when the last work taken ends)."""
    start = l2_take(busy, arrive, ledger)
    state[ST_L2_FREE] = max(state[ST_L2_FREE], start + busy)
    glob[G_L2_BUSY] += busy
    return start - arrive
