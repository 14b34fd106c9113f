"""Warp's small dense linear algebra on flat row-major float arrays (``native/matnn.h``):
dense_gemm, dense_chol, dense_subs, dense_solve, loop for loop."""
import simt as wp


@wp.func
def dense_index(rows: int, cols: int, i: int, j: int, transpose: int) -> int:
    if transpose != 0:
        return j * rows + i
    return i * cols + j


@wp.func
def dense_gemm(m: int, n: int, p: int, t1: int, t2: int, A: wp.array(dtype=float),
               B: wp.array(dtype=float), C: wp.array(dtype=float)):
    """C = op(A) op(B) with op a transpose when t1 / t2 is 1 (m x p times p x n). As in
    Warp's matnn.h, flags other than 0 and 1 match none of its four cases: C is left as it was."""
    if t1 < 0 or t1 > 1 or t2 < 0 or t2 > 1:
        return
    for i in range(m):
        for j in range(n):
            s = float(0.0)
            for k in range(p):
                s += A[dense_index(m, p, i, k, t1)] * B[dense_index(p, n, k, j, t2)]
            C[i * n + j] = s


@wp.func
def dense_chol(n: int, A: wp.array(dtype=float), regularization: float, L: wp.array(dtype=float)):
    """L: the Cholesky factor of A + regularization I (lower triangle written)."""
    for j in range(n):
        s = A[j * n + j] + regularization
        for k in range(j):
            r = L[j * n + k]
            s -= r * r
        s = wp.sqrt(s)
        inv_s = 1.0 / s
        L[j * n + j] = s
        for i in range(j + 1, n):
            t = A[i * n + j]
            for k in range(j):
                t -= L[i * n + k] * L[j * n + k]
            L[i * n + j] = t * inv_s


@wp.func
def dense_subs(n: int, L: wp.array(dtype=float), b: wp.array(dtype=float), x: wp.array(dtype=float)):
    """x = (L L^T)^-1 b by forward and back substitution."""
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i * n + j] * x[j]
        x[i] = s / L[i * n + i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= L[j * n + i] * x[j]
        x[i] = s / L[i * n + i]


@wp.func
def dense_solve(n: int, A: wp.array(dtype=float), L: wp.array(dtype=float), b: wp.array(dtype=float),
                x: wp.array(dtype=float)):
    dense_subs(n, L, b, x)
