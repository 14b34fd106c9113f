"""Which pipe each source line's work takes, from the SASS ptxas made of it.

The op table (isa.py) puts every MIR op on one pipe: an f32 multiply on the FMA pipe, an i32
compare on the ALU. The SASS of the same line often divides its work otherwise: a float-to-int
conversion that saturates is an F2I (the XU pipe) plus a LOP3, an ISETP and a SEL (the ALU);
a load's address is a LEA or an IMAD; a clamp is one VIADDMNMX; ptxas turns adds into IMADs
and shifts into LEAs. On the H200 the ALU takes a warp instruction every other cycle, so a
line whose SASS is half ALU bounds the rate at which its warps issue where the op table saw an
FMA stream (set 16's SSAO: 44% of its SASS on the ALU, the op table's 30% of the cycles).

Per source line, the SASS instructions on it are counted by the pipe each takes (the
architecture file's ``sass_pipes``: opcodes per pipe, from Nsight Compute's pipe definitions).
The line's MIR instructions in a block keep their issue slots; the warp instructions their
pipes carry are those slots split in the SASS line's proportions, placed on the line's
arithmetic instructions: each keeps its own pipe where the SASS has work for it, the others
take the pipes left over. Loads, stores, branches and shuffles keep theirs. Without SASS or
line info, or on a line the SASS does not have, nothing changes (the op table's pipes: the
documented fallback)."""
from __future__ import annotations

import numpy as np

from . import isa

_KEEP = (isa.PIPES.index("shfl"), isa.PIPES.index("branch"))


def opcode_pipes(arch) -> dict[str, int]:
    """SASS opcode -> index in isa.PIPES, from the architecture file (empty without it)."""
    table = arch.data["timing"].get("sass_pipes", {})
    return {op: isa.PIPES.index(p) for p, ops in table.items() if p in isa.PIPES for op in ops}


def line_mix(df, pipes: dict[str, int]) -> dict[int, np.ndarray]:
    """Source line -> per pipe of isa.PIPES, the share of the line's SASS instructions (NOPs
    aside) that take it; the rest (memory, uniform datapath, control, special registers)
    take none of the math pipes. A slow path ptxas calls only for some operands (a float
    division's ``..._slowpath``, on the caller's line) is not the line's usual work: left out;
    the functions simt emits and calls every time (fp64 math) count."""
    out: dict[int, np.ndarray] = {}
    n: dict[int, int] = {}
    functions = df["function"] if "function" in df else [""] * len(df)
    for op, line, fn in zip(df["opcode"], df["line"], functions):
        if line < 0 or op == "NOP" or "slowpath" in str(fn):
            continue
        line = int(line)
        n[line] = n.get(line, 0) + 1
        p = pipes.get(op, -1)
        if p >= 0:
            out.setdefault(line, np.zeros(len(isa.PIPES)))[p] += 1.0
    return {line: v / n[line] for line, v in out.items()}


def _assign(slots: np.ndarray, own: np.ndarray, demand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pipe, units) of a line's arithmetic instructions (issue slots ``slots``, op-table pipes
    ``own``) carrying ``demand`` warp instructions per pipe: an instruction keeps its pipe
    while that pipe's share of the slots is not yet filled, the others go to the pipe furthest
    short of its share; each pipe's demand is then split over its instructions by their slots."""
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
    units = np.zeros(slots.size)
    for p in np.flatnonzero(demand > 0.0):
        mine = pipe == p
        if mine.any():
            units[mine] = demand[p] * slots[mine] / slots[mine].sum()
    return pipe, units


def apply(prog, df, tab, arch) -> int:
    """Set the pipes and pipe units of each source line's arithmetic instructions in ``tab``
    (in place) from the line's SASS; returns how many (block, line) groups changed."""
    if df is None or "line" not in df or not (df["line"] >= 0).any():
        return 0
    pipes = opcode_pipes(arch)
    if not pipes:
        return 0
    mix = line_mix(df, pipes)
    groups: dict[tuple[int, int], list[int]] = {}
    for b, blk in enumerate(prog.blocks):
        i0 = int(tab.block_first[b])
        for j, ins in enumerate(blk.instrs):
            if ins.loc is not None and ins.loc.line in mix:
                groups.setdefault((b, ins.loc.line), []).append(i0 + j)
    changed = 0
    for (b, line), members in groups.items():
        idx = np.array(members)
        issue = float(tab.sass[idx].sum())
        math = idx[(tab.kind[idx] == isa.ALU) & (tab.sass[idx] > 0.0) & ~np.isin(tab.pipe[idx], _KEEP)]
        if issue <= 0.0 or not math.size:
            continue
        demand = mix[line] * issue
        demand[list(_KEEP)] = 0.0
        if demand.sum() <= 0.0:
            continue
        pipe, units = _assign(tab.sass[math], tab.pipe[math], demand)
        tab.pipe[math] = pipe
        tab.units[math] = units
        changed += 1
    return changed
