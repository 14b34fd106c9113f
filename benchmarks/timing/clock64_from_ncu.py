"""The clock64 fallback of ``simt calibrate`` checked without a GPU: what it would have recorded
on the H200, made from the committed Nsight Compute measurements (data/h200), fitted, and set
beside the profiler's fit (simt/arch/sm_90.json's timing section), constant by constant.

What the fallback records, and how it is made here from the profiler's CSVs:

- each launch's time (CUDA events): ``gpu__time_duration.sum`` plus a constant event overhead
  (``--overhead-ns``: the events also count the launch's start and end), optionally rounded to
  the events' resolution (``--quantum-ns``);
- clock.csv (clock.cu's spins: clock64 cycles against event time): micro.cu's launches over
  50k cycles, ``sm__cycles_elapsed.max`` against their time;
- nothing else: instructions, sectors and DRAM bytes are computed the fallback's way, from the
  SASS of the programs (compiled here with nvcc, self-timed, as the fallback compiles them) and
  of the op probes (ptxas here), and from the manifests.

    PYTHONPATH=. python3 benchmarks/timing/clock64_from_ncu.py [--out DIR] [--overhead-ns 3000] [--quantum-ns 0]
    PYTHONPATH=. python3 benchmarks/timing/clock64_from_ncu.py --compare FILE.json   # a written file's constants
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from simt.calibrate import clock64_csv, counts, ncu_csv, probes, runner
from simt.calibrate import fit as fitting

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "h200"
ROOT = HERE.parent.parent
SM90 = ROOT / "simt" / "arch" / "sm_90.json"
CUDA_PARTS = ("micro", "micro2", "micro3", "micro4")


# the clock the profiler's fit found (micro.cu, launches over 50k cycles): --time-from cycles
H200_MHZ = 1978.2


def _event_ns(df: pd.DataFrame, overhead_ns: float, quantum_ns: float, time_from: str = "duration") -> np.ndarray:
    """What the events would read: the profiler's duration, or (``cycles``) an ideal timer, the
    SM cycles at the clock; plus the overhead, rounded to ``quantum_ns``."""
    if time_from == "cycles":
        ns = df[fitting.CYC].to_numpy(float) / H200_MHZ * 1e3 + overhead_ns
    else:
        ns = df[fitting.TIME].to_numpy(float) + overhead_ns
    return np.round(ns / quantum_ns) * quantum_ns if quantum_ns else ns


def _sass(part: str, tmp: Path) -> str:
    from simt.gpu import sass
    cubin = tmp / f"{part}.cubin"
    subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-DSIMT_SELF_TIMED", "-cubin", "-o", str(cubin),
                    str(runner.CUDA_DIR / f"{part}.cu")], check=True, capture_output=True, text=True)
    return subprocess.run([sass.find_tool("cuobjdump"), "-sass", str(cubin)], check=True,
                          capture_output=True, text=True).stdout


def probe_loops(arch: str = "sm_90") -> dict[tuple[str, int], tuple]:
    """(name, unroll) -> (instructions, unroll) of every probe's loop, as run_probes records them
    (NaN for a probe whose loop calls its operation: counts.probe_loop cannot count it)."""
    out = {}
    for name, unroll, kernel, _ in probes.launches("cpu:precise"):
        try:
            out[(name, unroll)] = counts.probe_counts(kernel, arch)
        except counts.CountError:
            out[(name, unroll)] = (float("nan"), float("nan"))
    return out


def listings() -> dict[str, str]:
    """Each CUDA part's ``cuobjdump -sass``, built self-timed as the fallback builds it."""
    with tempfile.TemporaryDirectory() as tmp:
        return {part: _sass(part, Path(tmp)) for part in CUDA_PARTS}


def convert(out: Path, overhead_ns: float = 3000.0, quantum_ns: float = 0.0, loops=None,
            time_from: str = "duration", sass_texts: dict[str, str] | None = None) -> Path:
    """Write into ``out`` what ``simt calibrate --timer clock64`` would have left on the H200.
    ``time_from``: ``duration`` (gpu__time_duration.sum: a real timer's noise on short
    launches) or ``cycles`` (sm__cycles_elapsed.max at the clock: an ideal timer)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("device.json", "loaded_latency.csv", "loaded_latency_writes.csv"):
        shutil.copy(DATA / name, out / name)
    sass_texts = sass_texts or listings()
    for part in CUDA_PARTS:
        df = ncu_csv.load(part, DATA)
        shutil.copy(DATA / f"{part}_manifest.csv", out / f"{part}_manifest.csv")
        pd.DataFrame({"launch": df["launch"], "ns": _event_ns(df, overhead_ns, quantum_ns, time_from)}).to_csv(
            out / clock64_csv.times_file(part), index=False)
        (out / f"{part}.sass").write_text(sass_texts[part])
    micro = ncu_csv.load("micro", DATA)
    spins = micro[micro[fitting.CYC] > 50_000]
    pd.DataFrame({"spin_cycles": spins[fitting.CYC].astype(np.int64),
                  "ns": _event_ns(spins, overhead_ns, quantum_ns, time_from)}).to_csv(out / clock64_csv.CLOCK_FILE, index=False)
    # the probes: one part, the later measurements of a probe after the earlier ones
    loops = loops or probe_loops()
    frames = [ncu_csv.load(p, DATA) for p in fitting.PROBE_PARTS if (DATA / f"{p}.csv").exists()]
    probe = pd.concat(frames, ignore_index=True)
    probe["launch"] = range(len(probe))
    probe["steps"] = [probes.LOOP_STEPS if n.endswith("@loop") else probes.STEPS for n in probe["name"]]
    probe["loop_instructions"] = [loops[(n, u)][0] for n, u in zip(probe["name"], probe["unroll"])]
    probe["loop_unroll"] = [loops[(n, u)][1] for n, u in zip(probe["name"], probe["unroll"])]
    probe[["launch", "name", "unroll", "kernel", "steps", "loop_instructions", "loop_unroll"]].to_csv(
        out / "probes_manifest.csv", index=False)
    pd.DataFrame({"launch": probe["launch"], "ns": _event_ns(probe, overhead_ns, quantum_ns, time_from)}).to_csv(
        out / clock64_csv.times_file("probes"), index=False)
    return out


def fit_clock64(work: Path) -> dict:
    return runner.fit_measurements(work, runner.load_facts(work), timer="clock64")


def flatten(timing: dict) -> dict[str, float]:
    """Every number of a timing section, nested keys joined with dots (ops: issue and latency)."""
    out = {}
    for key, value in timing.items():
        if key in ("sources", "sass_pipes"):        # (the opcode table is no number)
            continue
        if key == "ops":
            for op, (slots, latency, *_pipe) in value.items():
                out[f"ops.{op}.sass"], out[f"ops.{op}.latency"] = float(slots), float(latency)
        elif isinstance(value, dict):
            for sub, v in value.items():
                out[f"{key}.{sub}"] = float(v)
        else:
            out[key] = float(value)
    return out


def compare(ncu: dict, clock64: dict) -> pd.DataFrame:
    a, b = flatten(ncu), flatten(clock64)
    # (a constant only one side has, such as the two sm_90.json takes from later measurements, is left out)
    rows = [(k, a[k], b[k], (b[k] - a[k]) / abs(a[k]) if a[k] else float(b[k] != 0)) for k in a if k in b]
    return pd.DataFrame(rows, columns=["constant", "ncu", "clock64", "rel"]).set_index("constant")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="keep the converted measurements here (default: a temporary folder)")
    ap.add_argument("--overhead-ns", type=float, default=3000.0)
    ap.add_argument("--quantum-ns", type=float, default=0.0)
    ap.add_argument("--time-from", choices=("duration", "cycles"), default="duration",
                    help="the launch times: Nsight Compute's gpu__time_duration.sum (default), or its SM "
                         "cycles at the clock (an ideal timer)")
    ap.add_argument("--compare", metavar="FILE.json",
                    help="set an architecture file's timing section (one `simt calibrate` wrote on the H200) "
                         "beside sm_90.json's instead")
    args = ap.parse_args()
    if args.compare:
        table = compare(json.loads(SM90.read_text())["timing"], json.loads(Path(args.compare).read_text())["timing"])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            work = convert(Path(args.out or tmp), args.overhead_ns, args.quantum_ns, time_from=args.time_from)
            table = compare(json.loads(SM90.read_text())["timing"], fit_clock64(work))
    pd.set_option("display.width", 200)
    off = table[table.rel.abs() > 0.005]
    print(f"{len(table)} constants; {len(table) - len(off)} within 0.5% of the profiler's fit; the others:")
    print(off.to_string(float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
