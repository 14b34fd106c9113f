"""The front end's rules and tables: operator names, unsupported syntax, how literals adapt,
what a composite's components are, and which names a function body assigns."""
from __future__ import annotations

import ast
import types as pytypes
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import CompileError
from . import hir
from .mir import LaunchSig, Loc
from .types import (AnyType, ArrayType, MatrixType, QuatType, Scalar, StructType, TransformType,
                    VectorType, field_offset, flat_count, resolve_type, scalar_of, vector_type)

BINARY_OPERATORS = {ast.Add: ("add", "+"), ast.Sub: ("sub", "-"), ast.Mult: ("mul", "*"),
                    ast.Div: ("div", "/"), ast.Mod: ("mod", "%"), ast.FloorDiv: ("floordiv", "//"),
                    ast.Pow: ("pow", "**"), ast.BitAnd: ("bit_and", "&"), ast.BitOr: ("bit_or", "|"),
                    ast.BitXor: ("bit_xor", "^"), ast.LShift: ("lshift", "<<"),
                    ast.RShift: ("rshift", ">>"), ast.MatMult: ("mul", "@")}
COMPARE_OPERATORS = {ast.Eq: ("eq", "=="), ast.NotEq: ("ne", "!="), ast.Lt: ("lt", "<"),
                     ast.LtE: ("le", "<="), ast.Gt: ("gt", ">"), ast.GtE: ("ge", ">=")}
COMPONENT_NAMES = {"x": 0, "y": 1, "z": 2, "w": 3}

UNSUPPORTED = {
    ast.Lambda: "lambda expressions are not supported in kernels; define a @simt.func instead",
    ast.ListComp: "list comprehensions are not supported in kernels; use a for loop",
    ast.SetComp: "set comprehensions are not supported in kernels; use a for loop",
    ast.DictComp: "dict comprehensions are not supported in kernels; use a for loop",
    ast.GeneratorExp: "generator expressions are not supported in kernels; use a for loop",
    ast.List: "lists are not supported in kernels; use a vector type (simt.vec3(...)) or an array",
    ast.Dict: "dicts are not supported in kernels",
    ast.Set: "sets are not supported in kernels",
    ast.JoinedStr: "f-strings are not supported in kernels",
    ast.Starred: "star expressions (*x) are not supported in kernels",
    ast.Yield: "yield is not supported in kernels", ast.YieldFrom: "yield is not supported in kernels",
    ast.Await: "await is not supported in kernels",
    ast.NamedExpr: "the walrus operator := is not supported in kernels; assign on its own line",
    ast.Slice: "slices are not supported in kernels; index one element at a time",
    ast.With: "'with' blocks are not supported in kernels", ast.Try: "try/except is not supported in kernels",
    ast.Raise: "raise is not supported in kernels",
    ast.ClassDef: "classes cannot be defined inside kernels",
    ast.FunctionDef: "functions cannot be defined inside kernels; define a @simt.func at module level",
    ast.AsyncFunctionDef: "functions cannot be defined inside kernels",
    ast.Global: "'global' is not supported in kernels; kernels can only read constants",
    ast.Nonlocal: "'nonlocal' is not supported in kernels",
    ast.Delete: "'del' is not supported in kernels",
    ast.Import: "imports are not allowed inside kernels; import at module level",
    ast.ImportFrom: "imports are not allowed inside kernels; import at module level",
    ast.AsyncFor: "async for is not supported", ast.AsyncWith: "async with is not supported",
}
if hasattr(ast, "TryStar"):
    UNSUPPORTED[ast.TryStar] = "try/except is not supported in kernels"
if hasattr(ast, "Match"):
    UNSUPPORTED[ast.Match] = "match statements are not supported in kernels; use if/elif"


@dataclass
class Static:
    """A compile-time Python object named in the kernel: module, builtin, type, device function."""
    obj: Any
    text: str   # how the user wrote it, for messages


@dataclass
class PartialIndex:
    """``a[i]`` of a multi-dimensional array, waiting for its remaining indices; ``slices``
    holds every key when one of them is a slice (``a[1:3, j]``): then it is a view."""
    array: hir.Expr
    indices: list[hir.Expr]
    slices: list | None = None


@dataclass
class CompileContext:
    """State shared by all functions of one kernel compilation."""
    sig: LaunchSig | None
    specializations: dict = field(default_factory=dict)   # (py_func, arg types) -> FuncDef
    stack: list = field(default_factory=list)              # device functions being checked
    tid_ndim: int = 0
    thread_idx_ndim: int = 0


def same_type(a: AnyType, b: AnyType) -> bool:
    """Type equality, where arrays match on dtype and ndim (shared arrays carry a shape)."""
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return a.dtype == b.dtype and a.ndim == b.ndim
    return a == b


def component_type(t: AnyType, k: int | None = None) -> AnyType | None:
    """Type of ``value[k]``: a vector's, quaternion's or transform's scalar, a matrix's row
    vector, a struct's field ``k`` (which must be known)."""
    if isinstance(t, (VectorType, QuatType, TransformType)):
        return t.elem
    if isinstance(t, MatrixType):
        return vector_type(t.elem, t.cols)
    if isinstance(t, StructType) and k is not None:
        return t.fields[k][1]
    return None


def component_count(t: AnyType) -> int:
    if isinstance(t, VectorType):
        return t.n
    if isinstance(t, QuatType):
        return 4
    if isinstance(t, TransformType):
        return 7
    if isinstance(t, MatrixType):
        return t.rows
    if isinstance(t, StructType):
        return len(t.fields)
    return 0


def member_offset(t: AnyType, k: int) -> int:
    """Flat position of component/field ``k``'s first slot."""
    if isinstance(t, StructType):
        return field_offset(t, k)
    return k * flat_count(component_type(t))


def literal_fits(value, target: Scalar) -> bool:
    """May an untyped literal take ``target``'s type? ints -> any number, floats -> floats."""
    if isinstance(value, bool):
        return target is Scalar.BOOL
    if isinstance(value, int):
        return target is not Scalar.BOOL
    return target.is_float


def adapt(e: hir.Expr, target: AnyType, explicit: bool = False) -> hir.Expr:
    """An untyped literal takes ``target``'s scalar type when it fits; anything else is kept.

    An integer literal must hold in its new type (``explicit``: a conversion the user wrote,
    such as ``uint32(-1)``, wraps as C's cast does, within 64 bits)."""
    if not (isinstance(e, hir.Const) and e.literal) or not hir.is_value_type(target):
        return e
    s = scalar_of(target)
    if s == e.type or not literal_fits(e.value, s):
        return e
    value = float(e.value) if s.is_float else int(e.value)
    if s.is_int:
        check_int_constant(value, Scalar.U64 if explicit and value >= 0 else
                           Scalar.I64 if explicit else s, e.loc)
    return hir.Const(s, e.loc, value=value, literal=False)


def int_range(t: Scalar) -> tuple[int, int]:
    bits = t.bits
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t.is_signed else (0, (1 << bits) - 1)


def check_int_constant(value: int, t: Scalar, loc: Loc | None) -> None:
    """CompileError when an integer constant does not fit its type (it would wrap silently)."""
    lo, hi = int_range(t)
    if not lo <= value <= hi:
        wider = "int64(...)" if t is not Scalar.I64 and -(1 << 63) <= value < (1 << 63) else \
            "uint64(...)" if 0 <= value < (1 << 64) else None
        hint = f"; write {wider} for a wider integer" if wider else "; no integer type holds it"
        raise CompileError(f"integer constant {value} does not fit in {t.value} "
                           f"({lo}..{hi}){hint}", loc)


_DIVISIONS = {"div": "division", "mod": "modulo", "floordiv": "floor division"}


def check_constant_operands(name: str, symbol: str, a: hir.Expr, b: hir.Expr) -> None:
    """Operations whose constant right operand is an error, as Python or C says: division and
    modulo by zero, and shifts by a count outside 0..bits-1 (undefined in C, wrapped by PTX)."""
    if not isinstance(b, hir.Const) or isinstance(b.value, bool):
        return
    if name in _DIVISIONS and b.value == 0:
        raise CompileError(f"{_DIVISIONS[name]} by zero: the right operand of '{symbol}' is the "
                           f"constant {b.value!r}", b.loc)
    if name in ("lshift", "rshift") and isinstance(b.value, int) and hir.is_value_type(a.type):
        t = scalar_of(a.type)
        if t.is_int and not 0 <= b.value < t.bits:
            raise CompileError(f"shift by {b.value}: {t.value} values can only be shifted by 0 to "
                               f"{t.bits - 1} bits", b.loc)


def constant(value, loc: Loc) -> hir.Const | None:
    """A Python or numpy scalar as a constant; None for anything else."""
    if isinstance(value, (bool, np.bool_)):
        return hir.Const(Scalar.BOOL, loc, value=bool(value), literal=isinstance(value, bool))
    if isinstance(value, int):
        return hir.Const(Scalar.I32, loc, value=value, literal=True)
    if isinstance(value, float):
        return hir.Const(Scalar.F32, loc, value=value, literal=True)
    if isinstance(value, np.generic):
        t = resolve_type(type(value))
        if isinstance(t, Scalar):
            return hir.Const(t, loc, value=value.item(), literal=False)
    return None


def describe(obj: Any) -> str:
    if isinstance(obj, pytypes.ModuleType):
        return f"module {obj.__name__!r}"
    if isinstance(obj, np.ndarray):
        return f"a numpy array of shape {obj.shape}"
    return f"a {type(obj).__name__}"


@dataclass
class ArrayPlace:
    type: AnyType           # type of the addressed part of the element
    array: hir.Expr
    indices: list[hir.Expr]
    path: list[hir.Expr]
    ndim: int


@dataclass
class ComponentPlace:
    type: AnyType
    name: str
    path: list[hir.Expr]


def atomic_capable(t: AnyType) -> bool:
    return hir.is_value_type(t) and scalar_of(t) in (Scalar.I32, Scalar.U32, Scalar.I64, Scalar.U64,
                                                      Scalar.F32, Scalar.F64)


def fold(name: str, a: hir.Const, b: hir.Const, loc: Loc) -> hir.Const | None:
    """Fold an operator on two untyped literals (``2 * 3``, ``1.0 / 3``) like Python would."""
    x, y = a.value, b.value
    if isinstance(x, bool) or isinstance(y, bool):
        return None
    is_float = isinstance(x, float) or isinstance(y, float)
    try:
        if name == "add":
            r = x + y
        elif name == "sub":
            r = x - y
        elif name == "mul":
            r = x * y
        elif name == "div" and is_float:
            r = x / y
        else:
            return None
    except ArithmeticError:
        return None
    if is_float:   # float literals are float32: fold with float32 rounding
        f32 = np.float32
        ops = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
        with np.errstate(all="ignore"):
            r = float(ops[name](f32(x), f32(y)))
    return hir.Const(Scalar.F32 if is_float else Scalar.I32, loc, value=r, literal=True)


def number_literal(node: ast.AST | None):
    """The value of ``3``, ``-2``, ``0.5`` or ``True`` written in the source, else None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node, sign = node.operand, -1
    if not (isinstance(node, ast.Constant) and type(node.value) in (int, float, bool)):
        return None
    if sign == -1:
        return None if type(node.value) is bool else -node.value
    return node.value


def assigned_names(tree: ast.FunctionDef) -> set[str]:
    """Names bound anywhere in the function body (Python's rule for what is local)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def mutated_names(tree: ast.FunctionDef) -> set[str]:
    """Names whose value the body changes, including through ``v[0] = x`` and ``v.x += 1``."""
    return set(store_counts(tree))


def store_counts(tree: ast.FunctionDef) -> dict[str, int]:
    """How many places in the body write each name (a name written once can alias its value)."""
    names: dict[str, int] = {}

    def root(target: ast.AST) -> None:
        if isinstance(target, ast.Name):
            names[target.id] = names.get(target.id, 0) + 1
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            root(target.value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                root(t)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                root(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            root(node.target)
    return names


def literal_locals(tree: ast.FunctionDef, params: set[str]) -> dict[str, tuple[object, tuple[int, int]]]:
    """Locals bound once, at the top of the body, to a number or bool literal (``n = 3``):
    static() and slice bounds may read them after that line, as Warp reads constant locals.
    Maps the name to its value and the (line, column) of the assignment."""
    counts = store_counts(tree)
    found = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, value = stmt.targets[0].id, number_literal(stmt.value)
            if name not in params and counts.get(name) == 1 and value is not None:
                found[name] = (value, (stmt.lineno, stmt.col_offset))
    return found
