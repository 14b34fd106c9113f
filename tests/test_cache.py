"""The fast engine's kernel cache: it loads no code it cannot vouch for (unsafe directories,
planted or corrupt numba pickles, planted .pyc files), rebuilds damaged entries once, keeps
under a size cap, and first launches from many threads are safe on every engine."""
from __future__ import annotations

import importlib._bootstrap_external as bootstrap
import os
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import simt
from simt import testing
from simt.sim.fast import cache

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("SIMT_CACHE_DIR", str(root))
    yield root
    cache.forget_loaded()


@simt.kernel
def scale(x: simt.array(dtype=float), k: float):
    i = simt.tid()
    x[i] = float(i) * k


def _launch_fresh(device="cpu", k=2.0, n=256, **kwargs):
    """A first launch: a kernel object nobody compiled yet (same source as ``scale``)."""
    kernel = simt.Kernel(scale.py_func)
    x = simt.zeros(n, device=device if device.startswith("cuda") else None)
    simt.launch(kernel, n, [x, k], device=device, **kwargs)
    return np.array_equal(x.numpy(), np.arange(n, dtype=np.float32) * np.float32(k))


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
def test_unsafe_cache_directories_are_refused(cache_root):
    cache_root.mkdir(mode=0o700)
    os.chmod(cache_root, 0o777)
    with pytest.warns(cache.CacheWarning, match="can be written by group and others"):
        assert _launch_fresh()
    assert not (cache_root / "fast").exists() or not cache.entries(cache_root / "fast")
    assert cache.cache_dir() != cache_root / "fast"
    os.chmod(cache_root, 0o700)
    assert cache.insecure_dir(cache_root) is None
    if os.getuid() == 0:                     # root can hand a directory to someone else
        os.chown(cache_root, 12345, 12345)
        assert "belongs to another user (uid 12345)" in cache.insecure_dir(cache_root)


CHILD = """
import sys
import numpy as np
import simt

@simt.kernel
def planted_pickle(x: simt.array(dtype=float)):
    i = simt.tid()
    x[i] = float(i) + 1.0

@simt.kernel
def planted_pyc(x: simt.array(dtype=float)):
    i = simt.tid()
    x[i] = float(i) + 2.0

@simt.kernel
def truncated_index(x: simt.array(dtype=float)):
    i = simt.tid()
    x[i] = float(i) + 3.0

for add, kernel in enumerate((planted_pickle, planted_pyc, truncated_index), 1):
    x = simt.zeros(64)
    simt.launch(kernel, 64, [x], device="cpu")
    assert (x.numpy() == np.arange(64) + add).all(), kernel.key
print("ok")
"""

EVIL = "import pathlib; pathlib.Path({marker!r}).write_text('foreign code ran')"


class _Planted:
    """A pickle that runs EVIL when loaded."""
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (exec, (EVIL.format(marker=self.marker),))


def _run_child(script: Path, root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "SIMT_CACHE_DIR": str(root), "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_CACHE_DIR", None)      # the test plants files where numba keeps them by default
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          timeout=300)


def test_planted_and_corrupt_entries_are_not_loaded_but_rebuilt(tmp_path):
    import pickle
    root = tmp_path / "cache"
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD))
    first = _run_child(script, root)
    assert first.stdout.strip() == "ok", first.stderr
    fast = root / "fast"
    entry = {p.name.split("_")[1] + "_" + p.name.split("_")[2]: p.stem
             for p in fast.glob("k_*.py")}
    pickle_entry = next(v for k, v in entry.items() if k.startswith("planted_pickle"))
    pyc_entry = next(v for k, v in entry.items() if k.startswith("planted_pyc"))
    index_entry = next(v for k, v in entry.items() if k.startswith("truncated_index"))
    markers = [tmp_path / "pickle_ran", tmp_path / "pyc_ran"]
    # 1. every numba data file of one entry replaced by a pickle that runs code
    for nbc in (fast / "__pycache__").glob(f"{pickle_entry}.*.nbc"):
        nbc.write_bytes(pickle.dumps(_Planted(str(markers[0]))))
        os.chmod(nbc, 0o600)
    # 2. a .pyc that Python's import system would accept for the source (mtime and size)
    source = fast / f"{pyc_entry}.py"
    st = source.stat()
    code = compile(EVIL.format(marker=str(markers[1])), str(source), "exec")
    pyc = fast / "__pycache__" / f"{pyc_entry}.{sys.implementation.cache_tag}.pyc"
    pyc.write_bytes(bootstrap._code_to_timestamp_pyc(code, st.st_mtime, st.st_size))
    # 3. numba's index cut short
    nbi = next((fast / "__pycache__").glob(f"{index_entry}.*.nbi"))
    nbi.write_bytes(nbi.read_bytes()[:40])
    second = _run_child(script, root)
    assert second.stdout.strip() == "ok", second.stderr
    assert not any(m.exists() for m in markers), "foreign code ran"
    assert second.stderr.count("rebuilt the cached kernel") == 2, second.stderr   # 1. and 3.
    assert pickle_entry in second.stderr and index_entry in second.stderr
    third = _run_child(script, root)                 # rebuilt once: quiet from now on
    assert third.stdout.strip() == "ok" and "rebuilt" not in third.stderr, third.stderr


def _kernel_number(folder: Path, k: int):
    """A kernel of its own (its own cache entry): ``x[i] = i * k``."""
    import runpy
    path = folder / f"sized{k}.py"
    path.write_text(textwrap.dedent(f"""
        import simt

        @simt.kernel
        def sized{k}(x: simt.array(dtype=float)):
            i = simt.tid()
            x[i] = float(i) * {k}.0
    """))
    return runpy.run_path(str(path))[f"sized{k}"]


def test_cache_stays_under_its_size_cap(cache_root, monkeypatch, tmp_path):
    sizes = []
    for k in (1, 2, 3, 4):
        simt.launch(_kernel_number(tmp_path, k), 64, [simt.zeros(64)], device="cpu")
        cache.forget_loaded()                               # as if each came from its own run
        sizes.append(sum(e["bytes"] for e in cache.entries().values()))
    one = sizes[0]
    assert sizes[-1] >= 3.5 * one                           # four entries, no cap yet
    monkeypatch.setenv("SIMT_CACHE_MAX_MB", str(2.5 * one / 1e6))
    simt.launch(_kernel_number(tmp_path, 5), 64, [simt.zeros(64)], device="cpu")
    found = cache.entries()
    assert sum(e["bytes"] for e in found.values()) <= 2.5 * one
    assert any(name.startswith("k_sized5_") for name in found)       # the newest stays
    assert not any(name.startswith("k_sized1_") for name in found)   # the oldest went first


@pytest.mark.parametrize("device", ["cpu", "cpu:precise", "cpu:trace", "cuda"])
def test_first_launches_from_many_threads(device, cache_root, tmp_path):
    if device == "cuda" and testing.gpu_unavailable():
        pytest.skip(f"no GPU: {testing.gpu_unavailable()}")
    for attempt in ("cold", "warm"):
        cache.forget_loaded()
        results = []

        def go(j):
            try:
                trace = {"trace": str(tmp_path / f"t{attempt}{j}.jsonl")} if device == "cpu:trace" else {}
                results.append(_launch_fresh(device, k=float(j), **trace))
            except Exception as e:  # noqa: BLE001 - reported below
                results.append(repr(e))

        threads = [threading.Thread(target=go, args=(j,)) for j in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [True] * 8, (attempt, results)


LOCKED_CHILD = """
import sys
import numpy as np
import simt

@simt.kernel
def locked_scale(x: simt.array(dtype=float), k: float):
    i = simt.tid()
    x[i] = float(i) * k + 1.0

print("imported", flush=True)
sys.stdin.readline()                      # the parent says when to launch
x = simt.zeros(64)
simt.launch(locked_scale, 64, [x, 3.0], device="cpu")
print("ok" if np.array_equal(x.numpy(), np.arange(64, dtype=np.float32) * 3 + 1) else "wrong", flush=True)
"""


@pytest.mark.skipif(cache.fcntl is None, reason="advisory file locks (POSIX)")
def test_a_process_waits_while_another_holds_the_entry(tmp_path, monkeypatch):
    """Processes building or checking one kernel's entry take turns (an advisory lock per
    entry), so none reads files another is still writing or sealing: while this process holds
    the entry's lock, a child launching that kernel stays blocked; released, it finishes, with
    the right result and no cache warning."""
    root = tmp_path / "cache"
    script = tmp_path / "child.py"
    script.write_text(LOCKED_CHILD)
    env = {**os.environ, "SIMT_CACHE_DIR": str(root), "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_CACHE_DIR", None)

    def child():
        return subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    first = child()                       # builds and seals the entry: its name is on disk
    out, err = first.communicate("\n", timeout=300)
    assert out.split() == ["imported", "ok"], err
    name = next((root / "fast").glob("k_locked_scale_*.py")).stem
    monkeypatch.setenv("SIMT_CACHE_DIR", str(root))
    second = child()
    try:
        assert second.stdout.readline().strip() == "imported"
        with cache._entry_lock(name):
            second.stdin.write("\n")
            second.stdin.flush()
            with pytest.raises(subprocess.TimeoutExpired):
                second.wait(timeout=5)    # a warm launch takes well under a second
        out, err = second.communicate(timeout=300)
    finally:
        second.kill()
    assert out.strip() == "ok", err
    assert "CacheWarning" not in err
