"""Read a part measured by the clock64 fallback (no profiler) into the table ``ncu_csv.load`` gives.

A self-timed part leaves ``NAME_manifest.csv`` (as under the profiler), ``NAME_times.csv``
(``launch,ns``: CUDA events around each launch, the host's launch latency hidden behind a
clock64 spin) and, for the CUDA C parts, ``NAME.sass`` (``cuobjdump -sass`` of its program).
The columns the fit reads become:

- ``gpu__time_duration.sum``: the event time;
- ``sm__cycles_elapsed.max``: the event time less an empty launch's (micro.cu's ``floor``), in
  SM cycles at the clock clock.cu measured, plus the launch floor. Event times count the
  launch's own start and end, which the profiler's SM cycles do not; taking the empty launch's
  time off and putting the profiler's floor back keeps the cycles on the profiler's scale, and
  every slope the fit takes is the same either way;
- the counters that are not times: computed (counts.py).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import counts

CYC, TIME = "sm__cycles_elapsed.max", "gpu__time_duration.sum"
# what the fit reads in this mode, besides the parts' manifests and the loaded-latency tables
CLOCK_FILE = "clock.csv"


def times_file(name: str) -> str:
    return f"{name}_times.csv"


def clock_mhz(data: Path) -> float:
    """The SM clock from clock.cu's spins: cycles counted in-kernel against event nanoseconds."""
    df = pd.read_csv(Path(data) / CLOCK_FILE)
    if df["spin_cycles"].nunique() < 2:
        raise ValueError(f"{CLOCK_FILE}: fewer than two spin lengths")
    ns_per_cycle = float(np.polyfit(df["spin_cycles"].astype(float), df["ns"].astype(float), 1)[0])
    return 1e3 / ns_per_cycle


def _joined(name: str, data: Path) -> pd.DataFrame:
    manifest = pd.read_csv(data / f"{name}_manifest.csv")
    times = pd.read_csv(data / times_file(name))
    if len(times) != len(manifest) or list(times["launch"]) != list(manifest["launch"]):
        raise ValueError(f"{name}: {len(times)} timed launches but {len(manifest)} in the manifest")
    out = manifest.reset_index(drop=True).copy()
    out[TIME] = times["ns"].to_numpy(float)
    return out


def empty_launch_ns(data: Path) -> float:
    """The event time of an empty one-warp launch (micro.cu ``floor``, median of its repeats)."""
    df = _joined("micro", Path(data))
    return float(df[df["bench"] == "floor"][TIME].median())


def load(name: str, data: Path, clock: float, zero_ns: float, floor_cycles: float) -> pd.DataFrame:
    """``name``'s self-timed launches with the columns the fit reads (see the module docstring)."""
    data = Path(data)
    df = _joined(name, data)
    df[CYC] = (df[TIME] - zero_ns) * clock / 1e3 + floor_cycles
    if "loop_instructions" in df.columns:              # an op probe: its loop's SASS, per step
        df[counts.INST] = df["steps"] * df["loop_instructions"] / df["loop_unroll"]
    else:
        computed = counts.counters(df, counts.read_sass(data / f"{name}.sass"))
        for col in computed.columns:
            df[col] = computed[col].to_numpy()
    return df
