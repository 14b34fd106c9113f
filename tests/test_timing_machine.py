"""The timing machine's own workings, apart from what it predicts: nothing of one launch shows
in the next, the figures do not depend on how many threads run the machine, numba's disk
cache never holds parallel code on its own, and the count of a scheduler's private work that
run_ahead deals by. What it predicts is tests/test_timing.py's."""
import numpy as np
import pytest

import simt as wp


def test_a_launch_predicts_the_same_after_other_launches():
    """The machine keeps its cache arrays from launch to launch: nothing of one launch's
    caches may show in the next. The same launch on the same arrays, before and after a
    launch that fills the L1s and the L2 with other lines, predicts the same."""
    x = wp.array(np.arange(1 << 16, dtype=np.float32))
    y = wp.zeros(1 << 16)
    other = wp.array(np.ones(1 << 20, np.float32))

    def predict(src, dst):
        r = wp.launch(_copy_plus_one, src.shape[0], [src, dst], block_dim=256)
        return r.cycles, r.stalls, r.metrics["dram__bytes_read.sum"], r.metrics["lts__t_sector_hit_rate.pct"]
    first = predict(x, y)
    predict(other, wp.zeros(1 << 20))
    assert predict(x, y) == first


@wp.kernel
def _copy_plus_one(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i] + 1.0


def _launch_on_threads(threads, kernel, n, inputs, block_dim):
    import numba
    numba.set_num_threads(threads)
    try:
        return wp.launch(kernel, n, inputs(), block_dim=block_dim)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@wp.kernel
def _uneven_loop(out: wp.array(dtype=float)):
    i = wp.tid()
    x = float(0.0)
    for j in range(i % 61):
        x = x * 0.5 + float(j)
    out[i] = x


@wp.kernel
def _uneven_loop_with_barrier(out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    x = float(0.0)
    for j in range(t % 23):
        x = x * 0.5 + float(j)
    s[t] = x
    wp.sync_threads()
    out[wp.tid()] = s[255 - t] + x


@pytest.mark.parametrize("kernel,n,block_dim", [
    (_uneven_loop, 32 * 1024, 1024),          # one wave: the first wave's schedulers run ahead
    (_uneven_loop, 300 * 1024, 1024),         # more than a wave: the last block's launch
    (_uneven_loop_with_barrier, 64 * 256, 256),
])
def test_timing_does_not_depend_on_how_many_threads_the_machine_uses(kernel, n, block_dim):
    """Schedulers that nothing outside can disturb issue on several threads once the last
    block is launched; every figure must come out the same, bit for bit, on one thread."""
    import numba
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread on this machine")
    inputs = lambda: [wp.zeros(n)]                       # noqa: E731
    one = _launch_on_threads(1, kernel, n, inputs, block_dim)
    many = _launch_on_threads(numba.config.NUMBA_NUM_THREADS, kernel, n, inputs, block_dim)
    assert one.metrics["smsp__inst_executed.sum"] > 0
    assert dict(one.metrics) == dict(many.metrics)
    assert one.stalls == many.stalls
    assert np.array_equal(one.details["block_cycles"], many.details["block_cycles"])
    assert one.lines.equals(many.lines)


def _dispatchers():
    """Every numba function of simt's modules: {module.name: dispatcher}."""
    import importlib
    import pkgutil
    from numba.core.registry import CPUDispatcher
    import simt
    found = {}
    for info in pkgutil.walk_packages(simt.__path__, "simt."):
        if info.name.startswith("simt.gpu") or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == info.name:
                found[f"{info.name}.{name}"] = value
    return found


def test_no_disk_cached_numba_function_calls_parallel_code_through_a_cached_callee():
    """numba saves a broken caller (a segfault at every later load) when it compiles a
    disk-cached function against a callee that calls parallel code and was itself loaded from
    the disk cache. That happens whenever the caller's file changes alone, or two processes
    compile at once. By hand: compile the machine, delete only ``machine.run``'s files from
    numba's cache, launch twice with timing: the second launch crashed. So every function
    that runs parallel code and is called from jitted code is compiled with its caller, never
    loaded from disk on its own."""
    found = _dispatchers()
    by_func = {id(d.py_func): key for key, d in found.items()}

    def callees(d):
        g = d.py_func.__globals__
        out = []
        for name in d.py_func.__code__.co_names:
            target = g.get(name)
            key = by_func.get(id(getattr(target, "py_func", None)))
            if key is not None:
                out.append(key)
        return out

    parallel = {k for k, d in found.items() if d.targetoptions.get("parallel")}
    assert "simt.sim.timing.private.run_ahead" in parallel     # the scan sees what it guards

    def runs_parallel(key, seen=()):
        return key in parallel or any(runs_parallel(c, seen + (key,)) for c in callees(found[key])
                                      if c not in seen)

    def disk_cached(d):
        return type(d._cache).__name__ != "NullCache"

    bad = [f"{caller} calls {callee}" for caller, d in found.items() for callee in callees(d)
           if runs_parallel(callee) and disk_cached(found[callee])]
    assert not bad, "disk-cached callees that run parallel code: " + "; ".join(bad)


def _walk(g, sl_ins, sl_e, sl_end, e_first, e_end, issue, most):
    """A private run's work counted an instruction at a time: the first NO, or the end."""
    from simt.sim.timing import private as pv
    n, i, e = 0, sl_ins[g], sl_e[g]
    while e < sl_end[g]:
        while i < e_end[e]:
            if issue[i] == pv.NO or n >= most:
                return n
            n, i = n + 1, i + 1
        e += 1
        if e < sl_end[g]:
            i = e_first[e]
    return n


def test_a_private_runs_work_counted_by_entry_is_the_count_instruction_by_instruction():
    """run_ahead deals schedulers to its threads by the instructions each can issue alone, and
    the machine hands a warp to the private loop with WORTH of them ahead: private_work counts
    a recorded block at a time (private.next_shared). On random blocks and streams it agrees
    with the count instruction by instruction, capped or not."""
    from simt.sim.timing import private as pv
    rng = np.random.default_rng(7)
    for _ in range(50):
        n_blk = int(rng.integers(1, 6))
        blk_len = rng.integers(1, 7, n_blk)
        blk_first = np.concatenate([[0], np.cumsum(blk_len)[:-1]]).astype(np.int64)
        issue = rng.choice(np.array([pv.NO, pv.YES, pv.LAST], np.int8), int(blk_len.sum()),
                           p=[0.2, 0.7, 0.1])
        n_slots = 4
        sl_e = np.zeros(n_slots, np.int64)
        sl_end = np.zeros(n_slots, np.int64)
        sl_ins = np.zeros(n_slots, np.int64)
        blocks = []
        for g in range(n_slots):
            walk = rng.integers(0, n_blk, int(rng.integers(1, 9)))
            sl_e[g], sl_end[g] = len(blocks), len(blocks) + walk.size
            blocks += walk.tolist()
            b0 = walk[0]
            sl_ins[g] = blk_first[b0] + int(rng.integers(0, blk_len[b0]))
        blocks = np.array(blocks)
        e_first, e_end = blk_first[blocks], blk_first[blocks] + blk_len[blocks]
        shared = pv.next_shared(issue)
        for g in range(n_slots):
            assert pv.private_work(g, sl_ins, sl_e, sl_end, e_first, e_end, shared) == \
                _walk(g, sl_ins, sl_e, sl_end, e_first, e_end, issue, 1 << 62)
            assert pv.private_work(g, sl_ins, sl_e, sl_end, e_first, e_end, shared, 3) == \
                _walk(g, sl_ins, sl_e, sl_end, e_first, e_end, issue, 3)
