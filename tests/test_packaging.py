"""The dependency floors pyproject.toml declares are what the code needs, and they work.

Two checks: a static one (every numpy function simt calls exists in the declared numpy,
by the version numpy's release notes give for each function added since 1.24), and, in
CI (``CI`` set) or with ``SIMT_TEST_FLOOR=1``, tests/floor_smoke.py run in a virtual
environment holding exactly the declared lowest versions. That environment is kept under
``~/.cache/simt-test/`` (keyed by the floors), so only the first run installs it (about a
minute); a developer's run skips it unless asked.
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLOOR_PACKAGES = ("numpy", "numba", "llvmlite", "pandas", "tqdm")

# numpy functions and types added after 1.24, with the release that added them (numpy's
# release notes: 1.25.0, 2.0.0, 2.1.0, 2.2.0, 2.3.0).
NUMPY_ADDED = {
    "exceptions": "1.25", "dtypes": "1.25",
    "bitwise_count": "2.0", "bool": "2.0", "concat": "2.0", "isdtype": "2.0",
    "permute_dims": "2.0", "matrix_transpose": "2.0", "vecdot": "2.0", "pow": "2.0",
    "acos": "2.0", "acosh": "2.0", "asin": "2.0", "asinh": "2.0", "atan": "2.0",
    "atanh": "2.0", "atan2": "2.0", "bitwise_left_shift": "2.0",
    "bitwise_right_shift": "2.0", "bitwise_invert": "2.0", "long": "2.0", "ulong": "2.0",
    "trapezoid": "2.0", "astype": "2.1", "unstack": "2.1", "cumulative_sum": "2.1",
    "cumulative_prod": "2.1", "matvec": "2.2", "vecmat": "2.2",
}


def declared_floors() -> dict[str, str]:
    text = (ROOT / "pyproject.toml").read_text()
    deps = re.search(r"^dependencies = \[(.*?)\]", text, re.S | re.M).group(1)
    return {m.group(1): m.group(2) for m in re.finditer(r'"([A-Za-z0-9_.-]+)>=([0-9.]+)"', deps)}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def numpy_names_used() -> dict[str, str]:
    """``np.NAME`` attributes used anywhere in simt/, each with one file using it."""
    used = {}
    for path in (ROOT / "simt").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "np"):
                used.setdefault(node.attr, str(path.relative_to(ROOT)))
    return used


def test_numpy_functions_used_exist_in_the_declared_numpy():
    floor = _version(declared_floors()["numpy"])
    too_new = {name: (NUMPY_ADDED[name], where) for name, where in numpy_names_used().items()
               if name in NUMPY_ADDED and _version(NUMPY_ADDED[name]) > floor}
    assert not too_new, f"pyproject declares numpy>={'.'.join(map(str, floor))} but simt uses {too_new}"


def test_every_runtime_import_is_declared():
    floors = declared_floors()
    assert set(FLOOR_PACKAGES) <= set(floors)


def _floor_python() -> Path:
    floors = declared_floors()
    pins = [f"{name}=={floors[name]}.*" if floors[name].count(".") < 2 else f"{name}=={floors[name]}"
            for name in FLOOR_PACKAGES]
    key = hashlib.sha256(" ".join(pins + [sys.version]).encode()).hexdigest()[:12]
    home = Path(os.environ.get("SIMT_TEST_CACHE", Path.home() / ".cache" / "simt-test"))
    env_dir = home / f"floor-{key}"
    python = env_dir / "bin" / "python"
    if not (env_dir / "ready").exists():
        venv.create(env_dir, with_pip=True, clear=True)
        done = subprocess.run([str(python), "-m", "pip", "install", "-q", *pins],
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"installing the declared floors failed:\n{done.stderr[-3000:]}"
        (env_dir / "ready").write_text(" ".join(pins))
    return python


@pytest.mark.skipif(not (os.environ.get("CI") or os.environ.get("SIMT_TEST_FLOOR")),
                    reason="runs in CI (CI set) or with SIMT_TEST_FLOOR=1: it installs the "
                           "declared lowest versions into a virtual environment once")
def test_the_declared_lowest_versions_run(tmp_path):
    python = _floor_python()
    versions = subprocess.run([str(python), "-c", "import numpy, numba, pandas; print(numpy.__version__, "
                               "numba.__version__, pandas.__version__)"],
                              capture_output=True, text=True, timeout=120).stdout.split()
    floors = declared_floors()
    for name, got in zip(("numpy", "numba", "pandas"), versions):
        assert got.startswith(floors[name]), (name, got, floors[name])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SIMT_CACHE_DIR": str(tmp_path / "simt"),
           "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    # twice: the first process compiles and caches, the second loads the caches (numba 0.60
    # to 0.62 crashed there, in the timing machine's cached code)
    for run in ("compiling", "from the caches"):
        done = subprocess.run([str(python), str(ROOT / "tests" / "floor_smoke.py")], capture_output=True,
                              text=True, env=env, timeout=900)
        assert done.returncode == 0 and done.stdout.strip().endswith("ok"), (run, done.stdout + done.stderr)
