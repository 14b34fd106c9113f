"""What a first launch waits for in a fresh install: numba compiling the engines (the timing
model's machine for cpu:precise, a kernel's generated code for cpu), with empty caches.

Each device runs in a child process whose NUMBA_CACHE_DIR and SIMT_CACHE_DIR are new empty
directories, launching a 1024-thread saxpy once; printed: the launch's seconds and the numba
functions that took longest to compile (numba:compile events; a caller's time includes its
callees').

    PYTHONPATH=. python3 benchmarks/bench_cold_compile.py [--devices cpu:precise,cpu] [--top 8]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import collections, json, sys, time
from numba.core import event
times = collections.Counter()

class Listener(event.Listener):
    def __init__(self):
        self.starts = {}

    def on_start(self, ev):
        self.starts[id(ev.data["dispatcher"]), str(ev.data["args"])] = time.perf_counter()

    def on_end(self, ev):
        d = ev.data["dispatcher"]
        start = self.starts.pop((id(d), str(ev.data["args"])))
        times[d.py_func.__module__ + "." + d.py_func.__qualname__] += time.perf_counter() - start

event.register("numba:compile", Listener())
import numpy as np
import simt as wp

@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]

x = wp.array(np.ones(1024, np.float32))
y = wp.array(np.ones(1024, np.float32))
start = time.perf_counter()
wp.launch(saxpy, dim=1024, inputs=[2.0, x, y], device=sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - start, "compile": times.most_common()}))
"""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--devices", default="cpu:precise,cpu")
    p.add_argument("--top", type=int, default=8)
    args = p.parse_args()
    root = Path(__file__).resolve().parent.parent
    for device in args.devices.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba"),
                   "SIMT_CACHE_DIR": str(Path(tmp) / "simt"),
                   "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
            script = Path(tmp) / "first_launch.py"     # kernels are read from their file
            script.write_text(CHILD)
            out = subprocess.run([sys.executable, str(script), device], capture_output=True, text=True,
                                 env=env, timeout=1800)
        if out.returncode != 0:
            print(f"{device}: failed\n{out.stderr[-2000:]}")
            return 1
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{device}: first launch in empty caches {r['seconds']:.1f} s; longest compiles:")
        for name, secs in r["compile"][:args.top]:
            print(f"  {secs:7.2f} s  {name}")
    print(f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
