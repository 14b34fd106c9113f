"""``simt report banks|coalescing|divergence|lines|summary TRACE``: an analysis table on the
terminal, or as CSV (``--csv``).

``lines`` is laid out like Nsight Compute's source view: one row per source line, the line's
text beside its counters and its stall cycles. ``summary`` lists the launch's metrics: the
engine's (from the trailer) beside the ones recomputed from the records.
"""
from __future__ import annotations

import linecache
import os
import sys

import numpy as np
import pandas as pd

from .banks import bank_conflicts
from .coalescing import coalescing
from .divergence import divergence
from .loading import (FilteredTraceError, TraceFormatError, chunks_of, int_values, read_header)
from .summary import _complete, per_line, trace_metrics

HIDDEN = ("bank_words",)   # arrays: too wide for a terminal table


def lines(path, by=None) -> pd.DataFrame:
    """Per source line: ``line``, ``source`` (the text), the counters of ``per_line`` and,
    for an unfiltered trace, ``stall_cycles``: cycles each warp waited before issuing the
    line's instructions (what Nsight Compute's stall sampling attributes to them)."""
    header = read_header(path)
    table = per_line(path)
    source = _source_file(header.get("source", ""), path)
    table.insert(1, "source", [linecache.getline(source, int(n)).strip() if source and pd.notna(n)
                               else "" for n in table["line"]])
    targets = table["branch_targets_uniform"] + table["branch_targets_divergent"]
    table["branch_efficiency_pct"] = 100.0 * table["branch_targets_uniform"] / targets.where(targets > 0)
    if _complete(header):
        stalls = stall_cycles(path)
        table["stall_cycles"] = [int(stalls.get(int(n), 0)) if pd.notna(n) else 0
                                 for n in table["line"]]
    return table


def stall_cycles(trace) -> dict[int, int]:
    """Line -> cycles warps waited before issuing its instructions: per warp, the gap between
    an issue and the one before it, less the issue cycle (records of one warp are in issue
    order in the file)."""
    last: dict[tuple[int, int, int], int] = {}
    totals: dict[int, int] = {}
    for chunk in chunks_of(trace):
        if not len(chunk):
            continue
        key = np.stack([int_values(chunk, c) for c in ("launch", "block", "warp")], axis=1)
        cycle, line = int_values(chunk, "cycle"), int_values(chunk, "line")
        order = np.lexsort((np.arange(len(chunk)), key[:, 2], key[:, 1], key[:, 0]))
        key, cycle, line = key[order], cycle[order], line[order]
        first = np.ones(len(chunk), dtype=bool)
        first[1:] = (key[1:] != key[:-1]).any(axis=1)
        previous = np.empty_like(cycle)
        previous[1:] = cycle[:-1]
        for i in np.flatnonzero(first).tolist():
            previous[i] = last.get(tuple(key[i].tolist()), cycle[i] - 1)
        ends = np.append(np.flatnonzero(first)[1:] - 1, len(chunk) - 1)
        for i in ends.tolist():
            last[tuple(key[i].tolist())] = int(cycle[i])
        gaps = np.maximum(cycle - previous - 1, 0)
        lines_, sums = np.unique(line, return_inverse=True)
        per = np.bincount(sums, weights=gaps, minlength=lines_.size)
        for ln, g in zip(lines_.tolist(), per.tolist()):
            totals[ln] = totals.get(ln, 0) + int(g)
    return totals


def summary(path, by=None) -> pd.DataFrame:
    """metric, engine (the trailer's value), trace (recomputed from the records)."""
    ours = trace_metrics(path)
    end = _trailer(path)
    engine = (end or {}).get("metrics", {})
    names = list(dict.fromkeys([*engine, *ours]))
    frame = pd.DataFrame({"metric": names,
                          "engine": pd.Series([_number(engine.get(n)) for n in names], dtype=object),
                          "trace": pd.Series([_number(ours.get(n)) for n in names], dtype=object)})
    limit = (end or {}).get("bottleneck")
    if limit:        # the timing model's answer to "what limits it", first
        row = pd.DataFrame({"metric": ["bottleneck"], "engine": [
            f"{limit['limiter']} ({limit['pct_of_peak']:.0f}% of peak): {limit['why']}"], "trace": [np.nan]})
        frame = pd.concat([row, frame], ignore_index=True)
    return frame


def _number(v):
    """Integral values as ints (so tables print 3232, not 3232.00); NaN when absent."""
    if v is None:
        return np.nan
    return int(v) if float(v).is_integer() else float(v)


def _trailer(path):
    end = None
    for chunk in chunks_of(path):
        end = chunk.attrs.get("end") or end
    return end


def _source_file(source: str, trace_path) -> str:
    """The kernel's file: as recorded, or relative to here or to the trace's folders."""
    if not source:
        return ""
    if os.path.isabs(source):
        return source if os.path.exists(source) else ""
    folder = os.path.dirname(os.path.abspath(trace_path))
    for base in (os.getcwd(), folder, os.path.dirname(folder)):
        candidate = os.path.join(base, source)
        if os.path.exists(candidate):
            return candidate
    return ""


REPORTS = {
    "banks": ("shared-memory bank conflicts", bank_conflicts, "pc"),
    "coalescing": ("global-memory coalescing", coalescing, "line"),
    "divergence": ("branch divergence", divergence, "pc"),
    "lines": ("per source line", lines, None),
    "summary": ("metrics", summary, None),
}


def report(what: str, path: str, by: str | None = None, out=None, csv: bool = False) -> int:
    """Print one analysis of the trace at ``path``; 0 on success, 2 for a bad trace."""
    out = out or sys.stdout
    title, analyse, default_by = REPORTS[what]
    try:
        header = read_header(path)
        table = analyse(path, by=by or default_by)
    except (OSError, TraceFormatError, FilteredTraceError) as e:
        print(f"simt report: {e}", file=sys.stderr)
        return 2
    shown = table.drop(columns=[c for c in HIDDEN if c in table])
    if csv:
        shown.to_csv(out, index=False)
        return 0
    kernel = header.get("kernel", "?")
    print(f"{title} of kernel '{kernel}' (launch {header.get('launch', 0)}, {path})", file=out)
    if table.empty:
        print("  (no matching instructions in the trace)", file=out)
        return 0
    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 250, "display.max_colwidth", 60,
                           "display.float_format", "{:.2f}".format):
        formatters = {}
        if "source" in shown:    # text reads left-aligned, as in a source view
            width = int(shown["source"].str.len().max() or 0)
            formatters["source"] = lambda text: f"{text:<{width}}"
        print(shown.to_string(index=False, formatters=formatters, na_rep="-"), file=out)
    return 0
