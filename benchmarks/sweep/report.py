"""simt's ranking of each kernel's configurations (simt.sweep on cpu:precise, sm_90) against
the H200's (measure.sh's Nsight Compute CSV): Spearman's rho per kernel (target >= 0.8) and
whether the configuration simt predicts fastest is within 10% of the fastest measured.

    PYTHONPATH=. python3 benchmarks/sweep/report.py                       # data/h200 -> data/h200/report.txt
    PYTHONPATH=. python3 benchmarks/sweep/report.py --data DIR --out FILE --workers 2

The measured time of a configuration is the median ``gpu__time_duration.sum`` of its profiled
launches after the warm-up (rep 0); the predicted time is simt.sweep's ``time_us``. Cycles
(``sm__cycles_elapsed.max``, measured and predicted) are ranked too, for reference. The
predictions are written beside the report (predicted_sm_90.csv) and kept in ``--cache``, so a
second run simulates nothing.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent)]

import simt  # noqa: E402
from kernels import KERNELS  # noqa: E402
from simt.calibrate.ncu_csv import load  # noqa: E402

RHO_TARGET = 0.8
BEST_WITHIN = 0.10


def spearman(a: pd.Series, b: pd.Series) -> float:
    """Spearman's rho: Pearson's r of the ranks (ties get their average rank)."""
    return float(a.rank().corr(b.rank()))


def measured(data: Path) -> pd.DataFrame:
    """One row per (kernel, config): median time (us) and cycles of the launches after rep 0."""
    df = load("sweep", data)
    wrong = df[(df.rep == 0) & (df.correct == 0)]
    if len(wrong):
        raise SystemExit(f"{len(wrong)} configurations computed wrong results on the GPU: "
                         f"{', '.join(wrong.kernel + ' ' + wrong.config)}")
    timed = df[df.rep > 0]
    out = timed.groupby(["kernel", "config"], sort=False).agg(
        measured_us=("gpu__time_duration.sum", lambda s: s.median() / 1e3),
        measured_cycles=("sm__cycles_elapsed.max", "median"),
        launches=("rep", "size")).reset_index()
    return out


def predicted(workers: int | None, cache: Path) -> pd.DataFrame:
    frames = []
    for name, (setup, space, _check) in KERNELS.items():
        frame = simt.sweep(setup, space, arch="sm_90", cache=cache, workers=workers)
        failed = frame[frame.error != ""]
        if len(failed):
            raise SystemExit(f"{name}: simt could not predict {len(failed)} configurations: {failed.error.iloc[0]}")
        frame.insert(0, "config", [json.dumps({k: _plain(row[k]) for k in space}) for _, row in frame.iterrows()])
        frame.insert(0, "kernel", name)
        frames.append(frame[["kernel", "config", "time_us", "cycles", "limiter", "wall_s"]])
    return pd.concat(frames, ignore_index=True)


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def compare(pred: pd.DataFrame, meas: pd.DataFrame) -> tuple[str, bool]:
    both = pred.merge(meas, on=["kernel", "config"], how="outer", indicator=True)
    missing = both[both._merge != "both"]
    if len(missing):
        raise SystemExit(f"configurations predicted but not measured, or measured but not predicted: "
                         f"{missing[['kernel', 'config', '_merge']].to_string(index=False)}")
    lines, passed = [], True
    summary = []
    for name, k in both.groupby("kernel", sort=False):
        k = k.assign(predicted_rank=k.time_us.rank(method="min").astype(int),
                     measured_rank=k.measured_us.rank(method="min").astype(int)).sort_values("measured_us")
        rho = spearman(k.time_us, k.measured_us)
        rho_cycles = spearman(k.cycles, k.measured_cycles)
        pick = k.loc[k.time_us.idxmin()]
        best = k.loc[k.measured_us.idxmin()]
        loss = pick.measured_us / best.measured_us - 1
        ok = rho >= RHO_TARGET and loss <= BEST_WITHIN
        passed &= ok
        summary.append(f"{name:10s} {len(k):3d} configs  rho {rho:5.2f} (cycles {rho_cycles:5.2f})  "
                       f"predicted best {pick.config} is {loss:+.1%} from the measured best "
                       f"{best.config}  {'PASS' if ok else 'FAIL'}")
        lines.append(f"\n{name}: Spearman's rho {rho:.3f} over {len(k)} configurations (of cycles {rho_cycles:.3f})")
        table = k[["config", "measured_us", "measured_rank", "time_us", "predicted_rank", "limiter",
                   "measured_cycles", "cycles"]].rename(columns={"time_us": "predicted_us",
                                                                "cycles": "predicted_cycles"})
        lines.append(table.to_string(index=False, float_format=lambda v: f"{v:,.2f}"))
    head = [f"simt.sweep (cpu:precise, sm_90, simt {simt.__version__}) against the H200 (Nsight Compute, "
            f"median gpu__time_duration.sum of the launches after the warm-up)",
            f"targets: Spearman's rho >= {RHO_TARGET}, predicted-best within {BEST_WITHIN:.0%} of the measured best", ""]
    return "\n".join(head + summary + lines) + "\n", passed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=HERE / "data" / "h200", help="measure.sh's output")
    ap.add_argument("--out", type=Path, help="the report (default DATA/report.txt)")
    ap.add_argument("--workers", type=int, default=None, help="processes for simt.sweep (default: every core)")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "simt" / "sweep_validation")
    args = ap.parse_args()
    meas = measured(args.data)
    pred = predicted(args.workers, args.cache)
    pred.to_csv(args.data / "predicted_sm_90.csv", index=False)
    text, passed = compare(pred, meas)
    out = args.out or args.data / "report.txt"
    out.write_text(text)
    print(text)
    print(f"wrote {out} and {args.data / 'predicted_sm_90.csv'}")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
