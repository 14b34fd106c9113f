#!/bin/bash
# Measure simt/calibrate/cuda/store_runs.cu (and store_merge.cu's gaps 0 and 1, the same launches as on the H200,
# to compare GPUs) into DIR: bash benchmarks/timing/store_runs.sh DIR
set -e
D=$1; mkdir -p "$D"; H=$(cd "$(dirname "$0")" && pwd)
M=sm__cycles_elapsed.max,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed_op_global_st.sum,dram__bytes_write.sum
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$D/gpu.txt"
nvcc -O3 -arch=sm_90 -o /tmp/store_runs "$H/../../simt/calibrate/cuda/store_runs.cu"
nvcc -O3 -arch=sm_90 -o /tmp/store_merge "$H/../../simt/calibrate/cuda/store_merge.cu"
ncu --clock-control none --csv --print-units base --metrics $M --log-file "$D/store_runs.csv" /tmp/store_runs "$D/store_runs_manifest.csv" > "$D/store_runs.log" 2>&1
ncu --clock-control none --csv --print-units base --metrics $M --log-file "$D/store_merge_gaps.csv" /tmp/store_merge "$D/store_merge_gaps_manifest.csv" 0 1 > "$D/store_merge_gaps.log" 2>&1
