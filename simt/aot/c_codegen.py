"""MIR -> one C translation unit that runs a whole launch on the calling thread, with the
fast engine's bits (simt/sim/fast/codegen.py is the model; its segments and atomic plan are
reused, not copied).

The unit exports ``simt_kernel_run(simt_cpu_launch *)``: blocks run one after another, and
inside a block the threads in linear order (x fastest), as the fast engine's one-thread
variant runs them. A thread is a ``for (;;) switch (bb)`` over its segments. Kernels with
barriers or warp intrinsics run each block in rounds: every runnable thread runs until it
suspends at a collective or exits, then the scheduler (the C spelling of
simt/sim/fast/collectives.py) resolves what can be resolved; registers of such kernels live
in a per-thread array, zeroed when the block starts.

Global atomics are plain read-modify-writes (one OS thread). Deferred float atomics
(simt/sim/atomic_log.py) are applied in the log's canonical order: without collectives that
is the order threads run in, so they apply at once; with collectives they are logged per
block and applied, stably sorted by thread, when the block ends.
"""
from __future__ import annotations

from pathlib import Path

from ..ir.mir import ArrayParam, Function, Instr, MemRef, Op, Reg, ScalarParam, ShflMode, Space, VoteMode
from ..ir.types import Scalar
from ..sim import atomic_log
from ..sim.fast.ops import ERR_BARRIER, ERR_STEPS, ERR_WARP_SYNC
from ..sim.fast.segments import Layout, Segment, build_layout
from .c_ops import CTYPE, COpWriter, math_constants, unsupported

RUNNABLE, WAITING, EXITED = 0, 1, 2
ABI_VERSION = 1
PRELUDE = Path(__file__).with_name("prelude.c")

# The launch record shared with simt/runtime/include/simt/runtime.h (keep the two equal).
LAUNCH_STRUCT = """typedef struct simt_cpu_launch {
    int64_t block[3], grid[3], dim[4], max_steps;
    void *const *data;        /* per parameter: the array's first scalar, or the scalar's value */
    const int64_t *sizes;     /* per parameter: the array's scalar count */
    const int64_t *shapes;    /* per parameter: 4 extents */
    int64_t err[8];           /* out: code, block, thread, instruction, values */
} simt_cpu_launch;
"""


class _Source:
    def __init__(self):
        self.lines: list[str] = []
        self.depth = 0

    def add(self, *lines: str) -> None:
        self.lines.extend("    " * self.depth + x for x in lines)


def generate(fn: Function) -> str:
    """The C source of ``fn``; CompileError naming what the C target cannot express."""
    return _Generator(fn).run()


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class _Generator:
    def __init__(self, fn: Function):
        if fn.precise_only():
            raise unsupported("byte-addressed memory, BITCAST and FMA (kernels imported from PTX)")
        if fn.local:
            raise unsupported("per-thread local arrays")
        self.fn = fn
        self.layout: Layout = build_layout(fn)
        self.lockstep = self.layout.has_collectives
        self.instrs = list(fn.instructions())
        self.instr_id = {id(ins): k for k, ins in enumerate(self.instrs)}
        self.params = fn.params
        self.names: dict[int, tuple[str, str]] = {}
        self.dims: dict[int, list[str]] = {}
        for k, p in enumerate(fn.params):
            if isinstance(p, ArrayParam):
                self.names[id(p.mem)] = (f"g{k}", f"g{k}_n")
                self.dims[id(p.mem)] = [f"shape{k}_{d}" for d in range(p.mem.ndim)]
        for k, mem in enumerate(fn.shared):
            if mem.space is not Space.SHARED:
                raise unsupported(f"arrays in {mem.space.value} space")
            self.names[id(mem)] = (f"s{k}", str(mem.size))
            self.dims[id(mem)] = [str(x) for x in mem.shape]
        self.deferral = atomic_log.plan(fn)
        self.logs = self.lockstep and bool(self.deferral.instrs)
        self.writer = COpWriter(self.reg, self.memory, self.dim_of, self.fail,
                                self.log_atomic if self.logs else None)

    # --- hooks --------------------------------------------------------------------------
    def reg(self, r: Reg) -> str:
        return f"RG[t].r{r.id}" if self.lockstep else f"r{r.id}"

    def _find(self, mem: MemRef) -> int:
        if id(mem) in self.names:
            return id(mem)
        for p in self.params:
            if isinstance(p, ArrayParam) and p.mem.name == mem.name and p.mem.space is mem.space:
                return id(p.mem)
        for other in self.fn.shared:
            if other.name == mem.name and other.space is mem.space:
                return id(other)
        raise unsupported(f"the array {mem.name!r} in {mem.space.value} space")

    def memory(self, mem: MemRef) -> tuple[str, str]:
        if mem.space not in (Space.GLOBAL, Space.SHARED):
            raise unsupported(f"arrays in {mem.space.value} space")
        return self.names[self._find(mem)]

    def dim_of(self, mem: MemRef, dim: int) -> str:
        return self.dims[self._find(mem)][dim]

    def fail(self, code: int, ins: Instr | None, *values: str) -> str:
        ident = self.instr_id[id(ins)] if ins is not None else -1
        vals = [f"(int64_t)({v})" for v in values] + ["0"] * (3 - len(values))
        return (f"SIMT_FAIL({code}, {ident}, {vals[0]}, {vals[1]}, {vals[2]});")

    def log_atomic(self, ins: Instr, ix: str, v: str) -> list[str] | None:
        if not self.deferral.deferred(ins):
            return None
        from ..ir.mir import AtomOp
        k = [p.name for p in self.params if isinstance(p, ArrayParam)].index(ins.arg.mem.name)
        value = f"-(double)({v})" if ins.arg.op is AtomOp.SUB else f"(double)({v})"
        return ["if (logn == logcap) { logcap = logcap ? 2 * logcap : 1024; "
                "LOG = (simt_log_row *)realloc(LOG, logcap * sizeof(simt_log_row)); "
                "if (!LOG) { SIMT_FAIL(6, -1, 0, 0, 0); } }",
                f"LOG[logn].param = {k}; LOG[logn].ix = (int64_t){ix}; LOG[logn].value = {value}; "
                f"LOG[logn].thread = t; logn++;",
                f"{self.reg(ins.dst)} = 0;"]

    # --- the unit ---------------------------------------------------------------------------
    def run(self) -> str:
        src = _Source()
        src.depth = 1
        self._prologue(src)
        src.add("for (int64_t cta = 0; cta < gx * gy * gz; cta++) {")
        src.depth += 1
        for k, mem in enumerate(self.fn.shared):
            src.add(f"memset(s{k}, 0, sizeof(s{k}));")
        src.add("const int64_t ctaid_x = cta % gx, ctaid_y = (cta / gx) % gy, ctaid_z = cta / (gx * gy);",
                "(void)ctaid_x; (void)ctaid_y; (void)ctaid_z;")
        if self.lockstep:
            self._lockstep_block(src)
        else:
            self._plain_block(src)
        src.depth -= 1
        src.add("}")
        body = src.lines
        where = []
        for ins in self.instrs:
            mem = ins.arg.mem if hasattr(ins.arg, "mem") else ins.arg if isinstance(ins.arg, MemRef) else None
            where.append(_c_string(f"{mem.name if isinstance(mem, MemRef) else ''}\t"
                                   f"{ins.loc if ins.loc is not None else ''}"))
        head = [f"/* generated by simt.build_kernel (cpu target) from the MIR of kernel "
                f"'{self.fn.name}'; do not edit */",
                math_constants(), PRELUDE.read_text(), LAUNCH_STRUCT,
                "typedef struct { int64_t param, ix, thread; double value; } simt_log_row;",
                "static const char *const SIMT_WHERE[] = {" + (", ".join(where) or '""') + "};",
                f"SIMT_EXPORT const int simt_kernel_abi = {ABI_VERSION};",
                f"SIMT_EXPORT const int simt_kernel_instructions = {len(self.instrs)};",
                "SIMT_EXPORT const char *simt_kernel_where(int k) {",
                f"    return (k >= 0 && k < {len(self.instrs)}) ? SIMT_WHERE[k] : \"\\t\";",
                "}",
                "#define SIMT_FAIL(code, ins, a, b, c) do { L->err[0] = (code); L->err[1] = cta; "
                "L->err[2] = t; L->err[3] = (ins); L->err[4] = (a); L->err[5] = (b); "
                "L->err[6] = (c); rc = (code); goto simt_done; } while (0)",
                *self._regs_struct(),
                "SIMT_EXPORT int simt_kernel_run(simt_cpu_launch *L) {"]
        tail = ["simt_done:", *self._cleanup(), "    return rc;", "}", ""]
        return "\n".join(head + body + tail)

    def _regs_struct(self) -> list[str]:
        if not self.lockstep:
            return []
        fields = [f"    {CTYPE[r.type]} r{r.id};" for r in self.fn.registers()]
        return ["typedef struct {", *(fields or ["    int unused;"]), "} simt_regs;"]

    def _prologue(self, src: _Source) -> None:
        src.add("int rc = 0; int64_t t = 0, steps = 0, bb = 0, cta = 0; uint64_t ix = 0; int64_t six = 0;",
                "(void)ix; (void)six; (void)bb;",
                "const int64_t bx = L->block[0], by = L->block[1], bz = L->block[2];",
                "const int64_t gx = L->grid[0], gy = L->grid[1], gz = L->grid[2];",
                "const int64_t dim0 = L->dim[0], dim1 = L->dim[1], dim2 = L->dim[2], dim3 = L->dim[3];",
                "const int64_t max_steps = L->max_steps, T = bx * by * bz;",
                "(void)dim0; (void)dim1; (void)dim2; (void)dim3; (void)T;")
        for k, p in enumerate(self.params):
            if isinstance(p, ArrayParam):
                ct = CTYPE[p.mem.elem]
                src.add(f"{ct} *const g{k} = ({ct} *)L->data[{k}]; const int64_t g{k}_n = L->sizes[{k}];")
                for d in range(p.mem.ndim):
                    src.add(f"const int64_t shape{k}_{d} = L->shapes[{4 * k + d}];")
            else:
                ct = CTYPE[p.reg.type]
                src.add(f"const {ct} p{k} = *(const {ct} *)L->data[{k}];")
        for k, mem in enumerate(self.fn.shared):
            src.add(f"static __thread {CTYPE[mem.elem]} s{k}[{max(1, mem.size)}];")
        if self.lockstep:
            src.add("const int64_t TP = ((T + 31) / 32) * 32, NW = TP / 32;",
                    "int8_t *status = calloc(TP, 1); int32_t *point = calloc(TP, 4);",
                    "int32_t *resume = calloc(TP, 4); int64_t *tsteps = calloc(TP, 8);",
                    "int64_t *maxblk = calloc(TP, 8); simt_regs *RG = calloc(TP, sizeof(simt_regs));",
                    "int64_t mx = 0;")
            for k, ins, vtype, lane, mask in self._staging():
                if vtype is not None:
                    src.add(f"{CTYPE[vtype]} *V{k} = calloc(TP, sizeof({CTYPE[vtype]}));")
                if lane:
                    src.add(f"int32_t *L{k} = calloc(TP, 4);")
                if mask:
                    src.add(f"uint32_t *M{k} = calloc(TP, 4);")
            src.add("if (!status || !point || !resume || !tsteps || !maxblk || !RG) { SIMT_FAIL(6, -1, 0, 0, 0); }")
            if self.logs:
                src.add("simt_log_row *LOG = NULL; int64_t logn = 0, logcap = 0;",
                        "int64_t *order = NULL, *counts = calloc(TP + 1, 8);")
        else:
            for r in self.fn.registers():
                src.add(f"{CTYPE[r.type]} r{r.id} = 0;")

    def _cleanup(self) -> list[str]:
        if not self.lockstep:
            return []
        lines = ["    free(status); free(point); free(resume); free(tsteps); free(maxblk); free(RG);"]
        for k, ins, vtype, lane, mask in self._staging():
            lines += [f"    free(V{k});"] * (vtype is not None) + [f"    free(L{k});"] * lane + \
                     [f"    free(M{k});"] * mask
        if self.logs:
            lines.append("    free(LOG); free(order); free(counts);")
        return lines

    def _staging(self):
        """(point, collective, value type or None, has lane, has mask), as collectives.py."""
        for k, seg in enumerate(self.layout.points):
            ins = seg.collective
            if ins.op is Op.SHFL:
                yield k, ins, ins.srcs[0].type, True, True
            elif ins.op is Op.VOTE:
                yield k, ins, Scalar.BOOL, False, True
            elif ins.op is Op.SYNCWARP:
                yield k, ins, None, False, True
            elif ins.op is Op.BAR_AND:
                yield k, ins, Scalar.BOOL, False, False
            else:
                yield k, ins, None, False, False

    def _param_init(self, src: _Source) -> None:
        for k, p in enumerate(self.params):
            if isinstance(p, ScalarParam):
                src.add(f"{self.reg(p.reg)} = p{k};")

    # --- blocks without collectives -------------------------------------------------------------
    def _plain_block(self, src: _Source) -> None:
        entry_live = self.layout.segments[0].live_in - {p.reg.id for p in self.params
                                                        if isinstance(p, ScalarParam)}
        src.add("t = -1;",
                "for (int64_t tid_z = 0; tid_z < bz; tid_z++)",
                "for (int64_t tid_y = 0; tid_y < by; tid_y++)",
                "for (int64_t tid_x = 0; tid_x < bx; tid_x++) {")
        src.depth += 1
        src.add("t++;", "(void)tid_x; (void)tid_y; (void)tid_z;")
        for rid in sorted(entry_live):
            src.add(f"r{rid} = 0;")
        self._param_init(src)
        src.add("steps = 0; bb = 0;")
        self._dispatch(src, "thread_end")
        src.add("thread_end: ;")
        src.depth -= 1
        src.add("}")

    def _dispatch(self, src: _Source, end: str) -> None:
        src.add("for (;;) {")
        src.depth += 1
        src.add(f"if (steps > max_steps) {{ {self.fail(ERR_STEPS, None, 'bb')} }}", "switch (bb) {")
        for seg in self.layout.segments:
            src.add(f"case {seg.index}: {{")
            src.depth += 1
            self._segment(src, seg, end)
            src.depth -= 1
            src.add("}")
        src.add("default: goto " + end + ";", "}")
        src.depth -= 1
        src.add("}")

    def _segment(self, src: _Source, seg: Segment, end: str) -> None:
        if seg.mir_blocks:
            src.add(f"steps += {seg.mir_blocks};")
            if self.lockstep:
                src.add(f"if (mx < {seg.block_index}) mx = {seg.block_index};")
        for ins in seg.instrs:
            src.add(*self.writer.write(ins))
        if seg.collective is not None:
            src.add(*self._suspend(seg), f"goto {end};")
            return
        term = seg.term
        if term.op is Op.RET:
            if self.lockstep:
                src.add(f"status[t] = {EXITED};")
            src.add(f"goto {end};")
        elif term.op is Op.CBR:
            a, b = seg.successors
            src.add(f"bb = {self.writer.val(term.srcs[0])} ? {a} : {b};", "continue;")
        else:
            src.add(f"bb = {seg.successors[0]};", "continue;")

    # --- blocks with collectives ----------------------------------------------------------------
    def _lockstep_block(self, src: _Source) -> None:
        src.add("for (int64_t u = 0; u < TP; u++) { status[u] = u < T ? "
                f"{RUNNABLE} : {EXITED}; resume[u] = -1; tsteps[u] = 0; maxblk[u] = -1; }}",
                "memset(RG, 0, TP * sizeof(simt_regs));")
        for k, ins, vtype, lane, mask in self._staging():
            if vtype is not None:
                src.add(f"memset(V{k}, 0, TP * sizeof(*V{k}));")
        if self.logs:
            src.add("logn = 0;")
        src.add("for (;;) {")
        src.depth += 1
        src.add("t = 0;",
                "for (int64_t tid_z = 0; tid_z < bz; tid_z++)",
                "for (int64_t tid_y = 0; tid_y < by; tid_y++)",
                "for (int64_t tid_x = 0; tid_x < bx; tid_x++) {")
        src.depth += 1
        src.add("(void)tid_x; (void)tid_y; (void)tid_z;", f"if (status[t] == {RUNNABLE}) {{")
        src.depth += 1
        src.add("steps = tsteps[t]; mx = maxblk[t]; bb = resume[t];", "if (bb == -1) {")
        src.depth += 1
        self._param_init(src)
        src.add("bb = 0;")
        src.depth -= 1
        src.add("}")
        self._dispatch(src, "thread_end")
        src.add("thread_end:", "tsteps[t] = steps; maxblk[t] = mx;")
        src.depth -= 1
        src.add("}", "t++;")
        src.depth -= 1
        src.add("}")
        self._resolve(src)
        src.depth -= 1
        src.add("}")
        if self.logs:
            self._apply_log(src)

    def _suspend(self, seg: Segment) -> list[str]:
        ins, k, val = seg.collective, seg.point, self.writer.val
        lines = []
        if ins.op is Op.SHFL:
            value, lane, mask = ins.srcs
            lines += [f"V{k}[t] = {val(value)};", f"L{k}[t] = {val(lane)};", f"M{k}[t] = {val(mask)};"]
        elif ins.op is Op.VOTE:
            lines += [f"V{k}[t] = {val(ins.srcs[0])};", f"M{k}[t] = {val(ins.srcs[1])};"]
        elif ins.op is Op.SYNCWARP:
            lines.append(f"M{k}[t] = {val(ins.srcs[0])};")
        elif ins.op is Op.BAR_AND:
            lines.append(f"V{k}[t] = {val(ins.srcs[0])};")
        return lines + [f"resume[t] = {seg.resume}; point[t] = {k}; status[t] = {WAITING};"]

    def _result(self, ins: Instr, value: str) -> str:
        d = ins.dsts[0]
        return f"{self.reg(d)} = ({CTYPE[d.type]})({value});"

    def _resolve(self, src: _Source) -> None:
        points = self.layout.points
        barrier = ", ".join("1" if self.layout.is_barrier_point(k) else "0" for k in range(len(points)))
        blocks = ", ".join(str(seg.block_index) for seg in points)
        src.add(f"static const int8_t IS_BARRIER[] = {{{barrier}}};",
                f"static const int64_t BLOCK_OF_POINT[] = {{{blocks}}};",
                "int progressed = 0;",
                "for (int64_t w = 0; w < NW; w++) {")
        src.depth += 1
        src.add("const int64_t base = w * 32; int64_t low = 1 << 30;",
                f"for (int l = 0; l < 32; l++) if (status[base + l] == {WAITING}) {{",
                "    int64_t pk = point[base + l]; if (IS_BARRIER[pk] == 0 && pk < low) low = pk; }",
                "if (low == 1 << 30) continue;",
                "progressed = 1;",
                "int64_t present = 0, exited = 0; const int64_t b = BLOCK_OF_POINT[low];",
                "for (int l = 0; l < 32; l++) {",
                f"    if (status[base + l] == {WAITING} && point[base + l] == low) present |= 1LL << l;",
                f"    else if (status[base + l] == {EXITED} && maxblk[base + l] <= b) exited |= 1LL << l;",
                "}", "(void)exited;", "switch (low) {")
        for k, seg in enumerate(points):
            if self.layout.is_barrier_point(k):
                continue
            src.add(f"case {k}: {{")
            src.depth += 1
            self._warp_op(src, seg)
            src.depth -= 1
            src.add("break; }")
        src.add("default: break;", "}",
                "for (int l = 0; l < 32; l++) if ((present >> l) & 1) {",
                f"    status[base + l] = {RUNNABLE}; maxblk[base + l] = b; }}")
        src.depth -= 1
        src.add("}", "if (progressed) continue;")
        self._barrier(src)

    def _warp_op(self, src: _Source, seg: Segment) -> None:
        ins, k = seg.collective, seg.point
        lanes = "for (int l = 0; l < 32; l++) if ((present >> l) & 1) {"
        if ins.op is Op.ACTIVEMASK:
            src.add(lanes, f"    t = base + l; {self._result(ins, 'present')}", "}")
            return
        src.add(lanes, f"    t = base + l; int64_t m = (int64_t)M{k}[t], missing = m & ~present & ~exited;",
                f"    if (missing != 0 || ((m >> l) & 1) == 0) {{ "
                f"{self.fail(ERR_WARP_SYNC, ins, 'm', 'missing', 'present')} }}", "}")
        if ins.op is Op.SYNCWARP:
            return
        if ins.op is Op.VOTE:
            result = {VoteMode.BALLOT: "ballot & m", VoteMode.ANY: "(ballot & m) != 0",
                      VoteMode.ALL: "(ballot & m) == m"}[ins.arg]
            src.add("int64_t ballot = 0;",
                    f"for (int l = 0; l < 32; l++) if (((present >> l) & 1) && V{k}[base + l]) ballot |= 1LL << l;",
                    lanes, f"    t = base + l; int64_t m = (int64_t)M{k}[t]; {self._result(ins, result)}", "}")
            return
        if ins.op is Op.SHFL:
            mode = ins.arg
            pick = {ShflMode.IDX: "s = b2 & 31;",
                    ShflMode.UP: "s = l - b2; if (s < 0) s = l;",
                    ShflMode.DOWN: "s = l + b2; if (s > 31) s = l;",
                    ShflMode.XOR: "s = l ^ b2; if (s < 0 || s > 31) s = l;"}[mode]
            value = f"V{k}[base + s]" if isinstance(ins.srcs[0], Reg) else f"V{k}[t]"
            src.add(lanes, f"    t = base + l; int64_t b2 = (int64_t)L{k}[t], s; {pick}",
                    f"    {self._result(ins, value)}", "}")
            return
        raise unsupported(f"the MIR op {ins.op.name}", ins)

    def _barrier(self, src: _Source) -> None:
        src.add("{")
        src.depth += 1
        src.add("int64_t low = 1 << 30, live = 0, first = -1, here = 0, absent = 0;",
                f"for (int64_t u = 0; u < T; u++) if (status[u] == {WAITING}) {{ live++; if (point[u] < low) low = point[u]; }}",
                "if (live == 0) break;",
                "const int64_t b = BLOCK_OF_POINT[low];",
                "for (int64_t u = 0; u < T; u++) {",
                f"    if (status[u] == {WAITING} && point[u] == low) {{ here++; if (first < 0) first = u; }}",
                f"    else if (status[u] == {WAITING} || maxblk[u] > b) absent++;",
                "}",
                "if (absent != 0) {",
                "    t = first;")
        for k, seg in enumerate(self.layout.points):
            if self.layout.is_barrier_point(k):
                src.add(f"    if (low == {k}) {{ {self.fail(ERR_BARRIER, seg.collective, 'here', 'absent')} }}")
        src.add(f"    {self.fail(ERR_BARRIER, None, 'here', 'absent')}", "}")
        for k, seg in enumerate(self.layout.points):
            if self.layout.is_barrier_point(k) and seg.collective.op is Op.BAR_AND:
                src.add(f"if (low == {k}) {{",
                        "    int acc = 1;",
                        f"    for (int64_t u = 0; u < T; u++) if (status[u] == {WAITING} && !V{k}[u]) acc = 0;",
                        f"    for (t = 0; t < T; t++) if (status[t] == {WAITING}) {{ {self._result(seg.collective, 'acc')} }}",
                        "}")
        src.add("for (int64_t u = 0; u < T; u++) {",
                f"    if (status[u] == {WAITING}) {{ status[u] = {RUNNABLE}; maxblk[u] = b; }}",
                "    else maxblk[u] = -1;", "}")
        src.depth -= 1
        src.add("}")

    def _apply_log(self, src: _Source) -> None:
        """The block's deferred float atomics, stably sorted by thread, then applied."""
        src.add("if (logn) {")
        src.depth += 1
        src.add("order = (int64_t *)realloc(order, logn * sizeof(int64_t));",
                "if (!order) { SIMT_FAIL(6, -1, 0, 0, 0); }",
                "memset(counts, 0, (TP + 1) * sizeof(int64_t));",
                "for (int64_t r = 0; r < logn; r++) counts[LOG[r].thread + 1]++;",
                "for (int64_t u = 0; u < TP; u++) counts[u + 1] += counts[u];",
                "for (int64_t r = 0; r < logn; r++) order[counts[LOG[r].thread]++] = r;",
                "for (int64_t q = 0; q < logn; q++) {",
                "    const simt_log_row *row = &LOG[order[q]];",
                "    switch (row->param) {")
        families = self.deferral.arrays
        for k, p in enumerate(self.params):
            if isinstance(p, ArrayParam) and p.mem.name in families:
                ct = CTYPE[p.mem.elem]
                sfx = "f32" if p.mem.elem is Scalar.F32 else "f64"
                fam = families[p.mem.name]
                v = f"({ct})row->value"
                update = {"add": f"g{k}[row->ix] + {v}", "min": f"simt_fmin_{sfx}(g{k}[row->ix], {v})",
                          "max": f"simt_fmax_{sfx}(g{k}[row->ix], {v})"}[fam]
                src.add(f"    case {[q.name for q in self.params if isinstance(q, ArrayParam)].index(p.mem.name)}: "
                        f"g{k}[row->ix] = {update}; break;")
        src.add("    default: break;", "    }", "}")
        src.depth -= 1
        src.add("}")
