"""Calibration kernels written in simt: microbenchmark patterns (micro.cu, micro2.cu) run through
simt's own PTX, so the model's structure can be checked against measurements of the very
instruction streams it simulates. Like the microbenchmarks, these are used for fitting and
checking the model; none of them is part of the validation set (cases.py)."""
from __future__ import annotations

import numpy as np

import simt as wp

from .cases import Launch

f32 = np.float32
SMS = 132


@wp.kernel
def stream_read4(src: wp.array(dtype=wp.vec4), n: int, out: wp.array(dtype=float)):
    t = wp.tid()
    step = wp.grid_dim() * wp.block_dim()
    acc = wp.vec4(0.0, 0.0, 0.0, 0.0)
    k = t
    while k < n:
        acc = acc + src[k]
        k = k + step
    s = acc[0] + acc[1] + acc[2] + acc[3]
    if s == 1234.5:
        out[t] = s


@wp.kernel
def stream_copy4(src: wp.array(dtype=wp.vec4), dst: wp.array(dtype=wp.vec4), n: int):
    t = wp.tid()
    step = wp.grid_dim() * wp.block_dim()
    k = t
    while k < n:
        dst[k] = src[k]
        k = k + step


@wp.kernel
def chase_k(next_index: wp.array(dtype=int), k: int, steps: int, spread: int, out: wp.array(dtype=int)):
    lane = wp.tid()
    if lane < k:
        j = next_index[lane * spread * 32]
        for s in range(steps):
            j = next_index[j]
        out[lane] = j


@wp.kernel
def red_region(bins: wp.array(dtype=int), words: int, n: int):
    w = wp.lane_id() % words
    for s in range(n):
        wp.atomic_add(bins, w, 1)


@wp.kernel
def shared_atomic_words(out: wp.array(dtype=int), words: int, n: int):
    s = wp.shared.array(shape=(64,), dtype=int)
    t = wp.thread_idx()
    if t < 64:
        s[t] = 0
    wp.sync_threads()
    w = wp.lane_id() % words
    acc = int(0)
    for k in range(n):
        acc = acc + wp.atomic_add(s, w, 1)
    wp.sync_threads()
    out[wp.tid()] = acc + s[t % 64]


@wp.kernel
def shared_loads(out: wp.array(dtype=float), stride: int, n: int):
    s = wp.shared.array(shape=(1056,), dtype=float)
    t = wp.thread_idx()
    for k in range(t, 1056, 256):
        s[k] = float(k)
    wp.sync_threads()
    base = (wp.lane_id() * stride) % 1024
    acc = float(0.0)
    for i in range(n):
        for u in range(8):
            acc = acc + s[(base + u * 33 + i) % 1024]
    out[wp.tid()] = acc


@wp.kernel
def barrier_loop(out: wp.array(dtype=int), n: int):
    v = wp.thread_idx()
    for i in range(n):
        wp.sync_threads()
        v = v + i
    out[wp.tid()] = v


@wp.kernel
def l1_window(src: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    t = wp.thread_idx()
    base = wp.block_idx() * 4096
    acc = float(0.0)
    for i in range(n):
        for u in range(8):
            acc = acc + src[base + (t + u * 256 + i * 32) % 4096]
    out[wp.tid()] = acc


@wp.kernel
def one_store(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = float(i)


@wp.kernel
def load_store(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] + 1.0


def _ring(lines: int, seed: int) -> np.ndarray:
    order = np.random.default_rng(seed).permutation(lines).astype(np.int32)
    ring = np.zeros(lines * 32, np.int32)
    ring[order * 32] = np.roll(order, -1) * 32
    return ring


def _stream(kernel, mb, copy):
    n4 = (mb << 20) // 16

    def make(rng):
        src = np.ones((n4, 4), f32)
        args = [src, np.zeros((n4, 4), f32), np.int32(n4)] if copy else [src, np.int32(n4), np.zeros(SMS * 8 * 256, f32)]
        return args, SMS * 8 * 256, 256
    return make


def _chase(k, steps, lines, spread):
    return lambda rng: ([_ring(lines, 5), np.int32(k), np.int32(steps), np.int32(spread), np.zeros(32, np.int32)], 32, 32)


VEC4 = {0: wp.vec4, 1: wp.vec4}

LAUNCHES = [
    Launch("stream_read4@64M", stream_read4, _stream(stream_read4, 64, False), "dram", {0: wp.vec4}),
    Launch("stream_read4@256M", stream_read4, _stream(stream_read4, 256, False), "dram", {0: wp.vec4}),
    Launch("stream_copy4@64M", stream_copy4, _stream(stream_copy4, 64, True), "dram", VEC4),
    Launch("stream_copy4@256M", stream_copy4, _stream(stream_copy4, 256, True), "dram", VEC4),
    Launch("chase_k1", chase_k, _chase(1, 256, 1 << 22, 4096), "latency"),
    Launch("chase_k8", chase_k, _chase(8, 256, 1 << 22, 4096), "latency"),
    Launch("chase_k32", chase_k, _chase(32, 256, 1 << 22, 4096), "latency"),
    Launch("red_region1", red_region, lambda rng: ([np.zeros(32, np.int32), np.int32(1), np.int32(2)], SMS * 4 * 256, 256), "atomic"),
    Launch("red_region8", red_region, lambda rng: ([np.zeros(32, np.int32), np.int32(8), np.int32(2)], SMS * 4 * 256, 256), "atomic"),
    Launch("red_region32", red_region, lambda rng: ([np.zeros(32, np.int32), np.int32(32), np.int32(2)], SMS * 4 * 256, 256), "atomic"),
    Launch("shared_atomic_words1", shared_atomic_words, lambda rng: ([np.zeros(SMS * 8 * 256, np.int32), np.int32(1), np.int32(32)], SMS * 8 * 256, 256), "shared"),
    Launch("shared_atomic_words32", shared_atomic_words, lambda rng: ([np.zeros(SMS * 8 * 256, np.int32), np.int32(32), np.int32(32)], SMS * 8 * 256, 256), "shared"),
    Launch("shared_loads_stride1", shared_loads, lambda rng: ([np.zeros(SMS * 8 * 256, f32), np.int32(1), np.int32(64)], SMS * 8 * 256, 256), "shared"),
    Launch("shared_loads_stride32", shared_loads, lambda rng: ([np.zeros(SMS * 8 * 256, f32), np.int32(32), np.int32(8)], SMS * 8 * 256, 256), "shared"),
    Launch("barrier_loop256", barrier_loop, lambda rng: ([np.zeros(256, np.int32), np.int32(512)], 256, 256), "barrier"),
    Launch("barrier_loop1024", barrier_loop, lambda rng: ([np.zeros(1024, np.int32), np.int32(256)], 1024, 1024), "barrier"),
    Launch("one_store", one_store, lambda rng: ([np.zeros(32, f32)], 32, 32), "launch"),
    Launch("load_store", load_store, lambda rng: ([np.ones(1 << 20, f32), np.zeros(1 << 20, f32)], 32, 32), "launch"),
    Launch("l1_window", l1_window, lambda rng: ([np.ones(SMS * 4 * 4096, f32), np.zeros(SMS * 4 * 256, f32), np.int32(64)], SMS * 4 * 256, 256), "l1"),
]
