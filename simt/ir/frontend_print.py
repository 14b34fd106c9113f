"""``printf``, ``print`` and the ``expect_eq``/``expect_neq``/``expect_near`` checks, typed into
PRINT statements with the formats Warp's ``native/builtin.h`` uses, so output reads the same:
``print(x)`` of a float is ``%g``, of a vector ``%g `` per component, and a failed
``expect_eq`` prints Warp's "Error, expect_eq() failed" report."""
from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING

from . import hir
from .frontend_rules import adapt, component_count, component_type
from .printf import FLOAT, INTEGER, conversions
from .types import (MatrixType, QuatType, Scalar, StructType, TransformType, VectorType,
                    scalar_of)

if TYPE_CHECKING:
    from .frontend import FunctionChecker

PRINTING = ("printf", "print", "expect_eq", "expect_neq", "expect_near")


def printing_name(obj) -> str | None:
    if obj is builtins.print:
        return "print"
    name = getattr(obj, "name", None)
    from .registry import BuiltinFunction
    return name if isinstance(obj, BuiltinFunction) and name in PRINTING else None


def printing_statement(ck: "FunctionChecker", name: str, node: ast.Call) -> hir.Stmt:
    loc = ck.loc(node)
    if node.keywords:
        raise ck.error(f"{name}() takes positional arguments in kernels", node)
    if name == "printf":
        return printf(ck, node)
    if name == "print":
        if len(node.args) != 1:
            raise ck.error("print() takes one value in kernels", node)
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return hir.Print(loc, fmt=escape(arg.value) + "\n")
        return hir.Seq(loc, body=print_value(ck, ck.value(arg), node, temp=True))
    return expect(ck, name, node)


def escape(text: str) -> str:
    return text.replace("%", "%%")


def printf(ck, node: ast.Call) -> hir.Stmt:
    if not node.args or not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        raise ck.error('printf() takes a format string first: wp.printf("x = %f\\n", x)', node)
    fmt = node.args[0].value
    try:
        convs = conversions(fmt)
    except ValueError as e:
        raise ck.error(f"printf(): {e}", node.args[0]) from None
    values = node.args[1:]
    if len(convs) != len(values):
        raise ck.error(f"printf(): the format has {len(convs)} conversion(s) but {len(values)} "
                       f"value(s) follow", node)
    args = []
    for conv, value_node in zip(convs, values):
        v = ck.value(value_node)
        v = adapt(v, Scalar.F32 if conv in FLOAT else Scalar.I32)
        if not isinstance(v.type, Scalar):
            raise ck.error(f"printf() prints numbers, not {v.type}; print its components", value_node)
        if conv in FLOAT and not v.type.is_float:
            raise ck.error(f"printf(): %{conv} takes a float, got {v.type}", value_node)
        if conv in INTEGER and not (v.type.is_int or v.type is Scalar.BOOL):
            raise ck.error(f"printf(): %{conv} takes an integer, got {v.type}", value_node)
        args.append(_printable(ck, v, node))
    return hir.Print(ck.loc(node), fmt=fmt, args=args)


def _printable(ck, v: hir.Expr, node) -> hir.Expr:
    """What PRINT takes: bools as int32, float16 as float32."""
    if v.type is Scalar.BOOL:
        return ck.call_builtin("int32", [v], node)
    if v.type.is_storage:
        return ck.call_builtin("float32", [v], node)
    return v


def _as_float(ck, v: hir.Expr, node) -> hir.Expr:
    return v if v.type is Scalar.F32 else ck.call_builtin("float32", [v], node)


def _hold(ck, v: hir.Expr, node, stmts: list) -> hir.Expr:
    """The value in a temporary, so that printing its parts evaluates it once."""
    if isinstance(v, (hir.Var, hir.Const)):
        return v
    ck.temps += 1
    name = f"__simt_print{ck.temps}"
    stmts.append(ck.assign_name(name, v, node))
    return hir.Var(v.type, v.loc, name=name)


def print_value(ck, v: hir.Expr, node, temp: bool = False) -> list[hir.Stmt]:
    """Warp's print(x) for a scalar, vector, matrix, quaternion or transform."""
    loc = ck.loc(node)
    stmts: list[hir.Stmt] = []
    t = v.type
    if t is Scalar.BOOL:
        return [hir.If(loc, cond=v, body=[hir.Print(loc, fmt="True\n")],
                       orelse=[hir.Print(loc, fmt="False\n")])]
    if isinstance(t, Scalar):
        conv = "%g" if t.is_float else ("%u" if not t.is_signed else "%d")
        return [hir.Print(loc, fmt=conv + "\n", args=[_printable(ck, v, node)])]
    if isinstance(t, StructType) or not isinstance(t, (VectorType, MatrixType, QuatType, TransformType)):
        return [hir.Print(loc, fmt="<type without print implementation>\n")]
    v = _hold(ck, v, node, stmts)

    def part(base, k):
        return hir.Extract(component_type(base.type), loc, base=base,
                           index=hir.Const(Scalar.I32, loc, value=k))

    if isinstance(t, MatrixType):
        parts, fmt = [], ""
        for i in range(t.rows):
            row = part(v, i)
            parts += [_as_float(ck, part(row, j), node) for j in range(t.cols)]
            fmt += "%g " * t.cols + "\n"
    else:
        parts = [_as_float(ck, part(v, k), node) for k in range(component_count(t))]
        if isinstance(t, TransformType):
            fmt = "(%g %g %g) (%g %g %g %g)\n"
        elif isinstance(t, QuatType):
            fmt = "%g %g %g %g\n"
        else:
            fmt = "%g " * len(parts) + "\n"
    return stmts + [hir.Print(loc, fmt=fmt, args=parts)]


def expect(ck, name: str, node: ast.Call) -> hir.Stmt:
    loc = ck.loc(node)
    want = 3 if name == "expect_near" else 2
    if len(node.args) != want:
        raise ck.error(f"{name}() takes {want} arguments", node)
    stmts: list[hir.Stmt] = []
    actual, expected = (_hold(ck, ck.value(a), node, stmts) for a in node.args[:2])
    actual, expected = adapt(actual, expected.type), adapt(expected, actual.type)
    if actual.type != expected.type:
        raise ck.error(f"{name}() compares values of one type, got {actual.type} and {expected.type}",
                       node)
    if name == "expect_near":
        tol = _hold(ck, adapt(ck.value(node.args[2]), scalar_of(actual.type)), node, stmts)
        diff = _max_abs_diff(ck, actual, expected, node, stmts)
        failed = ck.binary("gt", ">", diff, tol, node)
        what = "Absolute difference" if isinstance(actual.type, Scalar) else "Max absolute difference"
        report = ([hir.Print(loc, fmt="Error, expect_near() failed with tolerance ")]
                  + print_value(ck, tol, node) + [hir.Print(loc, fmt="    Expected: ")]
                  + print_value(ck, expected, node) + [hir.Print(loc, fmt="    Actual: ")]
                  + print_value(ck, actual, node) + [hir.Print(loc, fmt=f"    {what}: ")]
                  + print_value(ck, diff, node))
    else:
        same = ck.binary("eq", "==", actual, expected, node)
        failed = same if name == "expect_neq" else hir.Not(Scalar.BOOL, loc, value=same)
        report = ([hir.Print(loc, fmt=f"Error, {name}() failed:\n"), hir.Print(loc, fmt="\t Expected: ")]
                  + print_value(ck, expected, node) + [hir.Print(loc, fmt="\t Actual: ")]
                  + print_value(ck, actual, node))
    return hir.Seq(loc, body=stmts + [hir.If(loc, cond=failed, body=report, orelse=[])])


def _max_abs_diff(ck, a, b, node, stmts) -> hir.Expr:
    d = ck.call_builtin("abs", [ck.binary("sub", "-", a, b, node)], node)
    if isinstance(a.type, Scalar):
        return _hold(ck, d, node, stmts)
    d = _hold(ck, d, node, stmts)
    loc = ck.loc(node)
    acc = None
    for k in range(component_count(a.type)):
        c = hir.Extract(scalar_of(a.type), loc, base=d, index=hir.Const(Scalar.I32, loc, value=k))
        acc = c if acc is None else ck.call_builtin("max", [acc, c], node)
    return _hold(ck, acc, node, stmts)
