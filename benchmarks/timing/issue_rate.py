"""How fast the H200 issues in the launches the model calls issue-bound: per launch of the
blind sets whose saved report names ``issue`` as the model's limiter, the model's ratio to the
measured cycles beside the H200's SM cycles per warp instruction per scheduler
(sm__cycles_elapsed.max x SMs x 4 / smsp__inst_executed.sum) and its achieved occupancy.
A diagnosis from saved files (data/h200/SET.csv and SET_report.txt); predicts nothing.

    PYTHONPATH=. python3 benchmarks/timing/issue_rate.py
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from timing import ncu  # noqa: E402
from timing.readme_tables import SETS  # noqa: E402

SMS, SCHEDULERS = 132, 4
_ROW = re.compile(r"^(\S+)\s+([\d,]+)\s+([\d,]+)\s+([\d.]+)\s+([\d,]+)\s+([\d.]+)\s+(\w+)")
OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"


def rows() -> pd.DataFrame:
    out = []
    for s in SETS:
        report = ncu.DATA / f"{s}_report.txt"
        if not report.exists():
            continue
        limiter = {}
        for line in report.read_text().splitlines():
            m = _ROW.match(line)
            if m:
                limiter[m.group(1)] = (float(m.group(4)), m.group(7))
        for _, r in ncu.load(s).iterrows():
            ratio, unit = limiter.get(r["name"], (None, None))
            if unit == "issue":
                cpi = r["sm__cycles_elapsed.max"] * SMS * SCHEDULERS / r["smsp__inst_executed.sum"]
                out.append((s, r["name"], ratio, cpi, r.get(OCC, np.nan)))
    return pd.DataFrame(out, columns=["set", "launch", "model/H200", "H200 cycles per instruction", "occupancy %"])


def main() -> None:
    d = rows()
    pd.set_option("display.width", 160)
    print(d.sort_values("model/H200").to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    busy = d[d["occupancy %"] >= 85]
    print(f"\n{len(d)} launches the model calls issue-bound: model/H200 median {d['model/H200'].median():.2f}")
    print(f"at >= 85% achieved occupancy ({len(busy)}): the H200's cycles per warp instruction per scheduler "
          f"median {busy['H200 cycles per instruction'].median():.2f}, range "
          f"{busy['H200 cycles per instruction'].min():.2f} - {busy['H200 cycles per instruction'].max():.2f}; "
          f"model/H200 median {busy['model/H200'].median():.2f}")


if __name__ == "__main__":
    main()
