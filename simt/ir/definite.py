"""Definite assignment: every use of a local variable must follow an assignment on every path.

Python decides at run time: a local read on a path that never assigned it raises
UnboundLocalError. A kernel has no such error to raise, and a register that no path wrote
holds whatever was there (``if i > 3: v = 1.0`` then ``x[i] = v`` stored 1.0 for threads
0-3). So the front end applies Python's rule statically: a name bound anywhere in the
function is local (Python's scoping), and reading it where some path from the entry has
not bound it yet is a compile error. A loop body may run zero times, so what only a loop
assigns is not assigned after it, except the target of a ``for`` over a range of integer
literals that is not empty (Python leaves it at the last value); ``while True`` ends only
through its ``break``s.
"""
from __future__ import annotations

import ast
from typing import Callable

from .frontend_rules import assigned_names, number_literal

Names = frozenset[str]
ErrorAt = Callable[[str, ast.AST], Exception]


def check_definite_assignment(tree: ast.FunctionDef, params: set[str], error: ErrorAt,
                              constant_ifs: dict[int, bool] | None = None) -> None:
    """Raise ``error(message, node)`` at the first read of a possibly unassigned local.
    ``constant_ifs``: the ``if`` statements whose condition was known while compiling (by
    ``id`` of the node), and which branch runs."""
    _Walker(assigned_names(tree) - params, error, constant_ifs or {}).block(tree.body, frozenset(params))


def _constant_range_length(node: ast.expr) -> int:
    """len(range(...)) when every argument is an integer literal, else 0 (unknown)."""
    if not (isinstance(node, ast.Call) and not node.keywords and 1 <= len(node.args) <= 3
            and (isinstance(node.func, ast.Name) and node.func.id == "range"
                 or isinstance(node.func, ast.Attribute) and node.func.attr == "range")):
        return 0
    values = [number_literal(a) for a in node.args]
    if not all(type(v) is int for v in values) or (len(values) == 3 and values[2] == 0):
        return 0
    return len(range(*values))


class _Walker:
    def __init__(self, local_names: set[str], error: ErrorAt, constant_ifs: dict[int, bool]):
        self.locals = local_names
        self.error = error
        self.constant_ifs = constant_ifs
        self.loops: list[list[Names]] = []     # per enclosing loop: the states at its breaks

    # Each statement maps the names definitely assigned before it to those after it; None
    # means control never reaches the next statement (return, break, continue).
    def block(self, stmts: list[ast.stmt], state: Names | None) -> Names | None:
        for s in stmts:
            if state is None:
                return None          # unreachable code: Python would not run it either
            state = self.stmt(s, state)
        return state

    def stmt(self, s: ast.stmt, state: Names) -> Names | None:
        if isinstance(s, ast.Assign):
            self.reads(s.value, state)
            for t in s.targets:
                state = self.bind(t, state)
            return state
        if isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.reads(s.value, state)
            return self.bind(s.target, state) if s.value is not None else state
        if isinstance(s, ast.AugAssign):
            self.reads(s.value, state)
            self.reads(s.target, state, augmented=True)
            return self.bind(s.target, state)
        if isinstance(s, ast.If) and id(s) in self.constant_ifs:
            return self.block(s.body if self.constant_ifs[id(s)] else s.orelse, state)
        if isinstance(s, ast.If):
            self.reads(s.test, state)
            return _meet(self.block(s.body, state), self.block(s.orelse, state))
        if isinstance(s, ast.While):
            self.reads(s.test, state)
            forever = isinstance(s.test, ast.Constant) and bool(s.test.value)
            breaks = self.loop(s.body, state)
            after = None if forever else state
            for b in breaks:
                after = _meet(after, b)
            return after
        if isinstance(s, ast.For):
            self.reads(s.iter, state)
            self.loop(s.body, self.bind(s.target, state))
            if _constant_range_length(s.iter) > 0:
                return self.bind(s.target, state)   # runs at least once: the target is bound
            return state             # the body may run zero times
        if isinstance(s, ast.Return):
            if s.value is not None:
                self.reads(s.value, state)
            return None
        if isinstance(s, (ast.Break, ast.Continue)):
            if isinstance(s, ast.Break) and self.loops:
                self.loops[-1].append(state)
            return None
        for child in ast.iter_child_nodes(s):    # Expr, Assert, Pass, and what the front end rejects
            if isinstance(child, ast.expr):
                self.reads(child, state)
        return state

    def loop(self, body: list[ast.stmt], state: Names) -> list[Names]:
        self.loops.append([])
        self.block(body, state)
        return self.loops.pop()

    def bind(self, target: ast.AST, state: Names) -> Names:
        if isinstance(target, ast.Name):
            return state | {target.id}
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                state = self.bind(t, state)
            return state
        self.reads(target, state)    # a[i] = ..., v.x = ...: reads a, i, v
        return state

    def reads(self, node: ast.AST, state: Names, augmented: bool = False) -> None:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and (augmented or isinstance(n.ctx, ast.Load)) \
                    and n.id in self.locals and n.id not in state:
                raise self.error(
                    f"variable {n.id!r} is used before it is assigned on some path to this "
                    f"line: every path from the start of the function must assign it first "
                    f"(Python would raise UnboundLocalError on such a path); give it a value "
                    f"before the branch or loop that assigns it", n)


def _meet(a: Names | None, b: Names | None) -> Names | None:
    if a is None:
        return b
    if b is None:
        return a
    return a & b
