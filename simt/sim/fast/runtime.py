"""Compiled helpers the generated kernels call: the MIR ops whose semantics need more than
one Python operator, and atomics on global memory.

Each helper reproduces the precise engine's numpy definition (simt/sim/precise/arith.py)
for one scalar. Integer helpers compute in 64 bits and the generated code casts the result
to the destination type, which wraps exactly as the precise engine's ``astype`` does.

Numba has no atomics for CPU code, so the global-memory atomics are LLVM ``atomicrmw`` /
``cmpxchg`` instructions emitted through ``numba.extending.intrinsic``: blocks run in
parallel on several OS threads and their atomics on one address serialise in hardware.
Float atomics other than exchange are compare-and-swap loops on the value's bits.
"""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit, types
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

JIT = dict(cache=True, nogil=True, error_model="numpy")

@njit(**JIT)
def record_error(err, abort, code, cta, thread, instr, a, b, c):
    """Store a runtime error's record and tell the other OS threads to stop taking blocks."""
    err[0] = code
    err[1] = cta
    err[2] = thread
    err[3] = instr
    err[4] = a
    err[5] = b
    err[6] = c
    abort[0] = 1


# --- integer arithmetic --------------------------------------------------------------------


def _c_division(signed_op: str):
    """An intrinsic ``f(a, b)``: LLVM's truncating ``sdiv``/``srem`` in the wider operand width
    (C semantics; the caller has excluded b == 0 and b == -1)."""
    @intrinsic
    def division(typingctx, a, b):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return None
        common = types.Integer.from_bitwidth(max(a.bitwidth, b.bitwidth, 8), signed=True)

        def codegen(context, builder, sig, args):
            x = context.cast(builder, args[0], sig.args[0], common)
            y = context.cast(builder, args[1], sig.args[1], common)
            return getattr(builder, signed_op)(x, y)
        return common(a, b), codegen
    return division


c_sdiv = _c_division("sdiv")
c_srem = _c_division("srem")


@njit(**JIT)
def div_signed(a, b):
    """C division of signed ints, truncating toward zero; x / 0 gives -1 (as the GPU does)."""
    if b == 0:
        return np.int64(-1)
    if b == -1:
        return np.int64(0) - np.int64(a)   # wraps for the most negative value, as numpy does
    return np.int64(c_sdiv(a, b))


@njit(**JIT)
def rem_signed(a, b):
    """C remainder: the sign of the dividend; x % 0 gives x."""
    if b == 0:
        return np.int64(a)
    if b == -1:
        return np.int64(0)
    return np.int64(c_srem(a, b))


@njit(**JIT)
def div_unsigned(a, b):
    """Unsigned division; x / 0 gives all ones (the caller's cast keeps its width)."""
    if b == 0:
        return ~(a ^ a)
    return a // b


@njit(**JIT)
def rem_unsigned(a, b):
    if b == 0:
        return a
    return a % b


@njit(**JIT)
def shl_signed(a, s, bits):
    """Shift left; an amount outside [0, bits) gives 0 (the amount is read as unsigned)."""
    if np.uint64(s) >= np.uint64(bits):
        return np.int64(0)
    return np.int64(a) << np.int64(s)


@njit(**JIT)
def shr_signed(a, s, bits):
    """Arithmetic shift right; an amount outside [0, bits) fills with the sign."""
    if np.uint64(s) >= np.uint64(bits):
        return np.int64(-1) if a < 0 else np.int64(0)
    return np.int64(a) >> np.int64(s)


@njit(**JIT)
def shl_unsigned(a, s, bits):
    if np.uint64(s) >= np.uint64(bits):
        return np.uint64(0)
    return np.uint64(a) << np.uint64(s)


@njit(**JIT)
def shr_unsigned(a, s, bits):
    if np.uint64(s) >= np.uint64(bits):
        return np.uint64(0)
    return np.uint64(a) >> np.uint64(s)


# --- limits for hoisted bounds checks (bounds.py) ------------------------------------------

I32_MIN, I32_MAX = np.int64(-2**31), np.int64(2**31 - 1)
I64_MIN, I64_MAX = np.int64(-2**63), np.int64(2**63 - 1)


# --- float helpers ---------------------------------------------------------------------------

@njit(**JIT)
def fmin(a, b):
    """The MIR's float MIN: a NaN operand loses to a number; a tie (-0.0, +0.0) gives the
    first operand, as Warp's CPU code does."""
    return a if (a <= b or b != b) else b


@njit(**JIT)
def fmax(a, b):
    return a if (a >= b or b != b) else b


@njit(**JIT)
def round_half_away(x):
    t = np.trunc(x)
    frac = x - t
    if np.abs(frac) >= 0.5:
        return t + np.sign(x)
    return t


@njit(**JIT)
def float_to_int_saturating(x, lo, hi):
    """C/PTX float -> int for types that fit int64: truncate, saturate at [lo, hi], NaN -> 0."""
    t = np.trunc(np.float64(x))
    if t != t:
        return np.int64(0)
    if t >= np.float64(hi):
        return np.int64(hi)
    if t <= np.float64(lo):
        return np.int64(lo)
    return np.int64(t)


def _saturating_conversion(bits: int, signed: bool):
    """An intrinsic ``f(x)``: LLVM's ``fptosi.sat`` / ``fptoui.sat`` to ``bits`` wide, then
    widened to 64 bits: truncate, saturate at the type's range, NaN -> 0 (the same rule as
    float_to_int_saturating, without branches)."""
    result = types.Integer.from_bitwidth(bits, signed=signed)
    wide = types.int64 if signed or bits < 64 else types.uint64

    @intrinsic
    def convert(typingctx, x):
        if not isinstance(x, types.Float):
            return None

        def codegen(context, builder, sig, args):
            src = context.get_value_type(sig.args[0])
            dst = context.get_value_type(result)
            name = f"llvm.fpto{'s' if signed else 'u'}i.sat.i{bits}.f{sig.args[0].bitwidth}"
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(dst, [src]), name)
            value = builder.call(fn, [args[0]])
            return context.cast(builder, value, result, wide)
        return wide(x), codegen
    return convert


SATURATING_CONVERSIONS = {(bits, signed): _saturating_conversion(bits, signed)
                          for bits in (8, 16, 32, 64) for signed in (True, False)}
float_to_i8_sat, float_to_u8_sat = SATURATING_CONVERSIONS[8, True], SATURATING_CONVERSIONS[8, False]
float_to_i16_sat, float_to_u16_sat = SATURATING_CONVERSIONS[16, True], SATURATING_CONVERSIONS[16, False]
float_to_i32_sat, float_to_u32_sat = SATURATING_CONVERSIONS[32, True], SATURATING_CONVERSIONS[32, False]
float_to_i64_sat, float_to_u64_sat = SATURATING_CONVERSIONS[64, True], SATURATING_CONVERSIONS[64, False]


@njit(**JIT)
def float_to_uint64_saturating(x):
    t = np.trunc(np.float64(x))
    if t >= 18446744073709551615.0:
        return np.uint64(18446744073709551615)
    if t <= 0.0 or t != t:
        return np.uint64(0)
    return np.uint64(t)


def print_c(fmt, *values):
    """PRINT: one thread's formatted output (called from compiled code in object mode)."""
    import sys
    from ...ir.printf import format_c
    sys.stdout.write(format_c(fmt, values))


# --- float16, held as its bits (numba has no float16 type) ---------------------------------

def _float_bits(ftype, utype, bits: int):
    """The intrinsic giving a float's bits as an unsigned int of its width."""
    @intrinsic
    def to_bits(typingctx, x):
        if x != ftype:
            return None

        def codegen(context, builder, sig, args):
            return builder.bitcast(args[0], ir.IntType(bits))
        return utype(ftype), codegen
    return to_bits


def _bits_float(ftype, utype, lltype):
    """The intrinsic giving the float whose bits an integer holds (cast to the float's width)."""
    @intrinsic
    def from_bits(typingctx, u):
        if not isinstance(u, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            wide = context.cast(builder, args[0], sig.args[0], utype)
            return builder.bitcast(wide, lltype)
        return ftype(u), codegen
    return from_bits


float32_bits = _float_bits(types.float32, types.uint32, 32)
bits_float32 = _bits_float(types.float32, types.uint32, ir.FloatType())
float64_bits = _float_bits(types.float64, types.uint64, 64)
bits_float64 = _bits_float(types.float64, types.uint64, ir.DoubleType())


@njit(**JIT)
def f32_to_f16_bits(x):
    """float32 -> float16 bits, rounding to nearest even (numpy's and PTX cvt.rn's rule; NaN
    keeps its top payload bits as numpy does)."""
    u = np.uint32(float32_bits(np.float32(x)))
    sign = np.uint32((u >> np.uint32(16)) & np.uint32(0x8000))
    a = u & np.uint32(0x7FFFFFFF)
    if a >= np.uint32(0x7F800000):
        if a == np.uint32(0x7F800000):
            return np.uint16(sign | np.uint32(0x7C00))
        payload = np.uint32(0x7C00) + ((a & np.uint32(0x7FFFFF)) >> np.uint32(13))
        if payload == np.uint32(0x7C00):
            payload += np.uint32(1)
        return np.uint16(sign | payload)
    if a >= np.uint32(0x477FF000):          # rounds to infinity
        return np.uint16(sign | np.uint32(0x7C00))
    if a < np.uint32(0x33000000):           # below half the smallest subnormal: zero
        return np.uint16(sign)
    e = np.int64(a >> np.uint32(23))
    if e < 113:                             # a float16 subnormal
        mant = np.uint32((a & np.uint32(0x7FFFFF)) | np.uint32(0x800000))
        shift = np.uint32(126 - e)
        h = mant >> shift
        rest = mant & ((np.uint32(1) << shift) - np.uint32(1))
        halfway = np.uint32(1) << (shift - np.uint32(1))
    else:
        h = (a - np.uint32(0x38000000)) >> np.uint32(13)
        rest = a & np.uint32(0x1FFF)
        halfway = np.uint32(0x1000)
    if rest > halfway or (rest == halfway and (h & np.uint32(1)) != 0):
        h += np.uint32(1)
    return np.uint16(sign | h)


@njit(**JIT)
def f32_to_bf16_bits(x):
    """float32 -> bfloat16 bits: round to nearest even; NaN keeps a quiet bit (Warp's rule)."""
    u = np.uint64(float32_bits(np.float32(x)))
    if (u & np.uint64(0x7F800000)) == np.uint64(0x7F800000):
        h = np.uint16(u >> np.uint64(16))
        if (u & np.uint64(0x007FFFFF)) != np.uint64(0) and (h & np.uint16(0x007F)) == np.uint16(0):
            h = np.uint16(h | np.uint16(0x0040))
        return h
    return np.uint16((u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16))


@njit(**JIT)
def f16_bits_to_f32(h):
    """float16 bits -> float32 (exact)."""
    h = np.uint32(h)
    sign = (h & np.uint32(0x8000)) << np.uint32(16)
    e = (h >> np.uint32(10)) & np.uint32(0x1F)
    m = h & np.uint32(0x3FF)
    if e == np.uint32(0x1F):
        return bits_float32(sign | np.uint32(0x7F800000) | (m << np.uint32(13)))
    if e == np.uint32(0):
        value = np.float32(m) * np.float32(5.9604644775390625e-08)     # m * 2**-24, exact
        return -value if sign else value
    return bits_float32(sign | ((e + np.uint32(112)) << np.uint32(23)) | (m << np.uint32(13)))


# --- atomics on global memory --------------------------------------------------------------------

def _element_pointer(context, builder, aryty, ary, idx):
    array = make_array(aryty)(context, builder, ary)
    return cgutils.get_item_pointer(context, builder, aryty, array, [idx], wraparound=False)


def _int_rmw(signed_op: str, unsigned_op: str):
    """An intrinsic ``f(array, index, value) -> old`` doing one integer ``atomicrmw``."""
    @intrinsic
    def rmw(typingctx, arr, idx, val):
        if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
            return None
        sig = arr.dtype(arr, idx, val)

        def codegen(context, builder, sig, args):
            aryty, idxty, valty = sig.args
            ptr = _element_pointer(context, builder, aryty, args[0], args[1])
            v = context.cast(builder, args[2], valty, aryty.dtype)
            op = signed_op if aryty.dtype.signed else unsigned_op
            return builder.atomic_rmw(op, ptr, v, "monotonic")
        return sig, codegen
    return rmw


atomic_add_int = _int_rmw("add", "add")
atomic_sub_int = _int_rmw("sub", "sub")
atomic_min_int = _int_rmw("min", "umin")
atomic_max_int = _int_rmw("max", "umax")
atomic_exch_int = _int_rmw("xchg", "xchg")
atomic_and_int = _int_rmw("and", "and")
atomic_or_int = _int_rmw("or", "or")
atomic_xor_int = _int_rmw("xor", "xor")


@intrinsic
def atomic_cas_bits(typingctx, arr, idx, expected, new):
    """``cmpxchg`` on the element's bits: returns (the value seen, whether it was swapped)."""
    if not isinstance(arr, types.Array):
        return None
    dtype = arr.dtype
    sig = types.Tuple((dtype, types.boolean))(arr, idx, expected, new)

    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        ptr = _element_pointer(context, builder, aryty, args[0], args[1])
        ex = context.cast(builder, args[2], sig.args[2], dtype)
        nw = context.cast(builder, args[3], sig.args[3], dtype)
        if isinstance(dtype, types.Float):
            bits = cgutils.ir.IntType(dtype.bitwidth)
            ptr = builder.bitcast(ptr, bits.as_pointer())
            ex = builder.bitcast(ex, bits)
            nw = builder.bitcast(nw, bits)
        pair = builder.cmpxchg(ptr, ex, nw, "monotonic", "monotonic")
        seen = builder.extract_value(pair, 0)
        ok = builder.extract_value(pair, 1)
        if isinstance(dtype, types.Float):
            seen = builder.bitcast(seen, context.get_value_type(dtype))
        return context.make_tuple(builder, sig.return_type, [seen, ok])
    return sig, codegen


_ADD, _SUB, _MIN, _MAX, _EXCH = range(5)


@njit(**JIT)
def _float_rmw(arr, i, v, op):
    """A float read-modify-write as a compare-and-swap loop on the element's bits."""
    old = arr[i]
    while True:
        if op == _ADD:
            new = old + v
        elif op == _SUB:
            new = old - v
        elif op == _MIN:
            new = fmin(old, v)
        elif op == _MAX:
            new = fmax(old, v)
        else:
            new = v
        seen, ok = atomic_cas_bits(arr, i, old, new)
        if ok:
            return old
        old = seen


@njit(**JIT)
def atomic_add_float(arr, i, v):
    return _float_rmw(arr, i, v, _ADD)


@njit(**JIT)
def atomic_sub_float(arr, i, v):
    return _float_rmw(arr, i, v, _SUB)


@njit(**JIT)
def atomic_min_float(arr, i, v):
    return _float_rmw(arr, i, v, _MIN)


@njit(**JIT)
def atomic_max_float(arr, i, v):
    return _float_rmw(arr, i, v, _MAX)


@njit(**JIT)
def atomic_exch_float(arr, i, v):
    return _float_rmw(arr, i, v, _EXCH)


@njit(**JIT)
def atomic_cas_value(arr, i, cmp, v):
    """atomicCAS with the precise engine's rule: swap where old == cmp (a float compare for
    float arrays, so NaN never matches and -0.0 matches 0.0)."""
    old = arr[i]
    while True:
        if not (old == cmp):
            return old
        seen, ok = atomic_cas_bits(arr, i, old, v)
        if ok:
            return old
        old = seen


@njit(**JIT)
def grow_log(addresses, values, keys):
    """The log of deferred float atomics (simt/sim/atomic_log.py) with twice the room (no
    keys stay no keys)."""
    n = addresses.size
    bigger_a = np.empty(2 * n, np.int64)
    bigger_v = np.empty(2 * n, np.float64)
    bigger_k = np.empty(2 * n if keys.size else 0, np.int64)
    bigger_a[:n] = addresses
    bigger_v[:n] = values
    bigger_k[:keys.size] = keys
    return bigger_a, bigger_v, bigger_k


# --- byte-addressed memory (MIR Pointer accesses, kernels imported from PTX) -----------------

@njit(inline="always", **JIT)
def ptr_find(ranges, a, span):
    """The number of the range [start, end) (``ranges`` holds start, end pairs) that holds the
    ``span`` bytes at address ``a`` wholly, or -1."""
    for k in range(ranges.size // 2):
        if a >= ranges[2 * k] and a + span <= ranges[2 * k + 1]:
            return k
    return -1


