"""Sectored, set-associative LRU caches (128-byte lines of four 32-byte sectors), compiled.

The same helpers serve the per-SM L1s (``c`` = the SM) and the L2 (``c`` = 0): per way a
line tag, a valid-sector mask, a dirty-sector mask and an LRU stamp (memsys.memory_arrays).
"""
from __future__ import annotations

from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit


@njit(cache=True, nogil=True, _nrt=False)
def set_of(line, sets):
    h = (line * 0x9E3779B1) & 0xFFFFFFFFFFFF
    return (h >> 16) % sets


@njit(cache=True, nogil=True, _nrt=False)
def l1_set_of(line, sets, fold):
    """The L1 set of ``line``: with ``fold`` (bits), the line's number XORed with itself
    shifted by ``fold`` and by twice that, so lines a power of two apart spread over the sets
    as consecutive lines do (timing.l1_set_fold, fitted to l1_assoc.cu's chases); else
    ``set_of``'s multiplicative hash."""
    if fold <= 0:
        return set_of(line, sets)
    return (line ^ (line >> fold) ^ (line >> (2 * fold))) % sets


@njit(cache=True, nogil=True, _nrt=False)
def find(tag, init, c, s, line):
    """The way holding ``line`` in set ``s`` of cache ``c``, or -1. A set is emptied when
    first looked at (``init``), so a launch need not clear every cache's tags up front."""
    if init[c, s] == 0:
        for w in range(tag.shape[2]):
            tag[c, s, w] = -1
        init[c, s] = 1
        return -1
    for w in range(tag.shape[2]):
        if tag[c, s, w] == line:
            return w
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def victim(tag, stamp, c, s):
    """An empty way of set ``s``, else the least recently used."""
    best = 0
    for w in range(tag.shape[2]):
        if tag[c, s, w] == -1:
            return w
        if stamp[c, s, w] < stamp[c, s, best]:
            best = w
    return best


@njit(cache=True, nogil=True, _nrt=False)
def sectors(mask):
    """How many of a line's four 32-byte sectors ``mask`` names."""
    return (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1) + ((mask >> 3) & 1)


@njit(cache=True, nogil=True, _nrt=False)
def halves(mask):
    """How many 64-byte halves of a line ``mask`` touches (DRAM moves a half at a time)."""
    return (1 if mask & 3 else 0) + (1 if mask & 12 else 0)

