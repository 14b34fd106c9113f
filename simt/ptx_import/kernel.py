"""``simt.from_ptx`` and ``simt.from_cuda``: kernels imported from PTX, and their launches.

An imported kernel is compiled to MIR per set of pointer parameters (and size of dynamic
shared memory): a ``.u64`` parameter is a pointer when the launch passes a simt array for it
(its device address), a value when it passes a number. The MIR runs on every CPU engine
(cpu, cpu:precise, cpu:trace, and check= sanitizers); on ``cuda`` the PTX itself is loaded
and launched (simt/gpu/runtime.py: run_ptx).
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

from ..errors import CompileError, LaunchError, SimtError
from ..ir.mir import Function, LaunchSig
from ..ir.types import Scalar
from . import parser as P
from .lower import TYPES, lower
from .repeat import MAX_LAUNCHERS, ImportedLauncher, launch_again, launch_key



class ImportedKernel:
    """A kernel read from PTX: launch it with ``simt.launch`` like any kernel."""

    def __init__(self, module: P.Module, entry: P.Entry, name: str):
        self.module, self.entry = module, entry
        self.key = name                       # the name errors and results use
        self.ptx_name = entry.name
        self._compiled: dict[tuple, Function] = {}
        self.source_names: list[str] | None = None   # parameter names in the CUDA source

    @property
    def params(self) -> list[tuple[str, str]]:
        """(PTX name, PTX type) of each parameter, in order."""
        return [(p.name, p.type) for p in self.entry.params]

    def compile(self, pointer_params: frozenset[str] = frozenset(), shared_bytes: int = 0) -> Function:
        """The MIR with ``pointer_params`` bound to arrays and ``shared_bytes`` of dynamic
        shared memory (where the module declares ``extern __shared__`` arrays)."""
        if not self.has_dynamic_shared:
            shared_bytes = 0
        elif not shared_bytes and self.dynamic_shared_bytes is not None:
            shared_bytes = self.dynamic_shared_bytes      # the front end's (Triton's metadata)
        key = (pointer_params, shared_bytes)
        fn = self._compiled.get(key)
        if fn is None:
            fn = self._compiled[key] = lower(self.module, self._sized_entry(shared_bytes), self.key,
                                             pointer_params)
            # the SASS the GPU runs is ptxas's of this PTX: the timing model's replay reads it
            fn.__dict__["source_ptx"] = (self.module.text, self.entry.name)
        return fn

    dynamic_shared_bytes: int | None = None     # set by front ends that know it (Triton)

    @property
    def has_dynamic_shared(self) -> bool:
        """Whether the kernel uses dynamic shared memory (``.extern .shared x[]``)."""
        return any(v.dynamic for v in self.entry.shared)

    def _sized_entry(self, nbytes: int) -> P.Entry:
        """The entry with its dynamic shared arrays given ``nbytes`` (the launch's
        ``shared_bytes=``; accesses past it are out of bounds, as too small a size is in CUDA)."""
        if not self.has_dynamic_shared:
            return self.entry
        import dataclasses
        shared = [dataclasses.replace(v, nbytes=nbytes) if v.dynamic else v for v in self.entry.shared]
        return dataclasses.replace(self.entry, shared=shared)

    def variable_array(self, name: str):
        """The data of a module-level variable: made once per module, shared by its kernels and
        kept across launches (as a CUDA module's __device__ variables are)."""
        arrays = self.module.__dict__.setdefault("_variable_arrays", {})   # one per module
        if name not in arrays:
            from ..arrays import array
            data = np.frombuffer(self.module.variables[name].data, dtype=np.uint8).copy()
            arrays[name] = array(data, dtype=Scalar.U8.np.type)
        return arrays[name]

    def mir(self, pointer_params=None) -> str:
        """The printed MIR, with every .u64 parameter a pointer unless told otherwise."""
        from ..ir.printer import format_function
        if pointer_params is None:
            pointer_params = [n for n, t in self.params if t in ("u64", "b64", "s64")]
        return format_function(self.compile(frozenset(pointer_params)))

    def prepare_launch(self, values: list, grid, block):
        """The PTX parameters' values and the CUDA geometry for the arguments a user gave:
        the same here; front ends whose compilers add parameters (Numba's array ABI, Triton's
        scratch pointers) or fix the block override it."""
        return values, grid, block

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"kernel '{self.key}' cannot be called directly; launch it with "
                          f"simt.launch(k, grid=..., block=..., inputs=[...])")

    def __repr__(self) -> str:
        return f"<simt kernel {self.key} (imported from PTX)>"


# --- reading PTX and compiling CUDA -------------------------------------------------------

def from_ptx(ptx: str | os.PathLike, name: str) -> ImportedKernel:
    """The kernel ``name`` of a PTX module (text, or a path to a .ptx file). ``name`` is the
    entry's name: its C++ name as written (``"scale<4>"``), or its ``extern "C"``/mangled name."""
    text, path = _text_or_file(ptx, ".ptx")
    module = _module(text, path)
    return ImportedKernel(module, _find_entry(module, name), name)


_MODULES: dict[tuple[str, str], P.Module] = {}
_PTX_OF_CUDA: dict[tuple, str] = {}


def _module(text: str, path: str) -> P.Module:
    """The parsed module of a PTX text, read once: kernels imported from one module share it,
    and with it its __device__ variables, as kernels of one CUDA program do."""
    import hashlib
    key = (hashlib.sha1(text.encode()).hexdigest(), path)
    module = _MODULES.get(key)
    if module is None:
        module = _MODULES[key] = P.parse(text, path)
        module.__dict__["text"] = text        # what the cuda engine loads
    return module


def from_cuda(source: str | os.PathLike, name: str, options=(), arch: str = "sm_90") -> ImportedKernel:
    """Compile CUDA C (source text, or a path to a .cu file) with ``nvcc -ptx -O3 -lineinfo``
    and import the kernel ``name`` (as for from_ptx)."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise SimtError("simt.from_cuda needs nvcc (the CUDA toolkit's compiler) on PATH to turn "
                        "CUDA C into PTX; install the CUDA toolkit, or compile with "
                        "`nvcc -ptx -O3 -lineinfo` elsewhere and use simt.from_ptx")
    text, path = _text_or_file(source, ".cu")
    if path == "<source>":       # kept where the line table can point at it: r.lines shows the text
        import hashlib
        folder = os.path.join(tempfile.gettempdir(), "simt-cuda")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, hashlib.sha1(text.encode()).hexdigest()[:16] + ".cu")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(text)
    cmd = [nvcc, "-ptx", "-O3", f"-arch={arch}", "-lineinfo", *map(str, options), path]
    key = (text, *cmd)                # one nvcc run per source, options and target
    ptx = _PTX_OF_CUDA.get(key)
    if ptx is None:
        with tempfile.TemporaryDirectory(prefix="simt-cuda-") as tmp:
            out = os.path.join(tmp, "kernel.ptx")
            proc = subprocess.run([*cmd, "-o", out], capture_output=True, text=True)
            if proc.returncode != 0:
                raise CompileError(f"nvcc failed on {path}:\n{proc.stderr.strip()}")
            with open(out) as f:
                ptx = _PTX_OF_CUDA[key] = f.read()
    module = _module(ptx, path + ".ptx")
    kernel = ImportedKernel(module, _find_entry(module, name), name)
    kernel.source_names = _source_parameter_names(text, name, len(kernel.entry.params))
    return kernel


def _source_parameter_names(source: str, name: str, count: int) -> list[str] | None:
    """The kernel's parameter names as the CUDA source spells them (for error messages),
    when its definition can be found: ``__global__ void name(...)`` with ``count`` parameters."""
    base = re.escape(name.split("<")[0].split("::")[-1])
    for m in re.finditer(r"__global__[^;{(]*?\b" + base + r"\s*\(([^)]*)\)\s*\{", source):
        params = [p.strip() for p in m.group(1).split(",") if p.strip()]
        names = [re.findall(r"[A-Za-z_]\w*", re.sub(r"\[.*?\]", "", p))[-1:] for p in params]
        if len(names) == count and all(names):
            return [n[0] for n in names]
    return None


def _text_or_file(x, suffix: str) -> tuple[str, str]:
    if isinstance(x, os.PathLike) or (isinstance(x, str) and "\n" not in x and x.endswith(suffix)):
        path = os.fspath(x)
        if not os.path.exists(path):
            raise SimtError(f"no such file: {path}")
        with open(path) as f:
            return f.read(), os.path.abspath(path)
    return str(x), "<source>" if suffix == ".cu" else "<ptx>"


def _find_entry(module: P.Module, name: str) -> P.Entry:
    if name in module.entries:
        return module.entries[name]
    demangled = _demangle(list(module.entries))
    hits = [module.entries[m] for m, d in demangled.items() if _plain_name(d) == name.replace(" ", "")]
    if len(hits) == 1:
        return hits[0]
    names = ", ".join(f"{_plain_name(d)!r}" for d in demangled.values()) or "none"
    if len(hits) > 1:
        raise CompileError(f"kernel name {name!r} matches {len(hits)} entries of the PTX module; "
                           f"give the mangled name")
    raise CompileError(f"the PTX module has no kernel {name!r}; its kernels: {names}")


def _demangle(names: list[str]) -> dict[str, str]:
    tool = shutil.which("cu++filt") or shutil.which("c++filt")
    if tool is None or not names:
        return {n: n for n in names}
    proc = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True)
    out = proc.stdout.split("\n")
    return {n: (out[i] if i < len(out) and out[i] else n) for i, n in enumerate(names)}


def _plain_name(demangled: str) -> str:
    """'void scale<4>(float*, int)' -> 'scale<4>'."""
    s = demangled
    depth, cut = 0, len(s)
    for i, ch in enumerate(s):            # the parameter list: the first '(' outside <...>
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            cut = i
            break
    s = s[:cut]
    s = re.sub(r"^(void|__global__)\s+", "", s)
    # cu++filt writes some integer template arguments with their type: 'f<(int)0>' is 'f<0>'
    s = re.sub(r"\((?:unsigned |signed )?(?:char|short|int|long|long long|unsigned)\)(-?\d+)", r"\1", s)
    return s.replace(" ", "")


# --- launching ----------------------------------------------------------------------------

def launch_imported(kernel: ImportedKernel, dim, inputs, outputs, device, block_dim, grid, block,
                    arch, max_steps, trace, trace_options, check, raise_on_hazard=None,
                    shared_bytes=0):
    """``simt.launch`` of an imported kernel (called from simt/launch.py). ``shared_bytes``:
    the dynamic shared memory per block (CUDA's third launch parameter, for ``extern
    __shared__`` arrays)."""
    repeat = launch_key(dim, block_dim, grid, block, device, arch, max_steps, trace, trace_options,
                        check, raise_on_hazard, shared_bytes)
    if repeat is not None:           # a launch like an earlier one: bind only the arguments
        result = launch_again(kernel, repeat, list(inputs or ()) + list(outputs or ()), grid, block)
        if result is not None:
            return result
    from ..arrays import array
    from ..devices import engine_for, get_device
    from ..errors import DeviceError
    from ..arch import ArchError, load_arch
    from ..launch import (_check_block_size, check_shared_memory, convert_scalar, launch_geometry,
                          normalise_dim, run_on_device)
    from ..launch_values import array_arguments
    from ..options import get_module_options
    from ..sim.common import LaunchConfig, LaunchResult
    where = f"kernel '{kernel.key}'"
    values, grid, block = kernel.prepare_launch(list(inputs or ()) + list(outputs or ()), grid, block)
    try:
        dev = get_device(device)
    except DeviceError as e:
        raise LaunchError(f"{where}: {e}") from None
    if isinstance(shared_bytes, bool) or not isinstance(shared_bytes, (int, np.integer)) \
            or shared_bytes < 0:
        raise LaunchError(f"{where}: shared_bytes must be a non-negative int (bytes of dynamic "
                          f"shared memory per block), got {shared_bytes!r}")
    shared_bytes = int(shared_bytes)
    if shared_bytes and not kernel.has_dynamic_shared:
        raise LaunchError(f"{where}: shared_bytes={shared_bytes}, but the kernel's module declares "
                          f"no dynamic shared memory (extern __shared__ arrays)")
    opts = get_module_options()
    from ..sim.check import launching as checking
    check_plan = checking.plan(kernel.key, dev, check, raise_on_hazard, opts)
    try:
        run_engine = engine_for(dev)
    except DeviceError as e:
        raise LaunchError(f"{where}: {e}") from None
    run_engine = checking.engine(dev, run_engine, check_plan.checks)
    try:
        machine = load_arch(arch or opts["arch"])
    except ArchError as e:
        raise LaunchError(f"{where}: {e}") from None
    arch = machine.name
    steps = opts["max_steps"] if max_steps is None else max_steps
    # geometry: CUDA's grid=/block= (x first), or simt's dim=/block_dim=
    if grid is not None or block is not None:
        if dim is not None:
            raise LaunchError(f"{where}: give grid= and block= (CUDA style) or dim= and block_dim=, not both")
        if grid is None or block is None:
            raise LaunchError(f"{where}: grid= and block= go together")
        g, b = _xyz(where, "grid", grid), _xyz(where, "block", block)
        _check_block_size(f"{where}: ", math.prod(b), machine)
        for axis in range(3):
            if b[axis] > machine.max_block_dims[axis]:
                raise LaunchError(f"{where}: block {b} has {b[axis]} threads along {'xyz'[axis]}; "
                                  f"the limit is {machine.max_block_dims[axis]} on {arch}")
            if g[axis] > machine.max_grid_dims[axis]:
                raise LaunchError(f"{where}: grid {g} has {g[axis]} blocks along {'xyz'[axis]}; "
                                  f"the limit is {machine.max_grid_dims[axis]} on {arch}")
        nd = 3 if (g[2] > 1 or b[2] > 1) else 2 if (g[1] > 1 or b[1] > 1) else 1
        dims = tuple(g[k] * b[k] for k in range(nd))[::-1]
        sig = LaunchSig(nd, nd)
        cuda_block, cuda_grid = b, g
    else:
        if dim is None:
            raise LaunchError(f"{where}: give grid= and block= (CUDA style) or dim= and block_dim=")
        dims = normalise_dim(dim, kernel.key)
        sig, cuda_block, cuda_grid = launch_geometry(dims, 256 if block_dim is None else block_dim,
                                                     kernel.key, machine)
    params = kernel.entry.params
    if len(values) != len(params):
        names = kernel.source_names or [p.name for p in params]
        raise LaunchError(f"{where} takes {len(params)} arguments "
                          f"({', '.join(f'{n}: .{p.type}' for n, p in zip(names, params))}), "
                          f"got {len(values)}")
    pointers, bound, arrays = set(), [], []
    for k, (p, v) in enumerate(zip(params, values)):
        cname = f"'{kernel.source_names[k]}' " if kernel.source_names else ""
        label = f"parameter {k} {cname}({p.name}, .{p.type})"
        if isinstance(v, array):
            if p.type not in ("u64", "b64", "s64"):
                raise LaunchError(f"{where}, {label}: got an array, but the parameter is not a "
                                  f"64-bit pointer")
            if v.is_annotation:
                raise LaunchError(f"{where}, {label}: got an array annotation, not an array with data")
            if v.device.memory_space != dev.memory_space:
                raise LaunchError(f"{where}, {label}: the array is on '{v.device}', the launch on '{dev}'")
            if not isinstance(v._ir_dtype, Scalar):
                raise LaunchError(f"{where}, {label}: arrays of structs are not supported for "
                                  f"imported kernels")
            pointers.add(p.name)
            arrays.append(v)
            bound.append(("array", v if dev.is_cuda else array_arguments(p.name, v)))
        else:
            t = TYPES[p.type] if p.type in TYPES else None
            if t is None:
                raise LaunchError(f"{where}, {label}: parameters of this type are not supported")
            if isinstance(v, np.ndarray) and v.ndim:
                raise LaunchError(f"{where}, {label}: got a numpy array; wrap it with simt.array(...) "
                                  f"to pass its address")
            try:
                bound.append(("value", convert_scalar(kernel, p.name, t, v)))
            except LaunchError as e:
                raise LaunchError(f"{where}, {label}: {str(e).split(': ', 1)[-1]}") from None
    if math.prod(dims) == 0:
        return LaunchResult(kernel.key, str(dev), {})
    if dev.is_cuda:
        return _launch_cuda(kernel, dev, machine, cuda_grid, cuda_block, bound, arrays, shared_bytes)
    fn = kernel.compile(frozenset(pointers), shared_bytes)
    for p in fn.params[len(params):]:           # module-level variables the kernel reaches
        bound.append(("array", array_arguments(p.name, kernel.variable_array(p.name))))
    check_shared_memory(kernel, fn, machine)
    args, views = [], []
    for kind, b in bound:
        if kind == "array":
            args.extend(b)
            views.extend(b.arrays)
        else:
            args.append(b)
    checking.attach_arrays(check_plan.checks, views)
    cfg = LaunchConfig(dim=dims, block=tuple(cuda_block), grid=tuple(cuda_grid), sig=sig, arch=arch,
                       max_steps=steps, timing=bool(opts.get("timing", True)),
                       timing_sample=bool(opts.get("timing_sample", True)),
                       timing_sass=bool(opts.get("timing_sass", True)), progress=bool(opts.get("progress")),
                       checks=check_plan.checks)
    metrics = run_on_device(dev, run_engine, kernel, fn, cfg, args, trace, trace_options, opts)
    result = LaunchResult(kernel.key, str(dev), dict(metrics), getattr(metrics, "details", {}))
    checking.finish(kernel.key, result, check_plan, views)
    is_pointer = [p.name in pointers for p in params]
    if repeat is not None and str(dev) == "cpu" and not check_plan.checks \
            and ImportedLauncher.usable(values, is_pointer):
        launchers = kernel.__dict__.setdefault("_launchers", {})
        if len(launchers) >= MAX_LAUNCHERS:
            launchers.clear()
        launchers[repeat] = ImportedLauncher(kernel, opts, grid, block, values, is_pointer, fn, cfg)
    return result


def _launch_cuda(kernel: ImportedKernel, dev, machine, grid, block, bound, arrays, shared_bytes):
    """The PTX as it is, on the GPU: pointers are the arrays' device addresses, values packed
    at their PTX type's width."""
    import ctypes
    from ..gpu import runtime
    from ..sim.common import LaunchResult
    values = []
    for (kind, b), p in zip(bound, kernel.entry.params):
        if kind == "array":
            values.append(ctypes.c_uint64(int(b.ptr)))        # the array's device address
        else:
            t = TYPES[p.type]
            values.append(runtime.CTYPES[t](b.item() if hasattr(b, "item") else b))
    what = f"kernel '{kernel.key}' (imported PTX)"
    metrics = runtime.run_ptx(kernel.module.text, kernel.entry.name, grid, block, values,
                              dev.ordinal, what, shared_bytes, machine.ptx_target)
    return LaunchResult(kernel.key, str(dev), metrics)


def _xyz(where: str, what: str, v) -> tuple[int, int, int]:
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        v = (int(v),)
    if not isinstance(v, (tuple, list)) or not 1 <= len(v) <= 3 or not all(
            isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x > 0 for x in v):
        raise LaunchError(f"{where}: {what} must be 1 to 3 positive ints (x, y, z), got {v!r}")
    t = tuple(int(x) for x in v) + (1,) * (3 - len(v))
    return t[0], t[1], t[2]
