"""simt.verify: bounds with one symbolic thread, races and barriers with two.

Each obligation is asked of the solver twice at most: once over the abstract run (loops
summarised by invariants; unsat proves it for every input), and, when that finds a possible
bug, over the bounded run (symbolic loops unrolled a few times), whose model becomes a
counterexample that counts only if it replays on cpu:precise.
"""
from __future__ import annotations

import contextlib
import dataclasses
import time

import z3

from ..errors import SimtError
from ..ir.mir import LaunchSig, Space
from .report import CHECKS, Counterexample, Finding, VerifyReport, model_int, model_scalar
from .invariants import residue_facts
from .symexec import Executor
from .world import coords_in_range
from .world import World

BOUNDED_ITERATIONS = 3
QUERY_MS = 8000            # one solver question at most (in steps: about this many ms unloaded)
RLIMIT_PER_MS = 1000       # z3 resource steps per millisecond, roughly, on one core
CANDIDATE_MS = 1000        # one invariant candidate's check (one that times out is dropped)
# Counterexamples are searched for small first, so that they replay quickly.
_SMALL = ((256, 1024, 64), (256, 1024, None), (1024, 4096, 1 << 12), (1 << 16, 1 << 16, None))


class Prover:
    def __init__(self, kernel, fn, world: World, timeout: float):
        self.kernel, self.fn, self.world = kernel, fn, world
        self.deadline = time.monotonic() + timeout
        self.facts = list(world.constraints)
        self.traces: dict[str, tuple] = {}
        self.steps = 0

    # ---- the solver ------------------------------------------------------------------

    def remaining_ms(self) -> int:
        return max(1, int((self.deadline - time.monotonic()) * 1000))

    def solver(self, ms: int):
        """A fresh solver holding the world's facts: a first check without push/pop gets the
        solver's full preprocessing, many times faster here than an incremental one."""
        s = z3.SolverFor("QF_BV")
        s.add(*self.facts)
        # The solver's own step count bounds a question, so that verdicts do not depend on
        # how busy the machine is; the wall clock only enforces the caller's timeout.
        s.set("rlimit", ms * RLIMIT_PER_MS)
        s.set("timeout", self.remaining_ms())
        return s

    def solve(self, s) -> str:
        result = str(s.check())
        # z3 counts steps per context, and each verify has a context of its own
        self.steps = max(self.steps, s.statistics().get_key_value("rlimit count"))
        return result

    def check(self, *formulas, ms: int = None, want_model: bool = False):
        """"sat", "unsat" or "unknown" for the world's facts and the formulas; with
        want_model, (that, a model or None)."""
        s = self.solver(ms or QUERY_MS)
        s.add(*formulas)
        result = self.solve(s)
        if want_model:
            return result, (s.model() if result == "sat" else None)
        return result

    def model(self, formula, mode: str, target: str):
        """A model of the formula, the smallest launch of a few sizes that has one, where
        possible one in which the threads involved make no other out-of-bounds access (which
        the replay would stop at first)."""
        _, _, tr1, tr2 = self.run(mode)
        clean = z3.And(*[z3.Implies(e.cond, self.in_bounds(e)) for tr in (tr1, tr2) for e in tr.accesses])
        roomy = z3.And(*[z3.UGE(z3.ZeroExt(32, shape[0]), self.world.total) for name, shape in self.world.shapes.items()
                         if name != target and shape])
        tries = [(z3.And(clean, roomy), *_SMALL[0]), (roomy, *_SMALL[0])] \
            + [(None, *size) for size in _SMALL] + [(None, None, None, None)]
        for prefer, threads, extent, scalar in tries:
            s = self.solver(5000)
            s.add(formula)
            if prefer is not None:
                s.add(prefer)
            if threads is not None:
                s.add(*self.smallness(threads, extent, scalar))
            if self.solve(s) == "sat":
                return s.model()
        return None

    def smallness(self, threads, extent, scalar):
        w = self.world
        out = [z3.ULE(w.total, threads), z3.ULE(w.launched, threads + 1024)]
        for shape in w.shapes.values():
            out += [z3.ULE(s, extent) for s in shape]
        for name, term in w.scalars.items():
            if scalar is None:
                break
            if z3.is_bv(term) and term.size() >= 8 and not self.float_param(name):
                out.append(z3.And(term >= -scalar, term <= scalar) if term.size() > 8 else z3.BoolVal(True))
        return out

    def float_param(self, name: str) -> bool:
        return any(p.name == name and getattr(p, "reg", None) is not None and p.reg.type.is_float
                   for p in self.fn.params)

    # ---- runs ------------------------------------------------------------------------

    def run(self, mode: str):
        """(thread 1, thread 2, their traces) for "abstract" or "bounded"."""
        if mode not in self.traces:
            t1, t2 = self.world.thread(f"{mode[0]}1"), self.world.thread(f"{mode[0]}2")
            self.facts.append(self.world.distinct_lemma(t1, t2))
            quick = lambda *f, want_model=False: self.check(*f, ms=CANDIDATE_MS, want_model=want_model)  # noqa: E731
            tr1 = Executor(self.fn, self.world, t1, quick, mode, BOUNDED_ITERATIONS).run()
            tr2 = Executor(self.fn, self.world, t2, quick, mode, BOUNDED_ITERATIONS).run()
            self.traces[mode] = (t1, t2, tr1, tr2)
        return self.traces[mode]

    def decide(self, check: str, array: str, line, formula_of) -> Finding:
        """formula_of(mode) -> (formula, threads involved) whose models are bugs."""
        t1, t2, tr1, tr2 = self.run("abstract")
        formula, threads = formula_of("abstract")
        result = self.check(formula)
        if result == "unsat":
            return Finding(check, "safe", line, array, "proved for every input")
        if result == "unknown":
            return Finding(check, "unknown", line, array, "the solver ran out of time")
        exact = not (tr1.abstract or tr2.abstract)
        if not exact:
            _, _, b1, b2 = self.run("bounded")
            formula, threads = formula_of("bounded")
            result = self.check(formula)
            if result != "sat":
                bound = (f"no bug with loops up to {BOUNDED_ITERATIONS} iterations; not proved "
                         f"for more (the loop invariants found were too weak)")
                return Finding(check, "unknown", line, array,
                               bound if result == "unsat" else "the solver ran out of time")
        model = self.model(formula, "abstract" if exact else "bounded", array if check == "bounds" else None)
        if model is None:
            return Finding(check, "unknown", line, array, "the solver ran out of time")
        cex = self.counterexample(model, check, array, line, threads, "abstract" if exact else "bounded")
        if cex is None:
            return Finding(check, "unknown", line, array, self.too_big(model))
        try:
            reproduced = cex.reproduces()
            if not reproduced and check == "race":
                # the values the model loaded may make both writes store the same value, which
                # the sanitizer does not count; arrays of distinct values make them differ
                distinct = dataclasses.replace(cex, fill="distinct")
                if distinct.reproduces():
                    cex, reproduced = distinct, True
        except SimtError as e:
            return Finding(check, "unknown", line, array, f"a possible bug whose replay failed: {e}")
        if not reproduced:
            return Finding(check, "unknown", line, array,
                           f"a possible bug that did not reproduce on cpu:precise ({cex})")
        return Finding(check, "unsafe", line, array, str(cex), cex)

    def too_big(self, model) -> str:
        """Why a possible bug stays unknown when its launch is too big to replay, and how to
        prove the launches below it."""
        w = self.world
        dims = [model_int(model, d, False) for d in w.dims]
        shapes = {name: [model_int(model, s, False) for s in shape] for name, shape in w.shapes.items()}
        log = max(model_int(model, w.total, False), 2).bit_length() - 1
        bound = f"dim[0] < 2**{log}" if len(dims) == 1 else "a bound on dim"
        return (f"a possible bug needs a launch too big to replay (dim={dims if len(dims) > 1 else dims[0]}, "
                f"shapes {shapes}): past about 2**{log} threads int32 index arithmetic can wrap, "
                f"as it does on the GPU; an assumption such as \"{bound}\" rules such launches out")

    def counterexample(self, model, check, array, line, threads, mode) -> Counterexample | None:
        w = self.world
        dims = tuple(model_int(model, d, False) for d in w.dims)
        block = w.block_shape if w.block_shape is not None else model_int(model, w.block, False)
        if any(d > (1 << 16) for d in dims) or sum(1 for _ in dims) == 0:
            return None
        shapes = {name: [model_int(model, s, False) for s in shape] for name, shape in w.shapes.items()}
        if any(sum(s) > (1 << 20) for s in shapes.values()):
            return None
        scalars = {}
        for p in self.fn.params:
            if p.name in w.scalars:
                scalars[p.name] = model_scalar(model, w.scalars[p.name], p.reg.type)
        _, _, tr1, tr2 = self.run(mode)
        loads = []
        for tr in (tr1, tr2):
            for ld in tr.loads:
                if ld.mem.space is Space.GLOBAL and z3.is_true(model.eval(ld.cond, model_completion=True)):
                    loads.append((ld.mem.name, model_int(model, ld.index, True),
                                  model_scalar(model, ld.value, ld.type)))
        ids = [t.ids(model) for t in threads]
        dim = dims[0] if len(dims) == 1 else dims
        return Counterexample(self.kernel, check, array, dim, block, scalars, shapes, loads, ids, line)

    # ---- the three checks ------------------------------------------------------------

    def bounds(self) -> list[Finding]:
        _, _, tr1, _ = self.run("abstract")
        sites = _group(tr1.accesses)
        findings = []
        for site, events in sites.items():
            mem = events[0].mem
            line = events[0].site.loc.line if events[0].site.loc else None

            def formula_of(mode, site=site):
                t1, _, tr, _ = self.run(mode)
                evs = _group(tr.accesses).get(site, [])
                bad = [z3.And(e.cond, z3.Not(self.in_bounds(e)), self.coords_lemma(e)) for e in evs]
                return z3.Or(*bad) if bad else z3.BoolVal(False), [t1]
            findings.append(self.decide("bounds", mem.name, line, formula_of))
        return findings

    def coords_lemma(self, e):
        """For an n-D array's access whose index is its coordinates in row-major order: in
        bounds when every coordinate is within its extent. A theorem of the model (arrays below
        2**30 scalars, so the int32 index cannot wrap), which spares the solver the product of
        two unknowns."""
        if e.coords is None:
            return z3.BoolVal(True)
        return z3.Implies(coords_in_range(e.coords, self.world.shapes[e.mem.name]), self.in_bounds(e))

    def in_bounds(self, e):
        size = e.bound if e.bound is not None else self.world.size(e.mem)
        return z3.And(e.index >= 0, e.index + e.width <= size)

    def races(self) -> list[Finding]:
        _, _, tr1, _ = self.run("abstract")
        by_array: dict[str, list] = {}
        for e in tr1.accesses:
            if e.bound is None:
                by_array.setdefault(e.mem.name, []).append(e)
        findings = []
        for name, events in by_array.items():
            if not any(e.write for e in events):
                findings.append(Finding("race", "safe", events[0].site.loc.line if events[0].site.loc else None,
                                        name, "only read"))
                continue

            def formula_of(mode, name=name):
                t1, t2, a, b = self.run(mode)
                xs = [e for e in a.accesses if e.bound is None and e.mem.name == name]
                ys = [e for e in b.accesses if e.bound is None and e.mem.name == name]
                order = {}
                for e in xs:
                    order.setdefault(id(e.site), len(order))
                pairs = []
                for e in xs:
                    for f in ys:
                        if order.get(id(f.site), -1) < order[id(e.site)]:
                            continue                 # the mirrored pair is the same question
                        c = self.race_pair(e, f, t1, t2)
                        if c is not None:
                            pairs.append(c)
                if not pairs:
                    return z3.BoolVal(False), [t1, t2]
                return z3.And(z3.Or(*pairs), *residue_facts(a, b)), [t1, t2]
            first_write = next(e for e in events if e.write)
            line = first_write.site.loc.line if first_write.site.loc else None
            findings.append(self.decide("race", name, line, formula_of))
        return findings

    def race_pair(self, e, f, t1, t2):
        if not (e.write or f.write) or (e.atomic and f.atomic):
            return None
        same_block = t1.same_block(t2)
        same_epoch = e.epoch == f.epoch
        if z3.is_false(z3.simplify(same_epoch)) and e.mem.space is not Space.GLOBAL:
            return None
        together = z3.And(same_block, same_epoch)
        if e.mem.space is Space.GLOBAL:
            together = z3.Or(z3.Not(same_block), same_epoch)
        if e.coords is not None and f.coords is not None:
            # row-major indices within the extents are one index iff one coordinate tuple
            # (a theorem of the model, like coords_lemma)
            shape = self.world.shapes[e.mem.name]
            same = z3.And(*[a == b for a, b in zip(e.coords, f.coords)])
            overlap = z3.If(z3.And(coords_in_range(e.coords, shape), coords_in_range(f.coords, shape)),
                            same, e.index == f.index)
        elif e.width == f.width == 1:
            overlap = e.index == f.index      # an equation the solver can substitute
        else:
            overlap = z3.And(e.index < f.index + f.width, f.index < e.index + e.width)
        distinct = z3.Not(t1.same_thread(t2))
        differ = z3.BoolVal(True)
        if e.value is not None and f.value is not None and e.value.sort() == f.value.sort():
            # two plain stores of one value are benign (the sanitizer's rule, and the GPU's:
            # whichever lands, the word holds that value)
            differ = e.value != f.value
        return z3.And(e.cond, f.cond, distinct, together, overlap, differ)

    def barriers(self) -> list[Finding]:
        _, _, tr1, _ = self.run("abstract")
        sites: dict[int, list] = {}
        for e in tr1.barriers:
            sites.setdefault(id(e.site), []).append(e)
        findings = []
        for sid, events in sites.items():
            line = events[0].site.loc.line if events[0].site.loc else None

            def formula_of(mode, sid=sid):
                t1, t2, a, b = self.run(mode)
                theirs = {e.key: e for e in b.barriers}
                bad = []
                for e in a.barriers:
                    if id(e.site) != sid:
                        continue
                    lockstep = _lockstep_entry(e, a, b)
                    if lockstep is not None:       # the loop's entry stands for its barriers
                        e, f = lockstep
                    else:
                        f = theirs.get(e.key)
                    other = z3.And(z3.Not(f.cond), z3.Not(f.exited)) if f is not None else z3.BoolVal(True)
                    bad.append(z3.And(e.cond, other, t2.valid, t1.same_block(t2)))
                return z3.Or(*bad) if bad else z3.BoolVal(False), [t1, t2]
            findings.append(self.decide("barrier", "", line, formula_of))
        return findings


def _lockstep_entry(event, mine, theirs):
    """For a barrier in a loop summarised by invariants that every thread entering runs in
    lockstep (symexec.Executor.lockstep), the two threads' events of entering that loop: the
    barrier diverges only if the entry does."""
    iteration = event.key[1]
    anys = [k for k, (_, n) in enumerate(iteration) if n == "any"]
    if len(anys) != 1:
        return None
    key = (iteration[anys[0]][0], iteration[:anys[0]])
    if key not in mine.barrier_loops or key not in theirs.barrier_loops:
        return None
    (e, ok1), (f, ok2) = mine.barrier_loops[key], theirs.barrier_loops[key]
    return (e, f) if ok1 and ok2 else None


def _group(accesses) -> dict:
    sites: dict[int, list] = {}
    for e in accesses:
        sites.setdefault(id(e.site), []).append(e)
    return sites


def verify(kernel, dim=None, block_dim=None, assume=(), checks=CHECKS, timeout: float = 60) -> VerifyReport:
    """Prove a kernel free of out-of-bounds accesses, data races and divergent barriers for
    every input (see README.md, 'Proving kernels safe')."""
    from ..kernel import Kernel
    from ..launch import launch_geometry
    from ..errors import LaunchError
    from ..arch import load_arch
    from ..options import DEFAULTS
    start = time.monotonic()
    from ..ptx_import import ImportedKernel
    if isinstance(kernel, ImportedKernel):
        raise SimtError(f"simt.verify: kernel '{kernel.key}' was imported from PTX; simt.verify "
                        f"supports @simt.kernel kernels only")
    if not isinstance(kernel, Kernel):
        raise SimtError(f"simt.verify expects a @simt.kernel, got {kernel!r}")
    if isinstance(checks, str):
        checks = (checks,)
    for c in checks:
        if c not in CHECKS:
            raise SimtError(f"simt.verify: unknown check {c!r}; the checks are {', '.join(CHECKS)}")
    if isinstance(assume, str):
        assume = (assume,)
    if isinstance(block_dim, list):
        block_dim = tuple(block_dim)
    if isinstance(block_dim, tuple) and len(block_dim) == 1:
        block_dim = block_dim[0]
    if not (block_dim is None or _is_int(block_dim) or
            (isinstance(block_dim, tuple) and all(_is_int(b) for b in block_dim))):
        raise SimtError(f"simt.verify: block_dim must be an int (Warp's mapping), a tuple of "
                        f"ints (an n-D block, one extent per launch dimension) or None, got {block_dim!r}")
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if not all(isinstance(d, int) and d >= 0 for d in dims) or not 1 <= len(dims) <= 4:
            raise SimtError(f"simt.verify: dim must be an int or a tuple of 1 to 4 ints, got {dim!r}")
    else:
        dims = None
    if kernel.is_generic:
        raise SimtError(f"simt.verify: kernel '{kernel.key}' is generic (Any parameters); "
                        f"simt.verify needs concrete parameter types")
    arch = load_arch(kernel.effective_options().get("arch", DEFAULTS["arch"]))
    if isinstance(block_dim, tuple):
        ndim = len(block_dim)
        if dims is not None and len(dims) != ndim:
            raise SimtError(f"simt.verify: block_dim {block_dim} has {ndim} dimensions but dim "
                            f"{dims} has {len(dims)}; give one block extent per launch dimension")
        # the launch's own checks of an n-D block: extents, axes and threads within the limits
        try:
            launch_geometry(dims or (0,) * ndim, block_dim, kernel.key, arch)
        except LaunchError as e:
            raise SimtError(f"simt.verify: {e}") from None
        sig = LaunchSig(ndim, ndim)
    else:
        ndim = len(dims) if dims else max(1, kernel.index_dims[0])
        if kernel.index_dims[1] > 1:
            raise SimtError(f"simt.verify: kernel '{kernel.key}' unpacks thread_idx()/block_idx() "
                            f"into {kernel.index_dims[1]} values; give block_dim as a tuple of "
                            f"{kernel.index_dims[1]} ints (an n-D block)")
        sig = LaunchSig(ndim, 1)
    fn = kernel.compile(sig)
    with _fresh_z3_context():
        return _prove(kernel, fn, dims, block_dim, assume, checks, arch, timeout, start)


@contextlib.contextmanager
def _fresh_z3_context():
    """Each verify builds its terms in a z3 context of its own. z3 numbers terms in the
    order its context first meets them, and its rewriting and search order by those numbers,
    so in one shared context the terms of earlier verifies changed how many steps the same
    question took (a 2-D stencil's largest question took from 0.95 to 2.1 million steps,
    depending on what the process had verified before) and so whether it finished within
    its step limit. z3's Python API builds terms in its default context wherever no context
    is given, so that default is swapped for the call and put back after."""
    saved = z3.z3._main_ctx
    z3.z3._main_ctx = z3.Context()
    try:
        yield
    finally:
        z3.z3._main_ctx = saved


def _prove(kernel, fn, dims, block_dim, assume, checks, arch, timeout, start) -> VerifyReport:
    world = World(fn, dims, block_dim, tuple(assume), arch.max_threads_per_block, arch.max_grid_dims)
    prover = Prover(kernel, fn, world, timeout)
    vacuous = prover.check(z3.BoolVal(True)) == "unsat"
    findings: list[Finding] = []
    if not vacuous:
        for c in checks:
            findings += {"bounds": prover.bounds, "race": prover.races, "barrier": prover.barriers}[c]()
        if "race" in checks:
            # barrier intervals order accesses only where barriers do not diverge
            barriers = [f for f in findings if f.check == "barrier"] if "barrier" in checks else prover.barriers()
            if any(f.verdict != "safe" for f in barriers):
                for f in findings:
                    if f.check == "race" and f.verdict == "safe" and f.detail != "only read":
                        f.verdict = "unknown"
                        f.detail = "proved only for launches whose barriers do not diverge, which is not proved"
    return VerifyReport(kernel.key, checks, findings, world.assumptions, vacuous,
                        time.monotonic() - start, prover.steps)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)
