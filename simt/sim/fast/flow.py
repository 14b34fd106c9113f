"""Flow-sensitive facts for bounds.py: which definitions of a register reach an instruction,
and what the branches taken on every path to it say about the register's value.

PTX registers are redefined (nvcc's loops keep an index in one register and add the stride
to it), so a register's interval over the whole block says little. At one instruction,
though, only some definitions reach, and a dominating guard (``i < n``, on every path in)
bounds what the register holds there. Both are standard forward data-flow problems over
the MIR blocks:

- reaching definitions (may): a definition reaches a point if some path from it gets there
  without another definition of its register; ``ENTRY`` stands for the value a register
  has when the thread starts (a parameter's argument, or zero);
- guard facts (must): ``reg op bound`` (op one of <, <=, >, >=) holds at a point if every
  path to it leaves a branch on that comparison by the arm that makes it true, and neither
  the register nor the bound is written again on the way. A bound is an immediate or a
  register written by one instruction (its value is fixed once written).

Comparisons are taken as the MIR types define them (signed for i32/i64); bounds.py uses
facts only about i32 and i64 registers.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...ir.mir import Function, Imm, Instr, Op, Reg

ENTRY = "entry"                        # the definition a thread starts with
_FLIP = {Op.LT: Op.GT, Op.LE: Op.GE, Op.GT: Op.LT, Op.GE: Op.LE}
_NEGATE = {Op.LT: Op.GE, Op.LE: Op.GT, Op.GT: Op.LE, Op.GE: Op.LT}


@dataclass(frozen=True)
class Fact:
    reg: int                           # register id
    op: Op                             # LT, LE, GT or GE: ``reg op bound``
    bound: Reg | Imm


class Flow:
    """Reaching definitions and guard facts of one function. ``fixed(reg)``: whether a
    register holds one value once written (one definition, never read before it)."""

    def __init__(self, fn: Function, fixed):
        self.fn, self.fixed = fn, fixed
        self.where: dict[int, tuple[str, int]] = {}          # id(instr) -> (block, position)
        self.order: dict[int, int] = {}                      # id(instr) -> place in the function
        self.defs: dict[int, list[Instr]] = {}
        for b in fn.blocks:
            for k, ins in enumerate(b.instrs):
                self.where[id(ins)] = (b.label, k)
                self.order[id(ins)] = len(self.order)
                for d in ins.dsts:
                    self.defs.setdefault(d.id, []).append(ins)
        self.blocks = {b.label: b for b in fn.blocks}
        self.preds: dict[str, list[str]] = {b.label: [] for b in fn.blocks}
        for b in fn.blocks:
            for s in b.successors:
                if s in self.preds:
                    self.preds[s].append(b.label)
        self.reach_in = self._reaching()
        self.facts_in = self._facts()

    # --- queries --------------------------------------------------------------------------
    def reaching(self, reg: Reg, at: Instr) -> frozenset:
        """The definitions (Instr, or ENTRY) of ``reg`` whose value it may hold at ``at``."""
        label, pos = self.where[id(at)]
        for ins in reversed(self.blocks[label].instrs[:pos]):
            if any(d.id == reg.id for d in ins.dsts):
                return frozenset([ins])
        return frozenset(d for r, d in self.reach_in[label] if r == reg.id)

    def facts(self, reg: Reg, at: Instr) -> list[Fact]:
        """The guard facts about ``reg`` that hold at ``at``, in a fixed order (the generated
        code must not depend on how sets iterate)."""
        label, pos = self.where[id(at)]
        facts = [f for f in self.facts_in[label] if f.reg == reg.id]
        for ins in self.blocks[label].instrs[:pos]:
            facts = [f for f in facts if not _writes(ins, f)]
        return sorted(facts, key=lambda f: (f.op.value, str(f.bound)))

    # --- reaching definitions -------------------------------------------------------------
    def _reaching(self) -> dict[str, frozenset]:
        """Block label -> the (register id, definition) pairs reaching its start."""
        gen, killed = {}, {}
        for b in self.fn.blocks:
            last: dict[int, Instr] = {}
            for ins in b.instrs:
                for d in ins.dsts:
                    last[d.id] = ins
            gen[b.label] = frozenset((r, ins) for r, ins in last.items())
            killed[b.label] = frozenset(last)
        start = frozenset((r, ENTRY) for r in self._registers())
        reach = {b.label: frozenset() for b in self.fn.blocks}
        reach[self.fn.entry.label] = start
        changed = True
        while changed:
            changed = False
            for b in self.fn.blocks:
                inn = set(start) if b is self.fn.entry else set()
                for p in self.preds[b.label]:
                    inn |= {x for x in reach[p] if x[0] not in killed[p]} | gen[p]
                inn = frozenset(inn)
                if inn != reach[b.label]:
                    reach[b.label], changed = inn, True
        return reach

    def _registers(self) -> set[int]:
        regs = set(self.defs)
        for b in self.fn.blocks:
            for ins in b.instrs:
                regs |= {s.id for s in ins.srcs if isinstance(s, Reg)}
        return regs

    # --- guard facts ------------------------------------------------------------------------
    def _facts(self) -> dict[str, frozenset[Fact]]:
        """Block label -> the facts holding at its start (must: every path in)."""
        top = None                                  # not yet reached by the iteration
        facts: dict[str, frozenset[Fact] | None] = {b.label: top for b in self.fn.blocks}
        facts[self.fn.entry.label] = frozenset()
        edges = {b.label: self._edge_facts(b) for b in self.fn.blocks}
        changed = True
        while changed:
            changed = False
            for b in self.fn.blocks:
                if b is self.fn.entry:
                    continue
                inn = top
                for p in self.preds[b.label]:
                    if facts[p] is None:
                        continue
                    kept = {f for f in facts[p] if not any(_writes(i, f) for i in self.blocks[p].instrs)}
                    out = frozenset(kept | edges[p][b.label])
                    inn = out if inn is None else inn & out
                if inn is not None and inn != facts[b.label]:
                    facts[b.label], changed = inn, True
        return {k: (v or frozenset()) for k, v in facts.items()}

    def _edge_facts(self, block) -> dict[str, set[Fact]]:
        """Successor label -> the facts the branch into it adds (both arms: what they share)."""
        term = block.term
        out: dict[str, set[Fact]] = {s: set() for s in block.successors}
        if term.op is not Op.CBR or not isinstance(term.srcs[0], Reg):
            return out
        t, f = term.arg
        pos = len(block.instrs) - 1
        when_true = self._implied(block, term.srcs[0], True, pos)
        when_false = self._implied(block, term.srcs[0], False, pos)
        if t == f:
            return {t: when_true & when_false}
        return {t: when_true, f: when_false}

    def _implied(self, block, cond: Reg, truth: bool, pos: int, end: int | None = None,
                 depth: int = 0) -> set[Fact]:
        """Facts that hold at position ``end`` (the branch; ``pos`` unless given) of
        ``block`` when ``cond``, as it is before position ``pos``, is ``truth``: ``cond``
        computed in the block (its last definition before ``pos``) from comparisons whose
        operands nothing writes again before ``end``."""
        end = pos if end is None else end
        if depth > 8:
            return set()
        k = next((k for k in range(pos - 1, -1, -1)
                  if any(d.id == cond.id for d in block.instrs[k].dsts)), None)
        if k is None:
            return set()
        ins = block.instrs[k]
        later = block.instrs[k + 1:end]
        if any(any(d.id == s.id for d in i.dsts) for i in later for s in ins.srcs if isinstance(s, Reg)):
            return set()                    # an operand changed after the comparison
        if ins.op is Op.MOV and isinstance(ins.srcs[0], Reg):
            return self._implied(block, ins.srcs[0], truth, k, end, depth + 1)
        if ins.op is Op.NOT and isinstance(ins.srcs[0], Reg):
            return self._implied(block, ins.srcs[0], not truth, k, end, depth + 1)
        if ins.op in (Op.AND, Op.OR):
            if (ins.op is Op.AND) != truth:     # AND false / OR true: neither side known
                return set()
            return set().union(*(self._implied(block, s, truth, k, end, depth + 1)
                                 for s in ins.srcs if isinstance(s, Reg)))
        if ins.op not in _FLIP:
            return set()
        op = ins.op if truth else _NEGATE[ins.op]
        a, b = ins.srcs
        out = set()
        if isinstance(a, Reg) and self._bound(b):
            out.add(Fact(a.id, op, b))
        if isinstance(b, Reg) and self._bound(a):
            out.add(Fact(b.id, _FLIP[op], a))
        return out

    def _bound(self, x) -> bool:
        return isinstance(x, Imm) or (isinstance(x, Reg) and self.fixed(x))


def _writes(ins: Instr, fact: Fact) -> bool:
    """Whether ``ins`` writes the fact's register or its bound."""
    bound = fact.bound.id if isinstance(fact.bound, Reg) else None
    return any(d.id in (fact.reg, bound) for d in ins.dsts)
