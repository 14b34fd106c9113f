#!/usr/bin/env bash
# Measure a blind validation set on one GPU with Nsight Compute, as measure.sh measures the
# first held-out set (its `validation` part): simt's PTX of every launch under
# `ncu --clock-control none --csv --print-units base`, caches flushed before every launch
# (Nsight Compute's default), the same metrics. The set is BLIND_SET (default blind: this
# folder; blind2: ../blind2, blind3: ../blind3, blind4: ../blind4, blind5: ../blind5, blind6:
# ../blind6, blind7: ../blind7, blind8: ../blind8, blind9: ../blind9, blind10: ../blind10,
# blind11: ../blind11, blind12: ../blind12, blind13: ../blind13, blind14: ../blind14, blind15:
# ../blind15, blind16: ../blind16, blind17: ../blind17, blind18: ../blind18 and blind19:
# ../blind19, whose measure.sh set it). Writes to DIR, SET the set's name:
#
#   SET.csv              the profiler's raw CSV (long format, base units)
#   SET_manifest.csv     the launches in profiled order (name, kernel, dim, block_dim)
#   SET.log              the run's output (seconds per launch)
#   gpu.txt              the GPU, driver and tools (only where DIR has none yet)
#
#   PYTHONPATH=. bash benchmarks/timing/blind/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind/measure.sh DIR --dry-run    # anywhere: PTX, ptxas, manifest, the command
#   PYTHONPATH=. bash benchmarks/timing/blind2/measure.sh DIR             # the second set
#   PYTHONPATH=. bash benchmarks/timing/blind3/measure.sh DIR             # the third set
#   PYTHONPATH=. bash benchmarks/timing/blind4/measure.sh DIR             # the fourth set
#   PYTHONPATH=. bash benchmarks/timing/blind5/measure.sh DIR             # the fifth set
#   PYTHONPATH=. bash benchmarks/timing/blind6/measure.sh DIR             # the sixth set
#   PYTHONPATH=. bash benchmarks/timing/blind7/measure.sh DIR             # the seventh set
#   PYTHONPATH=. bash benchmarks/timing/blind8/measure.sh DIR             # the eighth set
#   PYTHONPATH=. bash benchmarks/timing/blind9/measure.sh DIR             # the ninth set
#   PYTHONPATH=. bash benchmarks/timing/blind10/measure.sh DIR            # the tenth set
#   PYTHONPATH=. bash benchmarks/timing/blind11/measure.sh DIR            # the eleventh set
#   PYTHONPATH=. bash benchmarks/timing/blind12/measure.sh DIR            # the twelfth set
#   PYTHONPATH=. bash benchmarks/timing/blind13/measure.sh DIR            # the thirteenth set
#   PYTHONPATH=. bash benchmarks/timing/blind14/measure.sh DIR            # the fourteenth set
#   PYTHONPATH=. bash benchmarks/timing/blind15/measure.sh DIR            # the fifteenth set
#   PYTHONPATH=. bash benchmarks/timing/blind16/measure.sh DIR            # the sixteenth set
#   PYTHONPATH=. bash benchmarks/timing/blind17/measure.sh DIR            # the seventeenth set
#   PYTHONPATH=. bash benchmarks/timing/blind18/measure.sh DIR            # the eighteenth set
#   PYTHONPATH=. bash benchmarks/timing/blind19/measure.sh DIR            # the nineteenth set
#
# Run from the repository root. Copy SET.csv, SET_manifest.csv and SET.log into
# benchmarks/timing/data/h200/ and commit them as they are.
set -uo pipefail
DIR=${1:?usage: measure.sh DIR [--dry-run]}
MODE=${2:-}
SET=${BLIND_SET:-blind}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"

source "$HERE/../ncu_metrics.sh"   # VALID: the metrics of the first held-out set

SETARG=()
[[ "$SET" != blind ]] && SETARG=(--set "$SET")
CMD=(timeout 570 ncu --clock-control none --print-units base --csv --metrics "$VALID"
     --log-file "$DIR/$SET.csv" python3 "$HERE/measure_gpu.py" ${SETARG[@]+"${SETARG[@]}"} --manifest "$DIR/${SET}_manifest.csv")

if [[ "$MODE" == "--dry-run" ]]; then
  echo "would run (from $(pwd)):"
  printf '  %q' "${CMD[@]}"; echo "  > $DIR/$SET.log 2>&1"
  python3 "$HERE/measure_gpu.py" ${SETARG[@]+"${SETARG[@]}"} --manifest "$DIR/${SET}_manifest.csv" --dry-run
  exit $?
fi

if [[ ! -e "$DIR/gpu.txt" ]]; then
  {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
    nvcc --version | tail -2
    ncu --version | tail -1
  } > "$DIR/gpu.txt" 2>&1
fi
start=$SECONDS
"${CMD[@]}" > "$DIR/$SET.log" 2>&1
rc=$?
echo "$SET: exit $rc after $((SECONDS - start)) s; $(grep -c . "$DIR/${SET}_manifest.csv") manifest lines (header included)"
[[ $rc -eq 0 ]] && python3 - "$DIR" "$SET" <<'EOF'
import sys
sys.path[:0] = ["benchmarks"]
from pathlib import Path
from timing import ncu
df = ncu.load(sys.argv[2], Path(sys.argv[1]))
print(f"{sys.argv[2]}: {len(df)} profiled launches match the manifest")
EOF
exit $rc
