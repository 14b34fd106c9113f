"""The scheduler's per-step bookkeeping over every lane, compiled with numba.

Each step needs: which lanes are at the chosen block (mask, count, one bit word per warp)
and, after the block ran, every active lane's next block, whether each warp split, and the
lowest block any lane waits at. In numpy that is a dozen passes over the lanes; here it is
two loops, which keeps the cost of a step small when the work per step is small.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def select_lanes(pc, b, mask, warp_bits, warp_steps):
    """mask = (pc == b); one bit word per warp; count the warps' steps; return active lanes."""
    count = 0
    for w in range(pc.size // 32):
        bits = np.uint32(0)
        base = w * 32
        for lane in range(32):
            here = pc[base + lane] == b
            mask[base + lane] = here
            if here:
                bits |= np.uint32(1) << np.uint32(lane)
        warp_bits[w] = bits
        if bits:
            warp_steps[w] += 1
            c = 0
            x = bits
            while x:
                x &= x - np.uint32(1)
                c += 1
            count += c
    return count


@njit(cache=True, nogil=True)
def jump(pc, mask, target):
    """Active lanes go to ``target``; return the lowest pc of any lane afterwards."""
    low = np.int32(2**31 - 1)
    for i in range(pc.size):
        if mask[i]:
            pc[i] = target
        if pc[i] < low:
            low = pc[i]
    return low


@njit(cache=True, nogil=True)
def branch(pc, mask, taken, t, f, warp_bits):
    """Active lanes go to t where ``taken`` (a full-width bool array), else to f.

    Returns (lowest pc afterwards, warps whose active lanes went both ways).
    """
    low = np.int32(2**31 - 1)
    split = 0
    for w in range(pc.size // 32):
        bits = warp_bits[w]
        base = w * 32
        if bits:
            n_t = 0
            n_f = 0
            for lane in range(32):
                i = base + lane
                if mask[i]:
                    if taken[i]:
                        pc[i] = t
                        n_t += 1
                    else:
                        pc[i] = f
                        n_f += 1
            if n_t and n_f:
                split += 1
        for lane in range(32):
            v = pc[base + lane]
            if v < low:
                low = v
    return low, split


@njit(cache=True, nogil=True)
def jump_and_select(pc, mask, target, warp_bits, warp_steps):
    """``jump`` then ``select_lanes`` for the next block: one call per step."""
    low = jump(pc, mask, target)
    return low, select_lanes(pc, low, mask, warp_bits, warp_steps)


@njit(cache=True, nogil=True)
def branch_and_select(pc, mask, taken, t, f, warp_bits, warp_steps):
    """``branch`` then ``select_lanes`` for the next block: one call per step."""
    low, split = branch(pc, mask, taken, t, f, warp_bits)
    return low, split, select_lanes(pc, low, mask, warp_bits, warp_steps)
