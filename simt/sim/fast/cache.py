"""Compiled kernels on disk: generated source files that numba's own cache sits next to.

numba caches a function only if it lives in a real file, so each kernel's generated source
is written to ``<cache dir>/k_<kernel>_<key>.py``; numba keeps the machine code in that
directory's ``__pycache__`` (an index ``.nbi`` and data ``.nbc``, both pickles). The key
hashes the generated source (a function of the MIR alone), the helpers' source and the
numba, numpy and Python versions, so a warm process loads the machine code without compiling.

The directory is ``$SIMT_CACHE_DIR/fast`` if set, else ``~/.cache/simt/fast``.

A pickle runs code when it is loaded, so nothing is loaded unchecked:

- the directory and every directory above it must belong to this user (or root) and not be
  writable by group or others (a sticky directory such as /tmp may be, above it), as ssh
  requires of ``~/.ssh``; otherwise simt warns once and uses a private temporary directory;
- every entry is bound to its key: the module is compiled from the source in memory (no
  ``.pyc`` is read or written), and numba's files must match the SHA-256 digests that simt
  wrote into ``<name>.seal`` (which names the key) after numba saved them. An entry that does
  not match (planted, truncated, corrupt, foreign-owned, writable by others, or never sealed)
  is deleted and rebuilt, with one warning;
- processes that build or check the same entry at once take turns (an advisory lock on
  ``<name>.lock``): the check against the seal, numba's compile and save, and the seal run
  under it, so no process reads files another is still writing (pytest-xdist workers, a
  sweep's local workers);
- the cache holds at most ``$SIMT_CACHE_MAX_MB`` megabytes (default 512): after a new entry
  is sealed, the least recently used entries are evicted.

``simt cache info`` and ``simt cache clear`` show and empty it.
"""
from __future__ import annotations

import atexit
import contextlib
import glob
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
import types
import warnings
from pathlib import Path

import numba
import numpy as np

from . import runtime

try:
    import fcntl
except ImportError:          # no advisory locks (Windows): entries are checked without one
    fcntl = None

_HELPERS = Path(runtime.__file__).read_bytes()
DEFAULT_MAX_MB = 512
SEAL_VERSION = 1
_ENTRY = re.compile(r"^(k_\w+_[0-9a-f]{24})(\..*)$")

_lock = threading.RLock()              # one loader at a time: a module is published whole
_loaded: dict[str, types.ModuleType] = {}
_checked_dirs: dict[str, Path] = {}   # requested directory -> the one used
_private_dir: Path | None = None


class CacheWarning(UserWarning):
    """The kernel cache refused a directory or rebuilt an entry."""


# ---- where ---------------------------------------------------------------------------------

def requested_dir() -> Path:
    root = os.environ.get("SIMT_CACHE_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "simt"
    return base / "fast"


def cache_dir() -> Path:
    """The directory in use: the requested one if it is safe, else a private temporary one."""
    wanted = requested_dir()
    key = str(wanted)
    with _lock:
        used = _checked_dirs.get(key)
        if used is None:
            used = _checked_dirs[key] = _safe_dir(wanted)
        return used


def _safe_dir(wanted: Path) -> Path:
    try:
        _make_private_dirs(wanted)
        problem = insecure_dir(wanted)
    except OSError as e:
        problem = f"it cannot be created ({e})"
    if problem is None:
        return wanted
    warnings.warn(f"simt: not using the kernel cache {wanted}: {problem}; compiled kernels go "
                  f"to a private temporary directory for this process instead (fix the "
                  f"directory, or set SIMT_CACHE_DIR)", CacheWarning, stacklevel=4)
    return _private()


def _private() -> Path:
    global _private_dir
    if _private_dir is None:
        _private_dir = Path(tempfile.mkdtemp(prefix="simt-cache-")) / "fast"
        _private_dir.mkdir(mode=0o700)
        atexit.register(shutil.rmtree, _private_dir.parent, True)
    return _private_dir


def _make_private_dirs(path: Path) -> None:
    """Create the missing directories of ``path`` readable and writable by this user only."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for p in reversed(missing):
        try:
            p.mkdir(mode=0o700)
        except FileExistsError:
            continue
        os.chmod(p, 0o700)      # whatever the umask


def _owner_problem(st: os.stat_result) -> str | None:
    if not hasattr(os, "getuid"):          # no POSIX owners (Windows)
        return None
    if st.st_uid not in (os.getuid(), 0):
        return f"it belongs to another user (uid {st.st_uid})"
    return None


def insecure_dir(path: Path) -> str | None:
    """Why ``path`` is not safe to load code from (None when it is): it, or a directory above
    it, belongs to another user or can be written by group or others (sticky parents
    excepted)."""
    if not hasattr(os, "getuid"):
        return None
    real = Path(os.path.realpath(path))
    for k, p in enumerate([real, *real.parents]):
        st = os.stat(p)
        owner = _owner_problem(st)
        if owner:
            return f"{p}: {owner}" if k else owner
        writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if writable and not (k and st.st_mode & stat.S_ISVTX):
            who = "group and others" if st.st_mode & stat.S_IWOTH and st.st_mode & stat.S_IWGRP \
                else "others" if st.st_mode & stat.S_IWOTH else "its group"
            mode = f"mode {stat.S_IMODE(st.st_mode):o}"
            return f"{p if k else 'it'} can be written by {who} ({mode})"
    return None


def insecure_file(path: str | Path) -> str | None:
    """Why the file at ``path`` must not be loaded (foreign-owned, writable by others)."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    owner = _owner_problem(st)
    if owner:
        return owner
    if hasattr(os, "getuid") and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"it can be written by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


# ---- keys and modules ------------------------------------------------------------------------

def cache_key(source: str) -> str:
    h = hashlib.sha256()
    for part in (source.encode(), _HELPERS, numba.__version__.encode(), np.__version__.encode(),
                 sys.version.encode()):
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:24]


def entry_name(kernel_name: str, source: str) -> str:
    safe = re.sub(r"\W", "_", kernel_name)[:40]
    return f"k_{safe}_{cache_key(source)}"


@contextlib.contextmanager
def _entry_lock(name: str):
    """Held by one process at a time per entry (an advisory lock on ``<name>.lock``) while it
    checks the entry's files against their seal, and while it compiles, saves and seals them:
    two processes that build the same kernel at once (pytest-xdist workers, a sweep's local
    workers) then compile it once, and neither ever sees the other's files half sealed."""
    if fcntl is None:
        yield
        return
    path = cache_dir() / f"{name}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)            # releases the lock


def _entry_of(dispatcher) -> str | None:
    """The entry whose module this process loaded ``dispatcher`` from, or None."""
    module = sys.modules.get(dispatcher.py_func.__module__)
    name = module.__name__[len("simt_fast_"):] if module else None
    return name if name is not None and _loaded.get(name) is module else None


def compile_sealed(dispatcher, args: tuple) -> None:
    """Compile (or load from disk) ``dispatcher`` for ``args`` before its first call, under
    the entry's lock: the files are checked against their seal right before numba may load
    them, and sealed right after numba saved them."""
    name = _entry_of(dispatcher)
    if name is None:
        return
    with _entry_lock(name):
        _verify(name, dispatcher)
        before = len(dispatcher.overloads)
        dispatcher.compile(tuple(numba.typeof(a) for a in args))
        if len(dispatcher.overloads) != before:
            _seal(name, dispatcher)


def load_module(kernel_name: str, source: str):
    """The module of the generated source: its ``run_blocks`` uses numba's disk cache only
    when the cache's files are this entry's, sealed by simt (see the module docstring)."""
    name = entry_name(kernel_name, source)
    with _lock:
        module = _loaded.get(name)
        if module is not None:
            return module
        directory = cache_dir()
        path = directory / f"{name}.py"
        if not _source_matches(path, source):
            fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(source)
            os.replace(tmp, path)      # atomic: concurrent writers leave one whole file
        module = types.ModuleType(f"simt_fast_{name}")
        module.__file__ = str(path)
        # compiled from memory: a .pyc next to the file is never read (nor written)
        exec(compile(source, str(path), "exec"), module.__dict__)
        with _entry_lock(name):
            _verify(name, module.run_blocks)
        sys.modules[module.__name__] = module    # published only once whole
        _loaded[name] = module
        return module


def _source_matches(path: Path, source: str) -> bool:
    try:
        problem = insecure_file(path)
        if problem:
            path.unlink()
            warnings.warn(f"simt: replaced the cached kernel source {path}: {problem}",
                          CacheWarning, stacklevel=5)
            return False
        return path.read_text() == source
    except (OSError, UnicodeDecodeError):
        return False


def numba_files(dispatcher) -> tuple[str, list[str]]:
    """(numba's index file, every index/data file of this function in numba's cache)."""
    impl = dispatcher._cache._cache_file
    index = impl._index_path
    base = index[:-len(".nbi")]
    return index, sorted(glob.glob(glob.escape(base) + ".nbi") + glob.glob(glob.escape(base) + ".*.nbc"))


def _seal_path(name: str) -> Path:
    return cache_dir() / f"{name}.seal"


def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _verify(name: str, dispatcher) -> None:
    """Leave numba's files of this entry in place only if they are exactly the sealed ones."""
    _, files = numba_files(dispatcher)
    if not files:
        return
    problem = None
    try:
        seal = json.loads(_seal_path(name).read_text())
        if insecure_file(_seal_path(name)) or seal.get("entry") != name:
            seal = None
    except (OSError, ValueError):
        seal = None
    if seal is None:
        problem = "it was never sealed" if not _seal_path(name).exists() else "its seal is damaged"
    else:
        sealed = seal.get("files", {})
        for f in files:
            why = insecure_file(f)
            if why:
                problem = f"{os.path.basename(f)}: {why}"
                break
            if sealed.get(os.path.basename(f)) != _digest(f):
                problem = f"{os.path.basename(f)} does not match its seal (corrupt, or not simt's)"
                break
    if problem is None:
        os.utime(_seal_path(name))       # recently used: evicted last
        return
    for f in files:
        _unlink(f)
    _unlink(_seal_path(name))
    if not problem.startswith("it was never sealed"):
        warnings.warn(f"simt: rebuilt the cached kernel {name} in {cache_dir()}: {problem}",
                      CacheWarning, stacklevel=5)


def seal(dispatcher) -> None:
    """After numba saved machine code: record the digests of its files (under the entry's
    lock), then keep the cache under its size cap."""
    name = _entry_of(dispatcher)
    if name is None:
        return
    with _entry_lock(name):
        _seal(name, dispatcher)


def _seal(name: str, dispatcher) -> None:
    with _lock:
        _, files = numba_files(dispatcher)
        digests = {}
        for f in files:
            try:
                os.chmod(f, 0o600)
                digests[os.path.basename(f)] = _digest(f)
            except OSError:
                continue
        try:
            os.chmod(os.path.dirname(files[0]), 0o700) if files else None
        except OSError:
            pass
        text = json.dumps({"version": SEAL_VERSION, "entry": name, "files": digests}, indent=1)
        fd, tmp = tempfile.mkstemp(dir=cache_dir(), suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, _seal_path(name))
        evict()


def _unlink(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# ---- size ----------------------------------------------------------------------------------

def max_bytes() -> int:
    text = os.environ.get("SIMT_CACHE_MAX_MB", "")
    try:
        mb = float(text) if text.strip() else DEFAULT_MAX_MB
    except ValueError:
        mb = DEFAULT_MAX_MB
    return int(max(0.0, mb) * 1e6)


def entries(directory: Path | None = None) -> dict[str, dict]:
    """Entry name -> {"files": [...], "bytes": n, "used": last use (seal or source mtime)}."""
    directory = directory or cache_dir()
    found: dict[str, dict] = {}
    for folder in (directory, directory / "__pycache__"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for fname in names:
            m = _ENTRY.match(fname)
            if not m:
                continue
            path = folder / fname
            try:
                st = os.lstat(path)
            except OSError:
                continue
            e = found.setdefault(m.group(1), {"files": [], "bytes": 0, "used": 0.0})
            e["files"].append(path)
            e["bytes"] += st.st_size
            if m.group(2) in (".seal", ".py"):
                e["used"] = max(e["used"], st.st_mtime)
    return found


def evict(limit: int | None = None) -> int:
    """Delete least recently used entries (not those this process loaded) until the cache
    fits ``limit`` bytes (default: the cap). Returns how many entries went."""
    limit = max_bytes() if limit is None else limit
    with _lock:
        found = entries()
        total = sum(e["bytes"] for e in found.values())
        gone = 0
        for name, e in sorted(found.items(), key=lambda kv: kv[1]["used"]):
            if total <= limit:
                break
            if name in _loaded:
                continue
            for f in e["files"]:
                _unlink(f)
            total -= e["bytes"]
            gone += 1
        return gone


def clear() -> int:
    """Delete every entry (the ones loaded by this process are loaded again next time)."""
    with _lock:
        found = entries()
        for e in found.values():
            for f in e["files"]:
                _unlink(f)
        _loaded.clear()
        return len(found)


def forget_loaded() -> None:
    """Forget the modules loaded by this process, so the next launch loads from disk again."""
    with _lock:
        _loaded.clear()


def cache_command(action: str, out=None) -> int:
    """``simt cache info|clear``."""
    out = out or sys.stdout
    wanted = requested_dir()
    if action == "clear":
        n = clear()
        print(f"removed {n} cached kernel(s) from {cache_dir()}", file=out)
        return 0
    directory = cache_dir()
    found = entries(directory)
    total = sum(e["bytes"] for e in found.values())
    print(f"kernel cache: {directory}", file=out)
    if directory != wanted:
        print(f"  (the requested {wanted} was refused: see the warning above)", file=out)
    print(f"  entries: {len(found)}, {total / 1e6:.1f} MB of at most {max_bytes() / 1e6:.0f} MB "
          f"(SIMT_CACHE_MAX_MB)", file=out)
    if found:
        newest = max(e["used"] for e in found.values())
        print(f"  last used: {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(newest))}", file=out)
    return 0
