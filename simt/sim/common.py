"""What every engine receives for a launch and what it gives back."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import MetricUnavailableError
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
    timing_sample: bool = True           # ... replaying a sample of the SMs for big launches
    timing_sass: bool = True             # ... and unrolled loops in ptxas's order (timing/sass_replay.py)
    progress: bool = False               # progress bars for long launches (simt/progress.py)
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
    allocation: int | None = None        # where the allocation holding it starts (None: base_addr)


PRECISE_DEVICES = ("cpu:precise", "cpu:trace")


class ResultMetrics(dict):
    """Metric name -> value; a missing name raises MetricUnavailableError saying which engine
    reports it (the fast engine and a GPU report few counters; timing needs the timing model)."""

    def __init__(self, values, explain):
        super().__init__(values)
        self._explain = explain

    def __missing__(self, key):
        raise self._explain(repr(key))


@dataclass
class LaunchResult:
    """Returned by ``simt.launch``: ``metrics`` maps Nsight Compute metric names to values."""
    kernel: str
    device: str
    metrics: dict[str, float] = field(default_factory=dict)
    details: dict = field(default_factory=dict)   # per-line table, per-SM/per-block cycles, stalls

    def __post_init__(self):
        self.metrics = ResultMetrics(self.metrics, self.unavailable)

    def unavailable(self, what: str) -> MetricUnavailableError:
        """The error for ``what`` (a metric or a property) missing from this launch."""
        where = f"kernel '{self.kernel}' on '{self.device}'"
        precise = "the precise engine (device 'cpu:precise' or 'cpu:trace')"
        if self.device == "cpu":
            why = (f"{what} is reported by {precise}; the fast engine ('cpu') runs kernels "
                   f"without counting anything but launch__* sizes")
        elif self.device.startswith("cuda"):
            why = (f"{what} is predicted by {precise}; a GPU launch reports its measured "
                   f"gpu__time_duration.sum only (profile it with Nsight Compute for more)")
        elif not self.metrics:
            why = f"{what} is not there: the launch had no threads, so nothing ran or was counted"
        elif "stalls" not in self.details and self.device in PRECISE_DEVICES:
            why = (f"{what} comes from the timing model, which was off for this launch "
                   f"(module option 'timing': False); turn it on to get cycles, stalls and "
                   f"memory counters")
        else:
            import difflib
            close = difflib.get_close_matches(what.strip("'"), list(self.metrics), n=3)
            hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
            why = f"no metric {what}{hint}; this launch reports {len(self.metrics)}: see r.metrics.keys()"
        return MetricUnavailableError(f"{where}: {why}")

    @property
    def cycles(self) -> int:
        """Predicted kernel duration in SM cycles (``sm__cycles_elapsed.max``)."""
        if "sm__cycles_elapsed.max" not in self.metrics:
            raise self.unavailable("r.cycles ('sm__cycles_elapsed.max')")
        return int(self.metrics["sm__cycles_elapsed.max"])

    @property
    def lines(self):
        """Everything the engine counted, per source line (a pandas DataFrame)."""
        if "lines" not in self.details:
            raise self.unavailable("r.lines (the per-line table)")
        table = self.details["lines"]
        if callable(table):               # the engine builds it on first use
            table = self.details["lines"] = table()
        return table

    @property
    def stalls(self) -> dict:
        if "stalls" not in self.details:
            raise self.unavailable("r.stalls (stall cycles by reason)")
        return self.details["stalls"]

    @property
    def bottleneck(self) -> dict:
        """What limits the launch, as Nsight Compute's speed-of-light section would name it:
        ``limiter`` (issue, a pipe, shared, l1, l2, dram, atomics, or launch, latency,
        occupancy, barriers), ``pct_of_peak`` (how busy the busiest unit is), ``why`` (a
        sentence) and ``units`` (every unit's percent of peak over the kernel's cycles)."""
        if "bottleneck" not in self.details:
            raise self.unavailable("r.bottleneck (the limiting resource)")
        return self.details["bottleneck"]

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
