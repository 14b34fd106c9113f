"""``simt.build_kernel``: a kernel compiled ahead of time into a directory the C/C++ runtime
(simt/runtime/include/simt/runtime.hpp) loads without Python.

The directory holds ``manifest.json`` (the source of truth: parameters, the block-size rule,
shared memory, files and their hashes), for kernels with struct parameters ``<kernel>.h``
(their C structs, struct_layout.py) and, for ``target="cuda"``, one cubin per
architecture (ptxas), the PTX as a fallback for newer GPUs and one fatbin packing them
(the runtime loads the fatbin); each cubin also carries the signature in an ELF note
section (elf_note.py). For ``target="cpu"`` it holds the C source emitted from the MIR
(c_codegen.py) and the shared library the system C compiler made of it.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import CompileError
from ..ir.mir import ArrayParam, Function, LaunchSig, ScalarParam

FORMAT = "simt-aot"
FORMAT_VERSION = 1
CPU_ENTRY = "simt_kernel_run"
CFLAGS = ["-O2", "-std=c11", "-shared", "-fPIC", "-fno-builtin", "-ffp-contract=off", "-fwrapv",
          "-fno-strict-aliasing", "-fvisibility=hidden"]


def _kernel_of(kernel):
    from ..kernel import Kernel
    if not isinstance(kernel, Kernel):
        raise CompileError(f"simt.build_kernel expects a @simt.kernel, got {kernel!r}")
    return kernel


def build_kernel(kernel, target: str = "cuda", arch="sm_90", out_dir=None, block_dim=256,
                 dim_ndim: int = 1, max_steps: int | None = None) -> Path:
    """Compile ``kernel`` ahead of time into ``out_dir`` (default ``build/<kernel name>``) and
    return that directory. Needs no GPU: the cuda target needs ptxas and fatbinary (CUDA
    toolkit), the cpu target a C compiler (``$CC``, else cc or gcc).

    The kernel is compiled for launches over ``dim_ndim``-dimensional ``dim`` in blocks of
    ``block_dim`` threads: an int is Warp's linear mapping (the grid is ceil(prod(dim) /
    block_dim) blocks; the runtime may launch with another int), a tuple of ``dim_ndim``
    extents an n-d grid whose last dimension is CUDA's x, as ``simt.launch`` has them."""
    kernel = _kernel_of(kernel)
    if target not in ("cuda", "cpu"):
        raise CompileError(f"simt.build_kernel: target must be 'cuda' or 'cpu', got {target!r}")
    if isinstance(dim_ndim, bool) or dim_ndim not in (1, 2, 3, 4):
        raise CompileError(f"simt.build_kernel: dim_ndim must be 1 to 4, got {dim_ndim!r}")
    block, mapping = _block_rule(kernel.key, block_dim, dim_ndim)
    if kernel.is_generic:
        raise CompileError(f"kernel '{kernel.key}': generic (Any-typed) parameters cannot be built "
                           f"ahead of time; give every parameter a concrete type")
    block_ndim = 1 if mapping == "linear" else dim_ndim
    if kernel.index_dims[1] and kernel.index_dims[1] != block_ndim:
        raise CompileError(f"kernel '{kernel.key}' unpacks {kernel.index_dims[1]} value(s) from "
                           f"thread_idx()/block_idx(): build it with block_dim a "
                           f"{kernel.index_dims[1]}-tuple and dim_ndim={kernel.index_dims[1]}")
    opts = kernel.effective_options()
    steps = int(opts["max_steps"] if max_steps is None else max_steps)
    fn = kernel.compile(LaunchSig(dim_ndim, block_ndim))
    params = signature(kernel, fn)
    out = Path(out_dir) if out_dir is not None else Path("build") / kernel.key
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "kernel": kernel.key, "simt_version": _version(), "target": target,
        "params": params,
        "launch": {"dim_ndim": dim_ndim, "block_dim": block, "mapping": mapping,
                   "rule": _RULES[mapping]},
        "shared_bytes": fn.shared_bytes, "max_steps": steps,
        "mir_sha256": _sha256(_mir_text(fn).encode()),
    }
    if target == "cpu":
        manifest.update(_build_cpu(fn, kernel.key, out))
    else:
        archs = [arch] if isinstance(arch, str) else list(arch)
        manifest.update(_build_cuda(fn, kernel.key, out, archs, params, manifest))
    if _write_header(kernel.key, params, out):
        manifest["files"]["header"] = f"{kernel.key}.h"
    manifest["hashes"] = {name: _sha256((out / name).read_bytes())
                          for name in sorted(_files(manifest["files"]))}
    tmp = out / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(tmp, out / "manifest.json")        # a running program never reads half a file
    return out


def _write_header(name: str, params: list[dict], out: Path) -> bool:
    """``<kernel>.h``, the C structs of the struct parameters, when there are any (a stale one
    this function wrote for an earlier build is removed)."""
    from .struct_layout import GENERATED, header
    text = header(name, params)
    path = out / f"{name}.h"
    if text is None:
        if path.is_file() and path.read_text(errors="replace").startswith(GENERATED):
            path.unlink()
        return False
    path.write_text(text)
    return True


_RULES = {"linear": "blocks of block_dim threads over the flattened dim (Warp's linear mapping): "
                     "grid = ceil(prod(dim) / block_dim)",
          "grid": "an n-d grid: block_dim and dim in numpy order, the last being CUDA's x; "
                  "grid[k] = ceil(dim[k] / block_dim[k])"}


def _block_rule(name: str, block_dim, dim_ndim: int) -> tuple[list[int], str]:
    """The manifest's block_dim (a list, numpy order) and mapping ("linear" or "grid")."""
    def bad(why: str) -> CompileError:
        return CompileError(f"simt.build_kernel('{name}'): {why}, got block_dim={block_dim!r}")
    if isinstance(block_dim, int) and not isinstance(block_dim, bool):
        if not 1 <= block_dim <= 1024:
            raise bad("block_dim must be from 1 to 1024 threads")
        return [block_dim], "linear"
    if not isinstance(block_dim, (tuple, list)) or not all(
            isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in block_dim):
        raise bad("block_dim must be an int or a tuple of positive ints")
    if len(block_dim) != dim_ndim or dim_ndim > 3:
        raise bad(f"a tuple block_dim needs one extent per launch dimension (dim_ndim={dim_ndim}, "
                  f"at most 3)")
    total = 1
    for b in block_dim:
        total *= b
    if total > 1024:
        raise bad("a block has at most 1024 threads")
    return list(block_dim), "grid"


def signature(kernel, fn: Function) -> list[dict]:
    """The parameters as the runtime checks them, in order. A vector, matrix, quaternion or
    transform value is one parameter of ``ncomp`` scalars (the ABI passes them as that many
    scalars, in order). A struct is one parameter passed as the bytes of its C struct
    (struct_layout.py): ``struct`` holds the layout, ``leaves`` its value and array fields
    in the order of the compiled function's parameters, ``ncomp`` its scalars."""
    from ..ir import types as ir_types
    from .struct_layout import layout, leaves

    def flat(name: str, slots: list) -> int:
        """Checks the compiled function's next parameters against ``slots`` (a dtype for a
        scalar, (dtype, ndim) for an array) and returns how many there are."""
        got = fn.params[j:j + len(slots)]
        kinds = [r.reg.type.value if isinstance(r, ScalarParam) else (r.mem.elem.value, r.mem.ndim)
                 for r in got]
        if kinds != slots:
            raise CompileError(f"kernel '{kernel.key}': internal error, parameter '{name}' does "
                               f"not match the compiled function")
        return len(slots)

    out, j = [], 0
    for name, ptype in kernel.params:
        where = f"kernel '{kernel.key}', parameter '{name}'"
        if isinstance(ptype, ir_types.ArrayType):
            if isinstance(ptype.dtype, ir_types.StructType):
                raise CompileError(f"{where} is an array of struct {ptype.dtype.name}: arrays of "
                                   f"structs cannot be built ahead of time in this version")
            p = fn.params[j] if j < len(fn.params) else None
            if not isinstance(p, ArrayParam) or p.name != name:
                raise CompileError(f"kernel '{kernel.key}': internal error, array parameter '{name}' "
                                   f"does not match the compiled function")
            m = p.mem
            out.append({"name": name, "kind": "array", "dtype": m.elem.value, "ndim": m.ndim,
                        "ncomp": m.ncomp, "element": m.dtype_name or m.elem.value})
            j += 1
        elif isinstance(ptype, ir_types.StructType):
            lay = layout(ptype, where, name)
            fields = leaves(lay)
            slots = [s for f in fields for s in ([(f["dtype"], f["ndim"])] if f["kind"] == "array"
                                                 else [f["dtype"]] * f["ncomp"])]
            out.append({"name": name, "kind": "struct", "dtype": ptype.name, "ndim": 0,
                        "ncomp": sum(f["ncomp"] for f in fields if f["kind"] == "value"),
                        "element": ptype.name, "struct": lay, "leaves": fields})
            j += flat(name, slots)
        elif isinstance(ptype, (ir_types.Scalar, ir_types.VectorType, ir_types.MatrixType,
                                ir_types.QuatType, ir_types.TransformType)):
            count = 1 if isinstance(ptype, ir_types.Scalar) else ir_types.flat_count(ptype)
            dtype = ir_types.scalar_of(ptype).value
            out.append({"name": name, "kind": "scalar", "dtype": dtype, "ndim": 0, "ncomp": count,
                        "element": dtype if isinstance(ptype, ir_types.Scalar) else str(ptype)})
            j += flat(name, [dtype] * count)
        else:
            raise CompileError(f"{where} has type {ptype}, which cannot be built ahead of time")
    if j != len(fn.params):
        raise CompileError(f"kernel '{kernel.key}': internal error, {len(fn.params)} compiled "
                           f"parameters for {j} in the signature")
    return out


def _files(files: dict) -> list[str]:
    names = []
    for v in files.values():
        names += list(v.values()) if isinstance(v, dict) else [v]
    return names


def _version() -> str:
    from .. import __version__
    return __version__


def _mir_text(fn: Function) -> str:
    from ..ir.printer import format_function
    return format_function(fn)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- cpu ------------------------------------------------------------------------------------

def find_c_compiler() -> str:
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise CompileError("simt.build_kernel(target='cpu') needs a C compiler: none of $CC, cc, "
                       "gcc, clang is on PATH")


def _build_cpu(fn: Function, name: str, out: Path) -> dict:
    from .c_codegen import ABI_VERSION, generate
    source = generate(fn)
    (out / f"{name}.c").write_text(source)
    cc = find_c_compiler()
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        lib = Path(tmp) / f"{name}.so"
        proc = subprocess.run([cc, *CFLAGS, str(out / f"{name}.c"), "-o", str(lib), "-lm"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(f"kernel '{name}': the C compiler ({cc}) refused the generated "
                               f"source {out / (name + '.c')}:\n{proc.stderr.strip()[:4000]}")
        os.replace(lib, out / f"{name}.so")        # atomic: a reloading program sees old or new
    return {"entry": CPU_ENTRY, "abi": ABI_VERSION, "compiler": cc,
            "files": {"library": f"{name}.so", "source": f"{name}.c"}}


# --- cuda ------------------------------------------------------------------------------------

def _build_cuda(fn: Function, name: str, out: Path, archs: list[str], params: list[dict],
                manifest: dict) -> dict:
    from ..gpu import ptx as ptx_backend
    from ..gpu.ptxas import parse_report, run as ptxas_run
    from ..gpu.sass import find_tool
    from .elf_note import add_note
    bad = [a for a in archs if a not in ptx_backend.ARCHS]
    if not archs or bad:
        raise CompileError(f"simt.build_kernel: arch must be one of {', '.join(ptx_backend.ARCHS)} "
                           f"or a list of them, got {archs!r}")
    archs = sorted(set(archs))
    fallback = archs[0]                   # the oldest: its PTX JIT-compiles on any newer GPU
    ptx_text, entry, _ = ptx_backend.emit(fn, fallback)
    (out / f"{name}.ptx").write_text(ptx_text)
    cubins, registers, local = {}, {}, {}
    note = json.dumps({"kernel": name, "simt_version": manifest["simt_version"], "params": params,
                       "launch": manifest["launch"], "shared_bytes": manifest["shared_bytes"]},
                      separators=(",", ":")).encode()
    for arch in archs:
        text = ptx_text if arch == fallback else ptx_backend.emit(fn, arch)[0]
        report, cubin = ptxas_run(text, arch, ["-v"])
        info = parse_report(report)
        registers[arch] = info["registers"]
        local[arch] = info["stack_frame_bytes"]
        file = f"{name}.{arch}.cubin"
        (out / file).write_bytes(add_note(cubin, note))
        cubins[arch] = file
    fatbinary = find_tool("fatbinary")
    if fatbinary is None:
        raise CompileError("simt.build_kernel(target='cuda') needs fatbinary (CUDA toolkit) on PATH")
    images = [f"--image3=kind=elf,sm={a[3:]},file={out / f}" for a, f in cubins.items()]
    images.append(f"--image3=kind=ptx,sm={fallback[3:]},file={out / (name + '.ptx')}")
    fatbin = out / f"{name}.fatbin"
    proc = subprocess.run([fatbinary, "-64", f"--create={fatbin}.tmp", *images],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(f"kernel '{name}': fatbinary failed:\n{proc.stderr.strip()[:4000]}")
    os.replace(f"{fatbin}.tmp", fatbin)
    return {"entry": entry, "archs": archs, "ptx_version": ptx_backend.PTX_VERSION,
            "ptx_arch": fallback, "registers": registers, "stack_frame_bytes": local,
            "elf_note": {"section": ".note.simt.info", "name": "simt", "type": 1},
            "files": {"fatbin": f"{name}.fatbin", "ptx": f"{name}.ptx", "cubin": cubins}}
