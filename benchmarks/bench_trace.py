"""Speed of the timing model and of trace writing on cpu:precise / cpu:trace.

Prints, for a few suite kernels at a benchmark size:
- warp instructions per second with the timing model off and on, and the slowdown
  (target: timing model at most 2x slower);
- trace records written per second (target: at least 200,000), counting the whole traced
  launch, and the write cost alone (traced time minus untraced time).
Run: PYTHONPATH=. python3 benchmarks/bench_trace.py [--size N] [--kernels a,b]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

import simt
from simt import suite
from simt.suite.case import to_launch_args

KERNELS = ["mandelbrot", "transpose_tile", "matmul_tiled", "histogram_shared", "stencil_2d"]


def launch(case, size, device, **kw):
    inputs, dim, block = case.make_inputs(np.random.default_rng(0), size)
    args = to_launch_args(inputs, simt, device)
    t = time.perf_counter()
    r = simt.launch(case.kernel, dim, args, device=device, block_dim=block, **kw)
    return time.perf_counter() - t, r


def best(fn, repeats):
    runs = [fn() for _ in range(repeats)]
    return min(runs, key=lambda x: x[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=0, help="problem size (default: each case's large)")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    ok = True
    slowdowns = []
    print(f"{'kernel':18s} {'warp inst':>10s} {'off Minst/s':>11s} {'on Minst/s':>11s} {'slowdown':>8s} "
          f"{'records':>9s} {'rec/s (launch)':>14s} {'rec/s (write)':>13s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.kernels.split(","):
            case = suite.get(name)
            size = a.size or case.sizes.get("large", case.sizes["small"])
            launch(case, size, "cpu:precise")                           # compile
            simt.set_module_options({"timing": False})
            t_off, r = best(lambda: launch(case, size, "cpu:precise"), a.repeats)
            simt.set_module_options({"timing": True})
            t_on, r = best(lambda: launch(case, size, "cpu:precise"), a.repeats)
            path = os.path.join(tmp, f"{name}.jsonl")
            t_tr, rt = best(lambda: launch(case, size, "cpu:trace", trace=path), 1)
            inst = r.metrics["smsp__inst_executed.sum"]
            recs = rt.details["trace"]["records"]
            write_rate = recs / max(1e-9, t_tr - t_on)
            slow = t_on / t_off
            slowdowns.append(slow)
            ok &= recs / t_tr >= 200_000
            print(f"{name:18s} {inst:10d} {inst / t_off / 1e6:11.2f} {inst / t_on / 1e6:11.2f} "
                  f"{slow:7.2f}x {recs:9d} {recs / t_tr:14,.0f} {write_rate:13,.0f}")
    geo = float(np.exp(np.mean(np.log(slowdowns))))
    print(f"\ntiming model slowdown: geometric mean {geo:.2f}x, worst {max(slowdowns):.2f}x "
          f"(target <= 2x): {'PASS' if geo <= 2.0 else 'FAIL'}")
    print("trace records/s >= 200,000 on every kernel:", "PASS" if ok else "FAIL")
    return 0 if ok and geo <= 2.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
