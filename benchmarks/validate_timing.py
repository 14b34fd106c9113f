"""Predicted against measured cycles on the held-out launches: see timing/validate_timing.py.

    PYTHONPATH=. python3 benchmarks/validate_timing.py
"""
import runpy
from pathlib import Path

if __name__ == "__main__":
    runpy.run_path(str(Path(__file__).resolve().parent / "timing" / "validate_timing.py"), run_name="__main__")
