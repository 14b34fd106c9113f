"""Type-checking calls: registry builtins, type constructors, special forms (tid, atomics,
shared arrays, barriers) and device functions (typed per argument types, inlined later)."""
from __future__ import annotations

import ast
import builtins
import inspect
import math
from typing import TYPE_CHECKING

from ..errors import CompileError
from . import hir
from .mir import AtomOp
from .frontend_rules import Static, adapt, component_count, constant, same_type
from .pyfunc import parse_function
from .registry import BuiltinFunction, lookup
from .types import VOID, ArrayType, Scalar, TupleType, resolve_type, scalar_of

if TYPE_CHECKING:
    from .frontend import FunctionChecker

LAUNCH_QUERIES = ("thread_idx", "block_idx", "block_dim", "grid_dim")
SCALAR_QUERIES = {"lane_id": Scalar.I32, "warp_id": Scalar.I32, "clock": Scalar.I64}
ATOMICS = {"atomic_add": AtomOp.ADD, "atomic_sub": AtomOp.SUB, "atomic_min": AtomOp.MIN,
           "atomic_max": AtomOp.MAX, "atomic_cas": AtomOp.CAS, "atomic_exch": AtomOp.EXCH}
STATEMENT_ONLY = ("sync_threads", "block_until")
SPECIAL_NAMES = frozenset(("tid", *LAUNCH_QUERIES, *SCALAR_QUERIES, *ATOMICS, *STATEMENT_ONLY,
                           "shared_array"))
PYTHON_BUILTINS = {builtins.min: "min", builtins.max: "max", builtins.abs: "abs",
                   builtins.round: "round", builtins.pow: "pow"}


def _resolve_callee(ck: "FunctionChecker", node: ast.Call):
    callee = ck.expr(node.func)
    if not isinstance(callee, Static):
        raise ck.error(f"{ast.unparse(node.func)!r} is not a function", node.func)
    for a in node.args:
        if isinstance(a, ast.Starred):
            raise ck.error("*args in calls are not supported in kernels; pass each argument", a)
    for k in node.keywords:
        if k.arg is None:
            raise ck.error("**kwargs in calls are not supported in kernels; pass each argument", k.value)
    return callee


def statement_call(ck: "FunctionChecker", node: ast.Call) -> hir.Stmt | None:
    """sync_threads() and block_until(cond): calls that are statements."""
    callee = _resolve_callee(ck, node)
    obj = callee.obj
    if not isinstance(obj, BuiltinFunction) or obj.name not in STATEMENT_ONLY:
        return None
    if obj.name == "sync_threads":
        _arity(ck, node, 0, "sync_threads")
        return hir.SyncThreads(ck.loc(node))
    _arity(ck, node, 1, "block_until")
    return hir.BlockUntil(ck.loc(node), cond=ck.condition(node.args[0]))


def _arity(ck, node: ast.Call, n: int, name: str) -> None:
    if node.keywords:
        raise ck.error(f"{name}() takes no keyword arguments", node)
    if len(node.args) != n:
        raise ck.error(f"{name}() takes {n} argument{'s' if n != 1 else ''}, got {len(node.args)}", node)


def check_call(ck: "FunctionChecker", node: ast.Call, unpack: int):
    callee = _resolve_callee(ck, node)
    obj = callee.obj
    if isinstance(obj, BuiltinFunction):
        if obj.name in SPECIAL_NAMES:
            return _special(ck, obj.name, node, unpack)
        return _builtin(ck, obj.name, node, f"{callee.text}")
    if getattr(obj, "_simt_func", False):
        return _device_call(ck, obj, node, callee.text)
    if obj is builtins.range:
        raise ck.error("range() can only be used in a for loop: 'for i in range(n):'", node)
    if obj is builtins.len:
        _arity(ck, node, 1, "len")
        v = ck.value(node.args[0])
        if isinstance(v.type, ArrayType):
            return ck.array_dim(v, 0, node)
        n = component_count(v.type)
        if n == 0:
            raise ck.error(f"len() of a {v.type} is not defined", node)
        return hir.Const(Scalar.I32, ck.loc(node), value=n, literal=True)
    try:
        python_builtin = PYTHON_BUILTINS.get(obj)
    except TypeError:   # unhashable object
        python_builtin = None
    if python_builtin is not None:
        return _builtin(ck, python_builtin, node, callee.text)
    t = resolve_type(obj)
    if t is not None:
        if isinstance(t, ArrayType):
            raise ck.error("arrays cannot be created inside kernels; use simt.shared.array(...) or "
                           "pass an array argument", node)
        return _builtin(ck, str(t), node, callee.text, literal_type=t)
    if getattr(obj, "__module__", None) == "math" or getattr(math, getattr(obj, "__name__", ""), None) is obj:
        if lookup(obj.__name__) is not None:
            return _builtin(ck, obj.__name__, node, callee.text)
    if getattr(obj, "__name__", None) == "print" or obj is builtins.print:
        raise ck.error("print() is not supported in kernels", node)
    raise ck.error(f"{callee.text!r} cannot be called inside a kernel: it is not a simt builtin, "
                   f"type or @simt.func", node)


def _builtin(ck: "FunctionChecker", name: str, node: ast.Call, shown: str,
             literal_type=None) -> hir.Expr:
    """A registry builtin. ``literal_type``: constructors give untyped literals their type
    (``float64(0.1)`` is the double nearest 0.1, not a widened float32)."""
    if node.keywords:
        raise ck.error(f"{shown}() does not take keyword arguments in kernels", node)
    args = [ck.value(a) for a in node.args]
    if literal_type is not None:
        args = [adapt(a, scalar_of(literal_type)) for a in args]
    if lookup(name) is None:
        raise ck.error(f"unknown builtin {shown!r} (no builtin named {name!r} is registered)", node)
    return ck.call_builtin(name, args, node, shown)


# ---- special forms --------------------------------------------------------------------

def _special(ck: "FunctionChecker", name: str, node: ast.Call, unpack: int) -> hir.Expr:
    loc = ck.loc(node)
    sig = ck.ctx.sig
    if name in STATEMENT_ONLY:
        raise ck.error(f"{name}() returns nothing; call it as a statement", node)
    if name == "tid":
        _arity(ck, node, 0, name)
        if sig is not None and unpack > max(sig.dim_ndim, 1):
            raise ck.error(f"the kernel unpacks {unpack} indices from tid() but is launched with a "
                           f"{sig.dim_ndim}-D dim; launch with dim of {unpack} values", node)
        ck.ctx.tid_ndim = max(ck.ctx.tid_ndim, unpack)
        return _index_result("tid", unpack, loc)
    if name in LAUNCH_QUERIES:
        _arity(ck, node, 0, name)
        block_ndim = sig.block_ndim if sig is not None else unpack
        if unpack != block_ndim:
            if block_ndim == 1:
                raise ck.error(f"{name}() returns one int for a 1-D block; "
                               f"it cannot be unpacked into {unpack} values", node)
            raise ck.error(f"{name}() returns {block_ndim} values for a {block_ndim}-D block; unpack "
                           f"them: {', '.join('zyx'[3 - block_ndim:])} = {name}()", node)
        ck.ctx.thread_idx_ndim = max(ck.ctx.thread_idx_ndim, unpack)
        return _index_result(name, unpack, loc)
    if name in SCALAR_QUERIES:
        _arity(ck, node, 0, name)
        return hir.Special(SCALAR_QUERIES[name], loc, name=name)
    if name in ATOMICS:
        return _atomic(ck, ATOMICS[name], name, node)
    if name == "shared_array":
        return _shared_array(ck, node)
    raise ck.error(f"unknown special form {name!r}", node)


def _index_result(name: str, count: int, loc) -> hir.Special:
    t = Scalar.I32 if count == 1 else TupleType((Scalar.I32,) * count)
    return hir.Special(t, loc, name=name, count=count)


def _atomic(ck: "FunctionChecker", op: AtomOp, name: str, node: ast.Call) -> hir.Expr:
    if node.keywords:
        raise ck.error(f"{name}() takes positional arguments: ({name}(array, index..., value))", node)
    nvalues = 2 if op is AtomOp.CAS else 1
    usage = f"{name}(array, i[, j, k], {'compare, ' if op is AtomOp.CAS else ''}value)"
    if len(node.args) < 2 + nvalues:
        raise ck.error(f"{name}() takes the array, one index per dimension and the value: {usage}", node)
    array = ck.value(node.args[0])
    if not isinstance(array.type, ArrayType):
        raise ck.error(f"the first argument of {name}() must be an array, got {array.type}", node.args[0])
    at = array.type
    index_nodes = node.args[1:len(node.args) - nvalues]
    if len(index_nodes) != at.ndim:
        raise ck.error(f"{name}() on a {at.ndim}-D array needs {at.ndim} indices, got "
                       f"{len(index_nodes)}: {usage}", node)
    indices = [ck.index(i) for i in index_nodes]
    values = []
    for v_node in node.args[len(node.args) - nvalues:]:
        v = adapt(ck.value(v_node), at.dtype)
        if not same_type(v.type, at.dtype):
            raise ck.error(f"{name}() on an array of {at.dtype} needs a {at.dtype} value, got {v.type}",
                           v_node)
        values.append(v)
    s = scalar_of(at.dtype)
    if s in (Scalar.BOOL, Scalar.I8, Scalar.U8):
        raise ck.error(f"atomics need 32- or 64-bit elements, the array holds {at.dtype}", node)
    if op is AtomOp.CAS and not isinstance(at.dtype, Scalar):
        raise ck.error("atomic_cas works on arrays of scalars only", node)
    return hir.Atomic(at.dtype, ck.loc(node), op=op, array=array, indices=indices, values=values)


def _static_shape(ck: "FunctionChecker", node: ast.expr) -> tuple[int, ...]:
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    shape = []
    for e in elts:
        v = ck.expr(e)
        if isinstance(v, Static) and isinstance(v.obj, tuple) and len(elts) == 1:
            if all(isinstance(s, int) for s in v.obj):
                return tuple(int(s) for s in v.obj)
        if not (isinstance(v, hir.Const) and isinstance(v.value, int) and not isinstance(v.value, bool)):
            raise ck.error("shared array shapes must be compile-time constant integers (literals or "
                           "module-level constants), e.g. shape=(16, 16)", e)
        if v.value <= 0:
            raise ck.error(f"shared array dimensions must be positive, got {v.value}", e)
        shape.append(int(v.value))
    if not 1 <= len(shape) <= 4:
        raise ck.error("shared arrays have 1 to 4 dimensions", node)
    return tuple(shape)


def _shared_array(ck: "FunctionChecker", node: ast.Call) -> hir.Expr:
    names = ["shape", "dtype", "layout"]
    given: dict[str, ast.expr] = {}
    if len(node.args) > 3:
        raise ck.error("shared.array(shape, dtype, layout) takes at most 3 arguments", node)
    for n, a in zip(names, node.args):
        given[n] = a
    for k in node.keywords:
        if k.arg not in names:
            raise ck.error(f"shared.array() has no argument {k.arg!r} (shape, dtype, layout)", k.value)
        if k.arg in given:
            raise ck.error(f"shared.array() got {k.arg!r} twice", k.value)
        given[k.arg] = k.value
    if "shape" not in given:
        raise ck.error("shared.array() needs a shape: simt.shared.array(shape=(16,), dtype=float)", node)
    shape = _static_shape(ck, given["shape"])
    dtype = Scalar.F32
    if "dtype" in given:
        d = ck.expr(given["dtype"])
        t = resolve_type(d.obj) if isinstance(d, Static) else None
        if t is None or not hir.is_value_type(t):
            raise ck.error(f"unsupported shared array dtype {ast.unparse(given['dtype'])!r}; use a "
                           f"scalar or composite type (float, int, simt.vec3, ...)", given["dtype"])
        dtype = t
    layout = "row_major"
    if "layout" in given:
        lnode = given["layout"]
        if not (isinstance(lnode, ast.Constant) and lnode.value in ("row_major", "column_major")):
            raise ck.error('layout must be "row_major" or "column_major"', lnode)
        layout = lnode.value
    t = ArrayType(dtype, len(shape), shape, layout)
    return hir.SharedArray(t, ck.loc(node))


# ---- device functions -----------------------------------------------------------------

def _device_call(ck: "FunctionChecker", obj, node: ast.Call, text: str) -> hir.Expr:
    from .frontend import FunctionChecker
    overloads = list(getattr(obj, "overloads", None) or [getattr(obj, "py_func", None)])
    if overloads[0] is None:
        raise ck.error(f"{text!r} is marked as a simt function but has no .py_func", node)
    args = [ck.value(a) for a in node.args]
    kwargs = {k.arg: ck.value(k.value) for k in node.keywords}
    reasons = []
    for py_func in overloads:
        pf = parse_function(py_func)
        check_signature(pf)
        fit = _bind(ck, pf, args, kwargs, node)
        if isinstance(fit, str):
            reasons.append(fit)
            continue
        params, values = fit
        break
    else:
        types = ", ".join([str(a.type) for a in args] + [f"{k}={v.type}" for k, v in kwargs.items()])
        detail = reasons[0] if len(reasons) == 1 else "no overload matches:\n  " + "\n  ".join(reasons)
        raise ck.error(f"cannot call {text}({types}): {detail}", node)
    key = (py_func, tuple(t for _, t in params))
    fd = ck.ctx.specializations.get(key)
    if fd is None:
        if py_func in ck.ctx.stack:
            raise ck.error(f"recursive call of {pf.name}(): device functions are inlined, so "
                           f"recursion is not supported; rewrite it as a loop", node)
        declared = None
        returns = pf.tree.returns
        if returns is not None:
            if isinstance(returns, ast.Constant) and returns.value is None:
                declared = VOID
            else:
                declared = resolve_type(pf.evaluate(returns, returns))
                if declared is None or not hir.is_value_type(declared):
                    raise CompileError(f"unsupported return annotation {ast.unparse(returns)!r}",
                                       pf.loc(returns))
        ck.ctx.stack.append(py_func)
        try:
            fd = FunctionChecker(ck.ctx, pf, params, is_kernel=False, return_type=declared).check()
        finally:
            ck.ctx.stack.pop()
        ck.ctx.specializations[key] = fd
    first = []
    if kwargs and list(kwargs) != [p for p, _ in params if p in kwargs]:
        # keywords out of parameter order: evaluate the arguments in source order first
        by_value = {id(v): k for k, v in enumerate(args + list(kwargs.values()))}
        source = [hir.once(v) for v in args + list(kwargs.values())]
        values = [_reuse(v, by_value, source) for v in values]
        first = source
    return hir.InlineCall(fd.return_type, ck.loc(node), func=fd, args=values, first=first)


def _reuse(value: hir.Expr, by_value: dict, source: list) -> hir.Expr:
    """A bound argument reading the once-evaluated source argument it came from (an adapted
    literal is a new constant: nothing to reuse)."""
    k = by_value.get(id(value))
    return value if k is None else source[k]


def _bind(ck: "FunctionChecker", pf, args, kwargs, node):
    """(params, argument values) if the call fits ``pf``'s signature, else why not."""
    signature = inspect.signature(pf.func)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        return f"{pf.name}(): {e}"
    params: list[tuple[str, object]] = []
    values: list[hir.Expr] = []
    for pname, p in signature.parameters.items():
        if pname in bound.arguments:
            v = bound.arguments[pname]
        else:
            v = constant(p.default, ck.loc(node))
            if v is None:
                return f"{pf.name}(): the default of {pname!r} must be a number or bool"
        if p.annotation is not inspect.Parameter.empty:
            ann = p.annotation
            if isinstance(ann, str):
                ann = pf.evaluate(ann, _param_node(pf, pname))
            annotated = resolve_type(ann)
            if annotated is None:
                raise CompileError(f"unsupported annotation {ann!r} for parameter {pname!r}",
                                   pf.loc(_param_node(pf, pname)))
            v = adapt(v, annotated)
            if not same_type(v.type, annotated):
                return f"{pf.name}(): argument {pname!r} must be {annotated}, got {v.type}"
        if v.type == VOID or isinstance(v.type, TupleType):
            return f"{pf.name}(): argument {pname!r} is not a value"
        params.append((pname, v.type))
        values.append(v)
    return params, values


def _param_node(pf, name: str) -> ast.AST:
    for a in pf.tree.args.args + pf.tree.args.kwonlyargs + pf.tree.args.posonlyargs:
        if a.arg == name:
            return a
    return pf.tree


def check_signature(pf) -> None:
    """No *args / **kwargs: every parameter needs one static type."""
    a = pf.tree.args
    if a.vararg is not None:
        raise CompileError(f"*{a.vararg.arg} parameters are not supported in kernels or simt "
                           f"functions; list each parameter", pf.loc(a.vararg))
    if a.kwarg is not None:
        raise CompileError(f"**{a.kwarg.arg} parameters are not supported in kernels or simt "
                           f"functions; list each parameter", pf.loc(a.kwarg))
