"""The timing model and memory counters of cpu:precise, through real kernels.

The shared-memory and global-memory tables are the measured H200 figures in REFERENCE.md:
one warp, one load (or store) instruction, index = lane * S. The timing tests check
behaviour: orderings, monotonicity, the limiter named in clear-cut cases, contention where
it must appear. Accuracy against the hardware is benchmarks/timing/validate_timing.py's job.
"""
import copy
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import simt as wp
from simt import suite
from timing_kernels import streaming

SH = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{}.sum"
CF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum"


def shared_load_kernel(dtype, stride):
    @wp.kernel
    def k(out: wp.array(dtype=dtype)):
        s = wp.shared.array(shape=(32 * 40,), dtype=dtype)
        lane = wp.lane_id()
        out[lane] = s[lane * stride]
    return k


def shared_store_kernel(stride):
    @wp.kernel
    def k(out: wp.array(dtype=float)):
        s = wp.shared.array(shape=(32 * 40,), dtype=float)
        lane = wp.lane_id()
        s[lane * stride] = 1.0
    return k


@pytest.mark.parametrize("dtype,stride,wavefronts,conflicts", [
    (float, 1, 1, 0), (float, 3, 1, 0), (float, 33, 1, 0), (float, 2, 2, 1), (float, 4, 4, 3),
    (float, 8, 8, 7), (float, 16, 16, 15), (float, 32, 32, 31), (float, 0, 1, 0),
    (wp.float64, 1, 2, 0), (wp.float64, 2, 4, 2), (wp.float64, 16, 32, 30),
    (wp.vec4, 1, 4, 0), (wp.vec4, 2, 8, 4), (wp.vec4, 8, 32, 28),
])
def test_shared_loads_match_the_measured_h200_table(dtype, stride, wavefronts, conflicts):
    out = wp.zeros(32, dtype=dtype)
    m = wp.launch(shared_load_kernel(dtype, stride), 32, [out], block_dim=32).metrics
    assert (m[SH.format("ld")], m[CF.format("ld")]) == (wavefronts, conflicts)


@pytest.mark.parametrize("stride,wavefronts,conflicts", [(1, 1, 0), (2, 2, 1), (32, 32, 31)])
def test_shared_stores_match_the_measured_h200_table(stride, wavefronts, conflicts):
    m = wp.launch(shared_store_kernel(stride), 32, [wp.zeros(32)], block_dim=32).metrics
    assert (m[SH.format("st")], m[CF.format("st")]) == (wavefronts, conflicts)


def global_load_kernel(dtype, stride, offset):
    @wp.kernel
    def k(a: wp.array(dtype=dtype), out: wp.array(dtype=dtype)):
        lane = wp.lane_id()
        out[lane] = a[lane * stride + offset]
    return k


@pytest.mark.parametrize("dtype,stride,offset,sectors", [
    (float, 1, 0, 4), (float, 2, 0, 8), (float, 8, 0, 32), (float, 1, 1, 5), (float, 0, 0, 1),
    (wp.float64, 1, 0, 8), (wp.vec4, 1, 0, 16),
])
def test_global_sectors_match_the_measured_h200_table(dtype, stride, offset, sectors):
    a, out = wp.zeros(400, dtype=dtype), wp.zeros(32, dtype=dtype)
    m = wp.launch(global_load_kernel(dtype, stride, offset), 32, [a, out], block_dim=32).metrics
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 1
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == sectors


def run(name, size="small"):
    return suite.run_case(suite.get(name), size, device="cpu:precise").result


def test_padding_removes_transpose_bank_conflicts_and_cycles():
    plain, padded = run("transpose_tile"), run("transpose_tile_padded")
    assert plain.metrics[CF.format("ld")] > 0 and padded.metrics[CF.format("ld")] == 0
    assert plain.cycles > padded.cycles
    # the conflicting loads wait on the shared pipe: short-scoreboard stalls, charged to them
    assert plain.stalls["short_scoreboard"] > padded.stalls["short_scoreboard"]


def _module(relpath):
    """A module of the repository outside the package (an example, the benchmarks' kernels),
    so the tests check the kernels shown there."""
    path = Path(__file__).resolve().parent.parent / relpath
    spec = importlib.util.spec_from_file_location("simt_" + path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


transpose = _module("examples/shared_layout.py").transpose      # (layout, pad) -> the tile transpose
nbody = _module("benchmarks/timing/kernels.py").nbody            # the held-out n-body kernel


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_shared_layout_and_padding_change_conflicts_not_results(device):
    a = np.random.default_rng(0).random((128, 128), dtype=np.float32)
    conflicts = {}
    for layout, pad in (("row_major", 0), ("column_major", 0), ("row_major", 1), ("column_major", 1)):
        dst = wp.zeros((128, 128))
        r = wp.launch(transpose(layout, pad), dim=(32, 128), inputs=[wp.array(a), dst],
                      block_dim=(8, 32), device=device)
        assert np.array_equal(dst.numpy(), a.T)
        if device == "cpu:precise":
            conflicts[layout, pad] = (r.metrics[CF.format("ld")], r.metrics[CF.format("st")], r.cycles)
    if conflicts:
        assert conflicts["row_major", 0][0] > 0 and conflicts["row_major", 0][1] == 0     # column reads
        assert conflicts["column_major", 0][0] == 0 and conflicts["column_major", 0][1] > 0
        for layout in ("row_major", "column_major"):
            assert conflicts[layout, 1][:2] == (0, 0)
            assert conflicts[layout, 1][2] < conflicts[layout, 0][2]


def test_bad_shared_layout_or_pad_is_a_compile_error():
    @wp.kernel
    def k(out: wp.array(dtype=float)):
        s = wp.shared.array(shape=(32,), dtype=float, pad=-1)
        out[0] = s[0]
    with pytest.raises(wp.CompileError, match="pad must be"):
        wp.launch(k, 1, [wp.zeros(1)])


def test_per_line_table_adds_up_to_the_totals():
    r = run("matmul_tiled")
    lines, m = r.lines, r.metrics
    assert lines["inst_executed"].sum() == m["smsp__inst_executed.sum"]
    assert lines["thread_inst_executed"].sum() == m["smsp__thread_inst_executed.sum"]
    assert lines["shared_wavefronts"].sum() == (m[SH.format("ld")] + m[SH.format("st")]
                                                + m[SH.format("atom")])
    assert lines["global_sectors"].sum() == sum(
        m[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{k}.sum"] for k in ("ld", "st", "atom"))
    for name, total in r.stalls.items():
        assert lines[f"stall_{name}"].sum() == pytest.approx(total)


def test_stalls_are_charged_to_the_line_that_causes_them():
    @wp.kernel
    def chase(next_index: wp.array(dtype=int), out: wp.array(dtype=int)):
        i = wp.tid()
        j = i * 32
        for k in range(64):
            j = next_index[j]                 # every load waits on the one before: DRAM latency
        out[i] = j
    ring = ((np.arange(1 << 16) * 32 + 32 * 4099) % (1 << 21)).astype(np.int32)
    ring_full = np.zeros(1 << 21, np.int32)
    ring_full[np.arange(1 << 16) * 32] = ring
    r = wp.launch(chase, 32, [wp.array(ring_full), wp.zeros(32, dtype=int)], block_dim=32)
    lines = r.lines.set_index("line")
    load_line = lines["stall_long_scoreboard"].idxmax()
    assert "next_index[j]" in lines.loc[load_line, "source"]
    assert lines.loc[load_line, "stall_long_scoreboard"] > 0.9 * r.stalls["long_scoreboard"]


def test_strided_copy_moves_more_dram_bytes_and_takes_longer():
    n = 1 << 18
    dst = wp.zeros(n)
    unit = wp.launch(streaming(n), n, [wp.zeros(n), dst, 1], block_dim=256)
    strided = wp.launch(streaming(n), n, [wp.zeros(n * 32), dst, 32], block_dim=256)
    # one 4-byte word per 128-byte line: DRAM moves whole 64-byte bursts
    assert strided.metrics["dram__bytes_read.sum"] >= 8 * unit.metrics["dram__bytes_read.sum"]
    assert strided.cycles > 2 * unit.cycles
    assert strided.details["bottleneck"]["limiter"] in ("dram", "l1", "l2")


def test_cycles_grow_with_the_grid_once_it_fills_the_gpu():
    n1 = 132 * 8 * 256            # one wave of 256-thread blocks
    cycles = [wp.launch(streaming(n), n, [wp.zeros(n), wp.zeros(n), 1], block_dim=256).cycles
              for n in (n1, 2 * n1, 4 * n1)]
    assert cycles[0] < cycles[1] < cycles[2]
    assert cycles[2] - cycles[1] > 1.5 * (cycles[1] - cycles[0])      # about linear in waves


def test_a_tiny_launch_is_launch_bound():
    r = wp.launch(streaming(32), 32, [wp.zeros(32), wp.zeros(32), 1], block_dim=32)
    assert r.details["bottleneck"]["limiter"] == "launch"


def test_atomics_to_one_address_serialise_and_are_the_limiter():
    # the address comes from memory (all zeros), so ptxas cannot aggregate the warp's lanes
    # into one atomic as it does for a constant address (test_sass.py): every lane's reaches
    # the L2
    @wp.kernel
    def count(keys: wp.array(dtype=int), total: wp.array(dtype=int)):
        wp.atomic_add(total, keys[wp.tid()], 1)

    @wp.kernel
    def spread(keys: wp.array(dtype=int), total: wp.array(dtype=int)):
        i = wp.tid()
        wp.atomic_add(total, i + keys[i], 1)

    n = 1 << 16
    zeros = wp.zeros(2 * n, dtype=int)
    one, many = wp.zeros(1, dtype=int), wp.zeros(n, dtype=int)
    hot = wp.launch(count, n, [zeros, one])
    cold = wp.launch(spread, n, [zeros, many])
    assert one.numpy()[0] == n and (many.numpy() == 1).all()
    assert hot.cycles > 5 * cold.cycles
    assert hot.details["bottleneck"]["limiter"] == "atomics"
    # twice the lanes on the one address: about twice the cycles beyond the launch floor
    two = wp.launch(count, 2 * n, [zeros, wp.zeros(1, dtype=int)])
    extra = two.cycles - hot.cycles
    assert 0.8 * (hot.cycles - cold.cycles) < extra < 1.2 * hot.cycles


@wp.kernel
def _add_at(keys: wp.array(dtype=int), fbins: wp.array(dtype=float), ibins: wp.array(dtype=int), as_float: int):
    i = wp.tid()
    if as_float == 1:
        wp.atomic_add(fbins, keys[i], 1.0)
    else:
        wp.atomic_add(ibins, keys[i], 1)


def test_float_atomics_cost_more_than_integer_ones_only_where_they_wait_on_a_word():
    """A float add at the L2 must have the previous result on its word before the next one
    (micro.cu: 3.5 cycles an update to one address against 1.4 for integers), but updates to
    different words pipeline as integer ones do. So float atomics over many addresses time
    like integer ones, and on one hot address (or a few) they are much slower."""
    n = 1 << 18

    def run(keys, as_float):
        k = wp.array(keys.astype(np.int32), dtype=int)
        r = wp.launch(_add_at, n, [k, wp.zeros(n), wp.zeros(n, dtype=int), as_float], block_dim=256)
        assert r.details["bottleneck"]["limiter"] == "atomics"
        return r.cycles
    rng = np.random.default_rng(0)
    spread = rng.permutation(n) % (n // 2)                 # two lanes a word, far apart in time
    assert run(spread, 1) == pytest.approx(run(spread, 0), rel=0.15)
    hot = rng.integers(0, 4, n)                            # four words: every update waits
    assert run(hot, 1) > 1.8 * run(hot, 0)


def test_shared_atomics_on_one_address_take_turns():
    # each round waits for its atomic's old value, so the lanes' turns are on the critical
    # path (with the results unused they overlap the loop, as on the GPU)
    @wp.kernel
    def bins(out: wp.array(dtype=int), olds: wp.array(dtype=int), k: int):
        s = wp.shared.array(shape=(32,), dtype=int)
        lane = wp.lane_id()
        if lane < 32:
            s[lane] = 0
        wp.sync_threads()
        seen = int(0)
        for r in range(16):
            seen += wp.atomic_add(s, lane % k, 1)
        wp.sync_threads()
        olds[lane] = seen
        if lane < k:
            out[lane] = s[lane]
    out, olds = wp.zeros(32, dtype=int), wp.zeros(32, dtype=int)
    t32 = wp.launch(bins, 32, [out, olds, 32], block_dim=32).cycles
    t1 = wp.launch(bins, 32, [out, olds, 1], block_dim=32).cycles
    assert out.numpy()[0] == 16 * 32 and olds.numpy().sum() == np.arange(16 * 32).sum()
    assert t1 > t32 + 16 * 31


def spin_kernel():
    @wp.kernel
    def spin(out: wp.array(dtype=float), n: int):
        i = wp.tid()
        x = float(i)
        for k in range(n):
            x = x * 0.5 + 1.0
        out[i] = x
    return spin


def test_warps_on_one_scheduler_contend_for_issue():
    spin = spin_kernel()
    out = wp.zeros(1024)
    alone = wp.launch(spin, 128, [out, 200], block_dim=128)     # one warp per scheduler
    crowded = wp.launch(spin, 1024, [out, 200], block_dim=1024)  # eight per scheduler, one SM
    assert alone.stalls["not_selected"] == 0
    assert crowded.stalls["not_selected"] > 0
    assert alone.cycles < crowded.cycles < 8 * alone.cycles


def test_fewer_schedulers_per_sm_issue_an_issue_bound_kernel_slower(monkeypatch):
    """The machine takes the scheduler count from the architecture (schedulers_per_sm): one
    block of 32 warps looping over arithmetic is issue-bound on an SM's schedulers, so an SM
    with fewer of them takes longer."""
    from simt.arch import Arch, load_arch
    from simt.sim.precise import engine

    schedulers = {"n": 4}

    def with_schedulers(name):
        data = copy.deepcopy(load_arch(name).data)
        data["schedulers_per_sm"] = schedulers["n"]
        return Arch(name, data)
    monkeypatch.setattr(engine, "load_arch", with_schedulers)
    spin = spin_kernel()
    out = wp.zeros(1024)

    def launch(n):
        schedulers["n"] = n
        return wp.launch(spin, 1024, [out, 100], block_dim=1024)
    four, two, one = launch(4), launch(2), launch(1)
    assert four.cycles < two.cycles < one.cycles
    # the same instructions, fewer places to issue them: warps wait longer for their turn
    issued = four.metrics["smsp__inst_issued.sum"]
    assert two.metrics["smsp__inst_issued.sum"] == pytest.approx(issued, rel=1e-9)
    assert one.metrics["smsp__inst_issued.sum"] == pytest.approx(issued, rel=1e-9)
    assert four.stalls["not_selected"] < two.stalls["not_selected"] < one.stalls["not_selected"]


def test_more_work_takes_more_cycles_and_arch_matters():
    spin = spin_kernel()
    out = wp.zeros(256)
    short = wp.launch(spin, 256, [out, 10]).cycles
    long = wp.launch(spin, 256, [out, 100]).cycles
    longer = wp.launch(spin, 256, [out, 200]).cycles
    assert short < long < longer
    # a dependent chain: cycles grow linearly with the iterations
    assert longer - long == pytest.approx((long - short) * 100 / 90, rel=0.25)
    assert wp.launch(spin, 256, [out, 100], arch="sm_80").cycles != long


def test_compute_bound_kernel_names_a_pipe_or_issue():
    spin = spin_kernel()
    n = 132 * 2048
    r = wp.launch(spin, n, [wp.zeros(n), 64], block_dim=256)
    assert r.details["bottleneck"]["limiter"] in ("issue", "fma", "alu")


def test_barriers_align_warps_and_are_named():
    @wp.kernel
    def steps(out: wp.array(dtype=int), n: int):
        v = wp.thread_idx()
        for k in range(n):
            wp.sync_threads()
            v = v + k
        out[wp.tid()] = v
    r = wp.launch(steps, 1024, [wp.zeros(1024, dtype=int), 200], block_dim=1024)
    assert r.stalls["barrier"] > 0
    assert r.details["bottleneck"]["limiter"] == "barriers"


def test_low_occupancy_hides_less_latency():
    def make(size):
        @wp.kernel
        def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
            stage = wp.shared.array(shape=(size,), dtype=float)
            t = wp.thread_idx()
            i = wp.tid()
            stage[t] = x[i]
            wp.sync_threads()
            y[i] = stage[t] * 2.0
        return scale
    n = 132 * 2048 * 2
    full = wp.launch(make(256), n, [wp.zeros(n), wp.zeros(n)], block_dim=256)
    low = wp.launch(make(12288), n, [wp.zeros(n), wp.zeros(n)], block_dim=256)
    assert low.details["occupancy"]["limiter"] == "shared"
    assert low.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] < \
        full.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"]
    assert low.cycles > full.cycles


def test_clock_reads_the_cycle_counter():
    """One warp, a dependent chain between two clock() reads: the reads bracket part of the
    launch, so they differ by less than its cycles, and each extra iteration adds to both
    the same: the launch's extra cycles are the extra cycles between the reads."""
    @wp.kernel
    def timed(out: wp.array(dtype=wp.int64), n: int):
        i = wp.tid()
        t0 = wp.clock()
        x = float(i)
        for k in range(n):
            x = wp.sqrt(x + 1.0)
        t1 = wp.clock()
        out[i] = t1 - t0 + wp.int64(x * 0.0)
    between, cycles = {}, {}
    for n in (20, 60):
        out = wp.zeros(32, dtype=wp.int64)
        cycles[n] = wp.launch(timed, 32, [out, n], block_dim=32).cycles
        between[n] = out.numpy()
        assert (between[n] == between[n][0]).all()      # the warp's lanes read one clock
        assert 0 < between[n][0] < cycles[n]
    assert between[60][0] - between[20][0] == pytest.approx(cycles[60] - cycles[20], rel=0.1)


def test_metrics_follow_nsight_compute_names_and_ranges():
    from simt.sim.timing.model import LIMITERS, UNITS
    r = run("block_sum_shared", "large")
    m = r.metrics
    # every input sector is read once, so the L2 cannot hit on most of them (a cold cache)
    assert m["lts__t_sector_hit_rate.pct"] < 50
    # the warps resident on average cannot exceed what fits on an SM
    assert 0 < m["sm__warps_active.avg.pct_of_peak_sustained_active"] \
        <= m["sm__maximum_warps_per_active_cycle_pct"]
    # every input byte comes from DRAM once: reads at least the input, at most its 64-byte bursts
    n_bytes = 4 * suite.get("block_sum_shared").sizes["large"]      # float32 inputs
    assert n_bytes <= m["dram__bytes_read.sum"] <= 2 * n_bytes
    assert m["gpu__time_duration.sum"] > 0 and m["sm__cycles_elapsed.max"] > m["sm__cycles_active.avg"]
    # the speed-of-light reading covers every unit the model names, and a unit it names as the
    # limiter is the busiest one
    b = r.bottleneck
    assert sorted(b["units"]) == sorted(UNITS)
    # LIMITERS: the units, then the launch floor and what warps wait on
    assert b["limiter"] in LIMITERS and set(UNITS) < set(LIMITERS)
    if b["limiter"] in UNITS:
        assert b["pct_of_peak"] == max(b["units"].values()) == b["units"][b["limiter"]]


@wp.kernel
def _conflicting_loads(out: wp.array(dtype=float), n: int):
    s = wp.shared.array(shape=(32 * 32,), dtype=float)
    lane = wp.lane_id()
    x = float(0.0)
    for k in range(n):
        x += s[lane * 32]           # 32 lanes in one bank: 32 wavefronts a load
    out[wp.tid()] = x


def test_each_clear_cut_limiter_is_named():
    """A loop of 32-way conflicting shared loads on every SM is shared-bound; a dependent
    chain with one warp per SM (blocks of 32 threads could fill half of it) hides no
    latency: occupancy."""
    spin = spin_kernel()
    n = 132 * 256
    shared = wp.launch(_conflicting_loads, n, [wp.zeros(n), 32], block_dim=256).bottleneck
    assert shared["limiter"] == "shared", shared["why"]
    n = 132 * 32
    lonely = wp.launch(spin, n, [wp.zeros(n), 2000], block_dim=32).bottleneck
    assert lonely["limiter"] == "occupancy", lonely["why"]
    tiny = wp.launch(streaming(32), 32, [wp.zeros(32), wp.zeros(32), 1], block_dim=32).bottleneck
    assert tiny["limiter"] == "launch"
    for b in (shared, lonely, tiny):        # it prints as plain numbers, not numpy reprs
        assert "np." not in repr(b), repr(b)


def test_issued_sass_estimate_counts_every_warp_and_iteration():
    """smsp__inst_issued.sum (the model's SASS estimate) is a count of what the warps ran:
    twice the blocks issue exactly twice as much, and each extra loop iteration issues the
    same extra amount per warp, whatever the scheduling."""
    spin = spin_kernel()
    out = wp.zeros(2048)
    issued = {(n, k): wp.launch(spin, n, [out, k], block_dim=256).metrics["smsp__inst_issued.sum"]
              for n in (256, 512) for k in (10, 20, 30)}
    for k in (10, 20, 30):
        assert issued[(512, k)] == 2 * issued[(256, k)]
    step = issued[(256, 20)] - issued[(256, 10)]
    assert step > 0 and issued[(256, 30)] - issued[(256, 20)] == pytest.approx(step)


def test_writes_cost_l2_throughput_even_when_the_l2_keeps_them():
    """On the H200 a copy of a few MB takes about its read time plus its write time although
    every written byte stays in the 50 MB L2 (micro.cu: stream_copy against stream_read at
    4-16 MB, 1.2-1.6x): the data written into the L2, fills and stores, shares one path. A
    model where stores only queue among themselves gives the two the same cycles."""
    @wp.kernel
    def read4(src: wp.array(dtype=wp.vec4), n: int, out: wp.array(dtype=float)):
        t = wp.tid()
        acc = wp.vec4(0.0, 0.0, 0.0, 0.0)
        k = t
        while k < n:
            acc = acc + src[k]
            k = k + wp.grid_dim() * wp.block_dim()
        s = acc[0] + acc[1] + acc[2] + acc[3]
        if s == 1234.5:                       # never: the read stream stores nothing
            out[t] = s

    @wp.kernel
    def copy4(src: wp.array(dtype=wp.vec4), dst: wp.array(dtype=wp.vec4), n: int):
        t = wp.tid()
        k = t
        while k < n:
            dst[k] = src[k]
            k = k + wp.grid_dim() * wp.block_dim()

    n = (4 << 20) // 16                       # 4 MB of vec4
    threads = 132 * 8 * 256                   # enough loads in flight to stream
    src = wp.zeros(n, dtype=wp.vec4)
    read = wp.launch(read4, threads, [src, n, wp.zeros(threads)], block_dim=256)
    copy = wp.launch(copy4, threads, [src, wp.zeros(n, dtype=wp.vec4), n], block_dim=256)
    assert copy.metrics["dram__bytes_write.sum"] < 0.1 * 16 * n       # the L2 keeps the copy
    assert copy.cycles > 1.05 * read.cycles                           # the H200: 1.22x


def test_a_line_occupies_its_atomic_unit_however_few_lanes_it_carries():
    """The H200 (micro.cu red_32_addresses, micro2.cu red_region): reductions from every warp
    onto 32 lines, one lane a line, take longer per lane operation than reductions onto 8 words
    of a single line, 4 lanes a word, although the first spread over 8 atomic units and the
    second use one (0.19 against 0.16 cycles per lane operation)."""
    @wp.kernel
    def lines(p: wp.array(dtype=int), n: int):
        a = (wp.tid() % 32) * 32                 # 32 lines, 128 bytes apart
        for i in range(n):
            wp.atomic_add(p, a, 1)

    @wp.kernel
    def words(p: wp.array(dtype=int), n: int):
        a = wp.lane_id() % 8                     # 8 words of one sector
        for i in range(n):
            wp.atomic_add(p, a, 1)

    threads = 132 * 4 * 256
    spread = wp.launch(lines, threads, [wp.zeros(1024, dtype=int), 2], block_dim=256)
    deep = wp.launch(words, threads, [wp.zeros(1024, dtype=int), 2], block_dim=256)
    assert spread.details["bottleneck"]["limiter"] == deep.details["bottleneck"]["limiter"] == "atomics"
    assert spread.cycles > 1.05 * deep.cycles


def test_a_read_waits_longer_behind_writes_than_behind_reads(monkeypatch):
    """The H200 (micro8.cu against micro5.cu): a DRAM pointer chase slows down more while
    other blocks copy than while they only read, at the same DRAM bytes a cycle (16 blocks
    streaming about 300 bytes a cycle: 741 cycles a step beside a copy, 658 beside a read).
    A model whose DRAM queueing counts only reads gives the two about the same time. The L2
    is shrunk so that a small test's writes reach DRAM."""
    from simt.arch import Arch, load_arch
    from simt.sim.precise import engine

    def small_l2(name):
        arch = load_arch(name)
        data = copy.deepcopy(arch.data)
        data["timing"]["l2_bytes"] = 256 << 10
        data["timing"]["l2_dirty_bytes"] = 64 << 10
        return Arch(name, data)
    monkeypatch.setattr(engine, "load_arch", small_l2)

    @wp.kernel
    def chase_beside(ring: wp.array(dtype=int), steps: int, data: wp.array(dtype=float), rounds: int,
                     write: int, out: wp.array(dtype=int)):
        b = wp.block_idx()
        t = wp.thread_idx()
        if b == 0:
            j = int(0)
            if t == 0:
                for i in range(steps):
                    j = ring[j]
            out[t] = j
        else:
            s = (wp.grid_dim() - 1) * wp.block_dim()
            k = (b - 1) * wp.block_dim() + t
            acc = float(0.0)
            for i in range(rounds):               # four lines in flight a warp
                v0 = data[k]
                v1 = data[k + s]
                v2 = data[k + 2 * s]
                v3 = data[k + 3 * s]
                if write == 1:
                    data[k] = v0 + 1.0
                    data[k + s] = v1 + 1.0
                    data[k + 2 * s] = v2 + 1.0
                    data[k + 3 * s] = v3 + 1.0
                else:
                    acc = acc + (v0 + v1) + (v2 + v3)
                k = k + 4 * s
            if acc == -1.0:
                out[0] = 1

    lines = 1 << 14
    order = np.random.default_rng(3).permutation(lines - 1) + 1
    ring = np.zeros(lines * 32, np.int32)
    cycle = np.concatenate(([0], order, [0]))
    ring[cycle[:-1] * 32] = cycle[1:] * 32          # one hop a 128-byte line, in random order
    blocks, rounds = 131, 32                  # the chase on one SM, streams on the others
    data = wp.zeros(blocks * 256 * 4 * rounds)

    def chase_cycles(write):
        r = wp.launch(chase_beside, (blocks + 1) * 256, [wp.array(ring, dtype=int), 30, data, rounds, write,
                                                         wp.zeros(256, dtype=int)], block_dim=256)
        assert r.metrics["dram__bytes_write.sum" if write else "dram__bytes_read.sum"] > 0
        blk = r.details["blocks"]
        return blk["end"][0] - blk["start"][0]

    assert chase_cycles(write=1) > 1.05 * chase_cycles(write=0)     # the model: 1.13x


def test_a_warp_waits_for_the_slowest_of_all_its_loads_in_flight():
    """The H200 (micro7.cu, one block of 256 a SM reading 69 MB from DRAM): four independent
    one-line loads a step take longer than one load of four lines (float4), 1.11x, although
    both keep four lines a warp in flight: the warp waits for the slowest fetch of all its
    loads. A model that gives each load its own latency makes the four loads the faster."""
    @wp.kernel
    def four_loads(src: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
        i = wp.tid()
        s = wp.grid_dim() * wp.block_dim()
        acc = float(0.0)
        while i < n:
            acc = acc + ((src[i] + src[i + s]) + (src[i + 2 * s] + src[i + 3 * s]))
            i = i + 4 * s
        out[wp.tid()] = acc

    @wp.kernel
    def one_float4(src: wp.array(dtype=wp.vec4), out: wp.array(dtype=float), n: int):
        i = wp.tid()
        acc = float(0.0)
        while i < n:
            v = src[i]
            acc = acc + ((v[0] + v[1]) + (v[2] + v[3]))
            i = i + wp.grid_dim() * wp.block_dim()
        out[wp.tid()] = acc

    threads = 132 * 256
    n = threads * 4 * 8                                  # 8 steps of four lines a warp
    x = np.ones(n, np.float32)
    scalar = wp.launch(four_loads, threads, [wp.array(x), wp.zeros(threads), n], block_dim=256)
    vector = wp.launch(one_float4, threads, [wp.array(x.reshape(-1, 4), dtype=wp.vec4), wp.zeros(threads), n // 4],
                       block_dim=256)
    assert scalar.metrics["dram__bytes_read.sum"] == vector.metrics["dram__bytes_read.sum"]
    assert scalar.cycles > vector.cycles


def test_warps_that_hit_a_line_still_being_fetched_wait_for_it():
    """The H200 (benchmarks/timing/nbody_parts.py): four warps of a block running n-body's
    loop over the same pos[j] take 0.85-0.87x the cycles per iteration of one warp alone, not much
    less: a warp whose load finds the line another warp's miss is still bringing in waits for
    that data. A model that lets it hit at once makes the four warps 0.65x."""
    pos = np.random.default_rng(7).random((256, 3), dtype=np.float32)

    def per_iteration(warps):
        cyc = [wp.launch(nbody, 32 * warps, [wp.array(pos, dtype=wp.vec3), wp.zeros(128, dtype=wp.vec3), n,
                                             0.01], block_dim=32 * warps).cycles for n in (64, 256)]
        return (cyc[1] - cyc[0]) / 192

    assert per_iteration(4) > 0.8 * per_iteration(1)        # the model: 0.86x


@wp.kernel
def read_row(x: wp.array2d(dtype=float), row_of_block: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[row_of_block[i // 32], i % 32]


def test_blocks_on_other_sms_that_hit_a_line_still_being_fetched_wait_for_it():
    """L2 hits under a miss: one warp per block on 64 SMs, all starting together, each reading
    one 128-byte line of a fresh array. When every block reads the same line only the first
    one's request goes to DRAM; the others find it in the L2 while its data is still on the
    way and, as on the hardware (an L2 line being filled serves its later requests when the
    data arrives), wait for it: they stall about as long as blocks that read a line each and
    all go to DRAM, not the much shorter time of an L2 hit."""
    blocks = 64
    x = np.random.default_rng(3).random((blocks, 32), dtype=np.float32)

    def waiting(rows):
        r = wp.launch(read_row, 32 * blocks, [wp.array(x), wp.array(np.asarray(rows, np.int32)),
                                              wp.zeros(32 * blocks)], block_dim=32)
        return r.metrics["simt__warp_stall_long_scoreboard_cycles.sum"], r.metrics["dram__bytes_read.sum"]

    same, same_bytes = waiting(np.zeros(blocks))
    own, own_bytes = waiting(np.arange(blocks))
    assert same_bytes < own_bytes / 8                     # one line from DRAM, not one a block
    assert same > 0.7 * own
