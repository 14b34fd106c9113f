"""Divergence, reconvergence and the execution model, checked through results and metrics.

Each kernel is small and launched with one or a few warps; expected values are computed
per thread in plain Python.
"""
from __future__ import annotations

import numpy as np
import pytest

import simt
import simt as wp

DEVICE = "cpu:precise"

INST = "smsp__inst_executed.sum"
THREAD_INST = "smsp__thread_inst_executed.sum"
BRANCH_UNIFORM_PCT = "smsp__sass_average_branch_targets_threads_uniform.pct"
BRANCH_DIVERGENT = "smsp__sass_branch_targets_threads_divergent.sum"


def run(kernel, dim, *args, block_dim=None):
    """Launch with numpy arrays (copied into simt arrays); returns (numpy outputs, result)."""
    arrays = [simt.array(a) if isinstance(a, np.ndarray) else a for a in args]
    kwargs = {} if block_dim is None else {"block_dim": block_dim}
    result = simt.launch(kernel, dim=dim, inputs=arrays, device=DEVICE, **kwargs)
    return [a.numpy() for a in arrays if isinstance(a, simt.array)], result


def zeros(n, dtype=np.int32):
    return np.zeros(n, dtype)


# ---- branches ------------------------------------------------------------------------

@wp.kernel
def half_warp_if_else(out: wp.array(dtype=int)):
    i = wp.tid()
    if wp.lane_id() < 16:
        out[i] = i * 2
    else:
        out[i] = -i


@wp.kernel
def parity_if_else(out: wp.array(dtype=int)):
    i = wp.tid()
    if i % 2 == 0:
        out[i] = i + 100
    else:
        out[i] = i - 100


@wp.kernel
def uniform_if_else(flag: int, out: wp.array(dtype=int)):
    i = wp.tid()
    if flag > 0:
        out[i] = i + 1
    else:
        out[i] = i - 1


def test_half_warp_if_else_results():
    (out,), _ = run(half_warp_if_else, 64, zeros(64), block_dim=64)
    i = np.arange(64)
    np.testing.assert_array_equal(out, np.where(i % 32 < 16, i * 2, -i))


def test_uniform_branch_is_fully_efficient():
    (out,), result = run(uniform_if_else, 64, 1, zeros(64), block_dim=64)
    np.testing.assert_array_equal(out, np.arange(64) + 1)
    m = result.metrics
    assert m[BRANCH_UNIFORM_PCT] == 100
    assert m[BRANCH_DIVERGENT] == 0
    assert m[THREAD_INST] == 32 * m[INST]          # every instruction ran on all 32 lanes


def test_divergent_branch_lowers_efficiency():
    (out,), result = run(parity_if_else, 64, zeros(64), block_dim=64)
    i = np.arange(64)
    np.testing.assert_array_equal(out, np.where(i % 2 == 0, i + 100, i - 100))
    m = result.metrics
    assert m[BRANCH_UNIFORM_PCT] < 100
    assert m[BRANCH_DIVERGENT] > 0
    assert m[THREAD_INST] < 32 * m[INST]


def test_divergence_costs_instructions():
    """Both sides of a divergent branch issue: more warp instructions than a uniform one."""
    _, uniform = run(uniform_if_else, 64, 1, zeros(64), block_dim=64)
    _, divergent = run(parity_if_else, 64, zeros(64), block_dim=64)
    assert divergent.metrics[INST] > uniform.metrics[INST]


@wp.kernel
def ternary(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    out[i] = v * 3 if v > 0 else -v - 7


def test_ternary():
    x = np.arange(-32, 32, dtype=np.int32)
    (_, out), _ = run(ternary, 64, x, zeros(64))
    np.testing.assert_array_equal(out, np.where(x > 0, x * 3, -x - 7))


@wp.kernel
def early_exit(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    if x[i] < 0:
        return
    out[i] = x[i] * 10
    if x[i] > 20:
        return
    out[i] = out[i] + 1


def test_early_return():
    rng = np.random.default_rng(0)
    x = rng.integers(-30, 30, 96).astype(np.int32)
    out0 = np.full(96, -5, np.int32)
    (_, out), _ = run(early_exit, 96, x, out0, block_dim=32)
    want = np.where(x < 0, -5, np.where(x > 20, x * 10, x * 10 + 1))
    np.testing.assert_array_equal(out, want)


# ---- loops ---------------------------------------------------------------------------

@wp.kernel
def per_lane_trip_count(counts: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    total = int(0)
    for k in range(counts[i]):
        total = total + k * k + i
    out[i] = total


def test_loop_with_per_lane_trip_counts():
    counts = (np.arange(64) * 7 % 13).astype(np.int32)
    (_, out), result = run(per_lane_trip_count, 64, counts, zeros(64))
    want = [sum(k * k + i for k in range(c)) for i, c in enumerate(counts)]
    np.testing.assert_array_equal(out, want)
    assert result.metrics[BRANCH_DIVERGENT] > 0


@wp.kernel
def break_continue(limits: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    acc = int(0)
    for k in range(100):
        if k % 3 == 0:
            continue
        if acc > limits[i]:
            break
        acc = acc + k
    out[i] = acc


def _break_continue(limit):
    acc = 0
    for k in range(100):
        if k % 3 == 0:
            continue
        if acc > limit:
            break
        acc += k
    return acc


def test_break_and_continue():
    limits = (np.arange(64) * 37 % 200).astype(np.int32)
    (_, out), _ = run(break_continue, 64, limits, zeros(64))
    np.testing.assert_array_equal(out, [_break_continue(int(v)) for v in limits])


@wp.kernel
def nested_loops(out: wp.array(dtype=int)):
    i = wp.tid()
    acc = int(0)
    for a in range(i % 5):
        for b in range(a + 1):
            if (a + b) % 4 == 3:
                continue
            acc = acc + a * 10 + b
    out[i] = acc


def test_nested_loops():
    (out,), _ = run(nested_loops, 64, zeros(64))
    want = [sum(a * 10 + b for a in range(i % 5) for b in range(a + 1) if (a + b) % 4 != 3)
            for i in range(64)]
    np.testing.assert_array_equal(out, want)


@wp.kernel
def collatz_steps(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    steps = int(0)
    while v != 1:
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        steps = steps + 1
    out[i] = steps


def _collatz(v):
    steps = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        steps += 1
    return steps


def test_while_loop():
    x = np.arange(1, 65, dtype=np.int32)
    (_, out), _ = run(collatz_steps, 64, x, zeros(64))
    np.testing.assert_array_equal(out, [_collatz(int(v)) for v in x])


@wp.kernel
def negative_step(n: wp.array(dtype=int), out: wp.array(dtype=int), last: wp.array(dtype=int)):
    i = wp.tid()
    acc = int(0)
    for k in range(10, -1, -3):          # 10, 7, 4, 1
        acc = acc * 2 + k
    for k in range(n[i], 0, -1):         # n .. 1, dynamic bounds
        acc = acc + k * i
    last_k = int(-1)
    for k in range(n[i], n[i] - 7, -2):
        last_k = k
    out[i] = acc
    last[i] = last_k


def test_for_with_negative_step():
    n = (np.arange(64) % 6).astype(np.int32)
    (_, out, last), _ = run(negative_step, 64, n, zeros(64), zeros(64))
    want, want_last = [], []
    for i, ni in enumerate(n):
        acc = 0
        for k in range(10, -1, -3):
            acc = acc * 2 + k
        for k in range(int(ni), 0, -1):
            acc += k * i
        want.append(acc)
        want_last.append(list(range(int(ni), int(ni) - 7, -2))[-1])
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(last, want_last)


# ---- short circuit -------------------------------------------------------------------

@wp.kernel
def guarded_and(x: wp.array(dtype=int), n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    if i < n and x[i] > 0:
        out[i] = 1
    if i >= n or x[i] <= 0:
        out[i] = out[i] + 10


@pytest.fixture
def debug_mode():
    saved = simt.get_module_options()
    simt.set_module_options({"debug": True})
    yield
    simt.set_module_options(saved)


def test_short_circuit_and_or_skip_out_of_bounds_loads(debug_mode):
    x = np.array([5, -1, 0, 3] * 10, np.int32)          # 40 elements, 64 threads
    (_, out), _ = run(guarded_and, 64, x, 40, zeros(64))
    xi = np.concatenate([x, np.zeros(24, np.int32)])
    i = np.arange(64)
    want = np.where((i < 40) & (xi > 0), 1, 0) + np.where((i >= 40) | (xi <= 0), 10, 0)
    np.testing.assert_array_equal(out, want)


# ---- warp intrinsics -----------------------------------------------------------------

@wp.kernel
def ballots(full: wp.array(dtype=wp.uint32), partial: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    lane = wp.lane_id()
    full[i] = wp.ballot_sync(0xFFFFFFFF, lane % 2 == 1)
    if lane < 16:
        partial[i] = wp.ballot_sync(0x0000FFFF, lane % 4 == 0)


def test_ballot_of_lane_parity_and_partial_mask():
    (full, partial), _ = run(ballots, 64, zeros(64, np.uint32), zeros(64, np.uint32))
    assert (full == 0xAAAAAAAA).all()
    lane = np.arange(64) % 32
    np.testing.assert_array_equal(partial, np.where(lane < 16, 0x1111, 0))


@wp.kernel
def shuffles(x: wp.array(dtype=int), butterfly: wp.array(dtype=int), scan: wp.array(dtype=int),
             broadcast: wp.array(dtype=int), half_swap: wp.array(dtype=int)):
    i = wp.tid()
    lane = wp.lane_id()
    v = x[i]
    total = v
    mask = int(16)
    while mask > 0:
        total = total + wp.shfl_xor_sync(0xFFFFFFFF, total, mask)
        mask = mask // 2
    butterfly[i] = total
    prefix = v
    delta = int(1)
    while delta < 32:
        up = wp.shfl_up_sync(0xFFFFFFFF, prefix, delta)
        if lane >= delta:
            prefix = prefix + up
        delta = delta * 2
    scan[i] = prefix
    broadcast[i] = wp.shfl_sync(0xFFFFFFFF, v, 5)
    if lane < 16:
        half_swap[i] = wp.shfl_xor_sync(0x0000FFFF, v, 1)


def test_shuffles():
    x = (np.arange(64) * 5 % 17).astype(np.int32)
    (_, bfly, scan, bcast, swap), _ = run(shuffles, 64, x, zeros(64), zeros(64), zeros(64),
                                          zeros(64))
    w = x.reshape(2, 32)
    np.testing.assert_array_equal(bfly, np.repeat(w.sum(1), 32))
    np.testing.assert_array_equal(scan, np.cumsum(w, axis=1).reshape(-1))
    np.testing.assert_array_equal(bcast, np.repeat(w[:, 5], 32))
    lane = np.arange(64) % 32
    np.testing.assert_array_equal(swap, np.where(lane < 16, x[np.arange(64) ^ 1], 0))


@wp.kernel
def votes(x: wp.array(dtype=int), any_out: wp.array(dtype=int), all_out: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    any_out[i] = 1 if wp.any_sync(0xFFFFFFFF, v > 100) else 0
    all_out[i] = 1 if wp.all_sync(0xFFFFFFFF, v > 0) else 0


def test_any_all():
    x = np.ones(96, np.int32)
    x[40] = 500          # warp 1 has one lane > 100
    x[70] = 0            # warp 2 has one lane not > 0
    (_, any_out, all_out), _ = run(votes, 96, x, zeros(96), zeros(96))
    np.testing.assert_array_equal(any_out, np.repeat([0, 1, 0], 32))
    np.testing.assert_array_equal(all_out, np.repeat([1, 1, 0], 32))


@wp.kernel
def ids_1d(lanes: wp.array(dtype=int), warps: wp.array(dtype=int), threads: wp.array(dtype=int),
           blocks: wp.array(dtype=int), sizes: wp.array(dtype=int)):
    i = wp.tid()
    lanes[i] = wp.lane_id()
    warps[i] = wp.warp_id()
    threads[i] = wp.thread_idx()
    blocks[i] = wp.block_idx()
    sizes[i] = wp.block_dim()


def test_lane_warp_thread_block_ids_1d():
    n = 192
    outs, _ = run(ids_1d, n, *[zeros(n) for _ in range(5)], block_dim=96)
    i = np.arange(n)
    lanes, warps, threads, blocks, sizes = outs
    np.testing.assert_array_equal(threads, i % 96)
    np.testing.assert_array_equal(blocks, i // 96)
    np.testing.assert_array_equal(lanes, (i % 96) % 32)
    np.testing.assert_array_equal(warps, (i % 96) // 32)
    assert (sizes == 96).all()


@wp.kernel
def ids_2d(global_ij: wp.array2d(dtype=int), thread_yx: wp.array2d(dtype=int),
           block_yx: wp.array2d(dtype=int), lanes: wp.array2d(dtype=int)):
    i, j = wp.tid()
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    global_ij[i, j] = i * 1000 + j
    thread_yx[i, j] = ty * 1000 + tx
    block_yx[i, j] = by * 1000 + bx
    lanes[i, j] = wp.lane_id() + 100 * wp.warp_id()


def test_2d_index_conventions():
    """dim=(H, W), block_dim=(BH, BW): the last index is CUDA's x and varies fastest."""
    h, w, bh, bw = 8, 64, 4, 16
    outs, _ = run(ids_2d, (h, w), *[zeros((h, w)) for _ in range(4)], block_dim=(bh, bw))
    gij, tyx, byx, lanes = outs
    i, j = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    np.testing.assert_array_equal(gij, i * 1000 + j)
    np.testing.assert_array_equal(tyx, (i % bh) * 1000 + j % bw)
    np.testing.assert_array_equal(byx, (i // bh) * 1000 + j // bw)
    linear = (i % bh) * bw + j % bw        # threadIdx.x fastest within the block
    np.testing.assert_array_equal(lanes, linear % 32 + 100 * (linear // 32))


# ---- shared memory and barriers ------------------------------------------------------

@wp.kernel
def shared_reverse(out: wp.array(dtype=int)):
    buf = wp.shared.array(shape=(128,), dtype=int)
    t = wp.thread_idx()
    b = wp.block_idx()
    buf[t] = b * 1000 + t
    wp.sync_threads()
    out[wp.tid()] = buf[127 - t]


def test_shared_memory_is_per_block_and_barrier_publishes_writes():
    (out,), _ = run(shared_reverse, 512, zeros(512), block_dim=128)
    i = np.arange(512)
    np.testing.assert_array_equal(out, (i // 128) * 1000 + 127 - i % 128)


@wp.kernel
def barrier_rounds(out: wp.array(dtype=int)):
    """Ping-pong between two shared buffers; every round reads another warp's writes."""
    a = wp.shared.array(shape=(64,), dtype=int)
    b = wp.shared.array(shape=(64,), dtype=int)
    t = wp.thread_idx()
    a[t] = t
    wp.sync_threads()
    for r in range(4):
        b[t] = a[(t + 33) % 64] + 1
        wp.sync_threads()
        a[t] = b[(t + 7) % 64] * 2
        wp.sync_threads()
    out[wp.tid()] = a[t]


def test_barriers_in_a_loop():
    (out,), _ = run(barrier_rounds, 128, zeros(128), block_dim=64)
    a = np.arange(64)
    t = np.arange(64)
    for _ in range(4):
        b = a[(t + 33) % 64] + 1
        a = b[(t + 7) % 64] * 2
    np.testing.assert_array_equal(out, np.tile(a, 2))


@wp.kernel
def wait_for_neighbours(out: wp.array(dtype=int)):
    flags = wp.shared.array(shape=(128,), dtype=int)
    t = wp.thread_idx()
    flags[t] = 0
    wp.sync_threads()
    flags[t] = t + 1
    wp.block_until(flags[127 - t] != 0)
    out[wp.tid()] = flags[127 - t]


def test_block_until():
    (out,), _ = run(wait_for_neighbours, 256, zeros(256), block_dim=128)
    np.testing.assert_array_equal(out, np.tile(128 - np.arange(128), 2))


@wp.kernel
def loop_target_after_loop(gates: wp.array(dtype=int), out: wp.array(dtype=int)):
    total = int(0)
    for i in range(4):
        total += 7
        if gates[i] != 0:
            continue
        total += 11
    last = i                 # bound: range(4) runs at least once
    for q in range(2):
        total += q
    k = int(0)
    while k < 3:
        q += 1               # the loop target reused as a while-loop counter
        k += 1
    out[0] = total
    out[1] = last
    out[2] = q


def _python_loop_target_after_loop(gates):
    total = 0
    for i in range(4):
        total += 7
        if gates[i] != 0:
            continue
        total += 11
    last = i
    for q in range(2):
        total += q
    k = 0
    while k < 3:
        q += 1
        k += 1
    return [total, last, q]


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_a_constant_range_loop_target_is_usable_after_the_loop(device):
    """As in Python (and Warp): after ``for i in range(4)`` i is 3."""
    gates = np.array([0, 1, 0, 1], dtype=np.int32)
    out = wp.zeros(3, dtype=int)
    wp.launch(loop_target_after_loop, 1, [wp.array(gates), out], device=device)
    assert out.numpy().tolist() == _python_loop_target_after_loop(gates)


def test_a_possibly_empty_loop_leaves_its_target_unassigned(tmp_path):
    src = tmp_path / "maybe_empty.py"
    src.write_text("import simt as wp\n\n@wp.kernel\ndef k(n: int, out: wp.array(dtype=int)):\n"
                   "    for i in range(n):\n        pass\n    for j in range(0):\n        pass\n"
                   "    out[0] = i + j\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("maybe_empty", src)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(wp.CompileError, match="'i' is used before it is assigned on some path"):
        wp.launch(module.k, 1, [2, wp.zeros(1, dtype=int)])


DISABLED = False


@wp.func
def _zero_index():
    return 0


@wp.kernel
def dead_branch_rebinding(out: wp.array2d(dtype=int)):
    f = wp.tid
    if DISABLED:                  # never runs: compiled away, so f stays wp.tid
        f = _zero_index
    i, j = f()
    if not DISABLED:
        g = wp.tid                # bound on the only path that runs
    a, b = g()
    out[i, j] = i * 2 + j + (a - i) + (b - j)


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_branches_on_module_constants_compile_only_the_branch_taken(device):
    out = wp.zeros((2, 2), dtype=int)
    wp.launch(dead_branch_rebinding, (2, 2), [out], device=device)
    assert out.numpy().tolist() == [[0, 1], [2, 3]]
