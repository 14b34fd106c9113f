"""Regenerate the sample traces and the plots of traces/README.md.

    PYTHONPATH=. python3 traces/make_samples.py

Writes, next to this file:
- transpose_tile.jsonl.gz         CUDA's transposeCoalesced on a 64x64 matrix (32x32 tile)
- transpose_tile_padded.jsonl.gz  the same with the 32x33 tile (transposeNoBankConflicts)
- nested_branches.jsonl.gz        the suite's branchy kernel on 256 values (divergence)
- transpose_banks.png             lane-by-bank heatmaps of the tile load, unpadded | padded
- transpose_line_conflicts.png    shared-memory wavefronts per source line, unpadded | padded
- nested_branches_timeline.png    issue timeline of the divergence sample's first block

Every trace is complete (no filters), so trace_metrics can recompute all of the launch's
counters from it. The files are byte-for-byte reproducible: inputs come from fixed data,
simulated device addresses from a per-process bump allocator that this script is the first
to use, the gzip header carries no time stamp, and the header's ``source`` is written
relative to the repository (the engine writes the absolute path of the kernel's file).
"""
from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

import simt                                            # noqa: E402
from simt import analysis                             # noqa: E402
from simt.suite import cuda_style, portable           # noqa: E402

MATRIX = 64          # transpose samples: a 64x64 float32 matrix, 2x2 blocks of 8x32 threads
BRANCH_VALUES = 256  # divergence sample: 256 int32 values in 4 blocks of 64 threads
SEED = 0

TRANSPOSE = "transpose_tile.jsonl.gz"
TRANSPOSE_PADDED = "transpose_tile_padded.jsonl.gz"
BRANCHES = "nested_branches.jsonl.gz"


def transpose_sample(kernel, name: str) -> simt.LaunchResult:
    """One 64x64 transpose; each block stages a 32x32 tile through shared memory."""
    src = np.arange(MATRIX * MATRIX, dtype=np.float32).reshape(MATRIX, MATRIX)
    a = simt.array(src, dtype=simt.float32)
    b = simt.array(np.zeros_like(src), dtype=simt.float32)
    # each thread moves 4 elements, so the launch is (64/4) x 64 threads in blocks of (8, 32)
    result = traced_launch(kernel, name, dim=(MATRIX // 4, MATRIX), inputs=[a, b], block_dim=(8, 32))
    if not np.array_equal(b.numpy(), src.T):
        raise AssertionError(f"{kernel.key} did not transpose the matrix")
    return result


def branches_sample(name: str) -> simt.LaunchResult:
    values = np.random.default_rng(SEED).integers(0, 100, BRANCH_VALUES).astype(np.int32)
    a = simt.array(values, dtype=simt.int32)
    out = simt.array(np.zeros(BRANCH_VALUES, np.int32), dtype=simt.int32)
    return traced_launch(portable.nested_branches, name, dim=BRANCH_VALUES, inputs=[a, out], block_dim=64)


def traced_launch(kernel, name: str, **launch_args) -> simt.LaunchResult:
    """Launch on cpu:trace into a temporary file, then store it reproducibly as ``name``."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "trace.jsonl"
        result = simt.launch(kernel, device="cpu:trace", trace=str(raw), **launch_args)
        write_reproducibly(raw, HERE / name)
    return result


def write_reproducibly(raw: Path, out: Path) -> None:
    with raw.open("rb") as f:
        header = json.loads(f.readline())
        rest = f.read()
    source = header.get("source") or ""
    if source and Path(source).is_absolute():
        try:
            header["source"] = Path(source).resolve().relative_to(REPO).as_posix()
        except ValueError:
            header["source"] = Path(source).name
    with out.open("wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
        gz.write((json.dumps(header) + "\n").encode())
        gz.write(rest)


def shared_load_pc(df) -> str:
    """The pc of the first shared-memory load in source order (the tile read column-wise)."""
    table = analysis.bank_conflicts(df)
    return table.loc[table["op"] == "ld.shared", "pc"].iloc[0]


def plot_samples() -> None:
    from matplotlib.figure import Figure       # no pyplot: nothing touches a GUI backend

    plain = analysis.load_trace(HERE / TRANSPOSE)
    padded = analysis.load_trace(HERE / TRANSPOSE_PADDED)

    fig = Figure(figsize=(15, 6.5), layout="constrained")
    left, right = fig.subplots(1, 2)
    analysis.plot_bank_heatmap(plain, shared_load_pc(plain), ax=left)
    analysis.plot_bank_heatmap(padded, shared_load_pc(padded), ax=right)
    left.set_title("transpose_tile (32x32 tile)\n" + left.get_title(), fontsize=9)
    right.set_title("transpose_tile_padded (32x33 tile)\n" + right.get_title(), fontsize=9)
    fig.savefig(HERE / "transpose_banks.png", dpi=80)

    fig = Figure(figsize=(10, 4), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    analysis.plot_line_conflicts(plain, ax=left)
    analysis.plot_line_conflicts(padded, ax=right)
    left.set_title("transpose_tile: wavefronts per line")
    right.set_title("transpose_tile_padded: wavefronts per line")
    fig.savefig(HERE / "transpose_line_conflicts.png", dpi=80)

    branches = analysis.load_trace(HERE / BRANCHES)
    analysis.plot_warp_timeline(branches, HERE / "nested_branches_timeline.png", blocks=[0])


def main() -> int:
    results = {
        TRANSPOSE: transpose_sample(cuda_style.transpose_tile, TRANSPOSE),
        TRANSPOSE_PADDED: transpose_sample(cuda_style.transpose_tile_padded, TRANSPOSE_PADDED),
        BRANCHES: branches_sample(BRANCHES),
    }
    for name, result in results.items():
        got = analysis.trace_metrics(HERE / name)
        wrong = {k: (v, result.metrics[k]) for k, v in got.items() if result.metrics.get(k) != v}
        if wrong:
            raise AssertionError(f"{name}: trace and engine disagree: {wrong}")
        print(f"{name:32s} {os.path.getsize(HERE / name):7d} bytes, "
              f"{result.details['trace']['records']} records, {result.cycles} cycles")
    plot_samples()
    for png in sorted(HERE.glob("*.png")):
        print(f"{png.name:32s} {os.path.getsize(png):7d} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
