"""The benchmark workloads: inputs, numpy references and output checks, shared by both simulators.

Inputs are a dict of numpy arrays and scalars keyed by kernel parameter name, in parameter
order; every simulator gets copies of the same dict, and every output is checked against the
same reference, so a speed ratio never compares a right answer with a wrong one. Sizes are
thread counts, rounded up to whole 256-thread blocks so no launch has a ragged tail.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

BLOCK = 256
HIST_BINS = 64
MANDELBROT_MAX_ITER = 256

Inputs = dict[str, object]
Outputs = dict[str, np.ndarray]


@dataclass(frozen=True)
class Workload:
    name: str
    describe: str
    make_inputs: Callable[[np.random.Generator, int], Inputs]
    reference: Callable[[Inputs], Outputs]
    outputs: tuple[str, ...]        # the arrays the kernel writes
    small: int                      # threads for the grid both simulators run
    large: int                      # threads for the throughput grid (simt only)

    def threads(self, inputs: Inputs) -> int:
        return int(inputs["__threads__"])


def _whole_blocks(n: int) -> int:
    return max(BLOCK, (n + BLOCK - 1) // BLOCK * BLOCK)


# -- escape-time fractal: per-lane trip counts, heavy divergence ---------------------------

def mandelbrot_inputs(rng: np.random.Generator, size: int) -> Inputs:
    """A square view of the whole set; the resolution grows with size, the picture does not."""
    width = max(16, 1 << round(math.log2(math.isqrt(size))))
    height = _whole_blocks(width * width) // width
    return {"out": np.zeros(width * height, np.int32), "width": np.int32(width),
            "max_iter": np.int32(MANDELBROT_MAX_ITER),
            "x0": np.float32(-2.0), "y0": np.float32(-1.25),
            "dx": np.float32(2.5 / width), "dy": np.float32(2.5 / height),
            "__threads__": width * height}


def mandelbrot_reference(inp: Inputs) -> Outputs:
    """The kernel's float32 recurrence, vectorised, in the kernel's operation order."""
    n, width = inp["out"].size, int(inp["width"])
    i = np.arange(n)
    cx = inp["x0"] + (i % width).astype(np.float32) * inp["dx"]
    cy = inp["y0"] + (i // width).astype(np.float32) * inp["dy"]
    zx = np.zeros(n, np.float32)
    zy = np.zeros(n, np.float32)
    it = np.zeros(n, np.int32)
    live = np.ones(n, bool)
    two, four = np.float32(2.0), np.float32(4.0)
    for _ in range(int(inp["max_iter"])):
        live &= ~(zx * zx + zy * zy > four)
        if not live.any():
            break
        t = zx * zx - zy * zy + cx
        new_zy = two * zx * zy + cy
        zx = np.where(live, t, zx)
        zy = np.where(live, new_zy, zy)
        it += live
    return {"out": it}


# -- saxpy: straight-line, memory-bound --------------------------------------------------

def saxpy_inputs(rng: np.random.Generator, size: int) -> Inputs:
    n = _whole_blocks(size)
    return {"a": np.float32(2.5), "x": rng.standard_normal(n).astype(np.float32),
            "y": rng.standard_normal(n).astype(np.float32), "__threads__": n}


def saxpy_reference(inp: Inputs) -> Outputs:
    return {"y": inp["a"] * inp["x"] + inp["y"]}


# -- block reduction: shared memory and a barrier per tree level -------------------------

def block_sum_inputs(rng: np.random.Generator, size: int) -> Inputs:
    n = _whole_blocks(size)
    return {"x": rng.standard_normal(n).astype(np.float32),
            "partial": np.zeros(n // BLOCK, np.float32), "__threads__": n}


def block_sum_reference(inp: Inputs) -> Outputs:
    """The same halving tree in float32, so the sums match bit for bit."""
    buf = inp["x"].reshape(-1, BLOCK).copy()
    stride = BLOCK // 2
    while stride > 0:
        buf[:, :stride] = buf[:, :stride] + buf[:, stride:2 * stride]
        stride //= 2
    return {"partial": buf[:, 0].copy()}


# -- histogram: global atomics with heavy contention (64 bins) ---------------------------

def histogram_inputs(rng: np.random.Generator, size: int) -> Inputs:
    n = _whole_blocks(size)
    return {"values": rng.integers(0, HIST_BINS, n, dtype=np.int32),
            "hist": np.zeros(HIST_BINS, np.int32), "__threads__": n}


def histogram_reference(inp: Inputs) -> Outputs:
    return {"hist": np.bincount(inp["values"], minlength=HIST_BINS).astype(np.int32)}


WORKLOADS: dict[str, Workload] = {w.name: w for w in (
    Workload("mandelbrot", f"escape-time fractal, while loop, max_iter {MANDELBROT_MAX_ITER}",
             mandelbrot_inputs, mandelbrot_reference, ("out",), small=4096, large=65536),
    Workload("saxpy", "y = a*x + y", saxpy_inputs, saxpy_reference, ("y",),
             small=4096, large=262144),
    Workload("block_sum", "shared-memory tree reduction, sync_threads per level",
             block_sum_inputs, block_sum_reference, ("partial",), small=4096, large=65536),
    Workload("histogram", f"atomic_add into {HIST_BINS} global bins",
             histogram_inputs, histogram_reference, ("hist",), small=4096, large=65536),
)}


def check(workload: Workload, got: Outputs, want: Outputs) -> tuple[bool, str]:
    """Exact match is expected everywhere (no FMA contraction, same operation order)."""
    notes = []
    ok = True
    for key in workload.outputs:
        g, w = np.asarray(got[key]), np.asarray(want[key])
        if g.shape != w.shape:
            return False, f"{key}: shape {g.shape} != {w.shape}"
        if np.array_equal(g, w):
            continue
        bad = int(np.count_nonzero(g != w))
        if np.issubdtype(w.dtype, np.floating) and np.allclose(g, w, rtol=1e-5, atol=1e-5):
            notes.append(f"{key}: {bad} within 1e-5")
            continue
        ok = False
        notes.append(f"{key}: {bad}/{w.size} differ")
    return ok, "; ".join(notes) if notes else "exact"


def kernel_args(inputs: Inputs) -> list[object]:
    """The launch arguments in parameter order (the dict keeps insertion order)."""
    return [v for k, v in inputs.items() if not k.startswith("__")]

