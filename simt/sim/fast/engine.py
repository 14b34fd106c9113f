"""The fast engine (device "cpu"): MIR compiled to machine code by numba, blocks in parallel.

Each kernel becomes one generated numba function that runs a range of thread blocks
(codegen.py); this module binds a launch's arguments to it and spreads the grid over the
CPU cores: the grid is cut into chunks of blocks, and the calling thread plus a pool of
worker threads take chunks until none are left (the compiled code releases the GIL). What a
launch derives from its geometry alone is a BoundLaunch, which repeat launches reuse
(simt/launch_bound.py).

What it reports: ``launch__grid_size``, ``launch__block_size`` and ``launch__thread_count``
only; it counts no instructions (that is the precise engine's job).

Float atomics whose result nothing reads are deferred and applied in one canonical order
(simt/sim/atomic_log.py), so blocks run in parallel and still give the precise engine's
bits. Kernels whose results would depend on how the cores interleave (an atomic's old value
used, an exchange, an atomically updated array also loaded) run on one OS thread: same
inputs, same bits, on every run.

Differences from cpu:precise, all where the result is not defined by the program alone:
- immediate atomics (those not deferred) land in the order threads run here (block by
  block, thread by thread between collectives) rather than warp by warp: the old values
  they return, and float sums they build, can differ from cpu:precise's;
- threads run one after another between collectives, not warp by warp, so memory races
  (between threads not ordered by a barrier or warp intrinsic) may resolve differently;
- the step limit counts basic blocks per thread, not per warp;
- ``clock64`` returns the thread's basic-block count, not a cycle estimate.
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...ir.mir import Function
from ...ir.types import Scalar
from .. import atomic_log
from ..common import ArrayArg, LaunchConfig
from . import cache, codegen
from ...progress import launch_progress
from .codegen import ERR_FIELDS, Generated
from ...ir.cfg import back_edges
from .errors import FaultReport

PARALLEL_ABOVE_S = 300e-6        # launches expected to take less run on the calling thread
MIN_THREADS_PER_CHUNK = 2048
CHUNKS_PER_WORKER = 4             # more chunks than cores: cheap load balancing
PRIVATE_RATIO = 8                 # private copies of atomically updated arrays (see
                                  # CompiledKernel.private_arrays) while they hold at most an
                                  # eighth as many elements as a core has threads to run
# A launch big enough to spread over the cores is timed both ways (on this thread, and
# spread) and then runs the faster way: on a busy machine spreading can lose, and for
# kernels with global atomics the one-thread variant has plain read-modify-writes, which can
# beat contended atomics. The slower way is timed again every REPROBE_EVERY launches.
# False: always spread (the tests use it to exercise atomics across OS threads).
ADAPTIVE_PARALLEL = True
REPROBE_EVERY = 32
PROBES = 3                        # launches timed each way before the faster way is chosen
PROGRESS_ABOVE_S = 0.5           # launches expected to take longer may show a progress bar
SERIAL_CHUNK_S = 0.1

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_compile_lock = threading.RLock()


class CompiledKernel:
    """A kernel's compiled code plus how long its threads took so far: waking worker
    threads costs tens of microseconds, so small launches of cheap kernels stay serial."""

    def __init__(self, gen: Generated, run_blocks, fn: Function):
        self.gen = gen
        self.run_blocks = run_blocks
        self.fn = fn
        self.seconds_per_thread: float | None = None   # None: no launch yet (compiles)
        self._serial_blocks = None
        self._serial_gen: Generated | None = None
        self._log_buffers: tuple | None = None
        self._log_lock = threading.Lock()   # launches from several threads take turns at them
        self.warm: set[int] = set()        # ids of the variants already called (compiled)
        self.wall_per_thread = {False: None, True: None}   # by spread over cores or not
        self.observed = {False: 0, True: 0}                 # launches timed each way
        self.decisions = 0
        self._private: list[tuple[int, str]] | None = None
        # blocks of a kernel without loops cost about the same: one chunk per core (each
        # chunk costs a call and a wake-up); with loops they can differ (a fractal's rows),
        # and more chunks than cores even the cores out. Grid-stride loops (their exit a
        # guard on an induction variable, codegen's latches) give every block the same work.
        varied = [e for e in back_edges(fn) if e[0] not in gen.stride_latches]
        self.chunks_per_worker = CHUNKS_PER_WORKER if varied else 1

    def serial_blocks(self):
        """The code for launches on one OS thread (plain atomics where the kernel has any)."""
        if not self.gen.has_global_atomics:
            return self.run_blocks
        with _compile_lock:
            if self._serial_blocks is None:
                gen = codegen.generate(self.fn, plain_atomics=True)
                self._serial_blocks = cache.load_module(self.fn.name, gen.source).run_blocks
                self._serial_gen = gen
        return self._serial_blocks

    def private_arrays(self) -> list[tuple[int, str]]:
        """The arrays a spread launch gives each chunk of blocks a private copy of: (index
        among the array parameters, family), where every global atomic of the kernel is an
        integer one of a single family per array with its old value unused, on an array the
        kernel does not otherwise read or write (atomic_log.Plan.int_arrays). Each chunk then
        runs the one-thread code (plain read-modify-writes) on its copies, which start at the
        family's identity and are folded into the arrays at the end: the same final values
        as atomics in any order, without cores contending for the same cache lines. Empty
        where that does not hold."""
        if self._private is None:
            plan = atomic_log.plan(self.fn)
            if self.gen.has_global_atomics and not plan.immediate_global and not plan.arrays \
                    and self.gen.pointers is None:
                self._private = [(k, plan.int_arrays[p.mem.name]) for k, p in enumerate(self.gen.array_params)
                                 if p.mem.name in plan.int_arrays]
            else:
                self._private = []
        return self._private

    def take_log_buffers(self, rows: int, keys: bool) -> tuple:
        """Buffers for the deferred float atomics of a launch, reused from the last one
        (fresh memory costs a page fault per 4 KB); give them back with ``keep_log_buffers``.
        A kernel whose atomics sit in loops starts each chunk with this room and grows it."""
        with self._log_lock:          # a concurrent launch gets its own
            have, self._log_buffers = self._log_buffers, None
        if have is None or have[0].size < rows or (keys and have[2].size < rows):
            have = (np.empty(rows, np.int64), np.empty(rows, np.float64),
                    np.empty(rows if keys else 0, np.int64))
        return have

    def keep_log_buffers(self, buffers: tuple) -> None:
        with self._log_lock:
            self._log_buffers = buffers

    def serial_gen(self) -> Generated:
        self.serial_blocks()
        return self._serial_gen if self.gen.has_global_atomics else self.gen

    def prefer_parallel(self) -> bool:
        if not ADAPTIVE_PARALLEL:
            return True
        serial, parallel = self.wall_per_thread[False], self.wall_per_thread[True]
        if self.observed[False] < PROBES or self.observed[True] < PROBES:
            # time it on this thread first, then spread, taking turns until each way has
            # PROBES launches: one slow first launch (a busy moment) must not decide alone
            return self.observed[True] < self.observed[False]
        self.decisions += 1
        faster = parallel < serial
        return (not faster) if self.decisions % REPROBE_EVERY == 0 else faster

    def observe_wall(self, parallel: bool, seconds: float, threads: int) -> None:
        per = seconds / max(1, threads)
        self.observed[parallel] += 1
        old = self.wall_per_thread[parallel]
        self.wall_per_thread[parallel] = per if old is None else min(per, 0.5 * (old + per))

    def estimate(self, threads: int) -> float:
        if self.seconds_per_thread is None:
            return 0.0                    # the first launch compiles: run it on this thread
        return self.seconds_per_thread * threads

    def observe(self, cpu_seconds: float, threads: int, compiled_now: bool) -> None:
        if compiled_now:                  # the time was mostly compiling or loading
            return
        per = cpu_seconds / max(1, threads)
        if self.seconds_per_thread is None:
            self.seconds_per_thread = per
        else:
            self.seconds_per_thread = min(per, 0.5 * (self.seconds_per_thread + per))


def compile_function(fn: Function) -> CompiledKernel:
    """The compiled kernel for ``fn`` (generated once per Function; machine code from disk)."""
    compiled = getattr(fn, "_fast_compiled", None)
    if compiled is None:
        with _compile_lock:          # launches from several threads compile once
            compiled = getattr(fn, "_fast_compiled", None)
            if compiled is None:
                gen = codegen.generate(fn)
                module = cache.load_module(fn.name, gen.source)
                compiled = CompiledKernel(gen, module.run_blocks, fn)
                fn._fast_compiled = compiled  # type: ignore[attr-defined]
    return compiled


_WORKERS = max(1, os.cpu_count() or 1)


def workers() -> int:
    return _WORKERS


def _get_pool() -> ThreadPoolExecutor:
    """The worker threads, started together on first use (a pool that starts one thread per
    submission would make the first spread launches look slow, and the adaptive choice would
    then keep them on one core until its next probe)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            n = max(1, workers() - 1)
            pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="simt-fast")
            started = threading.Barrier(n + 1)
            for _ in range(n):
                pool.submit(started.wait)
            started.wait()
            _pool = pool
        return _pool


def run(fn: Function, cfg: LaunchConfig, args: list) -> dict[str, float]:
    arrays = [a for a in args if isinstance(a, ArrayArg)]
    scalars = [storage_scalar(p.reg.type, a) for p, a in zip(fn.params, args)
               if not isinstance(a, ArrayArg)]
    data = []
    for a in arrays:
        if not (a.data.flags.c_contiguous and a.data.ndim == 1):
            raise RuntimeError(f"fast engine: array '{a.name}' is not a contiguous 1-d buffer")
        data.append(storage_array(a.data))
    bound = BoundLaunch(fn, cfg)
    ptr = compile_function(fn).gen.pointers
    bound.run(data, scalars, tuple(tuple(a.shape) for a in arrays),
              ptr.arguments(arrays) if ptr else None)
    return bound.sizes()


def storage_array(data: np.ndarray) -> np.ndarray:
    """An array argument as the compiled code holds it (float16 as its bits)."""
    return data.view(np.uint16) if data.dtype == np.float16 else data


class BoundLaunch:
    """A kernel's compiled code at one launch geometry: everything a launch derives from
    (fn, cfg) alone, computed once, so that a repeat launch (simt.launch keeps one per
    kernel, signature and geometry) only passes its arrays and scalars."""

    def __init__(self, fn: Function, cfg: LaunchConfig):
        if fn.launch.block_ndim == 1 and tuple(cfg.block[1:]) != (1, 1):
            raise RuntimeError(f"fast engine: kernel compiled for 1-d blocks launched with {cfg.block}")
        self.fn = fn
        self.cfg = cfg
        dim = tuple(cfg.dim) + (1,) * (4 - len(cfg.dim))
        self.geom = np.array([*cfg.block, *cfg.grid, *dim, cfg.max_steps], dtype=np.int64)
        self.lanes = -(-cfg.threads_per_block // 32) * 32
        self.n_blocks = cfg.num_blocks
        self.threads = self.n_blocks * cfg.threads_per_block
        self._shapes: tuple = ((), None)      # (shapes of the last launch, as the code reads them)
        self._spare: list = []                 # zeroed (err, abort, err_state) of launches that ran clean

    def sizes(self) -> dict[str, float]:
        """The metrics the fast engine reports."""
        return {"launch__grid_size": float(self.n_blocks),
                "launch__block_size": float(self.cfg.threads_per_block),
                "launch__thread_count": float(self.threads)}

    def _flat_shapes(self, shapes: tuple) -> np.ndarray:
        key, flat = self._shapes
        if key != shapes:
            flat = np.array([s for shape in shapes for s in shape] or [0], dtype=np.int64)
            self._shapes = (shapes, flat)
        return flat

    def run(self, data: list, scalars: list, shapes: tuple, pointer_args=None) -> None:
        """Run every block. ``data``: the arrays' storage (storage_array), ``scalars``: the
        scalars' (storage_scalar), both in parameter order; ``shapes``: each array's shape;
        ``pointer_args``: the arrays as byte-addressed memory sees them (pointers.PointerArgs),
        for functions with pointer accesses."""
        extra = pointer_args.values if pointer_args is not None else ()
        fn, cfg, n_blocks, threads = self.fn, self.cfg, self.n_blocks, self.threads
        compiled = compile_function(fn)
        gen = compiled.gen
        geom, lanes = self.geom, self.lanes
        flat_shapes = self._flat_shapes(shapes)
        n_workers = min(workers(), n_blocks)
        parallel = (n_workers > 1 and gen.parallel_safe
                    and compiled.estimate(threads) >= PARALLEL_ABOVE_S and compiled.prefer_parallel())
        private = compiled.private_arrays() if parallel else []
        if private and sum(data[k].size for k, _ in private) * PRIVATE_RATIO > threads // n_workers:
            private = []       # copies as big as the work: the atomics are cheaper
        run_blocks = compiled.run_blocks if parallel and not private else compiled.serial_blocks()
        variant = gen if parallel and not private else compiled.serial_gen()
        copies: list = []
        logs = []
        log_rows = variant.log_rows_per_thread * cfg.threads_per_block
        if variant.logs:
            buffers = compiled.take_log_buffers(n_blocks * log_rows, variant.log_keys)
        try:                 # list.pop is atomic: concurrent launches never share buffers
            mine = [self._spare.pop()]
        except IndexError:
            mine = [(np.zeros(ERR_FIELDS, dtype=np.int64), np.zeros(1, dtype=np.int64),
                     np.zeros((3, lanes), dtype=np.int64))]
        abort = mine[0][1]
        used = variant.arrays_used
        if all(used):
            def pick(arrays):
                return arrays
        else:             # the arrays run_blocks takes (codegen._arrays_used)
            def pick(arrays):
                return [a for a, u in zip(arrays, used) if u]

        def run_chunk(begin: int, end: int):
            try:
                err, _, err_state = mine.pop()
            except IndexError:
                err = np.zeros(ERR_FIELDS, dtype=np.int64)
                err_state = np.zeros((3, lanes), dtype=np.int64)
            if private:
                mine_data = list(data)
                for k, family in private:
                    mine_data[k] = private_copy(data[k], family)
                call(begin, end, geom, flat_shapes, err, abort, err_state, *pick(mine_data), *scalars,
                     *extra)
                copies.append(mine_data)           # list.append is atomic under the GIL
                return err, err_state
            if not variant.logs:
                call(begin, end, geom, flat_shapes, err, abort, err_state, *pick(data), *scalars, *extra)
                return err, err_state
            room = slice(begin * log_rows, end * log_rows)   # this chunk's part of the buffers
            addresses, values, keys = (b[room] if b.size else b for b in buffers)
            addresses, values, keys, count = call(begin, end, geom, flat_shapes, err, abort,
                                                  err_state, addresses, values, keys,
                                                  *pick(data), *scalars, *extra)
            logs.append((begin, addresses[:count], values[:count], keys[:count]))
            return err, err_state

        if parallel and _pool is None:
            _get_pool()       # started before the clock: its start is no launch's time
        compiled_now = id(run_blocks) not in compiled.warm   # (reading .signatures is slow)
        if compiled_now and run_blocks.signatures:
            compiled_now = False
        # the machine code sealed so far (len(.overloads): .signatures builds a list); None:
        # the first call compiles (or loads) and seals it under the entry's lock
        sealed = [None if compiled_now else len(run_blocks.overloads)]

        def call(*argv):
            if sealed[0] is None:
                cache.compile_sealed(run_blocks, argv)
                sealed[0] = len(run_blocks.overloads)
            return run_blocks(*argv)
        compiled.warm.add(id(run_blocks))
        progress = None
        if compiled.estimate(threads) >= PROGRESS_ABOVE_S or compiled.seconds_per_thread is None:
            progress = launch_progress(fn.name, n_blocks, cfg.progress)
        start = time.perf_counter()
        try:
            if not parallel:
                results = _run_serial(run_chunk, n_blocks, progress)
                wall = time.perf_counter() - start
                compiled.observe(wall, threads, compiled_now)
            else:
                results = _run_parallel(run_chunk, n_blocks, n_workers, threads, progress,
                                        compiled.chunks_per_worker)
                wall = time.perf_counter() - start
                compiled.observe(wall * n_workers, threads, compiled_now)
        finally:
            if progress:
                progress.close()
        if sealed[0] is not None and len(run_blocks.overloads) != sealed[0]:   # numba compiled more
            cache.seal(run_blocks)
        if not compiled_now and compiled.estimate(threads) >= PARALLEL_ABOVE_S:
            compiled.observe_wall(parallel, wall, threads)
        for mine_data in copies:
            for k, family in private:
                fold_private(data[k], mine_data[k], family)
        failed = [(int(e[1]), e, s) for e, s in results if e[0] != 0]
        if failed:
            _, err, err_state = min(failed, key=lambda f: f[0])
            shapes_by_name = {p.mem.name: shape for p, shape in zip(gen.array_params, shapes)}
            FaultReport(gen, cfg, shapes_by_name, err, pointer_args).raise_error(err_state)
        if len(self._spare) < 2:          # a clean launch leaves its buffers all zeros
            self._spare.append((results[0][0], abort, results[0][1]))
        if logs:
            _apply_logs(fn, logs, {p.mem.name: d for p, d in zip(gen.array_params, data)},
                        ordered=not gen.layout.has_collectives)
        if variant.logs:
            compiled.keep_log_buffers(buffers)


_FOLD = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
         "or": np.bitwise_or, "xor": np.bitwise_xor}


def private_copy(data: np.ndarray, family: str) -> np.ndarray:
    """A chunk's copy of an integer array its atomics update (CompiledKernel.private_arrays),
    filled with the family's identity."""
    info = np.iinfo(data.dtype)
    identity = {"min": info.max, "max": info.min, "and": -1 if info.min < 0 else info.max}.get(family, 0)
    return np.full(data.shape, identity, dtype=data.dtype)


def fold_private(data: np.ndarray, copy: np.ndarray, family: str) -> None:
    """Apply a chunk's copy to the array: integer addition wraps as the atomics' does."""
    _FOLD[family](data, copy, out=data)


def storage_scalar(t: Scalar, value) -> np.generic:
    """A scalar argument as the compiled code holds it (float16 as its bits)."""
    if t is Scalar.F16:
        return np.float16(value).view(np.uint16)
    if t is Scalar.BF16:                    # already bits (see launch.convert_scalar)
        return np.uint16(value)
    return t.np.type(value)


def _run_serial(run_chunk, n_blocks: int, progress) -> list:
    """All blocks on this thread: in one call, or, with a progress bar, in chunks that grow
    until each takes about SERIAL_CHUNK_S (the first call may compile: it is one block)."""
    if progress is None:
        return [run_chunk(0, n_blocks)]
    results, begin, size = [], 0, 1
    while begin < n_blocks:
        end = min(n_blocks, begin + size)
        t0 = time.perf_counter()
        results.append(run_chunk(begin, end))
        progress.advance(end - begin)
        if results[-1][0][0] != 0:        # a runtime error: the blocks after it do not run
            break
        if time.perf_counter() - t0 < SERIAL_CHUNK_S:
            size *= 2
        begin = end
    return results


def _apply_logs(fn: Function, logs: list, data: dict, ordered: bool) -> None:
    """Apply the chunks' deferred float atomics in canonical order (simt/sim/atomic_log.py).
    Chunks are contiguous ranges of blocks; without collectives a chunk's rows are in
    canonical order already, with them they carry each thread's key and are sorted."""
    logs.sort(key=lambda chunk: chunk[0])
    deferral = atomic_log.plan(fn)
    families = list(deferral.arrays.items())
    if not ordered:
        addresses = np.concatenate([c[1] for c in logs])
        values = np.concatenate([c[2] for c in logs])
        keys = np.concatenate([c[3] for c in logs])
        order = np.argsort(keys, kind="stable")
        logs = [(0, addresses[order], values[order], None)]
    for _, addresses, values, _ in logs:
        for k, (name, family) in enumerate(families):
            atomic_log.apply_packed(data[name], addresses, values, k,
                                    atomic_log.FAMILY_CODE[family])


def _run_parallel(run_chunk, n_blocks: int, n_workers: int, threads: int, progress=None,
                  per_worker: int = CHUNKS_PER_WORKER) -> list:
    n_chunks = min(n_blocks, n_workers * per_worker,
                   max(n_workers, threads // MIN_THREADS_PER_CHUNK))
    bounds = [n_blocks * k // n_chunks for k in range(n_chunks + 1)]
    counter = itertools.count()      # next() is atomic under the GIL
    results: list = []

    def worker():
        out = []
        while True:
            k = next(counter)
            if k >= n_chunks:
                return out
            out.append(run_chunk(bounds[k], bounds[k + 1]))
            if progress:
                progress.advance(bounds[k + 1] - bounds[k])

    pool = _get_pool()
    futures = [pool.submit(worker) for _ in range(n_workers - 1)]
    results.extend(worker())
    for f in futures:
        results.extend(f.result())
    return results
