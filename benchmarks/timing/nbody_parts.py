"""Where n-body's loop spends its cycles, part by part: one warp runs the held-out n-body
kernel's inner loop, and variants of it with a part taken out, at two trip counts so that the
launch cancels (cycles per iteration = (cycles(n2) - cycles(n1)) / (n2 - n1)). A diagnosis of
the model's largest held-out error (n-body at 0.73-0.77 of the H200), not validation and not
calibration: no constant is fitted on it.

    PYTHONPATH=. python3 benchmarks/timing/nbody_parts.py --device cuda --manifest m.csv   # under ncu
    PYTHONPATH=. python3 benchmarks/timing/nbody_parts.py                                   # the model, and
                                                                       # data/h200/nbody_parts.csv if present
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from timing import kernels as K, ncu  # noqa: E402

TRIPS = (64, 256)
CYC = "sm__cycles_elapsed.max"


# n-body's loop (kernels.nbody) with its two parts swappable: where d comes from, and what
# stands for 1 / sqrt(r2)
@wp.func
def from_pos(pos: wp.array(dtype=wp.vec3), j: int, p: wp.vec3):
    return pos[j] - p


@wp.func
def from_index(pos: wp.array(dtype=wp.vec3), j: int, p: wp.vec3):
    return wp.vec3(float(j), 1.0, 2.0) - p


@wp.func
def rsqrt(r2: float):
    return 1.0 / wp.sqrt(r2)


@wp.func
def half(r2: float):
    return r2 * 0.5


@wp.func
def sqrt(r2: float):
    return wp.sqrt(r2)


@wp.func
def reciprocal(r2: float):
    return 1.0 / r2


def loop(delta, inv):
    @wp.kernel
    def part(pos: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3), n: int, eps2: float):
        i = wp.tid()
        p = pos[i]
        a = wp.vec3(0.0, 0.0, 0.0)
        for j in range(n):
            d = delta(pos, j, p)
            r2 = wp.dot(d, d) + eps2
            k = inv(r2)
            a = a + d * (k * k * k)
        acc[i] = a
    return part


# part -> (kernel, warps a block, blocks): one warp alone, except
PARTS = {"full": (K.nbody, 1, 1), "no_sqrt_div": (loop(from_pos, half), 1, 1),
         "sqrt_only": (loop(from_pos, sqrt), 1, 1), "div_only": (loop(from_pos, reciprocal), 1, 1),
         "no_loads": (loop(from_index, rsqrt), 1, 1),
         # four warps on the SM, one a scheduler, reading the same pos[j] (the held-out n-body
         # launches run 4 warps a block)
         "full_4warps": (K.nbody, 4, 1),
         # one warp on each of 16 SMs, every SM's L1 missing the same lines of the one L2
         "full_16sms": (K.nbody, 1, 16)}


def inputs(n: int, device: str):
    pos = np.random.default_rng(7).random((max(n, 512), 3), dtype=np.float32)
    return [wp.array(pos, dtype=wp.vec3, device=device), wp.zeros(512, dtype=wp.vec3, device=device), n,
            np.float32(0.01)]


def launches():
    return [(name, n) for name in PARTS for n in TRIPS]


def launch(name: str, n: int, device: str):
    kernel, warps, blocks = PARTS[name]
    return wp.launch(kernel, 32 * warps * blocks, inputs(n, device), block_dim=32 * warps, device=device)


def run_gpu(device: str, manifest: str) -> None:
    with open(manifest, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["launch", "name", "trips"])
        for k, (name, n) in enumerate(launches()):
            launch(name, n, device)
            wp.synchronize()
            w.writerow([k, name, n])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu:precise")
    ap.add_argument("--manifest", help="with --device cuda: where to write the launch manifest")
    a = ap.parse_args()
    if a.device != "cpu:precise":
        run_gpu(a.device, a.manifest)
        return
    measured = {}
    if (ncu.DATA / "nbody_parts.csv").exists():
        df = ncu.load("nbody_parts")
        measured = {(r["name"], int(r.trips)): float(r[CYC]) for _, r in df.iterrows()}
    print(f"{'part':12s} {'model cyc/iter':>15s} {'H200 cyc/iter':>14s} {'ratio':>6s}")
    for name in PARTS:
        pred = {n: launch(name, n, "cpu:precise").cycles for n in TRIPS}
        per = (pred[TRIPS[1]] - pred[TRIPS[0]]) / (TRIPS[1] - TRIPS[0])
        if (name, TRIPS[1]) in measured:
            m = (measured[(name, TRIPS[1])] - measured[(name, TRIPS[0])]) / (TRIPS[1] - TRIPS[0])
            print(f"{name:12s} {per:15.1f} {m:14.1f} {per / m:6.2f}")
        else:
            print(f"{name:12s} {per:15.1f}")


if __name__ == "__main__":
    main()
