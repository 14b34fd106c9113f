"""How much of a kernel's output the L2 writes back before the kernel ends, by store width and
with or without reads, from simt/calibrate/cuda/l2_write_width.cu's profile: per kernel and
size, the DRAM bytes read and written over the bytes the kernel writes; with ``--model`` simt's
prediction of the same kernels written in simt.

    PYTHONPATH=. python3 benchmarks/timing/l2_write_width.py [--data DIR] [--model] [--arch FILE]

What it asks: the blind sets' image kernels that read one byte image and write another write
2-17 MB more to DRAM on the H200 than simt predicts (simt keeps up to l2_dirty_bytes of dirty
output in the L2 at the kernel's end, from micro.cu's stream_write), while micro.cu's
stream_copy of 16 MB, 16-byte stores, writes back 0.3 MB. Is it the stores' width, or the
reads beside them?

To measure, from the repository root on the GPU's machine (BASE from ncu_metrics.sh; the
step ``l2width`` of gpu_pending.sh does this):
    nvcc -O3 -arch=sm_90 -o /tmp/l2_write_width simt/calibrate/cuda/l2_write_width.cu
    ncu --clock-control none --csv --print-units base --metrics "$BASE" \\
        --log-file l2_write_width.csv /tmp/l2_write_width l2_write_width_manifest.csv
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import simt as wp
from simt.calibrate import ncu_csv

DATA = Path(__file__).parent / "data" / "h100" / "l2_write_width"
BLOCK = 256


@wp.kernel
def copy_int(src: wp.array(dtype=Any), dst: wp.array(dtype=Any), n: int):
    """Each element plus one, u8 or u32 (the .cu's copy_u8 and copy_u32)."""
    i = wp.tid()
    while i < n:
        v = src[i]
        dst[i] = v + type(v)(1)
        i += wp.grid_dim() * wp.block_dim()


@wp.kernel
def copy_u8_wide(src: wp.array(dtype=wp.uint32), dst: wp.array(dtype=wp.uint32), n: int):
    i = wp.tid()
    while i < n:
        v = src[i]
        b0 = (v + wp.uint32(1)) & wp.uint32(0xFF)
        b1 = ((v >> wp.uint32(8)) + wp.uint32(1)) & wp.uint32(0xFF)
        b2 = ((v >> wp.uint32(16)) + wp.uint32(1)) & wp.uint32(0xFF)
        b3 = ((v >> wp.uint32(24)) + wp.uint32(1)) & wp.uint32(0xFF)
        dst[i] = b0 | (b1 << wp.uint32(8)) | (b2 << wp.uint32(16)) | (b3 << wp.uint32(24))
        i += wp.grid_dim() * wp.block_dim()


@wp.kernel
def copy_u128(src: wp.array(dtype=wp.vec4), dst: wp.array(dtype=wp.vec4), n: int):
    i = wp.tid()
    while i < n:
        dst[i] = src[i] + wp.vec4(1.0, 1.0, 1.0, 1.0)
        i += wp.grid_dim() * wp.block_dim()


@wp.kernel
def write_u8(dst: wp.array(dtype=wp.uint8), n: int):
    i = wp.tid()
    while i < n:
        dst[i] = wp.uint8(i)
        i += wp.grid_dim() * wp.block_dim()


@wp.kernel
def write_u32(dst: wp.array(dtype=wp.uint32), n: int):
    i = wp.tid()
    while i < n:
        dst[i] = wp.uint32(i)
        i += wp.grid_dim() * wp.block_dim()


# each kernel of the .cu: the simt kernel, its element's bytes and type (copies read a source of the same)
KERNELS = {"copy_u8": (copy_int, 1, wp.uint8), "copy_u8_wide": (copy_u8_wide, 4, wp.uint32),
           "copy_u32": (copy_int, 4, wp.uint32), "copy_u128": (copy_u128, 16, wp.vec4),
           "write_u8": (write_u8, 1, wp.uint8), "write_u32": (write_u32, 4, wp.uint32)}


def predict(bench: str, mb: int, grid: int, arch: str | None) -> tuple[float, float, float]:
    """simt's (cycles, DRAM bytes read, DRAM bytes written) for one launch of ``bench`` over mb MB."""
    kernel, width, dtype = KERNELS[bench]
    n = (mb << 20) // width
    dst = wp.zeros(n, dtype=dtype)
    args = [wp.zeros(n, dtype=dtype), dst, n] if bench.startswith("copy") else [dst, n]
    extra = {"arch": arch} if arch else {}
    r = wp.launch(kernel, grid * BLOCK, args, block_dim=BLOCK, device="cpu:precise", **extra)
    c = r.metrics
    return float(r.cycles), float(c["dram__bytes_read.sum"]), float(c["dram__bytes_write.sum"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of l2_write_width.csv (default: data/h100/l2_write_width)")
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    ap.add_argument("--arch", help="architecture file for the model (default: the shipped sm_90.json)")
    args = ap.parse_args()
    if not (args.data / "l2_write_width.csv").exists():
        raise SystemExit(f"l2_write_width: not measured in {args.data} (no l2_write_width.csv; "
                         "the command is in this script's docstring)")
    df = ncu_csv.load("l2_write_width", args.data)
    head = f"{'kernel':13s} {'MB':>4s} {'read MB':>8s} {'written MB':>10s} {'kept MB':>8s}"
    print(head + ("  model read  written     kept  cycles ratio" if args.model else ""))
    for _, r in df.sort_values(["bench", "value"], kind="stable").iterrows():
        out = r.work / 2**20
        rd, wr = r["dram__bytes_read.sum"] / 2**20, r["dram__bytes_write.sum"] / 2**20
        line = f"{r.bench:13s} {int(r.value):4d} {rd:8.2f} {wr:10.2f} {out - wr:8.2f}"
        if args.model:
            cyc, mrd, mwr = predict(r.bench, int(r.value), int(r.grid), args.arch)
            line += (f"  {mrd / 2**20:10.2f} {mwr / 2**20:8.2f} {out - mwr / 2**20:8.2f}"
                     f"  {cyc / r['sm__cycles_elapsed.max']:12.2f}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
