"""The control-flow shapes the SASS-order replay (sass_replay.py) groups, read from the MIR
alone: one-block loops, chains of small branches (``if`` around a then-block) in straight
code and in loop bodies, blocks with several loads, and the path each iteration of a loop
takes where its branches read only its counter and constants. Whether ptxas scheduled a
shape as the replay assumes is sass_replay.py's question (it reads the SASS); nothing here
does."""
from __future__ import annotations

from ...gpu.sass import is_load
from ...ir.mir import Op, Reg, Space

MAX_THEN = 16           # instructions of a then-region ptxas predicates (ours: it does for a load and its address)


def alternate(n: int) -> list[bool]:
    """Which of a path's ``n`` blocks x, then, join, then, join, ... are then-blocks."""
    return [p % 2 == 1 for p in range(n)]


def self_loop(blk) -> bool:
    term = blk.instrs[-1]
    return term.op is Op.CBR and blk.label in term.arg


def unread_atomics(fn) -> frozenset:
    """The global atomics whose old value no instruction of ``fn`` reads (ptxas issues them as
    REDG, a write that returns nothing, as a store is): their ids."""
    read = {r.id for blk in fn.blocks for ins in blk.instrs for r in ins.srcs if isinstance(r, Reg)}
    return frozenset(id(ins) for blk in fn.blocks for ins in blk.instrs
                     if ins.op is Op.ATOM and ins.arg.mem.space is Space.GLOBAL
                     and not any(d.id in read for d in ins.dsts))


def groupable(blk, reductions: frozenset = frozenset()) -> bool:
    """Only loads, stores and arithmetic, and the atomics in ``reductions`` (unread_atomics):
    no barriers, other atomics or warp collectives."""
    for ins in blk.instrs:
        if ins.op is Op.ATOM and id(ins) in reductions:
            continue
        if ins.op in (Op.ATOM, Op.BAR, Op.BAR_AND):
            return False
        if ins.op.name.startswith(("SHFL", "VOTE", "MATCH", "REDUX")):
            return False
    return True


def straight_blocks(fn) -> list[int]:
    """Blocks that are no one-block loop and hold two or more global and shared loads: ptxas's list
    scheduler issues a block's independent loads before their uses."""
    return [b for b, blk in enumerate(fn.blocks)
            if not self_loop(blk) and groupable(blk) and sum(is_load(i) for i in blk.instrs) >= 2]


def _predecessors(fn, index) -> dict:
    npred: dict[int, int] = {}
    for blk in fn.blocks:
        for label in set(blk.successors):
            npred[index[label]] = npred.get(index[label], 0) + 1
    return npred


def then_region(fn, x, index, npred, need_load: bool, nested: bool):
    """([then, ...], join) where block ``x`` ends in a branch around a small then-region that
    rejoins at ``join``: one then-block ending in a jump to the join or, with ``nested``, a
    then-block ending in a branch of its own around the next one to the same join (``if dy
    != 0 or dx != 0:`` around ``if img[y, x] < c:``). The region's blocks are reached from
    their guard alone, hold ``MAX_THEN`` instructions together and no store (and, with
    ``need_load``, a global or shared load); else None."""
    term = fn.blocks[x].instrs[-1]
    if term.op is not Op.CBR:
        return None
    a, b = (index[label] for label in term.arg)
    for t, j in ((a, b), (b, a)):
        if j == x:
            continue
        chain, cur, size = [], t, 0
        while (cur not in (x, j) and cur not in chain and npred.get(cur, 0) == 1 and groupable(fn.blocks[cur])
               and not any(i.op is Op.ST for i in fn.blocks[cur].instrs)):
            blk = fn.blocks[cur]
            size += len(blk.instrs)
            if size > MAX_THEN:
                break
            chain.append(cur)
            last = blk.instrs[-1]
            if last.op is Op.BR and index[last.arg] == j:
                if need_load and not any(is_load(i) for k in chain for i in fn.blocks[k].instrs):
                    break
                return chain, j
            if not nested or last.op is not Op.CBR or j not in (index[label] for label in last.arg):
                break
            cur = next(index[label] for label in last.arg if index[label] != j)
    return None


def if_paths(fn) -> list[list[int]]:
    """Chains x, then, join, then, join, ... of small branches around global and shared loads
    (sass_replay.py's path groups), with at least two such loads; blocks in no loop group."""
    index = {blk.label: b for b, blk in enumerate(fn.blocks)}
    npred = _predecessors(fn, index)
    paths, used = [], set()
    for x in range(len(fn.blocks)):
        if x in used or self_loop(fn.blocks[x]) or not groupable(fn.blocks[x]):
            continue
        path, cur = [x], x
        while (tj := then_region(fn, cur, index, npred, True, False)) is not None:
            (t,), j = tj
            if j in used or j in path or self_loop(fn.blocks[j]) or not groupable(fn.blocks[j]):
                break
            path += [t, j]
            cur = j
        if len(path) >= 5:
            paths.append(path)
            used.update(path)
    return paths


def loop_paths(fn, nested: bool) -> dict[int, tuple[list[int], list[bool]]]:
    """Latch block -> the blocks of its loop and which of them are then-blocks (see
    ``loop_path``), for the loops whose body branches and holds a global or shared load."""
    index = {blk.label: k for k, blk in enumerate(fn.blocks)}
    npred = _predecessors(fn, index)
    out = {}
    for b in range(len(fn.blocks)):
        path, then = loop_path(fn, b, index, npred, nested)
        if any(is_load(i) for x in path for i in fn.blocks[x].instrs):
            out[b] = (path, then)
    return out


def loop_path(fn, latch: int, index, npred, nested: bool) -> tuple[list[int], list[bool]]:
    """The blocks x, then, join, ..., latch of a loop whose body is a chain of small
    branches (``if``/``continue`` around a then-region: ``then_region``, nested ones with
    ``nested``) closed by ``latch``'s branch back to x, and per block whether it is a
    then-block (an inner one is guarded by the outer one's branch); ([], []) when the loop
    is not of that shape."""
    term = fn.blocks[latch].instrs[-1]
    if term.op is not Op.CBR:
        return [], []
    heads = [index[label] for label in term.arg if index[label] < latch]
    if len(heads) != 1:
        return [], []
    path, then, cur = [heads[0]], [False], heads[0]
    while cur != latch:
        region = then_region(fn, cur, index, npred, False, nested)
        if region is None or region[1] in path or region[1] > latch:
            return [], []
        path += region[0] + [region[1]]
        then += [True] * len(region[0]) + [False]
        cur = region[1]
    if len(path) < 3 or not all(groupable(fn.blocks[b]) for b in path):
        return [], []
    return path, then


def static_path(fn, t: int, b: int, counter: int, value: int) -> list | None:
    """The blocks one iteration of the loop (t, b) runs where its counter holds ``value``,
    following each branch by the values the iteration computes from the counter and
    constants (moves, integer arithmetic, comparisons, logic); None where a branch reads
    anything else, or the iteration leaves the loop or loops within it."""
    index = {blk.label: k for k, blk in enumerate(fn.blocks)}
    known = {counter: value}
    path, cur = [], t
    while True:
        if cur in path or not t <= cur <= b:
            return None
        path.append(cur)
        blk = fn.blocks[cur]
        for ins in blk.instrs[:-1]:
            v = _static_value(ins, known)
            for d in ins.dsts:
                if v is None:
                    known.pop(d.id, None)
                else:
                    known[d.id] = v
        term = blk.instrs[-1]
        if cur == b:
            return path
        if term.op is Op.BR:
            cur = index[term.arg]
        elif term.op is Op.CBR:
            c = known.get(term.srcs[0].id) if isinstance(term.srcs[0], Reg) else None
            if c is None:
                return None
            cur = index[term.arg[0] if c else term.arg[1]]
        else:
            return None


_STATIC_OPS = {Op.ADD: lambda x, y: x + y, Op.SUB: lambda x, y: x - y, Op.MUL: lambda x, y: x * y,
               Op.EQ: lambda x, y: x == y, Op.NE: lambda x, y: x != y, Op.LT: lambda x, y: x < y,
               Op.LE: lambda x, y: x <= y, Op.GT: lambda x, y: x > y, Op.GE: lambda x, y: x >= y,
               Op.AND: lambda x, y: x & y, Op.OR: lambda x, y: x | y}


def _static_value(ins, known):
    """The integer or boolean value ``ins`` computes from ``known`` registers and immediates,
    or None."""
    vals = []
    for x in ins.srcs:
        v = known.get(x.id) if isinstance(x, Reg) else getattr(x, "value", None)
        if isinstance(v, float) or v is None or len(ins.dsts) != 1:
            return None
        vals.append(v)
    if ins.op is Op.MOV and len(vals) == 1:
        return vals[0]
    if ins.op is Op.NOT and len(vals) == 1 and isinstance(vals[0], bool):
        return not vals[0]
    if ins.op in _STATIC_OPS and len(vals) == 2:
        return _STATIC_OPS[ins.op](vals[0], vals[1])
    return None
