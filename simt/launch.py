"""``simt.launch``: check a launch against the kernel and the hardware, then run an engine.

Every check happens before any thread runs and raises LaunchError naming the kernel, the
parameter and what was expected against what was given, so mistakes that CUDA reports as
"invalid argument" (or not at all) read as plain sentences here.
"""
from __future__ import annotations

import math
import warnings
from typing import Sequence

import numpy as np

from .arrays import array
from .devices import Device, engine_for, get_device
from .errors import DeviceError, LaunchError, LaunchWarning
from .ir import mir
from .ir.mir import Function, LaunchSig
from .ir.types import ArrayType, Scalar, StructType, ValueType, flat_count, is_generic, scalar_of
from .kernel import Kernel
from .launch_values import Bound, array_arguments, convert_struct, specialize
from .arch import Arch, ArchError, load_arch
from .options import DEFAULTS
from .sim.common import ArrayArg, LaunchConfig, LaunchResult


# ---- geometry --------------------------------------------------------------------------

def normalise_dim(dim, kernel_name: str = "") -> tuple[int, ...]:
    """``dim`` as a tuple of 1 to 4 non-negative ints (numpy order, last fastest), as in Warp."""
    where = f"kernel '{kernel_name}': " if kernel_name else ""
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        dims = (int(dim),)
    elif isinstance(dim, (tuple, list)) and all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                for d in dim):
        dims = tuple(int(d) for d in dim)
    else:
        raise LaunchError(f"{where}dim must be an int or a tuple of ints, got {dim!r}")
    if not 1 <= len(dims) <= 4:
        raise LaunchError(f"{where}dim must have 1 to 4 dimensions, got {len(dims)}: {dims}")
    if any(d < 0 for d in dims):
        raise LaunchError(f"{where}dim must not be negative, got {dims}")
    return dims


def launch_geometry(dims: tuple[int, ...], block_dim, kernel_name: str = "", arch: Arch | None = None) \
        -> tuple[LaunchSig, tuple[int, int, int], tuple[int, int, int]]:
    """(signature, block, grid) in CUDA x/y/z order, checked against ``arch``'s limits (the
    default architecture's when None).

    An int ``block_dim`` is Warp's linear mapping: blocks are chunks of the flattened index
    space. A tuple is an n-D grid whose last entry is CUDA's x, matching ``dim``.
    """
    where = f"kernel '{kernel_name}': "
    arch = arch or load_arch(DEFAULTS["arch"])
    if isinstance(block_dim, (int, np.integer)) and not isinstance(block_dim, bool):
        threads = int(block_dim)
        if threads <= 0:
            raise LaunchError(f"{where}block_dim must be positive, got {threads}")
        _check_block_size(where, threads, arch)
        total = math.prod(dims)
        block = (threads, 1, 1)
        grid = (max(1, -(-total // threads)) if total else 0, 1, 1)
        sig = LaunchSig(len(dims), 1)
    else:
        if not isinstance(block_dim, (tuple, list)) or not all(
                isinstance(b, (int, np.integer)) and not isinstance(b, bool) for b in block_dim):
            raise LaunchError(f"{where}block_dim must be an int or a tuple of ints, got {block_dim!r}")
        bd = tuple(int(b) for b in block_dim)
        if len(dims) > 3:
            raise LaunchError(f"{where}a {len(dims)}-d launch takes an int block_dim (blocks are "
                              f"chunks of the flattened index space); CUDA blocks have at most 3 "
                              f"dimensions, got block_dim {bd}")
        if len(bd) != len(dims):
            raise LaunchError(f"{where}block_dim {bd} has {len(bd)} dimensions but dim {dims} has "
                              f"{len(dims)}; give one block extent per launch dimension")
        if any(b <= 0 for b in bd):
            raise LaunchError(f"{where}block_dim extents must be positive, got {bd}")
        cuda_block = tuple(reversed(bd)) + (1,) * (3 - len(bd))
        cuda_dims = tuple(reversed(dims)) + (1,) * (3 - len(dims))
        _check_block_size(where, math.prod(bd), arch)
        for axis, (b, limit) in enumerate(zip(cuda_block, arch.max_block_dims)):
            if b > limit:
                raise LaunchError(f"{where}block_dim {bd} has {b} threads along CUDA's "
                                  f"{'xyz'[axis]} axis; the limit is {limit} on {arch.name}")
        block = (cuda_block[0], cuda_block[1], cuda_block[2])
        grid = tuple(-(-d // b) for d, b in zip(cuda_dims, cuda_block))
        sig = LaunchSig(len(dims), len(dims))
    for axis, (g, limit) in enumerate(zip(grid, arch.max_grid_dims)):
        if g > limit:
            raise LaunchError(f"{where}the grid needs {g} blocks along CUDA's {'xyz'[axis]} axis; "
                              f"the limit is {limit} on {arch.name} (use bigger blocks)")
    return sig, block, grid


def _check_block_size(where: str, threads: int, arch: Arch) -> None:
    limit = arch.max_threads_per_block
    if threads > limit:
        raise LaunchError(f"{where}a block of {threads} threads is over the limit of "
                          f"{limit} threads per block (max_threads_per_block of {arch.name})")


# ---- arguments -------------------------------------------------------------------------

def _describe(value) -> str:
    if isinstance(value, array):
        if value.is_annotation:
            return "an array annotation (simt.array(dtype=...)) instead of an array with data"
        return f"array({value._ir_dtype}, {value.ndim}d) on '{value.device}'"
    if isinstance(value, np.ndarray):
        return f"a numpy array of {value.dtype} with shape {value.shape}"
    return f"{type(value).__name__} {value!r}"


def _param_name(kernel: Kernel, name: str) -> str:
    return f"kernel '{kernel.key}', parameter '{name}'"


def check_array(kernel: Kernel, name: str, expected: ArrayType, value, device: Device) -> array:
    where = _param_name(kernel, name)
    if value is None:           # Warp's null array: no elements (any access is out of bounds)
        return array(shape=(0,) * expected.ndim, dtype=expected.dtype, device=device)
    if isinstance(value, np.ndarray):
        raise LaunchError(f"{where}: expected {expected}, got {_describe(value)}; "
                          f"wrap it with simt.array(...)")
    if not isinstance(value, array) or value.is_annotation:
        raise LaunchError(f"{where}: expected {expected}, got {_describe(value)}")
    if value._ir_dtype != expected.dtype:
        raise LaunchError(f"{where}: expected an array of {expected.dtype}, got an array of "
                          f"{value._ir_dtype}; convert it with simt.array(x, dtype=...)")
    if value.ndim != expected.ndim:
        raise LaunchError(f"{where}: expected a {expected.ndim}-d array, got a {value.ndim}-d array "
                          f"of shape {value.shape}")
    if value.device.memory_space != device.memory_space:
        raise LaunchError(f"{where}: the array is on '{value.device}' but the launch is on "
                          f"'{device}'; copy it with .to('{device}')")
    return value


def convert_scalar(kernel: Kernel, name: str, expected: Scalar, value) -> np.generic:
    """``value`` as a numpy scalar of ``expected``, if it represents exactly that kind of value."""
    where = _param_name(kernel, name)
    if isinstance(value, (array, list, tuple)) or (isinstance(value, np.ndarray) and value.ndim != 0):
        raise LaunchError(f"{where}: expected a {expected} scalar, got {_describe(value)}")
    if isinstance(value, np.ndarray):
        value = value[()]
    is_bool = isinstance(value, (bool, np.bool_))
    is_int = isinstance(value, (int, np.integer)) and not is_bool
    is_float = isinstance(value, (float, np.floating))
    if not (is_bool or is_int or is_float):
        raise LaunchError(f"{where}: expected a {expected} scalar, got {_describe(value)}")
    if expected is Scalar.BOOL:
        if is_float or (is_int and value not in (0, 1)):
            raise LaunchError(f"{where}: expected a bool, got {_describe(value)}")
        return np.bool_(bool(value))
    if expected is Scalar.BF16:                 # passed as its bits
        from .ir.bfloat16 import to_bits
        return np.uint16(to_bits(float(value)))
    if expected.is_float:
        try:
            with np.errstate(over="ignore"):
                out = expected.np.type(value)
        except OverflowError:
            out = expected.np.type(np.inf)
        if np.isinf(out) and not (is_float and np.isinf(value)):
            raise LaunchError(f"{where}: {value!r} is out of the range of {expected}")
        return out
    if is_float:
        raise LaunchError(f"{where}: expected {expected}, got {_describe(value)}; "
                          f"integer parameters take ints")
    info = np.iinfo(expected.np)
    if not info.min <= int(value) <= info.max:
        raise LaunchError(f"{where}: {int(value)} is out of the range of {expected} "
                          f"[{info.min}, {info.max}]")
    return expected.np.type(int(value))


def convert_composite(kernel: Kernel, name: str, expected: ValueType, value) -> list[np.generic]:
    """A vector/matrix/quaternion argument as its flattened (row-major) scalars."""
    where = _param_name(kernel, name)
    count = flat_count(expected)
    if isinstance(value, array) or not isinstance(value, (tuple, list, np.ndarray)):
        raise LaunchError(f"{where}: expected a {expected} (a tuple or numpy array of {count} "
                          f"numbers), got {_describe(value)}")
    try:
        flat = np.asarray(value).reshape(-1)
    except ValueError:
        flat = np.empty(0)
    if flat.size != count or flat.dtype == object:
        raise LaunchError(f"{where}: expected a {expected} of {count} numbers, got {_describe(value)}")
    scalar = scalar_of(expected)
    return [convert_scalar(kernel, f"{name}[{i}]", scalar, v.item()) for i, v in enumerate(flat)]


def bind_arguments(kernel: Kernel, values: Sequence, device: Device) -> list[tuple[str, object, object]]:
    """Check each argument against its parameter: (name, IR type, converted value) per parameter."""
    params = kernel.params
    if len(values) != len(params):
        names = ", ".join(n for n, _ in params)
        raise LaunchError(f"kernel '{kernel.key}' takes {len(params)} arguments ({names}), "
                          f"got {len(values)} (inputs + outputs)")
    bound = []
    for (name, ptype), value in zip(params, values):
        if is_generic(ptype):
            ptype = specialize(kernel.key, name, ptype, value)
        if isinstance(ptype, StructType):
            bound.append((name, ptype, convert_struct(kernel.key, name, ptype, value, device)))
        elif isinstance(ptype, ArrayType):
            bound.append((name, ptype, check_array(kernel, name, ptype, value, device)))
        elif isinstance(ptype, Scalar):
            bound.append((name, ptype, [convert_scalar(kernel, name, ptype, value)]))
        else:
            bound.append((name, ptype, convert_composite(kernel, name, ptype, value)))
    return bound


def engine_arguments(kernel: Kernel, fn: Function, bound) -> list:
    """Arguments aligned with ``fn.params``: composites occupy consecutive scalar params."""
    args = Bound()       # and what to do after the launch (arrays of structs)
    for name, ptype, value in bound:
        if isinstance(ptype, ArrayType):
            args.extend_bound(array_arguments(name, value))
        elif isinstance(value, Bound):
            args.extend_bound(value)
        else:
            args.extend(value)
    if len(args) != len(fn.params):
        raise LaunchError(f"kernel '{kernel.key}': internal error, {len(args)} arguments for "
                          f"{len(fn.params)} compiled parameters")
    for p, a in zip(fn.params, args):
        if isinstance(p, mir.ArrayParam) != isinstance(a, ArrayArg):
            raise LaunchError(f"kernel '{kernel.key}': internal error, parameter '{p.name}' "
                              f"does not match argument {a!r}")
    return args


# ---- checks needing the compiled kernel ---------------------------------------------------

def check_index_dims(kernel: Kernel, sig: LaunchSig, dims: tuple[int, ...], block) -> None:
    """What the kernel unpacks from tid()/thread_idx()... must fit the launch's dimensions."""
    tid_ndim, thread_idx_ndim = kernel.index_dims   # tid() may unpack more or fewer (Warp pads or drops)
    if thread_idx_ndim and thread_idx_ndim != sig.block_ndim:
        queries = "thread_idx()/block_idx()/block_dim()/grid_dim()"
        shape = "an int block_dim" if sig.block_ndim == 1 else f"the {sig.block_ndim}-d block_dim {block}"
        if thread_idx_ndim > 1:
            advice = f"give block_dim as a {thread_idx_ndim}-tuple matching dim"
        else:
            advice = f"there they return {sig.block_ndim} values: unpack them or use an int block_dim"
        raise LaunchError(f"kernel '{kernel.key}' unpacks {thread_idx_ndim} value(s) from {queries} "
                          f"but is launched with {shape}; {advice}")


def check_shared_memory(kernel: Kernel, fn: Function, arch: Arch) -> None:
    limit = arch.static_shared_per_block
    if fn.shared_bytes > limit:
        raise LaunchError(f"kernel '{kernel.key}' declares {fn.shared_bytes} bytes of shared memory; "
                          f"the static limit per block on {arch.name} is {limit} bytes "
                          f"({limit / 1024:g} KB, static_shared_per_block)")
    per_block = arch.shared_per_block(fn.shared_bytes)
    if per_block > arch.shared_per_sm:
        raise LaunchError(f"kernel '{kernel.key}' declares {fn.shared_bytes} bytes of shared memory: "
                          f"with the {arch.reserved_shared_per_block} bytes reserved per block, "
                          f"{per_block} bytes, more than the {arch.shared_per_sm} bytes of shared "
                          f"memory an SM of {arch.name} has (shared_per_sm)")


# ---- launch ----------------------------------------------------------------------------

_launch_counter = iter(range(1 << 62))
_used_trace_paths: dict[str, int] = {}


def _default_trace_path(template: str, kernel: str) -> str:
    """The module option's trace path; later launches get .1, .2, ... before the extension."""
    path = template.replace("{kernel}", kernel)
    n = _used_trace_paths.get(path, 0)
    _used_trace_paths[path] = n + 1
    if n == 0:
        return path
    import os
    folder, name = os.path.split(path)
    stem, dot, ext = name.partition(".")
    return os.path.join(folder, f"{stem}.{n}{dot}{ext}")


def _trace_options(kernel: Kernel, trace, options: dict | None):
    from .sim.trace import TraceOptions
    if trace is None:
        raise LaunchError(f"kernel '{kernel.key}': device 'cpu:trace' needs a file to write: "
                          f"simt.launch(..., device='cpu:trace', trace='run.jsonl')")
    known = {"memory_only", "blocks", "warps", "max_records"}
    options = dict(options or {})
    unknown = set(options) - known
    if unknown:
        raise LaunchError(f"kernel '{kernel.key}': unknown trace option(s) {sorted(unknown)}; "
                          f"known: {sorted(known)}")
    for key in ("blocks", "warps"):
        if options.get(key) is not None:
            options[key] = tuple(int(x) for x in options[key])
    return TraceOptions(str(trace), launch=next(_launch_counter), **options)


def check_warp_only_arguments(kernel: Kernel, adj_inputs, adj_outputs, stream, record_cmd,
                              max_blocks) -> None:
    """Warp's launch arguments that simt has no machinery for: refuse those whose meaning
    would be lost (a stream, a recorded command), warn about those whose results would not
    change (a block cap, adjoint arrays). ``record_tape`` needs nothing: simt has no Tape,
    so no tape is ever recording, which is what Warp's default assumes too."""
    where = f"kernel '{kernel.key}'"
    if record_cmd:
        raise LaunchError(f"{where}: record_cmd=True (Warp's Launch object, run later with "
                          f".launch()) is not supported: simt runs the kernel when simt.launch is "
                          f"called; call simt.launch where the command would be launched")
    if stream is not None:
        raise LaunchError(f"{where}: stream={stream!r} is not supported: simt has no streams and "
                          f"runs each launch to completion in call order; pass device= instead")
    if isinstance(max_blocks, bool) or not isinstance(max_blocks, (int, np.integer)):
        raise LaunchError(f"{where}: max_blocks must be an int, got {max_blocks!r}")
    if max_blocks > 0:
        warnings.warn(f"simt: {where}: max_blocks={int(max_blocks)} is not honoured: simt runs one "
                      f"thread per launch index, not a grid-stride loop over {int(max_blocks)} "
                      f"blocks; results agree for kernels whose threads do not depend on each "
                      f"other, but the metrics and predicted cycles are for the uncapped grid",
                      LaunchWarning, stacklevel=3)
    for name, value in (("adj_inputs", adj_inputs), ("adj_outputs", adj_outputs)):
        if value is not None and len(value):
            warnings.warn(f"simt: {where}: {name} are not used: simt has no automatic "
                          f"differentiation (a forward launch does not read them in Warp either)",
                          LaunchWarning, stacklevel=3)


def launch(kernel, dim=None, inputs: Sequence = (), outputs: Sequence = (), adj_inputs: Sequence = (),
           adj_outputs: Sequence = (), device=None, stream=None, adjoint: bool = False,
           record_tape: bool = True, record_cmd: bool = False, max_blocks: int = 0,
           block_dim=256, arch: str | None = None, max_steps: int | None = None,
           trace=None, trace_options: dict | None = None, check=None,
           raise_on_hazard: bool | None = None, grid=None, block=None) -> LaunchResult:
    """Run ``kernel`` over ``dim`` threads; ``outputs`` are appended to ``inputs`` (as in Warp).

    ``trace="run.jsonl"`` (device ``cpu:trace``) records every warp instruction; trace_options:
    ``memory_only``, ``blocks``, ``warps``, ``max_records`` (see traces/README.md).
    ``check="race" | "init" | "sync" | "all" | [...]`` runs sanitizers (on the precise engine)
    and returns their reports in ``result.hazards``; ``raise_on_hazard=True`` raises
    HazardError instead (see docs/checks/README.md). Of Warp's own arguments, ``stream`` and
    ``record_cmd=True`` are refused and ``max_blocks > 0``, ``adj_inputs`` and ``adj_outputs``
    warn (LaunchWarning): see check_warp_only_arguments. Kernels imported from PTX
    (simt.from_ptx, simt.from_cuda) also take CUDA's ``grid=`` and ``block=`` (x first)."""
    from .ptx_import.kernel import ImportedKernel, launch_imported
    if isinstance(kernel, ImportedKernel):
        return launch_imported(kernel, dim, inputs, outputs, device, block_dim, grid, block, arch,
                               max_steps, trace, trace_options, check)
    if grid is not None or block is not None:
        raise LaunchError("grid= and block= launch kernels imported from PTX; @simt.kernel "
                          "kernels take dim= and block_dim=")
    if dim is None:
        raise LaunchError("simt.launch needs dim= (the number of threads, or a tuple of extents)")
    if not isinstance(kernel, Kernel):
        raise LaunchError(f"simt.launch expects a @simt.kernel, got {kernel!r}")
    if adjoint:
        raise LaunchError(f"kernel '{kernel.key}': adjoint launches (automatic differentiation) "
                          f"are not supported")
    check_warp_only_arguments(kernel, adj_inputs, adj_outputs, stream, record_cmd, max_blocks)
    try:
        dev = get_device(device)
        run_engine = engine_for(dev)
    except DeviceError as e:
        raise LaunchError(f"kernel '{kernel.key}': {e}") from None
    opts = kernel.effective_options()
    arch = arch or opts["arch"]
    try:
        machine = load_arch(arch)
    except ArchError as e:
        raise LaunchError(f"kernel '{kernel.key}': {e}") from None
    arch = machine.name          # a file's absolute path: the engines load the same file
    from .sim.check import launching as checking
    check_plan = checking.plan(kernel.key, dev, check, raise_on_hazard, opts)
    run_engine = checking.engine(dev, run_engine, check_plan.checks)
    steps = opts["max_steps"] if max_steps is None else max_steps
    if isinstance(steps, bool) or not isinstance(steps, int) or steps <= 0:
        raise LaunchError(f"kernel '{kernel.key}': max_steps must be a positive int, got {steps!r}")
    dims = normalise_dim(dim, kernel.key)
    sig, block, grid = launch_geometry(dims, 256 if block_dim is None else block_dim, kernel.key, machine)
    bound = bind_arguments(kernel, list(inputs or ()) + list(outputs or ()), dev)   # None: none, as in Warp

    check_index_dims(kernel, sig, dims, block_dim)
    fn = kernel.compile(sig, opts["debug"], opts["fastmath"], tuple(t for _, t, _ in bound))
    check_shared_memory(kernel, fn, machine)
    args = engine_arguments(kernel, fn, bound)
    checking.attach_arrays(check_plan.checks, args.arrays)
    if math.prod(dims) == 0:
        return LaunchResult(kernel.key, str(dev), {})
    cfg = LaunchConfig(dim=dims, block=block, grid=grid, sig=sig, arch=arch, max_steps=steps,
                       timing=bool(opts.get("timing", True)),
                       timing_sample=bool(opts.get("timing_sample", True)),
                       timing_sass=bool(opts.get("timing_sass", True)), progress=bool(opts.get("progress")),
                       checks=check_plan.checks)
    if str(dev) == "cpu:trace":
        if trace is None and opts.get("trace"):      # e.g. `simt run --trace out.jsonl FILE`
            trace = _default_trace_path(opts["trace"], kernel.key)
        metrics = run_engine(fn, cfg, args, trace=_trace_options(kernel, trace, trace_options))
    elif trace is not None or trace_options:
        raise LaunchError(f"kernel '{kernel.key}': trace= records on device 'cpu:trace', not '{dev}'")
    else:
        metrics = run_engine(fn, cfg, args)
    for write_back in args.write_backs:
        write_back()
    result = LaunchResult(kernel.key, str(dev), dict(metrics), getattr(metrics, "details", {}))
    checking.finish(kernel.key, result, check_plan, args.arrays)
    return result
