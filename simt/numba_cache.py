"""numba's on-disk caches of simt's compiled functions, keyed on all of simt's numba code.

numba keeps a function compiled with ``cache=True`` until its own source file changes. A
function that calls an ``njit`` function of another module carries that callee's machine code
inlined, so after an edit, or a ``git pull`` that changes only the callee's file, numba would
load the caller's stale code: the timing machine (machine.py) with the memory system
(memsys.py) it was built with. Each module of simt with numba code imports this module before
its decorators run; it puts a locator first in numba's list whose source stamp is a digest of
every such module's text, so that a change to any of them recompiles all of them. Modules
without numba code whose constants compiled functions read (a column index, an instruction
kind) say so with the marker ``numba-constants`` and count as numba code here. Functions
outside simt (the fast engine's generated modules, keyed on their own sources) are left to
numba's own locators.
"""
from __future__ import annotations

import hashlib
import os

from numba.core import caching

ROOT = os.path.dirname(os.path.abspath(__file__))
# numba code, and modules whose constants numba code compiles in (each says so in a comment
# holding the marker "numba-constants": indices.py's columns, isa.py's kinds and pipes)
_MARKERS = (b"njit", b"vectorize", b"numba.jit", b"numba-constants")
_digest: str | None = None


def _numba_files(root: str):
    """(path, text) of the ``.py`` files under ``root`` whose text compiles with numba, in a
    fixed order."""
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                with open(path, "rb") as fh:
                    text = fh.read()
                if any(m in text for m in _MARKERS):
                    yield path, text


def sources(root: str = ROOT) -> list[str]:
    """The ``.py`` files under ``root`` whose text compiles with numba, in a fixed order."""
    return [path for path, _ in _numba_files(root)]


def digest(root: str = ROOT) -> str:
    """SHA-256 over those files' paths (relative to ``root``) and texts."""
    h = hashlib.sha256()
    for path, text in _numba_files(root):
        h.update(os.path.relpath(path, root).encode())
        h.update(b"\0")
        h.update(text)
        h.update(b"\0")
    return h.hexdigest()


def _stamp() -> str:
    global _digest
    if _digest is None:
        _digest = digest()
    return _digest


def _ours(py_file: str) -> bool:
    return os.path.abspath(py_file).startswith(ROOT + os.sep)


class _SimtStamp:
    def get_source_stamp(self):
        return ("simt", _stamp())

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _ours(py_file):
            return None
        return super().from_function(py_func, py_file)


def _numba_class(name: str):
    """numba's locator class ``name``: public since numba 0.61, ``_name`` before."""
    return getattr(caching, name, None) or getattr(caching, "_" + name)


class ProvidedLocator(_SimtStamp, _numba_class("UserProvidedCacheLocator")):
    """``$NUMBA_CACHE_DIR``, where it is set (as numba's own order has it)."""


class InTreeLocator(_SimtStamp, _numba_class("InTreeCacheLocator")):
    """Beside simt's sources (``__pycache__``), where that is writable."""


class UserWideLocator(_SimtStamp, _numba_class("UserWideCacheLocator")):
    """numba's user-wide cache directory, where simt's own is not writable."""


def install() -> None:
    """Put simt's locators first in numba's list (once)."""
    classes = caching.CacheImpl._locator_classes
    for cls in (UserWideLocator, InTreeLocator, ProvidedLocator):
        if cls not in classes:
            classes.insert(0, cls)


install()
