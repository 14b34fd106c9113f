"""The one implementation of the MIR's math functions on the CPU, shared by every engine.

The fast engine's generated numba code calls these scalar functions directly; the precise
engine calls the same functions vectorised (``ufunc(op)``, numba ufuncs over the same
scalar code). So ``cpu`` and ``cpu:precise`` agree bit for bit on every math op: there is
literally one implementation.

What each function computes (the MIR's definition on the CPU):
- the transcendentals (sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, exp, exp2,
  log, log2, log10, pow, cbrt, erf, erfc; and the exact copysign, rint) call the C math
  library's double-precision function and round its result to the argument's type. For
  float32 that is the correctly rounded answer in all but the rarest cases, on any
  platform (the C library's own float32 functions, which warp-lang's CPU backend calls,
  are up to 3 ulp off). The C library is reached through symbols of our own
  (``simt_libm_sin`` ...), so LLVM treats each call as opaque: it cannot swap in a vector
  library or fold a call differently in a loop than in straight-line code;
- ``erfinv``/``erfcinv`` (not in C) port Warp's own CPU code: Cephes' ``ndtri`` in double
  precision, refined by one Newton step on erf (erfc near +-1), rounded to the argument's
  type; below abs(x) = 0.01, where that route loses relative accuracy (and returns 0 for x
  under 1e-16), the Maclaurin series instead;
- ``popc`` counts the set bits of an integer's two's-complement pattern (LLVM ``ctpop``).

The GPU computes the transcendentals with its own routines; docs/ulp.md bounds how far.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import math
import sys
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit, types, vectorize
from numba.core import cgutils
from numba.extending import intrinsic

from ..ir.mir import Op

JIT = dict(cache=True, nogil=True, error_model="numpy")


def _c_library() -> ctypes.CDLL:
    if sys.platform == "win32":
        return ctypes.CDLL("ucrtbase")
    name = ctypes.util.find_library("m")
    return ctypes.CDLL(name) if name else ctypes.CDLL(None)


_LIBM = _c_library()


def _symbol(c_name: str) -> str:
    """Our name for a C math function, registered with LLVM's JIT (and in every process
    that loads cached machine code: this module is imported before any kernel's code)."""
    name = f"simt_libm_{c_name}"
    llvm.add_symbol(name, ctypes.cast(getattr(_LIBM, c_name), ctypes.c_void_p).value)
    return name


def _c_math(c_name: str, nargs: int):
    """An intrinsic ``f(x[, y])`` for floats of one type: the C library's double-precision
    function, its result rounded to the argument's type."""
    symbol = _symbol(c_name)

    def typer(args):
        if not all(isinstance(a, types.Float) for a in args) or len(set(args)) != 1:
            return None
        t = args[0]

        def codegen(context, builder, sig, llargs):
            double = context.get_value_type(types.float64)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(double, [double] * nargs), symbol)
            xs = [context.cast(builder, a, t, types.float64) for a in llargs]
            return context.cast(builder, builder.call(fn, xs), types.float64, t)
        return t(*args), codegen

    if nargs == 1:
        @intrinsic
        def unary(typingctx, x):
            return typer((x,))
        return unary

    @intrinsic
    def binary(typingctx, x, y):
        return typer((x, y))
    return binary


@intrinsic
def _ctpop(typingctx, x):
    """Set bits of an integer's two's-complement pattern, in the integer's own type."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return x(x), codegen


c_sin, c_cos, c_tan = (_c_math(n, 1) for n in ("sin", "cos", "tan"))
c_asin, c_acos, c_atan = (_c_math(n, 1) for n in ("asin", "acos", "atan"))
c_sinh, c_cosh, c_tanh = (_c_math(n, 1) for n in ("sinh", "cosh", "tanh"))
c_exp, c_exp2 = (_c_math(n, 1) for n in ("exp", "exp2"))
c_log, c_log2, c_log10 = (_c_math(n, 1) for n in ("log", "log2", "log10"))
c_cbrt, c_erf, c_erfc, c_rint = (_c_math(n, 1) for n in ("cbrt", "erf", "erfc", "rint"))
c_pow, c_atan2, c_copysign = (_c_math(n, 2) for n in ("pow", "atan2", "copysign"))
_FMA_TYPES = (types.float32, types.float64)


@intrinsic
def c_fma(typingctx, x, y, z):
    """x * y + z rounded once (as C's fmaf and fma): LLVM's fma, one instruction on CPUs
    with FMA and a call to the C library's fmaf/fma on others; exact either way."""
    if x not in _FMA_TYPES or not x == y == z:
        return None

    def codegen(context, builder, sig, llargs):
        return builder.fma(*llargs)
    return x(x, y, z), codegen


# --- the scalar functions (what the fast engine's code calls) --------------------------------

@njit(**JIT)
def sin(x):
    return c_sin(x)


@njit(**JIT)
def cos(x):
    return c_cos(x)


@njit(**JIT)
def tan(x):
    return c_tan(x)


@njit(**JIT)
def asin(x):
    return c_asin(x)


@njit(**JIT)
def acos(x):
    return c_acos(x)


@njit(**JIT)
def atan(x):
    return c_atan(x)


@njit(**JIT)
def sinh(x):
    return c_sinh(x)


@njit(**JIT)
def cosh(x):
    return c_cosh(x)


@njit(**JIT)
def tanh(x):
    return c_tanh(x)


@njit(**JIT)
def exp(x):
    return c_exp(x)


@njit(**JIT)
def exp2(x):
    return c_exp2(x)


@njit(**JIT)
def log(x):
    return c_log(x)


@njit(**JIT)
def log2(x):
    return c_log2(x)


@njit(**JIT)
def log10(x):
    return c_log10(x)


@njit(**JIT)
def cbrt(x):
    return c_cbrt(x)


@njit(**JIT)
def erf(x):
    return c_erf(x)


@njit(**JIT)
def erfc(x):
    return c_erfc(x)


@njit(**JIT)
def rint(x):
    return c_rint(x)


@njit(**JIT)
def pow(x, y):  # noqa: A001 - the MIR op's name
    return c_pow(x, y)


@njit(**JIT)
def atan2(y, x):
    return c_atan2(y, x)


@njit(**JIT)
def copysign(x, y):
    return c_copysign(x, y)


@njit(**JIT)
def popc(x):
    return _ctpop(x)


# FMA: x * y + z rounded once, to nearest: the C library's fmaf and fma, which are exact (as
# PTX fma.rn is). Directed rounding (float32 only, as PTX add/sub/mul .rz/.rm/.rp lower to)
# rounds the double sum x * y + z (exact where it fits a double: the float32 product always
# does) to the float32 on the mode's side: the nearest float32, stepped one ulp where it
# overshot.
@njit(**JIT)
def fma(x, y, z):
    return c_fma(x, y, z)


@njit(**JIT)
def fma_rz(x, y, z):
    exact = np.float64(x) * np.float64(y) + np.float64(z)
    v = np.float32(exact)
    return np.nextafter(v, np.float32(0.0)) if abs(np.float64(v)) > abs(exact) else v


@njit(**JIT)
def fma_rm(x, y, z):
    exact = np.float64(x) * np.float64(y) + np.float64(z)
    v = np.float32(exact)
    return np.nextafter(v, np.float32(-np.inf)) if np.float64(v) > exact else v


@njit(**JIT)
def fma_rp(x, y, z):
    exact = np.float64(x) * np.float64(y) + np.float64(z)
    v = np.float32(exact)
    return np.nextafter(v, np.float32(np.inf)) if np.float64(v) < exact else v


# Cephes' ndtri (the inverse of the standard normal CDF), as Warp 1.19's crt.h has it.
_SQRT_2PI = 2.50662827463100050242e0
_EXP_NEG2 = 0.13533528323661269189
_P0 = np.array([-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
                1.39312609387279679503e1, -1.23916583867381258016e0])
_Q0 = np.array([1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
                -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
                1.59056225126211695515e1, -1.18331621121330003142e0])
_P1 = np.array([4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
                4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
                -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4])
_Q1 = np.array([1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
                1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
                -3.80806407691578277194e-2, -9.33259480895457427372e-4])
_P2 = np.array([3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
                1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
                3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9])
_Q2 = np.array([6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
                2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
                2.89247864745380683936e-6, 6.79019408009981274425e-9])


@njit(**JIT)
def _polevl(x, coefs):
    ans = coefs[0]
    for i in range(1, coefs.size):
        ans = ans * x + coefs[i]
    return ans


@njit(**JIT)
def _p1evl(x, coefs):
    """The polynomial with a leading coefficient of 1 (not stored)."""
    ans = x + coefs[0]
    for i in range(1, coefs.size):
        ans = ans * x + coefs[i]
    return ans


@njit(**JIT)
def _ndtri(y):
    if y <= 0.0 or y >= 1.0:
        return -math.inf if y <= 0.0 else math.inf
    code = 1
    if y > 1.0 - _EXP_NEG2:
        y = 1.0 - y
        code = 0
    if y > _EXP_NEG2:
        y = y - 0.5
        y2 = y * y
        x = y + y * (y2 * _polevl(y2, _P0) / _p1evl(y2, _Q0))
        return x * _SQRT_2PI
    x = math.sqrt(-2.0 * c_log(y))
    x0 = x - c_log(x) / x
    z = 1.0 / x
    if x < 8.0:
        x1 = z * _polevl(z, _P1) / _p1evl(z, _Q1)
    else:
        x1 = z * _polevl(z, _P2) / _p1evl(z, _Q2)
    x = x0 - x1
    if code != 0:
        x = -x
    return x


@njit(**JIT)
def _erfinv64(z):
    if z == 0.0:
        return 0.0
    if z == 1.0:
        return math.inf
    if z == -1.0:
        return -math.inf
    if z < -1.0 or z > 1.0:
        return math.nan
    if abs(z) < 0.01:
        # (z + 1) / 2 rounds away z's low bits (all of them below 1e-16), so near 0 Cephes'
        # route loses relative accuracy; the Maclaurin series of erfinv is exact to double
        # there: sum c_k / (2k + 1) (sqrt(pi) z / 2)^(2k + 1), c = 1, 1, 7/6, 127/90, 4369/2520
        t = 0.5 * math.sqrt(math.pi) * z
        t2 = t * t
        return t * (1.0 + t2 * (1.0 / 3.0 + t2 * (7.0 / 30.0 + t2 * (127.0 / 630.0
                                                                 + t2 * (4369.0 / 22680.0)))))
    # Cephes' ndtri at (|z| + 1) / 2, or at (1 - |z|) / 2 (exact) above 0.5 so that z within
    # 2^-53 of +-1 keeps its distance from 1; then one Newton step on erf(x) = |z| (erfc(x) =
    # 1 - |z| above 0.5): Cephes is good to ~5e-12 relative near +-1, the step to erf's ulp.
    a = abs(z)
    if a < 0.5:
        x = _ndtri((a + 1.0) / 2.0) / math.sqrt(2.0)
    else:
        x = -_ndtri((1.0 - a) / 2.0) / math.sqrt(2.0)
    miss = c_erf(x) - a if a < 0.5 else (1.0 - a) - c_erfc(x)
    x -= miss / (_TWO_OVER_SQRT_PI * c_exp(-x * x))
    return x if z > 0.0 else -x


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@njit(**JIT)
def erfinv(x):
    """Warp's erfinv: Cephes in double precision, rounded to x's type."""
    return _narrow(x, _erfinv64(np.float64(x)))


@njit(**JIT)
def erfcinv(x):
    """Warp's erfcinv: erfinv(1 - x) in double precision."""
    return _narrow(x, _erfinv64(1.0 - np.float64(x)))


@intrinsic
def _narrow(typingctx, like, value):
    """``value`` (float64) rounded to the type of ``like``."""
    if not isinstance(like, types.Float):
        return None

    def codegen(context, builder, sig, args):
        return context.cast(builder, args[1], sig.args[1], like)
    return like(like, value), codegen


# --- vectorised, for the precise engine ---------------------------------------------------------
# Made numba ufuncs on first use (``ufunc``), compiled per dtype and cached on disk, around the
# same scalar functions.

def sin_v(x):
    return sin(x)


def cos_v(x):
    return cos(x)


def tan_v(x):
    return tan(x)


def asin_v(x):
    return asin(x)


def acos_v(x):
    return acos(x)


def atan_v(x):
    return atan(x)


def sinh_v(x):
    return sinh(x)


def cosh_v(x):
    return cosh(x)


def tanh_v(x):
    return tanh(x)


def exp_v(x):
    return exp(x)


def exp2_v(x):
    return exp2(x)


def log_v(x):
    return log(x)


def log2_v(x):
    return log2(x)


def log10_v(x):
    return log10(x)


def cbrt_v(x):
    return cbrt(x)


def erf_v(x):
    return erf(x)


def erfc_v(x):
    return erfc(x)


def erfinv_v(x):
    return erfinv(x)


def erfcinv_v(x):
    return erfcinv(x)


def rint_v(x):
    return rint(x)


def popc_v(x):
    return popc(x)


def pow_v(x, y):
    return pow(x, y)


def atan2_v(y, x):
    return atan2(y, x)


def copysign_v(x, y):
    return copysign(x, y)


def fma_v(x, y, z):
    return fma(x, y, z)


def fma_rz_v(x, y, z):
    return fma_rz(x, y, z)


def fma_rm_v(x, y, z):
    return fma_rm(x, y, z)


def fma_rp_v(x, y, z):
    return fma_rp(x, y, z)


# FMA's functions by rounding (the MIR's FMA arg: None is to nearest)
FMA_FUNCTIONS = {None: "fma", "rz": "fma_rz", "rm": "fma_rm", "rp": "fma_rp"}


# MIR op -> the name of its function here (the vectorised one adds ``_v``)
FUNCTIONS: dict[Op, str] = {
    Op.SIN: "sin", Op.COS: "cos", Op.TAN: "tan", Op.ASIN: "asin", Op.ACOS: "acos",
    Op.ATAN: "atan", Op.SINH: "sinh", Op.COSH: "cosh", Op.TANH: "tanh", Op.EXP: "exp",
    Op.EXP2: "exp2", Op.LOG: "log", Op.LOG2: "log2", Op.LOG10: "log10", Op.CBRT: "cbrt",
    Op.ERF: "erf", Op.ERFC: "erfc", Op.ERFINV: "erfinv", Op.ERFCINV: "erfcinv",
    Op.RINT: "rint", Op.POPC: "popc", Op.POW: "pow", Op.ATAN2: "atan2",
    Op.COPYSIGN: "copysign",
}


_UFUNCS: dict = {}

# Part of every generated fast-engine module's text, so the disk cache of compiled kernels
# (keyed by that text) never serves machine code built from an older version of this file.
VERSION = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def ufunc(op: Op, dtype: np.dtype, rounding: str | None = None):
    """The vectorised implementation of ``op`` on ``dtype`` values (arrays or scalars);
    ``rounding``: FMA's (the MIR's FMA arg).

    Its loop for exactly that type is compiled first and named in every call: numpy would
    otherwise pick the first loop it may cast to (an int32 bit count on int64 values)."""
    name = FMA_FUNCTIONS[rounding] if op is Op.FMA else FUNCTIONS[op]
    f = _UFUNCS.get(name)
    if f is None:
        f = _UFUNCS[name] = vectorize(cache=True)(globals()[name + "_v"])
    code = np.dtype(dtype).char
    nargs = 3 if op is Op.FMA else 2 if op in (Op.POW, Op.ATAN2, Op.COPYSIGN) else 1
    signature = code * nargs + "->" + code
    if signature.replace("->", "") not in {t.replace("->", "") for t in f.types}:
        name = np.dtype(dtype).name
        f.add(f"{name}({', '.join([name] * nargs)})")
    return lambda *args: f(*args, signature=signature)
