"""Errors raised while a kernel runs name the kernel, the line, the array, the thread and block."""
from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import simt
import simt as wp

DEVICE = "cpu:precise"


@pytest.fixture(autouse=True)
def debug_options():
    saved = simt.get_module_options()
    simt.set_module_options({"debug": True, "max_steps": 10000})
    yield
    simt.set_module_options(saved)


def line_of(func, text: str) -> tuple[int, str]:
    """(absolute line number, stripped text) of the first source line of ``func`` containing ``text``."""
    lines, first = inspect.getsourcelines(func)
    for k, line in enumerate(lines):
        if text in line:
            return first + k, line.strip()
    raise AssertionError(f"{text!r} not in the source of {func.__name__}")


def launch(kernel, dim, *arrays, block_dim=32):
    args = [simt.array(a) for a in arrays]
    return simt.launch(kernel, dim=dim, inputs=args, device=DEVICE, block_dim=block_dim)


# Plain functions decorated below, so the tests can find their source lines with inspect.
def _oob_read(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = float(0.0)
    if i == 37:
        v = x[i + 100]
    out[i] = v


def _oob_write(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    out[i // 8, i % 8 + (7 if i == 50 else 0)] = x[i]


oob_read = wp.kernel(_oob_read)
oob_write = wp.kernel(_oob_write)


def assert_names_thread_and_block(message: str, thread: int, block: int):
    low = message.lower()
    assert re.search(rf"thread\D*{thread}\b", low), message
    assert re.search(rf"block\D*{block}\b", low), message


def test_out_of_bounds_read_names_everything():
    x = np.zeros(64, np.float32)
    with pytest.raises(simt.OutOfBoundsError) as info:
        launch(oob_read, 64, x, np.zeros(64, np.float32))
    err = info.value
    msg = str(err)
    line, text = line_of(_oob_read, "x[i + 100]")
    assert "oob_read" in msg
    assert err.loc is not None and err.loc.line == line
    assert text in msg                       # the source line itself
    assert re.search(r"\bx\b", msg)          # the array's name
    assert "64" in msg                       # its shape
    assert "137" in msg                      # the index
    assert_names_thread_and_block(msg, thread=5, block=1)   # thread 37 = block 1, thread 5


def test_out_of_bounds_write_names_the_dimension():
    x = np.zeros(64, np.float32)
    with pytest.raises(simt.OutOfBoundsError) as info:
        launch(oob_write, 64, x, np.zeros((8, 8), np.float32))
    err = info.value
    msg = str(err)
    line, text = line_of(_oob_write, "out[i // 8")
    assert "oob_write" in msg
    assert err.loc is not None and err.loc.line == line
    assert text in msg
    assert re.search(r"\bout\b", msg)
    assert re.search(r"8,\s*8", msg)         # the shape (8, 8)
    assert re.search(r"\b9\b", msg)          # the column index: 50 % 8 + 7
    assert_names_thread_and_block(msg, thread=18, block=1)


@wp.kernel
def in_bounds(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    out[i // 8, i % 8] = x[i]


def test_in_bounds_launch_is_quiet_in_debug_mode():
    x = np.arange(64, dtype=np.float32)
    out = simt.array(np.zeros((8, 8), np.float32))
    simt.launch(in_bounds, dim=64, inputs=[simt.array(x), out], device=DEVICE, block_dim=32)
    np.testing.assert_array_equal(out.numpy().reshape(-1), x)


def _divergent_barrier(out: wp.array(dtype=int)):
    i = wp.tid()
    if wp.thread_idx() < 16:
        wp.sync_threads()
    out[i] = 1


divergent_barrier = wp.kernel(_divergent_barrier)


def test_sync_threads_under_divergent_if():
    with pytest.raises(simt.BarrierDivergenceError) as info:
        launch(divergent_barrier, 64, np.zeros(64, np.int32), block_dim=64)
    err = info.value
    line, text = line_of(_divergent_barrier, "wp.sync_threads()")
    assert err.loc is not None and err.loc.line == line
    assert text in str(err)
    assert "divergent_barrier" in str(err)


def _spin(out: wp.array(dtype=int)):
    i = wp.tid()
    x = int(0)
    while True:
        x = x + 1
    out[i] = x


spin = wp.kernel(_spin)


def test_endless_loop_hits_the_step_limit():
    with pytest.raises(simt.StepLimitError) as info:
        launch(spin, 32, np.zeros(32, np.int32))
    assert "spin" in str(info.value)
