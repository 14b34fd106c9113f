"""Runtime errors of the precise engine, worded for the user: kernel, line, array, index,
thread and block, in CUDA's terms (threadIdx/blockIdx) and in Warp's (tid)."""
from __future__ import annotations

import numpy as np

from ...errors import BarrierDivergenceError, OutOfBoundsError, StepLimitError, WarpSyncError
from ...ir.mir import CheckArg, Instr, Op
from .memory import Storage


def lane_ranges(lanes: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> '0-2, 5, 7-8'."""
    out, i = [], 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        out.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    s = ", ".join(out)
    return s if len(s) < 120 else s[:117] + "..."


def describe_thread(cfg, lanes_per_cta: int, lane: int) -> dict:
    """threadIdx, blockIdx and Warp's tid of launch-wide lane ``lane`` (block * padded size +
    linear thread index), as the error messages print them."""
    t = lane % lanes_per_cta
    bx, by, _ = cfg.block
    thread = (t % bx, (t // bx) % by, t // (bx * by))
    cta = lane // lanes_per_cta
    gx, gy, _ = cfg.grid
    block = (cta % gx, (cta // gx) % gy, cta // (gx * gy))
    return {"thread": f"threadIdx (x={thread[0]}, y={thread[1]}, z={thread[2]})",
            "block": f"blockIdx (x={block[0]}, y={block[1]}, z={block[2]})",
            "tid": _tid_string(cfg, thread, block)}


def _tid_string(cfg, thread, block) -> str:
    if cfg.sig.block_ndim == 1:
        lin = block[0] * cfg.block[0] + thread[0]
        total = int(np.prod(cfg.dim))
        coords = tuple(int(c) for c in np.unravel_index(lin, cfg.dim)) if lin < total else (lin,)
    else:
        cuda = [block[k] * cfg.block[k] + thread[k] for k in range(3)]
        coords = tuple(cuda[:len(cfg.dim)][::-1])
    return str(coords[0]) if len(coords) == 1 else str(coords)


class Diagnostics:
    """Mixed into the engine's Batch: needs cfg, kernel, lanes_per_cta, first_cta, pc, ..."""

    def thread_details(self, lane: int) -> dict:
        return describe_thread(self.cfg, self.lanes_per_cta, self.first_cta * self.lanes_per_cta + lane)

    def _first_bad(self, bad) -> int:
        """Position (in the current env layout) of the first failing lane."""
        return int(np.flatnonzero(np.broadcast_to(bad, (self.width,)))[0])

    def raise_oob(self, st: Storage, idx, ins: Instr, bad) -> None:
        k = self._first_bad(bad)
        lane = int(self.lane_ids()[k])
        i = int(np.broadcast_to(np.asarray(idx), (self.width,))[k])
        mem = st.mem
        elem = i // mem.ncomp if i >= 0 else i
        where = "shared" if st.is_shared else "global"
        kind = {Op.ST: "write", Op.ATOM: "atomic"}.get(ins.op, "read")
        index = str(elem)
        if elem >= 0 and len(st.shape) > 1:
            index = f"{elem} (flat; the array has {int(np.prod(st.shape))} elements)"
        raise OutOfBoundsError(
            f"out-of-bounds {where} {kind} of array '{mem.name}'", self.kernel, ins.loc,
            array=f"{mem.name}, shape {tuple(st.shape)}, dtype {mem.dtype_name or mem.elem}",
            index=index, **self.thread_details(lane))

    def raise_check(self, ins: Instr, arg: CheckArg, idx, extent, bad) -> None:
        k = self._first_bad(bad)
        lane = int(self.lane_ids()[k])
        i = int(np.broadcast_to(np.asarray(idx), (self.width,))[k])
        n = int(np.broadcast_to(np.asarray(extent), (self.width,))[k])
        st = self.storage[arg.mem]
        raise OutOfBoundsError(
            f"index {i} is out of bounds for dimension {arg.dim} of array '{arg.mem.name}'",
            self.kernel, ins.loc,
            array=f"{arg.mem.name}, shape {tuple(st.shape)}, dtype {arg.mem.dtype_name or arg.mem.elem}",
            index=f"{i} in dimension {arg.dim} (valid: 0..{n - 1})", **self.thread_details(lane))

    def raise_warp_sync(self, ins: Instr, k: int, why: str, count: int = 1) -> None:
        """WarpSyncError; with synccheck on, a report instead, and the instruction goes on."""
        lane = int(self.sel()[k])
        checker = getattr(self, "checker", None)
        if checker is not None and checker.warp_sync_error(self, ins, lane, why, count):
            return
        raise WarpSyncError(f"{ins.op.name.lower()} sync error: {why}", self.kernel, ins.loc,
                            **self.thread_details(lane))

    def check_barrier(self, blk) -> None:
        live = self.pc != self.done_pc
        live_per_cta = np.bincount(self.cta_local[live], minlength=self.n_ctas)
        here = np.bincount(self.cta_local[self.mask], minlength=self.n_ctas)
        bad = np.flatnonzero((here > 0) & (here != live_per_cta))
        checker = getattr(self, "checker", None)
        for c in bad.tolist():      # with synccheck on: one report per block, and the barrier goes on
            lanes = np.flatnonzero(live & (self.cta_local == c))
            arrived = lanes[self.pc[lanes] == blk.index]
            missing = lanes[self.pc[lanes] != blk.index]
            other = self.prog.blocks[int(self.pc[missing[0]])]
            if checker is None or not checker.divergent_barrier(self, blk, arrived, missing, other):
                self._raise_divergent_barrier(blk, arrived, missing, other)

    def _raise_divergent_barrier(self, blk, arrived, missing, other) -> None:
        where = f"line {other.loc.line}" if other.loc else other.label
        details = self.thread_details(int(arrived[0]))
        ids = lambda a: lane_ranges((a % self.lanes_per_cta).tolist())  # noqa: E731
        raise BarrierDivergenceError(
            "sync_threads reached by only part of the thread block: "
            f"{arrived.size} threads arrived (linear ids {ids(arrived)}), {missing.size} did not "
            f"(linear ids {ids(missing)}; the first of them is at {where}); a barrier must be "
            "reached by every non-exited thread of the block", self.kernel, blk.barrier.loc,
            block=details["block"])

    def check_steps(self) -> None:
        worst = int(self.warp_steps.max())
        if worst <= self.cfg.max_steps:
            return
        warp = int(np.argmax(self.warp_steps))
        lanes = self.pc[warp * 32:warp * 32 + 32]
        lane = warp * 32 + int(np.argmax(lanes != self.done_pc))
        blk = self.prog.blocks[int(self.pc[lane])] if self.pc[lane] != self.done_pc else None
        raise StepLimitError(
            f"a warp executed more than {self.cfg.max_steps} basic blocks: most likely a loop that "
            "never ends (raise the limit with simt.set_module_options({'max_steps': N}) if it is "
            "meant to run this long)", self.kernel, blk.loc if blk else None,
            **self.thread_details(lane))
