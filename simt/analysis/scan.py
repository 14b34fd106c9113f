"""A compiled scanner for the instruction records of a simt trace.

``json.loads`` costs 5-10 us for a memory record (32 addresses become 32 Python ints), which
caps loading near 100K records/s. The records are flat objects with known keys, so one
numba loop can read a whole chunk of lines into arrays instead. Any line it does not fully
understand (the header, the trailer, an unknown key, a float, an escaped string, more than
32 addresses) is marked SLOW and the loader parses it with ``json`` instead: the scanner
is a fast path, never the definition of the format.
"""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

INT_KEYS = ("launch", "block", "warp", "line", "col", "mask", "active", "cycle",
            "width", "wavefronts", "ideal", "sectors", "requests", "taken")
STR_KEYS = ("pc", "op", "space")
TYPE_KEY, ADDR_KEY = "type", "addr"
MISSING = np.iinfo(np.int64).min   # an int key absent from a record (or null)
INACTIVE = -1                      # an address of an inactive lane (null in the file)
LANES = 32

FAST, SLOW, BLANK = 0, 1, 2        # line status
KIND_INT, KIND_STR, KIND_TYPE, KIND_ADDR = 0, 1, 2, 3


def _key_table():
    names = [*INT_KEYS, *STR_KEYS, TYPE_KEY, ADDR_KEY]
    kinds = [KIND_INT] * len(INT_KEYS) + [KIND_STR] * len(STR_KEYS) + [KIND_TYPE, KIND_ADDR]
    slots = [*range(len(INT_KEYS)), *range(len(STR_KEYS)), 0, 0]
    encoded = [n.encode() for n in names]
    start = np.cumsum([0] + [len(e) for e in encoded]).astype(np.int64)
    return (np.frombuffer(b"".join(encoded), dtype=np.uint8), start,
            np.array(kinds, dtype=np.int64), np.array(slots, dtype=np.int64))


KEY_BYTES, KEY_START, KEY_KIND, KEY_SLOT = _key_table()
INST = np.frombuffer(b"inst", dtype=np.uint8)


def scan(buf: np.ndarray):
    """Scan the lines of ``buf`` (uint8). Returns a dict of arrays, one row per line:
    status, line_start, ints (n, len(INT_KEYS)), str_hash / str_start / str_end
    (n, len(STR_KEYS)), addr_row (index into ``addr`` or -1), addr (m, 32)."""
    out = _scan(buf, KEY_BYTES, KEY_START, KEY_KIND, KEY_SLOT, INST,
                len(INT_KEYS), len(STR_KEYS))
    names = ("status", "line_start", "ints", "str_hash", "str_start", "str_end", "addr_row", "addr")
    return dict(zip(names, out))


@njit(cache=True, nogil=True)
def _is_ws(c):
    return c == 32 or c == 9 or c == 13 or c == 10


@njit(cache=True, nogil=True)
def _key_is(buf, ks, ke, key_bytes, key_start, k):
    a = key_start[k]
    if key_start[k + 1] - a != ke - ks:
        return False
    for i in range(ke - ks):
        if buf[ks + i] != key_bytes[a + i]:
            return False
    return True


@njit(cache=True, nogil=True)
def _match_key(buf, ks, ke, key_bytes, key_start, hint):
    """The key's index; ``hint`` (the key seen at this position of the previous record) first,
    since a writer puts its keys in the same order every time."""
    if hint >= 0 and _key_is(buf, ks, ke, key_bytes, key_start, hint):
        return hint
    for k in range(key_start.size - 1):
        if _key_is(buf, ks, ke, key_bytes, key_start, k):
            return k
    return -1


@njit(cache=True, nogil=True)
def _parse_int(buf, pos, end):
    """(value, new pos, ok): an optional minus and 1-18 digits not followed by . e E."""
    neg = False
    if pos < end and buf[pos] == 45:  # '-'
        neg = True
        pos += 1
    v = 0
    digits = 0
    while pos < end and 48 <= buf[pos] <= 57:
        v = v * 10 + (buf[pos] - 48)
        digits += 1
        pos += 1
    if digits == 0 or digits > 18:
        return 0, pos, False
    if pos < end and (buf[pos] == 46 or buf[pos] == 101 or buf[pos] == 69):
        return 0, pos, False
    return (-v if neg else v), pos, True


@njit(cache=True, nogil=True)
def _is_null(buf, pos, end):
    return (pos + 4 <= end and buf[pos] == 110 and buf[pos + 1] == 117
            and buf[pos + 2] == 108 and buf[pos + 3] == 108)


@njit(cache=True, nogil=True)
def _scan(buf, key_bytes, key_start, key_kind, key_slot, inst, n_int, n_str):
    n_lines = 0
    for i in range(buf.size):
        if buf[i] == 10:
            n_lines += 1
    if buf.size and buf[buf.size - 1] != 10:
        n_lines += 1
    status = np.full(n_lines, 1, dtype=np.int8)
    line_start = np.zeros(n_lines + 1, dtype=np.int64)
    ints = np.full((n_lines, n_int), -9223372036854775807 - 1, dtype=np.int64)
    str_hash = np.zeros((n_lines, n_str), dtype=np.uint64)
    str_start = np.full((n_lines, n_str), -1, dtype=np.int64)
    str_end = np.full((n_lines, n_str), -1, dtype=np.int64)
    addr_row = np.full(n_lines, -1, dtype=np.int64)
    addr = np.full((n_lines, 32), -1, dtype=np.int64)
    n_addr = 0
    fnv_offset = np.uint64(14695981039346656037)
    fnv_prime = np.uint64(1099511628211)

    hints = np.full(64, -1, dtype=np.int64)
    li = 0
    pos = 0
    while li < n_lines:
        start = pos
        end = pos
        while end < buf.size and buf[end] != 10:
            end += 1
        line_start[li] = start
        pos = end + 1
        p = start
        while p < end and _is_ws(buf[p]):
            p += 1
        if p == end:
            status[li] = 2
            li += 1
            continue
        ok = buf[p] == 123  # '{'
        p += 1
        is_inst = False
        field = 0
        while ok:
            while p < end and _is_ws(buf[p]):
                p += 1
            if p < end and buf[p] == 125:  # '}' (empty object or after a value)
                p += 1
                break
            if p >= end or buf[p] != 34:
                ok = False
                break
            p += 1
            ks = p
            while p < end and buf[p] != 34 and buf[p] != 92:
                p += 1
            if p >= end or buf[p] != 34:
                ok = False
                break
            k = _match_key(buf, ks, p, key_bytes, key_start, hints[field] if field < 64 else -1)
            p += 1
            if k < 0:
                ok = False
                break
            if field < 64:
                hints[field] = k
            field += 1
            while p < end and _is_ws(buf[p]):
                p += 1
            if p >= end or buf[p] != 58:  # ':'
                ok = False
                break
            p += 1
            while p < end and _is_ws(buf[p]):
                p += 1
            kind = key_kind[k]
            slot = key_slot[k]
            if _is_null(buf, p, end) and kind != 3:
                p += 4
            elif kind == 0:
                v, p, ok = _parse_int(buf, p, end)
                ints[li, slot] = v
            elif kind == 1 or kind == 2:
                if p >= end or buf[p] != 34:
                    ok = False
                    break
                p += 1
                s = p
                h = fnv_offset
                while p < end and buf[p] != 34 and buf[p] != 92:
                    h = (h ^ np.uint64(buf[p])) * fnv_prime
                    p += 1
                if p >= end or buf[p] != 34:
                    ok = False
                    break
                if kind == 1:
                    str_hash[li, slot] = h
                    str_start[li, slot] = s
                    str_end[li, slot] = p
                else:
                    is_inst = p - s == inst.size
                    for j in range(min(p - s, inst.size)):
                        if buf[s + j] != inst[j]:
                            is_inst = False
                p += 1
            else:  # the address list
                if p >= end or buf[p] != 91 or addr_row[li] >= 0:  # '[' (once per record)
                    ok = False
                    break
                p += 1
                lane = 0
                while True:
                    while p < end and _is_ws(buf[p]):
                        p += 1
                    if p < end and buf[p] == 93 and lane == 0:  # ']' of an empty list
                        p += 1
                        break
                    if lane >= 32:
                        ok = False
                        break
                    if _is_null(buf, p, end):
                        p += 4
                    else:
                        v, p, ok = _parse_int(buf, p, end)
                        if not ok:
                            break
                        addr[n_addr, lane] = v
                    lane += 1
                    while p < end and _is_ws(buf[p]):
                        p += 1
                    if p < end and buf[p] == 44:
                        p += 1
                    elif p < end and buf[p] == 93:
                        p += 1
                        break
                    else:
                        ok = False
                        break
                if ok:
                    addr_row[li] = n_addr
                    n_addr += 1
            if not ok:
                break
            while p < end and _is_ws(buf[p]):
                p += 1
            if p < end and buf[p] == 44:  # ','
                p += 1
            elif p < end and buf[p] == 125:
                p += 1
                break
            else:
                ok = False
        while ok and p < end:
            if not _is_ws(buf[p]):
                ok = False
            p += 1
        status[li] = 0 if (ok and is_inst) else 1
        if status[li] == 1 and addr_row[li] >= 0:  # give a half-read line's row back
            addr[n_addr - 1, :] = -1
            addr_row[li] = -1
            n_addr -= 1
        li += 1
    line_start[n_lines] = buf.size
    return status, line_start, ints, str_hash, str_start, str_end, addr_row, addr[:n_addr].copy()
