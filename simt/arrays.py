"""``simt.array``: a contiguous device buffer (host numpy memory on cpu devices).

The numpy buffer keeps composite components as trailing axes (n vec3s -> numpy (n, 3)),
while ``shape`` is the element shape the kernel indexes ((n,)). Each array gets a
simulated device address, 256-byte aligned like cudaMalloc, so engines can model
coalescing and report addresses in errors.

``simt.array(dtype=float)`` without data or shape is not a buffer but a kernel parameter
annotation (as in Warp); it carries ``_simt_type`` for the front end.
"""
from __future__ import annotations

import threading
import typing

import numpy as np

from . import types as t
from .errors import SimtError
from .devices import Device, get_device, parse_device, require_memory
from .ir.types import ANY, ArrayType, Scalar, StructType, ValueType

ALIGNMENT = 256
_BASE_ADDRESS = 0x7F00_0000_0000    # looks like a device pointer in messages


class _BumpAllocator:
    """Hands out simulated device addresses; memory is never reused within a process.

    These addresses name arrays (``a.ptr``); a launch on the precise engine does not time
    them but lays its own arrays out afresh (simt/sim/precise/memory.py, launch_addresses),
    so what was allocated before cannot change its prediction."""

    def __init__(self, base: int):
        self._next = base
        self._lock = threading.Lock()

    def allocate(self, nbytes: int) -> int:
        size = max(ALIGNMENT, -(-nbytes // ALIGNMENT) * ALIGNMENT)
        with self._lock:
            addr = self._next
            self._next += size
        return addr


_allocator = _BumpAllocator(_BASE_ADDRESS)


def _is_unset(dtype) -> bool:
    return dtype is None or dtype is typing.Any


def _normalise_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if not 1 <= len(shape) <= 4 or any(s < 0 for s in shape):
        raise ValueError(f"an array shape needs 1 to 4 non-negative extents, got {shape}")
    return shape


class Unwritten:
    """initcheck's memory of an array made by ``simt.empty``: True per scalar nothing wrote yet.

    Launches with ``check="init"`` read and update it; any other way of writing the array
    (host access through ``numpy()``, ``fill_``, ``assign``, ``copy``, or a launch without
    initcheck) counts as writing all of it, so initcheck never reports a value someone set.
    """

    __slots__ = ("size", "_mask")

    def __init__(self, size: int):
        self.size = size
        self._mask: np.ndarray | None = np.ones(size, dtype=bool)

    def mask(self) -> np.ndarray | None:
        return self._mask

    def clear(self) -> None:
        self._mask = None

    def view(self, start: int, count: int) -> "UnwrittenView":
        return UnwrittenView(self, start, count)


class UnwrittenView:
    """The record of an array view: the part of its base's record it covers."""

    __slots__ = ("base", "start", "size")

    def __init__(self, base, start: int, size: int):
        self.base, self.start, self.size = base, start, size

    def mask(self) -> np.ndarray | None:
        whole = self.base.mask()
        return None if whole is None else whole[self.start:self.start + self.size]

    def clear(self) -> None:
        whole = self.base.mask()
        if whole is not None:
            whole[self.start:self.start + self.size] = False

    def view(self, start: int, count: int) -> "UnwrittenView":
        return UnwrittenView(self.base, self.start + start, count)


class array:
    """A device array, or (with neither data nor shape) an ``array(dtype=...)`` annotation."""

    _unwritten: Unwritten | None = None     # set by simt.empty (cpu devices)

    def __init__(self, data=None, dtype=typing.Any, shape=None, strides=None, ptr=None,
                 capacity=None, device=None, pinned=False, copy=True, deleter=None, ndim=None,
                 grad=None, requires_grad=False, retain_grad=False):
        if strides is not None or ptr is not None:
            raise ValueError("simt arrays are contiguous and own their memory: strides= and ptr= "
                             "are not supported")
        self.grad = None
        self.requires_grad = bool(requires_grad)
        if data is None and shape is None:
            self._init_annotation(dtype, ndim)
            return
        self.device: Device = get_device(device)
        require_memory(self.device)
        if data is not None:
            alias = not copy and not self.device.is_cuda    # Warp aliases host memory on the CPU
            buffer, ir_dtype = _buffer_from_data(data, dtype, shape, alias)
        else:
            ir_dtype = t.ir_type(float if _is_unset(dtype) else dtype)
            elem_shape = _normalise_shape(shape)
            buffer = np.zeros(elem_shape + t.component_shape(ir_dtype), dtype=t.numpy_scalar_type(ir_dtype))
        self._finish(buffer, ir_dtype, ndim)
        self._gpu = None                  # simt.gpu.memory.DeviceMemory for arrays on a GPU
        if self.device.is_cuda:
            from .gpu.memory import to_device
            self._gpu = to_device(self._buffer, self.device.ordinal)
            self.ptr = self._gpu.ptr
        else:
            self.ptr = _allocator.allocate(self._buffer.nbytes)
        self._allocation = self.ptr       # the start of the allocation it lies in (views share it)

    def __class_getitem__(cls, params) -> "array":
        """Warp 1.19's subscript annotations: ``array[float]``, ``array[vec3, Literal[2]]``."""
        return _subscript_annotation(params, None)

    # construction helpers ----------------------------------------------------------
    def _init_annotation(self, dtype, ndim) -> None:
        self._buffer = None
        self._gpu = None
        self.device = None
        self.ptr = self._allocation = None
        self.ndim = int(ndim or 1)
        if _is_unset(dtype):
            self._ir_dtype = None
            self.dtype = typing.Any
            self._simt_type = ArrayType(ANY, self.ndim)   # generic: typed per call or launch
        else:
            self._ir_dtype = t.ir_type(dtype)
            self.dtype = t.public_type(self._ir_dtype)
            self._simt_type = ArrayType(self._ir_dtype, self.ndim)
        self.shape = (0,) * self.ndim

    def _finish(self, buffer: np.ndarray, ir_dtype: ValueType, ndim) -> None:
        ncomp_axes = len(t.component_shape(ir_dtype))
        elem_shape = buffer.shape[:buffer.ndim - ncomp_axes]
        if not 1 <= len(elem_shape) <= 4:
            raise ValueError(f"arrays have 1 to 4 dimensions, got element shape {elem_shape}")
        if ndim is not None and int(ndim) != len(elem_shape):
            raise ValueError(f"ndim={ndim} does not match the data's element shape {elem_shape}")
        self._buffer = buffer
        self._ir_dtype = ir_dtype
        self.dtype = t.public_type(ir_dtype)
        self.shape = tuple(elem_shape)
        self.ndim = len(elem_shape)
        self._simt_type = ArrayType(ir_dtype, self.ndim)

    @classmethod
    def _view(cls, base: array, buffer: np.ndarray) -> array:
        """An array over part or all of ``base``'s memory (reshape, flatten)."""
        out = cls.__new__(cls)
        out.grad, out.requires_grad = None, False
        out.device = base.device
        out._finish(buffer, base._ir_dtype, None)
        out.ptr, out._allocation = base.ptr, base._allocation
        out._gpu = base._gpu
        out._unwritten = base._unwritten
        return out

    # properties ----------------------------------------------------------------------
    @property
    def is_annotation(self) -> bool:
        return self._buffer is None

    def _require_buffer(self) -> np.ndarray:
        if self._buffer is None:
            raise TypeError("this simt.array(dtype=...) is a type annotation, not an array with data")
        return self._buffer

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def capacity(self) -> int:
        return self._require_buffer().nbytes

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides of the element shape (Warp's convention)."""
        return self._require_buffer().strides[:self.ndim]

    @property
    def is_contiguous(self) -> bool:
        return True

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, index):
        """Warp's host-side views: ``a[2:5]``, ``a[i]`` (a row of a 2-D array), ``a[1:, :]``,
        sharing the array's memory. simt arrays are contiguous, so a view must be too: it
        may index and slice the leading dimensions (step 1) and keep the rest whole."""
        buf = self._require_buffer()
        idx = index if isinstance(index, tuple) else (index,)
        shown = _show_index(index)
        if len(idx) > self.ndim or not all(isinstance(i, slice) or (isinstance(i, (int, np.integer))
                                                                    and not isinstance(i, bool)) for i in idx):
            raise SimtError(f"a[{shown}]: a view of a {self.ndim}-d simt array takes up to {self.ndim} "
                            f"ints or slices")
        if len(idx) == self.ndim and not any(isinstance(i, slice) for i in idx):
            raise SimtError(f"a[{shown}] is one element: read it with a.numpy()[{shown}]")
        if any(isinstance(i, slice) and i.step not in (None, 1) for i in idx):
            raise SimtError(f"a[{shown}]: simt arrays are contiguous, so views with a step are not "
                            f"supported; copy with simt.array(a.numpy()[{shown}])")
        for axis, i in enumerate(idx):
            if isinstance(i, (int, np.integer)) and not -self.shape[axis] <= i < self.shape[axis]:
                raise SimtError(f"a[{shown}]: index {int(i)} is out of range for axis {axis} of "
                                f"an array of shape {self.shape}")
        view = buf[idx]
        if not view.flags.c_contiguous:
            raise SimtError(f"a[{shown}] is not contiguous (it slices an inner dimension): simt "
                            f"arrays are contiguous; copy with simt.array(a.numpy()[{shown}])")
        offset = view.__array_interface__["data"][0] - buf.__array_interface__["data"][0] \
            if view.size else 0
        out = array._view(self, view)
        out.ptr = self.ptr + offset
        if self._gpu is not None:
            from .gpu.memory import DeviceView
            out._gpu = DeviceView(self._gpu, offset, view.nbytes)
        if self._unwritten is not None:
            per = buf.itemsize
            out._unwritten = self._unwritten.view(offset // per, view.size)
        return out

    def __setitem__(self, index, value):
        raise SimtError(f"simt arrays cannot be assigned by index on the host (a[{_show_index(index)}] = ...): "
                        f"use a.assign(...), a.fill_(...), or write a.numpy()[...] on a cpu array")

    # host access ---------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """The host buffer itself (a view, as Warp gives for cpu arrays); a copy from a GPU."""
        buf = self._require_buffer()
        self._host_access()
        return buf if self._gpu is None else self._gpu.download(buf)

    def _host_access(self) -> None:
        """The host may write the buffer now: initcheck counts every element as written."""
        if self._unwritten is not None:
            self._unwritten.clear()

    def _host_written(self) -> None:
        """After writing the host buffer of a GPU array: send it to the GPU."""
        if self._gpu is not None:
            self._gpu.upload(self._buffer)

    def _launch_read(self) -> np.ndarray:
        """The data as a launch reads it (a copy from a GPU). Unlike ``numpy()`` this is not
        host access: initcheck's record of unwritten elements stays."""
        buf = self._require_buffer()
        return buf if self._gpu is None else self._gpu.download(buf)

    def _launch_write(self, data: np.ndarray) -> None:
        """Store what a launch computed (``data`` from ``_launch_read``), keeping the record."""
        if data is not self._buffer:
            self._buffer[...] = data
        self._host_written()

    def __array__(self, dtype=None, copy=None):
        buf = self.numpy()
        return buf if dtype is None else buf.astype(dtype)

    def flat_scalars(self) -> np.ndarray:
        """A 1-D view of every scalar, composites flattened: what engines read and write."""
        flat = self._require_buffer().reshape(-1)
        assert np.shares_memory(flat, self._buffer) or flat.size == 0
        return flat

    def list(self) -> list:
        buf = self.numpy()
        if self._ir_dtype is not None and isinstance(self._ir_dtype, Scalar):
            return buf.reshape(-1).tolist()
        return list(buf.reshape((self.size,) + t.component_shape(self._ir_dtype)))

    def fill_(self, value) -> None:
        buf = self._require_buffer()
        self._host_access()
        value = np.asarray(value)
        buf[...] = bits_of(value) if scalar_bits_from_float(self._ir_dtype, value) else \
            np.asarray(value, dtype=buf.dtype)
        self._host_written()

    def zero_(self) -> None:
        self.fill_(0)

    def assign(self, src) -> None:
        buf = self._require_buffer()
        self._host_access()
        data = src.numpy() if isinstance(src, array) else np.asarray(src)
        buf[...] = np.asarray(data, dtype=buf.dtype).reshape(buf.shape)
        self._host_written()

    def to(self, device) -> array:
        dev = parse_device(device)
        return self if dev == self.device else clone(self, device=dev)

    def reshape(self, shape) -> array:
        shape = _normalise_shape(shape)
        buf = self._require_buffer()
        return array._view(self, buf.reshape(shape + t.component_shape(self._ir_dtype)))

    def flatten(self) -> array:
        return self.reshape((self.size,))

    def __repr__(self) -> str:
        if self._buffer is None:
            return f"simt.array(dtype={self.dtype!r}, ndim={self.ndim})"
        return repr(self.numpy())

    def __str__(self) -> str:
        return str(self.numpy()) if self._buffer is not None else repr(self)


def _show_index(index) -> str:
    def one(i):
        if isinstance(i, slice):
            return ":".join("" if v is None else str(v) for v in (i.start, i.stop)) + \
                ("" if i.step is None else f":{i.step}")
        return str(i)
    return ", ".join(one(i) for i in index) if isinstance(index, tuple) else one(index)


def _buffer_from_data(data, dtype, shape, alias: bool = False) -> tuple[np.ndarray, ValueType]:
    """A fresh C-contiguous buffer of the right scalar type, with component axes trailing;
    with ``alias`` (``copy=False``), a view of ``data``'s own memory, or ValueError saying
    why that is impossible (never a silent copy)."""
    if isinstance(data, array):
        if _is_unset(dtype):
            dtype = data._ir_dtype
        data = data.numpy()
    source = np.asarray(data)
    if _is_unset(dtype):
        if source.dtype == object:
            raise TypeError("cannot infer a dtype from this data; pass dtype=...")
        ir_dtype = t.ir_type(source.dtype)
    else:
        ir_dtype = t.ir_type(dtype)
    comp = t.component_shape(ir_dtype)
    if isinstance(ir_dtype, StructType) and not source.dtype.names:     # struct instances
        items = np.asarray(data, dtype=object).reshape(-1)
        source = np.array([x.numpy_value() for x in items], dtype=t.numpy_scalar_type(ir_dtype))
    if shape is not None:
        source = source.reshape(_normalise_shape(shape) + comp)
    if comp and source.shape[source.ndim - len(comp):] != comp:
        raise ValueError(f"data for an array of {ir_dtype} needs trailing axes {comp}, "
                         f"got numpy shape {source.shape}")
    if source.ndim == len(comp):
        source = source.reshape((1,) + comp) if source.size else source.reshape((0,) + comp)
    scalar = t.numpy_scalar_type(ir_dtype)
    if alias and isinstance(data, np.ndarray):
        return _alias(data, source, np.dtype(scalar)), ir_dtype
    if scalar_bits_from_float(ir_dtype, source):
        source = bits_of(source)
    buffer = np.array(source, dtype=scalar, order="C", copy=True)
    return buffer, ir_dtype


def _alias(data: np.ndarray, view: np.ndarray, scalar: np.dtype) -> np.ndarray:
    """``view`` (a reshaped ``data``) as the array's buffer, sharing ``data``'s memory."""
    why = None
    if data.dtype != scalar:
        why = f"its dtype is {data.dtype}, the array's is {scalar}"
    elif not view.flags.c_contiguous:
        why = "it is not C-contiguous (simt arrays are)"
    elif not data.flags.writeable:
        why = "it is read-only"
    elif not np.shares_memory(view, data) and data.size:
        why = "its memory cannot be viewed in the array's shape"
    if why:
        raise ValueError(f"simt.array(..., copy=False) cannot alias this numpy array: {why}; "
                         f"pass copy=True, or a contiguous {scalar} array")
    return view


def scalar_bits_from_float(ir_dtype, data: np.ndarray) -> bool:
    """Whether float data must become bfloat16 bits (integer data is taken as the bits)."""
    from .ir.types import scalar_of
    return (not isinstance(ir_dtype, StructType) and scalar_of(ir_dtype) is Scalar.BF16
            and data.dtype.kind == "f")


def bits_of(data) -> np.ndarray:
    from .ir.bfloat16 import to_bits
    return to_bits(data)


# ---- Warp-style constructors ---------------------------------------------------------

def _subscript_annotation(params, fixed_ndim: int | None) -> array:
    """``array[dtype]``, ``array[dtype, Literal[ndim]]`` (or a plain int), ``array2d[dtype]``."""
    if not isinstance(params, tuple):
        params = (params,)
    if not 1 <= len(params) <= (1 if fixed_ndim else 2):
        raise TypeError(f"array annotations take [dtype] or [dtype, Literal[ndim]], got {params!r}")
    ndim = fixed_ndim or 1
    if len(params) == 2:
        value = params[1]
        args = typing.get_args(value)
        if typing.get_origin(value) is typing.Literal and len(args) == 1:
            value = args[0]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 4:
            raise TypeError(f"an array's ndim must be 1 to 4 (Literal[n]), got {params[1]!r}")
        ndim = int(value)
    return array(dtype=params[0], ndim=ndim)


class _ArrayOfDims:
    """``array1d`` ... ``array4d``: called, an array (or annotation) of that many dimensions;
    subscripted (``array2d[float]``), an annotation."""

    def __init__(self, ndim: int):
        self.ndim = ndim
        self.__name__ = f"array{ndim}d"

    def __call__(self, data=None, dtype=typing.Any, shape=None, device=None, **kwargs) -> array:
        return array(data=data, dtype=dtype, shape=shape, device=device, ndim=self.ndim, **kwargs)

    def __getitem__(self, params) -> array:
        return _subscript_annotation(params, self.ndim)

    def __repr__(self) -> str:
        return f"simt.{self.__name__}"


array1d, array2d, array3d, array4d = (_ArrayOfDims(n) for n in (1, 2, 3, 4))


def zeros(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return array(shape=(0,) if shape is None else shape, dtype=dtype, device=device,
                 requires_grad=requires_grad)


def empty(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    """Zero-filled, so results never depend on leftover memory; launches with
    ``check="init"`` report reads of elements nothing wrote (and see them poisoned)."""
    out = zeros(shape, dtype, device, requires_grad)
    if out.device.is_cpu:
        out._unwritten = Unwritten(out.flat_scalars().size)
    return out


def full(shape=None, value=0, dtype=None, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    ir_dtype = t.infer_scalar_dtype(value) if dtype is None else t.ir_type(dtype)
    out = zeros(shape, ir_dtype, device, requires_grad)
    out.fill_(value)
    return out


def ones(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return full(shape, 1, dtype, device, requires_grad)


def zeros_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    return zeros(src.shape, src._ir_dtype, device or src.device)


def empty_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    return empty(src.shape, src._ir_dtype, device or src.device)


def ones_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    return ones(src.shape, src._ir_dtype, device or src.device)


def full_like(src: array, value, device=None, requires_grad=None, pinned=None) -> array:
    return full(src.shape, value, src._ir_dtype, device or src.device)


def clone(src: array, device=None, requires_grad=None, pinned=None) -> array:
    return array(src.numpy(), dtype=src._ir_dtype, device=device or src.device)


def from_numpy(arr, dtype=None, shape=None, device=None, requires_grad=False) -> array:
    return array(data=arr, dtype=dtype, shape=shape, device=device, requires_grad=requires_grad)


def copy(dest: array, src: array, dest_offset: int = 0, src_offset: int = 0, count: int = 0) -> None:
    """Copy ``count`` elements (all of ``src`` when 0) between flattened arrays, like Warp."""
    if dest._ir_dtype != src._ir_dtype:
        raise TypeError(f"copy between arrays of {src._ir_dtype} and {dest._ir_dtype}")
    ncomp = max(1, int(np.prod(t.component_shape(src._ir_dtype))))
    n = count or src.size - src_offset
    d, s = dest.flat_scalars(), src.flat_scalars()
    dest._host_access()
    if (dest_offset + n) * ncomp > d.size or (src_offset + n) * ncomp > s.size:
        raise ValueError(f"copy of {n} elements runs past the end of an array")
    if dest._gpu is not None or src._gpu is not None:
        _copy_with_gpu(dest, src, dest_offset * ncomp, src_offset * ncomp, n * ncomp)
        return
    d[dest_offset * ncomp:(dest_offset + n) * ncomp] = s[src_offset * ncomp:(src_offset + n) * ncomp]


def _copy_with_gpu(dest: array, src: array, dest_start: int, src_start: int, count: int) -> None:
    """``copy`` where either side is on a GPU: device to device directly, else through the host."""
    itemsize = dest._buffer.itemsize
    if dest._gpu is not None and src._gpu is not None and dest.device == src.device:
        dest._gpu.copy_from(src._gpu, dest_start * itemsize, src_start * itemsize, count * itemsize)
        return
    d = dest.numpy().reshape(-1)
    d[dest_start:dest_start + count] = src.numpy().reshape(-1)[src_start:src_start + count]
    dest._buffer.reshape(-1)[...] = d
    dest._host_written()
