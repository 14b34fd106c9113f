"""Per-warp memory-access statistics for every warp of a step, compiled with numba.

For each warp-level shared access: wavefronts and ideal wavefronts (the bank model of
banks.py); for each global access: 32-byte sectors, the cache level reached and one
request. banks.py is the readable per-warp reference; tests check the two agree.
"""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from ..timing.isa import VEC_REST   # a shared load's ``same``: carried by a vector load before it

INACTIVE = -1          # the address of an inactive lane in a warp's row of 32


@njit(cache=True, nogil=True)
def rows_from_lanes(sel, addr, n_rows):
    """(warp ids, one row of 32 addresses per warp, INACTIVE where a lane is not active)
    from the sorted active lanes and their addresses."""
    if sel.size == 32 * n_rows and sel.size > 0 and sel[0] % 32 == 0 and sel[-1] - sel[0] == sel.size - 1:
        # whole warps, every lane active: the rows are the addresses as they are
        warps = np.empty(n_rows, dtype=np.int64)
        for r in range(n_rows):
            warps[r] = (sel[0] >> 5) + r
        return warps, np.ascontiguousarray(addr).reshape(n_rows, 32)
    rows = np.full((n_rows, 32), -1, dtype=np.int64)
    warps = np.empty(n_rows, dtype=np.int64)
    r = -1
    last = -1
    for i in range(sel.size):
        w = sel[i] >> 5
        if w != last:
            r += 1
            warps[r] = w
            last = w
        rows[r, sel[i] & 31] = addr[i]
    return warps, rows


@njit(cache=True, nogil=True)
def _same_pattern(row, prev, align=4):
    """True when ``row`` is ``prev`` shifted by one multiple of ``align`` bytes (same active
    lanes); ``align`` is a power of two, at least 4."""
    delta = 0
    have = False
    for l in range(32):
        a, b = row[l], prev[l]
        if (a == -1) != (b == -1):
            return False
        if a == -1:
            continue
        if not have:
            delta = a - b
            have = True
            if delta & (align - 1) != 0:
                return False
        elif a - b != delta:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _one_word_per_bank(row, bank_words):
    """Do the active lanes of ``row`` (4-byte accesses, one phase of 32 lanes) touch at most
    one word per bank, and at least one word? ``bank_words[:, 0]`` is scratch."""
    used = np.int64(0)
    for l in range(32):
        a = row[l]
        if a == -1:
            continue
        wd = a >> 2              # offsets are not negative
        b = wd & 31
        bit = np.int64(1) << b
        if used & bit:
            if bank_words[b, 0] != wd:
                return False
        else:
            used |= bit
            bank_words[b, 0] = wd
    return used != 0


@njit(cache=True, nogil=True)
def _phase_costs(row, width, bank_cnt, bank_words):
    """(wavefronts, ideal wavefronts) of one row of ``width``-byte accesses, phase by phase,
    by the rules in banks.py. Distinct words are found per bank (a word is only compared
    with the words already seen in its own bank), so a phase costs about one comparison per
    lane. ``bank_cnt`` [32] and ``bank_words`` [32, 128] are scratch."""
    wpl = width // 4
    lanes = 128 // width
    if lanes < 32:
        pair = True
        for l in range(32):
            if row[l] != -1 and row[l ^ 1] != row[l]:
                pair = False
                break
        if pair:
            lanes = min(32, lanes * 2)
    total_w = 0
    total_i = 0
    for start in range(0, 32, lanes):
        bank_cnt[:] = 0
        n = 0
        worst = 0
        for l in range(start, start + lanes):
            if row[l] == -1:
                continue
            for k in range(wpl):
                wd = row[l] // 4 + k
                b = wd % 32
                c = bank_cnt[b]
                new = True
                for q in range(c):
                    if bank_words[b, q] == wd:
                        new = False
                        break
                if new:
                    bank_words[b, c] = wd
                    bank_cnt[b] = c + 1
                    n += 1
                    if c + 1 > worst:
                        worst = c + 1
        if n == 0:
            continue
        total_w += worst
        total_i += max(1, (n + 31) // 32)
    return total_w, total_i


@njit(cache=True, nogil=True, inline="always")
def _row_costs(row, width, bank_cnt, bank_words):
    """``_phase_costs``, with 4-byte words no two in one bank (the common case: consecutive
    words, or a broadcast) found first: one wavefront, the ideal."""
    if width == 4 and _one_word_per_bank(row, bank_words):
        return 1, 1
    return _phase_costs(row, width, bank_cnt, bank_words)


@njit(cache=True, nogil=True)
def shared_costs(rows, width, waves, ideal):
    """Wavefronts and ideal wavefronts per row, by the rules in banks.py; a row that is the
    one before it shifted by a multiple of 4 bytes costs what it does (the banks rotate)."""
    width = max(4, width)
    bank_cnt = np.zeros(32, dtype=np.int64)
    bank_words = np.empty((32, 128), dtype=np.int64)
    for r in range(rows.shape[0]):
        row = rows[r]
        if width == 4 and _one_word_per_bank(row, bank_words):
            waves[r] = ideal[r] = 1
        elif r > 0 and _same_pattern(row, rows[r - 1]):
            waves[r] = waves[r - 1]
            ideal[r] = ideal[r - 1]
        else:
            waves[r], ideal[r] = _phase_costs(row, width, bank_cnt, bank_words)


@njit(cache=True, nogil=True)
def global_costs(rows, base, seen, batch_seen, sectors, level, new_sectors):
    """Per row: distinct 32-byte sectors; cache level reached (0 L1, 1 L2, 2 DRAM: the
    farthest any lane needed); sectors never touched before in the launch. Marks sectors."""
    found = np.empty(32, dtype=np.int64)
    for r in range(rows.shape[0]):
        n = 0
        lvl = 0
        fresh = 0
        for l in range(32):
            a = rows[r, l]
            if a == -1:
                continue
            s = (a - base) // 32
            dup = False
            for q in range(n):
                if found[q] == s:
                    dup = True
                    break
            if dup:
                continue
            found[n] = s
            n += 1
            if not seen[s]:
                lvl = 2
                fresh += 1
            elif not batch_seen[s] and lvl < 1:
                lvl = 1
        for q in range(n):
            seen[found[q]] = True
            batch_seen[found[q]] = True
        sectors[r] = n
        level[r] = lvl
        new_sectors[r] = fresh


@njit(cache=True, nogil=True)
def lane_addresses(n, idx, base, nbytes):
    """Byte address of each of ``n`` lanes from their element indices (one: all alike)."""
    addr = np.empty(n, dtype=np.int64)
    if idx.size > 1:
        for i in range(n):
            addr[i] = base + idx[i] * nbytes
    else:
        addr[:] = base + idx[0] * nbytes
    return addr


@njit(cache=True, nogil=True)
def record_shared(sel, idx, base, nbytes, width, n_rows, warp_wavefronts, lat, iv, extra,
                  base_latency):
    """One shared access of a step: rows, costs, per-warp latency/interval/conflict cycles,
    per-warp wavefront totals. Returns (warps, rows, wavefronts, ideal) for listeners, and
    the wavefronts' and ideal wavefronts' totals."""
    warps, rows = rows_from_lanes(sel, lane_addresses(sel.size, idx, base, nbytes), n_rows)
    waves = np.empty(n_rows, dtype=np.int64)
    ideal = np.empty(n_rows, dtype=np.int64)
    shared_costs(rows, width, waves, ideal)
    n_waves = 0
    n_ideal = 0
    for r in range(n_rows):
        e = waves[r] - ideal[r]
        lat[r] = base_latency + waves[r] - 1
        iv[r] = 1 + e
        extra[r] = e
        warp_wavefronts[warps[r]] += waves[r]
        n_waves += waves[r]
        n_ideal += ideal[r]
    return warps, rows, waves, ideal, n_waves, n_ideal


@njit(cache=True, nogil=True)
def shared_events(sel, idx, base, nbytes, width, n_rows, atomic, vec, waves, same):
    """One shared access of a step where nothing reads its rows (no per-warp timeline, no
    listener): per warp its wavefronts into ``waves`` and into ``same`` the most lanes on one
    address for an atomic (``same_address_lanes``), for a load on a line ptxas loads ``vec``
    bytes at a time ``vector_marks``' mark, else 0, written in place (the recorder's event
    arrays). Returns the wavefronts' and ideal wavefronts' totals."""
    _, rows = rows_from_lanes(sel, lane_addresses(sel.size, idx, base, nbytes), n_rows)
    ideal = np.empty(n_rows, dtype=np.int64)
    if vec and not atomic:
        _vector_rows(rows, width, vec, waves, ideal, same)
    else:
        shared_costs(rows, width, waves, ideal)
        if atomic:
            same_address_lanes(rows, same)
    n_waves = 0
    n_ideal = 0
    for r in range(n_rows):
        if not atomic and not vec:
            same[r] = 0
        n_waves += waves[r]
        n_ideal += ideal[r]
    return n_waves, n_ideal


@njit(cache=True, nogil=True)
def record_global(sel, idx, base, nbytes, n_rows, seen, batch_seen, lat, level_latency,
                  atomic_latency, is_atomic):
    """One global access of a step, for the per-warp timeline (clock(), traces): each warp's
    latency by the farthest cache level its sectors needed. Returns (warps, rows, sectors)."""
    warps, rows = rows_from_lanes(sel, lane_addresses(sel.size, idx, base, nbytes), n_rows)
    sectors = np.empty(n_rows, dtype=np.int64)
    level = np.empty(n_rows, dtype=np.int64)
    fresh = np.empty(n_rows, dtype=np.int64)
    global_costs(rows, base, seen, batch_seen, sectors, level, fresh)
    for r in range(n_rows):
        lat[r] = atomic_latency if is_atomic else level_latency[level[r]]
    return warps, rows, sectors


@njit(cache=True, nogil=True)
def vector_marks(rows, vec, out):
    """Per row of a shared load on a source line that ptxas loads ``vec`` bytes a lane at a
    time (``vs[j]`` for four ``j`` in one LDS.128): where every active lane's address sits at
    the same offset in its ``vec``-byte slot, the load is one of the vector's parts: the
    first (offset 0) carries the vector, its wavefronts by the bank rule for ``vec``-byte
    accesses at those addresses (a broadcast: 2 for 16 bytes, the pair rule; a column of a
    32-word tile: 32, where four 4-byte loads take 128); a later part is VEC_REST (the
    vector before it loaded it). Lanes at different offsets (``ks[t * 97 + j]``) cannot be
    one vector load: 0, costed as the scalar load it is."""
    waves = np.empty(rows.shape[0], dtype=np.int64)
    ideal = np.empty(rows.shape[0], dtype=np.int64)
    _vector_rows(rows, 4, vec, waves, ideal, out)


@njit(cache=True, nogil=True)
def _vector_rows(rows, width, vec, waves, ideal, out):
    """``shared_costs`` at ``width`` bytes into ``waves`` and ``ideal`` and ``vector_marks``
    at ``vec`` (8 or 16) into ``out``, in one pass: a row that is the one before it shifted
    by a multiple of ``vec`` bytes has its costs and its mark (its offsets in the slots stay)."""
    width = max(4, width)
    mask = vec - 1                       # offsets are not negative
    bank_cnt = np.zeros(32, dtype=np.int64)
    bank_words = np.empty((32, 128), dtype=np.int64)
    for r in range(rows.shape[0]):
        row = rows[r]
        if r > 0 and _same_pattern(row, rows[r - 1], vec):
            waves[r] = waves[r - 1]
            ideal[r] = ideal[r - 1]
            out[r] = out[r - 1]
            continue
        waves[r], ideal[r] = _row_costs(row, width, bank_cnt, bank_words)
        off = -1
        for l in range(32):
            a = row[l]
            if a == -1:
                continue
            if off == -1:
                off = a & mask
            elif a & mask != off:
                off = -2
                break
        if off == 0:
            out[r] = max(1, _phase_costs(row, vec, bank_cnt, bank_words)[0])
        elif off > 0:
            out[r] = VEC_REST
        else:
            out[r] = 0


@njit(cache=True, nogil=True)
def same_address_lanes(rows, out):
    """Per row: the most active lanes sharing one address (atomics to it serialise). Each
    active address is counted in a small hash table (64 slots for at most 32 addresses; a
    slot belongs to the row that stamped it), which scattered addresses, as a histogram's
    bins are, cost one probe or two a lane."""
    keys = np.empty(64, np.int64)
    count = np.empty(64, np.int64)
    stamp = np.full(64, -1, np.int64)
    for r in range(rows.shape[0]):
        worst = 0
        for l in range(32):
            a = rows[r, l]
            if a == -1:
                continue
            h = (((a >> 2) * 0x9E3779B1) >> 20) & 63
            while stamp[h] == r and keys[h] != a:
                h = (h + 1) & 63
            if stamp[h] != r:
                stamp[h] = r
                keys[h] = a
                count[h] = 0
            count[h] += 1
            worst = max(worst, count[h])
        out[r] = worst
