"""A thread's control flow as structured ``if`` / ``while`` code, for kernels without
collectives.

The dispatch loop (``while True: if bb == ...``) compiles to an indirect jump on every
block transition; LLVM does not thread jumps through it, so a tight loop pays tens of
cycles per iteration. Here every conditional branch becomes an ``if`` whose arms run up
to the branch's immediate post-dominator (the verifier lays those blocks out before it),
and every natural loop becomes a ``while True`` whose back edges are ``continue`` and
whose single exit is ``break``. A ``RET`` ends the thread: ``continue`` of the thread
loop, or, inside loops, ``done = True`` and one ``break`` per loop level.

Blocks reached from several places without being their join are written again at each
place (tail duplication), and so are a loop's exits into code that only returns. Irreducible
flow, loops with several other exits, jumps to an outer
loop's header or exit, and too much duplication raise ``Unstructured``: the caller then
falls back to the dispatch loop.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...ir import cfg
from ...ir.mir import Op
from .ops import ERR_STEPS
from .segments import Layout

DUPLICATION_LIMIT = 4          # blocks written at most this many times the block count (+ slack)


class Unstructured(Exception):
    """The control flow does not map onto if/while without flags: use the dispatch loop."""


@dataclass
class _Loop:
    header: int
    exit: int | None           # the one block outside the loop that it branches to
    body: frozenset[int]


@dataclass
class _Open:
    loop: _Loop
    returns: bool = False      # a RET inside: after the loop, ``if done:`` leaves one more level


class StructuredWriter:
    """Writes the body of one thread. ``write_block(src, seg)`` writes a segment's
    instructions (no terminator); ``fail(code, ins, *values)`` the error lines."""

    def __init__(self, layout: Layout, write_block, fail, condition, step_check: str = "steps > max_steps"):
        if layout.has_collectives:
            raise Unstructured("collectives need the suspend/resume dispatch")
        self.layout = layout
        self.segments = layout.segments
        self.write_block = write_block
        self.fail = fail
        self.condition = condition          # Instr (CBR) -> expression of its condition
        self.step_check = step_check        # when a loop's iteration ends the thread (ERR_STEPS)
        fn = layout.fn
        index = {b.label: k for k, b in enumerate(fn.blocks)}
        self.ipdom = {index[a]: (None if b is cfg.EXIT else index[b]) for a, b in cfg.ipdom(fn).items()}
        self.preds: dict[int, list[int]] = {s.index: [] for s in self.segments}
        for s in self.segments:
            for j in s.successors:
                self.preds[j].append(s.index)
        edges = {(index[u], index[v]) for u, v in cfg.back_edges(fn)}
        self.loops = self._loops(edges)
        self.budget = DUPLICATION_LIMIT * len(self.segments) + 16
        self.any_loop_returns = False

    def _loops(self, back_edges: set[tuple[int, int]]) -> dict[int, _Loop]:
        latches: dict[int, list[int]] = {}
        for u, h in back_edges:
            latches.setdefault(h, []).append(u)
        loops = {}
        for h, us in latches.items():
            body = {h}
            stack = list(us)
            while stack:
                n = stack.pop()
                if n in body:
                    continue
                if n == 0:          # the entry reaches the latch around the header
                    raise Unstructured("irreducible loop")
                body.add(n)
                stack.extend(self.preds[n])
            exits = {j for n in body for j in self.segments[n].successors if j not in body}
            # an exit into loop-free code that only ends the thread (an early return) is
            # written in place; the loop's one real exit is the other, or the last laid out
            terminal = {e for e in exits if self._ends_thread(e, back_edges, exits)}
            real = exits - terminal
            if len(real) > 1:
                raise Unstructured("loop with several exits")
            main = next(iter(real)) if real else (max(terminal) if terminal else None)
            loops[h] = _Loop(h, main, frozenset(body))
        return loops

    def _ends_thread(self, e: int, back_edges: set[tuple[int, int]], exits: set[int]) -> bool:
        """Whether everything reachable from ``e`` is loop-free and reaches no other exit."""
        headers = {h for _, h in back_edges}
        seen: set[int] = set()
        stack = [e]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            if n in headers or (n != e and n in exits):
                return False
            seen.add(n)
            stack.extend(self.segments[n].successors)
        return True

    # --- emission --------------------------------------------------------------------------
    def write(self, src) -> None:
        self._sequence(src, 0, None, [])

    def _sequence(self, src, n: int, stop: int | None, open_: list[_Open]) -> None:
        """Blocks from ``n`` on until control reaches ``stop`` (not written)."""
        while True:
            if n == stop:
                return
            inner = open_[-1].loop if open_ else None
            if inner is not None and n == inner.header:
                src.add("continue")
                return
            if inner is not None and n == inner.exit:
                src.add("break")
                return
            if any(n in (o.loop.header, o.loop.exit) for o in open_[:-1]):
                raise Unstructured("jump to an outer loop")
            if n in self.loops:
                nxt = self._loop(src, self.loops[n], open_)
            else:
                nxt = self._block(src, n, stop, open_)
            if nxt is None:
                return
            n = nxt

    def _loop(self, src, loop: _Loop, open_: list[_Open]) -> int | None:
        src.add("while True:")
        src.indent()
        here = _Open(loop)
        inner = open_ + [here]
        src.add(f"if {self.step_check}:")
        src.add(*("    " + x for x in self.fail(ERR_STEPS, None, str(loop.header))))
        nxt = self._block(src, loop.header, None, inner)
        if nxt is not None:
            self._sequence(src, nxt, None, inner)
        src.dedent()
        if here.returns:
            src.add("if done:")
            src.indent()
            self._leave(src, open_)
            src.dedent()
        return loop.exit

    def _leave(self, src, open_: list[_Open]) -> None:
        """End the thread from the current loop depth."""
        if not open_:
            src.add("continue")
        else:
            src.add("done = True", "break")
            open_[-1].returns = True
            self.any_loop_returns = True

    def _block(self, src, n: int, stop: int | None, open_: list[_Open]) -> int | None:
        """Write block ``n``; the block control continues with, or None if the sequence ends."""
        self.budget -= 1
        if self.budget < 0:
            raise Unstructured("too much duplication")
        seg = self.segments[n]
        self.write_block(src, seg)
        term = seg.term
        if term.op is Op.RET:
            self._leave(src, open_)
            return None
        if term.op is Op.BR:
            return seg.successors[0]
        t, f = seg.successors
        if t == f:
            return t
        join = self.ipdom[n]
        if open_ and join is not None and join not in open_[-1].loop.body:
            join = None                  # every arm leaves the loop (break/continue/ret)
        src.add(f"if {self.condition(term)}:")
        src.indent()
        mark = len(src.lines)
        self._sequence(src, t, join, open_)
        if len(src.lines) == mark:
            src.add("pass")
        src.dedent()
        src.add("else:")
        src.indent()
        mark = len(src.lines)
        self._sequence(src, f, join, open_)
        if len(src.lines) == mark:
            src.add("pass")
        src.dedent()
        return join
