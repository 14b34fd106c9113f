"""The fast engine, device ``cpu``: MIR compiled with numba, thread blocks in parallel."""
from .engine import run

__all__ = ["run"]
