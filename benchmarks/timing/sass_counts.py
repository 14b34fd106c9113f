"""How many SASS instructions the timing model issues against how many the H200 executed, per
held-out set: the model's ``smsp__inst_issued.sum`` over Nsight Compute's
``smsp__inst_executed.sum`` for every launch, read from the per-launch tables the reports wrote
(``report.py --csv``, kept in data/h200/predictions/SET.csv beside each report). The count is
the first thing to check when an issue-bound launch is off: cycles cannot come out right from
the wrong number of instructions.

    PYTHONPATH=. python3 benchmarks/timing/sass_counts.py [--dir DIR] [--worst N]

Prints per set the launches with a measured count, the median ratio, and how many are within
10% and within 25%; then all sets together, and the N launches furthest off either way.
This is a report, never an input: nothing here may be used to fit or tune the model.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parent / "data" / "h200" / "predictions"


def _order(path: Path) -> tuple[int, str]:
    m = re.search(r"(\d+)$", path.stem)
    return (int(m.group(1)) if m else 1, path.stem)


def tables(folder: Path, *columns: str):
    """(set, its per-launch table) for each table in ``folder`` that has ``columns``, in set order."""
    for f in sorted(folder.glob("*.csv"), key=_order):
        d = pd.read_csv(f)
        if all(c in d for c in columns):
            yield f.stem, d


def load(folder: Path) -> pd.DataFrame:
    frames = []
    for stem, d in tables(folder, "pred:sass", "meas:sass"):
        d = d[(d["meas:sass"] > 0) & d["pred:sass"].notna()].copy()
        d["set"] = stem
        d["sass_ratio"] = d["pred:sass"] / d["meas:sass"]
        frames.append(d[["set", "name", "sass_ratio", "ratio"]])
    if not frames:
        raise SystemExit(f"no per-launch tables with SASS counts in {folder} (report.py --csv writes them)")
    return pd.concat(frames, ignore_index=True)


def summary(d: pd.DataFrame, column: str = "sass_ratio") -> dict:
    """Launches, the median model / H200 ratio in ``column``, and how many are within 10% and 25%."""
    off = (d[column] - 1.0).abs()
    return {"launches": len(d), "median": float(d[column].median()),
            "within 10%": int((off <= 0.10).sum()), "within 25%": int((off <= 0.25).sum())}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=str(DATA))
    ap.add_argument("--worst", type=int, default=15)
    args = ap.parse_args(argv)
    d = load(Path(args.dir))
    print(f"{'set':<12} {'launches':>8} {'median':>7} {'within 10%':>11} {'within 25%':>11}")
    for name, g in d.groupby("set", sort=False):
        s = summary(g)
        print(f"{name:<12} {s['launches']:>8} {s['median']:>7.2f} {s['within 10%']:>11} {s['within 25%']:>11}")
    s = summary(d)
    print(f"{'all':<12} {s['launches']:>8} {s['median']:>7.2f} {s['within 10%']:>11} {s['within 25%']:>11}")
    print(f"\nthe {args.worst} launches furthest off (model / H200: SASS instructions, cycles):")
    far = d.assign(off=np.abs(np.log(d["sass_ratio"]))).sort_values("off", ascending=False).head(args.worst)
    for r in far.itertuples():
        print(f"  {r.set:<10} {r.name:<34} {r.sass_ratio:5.2f}x   cycles {r.ratio:5.2f}x")


if __name__ == "__main__":
    main()
