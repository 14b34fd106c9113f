"""``simt report banks|coalescing|divergence TRACE``: an analysis table on the terminal."""
from __future__ import annotations

import sys

import pandas as pd

from .banks import bank_conflicts
from .coalescing import coalescing
from .divergence import divergence
from .loading import TraceFormatError, read_header

REPORTS = {
    "banks": ("shared-memory bank conflicts", bank_conflicts, "pc"),
    "coalescing": ("global-memory coalescing", coalescing, "line"),
    "divergence": ("branch divergence", divergence, "pc"),
}
HIDDEN = ("bank_words",)   # arrays: too wide for a terminal table


def report(what: str, path: str, by: str | None = None, out=None) -> int:
    """Print one analysis of the trace at ``path``; 0 on success, 2 for a bad trace."""
    out = out or sys.stdout
    title, analyse, default_by = REPORTS[what]
    try:
        header = read_header(path)
        table = analyse(path, by=by or default_by)
    except (OSError, TraceFormatError) as e:
        print(f"simt report: {e}", file=sys.stderr)
        return 2
    kernel = header.get("kernel", "?")
    print(f"{title} of kernel '{kernel}' (launch {header.get('launch', 0)}, {path})", file=out)
    if table.empty:
        print("  (no matching instructions in the trace)", file=out)
        return 0
    shown = table.drop(columns=[c for c in HIDDEN if c in table])
    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 200, "display.float_format", "{:.2f}".format):
        print(shown.to_string(index=False), file=out)
    return 0
