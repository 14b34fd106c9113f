"""``simt calibrate``: measure a GPU with the microbenchmarks, fit, write an architecture file.

The parts are the measurements ``fit.fit`` reads and nothing more (measure.sh's diagnostics,
calibration kernels and held-out launches are left out). Each CUDA C part is compiled with nvcc
for the device's own ``sm_XY`` and run under Nsight Compute as measure.sh runs it (clocks left
alone, caches flushed before every launch, base units, CSV); micro8 times itself with clock64
and runs without the profiler, as in measure.sh. Everything measured stays in the work
directory: the profiler's CSVs, the manifests, the programs' logs and ``device.json`` (what the
driver reports, the nvcc and ncu versions, the seconds each part took).
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
    "dram__cycles_elapsed.avg.per_second"])
NCU = ["--clock-control", "none", "--print-units", "base", "--csv"]


class CalibrationError(SimtError):
    """A tool is missing, a measurement failed, or the measurements cannot be fitted."""


@dataclass(frozen=True)
class Part:
    name: str
    what: str
    source: str | None         # the CUDA C program, or None: the op probes (simt's own PTX)
    metrics: str | None        # the profiler's counters; None: the program times itself (clock64)
    stdout: str | None         # where the program's own table goes (the clock64-timed parts)
    manifest: bool             # the program writes a manifest (one row per launch)
    timeout_s: int


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
    Part("probes", "what each MIR operation costs through simt's own PTX", None, BASE_METRICS, None, True, 600),
)}
NO_CLOCK64_FALLBACK = ("simt calibrate needs Nsight Compute (ncu) on PATH; the clock64 fallback is not "
                       "implemented: parts {parts} read the profiler's cycle, instruction and DRAM counters "
                       "(only micro8 times itself with clock64, and its fit also needs micro's DRAM bandwidth)")


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


def _compile(parts: list[Part], arch: str, nvcc: str, bindir: Path, log) -> dict[str, Path]:
    """Each part's program, compiled with nvcc for ``arch`` (all at once: they are independent)."""
    bindir.mkdir(parents=True, exist_ok=True)
    jobs = {}
    for p in parts:
        if p.source is None:
            continue
        exe = bindir / Path(p.source).stem
        cmd = [nvcc, "-O3", f"-arch={arch}", "-o", str(exe), str(CUDA_DIR / p.source)]
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


def _run_part(p: Part, exe: Path | None, work: Path, ncu: str | None, env: dict, ptx_arch: str) -> None:
    if p.source is None:
        program = [sys.executable, "-m", "simt.calibrate.run_probes", "--device", "cuda:0", "--arch", ptx_arch,
                   "--manifest", str(work / f"{p.name}_manifest.csv")]
    else:
        program = [str(exe)] + ([str(work / f"{p.name}_manifest.csv")] if p.manifest else [])
    if p.metrics is not None:
        cmd = [ncu, *NCU, "--metrics", p.metrics, "--log-file", str(work / f"{p.name}.csv"), *program]
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


def measure(ordinal: int, work: Path, parts: list[str], log=print) -> dict:
    """Run ``parts`` on GPU ``ordinal`` into ``work``; the device facts (also saved as device.json)."""
    facts = devq.query(ordinal)
    devq.check_supported(facts)
    chosen = [PARTS[n] for n in parts]
    ncu, nvcc = _tool("ncu"), _tool("nvcc")
    profiled = [p.name for p in chosen if p.metrics is not None]
    if profiled and not ncu:
        raise CalibrationError(NO_CLOCK64_FALLBACK.format(parts=", ".join(profiled)))
    if any(p.source for p in chosen) and not nvcc:
        raise CalibrationError("simt calibrate needs nvcc (the CUDA toolkit) on PATH to compile the microbenchmarks")
    work.mkdir(parents=True, exist_ok=True)
    facts["tools"] = _versions(ncu, nvcc)
    (work / "device.json").write_text(json.dumps(facts, indent=2) + "\n")
    log(f"{facts['name']} (compute capability {facts['cc_major']}.{facts['cc_minor']}, {facts['sm_count']} SMs, "
        f"driver {facts['driver'] or facts['cuda_driver_version']}); measuring {', '.join(parts)} into {work}")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=_visible_devices(ordinal))
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [s for s in [env.get("PYTHONPATH")] if s])
    env.setdefault("SIMT_PROGRESS", "0")
    start = time.monotonic()
    exes = _compile(chosen, devq.nvcc_arch(facts), nvcc, work / "bin", log) if any(p.source for p in chosen) else {}
    seconds = {"compile": round(time.monotonic() - start, 1)}
    for p in chosen:
        t0 = time.monotonic()
        _run_part(p, exes.get(p.name), work, ncu, env, devq.ptx_arch(facts))
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


def fit_measurements(work: Path, facts: dict) -> dict:
    """The timing section fitted from the measurements in ``work`` of the device ``facts``
    describe (what the fit takes from the device: SMs, schedulers, L1 size, DRAM peak)."""
    l1, l1_source = devq.l1_bytes(facts)
    return fitting.fit(work, int(facts["sm_count"]), devq.machine_section(facts)[0]["schedulers_per_sm"],
                       l1, l1_source, *devq.dram_peak(facts))


def architecture(facts: dict, timing: dict, parts_measured: list[str] | None, seconds: float | None,
                 work: Path) -> dict:
    """A complete architecture file: the machine facts from the driver, the fitted timing section."""
    machine, machine_sources = devq.machine_section(facts)
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    driver = facts.get("driver") or str(facts.get("cuda_driver_version", ""))
    tools = facts.get("tools", {})
    arch = dict(machine)
    arch["timing"] = timing
    arch["sources"] = (f"Calibrated by `simt calibrate` on {facts['name']} (driver {driver}) on {date}. Machine "
                       f"parameters: what the CUDA driver reports for the device (calibration.machine_sources). "
                       f"'timing': the microbenchmarks of simt/calibrate/cuda and the op probes, measured with "
                       f"Nsight Compute and fitted by simt.calibrate.fit; each constant's measurement is in "
                       f"timing.sources.")
    arch["calibration"] = {
        "date": date, "gpu": facts["name"], "driver": driver,
        "compute_capability": f"{facts['cc_major']}.{facts['cc_minor']}",
        "nvcc": tools.get("nvcc", ""), "ncu": tools.get("ncu", ""),
        "measurements": str(work), "parts_measured": parts_measured,
        "seconds": seconds, "machine_sources": machine_sources,
    }
    return arch


def calibrate(device: str | None, out: Path, keep: Path | None = None, parts: str | None = None,
              from_csv: Path | None = None, log=print) -> dict:
    """Measure (unless ``from_csv``), fit and write ``out``; the architecture written."""
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
        measured = parse_parts(parts)
        facts = measure(ordinal, work, measured, log)
    timing = fit_measurements(work, facts)
    seconds = round(time.monotonic() - start, 1)
    arch = architecture(facts, timing, measured, seconds if measured else None, work)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=out.name, suffix=".tmp")
    with os.fdopen(fd, "w") as f:          # written whole, then renamed: never half a file at ``out``
        f.write(json.dumps(arch, indent=2) + "\n")
    os.chmod(tmp, 0o644)
    Path(tmp).replace(out)
    log(f"wrote {out} ({facts['name']}; fitted from {work}" + (f"; {seconds:.0f} s in all)" if measured else ")"))
    return arch
