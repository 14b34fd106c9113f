"""A launch's timeline as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and
chrome://tracing open: one process per block, one thread (track) per warp, a slice per
issued instruction and a ``stall`` slice for every gap before the warp's next issue.

Timestamps are cycles written as microseconds (the viewer's "1 us" is one cycle); the
``otherData`` metadata says so.
"""
from __future__ import annotations

import gc
import gzip
import json
import os
from contextlib import contextmanager

from .loading import Trace
from .timeline import op_class, warp_timeline


def to_perfetto(trace: Trace, path: str | os.PathLike | None = None, launch: int | None = None,
                blocks=None) -> dict:
    """The trace-event JSON object of one launch (default: the first); written to ``path``
    when given (gzip when it ends in .gz)."""
    t = warp_timeline(trace, launch, blocks)
    header = _header_of(trace)
    with _no_gc():
        doc = _document(t, header, launch)
    if path is not None:
        opener = gzip.open if os.fspath(path).endswith(".gz") else open
        with opener(path, "wt") as f:
            f.write(json.dumps(doc, separators=(",", ":")))   # dumps: the C encoder, unlike dump
    return doc


def _document(t, header: dict | None, launch: int | None) -> dict:
    events: list[dict] = []
    seen_blocks: set[int] = set()
    seen_warps: set[tuple[int, int]] = set()
    cols = [t[c].tolist() for c in ("block", "warp", "cycle", "next_cycle", "op", "pc", "line",
                                    "active", "mask")]
    for block, warp, cycle, nxt, op, pc, line, active, mask in zip(*cols):
        if block not in seen_blocks:
            seen_blocks.add(block)
            events.append({"name": "process_name", "ph": "M", "pid": block, "tid": 0,
                           "args": {"name": f"block {block}"}})
            events.append({"name": "process_sort_index", "ph": "M", "pid": block, "tid": 0,
                           "args": {"sort_index": block}})
        if (block, warp) not in seen_warps:
            seen_warps.add((block, warp))
            events.append({"name": "thread_name", "ph": "M", "pid": block, "tid": warp,
                           "args": {"name": f"warp {warp}"}})
        events.append({"name": op, "cat": op_class(op), "ph": "X", "ts": cycle, "dur": 1,
                       "pid": block, "tid": warp,
                       "args": {"pc": pc, "line": _plain(line), "active": _plain(active),
                                "mask": f"0x{int(mask):08x}" if _plain(mask) is not None else None}})
        if nxt > cycle + 1:
            events.append({"name": "stall", "cat": "stall", "ph": "X", "ts": cycle + 1,
                           "dur": nxt - cycle - 1, "pid": block, "tid": warp,
                           "args": {"after": op, "after_pc": pc, "cycles": nxt - cycle - 1}})
    return {
        "traceEvents": events,
        "otherData": {
            "time_unit": "cycles: 1 us on the timeline = 1 simulated cycle",
            "kernel": (header or {}).get("kernel"),
            "launch": int(t["launch"].iloc[0]) if len(t) else launch,
            "arch": (header or {}).get("arch"),
            "tracks": "process = block, thread = warp",
            "filters": (header or {}).get("filters"),   # a filtered trace shows filtered gaps
        },
    }


@contextmanager
def _no_gc():
    """Hundreds of thousands of small dicts make the cyclic collector run constantly; none of
    them can form a cycle, so it is paused while they are built."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _plain(value):
    """A JSON-ready int (None for a missing value)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _header_of(trace) -> dict | None:
    attrs = getattr(trace, "attrs", None)
    if attrs is not None:
        return attrs.get("header")
    if isinstance(trace, (str, os.PathLike)):
        from .loading import read_header
        return read_header(trace)
    return None
