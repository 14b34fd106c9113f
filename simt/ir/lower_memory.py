"""Lowering of memory: array element addressing, loads/stores of whole or partial elements,
atomics, shared allocations and debug bounds checks. Mixed into the Lowerer (lower.py).

Addressing is in scalars: element ``e`` of an array with ``ncomp`` scalars per element starts
at ``e * ncomp``; row-major arrays linearise ``a[i, j]`` as ``i * d1 + j``, column-major shared
arrays as ``i + d0 * j``. Index arithmetic is int32 like Warp. Composite elements move with as
few LD/ST as alignment allows (vec2 -> one 2-wide, vec4/quat/mat22 -> one 4-wide, mat44 ->
four 4-wide, vec3/mat33 -> one per scalar), like PTX ld.v2/ld.v4.
"""
from __future__ import annotations

from ..errors import CompileError
from . import hir
from .frontend_rules import component_type
from .mir import AtomArg, CheckArg, DimArg, Imm, MemRef, Op, Operand, Space
from .types import AnyType, ArrayType, Scalar, StructType, flat_count, scalar_of


def access_width(elem: Scalar, ncomp: int, size: int, offsets_align: int) -> int:
    """Scalars per LD/ST: the widest of 4/2/1 that divides the element, the accessed part and
    its offset (so the access is naturally aligned), at most 16 bytes."""
    max_width = 4 if elem.nbytes <= 4 else 2
    for w in (4, 2, 1):
        if w <= max_width and size % w == 0 and ncomp % w == 0 and offsets_align % w == 0:
            return w
    return 1


def struct_leaves(t: StructType, prefix: str = "") -> list[tuple[str, AnyType]]:
    """(dotted path, type) of each non-struct field of ``t``, depth first (flat slot order)."""
    out = []
    for name, ft in t.fields:
        if isinstance(ft, StructType):
            out.extend(struct_leaves(ft, f"{prefix}{name}."))
        else:
            out.append((f"{prefix}{name}", ft))
    return out


class StructArray:
    """An array of structs, lowered as one array per leaf field (its MemRefs in flat slot
    order): ``a[i].f`` reaches the array of field ``f``, ``a[i]`` every leaf."""

    def __init__(self, type: StructType, mems: list[MemRef]):
        self.type = type
        self.mems = mems
        self.ndim = mems[0].ndim

    def select(self, path: list) -> tuple[list[MemRef], AnyType, list]:
        """The leaves a path of field indices reaches, the type there, the rest of the path."""
        t, lo, path = self.type, 0, list(path)
        hi = len(self.mems)
        while isinstance(t, StructType) and path:
            k = int(path.pop(0).value)
            lo += len(struct_leaves(StructType(t.name, t.key, t.fields[:k])))
            t = t.fields[k][1]
            hi = lo + (len(struct_leaves(t)) if isinstance(t, StructType) else 1)
        return self.mems[lo:hi], t, path


class ArrayViewRef:
    """A view of ``mem``: per dimension of ``mem`` one part, ``("fix", i)`` (the index is
    ``i``), ``("all",)`` (the whole dimension) or ``("slice", start, step, length)``; the
    view's dimensions are the parts that are not fixed, in order (int32 operands)."""

    def __init__(self, mem: MemRef, parts: list):
        self.mem = mem
        self.parts = parts

    def free_parts(self) -> list[tuple[int, tuple]]:
        return [(k, p) for k, p in enumerate(self.parts) if p[0] != "fix"]


class MemoryLowering:
    """Array and shared-memory parts of the Lowerer; expects ``self.b``, ``self.frame`` etc."""

    def __init__(self):
        self.shared: list[MemRef] = []
        self.shared_by_node: dict[int, MemRef] = {}
        self.shared_end = 0

    # ---- which memory ----------------------------------------------------------------------
    def array(self, e: hir.Expr, name: str = "") -> "MemRef | StructArray":
        if isinstance(e, hir.Var):
            v = self.frame.vars.get(e.name)
            if not isinstance(v, (MemRef, StructArray, ArrayViewRef)):
                raise CompileError(f"{e.name!r} is not an array", e.loc)
            return v
        if isinstance(e, hir.SharedArray):
            return self.allocate_shared(e, name or "shared")
        if isinstance(e, hir.ArrayView):
            base = self.array(e.array)
            if isinstance(base, StructArray):
                raise CompileError("views of arrays of structs are not supported", e.loc)
            if not isinstance(base, ArrayViewRef):
                base = ArrayViewRef(base, [("all",)] * base.ndim)
            keys = e.slices if e.slices is not None else e.indices
            parts, free = list(base.parts), base.free_parts()
            for key, (k, part) in zip(keys, free):
                if isinstance(key, tuple):        # a slice of this dimension
                    start, step, length = (self.as_i32(self.value(x)[0]) for x in key)
                    if part[0] == "slice":
                        start = self.iadd(part[1], self.imul(start, part[2]))
                        step = self.imul(step, part[2])
                    parts[k] = ("slice", start, step, length)
                else:
                    i = self.as_i32(self.value(key)[0])
                    parts[k] = ("fix", i if part[0] == "all" else self.iadd(part[1], self.imul(i, part[2])))
            return ArrayViewRef(base.mem, parts)
        if isinstance(e.type, ArrayType):          # an array field of a struct
            slots = self.value(e)
            if len(slots) == 1 and isinstance(slots[0], (MemRef, StructArray)):
                return slots[0]
            raise CompileError("this struct's array field was never given an array", e.loc)
        raise CompileError("expected an array variable here", e.loc)

    def allocate_shared(self, e: hir.SharedArray, name: str) -> MemRef:
        """One static allocation per shared.array(...) in the source (even if inlined twice)."""
        mem = self.shared_by_node.get(id(e))
        if mem is not None:
            return mem
        t: ArrayType = e.type
        taken = {m.name for m in self.shared}
        unique, n = name, 1
        while unique in taken:
            unique, n = f"{name}_{n}", n + 1
        offset = (self.shared_end + 15) // 16 * 16
        mem = MemRef(unique, Space.SHARED, scalar_of(t.dtype), t.ndim, flat_count(t.dtype),
                     shape=t.shape, layout=t.layout, offset=offset, dtype_name=str(t.dtype),
                     pad=t.pad)
        self.shared_end = offset + mem.size * mem.elem.nbytes
        self.shared.append(mem)
        self.shared_by_node[id(e)] = mem
        return mem

    def extent(self, mem: MemRef, k: int) -> Operand:
        if mem.shape is not None:
            return Imm(mem.shape[k], Scalar.I32)
        return self.hoist(("dim", id(mem), k), Op.DIM, Scalar.I32, DimArg(mem, k), f"{mem.name}_dim{k}")

    # ---- int32 arithmetic that folds constants ------------------------------------------------
    def iadd(self, a: Operand, b: Operand) -> Operand:
        if isinstance(a, Imm) and isinstance(b, Imm):
            return self.b.imm(int(a.value) + int(b.value), Scalar.I32)
        if isinstance(b, Imm) and b.value == 0:
            return a
        if isinstance(a, Imm) and a.value == 0:
            return b
        return self.b.binary(Op.ADD, a, b)

    def imul(self, a: Operand, b: Operand) -> Operand:
        if isinstance(a, Imm) and isinstance(b, Imm):
            return self.b.imm(int(a.value) * int(b.value), Scalar.I32)
        if isinstance(b, Imm) and b.value == 1:
            return a
        if isinstance(a, Imm) and a.value == 1:
            return b
        return self.b.binary(Op.MUL, a, b)

    # ---- addressing ----------------------------------------------------------------------
    def element_index(self, mem, indices: list[hir.Expr]) -> Operand:
        ops = [self.as_i32(self.value(i)[0]) for i in indices]
        if isinstance(mem, ArrayViewRef):            # a view: its indices into the array's
            view, given, ops = mem, iter(ops), []
            mem = view.mem
            for k, part in enumerate(view.parts):
                if part[0] == "fix":
                    ops.append(part[1])
                    continue
                i = next(given)
                if part[0] == "slice":
                    if self.debug:                   # inside the view, as Warp checks in debug
                        self.b.emit(Op.CHECK, (), (i, part[3]), CheckArg(mem, k))
                    i = self.iadd(part[1], self.imul(i, part[2]))
                ops.append(i)
        if self.debug:
            for k, op in enumerate(ops):
                self.b.emit(Op.CHECK, (), (op, self.extent(mem, k)), CheckArg(mem, k))
        order = range(len(ops))
        if mem.layout == "column_major":
            order = reversed(order)   # the first index varies fastest
        padded = mem.padded_shape() if mem.shape is not None else None
        linear = None
        for k in order:
            if linear is None:
                linear = ops[k]
                continue
            extent = Imm(padded[k], Scalar.I32) if padded is not None else self.extent(mem, k)
            linear = self.iadd(self.imul(linear, extent), ops[k])
        return linear

    def address(self, e) -> tuple[MemRef, Operand, int, int]:
        """(memory, scalar index of the addressed part, its scalar count, alignment of its
        offset) for an ArrayLoad/ArrayStore/Atomic with ``array``, ``indices`` and ``path``."""
        parts = self.address_parts(e)
        if len(parts) != 1:
            raise CompileError("atomics on a whole struct are not supported; use one field", e.loc)
        return parts[0]

    def address_parts(self, e) -> list[tuple[MemRef, Operand, int, int]]:
        """``address`` for each array a struct element's part lives in (one, unless the
        element of an array of structs is read or written whole)."""
        target = self.array(e.array)
        if not isinstance(target, StructArray):
            return [self.address_in(target, e.array.type.dtype, e.indices, e.path)]
        mems, t, rest = target.select(e.path)
        element = self.element_index(mems[0], e.indices)
        if isinstance(t, StructType):
            return [(m, self.imul(element, Imm(m.ncomp, Scalar.I32)), m.ncomp, m.ncomp)
                    for m in mems]
        return [self.address_in(mems[0], t, None, rest, element)]

    def address_in(self, mem, t: AnyType, indices, path, element=None):
        if element is None:
            element = self.element_index(mem, indices)
        if isinstance(mem, ArrayViewRef):
            mem = mem.mem
        offset: Operand = Imm(0, Scalar.I32)
        align = mem.ncomp
        for step in path:
            index = self.value(step)[0]
            sub = component_type(t)
            stride = flat_count(sub)
            if isinstance(index, Imm):
                align = _gcd(align, int(index.value) * stride)
            else:
                align = _gcd(align, stride)
            offset = self.iadd(offset, self.imul(self.as_i32(index), Imm(stride, Scalar.I32)))
            t = sub
        base = self.imul(element, Imm(mem.ncomp, Scalar.I32))
        return mem, self.iadd(base, offset), flat_count(t), align

    # ---- loads, stores, atomics ---------------------------------------------------------------
    def expr_ArrayLoad(self, e: hir.ArrayLoad) -> list[Operand]:
        out: list[Operand] = []
        for mem, index, size, align in self.address_parts(e):
            self.b.loc = e.loc
            width = access_width(mem.elem, mem.ncomp, size, align)
            for start in range(0, size, width):
                dsts = tuple(self.b.reg(mem.elem) for _ in range(width))
                self.b.emit(Op.LD, dsts, (self.iadd(index, Imm(start, Scalar.I32)),), mem)
                out.extend(dsts)
        return out

    def store(self, s, value: list[Operand] | None = None) -> None:
        """An ArrayStore, or ``value`` stored where an ArrayLoad reads."""
        if value is None:
            value = self.value(s.value)     # Python's order: the right-hand side, then the target
        parts = self.address_parts(s)
        self.b.loc = s.loc
        for mem, index, size, align in parts:
            part, value = value[:size], value[size:]
            width = access_width(mem.elem, mem.ncomp, size, align)
            for start in range(0, size, width):
                self.b.emit(Op.ST, (), (self.iadd(index, Imm(start, Scalar.I32)),
                                        *part[start:start + width]), mem)

    def expr_Atomic(self, e: hir.Atomic) -> list[Operand]:
        mem, index, size, _ = self.address(e)
        values = [self.value(v) for v in e.values]
        self.b.loc = e.loc
        arg = AtomArg(mem, e.op)
        out = []
        for k in range(size):
            dst = self.b.reg(mem.elem, "old")
            srcs = (self.iadd(index, Imm(k, Scalar.I32)), *(v[k] for v in values))
            self.b.emit(Op.ATOM, (dst,), srcs, arg)
            out.append(dst)
        return out

    def expr_ArrayDim(self, e: hir.ArrayDim) -> list[Operand]:
        target = self.array(e.array)
        if isinstance(target, StructArray):
            target = target.mems[0]
        if isinstance(target, ArrayViewRef):
            k, part = target.free_parts()[e.dim]
            return [part[3] if part[0] == "slice" else self.extent(target.mem, k)]
        return [self.extent(target, e.dim)]


def _gcd(a: int, b: int) -> int:
    import math
    return math.gcd(a, b) if b else a
