"""Predict a set of launches with cpu:precise and set the predictions beside Nsight Compute's
measurements of the same launches: shared by validate_timing.py and check_calibration.py."""
from __future__ import annotations

import dataclasses
import math
from contextlib import contextmanager

import numpy as np
import pandas as pd

from . import cases, ncu

CYC = "sm__cycles_elapsed.max"
METRICS = (CYC, "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sector_hit_rate.pct",
           "sm__warps_active.avg.pct_of_peak_sustained_active")
# SASS warp instructions: Nsight Compute's executed count against the model's issue slots
SASS_MEASURED, SASS_PREDICTED = "smsp__inst_executed.sum", "smsp__inst_issued.sum"
# warp instructions on the ALU pipe (sets measured with it: 13 on), the model's and Nsight Compute's
ALU_PIPE = "sm__inst_executed_pipe_alu.sum"


def add_no_sass(ap) -> None:
    """The reports' ``--no-sass``: predict as where ptxas or a disassembler is missing."""
    ap.add_argument("--no-sass", action="store_true",
                    help="replay in program order, as where ptxas or a disassembler is missing (the fallback)")


def apply_no_sass(args) -> None:
    if args.no_sass:
        import simt
        simt.set_module_options({"timing_sass": False})


def predict(launches, seed: int = 0, progress=print) -> pd.DataFrame:
    rows = []
    for launch in launches:
        seconds, r = cases.run(launch, "cpu:precise", seed)
        row = {"name": launch.name, "limiter": launch.limiter, "seconds": seconds,
               "bottleneck": r.details["bottleneck"]["limiter"],
               "sampling_error_pct": r.metrics.get("simt__sampling_error.pct", 0.0)}
        for m in METRICS:
            row[f"pred:{m}"] = r.metrics.get(m, np.nan)
        row["global_sectors"] = sum(r.metrics.get(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{k}.sum", 0)
                                    for k in ("ld", "st", "atom"))
        row["inst"] = r.metrics["smsp__inst_executed.sum"]
        row["pred:sass"] = r.metrics.get(SASS_PREDICTED, np.nan)
        row["pred:alu"] = r.metrics.get(ALU_PIPE, np.nan)
        rows.append(row)
        if progress:
            progress(f"  {launch.name:28s} {row[f'pred:{CYC}']:>11,.0f} cycles  ({seconds:.1f} s)")
    return pd.DataFrame(rows)


@contextmanager
def issue_slots_scaled(factor: float):
    """A what-if for diagnosis, never a prediction: every instruction's issue slots (the
    model's SASS estimate) times ``factor`` while the block runs."""
    from simt.sim.timing import model
    original = model._tables

    def scaled(prog, arch, sass=True):
        t = original(prog, arch, sass)
        return dataclasses.replace(t, sass=t.sass * factor)
    model._tables = scaled
    try:
        yield
    finally:
        model._tables = original


def measured(name: str, data=ncu.DATA) -> pd.DataFrame:
    """The profiler's rows of data/SET.csv joined with its manifest, in the report's columns."""
    df = ncu.load(name, data)
    for m in METRICS:
        if m not in df:
            df[m] = np.nan
    df["meas:sass"] = df[SASS_MEASURED] if SASS_MEASURED in df else np.nan
    df["meas:alu"] = df[ALU_PIPE] if ALU_PIPE in df else np.nan
    return df.rename(columns={m: f"meas:{m}" for m in METRICS})[["name", *[f"meas:{m}" for m in METRICS],
                                                                  "meas:sass", "meas:alu"]]


def join(pred: pd.DataFrame, meas: pd.DataFrame) -> pd.DataFrame:
    df = pred.merge(meas, on="name", how="inner")
    df["ratio"] = df[f"pred:{CYC}"] / df[f"meas:{CYC}"]
    return df


def mape(pred, meas) -> float:
    pred, meas = np.asarray(pred, float), np.asarray(meas, float)
    return float(np.mean(np.abs(pred - meas) / meas) * 100)


def log_r(pred, meas) -> float:
    return float(np.corrcoef(np.log(np.asarray(pred, float)), np.log(np.asarray(meas, float)))[0, 1])


def table(df: pd.DataFrame) -> str:
    lines = [f"{'launch':28s} {'measured':>11s} {'predicted':>11s} {'ratio':>6s}  {'limiter (model)':18s}"]
    for _, r in df.iterrows():
        lines.append(f"{r['name']:28s} {r[f'meas:{CYC}']:>11,.0f} {r[f'pred:{CYC}']:>11,.0f} "
                     f"{r['ratio']:>6.2f}  {r['bottleneck']:18s}")
    return "\n".join(lines)


def finite(x: float) -> bool:
    return not (math.isnan(x) or math.isinf(x))
