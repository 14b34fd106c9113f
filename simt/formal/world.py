"""The symbolic launch a proof ranges over: launch shape, scalars, array shapes, assumptions.

Every value the kernel receives is a z3 term; ``constraints`` hold what the hardware and the
model guarantee, plus the user's ``assume`` strings. Threads are made by ``thread(tag)``: each
has its own thread and block index, and shares everything else with the other threads.
"""
from __future__ import annotations

import ast
import math

import z3

from ..errors import SimtError
from ..ir.mir import MemRef, ScalarParam, SReg
from ..ir.types import Scalar

# The model's size bound: launches and arrays below 2**30 threads and elements, so that
# the int32 index arithmetic of the kernel language cannot wrap on its own (an array that
# big would not fit the precise engine that replays counterexamples either).
MODEL_LIMIT = 2 ** 30
WARP = 32


def sort_of(t: Scalar):
    return z3.BoolSort() if t is Scalar.BOOL else z3.BitVecSort(t.bits)


def to64(term, t: Scalar):
    """An integer term widened to 64 bits by its type's signedness."""
    if term.size() == 64:
        return term
    ext = z3.SignExt if t.is_signed else z3.ZeroExt
    return ext(64 - term.size(), term)


class World:
    """``block_dim``: an int (Warp's linear mapping), None (any int), or a tuple of ints, one
    per launch dimension (CUDA's n-D blocks: the last entry is x)."""

    def __init__(self, fn, dims, block_dim, assume, max_threads_per_block: int,
                 max_grid: tuple):
        self.fn = fn
        self.constraints: list = []
        self.assumptions: list[str] = []
        self.ndim = fn.launch.dim_ndim
        c = self.constraints
        bv = lambda name: z3.BitVec(name, 32)   # noqa: E731
        if dims is None:
            self.dims = [bv(f"dim[{k}]") for k in range(self.ndim)]
            for d in self.dims:
                c.append(d >= 0)
            self.assumptions.append("launch: any dim with fewer than 2**30 threads in all")
        else:
            self.dims = [z3.BitVecVal(d, 32) for d in dims]
        wide = [z3.ZeroExt(32, d) for d in self.dims]
        total = wide[0]
        for d in wide[1:]:
            total = total * d
        c.append(z3.ULT(total, MODEL_LIMIT))
        self.total = total
        self.block_shape = tuple(block_dim) if isinstance(block_dim, tuple) else None
        if self.block_shape is not None:
            # CUDA axes x, y, z: the last launch dimension is x; one block and grid extent each
            cuda_block = tuple(reversed(self.block_shape))
            cuda_dims = list(reversed(self.dims))
            self.blocks = [z3.BitVecVal(b, 32) for b in cuda_block]
            self.grids = [bv(f"grid_dim.{'xyz'[k]}") for k in range(len(cuda_block))]
            for g, b, d, limit in zip(self.grids, self.blocks, cuda_dims, max_grid):
                g64, b64, d64 = z3.ZeroExt(32, g), z3.ZeroExt(32, b), z3.ZeroExt(32, d)
                c.append(z3.And(g >= 1, g <= limit, g64 * b64 >= d64, z3.Or(g64 == 1, (g64 - 1) * b64 < d64)))
            self.block = z3.BitVecVal(math.prod(cuda_block), 32)
            self.grid = None
            launched = z3.BitVecVal(1, 64)
            for g, b in zip(self.grids, self.blocks):
                launched = launched * z3.ZeroExt(32, g) * z3.ZeroExt(32, b)
            self.launched = launched
        else:
            if block_dim is None:
                self.block = bv("block_dim")
                c.append(z3.And(self.block >= 1, self.block <= max_threads_per_block))
                self.assumptions.append(f"launch: any block_dim from 1 to {max_threads_per_block}")
            else:
                self.block = z3.BitVecVal(block_dim, 32)
            self.grid = bv("grid_dim")
            b64, g64 = z3.ZeroExt(32, self.block), z3.ZeroExt(32, self.grid)
            # grid = ceil(total / block), at least 1 (an empty launch runs nothing)
            c.append(z3.And(self.grid >= 1, self.grid <= max_grid[0], g64 * b64 >= total,
                            z3.Or(g64 == 1, (g64 - 1) * b64 < total)))
            self.blocks, self.grids = [self.block], [self.grid]
            self.launched = g64 * b64
        self.scalars: dict[str, object] = {}
        self.shapes: dict[str, list] = {}
        self.arrays: dict[str, MemRef] = {}
        for p in fn.params:
            if isinstance(p, ScalarParam):
                self.scalars[p.name] = z3.Const(p.name, sort_of(p.reg.type))
            else:
                self.arrays[p.name] = p.mem
                shape = [bv(f"{p.name}.shape[{k}]") for k in range(p.mem.ndim)]
                self.shapes[p.name] = shape
                size = z3.BitVecVal(p.mem.ncomp, 64)
                for s in shape:
                    c.append(s >= 0)
                    size = size * z3.ZeroExt(32, s)
                c.append(z3.ULT(size, MODEL_LIMIT))
        if self.arrays:
            self.assumptions.append("arrays: any shapes, fewer than 2**30 elements each, "
                                    "no two parameters the same memory")
        for text in assume:
            c.append(parse_assumption(text, self))
            self.assumptions.append(text)

    def param_regs(self) -> dict[int, object]:
        return {p.reg.id: self.scalars[p.name] for p in self.fn.params if isinstance(p, ScalarParam)}

    def size(self, mem: MemRef):
        """Scalars in an array (64-bit term)."""
        if mem.shape is not None:
            return z3.BitVecVal(mem.size, 64)
        size = z3.BitVecVal(mem.ncomp, 64)
        for s in self.shapes[mem.name]:
            size = size * z3.ZeroExt(32, s)
        return size

    def extent(self, mem: MemRef, k: int):
        if mem.shape is not None:
            return z3.BitVecVal(mem.shape[k], 32)
        return self.shapes[mem.name][k]

    def thread(self, tag: str) -> "ThreadIds":
        return ThreadIds(self, tag)

    def distinct_lemma(self, t1: "ThreadIds", t2: "ThreadIds"):
        """Facts of the launch's linear thread index that bit-vector solvers find hard to
        derive when block_dim is symbolic (it multiplies): two threads have one linear index
        iff they are one thread, and it orders like (block, thread). (n-D blocks have constant
        extents: nothing to add.)"""
        if self.block_shape is not None:
            return z3.BoolVal(True)
        lin1, lin2 = t1.ctaid * self.block + t1.tid, t2.ctaid * self.block + t2.tid
        same = z3.And(t1.ctaid == t2.ctaid, t1.tid == t2.tid)
        facts = [(lin1 == lin2) == same, z3.Implies(t1.ctaid < t2.ctaid, lin1 < lin2),
                 z3.Implies(t2.ctaid < t1.ctaid, lin2 < lin1)]
        for t, lin in ((t1, lin1), (t2, lin2)):
            facts += [lin >= t.tid, lin >= 0, z3.ULT(z3.ZeroExt(32, lin), z3.ZeroExt(32, self.grid) * z3.ZeroExt(32, self.block))]
        return z3.Implies(z3.And(t1.valid, t2.valid), z3.And(*facts))


class ThreadIds:
    """One symbolic thread of the launch: per CUDA axis its thread and block index. ``tid``
    is its linear index in its block (x fastest: what lanes and warps follow), ``ctaid`` the
    block's linear index (its x index for 1-D blocks)."""

    def __init__(self, world: World, tag: str):
        self.tag = tag
        n = len(world.blocks)
        self.tids = [z3.BitVec(f"threadIdx.{'xyz'[k]}@{tag}", 32) for k in range(n)]
        self.ctaids = [z3.BitVec(f"blockIdx.{'xyz'[k]}@{tag}", 32) for k in range(n)]
        self.valid = z3.And(*[z3.And(t >= 0, t < b) for t, b in zip(self.tids, world.blocks)],
                            *[z3.And(g >= 0, g < n_) for g, n_ in zip(self.ctaids, world.grids)])
        tid, ctaid = self.tids[-1], self.ctaids[-1]
        for k in range(n - 2, -1, -1):
            tid = tid * world.blocks[k] + self.tids[k]
            ctaid = ctaid * world.grids[k] + self.ctaids[k]
        self.tid, self.ctaid = tid, ctaid
        if world.block_shape is None and len(world.dims) > 1:
            # Warp's mapping of an n-D dim: threads past the flattened extent exit first thing
            # (and an empty extent launches none); saying so spares the solver dividing the
            # linear index by a zero extent
            linear = z3.ZeroExt(32, ctaid) * z3.ZeroExt(32, world.block) + z3.ZeroExt(32, tid)
            self.valid = z3.And(self.valid, z3.ULT(linear, world.total))
        zero, one = z3.BitVecVal(0, 32), z3.BitVecVal(1, 32)
        pad = lambda xs, fill: list(xs) + [fill] * (3 - len(xs))   # noqa: E731
        tids, ctaids = pad(self.tids, zero), pad(self.ctaids, zero)
        ntids, nctaids = pad(world.blocks, one), pad(world.grids, one)
        self.sreg = {SReg.LANEID: tid & (WARP - 1), SReg.WARPID: z3.LShR(tid, 5)}
        for k, axis in enumerate("XYZ"):
            self.sreg[getattr(SReg, f"TID_{axis}")] = tids[k]
            self.sreg[getattr(SReg, f"NTID_{axis}")] = ntids[k]
            self.sreg[getattr(SReg, f"CTAID_{axis}")] = ctaids[k]
            self.sreg[getattr(SReg, f"NCTAID_{axis}")] = nctaids[k]
        for k, d in enumerate(world.dims):
            self.sreg[getattr(SReg, f"DIM_{k}")] = d

    def same_block(self, other: "ThreadIds"):
        return z3.And(*[a == b for a, b in zip(self.ctaids, other.ctaids)])

    def same_thread(self, other: "ThreadIds"):
        return z3.And(self.same_block(other), *[a == b for a, b in zip(self.tids, other.tids)])

    def ids(self, model) -> tuple:
        """(block, thread) of the model: ints for 1-D blocks, else (z, y, x) tuples as the
        launch's numpy order."""
        from .report import model_int
        b = [model_int(model, c, False) for c in reversed(self.ctaids)]
        t = [model_int(model, c, False) for c in reversed(self.tids)]
        return (b[0], t[0]) if len(b) == 1 else (tuple(b), tuple(t))


# ---- assumptions: Python expressions over parameters, dim, block_dim and shapes -----------

class _Shape:
    def __init__(self, terms):
        self.shape = terms


def parse_assumption(text: str, world: World):
    """A Python expression string -> a z3 Bool, every integer widened to 64 bits (so the
    expression means what Python would compute, for values below 2**62)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise SimtError(f"simt.verify: assumption {text!r} is not a Python expression: {e.msg}") from None
    names: dict[str, object] = {"dim": [z3.ZeroExt(32, d) for d in world.dims],
                                "block_dim": [z3.ZeroExt(32, b) for b in reversed(world.blocks)]}
    for name, term in world.scalars.items():
        ptype = next(p.reg.type for p in world.fn.params if p.name == name)
        if ptype is Scalar.BOOL:
            names[name] = term
        elif ptype.is_float:
            names[name] = None          # named, but not something an assumption can speak of
        else:
            names[name] = to64(term, ptype)
    for name, shape in world.shapes.items():
        names[name] = _Shape([z3.ZeroExt(32, s) for s in shape])
    result = _Eval(text, names).visit(tree.body)
    if not z3.is_bool(result):
        raise SimtError(f"simt.verify: assumption {text!r} is not a condition (a comparison, "
                        f"and/or/not of comparisons)")
    return result


class _Eval(ast.NodeVisitor):
    def __init__(self, text: str, names: dict):
        self.text, self.names = text, names

    def fail(self, what: str):
        raise SimtError(f"simt.verify: assumption {self.text!r}: {what}")

    def int_term(self, node):
        v = self.visit(node)
        if isinstance(v, int):
            return z3.BitVecVal(v, 64)
        if z3.is_bv(v):
            return v
        self.fail(f"{ast.unparse(node)!r} is not an integer")

    def visit_Constant(self, node):
        if isinstance(node.value, bool):
            return z3.BoolVal(node.value)
        if isinstance(node.value, int):
            return node.value
        self.fail(f"only integer constants are supported, not {node.value!r}")

    def visit_Name(self, node):
        if node.id not in self.names:
            self.fail(f"unknown name {node.id!r} (parameters, dim, block_dim and a.shape are known)")
        v = self.names[node.id]
        if v is None:
            self.fail(f"{node.id!r} is a float parameter; assumptions speak of integers")
        return v

    def visit_Attribute(self, node):
        base = self.visit(node.value)
        if isinstance(base, _Shape) and node.attr == "shape":
            return base.shape
        self.fail(f"unsupported attribute {ast.unparse(node)!r}")

    def visit_Subscript(self, node):
        base = self.visit(node.value)
        index = self.visit(node.slice)
        if not isinstance(base, list) or not isinstance(index, int):
            self.fail(f"unsupported subscript {ast.unparse(node)!r}")
        if not -len(base) <= index < len(base):
            self.fail(f"{ast.unparse(node)!r} is out of range (it has {len(base)} entries)")
        return base[index]

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            return z3.Not(self.visit(node.operand))
        v = self.visit(node.operand)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.Invert):
            return ~v
        return v

    def visit_BoolOp(self, node):
        values = [self.visit(v) for v in node.values]
        return z3.And(*values) if isinstance(node.op, ast.And) else z3.Or(*values)

    def visit_BinOp(self, node):
        if isinstance(node.op, ast.Pow):
            a, b = self.visit(node.left), self.visit(node.right)
            if not isinstance(b, int) or b < 0:
                self.fail("** takes a constant non-negative exponent")
            if isinstance(a, int):
                return a ** b
            return math.prod([a] * b) if b else z3.BitVecVal(1, 64)
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(left, int) and isinstance(right, int):
            return eval(compile(ast.Expression(ast.BinOp(ast.Constant(left), node.op, ast.Constant(right))),
                                "<assume>", "eval"))
        a, b = self.int_term(node.left), self.int_term(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.FloorDiv):
            q = a / b
            return z3.If(z3.And(z3.SRem(a, b) != 0, (a < 0) != (b < 0)), q - 1, q)
        if isinstance(op, ast.Mod):
            r = z3.SRem(a, b)
            return z3.If(z3.And(r != 0, (r < 0) != (b < 0)), r + b, r)
        if isinstance(op, ast.BitAnd):
            return a & b
        if isinstance(op, ast.BitOr):
            return a | b
        if isinstance(op, ast.BitXor):
            return a ^ b
        if isinstance(op, ast.LShift):
            return a << b
        if isinstance(op, ast.RShift):
            return a >> b
        self.fail(f"unsupported operator in {ast.unparse(node)!r}")

    def visit_Compare(self, node):
        terms = [node.left, *node.comparators]
        parts = []
        for op, l, r in zip(node.ops, terms, terms[1:]):
            a, b = self.int_term(l), self.int_term(r)
            table = {ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b,
                     ast.Eq: a == b, ast.NotEq: a != b}
            if type(op) not in table:
                self.fail(f"unsupported comparison in {ast.unparse(node)!r}")
            parts.append(table[type(op)])
        return z3.And(*parts) if len(parts) > 1 else parts[0]

    def generic_visit(self, node):
        self.fail(f"unsupported syntax {ast.unparse(node)!r}")


# ---- n-D arrays' indices --------------------------------------------------------------------

def row_major_coords(index, shape: list):
    """The coordinates [c0, ..., c(n-1)] of an index computed as the kernel language does for
    an n-D array, ((c0 * s1 + c1) * s2 + c2)..., with s the array's symbolic extents; None
    when the term has another form."""
    coords = []
    term = index
    for k in range(len(shape) - 1, 0, -1):
        if not (z3.is_app_of(term, z3.Z3_OP_BADD) and term.num_args() == 2):
            return None
        prod, last = term.arg(0), term.arg(1)
        if not z3.is_app_of(prod, z3.Z3_OP_BMUL):
            prod, last = last, prod
        if not (z3.is_app_of(prod, z3.Z3_OP_BMUL) and prod.num_args() == 2):
            return None
        if prod.arg(1).eq(shape[k]):
            term = prod.arg(0)
        elif prod.arg(0).eq(shape[k]):
            term = prod.arg(1)
        else:
            return None
        coords.insert(0, last)
    return [term] + coords


def coords_in_range(coords, shape):
    return z3.And(*[z3.And(c >= 0, c < s) for c, s in zip(coords, shape)])
