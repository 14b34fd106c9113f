#!/usr/bin/env bash
# Imported PTX on a GPU: every corpus launch (tests/ptx_cases.py) on 'cuda' against cpu:precise
# (bitwise where the math is exact), dynamic shared memory on the GPU, then the CPU engines'
# tests of imported kernels. Run from the repository root on a machine with a GPU:
#     bash tools/ptx_gpu_check.sh
# It writes benchmarks/results/ptx_gpu_check.txt (commit it with the branch).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
out=benchmarks/results/ptx_gpu_check.txt
mkdir -p "$(dirname "$out")"
{
  echo "# tools/ptx_gpu_check.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  python3 -m pytest -q -rs -p no:cacheprovider tests/test_ptx_engines.py -k "cuda" 2>&1
  python3 - <<'PY'
import sys
sys.path.insert(0, "tests")
import numpy as np
from ptx_cases import CASES, run_case
print("\nper case: cuda vs cpu:precise (exact: bitwise; else max relative difference)")
for case in CASES:
    try:
        gpu, cpu = run_case(case, "cuda:0"), run_case(case, "cpu:precise")
    except Exception as e:        # noqa: BLE001 - reported, the others still run
        print(f"{case[1]:<22} ERROR {type(e).__name__}: {str(e).splitlines()[0]}")
        continue
    same = all(g.tobytes() == c.tobytes() for g, c in zip(gpu, cpu))
    worst = max((float(np.max(np.abs(g.astype(np.float64) - c) / np.maximum(np.abs(c.astype(np.float64)), 1e-30)))
                 if g.size and g.dtype.kind == "f" else float(not np.array_equal(g, c)))
                for g, c in zip(gpu, cpu))
    print(f"{case[1]:<22} {'bitwise' if same else 'differs'}  exact expected: {case[6]}  max rel diff {worst:.3g}")
PY
} 2>&1 | tee "$out"
