"""Turn a MIR Function into per-block lists of small closures the scheduler runs on lanes.

Registers get dense indices into an ``env`` list holding, while a block runs, the values
of the block's *active* lanes only (gathered on entry, scattered back on exit); immediates
sit after the registers as numpy scalars. Each closure implements one MIR op: this table
is the executable definition of the MIR (see simt/ir/mir.py for the op contracts).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...ir.mir import (BINARY, COMPARE, UNARY, AtomArg, AtomOp, CheckArg, DimArg, Function,
                       Imm, Instr, Loc, MemRef, Op, Pointer, Reg, ScalarParam, SReg)
from ...ir import bfloat16
from ...ir.types import Scalar
from .. import atomic_log, mathlib
from . import arith, pointers, warp
from .fused import Fusion

Step = Callable[[list, "object"], None]


@dataclass
class ExecBlock:
    index: int
    label: str
    steps: list[Step]
    instrs: list[Instr]
    live_in: list[int]          # registers read before written in this block
    defs: list[int]             # registers written in this block
    barrier: Instr | None       # the BAR/BAR_AND that starts the block, if any
    loc: Loc | None
    term: Instr = None  # type: ignore[assignment]
    term_srcs: list[int] = field(default_factory=list)  # env indices of the terminator's operands
    targets: tuple[int, ...] = ()                        # block indices the terminator goes to


@dataclass
class Program:
    fn: Function
    reg_types: list[Scalar]
    consts: list                      # numpy scalars appended after the registers in env
    blocks: list[ExecBlock]
    param_regs: list[tuple[int, Scalar]] = field(default_factory=list)  # (env index, type) per ScalarParam
    label_index: dict[str, int] = field(default_factory=dict)
    reg_index: dict[int, int] = field(default_factory=dict)   # Reg.id -> env index
    timing: dict = field(default_factory=dict)                # arch key -> [BlockTiming per block]
    instr_base: list[int] = field(default_factory=list)       # global index of each block's first instr
    instr_id: dict[int, int] = field(default_factory=dict)    # id(Instr) -> global index
    fusion: object = None                                     # its pure blocks (fused.py)

    def block_timings(self, arch) -> list:
        from .timing import block_timing
        t = self.timing.get(arch.key)
        if t is None:
            index = self.reg_index
            t = self.timing[arch.key] = [block_timing(b.instrs, lambda r: index[r.id], arch)
                                          for b in self.blocks]
        return t

    @property
    def nregs(self) -> int:
        return len(self.reg_types)


def prepare(fn: Function) -> Program:
    cached = getattr(fn, "_precise_program", None)
    if cached is not None:
        return cached
    prog = _Preparer(fn).build()
    fn._precise_program = prog  # type: ignore[attr-defined]
    return prog


class _Preparer:
    def __init__(self, fn: Function):
        self.fn = fn
        self.reg_index: dict[int, int] = {}
        self.reg_types: list[Scalar] = []
        self.consts: list = []
        self.const_index: dict[tuple, int] = {}
        self.label_index = {b.label: i for i, b in enumerate(fn.blocks)}

    def reg(self, r: Reg) -> int:
        i = self.reg_index.get(r.id)
        if i is None:
            i = self.reg_index[r.id] = len(self.reg_types)
            self.reg_types.append(r.type)
        return i

    def operand(self, x) -> int:
        if isinstance(x, Reg):
            return self.reg(x)
        assert isinstance(x, Imm)
        key = (repr(x.value), x.type)    # repr: -0.0 and 0.0 are equal as dict keys
        if key not in self.const_index:
            self.const_index[key] = len(self.consts)
            self.consts.append(bfloat16.to_bits(x.value)[()] if x.type is Scalar.BF16
                               else np.array(x.value).astype(x.type.np)[()])
        return -1 - self.const_index[key]  # resolved once nregs is known

    def build(self) -> Program:
        fn = self.fn
        for r in fn.registers():
            self.reg(r)
        param_regs = [(self.reg(p.reg), p.reg.type) for p in fn.params if isinstance(p, ScalarParam)]
        raw_blocks = []
        for bi, b in enumerate(fn.blocks):
            raw_blocks.append([(ins, [self.reg(d) for d in ins.dsts], [self.operand(s) for s in ins.srcs])
                               for ins in b.instrs])
        nregs = len(self.reg_types)
        deferral = atomic_log.plan(fn)
        blocks = []
        for bi, (b, raw) in enumerate(zip(fn.blocks, raw_blocks)):
            steps, live_in, defs, written = [], [], [], set()
            term_srcs: list[int] = []
            for ins, d, s in raw:
                s = [nregs + (-1 - i) if i < 0 else i for i in s]
                for i in s:
                    if i < nregs and i not in written and i not in live_in:
                        live_in.append(i)
                for i in d:
                    if i not in written:
                        written.add(i)
                        defs.append(i)
                if ins.is_terminator:
                    term_srcs = s
                else:
                    steps.append(make_step(ins, d, s, deferral))
            first = b.instrs[0]
            barrier = first if first.op in (Op.BAR, Op.BAR_AND) else None
            eb = ExecBlock(bi, b.label, steps, b.instrs, live_in, defs, barrier, first.loc)
            eb.term = b.instrs[-1]
            eb.term_srcs = term_srcs
            eb.targets = tuple(self.label_index[x] for x in b.successors)
            blocks.append(eb)
        _keep_live_defs(blocks, self.label_index)
        base, bases = 0, []
        for b in blocks:
            bases.append(base)
            base += len(b.instrs)
        ids = {id(ins): k for k, ins in enumerate(i for b in blocks for i in b.instrs)}
        prog = Program(fn, self.reg_types, self.consts, blocks, param_regs, self.label_index,
                       dict(self.reg_index), instr_base=bases, instr_id=ids)
        prog.fusion = Fusion(prog)
        return prog


def _keep_live_defs(blocks: list[ExecBlock], label_index: dict[str, int]) -> None:
    """Write back to the register file only registers some later block may read.

    Classic backward liveness over the CFG; a block's temporaries stay in ``env``.
    """
    succ = [[label_index[x] for x in b.instrs[-1].arg] if b.term.op is Op.CBR else
            [label_index[b.term.arg]] if b.term.op is Op.BR else [] for b in blocks]
    live_in = [set(b.live_in) for b in blocks]
    defs = [set(b.defs) for b in blocks]
    live_out: list[set[int]] = [set() for _ in blocks]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(blocks))):
            out = set().union(*(live_in[j] for j in succ[i])) if succ[i] else set()
            new_in = set(blocks[i].live_in) | (out - defs[i])
            if out != live_out[i] or new_in != live_in[i]:
                live_out[i], live_in[i] = out, new_in
                changed = True
    for b, out in zip(blocks, live_out):
        b.defs = [r for r in b.defs if r in out]


# --- op implementations -------------------------------------------------------------------

def make_step(ins: Instr, d: list[int], s: list[int],
              deferral: atomic_log.Plan | None = None) -> Step:
    op = ins.op
    t = _src_type(ins)
    if op in BINARY:
        f = arith.binary_fn(op, t)
        a, b = s
        out = d[0]

        def binary(env, ctx):
            env[out] = f(env[a], env[b])
        return binary
    if op in COMPARE:
        f = arith.COMPARE_FN[op]
        a, b = s
        out = d[0]

        def compare(env, ctx):
            env[out] = f(env[a], env[b])
        return compare
    if op in UNARY or op in (Op.ISNAN, Op.ISINF):
        f = arith.unary_fn(op, t)
        (a,), out = s, d[0]

        def unary(env, ctx):
            env[out] = f(env[a])
        return unary
    if op is Op.MOV:
        (a,), out = s, d[0]

        def mov(env, ctx):
            # a copy: in dense steps env values can be the register file's own arrays, and
            # those are overwritten in place when the block's results are written back
            v = env[a]
            env[out] = v.copy() if isinstance(v, np.ndarray) else v
        return mov
    if op is Op.FMA:
        a, b, c = s
        out = d[0]
        t_np = ins.dsts[0].type.np
        f = mathlib.ufunc(Op.FMA, t_np, ins.arg)   # rounded once: simt/sim/mathlib.py

        def fma(env, ctx):
            env[out] = f(env[a], env[b], env[c])
        return fma
    if op is Op.BITCAST:
        (a,), out = s, d[0]
        src_np, dst_np = ins.srcs[0].type.np, ins.dsts[0].type.np

        def bitcast(env, ctx):
            v = np.asarray(env[a]).astype(src_np, copy=False).view(dst_np)
            env[out] = v.copy() if v.ndim else v[()]
        return bitcast
    if op is Op.ADDR:
        return pointers.make_addr(ins, d)
    if op in (Op.LD, Op.ST) and isinstance(ins.arg, Pointer):
        return pointers.make_load(ins, d, s) if op is Op.LD else pointers.make_store(ins, s)
    if op is Op.ATOM and isinstance(ins.arg.mem, Pointer):
        return pointers.make_atomic(ins, d, s)
    if op is Op.CVT:
        (a,), out = s, d[0]
        src_t, dst_t = ins.srcs[0].type, ins.dsts[0].type

        def cvt(env, ctx):
            env[out] = arith.convert(env[a], src_t, dst_t)
        return cvt
    if op is Op.SELECT:
        c, a, b = s
        out = d[0]
        dt = ins.dsts[0].type.np

        def select(env, ctx):
            env[out] = np.where(env[c], env[a], env[b]).astype(dt, copy=False)
        return select
    if op is Op.LD:
        return _make_load(ins, d, s)
    if op is Op.ST:
        return _make_store(ins, s)
    if op is Op.ATOM:
        if deferral is not None and deferral.deferred(ins):
            return _make_deferred_atomic(ins, d, s, deferral.arrays[ins.arg.mem.name])
        return _make_atomic(ins, d, s)
    if op is Op.DIM:
        arg: DimArg = ins.arg
        out = d[0]

        def dim(env, ctx):
            env[out] = np.int32(ctx.storage[arg.mem].shape[arg.dim])
        return dim
    if op is Op.SREG:
        which: SReg = ins.arg
        out = d[0]

        def sreg(env, ctx):
            env[out] = ctx.sreg(which)
        return sreg
    if op in (Op.BAR, Op.BAR_AND):
        return warp.make_barrier(ins, d, s)
    if op in (Op.SHFL, Op.VOTE, Op.SYNCWARP, Op.ACTIVEMASK):
        return warp.make_warp_op(ins, d, s)
    if op is Op.CHECK:
        return _make_check(ins, s)
    if op is Op.PRINT:
        return _make_print(ins, s)
    raise NotImplementedError(f"precise engine: no implementation of MIR op {op.name}")


def _src_type(ins: Instr) -> Scalar:
    if ins.srcs:
        return ins.srcs[0].type
    return ins.dsts[0].type if ins.dsts else Scalar.BOOL


def _make_load(ins: Instr, d: list[int], s: list[int]) -> Step:
    mem: MemRef = ins.arg
    (i,) = s
    width = len(d)

    def load(env, ctx):
        st = ctx.storage[mem]
        idx = env[i]
        flat = ctx.flat_index(st, idx, width, ins)
        ctx.record_memory(ins, st, idx, width)
        if ctx.checker is not None:
            ctx.checker.load(ctx, ins, st, flat, width)
        data = st.data
        for k, out in enumerate(d):
            env[out] = data[flat + k] if k else data[flat]
    return load


def _make_store(ins: Instr, s: list[int]) -> Step:
    mem: MemRef = ins.arg
    i, vals = s[0], s[1:]

    def store(env, ctx):
        st = ctx.storage[mem]
        flat = ctx.flat_index(st, env[i], len(vals), ins)
        ctx.record_memory(ins, st, env[i], len(vals))
        n = ctx.n_active
        where = np.broadcast_to(ctx.pick(flat), (n,))   # several lanes, one word: the last lands
        if ctx.checker is not None:
            ctx.checker.store(ctx, ins, st, flat, [ctx.pick(env[v]) for v in vals])
        data = st.data
        for k, v in enumerate(vals):
            data[where + k if k else where] = np.broadcast_to(ctx.pick(env[v]), (n,))
    return store


def _make_atomic(ins: Instr, d: list[int], s: list[int]) -> Step:
    from .memory import atomic
    arg: AtomArg = ins.arg
    out = d[0]
    i = s[0]
    cmp_i, val_i = (s[1], s[2]) if len(s) == 3 else (None, s[1])
    dtype = arg.mem.elem.np

    def atom(env, ctx):
        st = ctx.storage[arg.mem]
        flat = np.broadcast_to(ctx.pick(ctx.flat_index(st, env[i], 1, ins)), (ctx.n_active,))
        ctx.record_memory(ins, st, env[i], 1)
        if ctx.checker is not None:
            ctx.checker.atomic(ctx, ins, st, flat)
        cmp = None if cmp_i is None else ctx.pick(env[cmp_i])
        old = atomic(st.data, np.ascontiguousarray(flat), arg.op, ctx.pick(env[val_i]), cmp)
        env[out] = ctx.spread(old, dtype)
    return atom


def _make_deferred_atomic(ins: Instr, d: list[int], s: list[int], family: str) -> Step:
    """A float atomic whose old value nothing reads: logged, applied in canonical order
    when the batch is done (simt/sim/atomic_log.py). Its (unread) result is zero."""
    arg: AtomArg = ins.arg
    out, i, val_i = d[0], s[0], s[1]
    dtype = arg.mem.elem.np
    negate = arg.op is AtomOp.SUB

    def deferred_atom(env, ctx):
        st = ctx.storage[arg.mem]
        n = ctx.n_active
        flat = np.broadcast_to(ctx.pick(ctx.flat_index(st, env[i], 1, ins)), (n,))
        ctx.record_memory(ins, st, env[i], 1)        # the access happens now, the update later
        if ctx.checker is not None:
            ctx.checker.atomic(ctx, ins, st, flat)
        vals = np.broadcast_to(ctx.pick(env[val_i]), (n,)).astype(dtype)
        lanes = ctx.sel()
        keys = ((ctx.first_cta + lanes // ctx.lanes_per_cta) * atomic_log.THREADS_PER_BLOCK_KEY
                + lanes % ctx.lanes_per_cta)
        ctx.atomic_log.add(st, family, flat, -vals if negate else vals, keys)
        env[out] = ctx.spread(np.zeros(n, dtype), dtype)
    return deferred_atom


def _make_check(ins: Instr, s: list[int]) -> Step:
    arg: CheckArg = ins.arg
    i, n = s

    def check(env, ctx):
        idx = np.asarray(env[i])
        bad = ctx.valid((idx < 0) | (idx >= env[n]))
        if np.any(bad):
            ctx.raise_check(ins, arg, idx, env[n], bad)
    return check


def _make_print(ins: Instr, s: list[int]) -> Step:
    import sys
    from ...ir.printf import format_c
    fmt: str = ins.arg

    def print_(env, ctx):
        n = ctx.n_active
        columns = [np.broadcast_to(ctx.pick(env[k]), (n,)) for k in s]
        out = sys.stdout
        for lane in range(n):                 # active threads in thread order
            out.write(format_c(fmt, [c[lane] for c in columns]))
    return print_
