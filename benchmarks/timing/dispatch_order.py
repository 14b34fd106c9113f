"""Which blocks share an SM in a launch's first wave: the H200 (measured by dispatch_order.cu,
data/h200/dispatch_order.txt) against the timing model's block scheduler, which starts block c
on SM c mod 132 round after round.

The model is not fitted to this: it is the evidence for a known gap. Only which blocks share an
SM matters (SMs are alike), and that changes predictions only when blocks carry unequal work
(an escape-time fractal, say): two heavy blocks on one SM make that SM the last to finish.

    PYTHONPATH=. python3 benchmarks/timing/dispatch_order.py
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "h200" / "dispatch_order.txt"
N_SM = 132


def groups(sm_of_block: list[int]) -> set[tuple[int, ...]]:
    """The sets of blocks that ran on one SM."""
    by_sm = defaultdict(list)
    for block, sm in enumerate(sm_of_block):
        by_sm[sm].append(block)
    return {tuple(g) for g in by_sm.values()}


def main() -> None:
    print(f"{'launch':34s} {'SMs':>4s} {'most/SM':>7s} {'SM groups as the model pairs them':>34s} {'same each run':>13s}")
    runs = defaultdict(list)
    for line in DATA.read_text().splitlines():
        head, values = line.split(":")
        runs[head.rsplit(" rep", 1)[0]].append([int(v) for v in values.split()])
    for launch, reps in runs.items():
        hw = groups(reps[0])
        model = groups([b % N_SM for b in range(len(reps[0]))])
        stable = all(groups(r) == hw for r in reps[1:])
        most = max(len(g) for g in hw)
        print(f"{launch:34s} {len(hw):4d} {most:7d} {len(hw & model):>20d} of {len(hw):<11d} {str(stable):>13s}")


if __name__ == "__main__":
    main()
