"""Local clean-ups of the lowering's own temporaries, so counters see about one MIR
instruction per PTX instruction: a temporary moved straight into a register is written
there; a bit cast of a bit cast back to the first type is the first value; conversions of
immediates are folded. PTX registers themselves (``fixed``) are never renamed or removed:
they may be live across blocks and redefined."""
from __future__ import annotations

import numpy as np

from ..ir.mir import Block, Imm, Instr, Op, Reg


def simplify(block: Block, fixed: set[int]) -> None:
    instrs = block.instrs
    subst: dict[int, Reg | Imm] = {}
    cast_of: dict[int, Reg] = {}          # reg id -> the reg it is a BITCAST of, while both hold
    out: list[Instr] = []
    for ins in instrs:
        if subst:
            ins.srcs = tuple(subst.get(s.id, s) if isinstance(s, Reg) else s for s in ins.srcs)
        if ins.op is Op.CVT and isinstance(ins.srcs[0], Imm) and ins.dst.id not in fixed:
            src = ins.srcs[0]
            v = np.array(src.value).astype(src.type.np).astype(ins.dst.type.np)[()]
            subst[ins.dst.id] = Imm(float(v) if ins.dst.type.is_float else int(v), ins.dst.type)
            continue
        if ins.op is Op.BITCAST and isinstance(ins.srcs[0], Reg) and ins.dst.id not in fixed:
            w = cast_of.get(ins.srcs[0].id)
            if w is not None and w.type is ins.dst.type:
                subst[ins.dst.id] = w
                continue
        if (ins.op is Op.BITCAST and out and isinstance(ins.srcs[0], Reg) and ins.srcs[0].id not in fixed
                and out[-1].dsts == (ins.srcs[0],) and _uses(instrs, ins.srcs[0]) == 1
                and out[-1].op in (Op.MOV, Op.BITCAST) and isinstance(out[-1].srcs[0], Reg)):
            prev = out.pop()
            w = prev.srcs[0]
            if prev.op is Op.BITCAST and w.type is ins.dst.type:
                ins = Instr(Op.MOV, ins.dsts, (w,), None, ins.loc)
            else:
                ins.srcs = (w,)
            if ins.srcs[0].type is ins.dst.type and ins.op is Op.BITCAST:
                ins = Instr(Op.MOV, ins.dsts, ins.srcs, None, ins.loc)
        if (ins.op is Op.MOV and out and isinstance(ins.srcs[0], Reg) and ins.srcs[0].id not in fixed
                and out[-1].dsts == (ins.srcs[0],) and _uses(instrs, ins.srcs[0]) == 1
                and not (out[-1].op is Op.LD and len(out[-1].dsts) > 1)):
            if len(out[-1].dsts) == 1:
                out[-1].dsts = ins.dsts
                ins = out.pop()
        for d in ins.dsts:                 # a redefinition ends what was known about it
            cast_of.pop(d.id, None)
            for k in [k for k, w in cast_of.items() if w.id == d.id]:
                del cast_of[k]
        if ins.op is Op.BITCAST and isinstance(ins.srcs[0], Reg):
            cast_of[ins.dst.id] = ins.srcs[0]
        out.append(ins)
    block.instrs = out


def _uses(instrs: list[Instr], r: Reg) -> int:
    return sum(1 for ins in instrs for s in ins.srcs if isinstance(s, Reg) and s.id == r.id)


def thread_jumps(blocks: list[Block]) -> None:
    """Branches to a block that only branches on go straight to where it goes."""
    hop = {b.label: b.instrs[0].arg for b in blocks[1:]
           if len(b.instrs) == 1 and b.instrs[0].op is Op.BR}

    def final(label: str) -> str:
        seen = set()
        while label in hop and label not in seen:
            seen.add(label)
            label = hop[label]
        return label

    for b in blocks:
        t = b.term
        if t.op is Op.BR:
            t.arg = final(t.arg)
        elif t.op is Op.CBR:
            t.arg = (final(t.arg[0]), final(t.arg[1]))
