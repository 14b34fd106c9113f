"""The per-warp timeline of the precise engine: what ``clock()`` reads and traces print.

Each warp issues its instructions on its own, as if alone on the GPU: an instruction issues
when the warp is free and its source registers are ready (``issue = max(t_warp,
ready[src])``), occupies the warp for its issue slots (a long op for its hold, ``op_hold``)
and has its result ``latency`` cycles later, with the measured costs of
simt/sim/timing/isa.py. Shared accesses pay a cycle per wavefront beyond the ideal; global
loads the L1, L2 or DRAM latency by whether their sectors were seen before; a barrier aligns
the warps of a block. This timeline has no contention: the cycles a launch reports come from
the machine model (simt/sim/timing), which replays every warp on all SMs together. The
timeline only runs when a kernel reads ``clock()`` or a trace is written.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from ...ir.mir import Instr, Op, Reg
from ..timing import isa

# stall reasons of the timeline (indices into its stall accumulator)
DEPENDENCY, MEMORY, BANK, BARRIER, IDLE = range(5)
CLS_ALU, CLS_MEM = DEPENDENCY, MEMORY


def isolated_latency(arch) -> dict:
    """Memory latencies of the timeline, from the architecture's measured timing section."""
    lat = arch.data["timing"]["latency"]
    return {"l1": lat["l1"], "l2": lat["l2"], "dram": lat["dram"], "shared": lat["shared"],
            "atomic_shared": lat["atomic_shared"], "atomic_global": lat["atomic_global"]}


def op_cost(ins: Instr, arch) -> tuple[int, int, int]:
    """(cycles it keeps the warp, result latency, producer class) of a non-memory instruction:
    its issue slots, or its hold where it is a long op that holds its warp (isa.op_hold), as
    the machine model's warps wait for it."""
    timing = arch.data["timing"]
    c = isa.cost(ins, timing["ops"])
    keeps = max(c.sass, isa.op_hold(ins, timing.get("op_hold", {}), c))
    return max(0, int(round(keeps))), int(round(c.latency)), CLS_ALU


@dataclass
class BlockTiming:
    """Static per-block tables the compiled scheduler walks."""
    src_ptr: np.ndarray
    src_idx: np.ndarray
    dst_ptr: np.ndarray
    dst_idx: np.ndarray
    interval: np.ndarray
    latency: np.ndarray
    cls: np.ndarray
    mem_slot: np.ndarray       # index among the block's memory instructions, or -1
    mem_instrs: list           # the block's LD/ST/ATOM instructions, in order


def block_timing(instrs: list[Instr], reg_index, arch) -> BlockTiming:
    src_ptr, src_idx, dst_ptr, dst_idx = [0], [], [0], []
    interval, latency, cls, mem_slot, mem = [], [], [], [], []
    for ins in instrs:
        if ins.op in (Op.BAR, Op.BAR_AND) and not ins.dsts:
            pass
        for s in ins.srcs:
            if isinstance(s, Reg):
                src_idx.append(reg_index(s))
        for d in ins.dsts:
            dst_idx.append(reg_index(d))
        src_ptr.append(len(src_idx))
        dst_ptr.append(len(dst_idx))
        if ins.op in (Op.LD, Op.ST, Op.ATOM):
            mem_slot.append(len(mem))
            mem.append(ins)
            iv, lat, c = 1, 0, CLS_MEM
        else:
            mem_slot.append(-1)
            iv, lat, c = op_cost(ins, arch)
        interval.append(iv)
        latency.append(lat)
        cls.append(c)
    a = lambda x, dt=np.int64: np.asarray(x, dtype=dt)  # noqa: E731
    return BlockTiming(a(src_ptr), a(src_idx), a(dst_ptr), a(dst_idx), a(interval), a(latency),
                       a(cls, np.int8), a(mem_slot), mem)


@njit(cache=True, nogil=True)
def advance(t, ready, producer, busy, warp_bits, src_ptr, src_idx, dst_ptr, dst_idx, interval,
            latency, cls, mem_slot, mem_lat, mem_iv, mem_extra, stalls, issue_out):
    """Issue one block's instructions for every running warp (``warp_bits`` != 0); update
    the timelines in place and add waiting cycles to ``stalls[instruction, reason]``.
    ``issue_out[instruction, k]`` receives issue cycles when it has rows (for traces)."""
    n_ins = interval.size
    record = issue_out.shape[0] > 0
    k = -1
    for w in range(warp_bits.size):
        if warp_bits[w] == 0:
            continue
        k += 1
        tw = t[w]
        for j in range(n_ins):
            start = tw
            reason = -1
            for p in range(src_ptr[j], src_ptr[j + 1]):
                r = ready[w, src_idx[p]]
                if r > start:
                    start = r
                    reason = producer[w, src_idx[p]]
            if reason >= 0:
                stalls[j, reason] += start - tw
            if record:
                issue_out[j, k] = start
            slot = mem_slot[j]
            if slot >= 0:
                lat = mem_lat[slot, k]
                iv = mem_iv[slot, k]
                stalls[j, 2] += mem_extra[slot, k]
            else:
                lat = latency[j]
                iv = interval[j]
            for p in range(dst_ptr[j], dst_ptr[j + 1]):
                ready[w, dst_idx[p]] = start + lat
                producer[w, dst_idx[p]] = cls[j]
            tw = start + iv
            busy[w] += iv
        t[w] = tw


class WarpTimes:
    """Timeline state of one batch of blocks."""

    def __init__(self, n_regs: int, n_warps: int, warps_per_cta: int, arch):
        self.arch = arch
        self.t = np.zeros(n_warps, dtype=np.int64)
        self.busy = np.zeros(n_warps, dtype=np.int64)
        self.ready = np.zeros((n_warps, max(1, n_regs)), dtype=np.int64)      # scoreboard
        self.producer = np.zeros((n_warps, max(1, n_regs)), dtype=np.int8)
        self.warps_per_cta = warps_per_cta

    def barrier(self, run_w: np.ndarray) -> int:
        """Align the warps of each block at a barrier; return the cycles the warps waited."""
        cta = run_w // self.warps_per_cta
        latest = np.zeros(int(cta.max()) + 1, dtype=np.int64)
        np.maximum.at(latest, cta, self.t[run_w])
        aligned = latest[cta] + int(round(self.arch.data["timing"]["barrier_cycles"]))
        waited = int((aligned - self.t[run_w]).sum())
        self.t[run_w] = aligned
        return waited
