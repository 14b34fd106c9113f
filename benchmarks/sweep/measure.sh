#!/usr/bin/env bash
# Measure every configuration of benchmarks/sweep/kernels.py on one GPU with Nsight Compute:
# simt's PTX of each launch (device `cuda`) under `ncu --clock-control none --csv --print-units
# base`, caches flushed before every launch (Nsight Compute's default, as simt's model assumes).
# Writes to DIR:
#
#   sweep.csv            the profiler's raw CSV (long format, base units)
#   sweep_manifest.csv   the launches in profiled order (kernel, config as JSON, rep, shapes, correct)
#   sweep.log            the run's output (seconds per configuration)
#   gpu.txt              the GPU, driver and tools
#
#   PYTHONPATH=. bash benchmarks/sweep/measure.sh benchmarks/sweep/data/h200            # on the H200
#   PYTHONPATH=. bash benchmarks/sweep/measure.sh /tmp/sweep-dry --dry-run              # anywhere
#
# Run from the repository root; commit what it writes under benchmarks/sweep/data/h200/ as it
# is, then run benchmarks/sweep/report.py (no GPU) for the comparison with simt's ranking.
set -uo pipefail
DIR=${1:?usage: measure.sh DIR [--dry-run]}
MODE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"

METRICS=gpc__cycles_elapsed.max,sm__cycles_elapsed.max,gpu__time_duration.sum,launch__registers_per_thread
CMD=(timeout 230 ncu --clock-control none --print-units base --csv --metrics "$METRICS"
     --log-file "$DIR/sweep.csv" python3 "$HERE/measure_gpu.py" --manifest "$DIR/sweep_manifest.csv")

if [[ "$MODE" == "--dry-run" ]]; then
  echo "would run (from $(pwd)):"
  printf '  %q' "${CMD[@]}"; echo "  > $DIR/sweep.log 2>&1"
  python3 "$HERE/measure_gpu.py" --manifest "$DIR/sweep_manifest.csv" --dry-run
  exit $?
fi

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
  nvcc --version | tail -2
  ncu --version | tail -1
} > "$DIR/gpu.txt" 2>&1
start=$SECONDS
"${CMD[@]}" > "$DIR/sweep.log" 2>&1
rc=$?
echo "sweep: exit $rc after $((SECONDS - start)) s; $(grep -c . "$DIR/sweep_manifest.csv") manifest lines (header included)"
[[ $rc -eq 0 ]] && python3 - "$DIR" <<'PY'
import sys
from pathlib import Path
from simt.calibrate.ncu_csv import load
df = load("sweep", Path(sys.argv[1]))
print(f"sweep: {len(df)} profiled launches match the manifest; "
      f"{int((df.correct == 0).sum())} configurations computed wrong results")
PY
exit $rc
