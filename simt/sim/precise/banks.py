"""Shared-memory bank conflicts and global-memory sectors of one warp-level access.

Rules (sm_70 and later; ../REFERENCE in the project docs, measured on an H200):
32 banks of 4 bytes; bank = (byte address / 4) % 32. An access is split into phases of
128 bytes: 32-bit accesses are one phase of 32 lanes, 64-bit two half-warps, 128-bit four
quarter-warps. Within a phase, lanes touching the same 32-bit word are served together; a
phase costs as many wavefronts as the most distinct words any one bank must supply.
Phases never merge. Pair rule: when every active lane has the same address as lane n^1,
two lanes share a slot and a phase covers twice as many lanes.
Ideal wavefronts: what the access would cost without conflicts, i.e. per non-empty phase
the number of 128-byte lines its distinct words need (at least one).
"""
from __future__ import annotations

import numpy as np

SECTOR_BYTES = 32


def shared_wavefronts(addr: np.ndarray, active: np.ndarray, width: int) -> tuple[int, int]:
    """(wavefronts, ideal wavefronts) of one warp's shared access.

    ``addr``: byte address per lane (32 entries), ``active``: bool per lane, ``width``: bytes
    per lane (4, 8 or 16; 1- and 2-byte accesses behave like 4).
    """
    addr = np.asarray(addr, dtype=np.int64)
    active = np.asarray(active, dtype=bool)
    if not active.any():
        return 0, 0
    width = max(4, width)
    lanes_per_phase = 128 // width
    if lanes_per_phase < 32 and _pair_rule(addr, active):
        lanes_per_phase *= 2
    words_per_lane = width // 4
    wavefronts = ideal = 0
    for start in range(0, 32, lanes_per_phase):
        sel = active[start:start + lanes_per_phase]
        if not sel.any():
            continue
        base_words = addr[start:start + lanes_per_phase][sel] // 4
        words = np.unique((base_words[:, None] + np.arange(words_per_lane)).ravel())
        per_bank = np.bincount(words % 32, minlength=32)
        wavefronts += int(per_bank.max())
        ideal += max(1, -(-words.size // 32))
    return wavefronts, ideal


def _pair_rule(addr: np.ndarray, active: np.ndarray) -> bool:
    partner = np.arange(32) ^ 1
    ok = ~active | (active[partner] & (addr == addr[partner]))
    return bool(ok.all())


def global_sectors(addr: np.ndarray, active: np.ndarray, width: int) -> int:
    """Distinct 32-byte sectors covering the bytes the active lanes touch."""
    a = np.asarray(addr, dtype=np.int64)[np.asarray(active, dtype=bool)]
    if a.size == 0:
        return 0
    first = a // SECTOR_BYTES
    last = (a + width - 1) // SECTOR_BYTES
    if (first == last).all():
        return int(np.unique(first).size)
    spans = [np.arange(f, l + 1) for f, l in zip(first.tolist(), last.tolist())]
    return int(np.unique(np.concatenate(spans)).size)
