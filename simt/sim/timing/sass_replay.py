"""Replay loops in the order the GPU issues them: ptxas's unrolled, load-hoisted schedule.

The recorder keeps what each warp executed in program order: one iteration of a loop after
another. ptxas unrolls such a loop by U and issues the loads of several iterations before
the first use of the first one, so on the GPU a warp has several loads in flight where the
program-order replay has one; with few warps per SM that is the difference between waiting
out every load's latency and overlapping them.

This module reads the schedule from the SASS (``simt.gpu.sass``: per loop, the unroll factor
and the loads issued before the first use) and rewrites what the machine replays:

- for each loop the MIR closes within one block and ptxas unrolled (U >= 2) with at least
  two loads issued before the first use, a *group block*: U copies of the loop body,
  registers renamed per copy (so a hoisted load of copy j does not overwrite the value copy
  j-1 still reads), list-scheduled so that the group's global and shared loads, with their address
  arithmetic, come as early as their dependences allow: first every load whose address
  depends on no load of the group, then the rest (a gather, a load under a branch on a
  loaded value), as ptxas places them; everything else goes longest latency path first, as
  ptxas's list scheduler interleaves the copies' chains of arithmetic, but a copy's only once
  the copy a window before it has issued its own (the window: the copies whose loads the SASS
  issues before the first use; ``_window``); every register
  (read-after-write, write-after-read, write-after-write) and memory dependence (loads never
  pass a store to their own memory space: a tile's global loads go ahead of the shared
  stores that take them, as ptxas issues them) holds; U counts the iterations the SASS
  loads cover by their bytes (an LDS.128 holds four iterations' ``vs[j]``; what such a
  vector costs the L1: ``vector_lines``);
- each warp's stream: every run of U consecutive iterations of such a loop becomes one
  entry of the group block (a remainder stays as single iterations), with the memory events
  of the U iterations attached in the new order.

A one-block loop without loads that ptxas unrolled by U (a store loop, a chain of math; U
read from the counter's increment, as sass_slots.py reads it) is a group too, its U copies'
chains interleaved.

A loop where no later copy has a load whose address is free of the group's loads (a pointer
chase: each address is the previous load's value) is left in program order, as ptxas's
schedule has one load in flight there too.

Loads under small branches are the other case: ``if i < n: v = a[i]`` then ``s[t] = v``, then
the same for ``b``. ptxas predicates such a branch (an ``@P LDG``, no jump) and issues both
loads before the first store; the MIR replay would wait out the first load's latency before
the second issues. A *path group* is such a chain of blocks (a block ending in a conditional
branch, its one-block then-branch holding a global or shared load and nothing that writes memory, the
join, and on while the join starts another such branch) whose loads the SASS shows
predicated: its instructions form one block, scheduled as a group's are (loads as early as
their dependences allow, the then-block's instructions after the branch condition they are
predicated on, a load never before a store to its own memory space), and a warp's stream
that runs the whole chain becomes one entry of it; warps that skip a branch keep the order.

Straight-line code is the third: a block (no loop of its own) with two or more global and shared loads,
such as a stencil's ``in[i - 1] + in[i] + in[i + 1] + ...``, whose loads the SASS issues two
or more of before the first use (found by their source lines) is a path group of one block,
its loads as early as their dependences allow.

Loops whose body branches are the fourth: ``for k: v = a[..]; if v > c: s += v * b[..]`` (or
a ``continue``), a chain of small branches closed by the branch back. Where the SASS of the
loop is one basic block (ptxas predicated every branch away) and unrolled by U, the group
block is U copies of the body's blocks, each then-block after the branch that guards it in
its copy; a warp's U consecutive whole iterations become one entry, and a then-block the
warp skipped issues with no memory access, as a predicated-off instruction does. A
then-block may branch again around a further then-block to the same join (``if dy != 0 or
dx != 0:`` around ``if img[y, x] < c:``, a census window's); the inner one is guarded by the
outer one's branch. Where ptxas unrolled such a loop completely and its loads do not divide
evenly into iterations (the window's centre is skipped: ptxas resolved that ``if`` at
compile time), U is the loop's constant trip count. No branch of a group that guards a
then-block waits to resolve (replay_streams.py): the SASS has none there.

A loop ptxas unrolled completely whose branches read only its counter and constants (an
``if k == 0: ... elif k == 1: ...`` choosing a B-spline weight by the counter) is the fifth:
ptxas resolved each copy's branches at compile time, so its SASS is the iterations' own paths
one after another. The group is those paths, read from the counter's values
(``_static_groups``), its loads as early as their dependences allow.

Every write in a group gets a register of its own (``_ssa``), as ptxas allocates registers to
values: simt's own unrolled iterations reuse one register per variable, and renamed per
copy only, each of them would wait (write after read) for the one before.

This module finds the groups (``plan``; the control-flow shapes it considers are read by
replay_shapes.py); replay_streams.py rewrites the tables and streams
the machine replays. Where ptxas or a disassembler is missing, or with
``simt.set_module_options({"timing_sass": False})``, the replay is the program order;
``r.details["timing_schedule"]`` says which one ran and why.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...gpu.sass import is_load as _is_load   # global and shared: ptxas hoists both
from ...ir.mir import Op, Reg
from . import isa, loop_trips
from .replay_shapes import (alternate, groupable, if_paths, loop_paths, self_loop, static_path, straight_blocks,
                            unread_atomics)


@dataclass
class GroupBlock:
    block: int                 # the MIR block of the loop (of a path group: its first block)
    unroll: int                # U: iterations per group (a path group: its blocks)
    loads_in_flight: int       # SASS loads before the first use
    order: list                # (copy or place in the path, position in the block) per instruction
    srcs: list                 # renamed source registers per instruction of the group
    dsts: list
    names: list                # per instruction: register -> its name in the copy, before it
    path: list = field(default_factory=list)   # a path group's MIR blocks, in order
    loop: bool = False         # a loop whose body is ``path``: U copies of it, then-blocks predicated
    then: list = field(default_factory=list)   # per block of ``path``: a then-block (skipped where no
    #                                            lane takes it); empty: every second one (x, then, join, ...)
    static: bool = False       # a loop's iterations, each on its own path: no branch left to resolve

    def then_blocks(self) -> list:
        return self.then or alternate(len(self.path))

    def block_of(self, j: int) -> int:
        return self.path[j % len(self.path)] if self.path else self.block


@dataclass
class Schedule:
    replay: str                # "sass" or "program order"
    why: str
    groups: list = field(default_factory=list)
    sass_loops: list = field(default_factory=list)

    def summary(self) -> dict:
        return {"replay": self.replay, "why": self.why,
                "loops": [{"block": g.block, "unroll": g.unroll, "loads_in_flight": g.loads_in_flight,
                           "blocks": g.path or [g.block]} for g in self.groups if g.loop or not g.path],
                "paths": [{"blocks": g.path, "loads": g.loads_in_flight} for g in self.groups
                          if g.path and not g.loop],
                "sass_loops": self.sass_loops}


def plan(prog, arch, tab: isa.Tables, enabled: bool = True) -> Schedule:
    """The schedule for ``prog`` (a precise Program, ``tab`` its timing tables) on ``arch``;
    cached per PTX target (a calibrated architecture file replays its target's SASS)."""
    if not enabled:
        return Schedule("program order", "switched off (module option timing_sass)")
    from ...gpu.sass import WIDE_LOADS
    key = ("sass-schedule", arch.ptx_target, WIDE_LOADS, BY_SPACE, BY_HEIGHT, LOADLESS, REDUCTIONS, WINDOW, NESTED_THEN,
           UNROLLED_TRIPS, SSA, STATIC_PATHS, TRIPS_CAP, loop_trips.SAME_INITS)
    got = prog.timing.get(key)
    if got is None:
        got = prog.timing[key] = _plan(prog, arch, tab)
    return got


def sass_table(prog, arch):
    """(the SASS table ptxas makes of the kernel for ``arch``'s target, None) or (None, why it
    cannot be read here). A refinement: never fail the launch."""
    from ...errors import DeviceError
    from ...gpu import sass
    if arch.ptx_target not in ("sm_80", "sm_90"):      # an architecture file's target: its SASS
        return None, f"no SASS for PTX target {arch.ptx_target}"
    if not sass.available():
        return None, "ptxas or a disassembler (pip install simt[sass]) is missing"
    try:
        return sass.sass_of_function(prog.fn, arch.ptx_target), None
    except (DeviceError, OSError, ValueError, KeyError) as e:
        return None, f"reading the SASS failed: {str(e).splitlines()[0] if str(e) else e!r}"


def _plan(prog, arch, tab) -> Schedule:
    reds = unread_atomics(prog.fn) if REDUCTIONS else frozenset()
    candidates = [b for b, blk in enumerate(prog.fn.blocks)
                  if self_loop(blk) and groupable(blk, reds) and any(_is_load(i) for i in blk.instrs)]
    paths = if_paths(prog.fn) if HOIST_BRANCHES else []
    straight = straight_blocks(prog.fn) if HOIST_STRAIGHT else []
    branchy = loop_paths(prog.fn, NESTED_THEN) if HOIST_LOOP_BRANCHES else {}
    loadless = [b for b, blk in enumerate(prog.fn.blocks)
                if LOADLESS and self_loop(blk) and groupable(blk, reds) and not any(_is_load(i) for i in blk.instrs)]
    place = {blk.label: k for k, blk in enumerate(prog.fn.blocks)}
    looped = STATIC_PATHS and any(_is_load(i) for blk in prog.fn.blocks for i in blk.instrs) and any(
        blk.instrs[-1].op is Op.CBR and any(place[label] <= k for label in blk.instrs[-1].arg)
        for k, blk in enumerate(prog.fn.blocks))          # a loop (a branch back) and a load: _static_groups
    if not candidates and not paths and not straight and not branchy and not loadless and not looped:
        return Schedule("program order", "no loop, no loads under small branches, no block with two loads")
    df, why = sass_table(prog, arch)
    if df is None:
        return Schedule("program order", why)
    loops = df.attrs["loops"]
    groups = []
    index = prog.reg_index
    predicated = {int(x) for x, pr, op in zip(df["line"], df["predicate"], df["opcode"]) if op in ("LDG", "LDS") and pr}
    for lp in loops:
        b, u, lbf = lp["mir_loop"], lp["unroll"], lp["loads_before_first_use"]
        if b not in candidates and u >= 2 and lbf >= 2:
            path, then = branchy.get(b, ([], []))
            if (path and not any(g.block == path[0] for g in groups) and _one_sass_block(df, lp)
                    and _loads_predicated(prog.fn, path, then, predicated)):
                g = _loop_path_group(prog, tab, path, then, u, lbf, index, _window(lbf, u, lp["loads"]))
                if g is not None:
                    groups.append(g)
            continue
        if b not in candidates or u < 2 or lbf < 2 or any(g.block == b for g in groups):
            continue
        g = _group(prog.fn.blocks[b], b, u, lbf, index, prog.nregs, _kept(tab, b), _latencies(tab, b),
                   _window(lbf, u, lp["loads"]))
        if g is not None:
            groups.append(g)
    groups += _unrolled_groups(prog, tab, df, candidates, branchy, predicated,
                               {b for g in groups for b in (g.path or [g.block])}, index)
    groups += _loadless_groups(prog, tab, df, loadless, index)
    if STATIC_PATHS:
        groups += _static_groups(prog, tab, df, {b for g in groups for b in (g.path or [g.block])}, index)
    n_loops = len(groups)
    in_loops = {b for g in groups for b in g.path}
    for path in paths:
        if in_loops & set(path):
            continue
        if not _loads_predicated(prog.fn, path, [], predicated):
            continue                              # ptxas kept a branch: the program order is its order
        g = _path_group(prog, tab, path, index)
        if g is not None:
            groups.append(g)
    n_paths = len(groups)
    if HOIST_STRAIGHT:
        taken = {b for g in groups for b in (g.path or [g.block])}
        for b in straight:
            if b not in taken and _sass_hoists(df, prog.fn.blocks[b]):
                g = _path_group(prog, tab, [b], index)
                if g is not None:
                    groups.append(g)
    why = ("loops unrolled by ptxas replay their SASS order" if n_loops else "no loop to regroup") + (
        "; loads under branches ptxas predicated issue as its schedule does" if n_paths > n_loops else "") + (
        "; loads of straight-line code issue together, as ptxas schedules them" if len(groups) > n_paths else "")
    return Schedule("sass" if groups else "program order", why, groups, loops)


def _unrolled_groups(prog, tab, df, candidates, branchy, predicated, taken, index) -> list:
    """Groups for loops ptxas unrolled completely (folding.unrolled: no SASS loop is left for
    them), as for the loops it unrolled by U: a one-block loop, or a loop whose body branches
    where the SASS has no branch left among its lines (every then-block predicated). U is
    the SASS's global and shared loads on the loop's lines over the MIR's per iteration (the trip count),
    and the loads in flight are counted from the first of them. Where the loads do not divide
    evenly (a then-block that some iterations skip, as a census window skips its centre) and
    the loop's trip count is constant, U is the trip count (``UNROLLED_TRIPS``): ptxas unrolled
    every iteration, and a then-block it resolved at compile time is as dropped as a predicated one.
    U is never more than a constant trip count (``TRIPS_CAP``): the copies of an outer loop simt's
    front end unrolled share the inner loop's source lines, so the lines hold every copy's loads
    (set 8's three colour channels: 48 loads on the line of a 16-trip loop, a group of 48 no
    warp's 16 iterations ever filled, so they replayed one load at a time)."""
    from ...gpu.sass import loads_before_first_use, mir_load_bytes, unroll_of
    from .folding import unrolled
    from .loop_trips import trip_count
    out = []
    for t, b in unrolled(prog.fn, df):
        path, then = ([b], []) if t == b and b in candidates else branchy.get(b, ([], []))
        if not path or path[0] != t or taken & set(path):
            continue
        loads, at = _sass_loads(prog.fn, df, path)
        if not len(at):
            continue                           # (no LDG or LDS on its lines: nothing to group)
        x = unroll_of(at, len(loads), sum(mir_load_bytes(ins) for ins in loads))
        resolved = False
        if x != int(x):
            trips = trip_count(prog, t, b) if UNROLLED_TRIPS and len(path) > 1 else 0
            if trips < 2 or not trips / 2 <= x < trips:
                continue
            x, resolved = trips, True
        u = int(x)
        if TRIPS_CAP and u > 2 and not resolved:      # (resolved: U is the trip count already)
            trips = trip_count(prog, t, b)
            if 2 <= trips < u:
                u = trips                      # (sibling loops on the same lines: their loads counted too)
        lbf = loads_before_first_use(df.loc[at.index[0]:])
        if u < 2 or lbf < 2:
            continue
        if len(path) == 1:
            g = _group(prog.fn.blocks[b], b, u, lbf, index, prog.nregs, _kept(tab, b), _latencies(tab, b),
                       _window(lbf, u, len(at)))
        else:
            mine = {ins.loc.line for x in path for ins in prog.fn.blocks[x].instrs if ins.loc is not None}
            if (df[df["line"].isin(mine)]["opcode"] == "BRA").any() or not (
                    resolved or _loads_predicated(prog.fn, path, then, predicated)):
                continue                       # ptxas kept a branch: the program order is its order
            g = _loop_path_group(prog, tab, path, then, u, lbf, index, _window(lbf, u, len(at)))
        if g is not None:
            out.append(g)
    return out


def _static_groups(prog, tab, df, taken, index) -> list:
    """Groups for loops ptxas unrolled completely whose every branch reads only the loop's
    counter and constants (``if k == 0: ... elif k == 1: ...`` on the counter, as a B-spline's
    weights are chosen): ptxas resolved each copy's branches at compile time, so the SASS is
    the iterations' own paths one after another, with nothing left to branch on. The group
    is those paths (read from the counter's values, ``replay_shapes.static_path``) as one path, its loads
    as early as their dependences allow; a warp whose stream runs exactly that path replays
    it, any other its blocks as they ran."""
    from ...gpu.sass import loads_before_first_use
    from .folding import unrolled
    out = []
    fn = prog.fn
    for t, b in unrolled(fn, df):
        if taken & set(range(t, b + 1)) or not all(groupable(fn.blocks[k]) for k in range(t, b + 1)):
            continue
        if not any(fn.blocks[k].instrs[-1].op is Op.CBR for k in range(t, b)):
            continue                           # (no branch to resolve)
        path = _iteration_paths(prog, t, b)
        if path is None:
            continue
        _, at = _sass_loads(fn, df, path)
        # the loop's own lines (an inlined function's lines serve its calls outside the loop too)
        mine = {ins.loc.line for k in range(t, b + 1) for ins in fn.blocks[k].instrs if ins.loc is not None} - {
            ins.loc.line for k, blk in enumerate(fn.blocks) if not t <= k <= b for ins in blk.instrs
            if ins.loc is not None}
        ahead = (df["opcode"] == "BRA") & df["line"].isin(mine) & (df["target"] > df["addr"])
        if len(at) < 2 or ahead.any() or loads_before_first_use(df.loc[at.index[0]:]) < 2:
            continue                           # (too few loads, ptxas kept a branch, or loads not hoisted)
        g = _path_group(prog, tab, path, index, static=True)
        if g is not None:
            out.append(g)
            taken = taken | set(path)
    return out


def _iteration_paths(prog, t: int, b: int) -> list | None:
    """Every iteration's blocks of the loop (t, b), one iteration after another, where its
    trip count is constant (at most ``MAX_STATIC_TRIPS``) and each iteration's branches read
    only its counter and constants (replay_shapes.static_path); else None."""
    from .loop_trips import counter_of
    counter, first, step, trips = counter_of(prog, t, b)
    if not 2 <= trips <= MAX_STATIC_TRIPS:
        return None
    path = []
    for it in range(trips):
        one = static_path(prog.fn, t, b, counter, first + it * step)
        if one is None:
            return None
        path += one
    return path


def _sass_loads(fn, df, blocks) -> tuple:
    """(the global and shared loads of ``blocks``, the SASS table's LDG and LDS rows on their
    source lines)."""
    loads = [ins for k in blocks for ins in fn.blocks[k].instrs if _is_load(ins)]
    lines = {ins.loc.line for ins in loads if ins.loc is not None}
    return loads, df[df["opcode"].isin(["LDG", "LDS"]) & df["line"].isin(lines)]


MAX_STATIC_TRIPS = 16


def _loadless_groups(prog, tab, df, blocks, index) -> list:
    """Groups for one-block loops without loads (``blocks``) that ptxas unrolled by U >= 2:
    a store loop, a chain of math. Nothing is hoisted there, but the U copies' chains
    interleave in the group as ptxas's list scheduler interleaves them, where one iteration
    after another waits out each chain's latencies. The SASS loop is matched and U read as
    sass_slots.py reads them: an innermost SASS loop whose only branch is its back edge, on the
    MIR loop's source lines, and the counter's increment on its line (of several such loops,
    the one unrolled most)."""
    from .sass_slots import _usable, plain_loops, self_loop_match
    if not blocks or not _usable(prog, df):
        return []
    sass_loops = plain_loops(df)
    out = []
    for b in blocks:
        match = self_loop_match(prog.blocks[b], b, sass_loops)
        if match is not None and match[0] >= 2:
            g = _group(prog.fn.blocks[b], b, match[0], 0, index, prog.nregs, _kept(tab, b), _latencies(tab, b),
                       match[0])
            if g is not None:
                out.append(g)
    return out


VECTOR_LOADS = True   # False: a vector LDS costs the L1 what its parts' scalar loads do


def vector_lines(prog, arch) -> dict:
    """The shared loads on source lines that ptxas loads with an LDS wider than the load
    (``vs[j]`` four iterations, or four unrolled copies, at a time: LDS.128): the MIR
    instruction's id -> the LDS's bytes, for the recorder (memstats.vector_marks: which
    load of the lanes' addresses leads such a vector, and what it costs). Where a line
    holds several loads each is taken as a candidate: only one whose lanes all sit at one
    offset in the vector's slot is merged. Empty without the SASS; cached per PTX target."""
    from ...gpu.sass import load_bytes, mir_load_bytes
    from ...ir.mir import Space
    if not VECTOR_LOADS:
        return {}
    key = ("vector-lines", arch.ptx_target)
    got = prog.timing.get(key)
    if got is not None:
        return got
    df, _ = sass_table(prog, arch)
    out = {}
    if df is not None and "line" in df:
        lds = df[df["opcode"] == "LDS"]
        widths = {}
        for line, mods in zip(lds["line"], lds["modifiers"]):
            widths[int(line)] = max(widths.get(int(line), 0), load_bytes(mods))
        for blk in prog.fn.blocks:
            for ins in blk.instrs:
                if not _is_load(ins) or ins.arg.space is not Space.SHARED or ins.loc is None:
                    continue
                w, nb = widths.get(ins.loc.line, 0), mir_load_bytes(ins)
                if w in (8, 16) and w > nb and w % nb == 0 and len(ins.dsts) == 1:
                    out[prog.instr_id[id(ins)]] = w
    prog.timing[key] = out
    return out


def _latencies(tab, b: int) -> list:
    """Per instruction of block ``b``, its dependent latency from the tables (what the list
    scheduler weighs the rest of a group by; loads, which go first anyway, and whatever
    they wait for are not weighed)."""
    first = int(tab.block_first[b])
    return [float(x) if x == x else 0.0 for x in tab.latency[first:first + int(tab.block_len[b])]]


def _kept(tab, b: int) -> list:
    """Per instruction of block ``b``, the sources the timing tables keep (a repeated
    computation reads the register that holds it)."""
    first = int(tab.block_first[b])
    return [list(tab.src[tab.src_ptr[o]:tab.src_ptr[o + 1]]) for o in range(first, first + int(tab.block_len[b]))]


def _loads_predicated(fn, path, then, predicated) -> bool:
    """Are the global and shared loads of the then-blocks of ``path`` (``then``: per block, a
    then-block?; empty: x, then, join, ...) on source lines whose SASS loads are predicated
    (``predicated``), i.e. did ptxas drop those branches?"""
    then = then or alternate(len(path))
    return all(ins.loc is not None and ins.loc.line in predicated
               for t, th in zip(path, then) if th for ins in fn.blocks[t].instrs if _is_load(ins))


WINDOW = True     # False: every copy's chain interleaves with every other's (no window of copies)
BY_HEIGHT = True  # False: what is not a load keeps the program order in a group (no interleaving of copies)
LOADLESS = True   # False: loops without loads that ptxas unrolled replay one iteration after another
REDUCTIONS = True  # False: a loop with a global atomic whose old value is never read (REDG) is not grouped
HOIST = True      # False: groups keep the program order, loads and the rest (a check that regrouping alone changes nothing)
HOIST_BRANCHES = True   # False: no path groups (loads under small branches keep the program order)
HOIST_STRAIGHT = True   # False: loads of straight-line blocks keep the program order
HOIST_LOOP_BRANCHES = True   # False: loops whose body branches keep the program order
BY_SPACE = True   # False: a loop's loads wait for every store before them, not only those to their space
SSA = True              # False: a group renames registers per copy only (a copy's own writes of one register share it)
NESTED_THEN = True      # False: a loop's then-block that branches again (an if inside an if) keeps the program order
TRIPS_CAP = True        # False: a completely unrolled loop's U may exceed its trip count (loads of loops on its lines counted)
STATIC_PATHS = True     # False: a completely unrolled loop whose branches read only its counter and constants
#                         (an if/elif/else on the counter) keeps the program order
UNROLLED_TRIPS = True   # False: a loop ptxas unrolled completely groups only where its loads divide evenly into
#                         iterations, and only where the SASS loads of its then-blocks are predicated
def _one_sass_block(df, lp) -> bool:
    """Is the SASS loop one basic block (its branches all predicated away)?"""
    body = df[(df["addr"] >= lp["start"]) & (df["addr"] <= lp["end"])]
    return body["block"].nunique() == 1


def _sass_hoists(df, blk) -> bool:
    """Does the SASS issue two or more of this block's loads before the first use of the
    first? Its loads are found by their source lines; without line info (cuobjdump), no."""
    from ...gpu.sass import loads_before_first_use
    lines = {ins.loc.line for ins in blk.instrs if _is_load(ins) and ins.loc is not None}
    at = df[df["opcode"].isin(["LDG", "LDS"]) & df["line"].isin(lines)]
    for sblock in dict.fromkeys(at["block"]):
        rows = df[df["block"] == sblock]
        first = rows[rows["opcode"].isin(["LDG", "LDS"]) & rows["line"].isin(lines)].index[0]
        if loads_before_first_use(rows.loc[first:]) >= 2:
            return True
    return False


def _window(lbf: int, u: int, sass_loads: int) -> int:
    """The copies whose chains ptxas interleaves: those whose loads it issues before the first
    use, ``lbf`` SASS loads of the ``sass_loads`` that cover ``u`` iterations (a loop with four
    loads an iteration and four issued early has one copy ahead; an LDS.128 that covers four
    iterations counts four), at least one."""
    return max(1, -(-lbf * u // sass_loads)) if sass_loads else u


def _group(blk, b, u, lbf, index, nregs, kept, lat, window: int) -> GroupBlock | None:
    """The group block of U copies of ``blk`` (``kept``: per instruction, the sources the
    timing tables keep: a repeated computation reads the register that holds it; ``lat``:
    per instruction, its latency, for the order of what is not a load; ``lbf`` 0: a loop
    without loads, grouped for its copies' interleaving alone)."""
    body = blk.instrs
    seq = [(j, pos) for j in range(u) for pos in range(len(body))]
    raw = [(sorted({index[s.id] for s in body[pos].srcs if isinstance(s, Reg)} | {int(r) for r in kept[pos]}),
            [index[d.id] for d in body[pos].dsts]) for _, pos in seq]
    srcs, dsts, names = _rename(raw, [j for j, _ in seq], nregs)
    instrs = [body[pos] for _, pos in seq]
    order = _schedule(instrs, seq, srcs, dsts, [set() for _ in seq], "later copy" if lbf else "", BY_SPACE,
                      [lat[pos] for _, pos in seq], [j for j, _ in seq], window)
    if order is None:
        return None
    return GroupBlock(b, u, lbf, [seq[i] for i in order], [srcs[i] for i in order], [dsts[i] for i in order],
                      [names[i] for i in order])


def _path_group(prog, tab, path: list, index, static: bool = False) -> GroupBlock | None:
    """The group block of a path (replay_shapes.if_paths): its blocks' instructions as one, each
    then-block's after the branch that guards it."""
    seq, srcs, dsts, instrs, extra = [], [], [], [], []
    guard = -1
    for j, b in enumerate(path):
        blk = prog.fn.blocks[b]
        first = int(tab.block_first[b])
        for pos, ins in enumerate(blk.instrs):
            o = first + pos
            mir = {index[s.id] for s in ins.srcs if isinstance(s, Reg)}
            seq.append((j, pos))
            srcs.append(sorted(mir | {int(r) for r in tab.src[tab.src_ptr[o]:tab.src_ptr[o + 1]]}))
            dsts.append([index[d.id] for d in ins.dsts])
            instrs.append(ins)
            extra.append({guard} if j % 2 == 1 and not static else set())   # predicated on the branch's condition
        guard = len(seq) - 1                      # this block's branch
    loads = sum(_is_load(i) for i in instrs)
    srcs, dsts, names = _rename(list(zip(srcs, dsts)), [0] * len(seq), prog.nregs)
    order = _schedule(instrs, seq, srcs, dsts, extra, "two loads", True,
                      [lt for b in path for lt in _latencies(tab, b)])
    if order is None:
        return None
    return GroupBlock(path[0], len(path), loads, [seq[i] for i in order], [srcs[i] for i in order],
                      [dsts[i] for i in order], [names[i] for i in order], list(path),
                      then=[False] * len(path) if static else [], static=static)


def _loop_path_group(prog, tab, path: list, then: list, u: int, lbf: int, index, window: int) -> GroupBlock | None:
    """The group block of U iterations of a loop whose body is ``path`` (replay_shapes.loop_path): U
    copies of its blocks, registers renamed as _group renames them (``_rename``), each then-block
    after the branch that guards it in its copy (predicated, as the SASS has it)."""
    L = len(path)
    then = then or alternate(L)
    body = [(p, pos, ins) for p, b in enumerate(path) for pos, ins in enumerate(prog.fn.blocks[b].instrs)]
    seq, instrs, extra, raw = [], [], [], []
    for c in range(u):
        guard = -1
        for p, pos, ins in body:
            o = int(tab.block_first[path[p]]) + pos
            mir = {index[s.id] for s in ins.srcs if isinstance(s, Reg)}
            kept = {int(r) for r in tab.src[tab.src_ptr[o]:tab.src_ptr[o + 1]]}
            raw.append((sorted(mir | kept), [index[d.id] for d in ins.dsts]))
            seq.append((c * L + p, pos))
            instrs.append(ins)
            extra.append({guard} if then[p] and guard >= 0 else set())
            if pos == len(prog.fn.blocks[path[p]].instrs) - 1:
                guard = len(seq) - 1                  # this block's branch guards the next then-block
    srcs, dsts, names = _rename(raw, [j // L for j, _ in seq], prog.nregs)
    lats = {b: _latencies(tab, b) for b in path}
    order = _schedule(instrs, seq, srcs, dsts, extra, "two loads", BY_SPACE,
                      [lats[path[j % L]][pos] for j, pos in seq], [j // L for j, _ in seq], window)
    if order is None:
        return None
    return GroupBlock(path[0], u, lbf, [seq[i] for i in order], [srcs[i] for i in order],
                      [dsts[i] for i in order], [names[i] for i in order], list(path), loop=True, then=list(then))


def _rename(raw, copies: list, nregs: int):
    """(sources, destinations, names) of a group's instructions, ``raw`` their (sources,
    destinations) in program order and ``copies`` the copy of the loop body each is in:
    with ``SSA`` every write gets a register of its own (``_ssa``); without, each copy but
    the last writes registers of its own, one per register it writes (the last copy writes
    the original ones). ``names``: per instruction, register -> its name before it."""
    if SSA:
        return _ssa(raw, nregs)
    last = max(copies, default=0)
    fresh: dict = {}
    name, srcs, dsts, names = {}, [], [], []
    for (reads, writes), c in zip(raw, copies):
        names.append(dict(name))
        srcs.append([name.get(r, r) for r in reads])
        out = []
        for r in writes:
            name[r] = r if c == last else fresh.setdefault((c, r), nregs + len(fresh))
            out.append(name[r])
        dsts.append(out)
    return srcs, dsts, names


def _ssa(raw, nregs: int):
    """(sources, destinations, names) of a group's instructions, ``raw`` their (sources,
    destinations) in program order, with every write given a register of its own: ptxas
    allocates registers to values, not to the program's variables, so a then-block of the
    second of simt's own unrolled iterations does not wait for the first one's reads of the
    same variable (an unrolled ``x = clamp(j + dx, ...)`` reused five times). The last write
    of each register keeps its name (the code after the group reads it); ``names``: per
    instruction, register -> its name before it."""
    last = {r: i for i, (_, writes) in enumerate(raw) for r in writes}
    name, srcs, dsts, names = {}, [], [], []
    fresh = nregs
    for i, (reads, writes) in enumerate(raw):
        names.append(dict(name))
        srcs.append([name.get(r, r) for r in reads])
        out = []
        for r in writes:
            if last[r] == i:
                new = r
            else:
                new, fresh = fresh, fresh + 1
            name[r] = new
            out.append(new)
        dsts.append(out)
    return srcs, dsts, names


def _control(instrs, srcs, dsts, succ) -> set:
    """A group's copies' loop control: each branch, and what only branches read (its
    compare). ptxas's unrolled body has one compare and branch for all its copies, so a copy's
    own holds no later copy back (``_schedule``'s window)."""
    out = {i for i, ins in enumerate(instrs) if ins.op is Op.CBR}
    for i in range(len(instrs)):
        readers = [s for s in succ[i] if set(dsts[i]) & set(srcs[s])]
        if dsts[i] and readers and all(s in out for s in readers):
            out.add(i)
    return out


def _schedule(instrs, seq, srcs, dsts, extra, need: str, by_space: bool, lat, copy=None,
              window: int = 0) -> list | None:
    """The group's order: every global and shared load as early as its dependences allow (a gather
    right after the load of its index), the rest by list scheduling, longest path of latencies
    (``lat``, per instruction) to the group's end first, as ptxas orders an unrolled body (the copies'
    chains interleave); with BY_HEIGHT (or HOIST) off, the rest keeps the program
    order. None when nothing can move as ``need`` asks: "later copy" (a load of a later copy),
    "two loads" (two loads free of the group's loads) or "" (nothing asked: a loop without loads).
    With ``copy`` (per instruction, its copy of the loop body) and a ``window`` W, what is not
    a load (nor feeds one) of copy c waits until copy c - W has issued all of its own but its
    loop control (``_control``): ptxas
    interleaves a few copies' chains at a time, as many as it issues loads of before the
    first use (``_window``: registers run out), not all U of them. A path group (no copies)
    has every chain interleave. Dependences: registers (read-after-write, write-after-read,
    write-after-write), ``extra`` (per instruction), loads after the stores before them
    (``by_space``: those to their own memory space), stores after every access before them,
    and the last instruction (the branch) after all."""
    m = len(seq)
    preds = [set(e) for e in extra]
    last_write, reads_since = {}, {}
    last_store, mem_since_store = {}, []
    for i in range(m):
        ins = instrs[i]
        for r in srcs[i]:
            if r in last_write:
                preds[i].add(last_write[r])
        for r in dsts[i]:
            if r in last_write:
                preds[i].add(last_write[r])
            preds[i].update(reads_since.get(r, ()))
        for r in srcs[i]:
            reads_since.setdefault(r, []).append(i)
        for r in dsts[i]:
            last_write[r] = i
            reads_since[r] = []
        if ins.op in (Op.LD, Op.ST, Op.ATOM):       # a reduction is ordered as a store is
            space = (ins.arg.mem.space if ins.op is Op.ATOM else ins.arg.space) if by_space else None
            if ins.op is not Op.LD:
                preds[i].update(mem_since_store)
                mem_since_store = []
                last_store[space] = i
            elif space in last_store:
                preds[i].add(last_store[space])
            mem_since_store.append(i)
        preds[i].discard(i)
    preds[m - 1].update(range(m - 1))             # the loop's branch ends the group
    # loads whose address, or the branch that guards them, depends on no load of the group
    tainted = [False] * m
    for i in range(m):
        raw = [p for p in preds[i] if set(dsts[p]) & set(srcs[i]) or p in extra[i]]
        tainted[i] = any(tainted[p] or instrs[p].op is Op.LD for p in raw)
    movable = [i for i in range(m) if _is_load(instrs[i]) and not tainted[i]]
    if need == "later copy" and not any(seq[i][0] > 0 for i in movable):
        return None                              # nothing of a later copy can move up
    if need == "two loads" and len(movable) < 2:
        return None
    # as ptxas does, every global and shared load of the group goes as early as its dependences allow:
    # first the loads whose address depends on no load of the group, with what they wait
    # for, then the rest (a gather after all of them, not right after its index's load,
    # which would wait that load out before the next one issues); the rest keeps its order
    def closure(seeds):
        out, stack = set(), list(seeds)
        while stack:                              # the loads and what they wait for
            i = stack.pop()
            if i in out:
                continue
            out.add(i)
            stack.extend(preds[i])
        return out
    loads = [i for i in range(m) if HOIST and _is_load(instrs[i])]
    first = closure(i for i in loads if not tainted[i])
    slice_ = closure(loads)
    order, done, waiting = [], [False] * m, [len(p) for p in preds]
    succ = [[] for _ in range(m)]
    for i in range(m):
        for p in preds[i]:
            succ[p].append(i)
    height = [0.0] * m
    if BY_HEIGHT and HOIST:
        for i in reversed(range(m)):
            height[i] = lat[i] + max((height[s] for s in succ[i]), default=0.0)
    gated = copy is not None and window > 0 and WINDOW
    left = {}                                     # copy -> its work outside the slice not yet placed
    control = _control(instrs, srcs, dsts, succ) if gated else set()
    if gated:
        for i in range(m):
            if i not in slice_ and i not in control:
                left[copy[i]] = left.get(copy[i], 0) + 1

    def open_(x):
        return not gated or x in slice_ or left.get(copy[x] - window, 0) == 0

    ready = [i for i in range(m) if waiting[i] == 0]
    while ready:
        pick = [x for x in ready if open_(x)] or ready
        i = min(pick, key=lambda x: (x not in first, x not in slice_, 0.0 if x in slice_ else -height[x], x))
        ready.remove(i)
        if gated and i not in slice_ and i not in control:
            left[copy[i]] -= 1
        order.append(i)
        done[i] = True
        for s in succ[i]:
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    assert len(order) == m
    return order
