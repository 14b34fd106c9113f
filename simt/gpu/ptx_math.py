"""PTX for float ops: exact ones where PTX has them, short routines where it does not.

Exact (bit-identical to the precise engine, without fastmath): + - * / sqrt with ``.rn``, copysign, rint
(explicit rounding also stops ptxas from fusing a*b+c into an fma the engines do not do),
rsqrt as 1/sqrt (two roundings, as the engines compute it), min/max (compare and select:
NaN-ignoring, the first operand on a tie of zeros), floor/ceil/trunc, round (half away from zero, built from trunc since cvt.rni is
half-to-even), fmod (an exact shift-and-subtract loop: at most ~280 steps for float32,
~2100 for float64), isnan/isinf.

Approximate (PTX has no accurate instruction; measured against numpy over typical ranges):
  sin, cos, tan   pi/2 quadrant reduction (three-part pi/2, fma) and cephes' sinf/cosf
               polynomials: <= 2 ulp for |x| <= 1e5 (tan: plus one division); beyond 1e5 the
               reduction is not accurate and the unreduced sin/cos.approx are used (garbage
               relative to the true value, but in [-1, 1])
  exp2, exp    ex2.approx, exp with the product's rounding error compensated: <= 3 ulp
  log, log2, log10   exponent split + atanh series (accurate near 1): <= 2 ulp
  atan, atan2, asin, acos   cephes' atanf polynomial after octant reduction: <= 3 ulp
  sinh, cosh, tanh   Taylor series for |x| < 1, exp-based above: <= 3 ulp below |x| = 80,
               ~25 ulp just below float32 overflow (e^(|x| - ln 2))
  pow          ex2(y * log2|x|) with C's special cases: rel error ~ 2^-24 * |y log2 x|
               (~80 ulp when the result is near the float32 range limits)
(measured on an H200 against numpy: the ulp figures above are the largest seen over specials
plus ~500 random arguments per op. docs/ulp.md has the bounds against the CPU engines, which
compute with simt/sim/mathlib.py; ptx_special.py has cbrt and the erf family.)
Float64 versions of the approximate ops call CUDA's double-precision math library
(libm64.py): float64 accuracy. With fastmath: div.full.f32,
sqrt/rsqrt.approx.f32, unreduced sin/cos.approx, tanh.approx, and contractable + - *.
"""
from __future__ import annotations

import math

from ..ir.mir import Op
from ..ir.types import Scalar
from . import libm64
from .ptx import Emitter, imm_text

_F = {Scalar.F32: "f32", Scalar.F64: "f64"}
APPROXIMATE = frozenset({Op.SIN, Op.COS, Op.TAN, Op.ASIN, Op.ACOS, Op.ATAN, Op.ATAN2, Op.SINH,
                         Op.COSH, Op.TANH, Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.LOG10, Op.POW})


class _Math:
    """Emit float instructions of one type into fresh temporaries: ``m.add(a, b)`` -> name."""

    def __init__(self, em: Emitter, t: Scalar):
        self.em, self.t, self.f = em, t, _F[t]

    def c(self, value: float) -> str:
        return imm_text(value, self.t)

    def op(self, text: str, *srcs: str) -> str:
        r = self.em.tmp(self.t)
        self.em.ins(f"{text} {r}, {', '.join(srcs)}")
        return r

    def pred(self, text: str, *srcs: str) -> str:
        p = self.em.tmp(Scalar.BOOL)
        self.em.ins(f"{text} {p}, {', '.join(srcs)}")
        return p

    def reg(self, a: str) -> str:
        """``a`` in a register (testp and mov.b32 {..} need one)."""
        return a if a.startswith("%") else self.op(f"mov.{self.f}", a)

    def add(self, a, b): return self.op(f"add.rn.{self.f}", a, b)
    def sub(self, a, b): return self.op(f"sub.rn.{self.f}", a, b)
    def mul(self, a, b): return self.op(f"mul.rn.{self.f}", a, b)
    def div(self, a, b): return self.op(f"div.rn.{self.f}", a, b)
    def fma(self, a, b, c): return self.op(f"fma.rn.{self.f}", a, b, c)
    def abs(self, a): return self.op(f"abs.{self.f}", a)
    def neg(self, a): return self.op(f"neg.{self.f}", a)
    def sel(self, a, b, p): return self.op(f"selp.{self.f}", a, b, p)
    def copysign(self, sign_of, value): return self.op(f"copysign.{self.f}", sign_of, value)
    def cmp(self, how, a, b): return self.pred(f"setp.{how}.{self.f}", a, b)
    def por(self, a, b): return self.pred("or.pred", a, b)
    def pand(self, a, b): return self.pred("and.pred", a, b)

    def signbit(self, a: str) -> str:
        bits = self.em.tmp("%rd" if self.t is Scalar.F64 else "%r")
        self.em.ins(f"mov.b{self.t.bits} {bits}, {self.reg(a)}")
        return self.pred(f"setp.lt.s{self.t.bits}", bits, "0")

    def horner(self, x: str, coeffs: list[float]) -> str:
        """c0*x^n + ... + cn by fma, highest power first."""
        acc = self.c(coeffs[0])
        for k in coeffs[1:]:
            acc = self.fma(acc, x, self.c(k))
        return acc


# ---- entry points -------------------------------------------------------------------------

def binary(em: Emitter, op: Op, d: str, a: str, b: str, t: Scalar) -> None:
    f = _F[t]
    fast = em.fastmath
    rn = "" if fast else ".rn"
    if op in (Op.ADD, Op.SUB, Op.MUL):
        em.ins(f"{op.name.lower()}{rn}.{f} {d}, {a}, {b}")
    elif op is Op.DIV:
        em.ins(f"div.full.f32 {d}, {a}, {b}" if fast and t is Scalar.F32 else f"div.rn.{f} {d}, {a}, {b}")
    elif op in (Op.MIN, Op.MAX):
        float_min_max(em, op is Op.MIN, d, a, b, t)
    elif op is Op.REM:
        _fmod(_Math(em, t), d, a, b)
    elif op is Op.COPYSIGN:                     # PTX copysign takes the sign source first
        em.ins(f"copysign.{f} {d}, {b}, {a}")
    elif op in (Op.POW, Op.ATAN2):
        routine = _pow if op is Op.POW else _atan2
        approximate(em, op, t, d, [a, b], lambda m, args: routine(m, *args))
    else:
        raise NotImplementedError(f"PTX backend: {op.name} on {t}")


def float_min_max(em: Emitter, is_min: bool, d: str, a: str, b: str, t: Scalar) -> None:
    """The MIR's MIN/MAX (Warp's CPU code): ``a`` when a <= b (a >= b) or b is NaN, else
    ``b``, so a NaN loses and a tie of -0.0 and +0.0 gives the first operand, which PTX's
    min/max do not promise."""
    f = _F[t]
    keep, b_nan = em.tmp(Scalar.BOOL), em.tmp(Scalar.BOOL)
    em.ins(f"setp.{'le' if is_min else 'ge'}.{f} {keep}, {a}, {b}")
    em.ins(f"setp.nan.{f} {b_nan}, {b}, {b}")
    em.ins(f"or.pred {keep}, {keep}, {b_nan}")
    em.ins(f"selp.{f} {d}, {a}, {b}, {keep}")


def unary(em: Emitter, op: Op, d: str, a: str, t: Scalar) -> None:
    f = _F[t]
    m = _Math(em, t)
    fast = em.fastmath and t is Scalar.F32
    if op in (Op.NEG, Op.ABS):
        em.ins(f"{op.name.lower()}.{f} {d}, {a}")
    elif op is Op.SQRT:
        em.ins(f"sqrt.{'approx' if fast else 'rn'}.{f} {d}, {a}")
    elif op is Op.RSQRT:
        if fast:
            em.ins(f"rsqrt.approx.f32 {d}, {a}")
        else:
            em.ins(f"div.rn.{f} {d}, {m.c(1.0)}, {m.op(f'sqrt.rn.{f}', a)}")
    elif op in _ROUNDING:
        em.ins(f"cvt.{_ROUNDING[op]}.{f}.{f} {d}, {a}")
    elif op is Op.ROUND:
        whole = m.op(f"cvt.rzi.{f}.{f}", a)
        half_or_more = m.cmp("ge", m.abs(m.sub(a, whole)), m.c(0.5))
        away = m.add(whole, m.copysign(a, m.c(1.0)))
        em.ins(f"selp.{f} {d}, {away}, {whole}, {half_or_more}")
    elif op in (Op.ISNAN, Op.ISINF):
        em.ins(f"testp.{'notanumber' if op is Op.ISNAN else 'infinite'}.{f} {d}, {m.reg(a)}")
    elif op in _UNARY_ROUTINES:
        routine = _UNARY_ROUTINES[op]
        approximate(em, op, t, d, [a], lambda m32, args: routine(m32, args[0]))
    else:
        raise NotImplementedError(f"PTX backend: {op.name} on {t}")


_ROUNDING = {Op.FLOOR: "rmi", Op.CEIL: "rpi", Op.TRUNC: "rzi", Op.RINT: "rni"}


def approximate(em: Emitter, op: Op, t: Scalar, d: str, args: list[str], routine) -> None:
    """A transcendental: float32 runs simt's routine, float64 calls CUDA's double-precision
    function (libm64.py)."""
    if t is Scalar.F64:
        libm64.call(em, op, d, args)
        return
    assert t is Scalar.F32, t
    result = routine(_Math(em, Scalar.F32), args)
    em.ins(f"mov.f32 {d}, {result}")


# ---- fmod ---------------------------------------------------------------------------------

def _fmod(m: _Math, d: str, a: str, b: str) -> None:
    """C fmod, exactly: binary long division on |a| by |b| * 2^k, largest k first. Each
    subtraction r - ys has ys <= r < 2*ys, so it is exact (Sterbenz)."""
    em, f = m.em, m.f
    bad = m.por(m.pred(f"setp.nan.{f}", a, b),
                m.por(m.pred(f"testp.infinite.{f}", m.reg(a)), m.cmp("eq", b, m.c(0.0))))
    r = m.sel(m.c(0.0), m.abs(a), bad)         # bad inputs run a trivial loop, then give NaN
    y = m.sel(m.c(1.0), m.abs(b), bad)
    ys = m.op(f"mov.{f}", y)
    grow, shrink = em.new_label("fmod_grow"), em.new_label("fmod_shrink")
    doubled = em.tmp(m.t)
    fits, take, last = em.tmp(Scalar.BOOL), em.tmp(Scalar.BOOL), em.tmp(Scalar.BOOL)
    em.label(grow)
    em.ins(f"add.rn.{f} {doubled}, {ys}, {ys}")
    em.ins(f"setp.le.{f} {fits}, {doubled}, {r}")
    em.ins(f"@{fits} mov.{f} {ys}, {doubled}")
    em.ins(f"@{fits} bra {grow}")
    em.label(shrink)
    em.ins(f"setp.ge.{f} {take}, {r}, {ys}")
    em.ins(f"@{take} sub.rn.{f} {r}, {r}, {ys}")
    em.ins(f"setp.le.{f} {last}, {ys}, {y}")
    em.ins(f"mul.rn.{f} {ys}, {ys}, {m.c(0.5)}")
    em.ins(f"@!{last} bra {shrink}")
    em.ins(f"selp.{f} {d}, {m.c(math.nan)}, {m.copysign(a, r)}, {bad}")


# ---- float32 approximations (each returns the register holding its result) ---------------

_LOG2E_HI = 1.4426950216293335           # float32(log2(e))
_LOG2E_LO = 1 / math.log(2) - _LOG2E_HI
_LN2_HI = 0.693145751953125               # ln 2 with a short mantissa, so k * LN2_HI is exact
_LN2_LO = math.log(2) - _LN2_HI
_HALF_PI = [1.5707963705062866, -4.371138828673793e-08, -1.7151245100059164e-15]  # sums to pi/2
_REDUCTION_LIMIT = 1e5
_SIN_POLY = [-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1]                 # cephes sinf
_COS_POLY = [2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2]   # cephes cosf


def _quadrant(m: _Math, x: str) -> tuple[str, str, str]:
    """x = q * pi/2 + r, |r| <= pi/4 (three-part pi/2, by fma): (sin r, cos r, q & 3)."""
    em = m.em
    qi = em.tmp("%r")
    em.ins(f"cvt.rni.s32.f32 {qi}, {m.mul(x, m.c(2 / math.pi))}")
    q = m.op("cvt.rn.f32.s32", qi)
    r = x
    for part in _HALF_PI:
        r = m.fma(m.neg(q), m.c(part), r)
    z = m.mul(r, r)
    sin_r = m.fma(m.mul(m.horner(z, _SIN_POLY), z), r, r)
    sin_r = m.sel(x, sin_r, m.cmp("eq", x, m.c(0.0)))        # keep sin(-0) == -0
    cos_r = m.fma(m.mul(m.horner(z, _COS_POLY), z), z, m.fma(m.c(-0.5), z, m.c(1.0)))
    quadrant = em.tmp("%r")
    em.ins(f"and.b32 {quadrant}, {qi}, 3")
    return sin_r, cos_r, quadrant


def _sin_cos(m: _Math, x: str, shift: int) -> str:
    """sin(x) (shift 0) or cos(x) = sin(x + pi/2) (shift 1) from the quadrant's polynomial."""
    if m.em.fastmath:
        return m.op(f"{'sin' if shift == 0 else 'cos'}.approx.ftz.f32", x)
    sin_r, cos_r, quadrant = _quadrant(m, x)
    n = m.em.tmp("%r")
    m.em.ins(f"add.s32 {n}, {quadrant}, {shift}")
    odd, negative = m.em.tmp("%r"), m.em.tmp("%r")
    m.em.ins(f"and.b32 {odd}, {n}, 1")
    m.em.ins(f"and.b32 {negative}, {n}, 2")
    v = m.sel(cos_r, sin_r, m.pred("setp.ne.u32", odd, "0"))
    v = m.sel(m.neg(v), v, m.pred("setp.ne.u32", negative, "0"))
    huge = m.op(f"{'sin' if shift == 0 else 'cos'}.approx.f32", x)
    return m.sel(v, huge, _reducible(m, x))


def _reducible(m: _Math, x: str) -> str:
    """Whether the float32 quadrant reduction is accurate: |x| <= 1e5 (else the quadrant
    itself is rounded; such arguments fall back to the bounded .approx instructions)."""
    return m.cmp("le", m.abs(x), m.c(_REDUCTION_LIMIT))


def _sin(m: _Math, x: str) -> str:
    return _sin_cos(m, x, 0)


def _cos(m: _Math, x: str) -> str:
    return _sin_cos(m, x, 1)


def _tan(m: _Math, x: str) -> str:
    if m.em.fastmath:
        return m.div(m.op("sin.approx.ftz.f32", x), m.op("cos.approx.ftz.f32", x))
    sin_r, cos_r, quadrant = _quadrant(m, x)
    odd = m.em.tmp("%r")
    m.em.ins(f"and.b32 {odd}, {quadrant}, 1")
    is_odd = m.pred("setp.ne.u32", odd, "0")
    v = m.sel(m.div(m.neg(cos_r), sin_r), m.div(sin_r, cos_r), is_odd)
    huge = m.div(m.op("sin.approx.f32", x), m.op("cos.approx.f32", x))
    return m.sel(v, huge, _reducible(m, x))


def _exp2(m: _Math, x: str) -> str:
    return m.op("ex2.approx.ftz.f32" if m.em.fastmath else "ex2.approx.f32", x)


def _exp(m: _Math, x: str) -> str:
    """2^(x*log2e), plus the rounding error of the product (first order): 2^t * (1 + e*ln2)."""
    t = m.mul(x, m.c(_LOG2E_HI))
    if m.em.fastmath:
        return _exp2(m, t)
    err = m.fma(x, m.c(_LOG2E_HI), m.neg(t))
    err = m.fma(x, m.c(_LOG2E_LO), err)
    y = _exp2(m, t)
    corrected = m.fma(y, m.mul(err, m.c(math.log(2))), y)
    finite = m.pand(m.pred("testp.finite.f32", t), m.pred("testp.finite.f32", y))
    return m.sel(corrected, y, finite)


def _log(m: _Math, x: str) -> str:
    """ln x = k ln2 + 2 atanh((f-1)/(f+1)) with x = 2^k f, f in [sqrt(1/2), sqrt(2)): accurate
    near 1, where lg2.approx is not. Zero, negative, inf and NaN take lg2.approx's answers."""
    if m.em.fastmath:
        return m.mul(m.op("lg2.approx.ftz.f32", x), m.c(math.log(2)))
    em = m.em
    tiny = m.cmp("lt", x, m.c(2.0 ** -126))                 # subnormal: scale up first
    xs = m.sel(m.mul(x, m.c(2.0 ** 23)), x, tiny)
    bits, exponent, mant = em.tmp("%r"), em.tmp("%r"), em.tmp("%r")
    em.ins(f"mov.b32 {bits}, {xs}")
    em.ins(f"shr.u32 {exponent}, {bits}, 23")
    em.ins(f"and.b32 {mant}, {bits}, 8388607")
    em.ins(f"or.b32 {mant}, {mant}, 1065353216")
    f = m.op("mov.b32", mant)                                 # in [1, 2)
    high = m.cmp("gt", f, m.c(math.sqrt(2)))
    f = m.sel(m.mul(f, m.c(0.5)), f, high)
    k = m.op("cvt.rn.f32.s32", exponent)
    k = m.add(k, m.sel(m.c(-126.0), m.c(-127.0), high))
    k = m.sub(k, m.sel(m.c(23.0), m.c(0.0), tiny))
    u = m.div(m.sub(f, m.c(1.0)), m.add(f, m.c(1.0)))
    s = m.mul(u, u)
    series = m.mul(m.mul(m.horner(s, [2 / 9, 2 / 7, 2 / 5, 2 / 3]), s), u)
    log_f = m.fma(u, m.c(2.0), series)
    result = m.fma(k, m.c(_LN2_HI), m.fma(k, m.c(_LN2_LO), log_f))
    regular = m.pand(m.cmp("gt", x, m.c(0.0)), m.pred("testp.finite.f32", m.reg(x)))
    return m.sel(result, m.op("lg2.approx.f32", x), regular)


def _log2(m: _Math, x: str) -> str:
    if m.em.fastmath:
        return m.op("lg2.approx.ftz.f32", x)
    return m.mul(_log(m, x), m.c(1 / math.log(2)))


def _log10(m: _Math, x: str) -> str:
    return m.mul(_log(m, x), m.c(1 / math.log(10)))


_ATAN_POLY = [8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1]


def _atan2(m: _Math, y: str, x: str) -> str:
    """atan2 with C's signed-zero and infinity cases: atan of min/max in [0, 1], then octant."""
    ax, ay = m.abs(x), m.abs(y)
    hi, lo = m.op("max.f32", ax, ay), m.op("min.f32", ax, ay)
    q = m.div(lo, hi)
    both_inf = m.pand(m.pred("testp.infinite.f32", ax), m.pred("testp.infinite.f32", ay))
    q = m.sel(m.c(1.0), q, both_inf)
    q = m.sel(m.c(0.0), q, m.cmp("eq", hi, m.c(0.0)))
    big = m.cmp("gt", q, m.c(0.41421356237309503))        # tan(pi/8): reduce by pi/4
    z = m.sel(m.div(m.sub(q, m.c(1.0)), m.add(q, m.c(1.0))), q, big)
    z2 = m.mul(z, z)
    p = m.mul(m.horner(z2, _ATAN_POLY), z2)
    t = m.add(m.sel(m.c(math.pi / 4), m.c(0.0), big), m.fma(p, z, z))
    t = m.sel(m.sub(m.c(math.pi / 2), t), t, m.cmp("gt", ay, ax))
    t = m.sel(m.sub(m.c(math.pi), t), t, m.signbit(x))
    t = m.sel(m.neg(t), t, m.signbit(y))
    return m.sel(m.c(math.nan), t, m.pred("setp.nan.f32", x, y))


def _atan(m: _Math, x: str) -> str:
    return _atan2(m, x, m.c(1.0))


def _one_minus_square_root(m: _Math, x: str) -> str:
    return m.op("sqrt.rn.f32", m.mul(m.sub(m.c(1.0), x), m.add(m.c(1.0), x)))


def _asin(m: _Math, x: str) -> str:
    return _atan2(m, x, _one_minus_square_root(m, x))


def _acos(m: _Math, x: str) -> str:
    return _atan2(m, _one_minus_square_root(m, x), x)


_SINH_TAYLOR = [1 / 362880, 1 / 5040, 1 / 120, 1 / 6]


def _sinh_small(m: _Math, x: str) -> str:
    x2 = m.mul(x, x)
    return m.fma(m.mul(m.horner(x2, _SINH_TAYLOR), x2), x, x)


def _half_exp_sum(m: _Math, x: str, sign: float) -> str:
    """(e^|x| + sign * e^-|x|) / 2; past |x| = 80 that is e^(|x| - ln 2), which stays finite
    for |x| a little beyond the ~88.7 where e^|x| overflows."""
    ax = m.abs(x)
    e = _exp(m, ax)
    moderate = m.mul(m.fma(m.c(sign), m.div(m.c(1.0), e), e), m.c(0.5))
    return m.sel(_exp(m, m.sub(ax, m.c(math.log(2)))), moderate, m.cmp("gt", ax, m.c(80.0)))


def _sinh(m: _Math, x: str) -> str:
    large = m.copysign(x, _half_exp_sum(m, x, -1.0))
    return m.sel(_sinh_small(m, x), large, m.cmp("lt", m.abs(x), m.c(1.0)))


def _cosh(m: _Math, x: str) -> str:
    return _half_exp_sum(m, x, 1.0)


def _tanh(m: _Math, x: str) -> str:
    if m.em.fastmath:
        return m.op("tanh.approx.f32", x)
    s = _sinh_small(m, x)
    small = m.div(s, m.op("sqrt.rn.f32", m.fma(s, s, m.c(1.0))))
    e = _exp(m, m.add(m.abs(x), m.abs(x)))
    large = m.copysign(x, m.sub(m.c(1.0), m.div(m.c(2.0), m.add(e, m.c(1.0)))))
    return m.sel(small, large, m.cmp("lt", m.abs(x), m.c(1.0)))


def _pow(m: _Math, x: str, y: str) -> str:
    """2^(y*log2|x|), then C's cases: negative x needs an integer y (odd y keeps the sign),
    pow(x, 0) == pow(1, y) == pow(-1, +-inf) == 1."""
    ax = m.abs(x)
    r = _exp2(m, m.mul(y, _log2(m, ax)))
    y_whole = m.op("cvt.rzi.f32.f32", y)
    y_integer = m.cmp("eq", y_whole, y)
    half = m.mul(y, m.c(0.5))
    y_odd = m.pand(y_integer, m.cmp("neu", m.op("cvt.rzi.f32.f32", half), half))
    r = m.sel(m.neg(r), r, m.pand(y_odd, m.signbit(x)))
    negative_finite = m.pand(m.cmp("lt", x, m.c(0.0)), m.pred("testp.finite.f32", m.reg(x)))
    no_real_result = m.pand(negative_finite, m.pred("not.pred", y_integer))
    r = m.sel(m.c(math.nan), r, no_real_result)
    one = m.por(m.cmp("eq", y, m.c(0.0)), m.cmp("eq", x, m.c(1.0)))
    one = m.por(one, m.pand(m.cmp("eq", ax, m.c(1.0)), m.pred("testp.infinite.f32", m.reg(y))))
    return m.sel(m.c(1.0), r, one)


_UNARY_ROUTINES = {Op.SIN: _sin, Op.COS: _cos, Op.TAN: _tan, Op.EXP: _exp, Op.EXP2: _exp2,
                   Op.LOG: _log, Op.LOG2: _log2, Op.LOG10: _log10, Op.ATAN: _atan,
                   Op.ASIN: _asin, Op.ACOS: _acos, Op.SINH: _sinh, Op.COSH: _cosh, Op.TANH: _tanh}
