"""Repeat launches on the fast engine: bound once per kernel, signature and launch options.

A Warp program launches the same kernels thousands of times with arguments of the same
types. The first launch goes through every check in ``simt.launch``; when it ran on the
fast engine, the launch leaves a ``BoundLauncher`` on the kernel. A later launch with the
same launch options (dim, block_dim, device, arch, ...), the same module options and
arguments of the same types reuses it: each argument is compared with what the first
launch accepted (an array's class, dtype, ndim and memory; a scalar's exact type), values
are converted as the full path converts them, and the compiled code is called directly.

Anything the launcher does not recognise (another type, a null array, a value out of
range) sends the launch back through the full path, which raises the same LaunchError it
always has: the launcher only skips work whose outcome it has already seen.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .arrays import array
from .devices import get_device
from .ir.types import ArrayType, Scalar, StructType, is_generic, scalar_of
from .launch_values import convert_composite, convert_scalar
from .sim.common import LaunchResult, ResultMetrics

if TYPE_CHECKING:
    from .sim.fast.engine import BoundLaunch

MAX_LAUNCHERS = 64          # per kernel: a program that launches many geometries starts afresh
MAX_PER_KEY = 4             # argument signatures kept per launch key (generic kernels)

F32_SAFE = 3.4e38           # python floats below this in magnitude convert to float32 finitely


class FastLaunchResult(LaunchResult):
    """A fast-engine LaunchResult whose metrics are built when first read."""

    def __init__(self, kernel: str, bound: BoundLaunch):
        self.kernel = kernel
        self.device = "cpu"
        self.details = {}
        self._bound = bound
        self._metrics = None

    @property
    def metrics(self) -> ResultMetrics:
        if self._metrics is None:
            self._metrics = ResultMetrics(self._bound.sizes(), self.unavailable)
        return self._metrics

    @metrics.setter
    def metrics(self, values) -> None:
        self._metrics = ResultMetrics(values, self.unavailable)


def launch_key(dim, block_dim, device, arch, max_steps, check, raise_on_hazard):
    """The launch's options as a dict key, or None where a value's type could make equal
    keys mean different launches (True == 1, numpy ints) or it cannot be a key."""
    if type(dim) is not int:
        if type(dim) is not tuple or not all(type(d) is int for d in dim):
            return None
    if type(block_dim) is not int and block_dim is not None:
        if type(block_dim) is not tuple or not all(type(b) is int for b in block_dim):
            return None
    if not (max_steps is None or type(max_steps) is int):
        return None
    if not (device is None or isinstance(device, str)) or not (arch is None or type(arch) is str):
        return None
    if not (check is None or type(check) is str):
        return None
    if not (raise_on_hazard is None or type(raise_on_hazard) is bool):
        return None
    if device is None:
        device = get_device()
    return (dim, block_dim, device, arch, max_steps, check, raise_on_hazard)


class _ArraySlot:
    __slots__ = ("dtype", "ndim", "flatten", "half")

    def __init__(self, value: array):
        self.dtype = value._ir_dtype
        self.ndim = value.ndim
        self.flatten = value._buffer.ndim != 1      # composites keep trailing axes
        self.half = value._buffer.dtype == np.float16


class _ScalarSlot:
    __slots__ = ("name", "type", "exact", "generic_type", "kind", "lo", "hi")

    def __init__(self, name: str, ptype: Scalar, value, generic: bool):
        self.name, self.type = name, ptype
        # A numpy scalar of exactly the parameter's type is already what the code takes.
        self.exact = None if ptype in (Scalar.F16, Scalar.BF16) else ptype.np.type
        self.generic_type = type(value) if generic else None   # what typed the generic parameter
        self.kind = ("int" if ptype.is_int and self.exact is not None else
                     "f32" if ptype is Scalar.F32 else "f64" if ptype is Scalar.F64 else "")
        self.lo = self.hi = 0
        if self.kind == "int":
            info = np.iinfo(ptype.np)
            self.lo, self.hi = int(info.min), int(info.max)


class _CompositeSlot:
    __slots__ = ("name", "type", "scalar")

    def __init__(self, name: str, ptype):
        self.name, self.type, self.scalar = name, ptype, scalar_of(ptype)


class BoundLauncher:
    """One kernel launched with one set of launch options and argument types."""

    def __init__(self, kernel, options: tuple, slots: list, bound: BoundLaunch, engine):
        self.kernel = kernel
        self.options = options
        self.slots = slots
        self.bound = bound
        self.engine = engine          # simt.sim.fast.engine, imported with the first fast launch

    @staticmethod
    def build(kernel, options: tuple, values, bound_args, fn, cfg) -> "BoundLauncher | None":
        """A launcher for the arguments ``values`` that launch.bind_arguments accepted as
        ``bound_args``, or None where the launch needs more than this path does (structs,
        arrays of structs, null arrays, generic composites)."""
        slots = []
        generic = {name for name, t in kernel.params if is_generic(t)}
        for value, (name, ptype, _) in zip(values, bound_args):
            if isinstance(ptype, ArrayType):
                if type(value) is not array or value._gpu is not None or value._buffer is None \
                        or isinstance(value._ir_dtype, StructType):
                    return None
                slots.append(_ArraySlot(value))
            elif isinstance(ptype, Scalar):
                slots.append(_ScalarSlot(name, ptype, value, name in generic))
            elif isinstance(ptype, StructType) or name in generic:
                return None
            else:
                slots.append(_CompositeSlot(name, ptype))
        from .sim.fast import engine     # (numba loads with the first fast launch, not with simt)
        return BoundLauncher(kernel, options, slots, engine.BoundLaunch(fn, cfg), engine)

    def launch(self, values) -> FastLaunchResult | None:
        """Run the launch, or return None (nothing run) where an argument differs in type
        from those bound; a scalar's value is checked as the full path checks it."""
        slots = self.slots
        if len(values) != len(slots):
            return None
        data, scalars, shapes = [], [], []
        for slot, v in zip(slots, values):
            if type(slot) is _ArraySlot:
                if type(v) is not array or v._gpu is not None or v.ndim != slot.ndim \
                        or v._ir_dtype != slot.dtype:
                    return None
                buf = v._buffer
                if buf is None or not buf.flags.c_contiguous:
                    return None
                if v._unwritten is not None:   # a launch without initcheck counts as writing it
                    v._unwritten.clear()
                if slot.flatten:
                    buf = buf.reshape(-1)
                data.append(self.engine.storage_array(buf) if slot.half else buf)
                shapes.append(v.shape)
            elif type(slot) is _ScalarSlot:
                out = self._scalar(slot, v)
                if out is None:
                    return None
                scalars.append(out)
            else:
                scalars.extend(self.engine.storage_scalar(slot.scalar, c)
                               for c in convert_composite(self.kernel, slot.name, slot.type, v))
        self.bound.run(data, scalars, tuple(shapes))
        return FastLaunchResult(self.kernel.key, self.bound)

    def _scalar(self, slot: _ScalarSlot, v):
        t = type(v)
        if slot.generic_type is not None and t is not slot.generic_type:
            return None                    # a generic parameter typed otherwise: bind again
        if t is slot.exact:
            return v
        kind = slot.kind
        if t is int and kind == "int" and slot.lo <= v <= slot.hi:
            return slot.exact(v)
        if t is float and (kind == "f64" or kind == "f32" and -F32_SAFE < v < F32_SAFE):
            return slot.exact(v)
        # everything else as the full path converts it, raising its errors
        value = convert_scalar(self.kernel, slot.name, slot.type, v)
        return self.engine.storage_scalar(slot.type, value)
