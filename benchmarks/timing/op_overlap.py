"""Does a long op hold its warp? simt/calibrate/op_overlap.py's launches (two independent chains
of an op against one, one warp) on a GPU and on cpu:precise, and the ``op_hold`` they fit.

    PYTHONPATH=. python3 benchmarks/timing/op_overlap.py [--data DIR]

The measurement (data/h100/op_overlap/: the raw Nsight Compute CSV, the manifest, gpu.txt; no
H200 came, and the H100's SM is the H200's) was made with ``ncu --clock-control none --csv
--print-units base --metrics sm__cycles_elapsed.max,smsp__inst_executed.sum --log-file
op_overlap.csv python3 -m simt.calibrate.op_overlap --measure op_overlap_manifest.csv``.
Output: data/h100/op_overlap/op_overlap.txt. This is calibration: none of these launches is
part of a validation set.
"""
import argparse
from pathlib import Path

import pandas as pd

import simt as wp
from simt.arch import load_arch
from simt.calibrate import ncu_csv, op_overlap as O

DATA = Path(__file__).resolve().parent / "data" / "h100" / "op_overlap"


def modelled() -> pd.DataFrame:
    rows = []
    for label, chains, unroll, kernel, inputs in O.launches():
        r = wp.launch(kernel, dim=32, inputs=inputs, block_dim=32, device="cpu:precise")
        rows.append({"op": label, "chains": chains, "unroll": unroll, O.CYC: float(r.cycles)})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--arch", default="sm_90", help="the model's architecture (a name or a JSON file)")
    a = ap.parse_args()
    wp.set_module_options({"arch": a.arch})
    gpu = ncu_csv.load("op_overlap", Path(a.data))
    meas, model = O.steps(gpu), O.steps(modelled())
    print("cycles a loop step adds per op: one chain (L) and two chains side by side")
    print(f"{'op':<18} {'GPU L':>7} {'GPU two':>8} {'ratio':>6}   {'model L':>8} {'model two':>9} {'ratio':>6}")
    for label in list(O.OPS) + list(O.MIXED):
        first = O.MIXED[label][0] if label in O.MIXED else label
        if (first, 1) not in meas or (label, 2) not in meas:
            print(f"{label:<18} (not measured here)")
            continue
        g1, g2, m1, m2 = meas[(first, 1)], meas[(label, 2)], model[(first, 1)], model[(label, 2)]
        print(f"{label:<18} {g1:7.1f} {g2:8.1f} {g2 / g1:6.2f}   {m1:8.1f} {m2:9.1f} {m2 / m1:6.2f}")
    arch = load_arch(a.arch)
    print(f"\nop_hold fitted (HOLD_RATIO {O.HOLD_RATIO}; the model above uses {arch.name}'s):")
    for k, v in O.holds(gpu, arch.data["timing"]["ops"]).items():
        print(f"  {k:<10} {v:7.1f}")


if __name__ == "__main__":
    main()
