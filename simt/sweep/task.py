"""One point of a sweep, run where a worker runs it (a process of the pool, a Dask worker,
or this process): call setup, hash the kernel, launch on cpu:precise, report what came out.

Everything here takes and returns plain data (pickled to and from the worker); nothing
here knows about pools, Dask or the cache directory.
"""
from __future__ import annotations

import hashlib
import inspect
import pickle
import time
from dataclasses import dataclass, field

from ..errors import SimtError

DEVICE = "cpu:precise"

# launch arguments the sweep sets itself: setup may not return them
SWEEP_SETS = ("device", "arch")


@dataclass(frozen=True)
class Task:
    """What a worker needs: the setup (pickled, unless it runs in this process), the point, the architecture, the module
    options of the process that started the sweep, and the kernel digest a cached result
    was made with (the worker skips the launch when the kernel still hashes to it)."""
    setup: object
    point: dict
    arch: str
    options: dict
    cached_digest: str | None = None


@dataclass
class Outcome:
    """``digest``: the kernel's hash (None when setup failed before naming a kernel);
    ``cached``: the kernel hashed to the task's ``cached_digest``, so nothing was launched;
    ``result``: cycles, limiter, every metric, error and wall_s; ``cacheable``: the result
    depends only on the cache key (a simt error or a launch, not a bug in setup)."""
    digest: str | None
    cached: bool = False
    result: dict = field(default_factory=dict)
    cacheable: bool = False


_setups: dict[bytes, object] = {}       # per process: a setup unpickled once


def run_task(task: Task) -> Outcome:
    """Run one point; an error anywhere (setup, compile, launch) is the outcome's error."""
    from ..options import ScopedModuleOptions
    start = time.perf_counter()
    digest = None
    try:
        setup = _load_setup(task.setup)
        with ScopedModuleOptions(task.options):
            kwargs = call_setup(setup, task.point)
            digest = kernel_digest(kwargs)
            if digest is not None and digest == task.cached_digest:
                return Outcome(digest, cached=True)
            result = launch_point(kwargs, task.arch)
    except SimtError as e:
        return Outcome(digest, result=failed(str(e), start), cacheable=digest is not None)
    except Exception as e:      # noqa: BLE001 - a bug in setup is that point's error, not the sweep's
        return Outcome(digest, result=failed(f"{type(e).__name__}: {e}", start))
    result["wall_s"] = time.perf_counter() - start
    return Outcome(digest, result=result, cacheable=True)


def failed(message: str, start: float) -> dict:
    return {"error": message, "wall_s": time.perf_counter() - start}


def _load_setup(blob):
    if not isinstance(blob, bytes):
        return blob
    setup = _setups.get(blob)
    if setup is None:
        setup = _setups[blob] = pickle.loads(blob)
    return setup


def call_setup(setup, point: dict) -> dict:
    """``setup(**point)``, checked to be simt.launch's keyword arguments."""
    from .space import SweepError
    kwargs = setup(**point)
    if not isinstance(kwargs, dict) or "kernel" not in kwargs:
        raise SweepError(f"setup({_point_text(point)}) must return a dict of simt.launch's keyword "
                         f"arguments (kernel, dim, inputs, block_dim, ...), got {kwargs!r:.200}")
    clash = [k for k in SWEEP_SETS if k in kwargs]
    if clash:
        raise SweepError(f"setup({_point_text(point)}) returned {', '.join(map(repr, clash))}, which "
                         f"the sweep sets: every launch runs on {DEVICE} with the sweep's arch=")
    return kwargs


def _point_text(point: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in point.items())


def launch_point(kwargs: dict, arch: str) -> dict:
    """Launch on cpu:precise for ``arch``: cycles, limiter and every metric the launch reports."""
    from ..launch import launch
    r = launch(**kwargs, device=DEVICE, arch=arch)
    metrics = {k: float(v) for k, v in r.metrics.items() if isinstance(v, (int, float))}
    return {"cycles": r.cycles, "limiter": r.bottleneck["limiter"], "metrics": metrics, "error": ""}


def kernel_digest(kwargs: dict) -> str | None:
    """A hash of the kernel as it would be compiled for this launch: its MIR (which holds
    its captured constants, shared arrays and options); a generic kernel, typed only at the
    launch, hashes its source and closure. None when ``kernel`` is not a kernel (the
    launch then raises the error that says so)."""
    from ..kernel import Kernel
    from ..ptx_import import ImportedKernel
    kernel = kwargs["kernel"]
    if isinstance(kernel, ImportedKernel):
        text = kernel.mir()
    elif isinstance(kernel, Kernel):
        text = f"{kernel.key}\n{sorted(kernel.module_options.items())!r}\n" + _kernel_text(kernel, kwargs)
    else:
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _kernel_text(kernel, kwargs: dict) -> str:
    from ..ir.mir import LaunchSig
    from ..ir.printer import format_function
    if kernel.is_generic:
        closure = [c.cell_contents for c in kernel.py_func.__closure__ or ()]
        return inspect.getsource(kernel.py_func) + repr(closure)
    dim, block = kwargs.get("dim"), kwargs.get("block_dim", 256)
    ndim = len(dim) if isinstance(dim, (tuple, list)) else 1
    nblock = ndim if isinstance(block, (tuple, list)) else 1
    return format_function(kernel.compile(LaunchSig(ndim, nblock)))
