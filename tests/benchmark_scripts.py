"""The benchmark scripts under benchmarks/timing as modules, for the tests that check the timing
model against what those scripts' microbenchmarks measured (their tables, their replays)."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timing_script(name: str):
    """benchmarks/timing/``name``.py, imported."""
    spec = importlib.util.spec_from_file_location(f"timing_{name}", ROOT / "benchmarks" / "timing" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
