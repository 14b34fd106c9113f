"""The README's tables of the blind sets, made from the reports' saved outputs
(data/h200/SET_report.txt, written by blind/report.py --set SET): per set the model's and the
roofline baseline's MAPE, r of log-cycles and launches within 20%, DRAM bytes within 15% and
pairs within 20%, then every set's pairs. Prints Markdown; predicts nothing.

    PYTHONPATH=. python3 benchmarks/timing/readme_tables.py [--data DIR --summary-only --pooled]

``--data`` reads another GPU's reports (data/h100: the H100's, predicted with the file simt
calibrate wrote for it); ``--summary-only`` prints the per-set table alone; ``--pooled``
prints, after it, every set's launches pooled (from the reports' per-launch tables,
DIR/predictions/SET.csv): their MAPE and how many are within 20%.
"""
from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from timing import ncu  # noqa: E402

# newest first; the last set reported before any model change looked at it is the blind one
SETS = ["blind18", "blind17", "blind16", "blind15", "blind14", "blind13", "blind12", "blind11", "blind10", "blind9", "blind8", "blind7", "blind6", "blind5", "blind4", "blind3", "blind", "blind2"]
STATUS = {"blind18": "reported once blind, looked at since",
          "blind17": "reported once blind, looked at since",
          "blind16": "reported once blind, looked at since",
          "blind15": "reported once blind, looked at since",
          "blind14": "reported once blind, looked at since",
          "blind13": "reported once blind, looked at since",
          "blind12": "reported once blind, looked at since", "blind11": "reported once blind, looked at since", "blind10": "reported once blind, looked at since", "blind9": "reported once blind, looked at since", "blind8": "reported once blind, looked at since", "blind7": "reported once blind, looked at since",
          "blind6": "reported once blind, looked at since",
          "blind5": "reported once blind, looked at since"}
_SUMMARY = re.compile(r"^(model|roofline baseline)\s+([\d.]+%)\s+([\d.]+)\s+(\d+ of \d+)")
_PAIR = re.compile(r"^(.*?)\s+([\d.]+)\s+([\d.]+)\s+([+-]\d+%)\s+(no|tie|REVERSED)\s+([\d.]+)$")
_DRAM = re.compile(r"^DRAM bytes within 15%: (\d+ of \d+)")
_PAIRS = re.compile(r"^pairs within 20%: (\d+) of (\d+); reversed: (\d+)")


def number(name: str) -> int:
    """blind -> 1, blind2 -> 2, ..."""
    return int(name[len("blind"):] or 1)


def parse(name: str, data: Path = ncu.DATA) -> dict | None:
    path = Path(data) / f"{name}_report.txt"
    if not path.exists():
        return None
    text = path.read_text().splitlines()
    out = {"pairs": []}
    in_pairs = False
    for line in text:
        m = _SUMMARY.match(line)
        if m:
            out[m.group(1)] = m.groups()[1:]
        m = _DRAM.match(line)
        if m:
            out["dram"] = m.group(1)
        m = _PAIRS.match(line)
        if m:
            within, total, rev = m.groups()
            out["pair_summary"] = f"{within} of {total}, " + ("none reversed" if rev == "0" else f"{rev} reversed")
            in_pairs = False
        if line.startswith("pair (numerator"):
            in_pairs = True
            continue
        if in_pairs:
            m = _PAIR.match(line.strip())
            if m:
                out["pairs"].append(m.groups())
    return out


def kernels(name: str) -> int:
    cases = importlib.import_module(f"timing.{name}.cases")
    return len({launch.kernel for launch in cases.by_name().values()})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ncu.DATA), help="the folder of the reports (default data/h200)")
    ap.add_argument("--summary-only", action="store_true", help="the per-set table alone")
    ap.add_argument("--pooled", action="store_true", help="then the sets' launches pooled")
    args = ap.parse_args()
    parsed = {s: parse(s, Path(args.data)) for s in SETS}
    missing = [s for s in SETS if parsed[s] is None]
    if missing and not args.summary_only:
        print(f"(not reported yet: {', '.join(missing)}; run blind/report.py --set SET)\n")
    sets = [s for s in SETS if parsed[s] is not None]
    other = Path(args.data).resolve() != ncu.DATA.resolve()
    label = f"set ({Path(args.data).name})" if other else "set"
    print(f"| {label} | mean absolute % error | r of log-cycles | within 20% | DRAM bytes within 15% | pairs within 20% |")
    print("|---|---|---|---|---|---|")
    for s in sets:
        p = parsed[s]
        mape, r, within = p["model"]
        n = within.split(" of ")[1]
        status = "measured once; the model was shaped beside its H200 measurement" if other else \
            STATUS.get(s, "looked at")
        print(f"| set {number(s)}, {n} launches of {kernels(s)} kernels ({status}) | "
              f"{mape} | {r} | {within} | {p['dram']} | {p['pair_summary']} |")
        mape, r, within = p["roofline baseline"]
        print(f"| set {number(s)}: roofline baseline | {mape} | {r} | {within} | | |")
    if args.pooled:
        pooled(sets, Path(args.data))
    if args.summary_only:
        return
    for s in sets:
        print(f"\nSet {number(s)}'s pairs:\n")
        print("| pair (numerator / denominator) | H200 | model | error | roofline |")
        print("|---|---|---|---|---|")
        for name, meas, model, err, rev, base in parsed[s]["pairs"]:
            note = {"REVERSED": " (reversed)", "tie": " (a tie on the H200)"}.get(rev, "")
            print(f"| {name} | {meas} | {model} | {err}{note} | {base} |")


def pooled(sets: list, data: Path) -> None:
    """Every launch of ``sets`` from their per-launch tables (predicted / measured cycles)."""
    import pandas as pd
    tables = [data / "predictions" / f"{s}.csv" for s in sets]
    have = [pd.read_csv(t) for t in tables if t.exists()]
    if not have:
        print(f"\n(no per-launch tables under {data / 'predictions'})")
        return
    err = (pd.concat(have)["ratio"] - 1.0).abs()
    print(f"\npooled over the {len(err)} launches of {len(have)} sets: MAPE {100 * err.mean():.1f}%, "
          f"{int((err <= 0.2).sum())} within 20%")


if __name__ == "__main__":
    main()
