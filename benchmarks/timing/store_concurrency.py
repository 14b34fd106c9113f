"""How fast the L2 takes scattered one-sector stores from the whole GPU, by warps storing on
each SM and by whether a warp stores to the same 32 lines every step or to new ones, on the
H200, from simt/calibrate/cuda/store_concurrency.cu's profile (data/h200/store_concurrency.csv
and its manifest): per kernel and shape (warps a block, blocks), the SM cycles a step of a
warp (the difference between the launches of 1024 and 256 steps, so the launch's own cost
drops out), the cycles a line per SM and the lines a cycle GPU-wide; with ``--model`` simt's
prediction of the same kernels written in simt beside them.

    PYTHONPATH=. python3 benchmarks/timing/store_concurrency.py [--model]

Measured on the H200 at 5675af4 (output: data/h200/store_concurrency.txt); to measure again,
from the repository root (BASE from ncu_metrics.sh; or gpu_pending.sh DIR store):
    nvcc -O3 -arch=sm_90 -o /tmp/store_concurrency simt/calibrate/cuda/store_concurrency.cu
    ncu --clock-control none --csv --print-units base \\
        --metrics "$BASE,lts__t_sectors_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum" \\
        --log-file store_concurrency.csv /tmp/store_concurrency store_concurrency_manifest.csv
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import simt as wp
from simt.calibrate import fit, ncu_csv

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]
from timing.l1_store_data import st32_out as st_same  # noqa: E402  (the warp's own 32 lines every step)

DATA = Path(__file__).parent / "data" / "h200"
LINE = 32
REGION_LINES = 128 * 1024


@wp.kernel
def st_new(dst: wp.array(dtype=float), n: int, lanes: int):
    t = wp.tid()
    for i in range(n):
        line = (t + i * lanes) % REGION_LINES
        dst[line * LINE + (i & 7)] = float(i)


def predict(bench: str, warps: int, blocks: int, steps: int) -> float:
    threads = blocks * warps * 32
    floats = max(threads * LINE, REGION_LINES * LINE)
    dst = wp.array(np.zeros(floats, np.float32), device="cpu:precise")
    kernel, args = (st_same, [dst, steps]) if bench == "st_same" else (st_new, [dst, steps, threads])
    r = wp.launch(kernel, dim=threads, inputs=args, block_dim=32 * warps, device="cpu:precise")
    return float(r.cycles)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    args = ap.parse_args()
    if not (DATA / "store_concurrency.csv").exists():
        raise SystemExit(f"store_concurrency: not measured yet (no {DATA / 'store_concurrency.csv'}; "
                         "the command is in this script's docstring)")
    df = ncu_csv.load("store_concurrency", DATA)
    steps = fit.l1_store_steps(df)       # the same per-step difference as l1_store_data's
    print(f"{'kernel':8s} {'warps':>5s} {'blocks':>6s} {'H200 cycles a step':>19s} {'a line per SM':>14s} "
          f"{'lines a cycle':>13s}" + (f" {'model a step':>13s} {'ratio':>6s}" if args.model else ""))
    for (bench, warps, blocks), per_step in steps.items():
        line = (f"{bench:8s} {warps:5d} {blocks:6d} {per_step:19.1f} {per_step / 32 / warps:14.2f} "
                f"{32 * warps * blocks / per_step:13.1f}")
        if args.model:
            lo, hi = (predict(bench, warps, blocks, n) for n in (256, 1024))
            model = (hi - lo) / 768
            line += f" {model:13.1f} {model / per_step:6.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
