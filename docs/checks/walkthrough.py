"""Every snippet of docs/checks/README.md, in order; what each prints is what the README shows.

    python3 docs/checks/walkthrough.py   (from anywhere)
"""
# %% setup
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
os.chdir(ROOT)
sys.path[:0] = [str(ROOT), str(ROOT / "docs" / "checks")]

import numpy as np
import pandas as pd

import simt as wp
import example_kernels as k

pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
x = wp.array(np.ones(256, dtype=np.float32))

# %% race
sums = wp.zeros(2)
result = wp.launch(k.reduce_no_barrier, dim=256, inputs=[x, sums], block_dim=128, check="race")
print(result.hazards[["check", "kind", "line", "other_line", "array", "index", "count"]])
print()
print(result.hazards.report[0])

# %% race_global
total = wp.zeros(1)
result = wp.launch(k.last_block_wins, dim=256, inputs=[total], block_dim=128, check="race")
print(result.hazards.report[0])

# %% race_warp
result = wp.launch(k.warp_sum_no_syncwarp, dim=64, inputs=[x, wp.zeros(2)], block_dim=32,
                   check="race")
print(result.hazards.report[0])

# %% init_shared
out = wp.zeros(128)
result = wp.launch(k.half_filled, dim=128, inputs=[x, out], block_dim=64, check="init")
print(result.hazards.report[0])
print("\nout[:3] =", out.numpy()[:3], " out[-3:] =", out.numpy()[-3:])

# %% init_empty
scratch = wp.empty(256)                  # nothing wrote it yet
doubled = wp.zeros(256)
result = wp.launch(k.scale, dim=256, inputs=[scratch, doubled], check="init")
print(result.hazards.report[0])

# %% sync_barrier
result = wp.launch(k.early_barrier, dim=64, inputs=[x, wp.zeros(64)], block_dim=64, check="sync")
print(result.hazards.report[0])

# %% sync_mask
result = wp.launch(k.half_warp_shuffle, dim=32, inputs=[x, wp.zeros(32)], block_dim=32,
                   check="sync")
print(result.hazards.report[0])

# %% raise
try:
    wp.launch(k.reduce_no_barrier, dim=256, inputs=[x, wp.zeros(2)], block_dim=128,
              check="all", raise_on_hazard=True)
except wp.HazardError as e:
    print(type(e).__name__, "with", len(e.hazards), "report(s):", str(e).splitlines()[0])

# %% cli
proc = subprocess.run([sys.executable, "-m", "simt", "run", "--check", "all",
                       "docs/checks/cli_example.py"], capture_output=True, text=True,
                      env=dict(os.environ, PYTHONPATH=str(ROOT)))
print(proc.stdout + proc.stderr + f"(exit status {proc.returncode})")

# %% compile
import compile_errors
from simt.ir.compile import compile_kernel
from simt.ir.mir import LaunchSig

for name in ("huge_constant", "shift_too_far", "divide_by_zero", "assigned_on_one_path",
             "matmul_on_scalars", "mixed_ternary"):
    try:
        compile_kernel(getattr(compile_errors, name), LaunchSig(), False, False)
    except wp.CompileError as e:
        print(e, end="\n\n")

# %% runaway
import time

start = time.perf_counter()
try:
    wp.launch(k.forgot_increment, dim=1024, inputs=[10, wp.zeros(1024, dtype=int)])
except wp.StepLimitError as e:
    print(e)
print(f"\nstopped after {time.perf_counter() - start:.1f} s")
