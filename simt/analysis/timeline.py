"""Per-warp issue timelines from a trace: the shared input of the warp-timeline plot and the
Perfetto export. Only the few columns a timeline needs are kept, chunk by chunk."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from .loading import Trace, chunks_of, int_values

COLUMNS = ("launch", "block", "warp", "cycle", "op", "pc", "line", "active", "mask")
CLASSES = ("alu", "shared", "global", "branch", "barrier", "warp")


@lru_cache(maxsize=None)
def op_class(op: str) -> str:
    """The colour group of an op: alu, shared, global, branch, barrier or warp."""
    op = str(op)
    head = op.split(".", 1)[0]
    if head in ("ld", "st", "atom", "red"):
        return "shared" if ".shared" in op else "global"
    if head in ("cbr", "br", "ret"):
        return "branch"
    if head in ("bar", "syncwarp"):
        return "barrier"
    if head in ("shfl", "vote", "activemask", "match"):
        return "warp"
    return "alu"


def warp_timeline(trace: Trace, launch: int | None = None, blocks=None) -> pd.DataFrame:
    """Records of one launch (default: the first one in the trace), optionally only some
    ``blocks``, sorted by block, warp and cycle, with ``next_cycle`` (the warp's next issue,
    -1 after its last instruction)."""
    parts = []
    for chunk in chunks_of(trace):
        if chunk.empty:
            continue
        launches = int_values(chunk, "launch")
        if launch is None:
            launch = int(launches[0])
        keep = launches == launch
        if blocks is not None:
            keep &= np.isin(int_values(chunk, "block"), np.atleast_1d(blocks))
        if keep.any():
            part = chunk.loc[keep, [c for c in COLUMNS if c in chunk]].copy()
            for c in ("op", "pc"):
                part[c] = part[c].astype(object)
            parts.append(part)
    if not parts:
        return pd.DataFrame(columns=[*COLUMNS, "next_cycle"])
    t = pd.concat(parts, ignore_index=True)
    block, warp, cycle = (int_values(t, c) for c in ("block", "warp", "cycle"))
    order = np.lexsort((np.arange(len(t)), cycle, warp, block))
    t = t.iloc[order].reset_index(drop=True)
    block, warp, cycle = block[order], warp[order], cycle[order]
    same = np.zeros(len(t), dtype=bool)
    same[:-1] = (block[1:] == block[:-1]) & (warp[1:] == warp[:-1])
    nxt = np.full(len(t), -1, dtype=np.int64)
    nxt[:-1] = np.where(same[:-1], cycle[1:], -1)
    t["next_cycle"] = nxt
    return t
