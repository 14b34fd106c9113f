"""Calibrating simt's timing model on a GPU: ``simt calibrate --device cuda:0 --out my_gpu.json``.

- ``cuda/``: the CUDA C microbenchmarks (micro*.cu) the timing constants are measured with;
- ``probes``: the op probes, simt kernels whose PTX measures what each MIR operation costs;
- ``op_overlap``, ``warp_words``: other parts written as simt kernels (``measure_main``, below,
  is their command line): does a long op hold its warp; atomics and stores on few words;
- ``device``: what the CUDA driver reports about the GPU, and the architecture facts from it;
- ``runner``: compiles and runs the measurements (under Nsight Compute, or self-timed with CUDA
  events and clock64 where it is missing), fits, writes the file;
- ``counts``, ``clock64_csv``: what the clock64 fallback computes instead of the profiler's
  counters (instructions from the SASS), and its launch times on the profiler's cycle scale;
- ``fit``: the one fit from measurements to an architecture file's ``timing`` section (also
  what made simt/arch/sm_90.json, through benchmarks/timing/fit_arch.py).
"""
from __future__ import annotations

from pathlib import Path


def command(device: str | None, out: str, keep: str | None, parts: str | None, from_csv: str | None,
            timer: str | None = "auto") -> int:
    """``simt calibrate``: 0 when the file is written; 2 with one line on stderr saying why not."""
    import sys

    from ..errors import SimtError
    from .runner import calibrate
    try:
        calibrate(device, Path(out), Path(keep) if keep else None, parts, Path(from_csv) if from_csv else None,
                  timer=timer)
    except (SimtError, OSError) as e:
        text = str(e)
        print(text if text.startswith("simt calibrate") else f"simt calibrate: {text}", file=sys.stderr)
        return 2
    return 0


def measure_main(description: str, measure, argv=None, only: bool = False) -> int:
    """The command line of a part written as simt kernels (``python3 -m simt.calibrate.NAME
    --measure MANIFEST``): ``measure(manifest)`` runs every launch on the GPU, under the
    profiler, and writes the manifest; with ``only``, ``--only a,b`` gives ``measure(manifest,
    ["a", "b"])`` (None without it)."""
    import argparse
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--measure", metavar="MANIFEST", required=True,
                    help="run every launch on the GPU (under the profiler) and write the manifest here")
    if only:
        ap.add_argument("--only", default="", help="comma-separated names: measure these alone")
    args = ap.parse_args(argv)
    if only:
        measure(args.measure, [s for s in args.only.split(",") if s] or None)
    else:
        measure(args.measure)
    return 0
