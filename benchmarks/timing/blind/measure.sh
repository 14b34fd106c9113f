#!/usr/bin/env bash
# Measure the blind validation set on one GPU with Nsight Compute, as measure.sh measures the
# first held-out set (its `validation` part): simt's PTX of every launch under
# `ncu --clock-control none --csv --print-units base`, caches flushed before every launch
# (Nsight Compute's default), the same metrics. Writes to DIR:
#
#   blind.csv            the profiler's raw CSV (long format, base units)
#   blind_manifest.csv   the launches in profiled order (name, kernel, dim, block_dim)
#   blind.log            the run's output (seconds per launch)
#   gpu.txt              the GPU, driver and tools (only where DIR has none yet)
#
#   PYTHONPATH=. bash benchmarks/timing/blind/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind/measure.sh DIR --dry-run    # anywhere: PTX, ptxas, manifest, the command
#
# Run from the repository root. Copy blind.csv, blind_manifest.csv and blind.log into
# benchmarks/timing/data/h200/ and commit them as they are.
set -uo pipefail
DIR=${1:?usage: measure.sh DIR [--dry-run]}
MODE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"

source "$HERE/../ncu_metrics.sh"   # VALID: the metrics of the first held-out set

CMD=(timeout 570 ncu --clock-control none --print-units base --csv --metrics "$VALID"
     --log-file "$DIR/blind.csv" python3 "$HERE/measure_gpu.py" --manifest "$DIR/blind_manifest.csv")

if [[ "$MODE" == "--dry-run" ]]; then
  echo "would run (from $(pwd)):"
  printf '  %q' "${CMD[@]}"; echo "  > $DIR/blind.log 2>&1"
  python3 "$HERE/measure_gpu.py" --manifest "$DIR/blind_manifest.csv" --dry-run
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
"${CMD[@]}" > "$DIR/blind.log" 2>&1
rc=$?
echo "blind: exit $rc after $((SECONDS - start)) s; $(grep -c . "$DIR/blind_manifest.csv") manifest lines (header included)"
[[ $rc -eq 0 ]] && python3 - "$DIR" <<'EOF'
import sys
sys.path[:0] = ["benchmarks"]
from pathlib import Path
from timing import ncu
df = ncu.load("blind", Path(sys.argv[1]))
print(f"blind: {len(df)} profiled launches match the manifest")
EOF
exit $rc
