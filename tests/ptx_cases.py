"""Launches of the PTX corpus's kernels with random inputs, for running one kernel on several
engines and comparing what they write (tests/test_ptx_engines.py, tools/ptx_gpu_check.py).

Each case: (PTX file, kernel, grid, block, inputs, exact). ``inputs(rng)`` gives the launch's
arguments: numpy arrays (passed as simt arrays, compared after the launch) and scalars.
``exact``: every engine must write the same bits (False where the result depends on the order
in which threads' float atomics land, or on the GPU's own approximate math).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

CORPUS = Path(__file__).parent / "ptx_corpus"
KERNELS, CONTROL, INTOPS = CORPUS / "kernels.ptx", CORPUS / "control_flow.ptx", CORPUS / "integer_ops.ptx"


def f32(rng, n, lo=-4.0, hi=4.0):
    return rng.uniform(lo, hi, n).astype(np.float32)


def i32(rng, n, lo=-1000, hi=1000):
    return rng.integers(lo, hi, n).astype(np.int32)


def zeros(n, dtype=np.float32):
    return np.zeros(n, dtype)


# (file, kernel, grid, block, inputs, exact on the CPU engines, exact on the GPU)
CASES = [
    (KERNELS, "saxpy", (2,), (128,), lambda r: [1000, np.float32(2.5), f32(r, 1000), f32(r, 1000)], True, True),
    (KERNELS, "vadd", (8,), (128,), lambda r: [f32(r, 1000), f32(r, 1000), zeros(1000), 1000], True, True),
    (KERNELS, "block_sum", (4,), (256,), lambda r: [f32(r, 1000), zeros(4), 1000], True, True),
    (KERNELS, "warp_sum", (2,), (128,), lambda r: [i32(r, 256), zeros(8, np.int32)], True, True),
    (KERNELS, "histogram", (20,), (256,),
     lambda r: [r.integers(0, 256, 5000).astype(np.uint8), zeros(16, np.uint32), 5000], True, True),
    (KERNELS, "transpose", (3, 2), (32, 32), lambda r: [f32(r, 70 * 45), zeros(70 * 45), 70, 45], True, True),
    (KERNELS, "_Z5scaleILi4EEvPfi", (1,), (32,), lambda r: [f32(r, 10), 10], True, True),
    (KERNELS, "find_first", (2,), (32,),
     lambda r: [r.integers(0, 5, 64 * 20).astype(np.int32), 20, 3, zeros(64, np.int32)], True, True),
    (KERNELS, "int_ops", (1,), (64,), lambda r: [i32(r, 64, -2**31, 2**31), i32(r, 64, 1, 100),
                                               zeros(64, np.int32), zeros(64, np.int32), zeros(64, np.int32)], True, True),
    (KERNELS, "to_int", (1,), (64,), lambda r: [f32(r, 64, -5e9, 5e9), zeros(64, np.int32),
                                              zeros(64, np.int32), zeros(64, np.uint32)], True, True),
    (KERNELS, "strided_shared", (2,), (32,), lambda r: [zeros(64), 33], True, True),
    (KERNELS, "votes", (2,), (64,), lambda r: [i32(r, 128, -3, 9), zeros(4, np.uint32), zeros(4, np.int32),
                                             zeros(4, np.int32)], True, True),
    (KERNELS, "atomics", (1,), (64,), lambda r: [np.array([-1000, 0, 0, 0], np.int32),
                                               np.array([0, 0, 0xFFFFFFFF], np.uint32),
                                               zeros(64, np.int32), i32(r, 64, -100, 100)], True, False),
    (KERNELS, "reverse4", (2,), (32,), lambda r: [f32(r, 256), zeros(256)], True, True),
    (KERNELS, "math", (1,), (8,), lambda r: [f32(r, 8, 0.1, 100), zeros(32), r.uniform(0.5, 9, 8), zeros(16, np.float64)],
     True, True),
    (KERNELS, "matmul", (3, 3), (16, 16), lambda r: [f32(r, 1600, 0, 1), f32(r, 1600, 0, 1), zeros(1600), 40], True, True),
    (KERNELS, "softmax_row", (4,), (32,), lambda r: [f32(r, 200), zeros(200), 50], True, False),
    (KERNELS, "fatomics", (2,), (128,), lambda r: [zeros(1), zeros(1, np.float64), zeros(1, np.uint64), f32(r, 256, 0, 1)],
     False, False),
    (KERNELS, "bits", (1,), (64,), lambda r: [r.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32),
                                            zeros(256, np.int32)], True, True),
    (KERNELS, "switchy", (1,), (64,), lambda r: [i32(r, 64, -50, 50), zeros(64, np.int32)], True, True),
    (KERNELS, "clz_kernel", (1,), (64,), lambda r: [r.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32),
                                                  zeros(64, np.int32)], True, True),
    (KERNELS, "transcend", (1,), (32,), lambda r: [np.concatenate([f32(r, 24), np.float32([1e5, -2e4, 123456.7, 1e30,
                                                                                          7e3, 3e3, -9e5, 0.5])]),
                                                 zeros(32)], True, False),
    (KERNELS, "dbl", (1,), (32,), lambda r: [r.uniform(0, 10, 32), zeros(32, np.float64)], True, True),
    (KERNELS, "shfl_width", (1,), (64,), lambda r: [i32(r, 64), zeros(256, np.int32)], True, True),
    (KERNELS, "rounding", (1,), (32,), lambda r: [f32(r, 32, -1e3, 1e3), zeros(128), zeros(32, np.uint32)], True, True),
    (CONTROL, "generic", (1,), (64,), lambda r: [np.arange(64, dtype=np.uint32)], True, True),
    (CONTROL, "two_latches", (1,), (32,), lambda r: [zeros(32, np.uint32)], True, True),
    (INTOPS, "intops", (1,), (64,), lambda r: [r.integers(0, 2**64, 64, dtype=np.uint64),
                                             r.integers(0, 2**64, 64, dtype=np.uint64), zeros(64 * 12, np.uint64)],
     True, True),
]


def case_id(case) -> str:
    return case[1]


def run_case(case, device: str, seed: int = 0) -> list[np.ndarray]:
    """Launch ``case`` on ``device`` with the inputs of ``seed``; the arrays after the launch."""
    import simt
    path, name, grid, block, inputs, *_ = case
    args = inputs(np.random.default_rng(seed))
    where = device if device.startswith("cuda") else "cpu"
    wrapped = [simt.array(a, device=where) if isinstance(a, np.ndarray) else a for a in args]
    kernel = simt.from_ptx(path, name)
    simt.launch(kernel, grid=grid, block=block, inputs=wrapped, device=device)
    return [w.numpy() for w in wrapped if not isinstance(w, (int, float, np.generic))]
