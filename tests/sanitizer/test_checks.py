"""The sanitizers' interface: options, results, reports, initcheck across launches, poisoning,
the suite's kernels (no false positives), the CLI and simt.testing."""
import numpy as np
import pytest

import simt as wp
from simt import suite
from simt.suite.case import compare as compare_case, input_values, to_launch_args
from sanitizer_corpus import by_name

COLUMNS = {"check", "kind", "line", "other_line", "array", "count"}


@pytest.fixture(autouse=True)
def _fresh_options():
    yield
    wp.set_module_options({"check": None, "raise_on_hazard": False})


def launch_case(name, device="cpu:precise", **kwargs):
    case = by_name(name)
    dim, inputs, block = case.make(device)
    return wp.launch(case.kernel, dim=dim, inputs=inputs, block_dim=block, device=device, **kwargs)


def test_clean_and_unchecked_launches_have_an_empty_hazard_table():
    for result in (launch_case("reduce_with_barrier", check="all"), launch_case("reduce_missing_barrier")):
        assert COLUMNS <= set(result.hazards.columns) and result.hazards.empty


def test_a_race_report_names_lines_array_index_threads_and_count():
    h = launch_case("transpose_missing_barrier", check="race").hazards
    assert list(h.check) == ["race"] and h.iloc[0].kind in ("RAW", "WAR")
    row = h.iloc[0]
    assert row.array == "tile" and row.space == "shared" and row["count"] > 1
    lines = by_name("transpose_missing_barrier").expected_lines("race")
    assert {row.line, row.other_line} == set(lines)
    text = row.report
    assert "racecheck:" in text and "'tile' (float32, shape (16, 17))" in text
    assert text.count("^") == 2 and "tile[ty, tx] = a[" in text and "= tile[tx, ty]" in text
    assert text.count("threadIdx (x=") == 2 and f"[{row['count']} hazards]" in text
    assert row["index"].startswith("[")       # a 2-D index, as the kernel wrote it


def test_races_between_blocks_name_both_blocks():
    row = launch_case("global_blocks_race", check="race").hazards.iloc[0]
    assert row.kind == "WAW" and row.space == "global" and row.block != row.other_block
    assert "different blocks" in row.report


def test_warp_synchronous_races_point_at_syncwarp():
    h = launch_case("warp_reduce_without_syncwarp", check="race").hazards
    assert (h.block == h.other_block).all()
    assert all("syncwarp()" in r for r in h.report)


def test_only_the_requested_checks_run():
    assert launch_case("shared_half_initialised", check=["race", "sync"]).hazards.empty
    assert list(launch_case("shared_half_initialised", check="race,init").hazards.check) == ["init"]
    with pytest.raises(wp.BarrierDivergenceError):      # synccheck off: the engine's error stands
        launch_case("divergent_barrier", check="race")
    with pytest.raises(wp.LaunchError, match="unknown check 'races'"):
        launch_case("reduce_with_barrier", check="races")


def test_module_option_and_raise_on_hazard():
    wp.set_module_options({"check": "all"})
    assert list(launch_case("shared_counter_plain").hazards.check) == ["race"]
    wp.set_module_options({"raise_on_hazard": True})
    with pytest.raises(wp.HazardError) as e:
        launch_case("shared_counter_plain")
    assert "racecheck:" in str(e.value) and list(e.value.hazards.check) == ["race"]
    launch_case("shared_counter_atomic")                 # clean: nothing raised
    with pytest.raises(wp.SimtError, match="unknown check"):
        wp.set_module_options({"check": "everything"})


def test_checked_launches_on_cpu_and_cpu_trace(tmp_path):
    assert list(launch_case("barrier_in_wrong_place", device="cpu", check="race").hazards.check) == ["race"]
    case = by_name("barrier_in_wrong_place")
    dim, inputs, block = case.make("cpu:trace")
    r = wp.launch(case.kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:trace",
                  trace=str(tmp_path / "t.jsonl"), check="race")
    assert list(r.hazards.check) == ["race"] and (tmp_path / "t.jsonl").stat().st_size > 0


def test_checked_results_match_unchecked_ones_when_nothing_is_uninitialised():
    plain, checked = wp.zeros(2), wp.zeros(2)
    x = wp.array(np.arange(256, dtype=np.float32))
    k = by_name("reduce_with_barrier").kernel
    wp.launch(k, dim=256, inputs=[x, plain], block_dim=128)
    wp.launch(k, dim=256, inputs=[x, checked], block_dim=128, check="all")
    np.testing.assert_array_equal(plain.numpy(), checked.numpy())
    assert plain.numpy()[0] == np.arange(128).sum()


def test_uninitialised_shared_memory_is_poisoned_and_reported_once_per_line():
    case = by_name("shared_half_initialised")
    dim, (x, out), block = case.make("cpu:precise")
    h = wp.launch(case.kernel, dim=dim, inputs=[x, out], block_dim=block, check="init").hazards
    assert len(h) == 1 and h.iloc[0]["count"] == 128          # 64 unwritten slots, 2 blocks
    got = out.numpy().reshape(2, 128)
    assert np.isnan(got[:, 64:]).all() and not np.isnan(got[:, :64]).any()
    assert got[:, 64:].view(np.uint32)[0, 0] == 0x7FC0DEAD


@wp.kernel
def write_half(e: wp.array(dtype=int)):
    i = wp.tid()
    if i < 8:
        e[i] = i


@wp.kernel
def read_all(e: wp.array(dtype=int), out: wp.array(dtype=int)):
    out[wp.tid()] = e[wp.tid()]


def test_initcheck_remembers_what_earlier_launches_and_the_host_wrote():
    e, out = wp.empty(16, dtype=int), wp.zeros(16, dtype=int)
    wp.launch(write_half, dim=16, inputs=[e], check="init")
    h = wp.launch(read_all, dim=16, inputs=[e, out], check="init").hazards
    assert len(h) == 1 and h.iloc[0]["count"] == 8 and h.iloc[0]["index"] == "8"
    assert (out.numpy()[8:] == np.int32(np.uint32(0xDEADBEEF).view(np.int32))).all()
    assert (out.numpy()[:8] == np.arange(8)).all()
    again = wp.launch(read_all, dim=16, inputs=[e, out], check="init").hazards
    assert len(again) == 1 and again.iloc[0]["count"] == 8     # reading does not initialise
    fresh = wp.empty(16, dtype=int)
    fresh.numpy()[:] = 1                               # host access counts as writing
    assert wp.launch(read_all, dim=16, inputs=[fresh, out], check="init").hazards.empty


def test_initcheck_counts_unchecked_launches_as_writing_everything():
    e, out = wp.empty(16, dtype=int), wp.zeros(16, dtype=int)
    wp.launch(write_half, dim=16, inputs=[e])
    assert wp.launch(read_all, dim=16, inputs=[e, out], check="init").hazards.empty


@pytest.mark.parametrize("case", suite.CASES, ids=[c.name for c in suite.CASES])
def test_the_suite_is_race_free_and_still_correct_under_every_check(case):
    inputs, dim, block = case.make_inputs(np.random.default_rng(0), case.sizes["small"])
    expected = case.reference(input_values(inputs))
    args = to_launch_args(inputs, wp, "cpu:precise")
    result = wp.launch(case.kernel, dim=dim, inputs=args, block_dim=block, check="all")
    assert result.hazards.empty, "\n\n".join(result.hazards.report)
    names = [a.name for a in inputs]
    compare_case(case, {n: args[names.index(n)].numpy() for n in case.outputs_to_check}, expected)


def test_simt_testing_compare_prints_and_fails_on_hazards():
    from simt.testing import compare
    case = by_name("barrier_in_wrong_place")
    x = np.arange(256, dtype=np.float32)
    report = compare(case.kernel, 256, [x, np.zeros(256, np.float32)], engines=["cpu:precise"],
                     block_dim=128, check="race", raise_on_mismatch=False)
    assert not report.ok and "racecheck:" in report.summary()
    with pytest.raises(AssertionError, match="sanitizers found hazards"):
        compare(case.kernel, 256, [x, np.zeros(256, np.float32)], engines=["cpu:precise"],
                block_dim=128, check="race")


def test_simt_run_check_prints_reports_and_fails(tmp_path, capsys):
    from simt.cli import main
    script = tmp_path / "prog.py"
    script.write_text(
        "import numpy as np, simt as wp\n"
        "@wp.kernel\n"
        "def k(out: wp.array(dtype=float)):\n"
        "    s = wp.shared.array(shape=(64,), dtype=float)\n"
        "    s[wp.thread_idx()] = 1.0\n"
        "    out[wp.tid()] = s[63 - wp.thread_idx()]\n"
        "wp.launch(k, dim=64, inputs=[wp.zeros(64)], block_dim=64)\n"
        "import sys; print('argv', sys.argv[1:])\n")
    assert main(["run", "--check", "race", str(script)]) == 1      # simt's options before FILE
    out, err = capsys.readouterr()
    assert "racecheck: read-after-write hazard in kernel 'k'" in err and "1 hazard report" in err
    assert "argv []" in out
    assert main(["run", "--check", "init", str(script)]) == 0
    # after FILE, arguments are the script's own: no check runs
    assert main(["run", str(script), "--check", "race"]) == 0
    out, err = capsys.readouterr()
    assert "argv ['--check', 'race']" in out and "racecheck" not in err


def test_simt_diff_check_fails_on_hazards_even_when_nothing_else_was_compared(tmp_path, capsys):
    from simt.cli import main
    script = tmp_path / "racy.py"
    script.write_text(
        "import numpy as np, simt as wp\n"
        "@wp.kernel\n"
        "def k(out: wp.array(dtype=float)):\n"
        "    s = wp.shared.array(shape=(64,), dtype=float)\n"
        "    s[0] = 1.0\n"                         # every thread: a race, but one value
        "    out[wp.tid()] = s[0]\n"
        "def simt_inputs():\n"
        "    return 64, [np.zeros(64, np.float32)], 64\n")
    target = f"{script}::k"
    # one engine ran (no GPU 7): without --check nothing was compared (3); with it, the
    # hazards fail the diff (1)
    assert main(["diff", target, "--engines", "cpu:precise,cuda:7"]) == 3
    capsys.readouterr()
    assert main(["diff", target, "--engines", "cpu:precise,cuda:7", "--check", "race"]) == 1
    assert "racecheck: read-after-write" in capsys.readouterr().out
    # against a stored golden, the engines agree but the sanitizers still fail the diff
    golden = tmp_path / "k.npz"
    assert main(["diff", target, "--engines", "cpu:precise,cpu", "--record", str(golden)]) == 0
    capsys.readouterr()
    assert main(["diff", target, "--engines", "cpu", "--golden", str(golden)]) == 0
    assert main(["diff", target, "--engines", "cpu:precise", "--golden", str(golden),
                 "--check", "race"]) == 1
    out = capsys.readouterr().out
    assert "cpu:precise matches" in out and "found hazards" in out


def test_ptx_with_line_info_names_the_kernel_source_lines(tmp_path):
    import shutil
    import subprocess
    case = by_name("barrier_in_wrong_place")
    text = wp.ptx(case.kernel, lineinfo=True)
    marks = case.marker_lines()
    assert f'.file 1 "{case.kernel.py_func.__code__.co_filename}"' in text
    assert f".loc 1 {marks['w']} " in text and f".loc 1 {marks['r']} " in text
    assert ".loc" not in wp.ptx(case.kernel)                # off by default: golden PTX unchanged
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas is not on PATH")
    (tmp_path / "k.ptx").write_text(text)
    proc = subprocess.run(["ptxas", "-arch=sm_90", "-lineinfo", str(tmp_path / "k.ptx"), "-o",
                           str(tmp_path / "k.cubin")], text=True, capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert b"sanitizer_corpus.py" in (tmp_path / "k.cubin").read_bytes()     # the line table


@wp.kernel
def _halves(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i // 2] = x[i]


@wp.kernel
def _halves_constant(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i // 2] = 1.0


@wp.kernel
def _halves_atomic(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(y, i // 2, x[i])


def test_lanes_storing_different_values_to_one_element_in_one_instruction():
    """simt's own hazard (compute-sanitizer has none): lanes 2k and 2k+1 of a warp store x[2k]
    and x[2k+1] to y[k] in one instruction; which lands is unspecified. Equal values and
    atomics are not one."""
    def hazards(kernel, x):
        return wp.launch(kernel, dim=64, inputs=[wp.array(x), wp.zeros(32)], block_dim=64,
                         device="cpu:precise", check="race").hazards
    h = hazards(_halves, np.arange(64, dtype=np.float32))
    assert list(h.kind) == ["WAW_LANES"] and h.iloc[0].line == h.iloc[0].other_line
    assert h.iloc[0]["count"] == 32            # one per pair of lanes, 32 pairs
    assert "same-instruction write conflict" in h.iloc[0].report
    assert "compute-sanitizer does not" in h.iloc[0].report
    assert hazards(_halves, np.ones(64, dtype=np.float32)).empty      # equal values
    assert hazards(_halves_constant, np.arange(64, dtype=np.float32)).empty
    assert hazards(_halves_atomic, np.arange(64, dtype=np.float32)).empty
