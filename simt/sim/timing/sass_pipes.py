"""Which pipes a kernel's work takes, from the SASS ptxas made of it.

The op table (isa.py) puts every MIR op on one pipe: an f32 multiply on the FMA pipe, an i32
compare on the ALU. The SASS of the same line often divides its work otherwise: a float-to-int
conversion that saturates is an F2I (the XU pipe) plus a LOP3, an ISETP and a SEL (the ALU);
a load's address is a LEA or an IMAD; a clamp is one VIADDMNMX; ptxas turns adds into IMADs
and shifts into LEAs. On the H200 the ALU takes a warp instruction every other cycle, so a
line whose SASS is half ALU bounds the rate at which its warps issue where the op table saw an
FMA stream (set 16's SSAO: 44% of its SASS on the ALU, the op table's 30% of the cycles).

The SASS instructions of the source lines are counted by the pipe each takes (the
architecture file's ``sass_pipes``: opcodes per pipe, from Nsight Compute's pipe definitions),
pooled per MIR block (``POOL``: a block in a loop takes the lines of its innermost loop and
their rows in SASS loops; ptxas puts a loop's compares on its ``for`` line and address
arithmetic on neighbouring lines, so one line's own share can mislead) or, with POOL off,
per line of a block. The block's MIR instructions keep their issue slots; the warp
instructions their pipes carry are those slots split in the SASS's proportions, placed on the
block's arithmetic instructions: each keeps its own pipe where the SASS has work for it, the
others take the pipes left over. Loads, stores, branches and shuffles keep theirs. Without
SASS or line info, or on lines the SASS does not have, nothing changes (the op table's pipes:
the documented fallback)."""
from __future__ import annotations

import numpy as np

from ...gpu.sass import loop_spans
from . import isa

_KEEP = (isa.PIPES.index("shfl"), isa.PIPES.index("branch"))
POOL = True         # one mix per MIR block, its lines' SASS pooled (block_mix); else per line
ADU = True          # constant loads from a register address (LDC) take the ADU pipe; else no pipe
EVERY_PIPE = True   # every pipe the SASS has work for gets an instruction where there are enough


def opcode_pipes(arch) -> dict[str, int]:
    """SASS opcode -> index in isa.PIPES, from the architecture file (empty without it)."""
    table = arch.data["timing"].get("sass_pipes", {})
    return {op: isa.PIPES.index(p) for p, ops in table.items() if p in isa.PIPES and (ADU or p != "adu")
            for op in ops}


def line_counts(df, pipes: dict[str, int], where=None) -> dict[int, np.ndarray]:
    """Source line -> per pipe of isa.PIPES, the line's SASS instructions (NOPs aside) that
    take it, and at the end (index len(isa.PIPES)) all of them; the rest of a line's (memory,
    uniform datapath, control, special registers) take none of the math pipes. A slow path
    ptxas calls only for some operands (a float division's ``..._slowpath``, on the caller's
    line) is not the line's usual work: left out; the functions simt emits and calls every
    time (fp64 math) count. ``where``: the rows to count (a boolean mask), or all."""
    out: dict[int, np.ndarray] = {}
    functions = df["function"] if "function" in df else [""] * len(df)
    keep = np.ones(len(df), bool) if where is None else np.asarray(where, bool)
    for op, line, fn, k in zip(df["opcode"], df["line"], functions, keep):
        if not k or line < 0 or op == "NOP" or "slowpath" in str(fn):
            continue
        v = out.setdefault(int(line), np.zeros(len(isa.PIPES) + 1))
        v[-1] += 1.0
        p = pipes.get(op, -1)
        if p >= 0:
            v[p] += 1.0
    return out


def line_mix(df, pipes: dict[str, int]) -> dict[int, np.ndarray]:
    """Source line -> per pipe of isa.PIPES, the share of the line's SASS instructions that
    take it (line_counts)."""
    return {line: v[:-1] / v[-1] for line, v in line_counts(df, pipes).items() if v[:-1].any()}


def block_mix(prog, df, pipes: dict[str, int]) -> dict[int, np.ndarray]:
    """MIR block -> the share of each pipe among the SASS instructions of the block's source
    lines, pooled: ptxas attributes a loop's compare to its ``for`` line, a load's address
    arithmetic to the line before, and a line's own share can say the opposite of the
    block's (set 7's rank sort: its ``if u < v or ...`` line one ISETP, its FSETPs on the
    loop's line). A block inside a MIR loop pools the rows in SASS loops, one outside loops
    the rows outside them, where the lines have such rows."""
    spans = loop_spans(prog.fn)
    in_sass_loop = (df["loop"] >= 0).to_numpy() if "loop" in df else np.zeros(len(df), bool)
    counts = {True: line_counts(df, pipes, in_sass_loop), False: line_counts(df, pipes, ~in_sass_loop)}
    every = line_counts(df, pipes)
    out = {}
    blocks = prog.blocks
    for b, blk in enumerate(blocks):
        around = [(t, e) for t, e in spans if t <= b <= e]
        looped = bool(around)
        if looped:          # the innermost MIR loop's blocks, pooled
            t, e = min(around, key=lambda s_: s_[1] - s_[0])
            lines = {ins.loc.line for k in range(t, e + 1) for ins in blocks[k].instrs if ins.loc is not None}
        else:
            lines = {ins.loc.line for ins in blk.instrs if ins.loc is not None}
        for table in (counts[looped], every):
            v = sum((table[line] for line in lines if line in table), np.zeros(len(isa.PIPES) + 1))
            if v[-1] > 0:
                break
        if v[-1] > 0 and v[:-1].any():
            out[b] = v[:-1] / v[-1]
    return out


def _assign(slots: np.ndarray, own: np.ndarray, demand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pipe, units) of a line's arithmetic instructions (issue slots ``slots``, op-table pipes
    ``own``) carrying ``demand`` warp instructions per pipe: an instruction keeps its pipe
    while that pipe's share of the slots is not yet filled, the others go to the pipe furthest
    short of its share; a pipe still without an instruction takes the smallest of a pipe that has
    several (EVERY_PIPE); each pipe's demand is then split over its instructions by their slots."""
    total = float(slots.sum())
    want = demand / demand.sum() * total          # slots each pipe should hold
    pipe = np.full(slots.size, -1, np.int64)
    held = np.zeros(demand.size)
    for k in np.argsort(-slots, kind="stable"):   # the largest first: shares fill evenly
        p = int(own[k])
        if 0 <= p < demand.size and demand[p] > 0.0 and held[p] + 0.5 * slots[k] <= want[p]:
            pipe[k] = p
            held[p] += slots[k]
    for k in np.argsort(-slots, kind="stable"):
        if pipe[k] < 0:
            p = int(np.argmax(np.where(demand > 0.0, want - held, -np.inf)))
            pipe[k] = p
            held[p] += slots[k]
    if EVERY_PIPE:
        # a pipe left without an instruction (one instruction held more slots than any pipe's
        # share, and the small ones kept theirs) takes the smallest instruction of a pipe that
        # has several: its work is not dropped (set 3's separable convolution: an ADD of 11
        # slots, three compares, and the constant loads' ADU share on none of them)
        for p in np.argsort(-demand, kind="stable"):
            if demand[p] <= 0.0 or (pipe == p).any():
                continue
            shared = [k for k in np.argsort(slots, kind="stable") if (pipe == pipe[k]).sum() > 1]
            if not shared:
                break
            pipe[shared[0]] = p
    units = np.zeros(slots.size)
    for p in np.flatnonzero(demand > 0.0):
        mine = pipe == p
        if mine.any():
            units[mine] = demand[p] * slots[mine] / slots[mine].sum()
    return pipe, units


def apply(prog, df, tab, arch) -> int:
    """Set the pipes and pipe units of the arithmetic instructions in ``tab`` (in place) from
    the SASS: per MIR block (POOL, block_mix) or per source line of a block (line_mix);
    returns how many groups changed."""
    if df is None or "line" not in df or not (df["line"] >= 0).any():
        return 0
    pipes = opcode_pipes(arch)
    if not pipes:
        return 0
    groups: dict[tuple[int, int], list[int]] = {}
    mixes: dict[tuple[int, int], np.ndarray] = {}
    if POOL:
        for b, m in block_mix(prog, df, pipes).items():
            i0 = int(tab.block_first[b])
            groups[(b, -1)] = list(range(i0, i0 + int(tab.block_len[b])))
            mixes[(b, -1)] = m
    else:
        mix = line_mix(df, pipes)
        for b, blk in enumerate(prog.blocks):
            i0 = int(tab.block_first[b])
            for j, ins in enumerate(blk.instrs):
                if ins.loc is not None and ins.loc.line in mix:
                    groups.setdefault((b, ins.loc.line), []).append(i0 + j)
                    mixes[(b, ins.loc.line)] = mix[ins.loc.line]
    changed = 0
    for key, members in groups.items():
        idx = np.array(members)
        issue = float(tab.sass[idx].sum())
        math = idx[(tab.kind[idx] == isa.ALU) & (tab.sass[idx] > 0.0) & ~np.isin(tab.pipe[idx], _KEEP)]
        if issue <= 0.0 or not math.size:
            continue
        demand = mixes[key] * issue
        demand[list(_KEEP)] = 0.0
        if demand.sum() <= 0.0:
            continue
        pipe, units = _assign(tab.sass[math], tab.pipe[math], demand)
        tab.pipe[math] = pipe
        tab.units[math] = units
        changed += 1
    return changed
