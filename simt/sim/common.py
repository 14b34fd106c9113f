"""What every engine receives for a launch and what it gives back."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.mir import LaunchSig


@dataclass(frozen=True)
class LaunchConfig:
    """A launch's geometry in CUDA order (x fastest) plus the user's ``dim`` in numpy order."""
    dim: tuple[int, ...]                 # total threads per dimension, numpy order (last fastest)
    block: tuple[int, int, int]          # threads per block, CUDA (x, y, z)
    grid: tuple[int, int, int]           # blocks per grid, CUDA (x, y, z)
    sig: LaunchSig
    arch: str = "sm_90"
    max_steps: int = 1_000_000           # basic blocks one warp may execute before StepLimitError
    timing: bool = True                  # run the precise engine's timing model and memory counters
    progress: bool = False               # report progress on stderr during long launches
    checks: frozenset = frozenset()      # sanitizers to run: "race", "init", "sync" (simt/sim/check)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def num_blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


@dataclass
class ArrayArg:
    """An array bound to an ArrayParam: a flat, contiguous buffer of scalars, written in place."""
    data: np.ndarray                     # 1-D view of the scalars (composites flattened)
    shape: tuple[int, ...]               # element shape as the kernel indexes it
    base_addr: int                       # simulated device address, 256-byte aligned
    name: str = ""                       # the parameter name, for error messages
    unwritten: np.ndarray | None = None  # initcheck: True per scalar never written (simt.empty)


@dataclass
class LaunchResult:
    """Returned by ``simt.launch``: ``metrics`` maps Nsight Compute metric names to values."""
    kernel: str
    device: str
    metrics: dict[str, float] = field(default_factory=dict)
    details: dict = field(default_factory=dict)   # per-line table, per-SM/per-block cycles, stalls

    @property
    def cycles(self) -> int:
        """Predicted kernel duration in SM cycles (``sm__cycles_elapsed.max``)."""
        return int(self.metrics["sm__cycles_elapsed.max"])

    @property
    def lines(self):
        """Everything the engine counted, per source line (a pandas DataFrame)."""
        table = self.details["lines"]
        if callable(table):               # the engine builds it on first use
            table = self.details["lines"] = table()
        return table

    @property
    def stalls(self) -> dict:
        return self.details["stalls"]

    @property
    def hazards(self):
        """What ``check=...`` found: a pandas DataFrame, one row per report (none when clean
        or when the launch ran no checks); see simt/sim/check/report.py for the columns."""
        from .check.report import frame
        return frame(self.details.get("hazards", []))

    def __getitem__(self, key: str) -> float:
        return self.metrics[key]

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={v:g}" for k, v in self.metrics.items()
                          if isinstance(v, (int, float)))
        return f"LaunchResult({self.kernel!r} on {self.device}: {items})"
