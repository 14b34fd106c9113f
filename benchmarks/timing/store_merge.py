"""Stores of one warp to the same sectors, back to back or apart, on the H200 (store_merge.cu's
profiles, data/h200/store_merge.csv and store_merge_gaps.csv) and, with ``--model``, the same
patterns written in simt on cpu:precise. Per launch: the SM cycles, the L2's write sectors
over the L1's store sectors (about 1.5 for whole sectors written once; lower where stores
merged on the way to the L2), and the model's cycles over the H200's.

    PYTHONPATH=. python3 benchmarks/timing/store_merge.py [--model]

Evidence, not a fit: the model does not merge stores. On the H200 a warp's stores to the
same lines merge only when ptxas puts them back to back (a request of 2 lines: also with one
dependent FMA between; 4 lines: back to back only; 8 lines: hardly), so a model of it needs
the SASS's order of the stores, not the MIR's (simt puts each value's arithmetic before its
store).
"""
import argparse
from pathlib import Path

import numpy as np
import pandas as pd

import simt as wp

DATA = Path(__file__).parent / "data" / "h200"
N = 4 << 20


def measured() -> pd.DataFrame:
    rows = []
    for f in ("store_merge", "store_merge_gaps"):
        c = pd.read_csv(DATA / f"{f}.csv", thousands=",", comment="=")
        p = c.pivot_table(index="ID", columns="Metric Name", values="Metric Value", aggfunc="first")
        names = [x for x in (DATA / f"{f}_order.txt").read_text().splitlines() if x]
        for i, r in p.iterrows():
            kind, k, gap = names[i].split()
            rows.append({"kind": kind, "K": int(k[2:]), "gap": int(gap[4:]),
                         "cycles": r["sm__cycles_elapsed.max"],
                         "l2_per_l1": r["lts__t_sectors_op_write.sum"]
                         / r["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]})
    return pd.DataFrame(rows)


def kernel(kind: str, K: int, gap: int):
    """store_merge.cu's kernels: thread i stores K floats, ``gap`` dependent FMAs before each (a
    constant here: ptxas takes the CUDA loop's zero trips out of the way of the stores)."""
    stride = {"interleaved": K, "half": 2 * K, "planes": 1}[kind]
    plane = int(kind == "planes")

    @wp.kernel
    def stores(out: wp.array(dtype=float), n: int):
        i = wp.tid()
        v = float(i)
        for j in range(K):
            for g in range(gap):
                v = v * 1.0001 + 0.5
            if plane == 1:
                out[j * n + i] = v
            else:
                out[stride * i + j] = v
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
            res = wp.launch(kernel(r["kind"], r["K"], r["gap"]), dim=N, inputs=[out, N],
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
