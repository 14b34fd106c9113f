"""Traces that outlive a crash, a reader that never shows a raw traceback, and loading
that can stay small: column selection and tight dtypes."""
from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simt as wp
from simt import analysis
from simt.analysis.loading import TraceFormatError
from simt.analysis.tables import pc_sort_key
from simt.cli import main
from simt.sim.trace import writer

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "traces"


@wp.kernel
def busy(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    acc = float(0.0)
    for k in range(n):
        acc = acc + float(k % 7) * 0.5
    x[i] = acc


def _trace(path, blocks=8, n=3, **options):
    x = wp.zeros(blocks * 64)
    wp.launch(busy, blocks * 64, [x, n], block_dim=64, device="cpu:trace", trace=str(path),
              trace_options=options or None)
    return path


def _records(path) -> list[dict]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if '"type":"inst"' in line]


@pytest.fixture
def chunky(monkeypatch, tmp_path):
    """A gzip trace written in many small chunks (members)."""
    monkeypatch.setattr(writer, "FLUSH_BYTES", 2000)
    return _trace(tmp_path / "t.jsonl.gz")


def test_the_writer_makes_one_gzip_member_per_chunk(chunky):
    data = chunky.read_bytes()
    assert data.count(b"\x1f\x8b\x08") > 5
    df = analysis.load_trace(chunky)
    assert len(df) == df.attrs["end"]["records"] == len(_records(chunky)) and df.attrs["damage"] is None


def test_a_gzip_trace_cut_anywhere_keeps_its_whole_records(chunky):
    data = chunky.read_bytes()
    whole = analysis.load_trace(chunky)
    for cut in (len(data) // 3, len(data) // 2 + 7, len(data) - 5):
        part = chunky.with_name(f"cut{cut}.jsonl.gz")
        part.write_bytes(data[:cut])
        with pytest.warns(analysis.TraceDamageWarning, match="cut short.*gzip member"):
            df = analysis.load_trace(part)
        assert 0 < len(df) <= len(whole)
        assert "gzip member" in df.attrs["damage"]
        pd.testing.assert_frame_equal(df.drop(columns="addr"),
                                      whole.iloc[:len(df)].drop(columns="addr"), check_dtype=False,
                                      check_categorical=False)
    corrupt = bytearray(data)
    corrupt[len(data) // 2] ^= 0xFF
    part = chunky.with_name("corrupt.jsonl.gz")
    part.write_bytes(bytes(corrupt))
    with pytest.warns(analysis.TraceDamageWarning):
        df = analysis.load_trace(part)
    assert 0 < len(df) < len(whole)


def test_a_plain_trace_with_a_cut_last_line(tmp_path):
    path = _trace(tmp_path / "t.jsonl")
    text = path.read_bytes()
    lines = text.split(b"\n")
    cut = b"\n".join(lines[:-3]) + b"\n" + lines[-3][:25]      # a record cut mid-way, no trailer
    path.write_bytes(cut)
    with pytest.warns(analysis.TraceDamageWarning, match="last line is cut short"):
        df = analysis.load_trace(path)
    assert len(df) == len(lines) - 4        # less the header, the trailer, the cut record, ""
    with pytest.warns(analysis.TraceDamageWarning):
        assert main(["report", "banks", str(path)]) == 0


CHILD = """
import signal, sys, time
# Ctrl-C as a user at a terminal has it: a shell starts a background job with SIGINT ignored,
# and a child inherits that, so a test run from one would test nothing
signal.signal(signal.SIGINT, signal.default_int_handler)
import simt as wp
from simt.sim.trace import writer
writer.FLUSH_SECONDS = 0.05
from test_trace_recovery import busy
# far more work than the test waits for (a launch of 4096 blocks wrote its whole trace within
# 3 s, and a test starved of CPU once signalled it only after it had finished)
x = wp.zeros(65536 * 64)
wp.launch(busy, 65536 * 64, [x, 20], block_dim=64, device="cpu:trace", trace=sys.argv[1])
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_trace_killed_while_written_keeps_what_was_written(tmp_path, sig):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD))
    path = tmp_path / "killed.jsonl.gz"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"}
    child = subprocess.Popen([sys.executable, str(script), str(path)], env=env,
                             stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not path.exists() or path.stat().st_size < 20000):
        assert child.poll() is None, child.stderr.read().decode()
        time.sleep(0.05)
    child.send_signal(sig)
    child.wait(timeout=60)
    err = child.stderr.read().decode()
    child.stderr.close()
    assert child.returncode != 0, f"the launch finished before it was signalled:\n{err}"
    with pytest.warns(analysis.TraceDamageWarning, match="cut short|no trailer"):
        df = analysis.load_trace(path)
    assert len(df) > 1000 and df.attrs["end"] is None
    assert df["pc"].notna().all() and (df["active"] > 0).all()


@pytest.mark.parametrize("line,message", [
    (b'{"type":"inst","launch":0,"block":0,"warp":0,"pc":"b\xff:0","op":"add","line":1,"col":0,'
     b'"mask":1,"active":1,"cycle":0}\n', "line 2: not UTF-8"),
    (b'{"type":"inst","op":"\xc3\x28"}\n', "line 2: not UTF-8"),
    (b'{"type":"inst","x":' + b"[" * 100000 + b"]" * 100000 + b"}\n", "line 2: JSON nested too deeply"),
    (b'{"type":"inst","launch":0,"block":"zero","warp":0,"pc":"b:0","op":"add"}\n',
     "line 2: key 'block' must be an integer, got 'zero'"),
    (b'{"type":"inst","pc":7,"op":"add"}\n', "line 2: key 'pc' must be a string"),
    (b'{"type":"inst","pc":"b:0","addr":[1,"x"]}\n', "line 2: key 'addr' must be a list"),
    (b'{"type":"end","records":"many"}\n', "the trailer's 'records' must be an integer"),
], ids=["utf8-fast-path", "utf8-json", "deep-nesting", "block-str", "pc-int", "addr-str", "end-records"])
def test_bad_records_are_trace_format_errors(tmp_path, capsys, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"type":"header","schema":1,"kernel":"k"}\n' + line)
    with pytest.raises(TraceFormatError, match=message):
        analysis.load_trace(path)
    assert main(["report", "banks", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simt report: ") and "Traceback" not in err


def test_bad_headers_are_trace_format_errors(tmp_path):
    for first, message in ((b'{"type":"header","schema":1,"kernel":' + b"[" * 50000 + b"]" * 50000
                            + b"}\n", "first line is not JSON"),
                           (b'{"type":"header","schema":1,"kernel":"\xff"}\n', "first line is not JSON"),
                           (b'{"type":"header","schema":1,"dim":"64"}\n', "'dim' must be a list")):
        path = tmp_path / "bad.jsonl"
        path.write_bytes(first)
        with pytest.raises(TraceFormatError, match=message):
            analysis.load_trace(path)


def test_column_selection_and_tight_dtypes():
    path = SAMPLES / "transpose_tile.jsonl.gz"
    full = analysis.load_trace(path)
    some = analysis.load_trace(path, columns=["block", "warp", "pc", "op", "wavefronts"])
    assert list(some.columns) == ["block", "warp", "pc", "op", "wavefronts"]
    for c in some.columns:
        assert list(some[c].astype(object)) == list(full[c].astype(object)), c
    chunks = list(analysis.iter_trace_chunks(path, chunksize=500, columns=["cycle", "line"]))
    assert sum(len(c) for c in chunks) == len(full) and list(chunks[0].columns) == ["cycle", "line"]
    ints = full.drop(columns=["addr", "pc", "op", "space"])
    as_int64 = pd.DataFrame({c: ints[c].astype("Int64" if ints[c].hasnans else np.int64)
                             for c in ints.columns})
    assert ints.memory_usage(deep=True).sum() < 0.5 * as_int64.memory_usage(deep=True).sum()
    assert full["mask"].max() == 0xFFFFFFFF and full["active"].max() == 32     # nothing clipped
    assert some["wavefronts"].sum() == full["wavefronts"].sum() == \
        analysis.bank_conflicts(path)["wavefronts"].sum()


def test_pcs_sort_as_numbers():
    assert sorted(["body0:106", "body0:46", "body1:2", "body10:0", "body2:0"], key=pc_sort_key) == \
        ["body0:46", "body0:106", "body1:2", "body2:0", "body10:0"]
    table = analysis.bank_conflicts(SAMPLES / "transpose_tile.jsonl.gz")
    loads = list(table.loc[table["op"] == "ld.shared", "pc"])
    assert loads == sorted(loads, key=pc_sort_key) and loads[0] == "endfor0:9"


def test_divergence_of_a_memory_only_trace_says_why_it_cannot(tmp_path, capsys):
    path = _trace(tmp_path / "m.jsonl", memory_only=True)
    with pytest.raises(analysis.FilteredTraceError, match="memory_only"):
        analysis.divergence(path)
    with pytest.raises(analysis.FilteredTraceError, match="memory_only"):
        analysis.divergence(analysis.load_trace(path))
    assert main(["report", "divergence", str(path)]) == 2
    assert "memory_only" in capsys.readouterr().err
