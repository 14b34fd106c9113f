"""The kernel suite every engine is tested and benchmarked on.

Each ``Case`` names a kernel, builds its inputs for a problem size, and computes the exact
expected outputs with numpy. Tests run the ``small`` size on every engine; benchmarks run
``large``. ``warp_compatible`` cases use only Warp's language, so warp-lang can run the same
source for comparison.

Multi-dimensional conventions (numpy order; the last dimension varies fastest and is CUDA's x):
- ``i, j = wp.tid()`` with ``dim=(H, W)``: ``j`` is the fastest index.
- ``ty, tx = wp.thread_idx()`` with ``block_dim=(BH, BW)``: ``tx`` is ``threadIdx.x``.
- ``by, bx = wp.block_idx()``: ``bx`` is ``blockIdx.x``.

    from simt import suite
    run = suite.run_case(suite.get("saxpy"), "small", device="cpu:precise")
    run.check()
"""
from __future__ import annotations

from . import cuda_cases, portable_cases
from .case import ArrayInput, Case, CaseRun, ScalarInput, compare, run_case

CASES: list[Case] = [*portable_cases.CASES, *cuda_cases.CASES]

_BY_NAME = {c.name: c for c in CASES}
assert len(_BY_NAME) == len(CASES), "suite case names must be unique"


def get(name: str) -> Case:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no suite case {name!r}; cases: {', '.join(_BY_NAME)}") from None


__all__ = ["ArrayInput", "Case", "CaseRun", "CASES", "ScalarInput", "compare", "get", "run_case"]
