"""Turn an error record left by compiled code into the exception the precise engine raises.

Compiled code cannot build rich exceptions, so it stores (code, block, thread, instruction,
values) and returns; this module words the error with the precise engine's own
diagnostics, so both engines report the same kernel, line, array, index, thread and block.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import BarrierDivergenceError, StepLimitError, WarpSyncError
from ...ir.mir import AtomArg, MemRef, Space
from ..common import LaunchConfig
from ..precise.diagnostics import Diagnostics, lane_ranges
from .codegen import WAITING, Generated
from ..precise.pointers import raise_bad_access
from .ops import ERR_BARRIER, ERR_CHECK, ERR_OOB, ERR_STEPS, ERR_WARP_SYNC
from .pointers import ERR_PTR


@dataclass
class _ArrayView:
    """What the precise engine's diagnostics read of an array."""
    mem: MemRef
    shape: tuple

    @property
    def is_shared(self) -> bool:
        return self.mem.space is Space.SHARED


class _ArraysByName(dict):
    """Arrays looked up by name: a pass may hand out equal but distinct MemRefs."""

    def __getitem__(self, mem: MemRef) -> _ArrayView:
        return dict.__getitem__(self, mem.name)


class FaultReport(Diagnostics):
    """One failing thread, seen through the precise engine's Diagnostics."""

    def __init__(self, gen: Generated, cfg: LaunchConfig, shapes: dict[str, tuple], record,
                 pointer_args=None):
        self.pointer_args = pointer_args
        self.cfg = cfg
        self.kernel = gen.layout.fn.name
        self.gen = gen
        self.lanes_per_cta = -(-cfg.threads_per_block // 32) * 32
        self.first_cta = 0
        code, cta, thread, instr, *values = (int(x) for x in record)
        self.code, self.values = code, values
        self.lane = cta * self.lanes_per_cta + thread
        self.ins = gen.instrs[instr] if instr >= 0 else None
        self.width = 1
        self.storage = _ArraysByName()
        for mem in [p.mem for p in gen.array_params] + list(gen.layout.fn.shared):
            shape = tuple(mem.shape) if mem.space is Space.SHARED else shapes[mem.name]
            self.storage[mem.name] = _ArrayView(mem, shape)

    def lane_ids(self) -> np.ndarray:
        return np.array([self.lane])

    def raise_error(self, err_state: np.ndarray) -> None:
        ins, v = self.ins, self.values
        yes = np.array([True])
        if self.code == ERR_OOB:
            mem = ins.arg.mem if isinstance(ins.arg, AtomArg) else ins.arg
            self.raise_oob(self.storage[mem], np.array([v[0]]), ins, yes)
        if self.code == ERR_PTR:
            self._pointer(*v[:3])
        if self.code == ERR_CHECK:
            self.raise_check(ins, ins.arg, np.array([v[0]]), np.array([v[1]]), yes)
        if self.code == ERR_WARP_SYNC:
            self._warp_sync(*v[:3])
        if self.code == ERR_BARRIER:
            self._barrier(err_state)
        if self.code == ERR_STEPS:
            self._steps(v[0])
        raise RuntimeError(f"fast engine: unknown error record {self.code}")

    def _pointer(self, address: int, span: int, where: int) -> None:
        space = [Space.GLOBAL, Space.SHARED, Space.LOCAL][where % 4]
        if space is Space.GLOBAL:
            arrays = list(self.pointer_args.arrays) if self.pointer_args else []
        else:
            mems = self.gen.layout.fn.shared if space is Space.SHARED else self.gen.layout.fn.local
            arrays = [(m.name, m.offset, m.size * m.elem.nbytes) for m in mems]
        arrays.sort(key=lambda x: x[1])
        misaligned = where >= 4 and address % span != 0
        raise_bad_access(self.kernel, self.ins, span, space, address, arrays, misaligned,
                         self.thread_details(self.lane))

    def _warp_sync(self, mask: int, missing: int, present: int) -> None:
        lane = self.lane % 32
        if not (mask >> lane) & 1:
            why = f"the calling lane is not in its mask 0x{mask:08x}"
        else:
            lanes = [i for i in range(32) if missing >> i & 1]
            why = (f"mask 0x{mask:08x} names lanes {lane_ranges(lanes)} that did not reach this "
                   f"instruction with lane {lane} (they are inactive on this path)")
        raise WarpSyncError(f"{self.ins.op.name.lower()} sync error: {why}", self.kernel,
                            self.ins.loc, **self.thread_details(self.lane))

    def _barrier(self, err_state: np.ndarray) -> None:
        n = self.cfg.threads_per_block
        status, point, furthest = err_state[0, :n], err_state[1, :n], err_state[2, :n]
        low = int(point[self.lane % self.lanes_per_cta])
        block = self.gen.layout.points[low].block_index
        arrived = np.flatnonzero((status == WAITING) & (point == low))
        missing = np.flatnonzero(((status == WAITING) & (point != low)) | (furthest > block))
        k = int(missing[0])
        if status[k] == WAITING:
            other = self.gen.layout.points[int(point[k])].collective.loc
        else:
            other = self.gen.layout.fn.blocks[int(furthest[k])].instrs[0].loc
        where = f"line {other.line}" if other else "another block"
        cta_base = self.lane - self.lane % self.lanes_per_cta
        details = self.thread_details(cta_base + int(arrived[0]))
        raise BarrierDivergenceError(
            "sync_threads reached by only part of the thread block: "
            f"{arrived.size} threads arrived (linear ids {lane_ranges(arrived.tolist())}), "
            f"{missing.size} did not (linear ids {lane_ranges(missing.tolist())}; the first of "
            f"them is at {where}); a barrier must be reached by every non-exited thread of the "
            "block", self.kernel, self.ins.loc, block=details["block"])

    def _steps(self, segment: int) -> None:
        seg = self.gen.layout.segments[segment] if 0 <= segment < len(self.gen.layout.segments) else None
        loc = None
        if seg is not None:
            first = (seg.instrs or [seg.collective or seg.term])[0]
            loc = first.loc
        raise StepLimitError(
            f"a warp executed more than {self.cfg.max_steps} basic blocks: most likely a loop that "
            "never ends, or one that waits for other threads or takes work they would share (this "
            "engine runs a thread on before the threads after it start, so a spin on a flag they "
            "set never ends and a work queue all goes to the first; cpu:precise interleaves "
            "warps). Raise the limit with simt.set_module_options({'max_steps': N}) if it is "
            "meant to run this long", self.kernel, loc, **self.thread_details(self.lane))
