"""The command line the blind sets' check.py share: run their checks (each kernel against numpy
at small sizes), report every one, exit non-zero if any failed."""
from __future__ import annotations

import argparse
import sys


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
