"""What every warp did, recorded while the precise engine runs, for the machine model to replay.

The engine runs one basic block at a time for all warps that have lanes there (a *step*).
Per step the recorder keeps the block and the warps; per memory instruction of the step,
one *event* per warp: shared accesses keep their wavefronts, global accesses the 32-byte
sectors they touched (and, per sector, the most lanes that hit one word: what an atomic unit
serialises). A warp's own instruction stream is then the blocks of the steps it appears in,
in step order (``streams``).

Long launches are sampled: once the recorded work passes a budget (and at least a few
waves of blocks are recorded), later blocks run without being recorded and the machine
model extrapolates from the recorded prefix of the grid.
"""
from __future__ import annotations

import threading

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit


# a load's L1 data-stage cycles are at least its 128-byte phases back to the registers, its
# lanes' copies of a shared word too (_bank_ways; a switch for comparisons)
WRITEBACK = True


class _Grow:
    """A growable array (of rows of ``width`` values when ``width`` is given)."""

    def __init__(self, dtype, capacity: int = 1024, width: int | None = None):
        self.a = np.empty(capacity if width is None else (capacity, width), dtype=dtype)
        self.n = 0

    def reserve(self, extra: int) -> np.ndarray:
        need = self.n + extra
        if need > self.a.shape[0]:
            bigger = np.empty((max(need, 2 * self.a.shape[0]),) + self.a.shape[1:], dtype=self.a.dtype)
            bigger[:self.n] = self.a[:self.n]
            self.a = bigger
        return self.a

    def append(self, values) -> None:
        values = np.asarray(values)
        a = self.reserve(values.size)
        a[self.n:self.n + values.size] = values
        self.n += values.size

    def view(self) -> np.ndarray:
        return self.a[:self.n]


class _Buffers:
    """The recorder's growable arrays, kept from launch to launch as the machine's caches are
    (model._Memory): a fresh recorder's arrays cost page faults as they grow, about as much
    as filling them on a launch with a million shared accesses. A finished launch gives its
    set back (sets above ``KEEP_BYTES`` are dropped); concurrent launches get their own."""
    KEEP_BYTES = 256 << 20
    NAMES = ("steps", "warps", "ev_n", "ev_ptr", "ev_same", "sec", "sec_w")

    def __init__(self):
        self.free: list[dict] = []
        self.lock = threading.Lock()

    def take(self) -> dict:
        with self.lock:
            if self.free:
                return self.free.pop()
        return {"steps": _Grow(np.int64, 1024, 4), "warps": _Grow(np.int32), "ev_n": _Grow(np.int32),
                "ev_ptr": _Grow(np.int64), "ev_same": _Grow(np.int32), "sec": _Grow(np.int64, 4096),
                "sec_w": _Grow(np.int16, 4096)}

    def give(self, bufs: dict) -> None:
        if sum(g.a.nbytes for g in bufs.values()) > self.KEEP_BYTES:
            return
        for g in bufs.values():
            g.n = 0
        with self.lock:
            if not self.free:
                self.free.append(bufs)


_buffers = _Buffers()


@njit(cache=True, nogil=True, _nrt=False)
def _global_events(counts, start, same, at, ev_n, ev_ptr, ev_same):
    """One global access's events from ``at``: per warp its sectors, where they start in
    the sector arrays (from ``start``, in warp order) and its kind (``same``)."""
    p = start
    for r in range(counts.size):
        ev_n[at + r] = counts[r]
        ev_ptr[at + r] = p
        ev_same[at + r] = same
        p += counts[r]


@njit(cache=True, nogil=True)
def _sectors(rows, sec_out, w_out, start, counts, words, span, writeback=True):
    """Distinct 32-byte sectors of each row of lane addresses (-1: inactive), in lane order,
    written from ``sec_out[start]``; per row the number of sectors. Per sector ``w_out``:
    with ``words`` 1 (atomics), the most lanes on one 4-byte word (what an atomic unit
    serialises; the low 6 bits) and which of its 8 words the lanes touch (a bit each, above
    them); with 2 (stores), which of its 8 words are written (a bit each; each lane writes
    ``span`` bytes); with 0 (loads), the row's L1 bank wavefronts in its first sector
    (``_bank_ways``; with ``writeback``, at least the cycles their data take back to the
    registers), 1 in the others; else 1. Returns the new end.

    One pass over the lanes lists the sectors and notes each lane's (``lane_q``); the words
    are then read per lane, not per sector and lane. A warp whose 32 lanes read or write 32
    consecutive words (most accesses) is written out at once (``_consecutive``)."""
    banks = np.empty((32, 130), np.int64)
    lane_q = np.empty(32, np.int64)
    pos = start
    for r in range(rows.shape[0]):
        first = pos
        if span == 4 and _consecutive(rows, r):
            pos = _consecutive_sectors(rows[r, 0], sec_out, w_out, pos, words)
            counts[r] = pos - first
            continue
        last = -1
        last_q = -1
        top = -1                                 # the largest sector listed so far: above it, new
        lo, hi = -1, -1                          # the lowest and highest lane address
        ascending = True                         # do the active lanes' words go strictly up?
        for lane in range(32):
            a = rows[r, lane]
            if a == -1:
                lane_q[lane] = -1
                continue
            if lo == -1:
                lo = a
            elif (a >> 2) <= (hi >> 2):
                ascending = False
            lo = a if a < lo else lo
            hi = a if a > hi else hi
            s = a >> 5
            if s == last:
                lane_q[lane] = last_q
                continue
            q = -1
            if s <= top:
                for x in range(first, pos):
                    if sec_out[x] == s:
                        q = x
                        break
            if q < 0:
                q = pos
                sec_out[pos] = s
                w_out[pos] = 1
                pos += 1
                top = max(top, s)
            last = s
            last_q = q
            lane_q[lane] = q
        counts[r] = pos - first
        if words == 2:
            for q in range(first, pos):
                w_out[q] = 0
            if span <= 4:                        # each lane writes one word, in its own sector
                for lane in range(32):
                    q = lane_q[lane]
                    if q >= 0:
                        w_out[q] |= 1 << ((rows[r, lane] >> 2) & 7)
                continue
            qp = first                           # the sector of the previous word: look there first
            for lane in range(32):
                a = rows[r, lane]
                if a == -1:
                    continue
                for b in range(a, a + span, 4):
                    s = b >> 5
                    q = qp
                    if q >= pos or sec_out[q] != s:
                        q = -1
                        for x in range(first, pos):
                            if sec_out[x] == s:
                                q = x
                                break
                        if q < 0:                # a word in a sector no lane starts in
                            continue
                    qp = q
                    w_out[q] |= 1 << ((b >> 2) & 7)
        elif words == 1:
            for q in range(first, pos):
                w_out[q] = 0
            for lane in range(32):
                q = lane_q[lane]
                if q < 0:
                    continue
                a = rows[r, lane]
                n = 1
                if not ascending:                # some word may have several lanes: count them
                    n = 0
                    for l2 in range(32):
                        if rows[r, l2] != -1 and (rows[r, l2] >> 2) == (a >> 2):
                            n += 1
                most = max(w_out[q] & 63, n)
                w_out[q] = most | (((w_out[q] >> 6) | (1 << ((a >> 2) & 7))) << 6)
        elif words == 0 and pos > first:
            w_out[first] = _bank_ways(rows, r, span, banks, lo, hi, writeback)
    return pos


@njit(cache=True, nogil=True, inline="always")
def _consecutive(rows, r):
    """Do the 32 lanes of row ``r`` all touch consecutive 4-byte words, lane by lane?"""
    a0 = rows[r, 0]
    if a0 == -1 or a0 & 3:
        return False
    for lane in range(1, 32):
        if rows[r, lane] != a0 + 4 * lane:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _consecutive_sectors(a0, sec_out, w_out, pos, words):
    """``_sectors`` for 32 lanes on the consecutive words from byte ``a0``: four sectors, or
    five when ``a0`` is not at a sector's start; per sector, for stores its words written,
    for atomics one lane a word and its words touched, else 1 (a load's 128 bytes take one
    wavefront). Returns the new end."""
    end = a0 + 128
    for s in range(a0 >> 5, ((end - 1) >> 5) + 1):
        sec_out[pos] = s
        w = 1
        if words == 1 or words == 2:
            bits = 0
            for b in range(max(a0, s << 5), min(end, (s + 1) << 5), 4):
                bits |= 1 << ((b >> 2) & 7)
            w = bits if words == 2 else 1 | (bits << 6)
        w_out[pos] = w
        pos += 1
    return pos


@njit(cache=True, nogil=True)
def _bank_ways(rows, r, span, banks, lo, hi, writeback):
    """The L1 data stage's wavefronts for one warp's load (row ``r`` of lane addresses, each
    lane ``span`` bytes, the lowest ``lo`` and the highest ``hi``): the most distinct 4-byte
    words that fall in one of the 32 banks (lanes on one word share it). Lanes usually go up
    by address, so a word is looked for only among the last few listed of its bank.

    At least the cycles the data take back to the registers (with ``writeback``): a warp's
    8- or 16-byte access goes in phases of 128 bytes, half-warps or quarter-warps, one a
    cycle, each phase with an active lane taking its turn though its lanes share one word
    (fp64_operands.cu: a warp's 64-bit load of one word took 2.2 cycles of an SM's L1 data
    stage, the L1 81% busy, against 1.3 for the 32-bit load of ldg32, 62%)."""
    back = 1
    if writeback and (span == 8 or span == 16):
        per = 128 // span                        # lanes a phase
        back = 0
        for first in range(0, 32, per):          # the phases with an active lane
            for lane in range(first, first + per):
                if rows[r, lane] != -1:
                    back += 1
                    break
    if hi + max(span, 4) - lo <= 128:            # most loads: every word within 128 bytes
        return max(1, back)                      # 32 consecutive words: one a bank
    banks[:, 0] = 0                              # per bank: how many words, then the words
    most = 1
    for lane in range(32):
        a = rows[r, lane]
        if a == -1:
            continue
        for b in range(a >> 2, (a + max(span, 4) - 1) // 4 + 1):
            k = b & 31
            n = banks[k, 0]
            seen = False
            for j in range(n):
                if banks[k, 1 + j] == b:
                    seen = True
                    break
            if not seen and n < banks.shape[1] - 1:
                banks[k, 1 + n] = b
                banks[k, 0] = n + 1
                if n + 1 > most:
                    most = n + 1
    return max(most, back)


@njit(cache=True, nogil=True)
def running_warps(warp_bits, first_warp, out, start):
    """Write the ids of the warps with lanes here from ``out[start]``; return the new end."""
    n = start
    for w in range(warp_bits.size):
        if warp_bits[w] != 0:
            out[n] = first_warp + w
            n += 1
    return n


@njit(cache=True, nogil=True)
def running_count(warp_bits):
    """How many warps have lanes here (``running_warps`` when nothing records them)."""
    n = 0
    for w in range(warp_bits.size):
        if warp_bits[w] != 0:
            n += 1
    return n


@njit(cache=True, nogil=True)
def _streams(ran, nrun, step_warp, place, ptr):
    """Per kept warp (``place``: its number, -1 if left out), its steps in order: a counting
    sort of the (step, warp) records by warp that keeps the steps' order. Fills ``ptr``;
    returns (entry_step, entry_k)."""
    n = ptr.size - 1
    ptr[:] = 0
    for s in range(nrun.size):
        for j in range(nrun[s]):
            w = place[ran[step_warp[s] + j]]
            if w >= 0:
                ptr[w + 1] += 1
    for w in range(n):
        ptr[w + 1] += ptr[w]
    entry_step = np.empty(ptr[n], np.int64)
    entry_k = np.empty(ptr[n], np.int32)
    pos = ptr[:n].copy()
    for s in range(nrun.size):
        for j in range(nrun[s]):
            w = place[ran[step_warp[s] + j]]
            if w >= 0:
                entry_step[pos[w]] = s
                entry_k[pos[w]] = j
                pos[w] += 1
    return entry_step, entry_k


class Recorder:
    """Steps, events and sectors of one launch (see the module docstring)."""

    def __init__(self, warps_per_cta: int, budget: int, min_ctas: int):
        self.warps_per_cta = warps_per_cta
        self.budget = budget              # recorded warp instructions before sampling starts
        self.min_ctas = min_ctas          # never sample fewer blocks than this
        self.recording = True
        self.recorded_ctas = 0            # blocks [0, recorded_ctas) are recorded
        self.work = 0                     # warp instructions recorded so far
        self.vector = {}                  # shared loads ptxas merges into vector LDS: id -> bytes
        self._bufs = _buffers.take()
        self.steps = self._bufs["steps"]        # (block, running warps, first event, first warp)
        self.warps = self._bufs["warps"]        # the running warps of each step
        self.ev_n = self._bufs["ev_n"]          # per event (a warp's memory access): its count,
        self.ev_ptr = self._bufs["ev_ptr"]      # ... where its sectors start (-1: shared),
        self.ev_same = self._bufs["ev_same"]    # ... lanes on one address (an atomic), the
        #     wavefronts of the vector a shared load leads or isa.VEC_REST (memstats.vector_marks),
        #     or 1 + the access kind (global)
        self.sec = self._bufs["sec"]            # the sectors of the global events
        self.sec_w = self._bufs["sec_w"]        # ... and what they hold (``_sectors``)

    def release(self) -> None:
        """The launch is over (nothing reads the recorded arrays again): give them back."""
        bufs, self._bufs = self._bufs, None
        if bufs is not None:
            _buffers.give(bufs)

    # --- called by the engine -------------------------------------------------------------
    def batch_started(self, first_cta: int, n_ctas: int) -> None:
        self.active = self.recording
        self.first_warp = first_cta * self.warps_per_cta
        if self.active:
            self.recorded_ctas = first_cta + n_ctas

    def batch_finished(self, work: int) -> None:
        """``work``: warp instructions the launch has executed so far."""
        if self.active and work >= self.budget and self.recorded_ctas >= self.min_ctas:
            self.recording = False
        self.work = work if self.active else self.work

    def step(self, block: int, warp_bits: np.ndarray) -> None:
        if not self.active:
            return
        buf = self.warps.reserve(warp_bits.size)
        start = self.warps.n
        self.warps.n = running_warps(warp_bits, self.first_warp, buf, start)
        self.steps.reserve(1)[self.steps.n] = (block, self.warps.n - start, self.ev_n.n, start)
        self.steps.n += 1

    def step_arrays(self):
        """(block, running warps, first event) per step, as arrays for the machine."""
        if not hasattr(self, "_step_arrays") or self._step_arrays[0].size != self.steps.n:
            a = self.steps.view()
            self._step_arrays = (a[:, 0].astype(np.int32), a[:, 1].astype(np.int32), a[:, 2].copy(),
                                 a[:, 3].copy())
        return self._step_arrays

    def shared(self, waves: np.ndarray, same: np.ndarray | None) -> None:
        if not self.active:
            return
        n = waves.size
        start = self.ev_n.n                  # the three event arrays grow together
        self.ev_n.reserve(n)[start:start + n] = waves
        self.ev_ptr.reserve(n)[start:start + n] = -1
        self.ev_same.reserve(n)[start:start + n] = 0 if same is None else same
        self.ev_n.n = self.ev_ptr.n = self.ev_same.n = start + n

    def shared_events(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Room for one shared access of ``n`` warps, for the engine to fill in place (as
        ``shared`` records them): their wavefronts and lanes on one address."""
        if not self.active:
            return np.empty(n, np.int32), np.empty(n, np.int32)
        start = self.ev_n.n                  # the three event arrays grow together
        waves = self.ev_n.reserve(n)[start:start + n]
        self.ev_ptr.reserve(n)[start:start + n] = -1
        same = self.ev_same.reserve(n)[start:start + n]
        self.ev_n.n = self.ev_ptr.n = self.ev_same.n = start + n
        return waves, same

    def global_(self, rows: np.ndarray, kind: int, span: int = 4) -> np.ndarray:
        """Record one global access (rows of lane addresses per warp; ``kind`` 0 load, 1 atomic,
        2 store; each lane touches ``span`` bytes); return sectors per row."""
        counts = np.empty(rows.shape[0], np.int64)
        if not self.active:
            scratch = np.empty(rows.shape[0] * 32, np.int64)
            _sectors(rows, scratch, np.empty(scratch.size, np.int16), 0, counts, 3, span)   # counts only
            return counts
        n = rows.shape[0]
        sec = self.sec.reserve(n * 32)
        w = self.sec_w.reserve(n * 32)
        start = self.sec.n
        end = _sectors(rows, sec, w, start, counts, kind, span, WRITEBACK)
        self.sec.n = self.sec_w.n = end
        at = self.ev_n.n                     # the three event arrays grow together
        _global_events(counts, start, 1 + kind, at, self.ev_n.reserve(n), self.ev_ptr.reserve(n),
                       self.ev_same.reserve(n))     # (ev_same is read by footprint())
        self.ev_n.n = self.ev_ptr.n = self.ev_same.n = at + n
        return counts

    # --- for the machine ------------------------------------------------------------------
    def streams(self, warps: np.ndarray):
        """Per warp of ``warps`` (ids of warps of recorded blocks, ascending), its steps in
        order: (entry_ptr [len(warps)+1], entry_step, entry_k), where ``entry_k`` is the warp's
        position among the step's running warps. Warps not listed are left out; the listed
        ones are numbered by their place in ``warps``."""
        ran = self.warps.view()
        _, nrun, _, step_warp = self.step_arrays()
        place = np.full(self.recorded_ctas * self.warps_per_cta, -1, np.int64)
        place[warps] = np.arange(warps.size)
        ptr = np.empty(warps.size + 1, np.int64)
        entry_step, entry_k = _streams(ran, nrun, step_warp, place, ptr)
        return ptr, entry_step, entry_k
