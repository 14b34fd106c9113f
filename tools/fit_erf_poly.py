"""Fit the float32 polynomials of the GPU's erf/erfc routines (simt/gpu/ptx_special.py).

    python tools/fit_erf_poly.py

prints the coefficient lists (highest power first). Each is a least-squares fit with
relative weights on 600 Chebyshev nodes, in double precision, rounded to float32 one
coefficient at a time with the remaining ones refitted (so the rounding of the leading
coefficients is compensated by the others). Reference values come from Python's math.erf
and math.erfc (double precision). It also reports the largest error of each fit, in float32
ulps, evaluated the way the PTX evaluates it (fma, float32 rounding).
"""
from __future__ import annotations

import math

import numpy as np

f32 = np.float32
NODES = 600


def chebyshev_nodes(lo: float, hi: float) -> np.ndarray:
    k = np.arange(NODES)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / NODES)


def fit_float32(v: np.ndarray, y: np.ndarray, degree: int) -> list[float]:
    weights = 1 / np.abs(y)
    coeffs: list[float] = []
    for i in range(degree + 1):
        done = np.polyval(coeffs + [0.0] * (degree + 1 - len(coeffs)), v) if coeffs else 0.0
        c = np.polyfit(v, y - done, degree - i, w=weights)
        coeffs.append(float(f32(c[0])))
    return coeffs


def fma(a, b, c):
    return f32(np.float64(a) * np.float64(b) + np.float64(c))


def horner(x, coeffs):
    acc = f32(coeffs[0])
    for c in coeffs[1:]:
        acc = fma(acc, x, f32(c))
    return acc


def ulps(a: float, b: float) -> int:
    ia, ib = (int(np.float32(v).view(np.int32)) for v in (a, b))
    ia = -(ia & 0x7FFFFFFF) if ia < 0 else ia
    ib = -(ib & 0x7FFFFFFF) if ib < 0 else ib
    return abs(ia - ib)


def erfc_scaled(x: float) -> float:
    """erfc(x) e^(x^2) x: smooth in 1/x, tends to 1/sqrt(pi)."""
    return math.erfc(x) * math.exp(x * x) * x


def main() -> None:
    x = chebyshev_nodes(1e-9, 1.0)
    small = fit_float32(x * x, np.array([math.erf(v) / v for v in x]), 6)
    print("_ERF_SMALL =", small)
    pieces = {}
    for name, lo, hi, center, degree in (("_ERFC_MID", 0.5, 2.0, 1.25, 10),
                                         ("_ERFC_BIG", 2.0, 10.1, 0.3, 9)):
        x = chebyshev_nodes(lo, hi)
        pieces[name] = (fit_float32(1 / x - center, np.array([erfc_scaled(v) for v in x]), degree),
                        center)
        print(f"{name}_CENTER = {center}")
        print(f"{name} =", pieces[name][0])
    worst = max(ulps(float(f32(horner(f32(v * v), small) * v)), math.erf(float(v)))
                for v in np.linspace(0, 1, 4001)[1:].astype(np.float32))
    print(f"# erf on (0, 1): {worst} ulp")
    worst = 0
    for v in np.linspace(0.5, 9.0, 4001).astype(np.float32):
        coeffs, center = pieces["_ERFC_MID" if v < 2 else "_ERFC_BIG"]
        t = f32(f32(1) / v)
        h = f32(v * v)
        e = fma(f32(math.exp(-float(h))), -fma(v, v, -h), f32(math.exp(-float(h))))
        got = f32(f32(e * horner(f32(t - f32(center)), coeffs)) * t)
        worst = max(worst, ulps(float(got), math.erfc(float(v))))
    print(f"# erfc on [0.5, 9] (with an exact exp): {worst} ulp")


if __name__ == "__main__":
    main()
