"""LD, ST and ATOM through byte addresses (MIR ``Pointer`` arguments): kernels imported from PTX.

An address is resolved per active lane to one array: a global array of the launch (by the
device address the launch gave it, simt/sim/precise/memory.py) or a shared allocation of the
lane's own block (by its offset in the shared window). Accesses must lie wholly inside one
array and be aligned to their size, as on the GPU; otherwise OutOfBoundsError names the
nearest array. The data moves through a typed view of the array's bytes, so a kernel may
read a float array as u32 (as PTX does when it shuffles floats).

The memory counters and the timing model see the same addresses as for indexed accesses
(``Batch.record_memory`` with the access's element size).
"""
from __future__ import annotations

import numpy as np

from ...errors import KernelRuntimeError, OutOfBoundsError
from ...ir.mir import GENERIC_LOCAL_BASE, GENERIC_SHARED_BASE, AtomArg, Instr, MemRef, Pointer, Space
from .memory import Storage, atomic

SHARED_WINDOW = 1 << 32       # generic addresses this far from GENERIC_SHARED_BASE (_LOCAL_BASE) on


LOCAL_ADDRESS = 0x7E00_0000_0000   # where the counters see threads' local windows (one after another)


class AddressMap:
    """The arrays a batch can reach by address: global ones by device address, shared ones
    by offset in a block's window, local ones by offset in a thread's window."""

    def __init__(self, ctx):
        storage = ctx.storage
        glob = sorted((st for st in storage.values() if not st.is_shared), key=lambda st: st.base_addr)
        self.globals = glob
        self.g_start = np.array([st.base_addr for st in glob], dtype=np.int64)
        self.g_end = np.array([st.base_addr + st.data.nbytes for st in glob], dtype=np.int64)
        shared = sorted((st for st in storage.values() if st.is_shared), key=lambda st: st.mem.offset)
        self.shared = shared
        self.s_start = np.array([st.mem.offset for st in shared], dtype=np.int64)
        self.s_end = np.array([st.mem.offset + st.mem.size * st.mem.elem.nbytes for st in shared],
                              dtype=np.int64)
        # a thread's local arrays: one window of local_bytes per lane of the batch
        local = sorted(ctx.prog.fn.local, key=lambda m: m.offset)
        self.local_bytes = max((m.offset + m.size * m.elem.nbytes for m in local), default=0)
        self.local = []
        for m in local:
            st = Storage(m, np.zeros(ctx.n_lanes * m.size, dtype=m.elem.np), m.shape,
                         LOCAL_ADDRESS + m.offset, window=m.size)
            if ctx.isolated:
                st.seen_sectors = np.zeros(ctx.n_lanes * self.local_bytes // 32 + 2, dtype=bool)
                st.batch_sectors = np.zeros_like(st.seen_sectors)
            self.local.append(st)
        self.l_start = np.array([m.offset for m in local], dtype=np.int64)
        self.l_end = np.array([m.offset + m.size * m.elem.nbytes for m in local], dtype=np.int64)
        self.local_storage = dict(zip(local, self.local))


def address_map(ctx) -> AddressMap:
    m = getattr(ctx, "_address_map", None)
    if m is None:
        m = ctx._address_map = AddressMap(ctx)
    return m


def _typed(st: Storage, dtype: np.dtype) -> np.ndarray:
    """The array's bytes as elements of ``dtype`` (whole elements only)."""
    raw = st.data.view(np.uint8)
    return raw[:raw.size - raw.size % dtype.itemsize].view(dtype)


class _Resolved:
    """Where the active lanes' accesses land: one storage, the typed element index per lane."""

    def __init__(self, st: Storage, elem: np.ndarray, idx: np.ndarray):
        self.st, self.elem, self.idx = st, elem, idx


def resolve(ctx, ins: Instr, ptr: Pointer, addr_value, width: int):
    """Resolve the active lanes' addresses (compact order) for an access of ``width`` elements:
    (resolved, the storage number of each lane, the storages)."""
    n = ctx.n_active
    addr = np.broadcast_to(np.asarray(ctx.pick(addr_value)).astype(np.uint64).astype(np.int64), (n,))
    esize = ptr.elem.nbytes
    amap = address_map(ctx)
    space = ptr.space
    if space is Space.GENERIC:
        window = {}
        for sp, base in ((Space.SHARED, GENERIC_SHARED_BASE), (Space.LOCAL, GENERIC_LOCAL_BASE)):
            window[sp] = (addr >= base) & (addr < base + SHARED_WINDOW)
        found = [sp for sp, w in window.items() if n and w.all()]
        if found:
            space = found[0]
            addr = addr - (GENERIC_SHARED_BASE if space is Space.SHARED else GENERIC_LOCAL_BASE)
        elif any(w.any() for w in window.values()):
            raise KernelRuntimeError(
                "a generic load or store whose lanes reach different memories (global, shared, "
                "local) at once is not supported in this version", ctx.kernel, ins.loc)
        else:
            space = Space.GLOBAL
    shared, local = space is Space.SHARED, space is Space.LOCAL
    if local:
        starts, ends, stores = amap.l_start, amap.l_end, amap.local
    elif shared:
        starts, ends, stores = amap.s_start, amap.s_end, amap.shared
    else:
        starts, ends, stores = amap.g_start, amap.g_end, amap.globals
    k = np.searchsorted(starts, addr, side="right") - 1
    kk = np.clip(k, 0, max(len(stores) - 1, 0))
    span = width * esize
    inside = (k >= 0) & (addr + span <= ends[kk]) if len(stores) else np.zeros(n, dtype=bool)
    misaligned = addr % span != 0
    bad = ~inside | misaligned
    if np.any(bad):
        _raise_bad(ctx, ins, ptr, addr, width, space, starts, ends, stores, bad, misaligned)
    if n and np.any(kk != kk[0]):
        if ctx.isolated and not shared and not local:
            raise KernelRuntimeError(
                "one global access whose lanes reach several arrays at once is not supported "
                "with the per-warp timeline (traces, clock()) in this version", ctx.kernel, ins.loc)
    first = stores[int(kk[0])] if n else (stores[0] if stores else None)
    if first is None:
        raise KernelRuntimeError("a pointer access with no array to reach", ctx.kernel, ins.loc)
    # element index per lane in units of the access, relative to the first lane's array (the
    # counters read addresses as base + index * size; lanes of other arrays stay correct)
    base = first.mem.offset if shared else first.base_addr
    idx = (addr - base) // esize
    # index into the typed view of each lane's own array (shared: its block's window; local:
    # its own window)
    own = addr - starts[kk]
    if shared or local:
        owner = ctx.cta_of_active() if shared else ctx.sel()
        own = own + owner * (ends - starts)[kk]      # each array's window: its size in bytes
    if local:   # the counters see one window of local_bytes per lane, one after another
        idx = (ctx.sel() * amap.local_bytes + addr - first.mem.offset) // esize
    return _Resolved(first, own // esize, idx), kk, stores


def _raise_bad(ctx, ins, ptr, addr, width, space, starts, ends, stores, bad, misaligned):
    k = int(np.flatnonzero(bad)[0])
    lane = int(ctx.sel()[k])
    arrays = [(st.mem.name, int(a), int(b - a)) for st, a, b in zip(stores, starts, ends)]
    raise_bad_access(ctx.kernel, ins, ptr.elem.nbytes * width, space, int(addr[k]), arrays,
                     bool(misaligned[k] and not bad[k] ^ misaligned[k]), ctx.thread_details(lane))


def raise_bad_access(kernel, ins, span: int, space: Space, a: int, arrays: list, misaligned: bool,
                     details: dict):
    """The OutOfBoundsError of an access of ``span`` bytes at address ``a`` in ``space``
    (every engine's): ``arrays`` are (name, start, bytes) of the arrays of that space,
    ``misaligned``: the access lies inside one but is not aligned to its size."""
    kind = {"ST": "write", "ATOM": "atomic"}.get(ins.op.name, "read")
    where = {Space.SHARED: "shared", Space.LOCAL: "local"}.get(space, "global")
    shown = {Space.SHARED: f"{a} (offset in the block's shared memory)",
             Space.LOCAL: f"{a} (offset in the thread's local memory)"}.get(space, f"0x{a:x}")
    if arrays:
        dist = [s - a if a < s else (a - s - n + 1 if a >= s + n else 0) for _, s, n in arrays]
        name, start, nbytes = arrays[int(np.argmin(dist))]
        array = f"{name}, {nbytes} bytes at 0x{start:x}"
        if start <= a < start + nbytes:
            offset = f"byte {a - start} of it"
        elif a < start:
            offset = f"{start - a} bytes before it"
        else:
            offset = f"{a - start - nbytes} bytes past its end"
    else:
        array, offset = f"none: the launch has no {where} arrays", ""
    what = "misaligned" if misaligned else "out-of-bounds"
    msg = f"{what} {where} {kind} of {span} bytes at address {shown}"
    raise OutOfBoundsError(msg, kernel, ins.loc, array=array,
                           index=f"address {shown}" + (f", {offset}" if offset else ""), **details)


def _groups(kk: np.ndarray):
    """(storage number, positions) of each array the lanes reach: usually one, all of them."""
    if kk.size == 0 or (kk == kk[0]).all():
        return [(int(kk[0]) if kk.size else 0, slice(None))]
    return [(int(g), np.flatnonzero(kk == g)) for g in np.unique(kk)]


def _check(ctx, ins, res, kk, stores, span: int, esize: int, columns=None) -> None:
    """Tell the launch's sanitizers (simt/sim/check) about the access, per array reached."""
    for g, lanes in _groups(kk):
        if stores[g].mem.space is Space.LOCAL:      # a thread's own: no races, zeroed at start
            continue
        ctx.checker.pointer(ctx, ins, stores[g], res.elem[lanes] * esize, span, columns, lanes)


def make_load(ins: Instr, d: list[int], s: list[int]):
    ptr: Pointer = ins.arg
    (a,) = s
    width, dtype = len(d), ptr.elem.np

    def load(env, ctx):
        res, kk, stores = resolve(ctx, ins, ptr, env[a], width)
        if ctx.timed:           # spread only when the counters read it
            ctx.record_memory(ins, res.st, ctx.spread(res.idx, np.int64), width, ptr.elem.nbytes)
        out = [np.empty(ctx.n_active, dtype=dtype) for _ in d]
        if ctx.checker is not None:
            _check(ctx, ins, res, kk, stores, width * ptr.elem.nbytes, ptr.elem.nbytes)
        for g, lanes in _groups(kk):
            view = _typed(stores[g], dtype)
            for c in range(width):
                out[c][lanes] = view[res.elem[lanes] + c]
        for c, r in enumerate(d):
            env[r] = ctx.spread(out[c], dtype)
    return load


def make_store(ins: Instr, s: list[int]):
    ptr: Pointer = ins.arg
    a, vals = s[0], s[1:]
    dtype = ptr.elem.np

    def store(env, ctx):
        res, kk, stores = resolve(ctx, ins, ptr, env[a], len(vals))
        if ctx.timed:           # spread only when the counters read it
            ctx.record_memory(ins, res.st, ctx.spread(res.idx, np.int64), len(vals), ptr.elem.nbytes)
        n = ctx.n_active
        columns = [np.broadcast_to(np.asarray(ctx.pick(env[v])).astype(dtype, copy=False), (n,))
                   for v in vals]
        if ctx.checker is not None:
            _check(ctx, ins, res, kk, stores, len(vals) * ptr.elem.nbytes, ptr.elem.nbytes, columns)
        for g, lanes in _groups(kk):
            view = _typed(stores[g], dtype)
            for c, col in enumerate(columns):     # several lanes, one word: the last lands
                view[res.elem[lanes] + c] = col[lanes]
    return store


def make_atomic(ins: Instr, d: list[int], s: list[int]):
    arg: AtomArg = ins.arg
    ptr: Pointer = arg.mem
    out, a = d[0], s[0]
    cmp_i, val_i = (s[1], s[2]) if len(s) == 3 else (None, s[1])
    dtype = ptr.elem.np

    def atom(env, ctx):
        res, kk, stores = resolve(ctx, ins, ptr, env[a], 1)
        if ctx.timed:           # spread only when the counters read it
            ctx.record_memory(ins, res.st, ctx.spread(res.idx, np.int64), 1, ptr.elem.nbytes)
        n = ctx.n_active
        vals = np.broadcast_to(np.asarray(ctx.pick(env[val_i])).astype(dtype, copy=False), (n,))
        cmp = None
        if cmp_i is not None:
            cmp = np.broadcast_to(np.asarray(ctx.pick(env[cmp_i])).astype(dtype, copy=False), (n,))
        old = np.empty(n, dtype=dtype)
        if ctx.checker is not None:
            _check(ctx, ins, res, kk, stores, ptr.elem.nbytes, ptr.elem.nbytes)
        for g, lanes in _groups(kk):
            old[lanes] = atomic(_typed(stores[g], dtype), np.ascontiguousarray(res.elem[lanes]),
                                arg.op, vals[lanes], None if cmp is None else cmp[lanes])
        env[out] = ctx.spread(old, dtype)
    return atom


def make_addr(ins: Instr, d: list[int]):
    mem: MemRef = ins.arg
    out, dtype = d[0], ins.dsts[0].type.np

    def addr(env, ctx):
        if mem.space in (Space.SHARED, Space.LOCAL):
            env[out] = dtype.type(mem.offset)
        else:
            env[out] = dtype.type(ctx.storage[mem].base_addr)
    return addr
