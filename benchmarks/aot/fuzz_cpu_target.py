"""Differential check of the AOT cpu target: random kernels from simt's fuzzer (simt/fuzz.py:
every scalar type, math builtins, branches, loops, atomics, shared memory around barriers,
warp shuffles and votes), each built with simt.build_kernel(target="cpu"), run by the C++ test
program (tests/test_aot_driver.cpp) and compared bit for bit with the fast engine. A
difference is printed with cpu:precise's verdict and its source kept under --out.

    PYTHONPATH=. python3 benchmarks/aot/fuzz_cpu_target.py [--examples N] [--out DIR]

Each program compiles twice (numba, the C compiler): a few seconds each.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=25)
    parser.add_argument("--out", default=tempfile.mkdtemp(prefix="simt-aot-fuzz-"))
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from hypothesis import HealthCheck, given, settings, strategies as st

    from simt import fuzz
    from simt.aot import build_kernel
    import test_aot_kernels as K

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    driver = K.compile_driver(out)
    seen = {"programs": 0, "differing": 0}

    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(fuzz.programs(collectives=True), st.integers(0, 100))
    def check(source, seed):
        kernel = fuzz.load(source)
        inputs = [K.array_input(k, v) for k, v in fuzz.inputs(seed).items()]
        fast = K.engine_outputs(kernel, inputs, fuzz.THREADS, fuzz.BLOCK, "cpu")
        work = out / str(seen["programs"])
        work.mkdir(exist_ok=True)
        built = build_kernel(kernel, target="cpu", out_dir=work / "build", block_dim=fuzz.BLOCK)
        got = K.run_driver(driver, "cpu", built, inputs, fuzz.THREADS, fuzz.BLOCK, work)
        seen["programs"] += 1
        found = fuzz.differences(fast, got)
        if found:
            seen["differing"] += 1
            precise = K.engine_outputs(kernel, inputs, fuzz.THREADS, fuzz.BLOCK, "cpu:precise")
            print(f"program {seen['programs']}: {found[:2]}; against cpu:precise: "
                  f"{fuzz.differences(precise, got)[:2] or 'equal'}", flush=True)
            (work / "source.py").write_text(source)

    check()
    print(f"{seen['programs']} programs, {seen['differing']} differing from the fast engine")
    return 1 if seen["differing"] else 0


if __name__ == "__main__":
    sys.exit(main())
