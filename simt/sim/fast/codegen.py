"""MIR -> the Python source of one numba function that runs a range of thread blocks.

The generated ``run_blocks(cta_begin, cta_end, geom, shapes, err, abort, err_state,
<arrays>, <scalars>)`` loops over its blocks and, inside a block, over its threads in
linear order (x fastest); registers are local variables. In kernels without collectives a
thread's control flow is structured if/while code (structured.py); where the flow does not
map onto that, and in kernels with collectives, a thread is a ``while True`` loop
dispatching on ``bb``, the segment it is in (see segments.py).

Kernels with barriers or warp intrinsics run each block in *rounds*: every runnable
thread runs until it suspends at a collective or exits, then the scheduler (written by
collectives.py) resolves what can be resolved and the next round resumes those threads.
Registers live across a suspension wait in per-thread arrays ``R_<type>[slot, thread]``.

Each block starts by testing, once, the indices that are simple functions of the thread id
against their arrays (bounds.py); where all pass, those accesses run unchecked (``slow`` is
False; large straight-line thread loops are written twice, one copy per value) and the
thread loop has no early exit. Byte-addressed accesses (imported PTX) checked that way keep
their general path in the loop, so their kernels get the thread loop twice too: one copy for
``fast`` blocks without those paths, one for the others.

Runtime errors store a record in ``err`` (code, block, thread, instruction, values), set
``abort`` so that other OS threads stop taking blocks, and return; engine.py turns the
record into the same exception the precise engine raises.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...ir import cfg
from ...ir.mir import (BINARY, COMPARE, UNARY, ArrayParam, Function, Instr, MemRef, Op, Reg,
                       ScalarParam, Space, SReg)
from ...ir.types import Scalar
from . import bounds, collectives, pointers
from .. import atomic_log, mathlib
from .ops import (CAST, ERR_STEPS, MATH_MODULE, Constants, OpWriter, check_memref_space,
                  reg_name)
from .segments import Layout, Segment, build_layout, predecessor_counts
from .structured import StructuredWriter, Unstructured

RUNTIME_NAMES = ("record_error", "div_signed", "rem_signed", "div_unsigned", "rem_unsigned", "shl_signed",
                 "shr_signed", "shl_unsigned", "shr_unsigned", "fmin", "fmax", "round_half_away",
                 "float_to_int_saturating", "float_to_uint64_saturating", "atomic_add_int",
                 "atomic_sub_int", "atomic_min_int", "atomic_max_int", "atomic_exch_int",
                 "atomic_and_int", "atomic_or_int", "atomic_xor_int",
                 "atomic_cas_bits", "atomic_add_float", "atomic_sub_float", "atomic_min_float",
                 "atomic_max_float", "atomic_exch_float", "atomic_cas_value",
                 "float_to_i8_sat", "float_to_u8_sat", "float_to_i16_sat", "float_to_u16_sat",
                 "float_to_i32_sat", "float_to_u32_sat", "float_to_i64_sat", "float_to_u64_sat",
                 "f32_to_f16_bits", "f16_bits_to_f32", "f32_to_bf16_bits", "bits_float32",
                 "print_c", "grow_log", "I32_MIN", "I32_MAX", "I64_MIN", "I64_MAX",
                 "float32_bits", "float64_bits", "bits_float64", "ptr_find")

GEOMETRY = ("bx", "by", "bz", "gx", "gy", "gz", "dim0", "dim1", "dim2", "dim3", "max_steps")
ERR_FIELDS = 8
RUNNABLE, WAITING, EXITED = 0, 1, 2
# Two copies of a structured thread loop where bounds.py hoisted checks and it pays (see
# _unswitch); False: one copy testing ``slow`` at each hoisted access (to measure the gain).
UNSWITCH = True
SMALL_BODY = 4        # hoisted accesses in a thread loop LLVM unswitches by itself


@dataclass
class Generated:
    source: str
    instrs: list[Instr]                    # instruction ids used in error records
    layout: Layout
    array_params: list[ArrayParam] = field(default_factory=list)
    scalar_params: list[ScalarParam] = field(default_factory=list)
    has_global_atomics: bool = False
    plain_atomics: bool = False            # global atomics as plain read-modify-writes
    logs: bool = False                     # run_blocks logs deferred float atomics (and returns it)
    log_keys: bool = False                 # its rows carry thread keys (threads run in rounds)
    log_rows_per_thread: int = 0           # deferred atomics a thread runs (if in no loop)
    parallel_safe: bool = True             # blocks may run on several OS threads
    pointers: pointers.PointerCode | None = None   # byte-addressed memory (trailing arguments)
    stride_latches: frozenset = frozenset()     # labels of blocks ending grid-stride loops
    arrays_used: tuple = ()                # per array parameter: whether run_blocks takes it


class Source:
    """Lines with indentation."""

    def __init__(self):
        self.lines: list[str] = []
        self.depth = 0

    def add(self, *lines: str) -> None:
        pad = "    " * self.depth
        self.lines.extend(pad + x for x in lines)

    def indent(self, n: int = 1) -> None:
        self.depth += n

    def dedent(self, n: int = 1) -> None:
        self.depth -= n


def generate(fn: Function, plain_atomics: bool = False) -> Generated:
    """``plain_atomics``: the variant for launches that run on one OS thread, where a global
    atomic needs no lock (much cheaper, and no cache-line ping-pong between cores)."""
    return _Generator(fn, plain_atomics).run()


def has_global_atomics(fn: Function) -> bool:
    return any(ins.op is Op.ATOM and ins.arg.mem.space is Space.GLOBAL for ins in fn.instructions())


class _Generator:
    def __init__(self, fn: Function, plain_atomics: bool = False):
        self.fn = fn
        self.plain_atomics = plain_atomics
        self.layout = build_layout(fn)
        self.consts = Constants()
        self.instrs = list(fn.instructions())
        self.instr_id = {id(ins): k for k, ins in enumerate(self.instrs)}
        self.arrays = [p for p in fn.params if isinstance(p, ArrayParam)]
        self.scalars = [p for p in fn.params if isinstance(p, ScalarParam)]
        self.mem_names: dict[int, tuple[str, str]] = {}
        self.shape_offsets: dict[int, int] = {}
        offset = 0
        for k, p in enumerate(self.arrays):
            self.mem_names[id(p.mem)] = (f"g{k}", f"g{k}_n")
            self.shape_offsets[id(p.mem)] = offset
            offset += p.mem.ndim
        for k, mem in enumerate(fn.shared):
            check_memref_space(mem)
            self.mem_names[id(mem)] = (f"s{k}", str(mem.size))
        self.writer = OpWriter(self.consts, self.memory, self.dim_of, self.fail,
                               lambda ins: self.instr_id[id(ins)])
        self.writer.plain_global_atomics = plain_atomics
        self.pointers = None
        if pointers.uses_pointers(fn):
            self.pointers = pointers.PointerCode(fn, self.fail, lambda ins: self.instr_id[id(ins)],
                                                 self.arrays)
            self.pointers.plain_global_atomics = plain_atomics
            self.writer.pointers = self.pointers
        self.lockstep = self.layout.has_collectives
        # On one OS thread without collectives, threads run in the log's canonical order
        # already: plain read-modify-writes give its result. Otherwise deferred atomics log.
        self.deferral = atomic_log.plan(fn)
        self.logs = bool(self.deferral.instrs) and (not plain_atomics or self.lockstep)
        if self.logs:
            self.writer.deferral = self.deferral
            self.writer.log_keys = self.lockstep
        self.hoisting = bounds.plan(fn, self.layout, lambda mem: self.memory(mem)[1], self.dim_of,
                                    {p.reg.id: f"p{k}" for k, p in enumerate(self.scalars)},
                                    lambda imm: self.consts.get(imm.value, imm.type),
                                    self.pointers.span if self.pointers else lambda mem: None)
        self.writer.hoisted = self.hoisting.accesses
        self.unchecked: bool | None = None    # which copy of the thread loop (OpWriter.unchecked)
        if self.pointers:
            self.pointers.hoisted = self.hoisting.pointers
            self.pointers.offsets = self.hoisting.offsets
        self.slots: dict[int, tuple[Scalar, int]] = {}
        if self.lockstep:
            self._assign_slots()

    # --- hooks for OpWriter ---------------------------------------------------------------
    def memory(self, mem: MemRef) -> tuple[str, str]:
        check_memref_space(mem)
        return self._lookup(mem)

    def _lookup(self, mem: MemRef) -> tuple[str, str]:
        names = self.mem_names.get(id(mem))
        if names is None:       # an equal MemRef object from another pass
            for other in [p.mem for p in self.arrays] + list(self.fn.shared):
                if other.name == mem.name and other.space is mem.space:
                    return self.mem_names[id(other)]
            raise KeyError(mem.name)
        return names

    def dim_of(self, mem: MemRef, dim: int) -> str:
        if mem.space is Space.SHARED:
            return str(mem.shape[dim])
        arr, _ = self._lookup(mem)
        k = int(arr[1:])
        return f"shape{k}_{dim}"

    def fail(self, code: int, ins: Instr | None, *values: str) -> list[str]:
        ident = self.instr_id[id(ins)] if ins is not None else -1
        vals = [f"np.int64({v})" for v in values] + ["0"] * (3 - len(values))
        return [f"record_error(err, abort, {code}, cta, t, {ident}, {', '.join(vals)})", "return"]

    # --- registers across suspensions ---------------------------------------------------
    def _assign_slots(self) -> None:
        """A slot per register live across a suspension, but for block-uniform ones: every
        thread writes the same value into the shared local variable (see _uniform)."""
        counts: dict[Scalar, int] = {}
        self.uniform = _uniform(self.fn, self.layout.segments[0].live_in)
        for seg in self.layout.segments:
            if not seg.is_resume:
                continue
            for rid in sorted(seg.live_in):
                if rid not in self.slots and rid not in self.uniform:
                    t = self.layout.regs[rid].type
                    self.slots[rid] = (t, counts.get(t, 0))
                    counts[t] = counts.get(t, 0) + 1
        self.slot_counts = counts
        self._plan_slot_traffic()

    def _plan_slot_traffic(self) -> None:
        """Which registers a resumed segment loads and a suspension saves. A register written
        only outside loops is ``resident``: stored into its slot where it is written, so its
        slot is always current and no suspension saves it. A resumed segment loads only the
        registers its *region* (the segments it reaches before the next suspension) reads or
        saves; a suspension saves only the other registers some region reaching it writes
        (the slot of one that none writes still holds its value)."""
        segs = self.layout.segments
        in_loop = _loop_blocks(self.fn)
        written_in_loop = {d.id for b in self.fn.blocks if b.label in in_loop
                           for ins in b.instrs for d in ins.dsts}
        written = {d.id for ins in self.instrs for d in ins.dsts}
        self.resident = {rid for rid in self.slots if rid in written and rid not in written_in_loop}

        def region(k: int) -> list[int]:
            seen, stack = [], [k]
            while stack:
                j = stack.pop()
                if j in seen:
                    continue
                seen.append(j)
                if segs[j].collective is None:
                    stack.extend(segs[j].successors)
            return seen

        def reads(j: int) -> set[int]:
            seg = segs[j]
            ins = [*seg.instrs, *(x for x in (seg.term, seg.collective) if x is not None)]
            return {r.id for i in ins for r in i.srcs if isinstance(r, Reg)}

        def writes(j: int) -> set[int]:
            return {d.id for i in segs[j].instrs for d in i.dsts}

        regions = {0: region(0), **{s.index: region(s.index) for s in segs if s.is_resume}}
        self.saves: dict[int, set[int]] = {}
        for seg in segs:
            if seg.collective is None:
                continue
            dst = seg.collective.dsts[0].id if seg.collective.dsts else None
            live = segs[seg.resume].live_in - {dst} - self.resident - self.uniform
            if seg.index in regions[0]:
                self.saves[seg.index] = live     # from the thread's start: whatever it holds
                continue
            wrote = set().union(*(writes(j) for k, r in regions.items() if k and seg.index in r
                                  for j in r))
            self.saves[seg.index] = live & wrote
        self.loads: dict[int, set[int]] = {}
        for k, r in regions.items():
            if k:
                needed = set().union(*(reads(j) for j in r),
                                     *(self.saves[j] for j in r if j in self.saves))
                self.loads[k] = (segs[k].live_in - self.uniform) & needed

    # --- the function ---------------------------------------------------------------------
    def run(self) -> Generated:
        body = Source()
        body.indent()
        self._prologue(body)
        if self.lockstep:
            self._lockstep_blocks(body)
        else:
            self._plain_blocks(body)
        if self.logs:     # every exit hands the log back
            body.lines = [x + " lad, lva, lky, ln" if x.strip() == "return" else x
                          for x in body.lines]
            body.depth = 1
            body.add("return lad, lva, lky, ln")
        params = ["cta_begin", "cta_end", "geom", "shapes", "err", "abort", "err_state"]
        if self.logs:
            params += ["lad", "lva", "lky"]
        used = self._arrays_used(body)
        params += [f"g{k}" for k in range(len(self.arrays)) if used[k]]
        params += [f"p{k}" for k in range(len(self.scalars))]
        if self.pointers:
            params += self.pointers.params()
        head = ["# generated by simt's fast engine from the MIR of kernel "
                f"{self.fn.name!r}"
                f"{' (plain atomics: for one OS thread)' if self.plain_atomics else ''}; do not edit",
                "import warnings",
                "import numpy as np",
                "from numba import njit, objmode",
                "from numba.core.errors import NumbaWarning",
                'warnings.filterwarnings("ignore", ".*Code running in object mode", NumbaWarning)',
                f"from simt.sim.fast.runtime import ({', '.join(RUNTIME_NAMES)})",
                f"from simt.sim import mathlib as {MATH_MODULE}  # {mathlib.VERSION}",
                "", *self.consts.lines, *collectives.point_tables(self.layout),
                *(self.pointers.module_lines() if self.pointers else ()), "",
                "",
                '@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)',
                f"def run_blocks({', '.join(params)}):"]
        source = "\n".join(head + body.lines) + "\n"
        rows = sum(1 for i in self.instrs if self.deferral.deferred(i))
        latches = frozenset(b.label for b in self.fn.blocks if id(b.term) in self.hoisting.latches)
        return Generated(source, self.instrs, self.layout, self.arrays, self.scalars,
                         has_global_atomics(self.fn), self.plain_atomics, self.logs,
                         self.lockstep, rows, atomic_log.parallel_safe(self.fn), self.pointers,
                         latches, tuple(used))

    def _arrays_used(self, body: Source) -> list[bool]:
        """Per array parameter, whether the code reads it (its elements, length or shape);
        the prologue lines of those it does not read are dropped from ``body``, and so is
        the parameter (a byte-addressed kernel reads its arrays through typed views of their
        bytes: numba unboxes every argument of every call, so fewer is cheaper)."""
        own = re.compile(r"\s*(g(\d+)_n = g\2\.size|shape(\d+)_\d+ = shapes\[\d+\])$")
        rest = "\n".join(x for x in body.lines if not own.match(x))
        used = [re.search(rf"\b(g{k}|g{k}_n|shape{k}_\d+)\b", rest) is not None
                for k in range(len(self.arrays))]
        body.lines = [x for x in body.lines
                      if not ((m := own.match(x)) and not used[int(m.group(2) or m.group(3))])]
        return used

    def _prologue(self, src: Source) -> None:
        for k, name in enumerate(GEOMETRY):
            src.add(f"{name} = geom[{k}]")
        for k, p in enumerate(self.arrays):
            src.add(f"g{k}_n = g{k}.size")
            off = self.shape_offsets[id(p.mem)]
            for d in range(p.mem.ndim):
                src.add(f"shape{k}_{d} = shapes[{off + d}]")
        for k, mem in enumerate(self.fn.shared):
            src.add(f"s{k} = np.zeros({mem.size}, {CAST[mem.elem]})")
        src.add("T = bx * by * bz", "t = 0")
        if self.pointers:
            src.add(*self.pointers.prologue())
        if self.logs:     # the caller's buffers: a row per thread and atomic (loops grow them)
            src.add("lcap = lad.size", "ln = 0")

    def _block_header(self, src: Source) -> None:
        src.add("for cta in range(cta_begin, cta_end):")
        src.indent()
        src.add("if abort[0] != 0:", "    return")
        for k, _ in enumerate(self.fn.shared):
            src.add(f"s{k}[:] = 0")
        if self.pointers:
            src.add(*self.pointers.block_reset())
        src.add("ctaid_x = cta % gx", "ctaid_y = (cta // gx) % gy", "ctaid_z = cta // (gx * gy)")
        src.add(*self.hoisting.lines)
        if self.hoisting.latches and not self.lockstep and self._all_once():
            src.add(f"loops_once = loops_once and max_steps > {len(self.fn.blocks)}")

    def branch_condition(self, term: Instr) -> str:
        """A CBR's condition; a guard that no thread of a ``fast`` block takes is skipped
        there (bounds.py)."""
        cond = self.writer.val(term.srcs[0])
        back_if_true = self.hoisting.latches.get(id(term))
        if back_if_true is not None and not self.lockstep:     # a loop's exit (bounds.py)
            return f"(not loops_once and {cond})" if back_if_true else f"(loops_once or {cond})"
        ends_if_true = self.hoisting.guards.get(id(term))
        if ends_if_true is None or self.unchecked is False:
            return cond
        if self.unchecked:
            return "False" if ends_if_true else "True"
        return f"(slow and {cond})" if ends_if_true else f"(not slow or {cond})"

    def _thread_loops(self, src: Source) -> None:
        src.add("t = 0", "for tid_z in range(bz):", "    for tid_y in range(by):",
                "        for tid_x in range(bx):")
        src.indent(3)

    def _register_init(self, src: Source) -> None:
        """Zero the registers some path may read before writing (the precise engine's
        register file starts at zero); the others get their type from their first write."""
        params = {p.reg.id for p in self.scalars}
        for rid in sorted(self.layout.segments[0].live_in - params):
            r = self.layout.regs[rid]
            src.add(f"{reg_name(r)} = {self.consts.get(False if r.type is Scalar.BOOL else 0, r.type)}")

    def _param_init(self, src: Source) -> None:
        for k, p in enumerate(self.scalars):
            src.add(f"{reg_name(p.reg)} = {CAST[p.reg.type]}(p{k})")

    def _plain_blocks(self, src: Source) -> None:
        flat = self.fn.launch.block_ndim == 1      # blocks are (bx, 1, 1): one thread loop
        copies = [True, False] if self._unswitch() else [None]
        depth = src.depth + (2 if flat else 4) + (len(copies) > 1)
        bodies = []
        for unchecked in copies:
            self.writer.unchecked = self.unchecked = unchecked
            bodies.append(self._structured_body(depth))
            if bodies[-1] is None:
                break
        self.writer.unchecked = self.unchecked = None
        self._block_header(src)
        start, depth = len(src.lines), src.depth
        self._thread_code(src, bodies, flat)
        once = bool(self.hoisting.latches) and bodies[-1] is not None
        if len(bodies) == 1 and self.hoisting.lines and (self.hoisting.pointers or once):
            # Byte-addressed accesses take their shortcut or the general path in the loop,
            # which LLVM does not unswitch on ``slow`` (neither side leaves the loop): the
            # threads' loop is written twice, the copy for ``fast`` blocks with ``slow``
            # False, where the checks fold away and the loop can vectorise. Where every
            # thread's loops run once (``loops_once``), a third copy has no loops left.
            loop = src.lines[start:]
            pad = "    " * depth

            def copy(flags: dict[str, str]) -> list[str]:
                return _copy(loop, pad, flags)

            copies = []
            if once:
                copies.append(("fast and loops_once", copy({"slow": "False", "loops_once": "True"})))
            if self.hoisting.pointers:
                copies.append(("fast", copy({"slow": "False", "loops_once": "False"})))
            src.lines[start:] = [
                *(line for k, (cond, lines) in enumerate(copies)
                  for line in (pad + f"{'if' if k == 0 else 'elif'} {cond}:", *lines)),
                pad + "else:", *copy({"loops_once": "False"})]

    def _thread_code(self, src: Source, bodies: list, flat: bool) -> None:
        if bodies[-1] is not None:      # t counts up first: a RET is ``continue`` of the thread loop
            for k, body in enumerate(bodies):
                if len(bodies) > 1:
                    src.add("if fast:" if k == 0 else "else:")
                    src.indent()
                self._structured_thread_loop(src, flat, body)
                if len(bodies) > 1:
                    src.dedent()
            return
        self._thread_loops(src)
        self._register_init(src)
        self._param_init(src)
        src.add("steps = 0", "bb = 0")
        self._dispatch(src)
        src.add("t += 1")

    def _unswitch(self) -> bool:
        """Whether to write the thread loop twice, one copy per value of ``fast``. LLVM
        unswitches a small loop on the flag itself but not a large one, where every hoisted
        access then still tests ``slow`` (a compare, an or and a branch each): two copies make
        straight-line kernels with many accesses 1.35-1.46x faster. Where the thread's code
        has a loop, its time goes to the loop, whose accesses are not hoisted (their index
        changes in the loop), and a second copy measured no faster but compiles longer."""
        return (UNSWITCH and bool(self.hoisting.lines) and len(self.hoisting.accesses) > SMALL_BODY
                and not cfg.back_edges(self.fn))

    def _structured_thread_loop(self, src: Source, flat: bool, body: list[str]) -> None:
        depth = src.depth
        if flat:
            src.add("t = -1", "tid_z = 0", "tid_y = 0", "for tid_x in range(bx):",
                    "    t += 1")
            src.indent(1)
        else:
            src.add("t = -1", "for tid_z in range(bz):", "    for tid_y in range(by):",
                    "        for tid_x in range(bx):", "            t += 1")
            src.indent(3)
        self._register_init(src)
        self._param_init(src)
        src.add("steps = 0")
        if self.structured_returns:
            src.add("done = False")
        src.lines.extend(body)
        src.depth = depth

    def _structured_body(self, depth: int) -> list[str] | None:
        """The thread's code as if/while statements, or None where the flow needs dispatch."""
        def write_block(out: Source, seg: Segment) -> None:
            if seg.mir_blocks:
                out.add(f"steps += {seg.mir_blocks}")
            for ins in seg.instrs:
                out.add(*self.writer.write(ins))

        try:
            writer = StructuredWriter(self.layout, write_block, self.fail, self.branch_condition,
                                      "(not loops_once and steps > max_steps)" if self._all_once()
                                      else "steps > max_steps")
            out = Source()
            out.indent(depth)
            writer.write(out)
        except Unstructured:
            return None
        self.structured_returns = writer.any_loop_returns
        return out.lines

    def _all_once(self) -> bool:
        """Whether every loop's latch is one ``loops_once`` covers: where it is set, no
        thread repeats a block, so none can exceed the step limit, which the block's test
        requires to be above the number of blocks (``_block_header``); the copy for
        ``loops_once`` then has no step test left and its threads' loop can vectorise."""
        back = {e[0] for e in cfg.back_edges(self.fn)}
        ends = {b.label for b in self.fn.blocks if id(b.term) in self.hoisting.latches}
        return bool(back) and back <= ends

    def _lockstep_blocks(self, src: Source) -> None:
        collectives.allocate(src, self.layout, self.slot_counts)
        self._block_header(src)
        collectives.reset_block(src, self.layout, self.slot_counts)
        start, depth = len(src.lines), src.depth
        src.add("while True:")
        src.indent()
        self._thread_loops(src)
        src.add(f"if status[t] == {RUNNABLE}:")
        src.indent()
        self._register_init(src)
        src.add("steps = tsteps[t]", "mx = maxblk[t]", "bb = resume[t]")
        self._dispatch(src)
        src.add("tsteps[t] = steps", "maxblk[t] = mx")
        src.dedent()
        src.add("t += 1")
        src.dedent(3)
        collectives.resolve(src, self.layout, self.slots, self.fail)
        if self.pointers and self.hoisting.pointers:
            # As _plain_blocks does: byte-addressed accesses keep their general path beside
            # the shortcut, which numba does not unswitch on ``slow``; a ``fast`` block runs a
            # copy of the threads' rounds with ``slow`` False, the checks and general paths gone.
            pad = "    " * depth
            rounds = src.lines[start:]
            src.lines[start:] = [pad + "if fast:", *_copy(rounds, pad, {"slow": "False"}), pad + "else:",
                                 *_copy(rounds, pad, {})]

    # --- a thread's control flow ---------------------------------------------------------
    def _dispatch(self, src: Source) -> None:
        segments = self.layout.segments
        preds = predecessor_counts(segments)
        mergeable = [preds[s.index] == 1 and not s.is_resume and s.index != 0 for s in segments]
        inlined: set[int] = set()
        for s in segments:   # segments reached only by one BR get written into that BR's place
            if s.term is not None and s.term.op is Op.BR and s.collective is None:
                j = s.successors[0]
                if mergeable[j] and j != s.index:
                    inlined.add(j)
        src.add("while True:")
        src.indent()
        src.add("if steps > max_steps:")
        src.indent()
        src.add(*self.fail(ERR_STEPS, None, "bb"))
        src.dedent()
        first = True
        if self.lockstep:
            src.add("if bb == -1:")
            src.indent()
            self._param_init(src)
            src.add("bb = 0")
            src.dedent()
            first = False
        for seg in segments:
            if seg.index in inlined:
                continue
            src.add(f"{'if' if first else 'elif'} bb == {seg.index}:")
            first = False
            src.indent()
            if seg.is_resume:
                for rid in sorted(self.loads[seg.index]):
                    t, slot = self.slots[rid]
                    src.add(f"r{rid} = R_{t.short}[{slot}, t]")
            self._segment(src, seg, inlined, set())
            src.dedent()
        src.dedent()

    def _segment(self, src: Source, seg: Segment, inlined: set[int], seen: set[int]) -> None:
        seen.add(seg.index)
        if seg.mir_blocks:
            src.add(f"steps += {seg.mir_blocks}")
            if self.lockstep:     # the furthest block reached: see collectives._resolve_barrier
                src.add(f"if mx < {seg.block_index}:", f"    mx = {seg.block_index}")
        for ins in seg.instrs:
            src.add(*self.writer.write(ins))
            if self.lockstep:               # a resident register's slot follows its value
                for d in ins.dsts:
                    if d.id in self.resident:
                        t, slot = self.slots[d.id]
                        src.add(f"R_{t.short}[{slot}, t] = r{d.id}")
        if seg.collective is not None:
            src.add(*collectives.suspend(self.layout, seg, self.slots, self.writer.val,
                                         self.saves[seg.index]))
            src.add("break")
            return
        term = seg.term
        if term.op is Op.RET:
            if self.lockstep:
                src.add(f"status[t] = {EXITED}")
            src.add("break")
        elif term.op is Op.CBR:
            t, f = seg.successors
            src.add(f"bb = {t} if {self.branch_condition(term)} else {f}")
        else:
            j = seg.successors[0]
            if j in inlined and j not in seen:
                self._segment(src, self.layout.segments[j], inlined, seen)
            else:
                src.add(f"bb = {j}")


_PURE = BINARY | UNARY | COMPARE | {Op.MOV, Op.BITCAST, Op.CVT, Op.SELECT, Op.FMA, Op.ADDR, Op.DIM}
_BLOCK_SREGS = {SReg.NTID_X, SReg.NTID_Y, SReg.NTID_Z, SReg.CTAID_X, SReg.CTAID_Y, SReg.CTAID_Z,
                SReg.NCTAID_X, SReg.NCTAID_Y, SReg.NCTAID_Z, SReg.DIM_0, SReg.DIM_1, SReg.DIM_2,
                SReg.DIM_3}


def _uniform(fn: Function, read_first: set[int]) -> set[int]:
    """Registers that hold one value in every thread of a block: written by one instruction
    (never read before it), a pure function of immediates, parameters, the block's special
    registers and arrays' addresses and extents. The generated code keeps them in variables
    all threads share: a thread resuming after a collective finds the value it wrote (every
    thread writes the same), so they need no slot."""
    defs: dict[int, list[Instr]] = {}
    for ins in fn.instructions():
        for d in ins.dsts:
            defs.setdefault(d.id, []).append(ins)
    params = {p.reg.id for p in fn.params if isinstance(p, ScalarParam) and p.reg.id not in defs}
    uniform: set[int] = set()
    changed = True
    while changed:
        changed = False
        for rid, writers in defs.items():
            if rid in uniform or len(writers) != 1 or rid in read_first:
                continue
            ins = writers[0]
            if ins.op is Op.SREG:
                ok = ins.arg in _BLOCK_SREGS
            else:
                ok = ins.op in _PURE and len(ins.dsts) == 1 and all(
                    not isinstance(x, Reg) or x.id in uniform or x.id in params for x in ins.srcs)
            if ok:
                uniform.add(rid)
                changed = True
    return uniform


def _loop_blocks(fn: Function) -> set[str]:
    """Labels of the blocks inside some natural loop."""
    preds = cfg.predecessors(fn)
    inside: set[str] = set()
    for latch, header in cfg.back_edges(fn):
        body, stack = {header}, [latch]
        while stack:
            b = stack.pop()
            if b not in body:
                body.add(b)
                stack.extend(preds.get(b, ()))
        inside |= body
    return inside


def _copy(lines: list[str], pad: str, flags: dict[str, str]) -> list[str]:
    """``lines`` (indented at least ``pad``) one level deeper, each flag (a variable) replaced
    by its value; with ``slow`` False, without the general paths that leaves unreachable."""
    out = []
    for x in lines:
        for name, value in flags.items():
            x = re.sub(rf"\b{name}\b", value, x)
        out.append(pad + "    " + x[len(pad):])
    return _proven(out) if flags.get("slow") == "False" else out


def _proven(lines: list[str]) -> list[str]:
    """The threads' loop of a ``fast`` block without the general paths of byte-addressed
    accesses whose shortcut (``if not slow:``, pointers.py) is always taken there: less for
    numba to compile."""
    out: list[str] = []
    shortcut = cut = None              # indents of the shortcut's ``if``, of a branch cut
    for line in lines:
        indent, text = len(line) - len(line.lstrip()), line.strip()
        other_branch = text.startswith("elif ") or text == "else:"
        if cut is not None:
            if indent > cut or (indent == cut and other_branch):
                continue
            cut = None
        if shortcut is not None and indent <= shortcut:
            if indent == shortcut and other_branch:
                cut = indent
                continue
            shortcut = None
        out.append(line)
        if text == "if not False:":
            shortcut = indent
    return out

