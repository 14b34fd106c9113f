"""The benchmark kernels written for Numba's CUDA simulator, the yardstick for cpu:precise.

The simulator runs each GPU thread as a Python thread, so it must be switched on before
``numba.cuda`` is first imported: this module sets NUMBA_ENABLE_CUDASIM itself and is meant
to run in its own process (``bench_precise.py`` starts it), leaving the parent free to use
Numba normally. It reads the inputs the parent generated, launches one kernel and writes the
outputs and the launch time back, so both simulators see the same data and the parent checks
both against the same numpy reference.

    python3 benchmarks/numba_sim_kernels.py KERNEL INPUTS.npz OUTPUTS.npz

prints one JSON line: {"kernel", "threads", "seconds", "numba"}.
"""
from __future__ import annotations

import os

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"   # before numba.cuda is imported, or it is ignored

import json
import sys
import time

import numpy as np
from numba import cuda

BLOCK = 256          # threads per block, as in the simt launches
HIST_BINS = 64


# -- kernels: each mirrors the simt kernel of the same name in bench_precise.py ------------

@cuda.jit
def mandelbrot(out, width, max_iter, x0, y0, dx, dy):
    i = cuda.grid(1)
    if i >= out.size:
        return
    px = i % width
    py = i // width
    cx = x0 + np.float32(px) * dx
    cy = y0 + np.float32(py) * dy
    zx = np.float32(0.0)
    zy = np.float32(0.0)
    it = 0
    while it < max_iter:
        if zx * zx + zy * zy > np.float32(4.0):
            break
        t = zx * zx - zy * zy + cx
        zy = np.float32(2.0) * zx * zy + cy
        zx = t
        it += 1
    out[i] = it


@cuda.jit
def saxpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


@cuda.jit
def block_sum(x, partial):
    """Tree reduction of one block's slice in shared memory, halving the stride each step."""
    buf = cuda.shared.array(BLOCK, dtype=np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = np.float32(0.0)
    if i < x.size:
        v = x[i]
    buf[t] = v
    cuda.syncthreads()
    stride = BLOCK // 2
    while stride > 0:
        if t < stride:
            buf[t] = buf[t] + buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = buf[0]


@cuda.jit
def histogram(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(hist, values[i], 1)


# -- launchers: inputs dict in, outputs dict out (the arrays the kernel writes) -----------

def _blocks(n: int) -> int:
    return (n + BLOCK - 1) // BLOCK


def launch_mandelbrot(inp: dict) -> dict:
    out = inp["out"].copy()
    mandelbrot[_blocks(out.size), BLOCK](out, int(inp["width"]), int(inp["max_iter"]),
                                         np.float32(inp["x0"]), np.float32(inp["y0"]),
                                         np.float32(inp["dx"]), np.float32(inp["dy"]))
    return {"out": out}


def launch_saxpy(inp: dict) -> dict:
    y = inp["y"].copy()
    saxpy[_blocks(y.size), BLOCK](np.float32(inp["a"]), inp["x"], y)
    return {"y": y}


def launch_block_sum(inp: dict) -> dict:
    partial = inp["partial"].copy()
    block_sum[_blocks(inp["x"].size), BLOCK](inp["x"], partial)
    return {"partial": partial}


def launch_histogram(inp: dict) -> dict:
    hist = inp["hist"].copy()
    histogram[_blocks(inp["values"].size), BLOCK](inp["values"], hist)
    return {"hist": hist}


LAUNCHERS = {
    "mandelbrot": launch_mandelbrot,
    "saxpy": launch_saxpy,
    "block_sum": launch_block_sum,
    "histogram": launch_histogram,
}


def main(argv: list[str]) -> None:
    name, in_path, out_path = argv
    with np.load(in_path) as f:
        inputs = {k: f[k] for k in f.files}
    threads = int(inputs.pop("__threads__"))
    launch = LAUNCHERS[name]
    start = time.perf_counter()
    outputs = launch(inputs)
    seconds = time.perf_counter() - start
    np.savez(out_path, **outputs)
    import numba
    print(json.dumps({"kernel": name, "threads": threads, "seconds": seconds,
                      "numba": numba.__version__}))


if __name__ == "__main__":
    main(sys.argv[1:])
