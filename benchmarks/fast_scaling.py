"""What a second core gives the fast engine's compiled code, with no engine in between: each
Warp-compatible suite kernel's compiled blocks (the launch's own ``run_chunk``) run over the
whole grid on one OS thread, then as two halves on two threads (the second a worker thread already
started, woken per run as the engine's pool is), best of ``--repeats``. Kernels with global
atomics are left out (their one-thread code would race on two).

This is the ceiling of ``bench_fast.py``'s "second core's share": where two threads on
halves of the grid are less than 2x one thread, the machine (two vCPUs sharing a core's
resources, or memory) is the limit, not the engine's scheduling.

    PYTHONPATH=. python3 benchmarks/fast_scaling.py [--repeats 20] [--cases a,b]
"""
from __future__ import annotations

import argparse
import math
import os
from concurrent.futures import ThreadPoolExecutor
import time

import numpy as np


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--cases", default="")
    args = p.parse_args()
    import simt
    from simt import suite
    from simt.sim.fast import engine
    from simt.suite.case import to_launch_args
    wanted = [c for c in args.cases.split(",") if c]
    print(f"{'kernel':18s} {'threads':>9s} {'1 thread ms':>12s} {'2 threads ms':>13s} {'scaling':>8s}")
    ratios = []
    pool = ThreadPoolExecutor(max_workers=1)
    pool.submit(time.sleep, 0).result()         # its thread started before any clock
    for case in [c for c in suite.CASES if c.warp_compatible and (not wanted or c.name in wanted)]:
        if engine.compile_function(case.kernel.compile()).gen.has_global_atomics:
            continue      # the one-thread code's plain read-modify-writes: halves would race
        inputs, dim, block = case.make_inputs(np.random.default_rng(0), case.sizes["large"])
        launch_args = to_launch_args(inputs, simt, "cpu")
        captured = {}
        serial = engine._run_serial

        def spy(run_chunk, n_blocks, progress):
            captured.update(run_chunk=run_chunk, n=n_blocks)
            return serial(run_chunk, n_blocks, progress)

        saved = engine._WORKERS
        engine._WORKERS, engine._run_serial = 1, spy
        try:
            simt.launch(case.kernel, dim=dim, inputs=launch_args, device="cpu", block_dim=block)
            simt.launch(case.kernel, dim=dim, inputs=launch_args, device="cpu", block_dim=block)
        finally:
            engine._WORKERS, engine._run_serial = saved, serial
        run_chunk, n = captured["run_chunk"], captured["n"]

        def one():
            start = time.perf_counter()
            run_chunk(0, n)
            return time.perf_counter() - start

        def two():
            start = time.perf_counter()
            other = pool.submit(run_chunk, n // 2, n)
            run_chunk(0, n // 2)
            other.result()
            return time.perf_counter() - start

        a = min(one() for _ in range(args.repeats))
        b = min(two() for _ in range(args.repeats))
        ratios.append(a / b)
        print(f"{case.name:18s} {int(np.prod(dim)):9d} {a * 1e3:12.3f} {b * 1e3:13.3f} {a / b:7.2f}x", flush=True)
    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"two threads on halves against one on the whole grid: geometric mean {gm:.2f}x "
          f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
