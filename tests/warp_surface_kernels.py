"""Kernels over Warp 1.19's builtin surface, written once and run by tests/test_warp_surface.py
under simt and, with ``import warp as wp``, under warp-lang: the outputs must agree.

Every spelling here is Warp's: subscript annotations, structs, the random family, transforms,
spatial vectors, quaternion helpers, float16/int16 types.
"""
from typing import Any, Literal

import simt as wp


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float
    tag: int


@wp.struct
class Scene:
    gravity: wp.vec3
    scale: float
    masses: wp.array[float]


@wp.kernel
def random_family(seed: int, ints: wp.array2d[int], uints: wp.array2d[wp.uint32],
                  floats: wp.array2d[float], vec2s: wp.array2d[wp.vec2], vec3s: wp.array2d[wp.vec3]):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    ints[i, 0] = wp.randi(state)
    ints[i, 1] = wp.randi(state, -50, 50)
    ints[i, 2] = int(wp.poisson(state, 3.5))
    ints[i, 3] = int(wp.poisson(state, 20.0))
    uints[i, 0] = wp.randu(state)
    uints[i, 1] = wp.randu(state, wp.uint32(5), wp.uint32(17))
    uints[i, 2] = state
    floats[i, 0] = wp.randf(state)
    floats[i, 1] = wp.randf(state, -2.0, 3.0)
    floats[i, 2] = wp.randn(state)
    floats[i, 3] = wp.noise(state, 1.7 * float(i))
    floats[i, 4] = wp.noise(state, wp.vec3(0.3 * float(i), 1.1, -2.5))
    floats[i, 5] = wp.pnoise(state, wp.vec2(0.7 * float(i), 3.2), 4, 5)
    vec2s[i, 0] = wp.sample_triangle(state)
    vec2s[i, 1] = wp.sample_unit_ring(state)
    vec2s[i, 2] = wp.sample_unit_disk(state)
    vec2s[i, 3] = wp.sample_unit_square(state)
    vec2s[i, 4] = wp.curlnoise(state, wp.vec2(0.25 * float(i), 0.5), wp.uint32(2), 2.0, 0.5)
    vec3s[i, 0] = wp.sample_unit_sphere_surface(state)
    vec3s[i, 1] = wp.sample_unit_sphere(state)
    vec3s[i, 2] = wp.sample_unit_hemisphere_surface(state)
    vec3s[i, 3] = wp.sample_unit_hemisphere(state)
    vec3s[i, 4] = wp.sample_unit_cube(state)


@wp.kernel
def transforms_and_spatial(ps: wp.array[wp.vec3], angles: wp.array[float],
                           out_v: wp.array2d[wp.vec3], out_q: wp.array2d[wp.quat],
                           out_s: wp.array2d[wp.spatial_vector], out_f: wp.array2d[float]):
    i = wp.tid()
    p = ps[i]
    q = wp.quat_from_axis_angle(wp.normalize(wp.vec3(1.0, 2.0, 3.0)), angles[i])
    t = wp.transform(p, q)
    u = wp.transform_multiply(t, wp.transform_inverse(wp.transform(wp.vec3(0.5, -1.0, 2.0), q)))
    out_v[i, 0] = wp.transform_point(u, wp.vec3(1.0, 2.0, 3.0))
    out_v[i, 1] = wp.transform_vector(t, wp.vec3(-1.0, 0.5, 0.25))
    out_v[i, 2] = wp.transform_get_translation(u)
    out_v[i, 3] = wp.quat_to_rpy(q)
    out_v[i, 4] = wp.transform_point(wp.transform_to_matrix(t), p)
    out_q[i, 0] = wp.transform_get_rotation(u)
    out_q[i, 1] = wp.quat_from_matrix(wp.quat_to_matrix(q))
    out_q[i, 2] = wp.quat_slerp(wp.quat_identity(), q, 0.3)
    out_q[i, 3] = wp.quat_from_euler(wp.vec3(0.1, angles[i], -0.4), 0, 1, 2)
    out_q[i, 4] = wp.quat_twist(wp.vec3(0.0, 0.0, 1.0), q)
    a = wp.spatial_vector(p, wp.vec3(1.0, -2.0, 0.5))
    b = wp.spatial_vector(0.1, 0.2, 0.3, angles[i], 0.5, 0.6)
    out_s[i, 0] = wp.spatial_cross(a, b)
    out_s[i, 1] = wp.spatial_cross_dual(a, b)
    out_s[i, 2] = wp.transform_twist(t, a)
    out_s[i, 3] = wp.transform_wrench(t, b)
    out_f[i, 0] = wp.spatial_dot(a, b)
    out_f[i, 1] = wp.quat_twist_angle(wp.vec3(0.0, 0.0, 1.0), q)
    axis, angle = wp.quat_to_axis_angle(q)
    out_f[i, 2] = angle + axis[0]
    out_f[i, 3] = wp.norm_l1(p) + wp.norm_huber(p, 0.5)
    out_f[i, 4] = wp.length(wp.smooth_normalize(p, 1.5))
    v = wp.vec4(p[0], angles[i], p[2], -p[1])
    out_f[i, 5] = float(wp.argmin(v)) + 10.0 * float(wp.argmax(v))
    m = wp.mat33(p[0], 1.0, 2.0, 3.0, p[1], 4.0, 5.0, 6.0, p[2])
    out_f[i, 6] = wp.ddot(m, m)
    out_f[i, 7] = wp.velocity_at_point(a, p)[1]


@wp.kernel
def structs_and_types(particles: wp.array[Particle], scene: Scene, out: wp.array[wp.vec3],
                      halves: wp.array[wp.float16], shorts: wp.array[wp.int16],
                      ushorts: wp.array[wp.uint16], brains: wp.array[wp.bfloat16]):
    i = wp.tid()
    p = particles[i]
    moved = Particle(p.pos + scene.gravity * scene.scale, p.mass * scene.masses[i], p.tag + 1)
    particles[i] = moved
    particles[i].tag = particles[i].tag * 2
    out[i] = moved.pos * moved.mass
    h = halves[i]
    halves[i] = h * wp.float16(3.0) + wp.float16(0.1)
    shorts[i] = shorts[i] * wp.int16(300)
    ushorts[i] = ushorts[i] - wp.uint16(7)
    brains[i] = brains[i] * wp.bfloat16(1.7) - wp.bfloat16(0.3) * brains[i]


Vec3 = wp.types.vector(length=3, dtype=float)


@wp.func
def scale_any(v: Any, s: float):
    return v * s


@wp.kernel
def annotations_and_forms(a: wp.array[float], b: wp.array2d[wp.vec3],
                          c: wp.array[float, Literal[1]], d: wp.array(dtype=float),
                          bits: wp.array[wp.int32]):
    i = wp.tid()
    three = 3                     # a local bound once to a literal: static() may read it
    total = float(0.0)
    for k in reversed(range(3)):
        total = total * 10.0 + float(k)
    f = scale_any
    v = f(b[i, 0], 2.0)
    d[i] = a[i] * wp.pi + total + v[2] + c[i]
    w = Vec3(1.0, 2.0, 3.0)
    z = wp.vector(0.5, 1.5, 2.5, 3.5)
    d[i] += w[1] + z[3] + wp.static(2.0 * 4.0 + float(three))
    wp.atomic_or(bits, 0, 1 << i)
    wp.atomic_and(bits, 1, ~(1 << i))
    wp.atomic_xor(bits, 2, i + 1)


@wp.func
def array_sum(v: wp.array[float]) -> float:
    s = float(0.0)
    for k in range(v.shape[0]):
        s += v[k]
    return s


@wp.kernel
def array_views(grid: wp.array2d[float], cube: wp.array3d[float], out: wp.array[float]):
    i = wp.tid()
    row = grid[i]
    out[i] = array_sum(row) + array_sum(grid[i]) + cube[i][1][2] + float(len(row))
    plane = cube[i]
    line = plane[0]
    line[1] = out[i]
    wp.atomic_add(grid[i], 0, 1.0)


@wp.func
def scene_of(g: wp.vec3, masses: wp.array[float]) -> Scene:
    s = Scene()
    s.gravity = g
    s.scale = type(g[0])(2.0)
    s.masses = masses
    return s


@wp.kernel
def struct_array_fields(masses: wp.array[float], out: wp.array[float]):
    i = wp.tid()
    s = scene_of(wp.vec3(1.0, 2.0, 3.0), masses)
    if masses:
        out[i] = s.masses[i] * s.scale + s.gravity[2]


# ---- wp.Function parameters (Warp 1.19) ------------------------------------------------------

@wp.func
def twice(x: float):
    return x * 2.0


@wp.func
def thrice(x: float):
    return x * 3.0


@wp.func
def apply_unary(g: wp.Function, x: float):
    return g(x)


@wp.func
def apply_binary(g: wp.Function, x: float, y: float):
    return g(x, y)


@wp.func
def apply_with_default(g: wp.Function = twice, x: float = 3.0):
    return g(x)


@wp.func
def apply_through_local(g: wp.Function, x: float):
    f = g
    return apply_unary(f, x)


@wp.kernel
def function_parameters(x: wp.array[float], out: wp.array2d[float]):
    i = wp.tid()
    v = x[i]
    out[i, 0] = apply_unary(twice, v)
    out[i, 1] = apply_unary(thrice, v)
    out[i, 2] = apply_with_default()
    out[i, 3] = apply_unary(g=thrice, x=v)
    out[i, 4] = apply_through_local(twice, v)
    out[i, 5] = apply_unary(wp.abs, v)
    out[i, 6] = apply_binary(wp.min, v, 1.0)


@wp.func
def set_ref(x: wp.ref[float], v: float):
    x = v


@wp.kernel(enable_backward=False)
def negative_subscripts(x: wp.array[float], out: wp.array2d[float]):
    i = wp.tid()
    two = 2
    v = wp.vec3(x[i], 2.0 * x[i], 3.0)
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, x[i])
    set_ref(v[-1], 10.0)
    m[-1, -2] = -1.0
    out[i, 0] = v[-1] + v[-2] * v[-3]
    out[i, 1] = m[-1][-1] + m[-1, -2] + m[-3, 0]
    head = v[0:two]                  # a slice bound that is a local bound once to a literal
    out[i, 2] = head[1] - head[0]


# ---- array slices inside kernels ---------------------------------------------------------------

@wp.kernel
def array_slices(grid: wp.array2d[float], start: int, stop: int, step: int,
                 flat: wp.array[wp.vec3], out: wp.array2d[float]):
    i = wp.tid()
    col = grid[start:stop:step, 1]              # runtime bounds and step, negative included
    out[i, 0] = float(col.shape[0])
    out[i, 1] = col[0] + col[col.shape[0] - 1]
    out[i, 2] = array_sum(grid[i, 1:]) + array_sum(grid[::2, 0][1:])
    tail = grid[-2:]
    out[i, 3] = tail[0, i % 3]
    if i == 1:                                  # one thread writes through a slice
        flat[start:stop:step][0].x = float(i)
        flat[start:stop:step][0][1] += 1.0


@wp.kernel(enable_backward=False)
def transform_part_refs(x: wp.array[float], out: wp.array2d[float]):
    i = wp.tid()
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0))
    set_ref(t.p.y, x[i])                 # a wp.ref to one scalar of the transform's parts
    set_ref(t.q.z, 0.5 * x[i])
    out[i, 0] = t.p.x + t.p.y * 10.0 + t.p.z * 100.0
    out[i, 1] = t.q.z + t.q.w


USE_FAST_PATH = True


@wp.func
def fast_index(i: int) -> int:
    return i


@wp.func
def slow_index(i: int) -> int:
    return -1


@wp.kernel
def constant_branches(out: wp.array2d[int]):
    i = wp.tid()
    if USE_FAST_PATH:                 # a module constant: only the branch taken is compiled,
        g = fast_index                # so g is bound after it
        k = i * 2
    else:
        k = slow_index(i)
    h = g
    out[i, 0] = k
    out[i, 1] = h(i) + 1
