"""How many lines the L1 keeps, and how many a power-of-two stride apart, on the GPU and in
simt's model, from simt/calibrate/cuda/l1_assoc.cu's profile.

One thread chases a fixed cycle through ``n`` lines ``stride`` lines apart, five passes; the
steady hit rate is the L1 lookup hits over the loads after the first pass. Per stride the
table gives the hit rate at each ``n`` and the largest ``n`` that still hits 90% of the time
(the lines the L1 keeps at that stride). With ``--model`` the same chase, written here in
simt's language, runs on cpu:precise with the shipped L1 (timing.l1_ways, timing.l1_set_fold)
and with each associativity named by ``--ways`` (0: a fully associative L1) under each set index
named by ``--folds`` (0: the multiplicative hash; k: the line's number XORed with itself shifted
by k and 2k bits), and the script prints, for each, the mean absolute difference of its hit
rates from the GPU's: the pair the GPU's curves fit best is the one the architecture takes.

    PYTHONPATH=. python3 benchmarks/timing/l1_assoc.py [--data DIR] [--model [--ways 4,8,16,32,64,0] [--folds 0,7]]

Measured on an H100 80GB HBM3, the H200's SM, when no H200 came (data/h100/l1_assoc/: the raw
CSV, its manifest and log; the driver gave the one-warp kernel 32 KB of shared memory, an L1
of 224 KB, 1,792 lines).

To measure, from the repository root on the GPU's machine:
    nvcc -O3 -arch=sm_90 -o /tmp/l1_assoc simt/calibrate/cuda/l1_assoc.cu
    ncu --clock-control none --csv --print-units base --cache-control all \\
        --metrics sm__cycles_elapsed.max,launch__shared_mem_config_size,l1tex__t_sector_hit_rate.pct,\\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum \\
        --log-file l1_assoc.csv /tmp/l1_assoc l1_assoc_manifest.csv
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

import simt as wp
from simt.arch import with_timing
from simt.calibrate import ncu_csv

DATA = Path(__file__).parent / "data" / "h100" / "l1_assoc"
ARCH = Path(wp.__file__).parent / "arch" / "sm_90.json"
PASSES = 5                      # as l1_assoc.cu
HIT = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"
MISS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"


@wp.kernel
def ring(nxt: wp.array(dtype=wp.int32), steps: int, out: wp.array(dtype=wp.int32)):
    """l1_assoc.cu's k_ring: thread 0 chases the cycle ``steps`` loads."""
    if wp.tid() != 0:
        return
    j = int(0)
    for i in range(steps):
        j = nxt[j]
    out[0] = j


def cycle(stride: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` lines ``stride`` lines apart, each pointing at the next in a random order that
    starts at line 0 (l1_assoc.cu builds its own the same way, from C++'s generator)."""
    order = np.concatenate([[0], 1 + rng.permutation(n - 1)])
    nxt = np.zeros(n * stride * 32, np.int32)
    nxt[order * stride * 32] = np.roll(order, -1) * stride * 32
    return nxt


def measured(data: Path) -> pd.DataFrame:
    df = ncu_csv.load("l1_assoc", data)
    df["stride"] = df.value // 100000
    df["n"] = df.value % 100000
    df["hit"] = df[HIT] / ((PASSES - 1) * df.n)
    return df[["stride", "n", "hit", "sm__cycles_elapsed.max", "launch__shared_mem_config_size"]]


def arch_with_ways(ways: int | None, fold: int = 0) -> str:
    """The shipped architecture file, or a copy whose L1 has ``ways`` ways (0: one set) and
    the set index ``fold`` (l1_set_fold)."""
    if ways is None:
        return str(ARCH)
    return with_timing(ARCH, l1_ways=ways if ways > 0 else 1 << 20, l1_set_fold=fold)


def model_hits(plan: pd.DataFrame, arch: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    out = wp.zeros(1, dtype=wp.int32)
    hits = []
    for stride, n in zip(plan.stride, plan.n):
        nxt = wp.array(cycle(int(stride), int(n), rng), dtype=wp.int32)
        r = wp.launch(ring, 32, [nxt, PASSES * int(n), out], block_dim=32, device="cpu:precise", arch=arch)
        m = r.metrics
        h = m["l1tex__t_sector_hit_rate.pct"] / 100 * m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
        hits.append(h / ((PASSES - 1) * n))
    return np.array(hits)


def kept(df: pd.DataFrame, col: str) -> pd.Series:
    """Per stride, the largest n whose hit rate in ``col`` is at least 90%."""
    return df[df[col] >= 0.9].groupby("stride").n.max()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of l1_assoc.csv (default: data/h100/l1_assoc)")
    ap.add_argument("--model", action="store_true", help="run the same chases on cpu:precise")
    ap.add_argument("--ways", default="4,8,16,32,64,0",
                    help="with --model: L1 associativities to try besides the shipped one (0: fully associative)")
    ap.add_argument("--folds", default="0",
                    help="with --model: L1 set indices to try with each (0: hashed; k: XOR-folded by k bits)")
    a = ap.parse_args()
    if not (a.data / "l1_assoc.csv").exists():
        raise SystemExit(f"l1_assoc: not measured in {a.data} (no l1_assoc.csv; see this script's docstring)")
    df = measured(a.data)
    cols = ["hit"]
    if a.model:
        t = json.loads(ARCH.read_text())["timing"]
        shipped = (t["l1_ways"], t.get("l1_set_fold", 0))
        df["model"] = model_hits(df, arch_with_ways(None))
        cols.append("model")
        scores = {f"model (l1_ways {shipped[0]}, fold {shipped[1]})": float(np.abs(df.model - df.hit).mean())}
        for f in [int(x) for x in a.folds.split(",") if x.strip()]:
            for w in [int(x) for x in a.ways.split(",") if x.strip()]:
                if (w, f) == shipped or (w == 0 and f):      # one set: no index to fold
                    continue
                col = (f"ways {w}" if w else "full") + (f" fold {f}" if f else "")
                df[col] = model_hits(df, arch_with_ways(w, f))
                cols.append(col)
                scores[col] = float(np.abs(df[col] - df.hit).mean())
    config = df["launch__shared_mem_config_size"].unique()
    print(f"# L1 steady hit rates, {PASSES - 1} passes after the first; the GPU's shared-memory "
          f"configuration: {', '.join(str(int(c)) for c in config)} bytes")
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 400)
    print(df[["stride", "n"] + cols].round(3).to_string(index=False))
    print("\n# lines kept at >= 90% hits, per stride")
    print(pd.DataFrame({c: kept(df, c) for c in cols}).fillna(0).astype(int).to_string())
    if a.model:
        print("\n# mean |hit rate - GPU's| over every chase")
        for k, v in sorted(scores.items(), key=lambda kv: kv[1]):
            print(f"{k:24s} {v:.3f}")


if __name__ == "__main__":
    main()
