"""The README's Python snippets run as pasted: in order, in one fresh interpreter (as a user
pasting them into one session would), in an empty directory. A block that cannot run here
says why in an HTML comment on the line before it: ``<!-- not run: needs a GPU -->``; any
other block that raises fails this test, naming the README line."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.+?)\s*-->")


def python_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """(line of the block's first code line, its code, why it is not run or None)."""
    lines = text.splitlines()
    blocks, k = [], 0
    while k < len(lines):
        if lines[k].strip() != "```python":
            k += 1
            continue
        before = next((x for x in reversed(lines[:k]) if x.strip()), "")
        marker = NOT_RUN.search(before)
        end = lines.index("```", k + 1)
        blocks.append((k + 2, "\n".join(lines[k + 1:end]), marker.group(1) if marker else None))
        k = end + 1
    return blocks


# each block compiled under its README line numbers, so a traceback points at the README
DRIVER = textwrap.dedent("""
    import json, sys
    namespace = {"__name__": "__main__"}
    for first, code in json.load(sys.stdin):
        source = "\\n" * (first - 1) + code
        exec(compile(source, "README.md", "exec"), namespace)
        print(f"block at README.md:{first} ran", flush=True)
""")


def test_the_readme_python_blocks_run_as_pasted(tmp_path):
    blocks = python_blocks(README.read_text())
    run = [(first, code) for first, code, why in blocks if why is None]
    assert len(run) >= 3, blocks            # the kernel, the profile, the trace at least
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        "SIMT_PROGRESS": "0"}
    proc = subprocess.run([sys.executable, "-c", DRIVER], input=json.dumps(run), text=True,
                          capture_output=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert proc.stdout.count(" ran\n") == len(run), proc.stdout


def test_blocks_not_run_say_why():
    text = README.read_text()
    marked = [why for _, _, why in python_blocks(text) if why is not None]
    # every marker stands just before a python block (a stray one would silence nothing)
    assert len(NOT_RUN.findall(text)) == len(marked)
    assert all(len(why) > 10 for why in marked), marked


def test_the_block_parser_sees_markers_and_line_numbers():
    text = "x\n\n```python\na = 1\n```\n<!-- not run: needs a GPU -->\n```python\nb = 2\nc\n```\n"
    assert python_blocks(text) == [(4, "a = 1", None), (8, "b = 2\nc", "needs a GPU")]
