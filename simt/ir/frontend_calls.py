"""Type-checking calls: registry builtins, type constructors, special forms (tid, atomics,
shared arrays, barriers) and device functions (typed per argument types, inlined later)."""
from __future__ import annotations

import ast
import builtins
import inspect
import math
import typing
from typing import TYPE_CHECKING

from ..errors import CompileError
from . import hir
from .mir import AtomOp
from .frontend_rules import Static, adapt, component_count, constant, same_type
from .frontend_print import printing_name, printing_statement
from .pyfunc import parse_function
from .registry import LIBRARY, BuiltinFunction, LibraryFunction, StaticArg, lookup
from .types import (VOID, ArrayType, GenericType, RefType, Scalar, StructType, TupleType,
                    generic_matches, is_generic, resolve_type, scalar_of)

if TYPE_CHECKING:
    from .frontend import FunctionChecker

LAUNCH_QUERIES = ("thread_idx", "block_idx", "block_dim", "grid_dim")
SCALAR_QUERIES = {"lane_id": Scalar.I32, "warp_id": Scalar.I32, "clock": Scalar.I64}
ATOMICS = {"atomic_add": AtomOp.ADD, "atomic_sub": AtomOp.SUB, "atomic_min": AtomOp.MIN,
           "atomic_max": AtomOp.MAX, "atomic_cas": AtomOp.CAS, "atomic_exch": AtomOp.EXCH,
           "atomic_and": AtomOp.AND, "atomic_or": AtomOp.OR, "atomic_xor": AtomOp.XOR}
STATEMENT_ONLY = ("sync_threads", "block_until")
SPECIAL_NAMES = frozenset(("tid", *LAUNCH_QUERIES, *SCALAR_QUERIES, *ATOMICS, *STATEMENT_ONLY,
                           "shared_array"))
PYTHON_BUILTINS = {builtins.min: "min", builtins.max: "max", builtins.abs: "abs",
                   builtins.round: "round", builtins.pow: "pow"}


def _resolve_callee(ck: "FunctionChecker", node: ast.Call):
    if isinstance(node.func, ast.Call):       # vector(3, float32)(...): the type, then a value
        inner = _resolve_callee(ck, node.func)
        obj = _from_warp(inner.obj)
        if getattr(obj, "_simt_type_factory", False):
            callee = _static_call(ck, obj, node.func, inner.text, as_callee=True)
        else:
            callee = ck.expr(node.func)
    else:
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


class _Shape:
    """What static() sees of a vector/matrix variable: its length."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n


def _from_warp(obj):
    """One of warp-lang's builtin function objects (``wp.tid`` of a ``import warp``) stands for
    the simt builtin of the same name."""
    if getattr(obj, "__name__", None) == "static" and \
            str(getattr(obj, "__module__", "")).startswith("warp."):
        from ..kernel import static
        return static
    if type(obj).__name__ == "Function" and type(obj).__module__.startswith("warp.") \
            and isinstance(getattr(obj, "key", None), str) and getattr(obj, "is_builtin", None):
        try:
            if obj.is_builtin():
                if obj.key == "static":
                    from ..kernel import static
                    return static
                return BuiltinFunction(obj.key)
        except TypeError:
            pass
    return obj


def statement_call(ck: "FunctionChecker", node: ast.Call) -> hir.Stmt | None:
    """sync_threads() and block_until(cond): calls that are statements."""
    callee = _resolve_callee(ck, node)
    obj = _from_warp(callee.obj)
    printing = printing_name(obj)
    if printing is not None:
        return printing_statement(ck, printing, node)
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
    obj = _from_warp(callee.obj)
    if isinstance(obj, BuiltinFunction):
        if obj.name in SPECIAL_NAMES:
            return _special(ck, obj.name, node, unpack)
        if obj.name in LIBRARY:
            return _library_call(ck, LIBRARY[obj.name], node, callee.text)
        return _builtin(ck, obj.name, node, f"{callee.text}")
    if getattr(obj, "_simt_native", False):
        raise ck.error(f"{callee.text}() is a native C++/CUDA snippet (wp.func_native); simt "
                       f"cannot run native code", node)
    if getattr(obj, "_simt_func", False):
        return _device_call(ck, obj, node, callee.text)
    if getattr(obj, "_simt_static", False):        # simt.static(expr): evaluated now
        _arity(ck, node, 1, "static")
        names = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
        known = dict(ck.static_values)
        for name in names & set(ck.vars):          # len(v) of a vector, matrix... is static
            if component_count(ck.vars[name]) and name not in known:
                known[name] = _Shape(component_count(ck.vars[name]))
        for n in ast.walk(node.args[0]):                # n = 3 earlier in the body
            value = ck.literal_local(n) if getattr(n, "id", None) not in known else None
            if value is not None:
                known[n.id] = value
        local = sorted(names & (ck.local_names | set(ck.vars)) - set(known))
        if local:
            raise ck.error(f"static() of {local[0]!r}, a variable of the kernel: static() is "
                           f"evaluated while compiling, so it reads names of the enclosing scope, "
                           f"locals bound once to a literal before it, and the variables of loops "
                           f"over constant ranges", node.args[0])
        value = ck.pf.evaluate(node.args[0], node.args[0], known)
        return ck.static_or_constant(value, ast.unparse(node.args[0]), node)
    if getattr(obj, "_simt_type_factory", False):  # vector(3, float32) & co: a type, now
        return _static_call(ck, obj, node, callee.text)
    if obj is builtins.range:
        raise ck.error("range() can only be used in a for loop: 'for i in range(n):'", node)
    if obj is builtins.type:                      # type(x): x's type, known while compiling
        _arity(ck, node, 1, "type")
        from ..types import public_type
        return Static(public_type(ck.value(node.args[0]).type), f"type({ast.unparse(node.args[0])})")
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
    if isinstance(t, StructType):
        return _struct_new(ck, t, node, callee.text)
    if t is not None:
        if isinstance(t, ArrayType):
            raise ck.error(f"{callee.text}() is not supported by simt in kernels: arrays cannot be "
                           f"created inside kernels; use simt.shared.array(...) or pass an array "
                           f"argument", node)
        if not isinstance(t, Scalar):
            from .builtins import constructor_for
            return _builtin(ck, constructor_for(t), node, callee.text, literal_type=t)
        return _builtin(ck, str(t), node, callee.text, literal_type=t)
    if getattr(obj, "__module__", None) == "math" or getattr(math, getattr(obj, "__name__", ""), None) is obj:
        if lookup(obj.__name__) is not None:
            return _builtin(ck, obj.__name__, node, callee.text)
    if printing_name(obj) is not None:
        raise ck.error(f"{callee.text}() prints and returns nothing; call it as a statement", node)
    name = getattr(obj, "__name__", "")
    if str(getattr(obj, "__module__", "")).split(".")[0] in ("simt", "warp") and name:
        from .warp_names import WARP_BUILTINS
        if name in WARP_BUILTINS:                  # e.g. simt.zeros: a host function here
            raise ck.error(unsupported_builtin(name, callee.text), node)
    raise ck.error(f"{callee.text!r} cannot be called inside a kernel: it is not a simt builtin, "
                   f"type or @simt.func", node)


def _static_call(ck: "FunctionChecker", obj, node: ast.Call, shown: str, as_callee: bool = False):
    """``vector(3, float32)`` and friends: called where a type is called (``vector(...)(x)``),
    a type made while compiling; called on values (``vector(x, y, length=2)``), a value."""
    def static_value(arg: ast.expr):
        v = ck.expr(arg)
        if isinstance(v, Static):
            return v.obj
        if isinstance(v, hir.Const):
            return v.value
        return v
    args = [static_value(a) for a in node.args]
    kwargs = {k.arg: static_value(k.value) for k in node.keywords}
    if not as_callee and (any(isinstance(a, hir.Expr) for a in args) or
                          all(k in ("dtype", "length", "shape") for k in kwargs)):
        return _value_factory(ck, obj.__name__, node, shown)
    if any(isinstance(v, hir.Expr) for v in (*args, *kwargs.values())):
        raise ck.error(f"{shown}() needs compile-time arguments (numbers and types)", node)
    try:
        return Static(obj(*args, **kwargs), f"{shown}(...)")
    except (TypeError, ValueError) as e:
        raise ck.error(f"{shown}(): {e}", node) from None


def _value_factory(ck: "FunctionChecker", kind: str, node: ast.Call, shown: str) -> hir.Expr:
    """Warp's ``vector(*args, length=, dtype=)``, ``matrix(*args, shape=, dtype=)``,
    ``quaternion(*args, dtype=)``, ``transformation(p, q, dtype=)`` in kernels: the type comes
    from the keywords, else from the arguments; the values go to that type's constructor."""
    from .builtins import constructor_for
    from .types import matrix_type, quat_type, transform_type, vector_type
    args = [ck.value(a) for a in node.args]
    kw = {}
    for k in node.keywords:
        v = ck.expr(k.value)
        value = v.obj if isinstance(v, Static) else v.value if isinstance(v, hir.Const) else None
        if value is None:
            raise ck.error(f"{shown}(): {k.arg}= must be a constant or a type", k.value)
        kw[k.arg] = value
    dtype = resolve_type(kw["dtype"]) if "dtype" in kw else None
    if dtype is not None and not isinstance(dtype, Scalar):
        raise ck.error(f"{shown}(): dtype must be a scalar type", node)
    values = [a for a in args if isinstance(a.type, Scalar)]
    if dtype is None:
        typed = [a for a in args if not (isinstance(a, hir.Const) and a.literal)]
        first = typed[0] if typed else (args[0] if args else None)
        dtype = scalar_of(first.type) if first is not None else Scalar.F32
    if kind == "vector":
        n = kw.get("length") or (args[0].type.n if len(args) == 1 and hasattr(args[0].type, "n")
                                 else len(values))
        t = vector_type(dtype, int(n))
    elif kind == "matrix":
        if len(args) == 3 and not values:               # matrix(pos, rot, scale): T R S
            return _library(ck, "transform_compose", args, node)
        shape = kw.get("shape")
        if shape is None:
            if len(args) == 1 and hasattr(args[0].type, "rows"):
                shape = (args[0].type.rows, args[0].type.cols)
            else:
                raise ck.error(f"{shown}() needs shape=(rows, cols)", node)
        t = matrix_type(dtype, int(shape[0]), int(shape[1]))
    elif kind == "quaternion":
        t = quat_type(dtype)
    else:
        t = transform_type(dtype)
    args = [adapt(a, dtype) for a in args]
    return ck.call_builtin(constructor_for(t), args, node, shown)


def _library(ck, name: str, args: list, node: ast.Call) -> hir.Expr:
    import importlib
    lib = LIBRARY[name]
    func = getattr(importlib.import_module(lib.module), lib.function)
    return _device_call(ck, func, node, name, args, {})


def _builtin(ck: "FunctionChecker", name: str, node: ast.Call, shown: str,
             literal_type=None) -> hir.Expr:
    """A registry builtin. ``literal_type``: constructors give untyped literals their type
    (``float64(0.1)`` is the double nearest 0.1, not a widened float32)."""
    args = [ck.value(a) for a in node.args]
    if literal_type is not None:
        args = [adapt(a, scalar_of(literal_type), explicit=True) for a in args]
    for k in node.keywords:          # compile-time keywords: dtype=float64, length=3, ...
        v = ck.expr(k.value)
        value = v.obj if isinstance(v, Static) else v.value if isinstance(v, hir.Const) else None
        if value is None or k.arg is None:
            raise ck.error(f"{shown}(): keyword {k.arg!r} must be a type or a constant here",
                           k.value)
        resolved = resolve_type(value)
        args.append(hir.StaticKeyword(StaticArg(k.arg, resolved if resolved is not None else value),
                                      ck.loc(k.value)))
    if lookup(name) is None:
        raise ck.error(unsupported_builtin(name, shown), node)
    return ck.call_builtin(name, args, node, shown)


def unsupported_builtin(name: str, shown: str) -> str:
    """The message for a builtin simt does not have: Warp's name and group when it is one."""
    from .warp_names import SKIPPED_GROUPS, WARP_BUILTINS
    group = WARP_BUILTINS.get(name)
    if group is None:
        return f"unknown builtin {shown!r} (no builtin named {name!r} is registered)"
    if group in SKIPPED_GROUPS:
        return (f"{shown}() is not supported by simt: Warp's {SKIPPED_GROUPS[group]} "
                f"({group}) are outside simt's kernel language")
    return f"{shown}() is not supported by simt yet (Warp builtin '{name}', group {group})"


def _struct_new(ck: "FunctionChecker", t: StructType, node: ast.Call, shown: str) -> hir.Expr:
    """``S(...)``: fields by position or by name; fields not given are zero."""
    names = [n for n, _ in t.fields]
    if len(node.args) > len(names):
        raise ck.error(f"{shown}() takes at most {len(names)} field values, got {len(node.args)}", node)
    given: dict[int, ast.expr] = dict(enumerate(node.args))
    for k in node.keywords:
        if k.arg not in names:
            raise ck.error(f"struct {t.name} has no field {k.arg!r}", k.value)
        if names.index(k.arg) in given:
            raise ck.error(f"{shown}() got field {k.arg!r} twice", k.value)
        given[names.index(k.arg)] = k.value
    fields: list = []
    for k, (fname, ftype) in enumerate(t.fields):
        if k not in given:
            fields.append(None)
            continue
        v = adapt(ck.value(given[k]), ftype)
        if not same_type(v.type, ftype):
            raise ck.error(f"field {fname!r} of {t.name} is {ftype}, got {v.type}", given[k])
        fields.append(v)
    return hir.StructNew(t, ck.loc(node), fields=fields)


# ---- special forms --------------------------------------------------------------------

def _special(ck: "FunctionChecker", name: str, node: ast.Call, unpack: int) -> hir.Expr:
    loc = ck.loc(node)
    sig = ck.ctx.sig
    if name in STATEMENT_ONLY:
        raise ck.error(f"{name}() returns nothing; call it as a statement", node)
    if name == "tid":
        _arity(ck, node, 0, name)
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
    if s.bits not in (32, 64):
        raise ck.error(f"atomics need 32- or 64-bit elements, the array holds {at.dtype}", node)
    if op in (AtomOp.AND, AtomOp.OR, AtomOp.XOR) and not s.is_int:
        raise ck.error(f"{name}() takes integer arrays (bitwise), not {at.dtype}", node)
    if op is AtomOp.CAS and not isinstance(at.dtype, Scalar):
        raise ck.error("atomic_cas works on arrays of scalars only", node)
    return hir.Atomic(at.dtype, ck.loc(node), op=op, array=array, indices=indices, values=values)


def _static_value(ck: "FunctionChecker", node: ast.expr):
    """A compile-time constant (a literal, or a constant from the kernel's scope), else None."""
    if isinstance(node, ast.Constant):
        return node.value
    v = ck.expr(node)
    if isinstance(v, hir.Const):
        return v.value
    if isinstance(v, Static) and isinstance(v.obj, (str, int)):
        return v.obj
    return None


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
    names = ["shape", "dtype", "layout", "pad"]
    given: dict[str, ast.expr] = {}
    if len(node.args) > 4:
        raise ck.error("shared.array(shape, dtype, layout, pad) takes at most 4 arguments", node)
    for n, a in zip(names, node.args):
        given[n] = a
    for k in node.keywords:
        if k.arg not in names:
            raise ck.error(f"shared.array() has no argument {k.arg!r} (shape, dtype, layout, pad)", k.value)
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
        layout = _static_value(ck, lnode)
        if layout not in ("row_major", "column_major"):
            raise ck.error('layout must be the constant "row_major" or "column_major"', lnode)
    pad = 0
    if "pad" in given:
        pnode = given["pad"]
        pad = _static_value(ck, pnode)
        if not (type(pad) is int and 0 <= pad <= 1024):
            raise ck.error("pad must be a constant int from 0 to 1024: the elements added to each row "
                           "(each column for column_major)", pnode)
    t = ArrayType(dtype, len(shape), shape, layout, pad)
    return hir.SharedArray(t, ck.loc(node))


# ---- device functions -----------------------------------------------------------------

def _library_call(ck: "FunctionChecker", lib: LibraryFunction, node: ast.Call, text: str) -> hir.Expr:
    """A builtin written in the kernel language (simt/lib): a device call whose tuple result
    ends with the new values of the arguments it updates."""
    import importlib
    func = getattr(importlib.import_module(lib.module), lib.function)
    args = [ck.value(a) for a in node.args]
    kwargs = {k.arg: ck.value(k.value) for k in node.keywords}
    call = _device_call(ck, func, node, text, args, kwargs)
    if not lib.inout:
        return call
    full = call.type
    n_updated = len([k for k in lib.inout if k < len(args)])
    if not isinstance(full, TupleType) or len(full.elems) < n_updated:
        raise ck.error(f"internal error: library function {lib.name} must return the new values "
                       f"of the arguments it updates", node)
    result_parts = full.elems[:len(full.elems) - n_updated]
    result = VOID if not result_parts else result_parts[0] if len(result_parts) == 1 \
        else TupleType(tuple(result_parts))

    def make_call(_full):
        call.type = full
        return call
    return ck.write_back(result, args, lib.inout, node, make_call)


def _device_call(ck: "FunctionChecker", obj, node: ast.Call, text: str, args=None,
                 kwargs=None) -> hir.Expr:
    from .frontend import FunctionChecker
    overloads = list(getattr(obj, "overloads", None) or [getattr(obj, "py_func", None)])
    if overloads[0] is None:
        raise ck.error(f"{text!r} is marked as a simt function but has no .py_func", node)
    if args is None:
        args = [_argument(ck, a) for a in node.args]
        kwargs = {k.arg: _argument(ck, k.value) for k in node.keywords}
    reasons = []
    for py_func in overloads:
        pf = parse_function(py_func)
        check_signature(pf)
        fit = _bind(ck, pf, args, kwargs, node)
        if isinstance(fit, str):
            reasons.append(fit)
            continue
        params, values, refs, functions = fit
        break
    else:
        types = ", ".join([_describe_argument(a) for a in args]
                          + [f"{k}={_describe_argument(v)}" for k, v in kwargs.items()])
        detail = reasons[0] if len(reasons) == 1 else "no overload matches:\n  " + "\n  ".join(reasons)
        raise ck.error(f"cannot call {text}({types}): {detail}", node)
    key = (py_func, tuple(t for _, t in params),
           tuple((name, id(f.obj)) for name, f in functions.items()))
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
                annotation = getattr(pf.func, "__annotations__", {}).get("return", returns)
                if isinstance(annotation, (str, ast.AST)):   # written as text: evaluate it
                    annotation = pf.evaluate(annotation, returns)
                declared = resolve_type(annotation)
                if is_generic(declared) or typing.get_origin(annotation) is tuple or annotation is tuple:
                    declared = None                    # inferred from the returns
                elif declared is None or not hir.is_value_type(declared):
                    raise CompileError(f"unsupported return annotation {ast.unparse(returns)!r}",
                                       pf.loc(returns))
        ck.ctx.stack.append(py_func)
        try:
            callee = FunctionChecker(ck.ctx, pf, params, is_kernel=False, return_type=declared)
            callee.aliases.update(functions)        # g: wp.Function is the function passed
            fd = callee.check()
        finally:
            ck.ctx.stack.pop()
        fd.ref_params = refs
        ck.ctx.specializations[key] = fd
    bound = values
    for k, (name, _) in enumerate(params):
        if name in refs and isinstance(values[k], hir.ArrayLoad):
            # an array element passed by reference: its index runs once, for the read and
            # for the store back (Warp passes the element's address)
            values[k].indices = [hir.once(i) for i in values[k].indices]
            values[k].path = [hir.once(i) for i in values[k].path]
    first = []
    if kwargs and list(kwargs) != [p for p in inspect.signature(py_func).parameters if p in kwargs]:
        # keywords out of parameter order: evaluate the arguments in source order first
        given = [v for v in args + list(kwargs.values()) if not isinstance(v, Static)]
        by_value = {id(v): k for k, v in enumerate(given)}
        source = [hir.once(v) for v in given]
        values = [_reuse(v, by_value, source) for v in values]
        first = source

    def make_call(full):
        return hir.InlineCall(full, ck.loc(node), func=fd, args=values, first=first)
    if not refs:
        return make_call(fd.return_type)
    # references: the call also yields the final values of its ref parameters, stored back
    # to the places the arguments name
    positions = tuple(k for k, (name, _) in enumerate(params) if name in refs)
    return ck.write_back(fd.return_type, bound, positions, node, make_call, arrays=True)


def _reuse(value: hir.Expr, by_value: dict, source: list) -> hir.Expr:
    """A bound argument reading the once-evaluated source argument it came from (an adapted
    literal is a new constant: nothing to reuse)."""
    k = by_value.get(id(value))
    return value if k is None else source[k]


def _is_function(obj) -> bool:
    """A device function or builtin that can be passed to a ``wp.Function`` parameter."""
    obj = _from_warp(obj)
    return isinstance(obj, BuiltinFunction) or getattr(obj, "_simt_func", False)


def _argument(ck: "FunctionChecker", node: ast.expr):
    """A call argument: a value, or (for ``wp.Function`` parameters) a function named by it."""
    e = ck.expr(node)
    if isinstance(e, Static) and _is_function(e.obj):
        return Static(_from_warp(e.obj), e.text)
    return ck.as_value(e, node)


def _describe_argument(a) -> str:
    return f"function {a.text}" if isinstance(a, Static) else str(a.type)


def _is_function_annotation(ann) -> bool:
    from ..kernel import Function
    return ann is Function or (getattr(ann, "__name__", None) == "Function"
                               and str(getattr(ann, "__module__", "")).startswith("warp"))


def _bind(ck: "FunctionChecker", pf, args, kwargs, node):
    """(params, argument values, ref parameters, function parameters) if the call fits
    ``pf``'s signature, else why not."""
    signature = inspect.signature(pf.func)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        return f"{pf.name}(): {e}"
    params: list[tuple[str, object]] = []
    values: list[hir.Expr] = []
    refs: set[str] = set()
    functions: dict[str, Static] = {}
    for pname, p in signature.parameters.items():
        ann = p.annotation
        if isinstance(ann, str):
            ann = pf.evaluate(ann, _param_node(pf, pname))
        if pname in bound.arguments:
            v = bound.arguments[pname]
        elif _is_function(p.default):
            v = Static(_from_warp(p.default), getattr(p.default, "__name__", pname))
        else:
            v = constant(p.default, ck.loc(node))
            if v is None:
                return f"{pf.name}(): the default of {pname!r} must be a number or bool"
        if _is_function_annotation(ann):
            if not isinstance(v, Static):
                return f"{pf.name}(): argument {pname!r} must be a function, got a {v.type}"
            functions[pname] = v
            continue
        if isinstance(v, Static):
            return (f"{pf.name}(): argument {pname!r} is the function {v.text}; a parameter that "
                    f"takes a function is annotated wp.Function")
        if p.annotation is not inspect.Parameter.empty:
            annotated = resolve_type(ann)
            if annotated is None:
                raise CompileError(f"unsupported annotation {ann!r} for parameter {pname!r}",
                                   pf.loc(_param_node(pf, pname)))
            if isinstance(annotated, RefType) and isinstance(annotated.value, ArrayType):
                annotated = annotated.value      # wp.ref[array]: an array is a reference already
            if isinstance(annotated, RefType):
                if ck.write_target(v) is None:
                    return (f"{pf.name}(): argument {pname!r} is passed by reference (ref[...]): "
                            f"pass a variable, a field or an array element")
                refs.add(pname)
                annotated = annotated.value
            if is_generic(annotated):                 # takes the argument's type, if it fits
                if isinstance(v, hir.Const) and v.literal and isinstance(annotated, GenericType) \
                        and annotated.kind in ("float", "scalar") and isinstance(v.value, float):
                    v = adapt(v, Scalar.F32)
                if not generic_matches(annotated, v.type):
                    return f"{pf.name}(): argument {pname!r} must be {annotated}, got {v.type}"
            else:
                v = adapt(v, annotated)
                if not same_type(v.type, annotated):
                    return f"{pf.name}(): argument {pname!r} must be {annotated}, got {v.type}"
        if v.type == VOID or isinstance(v.type, TupleType):
            return f"{pf.name}(): argument {pname!r} is not a value"
        params.append((pname, v.type))
        values.append(v)
    return params, values, refs, functions


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
