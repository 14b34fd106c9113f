"""The sanitizers: what checking costs, and whether simt agrees with compute-sanitizer.

1. Cost: the precise engine with ``check="all"`` against the same engine without checks, on
   suite kernels at their benchmark size, best of --repeats (target: at most 3x slower).
2. Agreement: every kernel of the sanitizer corpus (tests/sanitizer/sanitizer_corpus.py) run
   with ``check="all"``, set against the verdict the corpus expects and, when
   tests/sanitizer/compute_sanitizer.csv exists (written on a GPU by
   tests/sanitizer/gpu_sanitizer.py), against compute-sanitizer's racecheck, initcheck and
   synccheck on simt's own PTX. Every disagreement is printed with its explanation.

Run: PYTHONPATH=. python3 benchmarks/bench_sanitizer.py [--size N] [--kernels a,b] [--csv PATH]
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import simt
from simt import suite
from simt.suite.case import to_launch_args

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "sanitizer"))

KERNELS = ["mandelbrot", "block_sum_shared", "transpose_tile", "matmul_tiled", "histogram_shared",
           "stencil_2d", "saxpy"]
TOOL_OF = {"race": "racecheck", "init": "initcheck", "sync": "synccheck"}


# ---- 1. cost ---------------------------------------------------------------------------------

def timed_launch(case, size, check):
    inputs, dim, block = case.make_inputs(np.random.default_rng(0), size)
    args = to_launch_args(inputs, simt, "cpu:precise")
    t = time.perf_counter()
    r = simt.launch(case.kernel, dim, args, device="cpu:precise", block_dim=block, check=check)
    return time.perf_counter() - t, r


def cost(kernels: list[str], size: int, repeats: int) -> bool:
    print("1. cost of check='all' on cpu:precise (timing model on in both), best of "
          f"{repeats}\n")
    print(f"{'kernel':18s} {'size':>7s} {'warp inst':>10s} {'plain s':>8s} {'checked s':>9s} "
          f"{'slowdown':>8s}")
    ratios = []
    for name in kernels:
        case = suite.get(name)
        n = size or case.sizes.get("large", case.sizes["small"])
        timed_launch(case, n, None)                 # compile, warm numba
        timed_launch(case, n, "all")
        plain = min(timed_launch(case, n, None)[0] for _ in range(repeats))
        checked, r = min((timed_launch(case, n, "all") for _ in range(repeats)), key=lambda x: x[0])
        ratios.append(checked / plain)
        print(f"{name:18s} {n:7d} {int(r.metrics['smsp__inst_executed.sum']):10d} {plain:8.3f} "
              f"{checked:9.3f} {checked / plain:7.2f}x")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    worst = max(ratios)
    print(f"\ngeometric mean slowdown {geo:.2f}x, worst {worst:.2f}x (target: at most 3x)")
    return worst <= 3.0


# ---- 2. agreement ----------------------------------------------------------------------------

def simt_verdicts(case) -> tuple[set[str], dict[str, list[str]]]:
    dim, inputs, block = case.make("cpu:precise")
    h = simt.launch(case.kernel, dim=dim, inputs=inputs, block_dim=block, check="all").hazards
    marks = {line: name for name, line in case.marker_lines().items()}
    lines: dict[str, list[str]] = {}
    for row in h.itertuples():
        shown = (row.line, row.other_line) if row.check == "race" else (row.line,)
        names = [marks.get(int(x), f"L{int(x)}") for x in shown if not pd.isna(x)]
        lines.setdefault(row.check, []).append("/".join(sorted(set(names))))
    return set(h.check), lines


def read_gpu(path: Path) -> dict[tuple[str, str], dict] | None:
    if not path.exists():
        return None
    with open(path) as f:
        return {(row["case"], row["tool"]): row for row in csv.DictReader(f)}


def agreement(csv_path: Path) -> bool:
    from sanitizer_corpus import CASES
    gpu = read_gpu(csv_path)
    print(f"\n2. agreement on the corpus ({len(CASES)} kernels): expected verdict, simt, "
          "compute-sanitizer")
    if gpu is None:
        print(f"   compute-sanitizer: not measured yet ({csv_path.relative_to(ROOT)} is absent; "
              "run tests/sanitizer/gpu_sanitizer.py on a GPU)")
    print()
    print(f"{'case':32s} {'expected':9s} {'simt':9s} {'simt lines':18s} "
          f"{'racecheck':>10s} {'initcheck':>10s} {'synccheck':>10s}")
    simt_ok = gpu_agree = gpu_total = 0
    false_positives = 0
    notes: list[str] = []
    for case in CASES:
        got, lines = simt_verdicts(case)
        simt_ok += got == set(case.expect)
        false_positives += bool(got) and not case.expect
        cells = []
        for check, tool in TOOL_OF.items():
            if gpu is None:
                cells.append("-")
                continue
            row = gpu.get((case.name, tool))
            if row is None:
                cells.append("missing")
                continue
            verdict = row["verdict"]
            cells.append(verdict)
            expected = check in case.expect
            if verdict not in ("reported", "clean"):
                notes.append(f"{case.name} / {tool}: {verdict} (status {row['status']}): "
                             f"{explain_failure(case, tool)}")
                continue
            gpu_total += 1
            if (verdict == "reported") == expected:
                gpu_agree += 1
                continue
            why = case.gpu_differs.get(tool)
            notes.append(f"{case.name} / {tool}: compute-sanitizer says {verdict}, expected "
                         f"{'a report' if expected else 'none'}: "
                         + (why or "UNEXPLAINED: look at the raw output of gpu_sanitizer.py"))
        shown = " ".join(f"{c}:{','.join(v)}" for c, v in sorted(lines.items()))
        print(f"{case.name:32s} {','.join(sorted(case.expect)) or 'clean':9s} "
              f"{','.join(sorted(got)) or 'clean':9s} {shown[:18]:18s} "
              + " ".join(f"{c:>10s}" for c in cells))
    print(f"\nsimt matches the expected verdict on {simt_ok} of {len(CASES)} kernels; "
          f"false positives on race-free kernels: {false_positives}")
    if gpu is not None:
        print(f"compute-sanitizer matches the expected verdict on {gpu_agree} of {gpu_total} "
              "(case, tool) pairs it completed")
    if notes:
        print("\nwhere compute-sanitizer differs from the expected verdict, and why:")
        for n in notes:
            print(f"  - {n}")
    return simt_ok == len(CASES) and false_positives == 0


def explain_failure(case, tool: str) -> str:
    if "sync" in case.expect:
        return ("the kernel misuses a barrier or warp intrinsic: on the GPU that is undefined "
                "behaviour, and the process may hang or fault before the tool reports")
    return "the run did not complete: see the raw output"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=0, help="problem size (default: each case's large)")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--csv", default=str(ROOT / "tests" / "sanitizer" / "compute_sanitizer.csv"))
    ap.add_argument("--skip-cost", action="store_true")
    a = ap.parse_args()
    ok = True
    if not a.skip_cost:
        ok &= cost(a.kernels.split(","), a.size, a.repeats)
    ok &= agreement(Path(a.csv))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
