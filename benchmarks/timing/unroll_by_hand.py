"""Does the replay interleave what ptxas interleaves in an unrolled loop? l1_store_data.cu's
whole-line store loop (st1: a warp stores one line a step, a word a lane) with 4 warps a block
on each of 16 SMs takes 21.6 cycles a step on the H200 (data/h200/l1_store_data.csv). ptxas
unrolls that loop 4 times (``simt.sass(st1)``) and interleaves the copies' address arithmetic;
the replay makes U iterations one group and list-schedules their arithmetic
(sass_replay.py; before 97336af it rewrote unrolled loops only where they load, and ran one
iteration after another: 35.6). The same loop unrolled 4 times by hand in simt (simt's own
scheduler interleaves the four copies in the block) is predicted beside it. A diagnosis: it
predicts two launches of each (256 and 1024 steps) and measures nothing. The same for set
17's Kuramoto coupling by a sine a pair (kura_sin@4K, 2 warps an SM; ptxas unrolls its inner
loop 9 times and interleaves about three copies): as written, and with the loop over the tile
unrolled 4 times by hand.

    PYTHONPATH=. python3 benchmarks/timing/unroll_by_hand.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt as wp

from simt.calibrate import fit, ncu_csv

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]
from timing import ncu  # noqa: E402
from timing.blind17 import cases as kura_cases  # noqa: E402
from timing.blind17.kernels import KU_TILE, kuramoto_sin  # noqa: E402
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


@wp.kernel
def kuramoto_sin_by_hand(theta: wp.array(dtype=float), omega: wp.array(dtype=float), kc: float, dt: float,
                         out: wp.array(dtype=float)):
    """blind17's kuramoto_sin with the loop over a tile unrolled 4 times (the sums in the same
    order)."""
    tile = wp.shared.array(shape=(KU_TILE,), dtype=float)
    i = wp.tid()
    t = wp.thread_idx()
    n = theta.shape[0]
    ti = theta[i]
    acc = float(0.0)
    for base in range(0, n, KU_TILE):
        tile[t] = theta[base + t]
        wp.sync_threads()
        for jj in range(KU_TILE // 4):
            j = jj * 4
            s0 = wp.sin(tile[j] - ti)
            s1 = wp.sin(tile[j + 1] - ti)
            s2 = wp.sin(tile[j + 2] - ti)
            s3 = wp.sin(tile[j + 3] - ti)
            acc += s0
            acc += s1
            acc += s2
            acc += s3
        wp.sync_threads()
    out[i] = ti + dt * (omega[i] + kc / float(n) * acc)


def kura_cycles(kernel) -> float:
    """The kernel on kura_sin@4K's inputs (seed 0, as the set's report makes them)."""
    launch = next(x for x in kura_cases.LAUNCHES if x.name == "kura_sin@4K")
    inputs, dim, block = kura_cases.instantiate(launch, "cpu:precise")
    return float(wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:precise").cycles)


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
    meas = ncu.load("blind17").set_index("name").loc["kura_sin@4K", "sm__cycles_elapsed.max"]
    print("kura_sin@4K (set 17): cycles")
    print(f"  H200 (blind17.csv)                    {meas:10,.0f}")
    print(f"  model, as written                     {kura_cycles(kuramoto_sin):10,.0f}")
    print(f"  model, the tile loop unrolled 4x      {kura_cycles(kuramoto_sin_by_hand):10,.0f}")


if __name__ == "__main__":
    main()
