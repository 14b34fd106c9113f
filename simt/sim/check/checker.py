"""The checker the precise engine calls while it runs a launch with ``check=...``.

It is a listener, like the trace writer: the engine calls ``load``/``store``/``atomic``
for every memory instruction (with every active lane's offset), ``barrier`` and
``syncwarp`` when lanes synchronise, and ``divergent_barrier``/``warp_sync_error`` instead of
raising when synccheck is on. ``finish`` turns what it tallied into Hazard reports.

- racecheck: shadow rows per address (shadow.py), global arrays for the whole launch,
  shared arrays per batch of blocks.
- initcheck: one flag per scalar, "never written": every shared array at block start, and
  arrays made by ``simt.empty`` that no launch or host code wrote yet (the flags live on
  the array, so a later launch knows what an earlier one wrote). Such memory is poisoned
  first (NaN with payload 0xDEAD for floats (a NaN for float16/bfloat16), 0xDEADBEEF... for integers) so results that
  depend on it look wrong, as they would on a GPU.
- synccheck: the engine's divergent-barrier and warp-mask checks, recorded instead of raised.
"""
from __future__ import annotations

import numpy as np

from ...errors import SimtError
from ...ir.mir import MEMORY, AtomArg, Instr, MemRef, Op, Space
from ...ir.types import Scalar
from ..precise.diagnostics import describe_thread, lane_ranges
from .report import Hazard, describe_array, describe_index
from .shadow import ATOMIC, KINDS, LOAD, STORE, STORE_PART, new_shadow, new_tally, race_access

_NO_VALUES = np.zeros(0, dtype=np.int64)


def poison_value(elem: Scalar):
    """The value uninitialised memory holds in check mode: easy to spot, wrong in arithmetic.
    float16 and bfloat16 get NaNs too (bfloat16 is held as its bits)."""
    if elem is Scalar.BF16:
        return np.uint16(0x7FDE)
    dtype = np.dtype(elem.np)
    if dtype == np.float16:
        return np.array(0x7EAD, np.uint16).view(np.float16)[()]
    if dtype == np.float32:
        return np.array(0x7FC0DEAD, np.uint32).view(np.float32)[()]
    if dtype == np.float64:
        return np.array(0x7FF8DEADDEADDEAD, np.uint64).view(np.float64)[()]
    if dtype == np.bool_:
        return np.bool_(True)
    return np.array(0xDEADBEEFDEADBEEF, np.uint64).astype(dtype)[()]


def _bits(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Store values as int64 bit patterns, so "the same value" means the same bits."""
    v = np.ascontiguousarray(values, dtype=dtype)
    if dtype.itemsize == 8:
        return v.view(np.int64)
    return v.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[dtype.itemsize]).astype(np.int64)


def _mem_of(ins: Instr) -> MemRef:
    return ins.arg.mem if isinstance(ins.arg, AtomArg) else ins.arg


class Checker:
    def __init__(self, prog, cfg, globals_: dict, args: list):
        fn = prog.fn
        self.cfg, self.kernel = cfg, fn.name
        self.race, self.init, self.sync = ("race" in cfg.checks, "init" in cfg.checks,
                                           "sync" in cfg.checks)
        self.lanes_per_cta = -(-cfg.threads_per_block // 32) * 32
        if cfg.num_blocks * self.lanes_per_cta >= (1 << 31) - 1:
            raise SimtError(f"kernel '{fn.name}': check= handles launches of fewer than 2**31 "
                            f"threads (shadow memory keeps 32-bit thread ids)")
        self.instrs = [ins for ins in fn.instructions() if ins.op in MEMORY]
        self.index = {id(ins): k for k, ins in enumerate(self.instrs)}
        self.counts, self.examples = new_tally(len(self.instrs))
        self.init_counts = np.zeros(len(self.instrs), dtype=np.int64)
        self.init_first = np.full((len(self.instrs), 2), -1, dtype=np.int64)   # address, thread
        self.shapes: dict[MemRef, tuple] = {}
        self.shadow: dict[MemRef, np.ndarray] = {}
        # arrays no instruction writes cannot race: their loads need no shadow
        self.written = {_mem_of(ins).name for ins in self.instrs if ins.op is not Op.LD}
        self.unwritten: dict[MemRef, np.ndarray] = {}   # True where no one wrote the scalar yet
        self.sync_hazards: list[Hazard] = []
        self.calls = 0
        self.reached: dict[int, MemRef] = {}    # pointer accesses: the array each one reached
        self.shared = list(fn.shared)
        for p, a in zip(fn.params, args):
            mem = getattr(p, "mem", None)
            if mem is None:
                continue
            self.shapes[mem] = tuple(a.shape)
            mask = getattr(a, "unwritten", None)
            if self.init and mask is not None and mask.any():
                st = globals_[mem]
                st.data[mask] = poison_value(mem.elem)
                self.unwritten[mem] = mask

    # ---- batches ------------------------------------------------------------------------
    def batch_started(self, batch) -> None:
        self.tid_base = batch.first_cta * self.lanes_per_cta
        self.cta_epoch = np.zeros(batch.n_ctas, dtype=np.int32)
        self.warp_epoch = np.zeros(batch.n_lanes // 32, dtype=np.int32)
        for mem in self.shared:
            st = batch.storage[mem]
            self.shapes[mem] = tuple(mem.shape)
            if self.race:
                self.shadow[mem] = new_shadow(st.data.size)
            if self.init:
                self.unwritten[mem] = np.ones(st.data.size, dtype=bool)
                st.data[:] = poison_value(mem.elem)

    def barrier(self, batch) -> None:
        """The blocks with lanes at this barrier start a new epoch."""
        arrived = np.bincount(batch.cta_local[batch.mask], minlength=batch.n_ctas) > 0
        self.cta_epoch[arrived] += 1

    def syncwarp(self, batch) -> None:
        self.warp_epoch[batch.warp_bits != 0] += 1

    # ---- memory -------------------------------------------------------------------------
    def _active(self, batch, flat) -> np.ndarray:
        n = batch.count
        return np.ascontiguousarray(np.broadcast_to(batch.pick(flat), (n,)), dtype=np.int64)

    def _rows(self, st):
        rows = self.shadow.get(st.mem)
        if rows is None:
            rows = self.shadow[st.mem] = new_shadow(st.data.size)
        return rows

    def _race(self, op, st, k, addr, lanes, vals) -> None:
        assert lanes.size == addr.size and (op in (LOAD, ATOMIC) or vals.size == addr.size)
        race_access(op, addr, lanes, vals, k, self.calls, self.tid_base, self.lanes_per_cta,
                    self.cta_epoch, self.warp_epoch, self._rows(st), self.counts, self.examples)

    def _read_unwritten(self, k: int, mask: np.ndarray, addr: np.ndarray, lanes: np.ndarray) -> None:
        bad = mask[addr]
        if not bad.any():
            return
        self.init_counts[k] += int(np.count_nonzero(bad))
        if self.init_first[k, 0] < 0:
            j = int(np.argmax(bad))
            self.init_first[k] = (addr[j], self.tid_base + int(lanes[j]))

    def load(self, batch, ins: Instr, st, flat, width: int) -> None:
        k = self.index[id(ins)]
        addr, lanes = self._active(batch, flat), batch.sel()
        self.calls += 1
        mask = self.unwritten.get(st.mem)
        for c in range(width):
            a = addr + c if c else addr
            if mask is not None:
                self._read_unwritten(k, mask, a, lanes)
            if self.race and st.mem.name in self.written:
                self._race(LOAD, st, k, a, lanes, _NO_VALUES)

    def store(self, batch, ins: Instr, st, flat, values: list) -> None:
        k = self.index[id(ins)]
        addr, lanes = self._active(batch, flat), batch.sel()
        self.calls += 1
        mask = self.unwritten.get(st.mem)
        for c, v in enumerate(values):
            a = addr + c if c else addr
            if self.race:
                v = np.broadcast_to(v, (a.size,))      # a constant is one value for every lane
                self._race(STORE, st, k, a, lanes, _bits(v, st.data.dtype))
            if mask is not None:
                mask[a] = False

    def atomic(self, batch, ins: Instr, st, active_flat) -> None:
        """``active_flat``: the active lanes' offsets (the atomic op has picked them already)."""
        k = self.index[id(ins)]
        addr, lanes = np.ascontiguousarray(active_flat, dtype=np.int64), batch.sel()
        self.calls += 1
        mask = self.unwritten.get(st.mem)
        if mask is not None:
            self._read_unwritten(k, mask, addr, lanes)
            mask[addr] = False
        if self.race:
            self._race(ATOMIC, st, k, addr, lanes, _NO_VALUES)

    def pointer(self, batch, ins: Instr, st, own: np.ndarray, span: int, values=None,
                where=slice(None)) -> None:
        """A byte-addressed access (simt/sim/precise/pointers.py) of ``span`` bytes at byte
        ``own`` (per active lane) of ``st``'s data: checked per element of that data, which an
        access may cover several of (four bytes of a shared window) or part of (a byte of a
        float array). ``values``: a store's columns; ``where``: the active lanes (positions) that
        reach ``st``."""
        k = self.index[id(ins)]
        self.reached[k] = st.mem
        lanes = batch.sel()[where]
        own = np.ascontiguousarray(np.broadcast_to(own, (lanes.size,)), dtype=np.int64)
        size = st.data.dtype.itemsize
        op = ATOMIC if ins.op is Op.ATOM else STORE if ins.op is Op.ST else LOAD
        raw = None
        if values is not None and size <= span:         # the stored bytes, per lane
            raw = np.concatenate([np.ascontiguousarray(np.broadcast_to(v, (batch.count,))[where])
                                  .view(np.uint8).reshape(lanes.size, -1) for v in values], axis=1)
        self.calls += 1
        mask = self.unwritten.get(st.mem)
        for c in range(max(1, span // size)):
            a = own // size + c
            if mask is not None and op != STORE:
                self._read_unwritten(k, mask, a, lanes)
            if self.race:
                vals = _NO_VALUES
                kind = op
                if op == STORE and raw is not None:
                    vals = _bits(raw[:, c * size:(c + 1) * size].copy().view(st.data.dtype).ravel(),
                                 st.data.dtype)
                elif op == STORE:     # a part-element store: its bits unknown, each lane differs
                    vals, kind = lanes.astype(np.int64) + 1, STORE_PART
                self._race(kind, st, k, a, lanes, vals)
            if mask is not None and op != LOAD:
                mask[a] = False

    # ---- synccheck ----------------------------------------------------------------------
    def divergent_barrier(self, batch, blk, arrived: np.ndarray, missing: np.ndarray, other) -> bool:
        """Record a barrier part of a block skipped; False when synccheck is off (then raise)."""
        if not self.sync:
            return False
        ids = lambda a: lane_ranges((a % batch.lanes_per_cta).tolist())  # noqa: E731
        where = f"line {other.loc.line}" if other.loc else other.label
        detail = (f"sync_threads reached by {arrived.size} threads of the block (linear ids "
                  f"{ids(arrived)}); {missing.size} did not (linear ids {ids(missing)}; the first of "
                  f"them is at {where})")
        self.sync_hazards.append(Hazard(
            "sync", "divergent_barrier", self.kernel, blk.barrier.loc, other.loc,
            thread=batch.thread_details(int(arrived[0])),
            other_thread=batch.thread_details(int(missing[0])), count=int(missing.size),
            detail=detail))
        return True

    def warp_sync_error(self, batch, ins: Instr, lane: int, why: str, count: int) -> bool:
        if not self.sync:
            return False
        self.sync_hazards.append(Hazard(
            "sync", "warp_sync_mask", self.kernel, ins.loc, thread=batch.thread_details(lane),
            count=count, detail=f"{ins.op.name.lower()}: {why}"))
        return True

    # ---- the reports --------------------------------------------------------------------
    def finish(self) -> list[Hazard]:
        hazards = self._race_hazards() + self._init_hazards() + _merge_sync(self.sync_hazards)
        return hazards

    def _thread(self, tid: int) -> dict:
        return describe_thread(self.cfg, self.lanes_per_cta, int(tid))

    def _array(self, k: int) -> MemRef:
        """The array instruction ``k`` reaches (a pointer access: the last one it reached)."""
        return self.reached.get(k) or _mem_of(self.instrs[k])

    def _where(self, mem: MemRef, addr: int):
        shape = self.shapes.get(mem, mem.shape or ())
        space = "shared" if mem.space is Space.SHARED else "global"
        if mem.space is Space.SHARED:
            addr = int(addr) % mem.size          # offset within the block's window
        return describe_array(mem, shape), space, describe_index(mem, shape, addr)

    def _race_hazards(self) -> list[Hazard]:
        merged: dict[tuple, Hazard] = {}
        for kind, earlier, later in zip(*np.nonzero(self.counts)):
            count = int(self.counts[kind, earlier, later])
            addr, p_tid, c_tid = (int(x) for x in self.examples[kind, earlier, later])
            first, second = self.instrs[earlier], self.instrs[later]
            mem = self._array(later)
            array, space, index = self._where(mem, addr)
            key = (KINDS[kind], _line(first), _line(second), mem.name)
            if key in merged:
                merged[key].count += count
                continue
            merged[key] = Hazard("race", KINDS[kind], self.kernel, second.loc, first.loc, mem.name,
                                 space, index, self._thread(c_tid), self._thread(p_tid), count,
                                 self._why(p_tid, c_tid, KINDS[kind]), array)
        return sorted(merged.values(), key=lambda h: (h.other_line or 0, h.line or 0, h.kind))

    def _why(self, a: int, b: int, kind: str = "") -> str:
        if kind == "WAW_LANES":
            return ("lanes of one warp store different values to one element in one instruction: "
                    "which one lands is unspecified (simt's own check; compute-sanitizer does not "
                    "report this)")
        if a // self.lanes_per_cta != b // self.lanes_per_cta:
            return ("the threads are in different blocks: nothing orders them within a launch "
                    "(use atomics, or split the work into two launches)")
        if a >> 5 == b >> 5:
            return ("the threads are lanes of one warp with no syncwarp() between the accesses "
                    "(a warp's lanes are not kept in lockstep since Volta)")
        return "the threads are in one block with no sync_threads() between the accesses"

    def _init_hazards(self) -> list[Hazard]:
        merged: dict[tuple, Hazard] = {}
        for k in np.flatnonzero(self.init_counts):
            ins = self.instrs[k]
            mem = self._array(k)
            addr, tid = self.init_first[k]
            array, space, index = self._where(mem, addr)
            key = (_line(ins), mem.name)
            if key in merged:
                merged[key].count += int(self.init_counts[k])
                continue
            origin = ("shared memory holds no values when a block starts" if space == "shared" else
                      "the array was made by simt.empty and nothing wrote this element")
            merged[key] = Hazard("init", "uninitialized_read", self.kernel, ins.loc, None, mem.name,
                                 space, index, self._thread(tid), count=int(self.init_counts[k]),
                                 detail=f"{origin}; in check mode it holds "
                                        f"{_show(poison_value(mem.elem), mem.elem)}", array_desc=array)
        return sorted(merged.values(), key=lambda h: h.line or 0)


def _line(ins: Instr) -> int:
    return ins.loc.line if ins.loc else 0


def _show(value, elem: Scalar) -> str:
    v = np.asarray(value)
    if elem is Scalar.BF16:
        return f"NaN (bfloat16 bits 0x{int(v):04X})"
    if v.dtype.kind == "f":
        bits = v.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[v.dtype.itemsize])
        return f"NaN (bits 0x{int(bits):0{2 * v.dtype.itemsize}X})"
    return repr(v.item())


def _merge_sync(hazards: list[Hazard]) -> list[Hazard]:
    merged: dict[tuple, Hazard] = {}
    for h in hazards:
        key = (h.kind, h.line)
        if key in merged:
            merged[key].count += h.count
        else:
            merged[key] = h
    return list(merged.values())
