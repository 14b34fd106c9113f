"""Sanitizers on the precise engine: racecheck, initcheck and synccheck.

``simt.launch(..., check="race" | "init" | "sync" | "all" | [...])`` runs the launch on the
precise engine with a ``Checker`` attached (checker.py): it sees every lane's every access,
keeps shadow state per address (shadow.py) and reports hazards aggregated per pair of
source lines, the way compute-sanitizer does, but naming the lines, the array, the index
and both threads (report.py). launching.py holds what ``simt.launch`` and the CLI need.
"""
from __future__ import annotations

from ...errors import SimtError

CHECKS = ("race", "init", "sync")


def parse_checks(spec) -> frozenset[str]:
    """``None``/``False``/``""`` -> no checks; ``"all"`` or ``True`` -> every check; a name, a
    comma-separated string or a list of names -> those. SimtError for anything else."""
    if spec is None or spec is False or spec == "" or spec == ():
        return frozenset()
    if spec is True:
        return frozenset(CHECKS)
    if isinstance(spec, str):
        names = [s.strip() for s in spec.split(",") if s.strip()]
    elif isinstance(spec, (list, tuple, set, frozenset)) and all(isinstance(s, str) for s in spec):
        names = [s.strip() for s in spec]
    else:
        raise SimtError(f"check must be 'race', 'init', 'sync', 'all' or a list of them, got {spec!r}")
    out: set[str] = set()
    for name in names:
        if name == "all":
            out.update(CHECKS)
        elif name in CHECKS:
            out.add(name)
        else:
            raise SimtError(f"unknown check {name!r}; simt has {', '.join(CHECKS)} (and 'all')")
    return frozenset(out)


__all__ = ["CHECKS", "parse_checks"]
