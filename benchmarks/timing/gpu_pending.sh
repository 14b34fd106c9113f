#!/usr/bin/env bash
# The measurements waiting for an H200, in the order they are to be taken, each writing under
# DIR (and its own log, DIR/STEP.log, with its wall time): run from the repository root with
# PYTHONPATH=. on the GPU machine; name the steps to run (default: all, in this order).
#
#   blind18      blind set 18: check.py --device cuda (every kernel against its oracle on the
#                GPU), then measure.sh once (DIR/blind18/: the raw CSV, manifest, log, gpu.txt).
#                Measured once: commit the CSVs as they are, then report the model chosen
#                before looking (blind/report.py --set blind18), once.
#   blind19      blind set 19, the same way: check.py --device cuda, then measure.sh once
#                (DIR/blind19/); commit the CSVs as they are, then report once
#                (blind/report.py --set blind19).
#   store        simt/calibrate/cuda/store_concurrency.cu under Nsight Compute
#                (DIR/store_concurrency.csv and its manifest; read by store_concurrency.py).
#   calibrate    simt calibrate --device cuda:0 from scratch (DIR/cal/gpu.json and the
#                measurements it fitted, DIR/cal/measured/; with every part, l1_store_data
#                included).
#   op_overlap   simt/calibrate/op_overlap.py under Nsight Compute (DIR/op_overlap/: the raw CSV,
#                manifest, gpu.txt; read by benchmarks/timing/op_overlap.py and the fit's op_hold),
#                then simt calibrate --parts op_overlap (DIR/op_overlap/calibrate/, the other parts
#                copied from data/h200/calibrated/measured).
#   probes6      probes.py's PROBES6 (fp64 arctangents, tangent, floor, conversions) under Nsight
#                Compute with measure.sh's counters and the XU and FP64 pipes' (DIR/probes6/: the
#                raw CSV, manifest, gpu.txt; read by the fit's op table).
#   l1assoc      simt/calibrate/cuda/l1_assoc.cu under Nsight Compute (DIR/l1_assoc/: the raw CSV,
#                manifest, gpu.txt; read by benchmarks/timing/l1_assoc.py, which fits timing.l1_ways).
#   l2peak       simt/calibrate/cuda/l2_peak.cu under Nsight Compute (DIR/l2_peak/: the raw CSV,
#                manifest, gpu.txt; read by benchmarks/timing/l2_peak.py: the L2's hit bandwidth).
#   l2share      simt/calibrate/cuda/l2_share.cu and simt/calibrate/l2_share.py under Nsight Compute
#                (DIR/l2_share/: the raw CSVs, manifests, gpu.txt; read by benchmarks/timing/l2_share.py:
#                lines several SMs read at once, timing.l2_merge_window_cycles).
#   issuemix     simt/calibrate/cuda/issue_mix.cu under Nsight Compute (DIR/issue_mix/: the raw CSVs,
#                manifest, gpu.txt; read by benchmarks/timing/issue_mix.py: the issue rate of mixed pipes).
#   atomichot    simt/calibrate/cuda/atomic_hot.cu under Nsight Compute (DIR/atomic_hot/: the raw CSV,
#                manifest, gpu.txt; read by benchmarks/timing/atomic_hot.py: atomics on a few hot lines).
#   atomicret    simt/calibrate/cuda/atomic_return.cu under Nsight Compute (DIR/atomic_return/: the raw
#                CSV, manifest, gpu.txt; read by benchmarks/timing/atomic_return.py: returning atomics
#                against reductions by the lines a warp's request spans).
#   l2width      simt/calibrate/cuda/l2_write_width.cu under Nsight Compute (DIR/l2_write_width/: the raw
#                CSV, manifest, gpu.txt; read by benchmarks/timing/l2_write_width.py: the output the L2
#                writes back before a kernel ends, by store width, with and without reads).
#   atomiccomb   simt/calibrate/cuda/atomic_combine.cu under Nsight Compute (DIR/atomic_combine/: the raw
#                CSV, manifest, gpu.txt; read by benchmarks/timing/atomic_combine.py: reductions that
#                a block's warps, or every warp, send to one word or one line).
#   fp64ops      simt/calibrate/cuda/fp64_operands.cu under Nsight Compute (DIR/fp64_operands/: the raw
#                CSV, manifest, gpu.txt, and a second profile of the fp64 pipe, the L1's throughput and
#                the stall reasons; read by benchmarks/timing/fp64_operands.py: DADD and DMUL with
#                register operands, Clenshaw's recurrence, 64-bit loads of one word a warp).
#   tests        the GPU tests (pytest -m simt_gpu), DIR/gpu_tests.txt.
#
#   PYTHONPATH=. bash benchmarks/timing/gpu_pending.sh DIR [blind18] [blind19] [store] [calibrate] [op_overlap] [probes6] [l1assoc] [l2peak] [l2share] [issuemix] [atomichot] [atomicret] [l2width] [atomiccomb] [fp64ops] [tests]
#
# Nothing here fits or reports: it only measures. What each output feeds is named above.
set -u
OUT=${1:?usage: gpu_pending.sh DIR [step ...]}
shift
STEPS=${*:-blind18 blind19 store calibrate op_overlap probes6 l1assoc l2peak l2share issuemix atomichot atomicret l2width atomiccomb fp64ops tests}
mkdir -p "$OUT"
ROOT=$(pwd)
[ -s "$OUT/gpu.txt" ] || { nvidia-smi; nvcc --version; ncu --version; } > "$OUT/gpu.txt" 2>&1

step() {            # step NAME COMMAND...: run it, its output and wall time in DIR/NAME.log
    local name=$1; shift
    local t0=$SECONDS
    echo "== $name: $*" > "$OUT/$name.log"
    "$@" >> "$OUT/$name.log" 2>&1
    local rc=$?
    echo "== $name: rc $rc, $((SECONDS - t0)) s" | tee -a "$OUT/$name.log"
}

blind18() {
    python3 benchmarks/timing/blind18/check.py --device cuda > "$OUT/blind18_check_cuda.txt" 2>&1 || return 1
    bash benchmarks/timing/blind18/measure.sh "$OUT/blind18"
}

blind19() {
    python3 benchmarks/timing/blind19/check.py --device cuda > "$OUT/blind19_check_cuda.txt" 2>&1 || return 1
    bash benchmarks/timing/blind19/measure.sh "$OUT/blind19"
}

store() {
    # shellcheck source=/dev/null
    source benchmarks/timing/ncu_metrics.sh || return 1
    nvcc -O3 -arch=sm_90 -o /tmp/store_concurrency simt/calibrate/cuda/store_concurrency.cu || return 1
    ncu --clock-control none --csv --print-units base \
        --metrics "$BASE,lts__t_sectors_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum" \
        --log-file "$OUT/store_concurrency.csv" /tmp/store_concurrency "$OUT/store_concurrency_manifest.csv"
}

calibrate() {
    mkdir -p "$OUT/cal"
    python3 -m simt.cli calibrate --device cuda:0 --out "$OUT/cal/gpu.json" --keep "$OUT/cal/measured"
}

op_overlap() {
    local d="$OUT/op_overlap"
    mkdir -p "$d/calibrate"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$d/gpu.txt"
    ncu --clock-control none --csv --print-units base --kernel-name regex:op_chain_ \
        --metrics sm__cycles_elapsed.max,smsp__inst_executed.sum --log-file "$d/op_overlap.csv" \
        python3 -m simt.calibrate.op_overlap --measure "$d/op_overlap_manifest.csv" || return 1
    # the other parts' measurements from simt calibrate's H200 run, so the fit has them all
    mkdir -p "$d/calibrate/measured"
    cp -r benchmarks/timing/data/h200/calibrated/measured/. "$d/calibrate/measured/"
    python3 -m simt.cli calibrate --device cuda:0 --parts op_overlap --out "$d/calibrate/gpu.json" \
        --keep "$d/calibrate/measured" > "$d/calibrate/calibrate.log" 2>&1
    local rc=$?
    # keep what this run measured (the copies are in the repository already)
    find "$d/calibrate/measured" -type f ! -name 'op_overlap*' ! -name device.json -delete
    return $rc
}

probes6() {
    local d="$OUT/probes6"
    mkdir -p "$d"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$d/gpu.txt"
    # shellcheck source=/dev/null
    source benchmarks/timing/ncu_metrics.sh || return 1
    local only
    only=$(python3 -c "from simt.calibrate import probes; print(','.join(probes.PROBES6))") || return 1
    ncu --clock-control none --csv --print-units base \
        --metrics "$BASE,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_fp64.sum" \
        --log-file "$d/probes6.csv" python3 benchmarks/timing/measure_gpu.py --set probes --only "$only" \
        --manifest "$d/probes6_manifest.csv"
}

cuda_micro() {      # cuda_micro NAME: DIR/NAME/ with the GPU's facts, /tmp/NAME built from simt/calibrate/cuda/NAME.cu
    mkdir -p "$OUT/$1"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/$1/gpu.txt"
    nvcc -O3 -arch=sm_90 -o "/tmp/$1" "simt/calibrate/cuda/$1.cu"
}

l1assoc() {
    local d="$OUT/l1_assoc"
    cuda_micro l1_assoc || return 1
    ncu --clock-control none --csv --print-units base --cache-control all \
        --metrics sm__cycles_elapsed.max,launch__shared_mem_config_size,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum \
        --log-file "$d/l1_assoc.csv" /tmp/l1_assoc "$d/l1_assoc_manifest.csv"
}

l2peak() {
    local d="$OUT/l2_peak"
    cuda_micro l2_peak || return 1
    ncu --clock-control none --csv --print-units base --cache-control all \
        --metrics sm__cycles_elapsed.max,lts__t_sectors_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio \
        --log-file "$d/l2_peak.csv" /tmp/l2_peak "$d/l2_peak_manifest.csv"
}

l2share() {
    local d="$OUT/l2_share"
    cuda_micro l2_share || return 1
    ncu --clock-control none --csv --print-units base --cache-control all \
        --metrics sm__cycles_elapsed.max,lts__t_sectors_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio \
        --log-file "$d/l2_share.csv" /tmp/l2_share "$d/l2_share_manifest.csv" || return 1
    # the L2's traffic between its partitions, which this ncu may not name: its failure not the step's
    ncu --clock-control none --csv --print-units base --cache-control all \
        --metrics lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum \
        --log-file "$d/l2_share_fabric.csv" /tmp/l2_share "$d/l2_share_fabric_manifest.csv" || true
    # the same sharing in simt kernels, their loads through the L1 (simt/calibrate/l2_share.py)
    ncu --clock-control none --csv --print-units base --cache-control all --kernel-name regex:l2_share \
        --metrics sm__cycles_elapsed.max,lts__t_sectors_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum \
        --log-file "$d/l2_share_simt.csv" python3 -m simt.calibrate.l2_share --measure "$d/l2_share_simt_manifest.csv"
}

issuemix() {
    local d="$OUT/issue_mix"
    cuda_micro issue_mix || return 1
    ncu --clock-control none --csv --print-units base \
        --metrics sm__cycles_elapsed.max,smsp__inst_executed.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fp64.sum,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio \
        --log-file "$d/issue_mix.csv" /tmp/issue_mix "$d/issue_mix_manifest.csv" || return 1
    # the stall reasons this ncu may not have: a second profile, its failure not the step's
    ncu --clock-control none --csv --print-units base \
        --metrics smsp__issue_active.avg.per_cycle_active,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio \
        --log-file "$d/issue_mix_stalls.csv" /tmp/issue_mix "$d/issue_mix_stalls_manifest.csv" || true
    # the same kernels in simt (benchmarks/timing/issue_mix.py), the SASS simt's model replays
    ncu --clock-control none --csv --print-units base --kernel-name regex:mix \
        --metrics sm__cycles_elapsed.max,smsp__inst_executed.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fp64.sum \
        --log-file "$d/issue_mix_simt.csv" python3 benchmarks/timing/issue_mix.py --measure "$d/issue_mix_simt_manifest.csv"
}

base_profile() {    # base_profile NAME: simt/calibrate/cuda/NAME.cu under Nsight Compute with BASE's metrics
    cuda_micro "$1" || return 1
    # shellcheck source=/dev/null
    source benchmarks/timing/ncu_metrics.sh || return 1
    ncu --clock-control none --csv --print-units base --metrics "$BASE" \
        --log-file "$OUT/$1/$1.csv" "/tmp/$1" "$OUT/$1/$1_manifest.csv"
}

# BASE counts the L2's reduction and atomic sectors (lts__t_sectors_op_red.sum, _op_atom.sum)
atomichot() { base_profile atomic_hot; }
atomicret() { base_profile atomic_return; }
l2width() { base_profile l2_write_width; }
atomiccomb() {
    base_profile atomic_combine || return 1
    # the requests the SMs send and the L2 receives as reductions (a second profile, its failure
    # not the step's: these names may be missing from this ncu)
    ncu --clock-control none --csv --print-units base \
        --metrics sm__cycles_elapsed.max,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum,lts__t_requests_op_red.sum,lts__t_sectors_op_red.sum \
        --log-file "$OUT/atomic_combine/atomic_combine_requests.csv" /tmp/atomic_combine "$OUT/atomic_combine/atomic_combine_requests_manifest.csv" || true
}

fp64ops() {
    base_profile fp64_operands || return 1
    local m=sm__cycles_elapsed.max,sm__inst_executed_pipe_fp64.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
    for r in wait math_pipe_throttle not_selected dispatch_stall long_scoreboard lg_throttle; do
        m=$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
    done
    # a second profile, its failure not the step's: these names may be missing from this ncu
    ncu --clock-control none --csv --print-units base --metrics "$m" \
        --log-file "$OUT/fp64_operands/fp64_operands_detail.csv" /tmp/fp64_operands "$OUT/fp64_operands/fp64_operands_detail_manifest.csv" || true
}

tests() {
    python3 -m pytest -q -m simt_gpu -n 8 tests > "$OUT/gpu_tests.txt" 2>&1
}

for s in $STEPS; do
    case $s in
        blind18|blind19|store|calibrate|op_overlap|probes6|l1assoc|l2peak|l2share|issuemix|atomichot|atomicret|l2width|atomiccomb|fp64ops|tests) (cd "$ROOT" && step "$s" "$s") ;;
        *) echo "unknown step $s (blind18, blind19, store, calibrate, op_overlap, probes6, l1assoc, l2peak, l2share, issuemix, atomichot, atomicret, l2width, atomiccomb, fp64ops, tests)"; exit 2 ;;
    esac
done
