"""Imported CUDA C against the H200: every case of cases.py predicted on cpu:precise (nvcc's
PTX of probes.cu, imported by simt.from_cuda) and set beside Nsight Compute's measurement of
the same PTX (data/h200/imported.csv, measured once by measure.sh).

- counters: shared-memory bank conflicts and wavefronts (loads and stores), global requests
  and sectors, which must equal the profiler's;
- cycles (``sm__cycles_elapsed.max``): MAPE and r of log-cycles of the model and of the
  roofline baseline (validate_timing.py's), target MAPE <= 20%.

The cycle set was measured once and no constant is fitted to it; it is no longer held out:
its naive matmul, warp softmax and stencil showed gaps of the SASS replay that were then
closed (the README tells the history).

    PYTHONPATH=. python3 benchmarks/imported/report.py [--out FILE]

The output is also written to data/h200/report.txt.
"""
from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent.parent)]

import simt  # noqa: E402
import cases  # noqa: E402
from timing import compare  # noqa: E402
from timing.validate_timing import baseline  # noqa: E402
from simt.calibrate.ncu_csv import load  # noqa: E402

DATA = HERE / "data" / "h200"
CYC = compare.CYC
COUNTERS = ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
SHORT = {m: m.replace("l1tex__", "").replace("data_", "").replace("pipe_lsu_mem_", "").replace(".sum", "")
         for m in COUNTERS}
TARGET_MAPE = 20.0


def predict() -> pd.DataFrame:
    rows, kernels = [], {}
    for c in cases.CASES:
        name, kname, grid, block, _, part = c
        kernels.setdefault(kname, simt.from_cuda(cases.SOURCE, kname))
        args = [simt.array(a, device="cpu") if isinstance(a, np.ndarray) else a for a in cases.inputs(c)]
        t0 = time.perf_counter()
        r = simt.launch(kernels[kname], grid=grid, block=block, inputs=args, device="cpu:precise")
        row = {"name": name, "part": part, "seconds": time.perf_counter() - t0,
               "limiter": r.details["bottleneck"]["limiter"], f"pred:{CYC}": r.metrics[CYC],
               "global_sectors": sum(r.metrics.get(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{k}.sum", 0)
                                     for k in ("ld", "st", "atom")),
               "inst": r.metrics["smsp__inst_executed.sum"]}
        row.update({f"pred:{m}": r.metrics.get(m, np.nan) for m in COUNTERS})
        rows.append(row)
        print(f"  {name:26s} {row[f'pred:{CYC}']:>11,.0f} cycles  ({row['seconds']:.1f} s)", flush=True)
    return pd.DataFrame(rows)


def report(pred: pd.DataFrame, meas: pd.DataFrame) -> str:
    out = io.StringIO()
    p = lambda s="": print(s, file=out)   # noqa: E731
    df = pred.merge(meas, on="name", validate="one_to_one")
    p("Imported CUDA C (nvcc -O3 PTX of benchmarks/imported/probes.cu): cpu:precise against Nsight Compute "
      "on the H200")
    p()
    cnt = df[df.part == "counters"]
    p(f"counters: {len(cnt)} probe launches; a cell is 'pred' alone where it equals the profiler, "
      "else 'pred/measured'")
    p(f"{'launch':22s} " + " ".join(f"{SHORT[m][-24:]:>24s}" for m in COUNTERS))
    equal = total = 0
    for _, r in cnt.iterrows():
        cells = []
        for m in COUNTERS:
            a, b = r[f"pred:{m}"], r[f"meas:{m}"]
            if np.isnan(b):
                cells.append(f"{int(a)}/-")
                continue
            total += 1
            equal += int(a == b)
            cells.append(f"{int(a)}" if a == b else f"{int(a)}/{int(b)}")
        p(f"{r['name']:22s} " + " ".join(f"{c:>24s}" for c in cells))
    p(f"counters equal to the profiler's: {equal} of {total}")
    p()
    cyc = df[df.part == "cycles"].copy()
    cyc["baseline"] = cyc.apply(baseline, axis=1)
    m, pr, roof = cyc[f"meas:{CYC}"], cyc[f"pred:{CYC}"], cyc["baseline"]
    p(f"cycles ({CYC}): {len(cyc)} launches, measured once (no longer held out)")
    p(f"{'launch':26s} {'measured':>11s} {'simt':>11s} {'ratio':>6s} {'roofline':>11s}  simt's limiter")
    for (_, r), a, b, c in zip(cyc.iterrows(), m, pr, roof):
        p(f"{r['name']:26s} {a:11,.0f} {b:11,.0f} {b / a:6.2f} {c:11,.0f}  {r['limiter']}")
    within = int((np.abs(pr / m - 1) <= 0.2).sum())
    p(f"{'':26s} {'MAPE':>8s} {'r(log)':>8s}  within 20%")
    p(f"{'model':26s} {compare.mape(pr, m):7.1f}% {compare.log_r(pr, m):8.3f}  {within} of {len(cyc)}")
    p(f"{'roofline baseline':26s} {compare.mape(roof, m):7.1f}% {compare.log_r(roof, m):8.3f}  "
      f"{int((np.abs(roof / m - 1) <= 0.2).sum())} of {len(cyc)}")
    mape = compare.mape(pr, m)
    p(f"target: MAPE <= {TARGET_MAPE:.0f}%: {'met' if mape <= TARGET_MAPE else 'NOT met'}")
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--out", default=str(DATA / "report.txt"))
    compare.add_no_sass(ap)
    args = ap.parse_args()
    compare.apply_no_sass(args)
    meas = load("imported", Path(args.data))
    meas = meas.rename(columns={c: f"meas:{c}" for c in meas.columns if c not in ("name",)})
    print(f"predicting {len(cases.CASES)} launches on cpu:precise ...")
    text = report(predict(), meas)
    print(text)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
