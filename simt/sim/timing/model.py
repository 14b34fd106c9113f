"""From a recorded launch to what Nsight Compute would report: run the machine, extrapolate a
sampled grid, and name the metrics and the limiting resource.

Metric definitions follow the Nsight Compute Profiling Guide (see docs/metrics.md):
``sm__cycles_elapsed.max`` is the kernel's duration in SM cycles (every SM's elapsed cycles
are the kernel's; launch latency outside the kernel is not counted), which is the launch
floor (measured on an empty kernel) plus the simulated time from the first block's dispatch
to the last warp's exit.
"""
from __future__ import annotations

import threading

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from . import loop_trips, sass_pipes, sass_slots, stores
from . import folding, footprint as fp, indices as ix, isa, machine, memsys, replay_streams, sass_replay
from ...gpu import sass as gpu_sass

# what r.bottleneck["limiter"] can be: a unit busy most of the time, else the launch floor,
# barriers, the SM's global-memory queue held full (Nsight Compute's lg_throttle stall), too
# few warps resident to hide latency, or latency with the SM as full as it gets
COMPUTE_UNITS = ("issue",) + isa.PIPES[:-1]              # the scheduler's issue and its pipes (not branch)
UNITS = COMPUTE_UNITS + ("shared", "l1", "l2", "dram", "atomics")
LIMITERS = UNITS + ("launch", "barriers", "lg_queue", "occupancy", "latency")

# the occupancy limits (Arch.occupancy) as a reader names them
RESOURCES = {"warps": "warps per SM", "blocks": "blocks per SM", "registers": "registers",
             "shared": "shared memory"}


def timing_data(arch) -> dict:
    return arch.data["timing"]          # load_arch checked every key the model reads


def params(arch, carveout: int):
    """(P, pipe intervals, L1 lines, L2 lines) for the machine, ``carveout`` bytes of its
    L1/shared array configured as shared memory."""
    t = timing_data(arch)
    lat = t["latency"]
    P = np.zeros(ix.N_PARAMS, np.float64)
    P[ix.P_L1_LAT] = lat["l1"]
    P[ix.P_L1_LINE_STEP] = t["l1_line_step_cycles"]
    P[ix.P_L1_LINE_CYCLES] = t["l1_line_cycles"]
    P[ix.P_L1_FOLD] = t.get("l1_set_fold", 0)
    P[ix.P_L2_MERGE] = t.get("l2_merge_window_cycles", 0.0)
    P[ix.P_L2_MERGE_MOST] = t.get("l2_merge_most", 0.0)
    P[ix.P_L2_LAT] = lat["l2"]
    P[ix.P_L2_TAIL] = t["l2_tail_cycles"]
    P[ix.P_DRAM_LAT] = lat["dram"]
    P[ix.P_DRAM_TAIL] = t["dram_tail_cycles"]
    P[ix.P_L2_READ_BPC] = t["l2_read_bytes_per_cycle"]
    P[ix.P_DRAM_BPC] = t["dram_bytes_per_cycle"]
    P[ix.P_DRAM_WRITE_COST] = t["dram_write_cost"]
    P[ix.P_DRAM_FETCH] = t["dram_fetch_bytes"]
    # optional (files without it: an access costs the DRAM its bytes alone; dram.dram_cost)
    P[ix.P_DRAM_ACCESS] = t.get("dram_access_bytes", 0.0)
    P[ix.P_DRAM_RMW_ACCESS] = t.get("dram_rmw_access_bytes", P[ix.P_DRAM_ACCESS])
    P[ix.P_DRAM_PAGE] = max(1, t.get("dram_page_bytes", arch.line_bytes) // arch.line_bytes)    # in lines
    P[ix.P_SH_LAT] = lat["shared"]
    P[ix.P_SH_MIN] = t["shared_instruction_cycles"]
    P[ix.P_SH_ATOM_LAT] = lat["atomic_shared"]
    P[ix.P_SH_ATOM_SAME_LAT] = t["shared_atomic_same_lane_cycles"]
    P[ix.P_SH_ATOM_SAME_TPUT] = t["shared_atomic_same_lane_throughput"]
    P[ix.P_SH_FATOM_ROUND] = t["shared_atomic_f32_round_cycles"]
    P[ix.P_SH_FATOM_SASS] = t["shared_atomic_f32_round_sass"]
    P[ix.P_G_ATOM_LAT] = lat["atomic_global"]
    P[ix.P_ATOM_SAME] = t["atomic_same_address_cycles"]
    P[ix.P_ATOM_SAME_F] = t["atomic_same_address_cycles_f32"]
    P[ix.P_ATOM_UNITS] = t["atomic_units"]
    P[ix.P_ATOM_INTERLEAVE] = t["atomic_interleave_bytes"]
    P[ix.P_BAR_BASE] = t["barrier_cycles"]
    P[ix.P_BAR_WARP] = t["barrier_cycles_per_warp"]
    P[ix.P_L2_DIRTY_SECTORS] = t["l2_dirty_bytes"] / arch.sector_bytes
    P[ix.P_QUEUE_ALLOWANCE] = t["memory_queue_cycles"]
    P[ix.P_L2_WRITE_LINE] = t["l2_write_cycles_per_line"]
    P[ix.P_L2_WRITE_SECTOR] = t["l2_write_cycles_per_sector"]
    P[ix.P_DISPATCH] = t["cta_launch_cycles"]
    P[ix.P_RETIRE] = t["cta_retire_cycles"]
    P[ix.P_STORE_RETIRE] = t["store_retire_cycles"]
    P[ix.P_BRANCH] = t["branch_cycles"]
    P[ix.P_ATOM_SPREAD] = t["atomic_spread_cycles"]
    # a line its unit did not update lately (atomic_lines.cu); without the window every line
    # counts as hot (a file written before simt calibrate measured it)
    P[ix.P_ATOM_COLD] = t.get("atomic_cold_sector_cycles", t["atomic_line_cycles"])
    P[ix.P_ATOM_WINDOW] = t.get("atomic_hot_window_cycles", 0.0)
    P[ix.P_DRAM_QUEUE] = t["dram_queue_cycles"]
    P[ix.P_ATOM_LINE] = t["atomic_line_cycles"]
    P[ix.P_DRAM_WRITE_QUEUE] = t["dram_write_queue_cycles"]
    P[ix.P_SAMPLE] = 1.0
    # optional (files from before l2_sharing.cu: one partition, hits limited by bytes alone;
    # load_arch allows one or two partitions: memsys.py keeps a bit a partition in a byte)
    P[ix.P_L2_PARTS] = t.get("l2_partitions", 1)
    rate = t.get("l2_requests_per_cycle")
    P[ix.P_L2_REQUEST] = 1.0 / rate if rate else 0.0
    # optional (files without it, as simt calibrate writes: a load's lines take the tag stage at the data
    # stage's rate, and the data stage a cycle a line; with it, the tag stage takes this a
    # line and the data stage l1_line_cycles a bank wavefront)
    P[ix.P_L1_TAG_LINE] = t.get("l1_tag_line_cycles", 0.0)
    # optional (files without it: no store merges with the one before it; memsys.py)
    P[ix.P_STORE_MERGE] = t.get("store_merge_lines", 0)
    # optional (files without them: half as many lines with an instruction between, and every
    # merged store free; memsys.py)
    P[ix.P_STORE_MERGE_NEAR] = t.get("store_merge_lines_near", 0.5 * P[ix.P_STORE_MERGE])
    P[ix.P_STORE_MERGE_SHARE] = t.get("store_merge_share", 0.0)
    # optional (files without it, as simt calibrate writes before it ran l1_store_data.cu: a
    # store's lines leave the SM as fast as its tag stage takes them; memsys.py)
    P[ix.P_STORE_LINE] = t.get("l1_store_line_cycles", 0.0)
    P[ix.P_STORE_SECTOR] = t.get("l1_store_sector_cycles", 0.0)
    # optional (files without it: a store's lines take nothing of the L1's data stage)
    P[ix.P_STORE_DATA] = t.get("l1_data_store_line_cycles", 0.0)
    pipes = isa.pipe_intervals(t)
    line = arch.line_bytes
    l1_lines = max(64, (t["l1_bytes"] - carveout) // line)
    l2_lines = t["l2_bytes"] // line
    return P, pipes, int(l1_lines), int(l2_lines)


def _tables(prog, arch, sass: bool = True):
    key = ("timing-tables", arch.key, sass, SASS_SLOTS, sass_slots.STRAIGHT, sass_slots.OUTER,
           sass_slots.EXTRA, sass_slots.UNROLLED, sass_slots.NEST, sass_slots.FEWER, sass_slots.LOWER,
           sass_slots.SLOW_ALONE, sass_slots.LIBDEVICE_SLOW, sass_slots.POOL_LINES, sass_slots.WIDE_LOOPS, sass_slots.PREDICATED_LINES, STORE_MERGE, gpu_sass.WIDE_LOADS,
           SASS_PIPES, sass_pipes.POOL, sass_slots.OUTER_OWN_LINES, sass_slots.SLOW_DIAMONDS,
           sass_slots.MIXED_NESTS, sass_pipes.ADU, sass_pipes.EVERY_PIPE, loop_trips.SAME_INITS)
    t = prog.timing.get(key)
    if t is None:
        # without SASS nothing folds and no atomic is aggregated (the documented fallback)
        df = sass_replay.sass_table(prog, arch)[0] if sass else None
        loops = folding.unrolled(prog.fn, df) if df is not None else []
        t = prog.timing[key] = isa.tables(prog, arch, folding.folded(prog.fn, loops),
                                          gpu_sass.warp_aggregated_lines(df))
        if SASS_SLOTS:
            sass_slots.apply(prog, df, t)          # loops' issue slots from their SASS
        if SASS_PIPES:
            sass_pipes.apply(prog, df, t, arch)    # each line's pipes from its SASS
        if STORE_MERGE:
            stores.merge_flags(prog, df, t)        # stores ptxas put back to back
    return t


def simulate(prog, arch, rec, total_ctas: int, warps_per_cta: int, occupancy: dict,
             shared_per_block: int, sample: bool = True, sass: bool = True) -> tuple[dict, dict]:
    """Run the machine on what ``rec`` recorded; return (metrics, details). With ``sample``,
    a big launch replays a sample of the SMs (see ``sm_sample``); with ``sass``, loops that
    ptxas unrolled replay in its schedule where ptxas is here (sass_replay.py)."""
    t = timing_data(arch)
    tab = _tables(prog, arch, sass)
    schedule = sass_replay.plan(prog, arch, tab, sass)
    n = rec.recorded_ctas
    bpsm = max(1, occupancy["blocks_per_sm"])
    n_sm = int(arch.sm_count)
    P, pipes, l1_lines, l2_lines = params(arch, occupancy["carveout"] if DRIVER_CARVEOUT else
                                          arch.carveout(bpsm * arch.shared_per_block(shared_per_block)
                                                        if shared_per_block else 0))
    n_run, ctas = (sm_sample(rec.work, n, n_sm, lambda: _heaviest_cta(rec)) if sample
                   else (n_sm, np.arange(n, dtype=np.int64)))
    f = n_sm / n_run                          # each replayed SM stands for f SMs
    lines = fp.none()                         # ... and each line it touches for w in [1, f]
    sectors = fp.none()                       # ... each sector (atomics' first reads)
    if n_run < n_sm:
        acc = fp.accesses(rec, ctas, warps_per_cta)
        lines = fp.footprint(acc, n_sm, n_run)
        if fp.widely_shared_bytes(lines, f) > SHARED_ABOVE * float(t["l2_bytes"]):
            # data SMs far apart share that the L2 cannot hold: every SM replays (SHARED_ABOVE)
            n_run, ctas = n_sm, np.arange(n, dtype=np.int64)
            f, lines = 1.0, fp.none()
        else:
            P = _scaled(P, f)
            if (tab.kind == isa.GLOBAL_ATOM).any():
                sectors = fp.footprint(acc, n_sm, n_run, shift=0)
    ptr, e_step, e_k = rec.streams((ctas[:, None] * warps_per_cta + np.arange(warps_per_cta)).reshape(-1))
    steps, events = rec.step_arrays()[:3], (rec.ev_n.view(), rec.ev_ptr.view(), rec.ev_same.view())
    n_regs, n_static = prog.nregs, tab.kind.size
    if schedule.groups:
        rep = replay_streams.replay_tables(prog, arch, tab, schedule)
        tab, n_regs = rep.tab, rep.n_regs
        ptr, e_step, e_k, *rest = replay_streams.regroup(rep, ptr, e_step, e_k, *steps, *events)
        steps, events = rest[:3], rest[3:]
    n_kept = ctas.size
    stalls = np.zeros((tab.kind.size, len(ix.STALL_NAMES)), np.float64)
    cta_start = np.zeros(n_kept, np.float64)
    cta_done = np.zeros(n_kept, np.float64)
    cta_sm = np.zeros(n_kept, np.int64)
    smstat = np.zeros((n_run, ix.N_SM_STATS), np.float64)
    glob = np.zeros(ix.N_GLOBAL_STATS, np.float64)
    shape = (n_run, l1_lines, int(t["l1_ways"]), l2_lines, int(t["l2_ways"]),
             float(P[ix.P_L2_DIRTY_SECTORS]))
    mem = _memory.take(shape)
    try:
        with _machine_lock:
            end = machine.run(
                machine.Code(tab.kind, tab.pipe, tab.sass, tab.latency, tab.branch, tab.src_ptr, tab.src,
                             tab.dst_ptr, tab.dst, tab.mem_slot, tab.atomic, tab.block_first,
                             tab.block_len, tab.pipe_hold(pipes, PIPE_STRETCH)),
                machine.Streams(ptr, e_step, e_k, *steps, *events, rec.sec.view(), rec.sec_w.view()),
                machine.Grid(n_kept, warps_per_cta, bpsm, n_run, int(arch.data["schedulers_per_sm"]), n_regs),
                P, pipes, mem + (lines.keys, lines.weights, sectors.keys, sectors.weights),
                machine.Results(stalls, cta_start, cta_done, cta_sm, smstat, glob))
    finally:
        _memory.give(shape, mem)
    if schedule.groups:
        stalls = replay_streams.fold_stalls(stalls, rep, n_static)
    _steady_writebacks(glob, P, total_ctas / max(1, n))
    # the shared units were busy f times as long per replayed request: per request, as in the full GPU
    for u in (ix.G_L2_BUSY, ix.G_DRAM_BUSY, ix.G_ATOM_BUSY, ix.G_ATOM_HOT):
        glob[u] /= f
    # (its first reads of a line the grid shares already stood for w / f of a miss: memsys)
    sim_cycles, error = _extrapolate(cta_start, cta_done, float(end), total_ctas, n / max(1, n_kept))
    # a grid replayed in part takes at least as long as an SM's mean work on its own units (issue,
    # pipes, shared memory, L1): a prefix whose rate ran ahead of that (its first blocks on
    # fewer warps than later ones) is held to it (set 7's fp64 Clenshaw came out at 0.95x its
    # own issue slots over the SMs' schedulers)
    scale = total_ctas / n_kept if n_kept else 1.0
    if n_kept < total_ctas:
        sim_cycles = max(sim_cycles, max(_sm_unit_cycles(arch, smstat, scale).values()))
    if n_run < n_sm:
        error = float(np.hypot(error, _sm_sample_error(cta_done, cta_sm, n_run, sim_cycles)))
    # the floor (an empty one-block kernel) already holds one block launch
    elapsed = float(t["launch_floor_cycles"]) - float(t["cta_launch_cycles"]) + sim_cycles
    metrics, details = _report(arch, t, elapsed, sim_cycles, scale, smstat, glob, stalls, occupancy,
                               warps_per_cta, total_ctas)
    metrics["simt__sampled_ctas.sum"] = n_kept
    metrics["simt__sampled_sms.sum"] = n_run
    metrics["simt__sampling_error.pct"] = 100.0 * error
    details["stall_table"] = stalls * scale
    details["timing_schedule"] = schedule.summary()
    details["block_cycles"] = cta_done
    details["blocks"] = {"start": cta_start, "end": cta_done, "sm": cta_sm, "block": ctas}
    details["sampling"] = {"sms": n_run, "of_sms": n_sm, "blocks": n_kept, "of_blocks": total_ctas,
                           "error_pct": 100.0 * error}
    return metrics, details


SASS_SLOTS = True           # plain loops issue their SASS loop's slots (sass_slots.py)
PIPE_STRETCH = True         # other warps' instructions go between a burst's (scheduling.hold_pipe)
SASS_PIPES = True           # each line's work takes the pipes its SASS takes (sass_pipes.py)
STORE_MERGE = True          # stores ptxas put back to back merge on the way to the L2 (stores.py)
DRIVER_CARVEOUT = True     # the L1 is what the carveout the driver configures leaves (arch.driver_carveout)
SAMPLE_ABOVE = 250_000     # recorded warp instructions above which the SMs are sampled
SAMPLE_MIN_SMS = 16        # ... keeping at least this many SMs
SAMPLE_MIN_BLOCKS = 2      # ... and only when every SM gets at least this many blocks
# ... and only when the data that blocks on SMs far apart read (footprint.widely_shared_bytes)
# fits in this share of the L2 (half: a partition's, each caching its own copy of what its
# SMs read; a stencil's rows, which neighbouring blocks share, do not count). A
# sample's L2 stands for the lines of the SMs it does not replay by weights and placeholders
# (footprint.py, memsys._sampled_victim), which keep what the GPU keeps while the shared data
# fits; gathers at random from more than the L2 holds (graph walks, hash probes, a binary
# search of a big table) read again what the GPU's L2 evicted, and a sample counted 0.15-0.9x
# the DRAM reads of the full replay (check_sampling.py)
SHARED_ABOVE = 0.5


def _heaviest_cta(rec) -> int:
    """The recorded block that executed the most warp instructions."""
    ran = rec.warps.view()
    if ran.size == 0:
        return 0
    return _argmax_cta(ran, rec.warps_per_cta, rec.recorded_ctas)


@njit(cache=True, nogil=True)
def _argmax_cta(ran, warps_per_cta: int, n_ctas: int) -> int:
    """The recorded block with the most warp steps (counted per warp, then summed per block:
    one division a warp, not one a step)."""
    n_warps = n_ctas * warps_per_cta
    per_warp = np.zeros(n_warps + 1, np.int64)
    for w in ran:
        per_warp[min(w, n_warps)] += 1
    counts = np.zeros(n_ctas, np.int64)
    for w in range(n_warps):
        counts[w // warps_per_cta] += per_warp[w]
    return int(np.argmax(counts))


def sm_sample(work: int, n: int, n_sm: int, heaviest=lambda: 0) -> tuple[int, np.ndarray]:
    """Which SMs a big launch replays, and their blocks: (SMs, block ids in grid order).

    The machine deals the first wave round-robin, block c to SM c mod n_sm, and later blocks
    to the SM that frees a slot; SMs alike in what they run finish alike, so a launch of at
    least SAMPLE_MIN_BLOCKS blocks an SM replays r SMs [s, s + r) with the blocks they are
    dealt (s <= c mod n_sm < s + r) on a GPU whose shared units (L2 bandwidth and capacity,
    DRAM, atomic units) are scaled down to r SMs' share. r is n_sm over a power of two,
    chosen so that about SAMPLE_ABOVE of the ``work`` (warp instructions recorded) is
    replayed; s is the lowest start whose SMs include the one dealt the ``heaviest()`` block
    (asked only when the launch is sampled):
    the launch ends when its slowest SM does, and one long block (a hub vertex's thread, a
    long row) can be that SM's whole time."""
    all_ctas = np.arange(n, dtype=np.int64)
    if n < SAMPLE_MIN_BLOCKS * n_sm or work <= SAMPLE_ABOVE:
        return n_sm, all_ctas
    f = 1
    while n_sm // (2 * f) >= SAMPLE_MIN_SMS and work / f > SAMPLE_ABOVE:
        f *= 2
    if f == 1:
        return n_sm, all_ctas
    r = n_sm // f
    s = max(0, heaviest() % n_sm - r + 1)
    return r, all_ctas[(all_ctas % n_sm >= s) & (all_ctas % n_sm < s + r)]


def _scaled(P, f: float):
    """The GPU-wide units' parameters for a replay of 1/f of the SMs: the same load per unit
    of bandwidth. Every SM's requests reach the L2 and the atomic units, so their rates scale
    by f, and so does the DRAM's. The L2 keeps its capacity (memsys places beside each
    replayed line the lines of the SMs not replayed, and counts a first read of a line the
    grid shares as w / f of a miss). The bound on dirty data stays: memsys counts each dirty
    sector by the lines its line stands for (``memsys._stands_for``)."""
    P = P.copy()
    P[ix.P_L2_READ_BPC] /= f
    P[ix.P_L2_REQUEST] *= f
    P[ix.P_DRAM_BPC] /= f
    P[ix.P_L2_WRITE_LINE] *= f
    P[ix.P_L2_WRITE_SECTOR] *= f
    P[ix.P_SAMPLE] = f
    return P


def _steady_writebacks(glob, P, s_p: float) -> None:
    """The DRAM writes of a grid of which only a prefix was recorded (the first 1/s_p of its
    blocks: the recorder stops at a budget of warp instructions), in the replay's units.

    The prefix starts with an empty L2, which holds its dirty sectors up to the bound on dirty
    data (l2_dirty_bytes); the blocks after it dirty about as many sectors again each, and at the
    end of the kernel the L2 still holds at most the bound. So the grid writes back what the
    prefix did, plus what the rest dirties beyond the room the bound had left: a kernel that
    writes far more than the bound writes nearly all of it back, however little its recorded
    prefix wrote (the replay of a prefix alone would count only the prefix's overflow). Lines
    the blocks write again and again (bins, a shared result) are dirtied once while they stay
    dirty, so they add little. The DRAM's busy time grows with the writes.

    In a sampled replay a dirty sector stands for as many of the GPU's as its line does
    (memsys._stands_for): the bound, in the replay's sectors, is the bound over the dirty
    lines' average weight (a private output's lines stand for f each, a table every block
    updates for 1), not over every line's (input lines shared by neighbouring blocks stand for
    fewer: over their average the room came out too large, and a depthwise convolution's
    sampled replay wrote back a fifth of what the full one does)."""
    if s_p <= 1.0 + 1e-9:
        return
    dirtied = glob[ix.G_DIRTIED]
    written = glob[ix.G_DRAM_WRITE] / 32.0
    w_dirty = glob[ix.G_DIRTIED_W] / dirtied if dirtied > 0.0 else 1.0
    room = max(0.0, P[ix.P_L2_DIRTY_SECTORS] / w_dirty - (dirtied - written))
    extra = max(0.0, dirtied * (s_p - 1.0) - room)       # sectors the rest of the grid writes back
    # the grid's write-backs, (written + extra), in the prefix's units (the report scales by s_p)
    delta = 32.0 * ((written + extra) / s_p - written)
    # each written byte as the prefix's took the DRAM (lone sectors longer: dram.dram_cost)
    per_byte = (glob[ix.G_DRAM_WRITE_BUSY] / glob[ix.G_DRAM_WRITE] if glob[ix.G_DRAM_WRITE] > 0.0
                else P[ix.P_DRAM_WRITE_COST] / P[ix.P_DRAM_BPC])
    glob[ix.G_DRAM_WRITE] += delta
    glob[ix.G_DRAM_BUSY] = max(0.0, glob[ix.G_DRAM_BUSY] + delta * per_byte)


def _sm_sample_error(cta_done, cta_sm, n_run: int, cycles: float) -> float:
    """How far the end of the kernel moves between the two halves of the replayed SMs."""
    if cycles <= 0 or n_run < 2:
        return 0.0
    half = cta_sm < n_run // 2
    if not half.any() or half.all():
        return 0.0
    return float(abs(cta_done[half].max() - cta_done[~half].max()) / cycles)


class _Memory:
    """The machine's cache arrays (tens of MB), kept from launch to launch: fresh ones would
    cost every launch page faults as it touches them (several ms for a small launch). A
    launch takes a set of the shape it needs and gives it back; concurrent launches get
    their own. Sets of at most ``KEEP`` shapes are kept."""
    KEEP = 4

    def __init__(self):
        self.free: dict[tuple, list] = {}
        self.lock = threading.Lock()

    def take(self, shape: tuple) -> tuple:
        with self.lock:
            sets = self.free.get(shape)
            if sets:
                return sets.pop()
        return memsys.memory_arrays(*shape)

    def give(self, shape: tuple, mem: tuple) -> None:
        with self.lock:
            self.free.setdefault(shape, []).append(mem)
            while len(self.free) > self.KEEP:
                del self.free[next(iter(self.free))]


_memory = _Memory()
# one machine at a time: it runs schedulers on numba's threads (private.py), and numba's
# simplest threading layer (workqueue, where neither OpenMP nor TBB is installed) stops the
# process when two threads use it at once
_machine_lock = threading.Lock()


def _extrapolate(cta_start: np.ndarray, cta_done: np.ndarray, end: float, total: int,
                 weight: float = 1.0) -> tuple[float, float]:
    """Simulated cycles of the whole grid from its recorded prefix (each replayed block
    standing for ``weight`` blocks of the prefix), and the relative error estimated by
    extrapolating with the rates of the first and of the second half of the window.

    The rest of the grid goes at the prefix's rate while the SMs were full, from the first
    block's end to the last one's start: the blocks done in that window, each counting the
    share of its time it spent there. After the last start the prefix drains, and the grid
    drains once, at its end: ``end`` holds the prefix's drain. Rates read off the times blocks
    were done mistook both: blocks of one wave end together, so a span from one wave's ends to
    another's holds a wave more or less than it seems, and a span into the drain counts the
    drain again for every block after the prefix. Little's law with every block's mean time
    (the blocks resident in the window over it) mistook a prefix whose first blocks leave one
    by one: ALU-bound blocks, six an SM, whose scheduler favours the oldest warps, so the
    first take 0.3x, 0.5x, ... of the time of those that come later (set 18's local entropy,
    whose prediction came out under its own ALU bound). Against the replay of every block
    (tests/test_timing_sampling.py; set 9's AES with one table, 3 waves of 16 SMs recorded:
    604,742 cycles), the second half's rate of block ends gave 0.97x on blocks that loop 40
    times, 1.04x on 16-40 times, 4.0x on 8 + 8 Pareto(2) times and 470,073 cycles for AES;
    Little's law with the mean 1.00x, 1.00x, 1.19x, 603,244 and 0.93x on the ALU-bound
    blocks; this gives 1.00x, 1.00x, 1.19x, 606,163 and 0.98x."""
    n = cta_done.size
    if n == 0 or n * weight >= total - 0.5:
        return end, 0.0
    first, last = float(cta_done.min()), float(cta_start.max())    # before first the SMs filled
    if first >= last:               # no block ended before the last began: the whole prefix
        first, last = 0.0, float(cta_done.max())
    took = np.maximum(cta_done - cta_start, 1e-9)
    rest = total - n * weight

    def rate(a, b):
        """Blocks done per cycle in [a, b]: each block counts the share of its time spent
        there (a block that took 10,000 cycles, 2,500 of them in the window, counts 1/4)."""
        inside = np.clip(np.minimum(cta_done, b) - np.maximum(cta_start, a), 0.0, None)
        return float((inside / took).sum()) / (b - a) if b > a else 0.0

    def estimate(r):
        return end + rest / (weight * r) if r > 0 else end

    mid = 0.5 * (first + last)
    whole = estimate(rate(first, last))
    early, late = estimate(rate(first, mid)), estimate(rate(mid, last))
    return float(whole), float(abs(late - early) / whole)


def _sm_unit_cycles(arch, smstat, scale: float) -> dict:
    """The cycles an SM's own units are busy over the whole grid, the mean over the SMs: the
    issue slots and each pipe per scheduler (each has its dispatch and its pipes), the shared
    memory's and the L1's stages (``scale``: blocks of the grid a replayed block stands for)."""
    per_sm = smstat.sum(axis=0) * scale / int(arch.sm_count)
    schedulers = int(arch.data["schedulers_per_sm"])
    out = {"issue": per_sm[ix.M_ISSUE] / schedulers}
    for p, name in enumerate(isa.PIPES[:-1]):
        out[name] = per_sm[ix.M_PIPE0 + p] / schedulers
    out["shared"] = per_sm[ix.M_LSU]
    out["l1"] = per_sm[ix.M_L1T]
    return out


def _report(arch, t, elapsed, sim_cycles, scale, smstat, glob, stalls, occupancy, warps_per_cta, total_ctas):
    n_sm = int(arch.sm_count)
    clock = float(t["clock_mhz"])
    active = np.clip(smstat[:, ix.M_LAST] - smstat[:, ix.M_FIRST], 0, None)
    active_total = float(active.sum()) * scale
    warp_cycles = float(smstat[:, ix.M_WARP_CYCLES].sum()) * scale
    g = glob * scale
    l2_read, l2_write, l2_atom = g[ix.G_L2_READ], g[ix.G_L2_WRITE], g[ix.G_L2_ATOM]
    l2_total = l2_read + l2_write + l2_atom
    l2_hits = g[ix.G_L2_READ_HIT] + l2_write + g[ix.G_L2_ATOM_HIT]
    dram_peak = float(t["dram_peak_bytes_per_second"]) / (clock * 1e6)
    # utilisation of each unit over the kernel's elapsed cycles, percent
    span = max(1.0, sim_cycles)
    per_sm = smstat.sum(axis=0) * scale / n_sm
    units = {k: v / span for k, v in _sm_unit_cycles(arch, smstat, scale).items()}
    units["l2"] = g[ix.G_L2_BUSY] / span
    units["dram"] = g[ix.G_DRAM_BUSY] / span
    units["atomics"] = max(g[ix.G_ATOM_BUSY] / float(t["atomic_units"]), g[ix.G_ATOM_HOT]) / span
    units = {k: 100.0 * min(1.0, v) for k, v in units.items()}
    compute = max(units[k] for k in COMPUTE_UNITS)
    memory = max(units[k] for k in ("shared", "l1", "l2", "dram", "atomics"))
    achieved = 100.0 * warp_cycles / active_total / arch.max_warps_per_sm if active_total else 0.0
    m = {
        "sm__cycles_elapsed.max": int(round(elapsed)),
        "sm__cycles_elapsed.avg": float(round(elapsed)),
        "sm__cycles_active.avg": active_total / n_sm,
        "gpu__time_duration.sum": float(t["time_offset_ns"]) + elapsed / clock * 1e3,
        "dram__bytes_read.sum": g[ix.G_DRAM_READ],
        "dram__bytes_write.sum": g[ix.G_DRAM_WRITE],
        "lts__t_sectors.sum": l2_total,
        "lts__t_sectors_op_read.sum": l2_read,
        "lts__t_sectors_op_write.sum": l2_write,
        "lts__t_sectors_op_atom.sum": l2_atom,
        "lts__t_sector_hit_rate.pct": 100.0 * l2_hits / l2_total if l2_total else 0.0,
        "l1tex__t_sector_hit_rate.pct": 100.0 * g[ix.G_L1_HITS] / g[ix.G_L1_SECTORS] if g[ix.G_L1_SECTORS] else 0.0,
        "sm__warps_active.avg.pct_of_peak_sustained_active": achieved,
        "sm__maximum_warps_per_active_cycle_pct": 100.0 * occupancy["blocks_per_sm"] * warps_per_cta
        / arch.max_warps_per_sm,
        "sm__inst_executed.avg.per_cycle_active": per_sm[ix.M_ISSUE] * n_sm / active_total if active_total else 0.0,
        "sm__throughput.avg.pct_of_peak_sustained_elapsed": compute * sim_cycles / elapsed,
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": memory * sim_cycles / elapsed,
        "dram__throughput.avg.pct_of_peak_sustained_elapsed":
            100.0 * (g[ix.G_DRAM_READ] + g[ix.G_DRAM_WRITE]) / (dram_peak * elapsed),
    }
    stall_totals = stalls.sum(axis=0) * scale
    issued = float(smstat[:, ix.M_ISSUE].sum()) * scale
    m["smsp__inst_issued.sum"] = issued
    # warp instructions per pipe, under Nsight Compute's pipe names (the FMA pipe: both halves)
    interval = isa.pipe_intervals(t)
    per_pipe = {name: float(smstat[:, ix.M_PIPE0 + p].sum()) * scale / float(interval[p])
                for p, name in enumerate(isa.PIPES[:-1])}
    m["sm__inst_executed_pipe_alu.sum"] = per_pipe["alu"]
    m["sm__inst_executed_pipe_fma.sum"] = per_pipe["fma"] + per_pipe["imad"]
    m["sm__inst_executed_pipe_fp64.sum"] = per_pipe["fp64"]
    m["sm__inst_executed_pipe_xu.sum"] = per_pipe["mufu"]
    m["sm__inst_executed_pipe_adu.sum"] = per_pipe["adu"]
    for name, v in zip(ix.STALL_NAMES, stall_totals):
        m[f"simt__warp_stall_{name}_cycles.sum"] = float(v)
        # Nsight Compute: warps waiting for this reason per cycle an instruction issued
        m[f"smsp__average_warps_issue_stalled_{name}_per_issue_active.ratio"] = float(v) / issued if issued else 0.0
    resident = {"achieved": achieved, "theoretical": m["sm__maximum_warps_per_active_cycle_pct"],
                "occupancy": occupancy, "warps_per_cta": warps_per_cta,
                "fills_gpu": total_ctas >= n_sm * occupancy["blocks_per_sm"]}
    bottleneck = _bottleneck(units, stall_totals, elapsed, sim_cycles, float(t["launch_floor_cycles"]),
                             resident)
    details = {"units": units, "bottleneck": bottleneck,
               "stalls": dict(zip(ix.STALL_NAMES, (float(x) for x in stall_totals))),
               "occupancy": occupancy}
    return m, details


def _bottleneck(units, stalls, elapsed, sim_cycles, floor, resident) -> dict:
    """The resource that limits the launch, as a speed-of-light reading names it.

    A latency-bound launch is limited by occupancy when more resident warps would hide more
    of the latency: when a resource (shared memory, registers, warps or blocks per SM) keeps
    the SM below its maximum warps although the grid has blocks to fill it, or when far fewer
    warps are resident on average than fit."""
    achieved, theoretical = resident["achieved"], resident["theoretical"]
    units, elapsed = {k: float(v) for k, v in units.items()}, float(elapsed)   # plain numbers
    unit, pct = max(units.items(), key=lambda kv: kv[1])
    out = {"units": dict(units)}
    if floor >= 0.5 * elapsed:
        return {**out, "limiter": "launch", "pct_of_peak": 100.0 * floor / elapsed,
                "why": f"the launch floor is {100.0 * floor / elapsed:.0f}% of the elapsed cycles"}
    if pct >= 60.0:
        return {**out, "limiter": unit, "pct_of_peak": pct,
                "why": f"{unit} is busy {pct:.0f}% of the kernel's cycles"}
    named = dict(zip(ix.STALL_NAMES, stalls))
    waits = {"barriers": named["barrier"], "latency": named["long_scoreboard"] + named["short_scoreboard"]
             + named["wait"]}
    if named["barrier"] > 0.5 * sum(waits.values()):
        return {**out, "limiter": "barriers", "pct_of_peak": pct,
                "why": "warps spend most of their waiting at barriers"}
    # no unit busy, yet warps wait for room in the SM's global-memory queue: requests held in
    # it (a store waiting for the acknowledgement of another warp's store to its words, and
    # the requests behind it), which more warps would not hide
    queued = named["lg_throttle"] / max(named["lg_throttle"] + sum(waits.values()), 1e-9)
    if queued > 0.5:
        return {**out, "limiter": "lg_queue", "pct_of_peak": pct,
                "why": f"no unit is busier than {pct:.0f}% ({unit}), yet {100.0 * queued:.0f}% of the "
                       f"warps' waiting is for room in the SM's global-memory queue (lg_throttle): "
                       f"its requests are held (for example behind a store that waits for the "
                       f"acknowledgement of another warp's store to the same words)"}
    occ = resident["occupancy"]
    if theoretical < 100.0 and resident["fills_gpu"]:
        resource = RESOURCES[occ["limiter"]]
        return {**out, "limiter": "occupancy", "pct_of_peak": pct, "resource": occ["limiter"],
                "why": f"latency-bound with {achieved:.0f}% of the SM's warps resident on average: "
                       f"an SM holds {occ['blocks_per_sm']} blocks of {resident['warps_per_cta']} warps "
                       f"({theoretical:.0f}% of its warps), limited by {resource}"}
    if theoretical < 50.0 or achieved < 0.5 * theoretical:
        cause = RESOURCES[occ["limiter"]] if resident["fills_gpu"] else "the grid's size"
        return {**out, "limiter": "occupancy", "pct_of_peak": pct,
                "resource": occ["limiter"] if resident["fills_gpu"] else "grid",
                "why": f"latency-bound with {achieved:.0f}% of the SM's warps resident on average "
                       f"(at most {theoretical:.0f}%, limited by {cause}): too few warps to hide it"}
    return {**out, "limiter": "latency", "pct_of_peak": pct,
            "why": f"no unit is busier than {pct:.0f}% ({unit}): warps mostly wait on results"}
