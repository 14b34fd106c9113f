"""The fast engine ("cpu") against the precise engine ("cpu:precise"): the same results on
every suite kernel, the same runtime errors, atomics correct with blocks in parallel, and
compiled kernels reused from the disk cache."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simt
import simt as wp
from simt import suite
from simt.sim.fast import cache, codegen, engine, structured

FAST, PRECISE = "cpu", "cpu:precise"


@pytest.mark.parametrize("case", suite.CASES, ids=lambda c: c.name)
def test_suite_case_bitwise_equal_to_precise(case):
    """Integers and floats bitwise: both engines compute math builtins with one library
    (simt/sim/mathlib.py) and apply float atomics in one order (simt/sim/atomic_log.py)."""
    fast = suite.run_case(case, "small", device=FAST, seed=1)
    fast.check()
    precise = suite.run_case(case, "small", device=PRECISE, seed=1)
    for name in case.outputs_to_check:
        np.testing.assert_array_equal(fast.outputs[name], precise.outputs[name],
                                      err_msg=f"{case.name}: {name}")


def test_global_atomics_with_blocks_in_parallel(monkeypatch):
    monkeypatch.setattr(engine, "PARALLEL_ABOVE_S", 0.0)     # every launch spreads its blocks
    monkeypatch.setattr(engine, "ADAPTIVE_PARALLEL", False)  # even with global atomics
    case = suite.get("histogram_global")
    for seed in range(3):
        suite.run_case(case, 1 << 16, device=FAST, seed=seed).check()


def _errors_of(kernel, dim, arrays, block_dim=32):
    """The exception each engine raises for the same launch."""
    out = []
    for device in (FAST, PRECISE):
        args = [simt.array(a.copy()) for a in arrays]
        with pytest.raises(simt.KernelRuntimeError) as info:
            simt.launch(kernel, dim=dim, inputs=args, device=device, block_dim=block_dim)
        out.append(info.value)
    return out


@wp.kernel
def oob_read(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = float(0.0)
    if i == 37:
        v = x[i + 100]
    out[i] = v


@wp.kernel(module_options={"debug": True})
def oob_dim_debug(x: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i // 8, i % 8 + (7 if i == 50 else 0)]


@wp.kernel
def barrier_in_branch(out: wp.array(dtype=int)):
    t = wp.thread_idx()
    if t < 16:
        wp.sync_threads()
    out[t] = t


@wp.kernel
def shuffle_from_inactive(out: wp.array(dtype=float)):
    i = wp.tid()
    v = float(i)
    if wp.lane_id() < 8:
        v = wp.shfl_down_sync(0xFFFFFFFF, v, 1)
    out[i] = v


@pytest.mark.parametrize("kernel, dim, arrays", [
    (oob_read, 64, [np.zeros(64, np.float32), np.zeros(64, np.float32)]),
    (oob_dim_debug, 64, [np.zeros((8, 8), np.float32), np.zeros(64, np.float32)]),
    (barrier_in_branch, 32, [np.zeros(32, np.int32)]),
    (shuffle_from_inactive, 32, [np.zeros(32, np.float32)]),
], ids=["oob", "oob_debug_check", "barrier_divergence", "warp_sync"])
def test_runtime_errors_match_precise(kernel, dim, arrays):
    fast, precise = _errors_of(kernel, dim, arrays)
    assert type(fast) is type(precise)
    assert str(fast) == str(precise)


@wp.kernel
def warp_ops(x: wp.array(dtype=int), ballots: wp.array(dtype=wp.uint32),
             sums: wp.array(dtype=int), masks: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    v = x[i]
    ballots[i] = wp.ballot_sync(0xFFFFFFFF, v % 3 == 0)
    s = v
    s = s + wp.shfl_xor_sync(0xFFFFFFFF, s, 16)
    s = s + wp.shfl_xor_sync(0xFFFFFFFF, s, 8)
    s = s + wp.shfl_up_sync(0xFFFFFFFF, s, 3)
    sums[i] = s + wp.shfl_sync(0xFFFFFFFF, s, 5)
    if v % 2 == 0:
        masks[i] = wp.active_mask()


def test_warp_intrinsics_match_precise():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, 96).astype(np.int32)
    results = []
    for device in (FAST, PRECISE):
        args = [simt.array(x), simt.zeros(96, dtype=wp.uint32), simt.zeros(96, dtype=int),
                simt.zeros(96, dtype=wp.uint32)]
        simt.launch(warp_ops, dim=96, inputs=args, device=device, block_dim=64)
        results.append([a.numpy() for a in args[1:]])
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)


def test_compiled_kernel_is_cached_on_disk():
    fn = suite.get("saxpy").kernel.compile()
    source = codegen.generate(fn).source
    assert codegen.generate(fn).source == source          # the key depends on the MIR only
    module = cache.load_module(fn.name, source)
    path = Path(module.__file__)
    assert cache.cache_key(source) in path.name and path.read_text() == source
    assert cache.load_module(fn.name, source) is module   # imported once per process
    engine.compile_function(fn).run_blocks                # numba caches next to the file
    assert (path.parent / "__pycache__").is_dir()


@wp.kernel
def loops_with_exits(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    """Returns from inside nested loops, break/continue at both depths, a loop after an if."""
    i = wp.tid()
    v = x[i]
    acc = int(0)
    for a in range(v % 5):
        if a == 3:
            continue
        k = int(0)
        while k < v % 7:
            k += 1
            if k == 2:
                continue
            acc += a * k
            if acc > 60:
                out[i] = -acc
                return
            if (acc + i) % 11 == 0:
                break
        if acc > 40 and i % 2 == 0:
            break
    if v % 3 == 0:
        acc = acc * 2
    j = int(0)
    while j < 3:
        acc += j
        j += 1
    out[i] = acc


def test_structured_control_flow_matches_precise():
    """Kernels without collectives run as if/while code (no block dispatch loop)."""
    fn = loops_with_exits.compile()
    assert "bb = " not in codegen.generate(fn).source
    x = np.random.default_rng(3).integers(0, 100, 200).astype(np.int32)
    results = []
    for device in (FAST, PRECISE):
        out = simt.zeros(200, dtype=int)
        simt.launch(loops_with_exits, dim=200, inputs=[simt.array(x), out], device=device)
        results.append(out.numpy())
    np.testing.assert_array_equal(*results)


@pytest.mark.parametrize("name", ["saxpy", "mandelbrot", "nested_branches", "ray_triangle"])
def test_suite_kernels_take_the_structured_path(name):
    case = suite.get(name)
    suite.run_case(case, "small", device=FAST, seed=1)
    fns = list(case.kernel._compiled.values())
    assert fns and all("bb = " not in codegen.generate(fn).source for fn in fns)


def test_plain_atomics_variant_for_one_os_thread():
    fn = suite.get("histogram_global").kernel.compile()
    assert "atomic_add_int(" in codegen.generate(fn).source
    assert "atomic_add_int(" not in codegen.generate(fn, plain_atomics=True).source


def test_dispatch_fallback_matches_precise(monkeypatch):
    """Flow the structured writer gives up on runs through the block dispatch loop."""
    monkeypatch.setattr(structured, "DUPLICATION_LIMIT", -1000)
    fn = loops_with_exits.compile()
    assert "bb = " in codegen.generate(fn).source
    x = np.random.default_rng(4).integers(0, 100, 64).astype(np.int32)
    module = cache.load_module(fn.name, codegen.generate(fn).source)
    outs = []
    for run in ("dispatch", PRECISE):
        out = simt.zeros(64, dtype=int)
        if run == "dispatch":
            monkeypatch.setattr(fn, "_fast_compiled",
                                engine.CompiledKernel(codegen.generate(fn), module.run_blocks, fn),
                                raising=False)
            simt.launch(loops_with_exits, dim=64, inputs=[simt.array(x), out], device=FAST)
        else:
            simt.launch(loops_with_exits, dim=64, inputs=[simt.array(x), out], device=PRECISE)
        outs.append(out.numpy())
    np.testing.assert_array_equal(*outs)


@wp.kernel
def _int64_wrap_then_divide(x: wp.array(dtype=wp.int64), y: wp.array(dtype=wp.int64),
                            out: wp.array(dtype=wp.int64)):
    i = wp.tid()
    out[i] = (x[i] * wp.int64(2147483647) * y[i]) / y[i]


def test_int64_products_wrap_before_a_division_as_on_every_engine():
    """numba marks signed int64 products 'no signed wrap', so LLVM may fold (x * c * y) / y
    to x * c; the fast engine must wrap the product first, as cpu:precise and CUDA do."""
    x = np.array([559350902, -7, 3], np.int64)
    y = np.array([182, 5, -2], np.int64)
    prod = (x.astype(object) * 2147483647 * y.astype(object) + 2**63) % 2**64 - 2**63
    want = np.array([abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1)      # truncating
                     for p, q in zip(prod, y.astype(object))], np.int64)
    for device in ("cpu", "cpu:precise"):
        out = wp.zeros(3, dtype=wp.int64)
        wp.launch(_int64_wrap_then_divide, dim=3, inputs=[wp.array(x), wp.array(y), out], device=device)
        assert np.array_equal(out.numpy(), want), device


@wp.kernel
def int_families(keys: wp.array(dtype=int), vals: wp.array(dtype=int), total: wp.array(dtype=int),
                 down: wp.array(dtype=int), lo: wp.array(dtype=int), hi: wp.array(dtype=int),
                 ands: wp.array(dtype=int), ors: wp.array(dtype=int), xors: wp.array(dtype=int)):
    i = wp.tid()
    k = keys[i]
    v = vals[i]
    wp.atomic_add(total, k, v)
    wp.atomic_sub(down, k, v)
    wp.atomic_min(lo, k, v & 0x7FFFFFFF)           # all >= 0: a zero start would show
    wp.atomic_max(hi, k, -(v & 0x7FFFFFFF) - 1)    # all < 0
    wp.atomic_and(ands, k, v | 0x0F0F0F0F)
    wp.atomic_or(ors, k, v & 0x00FF00FF)
    wp.atomic_xor(xors, k, v)


@wp.kernel
def add_and_read(keys: wp.array(dtype=int), counts: wp.array(dtype=int), seen: wp.array(dtype=int)):
    i = wp.tid()
    seen[i] = wp.atomic_add(counts, keys[i], 1)       # the old value is used: no private copies


@pytest.mark.parametrize("bins", [7, 5000])      # copies for a few bins; atomics for many
def test_integer_atomics_of_every_family_with_private_copies_per_chunk(monkeypatch, bins):
    """Spread over four OS threads, each chunk of blocks updates its own copy of the bins
    (engine.CompiledKernel.private_arrays) where they are few; the final values equal numpy's
    (integer addition wrapping as int32 does) and the precise engine's."""
    monkeypatch.setattr(engine, "PARALLEL_ABOVE_S", 0.0)
    monkeypatch.setattr(engine, "ADAPTIVE_PARALLEL", False)
    monkeypatch.setattr(engine, "_WORKERS", 4)
    rng = np.random.default_rng(3)
    n = 1 << 15
    keys = rng.integers(0, bins, n).astype(np.int32)
    vals = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)   # sums wrap
    start = {"total": 5, "down": -3, "lo": 2**31 - 1, "hi": -2**31, "ands": -1, "ors": 0, "xors": 9}
    expect = {name: np.full(bins, v, np.int32) for name, v in start.items()}
    with np.errstate(over="ignore"):
        np.add.at(expect["total"], keys, vals)
        np.subtract.at(expect["down"], keys, vals)
    np.minimum.at(expect["lo"], keys, vals & 0x7FFFFFFF)
    np.maximum.at(expect["hi"], keys, -(vals & 0x7FFFFFFF) - 1)
    np.bitwise_and.at(expect["ands"], keys, vals | 0x0F0F0F0F)
    np.bitwise_or.at(expect["ors"], keys, vals & 0x00FF00FF)
    np.bitwise_xor.at(expect["xors"], keys, vals)
    got = {}
    for device in (FAST, PRECISE):
        outs = {name: simt.array(np.full(bins, v, np.int32)) for name, v in start.items()}
        simt.launch(int_families, dim=n, block_dim=128, device=device,
                    inputs=[simt.array(keys), simt.array(vals), *outs.values()])
        got[device] = {name: a.numpy() for name, a in outs.items()}
    for name in start:
        np.testing.assert_array_equal(got[FAST][name], expect[name], err_msg=name)
        np.testing.assert_array_equal(got[PRECISE][name], expect[name], err_msg=name)
    private = engine.compile_function(int_families.compile()).private_arrays()
    assert sorted(family for _, family in private) == sorted(["add", "add", "min", "max", "and", "or", "xor"])


def test_private_copies_only_where_the_order_cannot_show(monkeypatch):
    """An atomic whose old value the kernel uses gets no private copy: each thread must see
    the count before it, so the old values are a permutation of 0..n-1 per key."""
    monkeypatch.setattr(engine, "PARALLEL_ABOVE_S", 0.0)
    monkeypatch.setattr(engine, "ADAPTIVE_PARALLEL", False)
    monkeypatch.setattr(engine, "_WORKERS", 4)
    assert engine.compile_function(add_and_read.compile()).private_arrays() == []
    keys = (np.arange(1 << 14) % 3).astype(np.int32)
    counts, seen = simt.zeros(3, dtype=simt.int32), simt.zeros(keys.size, dtype=simt.int32)
    simt.launch(add_and_read, dim=keys.size, block_dim=64, inputs=[simt.array(keys), counts, seen], device=FAST)
    assert counts.numpy().tolist() == [np.sum(keys == k) for k in range(3)]
    for k in range(3):
        assert sorted(seen.numpy()[keys == k]) == list(range(int(np.sum(keys == k))))


def test_spread_or_not_is_decided_after_timing_each_way_several_times():
    """One slow first spread launch (the machine busy for a moment) must not keep a kernel on
    one core: the engine takes turns until each way has been timed PROBES times, then runs the
    faster way (and times the slower again now and then)."""
    compiled = engine.compile_function(suite.get("saxpy").kernel.compile())
    compiled.wall_per_thread = {False: None, True: None}
    compiled.observed = {False: 0, True: 0}
    compiled.decisions = 0
    chosen = []
    for k in range(2 * engine.PROBES):
        way = compiled.prefer_parallel()
        chosen.append(way)
        slow_first = 50.0 if (way and k == 1) else 1.0
        compiled.observe_wall(way, (0.5 if way else 1.0) * slow_first, 1)
    assert chosen[0] is False                     # this thread first (the first launch compiles)
    assert chosen.count(True) == chosen.count(False) == engine.PROBES
    assert compiled.prefer_parallel() is True     # spread was faster, the slow first one aside


@wp.kernel
def _work_queue(head: wp.array(dtype=int), who: wp.array(dtype=int)):
    n = who.shape[0]
    while True:
        i = wp.atomic_add(head, 0, 1)
        if i >= n:
            break
        who[i] = wp.tid()


def test_a_work_queue_all_goes_to_the_first_thread_and_the_step_limit_says_why():
    """Persistent threads pulling from one counter: cpu runs a thread on before the threads
    after it start, so the first takes every item (and, past the step limit, the error names
    that order rather than only an endless loop); cpu:precise interleaves warps, so the queue
    spreads over many threads. Both do every item once."""
    n = 2000
    takers = {}
    for device in ("cpu", "cpu:precise"):
        head = simt.zeros(1, dtype=int, device=device)
        who = simt.full(n, -1, dtype=int, device=device)
        simt.launch(_work_queue, dim=256, inputs=[head, who], block_dim=64, device=device)
        w = who.numpy()
        assert (w >= 0).all() and int(head.numpy()[0]) == n + 256
        takers[device] = len(np.unique(w))
    assert takers["cpu"] == 1
    assert takers["cpu:precise"] > 32
    simt.set_module_options({"max_steps": 500})
    try:
        head = simt.zeros(1, dtype=int, device="cpu")
        who = simt.zeros(n, dtype=int, device="cpu")
        with pytest.raises(simt.StepLimitError, match="a work queue all goes to the first"):
            simt.launch(_work_queue, dim=256, inputs=[head, who], block_dim=64, device="cpu")
    finally:
        simt.set_module_options({"max_steps": 1_000_000})
