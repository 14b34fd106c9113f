"""Warp's own tests as simt's conformance suite: how many of their kernels give Warp's answer.

For every test file of the installed warp-lang (``warp/tests``) outside the skipped
categories (tiles, meshes, BVH, hash grids, volumes, textures, CUDA-only, interop), this

1. runs the file's tests on Warp's CPU device, recording every launch of a kernel defined
   at module level in that file: its shape and a copy of each argument before and of each
   array after the launch (warp_conformance_record.py, one process per file, cached);
2. imports the same file again with ``import warp as wp`` read as ``import simt as wp``, so
   simt compiles the very same kernel source, replays each recorded launch on simt with the
   recorded inputs, and compares every array with Warp's result (integers and bools exactly,
   floats to a relative 1e-5 -- float16 to 1e-3 -- with NaN equal to NaN).

A kernel counts as matching when every recorded launch of it matches. Only kernels whose
launches write at least one array are counted ("kernels that write outputs"); kernels that
only check values with ``wp.expect_*`` are listed apart.

    PYTHONPATH=. python3 benchmarks/warp_conformance.py            # all files
    PYTHONPATH=. python3 benchmarks/warp_conformance.py test_rand test_vec -v

Records are cached in ``--cache`` (default ~/.cache/simt/warp_conformance/<warp version>).
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import pickle
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SKIPPED_DIRS = ("tile", "geometry", "cuda", "interop", "fem", "aot")
SKIPPED_FILES = re.compile(r"test_(texture|marching|mesh|bvh|hash_grid|volume|apic|sparse|jax|torch|"
                           r"paddle|dlpack|fabricarray|indexedarray|tile|examples|graph|"
                           r"linear_solvers|fsai|adam|sgd|coloring|render|runlength|utils|"
                           r"array_reduce|allocat|module|reload|kernel_cache|import|"
                           r"external_build|ctypes|cpu_precompiled|version|logger|launch|large)")
SKIPPED_NAMES = re.compile(r"\b(wp\.)?(tile\w*|mesh_\w+|bvh_\w+|hash_grid_\w+|volume_\w+|texture_\w+|"
                           r"Mesh|Bvh|HashGrid|Volume|Texture\w*|MarchingCubes|indexedarray\w*|"
                           r"fabricarray\w*|launch_tiled)\b")
SIMT_DEVICE_SMALL = "cpu:precise"      # the reference engine, for launches up to this size
SMALL_LAUNCH = 4096
SIMT_DEVICE_LARGE = "cpu"


# ---- which files --------------------------------------------------------------------------

def test_files(warp_tests: Path, only: list[str]) -> list[tuple[str, Path]]:
    out = []
    for path in sorted(warp_tests.rglob("test_*.py")):
        rel = path.relative_to(warp_tests)
        if rel.parts[0] in SKIPPED_DIRS or SKIPPED_FILES.match(path.stem):
            continue
        module = "warp.tests." + ".".join(rel.with_suffix("").parts)
        if only and not any(o == path.stem or o == module for o in only):
            continue
        out.append((module, path))
    return out


def record(module: str, cache: Path, timeout: int, refresh: bool) -> dict | None:
    out = cache / f"{module}.pkl"
    if refresh or not out.exists():
        cmd = [sys.executable, str(HERE / "warp_conformance_record.py"), module, str(out)]
        try:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return None
    if not out.exists():
        return None
    with open(out, "rb") as f:
        return pickle.load(f)


# ---- the simt side --------------------------------------------------------------------------

AUX_IMPORT = re.compile(r"^import (warp\.tests\.(aux_\w+)) as (\w+)$")
AUX_FROM = re.compile(r"^from (warp\.tests\.(aux_\w+)) import ([\w, ]+)$")


def load_under_simt(path: Path, module: str, tmp: Path):
    """The test file as a module whose ``wp`` is simt (same line numbers as the original).
    The helper modules a test imports from ``warp.tests`` (``aux_*.py``) are Warp's test code
    too: they are loaded the same way, so their kernels and functions are simt's."""
    name = "simt_conformance_" + module.replace(".", "_")
    if name in sys.modules:             # a helper module two test files import
        return sys.modules[name]
    tests_dir = path.parents[len(module.split(".")) - 3]          # warp/tests

    def helper(match) -> str | None:
        """The simt module name of the aux file an import line names, loaded if it exists."""
        if match is None or not (tests_dir / f"{match.group(2)}.py").exists():
            return None
        return load_under_simt(tests_dir / f"{match.group(2)}.py", match.group(1), tmp).__name__

    lines = []
    for line in path.read_text().splitlines():
        aux, names = AUX_IMPORT.match(line.strip()), AUX_FROM.match(line.strip())
        if line.strip() == "import warp as wp":
            line = line.replace("import warp as wp", "import simt as wp")
        elif line.startswith("from warp.tests.unittest_utils import *"):
            line += "; import simt as wp"
        elif helper(aux):
            line = f"import sys as _simt_sys; {aux.group(3)} = _simt_sys.modules[{helper(aux)!r}]"
        elif helper(names):
            wanted = [n.strip() for n in names.group(3).split(",") if n.strip()]
            line = (f"import sys as _simt_sys; {', '.join(wanted)} = "
                    + ", ".join(f"_simt_sys.modules[{helper(names)!r}].{n}" for n in wanted))
        lines.append(line)
    file = tmp / f"{name}.py"
    file.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(name, file)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def simt_dtype(wp, desc, mod):
    kind = desc[0]
    desc = tuple(d.rsplit(".", 1)[-1] if isinstance(d, str) and i else d for i, d in enumerate(desc))
    if kind == "scalar":
        name = desc[1].rsplit(".", 1)[-1]
        return {"bool": wp.bool, "int": wp.int32, "float": wp.float32}.get(name) or getattr(wp, name)
    if kind == "vec":
        return wp.types.vector(desc[1], getattr(wp, desc[2]))
    if kind == "mat":
        return wp.types.matrix((desc[1], desc[2]), getattr(wp, desc[3]))
    if kind == "quat":
        return wp.types.quaternion(getattr(wp, desc[1]))
    if kind == "transform":
        return wp.types.transformation(getattr(wp, desc[1]))
    if kind == "struct":
        return find_struct(mod, desc[1])
    raise ValueError(f"no simt type for {desc}")


def find_struct(mod, key: str):
    name = key.split(".")[-1]
    obj = getattr(mod, name, None)
    if obj is None:
        raise LookupError(f"struct {key} is not a module-level name")
    return obj


def simt_value(wp, snap, mod, ptype=None):
    """The simt value of a recorded argument; ``ptype``, the kernel parameter's type, names
    the struct class where the struct is not a module-level name."""
    kind = snap[0]
    if ptype is not None and kind in ("array", "struct") and snap[1][0] == "struct":
        from simt.ir import types as ir
        from simt.types import public_type
        st = ptype.dtype if isinstance(ptype, ir.ArrayType) else ptype
        if isinstance(st, ir.StructType) and st.name == re.split(r"[.]|__locals__", snap[1][1])[-1]:
            cls = public_type(st)
            if kind == "array":
                return struct_array(wp, cls, snap[2])
            inst = cls()
            for (name, ftype), value in zip(st.fields, snap[2].values()):
                if value[0] != "none":
                    setattr(inst, name, simt_value(wp, value, mod, ftype))
            return inst
    if kind == "array":
        _, desc, data, ndim = snap
        dtype = simt_dtype(wp, desc, mod)
        if desc[0] == "struct":
            return struct_array(wp, dtype, data)
        shape = data.shape[:ndim]
        return wp.array(data, dtype=dtype, shape=shape, device=DEVICE[0])
    if kind == "struct":
        _, desc, fields = snap
        cls = simt_dtype(wp, desc, mod)
        inst = cls()
        for name, value in fields.items():
            if value[0] != "none":
                setattr(inst, name, simt_value(wp, value, mod))
        return inst
    if kind in ("py", "np"):
        return snap[1]
    if kind == "value":
        _, desc, data = snap
        if desc[0] == "scalar":
            return data[()]
        return simt_dtype(wp, desc, mod)(data.reshape(-1))
    if kind == "none":
        return None
    raise ValueError(f"cannot replay an argument of kind {kind}")


def struct_array(wp, cls, data):
    return wp.array(data, dtype=cls, device=DEVICE[0])


DEVICE = [SIMT_DEVICE_SMALL]


def replay(wp, kernel, rec, mod) -> str | None:
    """None when simt's arrays equal Warp's after the launch, else why not."""
    dim = rec["dim"]
    size = int(np.prod(dim)) if not isinstance(dim, int) else dim
    DEVICE[0] = SIMT_DEVICE_SMALL if size <= SMALL_LAUNCH else SIMT_DEVICE_LARGE
    params = [t for _, t in kernel.params] if len(kernel.params) == len(rec["before"]) else \
        [None] * len(rec["before"])
    args = [simt_value(wp, s, mod, t) for s, t in zip(rec["before"], params)]
    kwargs = {}
    if rec.get("block_dim"):
        kwargs["block_dim"] = rec["block_dim"]
    wp.launch(kernel, dim=tuple(dim) if isinstance(dim, (list, tuple)) else dim, inputs=args,
              device=DEVICE[0], **kwargs)
    for k, (arg, want) in enumerate(zip(args, rec["after"])):
        if want is None:
            continue
        if isinstance(want, dict):
            for name, w in want.items():
                why = compare(np.asarray(getattr(arg, name).numpy()), w, f"argument {k}.{name}")
                if why:
                    return why
            continue
        why = compare(np.asarray(arg.numpy()), want, f"argument {k}")
        if why:
            return why
    return None


def compare(got: np.ndarray, want: np.ndarray, what: str) -> str | None:
    if want.dtype.names:
        for name in want.dtype.names:
            why = compare(np.asarray(got[name]), want[name], f"{what}.{name}")
            if why:
                return why
        return None
    got = got.reshape(want.shape) if got.size == want.size else got
    if got.shape != want.shape:
        return f"{what}: shape {got.shape} != {want.shape}"
    if np.issubdtype(want.dtype, np.floating):
        rtol = 1e-3 if want.dtype == np.float16 else 1e-5
        w, g = want.astype(np.float64), got.astype(np.float64)
        ok = np.isclose(g, w, rtol=rtol, atol=rtol * 1e-1, equal_nan=True)
        if not ok.all():
            i = np.flatnonzero(~ok.reshape(-1))[0]
            return (f"{what}: {int((~ok).sum())} of {ok.size} values differ "
                    f"(first at flat index {i}: simt {g.reshape(-1)[i]!r}, warp {w.reshape(-1)[i]!r})")
        return None
    if not np.array_equal(got.astype(want.dtype), want):
        diff = np.flatnonzero(got.astype(want.dtype).reshape(-1) != want.reshape(-1))
        i = diff[0]
        return (f"{what}: {diff.size} of {want.size} values differ (first at flat index {i}: "
                f"simt {got.reshape(-1)[i]!r}, warp {want.reshape(-1)[i]!r})")
    return None


def writes_outputs(recs: list[dict]) -> bool:
    for rec in recs:
        for before, after in zip(rec["before"], rec["after"]):
            if after is None:
                continue
            if isinstance(after, dict):
                fields = before[2]
                if any(not same_bytes(fields[n][2], a) for n, a in after.items()
                       if fields[n][0] == "array"):
                    return True
                continue
            b = before[2]
            if not same_bytes(b, after):
                return True
    return False


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    head = text[0] if text else ""
    if type(e).__name__ == "CompileError":
        # the message proper follows the location line
        body = [t for t in text[1:] if t.strip() and not t.startswith(" ")]
        head = body[-1] if body else head
    return f"{type(e).__name__}: {head}"[:200]


# ---- the report -----------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="test file stems (test_rand) or module names")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--refresh", action="store_true", help="record again under Warp")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per test file under Warp")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per kernel")
    args = parser.parse_args()

    import warp
    warp_tests = Path(warp.__file__).parent / "tests"
    cache = args.cache or Path.home() / ".cache" / "simt" / "warp_conformance" / warp.__version__
    cache.mkdir(parents=True, exist_ok=True)
    import simt as wp
    wp.config.quiet = True

    counts = collections.Counter()
    reasons = collections.Counter()
    per_file = []
    tmp = Path(tempfile.mkdtemp(prefix="simt_conformance_"))
    start = time.time()
    for module, path in test_files(warp_tests, args.files):
        rec = record(module, cache, args.timeout, args.refresh)
        if rec is None:
            print(f"{module}: no record (Warp run failed or timed out)")
            continue
        source = path.read_text()
        try:
            mod = load_under_simt(path, module, tmp)
            import_error = None
        except Exception as e:  # noqa: BLE001 - any failure is reported, never fatal
            mod, import_error = None, first_line(e)
        matched = compared = 0
        for name in rec["kernels"]:
            counts["kernels"] += 1
            fn_source = kernel_source(source, name)
            if SKIPPED_NAMES.search(fn_source):
                counts["skipped category"] += 1
                continue
            recs = rec["records"].get(name)
            if not recs:
                key = "not launched on the CPU by its tests" if name not in rec["unsupported"] \
                    else "launch not recordable"
                counts[key] += 1
                continue
            if not writes_outputs(recs):
                counts["writes no output (expect_* checks only)"] += 1
                continue
            compared += 1
            counts["compared"] += 1
            why = import_error and f"import under simt failed: {import_error}"
            if why is None:
                kernel = getattr(mod, name, None)
                for r in recs:
                    try:
                        why = replay(wp, kernel, r, mod)
                    except Exception as e:  # noqa: BLE001
                        why = first_line(e)
                        if not isinstance(e, wp.SimtError):
                            why = "internal: " + why + " @ " + traceback.format_exc().splitlines()[-3].strip()
                    if why:
                        break
            if why is None:
                matched += 1
                counts["matched"] += 1
            else:
                reasons[re.sub(r"\d+", "N", why)[:120]] += 1
            if args.verbose:
                print(f"  {'ok  ' if why is None else 'FAIL'} {module}.{name}" + (f": {why}" if why else ""))
        per_file.append((module, matched, compared))
    print()
    print(f"{'test file':52} matched / compared")
    for module, m, c in per_file:
        if c:
            print(f"{module:52} {m:4d} / {c}")
    print()
    for key in ("kernels", "skipped category", "not launched on the CPU by its tests",
                "launch not recordable", "writes no output (expect_* checks only)", "compared"):
        print(f"{key:45} {counts[key]}")
    print(f"\nwarp-lang {warp.__version__} conformance: {counts['matched']} of {counts['compared']} "
          f"kernels that write outputs match ({time.time() - start:.0f} s)")
    if reasons:
        print("\nmost common reasons for a mismatch:")
        for why, n in reasons.most_common(40):
            print(f"{n:5d}  {why}")


def kernel_source(source: str, name: str) -> str:
    m = re.search(rf"^def {re.escape(name)}\(.*?(?=^\S)", source + "\nEND", re.S | re.M)
    return m.group(0) if m else ""


if __name__ == "__main__":
    main()
