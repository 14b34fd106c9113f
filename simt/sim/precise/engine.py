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

Values live in a register file of one array per register over all lanes of the batch.
A step runs its block either *dense* (ops on every lane of the batch, results merged back
under the active mask: cheapest when many lanes are active) or *compact* (ops on the
gathered active lanes only); both give the same results, the choice is speed only.
"""
from __future__ import annotations

import numpy as np

from ...ir.mir import ArrayParam, Function, Instr, Op, ScalarParam, SReg
from ..common import ArrayArg, LaunchConfig
from ...progress import launch_progress
from ..atomic_log import BatchLog
from .diagnostics import Diagnostics
from .memory import Storage, launch_addresses, out_of_bounds
from . import timing
from .memstats import (lane_addresses, record_global, record_shared, rows_from_lanes, same_address_lanes,
                       shared_events, vector_marks)
from ..timing.recorder import Recorder
from .metrics import Counters
from .timing import WarpTimes
from .warp import LANE_BITS
from ...arch import Arch, load_arch
from . import stepping
from .program import Program, prepare
from .registers import registers_per_thread
from .runaway import WATCH_FROM, LoopWatch

MAX_BATCH_LANES = 1 << 15
RECORD_BUDGET = 40_000_000   # warp instructions recorded for the timing model before sampling
MIN_RECORDED_WAVES = 3       # ... and never fewer than this many waves of blocks
_NO_MEMORY = np.zeros((0, 0), dtype=np.int64)
DENSE_BELOW = 2048        # batches this small always run dense
DENSE_FRACTION = 8        # dense when at least 1/8 of the batch's lanes are active


class Metrics(dict):
    """Metric name -> value, plus ``details`` (per-line table, per-SM and per-block cycles...)."""
    details: dict


def run(fn: Function, cfg: LaunchConfig, args: list, listener=None) -> Metrics:
    """Run ``fn`` over the whole grid; return Nsight-Compute-named metrics.

    ``listener`` (optional) is told about every warp-level instruction: see simt/sim/trace.
    With ``cfg.checks``, a checker (simt/sim/check) sees every access and barrier and its
    reports come back in ``details["hazards"]``.
    """
    prog = prepare(fn)
    arch = load_arch(cfg.arch)
    warps_per_cta = -(-cfg.threads_per_block // 32)
    counters = Counters(prog, arch, warps_per_cta)
    arrays = [(p, a) for p, a in zip(fn.params, args) if isinstance(p, ArrayParam)]
    addresses = launch_addresses([a for _, a in arrays])
    globals_ = {p.mem: Storage(p.mem, a.data, tuple(a.shape), addr)
                for (p, a), addr in zip(arrays, addresses)}
    regs, regs_from = registers_per_thread(prog, arch)
    occupancy = arch.occupancy(cfg.threads_per_block, regs, fn.shared_bytes)
    occupancy["registers_from"] = regs_from
    # the per-warp timeline that clock() reads and traces print: only when something reads it
    isolated = cfg.timing and (listener is not None or _reads_clock(fn))
    for st in globals_.values():
        st.seen_sectors = np.zeros(st.data.nbytes // 32 + 2, dtype=bool) if isolated else None
    recorder = None
    if cfg.timing:
        wave = int(arch.sm_count) * max(1, occupancy["blocks_per_sm"])
        recorder = Recorder(warps_per_cta, RECORD_BUDGET, min_ctas=MIN_RECORDED_WAVES * wave)
        if cfg.timing_sass:           # shared loads ptxas merges into vector LDS (memstats.vector_marks)
            from ..timing.sass_replay import vector_lines
            recorder.vector = vector_lines(prog, arch)
    lanes_per_cta = warps_per_cta * 32
    by_regs = (1 << 22) // max(1, prog.nregs * lanes_per_cta)
    ctas_per_batch = max(1, min(cfg.num_blocks, MAX_BATCH_LANES // lanes_per_cta, by_regs))
    if listener is not None:
        listener.launch_started(fn, cfg, arch)
    checker = None
    if cfg.checks:
        from ..check.checker import Checker
        checker = Checker(prog, cfg, globals_, args)
    progress = launch_progress(fn.name, cfg.num_blocks, cfg.progress)
    try:
        with np.errstate(all="ignore"):
            for first in range(0, cfg.num_blocks, ctas_per_batch):
                n = min(ctas_per_batch, cfg.num_blocks - first)
                if recorder is not None:
                    recorder.batch_started(first, n)
                Batch(prog, cfg, args, globals_, counters, first, n, lanes_per_cta, arch, listener,
                      recorder, isolated, checker).run()
                if recorder is not None:
                    recorder.batch_finished(counters.warp_instructions())
                if progress:
                    progress.update(first + n)
    finally:
        if progress:
            progress.close()
    values, details = counters.metrics(occupancy, recorder, cfg.num_blocks, fn.shared_bytes,
                                       cfg.timing_sample, cfg.timing_sass)
    if recorder is not None:
        recorder.release()
    out = Metrics(values)
    out.details = details
    if checker is not None:
        out.details["hazards"] = checker.finish()
    if listener is not None:
        listener.launch_finished(out)
    return out


def _reads_clock(fn: Function) -> bool:
    return any(i.op is Op.SREG and i.arg is SReg.CLOCK for i in fn.instructions())


class Batch(Diagnostics):
    """Lanes of ``n_ctas`` consecutive thread blocks, with their registers and shared memory."""

    def __init__(self, prog: Program, cfg: LaunchConfig, args: list, globals_: dict,
                 counters: Counters, first_cta: int, n_ctas: int, lanes_per_cta: int,
                 arch: Arch, listener=None, recorder=None, isolated: bool = False, checker=None):
        self.prog, self.cfg, self.counters, self.arch = prog, cfg, counters, arch
        self.listener = listener
        self.recorder = recorder
        self.isolated = isolated
        self.checker = checker
        self.timings = prog.block_timings(arch)
        self.kernel = prog.fn.name
        self.n_ctas, self.first_cta, self.lanes_per_cta = n_ctas, first_cta, lanes_per_cta
        n = self.n_lanes = n_ctas * lanes_per_cta
        self.done_pc = len(prog.blocks)
        lane = self._all_lanes = np.arange(n, dtype=np.int64)
        self.cta_local = lane // lanes_per_cta
        t = lane % lanes_per_cta                          # linear thread index in its block
        bx, by, _ = cfg.block
        gx, gy, _ = cfg.grid
        cta = self.cta_local + first_cta
        per_lane = {SReg.TID_X: t % bx, SReg.TID_Y: (t // bx) % by, SReg.TID_Z: t // (bx * by),
                    SReg.CTAID_X: cta % gx, SReg.CTAID_Y: (cta // gx) % gy,
                    SReg.CTAID_Z: cta // (gx * gy), SReg.LANEID: lane % 32, SReg.WARPID: t // 32}
        self._sregs = {k: v.astype(np.int32) for k, v in per_lane.items()}
        uniform = {SReg.NTID_X: cfg.block[0], SReg.NTID_Y: cfg.block[1], SReg.NTID_Z: cfg.block[2],
                   SReg.NCTAID_X: cfg.grid[0], SReg.NCTAID_Y: cfg.grid[1], SReg.NCTAID_Z: cfg.grid[2]}
        for k, name in enumerate((SReg.DIM_0, SReg.DIM_1, SReg.DIM_2, SReg.DIM_3)):
            uniform[name] = cfg.dim[k] if k < len(cfg.dim) else 1
        self._uniform = {k: np.int32(v) for k, v in uniform.items()}
        fusion = prog.fusion
        # one 2-D array per numpy type; each register is a row of it (fused.py reads them so)
        self.pools = [np.zeros((fusion.counts[k], n), dtype=k) for k in fusion.pool_kinds]
        pool = dict(zip(fusion.pool_kinds, self.pools))
        self.R = [pool[k][row] for k, row in zip(fusion.kinds, fusion.rows)]
        # pure blocks run compiled once hot; not when something reads every step (a trace,
        # or the per-warp timeline clock() reads): they look at values and masks per step
        self.fusion = fusion if fusion.any and listener is None and not isolated else None
        self.taken = np.zeros(n, dtype=bool)       # a compiled block's branch condition
        self.env: list = [None] * prog.nregs + list(prog.consts)
        scalar_args = [a for p, a in zip(prog.fn.params, args) if isinstance(p, ScalarParam)]
        for (ri, typ), value in zip(prog.param_regs, scalar_args):
            self.R[ri][:] = np.asarray(value).astype(typ.np)
        self.storage = dict(globals_)
        for mem in prog.fn.shared:
            self.storage[mem] = Storage(mem, np.zeros(n_ctas * mem.size, dtype=mem.elem.np),
                                        mem.shape, mem.offset, window=mem.size)
        self.pc = np.zeros(n, dtype=np.int32)
        self.pc[t >= cfg.threads_per_block] = self.done_pc   # padding lanes of a partial warp
        self.warp_steps = np.zeros(n // 32, dtype=np.int64)  # blocks executed per warp
        self.warps_per_cta = lanes_per_cta // 32
        lat = timing.isolated_latency(arch)
        self._shared_latency = (lat["shared"], lat["atomic_shared"])    # [is an atomic]
        if isolated:
            self.times = WarpTimes(prog.nregs, n // 32, self.warps_per_cta, arch)
            self.isolated_stalls = np.zeros((sum(len(b.instrs) for b in prog.blocks), 5), np.int64)
            self.stall_rows = [self.isolated_stalls[b0:b0 + len(blk.instrs)]
                               for b0, blk in zip(prog.instr_base, prog.blocks)]
            for st in self.storage.values():        # sectors this batch's blocks touched (an L1)
                if not st.is_shared:
                    st.batch_sectors = np.zeros_like(st.seen_sectors)
            self._level_latency = np.array([lat["l1"], lat["l2"], lat["dram"]], dtype=np.int64)
            self._atomic_latency = int(lat["atomic_global"])
        self.warp_wavefronts = np.zeros(n // 32, dtype=np.int64)
        # per memory instruction of a step and running warp: latency, interval, conflict cycles;
        # without a per-warp timeline nothing reads them, and one scratch serves every step
        most = max((len(t.mem_instrs) for t in self.timings), default=0)
        self._mem_scratch = None
        if cfg.timing and not isolated:
            self._mem_scratch = np.empty((3, most, n // 32), dtype=np.int64)
        self.atomic_log = BatchLog()      # deferred float atomics (simt/sim/atomic_log.py)
        if checker is not None:
            checker.batch_started(self)

    # --- the scheduler -----------------------------------------------------------------
    def run(self) -> None:
        pc, R, env, blocks = self.pc, self.R, self.env, self.prog.blocks
        n = self.n_lanes
        always_dense = n <= DENSE_BELOW
        timed = self.timed = self.cfg.timing
        mask = self.mask = np.zeros(n, dtype=bool)
        warp_bits = self.warp_bits = np.zeros(n // 32, dtype=np.uint32)
        step = 0
        watch = LoopWatch()
        wlow = self.wlow = np.zeros(n // 32, dtype=np.int32)   # each warp's lowest block
        b, self.count = stepping.start(pc, mask, warp_bits, self.warp_steps, wlow)
        b = int(b)
        while b != self.done_pc:
            if step >= WATCH_FROM:
                watch.visit(self, b, step)
            blk = blocks[b]
            fusion = self.fusion
            if fusion is not None and fusion.pure[b] and fusion.ready(b):
                ran = fusion.run(b, self, step, watch, self.recorder if timed else None)
                if ran is not None:       # it ran this step and the hot ones after it
                    b, self.count, step = ran
                    if step % 256 == 0:
                        self.check_steps()
                    continue
            count = self.count
            self.dense = dense = always_dense or count * DENSE_FRACTION >= n
            self.all_active = all_active = count == n
            self._sel = None
            self._cache = {}
            tim = self.timings[b]
            self.n_running = n_run = int(np.count_nonzero(warp_bits))
            if tim.mem_instrs and timed:
                n_mem = len(tim.mem_instrs)
                self.mem_slot = 0
                if self.isolated:       # the per-warp timeline reads them
                    self.mem_lat = np.zeros((n_mem, n_run), dtype=np.int64)
                    self.mem_iv = np.ones((n_mem, n_run), dtype=np.int64)
                    self.mem_extra = np.zeros((n_mem, n_run), dtype=np.int64)
                else:
                    self.mem_lat, self.mem_iv, self.mem_extra = self._mem_scratch[:, :n_mem, :n_run]
            else:
                self.mem_lat = self.mem_iv = self.mem_extra = _NO_MEMORY
            if timed and self.recorder is not None:
                self.recorder.step(b, warp_bits)
            if blk.barrier is not None:
                self.check_barrier(blk)
                if self.checker is not None:
                    self.checker.barrier(self)
                if self.isolated:
                    self.times.barrier(np.flatnonzero(warp_bits))
            if dense:
                self.width = n
                for r in blk.live_in:
                    env[r] = R[r]
                for s in blk.steps:
                    s(env, self)
                if all_active:
                    for r in blk.defs:
                        np.copyto(R[r], env[r], casting="unsafe")
                else:
                    for r in blk.defs:       # putmask: fast on scattered masks, unlike copyto(where=)
                        np.putmask(R[r], mask, env[r])
            else:
                sel = self.sel()
                self.width = count
                for r in blk.live_in:
                    env[r] = R[r][sel]
                for s in blk.steps:
                    s(env, self)
                for r in blk.defs:
                    R[r][sel] = env[r]
            if self.isolated:
                self._advance_time(blk, tim)
            b = self._terminate(blk)
            step += 1
            if step % 256 == 0:
                self.check_steps()
        self.atomic_log.flush()
        self._finish()

    def _advance_time(self, blk, tim) -> None:
        wt = self.times
        issue = _NO_MEMORY
        if self.listener is not None:
            issue = np.zeros((len(blk.instrs), self.n_running), np.int64)
        timing.advance(wt.t, wt.ready, wt.producer, wt.busy, self.warp_bits, tim.src_ptr,
                       tim.src_idx, tim.dst_ptr, tim.dst_idx, tim.interval, tim.latency, tim.cls,
                       tim.mem_slot, self.mem_lat, self.mem_iv, self.mem_extra,
                       self.stall_rows[blk.index], issue)
        if self.listener is not None:
            self.listener.block_executed(self, blk, issue)

    def branch_taken_bits(self, blk) -> np.ndarray:
        """For the current step's CBR: per running warp, the lanes taking the true edge."""
        cond = np.asarray(self.env[blk.term_srcs[0]], dtype=bool)
        if self.dense:
            taken = np.broadcast_to(cond, (self.n_lanes,)) & self.mask
        else:
            taken = np.zeros(self.n_lanes, dtype=bool)
            taken[self.sel()] = cond
        bits = np.packbits(np.ascontiguousarray(taken), bitorder="little").view("<u4")
        return bits[self.warp_bits != 0]

    def _finish(self) -> None:
        pass

    def _terminate(self, blk) -> int:
        """Move the active lanes to their next block; count; return the next block to run."""
        pc, mask = self.pc, self.mask
        nw = self.n_running
        self.counters.block_executed(blk, nw, self.count)
        term = blk.term
        if term.op is Op.CBR:
            t, f = blk.targets
            cond = np.asarray(self.env[blk.term_srcs[0]], dtype=bool)
            if cond.ndim:
                if not self.dense:
                    taken = np.zeros(self.n_lanes, dtype=bool)
                    taken[self._sel] = cond
                elif cond.shape[0] == self.n_lanes and cond.flags.c_contiguous:
                    taken = cond
                else:
                    taken = np.ascontiguousarray(np.broadcast_to(cond, (self.n_lanes,)))
                low, split, self.count = stepping.branch_and_select(
                    pc, mask, taken, t, f, self.warp_bits, self.warp_steps, self.wlow)
                self.counters.branch(blk, nw, int(split))
                return int(low)
            target = t if cond else f
        elif term.op is Op.BR:
            target = blk.targets[0]
        else:  # RET
            target = self.done_pc
        if term.op is not Op.RET:
            self.counters.branch(blk, nw, 0)
        low, self.count = stepping.jump_and_select(pc, mask, target, self.warp_bits,
                                                   self.warp_steps, self.wlow)
        return int(low)

    # --- the current lane set, for ops ----------------------------------------------------
    # Values in ``env`` cover ``width`` positions: every lane of the batch (dense) or the
    # active lanes only (compact). ``pick`` takes the active lanes' values out of an env
    # value, ``spread`` turns per-active-lane values back into env layout.
    def sel(self) -> np.ndarray:
        if self._sel is None:
            self._sel = self._all_lanes if self.all_active else np.flatnonzero(self.mask)
        return self._sel

    @property
    def n_active(self) -> int:
        return self.count

    def lane_ids(self) -> np.ndarray:
        """Batch lane index of each env position."""
        return self._all_lanes if self.dense else self.sel()

    def pick(self, value):
        if np.ndim(value) == 0 or not self.dense or self.all_active:
            return value
        return value[self.sel()]

    def spread(self, values, dtype) -> np.ndarray:
        if not self.dense or self.all_active:
            return values
        out = np.zeros(self.n_lanes, dtype=dtype)
        out[self.sel()] = values
        return out

    def valid(self, bad):
        """Restrict a per-position failure mask to active lanes."""
        if self.dense and not self.all_active:
            return bad & self.mask
        return bad

    def cta_ids(self) -> np.ndarray:
        """Block-in-batch index of each env position."""
        return self.cta_local if self.dense else self.cta_local[self.sel()]

    def sreg(self, which: SReg):
        if which in self._uniform:
            return self._uniform[which]
        if which is SReg.CLOCK:     # the warp's cycle at the start of this block
            return self.times.t[self.lane_ids() >> 5].copy()
        values = self._sregs[which]
        return values if self.dense else values[self.sel()]

    # warp-level views over the active lanes (compact order), for warp intrinsics
    def laneid_of_active(self) -> np.ndarray:
        return self.sel() & 31

    def cta_of_active(self) -> np.ndarray:
        return self.cta_local[self.sel()]

    def segment_starts(self) -> np.ndarray:
        s = self._cache.get("starts")
        if s is None:
            w = self.sel() >> 5
            boundary = np.ones(w.size, dtype=bool)
            boundary[1:] = w[1:] != w[:-1]
            s = self._cache["starts"] = np.flatnonzero(boundary)
            self._cache["seg"] = np.cumsum(boundary) - 1
        return s

    def warp_masks(self):
        """Per warp with active lanes: bits of lanes here, bits of exited lanes; warp per lane."""
        c = self._cache.get("masks")
        if c is None:
            starts = self.segment_starts()
            seg = self._cache["seg"]
            bits = LANE_BITS
            present = np.bitwise_or.reduceat(bits[self.sel() & 31], starts).astype(np.uint32)
            warps = self.sel()[starts] >> 5
            exited = ((self.pc.reshape(-1, 32)[warps] == self.done_pc) * bits).sum(axis=1)
            c = self._cache["masks"] = (present, exited.astype(np.uint32), seg)
        return c

    def register_file(self, index: int) -> np.ndarray:
        return self.R[index]

    # --- memory -------------------------------------------------------------------------
    def record_memory(self, ins: Instr, st: Storage, idx, width: int, nbytes: int = 0) -> None:
        """Count what one memory instruction did per warp and set its per-warp latency.
        ``idx`` counts elements of ``nbytes`` bytes (by default the array's own elements)."""
        if not self.timed:
            return
        sel = self.sel()
        mem = st.mem
        nbytes = nbytes or mem.elem.nbytes
        i = self.pick(idx)
        i = i.reshape(-1) if isinstance(i, np.ndarray) and i.dtype.kind == "i" else \
            np.asarray(i, dtype=np.int64).reshape(-1)    # numba takes either integer width
        n_rows = self.n_running
        slot = self.mem_slot
        self.mem_slot += 1
        k = self.prog.instr_id[id(ins)]
        rec = self.recorder
        if st.is_shared and not self.isolated and self.listener is None:
            # nothing reads the rows or the per-warp latencies: costs straight into the recorder
            waves, same = rec.shared_events(n_rows)
            vec = rec.vector.get(k, 0) if ins.op is Op.LD else 0
            n_waves, n_ideal = shared_events(sel, i, mem.offset, nbytes, width * nbytes, n_rows,
                                             ins.op is Op.ATOM, vec, waves, same)
            self.counters.memory(k, n_rows, n_waves, n_ideal, 0)
            return
        if st.is_shared:
            lat = self._shared_latency[ins.op is Op.ATOM]
            warps, rows, waves, ideal, n_waves, n_ideal = record_shared(
                sel, i, mem.offset, nbytes, width * nbytes, n_rows, self.warp_wavefronts,
                self.mem_lat[slot], self.mem_iv[slot], self.mem_extra[slot], lat)
            same = None
            if ins.op is Op.ATOM:   # lanes updating one address take turns
                same = np.empty(n_rows, dtype=np.int64)
                same_address_lanes(rows, same)
                self.mem_iv[slot] = np.maximum(self.mem_iv[slot], same)
                self.mem_lat[slot] += same - 1
            elif ins.op is Op.LD and rec is not None and k in rec.vector:
                same = np.empty(n_rows, dtype=np.int64)     # (memstats.vector_marks)
                vector_marks(rows, rec.vector[k], same)
            if rec is not None:
                rec.shared(waves, same)
            self.counters.memory(k, n_rows, n_waves, n_ideal, 0)
            if self.listener is not None:
                self.listener.memory(self, ins, warps, rows, width * nbytes, waves=waves, ideal=ideal)
            return
        if self.isolated:           # (its rows are the lanes' rows below)
            warps, rows, _ = record_global(sel, i, st.base_addr, nbytes, n_rows, st.seen_sectors,
                                           st.batch_sectors, self.mem_lat[slot], self._level_latency,
                                           self._atomic_latency, ins.op is Op.ATOM)
        else:
            warps, rows = rows_from_lanes(sel, lane_addresses(sel.size, i, st.base_addr, nbytes), n_rows)
        sectors = rec.global_(rows, 1 if ins.op is Op.ATOM else 2 if ins.op is Op.ST else 0,
                              width * nbytes)
        self.counters.memory(k, n_rows, 0, 0, int(sectors.sum()))
        if self.listener is not None:
            self.listener.memory(self, ins, warps, rows, width * nbytes, sectors=sectors)

    def flat_index(self, st: Storage, idx, width: int, ins: Instr):
        """Scalar offsets into ``st.data`` per env position; inactive positions point at 0."""
        bad = self.valid(out_of_bounds(idx, width, st.extent))
        if np.any(bad):
            self.raise_oob(st, idx, ins, bad)
        flat = np.asarray(idx, dtype=np.int64)
        if st.window:
            flat = flat + self.cta_ids() * st.window
        if self.dense and not self.all_active and flat.ndim:
            flat = np.where(self.mask, flat, 0)
        return flat
