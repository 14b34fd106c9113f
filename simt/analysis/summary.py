"""Whole-trace views: everything per source line, and the launch's counters under the
Nsight Compute names the precise engine reports (so the two can be compared exactly).

Both read the trace once, whatever its size: every per-pc partial is built per chunk.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .banks import shared_partial
from .coalescing import global_partial
from .divergence import branch_partial, inst_partial
from .loading import Trace, chunks_of
from .tables import combine, op_kind

UNCONDITIONAL_BRANCHES = ("br",)   # counted by the engine as branches with one uniform target
PER_LINE_COLUMNS = ("line", "inst_executed", "thread_inst_executed", "mean_active",
                    "shared_wavefronts", "shared_ideal_wavefronts", "bank_conflicts",
                    "global_requests", "global_sectors", "sectors_per_request",
                    "branch_targets_uniform", "branch_targets_divergent")


def per_line(trace: Trace) -> pd.DataFrame:
    """One row per source line; the counter columns are named as in the precise engine's own
    per-line table (``inst_executed``, ``shared_wavefronts``, ``global_sectors``, ...).
    A filtered trace (``memory_only``, some blocks or warps) counts only what it holds."""
    tables, _ = _tables(trace)
    inst, shared, glob, branch = (tables[k] for k in ("inst", "shared", "global", "branch"))
    if inst.empty:
        return pd.DataFrame(columns=list(PER_LINE_COLUMNS))
    key = "line"
    lines = inst.reset_index().assign(line=lambda d: d[key].astype("Int64"))
    out = lines.groupby(key, dropna=False, sort=True).agg(
        inst_executed=("executions", "sum"), thread_inst_executed=("thread_inst", "sum"))

    def add(table: pd.DataFrame, sums: dict) -> None:
        if table.empty:
            for name in sums:
                out[name] = 0
            return
        t = table.reset_index().assign(line=lambda d: d[key].astype("Int64"))
        g = t.groupby(key, dropna=False).agg(**{name: (col, "sum") for name, col in sums.items()})
        for name in sums:
            out[name] = g[name].reindex(out.index).fillna(0).astype(np.int64)

    add(shared, {"shared_wavefronts": "wavefronts", "shared_ideal_wavefronts": "ideal"})
    add(glob, {"global_requests": "requests", "global_sectors": "sectors"})
    add(branch, {"branch_targets_uniform": "uniform", "cbr_divergent": "divergent"})
    jumps = inst[inst["op"].isin(UNCONDITIONAL_BRANCHES)]
    add(jumps, {"br_targets": "executions"})
    out["branch_targets_uniform"] += out.pop("br_targets")
    out["branch_targets_divergent"] = 2 * out.pop("cbr_divergent")
    out["bank_conflicts"] = out["shared_wavefronts"] - out["shared_ideal_wavefronts"]
    out["mean_active"] = out["thread_inst_executed"] / out["inst_executed"].where(out["inst_executed"] > 0)
    out["sectors_per_request"] = out["global_sectors"] / out["global_requests"].where(out["global_requests"] > 0)
    return out.reset_index()[list(PER_LINE_COLUMNS)]


def trace_metrics(trace: Trace) -> dict[str, float]:
    """The launch's counters computed from the trace, under the precise engine's metric names.

    Instruction and branch counters are only given when the trace is complete (no
    ``memory_only``, block, warp or record-count filter in its header), since a filtered
    trace cannot know them.
    """
    tables, header = _tables(trace)
    m: dict[str, float] = {}
    shared, glob = tables["shared"], tables["global"]
    for kind in ("ld", "st", "atom"):
        s = shared[shared["op"].map(op_kind) == kind] if not shared.empty else shared
        g = glob[glob["op"].map(op_kind) == kind] if not glob.empty else glob
        waves = int(s["wavefronts"].sum()) if not s.empty else 0
        ideal = int(s["ideal"].sum()) if not s.empty else 0
        m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum"] = waves
        m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{kind}.sum"] = waves - ideal
        m[f"l1tex__t_requests_pipe_lsu_mem_global_op_{kind}.sum"] = int(g["requests"].sum()) if not g.empty else 0
        m[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{kind}.sum"] = int(g["sectors"].sum()) if not g.empty else 0
    if not _complete(header):
        return m
    inst, branch = tables["inst"], tables["branch"]
    n_inst = int(inst["executions"].sum()) if not inst.empty else 0
    thread_inst = int(inst["thread_inst"].sum()) if not inst.empty else 0
    jumps = int(inst.loc[inst["op"].isin(UNCONDITIONAL_BRANCHES), "executions"].sum()) if not inst.empty else 0
    uniform = jumps + (int(branch["uniform"].sum()) if not branch.empty else 0)
    divergent = 2 * (int(branch["divergent"].sum()) if not branch.empty else 0)
    targets = uniform + divergent
    m.update({
        "smsp__inst_executed.sum": n_inst,
        "smsp__thread_inst_executed.sum": thread_inst,
        "smsp__thread_inst_executed_per_inst_executed.ratio": thread_inst / n_inst if n_inst else 0.0,
        "smsp__sass_inst_executed_op_branch.sum": uniform + divergent // 2,
        "smsp__sass_branch_targets.sum": targets,
        "smsp__sass_branch_targets_threads_uniform.sum": uniform,
        "smsp__sass_branch_targets_threads_divergent.sum": divergent,
        "smsp__sass_average_branch_targets_threads_uniform.pct":
            100.0 * uniform / targets if targets else 100.0,
    })
    return m


def _complete(header: dict | None) -> bool:
    filters = (header or {}).get("filters") or {}
    return not filters.get("memory_only") and all(
        filters.get(k) is None for k in ("blocks", "warps", "max_records"))


def _tables(trace: Trace) -> tuple[dict[str, pd.DataFrame], dict | None]:
    """Per-pc tables of every analysis, from one pass over the trace."""
    parts = {"inst": [], "shared": [], "global": [], "branch": []}
    header = None
    for chunk in chunks_of(trace):
        header = header or chunk.attrs.get("header")
        parts["inst"].append(inst_partial(chunk))
        parts["shared"].append(shared_partial(chunk, detail=False))
        parts["global"].append(global_partial(chunk))
        parts["branch"].append(branch_partial(chunk))
    tables = {"inst": combine(parts["inst"], minima=("min_active",)),
              "shared": combine(parts["shared"]),
              "global": combine(parts["global"]),
              "branch": combine(parts["branch"])}
    return tables, header
