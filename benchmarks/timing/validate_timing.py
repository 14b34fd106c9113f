"""The timing model against the hardware, on launches it was never fitted to.

For every launch of the held-out set (cases.py: 46 launches of 17 kernels, measured on an H200
with Nsight Compute by measure.sh, raw CSV in data/h200/validation.csv) this prints the
measured and predicted ``sm__cycles_elapsed.max``, then:

- MAPE and the correlation of log-cycles, for the model and for a roofline baseline (the
  largest of: the launch floor; the bytes the kernel's global accesses touch over DRAM
  bandwidth; its instructions over the GPU's issue rate), both from the same constants;
- the pairs users compare (strided against unit-stride copy, ...): the measured and the
  predicted ratio of their cycles;
- DRAM bytes and achieved occupancy, predicted against measured;
- SASS warp instructions: the measured count against the model's issue slots (its estimate
  of what the MIR instructions become), the first place to look when a launch is off.

Targets (issue 8): MAPE <= 15%, r(log) >= 0.97, every pair's ratio within 20%.

    PYTHONPATH=. python3 benchmarks/timing/validate_timing.py [--only a,b] [--csv out.csv] [--arch FILE] [--data DIR]

``--arch`` predicts with another architecture file (one `simt calibrate` wrote), and the
baseline uses its constants; ``--data`` reads the measurement from another folder (another
GPU's: data/h100 holds the H100's, to set beside ``--arch data/h100/calibrated/h100.json``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from simt.arch import load_arch  # noqa: E402
from timing import cases, compare, ncu  # noqa: E402

CYC = compare.CYC


def baseline(row, arch_name: str = "sm_90") -> float:
    """A roofline: max(launch floor, touched bytes / DRAM bandwidth, instructions / issue rate),
    from the launch's counters (global sectors, warp instructions) and the same constants."""
    arch = load_arch(arch_name)
    t = arch.data["timing"]
    floor = t["launch_floor_cycles"]
    issue_rate = arch.schedulers_per_sm * arch.sm_count  # one instruction per scheduler per cycle
    return max(floor, floor + 32 * row["global_sectors"] / t["dram_bytes_per_cycle"],
               floor + row["inst"] / issue_rate)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated launch names")
    ap.add_argument("--csv", default="", help="write the per-launch table here")
    ap.add_argument("--what-if-exact-sass", action="store_true",
                    help="also predict every launch with its issue slots scaled to the measured SASS "
                         "count: how much a perfect SASS estimate would buy (a diagnosis, not a result)")
    ap.add_argument("--full-replay", action="store_true",
                    help="replay every SM of big launches (module option timing_sample False)")
    ap.add_argument("--arch", default="sm_90",
                    help="the architecture to predict with: sm_90 (shipped) or the path of a file simt calibrate wrote")
    ap.add_argument("--data", default=str(ncu.DATA),
                    help="the folder holding validation.csv and its manifest (default data/h200)")
    compare.add_no_sass(ap)
    args = ap.parse_args()
    wp.set_module_options({"arch": args.arch})
    compare.apply_no_sass(args)
    if args.full_replay:
        wp.set_module_options({"timing_sample": False})
    only = [s for s in args.only.split(",") if s]
    launches = [l for l in cases.LAUNCHES if not only or l.name in only]
    print(f"predicting {len(launches)} held-out launches on cpu:precise ...")
    pred = compare.predict(launches)
    pred["baseline"] = pred.apply(baseline, axis=1, arch_name=args.arch)
    df = compare.join(pred, compare.measured("validation", Path(args.data)))
    meas, model, roof = df[f"meas:{CYC}"], df[f"pred:{CYC}"], df["baseline"]

    print()
    print(compare.table(df.assign(bottleneck=df.bottleneck)))
    print(f"\n{'':28s} {'MAPE':>8s} {'r(log)':>8s}")
    print(f"{'model':28s} {compare.mape(model, meas):7.1f}% {compare.log_r(model, meas):8.3f}")
    print(f"{'roofline baseline':28s} {compare.mape(roof, meas):7.1f}% {compare.log_r(roof, meas):8.3f}")
    within = np.abs(model / meas - 1) <= 0.2
    print(f"launches within 20%: {int(within.sum())}/{len(df)}")

    print(f"\n{'pair':44s} {'measured':>9s} {'model':>7s} {'error':>7s} {'baseline':>9s}")
    by = df.set_index("name")
    pair_ok = 0
    n_pairs = 0
    for label, slow, fast in cases.PAIRS:
        if slow not in by.index or fast not in by.index:
            continue
        m = by.loc[slow, f"meas:{CYC}"] / by.loc[fast, f"meas:{CYC}"]
        p = by.loc[slow, f"pred:{CYC}"] / by.loc[fast, f"pred:{CYC}"]
        b = by.loc[slow, "baseline"] / by.loc[fast, "baseline"]
        err = p / m - 1
        n_pairs += 1
        pair_ok += abs(err) <= 0.2
        print(f"{label:44s} {m:9.2f} {p:7.2f} {100 * err:+6.0f}% {b:9.2f}")
    print(f"pairs within 20%: {pair_ok}/{n_pairs}")

    print(f"\n{'launch':28s} {'DRAM MB meas':>12s} {'pred':>8s} {'occupancy% meas':>16s} {'pred':>6s}")
    for _, r in df.iterrows():
        dm = (r["meas:dram__bytes_read.sum"] + r["meas:dram__bytes_write.sum"]) / 1e6
        dp = (r["pred:dram__bytes_read.sum"] + r["pred:dram__bytes_write.sum"]) / 1e6
        print(f"{r['name']:28s} {dm:12.1f} {dp:8.1f} {r['meas:sm__warps_active.avg.pct_of_peak_sustained_active']:16.1f} "
              f"{r['pred:sm__warps_active.avg.pct_of_peak_sustained_active']:6.1f}")
    sass = df["pred:sass"] / df["meas:sass"]
    print(f"\n{'launch':28s} {'SASS inst meas':>15s} {'model slots':>12s} {'slots/SASS':>10s} {'cycles ratio':>12s}")
    for (_, r), k in zip(df.iterrows(), sass):
        print(f"{r['name']:28s} {r['meas:sass']:15,.0f} {r['pred:sass']:12,.0f} {k:10.2f} {r['ratio']:12.2f}")
    ok = np.isfinite(sass) & (sass > 0)
    print(f"model issue slots / measured SASS instructions: geometric mean "
          f"{float(np.exp(np.mean(np.log(sass[ok])))):.2f}, range {sass[ok].min():.2f} - {sass[ok].max():.2f}")
    if args.what_if_exact_sass:
        what_if(df, launches)
    if args.csv:
        df.to_csv(args.csv, index=False)


def what_if(df, launches) -> None:
    """Predict each launch again with its issue slots scaled by measured SASS / model slots."""
    by_name = {l.name: l for l in launches}
    scaled = []
    print("\nwhat if the model's issue slots were the measured SASS count (diagnosis only):")
    for _, r in df.iterrows():
        with compare.issue_slots_scaled(r["meas:sass"] / r["pred:sass"]):
            p = compare.predict([by_name[r["name"]]], progress=None).iloc[0][f"pred:{CYC}"]
        scaled.append(p)
        print(f"  {r['name']:28s} cycles ratio {r['ratio']:5.2f} -> {p / r[f'meas:{CYC}']:5.2f}")
    print(f"MAPE {compare.mape(df[f'pred:{CYC}'], df[f'meas:{CYC}']):.1f}% -> "
          f"{compare.mape(scaled, df[f'meas:{CYC}']):.1f}% with exact SASS counts")


if __name__ == "__main__":
    main()
