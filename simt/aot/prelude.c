/* simt's CPU kernel helpers: the fast engine's per-op semantics (simt/sim/fast/runtime.py,
   simt/sim/mathlib.py) in C. Compiled with -fno-builtin -ffp-contract=off -fwrapv so that
   every libm call happens at run time, as the fast engine's opaque calls do, and no
   multiply-add is fused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>

#define SIMT_EXPORT __attribute__((visibility("default")))
#define SIMT_UNUSED __attribute__((unused))

static SIMT_UNUSED inline float simt_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static SIMT_UNUSED inline double simt_bits_f64(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static SIMT_UNUSED inline uint32_t simt_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* float MIN/MAX: a NaN operand loses to a number; a tie gives the first operand */
static SIMT_UNUSED inline float simt_fmin_f32(float a, float b) { return (a <= b || b != b) ? a : b; }
static SIMT_UNUSED inline float simt_fmax_f32(float a, float b) { return (a >= b || b != b) ? a : b; }
static SIMT_UNUSED inline double simt_fmin_f64(double a, double b) { return (a <= b || b != b) ? a : b; }
static SIMT_UNUSED inline double simt_fmax_f64(double a, double b) { return (a >= b || b != b) ? a : b; }

/* integer division: truncating; x / 0 = -1 (all ones unsigned), x % 0 = x */
static SIMT_UNUSED inline int64_t simt_div_s(int64_t a, int64_t b) {
    if (b == 0) return -1;
    if (b == -1) return (int64_t)(0ULL - (uint64_t)a);
    return a / b;
}
static SIMT_UNUSED inline int64_t simt_rem_s(int64_t a, int64_t b) {
    if (b == 0) return a;
    if (b == -1) return 0;
    return a % b;
}
static SIMT_UNUSED inline uint64_t simt_div_u(uint64_t a, uint64_t b) { return b == 0 ? ~0ULL : a / b; }
static SIMT_UNUSED inline uint64_t simt_rem_u(uint64_t a, uint64_t b) { return b == 0 ? a : a % b; }
/* shifts: the amount read as unsigned; outside [0, bits) gives 0 (or the sign) */
static SIMT_UNUSED inline int64_t simt_shl_s(int64_t a, int64_t s, int bits) {
    if ((uint64_t)s >= (uint64_t)bits) return 0;
    return (int64_t)((uint64_t)a << s);
}
static SIMT_UNUSED inline int64_t simt_shr_s(int64_t a, int64_t s, int bits) {
    if ((uint64_t)s >= (uint64_t)bits) return a < 0 ? -1 : 0;
    return a >> s;
}
static SIMT_UNUSED inline uint64_t simt_shl_u(uint64_t a, uint64_t s, int bits) {
    return s >= (uint64_t)bits ? 0 : a << s;
}
static SIMT_UNUSED inline uint64_t simt_shr_u(uint64_t a, uint64_t s, int bits) {
    return s >= (uint64_t)bits ? 0 : a >> s;
}

/* round half away from zero, in the argument's type */
static SIMT_UNUSED inline float simt_round_f32(float x) {
    float t = truncf(x), f = x - t;
    if (fabsf(f) >= 0.5f) return t + (x > 0 ? 1.0f : x < 0 ? -1.0f : x);
    return t;
}
static SIMT_UNUSED inline double simt_round_f64(double x) {
    double t = trunc(x), f = x - t;
    if (fabs(f) >= 0.5) return t + (x > 0 ? 1.0 : x < 0 ? -1.0 : x);
    return t;
}

/* float -> int: truncate, saturate at the type's range, NaN -> 0 (LLVM's fpto[su]i.sat) */
static SIMT_UNUSED inline int64_t simt_f2s(double x, double lo, double hi_plus_one, int64_t lo_i, int64_t hi_i) {
    if (x != x) return 0;
    if (x <= lo) return lo_i;
    if (x >= hi_plus_one) return hi_i;
    return (int64_t)x;
}
static SIMT_UNUSED inline uint64_t simt_f2u(double x, double hi_plus_one, uint64_t hi_i) {
    if (x != x || x <= -1.0) return 0;
    if (x >= hi_plus_one) return hi_i;
    if (x < 0) return 0;
    return (uint64_t)x;
}

/* float16 and bfloat16 held as their bits */
static SIMT_UNUSED inline uint16_t simt_f32_to_f16(float x) {
    uint32_t u = simt_f32_bits(x);
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu, h, rest, halfway;
    if (a >= 0x7F800000u) {
        if (a == 0x7F800000u) return (uint16_t)(sign | 0x7C00u);
        uint32_t payload = 0x7C00u + ((a & 0x7FFFFFu) >> 13);
        if (payload == 0x7C00u) payload += 1;
        return (uint16_t)(sign | payload);
    }
    if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);
    if (a < 0x33000000u) return (uint16_t)sign;
    int64_t e = a >> 23;
    if (e < 113) {
        uint32_t mant = (a & 0x7FFFFFu) | 0x800000u, shift = (uint32_t)(126 - e);
        h = mant >> shift;
        rest = mant & ((1u << shift) - 1u);
        halfway = 1u << (shift - 1u);
    } else {
        h = (a - 0x38000000u) >> 13;
        rest = a & 0x1FFFu;
        halfway = 0x1000u;
    }
    if (rest > halfway || (rest == halfway && (h & 1u) != 0)) h += 1;
    return (uint16_t)(sign | h);
}
static SIMT_UNUSED inline float simt_f16_to_f32(uint16_t hbits) {
    uint32_t h = hbits, sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0x1Fu) return simt_bits_f32(sign | 0x7F800000u | (m << 13));
    if (e == 0) { float v = (float)m * 5.9604644775390625e-08f; return sign ? -v : v; }
    return simt_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}
static SIMT_UNUSED inline uint16_t simt_f32_to_bf16(float x) {
    uint64_t u = simt_f32_bits(x);
    if ((u & 0x7F800000u) == 0x7F800000u) {
        uint16_t h = (uint16_t)(u >> 16);
        if ((u & 0x007FFFFFu) != 0 && (h & 0x007Fu) == 0) h = (uint16_t)(h | 0x0040u);
        return h;
    }
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static SIMT_UNUSED inline float simt_bf16_to_f32(uint16_t h) { return simt_bits_f32((uint32_t)h << 16); }

/* Warp's erfinv (Cephes' ndtri refined by one Newton step), as simt/sim/mathlib.py has it */
static SIMT_UNUSED double simt_polevl(double x, const double *c, int n) {
    double ans = c[0];
    for (int i = 1; i < n; i++) ans = ans * x + c[i];
    return ans;
}
static SIMT_UNUSED double simt_p1evl(double x, const double *c, int n) {
    double ans = x + c[0];
    for (int i = 1; i < n; i++) ans = ans * x + c[i];
    return ans;
}
static SIMT_UNUSED double simt_ndtri(double y) {
    if (y <= 0.0 || y >= 1.0) return y <= 0.0 ? -INFINITY : INFINITY;
    int code = 1;
    if (y > 1.0 - SIMT_EXP_NEG2) { y = 1.0 - y; code = 0; }
    if (y > SIMT_EXP_NEG2) {
        y = y - 0.5;
        double y2 = y * y;
        double x = y + y * (y2 * simt_polevl(y2, SIMT_P0, SIMT_P0_N) / simt_p1evl(y2, SIMT_Q0, SIMT_Q0_N));
        return x * SIMT_SQRT_2PI;
    }
    double x = sqrt(-2.0 * log(y));
    double x0 = x - log(x) / x;
    double z = 1.0 / x, x1;
    if (x < 8.0) x1 = z * simt_polevl(z, SIMT_P1, SIMT_P1_N) / simt_p1evl(z, SIMT_Q1, SIMT_Q1_N);
    else x1 = z * simt_polevl(z, SIMT_P2, SIMT_P2_N) / simt_p1evl(z, SIMT_Q2, SIMT_Q2_N);
    x = x0 - x1;
    if (code != 0) x = -x;
    return x;
}
static SIMT_UNUSED double simt_erfinv64(double z) {
    if (z == 0.0) return 0.0;
    if (z == 1.0) return INFINITY;
    if (z == -1.0) return -INFINITY;
    if (z < -1.0 || z > 1.0) return NAN;
    if (fabs(z) < 0.01) {
        double t = SIMT_HALF_SQRT_PI * z, t2 = t * t;
        return t * (1.0 + t2 * (SIMT_C3 + t2 * (SIMT_C5 + t2 * (SIMT_C7 + t2 * SIMT_C9))));
    }
    double a = fabs(z), x;
    if (a < 0.5) x = simt_ndtri((a + 1.0) / 2.0) / sqrt(2.0);
    else x = -simt_ndtri((1.0 - a) / 2.0) / sqrt(2.0);
    double miss = a < 0.5 ? erf(x) - a : (1.0 - a) - erfc(x);
    x -= miss / (SIMT_TWO_OVER_SQRT_PI * exp(-x * x));
    return z > 0.0 ? x : -x;
}

/* printf's %c as Python's chr(v & 0xFF) written to a UTF-8 stdout */
static SIMT_UNUSED void simt_put_char(long long v) {
    unsigned c = (unsigned)(v & 0xFF);
    if (c < 0x80) fputc((int)c, stdout);
    else { fputc((int)(0xC0 | (c >> 6)), stdout); fputc((int)(0x80 | (c & 0x3F)), stdout); }
}

/* Python's zero padding of inf and nan ('%08.3f' % -inf == '-0000inf') */
static SIMT_UNUSED void simt_put_zero_padded(double q, const char *bare, int width) {
    char text[64];
    snprintf(text, sizeof text, bare, q);
    int n = (int)strlen(text), sign = text[0] == '-' || text[0] == '+' || text[0] == ' ';
    if (sign) fputc(text[0], stdout);
    for (int k = n; k < width; k++) fputc('0', stdout);
    fputs(text + sign, stdout);
}
