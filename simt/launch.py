"""``simt.launch``: check a launch against the kernel and the hardware, then run an engine.

Every check happens before any thread runs and raises LaunchError naming the kernel, the
parameter and what was expected against what was given, so mistakes that CUDA reports as
"invalid argument" (or not at all) read as plain sentences here.
"""
from __future__ import annotations

import copy
import math
import warnings
from typing import Sequence

import numpy as np

from .devices import Device, engine_for, get_device
from .errors import DeviceError, LaunchError, LaunchWarning
from .ir import mir
from .ir.mir import Function, LaunchSig
from .ir.types import ArrayType, Scalar, StructType, is_generic
from .kernel import Kernel
from .arch import Arch, ArchError, load_arch
from .launch_bound import MAX_LAUNCHERS, MAX_PER_KEY, BoundLauncher, launch_key
from .launch_values import (Bound, array_arguments, check_array, convert_composite,
                            convert_scalar, convert_struct, specialize)
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


def run_on_device(dev, run_engine, kernel, fn, cfg, args, trace, trace_options, opts):
    """Run the engine of ``dev``: on cpu:trace with the trace's options (the module option's
    path when ``trace`` is not given); a trace asked of another device is a LaunchError."""
    if str(dev) == "cpu:trace":
        if trace is None and opts.get("trace"):      # e.g. `simt run --trace out.jsonl FILE`
            trace = _default_trace_path(opts["trace"], kernel.key)
        return run_engine(fn, cfg, args, trace=_trace_options(kernel, trace, trace_options))
    if trace is not None or trace_options:
        raise LaunchError(f"kernel '{kernel.key}': trace= records on device 'cpu:trace', not '{dev}'")
    return run_engine(fn, cfg, args)


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


_IMPORTED: tuple = ()


def _imported() -> tuple:
    """(ImportedKernel, launch_imported), imported on first use (simt.ptx_import loads the PTX
    front end) and kept, off the repeat launch's path."""
    global _IMPORTED
    if not _IMPORTED:
        from .ptx_import.kernel import ImportedKernel, launch_imported
        _IMPORTED = (ImportedKernel, launch_imported)
    return _IMPORTED


def launch(kernel, dim=None, inputs: Sequence = (), outputs: Sequence = (), adj_inputs: Sequence = (),
           adj_outputs: Sequence = (), device=None, stream=None, adjoint: bool = False,
           record_tape: bool = True, record_cmd: bool = False, max_blocks: int = 0,
           block_dim=256, arch: str | None = None, max_steps: int | None = None,
           trace=None, trace_options: dict | None = None, check=None,
           raise_on_hazard: bool | None = None, grid=None, block=None,
           shared_bytes: int = 0) -> LaunchResult:
    """Run ``kernel`` over ``dim`` threads; ``outputs`` are appended to ``inputs`` (as in Warp).

    ``trace="run.jsonl"`` (device ``cpu:trace``) records every warp instruction; trace_options:
    ``memory_only``, ``blocks``, ``warps``, ``max_records`` (see traces/README.md).
    ``check="race" | "init" | "sync" | "all" | [...]`` runs sanitizers (on the precise engine)
    and returns their reports in ``result.hazards``; ``raise_on_hazard=True`` raises
    HazardError instead (see docs/checks/README.md). Of Warp's own arguments, ``stream`` and
    ``record_cmd=True`` are refused and ``max_blocks > 0``, ``adj_inputs`` and ``adj_outputs``
    warn (LaunchWarning): see check_warp_only_arguments. Kernels imported from PTX
    (simt.from_ptx, simt.from_cuda) also take CUDA's ``grid=`` and ``block=`` (x first), and
    ``shared_bytes=`` (dynamic shared memory per block, for ``extern __shared__`` arrays)."""
    if not isinstance(kernel, Kernel):
        imported, launch_imported = _imported()
        if isinstance(kernel, imported):
            return launch_imported(kernel, dim, inputs, outputs, device, block_dim, grid, block, arch,
                                   max_steps, trace, trace_options, check, raise_on_hazard,
                                   shared_bytes)
    if grid is not None or block is not None:
        raise LaunchError("grid= and block= launch kernels imported from PTX; @simt.kernel "
                          "kernels take dim= and block_dim=")
    if shared_bytes:
        raise LaunchError("shared_bytes= sizes the dynamic shared memory of kernels imported from "
                          "PTX; a @simt.kernel declares its shared arrays (simt.tile/shared)")
    if dim is None:
        raise LaunchError("simt.launch needs dim= (the number of threads, or a tuple of extents)")
    if not isinstance(kernel, Kernel):
        raise LaunchError(f"simt.launch expects a @simt.kernel, got {kernel!r}")
    repeat = _repeat_key(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device, stream,
                         adjoint, record_cmd, max_blocks, block_dim, arch, max_steps, trace,
                         trace_options, check, raise_on_hazard)
    if repeat is not None:
        result = _launch_bound(kernel, repeat, inputs, outputs)
        if result is not None:
            return result
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
    metrics = run_on_device(dev, run_engine, kernel, fn, cfg, args, trace, trace_options, opts)
    for write_back in args.write_backs:
        write_back()
    result = LaunchResult(kernel.key, str(dev), dict(metrics), getattr(metrics, "details", {}))
    checking.finish(kernel.key, result, check_plan, args.arrays)
    if repeat is not None and str(dev) == "cpu" and not check_plan.checks and not args.write_backs:
        _keep_launcher(kernel, repeat, list(inputs) + list(outputs), bound, fn, cfg)
    return result


# ---- repeat launches ---------------------------------------------------------------------

def _repeat_key(kernel: Kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device, stream,
                adjoint, record_cmd, max_blocks, block_dim, arch, max_steps, trace, trace_options,
                check, raise_on_hazard):
    """The key of a launch a BoundLauncher may run (launch_bound.py), or None for a launch
    that needs the full path every time (Warp-only arguments, traces, odd argument types)."""
    if adjoint is not False or record_cmd is not False or stream is not None or trace is not None \
            or trace_options is not None or type(max_blocks) is not int or max_blocks != 0:
        return None
    for extra in (adj_inputs, adj_outputs):
        if not (extra is None or type(extra) in (tuple, list) and not extra):
            return None
    if type(inputs) not in (tuple, list) or type(outputs) not in (tuple, list):
        return None
    key = launch_key(dim, block_dim, device, arch, max_steps, check, raise_on_hazard)
    return None if key is None else (key, kernel.options_inputs())


def _launch_bound(kernel: Kernel, repeat, inputs, outputs):
    """Run a launch with a launcher bound by an earlier one, or None (nothing run)."""
    key, options = repeat
    launchers = kernel._launchers.get(key)
    if not launchers:
        return None
    values = inputs if not outputs else [*inputs, *outputs]
    for launcher in launchers:
        if launcher.options == options:
            result = launcher.launch(values)
            if result is not None:
                return result
    return None


def _keep_launcher(kernel: Kernel, repeat, values, bound, fn, cfg) -> None:
    key, options = repeat
    launcher = BoundLauncher.build(kernel, copy.deepcopy(options), values, bound, fn, cfg)
    if launcher is None:
        return
    if len(kernel._launchers) >= MAX_LAUNCHERS:
        kernel._launchers.clear()
    kernel._launchers[key] = [launcher] + kernel._launchers.get(key, [])[:MAX_PER_KEY - 1]
