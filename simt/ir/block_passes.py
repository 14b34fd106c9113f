"""MIR passes that reshape the CFG without changing what any thread computes.

``merge_straight_line`` folds a block into its only predecessor when that predecessor
jumps to it unconditionally. ``rotate_loops`` turns ``while c: body`` into
``if c: do { body } while c`` by evaluating the loop condition again at the end of the
body, so an iteration is one block fewer (as compilers do for GPUs). Both keep the layout
rule the precise engine relies on (everything between a branch and its immediate
post-dominator is laid out before the post-dominator); the verifier checks it after each.
"""
from __future__ import annotations

import copy

from .mir import BARRIERS, Block, Function, Op


def _predecessors(fn: Function) -> dict[str, list[str]]:
    preds: dict[str, list[str]] = {b.label: [] for b in fn.blocks}
    for b in fn.blocks:
        for s in b.successors:
            preds[s].append(b.label)
    return preds


def merge_straight_line(fn: Function) -> Function:
    changed = True
    while changed:
        changed = False
        preds = _predecessors(fn)
        index = {b.label: i for i, b in enumerate(fn.blocks)}
        for b in fn.blocks:
            if b.term.op is not Op.BR:
                continue
            target = fn.block(b.term.arg)
            if (target is b or target is fn.entry or preds[target.label] != [b.label]
                    or target.instrs[0].op in BARRIERS or index[target.label] < index[b.label]):
                continue
            b.instrs[-1:] = target.instrs
            fn.blocks.remove(target)
            changed = True
            break
    return fn


def rotate_loops(fn: Function) -> Function:
    preds = _predecessors(fn)
    index = {b.label: i for i, b in enumerate(fn.blocks)}
    for head in list(fn.blocks):
        if head is fn.entry or head.term.op is not Op.CBR:
            continue
        if any(i.op in BARRIERS for i in head.instrs):
            continue
        latches = [p for p in preds[head.label] if index[p] > index[head.label]]
        entries = [p for p in preds[head.label] if index[p] < index[head.label]]
        if len(latches) != 1 or not entries:
            continue
        latch = fn.block(latches[0])
        if latch.term.op is not Op.BR:
            continue
        inside = [t for t in head.term.arg if _reaches(fn, t, latch.label, head.label)]
        if len(inside) != 1:
            continue
        body = inside[0]
        outside = [t for t in head.term.arg if t != body]
        if len(outside) != 1 or index[outside[0]] < index[latch.label]:
            continue
        # the latch evaluates the condition again and branches back to the body itself
        latch.instrs[-1:] = [copy.copy(i) for i in head.instrs]
        preds = _predecessors(fn)
        index = {b.label: i for i, b in enumerate(fn.blocks)}
    return fn


def _reaches(fn: Function, start: str, goal: str, avoid: str) -> bool:
    seen, work = set(), [start]
    while work:
        label = work.pop()
        if label == goal:
            return True
        if label in seen or label == avoid:
            continue
        seen.add(label)
        work.extend(fn.block(label).successors)
    return False


__all__ = ["merge_straight_line", "rotate_loops", "Block"]
