"""Compiled kernels on disk: generated source files that numba's own cache sits next to.

numba caches a function only if it lives in a real file, so each kernel's generated source
is written to ``<cache dir>/k_<kernel>_<key>.py`` and imported from there; numba then keeps
the machine code in that directory's ``__pycache__``. The key hashes the generated source
(a function of the MIR alone), the helpers' source and the numba, numpy and Python
versions, so a warm process imports the file and loads the machine code without compiling.

The directory is ``$SIMT_CACHE_DIR/fast`` if set, else ``~/.cache/simt/fast``.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import tempfile
from pathlib import Path

import numba
import numpy as np

from . import runtime

_HELPERS = Path(runtime.__file__).read_bytes()


def cache_dir() -> Path:
    root = os.environ.get("SIMT_CACHE_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "simt"
    return base / "fast"


def cache_key(source: str) -> str:
    h = hashlib.sha256()
    for part in (source.encode(), _HELPERS, numba.__version__.encode(), np.__version__.encode(),
                 sys.version.encode()):
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:24]


def load_module(kernel_name: str, source: str):
    """Import the generated source (writing it first if this key is new)."""
    key = cache_key(source)
    safe = re.sub(r"\W", "_", kernel_name)[:40]
    name = f"k_{safe}_{key}"
    module = sys.modules.get(f"simt_fast_{name}")
    if module is not None:
        return module
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.py"
    if not path.exists() or path.read_text() != source:
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)      # atomic: concurrent writers leave one whole file
    spec = importlib.util.spec_from_file_location(f"simt_fast_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
