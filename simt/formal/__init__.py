"""Formal verification of kernels: ``simt.verify`` proves bounds, race and barrier safety for
every input with the z3 SMT solver; ``simt.to_c`` writes a C harness for CBMC."""
from __future__ import annotations

from ..errors import SimtError


def _need_z3() -> None:
    try:
        import z3  # noqa: F401
    except ImportError:
        raise SimtError("simt.verify needs the z3 SMT solver: pip install 'simt[verify]'") from None


def verify(kernel, dim=None, block_dim=None, assume=(), checks=("bounds", "race", "barrier"),
           timeout: float = 60):
    """Prove ``kernel`` free of out-of-bounds accesses, data races and divergent barriers for
    every input: a VerifyReport (see README.md, 'Proving kernels safe')."""
    _need_z3()
    from .prove import verify as _verify
    return _verify(kernel, dim, block_dim, assume, checks, timeout)


def to_c(kernel, harness: str = "cbmc", dim=None, block_dim=None) -> str:
    """A C harness of the kernel for CBMC: one symbolic thread, __CPROVER_assume for the
    launch, an assertion before every array access."""
    from .to_c import to_c as _to_c
    return _to_c(kernel, harness, dim, block_dim)

