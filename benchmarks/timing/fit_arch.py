"""Turn the H200 measurements in data/h200/ into the ``timing`` section of simt/arch/sm_90.json.

The fit itself is simt.calibrate.fit (the one ``simt calibrate`` uses on any GPU); this script
runs it on the committed measurements: micro.cu to micro4.cu, the loaded-latency tables of
micro5.cu and micro8.cu, and the op probes, all measured by measure.sh (and, measured later,
red_scatter_l2, atomic_lines.cu and, on an H100, store_runs.cu, op_overlap.py and probes.py's
PROBES6). data/h200/device.json
gives the facts the fit takes from the device (SM count, L1 size). The validation launches
(cases.py) are never read here.

    PYTHONPATH=. python3 benchmarks/timing/fit_arch.py [--check]   # --check: print, write nothing
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from simt.calibrate import fit as F, fit_atomics as FA, fit_ops, fit_stores as FS, ncu_csv, op_overlap, runner

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "h200"
ARCH = HERE.parent.parent / "simt" / "arch" / "sm_90.json"


# measured after the rest: micro.cu's red_scatter_l2 by simt calibrate on the H200 (5675af4, the
# calibrated folder's measurements of that day are in git history; the same launches are in
# calibrated/measured now) and atomic_lines.cu on the H200 (577d972)
SCATTER = DATA / "calibrated" / "measured"
# store_runs.cu on an H100 (no H200 came): how far stores merge
STORE_RUNS = HERE / "data" / "h100" / "store_runs"
STORE_RUNS_NOTE = (" (data/h100/store_runs: measured on an H100, the H200's SM and L2 design, when no H200 came; "
                   "store_merge.cu's 14 launches measured with it there give the H200's L2 write sectors an L1 store "
                   "sector within 0.04; the shares of the lines that reach the L2 are, at 2, 4, 6, 7 and 8 lines, "
                   "0.50, 0.42, 0.41, 0.75 and 0.92 back to back and 0.50, 0.31, 0.61, 0.85 and 0.94 with an "
                   "instruction between; store_runs.txt)")

# op_overlap.py on an H100: which long ops hold their warp
OP_OVERLAP = HERE / "data" / "h100" / "op_overlap"
# ... and a later run with the fp64 arctangents and tangent, whose holds it adds (the earlier
# run's ops keep the earlier run's holds: the two agree within a cycle, with_atan/op_overlap.txt)
OP_OVERLAP_ATAN = OP_OVERLAP / "with_atan"
H100_NOTE = " (data/h100/{}: measured on an H100, the H200's SM, when no H200 came; {}.txt)"
# probes.py's PROBES6 on an H100: more fp64 functions and conversions, fitted beside the H200's probes
PROBES6 = HERE / "data" / "h100" / "probes6"
PROBES6_NOTE = ("the ops ATAN.f64, ATAN2.f64, TAN.f64, FLOOR.f64, CVT.f64>i32 and CVT.i32>f64: probes.py's PROBES6, "
                "measured on an H100 (the H200's SM and ptxas) when no H200 came, fitted with the H200's probes "
                "for their companions (data/h100/probes6)")


def fit() -> dict:
    t = runner.fit_measurements(DATA, runner.load_facts(DATA))
    scatter = 1.0 / F.slope(ncu_csv.load("micro", SCATTER), "red_scatter_l2")
    cold, window = FA.atomic_cold_and_window(scatter, ncu_csv.load("atomic_lines", DATA), t["atomic_units"],
                                            t["atomic_line_cycles"])
    t["atomic_cold_sector_cycles"], t["atomic_hot_window_cycles"] = round(cold, 3), round(window, 1)
    t["sources"]["atomic_cold_sector_cycles"] = (FA.ATOMIC_COLD_SOURCE + " (data/h200/calibrated/measured: simt "
                                                 "calibrate's run on the H200 at 577d972)")
    t["sources"]["atomic_hot_window_cycles"] = FA.ATOMIC_WINDOW_SOURCE + " (data/h200/atomic_lines.csv, at 577d972)"
    stores = FS.store_runs(ncu_csv.load("store_runs", STORE_RUNS))
    for key, value, source in zip(("store_merge_lines", "store_merge_lines_near", "store_merge_share"), stores,
                                  (FS.STORE_RUNS_SOURCE, FS.STORE_RUNS_NEAR_SOURCE, FS.STORE_RUNS_SHARE_SOURCE)):
        t[key] = value
        t["sources"][key] = source + STORE_RUNS_NOTE
    probe = pd.concat([ncu_csv.load(n, DATA) for n in F.PROBE_PARTS if (DATA / f"{n}_manifest.csv").exists()]
                      + [ncu_csv.load("probes6", PROBES6)])
    more = fit_ops.op_table(probe, t["latency"])
    for key in sorted(set(more) - set(t["ops"])):
        t["ops"][key] = more[key]
    t["sources"]["ops_probes6"] = PROBES6_NOTE
    t["op_hold"] = op_overlap.holds(ncu_csv.load("op_overlap", OP_OVERLAP), t["ops"])
    later = op_overlap.holds(ncu_csv.load("op_overlap", OP_OVERLAP_ATAN), t["ops"])
    t["op_hold"].update({k: v for k, v in later.items() if k not in t["op_hold"]})
    t["sources"]["op_hold"] = (F.OP_HOLD_SOURCE + H100_NOTE.format("op_overlap", "op_overlap")
                               + "; ATAN.f64, ATAN2.f64 and TAN.f64 from a later run, data/h100/op_overlap/with_atan")
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="print the fitted section, write nothing")
    args = ap.parse_args()
    timing = fit()
    if args.check:
        print(json.dumps({k: v for k, v in timing.items() if k not in ("ops", "sources")}, indent=1))
        return
    data = json.loads(ARCH.read_text())
    data["timing"] = timing
    ARCH.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote the timing section of {ARCH}")


if __name__ == "__main__":
    main()
