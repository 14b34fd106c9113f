"""How well cpu:precise's timing model predicts a real GPU's cycles.

Two measurements, both printed against the precise engine's prediction:

1. Suite kernels (``simt.suite.CASES``, size ``large`` as in bench_gpu.py): the GPU's time from CUDA
   events over back-to-back launches, in SM cycles (ms x the SM clock), against the precise
   engine's ``sm__cycles_elapsed.max`` for the same launch.
2. Latency probes written with ``simt.clock()``: one warp runs a dependent chain (float
   multiply-add, shared-memory pointer chase, L2-resident global pointer chase) between two
   clock reads; cycles per step on the GPU against the engine's clock for the same kernel.

Per row: measured, predicted, predicted/measured; then MAPE and correlation (Pearson on
the cycles and on their logs). Without the timing model's metric, predictions print n/a.

    PYTHONPATH=. python3 benchmarks/calibrate.py [--cases saxpy,...] [--size large] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import simt  # noqa: E402
from simt import suite  # noqa: E402

from bench_gpu import best_ms, check, prepare  # noqa: E402

CYCLES = "sm__cycles_elapsed.max"


# ---- latency probes with simt.clock() ------------------------------------------------------

@simt.kernel
def fma_chain(x: simt.array(dtype=float), steps: int, out: simt.array(dtype=float),
              cycles: simt.array(dtype=simt.int64)):
    i = simt.tid()
    v = x[i]
    start = simt.clock()
    for k in range(steps):
        v = v * 0.999 + 0.5
    stop = simt.clock()
    out[i] = v
    cycles[i] = stop - start


@simt.kernel
def shared_chase(next_index: simt.array(dtype=int), steps: int, out: simt.array(dtype=int),
                 cycles: simt.array(dtype=simt.int64)):
    ring = simt.shared.array(shape=(1024,), dtype=int)
    t = simt.thread_idx()
    for k in range(0, 1024, 32):
        ring[k + t] = next_index[k + t]
    simt.sync_threads()
    j = t
    start = simt.clock()
    for k in range(steps):
        j = ring[j]
    stop = simt.clock()
    out[t] = j
    cycles[t] = stop - start


@simt.kernel
def global_chase(next_index: simt.array(dtype=int), steps: int, out: simt.array(dtype=int),
                 cycles: simt.array(dtype=simt.int64)):
    t = simt.tid()
    j = t * 97
    start = simt.clock()
    for k in range(steps):
        j = next_index[j]
    stop = simt.clock()
    out[t] = j
    cycles[t] = stop - start


def probe_inputs(name: str, steps: int) -> list:
    rng = np.random.default_rng(0)
    if name == "fma_chain":
        return [simt.array(rng.uniform(0, 1, 32).astype(np.float32)), steps, simt.zeros(32),
                simt.zeros(32, dtype=simt.int64)]
    size = 1024 if name == "shared_chase" else 1 << 20     # 4 MiB: past L1, inside L2
    stride = 33 if name == "shared_chase" else 4099         # odd strides visit every slot
    ring = ((np.arange(size) + stride) % size).astype(np.int32)
    return [simt.array(ring), steps, simt.zeros(32, dtype=int), simt.zeros(32, dtype=simt.int64)]


PROBES = {"fma_chain": fma_chain, "shared_chase": shared_chase, "global_chase": global_chase}


def clock_per_step(name: str, device: str, steps: int) -> float:
    """Cycles per chain step on lane 0, from the difference of two runs (removes the fixed cost)."""
    per_run = []
    for n in (steps, 2 * steps):
        args = [a.to(device) if isinstance(a, simt.array) else a for a in probe_inputs(name, n)]
        simt.launch(PROBES[name], dim=32, inputs=args, device=device, block_dim=32)
        per_run.append(float(args[-1].numpy()[0]))
    return (per_run[1] - per_run[0]) / steps


# ---- rows and statistics --------------------------------------------------------------------

@dataclass
class Row:
    name: str
    kind: str                   # "events" (whole launch, cycles) or "clock" (cycles per step)
    measured: float
    predicted: float | None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return None if self.predicted is None or not self.measured else self.predicted / self.measured


def statistics(rows: list[Row]) -> str:
    pairs = [(r.measured, r.predicted) for r in rows if r.predicted and r.measured > 0]
    if len(pairs) < 2:
        return "n/a (fewer than two predictions)"
    m, p = np.array(pairs, dtype=np.float64).T
    mape = float(np.mean(np.abs(p - m) / m) * 100)
    with np.errstate(invalid="ignore", divide="ignore"):    # constant columns: r is nan
        r = float(np.corrcoef(m, p)[0, 1])
        r_log = float(np.corrcoef(np.log(m), np.log(p))[0, 1])
    return f"MAPE {mape:.1f} %, Pearson r {r:.3f} (on logs {r_log:.3f}), n={len(pairs)}"


def suite_row(case: suite.Case, size, clock_khz: float) -> Row:
    from simt.gpu import runtime
    gpu = prepare(case, size)
    kernel = runtime.compile_and_load(gpu.fn, gpu.cfg.arch, 0)
    runtime.launch_function(kernel.function, gpu.cfg.grid, gpu.cfg.block, gpu.values, 0, case.name)
    status = check(gpu)
    measured = best_ms(kernel.function, gpu) * clock_khz
    started = time.perf_counter()
    run = suite.run_case(case, size, device="cpu:precise")
    predicted = run.result.metrics.get(CYCLES)
    note = f"{size} size, precise ran {time.perf_counter() - started:.1f}s"
    return Row(case.name, "events", measured, predicted,
               note if status == "ok" else f"{note}; GPU result WRONG: {status}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", help="comma-separated suite cases (default: all)")
    parser.add_argument("--size", default="large", help="suite size name or a number (default large)")
    parser.add_argument("--steps", type=int, default=256, help="chain steps of the clock probes")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    from simt.gpu import runtime
    why = runtime.unavailable_reason(0)
    if why:
        print(f"calibrate: no GPU to calibrate against: {why}")
        return 0
    ctx = runtime.context(0)
    print(f"{ctx.name} ({ctx.arch}), SM clock {ctx.clock_rate_khz / 1e3:.0f} MHz; "
          f"predicted = cpu:precise {CYCLES}\n")
    rows: list[Row] = []
    cases = [suite.get(n) for n in args.cases.split(",")] if args.cases else suite.CASES
    for case in cases:
        try:
            size = int(args.size) if args.size.isdigit() else args.size
            rows.append(suite_row(case, size, ctx.clock_rate_khz))
        except simt.SimtError as e:
            print(f"{case.name}: FAILED: {str(e).splitlines()[0][:150]}")
    for name in PROBES:
        try:
            gpu = clock_per_step(name, "cuda", args.steps)
            try:
                cpu = clock_per_step(name, "cpu:precise", args.steps)
            except simt.SimtError as e:
                cpu, name_note = None, f"precise: {str(e).splitlines()[0][:80]}"
            else:
                name_note = f"{args.steps} vs {2 * args.steps} steps"
            rows.append(Row(name, "clock", gpu, cpu or None, name_note))
        except simt.SimtError as e:
            print(f"{name}: FAILED: {str(e).splitlines()[0][:150]}")
    print(f"{'kernel':<22}{'kind':<8}{'GPU cycles':>14}{'predicted':>14}{'pred/GPU':>10}  note")
    for r in rows:
        pred = f"{r.predicted:14.0f}" if r.predicted is not None else f"{'n/a':>14}"
        ratio = f"{r.ratio:10.2f}" if r.ratio is not None else f"{'n/a':>10}"
        unit = "" if r.kind == "events" else "/step"
        print(f"{r.name:<22}{r.kind + unit:<8}{r.measured:14.1f}{pred}{ratio}  {r.note}")
    print(f"\nsuite kernels (events): {statistics([r for r in rows if r.kind == 'events'])}")
    print(f"clock probes (per step): {statistics([r for r in rows if r.kind == 'clock'])}")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) | {"ratio": r.ratio} for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
