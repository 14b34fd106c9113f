"""Bounds checks hoisted out of the thread loop.

A checked access (``if ix >= n: record the error; return``) leaves the thread loop early,
and LLVM does not vectorise a loop with such exits. Most indices are simple functions of the
thread id and of values fixed for the block (``i = bid * bdim + tid``, ``i * 3 + 1``,
``max(i - 1, 0) * w + j``, ``clamp(b, 0, n - 1)``), so once per block the generated code
computes the interval each such index lies in (exact interval arithmetic in int64, trusted
only where no step leaves its type's range, i.e. no thread's value wraps) and tests the
interval against the array's extent. Where every such test passes the block is ``fast``:
those accesses skip their checks, and guards that end a thread (``if i >= n: return``)
that no thread of the block takes are skipped too. The thread loop is unswitched on the
flag, by LLVM where it is small and by writing it twice where it is large
(codegen._unswitch), and the unchecked copy has no early exit. Otherwise the block runs
with every check, so a failing access reports exactly what it did before.

Soundness: an interval covers every value a register holds at any time in the block. A
register gets one from its definition only if it is written by exactly one instruction and
never read before being written (not live into the entry); any other register, a load's
result, and every op not modelled here, may hold any value of its type.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from ...ir import cfg
from ...ir.mir import (AtomArg, DimArg, Function, Imm, Instr, MemRef, Op, Pointer, Reg, ScalarParam,
                       SReg)
from ...ir.types import Scalar
from .flow import ENTRY, Flow
from .ops import CAST
from .segments import Layout

_RANGE = {Scalar.I32: ("I32_MIN", "I32_MAX"), Scalar.I64: ("I64_MIN", "I64_MAX"),
          Scalar.U32: ("0", "4294967295")}
_ANY = ("I64_MIN", "I64_MAX")        # a value of another type, seen as int64: no bound
_SYMBOL = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*"}
EXACT_LO, EXACT_HI = -2**31, 2**31
_THREAD = {SReg.TID_X: "bx", SReg.TID_Y: "by", SReg.TID_Z: "bz"}
_BLOCK_VALUE = {SReg.NTID_X: "bx", SReg.NTID_Y: "by", SReg.NTID_Z: "bz",
                SReg.CTAID_X: "ctaid_x", SReg.CTAID_Y: "ctaid_y", SReg.CTAID_Z: "ctaid_z",
                SReg.NCTAID_X: "gx", SReg.NCTAID_Y: "gy", SReg.NCTAID_Z: "gz",
                SReg.DIM_0: "dim0", SReg.DIM_1: "dim1", SReg.DIM_2: "dim2", SReg.DIM_3: "dim3"}
NEVER = "False"


def _at_least(value: str, bound: str) -> tuple[str, str, str]:
    return ("min", value, bound)


def _at_most(value: str, bound: str) -> tuple[str, str, str]:
    return ("max", value, bound)


def _conjunction(conds: list[tuple[str, str, str]], name: str = "fast") -> list[str]:
    """``<name> = `` all of ``conds``, the bounds on one limit tested at once (min(a, b, c) >= 0):
    numba compiles a few calls faster than one comparison per bound."""
    groups: dict[tuple[str, str], list[str]] = {}
    raw: list[str] = []
    for kind, value, bound in dict.fromkeys(conds):
        if kind:
            groups.setdefault((kind, bound), []).append(value)
        else:
            raw.append(value)
    terms = [f"({kind}({', '.join(values)}) {'>=' if kind == 'min' else '<='} {bound})"
             if len(values) > 1 else f"({values[0]} {'>=' if kind == 'min' else '<='} {bound})"
             for (kind, bound), values in groups.items()] + raw
    pad = " " * (len(name) + 4)
    return [f"{name} = (" + terms[0], *(f"{pad}& {x}" for x in terms[1:]), f"{pad})"]


@dataclass(frozen=True)
class _Iv:
    lo: str
    hi: str
    lo_bounded: bool       # known statically to be a real bound, not the type's limit
    hi_bounded: bool
    conds: tuple[str, ...] = ()   # what must hold for it to be right (no value wrapped)

    @property
    def bounded(self) -> bool:
        return self.lo_bounded and self.hi_bounded


@dataclass
class Hoisting:
    """What the generated code does once per block: ``lines`` set ``slow`` (and
    ``loops_once``, where there are ``latches``); ``accesses``
    (ids of LD/ST/ATOM) test their index only ``if slow``; ``guards`` (ids of CBRs) map to
    whether their true arm is the one that ends the thread."""
    lines: list[str] = field(default_factory=list)
    accesses: set[int] = field(default_factory=set)
    guards: dict[int, bool] = field(default_factory=dict)
    pointers: dict[int, MemRef] = field(default_factory=dict)   # byte-addressed: the array reached
    # byte-addressed accesses at ``base + c`` (an immediate): id -> (base, c). Where the block
    # is ``fast`` that add wraps in no thread (see _pointer_test), so the element index is
    # base's plus c's: one shift of base serves every access at an offset from it
    offsets: dict[int, tuple[Reg, int]] = field(default_factory=dict)
    # loop exits (ids of latch CBRs) -> whether their true arm is the back edge, which no
    # thread of a block takes where ``loops_once`` is set (each loop then runs once)
    latches: dict[int, bool] = field(default_factory=dict)


def plan(fn: Function, layout: Layout, extent: Callable[[MemRef], str],
         dim_of: Callable[[MemRef, int], str], param_names: dict[int, str],
         constant: Callable[[Imm], str],
         span: Callable[[MemRef], tuple[str, str] | None] = lambda mem: None) -> Hoisting:
    """``extent(mem)``: the expression of an array's length in scalars; ``dim_of(mem, d)``:
    of one of its dimensions; ``param_names``: scalar parameter register id -> the argument's
    variable; ``constant(imm)``: the expression of an immediate; ``span(mem)``: the
    expressions of the first and one-past-last byte address of an array that byte-addressed
    accesses reach (None: not hoisted)."""
    return _Planner(fn, layout, extent, dim_of, param_names, constant, span).run()


class _Planner:
    def __init__(self, fn, layout, extent, dim_of, param_names, constant, span):
        self.fn, self.layout, self.span = fn, layout, span
        self.extent, self.dim_of, self.params, self.constant = extent, dim_of, param_names, constant
        self.defs: dict[int, list[Instr]] = {}
        for ins in fn.instructions():
            for d in ins.dsts:
                self.defs.setdefault(d.id, []).append(ins)
        for p in fn.params:
            if isinstance(p, ScalarParam):
                self.defs.setdefault(p.reg.id, []).append(None)   # bound at entry
        self.read_first = layout.segments[0].live_in - set(param_names)
        self.flow = Flow(fn, lambda r: len(self.defs.get(r.id, [])) == 1 and r.id not in self.read_first)
        blocks = {b.label: b for b in fn.blocks}
        self.latches = {id(blocks[u].term) for u, _ in cfg.back_edges(fn)}
        self.headers: dict[str, set[str]] = {}        # latch -> the headers it jumps back to
        for u, h in cfg.back_edges(fn):
            self.headers.setdefault(u, set()).add(h)
        self.at: Instr | None = None        # the instruction whose operands are being bounded
        self.position = {id(ins): (b.label, k) for b in fn.blocks for k, ins in enumerate(b.instrs)}
        self.reached: dict[tuple, _Iv] = {}  # (register, its reaching definitions, facts) -> interval
        self.lines: list[str] = []
        self.conds: list[str] = []          # gathered while working out one value
        self.names: dict[str, str] = {}
        self.ivs: dict[int, _Iv] = {}
        self.decisions: dict[int, tuple[str, str, tuple[str, ...]]] = {}
        self.visiting: set[int] = set()

    def run(self) -> Hoisting:
        out = Hoisting()
        tests: list[str] = []
        for ins in self.fn.instructions():
            test = self._access_test(ins)
            if test is None and ins.op in (Op.LD, Op.ST, Op.ATOM):
                test = self._pointer_test(ins, out)
            if test is not None:
                out.accesses.add(id(ins))
                tests += test
        for seg in self.layout.segments:
            test = self._guard_test(seg)
            if test is not None:
                out.guards[id(seg.term)] = test[1]
                tests += test[0]
        once: list = []
        for seg in self.layout.segments:
            test = self._latch_test(seg)
            if test is not None:
                out.latches[id(seg.term)] = test[1]
                once += test[0]
        if tests or once:
            out.lines = (self.lines + (_conjunction(tests) if tests else ["fast = True"])
                         + ["slow = not fast"] + (_conjunction(once, "loops_once") if once else []))
        return out

    # --- what gets hoisted -------------------------------------------------------------------
    def _access_test(self, ins: Instr) -> list[str] | None:
        if ins.op not in (Op.LD, Op.ST, Op.ATOM):
            return None
        mem = ins.arg.mem if isinstance(ins.arg, AtomArg) else ins.arg
        if not isinstance(mem, MemRef):          # byte-addressed: not hoisted
            return None
        index = ins.srcs[0]
        if not isinstance(index, Reg) or index.type not in _RANGE:
            return None
        self.conds = []
        self.at = ins
        iv = self._interval(index)
        if not iv.bounded:
            return None
        width = len(ins.dsts) if ins.op is Op.LD else (len(ins.srcs) - 1 if ins.op is Op.ST else 1)
        return [*iv.conds, _at_least(iv.lo, "0"), _at_most(iv.hi, f"{self.extent(mem)} - {width}")]

    def _pointer_test(self, ins: Instr, out: Hoisting) -> list[str] | None:
        """A byte-addressed access at ``array + offset + ...`` (PTX's ``add.s64 %a, %base,
        %off`` on an array's address, and adds of further offsets to that): every offset at
        least 0, their sum's interval within the array's bytes, and every address aligned
        (each offset a multiple of the access's size, and so the array's start). Its array
        goes into ``out.pointers``."""
        ptr = ins.arg.mem if isinstance(ins.arg, AtomArg) else ins.arg
        if not isinstance(ptr, Pointer) or not isinstance(ins.srcs[0], Reg):
            return None
        width = len(ins.dsts) if ins.op is Op.LD else (len(ins.srcs) - 1 if ins.op is Op.ST else 1)
        size = width * ptr.elem.nbytes
        split = self._array_plus(ins.srcs[0])
        if split is None or size & (size - 1):
            return None
        mem, offsets = split
        if mem.space is not ptr.space and not (ptr.space.value == "generic" and mem.space.value == "global"):
            return None
        bounds = self.span(mem)
        if bounds is None:
            return None
        start, end = bounds
        self.conds = []
        self.at = ins
        if any(o.type not in _RANGE or not self._multiple(o, size) for o in offsets):
            return None
        ivs = [self._interval(o) for o in offsets]
        if not all(iv.bounded for iv in ivs):
            return None
        if len(ivs) > 1:                  # their sum, exact in the prologue's int64
            self._exact(*ivs)
        lo = self._value(" + ".join(iv.lo for iv in ivs)) if ivs else "0"
        hi = self._value(" + ".join(iv.hi for iv in ivs)) if ivs else "0"
        out.pointers[id(ins)] = mem
        offset = self._constant_offset(ins)
        if offset is not None:
            out.offsets[id(ins)] = offset
        # every partial sum lies between the array's start and the last address: no add wraps
        return [*dict.fromkeys(self.conds), *(_at_least(iv.lo, "0") for iv in ivs),
                _at_most(hi, f"{end} - {start} - {size}"), _at_least(lo, "0"),
                ("", f"({start} & {size - 1} == 0)", "")]

    def _array_plus(self, r: Reg, depth: int = 0) -> tuple[MemRef, list] | None:
        """(array, offsets: registers and immediates) where ``r`` is always the array's
        address plus the offsets' sum, through single-definition copies of one width and
        adds."""
        ins = self._copied(r)
        if ins is None or depth > 8:
            return None
        if ins.op is Op.ADDR and isinstance(ins.arg, MemRef):
            return ins.arg, []
        if ins.op is not Op.ADD:
            return None
        for base, off in (ins.srcs, ins.srcs[::-1]):
            inner = self._array_plus(base, depth + 1) if isinstance(base, Reg) else None
            if inner is not None:
                return inner[0], [*inner[1], off]
        return None

    def _constant_offset(self, ins: Instr) -> tuple[Reg, int] | None:
        """(base, c) where access ``ins``'s address is ``base + c`` (an immediate) computed in
        its own block before it, with every copy between, and ``base`` not redefined after the
        add: at the access, base still holds the value the add read."""
        where = self.position
        chain, r = [], ins.srcs[0]
        for _ in range(8):
            d = self._single_def(r) if isinstance(r, Reg) else None
            if not isinstance(d, Instr) or where.get(id(d), ("", 0))[0] != where[id(ins)][0]:
                return None
            chain.append(d)
            if d.op is Op.ADD:
                break
            if d.op not in (Op.MOV, Op.BITCAST) or d.srcs[0].type.bits != r.type.bits:
                return None
            r = d.srcs[0]
        else:
            return None
        add = chain[-1]
        order = [where[id(x)][1] for x in (*chain[::-1], ins)]
        if order != sorted(order) or len(set(order)) != len(order):
            return None
        for base, off in (add.srcs, add.srcs[::-1]):
            if isinstance(base, Reg) and isinstance(off, Imm) and base.type.bits == add.dst.type.bits:
                d = self._single_def(base)
                if d is False:
                    return None
                label, k = where.get(id(d), ("", -1))
                if isinstance(d, Instr) and label == where[id(ins)][0] and order[0] < k < order[-1]:
                    return None
                return base, int(off.value)
        return None

    def _copied(self, r: Reg) -> Instr | None:
        """The one instruction that computes ``r``'s value, past moves and bit casts."""
        for _ in range(8):
            ins = self._single_def(r)
            if not isinstance(ins, Instr):
                return None
            if ins.op not in (Op.MOV, Op.BITCAST) or not isinstance(ins.srcs[0], Reg):
                return ins
            if ins.srcs[0].type.bits != r.type.bits:
                return None
            r = ins.srcs[0]
        return None

    def _multiple(self, x, size: int) -> bool:
        """Whether ``x`` is a multiple of ``size`` (a power of two) in every thread."""
        if size == 1:
            return True
        if isinstance(x, Imm):
            return int(x.value) % size == 0
        ins = self._single_def(x)
        if not isinstance(ins, Instr):
            return False
        if ins.op in (Op.MOV, Op.BITCAST, Op.CVT) and ins.srcs[0].type.is_int:
            return self._multiple(ins.srcs[0], size)
        if ins.op is Op.MUL:
            return any(self._multiple(s, size) for s in ins.srcs)
        if ins.op is Op.SHL and isinstance(ins.srcs[1], Imm):
            return (1 << int(ins.srcs[1].value)) % size == 0 or self._multiple(ins.srcs[0], size)
        if ins.op in (Op.ADD, Op.SUB):
            return all(self._multiple(s, size) for s in ins.srcs)
        return False

    def _guard_test(self, seg) -> tuple[list[str], bool] | None:
        """A CBR one of whose arms only ends the thread (``if i >= n: return``)."""
        term = seg.term
        if term is None or term.op is not Op.CBR or not isinstance(term.srcs[0], Reg):
            return None
        if id(term) in self.latches:        # a loop's exit test: every thread leaves sometime
            return None
        t, f = seg.successors
        ends = [self._only_returns(t), self._only_returns(f)]
        if ends[0] == ends[1]:
            return None
        return self._never_taken(term, ends[0])

    def _latch_test(self, seg) -> tuple[list[str], bool] | None:
        """A loop's latch whose back edge no thread takes (a grid-stride loop whose stride
        covers the work: ``i + stride < n`` is false already after the first pass)."""
        term = seg.term
        if term is None or id(term) not in self.latches or term.op is not Op.CBR:
            return None
        if not isinstance(term.srcs[0], Reg):
            return None
        label = self.flow.where[id(term)][0]
        back = [h in self.headers.get(label, ()) for h in term.arg]
        if back[0] == back[1]:
            return None
        return self._never_taken(term, back[0])

    def _never_taken(self, term, arm_is_true: bool) -> tuple[list[str], bool] | None:
        """The test that no thread of a block takes the CBR ``term``'s true arm (its false
        arm if not ``arm_is_true``), with ``arm_is_true``; None where it cannot be shown."""
        self.conds = []
        self.at = term
        never_true, never_false = self._decide(term.srcs[0])
        test = never_true if arm_is_true else never_false
        return None if test == NEVER else ([*self.conds, ("", f"({test})", "")], arm_is_true)

    def _only_returns(self, k: int) -> bool:
        seg = self.layout.segments[k]
        return not seg.instrs and seg.collective is None and seg.term.op is Op.RET

    # --- intervals, as lines of the block's prologue -------------------------------------------
    def _single_def(self, r: Reg) -> Instr | None | bool:
        """The one instruction (None for a parameter) that writes ``r``, or False."""
        defs = self.defs.get(r.id, [])
        if len(defs) != 1 or r.id in self.read_first or r.id in self.visiting:
            return False
        return defs[0]

    def _interval(self, x) -> _Iv:
        """An interval covering every value ``x`` holds at ``self.at`` (every value it ever
        holds, for a register written once)."""
        if isinstance(x, Imm):
            if x.type not in _RANGE:
                return _Iv(*_ANY, False, False)
            c = self.constant(x)
            return _Iv(c, c, True, True)
        if x.id in self.ivs:
            iv = self.ivs[x.id]
        elif x.type not in _RANGE:
            return _Iv(*_ANY, False, False)
        elif (ins := self._single_def(x)) is False:
            if x.id in self.visiting or self.at is None:
                return _Iv(*_RANGE[x.type], False, False)
            return self._reached(x)
        else:
            outer, self.conds = self.conds, []
            self.visiting.add(x.id)
            iv = self._define_at(x, ins)
            self.visiting.discard(x.id)
            iv = self.ivs[x.id] = replace(iv, conds=tuple(dict.fromkeys(self.conds)))
            self.conds = outer
        self.conds.extend(iv.conds)     # the caller's value needs them too
        return iv

    def _define_at(self, r: Reg, ins: Instr | None) -> _Iv:
        """The interval of the values ``ins`` writes into ``r``, its operands taken where it runs."""
        outer, self.at = self.at, ins if ins is not None else self.at
        try:
            return self._define(r, ins)
        finally:
            self.at = outer

    # --- registers written more than once (flow.py) ----------------------------------------
    def _reached(self, x: Reg) -> _Iv:
        """``x`` at ``self.at``: the union of the definitions that reach it, narrowed by the
        guards every path there passed."""
        defs = self.flow.reaching(x, self.at)
        facts = self.flow.facts(x, self.at)
        key = (x.id, defs, frozenset(facts))
        iv = self.reached.get(key)
        if iv is None:
            if key in self.visiting:
                return _Iv(*_RANGE[x.type], False, False)
            outer, self.conds = self.conds, []
            self.visiting.add(key)
            iv = self._narrow(self._join(x, defs), facts)
            self.visiting.discard(key)
            iv = self.reached[key] = replace(iv, conds=tuple(dict.fromkeys(self.conds)))
            self.conds = outer
        self.conds.extend(iv.conds)
        return iv

    def _join(self, x: Reg, defs) -> _Iv:
        parts = []
        for d in sorted(defs, key=lambda d: -1 if d is ENTRY else self.flow.order[id(d)]):
            if d is ENTRY:
                parts.append(self._initial(x))
            elif self._step(x, d) is not None:
                parts.append(self._induction(x, d))
            else:
                parts.append(self._define_at(x, d))
        lo_b = all(p.lo_bounded for p in parts)
        hi_b = all(p.hi_bounded for p in parts)
        if len(parts) == 1:
            return parts[0]
        tlo, thi = _RANGE[x.type]
        lo = self._value(f"min({', '.join(p.lo for p in parts)})") if lo_b else tlo
        hi = self._value(f"max({', '.join(p.hi for p in parts)})") if hi_b else thi
        return _Iv(lo, hi, lo_b, hi_b)

    def _initial(self, x: Reg) -> _Iv:
        """What ``x`` holds when the thread starts: its argument, or zero."""
        if x.id in self.params:
            return self._within(self._point(f"np.int64({self.params[x.id]})"), x.type)
        return _Iv("0", "0", True, True)

    def _step(self, x: Reg, d: Instr) -> Reg | Imm | None:
        """The increment of ``x = x + c`` (``d``), else None."""
        if d.op is not Op.ADD or len(d.dsts) != 1 or d.dst.id != x.id:
            return None
        a, b = d.srcs
        if isinstance(a, Reg) and a.id == x.id and not (isinstance(b, Reg) and b.id == x.id):
            return b
        if isinstance(b, Reg) and b.id == x.id:
            return a
        return None

    def _induction(self, x: Reg, d: Instr) -> _Iv:
        """The values of ``x = x + c`` with ``c >= 0``: no smaller than anything ``x`` held
        before (by induction, no smaller than its least start), and no larger than the
        guard's bound on ``x`` there plus ``c``."""
        outer, self.at = self.at, d
        try:
            c = self._interval(self._step(x, d))
            if not c.bounded:
                return _Iv(*_RANGE[x.type], False, False)
            self.conds.append(_at_least(c.lo, "0"))
            least = self._least(x)
            hi_b, top = False, _RANGE[x.type][1]
            uppers = [u for u in (self._upper(f) for f in self.flow.facts(x, d)) if u is not None]
            if uppers:
                hi_b, top = True, self._value(f"min({', '.join(uppers)})") if len(uppers) > 1 else uppers[0]
            if least is None:
                return _Iv(_RANGE[x.type][0], _RANGE[x.type][1], False, False)
            old = _Iv(least, top, True, hi_b)
            if not hi_b:
                return _Iv(self._value(f"{least} + {c.lo}"), _RANGE[x.type][1], True, False)
            if x.type is not Scalar.I32:
                self._exact(old, c)
            return self._within(self._arith(Op.ADD, old, c), x.type)
        finally:
            self.at = outer

    def _least(self, x: Reg) -> str | None:
        """A lower bound on every value ``x`` ever holds, where each of its definitions is a
        start (bounded below) or adds a non-negative step that cannot wrap (a guard bounds x
        there); None otherwise."""
        key = ("least", x.id)
        if key in self.visiting:
            return None
        self.visiting.add(key)
        try:
            los = [self._initial(x).lo] if x.id in self.read_first or x.id in self.params else []
            for d in self.defs.get(x.id, []):
                if d is None:
                    continue
                step = self._step(x, d)
                if step is None:
                    iv = self._define_at(x, d)
                    if not iv.lo_bounded:
                        return None
                    los.append(iv.lo)
                    continue
                # x + c >= x only where the add does not wrap: the guard's bound on x there
                # plus c must fit in x's type, at every step of x, not only this one
                outer, self.at = self.at, d
                c = self._interval(step)
                uppers = [u for u in (self._upper(f) for f in self.flow.facts(x, d)) if u is not None]
                self.at = outer
                if not c.bounded or not uppers:
                    return None
                top = self._value(f"min({', '.join(uppers)})") if len(uppers) > 1 else uppers[0]
                if x.type is not Scalar.I32:
                    self._exact(_Iv(top, top, True, True), c)
                self.conds += [_at_least(c.lo, "0"),
                               _at_most(self._value(f"{top} + {c.hi}"), _RANGE[x.type][1])]
            if not los:
                return None
            return self._value(f"min({', '.join(los)})") if len(los) > 1 else los[0]
        finally:
            self.visiting.discard(key)

    def _upper(self, f) -> str | None:
        """The bound a guard fact ``x < b`` or ``x <= b`` puts on ``x``, or None."""
        return self._fact_bound(f, Op.LT, Op.LE, upper=True)

    def _lower(self, f) -> str | None:
        """The bound a guard fact ``x > b`` or ``x >= b`` puts on ``x``, or None."""
        return self._fact_bound(f, Op.GT, Op.GE, upper=False)

    def _fact_bound(self, f, strict: Op, loose: Op, upper: bool) -> str | None:
        if f.op not in (strict, loose) or f.bound.type not in _RANGE:
            return None
        b = self._interval(f.bound)
        if not (b.hi_bounded if upper else b.lo_bounded):
            return None
        end = b.hi if upper else b.lo
        return self._value(f"{end} {'-' if upper else '+'} 1") if f.op is strict else end

    def _narrow(self, iv: _Iv, facts) -> _Iv:
        """``iv`` within the guard facts' bounds."""
        his = [u for u in (self._upper(f) for f in facts) if u is not None]
        los = [u for u in (self._lower(f) for f in facts) if u is not None]
        lo, hi, lo_b, hi_b = iv.lo, iv.hi, iv.lo_bounded, iv.hi_bounded
        if his:
            hi = self._value(f"min({', '.join(([hi] if hi_b else []) + his)})") if hi_b or len(his) > 1 else his[0]
            hi_b = True
        if los:
            lo = self._value(f"max({', '.join(([lo] if lo_b else []) + los)})") if lo_b or len(los) > 1 else los[0]
            lo_b = True
        return _Iv(lo, hi, lo_b, hi_b, iv.conds)

    def _value(self, expr: str) -> str:
        """A name for ``expr`` (computed once per block, however many registers share it)."""
        name = self.names.get(expr)
        if name is None:
            name = self.names[expr] = f"v{len(self.names)}"
            self.lines.append(f"{name} = {expr}")
        return name

    def _within(self, iv: _Iv, t: Scalar) -> _Iv:
        """``iv`` of a value of type ``t``: the block is fast only if it fits (no wrap)."""
        tlo, thi = _RANGE[t]
        self.conds += [_at_least(iv.lo, tlo), _at_most(iv.hi, thi)]
        return iv

    def _exact(self, *ivs: _Iv) -> None:
        """64-bit arithmetic on these is exact where they lie within +-2**31."""
        for iv in ivs:
            self.conds += [_at_least(iv.lo, str(EXACT_LO)), _at_most(iv.hi, str(EXACT_HI))]

    def _point(self, expr: str) -> _Iv:
        v = self._value(expr)
        return _Iv(v, v, True, True)

    def _pair(self, lo: str, hi: str, lo_bounded: bool = True, hi_bounded: bool = True) -> _Iv:
        return _Iv(self._value(lo), self._value(hi), lo_bounded, hi_bounded)

    def _define(self, r: Reg, ins: Instr | None) -> _Iv:
        full = _Iv(*_RANGE[r.type], False, False)
        if ins is None:                                    # a scalar parameter
            return self._within(self._point(f"np.int64({self.params[r.id]})"), r.type)
        op = ins.op
        if op is Op.SREG:
            if ins.arg in _THREAD:                          # at most 1024
                return self._pair("0", f"{_THREAD[ins.arg]} - 1")
            if ins.arg in _BLOCK_VALUE:
                return self._within(self._point(_BLOCK_VALUE[ins.arg]), r.type)
            if ins.arg is SReg.LANEID:
                return self._pair("0", "31")
            if ins.arg is SReg.WARPID:
                return self._pair("0", "(T - 1) >> 5")
            return full
        if op is Op.DIM:
            arg: DimArg = ins.arg
            return self._within(self._point(f"np.int64({self.dim_of(arg.mem, arg.dim)})"), r.type)
        if op is Op.MOV:
            return self._interval(ins.srcs[0])
        if op is Op.BITCAST and self.defs.get(getattr(ins.srcs[0], "id", None)) == [None]:
            # a parameter read as another integer type of its width (PTX's .u32 n used as .s32)
            src = ins.srcs[0]
            if not src.type.is_int or src.type.bits != r.type.bits:
                return full
            return self._point(f"np.int64({CAST[r.type]}({CAST[src.type]}({self.params[src.id]})))")
        if op in (Op.CVT, Op.BITCAST):
            # an integer of another type: the same value where it fits in both (a bit cast
            # between i32 and u32, a widening, or a truncation that drops nothing)
            src = ins.srcs[0]
            if src.type is Scalar.BOOL and op is Op.CVT:
                return self._pair("0", "1")
            if src.type not in _RANGE or (op is Op.BITCAST and src.type.bits != r.type.bits):
                return full
            a = self._interval(src)
            if not a.bounded:
                return full
            return self._within(a, r.type)
        if op is Op.SHL and isinstance(ins.srcs[1], Imm) and 0 <= int(ins.srcs[1].value) < 31:
            # x << k is x * 2**k where that fits
            a = self._interval(ins.srcs[0])
            if not a.bounded:
                return full
            if r.type is not Scalar.I32:
                self._exact(a)
            return self._within(self._arith(Op.MUL, a, _Iv(str(1 << int(ins.srcs[1].value)),
                                                             str(1 << int(ins.srcs[1].value)), True, True)), r.type)
        if op in (Op.MIN, Op.MAX):
            a, b = (self._interval(s) for s in ins.srcs)
            f = "min" if op is Op.MIN else "max"
            lo_b = (a.lo_bounded and b.lo_bounded) if op is Op.MIN else (a.lo_bounded or b.lo_bounded)
            hi_b = (a.hi_bounded or b.hi_bounded) if op is Op.MIN else (a.hi_bounded and b.hi_bounded)
            if not (lo_b or hi_b):
                return full
            return self._pair(f"{f}({a.lo}, {b.lo})", f"{f}({a.hi}, {b.hi})", lo_b, hi_b)
        if op is Op.SELECT:
            a, b = (self._interval(s) for s in ins.srcs[1:])
            if not (a.bounded and b.bounded):
                return full
            return self._pair(f"min({a.lo}, {b.lo})", f"max({a.hi}, {b.hi})")
        if op in (Op.ADD, Op.SUB, Op.MUL, Op.NEG):
            ops = [self._interval(s) for s in ins.srcs]
            if not all(iv.bounded for iv in ops):
                return full
            if r.type is not Scalar.I32:      # int64 holds any i32 sum or product
                self._exact(*ops)
            return self._within(self._arith(op, *ops), r.type)
        if op is Op.REM:
            a, b = (self._interval(s) for s in ins.srcs)
            if not b.bounded:
                return full
            self.conds.append(_at_least(b.lo, "1"))    # |a % b| < b, with the sign of a
            return self._pair(f"0 if {a.lo} >= 0 else 1 - {b.hi}", f"0 if {a.hi} <= 0 else {b.hi} - 1")
        if op is Op.AND:
            a, b = (self._interval(s) for s in ins.srcs)
            mask = b if b.bounded else a
            if not mask.bounded:
                return full
            self.conds.append(_at_least(mask.lo, "0"))    # between 0 and a non-negative operand
            return self._pair("0", mask.hi)
        return full

    def _arith(self, op: Op, a: _Iv, b: _Iv | None = None) -> _Iv:
        if op is Op.NEG:
            return self._pair(f"-{a.hi}", f"-{a.lo}")
        if a.lo == a.hi and b.lo == b.hi:                       # fixed for the block
            return self._point(f"{a.lo} {_SYMBOL[op]} {b.lo}")
        if op is Op.ADD:
            return self._pair(f"{a.lo} + {b.lo}", f"{a.hi} + {b.hi}")
        if op is Op.SUB:
            return self._pair(f"{a.lo} - {b.hi}", f"{a.hi} - {b.lo}")
        if b.lo == b.hi or a.lo == a.hi:                        # times a block constant
            x, c = (a, b.lo) if b.lo == b.hi else (b, a.lo)
            p, q = self._value(f"{x.lo} * {c}"), self._value(f"{x.hi} * {c}")
            return self._pair(f"min({p}, {q})", f"max({p}, {q})")
        ps = [self._value(f"{u} * {v}") for u in (a.lo, a.hi) for v in (b.lo, b.hi)]
        return self._pair(f"min(min({ps[0]}, {ps[1]}), min({ps[2]}, {ps[3]}))",
                          f"max(max({ps[0]}, {ps[1]}), max({ps[2]}, {ps[3]}))")

    # --- conditions decided for the whole block ----------------------------------------------
    def _decide(self, x) -> tuple[str, str]:
        """(expression true if ``x`` is false for every thread, one true if it is true for
        every thread); NEVER where that cannot be shown."""
        if not isinstance(x, Reg) or x.type is not Scalar.BOOL:
            return NEVER, NEVER
        if x.id not in self.decisions:
            ins = self._single_def(x)
            result, conds = (NEVER, NEVER), ()
            if isinstance(ins, Instr):
                outer, self.conds = self.conds, []
                self.visiting.add(x.id)
                at, self.at = self.at, ins
                result = self._decide_def(ins)
                self.at = at
                self.visiting.discard(x.id)
                conds, self.conds = tuple(dict.fromkeys(self.conds)), outer
            self.decisions[x.id] = (*result, conds)
        never_true, never_false, conds = self.decisions[x.id]
        self.conds.extend(conds)
        return never_true, never_false

    def _decide_def(self, ins: Instr) -> tuple[str, str]:
        op = ins.op
        if op is Op.MOV:
            return self._decide(ins.srcs[0])
        if op is Op.NOT:
            nt, nf = self._decide(ins.srcs[0])
            return nf, nt
        if op in (Op.AND, Op.OR):
            (nta, nfa), (ntb, nfb) = (self._decide(s) for s in ins.srcs)
            either = lambda p, q: NEVER if p == q == NEVER else f"({p} or {q})"
            both = lambda p, q: NEVER if NEVER in (p, q) else f"({p} and {q})"
            if op is Op.AND:
                return either(nta, ntb), both(nfa, nfb)
            return both(nta, ntb), either(nfa, nfb)
        if op not in (Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE):
            return NEVER, NEVER
        if any(s.type not in _RANGE for s in ins.srcs):
            return NEVER, NEVER
        a, b = (self._interval(s) for s in ins.srcs)
        if not (a.bounded and b.bounded):
            return NEVER, NEVER
        if op in (Op.GT, Op.GE):            # a > b is b < a
            a, b = b, a
        if op in (Op.LT, Op.GT):
            return f"{a.lo} >= {b.hi}", f"{a.hi} < {b.lo}"
        if op in (Op.LE, Op.GE):
            return f"{a.lo} > {b.hi}", f"{a.hi} <= {b.lo}"
        apart = f"({a.hi} < {b.lo} or {a.lo} > {b.hi})"
        same = f"({a.lo} == {a.hi} and {a.hi} == {b.lo} and {b.lo} == {b.hi})"
        return (apart, same) if op is Op.EQ else (same, apart)
