"""Numba-CUDA kernels: ``simt.from_numba(pyfunc, signature)`` compiles with numba-cuda's
``compile_ptx`` (no GPU needed) and imports the PTX.

Numba passes each array argument as 5 + 2*ndim parameters (its array ABI: meminfo, parent,
nitems, itemsize, data, shape..., strides... in bytes); a launch expands each simt array
into them, so users pass arrays and scalars as they would to the Numba kernel.
"""
from __future__ import annotations

import numpy as np

from ..errors import CompileError, LaunchError, SimtError
from . import parser as P
from .kernel import ImportedKernel, _module

EXTRA = "numba-cuda"


def _numba():
    import importlib
    try:
        cuda = importlib.import_module("numba.cuda")
        from numba.core import sigutils, types
    except ImportError as e:
        raise SimtError(f"simt.from_numba needs numba-cuda: pip install 'simt[{EXTRA}]' "
                        f"(or numba-cuda[cu13]); {e}") from None
    if not hasattr(cuda, "compile_ptx"):
        raise SimtError(f"simt.from_numba needs numba-cuda's compile_ptx: pip install 'simt[{EXTRA}]'")
    return cuda, sigutils, types


def _cc(arch: str) -> tuple[int, int]:
    digits = arch.removeprefix("sm_").removeprefix("compute_").rstrip("a")
    if not digits.isdigit() or len(digits) < 2:
        raise SimtError(f"arch must look like 'sm_80', got {arch!r}")
    return int(digits[:-1]), int(digits[-1])


class NumbaKernel(ImportedKernel):
    """A kernel compiled by Numba-CUDA: launched with one value per Python argument."""

    def __init__(self, module: P.Module, entry: P.Entry, name: str, args: list, arg_names: list[str]):
        super().__init__(module, entry, name)
        self.numba_args = args                   # numba types, one per Python argument
        self.arg_names = arg_names
        names = []
        for a, n in zip(args, arg_names):
            if _is_array(a):
                names += [f"{n}.meminfo", f"{n}.parent", f"{n}.nitems", f"{n}.itemsize", f"{n}.data"]
                names += [f"{n}.shape[{k}]" for k in range(a.ndim)]
                names += [f"{n}.strides[{k}]" for k in range(a.ndim)]
            else:
                names.append(n)
        self.source_names = names if len(names) == len(entry.params) else None

    def mir(self, pointer_params=None) -> str:
        """The printed MIR, with the arrays' data parameters as pointers (as a launch binds them)."""
        if pointer_params is None and self.source_names is not None:
            pointer_params = [p.name for p, n in zip(self.entry.params, self.source_names) if n.endswith(".data")]
        return super().mir(pointer_params)

    def prepare_launch(self, values: list, grid, block):
        from ..arrays import array
        where = f"kernel '{self.key}'"
        if len(values) != len(self.numba_args):
            described = ", ".join(f"{n}: {a}" for n, a in zip(self.arg_names, self.numba_args))
            raise LaunchError(f"{where} takes {len(self.numba_args)} arguments ({described}), "
                              f"got {len(values)}")
        out = []
        for k, (a, n, v) in enumerate(zip(self.numba_args, self.arg_names, values)):
            if not _is_array(a):
                if isinstance(v, array):
                    raise LaunchError(f"{where}, argument {k} '{n}' ({a}): got an array, expected a scalar")
                out.append(_scalar(where, k, n, a, v))
                continue
            if not isinstance(v, array) or v.is_annotation:
                raise LaunchError(f"{where}, argument {k} '{n}' ({a}): expected a simt array, got "
                                  f"{type(v).__name__}")
            want = np.dtype(str(a.dtype))
            have = getattr(v._ir_dtype, "np", None)
            if have != want or v.ndim != a.ndim:
                raise LaunchError(f"{where}, argument {k} '{n}': the kernel was compiled for {a} "
                                  f"({a.ndim}-d {want}), got a {v.ndim}-d {have} array")
            out += [0, 0, v.size, want.itemsize, v, *v.shape, *v.strides]
        return out, grid, block


def _scalar(where: str, k: int, name: str, t, v):
    """A scalar in the PTX parameter's form: Numba declares integers and booleans unsigned
    (.u16 for int16), so a signed value travels as its bits."""
    want = np.dtype(str(t)) if str(t) != "bool" else np.dtype(np.bool_)
    if want.kind not in "iub":
        return v
    if isinstance(v, (bool, np.bool_)) != (want.kind == "b") or not isinstance(v, (int, np.integer, bool, np.bool_)):
        raise LaunchError(f"{where}, argument {k} '{name}' ({t}): expected "
                          f"{'a bool' if want.kind == 'b' else 'an int'}, got {type(v).__name__}")
    info = np.iinfo(want) if want.kind != "b" else None
    if info is not None and not info.min <= int(v) <= info.max:
        raise LaunchError(f"{where}, argument {k} '{name}' ({t}): {int(v)} is out of its range "
                          f"[{info.min}, {info.max}]")
    return int(v) % (1 << (8 * want.itemsize)) if want.kind != "b" else int(bool(v))


def _is_array(t) -> bool:
    return hasattr(t, "ndim") and hasattr(t, "layout") and hasattr(t, "dtype")


def _read_ptx(ptx, name: str) -> str:
    from pathlib import Path
    if isinstance(ptx, Path) or (isinstance(ptx, str) and ".entry" not in ptx):
        try:
            return Path(ptx).read_text()
        except OSError as e:
            raise SimtError(f"simt.from_numba({name}): cannot read the PTX file {str(ptx)!r}: {e}") from None
    if not isinstance(ptx, str):
        raise SimtError(f"simt.from_numba({name}): ptx= takes PTX text or a path, got {type(ptx).__name__}")
    return ptx


def from_numba(pyfunc, signature, arch: str = "sm_80", ptx=None) -> NumbaKernel:
    """Compile ``pyfunc`` (a Python function or a ``numba.cuda.jit`` kernel) for ``signature``
    (as numba.cuda.compile_ptx takes it: ``"void(float32[:], int32)"`` or a tuple of numba
    types) and import it. Launch with ``simt.launch(k, grid=..., block=..., inputs=[...])``:
    simt arrays for array arguments, Python or numpy scalars for the rest.

    ``ptx``: the PTX text (or a path to it) that ``numba.cuda.compile_ptx`` made of this
    function and signature, on this machine or another, used instead of compiling again (for a
    machine whose numba-cuda cannot compile)."""
    import inspect
    cuda, sigutils, types = _numba()
    fn = getattr(pyfunc, "py_func", pyfunc)
    if not callable(fn):
        raise SimtError(f"simt.from_numba takes a Python function, got {pyfunc!r}")
    try:
        args, ret = sigutils.normalize_signature(signature)
    except Exception as e:
        raise SimtError(f"simt.from_numba: cannot read the signature {signature!r}: {e}") from None
    if ret not in (None, types.void, types.none):
        raise SimtError(f"simt.from_numba: a kernel returns nothing, the signature says {ret}")
    for a in args:
        if not (_is_array(a) and isinstance(a, types.Array)) and not isinstance(a, (types.Integer, types.Float, types.Boolean)):
            raise SimtError(f"simt.from_numba: arguments of type {a} are not supported in this "
                            f"version (arrays, integers, floats and booleans are)")
    if ptx is not None:
        ptx = _read_ptx(ptx, fn.__name__)
    else:
        try:
            ptx, _ = cuda.compile_ptx(fn, tuple(args), cc=_cc(arch), lineinfo=True)
        except Exception as e:          # Numba's typing and lowering errors, as they are
            raise CompileError(f"numba-cuda could not compile {fn.__name__}: {e}") from None
    module = _module(ptx, f"<numba {fn.__name__}>")
    if len(module.entries) != 1:
        raise CompileError(f"numba-cuda's PTX for {fn.__name__} has {len(module.entries)} kernels, "
                           f"expected one")
    entry = next(iter(module.entries.values()))
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = [f"arg{k}" for k in range(len(args))]
    kernel = NumbaKernel(module, entry, fn.__name__, list(args), names[:len(args)])
    kernel.ptx_text = ptx
    return kernel
