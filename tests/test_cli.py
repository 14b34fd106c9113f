"""The command line as a user meets it: scripts get their own arguments, output piped into
`head` ends quietly, `simt report lines|summary` (also as CSV), `simt cache info|clear`."""
from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import simt
from simt.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "traces"


def test_run_gives_the_script_its_own_arguments(tmp_path):
    script = tmp_path / "args.py"
    out = tmp_path / "argv.txt"
    script.write_text(textwrap.dedent(f"""
        import sys
        n = int(sys.argv[1])                 # what `python args.py 3 --flag x` would see
        open({str(out)!r}, "w").write(repr(sys.argv))
        sys.exit(n)
    """))
    assert main(["run", str(script), "3", "--flag", "x"]) == 3
    assert out.read_text() == repr([str(script), "3", "--flag", "x"])
    assert main(["run", "--device", "cpu", str(script), "0"]) == 0


def test_run_leaves_the_device_and_options_as_it_found_them(tmp_path):
    script = tmp_path / "settings.py"
    seen = tmp_path / "seen.txt"
    script.write_text(textwrap.dedent(f"""
        import sys
        import simt as wp
        open({str(seen)!r}, "w").write(f"{{wp.get_device()}} {{wp.get_module_options()['arch']}}")
        wp.set_device("cpu")                               # the script's own changes
        wp.set_module_options({{"max_steps": 5, "fastmath": True}})
        wp.config.mode = "debug"
        sys.exit(3)
    """))
    before = (str(simt.get_device()), simt.get_module_options(), simt.config.mode)
    assert main(["run", "--device", "cpu:trace", "--trace", str(tmp_path / "t.jsonl"), "--arch", "sm_80",
                 "--no-progress", "--check", "race", str(script)]) == 3
    assert seen.read_text() == "cpu:trace sm_80"              # what the script ran under
    assert (str(simt.get_device()), simt.get_module_options(), simt.config.mode) == before
    assert main(["run", "--device", "gpu", str(script)]) == 2   # refused before anything changed
    assert (str(simt.get_device()), simt.get_module_options(), simt.config.mode) == before


def test_version_does_not_import_the_kernel_suite():
    probe = ("import sys, simt.cli\n"
             "try:\n    simt.cli.main(['--version'])\nexcept SystemExit as e:\n    code = e.code\n"
             "print(code, sorted(m for m in sys.modules if m.startswith(('simt.suite', 'simt.demo'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout
    assert done.stdout.startswith(f"simt {simt.__version__}")


def test_output_into_a_closed_pipe_ends_quietly(tmp_path):
    script = tmp_path / "talk.py"
    script.write_text("for i in range(200000):\n    print('line', i)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args in (["run", str(script)], ["report", "banks", str(SAMPLES / "transpose_tile.jsonl.gz")]):
        done = subprocess.run(f"{sys.executable} -m simt {' '.join(args)} | head -n 1",
                              shell=True, capture_output=True, text=True, env=env, timeout=120)
        assert done.stdout.count("\n") == 1, done.stdout
        assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_report_lines_like_a_source_view(capsys):
    trace = SAMPLES / "transpose_tile.jsonl.gz"
    assert main(["report", "lines", str(trace)]) == 0
    text = capsys.readouterr().out
    assert "dst[row + k, col] = tile[tx, ty + k]" in text
    assert main(["report", "lines", str(trace), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    by_line = {int(r["line"]): r for r in rows}
    load = by_line[66]
    assert load["source"] == "dst[row + k, col] = tile[tx, ty + k]"
    # the unpadded tile read: 4 loads of 32 warps, each 32 wavefronts where 1 would do
    assert int(load["bank_conflicts"]) == 4 * 32 * 31 and int(load["stall_cycles"]) > 0
    assert list(rows[0])[:2] == ["line", "source"]


def test_report_summary_agrees_with_the_engine(capsys):
    assert main(["report", "summary", str(SAMPLES / "nested_branches.jsonl.gz"), "--csv"]) == 0
    rows = {r["metric"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    inst = rows["smsp__inst_executed.sum"]
    assert inst["engine"] == inst["trace"] and int(inst["engine"]) > 0
    assert rows["sm__cycles_elapsed.max"]["trace"] == ""      # timing is the engine's alone


def test_cache_info_and_clear(tmp_path, monkeypatch, capsys):
    from simt.sim.fast import cache
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path / "c"))

    @simt.kernel
    def cached(x: simt.array(dtype=float)):
        i = simt.tid()
        x[i] = 3.0

    simt.launch(cached, 64, [simt.zeros(64)], device="cpu")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "c" / "fast") in out and "entries: 1," in out
    assert main(["cache", "clear"]) == 0
    assert not cache.entries() and "removed 1" in capsys.readouterr().out
    x = simt.zeros(64)
    cached.clear_cache()                                # as a new process would: load again
    simt.launch(cached, 64, [x], device="cpu")          # rebuilt after the clear
    assert (x.numpy() == 3.0).all() and len(cache.entries()) == 1
