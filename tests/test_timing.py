"""The timing model and memory counters of cpu:precise, through real kernels.

The shared-memory and global-memory tables are the measured H200 figures in REFERENCE.md:
one warp, one load (or store) instruction, index = lane * S.
"""
import numpy as np
import pytest

import simt as wp
from simt import suite

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


def run(name):
    return suite.run_case(suite.get(name), "small", device="cpu:precise").result


def test_padding_removes_transpose_bank_conflicts_and_cycles():
    plain, padded = run("transpose_tile"), run("transpose_tile_padded")
    assert plain.metrics[CF.format("ld")] > 0 and padded.metrics[CF.format("ld")] == 0
    assert plain.stalls["bank_conflict"] > 0 and padded.stalls["bank_conflict"] == 0
    assert plain.cycles > padded.cycles


def test_per_line_table_adds_up_to_the_totals():
    r = run("matmul_tiled")
    lines, m = r.lines, r.metrics
    assert lines["inst_executed"].sum() == m["smsp__inst_executed.sum"]
    assert lines["thread_inst_executed"].sum() == m["smsp__thread_inst_executed.sum"]
    assert lines["shared_wavefronts"].sum() == (m[SH.format("ld")] + m[SH.format("st")]
                                                + m[SH.format("atom")])
    assert lines["global_sectors"].sum() == sum(
        m[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{k}.sum"] for k in ("ld", "st", "atom"))
    stall_cols = [c for c in lines.columns if c.startswith("stall_") and c != "stall_idle"]
    for c in stall_cols:
        assert lines[c].sum() == r.stalls[c[len("stall_"):]]


def test_timing_outputs_are_consistent():
    r = run("block_sum_shared")
    m, d = r.metrics, r.details
    assert r.cycles == max(int(d["sm_cycles"].max()), d["atomic_hotspot_cycles"]) + 9500  # sm_90 launch overhead
    assert m["sm__inst_executed.avg.per_cycle_active"] > 0
    assert 0 < m["sm__warps_active.avg.pct_of_peak_sustained_active"] <= 100
    assert r.stalls["barrier"] > 0                               # the tree reduction waits
    assert len(d["block_cycles"]) == 4 and (d["block_cycles"] > 0).all()


def test_more_work_takes_more_cycles_and_arch_matters():
    @wp.kernel
    def spin(out: wp.array(dtype=float), n: int):
        i = wp.tid()
        x = float(0.0)
        for k in range(n):
            x = x * 0.5 + 1.0
        out[i] = x
    out = wp.zeros(256)
    busy = lambda r: int(r.details["sm_cycles"].max())   # noqa: E731 - without launch overhead
    short = busy(wp.launch(spin, 256, [out, 10]))
    long = busy(wp.launch(spin, 256, [out, 100]))
    assert long > short * 5                   # a dependent chain of 4-cycle FMAs per iteration
    a100 = wp.launch(spin, 256, [out, 100], arch="sm_80").cycles
    assert a100 != wp.launch(spin, 256, [out, 100]).cycles


def test_clock_reads_the_cycle_counter():
    @wp.kernel
    def timed(out: wp.array(dtype=wp.int64)):
        i = wp.tid()
        t0 = wp.clock()
        x = float(i)
        for k in range(20):
            x = wp.sqrt(x + 1.0)
        t1 = wp.clock()
        out[i] = t1 - t0 + wp.int64(x * 0.0)
    out = wp.zeros(32, dtype=wp.int64)
    wp.launch(timed, 32, [out], block_dim=32)
    assert (out.numpy() > 20 * 23).all()      # 20 dependent SFU latencies at least


def test_atomics_to_one_address_serialise():
    @wp.kernel
    def count(total: wp.array(dtype=int)):
        wp.atomic_add(total, 0, 1)

    @wp.kernel
    def spread(total: wp.array(dtype=int)):
        i = wp.tid()
        wp.atomic_add(total, i, 1)

    n = 1 << 14
    one, many = wp.zeros(1, dtype=int), wp.zeros(n, dtype=int)
    hot = wp.launch(count, n, [one])
    cold = wp.launch(spread, n, [many])
    assert one.numpy()[0] == n and (many.numpy() == 1).all()
    assert hot.details["atomic_hotspot_cycles"] == int(n * 3.6)
    assert hot.cycles >= n * 3.6 > cold.cycles


def test_shared_atomics_on_one_address_take_turns():
    @wp.kernel
    def bins(out: wp.array(dtype=int), k: int):
        s = wp.shared.array(shape=(32,), dtype=int)
        lane = wp.lane_id()
        wp.atomic_add(s, lane % k, 1)
        wp.sync_threads()
        if lane < k:
            out[lane] = s[lane]
    out = wp.zeros(32, dtype=int)
    busy = lambda r: int(r.details["block_cycles"].max())   # noqa: E731
    t32 = busy(wp.launch(bins, 32, [out, 32], block_dim=32))
    t1 = busy(wp.launch(bins, 32, [out, 1], block_dim=32))
    assert out.numpy()[0] == 32 and t1 >= t32 + 31
