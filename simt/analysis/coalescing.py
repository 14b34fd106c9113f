"""Global-memory coalescing from a trace: requests, 32-byte sectors and efficiency.

Sectors are the ones the engine recorded (simt.sim.precise.banks.global_sectors); a record
without them is recomputed with that function. Efficiency follows the profilers' "global
load efficiency": bytes the active lanes asked for over bytes the sectors moved, so a
broadcast (every lane one address) reads more than 100 %.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..sim.precise import banks as bank_model
from .loading import INACTIVE, Trace, addr_matrix, chunks_of, int_values, lane_mask
from .patterns import distinct_patterns
from .tables import by_line, combine, order_by_source, per_pc, space_is

SECTOR_BYTES = bank_model.SECTOR_BYTES


def coalescing(trace: Trace, by: str = "line") -> pd.DataFrame:
    """Global memory accesses per source line and op (``by="line"``) or per instruction
    (``by="pc"``).

    Columns: requests (one per warp-level instruction), sectors, sectors_per_request,
    ideal_sectors (what perfectly packed bytes would need, per request rounded up),
    bytes_requested (active lanes x access width), efficiency_pct
    (= bytes_requested / (sectors * 32) * 100).
    """
    table = global_per_pc(trace)
    if by == "pc":
        return _finish(order_by_source(table))
    if by == "line":
        if table.empty:
            return _finish(pd.DataFrame(columns=["line", "op", "instructions"]))
        return _finish(by_line(table, sums=("requests", "sectors", "ideal_sectors", "bytes_requested"),
                               keys=("line", "op")))
    raise ValueError(f"by must be 'line' or 'pc', got {by!r}")


def global_per_pc(trace: Trace) -> pd.DataFrame:
    """Per-pc sums over the whole trace (the raw material of ``coalescing``)."""
    return combine([global_partial(chunk) for chunk in chunks_of(trace)])


def global_partial(chunk: pd.DataFrame) -> pd.DataFrame:
    rows = np.flatnonzero(space_is(chunk, "global"))
    width = np.maximum(1, int_values(chunk, "width", fill=4)[rows])
    active = int_values(chunk, "active")[rows]
    requested = active * width
    sectors = int_values(chunk, "sectors", fill=-1)[rows]
    requests = int_values(chunk, "requests", fill=1)[rows]
    missing = np.flatnonzero(sectors < 0)
    if missing.size:
        addr = addr_matrix(chunk["addr"].iloc[rows[missing]])
        lanes = lane_mask(int_values(chunk, "mask")[rows[missing]]) & (addr != INACTIVE)
        sectors[missing] = model_sectors(addr, lanes, width[missing])
    ideal = np.where(requested > 0, -(-requested // SECTOR_BYTES), 0)
    return per_pc(chunk, rows, sums={"requests": requests, "sectors": sectors,
                                     "ideal_sectors": ideal, "bytes_requested": requested})


def model_sectors(addr: np.ndarray, active: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Sectors per access by simt.sim.precise.banks, once per distinct pattern (patterns
    equal up to a shift by whole sectors touch as many)."""
    first, inverse = distinct_patterns(addr, active, width, align=SECTOR_BYTES)
    cost = np.array([bank_model.global_sectors(addr[i], active[i], int(width[i])) for i in first],
                    dtype=np.int64)
    return cost[inverse]


def _finish(t: pd.DataFrame) -> pd.DataFrame:
    t = t.copy()
    for c in ("requests", "sectors", "ideal_sectors", "bytes_requested"):
        if c not in t:
            t[c] = pd.Series(dtype=np.int64)
    t["sectors_per_request"] = t["sectors"] / t["requests"].where(t["requests"] > 0)
    t["efficiency_pct"] = 100.0 * t["bytes_requested"] / (t["sectors"] * SECTOR_BYTES).where(t["sectors"] > 0)
    front = [c for c in ("pc", "line", "col", "op", "instructions") if c in t]
    rest = ["requests", "sectors", "sectors_per_request", "ideal_sectors", "bytes_requested",
            "efficiency_pct"]
    return t[front + rest].reset_index(drop=True)
