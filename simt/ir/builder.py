"""Emitting MIR: registers, blocks and typed instruction helpers used by lowering and builtins."""
from __future__ import annotations

from .mir import (BINARY, COMPARE, UNARY, Arg, Block, Imm, Instr, Loc, Op, Operand, Reg)
from .types import Scalar


def type_of(x: Operand) -> Scalar:
    return x.type


class Builder:
    """Appends instructions to a current block; every instruction gets the current ``loc``."""

    def __init__(self, loc: Loc | None = None):
        self.blocks: list[Block] = []
        self.block: Block | None = None
        self.loc = loc
        self._next_reg = 0
        self._labels: dict[str, int] = {}

    # registers and blocks -------------------------------------------------------------
    def reg(self, type: Scalar, name: str = "") -> Reg:
        self._next_reg += 1
        return Reg(self._next_reg, type, name)

    def new_block(self, hint: str = "bb") -> Block:
        """Create a block (not yet current). Order of creation is the layout order."""
        n = self._labels.get(hint, 0)
        self._labels[hint] = n + 1
        b = Block(f"{hint}{n}")
        self.blocks.append(b)
        return b

    def set_block(self, b: Block) -> None:
        self.block = b

    @property
    def terminated(self) -> bool:
        return bool(self.block and self.block.instrs and self.block.instrs[-1].is_terminator)

    # raw emission ------------------------------------------------------------------
    def emit(self, op: Op, dsts: tuple[Reg, ...] = (), srcs: tuple[Operand, ...] = (),
             arg: Arg = None) -> Instr:
        assert self.block is not None, "no current block"
        assert not self.terminated, f"emitting {op.name} after a terminator in {self.block.label}"
        ins = Instr(op, tuple(dsts), tuple(srcs), arg, self.loc)
        self.block.instrs.append(ins)
        return ins

    # typed helpers -----------------------------------------------------------------
    def imm(self, value, type: Scalar) -> Imm:
        if type is Scalar.BOOL:
            return Imm(bool(value), type)
        if type.is_storage:
            return Imm(_convert_constant(float(value), type), type)
        if type.is_float:
            return Imm(float(value), type)
        return Imm(int(value), type)

    def mov(self, src: Operand, dst: Reg | None = None) -> Reg:
        dst = dst or self.reg(src.type)
        self.emit(Op.MOV, (dst,), (src,))
        return dst

    # float16 is a storage type: like Warp's ``half``, every operation on it converts the
    # operands to float32, computes there and rounds the result back to float16.
    def binary(self, op: Op, a: Operand, b: Operand) -> Operand:
        assert op in BINARY, op
        if a.type.is_storage:
            return self.cvt(self.binary(op, self.cvt(a, Scalar.F32), self.cvt(b, Scalar.F32)),
                            a.type)
        dst = self.reg(a.type)
        self.emit(op, (dst,), (a, b))
        return dst

    def unary(self, op: Op, a: Operand, result: Scalar | None = None) -> Operand:
        assert op in UNARY or op in (Op.ISNAN, Op.ISINF), op
        if a.type.is_storage:
            value = self.unary(op, self.cvt(a, Scalar.F32))
            return value if value.type is Scalar.BOOL else self.cvt(value, a.type)
        dst = self.reg(result or (Scalar.BOOL if op in (Op.ISNAN, Op.ISINF) else a.type))
        self.emit(op, (dst,), (a,))
        return dst

    def compare(self, op: Op, a: Operand, b: Operand) -> Reg:
        assert op in COMPARE, op
        if a.type.is_storage:
            return self.compare(op, self.cvt(a, Scalar.F32), self.cvt(b, Scalar.F32))
        dst = self.reg(Scalar.BOOL)
        self.emit(op, (dst,), (a, b))
        return dst

    def select(self, cond: Operand, a: Operand, b: Operand) -> Reg:
        dst = self.reg(a.type)
        self.emit(Op.SELECT, (dst,), (cond, a, b))
        return dst

    def cvt(self, a: Operand, to: Scalar) -> Operand:
        """Convert; float16 and bfloat16 convert only to and from float32 (other types go
        through it, as Warp's ``half`` does)."""
        if a.type is to:
            return a
        if (a.type.is_storage or to.is_storage) and Scalar.F32 not in (a.type, to):
            return self.cvt(self.cvt(a, Scalar.F32), to)
        if isinstance(a, Imm):
            return self.imm(_convert_constant(a.value, to), to)
        dst = self.reg(to)
        self.emit(Op.CVT, (dst,), (a,))
        return dst

    def br(self, target: Block) -> None:
        self.emit(Op.BR, arg=target.label)

    def cbr(self, cond: Operand, t: Block, f: Block) -> None:
        self.emit(Op.CBR, srcs=(cond,), arg=(t.label, f.label))

    def ret(self) -> None:
        self.emit(Op.RET)


def _convert_constant(value, to: Scalar):
    """Fold a CVT of an immediate with the engines' semantics (C casts, int wrap)."""
    import numpy as np
    if to is Scalar.BOOL:
        return bool(value)
    if to is Scalar.F16:
        return float(np.array(value).astype(np.float32).astype(np.float16))
    if to is Scalar.BF16:
        from .bfloat16 import round_value
        return round_value(value)
    if to.is_float:
        return float(np.array(value).astype(to.np))
    if isinstance(value, float):
        value = int(value)  # truncate toward zero like C
    return int(np.array(int(value) & ((1 << 64) - 1), dtype=np.uint64).astype(to.np))
