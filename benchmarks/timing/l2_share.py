"""Lines that several SMs read at about the same time: how many of their reads the L2 counts
and how fast it serves them, on the GPU and in simt's model; fits timing.l2_merge_window_cycles
and timing.l2_merge_most.

Two measurements (benchmarks/timing/gpu_pending.sh's l2share step):
  - simt/calibrate/cuda/l2_share.cu: blocks on S SMs read one 16 KB region through the L2 only
    (__ldcg). The table gives, per S, the L2's read sectors over the sectors the loads asked
    for, and the sectors asked for a cycle (the passes' difference).
  - simt/calibrate/l2_share.py: the same sharing in a simt kernel whose loads go through the
    L1 (an SM's 1 MB miss there every pass), S = 4 to 132. With ``--model`` it runs on
    cpu:precise under each (window, most) of ``--grid`` and the table gives simt's figures
    beside the GPU's; the pair whose L2 sectors and rates are nearest the GPU's at S >= 8 (where
    the region stays in the L2: S = 4 reads 33 MB, which the GPU's two partitions do not
    keep) is the one the architecture takes, the shortest window among those within TIE of
    the best (windows past it fit alike: what matters is how many reads one serves).

    PYTHONPATH=. python3 benchmarks/timing/l2_share.py [--data DIR] [--model [--grid 50:3,100:3,...]]

Measured on an H100 80GB HBM3, the H200's SM and L2 design, when no H200 came
(data/h100/l2_share/: the raw CSVs, their manifests, gpu.txt).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

import simt as wp
from simt.arch import with_timing
from simt.calibrate import l2_share as share
from simt.calibrate import ncu_csv

DATA = Path(__file__).parent / "data" / "h100" / "l2_share"
ARCH = Path(wp.__file__).parent / "arch" / "sm_90.json"
READ = "lts__t_sectors_op_read.sum"
ASKED = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
CYC = "sm__cycles_elapsed.max"
FIT_FROM = 8                     # the shares the fit compares (their regions stay in the L2)
TIE = 0.001                      # fits this close are alike: the shortest window among them is taken


def steady(df: pd.DataFrame, key: str, step: str) -> pd.DataFrame:
    """Per ``key``: L2 read sectors over sectors asked for, and sectors asked for a cycle,
    between the two values of ``step``."""
    rows = []
    for k, g in df.groupby(key):
        g = g.sort_values(step)
        a, b = g.iloc[0], g.iloc[-1]
        asked = b[ASKED] - a[ASKED]
        rows.append({key: int(k), "l2/asked": (b[READ] - a[READ]) / asked, "asked a cycle": asked / (b[CYC] - a[CYC])})
    return pd.DataFrame(rows).set_index(key)


def cuda_table(data: Path) -> pd.DataFrame:
    df = ncu_csv.load("l2_share", data)
    df["share"] = df.bench.str.extract(r"share(\d+)").astype(int)
    # the cuda micro's loads bypass the L1, so the L1's sector count is what was asked for
    return steady(df.rename(columns={"value": "passes"}), "share", "passes")


def simt_table(data: Path) -> pd.DataFrame:
    return steady(ncu_csv.load("l2_share_simt", data), "share", "passes")


def arch_with(window: float, most: float) -> str:
    return with_timing(ARCH, l2_merge_window_cycles=window, l2_merge_most=most)


def model_table(arch: str) -> pd.DataFrame:
    rows = []
    for s, n, threads, inputs in share.launches(132):
        r = wp.launch(share.l2_share, dim=threads, inputs=inputs, block_dim=share.BLOCK, device="cpu:precise",
                      arch=arch)
        rows.append({"share": s, "passes": n, CYC: r.cycles, READ: r.metrics[READ], ASKED: r.metrics[ASKED]})
    return steady(pd.DataFrame(rows), "share", "passes")


def distance(model: pd.DataFrame, gpu: pd.DataFrame) -> float:
    """Mean |log ratio| of the L2 sectors over those asked for and of the rate, S >= FIT_FROM."""
    m, g = model[model.index >= FIT_FROM], gpu[gpu.index >= FIT_FROM]
    return float(np.mean(np.abs(np.log(m.values / g.values))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of the CSVs (default: data/h100/l2_share)")
    ap.add_argument("--model", action="store_true", help="run the simt kernel on cpu:precise")
    ap.add_argument("--grid", default="0:0,25:3,50:3,100:3,200:3,50:4,100:4",
                    help="with --model: window:most pairs to try besides the shipped one")
    a = ap.parse_args()
    if not (a.data / "l2_share_simt.csv").exists():
        raise SystemExit(f"l2_share: not measured in {a.data} (no l2_share_simt.csv; see this script's docstring)")
    pd.set_option("display.width", 200)
    if (a.data / "l2_share.csv").exists():
        print("# cuda/l2_share.cu (through the L2 only): L2 read sectors over sectors asked for, and asked a cycle")
        print(cuda_table(a.data).round(3).to_string())
    gpu = simt_table(a.data)
    print("\n# simt/calibrate/l2_share.py (through the L1), on the GPU")
    print(gpu.round(3).to_string())
    if not a.model:
        return
    t = json.loads(ARCH.read_text())["timing"]
    shipped = (t.get("l2_merge_window_cycles", 0.0), t.get("l2_merge_most", 0.0))
    scores = {}
    runs = [(f"shipped ({shipped[0]:g}:{shipped[1]:g})", str(ARCH))]
    for pair in a.grid.split(","):
        w, k = (float(x) for x in pair.split(":"))
        if (w, k) != shipped:
            runs.append((f"{w:g}:{k:g}", arch_with(w, k)))
    for label, arch in runs:
        m = model_table(arch)
        scores[label] = distance(m, gpu)
        print(f"\n# simt, l2_merge_window_cycles:l2_merge_most {label}")
        print(pd.concat({"simt": m, "gpu": gpu}, axis=1).round(3).to_string())
    print(f"\n# mean |log(simt / GPU)| of both columns at S >= {FIT_FROM}")
    for k, v in sorted(scores.items(), key=lambda kv: kv[1]):
        print(f"{k:24s} {v:.4f}")
    best = min(scores.values())
    near = [k for k, v in scores.items() if v <= best + TIE and not k.startswith("shipped")]
    if near:
        pick = min(near, key=lambda k: tuple(float(x) for x in k.split(":")))
        print(f"\nthe fit: {pick} (the shortest window within {TIE} of the best; the window beyond it "
              f"changes the fit by less than the runs' noise)")


if __name__ == "__main__":
    main()
