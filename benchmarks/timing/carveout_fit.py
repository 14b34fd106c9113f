"""Which shared-memory carveout the H200's driver configures, read off Nsight Compute.

Nsight Compute's ``launch__occupancy_limit_shared_mem`` is the carveout the driver configured
for the launch (``launch__shared_mem_config_size``) over the shared memory a block takes
(its own and the 1 KB reserved). The CUDA occupancy calculator's rule, the smallest carveout
that holds the blocks the other limits allow, gives the H200's figure on 44 of the 631 launches
of sets 1-18 this script can compile: the driver configures more (a 256-thread block with no
shared memory of its own: 32 KB, where 8 blocks need 8 KB), and the L1 is what the carveout
leaves.

Per launch: the kernel's shared bytes (as a launch compiles it), its threads a block, the
registers the H200 reported, and the limit it reported
(``benchmarks/timing/data/h200/carveout_launches.csv``). Rules of one form are tried, the
smallest carveout above (or at) ``scale`` x the blocks an SM (by warps alone, or by every limit;
counted to at most ``cap``) x a block's shared memory + ``extra`` bytes, on sets 1-9 alone; the
best there (ties to the larger cap, then the smaller scale, then the smaller extra) is checked on
sets 10-18, beside the occupancy
calculator's rule and the rule ``simt/arch/sm_90.json`` carries (``driver_carveout``).

    PYTHONPATH=. python3 benchmarks/timing/carveout_fit.py [--rebuild]

``--rebuild`` compiles every launch again to remake the CSV (a few minutes); without it the
committed CSV is read. A fit of the driver's undocumented choice, not its rule: it says nothing
of other drivers or GPUs, whose files keep the calculator's rule.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

from simt.arch import load_arch  # noqa: E402

DATA = HERE / "data" / "h200"
CSV = DATA / "carveout_launches.csv"
FIT_SETS = ["blind"] + [f"blind{k}" for k in range(2, 10)]
TEST_SETS = [f"blind{k}" for k in range(10, 19)]
CAPS = (8, 12, 16, 20, 24, 28, 32)      # the most blocks the rule counts (32: the H200's own limit)


def rebuild() -> pd.DataFrame:
    """One row per measured launch of sets 1-18 whose kernel compiles for its arguments."""
    from simt.calibrate.ncu_csv import load
    from simt.devices import get_device
    from simt.launch import bind_arguments, launch_geometry, normalise_dim
    from timing.blind.report import cases_of
    rows, skipped = [], 0
    for s in FIT_SETS + TEST_SETS:
        m = load(s, DATA)
        key = "name" if "name" in m.columns else m.columns[0]
        m = m.drop_duplicates(key, keep="last").set_index(key)
        cases = cases_of(s)
        for launch in cases.LAUNCHES:
            if launch.name not in m.index:
                continue
            try:
                inputs, dim, block = cases.instantiate(launch, "cpu")
                kernel = launch.kernel
                sig, _, _ = launch_geometry(normalise_dim(dim, kernel.key), block, kernel.key)
                bound = bind_arguments(kernel, inputs, get_device("cpu"))
                fn = kernel.compile(sig, param_types=tuple(t for _, t, _ in bound))
            except Exception:           # (counted: a launch the script cannot rebuild)
                skipped += 1
                continue
            rows.append({"set": s, "name": launch.name, "shared_bytes": int(fn.shared_bytes),
                         "threads": int(np.prod(np.atleast_1d(block))),
                         "registers": int(m.loc[launch.name, "launch__registers_per_thread"]),
                         "limit_measured": int(m.loc[launch.name, "launch__occupancy_limit_shared_mem"])})
    print(f"{len(rows)} launches; {skipped} not compiled here")
    return pd.DataFrame(rows)


def blocks(arch, d: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a block's shared bytes with the reserved part, blocks an SM by warps, by every limit)."""
    per, warps, most = [], [], []
    for r in d.itertuples():
        o = arch.occupancy(r.threads, r.registers, r.shared_bytes)
        per.append(o["shared_per_block"])
        warps.append(min(o["warps"], arch.max_blocks_per_sm))
        most.append(min(o["warps"], o["registers"], o["blocks"]))
    return np.array(per, float), np.array(warps, float), np.array(most, float)


def rule_limits(sizes, per, n, scale, extra, strict, least) -> np.ndarray:
    """The limit each launch gets from the rule: the carveout above scale x n x per + extra
    (never under ``least``, the calculator's), over per."""
    want = (scale * n * per + extra)[:, None]
    ok = sizes[None, :] > want if strict else sizes[None, :] >= want
    carve = np.where(ok.any(1), sizes[ok.argmax(1)], sizes[-1])
    return np.maximum(carve, least) // per


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rebuild", action="store_true", help="compile every launch again and rewrite the CSV")
    args = ap.parse_args()
    if args.rebuild:
        d = rebuild()
        d.to_csv(CSV, index=False)
        print(f"written {CSV.relative_to(HERE.parent.parent)}")
    d = pd.read_csv(CSV)
    arch = load_arch("sm_90")
    sizes = np.array([kb * 1024 for kb in arch.shared_carveouts_kb], float)
    per, warps, most = blocks(arch, d)
    least = np.array([arch.carveout(int(p * m)) for p, m in zip(per, most)], float)
    meas = d["limit_measured"].to_numpy()
    fit = d["set"].isin(FIT_SETS).to_numpy()

    def report(label, lim):
        ok = lim == meas
        print(f"  {label:64s} sets 1-9 {ok[fit].sum():3d} of {fit.sum()}, sets 10-18 {ok[~fit].sum():3d} of "
              f"{(~fit).sum()}, all {ok.sum()} of {len(ok)}")

    tried = []
    for by, n_all in (("warps", warps), ("every limit", most)):
        for cap in CAPS:
            n = np.minimum(n_all, cap)
            for scale in (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0):
                for extra in range(0, 33 * 1024, 1024):
                    for strict in (False, True):
                        lim = rule_limits(sizes, per, n, scale, extra, strict, least)
                        tried.append(((lim == meas)[fit].sum(), cap, -scale, -extra, strict, by, lim))
    tried.sort(key=lambda t: (t[0], t[1], t[2], t[3], not t[4]), reverse=True)
    _, cap, scale, extra, strict, by, lim = tried[0]
    print(f"{len(d)} launches of sets 1-18 (the H200's launch__occupancy_limit_shared_mem against each rule's):")
    report("the occupancy calculator's (the smallest carveout that holds them)", least // per)
    report(f"fitted on sets 1-9: the carveout {'above' if strict else 'at or above'} {-scale:g} x blocks "
           f"(by {by}, at most {cap}) x shared + {-extra // 1024} KB", lim)
    rule = arch.data.get("driver_carveout")
    if rule:
        mine = np.array([arch.occupancy(r.threads, r.registers, r.shared_bytes)["shared"] for r in d.itertuples()])
        report(f"simt/arch/sm_90.json's (scale {rule['scale']:g}, at most {rule.get('most_blocks', 32)} blocks, "
               f"extra {rule['extra_bytes'] // 1024} KB)", mine)
    off = d[lim != meas].assign(rule=lim[lim != meas])
    print(f"\nthe fitted rule's misses ({len(off)}):")
    print(off[["set", "name", "shared_bytes", "threads", "registers", "limit_measured", "rule"]].to_string(index=False))


if __name__ == "__main__":
    main()
