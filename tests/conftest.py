"""Test-wide settings: verify the MIR after every pass; with pytest-xdist, each worker
process keeps its own kernel cache, so that two workers never build the same entry at once."""
import os
from pathlib import Path

os.environ.setdefault("SIMT_VERIFY_EACH_PASS", "1")
if os.environ.get("PYTEST_XDIST_WORKER") and "SIMT_CACHE_DIR" not in os.environ:
    os.environ["SIMT_CACHE_DIR"] = str(Path.home() / ".cache" / "simt" / f"pytest-{os.environ['PYTEST_XDIST_WORKER']}")

pytest_plugins = ["simt.testing"]   # the simt_gpu marker and the simt_compare fixture
