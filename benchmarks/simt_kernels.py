"""The benchmark kernels in simt's kernel language, line for line the Numba simulator's ones.

Three are plain Warp kernels (``import simt as wp`` runs them unchanged, and so does Warp
itself); the block reduction needs CUDA-style shared memory and a block barrier, which Warp
has no spelling for, so it uses simt's CUDA-style extensions (``simt.shared.array``,
``simt.sync_threads``). Launches are 1-D with 256-thread blocks.
"""
from __future__ import annotations

import simt as wp

BLOCK = 256


@wp.kernel
def mandelbrot(out: wp.array(dtype=wp.int32), width: wp.int32, max_iter: wp.int32,
               x0: wp.float32, y0: wp.float32, dx: wp.float32, dy: wp.float32):
    i = wp.tid()
    px = i % width
    py = i // width
    cx = x0 + wp.float32(px) * dx
    cy = y0 + wp.float32(py) * dy
    zx = wp.float32(0.0)
    zy = wp.float32(0.0)
    it = wp.int32(0)
    while it < max_iter:
        if zx * zx + zy * zy > 4.0:
            break
        t = zx * zx - zy * zy + cx
        zy = 2.0 * zx * zy + cy
        zx = t
        it += 1
    out[i] = it


@wp.kernel
def saxpy(a: wp.float32, x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def histogram(values: wp.array(dtype=wp.int32), hist: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_add(hist, values[i], 1)


def _block_sum_kernel():
    """Built on first use: it needs simt's shared-memory extension, which plain Warp lacks."""

    @wp.kernel
    def block_sum(x: wp.array(dtype=wp.float32), partial: wp.array(dtype=wp.float32)):
        buf = wp.shared.array(shape=256, dtype=wp.float32)
        i = wp.tid()
        t = wp.thread_idx()
        buf[t] = x[i]
        wp.sync_threads()
        stride = wp.int32(128)
        while stride > 0:
            if t < stride:
                buf[t] = buf[t] + buf[t + stride]
            wp.sync_threads()
            stride = stride // 2
        if t == 0:
            partial[wp.block_idx()] = buf[0]

    return block_sum


def kernel_for(name: str):
    if name == "block_sum":
        return _block_sum_kernel()
    return {"mandelbrot": mandelbrot, "saxpy": saxpy, "histogram": histogram}[name]
