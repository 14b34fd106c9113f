"""Double-precision arithmetic at full occupancy, from simt/calibrate/cuda/fp64_operands.cu's
profile: per kernel the cycles a warp-step on one scheduler (16 warps each), the fp64 pipe's
instructions a cycle, and the stall reasons Nsight Compute names, from the difference between
the launches of 256 and 64 steps. With ``--model`` simt's cycles a warp-step for the same
kernels written in simt, and the ratio of the model's to the GPU's.

    PYTHONPATH=. python3 benchmarks/timing/fp64_operands.py [--data DIR] [--model] [--arch FILE]
    PYTHONPATH=. python3 benchmarks/timing/fp64_operands.py --model-only    (simt alone, before measuring)

What it asks: a Chebyshev sum by Clenshaw's recurrence (blind set 7) takes 1.23x its fp32
twin's cycles on the H200 with the same SASS instruction count, 11 cycles a step on a
scheduler where its 3 fp64 instructions at the DFMA's interval (micro.cu, constant operands)
need 6; simt predicts 0.96x. Do DADD and DMUL with register operands cost more than that
interval (dadd_r, dmul_r, dfma_r against dfma_c)? Is it the recurrence's chain (clen1_r, one
recurrence a thread; clen2_r, two)? Or the 64-bit coefficient load each step, 256 bytes a warp
back to the registers for one sector (clen_ldg against clen_ldg_f32, ldg64 against ldg32)?

The simt kernels here follow the .cu's; ptxas makes each its own SASS from simt's PTX, so the
model's issue slots a step are printed beside its cycles. dfma_c and dfma_r have no simt twin:
simt's language has no fused multiply-add, and a * b + c stays a DMUL and a DADD, as Warp's.

To measure, from the repository root on the GPU's machine (the step ``fp64ops`` of
gpu_pending.sh does this, with a second profile of the pipes and stall reasons):
    nvcc -O3 -arch=sm_90 -o /tmp/fp64_operands simt/calibrate/cuda/fp64_operands.cu
    ncu --clock-control none --csv --print-units base --metrics "$BASE" \\
        --log-file fp64_operands.csv /tmp/fp64_operands fp64_operands_manifest.csv
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

import simt as wp
from simt.calibrate import ncu_csv

from blind7.kernels import chebyshev_clenshaw     # the set's kernel: c loaded each step

DATA = Path(__file__).parent / "data" / "h200" / "fp64_operands"
CYC = "sm__cycles_elapsed.max"
# the second profile (gpu_pending.sh's fp64ops)
DETAIL = "fp64_operands_detail"
FP64 = "sm__inst_executed_pipe_fp64.sum"
STALLS = ("wait", "math_pipe_throttle", "not_selected", "dispatch_stall", "long_scoreboard", "lg_throttle")
STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
L1TEX = "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"
STEPS = (64, 256)
BLOCK = 256


@wp.func
def near_one(k: int):
    return 1.0 - wp.float64(k + (wp.thread_idx() & 7)) * wp.float64(1.0 / 4096.0)


@wp.kernel
def dadd_r(out: wp.array(dtype=wp.float64), n: int):
    """4 chains a thread: v = v + w, w a register of the chain's own."""
    t = wp.thread_idx()
    v0, v1, v2, v3 = wp.float64(t), wp.float64(t + 1), wp.float64(t + 2), wp.float64(t + 3)
    w0, w1, w2, w3 = near_one(0), near_one(1), near_one(2), near_one(3)
    for i in range(n):
        v0 = v0 + w0
        v1 = v1 + w1
        v2 = v2 + w2
        v3 = v3 + w3
    out[wp.tid()] = v0 + v1 + v2 + v3


@wp.kernel
def dmul_r(out: wp.array(dtype=wp.float64), n: int):
    """4 chains a thread: v = v * w."""
    t = wp.thread_idx()
    v0, v1, v2, v3 = wp.float64(t), wp.float64(t + 1), wp.float64(t + 2), wp.float64(t + 3)
    w0, w1, w2, w3 = near_one(0), near_one(1), near_one(2), near_one(3)
    for i in range(n):
        v0 = v0 * w0
        v1 = v1 * w1
        v2 = v2 * w2
        v3 = v3 * w3
    out[wp.tid()] = v0 + v1 + v2 + v3


@wp.func
def x2_of(t: int, k: int):
    return wp.float64(2.0) * (wp.float64((t * 7 + k * 13) & 1023) * wp.float64(1.0 / 1024.0) - wp.float64(0.5))


@wp.kernel
def clen2_r(out: wp.array(dtype=wp.float64), n: int):
    """Two Clenshaw recurrences a thread, b0 = x2 * b1 - b2 + c, c a register."""
    t = wp.tid()
    x20, x21 = x2_of(t, 0), x2_of(t, 1)
    c0, c1 = wp.float64(0.5) * near_one(0), wp.float64(0.5) * near_one(1)
    b10, b20, b11, b21 = wp.float64(0.0), wp.float64(0.0), wp.float64(0.0), wp.float64(0.0)
    for i in range(n):
        b00 = x20 * b10 - b20 + c0
        b20 = b10
        b10 = b00
        b01 = x21 * b11 - b21 + c1
        b21 = b11
        b11 = b01
    out[t] = b10 + b11 + b20


@wp.kernel
def clen1_r(out: wp.array(dtype=wp.float64), n: int):
    """One recurrence a thread."""
    t = wp.tid()
    x2 = wp.float64(2.0) * (wp.float64(t & 1023) * wp.float64(1.0 / 1024.0) - wp.float64(0.5))
    c = wp.float64(0.5) * near_one(0)
    b1 = wp.float64(0.0)
    b2 = wp.float64(0.0)
    for i in range(n):
        b0 = x2 * b1 - b2 + c
        b2 = b1
        b1 = b0
    out[t] = b1 - b2


@wp.kernel
def ldg_xor(coef: wp.array(dtype=Any), out: wp.array(dtype=Any), n: int):
    """The loads alone: s ^= coef[k], the same word across the warp (64-bit or 32-bit)."""
    T = type(coef[0])
    s = T(wp.thread_idx())
    for k in range(n - 1, 0, -1):
        s = s ^ coef[k]
    out[wp.tid()] = s


BENCHES = ("dadd_r", "dmul_r", "clen2_r", "clen1_r", "clen_ldg", "clen_ldg_f32", "ldg64", "ldg32")
# chains a thread (the H100's manifest, data/h100/fp64_operands, says 8 in its work column for
# dadd_r, dmul_r and dfma_r, which ran 4: the .cu wrote the count of an earlier version)
CHAINS = {"dfma_c": 8, "dadd_r": 4, "dmul_r": 4, "dfma_r": 4, "clen2_r": 2}


def schedulers(grid: int) -> float:
    """The schedulers a launch of ``grid`` blocks fills: 8 blocks of 256 an SM, 4 schedulers each."""
    return grid / 8 * 4


def per_warp_step(bench: str, grid: int, cycles: float, steps: float) -> float:
    """``cycles`` over ``steps`` more steps as cycles a warp-step (a chain's step, where a thread
    runs several) on one scheduler."""
    return cycles / (steps * CHAINS.get(bench, 1) * (grid * BLOCK // 32) / schedulers(grid))


def _inputs(bench: str, threads: int, n: int) -> tuple:
    """(kernel, inputs) of one launch of ``bench``."""
    f64 = wp.zeros(threads, dtype=wp.float64)
    if bench in ("dadd_r", "dmul_r", "clen2_r", "clen1_r"):
        return globals()[bench], [f64, n]
    if bench.startswith("clen_ldg"):             # n coefficients: the .cu's n steps
        dt = np.float32 if bench.endswith("f32") else np.float64
        return chebyshev_clenshaw, [wp.array(np.full(threads, 0.25, dt)), wp.array(np.full(n, 0.125, dt)),
                                    wp.array(np.zeros(threads, dt))]
    dt = np.uint64 if bench == "ldg64" else np.uint32
    return ldg_xor, [wp.array(np.full(256, 0x5A5A5A5A, dt)), wp.array(np.zeros(threads, dt)), n]


def predict(bench: str, grid: int, n: int, arch: str | None) -> tuple[float, float]:
    """simt's (cycles, issue slots a warp) for one launch of ``bench``: ``grid`` blocks of 256,
    ``n`` steps."""
    kernel, inputs = _inputs(bench, grid * BLOCK, n)
    extra = {"arch": arch} if arch else {}
    r = wp.launch(kernel, grid * BLOCK, inputs, block_dim=BLOCK, device="cpu:precise", **extra)
    return float(r.cycles), float(r.metrics["smsp__inst_issued.sum"]) / (grid * BLOCK // 32)


def per_step(bench: str, grid: int, arch: str | None) -> tuple[float, float]:
    """simt's cycles and issue slots a warp-step on one scheduler (16 warps) from 64 to 256 steps."""
    (c0, s0), (c1, s1) = (predict(bench, grid, n, arch) for n in STEPS)
    dn = STEPS[1] - STEPS[0]
    return per_warp_step(bench, grid, c1 - c0, dn), (s1 - s0) / (dn * CHAINS.get(bench, 1))


def model_only(arch: str | None, sms: int = 132) -> None:
    """simt's cycles a warp-step for the .cu's kernels on a GPU of 132 SMs, before measuring."""
    print(f"{'kernel':13s} {'model cycles a warp-step':>24s} {'issue slots a step':>18s}")
    for bench in BENCHES:
        c, s = per_step(bench, 8 * sms, arch)
        print(f"{bench:13s} {c:24.2f} {s:18.2f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of fp64_operands.csv (default: data/h200/fp64_operands)")
    ap.add_argument("--model", action="store_true", help="predict each kernel on cpu:precise too")
    ap.add_argument("--arch", help="architecture file for the model (default: the shipped sm_90.json)")
    ap.add_argument("--model-only", action="store_true", help="only simt's cycles (no measurement)")
    args = ap.parse_args()
    if args.model_only:
        return model_only(args.arch)
    if not (args.data / "fp64_operands.csv").exists():
        raise SystemExit(f"fp64_operands: not measured in {args.data} (no fp64_operands.csv; "
                         "the command is in this script's docstring)")
    try:
        df = ncu_csv.with_second_profile(ncu_csv.load("fp64_operands", args.data), DETAIL, args.data,
                                         [FP64, L1TEX] + [STALL.format(s) for s in STALLS])
    except ValueError as e:
        raise SystemExit(f"fp64_operands: {e}") from None
    head = (f"{'kernel':13s} {'cycles a warp-step':>18s} {'fp64 inst a cycle':>17s} {'L1 %':>5s} "
            + " ".join(f"{s[:9]:>9s}" for s in STALLS))
    print(head + ("  model cycles  issue slots  ratio" if args.model else ""))
    for bench, g in df.groupby("bench", sort=False):
        g = g.sort_values("value")
        a, z = g.iloc[0], g.iloc[-1]
        dc = z[CYC] - a[CYC]
        step = per_warp_step(bench, int(a.grid), dc, z.value - a.value)
        fp64 = (z[FP64] - a[FP64]) / (dc * schedulers(int(a.grid)))
        line = (f"{bench:13s} {step:18.2f} {fp64:17.3f} {z[L1TEX]:5.1f} "
                + " ".join(f"{z[STALL.format(s)]:9.2f}" for s in STALLS))
        if args.model and bench in BENCHES:
            m, s = per_step(bench, int(a.grid), args.arch)
            line += f"  {m:12.2f}  {s:11.2f}  {m / step:5.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
