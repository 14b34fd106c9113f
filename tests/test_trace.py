"""cpu:trace: the precise engine's JSON Lines trace agrees with its counters."""
import gzip
import json

import numpy as np
import pytest

import simt as wp
from simt import suite
from simt.suite.case import input_values, to_launch_args


def traced(name, path, **options):
    case = suite.get(name)
    inputs, dim, block = case.make_inputs(np.random.default_rng(0), case.sizes["small"])
    args = to_launch_args(inputs, wp, "cpu:trace")
    result = wp.launch(case.kernel, dim, args, device="cpu:trace", block_dim=block,
                       trace=str(path), trace_options=options or None)
    return result, case, inputs, args


def read(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f]


def test_trace_matches_engine_counters(tmp_path):
    path = tmp_path / "t.jsonl"
    result, case, inputs, args = traced("transpose_tile", path)
    recs = read(path)
    header, body, end = recs[0], recs[1:-1], recs[-1]
    assert header["type"] == "header" and header["schema"] == 1 and header["kernel"] == "transpose_tile"
    assert header["block"] == [32, 8, 1] and end["type"] == "end" and not end["truncated"]
    m = result.metrics
    assert len(body) == m["smsp__inst_executed.sum"] == end["records"]
    assert sum(r["active"] for r in body) == m["smsp__thread_inst_executed.sum"]
    sh_ld = [r for r in body if r["op"] == "ld.shared"]
    assert sum(r["wavefronts"] for r in sh_ld) == m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
    assert sum(r["wavefronts"] - r["ideal"] for r in sh_ld) == \
        m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
    g_ld = [r for r in body if r["op"] == "ld.global"]
    assert sum(r["sectors"] for r in g_ld) == m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    assert all(len(r["addr"]) == 32 for r in sh_ld + g_ld)
    # the values the kernel computed are unaffected by tracing
    out = dict(zip([a.name for a in inputs], args))
    suite.compare(case, {k: out[k].numpy() for k in case.outputs_to_check},
                  case.reference(input_values(inputs)))


def test_branch_records_carry_taken_masks(tmp_path):
    path = tmp_path / "b.jsonl"
    result, *_ = traced("nested_branches", path)
    cbr = [r for r in read(path)[1:-1] if r["op"] == "cbr"]
    divergent = sum(2 for r in cbr if 0 < bin(r["taken"]).count("1") < r["active"])
    assert divergent == result.metrics["smsp__sass_branch_targets_threads_divergent.sum"]


def test_filters_and_gzip(tmp_path):
    path = tmp_path / "f.jsonl.gz"
    traced("matmul_tiled", path, memory_only=True, blocks=[1], warps=[0, 2])
    body = read(path)[1:-1]
    assert body and all(r["block"] == 1 and r["warp"] in (0, 2) and "addr" in r for r in body)
    path2 = tmp_path / "cap.jsonl"
    traced("matmul_tiled", path2, max_records=10)
    recs = read(path2)
    assert len(recs) == 12 and recs[-1]["truncated"]


def test_trace_needs_its_device_and_a_path(tmp_path):
    k = suite.get("saxpy").kernel
    x = wp.zeros(32)
    with pytest.raises(wp.LaunchError, match="needs a file"):
        wp.launch(k, 32, [1.0, x, x], device="cpu:trace")
    with pytest.raises(wp.LaunchError, match="cpu:trace"):
        wp.launch(k, 32, [1.0, x, x], device="cpu:precise", trace=str(tmp_path / "x.jsonl"))
