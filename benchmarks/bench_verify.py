"""simt.verify on the test corpus (tests/formal_corpus): seconds per kernel (median, max),
the share of the correct kernels' checks proved safe, and the mutants' bugs found.

    PYTHONPATH=. python3 benchmarks/bench_verify.py
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import simt  # noqa: E402
from formal_corpus.kernels import PAIRS, SINGLES  # noqa: E402


def main() -> None:
    seconds, proved, checks, found, mutants, wrong = [], 0, 0, 0, 0, []
    seen = set()
    runs = [(k, kw, check) for good, bad, kw, broken in PAIRS
            for k, check in ((good, None), (bad, broken))] + [(k, kw, None) for k, kw in SINGLES]
    for kernel, kw, check in runs:
        if kernel.key in seen:
            continue
        seen.add(kernel.key)
        start = time.perf_counter()
        report = simt.verify(kernel, **kw)
        seconds.append(time.perf_counter() - start)
        verdicts = {c: report.verdict(c) for c in report.checks}
        if check is None:
            checks += len(verdicts)
            proved += sum(v == "safe" for v in verdicts.values())
            if "unsafe" in verdicts.values():
                wrong.append(kernel.key)
        else:
            mutants += 1
            found += verdicts[check] == "unsafe"
        print(f"{kernel.key:28s} {seconds[-1]:6.2f} s  {verdicts}", flush=True)
    print(f"\n{len(seen)} kernels: median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s per kernel")
    print(f"correct kernels' checks proved safe: {proved}/{checks} ({100 * proved / checks:.0f}%)")
    print(f"mutants' bugs found with a replayed counterexample: {found}/{mutants}")
    print(f"correct kernels called unsafe: {len(wrong)} {wrong}")


if __name__ == "__main__":
    main()
