"""DRAM writes of a kernel that writes more than the L2 keeps dirty, with and without work
before its stores: a copy of 64 or 128 MB whose threads first run ``iters`` dependent sines on
their value. Every case writes the same bytes, so the GPU writes back the same amount
whatever ``iters`` is; simt records only a prefix of the blocks of a long kernel (the
recorder's budget of warp instructions) and must count the rest's write-backs
(model._steady_writebacks).

    # on the GPU, under the profiler (measure.sh part steady_writes)
    ncu ... --log-file steady_writes.csv python3 benchmarks/timing/steady_writes.py --measure steady_writes_manifest.csv
    # simt beside the measurement
    PYTHONPATH=. python3 benchmarks/timing/steady_writes.py
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import simt as wp

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "h200"
SIZES = (1 << 24, 1 << 25)          # floats: 64 and 128 MB each way
ITERS = (0, 64, 256)


@wp.kernel
def copy_after_work(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for _ in range(iters):
        v = wp.sin(v) * 1.01
    y[i] = v


def launches():
    """(name, n, iters) in launch order."""
    return [(f"copy{n >> 20}M_work{it}", n, it) for n in SIZES for it in ITERS]


def run(name, n, iters, device):
    x = wp.array(np.full(n, 0.5, np.float32), device=device)
    y = wp.zeros(n, dtype=float, device=device)
    return wp.launch(copy_after_work, dim=n, inputs=[x, y, iters], block_dim=256, device=device)


def measure(manifest: str) -> None:
    rows = ["launch,case,n,iters"]
    for name, n, iters in launches():
        run(name, n, iters, "cuda")
        wp.synchronize()
        rows.append(f"{len(rows) - 1},{name},{n},{iters}")
    Path(manifest).write_text("\n".join(rows) + "\n")


def compare() -> int:
    from simt.calibrate.ncu_csv import load
    if not (DATA / "steady_writes.csv").exists():
        sys.exit(f"{DATA / 'steady_writes.csv'} does not exist: measure first (this file's header)")
    df = load("steady_writes", DATA)
    cyc = "sm__cycles_elapsed.max"
    print(f"{'case':20s} {'H200 cycles':>12s} {'simt':>12s} {'ratio':>6s} {'write MB':>9s} {'simt':>7s} "
          f"{'read MB':>8s} {'simt':>7s}")
    for (name, n, iters), (_, m) in zip(launches(), df.iterrows()):
        assert m.case == name, (m.case, name)
        p = run(name, n, iters, "cpu:precise").metrics
        print(f"{name:20s} {m[cyc]:>12,.0f} {p[cyc]:>12,.0f} {p[cyc] / m[cyc]:>6.2f} "
              f"{m['dram__bytes_write.sum'] / 1e6:>9.1f} {p['dram__bytes_write.sum'] / 1e6:>7.1f} "
              f"{m['dram__bytes_read.sum'] / 1e6:>8.1f} {p['dram__bytes_read.sum'] / 1e6:>7.1f}", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measure", metavar="MANIFEST", help="run every launch on the GPU and write the manifest")
    a = ap.parse_args()
    if a.measure:
        measure(a.measure)
        return 0
    return compare()


if __name__ == "__main__":
    raise SystemExit(main())
