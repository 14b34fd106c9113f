"""Stores of the whole grid to a few hot words (a "something changed" flag): simt's model beside
the H200.

Iterative GPU algorithms end a sweep with a flag that every thread which changed something
sets: label propagation, Bellman-Ford, BFS levels, Jacobi with a tolerance. Every warp stores
1 to the same word. warp_words.py's ``flag`` family measured the flag alone (one warp in
``every`` stores, nothing else): 2.7x its own-word twin at 4M threads. Here the flag comes at
the end of a stream (each thread reads x[i] and writes y[i], the flag stored after the load
returns, as in a sweep), over 1 to 64 hot lines, against the same stream with a word per warp
and with no flag; and a connected-component labelling sweep (blind set 8's ``ccl_propagate``)
against the same sweep without its flag. Written in simt, so that the H200 runs the
instructions (simt's PTX through ptxas) that the model predicts.

Measure once on the GPU, under the profiler (writes the manifest, one row per launch):

    source benchmarks/timing/ncu_metrics.sh
    ncu --clock-control none --print-units base --csv --kernel-name regex:'flag_stream|ccl_' \\
        --metrics "$VALID" --log-file data/h200/hot_stores.csv \\
        python3 benchmarks/timing/hot_stores.py --measure data/h200/hot_stores_manifest.csv

Compare (prints measured and predicted cycles, their ratio, and the model's limiter; the last
output is data/h200/hot_stores.txt):

    PYTHONPATH=. python3 benchmarks/timing/hot_stores.py
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from benchmarks.timing.blind8.cases import blobs  # noqa: E402
from benchmarks.timing.blind8.kernels_ml import ccl_propagate  # noqa: E402

DATA = HERE / "data" / "h200"
NEVER = 1 << 30          # ``every``: no warp but the first stores the flag


@wp.kernel
def flag_stream(x: wp.array(dtype=int), y: wp.array(dtype=int), flag: wp.array(dtype=int), every: int,
                lines: int, own: int, stream: int):
    """With ``stream``, y[i] = x[i] + 1; then one warp in ``every`` stores 1 to a flag: a word
    of its own (``own``), else the first word of one of ``lines`` lines (warp % lines). The
    store waits for the load (its condition reads it), as a sweep's does."""
    i = wp.tid()
    w = i >> 5
    v = int(0)
    if stream != 0:
        v = x[i]
        y[i] = v + 1
    if w % every == 0 and v >= 0:
        f = (w % lines) * 32
        if own != 0:
            f = w * 32
        flag[f] = 1


@wp.kernel
def ccl_propagate_noflag(fg: wp.array2d(dtype=wp.uint8), lin: wp.array2d(dtype=int), lout: wp.array2d(dtype=int),
                         changed: wp.array(dtype=int)):
    """``ccl_propagate`` without its flag: the control of the pair."""
    y, x = wp.tid()
    h = fg.shape[0]
    w = fg.shape[1]
    l = lin[y, x]
    if int(fg[y, x]) != 0:
        m = l
        if y > 0 and int(fg[y - 1, x]) != 0:
            m = wp.min(m, lin[y - 1, x])
        if y + 1 < h and int(fg[y + 1, x]) != 0:
            m = wp.min(m, lin[y + 1, x])
        if x > 0 and int(fg[y, x - 1]) != 0:
            m = wp.min(m, lin[y, x - 1])
        if x + 1 < w and int(fg[y, x + 1]) != 0:
            m = wp.min(m, lin[y, x + 1])
        l = m
    lout[y, x] = l


SIZES = (1 << 22, 1 << 24)
# (every, lines, own): all warps on one line, a quarter of them, 8 and 64 lines, a word a warp
FLAGS = ((1, 1, 0), (4, 1, 0), (1, 8, 0), (1, 64, 0), (1, 1, 1))


def launches():
    """(name, kernel, dim, block, make) in launch order; make(device) gives the inputs."""
    out = []
    for n in SIZES:
        for stream in (0, 1):
            cases = FLAGS + (((NEVER, 1, 0),) if stream else ())
            for every, lines, own in cases:
                tag = "none" if every == NEVER else "own" if own else f"every{every}_lines{lines}"
                out.append((f"{'stream' if stream else 'flag'}_{tag}@{n >> 20}M", flag_stream, n, 256,
                            lambda dev, n=n, every=every, lines=lines, own=own, stream=stream: [
                                wp.array(np.zeros(n if stream else 1, np.int32), device=dev),
                                wp.array(np.zeros(n if stream else 1, np.int32), device=dev),
                                wp.array(np.zeros(n, np.int32), device=dev), every, lines, own, stream]))
    for side in (2048, 4096):
        for kernel in (ccl_propagate, ccl_propagate_noflag):
            def make(dev, side=side):
                rng = np.random.default_rng(0)
                fg = blobs(rng, side, side)
                idx = np.arange(side * side, dtype=np.int64).reshape(side, side)
                lab = np.where(fg != 0, idx, 2**31 - 1).astype(np.int32)
                return [wp.array(a, device=dev) for a in (fg, lab, np.zeros_like(lab), np.zeros(1, np.int32))]
            name = "ccl_flag" if kernel is ccl_propagate else "ccl_noflag"
            out.append((f"{name}@{side}", kernel, (side, side), (8, 32), make))
    return out


def measure(manifest: str) -> None:
    rows = ["launch,case,threads"]
    for name, kernel, dim, block, make in launches():
        inputs = make("cuda")
        wp.synchronize()
        wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block, device="cuda")
        wp.synchronize()
        rows.append(f"{len(rows) - 1},{name},{int(np.prod(dim))}")
    Path(manifest).write_text("\n".join(rows) + "\n")


def compare() -> int:
    from simt.calibrate.ncu_csv import load
    if not (DATA / "hot_stores.csv").exists():
        sys.exit(f"{DATA / 'hot_stores.csv'} does not exist: measure first (this file's header)")
    df = load("hot_stores", DATA)
    cyc = "sm__cycles_elapsed.max"
    lines = [f"{'case':28s} {'H200 cycles':>12s} {'simt':>12s} {'ratio':>6s}  limiter (model)"]
    print(lines[0])
    for (name, kernel, dim, block, make), (_, m) in zip(launches(), df.iterrows()):
        assert m.case == name, (m.case, name)
        r = wp.launch(kernel, dim=dim, inputs=make("cpu:precise"), block_dim=block, device="cpu:precise")
        p = r.metrics[cyc]
        lines.append(f"{name:28s} {m[cyc]:>12,.0f} {p:>12,.0f} {p / m[cyc]:>6.2f}  "
                     f"{r.details['bottleneck']['limiter']}")
        print(lines[-1], flush=True)
    (DATA / "hot_stores.txt").write_text("# PYTHONPATH=. python3 benchmarks/timing/hot_stores.py\n"
                                         + "\n".join(lines) + "\n")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measure", metavar="MANIFEST", help="run every launch on the GPU and write the manifest here")
    a = ap.parse_args()
    if a.measure:
        measure(a.measure)
        return 0
    return compare()


if __name__ == "__main__":
    raise SystemExit(main())
