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
from dataclasses import dataclass
from typing import Callable

from .mir import BARRIERS, Block, Function, Imm, Instr, Op, Reg
from .types import Scalar

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


# ---- full unrolling of constant-trip ``for ... in range(a, b, step)`` loops ----------------

UNROLL_MAX_TRIPS = 16
UNROLL_MAX_INSTRUCTIONS = 256     # the loop's instructions times its trip count


@dataclass
class CountedLoop:
    """A ``for`` loop as lowering lays it out::

        preheader:  ... %iter = mov a ... br header
        header:     %c = lt|gt %iter, b ; cbr %c, body, exit
        body ... latch:   (the region: every block between header and exit, in layout)
        latch:      %iter = add %iter, step ; br header
        exit:
    """
    header: Block
    region: list[Block]
    exit_label: str
    counter: Reg
    init: Instr                   # the preheader's ``mov %iter, a``
    values: list[int]             # the counter's value in each iteration


def unroll_constant_loops(fn: Function) -> Function:
    """Fully unroll counted loops with constant bounds and a small trip count.

    Without a back edge ptxas (and our engines) see straight-line code: constant shared
    memory offsets, no compare/branch per iteration. Each iteration's copy reads the counter
    as an immediate and reuses the loop's registers (they run one after another); copies
    are laid out in order, then the exit, so the layout rule holds and a barrier still
    starts its own block. Loops that can leave early (break, return) are kept. Innermost
    loops go first so an enclosing loop is judged on its unrolled size.
    """
    copied: set[str] = set()
    while True:
        loop = _next_unrollable_loop(fn)
        if loop is None:
            break
        copied |= _unroll(fn, loop)
    if not copied:
        return fn
    return merge_jump_chains(fn)   # the copies' blocks are joined by merge-straight-line later


def _next_unrollable_loop(fn: Function) -> CountedLoop | None:
    reads, writes = _access_counts(fn)
    for index in range(len(fn.blocks) - 1, -1, -1):   # inner headers come after outer ones
        loop = _match_counted_loop(fn, index, reads, writes)
        if loop is not None:
            return loop
    return None


def _access_counts(fn: Function) -> tuple[dict[int, int], dict[int, int]]:
    reads: dict[int, int] = {}
    writes: dict[int, int] = {}
    for ins in fn.instructions():
        for r in ins.srcs:
            if isinstance(r, Reg):
                reads[r.id] = reads.get(r.id, 0) + 1
        for r in ins.dsts:
            writes[r.id] = writes.get(r.id, 0) + 1
    return reads, writes


def _match_counted_loop(fn: Function, index: int, reads: dict[int, int],
                        writes: dict[int, int]) -> CountedLoop | None:
    header = fn.blocks[index]
    if len(header.instrs) != 2:
        return None
    test, branch = header.instrs
    if branch.op is not Op.CBR or test.op not in (Op.LT, Op.GT) or branch.srcs[0] is not test.dst:
        return None
    counter, stop = test.srcs
    if not (isinstance(counter, Reg) and counter.type is Scalar.I32 and isinstance(stop, Imm)):
        return None
    body_label, exit_label = branch.arg
    position = {b.label: i for i, b in enumerate(fn.blocks)}
    if position[body_label] != index + 1 or position[exit_label] <= index + 1:
        return None
    region = fn.blocks[index + 1:position[exit_label]]
    latch = region[-1]
    if len(latch.instrs) != 2:
        return None
    step_ins, back = latch.instrs
    if not (back.op is Op.BR and back.arg == header.label and step_ins.op is Op.ADD
            and step_ins.dst is counter and step_ins.srcs[0] is counter
            and isinstance(step_ins.srcs[1], Imm) and step_ins.srcs[1].value != 0):
        return None
    if not _single_entry_single_exit(fn, header, region):
        return None
    preheaders = [b for b in fn.blocks if header.label in b.successors and b is not latch]
    if len(preheaders) != 1:
        return None
    init = _counter_init(preheaders[0], counter)
    if init is None or writes.get(counter.id) != 2 or writes.get(test.dst.id) != 1 \
            or reads.get(test.dst.id) != 1:
        return None
    counter_reads_inside = sum(1 for b in (header, *region) for ins in b.instrs
                               for r in ins.srcs if r is counter)
    if counter_reads_inside != reads.get(counter.id):
        return None     # read after the loop: its final value would have to be kept
    values = _trip_values(init.srcs[0].value, stop.value, step_ins.srcs[1].value, test.op)
    size = sum(len(b.instrs) for b in region)
    if values is None or size * len(values) > UNROLL_MAX_INSTRUCTIONS:
        return None
    return CountedLoop(header, region, exit_label, counter, init, values)


def _single_entry_single_exit(fn: Function, header: Block, region: list[Block]) -> bool:
    """Control enters the region only at its first block and leaves only through the latch."""
    inside = {b.label for b in region}
    latch = region[-1]
    for b in region:
        if b.term.op is Op.RET:
            return False
        for s in b.successors:
            if s not in inside and not (b is latch and s == header.label):
                return False     # break, or a jump out of the loop
    for b in fn.blocks:
        if b.label not in inside and b is not header:
            if any(s in inside for s in b.successors):
                return False
    return True


def _counter_init(preheader: Block, counter: Reg) -> Instr | None:
    for ins in preheader.instrs:
        if ins.op is Op.MOV and ins.dst is counter and isinstance(ins.srcs[0], Imm):
            return ins
    return None


def _trip_values(start: int, stop: int, step: int, test: Op) -> list[int] | None:
    """The counter's values, with int32 wrap-around like the engines; None past the limit."""
    values: list[int] = []
    v = start
    while (v < stop) if test is Op.LT else (v > stop):
        if len(values) == UNROLL_MAX_TRIPS:
            return None
        values.append(v)
        v = (v + step + 2**31) % 2**32 - 2**31
    return values


def _unroll(fn: Function, loop: CountedLoop) -> set[str]:
    """Replace the loop by its copies; returns the copies' labels."""
    labels = {b.label for b in fn.blocks}
    copies: list[list[Block]] = []
    renames: list[dict[str, str]] = []
    for k in range(len(loop.values)):
        rename = {}
        for b in loop.region:
            label = f"{b.label}_u{k}"
            while label in labels:
                label += "_"
            labels.add(label)
            rename[b.label] = label
        renames.append(rename)
    body_label = loop.region[0].label
    for k, value in enumerate(loop.values):
        after = renames[k + 1][body_label] if k + 1 < len(loop.values) else loop.exit_label
        rename = renames[k] | {loop.header.label: after}
        constant = Imm(value, Scalar.I32)
        copy = []
        for b in loop.region:
            instrs = [_copy_instr(ins, rename, loop.counter, constant) for ins in b.instrs
                      if not (b is loop.region[-1] and ins.dsts and ins.dst is loop.counter)]
            copy.append(Block(renames[k][b.label], instrs))
        copies.append(copy)
    first = renames[0][body_label] if loop.values else loop.exit_label
    loop.header.instrs = [Instr(Op.BR, arg=first, loc=loop.header.term.loc)]
    for b in fn.blocks:
        if loop.init in b.instrs:
            b.instrs.remove(loop.init)      # the counter is never read any more
    start = fn.blocks.index(loop.header) + 1
    unrolled = [b for copy in copies for b in copy]
    fn.blocks[start:start + len(loop.region)] = unrolled
    return {b.label for b in unrolled}


def _copy_instr(ins: Instr, rename: dict[str, str], counter: Reg, value: Imm) -> Instr:
    srcs = tuple(value if s is counter else s for s in ins.srcs)
    arg = ins.arg
    if ins.op is Op.BR:
        arg = rename.get(arg, arg)
    elif ins.op is Op.CBR:
        arg = tuple(rename.get(t, t) for t in arg)
    return Instr(ins.op, ins.dsts, srcs, arg, ins.loc)


from .block_passes import merge_straight_line, rotate_loops  # noqa: E402
from .schedule import rename_block_locals, schedule_blocks  # noqa: E402

DEFAULT_PASSES: list[tuple[str, Pass]] = [
    ("drop-unreachable", drop_unreachable_blocks),
    ("merge-jump-chains", merge_jump_chains),
    ("unroll-constant-loops", unroll_constant_loops),
    ("rotate-loops", rotate_loops),
    ("merge-straight-line", merge_straight_line),
    ("rename-block-locals", rename_block_locals),
    ("schedule", schedule_blocks),
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
