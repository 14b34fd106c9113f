"""micro9.cu's data-stage mixes written in simt (check_micro.py ``mix``), run on the GPU so
that the profiler measures the very instruction stream the timing model predicts. Run under
Nsight Compute; writes the manifest (one row per launch, in launch order):

    ncu --clock-control none --print-units base --csv --metrics ... --log-file micro9_simt.csv \\
        python3 benchmarks/timing/micro9_simt.py micro9_simt_manifest.csv
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from timing import calib  # noqa: E402
from timing.check_micro import MIX, launch_mix  # noqa: E402


def main(manifest: str) -> None:
    rows = ["launch,bench,param,value,grid,block,work"]
    for n in (32, 128):
        for bench in MIX:
            launch_mix(bench, n, "cuda")
            wp.synchronize()
            rows.append(f"{len(rows) - 1},{bench},n,{n},{calib.SMS * 4},256,0")
    Path(manifest).write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
