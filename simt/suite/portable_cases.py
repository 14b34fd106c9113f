"""Inputs and numpy references for the Warp-compatible kernels in ``portable.py``.

References compute in float32 with the kernel's operation order wherever that makes the
expected values exact; where they cannot (vector math, ray casting) they compute in
float64 and the case states a tolerance.
"""
from __future__ import annotations

import numpy as np

from .case import ArrayInput, Case, ScalarInput

MODULE = "simt.suite.portable"
f32 = np.float32


# ---- saxpy ---------------------------------------------------------------------------

def saxpy_inputs(rng, n):
    x = rng.standard_normal(n).astype(f32)
    y = rng.standard_normal(n).astype(f32)
    return [ScalarInput("a", f32(1.75)), ArrayInput("x", x, "float32"),
            ArrayInput("y", y, "float32")], n, 256


def saxpy_reference(v):
    return {"y": v["a"] * v["x"] + v["y"]}


# ---- ray / triangle (Moller-Trumbore) ------------------------------------------------

def _triangles():
    """Four triangles facing -z at different depths, overlapping in x/y."""
    v0 = np.array([[-1.0, -1.0, 2.0], [-0.5, -1.5, 3.0], [0.0, -1.0, 1.5], [-2.0, 0.0, 4.0]])
    v1 = np.array([[1.0, -1.0, 2.2], [1.5, -0.5, 3.0], [1.5, 0.5, 1.6], [2.0, 0.2, 4.5]])
    v2 = np.array([[0.0, 1.0, 1.8], [-0.5, 1.5, 2.5], [-1.0, 1.0, 1.4], [0.0, 2.0, 4.0]])
    return v0, v1, v2


def _mt_float64(o, d, a, b, c):
    """Vectorised Moller-Trumbore over rays: (t or -1, and the smallest margin of any
    decision, so make_inputs can drop rays that float32 rounding could flip)."""
    e1, e2 = b - a, c - a
    p = np.cross(d, e2)
    det = p @ e1
    inv = 1.0 / det
    s = o - a
    u = np.einsum("ij,ij->i", s, p) * inv
    q = np.cross(s, e1)
    v = np.einsum("ij,ij->i", d, q) * inv
    t = q @ e2 * inv
    hit = (u >= 0) & (u <= 1) & (v >= 0) & (u + v <= 1) & (t > 0)
    margin = np.min(np.abs(np.stack([u, 1 - u, v, 1 - u - v, t])), axis=0)
    margin = np.minimum(margin, np.abs(det))
    return np.where(hit, t, -1.0), margin


def _ray_geometry(rng, n):
    v0, v1, v2 = _triangles()
    origins, dirs = [], []
    count = 0
    while count < n:
        o = np.column_stack([rng.uniform(-0.3, 0.3, n), rng.uniform(-0.3, 0.3, n), np.full(n, -2.0)])
        target = np.column_stack([rng.uniform(-2.2, 2.2, n), rng.uniform(-2.2, 2.2, n), np.full(n, 3.0)])
        d = target - o
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        o, d = o.astype(f32).astype(np.float64), d.astype(f32).astype(np.float64)
        ok = np.ones(n, dtype=bool)
        ts = []
        for k in range(len(v0)):
            t, margin = _mt_float64(o, d, v0[k].astype(f32), v1[k].astype(f32), v2[k].astype(f32))
            ok &= margin > 1e-3
            ts.append(t)
        ts = np.sort(np.where(np.stack(ts) > 0, np.stack(ts), np.inf), axis=0)
        with np.errstate(invalid="ignore"):    # inf - inf where a ray hits nothing
            ok &= ~((ts[1] - ts[0]) < 1e-3)  # the nearest hit must be unambiguous
        origins.append(o[ok])
        dirs.append(d[ok])
        count += int(ok.sum())
    return np.concatenate(origins)[:n].astype(f32), np.concatenate(dirs)[:n].astype(f32)


def ray_inputs(rng, n):
    origins, dirs = _ray_geometry(rng, n)
    v0, v1, v2 = (v.astype(f32) for v in _triangles())
    return [ArrayInput("origins", origins, "vec3"), ArrayInput("directions", dirs, "vec3"),
            ArrayInput("v0", v0, "vec3"), ArrayInput("v1", v1, "vec3"), ArrayInput("v2", v2, "vec3"),
            ScalarInput("num_triangles", np.int32(len(v0))),
            ArrayInput("hit_t", np.zeros(n, f32), "float32"),
            ArrayInput("hit_id", np.zeros(n, np.int32), "int32")], n, 128


def ray_reference(v):
    o, d = v["origins"].astype(np.float64), v["directions"].astype(np.float64)
    best_t = np.full(len(o), -1.0)
    best_id = np.full(len(o), -1, dtype=np.int32)
    for k in range(int(v["num_triangles"])):
        t, _ = _mt_float64(o, d, v["v0"][k].astype(np.float64), v["v1"][k].astype(np.float64),
                           v["v2"][k].astype(np.float64))
        closer = (t > 0) & ((best_id < 0) | (t < best_t))
        best_t = np.where(closer, t, best_t)
        best_id = np.where(closer, k, best_id)
    return {"hit_t": best_t.astype(f32), "hit_id": best_id}


# ---- vector / matrix / quaternion math -----------------------------------------------

NUM_TRANSFORMS = 5


def _quat_rotate(q, v):
    """Rotate rows of v by unit quaternions q = (x, y, z, w), as wp.quat_rotate."""
    u, w = q[..., :3], q[..., 3:4]
    return (v * (2.0 * w * w - 1.0) + np.cross(u, v) * w * 2.0
            + u * np.sum(u * v, axis=-1, keepdims=True) * 2.0)


def _quat_mul(a, b):
    av, aw = a[..., :3], a[..., 3:4]
    bv, bw = b[..., :3], b[..., 3:4]
    xyz = aw * bv + bw * av + np.cross(av, bv)
    w = aw * bw - np.sum(av * bv, axis=-1, keepdims=True)
    return np.concatenate([xyz, w], axis=-1)


def vecmath_inputs(rng, n):
    points = rng.uniform(-2.0, 2.0, (n, 3)).astype(f32)
    points[np.linalg.norm(points, axis=1) < 0.2] = f32(1.0)   # keep normalize() well away from 0
    mats = rng.uniform(-1.0, 1.0, (NUM_TRANSFORMS, 3, 3)) + 3.0 * np.eye(3)   # well conditioned
    rots = rng.standard_normal((NUM_TRANSFORMS, 4))
    rots /= np.linalg.norm(rots, axis=1, keepdims=True)
    vec = lambda name: ArrayInput(name, np.zeros((n, 3), f32), "vec3")
    return [ArrayInput("points", points, "vec3"), ArrayInput("mats", mats.astype(f32), "mat33"),
            ArrayInput("rots", rots.astype(f32), "quat"),
            ScalarInput("num_transforms", np.int32(NUM_TRANSFORMS)),
            vec("rotated"), vec("unit"), vec("crossed"), vec("transposed"), vec("twice"),
            ArrayInput("scalars", np.zeros(n, f32), "float32"),
            ArrayInput("lengths", np.zeros(n, f32), "float32")], n, 64


def vecmath_reference(v):
    p = v["points"].astype(np.float64)
    k = np.arange(len(p)) % int(v["num_transforms"])
    m = v["mats"].astype(np.float64)[k]
    q = v["rots"].astype(np.float64)[k]
    r = _quat_rotate(q, np.einsum("nij,nj->ni", m, p))
    c = np.cross(p, r)
    scaled = p * np.array([2.0, 1.0, -1.0])
    out = {
        "rotated": r,
        "unit": r / np.linalg.norm(r, axis=1, keepdims=True),
        "crossed": c,
        "transposed": np.einsum("nji,nj->ni", m, p),
        "twice": _quat_rotate(_quat_mul(q, q), p),
        "scalars": np.sum(p * r, axis=1) + c[:, 0] * 0.5 - r[:, 1],
        "lengths": np.linalg.norm(scaled + c, axis=1),
    }
    return {name: a.astype(f32) for name, a in out.items()}


# ---- Mandelbrot (escape-time loop, per-lane trip counts) -----------------------------

def mandelbrot_inputs(rng, n):
    """``n`` is the image width; the image is n/2 rows by n columns over [-2, 1] x [-.75, .75]."""
    h, w = n // 2, n
    step = f32(3.0 / w)
    return [ArrayInput("counts", np.zeros((h, w), np.int32), "int32"),
            ScalarInput("x0", f32(-2.0)), ScalarInput("y0", f32(-0.75)),
            ScalarInput("step", step), ScalarInput("max_iter", np.int32(64))], (h, w), (4, 32)


def mandelbrot_reference(v):
    h, w = v["counts"].shape
    step = v["step"]
    cx = (v["x0"] + np.arange(w, dtype=f32) * step)[None, :].repeat(h, 0)
    cy = (v["y0"] + np.arange(h, dtype=f32) * step)[:, None].repeat(w, 1)
    x = np.zeros((h, w), f32)
    y = np.zeros((h, w), f32)
    n = np.zeros((h, w), np.int32)
    for _ in range(int(v["max_iter"])):
        active = x * x + y * y <= f32(4.0)
        if not active.any():
            break
        xt = x * x - y * y + cx
        y_new = f32(2.0) * x * y + cy
        x = np.where(active, xt, x)
        y = np.where(active, y_new, y)
        n += active
    return {"counts": n}


# ---- nested divergent branches -------------------------------------------------------

def branches_inputs(rng, n):
    values = rng.integers(0, 100, n).astype(np.int32)
    return [ArrayInput("values", values, "int32"),
            ArrayInput("out", np.zeros(n, np.int32), "int32")], n, 64


def _branchy(i: int, v: int) -> int:
    if i % 7 == 3:
        return -1
    r = 0
    if v > 50:
        if i % 2 == 0:
            r = v * 2
        elif v > 80:
            r = v - 80
            if r % 3 == 0:
                return r + 1000
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
    return r


def branches_reference(v):
    values = v["values"]
    return {"out": np.array([_branchy(i, int(x)) for i, x in enumerate(values)], np.int32)}


# ---- histogram with global atomics ---------------------------------------------------

def histogram_global_inputs(rng, n):
    values = rng.beta(2.0, 5.0, n).astype(f32)          # skewed: a few hot bins
    num_bins = 32
    return [ArrayInput("values", values, "float32"), ScalarInput("num_bins", np.int32(num_bins)),
            ArrayInput("bins", np.zeros(num_bins, np.int32), "int32")], n, 128


def histogram_global_reference(v):
    nb = int(v["num_bins"])
    b = np.clip((v["values"] * f32(nb)).astype(np.int32), 0, nb - 1)
    return {"bins": np.bincount(b, minlength=nb).astype(np.int32)}


# ---- 2-D stencil ---------------------------------------------------------------------

def stencil_inputs(rng, n):
    """``n`` is the width; the grid is n/2 rows by n columns."""
    h, w = n // 2, n
    u = rng.standard_normal((h, w)).astype(f32)
    return [ArrayInput("u", u, "float32"), ArrayInput("jacobi", np.zeros((h, w), f32), "float32"),
            ArrayInput("laplacian", np.zeros((h, w), f32), "float32")], (h, w), (8, 32)


def stencil_reference(v):
    u = v["u"]
    p = np.pad(u, 1, mode="edge")
    up, down, left, right = p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
    lap = up + down + left + right - f32(4.0) * u
    jac = f32(0.25) * (up + down + left + right)
    jac[0, :], jac[-1, :], jac[:, 0], jac[:, -1] = u[0, :], u[-1, :], u[:, 0], u[:, -1]
    return {"jacobi": jac, "laplacian": lap}


# ---- integer division, modulo, literal types -----------------------------------------

def semantics_inputs(rng, n):
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    a[: min(n, 8)] = [-7, 7, -7, 7, -1, 1, 0, -2**31][: min(n, 8)]
    b = rng.integers(1, 50, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    b[: min(n, 8)] = [2, -2, -2, 2, 3, -3, 5, 3][: min(n, 8)]
    la = a.astype(np.int64) * 3_000_000_007
    lb = b.astype(np.int64)
    fa = rng.uniform(-10, 10, n).astype(f32)
    fb = rng.uniform(0.5, 3, n).astype(f32) * rng.choice([-1, 1], n).astype(f32)
    return [ArrayInput("a", a, "int32"), ArrayInput("b", b, "int32"),
            ArrayInput("la", la, "int64"), ArrayInput("lb", lb, "int64"),
            ArrayInput("fa", fa, "float32"), ArrayInput("fb", fb, "float32"),
            ArrayInput("int_results", np.zeros((6, n), np.int32), "int32"),
            ArrayInput("long_results", np.zeros((3, n), np.int64), "int64"),
            ArrayInput("float_results", np.zeros((3, n), f32), "float32"),
            ArrayInput("probes", np.zeros((4, n), np.float64), "float64")], n, 64


def _c_div(a, b):
    """C division: truncate toward zero (numpy's // floors). Divisors are never 0 and the
    pair (MIN, -1) never occurs."""
    q = a // b
    inexact = (a % b) != 0
    return np.where(inexact & ((a < 0) != (b < 0)), q + 1, q).astype(a.dtype)


def semantics_reference(v):
    a, b, la, lb, fa, fb = (v[k] for k in ("a", "b", "la", "lb", "fa", "fb"))
    with np.errstate(over="ignore"):
        ints = [_c_div(a, b), np.fmod(a, b), a // b, a >> 3, a * np.int32(65599), -a + b * np.int32(3)]
    n = len(a)
    return {
        "int_results": np.stack(ints).astype(np.int32),
        "long_results": np.stack([_c_div(la, lb), np.fmod(la, lb), la // lb]),
        "float_results": np.stack([np.fmod(fa, fb), fa / fb, fa * f32(0.1) + f32(1.0) / f32(3.0)]),
        "probes": np.stack([np.full(n, f32(1.0) / f32(3.0), np.float64),
                            (f32(0.1) * np.arange(n, dtype=f32)).astype(np.float64),
                            fa.astype(np.float64) / 3.0,
                            np.full(n, 0.1)]),
    }


def _portable(name, kernel_name, make_inputs, reference, outputs, sizes, rtol=0.0, atol=0.0,
              description=""):
    return Case(name, MODULE, kernel_name, make_inputs, reference, tuple(outputs), rtol, atol,
                warp_compatible=True, sizes=sizes, description=description)


CASES = [
    _portable("saxpy", "saxpy", saxpy_inputs, saxpy_reference, ["y"],
              {"small": 1000, "large": 1 << 20}, rtol=1e-6, atol=1e-6,
              description="y = a*x + y; n not a multiple of the block"),
    _portable("ray_triangle", "ray_triangle", ray_inputs, ray_reference, ["hit_t", "hit_id"],
              {"small": 256, "large": 1 << 16}, rtol=1e-4, atol=1e-5,
              description="Moller-Trumbore, nearest of 4 triangles, device function with early returns"),
    _portable("vec_mat_quat", "vec_mat_quat", vecmath_inputs, vecmath_reference,
              ["rotated", "unit", "crossed", "transposed", "twice", "scalars", "lengths"],
              {"small": 128, "large": 1 << 16}, rtol=1e-4, atol=1e-4,
              description="mat33 @ vec3, quat_rotate, quat product, normalize, cross, dot, transpose"),
    _portable("mandelbrot", "mandelbrot", mandelbrot_inputs, mandelbrot_reference, ["counts"],
              {"small": 64, "large": 1024},
              description="escape-time while loop, per-lane trip counts, 2-D launch"),
    _portable("nested_branches", "nested_branches", branches_inputs, branches_reference, ["out"],
              {"small": 256, "large": 1 << 16},
              description="if/elif/else three deep, early returns, loop with break/continue"),
    _portable("histogram_global", "histogram_global", histogram_global_inputs,
              histogram_global_reference, ["bins"], {"small": 1000, "large": 1 << 20},
              description="atomic_add on int32 bins in global memory"),
    _portable("stencil_2d", "stencil_2d", stencil_inputs, stencil_reference,
              ["jacobi", "laplacian"], {"small": 64, "large": 1024}, rtol=1e-6, atol=1e-5,
              description="5-point Jacobi step and clamped Laplacian, 2-D tid, array shape"),
    _portable("arith_semantics", "arith_semantics", semantics_inputs, semantics_reference,
              ["int_results", "long_results", "float_results", "probes"],
              {"small": 128, "large": 1 << 16},
              description="C division/remainder, floor division, shifts, wrap, float32 literals"),
]
