"""Perlin noise (``noise``, ``pnoise``) and curl noise (``curlnoise``), after Warp's
``native/noise.h``: gradients drawn from the PCG hash of the lattice point, quintic
interpolation, corners combined x first, then y, z, t."""
import simt as wp

P1 = wp.uint32(73856093)
P2 = wp.uint32(19349663)
P3 = wp.uint32(53471161)
P4 = wp.uint32(10000019)


@wp.func
def smootherstep(t: float) -> float:
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@wp.func
def smootherstep_gradient(t: float) -> float:
    return 30.0 * t * t * (t * (t - 2.0) + 1.0)


@wp.func
def interpolate(a0: float, a1: float, t: float) -> float:
    return (a1 - a0) * smootherstep(t) + a0


@wp.func
def interpolate_gradient(a0: float, a1: float, t: float, d_a0: wp.vec2, d_a1: wp.vec2, d_t: wp.vec2):
    return (d_a1 - d_a0) * smootherstep(t) + (a1 - a0) * smootherstep_gradient(t) * d_t + d_a0


@wp.func
def interpolate_gradient(a0: float, a1: float, t: float, d_a0: wp.vec3, d_a1: wp.vec3,  # noqa: F811
                         d_t: wp.vec3):
    return (d_a1 - d_a0) * smootherstep(t) + (a1 - a0) * smootherstep_gradient(t) * d_t + d_a0


@wp.func
def interpolate_gradient(a0: float, a1: float, t: float, d_a0: wp.vec4, d_a1: wp.vec4,  # noqa: F811
                         d_t: wp.vec4):
    return (d_a1 - d_a0) * smootherstep(t) + (a1 - a0) * smootherstep_gradient(t) * d_t + d_a0


@wp.func
def random_gradient_1d(state: wp.uint32, ix: int) -> float:
    idx = wp.uint32(ix) * P1 + state
    return wp.randf(idx, -1.0, 1.0)


@wp.func
def random_gradient_2d(state: wp.uint32, ix: int, iy: int) -> wp.vec2:
    idx = wp.uint32(ix) * P1 ^ wp.uint32(iy) * P2 + state
    return wp.normalize(wp.sample_unit_square(idx))


@wp.func
def random_gradient_3d(state: wp.uint32, ix: int, iy: int, iz: int) -> wp.vec3:
    idx = wp.uint32(ix) * P1 ^ wp.uint32(iy) * P2 ^ wp.uint32(iz) * P3 + state
    return wp.normalize(wp.sample_unit_cube(idx))


@wp.func
def random_gradient_4d(state: wp.uint32, ix: int, iy: int, iz: int, it: int) -> wp.vec4:
    idx = wp.uint32(ix) * P1 ^ wp.uint32(iy) * P2 ^ wp.uint32(iz) * P3 ^ wp.uint32(it) * P4 + state
    a = wp.randf(idx) - 0.5
    b = wp.randf(idx) - 0.5
    c = wp.randf(idx) - 0.5
    d = wp.randf(idx) - 0.5
    return wp.normalize(wp.vec4(a, b, c, d))


@wp.func
def grid_2d(state: wp.uint32, ix: int, iy: int, dx: float, dy: float) -> float:
    g = random_gradient_2d(state, ix, iy)
    return dx * g[0] + dy * g[1]


@wp.func
def grid_3d(state: wp.uint32, ix: int, iy: int, iz: int, dx: float, dy: float, dz: float) -> float:
    g = random_gradient_3d(state, ix, iy, iz)
    return dx * g[0] + dy * g[1] + dz * g[2]


@wp.func
def grid_4d(state: wp.uint32, ix: int, iy: int, iz: int, it: int, dx: float, dy: float, dz: float,
            dt: float) -> float:
    g = random_gradient_4d(state, ix, iy, iz, it)
    return dx * g[0] + dy * g[1] + dz * g[2] + dt * g[3]


@wp.func
def noise_1d(state: wp.uint32, x0: int, x1: int, dx: float) -> float:
    v0 = dx * random_gradient_1d(state, x0)
    v1 = (dx - 1.0) * random_gradient_1d(state, x1)
    return interpolate(v0, v1, dx)


@wp.func
def noise_2d(state: wp.uint32, x0: int, y0: int, x1: int, y1: int, dx: float, dy: float) -> float:
    xi0 = interpolate(grid_2d(state, x0, y0, dx, dy), grid_2d(state, x1, y0, dx - 1.0, dy), dx)
    xi1 = interpolate(grid_2d(state, x0, y1, dx, dy - 1.0), grid_2d(state, x1, y1, dx - 1.0, dy - 1.0), dx)
    return interpolate(xi0, xi1, dy)


@wp.func
def noise_3d_plane(state: wp.uint32, x0: int, y0: int, x1: int, y1: int, z: int, dx: float, dy: float,
                   dz: float) -> float:
    xi0 = interpolate(grid_3d(state, x0, y0, z, dx, dy, dz), grid_3d(state, x1, y0, z, dx - 1.0, dy, dz), dx)
    xi1 = interpolate(grid_3d(state, x0, y1, z, dx, dy - 1.0, dz),
                      grid_3d(state, x1, y1, z, dx - 1.0, dy - 1.0, dz), dx)
    return interpolate(xi0, xi1, dy)


@wp.func
def noise_3d(state: wp.uint32, x0: int, y0: int, z0: int, x1: int, y1: int, z1: int, dx: float,
             dy: float, dz: float) -> float:
    yi0 = noise_3d_plane(state, x0, y0, x1, y1, z0, dx, dy, dz)
    yi1 = noise_3d_plane(state, x0, y0, x1, y1, z1, dx, dy, dz - 1.0)
    return interpolate(yi0, yi1, dz)


@wp.func
def noise_4d_plane(state: wp.uint32, x0: int, y0: int, x1: int, y1: int, z: int, t: int, dx: float,
                   dy: float, dz: float, dt: float) -> float:
    xi0 = interpolate(grid_4d(state, x0, y0, z, t, dx, dy, dz, dt),
                      grid_4d(state, x1, y0, z, t, dx - 1.0, dy, dz, dt), dx)
    xi1 = interpolate(grid_4d(state, x0, y1, z, t, dx, dy - 1.0, dz, dt),
                      grid_4d(state, x1, y1, z, t, dx - 1.0, dy - 1.0, dz, dt), dx)
    return interpolate(xi0, xi1, dy)


@wp.func
def noise_4d(state: wp.uint32, x0: int, y0: int, z0: int, t0: int, x1: int, y1: int, z1: int, t1: int,
             dx: float, dy: float, dz: float, dt: float) -> float:
    zi0 = interpolate(noise_4d_plane(state, x0, y0, x1, y1, z0, t0, dx, dy, dz, dt),
                      noise_4d_plane(state, x0, y0, x1, y1, z1, t0, dx, dy, dz - 1.0, dt), dz)
    zi1 = interpolate(noise_4d_plane(state, x0, y0, x1, y1, z0, t1, dx, dy, dz, dt - 1.0),
                      noise_4d_plane(state, x0, y0, x1, y1, z1, t1, dx, dy, dz - 1.0, dt - 1.0), dz)
    return interpolate(zi0, zi1, dt)


@wp.func
def cell(x: float) -> int:
    return int(wp.floor(x))


@wp.func
def noise(state: wp.uint32, x: float) -> float:
    x0 = cell(x)
    return noise_1d(state, x0, x0 + 1, x - wp.floor(x))


@wp.func
def noise(state: wp.uint32, xy: wp.vec2) -> float:  # noqa: F811
    x0 = cell(xy[0])
    y0 = cell(xy[1])
    return noise_2d(state, x0, y0, x0 + 1, y0 + 1, xy[0] - wp.floor(xy[0]), xy[1] - wp.floor(xy[1]))


@wp.func
def noise(state: wp.uint32, xyz: wp.vec3) -> float:  # noqa: F811
    x0 = cell(xyz[0])
    y0 = cell(xyz[1])
    z0 = cell(xyz[2])
    return noise_3d(state, x0, y0, z0, x0 + 1, y0 + 1, z0 + 1, xyz[0] - wp.floor(xyz[0]),
                    xyz[1] - wp.floor(xyz[1]), xyz[2] - wp.floor(xyz[2]))


@wp.func
def noise(state: wp.uint32, p: wp.vec4) -> float:  # noqa: F811
    x0 = cell(p[0])
    y0 = cell(p[1])
    z0 = cell(p[2])
    t0 = cell(p[3])
    return noise_4d(state, x0, y0, z0, t0, x0 + 1, y0 + 1, z0 + 1, t0 + 1, p[0] - wp.floor(p[0]),
                    p[1] - wp.floor(p[1]), p[2] - wp.floor(p[2]), p[3] - wp.floor(p[3]))


@wp.func
def wrap(i: int, period: int) -> int:
    return i % period                 # Warp's mod(): C's remainder


@wp.func
def pnoise(state: wp.uint32, x: float, px: int) -> float:
    x0 = wrap(cell(x), px)
    return noise_1d(state, x0, wrap(x0 + 1, px), x - wp.floor(x))


@wp.func
def pnoise(state: wp.uint32, xy: wp.vec2, px: int, py: int) -> float:  # noqa: F811
    x0 = wrap(cell(xy[0]), px)
    y0 = wrap(cell(xy[1]), py)
    return noise_2d(state, x0, y0, wrap(x0 + 1, px), wrap(y0 + 1, py), xy[0] - wp.floor(xy[0]),
                    xy[1] - wp.floor(xy[1]))


@wp.func
def pnoise(state: wp.uint32, xyz: wp.vec3, px: int, py: int, pz: int) -> float:  # noqa: F811
    x0 = wrap(cell(xyz[0]), px)
    y0 = wrap(cell(xyz[1]), py)
    z0 = wrap(cell(xyz[2]), pz)
    return noise_3d(state, x0, y0, z0, wrap(x0 + 1, px), wrap(y0 + 1, py), wrap(z0 + 1, pz),
                    xyz[0] - wp.floor(xyz[0]), xyz[1] - wp.floor(xyz[1]), xyz[2] - wp.floor(xyz[2]))


@wp.func
def pnoise(state: wp.uint32, p: wp.vec4, px: int, py: int, pz: int, pt: int) -> float:  # noqa: F811
    x0 = wrap(cell(p[0]), px)
    y0 = wrap(cell(p[1]), py)
    z0 = wrap(cell(p[2]), pz)
    t0 = wrap(cell(p[3]), pt)
    return noise_4d(state, x0, y0, z0, t0, wrap(x0 + 1, px), wrap(y0 + 1, py), wrap(z0 + 1, pz),
                    wrap(t0 + 1, pt), p[0] - wp.floor(p[0]), p[1] - wp.floor(p[1]),
                    p[2] - wp.floor(p[2]), p[3] - wp.floor(p[3]))


# --- gradients, for curl noise ------------------------------------------------------------------

@wp.func
def pair_2d(state: wp.uint32, x0: int, x1: int, y: int, dx: float, dy: float):
    """Value and gradient interpolated along x between two lattice points."""
    g0 = random_gradient_2d(state, x0, y)
    v0 = wp.dot(wp.vec2(dx, dy), g0)
    g1 = random_gradient_2d(state, x1, y)
    v1 = wp.dot(wp.vec2(dx - 1.0, dy), g1)
    return interpolate(v0, v1, dx), interpolate_gradient(v0, v1, dx, g0, g1, wp.vec2(1.0, 0.0))


@wp.func
def noise_2d_gradient(state: wp.uint32, x0: int, y0: int, x1: int, y1: int, dx: float, dy: float):
    xi0, g0 = pair_2d(state, x0, x1, y0, dx, dy)
    xi1, g1 = pair_2d(state, x0, x1, y1, dx, dy - 1.0)
    return interpolate_gradient(xi0, xi1, dy, g0, g1, wp.vec2(0.0, 1.0))


@wp.func
def pair_3d(state: wp.uint32, x0: int, x1: int, y: int, z: int, dx: float, dy: float, dz: float):
    g0 = random_gradient_3d(state, x0, y, z)
    v0 = wp.dot(wp.vec3(dx, dy, dz), g0)
    g1 = random_gradient_3d(state, x1, y, z)
    v1 = wp.dot(wp.vec3(dx - 1.0, dy, dz), g1)
    return interpolate(v0, v1, dx), interpolate_gradient(v0, v1, dx, g0, g1, wp.vec3(1.0, 0.0, 0.0))


@wp.func
def noise_3d_gradient(state: wp.uint32, x0: int, y0: int, z0: int, x1: int, y1: int, z1: int,
                      dx: float, dy: float, dz: float):
    xi00, g00 = pair_3d(state, x0, x1, y0, z0, dx, dy, dz)
    xi10, g10 = pair_3d(state, x0, x1, y1, z0, dx, dy - 1.0, dz)
    xi01, g01 = pair_3d(state, x0, x1, y0, z1, dx, dy, dz - 1.0)
    xi11, g11 = pair_3d(state, x0, x1, y1, z1, dx, dy - 1.0, dz - 1.0)
    dy_dt = wp.vec3(0.0, 1.0, 0.0)
    yi0 = interpolate(xi00, xi10, dy)
    gy0 = interpolate_gradient(xi00, xi10, dy, g00, g10, dy_dt)
    yi1 = interpolate(xi01, xi11, dy)
    gy1 = interpolate_gradient(xi01, xi11, dy, g01, g11, dy_dt)
    return interpolate_gradient(yi0, yi1, dz, gy0, gy1, wp.vec3(0.0, 0.0, 1.0))


@wp.func
def pair_4d(state: wp.uint32, x0: int, x1: int, y: int, z: int, t: int, dx: float, dy: float,
            dz: float, dt: float):
    g0 = random_gradient_4d(state, x0, y, z, t)
    v0 = wp.dot(wp.vec4(dx, dy, dz, dt), g0)
    g1 = random_gradient_4d(state, x1, y, z, t)
    v1 = wp.dot(wp.vec4(dx - 1.0, dy, dz, dt), g1)
    return interpolate(v0, v1, dx), interpolate_gradient(v0, v1, dx, g0, g1,
                                                         wp.vec4(1.0, 0.0, 0.0, 0.0))


@wp.func
def plane_4d_gradient(state: wp.uint32, x0: int, y0: int, x1: int, y1: int, z: int, t: int,
                      dx: float, dy: float, dz: float, dt: float):
    xa, ga = pair_4d(state, x0, x1, y0, z, t, dx, dy, dz, dt)
    xb, gb = pair_4d(state, x0, x1, y1, z, t, dx, dy - 1.0, dz, dt)
    return interpolate(xa, xb, dy), interpolate_gradient(xa, xb, dy, ga, gb, wp.vec4(0.0, 1.0, 0.0, 0.0))


@wp.func
def noise_4d_gradient(state: wp.uint32, x0: int, y0: int, z0: int, t0: int, x1: int, y1: int,
                      z1: int, t1: int, dx: float, dy: float, dz: float, dt: float):
    y00, g00 = plane_4d_gradient(state, x0, y0, x1, y1, z0, t0, dx, dy, dz, dt)
    y10, g10 = plane_4d_gradient(state, x0, y0, x1, y1, z1, t0, dx, dy, dz - 1.0, dt)
    y01, g01 = plane_4d_gradient(state, x0, y0, x1, y1, z0, t1, dx, dy, dz, dt - 1.0)
    y11, g11 = plane_4d_gradient(state, x0, y0, x1, y1, z1, t1, dx, dy, dz - 1.0, dt - 1.0)
    dz_dt = wp.vec4(0.0, 0.0, 1.0, 0.0)
    z0v = interpolate(y00, y10, dz)
    gz0 = interpolate_gradient(y00, y10, dz, g00, g10, dz_dt)
    z1v = interpolate(y01, y11, dz)
    gz1 = interpolate_gradient(y01, y11, dz, g01, g11, dz_dt)
    return interpolate_gradient(z0v, z1v, dt, gz0, gz1, wp.vec4(0.0, 0.0, 0.0, 1.0))


@wp.func
def curlnoise(state: wp.uint32, xy: wp.vec2, octaves: wp.uint32 = wp.uint32(1),
              lacunarity: float = 2.0, gain: float = 0.5) -> wp.vec2:
    curl_sum = wp.vec2(0.0)
    freq = 1.0
    amplitude = 1.0
    for i in range(int(octaves)):
        pt = freq * xy
        x0 = cell(pt[0])
        y0 = cell(pt[1])
        g = noise_2d_gradient(state, x0, y0, x0 + 1, y0 + 1, pt[0] - wp.floor(pt[0]),
                              pt[1] - wp.floor(pt[1]))
        curl_sum += amplitude * g
        amplitude *= gain
        freq *= lacunarity
    return wp.vec2(-curl_sum[1], curl_sum[0])


@wp.func
def curlnoise(state: wp.uint32, xyz: wp.vec3, octaves: wp.uint32 = wp.uint32(1),  # noqa: F811
              lacunarity: float = 2.0, gain: float = 0.5) -> wp.vec3:
    s1 = wp.vec3(0.0)
    s2 = wp.vec3(0.0)
    s3 = wp.vec3(0.0)
    freq = 1.0
    amplitude = 1.0
    for i in range(int(octaves)):
        pt = freq * xyz
        x0 = cell(pt[0])
        y0 = cell(pt[1])
        z0 = cell(pt[2])
        dx = pt[0] - wp.floor(pt[0])
        dy = pt[1] - wp.floor(pt[1])
        dz = pt[2] - wp.floor(pt[2])
        g1 = noise_3d_gradient(state, x0, y0, z0, x0 + 1, y0 + 1, z0 + 1, dx, dy, dz)
        state = wp.rand_init(int(state), 10019689)
        g2 = noise_3d_gradient(state, x0, y0, z0, x0 + 1, y0 + 1, z0 + 1, dx, dy, dz)
        state = wp.rand_init(int(state), 13112221)
        g3 = noise_3d_gradient(state, x0, y0, z0, x0 + 1, y0 + 1, z0 + 1, dx, dy, dz)
        s1 += amplitude * g1
        s2 += amplitude * g2
        s3 += amplitude * g3
        amplitude *= gain
        freq *= lacunarity
    return wp.vec3(s3[1] - s2[2], s1[2] - s3[0], s2[0] - s1[1])


@wp.func
def curlnoise(state: wp.uint32, p: wp.vec4, octaves: wp.uint32 = wp.uint32(1),  # noqa: F811
              lacunarity: float = 2.0, gain: float = 0.5) -> wp.vec3:
    s1 = wp.vec4(0.0)
    s2 = wp.vec4(0.0)
    s3 = wp.vec4(0.0)
    freq = 1.0
    amplitude = 1.0
    for i in range(int(octaves)):
        pt = freq * p
        x0 = cell(pt[0])
        y0 = cell(pt[1])
        z0 = cell(pt[2])
        t0 = cell(pt[3])
        dx = pt[0] - wp.floor(pt[0])
        dy = pt[1] - wp.floor(pt[1])
        dz = pt[2] - wp.floor(pt[2])
        dt = pt[3] - wp.floor(pt[3])
        g1 = noise_4d_gradient(state, x0, y0, z0, t0, x0 + 1, y0 + 1, z0 + 1, t0 + 1, dx, dy, dz, dt)
        state = wp.rand_init(int(state), 10019689)
        g2 = noise_4d_gradient(state, x0, y0, z0, t0, x0 + 1, y0 + 1, z0 + 1, t0 + 1, dx, dy, dz, dt)
        state = wp.rand_init(int(state), 13112221)
        g3 = noise_4d_gradient(state, x0, y0, z0, t0, x0 + 1, y0 + 1, z0 + 1, t0 + 1, dx, dy, dz, dt)
        s1 += amplitude * g1
        s2 += amplitude * g2
        s3 += amplitude * g3
        amplitude *= gain
        freq *= lacunarity
    return wp.vec3(s3[1] - s2[2], s1[2] - s3[0], s2[0] - s1[1])
