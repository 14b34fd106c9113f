"""The precise engine: runs MIR warp by warp, 32 lanes each, with active masks.

Blocks of the grid are simulated in batches. Every lane has a program counter (the index
of the basic block it will run next). Each step the scheduler takes the lowest block index
any lane is at and runs that block for exactly the lanes there: for each warp, its active
mask is the set of its lanes at that block. Because the front end lays blocks out so that
everything between a branch and its immediate post-dominator comes before the
post-dominator (the verifier checks this), lanes that took different sides of a branch
wait at the post-dominator until the others arrive and then run together: the grouping of
an IPDOM reconvergence stack, with the stack implicit in the block order.

A barrier block runs only when every non-exited thread of its thread block is there;
when some of them are elsewhere, they can never arrive without skipping the barrier, so
that is reported as BarrierDivergenceError.
"""
from __future__ import annotations

import numpy as np

from ...errors import (BarrierDivergenceError, OutOfBoundsError, StepLimitError, WarpSyncError)
from ...ir.mir import ArrayParam, CheckArg, Function, Instr, Op, ScalarParam, Space, SReg
from ..common import ArrayArg, LaunchConfig
from .memory import Storage, out_of_bounds
from .metrics import Counters
from .program import Program, prepare

_BITS = (np.uint32(1) << np.arange(32, dtype=np.uint32)).astype(np.uint32)
MAX_BATCH_LANES = 1 << 15


def run(fn: Function, cfg: LaunchConfig, args: list) -> dict[str, float]:
    """Run ``fn`` over the whole grid; return Nsight-Compute-named metrics."""
    prog = prepare(fn)
    counters = Counters()
    globals_ = _global_storage(fn, args)
    warps_per_cta = -(-cfg.threads_per_block // 32)
    lanes_per_cta = warps_per_cta * 32
    ctas_per_batch = max(1, min(cfg.num_blocks, MAX_BATCH_LANES // lanes_per_cta,
                                max(1, (1 << 22) // max(1, prog.nregs * lanes_per_cta))))
    with np.errstate(all="ignore"):
        for first in range(0, cfg.num_blocks, ctas_per_batch):
            n = min(ctas_per_batch, cfg.num_blocks - first)
            Batch(prog, cfg, args, globals_, counters, first, n, lanes_per_cta).run()
    return counters.metrics()


def _global_storage(fn: Function, args: list) -> dict:
    storage = {}
    for p, a in zip(fn.params, args):
        if isinstance(p, ArrayParam):
            assert isinstance(a, ArrayArg)
            storage[p.mem] = Storage(p.mem, a.data, tuple(a.shape), a.base_addr)
    return storage


class Batch:
    """Lanes of ``n_ctas`` consecutive thread blocks, with their registers and shared memory."""

    def __init__(self, prog: Program, cfg: LaunchConfig, args: list, globals_: dict,
                 counters: Counters, first_cta: int, n_ctas: int, lanes_per_cta: int):
        self.prog, self.cfg, self.counters = prog, cfg, counters
        self.kernel = prog.fn.name
        self.n_ctas = n_ctas
        self.first_cta = first_cta
        self.lanes_per_cta = lanes_per_cta
        n = self.n_lanes = n_ctas * lanes_per_cta
        self.done_pc = len(prog.blocks)
        lane = np.arange(n, dtype=np.int64)
        self.cta_local = lane // lanes_per_cta
        t = lane % lanes_per_cta                          # linear thread index in its block
        bx, by, _ = cfg.block
        gx, gy, _ = cfg.grid
        cta = self.cta_local + first_cta
        self._sregs = {
            SReg.TID_X: t % bx, SReg.TID_Y: (t // bx) % by, SReg.TID_Z: t // (bx * by),
            SReg.CTAID_X: cta % gx, SReg.CTAID_Y: (cta // gx) % gy, SReg.CTAID_Z: cta // (gx * gy),
            SReg.LANEID: lane % 32, SReg.WARPID: t // 32,
        }
        self._sregs = {k: v.astype(np.int32) for k, v in self._sregs.items()}
        uniform = {SReg.NTID_X: cfg.block[0], SReg.NTID_Y: cfg.block[1], SReg.NTID_Z: cfg.block[2],
                   SReg.NCTAID_X: cfg.grid[0], SReg.NCTAID_Y: cfg.grid[1], SReg.NCTAID_Z: cfg.grid[2]}
        for k, name in enumerate((SReg.DIM_0, SReg.DIM_1, SReg.DIM_2)):
            uniform[name] = cfg.dim[k] if k < len(cfg.dim) else 1
        self._uniform = {k: np.int32(v) for k, v in uniform.items()}
        # registers: zero-initialised, scalar parameters broadcast
        self.R = [np.zeros(n, dtype=t.np) for t in prog.reg_types]
        self.env: list = [None] * prog.nregs + list(prog.consts)
        scalar_args = [a for p, a in zip(prog.fn.params, args) if isinstance(p, ScalarParam)]
        for (ri, typ), value in zip(prog.param_regs, scalar_args):
            self.R[ri][:] = np.asarray(value).astype(typ.np)
        # memory: global arrays shared by all batches, shared arrays per batch
        self.storage = dict(globals_)
        for mem in prog.fn.shared:
            size = mem.size
            self.storage[mem] = Storage(mem, np.zeros(n_ctas * size, dtype=mem.elem.np), mem.shape,
                                        mem.offset, window=size)
        self.pc = np.zeros(n, dtype=np.int32)
        self.pc[t >= cfg.threads_per_block] = self.done_pc   # padding lanes of a partial warp
        self.warp_steps = np.zeros(n // 32, dtype=np.int64)    # blocks executed per warp
        self.warp_inst = np.zeros(n // 32, dtype=np.int64)  # per-warp instruction count (clock)

    # --- the scheduler -----------------------------------------------------------------
    def run(self) -> None:
        prog, pc, R, env = self.prog, self.pc, self.R, self.env
        blocks = prog.blocks
        n = self.n_lanes
        step = 0
        while True:
            b = int(pc.min())
            if b == self.done_pc:
                return
            blk = blocks[b]
            sel = np.flatnonzero(pc == b)
            self._set_active(sel, n)
            if blk.barrier is not None:
                self._check_barrier(blk)
            idx = self.active_index
            for r in blk.live_in:
                env[r] = R[r][idx]
            for s in blk.steps:
                s(env, self)
            for r in blk.defs:
                R[r][idx] = env[r]
            self._terminate(blk, idx)
            step += 1
            if step % 256 == 0:
                self._check_steps()

    def _set_active(self, sel: np.ndarray, n: int) -> None:
        self._sel = sel
        self.n_active = sel.size
        self.active_index = slice(None) if sel.size == n else sel
        self._cache = {}

    def _terminate(self, blk, idx) -> None:
        term = blk.term
        counts = self.warp_counts()
        running = counts > 0
        nw = int(np.count_nonzero(running))
        ninstr = len(blk.instrs)
        self.counters.block_executed(blk, nw, self.n_active)
        self.warp_inst += ninstr * running
        self.warp_steps += running
        if term.op is Op.BR:
            self.pc[idx] = self.prog.label_index[term.arg]
            self.counters.branch(nw, 0)
        elif term.op is Op.CBR:
            t, f = (self.prog.label_index[x] for x in term.arg)
            cond = np.asarray(self.env[blk.term_srcs[0]], dtype=bool)
            if cond.ndim == 0:
                self.pc[idx] = t if cond else f
                self.counters.branch(nw, 0)
                return
            self.pc[idx] = np.where(cond, t, f)
            taken = np.bincount(self._sel >> 5, weights=cond, minlength=counts.size)
            divergent = int(np.count_nonzero((taken > 0) & (taken < counts)))
            self.counters.branch(nw, divergent)
        else:  # RET
            self.pc[idx] = self.done_pc

    # --- lane bookkeeping used by the ops ------------------------------------------------
    def active_lanes(self) -> np.ndarray:
        return self._sel

    def warp_counts(self) -> np.ndarray:
        """Active lanes per warp of the batch."""
        c = self._cache.get("counts")
        if c is None:
            c = self._cache["counts"] = np.bincount(self._sel >> 5, minlength=self.n_lanes // 32)
        return c

    def active_warps(self) -> np.ndarray:
        w = self._cache.get("warps")
        if w is None:
            starts = self.segment_starts()
            w = self._cache["warps"] = self._sel[starts] >> 5
        return w

    def segment_starts(self) -> np.ndarray:
        s = self._cache.get("starts")
        if s is None:
            w = self._sel >> 5
            boundary = np.ones(w.size, dtype=bool)
            boundary[1:] = w[1:] != w[:-1]
            s = np.flatnonzero(boundary)
            self._cache["starts"] = s
            self._cache["seg"] = np.cumsum(boundary) - 1
        return s

    def laneid_of_active(self) -> np.ndarray:
        return (self._sel & 31).astype(np.int64)

    def cta_of_active(self) -> np.ndarray:
        return self.cta_local[self._sel]

    def warp_masks(self):
        """Per warp segment: bits of lanes at this block, bits of exited lanes; segment per lane."""
        c = self._cache.get("masks")
        if c is None:
            starts = self.segment_starts()
            seg = self._cache["seg"]
            present = np.bitwise_or.reduceat(_BITS[self._sel & 31], starts) if self.n_active else starts
            warps = self.active_warps()
            lanes = (warps[:, None] * 32 + np.arange(32)).astype(np.int64)
            exited = ((self.pc[lanes] == self.done_pc) * _BITS).sum(axis=1).astype(np.uint32)
            c = self._cache["masks"] = (present.astype(np.uint32), exited, seg)
        return c

    def register_file(self, env_index: int) -> np.ndarray:
        return self.R[env_index]

    def sreg(self, which: SReg):
        if which in self._uniform:
            return self._uniform[which]
        if which is SReg.CLOCK:
            return self.warp_inst[self._sel >> 5].astype(np.int64)
        return self._sregs[which][self.active_index]

    # --- memory -------------------------------------------------------------------------
    def flat_index(self, st: Storage, idx, width: int, ins: Instr):
        bad = out_of_bounds(idx, width, st.extent)
        if np.any(bad):
            self._raise_oob(st, idx, width, ins, bad)
        if st.window:
            return np.asarray(idx, dtype=np.int64) + self.cta_of_active() * st.window
        return np.asarray(idx, dtype=np.int64)

    # --- errors -------------------------------------------------------------------------
    def thread_details(self, lane: int) -> dict:
        cfg = self.cfg
        t = lane % self.lanes_per_cta
        bx, by, _ = cfg.block
        thread = (t % bx, (t // bx) % by, t // (bx * by))
        cta = self.first_cta + lane // self.lanes_per_cta
        gx, gy, _ = cfg.grid
        block = (cta % gx, (cta // gx) % gy, cta // (gx * gy))
        return {"thread": f"threadIdx (x={thread[0]}, y={thread[1]}, z={thread[2]})",
                "block": f"blockIdx (x={block[0]}, y={block[1]}, z={block[2]})",
                "tid": self._tid_string(thread, block)}

    def _tid_string(self, thread, block) -> str:
        cfg = self.cfg
        if cfg.sig.block_ndim == 1:
            lin = block[0] * cfg.block[0] + thread[0]
            coords = np.unravel_index(lin, cfg.dim) if lin < int(np.prod(cfg.dim)) else (lin,)
            coords = tuple(int(c) for c in coords)
        else:
            cuda = [block[k] * cfg.block[k] + thread[k] for k in range(3)]
            coords = tuple(cuda[:len(cfg.dim)][::-1])
        return str(coords[0]) if len(coords) == 1 else str(coords)

    def _raise_oob(self, st: Storage, idx, width: int, ins: Instr, bad) -> None:
        k = int(np.flatnonzero(np.broadcast_to(bad, (self.n_active,)))[0])
        lane = int(self._sel[k])
        i = int(np.broadcast_to(np.asarray(idx), (self.n_active,))[k])
        mem = st.mem
        ncomp = mem.ncomp
        elem = i // ncomp if i >= 0 else i
        shape = st.shape
        where = "shared" if st.is_shared else "global"
        kind = "write" if ins.op is Op.ST else ("atomic" if ins.op is Op.ATOM else "read")
        if 0 <= elem and len(shape) > 1:
            index = str(tuple(int(x) for x in np.unravel_index(elem, shape))) + " (past the end)"
        else:
            index = str(elem)
        raise OutOfBoundsError(
            f"out-of-bounds {where} {kind} of array '{mem.name}'",
            self.kernel, ins.loc, array=f"{mem.name}, shape {tuple(shape)}, dtype {mem.dtype_name or mem.elem}",
            index=index, **self.thread_details(lane))

    def raise_check(self, ins: Instr, arg: CheckArg, idx, extent, bad) -> None:
        k = int(np.flatnonzero(np.broadcast_to(bad, (self.n_active,)))[0])
        lane = int(self._sel[k])
        i = int(np.broadcast_to(idx, (self.n_active,))[k])
        st = self.storage[arg.mem]
        raise OutOfBoundsError(
            f"index {i} is out of bounds for dimension {arg.dim} of array '{arg.mem.name}'",
            self.kernel, ins.loc, array=f"{arg.mem.name}, shape {tuple(st.shape)}, "
            f"dtype {arg.mem.dtype_name or arg.mem.elem}", index=f"{i} in dimension {arg.dim} "
            f"(valid: 0..{int(np.broadcast_to(extent, (self.n_active,))[k]) - 1})",
            **self.thread_details(lane))

    def raise_warp_sync(self, ins: Instr, k: int, why: str) -> None:
        lane = int(self._sel[k])
        raise WarpSyncError(f"{ins.op.name.lower()} sync error: {why}", self.kernel, ins.loc,
                            **self.thread_details(lane))

    def _check_barrier(self, blk) -> None:
        live = self.pc != self.done_pc
        live_per_cta = np.bincount(self.cta_local[live], minlength=self.n_ctas)
        here = np.bincount(self.cta_of_active(), minlength=self.n_ctas)
        bad = np.flatnonzero((here > 0) & (here != live_per_cta))
        if bad.size == 0:
            return
        c = int(bad[0])
        lanes = np.flatnonzero(live & (self.cta_local == c))
        arrived = lanes[self.pc[lanes] == blk.index]
        missing = lanes[self.pc[lanes] != blk.index]
        first_missing = int(missing[0])
        other = self.prog.blocks[int(self.pc[first_missing])]
        other_line = f"line {other.loc.line}" if other.loc else other.label
        details = self.thread_details(int(arrived[0]))
        raise BarrierDivergenceError(
            "sync_threads reached by only part of the thread block: "
            f"{arrived.size} threads arrived (linear ids {self._linear_ranges(arrived)}), "
            f"{missing.size} did not (linear ids {self._linear_ranges(missing)}; the first is "
            f"at {other_line}); a barrier must be reached by every non-exited thread of the block",
            self.kernel, blk.barrier.loc, block=details["block"])

    def _linear_ranges(self, lanes: np.ndarray) -> str:
        from .warp import _ranges
        t = (lanes % self.lanes_per_cta).tolist()
        s = _ranges(t)
        return s if len(s) < 120 else s[:117] + "..."

    def _check_steps(self) -> None:
        worst = int(self.warp_steps.max())
        if worst <= self.cfg.max_steps:
            return
        warp = int(np.argmax(self.warp_steps))
        lane = warp * 32 + int(np.argmax(self.pc[warp * 32:warp * 32 + 32] != self.done_pc))
        blk = self.prog.blocks[int(self.pc[lane])] if self.pc[lane] != self.done_pc else None
        loc = blk.loc if blk else None
        raise StepLimitError(
            f"a warp executed more than {self.cfg.max_steps} basic blocks: most likely a loop that "
            "never ends (raise the limit with simt.set_module_options({'max_steps': N}) if it is meant "
            "to run this long)", self.kernel, loc, **self.thread_details(lane))


# keep the public surface small
__all__ = ["run", "Space"]
