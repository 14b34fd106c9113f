#!/usr/bin/env bash
# Where the issue-bound launches' instructions go, per pipe, on one GPU with Nsight Compute
# (read by pipe_mix.py): pipe_mix.cu's single-class and mixed instruction streams, then the
# launches of blind sets 1-10 that the model calls issue-bound at >= 80% occupancy
# (pipe_profile_launches.txt: set, then names; from issue_rate.py), each with every pipe's
# warp instructions, its busy cycles and the issue stall reasons. Metrics this GPU's profiler
# lacks are dropped (its --query-metrics list is saved). Writes to DIR:
#
#   pipe_metrics.txt, pipe_query.txt      the metrics asked for, and those the profiler has
#   pipe_mix.csv, pipe_mix.log            the instruction streams
#   pipes_SET.csv, pipes_SET_manifest.csv the blind launches, set by set
#
#   PYTHONPATH=. bash benchmarks/timing/pipe_profile.sh DIR        # from the repository root
set -uo pipefail
DIR=${1:?usage: pipe_profile.sh DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
ncu --query-metrics > "$DIR/pipe_query.txt" 2>&1
python3 - "$DIR" <<'PY'
import re, sys
d = sys.argv[1]
have = {line.split()[0] for line in open(f"{d}/pipe_query.txt") if re.match(r"^[a-z0-9_]+__\S+\s", line)}
pipes = ["alu", "fma", "fmaheavy", "fmalite", "fp16", "fp64", "xu", "uniform", "lsu", "cbu", "adu", "tensor"]
stalls = ["dispatch_stall", "no_instruction", "branch_resolving", "math_pipe_throttle", "wait", "not_selected",
          "short_scoreboard", "long_scoreboard", "mio_throttle", "lg_throttle", "barrier", "drain", "misc",
          "selected", "sleeping", "membar", "tex_throttle", "imc_miss", "math_dependency"]
want = ["sm__cycles_elapsed.avg", "sm__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__inst_executed.sum",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "smsp__issue_active.avg.per_cycle_active",
        "launch__registers_per_thread"]
want += [f"sm__inst_executed_pipe_{p}.sum" for p in pipes]
want += [f"sm__inst_executed_pipe_{p}.avg.pct_of_peak_sustained_active" for p in pipes]
want += [f"sm__pipe_{p}_cycles_active.avg" for p in pipes + ["shared"]]
want += [f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in stalls]
keep = [m for m in want if m.split(".")[0] in have]
open(f"{d}/pipe_metrics.txt", "w").write(",".join(keep) + "\n")
print(f"{len(keep)} of {len(want)} metrics; missing: {sorted(set(want) - set(keep))}")
PY
M=$(cat "$DIR/pipe_metrics.txt")
NCU=(ncu --clock-control none --print-units base --csv --metrics "$M")
nvcc -O3 -arch=sm_90 -o /tmp/simt_pipe_mix "$HERE/pipe_mix.cu" || exit 1
timeout 240 "${NCU[@]}" --log-file "$DIR/pipe_mix.csv" /tmp/simt_pipe_mix > "$DIR/pipe_mix.log" 2>&1
echo "pipe_mix: exit $? $(tail -1 "$DIR/pipe_mix.log")"
while read -r SET NAMES; do
  [[ -z "$SET" ]] && continue
  start=$SECONDS
  timeout 120 "${NCU[@]}" --log-file "$DIR/pipes_$SET.csv" python3 "$HERE/blind/measure_gpu.py" --set "$SET" \
    --only "$NAMES" --manifest "$DIR/pipes_${SET}_manifest.csv" > "$DIR/pipes_$SET.log" 2>&1
  echo "$SET: exit $? after $((SECONDS - start)) s"
done < "$HERE/pipe_profile_launches.txt"
