"""simt's PTX against hand-written CUDA C (nvcc -O3), kernel by kernel, on one GPU.

For every suite case (``simt.suite.CASES``, size ``large`` by default): both versions get the
very same device arrays and argument values (``benchmarks/cuda/suite_kernels.cu`` takes
simt's kernel ABI), both results are checked against the case's numpy reference first, then
each is timed with CUDA events over back-to-back launches (best of several rounds). The
ratio is simt / nvcc; the target is 1.2x or better.

The CUDA C is compiled with ``nvcc -O3 -fmad=false -arch=sm_XX -cubin`` when nvcc is on PATH,
otherwise a prebuilt ``benchmarks/cuda/build/suite_kernels.sm_XX.cubin`` is used.
``-fmad=false`` because simt's semantics (and its PTX) never contract a*b+c into an FMA: with
contraction the CUDA C computes something else (mandelbrot's escape counts change).

    PYTHONPATH=. python3 benchmarks/bench_gpu.py [--size large] [--cases saxpy,mandelbrot] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import simt  # noqa: E402
from simt import suite  # noqa: E402
from simt.launch import bind_arguments, engine_arguments, launch_geometry, normalise_dim  # noqa: E402
from simt.sim.common import LaunchConfig  # noqa: E402
from simt.suite.case import input_values, to_launch_args  # noqa: E402

CUDA_SOURCE = HERE / "cuda" / "suite_kernels.cu"
BUILD = HERE / "cuda" / "build"
DEVICE = "cuda"
TARGET_RATIO = 1.2
ROUNDS, LAUNCHES_PER_ROUND = 5, 20
NVCC_FLAGS = ["-O3", "-fmad=false"]


# ---- launching the same arguments on either version -----------------------------------------

@dataclass
class Prepared:
    """One case's launch, bound to device arrays: what both versions are given."""
    case: suite.Case
    fn: object                 # simt's MIR
    cfg: LaunchConfig
    values: list               # ctypes kernel arguments (simt's ABI)
    args: list                 # the simt arrays and scalars behind them
    expected: dict


def prepare(case: suite.Case, size, seed: int = 0, device: str = DEVICE) -> Prepared:
    from simt.gpu import runtime
    n = case.sizes[size] if isinstance(size, str) else int(size)
    inputs, dim, block_dim = case.make_inputs(np.random.default_rng(seed), n)
    expected = case.reference(input_values(inputs))
    args = to_launch_args(inputs, simt, device)
    kernel = case.kernel
    dims = normalise_dim(dim, kernel.key)
    sig, block, grid = launch_geometry(dims, block_dim, kernel.key)
    opts = kernel.effective_options()
    fn = kernel.compile(sig, opts["debug"], opts["fastmath"])
    engine_args = engine_arguments(kernel, fn, bind_arguments(kernel, args, simt.get_device(device)))
    cfg = LaunchConfig(dim=dims, block=block, grid=grid, sig=sig, arch=opts["arch"])
    return Prepared(case, fn, cfg, runtime.kernel_parameters(fn, cfg, engine_args), args, expected)


def outputs_of(p: Prepared) -> dict:
    names = [name for name, _ in p.case.kernel.params]
    return {name: p.args[names.index(name)].numpy() for name in p.case.outputs_to_check}


def check(p: Prepared) -> str:
    """'ok' or the first difference from the numpy reference."""
    try:
        suite.compare(p.case, outputs_of(p), p.expected)
        return "ok"
    except AssertionError as e:
        lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
        return " | ".join(lines[:4])[:200]


def best_ms(function, p: Prepared, ordinal: int = 0) -> float:
    from simt.gpu import runtime
    what = f"'{p.case.name}'"
    runtime.launch_function(function, p.cfg.grid, p.cfg.block, p.values, ordinal, what, repeat=3)
    return min(runtime.launch_function(function, p.cfg.grid, p.cfg.block, p.values, ordinal, what,
                                       repeat=LAUNCHES_PER_ROUND) for _ in range(ROUNDS))


# ---- the CUDA C version -----------------------------------------------------------------------

def cuda_c_module(arch: str, ordinal: int = 0):
    """The suite's CUDA C, compiled by nvcc now if possible, else prebuilt; loaded."""
    from simt.gpu import runtime
    BUILD.mkdir(parents=True, exist_ok=True)
    cubin = BUILD / f"suite_kernels.{arch}.cubin"
    nvcc = shutil.which("nvcc")
    if nvcc:
        subprocess.run([nvcc, *NVCC_FLAGS, f"-arch={arch}", "-cubin", "-o", str(cubin), str(CUDA_SOURCE)],
                       check=True, capture_output=True)
    elif not cubin.exists():
        raise SystemExit(f"no nvcc on PATH and no prebuilt {cubin}; build it elsewhere with\n  "
                         f"nvcc {' '.join(NVCC_FLAGS)} -arch={arch} -cubin -o {cubin} {CUDA_SOURCE}")
    how = f"nvcc {' '.join(NVCC_FLAGS)} (now)" if nvcc else f"prebuilt {cubin.name}"
    return runtime.load_module(cubin.read_bytes(), ordinal, f"{cubin.name}"), how


# ---- the benchmark ----------------------------------------------------------------------------

@dataclass
class Row:
    case: str
    threads: int
    simt_us: float
    nvcc_us: float
    simt_regs: int
    nvcc_regs: int
    simt_check: str
    nvcc_check: str

    @property
    def ratio(self) -> float:
        return self.simt_us / self.nvcc_us


def bench_case(case: suite.Case, size, module, ordinal: int = 0) -> Row:
    from simt.gpu import runtime
    simt_run = prepare(case, size)
    simt_kernel = runtime.compile_and_load(simt_run.fn, simt_run.cfg.arch, ordinal)
    runtime.launch_function(simt_kernel.function, simt_run.cfg.grid, simt_run.cfg.block,
                            simt_run.values, ordinal, case.name)
    simt_check = check(simt_run)
    nvcc_run = prepare(case, size)
    nvcc_fn = runtime.get_function(module, case.kernel_name, "suite_kernels.cu")
    runtime.launch_function(nvcc_fn, nvcc_run.cfg.grid, nvcc_run.cfg.block, nvcc_run.values,
                            ordinal, case.name)
    nvcc_check = check(nvcc_run)
    threads = math.prod(simt_run.cfg.dim)
    return Row(case.name, threads, 1e3 * best_ms(simt_kernel.function, simt_run),
               1e3 * best_ms(nvcc_fn, nvcc_run),
               runtime.function_attribute(simt_kernel.function, "NUM_REGS"),
               runtime.function_attribute(nvcc_fn, "NUM_REGS"), simt_check, nvcc_check)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="large", help="suite size name or a number (default large)")
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    from simt.gpu import runtime
    why = runtime.unavailable_reason(0)
    if why:
        print(f"bench_gpu: no GPU to benchmark on: {why}")
        return 0
    ctx = runtime.context(0)
    module, how = cuda_c_module(ctx.arch if ctx.arch in ("sm_80", "sm_90") else "sm_90")
    print(f"{ctx.name} ({ctx.arch}, {ctx.num_sms} SMs, {ctx.clock_rate_khz / 1e3:.0f} MHz); "
          f"CUDA C: {how}; best of {ROUNDS} x {LAUNCHES_PER_ROUND} back-to-back launches\n")
    cases = [suite.get(n) for n in args.cases.split(",")] if args.cases else suite.CASES
    print(f"{'kernel':<22}{'threads':>9}{'simt us':>10}{'nvcc us':>10}{'ratio':>8}{'regs':>9}  check")
    rows, failed = [], False
    for case in cases:
        try:
            row = bench_case(case, int(args.size) if args.size.isdigit() else args.size, module)
        except simt.SimtError as e:
            print(f"{case.name:<22} FAILED: {str(e).splitlines()[0][:150]}")
            failed = True
            continue
        rows.append(row)
        checks = "ok" if row.simt_check == row.nvcc_check == "ok" else \
            f"simt: {row.simt_check}; nvcc: {row.nvcc_check}"
        failed |= row.simt_check != "ok"
        print(f"{row.case:<22}{row.threads:>9}{row.simt_us:>10.2f}{row.nvcc_us:>10.2f}"
              f"{row.ratio:>7.2f}x{row.simt_regs:>4}/{row.nvcc_regs:<4}  {checks}")
    if rows:
        geo = math.exp(sum(math.log(r.ratio) for r in rows) / len(rows))
        worst = max(rows, key=lambda r: r.ratio)
        within = sum(r.ratio <= TARGET_RATIO for r in rows)
        print(f"\ngeometric mean simt/nvcc {geo:.2f}x; {within}/{len(rows)} within "
              f"{TARGET_RATIO}x; worst {worst.case} {worst.ratio:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) | {"ratio": r.ratio} for r in rows], indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
