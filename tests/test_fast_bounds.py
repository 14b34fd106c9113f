"""Bounds checks the fast engine hoists out of the thread loop (simt/sim/fast/bounds.py): a
block whose indices lie in range runs without per-access checks, any other block runs them
all, so an out-of-bounds access reports what cpu:precise reports and nothing is skipped."""
from __future__ import annotations

import numpy as np
import pytest

import simt
import simt as wp
from simt.sim.fast import codegen

FAST, PRECISE = "cpu", "cpu:precise"


@wp.kernel
def shifted_copy(x: wp.array(dtype=float), out: wp.array(dtype=float), shift: int):
    i = wp.tid()
    out[i] = x[i + shift]


@wp.kernel
def wrapped_then_clamped(x: wp.array(dtype=float), out: wp.array(dtype=float), k: int):
    i = wp.tid()
    out[i] = x[wp.min(i * k, 5)]     # i * 2**30 wraps to -2**31 at i = 2: below zero


@wp.kernel
def guarded_copy(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i >= n:
        return
    out[i] = x[i] + 1.0


def _error(kernel, dim, inputs, device, block_dim=64):
    args = [simt.array(a.copy()) if isinstance(a, np.ndarray) else a for a in inputs]
    with pytest.raises(simt.KernelRuntimeError) as info:
        simt.launch(kernel, dim=dim, inputs=args, device=device, block_dim=block_dim)
    return info.value


@wp.kernel
def gather(x: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[idx[i]]


@wp.kernel
def five_loads(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] + x[i + 1] + x[i + 2] + x[i + 3] + x[i + 4]


@wp.kernel
def five_loads_in_a_loop(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):
        s += x[i] + x[i + 1] + x[i + 2] + x[i + 3] + x[i + 4]
    out[i] = s


def _copies(source: str) -> tuple[str, str]:
    """The two copies of the thread loop: for blocks shown in range, and for the others."""
    head, rest = source.split("\n        if fast:\n")
    fast, slow = rest.split("\n        else:\n")
    return fast, slow


def test_which_accesses_are_hoisted():
    """Indices built from the thread id are tested once per block; one read from memory
    (any value) keeps its per-access check."""
    source = codegen.generate(shifted_copy.compile()).source
    assert "slow = not fast" in source
    assert source.count("if slow and ix") == 2          # x[i + shift] and out[i]
    source = codegen.generate(gather.compile()).source
    assert source.count("if slow and ix") == 2          # idx[i] and out[i]
    assert source.count("if ix") == 1                   # x[idx[i]]


def test_large_straight_line_thread_loop_is_written_twice():
    """Past a few hoisted accesses LLVM no longer unswitches the thread loop on ``slow``: the
    code has a copy without those checks and one that makes them all. A thread loop with a
    loop inside keeps one copy (its time is in the inner loop)."""
    fast, slow = _copies(codegen.generate(five_loads.compile()).source)
    assert fast.count("if ix") == 0 and "record_error" not in fast
    assert slow.count("if ix") == 6          # five loads and the store
    source = codegen.generate(five_loads_in_a_loop.compile()).source
    assert "if fast:" not in source and source.count("if slow and ix") == 6


def test_both_copies_give_precise_results_and_errors():
    """A grid whose last block runs past the array takes the checked copy there."""
    x = np.arange(100, dtype=np.float32)
    outs = []
    for device in (FAST, PRECISE):
        out = simt.array(np.zeros(96, np.float32))
        simt.launch(five_loads, dim=96, inputs=[simt.array(x), out], device=device, block_dim=32)
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], x[:96] + x[1:97] + x[2:98] + x[3:99] + x[4:100])
    inputs = [x, np.zeros(97, np.float32)]
    fast, precise = (_error(five_loads, 97, inputs, d, block_dim=32) for d in (FAST, PRECISE))
    assert str(fast) == str(precise)


@pytest.mark.parametrize("shift, dim", [(1, 256), (-1, 256), (0, 257), (200, 256)],
                         ids=["last_block", "first_block", "tail_block", "middle_blocks"])
def test_out_of_bounds_reported_as_precise_does(shift, dim):
    """Blocks in range run unchecked; the failing one is checked and names the same thread."""
    inputs = [np.arange(256, dtype=np.float32), np.zeros(dim, np.float32), shift]
    fast, precise = (_error(shifted_copy, dim, inputs, d) for d in (FAST, PRECISE))
    assert type(fast) is type(precise)
    assert str(fast) == str(precise)


def test_index_that_wraps_is_not_trusted():
    """Exact arithmetic puts min(i * 2**30, 5) in [0, 5]; the int32 value is -2**31 at i = 2.
    The interval is only trusted where no step wraps, so thread 2 is caught."""
    inputs = [np.zeros(64, np.float32), np.zeros(64, np.float32), 1 << 30]
    fast, precise = (_error(wrapped_then_clamped, 64, inputs, d) for d in (FAST, PRECISE))
    assert str(fast) == str(precise)
    assert "2147483648" in str(fast)


@pytest.mark.parametrize("n", [100, 64, 0, 256])
def test_guard_skipped_only_where_no_thread_takes_it(n):
    """``if i >= n: return`` with arrays larger than n: every access is in range, so only
    the guard keeps threads n.. from writing."""
    x = np.arange(256, dtype=np.float32)
    out = simt.array(np.zeros(256, np.float32))
    simt.launch(guarded_copy, dim=256, inputs=[simt.array(x), out, n], device=FAST, block_dim=64)
    expected = np.where(np.arange(256) < n, x + 1.0, 0.0).astype(np.float32)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_results_equal_precise_with_and_without_hoisting():
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    outs = []
    for device in (FAST, PRECISE):
        out = simt.array(np.zeros(999, np.float32))
        simt.launch(shifted_copy, dim=999, inputs=[simt.array(x), out, 1], device=device,
                    block_dim=64)
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], x[1:])
