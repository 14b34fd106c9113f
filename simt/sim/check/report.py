"""Hazard reports: one per pair of source lines (races), per line (uninitialised reads) or
per barrier or warp intrinsic (sync errors), worded like the rest of simt's runtime errors.

compute-sanitizer prints ``Race reported between Write access at k+0xc0 in san.cu:23 and
Read access at k+0xf0 in san.cu:24 [256 hazards]``. simt names both lines with a caret
under the code, the array with its shape and dtype, an index, and both threads and blocks.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import source_excerpt
from ...ir.mir import Loc, MemRef

COLUMNS = ("check", "kind", "kernel", "line", "other_line", "array", "space", "index", "thread",
           "block", "other_thread", "other_block", "count", "report")

KIND_WORDS = {"RAW": "read-after-write", "WAR": "write-after-read", "WAW": "write-after-write",
              "WAW_LANES": "same-instruction write conflict",
              "uninitialized_read": "uninitialized read", "divergent_barrier": "divergent barrier",
              "warp_sync_mask": "invalid warp-synchronous mask"}
TOOL = {"race": "racecheck", "init": "initcheck", "sync": "synccheck"}


@dataclass
class Hazard:
    """One reported hazard: a row of ``result.hazards`` plus the text a user reads."""
    check: str                   # race, init, sync
    kind: str                    # RAW, WAR, WAW, WAW_LANES, uninitialized_read, divergent_barrier, warp_sync_mask
    kernel: str
    loc: Loc | None              # the (later) access, the read, the barrier
    other_loc: Loc | None = None  # the earlier access of a race; where missing threads wait
    array: str | None = None      # the array's name
    space: str | None = None      # shared, global
    index: str | None = None
    thread: dict = field(default_factory=dict)        # describe_thread() of the thread at loc
    other_thread: dict = field(default_factory=dict)  # ... of the thread at other_loc
    count: int = 1
    detail: str = ""            # one more sentence for the report
    array_desc: str = ""        # name, dtype and shape, for the report

    @property
    def line(self) -> int | None:
        return self.loc.line if self.loc else None

    @property
    def other_line(self) -> int | None:
        return self.other_loc.line if self.other_loc else None

    def row(self) -> dict:
        return {"check": self.check, "kind": self.kind, "kernel": self.kernel, "line": self.line,
                "other_line": self.other_line, "array": self.array, "space": self.space,
                "index": self.index, "thread": self.thread.get("thread"),
                "block": self.thread.get("block"), "other_thread": self.other_thread.get("thread"),
                "other_block": self.other_thread.get("block"), "count": self.count,
                "report": self.text()}

    def text(self) -> str:
        if self.check == "race":
            return self._race_text()
        if self.check == "init":
            return self._init_text()
        return self._sync_text()

    # ---- wording -----------------------------------------------------------------------
    def _race_text(self) -> str:
        first, second = {"RAW": ("write", "read"), "WAR": ("read", "write"),
                         "WAW": ("write", "write"), "WAW_LANES": ("write", "write")}[self.kind]
        plural = "hazard" if self.count == 1 else "hazards"
        lines = [f"racecheck: {KIND_WORDS[self.kind]} hazard in kernel '{self.kernel}' on "
                 f"{self.space} array {self.array_desc or self.array} at index {self.index} [{self.count} {plural}]",
                 f"  {first} by {_who(self.other_thread)}"]
        lines += _indent(source_excerpt(self.other_loc))
        lines.append(f"  {second} by {_who(self.thread)}")
        lines += _indent(source_excerpt(self.loc))
        if self.detail:
            lines.append(f"  {self.detail}")
        return "\n".join(lines)

    def _init_text(self) -> str:
        plural = "read" if self.count == 1 else "reads"
        lines = [f"initcheck: uninitialized read in kernel '{self.kernel}' of {self.space} array "
                 f"{self.array_desc or self.array} at index {self.index} [{self.count} {plural} on this line]",
                 f"  first read by {_who(self.thread)}"]
        lines += _indent(source_excerpt(self.loc))
        if self.detail:
            lines.append(f"  {self.detail}")
        return "\n".join(lines)

    def _sync_text(self) -> str:
        lines = [f"synccheck: {KIND_WORDS[self.kind]} in kernel '{self.kernel}' "
                 f"[{self.count} thread{'' if self.count == 1 else 's'}]",
                 f"  {self.detail}", f"  first offending thread: {_who(self.thread)}"]
        lines += _indent(source_excerpt(self.loc))
        return "\n".join(lines)


def _who(details: dict) -> str:
    if not details:
        return "an unknown thread"
    return f"{details['thread']} in {details['block']} (tid {details['tid']})"


def _indent(excerpt: str) -> list[str]:
    return ["  " + line for line in excerpt.splitlines()] if excerpt else []


def describe_array(mem: MemRef, shape) -> str:
    return f"'{mem.name}' ({mem.dtype_name or mem.elem.value}, shape {tuple(shape)})"


def describe_index(mem: MemRef, shape, flat: int) -> str:
    """A scalar offset as the element index the kernel wrote (plus the component if any)."""
    elem, comp = divmod(int(flat), mem.ncomp)
    shape = tuple(int(s) for s in shape)
    if len(shape) > 1 and 0 <= elem < _prod(shape):
        coords, rest = [], elem
        for extent in reversed(shape):
            coords.append(rest % extent)
            rest //= extent
        text = "[" + ", ".join(str(c) for c in reversed(coords)) + "]"
    else:
        text = str(elem)
    return text + (f" (component {comp})" if mem.ncomp > 1 else "")


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def frame(hazards: list[Hazard]):
    """The hazards as a pandas DataFrame (the columns of COLUMNS; no rows when clean)."""
    import pandas as pd
    rows = [h.row() for h in hazards]
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    for col in ("line", "other_line"):
        df[col] = df[col].astype("Int64")
    df["count"] = df["count"].astype("int64")
    return df


def summary(hazards: list[Hazard]) -> str:
    """Every report, then a count per check: what the CLI and simt.testing print."""
    if not hazards:
        return ""
    parts = [h.text() for h in hazards]
    by_check: dict[str, int] = {}
    for h in hazards:
        by_check[TOOL[h.check]] = by_check.get(TOOL[h.check], 0) + 1
    tally = ", ".join(f"{tool}: {n} report{'s' if n != 1 else ''}" for tool, n in by_check.items())
    return "\n\n".join(parts) + f"\n\n{tally}"
