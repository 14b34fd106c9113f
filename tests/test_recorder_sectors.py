"""The timing recorder's sector lists against a plain-Python reading of the same lane addresses."""
import numpy as np
import pytest

from simt.sim.timing.recorder import _bank_ways, _sectors


def bank_wavefronts(row, span: int = 4) -> int:
    """The L1 data stage's wavefronts of a load: the most distinct 4-byte words any of the 32
    banks holds, by brute force; an 8- or 16-byte load at least its 128-byte phases (half- or
    quarter-warps) with an active lane."""
    words = {w for a in row if a >= 0 for w in range(a // 4, (a + max(span, 4) - 1) // 4 + 1)}
    per_bank = [0] * 32
    for w in words:
        per_bank[w % 32] += 1
    phases = len({lane // (128 // span) for lane, a in enumerate(row) if a >= 0}) if span in (8, 16) else 1
    return max(max(per_bank), phases)


def reference(row, store: bool, span: int):
    """Distinct 32-byte sectors in the order lanes first touch them (by each lane's first
    byte); for stores, per sector the bit set of its 4-byte words the lanes write; for loads,
    the row's bank wavefronts in its first sector and 1 in the others."""
    order = []
    for a in row:
        if a != -1 and (a >> 5) not in order:
            order.append(a >> 5)
    if not store:
        return order, [bank_wavefronts(row, span)] + [1] * (len(order) - 1) if order else []
    words = {s: 0 for s in order}
    for a in row:
        if a == -1:
            continue
        for b in range(a, a + max(span, 4), 4):
            if (b >> 5) in words:
                words[b >> 5] |= 1 << ((b >> 2) & 7)
    return order, [words[s] for s in order]


@pytest.mark.parametrize("pattern", ["unit", "whole", "stride", "reverse", "random", "few"])
@pytest.mark.parametrize("span", [4, 8, 16])
def test_sectors_and_store_words_match_a_plain_reading(pattern, span):
    """("whole": every lane active on consecutive elements, from any element: the common
    case the recorder writes out at once.)"""
    rng = np.random.default_rng(hash((pattern, span)) % 2**32)
    for _ in range(40):
        lanes = np.arange(32)
        base = int(rng.integers(0, 64)) * span
        a = {"unit": base + lanes * span, "whole": base + lanes * span,
             "stride": base + lanes * span * int(rng.integers(2, 40)),
             "reverse": base + (31 - lanes) * span * int(rng.integers(1, 9)),
             "random": rng.integers(0, 2048, 32) * span, "few": rng.integers(0, 6, 32) * span}[pattern]
        row = np.asarray(a, np.int64)
        if pattern != "whole":
            row[rng.random(32) < 0.3] = -1
        for store in (False, True):
            sec = np.zeros(40, np.int64)
            w = np.zeros(40, np.int16)
            counts = np.zeros(1, np.int64)
            end = _sectors(row[None, :], sec, w, 3, counts, 2 if store else 0, span)
            want, want_w = reference(row.tolist(), store, span)
            assert sec[3:end].tolist() == want and counts[0] == len(want)
            assert w[3:end].tolist() == want_w


def bank_ways(rows, span, banks):
    active = rows[0][rows[0] >= 0]
    return _bank_ways(rows, 0, span, banks, int(active.min()), int(active.max()), True)


@pytest.mark.parametrize("stride,span", [(4, 4), (32, 4), (36, 4), (72, 4), (128, 4), (8, 8), (16, 16), (0, 4), (4, 16)])
def test_bank_ways_against_a_brute_force_count(stride, span):
    rows = (4096 + np.arange(32) * stride).reshape(1, 32).astype(np.int64)
    rows[0, 5] = -1                              # an inactive lane
    assert bank_ways(rows, span, np.empty((32, 130), np.int64)) == bank_wavefronts(rows[0].tolist(), span)


def test_bank_ways_random_rows():
    rng = np.random.default_rng(3)
    banks = np.empty((32, 130), np.int64)
    for _ in range(200):
        rows = (rng.integers(0, 1 << 14, (1, 32)) * 4).astype(np.int64)
        rows[rng.random((1, 32)) < 0.2] = -1
        assert bank_ways(rows, 4, banks) == bank_wavefronts(rows[0].tolist())


def test_atomic_sectors_carry_the_lanes_on_a_word_and_the_words_touched():
    """Atomics: per sector the most lanes on one word (low 6 bits) and which of its 8 words
    the lanes touch (the bits above)."""
    row = np.full((1, 32), -1, np.int64)
    row[0, :12] = 4096                           # word 0 of sector 128, 12 lanes
    row[0, 12:20] = 4096 + 12                    # word 3, 8 lanes
    row[0, 20] = 4096 + 64                       # sector 130, word 0, one lane
    sec, w, counts = np.zeros(8, np.int64), np.zeros(8, np.int16), np.zeros(1, np.int64)
    end = _sectors(row, sec, w, 0, counts, 1, 4)
    assert sec[:end].tolist() == [128, 130]
    assert [int(x) & 63 for x in w[:end]] == [12, 1]
    assert [int(x) >> 6 for x in w[:end]] == [0b1001, 0b1]


@pytest.mark.parametrize("pattern", ["unit", "whole", "random", "few", "one"])
def test_atomic_sectors_match_a_plain_reading(pattern):
    """Per sector of an atomic: the most lanes on any one of its words, and its words touched,
    against a count over all lanes; rows of several warps at once."""
    rng = np.random.default_rng(len(pattern))
    lanes = np.arange(32)
    rows = np.stack([np.asarray({"unit": 4 * lanes, "whole": 4 * lanes + 4 * int(rng.integers(0, 8)),
                                 "random": rng.integers(0, 512, 32) * 4,
                                 "few": rng.integers(0, 12, 32) * 4, "one": np.full(32, 8)}[pattern],
                                np.int64) + 256 * int(rng.integers(0, 8)) for _ in range(30)])
    if pattern != "whole":
        rows[rng.random(rows.shape) < 0.25] = -1
    sec, w = np.zeros(40 * 30, np.int64), np.zeros(40 * 30, np.int16)
    counts = np.zeros(30, np.int64)
    end = _sectors(rows, sec, w, 0, counts, 1, 4)
    assert end == counts.sum()
    pos = 0
    for row in rows.tolist():
        order, _ = reference(row, False, 4)
        for s in order:
            mine = [a for a in row if a != -1 and a >> 5 == s]
            most = max(sum(1 for b in row if b != -1 and b >> 2 == a >> 2) for a in mine)
            touched = sum({1 << ((a >> 2) & 7) for a in mine})
            assert (sec[pos], int(w[pos]) & 63, int(w[pos]) >> 6) == (s, most, touched)
            pos += 1
