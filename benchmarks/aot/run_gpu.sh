#!/usr/bin/env bash
# The ahead-of-time kernels on a GPU machine (the H200): the GPU tests of the C++ runtime and
# the start-up / launch-overhead benchmark. Needs g++, ptxas and fatbinary (CUDA toolkit) and
# a GPU; installs nothing. Run from the repository root:
#
#     PYTHONPATH=. bash benchmarks/aot/run_gpu.sh [RESULTS_DIR]
#
# Writes RESULTS_DIR (default benchmarks/aot/results/h200): machine.txt, tests.txt (pytest of
# tests/test_aot_gpu.py and tests/test_aot.py), bench.txt and results.json (bench_aot.py).
set -u
out=${1:-benchmarks/aot/results/h200}
mkdir -p "$out"
{
    date -u
    git rev-parse HEAD 2>/dev/null
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
    ptxas --version 2>&1 | tail -1
    g++ --version 2>&1 | head -1
} > "$out/machine.txt"
status=0
python3 -m pytest -q -rs tests/test_aot_gpu.py tests/test_aot.py 2>&1 | tee "$out/tests.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
python3 benchmarks/aot/bench_aot.py --out "$out" 2>&1 | tee "$out/bench.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "results in $out (exit status $status)"
exit $status
