"""Stored goldens: one engine's outputs of one launch, kept in a numpy ``.npz`` file, so a
machine without a GPU can compare the simulators against what a GPU computed once.

The file (``np.load(path)`` reads it; nothing in it is pickled):

- ``simt_golden``: a 0-d string array holding JSON metadata: ``format`` (1), ``kernel``,
  ``dim``, ``block_dim``, ``engine`` (the device that produced the outputs, e.g. ``cuda:0``
  or ``cpu:precise``), ``device`` (``name``, ``driver`` version and ``cuda_driver_api``
  version for a GPU; a ``name`` saying "simulated" otherwise), ``simt``, ``numpy`` and
  ``python`` versions, ``recorded`` (UTC, ISO 8601), ``inputs_sha256`` (a digest of every
  argument before the launch, see ``inputs_digest``), ``arrays`` (name -> dtype and shape)
  and a free-form ``note``;
- ``out/NAME`` for every array argument of the kernel: its contents after the launch.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
from dataclasses import dataclass

import numpy as np

from . import __version__
from .errors import SimtError

FORMAT = 1
META_KEY = "simt_golden"
OUT_PREFIX = "out/"


class GoldenError(SimtError):
    """A golden file that is missing, unreadable, or was recorded for another launch."""


@dataclass
class Golden:
    path: str
    meta: dict
    outputs: dict[str, np.ndarray]

    @property
    def label(self) -> str:
        """How reports name the stored reference: ``golden:<engine> (<device>)``."""
        device = self.meta.get("device", {}).get("name", "?")
        return f"golden:{self.meta.get('engine', '?')} ({device})"


def inputs_digest(names: list[str], values: list) -> str:
    """SHA-256 of the launch's arguments: each name, then an array's dtype, shape and bytes,
    or a scalar's value as a list of numbers (so 2.0 and np.float32(2.0) agree)."""
    h = hashlib.sha256()
    for name, value in zip(names, values):
        h.update(name.encode() + b"\0")
        if isinstance(value, np.ndarray) and value.ndim > 0:
            data = np.ascontiguousarray(value)
            h.update(f"{data.dtype.str}{data.shape}".encode() + b"\0")
            h.update(data.tobytes())
        else:
            h.update(repr(np.asarray(value).tolist()).encode() + b"\0")
    return h.hexdigest()


def device_identity(engine: str) -> dict:
    """What produced the outputs: the GPU's name and driver versions, or a simulator."""
    if not engine.startswith("cuda"):
        return {"name": f"simulated by simt's {engine} engine, not a GPU"}
    from .gpu import runtime
    ordinal = int(engine.split(":")[1]) if ":" in engine else 0
    ctx = runtime.context(ordinal)
    drv = runtime.driver()
    api = int(runtime.check(drv.cuDriverGetVersion(), "cuDriverGetVersion"))
    return {"name": ctx.name, "arch": ctx.arch, "driver": _kernel_driver_version(),
            "cuda_driver_api": f"{api // 1000}.{api % 1000 // 10}"}


def _kernel_driver_version() -> str:
    """The NVIDIA kernel driver's version (e.g. 580.65.06) where Linux shows it, else ''."""
    try:
        with open("/proc/driver/nvidia/version") as f:
            for word in f.readline().split():
                if word[:1].isdigit() and word.count(".") >= 1:
                    return word
    except OSError:
        pass
    return ""


def save(path: str | os.PathLike, kernel: str, dim, block_dim, engine: str, digest: str,
         outputs: dict[str, np.ndarray], note: str = "") -> dict:
    """Write a golden file (atomically); returns its metadata."""
    meta = {
        "format": FORMAT, "kernel": kernel, "dim": _jsonable(dim), "block_dim": _jsonable(block_dim),
        "engine": engine, "device": device_identity(engine), "simt": __version__,
        "numpy": np.__version__, "python": platform.python_version(),
        "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "inputs_sha256": digest,
        "arrays": {k: {"dtype": str(v.dtype), "shape": list(v.shape)} for k, v in outputs.items()},
        "note": note or ("" if engine.startswith("cuda") else
                         "recorded from a simulator, not a GPU: record again on a machine with a "
                         "GPU to compare the simulators against hardware"),
    }
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}.npz"
    arrays = {f"{OUT_PREFIX}{k}": np.ascontiguousarray(v) for k, v in outputs.items()}
    np.savez_compressed(tmp, **{META_KEY: np.array(json.dumps(meta, indent=1))}, **arrays)
    os.replace(tmp, path)
    return meta


def load(path: str | os.PathLike) -> Golden:
    path = os.fspath(path)
    if not os.path.exists(path):
        raise GoldenError(f"no golden file {path}: record one on a machine with a GPU, e.g. "
                          f"`simt diff FILE.py::kernel --engines cuda,cpu:precise --record {path}` "
                          f"or `pytest --simt-record`")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data[META_KEY][()]))
            outputs = {k[len(OUT_PREFIX):]: data[k] for k in data.files if k.startswith(OUT_PREFIX)}
    except (OSError, ValueError, KeyError) as e:
        raise GoldenError(f"{path} is not a simt golden file ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise GoldenError(f"{path}: golden format {meta.get('format') if isinstance(meta, dict) else '?'} "
                          f"is not the one this simt reads ({FORMAT})")
    return Golden(path, meta, outputs)


def check_matches(golden: Golden, kernel: str, dim, block_dim, digest: str) -> None:
    """GoldenError unless ``golden`` was recorded for this kernel, launch shape and inputs."""
    m = golden.meta
    wanted = {"kernel": kernel, "dim": _jsonable(dim), "block_dim": _jsonable(block_dim),
              "inputs_sha256": digest}
    wrong = [k for k, v in wanted.items() if m.get(k) != v]
    if wrong:
        what = ", ".join(f"{k} {m.get(k)!r} (now {wanted[k]!r})" for k in wrong)
        raise GoldenError(f"{golden.path} was recorded for another launch: {what}; record it "
                          f"again (`--record` / `pytest --simt-record`)")


def _jsonable(value):
    if isinstance(value, (tuple, list)):
        return [int(v) for v in value]
    return int(value)
