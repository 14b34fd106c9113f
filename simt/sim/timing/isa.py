"""What each MIR instruction costs the machine: its kind, pipe, issue slots and latency.

A MIR instruction stands for the SASS instructions ptxas makes of it. Their number (issue
slots), the pipe they use and their dependent latency come from the architecture file's
``timing.ops`` table, measured per op by the op probes (benchmarks/timing/probes.py) through
simt's own PTX; ops no probe covers fall back to their class (``timing.ops["*.<class>"]``).
"""
from __future__ import annotations

import math

from dataclasses import dataclass

import numpy as np

from ...ir.mir import Imm, Op, Reg, Space, SReg

# numba-constants: the machine compiles these in (numba_cache.py keys its caches on this file)

# instruction kinds the machine distinguishes
ALU, BRANCH, BARRIER, SHARED_LD, SHARED_ST, SHARED_ATOM, GLOBAL_LD, GLOBAL_ST, GLOBAL_ATOM, FREE, \
    EXIT = range(11)
# pipes (per scheduler), in the order of ``timing.pipes`` in the architecture file
PIPES = ("fma", "alu", "imad", "fp64", "mufu", "shfl", "adu", "branch")
NO_PIPE = len(PIPES)
# pipes an architecture file may leave out: one without the ADU's interval names no opcode for it
# (simt.arch.validate), so no work takes the pipe (files simt calibrate wrote before it had one)
OPTIONAL_PIPES = ("adu",)
# pipes that take their work from a queue (an LDC is one SASS instruction among a block's others):
# all of an instruction's work on them past its own slots is stretch (Tables.pipe_hold)
QUEUED_PIPES = ("adu",)


def pipe_intervals(timing: dict) -> np.ndarray:
    """Per pipe of PIPES, cycles per warp instruction per scheduler (``timing.pipe_interval``);
    an optional pipe the file leaves out takes no work and stands at 1."""
    given = timing["pipe_interval"]
    return np.array([float(given[p]) if p in given or p not in OPTIONAL_PIPES else 1.0 for p in PIPES],
                    np.float64)

_UNIFORM_SREGS = {SReg.NTID_X, SReg.NTID_Y, SReg.NTID_Z, SReg.NCTAID_X, SReg.NCTAID_Y,
                  SReg.NCTAID_Z, SReg.DIM_0, SReg.DIM_1, SReg.DIM_2, SReg.DIM_3}


def type_class(ins) -> str:
    """f32, f64, i32, i64 or b (bool) of the values an instruction works on.

    float16 and bfloat16 count as f32: the MIR computes them in float32, so what they add
    is their conversions, separate CVT instructions costed like f32 ops. 8- and 16-bit
    integers count as i32, as the GPU computes them in 32-bit registers. Ops no probe
    measured (PRINT, for one) take their class's entry or the generic one."""
    t = None
    for x in ins.srcs:
        t = getattr(x, "type", None)
        if t is not None:
            break
    if t is None and ins.dsts:
        t = ins.dsts[0].type
    if t is None:
        return "i32"
    if t.is_float:
        return "f64" if t.bits == 64 else "f32"
    if t.bits == 64:
        return "i64"
    return "b" if t.bits == 1 else "i32"


def op_key(ins) -> str:
    """The key of ``ins`` in the ops table: 'DIV.f32', 'CVT.f32>i32', 'REM.i32.pow2', 'DIV.u64',
    'SHL.i32.imm'... (a key the table lacks falls back to the key without its last part)"""
    if ins.op is Op.CVT:
        return f"CVT.{type_class(ins)}>{_dst_class(ins)}"
    key = f"{ins.op.name}.{type_class(ins)}"
    if ins.op in (Op.DIV, Op.REM) and key.endswith("i64") and not ins.dsts[0].type.is_signed:
        key = key[:-3] + "u64"        # 64-bit division is a subroutine, the unsigned one shorter
    if ins.op is Op.SHL and key == "SHL.i32" and isinstance(ins.srcs[1], Imm):
        key += ".imm"                 # by a constant: an IMAD.SHL on sm_90 (the FMA pipe), not an SHF
    if ins.op in (Op.DIV, Op.REM) and key.endswith(("i32", "i64", "u64")) and isinstance(ins.srcs[1], Imm):
        d = abs(int(ins.srcs[1].value))
        key += ".pow2" if d and d & (d - 1) == 0 else ".const"
    return key


def _dst_class(ins) -> str:
    t = ins.dsts[0].type
    if t.is_float:
        return "f64" if t.bits == 64 else "f32"
    return "i64" if t.bits == 64 else ("b" if t.bits == 1 else "i32")


@dataclass
class Cost:
    kind: int
    pipe: int
    sass: float          # issue slots
    latency: float       # cycles until the result can be used (non-memory kinds)
    units: float = math.nan     # warp instructions it puts on its pipe (NaN: as many as its slots)
    alt: int = -1               # the other pipe it may take (an entry "alu|imad"), or -1


def cost(ins, ops: dict, memory_slots: float = 1.0) -> Cost:
    """The cost of one MIR instruction under the ops table ``ops`` (key -> [sass, latency, pipe]
    or [sass, latency, pipe, units]: an op whose slots are mostly other pipes' names the warp
    instructions it puts on ``pipe``, e.g. a float-to-int conversion, one F2I on the XU pipe
    among its slots); a memory access takes ``memory_slots`` issue slots (the access and its address arithmetic)."""
    op = ins.op
    if op in (Op.LD, Op.ST, Op.ATOM):
        mem = ins.arg.mem if op is Op.ATOM else ins.arg
        shared = mem.space is Space.SHARED
        kind = {Op.LD: (GLOBAL_LD, SHARED_LD), Op.ST: (GLOBAL_ST, SHARED_ST),
                Op.ATOM: (GLOBAL_ATOM, SHARED_ATOM)}[op][shared]
        return Cost(kind, NO_PIPE, memory_slots, 0.0)
    if op in (Op.BAR, Op.BAR_AND):
        return Cost(BARRIER, NO_PIPE, 1.0, 0.0)
    if op in (Op.MOV, Op.DIM) or (op is Op.SREG and ins.arg in _UNIFORM_SREGS):
        return Cost(FREE, NO_PIPE, 0.0, 0.0)      # register copies and constant-bank reads
    if op is Op.RET:
        return Cost(EXIT, PIPES.index("branch"), 1.0, 0.0)
    if op in (Op.BR, Op.CBR):
        return Cost(BRANCH, PIPES.index("branch"), 1.0, 0.0)
    key = op_key(ins)
    entry = (ops.get(key) or ops.get(key.rsplit(".", 1)[0] if key.count(".") > 1 else key)
             or ops.get(f"{op.name}.*") or ops.get(f"*.{type_class(ins)}") or ops["*.*"])
    sass, latency, pipe, *units = entry
    first, _, other = pipe.partition("|")
    return Cost(ALU, PIPES.index(first), float(sass), float(latency), float(units[0]) if units else math.nan,
                PIPES.index(other) if other else -1)


def op_hold(ins, holds: dict, c: Cost) -> float:
    """Cycles a long op keeps its warp from issuing its next instruction (the timing section's
    ``op_hold``, benchmarks/timing/op_overlap.py): ptxas's code for it branches (a slow path
    behind a call, a range reduction), so neither the warp's later instructions nor another
    chain's move into it; 0 where the op issues like one long instruction, or holds the warp no
    longer than its own issue slots. Keys match exactly: a 64-bit division by a power of two is
    a shift, not the subroutine a ``DIV.i64`` calls. Only arithmetic (``ALU`` kind) is held."""
    h = holds.get(op_key(ins)) if c.kind == ALU else None
    return float(h) if h is not None and h > c.sass else 0.0


def balance(pipe: list, alt: list, busy: list, interval) -> None:
    """Put each instruction that may take either of two pipes (an add ptxas makes an IADD3, an
    ALU instruction, or a VIADD or IMAD.IADD, the FMA pipe's) on the one its block has loaded less
    so far, in program order, as ptxas balances them (the H200: benchmarks/timing/pipe_mix.cu and
    the pipe profile of the blind sets' issue-bound launches). ``busy``: each instruction's
    warp instructions on its pipe; lists of one block, changed in place."""
    load = {}
    for k, p in enumerate(pipe):
        if alt[k] < 0 and p < len(interval):
            load[p] = load.get(p, 0.0) + busy[k] * interval[p]
    for k, a in enumerate(alt):
        if a < 0:
            continue
        p = pipe[k]
        if load.get(a, 0.0) + busy[k] * interval[a] < load.get(p, 0.0) + busy[k] * interval[p]:
            pipe[k] = p = a
        load[p] = load.get(p, 0.0) + busy[k] * interval[p]


@dataclass
class Tables:
    """Per static instruction (blocks concatenated in order), the arrays the machine reads."""
    kind: np.ndarray
    pipe: np.ndarray
    sass: np.ndarray
    latency: np.ndarray
    branch: np.ndarray          # cycles a conditional branch holds its warp until it resolves,
                                # or a long op (op_hold) until its next instruction may issue
    src_ptr: np.ndarray
    src: np.ndarray
    dst_ptr: np.ndarray
    dst: np.ndarray
    mem_slot: np.ndarray        # index among its block's memory instructions, or -1
    atomic: np.ndarray          # ATOM_INT, ATOM_FLOAT (slower at the L2, CAS loops in shared)
                                # or ATOM_WARP (one lane's atomic a warp: ptxas aggregated it)
    block_first: np.ndarray     # first static index of each block
    block_len: np.ndarray
    units: np.ndarray | None = None   # warp instructions each puts on its pipe (NaN: its slots)

    def pipe_busy(self, interval: np.ndarray) -> np.ndarray:
        """Cycles each instruction holds its pipe of a scheduler: its units (or, where it names
        none, its issue slots, as sass_slots.py scaled them) times the pipe's interval."""
        units = self.sass if self.units is None else np.where(np.isnan(self.units), self.sass, self.units)
        has = (self.pipe >= 0) & (self.pipe < interval.size)
        return np.where(has, units * interval[np.where(has, self.pipe, 0)], 0.0)

    def pipe_hold(self, interval: np.ndarray, stretch: bool = True) -> np.ndarray:
        """Per instruction (cycles it holds its pipe, pipe_busy; the part of them past its
        own issue slots and one interval, which other warps' instructions may go between:
        scheduling.hold_pipe). ``stretch`` off: none may."""
        busy = self.pipe_busy(interval)         # 0 where an instruction takes no pipe: no stretch
        own = np.maximum(self.sass, interval[np.clip(self.pipe, 0, interval.size - 1)])
        own = np.where(np.isin(self.pipe, [PIPES.index(p) for p in QUEUED_PIPES]), self.sass, own)
        spread = np.maximum(busy - own, 0.0) if stretch else np.zeros_like(busy)
        return np.ascontiguousarray(np.stack([busy, spread], axis=1))


# ops ptxas computes at most once per block for the same operands, and folds when constant
_PURE = {Op.CVT, Op.SELECT, Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.MIN, Op.MAX, Op.POW,
         Op.ATAN2, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR, Op.NEG, Op.NOT, Op.ABS, Op.SQRT,
         Op.RSQRT, Op.SIN, Op.COS, Op.TAN, Op.ASIN, Op.ACOS, Op.ATAN, Op.SINH, Op.COSH, Op.TANH,
         Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.LOG10, Op.FLOOR, Op.CEIL, Op.ROUND, Op.TRUNC,
         Op.RINT, Op.CBRT, Op.ERF, Op.ERFC, Op.ERFINV, Op.ERFCINV, Op.COPYSIGN, Op.POPC,
         Op.ISNAN, Op.ISINF, Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.MOV}


def _compiled_away(instrs, index):
    """Per instruction of one block: None, or the registers it really reads when the GPU's
    compiler would not issue it: () for a value computed from constants only (folded), or
    (r,) for a repeat of an earlier computation whose result is still in register r."""
    const: set[int] = set()               # registers holding a constant here
    seen: dict[tuple, int] = {}           # (op, arg, operand values) -> register holding it
    version: dict[int, int] = {}          # writes so far per register
    out = []

    def value(x):
        if isinstance(x, Imm):
            return ("imm", x.value, x.type)
        r = index[x.id]
        return ("r", r, version.get(r, 0))
    for ins in instrs:
        result = None
        if ins.op in _PURE and len(ins.dsts) == 1:
            regs = [index[x.id] for x in ins.srcs if isinstance(x, Reg)]
            if all(r in const for r in regs):
                result = ()
            elif ins.op is not Op.MOV:
                key = (ins.op, ins.arg, ins.dsts[0].type, tuple(value(x) for x in ins.srcs))
                held = seen.get(key)
                if held is not None and version.get(held[0], 0) == held[1]:
                    result = (held[0],)
        for d in ins.dsts:
            r = index[d.id]
            version[r] = version.get(r, 0) + 1
            const.discard(r)
            if result == ():
                const.add(r)
        if ins.op in _PURE and ins.op is not Op.MOV and len(ins.dsts) == 1 and result is None:
            r = index[ins.dsts[0].id]
            seen[(ins.op, ins.arg, ins.dsts[0].type, tuple(value(x) if not (isinstance(x, Reg) and index[x.id] == r)
                                                           else ("r", r, version[r] - 1) for x in ins.srcs))] = (r, version[r])
        out.append(result)
    return out


_LOGIC = {Op.AND, Op.OR, Op.XOR, Op.NOT}


def _rotate_shifts(ins, defs: dict, index, reads: dict):
    """Positions of the two shifts of a rotate, ``(x << s) | (x >> (32 - s))``, that ``ins``
    (an OR) completes, each read only there; or None. ptxas makes the rotate one funnel shift
    (SHF.L.W): the OR stands for it, the shifts are folded in."""
    if not all(isinstance(x, Reg) for x in ins.srcs):
        return None
    regs = [index[x.id] for x in ins.srcs]
    parts = [defs.get(r) for r in regs]
    if any(p is None or reads.get(r, 0) != 1 for p, r in zip(parts, regs)):
        return None
    shifts = [p[1] for p in parts]
    if {x.op for x in shifts} != {Op.SHL, Op.SHR} or not all(isinstance(x.srcs[0], Reg) for x in shifts):
        return None
    if index[shifts[0].srcs[0].id] != index[shifts[1].srcs[0].id]:
        return None
    return [p[0] for p in parts]


def _logic_fused(instrs, index, reads: dict) -> set[int]:
    """Positions in one block of 32-bit logic ops (and, or, xor, not) that ptxas folds into a
    later one's LOP3: a LOP3 computes any function of three operands, so an op whose result
    only one later logic op of the block reads (``reads``: how many instructions of the program
    read each register) joins it while their operands together number at most three
    (``(b & c) | (~b & d)``: one LOP3, not four instructions). Greedy, in program order. And
    the two shifts of a rotate (``_rotate_shifts``)."""
    leaves: dict[int, frozenset] = {}      # position -> the operands its fused tree reads
    defs: dict[int, tuple] = {}            # register -> (position, instruction) of its latest write
    fused: set[int] = set()

    def operand(x):
        return ("imm", x.value) if isinstance(x, Imm) else ("r", index[x.id])
    for pos, ins in enumerate(instrs):
        i32 = len(ins.dsts) == 1 and type_class(ins) == "i32"
        shifts = _rotate_shifts(ins, defs, index, reads) if i32 and ins.op is Op.OR else None
        if shifts is not None:
            fused.update(shifts)
        elif i32 and ins.op in _LOGIC:
            own = frozenset()
            joined = []
            for x in ins.srcs:
                at = defs[index[x.id]][0] if isinstance(x, Reg) and index[x.id] in defs else None
                if at in leaves and reads.get(index[x.id], 0) == 1 and at not in fused:
                    if len(own | leaves[at] | {operand(y) for y in ins.srcs if y is not x}) <= 3:
                        own = own | leaves[at]
                        joined.append(at)
                        continue
                own = own | {operand(x)}
            if len(own) <= 3:
                fused.update(joined)
                leaves[pos] = own
        for d in ins.dsts:
            defs[index[d.id]] = (pos, ins)
    return fused


def _loop_control(blk, b: int) -> set[int]:
    """Positions in a loop's back-edge block of its control: the branch, the compare that
    decides it and the counter's increment. ptxas unrolls such loops, so these cost only a
    fraction of an issue slot per iteration (``loop_control_factor``)."""
    term = blk.instrs[-1]
    if term.op is not Op.CBR or not any(t <= b for t in blk.targets):
        return set()
    out = {len(blk.instrs) - 1}
    cond = term.srcs[0]
    for k in range(len(blk.instrs) - 2, -1, -1):
        ins = blk.instrs[k]
        if cond in ins.dsts and ins.op in (Op.LT, Op.LE, Op.GT, Op.GE, Op.NE, Op.EQ):
            out.add(k)
            for j in range(k - 1, -1, -1):
                inc = blk.instrs[j]
                if (inc.op in (Op.ADD, Op.SUB) and inc.dsts and inc.dsts[0] in ins.srcs
                        and any(isinstance(x, Imm) for x in inc.srcs)):
                    out.add(j)
                    break
            break
    return out


# how a static instruction's atomics reach the L2 (Tables.atomic)
ATOM_INT, ATOM_FLOAT, ATOM_WARP = 0, 1, 2
# a global store's column of the same table: one ptxas put right behind the store before it
# (store_merge.py, store_runs.py): it merges with that store where both write the same lines,
# of a request of at most store_merge_lines lines (STORE_NEXT: nothing between the two) or
# store_merge_lines_near (STORE_NEAR: one instruction)
STORE_NEXT, STORE_NEAR = 3, 4
# the recorder's ``same`` of a shared load that a vector LDS before it loaded (ptxas merged
# the load of neighbouring iterations, or copies of an unrolled loop, into one 8- or 16-byte
# LDS: memstats.vector_marks); the vector's first part holds the vector's wavefronts there
VEC_REST = -1


def _atomic_kind(ins, aggregated) -> int:
    if ins.op is not Op.ATOM:
        return ATOM_INT
    if ins.arg.mem.elem.is_float:
        return ATOM_FLOAT
    if ins.arg.mem.space is Space.GLOBAL and ins.loc is not None and ins.loc.line in aggregated:
        return ATOM_WARP
    return ATOM_INT


def tables(prog, arch, fold: dict | None = None, aggregated: set | frozenset = frozenset()) -> Tables:
    """``fold``: ids of instructions ptxas folds in loops it unrolls completely -> how
    (folding.folded); ``aggregated``: source lines whose global integer atomics ptxas
    aggregates per warp (sass.warp_aggregated_lines)."""
    fold = fold or {}
    ops = arch.data["timing"]["ops"]
    loop_factor = float(arch.data["timing"]["loop_control_factor"])
    branch_cycles = float(arch.data["timing"]["branch_cycles"])
    memory_slots = float(arch.data["timing"]["memory_issue_slots"])
    interval = list(pipe_intervals(arch.data["timing"]))
    holds = arch.data["timing"].get("op_hold", {})
    kind, pipe, sass, lat, mem_slot, fatom, bpen, units = [], [], [], [], [], [], [], []
    src_ptr, src, dst_ptr, dst = [0], [], [0], []
    first, length = [], []
    index = prog.reg_index
    reads_of: dict[int, int] = {}          # register -> instructions of the program that read it
    for blk in prog.blocks:
        for ins in blk.instrs:
            for r in {index[x.id] for x in ins.srcs if isinstance(x, Reg)}:
                reads_of[r] = reads_of.get(r, 0) + 1
    for b, blk in enumerate(prog.blocks):
        first.append(len(kind))
        length.append(len(blk.instrs))
        slot = 0
        away = _compiled_away(blk.instrs, index)
        for pos in _logic_fused(blk.instrs, index, reads_of):
            if away[pos] is None:          # folded into a later LOP3: issues nothing, reads pass on
                away[pos] = tuple(index[x.id] for x in blk.instrs[pos].srcs if isinstance(x, Reg))
        control = _loop_control(blk, b)
        alt = []
        for pos, (ins, gone) in enumerate(zip(blk.instrs, away)):
            c = cost(ins, ops, memory_slots)
            if pos in control:
                c = Cost(c.kind, c.pipe, c.sass * loop_factor, c.latency, c.units * loop_factor, c.alt)
            reads = [index[s.id] for s in ins.srcs if isinstance(s, Reg)]
            if gone is not None or (ins.op is Op.BR and blk.targets == (b + 1,)):
                c = Cost(FREE, NO_PIPE, 0.0, 0.0)      # folded, repeated, or a fall-through jump
                reads = list(gone or ())
            elif fold.get(id(ins)) == "simple":        # one simple instruction (folding.py)
                simple = ops["*.*"]
                c = Cost(c.kind, PIPES.index(simple[2]), min(c.sass, float(simple[0])),
                         min(c.latency, float(simple[1])))
            elif id(ins) in fold:                      # not issued (folding.py)
                c = Cost(FREE, NO_PIPE, 0.0, 0.0)
                reads = reads if fold[id(ins)] == "offset" else []
            kind.append(c.kind)
            pipe.append(c.pipe)
            alt.append(c.alt)
            sass.append(c.sass)
            lat.append(c.latency)
            units.append(c.units)
            # a conditional branch waits to resolve; a counted loop's (unrolled by ptxas) rarely
            if ins.op is Op.CBR and fold.get(id(ins)) is None:
                bpen.append(branch_cycles * (loop_factor if pos in control else 1.0))
            else:
                bpen.append(op_hold(ins, holds, c))
            if ins.op in (Op.LD, Op.ST, Op.ATOM):
                mem_slot.append(slot)
                slot += 1
            else:
                mem_slot.append(-1)
            fatom.append(_atomic_kind(ins, aggregated))
            src.extend(reads)
            dst.extend(index[d.id] for d in ins.dsts)
            src_ptr.append(len(src))
            dst_ptr.append(len(dst))
        if any(a >= 0 for a in alt):
            at = first[-1]
            block_pipe = pipe[at:]
            balance(block_pipe, alt, [u if not math.isnan(u) else s_ for u, s_ in zip(units[at:], sass[at:])],
                    interval)
            pipe[at:] = block_pipe
    i8, i32, f64 = np.int8, np.int32, np.float64
    return Tables(np.array(kind, i8), np.array(pipe, i8), np.array(sass, f64), np.array(lat, f64),
                  np.array(bpen, f64), np.array(src_ptr, np.int64), np.array(src, i32), np.array(dst_ptr, np.int64),
                  np.array(dst, i32), np.array(mem_slot, i32), np.array(fatom, i8),
                  np.array(first, np.int64), np.array(length, np.int64), np.array(units, f64))
