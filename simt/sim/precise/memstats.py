"""Per-warp memory-access statistics, vectorised over every warp of a step.

For each warp-level shared access: wavefronts and ideal wavefronts (bank model of
banks.py, applied to many warps at once); for each global access: 32-byte sectors and one
request. The per-warp scalar reference is banks.py; tests check the two agree.
"""
from __future__ import annotations

import numpy as np

INACTIVE = -1


def warp_rows(sel: np.ndarray, values: np.ndarray):
    """Arrange per-active-lane values into one row of 32 per warp (INACTIVE elsewhere).

    ``sel`` is sorted batch lane indices. Returns (warp ids, rows).
    """
    warps = sel >> 5
    boundary = np.ones(warps.size, dtype=bool)
    boundary[1:] = warps[1:] != warps[:-1]
    row = np.cumsum(boundary) - 1
    out = np.full((int(row[-1]) + 1 if row.size else 0, 32), INACTIVE, dtype=np.int64)
    out[row, sel & 31] = values
    return warps[boundary], out


def shared_wavefronts_rows(addr: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Wavefronts and ideal wavefronts per row (one row = one warp's 32 lane addresses)."""
    width = max(4, width)
    rows = addr.shape[0]
    waves = np.zeros(rows, dtype=np.int64)
    ideal = np.zeros(rows, dtype=np.int64)
    lanes = 128 // width
    pair = np.zeros(rows, dtype=bool)
    if lanes < 32:
        partner = addr[:, np.arange(32) ^ 1]
        pair = ((addr == INACTIVE) | (partner == addr)).all(axis=1)
    for is_pair, lpp in ((False, lanes), (True, min(32, lanes * 2))):
        pick = pair == is_pair
        if not pick.any():
            continue
        w, i = _phase_costs(addr[pick], width, lpp)
        waves[pick] = w
        ideal[pick] = i
    return waves, ideal


def _phase_costs(addr: np.ndarray, width: int, lanes_per_phase: int):
    rows = addr.shape[0]
    phases = 32 // lanes_per_phase
    a = addr.reshape(rows * phases, lanes_per_phase)
    words_per_lane = width // 4
    valid = a != INACTIVE
    words = (a // 4)[:, :, None] + np.arange(words_per_lane)
    words = np.where(valid[:, :, None], words, -1).reshape(a.shape[0], -1)
    words.sort(axis=1)
    distinct = words >= 0
    distinct[:, 1:] &= words[:, 1:] != words[:, :-1]
    r, c = np.nonzero(distinct)
    per_bank = np.bincount(r * 32 + words[r, c] % 32, minlength=a.shape[0] * 32).reshape(-1, 32)
    wave = per_bank.max(axis=1)
    n_words = distinct.sum(axis=1)
    ideal = np.where(n_words > 0, np.maximum(1, -(-n_words // 32)), 0)
    return wave.reshape(rows, phases).sum(axis=1), ideal.reshape(rows, phases).sum(axis=1)


def global_sectors_rows(addr: np.ndarray, width: int) -> np.ndarray:
    """Distinct 32-byte sectors per row (accesses are naturally aligned, so one lane's bytes
    never straddle a sector for widths up to 16)."""
    s = np.where(addr == INACTIVE, -1, addr // 32)
    if width > 16:
        raise NotImplementedError("accesses wider than 16 bytes")
    s.sort(axis=1)
    distinct = s >= 0
    distinct[:, 1:] &= s[:, 1:] != s[:, :-1]
    return distinct.sum(axis=1)
