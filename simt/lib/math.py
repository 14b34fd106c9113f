"""Vector norms, Euler angles, twists and transform/matrix conversions.

Warp implements these in its own kernel language (warp/_src/math.py, Apache-2.0, NVIDIA);
the functions below are that code, line for line, so that results round the same way.
Functions Warp instantiates per float type are generic here (``Any``) or built per type.
"""
from typing import Any

import simt as wp


@wp.func
def norm_l1(v: Any):
    n = wp.abs(v[0])
    for i in range(1, len(v)):
        n += wp.abs(v[i])
    return n


@wp.func
def norm_l2(v: Any):
    return wp.length(v)


@wp.func
def norm_huber(v: Any, delta: float = 1.0):
    a = wp.dot(v, v)
    if a <= delta * delta:
        return 0.5 * a
    return delta * (wp.sqrt(a) - 0.5 * delta)


@wp.func
def norm_pseudo_huber(v: Any, delta: float = 1.0):
    a = wp.dot(v, v)
    return delta * wp.sqrt(1.0 + a / (delta * delta))


@wp.func
def smooth_normalize(v: Any, delta: float = 1.0):
    return v / norm_pseudo_huber(v, delta)


@wp.func
def velocity_at_point(qd: wp.spatial_vector, r: wp.vec3) -> wp.vec3:
    return wp.spatial_bottom(qd) + wp.cross(wp.spatial_top(qd), r)


@wp.func
def quat_twist(axis: wp.vec3, q: wp.quat) -> wp.quat:
    a = wp.vec3(q[0], q[1], q[2])
    proj = wp.dot(a, axis)
    a = proj * axis
    return wp.normalize(wp.quat(a[0], a[1], a[2], q[3]))


@wp.func
def quat_twist_angle(axis: wp.vec3, q: wp.quat) -> float:
    vector = wp.vec3(q[0], q[1], q[2])
    sin_half = wp.abs(wp.dot(axis, vector))
    return 2.0 * wp.atan2(sin_half, q[3])


@wp.func
def quat_twist_angle_signed(axis: wp.vec3, q: wp.quat) -> float:
    vector = wp.vec3(q[0], q[1], q[2])
    sin_half = wp.dot(axis, vector)
    return 2.0 * wp.atan2(sin_half, q[3])


@wp.func
def quat_to_rpy(q: wp.quat) -> wp.vec3:
    x = q[0]
    y = q[1]
    z = q[2]
    w = q[3]
    t0 = 2.0 * (w * x + y * z)
    t1 = 1.0 - 2.0 * (x * x + y * y)
    roll_x = wp.atan2(t0, t1)

    t2 = 2.0 * (w * y - z * x)
    t2 = wp.clamp(t2, -1.0, 1.0)
    pitch_y = wp.asin(t2)

    t3 = 2.0 * (w * z + x * y)
    t4 = 1.0 - 2.0 * (y * y + z * z)
    yaw_z = wp.atan2(t3, t4)

    return wp.vec3(roll_x, pitch_y, yaw_z)


@wp.func
def quat_to_euler(q: wp.quat, i: int, j: int, k: int) -> wp.vec3:
    q0 = q[3]
    q1 = q[0]
    q2 = q[1]
    q3 = q[2]
    i += 1
    j += 1
    k += 1
    not_proper = True
    if i == k:
        not_proper = False
        k = 6 - i - j
    e = float((i - j) * (j - k) * (k - i)) / 2.0
    a = q0
    b = q1
    c = q1
    d = q1 * e
    if i == 2:
        b = q2
    elif i == 3:
        b = q3
    if j == 2:
        c = q2
    elif j == 3:
        c = q3
    if k == 2:
        d = q2 * e
    elif k == 3:
        d = q3 * e
    if not_proper:
        qj = q1
        qk = q1
        qi = q1
        if j == 2:
            qj = q2
        elif j == 3:
            qj = q3
        if k == 2:
            qk = q2
        elif k == 3:
            qk = q3
        if i == 2:
            qi = q2
        elif i == 3:
            qi = q3
        a -= qj
        b += qk * e
        c += q0
        d -= qi
    t2 = wp.acos(2.0 * (a * a + b * b) / (a * a + b * b + c * c + d * d) - 1.0)
    tp = wp.atan2(b, a)
    tm = wp.atan2(d, c)
    t1 = 0.0
    t3 = 0.0
    if wp.abs(t2) < 1e-6:
        t3 = 2.0 * tp - t1
    elif wp.abs(t2 - wp.pi) < 1e-6:
        t3 = 2.0 * tm + t1
    else:
        t1 = tp - tm
        t3 = tp + tm
    if not_proper:
        t2 -= wp.HALF_PI
        t3 *= e
    ex = t1
    ey = t2
    ez = t3
    if i == 2:
        ex = t2
        ey = t1
    elif i == 3:
        ex = t3
        ez = t1
    if j == 1:
        ex = t2
    elif j == 2:
        ey = t2
    else:
        ez = t2
    if k == 1:
        ex = t3
    elif k == 2:
        ey = t3
    else:
        ez = t3
    return wp.vec3(ex, ey, ez)


@wp.func
def quat_from_euler(e: wp.vec3, i: int, j: int, k: int) -> wp.quat:
    ei = e[i]
    ej = e[j]
    ek = e[k]
    hi = 0.5 * ei
    hj = 0.5 * ej
    hk = 0.5 * ek
    qi = wp.quat(0.0, 0.0, 0.0, 1.0)
    qj = wp.quat(0.0, 0.0, 0.0, 1.0)
    qk = wp.quat(0.0, 0.0, 0.0, 1.0)
    si = wp.sin(hi)
    sj = wp.sin(hj)
    sk = wp.sin(hk)
    ci = wp.cos(hi)
    cj = wp.cos(hj)
    ck = wp.cos(hk)
    if i == 0:
        qi = wp.quat(si, 0.0, 0.0, ci)
    elif i == 1:
        qi = wp.quat(0.0, si, 0.0, ci)
    else:
        qi = wp.quat(0.0, 0.0, si, ci)
    if j == 0:
        qj = wp.quat(sj, 0.0, 0.0, cj)
    elif j == 1:
        qj = wp.quat(0.0, sj, 0.0, cj)
    else:
        qj = wp.quat(0.0, 0.0, sj, cj)
    if k == 0:
        qk = wp.quat(sk, 0.0, 0.0, ck)
    elif k == 1:
        qk = wp.quat(0.0, sk, 0.0, ck)
    else:
        qk = wp.quat(0.0, 0.0, sk, ck)
    return wp.mul(qk, wp.mul(qj, qi))


@wp.func
def transform_twist(t: wp.transform, x: wp.spatial_vector) -> wp.spatial_vector:
    q = wp.transform_get_rotation(t)
    p = wp.transform_get_translation(t)
    w = wp.spatial_top(x)
    v = wp.spatial_bottom(x)
    w = wp.quat_rotate(q, w)
    v = wp.quat_rotate(q, v) + wp.cross(p, w)
    return wp.spatial_vector(w, v)


@wp.func
def transform_wrench(t: wp.transform, x: wp.spatial_vector) -> wp.spatial_vector:
    q = wp.transform_get_rotation(t)
    p = wp.transform_get_translation(t)
    tau = wp.spatial_top(x)
    f = wp.spatial_bottom(x)
    f = wp.quat_rotate(q, f)
    tau = wp.quat_rotate(q, tau) + wp.cross(p, f)
    return wp.spatial_vector(tau, f)


def _per_float_type(factory):
    """One device function with an overload per float type, as Warp registers them."""
    funcs = [factory(dtype) for dtype in (wp.float32, wp.float64, wp.float16)]
    out = wp.func(funcs[0])
    for f in funcs[1:]:
        out.add_overload(f)
    return out


def _transform_from_matrix(dtype):
    mat44 = wp.types.matrix((4, 4), dtype)
    vec3 = wp.types.vector(3, dtype)
    transform = wp.types.transformation(dtype)

    def transform_from_matrix(mat: mat44) -> transform:
        p = vec3(mat[0][3], mat[1][3], mat[2][3])
        q = wp.quat_from_matrix(mat)
        return transform(p, q)

    return transform_from_matrix


def _transform_to_matrix(dtype):
    mat44 = wp.types.matrix((4, 4), dtype)
    transform = wp.types.transformation(dtype)

    def transform_to_matrix(xform: transform) -> mat44:
        p = wp.transform_get_translation(xform)
        q = wp.transform_get_rotation(xform)
        rot = wp.quat_to_matrix(q)
        return mat44(
            rot[0][0], rot[0][1], rot[0][2], p[0],
            rot[1][0], rot[1][1], rot[1][2], p[1],
            rot[2][0], rot[2][1], rot[2][2], p[2],
            dtype(0.0), dtype(0.0), dtype(0.0), dtype(1.0),
        )

    return transform_to_matrix


def _transform_compose(dtype):
    mat44 = wp.types.matrix((4, 4), dtype)
    quat = wp.types.quaternion(dtype)
    vec3 = wp.types.vector(3, dtype)

    def transform_compose(position: vec3, rotation: quat, scale: vec3):
        R = wp.quat_to_matrix(rotation)
        return mat44(
            scale[0] * R[0, 0], scale[1] * R[0, 1], scale[2] * R[0, 2], position[0],
            scale[0] * R[1, 0], scale[1] * R[1, 1], scale[2] * R[1, 2], position[1],
            scale[0] * R[2, 0], scale[1] * R[2, 1], scale[2] * R[2, 2], position[2],
            dtype(0.0), dtype(0.0), dtype(0.0), dtype(1.0),
        )

    return transform_compose


def _transform_decompose(dtype):
    mat44 = wp.types.matrix((4, 4), dtype)
    vec3 = wp.types.vector(3, dtype)
    mat33 = wp.types.matrix((3, 3), dtype)

    def transform_decompose(m: mat44):
        zero = dtype(0.0)
        position = vec3(m[0, 3], m[1, 3], m[2, 3])
        r00, r01, r02 = m[0, 0], m[0, 1], m[0, 2]
        r10, r11, r12 = m[1, 0], m[1, 1], m[1, 2]
        r20, r21, r22 = m[2, 0], m[2, 1], m[2, 2]
        sx = wp.sqrt(r00 * r00 + r10 * r10 + r20 * r20)
        sy = wp.sqrt(r01 * r01 + r11 * r11 + r21 * r21)
        sz = wp.sqrt(r02 * r02 + r12 * r12 + r22 * r22)
        if sx != zero:
            r00 /= sx
            r10 /= sx
            r20 /= sx
        if sy != zero:
            r01 /= sy
            r11 /= sy
            r21 /= sy
        if sz != zero:
            r02 /= sz
            r12 /= sz
            r22 /= sz
        rotation = wp.quat_from_matrix(mat33(r00, r01, r02, r10, r11, r12, r20, r21, r22))
        scale = vec3(sx, sy, sz)
        return position, rotation, scale

    return transform_decompose


transform_from_matrix = _per_float_type(_transform_from_matrix)
transform_to_matrix = _per_float_type(_transform_to_matrix)
transform_compose = _per_float_type(_transform_compose)
transform_decompose = _per_float_type(_transform_decompose)
