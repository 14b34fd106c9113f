import simt as wp

# Kernels whose results depend on evaluation order. ``log`` records calls: log(s, k, slot)
# appends digit k to s[slot] (s[slot] = s[slot] * 10 + k), so the digits of s[slot] spell
# the order in which the calls ran. The test runs this file under simt, under warp-lang and
# as plain Python (with ``wp`` a shim), and compares.


@wp.func
def log(s: wp.array(dtype=float), slot: int, k: int) -> int:
    s[slot] = s[slot] * 10.0 + float(k)
    return k


@wp.func
def logf(s: wp.array(dtype=float), slot: int, k: int) -> float:
    s[slot] = s[slot] * 10.0 + float(k)
    return float(k)


@wp.func
def pair(a: float, b: float) -> float:
    return a * 10.0 + b


@wp.kernel
def order(s: wp.array(dtype=float), d: wp.array(dtype=float), n: wp.array(dtype=wp.int32)):
    # 1. the right-hand side runs before the target: d[2] gets s[0] as it was before log()
    d[log(s, 0, 2)] = s[0]
    # 2. ... also when both sides call: digits 1 (value) then 2 (index)
    d[3 + log(s, 1, 2)] = logf(s, 1, 1)
    # 3. arguments left to right, for builtins and device functions
    d[0] = wp.max(logf(s, 2, 1), logf(s, 2, 2))
    d[1] = logf(s, 3, 3) - logf(s, 3, 4)
    d[6] = pair(logf(s, 4, 1), logf(s, 4, 2))
    d[7] = pair(b=logf(s, 5, 1), a=logf(s, 5, 2))   # keywords: source order, not parameter order
    # 4. an augmented assignment's target runs once (and before the right-hand side)
    d[8 + log(s, 6, 0)] += logf(s, 6, 5)            # a global float: Warp's atomic add
    n[log(s, 7, 1)] *= 3                            # a global int: a read-modify-write
    v = wp.vec3(1.0, 2.0, 3.0)
    v[log(s, 8, 2)] += logf(s, 8, 3)                # a local vector's component
    d[9] = v[2]
    # 5. short-circuit and/or: the right operand runs only when needed
    if logf(s, 9, 1) < 0.0 and logf(s, 9, 2) > 0.0:
        d[10] = 1.0
    if logf(s, 10, 3) > 0.0 or logf(s, 10, 4) > 0.0:
        d[11] = 1.0
    if logf(s, 11, 1) > 0.0 and logf(s, 11, 2) > 0.0:
        d[12] = 1.0
    # 6. a chained comparison runs its middle operand once
    if 0.0 < logf(s, 12, 4) < 9.0:
        d[13] = 1.0
