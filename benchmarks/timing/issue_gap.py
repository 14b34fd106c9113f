"""What the issue-bound launches lose against their pipes' bound on the H200, and which stall
reasons go with it: the lead for the model's under-prediction of issue-bound launches (over
the 181 launches the model calls issue-bound, the median ratio of predicted to measured
cycles is about 0.92).

Reads pipe_profile.sh's profiles of the blind sets' issue-bound launches
(``data/h200/pipes/pipes_SET.csv``: every pipe's warp instructions and every issue stall
reason). Per launch: SM cycles per warp instruction per scheduler (``cpi``), the busiest
pipe's bound (ALU and the FMA pipe's heavy half take a warp instruction every other cycle;
at least one cycle an instruction), the gap between them, and the stall reasons per issue
that simt does not model: ``dispatch_stall`` (a picked warp the dispatcher holds back: register
reads and other conflicts, Nsight Compute's profiling guide), ``branch_resolving`` and
``no_instruction``. Then, over the launches at full occupancy whose warps do not wait on
memory (few short- and long-scoreboard and MIO stalls: compute-bound), a least-squares line
of the gap on those three. Last, the same for the instruction streams of pipe_mix.cu and
reg_banks.cu: where only register reads differ, the gap is dispatch stalls at 0.09-0.14 cycles
each an issue (an FFMA of three registers from the file: 0.34 cycles with 3.65 stalls); LOP3 or
IMAD beside FFMA lose 0.09 and 0.33 cycles with few (0.12 and 0.79): something else, the FMA
pipe's two halves perhaps.

    PYTHONPATH=. python3 benchmarks/timing/issue_gap.py

A diagnosis from saved measurements; nothing here fits or changes the model.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pipe_mix  # noqa: E402

UNMODELLED = ["dispatch_stall", "branch_resolving", "no_instruction"]


def launches() -> pd.DataFrame:
    out = []
    for name, m, r in pipe_mix.profiled():
        inst = r["smsp__inst_executed.sum"] / (pipe_mix.SMS * pipe_mix.SCHEDULERS)
        row = {"set": name, "launch": m["name"], "cpi": r["sm__cycles_active.avg"] / inst,
               "bound": max(1.0, 2 * pipe_mix.pipe_count(r, "alu") / inst,
                            2 * pipe_mix.pipe_count(r, "fmaheavy") / inst),
               "occupancy %": r["sm__warps_active.avg.pct_of_peak_sustained_active"]}
        for k, v in r.items():
            s = re.match(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio", k)
            if s:
                row[s.group(1)] = v
        out.append(row)
    d = pd.DataFrame(out)
    d["gap"] = d["cpi"] - d["bound"]
    return d


def streams() -> pd.DataFrame:
    """pipe_mix.cu's streams on the H200 and reg_banks.cu's on an H100 (the same SM): cycles an
    instruction, the pipes' bound, the gap and the dispatch stalls per issue."""
    out = []
    for gpu, path in (("H200", pipe_mix.DATA / "pipe_mix.csv"),
                      ("H100", pipe_mix.DATA.parent.parent / "h100" / "reg_banks" / "reg_banks.csv")):
        rows = pipe_mix.profile(path)
        per = pipe_mix.streams(path).set_index("kernel")
        for r in rows[len(rows) // 2:]:                  # the longer run's stall reasons
            s = per.loc[r["kernel"]]
            bound = max(1.0, 2 * s["alu"], 2 * s["fmaheavy"])
            name = re.search(r"([kr]_[a-z0-9_]+?)P", r["kernel"])
            out.append({"gpu": gpu, "stream": name.group(1) if name else r["kernel"], "cpi": s["cycles/inst"],
                        "bound": bound, "gap": s["cycles/inst"] - bound,
                        "dispatch_stall": r["smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio"]})
    return pd.DataFrame(out)


def main() -> None:
    d = launches()
    pd.set_option("display.width", 200)
    fmt = lambda v: f"{v:.2f}"          # noqa: E731
    compute = d[(d["occupancy %"] > 85) & (d["bound"] <= 1.0) & (d["short_scoreboard"] < 0.7)
                & (d["mio_throttle"] < 0.5) & (d["long_scoreboard"] < 3)].sort_values("gap")
    print(f"{len(d)} issue-bound launches of the blind sets profiled on the H200; at full occupancy, "
          f"one pipe's bound at most 1 cycle an instruction and no memory waits: {len(compute)}")
    print(compute[["set", "launch", "cpi", "gap"] + UNMODELLED + ["wait", "not_selected"]]
          .to_string(index=False, float_format=fmt))
    a = np.c_[compute[UNMODELLED].to_numpy(), np.ones(len(compute))]
    coef = np.linalg.lstsq(a, compute["gap"].to_numpy(), rcond=None)[0]
    r = np.corrcoef(a @ coef, compute["gap"])[0, 1]
    print(f"\ngap (cycles an instruction past the pipes' bound): mean {compute['gap'].mean():.2f}, "
          f"median {compute['gap'].median():.2f}, {compute['gap'].min():.2f}-{compute['gap'].max():.2f}")
    print("least squares, gap = " + " + ".join(f"{c:.3f} x {n}" for c, n in zip(coef, UNMODELLED))
          + f" + {coef[-1]:.3f}; r {r:.2f}")
    st = streams()
    print("\nthe microbenchmark streams (pipe_mix.cu on the H200, reg_banks.cu on an H100): where the gap comes with "
          "dispatch stalls, cycles lost per dispatch stall an issue")
    st["per stall"] = st["gap"] / st["dispatch_stall"].where(st["dispatch_stall"] > 0.1)
    print(st.to_string(index=False, float_format=fmt))


if __name__ == "__main__":
    main()
