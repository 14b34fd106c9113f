#!/usr/bin/env bash
# Profile every case of cases.py (nvcc's PTX of probes.cu, run by simt's `cuda` device) with
# Nsight Compute, caches flushed before every launch (its default). Writes to DIR:
#
#   imported.csv            the profiler's raw CSV (long format, base units)
#   imported_manifest.csv   the launches in profiled order
#   imported.log            the run's output
#   gpu.txt                 the GPU, driver and tools
#
#   PYTHONPATH=. bash benchmarks/imported/measure.sh benchmarks/imported/data/h200     # on the H200
#
# Run from the repository root; commit what it writes as it is, then run report.py (no GPU).
set -uo pipefail
DIR=${1:?usage: measure.sh DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
source "$HERE/../timing/ncu_metrics.sh"   # VALID: the held-out timing sets' metrics
COUNTERS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
  nvcc --version | tail -2
  ncu --version | tail -1
} > "$DIR/gpu.txt" 2>&1
start=$SECONDS
timeout 400 ncu --clock-control none --print-units base --csv --metrics "$VALID,$COUNTERS" \
  --log-file "$DIR/imported.csv" python3 "$HERE/measure_gpu.py" --manifest "$DIR/imported_manifest.csv" \
  > "$DIR/imported.log" 2>&1
rc=$?
echo "imported: exit $rc after $((SECONDS - start)) s"
exit $rc
