"""Rebuild docs/checks/README.md from README.template.md, so every output it shows is what
the code printed:

    PYTHONPATH=. python3 docs/checks/render_readme.py

``{{cell:NAME}}`` is the ``# %% NAME`` cell of walkthrough.py with what it printed,
``{{source:FILE:FUNC}}`` the source of a function in this folder. Paths under the
repository root are shown relative to it.
"""
from __future__ import annotations

import contextlib
import inspect
import io
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PLACEHOLDER = re.compile(r"\{\{(\w+):([^}]+)\}\}")


def run_cells(script: Path) -> dict[str, tuple[str, str]]:
    """{cell name: (code, printed output)}, running the cells in order in one namespace."""
    parts = re.split(r"^# %% (.*)$", script.read_text(), flags=re.M)
    namespace = {"__file__": str(script), "__name__": "__main__"}
    cells = {}
    for name, code in zip(parts[1::2], parts[2::2]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(script), "exec"), namespace)
        cells[name] = (code.strip(), out.getvalue().rstrip().replace(f"{ROOT}/", ""))
    return cells


def source(spec: str) -> str:
    module_name, func = spec.split(":")
    sys.path.insert(0, str(HERE))
    module = __import__(module_name)
    obj = getattr(module, func)
    return inspect.getsource(getattr(obj, "py_func", obj)).rstrip()


def render(template: str, cells: dict[str, tuple[str, str]]) -> str:
    def replace(match: re.Match) -> str:
        kind, arg = match.group(1), match.group(2)
        if kind == "source":
            return f"```python\n{source(arg)}\n```"
        code, printed = cells[arg]
        text = f"```python\n{code}\n```"
        return text + (f"\n\n```text\n{printed}\n```" if printed else "")
    return PLACEHOLDER.sub(replace, template)


def main() -> None:
    cells = run_cells(HERE / "walkthrough.py")
    text = render((HERE / "README.template.md").read_text(), cells)
    (HERE / "README.md").write_text(text)
    print(f"wrote {HERE / 'README.md'} ({len(text)} characters)")


if __name__ == "__main__":
    main()
