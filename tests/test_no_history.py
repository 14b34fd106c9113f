"""No history: a launch gets the same predicted cycles and counters whatever the process ran
(and allocated) before it. Each case runs in a fresh interpreter, once alone and once after
other suite launches, and the two must agree exactly."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import simt as wp
    from simt.suite.cuda_style import block_sum_shared
    from simt.suite.portable import saxpy

    @wp.kernel
    def histogram(values: wp.array(dtype=int), bins: wp.array(dtype=int), total: wp.array(dtype=float)):
        i = wp.tid()
        v = values[i]
        wp.atomic_add(bins, v % 64, 1)
        wp.atomic_add(total, 0, float(v) * 0.5)

    @wp.kernel
    def stream(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 2.0 * x[i] + 1.0

    def run_histogram():
        n = 8192
        values = wp.array(np.arange(n, dtype=np.int32) * 7 % 1000)
        return wp.launch(histogram, dim=n, inputs=[values, wp.zeros(64, dtype=int),
                                                   wp.zeros(1, dtype=float)], block_dim=128)

    def run_stream():
        n = 1 << 14
        return wp.launch(stream, dim=n, inputs=[wp.array(np.arange(n, dtype=np.float32)),
                                                wp.zeros(n)], block_dim=256)

    def run_shared():
        n = 4096
        x = wp.array(np.linspace(-1.0, 1.0, n, dtype=np.float32))
        return wp.launch(block_sum_shared, dim=n, inputs=[x, n], outputs=[wp.zeros(n // 256)],
                         block_dim=256)

    def history():
        # other suite launches first; the arrays they leave allocated (11,008 bytes) would move
        # a later launch's arrays by half of the atomic units' 512-byte interleave if the
        # timing model saw where the process had allocated them
        n = 1024
        x = wp.array(np.ones(n, dtype=np.float32))
        wp.launch(block_sum_shared, dim=n, inputs=[x, n], outputs=[wp.zeros(n // 256)], block_dim=256)
        wp.launch(saxpy, dim=777, inputs=[2.0, wp.zeros(777), wp.zeros(777)], block_dim=64)

    cases = {"histogram": run_histogram, "stream": run_stream, "shared": run_shared}
    names = sys.argv[2:]
    if sys.argv[1] == "after":
        history()
    out = {}
    for name in names:
        r = cases[name]()
        out[name] = {"cycles": r.cycles, "metrics": {k: float(v) for k, v in r.metrics.items()}}
    print(json.dumps(out))
""")


def _run(script: Path, mode: str, names: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SIMT_PROGRESS": "0"}
    done = subprocess.run([sys.executable, str(script), mode, *names], capture_output=True,
                          text=True, env=env, timeout=300, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_launch_predicts_the_same_whatever_ran_before_it(tmp_path):
    script = tmp_path / "launches.py"        # kernels need a source file
    script.write_text(SCRIPT)
    names = ["histogram", "stream", "shared"]
    # alone: each case in a process of its own; after: one process runs other suite
    # launches, then every case in turn (so later cases also follow the earlier ones)
    jobs = [("alone", [name]) for name in names] + [("after", names)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: _run(script, *job), jobs))
    alone = {k: v for r in results[:-1] for k, v in r.items()}
    after = results[-1]
    for name in names:
        assert after[name]["cycles"] == alone[name]["cycles"], (name, alone[name]["cycles"],
                                                                after[name]["cycles"])
        differ = {k: (v, after[name]["metrics"].get(k)) for k, v in alone[name]["metrics"].items()
                  if after[name]["metrics"].get(k) != v}
        assert not differ and alone[name]["metrics"].keys() == after[name]["metrics"].keys(), (name, differ)


def test_a_launch_lays_out_its_arrays_from_its_own_arguments():
    import simt as wp
    from simt.launch_values import array_arguments
    from simt.sim.precise.memory import LAUNCH_BASE, launch_addresses

    def layout(*arrays):
        return [a - LAUNCH_BASE for a in
                launch_addresses([array_arguments(f"p{k}", x)[0] for k, x in enumerate(arrays)])]

    a, b = wp.zeros(100), wp.zeros(3, dtype=int)
    first = layout(a, b, a[10:20], b)
    # 400 bytes round up to 512 (cudaMalloc's 256-byte alignment); the view keeps its offset
    # in a's allocation and the repeated array its place
    assert first == [0, 512, 40, 512]
    junk = [wp.zeros(n) for n in (1, 77, 300)]           # allocations in between change nothing
    c, d = wp.zeros(100), wp.zeros(3, dtype=int)
    assert layout(c, d, c[10:20], d) == first and junk
    assert layout(b, a) == [0, 256]                      # the arguments' order decides
