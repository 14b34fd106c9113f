"""PTX for the special functions PTX has no instruction for: cbrt, erf, erfc, erfinv, erfcinv.

Float32 routines (float64 arguments call CUDA's double-precision functions instead, like
the other approximate ops of ptx_math.py: libm64.py); their accuracy against the CPU engines is bounded in
docs/ulp.md:
  cbrt     ex2/lg2 estimate, one Newton step in float32
  erf      |x| < 1: x * P(x^2); above: 1 - erfc(|x|), with the sign of x
  erfc     x in (-0.5, 0.5): 1 - erf(x); |x| >= 0.5: e^(-x^2) * Q(1/|x|) / |x| with x^2 split
           into two floats (its rounding error compensated), and 2 - erfc(|x|) for x < 0
  erfinv   Giles' single-precision polynomials in w = -log((1 - y)(1 + y))
  erfcinv  the same with w = -log(x (2 - x)) and y = 1 - x, so a small x keeps its
           accuracy down to x ~ 1e-7 (below, the polynomial is outside its range)
The polynomial coefficients of erf/erfc are least-squares fits (tools/fit_erf_poly.py):
erf(x)/x in x^2 on [0, 1], and erfc(x) e^(x^2) x in 1/x - c on [0.5, 2] and [2, 10.1],
rounded to float32 one coefficient at a time with the rest refitted. Giles' coefficients
are from M. Giles, "Approximating the erfinv function", GPU Computing Gems (2011).
"""
from __future__ import annotations

from ..ir.mir import Op
from ..ir.types import Scalar
from .ptx_math import _Math, _exp, _log

_ERF_SMALL = [7.898209878476337e-05, -0.0008024353883229196, 0.00519005348905921,
              -0.026854807510972023, 0.11283612251281738, -0.3761262893676758, 1.128379225730896]
_ERFC_MID_CENTER = 1.25
_ERFC_MID = [0.00028092844877392054, 4.642005296773277e-05, -0.0012633755104616284,
             0.0024256783071905375, -0.0039122626185417175, 0.005822994280606508,
             -0.0057570370845496655, -0.002863289788365364, 0.03674011304974556,
             -0.13596563041210175, 0.39128047227859497]
_ERFC_BIG_CENTER = 0.3
_ERFC_BIG = [0.9113858342170715, -0.29045480489730835, -0.26938000321388245, 0.34499433636665344,
             -0.15835881233215332, -0.081596739590168, 0.20807139575481415, -0.13558359444141388,
             -0.13460101187229156, 0.5416331887245178]
_GILES_CENTRAL = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]
_GILES_TAIL = [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]


def _finite(m: _Math, a: str) -> str:
    return m.pred("testp.finite.f32", m.reg(a))


def _cbrt(m: _Math, x: str) -> str:
    ax = m.abs(x)
    third = m.mul(m.op("lg2.approx.f32", ax), m.c(1 / 3))
    y = m.op("ex2.approx.f32", third)
    y = m.div(m.add(m.add(y, y), m.div(ax, m.mul(y, y))), m.c(3.0))   # Newton: (2y + a/y^2)/3
    special = m.por(m.cmp("eq", ax, m.c(0.0)), m.pred("not.pred", _finite(m, ax)))
    return m.sel(x, m.copysign(x, y), special)            # +-0, +-inf and NaN are themselves


def _erf_small(m: _Math, x: str) -> str:
    return m.mul(m.horner(m.mul(x, x), _ERF_SMALL), x)


def _erfc_positive(m: _Math, ax: str) -> str:
    """erfc(ax) for ax >= 0.5 (relative accuracy down to the subnormals)."""
    t = m.div(m.c(1.0), ax)
    mid = m.horner(m.sub(t, m.c(_ERFC_MID_CENTER)), _ERFC_MID)
    big = m.horner(m.sub(t, m.c(_ERFC_BIG_CENTER)), _ERFC_BIG)
    q = m.sel(mid, big, m.cmp("lt", ax, m.c(2.0)))
    h = m.mul(ax, ax)
    low = m.fma(ax, ax, m.neg(h))                           # ax^2 = h + low exactly
    low = m.sel(low, m.c(0.0), _finite(m, low))
    e = _exp(m, m.neg(h))
    e = m.fma(e, m.neg(low), e)                             # e^-(h + low) to first order
    return m.mul(m.mul(e, q), t)


def _erf(m: _Math, x: str) -> str:
    ax = m.abs(x)
    large = m.copysign(x, m.sub(m.c(1.0), _erfc_positive(m, ax)))
    return m.sel(_erf_small(m, x), large, m.cmp("lt", ax, m.c(1.0)))


def _erfc(m: _Math, x: str) -> str:
    ax = m.abs(x)
    positive = _erfc_positive(m, ax)
    large = m.sel(m.sub(m.c(2.0), positive), positive, m.cmp("lt", x, m.c(0.0)))
    return m.sel(m.sub(m.c(1.0), _erf_small(m, x)), large, m.cmp("lt", ax, m.c(0.5)))


def _giles(m: _Math, w: str, y: str) -> str:
    """erfinv(y) given w = -log((1 - y)(1 + y))."""
    central = m.horner(m.sub(w, m.c(2.5)), _GILES_CENTRAL)
    tail = m.horner(m.sub(m.op("sqrt.rn.f32", w), m.c(3.0)), _GILES_TAIL)
    p = m.sel(central, tail, m.cmp("lt", w, m.c(5.0)))
    return m.mul(p, y)


def _erfinv(m: _Math, y: str) -> str:
    w = m.neg(_log(m, m.mul(m.sub(m.c(1.0), y), m.add(m.c(1.0), y))))
    r = _giles(m, w, y)
    ay = m.abs(y)
    r = m.sel(m.copysign(y, m.c(float("inf"))), r, m.cmp("eq", ay, m.c(1.0)))
    r = m.sel(m.c(0.0), r, m.cmp("eq", y, m.c(0.0)))        # erfinv(-0) == +0, as Warp's
    return m.sel(m.c(float("nan")), r, m.cmp("gtu", ay, m.c(1.0)))


def _erfcinv(m: _Math, x: str) -> str:
    y = m.sub(m.c(1.0), x)
    w = m.neg(_log(m, m.mul(x, m.sub(m.c(2.0), x))))
    r = _giles(m, w, y)
    r = m.sel(m.c(float("inf")), r, m.cmp("eq", x, m.c(0.0)))
    r = m.sel(m.c(float("-inf")), r, m.cmp("eq", x, m.c(2.0)))
    r = m.sel(m.c(0.0), r, m.cmp("eq", x, m.c(1.0)))
    outside = m.por(m.cmp("ltu", x, m.c(0.0)), m.cmp("gt", x, m.c(2.0)))
    return m.sel(m.c(float("nan")), r, outside)


ROUTINES = {Op.CBRT: _cbrt, Op.ERF: _erf, Op.ERFC: _erfc, Op.ERFINV: _erfinv,
            Op.ERFCINV: _erfcinv}
