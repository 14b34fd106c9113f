"""Which global stores ptxas put right behind another: they merge with it on the way to the L2
where both write the same lines (benchmarks/timing/store_merge.py, on the H200: a thread's
words ``out[4*i + j]``, j < 4, stored back to back cost the L2 about one store's writes, and
four with a dependent FMA between them). The MIR puts each value's arithmetic before its
store; ptxas computes the values first and stores them together, so the SASS, not the MIR,
says which stores are back to back."""
from __future__ import annotations

from . import isa


def merge_flags(prog, df, tab) -> dict[int, int]:
    """Static index of a MIR global store -> isa.STORE_NEXT (ptxas put its STG right behind
    the STG of the MIR's store before it, in one SASS block) or isa.STORE_NEAR (one
    instruction between them), written into ``tab.atomic``. Stores are matched by their
    source lines: the MIR's pair of consecutive global stores (no global load or atomic
    between them) and a pair of STGs on the same two lines. Without SASS, none."""
    if df is None or "line" not in df or not (df["line"] >= 0).any():
        return {}
    rows = df[df["function"] == df["function"].iloc[0]] if "function" in df else df
    rows = rows[rows["opcode"] != "NOP"]
    near: dict[tuple[int, int], int] = {}            # (line, next store's line) -> instructions between
    last = None
    for pos, (op, line, blk) in enumerate(zip(rows["opcode"], rows["line"], rows["block"])):
        if op == "STG":
            if last is not None and last[2] == blk and pos - last[0] - 1 <= 1:
                key = (int(last[1]), int(line))
                near[key] = min(near.get(key, 2), pos - last[0] - 1)
            last = (pos, line, blk)
        elif op.startswith(("LDG", "ATOMG", "RED")):
            last = None
    out = {}
    for b, blk in enumerate(prog.blocks):
        i0 = int(tab.block_first[b])
        prev = None
        for j, ins in enumerate(blk.instrs):
            k = int(tab.kind[i0 + j])
            if k == isa.GLOBAL_ST:
                line = ins.loc.line if ins.loc is not None else -1
                if prev is not None and (prev, line) in near:
                    out[i0 + j] = isa.STORE_NEXT if near[(prev, line)] == 0 else isa.STORE_NEAR
                prev = line
            elif k in (isa.GLOBAL_LD, isa.GLOBAL_ATOM):
                prev = None
    for i, flag in out.items():
        tab.atomic[i] = flag
    return out
