"""Repeat launches of an imported kernel on the fast engine (as simt/launch_bound.py does for
simt-language kernels).

The first launch with a set of launch options goes through every check of
``launch_imported``; when it ran on device ``cpu`` without sanitizers or traces, it leaves an
``ImportedLauncher`` on the kernel. A later launch with equal options, equal module options
and arguments of the same kinds (an array of the same element type and memory for each
pointer parameter; for each value parameter a number that converts to its type without
question) reuses the compiled function and its launch geometry: only the arrays' addresses
and the values are bound again. Anything else returns None, and the launch takes the full
path, which raises the errors it always has.
"""
from __future__ import annotations

import copy
import weakref

import numpy as np

from ..arrays import array
from ..ir.mir import ScalarParam
from ..sim.common import ArrayArg
from ..ir.types import Scalar
from ..options import get_module_options

MAX_LAUNCHERS = 64             # per kernel: a program launching many geometries starts afresh
F32_SAFE = 3.4e38              # python floats below this in magnitude convert to float32 finitely


def launch_key(dim, block_dim, grid, block, device, arch, max_steps, trace, trace_options,
               check, raise_on_hazard, shared_bytes):
    """The launch options as a dict key, or None for a launch that takes the full path every
    time (traces, sanitizers, values whose type could make equal keys mean other launches)."""
    if trace is not None or trace_options is not None or check is not None:
        return None
    parts = []
    for x in (dim, block_dim, grid, block):
        if x is None or type(x) is int:
            parts.append(x)
        elif type(x) in (tuple, list) and all(type(v) is int for v in x):
            parts.append((type(x) is list, tuple(x)))
        else:
            return None
    if not (max_steps is None or type(max_steps) is int) or type(shared_bytes) is not int:
        return None
    if not (device is None or type(device) is str) or not (arch is None or type(arch) is str):
        return None
    if not (raise_on_hazard is None or type(raise_on_hazard) is bool):
        return None
    if device is None:
        from ..devices import get_device
        device = str(get_device())
    return (*parts, device, arch, max_steps, raise_on_hazard, shared_bytes)


def launch_again(kernel, key, values: list, grid, block):
    """The launch run by the launcher an earlier launch with ``key`` left, or None."""
    launcher = kernel.__dict__.get("_launchers", {}).get(key)
    if launcher is None or launcher.options != get_module_options():
        return None
    return launcher.launch(values, grid, block)


class ImportedLauncher:
    """One imported kernel launched with one set of launch options and argument kinds."""

    def __init__(self, kernel, options: dict, grid, block, values: list, pointer_names: list,
                 fn, cfg):
        from ..launch_bound import FastLaunchResult
        from ..sim.fast import engine          # numba loads with the first fast launch
        from .lower import TYPES
        self.result = FastLaunchResult
        self.kernel, self.fn, self.engine = kernel, fn, engine
        self.options = copy.deepcopy(options)
        self.grid, self.block = grid, block
        self.bound = engine.BoundLaunch(fn, cfg)
        self.pointers = engine.compile_function(fn).gen.pointers
        self.slots = []      # per PTX parameter: (name, dtype, memory) of an array, or a _Value
        for p, v, pointer in zip(kernel.entry.params, values, pointer_names):
            self.slots.append((p.name, v._ir_dtype, v.device.memory_space) if pointer
                              else _Value(TYPES[p.type]))
        self.variables = [p.name for p in fn.params[len(kernel.entry.params):]]
        self.scalar_types = [p.reg.type for p in fn.params if isinstance(p, ScalarParam)]
        # _Value.convert gives what storage_scalar would where the types agree
        self.exact_scalars = self.scalar_types == [s.type for s in self.slots if type(s) is _Value]
        self.array_slots = [s for s in self.slots if type(s) is not _Value]
        self._last: _Bound | None = None     # the last launch's arrays, bound

    @staticmethod
    def usable(values: list, pointer_names: list) -> bool:
        """Whether the first launch's arguments are of kinds this launcher binds again."""
        return all(type(v) is array and v._gpu is None and isinstance(v._ir_dtype, Scalar)
                   if pointer else _plain_number(v)
                   for v, pointer in zip(values, pointer_names))

    def launch(self, values: list, grid, block):
        """Run the launch, or return None (nothing run) where it needs the full path."""
        values, grid, block = self.kernel.prepare_launch(values, grid, block)
        if grid != self.grid or block != self.block or len(values) != len(self.slots):
            return None
        scalars, arrays = [], []
        for slot, v in zip(self.slots, values):
            if type(slot) is _Value:
                value = slot.convert(v)
                if value is None:
                    return None
                scalars.append(value)
            else:
                arrays.append(v)
        for name in self.variables:            # module-level variables the kernel reaches
            arrays.append(self.kernel.variable_array(name))
        bound = self._last
        if bound is None or not bound.holds(arrays):
            bound = self._bind_arrays(arrays)
            if bound is None:
                return None
        else:
            for v in arrays:
                if v._unwritten is not None:   # a launch without initcheck counts as writing it
                    v._unwritten.clear()
        if not self.exact_scalars:
            scalars = [self.engine.storage_scalar(t, x) for t, x in zip(self.scalar_types, scalars)]
        self.bound.run(bound.data, scalars, bound.shapes, bound.pointer_args)
        return self.result(self.kernel.key, self.bound)

    def _bind_arrays(self, arrays: list) -> "_Bound | None":
        """The arrays bound as the compiled code takes them (kept for the next launch with
        the same arrays), or None where one is of another kind than the first launch's."""
        args = []
        for k, v in enumerate(arrays):
            if k < len(self.array_slots):      # a pointer parameter (the rest: variables)
                name, dtype, memory = self.array_slots[k]
                if type(v) is not array or v._gpu is not None or v._ir_dtype != dtype \
                        or v.device.memory_space != memory:
                    return None
            else:
                name = self.variables[k - len(self.array_slots)]
            arg = self._bind(name, v)
            if arg is None:
                return None
            args.append(arg)
        storage_array = self.engine.storage_array
        bound = _Bound(self, arrays, [storage_array(a.data) for a in args], tuple(a.shape for a in args),
                       self.pointers.arguments(args) if self.pointers else None)
        self._last = bound
        return bound

    def _forget(self, ref) -> None:
        """One of the kept arrays went away: let go of its memory."""
        bound = self._last
        if bound is not None and any(r is ref for r in bound.refs):
            self._last = None

    @staticmethod
    def _bind(name: str, v: array) -> ArrayArg | None:
        """``v`` as launch_values.array_arguments binds an array of scalars, or None."""
        buf = v._buffer
        if buf is None or not buf.flags.c_contiguous:
            return None
        if v._unwritten is not None:   # a launch without initcheck counts as writing it
            v._unwritten.clear()
        return ArrayArg(buf.reshape(-1), v.shape, v.ptr, name, allocation=v._allocation)


class _Bound:
    """A launch's arrays as the compiled code takes them. It holds the arrays weakly and their
    buffers through ``data``; when an array goes away, the launcher forgets it (and so lets go
    of its memory)."""

    __slots__ = ("refs", "buffers", "data", "shapes", "pointer_args")

    def __init__(self, launcher: ImportedLauncher, arrays: list, data: list, shapes: tuple,
                 pointer_args):
        self.refs = tuple(weakref.ref(v, launcher._forget) for v in arrays)
        self.buffers = tuple(v._buffer for v in arrays)
        self.data, self.shapes, self.pointer_args = data, shapes, pointer_args

    def holds(self, arrays: list) -> bool:
        """Whether ``arrays`` are the bound arrays, each with the same buffer and on the CPU."""
        if len(arrays) != len(self.refs):
            return False
        for v, ref, buf in zip(arrays, self.refs, self.buffers):
            if ref() is not v or v._buffer is not buf or v._gpu is not None:
                return False
        return True


class _Value:
    """A value parameter of type ``t``: numbers that convert to it exactly and certainly (as
    the full path converts them); anything else goes the full path."""

    def __init__(self, t: Scalar):
        self.type = t
        self.exact = None if t in (Scalar.F16, Scalar.BF16, Scalar.BOOL) else t.np.type
        self.is_int = t.is_int and self.exact is not None
        self.floats = (F32_SAFE if t is Scalar.F32 else float("inf") if t is Scalar.F64 else 0.0)
        self.lo = self.hi = 0
        if self.is_int:
            info = np.iinfo(t.np)
            self.lo, self.hi = int(info.min), int(info.max)

    def convert(self, v):
        kind = type(v)
        if kind is self.exact:
            return v
        if kind is int and self.is_int:
            return self.exact(v) if self.lo <= v <= self.hi else None
        if kind is float and -self.floats < v < self.floats:     # (never for other types)
            return self.exact(v)
        return None


def _plain_number(v) -> bool:
    return type(v) in (int, float) or isinstance(v, (np.integer, np.floating))
