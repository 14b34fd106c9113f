"""The held-out validation set of the timing model: launches measured on an H200 with Nsight
Compute (measure_gpu.py) and predicted by cpu:precise (validate_timing.py).

Nothing here was used to fit a constant of simt/arch/sm_90.json: the constants come from the
microbenchmarks in micro.cu and the op probes in probes.py. Every launch has a class (what
should limit it) and some form the pairs users compare.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import time

import numpy as np

import simt as wp
from simt.suite import cuda_style, portable

from . import kernels as K

f32 = np.float32


@dataclass(frozen=True)
class Launch:
    name: str                  # unique: kernel@size
    kernel: object
    make: Callable             # rng -> (inputs: list of numpy arrays / numpy scalars, dim, block_dim)
    limiter: str               # what the launch was written to be limited by
    dtypes: dict = field(default_factory=dict)   # argument position -> simt dtype (default: from numpy)


def _arrays(values, dtypes, device):
    out = []
    for k, v in enumerate(values):
        if isinstance(v, np.ndarray):
            out.append(wp.array(v, dtype=dtypes.get(k), device=device) if k in dtypes
                       else wp.array(v, device=device))
        else:
            out.append(v)
    return out


def instantiate(launch: Launch, device: str, seed: int = 0):
    """(inputs as simt arrays on ``device``, dim, block_dim)."""
    values, dim, block = launch.make(np.random.default_rng(seed))
    return _arrays(values, launch.dtypes, device), dim, block


def run(launch: Launch, device: str = "cpu:precise", seed: int = 0):
    """Launch it on fresh inputs: (seconds the launch itself took, its result)."""
    inputs, dim, block = instantiate(launch, device, seed)
    t0 = time.perf_counter()
    r = wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device=device)
    return time.perf_counter() - t0, r


# ---- makers ----------------------------------------------------------------------------------

def saxpy(n):
    return lambda rng: ([f32(2.0), rng.random(n, dtype=f32), rng.random(n, dtype=f32)], n, 256)


def strided(n, stride):
    return lambda rng: ([rng.random(n * stride, dtype=f32), np.zeros(n, f32), np.int32(stride)], n, 256)


def offset(n, off):
    return lambda rng: ([rng.random(n + off, dtype=f32), np.zeros(n, f32), np.int32(off)], n, 256)


def square(n, block=(8, 32)):
    return lambda rng: ([rng.random((n, n), dtype=f32), np.zeros((n, n), f32)], (n, n), block)


def tiled_transpose(n):
    # one block of (8, 32) threads per 32x32 tile: dim = (n / 4, n)
    return lambda rng: ([rng.random((n, n), dtype=f32), np.zeros((n, n), f32)], (n // 4, n), (8, 32))


def reduction(n):
    return lambda rng: ([rng.random(n, dtype=f32), np.zeros(n // 256, f32)], n, 256)


def block_sum(n):
    return lambda rng: ([rng.random(n, dtype=f32), np.int32(n), np.zeros(n // 256, f32)], n, 256)


def loop(n, k):
    return lambda rng: ([rng.random(n, dtype=f32), np.zeros(n, f32), np.int32(k)], n, 256)


def matmul(n):
    return lambda rng: ([rng.random((n, n), dtype=f32), rng.random((n, n), dtype=f32),
                         np.zeros((n, n), f32)], (n, n), (16, 16))


def mandelbrot(n):
    step = f32(3.0 / n)
    return lambda rng: ([np.zeros((n, n), np.int32), f32(-2.0), f32(-1.5), step, np.int32(256)],
                        (n, n), (8, 32))


def nbody(n):
    return lambda rng: ([rng.random((n, 3), dtype=f32), np.zeros((n, 3), f32), np.int32(n), f32(0.01)],
                        n, 128)


def shared_histogram(n):
    return lambda rng: ([rng.integers(0, 64, n, dtype=np.int32), np.int32(n), np.zeros(64, np.int32)],
                        n, 256)


def global_histogram(n, bins):
    return lambda rng: ([rng.random(n, dtype=f32), np.int32(bins), np.zeros(bins, np.int32)], n, 256)


def shuffle_sum(n):
    return lambda rng: ([(rng.integers(-64, 65, n) / 8).astype(f32), np.int32(n), np.zeros(n // 32, f32),
                         np.zeros(1, f32)], n, 128)


def scale(n):
    return lambda rng: ([rng.random(n, dtype=f32), np.zeros(n, f32)], n, 256)


def stencil(n):
    return lambda rng: ([rng.random((n, n), dtype=f32), np.zeros((n, n), f32), np.zeros((n, n), f32)],
                        (n, n), (8, 32))


def chase(lanes, steps, ring_lines):
    def make(rng):
        order = rng.permutation(ring_lines).astype(np.int32)
        ring = np.zeros(ring_lines * 32, np.int32)
        ring[order * 32] = np.roll(order, -1) * 32      # each line points at the next line of the cycle
        return [ring, np.int32(steps), np.zeros(lanes, np.int32)], lanes, 32
    return make


M = 1 << 20
VEC3 = {0: wp.vec3, 1: wp.vec3}    # nbody: (n, 3) numpy arrays are arrays of vec3

LAUNCHES: list[Launch] = [
    Launch("saxpy@4K", portable.saxpy, saxpy(4096), "launch"),
    Launch("saxpy@1M", portable.saxpy, saxpy(M), "dram"),
    Launch("saxpy@16M", portable.saxpy, saxpy(16 * M), "dram"),
    Launch("copy_stride1@1M", K.copy_strided, strided(M, 1), "dram"),
    Launch("copy_stride32@1M", K.copy_strided, strided(M, 32), "dram"),
    Launch("copy_stride1@8M", K.copy_strided, strided(8 * M, 1), "dram"),
    Launch("copy_stride8@8M", K.copy_strided, strided(8 * M, 8), "dram"),
    Launch("copy_stride32@8M", K.copy_strided, strided(8 * M, 32), "dram"),
    Launch("copy_offset1@8M", K.copy_offset, offset(8 * M, 1), "dram"),
    Launch("transpose_naive@1024", K.transpose_naive, square(1024), "dram"),
    Launch("transpose_naive@4096", K.transpose_naive, square(4096), "dram"),
    Launch("transpose_tile@256", cuda_style.transpose_tile, tiled_transpose(256), "launch"),
    Launch("transpose_tile@1024", cuda_style.transpose_tile, tiled_transpose(1024), "shared"),
    Launch("transpose_tile@4096", cuda_style.transpose_tile, tiled_transpose(4096), "dram"),
    Launch("transpose_padded@256", cuda_style.transpose_tile_padded, tiled_transpose(256), "launch"),
    Launch("transpose_padded@1024", cuda_style.transpose_tile_padded, tiled_transpose(1024), "dram"),
    Launch("transpose_padded@4096", cuda_style.transpose_tile_padded, tiled_transpose(4096), "dram"),
    Launch("reduce_interleaved@1M", K.reduce_interleaved, reduction(M), "shared"),
    Launch("reduce_interleaved@16M", K.reduce_interleaved, reduction(16 * M), "shared"),
    Launch("reduce_sequential@1M", cuda_style.block_sum_shared, block_sum(M), "shared"),
    Launch("reduce_sequential@16M", cuda_style.block_sum_shared, block_sum(16 * M), "dram"),
    Launch("matmul@256", cuda_style.matmul_tiled, matmul(256), "shared"),
    Launch("matmul@512", cuda_style.matmul_tiled, matmul(512), "shared"),
    Launch("matmul@128", cuda_style.matmul_tiled, matmul(128), "launch"),
    Launch("loop_divergent@64K", K.loop_divergent, loop(64 * 1024, 8), "issue"),
    Launch("loop_uniform@64K", K.loop_uniform, loop(64 * 1024, 8), "issue"),
    Launch("loop_divergent@1M", K.loop_divergent, loop(M, 4), "issue"),
    Launch("loop_uniform@1M", K.loop_uniform, loop(M, 4), "issue"),
    Launch("mandelbrot@256", portable.mandelbrot, mandelbrot(256), "issue"),
    Launch("mandelbrot@1024", portable.mandelbrot, mandelbrot(1024), "issue"),
    Launch("nbody@1024", K.nbody, nbody(1024), "latency", VEC3),
    Launch("nbody@8192", K.nbody, nbody(8192), "issue", VEC3),
    Launch("histogram_shared@1M", cuda_style.histogram_shared, shared_histogram(M), "shared"),
    Launch("histogram_shared@16M", cuda_style.histogram_shared, shared_histogram(16 * M), "shared"),
    Launch("histogram_global64@1M", portable.histogram_global, global_histogram(M, 64), "atomic"),
    Launch("histogram_global4096@1M", portable.histogram_global, global_histogram(M, 4096), "atomic"),
    Launch("shuffle_sum@64K", cuda_style.warp_shuffle_sum, shuffle_sum(64 * 1024), "atomic"),
    Launch("shuffle_sum@1M", cuda_style.warp_shuffle_sum, shuffle_sum(M), "atomic"),
    Launch("scale_full_occupancy@1M", K.scale_full_occupancy, scale(M), "dram"),
    Launch("scale_low_occupancy@1M", K.scale_low_occupancy, scale(M), "occupancy"),
    Launch("scale_full_occupancy@8M", K.scale_full_occupancy, scale(8 * M), "dram"),
    Launch("scale_low_occupancy@8M", K.scale_low_occupancy, scale(8 * M), "occupancy"),
    Launch("stencil@1024", portable.stencil_2d, stencil(1024), "dram"),
    Launch("stencil@4096", portable.stencil_2d, stencil(4096), "dram"),
    Launch("chase_l2@32", K.chase_lanes, chase(32, 512, 1 << 15), "latency"),
    Launch("chase_dram@32", K.chase_lanes, chase(32, 256, 1 << 20), "latency"),
]
# (label, slower launch, faster launch): the ratios users act on
PAIRS = [
    ("strided / unit-stride copy, 8M", "copy_stride32@8M", "copy_stride1@8M"),
    ("strided / unit-stride copy, 1M", "copy_stride32@1M", "copy_stride1@1M"),
    ("naive / padded transpose, 4096", "transpose_naive@4096", "transpose_padded@4096"),
    ("conflicting / padded tile transpose, 1024", "transpose_tile@1024", "transpose_padded@1024"),
    ("conflicting / padded tile transpose, 256", "transpose_tile@256", "transpose_padded@256"),
    ("interleaved / sequential reduction, 16M", "reduce_interleaved@16M", "reduce_sequential@16M"),
    ("interleaved / sequential reduction, 1M", "reduce_interleaved@1M", "reduce_sequential@1M"),
    ("divergent / uniform loop, 1M", "loop_divergent@1M", "loop_uniform@1M"),
    ("divergent / uniform loop, 64K", "loop_divergent@64K", "loop_uniform@64K"),
    ("low / full occupancy, 8M", "scale_low_occupancy@8M", "scale_full_occupancy@8M"),
    ("low / full occupancy, 1M", "scale_low_occupancy@1M", "scale_full_occupancy@1M"),
]


def by_name() -> dict[str, Launch]:
    return {launch.name: launch for launch in LAUNCHES}
