"""``simt calibrate``: measure a GPU with the microbenchmarks, fit, write an architecture file.

The parts are the measurements ``fit.fit`` reads and nothing more (measure.sh's diagnostics,
calibration kernels and held-out launches are left out). Each CUDA C part is compiled with nvcc
for the device's own ``sm_XY``. Two timers:

- ``ncu`` (when Nsight Compute is on PATH): each part runs under the profiler as measure.sh
  runs it (clocks left alone, caches flushed before every launch, base units, CSV); micro8
  times itself with clock64 and runs without the profiler, as in measure.sh;
- ``clock64`` (the fallback without the profiler): the programs are built self-timed
  (``-DSIMT_SELF_TIMED``, micro_common.cuh: the L2 evicted before each launch, CUDA events
  around it, the host's launch latency hidden behind a clock64 spin), clock.cu measures the SM
  clock, the op probes time themselves the same way (run_probes.py), and the counters that are
  not times come from the programs' SASS and the manifests (counts.py, clock64_csv.py). The
  constants only the profiler can see keep a shipped file's values, named in timing.sources.

Everything measured stays in the work directory: the profiler's CSVs or the launch times and
SASS, the manifests, the programs' logs and ``device.json`` (what the driver reports, the
timer, the nvcc and ncu versions, the seconds each part took).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import SimtError
from . import clock64_csv
from .fit_stores import STORE_RUNS_METRICS
from . import device as devq
from . import fit as fitting

CUDA_DIR = Path(__file__).resolve().parent / "cuda"

# the counters every profiled part records (measure.sh's BASE)
BASE_METRICS = ",".join([
    "sm__cycles_elapsed.max", "sm__cycles_elapsed.avg", "sm__cycles_active.avg", "gpu__time_duration.sum",
    "smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors.sum",
    "lts__t_sector_hit_rate.pct", "lts__t_sectors_op_red.sum", "lts__t_sectors_op_atom.sum",
    "l1tex__t_sector_hit_rate.pct", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "dram__cycles_elapsed.avg.per_second", "sm__inst_executed_pipe_alu.sum"])
NCU = ["--clock-control", "none", "--print-units", "base", "--csv"]


class CalibrationError(SimtError):
    """A tool is missing, a measurement failed, or the measurements cannot be fitted."""


@dataclass(frozen=True)
class Part:
    name: str
    what: str
    source: str | None         # the CUDA C program (.cu), a module of simt kernels run with --measure
                               # MANIFEST (simt's own PTX), or None: the op probes
    metrics: str | None        # the profiler's counters; None: the program times itself (clock64)
    stdout: str | None         # where the program's own table goes (the clock64-timed parts)
    manifest: bool             # the program writes a manifest (one row per launch)
    timeout_s: int
    timers: tuple = ("ncu", "clock64")   # the timers the part is measured under
    kernels: str | None = None            # the profiler's --kernel-name filter, if any


PARTS = {p.name: p for p in (
    Part("micro", "launch floor, dispatch, dependent chains, pipe rates, shared/L1/L2/DRAM throughput, atomics",
         "micro.cu", BASE_METRICS, None, True, 900),
    Part("micro2", "requests over k lines, atomics into one sector, shared atomics, L2 capacity, L2 writes",
         "micro2.cu", BASE_METRICS, None, True, 600),
    Part("micro3", "partial-sector stores", "micro3.cu", BASE_METRICS, None, True, 600),
    Part("micro4", "block start and end with and without stores, dispatch by block size, a waiting branch",
         "micro4.cu", BASE_METRICS, None, True, 600),
    Part("micro5", "DRAM latency while the rest of the GPU streams (clock64, under the profiler as measure.sh)",
         "micro5.cu", "sm__cycles_elapsed.max,gpu__time_duration.sum,dram__bytes_read.sum",
         "loaded_latency.csv", False, 300),
    Part("micro8", "DRAM latency while the rest of the GPU writes (clock64, no profiler)",
         "micro8.cu", None, "loaded_latency_writes.csv", False, 300),
    Part("l2_sharing", "the L2's partitions: a buffer read twice, random one-sector gathers from every SM",
         "l2_sharing.cu", "dram__bytes_read.sum,sm__cycles_elapsed.max,lts__t_sectors_srcunit_tex_op_read.sum,"
         "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", None, True, 300, ("ncu",)),
    Part("warp_words", "atomics of one warp on few words, a flag stored by many warps, records read 8-32 floats "
         "apart (the L1 tag stage's rate a line)", "simt.calibrate.warp_words", BASE_METRICS, None, True, 300,
         ("ncu",), "regex:atomic_add|atomic_or|flag_store|struct_read|soa_read"),
    Part("store_merge", "a warp's stores to the same lines back to back and apart (do they merge before the L2?)",
         "store_merge.cu", BASE_METRICS, None, True, 300, ("ncu",)),
    Part("store_runs", "a thread's words stored with nothing or one instruction between the STGs, requests of 1-32 "
         "lines (how far do they merge before the L2?)", "store_runs.cu", STORE_RUNS_METRICS, None, True, 300, ("ncu",)),
    Part("l1_store_data", "stores of 32 one-sector lines and of whole lines on every SM and on an eighth of them "
         "(what a stored line and sector cost an SM's path to the L2 and its L1's data stage)", "l1_store_data.cu", BASE_METRICS, None,
         True, 300, ("ncu",)),
    Part("atomic_lines", "reductions to lines hashed over 2^10-2^21 lines, random loads and stores (how soon a unit "
         "sees a line again sets an atomic's cost)", "atomic_lines.cu", BASE_METRICS, None, True, 300, ("ncu",)),
    Part("probes", "what each MIR operation costs through simt's own PTX", None, BASE_METRICS, None, True, 600),
    Part("op_overlap", "two independent chains of a long op against one, one warp (does the op hold its warp?)",
         "simt.calibrate.op_overlap", "sm__cycles_elapsed.max,smsp__inst_executed.sum", None, True, 300, ("ncu",),
         "regex:op_chain_"),
    Part("clock", "the SM clock: clock64 spins on every SM timed by CUDA events (the clock64 timer only)",
         "clock.cu", None, clock64_csv.CLOCK_FILE, False, 120, ("clock64",)),
)}
TIMERS = ("auto", "ncu", "clock64")
SHIPPED = Path(__file__).resolve().parent.parent / "arch"


def parse_parts(text: str | None) -> list[str]:
    if not text:
        return list(PARTS)
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [n for n in names if n not in PARTS]
    if unknown:
        raise CalibrationError(f"unknown part(s) {', '.join(unknown)}; the parts are {', '.join(PARTS)}")
    return [n for n in PARTS if n in names]


def _tool(name: str) -> str | None:
    return shutil.which(name)


def _visible_devices(ordinal: int) -> str:
    """CUDA_VISIBLE_DEVICES for the measured programs: GPU ``ordinal`` of this process's view."""
    current = os.environ.get("CUDA_VISIBLE_DEVICES")
    if current:
        ids = [s.strip() for s in current.split(",") if s.strip()]
        if ordinal < len(ids):
            return ids[ordinal]
    return str(ordinal)


def _versions(ncu: str | None, nvcc: str) -> dict:
    def last_line(cmd):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
        return out.splitlines()[-1] if out else ""
    return {"nvcc": last_line([nvcc, "--version"]), "ncu": last_line([ncu, "--version"]) if ncu else ""}


def resolve_timer(timer: str | None, ncu: str | None) -> str:
    """``auto``: Nsight Compute where it is on PATH, else the clock64 fallback."""
    timer = timer or "auto"
    if timer not in TIMERS:
        raise CalibrationError(f"--timer must be one of {', '.join(TIMERS)}, got {timer!r}")
    if timer == "auto":
        return "ncu" if ncu else "clock64"
    if timer == "ncu" and not ncu:
        raise CalibrationError("--timer ncu: Nsight Compute (ncu) is not on PATH; --timer clock64 (or auto) "
                               "measures without it")
    return timer


def shipped_timing(facts: dict) -> tuple[dict, str]:
    """The timing section the clock64 fallback takes its unmeasurable constants from: the shipped
    file of the device's generation (sm_80.json for compute capability 8.x, else sm_90.json)."""
    name = "sm_80.json" if int(facts.get("cc_major", 9)) == 8 else "sm_90.json"
    data = json.loads((SHIPPED / name).read_text())
    return data["timing"], f"simt/arch/{name} (measured on {'an A100' if name == 'sm_80.json' else 'the H200'} with Nsight Compute)"


def _compile(parts: list[Part], arch: str, nvcc: str, bindir: Path, log, self_timed: bool = False) -> dict[str, Path]:
    """Each part's program, compiled with nvcc for ``arch`` (all at once: they are independent);
    ``self_timed``: the clock64 fallback's build (micro_common.cuh)."""
    bindir.mkdir(parents=True, exist_ok=True)
    jobs = {}
    for p in parts:
        if p.source is None or not p.source.endswith(".cu"):
            continue
        exe = bindir / Path(p.source).stem
        cmd = [nvcc, "-O3", f"-arch={arch}", *(["-DSIMT_SELF_TIMED"] if self_timed else []),
               "-o", str(exe), str(CUDA_DIR / p.source)]
        jobs[p.name] = (exe, cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    out = {}
    for name, (exe, cmd, proc) in jobs.items():
        text, _ = proc.communicate()
        if proc.returncode != 0:
            raise CalibrationError(f"nvcc failed on {CUDA_DIR / PARTS[name].source} for {arch}:\n"
                                   f"{' '.join(cmd)}\n{text.strip()[-2000:]}")
        out[name] = exe
    log(f"compiled {', '.join(jobs)} for {arch}")
    return out


def _sass_listing(exe: Path, out: Path) -> None:
    """``cuobjdump -sass`` of a self-timed program: what counts.py counts instructions in."""
    from ..gpu import sass
    tool = sass.find_tool("cuobjdump")
    if tool is None:
        raise CalibrationError("--timer clock64 needs cuobjdump (the CUDA toolkit, or pip install "
                               "nvidia-cuda-cuobjdump) to read the programs' SASS")
    proc = subprocess.run([tool, "-sass", str(exe)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise CalibrationError(f"cuobjdump -sass {exe} failed:\n{(proc.stderr + proc.stdout).strip()[-2000:]}")
    out.write_text(proc.stdout)


def probes_program(manifest: Path, ptx_arch: str, timer: str, times: str | None, sass_arch: str) -> list[str]:
    """The command that runs the op probes (run_probes.py) on the GPU the environment shows."""
    program = [sys.executable, "-m", "simt.calibrate.run_probes", "--device", "cuda:0", "--arch", ptx_arch,
               "--manifest", str(manifest)]
    if timer == "clock64":
        program += ["--timer", "clock64", "--times", str(times), "--sass-arch", sass_arch]
    return program


def _run_part(p: Part, exe: Path | None, work: Path, ncu: str | None, env: dict, ptx_arch: str,
              timer: str = "ncu", sass_arch: str | None = None) -> None:
    env = dict(env)
    if timer == "clock64":
        env["SIMT_TIMES"] = str(work / clock64_csv.times_file(p.name))
    if p.source is None:
        program = probes_program(work / f"{p.name}_manifest.csv", ptx_arch, timer,
                                 env.get("SIMT_TIMES"), sass_arch or ptx_arch)
    elif not p.source.endswith(".cu"):
        program = [sys.executable, "-m", p.source, "--measure", str(work / f"{p.name}_manifest.csv")]
    else:
        program = [str(exe)] + ([str(work / f"{p.name}_manifest.csv")] if p.manifest else [])
    if p.metrics is not None and timer == "ncu":
        cmd = [ncu, *NCU, "--metrics", p.metrics, *(["--kernel-name", p.kernels] if p.kernels else []),
               "--log-file", str(work / f"{p.name}.csv"), *program]
    else:
        cmd = program
    log_path = work / f"{p.name}.log"
    with open(log_path, "w") as err:
        err.write(" ".join(cmd) + "\n")
        err.flush()
        out = open(work / p.stdout, "w") if p.stdout else err
        try:
            proc = subprocess.run(cmd, stdout=out, stderr=err, env=env, timeout=p.timeout_s)
        except subprocess.TimeoutExpired:
            raise CalibrationError(f"part {p.name} ran past {p.timeout_s} s; its log: {log_path}") from None
        finally:
            if out is not err:
                out.close()
    if proc.returncode != 0:
        tail = "\n".join(log_path.read_text(errors="replace").strip().splitlines()[-15:])
        raise CalibrationError(f"part {p.name} failed (exit {proc.returncode}); the end of {log_path}:\n{tail}")


def measure(ordinal: int, work: Path, parts: list[str], log=print, timer: str | None = "auto") -> dict:
    """Run ``parts`` on GPU ``ordinal`` into ``work``; the device facts (also saved as device.json,
    with the timer used: ``ncu`` or ``clock64``, see resolve_timer)."""
    facts = devq.query(ordinal)
    devq.check_supported(facts)
    ncu, nvcc = _tool("ncu"), _tool("nvcc")
    timer = resolve_timer(timer, ncu)
    chosen = [PARTS[n] for n in parts if timer in PARTS[n].timers]
    if timer == "clock64" and "clock" not in parts:
        chosen.append(PARTS["clock"])          # every clock64 fit converts times with the clock
    if any(p.source for p in chosen) and not nvcc:
        raise CalibrationError("simt calibrate needs nvcc (the CUDA toolkit) on PATH to compile the microbenchmarks")
    work.mkdir(parents=True, exist_ok=True)
    facts["tools"] = _versions(ncu if timer == "ncu" else None, nvcc)
    facts["timer"] = timer
    (work / "device.json").write_text(json.dumps(facts, indent=2) + "\n")
    how = ("under Nsight Compute" if timer == "ncu" else
           "self-timed with CUDA events and clock64 (no Nsight Compute" + ("" if ncu else " on PATH") + ")")
    log(f"{facts['name']} (compute capability {facts['cc_major']}.{facts['cc_minor']}, {facts['sm_count']} SMs, "
        f"driver {facts['driver'] or facts['cuda_driver_version']}); measuring {', '.join(p.name for p in chosen)} "
        f"{how} into {work}")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=_visible_devices(ordinal))
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [s for s in [env.get("PYTHONPATH")] if s])
    env.setdefault("SIMT_PROGRESS", "0")
    start = time.monotonic()
    exes = (_compile(chosen, devq.nvcc_arch(facts), nvcc, work / "bin", log, timer == "clock64")
            if any(p.source for p in chosen) else {})
    if timer == "clock64":
        for name, exe in exes.items():
            if PARTS[name].manifest:
                _sass_listing(exe, work / f"{name}.sass")
    seconds = {"compile": round(time.monotonic() - start, 1)}
    for p in chosen:
        t0 = time.monotonic()
        _run_part(p, exes.get(p.name), work, ncu, env, devq.ptx_arch(facts), timer, devq.nvcc_arch(facts))
        seconds[p.name] = round(time.monotonic() - t0, 1)
        log(f"  {p.name}: {seconds[p.name]:.0f} s")
    facts["measure_seconds"] = seconds
    (work / "device.json").write_text(json.dumps(facts, indent=2) + "\n")
    return facts


def load_facts(work: Path) -> dict:
    path = Path(work) / "device.json"
    if not path.exists():
        raise CalibrationError(f"{path} is missing: it holds what the driver reported about the measured GPU "
                               f"(simt calibrate writes it beside the CSVs)")
    return json.loads(path.read_text())


def timer_of(work: Path, facts: dict) -> str:
    """How the measurements in ``work`` were taken: device.json says, else the files do."""
    if facts.get("timer") in fitting.TIMERS:
        return facts["timer"]
    return "clock64" if (Path(work) / clock64_csv.times_file("micro")).exists() and \
        not (Path(work) / "micro.csv").exists() else "ncu"


def fit_measurements(work: Path, facts: dict, timer: str | None = None) -> dict:
    """The timing section fitted from the measurements in ``work`` of the device ``facts``
    describe (what the fit takes from the device: SMs, schedulers, L1 size, DRAM peak)."""
    l1, l1_source = devq.l1_bytes(facts)
    timer = timer or timer_of(work, facts)
    return fitting.fit(work, int(facts["sm_count"]), devq.machine_section(facts)[0]["schedulers_per_sm"],
                       l1, l1_source, *devq.dram_peak(facts), timer=timer,
                       shipped=shipped_timing(facts) if timer == "clock64" else None)


def architecture(facts: dict, timing: dict, parts_measured: list[str] | None, seconds: float | None,
                 work: Path, timer: str = "ncu") -> dict:
    """A complete architecture file: the machine facts from the driver, the fitted timing section."""
    machine, machine_sources = devq.machine_section(facts)
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    driver = facts.get("driver") or str(facts.get("cuda_driver_version", ""))
    tools = facts.get("tools", {})
    arch = dict(machine)
    arch["timing"] = timing
    how = ("measured with Nsight Compute" if timer == "ncu" else
           "self-timed with CUDA events and clock64, without Nsight Compute (the clock64 fallback: instruction "
           "counts from the SASS; the constants only the profiler can see from a shipped file, "
           "calibration.not_measured)")
    arch["sources"] = (f"Calibrated by `simt calibrate` on {facts['name']} (driver {driver}) on {date}. Machine "
                       f"parameters: what the CUDA driver reports for the device (calibration.machine_sources). "
                       f"'timing': the microbenchmarks of simt/calibrate/cuda and the op probes, {how}, "
                       f"and fitted by simt.calibrate.fit; each constant's measurement is in timing.sources.")
    arch["calibration"] = {
        "date": date, "gpu": facts["name"], "driver": driver,
        "compute_capability": f"{facts['cc_major']}.{facts['cc_minor']}",
        "nvcc": tools.get("nvcc", ""), "ncu": tools.get("ncu", ""), "timer": timer,
        "not_measured": not_measured(timing),
        "measurements": str(work), "parts_measured": parts_measured,
        "seconds": seconds, "machine_sources": machine_sources,
    }
    return arch


def not_measured(timing: dict) -> dict[str, str]:
    """The constants the fit did not measure on this GPU (key -> where the value came from)."""
    return {k: v for k, v in timing.get("sources", {}).items() if v.startswith("not measured")
            and k in fitting.NOT_MEASURED_BY_CLOCK64}


def calibrate(device: str | None, out: Path, keep: Path | None = None, parts: str | None = None,
              from_csv: Path | None = None, log=print, timer: str | None = "auto") -> dict:
    """Measure (unless ``from_csv``), fit and write ``out``; the architecture written. ``timer``:
    auto, ncu or clock64 (resolve_timer); with ``from_csv`` the measurements say which."""
    start = time.monotonic()
    out = Path(out)
    if from_csv is not None:
        work = Path(from_csv)
        if not work.is_dir():
            raise CalibrationError(f"--from-csv {work}: no such directory")
        facts, measured = load_facts(work), None
    else:
        ordinal = devq.parse_device(device or "cuda:0")
        work = Path(keep) if keep else out.with_name(out.stem + ".calibration")
        facts = measure(ordinal, work, parse_parts(parts), log, timer)
        measured = [name for name in facts["measure_seconds"] if name != "compile"]
    used = timer_of(work, facts)
    timing = fit_measurements(work, facts, used)
    seconds = round(time.monotonic() - start, 1)
    arch = architecture(facts, timing, measured, seconds if measured else None, work, used)
    for key, source in not_measured(timing).items():
        log(f"  {key} = {timing[key]}: {source}")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=out.name, suffix=".tmp")
    with os.fdopen(fd, "w") as f:          # written whole, then renamed: never half a file at ``out``
        f.write(json.dumps(arch, indent=2) + "\n")
    os.chmod(tmp, 0o644)
    Path(tmp).replace(out)
    log(f"wrote {out} ({facts['name']}; fitted from {work}" + (f"; {seconds:.0f} s in all)" if measured else ")"))
    return arch
