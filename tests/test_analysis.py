"""Trace analysis (simt.analysis) on synthetic traces written to the schema-1 format, checked
against the bank model of the precise engine and the measured H200 table in the reference;
and, once the tracing engine exists, against the engine's own counters."""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simt import analysis
from simt.analysis.banks import model_wavefronts, phase_bank_words
from simt.analysis.loading import TraceFormatError
from simt.sim.precise.banks import global_sectors, shared_wavefronts

LANES = np.arange(32)
FULL = 0xFFFFFFFF
GLOBAL_BASE = 1 << 20          # simulated device address of the input array
OUT_BASE = 1 << 24


# ---------------------------------------------------------------- a synthetic trace writer

class TraceBuilder:
    """Writes records exactly as the schema says; memory costs come from the engine's model."""

    def __init__(self, kernel="synthetic", **header):
        self.header = {"type": "header", "schema": 1, "simt": "0.1.0", "kernel": kernel,
                       "launch": 0, "arch": "sm_90", "dim": [32, 32], "block": [32, 8, 1],
                       "grid": [1, 1, 1], "threads_per_block": 256, "warps_per_block": 8,
                       "source": "kernels.py",
                       "filters": {"memory_only": False, "blocks": None, "warps": None,
                                   "max_records": None}}
        self.header.update(header)
        self.records: list[dict] = []
        self.cycle: dict[tuple[int, int], int] = {}

    def inst(self, block, warp, pc, op, line, mask=FULL, gap=1, **extra):
        key = (block, warp)
        self.cycle[key] = self.cycle.get(key, block * 1000) + gap
        rec = {"type": "inst", "launch": self.header["launch"], "block": block, "warp": warp,
               "pc": pc, "op": op, "line": line, "col": 4, "mask": mask,
               "active": bin(mask).count("1"), "cycle": self.cycle[key]}
        rec.update(extra)
        self.records.append(rec)
        return rec

    def shared(self, block, warp, pc, op, line, addr, width=4, mask=FULL, record_cost=True):
        active = _lanes(mask)
        rec = self.inst(block, warp, pc, op, line, mask, space="shared", width=width,
                        addr=[int(a) if on else None for a, on in zip(addr, active)])
        if record_cost:
            rec["wavefronts"], rec["ideal"] = shared_wavefronts(np.asarray(addr), active, width)
        return rec

    def glob(self, block, warp, pc, op, line, addr, width=4, mask=FULL, gap=1):
        active = _lanes(mask)
        return self.inst(block, warp, pc, op, line, mask, gap=gap, space="global", width=width,
                         addr=[int(a) if on else None for a, on in zip(addr, active)],
                         sectors=global_sectors(np.asarray(addr), active, width), requests=1)

    def branch(self, block, warp, pc, line, taken, mask=FULL):
        return self.inst(block, warp, pc, "cbr", line, mask, taken=taken & mask)

    def write(self, path, end=True, separators=(", ", ": ")):
        lines = [json.dumps(self.header)] + [json.dumps(r, separators=separators) for r in self.records]
        if end:
            lines.append(json.dumps({"type": "end", "records": len(self.records), "truncated": False}))
        text = "\n".join(lines) + "\n"
        path = Path(path)
        if path.suffix == ".gz":
            with gzip.open(path, "wt") as f:
                f.write(text)
        else:
            path.write_text(text)
        return path


def _lanes(mask):
    return ((mask >> LANES) & 1).astype(bool)


def transpose_trace(pad: int, blocks: int = 2) -> TraceBuilder:
    """The classic 32x32 tile transpose with a 32x8 block (each warp is one tile row ty, and
    loops j = 0, 8, 16, 24): line 20 loads global, 21 stores the tile row, 22 syncs, 23 reads
    a tile column (stride 32 + pad floats), 24 stores global; line 19 is the loop branch."""
    tb = TraceBuilder("transpose_pad%d" % pad)
    row = 32 + pad
    for b in range(blocks):
        for w in range(8):
            for j in range(0, 32, 8):
                y = w + j
                tb.glob(b, w, "body:0", "ld.global", 20, GLOBAL_BASE + (y * 64 + LANES) * 4)
                tb.shared(b, w, "body:1", "st.shared", 21, (y * row + LANES) * 4)
                tb.branch(b, w, "body:2", 19, taken=FULL if j < 24 else 0)
        for w in range(8):
            tb.inst(b, w, "after:0", "bar", 22, gap=5)
            for j in range(0, 32, 8):
                tb.shared(b, w, "after:1", "ld.shared", 23, (LANES * row + w + j) * 4)
                tb.glob(b, w, "after:2", "st.global", 24, OUT_BASE + ((w + j) * 64 + LANES) * 4, gap=30)
            tb.inst(b, w, "after:3", "ret", 25)
    return tb


@pytest.fixture(scope="module")
def naive(tmp_path_factory):
    return transpose_trace(pad=0).write(tmp_path_factory.mktemp("t") / "naive.jsonl")


@pytest.fixture(scope="module")
def padded(tmp_path_factory):
    return transpose_trace(pad=1).write(tmp_path_factory.mktemp("t") / "padded.jsonl.gz")


# ---------------------------------------------------------------- loading

def test_load_trace_columns_and_addresses(naive):
    df = analysis.load_trace(naive)
    assert len(df) == 2 * 8 * (4 * 3 + 1 + 4 * 2 + 1)
    assert list(df.columns[:5]) == ["launch", "block", "warp", "pc", "op"]
    assert df.attrs["header"]["kernel"] == "transpose_pad0"
    assert df.attrs["end"]["records"] == len(df)
    first = df.iloc[0]
    assert first["op"] == "ld.global" and first["line"] == 20 and first["mask"] == FULL
    assert isinstance(first["addr"], np.ndarray) and first["addr"].shape == (32,)
    assert (first["addr"] == GLOBAL_BASE + LANES * 4).all()
    assert df.loc[df["op"] == "bar", "addr"].isna().all()
    assert df["cycle"].dtype == np.int64 and str(df["width"].dtype) == "Int16"
    assert df["active"].dtype == np.int8 and df["mask"].dtype == np.uint32


def test_chunks_gzip_and_separators_agree(tmp_path, naive):
    whole = analysis.load_trace(naive)
    compact = transpose_trace(pad=0).write(tmp_path / "compact.jsonl.gz", separators=(",", ":"))
    chunked = analysis.load_trace(compact, chunksize=7)
    chunks = list(analysis.iter_trace_chunks(naive, chunksize=50))
    assert len(chunks) == -(-(len(whole) + 1) // 50)
    assert chunks[1].index[0] == 50 and chunks[-1].attrs["end"] is not None
    for other in (chunked, pd.concat([c.astype({"pc": object, "op": object, "space": object})
                                      for c in chunks])):
        _assert_same_records(whole, other)


def test_lines_the_fast_path_declines_still_load(tmp_path):
    tb = TraceBuilder()
    tb.shared(0, 0, "b:0", "ld.shared", 3, LANES * 4, mask=0x0000FFFF)     # nulls in addr
    tb.inst(0, 0, "bX:1", "add", 4)                                         # escaped below
    tb.inst(0, 0, "b:2", "mul", 5, note={"future": "key"}, tags=[1, 2])     # unknown keys
    tb.inst(0, 0, "b:3", "mul", None, tags=[3, 4])                          # null line
    path = tb.write(tmp_path / "mixed.jsonl")
    text = path.read_text().replace('"cycle": 3,', '"cycle": 3.0,')      # a float
    text = text.replace('"bX:1"', '"b\\u0031:1"')                              # an escape
    path.write_text(text)
    df = analysis.load_trace(path)
    assert list(df["pc"]) == ["b:0", "b1:1", "b:2", "b:3"]
    assert list(df["cycle"]) == [1, 2, 3, 4]
    assert (df["addr"][0] == np.where(LANES < 16, LANES * 4, -1)).all()
    assert df["note"][2] == {"future": "key"} and df["tags"][3] == [3, 4]
    assert pd.isna(df["line"][3])


@pytest.mark.parametrize("content,message", [
    (b"", "is not a simt trace"),
    (b"hello world\n", "is not a simt trace"),
    (b'{"type": "inst", "pc": "a:0"}\n', "is not a simt trace"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "is not a simt trace"),
    (b'{"type": "header", "schema": 2}\n', "trace schema 2 is newer than this simt understands (1); upgrade simt"),
    (b'{"type": "header", "schema": 1}\n{"type": "inst", "op": \n', "line 2: not valid JSON"),
])
def test_bad_files_have_clear_errors(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(TraceFormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        analysis.load_trace(path)


def test_gzip_of_something_else_is_not_a_trace(tmp_path):
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(b"a,b,c\n1,2,3\n"))
    with pytest.raises(TraceFormatError, match="is not a simt trace"):
        analysis.load_trace(path)


def _assert_same_records(a: pd.DataFrame, b: pd.DataFrame):
    assert len(a) == len(b)
    for c in a.columns:
        if c == "addr":
            for x, y in zip(a[c], b[c]):
                assert (x is None and y is None) or (x == y).all()
        else:
            assert list(a[c].astype(object)) == list(b[c].astype(object)), c


# ---------------------------------------------------------------- bank conflicts

def test_transpose_tile_column_read_is_32_way(naive):
    t = analysis.bank_conflicts(naive).set_index("pc")
    load, store = t.loc["after:1"], t.loc["body:1"]
    assert (load["executions"], load["wavefronts"], load["ideal"]) == (64, 64 * 32, 64)
    assert load["conflicts"] == 64 * 31 and load["n_way"] == 32 and load["line"] == 23
    assert (store["wavefronts"], store["conflicts"], store["n_way"]) == (64, 0, 1)
    # every lane of a column read hits one bank: bank (w + j) % 32 gets 32 words each time
    assert load["bank_words"].sum() == 64 * 32 and (load["bank_words"] == 64).all()


def test_padded_tile_has_no_conflicts(padded):
    t = analysis.bank_conflicts(padded, by="line").set_index("line")
    assert t.loc[23, "conflicts"] == 0 and t.loc[23, "n_way"] == 1 and t.loc[23, "ops"] == "ld.shared"
    assert t["conflicts"].sum() == 0


@pytest.mark.parametrize("width,stride,wavefronts,conflicts", [
    (4, 1, 1, 0), (4, 3, 1, 0), (4, 33, 1, 0), (4, 2, 2, 1), (4, 4, 4, 3), (4, 8, 8, 7),
    (4, 16, 16, 15), (4, 32, 32, 31), (8, 1, 2, 0), (8, 2, 4, 2), (8, 16, 32, 30),
    (16, 1, 4, 0), (16, 2, 8, 4), (16, 8, 32, 28),
])
@pytest.mark.parametrize("recorded", [True, False])
def test_measured_h200_table(tmp_path, width, stride, wavefronts, conflicts, recorded):
    tb = TraceBuilder()
    tb.shared(0, 0, "b:0", "ld.shared", 7, LANES * stride * width, width=width, record_cost=recorded)
    t = analysis.bank_conflicts(analysis.load_trace(tb.write(tmp_path / "one.jsonl")))
    assert (t["wavefronts"][0], t["conflicts"][0]) == (wavefronts, conflicts)
    phases = 32 // (128 // width)
    if stride * width % 128 == 0 or phases == 1:
        assert t["n_way"][0] == wavefronts // phases


def test_phase_model_matches_engine_bank_model():
    """Per-phase distinct words per bank, summed over phases' maxima, is the engine's
    wavefront count; the pattern-deduplicated model is the engine's (wavefronts, ideal)."""
    rng = np.random.default_rng(7)
    for width in (1, 2, 4, 8, 16):
        n = 200
        addr = rng.integers(0, 512, size=(n, 32)) * max(4, width) // 4 * 4
        addr[::5] = addr[::5, :1]                                   # broadcasts
        addr[1::5] = np.repeat(addr[1::5, ::2], 2, axis=1)          # pair-rule patterns
        active = rng.random((n, 32)) < 0.8
        active[::7] = True
        per_phase = phase_bank_words(np.where(active, addr, -1), active, width)
        expected = np.array([shared_wavefronts(a, m, width) for a, m in zip(addr, active)])
        assert (per_phase.max(axis=2).sum(axis=1) == expected[:, 0]).all(), width
        w, i = model_wavefronts(np.where(active, addr, -1), active, np.full(n, width))
        assert (w == expected[:, 0]).all() and (i == expected[:, 1]).all()


def test_bank_histogram_and_lane_counts(naive):
    h = analysis.bank_histogram(naive, "after:1")
    assert list(h.index) == list(range(32)) and (h["words"] == 64).all()
    assert (h["accesses"] == 64).all() and (h["max_words"] == 32).all()
    counts = analysis.lane_bank_counts(naive, "body:1")    # row stores: lane i -> bank i
    assert (counts == np.diag(np.full(32, 64))).all()
    with pytest.raises(KeyError, match="no shared-memory instruction"):
        analysis.bank_histogram(naive, "body:0")


def test_lane_bank_rounds_of_the_worst_execution(naive):
    from simt.analysis.banks import lane_bank_rounds, worst_execution
    addr, active, width, index, total = worst_execution(naive, "after:1")
    assert (index, total) == (0, 64)
    rounds = lane_bank_rounds(addr, active, width)
    assert (rounds[:, 0] == LANES + 1).all() and (rounds[:, 1:] == 0).all()   # 32-way on bank 0
    rows = lane_bank_rounds(LANES * 4, np.ones(32, dtype=bool), 4)
    assert (rows == np.eye(32, dtype=int)).all()
    pairs = lane_bank_rounds(np.repeat(LANES[::2], 2) * 4, np.ones(32, dtype=bool), 8)
    assert rounds.max() == 32 and pairs.max() == 1       # 64-bit pairs: one phase, no conflict


# ---------------------------------------------------------------- coalescing and divergence

def test_coalescing_per_line(naive):
    t = analysis.coalescing(naive).set_index("line")
    assert t.loc[20, "op"] == "ld.global" and t.loc[20, "requests"] == 64
    assert t.loc[20, "sectors_per_request"] == 4 and t.loc[20, "efficiency_pct"] == 100.0
    assert t.loc[24, "sectors"] == 64 * 4


@pytest.mark.parametrize("addr,width,sectors,efficiency", [
    (LANES * 4, 4, 4, 100.0), (LANES * 8, 4, 8, 50.0), (LANES * 32, 4, 32, 12.5),
    (LANES * 4 + 4, 4, 5, 80.0), (np.zeros(32, dtype=int), 4, 1, 400.0),
    (LANES * 8, 8, 8, 100.0), (LANES * 16, 16, 16, 100.0),
])
def test_coalescing_matches_measured_sectors(tmp_path, addr, width, sectors, efficiency):
    tb = TraceBuilder()
    tb.glob(0, 0, "b:0", "ld.global", 3, GLOBAL_BASE + addr, width=width)
    rec = dict(tb.records[0])
    del rec["sectors"]                       # also recomputed when the writer left it out
    tb.records.append(rec)
    t = analysis.coalescing(tb.write(tmp_path / "g.jsonl"), by="pc")
    assert t["sectors"][0] == 2 * sectors and t["requests"][0] == 2
    assert t["efficiency_pct"][0] == pytest.approx(efficiency)


def test_divergence_per_branch(tmp_path):
    tb = TraceBuilder()
    for w in range(4):
        tb.branch(0, w, "entry:5", 10, taken=0x55555555)                  # odd/even split
        tb.branch(0, w, "loop:2", 12, taken=FULL, mask=0x0000FFFF)       # uniform, half warp
        tb.branch(0, w, "loop:2", 12, taken=0, mask=0x0000FFFF)
        tb.inst(0, w, "join:0", "br", 14)
    t = analysis.divergence(tb.write(tmp_path / "d.jsonl")).set_index("pc")
    split, loop = t.loc["entry:5"], t.loc["loop:2"]
    assert (split["executions"], split["uniform"], split["divergent"]) == (4, 0, 4)
    assert (split["divergent_targets"], split["branch_efficiency_pct"]) == (8, 0.0)
    assert split["mean_active"] == 32 and split["taken_pct"] == 50.0
    assert (loop["uniform_targets"], loop["divergent_targets"], loop["mean_active"]) == (8, 0, 16)
    lanes = analysis.active_lanes(tb.write(tmp_path / "d.jsonl")).set_index("pc")
    assert lanes.loc["loop:2", "simd_efficiency_pct"] == 50.0
    assert lanes.loc["entry:5", "thread_inst"] == 4 * 32


# ---------------------------------------------------------------- whole-trace views

def test_path_dataframe_and_chunks_give_the_same_tables(naive):
    df = analysis.load_trace(naive)
    chunks = lambda: analysis.iter_trace_chunks(naive, chunksize=37)  # noqa: E731
    for fn in (analysis.bank_conflicts, analysis.coalescing, analysis.divergence,
               analysis.active_lanes, analysis.per_line):
        a, b, c = fn(df), fn(naive), fn(chunks())
        pd.testing.assert_frame_equal(a, b, check_dtype=False)
        pd.testing.assert_frame_equal(a, c, check_dtype=False)


def test_a_dataframe_built_from_plain_records_works(naive):
    records = [json.loads(line) for line in naive.read_text().splitlines()[1:-1]]
    plain = pd.DataFrame(records)                    # strings, lists with None, NaN for absent
    df = analysis.load_trace(naive)
    for fn in (analysis.bank_conflicts, analysis.coalescing, analysis.divergence, analysis.per_line):
        pd.testing.assert_frame_equal(fn(plain), fn(df), check_dtype=False)


def test_trace_metrics_and_per_line(naive):
    m = analysis.trace_metrics(naive)
    n = 2 * 8
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == n * 4 * 32
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == n * 4 * 31
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == n * 4
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == n * 4 * 4
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == n * 4
    assert m["smsp__inst_executed.sum"] == n * 22
    assert m["smsp__sass_branch_targets_threads_uniform.sum"] == n * 4
    lines = analysis.per_line(naive).set_index("line")
    assert lines.loc[23, "bank_conflicts"] == n * 4 * 31
    assert lines.loc[19, "branch_targets_uniform"] == n * 4
    assert lines["inst_executed"].sum() == m["smsp__inst_executed.sum"]


def test_filtered_trace_reports_memory_counters_only(tmp_path):
    tb = transpose_trace(pad=0, blocks=1)
    tb.header["filters"]["memory_only"] = True
    m = analysis.trace_metrics(tb.write(tmp_path / "m.jsonl"))
    assert "smsp__inst_executed.sum" not in m
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 8 * 4 * 31


# ---------------------------------------------------------------- perfetto, plots, CLI

def test_perfetto_export(tmp_path, naive):
    out = tmp_path / "t.json"
    doc = analysis.to_perfetto(naive, out)
    assert json.loads(out.read_text()) == doc
    events = doc["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    assert {e["pid"] for e in slices} == {0, 1} and {e["tid"] for e in slices} == set(range(8))
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert names[(1, 3)] == "warp 3"
    stalls = [e for e in slices if e["name"] == "stall"]
    assert stalls and all(e["dur"] > 0 for e in stalls)
    assert {e["dur"] for e in stalls if e["args"]["after"] == "ld.shared"} == {29}
    per_track: dict = {}
    for e in slices:                       # slices on one track never overlap
        per_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in per_track.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    assert "cycle" in doc["otherData"]["time_unit"]


def test_plots_write_pngs(tmp_path, naive):
    pytest.importorskip("matplotlib")
    df = analysis.load_trace(naive)
    fig = analysis.plot_bank_heatmap(df, "body:1", execution="all")     # drawn, not saved
    assert (np.ma.filled(fig.axes[0].images[0].get_array(), 0) == 64 * np.eye(32)).all()
    for name, draw in [("heat", lambda p: analysis.plot_bank_heatmap(df, "after:1", p)),
                       ("lines", lambda p: analysis.plot_line_conflicts(df, p)),
                       ("timeline", lambda p: analysis.plot_warp_timeline(df, p, blocks=[0]))]:
        path = tmp_path / f"{name}.png"
        draw(path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plots_without_matplotlib_say_how_to_get_it(monkeypatch, naive):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"simt\[plot\]"):
        analysis.plot_line_conflicts(naive)


def test_cli_report(naive, tmp_path, capsys):
    from simt.cli import main
    assert main(["report", "banks", str(naive)]) == 0
    out = capsys.readouterr().out
    assert "transpose_pad0" in out and "after:1" in out
    assert main(["report", "coalescing", str(naive), "--by", "pc"]) == 0
    assert main(["report", "divergence", str(naive)]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a trace\n")
    assert main(["report", "banks", str(bad)]) == 2
    assert "is not a simt trace" in capsys.readouterr().err


# ---------------------------------------------------------------- against the engine

def _traced_case(name: str, path: Path):
    """Run a suite case (small) on cpu:trace, check its outputs; return the LaunchResult."""
    import simt
    from simt import suite
    from simt.suite.case import compare, input_values, to_launch_args
    case = suite.get(name)
    inputs, dim, block_dim = case.make_inputs(np.random.default_rng(0), case.sizes["small"])
    expected = case.reference(input_values(inputs))
    args = to_launch_args(inputs, simt, "cpu:trace")
    result = simt.launch(case.kernel, dim=dim, inputs=args, device="cpu:trace",
                         block_dim=block_dim, trace=str(path))
    names = [a.name for a in inputs]
    compare(case, {k: args[names.index(k)].numpy() for k in case.outputs_to_check}, expected)
    return result


@pytest.mark.parametrize("case", ["transpose_tile", "transpose_tile_padded", "histogram_shared",
                                  "nested_branches"])
def test_analysis_agrees_exactly_with_engine_counters(tmp_path, case):
    path = tmp_path / f"{case}.jsonl.gz"
    result = _traced_case(case, path)
    got = analysis.trace_metrics(path)
    common = sorted(set(got) & set(result.metrics))
    assert len(common) == len(got) == 20
    assert {k: got[k] for k in common} == {k: result.metrics[k] for k in common}
    ours = analysis.per_line(path).set_index("line")
    engine = result.lines.groupby("line").sum(numeric_only=True)
    columns = [c for c in ours.columns if c in engine.columns]
    assert len(columns) == 9
    busy = engine.index[(engine[columns] != 0).any(axis=1)]
    assert set(ours.index.astype(int)) == set(busy)
    for line in busy:
        assert ours.loc[line, columns].astype(int).tolist() == engine.loc[line, columns].tolist(), line


def test_engine_trace_shows_transpose_conflicts(tmp_path):
    _traced_case("transpose_tile", tmp_path / "n.jsonl")
    _traced_case("transpose_tile_padded", tmp_path / "p.jsonl")
    naive = analysis.bank_conflicts(tmp_path / "n.jsonl")
    padded = analysis.bank_conflicts(tmp_path / "p.jsonl")
    reads = naive[naive["op"] == "ld.shared"]
    assert (reads["n_way"] == 32).all() and (reads["conflicts"] == 31 * reads["executions"]).all()
    assert padded["conflicts"].sum() == 0 and (padded["n_way"] == 1).all()
