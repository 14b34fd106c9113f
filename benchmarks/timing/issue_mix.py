"""How close a scheduler comes to issuing every cycle when no pipe is the limit, on the GPU and
in simt's model, from simt/calibrate/cuda/issue_mix.cu's profile.

Each lane updates 8 independent float and 8 independent integer chains a step, with the
mode's instructions (1: FFMA; 2: LOP3 and an add; 3: both; 5: FFMA and IMAD; 7: all four;
8: an fp64 multiply-add, on simt's side a DMUL and a DADD; 10: that and LOP3 and an add), at
64, 32 and 16 warps an SM. The steady rate is the warp instructions issued between the runs
of 256 and 1,024 steps over the cycles between them, per scheduler (132 SMs x 4). With
``--model`` the same kernels, written here in simt's language, run on cpu:precise, and the
table gives simt's rate beside the GPU's: simt's issue slots (smsp__inst_issued.sum, its SASS
instructions; its smsp__inst_executed.sum counts the MIR's) over its cycles. simt's SASS is
ptxas's from simt's PTX, not nvcc's from the CUDA source: simt keeps a * b + c a multiply and an
add (PTX .rn, the same bits on every engine), where nvcc fuses them, so the counts differ; the
rates are compared with the GPU running simt's own PTX (``--measure``, the l2share step's way:
issue_mix_simt.csv), where the SASS is the same.

    PYTHONPATH=. python3 benchmarks/timing/issue_mix.py [--data DIR] [--model]

Measured on an H100 80GB HBM3, the H200's SM, when no H200 came (data/h100/issue_mix/: the raw
CSVs, their manifests, gpu.txt; the run at a92d9f9, with modes 8 and 10). What it showed, with
the GPU running simt's PTX: mixed pipes issue at 0.86-1.00 instructions a cycle a scheduler, at
16 warps an SM as at 64; the ALU pipe alone (mode 2) at 0.94. The FP64 pipe alone (mode 8)
takes 0.53 a cycle, and beside ALU work (mode 10) the scheduler still issues 0.86-0.97 a cycle:
an fp64 instruction holds its pipe for two cycles but the issue slot for one, as simt has it
(simt 0.54 and 0.88, 1.02x and 0.91-1.03x the GPU's rate). simt's replay of its own PTX's SASS
issues modes 3 and 5 at 0.79-0.87, 1.07-1.27x the GPU's cycles, with warps waiting for pipes that
are not full (issue_mix_model.txt): not fixed yet. nvcc's own build of modes 2 and 5 issues
slower in this run than in the first (0.78 and 0.73 against 0.85 and 0.98): the CUDA source
gained the fp64 chains, which changes its SASS; simt's PTX, the column the model is compared
with, is the same.

To measure, from the repository root on the GPU's machine:
    PYTHONPATH=. bash benchmarks/timing/gpu_pending.sh DIR issuemix
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

import simt as wp
from simt.calibrate import ncu_csv

DATA = Path(__file__).parent / "data" / "h100" / "issue_mix"
STEPS = (256, 1024)
WARPS = (64, 32, 16)
SCHEDULERS = 4
B, M = 0.999, 0x9E3779B9        # as issue_mix.cu


def _mix(mode: int):
    @wp.kernel
    def mix(out: wp.array(dtype=float), n: int, b: float, m: wp.uint32):
        t = wp.tid()
        f0, f1, f2, f3 = float(t % 256), float(t % 256 + 1), float(t % 256 + 2), float(t % 256 + 3)
        f4, f5, f6, f7 = float(t % 256 + 4), float(t % 256 + 5), float(t % 256 + 6), float(t % 256 + 7)
        u = wp.uint32(t % 256)
        u0, u1, u2, u3 = u, u * wp.uint32(2), u * wp.uint32(3), u * wp.uint32(4)
        u4, u5, u6, u7 = u * wp.uint32(5), u * wp.uint32(6), u * wp.uint32(7), u * wp.uint32(8)
        d0, d1, d2, d3 = wp.float64(f0), wp.float64(f1), wp.float64(f2), wp.float64(f3)
        d4, d5, d6, d7 = wp.float64(f4), wp.float64(f5), wp.float64(f6), wp.float64(f7)
        b64 = wp.float64(b)
        for i in range(n):
            if wp.static(mode & 1):
                f0 = f0 * b + 1.0
                f1 = f1 * b + 1.0
                f2 = f2 * b + 1.0
                f3 = f3 * b + 1.0
                f4 = f4 * b + 1.0
                f5 = f5 * b + 1.0
                f6 = f6 * b + 1.0
                f7 = f7 * b + 1.0
            if wp.static(mode & 2):
                u0 = (u0 ^ m) + wp.uint32(3)
                u1 = (u1 ^ m) + wp.uint32(4)
                u2 = (u2 ^ m) + wp.uint32(5)
                u3 = (u3 ^ m) + wp.uint32(6)
                u4 = (u4 ^ m) + wp.uint32(7)
                u5 = (u5 ^ m) + wp.uint32(8)
                u6 = (u6 ^ m) + wp.uint32(9)
                u7 = (u7 ^ m) + wp.uint32(10)
            if wp.static(mode & 4):
                u0 = u0 * m
                u1 = u1 * m + wp.uint32(1)
                u2 = u2 * m + wp.uint32(2)
                u3 = u3 * m + wp.uint32(3)
                u4 = u4 * m + wp.uint32(4)
                u5 = u5 * m + wp.uint32(5)
                u6 = u6 * m + wp.uint32(6)
                u7 = u7 * m + wp.uint32(7)
            if wp.static(mode & 8):
                d0 = d0 * b64 + wp.float64(1.0)
                d1 = d1 * b64 + wp.float64(1.0)
                d2 = d2 * b64 + wp.float64(1.0)
                d3 = d3 * b64 + wp.float64(1.0)
                d4 = d4 * b64 + wp.float64(1.0)
                d5 = d5 * b64 + wp.float64(1.0)
                d6 = d6 * b64 + wp.float64(1.0)
                d7 = d7 * b64 + wp.float64(1.0)
        s = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7
        s += float(u0 + u1 + u2 + u3 + u4 + u5 + u6 + u7)
        s += float(d0 + d1 + d2 + d3 + d4 + d5 + d6 + d7)
        out[t] = s
    mix.__name__ = f"mix{mode}"
    return mix


def measured(data: Path, name: str = "issue_mix") -> pd.DataFrame:
    df = ncu_csv.load(name, data)
    df["mode"] = df.bench.str.extract(r"mix(\d+)_").astype(int)
    df["warps"] = df.bench.str.extract(r"_w(\d+)").astype(int)
    return df.rename(columns={"value": "steps", "sm__cycles_elapsed.max": "cycles",
                              "smsp__inst_executed.sum": "inst"})[["mode", "warps", "steps", "cycles", "inst"]]


def rate(df: pd.DataFrame, sms: int) -> pd.Series:
    """Per (mode, warps): warp instructions a cycle a scheduler between the two step counts."""
    out = {}
    for key, g in df.groupby(["mode", "warps"]):
        g = g.set_index("steps")
        dc = g.loc[STEPS[1], "cycles"] - g.loc[STEPS[0], "cycles"]
        out[key] = (g.loc[STEPS[1], "inst"] - g.loc[STEPS[0], "inst"]) / (dc * sms * SCHEDULERS)
    return pd.Series(out)


MODES = (1, 2, 3, 5, 7, 8, 10)


def launches(sms: int, device: str):
    """(mode, warps, steps, kernel, threads, inputs) in issue_mix.cu's order."""
    out = []
    for mode in MODES:
        k = _mix(mode)
        for warps in WARPS:
            threads = sms * warps * 32
            for n in STEPS:
                inputs = [wp.zeros(threads, dtype=float, device=device), n, B, wp.uint32(M)]
                out.append((mode, warps, n, k, threads, inputs))
    return out


def model(sms: int) -> pd.DataFrame:
    rows = []
    for mode, warps, n, k, threads, inputs in launches(sms, "cpu:precise"):
        r = wp.launch(k, threads, inputs, block_dim=256, device="cpu:precise")
        rows.append((mode, warps, n, r.cycles, r.metrics["smsp__inst_issued.sum"]))
    return pd.DataFrame(rows, columns=["mode", "warps", "steps", "cycles", "inst"])


def measure(manifest: str, sms: int = 132) -> None:
    """Every simt launch once on the GPU (under the profiler), and the manifest naming each."""
    rows = ["launch,bench,param,value,grid,block,work"]
    for mode, warps, n, k, threads, inputs in launches(sms, "cuda"):
        wp.launch(k, threads, inputs, block_dim=256, device="cuda")
        wp.synchronize()
        rows.append(f"{len(rows) - 1},mix{mode}_w{warps},steps,{n},{threads // 256},256,0")
    Path(manifest).write_text("\n".join(rows) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA,
                    help="the folder of issue_mix.csv (default: data/h100/issue_mix)")
    ap.add_argument("--model", action="store_true", help="run the same kernels on cpu:precise")
    ap.add_argument("--measure", metavar="MANIFEST", help="run the simt kernels on the GPU (under the profiler)")
    a = ap.parse_args()
    if a.measure:
        measure(a.measure)
        return
    if not (a.data / "issue_mix.csv").exists():
        raise SystemExit(f"issue_mix: not measured in {a.data} (no issue_mix.csv; see this script's docstring)")
    sms = 132
    table = pd.DataFrame({"gpu (nvcc)": rate(measured(a.data), sms)})
    if (a.data / "issue_mix_simt.csv").exists():
        table["gpu (simt's PTX)"] = rate(measured(a.data, "issue_mix_simt"), sms)
    if a.model:
        table["simt"] = rate(model(sms), sms)
        if "gpu (simt's PTX)" in table:
            table["simt / gpu (simt's PTX)"] = table["simt"] / table["gpu (simt's PTX)"]
    table.index.names = ["mode", "warps an SM"]
    print("# warp instructions issued a cycle a scheduler, steady state (1,024 steps less 256)")
    print(table.round(3).to_string())


if __name__ == "__main__":
    main()
