"""Op probes: what one MIR operation costs on the GPU, measured through simt's own PTX.

Each probe is one warp running ``steps`` iterations of a loop whose body applies an
operation ``U`` times in a dependent chain (``v = op(v, c, d)``). Two launches, U = 8 and
U = 16 with the same ``steps``, differ only by 8 * steps applications of the operation, so

    SASS instructions per application = (inst(16) - inst(8)) / (8 * steps)
    cycles per application (latency)  = (cycles(16) - cycles(8)) / (8 * steps)

and the loop's own overhead and the launch cancel. Some operations need a companion to keep
values in range (``exp(v * c)``); simt.calibrate.fit subtracts the companion's own probe. These
probes are calibration: nothing here is part of the validation set.
"""
import numpy as np

import simt as wp

STEPS = 64
UNROLLS = (8, 16)


@wp.func
def f_add(v: float, c: float, d: float):
    return v + c


@wp.func
def f_mul(v: float, c: float, d: float):
    return v * c


@wp.func
def f_fma(v: float, c: float, d: float):
    return v * c + d


@wp.func
def f_div(v: float, c: float, d: float):
    return c / v


@wp.func
def f_sqrt(v: float, c: float, d: float):
    return wp.sqrt(v)


@wp.func
def f_sin(v: float, c: float, d: float):
    return wp.sin(v)


@wp.func
def f_cos(v: float, c: float, d: float):
    return wp.cos(v)


@wp.func
def f_exp(v: float, c: float, d: float):
    return wp.exp(v * c)


@wp.func
def f_log(v: float, c: float, d: float):
    return wp.log(v + c)


@wp.func
def f_pow(v: float, c: float, d: float):
    return wp.pow(v, c)


@wp.func
def f_floor(v: float, c: float, d: float):
    return wp.floor(v) + c


@wp.func
def f_cvt(v: float, c: float, d: float):
    return float(int(v)) + c


@wp.func
def f_select(v: float, c: float, d: float):
    return v - c if v > d else v + c


@wp.func
def f_max(v: float, c: float, d: float):
    return wp.max(v * c, d)


@wp.func
def i_xor_add(v: int, c: int, d: int):
    return (v ^ c) + d


@wp.func
def i_mad(v: int, c: int, d: int):
    return v * c + d


@wp.func
def i_div(v: int, c: int, d: int):
    return v / c + d


@wp.func
def i_rem(v: int, c: int, d: int):
    return v % c + d


@wp.func
def i_div_pow2(v: int, c: int, d: int):
    return v / 4096 + d


@wp.func
def i_rem_pow2(v: int, c: int, d: int):
    return v % 4096 + d


@wp.func
def i_div_const(v: int, c: int, d: int):
    return v / 7 + d


@wp.func
def i_rem_const(v: int, c: int, d: int):
    return v % 7 + d


@wp.func
def i_div_vary(v: int, c: int, d: int):
    return c / v + d


@wp.func
def i_rem_vary(v: int, c: int, d: int):
    return c % v + d


@wp.func
def i_shift_xor(v: int, c: int, d: int):
    return (v << 1) ^ c


@wp.func
def i_min_add(v: int, c: int, d: int):
    return wp.min(v + c, d)


@wp.func
def d_add(v: wp.float64, c: wp.float64, d: wp.float64):
    return v + c


@wp.func
def d_mul(v: wp.float64, c: wp.float64, d: wp.float64):
    return v * c


@wp.func
def d_div(v: wp.float64, c: wp.float64, d: wp.float64):
    return c / v


@wp.func
def d_sqrt(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.sqrt(v)


@wp.func
def d_exp(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.exp(v * c)


@wp.func
def d_log(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.log(v + c)


@wp.func
def d_sin(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.sin(v)


@wp.func
def d_cos(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.cos(v)


@wp.func
def d_pow(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.pow(v, c)


@wp.func
def d_atan(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.atan(v) + c


@wp.func
def d_atan2(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.atan2(v, c) + d


@wp.func
def d_tan(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.tan(v * c) + d


@wp.func
def d_floor(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.floor(v) + c


@wp.func
def d_cvt(v: wp.float64, c: wp.float64, d: wp.float64):
    return wp.float64(int(v)) + c


@wp.func
def l_mad(v: wp.int64, c: wp.int64, d: wp.int64):
    return v * c + d


@wp.func
def l_div_vary(v: wp.int64, c: wp.int64, d: wp.int64):
    return c / v + d


@wp.func
def l_rem_vary(v: wp.int64, c: wp.int64, d: wp.int64):
    return c % v + d


@wp.func
def l_div_const(v: wp.int64, c: wp.int64, d: wp.int64):
    return v / wp.int64(7) + d


@wp.func
def l_rem_const(v: wp.int64, c: wp.int64, d: wp.int64):
    return v % wp.int64(7) + d


@wp.func
def u_div_vary(v: wp.uint64, c: wp.uint64, d: wp.uint64):
    return c / v + d


@wp.func
def u_rem_vary(v: wp.uint64, c: wp.uint64, d: wp.uint64):
    return c % v + d


# name -> (function, element type, x, c, d): inputs keep every chain in a normal range
PROBES = {
    "f32_add": (f_add, float, 1.0, 0.5, 0.0),
    "f32_mul": (f_mul, float, 1.0, 0.999, 0.0),
    "f32_mul_add": (f_fma, float, 1.0, 0.999, 0.001),
    "f32_div": (f_div, float, 1.5, 2.0, 0.0),
    "f32_sqrt": (f_sqrt, float, 2.0, 0.0, 0.0),
    "f32_sin": (f_sin, float, 1.0, 0.0, 0.0),
    "f32_cos": (f_cos, float, 1.0, 0.0, 0.0),
    "f32_exp_mul": (f_exp, float, 0.5, -1.0, 0.0),
    "f32_log_add": (f_log, float, 1.0, 2.0, 0.0),
    "f32_pow": (f_pow, float, 2.0, 0.9, 0.0),
    "f32_floor_add": (f_floor, float, 1.5, 0.5, 0.0),
    "f32_cvt_add": (f_cvt, float, 1.0, 1.0, 0.0),
    "f32_select": (f_select, float, 1.0, 0.5, 0.75),
    "f32_mul_max": (f_max, float, 1.0, 0.999, 0.5),
    "i32_xor_add": (i_xor_add, int, 1, 0x55, 7),
    "i32_mad": (i_mad, int, 1, 3, 7),
    "i32_div_add": (i_div, int, 1000, 3, 1000),
    "i32_rem_add": (i_rem, int, 1000, 7, 1000),
    "i32_div_pow2_add": (i_div_pow2, int, 1000, 3, 100000),
    "i32_rem_pow2_add": (i_rem_pow2, int, 1000, 3, 100000),
    "i32_div_const_add": (i_div_const, int, 1000, 3, 100000),
    "i32_rem_const_add": (i_rem_const, int, 1000, 3, 100000),
    "i32_div_vary_add": (i_div_vary, int, 1000, 1000007, 3),
    "i32_rem_vary_add": (i_rem_vary, int, 1000, 1000007, 3),
    "i32_shift_xor": (i_shift_xor, int, 1, 0x55, 0),
    "i32_min_add": (i_min_add, int, 1, 3, 1 << 20),
    "f64_add": (d_add, wp.float64, 1.0, 0.5, 0.0),
    "f64_mul": (d_mul, wp.float64, 1.0, 0.999, 0.0),
    "f64_div": (d_div, wp.float64, 1.5, 2.0, 0.0),
    "f64_sqrt": (d_sqrt, wp.float64, 2.0, 0.0, 0.0),
    "i64_mad": (l_mad, wp.int64, 1, 3, 7),
    # 64-bit division (probes5: measured after the others)
    "i64_div_vary_add": (l_div_vary, wp.int64, 1000, 1000007, 3),
    "i64_rem_vary_add": (l_rem_vary, wp.int64, 1000, 1000007, 3),
    "i64_div_const_add": (l_div_const, wp.int64, 1000, 3, 100000),
    "i64_rem_const_add": (l_rem_const, wp.int64, 1000, 3, 100000),
    "u64_div_vary_add": (u_div_vary, wp.uint64, 1000, 1000007, 3),
    "u64_rem_vary_add": (u_rem_vary, wp.uint64, 1000, 1000007, 3),
    # fp64 math functions (probes4: measured after the others)
    "f64_exp_mul": (d_exp, wp.float64, 0.5, -1.0, 0.0),
    "f64_log_add": (d_log, wp.float64, 1.0, 2.0, 0.0),
    "f64_sin": (d_sin, wp.float64, 1.0, 0.0, 0.0),
    "f64_cos": (d_cos, wp.float64, 1.0, 0.0, 0.0),
    "f64_pow": (d_pow, wp.float64, 2.0, 0.9, 0.0),
    # more fp64 functions and conversions (probes6: measured after the others, on an H100)
    "f64_atan_add": (d_atan, wp.float64, 1.0, 0.5, 0.0),
    "f64_atan2_add": (d_atan2, wp.float64, 1.0, 0.5, 0.5),
    "f64_tan_mul_add": (d_tan, wp.float64, 1.0, 0.5, 0.5),
    "f64_floor_add": (d_floor, wp.float64, 1.5, 0.5, 0.0),
    "f64_cvt_add": (d_cvt, wp.float64, 1.0, 1.0, 0.0),
}
PROBES4 = ("f64_exp_mul", "f64_log_add", "f64_sin", "f64_cos", "f64_pow")
# 64-bit division: a called subroutine too (the SASS does not count it; the profiler does)
DIVISION64 = ("i64_div_vary_add", "i64_rem_vary_add", "i64_div_const_add", "i64_rem_const_add", "u64_div_vary_add",
              "u64_rem_vary_add")
PROBES5 = DIVISION64 + ("i64_mad",)
PROBES6 = ("f64_atan_add", "f64_atan2_add", "f64_tan_mul_add", "f64_floor_add", "f64_cvt_add")

_NP = {float: np.float32, int: np.int32, wp.float64: np.float64, wp.int64: np.int64, wp.uint64: np.uint64}


def make_probe(op, dtype, unroll: int):
    @wp.kernel
    def probe(x: wp.array(dtype=dtype), steps: int, c: dtype, d: dtype, out: wp.array(dtype=dtype)):
        i = wp.tid()
        v = x[i]
        for k in range(steps):
            for u in range(unroll):
                v = op(v, c, d)
        out[i] = v
    return probe


# the loop's own cost: the same probe at more steps (inst = steps * (U c + loop) + fixed)
LOOP_PROBE, LOOP_STEPS = "f32_add", 4 * STEPS


def launches(device: str = "cpu:precise", names=None, scale: int = 1):
    """(name, unroll, kernel, inputs) of every probe launch, in a fixed order; ``scale``
    multiplies the loop's steps (inputs[1]; the clock64 fallback times longer loops)."""
    out = []
    for name, (op, dtype, x, c, d) in PROBES.items():
        if names is not None and name not in names:
            continue
        npt = _NP[dtype]
        for unroll in UNROLLS:
            kernel = make_probe(op, dtype, unroll)
            inputs = [wp.array(np.full(32, x, npt), dtype=dtype, device=device), STEPS * scale, npt(c), npt(d),
                      wp.zeros(32, dtype=dtype, device=device)]
            out.append((name, unroll, kernel, inputs))
    if names is None or f"{LOOP_PROBE}@loop" in names:
        op, dtype, x, c, d = PROBES[LOOP_PROBE]
        npt = _NP[dtype]
        kernel = make_probe(op, dtype, UNROLLS[0])
        inputs = [wp.array(np.full(32, x, npt), dtype=dtype, device=device), LOOP_STEPS * scale, npt(c), npt(d),
                  wp.zeros(32, dtype=dtype, device=device)]
        out.append((f"{LOOP_PROBE}@loop", UNROLLS[0], kernel, inputs))
    return out
