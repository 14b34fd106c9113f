"""How many warp instructions the timing model puts on the ALU pipe against how many the H200
executed there, per held-out set measured with the ALU's count (sets 13 on): the model's
``sm__inst_executed_pipe_alu.sum`` (pred:alu) over Nsight Compute's (meas:alu), and each side's
share of all its instructions (the model's issue slots, the H200's executed instructions),
read from the per-launch tables the reports wrote (``report.py --csv``, kept in
data/h200/predictions/SET.csv). The ALU takes a warp instruction every other cycle: a launch
whose ALU share is wrong is bound by the wrong thing.

    PYTHONPATH=. python3 benchmarks/timing/pipe_counts.py [--dir DIR] [--worst N]

This is a report, never an input: nothing here may be used to fit or tune the model.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from sass_counts import DATA, summary as ratio_summary, tables  # noqa: E402  (run from benchmarks/timing or with it on the path)


def load(folder: Path) -> pd.DataFrame:
    frames = []
    for stem, d in tables(folder, "pred:alu", "meas:alu"):
        d = d[(d["meas:alu"] > 0) & (d["meas:sass"] > 0) & d["pred:alu"].notna()].copy()
        if d.empty:
            continue
        d["set"] = stem
        d["alu_ratio"] = d["pred:alu"] / d["meas:alu"]
        d["share_pred"] = d["pred:alu"] / d["pred:sass"]
        d["share_meas"] = d["meas:alu"] / d["meas:sass"]
        frames.append(d[["set", "name", "alu_ratio", "share_pred", "share_meas", "ratio"]])
    if not frames:
        raise SystemExit(f"no per-launch tables with ALU counts in {folder} (report.py --csv writes them)")
    return pd.concat(frames, ignore_index=True)


def summary(d: pd.DataFrame) -> dict:
    return {**ratio_summary(d, "alu_ratio"), "share error": float((d["share_pred"] - d["share_meas"]).abs().mean())}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=str(DATA))
    ap.add_argument("--worst", type=int, default=10)
    args = ap.parse_args(argv)
    d = load(Path(args.dir))
    print(f"{'set':<10} {'launches':>8} {'median':>7} {'within 10%':>11} {'within 25%':>11} {'ALU share off':>14}")
    groups = list(d.groupby("set", sort=False)) + [("all", d)]
    for name, g in groups:
        s = summary(g)
        print(f"{name:<10} {s['launches']:>8} {s['median']:>7.2f} {s['within 10%']:>11} {s['within 25%']:>11} "
              f"{s['share error']:>14.3f}")
    print(f"\nthe {args.worst} launches furthest off (model / H200: ALU instructions; ALU share model, H200; cycles):")
    far = d.assign(off=np.abs(np.log(d["alu_ratio"]))).sort_values("off", ascending=False).head(args.worst)
    for _, r in far.iterrows():
        print(f"  {r['set']:<9} {r['name']:<28} {r['alu_ratio']:5.2f}x   {r['share_pred']:.2f} {r['share_meas']:.2f}"
              f"   cycles {r['ratio']:.2f}x")


if __name__ == "__main__":
    main()
