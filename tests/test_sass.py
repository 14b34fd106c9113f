"""simt.sass: the SASS ptxas makes of simt's PTX, against counts made by hand from the source."""
from pathlib import Path

import numpy as np
import pytest

import simt as wp
from simt.gpu import sass as sass_mod

pytestmark = pytest.mark.skipif(not sass_mod.available(),
                                reason="needs ptxas and nvdisasm or cuobjdump (pip install simt[sass])")


@wp.kernel
def straight(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    c[i] = a[i] * b[i] + b[2 * i]            # three global loads, one store


@wp.kernel
def row_sum(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):                        # a runtime trip count: ptxas unrolls it
        s += a[i * n + k]
    out[i] = s


@wp.kernel
def chase(nxt: wp.array(dtype=int), out: wp.array(dtype=int), n: int):
    i = wp.tid()
    p = i
    for k in range(n):
        p = nxt[p]                            # each address is the previous load's value
    out[i] = p


def test_straight_line_has_one_ldg_per_source_load():
    df = wp.sass(straight)
    assert (df["opcode"] == "LDG").sum() == 3
    assert (df["opcode"] == "STG").sum() == 1
    assert (df["loop"] == -1).all() and df.attrs["loops"] == []


def test_registers_match_ptxas_info():
    for k in (straight, row_sum, chase):
        assert wp.sass(k).attrs["registers"] == wp.ptxas_info(k)["registers"]


def test_lines_map_back_to_the_source():
    if sass_mod.find_disassembler()[0] != "nvdisasm":
        pytest.skip("cuobjdump prints no line info")
    import inspect
    first = inspect.getsourcelines(straight.func if hasattr(straight, "func") else straight)[1]
    df = wp.sass(straight)
    loads = df[df["opcode"] == "LDG"]
    assert set(loads["line"]) == {first + 3}       # the line of c[i] = a[i] * b[i] + b[2 * i]


def test_runtime_trip_count_loop_is_unrolled_with_loads_hoisted():
    df = wp.sass(row_sum)
    loops = [lp for lp in df.attrs["loops"] if lp["mir_loads"]]
    main = max(loops, key=lambda lp: lp["loads"])
    assert main["mir_loads"] == 1                   # one load per source iteration
    assert main["unroll"] >= 2
    assert main["loads"] == main["unroll"] * main["mir_loads"]
    assert main["loads_before_first_use"] >= 2
    body = df[df["loop"] == main["loop"]]
    assert (body["opcode"] == "BRA").sum() == 1     # one back edge per unrolled group


def test_pointer_chase_keeps_one_load_in_flight():
    df = wp.sass(chase)
    for lp in df.attrs["loops"]:
        if lp["loads"]:
            assert lp["loads_before_first_use"] == 1


def test_table_columns_and_cache():
    df = wp.sass(straight, arch="sm_80")
    for col in ("addr", "opcode", "modifiers", "operands", "predicate", "line", "block", "loop"):
        assert col in df.columns
    assert df.attrs["arch"] == "sm_80"
    again = wp.sass(straight, arch="sm_80")
    assert again.equals(df) and again is not df


def test_cuobjdump_without_line_info_still_finds_the_loop(monkeypatch):
    if sass_mod.find_tool("cuobjdump") is None:
        pytest.skip("cuobjdump is not here")
    real = sass_mod.find_tool
    monkeypatch.setattr(sass_mod, "find_tool", lambda name: None if name == "nvdisasm" else real(name))
    from simt.ir.mir import LaunchSig
    fn = row_sum.compile(LaunchSig(1, 1))
    fn.__dict__.pop("_sass_cache", None)
    try:
        df = sass_mod.sass_of_function(fn, "sm_90")
    finally:
        fn.__dict__.pop("_sass_cache", None)
    assert df.attrs["tool"] == "cuobjdump" and (df["line"] == -1).all()
    main = max(df.attrs["loops"], key=lambda lp: lp["loads"])
    assert main["unroll"] >= 2 and main["loads"] == main["unroll"]


def test_missing_disassembler_names_the_extra(monkeypatch):
    monkeypatch.setattr(sass_mod, "find_tool", lambda name: None)
    with pytest.raises(wp.errors.DeviceError, match=r"simt\[sass\]"):
        sass_mod.find_disassembler()


# ---- the timing model replays unrolled loops in the SASS's order -------------------------------

def _cycles(kernel, inputs, n_threads, sass_order):
    wp.set_module_options({"timing_sass": sass_order})
    try:
        r = wp.launch(kernel, dim=n_threads, inputs=inputs, block_dim=64, device="cpu:precise")
    finally:
        wp.set_module_options({"timing_sass": True})
    return r.cycles, r.details["timing_schedule"]


def test_independent_loads_in_a_loop_overlap_at_low_occupancy():
    import numpy as np
    n = 128                                  # 64 threads: two warps on one SM
    a = wp.array(np.ones(64 * n, np.float32))
    out = wp.zeros(64)
    program, off = _cycles(row_sum, [a, out, n], 64, False)
    hoisted, on = _cycles(row_sum, [a, out, n], 64, True)
    assert off["replay"] == "program order" and "switched off" in off["why"]
    assert on["replay"] == "sass"
    main = max(wp.sass(row_sum).attrs["loops"], key=lambda lp: lp["loads"])
    assert on["loops"][0]["unroll"] == main["unroll"] >= 2
    assert hoisted < 0.8 * program              # several loads in flight instead of one
    assert np.allclose(out.numpy(), n)


@wp.kernel
def store_walk(dst: wp.array(dtype=float), n: int):
    t = wp.tid()
    for i in range(n):                        # no load: a chain of integer ops and a store
        dst[(t >> 5) * 1024 + (i & 31) * 32 + (t & 31)] = float(i)


@wp.kernel
def chains(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):                        # each load (one line for all) feeds a chain of math
        x = a[k]
        x = x * x + 0.5
        x = x * 0.75 + x * x
        x = x * x + 0.5
        x = x * 0.75 + x * x
        x = x * x + 0.5
        x = x * 0.75 + x * x
        s += x
    out[i] = s


def _replayed(monkeypatch, kernel, inputs, switch, value):
    from simt.sim.timing import sass_replay
    monkeypatch.setattr(sass_replay, switch, value)
    r = wp.launch(kernel, dim=64, inputs=inputs, block_dim=64, device="cpu:precise")
    return r.cycles, r.details["timing_schedule"], r.metrics


def test_a_store_loop_ptxas_unrolled_interleaves_its_copies(monkeypatch):
    """A loop without loads that ptxas unrolled by U (its SASS: the U copies' address
    arithmetic interleaved) replays U iterations as one group whose chains interleave, not one
    iteration after another waiting out each chain; the same stores reach memory."""
    n = 256
    dst = wp.zeros(2 * 1024)
    program, off, m_off = _replayed(monkeypatch, store_walk, [dst, n], "LOADLESS", False)
    grouped, on, m_on = _replayed(monkeypatch, store_walk, [dst, n], "LOADLESS", True)
    assert off["loops"] == [] and [lp["loads_in_flight"] for lp in on["loops"]] == [0]
    assert on["loops"][0]["unroll"] >= 2
    assert grouped < 0.85 * program               # two warps on one SM: latency, not throughput
    for k in ("smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
              "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"):
        assert m_on[k] == m_off[k]
    np.testing.assert_array_equal(dst.numpy().reshape(2, 32, 32)[:, :, 0], np.tile(np.arange(224, 256, dtype=np.float32), (2, 1)))


def test_copies_chains_interleave_in_a_group(monkeypatch):
    """ptxas's list scheduler interleaves the dependent math of an unrolled loop's copies;
    the group's order (longest latency path first) does too, where keeping the program
    order after the hoisted loads waits out each copy's chain in turn."""
    n = 128
    a = wp.array(np.full(n, 0.25, np.float32))
    out = wp.zeros(64)
    in_order, _, m_off = _replayed(monkeypatch, chains, [a, out, n], "BY_HEIGHT", False)
    by_height, on, m_on = _replayed(monkeypatch, chains, [a, out, n], "BY_HEIGHT", True)
    assert on["replay"] == "sass" and on["loops"][0]["unroll"] >= 2 and on["loops"][0]["loads_in_flight"] >= 2
    assert by_height < 0.9 * in_order
    assert m_on["smsp__inst_executed.sum"] == m_off["smsp__inst_executed.sum"]
    x = np.float32(0.25)
    for _ in range(3):
        x = x * x + np.float32(0.5)
        x = x * np.float32(0.75) + x * x
    np.testing.assert_allclose(out.numpy(), n * x, rtol=1e-5)


def test_an_architecture_file_replays_its_ptx_targets_sass(tmp_path):
    """A calibrated file (another name, the same PTX target) gets the SASS order too."""
    import json
    import numpy as np
    data = json.loads((Path(wp.arch.__file__).parent / "sm_90.json").read_text())
    data["name"] = "my_gpu"
    path = tmp_path / "my_gpu.json"
    path.write_text(json.dumps(data))
    n = 128
    a, out = wp.array(np.ones(64 * n, np.float32)), wp.zeros(64)
    r = wp.launch(row_sum, dim=64, inputs=[a, out, n], block_dim=64, device="cpu:precise", arch=str(path))
    assert r.details["timing_schedule"]["replay"] == "sass"
    data["ptx_target"] = "sm_75"
    path.write_text(json.dumps(data))
    r = wp.launch(row_sum, dim=64, inputs=[a, out, n], block_dim=64, device="cpu:precise", arch=str(path))
    assert r.details["timing_schedule"]["replay"] == "program order"
    assert "sm_75" in r.details["timing_schedule"]["why"]


def test_pointer_chase_is_not_reordered():
    import numpy as np
    n = 128
    nxt = wp.array(((np.arange(64 * 8) + 64) % (64 * 8)).astype(np.int32))
    out = wp.zeros(64, dtype=int)
    program, _ = _cycles(chase, [nxt, out, n], 64, False)
    hoisted, on = _cycles(chase, [nxt, out, n], 64, True)
    assert on["replay"] == "program order" and on["loops"] == []
    assert hoisted == program


def test_replay_falls_back_to_program_order_without_the_tools(monkeypatch):
    from simt.arch import load_arch
    from simt.ir.mir import LaunchSig
    from simt.sim.precise.program import prepare
    from simt.sim.timing import model, sass_replay
    monkeypatch.setattr(sass_mod, "available", lambda: False)
    arch = load_arch("sm_90")
    prog = prepare(row_sum.compile(LaunchSig(1, 1)))
    got = sass_replay._plan(prog, arch, model._tables(prog, arch))
    assert got.replay == "program order" and "simt[sass]" in got.why and got.groups == []


def test_regrouping_without_hoisting_changes_nothing(monkeypatch):
    """The group blocks, renamed registers and re-attached memory events replay exactly the
    program order when nothing is moved: only the hoisting changes the cycles."""
    import numpy as np
    from simt.sim.timing import model, sass_replay
    n = 64
    a = wp.array(np.ones(64 * n, np.float32))
    program, _ = _cycles(row_sum, [a, wp.zeros(64), n], 64, False)
    monkeypatch.setattr(sass_replay, "HOIST", False)
    monkeypatch.setattr(model, "SASS_SLOTS", False)     # (nor the loop's slots from its SASS: sass_slots.py)
    row_sum.clear_cache()
    try:
        grouped, on = _cycles(row_sum, [a, wp.zeros(64), n], 64, True)
    finally:
        row_sum.clear_cache()
    assert on["replay"] == "sass" and on["loops"][0]["unroll"] >= 2
    assert grouped == program


def _tiles(checked: bool):
    """A 16x16 shared-tile matmul whose tile loads sit under bounds checks (``checked``) or not."""
    @wp.kernel
    def tiles(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
        a_s = wp.shared.array(shape=(16, 16), dtype=float)
        b_s = wp.shared.array(shape=(16, 16), dtype=float)
        row, col = wp.tid()
        ty, tx = wp.thread_idx()
        n = a.shape[1]
        acc = float(0.0)
        for k0 in range(0, n, 16):
            av = float(0.0)
            bv = float(0.0)
            if wp.static(checked):
                if k0 + tx < n:
                    av = a[row, k0 + tx]
                a_s[ty, tx] = av
                if k0 + ty < n:
                    bv = b[k0 + ty, col]
                b_s[ty, tx] = bv
            else:
                a_s[ty, tx] = a[row, k0 + tx]
                b_s[ty, tx] = b[k0 + ty, col]
            wp.sync_threads()
            for kk in range(16):
                acc += a_s[ty, kk] * b_s[kk, tx]
            wp.sync_threads()
        c[row, col] = acc
    return tiles


tiles_checked, tiles_unchecked = _tiles(True), _tiles(False)


def test_loads_under_bounds_checks_issue_together_as_ptxas_predicates_them():
    """ptxas turns `if k0 + tx < n: av = a[...]` into a predicated load and issues both tiles'
    loads before the first shared store (the SASS has two @P LDGs). The replay follows: the
    checked kernel predicts about what the same kernel without checks does, where replaying
    the MIR's order (each load waited out before the next branch) costs a memory latency
    more per tile."""
    import numpy as np
    from simt.sim.timing import sass_replay
    n = 128
    rng = np.random.default_rng(5)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)

    def cycles(kernel):
        c = wp.zeros((n, n))
        r = wp.launch(kernel, (n, n), [wp.array(a), wp.array(b), c], block_dim=(16, 16), device="cpu:precise")
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)
        return r.cycles, r.details["timing_schedule"]

    unchecked, _ = cycles(tiles_unchecked)
    checked, schedule = cycles(tiles_checked)
    assert [len(p["blocks"]) for p in schedule["paths"]] == [5]
    tiles_checked.clear_cache()
    try:
        sass_replay.HOIST_BRANCHES = False
        in_order, off = cycles(tiles_checked)
    finally:
        sass_replay.HOIST_BRANCHES = True
        tiles_checked.clear_cache()
    assert off["paths"] == []
    assert abs(checked / unchecked - 1) < 0.1
    assert in_order > 1.2 * unchecked


ROWS_CU = r"""
extern "C" __global__ void row_sums(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int k = 0; k < n; ++k) s += a[(long long)i * n + k];
    out[i] = s;
}
extern "C" __global__ void other(float* x) { x[threadIdx.x] = 1.0f; }
"""


def test_imported_kernels_replay_the_sass_of_their_own_ptx():
    """An imported kernel's timing reads ptxas's SASS of the PTX it was imported from (the
    code the GPU runs), not of simt's PTX of its MIR: nvcc's row-sum loop is unrolled there
    and several loads are in flight, which the program-order replay does not have."""
    import numpy as np
    import shutil
    from simt.gpu.sass import only_entry
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")
    k = wp.from_cuda(ROWS_CU, "row_sums")
    text = k.module.text
    alone = only_entry(text, k.entry.name)
    assert ".entry row_sums" in alone and ".entry other" in text and ".entry other" not in alone
    n = 256
    a = np.random.default_rng(2).random((64, n), dtype=np.float32)

    def launch(sass_order):
        wp.set_module_options({"timing_sass": sass_order})
        try:
            out = wp.zeros(64)
            r = wp.launch(k, grid=(1,), block=(64,), inputs=[wp.array(a), out, n], device="cpu:precise")
        finally:
            wp.set_module_options({"timing_sass": True})
        np.testing.assert_allclose(out.numpy(), a.sum(axis=1), rtol=1e-4)
        return r.cycles, r.details["timing_schedule"]

    program, off = launch(False)
    replayed, on = launch(True)
    assert on["replay"] == "sass" and on["loops"][0]["unroll"] >= 2
    assert replayed < 0.7 * program


STRAIGHT_CU = r"""
extern "C" __global__ void cross5(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + n;
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);
}
extern "C" __global__ void warp_max(const float* in, float* out, int cols) {
    int row = threadIdx.x / 32, lane = threadIdx.x & 31;
    const float* p = in + (long long)row * cols;
    float m = -1e30f;
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, p[j]);
    out[threadIdx.x] = m;
}
"""


def _nvcc():
    import shutil
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")


def _launch_sass(k, inputs, threads, sass_order):
    wp.set_module_options({"timing_sass": sass_order})
    try:
        r = wp.launch(k, grid=(1,), block=(threads,), inputs=inputs, device="cpu:precise")
    finally:
        wp.set_module_options({"timing_sass": True})
    return r.cycles, r.details["timing_schedule"]


def test_loads_of_straight_line_code_issue_together():
    """ptxas issues a block's five independent loads before the first add uses one; the MIR
    adds each load's value before the next load. The replay follows the SASS: one memory
    latency per warp instead of several, and without hoisting the regrouped block replays
    exactly the program order."""
    import numpy as np
    from simt.sim.timing import sass_replay
    _nvcc()
    k = wp.from_cuda(STRAIGHT_CU, "cross5")
    n = 64
    x = np.random.default_rng(3).random(3 * n, dtype=np.float32)
    out = wp.zeros(3 * n)
    program, off = _launch_sass(k, [wp.array(x), out, n], n, False)
    hoisted, on = _launch_sass(k, [wp.array(x), out, n], n, True)
    i = np.arange(n) + n
    np.testing.assert_allclose(out.numpy()[i], np.float32(0.2) * (x[i] + x[i - 1] + x[i + 1] + x[i - n] + x[i + n]),
                               rtol=1e-6)
    assert on["replay"] == "sass" and "straight-line" in on["why"]
    assert [len(p["blocks"]) for p in on["paths"]] == [1] and on["paths"][0]["loads"] == 5
    assert hoisted < 0.8 * program           # the launch itself costs a few thousand cycles
    from simt.sim.timing import model, sass_slots
    sass_replay.HOIST = False
    sass_slots.STRAIGHT = False         # (the issue slots and pipes as without SASS: the order alone differs)
    model.SASS_PIPES = False
    try:
        k2 = wp.from_cuda(STRAIGHT_CU, "cross5")
        same, _ = _launch_sass(k2, [wp.array(x), wp.zeros(3 * n), n], n, True)
    finally:
        sass_replay.HOIST = True
        sass_slots.STRAIGHT = True
        model.SASS_PIPES = True
    assert same == program


def test_unrolled_loop_matches_nvccs_main_loop_not_its_remainder():
    """nvcc unrolls a runtime-trip-count loop by 4 in the PTX (a remainder loop, then the
    main loop, both on one source line) and ptxas unrolls the main loop again. The SASS
    loop with the most loads belongs to the MIR's main loop (4 loads an iteration), not to
    the remainder loop that these warps never run, so the replay regroups the loop the
    warps do run."""
    import numpy as np
    _nvcc()
    k = wp.from_cuda(STRAIGHT_CU, "warp_max")
    cols = 512
    a = np.random.default_rng(4).standard_normal((2, cols)).astype(np.float32)
    out = wp.zeros(64)
    program, off = _launch_sass(k, [wp.array(a), out, cols], 64, False)
    hoisted, on = _launch_sass(k, [wp.array(a), out, cols], 64, True)
    np.testing.assert_array_equal(out.numpy(), a.reshape(2, 16, 32).max(axis=1).ravel())   # lane l: max of a[row, l::32]
    fn = k.compile(frozenset({"in", "out"}))
    by_block = {ml["last"]: ml for ml in sass_mod.mir_loops(fn)}
    assert sorted(ml["loads"] for ml in by_block.values()) == [1, 4]     # remainder and main loop
    sass_loops = on["sass_loops"]
    biggest = max(sass_loops, key=lambda lp: lp["loads"])
    assert by_block[biggest["mir_loop"]]["loads"] == 4
    assert biggest["unroll"] * 4 == biggest["loads"]
    assert on["loops"] and on["loops"][0]["block"] == biggest["mir_loop"]
    assert hoisted < 0.7 * program


@wp.kernel
def masked_rows(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float), n: int,
                cut: float):
    i = wp.tid()
    w = out.shape[0]
    s = float(0.0)
    for k in range(n):
        v = a[k * w + i]
        if v > cut:                           # ptxas predicates the branch and its load
            s += v * b[k * w + i]
    out[i] = s


def _masked(cut, sass_order, hoist=True):
    import numpy as np
    from simt.sim.timing import sass_replay
    rng = np.random.default_rng(6)
    n, w = 32, 64
    a, b = rng.random(n * w, dtype=np.float32), rng.random(n * w, dtype=np.float32)
    out = wp.zeros(w)
    sass_replay.HOIST = hoist
    masked_rows.clear_cache()
    try:
        got = _cycles(masked_rows, [wp.array(a), wp.array(b), out, n, cut], w, sass_order)
    finally:
        sass_replay.HOIST = True
        masked_rows.clear_cache()
    av, bv = a.reshape(n, w), b.reshape(n, w)
    np.testing.assert_allclose(out.numpy(), np.where(av > cut, av * bv, 0).sum(axis=0), rtol=1e-5)
    return got


def test_loop_whose_body_branches_replays_unrolled_with_predicated_loads():
    """ptxas unrolls `for k: v = a[..]; if v > cut: s += v * b[..]` by 4, predicates the
    branch, and issues the four a-loads together, then the four predicated b-loads: two
    memory latencies per four iterations where the MIR's order waits out two per iteration."""
    df = wp.sass(masked_rows)
    lp = max(df.attrs["loops"], key=lambda x: x["loads"])
    body = df[(df["addr"] >= lp["start"]) & (df["addr"] <= lp["end"])]
    assert body["block"].nunique() == 1                      # no branch left inside the loop
    assert (body[body["opcode"] == "LDG"]["predicate"] != "").sum() == lp["unroll"]   # the b-loads
    program, off = _masked(0.5, False)
    hoisted, on = _masked(0.5, True)
    assert on["replay"] == "sass" and len(on["loops"]) == 1
    assert len(on["loops"][0]["blocks"]) == 3 and on["loops"][0]["unroll"] == lp["unroll"] >= 2
    assert hoisted < 0.6 * program


def test_regrouped_branchy_loop_without_hoisting_is_the_program_order(monkeypatch):
    """Every lane takes the branch (cut < 0): U iterations as one group entry, its memory
    events re-attached from the iterations the warps ran, replay exactly the program order
    when nothing moves."""
    from simt.sim.timing import model, replay_streams
    monkeypatch.setattr(model, "SASS_SLOTS", False)     # (nor the loop's slots from its SASS: sass_slots.py)
    monkeypatch.setattr(replay_streams, "PREDICATED_BRANCHES", False)   # (nor its branches' resolve time)
    program, _ = _masked(-1.0, False)
    grouped, on = _masked(-1.0, True, hoist=False)
    assert len(on["loops"]) == 1 and len(on["loops"][0]["blocks"]) == 3
    assert grouped == program


@wp.kernel
def count_kept(x: wp.array(dtype=float), out: wp.array(dtype=float), count: wp.array(dtype=int)):
    i = wp.tid()
    if x[i] > 0.5:
        slot = wp.atomic_add(count, 0, 1)     # one counter for every thread: ptxas aggregates
        out[slot] = x[i]


@wp.kernel
def count_by_ballot(x: wp.array(dtype=float), out: wp.array(dtype=float), count: wp.array(dtype=int)):
    i = wp.tid()
    keep = x[i] > 0.5
    mask = wp.ballot_sync(wp.uint32(0xFFFFFFFF), keep)
    leader = wp.bit_count((mask & (wp.uint32(0) - mask)) - wp.uint32(1))
    base = int(0)
    if mask != wp.uint32(0) and wp.lane_id() == leader:
        base = wp.atomic_add(count, 0, wp.bit_count(mask))
    base = wp.shfl_sync(wp.uint32(0xFFFFFFFF), base, leader)
    if keep:
        below = mask & ((wp.uint32(1) << wp.uint32(wp.lane_id())) - wp.uint32(1))
        out[base + wp.bit_count(below)] = x[i]


@wp.kernel
def spread_and_float(keys: wp.array(dtype=int), bins: wp.array(dtype=int), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(bins, keys[i], 1)           # an address per lane: not aggregated
    wp.atomic_add(total, 0, 1.0)              # float: not reassociated, not aggregated


def _line_of(kernel, text):
    import inspect
    lines, first = inspect.getsourcelines(kernel.py_func)
    return first + next(k for k, s in enumerate(lines) if text in s)


def test_ptxas_aggregates_atomics_on_one_counter_per_warp():
    """An integer atomic at a uniform address becomes a vote, a leader and one atomic a warp
    in the SASS; an atomic at a per-lane address, or a float one, does not."""
    assert sass_mod.warp_aggregated_lines(wp.sass(count_kept)) == {_line_of(count_kept, "wp.atomic_add")}
    assert sass_mod.warp_aggregated_lines(wp.sass(spread_and_float)) == set()


def test_an_aggregated_atomic_costs_what_aggregating_by_hand_does():
    """The per-thread counter and the hand-aggregated one (a ballot, one atomic a warp and a
    shuffle) send the same atomics to the L2 on the GPU, so they must time alike; without
    the SASS (the fallback) every lane's atomic is timed and the per-thread one is slower."""
    n = 132 * 256 * 16
    x = np.random.default_rng(0).random(n).astype(np.float32)

    def run(kernel):
        return wp.launch(kernel, n, [wp.array(x), wp.zeros(n), wp.zeros(1, dtype=int)], block_dim=256,
                         device="cpu:precise").cycles
    plain, by_hand = run(count_kept), run(count_by_ballot)
    assert plain == pytest.approx(by_hand, rel=0.25)
    wp.set_module_options({"timing_sass": False})
    try:
        plain_fallback = run(count_kept)
    finally:
        wp.set_module_options({"timing_sass": True})
    assert plain_fallback > 3 * plain


def test_a_completely_unrolled_loop_whose_loads_ptxas_dropped_replays_in_order():
    """RSBench at 0 K (set 14): the Faddeeva series' loop, unrolled by ptxas, reads ``an[n - 1]``;
    the SASS keeps instructions of that line but no load (the kernel at 0 K never calls the
    series). The replay groups nothing there (it used to index the first of no
    loads and fail the launch), and the launch gives the fast engine's result."""
    import sys
    from pathlib import Path
    import numpy as np
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from timing.blind14 import cases
    from timing.cases import instantiate
    launch = next(x for x in cases.LAUNCHES if x.name == "rs_0k@16K")
    outs = []
    for device in ("cpu", "cpu:precise"):
        inputs, _, block = instantiate(launch, device, 0)
        r = wp.launch(launch.kernel, dim=256, inputs=inputs, block_dim=block, device=device)
        outs.append([a.numpy().copy() for a in inputs if isinstance(a, wp.array)])
    assert r.cycles > 0
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


TILE_ROWS = 64


@wp.kernel
def fill_shared(src: wp.array(dtype=float), out: wp.array(dtype=float)):
    """A block copies its 64 x 128 tile of ``src`` into shared memory, a row an iteration."""
    tile = wp.shared.array(shape=(TILE_ROWS * 128,), dtype=float)
    b = wp.block_idx()
    t = wp.thread_idx()
    for r in range(TILE_ROWS):
        tile[r * 128 + t] = src[b * TILE_ROWS * 128 + r * 128 + t]
    wp.sync_threads()
    out[b * 128 + t] = tile[t * 3 % 128]


@wp.kernel
def sum_rows(src: wp.array(dtype=float), out: wp.array(dtype=float)):
    """The same loads summed in a register: no store between them."""
    b = wp.block_idx()
    t = wp.thread_idx()
    s = float(0.0)
    for r in range(TILE_ROWS):
        s += src[b * TILE_ROWS * 128 + r * 128 + t]
    out[b * 128 + t] = s


def test_global_loads_pass_shared_stores_as_ptxas_schedules_them(monkeypatch):
    """ptxas issues a fill loop's global loads ahead of the shared stores that take them
    (different memory spaces cannot alias), so copying a tile into shared memory costs about
    what summing the same loads does; a replay whose loads wait for every earlier store has
    one load in flight a warp and costs several times as much."""
    from simt.sim.timing import sass_replay
    blocks = 8
    src = wp.array(np.ones(blocks * TILE_ROWS * 128, np.float32))

    def cycles(kernel):
        kernel.clear_cache()
        return wp.launch(kernel, dim=blocks * 128, inputs=[src, wp.zeros(blocks * 128)], block_dim=128,
                         device="cpu:precise").cycles
    fill, summed = cycles(fill_shared), cycles(sum_rows)
    assert fill < 1.5 * summed
    monkeypatch.setattr(sass_replay, "BY_SPACE", False)
    assert cycles(fill_shared) > 2 * fill


SK = 96


@wp.kernel
def row_dot(k: wp.array(dtype=float), v: wp.array(dtype=float), out: wp.array(dtype=float)):
    """A thread's row of a shared matrix (rows SK + 1 words apart) against a shared vector:
    ptxas unrolls the constant loop completely and loads ``vs[j]`` four at a time (LDS.128)."""
    ks = wp.shared.array(shape=(SK * (SK + 1),), dtype=float)
    vs = wp.shared.array(shape=(SK,), dtype=float)
    t = wp.thread_idx()
    for r in range(SK):
        ks[r * (SK + 1) + t] = k[r * SK + t]
    vs[t] = v[t]
    wp.sync_threads()
    s = float(0.0)
    for j in range(SK):
        s += ks[t * (SK + 1) + j] * vs[j]
    out[t] = s


def test_vector_loads_count_the_iterations_they_load():
    """The unroll factor of a loop counts the source iterations its SASS loads cover: an
    LDS.128 holds four iterations' ``vs[j]``. ptxas unrolled the 96-trip loop completely,
    so its group is 96 iterations (counting LDS instructions says 60)."""
    df = wp.sass(row_dot)
    lds = df[(df["opcode"] == "LDS") & (df["line"] == df["line"][df["opcode"] == "LDS"].max())]
    assert (lds["modifiers"] == "128").any()            # (the premise: ptxas vectorised vs[j])
    k = np.ones(SK * SK, np.float32)
    out = wp.zeros(SK)
    r = wp.launch(row_dot, dim=SK, inputs=[wp.array(k), wp.array(np.full(SK, 2.0, np.float32)), out],
                  block_dim=SK, device="cpu:precise")
    assert np.allclose(out.numpy(), 2.0 * SK)
    unrolls = sorted(lp["unroll"] for lp in r.details["timing_schedule"]["loops"])
    assert unrolls == [SK, SK]                        # the fill and the dot product, each whole


@wp.kernel
def row_scaled(k: wp.array(dtype=float), v: wp.array(dtype=float), out: wp.array(dtype=float)):
    """row_dot without the shared vector: the same row loads, times a register."""
    ks = wp.shared.array(shape=(SK * (SK + 1),), dtype=float)
    t = wp.thread_idx()
    for r in range(SK):
        ks[r * (SK + 1) + t] = k[r * SK + t]
    c = v[t]
    wp.sync_threads()
    s = float(0.0)
    for j in range(SK):
        s += ks[t * (SK + 1) + j] * c
    out[t] = s


def test_a_vector_load_all_lanes_read_costs_two_wavefronts(monkeypatch):
    """``vs[j]`` read by every lane, four iterations an LDS.128: the hardware's pair rule
    makes such a load two wavefronts (REFERENCE.md), half a wavefront an iteration, where
    four scalar loads take four. The L1's busy time of row_dot over row_scaled's (the same
    but for vs[j]) is that, a warp an iteration."""
    from simt.arch import load_arch
    from simt.sim.timing import model, sass_replay
    k = wp.array(np.ones(SK * SK, np.float32))
    v = wp.array(np.ones(SK, np.float32))
    t = model.timing_data(load_arch("sm_90"))
    n_sm = load_arch("sm_90").sm_count

    def busy(kernel):                          # the L1 data stage's busy cycles, all SMs
        kernel.clear_cache()
        r = wp.launch(kernel, dim=SK, inputs=[k, v, wp.zeros(SK)], block_dim=SK, device="cpu:precise")
        span = r.cycles - (t["launch_floor_cycles"] - t["cta_launch_cycles"])
        return r.details["units"]["shared"] / 100 * span * n_sm
    warps = SK // 32
    per_copy = (busy(row_dot) - busy(row_scaled)) / (warps * SK)
    assert 0.4 < per_copy < 0.6
    monkeypatch.setattr(sass_replay, "VECTOR_LOADS", False)
    per_copy = (busy(row_dot) - busy(row_scaled)) / (warps * SK)
    assert per_copy > 0.9                             # four scalar loads: one each

