"""Float atomics give the same bits on every run, however many cores, on both CPU engines.

The oracle is a sequential float32 sum in the canonical order (block, then thread, then the
thread's program order: simt/sim/atomic_log.py) computed here with numpy; the data are
chosen so that another order gives other bits (checked too, so the tests can fail).
"""
from __future__ import annotations

import numpy as np
import pytest

import simt
import simt as wp
from simt.sim import atomic_log
from simt.sim.fast import engine
from simt.sim.precise import engine as precise_engine

BLOCK = 64
N = BLOCK * 48
BINS = 4


@wp.kernel
def scatter(x: wp.array(dtype=float), out: wp.array(dtype=float), low: wp.array(dtype=float)):
    i = wp.tid()
    for k in range(2):                           # two updates per thread and bin pattern
        wp.atomic_add(out, (i + k) % 4, x[i] * float(k + 1))
    out[i % 4] -= x[i]                           # Warp's += / -= on a global array: atomic
    wp.atomic_min(low, 0, x[i])


@wp.kernel
def across_barrier(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, i % 4, x[i])
    wp.sync_threads()
    wp.atomic_add(out, i % 4, x[i] * 0.5)


@wp.kernel
def ticket(x: wp.array(dtype=float), total: wp.array(dtype=float), seen: wp.array(dtype=float)):
    i = wp.tid()
    seen[i] = wp.atomic_add(total, 0, x[i])      # the old value is used: not deferred


def _data() -> np.ndarray:
    rng = np.random.default_rng(5)
    x = rng.normal(size=N).astype(np.float32)
    x[::7] *= np.float32(3e7)                    # large and small terms: order shows in the bits
    return x


def _canonical(updates) -> np.ndarray:
    """Sequential float32 accumulation of (bin, value) updates, in the given order."""
    out = np.zeros(BINS, np.float32)
    for b, v in updates:
        out[b] = np.float32(out[b] + np.float32(v))
    return out


def _scatter_reference(x: np.ndarray) -> np.ndarray:
    updates = []
    for i in range(N):                           # blocks in order, threads in order
        updates += [((i + k) % 4, x[i] * np.float32(k + 1)) for k in range(2)]
        updates.append((i % 4, -x[i]))
    return _canonical(updates)


def _barrier_reference(x: np.ndarray) -> np.ndarray:
    updates = []
    for i in range(N):
        updates += [(i % 4, x[i]), (i % 4, x[i] * np.float32(0.5))]
    return _canonical(updates)


@pytest.fixture
def spread(monkeypatch):
    """Every launch of the fast engine spreads its blocks over ``cores`` OS threads."""
    def use(cores: int):
        monkeypatch.setattr(engine, "PARALLEL_ABOVE_S", 0.0)
        monkeypatch.setattr(engine, "ADAPTIVE_PARALLEL", False)
        monkeypatch.setattr(engine, "_WORKERS", cores)
        monkeypatch.setattr(engine, "_pool", None)
        monkeypatch.setattr(engine, "MIN_THREADS_PER_CHUNK", BLOCK)
    return use


def _launch(kernel, arrays, device):
    arrays = [simt.array(a.copy()) for a in arrays]
    simt.launch(kernel, dim=N, inputs=arrays, device=device, block_dim=BLOCK)
    return [a.numpy() for a in arrays]


def test_data_is_order_sensitive():
    x = _data()
    forward = _scatter_reference(x)
    backward = _canonical([(b, v) for b, v in reversed(
        [((i + k) % 4, x[i] * np.float32(k + 1)) for i in range(N) for k in range(2)]
        + [(i % 4, -x[i]) for i in range(N)])])
    assert not np.array_equal(forward, backward)


@pytest.mark.parametrize("kernel, reference", [(scatter, _scatter_reference),
                                               (across_barrier, _barrier_reference)],
                         ids=["plain", "barrier"])
def test_deferred_float_atomics_are_canonical_everywhere(kernel, reference, spread,
                                                         monkeypatch):
    x = _data()
    inputs = [x, np.zeros(BINS, np.float32)] + ([np.full(1, np.inf, np.float32)]
                                                 if kernel is scatter else [])
    want = reference(x)
    precise = _launch(kernel, inputs, "cpu:precise")
    np.testing.assert_array_equal(precise[1].view(np.int32), want.view(np.int32))
    monkeypatch.setattr(precise_engine, "MAX_BATCH_LANES", 4 * BLOCK)   # many small batches
    batched = _launch(kernel, inputs, "cpu:precise")
    np.testing.assert_array_equal(batched[1].view(np.int32), want.view(np.int32))
    for cores in (1, 2, 5):
        spread(cores)
        for _ in range(2):
            fast = _launch(kernel, inputs, "cpu")
            for mine, theirs in zip(fast, precise):
                np.testing.assert_array_equal(mine.view(np.int32), theirs.view(np.int32))
    if kernel is scatter:
        assert precise[2][0] == x.min()


def test_used_old_values_run_on_one_thread_and_repeat(spread):
    spread(4)
    x = _data()
    inputs = [x, np.zeros(1, np.float32), np.zeros(N, np.float32)]
    runs = [_launch(ticket, inputs, "cpu") for _ in range(3)]
    precise = _launch(ticket, inputs, "cpu:precise")
    for run in runs:                # one update per thread, straight-line: the orders agree
        for mine, theirs in zip(run, precise):
            np.testing.assert_array_equal(mine.view(np.int32), theirs.view(np.int32))
    assert not engine.compile_function(ticket.compile(_sig())).gen.parallel_safe


def _sig():
    from simt.ir.mir import LaunchSig
    return LaunchSig(1, 1)


def test_plan_defers_only_fire_and_forget_float_atomics():
    assert atomic_log.plan(scatter.compile(_sig())).arrays == {"out": "add", "low": "min"}
    assert atomic_log.parallel_safe(scatter.compile(_sig()))
    assert atomic_log.plan(ticket.compile(_sig())).arrays == {}
    assert not atomic_log.parallel_safe(ticket.compile(_sig()))
    assert atomic_log.parallel_safe(bit_flags.compile(_sig()))          # order-free integer ops
    assert not atomic_log.parallel_safe(bit_tickets.compile(_sig()))    # an old value used
    assert not atomic_log.parallel_safe(mixed_bits.compile(_sig()))     # add then or: order shows


@wp.kernel
def bit_flags(x: wp.array(dtype=float), ors: wp.array(dtype=wp.int32),
              xors: wp.array(dtype=wp.int32), counts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_or(ors, 0, 1 << (i % 31))
    wp.atomic_xor(xors, i % 2, i)
    wp.atomic_add(counts, 0, 1)
    wp.atomic_sub(counts, 1, 1)


@wp.kernel
def bit_tickets(flags: wp.array(dtype=wp.int32), seen: wp.array(dtype=wp.int32)):
    i = wp.tid()
    seen[i] = wp.atomic_or(flags, 0, 1 << (i % 31))


@wp.kernel
def mixed_bits(flags: wp.array(dtype=wp.int32)):
    wp.atomic_add(flags, 0, 1)
    wp.atomic_or(flags, 0, 2)


def test_order_free_integer_atomics_run_in_parallel(spread):
    spread(4)
    inputs = [_data(), np.zeros(1, np.int32), np.zeros(2, np.int32), np.zeros(2, np.int32)]
    for device in ("cpu", "cpu:precise"):
        _, ors, xors, counts = _launch(bit_flags, inputs, device)
        assert ors.tolist() == [(1 << 31) - 1]
        assert xors.tolist() == [int(np.bitwise_xor.reduce(np.arange(0, N, 2))),
                                 int(np.bitwise_xor.reduce(np.arange(1, N, 2)))]
        assert counts.tolist() == [N, -N]


@wp.kernel
def one_bin(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    wp.atomic_add(out, 0, x[wp.tid()])


@wp.kernel
def own_bin(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, i, x[i])


def test_deferred_atomics_are_seen_by_initcheck():
    """The update is deferred, the access is not: an atomic on memory nobody wrote reads it."""
    assert atomic_log.plan(one_bin.compile(_sig())).arrays == {"out": "add"}
    x = simt.array(np.ones(256, np.float32))
    bad = simt.launch(one_bin, dim=256, inputs=[x, simt.empty(1, dtype=float)],
                      device="cpu:precise", check="init").hazards
    assert list(bad.array) == ["out"]
    out = simt.zeros(1, dtype=float)
    ok = simt.launch(one_bin, dim=256, inputs=[x, out], device="cpu:precise", check="all")
    assert ok.hazards.empty and out.numpy()[0] == 256.0


def test_deferred_atomics_cost_their_time_at_their_step():
    """The timing model still sees every deferred atomic: one address serialises them."""
    n = 1 << 14
    x = simt.array(np.ones(n, np.float32))
    hot = simt.launch(one_bin, dim=n, inputs=[x, simt.zeros(1, dtype=float)], device="cpu:precise")
    cold = simt.launch(own_bin, dim=n, inputs=[x, simt.zeros(n, dtype=float)], device="cpu:precise")
    assert hot.details["bottleneck"]["limiter"] == "atomics"
    assert hot.cycles > 3 * cold.cycles
