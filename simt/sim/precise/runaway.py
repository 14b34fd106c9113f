"""Runaway loops, stopped in seconds: a batch that comes back to a state it was in loops forever.

The precise engine is deterministic: the next step depends only on every lane's block
(``pc``), the register file and memory. So if a batch is at the same block with the same
``pc`` for every lane, the same registers and the same memory as at an earlier step, it
will repeat that stretch forever. The watch snapshots ``pc`` and registers at doubling
intervals (Brent's cycle detection: a cycle of period p that starts at step s is caught by
step ~2 * max(s, p)) and compares whenever the batch is back at the snapshot's block. When
those match, it copies memory and waits for the next match: memory equal too means the
whole state repeated (a loop that stores the same values again and again has no memory
effect, so it counts). A loop whose state changes every iteration (a counter that never
reaches its bound) is not a repeated state; the step limit (``max_steps``) still stops it.
"""
from __future__ import annotations

import numpy as np

from ...errors import StepLimitError

WATCH_FROM = 512         # steps of a batch before the first snapshot: short kernels never pay


class LoopWatch:
    def __init__(self):
        self.next_snapshot = WATCH_FROM
        self.block = -1
        self.snapshot_pc = np.zeros(0, np.int32)
        self.registers: list[np.ndarray] = []
        self.memory: list[np.ndarray] | None = None    # copied at the first match
        # the lowest and highest blocks run since the snapshot (they span the loop); an array,
        # as the compiled step loop (fused.py) keeps it up to date too
        self.span = np.zeros(2, np.int64)

    def visit(self, batch, b: int, step: int) -> None:
        """Called before each step from WATCH_FROM on, with the block the step runs."""
        self.span[0], self.span[1] = min(self.span[0], b), max(self.span[1], b)
        if b == self.block and np.array_equal(batch.pc, self.snapshot_pc) \
                and all(np.array_equal(r, s) for r, s in zip(batch.R, self.registers)):
            memory = [st.data for st in batch.storage.values()]
            if self.memory is not None and all(np.array_equal(m, s) for m, s in zip(memory, self.memory)):
                self._stop(batch, step)
            self.memory = [m.copy() for m in memory]
            return
        if step >= self.next_snapshot:
            self.next_snapshot = 2 * step
            self.block, self.memory = b, None
            self.span[:] = b
            self.snapshot_pc = batch.pc.copy()
            self.registers = [r.copy() for r in batch.R]

    def _stop(self, batch, step: int) -> None:
        loc = self._loop_loc(batch.prog.blocks)
        running = np.flatnonzero(batch.pc != batch.done_pc)
        lane = int(running[0]) if running.size else 0
        where = f"line {loc.line}" if loc else "a loop"
        raise StepLimitError(
            f"the loop at {where} never ends: after {step} steps the {running.size} threads still "
            "running came back to a state they were in (same blocks, same registers, same "
            "memory), so they would repeat it forever", batch.kernel, loc,
            **batch.thread_details(lane))

    def _loop_loc(self, blocks):
        """The loop statement: the branch that jumps back to the loop's first block (loops are
        laid out with their blocks in order, the back edge last), else that first block."""
        lowest, highest = int(self.span[0]), int(self.span[1])
        for blk in reversed(blocks[lowest:highest + 1]):
            if lowest in blk.targets and blk.term.loc is not None:
                return blk.term.loc
        return blocks[lowest].loc
