"""Compile-time diagnostics that used to be silent: integer constants that do not fit, constant
division by zero, out-of-range constant shifts, variables not assigned on every path, '@' on
scalars, and ternaries typed like the binary operators. Each error points (line, column,
caret) at the code marked ``# <-`` and starting with the given snippet."""
from __future__ import annotations

import inspect
import linecache

import numpy as np
import pytest

import simt as wp
from simt.errors import CompileError
from simt.ir.compile import compile_kernel
from simt.ir.mir import LaunchSig


def compile_(func):
    return compile_kernel(func, LaunchSig(), False, False)


def marked_line(func) -> int:
    lines, start = inspect.getsourcelines(func)
    return next(start + k for k, text in enumerate(lines) if "# <-" in text)


def too_big(out: wp.array(dtype=int)):
    out[0] = 123456789012345678901234567890   # <-


def below_int32(out: wp.array(dtype=int)):
    out[0] = -2147483649   # <-


def adapted_too_big(out: wp.array(dtype=int)):
    out[0] = out[0] + 3000000000   # <-


def negative_unsigned(out: wp.array(dtype=wp.uint32)):
    out[0] = out[0] + -1   # <-


def shift_64(out: wp.array(dtype=int)):
    out[0] = 1 << 64   # <-


def shift_negative(out: wp.array(dtype=int)):
    out[0] = out[0] >> -1   # <-


def shift_past_int64(out: wp.array(dtype=wp.int64)):
    out[0] = out[0] << 64   # <-


def floor_divide_by_zero(out: wp.array(dtype=int)):
    out[0] = 1 // 0   # <-


def modulo_by_zero(out: wp.array(dtype=int)):
    out[0] = out[0] % 0   # <-


def divide_by_float_zero(out: wp.array(dtype=float)):
    out[0] = out[0] / 0.0   # <-


def builtin_mod_by_zero(out: wp.array(dtype=int)):
    out[0] = wp.mod(out[0], 0)   # <-


def augmented_divide_by_zero(out: wp.array(dtype=int)):
    v = out[0]
    v //= 0   # <-
    out[0] = v


def assigned_in_one_branch(x: wp.array(dtype=float)):
    i = wp.tid()
    if i > 3:
        v = 1.0
    x[i] = v   # <-


def assigned_only_in_loop(x: wp.array(dtype=float)):
    i = wp.tid()
    for k in range(3):
        last = float(k)
    x[i] = last   # <-


def assigned_in_elif_chain(x: wp.array(dtype=float)):
    i = wp.tid()
    if i == 0:
        v = 1.0
    elif i == 1:
        v = 2.0
    x[i] = v   # <-


def read_in_loop_before_assign(x: wp.array(dtype=float)):
    i = wp.tid()
    for k in range(3):
        if k > 0:
            x[i] = prev   # <-
        prev = float(k)


def matmul_scalars(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] @ x[i]   # <-


def matmul_scalar_vector(x: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    x[i] = 2.0 @ x[i]   # <-


def ternary_float_int(x: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    x[i] = x[i] if i > 0 else n[i]   # <-


ERRORS = [
    (too_big, "integer constant 123456789012345678901234567890 does not fit in int32", "1234"),
    (below_int32, "integer constant -2147483649 does not fit in int32", "-2147483649"),
    (adapted_too_big, "integer constant 3000000000 does not fit in int32", "3000000000"),
    (negative_unsigned, "integer constant -1 does not fit in uint32", "-1"),
    (shift_64, "shift by 64: int32 values can only be shifted by 0 to 31", "64"),
    (shift_negative, "shift by -1", "-1"),
    (shift_past_int64, "int64 values can only be shifted by 0 to 63", "64"),
    (floor_divide_by_zero, "floor division by zero", "0"),
    (modulo_by_zero, "modulo by zero", "0"),
    (divide_by_float_zero, "division by zero", "0.0"),
    (builtin_mod_by_zero, "modulo by zero", "0)"),
    (augmented_divide_by_zero, "floor division by zero", "0"),
    (assigned_in_one_branch, "variable 'v' is used before it is assigned on some path", "v"),
    (assigned_only_in_loop, "variable 'last' is used before it is assigned", "last"),
    (assigned_in_elif_chain, "variable 'v' is used before it is assigned", "v"),
    (read_in_loop_before_assign, "variable 'prev' is used before it is assigned", "prev"),
    (matmul_scalars, "'@' is matrix multiplication", "x[i] @"),
    (matmul_scalar_vector, "'@' is matrix multiplication", "2.0 @"),
    (ternary_float_int, "values are never converted implicitly", "x[i] if"),
]


@pytest.mark.parametrize("func, message, snippet", ERRORS, ids=[f.__name__ for f, _, _ in ERRORS])
def test_error_with_caret(func, message, snippet):
    with pytest.raises(CompileError) as info:
        compile_(func)
    e = info.value
    assert message in str(e), str(e)
    assert e.loc.line == marked_line(func) and "^" in str(e).splitlines()[-1]
    assert linecache.getline(e.loc.file, e.loc.line)[e.loc.col:].startswith(snippet), str(e)


@wp.kernel
def fine_constants(out: wp.array(dtype=wp.uint32), wide: wp.array(dtype=wp.int64),
                   small: wp.array(dtype=int)):
    out[0] = wp.uint32(-1)                  # an explicit conversion wraps, as C's cast does
    out[1] = out[1] + 4294967295            # fits uint32
    out[2] = wp.ballot_sync(0xFFFFFFFF, True)
    wide[0] = wide[0] + 3000000000          # fits int64
    small[0] = -2147483648                  # the smallest int32
    small[1] = 1 << 31                      # a shift inside 0..31 (wraps, as in C)
    small[2] = 7 // 2 + 7 % -2


@wp.kernel
def fine_paths(x: wp.array(dtype=float)):
    i = wp.tid()
    if i > 3:
        v = 1.0
    else:
        v = 2.0
    while True:
        w = 3.0
        break
    for k in range(2):
        u = float(k)
        x[i] = x[i] + u
    x[i] = x[i] + v + w


def test_what_still_compiles_gives_the_values_c_would():
    out, wide, small = wp.zeros(3, dtype=wp.uint32), wp.zeros(1, dtype=wp.int64), wp.zeros(3, dtype=int)
    wp.launch(fine_constants, dim=1, inputs=[out, wide, small])
    assert out.numpy().tolist() == [4294967295, 4294967295, 1]
    assert wide.numpy()[0] == 3000000000
    assert small.numpy().tolist() == [-2147483648, -2147483648, 3 + 1]
    x = wp.zeros(8)
    wp.launch(fine_paths, dim=8, inputs=[x])
    np.testing.assert_array_equal(x.numpy(), [1.0 + 2.0 + 3.0] * 4 + [1.0 + 1.0 + 3.0] * 4)


# A ternary follows the binary operators' rule: literals adapt to the other side, typed values
# of different types never mix. Each pair is tried both ways and must agree.
def _kernel(expr: str):
    src = ("import simt as wp\n"
           "def k(f: wp.array(dtype=float), i: wp.array(dtype=int), d: wp.array(dtype=wp.float64),"
           " c: int):\n"
           f"    r = {expr}\n")
    return src


PAIRS = [("f[0]", "2", True), ("f[0]", "2.5", True), ("i[0]", "2", True), ("i[0]", "2.5", False),
         ("f[0]", "i[0]", False), ("1.0", "2", True), ("d[0]", "2.5", True),
         ("d[0]", "f[0]", False), ("1", "2", True)]


@pytest.mark.parametrize("a, b, accepted", PAIRS)
def test_ternary_and_binary_accept_the_same_operands(a, b, accepted, tmp_path):
    verdicts = []
    for expr in (f"{a} + {b}", f"{a} if c > 0 else {b}", f"{b} if c > 0 else {a}"):
        path = tmp_path / f"k{len(verdicts)}.py"
        path.write_text(_kernel(expr))
        namespace: dict = {}
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        try:
            compile_(namespace["k"])
            verdicts.append(True)
        except CompileError:
            verdicts.append(False)
    assert verdicts == [accepted] * 3, (a, b, verdicts)
