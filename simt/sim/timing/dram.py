"""The timing machine's DRAM (memsys.py asks it; compiled and inlined into the machine's loop):
one queue at its measured bandwidth, reads and writes, and the latency a read waits, which grows
with the DRAM's recent use (an M/D/1 queue's wait, written bytes counting with a longer service
time: micro5.cu, micro8.cu). What an access costs depends on what comes with it: a lone 64-byte
half of a line, or an atomic's sector, takes the time of a random fetch (dram_access_bytes),
shared with the other lone fetches of its page in the request (dram_page_bytes); written bytes
cost dram_write_cost beside reads, their bytes alone on the drain that writes making room wait
for."""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from .caches import halves
from .indices import (G_DRAM_BUSY, G_DRAM_READ, G_DRAM_WRITE, G_DRAM_WRITE_BUSY, P_DRAM_ACCESS, P_DRAM_BPC,
                      P_DRAM_PAGE, P_DRAM_QUEUE, P_DRAM_WRITE_COST, P_DRAM_WRITE_QUEUE, ST_DRAM_DRAIN, ST_DRAM_FREE,
                      ST_DRAM_READ_USE, ST_DRAM_USE_TIME, ST_DRAM_WRITE_USE, ST_NOW, ST_WB_PAGE)

DRAM_WINDOW = 1000.0  # cycles over which the DRAM's recent use is averaged


@njit(cache=True, nogil=True, _nrt=False)
def dram_cost(burst, access, mates, P, lone=P_DRAM_ACCESS):
    """The DRAM time, in bytes of a stream's reads, of ``burst`` bytes that stand for one
    access of ``access`` bytes (a line's missed sectors or dirty halves: a sampled replay's
    first read stands for part of one). An access of less than dram_access_bytes (a lone
    64-byte half or sector of its line) takes the DRAM for that long, shared with the ``mates``
    lone accesses of its DRAM page that come with it: access + (dram_access_bytes - access) /
    mates (atomic_lines.cu: one-lane loads of lines hashed over 256 MB cost 99 bytes a 64-byte
    fetch on the H200, one-sector updates and stores as much a sector read or written;
    dram_rows.cu: a lane's chunks of 64 B to 4 KB alike; micro.cu scatter_read: one fetch every
    128 bytes of a sweep 71, every 256 bytes 86; a line's two halves together, 64 each). ``lone``:
    the parameter giving a lone access's time (P_DRAM_RMW_ACCESS for a read-modify-write)."""
    if access <= 0.0 or access >= P[lone]:
        return burst
    return burst * (access + (P[lone] - access) / max(1.0, mates)) / access


@njit(cache=True, nogil=True, _nrt=False)
def page_mates(lines_buf, masks_buf, n_lines, i, P):
    """How many of the request's lines in line ``i``'s DRAM page (dram_page_bytes) are lone
    64-byte halves (one half's sectors), as line i is: they share the page's opening."""
    size = int(P[P_DRAM_PAGE])
    page = lines_buf[i] // size
    k = 0
    for j in range(n_lines):
        if lines_buf[j] // size == page and halves(masks_buf[j]) == 1:
            k += 1
    return k


@njit(cache=True, nogil=True, _nrt=False)
def writeback_mates(line, P, state):
    """A line written back (or read before it is) shares its page's opening with the line
    written back before it when both are in one page: the L2 writes its oldest dirty lines back
    in order, a sweep's lines one after another."""
    page = float(line // int(P[P_DRAM_PAGE]))
    same = state[ST_WB_PAGE] == page
    state[ST_WB_PAGE] = page
    return P[P_DRAM_PAGE] if same else 1.0


@njit(cache=True, nogil=True, _nrt=False)
def writeback_wait(written, arrive, state, glob):
    """How long a store or atomic arriving at the L2 at ``arrive`` waits for DRAM: where it
    made room for its dirty sectors by writing dirty lines back (the L2 held its bound of
    dirty data; ``written``: the DRAM's written bytes before it), until the DRAM's queue, those
    writes included, has drained; else not at all. Writes the DRAM cannot keep up with hold
    their warps (atomic_lines.cu: one-lane stores and updates of lines hashed over 256 MB go at
    the pace of DRAM's reads and writes of their sectors, a quarter of the L2's)."""
    if glob[G_DRAM_WRITE] <= written:
        return 0.0
    return max(0.0, state[ST_DRAM_DRAIN] - arrive)


@njit(cache=True, nogil=True, _nrt=False)
def dram_write(nbytes, burst_bytes, P, state, glob):
    busy = burst_bytes * P[P_DRAM_WRITE_COST] / P[P_DRAM_BPC]
    state[ST_DRAM_FREE] = max(state[ST_DRAM_FREE], state[ST_NOW]) + busy    # the queue, at the current time
    # written bytes cost their write cost beside reads (micro.cu stream_copy), their bytes
    # alone where DRAM only writes (stream_write at 256 MB-1 GB writes 2,145 B a cycle on the
    # H200, more than its 2,275 B of reads over the cost): the drain writes wait for
    state[ST_DRAM_DRAIN] = max(state[ST_DRAM_DRAIN], state[ST_NOW]) + burst_bytes / P[P_DRAM_BPC]
    glob[G_DRAM_WRITE] += nbytes
    glob[G_DRAM_BUSY] += busy
    glob[G_DRAM_WRITE_BUSY] += busy
    dram_recent(state[ST_NOW], state)
    state[ST_DRAM_WRITE_USE] += busy / DRAM_WINDOW


@njit(cache=True, nogil=True, _nrt=False)
def dram_recent(now, state):
    """Age the DRAM's recent read and write use to ``now``."""
    if now > state[ST_DRAM_USE_TIME]:
        decay = np.exp(-(now - state[ST_DRAM_USE_TIME]) / DRAM_WINDOW)
        state[ST_DRAM_READ_USE] *= decay
        state[ST_DRAM_WRITE_USE] *= decay
        state[ST_DRAM_USE_TIME] = now


@njit(cache=True, nogil=True, _nrt=False)
def dram_read(nbytes, burst_bytes, arrive, P, state, glob):
    """Queue a DRAM read of ``nbytes`` (occupying DRAM for ``burst_bytes``); return the delay:
    waiting for the DRAM's bandwidth, and the queueing that grows with its recent use:
    rho / (2 (1 - rho)) x a service time, an M/D/1 queue's wait. rho counts the DRAM time
    of reads and writes; the service time is dram_queue_cycles for reads and
    dram_write_queue_cycles for writes, weighted by their recent use (micro8.cu: a read waits
    longer behind writes than behind reads of the same DRAM time)."""
    busy = burst_bytes / P[P_DRAM_BPC]
    start = max(arrive, state[ST_DRAM_FREE])
    state[ST_DRAM_FREE] = start + busy
    state[ST_DRAM_DRAIN] = max(state[ST_DRAM_DRAIN], arrive) + busy
    glob[G_DRAM_READ] += nbytes
    glob[G_DRAM_BUSY] += busy
    # DRAM use over the last ~DRAM_WINDOW cycles
    dram_recent(arrive, state)
    state[ST_DRAM_READ_USE] += busy / DRAM_WINDOW
    reads, writes = state[ST_DRAM_READ_USE], state[ST_DRAM_WRITE_USE]
    use = reads + writes
    rho = min(use, 0.95)
    service = (P[P_DRAM_QUEUE] * reads + P[P_DRAM_WRITE_QUEUE] * writes) / use
    return start - arrive + service * rho / (2.0 * (1.0 - rho))
