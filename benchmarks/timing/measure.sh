#!/usr/bin/env bash
# Measure everything the timing model is calibrated and validated on, on one GPU, with Nsight
# Compute. Writes raw CSVs (the profiler's long format, base units) and manifests to DIR:
#
#   micro.csv / micro_manifest.csv        CUDA C microbenchmarks (micro.cu): the constants
#   micro2.csv / micro2_manifest.csv      more of them (micro2.cu), and micro3/micro4.csv likewise
#   probes2.csv / probes2_manifest.csv    op probes added later (constant and varying divisors, loops)
#   probes4.csv / probes4_manifest.csv    fp64 math function probes (exp, log, sin, cos, pow)
#   probes5.csv / probes5_manifest.csv    64-bit division probes (signed, unsigned, constant divisor)
#   loaded_latency.csv                    DRAM and L2 latency under traffic (micro5.cu, clock64, no profiler)
#   loaded_latency_writes.csv             DRAM latency under write and copy traffic (micro8.cu, likewise)
#   micro6.csv, micro7.csv                one-element-per-thread and grid-stride streams (micro6/7.cu)
#   micro9.csv / micro9_manifest.csv      shared and global memory on one L1 data stage (micro9.cu)
#   micro9_simt.csv / ..._manifest.csv    the same mixes written in simt (micro9_simt.py)
#   warp_words.csv / ..._manifest.csv     atomics and stores on few words, struct reads (simt/calibrate/warp_words.py)
#   hot_words.csv / ..._manifest.csv      atomics of every warp on a few hot words (hot_words.py)
#   hot_stores.csv / ..._manifest.csv     a flag every warp stores, after a stream or a sweep (hot_stores.py)
#   steady_writes.csv / ..._manifest.csv  write-backs of copies after work (steady_writes.py)
#   l2cap.csv / l2cap_manifest.csv        L2 capacity: reads of a buffer twice, cache control off
#   probes.csv / probes_manifest.csv      op probes through simt's own PTX (probes.py)
#   calib.csv / calib_manifest.csv        microbenchmark patterns written in simt (calib.py)
#   validation.csv / validation_manifest.csv   the held-out launches (cases.py)
#   gpu.txt                               the GPU, driver and clocks
#
#   bash benchmarks/timing/measure.sh DIR [micro,l2cap,probes,validation]
# Run from the repository root with PYTHONPATH=. (about 5 minutes on an H200).
set -uo pipefail
DIR=${1:?usage: measure.sh DIR [parts]}
PARTS=${2:-micro,micro2,micro3,micro4,micro5,micro6,micro7,micro8,micro9,warp_words,steady_writes,l2cap,probes,probes2,probes3,probes4,probes5,calib,calib2,validation}
mkdir -p "$DIR"
HERE=$(cd "$(dirname "$0")" && pwd)
has() { [[ ",$PARTS," == *",$1,"* ]]; }
# probes added after the first measurement (probes2.csv)
PROBES2=i32_div_pow2_add,i32_rem_pow2_add,i32_div_const_add,i32_rem_const_add,i32_div_vary_add,i32_rem_vary_add,i32_mad,f32_add,f32_add@loop
PROBES4=f64_exp_mul,f64_log_add,f64_sin,f64_cos,f64_pow
PROBES5=i64_div_vary_add,i64_rem_vary_add,i64_div_const_add,i64_rem_const_add,u64_div_vary_add,u64_rem_vary_add,i64_mad
NCU=(ncu --clock-control none --print-units base --csv)

source "$HERE/ncu_metrics.sh"      # BASE and VALID

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
  nvcc --version | tail -2
  ncu --version | tail -1
} > "$DIR/gpu.txt" 2>&1

if has micro || has l2cap; then
  nvcc -O3 -arch=sm_90 -o /tmp/simt_micro "$HERE/micro.cu" || exit 1
fi
if has micro; then
  timeout 900 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/micro.csv" \
    /tmp/simt_micro "$DIR/micro_manifest.csv" > "$DIR/micro.log" 2>&1
  echo "micro: exit $? $(tail -1 "$DIR/micro.log")"
fi
if has micro3; then
  nvcc -O3 -arch=sm_90 -o /tmp/simt_micro3 "$HERE/micro3.cu" || exit 1
  timeout 600 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/micro3.csv" \
    /tmp/simt_micro3 "$DIR/micro3_manifest.csv" > "$DIR/micro3.log" 2>&1
  echo "micro3: exit $? $(tail -1 "$DIR/micro3.log")"
fi
if has micro4; then
  nvcc -O3 -arch=sm_90 -o /tmp/simt_micro4 "$HERE/micro4.cu" || exit 1
  timeout 600 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/micro4.csv" \
    /tmp/simt_micro4 "$DIR/micro4_manifest.csv" > "$DIR/micro4.log" 2>&1
  echo "micro4: exit $? $(tail -1 "$DIR/micro4.log")"
fi
if has micro5; then      # timed in-kernel; the profiler's cycles and time give the clock
  nvcc -O3 -arch=sm_90 -o /tmp/simt_micro5 "$HERE/micro5.cu" || exit 1
  timeout 300 "${NCU[@]}" --metrics sm__cycles_elapsed.max,gpu__time_duration.sum,dram__bytes_read.sum \
    --log-file "$DIR/micro5.csv" /tmp/simt_micro5 > "$DIR/loaded_latency.csv" 2> "$DIR/micro5.log"
  echo "micro5: exit $?"
fi
for part in micro6 micro7; do
  if has $part; then
    nvcc -O3 -arch=sm_90 -o /tmp/simt_$part "$HERE/$part.cu" || exit 1
    timeout 600 "${NCU[@]}" --metrics "$BASE,sm__warps_active.avg.pct_of_peak_sustained_active" \
      --log-file "$DIR/$part.csv" /tmp/simt_$part "$DIR/${part}_manifest.csv" > "$DIR/$part.log" 2>&1
    echo "$part: exit $? $(tail -1 "$DIR/$part.log")"
  fi
done
if has micro9; then
  nvcc -O3 -arch=sm_90 -o /tmp/simt_micro9 "$HERE/micro9.cu" || exit 1
  timeout 600 "${NCU[@]}" --metrics "$BASE,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio" \
    --log-file "$DIR/micro9.csv" /tmp/simt_micro9 "$DIR/micro9_manifest.csv" > "$DIR/micro9.log" 2>&1
  echo "micro9: exit $? $(tail -1 "$DIR/micro9.log")"
  # the same mixes written in simt, through simt's own PTX: what the model predicts, measured
  timeout 600 "${NCU[@]}" --kernel-name regex:mix --metrics "$BASE,l1tex__data_pipe_lsu_wavefronts.sum" \
    --log-file "$DIR/micro9_simt.csv" python3 "$HERE/micro9_simt.py" "$DIR/micro9_simt_manifest.csv" \
    > "$DIR/micro9_simt.log" 2>&1
  echo "micro9_simt: exit $?"
fi
if has hot_words; then   # written in simt, as warp_words (not in the default parts: not fitted)
  timeout 300 "${NCU[@]}" --kernel-name regex:hot_add \
    --metrics "$VALID,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum" \
    --log-file "$DIR/hot_words.csv" python3 "$HERE/hot_words.py" --measure "$DIR/hot_words_manifest.csv" \
    > "$DIR/hot_words.log" 2>&1
  echo "hot_words: exit $?"
fi
if has hot_stores; then   # written in simt, as hot_words (not in the default parts: not fitted)
  timeout 300 "${NCU[@]}" --kernel-name regex:'flag_stream|ccl_' --metrics "$VALID" \
    --log-file "$DIR/hot_stores.csv" python3 "$HERE/hot_stores.py" --measure "$DIR/hot_stores_manifest.csv" \
    > "$DIR/hot_stores.log" 2>&1
  echo "hot_stores: exit $?"
fi
if has warp_words; then  # written in simt: the instructions the model predicts, measured
  timeout 600 "${NCU[@]}" --kernel-name regex:'atomic_add|atomic_or|flag_store|struct_read|soa_read' \
    --metrics "$VALID,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum" \
    --log-file "$DIR/warp_words.csv" python3 -m simt.calibrate.warp_words --measure "$DIR/warp_words_manifest.csv" \
    > "$DIR/warp_words.log" 2>&1
  echo "warp_words: exit $?"
  # the records again, counting the L1 data stage's wavefronts (a manifest of those launches only)
  timeout 300 "${NCU[@]}" --kernel-name regex:'struct_read|soa_read' \
    --metrics sm__cycles_elapsed.max,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
    --log-file "$DIR/warp_words_wavefronts.csv" python3 -m simt.calibrate.warp_words --measure "$DIR/ww_all.csv" \
    > "$DIR/warp_words_wavefronts.log" 2>&1
  python3 -c "import pandas as pd; m = pd.read_csv('$DIR/ww_all.csv'); m = m[m.bench == 'struct'].reset_index(drop=True); \
m['launch'] = range(len(m)); m.to_csv('$DIR/warp_words_wavefronts_manifest.csv', index=False)" && rm -f "$DIR/ww_all.csv"
fi
if has steady_writes; then  # a copy after dependent sines: the same bytes written back whatever the work
  timeout 300 "${NCU[@]}" --kernel-name regex:'copy_after_work' --metrics "$VALID" \
    --log-file "$DIR/steady_writes.csv" python3 "$HERE/steady_writes.py" --measure "$DIR/steady_writes_manifest.csv" \
    > "$DIR/steady_writes.log" 2>&1
  echo "steady_writes: exit $?"
fi
if has micro8; then      # timed in-kernel, like micro5
  nvcc -O3 -arch=sm_90 -o /tmp/simt_micro8 "$HERE/micro8.cu" || exit 1
  timeout 300 /tmp/simt_micro8 > "$DIR/loaded_latency_writes.csv" 2> "$DIR/micro8.log"
  echo "micro8: exit $?"
  # the same program once more under the profiler: its clock and DRAM bytes per launch
  timeout 300 "${NCU[@]}" --metrics sm__cycles_elapsed.max,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    --log-file "$DIR/micro8.csv" /tmp/simt_micro8 > /dev/null 2>> "$DIR/micro8.log"
fi
if has probes2; then
  timeout 600 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/probes2.csv" \
    python3 "$HERE/measure_gpu.py" --set probes --only "$PROBES2" --manifest "$DIR/probes2_manifest.csv" \
    > "$DIR/probes2.log" 2>&1
  echo "probes2: exit $?"
fi
if has probes4; then     # fp64 math functions, probed after the others
  timeout 300 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/probes4.csv" \
    python3 "$HERE/measure_gpu.py" --set probes --only "$PROBES4" --manifest "$DIR/probes4_manifest.csv" \
    > "$DIR/probes4.log" 2>&1
  echo "probes4: exit $?"
fi
if has probes5; then     # 64-bit division, probed after the others
  timeout 300 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/probes5.csv" \
    python3 "$HERE/measure_gpu.py" --set probes --only "$PROBES5" --manifest "$DIR/probes5_manifest.csv" \
    > "$DIR/probes5.log" 2>&1
  echo "probes5: exit $?"
fi
if has probes3; then     # float min/max re-probed after their lowering changed
  timeout 300 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/probes3.csv" \
    python3 "$HERE/measure_gpu.py" --set probes --only f32_mul_max,f32_mul --manifest "$DIR/probes3_manifest.csv" \
    > "$DIR/probes3.log" 2>&1
  echo "probes3: exit $?"
fi
if has micro2; then
  nvcc -O3 -arch=sm_90 -o /tmp/simt_micro2 "$HERE/micro2.cu" || exit 1
  timeout 600 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/micro2.csv" \
    /tmp/simt_micro2 "$DIR/micro2_manifest.csv" > "$DIR/micro2.log" 2>&1
  echo "micro2: exit $? $(tail -1 "$DIR/micro2.log")"
fi
if has l2cap; then
  timeout 300 "${NCU[@]}" --cache-control none \
    --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.max,gpu__time_duration.sum \
    --log-file "$DIR/l2cap.csv" /tmp/simt_micro "$DIR/l2cap_manifest.csv" --l2-capacity > "$DIR/l2cap.log" 2>&1
  echo "l2cap: exit $?"
fi
if has probes; then
  timeout 600 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/probes.csv" \
    python3 "$HERE/measure_gpu.py" --set probes --manifest "$DIR/probes_manifest.csv" > "$DIR/probes.log" 2>&1
  echo "probes: exit $?"
fi
if has calib; then
  timeout 600 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/calib.csv" \
    python3 "$HERE/measure_gpu.py" --set calib --manifest "$DIR/calib_manifest.csv" > "$DIR/calib.log" 2>&1
  echo "calib: exit $?"
fi
if has calib2; then     # calibration kernels added after the first measurement
  timeout 600 "${NCU[@]}" --metrics "$BASE" --log-file "$DIR/calib2.csv" \
    python3 "$HERE/measure_gpu.py" --set calib --only one_store,load_store --manifest "$DIR/calib2_manifest.csv" \
    > "$DIR/calib2.log" 2>&1
  echo "calib2: exit $?"
fi
if has validation; then
  timeout 900 "${NCU[@]}" --metrics "$VALID" --log-file "$DIR/validation.csv" \
    python3 "$HERE/measure_gpu.py" --set validation --manifest "$DIR/validation_manifest.csv" \
    > "$DIR/validation.log" 2>&1
  echo "validation: exit $?"
fi
wc -l "$DIR"/*.csv
