"""The exceptions users see. Each names where in *their* code the problem is."""
from __future__ import annotations

import linecache

from .ir.mir import Loc


def source_excerpt(loc: Loc | None) -> str:
    """``file:line:col`` plus the source line and a caret under the column."""
    if loc is None:
        return ""
    text = linecache.getline(loc.file, loc.line).rstrip("\n")
    head = f'  File "{loc.file}", line {loc.line}, column {loc.col + 1}'
    if loc.func:
        head += f", in {loc.func}"
    if not text:
        return head
    expanded = text.expandtabs(4)
    return f"{head}\n    {expanded}\n    {' ' * loc.col}^"


class SimtError(Exception):
    """Base of every error simt raises on purpose."""


class CompileError(SimtError):
    def __init__(self, message: str, loc: Loc | None = None):
        self.message = message
        self.loc = loc
        where = f"{loc}: " if loc else ""
        excerpt = source_excerpt(loc)
        super().__init__(f"{where}error: {message}" + (f"\n{excerpt}" if excerpt else ""))


class LaunchError(SimtError):
    pass


class KernelRuntimeError(SimtError):
    """An error detected while a kernel runs: names the kernel, the line, threads and blocks."""

    def __init__(self, message: str, kernel: str = "", loc: Loc | None = None, **details):
        self.message = message
        self.kernel = kernel
        self.loc = loc
        self.details = details
        lines = [f"in kernel '{kernel}': {message}" if kernel else message]
        for k, v in details.items():
            lines.append(f"  {k}: {v}")
        excerpt = source_excerpt(loc)
        if excerpt:
            lines.append(excerpt)
        super().__init__("\n".join(lines))


class OutOfBoundsError(KernelRuntimeError):
    pass


class BarrierDivergenceError(KernelRuntimeError):
    pass


class WarpSyncError(KernelRuntimeError):
    """A *_sync warp intrinsic whose mask names lanes that did not arrive."""


class StepLimitError(KernelRuntimeError):
    """A kernel ran past the step limit: most likely a loop that never ends."""


class DeviceError(SimtError):
    pass


class LaunchWarning(UserWarning):
    """A Warp launch argument simt accepts but does not act on (``max_blocks``, ``adj_inputs``)."""


class HazardError(SimtError):
    """A launch run with ``check=...`` and ``raise_on_hazard`` found hazards. ``hazards`` is
    the DataFrame ``result.hazards`` would have held; the message holds every report."""

    def __init__(self, message: str, hazards=None):
        self.hazards = hazards
        super().__init__(message)


class MetricUnavailableError(SimtError, KeyError):
    """A launch result asked for something its engine does not report (a KeyError too, so
    ``except KeyError`` and ``dict.get``-style code keep working)."""

    def __str__(self) -> str:          # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""
