"""What a DRAM access costs, from dram_rows.cu's profile (here): per kernel and
chunk size (or streams a warp), the DRAM bytes moved a cycle and a 64-byte piece's DRAM time in
bytes of a stream's reads (the GPU's dram_bytes_per_cycle times the cycles a piece; the chunk
kernels' difference between 16 KB and 4 KB a lane, so the launch's own cost drops out); with
``--model`` simt's prediction of the same kernels written in simt (the 4 KB launches), and the
ratio of the model's cycles to the GPU's.

    PYTHONPATH=. python3 benchmarks/timing/dram_rows.py [--data DIR] [--model] [--arch FILE]

Measured on an H100 80GB HBM3 (data/h100/dram_rows.csv, its manifest and log); to measure,
from the repository root on the GPU's machine (BASE from ncu_metrics.sh):
    nvcc -O3 -arch=sm_90 -o /tmp/dram_rows benchmarks/timing/dram_rows.cu
    ncu --clock-control none --csv --print-units base --metrics "$BASE" \\
        --log-file dram_rows.csv /tmp/dram_rows dram_rows_manifest.csv
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import simt as wp
from atomic_lines import mix32  # the same hash as dram_rows.cu's (and atomic_lines.cu's)
from simt.calibrate import ncu_csv

HERE = Path(__file__).parent
DATA = HERE / "data" / "h100"
ARCH = {"h100": HERE / "data" / "h100" / "calibrated" / "h100.json", "h200": Path(wp.__file__).parent / "arch" / "sm_90.json"}
CYC = "sm__cycles_elapsed.max"
BLOCK = 256
BUFFER = 1 << 30


@wp.kernel
def chunk_ld(p: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32), log2_s: int, n: int):
    """Each lane reads chunks of 2^log2_s bytes at hashed places, one float of each 64 bytes."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    mask = wp.uint32((BUFFER >> log2_s) - 1)
    steps = 1 << (log2_s - 6)
    s = float(0.0)
    for i in range(n):
        c = (int(mix32(t + wp.uint32(i) * lanes) & mask) << log2_s) >> 2
        for j in range(steps):
            s = s + p[c + j * 16]
    out[int(t)] = s


@wp.kernel
def chunk_st(p: wp.array(dtype=wp.vec4), log2_s: int, n: int):
    """The same chunks written, each 64-byte piece whole (four 16-byte stores)."""
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    mask = wp.uint32((BUFFER >> log2_s) - 1)
    steps = 1 << (log2_s - 6)
    for i in range(n):
        c = (int(mix32(t + wp.uint32(i) * lanes) & mask) << log2_s) >> 4
        for j in range(steps):
            for q in range(4):
                p[c + j * 4 + q] = wp.vec4(float(t), float(i), float(j), float(q))


@wp.kernel
def streams(p: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32), log2_g: int, region: int, steps: int):
    """A warp's lanes in 2^log2_g groups, each its own contiguous stream, 64 bytes a lane a step."""
    t = wp.tid()
    lane = t % 32
    per = 32 >> log2_g
    c = ((t // 32) * (1 << log2_g) + lane // per) * region + (lane % per) * 16
    s = float(0.0)
    for j in range(steps):
        s = s + p[c + j * per * 16]
    out[t] = s


def predict(row: dict, arch: str) -> float:
    threads = int(row["grid"]) * BLOCK
    lanes_out = wp.zeros(threads, dtype=wp.float32)
    if row["bench"] == "streams":
        lgg = int(row["value"])
        region = (BUFFER // 4 // ((threads // 32) << lgg)) // (16 * (32 >> lgg)) * (16 * (32 >> lgg))
        steps = region // 16 // (32 >> lgg)
        args = [wp.zeros(BUFFER // 4, dtype=wp.float32), lanes_out, lgg, region, steps]
        kernel = streams
    else:
        lg, kb = int(row["value"]) // 100, int(row["value"]) % 100
        n = (kb << 10) >> lg
        if row["bench"] == "chunk_ld":
            args, kernel = [wp.zeros(BUFFER // 4, dtype=wp.float32), lanes_out, lg, n], chunk_ld
        else:
            args, kernel = [wp.zeros(BUFFER // 16, dtype=wp.vec4), lg, n], chunk_st
    r = wp.launch(kernel, threads, args, block_dim=BLOCK, device="cpu:precise", arch=arch)
    return float(r.cycles)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of dram_rows.csv (default: data/h100)")
    ap.add_argument("--model", action="store_true", help="predict each 4 KB launch and each stream on cpu:precise")
    ap.add_argument("--arch", help="architecture file (default: the GPU's: data/h100/calibrated/h100.json for an "
                                   "H100's folder, else the shipped sm_90.json)")
    args = ap.parse_args()
    if not (args.data / "dram_rows.csv").exists():
        raise SystemExit(f"dram_rows: not measured in {args.data} (no dram_rows.csv; the command is in this "
                         "script's docstring)")
    arch = args.arch or str(ARCH["h100" if args.data.name == "h100" else "h200"])
    bpc = json.loads(Path(arch).read_text())["timing"]["dram_bytes_per_cycle"]
    df = ncu_csv.load("dram_rows", args.data)
    print(f"# {arch}: dram_bytes_per_cycle {bpc}")
    head = f"{'kernel':9s} {'size':>12s} {'DRAM B a cycle':>14s} {'B/piece read':>12s} {'written':>7s} {'piece costs B':>13s}"
    print(head + ("  model cycles  ratio" if args.model else ""))
    for bench, g in df.groupby("bench", sort=False):
        if bench == "streams":
            runs = [(f"{32 >> int(r['value'])} lanes", None, r) for r in g.to_dict("records")]
        else:
            g = g.assign(lg=g.value // 100, kb=g.value % 100)
            runs = [(f"{1 << int(lg)} B chunks", *h.sort_values("kb").to_dict("records"))
                    for lg, h in g.groupby("lg")]
        for label, a, z in runs:
            # a piece's DRAM time: the 16 KB launch less the 4 KB one (a stream: the launch's own)
            dw, dc = (z["work"] - a["work"], z[CYC] - a[CYC]) if a else (z["work"], z[CYC])
            moved = z["dram__bytes_read.sum"] + z["dram__bytes_write.sum"]
            line = (f"{bench:9s} {label:>12s} {moved / z[CYC]:14.0f} {z['dram__bytes_read.sum'] / z['work']:12.1f} "
                    f"{z['dram__bytes_write.sum'] / z['work']:7.1f} {bpc * dc / dw:13.1f}")
            if args.model:
                m = a or z
                c = predict(m, arch)
                line += f"  {c:12.0f}  {c / m[CYC]:5.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
