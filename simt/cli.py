"""The ``simt`` command: ``simt demo`` (a showcase on the CPU engines), ``simt run [options]
FILE [ARGS...]`` (optionally on a device, recording a trace), ``simt report
banks|coalescing|divergence|lines|summary TRACE``, ``simt diff FILE.py::kernel`` (engines
compared, or against a stored golden), ``simt cache info|clear``, ``simt --version``. Only
``diff`` with a ``cuda`` engine uses a GPU, and it skips that engine when there is none."""
from __future__ import annotations

import argparse
import os
import runpy
import sys

import numpy as np

import simt
from simt.options import ARCHS
from simt.suite.cuda_style import block_sum_shared   # the suite's shared-memory tree reduction

BLOCK = 256


@simt.kernel
def branchy(x: simt.array(dtype=float), out: simt.array(dtype=float)):
    """Half of each warp takes each side of the branch: divergence the metrics will show."""
    i = simt.tid()
    if i % 2 == 0:
        out[i] = x[i] * x[i]
    else:
        out[i] = -x[i]


_SHOWN = (("warp instructions", "smsp__inst_executed.sum", "{:.0f}"),
          ("thread instructions", "smsp__thread_inst_executed.sum", "{:.0f}"),
          ("branch efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct", "{:.1f} %"),
          ("divergent branch targets", "smsp__sass_branch_targets_threads_divergent.sum", "{:.0f}"),
          ("predicted cycles", "sm__cycles_elapsed.max", "{:.0f}"))


def _print_metrics(result: simt.LaunchResult) -> None:
    m = result.metrics
    for label, key, fmt in _SHOWN:
        if key in m:
            print(f"    {label:<26}{fmt.format(m[key])}")
    inst, thread_inst = m.get("smsp__inst_executed.sum"), m.get("smsp__thread_inst_executed.sum")
    if inst:
        print(f"    {'warp execution efficiency':<26}{100.0 * thread_inst / inst / 32:.1f} %")
    s = result.details.get("sampling")
    if s and (s["sms"] < s["of_sms"] or s["blocks"] < s["of_blocks"]):
        print(f"    {'cycles replayed on':<26}{s['sms']} of {s['of_sms']} SMs, {s['blocks']:,} of "
              f"{s['of_blocks']:,} blocks (estimated error {s['error_pct']:.1f} %)")
    _print_bottleneck(result)


def _print_bottleneck(result: simt.LaunchResult) -> None:
    limit = result.details.get("bottleneck")
    if limit:
        print(f"    {'limited by':<26}{limit['limiter']}: {limit['why']}")


def _check(name: str, got: np.ndarray, expected: np.ndarray) -> bool:
    ok = bool(np.allclose(got, expected, rtol=1e-5, atol=1e-5))
    print(f"  {name}: {'matches numpy' if ok else 'DIFFERS from numpy'}")
    if not ok:
        print(f"    got      {got[:8]}\n    expected {expected[:8]}")
    return ok


def demo() -> int:
    device = "cpu:precise"
    print(f"simt {simt.__version__} demo on '{device}' (a simulated GPU: warps of 32 lanes)\n")
    rng = np.random.default_rng(0)
    n = 1024
    x = rng.uniform(-1.0, 1.0, n).astype(np.float32)

    print(f"1. branchy: even threads square, odd threads negate ({n} threads)")
    xs, out = simt.array(x), simt.zeros(n)
    result = simt.launch(branchy, dim=n, inputs=[xs], outputs=[out], device=device, block_dim=BLOCK)
    expected = np.where(np.arange(n) % 2 == 0, x * x, -x)
    ok = _check("results", out.numpy(), expected)
    _print_metrics(result)

    print(f"\n2. block_sum: shared-memory tree reduction, {n // BLOCK} blocks of {BLOCK} threads")
    sums = simt.zeros(n // BLOCK)
    result = simt.launch(block_sum_shared, dim=n, inputs=[xs, n], outputs=[sums], device=device,
                         block_dim=BLOCK)
    ok &= _check("per-block sums", sums.numpy(), x.reshape(-1, BLOCK).sum(axis=1))
    _print_metrics(result)

    print("\n3. transpose of 1024x1024 through a 32x32 shared tile, then with the tile padded to 32x33")
    ok &= _transpose_story(rng)

    print(f"\n4. the same kernels on 'cpu' (the fast engine, compiled with numba; the first "
          f"run compiles)")
    out_fast, sums_fast = simt.zeros(n), simt.zeros(n // BLOCK)
    simt.launch(branchy, dim=n, inputs=[xs], outputs=[out_fast], device="cpu", block_dim=BLOCK)
    simt.launch(block_sum_shared, dim=n, inputs=[xs, n], outputs=[sums_fast], device="cpu",
                block_dim=BLOCK)
    same = (out_fast.numpy() == out.numpy()).all() and (sums_fast.numpy() == sums.numpy()).all()
    print(f"  results: {'identical to cpu:precise' if same else 'DIFFER from cpu:precise'}")
    ok &= bool(same)

    print("\nInspect the compiled code with simt.mir(kernel) or simt.ptx(kernel); record a trace "
          "with device='cpu:trace'; see README.md.")
    return 0 if ok else 1


def _transpose_story(rng) -> bool:
    from .suite.cuda_style import transpose_tile, transpose_tile_padded
    n = 1024
    src = rng.standard_normal((n, n)).astype(np.float32)
    ok = True
    for kernel, label in ((transpose_tile, "32x32 tile"), (transpose_tile_padded, "32x33 tile")):
        a, b = simt.array(src), simt.zeros((n, n))
        r = simt.launch(kernel, dim=(n // 4, n), inputs=[a, b], block_dim=(8, 32), device="cpu:precise")
        good = bool((b.numpy() == src.T).all())
        ok &= good
        m = r.metrics
        stalls = ", ".join(f"{k} {v:.0f}" for k, v in r.stalls.items() if round(v))
        print(f"  {label}: {'matches numpy' if good else 'DIFFERS from numpy'}; shared-load wavefronts "
              f"{m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum']}, bank conflicts "
              f"{m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum']}, "
              f"predicted {r.cycles} cycles")
        print(f"    stall cycles by reason: {stalls}")
        _print_bottleneck(r)
    return ok


def run_file(path: str, args: list[str] | None = None, device: str | None = None,
             trace: str | None = None, arch: str | None = None, progress: bool | None = None,
             check: str | None = None, raise_on_hazard: bool = False) -> int:
    """Run a user's script as ``__main__`` with ``sys.argv == [path, *args]``, as ``python
    path args...`` would; its launches that name no device use ``device``.

    With ``trace``, launches on cpu:trace (the default device then) record to that file
    (later launches to FILE.1.jsonl, ...). The script's ``sys.exit(n)`` becomes the status.
    With ``check`` (race, init, sync, all, or a comma-separated list) every launch is checked,
    its reports go to stderr, and the exit status is 1 when any launch reported a hazard
    (unless the script itself exited with a non-zero status, which is kept).
    """
    if not os.path.isfile(path):
        print(f"simt run: no such file: {path}", file=sys.stderr)
        return 2
    options = {}
    if progress is not None:
        options["progress"] = progress
    if check:
        options["check"] = check
        options["raise_on_hazard"] = raise_on_hazard
    if trace:
        device = device or "cpu:trace"
        options["trace"] = trace
    if arch:
        options["arch"] = arch
    try:
        if device:
            simt.set_device(device)
        simt.set_module_options(options)
    except simt.SimtError as e:
        print(f"simt run: {e}", file=sys.stderr)
        return 2
    if not check:
        return _run_script(path, args)
    from .sim.check.launching import add_reporter, remove_reporter
    from .sim.check.report import summary
    found: list = []

    def report(kernel: str, hazards: list) -> None:
        if hazards:
            found.extend(hazards)
            print(f"simt run: kernel '{kernel}':\n{summary(hazards)}\n", file=sys.stderr)

    add_reporter(report)
    try:
        status = _run_script(path, args)
    except simt.HazardError:
        print("simt run: stopped at the first launch with a hazard (--raise-on-hazard)", file=sys.stderr)
        return 1
    finally:
        remove_reporter(report)
    print(f"simt run --check {check}: {len(found)} hazard report{'s' if len(found) != 1 else ''}",
          file=sys.stderr)
    return status or (1 if found else 0)


def _run_script(path: str, args: list[str] | None) -> int:
    """Run ``path`` as ``__main__`` with its own argv and directory on sys.path; its exit status."""
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path, *(args or [])]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))   # as `python FILE` does
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        return _exit_status(e.code)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0


def _exit_status(code) -> int:
    """What ``sys.exit(code)`` makes the process exit with."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """The ``simt`` command; output cut short by a closed pipe (``simt demo | head``) ends
    quietly, as other command-line tools do."""
    try:
        return _main(argv)
    except BrokenPipeError:
        _silence_stdout()
        return 141          # 128 + SIGPIPE, what a shell reports for a tool killed by it


def _silence_stdout() -> None:
    """After EPIPE: send what is still buffered for stdout nowhere, so the interpreter's
    final flush does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="simt", description="A SIMT GPU simulator for Warp-style kernels.")
    parser.add_argument("--version", action="version", version=f"simt {simt.__version__}")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("demo", help="run a small showcase on the precise engine")
    run = commands.add_parser("run", help="run a Python file that launches simt kernels",
                              usage="simt run [--device D] [--trace PATH] [--arch A] [--no-progress] "
                                    "[--check CHECKS [--raise-on-hazard]] FILE [ARGS...]",
                              description="Runs FILE as `python FILE ARGS...` would (sys.argv is "
                                          "[FILE, *ARGS]); simt's options go before FILE.")
    run.add_argument("--device", help="default device: cpu, cpu:precise, cpu:trace, cuda, cuda:N")
    run.add_argument("--trace", metavar="PATH", help="record launches on cpu:trace to PATH (.jsonl or .jsonl.gz)")
    run.add_argument("--arch", help=f"architecture the timing model uses: {', '.join(ARCHS)} or the path "
                                    f"of an architecture JSON file")
    run.add_argument("--no-progress", action="store_true", help="no progress bars for long launches")
    run.add_argument("--check", metavar="CHECKS",
                     help="sanitizers for every launch: race, init, sync, all, or a comma-separated list; "
                          "reports go to stderr and the exit status is 1 if any launch has one")
    run.add_argument("--raise-on-hazard", action="store_true",
                     help="with --check: stop at the first launch with a hazard (HazardError)")
    run.add_argument("file")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for FILE")
    report = commands.add_parser("report", help="analyse a trace written with device='cpu:trace'")
    report.add_argument("analysis", choices=REPORT_KINDS)
    report.add_argument("trace", help="a .jsonl or .jsonl.gz trace file")
    report.add_argument("--by", choices=("pc", "line"), help="one row per instruction or per source line")
    report.add_argument("--csv", action="store_true", help="comma-separated values instead of a table")
    diff = commands.add_parser(
        "diff", help="run a kernel on several engines (or against a stored golden) and diff its arrays",
        description="FILE.py defines the kernel and a function simt_inputs() (or "
                    "simt_inputs_KERNEL()) returning (dim, inputs) or (dim, inputs, block_dim); "
                    "it may take the --dim value as its one argument. See README.md, 'Golden "
                    "comparisons'. Exit status: 0 the engines agree, 1 they differ or --check "
                    "found hazards, 2 a usage error, 3 nothing was compared (fewer than two "
                    "engines could run).")
    diff.add_argument("target", metavar="FILE.py::kernel")
    diff.add_argument("--dim", help="launch dim, e.g. 1024 or 64,128 (overrides simt_inputs)")
    diff.add_argument("--engines", default=None,
                      help="comma-separated; the first is the reference (default: $SIMT_ENGINES, "
                           "else cpu:precise,cuda)")
    diff.add_argument("--block-dim", help="threads per block, e.g. 256 or 8,32")
    diff.add_argument("--rtol", type=float, help="relative float tolerance (default 1e-5)")
    diff.add_argument("--atol", type=float, help="absolute float tolerance (default 1e-6)")
    diff.add_argument("--check", metavar="CHECKS", help="also run sanitizers on the CPU engines "
                      "(race, init, sync, all); any hazard fails the diff")
    diff.add_argument("--golden", metavar="FILE.npz",
                      help="compare every engine that runs against the outputs stored in FILE.npz")
    diff.add_argument("--record", metavar="FILE.npz",
                      help="store the first engine's outputs (with the GPU, driver and simt "
                           "version) in FILE.npz, after comparing the others with it")
    cache = commands.add_parser("cache", help="the fast engine's compiled-kernel cache")
    cache.add_argument("action", choices=("info", "clear"))
    return parser


REPORT_KINDS = ("banks", "coalescing", "divergence", "lines", "summary")


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "report":
        from .analysis.report import report as print_report
        return print_report(args.analysis, args.trace, args.by, csv=args.csv)
    if args.command == "diff":
        from .testing import diff_command
        try:
            return diff_command(args.target, args.dim, args.engines, args.block_dim, args.rtol,
                                args.atol, args.check, golden=args.golden, record=args.record)
        except (simt.SimtError, ValueError, OSError) as e:
            print(f"simt diff: {e}", file=sys.stderr)
            return 2
    if args.command == "cache":
        from .sim.fast.cache import cache_command
        return cache_command(args.action)
    if args.command == "demo":
        return demo()
    if args.command == "run":
        return run_file(args.file, args.args, args.device, args.trace, args.arch,
                        progress=False if args.no_progress else None, check=args.check,
                        raise_on_hazard=args.raise_on_hazard)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
