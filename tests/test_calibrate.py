"""``simt calibrate``: the package's fit is the one that made sm_90.json, the microbenchmarks it
ships compile, and without a GPU (or without Nsight Compute) it fails with one clear line."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pandas as pd

from simt.calibrate import device as devq
from simt.calibrate import fit_dram, fit_stores, ncu_csv
from simt.calibrate import fit as fitting
from simt.calibrate import runner
from simt.cli import main

ROOT = Path(__file__).resolve().parent.parent
H200 = ROOT / "benchmarks" / "timing" / "data" / "h200"
SM90 = ROOT / "simt" / "arch" / "sm_90.json"


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict:
    """The architecture file ``simt calibrate --from-csv`` writes from the committed H200 CSVs."""
    out = tmp_path_factory.mktemp("calibrate") / "h200.json"
    assert main(["calibrate", "--from-csv", str(H200), "--out", str(out)]) == 0
    return json.loads(out.read_text())


# the two constants benchmarks/timing/fit_arch.py fits with simt calibrate's red_scatter_l2 on
# the H200 (data/h200/calibrated/measured), which data/h200's micro.csv predates, and the three
# store_runs.cu gave on an H100 (data/h100/store_runs; data/h200 has store_merge.cu's alone)
STORES = ("store_merge_lines", "store_merge_lines_near", "store_merge_share")
# and op_overlap.py's holds, also from an H100 (data/h100/op_overlap)
LATER = ("atomic_cold_sector_cycles", "atomic_hot_window_cycles") + STORES + ("op_hold",)


# the holds a later H100 run of op_overlap added (data/h100/op_overlap/with_atan)
ATAN_HOLDS = ("ATAN.f64", "ATAN2.f64", "TAN.f64")


# the ops probes6 measured on an H100 (data/h100/probes6), their source note beside "ops"
PROBES6_OPS = ("ATAN.f64", "ATAN2.f64", "TAN.f64", "FLOOR.f64", "CVT.f64>i32", "CVT.i32>f64")


def _without_later(timing: dict) -> dict:
    drop = set(LATER) | {"ops_probes6"}
    out = {k: v for k, v in timing.items() if k not in drop}
    out["ops"] = {k: v for k, v in timing["ops"].items() if k not in PROBES6_OPS}
    out["sources"] = {k: v for k, v in timing["sources"].items() if k not in drop}
    return out


def test_fit_from_h200_csvs_is_the_shipped_timing_section(written):
    shipped = json.loads(SM90.read_text())["timing"]
    assert _without_later(written["timing"]) == _without_later(shipped)
    assert all(shipped[k] > 0 for k in LATER if k != "op_hold") and shipped["op_hold"]
    assert set(PROBES6_OPS) <= set(shipped["ops"]) and "ops_probes6" in shipped["sources"]


def test_store_merge_constants_refit_from_their_h100_measurement():
    t = json.loads(SM90.read_text())["timing"]
    df = ncu_csv.load("store_runs", ROOT / "benchmarks" / "timing" / "data" / "h100" / "store_runs")
    assert fit_stores.store_runs(df) == tuple(t[k] for k in STORES)


def _store_runs(share, requests) -> pd.DataFrame:
    """store_runs.cu's rows with each k_imm / k_step launch of S lines sending ``share(kind, S)``
    of its lines' sectors to the L2 (the one-line launch 1.5 sectors an L1 sector, as on the
    GPU) in ``requests(S)`` write requests a store request."""
    rows = []
    for kind in ("imm", "step"):
        for s in (1, 2, 4, 6, 7, 8, 16):
            f = 1.0 if s == 1 else share(kind, s)
            rows.append({"bench": f"{kind}_s{s}_k{s}", fit_stores.L1_SECTORS: 1000.0, fit_stores.L2_SECTORS: 1500.0 * f,
                         fit_stores.L1_REQUESTS: 100.0, fit_stores.L2_REQUESTS: 100.0 * requests(s)})
    return pd.DataFrame(rows)


def test_store_runs_fit_reads_how_far_stores_merge():
    # nothing merges: no line count, no share
    assert fit_stores.store_runs(_store_runs(lambda k, s: 1.0, lambda s: s)) == (0, 0, 0.0)
    # back to back up to 8 lines, with an instruction between up to 4; of a run of S stores the
    # first sends its S lines, the second none and each later one a quarter of them
    merged = _store_runs(lambda k, s: 1 / 3 if s <= (8 if k == "imm" else 4) else 0.95, lambda s: 1 + (s - 2) / 4)
    assert fit_stores.store_runs(merged) == (8, 4, 0.25)
    # a count that does not merge stops the count, though a larger one does
    gap = _store_runs(lambda k, s: 0.9 if s == 4 else 0.5, lambda s: s / 2)
    assert fit_stores.store_runs(gap)[:2] == (2, 2)


def test_l2_request_rate_is_the_difference_of_two_ld_rand_launches():
    """The L2's one-sector request rate (timing.l2_requests_per_cycle): atomic_lines.cu's
    ld_rand over 2^16 lines, its L2 sectors and cycles at 16 steps less those at 4 (the ramp,
    the table's first reads from DRAM and the tail drop out); other kernels and tables aside,
    and none from a table with one launch."""
    df = pd.DataFrame({"bench": ["ld_rand", "ld_rand", "ld_rand", "ld_rand", "red_rand"],
                       "value": [1604, 1616, 2104, 2116, 1616],
                       "lts__t_sectors.sum": [600_000, 2_100_000, 1_000_000, 4_000_000, 9e9],
                       "sm__cycles_elapsed.max": [13_000, 31_750, 29_000, 88_000, 1.0]})
    assert ncu_csv.l2_hit_request_rate(df) == pytest.approx(80.0)              # 1.5M sectors / 18,750 cycles
    assert ncu_csv.l2_hit_request_rate(df, 21) == pytest.approx(3e6 / 59e3)
    assert ncu_csv.l2_hit_request_rate(df.iloc[[0, 4]]) is None


def test_rmw_access_is_what_the_random_stores_take_beyond_their_reads():
    """A lone partly written sector's write-back (timing.dram_rmw_access_bytes): atomic_lines.cu's
    st_rand over 2^21 lines, 16 steps less 4, the DRAM time (cycles x bytes a cycle) less the
    sectors read at dram_access_bytes each, over the sectors written at the write cost; never
    below dram_access_bytes; other kernels and tables aside."""
    df = pd.DataFrame({"bench": ["st_rand", "st_rand", "st_rand", "ld_rand"],
                       "value": [2104, 2116, 1616, 2116],
                       "dram__bytes_read.sum": [10 * 32, 110 * 32, 0, 9e9],
                       "dram__bytes_write.sum": [0, 200 * 32, 0, 9e9],
                       "sm__cycles_elapsed.max": [1_000, 11_000, 1.0, 1.0]})
    # 10,000 cycles x 3 bytes = 30,000: 100 reads at 100 = 10,000; 20,000 over 200 writes x 0.5
    assert fit_dram.dram_rmw_access_bytes(df, 3.0, 100.0, 0.5) == pytest.approx(200.0)
    assert fit_dram.dram_rmw_access_bytes(df, 1.0, 100.0, 0.5) == pytest.approx(100.0)   # the floor
    with pytest.raises(fitting.FitError):
        fit_dram.dram_rmw_access_bytes(df.iloc[[0, 2, 3]], 3.0, 100.0, 0.5)


def test_machine_facts_from_the_h200_driver_are_the_shipped_ones(written):
    shipped = json.loads(SM90.read_text())
    for key, value in shipped.items():
        if key not in ("timing", "sources"):
            assert written[key] == value, key


def _keys(d: dict, prefix: str = "") -> set[str]:
    out = set()
    for k, v in d.items():
        out.add(prefix + k)
        if isinstance(v, dict):
            out |= _keys(v, f"{prefix}{k}.")
    return out


def test_written_file_has_every_key_of_sm90(written):
    shipped = json.loads(SM90.read_text())
    missing = (_keys(shipped) - _keys(written) - {f"timing.{k}" for k in LATER} - {f"timing.sources.{k}" for k in LATER}
               - {"timing.sources.ops_probes6"} - {f"timing.ops.{k}" for k in PROBES6_OPS}
               - {k for k in _keys(shipped) if k.startswith("timing.op_hold.")})
    assert not missing, sorted(missing)
    # the extra: when and on what it was calibrated, and the machine facts' sources
    assert set(written) - set(shipped) == {"calibration"}
    assert set(written["calibration"]["machine_sources"]) == set(shipped) - {"timing", "sources"}
    assert set(written["timing"]["sources"]) >= set(written["timing"]) - {"sources", "ops", "pipe_interval", "latency"}


def test_every_timing_constant_names_its_source(written):
    t = written["timing"]
    assert set(t) - {"sources"} <= set(t["sources"])


def test_fit_arch_script_is_the_package_fit():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from timing import fit_arch
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert fit_arch.fit() == json.loads(SM90.read_text())["timing"]


def test_fit_names_the_missing_measurement(tmp_path):
    for name in H200.iterdir():
        if name.is_file() and name.name != "micro3.csv":
            shutil.copy(name, tmp_path / name.name)
    with pytest.raises(fitting.FitError, match=r"micro3\.csv \(part micro3\)"):
        fitting.fit(tmp_path, 132, 4, 262144, "test", 4.8e12, "test")


def test_from_csv_without_device_json_fails_clearly(tmp_path, capsys):
    assert main(["calibrate", "--from-csv", str(tmp_path), "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simt calibrate: ") and "device.json is missing" in err
    assert not (tmp_path / "x.json").exists()


def test_unknown_part_is_refused():
    with pytest.raises(runner.CalibrationError, match="unknown part"):
        runner.parse_parts("micro,micro9")


def _cuda_sources() -> list[Path]:
    """Every microbenchmark: those simt calibrate ships and the diagnostics in benchmarks/timing."""
    files = {p.resolve() for p in (ROOT / "simt" / "calibrate" / "cuda").glob("*.cu")}
    files |= {p.resolve() for p in (ROOT / "benchmarks" / "timing").glob("*.cu")}
    return sorted(files)


def test_every_part_source_is_shipped():
    shipped = {p.name for p in runner.CUDA_DIR.glob("*.cu")}
    assert {p.source for p in runner.PARTS.values() if p.source and p.source.endswith(".cu")} <= shipped
    import importlib
    for p in runner.PARTS.values():              # the parts written as simt kernels: modules of simt
        if p.source and not p.source.endswith(".cu"):
            assert p.source.startswith("simt.") and hasattr(importlib.import_module(p.source), "main")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"simt.calibrate" = ["cuda/*.cu", "cuda/*.cuh"]' in pyproject


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("source", _cuda_sources(), ids=lambda p: p.name)
def test_microbenchmark_compiles_for_sm90(source, tmp_path):
    out = subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-cubin", "-o", str(tmp_path / "x.cubin"), str(source)],
                         capture_output=True, text=True, cwd=source.parent)
    assert out.returncode == 0, out.stderr


def _has_gpu() -> bool:
    from simt.gpu import runtime
    return runtime.is_available(0)


@pytest.mark.skipif(_has_gpu(), reason="a GPU is present: this checks the error without one")
def test_without_gpu_the_command_fails_with_one_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "simt", "calibrate", "--device", "cuda:0",
                          "--out", str(tmp_path / "gpu.json")], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2
    assert out.stderr.startswith("simt calibrate: no GPU to measure"), out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "gpu.json").exists()


def test_bad_device_name_is_refused(capsys, tmp_path):
    assert main(["calibrate", "--device", "cpu", "--out", str(tmp_path / "x.json")]) == 2
    assert "--device must be cuda or cuda:N" in capsys.readouterr().err


def test_old_gpus_are_refused():
    with pytest.raises(devq.DeviceQueryError, match="compute capability 7.5"):
        devq.check_supported({"name": "Tesla T4", "cc_major": 7, "cc_minor": 5})


def test_machine_facts_of_an_ada_gpu():
    """An RTX 4090 as its driver reports it: sm_89, 100 KB of shared memory, 128 KB of L1."""
    facts = {"name": "NVIDIA GeForce RTX 4090", "cc_major": 8, "cc_minor": 9, "sm_count": 128,
             "clock_khz": 2520000, "warp_size": 32, "max_threads_per_block": 1024, "max_threads_per_sm": 1536,
             "max_blocks_per_sm": 24, "registers_per_sm": 65536, "shared_per_sm": 102400,
             "shared_per_block": 49152, "shared_per_block_optin": 101376, "reserved_shared_per_block": 1024,
             "l2_bytes": 75497472}
    machine, sources = devq.machine_section(facts)
    assert machine["name"] == "sm_89" and machine["max_warps_per_sm"] == 48
    assert machine["shared_carveouts_kb"] == [0, 8, 16, 32, 64, 100]
    assert devq.l1_bytes(facts)[0] == 128 * 1024
    assert devq.nvcc_arch(facts) == "sm_89" and devq.ptx_arch(facts) == "sm_80"
    assert set(sources) == set(machine)


# ---- the runner end to end, with stand-ins for nvcc, ncu and the GPU ---------------------------
# The stand-in nvcc writes a "program" that replays the H200's manifest (or, for the clock64
# parts, its table); the stand-in ncu runs the program and writes the H200's profiler CSV where
# --log-file says. The calibration must then come out as sm_90.json's timing section.

PROGRAM = '''
import shutil, sys
from pathlib import Path
tables = {"micro5": "loaded_latency.csv", "micro8": "loaded_latency_writes.csv"}
data = Path(DATA)
if NAME == "store_runs":          # measured on an H100 (no H200 came)
    data = data.parent / "h100" / "store_runs"
if NAME in tables:
    sys.stdout.write((data / tables[NAME]).read_text())
else:
    shutil.copy(data / f"{NAME}_manifest.csv", sys.argv[1])
'''

FAKE_NVCC = '''
import os, sys
args = sys.argv[1:]
exe, source = args[args.index("-o") + 1], args[-1]
assert "-arch=sm_90" in args and os.path.exists(source), args
name = os.path.basename(exe)
with open(exe, "w") as f:
    f.write(f"#!{sys.executable}\\nNAME = {name!r}\\nDATA = {DATA!r}\\n" + PROGRAM)
os.chmod(exe, 0o755)
'''

FAKE_NCU = '''
import os, shutil, subprocess, sys
from pathlib import Path
args = sys.argv[1:]
if args == ["--version"]:
    print("stand-in ncu"); sys.exit(0)
assert args[:6] == ["--clock-control", "none", "--print-units", "base", "--csv", "--metrics"], args
i = args.index("--log-file")
log, program = Path(args[i + 1]), args[i + 2:]
assert os.environ["CUDA_VISIBLE_DEVICES"] == "0"
if "simt.calibrate.run_probes" in program:
    # the probes module must import in the environment it is given; then replay the H200's probes
    subprocess.run(program + ["--help"], check=True, stdout=subprocess.DEVNULL)
    manifest = Path(program[program.index("--manifest") + 1])
    for name in ("probes", "probes2", "probes3", "probes4", "probes5"):
        shutil.copy(Path(DATA) / f"{name}_manifest.csv", manifest.parent / f"{name}_manifest.csv")
        shutil.copy(Path(DATA) / f"{name}.csv", manifest.parent / f"{name}.csv")
elif "simt.calibrate.op_overlap" in program:
    # measured on an H100 (no H200 came): it must import; then that manifest and CSV
    subprocess.run(program[:program.index("--measure")] + ["--help"], check=True, stdout=subprocess.DEVNULL)
    assert args[args.index("--kernel-name") + 1] == "regex:op_chain_", args
    here = Path(DATA).parent / "h100" / "op_overlap"
    shutil.copy(here / "op_overlap_manifest.csv", program[program.index("--measure") + 1])
    shutil.copy(here / log.name, log)
elif "simt.calibrate.warp_words" in program:
    # a module of simt kernels: it must import; then the H200's manifest and CSV
    subprocess.run(program[:program.index("--measure")] + ["--help"], check=True, stdout=subprocess.DEVNULL)
    assert args[args.index("--kernel-name") + 1].startswith("regex:"), args
    shutil.copy(Path(DATA) / "warp_words_manifest.csv", program[program.index("--measure") + 1])
    shutil.copy(Path(DATA) / log.name, log)
else:
    subprocess.run(program, check=True)
    here = Path(DATA).parent / "h100" / "store_runs" if log.name == "store_runs.csv" else Path(DATA)
    shutil.copy(here / log.name, log)
'''


def _script(path: Path, body: str) -> None:
    head = f"#!{sys.executable}\nDATA = {str(H200)!r}\nPROGRAM = {PROGRAM!r}\n"
    path.write_text(head + body)
    path.chmod(0o755)


def test_runner_end_to_end_with_stand_in_tools(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _script(bindir / "nvcc", FAKE_NVCC)
    _script(bindir / "ncu", FAKE_NCU)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    facts = json.loads((H200 / "device.json").read_text())
    monkeypatch.setattr(devq, "query", lambda ordinal: dict(facts))
    out = tmp_path / "gpu.json"
    arch = runner.calibrate("cuda:0", out, log=lambda s: None)
    assert json.loads(out.read_text()) == arch
    shipped = json.loads(SM90.read_text())["timing"]
    assert _without_later(arch["timing"]) == _without_later(shipped)
    assert all(arch["timing"][k] == shipped[k] for k in STORES)
    # the stand-in's op_overlap run is the first H100 run: the shipped holds but those a later
    # run added (fp64 arctangents and tangent, data/h100/op_overlap/with_atan)
    assert arch["timing"]["op_hold"] == {k: v for k, v in shipped["op_hold"].items() if k not in ATAN_HOLDS}
    work = tmp_path / "gpu.calibration"
    assert (work / "device.json").exists() and (work / "loaded_latency_writes.csv").exists()
    profiled = [name for name, part in runner.PARTS.items() if "ncu" in part.timers]
    assert arch["calibration"]["parts_measured"] == profiled and arch["calibration"]["timer"] == "ncu"
    assert set(json.loads((work / "device.json").read_text())["measure_seconds"]) == {"compile", *profiled}


def test_the_committed_h200_calibration_refits_to_the_file_it_wrote(tmp_path):
    """simt calibrate's own run on the H200 (data/h200/calibrated): its measurements, fitted
    again here, give the timing section of the file the command wrote there."""
    done = H200 / "calibrated"
    assert main(["calibrate", "--from-csv", str(done / "measured"), "--out", str(tmp_path / "x.json")]) == 0
    written = json.loads((done / "h200.json").read_text())
    fresh = json.loads((tmp_path / "x.json").read_text())["timing"]
    # (the SASS opcodes' pipes the fit writes since, a table and not a measurement, aside, and
    # the ADU's interval, which the run's micro.cu did not measure yet: sm_90.json's, copied)
    fresh.pop("sass_pipes")
    fresh["sources"].pop("sass_pipes")
    assert fresh["pipe_interval"].pop("adu") == json.loads(SM90.read_text())["timing"]["pipe_interval"]["adu"]
    fresh["sources"]["pipe_interval"] = fresh["sources"]["pipe_interval"].split("; adu: ")[0]
    assert fresh == written["timing"]
    assert "atomic_lines" in written["calibration"]["parts_measured"]
    assert written["timing"]["atomic_hot_window_cycles"] > 0 and written["timing"]["atomic_cold_sector_cycles"] > 0


def test_the_command_line_help_names_every_part():
    """``simt calibrate --help`` lists the parts ``--parts`` takes: every one the runner has."""
    out = subprocess.run([sys.executable, "-m", "simt", "calibrate", "--help"], capture_output=True, text=True,
                         check=True).stdout
    listed = " ".join(out.split())
    for name in runner.PARTS:
        assert name in listed, name
