"""Bank-conflict and sector counting against the measured H200 table in the reference."""
import numpy as np
import pytest

from simt.sim.precise.banks import global_sectors, shared_wavefronts

LANES = np.arange(32)
ALL = np.ones(32, dtype=bool)


@pytest.mark.parametrize("width,stride,wavefronts,conflicts", [
    (4, 1, 1, 0), (4, 3, 1, 0), (4, 33, 1, 0), (4, 2, 2, 1), (4, 4, 4, 3), (4, 8, 8, 7),
    (4, 16, 16, 15), (4, 32, 32, 31),
    (8, 1, 2, 0), (8, 2, 4, 2), (8, 16, 32, 30),
    (16, 1, 4, 0), (16, 2, 8, 4), (16, 8, 32, 28),
])
def test_measured_h200_shared_loads(width, stride, wavefronts, conflicts):
    w, ideal = shared_wavefronts(LANES * stride * width, ALL, width)
    assert (w, w - ideal) == (wavefronts, conflicts)


def test_broadcast_and_pair_rule():
    assert shared_wavefronts(np.zeros(32), ALL, 4) == (1, 1)
    w, _ = shared_wavefronts(np.zeros(32), ALL, 16)
    assert w == 2  # 128-bit, every lane one address: pairs share slots -> 2 phases
    w, _ = shared_wavefronts(np.zeros(32), ALL, 8)
    assert w == 1


def test_partial_warp():
    active = LANES < 8
    assert shared_wavefronts(LANES * 4, active, 4) == (1, 1)
    assert shared_wavefronts(LANES * 16, active, 16) == (1, 1)


@pytest.mark.parametrize("addr,width,sectors", [
    (LANES * 4, 4, 4), (LANES * 8, 4, 8), (LANES * 32, 4, 32), (LANES * 4 + 4, 4, 5),
    (np.zeros(32), 4, 1), (LANES * 8, 8, 8), (LANES * 16, 16, 16),
])
def test_measured_h200_global_sectors(addr, width, sectors):
    assert global_sectors(addr, ALL, width) == sectors


def test_compiled_costs_agree_with_the_per_warp_model():
    from simt.sim.precise.memstats import INACTIVE, global_costs, shared_costs
    rng = np.random.default_rng(2)
    for width in (4, 8, 16):
        m = np.where(rng.random((300, 32)) > 0.3, rng.integers(0, 300, (300, 32)) * width, INACTIVE)
        m[:50] = np.where(m[:50] == INACTIVE, INACTIVE, LANES * width * 2)
        m[50:80] = np.repeat(rng.integers(0, 64, (30, 16)), 2, axis=1) * width
        for k in range(80, 120):       # a permutation of 32 consecutive elements, some lanes off
            m[k] = (rng.integers(0, 8) * 32 + rng.permutation(32)) * width
            m[k, rng.random(32) < (k - 80) / 40] = INACTIVE
        waves, ideal = np.empty(300, np.int64), np.empty(300, np.int64)
        shared_costs(m, width, waves, ideal)
        seen, batch = np.zeros(4096, bool), np.zeros(4096, bool)
        sectors, level, fresh = (np.empty(300, np.int64) for _ in range(3))
        global_costs(m, 0, seen, batch, sectors, level, fresh)
        for k, row in enumerate(m):
            act = row != INACTIVE
            assert (waves[k], ideal[k]) == shared_wavefronts(row, act, width)
            assert sectors[k] == global_sectors(row, act, width)


def test_same_address_lanes_against_a_count():
    """An atomic's serialisation per warp: the most active lanes on one address."""
    from simt.sim.precise.memstats import same_address_lanes
    rng = np.random.default_rng(5)
    for hi in (1, 3, 16, 1000):
        rows = rng.integers(0, hi, (50, 32)).astype(np.int64) * 4
        rows[rng.random(rows.shape) < 0.3] = -1
        rows[0] = -1                                   # a warp with no lane active
        out = np.empty(50, np.int64)
        same_address_lanes(rows, out)
        want = [max([list(r).count(a) for a in r if a != -1], default=0) for r in rows.tolist()]
        assert out.tolist() == want


def test_vector_marks_charge_a_vector_lds_what_the_bank_rule_does():
    """A shared load ptxas merges into a 16-byte LDS (four iterations of ``vs[j]``, or four
    copies of ``tile[tx, k]``): the part whose lanes sit at offset 0 of their 16-byte slots
    carries the vector, its wavefronts by the bank rule for 16-byte accesses (banks.py, the
    H200's table); later parts are VEC_REST; lanes at different offsets are no vector (0)."""
    from simt.sim.precise.memstats import vector_marks
    from simt.sim.timing import isa
    lane = np.arange(32)
    active = np.ones(32, bool)
    cases = {"broadcast": (np.full(32, 4 * 12), 2), "two rows": ((lane // 16) * 256 + 4 * 8, 2),
             "a column of a 32-word tile": (lane * 128, 32), "consecutive slots": (lane * 16, 4)}
    for name, (addr, waves) in cases.items():
        assert shared_wavefronts(addr, active, 16)[0] == waves, name
        out = np.empty(2, np.int64)
        vector_marks(np.stack([addr, addr + 4]).astype(np.int64), 16, out)
        assert out[0] == waves, name                    # the vector, as the bank rule charges it
        assert out[1] == isa.VEC_REST, name             # the next part: loaded already
    out = np.empty(1, np.int64)
    vector_marks((lane * 4 * 97)[None, :].astype(np.int64), 16, out)   # ks[t * 97 + j]
    assert out[0] == 0


@pytest.mark.parametrize("vec", [8, 16])
def test_a_vector_lines_events_agree_with_the_per_warp_model_row_by_row(vec):
    """The recorder's path for a load on a vector line (memstats.shared_events with ``vec``)
    takes a row that is the one before it moved by a multiple of ``vec`` bytes at the
    other's costs and mark; rows moved by other amounts (4 bytes: a later part of the
    vector) must not be. Every row against banks.py and the offset rule."""
    from simt.sim.precise.memstats import INACTIVE, shared_events
    from simt.sim.timing import isa
    rng = np.random.default_rng(7)
    lane = np.arange(32)
    rows = []
    for _ in range(60):
        base = rng.choice([np.full(32, 48), (lane // 16) * 256, lane * 16, lane * 128, lane * 4,
                           rng.integers(0, 256, 32) * 4])
        for step in rng.choice([4, 8, 16, 64, 12], size=4):      # runs of moved copies
            row = (base + step * np.arange(1, 5)[:, None]).astype(np.int64)
            rows.extend(row)
    m = np.array(rows)
    m[rng.random(m.shape) < 0.05] = INACTIVE
    m = m[(m != INACTIVE).any(axis=1)]
    sel = np.flatnonzero(m.reshape(-1) != INACTIVE)
    idx = m.reshape(-1)[sel] // 4
    waves, same = np.empty(len(m), np.int32), np.empty(len(m), np.int32)
    n_waves, _ = shared_events(sel, idx, 0, 4, 4, len(m), False, vec, waves, same)
    for k, row in enumerate(m):
        act = row != INACTIVE
        assert waves[k] == shared_wavefronts(row, act, 4)[0], k
        offsets = set((row[act] % vec).tolist())
        want = (max(1, shared_wavefronts(row, act, vec)[0]) if offsets == {0} else
                isa.VEC_REST if len(offsets) == 1 else 0)
        assert same[k] == want, (k, row[:4])
    assert n_waves == waves.sum()
