"""Which launches of the validation sets do some of the timing model's switches change?

A switch (a module constant such as ``simt.gpu.sass.WIDE_LOADS`` or
``simt.sim.timing.sass_slots.NEST``) changes a launch's prediction only through what the
model derives from the kernel before replaying it: the issue slots and flags of its timing
tables and the SASS schedule it replays (sass_replay.plan). This script compiles every
launch's kernel (nothing runs) and compares those with the switch as it is and flipped.
A launch whose tables and schedule are the same gets the same prediction, as the model is
deterministic; only the others need predicting again.

    PYTHONPATH=. python3 benchmarks/timing/changed_by.py simt.gpu.sass.WIDE_LOADS [more switches] [--sets validation,blind,blind2]

With several switches, all are flipped together.

Prints, per set, the launches that change (with what: ``slots``, ``flags``, ``schedule``)
and, last, an ``--only`` list per set for blind/report.py.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from simt.arch import load_arch  # noqa: E402
from simt.devices import get_device  # noqa: E402
from simt.launch import bind_arguments, launch_geometry, normalise_dim  # noqa: E402
from simt.sim.precise.program import prepare  # noqa: E402
from simt.sim.timing import model, sass_replay  # noqa: E402
from timing.blind import SETS  # noqa: E402
from timing.cases import instantiate  # noqa: E402


def launches(name: str):
    module = "timing.cases" if name == "validation" else f"timing.{name}.cases"
    return importlib.import_module(module).LAUNCHES


def function(launch):
    """The MIR function a launch of ``launch`` on cpu:precise runs (as simt.launch compiles it)."""
    inputs, dim, block = instantiate(launch, "cpu:precise")
    arch = load_arch("sm_90")
    sig, _, _ = launch_geometry(normalise_dim(dim, launch.kernel.key), block, launch.kernel.key, arch)
    bound = bind_arguments(launch.kernel, inputs, get_device("cpu:precise"))
    opts = launch.kernel.effective_options()
    return launch.kernel.compile(sig, opts["debug"], opts["fastmath"], tuple(t for _, t, _ in bound))


def fingerprint(prog, arch) -> dict:
    """What the model derives from the program before the replay, hashed per part."""
    tab = model._tables(prog, arch, True)
    sched = sass_replay.plan(prog, arch, tab, True)

    def h(*arrays):
        m = hashlib.sha1()
        for a in arrays:
            m.update(np.ascontiguousarray(a).tobytes())
        return m.hexdigest()[:12]
    groups = [(g.block, g.unroll, tuple(g.path), g.order, sorted(g.vec.items())) for g in sched.groups]
    return {"slots": h(tab.sass), "flags": h(tab.atomic),
            "schedule": hashlib.sha1(json.dumps([sched.replay, groups], default=str).encode()).hexdigest()[:12]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("switch", nargs="+", help="module.path.NAME of a boolean switch")
    ap.add_argument("--sets", default=",".join(["validation", *SETS]))
    a = ap.parse_args(argv)
    switches = []
    for path in a.switch:
        modname, attr = path.rsplit(".", 1)
        mod = importlib.import_module(modname)
        switches.append((mod, attr, getattr(mod, attr)))
    arch = load_arch("sm_90")
    only = {}
    for name in a.sets.split(","):
        changed = []
        for launch in launches(name):
            fn = function(launch)
            got = []
            for flip in (False, True):
                for mod, attr, value in switches:
                    setattr(mod, attr, value != flip)
                try:
                    got.append(fingerprint(prepare(fn), arch))
                finally:
                    for mod, attr, value in switches:
                        setattr(mod, attr, value)
            what = [k for k in got[0] if got[0][k] != got[1][k]]
            if what:
                changed.append(launch.name)
                print(f"{name:12s} {launch.name:36s} {', '.join(what)}", flush=True)
        only[name] = changed
    print()
    for name, changed in only.items():
        print(f"{name}: {len(changed)} --only {','.join(changed)}" if changed else f"{name}: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
