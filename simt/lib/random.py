"""Poisson sampling and inverse-CDF sampling, after Warp's ``native/rand.h``.

Each function takes the random state and returns its result followed by the new state
(the caller's state variable receives it, as Warp's ``uint32& state`` does).
"""
import simt as wp


@wp.func
def random_loggam(x: float) -> float:
    """log(Gamma(x)) (Zhang and Jin, "Computation of Special Functions"), as Warp computes it."""
    if x == 1.0 or x == 2.0:
        return 0.0
    n = wp.uint32(0)
    if x < 7.0:
        n = wp.uint32(7.0 - x)
    x0 = x + float(n)
    x2 = (1.0 / x0) * (1.0 / x0)
    lg2pi = 1.8378770664093453
    gl0 = -1.39243221690590e00
    gl0 = gl0 * x2 + 1.796443723688307e-01
    gl0 = gl0 * x2 + -2.955065359477124e-02
    gl0 = gl0 * x2 + 6.410256410256410e-03
    gl0 = gl0 * x2 + -1.917526917526918e-03
    gl0 = gl0 * x2 + 8.417508417508418e-04
    gl0 = gl0 * x2 + -5.952380952380952e-04
    gl0 = gl0 * x2 + 7.936507936507937e-04
    gl0 = gl0 * x2 + -2.777777777777778e-03
    gl0 = gl0 * x2 + 8.333333333333333e-02
    gl = gl0 / x0 + 0.5 * lg2pi + (x0 - 0.5) * wp.log(x0) - x0
    if x < 7.0:
        k = wp.uint32(1)
        while k <= n:
            gl -= wp.log(x0 - 1.0)
            x0 -= 1.0
            k += wp.uint32(1)
    return gl


@wp.func
def random_poisson_mult(state: wp.uint32, lam: float):
    enlam = wp.exp(-lam)
    x = wp.uint32(0)
    prod = 1.0
    while True:
        u = wp.randf(state)
        prod *= u
        if prod > enlam:
            x += wp.uint32(1)
        else:
            return x, state
    return x, state


@wp.func
def random_poisson(state: wp.uint32, lam: float):
    """The transformed rejection method (W. Hoermann, 1993)."""
    slam = wp.sqrt(lam)
    loglam = wp.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    while True:
        u = wp.randf(state) - 0.5
        v = wp.randf(state)
        us = 0.5 - wp.abs(u)
        k = wp.floor((2.0 * a / us + b) * u + lam + 0.43)
        if us >= 0.07 and v <= vr:
            return wp.uint32(k), state
        if k < 0.0 or (us < 0.013 and v > us):
            continue
        if (wp.log(v) + wp.log(invalpha) - wp.log(a / (us * us) + b)) <= (
                -lam + k * loglam - random_loggam(k + 1.0)):
            return wp.uint32(k), state
    return wp.uint32(0), state


@wp.func
def poisson(state: wp.uint32, lam: float):
    if lam >= 10.0:
        return random_poisson(state, lam)
    if lam == 0.0:
        return wp.uint32(0), state
    return random_poisson_mult(state, lam)


@wp.func
def sample_cdf(state: wp.uint32, cdf: wp.array(dtype=float)):
    u = wp.randf(state)
    return wp.lower_bound(cdf, u), state
