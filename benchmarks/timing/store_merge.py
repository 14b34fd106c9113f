"""Stores of one warp to the same sectors, back to back or apart, on the H200
(simt/calibrate/cuda/store_merge.cu's profiles, data/h200/store_merge.csv and
store_merge_gaps.csv, with their manifests) and, with ``--model``, the same patterns written
in simt on cpu:precise. Per launch: the SM cycles, the L2's write sectors
over the L1's store sectors (about 1.5 for whole sectors written once; lower where stores
merged on the way to the L2), and the model's cycles over the H200's.

    PYTHONPATH=. python3 benchmarks/timing/store_merge.py [--model]

Measured once on the H200 (the program then printed its launches' names, kept as
store_merge_order.txt and store_merge_gaps_order.txt; the manifests are those names in the
calibration's manifest format), from simt/calibrate/cuda:
    nvcc -O3 -arch=sm_90 -o /tmp/store_merge store_merge.cu
    ncu --clock-control none --csv --print-units base --metrics sm__cycles_elapsed.max,\
      lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,\
      l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,\
      smsp__inst_executed_op_global_st.sum,dram__bytes_write.sum \
      --log-file store_merge.csv /tmp/store_merge m.csv            (store_merge_gaps.csv: m.csv 1 2 4 8)

On the H200 a warp's stores to the same lines merge when they come back to back (a request
of 2 lines: also with one dependent FMA between; 4 lines: back to back only; 8 lines:
hardly): store_merge_lines in simt/arch/sm_90.json. The model merges the stores ptxas puts
next to each other in the SASS (timing/stores.py), as it does with a thread's words stored
one after another in straight code; here the zero-trip FMA loop between the stores (the
launch's ``gap`` is 0) keeps them apart in the SASS though not in time, so the model merges
none of these and over-predicts the gap-0 launches (interleaved K = 2 and 4).
"""
import argparse
from pathlib import Path

import numpy as np
import pandas as pd

import simt as wp
from simt.calibrate import ncu_csv

DATA = Path(__file__).parent / "data" / "h200"
N = 4 << 20


def measured() -> pd.DataFrame:
    rows = []
    for f in ("store_merge", "store_merge_gaps"):
        df = ncu_csv.load(f, DATA)
        for _, r in df.iterrows():
            kind = r["bench"].rstrip("0123456789")
            rows.append({"kind": kind, "K": int(r["bench"][len(kind):]), "gap": int(r["value"]),
                         "cycles": r["sm__cycles_elapsed.max"],
                         "l2_per_l1": r["lts__t_sectors_op_write.sum"]
                         / r["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]})
    return pd.DataFrame(rows)


def kernel(kind: str, K: int):
    """store_merge.cu's kernels: thread i stores K floats, ``gap`` dependent FMAs before each
    (the launch's argument, as there)."""
    stride = {"interleaved": K, "half": 2 * K, "planes": 1}[kind]
    plane = int(kind == "planes")

    @wp.kernel
    def stores(out: wp.array(dtype=float), n: int, gap: int):
        i = wp.tid()
        v = float(i)
        for j in range(K):
            for g in range(gap):
                v = v * 1.0001 + 0.5
            out[stride * i + j * (plane * n + 1 - plane)] = v      # (out[j*n + i] for planes)
    return stores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    args = ap.parse_args()
    df = measured().sort_values(["kind", "K", "gap"])
    print(f"{'kernel':12s} {'K':>2s} {'gap':>4s} {'H200 cycles':>12s} {'L2/L1 sectors':>14s}"
          + (f" {'model':>10s} {'ratio':>6s}" if args.model else ""))
    ratios = []
    for _, r in df.iterrows():
        line = f"{r['kind']:12s} {r['K']:2d} {r['gap']:4d} {r['cycles']:12,.0f} {r['l2_per_l1']:14.2f}"
        if args.model:
            out = wp.zeros(8 * N, dtype=float, device="cpu:precise")
            res = wp.launch(kernel(r["kind"], r["K"]), dim=N, inputs=[out, N, r["gap"]],
                            device="cpu:precise", block_dim=256)
            c = res.metrics["sm__cycles_elapsed.max"]
            ratios.append(c / r["cycles"])
            line += f" {c:10,.0f} {c / r['cycles']:6.2f}"
        print(line, flush=True)
    if ratios:
        print(f"model / H200: mean absolute error {100 * np.mean(np.abs(np.array(ratios) - 1)):.1f}% "
              f"over {len(ratios)} launches")


if __name__ == "__main__":
    main()
