"""The MIR: simt's one typed, flat IR shared by every engine and the PTX backend.

A kernel is a ``Function``: typed parameters, static shared allocations and a list of
basic blocks. A block is a list of ``Instr`` whose last one is a terminator (BR, CBR, RET).
Registers are typed scalars (``Reg``); operands are registers or immediates (``Imm``).
Vectors and matrices do not exist here: lowering expanded them to scalars. Memory is
reached through ``MemRef`` objects (array parameters, shared arrays), indexed in scalar
elements, with an explicit address space; one LD/ST moves 1, 2 or 4 consecutive scalars
(like PTX ld / ld.v2 / ld.v4). Kernels imported from PTX reach memory through byte addresses
instead: LD/ST/ATOM with a ``Pointer`` argument take a 64-bit (or, in shared and local
space, 32-bit) integer byte address as src0, and ADDR gives an array's address.

The precise engine (simt/sim/precise) is the executable definition of every op below.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .types import Scalar


class Op(enum.Enum):
    # data movement and conversion
    MOV = enum.auto()      # dst = src0                       (same type)
    BITCAST = enum.auto()  # dst = the bits of src0 read as dst's type  (same width, no bool)
    CVT = enum.auto()      # dst = convert(src0)               (C semantics; float->int truncates, saturating)
    SELECT = enum.auto()   # dst = src0 ? src1 : src2          (src0 bool)
    # arithmetic (operands and result share one type)
    ADD = enum.auto(); SUB = enum.auto(); MUL = enum.auto()
    DIV = enum.auto()      # ints: truncates toward zero (C); floats: IEEE round-to-nearest
    REM = enum.auto()      # ints: sign of dividend (C %); floats: fmod
    FMA = enum.auto()      # dst = src0 * src1 + src2 rounded once: to nearest, or arg "rz"/"rm"/"rp" (f32)
    MIN = enum.auto(); MAX = enum.auto()  # floats: src0 if src0 <= src1 (>=) or src1 is NaN, else src1
    POW = enum.auto(); ATAN2 = enum.auto()
    COPYSIGN = enum.auto()  # |src0| with the sign bit of src1 (floats; a NaN's sign bit is unspecified)
    AND = enum.auto(); OR = enum.auto(); XOR = enum.auto()   # bitwise, or logical on bool
    SHL = enum.auto(); SHR = enum.auto()                      # SHR: arithmetic if signed
    NEG = enum.auto(); NOT = enum.auto(); ABS = enum.auto()  # NOT: bitwise, or logical on bool
    SQRT = enum.auto(); RSQRT = enum.auto(); SIN = enum.auto(); COS = enum.auto()
    TAN = enum.auto(); ASIN = enum.auto(); ACOS = enum.auto(); ATAN = enum.auto()
    SINH = enum.auto(); COSH = enum.auto(); TANH = enum.auto()
    EXP = enum.auto(); EXP2 = enum.auto(); LOG = enum.auto(); LOG2 = enum.auto(); LOG10 = enum.auto()
    FLOOR = enum.auto(); CEIL = enum.auto(); ROUND = enum.auto(); TRUNC = enum.auto()
    RINT = enum.auto()     # nearest integer value, halfway cases to even
    CBRT = enum.auto(); ERF = enum.auto(); ERFC = enum.auto()
    ERFINV = enum.auto(); ERFCINV = enum.auto()   # Warp's definitions (erfcinv(x) = erfinv(1 - x))
    POPC = enum.auto()     # set bits of an integer's two's-complement pattern, in its own type
    ISNAN = enum.auto(); ISINF = enum.auto()                  # dst bool
    # comparisons: dst bool, sources share one type
    EQ = enum.auto(); NE = enum.auto(); LT = enum.auto(); LE = enum.auto(); GT = enum.auto(); GE = enum.auto()
    # memory
    LD = enum.auto()       # dsts[0..w) = mem[src0 .. src0+w)      arg: MemRef, or Pointer (src0 a byte address)
    ST = enum.auto()       # mem[src0 .. src0+w) = srcs[1..]        arg: MemRef, or Pointer
    ATOM = enum.auto()     # dst = old mem[src0]; mem[src0] = f(old, src1[, src2])  arg: AtomArg
    ADDR = enum.auto()     # dst(u64, or u32 for shared/local) = byte address of element 0  arg: MemRef
    DIM = enum.auto()      # dst(i32) = extent of dimension k of an array   arg: DimArg
    # execution model
    SREG = enum.auto()     # dst = special register                 arg: SReg
    BAR = enum.auto()      # block-wide barrier (bar.sync 0)
    BAR_AND = enum.auto()  # dst(bool) = barrier, then AND of src0 over the block (bar.red.and)
    SYNCWARP = enum.auto() # src0(u32) = mask
    SHFL = enum.auto()     # dst = value of src0 from another lane; src1 lane/delta/xor (i32); src2 mask (u32)  arg: ShflMode
    VOTE = enum.auto()     # dst = ballot(u32) / any / all (bool) of src0(bool); src1 mask (u32)  arg: VoteMode
    ACTIVEMASK = enum.auto()  # dst(u32)
    CHECK = enum.auto()    # debug bounds check: 0 <= src0 < src1 (i32 or i64), else OutOfBoundsError  arg: CheckArg
    PRINT = enum.auto()    # each active thread, in thread order, prints srcs with a C printf format  arg: str
    # terminators
    BR = enum.auto()       # arg: target label
    CBR = enum.auto()      # src0 bool; arg: (true label, false label)
    RET = enum.auto()      # the thread exits


TERMINATORS = frozenset({Op.BR, Op.CBR, Op.RET})
BINARY = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.MIN, Op.MAX, Op.POW, Op.ATAN2,
                    Op.COPYSIGN, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR})
UNARY = frozenset({Op.NEG, Op.NOT, Op.ABS, Op.SQRT, Op.RSQRT, Op.SIN, Op.COS, Op.TAN, Op.ASIN,
                   Op.ACOS, Op.ATAN, Op.SINH, Op.COSH, Op.TANH, Op.EXP, Op.EXP2, Op.LOG, Op.LOG2,
                   Op.LOG10, Op.FLOOR, Op.CEIL, Op.ROUND, Op.TRUNC, Op.RINT, Op.CBRT, Op.ERF,
                   Op.ERFC, Op.ERFINV, Op.ERFCINV, Op.POPC})
COMPARE = frozenset({Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE})
FLOAT_ONLY = frozenset({Op.POW, Op.ATAN2, Op.COPYSIGN, Op.SQRT, Op.RSQRT, Op.SIN, Op.COS, Op.TAN,
                        Op.ASIN, Op.ACOS, Op.ATAN, Op.SINH, Op.COSH, Op.TANH, Op.EXP, Op.EXP2,
                        Op.LOG, Op.LOG2, Op.LOG10, Op.FLOOR, Op.CEIL, Op.ROUND, Op.TRUNC, Op.RINT,
                        Op.CBRT, Op.ERF, Op.ERFC, Op.ERFINV, Op.ERFCINV, Op.ISNAN, Op.ISINF})
INT_ONLY = frozenset({Op.SHL, Op.SHR, Op.POPC})  # AND/OR/XOR/NOT also take bool
MEMORY = frozenset({Op.LD, Op.ST, Op.ATOM})
WARP_COLLECTIVE = frozenset({Op.SHFL, Op.VOTE, Op.SYNCWARP})
BARRIERS = frozenset({Op.BAR, Op.BAR_AND})


class Space(enum.Enum):
    GLOBAL = "global"
    SHARED = "shared"
    LOCAL = "local"
    PARAM = "param"
    GENERIC = "generic"    # pointers only: shared or local by the windows below, else global


# Where a block's shared window and a thread's local window lie in the generic address space
# (PTX cvta.shared / cvta.local add them). Global addresses are the same in generic and
# global space; launches place arrays far above both.
GENERIC_SHARED_BASE = 0x1000_0000_0000
GENERIC_LOCAL_BASE = 0x2000_0000_0000


class SReg(enum.Enum):
    """Special registers, in CUDA's x/y/z order (x varies fastest)."""
    TID_X = "tid.x"; TID_Y = "tid.y"; TID_Z = "tid.z"
    NTID_X = "ntid.x"; NTID_Y = "ntid.y"; NTID_Z = "ntid.z"
    CTAID_X = "ctaid.x"; CTAID_Y = "ctaid.y"; CTAID_Z = "ctaid.z"
    NCTAID_X = "nctaid.x"; NCTAID_Y = "nctaid.y"; NCTAID_Z = "nctaid.z"
    LANEID = "laneid"
    WARPID = "warpid"        # linear thread index within the block // 32
    CLOCK = "clock64"        # SM cycle counter (i64)
    # The user's launch dim (total threads per dimension, numpy order): a hidden parameter.
    DIM_0 = "dim.0"; DIM_1 = "dim.1"; DIM_2 = "dim.2"; DIM_3 = "dim.3"


SREG_TYPE = {s: Scalar.I32 for s in SReg} | {SReg.CLOCK: Scalar.I64}


class AtomOp(enum.Enum):
    ADD = "add"; SUB = "sub"; MIN = "min"; MAX = "max"; CAS = "cas"; EXCH = "exch"
    AND = "and"; OR = "or"; XOR = "xor"          # bitwise, integers only


class ShflMode(enum.Enum):
    IDX = "idx"; UP = "up"; DOWN = "down"; XOR = "bfly"


class VoteMode(enum.Enum):
    BALLOT = "ballot"; ANY = "any"; ALL = "all"


@dataclass(frozen=True)
class Loc:
    """A source location: the user's file, 1-based line, 0-based column."""
    file: str
    line: int
    col: int
    func: str = ""     # the kernel or device function the code belongs to

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"


@dataclass(frozen=True, eq=False)
class Reg:
    id: int
    type: Scalar
    name: str = ""     # the source variable it holds, for printing and errors

    def __str__(self) -> str:
        return f"%{self.name}{self.id}" if self.name else f"%r{self.id}"


@dataclass(frozen=True)
class Imm:
    value: int | float | bool
    type: Scalar

    def __str__(self) -> str:
        return f"{self.value!r}:{self.type.short}"


Operand = Reg | Imm


@dataclass(frozen=True, eq=False)
class MemRef:
    """An array the kernel reaches: a parameter (global) or a shared allocation.

    Indices into it count scalars of ``elem``; a composite element of ``ncomp`` scalars sits
    at index ``element_index * ncomp + component``.
    """
    name: str
    space: Space
    elem: Scalar
    ndim: int
    ncomp: int = 1                                 # scalars per array element (vec3 -> 3)
    shape: tuple[int, ...] | None = None           # static shape: shared arrays only
    layout: str = "row_major"
    offset: int = 0                                # byte offset in the block's shared window
    dtype_name: str = ""                           # the element type as the user wrote it
    pad: int = 0                                   # elements added to the fastest dimension

    def padded_shape(self) -> tuple[int, ...]:
        """The allocated shape: ``pad`` more elements along the fastest-varying dimension."""
        assert self.shape is not None
        shape = list(self.shape)
        shape[0 if self.layout == "column_major" else -1] += self.pad
        return tuple(shape)

    @property
    def size(self) -> int:
        """Scalar count of a shared allocation (padding included)."""
        n = self.ncomp
        for s in self.padded_shape():
            n *= s
        return n

    def __str__(self) -> str:
        return f"@{self.name}"


@dataclass(frozen=True)
class Pointer:
    """A byte-addressed access: ``elem`` scalars at the address in src0, in ``space``
    (GLOBAL: the launch's arrays; SHARED: an offset in the block's shared window; LOCAL: an
    offset in the thread's own local window; GENERIC: any of them, by address). The address
    must be aligned to the access's size."""
    space: Space
    elem: Scalar

    @property
    def name(self) -> str:
        return f"{self.space.value}*"

    def __str__(self) -> str:
        return f"[{self.space.value}*{self.elem.short}]"


@dataclass(frozen=True)
class AtomArg:
    mem: MemRef | Pointer
    op: AtomOp


@dataclass(frozen=True)
class DimArg:
    mem: MemRef
    dim: int


@dataclass(frozen=True)
class CheckArg:
    """What an OutOfBoundsError names: the array, the dimension checked."""
    mem: MemRef
    dim: int


Arg = (MemRef | Pointer | AtomArg | DimArg | CheckArg | SReg | ShflMode | VoteMode | str
       | tuple[str, str] | None)


@dataclass(eq=False)
class Instr:
    op: Op
    dsts: tuple[Reg, ...] = ()
    srcs: tuple[Operand, ...] = ()
    arg: Arg = None
    loc: Loc | None = None

    @property
    def dst(self) -> Reg:
        return self.dsts[0]

    @property
    def is_terminator(self) -> bool:
        return self.op in TERMINATORS


@dataclass(eq=False)
class Block:
    label: str
    instrs: list[Instr] = field(default_factory=list)

    @property
    def term(self) -> Instr:
        return self.instrs[-1]

    @property
    def successors(self) -> tuple[str, ...]:
        t = self.term
        if t.op is Op.BR:
            return (t.arg,)
        if t.op is Op.CBR:
            return tuple(t.arg)
        return ()


@dataclass(frozen=True)
class ScalarParam:
    name: str
    reg: Reg            # the register that holds the value from entry on


@dataclass(frozen=True)
class ArrayParam:
    name: str
    mem: MemRef


Param = ScalarParam | ArrayParam


@dataclass(frozen=True)
class LaunchSig:
    """The launch shape a kernel was compiled for: ndim of ``dim`` and of ``block_dim``.

    ``block_ndim == 1`` with ``dim_ndim > 1`` is Warp's linear mapping (blocks are chunks of the
    flattened index space); otherwise ``block_ndim == dim_ndim`` and the grid is n-D.
    """
    dim_ndim: int = 1
    block_ndim: int = 1


@dataclass(eq=False)
class Function:
    name: str
    params: list[Param]
    blocks: list[Block]
    shared: list[MemRef] = field(default_factory=list)
    launch: LaunchSig = field(default_factory=LaunchSig)
    debug: bool = False
    fastmath: bool = False
    loc: Loc | None = None
    tid_ndim: int = 0            # values the kernel unpacks from tid() (0: never called)
    thread_idx_ndim: int = 0     # same for thread_idx()/block_idx()/block_dim()/grid_dim()
    local: list[MemRef] = field(default_factory=list)    # per-thread arrays (imported stack frames)

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    def block(self, label: str) -> Block:
        for b in self.blocks:
            if b.label == label:
                return b
        raise KeyError(label)

    @property
    def shared_bytes(self) -> int:
        end = 0
        for m in self.shared:
            end = max(end, m.offset + m.size * m.elem.nbytes)
        return end

    def instructions(self):
        for b in self.blocks:
            yield from b.instrs

    def precise_only(self) -> bool:
        """Whether the function uses ops simt's PTX backend does not emit yet: memory through
        byte addresses (Pointer, ADDR), BITCAST and FMA, which kernels imported from PTX use
        (the CPU engines run them; on a GPU an imported kernel runs its own PTX)."""
        return any(ins.op in (Op.ADDR, Op.BITCAST, Op.FMA) or isinstance(ins.arg, Pointer)
                   or (isinstance(ins.arg, AtomArg) and isinstance(ins.arg.mem, Pointer))
                   for ins in self.instructions())

    def registers(self) -> list[Reg]:
        """Every register named by the function, in first-appearance order."""
        seen: dict[int, Reg] = {}
        for p in self.params:
            if isinstance(p, ScalarParam):
                seen.setdefault(p.reg.id, p.reg)
        for ins in self.instructions():
            for r in (*ins.dsts, *ins.srcs):
                if isinstance(r, Reg):
                    seen.setdefault(r.id, r)
        return list(seen.values())
