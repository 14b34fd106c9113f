"""Issue slots from the SASS ptxas made: of a loop, of an outer loop's own instructions, of
a completely unrolled loop's lines and of the lines outside loops.

The op table (probes.py) gives each MIR op the SASS instructions it costs alone; in a loop
ptxas does more and less than the sum: it keeps constants in registers or reloads them, adds
moves and predicate juggling around a math function's slow path, unrolls and drops part of
the control. Where the SASS loop stands plainly for one MIR loop, the loop's issue slots per
iteration are taken from the SASS (a copy of ``dependent sines`` runs 31 SASS instructions an
iteration where the op table says 25; steady_writes.py on the H200: 32 cycles an iteration,
one warp instruction a cycle).

Which loops: a MIR loop of one block closing on itself (no branch in its body), and a SASS
loop of one block (its only branch the back edge; no inner loop, no divergence handling)
whose instructions' source lines all lie in that MIR block's; ptxas's unroll factor read from
the loop counter's increment on the MIR increment's source line (``IADD3 R6, R6, 0xb, RZ``:
11 iterations a pass, for a MIR counter stepping by 1). The loop's ALU instructions' slots
are scaled so that an iteration issues the SASS loop's instructions over the unroll factor
(loads, stores and branches keep theirs); an iteration over 4 times the op table's
(LOOP_RANGE) means the two loops do not stand for each other after all, and the loop keeps the op table's slots. The same per
source line: in a loop of several blocks (``line_scales``), in a loop ptxas unrolled completely
(``unrolled_scales``) and outside loops (``straight_scales``); an outer loop's iteration issues
its SASS loop's own instructions (``outer_loops``). Without SASS or line info, nothing changes
(the documented fallback).
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ...gpu.sass import back_edges, loop_spans
from ...ir.mir import Imm, Op
from . import isa
from .loop_trips import trip_count
from .replay_shapes import self_loop

SCALE_RANGE = (0.5, 2.0)     # a line's own factor outside loops (straight_scales)
# a one-block loop matched to its SASS loop by every source line and the counter's step:
# ptxas sharing address arithmetic among a loop's many loads (a Harris window's 12 clamped
# reads an iteration, 79 SASS instructions where the op table says 140) is still that loop
# (or ptxas making an unrolled byte loop 10 SASS instructions an iteration where the op table
# says 24): any factor from 0 up, the whole iteration at most 4 times the op table's
LOOP_RANGE = (0.0, 4.0)
WIDE_LOOPS = True
LOWER = 0.0                 # the least factor of a pool of lines outside loops (straight_scales)
UNROLLED = True             # a loop ptxas unrolled completely issues its lines' SASS over its trips
EXTRA = True                # a line with more SASS than twice its slots issues the rest (_extra)
OUTER = True                # an outer loop's iteration issues its SASS loop's own slots (outer_loops)
STRAIGHT = True             # code outside loops issues its SASS lines' slots (straight_scales)
FEWER = True                # a line with fewer SASS than its accesses' slots issues that many (_fit)
NEST = True                 # a rolled loop around completely unrolled ones issues its SASS (nest_scales)
PREDICATED_LINES = True     # a then-block's SASS predicated into a loop issues every iteration (line_scales)
POOL_LINES = True           # a loop's lines out of range share one factor (line_scales)
SLOW_ALONE = True           # a line outside loops calling a slow path keeps its slots, never pooled
MIXED_NESTS = True          # ... and in a rolled loop around rolled and unrolled ones, the unrolled ones' lines (nest_scales)
OUTER_OWN_LINES = True      # an outer loop's SASS rows on its inner loops' lines only are theirs (outer_loops)
SLOW_DIAMONDS = True        # a loop whose only other branch skips a slow path's call is plain (plain_loops)
# a loop body with these is not one straight block of work
_NOT_PLAIN = {"BSSY", "BSYNC", "WARPSYNC", "EXIT", "CALL", "RET", "BRX", "JMP", "BAR", "YIELD"}
_INC = re.compile(r"^(U?R\d+),\s*(U?R\d+)(?:\.reuse)?,\s*(-?0x[0-9a-fA-F]+|-?\d+)(?:,\s*U?RZ)?$")


def _signed(v: int) -> int:
    """A 32-bit immediate as the signed value it adds (``0xfffffffc``: -4)."""
    return v - (1 << 32) if v >= (1 << 31) else v


def _has_inner(edges, k: int) -> bool:
    """Whether SASS loop ``k`` (of ``back_edges``) has another loop inside it."""
    start, end = edges[k]
    return any(j != k and start <= s and e <= end for j, (s, e) in enumerate(edges))


def _sass_loops(df, innermost: bool = True):
    """(index, own rows, their lines) of each innermost SASS loop, or each with loops inside."""
    edges = back_edges(df)
    out = []
    for k in range(len(edges)):
        if _has_inner(edges, k) == innermost:
            continue
        own = df[(df["loop"] == k) & (df["opcode"] != "NOP")]
        out.append((k, own, {int(x) for x in own["line"] if x >= 0}))
    return out


def _every_pass(tab, blocks, t: int, b: int) -> int:
    """The static index of an instruction every iteration of the loop (t, b) issues, to carry
    the slots of work ptxas predicated into the loop: the head's first ALU instruction that
    issues (a completely unrolled loop's latch is folded away), else the back-edge branch."""
    i0 = int(tab.block_first[t])
    for i in range(i0, i0 + int(tab.block_len[t])):
        if tab.kind[i] == isa.ALU and tab.sass[i] > 0.0:
            return i
    return int(tab.block_first[b]) + len(blocks[b].instrs) - 1


def _skippable(own):
    """Which rows of a SASS loop's body a forward branch inside the loop can jump over (the
    rest every pass issues, predicated or not)."""
    addr = own["addr"].to_numpy()
    out = np.zeros(addr.size, bool)
    for a, op, tgt in zip(addr, own["opcode"], own["target"]):
        if op == "BRA" and a < tgt <= addr[-1]:
            out |= (addr > a) & (addr < tgt)
    return out


def _plain_sass_loops(df, slow_ok: bool = False):
    """(index, rows) of each innermost SASS loop whose only branch is its back edge. With
    ``slow_ok``, a slow path's diamond does not count (a float division's: ``BSSY``, the
    ``FCHK``'s branch around the block calling the slow path, ``BSYNC``): the rows are then
    those a warp issues on the fast path, the calling block left out."""
    edges = back_edges(df)
    calls = _slow_calls(df) if slow_ok else None
    slow_at = df.loc[calls, "addr"].to_numpy() if slow_ok else None
    out = []
    for k in range(len(edges)):
        if _has_inner(edges, k):
            continue
        own = df[df["loop"] == k]
        check = own
        calling = set(own.loc[calls[own.index], "block"]) if slow_ok else set()
        if calling:
            own = own[~own["block"].isin(calling)]
            around = [op == "BRA" and a < t and bool(((slow_at > a) & (slow_at < t)).any())
                      for op, a, t in zip(own["opcode"], own["addr"], own["target"])]
            check = own[~np.array(around, bool) & ~own["opcode"].isin(["BSSY", "BSYNC"])]
        ops = list(check["opcode"])
        if not ops or ops[-1] != "BRA" or ops.count("BRA") != 1 or _NOT_PLAIN & set(ops):
            continue
        out.append((k, own))
    return out


def _increment(blk, b):
    """(source line, step) of a self loop's counter increment, or None."""
    control = isa._loop_control(blk, b)
    for pos in sorted(control):
        ins = blk.instrs[pos]
        if ins.op is Op.ADD and ins.loc is not None:
            imm = [x for x in ins.srcs if isinstance(x, Imm)]
            if imm and isinstance(imm[0].value, int) and imm[0].value != 0:
                return ins.loc.line, int(imm[0].value)
    return None


def _unroll(own, line: int, step: int) -> int:
    """Iterations a pass of the SASS loop: the largest self-increment on the counter's line
    over the MIR step (a counter going down: ``VIADD R9, R9, 0xfffffffc`` over -1 is 4); 0
    when none reads plainly."""
    best = 0
    rows = own[(own["line"] == line) & own["opcode"].isin(["IADD3", "VIADD", "IADD", "UIADD3"])]
    for operands in rows["operands"]:
        m = _INC.match(str(operands).strip())
        if m and m.group(1) == m.group(2):
            v = _signed(int(m.group(3), 0))
            if v * step > 0 and v % step == 0:
                best = max(best, v // step)
    return best


def plain_loops(df) -> list:
    """(rows, source lines) of each innermost SASS loop whose only branch is its back edge (a
    slow path's diamond aside, with SLOW_DIAMONDS)."""
    return [(own, {int(x) for x in own["line"] if x >= 0}) for _, own in _plain_sass_loops(df, SLOW_DIAMONDS)]


def self_loop_match(blk, b, sass_loops):
    """(U, the SASS loop's rows) for the one-block MIR loop ``blk`` (block ``b`` of the
    precise program): of ``sass_loops`` (plain_loops) those on the MIR loop's source lines,
    the one ptxas unrolled most, U read from the counter's increment; None when there is none."""
    inc = _increment(blk, b)
    if inc is None:
        return None
    lines = {ins.loc.line for ins in blk.instrs if ins.loc is not None}
    best = None
    for own, sl in sass_loops:
        if not sl or not sl <= lines:
            continue
        u = _unroll(own, *inc)
        if u >= 1 and (best is None or u > best[0]):
            best = (u, own)
    return best


def loop_scales(prog, df, tab) -> dict[int, float]:
    """MIR block -> the factor on its ALU instructions' slots (see the module docstring)."""
    if df is None or "line" not in df or not (df["line"] >= 0).any():
        return {}
    sass_loops = plain_loops(df)
    out = {}
    for b, blk in enumerate(prog.blocks):
        if not blk.instrs or not self_loop(blk):
            continue
        best = self_loop_match(blk, b, sass_loops)
        if best is None:
            continue
        per_iteration = len(best[1]) / best[0]
        i0, n = int(tab.block_first[b]), int(tab.block_len[b])
        slots = tab.sass[i0:i0 + n]
        alu = tab.kind[i0:i0 + n] == isa.ALU
        a = float(slots[alu].sum())
        if a <= 0.0:
            continue
        other = float(slots[~alu].sum())
        f = (per_iteration - other) / a
        if WIDE_LOOPS:
            # the loop's whole iteration within [0, 4] of the op table's (a loop of loads and an
            # atomic with little arithmetic: the ALU's own factor can be larger)
            if 0.0 <= f and per_iteration <= LOOP_RANGE[1] * (a + other):
                out[b] = f
        elif SCALE_RANGE[0] <= f <= SCALE_RANGE[1]:
            out[b] = f
    return out


def _extra(extras, tab, idx, want: float) -> None:
    """The issue slots a line lacks against its SASS, put on its first instruction that issues
    (where ``extras`` is a dict)."""
    have = float(tab.sass[idx].sum())
    issuing = idx[tab.sass[idx] > 0.0]
    if extras is not None and want > have and issuing.size:
        extras[int(issuing.min())] = extras.get(int(issuing.min()), 0.0) + want - have


def _fewer(extras, tab, idx, want: float) -> None:
    """Fewer issue slots for the accesses (and other non-ALU instructions) at ``idx``, whose
    slots sum to more than the ``want`` their line issues in the SASS: the op table prices an
    access with its address arithmetic, which ptxas folds into the access's offset in unrolled
    code, and merges neighbouring shared loads into one LDS.128 (their ALU slots go to 0)."""
    other = idx[(tab.kind[idx] != isa.ALU) & (tab.sass[idx] > 0.0)]
    have = float(tab.sass[other].sum())
    if extras is None or have <= want or not other.size:
        return
    for i in other:
        extras[int(i)] = extras.get(int(i), 0.0) + (want / have - 1.0) * float(tab.sass[i])


def _fit(out, extras, tab, keys, idx, a: float, other: float, want: float, lo: float | None = None) -> bool:
    """Give a line's MIR instructions (static indices ``idx``; ALU slots ``a``, the rest
    ``other``) the ``want`` issue slots its SASS has: its ALU slots scaled by a factor in
    [lo, 2] (``out[key]`` for each key), the rest put on its first instruction past 2
    (``_extra``), or, short of its accesses' slots, its ALU at 0 and its accesses fewer
    (``_fewer``). False where the factor falls in [0, lo): left to the caller."""
    f = (want - other) / a if a > 0.0 else (np.inf if want > other else -np.inf if want < other else 1.0)
    lo = LOWER if lo is None else lo
    if lo <= f <= SCALE_RANGE[1]:
        out.update({k: f for k in keys} if a > 0.0 else {})
    elif f > SCALE_RANGE[1]:
        _extra(extras, tab, idx, want)
    elif f < 0.0:
        if FEWER and extras is not None:
            out.update({k: 0.0 for k in keys} if a > 0.0 else {})
            _fewer(extras, tab, idx, want)
    else:
        return False
    return True


def _usable(prog, df) -> bool:
    """Whether the SASS table has source lines and the program's blocks are the MIR's (the
    per-line rules map one onto the other)."""
    return (df is not None and "line" in df and bool((df["line"] >= 0).any())
            and [b.label for b in prog.blocks] == [b.label for b in prog.fn.blocks])


def _line_slots(tab, places) -> tuple[np.ndarray, float, float]:
    """(static indices, ALU slots, other slots) of a line's MIR instructions at ``places``
    ((block, position) pairs)."""
    idx = np.array([int(tab.block_first[k]) + j for k, j in places])
    alu = tab.kind[idx] == isa.ALU
    return idx, float(tab.sass[idx[alu]].sum()), float(tab.sass[idx[~alu]].sum())


def line_scales(prog, df, tab, extras: dict | None = None, moved: dict | None = None) \
        -> dict[tuple[int, int], float]:
    """(MIR block, source line) -> the factor on that line's ALU slots in an innermost MIR loop
    of several blocks (branches in its body), matched to the innermost SASS loop whose source
    lines all lie in the MIR loop's (of several, the one ptxas unrolled most, then the
    longest). Per line, an iteration issues that line's SASS instructions in the loop over the
    unroll factor: the lines of a branch not taken cost nothing that iteration, as in the MIR.
    The unroll factor is read as for a one-block loop, else from the loop's global loads
    against the MIR loop's (``loop_summaries``); a loop whose MIR closes without a counter (a
    ``while`` loop) is taken as not unrolled. A line only some iterations run (under a branch
    in the MIR) whose SASS ptxas predicated into the body (no forward branch in the SASS loop
    jumps over it: Adler-32's fold every 256 bytes, a Reed-Solomon step's conditional xors) is
    issued by every iteration: those instructions go on an instruction every iteration issues
    (``_every_pass``), and the line keeps the rest. Lines whose own factor falls outside
    [0.5, 2] (ptxas credited their instructions to a neighbour, or an inlined function's to its
    call), or that have no SASS of their own, share one factor (``_fit``)."""
    if not _usable(prog, df):
        return {}
    blocks = prog.blocks                      # (tab's order; the MIR's blocks, labels alike)
    spans = loop_spans(prog.fn)
    inner = [(t, b) for t, b in spans if t < b
             and not any(o != (t, b) and t <= o[0] and o[1] <= b for o in spans)]
    sass_loops = _sass_loops(df)
    # a SASS loop with no branch but its back edge ran the MIR loop's branches predicated:
    # every iteration issues all of it, which per-line factors do not say (left alone)
    plain = {k for k, _ in _plain_sass_loops(df)}
    by_loads = {x["loop"]: int(x["unroll"]) for x in df.attrs.get("loops", [])}
    out = {}
    for t, b in inner:
        where: dict[int, list[tuple[int, int]]] = {}         # line -> (block, position)
        for k in range(t, b + 1):
            for j, ins in enumerate(blocks[k].instrs):
                if ins.loc is not None:
                    where.setdefault(ins.loc.line, []).append((k, j))
        inc = _increment(blocks[b], b)
        best = None
        for k, own, sl in sass_loops:
            if not sl or not sl <= set(where) or (k in plain and not PREDICATED_LINES):
                continue
            u = _unroll(own, *inc) if inc is not None else 1
            if u < 1:                          # the counter does not read plainly: the loads tell
                u = by_loads.get(k, 0)
            if u >= 1 and (best is None or (u, len(own)) > (best[0], len(best[1]))):
                best = (u, own)
        if best is None:
            continue
        u, own = best
        if moved is None:
            moved = extras
        counts = own["line"].value_counts()
        always = own[~_skippable(own)]["line"].value_counts() if PREDICATED_LINES else counts
        every = _every_iteration(blocks, t, b)
        latch = _every_pass(tab, blocks, t, b)
        # a line that CALLs (a 64-bit remainder's slow path, fp64 math) does its work in the
        # callee, which its count here leaves out: it keeps the op table's slots
        calling = {int(x) for x in own.loc[own["opcode"] == "CALL", "line"]} if POOL_LINES else set()
        pool = []
        for line, places in where.items():
            if line in calling:
                continue
            n = int(counts.get(line, 0))
            idx, a, other = _line_slots(tab, places)
            if PREDICATED_LINES and extras is not None and not any(k in every for k, _ in places):
                # a line only some iterations run (a then-block) whose SASS ptxas predicated
                # into the body: every iteration issues that part, on the latch's account
                n_all = int(always.get(line, 0))
                if n_all:
                    moved[latch] = moved.get(latch, 0.0) + n_all / u
                    n -= n_all
                    if n == 0 and a > 0.0:
                        out.update({(k, line): 0.0 for k in {k for k, _ in places}})
                        continue
            if n == 0:
                if POOL_LINES and a > 0.0:
                    pool.append(((line, places), idx, 0.0, other, a))
                continue
            f = (n / u - other) / a if a > 0.0 else np.inf
            if SCALE_RANGE[0] <= f <= SCALE_RANGE[1]:
                out.update({(k, line): f for k in {k for k, _ in places}})
            elif POOL_LINES and a > 0.0:
                pool.append(((line, places), idx, n / u, other, a))
            elif f > SCALE_RANGE[1]:              # (addresses on the uniform datapath, ...)
                _extra(extras, tab, idx, n / u)
        if pool:
            # lines whose own factor is out of range (ptxas credited their instructions to a
            # neighbour, or an inlined function's lines to its call) share one factor
            keys = [(k, line) for (line, places), *_ in pool for k in {k for k, _ in places}]
            want, other, a = (sum(p[j] for p in pool) for j in (2, 3, 4))
            _fit(out, extras, tab, keys, np.concatenate([p[1] for p in pool]), a, other, want, lo=0.0)
    return out


_CALLEE = re.compile(r"`\(([^)]+)\)")
# ptxas's own subroutines (a division's, a root's slow path: ``$__internal_0_$__cuda_sm20_...``)
# and libdevice's, which the fp64 math simt emits calls and ptxas names after the kernel
# (``$kepler$__internal_trig_reduction_slowpathd``: sin's and cos's reduction of huge arguments)
_SLOW_PATH = "__internal_"
LIBDEVICE_SLOW = True       # libdevice's slow paths count as ptxas's do (False: only ``$__internal_...``)


def _callee(operands: str) -> str:
    m = _CALLEE.search(str(operands))
    return m.group(1) if m else ""


def _is_slow(operands: str) -> bool:
    name = _callee(operands)
    return _SLOW_PATH in name if LIBDEVICE_SLOW else name.startswith("$" + _SLOW_PATH)


def _slow_calls(rows):
    """Which rows call a slow path (ptxas's and libdevice's ``__internal_`` subroutines)."""
    return (rows["opcode"] == "CALL") & rows["operands"].map(_is_slow)


def _issued(rows):
    """Rows a warp issues on its way through a function: NOPs, the closing self-branch and the
    blocks that call a slow path (``_slow_calls``) left out."""
    slow = set(rows.loc[_slow_calls(rows), "block"])
    return rows[(rows["opcode"] != "NOP") & ~rows["block"].isin(slow)
                & ~((rows["opcode"] == "BRA") & (rows["target"] == rows["addr"]))]


def _slow_lines(df) -> set[int]:
    """Source lines of the kernel's own code outside loops whose blocks call a slow path
    (``$__internal_``: a 64-bit division's, a root's): ``_issued`` leaves those blocks out,
    so such a line's count is short of what a warp issues for it whichever way it goes."""
    rows = df if "function" not in df else df[df["function"] == df["function"].iloc[0]]
    blocks = set(rows.loc[_slow_calls(rows) & (rows["loop"] == -1), "block"])
    return {int(x) for x in rows.loc[rows["block"].isin(blocks) & (rows["line"] >= 0), "line"]}


def _straight_counts(df) -> tuple[dict[int, int], set[int]]:
    """(source line -> the SASS instructions a warp issues for it outside loops: the kernel's
    own, and for each call of a function simt emitted (fp64 math), that function's (its slow
    paths left out), counted on the calling line; the lines that call such a function)."""
    if "function" not in df:
        rows = _issued(df)
        return rows[(rows["loop"] == -1) & (rows["line"] >= 0)]["line"].value_counts().to_dict(), set()
    by_function = {name: _issued(rows) for name, rows in df.groupby("function", sort=False)}

    def size(name: str, depth: int = 0) -> int:
        rows = by_function.get(name)
        if rows is None or depth > 4:
            return 0
        calls = rows.loc[rows["opcode"] == "CALL", "operands"].map(_callee)
        return len(rows) + sum(size(c, depth + 1) for c in calls)

    main = by_function[df["function"].iloc[0]]
    main = main[(main["loop"] == -1) & (main["line"] >= 0)]
    out, calling = main["line"].value_counts().to_dict(), set()
    for line, operands in zip(main.loc[main["opcode"] == "CALL", "line"],
                              main.loc[main["opcode"] == "CALL", "operands"]):
        out[int(line)] = out.get(int(line), 0) + size(_callee(operands))
        calling.add(int(line))
    return out, calling


def straight_scales(prog, df, tab, extras: dict | None = None) \
        -> tuple[dict[tuple[int, int], float], set[tuple[int, int]]]:
    """(MIR block, source line) -> the factor on that line's ALU slots, for code outside loops.
    The op table prices each op as ptxas compiles it alone; in a kernel a math function's
    SASS grows by its range checks and the moves around its slow path (a Mish in fp32: 143
    SASS instructions a warp on the H200, the op table's sum 111). Per source line that no
    MIR loop shares, the line issues its SASS instructions outside SASS loops (slow-path
    subroutines and the blocks calling them left out, a function simt emitted counted at each
    call; ALU slots scaled, loads, stores and branches keeping theirs). A line whose factor
    falls outside [0.5, 2] (ptxas credited its instructions to a neighbouring line) is pooled
    with the others such: one factor over their sums, used where it falls inside the range;
    where it does not, each line with more SASS than slots issues the rest (``_extra``). A
    line calling a function simt emitted has its count for certain (the callee's instructions
    are the call's): its factor has no upper bound (an fp64 tanh, priced as one fp64 op by the
    op table for want of a probe, is a call of over 100 SASS instructions), and it scales the
    issue slots alone: the callee's instructions are mostly not the op's pipe's (the second
    set returned: those keys)."""
    if not _usable(prog, df):
        return {}, set()
    blocks = prog.blocks
    in_loop = set()
    for t, b in loop_spans(prog.fn):
        in_loop.update(range(t, b + 1))
    where: dict[int, list[tuple[int, int]]] = {}             # line -> (block, position)
    loop_lines = set()
    for k, blk in enumerate(blocks):
        for j, ins in enumerate(blk.instrs):
            if ins.loc is None:
                continue
            if k in in_loop:
                loop_lines.add(ins.loc.line)
            else:
                where.setdefault(ins.loc.line, []).append((k, j))
    loop_lines |= {int(x) for x in df.loc[df["loop"] != -1, "line"] if x >= 0}
    counts, calling = _straight_counts(df)
    slow = _slow_lines(df) if SLOW_ALONE else set()
    out, pool = {}, []
    for line, places in where.items():
        if line in loop_lines:
            continue
        idx, a, other = _line_slots(tab, places)
        n = int(counts.get(line, 0))
        if a <= 0.0:
            _extra(extras, tab, idx, n)
            continue
        f = (n - other) / a
        if SCALE_RANGE[0] <= f <= (np.inf if line in calling else SCALE_RANGE[1]):
            out.update({(k, line): f for k in {k for k, _ in places}})
        elif line in slow:
            continue                    # its count lacks what the slow path's blocks issue
        else:
            pool.append((places, idx, n, other, a))
    if pool:
        keys = [(k, prog.blocks[places[0][0]].instrs[places[0][1]].loc.line)
                for places, *_ in pool for k in {k for k, _ in places}]
        want, other, a = (sum(p[j] for p in pool) for j in (2, 3, 4))
        if want - other > SCALE_RANGE[1] * a:          # each line with more SASS issues the rest
            for _, idx, n, *_ in pool:
                _extra(extras, tab, idx, n)
        else:
            _fit(out, extras, tab, keys, np.concatenate([p[1] for p in pool]), a, other, want)
    return out, {(k, line) for k, line in out if line in calling}


def unrolled_scales(prog, df, tab, extras: dict | None = None, moved: dict | None = None) \
        -> dict[tuple[int, int], float]:
    """(MIR block, source line) -> the factor on that line's ALU slots in a loop that ptxas
    unrolled completely (folding.unrolled) and whose trip count is constant: the line's SASS
    instructions over the iterations (of it and of the unrolled loops around it) are what an
    iteration issues. A Bezier patch's ``for j in range(4)`` around simt's own unrolled
    ``for i``: a control point's read issues 53 SASS instructions an iteration where the op
    table says 37. Only loops whose every iteration runs all their blocks: a line under a
    branch on the counter runs in some copies only (MD5's round functions: each in 16 of 64),
    and the copies' counts are not the MIR's per iteration. A line with no SASS instruction
    (ptxas folded it: a constant of the counter) issues nothing; one with more than twice its
    ALU slots issues the rest on its first instruction. Lines the loop shares with code outside
    it are left alone, and so is a loop inside a loop that stayed rolled (its lines'
    instructions are per iteration of that one). A line under a branch whose SASS ptxas
    predicated (no forward branch jumps over it: a census transform's ``if img[y, x] < c``)
    is issued by every iteration, on ``_every_pass``'s account; under a branch ptxas kept, a
    copy's share of the line each time the MIR runs it."""
    if not _usable(prog, df):
        return {}
    from .folding import unrolled
    blocks = prog.blocks
    spans = loop_spans(prog.fn)
    done = set(unrolled(prog.fn, df))
    if moved is None:
        moved = extras
    kernel = df[df["function"] == df["function"].iloc[0]] if "function" in df else df
    skip = pd.Series(_skippable(kernel), index=kernel.index)
    issued = _issued(kernel)
    issued = issued[issued["loop"] == -1]
    counts = issued["line"].value_counts()
    always = issued[~skip[issued.index].to_numpy()]["line"].value_counts()
    out = {}
    for t, b in done:
        around = [o for o in spans if o[0] <= t and b <= o[1]]
        if any(o not in done for o in around):
            continue
        trips = 1
        for o in around:
            trips *= trip_count(prog, *o)
        if trips <= 0:
            continue
        every = _every_iteration(blocks, t, b)
        if not every >= set(range(t, b + 1)) and not PREDICATED_LINES:
            continue
        latch = _every_pass(tab, blocks, t, b)
        inner = [o for o in spans if o != (t, b) and t <= o[0] and o[1] <= b]
        where: dict[int, list[tuple[int, int]]] = {}
        elsewhere = set()
        for k, blk in enumerate(blocks):
            own = t <= k <= b and not any(o[0] <= k <= o[1] for o in inner)
            for j, ins in enumerate(blk.instrs):
                if ins.loc is None:
                    continue
                if own:
                    where.setdefault(ins.loc.line, []).append((k, j))
                else:
                    elsewhere.add(ins.loc.line)
        for line, places in where.items():
            if line in elsewhere:
                continue
            n = int(counts.get(line, 0))
            idx, a, other = _line_slots(tab, places)
            if not all(k in every for k, _ in places):
                # under a branch: what ptxas predicated issues every iteration (the latch's
                # account); the line keeps nothing of it, or is left alone if it kept a branch
                if extras is None or any(k in every for k, _ in places):
                    continue
                n_all = int(always.get(line, 0))
                moved[latch] = moved.get(latch, 0.0) + n_all / trips
                # the rest under a branch ptxas kept, in every copy (a condition on the data;
                # one on the counter ptxas folds): a copy's share each time the MIR runs it
                n -= n_all                      # (with none at all: ptxas folded the line)
            _fit(out, extras, tab, [(k, line) for k in {k for k, _ in places}], idx, a, other, n / trips, lo=0.0)
    return out


def nest_scales(prog, df, tab, extras: dict | None = None) -> dict[tuple[int, int], float]:
    """(MIR block, source line) -> the factor on that line's ALU slots in a loop ptxas kept
    rolled around loops it unrolled completely (constant trip counts): a tiled product's
    ``for k0`` tile loop around its ``for kk in range(32)``. The SASS loop stands for the whole
    nest; an iteration of it issues a line's SASS instructions there, over ptxas's unroll
    factor of the rolled loop and over the trips of the unrolled loops the line lies in (a
    32x32-tile GEMM's ``acc0 += a_s[ty, kk] * bv``: 74 SASS instructions a tile, one FFMA and a
    quarter of an LDS.128 a ``kk``, where the op table says a load, a multiply and an add).
    Matched as the innermost SASS loop whose lines all lie in the nest's and that shares most
    of its lines. Only nests whose every iteration runs all their blocks (an inner loop's entry
    check aside: its trips are constant), as for ``unrolled_scales``; lines the nest shares with
    code outside it, or whose copies lie at different depths of it, are left alone. A line
    whose SASS is short of its accesses' slots issues that many (``_fewer``); one over twice its
    ALU slots issues the rest on its first instruction (``_extra``).

    With rolled loops inside too (MIXED_NESTS; SHA-3's rounds: theta's loops rolled, chi's
    unrolled, its run-time state index about 1,900 SELs a round the folding calls constant),
    the unrolled loops' lines only, to the own rows of the SASS loop with loops inside that has
    most of them (``_outer_sass_loop``); the nest's own blocks are ``outer_loops``'."""
    if not _usable(prog, df):
        return {}
    from .folding import unrolled
    blocks = prog.blocks
    spans = loop_spans(prog.fn)
    done = set(unrolled(prog.fn, df))
    sass_loops = _sass_loops(df)
    out = {}
    for t, b in spans:
        inner = [o for o in spans if o != (t, b) and t <= o[0] and o[1] <= b]
        if not inner or (t, b) in done:
            continue
        rolled = [o for o in inner if o not in done]
        if rolled and not MIXED_NESTS:
            continue
        in_rolled = set().union(*(range(o[0], o[1] + 1) for o in rolled))
        flat = [o for o in inner if o in done and o[0] not in in_rolled]
        trips = {o: trip_count(prog, *o) for o in flat}
        if not trips or min(trips.values()) <= 0 or any(trip_count(prog, *o) <= 0 for o in rolled):
            continue
        covered = _every_iteration(blocks, t, b).union(*(range(o[0], o[1] + 1) for o in inner))
        if not covered >= set(range(t, b + 1)):
            continue
        mine = (set().union(*(range(o[0], o[1] + 1) for o in flat)) if rolled
                else set(range(t, b + 1)))
        where: dict[int, list[tuple[int, int]]] = {}
        elsewhere = set()
        nest_lines = set()
        for k, blk in enumerate(blocks):
            for j, ins in enumerate(blk.instrs):
                if ins.loc is not None:
                    if k in mine:
                        where.setdefault(ins.loc.line, []).append((k, j))
                    else:
                        elsewhere.add(ins.loc.line)
                    if t <= k <= b:
                        nest_lines.add(ins.loc.line)
        best = None
        if not rolled:
            for k, own, sl in sass_loops:
                if sl and sl <= set(where) and (best is None or len(sl) > best[0]):
                    best = (len(sl), k, own)
        else:
            best = _outer_sass_loop(df, nest_lines, set(where) - elsewhere)
        if best is None:
            continue
        _, k, own = best
        inc = _increment(blocks[b], b)
        u = _unroll(own, *inc) if inc is not None else 1
        if u < 1:
            continue
        counts = _issued(own)["line"].value_counts()

        def depth(k_: int) -> int:          # the trips of the unrolled loops block k_ lies in
            n = 1
            for o, m in trips.items():
                n *= m if o[0] <= k_ <= o[1] else 1
            return n

        for line, places in where.items():
            reps = {depth(k_) for k_, _ in places}
            if line in elsewhere or len(reps) != 1:
                continue
            want = int(counts.get(line, 0)) / u / reps.pop()
            idx, a, other = _line_slots(tab, places)
            _fit(out, extras, tab, [(k_, line) for k_ in {k_ for k_, _ in places}], idx, a, other, want, lo=0.0)
    return out


def _outer_sass_loop(df, lines: set[int], mine: set[int]):
    """(score, index, rows) of the SASS loop with loops inside whose own instructions' lines
    all lie in ``lines`` (a MIR nest's) and that has the most of them on ``mine``; None when
    none has any."""
    best = None
    for k, own, sl in _sass_loops(df, innermost=False):
        score = int(own["line"].isin(mine).sum())
        if sl and sl <= lines and score > 0 and (best is None or score > best[0]):
            best = (score, k, own)
    return best


def _every_iteration(blocks, t: int, b: int) -> set[int]:
    """Blocks of the loop (t, b) that every iteration runs: those every path from its head to
    its latch passes through (the head and the latch among them)."""
    def reaches(skip: int) -> bool:
        seen, todo = {t}, [t]
        while todo:
            k = todo.pop()
            if k == b:
                return True
            for s_ in blocks[k].targets:
                if k < s_ <= b and s_ != skip and s_ not in seen:     # forward edges: one iteration
                    seen.add(s_)
                    todo.append(s_)
        return False

    return {t, b} | {k for k in range(t + 1, b) if not reaches(k)}


def _depths(spans) -> list[int]:
    return [sum(1 for o in spans if o != sp and o[0] <= sp[0] and sp[1] <= o[1]) for sp in spans]


def outer_loops(prog, df, tab) -> dict[int, float]:
    """MIR block closing an outer loop (one with loops inside) -> the issue slots its iteration
    lacks against the SASS, put on its back-edge branch. ptxas keeps such a loop rolled; an
    iteration issues the SASS loop's own instructions (its inner loops' left out): the
    convergence barriers around a divergent inner loop (BSSY, BSYNC), constants reloaded for
    it, the counter and its compare, that the op table prices at a fraction of a slot (as if
    unrolled) or not at all. An LZ match search's window loop: 22 SASS instructions an
    iteration where the MIR's own blocks sum to 10.5 slots. Matched as the SASS loop at the
    same depth whose own lines all lie in the MIR loop's and share most lines with its own
    blocks; not when ptxas unrolled it (its counter's increment reads a factor over 1), nor
    when the SASS has fewer (left alone, as where the counts differ by over 4x)."""
    if not _usable(prog, df):
        return {}
    blocks = prog.blocks
    spans = loop_spans(prog.fn)
    depth = _depths(spans)
    edges = back_edges(df)
    sdepth = _depths(edges)
    out = {}
    for (t, b), dm in zip(spans, depth):
        inner = [o for o in spans if o != (t, b) and t <= o[0] and o[1] <= b]
        if not inner:
            continue
        own = [k for k in range(t, b + 1) if not any(o[0] <= k <= o[1] for o in inner)]
        lines = {ins.loc.line for k in range(t, b + 1) for ins in blocks[k].instrs if ins.loc is not None}
        own_lines = {ins.loc.line for k in own for ins in blocks[k].instrs if ins.loc is not None}
        best = None
        for k, ds in enumerate(sdepth):
            if ds != dm or not _has_inner(edges, k):
                continue
            rows = _issued(df[df["loop"] == k])
            sl = {int(x) for x in rows["line"] if x >= 0}
            if not sl or not sl <= lines:
                continue
            score = len(sl & own_lines)
            if best is None or score > best[0]:
                best = (score, rows)
        if best is None or best[0] == 0:
            continue
        rows = best[1]
        if OUTER_OWN_LINES:
            # the inner loops' iterations ptxas peeled or unrolled into the outer body (the
            # remainder of an inner loop it unrolled by 4, a shuffle loop of 5 trips): the
            # inner loops' own blocks issue those
            inner_only = {ins.loc.line for o in inner for k in range(o[0], o[1] + 1)
                          for ins in blocks[k].instrs if ins.loc is not None} - own_lines
            rows = rows[~rows["line"].isin(inner_only)]
        inc = _increment(blocks[b], b)
        if inc is not None and _unroll(rows, *inc) > 1:
            continue
        idx = np.concatenate([np.arange(int(tab.block_first[k]), int(tab.block_first[k] + tab.block_len[k]))
                              for k in own])
        have = float(tab.sass[idx].sum())
        extra = len(rows) - have
        if have > 0.0 and 0.0 < extra and len(rows) <= 4.0 * have:
            out[b] = extra
    return out


def apply(prog, df, tab) -> dict:
    """Scale the matched loops' and lines' ALU slots in ``tab`` and add the issue slots they
    lack (in place); returns the factors: per one-block loop (``loop_scales``), per line of a
    loop of several blocks (``line_scales``), of a loop ptxas unrolled completely
    (``unrolled_scales``) and outside loops (``straight_scales``), and per outer loop the
    slots its back edge gained (``outer_loops``, keyed ("outer", block))."""
    extras: dict[int, float] = {}
    moved: dict[int, float] = {}        # predicated work carried by one instruction: issue slots only
    scales = loop_scales(prog, df, tab)
    lines = line_scales(prog, df, tab, extras if EXTRA else None, moved)
    if UNROLLED:
        lines.update(unrolled_scales(prog, df, tab, extras if EXTRA else None, moved))
    if NEST:
        lines.update(nest_scales(prog, df, tab, extras if EXTRA else None))
    slots_only: set = set()
    if STRAIGHT:
        straight, slots_only = straight_scales(prog, df, tab, extras if EXTRA else None)
        lines.update(straight)
    outer = outer_loops(prog, df, tab) if OUTER else {}
    for b, f in scales.items():
        i0, n = int(tab.block_first[b]), int(tab.block_len[b])
        idx = np.arange(i0, i0 + n)
        idx = idx[tab.kind[idx] == isa.ALU]
        tab.sass[idx] *= f
        if tab.units is not None:       # the warp instructions on their pipes scale with them
            tab.units[idx] *= f
    for (b, line), f in lines.items():
        i0 = int(tab.block_first[b])
        for j, ins in enumerate(prog.blocks[b].instrs):
            if ins.loc is not None and ins.loc.line == line and tab.kind[i0 + j] == isa.ALU:
                if tab.units is not None:
                    if (b, line) not in slots_only:
                        tab.units[i0 + j] *= f
                    elif np.isnan(tab.units[i0 + j]):      # (the pipe's share stays the op's)
                        tab.units[i0 + j] = tab.sass[i0 + j]
                tab.sass[i0 + j] *= f
    for b, extra in outer.items():          # the back edge issues what the iteration lacks
        tab.sass[int(tab.block_first[b] + tab.block_len[b]) - 1] += extra
    for i, extra in extras.items():         # a line's SASS beyond what its ALU slots can scale to
        tab.sass[i] += extra
    for i, extra in moved.items():          # (the instructions of many pipes: its own pipe keeps its own)
        if tab.units is not None and np.isnan(tab.units[i]):
            tab.units[i] = tab.sass[i]
        tab.sass[i] += extra
    return {**scales, **lines, **{("outer", b): x for b, x in outer.items()}}
