"""svd3, svd2, qr3 and eig3: the 3x3 SVD of McAdams et al. ("Computing the Singular Value
Decomposition of 3x3 matrices with minimal branching and elementary floating point
operations", 2011) as Warp's ``native/svd.h`` implements it, operation by operation
(reciprocal square roots as 1 / sqrt, as on Warp's CPU). Built per float type: float64 runs
8 Jacobi sweeps with epsilon 1e-12, the others 4 with 1e-6."""
import simt as wp

GAMMA = 5.82842712474619        # (sqrt(8) + 3)
CSTAR = 0.9238795325112867      # cos(pi / 8)
SSTAR = 0.3826834323650898      # sin(pi / 8)


def _functions(dtype):
    T = dtype
    vec2 = wp.types.vector(2, dtype)
    vec3 = wp.types.vector(3, dtype)
    vec4 = wp.types.vector(4, dtype)
    mat22 = wp.types.matrix((2, 2), dtype)
    mat33 = wp.types.matrix((3, 3), dtype)
    iterations = 8 if dtype is wp.float64 else 4
    epsilon = 1.0e-12 if dtype is wp.float64 else 1.0e-6

    @wp.func
    def recip_sqrt(x: T) -> T:
        return T(1.0) / wp.sqrt(x)

    @wp.func
    def approximate_givens(a11: T, a12: T, a22: T):
        ch = T(2.0) * (a11 - a22)
        sh = a12
        b = T(GAMMA) * sh * sh < ch * ch
        w = recip_sqrt(ch * ch + sh * sh)
        ch_out = T(CSTAR)
        sh_out = T(SSTAR)
        if b:
            ch_out = w * ch
            sh_out = w * sh
        return ch_out, sh_out

    @wp.func
    def jacobi_conjugation(x: int, y: int, z: int, s: vec4, t: vec3, q: vec4):
        """One Givens rotation of the symmetric matrix (s11, s21, s22, s31 | s32, s33)."""
        s11 = s[0]
        s21 = s[1]
        s22 = s[2]
        s31 = s[3]
        s32 = t[0]
        s33 = t[1]
        ch, sh = approximate_givens(s11, s21, s22)
        scale = ch * ch + sh * sh
        a = (ch * ch - sh * sh) / scale
        b = (T(2.0) * sh * ch) / scale
        n11 = a * (a * s11 + b * s21) + b * (a * s21 + b * s22)
        n21 = a * (-b * s11 + a * s21) + b * (-b * s21 + a * s22)
        n22 = -b * (-b * s11 + a * s21) + a * (-b * s21 + a * s22)
        n31 = a * s31 + b * s32
        n32 = -b * s31 + a * s32
        n33 = s33
        tmp = vec3(q[0] * sh, q[1] * sh, q[2] * sh)
        sh = sh * q[3]
        q = q * ch
        q[z] = q[z] + sh
        q[3] = q[3] - tmp[z]
        q[x] = q[x] + tmp[y]
        q[y] = q[y] - tmp[x]
        # rotate the names: the next pair of rows comes first
        return vec4(n22, n32, n33, n21), vec3(n31, n11, T(0.0)), q

    @wp.func
    def jacobi_eigenanalysis(s11: T, s21: T, s22: T, s31: T, s32: T, s33: T):
        q = vec4(T(0.0), T(0.0), T(0.0), T(1.0))
        s = vec4(s11, s21, s22, s31)
        t = vec3(s32, s33, T(0.0))
        for i in range(iterations):
            s, t, q = jacobi_conjugation(0, 1, 2, s, t, q)
            s, t, q = jacobi_conjugation(1, 2, 0, s, t, q)
            s, t, q = jacobi_conjugation(2, 0, 1, s, t, q)
        return q

    @wp.func
    def quat_to_mat3(q: vec4) -> mat33:
        w = q[3]
        x = q[0]
        y = q[1]
        z = q[2]
        qxx = x * x
        qyy = y * y
        qzz = z * z
        qxz = x * z
        qxy = x * y
        qyz = y * z
        qwx = w * x
        qwy = w * y
        qwz = w * z
        return mat33(T(1.0) - T(2.0) * (qyy + qzz), T(2.0) * (qxy - qwz), T(2.0) * (qxz + qwy),
                     T(2.0) * (qxy + qwz), T(1.0) - T(2.0) * (qxx + qzz), T(2.0) * (qyz - qwx),
                     T(2.0) * (qxz - qwy), T(2.0) * (qyz + qwx), T(1.0) - T(2.0) * (qxx + qyy))

    @wp.func
    def mult_ab(a: mat33, b: mat33) -> mat33:
        m = mat33()
        for i in range(3):
            for j in range(3):
                m[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]
        return m

    @wp.func
    def mult_atb(a: mat33, b: mat33) -> mat33:
        m = mat33()
        for i in range(3):
            for j in range(3):
                m[i, j] = a[0, i] * b[0, j] + a[1, i] * b[1, j] + a[2, i] * b[2, j]
        return m

    @wp.func
    def dist2(x: T, y: T, z: T) -> T:
        return x * x + y * y + z * z

    @wp.func
    def neg_swap_columns(c: bool, m: mat33, i: int, j: int) -> mat33:
        """Warp's condNegSwap on columns i and j: (X, Y) <- (Y, -X) when c."""
        if c:
            for r in range(3):
                x = m[r, i]
                m[r, i] = m[r, j]
                m[r, j] = -x
        return m

    @wp.func
    def sort_singular_values(b: mat33, v: mat33):
        rho1 = dist2(b[0, 0], b[1, 0], b[2, 0])
        rho2 = dist2(b[0, 1], b[1, 1], b[2, 1])
        rho3 = dist2(b[0, 2], b[1, 2], b[2, 2])
        c = rho1 < rho2
        b = neg_swap_columns(c, b, 0, 1)
        v = neg_swap_columns(c, v, 0, 1)
        if c:
            rho1, rho2 = rho2, rho1
        c = rho1 < rho3
        b = neg_swap_columns(c, b, 0, 2)
        v = neg_swap_columns(c, v, 0, 2)
        if c:
            rho1, rho3 = rho3, rho1
        c = rho2 < rho3
        b = neg_swap_columns(c, b, 1, 2)
        v = neg_swap_columns(c, v, 1, 2)
        return b, v

    @wp.func
    def qr_givens(a1: T, a2: T):
        rho = wp.sqrt(a1 * a1 + a2 * a2)
        sh = T(0.0)
        if rho > T(epsilon):
            sh = a2
        ch = wp.abs(a1) + wp.max(rho, T(epsilon))
        if a1 < T(0.0):
            sh, ch = ch, sh
        w = recip_sqrt(ch * ch + sh * sh)
        return ch * w, sh * w

    @wp.func
    def qr_decomposition(b: mat33):
        ch1, sh1 = qr_givens(b[0, 0], b[1, 0])
        a = T(1.0) - T(2.0) * sh1 * sh1
        c = T(2.0) * ch1 * sh1
        r = mat33(a * b[0, 0] + c * b[1, 0], a * b[0, 1] + c * b[1, 1], a * b[0, 2] + c * b[1, 2],
                  -c * b[0, 0] + a * b[1, 0], -c * b[0, 1] + a * b[1, 1], -c * b[0, 2] + a * b[1, 2],
                  b[2, 0], b[2, 1], b[2, 2])
        ch2, sh2 = qr_givens(r[0, 0], r[2, 0])
        a = T(1.0) - T(2.0) * sh2 * sh2
        c = T(2.0) * ch2 * sh2
        b = mat33(a * r[0, 0] + c * r[2, 0], a * r[0, 1] + c * r[2, 1], a * r[0, 2] + c * r[2, 2],
                  r[1, 0], r[1, 1], r[1, 2],
                  -c * r[0, 0] + a * r[2, 0], -c * r[0, 1] + a * r[2, 1], -c * r[0, 2] + a * r[2, 2])
        ch3, sh3 = qr_givens(b[1, 1], b[2, 1])
        a = T(1.0) - T(2.0) * sh3 * sh3
        c = T(2.0) * ch3 * sh3
        r = mat33(b[0, 0], b[0, 1], b[0, 2],
                  a * b[1, 0] + c * b[2, 0], a * b[1, 1] + c * b[2, 1], a * b[1, 2] + c * b[2, 2],
                  -c * b[1, 0] + a * b[2, 0], -c * b[1, 1] + a * b[2, 1], -c * b[1, 2] + a * b[2, 2])
        sh12 = sh1 * sh1
        sh22 = sh2 * sh2
        sh32 = sh3 * sh3
        q = mat33(
            (T(-1.0) + T(2.0) * sh12) * (T(-1.0) + T(2.0) * sh22),
            T(4.0) * ch2 * ch3 * (T(-1.0) + T(2.0) * sh12) * sh2 * sh3
            + T(2.0) * ch1 * sh1 * (T(-1.0) + T(2.0) * sh32),
            T(4.0) * ch1 * ch3 * sh1 * sh3
            - T(2.0) * ch2 * (T(-1.0) + T(2.0) * sh12) * sh2 * (T(-1.0) + T(2.0) * sh32),
            T(2.0) * ch1 * sh1 * (T(1.0) - T(2.0) * sh22),
            T(-8.0) * ch1 * ch2 * ch3 * sh1 * sh2 * sh3
            + (T(-1.0) + T(2.0) * sh12) * (T(-1.0) + T(2.0) * sh32),
            T(-2.0) * ch3 * sh3 + T(4.0) * sh1 * (ch3 * sh1 * sh3 + ch1 * ch2 * sh2 * (T(-1.0) + T(2.0) * sh32)),
            T(2.0) * ch2 * sh2,
            T(2.0) * ch3 * (T(1.0) - T(2.0) * sh22) * sh3,
            (T(-1.0) + T(2.0) * sh22) * (T(-1.0) + T(2.0) * sh32))
        return q, r

    @wp.func
    def svd3(A: mat33):
        ata = mult_atb(A, A)
        q = jacobi_eigenanalysis(ata[0, 0], ata[1, 0], ata[1, 1], ata[2, 0], ata[2, 1], ata[2, 2])
        v = quat_to_mat3(q)
        b = mult_ab(A, v)
        b, v = sort_singular_values(b, v)
        u, s = qr_decomposition(b)
        return u, vec3(s[0, 0], s[1, 1], s[2, 2]), v

    @wp.func
    def qr3(A: mat33):
        return qr_decomposition(A)

    @wp.func
    def eig3(A: mat33):
        q = jacobi_eigenanalysis(A[0, 0], A[1, 0], A[1, 1], A[2, 0], A[2, 1], A[2, 2])
        Q = quat_to_mat3(q)
        u = mult_ab(mult_atb(Q, A), Q)
        return Q, vec3(u[0, 0], u[1, 1], u[2, 2])

    @wp.func
    def svd2(A: mat22):
        a11 = A[0, 0]
        a12 = A[0, 1]
        a21 = A[1, 0]
        a22 = A[1, 1]
        ata11 = a11 * a11 + a21 * a21
        ata12 = a11 * a12 + a21 * a22
        ata22 = a12 * a12 + a22 * a22
        trace = ata11 + ata22
        diff = ata11 - ata22
        discriminant = diff * diff + T(4.0) * ata12 * ata12
        if discriminant == T(0.0):
            s = wp.sqrt(T(0.5) * trace)
            return mat22(T(1.0), T(0.0), T(0.0), T(1.0)), vec2(s, s), mat22(T(1.0), T(0.0), T(0.0), T(1.0))
        sqrt_term = wp.sqrt(discriminant)
        lambda1 = (trace + sqrt_term) * T(0.5)
        lambda2 = (trace - sqrt_term) * T(0.5)
        inv_sigma1 = recip_sqrt(lambda1)
        sigma1 = T(1.0) / inv_sigma1
        sigma2 = wp.sqrt(lambda2)
        v1y = diff - sqrt_term + T(2.0) * ata12
        v1x = diff + sqrt_term - T(2.0) * ata12
        len1_sq = v1x * v1x + v1y * v1y
        v11 = T(0.707106781186547524401)
        v21 = v11
        if len1_sq != T(0.0):
            inv_len1 = recip_sqrt(len1_sq)
            v11 = v1x * inv_len1
            v21 = v1y * inv_len1
        u11 = (a11 * v11 + a12 * v21) * inv_sigma1
        u21 = (a21 * v11 + a22 * v21) * inv_sigma1
        det_sign = wp.sign(a11 * a22 - a12 * a21)
        return (mat22(u11, -u21 * det_sign, u21, u11 * det_sign), vec2(sigma1, sigma2),
                mat22(v11, -v21, v21, v11))

    return svd3, svd2, qr3, eig3


def _overloads(index: int):
    funcs = [_functions(dtype)[index] for dtype in (wp.float32, wp.float64, wp.float16)]
    out = funcs[0]
    for f in funcs[1:]:
        out.add_overload(f.py_func)
    return out


svd3 = _overloads(0)
svd2 = _overloads(1)
qr3 = _overloads(2)
eig3 = _overloads(3)
