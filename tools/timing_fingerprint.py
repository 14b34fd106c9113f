"""Every number the timing model predicts for a fixed set of launches, as JSON, to check that
a change meant to be behaviour-preserving (a speed-up) changes none of them.

Launches: every suite kernel at its small size on cpu:precise (as the tests run them), the
bench_trace kernels at their large size, the smallest launch of each family of the held-out
validation set (benchmarks/timing/cases.py; each predicts in under ~5 s), and a few suite kernels traced on cpu:trace
(the per-warp timeline: the trace file's digest). ``--big`` adds the sampled launches of
benchmarks/bench_big.py (slow). Per launch: r.cycles, r.stalls, every metric, the
bottleneck, per-block cycles, and the per-line stall table.

    PYTHONPATH=. python3 tools/timing_fingerprint.py --out before.json
    PYTHONPATH=. python3 tools/timing_fingerprint.py --out after.json --compare before.json

``--compare`` exits 1 on any difference (exact: floats compared with ==; ``--rtol 1e-12``
lets sums whose terms are added in another order pass).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]

import simt  # noqa: E402
from simt import suite  # noqa: E402
from simt.suite.case import to_launch_args  # noqa: E402
from timing import cases  # noqa: E402

BENCH_TRACE = ["mandelbrot", "transpose_tile", "matmul_tiled", "histogram_shared", "stencil_2d"]
TRACED = ["mandelbrot", "transpose_tile", "histogram_shared", "warp_shuffle_sum", "saxpy"]
BIG = ["saxpy@16M", "copy_stride32@8M"]


def plain(x):
    """JSON-able copy; floats kept exact (json writes repr, which round-trips)."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return plain(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else repr(x)
    return x


def digest(a) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def summary(r) -> dict:
    lines = r.lines
    stall_cols = [c for c in lines.columns if c.startswith("stall_")]
    return {
        "cycles": r.cycles,
        "stalls": plain(r.stalls),
        "metrics": plain(dict(r.metrics)),
        "bottleneck": plain(r.bottleneck),
        "block_cycles": digest(np.asarray(r.details["block_cycles"], np.float64)),
        "blocks": {k: digest(np.asarray(v)) for k, v in r.details["blocks"].items()},
        "line_stalls": plain(lines[["line", *stall_cols]].to_numpy().tolist()),
    }


def launches(big: bool):
    """(name, thunk returning a LaunchResult)."""
    for case in suite.CASES:
        yield f"suite:{case.name}@small", lambda c=case: suite.run_case(c, "small").result
    for name in BENCH_TRACE:
        case = suite.get(name)
        yield f"suite:{name}@large", lambda c=case: _case_launch(c, c.sizes["large"], "cpu:precise")
    smallest: dict[str, cases.Launch] = {}
    for launch in sorted(cases.LAUNCHES, key=lambda l: _size(l.name)):
        smallest.setdefault(launch.name.split("@")[0], launch)
    for launch in smallest.values():
        yield f"validation:{launch.name}", lambda l=launch: _validation_launch(l)
    if big:
        by = cases.by_name()
        for name in BIG:
            yield f"big:{name}", lambda l=by[name]: _validation_launch(l)


def _size(name: str) -> int:
    size = name.split("@")[1]
    return int(size.rstrip("KM")) * {"K": 1 << 10, "M": 1 << 20}.get(size[-1], 1)


def _case_launch(case, size, device, **kw):
    inputs, dim, block = case.make_inputs(np.random.default_rng(0), size)
    args = to_launch_args(inputs, simt, device)
    return simt.launch(case.kernel, dim, args, device=device, block_dim=block, **kw)


def _validation_launch(launch):
    inputs, dim, block = cases.instantiate(launch, "cpu:precise")
    return simt.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:precise")


def traced(tmp: str) -> dict:
    out = {}
    for name in TRACED:
        case = suite.get(name)
        path = os.path.join(tmp, f"{name}.jsonl")
        r = _case_launch(case, case.sizes["small"], "cpu:trace", trace=path)
        # launch ids (the process's traced launches so far) and host addresses are no
        # predictions and vary from run to run: left out; so is the end record, whose
        # metrics the summary holds (and --rtol compares)
        lines = [re.sub(r'"launch": ?\d+|"addr":\[[^]]*\]', "", ln)
                 for ln in Path(path).read_text().splitlines() if not ln.startswith('{"type": "end"')]
        out[f"trace:{name}@small"] = {"summary": summary(r), "records": len(lines),
                                      "digest": hashlib.sha256("\n".join(lines).encode()).hexdigest()}
    return out


def compare(new: dict, old: dict, rtol: float = 0.0) -> list[str]:
    diffs = []
    for key in sorted(set(new) | set(old)):
        if key not in new or key not in old:
            diffs.append(f"{key}: only in {'new' if key in new else 'old'}")
        elif not same(new[key], old[key], rtol):
            diffs.append(f"{key}: differs")
            if isinstance(new[key], dict) and isinstance(old[key], dict):
                for sub in diffs_in(new[key], old[key], rtol):
                    diffs.append(f"    {sub}")
    return diffs


def same(a, b, rtol: float) -> bool:
    """Equal, floats within ``rtol`` of each other (exact when 0)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rtol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=rtol, abs_tol=0.0)
    return a == b


def diffs_in(a, b, rtol: float, where=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if not same(a.get(k), b.get(k), rtol):
                yield from diffs_in(a.get(k), b.get(k), rtol, f"{where}.{k}")
    else:
        yield f"{where}: {str(b)[:120]} -> {str(a)[:120]}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--compare", metavar="OLD")
    p.add_argument("--rtol", type=float, default=0.0,
                   help="floats within this relative difference count as equal (a change of "
                        "the order in which sums are added moves their last bits)")
    p.add_argument("--big", action="store_true", help="add bench_big's sampled launches")
    p.add_argument("--only", help="comma-separated substrings of launch names to run")
    a = p.parse_args()
    simt.set_module_options({"timing": True})
    only = a.only.split(",") if a.only else None
    result = {}
    start = time.perf_counter()
    for name, thunk in launches(a.big):
        if only and not any(s in name for s in only):
            continue
        t = time.perf_counter()
        result[name] = summary(thunk())
        print(f"{name:45s} {time.perf_counter() - t:6.2f} s", file=sys.stderr, flush=True)
    if not only or any("trace" in s for s in only):
        with tempfile.TemporaryDirectory() as tmp:
            result.update(traced(tmp))
    print(f"{len(result)} launches in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    Path(a.out).write_text(json.dumps(result, indent=1, sort_keys=True))
    if a.compare:
        old = json.loads(Path(a.compare).read_text())
        if only:
            old = {k: v for k, v in old.items() if k in result}
        diffs = compare(result, old, a.rtol)
        same_as = f"within a relative {a.rtol:g}" if a.rtol else "identical"
        print("\n".join(diffs) if diffs else f"{same_as}: {len(result)} launches")
        return 1 if diffs else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
