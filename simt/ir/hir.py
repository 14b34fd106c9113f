"""The HIR: the user's kernel as a typed tree, produced by the front end (frontend.py).

Every node carries its type (expressions) and the source location it came from, so lowering
(lower.py) never has to guess either. Names are already resolved: globals became constants,
builtins became registry calls, device functions became ``InlineCall`` of a typed body.
Composite values (vectors, matrices, quaternions) are still whole values here; lowering
expands them into scalar registers.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .mir import AtomOp, Loc
from .types import AnyType, MatrixType, QuatType, Scalar, StructType, TransformType, VectorType


# ---- expressions ----------------------------------------------------------------------

@dataclass(eq=False)
class Expr:
    type: AnyType
    loc: Loc


@dataclass(eq=False)
class Const(Expr):
    """A compile-time scalar. ``literal``: an untyped Python literal that may still adapt to
    the type of the other operand (``x * 2`` with ``x`` float32)."""
    value: int | float | bool = 0
    literal: bool = False


@dataclass(eq=False)
class Var(Expr):
    """A local variable or parameter (value, array or tuple)."""
    name: str = ""


@dataclass(eq=False)
class Call(Expr):
    """A registry builtin applied to typed arguments (operators are builtins too)."""
    builtin: str = ""
    args: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class Special(Expr):
    """An execution-model query lowered by the front end itself: tid, thread_idx, block_idx,
    block_dim, grid_dim, lane_id, warp_id, clock. ``count``: how many values the caller
    unpacks (tid's result depends on it, like Warp)."""
    name: str = ""
    count: int = 1


@dataclass(eq=False)
class Truth(Expr):
    """``value != 0`` for numbers used as conditions; bool values pass through."""
    value: Expr | None = None


@dataclass(eq=False)
class Not(Expr):
    value: Expr | None = None


@dataclass(eq=False)
class BoolOp(Expr):
    """Short-circuit ``and``/``or`` over bool operands: later operands run only if needed
    (lowering may compute an operand that cannot fault or have effects anyway: no branch)."""
    op: str = "and"
    values: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class IfExp(Expr):
    """``a if cond else b``: only the chosen side is evaluated (or, when neither side can
    fault or have effects, both are and a select picks one)."""
    cond: Expr | None = None
    then: Expr | None = None
    orelse: Expr | None = None


@dataclass(eq=False)
class Extract(Expr):
    """A component of a composite value (``v[i]``, ``v.x``, ``m[i]`` a row, ``q.w``)."""
    base: Expr | None = None
    index: Expr | None = None


@dataclass(eq=False)
class Swizzle(Expr):
    """Several components of a composite at once (``v[0:2]``, matrix rows ``m[1:3]``)."""
    base: Expr | None = None
    picks: list[int] = field(default_factory=list)


@dataclass(eq=False)
class TupleExpr(Expr):
    elems: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class TupleGet(Expr):
    base: Expr | None = None
    index: int = 0


@dataclass(eq=False)
class ArrayLoad(Expr):
    """``a[i, j]`` or a part of the element: ``a[i][k]``, ``a[i].x``, ``m_arr[i][r, c]``.
    ``path`` indexes inside the element (components, matrix rows/entries)."""
    array: Expr | None = None
    indices: list[Expr] = field(default_factory=list)
    path: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class ArrayView(Expr):
    """``a[i]`` of a multi-dimensional array: the sub-array at those leading indices (``type``
    is an ArrayType of fewer dimensions), as Warp's array views. With ``slices``, the keys of
    ``a[2:n:2, 1]``, one per leading dimension of ``array``: an index (an int32 Expr) or a
    normalised slice (start, step, length), as Python's ``slice.indices`` gives them."""
    array: Expr | None = None
    indices: list[Expr] = field(default_factory=list)
    slices: list | None = None


@dataclass(eq=False)
class ArrayDim(Expr):
    """``a.shape[k]``: an int32 extent (a constant for shared arrays)."""
    array: Expr | None = None
    dim: int = 0


@dataclass(eq=False)
class Atomic(Expr):
    """``atomic_add(a, i, ..., v)`` and friends: returns the old element value.
    ``values`` is (value,) or (compare, value) for CAS."""
    op: AtomOp = AtomOp.ADD
    array: Expr | None = None
    indices: list[Expr] = field(default_factory=list)
    path: list[Expr] = field(default_factory=list)
    values: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class WriteBack(Expr):
    """A call that updates some of its arguments (Warp's ``uint32& state``): ``call`` yields
    the result (of this node's ``type``) followed by the arguments' new values, which are
    stored into ``targets``: (variable, component path) or None where an argument was no
    variable (then the update is dropped, as Warp's temporary would be)."""
    call: Expr | None = None
    targets: list = field(default_factory=list)      # (name, [index Exprs]) | None
    target_types: list = field(default_factory=list)


@dataclass(eq=False)
class SharedArray(Expr):
    """``simt.shared.array(shape=..., dtype=...)``: a static per-block allocation.
    ``type`` is an ArrayType with a static shape and layout."""
    hint: str = "shared"


@dataclass(eq=False)
class InlineCall(Expr):
    """A call of a device function: its typed body is inlined at the call site.
    ``first``: expressions to evaluate, in this order, before the arguments are bound (the
    call's arguments in source order when keywords put them out of parameter order; the
    arguments refer to them through ``Once``)."""
    func: "FuncDef | None" = None
    args: list[Expr] = field(default_factory=list)
    first: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class Once(Expr):
    """An expression that appears at several places of one statement but runs once, where
    it is first reached (Python evaluates ``a[f()] += x``'s target, and the middle operand
    of ``a < f() < b``, once); later places reuse its value."""
    value: Expr | None = None


def once(e: Expr) -> Expr:
    """``e`` wrapped so that repeating it does not repeat its evaluation (constants and
    variables need no wrapping)."""
    if isinstance(e, (Const, Var, Once)):
        return e
    return Once(e.type, e.loc, value=e)


# ---- statements -----------------------------------------------------------------------

@dataclass(eq=False)
class Stmt:
    loc: Loc


@dataclass(eq=False)
class Assign(Stmt):
    """``name = value``; the variable's type is fixed by its first assignment."""
    name: str = ""
    value: Expr | None = None


@dataclass(eq=False)
class Unpack(Stmt):
    """``a, b = value`` with a tuple-typed value."""
    names: list[str] = field(default_factory=list)
    value: Expr | None = None


@dataclass(eq=False)
class ComponentStore(Stmt):
    """``v[i] = x``, ``v.x = x``, ``m[i, j] = x``, ``m[i] = row`` on a local variable."""
    name: str = ""
    path: list[Expr] = field(default_factory=list)
    value: Expr | None = None


@dataclass(eq=False)
class ArrayStore(Stmt):
    """``a[i, j] = x``, or a part of the element (``a[i].x = s``, ``a[i][k] = s``)."""
    array: Expr | None = None
    indices: list[Expr] = field(default_factory=list)
    path: list[Expr] = field(default_factory=list)
    value: Expr | None = None


@dataclass(eq=False)
class ExprStmt(Stmt):
    value: Expr | None = None


@dataclass(eq=False)
class Print(Stmt):
    """printf: ``args`` (integers, float32, float64) formatted with a C printf format."""
    fmt: str = ""
    args: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class Seq(Stmt):
    """Statements one source statement became (``v[0:2] = w`` stores each component)."""
    body: list[Stmt] = field(default_factory=list)


@dataclass(eq=False)
class If(Stmt):
    cond: Expr | None = None
    body: list[Stmt] = field(default_factory=list)
    orelse: list[Stmt] = field(default_factory=list)


@dataclass(eq=False)
class ForRange(Stmt):
    """``for var in range(start, stop, step)`` with int32 bounds evaluated once."""
    var: str = ""
    start: Expr | None = None
    stop: Expr | None = None
    step: Expr | None = None
    body: list[Stmt] = field(default_factory=list)


@dataclass(eq=False)
class While(Stmt):
    cond: Expr | None = None
    body: list[Stmt] = field(default_factory=list)


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None = None


@dataclass(eq=False)
class SyncThreads(Stmt):
    pass


@dataclass(eq=False)
class BlockUntil(Stmt):
    """Barrier repeated until ``cond`` holds in every thread of the block."""
    cond: Expr | None = None


# ---- functions ------------------------------------------------------------------------

@dataclass(eq=False)
class FuncDef:
    """A kernel or one specialisation of a device function (argument types fixed)."""
    name: str
    params: list[tuple[str, AnyType]]
    body: list[Stmt]
    return_type: AnyType
    loc: Loc
    is_kernel: bool = False
    assigned: set[str] = field(default_factory=set)   # names the body assigns to
    assigned_once: set[str] = field(default_factory=set)  # names written at exactly one place
    tid_ndim: int = 0          # most values unpacked from tid() (0: never called)
    thread_idx_ndim: int = 0   # same for thread_idx/block_idx/block_dim/grid_dim
    ref_params: set[str] = field(default_factory=set)   # passed by reference (wp.ref[T])


def is_value_type(t: AnyType) -> bool:
    """Scalars, composites and structs: what variables hold (not arrays, tuples or None)."""
    return isinstance(t, (Scalar, VectorType, MatrixType, QuatType, TransformType, StructType))


@dataclass(eq=False)
class StaticKeyword(Expr):
    """A compile-time keyword argument of a builtin call (its type is a registry StaticArg);
    it lowers to no operands."""


@dataclass(eq=False)
class StructNew(Expr):
    """``S(...)`` in a kernel: a struct value from its fields (missing ones are zero)."""
    fields: list = field(default_factory=list)    # one Expr or None per field, in order
