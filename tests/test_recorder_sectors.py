"""The timing recorder's sector lists against a plain-Python reading of the same lane addresses."""
import numpy as np
import pytest

from simt.sim.timing.recorder import _sectors


def reference(row, store: bool, span: int):
    """Distinct 32-byte sectors in the order lanes first touch them (by each lane's first
    byte); for stores, per sector the bit set of its 4-byte words the lanes write."""
    order = []
    for a in row:
        if a != -1 and (a >> 5) not in order:
            order.append(a >> 5)
    if not store:
        return order, [1] * len(order)
    words = {s: 0 for s in order}
    for a in row:
        if a == -1:
            continue
        for b in range(a, a + max(span, 4), 4):
            if (b >> 5) in words:
                words[b >> 5] |= 1 << ((b >> 2) & 7)
    return order, [words[s] for s in order]


@pytest.mark.parametrize("pattern", ["unit", "stride", "reverse", "random", "few"])
@pytest.mark.parametrize("span", [4, 8, 16])
def test_sectors_and_store_words_match_a_plain_reading(pattern, span):
    rng = np.random.default_rng(hash((pattern, span)) % 2**32)
    for _ in range(40):
        lanes = np.arange(32)
        base = int(rng.integers(0, 64)) * span
        a = {"unit": base + lanes * span, "stride": base + lanes * span * int(rng.integers(2, 40)),
             "reverse": base + (31 - lanes) * span * int(rng.integers(1, 9)),
             "random": rng.integers(0, 2048, 32) * span, "few": rng.integers(0, 6, 32) * span}[pattern]
        row = np.asarray(a, np.int64)
        row[rng.random(32) < 0.3] = -1
        for store in (False, True):
            sec = np.zeros(40, np.int64)
            w = np.zeros(40, np.int16)
            counts = np.zeros(1, np.int64)
            end = _sectors(row[None, :], sec, w, 3, counts, 2 if store else 0, span)
            want, want_w = reference(row.tolist(), store, span)
            assert sec[3:end].tolist() == want and counts[0] == len(want)
            assert w[3:end].tolist() == want_w
