"""Write the ``timing`` section of simt/arch/sm_80.json (the A100) from published A100 figures.

No A100 can be measured here. Where a public source gives an A100 figure it is used (sources
below); everything else is the H200's measured value from sm_90.json, on the grounds that
the SM design (schedulers, pipes, L1/shared, block launch) is the same generation's. The file
says which is which. Rerun after fit_arch.py:

    PYTHONPATH=. python3 benchmarks/timing/make_sm80.py
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

ARCH = Path(__file__).resolve().parent.parent.parent / "simt" / "arch"

# (value, source) of the A100 figures that differ from the H200's
A100 = {
    "clock_mhz": (1410.0, "NVIDIA A100 datasheet: 1410 MHz boost clock"),
    "latency.l1": (33.0, "Abdelkhalik et al., Demystifying the Nvidia Ampere Architecture (arXiv 2208.11174): L1 hit ~33 cycles"),
    "latency.shared": (23.0, "REFERENCE.md / Abdelkhalik et al.: shared load ~23 cycles"),
    "latency.l2": (200.0, "Abdelkhalik et al. and Accel-Sim's A100 config: L2 hit ~200 cycles"),
    "latency.dram": (470.0, "Accel-Sim's A100 config and REFERENCE.md's range: DRAM ~470 cycles"),
    # 1555 GB/s (A100 40 GB, datasheet) at the fraction of peak the H200 streams reach (94%)
    "dram_bytes_per_cycle": (round(1555e9 * 0.94 / 1410e6, 1),
                             "A100 40 GB datasheet: 1555 GB/s, at the H200's measured fraction of peak, per 1410 MHz cycle"),
    "dram_peak_bytes_per_second": (1555e9, "A100 40 GB datasheet"),
    "memory_queue_cycles": (200.0, "the A100's latency.l2, as for the H200 (one L2 hit: how far a store's or "
                                   "atomic's L2 queue may run ahead of its warp before the warp is held)"),
    # 40 MB in two 20 MB partitions (GTC 2021, Dissecting the Ampere GPU Architecture through
    # Microbenchmarking): the H200's measured effective fraction of its nominal L2
    "l2_bytes": (int(40 * (1 << 20) * 45799252 / 62914560),
                 "A100: 40 MB of L2 in two partitions, at the H200's measured effective fraction"),
    "l2_read_bytes_per_cycle": (None, "scaled from the H200 by SM count (108 / 132)"),
    "l2_dirty_bytes": (None, "scaled from the H200 by L2 size (40 / 60 MB)"),
    "pipe_interval.fma": (2.0, "A100 whitepaper: 64 FP32 lanes an SM (19.5 TFLOPS at 1410 MHz on 108 SMs), 16 a "
                               "scheduler: a warp's FFMA every other cycle (the H200 has 32 a scheduler)"),
}
# sm_80 has no VIADD: ptxas adds with IADD3, an ALU instruction (an add is the FMA pipe's on sm_90)
ALU_ADDS = ("ADD.i32", "SUB.i32")


def main() -> None:
    sm90 = json.loads((ARCH / "sm_90.json").read_text())
    sm80_path = ARCH / "sm_80.json"
    sm80 = json.loads(sm80_path.read_text())
    t = copy.deepcopy(sm90["timing"])
    sources = {k: f"not measured for the A100: the H200's value ({v})" for k, v in t.pop("sources").items()}
    for key, (value, source) in A100.items():
        if key == "l2_read_bytes_per_cycle":
            value = round(t[key] * 108 / 132, 1)
        elif key == "l2_dirty_bytes":
            value = int(t[key] * 40 / 60)
        if "." in key:
            outer, inner = key.split(".")
            t[outer][inner] = value
        else:
            t[key] = value
        sources[key] = source
    for key in ALU_ADDS:
        t["ops"][key] = t["ops"]["XOR.i32"][:2] + ["alu", 1.0]
    sources["ops"] = (sources["ops"] + "; on sm_80 ADD.i32 and SUB.i32 are IADD3s on the ALU pipe (no VIADD "
                      "before sm_90)")
    t["sources"] = sources
    t["note"] = ("sm_80 cannot be measured here: published A100 figures where they exist, the H200's "
                 "measured values (same SM generation) elsewhere; see 'sources'.")
    for old in ("launch_overhead_cycles", "dram_bytes_per_cycle_per_sm", "issue_interval", "latency",
                "atomic_same_address_cycles", "notes"):
        sm80.pop(old, None)
    sm80["timing"] = t
    sm80_path.write_text(json.dumps(sm80, indent=2) + "\n")
    print(f"wrote the timing section of {sm80_path}")


if __name__ == "__main__":
    main()
