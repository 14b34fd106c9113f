"""Triton kernels: ``simt.from_triton(jitfn, signature=..., constexprs=...)`` compiles with
``triton.compile`` for a ``GPUTarget`` (no GPU needed) and imports the PTX.

Triton appends hidden parameters to every kernel (a global scratch pointer and a profile
scratch pointer) and may use dynamic shared memory (``.extern .shared global_smem[]``): a
launch passes the scratch buffers (sized by the compiled kernel's metadata, per program) and
the shared array gets the metadata's size. The block is fixed by ``num_warps``.
"""
from __future__ import annotations

import numpy as np

from ..errors import CompileError, LaunchError, SimtError
from . import parser as P
from .kernel import ImportedKernel, _module

EXTRA = "triton"
_DTYPES = {"fp16": np.float16, "bf16": None, "fp32": np.float32, "fp64": np.float64,
           "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
           "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "i1": np.bool_}


def _triton():
    import importlib
    try:
        triton = importlib.import_module("triton")
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except ImportError as e:
        raise SimtError(f"simt.from_triton needs Triton: pip install 'simt[{EXTRA}]'; {e}") from None
    return triton, GPUTarget, ASTSource


class TritonKernel(ImportedKernel):
    """A kernel compiled by Triton: launched with ``grid=`` and one value per non-constexpr
    argument; the block is ``32 * num_warps`` threads."""

    def __init__(self, module: P.Module, entry: P.Entry, name: str, signature: dict, metadata,
                 divisible: frozenset = frozenset()):
        super().__init__(module, entry, name)
        self.signature = signature                  # name -> Triton type, without constexprs
        self.divisible = divisible                  # arguments compiled as multiples of 16
        self.num_warps = int(metadata.num_warps)
        self.dynamic_shared_bytes = int(metadata.shared)
        self.scratch = [(int(getattr(metadata, f"{k}_scratch_size", 0) or 0),
                         int(getattr(metadata, f"{k}_scratch_align", 1) or 1)) for k in ("global", "profile")]
        hidden = len(entry.params) - len(signature)
        if hidden not in (0, 1, 2):
            raise CompileError(f"Triton's PTX for {name} has {len(entry.params)} parameters for "
                               f"{len(signature)} arguments: cannot tell its hidden ones")
        self.hidden = hidden
        self.source_names = list(signature) + ["global_scratch", "profile_scratch"][:hidden]

    def mir(self, pointer_params=None) -> str:
        """The printed MIR, with the pointer arguments (and scratch pointers) as pointers."""
        if pointer_params is None:
            kinds = [t.startswith("*") for t in self.signature.values()] + \
                [size > 0 for size, _ in self.scratch[:self.hidden]]      # a launch passes 0 else
            pointer_params = [p.name for p, ptr in zip(self.entry.params, kinds) if ptr]
        return super().mir(pointer_params)

    def prepare_launch(self, values: list, grid, block):
        from ..arrays import array, zeros
        where = f"kernel '{self.key}'"
        threads = 32 * self.num_warps
        if block is not None and tuple(block) not in ((threads,), (threads, 1), (threads, 1, 1), threads):
            raise LaunchError(f"{where}: a Triton kernel's block is 32 * num_warps = {threads} threads; "
                              f"leave block= out or give block=({threads},)")
        if grid is None:
            raise LaunchError(f"{where}: launch a Triton kernel with grid=(programs along x, y, z)")
        if len(values) != len(self.signature):
            described = ", ".join(f"{n}: {t}" for n, t in self.signature.items())
            raise LaunchError(f"{where} takes {len(self.signature)} arguments ({described}), got {len(values)}")
        for k, ((n, t), v) in enumerate(zip(self.signature.items(), values)):
            if t.startswith("*"):
                if not isinstance(v, array) or v.is_annotation:
                    raise LaunchError(f"{where}, argument {k} '{n}' ({t}): expected a simt array, "
                                      f"got {type(v).__name__}")
                want = _DTYPES.get(t[1:])
                have = getattr(v._ir_dtype, "value", None)
                ok = have == "bfloat16" if t[1:] == "bf16" else want is not None and \
                    getattr(v._ir_dtype, "np", None) == np.dtype(want)
                if not ok:
                    raise LaunchError(f"{where}, argument {k} '{n}': the kernel was compiled for {t}, "
                                      f"got an array of {have}")
            elif isinstance(v, array):
                raise LaunchError(f"{where}, argument {k} '{n}' ({t}): got an array, expected a scalar")
            elif t in ("fp16", "bf16"):             # passed as the half's 16 bits
                from ..ir.bfloat16 import to_bits
                try:
                    bits = np.float16(v).view(np.uint16) if t == "fp16" else to_bits(np.float32(v))
                except (TypeError, ValueError):
                    raise LaunchError(f"{where}, argument {k} '{n}' ({t}): expected a number, "
                                      f"got {type(v).__name__}") from None
                values = list(values)
                values[k] = int(bits)
            if n in self.divisible:
                value = v.ptr if isinstance(v, array) else v
                if not isinstance(value, (int, np.integer)) or int(value) % 16:
                    what = "its address" if isinstance(v, array) else "its value"
                    raise LaunchError(f"{where}, argument {k} '{n}': the kernel was compiled with "
                                      f"{n} divisible by 16 (divisibility=), but {what} is not")
        g = (grid,) if isinstance(grid, (int, np.integer)) else tuple(grid)
        programs = int(np.prod(g)) if g else 0
        extra = []
        device = next((v.device for v in values if isinstance(v, array)), None)
        for size, align in self.scratch[:self.hidden]:
            if size == 0:
                extra.append(0)
            else:                                  # one slice per program, as Triton's launcher
                per = -(-size // align) * align
                extra.append(zeros(max(1, programs) * per, dtype=np.uint8, device=device))
        return list(values) + extra, grid, (threads, 1, 1)


def from_triton(jitfn, signature: dict, constexprs: dict | None = None, num_warps: int = 4,
                num_stages: int = 3, arch: str = "sm_80", divisibility=()) -> TritonKernel:
    """Compile a ``@triton.jit`` function for ``signature`` (argument name -> Triton type:
    ``"*fp32"``, ``"i32"``, ...) and ``constexprs`` (name -> value) and import it. Launch with
    ``simt.launch(k, grid=(programs,), inputs=[...])``: simt arrays for pointers.

    ``divisibility``: names of arguments to compile as multiples of 16 (pointers: 16-byte
    aligned), as Triton's own launcher specializes them; it lets Triton vectorize and use
    cp.async. A launch checks them."""
    triton, GPUTarget, ASTSource = _triton()
    from .numba_front import _cc
    constexprs = dict(constexprs or {})
    if not isinstance(signature, dict):
        raise SimtError("simt.from_triton: signature is a dict of argument name -> Triton type, "
                        "e.g. {'x_ptr': '*fp32', 'n': 'i32'}")
    names = getattr(jitfn, "arg_names", None)
    if names is None:
        raise SimtError(f"simt.from_triton takes a @triton.jit function, got {jitfn!r}")
    missing = [n for n in names if n not in signature and n not in constexprs]
    unknown = [n for n in list(signature) + list(constexprs) if n not in names]
    if missing or unknown:
        raise SimtError(f"simt.from_triton({jitfn.__name__}): "
                        + (f"no type or constexpr value for {missing}" if missing else "")
                        + ("; " if missing and unknown else "")
                        + (f"{unknown} are not arguments of the kernel" if unknown else ""))
    full = {n: ("constexpr" if n in constexprs else signature[n]) for n in names}
    divisible = frozenset(divisibility)
    if divisible - set(signature):
        raise SimtError(f"simt.from_triton({jitfn.__name__}): divisibility names "
                        f"{sorted(divisible - set(signature))}, which are not runtime arguments")
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in divisible}
    major, minor = _cc(arch)
    try:
        src = ASTSource(jitfn, full, constexprs=constexprs, attrs=attrs)
        compiled = triton.compile(src, target=GPUTarget("cuda", major * 10 + minor, 32),
                                  options={"num_warps": num_warps, "num_stages": num_stages,
                                           "enable_fp_fusion": True})
    except Exception as e:          # Triton's own compile errors, as they are
        raise CompileError(f"Triton could not compile {jitfn.__name__}: {e}") from None
    ptx = compiled.asm["ptx"]
    module = _module(ptx, f"<triton {jitfn.__name__}>")
    name = compiled.metadata.name
    if name not in module.entries:
        raise CompileError(f"Triton's PTX for {jitfn.__name__} has no kernel {name}")
    runtime = {n: t for n, t in full.items() if t != "constexpr"}
    kernel = TritonKernel(module, module.entries[name], jitfn.__name__, runtime, compiled.metadata, divisible)
    kernel.ptx_text = ptx
    return kernel
