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

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit


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


@njit(cache=True, nogil=True)
def _sectors(rows, sec_out, w_out, start, counts, words, span):
    """Distinct 32-byte sectors of each row of lane addresses (-1: inactive), in lane order,
    written from ``sec_out[start]``; per row the number of sectors. Per sector ``w_out``:
    with ``words`` 1 (atomics), the most lanes on one 4-byte word (what an atomic unit
    serialises; the low 6 bits) and which of its 8 words the lanes touch (a bit each, above
    them); with 2 (stores), which of its 8 words are written (a bit each; each lane writes
    ``span`` bytes); with 0 (loads), the row's L1 bank wavefronts in its first sector
    (``_bank_ways``), 1 in the others; else 1. Returns the new end."""
    banks = np.empty((32, 130), np.int64)
    pos = start
    for r in range(rows.shape[0]):
        first = pos
        last = -1
        top = -1                                 # the largest sector listed so far: above it, new
        for lane in range(32):
            a = rows[r, lane]
            if a == -1:
                continue
            s = a >> 5
            if s == last:
                continue
            found = False
            if s <= top:
                for q in range(first, pos):
                    if sec_out[q] == s:
                        found = True
                        break
            last = s
            if not found:
                sec_out[pos] = s
                w_out[pos] = 1
                pos += 1
                top = max(top, s)
        counts[r] = pos - first
        if words == 2:
            for q in range(first, pos):
                w_out[q] = 0
            qp = first                           # the sector of the previous word: look there first
            for lane in range(32):
                a = rows[r, lane]
                if a == -1:
                    continue
                for b in range(a, a + max(span, 4), 4):
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
                most = 0
                touched = 0
                for lane in range(32):
                    a = rows[r, lane]
                    if a == -1 or (a >> 5) != sec_out[q]:
                        continue
                    touched |= 1 << ((a >> 2) & 7)
                    n = 0
                    for l2 in range(32):
                        if rows[r, l2] != -1 and (rows[r, l2] >> 2) == (a >> 2):
                            n += 1
                    if n > most:
                        most = n
                w_out[q] = most | (touched << 6)
        elif words == 0 and pos > first:
            w_out[first] = _bank_ways(rows, r, span, banks)
    return pos


@njit(cache=True, nogil=True)
def _bank_ways(rows, r, span, banks):
    """The L1 data stage's wavefronts for one warp's load (row ``r`` of lane addresses, each
    lane ``span`` bytes): the most distinct 4-byte words that fall in one of the 32 banks
    (lanes on one word share it). Lanes usually go up by address, so a word is looked for
    only among the last few listed of its bank."""
    lo, hi = -1, -1
    for lane in range(32):                       # most loads: every word within 128 bytes
        a = rows[r, lane]
        if a != -1:
            lo = a if lo == -1 or a < lo else lo
            hi = a if a > hi else hi
    if hi + max(span, 4) - lo <= 128:
        return 1                                 # 32 consecutive words: one a bank
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
    return most


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
        self.steps = _Grow(np.int64, 1024, 4)   # (block, running warps, first event, first warp)
        self.warps = _Grow(np.int32)
        self.ev_n = _Grow(np.int32)
        self.ev_ptr = _Grow(np.int64)
        self.ev_same = _Grow(np.int32)
        self.sec = _Grow(np.int64, 4096)
        self.sec_w = _Grow(np.int16, 4096)

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
        self.ev_same.reserve(n)[start:start + n] = 1 if same is None else same
        self.ev_n.n = self.ev_ptr.n = self.ev_same.n = start + n

    def global_(self, rows: np.ndarray, kind: int, span: int = 4) -> np.ndarray:
        """Record one global access (rows of lane addresses per warp; ``kind`` 0 load, 1 atomic,
        2 store; each lane touches ``span`` bytes); return sectors per row."""
        counts = np.empty(rows.shape[0], np.int64)
        if not self.active:
            scratch = np.empty(rows.shape[0] * 32, np.int64)
            _sectors(rows, scratch, np.empty(scratch.size, np.int16), 0, counts, 3, span)   # counts only
            return counts
        sec = self.sec.reserve(rows.shape[0] * 32)
        w = self.sec_w.reserve(rows.shape[0] * 32)
        start = self.sec.n
        end = _sectors(rows, sec, w, start, counts, kind, span)
        self.sec.n = self.sec_w.n = end
        self.ev_n.append(counts.astype(np.int32))
        self.ev_ptr.append(start + np.concatenate(([0], np.cumsum(counts)[:-1])))
        self.ev_same.append(np.full(rows.shape[0], 1 + kind, np.int32))    # read by footprint()
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
