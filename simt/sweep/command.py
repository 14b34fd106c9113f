"""``simt sweep FILE.py::setup --param name=v1,v2 ...``: the command line of simt.sweep,
with the table written as CSV or Parquet and the predicted times plotted."""
from __future__ import annotations

import hashlib
import inspect
import os
import runpy
import sys

from .space import SweepError, parse_param


class FileSetup:
    """``setup`` of a file, loaded by path in whichever process calls it (a worker loads the
    file itself, so nothing of it needs pickling)."""

    def __init__(self, path: str, name: str):
        self.path = os.path.abspath(path)
        self.name = name

    def load(self):
        namespace = _namespaces.get(self.path)
        if namespace is None:
            namespace = _namespaces[self.path] = runpy.run_path(self.path, run_name="__simt_sweep__")
        setup = namespace.get(self.name)
        if not callable(setup):
            found = ", ".join(k for k, v in namespace.items() if inspect.isfunction(v) and
                              not k.startswith("_") and v.__module__ == "__simt_sweep__") or "none"
            raise SweepError(f"{self.path} has no function {self.name!r} (functions: {found})")
        return setup

    def __call__(self, **point):
        return self.load()(**point)

    def identity(self) -> str:
        with open(self.path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        return f"{self.path}::{self.name}#{digest}"

    def __repr__(self) -> str:
        return f"{self.path}::{self.name}"


_namespaces: dict[str, dict] = {}


def command(target: str, params: list[str], arch: str, out: str | None, plot: str | None,
            metrics: str | None, cache: str | None, workers: int | None, scheduler: str | None,
            progress: bool) -> int:
    """Run the sweep, print the points fastest first, write --out and --plot. Exit status 0,
    1 when no point could launch, 2 for a usage error."""
    from . import sweep
    try:
        path, sep, name = target.partition("::")
        if not sep or not name or not path:
            raise SweepError(f"expected FILE.py::setup, got {target!r}")
        if not os.path.isfile(path):
            raise SweepError(f"no such file: {path}")
        if not params:
            raise SweepError("give the space with --param name=v1,v2,... (once per parameter)")
        space = dict(parse_param(p) for p in params)
        setup = FileSetup(path, name)
        setup.load()                       # a missing function is a usage error, before any work
        _check_out(out)
        client = _client(scheduler)
        frame = sweep(setup, space, arch=arch.split(","), metrics=metrics.split(",") if metrics else None,
                      client=client, cache=cache, progress=progress, workers=workers)
    except SweepError as e:
        print(f"simt sweep: {e}", file=sys.stderr)
        return 2
    shown = frame.assign(_failed=frame["error"] != "").sort_values(["_failed", "time_us"], kind="stable")
    columns = [*space, "arch", "time_us", "cycles", "limiter", "error"]
    print(shown[columns].to_string(index=False, formatters={"error": lambda e: e.split("\n")[0][:100]}))
    try:
        if out:
            write_table(frame, out)
            print(f"wrote {out}")
        if plot:
            plot_times(frame, list(space), plot)
            print(f"wrote {plot}")
    except SweepError as e:
        print(f"simt sweep: {e}", file=sys.stderr)
        return 2
    return 1 if (frame["error"] != "").all() else 0


def _check_out(out: str | None) -> None:
    if out and not out.endswith((".csv", ".parquet")):
        raise SweepError(f"--out takes a .csv or .parquet file, got {out!r}")


def _client(scheduler: str | None):
    if not scheduler:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise SweepError("--scheduler needs Dask's distributed scheduler: pip install 'simt[sweep]'") from None
    try:
        return Client(scheduler)
    except OSError as e:
        raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None


def write_table(frame, out: str) -> None:
    if out.endswith(".parquet"):
        try:
            frame.astype({c: str for c in frame.columns if frame[c].dtype == object}).to_parquet(out, index=False)
        except ImportError:
            raise SweepError("writing Parquet needs pyarrow (pip install pyarrow), or use --out FILE.csv") from None
    else:
        frame.to_csv(out, index=False)


def plot_times(frame, names: list[str], path: str) -> None:
    """Predicted time over the space: against the parameter with the most values, one line per
    combination of the others and per architecture (a point per configuration when there are too many)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SweepError("--plot needs matplotlib: pip install 'simt[plot]'") from None
    ok = frame[frame["error"] == ""]
    x_name = max(names, key=lambda n: frame[n].map(repr).nunique())     # the first of equals
    rest = [*(n for n in names if n != x_name), "arch"]
    x_values = list(dict.fromkeys(frame[x_name].map(repr)))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    groups = list(ok.groupby([ok[c].map(repr) for c in rest], sort=False)) if len(ok) else []
    if len(groups) <= 12:
        for key, group in groups:
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{n}={v.strip(chr(39))}" for n, v in zip(rest, key))
            ax.plot([x_values.index(v) for v in group[x_name].map(repr)], group["time_us"], "o-", label=label)
        ax.set_xticks(range(len(x_values)), x_values)
        ax.set_xlabel(x_name)
        if groups:
            ax.legend(fontsize="small")
    else:
        ranked = ok.sort_values("time_us")
        ax.plot(range(len(ranked)), ranked["time_us"], "o", markersize=3)
        ax.set_xlabel(f"configuration, fastest first (of {len(ranked)})")
    ax.set_ylabel("predicted time (us)")
    failed = len(frame) - len(ok)
    ax.set_title("simt sweep: predicted time" + (f" ({failed} points failed)" if failed else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
