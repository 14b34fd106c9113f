"""GPU memory behind ``simt.array(..., device="cuda")``: one cuMemAlloc per array.

The GPU copy is the array's contents; the host numpy buffer the array also keeps is only
its shape/dtype template and a staging area for copies in and out.
"""
from __future__ import annotations

import numpy as np

from . import runtime


class DeviceMemory:
    """One allocation on ``cuda:ordinal``, freed when the last array viewing it is collected."""

    def __init__(self, ordinal: int, nbytes: int):
        drv = runtime.driver()
        runtime.context(ordinal)
        self.ordinal = ordinal
        self.nbytes = int(nbytes)
        # cuMemAlloc refuses 0 bytes; an empty array still gets a valid (unused) pointer.
        self._handle = runtime.check(drv.cuMemAlloc(max(1, self.nbytes)),
                                     f"allocating {self.nbytes} bytes on 'cuda:{ordinal}'")
        self.ptr = int(self._handle)

    def upload(self, host: np.ndarray) -> None:
        """Copy a whole host buffer (same byte size) to the GPU."""
        host = np.ascontiguousarray(host)
        if host.nbytes != self.nbytes:
            raise ValueError(f"copying {host.nbytes} bytes into a {self.nbytes}-byte GPU array")
        if self.nbytes:
            runtime.context(self.ordinal)
            runtime.check(runtime.driver().cuMemcpyHtoD(self._handle, host.ctypes.data, self.nbytes),
                          "copying to the GPU (cuMemcpyHtoD)")

    def download(self, like: np.ndarray) -> np.ndarray:
        """A fresh host array shaped like ``like`` holding the GPU's bytes."""
        out = np.empty_like(like, order="C")
        if out.nbytes != self.nbytes:
            raise ValueError(f"copying a {self.nbytes}-byte GPU array into {out.nbytes} bytes")
        if self.nbytes:
            runtime.context(self.ordinal)
            runtime.check(runtime.driver().cuMemcpyDtoH(out.ctypes.data, self._handle, self.nbytes),
                          "copying from the GPU (cuMemcpyDtoH)")
        return out

    def copy_from(self, src: "DeviceMemory", dst_offset: int, src_offset: int, nbytes: int) -> None:
        """GPU-to-GPU bytes (same device), as simt.copy between two cuda arrays."""
        if nbytes:
            drv = runtime.driver()
            runtime.context(self.ordinal)
            runtime.check(drv.cuMemcpyDtoD(drv.CUdeviceptr(self.ptr + dst_offset),
                                           drv.CUdeviceptr(src.ptr + src_offset), nbytes),
                          "copying between GPU arrays (cuMemcpyDtoD)")

    def free(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is None or runtime._driver is None:
            return
        try:
            runtime.context(self.ordinal)
            runtime._driver.cuMemFree(handle)   # errors here (e.g. at shutdown) are not the user's
        except Exception:  # noqa: BLE001
            pass

    def __del__(self):
        self.free()


class DeviceView(DeviceMemory):
    """Part of another allocation (``a[2:5]`` of a GPU array): copies in and out of that range;
    the allocation stays alive while a view of it does, and is freed by its owner only."""

    def __init__(self, parent: DeviceMemory, offset: int, nbytes: int):
        self.ordinal = parent.ordinal
        self.nbytes = int(nbytes)
        self._parent = parent
        self.ptr = parent.ptr + int(offset)
        self._handle = runtime.driver().CUdeviceptr(self.ptr)

    def free(self) -> None:
        self._handle = None


def to_device(host: np.ndarray, ordinal: int) -> DeviceMemory:
    """A new GPU allocation holding ``host``'s bytes."""
    mem = DeviceMemory(ordinal, host.nbytes)
    mem.upload(host)
    return mem
