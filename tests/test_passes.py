"""MIR passes: floor division by a power of two becomes a shift, and counted ``for`` loops
with constant bounds are fully unrolled. Each test checks the MIR shape and that results are
unchanged on both CPU engines (the suite tests cover every suite kernel the same way)."""
from __future__ import annotations

import numpy as np
import pytest

import simt
import simt as wp
from simt.ir import cfg
from simt.ir.compile import check_kernel
from simt.ir.lower import lower_kernel
from simt.ir.mir import LaunchSig, Op
from simt.ir.passes import DEFAULT_PASSES, run_passes, unroll_constant_loops
from simt.ir.verify import verify

ENGINES = ("cpu:precise", "cpu")


def compiled(kernel, sig: LaunchSig = LaunchSig()):
    return kernel.compile(sig)


def before_unrolling(kernel, sig: LaunchSig = LaunchSig()):
    """The MIR as every pass but the unroller leaves it."""
    fn = lower_kernel(check_kernel(kernel.py_func, sig), sig, False, False)
    passes = [(name, p) for name, p in DEFAULT_PASSES if p is not unroll_constant_loops]
    return run_passes(fn, passes)


def ops(fn) -> list[Op]:
    return [ins.op for ins in fn.instructions()]


def run_on(engine, kernel, dim, *arrays, block_dim=None):
    wrapped = [simt.array(a.copy()) for a in arrays]
    kwargs = {} if block_dim is None else {"block_dim": block_dim}
    simt.launch(kernel, dim=dim, inputs=wrapped, device=engine, **kwargs)
    return [w.numpy() for w in wrapped]


def check_engines(kernel, dim, *arrays, expected, block_dim=None):
    """Every engine writes ``expected`` into the last array."""
    for engine in ENGINES:
        out = run_on(engine, kernel, dim, *arrays, block_dim=block_dim)[-1]
        np.testing.assert_array_equal(out, expected, err_msg=engine)


# ---- floor division by a power of two --------------------------------------------------

@wp.kernel
def floordiv_i32(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    out[i * 5 + 0] = v // 1
    out[i * 5 + 1] = v // 2
    out[i * 5 + 2] = v // 8
    out[i * 5 + 3] = v // 1073741824
    v //= 4
    out[i * 5 + 4] = v


@wp.kernel
def floordiv_u32(x: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    v = x[i]
    out[i * 3 + 0] = v // wp.uint32(2)
    out[i * 3 + 1] = v // wp.uint32(2147483648)
    v //= wp.uint32(16)
    out[i * 3 + 2] = v


@wp.kernel
def floordiv_i64(x: wp.array(dtype=wp.int64), out: wp.array(dtype=wp.int64)):
    i = wp.tid()
    out[i] = x[i] // wp.int64(4611686018427387904)   # 2**62


@wp.kernel
def not_shifts(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    out[i * 4 + 0] = v // 3
    out[i * 4 + 1] = v % 4
    out[i * 4 + 2] = v * 4
    out[i * 4 + 3] = v // -2


INTS = np.array([-2**31, -9, -8, -7, -1, 0, 1, 7, 8, 9, 2**31 - 1, 123456789, -123456789],
                np.int32)


def test_signed_floordiv_by_power_of_two_is_an_arithmetic_shift():
    fn = compiled(floordiv_i32)
    assert Op.SHR in ops(fn)
    assert Op.DIV not in ops(fn) and Op.REM not in ops(fn)
    x = INTS.astype(np.int64)
    expected = np.stack([x // 1, x // 2, x // 8, x // 2**30, x // 4], 1).ravel().astype(np.int32)
    check_engines(floordiv_i32, len(INTS), INTS, np.zeros(5 * len(INTS), np.int32),
                  expected=expected)


def test_unsigned_floordiv_by_power_of_two_is_a_logical_shift():
    fn = compiled(floordiv_u32)
    assert Op.DIV not in ops(fn) and ops(fn).count(Op.SHR) == 3
    x = np.array([0, 1, 7, 8, 2**31, 2**32 - 1, 123456789], np.uint32)
    expected = np.stack([x // 2, x // 2**31, x // 16], 1).ravel()
    check_engines(floordiv_u32, len(x), x, np.zeros(3 * len(x), np.uint32), expected=expected)


def test_int64_floordiv_by_a_large_power_of_two():
    assert Op.DIV not in ops(compiled(floordiv_i64))
    x = np.array([-2**63, -2**62 - 1, -1, 0, 2**62, 2**63 - 1], np.int64)
    check_engines(floordiv_i64, len(x), x, np.zeros(len(x), np.int64), expected=x // 2**62)


def test_other_divisors_remainders_and_products_are_left_alone():
    fn = compiled(not_shifts)
    assert Op.SHR not in ops(fn)
    assert Op.DIV in ops(fn) and Op.REM in ops(fn) and Op.MUL in ops(fn)
    x = INTS.astype(np.int64)
    expected = np.stack([x // 3, np.fmod(x, 4), x * 4, x // -2], 1).ravel().astype(np.int32)
    check_engines(not_shifts, len(INTS), INTS, np.zeros(4 * len(INTS), np.int32),
                  expected=expected)


# ---- unrolling counted loops -----------------------------------------------------------

@wp.kernel
def sum16(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    acc = int(0)
    for k in range(16):
        acc = acc + x[i * 16 + k] * k
    out[i] = acc


@wp.kernel
def strided_down(out: wp.array(dtype=int)):
    i = wp.tid()
    acc = int(0)
    for k in range(10, -3, -3):      # 10, 7, 4, 1, -2
        acc = acc * 3 + k
    for k in range(5, 0):            # never runs
        acc = acc + 1000
    out[i] = acc + i


@wp.kernel
def nested_with_continue(out: wp.array(dtype=int)):
    i = wp.tid()
    acc = int(0)
    for a in range(4):
        for b in range(4):
            if (a + b + i) % 3 == 0:
                continue
            acc = acc + a * 10 + b
    out[i] = acc


@wp.kernel
def with_barrier(out: wp.array(dtype=int)):
    tile = wp.shared.array(shape=(64,), dtype=int)
    t = wp.thread_idx()
    tile[t] = t
    for r in range(3):
        wp.sync_threads()
        v = tile[(t + 1) % 64]
        wp.sync_threads()
        tile[t] = v + r
    out[wp.tid()] = tile[t]


@wp.kernel
def kept_loops(x: wp.array(dtype=int), n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    acc = int(0)
    for k in range(8):               # break: kept
        if x[k] == i:
            break
        acc = acc + 1
    for k in range(n):               # runtime bound: kept
        acc = acc + k
    for k in range(17):              # more than 16 trips: kept
        acc = acc + k
    out[i] = acc


def back_edge_count(fn) -> int:
    return len(cfg.back_edges(fn))


def test_range16_loop_has_no_back_edge_left():
    assert back_edge_count(before_unrolling(sum16)) == 1
    fn = compiled(sum16)
    verify(fn)
    assert back_edge_count(fn) == 0
    assert ops(fn).count(Op.LD) == 16 and Op.LT not in ops(fn)
    x = np.arange(64, dtype=np.int32)
    expected = (x.reshape(4, 16) * np.arange(16)).sum(1).astype(np.int32)
    check_engines(sum16, 4, x, np.zeros(4, np.int32), expected=expected)


def test_negative_step_and_empty_ranges_unroll():
    assert back_edge_count(compiled(strided_down)) == 0
    acc = 0
    for k in range(10, -3, -3):
        acc = acc * 3 + k
    check_engines(strided_down, 8, np.zeros(8, np.int32),
                  expected=(acc + np.arange(8)).astype(np.int32))


def test_nested_loops_with_continue_unroll_completely():
    assert back_edge_count(before_unrolling(nested_with_continue)) == 2
    assert back_edge_count(compiled(nested_with_continue)) == 0
    expected = [sum(a * 10 + b for a in range(4) for b in range(4) if (a + b + i) % 3 != 0)
                for i in range(40)]
    check_engines(nested_with_continue, 40, np.zeros(40, np.int32),
                  expected=np.array(expected, np.int32))


def test_barriers_in_an_unrolled_body_each_start_a_block():
    fn = compiled(with_barrier)
    assert back_edge_count(fn) == 0
    bars = [(b, k) for b in fn.blocks for k, ins in enumerate(b.instrs) if ins.op is Op.BAR]
    assert len(bars) == 6 and all(k == 0 for _, k in bars)
    t = np.arange(64)
    tile = t.copy()
    for r in range(3):
        tile = np.roll(tile, -1) + r
    check_engines(with_barrier, 64, np.zeros(64, np.int32), expected=tile.astype(np.int32),
                  block_dim=64)


def test_loops_with_break_runtime_bounds_or_many_trips_are_kept():
    before = back_edge_count(before_unrolling(kept_loops))
    assert before == 3 and back_edge_count(compiled(kept_loops)) == 3
    x = np.array([5, 3, 9, 0, 7, 1, 2, 4], np.int32)
    n = 6
    expected = []
    for i in range(10):
        acc = 0
        for k in range(8):
            if x[k] == i:
                break
            acc += 1
        expected.append(acc + sum(range(n)) + sum(range(17)))
    for engine in ENGINES:
        out = simt.array(np.zeros(10, np.int32))
        simt.launch(kept_loops, dim=10, inputs=[simt.array(x), n, out], device=engine)
        np.testing.assert_array_equal(out.numpy(), expected, err_msg=engine)


@pytest.mark.parametrize("name", ["matmul_tiled", "transpose_tile", "transpose_tile_padded"])
def test_suite_tile_loops_are_unrolled(name):
    from simt.suite import cuda_style
    fn = compiled(getattr(cuda_style, name), LaunchSig(2, 2))
    outer = 1 if name == "matmul_tiled" else 0    # matmul's k0 loop has a runtime bound
    assert back_edge_count(fn) == outer
