"""Builtins written in the kernel language (simt/lib/): registered by name here, compiled by
the front end like device functions where they are called."""
from __future__ import annotations

from ..registry import register_library

MATH = "simt.lib.math"
LIBRARY_BUILTINS = [
    # name, module, group, inout, doc
    ("norm_l1", MATH, "vector", (), "norm_l1(v): the sum of |v[i]|."),
    ("norm_l2", MATH, "vector", (), "norm_l2(v): length(v)."),
    ("norm_huber", MATH, "vector", (),
     "norm_huber(v, delta=1.0): 0.5 |v|^2 if |v| <= delta, else delta (|v| - delta / 2)."),
    ("norm_pseudo_huber", MATH, "vector", (),
     "norm_pseudo_huber(v, delta=1.0): delta sqrt(1 + |v|^2 / delta^2)."),
    ("smooth_normalize", MATH, "vector", (),
     "smooth_normalize(v, delta=1.0): v / norm_pseudo_huber(v, delta)."),
    ("velocity_at_point", MATH, "spatial", (),
     "velocity_at_point(qd, r): the linear velocity v + w x r of a point at offset r."),
    ("quat_twist", MATH, "quaternion", (), "quat_twist(axis, q): the twist of q about axis."),
    ("quat_twist_angle", MATH, "quaternion", (),
     "quat_twist_angle(axis, q): the unsigned twist angle of q about axis."),
    ("quat_twist_angle_signed", MATH, "quaternion", (),
     "quat_twist_angle_signed(axis, q): the signed twist angle of q about axis."),
    ("quat_to_rpy", MATH, "quaternion", (),
     "quat_to_rpy(q): (roll, pitch, yaw) in radians, the inverse of quat_rpy."),
    ("quat_to_euler", MATH, "quaternion", (),
     "quat_to_euler(q, i, j, k): Euler angles for the axis sequence i, j, k."),
    ("quat_from_euler", MATH, "quaternion", (),
     "quat_from_euler(e, i, j, k): the rotation of Euler angles e about axes i, j, k."),
    ("transform_twist", MATH, "spatial", (),
     "transform_twist(t, x): a spatial twist in the frame of transform t."),
    ("transform_wrench", MATH, "spatial", (),
     "transform_wrench(t, x): a spatial wrench in the frame of transform t."),
    ("transform_from_matrix", MATH, "transformation", (),
     "transform_from_matrix(m): the transform of a 4x4 rigid matrix."),
    ("transform_to_matrix", MATH, "transformation", (),
     "transform_to_matrix(t): the 4x4 matrix of a transform."),
    ("transform_compose", MATH, "transformation", (),
     "transform_compose(position, rotation, scale): the 4x4 matrix T R S."),
    ("transform_decompose", MATH, "transformation", (),
     "transform_decompose(m): (position, rotation, scale) of a 4x4 matrix."),
    ("noise", "simt.lib.noise", "random", (),
     "noise(state, x): Perlin noise at x (a float or a 2-, 3- or 4-vector), in [-1, 1]."),
    ("pnoise", "simt.lib.noise", "random", (),
     "pnoise(state, x, px[, py, pz, pt]): Perlin noise periodic with the given periods."),
    ("curlnoise", "simt.lib.noise", "random", (),
     "curlnoise(state, x, octaves=1, lacunarity=2.0, gain=0.5): divergence-free noise "
     "(x a 2-, 3- or 4-vector)."),
    ("svd3", "simt.lib.svd", "matrix", (),
     "svd3(A): (U, sigma, V) with A = U diag(sigma) V^T, for a 3x3 float matrix."),
    ("svd2", "simt.lib.svd", "matrix", (),
     "svd2(A): (U, sigma, V) with A = U diag(sigma) V^T, for a 2x2 float matrix."),
    ("qr3", "simt.lib.svd", "matrix", (), "qr3(A): (Q, R) with A = Q R, for a 3x3 float matrix."),
    ("eig3", "simt.lib.svd", "matrix", (),
     "eig3(A): (Q, d), eigenvectors and eigenvalues of a symmetric 3x3 float matrix."),
    ("dense_gemm", "simt.lib.dense", "utility", (),
     "dense_gemm(m, n, p, t1, t2, A, B, C): C = op(A) op(B) on flat row-major float arrays."),
    ("dense_chol", "simt.lib.dense", "utility", (),
     "dense_chol(n, A, regularization, L): the Cholesky factor of A + regularization I."),
    ("dense_subs", "simt.lib.dense", "utility", (),
     "dense_subs(n, L, b, x): x = (L L^T)^-1 b by substitution."),
    ("dense_solve", "simt.lib.dense", "utility", (),
     "dense_solve(n, A, L, b, x): dense_subs(n, L, b, x)."),
    ("lower_bound", "simt.lib.search", "utility", (),
     "lower_bound(arr[, begin, end], value): the first index in a sorted 1-D array whose "
     "element is not less than value."),
    ("poisson", "simt.lib.random", "random", (0,),
     "poisson(state, lam): a Poisson-distributed uint32 with rate lam; advances state."),
    ("sample_cdf", "simt.lib.random", "random", (0,),
     "sample_cdf(state, cdf): an index drawn from a sorted cumulative distribution array; "
     "advances state."),
]

for _name, _module, _group, _inout, _doc in LIBRARY_BUILTINS:
    register_library(_name, _module, doc=_doc, group=_group, inout=_inout)
