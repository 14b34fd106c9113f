"""How well the timing model reproduces its own calibration kernels (calib.py: microbenchmark
patterns written in simt). These launches were used to build the model, so this is a check
of the model's structure, not evidence of accuracy: that is validate_timing.py's job.

    PYTHONPATH=. python3 benchmarks/timing/check_calibration.py [--only name,...]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from timing import calib, compare  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    launches = [l for l in calib.LAUNCHES if not only or l.name in only]
    df = compare.join(compare.predict(launches), compare.measured("calib"))
    print(compare.table(df))
    print(f"\nMAPE {compare.mape(df[f'pred:{compare.CYC}'], df[f'meas:{compare.CYC}']):.1f}% "
          f"over {len(df)} calibration launches")


if __name__ == "__main__":
    main()
