"""MIR -> PTX text: one ``.visible .entry`` per MIR Function, for sm_80 and sm_90.

``emit(fn, arch)`` returns ``(ptx_text, entry_name, param_layout)``. The text is
deterministic (same MIR, same bytes), uses ``.version 8.0`` so one text serves both targets,
and assumes 64-bit addressing.

Kernel ABI (the order the runtime passes arguments in; ``param_layout`` lists it):
  for each MIR parameter, in order:
    array  -> ``pointer``: u64 device address of element 0, then
              ``shape``:   one int32 per dimension, the extent in *elements* (``array.shape``);
    scalar -> ``scalar``:  the value at its exact width: float32/float64, int32/uint32,
              int64/uint64, int8 (.s8), uint8 (.u8), bool as one byte (.u8, 0 or 1);
  then ``dim``: four int32, the user's launch ``dim`` padded with 1s (SReg.DIM_0..3).
Shared memory is static (``.shared .align 16 .b8 smem[...]``): launch with 0 dynamic bytes.

Registers: MIR register ``id`` lives in ``%p<id>`` (bool), ``%r<id>`` (8- and 32-bit ints),
``%rd<id>`` (64-bit ints), ``%f<id>`` / ``%fd<id>`` (floats); temporaries take ids past the
MIR's. int8/uint8 values are held in 32-bit registers, always sign-/zero-extended from their
low 8 bits, and re-normalised after every op that can carry out of 8 bits, so they wrap
exactly as the engines' int8/uint8 do.

Exactness against the precise engine: integer ops, comparisons, conversions, + - * / sqrt
and rsqrt (as 1/sqrt) on floats, fmod, floor/ceil/trunc/round, min/max, memory, atomics and
warp ops match bit for bit (fastmath aside). Approximate on the GPU (see ptx_math.py for the
bounds): sin cos tan asin acos atan atan2 sinh cosh tanh exp exp2 log log2 log10 pow cbrt
and the erf family; their float64 versions call CUDA's double-precision math library
(libm64.py). Not reproducible: float atomics'
summation order, and atomic_cas on floats compares bits (the engines compare values).
A failed debug bounds CHECK executes ``trap``: the GPU cannot say which thread or index.
"""
from __future__ import annotations

import re
import struct
from typing import NamedTuple

import numpy as np

from ..ir.mir import ArrayParam, Function, Imm, MemRef, Operand, Reg, ScalarParam
from ..ir.types import Scalar

PTX_VERSION = "8.0"
ARCHS = ("sm_80", "sm_90")


class KernelArg(NamedTuple):
    """One kernel argument of the ABI: ``kind`` is pointer / shape / scalar / dim."""
    kind: str
    dtype: np.dtype
    name: str              # "x", "x.shape[0]", "a", "dim[0]": for messages


def emit(fn: Function, arch: str = "sm_90", lineinfo: bool = False) -> tuple[str, str, list[KernelArg]]:
    """The PTX module for ``fn``, its entry name and its argument layout. ``lineinfo`` adds
    ``.file``/``.loc`` directives naming the kernel's Python source lines, so tools such as
    compute-sanitizer (with the JIT's or ptxas's -lineinfo) report file:line."""
    if arch not in ARCHS:
        raise ValueError(f"unsupported PTX target {arch!r}; choose one of {', '.join(ARCHS)}")
    if fn.precise_only():
        from ..errors import CompileError
        raise CompileError(f"kernel '{fn.name}': the PTX backend ('cuda') does not emit "
                           f"byte-addressed memory, BITCAST and FMA (kernels imported from PTX) "
                           f"in this version; on 'cuda' an imported kernel runs its own PTX")
    from .ptx_ops import lower_function
    em = Emitter(fn, arch, lineinfo)
    lower_function(em)
    return em.text(), em.entry, em.layout


# ---- names and constants ------------------------------------------------------------------

REG_PREFIX = {Scalar.BOOL: "%p", Scalar.I8: "%r", Scalar.U8: "%r", Scalar.I16: "%r",
              Scalar.U16: "%r", Scalar.I32: "%r", Scalar.U32: "%r", Scalar.I64: "%rd",
              Scalar.U64: "%rd", Scalar.F16: "%h", Scalar.BF16: "%h", Scalar.F32: "%f",
              Scalar.F64: "%fd"}
_REG_DECL = {"%p": ".pred", "%h": ".b16", "%r": ".b32", "%rd": ".b64", "%f": ".f32",
             "%fd": ".f64"}

# The PTX type an op works in, per MIR scalar (8- and 16-bit integers live in 32-bit
# registers; float16 values in 16-bit ones, only moved and converted: the MIR computes
# float16 in float32).
INT_TYPE = {Scalar.I8: "s32", Scalar.U8: "u32", Scalar.I16: "s32", Scalar.U16: "u32",
            Scalar.I32: "s32", Scalar.U32: "u32", Scalar.I64: "s64", Scalar.U64: "u64",
            Scalar.F16: "f16", Scalar.BF16: "bf16", Scalar.F32: "f32", Scalar.F64: "f64"}
BITS_TYPE = {Scalar.I8: "b32", Scalar.U8: "b32", Scalar.I16: "b32", Scalar.U16: "b32",
             Scalar.I32: "b32", Scalar.U32: "b32", Scalar.I64: "b64", Scalar.U64: "b64",
             Scalar.F16: "b16", Scalar.BF16: "b16", Scalar.F32: "f32", Scalar.F64: "f64",
             Scalar.BOOL: "pred"}
# Memory and parameter types: exact width.
MEM_TYPE = {Scalar.BOOL: "u8", Scalar.I8: "s8", Scalar.U8: "u8", Scalar.I16: "s16",
            Scalar.U16: "u16", Scalar.I32: "s32", Scalar.U32: "u32", Scalar.I64: "s64",
            Scalar.U64: "u64", Scalar.F16: "b16", Scalar.BF16: "b16", Scalar.F32: "f32",
            Scalar.F64: "f64"}


def imm_text(value, t: Scalar) -> str:
    """A PTX immediate of MIR type ``t`` (floats as exact hex bit patterns)."""
    if t is Scalar.F16:
        return "0x%04X" % int(np.array(value).astype(np.float16).view(np.uint16))
    if t is Scalar.BF16:
        from ..ir.bfloat16 import to_bits
        return "0x%04X" % int(to_bits(float(value)))
    if t is Scalar.F32:
        return "0f%08X" % struct.unpack(">I", struct.pack(">f", float(np.float32(value))))[0]
    if t is Scalar.F64:
        return "0d%016X" % struct.unpack(">Q", struct.pack(">d", float(value)))[0]
    if t is Scalar.BOOL:
        return "1" if value else "0"
    return str(int(np.array(value).astype(t.np)))


def _identifier(name: str) -> str:
    text = re.sub(r"[^A-Za-z0-9_]", "_", name) or "kernel"
    return text if not text[0].isdigit() else "_" + text


class Emitter:
    """The text being built and the names in it: registers, labels, parameters."""

    def __init__(self, fn: Function, arch: str, lineinfo: bool = False):
        self.fn = fn
        self.arch = arch
        self.files: dict[str, int] | None = {} if lineinfo else None   # source file -> .file index
        self._last_loc: tuple[int, int] | None = None
        self.entry = _identifier(fn.name)
        self.body: list[str] = []
        self.next_id = 1 + max((r.id for r in fn.registers()), default=0)
        self.used: dict[str, int] = {}          # register prefix -> highest index + 1
        self.label_count = 0
        self.params: list[tuple[str, str, str]] = []   # (ptx type, ptx name, comment)
        self.layout: list[KernelArg] = []
        self.array_base: dict[MemRef, str] = {}  # global MemRef -> register with its address
        self.array_shape: dict[MemRef, list[str]] = {}
        self.launch_dim: list[str] = []
        self.smem_base: str | None = None
        self.fastmath = fn.fastmath
        self.module_lines: list[str] = []      # declarations before the entry (vprintf, formats)
        self.libm: set = set()                 # float64 math ops called (libm64.py's functions)

    # -- registers and operands --------------------------------------------------------------
    def _name(self, prefix: str, index: int) -> str:
        self.used[prefix] = max(self.used.get(prefix, 0), index + 1)
        return f"{prefix}{index}"

    def reg(self, r: Reg) -> str:
        return self._name(REG_PREFIX[r.type], r.id)

    def tmp(self, t: Scalar | str) -> str:
        """A fresh register for type ``t`` (a Scalar, or a prefix like "%rd")."""
        prefix = REG_PREFIX[t] if isinstance(t, Scalar) else t
        self.next_id += 1
        return self._name(prefix, self.next_id - 1)

    def val(self, x: Operand) -> str:
        """An operand as a source: register name or immediate (bool immediates need a register)."""
        if isinstance(x, Reg):
            return self.reg(x)
        if x.type is Scalar.BOOL:
            return self.materialize(x)
        return imm_text(x.value, x.type)

    def materialize(self, x: Operand) -> str:
        """An operand in a register (immediates are moved into a temporary)."""
        if isinstance(x, Reg):
            return self.reg(x)
        r = self.tmp(x.type)
        self.ins(f"mov.{BITS_TYPE[x.type]} {r}, {imm_text(x.value, x.type)}")
        return r

    # -- text ---------------------------------------------------------------------------------
    def ins(self, text: str) -> None:
        self.body.append(f"\t{text};")

    def loc(self, loc) -> None:
        """A ``.loc`` directive before the next instructions (line info only, when asked)."""
        if self.files is None or loc is None:
            return
        index = self.files.setdefault(loc.file, len(self.files) + 1)
        if (index, loc.line) != self._last_loc:
            self._last_loc = (index, loc.line)
            self.body.append(f"\t.loc {index} {loc.line} {loc.col + 1}")

    def label(self, name: str) -> None:
        self.body.append(f"{name}:")

    def new_label(self, hint: str) -> str:
        self.label_count += 1
        return f"$L_{hint}_{self.label_count}"

    def add_param(self, ptx_type: str, kind: str, dtype, name: str) -> str:
        pname = f"{self.entry}_param_{len(self.params)}"
        self.params.append((ptx_type, pname, name))
        self.layout.append(KernelArg(kind, np.dtype(dtype), name))
        return pname

    def text(self) -> str:
        fn = self.fn
        head = [f"// simt kernel {fn.name}: launch dim={fn.launch.dim_ndim}d block={fn.launch.block_ndim}d"
                f"{', debug' if fn.debug else ''}{', fastmath' if fn.fastmath else ''}",
                f".version {PTX_VERSION}", f".target {self.arch}", ".address_size 64", ""]
        for path, index in (self.files or {}).items():
            head.append(f'.file {index} "{path}"')
        head += [*self.module_lines, *([""] if self.module_lines else [])]
        if self.libm:
            from .libm64 import library
            head += [library(self.libm, self.arch)]
        head.append(f".visible .entry {self.entry}(")
        params = [f"\t.param .{t} {n}" for t, n, _ in self.params]
        for i, (_, _, what) in enumerate(self.params):
            params[i] += ("," if i + 1 < len(params) else "") + f"  // {what}"
        decls = [f"\t.reg {_REG_DECL[p]} {p}<{n}>;" for p, n in sorted(self.used.items())]
        if fn.shared_bytes:
            decls.append(f"\t.shared .align 16 .b8 smem[{fn.shared_bytes}];")
        return "\n".join(head + params + [")", "{"] + decls + [""] + self.body + ["}", ""])

    # -- the prologue: parameters into registers ------------------------------------------
    def load_params(self) -> None:
        for p in self.fn.params:
            if isinstance(p, ArrayParam):
                pname = self.add_param("u64", "pointer", np.uint64, p.name)
                base = self.tmp("%rd")
                self.ins(f"ld.param.u64 {base}, [{pname}]")
                self.ins(f"cvta.to.global.u64 {base}, {base}")
                self.array_base[p.mem] = base
                shape = []
                for k in range(p.mem.ndim):
                    sname = self.add_param("s32", "shape", np.int32, f"{p.name}.shape[{k}]")
                    r = self.tmp("%r")
                    self.ins(f"ld.param.s32 {r}, [{sname}]")
                    shape.append(r)
                self.array_shape[p.mem] = shape
            else:
                assert isinstance(p, ScalarParam)
                self._load_scalar(p)
        for k in range(4):
            pname = self.add_param("s32", "dim", np.int32, f"dim[{k}]")
            r = self.tmp("%r")
            self.ins(f"ld.param.s32 {r}, [{pname}]")
            self.launch_dim.append(r)
        if self.fn.shared_bytes:
            self.smem_base = self.tmp("%r")
            self.ins(f"mov.u32 {self.smem_base}, smem")

    def _load_scalar(self, p: ScalarParam) -> None:
        t = p.reg.type
        pname = self.add_param(MEM_TYPE[t], "scalar", t.np, p.name)
        if t is Scalar.BOOL:
            byte = self.tmp("%r")
            self.ins(f"ld.param.u8 {byte}, [{pname}]")
            self.ins(f"setp.ne.u32 {self.reg(p.reg)}, {byte}, 0")
        else:
            self.ins(f"ld.param.{MEM_TYPE[t]} {self.reg(p.reg)}, [{pname}]")
