"""Racecheck's shadow memory: per address, the last write and the two latest reads.

Each scalar of an array the kernel touches gets a row in two tables: ``s64`` (thread ids,
the write's instruction instance and value bits) and ``s32`` (barrier epoch, warp epoch and
instruction of each access, whether the write was atomic). Every access of every active
lane is checked, in lane order, against that row, then recorded in it; the loop is numba
so the cost per access stays a few nanoseconds and checking stays within a small factor of
the engine's own cost.

Two accesses race when they touch the same address from different threads, at least one
writes, neither is ordered before the other, and they are not both atomic:
- threads of different blocks are never ordered (global memory; a launch has no grid sync);
- threads of one block are ordered by a barrier between them (the block's barrier epoch);
- lanes of one warp also need a ``syncwarp`` between them (the warp's epoch): Volta and
  later do not keep a warp in lockstep, so reconvergence orders nothing;
- lanes of one warp in one instruction instance are one access, not two (a store where
  several lanes write one word lands one of them: CUDA defines that); but when those lanes
  store different values, which one lands is unspecified, and simt reports a hazard of its
  own kind, ``WAW_LANES`` (a same-instruction write conflict, which compute-sanitizer does
  not report; equal values and atomics are not one);
- a plain write of the value the word already holds from an unordered write is benign
  (compute-sanitizer files it under "information" and does not report it by default).
Keeping only the latest write and two reads per address can miss a hazard whose witness
was overwritten; it never reports one that did not happen.
"""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

RAW, WAR, WAW, WAW_LANES = 0, 1, 2, 3
KINDS = ("RAW", "WAR", "WAW", "WAW_LANES")
# STORE_PART: a store of part of an element (byte-addressed), whose lanes' values stand for
# unknown bits: it races like a store but cannot show a same-instruction conflict
LOAD, STORE, ATOMIC, STORE_PART = 0, 1, 2, 3

# One 64-byte row per scalar (one cache line): the last write and the two latest reads by
# different threads. Thread ids are stored plus one, so a zeroed row means "untouched";
# an atomic write stores its instruction as -1 - ins.
ROW = np.dtype([("w_tid", np.int32), ("w_ep", np.int32), ("w_wep", np.int32), ("w_ins", np.int32),
                ("ra_tid", np.int32), ("ra_ep", np.int32), ("ra_wep", np.int32), ("ra_ins", np.int32),
                ("rb_tid", np.int32), ("rb_ep", np.int32), ("rb_wep", np.int32), ("rb_ins", np.int32),
                ("w_call", np.int64), ("w_val", np.int64)], align=True)
assert ROW.itemsize == 64


def new_shadow(size: int) -> np.ndarray:
    """Empty shadow rows for ``size`` scalars: no thread has touched any of them."""
    return np.zeros(size, dtype=ROW)


def new_tally(n_instrs: int) -> tuple[np.ndarray, np.ndarray]:
    """Hazard counts per (kind, earlier instruction, later instruction) and the first example
    of each: (address, earlier thread, later thread)."""
    counts = np.zeros((len(KINDS), n_instrs, n_instrs), dtype=np.int64)
    examples = np.full((len(KINDS), n_instrs, n_instrs, 3), -1, dtype=np.int64)
    return counts, examples


@njit(cache=True, nogil=True, inline="always")
def _unordered(p_tid, p_ep, p_wep, c_tid, c_ep, c_wep, block_lo, block_hi):
    """``block_lo``..``block_hi``: the thread ids of the current access's block."""
    if p_tid < 0 or p_tid == c_tid:
        return False
    if p_tid < block_lo or p_tid >= block_hi:
        return True                      # different blocks
    if p_ep != c_ep:
        return False                     # a barrier between them
    if (p_tid >> 5) != (c_tid >> 5):
        return True                      # different warps of one block, same epoch
    return p_wep == c_wep                # one warp: ordered only by a syncwarp


@njit(cache=True, nogil=True, inline="always")
def _hit(counts, examples, kind, earlier, later, addr, p_tid, c_tid):
    counts[kind, earlier, later] += 1
    if examples[kind, earlier, later, 0] < 0:
        examples[kind, earlier, later, 0] = addr
        examples[kind, earlier, later, 1] = p_tid
        examples[kind, earlier, later, 2] = c_tid


@njit(cache=True, nogil=True)
def race_access(op, addr, lanes, vals, ins, call, tid_base, lanes_per_cta, cta_epoch,
                warp_epoch, rows, counts, examples):
    """Check then record one instruction's accesses: ``addr[k]`` by batch lane ``lanes[k]``.

    ``op``: LOAD, STORE, STORE_PART or ATOMIC; ``vals``: a store's value bits per lane; ``ins``: the
    instruction's index; ``call``: this execution's serial number; ``tid_base``: the launch-wide
    thread id of batch lane 0; ``cta_epoch``/``warp_epoch``: barriers per block / syncwarps per
    warp so far, indexed by block / warp within the batch; ``rows``: the array's shadow.
    """
    block_hi = -1                        # lanes come in order: find each block's range once
    block_lo = ep = 0
    for k in range(addr.size):
        a = addr[k]
        lane = lanes[k]
        tid = tid_base + lane
        if tid >= block_hi or tid < block_lo:
            cta = lane // lanes_per_cta
            block_lo = tid_base + cta * lanes_per_cta
            block_hi = block_lo + lanes_per_cta
            ep = cta_epoch[cta]
        wep = warp_epoch[lane >> 5]
        row = rows[a]
        w_tid = row.w_tid - 1
        w_ins = row.w_ins
        w_atomic = w_ins < 0
        if w_atomic:
            w_ins = -1 - w_ins
        if op == LOAD:
            if _unordered(w_tid, row.w_ep, row.w_wep, tid, ep, wep, block_lo, block_hi):
                _hit(counts, examples, RAW, w_ins, ins, a, w_tid, tid)
            if row.ra_tid != tid + 1:    # keep the two latest reads by different threads
                row.rb_tid = row.ra_tid
                row.rb_ep = row.ra_ep
                row.rb_wep = row.ra_wep
                row.rb_ins = row.ra_ins
                row.ra_tid = tid + 1
            row.ra_ep = ep
            row.ra_wep = wep
            row.ra_ins = ins
            continue
        if _unordered(w_tid, row.w_ep, row.w_wep, tid, ep, wep, block_lo, block_hi):
            one_access = (w_tid >> 5) == (tid >> 5) and row.w_call == call
            if one_access:
                if op == STORE and not w_atomic and row.w_val != vals[k]:
                    _hit(counts, examples, WAW_LANES, w_ins, ins, a, w_tid, tid)
            else:
                if op == ATOMIC:
                    if not w_atomic:
                        _hit(counts, examples, WAW, w_ins, ins, a, w_tid, tid)
                elif w_atomic or row.w_val != vals[k]:
                    _hit(counts, examples, WAW, w_ins, ins, a, w_tid, tid)
        r_tid = row.ra_tid - 1
        if _unordered(r_tid, row.ra_ep, row.ra_wep, tid, ep, wep, block_lo, block_hi):
            _hit(counts, examples, WAR, row.ra_ins, ins, a, r_tid, tid)
        else:
            r_tid = row.rb_tid - 1
            if _unordered(r_tid, row.rb_ep, row.rb_wep, tid, ep, wep, block_lo, block_hi):
                _hit(counts, examples, WAR, row.rb_ins, ins, a, r_tid, tid)
        row.w_tid = tid + 1
        row.w_call = call
        row.w_val = vals[k] if op != ATOMIC else 0
        row.w_ep = ep
        row.w_wep = wep
        row.w_ins = -1 - ins if op == ATOMIC else ins
