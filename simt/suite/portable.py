"""Suite kernels written in plain Warp: this exact source also runs on warp-lang.

The Warp-compatibility test re-executes this file with ``import simt as wp`` replaced by
``import warp as wp``, so keep it self-contained: no other imports, only Warp builtins.

Multi-dimensional launches: ``i, j = wp.tid()`` with ``dim=(H, W)``; ``j`` (the last) varies
fastest and is CUDA's x.
"""
import simt as wp


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.func
def intersect_triangle(o: wp.vec3, d: wp.vec3, a: wp.vec3, b: wp.vec3, c: wp.vec3) -> float:
    """Moller-Trumbore: the hit distance along ``d``, or -1.0 on a miss."""
    e1 = b - a
    e2 = c - a
    p = wp.cross(d, e2)
    det = wp.dot(e1, p)
    if wp.abs(det) < 1.0e-8:
        return -1.0
    inv_det = 1.0 / det
    s = o - a
    u = wp.dot(s, p) * inv_det
    if u < 0.0 or u > 1.0:
        return -1.0
    q = wp.cross(s, e1)
    v = wp.dot(d, q) * inv_det
    if v < 0.0 or u + v > 1.0:
        return -1.0
    t = wp.dot(e2, q) * inv_det
    if t <= 0.0:
        return -1.0
    return t


@wp.kernel
def ray_triangle(origins: wp.array(dtype=wp.vec3), directions: wp.array(dtype=wp.vec3),
                 v0: wp.array(dtype=wp.vec3), v1: wp.array(dtype=wp.vec3),
                 v2: wp.array(dtype=wp.vec3), num_triangles: int,
                 hit_t: wp.array(dtype=float), hit_id: wp.array(dtype=int)):
    i = wp.tid()
    o = origins[i]
    d = directions[i]
    best_t = float(-1.0)
    best_id = int(-1)
    for k in range(num_triangles):
        t = intersect_triangle(o, d, v0[k], v1[k], v2[k])
        if t > 0.0:
            if best_id < 0 or t < best_t:
                best_t = t
                best_id = k
    hit_t[i] = best_t
    hit_id[i] = best_id


@wp.kernel
def vec_mat_quat(points: wp.array(dtype=wp.vec3), mats: wp.array(dtype=wp.mat33),
                 rots: wp.array(dtype=wp.quat), num_transforms: int,
                 rotated: wp.array(dtype=wp.vec3), unit: wp.array(dtype=wp.vec3),
                 crossed: wp.array(dtype=wp.vec3), transposed: wp.array(dtype=wp.vec3),
                 twice: wp.array(dtype=wp.vec3), scalars: wp.array(dtype=float),
                 lengths: wp.array(dtype=float)):
    i = wp.tid()
    p = points[i]
    k = i % num_transforms
    m = mats[k]
    q = rots[k]
    r = wp.quat_rotate(q, m @ p)
    rotated[i] = r
    unit[i] = wp.normalize(r)
    c = wp.cross(p, r)
    crossed[i] = c
    transposed[i] = wp.transpose(m) @ p
    twice[i] = wp.quat_rotate(q * q, p)
    scalars[i] = wp.dot(p, r) + c[0] * 0.5 - r.y
    scaled = wp.vec3(p[0] * 2.0, p.y, -p.z)
    lengths[i] = wp.length(scaled + c)


@wp.kernel
def mandelbrot(counts: wp.array2d(dtype=int), x0: float, y0: float, step: float, max_iter: int):
    i, j = wp.tid()
    cx = x0 + float(j) * step
    cy = y0 + float(i) * step
    x = float(0.0)
    y = float(0.0)
    n = int(0)
    while n < max_iter and x * x + y * y <= 4.0:
        xt = x * x - y * y + cx
        y = 2.0 * x * y + cy
        x = xt
        n = n + 1
    counts[i, j] = n


@wp.kernel
def nested_branches(values: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    v = values[i]
    if i % 7 == 3:
        out[i] = -1
        return
    r = int(0)
    if v > 50:
        if i % 2 == 0:
            r = v * 2
        elif v > 80:
            r = v - 80
            if r % 3 == 0:
                out[i] = r + 1000
                return
        else:
            r = -v
    elif v < 10:
        r = 7
    else:
        for k in range(v % 13):
            if k % 3 == 1:
                continue
            if r > 40:
                break
            r = r + (k * v) % 11
    out[i] = r


@wp.kernel
def histogram_global(values: wp.array(dtype=float), num_bins: int, bins: wp.array(dtype=int)):
    i = wp.tid()
    b = int(values[i] * float(num_bins))
    b = wp.clamp(b, 0, num_bins - 1)
    wp.atomic_add(bins, b, 1)


@wp.kernel
def stencil_2d(u: wp.array2d(dtype=float), jacobi: wp.array2d(dtype=float),
               laplacian: wp.array2d(dtype=float)):
    i, j = wp.tid()
    h = u.shape[0]
    w = u.shape[1]
    c = u[i, j]
    up = u[wp.max(i - 1, 0), j]
    down = u[wp.min(i + 1, h - 1), j]
    left = u[i, wp.max(j - 1, 0)]
    right = u[i, wp.min(j + 1, w - 1)]
    laplacian[i, j] = up + down + left + right - 4.0 * c
    if i == 0 or j == 0 or i == h - 1 or j == w - 1:
        jacobi[i, j] = c
        return
    jacobi[i, j] = 0.25 * (up + down + left + right)


@wp.kernel
def arith_semantics(a: wp.array(dtype=int), b: wp.array(dtype=int),
                    la: wp.array(dtype=wp.int64), lb: wp.array(dtype=wp.int64),
                    fa: wp.array(dtype=float), fb: wp.array(dtype=float),
                    int_results: wp.array2d(dtype=int), long_results: wp.array2d(dtype=wp.int64),
                    float_results: wp.array2d(dtype=float), probes: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    int_results[0, i] = x / y
    int_results[1, i] = x % y
    int_results[2, i] = x // y
    int_results[3, i] = x >> 3
    int_results[4, i] = x * 65599
    int_results[5, i] = -x + y * 3
    lx = la[i]
    ly = lb[i]
    long_results[0, i] = lx / ly
    long_results[1, i] = lx % ly
    long_results[2, i] = lx // ly
    fx = fa[i]
    fy = fb[i]
    float_results[0, i] = fx % fy
    float_results[1, i] = fx / fy
    float_results[2, i] = fx * 0.1 + 1.0 / 3.0
    # Float literals are float32 in arithmetic: widening the result shows float32 rounding.
    # (Avoid wp.float64(name) where name holds a bare literal: Warp then re-types the literal.)
    tenth = 0.1
    probes[0, i] = wp.float64(1.0 / 3.0)
    probes[1, i] = wp.float64(tenth * float(i))
    probes[2, i] = wp.float64(fx) / wp.float64(3.0)
    # A literal given straight to a constructor takes the constructor's type.
    probes[3, i] = wp.float64(0.1)
