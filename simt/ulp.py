"""How far apart the devices' answers to the math builtins may be, in units in the last place.

The CPU engines (``cpu``, ``cpu:precise``) compute every math builtin with one
implementation (simt/sim/mathlib.py) and agree bit for bit: they are the reference. The GPU
computes the transcendentals with routines of its own (simt/gpu/ptx_math.py,
ptx_special.py), and warp-lang's CPU backend with the C library through its own compiler;
``BOUNDS`` says how far each may be from the reference, and over which arguments. Tests and
the differential fuzzer check results against these bounds, never bit for bit against
another library. docs/ulp.md shows the same table (a test keeps the two in step).

Float64 arguments call CUDA's double-precision functions on the GPU (simt/gpu/libm64.py):
``gpu64`` bounds them in float64 ulps: CUDA's documented maximum error (CUDA C++
Programming Guide, "Mathematical Functions", double precision) plus the C library's
(glibc's libm-test-ulps for x86_64), since each may err its own way. The float32 bounds'
argument ranges are where simt's float32 routines hold; ``gpu64`` holds for all arguments.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Bound:
    gpu: int                    # float32 ulps: the GPU against the CPU engines
    warp_cpu: int               # ulps: warp-lang's CPU backend against the CPU engines
    gpu64: int                  # float64 ulps: the GPU's float64 function against the CPU's
    lo: float = -np.inf         # arguments where the GPU bound holds (first argument)
    hi: float = np.inf
    note: str = ""


# warp-lang's CPU backend calls the C library's float32 functions (sinf ...), simt its
# double-precision ones rounded to float32: glibc's erfcf is up to 3 ulp off, sinhf, tanhf and
# log10f up to 2 (measured over 600k arguments against the double functions).
_C_LIBRARY = 3

BOUNDS: dict[str, Bound] = {
    "sin": Bound(3, _C_LIBRARY, 3, -1e5, 1e5, "beyond abs(x) = 1e5 the GPU's float32 result is "
                                               "only in [-1, 1]"),
    "cos": Bound(3, _C_LIBRARY, 3, -1e5, 1e5, "beyond abs(x) = 1e5 the GPU's float32 result is "
                                               "only in [-1, 1]"),
    "tan": Bound(4, _C_LIBRARY, 3, -1e5, 1e5, "away from the poles"),
    "asin": Bound(4, _C_LIBRARY, 3, -1.0, 1.0),
    "acos": Bound(4, _C_LIBRARY, 3, -1.0, 1.0),
    "atan": Bound(4, _C_LIBRARY, 3),
    "atan2": Bound(4, _C_LIBRARY, 3),
    "sinh": Bound(4, _C_LIBRARY, 4, -80.0, 80.0, "~25 ulp just below float32 overflow"),
    "cosh": Bound(4, _C_LIBRARY, 3, -80.0, 80.0, "~25 ulp just below float32 overflow"),
    "tanh": Bound(4, _C_LIBRARY, 3),
    "exp": Bound(4, _C_LIBRARY, 2, -87.0, 88.0, "results in float32's normal range"),
    "log": Bound(3, _C_LIBRARY, 2, 0.0, np.inf),
    "log2": Bound(3, _C_LIBRARY, 3, 0.0, np.inf),
    "log10": Bound(3, _C_LIBRARY, 3, 0.0, np.inf),
    "pow": Bound(24, _C_LIBRARY, 3, 0.0, np.inf, "x > 0 and abs(y log2 x) <= 16: the float32 "
                                                 "error grows with abs(y log2 x)"),
    "cbrt": Bound(2, _C_LIBRARY, 5),
    "erf": Bound(3, _C_LIBRARY, 3),
    "erfc": Bound(6, _C_LIBRARY, 10, -np.inf, 9.0, "results in float32's normal range"),
    "erfinv": Bound(5, _C_LIBRARY, 7, -1.0, 1.0, "relative accuracy down to the subnormals "
                                                 "(Warp's CPU route rounds abs(x) < 1e-16 to 0)"),
    "erfcinv": Bound(5, _C_LIBRARY, 8, 1e-7, 2.0, "below x = 1e-7 the GPU's float32 polynomial "
                                                   "is out of its range"),
}

# Correctly rounded or exact on every device: one right answer, bit for bit everywhere.
EXACT = ("add", "sub", "mul", "div", "mod", "sqrt", "abs", "min", "max", "floor", "ceil",
         "trunc", "round", "rint", "frac", "copysign", "sign", "step", "nonzero", "clamp",
         "bit_count", "isnan", "isinf", "isfinite")


def _ordered(x: np.ndarray) -> np.ndarray:
    """Float bits as integers that order like the floats (so differences count ulps;
    -0.0 and +0.0 are one apart)."""
    bits = x.view(np.int32 if x.dtype == np.float32 else np.int64).astype(np.int64)
    top = np.int64(0x7FFFFFFF) if x.dtype == np.float32 else np.int64(0x7FFFFFFFFFFFFFFF)
    return np.where(bits < 0, -(bits & top) - 1, bits)


def ulp_distance(a, b) -> np.ndarray:
    """Ulps between two float arrays of one dtype (0 where both are NaN; a huge number where
    only one is)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.dtype in (np.float32, np.float64), (a.dtype, b.dtype)
    d = np.abs(_ordered(a) - _ordered(b)).astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    d = np.where(nan_a & nan_b, 0.0, d)
    return np.where(nan_a ^ nan_b, np.inf, d)


def gpu_ulps(got, ref) -> np.ndarray:
    """The GPU's distance from the reference in float32 ulps (float64 results rounded to
    float32 first, and one ulp of that rounding allowed for): for results that may hold a
    widened float32 value (the fuzzer's out_math); a float64 function's own result is judged
    with ``ulp_distance`` against ``gpu64``."""
    got, ref = np.asarray(got), np.asarray(ref)
    if got.dtype == np.float64:
        with np.errstate(over="ignore"):     # beyond float32's range: both become infinities
            narrow = got.astype(np.float32), ref.astype(np.float32)
        return np.maximum(ulp_distance(*narrow) - 1, 0)
    return ulp_distance(got, ref)


def gpu_bound(name: str) -> int:
    """Float32 ulps the GPU may be from the CPU engines for builtin ``name`` (0: exact)."""
    bound = BOUNDS.get(name)
    return 0 if bound is None else bound.gpu


def table_markdown() -> str:
    """The bounds as the Markdown table of docs/ulp.md."""
    def arg_range(b: Bound) -> str:
        if b.lo == -np.inf and b.hi == np.inf:
            return "all"
        return f"[{b.lo:g}, {b.hi:g}]"
    rows = ["| builtin | GPU float32 (ulps) | arguments | GPU float64 (float64 ulps) "
            "| warp-lang CPU (ulps) | note |", "|---|---|---|---|---|---|"]
    for name, b in BOUNDS.items():
        rows.append(f"| {name} | {b.gpu} | {arg_range(b)} | {b.gpu64} | {b.warp_cpu} | {b.note} |")
    rows.append(f"| {', '.join(EXACT)} | 0 | all | 0 | 0 | exact or correctly rounded |")
    return "\n".join(rows)
