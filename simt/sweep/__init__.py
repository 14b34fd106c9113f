"""Design-space sweeps: predict every point of a space on cpu:precise, for one or several
architectures, in a process pool or on a Dask cluster, and rank the points.

``simt.sweep(setup, space)`` returns a DataFrame with one row per point and architecture;
``simt.tune(setup, space)`` the fastest point. See README.md, "Sweeping a design space".
"""
from __future__ import annotations

import difflib
import math

from .space import RESERVED, SweepError, points
from .task import Task

__all__ = ["sweep", "tune", "SweepError", "DEFAULT_METRICS", "Tuned"]

# Nsight Compute's names (docs/metrics.md) for what decides a configuration's speed: the work,
# how full the SMs are, how busy compute and memory are, the traffic, and the usual culprits
# (bank conflicts, uncoalesced sectors, divergence, registers)
DEFAULT_METRICS = (
    "smsp__inst_executed.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sector_hit_rate.pct",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_average_branch_targets_threads_uniform.pct",
    "launch__registers_per_thread",
)


def sweep(setup, space: dict, *, arch="sm_90", metrics=None, client=None, cache=None,
          progress: bool = True, workers: int | None = None):
    """Predict ``setup(**point)``'s launch for every point of ``space`` and architecture.

    ``setup(**point)`` returns simt.launch's keyword arguments (kernel, dim, inputs,
    block_dim, ...) without ``device`` or ``arch``: the sweep launches on cpu:precise for
    each of ``arch`` (a name, a path of an architecture file, or a list of them).
    ``metrics``: Nsight Compute metric names (DEFAULT_METRICS when None). ``client``: a
    ``dask.distributed.Client`` to run on its cluster; else a pool of ``workers`` processes
    (every core when None; 0 runs the points in this process, one after another). ``cache``:
    a directory where each result is kept (by setup, kernel hash, point, architecture and
    simt version), so a sweep run again, or interrupted and run again, launches only what
    it has not yet. A point that fails is a row whose ``error`` holds the message.

    Returns a pandas DataFrame, one row per point and architecture, in the space's order:
    the space's names, ``arch``, ``cycles``, ``time_us`` (cycles at the architecture's
    measured clock), ``limiter`` (``r.bottleneck``), the metrics, ``error`` and ``wall_s``
    (the seconds the point took to simulate).
    """
    from .cache import SweepCache, entry_key, setup_identity
    from .runners import default_workers, pickle_setup, run_dask, run_here, run_pool
    if not callable(setup):
        raise SweepError(f"setup must be a function returning simt.launch's keyword arguments, "
                         f"got {setup!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 0):
        raise SweepError(f"workers= is a number of processes (0: this process), got {workers!r}")
    grid = points(space)
    archs = _archs(arch)
    metrics = _metrics(metrics, space)
    options = _worker_options()
    here = client is None and workers == 0
    blob = setup if here else pickle_setup(setup)
    store = SweepCache(cache) if cache is not None else None
    ident = setup_identity(setup) if store is not None else ""

    jobs = [(point, name) for point in grid for name in archs]
    keys = [entry_key(ident, point, archs[name].key, options) for point, name in jobs]
    entries = [store.get(k) if store is not None else None for k in keys]
    tasks = [Task(blob, point, name, options, entry["digest"] if entry else None)
             for (point, name), entry in zip(jobs, entries)]
    results: list[dict | None] = [None] * len(tasks)
    if client is not None:
        run = run_dask(tasks, client)
    elif here:
        run = run_here(tasks)
    else:
        run = run_pool(tasks, workers or default_workers())
    try:
        with _bar(len(tasks), progress) as bar:
            for i, outcome in run:
                if outcome.cached:
                    results[i] = entries[i]["result"]
                else:
                    results[i] = outcome.result
                    if store is not None and outcome.cacheable:
                        store.put(keys[i], outcome.digest, outcome.result)
                bar.update(1)
    finally:
        run.close()         # interrupted: stop the pool or cancel the cluster's tasks now
    rows = [_row(point, name, archs[name], metrics, result)
            for (point, name), result in zip(jobs, results)]
    import pandas as pd
    columns = [*space, "arch", "cycles", "time_us", "limiter", *metrics, "error", "wall_s"]
    return pd.DataFrame(rows, columns=columns)


class Tuned(dict):
    """The fastest point (``setup(**best)`` launches it); ``frame`` the sweep's rows ranked
    fastest first, points that failed last."""
    frame = None


def tune(setup, space: dict, *, arch: str = "sm_90", **options) -> Tuned:
    """The fastest point of ``space`` on ``arch`` (one architecture), as a dict; its
    ``frame`` attribute holds every row, fastest first. Takes sweep's other keywords."""
    if not isinstance(arch, str) and not hasattr(arch, "__fspath__"):
        raise SweepError(f"tune picks one point for one architecture; give arch= one name (to "
                         f"compare several, use simt.sweep), got {arch!r}")
    frame = sweep(setup, space, arch=arch, **options)
    ok = frame["error"] == ""
    if not ok.any():
        raise SweepError(f"no point of the space could launch; the first error: {frame['error'].iloc[0]}")
    ranked = frame.assign(_failed=~ok).sort_values(["_failed", "time_us"], kind="stable") \
        .drop(columns="_failed")
    best = Tuned(points(space)[ranked.index[0]])       # the values as given, one row per point
    best.frame = ranked.reset_index(drop=True)
    return best


def _archs(arch) -> dict:
    from ..arch import ArchError, load_arch
    names = [arch] if isinstance(arch, str) or hasattr(arch, "__fspath__") else list(arch or ())
    if not names:
        raise SweepError("arch= names no architecture")
    try:
        return {str(a): load_arch(str(a)) for a in names}
    except ArchError as e:
        raise SweepError(str(e)) from None


def _metrics(metrics, space: dict) -> tuple[str, ...]:
    if metrics is None:
        return DEFAULT_METRICS
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = tuple(dict.fromkeys(metrics))
    for m in metrics:
        if not isinstance(m, str) or m in RESERVED or m in space:
            raise SweepError(f"metric {m!r} is not a metric name, or clashes with a column")
    return metrics


def _worker_options() -> dict:
    """This process's module options for the workers, with timing on (a sweep ranks by it)
    and no progress bars or traces of their own."""
    from ..options import get_module_options
    options = get_module_options()
    options.update(timing=True, progress=False, trace=None)
    options.pop("arch", None)        # each task names its architecture
    return options


def _row(point: dict, arch: str, machine, metrics, result: dict) -> dict:
    row = {**point, "arch": arch, "cycles": math.nan, "time_us": math.nan, "limiter": "",
           "error": result.get("error", ""), "wall_s": result.get("wall_s", math.nan)}
    row.update({m: math.nan for m in metrics})
    if row["error"]:
        return row
    row["cycles"] = float(result["cycles"])
    row["time_us"] = result["cycles"] / float(machine.timing["clock_mhz"])
    row["limiter"] = result["limiter"]
    reported = result["metrics"]
    missing = [m for m in metrics if m not in reported]
    row.update({m: reported[m] for m in metrics if m in reported})
    if missing:
        hints = [f"{m!r}" + (f" (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(
            m, list(reported), n=1)) else "") for m in missing]
        row["error"] = f"cpu:precise reports no metric {', '.join(hints)}; see docs/metrics.md"
    return row


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        pass


def _bar(total: int, progress: bool):
    if not progress:
        return _NoBar()
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="simt sweep", unit="point", smoothing=0)
