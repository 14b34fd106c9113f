"""Where a sweep's tasks run: this process, a pool of processes over the cores, or a Dask
cluster. Each runner yields (index, Outcome) as tasks finish; a task that dies with its
worker is an Outcome carrying that error, never an exception out of the sweep."""
from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from .space import SweepError
from .task import Outcome, Task, run_task


# ---- sending setup to workers ------------------------------------------------------------

def pickle_setup(setup) -> bytes:
    """``setup`` as bytes a worker process can load. A function of an importable module goes
    by reference; one defined in ``__main__``, a closure or a lambda goes by value through
    cloudpickle (which Dask brings), its kernels rebuilt from their Python functions."""
    if _by_reference(setup):
        return pickle.dumps(setup)
    try:
        import cloudpickle
    except ImportError:
        try:
            return pickle.dumps(setup)
        except Exception as e:      # noqa: BLE001 - pickle raises several types
            raise SweepError(f"cannot send setup {setup!r} to worker processes ({e}); define it at "
                             f"the top level of a module, or pip install 'simt[sweep]' (cloudpickle "
                             f"sends closures and functions of __main__)") from None
    import io
    buffer = io.BytesIO()
    try:
        _KernelPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(setup)
    except Exception as e:          # noqa: BLE001
        raise SweepError(f"cannot send setup {setup!r} to worker processes: {e}") from None
    return buffer.getvalue()


def _by_reference(obj) -> bool:
    """Whether pickle finds ``obj`` again by its module and name in another process."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None)
    if not module or not name or module == "__main__" or "<" in name:
        return not hasattr(obj, "__code__") and module != "__main__" and _plain_pickles(obj)
    found = sys.modules.get(module)
    for part in name.split("."):
        found = getattr(found, part, None)
    return found is obj


def _plain_pickles(obj) -> bool:
    try:
        pickle.dumps(obj)
        return True
    except Exception:               # noqa: BLE001
        return False


def _rebuild_kernel(py_func, key: str, module_options: dict):
    from ..kernel import Kernel
    return Kernel(py_func, name=key, module_options=module_options)


def _kernel_by_name(module: str, name: str):
    import importlib
    return getattr(importlib.import_module(module), name)


try:
    import cloudpickle as _cloudpickle
except ImportError:                 # pragma: no cover - pickle_setup checks before using it
    _cloudpickle = None

def _load_code(marshalled: bytes, lines):
    """A code object sent by value, with its file's lines put where ``inspect`` finds them
    (simt compiles a kernel from its source; cloudpickle would send the code alone)."""
    import linecache
    import marshal
    code = marshal.loads(marshalled)
    if lines:                       # mtime None: linecache.checkcache leaves the entry alone
        linecache.cache[code.co_filename] = (sum(map(len, lines)), None, lines, code.co_filename)
    return code


if _cloudpickle is not None:
    class _KernelPickler(_cloudpickle.Pickler):
        """A kernel goes as its Python function and options, not its compiled caches (which
        hold numba functions and object ids that mean nothing in another process); code goes
        with the lines of its file, which simt's front end reads."""

        def reducer_override(self, obj):
            import linecache
            import marshal
            import types
            from ..kernel import Kernel
            if type(obj) is Kernel:
                module, name = getattr(obj.py_func, "__module__", ""), obj.py_func.__name__
                if module and module != "__main__" and \
                        getattr(sys.modules.get(module), name, None) is obj:
                    return _kernel_by_name, (module, name)
                return _rebuild_kernel, (obj.py_func, obj.key, dict(obj.module_options))
            if isinstance(obj, types.CodeType):
                return _load_code, (marshal.dumps(obj), linecache.getlines(obj.co_filename) or None)
            return super().reducer_override(obj)


# ---- runners -----------------------------------------------------------------------------

def run_here(tasks: list[Task]):
    """Every task in this process, in order (``workers=0``)."""
    for i, task in enumerate(tasks):
        yield i, run_task(task)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _init_worker(threads: int) -> None:
    """Each worker's numba threads: the cores shared out, so the pool does not oversubscribe."""
    os.environ["SIMT_PROGRESS"] = "0"
    try:
        import numba
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    except Exception:               # noqa: BLE001 - a thread count is an optimisation only
        pass


def run_pool(tasks: list[Task], workers: int):
    """The tasks on ``workers`` fresh processes (spawned: nothing of this process's threads
    or state is inherited). When a worker dies (a crash, out of memory), every task that
    had not finished runs again, one at a time in a pool of one process, so the task that
    kills its worker is found and is the only one whose outcome says so."""
    pending = yield from _pool_round(tasks, list(range(len(tasks))), workers)
    while pending:
        died = set((yield from _pool_round(tasks, pending, 1)))
        if not died:
            return
        culprit = next(i for i in pending if i in died)        # one worker runs them in order
        yield culprit, Outcome(None, result={"error": "the worker process died while running this point"})
        pending = [i for i in pending if i in died and i != culprit]


def _pool_round(tasks, indices, workers):
    """Run ``indices`` in a pool; yields their outcomes, returns those whose worker died."""
    workers = max(1, min(workers, len(indices)))
    threads = max(1, default_workers() // workers)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init_worker, initargs=(threads,))
    died, finished = [], False
    try:
        futures = {pool.submit(run_task, tasks[i]): i for i in indices}
        for future in as_completed(futures):
            i = futures[future]
            try:
                outcome = future.result()
            except BrokenProcessPool:
                died.append(i)
                continue
            except Exception as e:  # noqa: BLE001 - an outcome that did not come back
                outcome = Outcome(None, result={"error": f"{type(e).__name__}: {e}"})
            yield i, outcome
        finished = True
    finally:        # interrupted: do not wait for the points in flight (their workers exit after)
        pool.shutdown(wait=finished, cancel_futures=True)
    return died


def run_dask(tasks: list[Task], client):
    """The tasks on a Dask cluster through ``client`` (a ``dask.distributed.Client``)."""
    try:
        from distributed import as_completed as dask_completed
    except ImportError:
        raise SweepError("client= needs Dask's distributed scheduler: pip install 'simt[sweep]'") from None
    futures = client.map(run_task, tasks, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    try:
        for future in dask_completed(futures):
            i = index[future.key]
            try:
                yield i, future.result()
            except Exception as e:  # noqa: BLE001 - a worker lost, a task that failed to run
                yield i, Outcome(None, result={"error": f"the Dask task failed: {type(e).__name__}: {e}"})
    finally:
        client.cancel(futures)
