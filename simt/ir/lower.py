"""Lowering: typed HIR -> MIR ``Function``.

Composite values become lists of scalar operands (row-major, quaternions x, y, z, w); each
variable owns fixed registers for its whole life. Device functions are inlined. Blocks are
laid out in structured order (a branch's blocks come before its join; loop bodies before the
loop exit), which the engines rely on for reconvergence; every barrier starts a block.
Array addressing, shared memory and atomics live in lower_memory.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import CompileError
from . import hir
from .builder import Builder, _convert_constant as convert_constant
from .frontend_rules import check_int_constant, component_count, component_type, member_offset
from .lower_memory import MemoryLowering, StructArray
from .lower_values import (NO_ARRAY, ValueLowering, array_param_mems, flat_size,
                           is_array_slot, param_slots, scalar_types)
from .mir import (ArrayParam, Block, Function, Imm, Instr, LaunchSig, MemRef, Op, Operand, Reg,
                  ScalarParam, SReg)
from .registry import lookup
from .types import AnyType, ArrayType, Scalar, StructType, scalar_of


@dataclass
class Frame:
    """The variables and loops of one function being lowered (the kernel or an inlined call)."""
    func: hir.FuncDef
    vars: dict[str, list[Operand] | MemRef] = field(default_factory=dict)
    types: dict[str, AnyType] = field(default_factory=dict)
    loops: list["Loop"] = field(default_factory=list)   # innermost last
    ret_block: Block | None = None
    ret_regs: list[Reg] = field(default_factory=list)


@dataclass
class Loop:
    """Where ``break`` and ``continue`` jump. A while loop makes its latch only when a
    ``continue`` needs one, so loops without ``continue`` run no extra block per iteration."""
    exit: Block
    latch: Block | None = None

    def continue_target(self, b: Builder) -> Block:
        if self.latch is None:
            self.latch = b.new_block("latch")
        return self.latch


# launch-query name -> special registers in CUDA order (x, y, z)
LAUNCH_SREGS = {
    "thread_idx": (SReg.TID_X, SReg.TID_Y, SReg.TID_Z),
    "block_idx": (SReg.CTAID_X, SReg.CTAID_Y, SReg.CTAID_Z),
    "block_dim": (SReg.NTID_X, SReg.NTID_Y, SReg.NTID_Z),
    "grid_dim": (SReg.NCTAID_X, SReg.NCTAID_Y, SReg.NCTAID_Z),
}
DIM_SREGS = (SReg.DIM_0, SReg.DIM_1, SReg.DIM_2, SReg.DIM_3)


class Lowerer(MemoryLowering, ValueLowering):
    def __init__(self, kernel: hir.FuncDef, sig: LaunchSig, debug: bool, fastmath: bool):
        self.kernel = kernel
        self.sig = sig
        self.debug = debug
        self.fastmath = fastmath
        self.b = Builder(kernel.loc)
        self.pinned: set[int] = set()     # registers owned by variables/parameters: never adopted
        self.immutable: set[int] = set()  # registers never written after entry (tid, sregs, params)
        self.hoisted: dict = {}           # values computed once in the entry block
        self.frame = Frame(kernel)
        self.entry: Block | None = None
        self.coords: list[Reg] = []
        self.inline_depth = 0
        self.once: dict[int, list[Operand]] = {}   # hir.Once values of the current statement
        MemoryLowering.__init__(self)

    # ---- blocks --------------------------------------------------------------------------
    def start(self, block: Block) -> None:
        """Make ``block`` current and place it after every block started so far."""
        if self.b.block is not None and not self.b.terminated:
            self.b.br(block)
        self.b.blocks.remove(block)
        self.b.blocks.append(block)
        self.b.set_block(block)

    def dead_block(self) -> None:
        """Code after return/break/continue is unreachable; it goes to a block pruned later."""
        self.start(self.b.new_block("dead"))

    def hoist(self, key, op: Op, type: Scalar, arg, name: str = "") -> Reg:
        """An SREG/DIM value computed once at kernel entry (it dominates every use)."""
        reg = self.hoisted.get(key)
        if reg is None:
            reg = self.b.reg(type, name)
            self.entry.instrs.insert(0, Instr(op, (reg,), (), arg, self.kernel.loc))
            self.hoisted[key] = reg
            self.pinned.add(reg.id)
            self.immutable.add(reg.id)
        return reg

    def sreg(self, s: SReg) -> Reg:
        return self.hoist(("sreg", s), Op.SREG, Scalar.I32, s, s.value.replace(".", "_"))

    # ---- the kernel ----------------------------------------------------------------------
    def lower_kernel(self) -> Function:
        k = self.kernel
        params = []
        for name, t in k.params:
            if isinstance(t, ArrayType):
                mems = array_param_mems(name, t)
                params.extend(ArrayParam(m.name, m) for m in mems)
                self.frame.vars[name] = StructArray(t.dtype, mems) \
                    if isinstance(t.dtype, StructType) else mems[0]
            else:
                slots = []
                for pname, slot in param_slots(name, t):
                    if isinstance(slot, ArrayType):
                        mems = array_param_mems(pname, slot)
                        params.extend(ArrayParam(m.name, m) for m in mems)
                        slots.append(StructArray(slot.dtype, mems)
                                     if isinstance(slot.dtype, StructType) else mems[0])
                        continue
                    r = self.b.reg(slot, pname)
                    params.append(ScalarParam(pname, r))
                    self.pinned.add(r.id)
                    slots.append(r)
                self.frame.vars[name] = slots
            self.frame.types[name] = t
        self.entry = self.b.new_block("entry")
        self.start(self.entry)
        self.thread_guard()
        for name, t in k.params:   # parameters the body reassigns get their own registers
            if isinstance(t, ArrayType):
                continue
            if name in k.assigned:
                self.frame.vars[name] = self.adopt(self.frame.vars[name], name)
            else:
                self.immutable.update(r.id for r in self.frame.vars[name] if isinstance(r, Reg))
        self.block(k.body)
        if not self.b.terminated:
            self.b.ret()
        blocks = prune_unreachable(self.b.blocks)
        fold_copies(blocks, {p.reg.id for p in params if isinstance(p, ScalarParam)})
        fn = Function(k.name, params, blocks, list(self.shared), self.sig, self.debug, self.fastmath,
                      k.loc)
        return fn

    def thread_guard(self) -> None:
        """Compute tid() coordinates (numpy order) and exit threads outside the launch dim."""
        b = self.b
        n = max(self.sig.dim_ndim, 1)
        dims = [self.sreg(DIM_SREGS[k]) for k in range(n)]
        coords: list[Operand] = []
        if self.sig.block_ndim == 1:
            linear = b.binary(Op.ADD, b.binary(Op.MUL, self.sreg(SReg.CTAID_X), self.sreg(SReg.NTID_X)),
                              self.sreg(SReg.TID_X))
            rest = linear
            for k in range(n - 1, 0, -1):
                coords.insert(0, b.binary(Op.REM, rest, dims[k]))
                rest = b.binary(Op.DIV, rest, dims[k])
            coords.insert(0, rest)
            out = b.compare(Op.GE, coords[0], dims[0])
        else:
            if self.sig.block_ndim != n:
                raise CompileError(f"a {self.sig.block_ndim}-D block needs a {self.sig.block_ndim}-D "
                                   f"launch dim, got {n}-D", self.kernel.loc)
            axes = {name: LAUNCH_SREGS[name] for name in ("thread_idx", "block_idx", "block_dim")}
            out = None
            for k in range(n):
                axis = n - 1 - k
                c = b.binary(Op.ADD, b.binary(Op.MUL, self.sreg(axes["block_idx"][axis]),
                                              self.sreg(axes["block_dim"][axis])),
                             self.sreg(axes["thread_idx"][axis]))
                coords.append(c)
                o = b.compare(Op.GE, c, dims[k])
                out = o if out is None else b.binary(Op.OR, out, o)
        for c in coords:
            self.pinned.add(c.id)
            self.immutable.add(c.id)
        self.coords = coords
        exit_block = b.new_block("exit")
        body = b.new_block("body")
        b.cbr(out, exit_block, body)
        self.start(exit_block)
        b.ret()
        self.start(body)

    # ---- statements ----------------------------------------------------------------------
    def block(self, stmts: list[hir.Stmt]) -> None:
        outer = self.once        # an inlined body's statements run inside a caller's statement
        for s in stmts:
            self.b.loc = s.loc
            self.once = {}
            try:
                getattr(self, "stmt_" + type(s).__name__)(s)
            except CompileError:
                raise
            except Exception as e:  # noqa: BLE001 - report internal errors at the user's line
                raise CompileError(f"internal compiler error while lowering this statement "
                                   f"({type(e).__name__}: {e}); please report it", s.loc) from e
        self.once = outer

    def stmt_Assign(self, s: hir.Assign) -> None:
        if isinstance(s.value.type, ArrayType):
            if s.name in self.frame.vars:
                raise CompileError(f"array variable {s.name!r} cannot be reassigned", s.loc)
            self.frame.vars[s.name] = self.array(s.value, s.name)
            self.frame.types[s.name] = s.value.type
            return
        ops = self.value(s.value)
        self.b.loc = s.loc
        self.assign(s.name, s.value.type, ops)

    def assign(self, name: str, t: AnyType, ops: list[Operand]) -> None:
        if name not in self.frame.vars and name in self.frame.func.assigned_once and \
                all(isinstance(o, Imm) or is_array_slot(o) or o.id in self.immutable for o in ops):
            self.frame.vars[name] = list(ops)   # a value that never changes needs no copy
            self.frame.types[name] = t
        elif name not in self.frame.vars:
            self.frame.vars[name] = self.adopt(ops, name)
            self.frame.types[name] = t
        else:
            self.move_into(self.frame.vars[name], ops)

    def adopt(self, ops: list[Operand], name: str) -> list[Reg]:
        """Registers for a new variable: fresh temporaries are taken over, others copied."""
        regs = []
        n = len(ops)
        for i, op in enumerate(ops):
            if is_array_slot(op):            # an array field of a struct: not a register
                regs.append(op)
                continue
            if isinstance(op, Reg) and op.id not in self.pinned:
                reg = op
            else:
                reg = self.b.reg(op.type, name if n == 1 else f"{name}_{i}")
                self.b.mov(op, reg)
            self.pinned.add(reg.id)
            regs.append(reg)
        return regs

    def move_into(self, dsts: list[Reg], srcs: list[Operand]) -> None:
        """dsts[i] = srcs[i] for all i at once (safe when srcs is a permutation of dsts).
        An array slot of a struct is set at compile time: once, or to the array it holds."""
        for i, (d, s) in enumerate(zip(dsts, srcs)):
            if not is_array_slot(d):
                continue
            if d is not s and d is not NO_ARRAY:
                raise CompileError("a struct field holding an array cannot be given another "
                                   "array; use another struct variable", self.b.loc)
            dsts[i] = s
        pairs = [(d, s) for d, s in zip(dsts, srcs) if not is_array_slot(d)]
        dsts = [d for d, _ in pairs]
        srcs = [s for _, s in pairs]
        position = {d.id: i for i, d in enumerate(dsts)}
        if any(isinstance(s, Reg) and position.get(s.id, i) != i for i, s in enumerate(srcs)):
            srcs = [self.b.mov(s) if isinstance(s, Reg) and s.id in position else s for s in srcs]
        for d, s in zip(dsts, srcs):
            if s is not d:
                self.b.mov(s, d)

    def stmt_Unpack(self, s: hir.Unpack) -> None:
        ops = self.value(s.value)
        self.b.loc = s.loc
        if any(n in self.frame.vars for n in s.names):   # a, b = b, a: read everything first
            ops = [self.b.mov(o) if isinstance(o, Reg) and o.id in self.pinned else o for o in ops]
        pos = 0
        for name, t in zip(s.names, s.value.type.elems):
            n = flat_size(t)
            self.assign(name, t, ops[pos:pos + n])
            pos += n

    def stmt_ComponentStore(self, s: hir.ComponentStore) -> None:
        value = [self.array(s.value)] if isinstance(s.value.type, ArrayType) else self.value(s.value)
        path = [self.value(p)[0] for p in s.path]
        self.b.loc = s.loc
        regs = self.frame.vars[s.name]
        for preds, offset, size in self.component_slots(self.frame.types[s.name], path):
            target = regs[offset:offset + size]
            if not preds:
                self.move_into(target, value)
                regs[offset:offset + size] = target     # array slots set by move_into
                continue
            p = self.all_of(preds)
            for d, v in zip(target, value):
                self.b.emit(Op.SELECT, (d,), (p, v, d))

    def component_slots(self, t: AnyType, path: list[Operand]):
        """(conditions, flat offset, size) of each place ``path`` may select inside a ``t``;
        a dynamic index yields one slot per component, guarded by ``index == k``."""
        slots = [([], 0)]
        for index in path:
            if isinstance(t, StructType):
                k = int(index.value)
                slots = [(preds, off + member_offset(t, k)) for preds, off in slots]
                t = t.fields[k][1]
                continue
            sub = component_type(t)
            stride, n = flat_size(sub), component_count(t)
            new = []
            for preds, off in slots:
                if isinstance(index, Imm):
                    new.append((preds, off + int(index.value) * stride))
                else:
                    for k in range(n):
                        new.append((preds + [(index, k)], off + k * stride))
            slots, t = new, sub
        return [(preds, off, flat_size(t)) for preds, off in slots]

    def all_of(self, preds: list[tuple[Operand, int]]) -> Reg:
        result = None
        for index, k in preds:
            c = self.b.compare(Op.EQ, self.as_i32(index), Imm(k, Scalar.I32))
            result = c if result is None else self.b.binary(Op.AND, result, c)
        return result

    def stmt_ArrayStore(self, s: hir.ArrayStore) -> None:
        self.store(s)

    def stmt_ExprStmt(self, s: hir.ExprStmt) -> None:
        self.value(s.value)

    def stmt_If(self, s: hir.If) -> None:
        if isinstance(s.cond, hir.Const):
            self.block(s.body if s.cond.value else s.orelse)
            return
        c = self.value(s.cond)[0]
        self.b.loc = s.loc
        then = self.b.new_block("then")
        orelse = self.b.new_block("else") if s.orelse else None
        join = self.b.new_block("endif")
        self.b.cbr(c, then, orelse or join)
        self.start(then)
        self.block(s.body)
        if orelse is not None:
            if not self.b.terminated:
                self.b.br(join)
            self.start(orelse)
            self.block(s.orelse)
        self.start(join)

    def stmt_ForRange(self, s: hir.ForRange) -> None:
        b = self.b
        start = self.as_i32(self.value(s.start)[0])
        stop = self.snapshot(self.as_i32(self.value(s.stop)[0]))
        step = self.snapshot(self.as_i32(self.value(s.step)[0]))
        b.loc = s.loc
        counter = b.mov(start, b.reg(Scalar.I32, "iter"))
        self.pinned.add(counter.id)
        header, body = b.new_block("for"), b.new_block("body")
        latch, exit_block = b.new_block("latch"), b.new_block("endfor")
        self.start(header)
        if isinstance(step, Imm):
            cond = b.compare(Op.LT if step.value > 0 else Op.GT, counter, stop)
        else:
            up = b.compare(Op.LT, counter, stop)
            down = b.compare(Op.GT, counter, stop)
            cond = b.select(b.compare(Op.GT, step, Imm(0, Scalar.I32)), up, down)
        b.cbr(cond, body, exit_block)
        self.start(body)
        if s.var in self.frame.vars:
            b.mov(counter, self.frame.vars[s.var][0])
        else:
            self.frame.vars[s.var] = self.adopt([counter], s.var)
            self.frame.types[s.var] = Scalar.I32
        self.frame.loops.append(Loop(exit_block, latch))
        self.block(s.body)
        self.frame.loops.pop()
        self.start(latch)
        b.loc = s.loc
        b.emit(Op.ADD, (counter,), (counter, step))
        b.br(header)
        self.start(exit_block)

    def snapshot(self, op: Operand) -> Operand:
        """range() evaluates its bounds once: copy a variable so the body cannot change them."""
        if isinstance(op, Reg) and op.id in self.pinned:
            return self.b.mov(op)
        return op

    def stmt_While(self, s: hir.While) -> None:
        b = self.b
        header, body, exit_block = b.new_block("while"), b.new_block("body"), b.new_block("endwhile")
        self.start(header)
        if isinstance(s.cond, hir.Const) and not s.cond.value:
            b.br(exit_block)
        elif isinstance(s.cond, hir.Const):
            # `while True`: keep the exit edge, so a `break` inside an `if` reconverges at the
            # loop exit (laid out last) rather than at the break's own block.
            b.cbr(Imm(True, Scalar.BOOL), body, exit_block)
        else:
            c = self.value(s.cond)[0]
            b.loc = s.loc
            b.cbr(c, body, exit_block)
        self.start(body)
        loop = Loop(exit_block)
        self.frame.loops.append(loop)
        self.block(s.body)
        self.frame.loops.pop()
        if loop.latch is not None:
            # `continue` jumps here, forward: the only back edge leaves from the end of the
            # body, so every branch inside the body reconverges before the loop repeats.
            self.start(loop.latch)
            b.loc = s.loc
        if not b.terminated:
            b.br(header)
        self.start(exit_block)

    def stmt_Break(self, s: hir.Break) -> None:
        self.b.br(self.frame.loops[-1].exit)
        self.dead_block()

    def stmt_Continue(self, s: hir.Continue) -> None:
        self.b.br(self.frame.loops[-1].continue_target(self.b))
        self.dead_block()

    def stmt_Return(self, s: hir.Return) -> None:
        if self.frame.ret_block is None:   # the kernel: the thread exits
            self.b.ret()
        else:
            if s.value is not None:
                ops = self.value(s.value)
                self.b.loc = s.loc
                self.move_into(self.frame.ret_regs, ops)
            self.b.br(self.frame.ret_block)
        self.dead_block()

    def stmt_SyncThreads(self, s: hir.SyncThreads) -> None:
        self.barrier_block("bar")
        self.b.emit(Op.BAR)

    def barrier_block(self, hint: str) -> None:
        if self.b.block.instrs:
            self.start(self.b.new_block(hint))

    def stmt_BlockUntil(self, s: hir.BlockUntil) -> None:
        b = self.b
        head = b.new_block("until")
        self.start(head)
        c = self.value(s.cond)[0]
        b.loc = s.loc
        wait, done = b.new_block("until_bar"), b.new_block("until_done")
        self.start(wait)
        every = b.reg(Scalar.BOOL, "all")
        b.emit(Op.BAR_AND, (every,), (c,))
        b.cbr(every, done, head)
        self.start(done)

    # ---- expressions ---------------------------------------------------------------------
    def value(self, e: hir.Expr) -> list[Operand]:
        """The flattened scalar operands of ``e`` (arrays: see ``array``)."""
        saved = self.b.loc
        self.b.loc = e.loc
        try:
            return getattr(self, "expr_" + type(e).__name__)(e)
        finally:
            self.b.loc = saved

    def as_i32(self, op: Operand) -> Operand:
        return self.b.cvt(op, Scalar.I32)

    def expr_Const(self, e: hir.Const) -> list[Operand]:
        if e.literal and e.type.is_int and not isinstance(e.value, bool):
            check_int_constant(int(e.value), e.type, e.loc)    # an untyped literal must fit
        return [self.b.imm(convert_constant(e.value, e.type), e.type)]   # typed values wrap

    def expr_Var(self, e: hir.Var) -> list[Operand]:
        v = self.frame.vars.get(e.name)
        if v is None:
            raise CompileError(f"variable {e.name!r} has no value on this path", e.loc)
        if isinstance(v, MemRef):
            raise CompileError(f"array {e.name!r} cannot be used as a value here", e.loc)
        return list(v)

    def expr_Call(self, e: hir.Call) -> list[Operand]:
        builtin = lookup(e.builtin)
        args = [self.value(a) for a in e.args]
        self.b.loc = e.loc
        result = builtin.lower(self.b, [a.type for a in e.args], args)
        return list(result or [])

    def expr_Once(self, e: hir.Once) -> list[Operand]:
        """Evaluated where first reached (that place dominates the others: they come later in
        the same statement); a variable's registers are copied, as later code may assign it."""
        ops = self.once.get(id(e))
        if ops is None:
            ops = [self.b.mov(o) if isinstance(o, Reg) and o.id in self.pinned else o
                   for o in self.value(e.value)]
            self.once[id(e)] = ops
        return list(ops)

    def expr_Truth(self, e: hir.Truth) -> list[Operand]:
        v = self.value(e.value)[0]
        self.b.loc = e.loc
        return [self.b.compare(Op.NE, v, self.b.imm(0, v.type))]

    def expr_Not(self, e: hir.Not) -> list[Operand]:
        v = self.value(e.value)[0]
        self.b.loc = e.loc
        if isinstance(v, Imm):
            return [Imm(not v.value, Scalar.BOOL)]
        return [self.b.unary(Op.NOT, v)]

    def expr_BoolOp(self, e: hir.BoolOp) -> list[Operand]:
        """Operands that are safe to evaluate early are combined with AND/OR in the current
        block (predication, as nvcc does); only an operand that may fault or has effects (a
        load, a call, a division) gets its own block, reached only when it is needed."""
        b = self.b
        combine = Op.AND if e.op == "and" else Op.OR
        acc = self.value(e.values[0])[0]
        result = join = None
        for v in e.values[1:]:
            if speculatable(v):
                c = self.value(v)[0]
                b.loc = e.loc
                acc = b.binary(combine, acc, c)
                continue
            if join is None:
                result, join = b.reg(Scalar.BOOL, e.op), b.new_block("end" + e.op)
            b.loc = e.loc
            b.mov(acc, result)
            more = b.new_block(e.op)
            if e.op == "and":
                b.cbr(result, more, join)
            else:
                b.cbr(result, join, more)
            self.start(more)
            acc = self.value(v)[0]
        if join is None:
            return [acc]
        b.loc = e.loc
        b.mov(acc, result)
        self.start(join)
        return [result]

    def expr_IfExp(self, e: hir.IfExp) -> list[Operand]:
        b = self.b
        c = self.value(e.cond)[0]
        if isinstance(c, Imm):
            return self.value(e.then if c.value else e.orelse)
        if speculatable(e.then) and speculatable(e.orelse):   # both sides, then SELECT
            then_ops, else_ops = self.value(e.then), self.value(e.orelse)
            b.loc = e.loc
            return [b.select(c, t, f) for t, f in zip(then_ops, else_ops)]
        results = [b.reg(s, "sel") for s in scalar_types(e.type)]
        then, orelse, join = b.new_block("ifexp"), b.new_block("ifexp_else"), b.new_block("ifexp_end")
        b.loc = e.loc
        b.cbr(c, then, orelse)
        for block, side in ((then, e.then), (orelse, e.orelse)):
            self.start(block)
            ops = self.value(side)
            b.loc = e.loc
            self.move_into(results, ops)
            b.br(join)
        self.start(join)
        return results

    def expr_Extract(self, e: hir.Extract) -> list[Operand]:
        ops = self.value(e.base)
        index = self.value(e.index)[0]
        self.b.loc = e.loc
        if isinstance(e.base.type, StructType):
            start = member_offset(e.base.type, int(index.value))
            return ops[start:start + flat_size(e.type)]
        stride, n = flat_size(e.type), component_count(e.base.type)
        if isinstance(index, Imm):
            k = int(index.value)
            return ops[k * stride:(k + 1) * stride]
        index = self.as_i32(index)
        result = ops[0:stride]
        for k in range(1, n):
            hit = self.b.compare(Op.EQ, index, Imm(k, Scalar.I32))
            result = [self.b.select(hit, ops[k * stride + j], result[j]) for j in range(stride)]
        return result

    def expr_TupleExpr(self, e: hir.TupleExpr) -> list[Operand]:
        return [o for elem in e.elems for o in self.value(elem)]

    def expr_TupleGet(self, e: hir.TupleGet) -> list[Operand]:
        ops = self.value(e.base)
        start = sum(flat_size(t) for t in e.base.type.elems[:e.index])
        return ops[start:start + flat_size(e.type)]

    def expr_Special(self, e: hir.Special) -> list[Operand]:
        if e.name == "tid":   # Warp: the first coordinates of the launch, padded with 0s
            coords = list(self.coords[:e.count])
            return coords + [Imm(0, Scalar.I32)] * (e.count - len(coords))
        if e.name in LAUNCH_SREGS:
            regs = LAUNCH_SREGS[e.name]
            return [self.sreg(regs[axis]) for axis in reversed(range(e.count))]
        if e.name == "lane_id":
            return [self.sreg(SReg.LANEID)]
        if e.name == "warp_id":
            return [self.sreg(SReg.WARPID)]
        if e.name == "clock":   # read where it is called, never hoisted
            dst = self.b.reg(Scalar.I64, "clock")
            self.b.emit(Op.SREG, (dst,), (), SReg.CLOCK)
            return [dst]
        raise CompileError(f"unknown special form {e.name!r}", e.loc)

    def expr_InlineCall(self, e: hir.InlineCall) -> list[Operand]:
        fd = e.func
        if self.inline_depth > 64:
            raise CompileError("device functions nest too deeply (more than 64 inlined calls)", e.loc)
        for arg in e.first:      # arguments in source order (keywords out of parameter order)
            self.value(arg)
        frame = Frame(fd)
        for (name, t), arg in zip(fd.params, e.args):
            if isinstance(t, ArrayType):
                frame.vars[name] = self.array(arg)
            else:
                ops = self.value(arg)
                self.b.loc = e.loc
                if name in fd.assigned:
                    frame.vars[name] = self.adopt(ops, name)
                else:   # read-only parameter: alias the argument, which a variable now names
                    frame.vars[name] = ops
                    self.pinned.update(o.id for o in ops if isinstance(o, Reg))
            frame.types[name] = t
        frame.ret_regs = [NO_ARRAY if isinstance(s, ArrayType) else self.b.reg(s, "ret")
                          for s in scalar_types(fd.return_type)]
        frame.ret_block = self.b.new_block("ret_" + fd.name)
        caller, self.frame = self.frame, frame
        self.inline_depth += 1
        try:
            self.block(fd.body)
        finally:
            self.frame = caller
            self.inline_depth -= 1
        self.start(frame.ret_block)
        refs = [o for name, _ in fd.params if name in fd.ref_params for o in frame.vars[name]]
        return list(frame.ret_regs) + refs

    def expr_SharedArray(self, e: hir.SharedArray) -> list[Operand]:
        raise CompileError("assign the shared array to a variable: s = simt.shared.array(...)", e.loc)


# Evaluating a speculatable expression when its value is not needed is harmless and cheap:
# it reads no memory, has no effects and cannot trap, so `and`/`or`/`if else` may compute it
# unconditionally instead of branching around it.
SPECULATION_BUDGET = 24                    # HIR nodes: beyond that a branch is cheaper
TRAPPING_INT_BUILTINS = {"div", "mod", "floordiv"}   # x / 0 on integers traps in C


def divides_safely(call: hir.Call) -> bool:
    """Float division, or integer division by a nonzero constant."""
    divisor = call.args[-1]
    if all(scalar_of(a.type).is_float for a in call.args):
        return True
    return isinstance(divisor, hir.Const) and divisor.value != 0


def speculatable(e: hir.Expr) -> bool:
    budget = [SPECULATION_BUDGET]

    def ok(x: hir.Expr | None) -> bool:
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if isinstance(x, (hir.Const, hir.Var)):
            return True
        if isinstance(x, hir.Special):
            return x.name != "clock"
        if isinstance(x, hir.ArrayDim):
            return isinstance(x.array, hir.Var)
        if isinstance(x, hir.Call):
            builtin = lookup(x.builtin)
            if builtin is None or not builtin.pure:
                return False
            if x.builtin in TRAPPING_INT_BUILTINS and not divides_safely(x):
                return False
            return all(ok(a) for a in x.args)
        if isinstance(x, (hir.Truth, hir.Not)):
            return ok(x.value)
        if isinstance(x, hir.BoolOp):
            return all(ok(v) for v in x.values)
        if isinstance(x, hir.IfExp):
            return ok(x.cond) and ok(x.then) and ok(x.orelse)
        if isinstance(x, hir.Extract):
            return ok(x.base) and ok(x.index)
        if isinstance(x, hir.TupleExpr):
            return all(ok(v) for v in x.elems)
        if isinstance(x, hir.TupleGet):
            return ok(x.base)
        if isinstance(x, hir.Once):
            return ok(x.value)
        return False   # loads, atomics, inlined calls, shared allocations

    return ok(e)


def prune_unreachable(blocks: list[Block]) -> list[Block]:
    by_label = {b.label: b for b in blocks}
    seen = {blocks[0].label}
    work = [blocks[0]]
    while work:
        for succ in work.pop().successors:
            if succ not in seen:
                seen.add(succ)
                work.append(by_label[succ])
    return [b for b in blocks if b.label in seen]


def fold_copies(blocks: list[Block], params: set[int]) -> None:
    """``t = op ...; d = mov t`` becomes ``d = op ...`` when nothing else touches ``t``.

    Assigning to an existing variable computes the value into a temporary and copies it;
    the copy costs an instruction per assignment (in loops, per iteration). Instructions
    read their sources before writing, so ``d = op d, ...`` keeps its meaning."""
    reads: dict[int, int] = {}
    writes: dict[int, int] = {}
    for block in blocks:
        for ins in block.instrs:
            for r in ins.srcs:
                if isinstance(r, Reg):
                    reads[r.id] = reads.get(r.id, 0) + 1
            for r in ins.dsts:
                writes[r.id] = writes.get(r.id, 0) + 1
    for block in blocks:
        kept: list[Instr] = []
        for ins in block.instrs:
            prev = kept[-1] if kept else None
            if ins.op is Op.MOV and isinstance(ins.srcs[0], Reg) and prev is not None \
                    and len(prev.dsts) == 1 and prev.dsts[0] == ins.srcs[0]:
                temp, dst = ins.srcs[0], ins.dsts[0]
                if reads.get(temp.id) == 1 and writes.get(temp.id) == 1 and temp.id not in params \
                        and temp.type is dst.type and temp.id != dst.id:
                    prev.dsts = (dst,)
                    continue
            kept.append(ins)
        block.instrs = kept


def lower_kernel(kernel: hir.FuncDef, sig: LaunchSig, debug: bool, fastmath: bool) -> Function:
    return Lowerer(kernel, sig, debug, fastmath).lower_kernel()
