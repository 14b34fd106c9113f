"""The fast engine's flow facts (simt/sim/fast/flow.py) on small hand-written MIR: which
definitions reach an instruction, and which guards hold there."""
from __future__ import annotations

from simt.ir.mir import Block, Function, Imm, Instr, Op, Reg, ScalarParam, SReg
from simt.ir.types import Scalar
from simt.sim.fast.flow import ENTRY, Fact, Flow

I32, BOOL = Scalar.I32, Scalar.BOOL
N = Reg(1, I32, "n")
X = Reg(2, I32, "x")
P, Q = Reg(3, BOOL, "p"), Reg(4, BOOL, "q")
USE = Reg(5, I32, "use")


def _flow(*blocks: Block) -> Flow:
    fn = Function("f", [ScalarParam("n", N)], list(blocks))
    return Flow(fn, lambda r: r.id == N.id)


def _guarded(*between: Instr) -> tuple[Flow, Instr]:
    """x = tid; p = x < n; q = p; <between>; if q: use x."""
    use = Instr(Op.MOV, (USE,), (X,))
    flow = _flow(Block("entry", [Instr(Op.SREG, (X,), (), SReg.TID_X),
                                 Instr(Op.LT, (P,), (X, N)), Instr(Op.MOV, (Q,), (P,)), *between,
                                 Instr(Op.CBR, (), (Q,), ("body", "done"))]),
                 Block("body", [use, Instr(Op.BR, arg="done")]),
                 Block("done", [Instr(Op.RET)]))
    return flow, use


def test_a_guard_holds_in_the_arm_it_leads_to():
    flow, use = _guarded()
    assert flow.facts(X, use) == [Fact(X.id, Op.LT, N)]


def test_a_guard_is_forgotten_where_its_register_is_written_after_the_comparison():
    # x changes between the comparison and the branch (q is a copy of the comparison's result)
    flow, use = _guarded(Instr(Op.ADD, (X,), (X, Imm(1000, I32))))
    assert flow.facts(X, use) == []


def test_definitions_reaching_a_loop_body():
    """x = 0; loop: use x; x = x + 1; if x < n: loop."""
    init = Instr(Op.MOV, (X,), (Imm(0, I32),))
    use = Instr(Op.MOV, (USE,), (X,))
    step = Instr(Op.ADD, (X,), (X, Imm(1, I32)))
    flow = _flow(Block("entry", [init, Instr(Op.BR, arg="loop")]),
                 Block("loop", [use, step, Instr(Op.LT, (P,), (X, N)),
                                Instr(Op.CBR, (), (P,), ("loop", "done"))]),
                 Block("done", [Instr(Op.RET)]))
    assert flow.reaching(X, use) == {init, step}
    assert flow.facts(X, use) == []             # the first pass comes in unguarded
    assert flow.reaching(N, use) == {ENTRY}
