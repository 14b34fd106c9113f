"""Rebuild traces/README.md from traces/README.template.md, so that every output it shows is
what the code printed.

    PYTHONPATH=. python3 traces/render_readme.py

Placeholders: ``{{cell:NAME}}`` is the ``# %% NAME`` cell of walkthrough.py with what it
printed, ``{{code:NAME}}`` the cell's code alone, ``{{size:FILE}}`` a sample's size,
``{{header:FILE}}`` / ``{{trailer:FILE}}`` its first / last line, ``{{record:FILE:OP}}`` its
first record with that op (``cbr-divergent``: the first branch record that diverged).
"""
from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLACEHOLDER = re.compile(r"\{\{(\w+):([^}]+)\}\}")


def run_cells(script: Path) -> dict[str, tuple[str, str]]:
    """{cell name: (code, printed output)} running the cells in order in one namespace."""
    parts = re.split(r"^# %% (.*)$", script.read_text(), flags=re.M)
    namespace = {"__file__": str(script), "__name__": "__main__"}
    cells = {}
    for name, code in zip(parts[1::2], parts[2::2]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(script), "exec"), namespace)
        cells[name] = (code.strip(), out.getvalue().rstrip())
    return cells


def trace_lines(name: str) -> list[str]:
    with gzip.open(HERE / name, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def first_record(name: str, op: str) -> str:
    for line in trace_lines(name)[1:]:
        record = json.loads(line)
        if op == "cbr-divergent":
            if record.get("op") == "cbr" and 0 < record["taken"].bit_count() < record["active"]:
                return line
        elif record.get("op") == op:
            return line
    raise KeyError(f"no {op} record in {name}")


def render(template: str, cells: dict[str, tuple[str, str]]) -> str:
    def replace(match: re.Match) -> str:
        kind, arg = match.group(1), match.group(2)
        if kind == "size":
            return f"{(HERE / arg).stat().st_size / 1000:.1f} kB"
        if kind == "header":
            return trace_lines(arg)[0]
        if kind == "trailer":
            return json.dumps(json.loads(trace_lines(arg)[-1]), indent=2)
        if kind == "record":
            name, op = arg.split(":", 1)
            return first_record(name, op)
        code, printed = cells[arg]
        if kind == "code":
            return code
        text = f"```python\n{code}\n```"
        return text + (f"\n\n```text\n{printed}\n```" if printed else "")

    return PLACEHOLDER.sub(replace, template)


def main() -> None:
    cells = run_cells(HERE / "walkthrough.py")      # also rewrites the PNGs
    text = render((HERE / "README.template.md").read_text(), cells)
    (HERE / "README.md").write_text(text)
    print(f"wrote {HERE / 'README.md'} ({len(text)} characters)")


if __name__ == "__main__":
    main()
