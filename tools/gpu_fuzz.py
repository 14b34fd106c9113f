"""The differential fuzzer and the ulp table, measured on a GPU, in one command.

    PYTHONPATH=. python3 tools/gpu_fuzz.py OUTDIR [--seconds 200]

needs a CUDA GPU with cuda-python, numpy, numba and hypothesis (not warp-lang), and
finishes in under 5 minutes. It writes into OUTDIR:

- ``ulp.csv``: per math builtin and float type, the GPU's largest (and mean, 99th
  percentile) distance from the CPU engines (float32 results in float32 ulps, float64 ones
  in float64 ulps) over arguments inside the
  bound's range (simt/ulp.py), the bound, and the worst argument: the evidence for
  docs/ulp.md's GPU column;
- ``fuzz.json``: every random kernel run on ``cuda`` against ``cpu:precise``
  (simt/fuzz.py's GPU programs: exact operations bit for bit, transcendentals within the
  bound, float atomic sums within a relative tolerance), with what differed;
- ``failures/*.py``: the source of each kernel that failed (copy one into
  tests/fuzz_cases/ once fixed), the first one shrunk by hypothesis where time allows;
- ``summary.txt``: the counts.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import simt
from simt import fuzz, ulp

BINARY = ("pow", "atan2")
N_ARGS = 1 << 16


def _kernel(names: list[str], dtype: str, binary: bool):
    args = "x[i], y[i]" if binary else "x[i]"
    body = "\n".join(f"    out[{k}, i] = wp.{n}({args})" for k, n in enumerate(names))
    source = (f"import simt as wp\n\n\n@wp.kernel\ndef fuzz(x: wp.array(dtype=wp.{dtype}), "
              f"y: wp.array(dtype=wp.{dtype}), out: wp.array2d(dtype=wp.{dtype})):\n"
              f"    i = wp.tid()\n{body}\n")
    return fuzz.load(source)


def _arguments(name: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    b = ulp.BOUNDS[name]
    lo, hi = max(b.lo, -1e4), min(b.hi, 1e4)
    if name == "pow":
        x = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), N_ARGS))
        y = rng.uniform(-16, 16, N_ARGS) / np.maximum(np.abs(np.log2(x)), 1.0)
        return x, y
    wide = rng.uniform(lo, hi, N_ARGS // 2)                  # the whole range
    near = rng.uniform(max(lo, -10.0), min(hi, 10.0), N_ARGS - N_ARGS // 2)   # where most are
    x = np.concatenate([wide, near])
    if lo == 0.0:
        x = np.abs(x) + 1e-30
    if name == "erfcinv":                                     # small arguments, log-spread
        x[: N_ARGS // 4] = np.exp(rng.uniform(np.log(lo), 0.0, N_ARGS // 4))
    return x, rng.normal(size=N_ARGS) * 10


def measure_ulps(out: Path, device: str) -> list[dict]:
    rng = np.random.default_rng(1)
    rows = []
    for dtype, np_type in (("float32", np.float32), ("float64", np.float64)):
        for name in ulp.BOUNDS:
            x, y = (a.astype(np_type) for a in _arguments(name, rng))
            kernel = _kernel([name], dtype, name in BINARY)
            results = {}
            for where in ("cpu:precise", device):
                o = simt.zeros((1, N_ARGS), dtype=np_type, device=where)
                simt.launch(kernel, dim=N_ARGS, device=where,
                            inputs=[simt.array(x, device=where), simt.array(y, device=where), o])
                results[where] = o.numpy()[0]
            ref, got = results["cpu:precise"], results[device]
            if dtype == "float64":     # CUDA's float64 functions, in float64 ulps
                far, bound = ulp.ulp_distance(got, ref), ulp.BOUNDS[name].gpu64
            else:
                far, bound = ulp.gpu_ulps(got, ref), ulp.BOUNDS[name].gpu
                far = np.where(np.isfinite(ref), far, 0)
            worst = int(np.argmax(far))
            rows.append({"builtin": name, "dtype": dtype, "arguments": N_ARGS,
                         "max_ulp": float(far.max()), "mean_ulp": float(far.mean()),
                         "p99_ulp": float(np.percentile(far, 99)),
                         "bound": bound, "within": bool(far.max() <= bound),
                         "worst_x": float(x[worst]), "worst_y": float(y[worst]),
                         "cpu": float(ref[worst]), "gpu": float(got[worst])})
    with open(out / "ulp.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def run_fuzz(out: Path, seconds: float, device: str) -> list[dict]:
    from hypothesis import HealthCheck, given, settings
    records: list[dict] = []
    start = time.perf_counter()

    def one(source: str) -> None:
        if time.perf_counter() - start > seconds:
            return
        record = {"kernel": hashlib.sha256(source.encode()).hexdigest()[:12]}
        try:
            found = fuzz.differences(fuzz.run(source, "cpu:precise"), fuzz.run(source, device),
                                     gpu=True, source=source)
        except Exception as e:  # noqa: BLE001 - a crash is a finding too
            found = [f"{type(e).__name__}: {e}"]
        record["differences"] = found
        records.append(record)
        if found:
            (out / "failures").mkdir(exist_ok=True)
            (out / "failures" / f"case_{record['kernel']}.py").write_text(source)

    for collectives in (False, True):
        test = settings(max_examples=400, derandomize=True, deadline=None, database=None,
                        suppress_health_check=list(HealthCheck))(
            given(fuzz.programs(collectives=collectives, gpu=True))(one))
        test()
    return records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--seconds", type=float, default=200.0,
                        help="time for the whole run (the ulp sweep first, then random kernels)")
    parser.add_argument("--device", default="cuda",
                        help="the device under test (another engine, to try the script out)")
    args = parser.parse_args()
    out = args.outdir
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rows = measure_ulps(out, args.device)
    swept = time.perf_counter() - started
    records = run_fuzz(out, max(10.0, args.seconds - swept), args.device)
    failed = [r for r in records if r["differences"]]
    (out / "fuzz.json").write_text(json.dumps(records, indent=1))
    beyond = [r for r in rows if not r["within"]]
    summary = [f"ulp sweep: {len(rows)} builtin/type pairs, {len(beyond)} beyond the bound "
               f"({swept:.0f} s)"]
    summary += [f"  {r['builtin']} {r['dtype']}: {r['max_ulp']:.0f} ulp > {r['bound']}"
                for r in beyond]
    summary.append(f"fuzz: {len(records)} random kernels on {args.device} vs cpu:precise, "
                   f"{len(failed)} differ (sources in failures/)")
    summary.append(f"total {time.perf_counter() - started:.0f} s")
    (out / "summary.txt").write_text("\n".join(summary) + "\n")
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
