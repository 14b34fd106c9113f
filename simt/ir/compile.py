"""Entry points the public API calls: a kernel's parameters, its launch dimensionality and
its compilation (Python AST -> HIR -> MIR, verified when the verifier is present)."""
from __future__ import annotations

import ast
import importlib

from ..errors import CompileError
from . import hir, mir
from .frontend import CompileContext, FunctionChecker
from .frontend_calls import check_signature
from .lower import lower_kernel
from .passes import run_passes
from .verify import verify
from .pyfunc import PyFunc, parse_function
from .registry import BuiltinFunction
from .types import AnyType, ArrayType, is_generic, resolve_type


def _ensure_builtins() -> None:
    try:
        importlib.import_module("simt.ir.builtins")
    except ModuleNotFoundError as e:
        if e.name and e.name.startswith("simt.ir.builtins"):
            raise CompileError("the builtin library (simt.ir.builtins) is missing; simt is not "
                               "installed completely") from None
        raise


def kernel_params(py_func) -> list[tuple[str, AnyType]]:
    """The kernel's parameters and their types, from its annotations."""
    pf = parse_function(py_func)
    try:
        return _params(pf)
    except CompileError:
        raise
    except Exception as e:  # noqa: BLE001 - an odd annotation object: report it at the def
        raise CompileError(f"cannot read the parameters of {pf.name!r}: {type(e).__name__}: {e}",
                           pf.loc(pf.tree)) from e


def _params(pf: PyFunc) -> list[tuple[str, AnyType]]:
    check_signature(pf)
    args = pf.tree.args
    if args.posonlyargs or args.kwonlyargs:
        raise CompileError("kernel parameters must be plain positional parameters", pf.loc(pf.tree))
    if args.defaults:
        raise CompileError("kernel parameters cannot have default values", pf.loc(args.defaults[0]))
    annotations = getattr(pf.func, "__annotations__", {})
    params = []
    for a in args.args:
        if a.annotation is None:
            raise CompileError(f"kernel parameter {a.arg!r} needs a type annotation, e.g. "
                               f"'{a.arg}: simt.array(dtype=float)' or '{a.arg}: int'", pf.loc(a))
        ann = annotations.get(a.arg, a.annotation)
        if isinstance(ann, (str, ast.AST)):
            ann = pf.evaluate(ann, a.annotation)
        t = resolve_type(ann)
        if t is None or not (isinstance(t, ArrayType) or hir.is_value_type(t) or is_generic(t)):
            raise CompileError(f"unsupported type {ast.unparse(a.annotation)!r} for kernel parameter "
                               f"{a.arg!r}; use a scalar (int, float, simt.float32...), a composite "
                               f"(simt.vec3...) or simt.array(dtype=...)", pf.loc(a.annotation))
        params.append((a.arg, t))
    if pf.tree.returns is not None and not (isinstance(pf.tree.returns, ast.Constant)
                                            and pf.tree.returns.value is None):
        raise CompileError("kernels cannot return a value; remove the return annotation",
                           pf.loc(pf.tree.returns))
    return params


def check_kernel(py_func, sig: mir.LaunchSig | None,
                 param_types: tuple[AnyType, ...] | None = None) -> hir.FuncDef:
    """Type-check a kernel into HIR (``sig`` None: launch-independent checks only).
    ``param_types``: the concrete parameter types of a generic kernel's launch."""
    _ensure_builtins()
    pf = parse_function(py_func)
    params = _params(pf)
    if param_types is not None:
        params = [(name, t) for (name, _), t in zip(params, param_types)]
    generic = [name for name, t in params if is_generic(t)]
    if generic:
        raise CompileError(f"kernel parameter {generic[0]!r} is generic (Any): its type is known "
                           f"only at launch", pf.loc(pf.tree))
    ctx = CompileContext(sig)
    checker = FunctionChecker(ctx, pf, params, is_kernel=True, return_type=None)
    fd = checker.guarded(lambda _node: checker.check(), pf.tree)
    fd.tid_ndim = ctx.tid_ndim
    fd.thread_idx_ndim = ctx.thread_idx_ndim
    return fd


def compile_kernel(py_func, sig: mir.LaunchSig, debug: bool = False, fastmath: bool = False,
                   passes: bool = True, param_types: tuple[AnyType, ...] | None = None) -> mir.Function:
    """The kernel's MIR; ``passes=False`` gives lowering's output as it is (for tests of it)."""
    fd = check_kernel(py_func, sig, param_types)
    try:
        fn = lower_kernel(fd, sig, debug, fastmath)
    except CompileError:
        raise
    except Exception as e:  # noqa: BLE001 - never let an internal error escape without a location
        raise CompileError(f"internal compiler error while lowering ({type(e).__name__}: {e}); "
                           f"please report it", fd.loc) from e
    fn.tid_ndim = fd.tid_ndim
    fn.thread_idx_ndim = fd.thread_idx_ndim
    verify(fn)                      # lowering's output
    if passes:
        fn = run_passes(fn)         # verifies after every pass when asked (tests do)
        verify(fn)
    return fn


def kernel_dims(py_func) -> tuple[int, int]:
    """(values unpacked from tid(), values unpacked from thread_idx()/block_idx()/block_dim()/
    grid_dim()): 0 when never called, 1 for ``i = tid()``, 2 for ``i, j = tid()``...
    Found by a syntactic scan (device functions included), so it needs no launch shape."""
    dims = [0, 0]
    pf = parse_function(py_func)
    try:
        _scan_dims(pf, dims, set())
    except Exception as e:  # noqa: BLE001 - a property raising during name lookup
        raise CompileError(f"cannot scan {pf.name!r}: {type(e).__name__}: {e}", pf.loc(pf.tree)) from e
    return dims[0], dims[1]


_QUERY_SLOT = {"tid": 0, "thread_idx": 1, "block_idx": 1, "block_dim": 1, "grid_dim": 1}


def _resolve(pf: PyFunc, node: ast.expr):
    if isinstance(node, ast.Name):
        found, obj = pf.lookup(node.id)
        return obj if found else None
    if isinstance(node, ast.Attribute):
        base = _resolve(pf, node.value)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _scan_dims(pf: PyFunc, dims: list[int], seen: set) -> None:
    if pf.func in seen:
        return
    seen.add(pf.func)
    unpacked: dict[int, int] = {}
    for node in ast.walk(pf.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple):
            unpacked[id(node.value)] = len(node.targets[0].elts)
    for node in ast.walk(pf.tree):
        if not isinstance(node, ast.Call):
            continue
        obj = _resolve(pf, node.func)
        if isinstance(obj, BuiltinFunction) and obj.name in _QUERY_SLOT:
            slot = _QUERY_SLOT[obj.name]
            dims[slot] = max(dims[slot], unpacked.get(id(node), 1))
        elif getattr(obj, "_simt_func", False) and getattr(obj, "py_func", None) is not None:
            try:
                _scan_dims(parse_function(obj.py_func), dims, seen)
            except CompileError:
                pass


__all__ = ["kernel_params", "compile_kernel", "kernel_dims", "check_kernel"]
