"""What ptxas folds away in loops it unrolls completely (simt/sim/timing/folding.py), checked
against the SASS ptxas makes: which loops it unrolled, and how many instructions the GPU
issues for them."""
import numpy as np
import pytest

import simt as wp
from simt.gpu import sass as sass_mod
from simt.ir.mir import LaunchSig, Op
from simt.sim.timing import folding

pytestmark = pytest.mark.skipif(
    not sass_mod.available() or sass_mod.find_tool("nvdisasm") is None,
    reason="needs ptxas and nvdisasm (line info; pip install simt[sass])")


@wp.kernel
def tiled(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    """c = a @ b with 32 x 32 shared tiles, blocks of (8, 32) threads, four rows a thread."""
    a_s = wp.shared.array(shape=(32, 32), dtype=float)
    b_s = wp.shared.array(shape=(32, 32), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    col = bx * 32 + tx
    acc0 = float(0.0)
    acc1 = float(0.0)
    acc2 = float(0.0)
    acc3 = float(0.0)
    for k0 in range(0, a.shape[1], 32):        # a runtime trip count: a loop in the SASS
        for r in range(0, 32, 8):              # (simt unrolls loops of up to 16 itself)
            a_s[ty + r, tx] = a[by * 32 + ty + r, k0 + tx]
            b_s[ty + r, tx] = b[k0 + ty + r, col]
        wp.sync_threads()
        for kk in range(32):                   # a constant trip count: ptxas unrolls it
            bv = b_s[kk, tx]
            acc0 += a_s[ty, kk] * bv
            acc1 += a_s[ty + 8, kk] * bv
            acc2 += a_s[ty + 16, kk] * bv
            acc3 += a_s[ty + 24, kk] * bv
        wp.sync_threads()
    c[by * 32 + ty, col] = acc0
    c[by * 32 + ty + 8, col] = acc1
    c[by * 32 + ty + 16, col] = acc2
    c[by * 32 + ty + 24, col] = acc3


@wp.kernel
def runtime_dot(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    acc = float(0.0)
    for kk in range(n):                        # a runtime trip count: a loop in the SASS
        acc += a[i * n + kk]
    out[i] = acc


@wp.kernel
def rounds(out: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    x = wp.uint32(i)
    for r in range(32):
        if r % 4 == 0:                         # ptxas keeps this test in every copy
            x = x ^ (x << wp.uint32(1))
        else:
            x = x + wp.uint32(r)
    out[i] = x


def _fn(kernel, sig=LaunchSig(1, 1)):
    return kernel.compile(sig)


def _names(fn, ids):
    return [ins.op for blk in fn.blocks for ins in blk.instrs if id(ins) in ids]


TILED = LaunchSig(2, 2)


def test_the_inner_constant_loop_is_read_as_unrolled_and_the_runtime_loops_are_not():
    fn = _fn(tiled, TILED)
    df = sass_mod.sass_of_function(fn, "sm_90")
    outer, inner = sorted(folding.spans(fn), key=lambda s: s[1] - s[0], reverse=True)
    assert len(sass_mod.back_edges(df)) == 1   # the SASS keeps the tiles' loop alone
    assert folding.unrolled(fn, df) == [inner]
    fn = _fn(runtime_dot)
    df = sass_mod.sass_of_function(fn, "sm_90")
    assert sass_mod.back_edges(df) and folding.spans(fn)
    assert folding.unrolled(fn, df) == []
    assert folding.unrolled(fn, None) == []    # no SASS: nothing folds


def test_the_loops_control_and_the_counters_offsets_fold_and_the_arithmetic_stays():
    fn = _fn(tiled, TILED)
    loops = folding.unrolled(fn, sass_mod.sass_of_function(fn, "sm_90"))
    gone = folding.folded(fn, loops)
    t, b = loops[0]
    body = [ins for k in range(t, b + 1) for ins in fn.blocks[k].instrs]
    kept = [ins.op.name for ins in body if id(ins) not in gone and ins.op is not Op.MOV]
    assert id(fn.blocks[b].instrs[-1]) in gone      # the back edge
    # what each copy has in the SASS: five shared loads, four multiplies and four adds
    assert sorted(kept) == ["ADD"] * 4 + ["LD"] * 5 + ["MUL"] * 4


def test_values_of_the_counter_that_feed_a_branch_stay_issued_as_simple_instructions():
    fn = _fn(rounds)
    how = folding.folded(fn, folding.spans(fn))    # as if ptxas unrolled it
    by_op = {}
    for blk in fn.blocks:
        for ins in blk.instrs:
            by_op.setdefault(ins.op, []).append(how.get(id(ins)))
    assert set(by_op[Op.REM]) == {folding.SIMPLE}   # r % 4: computed in each copy
    assert set(by_op[Op.EQ]) == {folding.SIMPLE}
    # of the branches only the back edge goes; the test on r % 4 stays in every copy
    assert sorted(by_op[Op.CBR], key=str) == [None] * (len(by_op[Op.CBR]) - 1) + [folding.READY]


def test_issued_instructions_come_closer_to_the_sass_count():
    n = 64                                      # two tiles: the SASS loop runs twice a warp
    rng = np.random.default_rng(0)
    a, b = rng.random((2, n, n), dtype=np.float32)
    c = wp.zeros((n, n))
    issued = {}
    for fold in (True, False):
        wp.set_module_options({"timing_sass": fold})
        try:
            r = wp.launch(tiled, dim=(n // 4, n), block_dim=(8, 32),
                          inputs=[wp.array(a), wp.array(b), c], device="cpu:precise")
        finally:
            wp.set_module_options({"timing_sass": True})
        issued[fold] = r.metrics["smsp__inst_issued.sum"]
    df = sass_mod.sass_of_function(_fn(tiled, TILED), "sm_90")
    (start, end), = sass_mod.back_edges(df)
    body = int(((df["addr"] >= start) & (df["addr"] <= end)).sum())
    warps = (n // 4) * n // 32
    sass_count = warps * (len(df) - body + (n // 32) * body)
    assert abs(issued[True] - sass_count) < abs(issued[False] - sass_count)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)


@wp.kernel
def taps(x: wp.array(dtype=float), w: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for k in range(17):                        # a constant trip count with a load each time
        s += w[k] * x[i + k * 64]
    out[i] = s


def test_a_completely_unrolled_loop_with_loads_replays_them_in_flight_together():
    n = 64                                      # two warps: latency is what the loop costs
    rng = np.random.default_rng(1)
    x, w = rng.random(n + 17 * 64, dtype=np.float32), rng.random(17, dtype=np.float32)
    fn = _fn(taps)
    df = sass_mod.sass_of_function(fn, "sm_90")
    assert sass_mod.back_edges(df) == [] and folding.unrolled(fn, df)     # no SASS loop left
    assert sass_mod.loads_before_first_use(df) >= 2                      # loads issued ahead
    out = {}
    for sass_order in (True, False):
        wp.set_module_options({"timing_sass": sass_order})
        try:
            o = wp.zeros(n)
            r = wp.launch(taps, dim=n, inputs=[wp.array(x), wp.array(w), o], block_dim=64, device="cpu:precise")
        finally:
            wp.set_module_options({"timing_sass": True})
        out[sass_order] = (r.cycles, r.details["timing_schedule"], o.numpy())
    (hoisted, plan, got), (program, _, _) = out[True], out[False]
    assert plan["replay"] == "sass" and plan["loops"] and plan["loops"][0]["unroll"] == 17
    assert hoisted < 0.6 * program               # seventeen loads in flight instead of one
    want = sum(w[k] * x[np.arange(n) + k * 64].astype(np.float64) for k in range(17))
    np.testing.assert_allclose(got, want, rtol=1e-5)


@wp.kernel
def table_scan(t: wp.array(dtype=float), x: wp.array(dtype=float), out: wp.array(dtype=float)):
    tab = wp.shared.array(shape=(64,), dtype=float)
    s0 = wp.thread_idx()
    tab[s0] = t[s0]
    wp.sync_threads()
    v = x[wp.tid()]
    best = float(-1.0e30)
    for p in range(64):                        # a loop over a table in shared memory, no global load
        c = tab[p] * v
        if c > best:
            best = c
    out[wp.tid()] = best


def test_a_loop_over_shared_memory_replays_its_loads_in_flight_together():
    n = 64                                      # two warps: the loads' latency is what the loop costs
    rng = np.random.default_rng(2)
    t, x = rng.random(64, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = {}
    for sass_order in (True, False):
        wp.set_module_options({"timing_sass": sass_order})
        try:
            o = wp.zeros(n)
            r = wp.launch(table_scan, dim=n, inputs=[wp.array(t), wp.array(x), o], block_dim=64, device="cpu:precise")
        finally:
            wp.set_module_options({"timing_sass": True})
        out[sass_order] = (r.cycles, r.details["timing_schedule"], o.numpy())
    (hoisted, plan, got), (program, _, _) = out[True], out[False]
    assert plan["replay"] == "sass" and plan["loops"]
    assert hoisted < 0.8 * program               # the table's loads of several iterations in flight
    np.testing.assert_allclose(got, (t[None, :] * x[:, None]).max(axis=1), rtol=1e-6)


@wp.kernel
def local_vector(a: wp.array(dtype=float), out: wp.array(dtype=float), reps: int):
    """A local vector of 32 floats indexed by the counters of loops ptxas unrolls completely
    (too long for simt to unroll), inside a runtime loop: the SASS keeps the vector in
    registers, and the loop variable ``m`` is reused by a loop of its own before them."""
    i = wp.tid()
    v = wp.vector(length=32, dtype=float)
    for m in range(32):
        v[m] = a[i * 32 + m]
    for r in range(reps):                      # a runtime trip count: a loop in the SASS
        for m in range(32):
            v[m] = v[m] * 0.5 + float(r)
    s = float(0.0)
    for m in range(32):
        s += v[m]
    out[i] = s


def test_a_local_vector_indexed_by_an_unrolled_counter_costs_no_instructions_to_index():
    # the MIR indexes the vector by compares of the counter with each element's position and
    # a select per element; ptxas knows the counter in each copy and issues none of them:
    # the model's issued instructions are counted against the SASS's (static count, no
    # branch but the runtime loop's, so every warp issues the same)
    n, reps = 4096, 4
    a = np.arange(n * 32, dtype=np.float32) / 1024
    out = wp.zeros(n)
    r = wp.launch(local_vector, dim=n, inputs=[wp.array(a), out, reps], block_dim=128, device="cpu:precise")
    want = a.reshape(n, 32).astype(np.float64)
    for k in range(reps):
        want = want * 0.5 + k
    np.testing.assert_allclose(out.numpy(), want.sum(axis=1), rtol=1e-5)
    fn = _fn(local_vector)
    df = sass_mod.sass_of_function(fn, "sm_90")
    (start, end), = sass_mod.back_edges(df)
    body = int(((df["addr"] >= start) & (df["addr"] <= end)).sum())
    sass_count = (n // 32) * (len(df) - body + reps * body)
    assert r.metrics["smsp__inst_issued.sum"] < 1.5 * sass_count
    # every loop over the vector is read as unrolled, the runtime loop is not
    assert len(folding.unrolled(fn, df)) == 3
