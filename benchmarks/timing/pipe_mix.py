"""Where warp instructions go, per pipe, on the H200, from pipe_profile.sh's profiles (measured
once; data/h200/pipes/):

1. pipe_mix.cu's instruction streams: per kernel, the slope between its two step counts of SM
   cycles per warp instruction per scheduler, the share of its instructions each pipe took, and
   the cycles per ALU instruction. LOP3, IADD3, SHF, ISETP/SEL alone: about 2 cycles each (the
   ALU pipe takes one every other cycle); VIADD and IMAD.SHL go to the FMA pipe's heavy half,
   so a LOP3 beside each runs at about 1.07.
2. The blind sets' launches the model called issue-bound at >= 80% occupancy
   (pipe_profile_launches.txt): each pipe's busy share of the SM's active cycles (ALU and
   FMA-heavy instructions count two cycles each) and the SM cycles per warp instruction per
   scheduler. Launches whose ALU pipe is nearly always busy are bound by it, not by issue.

A diagnosis from saved files; predicts nothing.

    python3 benchmarks/timing/pipe_mix.py
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parent / "data" / "h200" / "pipes"
SMS, SCHEDULERS = 132, 4
PIPES = ("alu", "fma", "fmaheavy", "fmalite", "fp64", "xu", "uniform", "lsu", "cbu", "adu")


def profile(path: Path) -> list[dict]:
    """The profiler's rows of one CSV (long format), one dict per launch in launch order."""
    text = "".join(line for line in path.read_text().splitlines(True) if not line.startswith("=="))
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        if r.get("Metric Value") in (None, "n/a"):
            continue
        row = out.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"].split("(")[0]})
        row[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [out[k] for k in sorted(out)]


def pipe_count(r: dict, p: str) -> float:
    return r.get(f"sm__inst_executed_pipe_{p}.sum", 0.0) / (SMS * SCHEDULERS)


def streams(path: Path = DATA / "pipe_mix.csv") -> pd.DataFrame:
    """Per kernel of a profile of instruction streams (every kernel at n = 256, then at
    n = 1024): SM cycles per warp instruction per scheduler between the two, each pipe's share
    of the instructions and the cycles per ALU instruction."""
    rows = profile(path)
    half = len(rows) // 2                     # every kernel at n = 256, then at n = 1024
    out = []
    for a, b in zip(rows[:half], rows[half:]):
        cycles = b["sm__cycles_elapsed.avg"] - a["sm__cycles_elapsed.avg"]
        inst = (b["smsp__inst_executed.sum"] - a["smsp__inst_executed.sum"]) / (SMS * SCHEDULERS)
        alu = pipe_count(b, "alu") - pipe_count(a, "alu")
        row = {"kernel": b["kernel"], "cycles/inst": cycles / inst}
        row.update({p: (pipe_count(b, p) - pipe_count(a, p)) / inst for p in ("alu", "fmaheavy", "fmalite")})
        row["cycles/alu inst"] = cycles / alu if alu > 0.05 * inst else float("nan")
        out.append(row)
    return pd.DataFrame(out)


def profiled():
    """(set, manifest row, profile row) of every blind launch pipe_profile.sh profiled."""
    for path in sorted(DATA.glob("pipes_blind*.csv")):
        if path.name.endswith("_manifest.csv"):
            continue
        name = re.match(r"pipes_(blind\d*)\.csv", path.name).group(1)
        manifest = list(csv.DictReader(open(path.with_name(f"pipes_{name}_manifest.csv"))))
        for m, r in zip(manifest, profile(path)):
            yield name, m, r


def launches() -> pd.DataFrame:
    out = []
    for name, m, r in profiled():
        active = r["sm__cycles_active.avg"]
        inst = r["smsp__inst_executed.sum"] / (SMS * SCHEDULERS)
        out.append({"set": name, "launch": m["name"], "cycles/inst": active / inst,
                    "alu busy": 2 * pipe_count(r, "alu") / active,
                    "fma heavy busy": 2 * pipe_count(r, "fmaheavy") / active,
                    "alu share": pipe_count(r, "alu") / inst,
                    "fma heavy share": pipe_count(r, "fmaheavy") / inst,
                    "fma lite share": pipe_count(r, "fmalite") / inst,
                    "occupancy %": r["sm__warps_active.avg.pct_of_peak_sustained_active"]})
    return pd.DataFrame(out)


def main() -> None:
    pd.set_option("display.width", 200)
    fmt = lambda v: f"{v:.2f}"          # noqa: E731
    print("pipe_mix.cu: per warp instruction per scheduler")
    print(streams().to_string(index=False, float_format=fmt))
    d = launches().sort_values("alu busy", ascending=False)
    print(f"\nthe blind sets' issue-bound launches at >= 80% occupancy ({len(d)}), by the ALU pipe's busy share")
    print(d.to_string(index=False, float_format=fmt))
    busy = d[d["alu busy"] >= 0.85]
    print(f"\nALU pipe busy >= 85% of the active cycles: {len(busy)} of {len(d)} launches; "
          f"median share of instructions on the ALU {d['alu share'].median():.2f}, "
          f"on the FMA pipe's heavy half {d['fma heavy share'].median():.2f}")


if __name__ == "__main__":
    main()
