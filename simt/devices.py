"""Devices: which engine runs a launch and which memory an array lives in.

Every ``cpu*`` device shares host memory (arrays are numpy buffers), so an array made on
"cpu" can be launched on "cpu:precise"; they differ only in the engine that runs kernels.
Adding an engine is one line in ``ENGINES``.
"""
from __future__ import annotations

import functools
import importlib
import re
import sys
from typing import Callable

from .errors import DeviceError

DEFAULT_DEVICE = "cpu:precise"

# device name -> module exposing run(fn, cfg, args) -> metrics
ENGINES: dict[str, str] = {"cpu:precise": "simt.sim.precise", "cpu": "simt.sim.fast"}
ENGINES["cuda"] = "simt.gpu.runtime"    # every cuda:N; the ordinal is passed to its run()
ENGINES["cpu:trace"] = "simt.sim.trace"  # the precise engine writing a trace: launch(..., trace=)

_DESCRIPTIONS = {
    "cpu": "the fast engine",
    "cpu:precise": "the precise engine",
    "cpu:trace": "the tracing engine",
    "cuda": "a real GPU",
}

_CUDA = re.compile(r"^cuda(?::(\d+))?$")


class Device(str):
    """A device name that compares equal to its string ("cpu:precise" == Device("cpu:precise"))."""

    @property
    def alias(self) -> str:
        return str(self)

    @property
    def is_cpu(self) -> bool:
        return self.startswith("cpu")

    @property
    def is_cuda(self) -> bool:
        return self.startswith("cuda")

    @property
    def memory_space(self) -> str:
        """Where arrays on this device live: "host" for every cpu engine, else the GPU's name."""
        return "host" if self.is_cpu else str(self)

    @property
    def ordinal(self) -> int:
        return int(self.split(":")[1]) if self.is_cuda else -1

    @property
    def description(self) -> str:
        return _DESCRIPTIONS["cuda" if self.is_cuda else str(self)]

    def __repr__(self) -> str:
        return f"Device({str(self)!r})"


VALID_NAMES = "'cpu', 'cpu:precise', 'cpu:trace', 'cuda', 'cuda:N'"


def parse_device(ident) -> Device:
    """A Device from a name or Device; DeviceError for names simt does not know."""
    if isinstance(ident, Device):
        return ident
    if not isinstance(ident, str):
        alias = getattr(ident, "alias", None)  # a warp.Device or similar
        if not isinstance(alias, str):
            raise DeviceError(f"a device must be a name such as 'cpu:precise', got {ident!r}")
        ident = alias
    name = ident.strip()
    if name in ("cpu", "cpu:precise", "cpu:trace"):
        return Device(name)
    m = _CUDA.match(name)
    if m:
        return Device(f"cuda:{m.group(1) or 0}")
    raise DeviceError(f"unknown device {ident!r}; valid devices are {VALID_NAMES}")


_current = Device(DEFAULT_DEVICE)


def get_device(ident=None) -> Device:
    """The device ``ident`` names, or the current default device (``cpu:precise``)."""
    return _current if ident is None else parse_device(ident)


def set_device(ident) -> None:
    global _current
    _current = parse_device(ident)


class ScopedDevice:
    """``with simt.ScopedDevice("cpu:precise"):`` changes the default device for a block."""

    def __init__(self, device):
        self.device = parse_device(device)
        self._saved: Device | None = None

    def __enter__(self) -> Device:
        self._saved = get_device()
        set_device(self.device)
        return self.device

    def __exit__(self, *exc) -> None:
        set_device(self._saved)


def engine_for(device: Device) -> Callable:
    """The engine's ``run`` for a device, or DeviceError saying what is unavailable."""
    module = ENGINES.get("cuda" if device.is_cuda else str(device))
    if module is None:
        runnable = ", ".join(repr(d) for d in ENGINES)
        raise DeviceError(f"device '{device}' ({device.description}) is not available yet; "
                          f"use {runnable}")
    if device.is_cuda:
        return _cuda_engine(device)
    return importlib.import_module(module).run


def _cuda_engine(device: Device) -> Callable:
    """The GPU runtime's ``run`` bound to one GPU; DeviceError if that GPU cannot be used."""
    from .gpu import runtime
    reason = runtime.unavailable_reason(device.ordinal)
    if reason:
        raise DeviceError(f"device '{device}' ({device.description}) is not available: {reason}")
    return functools.partial(runtime.run, ordinal=device.ordinal)


def require_memory(device: Device) -> None:
    """Arrays live in host memory (cpu devices) or on a usable GPU (cuda:N)."""
    if device.is_cuda:
        _cuda_engine(device)
        return
    if device.memory_space != "host":
        raise DeviceError(f"arrays on device '{device}' ({device.description}) are not supported "
                          f"yet; use a cpu device such as 'cpu:precise'")


def get_devices() -> list[Device]:
    cuda = [Device(f"cuda:{i}") for i in range(get_cuda_device_count())]
    return [Device(d) for d in ("cpu", "cpu:precise", "cpu:trace")] + cuda


def get_preferred_device() -> Device:
    return get_device()


def get_cuda_device_count() -> int:
    """GPUs the CUDA driver sees (0 without a driver, a GPU or cuda-python)."""
    from .gpu import runtime
    return runtime.device_count()


def is_cuda_available() -> bool:
    return get_cuda_device_count() > 0


def is_cpu_available() -> bool:
    return True


def synchronize() -> None:
    """Launches finish before ``launch`` returns (GPU launches too); this also waits for any
    other work queued on GPUs simt has used."""
    if "simt.gpu.runtime" in sys.modules:
        sys.modules["simt.gpu.runtime"].synchronize()


def synchronize_device(device=None) -> None:
    dev = get_device(device)
    if dev.is_cuda and "simt.gpu.runtime" in sys.modules:
        sys.modules["simt.gpu.runtime"].synchronize(dev.ordinal)


def init() -> None:
    """Warp compatibility: simt needs no initialisation."""
