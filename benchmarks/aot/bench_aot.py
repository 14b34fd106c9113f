"""Start-up and launch overhead of simt's C/C++ runtime, against cuLaunchKernel called directly.

Builds a saxpy kernel ahead of time (cpu target, and cuda when a GPU is here), compiles
bench_launch.cpp with g++ against the runtime header, runs it and prints the figures with
their ratios (all measured in this run). On the H200: benchmarks/aot/run_gpu.sh.

    PYTHONPATH=. python3 benchmarks/aot/bench_aot.py [--out DIR] [--launches N]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import simt as wp
from simt import runtime
from simt.aot import build_kernel

HERE = Path(__file__).resolve().parent


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def gpu_here() -> bool:
    from simt.gpu import runtime as gpu
    return gpu.unavailable_reason(0) is None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="directory for results.json")
    parser.add_argument("--launches", type=int, default=20000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="simt-aot-bench-"))
    exe = work / "bench_launch"
    subprocess.run([shutil.which("g++") or "g++", "-std=c++17", "-O2", *runtime.cflags(),
                    str(HERE / "bench_launch.cpp"), "-o", str(exe), *runtime.libs()], check=True)
    targets = [("cpu", "cpu")] + ([("cuda", "cuda:0")] if gpu_here() else [])
    if len(targets) == 1:
        print("no GPU here: the cpu target only", file=sys.stderr)
    results = []
    for target, device in targets:
        arch = {}
        if target == "cuda":
            from simt.gpu import runtime as gpu
            arch = {"arch": gpu.context(0).arch}
        out = build_kernel(saxpy, target=target, out_dir=work / target, **arch)
        proc = subprocess.run([str(exe), device, str(out), str(args.launches)], capture_output=True,
                              text=True, check=True)
        r = json.loads(proc.stdout)
        results.append(r)
        print(f"{device}: context {r['context_ms']:.3f} ms; load_kernel {r['load_ms']:.3f} ms; first launch "
              f"done {r['first_launch_ms']:.3f} ms; load to first launch done {r['load_to_first_ms']:.3f} ms")
        print(f"{device}: per launch {r['simt_launch_us']:.3f} us through simt vs {r['direct_launch_us']:.3f} us "
              f"direct ({'cuLaunchKernel' if target == 'cuda' else 'the library entry'}): overhead "
              f"{r['simt_launch_us'] - r['direct_launch_us']:.3f} us, ratio "
              f"{r['simt_launch_us'] / r['direct_launch_us']:.2f}x")
        print(f"{device}: launch + synchronize {r['simt_roundtrip_us']:.3f} us through simt vs "
              f"{r['direct_roundtrip_us']:.3f} us direct, ratio "
              f"{r['simt_roundtrip_us'] / r['direct_roundtrip_us']:.2f}x")
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
