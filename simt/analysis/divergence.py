"""Branch divergence and lane activity from a trace.

A conditional branch record (op ``cbr``) carries ``taken``, the lanes that took the true
edge; an execution is divergent when 0 < popcount(taken) < active. Targets count as the
profilers count them (smsp__sass_branch_targets_threads_*): a uniform execution has one
target, a divergent one two; branch efficiency = uniform targets / all targets * 100.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .loading import Trace, chunks_of, int_values, require_unfiltered
from .tables import by_line, combine, order_by_source, per_pc

BRANCH_OPS = ("cbr",)
LANES = 32


def divergence(trace: Trace, by: str = "pc") -> pd.DataFrame:
    """Per conditional branch (``by="pc"``) or source line (``by="line"``): executions,
    uniform, divergent, uniform_targets, divergent_targets, branch_efficiency_pct,
    mean_active (lanes active at the branch), taken_pct (of active lanes, the share that
    took the true edge)."""
    table = branches_per_pc(trace)
    if by == "pc":
        return _finish_branches(order_by_source(table))
    if by == "line":
        if table.empty:
            return _finish_branches(pd.DataFrame(columns=["line", "instructions"]))
        return _finish_branches(by_line(table, sums=("executions", "uniform", "divergent",
                                                     "active_lanes", "taken_lanes", "unknown")))
    raise ValueError(f"by must be 'pc' or 'line', got {by!r}")


def active_lanes(trace: Trace, by: str = "pc") -> pd.DataFrame:
    """Lane activity per instruction (``by="pc"``) or line (``by="line"``): executions
    (warp-level), thread_inst (summed active lanes), mean_active, min_active,
    simd_efficiency_pct (= mean_active / 32 * 100)."""
    table = instructions_per_pc(trace)
    if by == "pc":
        t = order_by_source(table)
    elif by == "line":
        t = by_line(table, sums=("executions", "thread_inst"), minima=("min_active",))
    else:
        raise ValueError(f"by must be 'pc' or 'line', got {by!r}")
    t = t.copy()
    t["mean_active"] = t["thread_inst"] / t["executions"].where(t["executions"] > 0)
    t["simd_efficiency_pct"] = 100.0 * t["mean_active"] / LANES
    front = [c for c in ("pc", "line", "col", "op", "instructions") if c in t]
    return t[front + ["executions", "thread_inst", "mean_active", "min_active",
                      "simd_efficiency_pct"]].reset_index(drop=True)


def branches_per_pc(trace: Trace) -> pd.DataFrame:
    parts = []
    for chunk in chunks_of(trace):
        require_unfiltered(chunk, "divergence", "branch records (op 'cbr')")
        parts.append(branch_partial(chunk))
    return combine(parts)


def instructions_per_pc(trace: Trace) -> pd.DataFrame:
    return combine([inst_partial(chunk) for chunk in chunks_of(trace)], minima=("min_active",))


def popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(x, dtype=np.uint64)).astype(np.int64)


def inst_partial(chunk: pd.DataFrame) -> pd.DataFrame:
    rows = np.arange(len(chunk))
    active = int_values(chunk, "active")
    return per_pc(chunk, rows, sums={"thread_inst": active}, minima={"min_active": active})


def branch_partial(chunk: pd.DataFrame) -> pd.DataFrame:
    rows = np.flatnonzero(np.asarray(chunk["op"].isin(BRANCH_OPS), dtype=bool))
    active = int_values(chunk, "active")[rows]
    taken_raw = int_values(chunk, "taken", fill=-1)[rows]
    known = taken_raw >= 0
    taken = popcount(np.where(known, taken_raw, 0))
    divergent = known & (taken > 0) & (taken < active)
    return per_pc(chunk, rows, sums={"uniform": known & ~divergent, "divergent": divergent,
                                     "unknown": ~known, "active_lanes": active,
                                     "taken_lanes": taken})


def _finish_branches(t: pd.DataFrame) -> pd.DataFrame:
    t = t.copy()
    for c in ("executions", "uniform", "divergent", "unknown", "active_lanes", "taken_lanes"):
        if c not in t:
            t[c] = pd.Series(dtype=np.int64)
    t["uniform_targets"] = t["uniform"]
    t["divergent_targets"] = 2 * t["divergent"]
    targets = t["uniform_targets"] + t["divergent_targets"]
    t["branch_efficiency_pct"] = 100.0 * t["uniform_targets"] / targets.where(targets > 0)
    t["mean_active"] = t["active_lanes"] / t["executions"].where(t["executions"] > 0)
    t["taken_pct"] = 100.0 * t["taken_lanes"] / t["active_lanes"].where(t["active_lanes"] > 0)
    front = [c for c in ("pc", "line", "col", "op", "instructions") if c in t]
    rest = ["executions", "uniform", "divergent", "uniform_targets", "divergent_targets",
            "branch_efficiency_pct", "mean_active", "taken_pct"]
    if t["unknown"].sum() > 0:
        rest.append("unknown")
    return t[front + rest].reset_index(drop=True)
