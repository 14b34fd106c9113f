"""A counted MIR loop's counter read off its instructions: where it starts, how it steps and
how many trips it makes when all three are constants (sass_slots.py and sass_replay.py use it to
match loops ptxas unrolled completely)."""
from __future__ import annotations

from ...ir.mir import Imm, Op, Reg
from . import isa

_TRIP_COMPARE = {Op.LT: 0, Op.LE: 1, Op.GT: 0, Op.GE: 1, Op.NE: 0}


SAME_INITS = True   # False: a counter set before the loop more than once (even to one value) has no trip count


def trip_count(prog, t: int, b: int) -> int:
    """Iterations of the MIR loop (t, b) where its counter starts, steps and stops at
    constants (``for j in range(4)``: a MOV of 0 before the loop, an ADD of 1 and a compare
    with 4 in its latch); 0 where it does not read so."""
    return counter_of(prog, t, b)[3]


def counter_of(prog, t: int, b: int) -> tuple:
    """(the counter's register id, its first value, its step, the trips) of the MIR loop
    (t, b) as ``trip_count`` reads them; trips 0 (and the rest None) where it does not."""
    none = (None, None, None, 0)
    blocks = prog.blocks
    blk = blocks[b]
    control = isa._loop_control(blk, b)
    inc = cmp = None
    for pos in sorted(control):
        ins = blk.instrs[pos]
        if ins.op in (Op.ADD, Op.SUB) and inc is None:
            inc = ins
        elif ins.op in _TRIP_COMPARE:
            cmp = ins
    if inc is None or cmp is None or not inc.dsts:
        return none
    step = next((x.value for x in inc.srcs if isinstance(x, Imm)), None)
    bound = next((x.value for x in cmp.srcs if isinstance(x, Imm)), None)
    if not isinstance(step, int) or not isinstance(bound, int) or step == 0:
        return none
    step = -step if inc.op is Op.SUB else step
    counter = inc.dsts[0].id
    if not (isinstance(cmp.srcs[0], Reg) and cmp.srcs[0].id == counter):
        return none
    inits = [ins.srcs[0].value for k, bl in enumerate(blocks) if not t <= k <= b for ins in bl.instrs
             if ins.op is Op.MOV and ins.dsts and ins.dsts[0].id == counter and isinstance(ins.srcs[0], Imm)]
    if SAME_INITS:
        inits = sorted(set(inits))    # the copies of an unrolled outer loop each set it again
    if len(inits) != 1 or not isinstance(inits[0], int):
        return none
    stop = bound + _TRIP_COMPARE[cmp.op] * (1 if step > 0 else -1)
    n = -(-(stop - inits[0]) // step) if step > 0 else -(-(inits[0] - stop) // -step)
    if cmp.op is Op.NE and (stop - inits[0]) % step != 0:
        return none
    return counter, inits[0], step, max(0, int(n))
