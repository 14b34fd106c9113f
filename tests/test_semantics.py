"""Scalar arithmetic follows CUDA/C semantics at each type's width (property tests).

Each example launches one kernel over ~64 drawn values and compares every operator with
numpy computing at the same width. Integer ``/`` truncates and ``%`` takes the dividend's
sign (C), ``//`` floors (Python); overflow wraps; float ops are IEEE round-to-nearest.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simt
import simt as wp

DEVICE = "cpu:precise"
N = 64
SETTINGS = settings(max_examples=30, deadline=None)


def launch(kernel, *arrays) -> list[np.ndarray]:
    args = [simt.array(a) for a in arrays]
    simt.launch(kernel, dim=N, inputs=args, device=DEVICE, block_dim=32)
    return [a.numpy() for a in args]


def ints(dtype, lo=None, hi=None):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return hnp.arrays(dtype, N, elements=st.integers(lo, hi))


def c_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's truncating quotient (numpy's // floors)."""
    q = a // b
    fix = ((a % b) != 0) & ((a < 0) != (b < 0))
    return np.where(fix, q + 1, q).astype(a.dtype)


def safe_divisor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """b with zeros replaced and (MIN, -1) avoided: both are undefined behaviour in C."""
    b = np.where(b == 0, 1, b).astype(b.dtype)
    if np.issubdtype(a.dtype, np.signedinteger):
        b = np.where((a == np.iinfo(a.dtype).min) & (b == -1), 1, b).astype(b.dtype)
    return b


def check(got: np.ndarray, want: list[np.ndarray], names: list[str], inputs: dict):
    for row, name in enumerate(names):
        np.testing.assert_array_equal(got[row], want[row].astype(got.dtype),
                                      err_msg=f"{name}; inputs {inputs}")


# ---- integers ------------------------------------------------------------------------

def integer_kernel(dtype):
    """All integer operators on arrays of ``dtype``; row k of ``out`` is operator k."""

    @wp.kernel
    def integer_ops(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), d: wp.array(dtype=dtype),
                    s: wp.array(dtype=dtype), out: wp.array2d(dtype=dtype)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        z = d[i]
        k = s[i]
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = x / z
        out[4, i] = x % z
        out[5, i] = x // z
        out[6, i] = x << k
        out[7, i] = x >> k
        out[8, i] = x & y
        out[9, i] = x | y
        out[10, i] = x ^ y
        out[11, i] = ~x
        out[12, i] = dtype(1) if x < y else dtype(0)
        out[13, i] = dtype(1) if x <= y else dtype(0)
        out[14, i] = dtype(1) if x == y else dtype(0)
        out[15, i] = dtype(1) if x != y else dtype(0)
        out[16, i] = dtype(1) if x > y else dtype(0)
        out[17, i] = dtype(1) if x >= y else dtype(0)

    return integer_ops


INT_OPS = ["+", "-", "*", "/", "%", "//", "<<", ">>", "&", "|", "^", "~",
           "<", "<=", "==", "!=", ">", ">="]
INTEGER_KERNELS = {}


def expected_integer_ops(x, y, z, k):
    with np.errstate(over="ignore"):
        return [x + y, x - y, x * y, c_div(x, z), np.fmod(x, z), x // z, x << k, x >> k,
                x & y, x | y, x ^ y, ~x, x < y, x <= y, x == y, x != y, x > y, x >= y]


def run_integer_ops(dtype, x, y, z, k):
    if dtype not in INTEGER_KERNELS:
        INTEGER_KERNELS[dtype] = integer_kernel(getattr(wp, np.dtype(dtype).name))
    z = safe_divisor(x, z)
    out = np.zeros((len(INT_OPS), N), dtype)
    *_, got = launch(INTEGER_KERNELS[dtype], x, y, z, k, out)
    check(got, expected_integer_ops(x, y, z, k), INT_OPS, {"x": x, "y": y, "z": z, "k": k})


@SETTINGS
@given(ints(np.int32), ints(np.int32), ints(np.int32), ints(np.int32, 0, 31))
def test_int32(x, y, z, k):
    run_integer_ops(np.int32, x, y, z, k)


@SETTINGS
@given(ints(np.int32, -100, 100), ints(np.int32, -100, 100), ints(np.int32, -9, 9),
       ints(np.int32, 0, 31))
def test_int32_small_values(x, y, z, k):
    """Small operands make sign combinations and exact multiples (remainder 0) common."""
    run_integer_ops(np.int32, x, y, z, k)


@SETTINGS
@given(ints(np.uint32), ints(np.uint32), ints(np.uint32), ints(np.uint32, 0, 31))
def test_uint32(x, y, z, k):
    run_integer_ops(np.uint32, x, y, z, k)


@SETTINGS
@given(ints(np.int64), ints(np.int64), ints(np.int64), ints(np.int64, 0, 63))
def test_int64(x, y, z, k):
    run_integer_ops(np.int64, x, y, z, k)


@SETTINGS
@given(ints(np.int8), ints(np.int8), ints(np.int8), ints(np.int8, 0, 7))
def test_int8_wraps(x, y, z, k):
    run_integer_ops(np.int8, x, y, z, k)


@SETTINGS
@given(ints(np.uint8), ints(np.uint8), ints(np.uint8), ints(np.uint8, 0, 7))
def test_uint8_wraps(x, y, z, k):
    run_integer_ops(np.uint8, x, y, z, k)


# ---- floats --------------------------------------------------------------------------

def float_kernel(dtype):

    @wp.kernel
    def float_ops(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), out: wp.array2d(dtype=dtype)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = x / y
        out[4, i] = x % y
        out[5, i] = -x
        out[6, i] = dtype(1.0) if x < y else dtype(0.0)
        out[7, i] = dtype(1.0) if x <= y else dtype(0.0)
        out[8, i] = dtype(1.0) if x == y else dtype(0.0)
        out[9, i] = dtype(1.0) if x != y else dtype(0.0)

    return float_ops


FLOAT_OPS = ["+", "-", "*", "/", "% (fmod)", "neg", "<", "<=", "==", "!="]
FLOAT_KERNELS = {}


def floats(dtype):
    width = np.dtype(dtype).itemsize * 8
    return hnp.arrays(dtype, N, elements=st.floats(width=width, allow_nan=False,
                                                   allow_infinity=False, allow_subnormal=False))


def run_float_ops(dtype, x, y):
    if dtype not in FLOAT_KERNELS:
        FLOAT_KERNELS[dtype] = float_kernel(getattr(wp, np.dtype(dtype).name))
    out = np.zeros((len(FLOAT_OPS), N), dtype)
    _, _, got = launch(FLOAT_KERNELS[dtype], x, y, out)
    with np.errstate(all="ignore"):
        want = [x + y, x - y, x * y, x / y, np.fmod(x, y), -x, x < y, x <= y, x == y, x != y]
    check(got, want, FLOAT_OPS, {"x": x, "y": y})


@SETTINGS
@given(floats(np.float32), floats(np.float32))
def test_float32(x, y):
    run_float_ops(np.float32, x, y)


@SETTINGS
@given(hnp.arrays(np.float32, N, elements=st.floats(-1e4, 1e4, width=32)),
       hnp.arrays(np.float32, N, elements=st.floats(-1e4, 1e4, width=32)))
def test_float32_moderate_values(x, y):
    """Values where rounding, not overflow, decides the result."""
    run_float_ops(np.float32, x, y)


@SETTINGS
@given(floats(np.float64), floats(np.float64))
def test_float64(x, y):
    run_float_ops(np.float64, x, y)


# ---- conversions ---------------------------------------------------------------------

@wp.kernel
def conversions(f: wp.array(dtype=wp.float32), d: wp.array(dtype=wp.float64),
                n: wp.array(dtype=wp.int32), big: wp.array(dtype=wp.int64),
                to_i32: wp.array2d(dtype=wp.int32), to_f32: wp.array2d(dtype=wp.float32),
                to_i8: wp.array(dtype=wp.int8), to_u8: wp.array(dtype=wp.uint8),
                to_u32: wp.array(dtype=wp.uint32), to_i64: wp.array(dtype=wp.int64),
                to_f64: wp.array(dtype=wp.float64)):
    i = wp.tid()
    to_i32[0, i] = int(f[i])                 # truncation toward zero
    to_i32[1, i] = wp.int32(d[i])
    to_i32[2, i] = wp.int32(big[i])          # keeps the low 32 bits
    to_f32[0, i] = float(n[i])               # round to nearest even
    to_f32[1, i] = wp.float32(d[i])
    to_f32[2, i] = wp.float32(big[i])
    to_i8[i] = wp.int8(n[i])                 # wraps
    to_u8[i] = wp.uint8(n[i])
    to_u32[i] = wp.uint32(n[i])
    to_i64[i] = wp.int64(n[i])               # sign-extends
    to_f64[i] = wp.float64(f[i])


INT32_RANGE = 2.0**31 - 256        # float values whose truncation fits in int32


@SETTINGS
@given(hnp.arrays(np.float32, N, elements=st.floats(-INT32_RANGE, INT32_RANGE, width=32)),
       hnp.arrays(np.float64, N, elements=st.floats(-INT32_RANGE, INT32_RANGE)),
       ints(np.int32), ints(np.int64))
def test_conversions(f, d, n, big):
    outs = launch(conversions, f, d, n, big, np.zeros((3, N), np.int32), np.zeros((3, N), np.float32),
                  np.zeros(N, np.int8), np.zeros(N, np.uint8), np.zeros(N, np.uint32),
                  np.zeros(N, np.int64), np.zeros(N, np.float64))
    to_i32, to_f32, to_i8, to_u8, to_u32, to_i64, to_f64 = outs[4:]
    inputs = {"f": f, "d": d, "n": n, "big": big}
    check(to_i32, [f.astype(np.int32), d.astype(np.int32), big.astype(np.int32)],
          ["int(float32)", "int32(float64)", "int32(int64)"], inputs)
    check(to_f32, [n.astype(np.float32), d.astype(np.float32), big.astype(np.float32)],
          ["float(int32)", "float32(float64)", "float32(int64)"], inputs)
    np.testing.assert_array_equal(to_i8, n.astype(np.int8))
    np.testing.assert_array_equal(to_u8, n.astype(np.uint8))
    np.testing.assert_array_equal(to_u32, n.astype(np.uint32))
    np.testing.assert_array_equal(to_i64, n.astype(np.int64))
    np.testing.assert_array_equal(to_f64, f.astype(np.float64))
