"""What holds a stream of L2 hits to its rate, from simt/calibrate/cuda/l2_peak.cu's profile: the
bytes a cycle the loads ask for, and the L2's read sectors a cycle, between the runs of 4 and 16
passes over a 16 MB buffer, per variant (the word a lane loads, through the L2 only or the L1
too, the loads a lane issues before the first use, the warps an SM).

    PYTHONPATH=. python3 benchmarks/timing/l2_peak.py [--data DIR]

Measured on an H100 80GB HBM3, the H200's SM and L2 design, when no H200 came (data/h100/l2_peak/:
the raw CSV, its manifest, gpu.txt). What it showed: through the L2 only, float4 loads reach the
same rate with one load a lane in flight as with four, and at 16 warps an SM as at 64 (3,716-3,792
bytes a cycle on the H100, micro.cu's tput_l2 loop among them), so tput_l2, which gives
timing.l2_read_bytes_per_cycle, measures the L2's stream and not its loop. (Through the L1 the
grid-stride loop reads the same words on the same SM every pass, and they stay in its L1: those
rows measure the L1.)
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from simt.calibrate import ncu_csv

DATA = Path(__file__).parent / "data" / "h100" / "l2_peak"
BUFFER = 16 << 20
CYC = "sm__cycles_elapsed.max"
READ = "lts__t_sectors_op_read.sum"


def table(data: Path) -> pd.DataFrame:
    df = ncu_csv.load("l2_peak", data)
    rows = []
    for bench, g in df.groupby("bench", sort=False):
        g = g.set_index("value")
        dc = g.loc[16, CYC] - g.loc[4, CYC]
        rows.append({"variant": bench, "bytes asked a cycle": 12 * BUFFER / dc,
                     "L2 read sectors a cycle": (g.loc[16, READ] - g.loc[4, READ]) / dc,
                     "L1 hit % (16 passes)": g.loc[16, "l1tex__t_sector_hit_rate.pct"]})
    return pd.DataFrame(rows).set_index("variant")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of l2_peak.csv (default: data/h100/l2_peak)")
    a = ap.parse_args()
    if not (a.data / "l2_peak.csv").exists():
        raise SystemExit(f"l2_peak: not measured in {a.data} (no l2_peak.csv; gpu_pending.sh's l2peak step)")
    pd.set_option("display.width", 200)
    print(table(a.data).round(1).to_string())


if __name__ == "__main__":
    main()
