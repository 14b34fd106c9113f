"""Test-wide settings: verify the MIR after every pass. Under pytest-xdist the workers share
the kernel cache: an entry one builds, the others load (simt/sim/fast/cache.py locks each
entry while it is checked, built and sealed)."""
import os

import pytest

os.environ.setdefault("SIMT_VERIFY_EACH_PASS", "1")

pytest_plugins = ["simt.testing"]   # the simt_gpu marker and the simt_compare fixture


@pytest.fixture
def timing_data(monkeypatch):
    """``timing_data(**keys)``: the timing section the launches in a test see (the arch file's,
    each key given set, a key set to None removed)."""
    import copy
    from simt.arch import Arch, load_arch
    from simt.sim.precise import engine

    def use(**keys):
        def patched(name):
            arch = load_arch(name)
            data = copy.deepcopy(arch.data)
            for k, v in keys.items():
                if v is None:
                    data["timing"].pop(k, None)
                else:
                    data["timing"][k] = v
            return Arch(name, data)
        monkeypatch.setattr(engine, "load_arch", patched)
    return use
