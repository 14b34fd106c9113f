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
  several lanes write one word lands one of them: CUDA defines that);
- a plain write of the value the word already holds from an unordered write is benign
  (compute-sanitizer files it under "information" and does not report it by default).
Keeping only the latest write and two reads per address can miss a hazard whose witness
was overwritten; it never reports one that did not happen.
"""
from __future__ import annotations

import numpy as np
from numba import njit

RAW, WAR, WAW = 0, 1, 2
KINDS = ("RAW", "WAR", "WAW")
LOAD, STORE, ATOMIC = 0, 1, 2

# s64 columns
W_TID, RA_TID, RB_TID, W_CALL, W_VAL = range(5)
# s32 columns
W_EP, W_WEP, W_INS, W_ATOM, RA_EP, RA_WEP, RA_INS, RB_EP, RB_WEP, RB_INS = range(10)


def new_shadow(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty shadow rows for ``size`` scalars: no thread has touched any of them."""
    s64 = np.zeros((size, 5), dtype=np.int64)
    s64[:, W_TID] = s64[:, RA_TID] = s64[:, RB_TID] = -1
    return s64, np.zeros((size, 10), dtype=np.int32)


def new_tally(n_instrs: int) -> tuple[np.ndarray, np.ndarray]:
    """Hazard counts per (kind, earlier instruction, later instruction) and the first example
    of each: (address, earlier thread, later thread)."""
    counts = np.zeros((3, n_instrs, n_instrs), dtype=np.int64)
    examples = np.full((3, n_instrs, n_instrs, 3), -1, dtype=np.int64)
    return counts, examples


@njit(cache=True, nogil=True, inline="always")
def _unordered(p_tid, p_ep, p_wep, c_tid, c_ep, c_wep, lanes_per_cta):
    if p_tid < 0 or p_tid == c_tid:
        return False
    if p_tid // lanes_per_cta != c_tid // lanes_per_cta:
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
                warp_epoch, s64, s32, counts, examples):
    """Check then record one instruction's accesses: ``addr[k]`` by batch lane ``lanes[k]``.

    ``op``: LOAD, STORE or ATOMIC; ``vals``: a store's value bits per lane; ``ins``: the
    instruction's index; ``call``: this execution's serial number; ``tid_base``: the launch-wide
    thread id of batch lane 0; ``cta_epoch``/``warp_epoch``: barriers per block / syncwarps per
    warp so far, indexed by block / warp within the batch.
    """
    for k in range(addr.size):
        a = addr[k]
        lane = lanes[k]
        tid = tid_base + lane
        ep = cta_epoch[lane // lanes_per_cta]
        wep = warp_epoch[lane >> 5]
        w_tid = s64[a, W_TID]
        if op == LOAD:
            if _unordered(w_tid, s32[a, W_EP], s32[a, W_WEP], tid, ep, wep, lanes_per_cta):
                _hit(counts, examples, RAW, s32[a, W_INS], ins, a, w_tid, tid)
            if s64[a, RA_TID] != tid:    # keep the two latest reads by different threads
                s64[a, RB_TID] = s64[a, RA_TID]
                s32[a, RB_EP] = s32[a, RA_EP]
                s32[a, RB_WEP] = s32[a, RA_WEP]
                s32[a, RB_INS] = s32[a, RA_INS]
                s64[a, RA_TID] = tid
            s32[a, RA_EP] = ep
            s32[a, RA_WEP] = wep
            s32[a, RA_INS] = ins
            continue
        if _unordered(w_tid, s32[a, W_EP], s32[a, W_WEP], tid, ep, wep, lanes_per_cta):
            one_access = (w_tid >> 5) == (tid >> 5) and s64[a, W_CALL] == call
            if not one_access:
                w_atomic = s32[a, W_ATOM] != 0
                if op == ATOMIC:
                    if not w_atomic:
                        _hit(counts, examples, WAW, s32[a, W_INS], ins, a, w_tid, tid)
                elif w_atomic or s64[a, W_VAL] != vals[k]:
                    _hit(counts, examples, WAW, s32[a, W_INS], ins, a, w_tid, tid)
        r_tid = s64[a, RA_TID]
        if _unordered(r_tid, s32[a, RA_EP], s32[a, RA_WEP], tid, ep, wep, lanes_per_cta):
            _hit(counts, examples, WAR, s32[a, RA_INS], ins, a, r_tid, tid)
        else:
            r_tid = s64[a, RB_TID]
            if _unordered(r_tid, s32[a, RB_EP], s32[a, RB_WEP], tid, ep, wep, lanes_per_cta):
                _hit(counts, examples, WAR, s32[a, RB_INS], ins, a, r_tid, tid)
        s64[a, W_TID] = tid
        s64[a, W_CALL] = call
        s64[a, W_VAL] = vals[k] if op == STORE else 0
        s32[a, W_EP] = ep
        s32[a, W_WEP] = wep
        s32[a, W_INS] = ins
        s32[a, W_ATOM] = 1 if op == ATOMIC else 0
