"""A differential fuzzer: random well-typed kernels, run on every engine, compared.

``programs()`` is a hypothesis strategy over the kernel language: arithmetic of every scalar
type (wrapping integers, division by zero, shifts past the width, saturating float-to-int
conversions, NaN and infinities), the math builtins, branches (divergent: they depend on the
thread), ``for`` and ``while`` loops, global atomics, shared memory around barriers, and warp
shuffles and votes. A program is the text of one kernel; every variable ends up in an output
array, so nothing it computes goes unchecked.

The CPU engines (``cpu``, ``cpu:precise``) must agree bit for bit (NaNs compare equal whatever
their payload). A GPU must agree bit for bit on exact operations; programs for it
(``programs(gpu=True)``) use the transcendentals only on their way into an output, and those
outputs are checked against docs/ulp.md's bound (simt/ulp.py) where the argument is in the
bound's range. On a GPU, float atomic sums are checked within a relative tolerance: the
hardware applies atomics in no fixed order.

Rules that keep programs well defined (a program breaking one would be a fuzzer bug): no
two threads write one shared element between barriers; barriers and warp intrinsics only in
uniform control flow (at the kernel's top level, every thread present); atomics never read
their old value, and each accumulator array sees one kind of atomic; a NaN never gives
copysign its sign (IEEE 754 leaves a NaN's sign unspecified, and LLVM folds -0.0 - x into
-x, which flips it).

tests/test_fuzz.py runs it in CI; tools/gpu_fuzz.py runs it with a GPU.
"""
from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from . import ulp
from .source_module import module_from_source

INTS = ["int32", "uint32", "int64", "uint64", "int8", "uint8"]
FLOATS = ["float32", "float64"]
TYPES = INTS + FLOATS
SIGNED = {"int32", "int64", "int8"}
NP_TYPE = {t: np.dtype(t) for t in TYPES}
VARS_PER_TYPE = 4
BLOCK = 64
BLOCKS = 2
THREADS = BLOCK * BLOCKS
ACCUMULATORS = 8
TRANSCENDENTAL = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp",
                  "log", "log2", "log10", "cbrt", "erf", "erfc", "erfinv", "erfcinv"]
EXACT_UNARY = ["abs", "sqrt", "floor", "ceil", "trunc", "round", "rint", "sign", "step",
               "nonzero", "frac"]
INT_CONSTANTS = [0, 1, 2, 3, 5, 7, 31, 32, 33, 63, 64, 100, 127, 128, 255, -1, -2, -7, -128,
                 2147483647, -2147483648]
FLOAT_CONSTANTS = [0.0, -0.0, 0.5, 1.0, -1.0, 1.5, 2.0, 3.0, 0.1, 100.0, 1e-3, 65504.0, 1e30,
                   -2.5, 1e-40]
SHUFFLES = ["shfl_down_sync", "shfl_up_sync", "shfl_xor_sync", "shfl_sync"]

HEADER = '''import simt as wp


@wp.kernel
def fuzz(fin: wp.array(dtype=wp.float32), iin: wp.array(dtype=wp.int32),
{outputs}         acc_fa: wp.array(dtype=wp.float32), acc_fx: wp.array(dtype=wp.float32),
         acc_ia: wp.array(dtype=wp.int32), acc_ix: wp.array(dtype=wp.int64),
         acc_in: wp.array(dtype=wp.uint32), acc_da: wp.array(dtype=wp.float64)):
    tid = wp.tid()
    lt = wp.thread_idx()
    shf = wp.shared.array(shape=({block},), dtype=wp.float32)
    shi = wp.shared.array(shape=({block},), dtype=wp.int32)
'''


_EIGHTHS = st.integers(0, 7)
_BODY = st.integers(1, 3)
_SOME_TYPES = st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True)
_FEW_TYPES = st.lists(st.sampled_from(TYPES), min_size=1, max_size=2, unique=True)
_CHOICES: dict[tuple, st.SearchStrategy] = {}


def _choice(options: tuple) -> st.SearchStrategy:
    """One strategy per list of options (building strategies is slow; drawing is not)."""
    strategy = _CHOICES.get(options)
    if strategy is None:
        strategy = _CHOICES[options] = st.sampled_from(options)
    return strategy


def _literal(value: float) -> str:
    text = repr(float(value))
    return {"inf": "1e39", "-inf": "-1e39", "nan": "0.0"}.get(text, text)


@dataclass
class _Builder:
    """The program being drawn: its lines and the typed variables in scope."""
    draw: object
    gpu: bool
    lines: list[str] = field(default_factory=list)
    vars: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in TYPES + ["bool"]})
    math_outputs: list[tuple[str, str]] = field(default_factory=list)   # (builtin, variable)
    counter: int = 0
    types: list[str] = field(default_factory=lambda: list(TYPES))     # this program's types

    def pick(self, options):
        return self.draw(_choice(tuple(options)))

    def chance(self, p_in_8: int) -> bool:
        return self.draw(_EIGHTHS) < p_in_8

    # --- expressions ------------------------------------------------------------------
    def const(self, t: str) -> str:
        if t == "bool":
            return self.pick(["True", "False"])
        if t in FLOATS:
            return f"wp.{t}({_literal(self.pick(FLOAT_CONSTANTS))})"
        return f"wp.{t}({self.pick(INT_CONSTANTS)})"

    def leaf(self, t: str, scope: list[str]) -> str:
        names = self.vars[t] + ([v for v in scope] if t == "int32" else [])
        if names and self.chance(6):
            return self.pick(names)
        return self.const(t)

    def expr(self, t: str, depth: int, scope: list[str]) -> str:
        if depth <= 0 or self.chance(2):
            return self.leaf(t, scope)
        if t == "bool":
            return self.boolean(depth, scope)
        kind = self.pick(["binary", "binary", "unary", "cast", "select", "call"])
        sub = depth - 1
        if kind == "cast":
            other = self.pick(self.types)
            return f"wp.{t}({self.expr(other, sub, scope)})"
        if kind == "select":
            c = self.expr("bool", sub, scope)
            a, b = self.expr(t, sub, scope), self.expr(t, sub, scope)
            if self.chance(4):
                return f"({a} if {c} else {b})"
            return f"wp.where({c}, {a}, {b})"
        a = self.expr(t, sub, scope)
        if kind == "unary":
            return self.unary(t, a)
        b = self.expr(t, sub, scope)
        if kind == "call":
            return self.call(t, a, b, sub, scope)
        ops = ["+", "-", "*", "/", "%", "//"]
        if t in INTS:
            ops += ["&", "|", "^", "<<", ">>"]
        return f"({a} {self.pick(ops)} {b})"

    def unary(self, t: str, a: str) -> str:
        if t in INTS:
            options = ["~", "abs", "bit_count"] + (["-"] if t in SIGNED else [])
            op = self.pick(options)
            if op == "bit_count":
                return f"wp.{t}(wp.bit_count({a}))"
            return f"wp.abs({a})" if op == "abs" else f"({op}{a})"
        options = ["-"] + EXACT_UNARY + ([] if self.gpu else TRANSCENDENTAL)
        op = self.pick(options)
        return f"(-{a})" if op == "-" else f"wp.{op}({a})"

    def call(self, t: str, a: str, b: str, depth: int, scope: list[str]) -> str:
        options = ["min", "max", "clamp"]
        if t in FLOATS:
            options += ["copysign"] + ([] if self.gpu else ["pow", "atan2"])
        op = self.pick(options)
        if op == "clamp":
            return f"wp.clamp({a}, {b}, {self.expr(t, depth, scope)})"
        if op == "copysign":       # a NaN's sign is unspecified: never let one choose a sign
            return f"wp.copysign({a}, wp.where(wp.isnan({b}), wp.{t}(1.0), {b}))"
        return f"wp.{op}({a}, {b})"

    def boolean(self, depth: int, scope: list[str]) -> str:
        kind = self.pick(["compare", "compare", "compare", "logic", "not", "classify"])
        sub = depth - 1
        if kind == "compare":
            t = self.pick(self.types)
            op = self.pick(["<", "<=", ">", ">=", "==", "!="])
            return f"({self.expr(t, sub, scope)} {op} {self.expr(t, sub, scope)})"
        if kind == "logic":
            op = self.pick(["and", "or"])
            return f"({self.expr('bool', sub, scope)} {op} {self.expr('bool', sub, scope)})"
        if kind == "not":
            return f"(not {self.expr('bool', sub, scope)})"
        fn = self.pick(["isnan", "isinf", "isfinite"])
        return f"wp.{fn}({self.expr(self.pick(FLOATS), sub, scope)})"

    def index(self, scope: list[str], mask: int) -> str:
        ints = [t for t in self.types if t in INTS] or ["int32"]
        return f"(wp.int32({self.expr(self.pick(ints), 1, scope)}) & {mask})"

    # --- statements ---------------------------------------------------------------------
    def new_name(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def statement(self, indent: int, depth: int, scope: list[str], top: bool) -> None:
        """``top``: at the kernel's top level of a program with collectives (uniform
        control flow: barriers and warp intrinsics allowed)."""
        kinds = ["assign", "assign", "assign", "atomic"]
        if depth > 0:
            kinds += ["if", "for", "while"]
        if top:
            kinds += ["shared", "warp"]
        kind = self.pick(kinds)
        getattr(self, "stmt_" + kind)(indent, depth, scope, top)

    def stmt_assign(self, indent, depth, scope, top) -> None:
        t = self.pick(self.types + ["bool"])
        value = self.expr(t, 3, scope)
        names = self.vars[t]
        if indent == 1 and len(names) < VARS_PER_TYPE and (not names or self.chance(4)):
            name = self.new_name()
            self.emit(indent, f"{name} = {value}")
            names.append(name)
        elif names:
            self.emit(indent, f"{self.pick(names)} = {value}")
        else:
            self.emit(indent, self.sink(t, value))

    def sink(self, t: str, value: str) -> str:
        """A value with no variable to go to: add it to an accumulator."""
        if t == "bool":
            return f"wp.atomic_add(acc_ia, 0, wp.int32({value}))"
        if t in FLOATS:
            return f"wp.atomic_add(acc_da, 0, wp.float64({value}))"
        return f"wp.atomic_max(acc_ix, 1, wp.int64({value}))"

    def stmt_atomic(self, indent, depth, scope, top) -> None:
        where = self.index(scope, ACCUMULATORS - 1)
        kind = self.pick(["fa", "fa_aug", "fx", "ia", "ix", "in", "da"])
        if kind == "fa":
            op = self.pick(["atomic_add", "atomic_sub"])
            self.emit(indent, f"wp.{op}(acc_fa, {where}, {self.expr('float32', 2, scope)})")
        elif kind == "fa_aug":
            self.emit(indent, f"acc_fa[{where}] += {self.expr('float32', 2, scope)}")
        elif kind == "fx":
            self.emit(indent, f"wp.atomic_max(acc_fx, {where}, {self.expr('float32', 2, scope)})")
        elif kind == "ia":
            op = self.pick(["atomic_add", "atomic_sub"])
            self.emit(indent, f"wp.{op}(acc_ia, {where}, {self.expr('int32', 2, scope)})")
        elif kind == "ix":
            self.emit(indent, f"wp.atomic_max(acc_ix, {where}, {self.expr('int64', 2, scope)})")
        elif kind == "in":
            self.emit(indent, f"wp.atomic_min(acc_in, {where}, {self.expr('uint32', 2, scope)})")
        else:
            self.emit(indent, f"wp.atomic_add(acc_da, {where}, {self.expr('float64', 2, scope)})")

    def body(self, indent: int, depth: int, scope: list[str]) -> None:
        for _ in range(self.draw(_BODY)):
            self.statement(indent, depth - 1, scope, top=False)

    def stmt_if(self, indent, depth, scope, top) -> None:
        self.emit(indent, f"if {self.expr('bool', 3, scope)}:")
        self.body(indent + 1, depth, scope)
        if self.chance(4):
            self.emit(indent, "else:")
            self.body(indent + 1, depth, scope)

    def stmt_for(self, indent, depth, scope, top) -> None:
        var = f"j{len(scope)}"
        bound = self.pick(["0", "1", "3", "(tid % 4)", f"({self.index(scope, 3)})"])
        self.emit(indent, f"for {var} in range({bound}):")
        self.body(indent + 1, depth, scope + [var])

    def stmt_while(self, indent, depth, scope, top) -> None:
        var = f"k{len(scope)}"
        self.emit(indent, f"{var} = int(0)")
        self.emit(indent, f"while {var} < {self.index(scope, 3)}:")
        self.emit(indent + 1, f"{var} = {var} + 1")
        self.body(indent + 1, depth, scope + [var])

    def stmt_shared(self, indent, depth, scope, top) -> None:
        """Each thread writes its own element, all read another's after a barrier, and a
        second barrier keeps the next write from racing with these reads."""
        t, array = self.pick([("float32", "shf"), ("int32", "shi")])
        self.emit(indent, f"{array}[lt] = {self.expr(t, 3, scope)}")
        self.emit(indent, "wp.sync_threads()")
        read = f"{array}[(lt + {self.pick([1, 5, 31, 32, 63])}) % {BLOCK}]"
        names = self.vars[t]
        if names:
            self.emit(indent, f"{self.pick(names)} = {read}")
        else:
            name = self.new_name()
            self.emit(indent, f"{name} = {read}")
            names.append(name)
        self.emit(indent, "wp.sync_threads()")

    def stmt_warp(self, indent, depth, scope, top) -> None:
        if self.chance(2):
            c = self.expr("bool", 2, scope)
            vote = self.pick(["ballot_sync", "any_sync", "all_sync"])
            value = f"wp.{vote}(0xFFFFFFFF, {c})"
            t = "uint32" if vote == "ballot_sync" else "bool"
        else:
            t = self.pick(self.types)
            fn = self.pick(SHUFFLES)
            lane = self.pick(["1", "2", "16", "31", f"({self.index(scope, 31)})"])
            value = f"wp.{fn}(0xFFFFFFFF, {self.expr(t, 2, scope)}, {lane})"
        names = self.vars[t]
        if names and self.chance(5):
            self.emit(indent, f"{self.pick(names)} = {value}")
        elif len(names) < VARS_PER_TYPE:
            name = self.new_name()
            self.emit(indent, f"{name} = {value}")
            names.append(name)
        else:
            self.emit(indent, self.sink(t, value))

    # --- the whole kernel ------------------------------------------------------------
    def program(self, statements: int, collectives: bool) -> str:
        # a few types per program keep kernels small (numba's compile time grows quickly
        # with a kernel's size); every variable starts from the inputs
        self.types = self.draw(_FEW_TYPES if collectives else _SOME_TYPES)
        for k, t in enumerate(self.types):
            name = self.new_name()
            src = f"fin[tid * 4 + {k}]" if t in FLOATS else f"iin[tid * 4 + {k}]"
            self.emit(1, f"{name} = wp.{t}({src})")
            self.vars[t].append(name)
        for k in range(statements):
            if collectives and k == statements // 2:    # at least one of each, between others
                self.stmt_shared(1, 0, [], True)
                self.stmt_warp(1, 0, [], True)
            self.statement(1, 2, [], top=collectives)
        if self.gpu:                          # transcendentals only on their way out
            for fn in self.draw(st.lists(st.sampled_from(TRANSCENDENTAL + ["pow", "atan2"]),
                                         min_size=1, max_size=6)):
                floats = self.vars["float32"] + self.vars["float64"]
                if floats:
                    self.math_outputs.append((fn, self.pick(floats)))
        outputs = "".join(f"         out_{t}: wp.array2d(dtype=wp.{t}),\n" for t in TYPES)
        outputs += "         out_math: wp.array2d(dtype=wp.float64),\n"
        tail = []
        for t in TYPES:
            for row, name in enumerate(self.vars[t]):
                tail.append(f"    out_{t}[{row}, tid] = {name}")
        for row, name in enumerate(self.vars["bool"]):
            tail.append(f"    out_int8[{VARS_PER_TYPE + row}, tid] = wp.int8({name})")
        for row, (fn, name) in enumerate(self.math_outputs):
            args = f"{name}, {name} * 0.5" if fn in ("pow", "atan2") else name
            tail.append(f"    out_math[{row}, tid] = wp.float64(wp.{fn}({args}))")
        return HEADER.format(outputs=outputs, block=BLOCK) + "\n".join(self.lines + tail) + "\n"


@st.composite
def programs(draw, collectives: bool = False, gpu: bool = False, max_statements: int = 6) -> str:
    """The source of one random kernel named ``fuzz`` (see the module docstring).
    ``collectives``: its top level may also exchange values through shared memory around
    barriers and through warp shuffles and votes."""
    n = draw(st.integers(1, max_statements if not collectives else min(max_statements, 4)))
    return _Builder(draw, gpu).program(n, collectives)


# --- running and comparing --------------------------------------------------------------------

def inputs(seed: int) -> dict[str, np.ndarray]:
    """Arguments for a program: inputs with special values, zeroed outputs and accumulators."""
    rng = np.random.default_rng(seed)
    n = THREADS * 4
    fin = rng.normal(size=n).astype(np.float32) * rng.choice([1, 10, 1e4], n).astype(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 3e38, 0.5, -1.0, 1.0],
                        np.float32)
    picks = rng.random(n) < 0.15
    fin[picks] = rng.choice(specials, picks.sum())
    iin = rng.integers(-1000, 1000, n).astype(np.int32)
    edges = np.array([0, 1, -1, 2**31 - 1, -2**31, 255, 256, 31, 32, 64], np.int32)
    picks = rng.random(n) < 0.15
    iin[picks] = rng.choice(edges, picks.sum())
    args = {"fin": fin, "iin": iin}
    for t in TYPES:
        args[f"out_{t}"] = np.zeros((2 * VARS_PER_TYPE, THREADS), NP_TYPE[t])
    args["out_math"] = np.zeros((8, THREADS), np.float64)
    args["acc_fa"] = np.zeros(ACCUMULATORS, np.float32)
    args["acc_fx"] = np.full(ACCUMULATORS, -np.inf, np.float32)
    args["acc_ia"] = np.zeros(ACCUMULATORS, np.int32)
    args["acc_ix"] = np.full(ACCUMULATORS, np.iinfo(np.int64).min, np.int64)
    args["acc_in"] = np.full(ACCUMULATORS, np.iinfo(np.uint32).max, np.uint32)
    args["acc_da"] = np.zeros(ACCUMULATORS, np.float64)
    return args


def load(source: str, directory: Path | None = None):
    """The ``fuzz`` kernel of ``source`` (written to a file: kernels need their source)."""
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    directory = Path(directory or tempfile.gettempdir()) / "simt_fuzz"
    return module_from_source(f"simt_fuzz_{key}", source, directory).fuzz


def run(source: str, device: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Every array of the program after a launch on ``device``."""
    import simt
    kernel = load(source)
    args = inputs(seed)
    arrays = {k: simt.array(v, device=device) for k, v in args.items()}
    simt.launch(kernel, dim=THREADS, inputs=list(arrays.values()), device=device,
                block_dim=BLOCK)
    return {k: a.numpy() for k, a in arrays.items()}


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        bits = a.view(np.int32 if a.dtype == np.float32 else np.int64)
        other = b.view(bits.dtype)
        return (bits == other) | (np.isnan(a) & np.isnan(b))
    return a == b


def differences(reference: dict, other: dict, gpu: bool = False, source: str = "") -> list[str]:
    """What differs between two engines' arrays (empty: they agree)."""
    found = []
    for name, want in reference.items():
        got = other[name]
        if gpu and name == "out_math":
            found += _math_differences(source, reference, got)
            continue
        if gpu and name in ("acc_fa", "acc_da"):      # float sums: any order on a GPU
            scale = np.maximum(np.abs(want), 1.0) * (1e-4 if name == "acc_fa" else 1e-10)
            with np.errstate(invalid="ignore"):
                bad = ~((np.abs(got - want) <= scale) | _same_bits(want, got))
        else:
            bad = ~_same_bits(want, got)
        if bad.any():
            where = np.argwhere(bad)[:3].tolist()
            found.append(f"{name}: {int(bad.sum())} element(s) differ, e.g. at {where}: "
                         f"{want[bad][:3]} != {got[bad][:3]}")
    return found


def _math_differences(source: str, reference: dict, got: np.ndarray) -> list[str]:
    """out_math rows within the ulp bound of their builtin, where the argument is in range
    (the argument is the variable's final value, which the program stores too)."""
    stored, calls = {}, []
    for line in source.splitlines():
        text = line.strip()
        if text.startswith("out_math["):
            fn = text.split("wp.float64(wp.")[1].split("(")[0]
            calls.append((fn, text.split(f"wp.{fn}(")[1].split(",")[0].split(")")[0]))
        elif text.startswith("out_") and "[" in text:
            array, rest = text.split("[", 1)
            stored[text.split("= ")[1]] = (array, int(rest.split(",")[0]))
    found = []
    want = reference["out_math"]
    for row, (fn, var) in enumerate(calls):
        array, at = stored[var]
        arg = reference[array][at]
        bound = ulp.BOUNDS[fn]
        ref_row, got_row = want[row], got[row]
        if arg.dtype == np.float32:      # a float32 result widened: judge it as float32
            ref_row, got_row = ref_row.astype(np.float32), got_row.astype(np.float32)
        far = ulp.gpu_ulps(got_row, ref_row)
        with np.errstate(all="ignore"):
            inside = (arg >= bound.lo) & (arg <= bound.hi) & np.isfinite(ref_row)
            if fn == "pow":
                inside &= (arg > 0) & (np.abs(0.5 * arg * np.log2(np.abs(arg) + 1e-300)) <= 16)
        bad = inside & (far > bound.gpu)
        if bad.any():
            found.append(f"out_math[{row}] = {fn}({var}): {int(bad.sum())} lane(s) beyond "
                         f"{bound.gpu} ulp, worst {far[bad].max():.0f}")
    return found
