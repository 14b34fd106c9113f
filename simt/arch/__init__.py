"""Architecture descriptions (one JSON data file per architecture) and occupancy."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ARCH_DIR = Path(__file__).parent


@dataclass(frozen=True)
class Arch:
    name: str
    data: dict

    def __getattr__(self, key):
        try:
            return self.data[key]
        except KeyError:
            raise AttributeError(key) from None

    def occupancy(self, threads_per_block: int, regs_per_thread: int, shared_per_block: int) -> dict:
        """Blocks per SM and the limiting resource (the CUDA occupancy calculator's formula)."""
        d = self.data
        warps = -(-threads_per_block // 32)
        by_warps = d["max_warps_per_sm"] // warps
        unit = d["register_allocation_unit"]
        regs_per_warp = -(-max(1, regs_per_thread) * 32 // unit) * unit
        by_regs = (d["registers_per_sm"] // 4 // regs_per_warp) * 4 // warps
        per_block = -(-(shared_per_block + d["reserved_shared_per_block"]) // d["shared_allocation_unit"]) \
            * d["shared_allocation_unit"]
        # the driver picks the carveout that maximises occupancy: the largest one
        by_shared = d["shared_per_sm"] // per_block
        limits = {"warps": by_warps, "blocks": d["max_blocks_per_sm"], "registers": by_regs,
                  "shared": by_shared}
        limiter = min(limits, key=limits.get)
        return {"blocks_per_sm": max(0, limits[limiter]), "limiter": limiter, **limits}


@lru_cache(maxsize=None)
def load_arch(name: str) -> Arch:
    path = ARCH_DIR / f"{name}.json"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in ARCH_DIR.glob("sm_*.json")))
        raise ValueError(f"unknown architecture {name!r}; known: {known}")
    return Arch(name, json.loads(path.read_text()))
