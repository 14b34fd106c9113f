"""What the front end knows about a Python function: its AST, where each node sits in the
user's file, and the Python names (globals, closure cells, builtins) it can see."""
from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any

from ..errors import CompileError
from .mir import Loc


@dataclass
class PyFunc:
    func: Any                  # the Python function object
    tree: ast.FunctionDef
    file: str
    line_offset: int           # add to an AST lineno to get the file's line
    col_offset: int            # indentation removed before parsing
    name: str
    globals: dict = field(default_factory=dict)
    closure: dict = field(default_factory=dict)

    def loc(self, node: ast.AST | None) -> Loc:
        if node is None or not hasattr(node, "lineno"):
            node = self.tree
        return Loc(self.file, node.lineno + self.line_offset, node.col_offset + self.col_offset,
                   self.name)

    def lookup(self, name: str) -> tuple[bool, Any]:
        """(found, value) for a non-local name: closure cell, then global, then builtin."""
        if name in self.closure:
            return True, self.closure[name]
        if name in self.globals:
            return True, self.globals[name]
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None

    def evaluate(self, expr: ast.expr | str, where: ast.AST, extra: dict | None = None) -> Any:
        """Evaluate an annotation or a default value in the function's namespace (``extra``:
        more names, e.g. the current value of an unrolled loop's variable)."""
        source = expr if isinstance(expr, str) else ast.unparse(expr)
        try:
            return eval(source, dict(self.globals), dict(self.closure) | (extra or {}))  # noqa: S307
        except Exception as e:  # noqa: BLE001 - any failure is the user's annotation
            raise CompileError(f"cannot evaluate {source!r}: {type(e).__name__}: {e}",
                               self.loc(where)) from None


_CACHE: dict[Any, PyFunc] = {}


def parse_function(func) -> PyFunc:
    """Parse ``func``'s source once; columns and lines refer to the original file."""
    key = getattr(func, "__code__", func)
    cached = _CACHE.get(key)
    if cached is not None and cached.func is func:
        return cached
    name = getattr(func, "__name__", repr(func))
    try:
        lines, start = inspect.getsourcelines(func)
        file = inspect.getsourcefile(func) or func.__code__.co_filename
    except (OSError, TypeError) as e:
        raise CompileError(f"cannot read the source of {name!r} ({e}); kernels and device "
                           f"functions must be defined in a file, not typed at a prompt or exec'd")
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = _removed_indent(source, dedented)
    try:
        module = ast.parse(dedented)
    except SyntaxError as e:
        raise CompileError(f"cannot parse {name!r}: {e.msg}",
                           Loc(file, start + (e.lineno or 1) - 1, indent + (e.offset or 1) - 1, name))
    tree = module.body[0]
    if not isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise CompileError(f"{name!r} is not a plain function definition", Loc(file, start, indent, name))
    if isinstance(tree, ast.AsyncFunctionDef):
        raise CompileError("async functions cannot be kernels", Loc(file, start, indent, name))
    closure = {}
    code = getattr(func, "__code__", None)
    if code is not None and func.__closure__:
        for var, cell in zip(code.co_freevars, func.__closure__):
            try:
                closure[var] = cell.cell_contents
            except ValueError:  # an empty cell: assigned later in the enclosing scope
                pass
    pf = PyFunc(func, tree, file, start - 1, indent, name, getattr(func, "__globals__", {}), closure)
    _CACHE[key] = pf
    return pf


def _removed_indent(source: str, dedented: str) -> int:
    for orig, new in zip(source.splitlines(), dedented.splitlines()):
        if orig.strip():
            return len(orig) - len(new)
    return 0
