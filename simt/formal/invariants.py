"""Loop invariants for the symbolic executor's summarised loops (symexec.py): the Houdini
candidates of a loop (equal to the entry value, bounds, strides, powers of two, the loop's
own comparisons, the barrier count tied to the iteration), the grid-stride residue and the
facts that keep its remainders consistent across traces."""
from __future__ import annotations

import z3

from ..ir.mir import Op, Reg
from ..ir.types import Scalar


def candidates(ex, loop, entry, regs: list[Reg]):
    """Houdini candidates, each a function (env, epoch) -> Bool over the loop's registers:
    equal to the entry value, bounds relative to it and to zero, strides (r - r0 a multiple
    of the step), powers of two, and the comparisons the loop itself makes."""
    out = []
    steps = loop_steps(ex, loop, regs, entry)
    compared: dict[int, list] = {}
    modified = {r.id for r in regs}
    for lab in loop.body:
        for ins in ex.blocks[lab].instrs:
            if ins.op in (Op.LT, Op.LE, Op.GT, Op.GE) and ins.srcs[0].type.is_int:
                a, b = ins.srcs
                for x, y in ((a, b), (b, a)):
                    if isinstance(x, Reg) and x.id in modified and not (isinstance(y, Reg) and y.id in modified):
                        compared.setdefault(x.id, []).append(y)
    for r in regs:
        if r.id not in entry.env:
            continue
        e0 = entry.env[r.id]
        rid = r.id
        out.append(lambda env, ep, rid=rid, e0=e0: env[rid] == e0)
        if not r.type.is_int:
            continue
        signed = r.type.is_signed
        ge = (lambda a, b: a >= b) if signed else z3.UGE
        le = (lambda a, b: a <= b) if signed else z3.ULE
        gt = (lambda a, b: a > b) if signed else z3.UGT
        lt = (lambda a, b: a < b) if signed else z3.ULT
        zero = z3.BitVecVal(0, r.type.bits)
        out.append(lambda env, ep, rid=rid, e0=e0, ge=ge: ge(env[rid], e0))
        out.append(lambda env, ep, rid=rid, e0=e0, le=le: le(env[rid], e0))
        if signed:
            out.append(lambda env, ep, rid=rid, z=zero: env[rid] >= z)
            out.append(lambda env, ep, rid=rid, z=zero: env[rid] > z)
        out.append(lambda env, ep, rid=rid: env[rid] & (env[rid] - 1) == 0)
        for step, added in steps.get(rid, []):
            sv = z3.simplify(step)
            if not z3.is_bv_value(sv):
                if sv.size() == r.type.bits and added:
                    out.append(Residue(rid, e0, step))
                continue
            out.append(lambda env, ep, rid=rid, e0=e0, sv=sv:
                       z3.Implies(sv != 0, z3.URem(env[rid] - e0, sv) == 0))
        for y in compared.get(rid, []):
            yv = ex.value(entry.env, y)
            for rel in (le, lt, ge, gt):
                out.append(lambda env, ep, rid=rid, yv=yv, rel=rel: rel(env[rid], yv))
    out.append(lambda env, ep, e=entry.epoch: z3.UGE(ep, e))
    # Loops with barriers: the barrier count ties the iteration to the epoch (c barriers an
    # iteration, step s: (epoch - epoch0) * s == c * (r - r0)), so two threads in one barrier
    # interval agree on the iteration's uniform counters.
    if any(ins.op in (Op.BAR, Op.BAR_AND) for lab in loop.body for ins in ex.blocks[lab].instrs):
        for r in regs:
            if r.id not in entry.env or r.type.bits != 32 or not r.type.is_int:
                continue
            for s, _ in steps.get(r.id, []):
                s = z3.simplify(s)
                if not z3.is_bv_value(s) or s.size() != 32:
                    continue
                step = z3.BitVecVal(s.as_long(), 32)
                for c in (1, 2, 3, 4):
                    out.append(lambda env, ep, rid=r.id, e0=entry.env[r.id], e=entry.epoch, step=step, c=c:
                               (ep - e) * step == c * (env[rid] - e0))
    return out


class Residue:
    """The candidate of a grid-stride loop (``r = r + s``, s symbolic and loop-invariant): r
    keeps its entry value's residue modulo s. Assumed as that equation; checked after an
    iteration as what makes it inductive without a division circuit: r is unchanged, or
    grew by s without wrapping (then (r + s) % s == r % s, an identity of integers)."""

    def __init__(self, rid: int, e0, step):
        self.rid, self.e0, self.step = rid, e0, step

    def __call__(self, env, ep):
        return z3.URem(env[self.rid], self.step) == z3.URem(self.e0, self.step)

    def facts(self, env, fresh) -> tuple:
        """The candidate as facts of a state without a division circuit: r % s and e0 % s as
        fresh values (applications of "% s", for residue_facts to keep consistent), equal,
        and e0 % s == e0 for e0 below s: (s, [(argument, value)], [facts])."""
        r, e0, s = env[self.rid], self.e0, self.step
        t = Scalar.U32 if r.size() == 32 else Scalar.U64
        rho, sigma = fresh(t, "residue"), fresh(t, "residue0")
        return s, [(r, rho), (e0, sigma)], [rho == sigma, z3.Implies(z3.ULT(e0, s), sigma == e0)]

    def latch(self, env, ep, before):
        h, r = before[self.rid], env[self.rid]
        return z3.Or(r == h, z3.And(r == h + self.step, z3.ULE(h, h + self.step)))


def loop_steps(ex, loop, regs: list[Reg], entry) -> dict:
    """{register: [(step, added)]}: the loop-invariant values the loop adds to a register
    (``r = r + s``, ``r = s + r``) or subtracts from it (``r = r - s``), each as a term over
    the loop's entry values. A step may be computed before the loop or in it from such values
    (CUDA's grid-stride ``i += gridDim.x * blockDim.x`` at the end of a while loop)."""
    modified = {r.id for r in regs}
    invariant = loop_invariant_values(ex, loop, modified, entry)

    def term(o):
        if isinstance(o, Reg) and o.id in modified:
            return invariant.get(o.id)
        return ex.value(entry.env, o)
    steps: dict[int, list] = {}
    for lab in loop.body:
        for ins in ex.blocks[lab].instrs:
            if ins.op not in (Op.ADD, Op.SUB) or not ins.dsts:
                continue
            rid = ins.dst.id
            a, b = ins.srcs
            if getattr(a, "id", None) == rid:
                other = b
            elif ins.op is Op.ADD and getattr(b, "id", None) == rid:
                other = a
            else:
                continue
            step = term(other)
            if step is not None:
                steps.setdefault(rid, []).append((step, ins.op is Op.ADD))
    return steps


# integer operations whose value is a function of their operands only (no memory, no other
# thread, no clock): a loop recomputing one from loop-invariant operands gets the same value
_PURE = frozenset({Op.MOV, Op.SELECT, Op.CVT, Op.ADD, Op.SUB, Op.MUL, Op.MIN, Op.MAX, Op.AND,
                   Op.OR, Op.XOR, Op.SHL, Op.SHR, Op.NEG, Op.NOT, Op.ABS, Op.SREG, Op.DIM})


def loop_invariant_values(ex, loop, modified: set, entry) -> dict:
    """{register: term over the entry values} for the registers a loop defines once, by a
    pure integer operation of loop-invariant operands. Only candidates are built from these
    terms (Houdini then checks them against the iteration), so a register the loop does not
    in fact recompute on every path costs a candidate, never soundness."""
    defs: dict[int, list] = {}
    for lab in loop.body:
        for ins in ex.blocks[lab].instrs:
            for d in ins.dsts:
                defs.setdefault(d.id, []).append(ins)
    terms: dict = {}
    changed = True
    while changed:
        changed = False
        for rid, ds in defs.items():
            ins = ds[0]
            if rid in terms or len(ds) != 1 or ins.op not in _PURE or not ins.dst.type.is_int \
                    or any(o.type.is_float for o in ins.srcs):
                continue
            if ins.op is Op.SREG and ins.arg not in ex.thread.sreg:
                continue
            regs = [o for o in ins.srcs if isinstance(o, Reg)]
            if any(o.id in modified and o.id not in terms for o in regs):
                continue
            for o in regs:
                if o.id not in modified:
                    ex.value(entry.env, o)
            terms[rid] = ex.compute(ins, {**entry.env, **terms}, ins.dst.type)
            changed = True
    return terms


def residue_facts(*traces) -> list:
    """The residue facts of some traces (one thread's or two), with "% s" as an uninterpreted
    function made consistent by hand (Ackermann: equal arguments, equal remainders). Sound:
    the true remainders satisfy these facts, so no model of the real question is lost."""
    facts, apps = [], []
    for tr in traces:
        for stride, applications, fs in tr.residues:
            facts += fs
            apps += [(stride, a, v) for a, v in applications]
    for i, (s1, a1, v1) in enumerate(apps):
        for s2, a2, v2 in apps[i + 1:]:
            if s1.eq(s2) and a1.sort() == a2.sort():
                facts.append(z3.Implies(a1 == a2, v1 == v2))
    return facts
