"""MIR passes and the pass manager.

Contract of every pass: valid MIR in, valid MIR out (same semantics). The manager names
each pass, times it, reports a failure as "failed in pass X", and with ``verify_each``
runs the verifier after every pass (the tests turn that on; SIMT_VERIFY_EACH_PASS=1 too).
``SIMT_DUMP_MIR=<pass name>`` prints the MIR after that pass (``all`` for every pass).
"""
from __future__ import annotations

import os
import sys
import time
from typing import Callable

from .mir import Function, Op

Pass = Callable[[Function], Function]


def drop_unreachable_blocks(fn: Function) -> Function:
    """Remove blocks no path from the entry reaches (code after return/break, dead branches)."""
    reachable, work = set(), [fn.entry.label]
    while work:
        label = work.pop()
        if label in reachable:
            continue
        reachable.add(label)
        work.extend(fn.block(label).successors)
    fn.blocks = [b for b in fn.blocks if b.label in reachable]
    return fn


def merge_jump_chains(fn: Function) -> Function:
    """Retarget branches that jump to an empty block holding only ``br X`` straight to X.

    Lowering leaves such trampolines at loop latches and joins; removing them makes the MIR
    shorter to read and cheaper to run. Layout order is kept, so reconvergence is unchanged.
    """
    forward: dict[str, str] = {}
    for b in fn.blocks[1:]:
        if len(b.instrs) == 1 and b.term.op is Op.BR and b.term.arg != b.label:
            forward[b.label] = b.term.arg

    def resolve(label: str) -> str:
        seen = set()
        while label in forward and label not in seen:
            seen.add(label)
            label = forward[label]
        return label

    index = {b.label: i for i, b in enumerate(fn.blocks)}
    for b in fn.blocks:
        t = b.term
        if t.op is Op.BR:
            target = resolve(t.arg)
            if index[target] > index[b.label] or target == t.arg:  # never turn a jump into a back edge
                t.arg = target
        elif t.op is Op.CBR:
            tt, ff = (resolve(x) for x in t.arg)
            tt = tt if index[tt] > index[b.label] else t.arg[0]
            ff = ff if index[ff] > index[b.label] else t.arg[1]
            t.arg = (tt, ff)
    return drop_unreachable_blocks(fn)


DEFAULT_PASSES: list[tuple[str, Pass]] = [
    ("drop-unreachable", drop_unreachable_blocks),
    ("merge-jump-chains", merge_jump_chains),
]


class PassError(Exception):
    pass


def run_passes(fn: Function, passes: list[tuple[str, Pass]] | None = None,
               verify_each: bool | None = None, timings: dict | None = None) -> Function:
    from .verify import verify
    if verify_each is None:
        verify_each = os.environ.get("SIMT_VERIFY_EACH_PASS", "") not in ("", "0")
    dump = os.environ.get("SIMT_DUMP_MIR", "")
    if verify_each:
        _verify(verify, fn, "lowering")
    _dump(fn, "lowering", dump)
    for name, p in passes if passes is not None else DEFAULT_PASSES:
        t0 = time.perf_counter()
        try:
            fn = p(fn)
        except Exception as e:  # an internal error: say which pass, keep the cause
            raise PassError(f"MIR pass '{name}' failed on kernel '{fn.name}': {e}") from e
        if timings is not None:
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - t0
        if verify_each:
            _verify(verify, fn, name)
        _dump(fn, name, dump)
    return fn


def _verify(verify, fn: Function, after: str) -> None:
    try:
        verify(fn)
    except Exception as e:
        raise PassError(f"invalid MIR after '{after}' in kernel '{fn.name}': {e}") from e


def _dump(fn: Function, name: str, which: str) -> None:
    if which and which in (name, "all"):
        from .printer import format_function
        print(f"--- MIR after {name} ---\n{format_function(fn)}", file=sys.stderr)
