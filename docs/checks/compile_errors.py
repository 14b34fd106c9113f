"""Kernels the front end refuses, one diagnostic each (docs/checks/README.md compiles them)."""
import simt as wp


def huge_constant(out: wp.array(dtype=int)):
    out[0] = 123456789012345678901234567890


def shift_too_far(out: wp.array(dtype=int)):
    out[0] = out[0] << 32


def divide_by_zero(out: wp.array(dtype=int)):
    out[0] = out[0] // 0


def assigned_on_one_path(x: wp.array(dtype=float)):
    i = wp.tid()
    if i > 3:
        v = 1.0
    x[i] = v


def matmul_on_scalars(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] @ x[i]


def mixed_ternary(x: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    x[i] = x[i] if i > 0 else n[i]
