"""The command line the blind sets' check.py share: run their checks (each kernel against numpy
at small sizes), report every one, exit non-zero if any failed."""
from __future__ import annotations

import argparse
import sys

import numpy as np

import simt as wp
from timing.cases import _arrays


def run(checks, check, doc: str) -> None:
    """``checks``: (launch, reference, tolerance) triples; ``check(launch, ref, tol, device)``
    returns (ok, why)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="checks to run (default: all)")
    ap.add_argument("--device", default="cpu", help="cpu (default) or cuda: the same checks on a GPU")
    args = ap.parse_args()
    failed = ran = 0
    for launch, ref, tol in checks:
        if args.names and launch.name not in args.names:
            continue
        try:
            ok, why = check(launch, ref, tol, args.device)
        except Exception as e:          # report every check, then fail
            ok, why = False, f"{type(e).__name__}: {e}"
        ran += 1
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {launch.name:26s} {launch.kernel.key:22s} {why}", flush=True)
    print(f"{ran} kernels checked; {failed} failed")
    sys.exit(1 if failed else 0)


def check(launch, reference, tol, device="cpu") -> tuple[bool, str]:
    """Run ``launch`` on ``device`` (inputs from seed 1) and compare the arguments
    ``reference(host inputs)`` names with what it wants: (ok, why). A wanted value may be
    (fn, want), fn(got, res) turning the result into something order-free first (res(k):
    argument k as numpy); integers may differ on a ``tol`` share of elements, floats by
    ``tol`` relative to |want| + 1."""
    values, dim, block = launch.make(np.random.default_rng(1))
    host = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
    inputs = _arrays(values, launch.dtypes, device)
    wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device=device)
    cache = {}

    def res(k):
        if k not in cache:
            cache[k] = inputs[k].numpy()
        return cache[k]
    worst = 0.0
    for k, want in reference(host).items():
        fn = None
        if isinstance(want, tuple):
            fn, want = want
        got = res(k)
        if fn is not None:
            got = fn(got, res)
        if np.size(got) != np.size(want):
            return False, f"argument {k}: {np.size(got)} elements, {np.size(want)} wanted"
        got = got.reshape(np.shape(want))
        if got.dtype.kind in "iu":
            bad = int(np.sum(got != want))
            if bad > tol * got.size:
                return False, f"argument {k}: {bad} of {got.size} elements differ"
            worst = max(worst, bad / got.size)
            continue
        err = float(np.max(np.abs(got.astype(np.float64) - want) / (np.abs(want) + 1.0)))
        worst = max(worst, err)
        if not err <= tol:
            return False, f"argument {k}: relative error {err:.2e}"
    return True, f"worst error {worst:.1e}"
