"""Warp's forms beyond core Python, type-checked for the front end (a mixin of
FunctionChecker): struct fields as places, captured vector and struct constants, calls that
update their arguments (``randf(state)``, ``wp.ref``), ``reversed(range(...))``, and
component slices (``v[0:2]``, ``t.p``) read and written."""
from __future__ import annotations

import ast
import copy
from typing import Any

import numpy as np

from ..errors import CompileError
from . import hir
from .frontend_rules import ArrayPlace, PartialIndex, adapt, component_count, component_type, constant
from .types import (VOID, AnyType, ArrayType, MatrixType, Scalar, StructType, TransformType,
                    TupleType, matrix_type, scalar_of, vector_type)


_TRANSFORM_PARTS = {"transform_get_translation": 0, "transform_get_rotation": 3}


class WarpForms:
    """Mixed into FunctionChecker; uses its ``value``, ``place``, ``call_builtin``... """

    def reversed_bounds(self, bounds: list[hir.Expr], node: ast.AST) -> list[hir.Expr]:
        """reversed(range(a, b, s)) as a range, the way Warp's iter_reverse computes it:
        from the last element a + ((b - a - sign(s)) / s) * s down to a, step -s (empty stays
        empty)."""
        a, b, s = (self.call_builtin("int32", [x], node) if x.type is not Scalar.I32 else x
                   for x in bounds)

        def lit(v):
            return hir.Const(Scalar.I32, a.loc, value=v, literal=True)

        def op(name, x, y):
            return self.binary(name, name, x, y, node)

        if isinstance(s, hir.Const):          # the usual case: the step's sign is known
            step = int(s.value)
            empty = op("ge", a, b) if step > 0 else op("le", a, b)
            sign, neg_s = lit(1 if step > 0 else -1), lit(-step)
        else:
            up = op("gt", s, lit(0))
            empty = self.call_builtin("where", [up, op("ge", a, b), op("le", a, b)], node)
            sign = self.call_builtin("where", [up, lit(1), lit(-1)], node)
            neg_s = self.call_builtin("neg", [s], node)
        last = op("add", a, op("mul", op("div", op("sub", op("sub", b, a), sign), s), s))
        start = self.call_builtin("where", [empty, a, last], node)
        stop = self.call_builtin("where", [empty, a, op("sub", a, s)], node)
        return [start, stop, neg_s]

    def struct_field_place(self, node: ast.Attribute):
        """``s.field`` as a place when ``s`` names (a part of) a struct, else None. A field
        holding an array is returned as a place of ArrayType (the array to index)."""
        try:
            base = self.place(node.value)
        except CompileError:
            return None
        if not isinstance(base.type, StructType):
            return None
        k = base.type.field_index(node.attr)
        if k < 0:
            raise self.error(f"struct {base.type.name} has no field {node.attr!r}", node)
        return self.extend_place(base, hir.Const(Scalar.I32, self.loc(node), value=k), node)

    def composite_constant(self, obj: Any, node: ast.AST) -> hir.Expr | None:
        """A captured vector/matrix/quaternion or struct value, as an expression building it."""
        t = getattr(obj, "_simt_value_type", None)
        if t is not None and obj.shape == tuple(np.shape(obj)):
            from .builtins import constructor_for
            parts = [hir.Const(scalar_of(t), self.loc(node), value=v.item())
                     for v in np.asarray(obj).reshape(-1)]
            return self.call_builtin(constructor_for(t), parts, node)
        st = getattr(type(obj), "_simt_type", None)
        if isinstance(st, StructType) and hasattr(obj, "numpy_value"):
            fields = []
            for fname, ftype in st.fields:
                v = getattr(obj, fname)
                if isinstance(ftype, ArrayType):
                    return None                     # arrays are passed, not captured
                e = constant(v, self.loc(node)) or self.composite_constant(v, node)
                if e is None:
                    return None
                fields.append(adapt(e, ftype))
            return hir.StructNew(st, self.loc(node), fields=fields)
        return None

    def write_back(self, result: AnyType, args: list[hir.Expr], inout, node, make_call,
                   arrays: bool = False) -> hir.Expr:
        """A call updating arguments ``inout``: its full result is (result, new values...).
        Array elements are written back only for ``ref`` parameters (``arrays``): a builtin's
        state argument read from an array is a temporary, as in Warp."""
        updated = [args[k] for k in inout if k < len(args)]
        parts = ([] if result == VOID else [result]) + [a.type for a in updated]
        call = make_call(TupleType(tuple(parts)))
        targets = [self.write_target(a) for a in updated]
        if not arrays:
            targets = [None if isinstance(t, hir.ArrayLoad) else t for t in targets]
        self.updated_by_calls.update(t[0] for t in targets if isinstance(t, tuple))
        return hir.WriteBack(result, self.loc(node), call=call, targets=targets,
                             target_types=[a.type for a in updated])

    @staticmethod
    def write_target(e: hir.Expr):
        """Where an updated argument came from: (variable, component path), an array element
        (its ArrayLoad), or None when it is no place (a temporary)."""
        if isinstance(e, hir.ArrayLoad):
            return e
        path = []
        while isinstance(e, hir.Extract) and isinstance(e.index, hir.Const):
            path.insert(0, e.index)
            e = e.base
        part = _TRANSFORM_PARTS.get(getattr(e, "builtin", None))
        if part is not None and len(path) == 1 and isinstance(e.args[0].type, TransformType):
            # t.p.x, t.q.w: a scalar of the transform itself (p is its components 0-2, q 3-6)
            k = hir.Const(Scalar.I32, path[0].loc, value=part + int(path[0].value))
            e, path = e.args[0], [k]
            if isinstance(e, hir.ArrayLoad):
                return hir.ArrayLoad(scalar_of(e.type), e.loc, array=e.array, indices=e.indices,
                                     path=e.path + path)
        return (e.name, path) if isinstance(e, hir.Var) and hir.is_value_type(e.type) else None

    # ---- array slices: a[2:n], a[s:e:k, 1] (views, as Warp's array slicing in kernels) ----------
    def array_slice(self, base, keys: list[ast.expr], node: ast.AST):
        at = base.array.type
        if at.shape is not None:
            raise self.error("slices of shared arrays are not supported; index them", node)
        if isinstance(at.dtype, StructType):
            raise self.error("slices of arrays of structs are not supported; index them", node)
        parts = list(base.indices)
        if len(parts) + len(keys) > at.ndim:
            raise self.error(f"a {at.ndim}-D array takes at most {at.ndim} indices or slices", node)
        for key in keys:
            if isinstance(key, ast.Slice):
                parts.append(self.slice_bounds(base.array, len(parts), key))
            else:
                parts.append(self.index(key))
        return PartialIndex(base.array, [], slices=parts)

    def sliced_view(self, pi, node: ast.AST) -> hir.Expr:
        at = pi.array.type
        fixed = sum(1 for p in pi.slices if not isinstance(p, tuple))
        return hir.ArrayView(ArrayType(at.dtype, at.ndim - fixed), self.loc(node), array=pi.array,
                             indices=[], slices=list(pi.slices))

    def slice_bounds(self, array: hir.Expr, dim: int, key: ast.Slice) -> tuple:
        """(start, step, length) of ``key`` over dimension ``dim`` of ``array``, by Python's
        rules (negative bounds count from the end, bounds are clamped, a negative step runs
        backwards), as int32 expressions evaluated where the view is used."""
        loc = self.loc(key)

        def i32(v):
            return hir.Const(Scalar.I32, loc, value=v)

        def op(name, symbol, a, b):
            return self.binary(name, symbol, a, b, key)

        def pick(cond, a, b):         # both sides are evaluated: no branch, so values reused
            return self.call_builtin("where", [cond, a, b], key)   # across them are defined

        def given(x):
            return None if x is None else hir.once(self.index(x))
        n = hir.once(self.array_dim(array, dim, key))
        start, stop, step = given(key.lower), given(key.upper), given(key.step)
        if isinstance(step, hir.Const) and step.value == 0:
            raise self.error("slice step cannot be zero", key.step)

        def wrap(x, lo, hi):          # x < 0 counts from the end; then clamp to [lo, hi]
            x = hir.once(pick(op("lt", "<", x, i32(0)), op("add", "+", x, n), x))
            return hir.once(self.call_builtin("clamp", [x, lo, hi], key))

        def forward():
            s = i32(0) if start is None else wrap(start, i32(0), n)
            e = n if stop is None else wrap(stop, i32(0), n)
            k = i32(1) if step is None else step
            span = op("div", "/", op("sub", "-", op("add", "+", op("sub", "-", e, s), k), i32(1)), k)
            return s, pick(op("gt", ">", e, s), span, i32(0))

        def backward():
            last = hir.once(op("sub", "-", n, i32(1)))
            s = last if start is None else wrap(start, i32(-1), last)
            e = i32(-1) if stop is None else wrap(stop, i32(-1), last)
            span = op("div", "/", op("sub", "-", op("sub", "-", op("sub", "-", s, e), step), i32(1)),
                      op("sub", "-", i32(0), step))
            return s, pick(op("gt", ">", s, e), span, i32(0))
        if step is None or (isinstance(step, hir.Const) and step.value > 0):
            s, length = forward()
        elif isinstance(step, hir.Const):
            s, length = backward()
        else:
            up = hir.once(op("gt", ">", step, i32(0)))
            (s1, l1), (s2, l2) = forward(), backward()
            s, length = pick(up, s1, s2), pick(up, l1, l2)
        return hir.once(s), (i32(1) if step is None else step), hir.once(length)

    # ---- component slices: v[0:2], m[1:3], t.p, t.q --------------------------------------------
    def slice_picks(self, t: AnyType, key: ast.Slice) -> list[int]:
        """The component indices a constant slice selects (Python's slice rules)."""
        def bound(x):
            if x is None:
                return None
            known = self.literal_local(x)
            if type(known) is int:              # n = 3 earlier in the body: a constant, as in Warp
                return known
            v = self.value(x)
            if not (isinstance(v, hir.Const) and isinstance(v.value, int)):
                raise self.error("slice bounds must be constant integers (literals, or locals bound once to one)", x)
            return int(v.value)
        picks = list(range(*slice(bound(key.lower), bound(key.upper), bound(key.step))
                           .indices(component_count(t))))
        if not picks:
            raise self.error("this slice selects no components", key)
        return picks

    def sliced_type(self, t: AnyType, picks: list[int]) -> AnyType:
        if isinstance(t, MatrixType):
            return matrix_type(t.elem, len(picks), t.cols)
        return vector_type(scalar_of(t), len(picks))

    def slice_read(self, base: hir.Expr, key: ast.Slice, node: ast.AST) -> hir.Expr:
        if component_count(base.type) == 0 or isinstance(base.type, StructType):
            raise self.error(f"a {base.type} cannot be sliced", node)
        picks = self.slice_picks(base.type, key)
        return hir.Swizzle(self.sliced_type(base.type, picks), self.loc(node), base=base, picks=picks)

    def slice_place(self, base_place, picks: list[int], value_type: AnyType, node: ast.AST) -> "MultiPlace":
        places = []
        for k in picks:
            p = copy.copy(base_place)
            p.path = list(base_place.path)
            if isinstance(p, ArrayPlace):
                p.indices = list(base_place.indices)
            places.append(self.extend_place(p, hir.Const(Scalar.I32, self.loc(node), value=k), node))
        return MultiPlace(value_type, base_place, picks, places)

    def transform_part_place(self, node: ast.Attribute):
        """``t.p`` / ``t.q`` of a transform variable or array element, as a place; else None."""
        if node.attr not in ("p", "q"):
            return None
        try:
            base = self.place(node.value)
        except Exception:  # noqa: BLE001 - not a place: the caller reports it
            return None
        if not isinstance(base.type, TransformType):
            return None
        elem = base.type.elem
        if node.attr == "p":
            return self.slice_place(base, [0, 1, 2], vector_type(elem, 3), node)
        from .types import quat_type
        return self.slice_place(base, [3, 4, 5, 6], quat_type(elem), node)

    def store_multi(self, place: "MultiPlace", value: hir.Expr, node: ast.AST) -> hir.Stmt:
        """Each selected component from a temporary holding the value (evaluated once), at
        the place's indices (evaluated once, after the value)."""
        evaluate_place_once(place)
        value = adapt(value, place.type)
        if component_count(value.type) != len(place.places) or \
                scalar_of(value.type) is not scalar_of(place.type):
            raise self.error(f"cannot store a {value.type} into {len(place.places)} components of "
                             f"type {scalar_of(place.type)}", node)
        self.temps += 1
        tmp = f"__simt_slice{self.temps}"
        stmts = [self.assign_name(tmp, value, node)]
        var = hir.Var(value.type, self.loc(node), name=tmp)
        for i, p in enumerate(place.places):
            part = hir.Extract(component_type(value.type), self.loc(node), base=var,
                               index=hir.Const(Scalar.I32, self.loc(node), value=i))
            stmts.append(self.store(p, part, node))
        return hir.Seq(self.loc(node), body=stmts)

    def multi_value(self, place: "MultiPlace", node: ast.AST) -> hir.Expr:
        base = self.place_value(place.base, node)
        return hir.Swizzle(place.type, self.loc(node), base=base, picks=place.picks)


    # ---- loops unrolled for static() -----------------------------------------------------
    def static_reads(self, node: ast.For, var: str) -> bool:
        """Whether the loop body reads ``var`` inside ``static(...)``."""
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[-1] == "static":
                if any(isinstance(m, ast.Name) and m.id == var for a in n.args for m in ast.walk(a)):
                    return True
        return False


    def unrolled_for(self, node: ast.For, var: str, values: range) -> list:
        """A loop over a constant range whose body reads its variable in ``static()``: the body
        once per value, with ``static()`` seeing that value (as Warp unrolls it)."""
        for n in ast.walk(node):
            if isinstance(n, (ast.Break, ast.Continue)):
                raise self.error("break/continue in a loop unrolled for static() is not supported", n)
        out = []
        self.declare(var, Scalar.I32, node.target)
        self.updated_by_calls.add(var)            # assigned once per copy of the body
        for v in values:
            out.append(self.assign_name(var, hir.Const(Scalar.I32, self.loc(node), value=v), node))
            self.static_values[var] = v
            out.extend(self.block(node.body))
        return out



    def assigns(self, body: list, name: str) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                   for stmt in body for n in ast.walk(stmt))


def evaluate_place_once(place) -> None:
    """Wrap a place's index and component expressions in ``hir.Once``, so that reading it and
    storing to it (``a[f()] += x``, ``v[i][0:2] += w``) evaluates each of them once. The parts
    of a MultiPlace share its base's expressions: they share one Once each."""
    wrapped: dict[int, hir.Expr] = {}

    def once(e: hir.Expr) -> hir.Expr:
        if id(e) not in wrapped:
            wrapped[id(e)] = hir.once(e)
        return wrapped[id(e)]
    def visit(p) -> None:
        if isinstance(p, MultiPlace):
            for part in (p.base, *p.places):
                visit(part)
            return
        if isinstance(p, ArrayPlace):
            p.indices = [once(i) for i in p.indices]
        p.path = [once(k) for k in p.path]
    visit(place)


class MultiPlace:
    """Several components of one place assigned together (``v[0:2] = w``, ``t.p = p``)."""

    def __init__(self, type: AnyType, base, picks: list[int], places: list):
        self.type = type
        self.base = base
        self.picks = picks
        self.places = places

