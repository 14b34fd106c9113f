"""Float atomics in one fixed order: the same bits on every run, core count and CPU engine.

Float addition does not associate, so a float ``atomic_add`` sum depends on the order the
atomics land in. Most kernels use float atomics *fire and forget*
(``wp.atomic_add(out, i, v)`` or ``out[i] += v`` on a global array): nothing in the kernel
reads the value returned, or reads or writes the array otherwise. Such an atomic's effect is
only the final value, so both CPU engines *defer* it: they log (array, element, thread,
value) and apply the log once the launch (the precise engine: each batch of blocks) is
done, in one canonical order per element: by block, then thread (linear index within the
block), then program order within the thread. The fast engine's blocks can then run in
parallel on every core and still give exactly the precise engine's bits.

(Arrays are told apart by parameter: one buffer passed as two parameters, one read and one
atomically updated, is a race on a GPU, and here the reads see no deferred update.)

A float atomic whose old value the kernel uses, or whose array the kernel also loads or
stores (or updates with another kind of atomic), cannot be deferred: it is applied
immediately, in the order each engine runs threads, and the fast engine runs such kernels
on one OS thread (deterministic, but equal to cpu:precise only where both orders agree:
e.g. every thread updating an element once, in straight-line code).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from ..ir.mir import AtomOp, Function, Op, Pointer, Reg, Space

THREADS_PER_BLOCK_KEY = 1024          # a thread's order key: block * 1024 + linear index
_FAMILY = {AtomOp.ADD: "add", AtomOp.SUB: "add", AtomOp.MIN: "min", AtomOp.MAX: "max"}
FAMILY_CODE = {"add": 0, "min": 1, "max": 2}
# integer atomics whose final value is the same in any order within one family
_INT_FAMILY = {AtomOp.ADD: "add", AtomOp.SUB: "add", AtomOp.MIN: "min", AtomOp.MAX: "max",
               AtomOp.AND: "and", AtomOp.OR: "or", AtomOp.XOR: "xor"}


@dataclass
class Plan:
    """Which atomics of a function are deferred, and how each array's log is applied."""
    instrs: set[int] = field(default_factory=set)           # id() of deferred ATOM instructions
    arrays: dict[str, str] = field(default_factory=dict)    # array name -> "add" | "min" | "max"
    immediate_global: bool = False   # other global atomics whose order matters (see parallel_safe)
    # integer arrays updated only by atomics of one family with the old value unused (and
    # nothing else in the kernel reads or writes them): name -> "add" | "min" | "max" | "and" |
    # "or" | "xor". Their final value is the same in any order of the updates.
    int_arrays: dict[str, str] = field(default_factory=dict)
    in_loop: bool = False            # a deferred atomic may run several times per thread

    def deferred(self, ins) -> bool:
        return id(ins) in self.instrs

    def array_index(self, name: str) -> int:
        return list(self.arrays).index(name)


def plan(fn: Function) -> Plan:
    """The deferral plan of ``fn`` (computed once per Function)."""
    cached = getattr(fn, "_atomic_plan", None)
    if cached is not None:
        return cached
    read: set[int] = set()
    for ins in fn.instructions():
        read.update(s.id for s in ins.srcs if isinstance(s, Reg))
    candidates: dict[str, list] = {}
    spoiled: set[str] = set()          # arrays also loaded, stored or updated otherwise
    accessed: set[str] = set()         # arrays loaded or stored
    atomic_arrays: set[str] = set()
    int_families: dict[str, set] = {}  # integer arrays: the families of their atomics
    order_matters = False
    for ins in fn.instructions():
        if ins.op not in (Op.LD, Op.ST, Op.ATOM):
            continue
        mem = ins.arg.mem if ins.op is Op.ATOM else ins.arg
        if isinstance(mem, Pointer):   # an address may reach any array: applied at once, in order
            order_matters |= ins.op is Op.ATOM and mem.space in (Space.GLOBAL, Space.GENERIC)
            continue
        if mem.space is not Space.GLOBAL:
            continue
        if ins.op is not Op.ATOM:
            spoiled.add(mem.name)
            accessed.add(mem.name)
            continue
        atomic_arrays.add(mem.name)
        op = ins.arg.op
        used = ins.dst.id in read
        if mem.elem.is_float and not mem.elem.is_storage and op in _FAMILY and not used:
            candidates.setdefault(mem.name, []).append(ins)
            continue
        spoiled.add(mem.name)
        # integer atomics of one family (add/sub, min, max, and, or or xor) with the old
        # value unused: the final value does not depend on the order; anything else does
        if used or op not in _INT_FAMILY or mem.elem.is_float:
            order_matters = True
        else:
            int_families.setdefault(mem.name, set()).add(_INT_FAMILY[op])
    if any(len(f) > 1 for f in int_families.values()):
        order_matters = True           # e.g. add and or on one array: (x + 1) | 2 != (x | 2) + 1
    if atomic_arrays & accessed:
        order_matters = True           # loads or stores of an atomically updated array
    result = Plan()
    for name, instrs in candidates.items():
        families = {_FAMILY[i.arg.op] for i in instrs}
        if name in spoiled or len(families) != 1:
            order_matters = True
            continue
        result.arrays[name] = families.pop()
        result.instrs.update(id(i) for i in instrs)
    result.immediate_global = order_matters
    result.int_arrays = {name: next(iter(fams)) for name, fams in int_families.items()
                         if len(fams) == 1 and name not in accessed}
    result.in_loop = any(id(ins) in result.instrs for b in _loop_blocks(fn) for ins in b.instrs)
    fn._atomic_plan = result  # type: ignore[attr-defined]
    return result


def _loop_blocks(fn: Function) -> list:
    """Blocks that can reach themselves again (inside some loop)."""
    succ = {b.label: b.successors for b in fn.blocks}
    looped = []
    for b in fn.blocks:
        seen, work = set(), list(succ[b.label])
        while work:
            x = work.pop()
            if x == b.label:
                looped.append(b)
                break
            if x not in seen:
                seen.add(x)
                work.extend(succ[x])
    return looped


def parallel_safe(fn: Function) -> bool:
    """Whether blocks may run on several OS threads without the result depending on timing:
    every global atomic is deferred, or an integer atomic whose old value is unused and whose
    array no other kind of atomic updates (add and sub count as one kind) and nothing loads
    or stores."""
    return not plan(fn).immediate_global


# --- applying a log ------------------------------------------------------------------------------
# The fast engine's log packs the array's index into an address's top bits (addresses are
# below 2**ADDRESS_BITS scalars): one int64 per row, plus the value and, with collectives,
# the thread's key.
ADDRESS_BITS = 48
ADDRESS_MASK = (1 << ADDRESS_BITS) - 1


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _update(data, a, v, family):
    """One logged update, rounded to the array's type as the atomic would round it."""
    old = data[a]
    if family == 0:
        data[a] = old + v
    elif family == 1:
        data[a] = old if (old <= v or v != v) else v      # fmin: a NaN loses
    else:
        data[a] = old if (old >= v or v != v) else v      # fmax


@njit(cache=True, nogil=True, error_model="numpy")
def _apply(data, addr, vals, family):
    for k in range(addr.size):
        _update(data, addr[k], data.dtype.type(vals[k]), family)


@njit(cache=True, nogil=True, error_model="numpy")
def apply_packed(data, packed, vals, which, family):
    """The fast engine's rows for array number ``which``, in the given order."""
    for k in range(packed.size):
        p = packed[k]
        if (p >> ADDRESS_BITS) == which:
            _update(data, p & ADDRESS_MASK, data.dtype.type(vals[k]), family)


def apply(data: np.ndarray, addr: np.ndarray, vals: np.ndarray, keys: np.ndarray,
          family: str) -> None:
    """Apply updates ``vals`` at flat indices ``addr`` of ``data`` in canonical order: by
    ``keys`` (block * 1024 + thread), keeping the given order among equal keys (a thread's
    program order)."""
    if addr.size == 0:
        return
    if np.any(keys[1:] < keys[:-1]):
        order = np.argsort(keys, kind="stable")
        addr, vals = addr[order], vals[order]
    _apply(data, np.ascontiguousarray(addr, dtype=np.int64), np.ascontiguousarray(vals),
           FAMILY_CODE[family])


class BatchLog:
    """The precise engine's log for one batch of blocks (applied when the batch is done)."""

    def __init__(self):
        self.parts: dict[int, tuple] = {}

    def add(self, storage, family: str, flat: np.ndarray, vals: np.ndarray, keys: np.ndarray):
        entry = self.parts.setdefault(id(storage), (storage, family, [], [], []))
        entry[2].append(np.array(flat, dtype=np.int64))
        entry[3].append(np.array(vals))
        entry[4].append(np.array(keys, dtype=np.int64))

    def flush(self) -> None:
        for storage, family, flats, vals, keys in self.parts.values():
            apply(storage.data, np.concatenate(flats), np.concatenate(vals),
                  np.concatenate(keys), family)
        self.parts.clear()
