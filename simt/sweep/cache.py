"""The resumable cache of a sweep: one JSON file per (setup, point, architecture, simt,
module options), holding the kernel hash the result was made with and the result.

A worker re-hashes the kernel before trusting an entry (task.Task.cached_digest), so an
edited kernel is launched again even where setup and the point are unchanged. Only the
process that runs the sweep reads and writes the directory: Dask workers on other machines
never need to see it.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import tempfile
from pathlib import Path

from .space import SweepError

FORMAT = 1


class SweepCache:
    def __init__(self, directory):
        self.directory = Path(directory).expanduser()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SweepError(f"sweep cache {self.directory}: cannot create it ({e.strerror})") from None

    def _path(self, key: dict) -> Path:
        name = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]
        return self.directory / f"{name}.json"

    def get(self, key: dict) -> dict | None:
        """{"digest", "result"} stored under ``key``, or None (absent, unreadable, another key)."""
        try:
            entry = json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != key or entry.get("format") != FORMAT:
            return None
        return entry

    def put(self, key: dict, digest: str, result: dict) -> None:
        """Store atomically: an interrupted sweep leaves whole entries only."""
        entry = {"format": FORMAT, "key": key, "digest": digest, "result": result}
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(entry, f)
        os.replace(tmp, self._path(key))


def entry_key(setup_id: str, point: dict, arch_key: str, options: dict) -> dict:
    """What a cached result depends on besides the kernel (whose hash the entry holds)."""
    return {"setup": setup_id, "point": {k: repr(v) for k, v in point.items()}, "arch": arch_key,
            "simt": simt_version(), "options": {k: repr(v) for k, v in sorted(options.items())}}


def setup_identity(setup) -> str:
    """Names setup and hashes its source, so an edited setup (other inputs, sizes) misses."""
    ident = getattr(setup, "identity", None)
    if callable(ident):
        return ident()
    name = f"{getattr(setup, '__module__', '?')}.{getattr(setup, '__qualname__', type(setup).__name__)}"
    try:
        text = inspect.getsource(setup)
    except (OSError, TypeError):
        code = getattr(setup, "__code__", None)
        text = repr((code.co_code, code.co_consts)) if code is not None else repr(setup)
    return f"{name}#{hashlib.sha256(text.encode()).hexdigest()[:16]}"


@functools.lru_cache(maxsize=1)
def simt_version() -> str:
    """simt's version and a hash of its sources and architecture files: a development
    checkout's model changes between releases too."""
    from .. import __version__
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return f"{__version__}+{h.hexdigest()[:12]}"
