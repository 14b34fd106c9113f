"""The PTX backend: every suite kernel assembles with ptxas for sm_90 and sm_80 (plain, debug
and fastmath builds), golden PTX for three kernels, and the lowerings that must match the
engines bit for bit, checked in the emitted text.

Set SIMT_UPDATE_GOLDEN=1 to rewrite tests/golden/ptx/*.ptx after an intended change.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import simt
import simt as wp
from simt import suite
from simt.errors import DeviceError
from simt.gpu import ptxas
from simt.gpu.ptx import KernelArg, emit
from simt.ir.mir import LaunchSig

GOLDEN_DIR = Path(__file__).parent / "golden" / "ptx"
GOLDEN_CASES = ("saxpy", "block_sum_shared", "warp_shuffle_sum")
ARCHS = ("sm_90", "sm_80")
needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")


def launch_sig(case: suite.Case) -> LaunchSig:
    """The signature run_case launches the case with (tuple dims are n-D)."""
    _, dim, block = case.make_inputs(np.random.default_rng(0), case.sizes["small"])
    return LaunchSig(len(dim) if isinstance(dim, tuple) else 1,
                     len(block) if isinstance(block, tuple) else 1)


def case_ptx(case: suite.Case, arch: str = "sm_90", debug: bool = False, fastmath: bool = False) -> str:
    return emit(case.kernel.compile(launch_sig(case), debug=debug, fastmath=fastmath), arch)[0]


# ---- the suite through ptxas --------------------------------------------------------------

@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
@pytest.mark.parametrize("case", suite.CASES, ids=lambda c: c.name)
def test_suite_kernel_assembles(case, debug, arch):
    ptxas.assemble(case_ptx(case, arch, debug=debug), arch)


@needs_ptxas
@pytest.mark.parametrize("case", suite.CASES, ids=lambda c: c.name)
def test_suite_kernel_assembles_with_fastmath(case):
    ptxas.assemble(case_ptx(case, "sm_90", fastmath=True), "sm_90")


# ---- golden text --------------------------------------------------------------------------

@pytest.mark.parametrize("name", GOLDEN_CASES)
def test_golden_ptx(name):
    text = case_ptx(suite.get(name))
    path = GOLDEN_DIR / f"{name}.ptx"
    if os.environ.get("SIMT_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"{path} is missing: run with SIMT_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(), (f"PTX of {name} changed; if intended, regenerate with "
                                      f"SIMT_UPDATE_GOLDEN=1 and review the diff")


def test_ptx_is_deterministic():
    k = suite.get("matmul_tiled").kernel
    first = simt.ptx(k, dim_ndim=2, block_ndim=2)
    k.clear_cache()
    assert simt.ptx(k, dim_ndim=2, block_ndim=2) == first


# ---- the ABI ------------------------------------------------------------------------------

@wp.kernel
def abi_kernel(flag: wp.bool, small: wp.int8, grid: wp.array2d(dtype=wp.float32),
               scale: wp.float64, out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if flag:
        out[i] = wp.int32(small) + grid.shape[1] + wp.int32(scale)


def test_param_layout_follows_the_documented_abi():
    text, entry, layout = emit(abi_kernel.compile(), "sm_90")
    assert entry == "abi_kernel"
    assert [(a.kind, a.dtype, a.name) for a in layout] == [
        ("scalar", np.dtype(np.bool_), "flag"), ("scalar", np.dtype(np.int8), "small"),
        ("pointer", np.dtype(np.uint64), "grid"), ("shape", np.dtype(np.int32), "grid.shape[0]"),
        ("shape", np.dtype(np.int32), "grid.shape[1]"), ("scalar", np.dtype(np.float64), "scale"),
        ("pointer", np.dtype(np.uint64), "out"), ("shape", np.dtype(np.int32), "out.shape[0]"),
        ("dim", np.dtype(np.int32), "dim[0]"), ("dim", np.dtype(np.int32), "dim[1]"),
        ("dim", np.dtype(np.int32), "dim[2]"), ("dim", np.dtype(np.int32), "dim[3]")]
    assert all(isinstance(a, KernelArg) for a in layout)
    params = re.findall(r"\.param \.(\w+) abi_kernel_param_\d+", text)
    assert params == ["u8", "s8", "u64", "s32", "s32", "f64", "u64", "s32", "s32", "s32", "s32", "s32"]


def test_unknown_arch_is_refused():
    with pytest.raises(ValueError, match="sm_70"):
        emit(abi_kernel.compile(), "sm_70")


# ---- lowerings that must match the engines exactly ------------------------------------------

@wp.kernel
def int_edge_cases(a: wp.array(dtype=wp.int32), b: wp.array(dtype=wp.int32),
                   q: wp.array(dtype=wp.int32), r: wp.array(dtype=wp.int32)):
    i = wp.tid()
    q[i] = a[i] / b[i]
    r[i] = a[i] % b[i]


def test_integer_division_defines_zero_and_minus_one_divisors():
    text = simt.ptx(int_edge_cases)
    assert re.search(r"setp\.eq\.s32 %p\d+, %r\d+, 0;", text)        # b == 0
    assert re.search(r"setp\.eq\.s32 %p\d+, %r\d+, -1;", text)       # b == -1 (INT_MIN / -1)
    assert re.search(r"selp\.b32 %r\d+, 1, %r\d+, %p\d+;", text)      # safe divisor
    assert re.search(r"selp\.b32 %r\d+, -1, %r\d+, %p\d+;", text)     # x / 0 == -1
    assert re.search(r"neg\.s32", text)                                # x / -1 == -x (wrapping)
    assert "div.s32" in text and "rem.s32" in text


@wp.kernel
def rounding(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = wp.round(x[i])


def test_round_is_half_away_from_zero_not_cvt_rni():
    text = simt.ptx(rounding)
    assert "cvt.rzi.f32.f32" in text and "copysign.f32" in text
    assert "cvt.rni" not in text                                       # rni is half-to-even
    assert re.search(r"setp\.ge\.f32 %p\d+, %f\d+, 0f3F000000;", text)  # |frac| >= 0.5


@wp.kernel
def byte_math(a: wp.array(dtype=wp.int8), b: wp.array(dtype=wp.uint8),
              c: wp.array(dtype=wp.int8), d: wp.array(dtype=wp.uint8)):
    i = wp.tid()
    c[i] = a[i] + a[i]
    d[i] = b[i] * b[i]


def test_8bit_arithmetic_wraps_at_8_bits():
    text = simt.ptx(byte_math)
    assert "ld.global.s8" in text and "ld.global.u8" in text
    assert re.search(r"add\.s32 (%r\d+), %r\d+, %r\d+;\n\tcvt\.s32\.s8 \1, \1;", text)
    assert re.search(r"mul\.lo\.u32 (%r\d+), %r\d+, %r\d+;\n\tand\.b32 \1, \1, 255;", text)
    assert "st.global.s8" in text and "st.global.u8" in text


@wp.kernel
def float_details(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.int32),
                  z: wp.array(dtype=wp.float32)):
    i = wp.tid()
    v = x[i]
    if v != 0.5:
        y[i] = wp.int32(v)
    z[i] = v * 2.0 + 1.0
    wp.atomic_min(z, 0, v)


def test_float_lowerings():
    text = simt.ptx(float_details)
    assert "setp.neu.f32" in text                    # NaN != x is true
    assert "cvt.rzi.s32.f32" in text and "testp.notanumber.f32" in text   # NaN -> 0
    assert "mul.rn.f32" in text and "add.rn.f32" in text   # no fma contraction
    assert "atom.global.cas.b32" in text and "setp.le.f32" in text   # float atomic min: CAS loop
    assert "min.f32" not in text         # PTX's min does not promise the first zero on a tie
    fast = emit(float_details.compile(fastmath=True), "sm_90")[0]
    assert "mul.f32" in fast and "mul.rn.f32" not in fast


# ---- every op, every type: ptxas accepts them ------------------------------------------------

@wp.kernel
def every_float_op(x: wp.array(dtype=wp.float32), d: wp.array(dtype=wp.float64),
                   out: wp.array(dtype=wp.float32), outd: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    w = d[i]
    out[i] = (wp.sin(v) + wp.cos(v) + wp.tan(v) + wp.asin(v) + wp.acos(v) + wp.atan(v)
              + wp.sinh(v) + wp.cosh(v) + wp.tanh(v) + wp.exp(v) + wp.log(v) + wp.log2(v)
              + wp.log10(v) + wp.sqrt(v) + wp.floor(v) + wp.ceil(v) + wp.round(v) + wp.trunc(v)
              + wp.pow(v, 2.5) + wp.atan2(v, 0.5) + v % 0.75 + v / 3.0 + wp.min(v, 1.0))
    outd[i] = (wp.sin(w) + wp.exp(w) + wp.pow(w, w) + w % 0.75 + wp.round(w) + wp.sqrt(w)
               + wp.float64(wp.int64(w)) + wp.float64(wp.uint8(v)))
    if wp.isnan(v) or wp.isinf(w):
        out[i] = 0.0


@wp.kernel
def every_int_op(a: wp.array(dtype=wp.int64), b: wp.array(dtype=wp.uint64),
                 c: wp.array(dtype=wp.uint32), e: wp.array(dtype=wp.int8)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    a[i] = x / a[0] + x % a[1] + (x << a[2]) + (x >> a[3]) + wp.min(x, a[4]) + (~x ^ a[5])
    b[i] = y / b[0] + y % b[1] + (y << b[2]) + (y >> b[3]) - wp.max(y, b[4])
    c[i] = c[i] / c[0] + (c[i] >> c[1]) + wp.uint32(x)
    e[i] = e[i] / e[0] + (e[i] << e[1]) + (e[i] >> e[2]) + wp.int8(y)


@wp.kernel
def warp_and_atomics(x: wp.array(dtype=wp.float32), l: wp.array(dtype=wp.int64),
                     m: wp.array(dtype=wp.uint32), f: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    x[i] = wp.shfl_down_sync(wp.uint32(0xFFFFFFFF), v, i % 7) + wp.shfl_sync(wp.uint32(0xFFFFFFFF), v, 3)
    l[i] = wp.shfl_xor_sync(wp.uint32(0xFFFFFFFF), l[i], 1) + wp.shfl_up_sync(wp.uint32(0xFFFFFFFF), l[i], 2)
    m[i] = wp.ballot_sync(wp.uint32(0xFFFFFFFF), v > 0.0) + wp.active_mask()
    wp.atomic_max(f, 0, wp.float64(v))
    wp.atomic_sub(l, 0, wp.int64(3))
    wp.atomic_exch(m, 1, wp.uint32(7))
    wp.atomic_cas(m, 2, wp.uint32(7), wp.uint32(9))
    wp.atomic_add(f, 1, 1.0)


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", [every_float_op, every_int_op, warp_and_atomics, abi_kernel,
                                    int_edge_cases, rounding, byte_math, float_details],
                         ids=lambda k: k.key)
def test_every_op_assembles(kernel, arch):
    for debug in (False, True):
        ptxas.assemble(emit(kernel.compile(debug=debug), arch)[0], arch)


# ---- ptxas_info -----------------------------------------------------------------------------

@needs_ptxas
def test_ptxas_info_reports_resources():
    info = simt.ptxas_info(suite.get("matmul_tiled").kernel, arch="sm_90", dim_ndim=2, block_ndim=2)
    assert info["arch"] == "sm_90"
    assert info["registers"] > 0
    assert info["shared_bytes"] == 2 * 16 * 16 * 4
    assert info["spill_store_bytes"] == 0 and info["spill_load_bytes"] == 0


def test_ptxas_info_without_ptxas_says_so(monkeypatch):
    monkeypatch.setattr(ptxas.shutil, "which", lambda name: None)
    with pytest.raises(DeviceError, match="ptxas was not found on PATH"):
        simt.ptxas_info(suite.get("saxpy").kernel)


def test_half_scalar_parameters_are_passed_as_their_bits():
    """The cuda backend's parameter values (no GPU needed): a float16 scalar goes to the kernel
    as its IEEE bits, a bfloat16 (bound as its bits) as they are, as PTX's .b16 parameters
    take them."""
    import ctypes
    from simt.gpu.runtime import scalar_value
    from simt.ir import bfloat16
    from simt.ir.types import Scalar
    h = scalar_value(Scalar.F16, np.float16(-2.75))
    assert isinstance(h, ctypes.c_uint16) and h.value == int(np.float16(-2.75).view(np.uint16))
    bits = np.uint16(bfloat16.to_bits(np.float32(3.140625)))
    assert scalar_value(Scalar.BF16, bits).value == int(bits)
    assert scalar_value(Scalar.BOOL, np.bool_(True)).value == 1
