"""Kernels with stored goldens in tests/golden/ (see README.md, "Golden comparisons").

On a machine with a GPU, record the goldens again from it with

    PYTHONPATH=. python -m simt diff tests/golden_kernels.py::golden_mix \
        --engines cuda,cpu:precise,cpu --record tests/golden/golden_mix.npz

(the first engine's outputs are stored; the others are compared with them on the way).
"""
import numpy as np

import simt as wp

N = 1000


@wp.kernel
def golden_mix(x: wp.array(dtype=float), a: float, y: wp.array(dtype=float),
               bins: wp.array(dtype=int), n: int):
    """Float math on both sides of a divergent branch, and integer atomics."""
    i = wp.tid()
    if i < n:
        v = x[i]
        if v > 0.0:
            y[i] = a * v + wp.sin(v) * wp.exp(-v)
        else:
            y[i] = wp.sqrt(-v) - v * v
        wp.atomic_add(bins, int(wp.abs(v) * 4.0) % 8, 1)


def simt_inputs_golden_mix():
    rng = np.random.default_rng(10)
    x = rng.uniform(-3.0, 3.0, N).astype(np.float32)
    return 1024, [x, 1.5, np.zeros(N, np.float32), np.zeros(8, np.int32), N], 128
