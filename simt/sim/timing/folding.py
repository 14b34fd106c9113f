"""Loops ptxas unrolls completely, and what it folds away in them.

A loop with a constant trip count (``for kk in range(32)``) is often unrolled by ptxas into
straight-line code. Each copy then knows its counter, and the copies drop what only served
the loop: the counter's increment, the exit test and its branch, and the counter's part of
an index (``a_s[ty, kk]`` becomes ``LDS [R28+0x400]``, the offset an immediate), and values
the loop does not change are computed once, before the copies. The MIR replay would issue
all of it in every iteration. ptxas does not fold everything it could: in an unrolled
``for r in range(64)`` whose body branches on ``r % 4``, the SASS still computes and tests
``r % 4`` in each copy (through counters it strength-reduced), so values of the counter that
feed anything but an address stay.

Which loops: a MIR loop (a span of blocks closed by a backward branch) whose instructions'
source lines sit, in the SASS, at a loop depth below the MIR loop's own (no SASS loop is left
for it; a loop whose own lines have no SASS instruction, only an inner loop's, is judged by
its inner loops' lines, and one whose lines all hold code outside it too, by those lines) —
read from the SASS table (simt.gpu.sass) with nvdisasm's line info. Without SASS or line
info, nothing is folded.

What folds there (``folded``): the loop's own control; loop-invariant pure instructions;
registers that hold a constant in every unrolled copy (every definition a pure op of
immediates and such registers, every one that reads a register inside a completely unrolled
loop) where they only index memory; and adds of such a constant to a base, where the sum only
indexes memory. A local vector indexed by the counter (``k[m] += ...`` over
``wp.vector(length=64)``) lowers to a compare of the index with each element's position and a
select per element; ptxas knows the index in each copy and keeps the vector in registers, so
compares that are constant in every copy and only decide selects fold, and so do the selects
they decide (the copy names one register: no instruction). The counter's other values cost
one simple instruction each (SIMPLE).
"""
from __future__ import annotations

from ...ir.mir import COMPARE, Imm, Op, Reg

# ops through which a value may reach an address and still fold into the access's offset
_ADDRESS = {Op.ADD, Op.SUB, Op.MUL, Op.SHL, Op.CVT, Op.MOV}
# pure ops: their value depends on their operands alone (isa._PURE's integer and compare ops)
_FOLDABLE = {Op.CVT, Op.SELECT, Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.MIN, Op.MAX,
             Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR, Op.NEG, Op.NOT, Op.ABS, Op.EQ, Op.NE,
             Op.LT, Op.LE, Op.GT, Op.GE, Op.MOV}


def spans(fn) -> list[tuple[int, int]]:
    """(first block, closing block) of every MIR loop, each once."""
    from ...gpu.sass import loop_spans
    return sorted(set(loop_spans(fn)))


def unrolled(fn, df) -> list[tuple[int, int]]:
    """The loops of ``fn`` (spans) that ptxas unrolled completely, by the SASS table ``df``
    (read once per function and architecture: the timing tables and the replay both ask)."""
    if df is None or "line" not in df or not (df["line"] >= 0).any():
        return []
    memo = fn.__dict__.setdefault("_unrolled_loops", {})
    key = df.attrs.get("arch")
    if key not in memo:
        memo[key] = _unrolled(fn, df)
    return list(memo[key])


def _unrolled(fn, df) -> list[tuple[int, int]]:
    loops = spans(fn)
    edges = [(int(t), int(a)) for a, t, op in zip(df["addr"], df["target"], df["opcode"])
             if op == "BRA" and 0 <= t < a]
    depth_at: dict[int, int] = {}          # source line -> deepest SASS loop depth it reaches
    for addr, line in zip(df["addr"], df["line"]):
        if line >= 0:
            d = sum(1 for s, e in edges if s <= addr <= e)
            depth_at[int(line)] = max(depth_at.get(int(line), 0), d)
    lines_of = [{ins.loc.line for ins in blk.instrs if ins.loc is not None} for blk in fn.blocks]
    out = []
    for t, b in loops:
        depth = sum(1 for s, e in loops if s <= t and b <= e)
        inner = [s for s in loops if s != (t, b) and t <= s[0] and s[1] <= b]
        mine = set().union(*(lines_of[k] for k in range(t, b + 1)
                             if not any(s <= k <= e for s, e in inner)))
        outside = set().union(*(lines_of[k] for k in range(len(fn.blocks)) if not t <= k <= b))
        lines = {x for x in mine - outside if x in depth_at}
        if not lines:                         # no SASS line of its own only (``for m in range(8):``
            whole = set().union(*(lines_of[k] for k in range(t, b + 1)))    # around an inner loop,
            lines = {x for x in whole - outside if x in depth_at} or \
                {x for x in whole if x in depth_at}         # or its line shared with its set-up)
        if lines and max(depth_at[x] for x in lines) < depth:
            out.append((t, b))
    return out


READY, OFFSET, SIMPLE = "ready", "offset", "simple"


def folded(fn, loops: list[tuple[int, int]]) -> dict[int, str]:
    """ids of instructions of the completely unrolled ``loops`` that ptxas folds -> how:
    READY (not issued, its value there from the start: a constant, a hoisted value, the
    loop's control), OFFSET (not issued, its value as soon as its operands': an immediate
    offset of an access) or SIMPLE (a value of the counter that feeds more than addresses:
    issued, but as one simple instruction, ptxas knowing its range, where the MIR op may
    stand for a sequence, as ``%`` by a power of two does for signed values)."""
    if not loops:
        return {}
    inside = {k for t, b in loops for k in range(t, b + 1)}
    defs: dict[int, list[tuple[int, object]]] = {}
    for k, blk in enumerate(fn.blocks):
        for ins in blk.instrs:
            for d in ins.dsts:
                defs.setdefault(d.id, []).append((k, ins))
    params = {p.reg.id for p in fn.params if hasattr(p, "reg")}

    def pure(ins) -> bool:
        return ins.op in _FOLDABLE and len(ins.dsts) == 1

    # registers constant in every unrolled copy: the greatest set closed under the rule
    const = {r for r, ds in defs.items() if r not in params and all(pure(i) for _, i in ds)}
    changed = True
    while changed:
        changed = False
        for r in list(const):
            for k, ins in defs[r]:
                regs = [x.id for x in ins.srcs if isinstance(x, Reg)]
                if any(x not in const for x in regs) or (regs and k not in inside):
                    const.discard(r)
                    changed = True
                    break
    # who reads each register: a constant that only indexes memory (``kk * 32``, added to
    # a base) is an immediate offset of the access in the SASS
    readers: dict[int, list] = {}
    for blk in fn.blocks:
        for ins in blk.instrs:
            for x in ins.srcs:
                if isinstance(x, Reg):
                    readers.setdefault(x.id, []).append(ins)
    memo: dict[int, bool] = {}

    def addressing(r: int, depth: int = 0) -> bool:
        """Whether register ``r`` only ever indexes memory, directly or through adds,
        multiplies, shifts and conversions."""
        if r in memo:
            return memo[r]
        users = readers.get(r, [])
        ok = bool(users) and depth < 6 and all(
            (u.op in (Op.LD, Op.ST, Op.ATOM) and isinstance(u.srcs[0], Reg) and u.srcs[0].id == r
             and not any(isinstance(x, Reg) and x.id == r for x in u.srcs[1:]))
            or (u.op in _ADDRESS and len(u.dsts) == 1 and addressing(u.dsts[0].id, depth + 1))
            for u in users)
        memo[r] = ok
        return ok

    # instructions whose value is the same constant in every unrolled copy, definition by
    # definition: each source read from the definitions that reach it (a loop variable ``n``
    # reused by several loops, one of them not unrolled, is still constant in the copies of
    # the unrolled one)
    reach = _reaching(fn)                     # id(ins) -> per register source, its definitions
    where = {id(ins): k for k, blk in enumerate(fn.blocks) for ins in blk.instrs}
    cins = {id(i) for ds in defs.values() for _, i in ds
            if pure(i) and not (reach[id(i)] and where[id(i)] not in inside)}
    changed = True
    while changed:
        changed = False
        for ds in defs.values():
            for _, i in ds:
                if id(i) in cins and any(not src or not src <= cins for src in reach[id(i)]):
                    cins.discard(id(i))
                    changed = True

    def selects_only(r: int) -> bool:
        """Whether register ``r`` is only ever the condition of selects."""
        users = readers.get(r, [])
        return bool(users) and all(
            u.op is Op.SELECT and isinstance(u.srcs[0], Reg) and u.srcs[0].id == r
            and not any(isinstance(x, Reg) and x.id == r for x in u.srcs[1:]) for u in users)

    out: dict[int, str] = {}
    for t, b in loops:
        body = [ins for k in range(t, b + 1) for ins in fn.blocks[k].instrs]
        written = {d.id for ins in body for d in ins.dsts}
        # values the loop does not change: every definition in it a pure op of such values
        # (the least such set: a value the loop carries around, such as a sum, is not one)
        defs_in: dict[int, list] = {}
        for ins in body:
            for d in ins.dsts:
                defs_in.setdefault(d.id, []).append(ins)
        inv: set[int] = set()
        changed = True
        while changed:
            changed = False
            for r, ds in defs_in.items():
                if r not in inv and all(pure(i) and not any(
                        isinstance(x, Reg) and x.id in written and x.id not in inv for x in i.srcs)
                        for i in ds):
                    inv.add(r)
                    changed = True
        for ins in body:
            if pure(ins):
                regs = [x.id for x in ins.srcs if isinstance(x, Reg)]
                d = ins.dsts[0].id
                if d in inv and not any(x in written and x not in inv for x in regs):
                    out[id(ins)] = READY          # invariant: computed once, before the copies
                elif d in const and addressing(d):
                    out[id(ins)] = READY          # the counter's part of an offset
                elif (ins.op in (Op.ADD, Op.SUB) and addressing(d)
                      and any(isinstance(x, Imm) or x.id in const for x in ins.srcs)):
                    out[id(ins)] = OFFSET         # base + offset: the access's immediate
                elif id(ins) in cins and ins.op in COMPARE and selects_only(d):
                    out[id(ins)] = READY          # a local vector's index test: known per copy
                elif (ins.op is Op.SELECT and isinstance(ins.srcs[0], Reg) and selects_only(ins.srcs[0].id)
                      and reach[id(ins)][0] and reach[id(ins)][0] <= cins):
                    out[id(ins)] = OFFSET         # the element the copy names: a register, no instruction
                elif d in const and ins.op is not Op.MOV:
                    out[id(ins)] = SIMPLE
        out.update(dict.fromkeys(_control(fn.blocks[b]), READY))
    return out


def _reaching(fn) -> dict[int, list]:
    """id(ins) -> for each register source of ``ins``, the ids of the definitions that reach
    it: the usual forward data flow over the blocks."""
    index = {blk.label: k for k, blk in enumerate(fn.blocks)}
    preds: list[list[int]] = [[] for _ in fn.blocks]
    for k, blk in enumerate(fn.blocks):
        for label in blk.successors:
            preds[index[label]].append(k)
    gen = [{d.id: id(ins) for ins in blk.instrs for d in ins.dsts} for blk in fn.blocks]
    out: list[dict[int, frozenset]] = [{} for _ in fn.blocks]

    def entering(k: int) -> dict[int, frozenset]:
        into: dict[int, frozenset] = {}
        for p in preds[k]:
            for r, ds in out[p].items():
                into[r] = into.get(r, frozenset()) | ds
        return into

    changed = True
    while changed:
        changed = False
        for k in range(len(fn.blocks)):
            new = entering(k) | {r: frozenset((i,)) for r, i in gen[k].items()}
            if new != out[k]:
                out[k], changed = new, True
    reach: dict[int, list] = {}
    for k, blk in enumerate(fn.blocks):
        cur = entering(k)
        for ins in blk.instrs:
            reach[id(ins)] = [cur.get(x.id, frozenset()) for x in ins.srcs if isinstance(x, Reg)]
            for d in ins.dsts:
                cur[d.id] = frozenset((id(ins),))
    return reach


def _control(blk) -> list[int]:
    """ids of a loop's closing branch, the compare that decides it and the counter's
    increment: no copy of a completely unrolled loop has them."""
    term = blk.instrs[-1]
    if term.op is not Op.CBR or not isinstance(term.srcs[0], Reg):
        return []
    out = [id(term)]
    for k in range(len(blk.instrs) - 2, -1, -1):
        ins = blk.instrs[k]
        if term.srcs[0] in ins.dsts:
            if ins.op in (Op.LT, Op.LE, Op.GT, Op.GE, Op.NE, Op.EQ):
                out.append(id(ins))
                for inc in blk.instrs[k - 1::-1] if k else ():
                    if (inc.op in (Op.ADD, Op.SUB) and inc.dsts and inc.dsts[0] in ins.srcs
                            and any(isinstance(x, Imm) for x in inc.srcs)):
                        out.append(id(inc))
                        break
            break
    return out
