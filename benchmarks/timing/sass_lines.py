"""Where a launch's predicted SASS instructions come from, source line by source line: the
diagnosis behind sass_counts.py's launches that are far off.

    PYTHONPATH=. python3 benchmarks/timing/sass_lines.py SET LAUNCH [--arch sm_90]

Runs the launch on cpu:precise and prints per source line: the MIR's warp executions of the
line, the issue slots the model gives those executions (``smsp__inst_issued`` by line), and
what ptxas made of the line: its SASS instructions in the kernel outside loops, in loops
(with the loop's index), and in the functions simt emits and calls from it (fp64 math). The
measured total, where the set was measured, is printed beside the predicted one. A report,
never an input: nothing here fits or tunes the model.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import simt as wp  # noqa: E402
from simt.sim.precise import metrics as pm  # noqa: E402
from simt.sim.timing import model, sass_replay  # noqa: E402
from timing import cases as base_cases  # noqa: E402
from timing.blind.report import cases_of  # noqa: E402
from timing import ncu  # noqa: E402


def capture():
    """Run with Counters.metrics keeping its Counters (the last launch's)."""
    kept = {}
    original = pm.Counters.metrics

    def keep(self, *a, **k):
        kept["c"] = self
        return original(self, *a, **k)
    pm.Counters.metrics = keep
    return kept


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("set")
    ap.add_argument("launch")
    ap.add_argument("--arch", default="sm_90")
    args = ap.parse_args()
    wp.set_module_options({"arch": args.arch})
    cases = cases_of(args.set)
    launch = next((l for l in cases.LAUNCHES if l.name == args.launch), None)
    if launch is None:
        sys.exit(f"{args.set}: no launch {args.launch}")
    kept = capture()
    _, r = base_cases.run(launch, "cpu:precise")
    c = kept["c"]
    prog, arch = c.prog, c.arch
    tab = model._tables(prog, arch)
    df, why = sass_replay.sass_table(prog, arch)
    if df is None:
        sys.exit(f"no SASS: {why}")
    kernel = df["function"].iloc[0]
    own = df[(df["function"] == kernel) & (df["opcode"] != "NOP")]
    calls = own[own["opcode"] == "CALL"]
    sizes = {name: int((rows["opcode"] != "NOP").sum()) for name, rows in df.groupby("function")}
    rows = {}
    i = 0
    for b, blk in enumerate(prog.blocks):
        for ins in blk.instrs:
            line = ins.loc.line if ins.loc is not None else 0
            x = rows.setdefault(line, [0, 0.0, 0])
            x[0] += int(c.exec_warps[b])
            x[1] += float(c.exec_warps[b]) * float(tab.sass[i])
            x[2] += 1
            i += 1
    scale = r.metrics["smsp__inst_issued.sum"] / max(1.0, sum(x[1] for x in rows.values()))
    print(f"{args.set} {args.launch}: predicted smsp__inst_issued.sum {r.metrics['smsp__inst_issued.sum']:,.0f} "
          f"(MIR warp instructions {r.metrics['smsp__inst_executed.sum']:,}; recorded share x{scale:.3g})")
    try:
        meas = ncu.load(args.set)
        hit = meas[meas["name"] == args.launch]
        if len(hit) and "smsp__inst_executed.sum" in hit:
            print(f"measured smsp__inst_executed.sum {float(hit['smsp__inst_executed.sum'].iloc[0]):,.0f}")
    except Exception as e:  # noqa: BLE001  (no measurement: say so)
        print(f"(no measurement read: {e})")
    print(f"{'line':>5} {'MIR ins':>7} {'warp execs':>12} {'slots/exec':>10} {'pred slots':>14}  "
          f"{'SASS out':>8} {'SASS loops':>16} calls")
    src = {}
    for ins in (x for blk in prog.blocks for x in blk.instrs):
        if ins.loc is not None:
            src[ins.loc.line] = ins.loc
    for line in sorted(set(rows) | {int(x) for x in own["line"] if x >= 0}):
        n_mir, execs, slots = rows.get(line, [0, 0, 0.0])[2], rows.get(line, [0, 0, 0.0])[0], rows.get(line, [0, 0, 0.0])[1]
        at = own[own["line"] == line]
        out = int((at["loop"] == -1).sum())
        loops = at[at["loop"] >= 0]["loop"].value_counts().sort_index()
        lp = " ".join(f"L{k}:{v}" for k, v in loops.items())
        called = [str(o) for o in calls[calls["line"] == line]["operands"]]
        names = []
        for o in called:
            m = o.split("`(")[-1].rstrip(")") if "`(" in o else o
            names.append(f"{m[:28]}({sizes.get(m, '?')})")
        per = slots / execs if execs else 0.0
        print(f"{line:>5} {n_mir:>7} {execs:>12,} {per:>10.1f} {slots * scale:>14,.0f}  {out:>8} {lp:>16} "
              f"{' '.join(names)}")
    print("SASS loops:", [(lp["loop"], lp["start"], lp["end"], lp["unroll"]) for lp in df.attrs.get("loops", [])])


if __name__ == "__main__":
    main()
