"""The scheduler's per-step bookkeeping over every lane, compiled with numba.

Each step needs: which lanes are at the chosen block (mask, count, one bit word per warp)
and, after the block ran, every active lane's next block, whether each warp split, and the
lowest block any lane waits at. In numpy that is a dozen passes over the lanes; here it
touches only the warps that ran: each warp's lowest block (``wlow``) is kept up to date, so
the lowest block of the batch is a pass over the warps, and only warps with a lane there
(or that ran this step) are looked at lane by lane.
"""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

_NONE = np.int32(2**31 - 1)


# Bit words are int64 inside (numba would unify mixed uint32/int64 arithmetic to float).

@njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@njit(cache=True, nogil=True, inline="always")
def _warp_low(pc, base):
    low = _NONE
    for lane in range(32):
        low = min(low, pc[base + lane])
    return low


@njit(cache=True, nogil=True)
def start(pc, mask, warp_bits, warp_steps, wlow):
    """Before the first step: every warp's lowest block; select the lowest of all."""
    low = _NONE
    for w in range(pc.size // 32):
        wlow[w] = _warp_low(pc, w * 32)
        if wlow[w] < low:
            low = wlow[w]
    warp_bits[:] = 0
    mask[:] = False
    return low, _select(pc, low, mask, warp_bits, warp_steps, wlow)


@njit(cache=True, nogil=True)
def _select(pc, b, mask, warp_bits, warp_steps, wlow):
    """mask = (pc == b); one bit word per warp; count the warps' steps; return active lanes.
    The mask is true only in warps with bits: those are cleared first, and a warp whose
    lowest block is above ``b`` has no lane at it."""
    count = 0
    for w in range(pc.size // 32):
        base = w * 32
        if warp_bits[w]:
            for lane in range(32):
                mask[base + lane] = False
        if wlow[w] != b:
            warp_bits[w] = 0
            continue
        bits = 0
        for lane in range(32):
            here = pc[base + lane] == b
            mask[base + lane] = here
            bits |= np.int64(here) << lane
        warp_bits[w] = bits
        warp_steps[w] += 1
        count += _popcount(bits)
    return count


@njit(cache=True, nogil=True)
def jump_and_select(pc, mask, target, warp_bits, warp_steps, wlow):
    """Active lanes go to ``target``; select the lowest block any lane is at afterwards.
    Returns (that block, lanes there)."""
    low = _NONE
    for w in range(pc.size // 32):
        bits = np.int64(warp_bits[w])
        if bits:
            base = w * 32
            for lane in range(32):
                if (bits >> lane) & 1:
                    pc[base + lane] = target
            wlow[w] = _warp_low(pc, base)
        low = min(low, wlow[w])
    return low, _select(pc, low, mask, warp_bits, warp_steps, wlow)


@njit(cache=True, nogil=True)
def branch_and_select(pc, mask, taken, t, f, warp_bits, warp_steps, wlow):
    """Active lanes go to t where ``taken`` (a full-width bool array), else to f; select the
    lowest block any lane is at afterwards. Returns (that block, warps whose active lanes
    went both ways, lanes there)."""
    low = _NONE
    split = 0
    for w in range(pc.size // 32):
        bits = np.int64(warp_bits[w])
        if bits:
            base = w * 32
            went = 0                   # the active lanes that took the branch
            for lane in range(32):
                i = base + lane
                on = (bits >> lane) & 1
                yes = np.int64(taken[i]) & on
                pc[i] = (t if yes else f) if on else pc[i]
                went |= yes << lane
            if went != 0 and went != bits:
                split += 1
            wlow[w] = _warp_low(pc, base)
        low = min(low, wlow[w])
    return low, split, _select(pc, low, mask, warp_bits, warp_steps, wlow)
