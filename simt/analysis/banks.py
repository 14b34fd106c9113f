"""Shared-memory bank conflicts from a trace: per instruction, per line, per bank.

Wavefronts and ideal wavefronts are the ones the engine recorded (computed by
simt.sim.precise.banks); a record without them is recomputed with that same module. What
the engine does not record is derived here from the addresses with the same phase rules:
the n-way of an access (the most distinct 32-bit words one bank must supply in one phase)
and the per-bank histogram (distinct words each bank supplies, summed over executions).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..sim.precise import banks as bank_model
from .loading import INACTIVE, Trace, addr_matrix, chunks_of, int_values, lane_mask
from .patterns import distinct_patterns
from .tables import by_line, combine, order_by_source, per_pc, space_is

BANKS = 32
LANES = 32
BANK_COLUMNS = tuple(f"bank{k}" for k in range(BANKS))   # per-bank sums inside the partials


def bank_conflicts(trace: Trace, by: str = "pc") -> pd.DataFrame:
    """Bank conflicts of every shared-memory instruction (``by="pc"``) or source line
    (``by="line"``).

    Columns: executions (warp-level), wavefronts, ideal, conflicts (= wavefronts - ideal,
    Nsight Compute's l1tex__data_bank_conflicts), wavefronts_per_exec, n_way (worst over
    executions), bank_words (32 ints: distinct words per bank, summed over executions);
    per pc also op, line, col; per line the ops and number of instructions.
    """
    table = shared_per_pc(trace)
    if by == "pc":
        return _finish(order_by_source(table))
    if by == "line":
        return _finish(_per_line(table))
    raise ValueError(f"by must be 'pc' or 'line', got {by!r}")


def bank_histogram(trace: Trace, pc: str) -> pd.DataFrame:
    """Per bank (0..31) for one instruction: ``words`` (distinct 32-bit words the bank
    supplied, summed over executions), ``accesses`` (active lanes' words that mapped to it)
    and ``max_words`` (the most words it supplied in one phase: its n-way)."""
    words = np.zeros(BANKS, dtype=np.int64)
    accesses = np.zeros(BANKS, dtype=np.int64)
    worst = np.zeros(BANKS, dtype=np.int64)
    found = False
    for chunk in chunks_of(trace):
        rows = _rows_of(chunk, pc)
        if rows.size == 0:
            continue
        found = True
        addr, active, width = _access(chunk, rows)
        for w in np.unique(width):
            pick = width == w
            phase_words = phase_bank_words(addr[pick], active[pick], int(w))
            words += phase_words.sum(axis=(0, 1))
            worst = np.maximum(worst, phase_words.max(axis=(0, 1)))
            lane_words = _lane_words(addr[pick], active[pick], int(w))
            accesses += np.bincount(lane_words[lane_words >= 0] % BANKS, minlength=BANKS)
    if not found:
        raise KeyError(f"no shared-memory instruction with pc {pc!r} in the trace")
    return pd.DataFrame({"words": words, "accesses": accesses, "max_words": worst},
                        index=pd.RangeIndex(BANKS, name="bank"))


def lane_bank_counts(trace: Trace, pc: str) -> np.ndarray:
    """(32 lanes, 32 banks): how often each lane's words fell in each bank for ``pc``."""
    counts = np.zeros((LANES, BANKS), dtype=np.int64)
    found = False
    for chunk in chunks_of(trace):
        rows = _rows_of(chunk, pc)
        if rows.size == 0:
            continue
        found = True
        addr, active, width = _access(chunk, rows)
        for w in np.unique(width):
            pick = width == w
            lw = _lane_words(addr[pick], active[pick], int(w))   # (n, 32, words per lane)
            lane = np.broadcast_to(np.arange(LANES)[None, :, None], lw.shape)
            ok = lw >= 0
            np.add.at(counts, (lane[ok], lw[ok] % BANKS), 1)
    if not found:
        raise KeyError(f"no shared-memory instruction with pc {pc!r} in the trace")
    return counts


def worst_execution(trace: Trace, pc: str) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """(addresses, active lanes, width, its index among the pc's executions, executions) of
    the execution of ``pc`` that needed the most wavefronts (the first such one)."""
    best, best_cost, seen = None, -1, 0
    for chunk in chunks_of(trace):
        rows = _rows_of(chunk, pc)
        if rows.size == 0:
            continue
        addr, active, width = _access(chunk, rows)
        cost = np.zeros(rows.size, dtype=np.int64)
        for w in np.unique(width):
            pick = np.flatnonzero(width == w)
            cost[pick] = phase_bank_words(addr[pick], active[pick], int(w)).max(axis=2).sum(axis=1)
        k = int(np.argmax(cost))
        if cost[k] > best_cost:
            best, best_cost = (addr[k], active[k], int(width[k]), seen + k), int(cost[k])
        seen += rows.size
    if best is None:
        raise KeyError(f"no shared-memory instruction with pc {pc!r} in the trace")
    return (*best, seen)


def lane_bank_rounds(addr: np.ndarray, active: np.ndarray, width: int) -> np.ndarray:
    """(32 lanes, 32 banks) for one access: 0 where the lane does not use the bank, else the
    round (1, 2, ...) in which the bank supplies the lane's word: the bank's distinct words
    of the phase, in address order. The largest value is the access's n-way."""
    out = np.zeros((LANES, BANKS), dtype=np.int64)
    lw = _lane_words(addr[None], active[None], width)[0]            # (32, words per lane)
    width = max(4, width)
    lanes_per_phase = 128 // width
    if lanes_per_phase < LANES:
        partner = np.arange(LANES) ^ 1
        if (~active | (active[partner] & (addr == addr[partner]))).all():
            lanes_per_phase *= 2
    for start in range(0, LANES, lanes_per_phase):
        words = lw[start:start + lanes_per_phase]
        distinct = np.unique(words[words >= 0])
        for lane in range(start, min(LANES, start + lanes_per_phase)):
            for word in lw[lane][lw[lane] >= 0]:
                same_bank = distinct[distinct % BANKS == word % BANKS]
                out[lane, word % BANKS] = int(np.searchsorted(same_bank, word)) + 1
    return out


def shared_per_pc(trace: Trace) -> pd.DataFrame:
    """Per-pc sums over the whole trace (the raw material of ``bank_conflicts``)."""
    return combine([shared_partial(chunk) for chunk in chunks_of(trace)], maxima=("n_way",))


# ---------------------------------------------------------------- the phase model

def phase_bank_words(addr: np.ndarray, active: np.ndarray, width: int) -> np.ndarray:
    """(n, phases, 32): distinct 32-bit words each bank supplies in each phase of each access.

    Phases follow simt.sim.precise.banks: 128 bytes each, doubled by the pair rule; the
    phase axis is as long as the narrowest grouping needs (unused phases are zero).
    Summing each phase's maximum gives that module's wavefronts.
    """
    n = addr.shape[0]
    width = max(4, width)
    lanes_per_phase = np.full(n, 128 // width, dtype=np.int64)
    if 128 // width < LANES:
        partner = np.arange(LANES) ^ 1
        pair = (~active | (active[:, partner] & (addr == addr[:, partner]))).all(axis=1)
        lanes_per_phase[pair] *= 2
    phases = -(-LANES // (128 // width))
    out = np.zeros((n, phases, BANKS), dtype=np.int64)
    lw = _lane_words(addr, active, width)                     # (n, 32, k), -1 if inactive
    if n == 0 or not (lw >= 0).any():
        return out
    phase = (np.arange(LANES)[None, :] // lanes_per_phase[:, None])[:, :, None]
    row = np.arange(n)[:, None, None]
    ok = lw >= 0
    base = np.where(ok, lw, np.iinfo(np.int64).max).min(axis=(1, 2))
    base = np.where(base == np.iinfo(np.int64).max, 0, base) // BANKS * BANKS
    words = lw - base[:, None, None]                          # bank of a word is unchanged
    span = int(words[ok].max()) + 1
    key = ((np.broadcast_to(row, lw.shape)[ok] * phases + np.broadcast_to(phase, lw.shape)[ok])
           * span + words[ok])
    key.sort()
    distinct = key[np.r_[True, key[1:] != key[:-1]]]
    row_phase, word = np.divmod(distinct, span)
    np.add.at(out.reshape(n * phases, BANKS), (row_phase, word % BANKS), 1)
    return out


def _rows_of(chunk: pd.DataFrame, pc: str) -> np.ndarray:
    return np.flatnonzero(space_is(chunk, "shared") & np.asarray(chunk["pc"] == pc, dtype=bool))


def _lane_words(addr: np.ndarray, active: np.ndarray, width: int) -> np.ndarray:
    """(n, 32, words per lane): the 32-bit words each active lane touches, -1 if inactive."""
    k = max(4, width) // 4
    words = (addr // 4)[:, :, None] + np.arange(k)
    return np.where(active[:, :, None], words, -1)


def _access(chunk: pd.DataFrame, rows: np.ndarray):
    """(addresses, active lanes, width per access) of ``rows``."""
    addr = addr_matrix(chunk["addr"].iloc[rows])
    active = lane_mask(int_values(chunk, "mask")[rows]) & (addr != INACTIVE)
    width = np.maximum(4, int_values(chunk, "width", fill=4)[rows])
    return addr, active, width


def shared_partial(chunk: pd.DataFrame, detail: bool = True) -> pd.DataFrame:
    """Per-pc sums of one chunk: wavefronts, ideal, lanes; with ``detail`` also the n-way
    and the per-bank words (the only costly part, computed once per distinct pattern)."""
    rows = np.flatnonzero(space_is(chunk, "shared"))
    waves, ideal = _recorded_or_model(chunk, rows)
    sums = {"wavefronts": waves, "ideal": ideal, "lanes": int_values(chunk, "active")[rows]}
    if not detail:
        return per_pc(chunk, rows, sums=sums)
    addr, active, width = _access(chunk, rows)
    first, inverse = distinct_patterns(addr, active, width, align=128)
    u_addr, u_active, u_width = addr[first], active[first], width[first]
    n_way = np.zeros(first.size, dtype=np.int64)
    words = np.zeros((first.size, BANKS), dtype=np.int64)
    for w in np.unique(u_width):
        pick = np.flatnonzero(u_width == w)
        per_phase = phase_bank_words(u_addr[pick], u_active[pick], int(w))
        n_way[pick] = per_phase.max(axis=(1, 2), initial=0)
        words[pick] = per_phase.sum(axis=1)
    sums["bank"] = words[inverse]
    return per_pc(chunk, rows, sums=sums, maxima={"n_way": n_way[inverse]})


def _recorded_or_model(chunk, rows):
    """The engine's wavefronts and ideal per access; the bank model where none was recorded."""
    waves = int_values(chunk, "wavefronts", fill=-1)[rows]
    ideal = int_values(chunk, "ideal", fill=-1)[rows]
    missing = np.flatnonzero((waves < 0) | (ideal < 0))
    if missing.size:
        w, i = model_wavefronts(*_access(chunk, rows[missing]))
        waves[missing], ideal[missing] = w, i
    return waves, ideal


def model_wavefronts(addr: np.ndarray, active: np.ndarray, width: np.ndarray):
    """(wavefronts, ideal) per access by simt.sim.precise.banks, once per distinct pattern
    (patterns equal up to a shift by whole 128-byte lines cost the same)."""
    first, inverse = distinct_patterns(addr, active, width, align=128)
    cost = np.array([bank_model.shared_wavefronts(addr[i], active[i], int(width[i])) for i in first],
                    dtype=np.int64).reshape(-1, 2)
    return cost[inverse, 0], cost[inverse, 1]


# ---------------------------------------------------------------- output tables

def _finish(t: pd.DataFrame) -> pd.DataFrame:
    t = t.copy()
    banks = list(BANK_COLUMNS)
    for c in ("executions", "wavefronts", "ideal", "n_way", "lanes", *banks):
        if c not in t:
            t[c] = pd.Series(dtype=np.int64)
    hist = t[banks].to_numpy(dtype=np.int64)
    t = t.drop(columns=banks)
    t["conflicts"] = t["wavefronts"] - t["ideal"]
    t["wavefronts_per_exec"] = t["wavefronts"] / t["executions"].where(t["executions"] > 0)
    bank_words = np.empty(len(t), dtype=object)
    for i in range(len(t)):
        bank_words[i] = hist[i]
    t["bank_words"] = bank_words
    front = [c for c in ("pc", "line", "col", "op", "ops", "instructions") if c in t]
    rest = ["executions", "wavefronts", "ideal", "conflicts", "wavefronts_per_exec", "n_way",
            "lanes", "bank_words"]
    return t[front + rest].reset_index(drop=True)


def _per_line(table: pd.DataFrame) -> pd.DataFrame:
    banks = BANK_COLUMNS
    if table.empty:
        return pd.DataFrame(columns=["line", "ops", "instructions", "executions", "wavefronts",
                                     "ideal", "n_way", "lanes", *banks])
    t = by_line(table, sums=("executions", "wavefronts", "ideal", "lanes", *banks), maxima=("n_way",))
    ops = table.reset_index().assign(line=lambda d: d["line"].astype("Int64"))
    names = ops.groupby("line", dropna=False, sort=True)["op"].agg(lambda s: ",".join(sorted(set(map(str, s)))))
    t.insert(1, "ops", names.reindex(t["line"]).to_numpy())
    return t
