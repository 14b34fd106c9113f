"""How much the timing model's SM sampling moves its predictions, and what it saves.

A big launch (more than ``model.SAMPLE_ABOVE`` recorded warp instructions, at least
``model.SAMPLE_MIN_BLOCKS`` blocks an SM) replays a sample of the SMs with their blocks on a
GPU whose shared units are scaled to the sample (simt/sim/timing/model.py, ``sm_sample``).
For every launch of the validation set and of the speed benchmark that is sampled, this
predicts it twice, replaying every SM (module option ``timing_sample`` False) and sampled,
and prints both cycle counts, the sampled one's error against the full replay, the error the
launch reported (``simt__sampling_error.pct``), and both launches' seconds.

A launch whose blocks on SMs far apart share more data than half the L2 holds replays every
SM (model.SHARED_ABOVE: a sample's L2 misses what the GPU reads again). ``--wide`` checks
that rule on launches of the blind sets that gather at random from big shared data (graph
walks, hash probes, sparse solves), with ``--sample-wide`` sampling them all the same, to
show what the sample would say.

    PYTHONPATH=. python3 benchmarks/timing/check_sampling.py [--only NAME,...] [--wide [--sample-wide]]
    PYTHONPATH=. python3 benchmarks/timing/check_sampling.py --launches SET:NAME,...   # any blind set's

Its last outputs are data/check_sampling.txt, (``--wide --sample-wide``)
data/check_sampling_wide.txt and (``--launches``, the L2-hit-bound launches 9f2fbda moved)
data/check_sampling_launches.txt.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import simt as wp  # noqa: E402
from simt import suite  # noqa: E402
from bench_trace import KERNELS, launch  # noqa: E402
from timing import cases  # noqa: E402


WIDE = ["blind6:hash_probe_l50@4M", "blind6:merge_path_p32@16M", "blind6:list_rank_random@8M",
        "blind7:walk_powerlaw@1M", "blind7:hash_build_l50@4M", "blind7:gemver_cols@4096",
        "blind8:sptrsv_thread@1M", "blind8:boris_random@8M", "blind8:spmv_coo@1Mx32M",
        "blind10:xs_unionized@512K"]
# (set 8's bvh_random@1M is one too, left out: its recording alone takes about 20 GB)


def wide_launches(items=WIDE):
    """The blind sets' launches named (``SET:NAME``) in ``items``, as ``launches`` gives them."""
    for item in items:
        setname, name = item.split(":")
        (one,) = [x for x in importlib.import_module(f"timing.{setname}.cases").LAUNCHES if x.name == name]
        yield name, lambda one=one: cases.run(one)


def launches():
    """(name, a function launching it on cpu:precise: (seconds, result))."""
    for one in cases.LAUNCHES:
        yield one.name, lambda one=one: cases.run(one)
    for name in KERNELS:
        case = suite.get(name)
        size = case.sizes.get("large", case.sizes["small"])
        yield f"suite:{name}@{size}", lambda case=case, size=size: launch(case, size, "cpu:precise")


def timed(go, sample: bool):
    wp.set_module_options({"timing_sample": sample})
    return go()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated launch names")
    ap.add_argument("--wide", action="store_true", help="the blind sets' launches of WIDE instead")
    ap.add_argument("--launches", default="",
                    help="comma-separated SET:NAME launches of the blind sets instead (blind9:ldpc_minsum@1M)")
    ap.add_argument("--sample-wide", action="store_true",
                    help="sample them even so (model.SHARED_ABOVE set to infinity)")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    if a.sample_wide:
        from simt.sim.timing import model
        model.SHARED_ABOVE = float("inf")
    print(f"{'launch':34s} {'SMs':>4s} {'full cycles':>12s} {'sampled':>10s} {'error':>7s} "
          f"{'reported':>8s} {'full s':>7s} {'sampled s':>9s} {'full DRAM MB':>12s} {'sampled':>8s}")
    errors, reported, saved = [], [], []
    chosen = list(filter(None, a.launches.split(",")))
    for name, go in (wide_launches(chosen) if chosen else wide_launches() if a.wide else launches()):
        if only and name not in only:
            continue
        t_s, rs = timed(go, True)
        sms = int(rs.metrics.get("simt__sampled_sms.sum", 0))
        if sms >= 132:
            if a.wide or chosen:
                print(f"{name:34s} {sms:4d}  (not sampled: every SM replays)", flush=True)
            continue                         # not sampled: nothing to compare
        t_f, rf = timed(go, False)
        err = 100.0 * (rs.cycles - rf.cycles) / rf.cycles
        rep = rs.metrics["simt__sampling_error.pct"]
        errors.append(abs(err))
        reported.append(rep)
        saved.append(t_f / t_s)
        mb = [r.metrics["dram__bytes_read.sum"] / 1e6 for r in (rf, rs)]
        print(f"{name:34s} {sms:4d} {rf.cycles:12,d} {rs.cycles:10,d} {err:+6.1f}% {rep:7.1f}% "
              f"{t_f:7.2f} {t_s:9.2f} {mb[0]:12.1f} {mb[1]:8.1f}", flush=True)
    wp.set_module_options({"timing_sample": True})
    if errors:
        print(f"\n{len(errors)} sampled launches: mean |error| {np.mean(errors):.1f}%, worst {max(errors):.1f}%; "
              f"error within the reported one on {sum(e <= r for e, r in zip(errors, reported))}; "
              f"launch time saved: geometric mean {np.exp(np.mean(np.log(saved))):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
