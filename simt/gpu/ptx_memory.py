"""PTX for the MIR's memory, atomic, special-register, barrier and warp ops.

Addresses: a global array element is ``base + index * scalar_bytes`` in 64-bit arithmetic
(``mad.wide`` from a 32-bit index); a shared one is ``smem + offset + index * scalar_bytes``
in 32-bit shared-window addresses. Indices count scalars, as in the MIR.
"""
from __future__ import annotations

from ..ir.mir import AtomArg, AtomOp, Imm, Instr, MemRef, Op, Reg, ShflMode, Space, SReg, VoteMode
from ..ir.types import Scalar
from . import ptx_math
from .ptx import BITS_TYPE, INT_TYPE, MEM_TYPE, Emitter, imm_text


def lower(em: Emitter, ins: Instr) -> None:
    handler = _HANDLERS.get(ins.op)
    if handler is None:
        raise NotImplementedError(f"PTX backend: no lowering of MIR op {ins.op.name}")
    handler(em, ins)


# ---- addresses, loads, stores -------------------------------------------------------------

def address(em: Emitter, mem: MemRef, index) -> tuple[str, str]:
    """(state space, ``[address]`` operand) of scalar ``index`` of ``mem``."""
    size = mem.elem.nbytes
    if mem.space is Space.SHARED:
        base, offset = em.smem_base, mem.offset
        if isinstance(index, Imm):
            byte_offset = offset + int(index.value) * size
            return "shared", f"[{base}+{byte_offset}]" if byte_offset else f"[{base}]"
        i = em.reg(index)
        if index.type.bits == 64:
            narrow = em.tmp("%r")
            em.ins(f"cvt.u32.u64 {narrow}, {i}")
            i = narrow
        addr = em.tmp("%r")
        em.ins(f"mad.lo.s32 {addr}, {i}, {size}, {base}")
        return "shared", f"[{addr}+{offset}]" if offset else f"[{addr}]"
    if mem.space is not Space.GLOBAL:
        raise NotImplementedError(f"PTX backend: memory space {mem.space.value}")
    base = em.array_base[mem]
    if isinstance(index, Imm):
        byte_offset = int(index.value) * size
        return "global", f"[{base}+{byte_offset}]" if byte_offset else f"[{base}]"
    addr = em.tmp("%rd")
    i = em.reg(index)
    if index.type.bits == 64:
        em.ins(f"mad.lo.s64 {addr}, {i}, {size}, {base}")
    else:
        em.ins(f"mad.wide.{'s32' if index.type.is_signed else 'u32'} {addr}, {i}, {size}, {base}")
    return "global", f"[{addr}]"


def _vector(names: list[str]) -> tuple[str, str]:
    """(".v2"/".v4" or "", operand text) for 1, 2 or 4 registers."""
    if len(names) == 1:
        return "", names[0]
    return f".v{len(names)}", "{" + ", ".join(names) + "}"


def _load(em: Emitter, ins: Instr) -> None:
    mem: MemRef = ins.arg
    space, addr = address(em, mem, ins.srcs[0])
    is_bool = mem.elem is Scalar.BOOL
    targets = [em.tmp("%r") if is_bool else em.reg(d) for d in ins.dsts]
    width, operand = _vector(targets)
    em.ins(f"ld.{space}{width}.{MEM_TYPE[mem.elem]} {operand}, {addr}")
    if is_bool:
        for d, byte in zip(ins.dsts, targets):
            em.ins(f"setp.ne.u32 {em.reg(d)}, {byte}, 0")


def _store(em: Emitter, ins: Instr) -> None:
    mem: MemRef = ins.arg
    space, addr = address(em, mem, ins.srcs[0])
    values = []
    for v in ins.srcs[1:]:
        if mem.elem is Scalar.BOOL and isinstance(v, Reg):
            byte = em.tmp("%r")
            em.ins(f"selp.u32 {byte}, 1, 0, {em.reg(v)}")
            values.append(byte)
        else:
            values.append(em.reg(v) if isinstance(v, Reg) else imm_text(v.value, v.type))
    width, operand = _vector(values)
    em.ins(f"st.{space}{width}.{MEM_TYPE[mem.elem]} {addr}, {operand}")


# ---- atomics ------------------------------------------------------------------------------

_ATOM_ADD_TYPE = {Scalar.I32: "s32", Scalar.U32: "u32", Scalar.I64: "u64", Scalar.U64: "u64",
                  Scalar.F32: "f32", Scalar.F64: "f64"}


def _atomic(em: Emitter, ins: Instr) -> None:
    arg: AtomArg = ins.arg
    t = arg.mem.elem
    if t.bits not in (32, 64):
        raise NotImplementedError(f"PTX backend: atomics on {t} arrays")
    space, addr = address(em, arg.mem, ins.srcs[0])
    d = em.reg(ins.dst)
    bits = f"b{t.bits}"
    value = em.val(ins.srcs[-1])
    if arg.op is AtomOp.CAS:
        em.ins(f"atom.{space}.cas.{bits} {d}, {addr}, {em.val(ins.srcs[1])}, {value}")
    elif arg.op is AtomOp.EXCH:
        em.ins(f"atom.{space}.exch.{bits} {d}, {addr}, {value}")
    elif arg.op in (AtomOp.ADD, AtomOp.SUB):
        if arg.op is AtomOp.SUB:                    # old - v == old + (-v), exactly, in every type
            negated = em.tmp(t)
            em.ins(f"neg.{'s' + INT_TYPE[t][1:] if t.is_int else INT_TYPE[t]} {negated}, {value}")
            value = negated
        em.ins(f"atom.{space}.add.{_ATOM_ADD_TYPE[t]} {d}, {addr}, {value}")
    elif arg.op in (AtomOp.AND, AtomOp.OR, AtomOp.XOR):
        em.ins(f"atom.{space}.{arg.op.value}.{bits} {d}, {addr}, {value}")
    elif t.is_int:
        em.ins(f"atom.{space}.{arg.op.value}.{INT_TYPE[t]} {d}, {addr}, {value}")
    else:
        _float_min_max_loop(em, arg.op.value, t, space, addr, d, value)


def _float_min_max_loop(em: Emitter, op: str, t: Scalar, space: str, addr: str, d: str,
                        value: str) -> None:
    """PTX has no float atomic min/max: a compare-and-swap loop on the bits, with the MIR's
    MIN/MAX (ptx_math.float_min_max)."""
    bits = f"b{t.bits}"
    old, new, seen, retry = em.tmp(t), em.tmp(t), em.tmp(t), em.tmp(Scalar.BOOL)
    loop = em.new_label(f"atomic_{op}")
    em.ins(f"ld.volatile.{space}.{INT_TYPE[t]} {old}, {addr}")
    em.label(loop)
    ptx_math.float_min_max(em, op == "min", new, old, value, t)
    em.ins(f"atom.{space}.cas.{bits} {seen}, {addr}, {old}, {new}")
    em.ins(f"setp.ne.{bits} {retry}, {seen}, {old}")
    em.ins(f"mov.{bits} {old}, {seen}")
    em.ins(f"@{retry} bra {loop}")
    em.ins(f"mov.{INT_TYPE[t]} {d}, {old}")


# ---- special registers, shapes, checks ----------------------------------------------------

_HARDWARE_SREG = {SReg.TID_X: "%tid.x", SReg.TID_Y: "%tid.y", SReg.TID_Z: "%tid.z",
                  SReg.NTID_X: "%ntid.x", SReg.NTID_Y: "%ntid.y", SReg.NTID_Z: "%ntid.z",
                  SReg.CTAID_X: "%ctaid.x", SReg.CTAID_Y: "%ctaid.y", SReg.CTAID_Z: "%ctaid.z",
                  SReg.NCTAID_X: "%nctaid.x", SReg.NCTAID_Y: "%nctaid.y",
                  SReg.NCTAID_Z: "%nctaid.z", SReg.LANEID: "%laneid"}
_DIMS = (SReg.DIM_0, SReg.DIM_1, SReg.DIM_2, SReg.DIM_3)


def _sreg(em: Emitter, ins: Instr) -> None:
    which: SReg = ins.arg
    d = em.reg(ins.dst)
    if which in _HARDWARE_SREG:
        em.ins(f"mov.u32 {d}, {_HARDWARE_SREG[which]}")
    elif which is SReg.CLOCK:
        em.ins(f"mov.u64 {d}, %clock64")
    elif which in _DIMS:
        em.ins(f"mov.u32 {d}, {em.launch_dim[_DIMS.index(which)]}")
    else:   # WARPID: the linear thread index // 32 (PTX's %warpid is a hardware slot, not this)
        x, y, z, nx, ny, linear = (em.tmp("%r") for _ in range(6))
        for r, name in ((x, "%tid.x"), (y, "%tid.y"), (z, "%tid.z"), (nx, "%ntid.x"), (ny, "%ntid.y")):
            em.ins(f"mov.u32 {r}, {name}")
        em.ins(f"mad.lo.u32 {linear}, {z}, {ny}, {y}")
        em.ins(f"mad.lo.u32 {linear}, {linear}, {nx}, {x}")
        em.ins(f"shr.u32 {d}, {linear}, 5")


def _dim(em: Emitter, ins: Instr) -> None:
    mem, k = ins.arg.mem, ins.arg.dim
    d = em.reg(ins.dst)
    if mem.space is Space.SHARED:
        em.ins(f"mov.u32 {d}, {mem.shape[k]}")
    else:
        em.ins(f"mov.u32 {d}, {em.array_shape[mem][k]}")


def _check(em: Emitter, ins: Instr) -> None:
    """0 <= i < n as one unsigned compare (n >= 0); a failure traps the whole kernel."""
    i, n = ins.srcs
    if isinstance(i, Imm) and isinstance(n, Imm):
        if not 0 <= int(i.value) < int(n.value):
            em.ins("trap")
        return
    t = i.type if isinstance(i, Reg) else n.type
    bad = em.tmp(Scalar.BOOL)
    em.ins(f"setp.ge.u{t.bits if t.bits == 64 else 32} {bad}, {em.val(i)}, {em.val(n)}")
    em.ins(f"@{bad} trap")


# ---- barriers and warp ops ----------------------------------------------------------------

def _barrier(em: Emitter, ins: Instr) -> None:
    if ins.op is Op.BAR:
        em.ins("bar.sync 0")
    else:
        em.ins(f"bar.red.and.pred {em.reg(ins.dst)}, 0, {em.val(ins.srcs[0])}")


def _syncwarp(em: Emitter, ins: Instr) -> None:
    em.ins(f"bar.warp.sync {em.val(ins.srcs[0])}")


def _activemask(em: Emitter, ins: Instr) -> None:
    em.ins(f"activemask.b32 {em.reg(ins.dst)}")


def _vote(em: Emitter, ins: Instr) -> None:
    mode: VoteMode = ins.arg
    pred, mask = em.val(ins.srcs[0]), em.val(ins.srcs[1])
    if mode is VoteMode.BALLOT:
        em.ins(f"vote.sync.ballot.b32 {em.reg(ins.dst)}, {pred}, {mask}")
    else:
        em.ins(f"vote.sync.{mode.value}.pred {em.reg(ins.dst)}, {pred}, {mask}")


def _shuffle(em: Emitter, ins: Instr) -> None:
    """shfl.sync.b32 (two for 64-bit values). A lane/offset outside 0..31 reads the lane's own
    value, as in the engines (PTX would use its low 5 bits); idx keeps PTX's ``& 31``."""
    value, lane, mask = ins.srcs
    mode: ShflMode = ins.arg
    d, t = em.reg(ins.dst), ins.dst.type
    if isinstance(value, Imm):
        em.ins(f"mov.{BITS_TYPE[t]} {d}, {em.val(value)}")
        return
    b, m = em.val(lane), em.val(mask)
    clamp = "0" if mode is ShflMode.UP else "0x1f"
    own_value = None
    if mode is not ShflMode.IDX and not (isinstance(lane, Imm) and 0 <= int(lane.value) <= 31):
        own_value = em.tmp(Scalar.BOOL)
        em.ins(f"setp.gt.u32 {own_value}, {b}, 31")

    def shuffle32(dst: str, src: str) -> None:
        em.ins(f"shfl.sync.{mode.value}.b32 {dst}, {src}, {b}, {clamp}, {m}")

    src = em.reg(value)
    if t is Scalar.BOOL:
        word, got = em.tmp("%r"), em.tmp("%r")
        em.ins(f"selp.u32 {word}, 1, 0, {src}")
        shuffle32(got, word)
        result = em.tmp(Scalar.BOOL)
        em.ins(f"setp.ne.u32 {result}, {got}, 0")
    elif t.bits == 64:
        lo, hi, lo2, hi2, result = em.tmp("%r"), em.tmp("%r"), em.tmp("%r"), em.tmp("%r"), em.tmp(t)
        em.ins(f"mov.b64 {{{lo}, {hi}}}, {src}")
        shuffle32(lo2, lo)
        shuffle32(hi2, hi)
        em.ins(f"mov.b64 {result}, {{{lo2}, {hi2}}}")
    else:
        result = em.tmp(t)
        shuffle32(result, src)
    if own_value is None:
        em.ins(f"mov.{BITS_TYPE[t]} {d}, {result}")
    elif t is Scalar.BOOL:
        keep, take, stay = em.tmp(t), em.tmp(t), em.tmp(t)
        em.ins(f"and.pred {keep}, {own_value}, {src}")
        em.ins(f"not.pred {stay}, {own_value}")
        em.ins(f"and.pred {take}, {stay}, {result}")
        em.ins(f"or.pred {d}, {keep}, {take}")
    else:
        em.ins(f"selp.{BITS_TYPE[t]} {d}, {src}, {result}, {own_value}")


# ---- printf --------------------------------------------------------------------------------

VPRINTF = (".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, "
           ".param .b64 vprintf_param_1);")


def _print(em: Emitter, ins: Instr) -> None:
    """CUDA's vprintf(format, args): the format as a global string, the values in a local
    buffer laid out as C varargs (float promoted to double, each value aligned to its size)."""
    if VPRINTF not in em.module_lines:
        em.module_lines.append(VPRINTF)
    data = ins.arg.encode() + b"\0"
    name = f"$str{sum(1 for line in em.module_lines if '$str' in line)}"
    em.module_lines.append(f".global .align 1 .b8 {name}[{len(data)}] = "
                           f"{{{', '.join(str(b) for b in data)}}};")
    fmt = em.tmp("%rd")
    em.ins(f"mov.u64 {fmt}, {name}")
    em.ins(f"cvta.global.u64 {fmt}, {fmt}")
    args = "0"
    if ins.srcs:
        offset, stores = 0, []
        for x in ins.srcs:
            t = x.type
            if t.is_float:
                value = em.val(x)
                if t is Scalar.F32:
                    wide = em.tmp(Scalar.F64)
                    em.ins(f"cvt.f64.f32 {wide}, {value}")
                    value = wide
                size, kind = 8, "f64"
            elif t.bits == 64:
                value, size, kind = em.val(x), 8, "b64"
            else:
                value, size, kind = em.val(x), 4, "b32"
            offset = -(-offset // size) * size
            stores.append((offset, kind, value))
            offset += size
        buf = f"__printf_buf{em.label_count}"
        em.label_count += 1
        em.ins(f".local .align 8 .b8 {buf}[{max(offset, 8)}]")
        for off, kind, value in stores:
            em.ins(f"st.local.{kind} [{buf}+{off}], {value}")
        args = em.tmp("%rd")
        em.ins(f"mov.u64 {args}, {buf}")
        em.ins(f"cvta.local.u64 {args}, {args}")
    em.body.append("\t{")
    em.ins(".param .b64 vprintf_format")
    em.ins(f"st.param.b64 [vprintf_format], {fmt}")
    em.ins(".param .b64 vprintf_args")
    em.ins(f"st.param.b64 [vprintf_args], {args}")
    em.ins(".param .b32 vprintf_status")
    em.ins("call.uni (vprintf_status), vprintf, (vprintf_format, vprintf_args)")
    em.body.append("\t}")


_HANDLERS = {Op.LD: _load, Op.ST: _store, Op.ATOM: _atomic, Op.SREG: _sreg, Op.DIM: _dim,
             Op.CHECK: _check, Op.PRINT: _print, Op.BAR: _barrier, Op.BAR_AND: _barrier, Op.SYNCWARP: _syncwarp,
             Op.ACTIVEMASK: _activemask, Op.VOTE: _vote, Op.SHFL: _shuffle}
