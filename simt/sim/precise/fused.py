"""Hot arithmetic blocks of the precise engine, compiled with numba.

A step of the precise engine runs one basic block for the lanes at it, one numpy call per
instruction (program.py), plus the Python of the step loop (engine.py). On a block of a
few arithmetic instructions over a few thousand lanes that is mostly overhead: the
escape-time fractal's loop cost about 30 us a step. A *pure* block (arithmetic, compares,
selects, conversions and moves only: no memory, no special registers, no warp or block
collectives, no float16 or bfloat16 values) touches nothing but registers, so its lanes are
independent and it can run as one compiled loop over the running warps' active lanes, each
lane's registers in locals.

A program's hot pure blocks (loops: ``HOT_STEPS`` steps of the block, counted over
launches) compile into one numba function that is the engine's step loop for them: run
the block, move the lanes on and pick the next block (stepping.py), count the step
(metrics.py) and record it for the timing model (recorder.py), and go on while the next
block is hot. It hands control back where the engine's loop must look: before a block
that is not hot, at every 256th step (the step limit), and before a step the runaway-loop
watch must see (runaway.py).

The blocks' code is the fast engine's translation of each MIR op (simt/sim/fast/ops.py),
which gives the precise engine's bits (the engines' agreement tests), so a block gives the
same registers either way, and the counters and cycles are the same; the choice is speed
only. Code that runs briefly never pays the compilation (a second or more for a big
kernel), and the machine code is kept in the fast engine's disk cache (cache.py). If the
code cannot be compiled, a CompileFallbackWarning says so and the blocks go on running
with numpy.

Registers live in one 2-D array per numpy type (``pools``): register ``r`` is row
``rows[r]`` of ``pools[kinds[r]]``, and the engine's per-register arrays are those rows.
"""
from __future__ import annotations

import hashlib
import threading
import warnings
from pathlib import Path

import numpy as np

from ...ir.mir import BINARY, COMPARE, UNARY, Op, Reg
from ...ir.types import Scalar
from .. import mathlib
from ..fast import cache
from ..fast.codegen import RUNTIME_NAMES, Source
from ..fast.ops import MATH_MODULE, Constants, OpWriter, UnsupportedOp, reg_name
from ..timing import recorder
from . import stepping
from .runaway import WATCH_FROM

# numba's cache of the generated code does not see changes to the helpers it calls: their
# source is part of the generated source (as a digest), and so of its cache key
_HELPERS = hashlib.sha256(b"".join(Path(m.__file__).read_bytes()
                                   for m in (stepping, recorder))).hexdigest()[:16]

HOT_STEPS = 64           # steps of a pure block before it is compiled
# a longer block runs with numpy: LLVM takes minutes on one function of thousands of lanes'
# locals (BLAKE2s with its ten rounds unrolled by simt: a block of 3,726 instructions did not
# compile in 15 minutes), and a block that long runs few steps
FUSE_MOST = 1000
PURE_OPS = BINARY | COMPARE | UNARY | {Op.ISNAN, Op.ISINF, Op.MOV, Op.CVT, Op.SELECT}
UNSUPPORTED_TYPES = frozenset({Scalar.F16, Scalar.BF16})   # numba has no float16
_lock = threading.Lock()


class CompileFallbackWarning(UserWarning):
    """A program's pure blocks could not be compiled: they run with numpy (slower, same bits)."""


def register_pools(reg_types: list[Scalar]) -> tuple[list[str], list[int], dict[str, int]]:
    """Where each register lives: (numpy type name per register, row in that type's pool,
    rows per type)."""
    kinds, rows, counts = [], [], {}
    for t in reg_types:
        k = np.dtype(t.np).name
        kinds.append(k)
        rows.append(counts.get(k, 0))
        counts[k] = counts.get(k, 0) + 1
    return kinds, rows, counts


def is_pure(blk) -> bool:
    """Whether a block only computes registers from registers (see the module docstring)."""
    if blk.barrier is not None or blk.term.op not in (Op.CBR, Op.BR, Op.RET):
        return False
    if blk.term.op is Op.CBR and not isinstance(blk.term.srcs[0], Reg):
        return False
    for ins in blk.instrs[:-1]:
        if ins.op not in PURE_OPS:
            return False
        for x in (*ins.dsts, *ins.srcs):
            if x.type in UNSUPPORTED_TYPES:
                return False
    return True


class Fusion:
    """A program's pure blocks: which they are, how often each ran, and the compiled code of
    the hot ones. ``which[b]`` is block ``b``'s number in the compiled function, or -1."""

    def __init__(self, prog):
        self.prog = prog
        self.pure = [is_pure(b) and len(b.instrs) <= FUSE_MOST for b in prog.blocks]
        self.kinds, self.rows, self.counts = register_pools(prog.reg_types)
        self.pool_kinds = sorted(self.counts)
        self.steps = [0] * len(prog.blocks)
        self.hot = np.full(len(prog.blocks), -1, dtype=np.int32)   # ``which``, as the loop reads it
        self.run_steps = None
        self.sealed = False
        self.failed: str | None = None      # why compiling failed (the numpy path goes on)

    @property
    def any(self) -> bool:
        return any(self.pure)

    @property
    def which(self) -> list[int]:
        return self.hot.tolist()

    def ready(self, b: int) -> bool:
        """Whether pure block ``b`` runs compiled: count its step; once it has run HOT_STEPS
        steps (a loop), compile it with the other pure blocks that ran at least a quarter
        as often. Straight-line code runs a step per batch and is never worth compiling."""
        if self.hot[b] >= 0:
            return True
        if self.failed is not None:
            return False
        self.steps[b] += 1
        if self.steps[b] < HOT_STEPS:
            return False
        with _lock:
            if self.hot[b] < 0 and self.failed is None:
                hot = [p and (n >= HOT_STEPS // 4 or w >= 0)
                       for p, n, w in zip(self.pure, self.steps, self.hot)]
                self._compile(hot)
        return self.hot[b] >= 0

    def _compile(self, hot: list[bool]) -> None:
        try:
            source, which = generate(self.prog, hot, self.kinds, self.rows, self.pool_kinds)
            self.run_steps = cache.load_module(f"{self.prog.fn.name}_precise", source).run_blocks
            self.sealed = False
            self.hot = np.array(which, dtype=np.int32)
        except Exception as exc:        # a gap in the translation: say so, and go on with numpy
            self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        self.run_steps = None
        self.hot[:] = -1
        self.failed = f"{type(exc).__name__}: {exc}".splitlines()[0]
        warnings.warn(f"simt: cpu:precise could not compile the arithmetic blocks of kernel "
                      f"{self.prog.fn.name!r} ({self.failed}); they run with numpy, slower "
                      f"but with the same results", CompileFallbackWarning, stacklevel=4)

    def run(self, b: int, batch, step: int, watch, recorder) -> tuple[int, int, int] | None:
        """Run the batch from step ``step`` at block ``b`` (hot), and on while the blocks
        are hot: at most to the next multiple of 256 steps (the engine's step-limit check),
        and never past what the runaway-loop watch must see (runaway.py). Counts and
        records each step as the engine's own loop does. Returns (the next block, its
        lanes, the step count), or None if the code could not be compiled (nothing ran)."""
        nw = batch.warp_bits.size
        if recorder is not None and recorder.active:
            rec_steps, rec_warps = recorder.steps.reserve(256), recorder.warps.reserve(256 * nw)
            rec_n, rec_wn, ev_first = recorder.steps.n, recorder.warps.n, recorder.ev_n.n
            first_warp = recorder.first_warp
        else:
            rec_steps, rec_warps, rec_n, rec_wn, ev_first, first_warp = _NO_STEPS, _NO_WARPS, 0, 0, 0, 0
        c = batch.counters
        args = (b, batch.count, step, self.hot, batch.mask, batch.taken, batch.pc,
                batch.warp_bits, batch.warp_steps, batch.wlow, c.exec_warps, c.exec_lanes,
                c.uniform_targets, c.divergent_targets, rec_steps, rec_n, rec_warps, rec_wn,
                first_warp, ev_first, WATCH_FROM, watch.block, watch.snapshot_pc,
                watch.next_snapshot, watch.span, batch.done_pc, *batch.pools)
        if self.sealed:
            out = self.run_steps(*args)
        else:
            try:                        # numba compiles (or loads) the code, under the entry's lock
                cache.compile_sealed(self.run_steps, args)
                out = self.run_steps(*args)
            except Exception as exc:
                self._fail(exc)
                return None
            self.sealed = True
        b, count, step, rec_n, rec_wn = out
        if rec_steps is not _NO_STEPS:
            recorder.steps.n, recorder.warps.n = rec_n, rec_wn
        return int(b), int(count), int(step)


_NO_STEPS = np.zeros((0, 4), np.int64)
_NO_WARPS = np.zeros(0, np.int32)


def generate(prog, hot: list[bool], kinds: list[str], rows: list[int],
             pool_kinds: list[str]) -> tuple[str, list[int]]:
    """The source of ``run_steps`` for the program's hot pure blocks, and each block's
    number in it (-1: not there)."""
    consts = Constants()
    writer = OpWriter(consts, _no_memory, _no_memory, _no_memory, lambda ins: 0)
    pool_of = {k: f"P{i}" for i, k in enumerate(pool_kinds)}
    index = prog.reg_index

    def row(r: Reg) -> tuple[str, int]:
        i = index[r.id]
        return pool_of[kinds[i]], rows[i]

    def where(r: Reg) -> str:
        return "{}_{}[l]".format(*row(r))

    src = Source()
    src.indent()
    src.add(*_LOOP_HEAD)
    src.indent()
    which = [-1] * len(prog.blocks)
    n = 0
    for b, blk in enumerate(prog.blocks):
        if not hot[b]:
            continue
        body = _lane_body(blk, writer, where, {index[r.id]: r for r in _regs(blk)})
        src.add(f"{'if' if n == 0 else 'elif'} which == {n}:    # block {blk.label}")
        src.indent()
        for pool, k in sorted({row(r) for r in _regs(blk)}):      # the registers' rows, 1-D
            src.add(f"{pool}_{k} = {pool}[{k}]")
        src.add("for w in range(warp_bits.size):", "    bits = np.int64(warp_bits[w])",
                "    if bits:", "        for lane in range(32):",
                "            if (bits >> lane) & 1:", "                l = w * 32 + lane")
        src.indent(4)
        src.add(*body)
        src.dedent(4)
        src.add(*_next_block(blk))
        src.dedent()
        which[b] = n
        n += 1
    src.dedent()
    src.add(*_LOOP_TAIL)
    params = ["b", "count", "step", "hot", "mask", "taken", "pc", "warp_bits", "warp_steps",
              "wlow", "exec_warps", "exec_lanes", "uniform", "divergent", "rec_steps", "rec_n",
              "rec_warps", "rec_wn", "first_warp", "ev_first", "watch_from", "watch_block",
              "watch_pc", "next_snapshot", "span", "done", *(pool_of[k] for k in pool_kinds)]
    head = [f"# generated by simt's precise engine from the MIR of kernel {prog.fn.name!r}: "
            "its hot pure blocks; do not edit",
            "import numpy as np",
            "from numba import njit",
            f"from simt.sim.precise.stepping import branch_and_select, jump_and_select  # {_HELPERS}",
            "from simt.sim.timing.recorder import running_count, running_warps",
            f"from simt.sim.fast.runtime import ({', '.join(RUNTIME_NAMES)})",
            f"from simt.sim import mathlib as {MATH_MODULE}  # {mathlib.VERSION}",
            "", *consts.lines, "", "",
            '@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)',
            f"def run_blocks({', '.join(params)}):"]
    return "\n".join(head + src.lines) + "\n", which


# The step loop around the blocks' code: the engine's own loop (engine.py Batch.run), for
# hot blocks. It stops before a block that is not hot, before a step the runaway watch must
# look at (runaway.py: a snapshot is due, or the batch may be back at the snapshot), and
# after a step that is a multiple of 256 (the step limit) or that ends the batch.
_LOOP_HEAD = [
    "first = True",
    "while True:",
    "    which = hot[b]",
    "    if which < 0:",
    "        break",
    "    if step >= watch_from and not first:",
    "        if step >= next_snapshot:",
    "            break",
    "        if b == watch_block and watch_pc.size == pc.size:",
    "            back = True",
    "            for i in range(pc.size):",
    "                if pc[i] != watch_pc[i]:",
    "                    back = False",
    "                    break",
    "            if back:",
    "                break",
    "    if step >= watch_from:",
    "        span[0] = min(span[0], b)",
    "        span[1] = max(span[1], b)",
    "    first = False",
    "    if rec_steps.shape[0]:             # as Recorder.step",
    "        nrun = running_warps(warp_bits, first_warp, rec_warps, rec_wn) - rec_wn",
    "        rec_steps[rec_n, 0] = b",
    "        rec_steps[rec_n, 1] = nrun",
    "        rec_steps[rec_n, 2] = ev_first",
    "        rec_steps[rec_n, 3] = rec_wn",
    "        rec_n += 1",
    "        rec_wn += nrun",
    "    else:",
    "        nrun = running_count(warp_bits)",
    "    exec_warps[b] += nrun",
    "    exec_lanes[b] += count",
    "    split = 0",
]
_LOOP_TAIL = [
    "    if split >= 0:",
    "        uniform[b] += nrun - split",
    "        divergent[b] += 2 * split",
    "    b = low",
    "    count = cnt",
    "    step += 1",
    "    if step % 256 == 0 or b == done:",
    "        break",
    "return b, count, step, rec_n, rec_wn",
]


def _next_block(blk) -> list[str]:
    """After the lanes ran the block: where they go (as the engine's ``_terminate``), and
    the warps that split (-1: a return, which counts no branch)."""
    if blk.term.op is Op.CBR:
        t, f = blk.targets
        return [f"low, split, cnt = branch_and_select(pc, mask, taken, {t}, {f}, warp_bits, "
                "warp_steps, wlow)"]
    if blk.term.op is Op.BR:
        return [f"low, cnt = jump_and_select(pc, mask, {blk.targets[0]}, warp_bits, warp_steps, wlow)"]
    return ["low, cnt = jump_and_select(pc, mask, done, warp_bits, warp_steps, wlow)",
            "split = -1"]


def _regs(blk) -> list[Reg]:
    return [x for ins in blk.instrs for x in (*ins.dsts, *ins.srcs) if isinstance(x, Reg)]


def _lane_body(blk, writer: OpWriter, where, reg_of: dict[int, Reg]) -> list[str]:
    """One lane's run of the block: read what it reads before writing, compute in locals,
    write back the registers later blocks read (``blk.defs``) and the branch condition."""
    lines, written = [], set()
    for ins in blk.instrs[:-1]:
        for s in ins.srcs:
            if isinstance(s, Reg) and s.id not in written:
                written.add(s.id)
                lines.append(f"{reg_name(s)} = {where(s)}")
        lines += writer.write(ins)
        written.update(d.id for d in ins.dsts)
    if blk.term.op is Op.CBR:
        cond = blk.term.srcs[0]
        if cond.id not in written:
            lines.append(f"{reg_name(cond)} = {where(cond)}")
        lines.append(f"taken[l] = {reg_name(cond)}")
    for r in blk.defs:
        reg = reg_of[r]
        lines.append(f"{where(reg)} = {reg_name(reg)}")
    return lines or ["pass"]


def _no_memory(*_):
    raise UnsupportedOp("precise engine: a pure block has no memory access")
