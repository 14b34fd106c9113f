"""Speed of trace analysis (simt.analysis): records per second, loading and analysing.

A synthetic trace in the schema-1 format stands in for a long run of a tiled transpose: per
warp and tile row an ld.global, an st.shared, a few arithmetic instructions and the loop
branch; then, after a barrier, column reads of the tile with 32-way bank conflicts (or none
with ``--padded``), st.global and a data-dependent divergent branch. About a third of the
records are memory instructions with 32 addresses each, the expensive kind to parse.

Timed, best of ``--repeats``:
  load       load_trace(path) into one DataFrame
  load .gz   the same trace gzip-compressed
  analyses   bank_conflicts, coalescing, divergence, per_line on the loaded DataFrame
  chunked    per_line straight from the path, one chunk at a time (every analysis in one
             pass, as for a trace bigger than memory)
  pipeline   load + bank_conflicts + coalescing + divergence + per_line, end to end
Every run checks its answers (conflicts, sectors, divergent branches) against the counts
the generator knows, so a fast wrong answer fails. ``--case NAME`` benchmarks a real trace
instead (a suite kernel run on cpu:trace), checked against the engine's own counters.

Target (from the issue): at least 200,000 records/s for loading and for the pipeline.

    PYTHONPATH=. python3 benchmarks/bench_analysis.py [--records 500000] [--quick] [--json out.json]
    PYTHONPATH=. python3 benchmarks/bench_analysis.py --case transpose_tile --size 512
"""
from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

from simt import analysis  # noqa: E402

TARGET_RECORDS_PER_S = 200_000
FULL = 0xFFFFFFFF
LANES = range(32)
IN_BASE, OUT_BASE = 1 << 20, 1 << 26


class Expected:
    def __init__(self):
        self.records = self.conflicts = self.sectors = self.divergent = 0


def write_trace(path: Path, n_records: int, padded: bool) -> Expected:
    """Write about ``n_records`` records; return what the analyses must find."""
    expected = Expected()
    row = 33 if padded else 32
    header = {"type": "header", "schema": 1, "simt": "0.1.0", "kernel": "transpose_bench",
              "launch": 0, "arch": "sm_90", "dim": [1, 1], "block": [32, 8, 1], "grid": [1, 1, 1],
              "threads_per_block": 256, "warps_per_block": 8, "source": "bench.py",
              "filters": {"memory_only": False, "blocks": None, "warps": None, "max_records": None}}
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        block = 0
        while expected.records < n_records:
            lines = []
            for warp in range(8):
                cycle = 0

                def emit(pc, op, line, gap=1, **extra):
                    nonlocal cycle
                    cycle += gap
                    rec = {"type": "inst", "launch": 0, "block": block, "warp": warp, "pc": pc,
                           "op": op, "line": line, "col": 8, "mask": FULL, "active": 32,
                           "cycle": block * 10_000 + cycle}
                    rec.update(extra)
                    lines.append(json.dumps(rec))

                for j in range(0, 32, 8):
                    y = warp + j
                    emit("body:0", "mad", 30)
                    emit("body:1", "ld.global", 31, space="global", width=4,
                         addr=[IN_BASE + ((block * 32 + y) * 1024 + x) * 4 for x in LANES],
                         sectors=4, requests=1)
                    emit("body:2", "st.shared", 32, gap=400, space="shared", width=4,
                         addr=[(y * row + x) * 4 for x in LANES], wavefronts=1, ideal=1)
                    emit("body:3", "add", 29)
                    emit("body:4", "setp", 29)
                    emit("body:5", "cbr", 29, taken=FULL if j < 24 else 0)
                    expected.sectors += 4
                emit("tail:0", "bar", 33, gap=20)
                for j in range(0, 32, 8):
                    waves = 1 if padded else 32
                    emit("tail:1", "ld.shared", 34, space="shared", width=4,
                         addr=[(x * row + warp + j) * 4 for x in LANES], wavefronts=waves, ideal=1)
                    emit("tail:2", "st.global", 35, gap=waves + 28, space="global", width=4,
                         addr=[OUT_BASE + ((warp + j) * 1024 + block * 32 + x) * 4 for x in LANES],
                         sectors=4, requests=1)
                    expected.conflicts += waves - 1
                    expected.sectors += 4
                emit("tail:3", "cbr", 36, taken=0x55555555)
                expected.divergent += 1
                emit("exit:0", "ret", 37, mask=0xAAAAAAAA, active=16)
            f.write("\n".join(lines) + "\n")
            expected.records += len(lines)
            block += 1
        f.write(json.dumps({"type": "end", "records": expected.records, "truncated": False}) + "\n")
    return expected


def best_of(repeats: int, fn):
    best, result = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def check(expected: Expected, banks, coal, div) -> str:
    problems = []
    if int(banks["conflicts"].sum()) != expected.conflicts:
        problems.append(f"conflicts {int(banks['conflicts'].sum())} != {expected.conflicts}")
    if int(coal["sectors"].sum()) != expected.sectors:
        problems.append(f"sectors {int(coal['sectors'].sum())} != {expected.sectors}")
    if int(div["divergent"].sum()) != expected.divergent:
        problems.append(f"divergent branches {int(div['divergent'].sum())} != {expected.divergent}")
    return "; ".join(problems)


def engine_trace(path: Path, case_name: str, size: int | None):
    """Trace a suite case on cpu:trace; return (records, a check against the engine's counters)."""
    import numpy as np
    import simt
    from simt import suite
    from simt.suite.case import input_values, to_launch_args
    case = suite.get(case_name)
    inputs, dim, block_dim = case.make_inputs(np.random.default_rng(0), size or case.sizes["small"])
    case.reference(input_values(inputs))
    args = to_launch_args(inputs, simt, "cpu:trace")
    result = simt.launch(case.kernel, dim=dim, inputs=args, device="cpu:trace", block_dim=block_dim,
                         trace=str(path))

    def check_engine(df) -> str:
        got = analysis.trace_metrics(df)
        bad = [k for k in got if k in result.metrics and got[k] != result.metrics[k]]
        return f"differs from the engine on {bad}" if bad else ""
    return result.details["trace"]["records"], check_engine


def pipeline(path):
    """Load once, then every analysis the CLI reports plus the per-line table."""
    df = analysis.load_trace(path)
    return (analysis.bank_conflicts(df), analysis.coalescing(df), analysis.divergence(df),
            analysis.per_line(df))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--quick", action="store_true", help="50,000 records, one repeat")
    parser.add_argument("--padded", action="store_true", help="tile rows of 33 floats (no conflicts)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--case", help="instead of the synthetic trace, trace this suite case "
                                           "on cpu:trace (e.g. transpose_tile)")
    parser.add_argument("--size", type=int, help="problem size for --case (default: its small size)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    n = 50_000 if args.quick else args.records
    repeats = 1 if args.quick else args.repeats

    tmp = Path(tempfile.mkdtemp(prefix="simt-bench-"))
    try:
        path = tmp / "trace.jsonl"
        t = time.perf_counter()
        if args.case:
            n_records, check_engine = engine_trace(path, args.case, args.size)
            source = f"cpu:trace run of {args.case}"
        else:
            expected = write_trace(path, n, args.padded)
            n_records, source = expected.records, "synthetic transpose"
        gz = tmp / "trace.jsonl.gz"
        with open(path, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst)
        size_mb = path.stat().st_size / 1e6
        print(f"trace ({source}): {n_records} records, {size_mb:.1f} MB "
              f"({gz.stat().st_size / 1e6:.1f} MB gzip), written in {time.perf_counter() - t:.1f} s")
        analysis.load_trace(path, chunksize=1000)        # compile or load the scanner first

        rows = []
        secs, df = best_of(repeats, lambda: analysis.load_trace(path))
        rows.append(("load", secs, ""))
        secs, _ = best_of(repeats, lambda: analysis.load_trace(gz))
        rows.append(("load .gz", secs, ""))
        for name in ("bank_conflicts", "coalescing", "divergence", "per_line"):
            secs, _ = best_of(repeats, lambda: getattr(analysis, name)(df))
            rows.append((name, secs, ""))
        secs, lines = best_of(repeats, lambda: analysis.per_line(path))
        rows.append(("per_line(path), chunked", secs, ""))
        secs, (banks, coal, div, lines_df) = best_of(repeats, lambda: pipeline(path))
        wrong = check_engine(df) if args.case else check(expected, banks, coal, div)
        if not lines.equals(lines_df):
            wrong = (wrong + "; " if wrong else "") + "chunked per_line differs from the loaded one"
        rows.append(("pipeline: load + analyses", secs, wrong))

        print(f"\n{'step':<28}{'seconds':>10}{'records/s':>14}")
        results = []
        for name, secs, problem in rows:
            rate = n_records / secs
            print(f"{name:<28}{secs:>10.3f}{rate:>14,.0f}" + (f"   WRONG: {problem}" if problem else ""))
            results.append({"step": name, "seconds": secs, "records_per_s": rate, "wrong": problem})
        load_rate = results[0]["records_per_s"]
        pipe_rate = results[-1]["records_per_s"]
        ok = not wrong and min(load_rate, pipe_rate) >= TARGET_RECORDS_PER_S
        print(f"\ntarget {TARGET_RECORDS_PER_S:,} records/s: load {load_rate:,.0f}, pipeline "
              f"{pipe_rate:,.0f} -> {'met' if ok else 'NOT met' if not wrong else 'WRONG RESULTS'}")
        if args.json:
            Path(args.json).write_text(json.dumps({"records": n_records, "mb": size_mb, "source": source,
                                                   "results": results, "target_met": ok}, indent=2))
        return 0 if not wrong else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
