"""simt.sweep's process pool against the ideal: a 100-point sweep on 2 cores should take the
points' own time divided by the cores (or the slowest point, when that is longer), plus a few
seconds for starting the workers (each imports simt and compiles the timing model once).

    PYTHONPATH=. python3 benchmarks/bench_sweep.py [--workers 2] [--dask]

First every point runs in this process on one core, one after another (after one warm-up
launch), which gives each point's time; then the same sweep runs on the pool (``--dask``: also on a Dask
LocalCluster of as many worker processes). Prints the wall time of each against the ideal.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import simt as wp


@wp.kernel
def strided_scale(a: wp.array(dtype=float), b: wp.array(dtype=float), stride: int):
    i = wp.tid()
    n = a.shape[0]
    b[i] = 2.0 * a[(i * stride) % n] + b[i]


N = 1 << 18


def setup(block_dim, stride):
    return dict(kernel=strided_scale, dim=N, block_dim=block_dim, inputs=[
        wp.array(np.arange(N, dtype=np.float32)), wp.zeros(N), stride])


SPACE = {"block_dim": [32, 64, 96, 128, 192, 256, 384, 512, 768, 1024], "stride": list(range(1, 11))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dask", action="store_true", help="also on a Dask LocalCluster of --workers processes")
    args = ap.parse_args()
    import numba
    numba.set_num_threads(1)         # a point on one core, as each of the pool's workers runs it
    wp.launch(**setup(256, 1), device="cpu:precise")                     # warm this process up
    serial = wp.sweep(setup, SPACE, workers=0, progress=False)
    points = serial.wall_s
    cores = args.workers
    ideal = max(points.sum() / cores, points.max())
    print(f"{len(serial)} points, one after another in this process: {points.sum():.1f} s "
          f"(median point {points.median():.2f} s, slowest {points.max():.2f} s)")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"ideal on {cores} cores: max(sum / cores, slowest) = {ideal:.1f} s")

    t0 = time.perf_counter()
    pooled = wp.sweep(setup, SPACE, workers=cores, progress=False)
    wall = time.perf_counter() - t0
    assert (pooled.cycles == serial.cycles).all(), "the pool's rows differ from this process's"
    print(f"process pool of {cores}: {wall:.1f} s = ideal + {wall - ideal:.1f} s ({wall / ideal:.2f}x the ideal); "
          f"the points took {pooled.wall_s.sum() - points.sum():+.1f} s more in the workers than here "
          f"(each worker's first launch imports the engine and loads numba's machine code)")

    if args.dask:
        from distributed import Client, LocalCluster
        t0 = time.perf_counter()
        with LocalCluster(n_workers=cores, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            started = time.perf_counter() - t0
            t1 = time.perf_counter()
            on_dask = wp.sweep(setup, SPACE, client=client, progress=False)
            wall = time.perf_counter() - t1
        assert (on_dask.cycles == serial.cycles).all(), "Dask's rows differ from this process's"
        print(f"Dask LocalCluster of {cores} (started in {started:.1f} s): {wall:.1f} s = ideal + "
              f"{wall - ideal:.1f} s ({wall / ideal:.2f}x the ideal); the points took "
              f"{on_dask.wall_s.sum() - points.sum():+.1f} s more in the workers than here")


if __name__ == "__main__":
    main()
