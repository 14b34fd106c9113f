"""The front end: type-checks a Python function's AST and produces the typed HIR.

One ``FunctionChecker`` per kernel or device-function specialisation walks the AST like an
``ast.NodeVisitor``. Every unsupported construct and every type error raises CompileError at
the offending node; calls (builtins, special forms, device functions) live in
frontend_calls.py.
"""
from __future__ import annotations

import ast
import types as pytypes
from typing import Any

import numpy as np

from ..errors import CompileError
from . import hir
from .frontend_rules import (BINARY_OPERATORS, COMPARE_OPERATORS, COMPONENT_NAMES, UNSUPPORTED,
                             ArrayPlace, CompileContext, ComponentPlace, PartialIndex, Static,
                             adapt, assigned_names, atomic_capable, check_constant_operands,
                             component_count, component_type, constant, describe, fold,
                             literal_locals, same_type, store_counts)
from .mir import Loc
from .frontend_forms import MultiPlace, WarpForms, evaluate_place_once
from .pyfunc import PyFunc
from .registry import BuiltinTypeError, lookup
from .types import (VOID, AnyType, ArrayType, MatrixType, QuatType, Scalar, StructType,
                    TransformType, TupleType, VectorType,
                    resolve_type)

def _is_compile_time(obj) -> bool:
    """Objects a local name may stand for: device functions, builtins, types."""
    from .frontend_calls import _from_warp
    from .registry import BuiltinFunction
    obj = _from_warp(obj)
    return (getattr(obj, "_simt_func", False) or isinstance(obj, BuiltinFunction)
            or resolve_type(obj) is not None)


def _is_reversed(obj) -> bool:
    return obj is reversed or getattr(obj, "name", None) == "reversed"


class FunctionChecker(WarpForms):
    """Type-checks one function body into HIR statements."""

    def __init__(self, ctx: CompileContext, pf: PyFunc, params: list[tuple[str, AnyType]],
                 is_kernel: bool, return_type: AnyType | None):
        self.ctx = ctx
        self.pf = pf
        self.params = params
        self.is_kernel = is_kernel
        self.return_type = return_type        # declared, or inferred from the first return
        self.vars: dict[str, AnyType] = dict(params)
        self.first_lines = {a.arg: pf.loc(a).line for a in pf.tree.args.args}  # where each got its type
        self.local_names = assigned_names(pf.tree) | {n for n, _ in params}
        self.loop_depth = 0
        self.aliases: dict[str, Static] = {}   # local names bound to functions or types
        self.updated_by_calls: set[str] = set()  # variables calls write through (state, ref)
        self.ref_params: set[str] = set()        # this function's wp.ref[...] parameters
        self.temps = 0                           # hidden temporaries made so far
        self.static_values: dict = {}            # loop variables of loops unrolled for static()
        self.literal_locals = literal_locals(pf.tree, {n for n, _ in params})
        self.constant_ifs: dict[int, bool] = {}  # ifs on a compile-time constant: the branch taken

    # ---- entry ----------------------------------------------------------------------
    def check(self) -> hir.FuncDef:
        body = self.block(self.pf.tree.body)
        from .definite import check_definite_assignment     # after the body: its errors come first
        check_definite_assignment(self.pf.tree, {n for n, _ in self.params}, self.error,
                                  self.constant_ifs)
        rt = self.return_type if self.return_type is not None else VOID
        counts = store_counts(self.pf.tree)
        for name in self.updated_by_calls:          # randf(state), f(x) with x: ref[...]
            counts[name] = counts.get(name, 0) + 2
        return hir.FuncDef(self.pf.name, self.params, body, rt, self.pf.loc(self.pf.tree),
                           self.is_kernel, set(counts), {n for n, c in counts.items() if c == 1},
                           ref_params=set(self.ref_params))

    def loc(self, node: ast.AST) -> Loc:
        return self.pf.loc(node)

    def error(self, message: str, node: ast.AST) -> CompileError:
        return CompileError(message, self.loc(node))

    # ---- statements -----------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> list[hir.Stmt]:
        out: list[hir.Stmt] = []
        for s in stmts:
            out.extend(self.guarded(self.stmt, s))
        return out

    def guarded(self, method, node, *args):
        """Run ``method``; an unexpected exception becomes a CompileError at ``node``."""
        try:
            return method(node, *args)
        except CompileError:
            raise
        except RecursionError:
            raise self.error("expression nested too deeply", node) from None
        except Exception as e:  # noqa: BLE001 - internal errors must carry the user's location
            raise self.error(f"internal compiler error ({type(e).__name__}: {e}); "
                             f"please report it with this kernel", node) from e

    def stmt(self, node: ast.stmt) -> list[hir.Stmt]:
        for kind, message in UNSUPPORTED.items():
            if isinstance(node, kind):
                raise self.error(message, node)
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"'{type(node).__name__}' statements are not supported in kernels", node)
        return method(node)

    def stmt_Pass(self, node: ast.Pass) -> list[hir.Stmt]:
        return []

    def stmt_Assert(self, node: ast.Assert) -> list[hir.Stmt]:
        self.condition(node.test)   # type-checked; like Warp without debug, not executed
        return []

    def stmt_Expr(self, node: ast.Expr) -> list[hir.Stmt]:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return []   # docstring or a bare string
        from .frontend_calls import statement_call
        if isinstance(node.value, ast.Call):
            special = statement_call(self, node.value)
            if special is not None:
                return [special]
        value = self.expr(node.value)
        if not isinstance(value, hir.Expr):
            raise self.error("this expression does nothing", node)
        return [hir.ExprStmt(self.loc(node), value=value)]

    def stmt_Assign(self, node: ast.Assign) -> list[hir.Stmt]:
        if len(node.targets) != 1:
            raise self.error("chained assignment (a = b = x) is not supported; assign one at a time", node)
        target = node.targets[0]
        if isinstance(target, (ast.Tuple, ast.List)):
            return [self.unpack(target, node.value, node)]
        if isinstance(target, ast.Name):
            value = self.expr(node.value)
            if isinstance(value, Static) and _is_compile_time(value.obj) \
                    and target.id not in self.vars:
                from .frontend_calls import _from_warp
                self.aliases[target.id] = Static(_from_warp(value.obj), value.text)  # f = my_func
                return []
            return [self.assign_name(target.id, self.as_value(value, node.value), node)]
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            place = self.place(target)
            return [self.store(place, self.value(node.value), node)]
        raise self.error(f"cannot assign to {ast.unparse(target)!r}", target)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> list[hir.Stmt]:
        if not isinstance(node.target, ast.Name):
            raise self.error("annotated assignment needs a plain variable name", node.target)
        t = resolve_type(self.pf.evaluate(node.annotation, node.annotation))
        if t is None or not hir.is_value_type(t):
            raise self.error(f"unsupported type annotation {ast.unparse(node.annotation)!r}", node.annotation)
        if node.value is None:
            raise self.error(f"declare {node.target.id!r} with a value: {node.target.id}: {t} = ...", node)
        value = adapt(self.value(node.value), t)
        if not same_type(value.type, t):
            raise self.error(f"{node.target.id!r} is annotated {t} but the value is {value.type}; "
                             f"convert it, e.g. {t}(...)", node.value)
        return [self.assign_name(node.target.id, value, node)]

    def stmt_AugAssign(self, node: ast.AugAssign) -> list[hir.Stmt]:
        name, symbol = BINARY_OPERATORS[type(node.op)]
        value = self.value(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            current = self.name_value(target)
            result = self.binary(name, symbol, current, value, node)
            return [self.assign_name(target.id, result, node)]
        if not isinstance(target, (ast.Subscript, ast.Attribute)):
            raise self.error(f"cannot assign to {ast.unparse(target)!r}", target)
        place = self.place(target)
        if isinstance(place, ArrayPlace) and name in ("add", "sub") and atomic_capable(place.type) \
                and place.array.type.shape is None:
            # Warp semantics: `a[i] += x` on a global array element is an atomic add
            # (shared arrays keep CUDA's plain read-modify-write).
            from .mir import AtomOp
            value = adapt(value, place.type)
            if not same_type(value.type, place.type):
                raise self.error(f"cannot {symbol}= a {value.type} to an array element of type "
                                 f"{place.type}", node)
            atom = hir.Atomic(place.type, self.loc(node), op=AtomOp.ADD if name == "add" else AtomOp.SUB,
                              array=place.array, indices=place.indices, path=place.path, values=[value])
            return [hir.ExprStmt(self.loc(node), value=atom)]
        # Python evaluates the target once: its indices run before the right-hand side and
        # the stored-to place reuses them
        evaluate_place_once(place)
        result = self.binary(name, symbol, self.place_value(place, target), value, node)
        return [self.store(place, result, node)]

    def stmt_If(self, node: ast.If) -> list[hir.Stmt]:
        cond = self.condition(node.test)
        known = _static_truth(cond)
        if known is not None:       # if DEBUG: ... on a module constant: only the branch taken
            self.constant_ifs[id(node)] = known      # is compiled, as Warp does
            return self.block(node.body if known else node.orelse)
        return [hir.If(self.loc(node), cond=cond, body=self.block(node.body), orelse=self.block(node.orelse))]

    def stmt_While(self, node: ast.While) -> list[hir.Stmt]:
        if node.orelse:
            raise self.error("'else' on a while loop is not supported", node)
        cond = self.condition(node.test)
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        return [hir.While(self.loc(node), cond=cond, body=body)]

    def stmt_For(self, node: ast.For) -> list[hir.Stmt]:
        if node.orelse:
            raise self.error("'else' on a for loop is not supported", node)
        it = node.iter
        func = self.expr(it.func) if isinstance(it, ast.Call) else None
        backwards = False
        if isinstance(func, Static) and _is_reversed(func.obj) and len(it.args) == 1 \
                and not it.keywords and isinstance(it.args[0], ast.Call):
            backwards, it = True, it.args[0]
            func = self.expr(it.func)
        if not (isinstance(func, Static) and func.obj is range):
            raise self.error("for loops can only iterate over range(...) or reversed(range(...)), "
                             "e.g. 'for i in range(n):'", it)
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error("range() takes 1 to 3 positional arguments", it)
        bounds = []
        for a in it.args:
            if isinstance(a, ast.Starred):
                raise self.error("star arguments are not supported in kernels", a)
            b = adapt(self.value(a), Scalar.I32)
            if not (isinstance(b.type, Scalar) and b.type.is_int):
                raise self.error(f"range() bounds must be integers, got {b.type}; use int(...)", a)
            bounds.append(b)
        if len(bounds) == 1:
            bounds = [hir.Const(Scalar.I32, bounds[0].loc, value=0)] + bounds
        if len(bounds) == 2:
            bounds.append(hir.Const(Scalar.I32, bounds[0].loc, value=1))
        if isinstance(bounds[2], hir.Const) and bounds[2].value == 0:
            raise self.error("range() step must not be zero", it.args[2])
        if backwards:
            bounds = self.reversed_bounds(bounds, it)
        if isinstance(node.target, ast.Name) and self.static_reads(node, node.target.id) and \
                all(isinstance(x, hir.Const) for x in bounds):
            return self.unrolled_for(node, node.target.id, range(*(int(x.value) for x in bounds)))
        if not isinstance(node.target, ast.Name):
            raise self.error("the loop variable must be a plain name", node.target)
        self.declare(node.target.id, Scalar.I32, node.target)
        self.static_values.pop(node.target.id, None)
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        start, stop, step = bounds
        if all(isinstance(x, hir.Const) for x in bounds) and not self.assigns(node.body, node.target.id):
            last = range(*(int(x.value) for x in bounds))   # after the loop: its last value
            if last:
                self.static_values[node.target.id] = last[-1]
        return [hir.ForRange(self.loc(node), var=node.target.id, start=start, stop=stop, step=step, body=body)]

    def stmt_Break(self, node: ast.Break) -> list[hir.Stmt]:
        return [hir.Break(self.loc(node))]

    def stmt_Continue(self, node: ast.Continue) -> list[hir.Stmt]:
        return [hir.Continue(self.loc(node))]

    def stmt_Return(self, node: ast.Return) -> list[hir.Stmt]:
        if node.value is None:
            if not self.is_kernel and self.return_type not in (None, VOID):
                raise self.error(f"{self.pf.name}() must return a {self.return_type}", node)
            if not self.is_kernel:
                self.return_type = VOID
            return [hir.Return(self.loc(node))]
        if self.is_kernel:
            raise self.error("kernels cannot return a value; write results into an array argument",
                             node)
        if isinstance(node.value, ast.Tuple):
            elems = [self.value(e) for e in node.value.elts]
            for e, n in zip(elems, node.value.elts):
                self.require_value(e, n)
            value: hir.Expr = hir.TupleExpr(TupleType(tuple(e.type for e in elems)), self.loc(node.value),
                                            elems=elems)
        else:
            value = self.value(node.value)
            if not isinstance(value.type, TupleType):       # a call's several results pass on
                self.require_value(value, node.value)
        if self.return_type is not None:
            value = adapt(value, self.return_type)
            if not same_type(value.type, self.return_type):
                raise self.error(f"{self.pf.name}() returns {self.return_type} but this returns "
                                 f"{value.type}; every return must give the same type", node)
        else:
            self.return_type = value.type
        return [hir.Return(self.loc(node), value=value)]

    # ---- assignment helpers -----------------------------------------------------------
    def declare(self, name: str, t: AnyType, node: ast.AST) -> None:
        old = self.vars.get(name)
        if old is None:
            self.vars[name] = t
            self.first_lines[name] = self.loc(node).line
            return
        if isinstance(old, ArrayType) or isinstance(t, ArrayType):
            raise self.error(f"array variable {name!r} cannot be reassigned; use a new name", node)
        if not same_type(old, t):
            # as in Warp, which rejects it too: a changed type is more often a bug than a wish
            hint = f"{t}(...)" if isinstance(t, (VectorType, MatrixType, QuatType)) else \
                f"{old}(...)"
            first = self.first_lines.get(name)
            since = f" (line {first})" if first is not None else ""
            raise self.error(f"variable {name!r} changes type from {old}{since} to {t} (line "
                             f"{self.loc(node).line}); a variable keeps the type of its first "
                             f"assignment, as in Warp: convert the value with {hint}, or use a new "
                             f"variable", node)

    def assign_name(self, name: str, value: hir.Expr, node: ast.AST) -> hir.Stmt:
        self.static_values.pop(name, None)        # static() no longer knows its value
        if isinstance(value.type, TupleType):
            raise self.error(f"cannot store a tuple of {len(value.type.elems)} values in {name!r}; "
                             f"unpack it: a, b = ...", node)
        if value.type == VOID:
            raise self.error("this call returns nothing; it cannot be assigned", node)
        self.declare(name, value.type, node)    # a literal too keeps its own type (Warp's rule)
        return hir.Assign(self.loc(node), name=name, value=value)

    def unpack(self, target: ast.Tuple | ast.List, value_node: ast.expr, node: ast.AST) -> hir.Stmt:
        names = []
        for t in target.elts:
            if not isinstance(t, ast.Name):
                raise self.error("tuple assignment can only unpack into plain variable names", t)
            names.append(t.id)
        if isinstance(value_node, ast.Tuple):
            elems = [self.value(e) for e in value_node.elts]
            for e, n in zip(elems, value_node.elts):
                self.require_value(e, n)
            value: hir.Expr = hir.TupleExpr(TupleType(tuple(e.type for e in elems)),
                                            self.loc(value_node), elems=elems)
        elif isinstance(value_node, ast.Call):
            from .frontend_calls import check_call
            value = self.as_value(check_call(self, value_node, unpack=len(names)), value_node)
        else:
            value = self.value(value_node)
        if not isinstance(value.type, TupleType):
            raise self.error(f"cannot unpack a {value.type} into {len(names)} variables", node)
        if len(value.type.elems) != len(names):
            raise self.error(f"cannot unpack {len(value.type.elems)} values into {len(names)} variables",
                             node)
        for n, t in zip(names, value.type.elems):
            self.declare(n, t, node)
        return hir.Unpack(self.loc(node), names=names, value=value)

    # ---- places (assignment targets inside arrays and composites) --------------------------
    def place(self, node: ast.expr) -> "ArrayPlace | ComponentPlace":
        if isinstance(node, ast.Name):
            if node.id not in self.vars:
                raise self.error(f"{node.id!r} is not a local variable or parameter; only those can "
                                 f"be assigned into", node)
            t = self.vars[node.id]
            var = hir.Var(t, self.loc(node), name=node.id)
            if isinstance(t, ArrayType):
                return ArrayPlace(t.dtype, var, [], [], t.ndim)
            if component_count(t) == 0:
                raise self.error(f"{node.id!r} is a {t}; it has no components to assign", node)
            return ComponentPlace(t, node.id, [])
        if isinstance(node, ast.Subscript):
            base = self.place(node.value)
            keys = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if isinstance(base, ArrayPlace) and len(base.indices) < base.ndim and not base.path \
                    and any(isinstance(k, ast.Slice) for k in keys):
                view = self.value(node)                 # a[s:e:k][i] = x writes through the view
                return ArrayPlace(view.type.dtype, view, [], [], view.type.ndim)
            if isinstance(node.slice, ast.Slice) and not isinstance(base.type, ArrayType):
                picks = self.slice_picks(base.type, node.slice)
                return self.slice_place(base, picks, self.sliced_type(base.type, picks), node)
            keys = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for k in keys:
                base = self.extend_place(base, self.index(k), k)
            return base
        if isinstance(node, ast.Attribute):
            part = self.transform_part_place(node)
            if part is not None:
                return part
            base = self.struct_field_place(node)
            if base is not None and isinstance(base.type, ArrayType):
                return ArrayPlace(base.type.dtype, self.place_value(base, node), [], [],
                                  base.type.ndim)
            if base is not None:
                return base
            base = self.place(node.value)
            if node.attr not in COMPONENT_NAMES:
                raise self.error(f"cannot assign to attribute {node.attr!r}", node)
            k = hir.Const(Scalar.I32, self.loc(node), value=COMPONENT_NAMES[node.attr])
            if isinstance(base.type, MatrixType):
                raise self.error("matrices have no .x/.y/.z/.w; index them: m[i, j]", node)
            return self.extend_place(base, k, node)
        raise self.error(f"cannot assign to {ast.unparse(node)!r}", node)

    def extend_place(self, place, index: hir.Expr, node: ast.AST):
        if isinstance(place, ArrayPlace) and len(place.indices) < place.ndim:
            place.indices.append(index)
            return place
        if isinstance(place.type, StructType):
            if not isinstance(index, hir.Const):
                raise self.error("struct fields are named: s.field", node)
            place.path.append(index)
            place.type = component_type(place.type, index.value)
            return place
        sub = component_type(place.type)
        if sub is None:
            raise self.error(f"cannot index into a {place.type}", node)
        index = self.constant_index(index, place.type, node)
        place.path.append(index)
        place.type = sub
        return place

    def store(self, place, value: hir.Expr, node: ast.AST) -> hir.Stmt:
        if isinstance(place, ArrayPlace) and not place.indices and \
                isinstance(value.type, ArrayType) and same_type(value.type, place.array.type):
            target = self.write_target(place.array)     # s.arr = arr: a struct's array field
            if isinstance(target, tuple) and target[1]:
                return hir.ComponentStore(self.loc(node), name=target[0], path=target[1],
                                          value=value)
        self.require_value(value, node)
        if isinstance(place, MultiPlace):
            return self.store_multi(place, value, node)
        if isinstance(place, ArrayPlace) and len(place.indices) < place.ndim:
            raise self.error(f"index every dimension of the array ({place.ndim}-D): "
                             f"a[{', '.join('ijk'[:place.ndim])}] = ...", node)
        value = adapt(value, place.type)
        if not same_type(value.type, place.type):
            raise self.error(f"cannot store a {value.type} into an element of type {place.type}; "
                             f"convert it, e.g. {place.type}(...)", node)
        if isinstance(place, ArrayPlace):
            return hir.ArrayStore(self.loc(node), array=place.array, indices=place.indices,
                                  path=place.path, value=value)
        return hir.ComponentStore(self.loc(node), name=place.name, path=place.path, value=value)

    def place_value(self, place, node: ast.AST) -> hir.Expr:
        if isinstance(place, MultiPlace):
            return self.multi_value(place, node)
        if isinstance(place, ArrayPlace):
            if len(place.indices) < place.ndim:
                raise self.error(f"index every dimension of the array ({place.ndim}-D)", node)
            return hir.ArrayLoad(place.type, self.loc(node), array=place.array,
                                 indices=list(place.indices), path=list(place.path))
        t = self.vars[place.name]
        e: hir.Expr = hir.Var(t, self.loc(node), name=place.name)
        for k in place.path:
            e = hir.Extract(component_type(e.type, getattr(k, "value", None)), self.loc(node),
                            base=e, index=k)
        return e

    # ---- expressions ------------------------------------------------------------------
    def expr(self, node: ast.expr):
        """HIR expression, Static (compile-time object) or PartialIndex."""
        return self.guarded(self._expr, node)

    def _expr(self, node: ast.expr):
        for kind, message in UNSUPPORTED.items():
            if isinstance(node, kind):
                raise self.error(message, node)
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"'{type(node).__name__}' expressions are not supported in kernels", node)
        return method(node)

    def value(self, node: ast.expr) -> hir.Expr:
        return self.as_value(self.expr(node), node)

    def literal_local(self, node: ast.AST):
        """The value of a local bound once to a literal before ``node`` (``n`` after
        ``n = 3``), else None."""
        if not isinstance(node, ast.Name) or node.id not in self.literal_locals \
                or node.id in self.updated_by_calls:
            return None
        value, where = self.literal_locals[node.id]
        return value if where < (node.lineno, node.col_offset) else None

    def as_value(self, e, node: ast.AST) -> hir.Expr:
        if isinstance(e, hir.Expr):
            return e
        if isinstance(e, PartialIndex) and e.slices is not None:
            return self.sliced_view(e, node)
        if isinstance(e, PartialIndex):
            at = e.array.type
            if not e.indices or at.shape is not None or isinstance(at.dtype, StructType):
                nd = at.ndim
                raise self.error(f"index every dimension of the {nd}-D array: "
                                 f"a[{', '.join('ijk'[:nd])}]", node)
            return hir.ArrayView(ArrayType(at.dtype, at.ndim - len(e.indices)), self.loc(node),
                                 array=e.array, indices=list(e.indices))
        obj = e.obj
        if isinstance(obj, (list, tuple, dict, set, np.ndarray, str)) or not callable(obj):
            if not isinstance(obj, pytypes.ModuleType):
                raise self.error(f"kernels can only capture constants (int, float, bool, numpy scalars, "
                                 f"simt.constant(...)) from the enclosing scope, but {e.text!r} is "
                                 f"{describe(obj)}; pass it to the kernel as an argument instead", node)
        raise self.error(f"{e.text!r} is {describe(obj)}, not a value", node)

    def require_value(self, e: hir.Expr, node: ast.AST) -> None:
        if not hir.is_value_type(e.type):
            what = "nothing" if e.type == VOID else f"a {e.type}"
            raise self.error(f"expected a number, vector or matrix value here, got {what}", node)

    def condition(self, node: ast.expr) -> hir.Expr:
        e = self.value(node)
        return self.truth(e, node)

    def truth(self, e: hir.Expr, node: ast.AST) -> hir.Expr:
        if e.type == Scalar.BOOL:
            return e
        if isinstance(e.type, ArrayType):          # Warp: an array is true unless it is null
            size = self.array_dim(e, 0, node)
            return self.binary("ne", "!=", size, hir.Const(Scalar.I32, e.loc, value=0), node)
        if isinstance(e.type, Scalar):
            if isinstance(e, hir.Const):
                return hir.Const(Scalar.BOOL, e.loc, value=bool(e.value))
            return hir.Truth(Scalar.BOOL, e.loc, value=e)
        raise self.error(f"a {e.type} cannot be used as a condition; compare it explicitly", node)

    def expr_Constant(self, node: ast.Constant):
        c = constant(node.value, self.loc(node))
        if c is None:
            kind = "strings" if isinstance(node.value, str) else f"{type(node.value).__name__} constants"
            raise self.error(f"{kind} are not supported in kernels", node)
        return c

    def expr_Name(self, node: ast.Name):
        if node.id in self.aliases:
            return self.aliases[node.id]
        if node.id in self.vars:
            return hir.Var(self.vars[node.id], self.loc(node), name=node.id)
        if node.id in self.local_names:
            raise self.error(f"variable {node.id!r} is used before it is assigned", node)
        found, obj = self.pf.lookup(node.id)
        if not found:
            raise self.error(f"unknown name {node.id!r}", node)
        return self.static_or_constant(obj, node.id, node)

    def name_value(self, node: ast.Name) -> hir.Expr:
        return self.value(node)

    def static_or_constant(self, obj: Any, text: str, node: ast.AST):
        from ..warp_compat import Unsupported
        if isinstance(obj, Unsupported):
            raise self.error(f"{text} (warp.{obj.name}) is not supported by simt", node)
        c = constant(obj, self.loc(node))
        if c is not None:
            return c
        value = self.composite_constant(obj, node)
        return value if value is not None else Static(obj, text)

    def expr_Attribute(self, node: ast.Attribute):
        base = self.expr(node.value)
        if isinstance(base, Static):
            text = f"{base.text}.{node.attr}"
            if not hasattr(base.obj, node.attr):
                raise self.error(f"{describe(base.obj)} has no attribute {node.attr!r}", node)
            return self.static_or_constant(getattr(base.obj, node.attr), text, node)
        if isinstance(base, PartialIndex):
            base = self.as_value(base, node.value)     # a view (a[i] of a 2-D array, a[1:3]), or an error
        t = base.type
        if isinstance(t, ArrayType):
            if node.attr == "shape":
                dims = [self.array_dim(base, k, node) for k in range(t.ndim)]
                return hir.TupleExpr(TupleType(tuple(d.type for d in dims)), self.loc(node), elems=dims)
            if node.attr == "ndim":
                return hir.Const(Scalar.I32, self.loc(node), value=t.ndim, literal=True)
            raise self.error(f"arrays have no attribute {node.attr!r} in kernels (use .shape)", node)
        if node.attr in COMPONENT_NAMES and isinstance(t, (VectorType, QuatType)):
            k = hir.Const(Scalar.I32, self.loc(node), value=COMPONENT_NAMES[node.attr])
            return self.component(base, k, node)
        if isinstance(t, StructType):
            k = t.field_index(node.attr)
            if k < 0:
                raise self.error(f"struct {t.name} has no field {node.attr!r}", node)
            return self.component(base, hir.Const(Scalar.I32, self.loc(node), value=k), node)
        if isinstance(t, TransformType) and node.attr in ("p", "q"):
            getter = "transform_get_translation" if node.attr == "p" else "transform_get_rotation"
            return self.call_builtin(getter, [base], node)
        raise self.error(f"a {t} has no attribute {node.attr!r}", node)

    def array_dim(self, array: hir.Expr, k: int, node: ast.AST) -> hir.Expr:
        t = array.type
        if t.shape is not None:
            return hir.Const(Scalar.I32, self.loc(node), value=t.shape[k], literal=True)
        return hir.ArrayDim(Scalar.I32, self.loc(node), array=array, dim=k)

    def index(self, node: ast.expr) -> hir.Expr:
        e = adapt(self.value(node), Scalar.I32)
        if not (isinstance(e.type, Scalar) and e.type.is_int):
            raise self.error(f"indices must be integers, got {e.type}; use int(...)", node)
        return e

    def constant_index(self, index: hir.Expr, t: AnyType, node: ast.AST) -> hir.Expr:
        """A constant component index, counted from the end when negative (``v[-1]``, as in
        Warp and Python); out of range is a compile error."""
        n = component_count(t)
        if isinstance(index, hir.Const) and not isinstance(t, StructType):
            if not -n <= index.value < n:
                raise self.error(f"index {index.value} is out of range for a {t} ({n} components)", node)
            if index.value < 0:
                return hir.Const(index.type, index.loc, value=index.value + n)
        return index

    def component(self, base, index: hir.Expr, node: ast.AST) -> hir.Expr:
        """``base[index]`` for a composite value (an array element keeps its load narrow)."""
        if isinstance(base.type, StructType) and not isinstance(index, hir.Const):
            raise self.error("struct fields are named: s.field", node)
        if component_type(base.type) is not None:
            index = self.constant_index(index, base.type, node)
        sub = component_type(base.type, getattr(index, "value", None))
        if sub is None:
            raise self.error(f"a {base.type} cannot be indexed", node)
        if isinstance(base, hir.ArrayLoad):
            return hir.ArrayLoad(sub, self.loc(node), array=base.array, indices=base.indices,
                                 path=base.path + [index])
        return hir.Extract(sub, self.loc(node), base=base, index=index)

    def expr_Subscript(self, node: ast.Subscript):
        base = self.expr(node.value)
        keys = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if isinstance(base, Static):
            raise self.as_value(base, node.value)
        if isinstance(base, hir.Expr) and isinstance(base.type, TupleType):
            if len(keys) != 1:
                raise self.error("tuples take one index", node)
            k = self.value(keys[0])
            if not isinstance(k, hir.Const) or not isinstance(k.value, int):
                raise self.error("tuples can only be indexed with a constant integer", keys[0])
            n = len(base.type.elems)
            if not -n <= k.value < n:
                raise self.error(f"index {k.value} is out of range for a tuple of {n}", keys[0])
            idx = k.value % n
            if isinstance(base, hir.TupleExpr):
                return base.elems[idx]
            return hir.TupleGet(base.type.elems[idx], self.loc(node), base=base, index=idx)
        if isinstance(base, PartialIndex) and base.slices is not None:
            base = self.sliced_view(base, node.value)       # a[1:3][0]: index the view
        if isinstance(base, hir.Expr) and isinstance(base.type, ArrayType):
            base = PartialIndex(base, [])
        if len(keys) == 1 and isinstance(keys[0], ast.Slice) and isinstance(base, hir.Expr):
            return self.slice_read(base, keys[0], node)
        if isinstance(base, PartialIndex) and any(isinstance(k, ast.Slice) for k in keys):
            return self.array_slice(base, keys, node)
        for key in keys:
            index = self.index(key)
            if isinstance(base, PartialIndex):
                base.indices.append(index)
                at = base.array.type
                if len(base.indices) == at.ndim:
                    base = hir.ArrayLoad(at.dtype, self.loc(node), array=base.array, indices=base.indices)
                continue
            base = self.component(base, index, key)
        return base

    def binary(self, name: str, symbol: str, a: hir.Expr, b: hir.Expr, node: ast.AST) -> hir.Expr:
        self.require_value(a, node)
        self.require_value(b, node)
        a, b = adapt(a, b.type), adapt(b, a.type)
        if symbol == "@" and (isinstance(a.type, Scalar) or isinstance(b.type, Scalar)):
            raise self.error(f"'@' is matrix multiplication: it takes matrices and vectors, got "
                             f"{a.type} @ {b.type}; multiply scalars with '*'", node)
        check_constant_operands(name, symbol, a, b)
        if isinstance(a, hir.Const) and isinstance(b, hir.Const) and a.literal and b.literal:
            folded = fold(name, a, b, self.loc(node))
            if folded is not None:
                return folded
        builtin = lookup(name)
        if builtin is None:
            raise self.error(f"operator {symbol!r} is not available (builtin {name!r} is not registered)",
                             node)
        try:
            t = builtin.infer([a.type, b.type])
        except BuiltinTypeError as e:
            message = str(e)
            hint = ""
            if isinstance(a.type, Scalar) and isinstance(b.type, Scalar) and a.type != b.type \
                    and "convert" not in message:
                hint = (f"; values are never converted implicitly: convert one side, "
                        f"e.g. {b.type}(...) or {a.type}(...)")
            raise self.error(f"operator {symbol!r} cannot combine {a.type} and {b.type}: {message}{hint}",
                             node) from None
        return hir.Call(t, self.loc(node), builtin=name, args=[a, b])

    def expr_BinOp(self, node: ast.BinOp):
        name, symbol = BINARY_OPERATORS[type(node.op)]
        return self.binary(name, symbol, self.value(node.left), self.value(node.right), node)

    def expr_UnaryOp(self, node: ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            return hir.Not(Scalar.BOOL, self.loc(node), value=self.condition(node.operand))
        v = self.value(node.operand)
        self.require_value(v, node.operand)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(v, hir.Const) and isinstance(node.op, ast.USub) and not isinstance(v.value, bool):
            return hir.Const(v.type, self.loc(node), value=-v.value, literal=v.literal)
        name = "neg" if isinstance(node.op, ast.USub) else "invert"
        return self.call_builtin(name, [v], node)

    def call_builtin(self, name: str, args: list[hir.Expr], node: ast.AST,
                     shown: str | None = None) -> hir.Expr:
        """A registry builtin; untyped literals adapt to the other arguments if needed."""
        builtin = lookup(name)
        shown = shown or name
        if builtin is None:
            raise self.error(f"unknown builtin {shown!r}", node)
        # A literal past int32 but within uint32 (a 0xFFFFFFFF mask) is a uint32, as in C.
        args = [adapt(a, Scalar.U32) if isinstance(a, hir.Const) and a.literal
                and isinstance(a.value, int) and (1 << 31) <= a.value < (1 << 32) else a for a in args]
        if len(args) == 2:
            check_constant_operands(name, shown, args[0], args[1])
        try:
            t = builtin.infer([a.type for a in args])
        except BuiltinTypeError as first:
            typed = [a for a in args if not (isinstance(a, hir.Const) and a.literal)
                     and hir.is_value_type(a.type)]
            if typed and len(typed) < len(args):
                adapted = [adapt(a, typed[0].type) for a in args]
                try:
                    t = builtin.infer([a.type for a in adapted])
                    args = adapted
                except BuiltinTypeError:
                    t = None
            else:
                t = None
            if t is None:
                types = ", ".join(str(a.type) for a in args)
                raise self.error(f"{shown}({types}): {first}", node) from None
        if builtin.inout:
            return self.write_back(t, args, builtin.inout, node,
                                   lambda full: hir.Call(full, self.loc(node), builtin=name, args=args))
        return hir.Call(t, self.loc(node), builtin=name, args=args)

    def expr_BoolOp(self, node: ast.BoolOp):
        values = [self.condition(v) for v in node.values]
        op = "and" if isinstance(node.op, ast.And) else "or"
        return hir.BoolOp(Scalar.BOOL, self.loc(node), op=op, values=values)

    def expr_Compare(self, node: ast.Compare):
        parts = []
        left = self.value(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            if type(op) not in COMPARE_OPERATORS:
                raise self.error(f"'{ast.unparse(node)}': only ==, !=, <, <=, >, >= comparisons are "
                                 f"supported in kernels", node)
            name, symbol = COMPARE_OPERATORS[type(op)]
            right = self.value(right_node)
            if right_node is not node.comparators[-1]:
                right = hir.once(right)     # a < f() < b runs f() once, as Python does
            parts.append(self.binary(name, symbol, left, right, node))
            left = right
        if len(parts) == 1:
            return parts[0]
        return hir.BoolOp(Scalar.BOOL, self.loc(node), op="and", values=parts)

    def expr_IfExp(self, node: ast.IfExp):
        cond = self.condition(node.test)
        a, b = self.value(node.body), self.value(node.orelse)
        a, b = adapt(a, b.type), adapt(b, a.type)      # the binary operators' rule: literals adapt
        if not same_type(a.type, b.type):
            hint = (f"; values are never converted implicitly: convert one side, e.g. "
                    f"{b.type}(...) or {a.type}(...)"
                    if isinstance(a.type, Scalar) and isinstance(b.type, Scalar) else "")
            raise self.error(f"both sides of 'x if c else y' must have one type, got {a.type} and "
                             f"{b.type}{hint}", node)
        return hir.IfExp(a.type, self.loc(node), cond=cond, then=a, orelse=b)

    def expr_Tuple(self, node: ast.Tuple):
        raise self.error("tuples can only be used to unpack (a, b = ...) or return several values",
                         node)

    def expr_Call(self, node: ast.Call):
        from .frontend_calls import check_call
        return check_call(self, node, unpack=1)


def _static_truth(cond: hir.Expr) -> bool | None:
    """The value of a condition known while compiling (a constant, or not of one), else None."""
    if isinstance(cond, hir.Const):
        return bool(cond.value)
    if isinstance(cond, hir.Not):
        inner = _static_truth(cond.value)
        return None if inner is None else not inner
    return None

