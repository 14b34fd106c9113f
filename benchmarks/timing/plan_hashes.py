"""Which launches of the held-out sets a change to the timing tables or the SASS-order replay can
move, without simulating any: per launch, a hash of the timing tables (isa.Tables) and of the
replay's schedule (sass_replay.plan). Two commits whose hashes agree on a launch predict it alike
(the machine itself not changed between them).

    PYTHONPATH=. python3 benchmarks/timing/plan_hashes.py --out a.json [validation blind blind2 ...]
    (at the other commit) ... --out b.json; python3 benchmarks/timing/plan_hashes.py --diff a.json b.json

or, for a change behind a switch (a module constant such as ``simt.gpu.sass.WIDE_LOADS``), at
one commit, every launch hashed with the switches as they are and flipped (all together):

    PYTHONPATH=. python3 benchmarks/timing/plan_hashes.py --flip simt.gpu.sass.WIDE_LOADS [--flip ...] [sets]

which prints the launches that differ and, per set, the ``--only`` list for blind/report.py
(whose ``--reuse`` then takes the other launches' predictions from an earlier report).

Each launch's inputs are made (as its report makes them) and its kernel compiled; the launch
stops before the engine runs.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[2])]

import simt  # noqa: E402
import simt.launch  # noqa: E402,F401
from simt.arch import load_arch  # noqa: E402
from simt.sim.precise.engine import prepare  # noqa: E402
from simt.sim.timing import model, replay_streams, sass_replay  # noqa: E402

from benchmarks.timing.blind import SETS as BLIND  # noqa: E402

SETS = ["validation", *BLIND]
FLIPS: list = []        # (module, name, value) of the switches --flip flips


class _Planned(Exception):
    pass


def _plan_hash(dev, run_engine, kernel, fn, cfg, args, trace, trace_options, opts):
    got = _hash(prepare(fn), load_arch(cfg.arch))
    if FLIPS:
        for mod, name, value in FLIPS:
            setattr(mod, name, not value)
        try:
            got += " " + _hash(prepare(fn), load_arch(cfg.arch))
        finally:
            for mod, name, value in FLIPS:
                setattr(mod, name, value)
    raise _Planned(got)


def _hash(prog, arch) -> str:
    tab = model._tables(prog, arch, True)
    plan = sass_replay.plan(prog, arch, tab, True)
    h = hashlib.sha1()
    for name in sorted(vars(tab)):
        v = getattr(tab, name)
        if isinstance(v, np.ndarray):
            h.update(name.encode())
            h.update(np.ascontiguousarray(v).tobytes())
    summary = {k: v for k, v in plan.summary().items() if k != "why"}
    h.update(json.dumps(summary, sort_keys=True, default=str).encode())
    for g in plan.groups:
        h.update(repr((g.block, g.unroll, g.order, g.srcs, g.dsts, g.path, g.then)).encode())
    if plan.groups:                  # the tables the machine replays (a group's predicated branches)
        rep = replay_streams.tables(tab, plan, prog.nregs)
        for name in sorted(vars(rep.tab)):
            v = getattr(rep.tab, name)
            if isinstance(v, np.ndarray):
                h.update(np.ascontiguousarray(v).tobytes())
        h.update(np.ascontiguousarray(rep.path_then).tobytes())
    h.update(repr(sorted(sass_replay.vector_lines(prog, arch).items())).encode())   # (the recorder's)
    return h.hexdigest()


def hashes(sets: list[str]) -> dict[str, str]:
    launch_module = sys.modules["simt.launch"]
    launch_module.run_on_device = _plan_hash
    out = {}
    for set_name in sets:
        cases = importlib.import_module("benchmarks.timing.cases" if set_name == "validation"
                                        else f"benchmarks.timing.{set_name}.cases")
        for launch in cases.LAUNCHES:
            args, dim, block = cases.instantiate(launch, "cpu:precise")
            try:
                simt.launch(launch.kernel, dim=dim, inputs=args, block_dim=block, device="cpu:precise")
            except _Planned as e:
                out[f"{set_name}/{launch.name}"] = str(e)
            print(f"{set_name}/{launch.name} {out.get(f'{set_name}/{launch.name}', '?')[:12]}", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", default=SETS)
    ap.add_argument("--out", help="write the hashes here (JSON)")
    ap.add_argument("--diff", nargs=2, metavar=("A", "B"), help="list the launches whose hashes differ")
    ap.add_argument("--flip", action="append", metavar="MODULE.NAME",
                    help="list the launches this boolean switch changes (repeat it: flipped together)")
    a = ap.parse_args()
    if a.flip:
        for path in a.flip:
            modname, name = path.rsplit(".", 1)
            mod = importlib.import_module(modname)
            FLIPS.append((mod, name, bool(getattr(mod, name))))
        h = hashes(a.sets)
        moved = [k for k, v in h.items() if len(set(v.split())) > 1]
        print(f"\n{len(moved)} of {len(h)} launches change with {' '.join(a.flip)} flipped:")
        for set_name in a.sets:
            names = [k.split("/", 1)[1] for k in moved if k.split("/", 1)[0] == set_name]
            print(f"{set_name}: {len(names)}" + (f" --only {','.join(names)}" if names else ""))
        return 0
    if a.diff:
        x, y = (json.loads(Path(p).read_text()) for p in a.diff)
        moved = sorted(k for k in x.keys() | y.keys() if x.get(k) != y.get(k))
        print(f"{len(moved)} of {len(x.keys() | y.keys())} launches may move:")
        print("\n".join(moved))
        return 0
    h = hashes(a.sets)
    if a.out:
        Path(a.out).write_text(json.dumps(h, indent=0, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
