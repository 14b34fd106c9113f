"""bfloat16 values as their 16 bits (numpy has no bfloat16 type): float32 -> bfloat16 rounds to
nearest even, NaN stays NaN (its quiet bit set if truncation would clear the payload), as
Warp's ``wp_float_to_bfloat16_bits_sw`` does; bfloat16 -> float32 is exact (a shift)."""
from __future__ import annotations

import numpy as np


def to_bits(x) -> np.ndarray:
    """float32 (or anything numpy converts to it) -> uint16 bfloat16 bit patterns."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    special = (bits & 0x7F800000) == 0x7F800000
    truncated = (bits >> 16).astype(np.uint16)
    quiet = special & ((bits & 0x007FFFFF) != 0) & ((truncated & 0x007F) == 0)
    truncated = np.where(quiet, truncated | np.uint16(0x0040), truncated)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(special, truncated, rounded).astype(np.uint16)


def from_bits(u) -> np.ndarray:
    """uint16 bfloat16 bit patterns -> float32."""
    return (np.asarray(u, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def round_value(value: float) -> float:
    """The bfloat16 nearest a number, as a Python float."""
    return float(from_bits(to_bits(np.float32(value))))
