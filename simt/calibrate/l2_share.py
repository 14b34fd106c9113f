"""Lines that several SMs read at about the same time, written as simt kernels: how many of
their reads the L2 serves once for all, and how close in time two SMs' reads of a line must be.

cuda/l2_share.cu shows it on the GPU with loads through the L2 only: blocks that share a 16 KB
region (S blocks on S SMs) ask for the same 34.6M sectors whatever S is, yet the L2 counts
18.0M read sectors at S = 2 and 10.3M at S = 132 (an H100), and serves 2.6 times the
stream's bytes a cycle. Here the same reads go through the L1, as a user's kernel's do: a
block of 256 threads reads a 16 KB slice of its group's 256 KB region each pass (four 16-byte
loads a lane), the 16 slices in turn, four blocks an SM, so that an SM's 1 MB miss in its L1
every pass; blocks b, ..., b + S - 1 share a region (S >= 4: 33 MB in all at S = 4, which
stays in the L2; micro.cu's tput_l2 is the stream that no two SMs share). PASSES[0] and
PASSES[1] passes: the difference is the passes' cost alone.

    python3 -m simt.calibrate.l2_share --measure MANIFEST      # every launch once, on the GPU

(under Nsight Compute: benchmarks/timing/gpu_pending.sh's l2share step); the manifest names
each launch (share, passes). benchmarks/timing/l2_share.py prints the GPU's table beside simt's
replay and fits timing.l2_merge_window_cycles.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import simt as wp

from . import measure_main

BLOCK = 256
BLOCKS_PER_SM = 4
SLICE = 16 << 10                 # bytes a block reads a pass
SLICES = 16                      # slices a region: 256 KB, four blocks an SM 1 MB
SHARES = (4, 8, 16, 33, 132)
PASSES = (8, 32)


@wp.kernel
def l2_share(src: wp.array(dtype=wp.vec4), share: int, passes: int, out: wp.array(dtype=float)):
    """Block b reads the region of group b / share, a slice a pass (SLICE bytes, four loads a
    lane, all issued before the first is used), its 16 slices in turn."""
    t = wp.tid()
    b = t // 256
    lane = t - b * 256
    base = (b // share) * 16384 + lane                # 16,384 vec4: a 256 KB region
    acc = wp.vec4(0.0, 0.0, 0.0, 0.0)
    for i in range(passes):
        o = base + (i % 16) * 1024
        v0 = src[o]
        v1 = src[o + 256]
        v2 = src[o + 512]
        v3 = src[o + 768]
        acc = acc + v0 + v1 + v2 + v3
    out[t] = acc[0] + acc[1] + acc[2] + acc[3]


def launches(n_sm: int, device: str = "cpu:precise"):
    """(share, passes, grid threads, inputs) in launch order."""
    threads = n_sm * BLOCKS_PER_SM * BLOCK
    groups = n_sm * BLOCKS_PER_SM
    src = wp.array(np.ones((groups * SLICES * SLICE // 16, 4), np.float32), dtype=wp.vec4, device=device)
    out = wp.zeros(threads, dtype=float, device=device)
    return [(s, n, threads, [src, s, n, out]) for s in SHARES for n in PASSES]


def measure(manifest: str) -> None:
    from .device import query
    n_sm = int(query(0)["sm_count"])
    rows = ["launch,share,passes"]
    for s, n, threads, inputs in launches(n_sm, "cuda"):
        wp.launch(l2_share, dim=threads, inputs=inputs, block_dim=BLOCK, device="cuda")
        wp.synchronize()
        rows.append(f"{len(rows) - 1},{s},{n}")
    Path(manifest).write_text("\n".join(rows) + "\n")


def main(argv=None) -> int:
    return measure_main(__doc__.splitlines()[0], measure, argv)


if __name__ == "__main__":
    raise SystemExit(main())
