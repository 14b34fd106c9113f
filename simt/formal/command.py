"""``simt verify FILE.py::kernel``: exit status 0 safe, 1 unsafe, 4 unknown, 2 a usage error."""
from __future__ import annotations

import sys

from ..errors import SimtError


def _ints(text: str | None):
    if text is None:
        return None
    parts = [int(p) for p in text.split(",") if p.strip()]
    return parts[0] if len(parts) == 1 else tuple(parts)


def verify_command(target: str, dim: str | None, block_dim: str | None, assume: list[str],
                   checks: str | None, timeout: float) -> int:
    from ..testing import load_target
    from . import verify
    try:
        kernel, _ = load_target(target)
        chosen = tuple(checks.split(",")) if checks else ("bounds", "race", "barrier")
        report = verify(kernel, dim=_ints(dim), block_dim=_ints(block_dim), assume=tuple(assume or ()),
                        checks=chosen, timeout=timeout)
    except (SimtError, ValueError, OSError) as e:
        print(f"simt verify: {e}", file=sys.stderr)
        return 2
    print(report)
    verdicts = [report.verdict(c) for c in report.checks]
    if "unsafe" in verdicts:
        return 1
    if "unknown" in verdicts or "vacuous" in verdicts:
        return 4
    return 0
