"""Symbolic execution of one thread through a kernel's MIR, into z3 terms.

Paths are merged at every join (registers become if-then-else terms), so a thread's run is
one pass over the CFG in topological order. What the run records: every memory access, every
barrier it reaches, every loaded value, each under the condition that the thread reaches it
and with the count of barriers passed before it (its barrier interval).

Loops: a loop whose exits depend on constants only is unrolled exactly. Any other loop is
either summarised (mode "abstract": loop-carried registers become fresh values satisfying
invariants inferred Houdini-style, so the run over-approximates every iteration) or unrolled
``bound`` times (mode "bounded": an under-approximation, marked ``cut`` in the trace).
Floating-point values, loaded values and warp collectives are unconstrained fresh values.
"""
from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass, field

import z3

from ..errors import SimtError
from ..ir.mir import (AtomArg, DimArg, Function, Imm, Instr, MemRef, Op,
                      Pointer, Reg, SReg)
from ..ir.types import Scalar
from .invariants import Residue, candidates
from .world import World, row_major_coords, sort_of, to64

EXACT_UNROLL_LIMIT = 256       # iterations of a constant-trip loop unrolled before it counts as symbolic


@dataclass
class Access:
    site: Instr
    mem: MemRef
    index: object          # 64-bit term, in scalars
    width: int
    write: bool
    atomic: bool
    cond: object
    epoch: object
    key: tuple
    bound: object = None   # CHECK: the extent checked against (64-bit), instead of the array's size
    value: object = None   # a one-scalar plain store: the value stored
    coords: list = None    # an n-D global array's index as its coordinates (row_major_coords)


@dataclass
class BarrierEvent:
    site: Instr
    cond: object
    epoch: object
    exited: object         # the thread has returned before reaching this point
    key: tuple


@dataclass
class LoadValue:
    mem: MemRef
    index: object
    value: object
    type: Scalar
    cond: object


@dataclass
class Trace:
    accesses: list = field(default_factory=list)
    barriers: list = field(default_factory=list)
    loads: list = field(default_factory=list)
    cut: bool = False          # some loop was unrolled only partly (bounded mode)
    abstract: bool = False     # some loop was summarised by invariants
    # summarised loops holding barriers: header -> (entry event, whether every thread that
    # enters runs the same iterations through the same barriers)
    barrier_loops: dict = field(default_factory=dict)
    # facts of summarised grid-stride loops (Residue), true of every run: for race questions
    residues: list = field(default_factory=list)


@dataclass
class State:
    cond: object
    env: dict
    epoch: object


@dataclass
class Loop:
    header: str
    body: set
    parent: "Loop | None" = None


def loops_of(fn: Function) -> dict[str, Loop]:
    """Natural loops by header (the MIR of structured code has one header per loop)."""
    labels = [b.label for b in fn.blocks]
    preds = {lab: [] for lab in labels}
    for b in fn.blocks:
        for s in b.successors:
            preds[s].append(b.label)
    dom = {lab: set(labels) for lab in labels}
    dom[labels[0]] = {labels[0]}
    changed = True
    while changed:
        changed = False
        for lab in labels[1:]:
            ps = [dom[p] for p in preds[lab]]
            new = ({lab} | set.intersection(*ps)) if ps else {lab}
            if new != dom[lab]:
                dom[lab], changed = new, True
    loops: dict[str, Loop] = {}
    for b in fn.blocks:
        for s in b.successors:
            if s in dom[b.label]:                       # back edge b -> s
                body = loops.setdefault(s, Loop(s, {s})).body
                stack = [b.label]
                while stack:
                    n = stack.pop()
                    if n not in body:
                        body.add(n)
                        stack.extend(preds[n])
    for lp in loops.values():
        outer = [o for o in loops.values() if o is not lp and lp.header in o.body and lp.body <= o.body]
        lp.parent = min(outer, key=lambda o: len(o.body)) if outer else None
    return loops


class Executor:
    def __init__(self, fn: Function, world: World, thread, solver_check, mode: str = "abstract",
                 bound: int = 3):
        self.fn, self.world, self.thread = fn, world, thread
        self.mode, self.bound = mode, bound
        self.check = solver_check            # (assumptions..., goal) -> "unsat" | "sat" | "unknown"
        self.blocks = {b.label: b for b in fn.blocks}
        self.order = {b.label: i for i, b in enumerate(fn.blocks)}
        self.loops = loops_of(fn)
        self.trace = Trace()
        self.exited = z3.BoolVal(False)
        self.iteration: tuple = ()
        self.fresh_ids = itertools.count()
        self.symbolic_exit = False
        for ins in fn.instructions():
            if isinstance(ins.arg, Pointer) or (isinstance(ins.arg, AtomArg) and isinstance(ins.arg.mem, Pointer)) \
                    or ins.op is Op.ADDR:
                raise SimtError(f"simt.verify: kernel '{fn.name}' reaches memory through byte "
                                f"addresses (a kernel imported from PTX); simt.verify does not "
                                f"support those yet")

    # ---- values ----------------------------------------------------------------------

    def fresh(self, t: Scalar, what: str = "v"):
        return z3.Const(f"{what}!{next(self.fresh_ids)}@{self.thread.tag}", sort_of(t))

    def value(self, env: dict, o):
        if isinstance(o, Imm):
            if o.type is Scalar.BOOL:
                return z3.BoolVal(bool(o.value))
            if o.type.is_float:
                fmt = {16: "<e", 32: "<f", 64: "<d"}[o.type.bits] if o.type is not Scalar.BF16 else None
                if fmt is None:
                    return self.fresh(o.type, "imm")
                bits = int.from_bytes(struct.pack(fmt, o.value), "little")
                return z3.BitVecVal(bits, o.type.bits)
            return z3.BitVecVal(int(o.value) % (1 << o.type.bits), o.type.bits)
        v = env.get(o.id)
        if v is None:
            v = env[o.id] = self.fresh(o.type, f"undef_{o}")
        return v

    # ---- the CFG ---------------------------------------------------------------------

    def run(self) -> Trace:
        env = dict(self.world.param_regs())
        start = State(self.thread.valid, env, z3.BitVecVal(0, 32))
        self.run_region(None, start)
        return self.trace

    def node_of(self, label: str, loop: Loop | None) -> str:
        """The node a block stands for inside ``loop``'s region: itself, or the header of the
        inner loop holding it."""
        inner = None
        for lp in self.loops.values():
            if label in lp.body and lp.parent is loop and lp.header != (loop.header if loop else None):
                inner = lp
        return inner.header if inner else label

    def run_region(self, loop: Loop | None, start: State):
        """One pass over a loop's body from its header (or the kernel from its entry):
        (states reaching the back edge, [(target outside, state)])."""
        members = loop.body if loop else set(self.blocks)
        head = loop.header if loop else self.fn.blocks[0].label
        pending: dict[str, list[State]] = {head: [start]}
        latches, exits = [], []
        # the DAG of nodes: blocks, inner loops collapsed onto their header
        succ: dict[str, set] = {}
        for lab in members:
            node = self.node_of(lab, loop)
            succ.setdefault(node, set())
            for s in self.blocks[lab].successors:
                if s == head or s not in members:
                    continue
                t = self.node_of(s, loop)
                if t != node:
                    succ[node].add(t)
        indeg = {n: 0 for n in succ}
        for n, ts in succ.items():
            for t in ts:
                indeg[t] += 1
        ready = [n for n, d in indeg.items() if d == 0]
        while ready:
            ready.sort(key=lambda n: self.order[n])
            node = ready.pop(0)
            for t in succ[node]:
                indeg[t] -= 1
                if indeg[t] == 0:
                    ready.append(t)
            states = pending.pop(node, [])
            if not states:
                continue
            state = merge(states)
            if z3.is_false(z3.simplify(state.cond)):
                continue
            if node != head and node in self.loops and self.loops[node].parent is loop:
                outs = self.run_loop(self.loops[node], state)
            else:
                outs = self.run_block(self.blocks[node], state, loop)
            for target, st in outs:
                if target == head and loop is not None:
                    latches.append(st)
                elif target not in members:
                    exits.append((target, st))
                else:
                    pending.setdefault(self.node_of(target, loop), []).append(st)
        if pending:                  # a cycle that is not a natural loop: nothing proved past it
            raise SimtError(f"simt.verify: kernel '{self.fn.name}' has control flow that is not "
                            f"structured into loops (blocks {', '.join(sorted(pending))})")
        return latches, exits

    def run_block(self, block, state: State, loop: Loop | None):
        env = dict(state.env)
        st = State(state.cond, env, state.epoch)
        for ins in block.instrs[:-1]:
            self.step(ins, st)
        term = block.term
        if term.op is Op.RET:
            self.exited = z3.Or(self.exited, st.cond)
            return []
        if term.op is Op.BR:
            return [(term.arg, st)]
        c = self.value(env, term.srcs[0])
        t, f = term.arg
        if loop is not None and (t == loop.header or f == loop.header or t not in loop.body
                                 or f not in loop.body):
            if not z3.is_true(z3.simplify(c)) and not z3.is_false(z3.simplify(c)):
                self.symbolic_exit = True
        return [(t, State(z3.And(st.cond, c), env, st.epoch)),
                (f, State(z3.And(st.cond, z3.Not(c)), env, st.epoch))]

    # ---- loops -----------------------------------------------------------------------

    def snapshot(self):
        tr = self.trace
        return (len(tr.accesses), len(tr.barriers), len(tr.loads), self.exited, tr.cut, tr.abstract,
                len(tr.residues))

    def restore(self, snap):
        tr = self.trace
        del tr.accesses[snap[0]:], tr.barriers[snap[1]:], tr.loads[snap[2]:], tr.residues[snap[6]:]
        self.exited, tr.cut, tr.abstract = snap[3], snap[4], snap[5]

    def run_loop(self, loop: Loop, entry: State):
        snap = self.snapshot()
        outs = self.unroll(loop, entry, EXACT_UNROLL_LIMIT, exact_only=True)
        if outs is not None:
            return outs
        self.restore(snap)
        if self.mode == "bounded":
            self.trace.cut = True
            return self.unroll(loop, entry, self.bound, exact_only=False)
        return self.summarise(loop, entry)

    def unroll(self, loop: Loop, entry: State, limit: int, exact_only: bool):
        """Exits of ``limit`` iterations, or None when ``exact_only`` and an exit of the loop
        depends on something other than constants (or it runs past ``limit``)."""
        outer_iteration, outer_flag = self.iteration, self.symbolic_exit
        outs, state = [], entry
        try:
            for k in range(limit):
                self.iteration = outer_iteration + ((loop.header, k),)
                self.symbolic_exit = False
                latches, exits = self.run_region(loop, state)
                outs.extend(exits)
                if exact_only and self.symbolic_exit:
                    return None
                if not latches:
                    return outs
                state = merge(latches)
                if z3.is_false(z3.simplify(state.cond)):
                    return outs
            return None if exact_only else outs
        finally:
            self.iteration, self.symbolic_exit = outer_iteration, outer_flag

    def modified(self, loop: Loop) -> list[Reg]:
        regs: dict[int, Reg] = {}
        for lab in loop.body:
            for ins in self.blocks[lab].instrs:
                for r in ins.dsts:
                    regs.setdefault(r.id, r)
        return list(regs.values())

    def summarise(self, loop: Loop, entry: State):
        """Houdini: candidates that hold on entry and are preserved by one iteration from any
        state satisfying all survivors; then one recorded pass from such a state."""
        self.trace.abstract = True
        regs = self.modified(loop)
        has_barrier = any(ins.op in (Op.BAR, Op.BAR_AND) for lab in loop.body
                          for ins in self.blocks[lab].instrs)
        cands = candidates(self, loop, entry, regs)
        cands = self.houdini(cands, entry)
        if has_barrier:
            event = BarrierEvent(None, entry.cond, entry.epoch, self.exited, (loop.header, self.iteration))
            self.trace.barrier_loops[(loop.header, self.iteration)] = (event, self.lockstep(loop, entry))
        outer_iteration = self.iteration
        self.iteration = outer_iteration + ((loop.header, "any"),)
        try:
            while True:
                state = self.havoc(loop, entry, regs, has_barrier, cands)
                snap = self.snapshot()
                latches, _ = self.run_region(loop, state)
                self.restore(snap)
                if not latches:
                    break
                latch = merge(latches)
                keep = self.houdini(cands, latch, state.env)
                if len(keep) == len(cands):
                    break
                cands = keep
            state = self.havoc(loop, entry, regs, has_barrier, cands)
            self.trace.residues += [c.facts(state.env, self.fresh) for c in cands if isinstance(c, Residue)]
            _, exits = self.run_region(loop, state)
            return exits
        finally:
            self.iteration = outer_iteration

    def lockstep(self, loop: Loop, entry: State) -> bool:
        """Whether all threads of a block that enter the loop run it in lockstep: its one
        branch is its exit test, nothing in it returns, and the test reads only values that
        are the same in every thread of the block (from uniform entry values, through
        instructions that do not read the thread's index or memory)."""
        branches = [self.blocks[lab].term for lab in loop.body if self.blocks[lab].term.op is Op.CBR]
        if len(branches) != 1 or any(self.blocks[lab].term.op is Op.RET for lab in loop.body):
            return False
        defs = [ins for lab in loop.body for ins in self.blocks[lab].instrs if ins.dsts]
        defined = {d.id for ins in defs for d in ins.dsts}
        varying = {rid for rid in defined if rid in entry.env and not self.block_uniform(entry.env[rid])}
        thread_ops = {Op.LD, Op.ATOM, Op.SHFL, Op.VOTE, Op.ACTIVEMASK}
        changed = True
        while changed:
            changed = False
            for ins in defs:
                bad = ins.op in thread_ops or (ins.op is Op.SREG and ins.arg in THREAD_SREGS)
                for o in ins.srcs:
                    if isinstance(o, Reg):
                        if o.id in defined:
                            bad = bad or o.id in varying
                        else:
                            bad = bad or not self.block_uniform(self.value(entry.env, o))
                for d in ins.dsts:
                    if bad and d.id not in varying:
                        varying.add(d.id)
                        changed = True
        test = branches[0].srcs[0]
        if not isinstance(test, Reg):
            return True
        if test.id in defined:
            return test.id not in varying
        return self.block_uniform(self.value(entry.env, test))

    def block_uniform(self, term) -> bool:
        """Whether a term has one value in every thread of a block: its only per-thread
        variable may be the block index."""
        tag = f"@{self.thread.tag}"
        for v in _free_vars(term):
            name = v.decl().name()
            if name.endswith(tag) and not name.startswith("blockIdx."):
                return False
        return True

    def houdini(self, cands, state: State, before: dict | None = None):
        """The candidates that hold in every model of ``state``: one question for all of them,
        each counterexample model dropping the ones it falsifies; one at a time if the
        solver cannot answer for all together. ``before``: the registers at the start of the
        iteration that led to ``state`` (for candidates checked against them: Residue)."""
        while cands:
            terms = [c.latch(state.env, state.epoch, before) if before is not None and hasattr(c, "latch")
                     else c(state.env, state.epoch) for c in cands]
            result, model = self.check(state.cond, z3.Not(z3.And(*terms)), want_model=True)
            if result == "unsat":
                return cands
            if result != "sat":
                return [c for c, t in zip(cands, terms) if self.check(state.cond, z3.Not(t)) == "unsat"]
            keep = [c for c, t in zip(cands, terms) if z3.is_true(model.eval(t, model_completion=True))]
            if len(keep) == len(cands):      # the model and the solver disagree: go one by one
                return [c for c, t in zip(cands, terms) if self.check(state.cond, z3.Not(t)) == "unsat"]
            cands = keep
        return cands

    def havoc(self, loop, entry: State, regs, has_barrier, cands) -> State:
        """A state of any iteration: the loop's registers fresh values that satisfy the
        invariants (but Residue's: its division circuits would slow every question; it goes
        to the trace, for the race questions that need it)."""
        env = dict(entry.env)
        for r in regs:
            env[r.id] = self.fresh(r.type, f"loop_{r}")
        epoch = z3.BitVec(f"epoch!{next(self.fresh_ids)}@{self.thread.tag}", 32) if has_barrier \
            else entry.epoch
        inv = [c(env, epoch) for c in cands if not isinstance(c, Residue)]
        return State(z3.And(entry.cond, *inv), env, epoch)

    # ---- instructions ----------------------------------------------------------------

    def step(self, ins: Instr, st: State) -> None:
        op, env = ins.op, st.env
        if op in (Op.LD, Op.ST, Op.ATOM):
            self.memory(ins, st)
            return
        if op in (Op.BAR, Op.BAR_AND):
            self.trace.barriers.append(BarrierEvent(ins, st.cond, st.epoch, self.exited,
                                                    (id(ins), self.iteration)))
            st.epoch = st.epoch + 1
            for d in ins.dsts:
                env[d.id] = self.fresh(d.type, "bar_and")
            return
        if op is Op.CHECK:
            idx = self.value(env, ins.srcs[0])
            bound = self.value(env, ins.srcs[1])
            t = ins.srcs[0].type
            i64, b64 = to64(idx, t), to64(bound, ins.srcs[1].type)
            self.trace.accesses.append(Access(ins, ins.arg.mem, i64, 1, False, False, st.cond,
                                              st.epoch, (id(ins), self.iteration), bound=b64))
            st.cond = z3.And(st.cond, i64 >= 0, i64 < b64)
            return
        if not ins.dsts:
            return                                   # SYNCWARP, PRINT
        d = ins.dst
        env[d.id] = self.compute(ins, env, d.type)

    def memory(self, ins: Instr, st: State) -> None:
        env = st.env
        mem = ins.arg.mem if isinstance(ins.arg, AtomArg) else ins.arg
        index = to64(self.value(env, ins.srcs[0]), ins.srcs[0].type)
        if ins.op is Op.LD:
            width = len(ins.dsts)
        elif ins.op is Op.ST:
            width = len(ins.srcs) - 1
        else:
            width = 1
        stored = self.value(env, ins.srcs[1]) if ins.op is Op.ST and width == 1 else None
        coords = None
        if mem.shape is None and mem.ndim > 1 and mem.ncomp == 1 and width == 1 and mem.layout == "row_major":
            coords = row_major_coords(self.value(env, ins.srcs[0]), self.world.shapes[mem.name])
        self.trace.accesses.append(Access(ins, mem, index, width, ins.op is not Op.LD,
                                          ins.op is Op.ATOM, st.cond, st.epoch,
                                          (id(ins), self.iteration), value=stored, coords=coords))
        for k, d in enumerate(ins.dsts):
            v = self.fresh(d.type, f"{mem.name}[]")
            env[d.id] = v
            if ins.op is Op.LD:
                self.trace.loads.append(LoadValue(mem, index + k, v, d.type, st.cond))

    def compute(self, ins: Instr, env: dict, t: Scalar):
        op = ins.op
        if op is Op.SREG:
            v = self.thread.sreg.get(ins.arg)
            return v if v is not None else self.fresh(t, ins.arg.value)
        if op is Op.DIM:
            arg: DimArg = ins.arg
            return self.world.extent(arg.mem, arg.dim)
        srcs = [self.value(env, s) for s in ins.srcs]
        stypes = [s.type for s in ins.srcs]
        if op is Op.MOV:
            return srcs[0]
        if op is Op.SELECT:
            return z3.If(srcs[0], srcs[1], srcs[2])
        if op is Op.CVT:
            return self.convert(srcs[0], stypes[0], t)
        if op is Op.BITCAST:
            s = stypes[0]
            return srcs[0] if (s.is_int and t.is_int and s.bits == t.bits) else self.fresh(t, "bitcast")
        if op in (Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE):
            return self.compare(op, srcs, stypes[0])
        if t is Scalar.BOOL and op in (Op.AND, Op.OR, Op.XOR, Op.NOT):
            if op is Op.NOT:
                return z3.Not(srcs[0])
            fn = {Op.AND: z3.And, Op.OR: z3.Or, Op.XOR: z3.Xor}[op]
            return fn(srcs[0], srcs[1])
        if t.is_float or t is Scalar.BOOL or any(s.is_float for s in stypes):
            return self.fresh(t, op.name.lower())
        return self.integer(op, srcs, t)

    def convert(self, v, s: Scalar, t: Scalar):
        if s is Scalar.BOOL:
            if t.is_int:
                return z3.If(v, z3.BitVecVal(1, t.bits), z3.BitVecVal(0, t.bits))
            return self.fresh(t, "cvt")
        if t is Scalar.BOOL:
            return v != 0 if s.is_int else self.fresh(t, "cvt")
        if s.is_int and t.is_int:
            if t.bits < s.bits:
                return z3.Extract(t.bits - 1, 0, v)
            if t.bits > s.bits:
                return (z3.SignExt if s.is_signed else z3.ZeroExt)(t.bits - s.bits, v)
            return v
        return self.fresh(t, "cvt")

    def compare(self, op: Op, srcs, s: Scalar):
        a, b = srcs
        if s.is_float:
            return self.fresh(Scalar.BOOL, "fcmp")
        if op is Op.EQ:
            return a == b
        if op is Op.NE:
            return a != b
        if s is Scalar.BOOL:
            a, b = z3.If(a, z3.BitVecVal(1, 2), z3.BitVecVal(0, 2)), z3.If(b, z3.BitVecVal(1, 2), z3.BitVecVal(0, 2))
        signed = s.is_signed and s is not Scalar.BOOL
        if signed:
            return {Op.LT: a < b, Op.LE: a <= b, Op.GT: a > b, Op.GE: a >= b}[op]
        return {Op.LT: z3.ULT(a, b), Op.LE: z3.ULE(a, b), Op.GT: z3.UGT(a, b), Op.GE: z3.UGE(a, b)}[op]

    def integer(self, op: Op, srcs, t: Scalar):
        w, signed = t.bits, t.is_signed
        a = srcs[0]
        b = srcs[1] if len(srcs) > 1 else None
        if b is not None and b.size() != w:      # shift amounts of another width
            b = z3.Extract(w - 1, 0, b) if b.size() > w else z3.ZeroExt(w - b.size(), b)
        if op is Op.ADD:
            return a + b
        if op is Op.SUB:
            return a - b
        if op is Op.MUL:
            return a * b
        if op in (Op.DIV, Op.REM):
            undefined = b == 0
            if signed:
                undefined = z3.Or(undefined, z3.And(a == z3.BitVecVal(1 << (w - 1), w), b == -1))
                q = (a / b) if op is Op.DIV else z3.SRem(a, b)
            else:
                q = z3.UDiv(a, b) if op is Op.DIV else z3.URem(a, b)
            return z3.If(undefined, self.fresh(t, "div"), q)
        if op in (Op.MIN, Op.MAX):
            lt = (a < b) if signed else z3.ULT(a, b)
            return z3.If(lt, a, b) if op is Op.MIN else z3.If(lt, b, a)
        if op is Op.AND:
            return a & b
        if op is Op.OR:
            return a | b
        if op is Op.XOR:
            return a ^ b
        if op in (Op.SHL, Op.SHR):
            if op is Op.SHL:
                r = a << b
            else:
                r = (a >> b) if signed else z3.LShR(a, b)
            return z3.If(z3.ULT(b, w), r, self.fresh(t, "shift"))
        if op is Op.NEG:
            return -a
        if op is Op.NOT:
            return ~a
        if op is Op.ABS:
            return z3.If(a < 0, -a, a) if signed else a
        return self.fresh(t, op.name.lower())


THREAD_SREGS = frozenset({SReg.TID_X, SReg.TID_Y, SReg.TID_Z, SReg.LANEID, SReg.WARPID, SReg.CLOCK})


def _free_vars(term) -> list:
    seen, out, stack = set(), [], [term]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.append(t)
        stack.extend(t.children())
    return out


def merge(states: list[State]) -> State:
    if len(states) == 1:
        return states[0]
    cond = z3.Or(*[s.cond for s in states])
    env: dict = {}
    for rid in set().union(*[s.env.keys() for s in states]):
        have = [(s.cond, s.env[rid]) for s in states if rid in s.env]
        v = have[-1][1]
        for c, x in reversed(have[:-1]):
            if not x.eq(v):
                v = z3.If(c, x, v)
        env[rid] = v
    epoch = states[-1].epoch
    for s in reversed(states[:-1]):
        if not s.epoch.eq(epoch):
            epoch = z3.If(s.cond, s.epoch, epoch)
    return State(cond, env, epoch)
