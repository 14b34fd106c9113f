"""The shape of a kernel as the fast engine runs it: straight-line *segments* of MIR.

A segment is a run of instructions a thread executes without stopping. It ends at a
terminator (BR, CBR, RET) or at a *collective* (a barrier or a warp intrinsic), where the
thread suspends until the other threads involved arrive; it then continues in the
*resume segment* that holds the rest of the MIR block. Kernels without collectives have
one segment per MIR block.

Registers that are live into a resume segment travel through per-thread arrays while
the thread is suspended; every other register stays a local variable of the compiled code.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...ir.mir import BARRIERS, Function, Instr, Op, Reg

COLLECTIVES = frozenset({Op.BAR, Op.BAR_AND, Op.SHFL, Op.VOTE, Op.SYNCWARP, Op.ACTIVEMASK})


@dataclass
class Segment:
    index: int
    instrs: list[Instr]                       # the body: no terminator, no collective
    term: Instr | None = None                 # BR / CBR / RET that ends it, or
    collective: Instr | None = None           # the collective it suspends at
    point: int = -1                           # the collective's number (program order)
    resume: int = -1                          # segment to continue in after the collective
    is_resume: bool = False                   # entered from the scheduler, not by a branch
    mir_blocks: int = 1                       # MIR blocks it starts (for the step count)
    block_index: int = 0                      # the MIR block it belongs to (layout order)
    successors: list[int] = field(default_factory=list)
    live_in: set[int] = field(default_factory=set)


@dataclass
class Layout:
    fn: Function
    segments: list[Segment]
    points: list[Segment]                      # the suspending segment of each collective
    regs: dict[int, Reg]

    @property
    def has_collectives(self) -> bool:
        return bool(self.points)

    def is_barrier_point(self, k: int) -> bool:
        return self.points[k].collective.op in BARRIERS


def build_layout(fn: Function) -> Layout:
    segments: list[Segment] = []
    points: list[Segment] = []
    first_of_block: dict[str, int] = {}
    for bi, block in enumerate(fn.blocks):
        first_of_block[block.label] = len(segments)
        seg = Segment(len(segments), [], block_index=bi)
        segments.append(seg)
        for ins in block.instrs:
            if ins.is_terminator:
                seg.term = ins
            elif ins.op in COLLECTIVES:
                seg.collective = ins
                seg.point = len(points)
                points.append(seg)
                nxt = Segment(len(segments), [], is_resume=True, mir_blocks=0, block_index=bi)
                seg.resume = nxt.index
                segments.append(nxt)
                seg = nxt
            else:
                seg.instrs.append(ins)
    for seg in segments:
        if seg.collective is not None:
            seg.successors = [seg.resume]
        elif seg.term.op is Op.BR:
            seg.successors = [first_of_block[seg.term.arg]]
        elif seg.term.op is Op.CBR:
            seg.successors = [first_of_block[x] for x in seg.term.arg]
    _liveness(segments)
    regs = {r.id: r for r in fn.registers()}
    return Layout(fn, segments, points, regs)


def _uses_defs(seg: Segment) -> tuple[set[int], set[int]]:
    uses: set[int] = set()
    defs: set[int] = set()
    tail = [x for x in (seg.term, seg.collective) if x is not None]
    for ins in [*seg.instrs, *tail]:
        for s in ins.srcs:
            if isinstance(s, Reg) and s.id not in defs:
                uses.add(s.id)
        if ins is not seg.collective:      # a collective's result appears in the resume segment
            defs.update(d.id for d in ins.dsts)
    return uses, defs


def _liveness(segments: list[Segment]) -> None:
    info = [_uses_defs(s) for s in segments]
    changed = True
    while changed:
        changed = False
        for seg in reversed(segments):
            uses, defs = info[seg.index]
            out: set[int] = set()
            for j in seg.successors:
                out |= segments[j].live_in
            new = uses | (out - defs)
            if new != seg.live_in:
                seg.live_in = new
                changed = True


def predecessor_counts(segments: list[Segment]) -> list[int]:
    """Branch edges into each segment; the entry and resume segments count one more (they
    are also entered from outside)."""
    counts = [0] * len(segments)
    counts[0] = 1
    for seg in segments:
        if seg.is_resume:
            counts[seg.index] += 1
        if seg.collective is None:
            for j in seg.successors:
                counts[j] += 1
    return counts
