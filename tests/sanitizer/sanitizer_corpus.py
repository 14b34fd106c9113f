"""The sanitizer corpus: small kernels with the verdict each check should give.

Each case names the checks that must report (``expect``: a subset of race, init, sync;
empty for a correct kernel) and the source lines the report must name, as ``# @name``
markers in the kernel (a race names two lines, an uninitialised read or a sync error one).
``gpu_differs`` says, per compute-sanitizer tool, why that tool is expected to disagree
with the expected verdict (for example: racecheck checks shared memory only).

Used by tests/sanitizer/test_corpus.py (simt against the expected verdicts), by
tests/sanitizer/gpu_sanitizer.py (compute-sanitizer on simt's PTX of every case) and by
benchmarks/bench_sanitizer.py (the agreement table).
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import simt as wp

B = 128         # threads per block in the 1-D cases
N = 2 * B       # two blocks


@dataclass
class Case:
    name: str
    kernel: object
    make: Callable                          # make(device) -> (dim, inputs, block_dim)
    expect: frozenset                       # checks that must report
    lines: dict = field(default_factory=dict)   # check -> marker names of the lines reported
    about: str = ""
    gpu_differs: dict = field(default_factory=dict)  # tool -> why compute-sanitizer differs

    def marker_lines(self) -> dict[str, int]:
        """``# @name`` marker -> absolute line number in this file."""
        src, first = inspect.getsourcelines(self.kernel.py_func)
        out = {}
        for k, text in enumerate(src):
            comment = text.partition("#")[2]
            for name in re.findall(r"@(\w+)", comment):
                out[name] = first + k
        return out

    def expected_lines(self, check: str) -> tuple[int, ...]:
        marks = self.marker_lines()
        return tuple(sorted(marks[m] for m in self.lines.get(check, ())))


CASES: list[Case] = []


def case(expect=(), lines=None, about="", gpu_differs=None, make=None):
    """Register the decorated kernel as a corpus case."""
    def register(kernel):
        CASES.append(Case(kernel.key, kernel, make or vector_io, frozenset(expect), lines or {},
                          about, gpu_differs or {}))
        return kernel
    return register


def by_name(name: str) -> Case:
    for c in CASES:
        if c.name == name:
            return c
    raise KeyError(name)


# ---- inputs ---------------------------------------------------------------------------------

def uninitialized(shape, dtype, device):
    """``simt.empty``; on a GPU, memory that really holds no values (simt's GPU ``empty``
    zero-fills), so compute-sanitizer's initcheck has something to find."""
    a = wp.empty(shape, dtype=dtype, device=device)
    if wp.get_device(device).is_cuda:
        from simt.gpu.memory import DeviceMemory
        a._gpu = DeviceMemory(a.device.ordinal, a._buffer.nbytes)
        a.ptr = a._gpu.ptr
    return a


def vector_io(device):
    x = wp.array(np.arange(N, dtype=np.float32) % 7, device=device)
    return N, [x, wp.zeros(N, device=device)], B


def matrix_io(device):
    a = wp.array(np.arange(32 * 32, dtype=np.float32).reshape(32, 32), device=device)
    return (32, 32), [a, wp.zeros((32, 32), device=device)], (16, 16)


def counter_io(device):
    return N, [wp.zeros(N // B, dtype=int, device=device)], B


def int_vector_io(device):
    x = wp.array(np.arange(N, dtype=np.int32) % 64, device=device)
    return N, [x, wp.zeros(64, dtype=int, device=device)], B


def empty_io(device):
    return N, [uninitialized(N, float, device), wp.zeros(N, device=device)], B


def empty_out_io(device):
    x = wp.array(np.arange(N, dtype=np.float32), device=device)
    return N, [x, uninitialized(N, float, device), wp.zeros(N, device=device)], B


def uniform_io(device):
    x = wp.array(np.arange(N, dtype=np.float32), device=device)
    return N, [x, 3, wp.zeros(N, device=device)], B


# ---- racecheck: shared memory ---------------------------------------------------------------

@case(expect={"race"}, lines={"race": ("rw", "rw")},
      about="tree reduction with no sync_threads() between rounds")
@wp.kernel
def reduce_missing_barrier(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    stride = int(64)
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]  # @rw
        stride = stride // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@case(about="tree reduction with a sync_threads() after every round")
@wp.kernel
def reduce_with_barrier(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    stride = int(64)
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]
        wp.sync_threads()
        stride = stride // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@case(expect={"race"}, lines={"race": ("w", "r")},
      about="the barrier placed after the neighbour read instead of before it")
@wp.kernel
def barrier_in_wrong_place(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = x[i]  # @w
    v = s[(t + 1) % 128]  # @r
    wp.sync_threads()
    out[i] = v


@case(about="the same neighbour exchange with the barrier between the write and the read")
@wp.kernel
def barrier_in_right_place(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = x[i]
    wp.sync_threads()
    out[i] = s[(t + 1) % 128]


@case(expect={"race"}, lines={"race": ("w", "r")}, make=matrix_io,
      about="tiled transpose through shared memory without its barrier")
@wp.kernel
def transpose_missing_barrier(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    tile = wp.shared.array(shape=(16, 17), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    tile[ty, tx] = a[by * 16 + ty, bx * 16 + tx]  # @w
    b[bx * 16 + ty, by * 16 + tx] = tile[tx, ty]  # @r


@case(make=matrix_io, about="tiled transpose with its barrier")
@wp.kernel
def transpose_with_barrier(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    tile = wp.shared.array(shape=(16, 17), dtype=float)
    ty, tx = wp.thread_idx()
    by, bx = wp.block_idx()
    tile[ty, tx] = a[by * 16 + ty, bx * 16 + tx]
    wp.sync_threads()
    b[bx * 16 + ty, by * 16 + tx] = tile[tx, ty]


@case(expect={"race"}, lines={"race": ("a", "b")},
      about="warp-synchronous last-warp reduction with no syncwarp(): pre-Volta style")
@wp.kernel
def warp_reduce_without_syncwarp(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    if t < 32:
        s[t] = s[t] + s[t + 32] + s[t + 64] + s[t + 96]  # @a
        s[t] = s[t] + s[t + 16]  # @b
        s[t] = s[t] + s[t + 8]
        s[t] = s[t] + s[t + 4]
        s[t] = s[t] + s[t + 2]
        s[t] = s[t] + s[t + 1]
    if t == 0:
        out[wp.block_idx()] = s[0]


@case(about="the same reduction written for Volta: values in registers, syncwarp() around "
            "every shared-memory step")
@wp.kernel
def warp_reduce_with_syncwarp(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    if t < 32:
        v = s[t] + s[t + 32] + s[t + 64] + s[t + 96]
        wp.syncwarp()
        s[t] = v
        wp.syncwarp()
        offset = int(16)
        while offset > 0:
            v = v + s[t + offset]
            wp.syncwarp()
            s[t] = v
            wp.syncwarp()
            offset = offset // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@case(expect={"race"}, lines={"race": ("rmw", "rmw")}, make=counter_io,
      about="every thread increments one shared counter with a plain read-modify-write")
@wp.kernel
def shared_counter_plain(out: wp.array(dtype=int)):
    s = wp.shared.array(shape=(1,), dtype=int)
    t = wp.thread_idx()
    if t == 0:
        s[0] = 0
    wp.sync_threads()
    s[0] = s[0] + 1  # @rmw
    wp.sync_threads()
    if t == 0:
        out[wp.block_idx()] = s[0]


@case(make=counter_io, about="the same counter with atomic_add: atomics make it race-free")
@wp.kernel
def shared_counter_atomic(out: wp.array(dtype=int)):
    s = wp.shared.array(shape=(1,), dtype=int)
    t = wp.thread_idx()
    if t == 0:
        s[0] = 0
    wp.sync_threads()
    wp.atomic_add(s, 0, 1)
    wp.sync_threads()
    if t == 0:
        out[wp.block_idx()] = s[0]


@case(expect={"race"}, lines={"race": ("add", "read")}, make=counter_io,
      about="atomics into a shared counter, then a read of it with no barrier in between",
      gpu_differs={"racecheck": "racecheck reported no hazard between the atomic adds and the plain "
                                "read (measured on the H200: 0 hazards); it checks plain shared loads "
                                "and stores against each other, and the atomics here are not among them"})
@wp.kernel
def shared_atomic_then_read(out: wp.array(dtype=int)):
    s = wp.shared.array(shape=(1,), dtype=int)
    t = wp.thread_idx()
    if t == 0:
        s[0] = 0
    wp.sync_threads()
    wp.atomic_add(s, 0, 1)  # @add
    if t == 0:
        out[wp.block_idx()] = s[0]  # @read


@case(make=int_vector_io, about="shared-memory histogram with atomics and barriers")
@wp.kernel
def histogram_shared_atomic(values: wp.array(dtype=int), bins: wp.array(dtype=int)):
    local = wp.shared.array(shape=(64,), dtype=int)
    t = wp.thread_idx()
    if t < 64:
        local[t] = 0
    wp.sync_threads()
    wp.atomic_add(local, values[wp.tid()], 1)
    wp.sync_threads()
    if t < 64:
        wp.atomic_add(bins, t, local[t])


@case(about="every thread stores the same value to one word: benign (compute-sanitizer "
            "files it as information, not reported by default)")
@wp.kernel
def same_value_broadcast(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(1,), dtype=float)
    s[0] = 1.0
    wp.sync_threads()
    out[wp.tid()] = s[0] * x[wp.tid()]


@case(expect={"race"}, lines={"race": ("r", "w")},
      about="tiled loop missing the barrier at the end of each tile: the next tile overwrites "
            "shared memory other threads still read (write-after-read)")
@wp.kernel
def tiles_missing_second_barrier(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    acc = float(0.0)
    for k in range(2):
        s[t] = x[k * 128 + t]  # @w
        wp.sync_threads()
        acc = acc + s[(t + 1) % 128]  # @r
    out[wp.tid()] = acc


@case(about="the same tiled loop with both barriers")
@wp.kernel
def tiles_with_both_barriers(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    acc = float(0.0)
    for k in range(2):
        s[t] = x[k * 128 + t]
        wp.sync_threads()
        acc = acc + s[(t + 1) % 128]
        wp.sync_threads()
    out[wp.tid()] = acc


# ---- racecheck: global memory ---------------------------------------------------------------

GLOBAL = {"racecheck": "compute-sanitizer's racecheck checks shared memory only"}


@case(expect={"race"}, lines={"race": ("w", "w")}, gpu_differs=GLOBAL,
      about="every block writes its own id to one global word")
@wp.kernel
def global_blocks_race(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = float(wp.block_idx())  # @w


@case(expect={"race"}, lines={"race": ("r", "w")}, gpu_differs=GLOBAL,
      about="in-place stencil: each thread reads its right neighbour's element, which that "
            "thread overwrites")
@wp.kernel
def global_stencil_in_place(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < 255:
        x[i] = x[i] + x[i + 1]  # @r @w


@case(make=counter_io, about="every thread adds to one global counter with atomic_add")
@wp.kernel
def global_atomic_counter(out: wp.array(dtype=int)):
    wp.atomic_add(out, 0, 1)


@case(about="every thread reads one global element: reads never race")
@wp.kernel
def global_shared_reads(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[wp.tid()] = x[0] + x[wp.tid()]


# ---- initcheck ------------------------------------------------------------------------------

SHARED_INIT = {"initcheck": "compute-sanitizer's initcheck checks global memory only"}


@case(expect={"init"}, lines={"init": ("r",)}, gpu_differs=SHARED_INIT,
      about="half the block fills a shared array, everyone reads their own slot")
@wp.kernel
def shared_half_initialised(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    if t < 64:
        s[t] = x[wp.tid()]
    wp.sync_threads()
    out[wp.tid()] = s[t]  # @r


@case(about="the whole block fills the shared array before anyone reads it")
@wp.kernel
def shared_fully_initialised(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    out[wp.tid()] = s[127 - t]


@case(expect={"init"}, lines={"init": ("r",)}, make=empty_io,
      about="a kernel reads an array made by simt.empty that nothing wrote")
@wp.kernel
def read_empty_array(e: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = e[i] * 2.0  # @r


@case(make=empty_out_io, about="a kernel writes an simt.empty array, then reads what it wrote")
@wp.kernel
def write_then_read_empty(x: wp.array(dtype=float), e: wp.array(dtype=float),
                          out: wp.array(dtype=float)):
    i = wp.tid()
    e[i] = x[i]
    out[i] = e[i] + 1.0


# ---- synccheck ------------------------------------------------------------------------------

@case(expect={"sync"}, lines={"sync": ("bar",)},
      about="sync_threads() inside a branch only part of the block takes")
@wp.kernel
def divergent_barrier(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    t = wp.thread_idx()
    if t < 16:
        wp.sync_threads()  # @bar
    out[wp.tid()] = x[wp.tid()]


@case(expect={"sync"}, lines={"sync": ("shfl",)},
      about="a full-warp shuffle reached by half of the warp",
      gpu_differs={"synccheck": "synccheck reported nothing (measured on the H200: 0 errors): it "
                                "checks barriers and __syncwarp, not a shuffle's member mask against "
                                "the lanes that reach it; the hardware's result is undefined"})
@wp.kernel
def shuffle_in_divergent_code(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    v = x[wp.tid()]
    if wp.lane_id() < 16:
        v = wp.shfl_down_sync(0xFFFFFFFF, v, 1)  # @shfl
    out[wp.tid()] = v


@case(make=uniform_io, about="sync_threads() inside a branch every thread of the block takes")
@wp.kernel
def uniform_barrier(x: wp.array(dtype=float), n: int, out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    if n > 0:
        wp.sync_threads()
    out[wp.tid()] = s[127 - t]


@case(about="shuffle reduction with the full mask, every lane converged")
@wp.kernel
def shuffle_reduce(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    v = x[wp.tid()]
    offset = int(16)
    while offset > 0:
        v = v + wp.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset = offset // 2
    out[wp.tid()] = v


@case(about="syncwarp() with the mask of exactly the lanes in the branch")
@wp.kernel
def syncwarp_partial_mask(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    v = x[wp.tid()]
    if wp.lane_id() < 16:
        s[t] = v
        wp.syncwarp(wp.uint32(0x0000FFFF))
        v = s[t ^ 1]
    out[wp.tid()] = v
