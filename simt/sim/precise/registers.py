"""Registers per thread, which decide how many blocks an SM holds.

A GPU allocates what ptxas assigns to the kernel's machine code, so where ptxas is installed
that is the count: simt's own PTX of the kernel (simt/gpu/ptx.py) assembled for the
architecture's PTX target, once per compiled kernel and target. Without ptxas (or when the
PTX backend cannot lower the kernel) the count is an estimate from the MIR: the most values
live at once, as 32-bit registers, plus a few for addresses and indices. Which one was used
is reported with the occupancy (``registers_from``: "ptxas" or "estimate").
"""
from __future__ import annotations

from .program import Program


def registers_per_thread(prog: Program, arch) -> tuple[int, str]:
    """(registers per thread, "ptxas" or "estimate (<why ptxas was not used>)")."""
    key = ("registers", arch.ptx_target)
    found = prog.timing.get(key)
    if found is None:
        regs, why_not = _from_ptxas(prog, arch.ptx_target)
        if regs is None:
            found = (estimate_registers(prog, arch.max_registers_per_thread), f"estimate ({why_not})")
        else:
            found = (regs, "ptxas")
        prog.timing[key] = found
    return found


def _from_ptxas(prog: Program, target: str) -> tuple[int | None, str]:
    """ptxas's register count for simt's PTX of the kernel, or (None, why not)."""
    try:
        from ...gpu.ptx import emit
        from ...gpu.ptxas import resource_usage
        text = emit(prog.fn, target)[0]
        return max(1, int(resource_usage(text, target)["registers"])), ""
    except Exception as e:      # noqa: BLE001 - a kernel the PTX backend or ptxas cannot take still runs
        lines = str(e).splitlines()
        return None, f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def estimate_registers(prog: Program, max_registers: int) -> int:
    """Registers per thread from the MIR: the most values live at once, as 32-bit registers."""
    most = 0
    for b in prog.blocks:
        live = set(b.live_in) | set(b.defs)
        most = max(most, sum(2 if prog.reg_types[r].bits == 64 else 1 for r in live))
    return int(min(max_registers, max(16, most + 8)))
