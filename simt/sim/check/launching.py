"""What ``simt.launch`` does for ``check=...``: pick the checks, run them on the precise
engine, hand the arrays' initcheck state over, report, and raise when asked to.

Checking needs the precise engine (it sees every lane's access). A launch on ``cpu`` with
checks runs there instead of on the fast engine: same results, more time. ``cpu:trace``
checks while it traces. A GPU cannot be checked here: run compute-sanitizer on it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...errors import HazardError, LaunchError, SimtError
from . import parse_checks
from .report import summary

# Who hears about every checked launch (the CLI's ``simt run --check`` prints them).
_reporters: list[Callable] = []


def add_reporter(fn: Callable) -> None:
    """``fn(kernel_name, hazards)`` after every checked launch (hazards: a list of Hazard)."""
    _reporters.append(fn)


def remove_reporter(fn: Callable) -> None:
    if fn in _reporters:
        _reporters.remove(fn)


@dataclass(frozen=True)
class CheckPlan:
    checks: frozenset
    raise_on_hazard: bool


def plan(kernel_name: str, device, check, raise_on_hazard, options: dict) -> CheckPlan:
    """The checks a launch runs: ``check=`` or else the module option; LaunchError if bad."""
    try:
        checks = parse_checks(options.get("check") if check is None else check)
    except SimtError as e:
        raise LaunchError(f"kernel '{kernel_name}': {e}") from None
    strict = options.get("raise_on_hazard", False) if raise_on_hazard is None else raise_on_hazard
    if checks and device.is_cuda and check is None:
        checks = frozenset()        # the module option checks what the CPU engines run
    if checks and device.is_cuda:
        raise LaunchError(f"kernel '{kernel_name}': check={sorted(checks)} runs on the CPU engines "
                          f"(device 'cpu:precise'); on '{device}' run the program under "
                          f"compute-sanitizer --tool racecheck|initcheck|synccheck instead")
    return CheckPlan(checks, bool(strict))


def engine(device, run_engine: Callable, checks: frozenset) -> Callable:
    """The engine that runs a checked launch: the precise engine in place of the fast one."""
    if checks and str(device) == "cpu":
        import dataclasses
        from ..precise import run

        def run_checked(fn, cfg, args):   # the fast engine reports no cycles: skip the timing model
            return run(fn, dataclasses.replace(cfg, timing=False), args)
        return run_checked
    return run_engine


def attach_arrays(checks: frozenset, arrays) -> None:
    """Give the engine each ``simt.empty`` array's record of unwritten scalars (initcheck);
    a launch without initcheck may write anything, so its arrays count as written.

    ``arrays``: (user array, [(ArrayArg, scalars per element or None)]) as the launch bound
    them; None means the ArrayArg views the array's memory and shares its record, a count
    that it holds a copy of one field of an array of structs (``finish`` folds back what the
    launch wrote)."""
    for arr, views in arrays:
        record = getattr(arr, "_unwritten", None)
        if record is None:
            continue
        if "init" in checks and record.mask() is not None:
            for arg, per_element in views:
                arg.unwritten = record.mask() if per_element is None else \
                    np.repeat(record.mask(), per_element)
        else:
            record.clear()


def finish(kernel_name: str, result, check_plan: CheckPlan, arrays) -> None:
    """After the launch: forget fully written records, tell reporters, raise if asked."""
    if not check_plan.checks:
        return
    for arr, views in arrays:
        record = getattr(arr, "_unwritten", None)
        if record is None or record.mask() is None:
            continue
        for arg, per_element in views:     # a struct field's copy: an element stays unwritten
            if per_element and arg.unwritten is not None:     # while none of it was written
                record.mask()[:] &= arg.unwritten.reshape(-1, per_element).all(axis=1)
        if not record.mask().any():
            record.clear()
    hazards = result.details.setdefault("hazards", [])
    for fn in list(_reporters):
        fn(kernel_name, hazards)
    if hazards and check_plan.raise_on_hazard:
        raise HazardError(f"kernel '{kernel_name}': {len(hazards)} hazard report"
                          f"{'s' if len(hazards) != 1 else ''}\n\n{summary(hazards)}",
                          result.hazards)
