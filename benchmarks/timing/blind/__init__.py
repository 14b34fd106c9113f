"""The first blind validation set (cases.py, kernels.py) and the tools every blind set shares."""
from pathlib import Path

# every blind set: a folder of benchmarks/timing named blind, blind2, blind3, ... with a cases.py
SETS = sorted((p.name for p in Path(__file__).resolve().parent.parent.glob("blind*") if (p / "cases.py").is_file()),
              key=lambda name: int(name[len("blind"):] or 1))
