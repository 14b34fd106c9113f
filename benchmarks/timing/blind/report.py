"""The timing model on a blind set: every launch of the set's cases.py predicted on cpu:precise
and set beside its Nsight Compute measurement (data/h200/SET.csv, measured once; see the set's
README.md). The sets: ``blind`` (this folder, the default), ``blind2`` (../blind2),
``blind3`` (../blind3), ``blind4`` (../blind4), ``blind5`` (../blind5), ``blind6``
(../blind6), ``blind7`` (../blind7), ``blind8`` (../blind8), ``blind9`` (../blind9), ``blind10``
(../blind10), ``blind11`` (../blind11), ``blind12`` (../blind12), ``blind13`` (../blind13),
``blind14`` (../blind14), ``blind15`` (../blind15), ``blind16`` (../blind16), ``blind17``
(../blind17), ``blind18`` (../blind18) and ``blind19`` (../blind19).

Prints, per launch, the measured and predicted cycles (``sm__cycles_elapsed.max``), the
roofline baseline (validate_timing.py's, the same definition and constants), the measured and
predicted DRAM bytes; then MAPE and r of log-cycles for the model and the baseline, how many
launches are within 20% (cycles) and 15% (DRAM bytes), and every pair: the hardware's ratio,
the model's, the error, and whether the model orders the two launches the other way round
(not counted where the measured ratio is within 5% of 1: a tie).

Targets: MAPE <= 15%, r(log) >= 0.97, every pair within 20% and none reversed, DRAM bytes
within 15%.

This is a report, never an input: nothing here may be used to fit or tune the model.

    PYTHONPATH=. python3 benchmarks/timing/blind/report.py [--arch FILE --data DIR] [--set blind2|blind3|blind4|blind5|blind6|blind7|blind8|blind9|blind10|blind11|blind12|blind13|blind14|blind15|blind16|blind17|blind18|blind19] [--only a,b] [--out FILE] [--csv FILE]

The output is also written to SET_report.txt in the --data folder (data/h200; ``--out`` to change). Where the set has
not been measured yet (no data/h200/SET.csv) it says so and exits with status 1, predicting
nothing.
"""
from __future__ import annotations

import argparse
import importlib
import io
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent.parent)]

import simt as wp  # noqa: E402
from timing.blind import SETS  # noqa: E402
from timing import compare, ncu  # noqa: E402
from timing.validate_timing import baseline  # noqa: E402

CYC = compare.CYC
TARGETS = {"mape": 15.0, "log_r": 0.97, "pair": 0.20, "dram": 0.15}
TIE = 0.05          # a pair whose measured ratio is within 5% of 1 cannot be reversed (fixed before measuring)


def cases_of(name: str):
    """The set's launches and pairs: the module timing.<name>.cases."""
    return importlib.import_module(f"timing.{name}.cases")


def measured(data: Path, name: str = "blind") -> pd.DataFrame:
    """The profiler's rows joined with the manifest, in compare.measured's columns."""
    df = ncu.load(name, data)
    for m in compare.METRICS:
        if m not in df:
            df[m] = np.nan
    df["meas:sass"] = df[compare.SASS_MEASURED] if compare.SASS_MEASURED in df else np.nan
    df["meas:alu"] = df[compare.ALU_PIPE] if compare.ALU_PIPE in df else np.nan
    if "kernel_name" in df and "kernel" in df:      # the profiler's kernel should be the manifest's
        wrong = [f"{n} ({k} vs {kn})" for n, k, kn in zip(df["name"], df["kernel"], df["kernel_name"])
                 if str(k) not in str(kn)]
        if wrong:
            print(f"warning: profiled kernel names that do not contain the manifest's: {', '.join(wrong)}")
    return df.rename(columns={m: f"meas:{m}" for m in compare.METRICS})[
        ["name", *[f"meas:{m}" for m in compare.METRICS], "meas:sass", "meas:alu"]]


def dram(r, side: str) -> float:
    return r[f"{side}:dram__bytes_read.sum"] + r[f"{side}:dram__bytes_write.sum"]


def report(pred: pd.DataFrame, meas: pd.DataFrame, pairs) -> tuple[str, pd.DataFrame]:
    """The report's text and the joined table, from predictions (compare.predict's columns plus
    ``baseline``), measurements (``measured``) and the set's pairs."""
    out = io.StringIO()

    def p(s=""):
        print(s, file=out)

    df = compare.join(pred, meas)
    missing = sorted(set(pred["name"]) ^ set(meas["name"]))
    if missing:
        p(f"launches not in both the predictions and the measurements: {', '.join(missing)}")
    cyc_m, cyc_p, roof = df[f"meas:{CYC}"], df[f"pred:{CYC}"], df["baseline"]
    df["dram_meas"] = df.apply(lambda r: dram(r, "meas"), axis=1)
    df["dram_pred"] = df.apply(lambda r: dram(r, "pred"), axis=1)
    df["dram_ratio"] = df["dram_pred"] / df["dram_meas"]

    p(f"{'launch':26s} {'measured':>11s} {'predicted':>11s} {'ratio':>6s} {'baseline':>11s} {'ratio':>6s}  "
      f"{'limiter (model)':16s} {'DRAM MB meas':>12s} {'pred':>8s} {'ratio':>6s}")
    for _, r in df.iterrows():
        p(f"{r['name']:26s} {r[f'meas:{CYC}']:>11,.0f} {r[f'pred:{CYC}']:>11,.0f} {r['ratio']:>6.2f} "
          f"{r['baseline']:>11,.0f} {r['baseline'] / r[f'meas:{CYC}']:>6.2f}  {str(r['bottleneck']):16s} "
          f"{r['dram_meas'] / 1e6:>12.1f} {r['dram_pred'] / 1e6:>8.1f} {r['dram_ratio']:>6.2f}")

    n = len(df)
    mape_model, r_model = compare.mape(cyc_p, cyc_m), compare.log_r(cyc_p, cyc_m)
    mape_roof, r_roof = compare.mape(roof, cyc_m), compare.log_r(roof, cyc_m)
    within = int((np.abs(cyc_p / cyc_m - 1) <= 0.2).sum())
    within_roof = int((np.abs(roof / cyc_m - 1) <= 0.2).sum())
    dram_ok = np.abs(df["dram_ratio"] - 1) <= TARGETS["dram"]
    p()
    p(f"{'':26s} {'MAPE':>8s} {'r(log)':>8s} {'within 20%':>11s}")
    p(f"{'model':26s} {mape_model:7.1f}% {r_model:8.3f} {within:>5d} of {n}")
    p(f"{'roofline baseline':26s} {mape_roof:7.1f}% {r_roof:8.3f} {within_roof:>5d} of {n}")
    p(f"DRAM bytes within 15%: {int(dram_ok.sum())} of {n}"
      + (f"; outside: {', '.join(f'{a} ({b:.2f})' for a, b in zip(df['name'][~dram_ok], df['dram_ratio'][~dram_ok]))}"
         if (~dram_ok).any() else ""))

    p()
    p(f"{'pair (numerator / denominator)':46s} {'measured':>9s} {'model':>7s} {'error':>7s} {'reversed':>9s} {'baseline':>9s}")
    by = df.set_index("name")
    n_pairs = pairs_ok = n_reversed = 0
    for label, num, den in pairs:
        if num not in by.index or den not in by.index:
            p(f"{label:46s} (not measured)")
            continue
        m = by.loc[num, f"meas:{CYC}"] / by.loc[den, f"meas:{CYC}"]
        mp = by.loc[num, f"pred:{CYC}"] / by.loc[den, f"pred:{CYC}"]
        b = by.loc[num, "baseline"] / by.loc[den, "baseline"]
        err = mp / m - 1
        # reversed: the model puts the two launches the other way round; where the hardware's
        # ratio is within TIE of 1 the order is no finding of the hardware's ("tie", not counted)
        flipped = (m - 1) * (mp - 1) < 0
        rev = flipped and abs(m - 1) > TIE
        n_pairs += 1
        pairs_ok += abs(err) <= TARGETS["pair"]
        n_reversed += bool(rev)
        order = "REVERSED" if rev else "tie" if flipped else "no"
        p(f"{label:46s} {m:9.2f} {mp:7.2f} {100 * err:+6.0f}% {order:>9s} {b:9.2f}")
    p(f"pairs within 20%: {pairs_ok} of {n_pairs}; reversed: {n_reversed}")

    sass = df["pred:sass"] / df["meas:sass"]
    ok = np.isfinite(sass) & (sass > 0)
    if ok.any():
        p(f"\nmodel issue slots / measured SASS instructions: geometric mean "
          f"{float(np.exp(np.mean(np.log(sass[ok])))):.2f}, range {sass[ok].min():.2f} - {sass[ok].max():.2f}")
    occ_m = df["meas:sm__warps_active.avg.pct_of_peak_sustained_active"]
    occ_p = df["pred:sm__warps_active.avg.pct_of_peak_sustained_active"]
    if occ_m.notna().any():
        p(f"achieved occupancy: mean absolute difference {float(np.nanmean(np.abs(occ_p - occ_m))):.1f} points")

    p()
    p("targets: " + "; ".join([
        f"MAPE {mape_model:.1f}% <= 15%: {'met' if mape_model <= TARGETS['mape'] else 'NOT met'}",
        f"r(log) {r_model:.3f} >= 0.97: {'met' if r_model >= TARGETS['log_r'] else 'NOT met'}",
        f"pairs {pairs_ok}/{n_pairs} within 20%, {n_reversed} reversed: "
        f"{'met' if pairs_ok == n_pairs and n_reversed == 0 else 'NOT met'}",
        f"DRAM bytes {int(dram_ok.sum())}/{n} within 15%: {'met' if dram_ok.all() else 'NOT met'}"]))
    return out.getvalue(), df


def main(default_set: str = "blind") -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default=default_set, choices=SETS, help="which blind set")
    ap.add_argument("--only", default="", help="comma-separated launch names")
    ap.add_argument("--data", default=str(ncu.DATA), help="folder holding SET.csv and SET_manifest.csv")
    ap.add_argument("--out", default=None, help="write the report here too (default data/h200/SET_report.txt)")
    ap.add_argument("--csv", default="", help="write the per-launch table here")
    ap.add_argument("--reuse", default="",
                    help="with --only: the other launches' predictions from this --csv output of an "
                         "earlier run (a model that predicts them the same: plan_hashes.py --flip says which "
                         "launches a change touches); the report is then the whole set's")
    ap.add_argument("--full-replay", action="store_true",
                    help="replay every SM of big launches (module option timing_sample False)")
    ap.add_argument("--arch", default="sm_90",
                    help="the architecture to predict with (and the baseline's constants): sm_90 (shipped) or "
                         "the path of a file simt calibrate wrote, beside --data of that GPU's measurement")
    compare.add_no_sass(ap)
    args = ap.parse_args()
    compare.apply_no_sass(args)
    wp.set_module_options({"arch": args.arch})
    name = args.set
    out_file = str(Path(args.data) / f"{name}_report.txt") if args.out is None else args.out
    csv_file = Path(args.data) / f"{name}.csv"
    if not csv_file.exists():
        sys.exit(f"{name}: no measurement yet ({csv_file} does not exist); measure the set first "
                 f"(its README.md, 'Measuring'). Nothing was predicted.")
    if args.full_replay:
        wp.set_module_options({"timing_sample": False})
    cases = cases_of(name)
    meas = measured(Path(args.data), name)    # first: no prediction is made without a measurement
    only = [s for s in args.only.split(",") if s]
    launches = [l for l in cases.LAUNCHES if not only or l.name in only]
    unknown = sorted(set(only) - {l.name for l in cases.LAUNCHES})
    if unknown:
        sys.exit(f"{name}: no launch named {', '.join(unknown)} (the set's cases.py names its launches). "
                 f"Nothing was predicted.")
    label = "the blind set" if name == "blind" else f"the blind set {name}"
    print(f"predicting {len(launches)} launches of {label} on cpu:precise ...")
    pred = compare.predict(launches)
    pred["baseline"] = pred.apply(baseline, axis=1, arch_name=args.arch)
    reused = 0
    if args.reuse and only:
        old = pd.read_csv(args.reuse)
        old = old[~old["name"].isin(only) & old["name"].isin([l.name for l in cases.LAUNCHES])]
        reused = len(old)
        pred = pd.concat([pred, old[[c for c in pred.columns if c in old.columns]]], ignore_index=True)
        order = {l.name: k for k, l in enumerate(cases.LAUNCHES)}
        pred = pred.sort_values("name", key=lambda s: s.map(order)).reset_index(drop=True)
    text, df = report(pred, meas, cases.PAIRS)
    print()
    print(text, end="")
    if out_file and (not only or reused):
        flags = (" --full-replay" if args.full_replay else "") + (f" --arch {args.arch}" if args.arch != "sm_90" else "") \
            + (f" --data {args.data}" if Path(args.data).resolve() != ncu.DATA.resolve() else "")
        head = (f"PYTHONPATH=. python3 benchmarks/timing/{name}/report.py{flags}\n"
                f"predicted on cpu:precise (simt at the checked-out commit), measured: {args.data}/{name}.csv\n\n")
        if reused:
            head = (f"PYTHONPATH=. python3 benchmarks/timing/blind/report.py --set {name} --only {args.only} "
                    f"--reuse {args.reuse}\n"
                    f"predicted on cpu:precise (simt at the checked-out commit): {len(launches)} launches "
                    f"the model's changes touch (benchmarks/timing/plan_hashes.py --flip); the other {reused} "
                    f"reused from {args.reuse}; measured: {args.data}/{name}.csv\n\n")
        Path(out_file).write_text(head + text)
        print(f"\nwritten to {out_file}")
    if args.csv:
        df.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
