"""The ``simt`` command: ``simt demo`` (a showcase on the CPU engines), ``simt run [options]
FILE [ARGS...]`` (optionally on a device, recording a trace), ``simt report
banks|coalescing|divergence|lines|summary TRACE``, ``simt diff FILE.py::kernel`` (engines
compared, or against a stored golden), ``simt verify FILE.py::kernel`` (proved safe for every
input, or a bug with a replayed counterexample), ``simt sweep FILE.py::setup --param name=v1,v2 ...``
(a design space predicted on cpu:precise), ``simt cache info|clear``, ``simt --version``. Only
``diff`` with a ``cuda`` engine uses a GPU, and it skips that engine when there is none."""
from __future__ import annotations

import argparse
import os
import runpy
import sys

import simt
from simt.options import ARCHS


def run_file(path: str, args: list[str] | None = None, device: str | None = None,
             trace: str | None = None, arch: str | None = None, progress: bool | None = None,
             check: str | None = None, raise_on_hazard: bool = False) -> int:
    """Run a user's script as ``__main__`` with ``sys.argv == [path, *args]``, as ``python
    path args...`` would; its launches that name no device use ``device``.

    With ``trace``, launches on cpu:trace (the default device then) record to that file
    (later launches to FILE.1.jsonl, ...). The script's ``sys.exit(n)`` becomes the status.
    With ``check`` (race, init, sync, all, or a comma-separated list) every launch is checked,
    its reports go to stderr, and the exit status is 1 when any launch reported a hazard
    (unless the script itself exited with a non-zero status, which is kept). The default
    device and the module options are as they were once the script has run.
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
        scoped_options = simt.ScopedModuleOptions(options)
        scoped_device = simt.ScopedDevice(device or simt.get_device())
    except simt.SimtError as e:
        print(f"simt run: {e}", file=sys.stderr)
        return 2
    with scoped_device, scoped_options:     # the script's changes end with it too
        return _run_checked(path, args, check, raise_on_hazard)


def _run_checked(path: str, args: list[str] | None, check: str | None, raise_on_hazard: bool) -> int:
    """The script's exit status; with ``check``, its hazards reported and counted in it."""
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
    ver = commands.add_parser(
        "verify", help="prove a kernel free of out-of-bounds accesses, races and divergent barriers",
        description="Exit status: 0 every check proved safe, 1 a bug found (its counterexample "
                    "replayed on cpu:precise), 4 unknown (or vacuous assumptions), 2 a usage error.")
    ver.add_argument("target", metavar="FILE.py::kernel")
    ver.add_argument("--dim", help="launch dim, e.g. 1024 or 64,128 (default: any)")
    ver.add_argument("--block-dim", help="threads per block (default: any up to the limit)")
    ver.add_argument("--assume", action="append", metavar="EXPR",
                     help="a Python condition over parameters, dim[k], block_dim[0], a.shape[k] (repeatable)")
    ver.add_argument("--checks", help="comma-separated: bounds, race, barrier (default: all)")
    ver.add_argument("--timeout", type=float, default=60, help="seconds (default 60)")
    sweep = commands.add_parser(
        "sweep", help="predict every point of a design space on cpu:precise and rank them",
        usage="simt sweep FILE.py::setup --param NAME=V1,V2,... [--param ...] [--arch sm_80,sm_90] "
              "[--out FILE.csv|FILE.parquet] [--plot FILE.png] [options]",
        description="setup(**point) in FILE.py returns simt.launch's keyword arguments (kernel, dim, "
                    "inputs, block_dim, ...) for one point; the sweep launches each point on "
                    "cpu:precise for each architecture, in a pool of processes (or on a Dask "
                    "cluster), and prints the points fastest first. See README.md, 'Sweeping a "
                    "design space'. Exit status: 0, 1 no point could launch, 2 a usage error.")
    sweep.add_argument("target", metavar="FILE.py::setup")
    sweep.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2,...",
                       help="a parameter of setup and its values (Python literals or words), once per parameter")
    sweep.add_argument("--arch", default="sm_90",
                       help=f"comma-separated architectures: {', '.join(ARCHS)} or architecture files (default sm_90)")
    sweep.add_argument("--out", metavar="FILE", help="write the table: .csv, or .parquet (needs pyarrow)")
    sweep.add_argument("--plot", metavar="FILE.png", help="plot the predicted time over the space (matplotlib)")
    sweep.add_argument("--metrics", metavar="M1,M2,...", help="Nsight Compute metric names (default: a standard set)")
    sweep.add_argument("--cache", metavar="DIR", help="keep results in DIR; an interrupted sweep resumes from it")
    sweep.add_argument("--workers", type=int, metavar="N", help="processes (default: every core; 0: this process)")
    sweep.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (tcp://host:8786)")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")
    cache = commands.add_parser("cache", help="the fast engine's compiled-kernel cache")
    cache.add_argument("action", choices=("info", "clear"))
    cal = commands.add_parser(
        "calibrate", help="measure a GPU (with Nsight Compute, or clock64 without it) and write its architecture file",
        description="Runs the timing microbenchmarks on the GPU under Nsight Compute (ncu) where it is on "
                    "PATH, else self-timed with CUDA events and clock64 (instruction counts from the SASS), "
                    "fits every timing constant and writes an architecture file for arch='FILE.json'. See "
                    "benchmarks/timing/README.md, 'simt calibrate'.")
    cal.add_argument("--device", default="cuda:0", help="the GPU to measure: cuda or cuda:N (default cuda:0)")
    cal.add_argument("--out", required=True, metavar="FILE.json", help="the architecture file to write")
    cal.add_argument("--keep", metavar="DIR", help="where the measurements go (default: FILE.calibration/ beside --out)")
    cal.add_argument("--parts", help="measure only these parts (comma-separated: micro, micro2, micro3, micro4, "
                                     "micro5, micro8, l2_sharing, warp_words, store_merge, store_runs, l1_store_data, atomic_lines, "
                                     "probes, op_overlap, clock); the fit reads the others from --keep")
    cal.add_argument("--timer", choices=("auto", "ncu", "clock64"), default="auto",
                     help="ncu: Nsight Compute's counters; clock64: self-timed launches, no profiler; "
                          "auto (default): ncu where it is on PATH, else clock64")
    cal.add_argument("--from-csv", metavar="DIR", help="fit measurements already in DIR (no GPU)")
    _add_aot_commands(commands)
    return parser


def _add_aot_commands(commands) -> None:
    """``simt build FILE.py::kernel`` and ``simt config`` (kernels ahead of time, simt/aot)."""
    build = commands.add_parser(
        "build", help="compile a kernel ahead of time for the C/C++ runtime (no GPU needed)",
        description="Writes manifest.json and the kernel's code (cuda: cubins, PTX, a fatbin; cpu: "
                    "C source and a shared library) into --out. See README.md, 'Ahead-of-time "
                    "kernels and the C/C++ runtime'.")
    build.add_argument("target_kernel", metavar="FILE.py::kernel")
    build.add_argument("--target", choices=("cuda", "cpu"), default="cuda")
    build.add_argument("--arch", default="sm_90", help="cuda: comma-separated, e.g. sm_80,sm_90")
    build.add_argument("--out", help="output directory (default build/KERNEL)")
    build.add_argument("--block-dim", default="256", help="threads per block: 256, or 8,32 for an n-d grid")
    build.add_argument("--dim-ndim", type=int, default=1, help="dimensions of the launch dim (1 to 4)")
    config = commands.add_parser("config", help="compile and link flags for the C/C++ runtime")
    config.add_argument("--cflags", action="store_true", help="compiler flags (-I...)")
    config.add_argument("--libs", action="store_true", help="linker flags")
    config.add_argument("--include", action="store_true", help="the include directory")


def _aot_command(args) -> int:
    if args.command == "config":
        from . import runtime
        parts = []
        if args.include:
            parts.append(str(runtime.include_dir()))
        if args.cflags:
            parts += runtime.cflags()
        if args.libs:
            parts += runtime.libs()
        if not parts:
            print("simt config: give --cflags, --libs and/or --include", file=sys.stderr)
            return 2
        print(" ".join(parts))
        return 0
    from .aot import build_kernel
    from .testing import load_target
    try:
        kernel, _ = load_target(args.target_kernel)
        archs = [a.strip() for a in args.arch.split(",") if a.strip()]
        block = [int(b) for b in args.block_dim.split(",") if b.strip()]
        out = build_kernel(kernel, target=args.target, arch=archs, out_dir=args.out,
                           block_dim=block[0] if len(block) == 1 else tuple(block),
                           dim_ndim=args.dim_ndim)
    except (simt.SimtError, ValueError, OSError) as e:
        print(f"simt build: {e}", file=sys.stderr)
        return 2
    print(out)
    return 0


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
    if args.command == "verify":
        from .formal.command import verify_command
        return verify_command(args.target, args.dim, args.block_dim, args.assume, args.checks, args.timeout)
    if args.command == "sweep":
        from .sweep.command import command as sweep_command
        return sweep_command(args.target, args.param, args.arch, args.out, args.plot, args.metrics,
                             args.cache, args.workers, args.scheduler, progress=not args.no_progress)
    if args.command == "cache":
        from .sim.fast.cache import cache_command
        return cache_command(args.action)
    if args.command == "calibrate":
        from .calibrate import command as calibrate_command
        return calibrate_command(args.device, args.out, args.keep, args.parts, args.from_csv, args.timer)
    if args.command in ("build", "config"):
        return _aot_command(args)
    if args.command == "demo":
        from .demo import demo
        return demo()
    if args.command == "run":
        return run_file(args.file, args.args, args.device, args.trace, args.arch,
                        progress=False if args.no_progress else None, check=args.check,
                        raise_on_hazard=args.raise_on_hazard)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
