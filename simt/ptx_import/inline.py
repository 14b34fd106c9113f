"""Device function calls, inlined when the PTX is read: each ``call`` to a ``.func`` defined in
the module becomes a copy of its body, with its registers, labels and local arrays renamed
apart and its parameters passed through registers.

A call site looks like (nvcc, NVVM and libdevice all emit this)::

    { .param .b64 param0;  st.param.b64 [param0+0], %rd1;  .param .b64 retval0;
      call.uni (retval0), f, (param0);  ld.param.b64 %rd2, [retval0+0]; }

``st.param`` into a call's parameter becomes a move into a fresh register; the callee's
``ld.param`` of its own parameter a move out of it, its ``st.param`` into its return value a
move into another, its ``ret`` a branch to the end of the copy, and the caller's ``ld.param``
of the return value a move out of that. Recursion, indirect calls, parameters passed as
bytes, and calls to functions only declared here are refused (CompileError at the call).
"""
from __future__ import annotations

import dataclasses
import itertools

from . import parser as P

MAX_DEPTH = 8


def inline_calls(entry: P.Entry, funcs: dict[str, P.Entry], path: str) -> list:
    if not any(isinstance(s, P.Instruction) and s.opcode == "call" for s in entry.body):
        return entry.body
    counter = itertools.count()
    return _inline(entry, entry.body, funcs, path, counter, ())


def _move(dst: str, src: P.Operand, typ: str, s: P.Instruction) -> P.Instruction:
    bits = "".join(ch for ch in typ if ch.isdigit())
    return P.Instruction("mov", (f"b{bits}",), (P.Reg(dst), src), s.guard, s.negated, s.line, s.loc,
                         f"mov.b{bits} {dst}, ... (a call's argument or result)")


def _inline(entry: P.Entry, body: list, funcs: dict, path: str, counter, stack: tuple) -> list:
    out: list = []
    site_args: dict[str, tuple[str, str]] = {}      # call-site param name -> (register, type)
    results: dict[str, tuple[str, str]] = {}        # call-site retval name -> (register, type)
    for s in body:
        if not isinstance(s, P.Instruction):
            out.append(s)
            continue
        if s.opcode == "st" and "param" in s.mods and _param_name(s.operands[0]) is not None:
            name = _param_name(s.operands[0])
            reg = f"%arg{next(counter)}"
            typ = s.mods[-1]
            entry.regs[reg] = _reg_type(typ)
            site_args[name] = (reg, typ)
            out.append(_move(reg, s.operands[1], typ, s))
            continue
        if s.opcode == "ld" and "param" in s.mods and _param_name(s.operands[1]) in results:
            reg, typ = results[_param_name(s.operands[1])]
            out.append(_move(s.operands[0].name, P.Reg(reg), s.mods[-1], s))
            continue
        if s.opcode != "call":
            out.append(s)
            continue
        out.extend(_expand(entry, s, funcs, path, counter, stack, site_args, results))
    return out


def _expand(entry, s: P.Instruction, funcs, path, counter, stack, site_args, results) -> list:
    rets, target, args = _call_parts(s)
    callee = funcs.get(target)
    if callee is None:
        raise P.ptx_error(path, s.line, f"`call {target}`: {target} is declared but not defined in "
                          f"this module (a library function: printf, malloc, Numba's float16 "
                          f"operators); only calls to functions the module defines are supported")
    if target in stack or len(stack) >= MAX_DEPTH:
        raise P.ptx_error(path, s.line, f"`call {target}`: recursive calls are not supported")
    if s.guard is not None:
        raise P.ptx_error(path, s.line, f"`call {target}` under a predicate is not supported")
    if callee.problem is not None:
        raise callee.problem
    if len(args) != len(callee.params) or len(rets) != len(callee.returns):
        raise P.ptx_error(path, s.line, f"`call {target}` passes {len(args)} arguments and takes "
                          f"{len(rets)} results; {target} has {len(callee.params)} and "
                          f"{len(callee.returns)}")
    n = next(counter)
    prefix = f"%i{n}_"
    end = f"$I{n}_end"
    renamed_regs = {r: prefix + r.lstrip("%") for r in callee.regs}
    for r, typ in callee.regs.items():
        entry.regs[renamed_regs[r]] = typ
    labels = {lab.name for lab in callee.body if isinstance(lab, P.Label)}
    locals_ = {v.name: f"{v.name}_i{n}" for v in callee.local}
    entry.local += [dataclasses.replace(v, name=locals_[v.name]) for v in callee.local]
    params = {}
    for p, a in zip(callee.params, args):
        if a not in site_args:
            raise P.ptx_error(path, s.line, f"`call {target}`: argument {a} was not stored before the call")
        params[p.name] = site_args[a]
    ret_regs = {}
    for p, r in zip(callee.returns, rets):
        reg = f"%ret{n}_{p.name}"
        entry.regs[reg] = _reg_type(p.type)
        ret_regs[p.name] = reg
        results[r] = (reg, p.type)

    def name_of(x):
        if isinstance(x, P.Reg):
            parts = x.name.split("|")
            return P.Reg("|".join(renamed_regs.get(q, q) for q in parts))
        if isinstance(x, P.Sym):
            if x.name in labels:
                return P.Sym(f"$I{n}_{x.name}")
            return P.Sym(locals_.get(x.name, x.name))
        if isinstance(x, P.Mem):
            return P.Mem(name_of(x.base), x.offset)
        if isinstance(x, P.Vec):
            return P.Vec(tuple(name_of(y) for y in x.items))
        return x

    body = []
    for t in callee.body:
        if isinstance(t, P.Label):
            body.append(P.Label(f"$I{n}_{t.name}", t.line))
            continue
        guard = renamed_regs.get(t.guard, t.guard) if t.guard else None
        if t.opcode == "ld" and "param" in t.mods and _param_name(t.operands[1]) in params:
            if t.operands[1].offset:
                raise P.ptx_error(path, t.line, "a parameter read at an offset (a struct passed by value)")
            reg, _ = params[_param_name(t.operands[1])]
            body.append(dataclasses.replace(_move(renamed_regs.get(t.operands[0].name, t.operands[0].name),
                                                  P.Reg(reg), t.mods[-1], t), guard=guard))
            continue
        if t.opcode == "st" and "param" in t.mods and _param_name(t.operands[0]) in ret_regs:
            if t.operands[0].offset:
                raise P.ptx_error(path, t.line, "a result stored at an offset (a struct returned by value)")
            body.append(dataclasses.replace(_move(ret_regs[_param_name(t.operands[0])],
                                                  name_of(t.operands[1]), t.mods[-1], t), guard=guard))
            continue
        if t.opcode == "ret":
            body.append(dataclasses.replace(t, opcode="bra", mods=(), operands=(P.Sym(end),), guard=guard))
            continue
        body.append(dataclasses.replace(t, operands=tuple(name_of(o) for o in t.operands), guard=guard))
    body.append(P.Label(end, s.line))
    return _inline(entry, body, funcs, path, counter, (*stack, target))


def _call_parts(s: P.Instruction) -> tuple[list[str], str, list[str]]:
    """call (r0, r1), f, (a0, a1) -> (["r0", "r1"], "f", ["a0", "a1"]) from the statement text."""
    import re
    text = re.sub(r"^@!?%[\w$]+\s+", "", s.text.strip())
    m = re.match(r"^call(?:\.uni)?\s*(?:\(([^)]*)\)\s*,\s*)?([\w$]+)\s*(?:,\s*\(([^)]*)\))?\s*$", text, re.S)
    if m is None:
        raise P.ptx_error("<ptx>", s.line, f"cannot read the call `{s.text}` (indirect calls are not supported)")
    names = lambda t: [x.strip() for x in (t or "").split(",") if x.strip()]   # noqa: E731
    return names(m.group(1)), m.group(2), names(m.group(3))


def _param_name(o) -> str | None:
    if isinstance(o, P.Mem) and isinstance(o.base, P.Sym):
        return o.base.name
    return None


def _reg_type(typ: str) -> str:
    bits = "".join(ch for ch in typ if ch.isdigit())
    return f"b{bits}" if typ[0] in "bus" else typ
