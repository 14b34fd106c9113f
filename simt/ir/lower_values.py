"""Lowering of Warp's value forms beyond core Python (a mixin of the Lowerer): struct values
(their array fields are compile-time slots holding a MemRef), calls that update arguments,
component slices, print statements, and kernel parameters of struct and struct-array type."""
from __future__ import annotations

from . import hir
from ..errors import CompileError
from .frontend_rules import component_type
from .lower_memory import ArrayViewRef, StructArray, struct_leaves
from .mir import Imm, MemRef, Op, Operand, Reg, Space
from .types import (VOID, AnyType, ArrayType, Scalar, StructType, TupleType, flat_count,
                    flat_slots, scalar_of)


def flat_size(t: AnyType) -> int:
    if isinstance(t, TupleType):
        return sum(flat_size(e) for e in t.elems)
    if t == VOID:
        return 0
    if isinstance(t, ArrayType):      # an array field of a struct: one slot
        return 1
    return flat_count(t)


def scalar_types(t: AnyType) -> list:
    """What each flat position of a value of type ``t`` holds: a Scalar, or an ArrayType for
    an array field of a struct (that position holds the array's MemRef, not a register)."""
    if isinstance(t, TupleType):
        return [s for e in t.elems for s in scalar_types(e)]
    if t == VOID:
        return []
    return flat_slots(t)


class _NoArray:
    """The array field of a struct built without one (``S()``): an error if it is used."""

    def __repr__(self) -> str:
        return "<no array>"


NO_ARRAY = _NoArray()


def is_array_slot(x) -> bool:
    return isinstance(x, (MemRef, StructArray, ArrayViewRef, _NoArray))


def array_param_mems(name: str, t: ArrayType) -> list[MemRef]:
    """The global arrays an array parameter is: itself, or for an array of structs one array
    per leaf field (``a.pos``, ``a.vel``...)."""
    if isinstance(t.dtype, StructType):
        leaves = struct_leaves(t.dtype)
        bad = [path for path, lt in leaves if isinstance(lt, ArrayType)]
        if bad:
            raise CompileError(f"arrays of structs that hold arrays (field {bad[0]!r} of "
                               f"{t.dtype.name}) are not supported")
        return [MemRef(f"{name}.{path}", Space.GLOBAL, scalar_of(lt), t.ndim, flat_count(lt),
                       dtype_name=str(lt)) for path, lt in leaves]
    return [MemRef(name, Space.GLOBAL, scalar_of(t.dtype), t.ndim, flat_count(t.dtype),
                   dtype_name=str(t.dtype))]


def param_slots(name: str, t: AnyType) -> list[tuple[str, object]]:
    """(parameter name, Scalar or ArrayType) for each flat slot of a kernel parameter:
    ``v_0``, ``v_1``... for a composite, ``s.field`` for a struct's fields."""
    if isinstance(t, StructType):
        return [slot for fname, ft in t.fields
                for slot in ([(f"{name}.{fname}", ft)] if isinstance(ft, ArrayType)
                             else param_slots(f"{name}.{fname}", ft))]
    n = flat_count(t)
    return [(name if n == 1 else f"{name}_{i}", scalar_of(t)) for i in range(n)]


class ValueLowering:
    """Mixed into the Lowerer; uses its ``b``, ``frame``, ``value``, ``assign``..."""

    def stmt_Print(self, s: hir.Print) -> None:
        ops = [o for a in s.args for o in self.value(a)]
        self.b.loc = s.loc
        self.b.emit(Op.PRINT, (), tuple(ops), s.fmt)

    def stmt_Seq(self, s: hir.Seq) -> None:
        """The straight-line parts of one source statement: they share its once-evaluated
        values (``v[f()][0:2] += w`` stores each component at the one index it read)."""
        for part in s.body:
            self.b.loc = part.loc
            getattr(self, "stmt_" + type(part).__name__)(part)

    def expr_Swizzle(self, e: hir.Swizzle) -> list[Operand]:
        ops = self.value(e.base)
        stride = flat_size(component_type(e.base.type))
        return [o for k in e.picks for o in ops[k * stride:(k + 1) * stride]]

    def expr_StaticKeyword(self, e: hir.StaticKeyword) -> list[Operand]:
        return []

    def expr_WriteBack(self, e: hir.WriteBack) -> list[Operand]:
        ops = self.value(e.call)
        self.b.loc = e.loc
        n = flat_size(e.type)
        result, rest = ops[:n], ops[n:]
        if rest:      # the result may name the same registers: keep it before storing
            result = [self.b.mov(o) if isinstance(o, Reg) and o.id in self.pinned else o
                      for o in result]
        for target, t in zip(e.targets, e.target_types):
            k = flat_size(t)
            value, rest = rest[:k], rest[k:]
            if target is None:
                continue
            if isinstance(target, hir.ArrayLoad):          # an array element, by reference
                self.store(target, value)
                continue
            name, path = target
            if not path:
                self.assign(name, t, value)
                continue
            path_ops = [self.value(p)[0] for p in path]
            regs = self.frame.vars[name]
            for _, offset, size in self.component_slots(self.frame.types[name], path_ops):
                target_regs = regs[offset:offset + size]
                self.move_into(target_regs, value)
        return result

    def expr_StructNew(self, e: hir.StructNew) -> list[Operand]:
        out: list = []
        for (_, t), value in zip(e.type.fields, e.fields):
            if value is None and isinstance(t, ArrayType):
                out.append(NO_ARRAY)
            elif value is None:
                out.extend(NO_ARRAY if isinstance(s, ArrayType) else Imm(False, s) if s is Scalar.BOOL
                           else self.b.imm(0, s) for s in scalar_types(t))
            elif isinstance(t, ArrayType):
                out.append(self.array(value))
            else:
                out.extend(self.value(value))
        return out

