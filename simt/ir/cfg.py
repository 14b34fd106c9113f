"""Control-flow facts about a MIR function: successors, post-dominators, back edges.

Engines reconverge a divergent warp at the branch's immediate post-dominator (the IPDOM
stack model); the verifier checks the block layout against the same facts, so both use
this one module. Blocks are named by label; ``None`` stands for the virtual exit that
every RET flows to.
"""
from __future__ import annotations

from .mir import Function

EXIT = None   # the virtual exit node: every RET block flows to it


def successors(fn: Function) -> dict[str, tuple[str, ...]]:
    return {b.label: b.successors for b in fn.blocks}


def predecessors(fn: Function) -> dict[str, list[str]]:
    preds: dict[str, list[str]] = {b.label: [] for b in fn.blocks}
    for b in fn.blocks:
        for s in b.successors:
            if s in preds and b.label not in preds[s]:
                preds[s].append(b.label)
    return preds


def reachable(fn: Function) -> set[str]:
    """Labels reachable from the entry block."""
    succ = successors(fn)
    seen: set[str] = set()
    stack = [fn.entry.label] if fn.blocks else []
    while stack:
        label = stack.pop()
        if label in seen or label not in succ:
            continue
        seen.add(label)
        stack.extend(succ[label])
    return seen


def back_edges(fn: Function) -> set[tuple[str, str]]:
    """Edges (u, v) where v is on the depth-first search stack when u is visited (loops)."""
    succ = successors(fn)
    result: set[tuple[str, str]] = set()
    if not fn.blocks:
        return result
    on_stack: set[str] = set()
    done: set[str] = set()
    entry = fn.entry.label
    stack: list[tuple[str, int]] = [(entry, 0)]
    on_stack.add(entry)
    while stack:
        label, i = stack[-1]
        nexts = succ.get(label, ())
        if i < len(nexts):
            stack[-1] = (label, i + 1)
            v = nexts[i]
            if v not in succ:
                continue
            if v in on_stack:
                result.add((label, v))
            elif v not in done:
                on_stack.add(v)
                stack.append((v, 0))
        else:
            stack.pop()
            on_stack.discard(label)
            done.add(label)
    return result


def exit_edges(fn: Function) -> dict[str, tuple[str | None, ...]]:
    """Successors with the virtual exit added after RET blocks.

    A block that cannot reach any RET (an endless loop) gets a virtual edge to the exit:
    repeatedly the last such block in layout order, which for a loop is its latch. That
    keeps post-dominators defined everywhere; such a kernel ends in a step-limit error.
    """
    succ: dict[str, tuple[str | None, ...]] = {}
    for b in fn.blocks:
        s = tuple(x for x in b.successors if x is not None)
        succ[b.label] = s + (EXIT,) if not b.successors else s
    while True:
        reaches = _reaching_exit(succ)
        stuck = [b.label for b in fn.blocks if b.label not in reaches]
        if not stuck:
            return succ
        last = stuck[-1]
        succ[last] = succ[last] + (EXIT,)


def _reaching_exit(succ: dict[str, tuple[str | None, ...]]) -> set[str]:
    preds: dict[str | None, list[str]] = {}
    for u, vs in succ.items():
        for v in vs:
            preds.setdefault(v, []).append(u)
    seen: set[str] = set()
    stack = list(preds.get(EXIT, []))
    while stack:
        u = stack.pop()
        if u in seen:
            continue
        seen.add(u)
        stack.extend(preds.get(u, []))
    return seen


def postdominators(fn: Function) -> dict[str, frozenset[str | None]]:
    """For each block, the set of nodes (labels, and ``EXIT``) on every path from it to exit.

    Iterative data flow: pdom(n) = {n} | intersection of pdom(s) over successors s.
    """
    succ = exit_edges(fn)
    everything: frozenset[str | None] = frozenset([*succ, EXIT])
    pdom: dict[str | None, frozenset[str | None]] = {label: everything for label in succ}
    pdom[EXIT] = frozenset([EXIT])
    order = [b.label for b in reversed(fn.blocks)]
    changed = True
    while changed:
        changed = False
        for label in order:
            common: frozenset[str | None] | None = None
            for s in succ[label]:
                ps = pdom.get(s, everything)
                common = ps if common is None else common & ps
            new = frozenset([label]) | (common or frozenset())
            if new != pdom[label]:
                pdom[label] = new
                changed = True
    return {label: pdom[label] for label in succ}


def ipdom(fn: Function) -> dict[str, str | None]:
    """Each block's immediate post-dominator: a label, or ``EXIT`` (``None``)."""
    pdom = postdominators(fn)
    result: dict[str, str | None] = {}
    for label, dominators in pdom.items():
        strict = dominators - {label}
        # the immediate one is the strict post-dominator that every other one post-dominates
        best: str | None = EXIT
        for cand in strict:
            if cand is EXIT:
                continue
            if strict <= pdom[cand]:
                best = cand
                break
        result[label] = best
    return result


def region(fn: Function, branch: str, stop: str | None,
           skip: set[tuple[str, str]] | None = None) -> set[str]:
    """Blocks on a path from ``branch``'s successors to ``stop``, not entering ``stop``
    and not following the edges in ``skip`` (normally the back edges)."""
    succ = successors(fn)
    skip = skip or set()
    seen: set[str] = set()
    stack = [s for s in succ.get(branch, ()) if (branch, s) not in skip]
    while stack:
        label = stack.pop()
        if label == stop or label in seen or label not in succ:
            continue
        seen.add(label)
        stack.extend(s for s in succ[label] if (label, s) not in skip)
    return seen
