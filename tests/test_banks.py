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


def test_uniform_quarters_marks_the_loads_a_vector_lds_serves_in_two_wavefronts():
    """The timing model charges a 16-byte vector LDS two wavefronts where the recorder marks
    its scalar copy's lanes as reading one word per quarter-warp (isa.VEC_LEAD16). The bank
    rule (banks.py, the H200's table) agrees on the patterns that mark: a broadcast, and a
    16x16 block's row ``qs[ty, d]`` of a 64-word tile; lanes on distinct words are not marked."""
    from simt.sim.precise.memstats import uniform_quarters
    from simt.sim.timing import isa
    lane = np.arange(32)
    active = np.ones(32, bool)
    cases = {"broadcast": np.full(32, 4 * 12), "two rows": (lane // 16) * 256 + 4 * 8,
             "a row a lane": lane * 4 * 65 + 4 * 8, "consecutive": lane * 4}
    for name, addr in cases.items():
        out = np.empty(1, np.int64)
        uniform_quarters(addr[None, :].astype(np.int64), out)
        marked = out[0] == isa.UNIFORM_QUARTERS
        assert marked == (name in ("broadcast", "two rows")), name
        if marked:
            assert shared_wavefronts(addr, active, 16)[0] == 2, name
