"""Kernels made from generated source (the fuzzer's, host-side builtin calls): simt reads a
kernel's source from its file, so generated code is written to one and imported from there."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def module_from_source(name: str, source: str, directory: Path):
    """The module ``name`` holding ``source``, written to ``directory/name.py`` and imported
    once per process."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
