"""A thread's K words stored one right after another, lanes S words apart (store_runs.cu's
profile, data/h100/store_runs/, measured on an H100, the H200's SM and L2 design, when no H200
came; the same folder holds store_merge.cu's gaps 0 and 1 measured in the same run, to set
beside the H200's data/h200/store_merge_gaps.csv). Per launch: the SM cycles and the L2's write
sectors over the L1's store sectors (1.5 where nothing merged, about 0.63 where a warp's
stores to the same lines merged on the way to the L2) and the L2's write requests over the
L1's store requests (a request of S lines sends S where nothing merged); with ``--model``, simt's cycles and
ratio for the same kernels written in simt (store_runs only), and the model's L2/L1 sectors.

    PYTHONPATH=. python3 benchmarks/timing/store_runs.py [--data DIR] [--model]

The program is simt/calibrate/cuda/store_runs.cu (simt calibrate's store_runs part, which fits
store_merge_lines, store_merge_lines_near and store_merge_share from it); benchmarks/timing/
store_runs.sh measures it by hand.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import simt as wp
from simt.calibrate import ncu_csv

HERE = Path(__file__).resolve().parent
N = 4 << 20
CYC = "sm__cycles_elapsed.max"
L2W = "lts__t_sectors_op_write.sum"
L1S = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
L2R = "lts__t_requests_srcunit_tex_op_write.sum"
L1R = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"


def kernel(kind: str, S: int, K: int):
    """store_runs.cu's k_imm / k_step in simt: thread i stores v + j to out[S*i + j] (j*step)."""
    @wp.kernel
    def imm(out: wp.array(dtype=float), step: int):
        i = wp.tid()
        v = float(i)
        for j in range(K):
            out[S * i + j] = v + float(j)

    @wp.kernel
    def stepped(out: wp.array(dtype=float), step: int):
        i = wp.tid()
        v = float(i)
        for j in range(K):
            out[S * i + j * step] = v + float(j)
    return imm if kind == "imm" else stepped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE / "data" / "h100" / "store_runs")
    ap.add_argument("--model", action="store_true", help="predict store_runs' launches on cpu:precise too")
    args = ap.parse_args()
    if not (args.data / "store_runs.csv").exists():
        raise SystemExit(f"store_runs: not measured in {args.data} (no store_runs.csv; see store_runs.sh)")
    print(f"{'launch':14s} {'lines':>5s} {'gap':>3s} {'cycles':>10s} {'L2/L1':>6s} {'L2 req/L1 req':>13s}"
          + (f" {'model':>10s} {'ratio':>6s} {'L2/L1':>6s}" if args.model else ""))
    for f in ("store_runs", "store_merge_gaps"):
        df = ncu_csv.load(f, args.data)
        for _, r in df.iterrows():
            m = re.fullmatch(r"(imm|step)_s(\d+)_k(\d+)", r["bench"])
            lines = int(m.group(2)) if m else None
            gap = "-" if m else str(int(r["value"]))
            line = (f"{r['bench']:14s} {lines if lines else '':>5} {gap:>3s} {r[CYC]:10,.0f} "
                    f"{r[L2W] / r[L1S]:6.2f} {r[L2R] / r[L1R]:13.2f}")
            if args.model and m:
                out = wp.zeros(32 * N, dtype=float, device="cpu:precise")
                res = wp.launch(kernel(m.group(1), lines, int(m.group(3))), dim=N, inputs=[out, 1],
                                device="cpu:precise", block_dim=256)
                c = res.metrics[CYC]
                line += f" {c:10,.0f} {c / r[CYC]:6.2f} {res.metrics[L2W] / res.metrics[L1S]:6.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
