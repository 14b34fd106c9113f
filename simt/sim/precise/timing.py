"""The cycle-approximate timing model of the precise engine.

Per warp: an issue timeline and a scoreboard. An instruction issues when the warp is free
and its source registers are ready (``issue = max(t_warp, ready[src])``); it occupies the
warp for its issue interval and its result is ready ``latency`` cycles later. Latencies
come from the architecture file per op class; memory instructions get theirs per warp from
what they touched: shared accesses pay one cycle per wavefront beyond the ideal (bank
conflicts), global loads pay L1, L2 or DRAM latency by whether their sectors were seen
before. Waiting cycles are charged to a stall reason: the class of the producer the
instruction waited for (dependency or memory), bank conflicts, or barriers (a barrier
aligns the warps of a block). Per block (CTA) this gives a duration; the launch then
places blocks on SMs as occupancy allows, in waves, and an SM's time is the larger of that
schedule and its throughput bounds (4 schedulers issuing one instruction per cycle, one
shared wavefront per cycle, DRAM bytes per cycle). See simt/arch/*.json for the numbers.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...ir.mir import Instr, Op, Reg, Space
from ...ir.types import Scalar

# stall reasons (indices into the stall accumulator)
DEPENDENCY, MEMORY, BANK, BARRIER, IDLE = range(5)
STALL_NAMES = ("dependency", "memory", "bank_conflict", "barrier", "idle")
# producer classes: which stall reason waiting on a register counts as
CLS_ALU, CLS_MEM = DEPENDENCY, MEMORY

_SFU = {Op.SQRT, Op.RSQRT, Op.SIN, Op.COS, Op.TAN, Op.ASIN, Op.ACOS, Op.ATAN, Op.ATAN2, Op.SINH,
        Op.COSH, Op.TANH, Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.LOG10, Op.POW}
# MIR ops that are several machine instructions on the GPU: issue slots they take
_ISSUE_COST = {Op.POW: 12, Op.ATAN2: 10, Op.TAN: 6, Op.ASIN: 8, Op.ACOS: 8, Op.ATAN: 8,
               Op.SINH: 6, Op.COSH: 6, Op.TANH: 6, Op.ROUND: 3}


def op_cost(ins: Instr, arch) -> tuple[int, int, int]:
    """(issue interval, result latency, producer class) of a non-memory instruction."""
    op = ins.op
    t = ins.srcs[0].type if ins.srcs else (ins.dsts[0].type if ins.dsts else Scalar.I32)
    lat, iv = arch.latency("alu"), arch.issue_interval["alu"]
    if op in (Op.DIV, Op.REM) and not t.is_float:
        return 20, 40, CLS_ALU                   # integer division is a subroutine
    if op is Op.DIV:
        return 8, 24, CLS_ALU                    # IEEE div.rn: reciprocal + Newton steps
    if op in _SFU:
        iv, lat = arch.issue_interval["sfu"], arch.latency("sfu")
    elif t is Scalar.F64 or (ins.dsts and ins.dsts[0].type is Scalar.F64):
        iv, lat = arch.issue_interval["fp64"], arch.latency("fp64")
    elif op is Op.SREG:
        lat = arch.latency("special")
    elif op in (Op.SHFL, Op.VOTE):
        lat = arch.latency("shuffle")
    elif op in (Op.BR, Op.CBR, Op.RET):
        iv, lat = arch.issue_interval["branch"], arch.latency("branch")
    return max(iv, _ISSUE_COST.get(op, 1)), lat, CLS_ALU


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
        aligned = latest[cta] + self.arch.latency("barrier")
        waited = int((aligned - self.t[run_w]).sum())
        self.t[run_w] = aligned
        return waited


def place_blocks(durations: np.ndarray, issue: np.ndarray, wavefronts: np.ndarray,
                 dram_bytes: np.ndarray, blocks_per_sm: int, arch) -> dict:
    """Schedule blocks (in launch order) onto SMs; return cycles per SM and per block start."""
    n_sm = int(arch.sm_count)
    slots = max(1, blocks_per_sm)
    # (free at, slot, sm): at equal times the first slot of every SM fills before any second
    # slot, so blocks spread over the SMs as the hardware's block scheduler spreads them
    heap = [(0, s, sm) for s in range(slots) for sm in range(n_sm)]
    heapq.heapify(heap)
    sm_of = np.zeros(durations.size, dtype=np.int64)
    end = np.zeros(n_sm, dtype=np.int64)
    for i, d in enumerate(durations.tolist()):
        free, s, sm = heapq.heappop(heap)
        sm_of[i] = sm
        finish = free + int(d)
        end[sm] = max(end[sm], finish)
        heapq.heappush(heap, (finish, s, sm))
    issue_sm = np.bincount(sm_of, weights=issue, minlength=n_sm)
    lsu_sm = np.bincount(sm_of, weights=wavefronts, minlength=n_sm)
    dram_sm = np.bincount(sm_of, weights=dram_bytes, minlength=n_sm)
    bounds = np.vstack([end, issue_sm / arch.schedulers_per_sm, lsu_sm,
                        dram_sm / arch.dram_bytes_per_cycle_per_sm])
    cycles = np.ceil(bounds.max(axis=0)).astype(np.int64)
    return {"sm_cycles": cycles, "sm_of_block": sm_of, "schedule_cycles": end,
            "bound": np.array(["latency", "issue", "shared", "dram"])[bounds.argmax(axis=0)]}
