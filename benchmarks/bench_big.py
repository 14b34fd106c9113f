"""How long cpu:precise takes to predict big launches: a 16M-thread saxpy and an 8M-thread
stride-32 copy (issue 8: under 20 s each on 2 cores), with the timing model off and on.

    PYTHONPATH=. python3 benchmarks/bench_big.py

Prints wall seconds without and with the timing model, their ratio, the predicted cycles and
how much of the grid the model replayed in detail (the rest is extrapolated).
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import simt as wp  # noqa: E402
from timing import cases  # noqa: E402

LAUNCHES = ["saxpy@16M", "copy_stride32@8M"]
TARGET_S = 20.0


def timed(launch, timing: bool):
    wp.set_module_options({"timing": timing})
    return cases.run(launch)


def main() -> int:
    by = cases.by_name()
    small = cases.Launch("warm-up", by["saxpy@4K"].kernel, by["saxpy@4K"].make, "launch")
    timed(small, True)                                     # compile everything first
    ok = True
    print(f"{'launch':20s} {'off s':>7s} {'on s':>7s} {'on/off':>7s} {'cycles':>10s} {'blocks replayed':>16s}")
    for name in LAUNCHES:
        off, _ = timed(by[name], False)
        on, r = timed(by[name], True)
        blocks = r.metrics["simt__sampled_ctas.sum"]
        ok &= on < TARGET_S
        print(f"{name:20s} {off:7.1f} {on:7.1f} {on / off:6.1f}x {r.cycles:>10,d} {blocks:>16,.0f}")
    print(f"\nevery launch predicted in under {TARGET_S:.0f} s: {'PASS' if ok else 'FAIL'}")
    wp.set_module_options({"timing": True})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
