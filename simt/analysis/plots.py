"""Plots of a trace with matplotlib (an optional dependency: ``pip install 'simt[plot]'``).

Each function draws into ``ax`` when given, else into a new Figure (no pyplot, so no GUI
backend is touched); it saves to ``path`` when given and returns the Figure.
"""
from __future__ import annotations

import os

import numpy as np

from .banks import bank_conflicts, lane_bank_counts, lane_bank_rounds, worst_execution
from .loading import Trace, int_values
from .timeline import CLASSES, op_class, warp_timeline

CLASS_COLOURS = {"alu": "#4c72b0", "shared": "#dd8452", "global": "#c44e52", "branch": "#55a868",
                 "barrier": "#8172b3", "warp": "#937860"}
STALL_COLOUR = "#d9d9d9"


def plot_bank_heatmap(trace: Trace, pc: str, path: str | os.PathLike | None = None, ax=None,
                      execution: str = "worst"):
    """Lane-by-bank heatmap of one shared-memory instruction.

    ``execution="worst"`` (default) shows its costliest execution: each cell is the round in
    which the bank serves that lane's word (1 = first wavefront), so an n-way conflict shows
    as a column counting up to n. ``execution="all"`` sums over executions how often each
    lane's words fell in each bank.
    """
    if execution not in ("worst", "all"):
        raise ValueError(f"execution must be 'worst' or 'all', got {execution!r}")
    if execution == "worst":
        addr, active, width, index, total = worst_execution(trace, pc)
        cells = lane_bank_rounds(addr, active, width)
        label, which = "round (wavefront) serving the word", f"execution {index + 1} of {total}"
    else:
        cells = lane_bank_counts(trace, pc)
        label, which = "accesses", "all executions"
    fig, ax = _axes(ax, figsize=(8, 7))
    shown = np.ma.masked_equal(cells, 0)
    image = ax.imshow(shown, aspect="auto", origin="upper", cmap="viridis", interpolation="nearest",
                      vmin=min(1, int(cells.max())), vmax=max(1, int(cells.max())))
    fig.colorbar(image, ax=ax, label=label)
    ax.set_xlabel("bank")
    ax.set_ylabel("lane")
    ax.set_xticks(range(0, 32, 4))
    ax.set_yticks(range(0, 32, 4))
    info = bank_conflicts(trace, by="pc")
    row = info[info["pc"] == pc]
    title = f"shared-memory banks of {pc}, {which}"
    if len(row):
        r = row.iloc[0]
        title += f"\n{r['op']} at line {r['line']}: worst {r['n_way']}-way, {r['conflicts']} conflicts in total"
    ax.set_title(title, fontsize=10)
    return _save(fig, path)


def plot_line_conflicts(trace: Trace, path: str | os.PathLike | None = None, ax=None):
    """Shared-memory wavefronts per source line: the ideal part and the bank conflicts on top."""
    table = bank_conflicts(trace, by="line")
    fig, ax = _axes(ax, figsize=(max(4, 0.5 * len(table) + 2), 4))
    labels = [str(x) for x in table["line"]]
    x = np.arange(len(table))
    ideal = table["ideal"].to_numpy(dtype=float)
    conflicts = table["conflicts"].to_numpy(dtype=float)
    ax.bar(x, ideal, color="#4c72b0", label="ideal wavefronts")
    ax.bar(x, conflicts, bottom=ideal, color="#c44e52", label="bank conflicts")
    ax.set_xticks(x, labels)
    ax.set_xlabel("source line")
    ax.set_ylabel("wavefronts")
    ax.set_title("shared-memory wavefronts per line")
    ax.legend()
    return _save(fig, path)


def plot_warp_timeline(trace: Trace, path: str | os.PathLike | None = None, ax=None,
                       launch: int | None = None, blocks=None, max_warps: int = 64):
    """Issue timeline per warp (one row per block/warp, at most ``max_warps``): a coloured
    tick per instruction by kind, grey where the warp waited before its next issue."""
    t = warp_timeline(trace, launch, blocks)
    block, warp = int_values(t, "block"), int_values(t, "warp")
    tracks = list(dict.fromkeys(zip(block.tolist(), warp.tolist())))[:max_warps]
    fig, ax = _axes(ax, figsize=(12, max(2.5, 0.3 * len(tracks) + 1.5)))
    cycle, nxt = int_values(t, "cycle"), int_values(t, "next_cycle")
    classes = np.array([op_class(op) for op in t["op"]], dtype=object)
    for y, (b, w) in enumerate(tracks):
        rows = (block == b) & (warp == w)
        gaps = rows & (nxt > cycle + 1)
        ax.broken_barh(list(zip(cycle[gaps] + 1, nxt[gaps] - cycle[gaps] - 1)), (y - 0.4, 0.8),
                       facecolors=STALL_COLOUR)
        for kind in CLASSES:
            pick = rows & (classes == kind)
            if pick.any():
                ax.broken_barh([(c, 1) for c in cycle[pick]], (y - 0.4, 0.8),
                               facecolors=CLASS_COLOURS[kind])
    ax.set_yticks(range(len(tracks)), [f"b{b} w{w}" for b, w in tracks])
    ax.invert_yaxis()
    ax.set_xlabel("cycle")
    ax.set_title("warp issue timeline", loc="left")
    from matplotlib.patches import Patch
    handles = [Patch(color=CLASS_COLOURS[k], label=k) for k in CLASSES]
    handles.append(Patch(color=STALL_COLOUR, label="waiting"))
    ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=7,
              ncol=len(handles), frameon=False)
    return _save(fig, path)


def _axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("simt's plots need matplotlib; install it with "
                          "pip install 'simt[plot]' (or pip install matplotlib)") from None
    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def _save(fig, path):
    if path is not None:
        fig.savefig(path, dpi=100)
    return fig
