"""The timing issue's mat-vec pair on cpu:precise, with loops replayed in ptxas's order and in
program order: a column walk (thread i reads column i: coalesced) against a row walk (thread
i reads row i), 4096x4096 floats, 4096 threads in 16 blocks of 256, and column sums of the
same shape. The H200 ran the column walk in 965,536 cycles and the row walk about 1.18x
slower (the issue's measurement; not in data/h200/validation.csv).

    PYTHONPATH=. python3 benchmarks/timing/matvec_pair.py [n]
"""
from __future__ import annotations

import sys

import numpy as np

import simt as wp


@wp.kernel
def matvec_col(A: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):
        s += A[k * n + i] * x[k]
    y[i] = s


@wp.kernel
def matvec_row(A: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):
        s += A[i * n + k] * x[k]
    y[i] = s


@wp.kernel
def column_sums(A: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    j = wp.tid()
    s = float(0.0)
    for i in range(n):
        s += A[i * n + j]
    y[j] = s


def main(n: int = 4096) -> None:
    rng = np.random.default_rng(0)
    A = wp.array(rng.random(n * n, dtype=np.float32))
    x = wp.array(rng.random(n, dtype=np.float32))
    launches = {"matvec_col": (matvec_col, lambda: [A, x, wp.zeros(n), n]),
                "matvec_row": (matvec_row, lambda: [A, x, wp.zeros(n), n]),
                "column_sums": (column_sums, lambda: [A, wp.zeros(n), n])}
    cycles = {}
    print(f"{'kernel':<13} {'replay':<14} {'cycles':>11}  loops (MIR block, unroll, SASS loads before first use)")
    for sass in (True, False):
        wp.set_module_options({"timing_sass": sass})
        for name, (kernel, inputs) in launches.items():
            r = wp.launch(kernel, dim=n, inputs=inputs(), block_dim=256, device="cpu:precise")
            s = r.details["timing_schedule"]
            cycles[name, sass] = r.cycles
            loops = [(g["block"], g["unroll"], g["loads_in_flight"]) for g in s["loops"]]
            print(f"{name:<13} {s['replay']:<14} {r.cycles:>11,}  {loops}", flush=True)
    wp.set_module_options({"timing_sass": True})
    for sass in (True, False):
        print(f"row / column walk, {'SASS order' if sass else 'program order'}: "
              f"{cycles['matvec_row', sass] / cycles['matvec_col', sass]:.2f} (H200: 1.18)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4096)
