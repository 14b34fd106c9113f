"""numba's caches of simt's compiled functions are keyed on all of simt's numba code, so that
a change to a callee's module (inlined into its callers' machine code) recompiles them."""
import re
from pathlib import Path

from simt import numba_cache

ROOT = Path(numba_cache.ROOT)


def test_every_module_with_cached_numba_code_installs_the_locator_first():
    for path in ROOT.rglob("*.py"):
        text = path.read_text()
        if path.name == "numba_cache.py" or not re.search(r"^@njit\(.*cache=True", text, re.M):
            continue
        lines = text.splitlines()
        first_numba = next(i for i, l in enumerate(lines) if re.match(r"(from numba import|import numba\b)", l))
        ours = next((i for i, l in enumerate(lines) if l.startswith("from simt import numba_cache")), None)
        assert ours is not None and ours < first_numba, path


def test_the_stamp_follows_numba_code_only(tmp_path):
    (tmp_path / "pkg").mkdir()
    callee = tmp_path / "pkg" / "memsys.py"
    caller = tmp_path / "machine.py"
    other = tmp_path / "launch.py"
    callee.write_text("from numba import njit\n@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    caller.write_text("from numba import njit\nfrom pkg.memsys import f\n@njit(cache=True)\ndef g(x):\n    return f(x)\n")
    other.write_text("def launch():\n    return 1\n")
    assert [Path(p).name for p in numba_cache.sources(str(tmp_path))] == ["machine.py", "memsys.py"]
    before = numba_cache.digest(str(tmp_path))
    other.write_text("def launch():\n    return 2\n")
    assert numba_cache.digest(str(tmp_path)) == before          # no numba code changed
    callee.write_text(callee.read_text().replace("x + 1", "x + 2"))
    assert numba_cache.digest(str(tmp_path)) != before          # the callee changed: the caller too


def test_simts_functions_use_it_and_others_do_not(tmp_path):
    from simt.sim.timing import machine, memsys
    for fn in (machine.run, memsys.global_access):
        locator = fn._cache._impl.locator
        assert isinstance(locator, numba_cache._SimtStamp)
        assert locator.get_source_stamp() == ("simt", numba_cache.digest())
    assert numba_cache.InTreeLocator.from_function(test_simts_functions_use_it_and_others_do_not, __file__) is None
