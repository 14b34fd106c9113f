"""Golden comparisons: run one kernel on several engines and diff every array it can write.

    report = simt.testing.compare(saxpy, dim=n, inputs=[a, x, y],
                                  engines=["cpu:precise", "cuda"])

The first available engine is the reference; every other one is compared with it, array by
array (every array argument, inputs included, since a kernel may write any of them).
Integers and bools must match bit for bit. Floats match when
``|got - ref| <= atol + rtol * |ref|`` (defaults ``DEFAULT_RTOL = 1e-5``,
``DEFAULT_ATOL = 1e-6``), NaN matches NaN and infinities match themselves; the report also
gives the largest difference in ulps. Engines that cannot run here (no GPU) are skipped with
a note, but a comparison never passes empty: when fewer than two engines ran,
``compare`` raises NothingComparedError (the pytest fixture skips the test instead, at the
test's own location).

With ``golden="file.npz"`` the reference is a stored golden (simt/golden.py: one engine's
outputs, recorded once, e.g. on a machine with a GPU) and every engine that runs is
compared with it; ``record=True`` (re)writes that file from the first engine's outputs.

Engines default to ``$SIMT_ENGINES`` (comma-separated) or, under pytest,
``--simt-engines``, else DEFAULT_ENGINES.

This module is also a pytest plugin (entry point ``pytest11``, or ``pytest_plugins =
["simt.testing"]`` in a conftest): it registers the ``simt_gpu`` marker, which skips a test
when no usable GPU is present, the ``simt_compare`` fixture and the ``--simt-engines`` and
``--simt-record`` options.
"""
from __future__ import annotations

import inspect
import os
import runpy
import sys
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import golden as goldens
from .arrays import array
from .devices import engine_for, parse_device
from .errors import DeviceError, SimtError
from .ir.types import ArrayType
from .kernel import Kernel
from .launch import launch

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6
DEFAULT_ENGINES = ("cpu:precise", "cuda")
SHOWN_MISMATCHES = 5
ENGINES_VARIABLE = "SIMT_ENGINES"
_option_engines: tuple[str, ...] | None = None      # pytest --simt-engines


class NothingComparedError(SimtError, AssertionError):
    """Fewer than two engines (a stored golden counts as one) could run: nothing was compared."""


def parse_engines(text: str) -> tuple[str, ...]:
    engines = tuple(e.strip() for e in text.split(",") if e.strip())
    if not engines:
        raise ValueError(f"no engines named in {text!r}; give e.g. 'cpu:precise,cuda'")
    for e in engines:
        parse_device(e)
    return engines


def default_engines() -> tuple[str, ...]:
    """pytest's ``--simt-engines``, else ``$SIMT_ENGINES``, else DEFAULT_ENGINES."""
    if _option_engines:
        return _option_engines
    text = os.environ.get(ENGINES_VARIABLE, "")
    return parse_engines(text) if text.strip() else DEFAULT_ENGINES


# ---- engines ------------------------------------------------------------------------------

def engine_unavailable(engine: str) -> str | None:
    """Why ``engine`` cannot run kernels here, or None when it can."""
    try:
        engine_for(parse_device(engine))
    except DeviceError as e:
        return str(e)
    return None


def gpu_unavailable() -> str | None:
    """Why no GPU can be used here (for skips), or None."""
    return engine_unavailable("cuda")


# ---- the report ---------------------------------------------------------------------------

@dataclass
class ArrayDiff:
    """One array of one engine against the reference engine's."""
    name: str
    engine: str
    reference: str
    dtype: str
    shape: tuple[int, ...]            # numpy shape (composite components as trailing axes)
    total: int
    mismatches: int
    max_abs: float = 0.0
    max_ulp: float | None = None      # floats only
    first_index: tuple[int, ...] | None = None
    shown: list[tuple[tuple[int, ...], object, object]] = field(default_factory=list)
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.mismatches == 0 and not self.note

    def describe(self) -> str:
        head = f"  {self.name}: {self.dtype} {self.shape}"
        if self.note:
            return f"{head}: {self.note}"
        if self.ok:
            extra = f", max abs diff {self.max_abs:.3g}, max {self.max_ulp:.0f} ulp" \
                if self.max_ulp else ""
            return f"{head}: all {self.total} values match{extra}"
        lines = [f"{head}: {self.mismatches} of {self.total} values differ; max abs diff "
                 f"{self.max_abs:.6g}" + (f", max {self.max_ulp:.0f} ulp" if self.max_ulp is not None else "")]
        for index, want, got in self.shown:
            lines.append(f"      at {index}: {self.reference} {want!r} vs {self.engine} {got!r}")
        if self.mismatches > len(self.shown):
            lines.append(f"      ... and {self.mismatches - len(self.shown)} more")
        return "\n".join(lines)


@dataclass
class CompareReport:
    """What ``compare`` found: per engine, per array, how far it is from the reference."""
    kernel: str
    reference: str | None
    engines: list[str]                          # engines that ran, reference first (an engine
                                                # named twice is labelled "name#position")
    skipped: dict[str, str]                     # engine -> why it did not run
    diffs: list[ArrayDiff]
    outputs: dict[str, dict[str, np.ndarray]]   # engine -> array name -> contents after the launch
    results: dict[str, object]                  # engine -> LaunchResult
    rtol: float
    atol: float
    hazards: dict[str, list] = field(default_factory=dict)   # engine -> hazard reports (check=...)
    golden: dict | None = None                  # the stored golden's metadata, if one was used

    @property
    def ok(self) -> bool:
        return all(d.ok for d in self.diffs) and not any(self.hazards.values())

    @property
    def compared(self) -> bool:
        """False when fewer than two engines could run, so nothing was compared."""
        return len(self.engines) >= 2

    def for_engine(self, engine: str) -> list[ArrayDiff]:
        return [d for d in self.diffs if d.engine == engine]

    def summary(self) -> str:
        lines = [f"kernel '{self.kernel}': reference {self.reference!r}, rtol={self.rtol:g}, "
                 f"atol={self.atol:g}"]
        for engine in self.engines[1:]:
            diffs = self.for_engine(engine)
            verdict = "matches" if all(d.ok for d in diffs) else "DIFFERS"
            lines.append(f" {engine} {verdict}:")
            lines.extend(d.describe() for d in diffs)
        for engine, found in self.hazards.items():
            if found:
                from .sim.check.report import summary
                lines.append(f" {engine} found hazards:")
                lines.extend("   " + line for line in summary(found).splitlines())
        for engine, why in self.skipped.items():
            lines.append(f" {engine} skipped: {why}")
        if not self.compared:
            lines.append(" nothing compared: fewer than two engines could run")
        return "\n".join(lines)

    __str__ = summary


# ---- diffing ------------------------------------------------------------------------------

def _ordered(values: np.ndarray) -> np.ndarray:
    """Float bits as integers that order like the floats, so their difference counts ulps."""
    ints = values.view(np.int32 if values.dtype.itemsize == 4 else np.int64).astype(np.int64)
    lowest = np.int64(-2**31 if values.dtype.itemsize == 4 else np.iinfo(np.int64).min)
    return np.where(ints < 0, lowest - ints, ints)


def diff_arrays(name: str, ref: np.ndarray, got: np.ndarray, engine: str, reference: str,
                rtol: float, atol: float) -> ArrayDiff:
    diff = ArrayDiff(name, engine, reference, str(ref.dtype), tuple(ref.shape), int(ref.size), 0)
    if ref.shape != got.shape or ref.dtype != got.dtype:
        diff.note = f"{engine} gave {got.dtype} {got.shape}, the reference {ref.dtype} {ref.shape}"
        return diff
    if ref.size == 0:
        return diff
    if np.issubdtype(ref.dtype, np.floating):
        with np.errstate(invalid="ignore", over="ignore"):
            both_nan = np.isnan(ref) & np.isnan(got)
            same = (ref == got) | both_nan
            abs_diff = np.where(same, 0.0, np.abs(got.astype(np.float64) - ref.astype(np.float64)))
            close = same | (abs_diff <= atol + rtol * np.abs(ref.astype(np.float64)))
            ulps = np.where(same | np.isnan(ref) | np.isnan(got), 0.0,
                            np.abs(_ordered(got).astype(np.float64) - _ordered(ref).astype(np.float64)))
        finite = abs_diff[np.isfinite(abs_diff)]
        diff.max_abs = float(finite.max()) if finite.size else float("inf")
        diff.max_ulp = float(ulps.max())
        bad = ~close
    else:
        bad = ref != got
        if np.issubdtype(ref.dtype, np.integer):
            diff.max_abs = float(np.abs(got.astype(np.float64) - ref.astype(np.float64)).max())
    diff.mismatches = int(bad.sum())
    if diff.mismatches:
        where = np.argwhere(bad)
        diff.first_index = tuple(int(i) for i in where[0])
        for index in where[:SHOWN_MISMATCHES]:
            key = tuple(int(i) for i in index)
            diff.shown.append((key, ref[key].item(), got[key].item()))
    return diff


# ---- running ------------------------------------------------------------------------------

def _host_copy(value) -> object:
    """Array arguments as numpy snapshots (each engine gets its own copy); scalars as given."""
    if isinstance(value, array) and not value.is_annotation:
        return value.numpy().copy()
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return value.copy()
    return value


def _fresh_args(kernel: Kernel, snapshots: list, engine: str) -> list:
    args = []
    for (name, ptype), value in zip(kernel.params, snapshots):
        if isinstance(ptype, ArrayType) and isinstance(value, np.ndarray):
            args.append(array(value, dtype=ptype.dtype, device=engine))
        else:
            args.append(value)
    return args


def compare(kernel: Kernel, dim, inputs: Sequence = (), engines: Sequence[str] | None = None,
            block_dim=256, outputs: Sequence = (), rtol: float | None = None,
            atol: float | None = None, raise_on_mismatch: bool = True, check=None,
            golden: str | os.PathLike | None = None, record: bool = False) -> CompareReport:
    """Launch ``kernel`` on each engine with fresh copies of the arguments and diff the arrays.

    ``inputs`` and ``outputs`` are joined as in ``simt.launch``; array arguments may be
    ``simt.array`` objects on any device or numpy arrays (converted to the parameter's
    element type). ``engines`` defaults to ``default_engines()``. Raises AssertionError with
    the report's summary when an engine differs from the reference or the sanitizers found
    hazards (unless ``raise_on_mismatch=False``), and NothingComparedError when fewer than two
    engines could run and nothing failed; returns the report. ``check`` ("race", "init", "sync", "all", a list)
    runs the sanitizers on the CPU engines; their hazards are in ``report.hazards``, printed
    in the summary, and fail the comparison. ``golden``/``record``: see the module docstring.
    """
    if not isinstance(kernel, Kernel):
        raise TypeError(f"simt.testing.compare expects a @simt.kernel, got {kernel!r}")
    engines = list(default_engines() if engines is None else engines)
    rtol = DEFAULT_RTOL if rtol is None else float(rtol)
    atol = DEFAULT_ATOL if atol is None else float(atol)
    snapshots = [_host_copy(v) for v in [*(inputs or ()), *(outputs or ())]]
    array_names = [name for (name, ptype), v in zip(kernel.params, snapshots)
                   if isinstance(ptype, ArrayType) and isinstance(v, np.ndarray)]
    digest = goldens.inputs_digest([n for n, _ in kernel.params], snapshots)
    stored = None
    if golden is not None and not record:
        stored = goldens.load(golden)
        goldens.check_matches(stored, kernel.key, dim, block_dim, digest)
    if record and engines and engine_unavailable(engines[0]):
        raise NothingComparedError(f"cannot record {golden or 'a golden'}: the recording engine "
                                   f"{engines[0]!r} is unavailable: {engine_unavailable(engines[0])}")
    skipped, ran, results, produced, hazards = {}, [], {}, {}, {}
    if stored is not None:
        ran.append(stored.label)
        produced[stored.label] = {n: stored.outputs.get(n) for n in array_names}
    for k, engine in enumerate(engines):
        label = engine if engines.count(engine) == 1 else f"{engine}#{k + 1}"
        why = engine_unavailable(engine)
        if why:
            skipped[label] = why
            continue
        args = _fresh_args(kernel, snapshots, engine)
        on_cpu = parse_device(engine).is_cpu
        results[label] = launch(kernel, dim=dim, inputs=args, device=engine, block_dim=block_dim,
                                check=check if on_cpu else None)
        if check and on_cpu:
            hazards[label] = results[label].details.get("hazards", [])
        by_name = dict(zip((n for n, _ in kernel.params), args))
        produced[label] = {name: by_name[name].numpy().copy() for name in array_names}
        ran.append(label)
    reference = ran[0] if ran else None
    diffs = [_diff_or_missing(name, produced[reference][name], produced[engine][name], engine,
                              reference, rtol, atol)
             for engine in ran[1:] for name in array_names]
    report = CompareReport(kernel.key, reference, ran, skipped, diffs, produced, results, rtol, atol,
                           hazards, stored.meta if stored else None)
    if record and golden is not None and ran:
        report.golden = goldens.save(golden, kernel.key, dim, block_dim, engines[0], digest,
                                     produced[ran[0]])
    if raise_on_mismatch and not report.ok:
        what = "engines disagree" if not all(d.ok for d in diffs) else "the sanitizers found hazards"
        raise AssertionError(f"simt.testing.compare: {what}\n{report.summary()}")
    # a report that already fails (hazards found, raise_on_mismatch=False) is returned as is:
    # it cannot pass, empty or not
    if not report.compared and report.ok and not (record and golden is not None):
        raise NothingComparedError(f"simt.testing.compare: nothing compared\n{report.summary()}")
    return report


def _diff_or_missing(name, ref, got, engine, reference, rtol, atol) -> ArrayDiff:
    if ref is None:        # a stored golden without this array
        got = np.asarray(got)
        return ArrayDiff(name, engine, reference, str(got.dtype), tuple(got.shape), int(got.size),
                         0, note=f"{reference} has no array '{name}'")
    return diff_arrays(name, ref, got, engine, reference, rtol, atol)


# ---- the command line: simt diff FILE.py::kernel ------------------------------------------

def _parse_dim(text: str | None):
    if text is None:
        return None
    parts = [int(p) for p in text.replace("x", ",").split(",") if p.strip()]
    return parts[0] if len(parts) == 1 else tuple(parts)


def load_target(target: str):
    """``FILE.py::kernel`` -> (kernel, the file's globals)."""
    path, sep, name = target.partition("::")
    if not sep or not name:
        raise ValueError(f"expected FILE.py::kernel_name, got {target!r}")
    namespace = runpy.run_path(path, run_name="__simt_diff__")
    kernel = namespace.get(name)
    if not isinstance(kernel, Kernel):
        kernels = ", ".join(k for k, v in namespace.items() if isinstance(v, Kernel)) or "none"
        raise ValueError(f"{path} has no @simt.kernel named {name!r} (kernels: {kernels})")
    return kernel, namespace


def target_inputs(kernel: Kernel, namespace: dict, dim_override):
    """(dim, inputs, block_dim) from the file's ``simt_inputs_<kernel>`` or ``simt_inputs``."""
    make = namespace.get(f"simt_inputs_{kernel.key}") or namespace.get("simt_inputs")
    if make is None:
        raise ValueError(f"define simt_inputs() (or simt_inputs_{kernel.key}()) returning "
                         f"(dim, inputs) or (dim, inputs, block_dim)")
    takes_dim = len(inspect.signature(make).parameters) > 0
    made = make(dim_override) if takes_dim else make()
    if isinstance(made, dict):
        dim, inputs, block = made.get("dim"), made["inputs"], made.get("block_dim", 256)
    elif len(made) == 3:
        dim, inputs, block = made
    else:
        (dim, inputs), block = made, 256
    return (dim if dim_override is None else dim_override), list(inputs), block


EXIT_AGREE, EXIT_DIFFER, EXIT_USAGE, EXIT_NOTHING_COMPARED = 0, 1, 2, 3


def diff_command(target: str, dim: str | None, engines: str | None, block_dim: str | None,
                 rtol: float | None, atol: float | None, check: str | None = None,
                 golden: str | None = None, record: str | None = None) -> int:
    """``simt diff``: print the report; 0 when the engines agree, 1 when they differ or the
    sanitizers (``check``) found hazards, 3 when nothing else went wrong but nothing was
    compared (fewer than two engines, a golden counting as one, could run)."""
    kernel, namespace = load_target(target)
    dim_value, inputs, block = target_inputs(kernel, namespace, _parse_dim(dim))
    if block_dim is not None:
        block = _parse_dim(block_dim)
    if golden and record:
        raise ValueError("give --golden FILE (compare with it) or --record FILE (write it), not both")
    chosen = parse_engines(engines) if engines else default_engines()
    try:
        report = compare(kernel, dim_value, inputs, engines=chosen, block_dim=block, rtol=rtol,
                         atol=atol, raise_on_mismatch=False, check=check, golden=record or golden,
                         record=bool(record))
    except NothingComparedError as e:
        print(str(e).split("\n", 1)[-1])
        print(f"simt diff: nothing compared (exit status {EXIT_NOTHING_COMPARED})", file=sys.stderr)
        return EXIT_NOTHING_COMPARED
    print(report.summary())
    if record:
        print(f" recorded {record} from {chosen[0]} ({report.golden['device']['name']})")
    return EXIT_AGREE if report.ok else EXIT_DIFFER


# ---- pytest plugin ------------------------------------------------------------------------

try:
    import pytest as _pytest
except ImportError:  # pragma: no cover - the plugin only matters under pytest
    _pytest = None

if _pytest is not None:
    def pytest_addoption(parser) -> None:
        group = parser.getgroup("simt")
        group.addoption("--simt-engines", default=None, metavar="E1,E2,...",
                        help=f"engines the simt_compare fixture runs when a test names none "
                             f"(default: ${ENGINES_VARIABLE}, else {','.join(DEFAULT_ENGINES)})")
        group.addoption("--simt-record", action="store_true", default=False,
                        help="simt_compare(..., golden=FILE) writes FILE from its first engine "
                             "(run on a machine with that engine, e.g. a GPU) instead of reading it")

    def pytest_configure(config) -> None:
        global _option_engines
        config.addinivalue_line("markers", "simt_gpu: needs a usable CUDA GPU; skipped without one")
        text = config.getoption("--simt-engines", default=None)
        _option_engines = parse_engines(text) if text else None

    def pytest_runtest_setup(item) -> None:
        if item.get_closest_marker("simt_gpu") is not None:
            why = gpu_unavailable()
            if why:
                _pytest.skip(f"no GPU: {why}")

    def _skip_here(reason: str) -> None:
        """Skip the running test, reported at the test's own location, not this file's."""
        caller = sys._getframe(2)      # the test that called simt_compare(...)
        reason = f"{reason} [{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}]"
        try:
            raise _pytest.skip.Exception(reason, _use_item_location=True)
        except TypeError:     # a pytest without the keyword
            _pytest.skip(reason)

    @_pytest.fixture
    def simt_compare(request):
        """``simt_compare(kernel, dim, inputs, engines=None, golden=None, ...)``: ``compare``
        that skips the test (at the test's location) when an engine it needs cannot run here.
        Without ``golden`` every engine must be available; with one, any engine that runs is
        compared with the stored file (a path relative to the test's folder), and
        ``pytest --simt-record`` writes the file instead."""
        record = bool(request.config.getoption("--simt-record", default=False))
        folder = os.path.dirname(str(request.node.fspath))

        def run(kernel, dim, inputs=(), engines=None, golden=None, **kwargs) -> CompareReport:
            engines = list(default_engines() if engines is None else engines)
            missing = {e: engine_unavailable(e) for e in engines}
            missing = {e: why for e, why in missing.items() if why}
            path = None if golden is None else os.path.join(folder, os.fspath(golden))
            if path is None or record:
                needed = engines if path is None else engines[:1]
                for engine in needed:
                    if engine in missing:
                        _skip_here(f"engine {engine!r} unavailable: {missing[engine]}")
            elif len(missing) == len(engines):
                _skip_here(f"none of the engines {engines} can run here: "
                           + "; ".join(f"{e}: {w}" for e, w in missing.items()))
            return compare(kernel, dim, inputs, engines=engines, golden=path,
                           record=record and path is not None, **kwargs)
        return run
