"""Loops whose body branches, on cpu:precise against an H200: a development set for the SASS
replay of such loops (it shapes the model, so it is not held out).

A neighbour loop with a cutoff test (molecular dynamics' force loop), a loop that loads
under a data-dependent branch, and a loop that skips entries (`continue`), each with many
warps per SM and with few. ptxas unrolls such loops and predicates small bodies, so the
loads of several iterations are in flight; a replay of the MIR in program order waits out
each iteration's loads.

    PYTHONPATH=. python3 benchmarks/timing/branch_loops.py            # predictions, both replays
    PYTHONPATH=. python3 benchmarks/timing/branch_loops.py --gpu      # each launch once on a GPU
    PYTHONPATH=. python3 benchmarks/timing/branch_loops.py --compare  # against data/h200/branch_loops.csv

The measurement (data/h200/branch_loops.csv, raw Nsight Compute CSV) was made with
``ncu --clock-control none --csv --print-units base --metrics sm__cycles_elapsed.max,
dram__bytes_read.sum python3 benchmarks/timing/branch_loops.py --gpu``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt as wp

DATA = Path(__file__).resolve().parent / "data" / "h200" / "branch_loops.csv"
K = 32                      # neighbours per atom


@wp.kernel
def nbr_force(px: wp.array(dtype=float), py: wp.array(dtype=float), pz: wp.array(dtype=float),
              nbr: wp.array(dtype=int), f: wp.array(dtype=float), cut2: float, k: int):
    i = wp.tid()
    xi = px[i]
    yi = py[i]
    zi = pz[i]
    acc = float(0.0)
    for j in range(k):
        n = nbr[j * px.shape[0] + i]          # neighbour lists stored column-wise: coalesced
        dx = px[n] - xi
        dy = py[n] - yi
        dz = pz[n] - zi
        r2 = dx * dx + dy * dy + dz * dz
        if r2 < cut2:
            inv = 1.0 / r2
            s = inv * inv * inv
            acc += s * (s - 1.0) * inv * dx
    f[i] = acc


@wp.kernel
def masked_sum(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    w = out.shape[0]
    s = float(0.0)
    for k in range(n):
        v = a[k * w + i]
        if v > 0.5:
            s += v * b[k * w + i]
    out[i] = s


@wp.kernel
def skip_gather(ind: wp.array(dtype=int), x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    w = out.shape[0]
    s = float(0.0)
    for k in range(n):
        j = ind[k * w + i]
        if j < 0:
            continue
        s += x[j]
    out[i] = s


def launches(rng, device: str = "cpu"):
    """(name, kernel, dim, inputs, block_dim)."""
    out = []
    for atoms in (4096, 65536):
        box = np.float32(atoms ** (1 / 3))
        pos = [wp.array(rng.random(atoms, dtype=np.float32) * box, device=device) for _ in range(3)]
        nb = wp.array(rng.integers(0, atoms, K * atoms).astype(np.int32), device=device)
        for cut, label in ((0.6, "few"), (4.0, "most")):
            out.append((f"nbr_force_{label}@{atoms}", nbr_force, atoms,
                        [*pos, nb, wp.zeros(atoms, device=device), cut * cut, K], 128))
    for width in (4096, 65536):
        n = 64
        a = wp.array(rng.random(n * width, dtype=np.float32), device=device)
        b = wp.array(rng.random(n * width, dtype=np.float32), device=device)
        out.append((f"masked_sum@{width}", masked_sum, width, [a, b, wp.zeros(width, device=device), n], 256))
        ind = rng.integers(0, width, n * width).astype(np.int32)
        ind[rng.random(n * width) < 0.3] = -1
        x = wp.array(rng.random(width, dtype=np.float32), device=device)
        out.append((f"skip_gather@{width}", skip_gather, width,
                    [wp.array(ind, device=device), x, wp.zeros(width, device=device), n], 256))
    return out


def predict(sass: bool) -> dict:
    wp.set_module_options({"timing_sass": sass})
    try:
        got = {}
        for name, kernel, dim, inputs, block in launches(np.random.default_rng(0)):
            r = wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:precise")
            got[name] = (r.cycles, r.details["timing_schedule"])
        return got
    finally:
        wp.set_module_options({"timing_sass": True})


def gpu() -> None:
    for name, kernel, dim, inputs, block in launches(np.random.default_rng(0), "cuda"):
        wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block, device="cuda")
        wp.synchronize()
        print(name, flush=True)


def measured() -> dict:
    import io
    import pandas as pd
    text = DATA.read_text()
    df = pd.read_csv(io.StringIO(text[text.index('"ID"'):]), thousands=",")
    cyc = df[df["Metric Name"] == "sm__cycles_elapsed.max"]["Metric Value"].astype(float).tolist()
    names = [n for n, *_ in launches(np.random.default_rng(0))]
    return dict(zip(names, cyc))


def main() -> None:
    sass, program = predict(True), predict(False)
    meas = measured() if "--compare" in sys.argv and DATA.exists() else {}
    print(f"{'launch':<22} {'H200':>9} {'SASS replay':>12} {'ratio':>6} {'program order':>14} {'ratio':>6}  schedule")
    for name, (cyc, sched) in sass.items():
        m = meas.get(name)
        r1 = f"{cyc / m:.2f}" if m else ""
        r2 = f"{program[name][0] / m:.2f}" if m else ""
        print(f"{name:<22} {m or 0:>9,.0f} {cyc:>12,} {r1:>6} {program[name][0]:>14,} {r2:>6}  {sched['why']}")
    if meas:
        err = [abs(sass[n][0] / meas[n] - 1) for n in meas]
        print(f"SASS replay MAPE {100 * np.mean(err):.1f}% over {len(err)} launches")


if __name__ == "__main__":
    gpu() if "--gpu" in sys.argv else main()
