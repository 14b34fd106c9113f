"""Does the replay miss ptxas's unrolling of a store loop? l1_store_data.cu's whole-line store
loop (st1: a warp stores one line a step, a word a lane) with 4 warps a block on each of 16
SMs takes 21.6 cycles a step on the H200 (data/h200/l1_store_data.csv); simt's model of the
kernel as written says 35.6. ptxas unrolls that loop 4 times (``simt.sass(st1)``), and the
replay, which rewrites unrolled loops only where they load (sass_replay.py), runs one
iteration after another, each waiting out its chain of integer ops and its branch. The same
loop unrolled 4 times by hand in simt (simt's own scheduler interleaves the four copies in
the block) is predicted here beside it. A diagnosis: it predicts two launches of each (256
and 1024 steps) and measures nothing.

    PYTHONPATH=. python3 benchmarks/timing/unroll_by_hand.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt as wp

from simt.calibrate import fit, ncu_csv

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]
from timing.l1_store_data import DATA, LINE, st1  # noqa: E402

WARPS, SMS = 4, 16


@wp.kernel
def st1_by_hand(dst: wp.array(dtype=float), n: int):
    """st1 with its loop unrolled 4 times (n a multiple of 4)."""
    t = wp.tid()
    b = (t >> 5) * 32 * LINE
    lane = t & 31
    for k in range(n // 4):
        i = k * 4
        dst[b + (i & 31) * LINE + lane] = float(i)
        dst[b + ((i + 1) & 31) * LINE + lane] = float(i + 1)
        dst[b + ((i + 2) & 31) * LINE + lane] = float(i + 2)
        dst[b + ((i + 3) & 31) * LINE + lane] = float(i + 3)


def per_step(kernel) -> float:
    cycles = []
    for n in (256, 1024):
        dst = wp.array(np.zeros(SMS * WARPS * 32 * LINE, np.float32), device="cpu:precise")
        cycles.append(wp.launch(kernel, dim=SMS * WARPS * 32, inputs=[dst, n], block_dim=32 * WARPS,
                                device="cpu:precise").cycles)
    return (cycles[1] - cycles[0]) / 768


def main() -> None:
    h200 = fit.l1_store_steps(ncu_csv.load("l1_store_data", DATA))[("st1", WARPS, SMS)]
    print(f"st1, {WARPS} warps on each of {SMS} SMs: cycles a step")
    print(f"  H200 (l1_store_data.csv)              {h200:6.1f}")
    print(f"  model, the loop as written            {per_step(st1):6.1f}")
    print(f"  model, the loop unrolled 4x by hand   {per_step(st1_by_hand):6.1f}")


if __name__ == "__main__":
    main()
