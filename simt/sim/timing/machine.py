"""The machine: every SM of the GPU running the recorded warps, event by event, compiled.

Each SM holds as many blocks (CTAs) as occupancy allows; their warps sit in slots spread
over the SM's schedulers (the architecture's ``schedulers_per_sm``; scheduling.py says which
slot is on which). A scheduler issues, cycle by cycle, one instruction of one of its warps:
the warp whose next instruction is ready first (its source registers are ready and its pipe
is free), the warp that issued last winning ties (greedy-then-oldest). An instruction
occupies the scheduler's dispatch for its issue slots and its pipe for slots / pipe rate.
Results are ready a latency later: a fixed one for arithmetic, and for memory what the
memory system answers at the moment of issue:

see memsys.py.

Barriers release a block's warps when the last one arrives; a finished block frees its
slot and the block scheduler (one block every few cycles for the whole GPU) starts the next
block of the grid there. Times are in SM cycles from the first block's dispatch.

Every waiting cycle of a warp is charged to a stall reason and an instruction: waiting on a
register is charged to the instruction that produces it (the cause), a busy pipe or another
warp taking the scheduler to the waiting instruction, a barrier to the barrier.

The machine's state is a few named tuples of arrays: ``Warps`` (one entry per warp slot),
``Schedulers``, ``Blocks``; what it reads is ``Code`` (per instruction) and ``Streams``
(what each warp recorded), and what it reports goes to ``Results``.

The helpers the loop calls allocate nothing and are compiled without numba's reference
counting (``_nrt=False``, here and in memsys.py, caches.py, scheduling.py, private.py and
footprint.py's table lookups): a compiled function counts a reference to each array it is
handed on entry and drops it on exit, and with the memory system's thirty-odd arrays that
was a sixth to a quarter of the machine's time on memory-bound kernels (stencil_2d 26 -> 23
ms, histogram_shared 44 -> 33).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from . import isa
from .indices import (G_ATOM_HOT, LS_ENTRIES, M_CTAS, M_FIRST, M_ISSUE, M_LAST, M_LSU, M_PIPE0, M_WARP_CYCLES,
                      N_STATE, P_ATOM_UNITS, P_BAR_BASE, P_BAR_WARP, P_DISPATCH, P_L2_MERGE, P_RETIRE, P_SAMPLE,
                      P_SH_ATOM_LAT, P_SH_ATOM_SAME_LAT, P_SH_ATOM_SAME_TPUT, P_SH_FATOM_ROUND, P_SH_FATOM_SASS,
                      P_SH_LAT, P_SH_MIN, P_STORE_RETIRE, S_BARRIER, S_LG_THROTTLE, S_LONG,
                      S_NOT_SELECTED, S_SHORT, S_THROTTLE, S_WAIT, ST_HELD_UNTIL, ST_L2_FREE, ST_WARP, ST_WB_PAGE)
from .memsys import global_access
from .private import (WORTH, is_private, next_shared, private_work, run_ahead_waiting, run_alone, run_private,
                      tables)
from .scheduling import (INF, heap_pop, hold_pipe, mark_slots, pick_warp, queue_event, scheduler_of, slot_index,
                         wake, wake_others, when_ready)

RUN_AHEAD = 16.0     # cycles a scheduler may run ahead of the earliest pending event
SKIP = 64            # issues a scheduler makes here after a short run in private.py's loop
# ... unless what it issues touches nothing another scheduler shares (see ``run``)
SHFL_PIPE = isa.PIPES.index("shfl")

# A float shared atomic is a CAS loop, one lane of the words' lanes a round (``same`` rounds);
# the architecture gives each round's instructions and cycles (shared_atomic_f32_round_sass,
# shared_atomic_f32_round_cycles: fit_arch.py, micro2.cu shared_atom_f32_1warp). The parts
# outside the rounds are unmeasured structural constants, as the first timing model had them
# (commit d652dae; neither fit_arch.py nor benchmarks/timing/README.md derives them):
FATOM_LOOP_SASS = 4.0     # issue slots of the loop beyond its rounds (its setup and exit)
FATOM_ROUND_LSU = 2.0     # shared-pipe cycles a round: its load and its CAS, a wavefront each
ATOM_RECENT = 128          # updates an atomic unit remembers serving (a ring: line, float sectors, when)
FATOM_LOOP_LAT = 8.0      # latency beyond the rounds (replacing the plain atomic's)

# what the machine reads: per instruction (isa.tables) ...
Code = namedtuple("Code", ["kind", "pipe", "sass", "lat", "bpen", "src_ptr", "src", "dst_ptr", "dst",
                           "mem_slot", "atomic", "blk_first", "blk_len", "busy"])
# ... and what the warps recorded (recorder.py): each warp's entries (a recorded block each),
# their steps, and the memory events (lanes, sectors) of each step's accesses
Streams = namedtuple("Streams", ["entry_ptr", "entry_step", "entry_k", "step_block", "step_nrun", "step_ev",
                                 "ev_n", "ev_ptr", "ev_same", "sec", "sec_w"])
# the launch's shape: blocks, warps a block, blocks an SM, SMs, schedulers an SM, registers
Grid = namedtuple("Grid", ["n_ctas", "warps_per_cta", "blocks_per_sm", "n_sm", "n_sched", "n_regs"])
# what it reports: stalls [instr, reason]; start, end and SM [block]; [SM, stat]; [stat]
Results = namedtuple("Results", ["stalls", "cta_start", "cta_done", "cta_sm", "smstat", "glob"])

# the warp slots (all SMs' schedulers' SQ slots, scheduler by scheduler)
Warps = namedtuple("Warps", [
    "wid",        # the warp in the slot, -1 if none
    "e",          # its current entry (recorded block) ...
    "end",        # ... and the end of its entries
    "bend",       # the end of the current block's instructions
    "ins",        # the next instruction
    "own",        # when the warp itself may issue again
    "bar",        # waiting at a barrier
    "cta",        # its block
    "start",      # when it started
    "barins",     # the barrier a waiting warp is at
    "src",        # when the next instruction's sources are ready ...
    "sprod",      # ... and which instruction produces the last one
    "store",      # when the warp's stores and atomics are acknowledged
    "fetch",      # the warp's DRAM fetches in flight: (how many, until), and the first line
                  # and the count of lines of its last global access if a store, and how many
                  # stores merged into it since its lines were last sent whole (memsys.py)
    # what the scheduler's pick reads, kept up to date so that its pass over the warps is
    # short: max(own, src), INF for an empty slot or a warp at a barrier; the next
    # instruction's pipe
    "c0", "pp",
    # [slot, register]: when each is ready and the instruction that produces it; a slot's
    # rows are set when a block starts; the last column is a register that is always ready
    # (the private run pads sources with it)
    "reg_ready", "reg_prod"])

Schedulers = namedtuple("Schedulers", [
    "free",       # when its dispatch is free
    "pipe_free",  # [scheduler, pipe]: when each pipe is free (the column past the last: no pipe)
    "order",      # [scheduler, SQ]: its slots, oldest warp first
    "slots",      # its slots [0, n) have held warps
    "ver",        # the version of its live event on the heap
    "last",       # the slot that issued last, -1 if none
    "next",       # the time of its pending event (INF: none)
    "wait",       # its warps waiting at a barrier
    "skip",       # its issues before it tries private.py's loop again
    # private runs done ahead (private.py), taken when the scheduler's event comes: whether
    # one is, and its (time, greedy warp, idle)
    "ahead", "ahead_t", "ahead_greedy", "ahead_idle"])

Blocks = namedtuple("Blocks", [
    "slot",       # [SM, block slot]: the block there, -1 if none
    "live",       # its warps not exited
    "arrived",    # ... of which at the barrier
    "bar_t",      # when the last of those arrived
    "where",      # its SM * blocks_per_sm + block slot
    "free",       # when its last writes have left the SM
    "launcher"])  # [SM]: when the SM's launcher (one block at a time) is free


@njit(cache=True, nogil=True)
def _new_warps(n_slots, n_regs):
    return Warps(np.full(n_slots, -1, np.int64), np.zeros(n_slots, np.int64), np.zeros(n_slots, np.int64),
                 np.zeros(n_slots, np.int64), np.zeros(n_slots, np.int64), np.zeros(n_slots, np.float64),
                 np.zeros(n_slots, np.int8), np.zeros(n_slots, np.int64), np.zeros(n_slots, np.float64),
                 np.zeros(n_slots, np.int64), np.zeros(n_slots, np.float64), np.full(n_slots, -1, np.int64),
                 np.zeros(n_slots, np.float64), np.zeros((n_slots, 5), np.float64),
                 np.full(n_slots, INF, np.float64), np.zeros(n_slots, np.int64),
                 np.empty((n_slots, n_regs + 1), np.float64), np.empty((n_slots, n_regs + 1), np.int32))


@njit(cache=True, nogil=True)
def _new_schedulers(n_sp, SQ, n_pipes):
    pipe_free = np.zeros((n_sp, 2 * n_pipes + 1), np.float64)   # then each pipe's queue end (hold_pipe)
    pipe_free[:, n_pipes] = -INF                # no pipe: never what a warp waits for
    return Schedulers(np.zeros(n_sp, np.float64), pipe_free, np.zeros((n_sp, SQ), np.int64),
                      np.zeros(n_sp, np.int64), np.zeros(n_sp, np.int64), np.full(n_sp, -1, np.int64),
                      np.full(n_sp, INF, np.float64), np.zeros(n_sp, np.int64), np.zeros(n_sp, np.int64),
                      np.zeros(n_sp, np.int8), np.zeros(n_sp, np.float64), np.zeros(n_sp, np.int64),
                      np.zeros(n_sp, np.bool_))


@njit(cache=True, nogil=True)
def _new_blocks(n_ctas, n_sm, blocks_per_sm):
    return Blocks(np.full((n_sm, blocks_per_sm), -1, np.int64), np.zeros(n_ctas, np.int64),
                  np.zeros(n_ctas, np.int64), np.zeros(n_ctas, np.float64), np.zeros(n_ctas, np.int64),
                  np.zeros(n_ctas, np.float64), np.zeros(n_sm, np.float64))


@njit(cache=True, nogil=True)
def _stall_classes(code):
    """(the stall a wait on each instruction's result counts as; whether it touches only its
    scheduler's state)."""
    kind, pipe = code.kind, code.pipe
    stall_cls = np.full(kind.size, S_WAIT, np.int8)
    private = np.ones(kind.size, np.bool_)
    for i in range(kind.size):
        private[i] = is_private(kind[i])
        if kind[i] == isa.GLOBAL_LD or kind[i] == isa.GLOBAL_ATOM:
            stall_cls[i] = S_LONG
        elif kind[i] == isa.SHARED_LD or kind[i] == isa.SHARED_ATOM or pipe[i] == SHFL_PIPE:
            stall_cls[i] = S_SHORT
    return stall_cls, private


@njit(cache=True, nogil=True, _nrt=False)
def _place(c, m, t, grid, SQ, code, streams, warps, blocks, smstat):
    """Start block ``c`` on SM ``m`` at time ``t`` in its first free block slot; return the
    slot."""
    wpc = grid.warps_per_cta
    q = 0
    while blocks.slot[m, q] != -1:
        q += 1
    blocks.slot[m, q] = c
    blocks.where[c] = m * grid.blocks_per_sm + q
    blocks.arrived[c] = 0
    blocks.bar_t[c] = 0.0
    live = 0
    reg_ready, reg_prod = warps.reg_ready, warps.reg_prod
    for w in range(wpc):
        g = slot_index(m, q * wpc + w, grid.n_sched, SQ)
        wid = c * wpc + w
        e0 = streams.entry_ptr[wid]
        e1 = streams.entry_ptr[wid + 1]
        if e0 == e1:
            continue
        live += 1
        warps.wid[g] = wid
        warps.e[g] = e0
        warps.end[g] = e1
        b0 = streams.step_block[streams.entry_step[e0]]
        warps.ins[g] = code.blk_first[b0]
        warps.bend[g] = code.blk_first[b0] + code.blk_len[b0]
        warps.own[g] = t
        warps.bar[g] = 0
        warps.cta[g] = c
        warps.start[g] = t
        warps.src[g] = t
        warps.c0[g] = t
        warps.pp[g] = code.pipe[warps.ins[g]]
        warps.sprod[g] = -1
        reg_ready[g, :] = t
        reg_prod[g, :] = -1
        reg_ready[g, reg_ready.shape[1] - 1] = 0.0    # the register that is always ready
    blocks.live[c] = live
    if smstat[m, M_CTAS] == 0:
        smstat[m, M_FIRST] = t
    smstat[m, M_CTAS] += 1
    return q


@njit(cache=True, nogil=True, _nrt=False)
def _launch(c, m, t, grid, SQ, code, streams, warps, scheds, blocks, out):
    """Block ``c`` starts on SM ``m`` at ``t``: its warps take their slots, which the SM's
    schedulers list in their pick's order."""
    blocks.launcher[m] = t
    out.cta_start[c] = t
    out.cta_sm[c] = m
    q = _place(c, m, t, grid, SQ, code, streams, warps, blocks, out.smstat)
    mark_slots(q, m, grid.warps_per_cta, scheds.slots, warps.wid, grid.n_sched, SQ, scheds.order)


@njit(cache=True, nogil=True, _nrt=False)
def _event(entry_step, step_ev, step_nrun, entry_k, mem_slot, ins, e):
    """The memory event (lanes, sectors) of memory instruction ``ins`` at a warp's entry ``e``."""
    step = entry_step[e]
    return step_ev[step] + mem_slot[ins] * step_nrun[step] + entry_k[e]


@njit(cache=True, nogil=True, _nrt=False)
def _shared_access(k, fatom, ev, T, m, slots, ev_n, ev_same, P, lsu_free, smstat):
    """A shared load, store or atomic (``fatom``: a float atomic) issued at ``T`` on SM ``m``
    with ``slots`` issue slots: its wavefronts take the SM's shared pipe. A load ptxas merged
    into a vector LDS (the recorder's ``same``, memstats.vector_marks) costs the vector's
    wavefronts where it leads it, none after. Returns (issue slots, when its result is ready)."""
    wave = ev_n[ev]
    if k == isa.SHARED_LD:
        v = ev_same[ev]
        if v == isa.VEC_REST:                 # in the vector its first part loaded
            return slots, max(T, lsu_free[m]) + P[P_SH_LAT]
        if v > 0:
            wave = v
    service = max(float(wave), P[P_SH_MIN])
    extra_lat = 0.0
    if k == isa.SHARED_ATOM:
        same = ev_same[ev]
        if fatom:
            slots = P[P_SH_FATOM_SASS] * same + FATOM_LOOP_SASS
            service = FATOM_ROUND_LSU * same
            extra_lat = P[P_SH_FATOM_ROUND] * same + FATOM_LOOP_LAT - P[P_SH_ATOM_LAT]
        else:
            service += (same - 1) * P[P_SH_ATOM_SAME_TPUT]
            extra_lat = (same - 1) * P[P_SH_ATOM_SAME_LAT]
    s0 = max(T, lsu_free[m])
    lsu_free[m] = s0 + service
    smstat[m, M_LSU] += service
    base = P[P_SH_ATOM_LAT] if k == isa.SHARED_ATOM else P[P_SH_LAT]
    return slots, s0 + base + (wave - 1) + extra_lat


@njit(cache=True, nogil=True, _nrt=False)
def _release_barrier(c, m, sp, grid, SQ, P, warps, scheds, blocks, stalls, hk, hv, hn, hsize):
    """Every live warp of block ``c`` (on SM ``m``) has arrived at its barrier: release them
    and wake their schedulers. Returns (the heap's size, when the warps released on the
    issuing scheduler ``sp`` can go, INF if none)."""
    wake_here = INF
    release = blocks.bar_t[c] + P[P_BAR_BASE] + P[P_BAR_WARP] * blocks.live[c]
    q = blocks.where[c] % grid.blocks_per_sm
    for w in range(grid.warps_per_cta):
        sl = q * grid.warps_per_cta + w
        g = slot_index(m, sl, grid.n_sched, SQ)
        if warps.wid[g] >= 0 and warps.bar[g]:
            stalls[warps.barins[g], S_BARRIER] += release - warps.own[g]
            warps.bar[g] = 0
            sp2 = scheduler_of(m, sl, grid.n_sched)
            scheds.wait[sp2] -= 1
            warps.own[g] = release
            warps.c0[g] = max(release, warps.src[g])
            if sp2 == sp:
                wake_here = min(wake_here, release)
            else:
                hsize = wake(hk, hv, hn, hsize, scheds.next, scheds.ver, sp2, release)
    blocks.arrived[c] = 0
    blocks.bar_t[c] = 0.0
    return hsize, wake_here


@njit(cache=True, nogil=True)
def run(code, streams, grid, P, pipe_interval, mem, out):
    """Simulate ``grid.n_ctas`` blocks of ``code`` as ``streams`` recorded them; fills
    ``out`` (``Results``). Returns the time the kernel ends."""
    n_ctas, n_sm, n_sched = grid.n_ctas, grid.n_sm, grid.n_sched
    # The first wave gives each SM at most ``held`` blocks, and a block only ever starts in
    # the slot another left on its SM, so no SM holds more than that, and only the first
    # ``used`` SMs hold any: a small grid gets warp slots for them alone (a fresh
    # megabyte of slots' registers per launch costs more than a small launch's replay)
    held = min(grid.blocks_per_sm, (n_ctas + n_sm - 1) // n_sm)
    used = min(n_sm, n_ctas)
    S = held * grid.warps_per_cta                     # warp slots per SM
    SQ = (S + n_sched - 1) // n_sched                 # ... per scheduler
    n_sp = n_sm * n_sched
    n_pipes = pipe_interval.size
    nr = max(1, grid.n_regs)
    kind, pipe, sass, lat, bpen = code.kind, code.pipe, code.sass, code.lat, code.bpen
    busy = code.busy                # per instruction: cycles it holds its pipe, and of them its stretch (hold_pipe)
    src_ptr, src, dst_ptr, dst = code.src_ptr, code.src, code.dst_ptr, code.dst
    stalls, smstat, glob = out.stalls, out.smstat, out.glob
    warps = _new_warps(used * n_sched * SQ, nr)
    scheds = _new_schedulers(n_sp, SQ, n_pipes)
    blocks = _new_blocks(n_ctas, n_sm, grid.blocks_per_sm)
    stall_cls, private = _stall_classes(code)
    # The loop below works on local names of the arrays, and the issue's stall accounting and
    # its advance past free instructions are written out in it: numba counts references on
    # every read of a tuple's field and on every array handed to an inlined helper, and in a
    # loop that costs (measured on the fractal: reading the tuples' fields in the loop made
    # the machine 4x slower, the two pieces as inlined helpers of 20 arrays 2x)
    (sl_warp, sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_bar, sl_cta, sl_start, sl_barins, sl_src, sl_sprod,
     sl_store, sl_fetch, sl_c0, sl_pp, reg_ready, reg_prod) = warps
    (sp_free, pipe_free, sp_order, sp_slots, sp_ver, sp_last, sp_next, sp_wait, sp_skip, ahead, ahead_t,
     ahead_greedy, ahead_idle) = scheds
    cta_slot, cta_live, cta_arrived, cta_bar_t, cta_where, cta_free, launcher = blocks
    blk_first, blk_len, mem_slot, atomic = code.blk_first, code.blk_len, code.mem_slot, code.atomic
    (entry_ptr, entry_step, entry_k, step_block, step_nrun, step_ev, ev_n, ev_ptr, ev_same, sec,
     sec_w) = streams
    issue, srcs, dest, e_first, e_end = tables(kind, src_ptr, src, dst_ptr, dst, blk_first, blk_len, entry_step,
                                               step_block, nr)
    shared = next_shared(issue)               # where each instruction's private run stops
    lsu_free = np.zeros(n_sm, np.float64)     # the L1's data stage: shared wavefronts, loaded lines
    l1t_free = np.zeros(n_sm, np.float64)     # the L1's tag stage: global lines
    # memory system: the caches' arrays come from ``memory_arrays``, reused from launch to
    # launch; a set's ways are emptied when first looked at (find), a line's valid, dirty and
    # written marks when it is allocated, and its ready time is written by the request that
    # allocates it before any hit reads it, so only the sets' first-look marks are cleared here,
    # and the L2 ledger's marks of which span each slot holds (a span is emptied when first
    # taken: l2queue.l2_take)
    (l1_tag, l1_init, l1_valid, l1_stamp, l1_ready, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready,
     fifo, ledger, line_keys, line_weights, sector_keys, sector_weights) = mem
    l1_init[:] = 0
    l2_init[:] = 0
    ledger[1, :] = -1.0
    l1_store = np.zeros((n_sm, LS_ENTRIES + 1, 3), np.float64)    # each SM's recent one-sector stores
    l1_store[:, :LS_ENTRIES, 0] = -1.0                                 # (memsys.py, indices.py)
    l1s_free = np.zeros(n_sm, np.float64)     # the SM's path from its L1 to the L2: stored lines
    l1 = (l1_tag, l1_init, l1_valid, l1_stamp, l1_ready, l1t_free, lsu_free, l1_store, l1s_free)
    atom_free = np.zeros(max(1, int(P[P_ATOM_UNITS])), np.float64)
    atom_busy = np.zeros(atom_free.size, np.float64)
    state = np.zeros(N_STATE, np.float64)     # named in indices.py (ST_*)
    state[ST_WB_PAGE] = -1.0
    ibufs = np.zeros((6, 32), np.int64)       # lines, masks, partial writes, L1 and L2 ways, merge rows of an access
    wbuf = np.zeros((3, 32), np.float64)     # an atomic's lines' service: lanes shared a word, any
    atom_line = np.full((atom_free.size, ATOM_RECENT, 3), -1, np.int64)   # the lines (float sectors, start) each unit served last
    atom_head = np.zeros(atom_free.size, np.int64)                         # ... and where its next goes
    atoms = (atom_free, atom_busy, atom_line, atom_head)
    # a sampled replay's L2: what each line stands for (footprint.py), what each way's does,
    # and a map of the DRAM halves it has read (memsys.fetched_before: 2^26 bits); the ledger
    # of the L2 queue's work by time; and what each sector an atomic reads stands for
    sampled = P[P_SAMPLE] > 1.0
    l2x = (line_keys, line_weights, np.ones(l2_tag.shape if sampled else (1, 1, 1), np.float64),
           np.zeros((1 << 20) if sampled else 1, np.uint64), ledger, sector_keys, sector_weights,
           np.full((1 << 14 if P[P_L2_MERGE] > 0.0 else 1, 5), -1.0))
    H = np.zeros(33, np.float64)
    for k in range(1, 33):
        H[k] = H[k - 1] + 1.0 / k
    # the event heap: (time, scheduler, version)
    hk = np.empty(16 * n_sp + 64, np.float64)
    hv = np.empty(16 * n_sp + 64, np.int64)
    hn = np.empty(16 * n_sp + 64, np.int64)
    hsize = 0
    # first wave: one block per SM per round, as long as slots and blocks last
    next_cta = 0
    for rnd in range(grid.blocks_per_sm):
        for m in range(n_sm):
            if next_cta >= n_ctas:
                break
            t0 = launcher[m] + P[P_DISPATCH]
            _launch(next_cta, m, t0, grid, SQ, code, streams, warps, scheds, blocks, out)
            hsize = wake_others(hk, hv, hn, hsize, sp_next, sp_ver, m, n_sched, t0, -1)
            next_cta += 1
    end_time = 0.0
    drain = 0.0
    if next_cta >= n_ctas:          # the last block is launched: the waiting schedulers run ahead
        run_ahead_waiting(
            sp_next, sp_wait, ahead_t, ahead_greedy, ahead_idle, ahead,
            stalls, smstat, SQ, n_sched, n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst,
            issue, srcs, dest, stall_cls, e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own,
            sl_src, sl_sprod, sl_c0, sl_pp, reg_ready, reg_prod, pipe_free,
            busy, sp_free, sp_last, sp_slots, sp_order, shared)
    while hsize > 0:
        t, sp, ver, hsize = heap_pop(hk, hv, hn, hsize)
        if ver != sp_ver[sp]:
            continue
        sp_next[sp] = INF
        m = sp // n_sched
        # the scheduler issues, picking among its warps each time, while it stays within a few
        # cycles of the earliest pending event of the others; then it goes back to the queue.
        # Greedy-then-oldest: the warp that issued last goes on, without a new look at the
        # others, while it is ready as soon as the scheduler is (it would win that look)
        greedy = -1
        while True:
            if ahead[sp]:
                ahead[sp] = 0
                t, greedy, idle = ahead_t[sp], ahead_greedy[sp], ahead_idle[sp]
                if idle:
                    break
            # Once nothing outside the scheduler can change what it issues (no block is left
            # to launch, none of its warps waits at a barrier), the warp it picks next, if at
            # an instruction that touches nothing shared with more such ahead of it (a call
            # costs a few issues), goes on in private.py's tight loop, which takes the same
            # pick (from the same greedy warp) and issues while it can
            alone = next_cta >= n_ctas and sp_wait[sp] == 0
            greedy0 = greedy
            picked = greedy < 0
            if greedy >= 0:
                g = greedy
                T = max(sp_free[sp], t)
                # still ready when the scheduler is: it wins again (greedy); else everyone looks
                if when_ready(sp, g, sl_c0, sl_pp, pipe_free) > T or (
                        T > t and hsize > 0 and T > hk[0] + RUN_AHEAD and not (alone and private[sl_ins[g]])):
                    greedy = -1
                    picked = True
            if picked:
                # one pass over the scheduler's warps: when each could issue next (c), the
                # earliest, and of those ready by the time the scheduler is free, the one that
                # issued last, else the oldest
                base = max(sp_free[sp], t)
                min1_c, min1_g, best = pick_warp(sp, SQ, sp_slots[sp], base, sl_c0, sl_pp,
                                                 pipe_free, sp_last[sp], sp_order)
                if min1_g < 0:
                    break                  # nothing to run: a wake-up will queue the scheduler
                if best < 0:               # nobody ready yet: the earliest goes, when it can
                    best = min1_g
                T = max(min1_c, base)
                g = best
            if alone and sp_skip[sp] == 0 and run_alone(issue, sl_ins[g], sl_e[g], sl_end[g]) and \
                    private_work(g, sl_ins, sl_e, sl_end, e_first, e_end, shared, WORTH) >= WORTH:
                t, greedy, idle, n_run = run_private(
                    sp, m, t, greedy0, SQ, n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src,
                    dst_ptr, dst, issue, srcs, dest, stall_cls, e_first, e_end, sl_e, sl_end,
                    sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0, sl_pp,
                    reg_ready, reg_prod, pipe_free, busy, sp_free,
                    sp_last, sp_slots, sp_order, stalls, smstat)
                if n_run < WORTH:          # other warps cut it short: not worth a call for a while
                    sp_skip[sp] = SKIP
                if idle:
                    break
                continue
            if picked:
                # Past the others' earliest event by more than RUN_AHEAD, the scheduler goes
                # back to the queue, so that what the schedulers share (the memory system, the
                # LSU, barriers, the block launcher) sees requests in about the order of their
                # times. An instruction that touches none of it (ALU, branch) goes on at once,
                # as long as no other scheduler can still hand this one a warp: no block is
                # left to launch and none of its warps waits at a barrier. Shared requests keep
                # their RUN_AHEAD window; only the order in which they are looked at within
                # it moves (the compute-bound fractal spends a quarter less time here).
                if T > t and hsize > 0 and T > hk[0] + RUN_AHEAD and not (alone and private[sl_ins[best]]):
                    hsize = queue_event(hk, hv, hn, hsize, sp_next, sp_ver, sp, T)
                    break
            t = T
            if sp_skip[sp] > 0:
                sp_skip[sp] -= 1
            # ---- issue the next instruction of warp ``g`` at T -------------------------------
            sp_last[sp] = g
            ins = sl_ins[g]
            k = kind[ins]
            pp = pipe[ins]
            # stall accounting: [own, dep] -> producer's reason; [dep, pipe] throttle; rest not selected
            own = sl_own[g]
            dep = own
            prod = -1
            pcls = S_WAIT
            if sl_src[g] > own:
                dep = sl_src[g]
                prod = sl_sprod[g]
                if prod >= 0:
                    pcls = stall_cls[prod]
            if dep > own:
                stalls[prod if prod >= 0 else ins, pcls] += dep - own
            pf = pipe_free[sp, pp] if pp < n_pipes else 0.0
            if pf > dep:
                stalls[ins, S_THROTTLE] += pf - dep
                dep = pf
            if T > dep:
                stalls[ins, S_NOT_SELECTED] += T - dep
            slots = sass[ins]
            done = T + lat[ins]
            held = 0.0
            if k == isa.SHARED_LD or k == isa.SHARED_ST or k == isa.SHARED_ATOM:
                ev = _event(entry_step, step_ev, step_nrun, entry_k, mem_slot, ins, sl_e[g])
                slots, done = _shared_access(k, atomic[ins] == isa.ATOM_FLOAT, ev, T, m, slots, ev_n, ev_same, P, lsu_free, smstat)
            elif k == isa.GLOBAL_LD or k == isa.GLOBAL_ST or k == isa.GLOBAL_ATOM:
                ev = _event(entry_step, step_ev, step_nrun, entry_k, mem_slot, ins, sl_e[g])
                state[ST_WARP] = g
                done = global_access(k, m, T, ev, ev_n, ev_ptr, sec, sec_w, atomic[ins], P, H, l1, l2_tag, l2_init,
                                     l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready, fifo, l2x, atoms, state,
                                     glob, smstat, ibufs, wbuf, sl_fetch, g)
                held = state[ST_HELD_UNTIL]
                if k != isa.GLOBAL_LD:
                    if done > sl_store[g]:
                        sl_store[g] = done
                    if T + P[P_STORE_RETIRE] > cta_free[sl_cta[g]]:
                        cta_free[sl_cta[g]] = T + P[P_STORE_RETIRE]
            elif pp < n_pipes:
                hold_pipe(pipe_free, sp, pp, n_pipes, T, busy[ins, 0], busy[ins, 1])
                smstat[m, M_PIPE0 + pp] += busy[ins, 0]
            sp_free[sp] = T + slots
            smstat[m, M_ISSUE] += slots
            for p in range(dst_ptr[ins], dst_ptr[ins + 1]):
                reg_ready[g, dst[p]] = done
                reg_prod[g, dst[p]] = ins
            own = T + slots
            if bpen[ins] > 0.0:          # a conditional branch resolves before the next fetch
                own = T + bpen[ins]
            if held > own:           # a full memory queue holds the warp
                stalls[ins, S_LG_THROTTLE] += held - own
                own = held
            c = sl_cta[g]
            if k == isa.BARRIER:
                sl_bar[g] = 1
                sp_wait[sp] += 1
                sl_barins[g] = ins
                cta_arrived[c] += 1
                if own > cta_bar_t[c]:
                    cta_bar_t[c] = own
            # ---- advance the warp past this and any free instructions ---------------------------
            exited = False
            nxt = sl_ins[g]
            while True:
                nxt += 1
                if nxt == sl_bend[g]:            # the block is done: the warp's next block
                    sl_e[g] += 1
                    if sl_e[g] >= sl_end[g]:
                        exited = True
                        break
                    b = step_block[entry_step[sl_e[g]]]
                    nxt = blk_first[b]
                    sl_bend[g] = nxt + blk_len[b]
                if kind[nxt] != isa.FREE:
                    break
                ready = own
                fp = -1
                for p in range(src_ptr[nxt], src_ptr[nxt + 1]):
                    r = reg_ready[g, src[p]]
                    if r > ready:
                        ready = r
                        fp = reg_prod[g, src[p]]
                for p in range(dst_ptr[nxt], dst_ptr[nxt + 1]):
                    reg_ready[g, dst[p]] = ready
                    reg_prod[g, dst[p]] = fp
            sl_ins[g] = nxt
            sl_own[g] = own
            if not exited:
                ready = 0.0
                sl_sprod[g] = -1
                for p in range(src_ptr[nxt], src_ptr[nxt + 1]):
                    r = reg_ready[g, src[p]]
                    if r > ready:
                        ready = r
                        sl_sprod[g] = reg_prod[g, src[p]]
                sl_src[g] = ready
            if exited:
                if sl_store[g] > drain:       # the kernel ends when its writes are applied
                    drain = sl_store[g]
                sl_store[g] = 0.0
                sl_fetch[g, :] = 0.0
                sl_warp[g] = -1
                smstat[m, M_WARP_CYCLES] += own - sl_start[g]
                cta_live[c] -= 1
                if own > end_time:
                    end_time = own
            else:
                sl_pp[g] = pipe[sl_ins[g]]
            sl_c0[g] = INF if exited or sl_bar[g] else max(own, sl_src[g])
            wake_here = INF       # when warps this issue woke on this scheduler can go
            if cta_live[c] > 0 and cta_arrived[c] == cta_live[c] and (k == isa.BARRIER or exited):
                hsize, wake_here = _release_barrier(c, m, sp, grid, SQ, P, warps, scheds, blocks, stalls,
                                                    hk, hv, hn, hsize)
            # ---- a finished block frees its slot; the next block of the grid starts there ------
            if exited and cta_live[c] == 0:
                out.cta_done[c] = own
                smstat[m, M_LAST] = max(smstat[m, M_LAST], own)
                cta_slot[m, cta_where[c] % grid.blocks_per_sm] = -1
                if next_cta < n_ctas:
                    # the block retires, then the SM's launcher (one block at a time) starts
                    # the next block of the grid in its slot
                    td = max(max(own, cta_free[c]) + P[P_RETIRE], launcher[m]) + P[P_DISPATCH]
                    _launch(next_cta, m, td, grid, SQ, code, streams, warps, scheds, blocks, out)
                    next_cta += 1
                    wake_here = min(wake_here, td)
                    hsize = wake_others(hk, hv, hn, hsize, sp_next, sp_ver, m, n_sched, td, sp)
                    if next_cta == n_ctas:
                        run_ahead_waiting(
                            sp_next, sp_wait, ahead_t, ahead_greedy, ahead_idle,
                            ahead, stalls, smstat, SQ, n_sched, n_pipes, kind, pipe, sass, lat, bpen,
                            src_ptr, src, dst_ptr, dst, issue, srcs, dest, stall_cls, e_first, e_end, sl_e,
                            sl_end, sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0,
                            sl_pp, reg_ready, reg_prod, pipe_free, busy,
                            sp_free, sp_last, sp_slots, sp_order, shared)
            greedy = g if not exited and not sl_bar[g] and wake_here == INF else -1
    # the kernel ends when the memory system has applied every store and atomic
    drained = max(state[ST_L2_FREE], atom_free.max(), drain)
    glob[G_ATOM_HOT] = atom_busy.max()
    return max(end_time, drained)
