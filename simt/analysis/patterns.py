"""Distinct access patterns: most warp accesses repeat one shape at different base
addresses, so per-access models run once per distinct shape."""
from __future__ import annotations

import numpy as np
import pandas as pd

INACTIVE = -1
_NONE = np.iinfo(np.int64).max


def distinct_patterns(addr: np.ndarray, active: np.ndarray, width: np.ndarray, align: int):
    """(first, inverse): accesses equal after moving each by a multiple of ``align`` bytes
    (so that its lowest active address falls in [0, align)) share a pattern; ``first[k]`` is
    the first access of pattern k and ``inverse[i]`` the pattern of access i.

    With ``align`` 128 a pattern keeps its banks; with 32 its sector count.
    """
    n = addr.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lowest = np.where(active, addr, _NONE).min(axis=1)
    shift = np.where(lowest == _NONE, 0, lowest // align * align)
    key = np.ascontiguousarray(np.column_stack(
        [np.asarray(width, dtype=np.int64), np.where(active, addr - shift[:, None], INACTIVE)]))
    rows = key.view(np.dtype((np.void, key.dtype.itemsize * key.shape[1]))).ravel()
    inverse, uniques = pd.factorize(rows)
    first = np.full(len(uniques), n, dtype=np.int64)
    np.minimum.at(first, inverse, np.arange(n))
    return first, inverse.astype(np.int64)
