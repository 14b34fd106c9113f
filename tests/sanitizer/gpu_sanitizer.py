"""compute-sanitizer on simt's own PTX of every corpus kernel, on a GPU. One command:

    PYTHONPATH=. python3 tests/sanitizer/gpu_sanitizer.py OUTDIR

runs ``compute-sanitizer --tool racecheck|initcheck|synccheck`` on one process per (case,
tool), in parallel, and writes OUTDIR/raw/<case>.<tool>.txt (everything the tool printed)
and OUTDIR/compute_sanitizer.csv (case, tool, status, verdict, reports, kinds, lines,
markers). Commit the CSV as tests/sanitizer/compute_sanitizer.csv: the agreement table
(benchmarks/bench_sanitizer.py) reads it from there.

    PYTHONPATH=. python3 tests/sanitizer/gpu_sanitizer.py --parse OUTDIR   # re-parse raw/
    PYTHONPATH=. python3 tests/sanitizer/gpu_sanitizer.py --case NAME      # one case, no tool

Each kernel is emitted with line info (``.file``/``.loc``) and assembled with
``ptxas -lineinfo``, so the tools name sanitizer_corpus.py's lines, which the CSV also
turns into the corpus's ``# @marker`` names (stable when other kernels move).
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TOOLS = ("racecheck", "initcheck", "synccheck")
DONE = "simt-case-done"
TIMEOUT_S = 90
FIELDS = ("case", "tool", "status", "verdict", "reports", "kinds", "lines", "markers")
CUDA_BIN = ("/usr/local/cuda/bin", "/usr/local/cuda/compute-sanitizer", "/opt/cuda/bin")


def find_tool(name: str) -> str:
    """A CUDA toolkit program on PATH or in the usual install folders."""
    found = shutil.which(name) or shutil.which(name, path=os.pathsep.join(CUDA_BIN))
    if found is None:
        sys.exit(f"{name} was not found on PATH or in {', '.join(CUDA_BIN)}: it comes with the "
                 f"CUDA toolkit")
    return found


# ---- one case, in the process compute-sanitizer watches -------------------------------------

def load_with_lineinfo(kernel, dim, block_dim, arch: str = "sm_90") -> None:
    """Put the kernel, emitted with line info and assembled by ptxas -lineinfo, in the GPU
    runtime's module cache, so the ordinary ``simt.launch`` uses it."""
    from simt.gpu import runtime
    from simt.gpu.ptx import emit
    from simt.launch import launch_geometry, normalise_dim
    sig, _, _ = launch_geometry(normalise_dim(dim), block_dim, kernel.key)
    fn = kernel.compile(sig)
    text, entry, layout = emit(fn, arch, lineinfo=True)
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(text)
        subprocess.run([find_tool("ptxas"), f"-arch={arch}", "-lineinfo", str(src), "-o", str(out)],
                       check=True, capture_output=True)
        cubin = out.read_bytes()
    what = f"kernel '{kernel.key}' with line info"
    module = runtime.load_module(cubin, 0, what, arch)
    runtime._modules.setdefault(fn, {})[(arch, 0)] = runtime.LoadedKernel(
        entry, runtime.get_function(module, entry, what), module, text, layout)


def run_case(name: str) -> None:
    import simt as wp
    from sanitizer_corpus import by_name
    case = by_name(name)
    dim, inputs, block = case.make("cuda")
    load_with_lineinfo(case.kernel, dim, block)
    wp.launch(case.kernel, dim=dim, inputs=inputs, block_dim=block, device="cuda")
    wp.synchronize()
    print(DONE, flush=True)


# ---- every case under every tool ------------------------------------------------------------

def run_with_timeout(cmd: list[str], env: dict) -> tuple[str, str]:
    """(status, output); on timeout the whole process group goes (the tool and its python)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT_S)
        return f"exit {proc.returncode}", out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return f"timeout after {TIMEOUT_S} s", out


def sanitize(sanitizer: str, name: str, tool: str, raw: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE.parent.parent),
                                                                     os.environ.get("PYTHONPATH")])))
    extra = ["--racecheck-report", "all"] if tool == "racecheck" else []
    cmd = [sanitizer, "--tool", tool, *extra, sys.executable, str(Path(__file__).resolve()),
           "--case", name]
    start = time.perf_counter()
    status, text = run_with_timeout(cmd, env)
    if extra and "racecheck-report" in text and DONE not in text:    # an older tool: no such option
        cmd = [c for c in cmd if c not in extra]
        status, text = run_with_timeout(cmd, env)
    raw.write_text(f"# {' '.join(cmd)}\n# {status}, {time.perf_counter() - start:.1f} s\n{text}")


def parse(path: Path, markers: dict[int, list[str]]) -> dict:
    """What one raw output says: did the case run to the end, how many reports, which lines."""
    name, tool = path.name[:-len(".txt")].rsplit(".", 1)
    text = path.read_text(errors="replace")
    header = text.splitlines()[1] if text.count("\n") > 1 else ""
    status = "completed" if DONE in text else ("timeout" if "timeout" in header else "crashed")
    summary = re.search(r"(?:ERROR|RACECHECK) SUMMARY: (\d+)", text)
    pattern = {"racecheck": r"Race reported|Potential \w+ hazard",
               "initcheck": r"Uninitialized",
               "synccheck": r"Barrier error|Invalid arguments|[Dd]ivergent thread"}[tool]
    reports = int(summary.group(1)) if summary else len(re.findall(pattern, text))
    kinds = sorted(set(re.findall(r"Potential (\w+) hazard", text)))
    lines = sorted({int(n) for n in re.findall(r"sanitizer_corpus\.py:(\d+)", text)})
    names = sorted({m for n in lines for m in markers.get(n, [f"L{n}"])})
    verdict = ("reported" if reports else "clean") if status == "completed" or reports else status
    return {"case": name, "tool": tool, "status": status, "verdict": verdict, "reports": reports,
            "kinds": " ".join(kinds), "lines": " ".join(map(str, lines)), "markers": " ".join(names)}


def corpus_markers() -> dict[int, list[str]]:
    from sanitizer_corpus import CASES
    out: dict[int, list[str]] = {}
    for case in CASES:
        for marker, line in case.marker_lines().items():
            out.setdefault(line, []).append(marker)
    return out


def write_csv(outdir: Path) -> Path:
    markers = corpus_markers()
    rows = [parse(p, markers) for p in sorted((outdir / "raw").glob("*.txt"))]
    target = outdir / "compute_sanitizer.csv"
    with open(target, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    return target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", nargs="?", help="where raw/ and compute_sanitizer.csv go")
    ap.add_argument("--case", help="run one corpus case on the GPU (what compute-sanitizer runs)")
    ap.add_argument("--parse", metavar="OUTDIR", help="only re-parse OUTDIR/raw into the CSV")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 4))
    ap.add_argument("--timeout", type=int, default=0, help=f"seconds per run (default {TIMEOUT_S})")
    args = ap.parse_args(argv)
    if args.timeout:
        globals()["TIMEOUT_S"] = args.timeout
    if args.case:
        run_case(args.case)
        return 0
    if args.parse:
        print(f"wrote {write_csv(Path(args.parse))}")
        return 0
    if not args.outdir:
        ap.error("give OUTDIR (or --case NAME, or --parse OUTDIR)")
    from sanitizer_corpus import CASES
    sanitizer = find_tool("compute-sanitizer")
    outdir = Path(args.outdir)
    (outdir / "raw").mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    jobs = [(c.name, tool) for c in CASES for tool in TOOLS]
    with ThreadPoolExecutor(args.jobs) as pool:
        for _ in pool.map(lambda job: sanitize(sanitizer, *job, outdir / "raw" / f"{job[0]}.{job[1]}.txt"),
                          jobs):
            pass
    target = write_csv(outdir)
    print(f"{len(jobs)} runs in {time.perf_counter() - start:.0f} s; wrote {target}")
    with open(target) as f:
        for row in csv.DictReader(f):
            print(f"  {row['case']:32s} {row['tool']:10s} {row['verdict']:9s} {row['markers']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
