"""Nsight Compute's CSV, read by simt.calibrate.ncu_csv; ``load`` defaults to the H200's data."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from simt.calibrate.ncu_csv import read_metrics  # noqa: F401 - re-exported

DATA = Path(__file__).resolve().parent / "data" / "h200"


def load(name: str, data: Path = DATA) -> pd.DataFrame:
    """``name``'s profiler rows joined with its manifest: micro, l2cap, probes or validation."""
    from simt.calibrate.ncu_csv import load as load_from
    return load_from(name, data)
