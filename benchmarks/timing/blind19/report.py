"""The timing model on the nineteenth blind set: ../blind/report.py with ``--set blind19`` (see
there and README.md here). Writes data/h200/blind19_report.txt; exits with a message, predicting
nothing, while data/h200/blind19.csv does not exist.

    PYTHONPATH=. python3 benchmarks/timing/blind19/report.py [--only a,b] [--out FILE] [--csv FILE]
"""
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent.parent)]

from timing.blind.report import main  # noqa: E402

if __name__ == "__main__":
    main(default_set="blind19")
