"""simt's model beside the H200 on simt/calibrate/warp_words.py's launches (see there): atomics
of one warp on few words, one flag word stored by many warps, and records read 8, 9, 18 or 32
floats apart. The H200's figures: data/h200/warp_words.csv, measured once by measure.sh
(part warp_words). Prints, per launch, the measured and predicted cycles and DRAM bytes.

    PYTHONPATH=. python3 benchmarks/timing/warp_words.py [--only atomic,flag,struct]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import simt as wp
from simt.calibrate.warp_words import launches

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "h200"


def compare(only) -> int:
    from simt.calibrate.ncu_csv import load
    csv = DATA / "warp_words.csv"
    if not csv.exists():
        sys.exit(f"{csv} does not exist: measure first (this file's header)")
    df = load("warp_words", DATA)
    cyc = "sm__cycles_elapsed.max"
    print(f"{'family':7s} {'case':24s} {'threads':>9s} {'H200 cycles':>12s} {'simt':>12s} {'ratio':>6s}"
          f" {'DRAM MB':>8s} {'simt':>8s}")
    for (family, name, threads, kernel, make), (_, m) in zip(launches(), df.iterrows()):
        if only and family not in only:
            continue
        assert m.case == name and m.threads == threads, (m.case, name)
        r = wp.launch(kernel, dim=threads, inputs=make("cpu:precise"), block_dim=256, device="cpu:precise")
        p = r.metrics
        print(f"{family:7s} {name:24s} {threads:>9,d} {m[cyc]:>12,.0f} {p[cyc]:>12,.0f} "
              f"{p[cyc] / m[cyc]:>6.2f} {m['dram__bytes_read.sum'] / 1e6:>8.1f} "
              f"{p['dram__bytes_read.sum'] / 1e6:>8.1f}", flush=True)
    wf = DATA / "warp_words_wavefronts.csv"
    if (not only or "struct" in only) and wf.exists():
        w = load("warp_words_wavefronts", DATA)
        w["per"] = w["l1tex__data_pipe_lsu_wavefronts.sum"] / w["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        print("\nthe H200's L1 data-stage wavefronts a load request (measured again for them: "
              "data/h200/warp_words_wavefronts.csv)")
        for case, per in w.groupby("case", sort=False)["per"].mean().items():
            print(f"  {case:16s} {per:6.2f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="families to compare: atomic, flag, struct")
    args = ap.parse_args()
    return compare(set(filter(None, args.only.split(","))))


if __name__ == "__main__":
    raise SystemExit(main())
