"""Global and shared memory of the precise engine: bounds-checked loads, stores and atomics.

Atomics are applied in lane order (lanes of a warp in order, warps in the order the
scheduler runs them), so results are deterministic run to run, and every lane gets the
value its own read-modify-write saw, as if the hardware had serialised them that way.
(Float atomics whose result nothing reads are not applied here but logged and applied in
canonical order when the batch is done: simt/sim/atomic_log.py.)
"""
from __future__ import annotations

import numpy as np

from ...ir.mir import AtomOp, MemRef, Space
from .arith import fmax, fmin


class Storage:
    """One array as the engine sees it: a flat buffer of scalars plus, for shared arrays,
    one window of ``window`` scalars per block of the batch."""

    __slots__ = ("mem", "data", "extent", "window", "shape", "base_addr", "seen_sectors",
                 "batch_sectors", "atomic_counts")

    def __init__(self, mem: MemRef, data: np.ndarray, shape: tuple[int, ...], base_addr: int,
                 window: int = 0):
        self.mem = mem
        self.data = data
        self.shape = shape
        self.base_addr = base_addr
        self.window = window                      # 0 for global arrays
        self.extent = window if window else data.size

    @property
    def is_shared(self) -> bool:
        return self.mem.space is Space.SHARED


LAUNCH_BASE = 0x7F00_0000_0000     # where a launch's first array lies, as a device pointer would
ALIGNMENT = 256                    # cudaMalloc's alignment, which each allocation keeps


def launch_addresses(args: list) -> list[int]:
    """The simulated device address of each ArrayArg for this launch's timing model.

    The caches, the atomic units and the traces see addresses, so they must not depend on
    what the process allocated before (a bump allocator hands out ``a.ptr``): each distinct
    allocation gets a place of its own, in the order the arguments first name it, 256-byte
    aligned as cudaMalloc's are; views of one allocation keep their offsets in it, so
    aliasing and shared cache lines are as they would be on the device.
    """
    starts = [a.base_addr if a.allocation is None else a.allocation for a in args]
    reach: dict[int, int] = {}           # bytes of each allocation the launch's arrays reach
    for a, start in zip(args, starts):
        reach[start] = max(reach.get(start, 0), a.base_addr - start + a.data.nbytes)
    placed: dict[int, int] = {}
    at = LAUNCH_BASE
    for start, nbytes in reach.items():  # in the order the arguments first name them
        placed[start] = at
        at += max(ALIGNMENT, -(-nbytes // ALIGNMENT) * ALIGNMENT)
    return [placed[start] + a.base_addr - start for a, start in zip(args, starts)]


def out_of_bounds(idx, width: int, extent: int) -> np.ndarray:
    i = np.asarray(idx, dtype=np.int64)
    return (i < 0) | (i + width > extent)


def atomic(data: np.ndarray, flat: np.ndarray, op: AtomOp, vals, cmp=None) -> np.ndarray:
    """Apply one atomic per lane in lane order; return the old value each lane saw."""
    n = flat.size
    dtype = data.dtype
    vals = np.broadcast_to(np.asarray(vals, dtype=dtype), (n,))
    if cmp is not None:
        cmp = np.broadcast_to(np.asarray(cmp, dtype=dtype), (n,))
    order = np.argsort(flat, kind="stable")
    addr = flat[order]
    first = np.ones(n, dtype=bool)
    first[1:] = addr[1:] != addr[:-1]
    if first.all():  # every lane has its own address: one vectorised read-modify-write
        old = data[flat].copy()
        data[flat] = _apply(op, old, vals, cmp, dtype)
        return old
    old = np.empty(n, dtype=dtype)
    v_sorted = vals[order]
    if op in (AtomOp.ADD, AtomOp.SUB) and dtype.kind in "iu":
        # integer add wraps, so it is associative: exclusive prefix sums per address group
        delta = v_sorted if op is AtomOp.ADD else (np.zeros((), dtype) - v_sorted).astype(dtype)
        csum = np.cumsum(delta.astype(np.uint64 if dtype.kind == "u" else np.int64))
        group_start = np.flatnonzero(first)
        gid = np.cumsum(first) - 1
        before = np.concatenate(([0], csum[:-1]))
        excl = before - before[group_start][gid]
        init = data[addr[group_start]].astype(csum.dtype)
        old_sorted = (init[gid] + excl).astype(dtype)
        old[order] = old_sorted
        last = np.ones(n, dtype=bool)
        last[:-1] = first[1:]
        data[addr[last]] = (old_sorted[last].astype(csum.dtype) + delta[last].astype(csum.dtype)).astype(dtype)
        return old
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], n)
    for s, e in zip(starts, ends):
        a = addr[s]
        cur = data[a]
        if e - s == 1:
            old[order[s]] = cur
            data[a] = _apply(op, cur, v_sorted[s], None if cmp is None else cmp[order[s]], dtype)
            continue
        lanes = order[s:e]
        if op is AtomOp.CAS:
            for lane in lanes:
                old[lane] = cur
                cur = _apply(op, cur, vals[lane], cmp[lane], dtype)
            data[a] = cur
            continue
        v = v_sorted[s:e]
        if op is AtomOp.EXCH:
            seq = np.concatenate(([cur], v))
        elif op in (AtomOp.MIN, AtomOp.MAX) and dtype.kind == "f":   # ties keep the old value
            seq = np.concatenate(([cur], v)).astype(dtype)
            pick = fmin if op is AtomOp.MIN else fmax
            for k in range(1, seq.size):
                seq[k] = pick(seq[k - 1], seq[k])
        else:  # accumulate is strictly sequential, so float sums round as serial atomics do
            seq = _ACCUMULATE[op].accumulate(np.concatenate(([cur], v)).astype(dtype), dtype=dtype)
        old[lanes] = seq[:-1]
        data[a] = seq[-1]
    return old


_ACCUMULATE = {AtomOp.ADD: np.add, AtomOp.SUB: np.subtract, AtomOp.MIN: np.minimum,
               AtomOp.MAX: np.maximum, AtomOp.AND: np.bitwise_and, AtomOp.OR: np.bitwise_or,
               AtomOp.XOR: np.bitwise_xor}     # integers; float min/max use fmin/fmax


def _apply(op: AtomOp, old, val, cmp, dtype):
    if op is AtomOp.ADD:
        return np.add(old, val, dtype=dtype)
    if op is AtomOp.SUB:
        return np.subtract(old, val, dtype=dtype)
    if op is AtomOp.MIN:
        return fmin(old, val).astype(dtype) if dtype.kind == "f" else np.minimum(old, val)
    if op is AtomOp.MAX:
        return fmax(old, val).astype(dtype) if dtype.kind == "f" else np.maximum(old, val)
    if op is AtomOp.EXCH:
        return np.asarray(val, dtype=dtype).copy() if np.ndim(val) else dtype.type(val)
    if op is AtomOp.CAS:
        return np.where(old == cmp, val, old).astype(dtype)
    if op in (AtomOp.AND, AtomOp.OR, AtomOp.XOR):
        return _ACCUMULATE[op](old, val).astype(dtype)
    raise NotImplementedError(op)
