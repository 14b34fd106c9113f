"""The atomic units' hot window and cold cost (simt calibrate's fit; fit.py calls
atomic_cold_and_window): micro.cu's red_scatter_l2, each lane a word hashed over 2^15 lines,
gives the mean cost of a line at its unit, and atomic_lines.cu's red_rand over 2^12 lines the
window within which a unit's update of a line makes the next one on it cost
atomic_line_cycles. Lines hashed uniformly come back after exponential gaps, so the share of
hot updates follows from the window, the lines a unit has and the mean cost."""
from __future__ import annotations

import numpy as np

CYC = "sm__cycles_elapsed.max"

SCATTER_LINES = 1 << 15      # micro.cu red_scatter_l2: words hashed over 4 MB
ATOMIC_COLD_SOURCE = ("micro.cu red_scatter_l2: each lane a word hashed over 2^15 lines, 4 blocks of 256 an SM: the "
                      "mean cost a line at a unit (units / lane updates a cycle) less the few hot ones' "
                      "(atomic_hot_window_cycles; fit.atomic_cold_cycles)")
ATOMIC_WINDOW_SOURCE = ("atomic_lines.cu red_rand (benchmarks/timing/atomic_lines.py): each lane a line hashed over "
                        "2^12 lines, 4 blocks of 256 an SM: the window within which a unit's update of a line makes "
                        "the next one on it cost atomic_line_cycles, from the mean cost a line between the cold and "
                        "hot costs (fit.atomic_hot_window)")


def atomic_lines_rate(df, bench: str, log2_lines: int) -> float:
    """atomic_lines.cu's lane operations a cycle GPU-wide of ``bench`` over 2^log2_lines lines
    (its manifest's value: 100 x log2 of the lines plus the steps), from the 4 and 16 steps."""
    rows = df[(df.bench == bench) & (df.value // 100 == log2_lines)]
    if len(rows) < 2:
        from .fit import FitError        # (fit imports this module)
        raise FitError(f"atomic_lines: {bench} over 2^{log2_lines} lines has fewer than two launches")
    return 1.0 / float(np.polyfit(rows.work.astype(float), rows[CYC].astype(float), 1)[0])


def _hot_share(window: float, lines_per_unit: float, mean: float) -> float:
    """The share of a unit's updates whose line it updated within ``window`` cycles, for lines
    hashed uniformly: a line comes back after lines_per_unit updates of ``mean`` cycles on
    average, the gaps exponential."""
    return 1.0 - float(np.exp(-window / (lines_per_unit * mean))) if window > 0 else 0.0


def atomic_cold_cycles(rate: float, lines: int, units: int, hot: float, window: float) -> float:
    """The cost of a cold sector at its unit, from ``rate`` lane updates a cycle of one lane a
    line hashed over ``lines`` lines: the mean cost (units / rate) less its hot share's."""
    mean = units / rate
    p = _hot_share(window, lines / units, mean)
    return (mean - p * hot) / (1.0 - p)


def atomic_hot_window(rate: float, lines: int, units: int, hot: float, cold: float) -> float:
    """The window (cycles) that gives ``rate`` lane updates a cycle of one lane a line hashed
    over ``lines`` lines, each update costing ``hot`` where its line came back within the window
    and ``cold`` otherwise: the inverse of _hot_share at the measured mean cost."""
    mean = units / rate
    p = min(max((mean - cold) / (hot - cold), 1e-3), 0.999) if hot > cold else 0.999
    return -(lines / units) * mean * float(np.log(1.0 - p))


def atomic_cold_and_window(scatter: float, lines, units: int, hot: float, window: float = 0.0) -> tuple[float, float]:
    """(atomic_cold_sector_cycles, atomic_hot_window_cycles) from micro.cu red_scatter_l2's lane
    updates a cycle and atomic_lines.cu's launches (``lines``; None: ``window`` as given), each
    fitted given the other, a few rounds from no window."""
    cold = atomic_cold_cycles(scatter, SCATTER_LINES, units, hot, window)
    for _ in range(8 if lines is not None else 0):
        window = atomic_hot_window(atomic_lines_rate(lines, "red_rand", 12), 1 << 12, units, hot, cold)
        cold = atomic_cold_cycles(scatter, SCATTER_LINES, units, hot, window)
    return cold, window
