"""The ADU pipe's rate from adu_tput.cu's profile (data/h100/adu_tput/adu_tput.csv: measured on
an H100, the H200's SM, when no H200 was available), checked against the H200's profiles of the
blind sets' launches (data/h200/pipes/pipes_*.csv).

Constant loads from a register address (SASS ``LDC``; ``ULDC`` is the uniform datapath's) take
Nsight Compute's ADU pipe. ptxas emits them where a kernel parameter is read under a
predicate: set 3's separable convolution and Sobol generator, set 7's depthwise convolutions
reload an array's base address and shape before each guarded load. Per kernel: the slope
between n = 256 and n = 1024 of SM cycles over the ADU instructions an SM executed. k_ldc's
loop is two instructions in five LDC, k_ldc_fma's one in four: the same cycles per LDC in
both means the ADU, not the issue, bounds them. The architecture file's ``pipe_interval.adu``
is k_ldc's figure times the schedulers of an SM (the model's pipes are per scheduler).

Second, from the H200's profiles: the peak rate Nsight Compute's ``pct_of_peak`` implies
(instructions / (SMs x active cycles x pct / 100)), and the launches that run the ADU at over
90% of it.

    python3 benchmarks/timing/adu_tput.py
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from simt.calibrate.ncu_csv import read_metrics  # noqa: E402

CSV = HERE / "data" / "h100" / "adu_tput" / "adu_tput.csv"
SMS, SCHEDULERS = 132, 4
ADU = "sm__inst_executed_pipe_adu.sum"


def per_kernel() -> dict[str, float]:
    """kernel -> SM cycles per ADU instruction per SM (the slope between its two step counts)."""
    by: dict[str, list[dict]] = {}
    for r in read_metrics(CSV).to_dict("records"):      # launched in order n = 256 then n = 1024
        by.setdefault(r["kernel_name"].split("(")[0], []).append(r)
    out = {}
    for k, (a, b) in by.items():
        adu = (b[ADU] - a[ADU]) / SMS
        if adu > 0.1 * (b["smsp__inst_executed.sum"] - a["smsp__inst_executed.sum"]) / SMS:
            out[k] = (b["sm__cycles_elapsed.avg"] - a["sm__cycles_elapsed.avg"]) / adu
    return out


def saturated(threshold: float = 90.0) -> list[tuple[str, str, float, float]]:
    """(set, launch, ADU % of peak, the peak Nsight Compute implies per SM per cycle) of the
    profiled blind launches above ``threshold``."""
    sys.path.insert(0, str(HERE))
    import pipe_mix
    out = []
    for name, m, r in pipe_mix.profiled():
        pct = r.get("sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_active", 0.0)
        if pct > threshold:
            peak = r[ADU] / (pipe_mix.SMS * r["sm__cycles_active.avg"] * pct / 100.0)
            out.append((name, m["name"], pct, peak))
    return out


def main() -> None:
    print("adu_tput.cu on an H100 (the H200's SM): SM cycles per ADU instruction per SM")
    for k, v in per_kernel().items():
        print(f"  {k:10s} {v:6.3f}   per scheduler: {v * SCHEDULERS:6.3f}")
    print("\nH200 profiles of the blind sets: launches running the ADU above 90% of its peak")
    for name, launch, pct, peak in saturated():
        print(f"  {name:8s} {launch:24s} {pct:5.1f}%   peak implied: {peak:.3f} an SM a cycle")


if __name__ == "__main__":
    main()
