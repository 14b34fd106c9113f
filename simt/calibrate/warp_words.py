"""Atomics and stores on few words, and struct reads: the launches simt calibrate measures as its
``warp_words`` part (the fit reads the L1 tag stage's rate from the records 9 floats apart), and
benchmarks/timing/warp_words.py sets simt's predictions beside the H200's.

Three families, each written here in simt's language, so that the H200 runs the instructions
(simt's PTX through ptxas) that the model predicts:

- ``atomic``: every thread one global atomic (add u32, add f32, or b32, the result unused) on
  word ``(warp << spacing) + (lane >> lanes)`` of an 8 MB region (so every case keeps the same
  lines in the L2): ``lanes`` 5 puts a warp's 32 lanes on one word, and ``spacing`` says how
  many warps share a 128-byte line (spacing 0: 32 warps, as a COO SpMV or a bit packing
  writes; spacing 5: each warp its own line, micro.cu's red_per_warp_address);
- ``flag``: one warp in ``every`` stores 1 to one word (a "something changed" flag written by
  many warps), or to a word of its own;
- ``struct``: each thread sums 8 floats of its own record, records ``stride`` floats apart
  (8: packed; 9 and 18: records that straddle lines; 32: a line each), or the same 8 fields
  from 8 arrays (``soa``); records from the whole buffer (from DRAM) or from the first 64K
  (hits in the L2 and L1).

Measure (on the GPU, under the profiler; writes the manifest, one row per launch):

    ncu --clock-control none --print-units base --csv --metrics ... --log-file warp_words.csv \\
        python3 -m simt.calibrate.warp_words --measure warp_words_manifest.csv
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import simt as wp
from . import measure_main

REGION = wp.constant(1 << 21)        # words: 8 MB
RECORDS_HOT = 1 << 16


@wp.kernel
def atomic_add_u32(p: wp.array(dtype=wp.uint32), spacing: int, lanes: int):
    i = wp.tid()
    word = (((i >> 5) << spacing) + ((i & 31) >> lanes)) & (REGION - 1)
    wp.atomic_add(p, word, wp.uint32(1))


@wp.kernel
def atomic_add_f32(p: wp.array(dtype=float), spacing: int, lanes: int):
    i = wp.tid()
    word = (((i >> 5) << spacing) + ((i & 31) >> lanes)) & (REGION - 1)
    wp.atomic_add(p, word, 1.0)


@wp.kernel
def atomic_or_b32(p: wp.array(dtype=wp.uint32), spacing: int, lanes: int):
    i = wp.tid()
    word = (((i >> 5) << spacing) + ((i & 31) >> lanes)) & (REGION - 1)
    wp.atomic_or(p, word, wp.uint32(1) << wp.uint32(i & 31))


@wp.kernel
def flag_store(flag: wp.array(dtype=int), every: int, own: int):
    i = wp.tid()
    w = i >> 5
    if w % every == 0:
        flag[w * own] = 1


@wp.kernel
def struct_read(x: wp.array(dtype=float), stride: int, records: int, out: wp.array(dtype=float)):
    i = wp.tid()
    base = (i % records) * stride
    s = float(0.0)
    for f in range(8):
        s += x[base + f]
    if s == 1234.5:
        out[i] = s


@wp.kernel
def soa_read(x: wp.array(dtype=float), n: int, records: int, out: wp.array(dtype=float)):
    i = wp.tid()
    r = i % records
    s = float(0.0)
    for f in range(8):
        s += x[f * n + r]
    if s == 1234.5:
        out[i] = s


ATOMICS = {"add_u32": (atomic_add_u32, np.uint32), "add_f32": (atomic_add_f32, np.float32),
           "or_b32": (atomic_or_b32, np.uint32)}
# (kernel, spacing, lanes): 32 lanes a word with 32, 4 or 1 warps a line or one warp in 4
# lines; 8 lanes a word; a lane a word
ATOMIC_CASES = [(k, s, 5) for k in ("add_u32", "add_f32") for s in (0, 3, 5, 7)] \
    + [(k, s, 3) for k in ("add_u32", "add_f32") for s in (2, 5)] \
    + [(k, 5, 0) for k in ("add_u32", "add_f32")] + [("or_b32", 0, 5), ("or_b32", 5, 5)]
FLAG_CASES = [(1, 0), (4, 0), (32, 0), (1, 1)]          # (every, own)
STRUCT_CASES = [(s, hot) for s in (8, 9, 18, 32, "soa") for hot in (False, True)]
SIZES = (1 << 22, 1 << 24)                               # threads


def launches():
    """(family, name, threads, kernel, make) for every launch, in launch order; make(device)
    gives the inputs."""
    out = []
    for threads in SIZES:
        for kname, spacing, lanes in ATOMIC_CASES:
            kernel, dtype = ATOMICS[kname]
            out.append(("atomic", f"{kname}_sp{spacing}_l{lanes}", threads, kernel,
                        lambda dev, dtype=dtype, spacing=spacing, lanes=lanes:
                        [wp.array(np.zeros(REGION, dtype), device=dev), spacing, lanes]))
        for every, own in FLAG_CASES:
            out.append(("flag", f"flag_every{every}_{'own' if own else 'one'}", threads, flag_store,
                        lambda dev, threads=threads, every=every, own=own:
                        [wp.array(np.zeros(threads // 32, np.int32), device=dev), every, own]))
    for threads in SIZES[:1] + (1 << 23,):
        for stride, hot in STRUCT_CASES:
            records = RECORDS_HOT if hot else threads
            name = f"{'soa' if stride == 'soa' else f'stride{stride}'}_{'hot' if hot else 'dram'}"
            if stride == "soa":
                make = lambda dev, threads=threads, records=records: [  # noqa: E731
                    wp.array(np.ones(8 * threads, np.float32), device=dev), threads, records,
                    wp.array(np.zeros(threads, np.float32), device=dev)]
                out.append(("struct", name, threads, soa_read, make))
            else:
                make = lambda dev, threads=threads, records=records, stride=stride: [  # noqa: E731
                    wp.array(np.ones(stride * threads + 8, np.float32), device=dev), stride, records,
                    wp.array(np.zeros(threads, np.float32), device=dev)]
                out.append(("struct", name, threads, struct_read, make))
    return out


def measure(manifest: str) -> None:
    rows = ["launch,bench,case,threads"]
    for family, name, threads, kernel, make in launches():
        inputs = make("cuda")
        wp.synchronize()
        wp.launch(kernel, dim=threads, inputs=inputs, block_dim=256, device="cuda")
        wp.synchronize()
        rows.append(f"{len(rows) - 1},{family},{name},{threads}")
        del inputs
    Path(manifest).write_text("\n".join(rows) + "\n")


def main(argv=None) -> int:
    return measure_main(__doc__.splitlines()[0], measure, argv)


if __name__ == "__main__":
    raise SystemExit(main())
