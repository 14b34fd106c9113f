"""Atomics of the whole grid on a few hot words, lanes spread over them at random: simt's model
beside the H200.

A group-by with few groups, a histogram of few bins in global memory, a sum per label: every
warp adds to the same few words, each lane to a word a hash of its thread picks. The atomic
families of simt/calibrate/warp_words.py put a warp's lanes on one word or one word each, in
lines of their own or shared by 32 warps; here all warps share ``words`` words (1 to 64K),
float or integer adds, 4M threads. Written in simt, so that the H200 runs the instructions
(simt's PTX through ptxas) that the model predicts.

Measure once on the GPU, under the profiler (writes the manifest, one row per launch):

    source benchmarks/timing/ncu_metrics.sh
    ncu --clock-control none --print-units base --csv --kernel-name regex:hot_add \\
        --metrics "$VALID,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum" \\
        --log-file data/h200/hot_words.csv \\
        python3 benchmarks/timing/hot_words.py --measure data/h200/hot_words_manifest.csv

Compare (prints measured and predicted cycles, their ratio, and the model's limiter; the last
output is data/h200/hot_words.txt):

    PYTHONPATH=. python3 benchmarks/timing/hot_words.py
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent)]

import simt as wp  # noqa: E402

DATA = HERE / "data" / "h200"
THREADS = 1 << 22
WORDS = (1, 4, 32, 64, 128, 512, 4096, 65536)


@wp.func
def _mix(x: wp.uint32):
    x = (x ^ (x >> wp.uint32(16))) * wp.uint32(0x7FEB352D)
    x = (x ^ (x >> wp.uint32(15))) * wp.uint32(0x846CA68B)
    return x ^ (x >> wp.uint32(16))


@wp.kernel
def hot_add_f32(p: wp.array(dtype=float), mask: int):
    i = wp.tid()
    wp.atomic_add(p, int(_mix(wp.uint32(i)) & wp.uint32(mask)), 1.0)


@wp.kernel
def hot_add_u32(p: wp.array(dtype=wp.uint32), mask: int):
    i = wp.tid()
    wp.atomic_add(p, int(_mix(wp.uint32(i)) & wp.uint32(mask)), wp.uint32(1))


KERNELS = {"f32": (hot_add_f32, np.float32), "u32": (hot_add_u32, np.uint32)}


def launches():
    """(name, kernel, make) in launch order; make(device) gives the inputs."""
    out = []
    for kind, (kernel, dtype) in KERNELS.items():
        for words in WORDS:
            out.append((f"{kind}_w{words}", kernel,
                        lambda dev, dtype=dtype, words=words: [wp.array(np.zeros(max(words, 32), dtype), device=dev),
                                                               words - 1]))
    return out


def measure(manifest: str) -> None:
    rows = ["launch,case,threads"]
    for name, kernel, make in launches():
        inputs = make("cuda")
        wp.synchronize()
        wp.launch(kernel, dim=THREADS, inputs=inputs, block_dim=256, device="cuda")
        wp.synchronize()
        rows.append(f"{len(rows) - 1},{name},{THREADS}")
    Path(manifest).write_text("\n".join(rows) + "\n")


def compare() -> int:
    from simt.calibrate.ncu_csv import load
    if not (DATA / "hot_words.csv").exists():
        sys.exit(f"{DATA / 'hot_words.csv'} does not exist: measure first (this file's header)")
    df = load("hot_words", DATA)
    cyc = "sm__cycles_elapsed.max"
    lines = [f"{'case':12s} {'threads':>9s} {'H200 cycles':>12s} {'simt':>12s} {'ratio':>6s}  limiter (model)"]
    print(lines[0])
    for (name, kernel, make), (_, m) in zip(launches(), df.iterrows()):
        assert m.case == name, (m.case, name)
        r = wp.launch(kernel, dim=THREADS, inputs=make("cpu:precise"), block_dim=256, device="cpu:precise")
        p = r.metrics[cyc]
        lines.append(f"{name:12s} {THREADS:>9,d} {m[cyc]:>12,.0f} {p:>12,.0f} {p / m[cyc]:>6.2f}  "
                     f"{r.details['bottleneck']['limiter']}")
        print(lines[-1], flush=True)
    (DATA / "hot_words.txt").write_text("# PYTHONPATH=. python3 benchmarks/timing/hot_words.py\n"
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
