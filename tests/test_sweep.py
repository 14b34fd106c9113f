"""simt.sweep, simt.tune and `simt sweep`: every row is what a launch of that point on
cpu:precise reports, a bad point is a row, a cache resumes an interrupted sweep, and the
process pool and a Dask cluster (real worker processes) give the rows this process gives."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simt as wp
from simt.cli import main
from simt.sweep import DEFAULT_METRICS, SweepError
from simt.sweep import task as sweep_task

ARCH_DIR = Path(wp.__file__).parent / "arch"


@wp.kernel
def strided_copy(a: wp.array(dtype=float), b: wp.array(dtype=float), stride: int):
    i = wp.tid()
    b[i] = a[(i * stride) % 4096]


def copy_setup(block_dim, stride):
    return dict(kernel=strided_copy, dim=2048, block_dim=block_dim,
                inputs=[wp.array(np.arange(4096, dtype=np.float32)), wp.zeros(2048), stride])


SPACE = {"block_dim": [64, 256], "stride": [1, 8]}


def direct(block_dim, stride, arch):
    return wp.launch(**copy_setup(block_dim, stride), device="cpu:precise", arch=arch)


def clock_mhz(arch: str) -> float:
    return json.loads((ARCH_DIR / f"{arch}.json").read_text())["timing"]["clock_mhz"]


def test_each_row_is_that_points_launch_on_each_architecture():
    frame = wp.sweep(copy_setup, SPACE, arch=["sm_90", "sm_80"], workers=0, progress=False)
    assert list(frame.columns) == ["block_dim", "stride", "arch", "cycles", "time_us", "limiter",
                                   *DEFAULT_METRICS, "error", "wall_s"]
    assert [tuple(r) for r in frame[["block_dim", "stride", "arch"]].itertuples(index=False)] == [
        (b, s, a) for b in (64, 256) for s in (1, 8) for a in ("sm_90", "sm_80")]
    for _, row in frame.iterrows():
        r = direct(row.block_dim, row.stride, row.arch)
        assert row.error == ""
        assert row.cycles == r.cycles
        assert row.time_us == pytest.approx(r.cycles / clock_mhz(row.arch))
        assert row.limiter == r.bottleneck["limiter"]
        assert dict(row[list(DEFAULT_METRICS)]) == pytest.approx({m: r.metrics[m] for m in DEFAULT_METRICS})
    # the stride shows where it should: 8x the sectors loaded, the same stored
    loads = frame.set_index(["block_dim", "stride", "arch"])["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    assert loads[(64, 8, "sm_90")] == 8 * loads[(64, 1, "sm_90")]


def test_a_point_that_cannot_launch_is_a_row_with_the_simt_error():
    def setup(block_dim, mode):
        if mode == "bug":
            raise TypeError("setup was called wrongly")
        return copy_setup(block_dim, 1)

    frame = wp.sweep(setup, {"block_dim": [2048, 128], "mode": ["ok", "bug"]}, workers=0, progress=False)
    with pytest.raises(wp.LaunchError) as launch_error:
        direct(2048, 1, "sm_90")
    by_point = frame.set_index(["block_dim", "mode"])["error"]
    assert by_point[(2048, "ok")] == str(launch_error.value)
    assert by_point[(2048, "bug")] == by_point[(128, "bug")] == "TypeError: setup was called wrongly"
    assert by_point[(128, "ok")] == ""
    failed = frame[frame.error != ""]
    assert failed.cycles.isna().all() and failed.time_us.isna().all() and (failed.limiter == "").all()


def test_setup_may_not_choose_the_device_or_the_architecture():
    frame = wp.sweep(lambda n: {**copy_setup(64, 1), "arch": "sm_80"}, {"n": [1]}, workers=0, progress=False)
    assert "returned 'arch', which the sweep sets" in frame.error[0]
    frame = wp.sweep(lambda n: [n], {"n": [1]}, workers=0, progress=False)
    assert "must return a dict of simt.launch's keyword arguments" in frame.error[0]


def test_an_unknown_metric_is_named_in_the_row_with_a_suggestion():
    frame = wp.sweep(copy_setup, {"block_dim": [64], "stride": [1]}, workers=0, progress=False,
                     metrics=["smsp__inst_executed.sum", "smsp__inst_executd.sum"])
    assert frame["smsp__inst_executed.sum"][0] == direct(64, 1, "sm_90").metrics["smsp__inst_executed.sum"]
    assert np.isnan(frame["smsp__inst_executd.sum"][0])
    assert "no metric 'smsp__inst_executd.sum' (did you mean 'smsp__inst_executed.sum'?)" in frame.error[0]


@pytest.mark.parametrize("space, arch, message", [
    ({}, "sm_90", "maps parameter names to lists"),
    ({"block_dim": []}, "sm_90", "is empty"),
    ({"block_dim": 64}, "sm_90", "must be a list of values"),
    ({"arch": ["a"]}, "sm_90", "is a column of the sweep's table"),
    ({"block_dim": [64]}, "sm_99", "unknown arch 'sm_99'"),
    ({"block_dim": [64]}, [], "names no architecture"),
])
def test_a_malformed_sweep_is_a_clear_error_before_any_work(space, arch, message):
    with pytest.raises(SweepError, match=message):
        wp.sweep(lambda **p: 1 / 0, space, arch=arch, workers=0, progress=False)


def test_the_cache_resumes_an_interrupted_sweep_and_notices_an_edited_kernel(tmp_path, monkeypatch):
    launched = []
    real_launch = sweep_task.launch_point

    def counting(kwargs, arch):
        launched.append(kwargs["block_dim"])
        if len(launched) == 3 and interrupt:
            raise KeyboardInterrupt          # the user stops the sweep at its third point
        return real_launch(kwargs, arch)

    monkeypatch.setattr(sweep_task, "launch_point", counting)
    space = {"block_dim": [32, 64, 128, 256], "stride": [2]}
    interrupt = True
    with pytest.raises(KeyboardInterrupt):
        wp.sweep(copy_setup, space, workers=0, progress=False, cache=tmp_path)
    interrupt, launched[:] = False, []
    frame = wp.sweep(copy_setup, space, workers=0, progress=False, cache=tmp_path)
    assert launched == [128, 256]                      # the first two were kept
    assert list(frame.cycles) == [direct(b, 2, "sm_90").cycles for b in (32, 64, 128, 256)]
    launched[:] = []
    again = wp.sweep(copy_setup, space, workers=0, progress=False, cache=tmp_path)
    assert launched == []
    pd.testing.assert_frame_equal(again, frame)
    wp.sweep(copy_setup, space, arch="sm_80", workers=0, progress=False, cache=tmp_path)
    assert launched == [32, 64, 128, 256]              # another architecture is another entry

    @wp.kernel
    def strided_copy(a: wp.array(dtype=float), b: wp.array(dtype=float), stride: int):   # edited
        i = wp.tid()
        b[i] = a[(i * stride + 1) % 4096]

    launched[:] = []
    monkeypatch.setitem(globals(), "strided_copy", strided_copy)
    wp.sweep(copy_setup, space, workers=0, progress=False, cache=tmp_path)
    assert launched == [32, 64, 128, 256]              # same setup and points, another kernel


def test_tune_returns_the_fastest_point_and_the_ranking():
    best = wp.tune(copy_setup, {"block_dim": [32, 256, 4096], "stride": [1, 16]}, workers=0, progress=False)
    frame = best.frame
    ok = frame[frame.error == ""]
    assert list(ok.time_us) == sorted(ok.time_us) and len(ok) == 4
    assert list(frame.error[4:] != "") == [True, True]            # the 4096-thread blocks, last
    assert best == {"block_dim": frame.block_dim[0], "stride": frame.stride[0]}
    assert type(best["block_dim"]) is int                          # the values as given
    assert frame.time_us[0] == min(direct(b, s, "sm_90").cycles for b in (32, 256) for s in (1, 16)) \
        / clock_mhz("sm_90")
    with pytest.raises(SweepError, match="one architecture"):
        wp.tune(copy_setup, SPACE, arch=["sm_80", "sm_90"])


def make_setup(offset: int):
    """A setup made by a factory, its kernel a closure: it reaches workers by value."""
    @wp.kernel
    def shifted(a: wp.array(dtype=float), b: wp.array(dtype=float)):
        i = wp.tid()
        b[i] = a[(i + offset) % 4096]

    def setup(block_dim, crash=False):
        if crash:
            os._exit(3)                  # a worker that dies: segfault, out of memory, ...
        return dict(kernel=shifted, dim=2048, block_dim=block_dim,
                    inputs=[wp.array(np.arange(4096, dtype=np.float32)), wp.zeros(2048)])
    return setup


def test_the_process_pool_runs_closures_and_survives_a_dying_worker():
    setup = make_setup(5)
    space = {"block_dim": [64, 128], "crash": [False, True]}
    frame = wp.sweep(setup, space, workers=1, progress=False)
    here = wp.sweep(setup, {"block_dim": [64, 128], "crash": [False]}, workers=0, progress=False)
    ok = frame[~frame.crash].reset_index(drop=True)
    assert list(ok.error) == ["", ""]
    pd.testing.assert_frame_equal(ok.drop(columns=["crash", "wall_s"]), here.drop(columns=["crash", "wall_s"]))
    assert list(frame[frame.crash].error) == ["the worker process died while running this point"] * 2


def test_a_dask_cluster_of_worker_processes_gives_the_same_rows():
    distributed = pytest.importorskip("distributed")
    setup = make_setup(3)
    here = wp.sweep(setup, {"block_dim": [64, 256]}, workers=0, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        frame = wp.sweep(setup, {"block_dim": [64, 256]}, client=client, progress=False)
        pids = set(client.run(os.getpid).values())
    assert os.getpid() not in pids and len(pids) == 2
    pd.testing.assert_frame_equal(frame.drop(columns="wall_s"), here.drop(columns="wall_s"))


def test_the_command_line_writes_the_table_and_the_plot(tmp_path, capsys):
    script = tmp_path / "space.py"
    script.write_text(
        "import numpy as np\nimport simt as wp\n\n"
        "@wp.kernel\n"
        "def strided_copy(a: wp.array(dtype=float), b: wp.array(dtype=float), stride: int):\n"
        "    i = wp.tid()\n"
        "    b[i] = a[(i * stride) % 4096]\n\n"
        "def setup(block_dim, stride):\n"
        "    return dict(kernel=strided_copy, dim=2048, block_dim=block_dim,\n"
        "                inputs=[wp.array(np.arange(4096, dtype=np.float32)), wp.zeros(2048), stride])\n")
    out, plot = tmp_path / "s.csv", tmp_path / "s.png"
    assert main(["sweep", f"{script}::setup", "--param", "block_dim=64,2048", "--param", "stride=1,8",
                 "--arch", "sm_80,sm_90", "--out", str(out), "--plot", str(plot), "--workers", "0",
                 "--no-progress"]) == 0
    table = pd.read_csv(out)
    table["error"] = table["error"].fillna("")
    assert len(table) == 8 and set(table.arch) == {"sm_80", "sm_90"}
    for row in table[table.error == ""].itertuples():
        assert row.cycles == direct(row.block_dim, row.stride, row.arch).cycles
    assert (table[table.block_dim == 2048].error.str.contains("over the limit")).all()
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[:4] == ["block_dim", "stride", "arch", "time_us"]
    fastest = table[table.error == ""].sort_values("time_us").iloc[0]
    assert printed[1].split()[:3] == [str(fastest.block_dim), str(fastest.stride), fastest.arch]
    assert main(["sweep", f"{script}::setup", "--workers", "0"]) == 2             # no --param
    assert main(["sweep", f"{script}::nope", "--param", "stride=1"]) == 2
    assert main(["sweep", f"{script}::setup", "--param", "stride=1", "--out", "x.txt"]) == 2
    err = capsys.readouterr().err
    assert "--param name=v1,v2" in err and "no function 'nope' (functions: setup)" in err \
        and "--out takes a .csv or .parquet" in err
