"""A PTX reader for the kernels nvcc emits: a module of ``.entry`` functions, each a list of
statements (labels, instructions, ``.loc`` line info) with the declarations it needs.

It reads the shape of PTX only; what an instruction means is the lowering's business
(lower.py, ops.py). Every error names the PTX line.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..errors import CompileError
from ..ir.mir import Loc


@dataclass(frozen=True)
class Reg:
    name: str                       # "%r1", "%tid.x"


@dataclass(frozen=True)
class Imm:
    text: str                       # as written: "4", "-1", "0x7f", "0f3F800000"


@dataclass(frozen=True)
class Sym:
    name: str                       # a variable, parameter or label name


@dataclass(frozen=True)
class Vec:
    items: tuple                    # {%f1, %f2}


@dataclass(frozen=True)
class Mem:
    base: Reg | Sym | Imm           # [%rd1+8], [name], [name+4]
    offset: int = 0


Operand = Reg | Imm | Sym | Vec | Mem


@dataclass
class Instruction:
    opcode: str                     # "ld", "setp", ...
    mods: tuple[str, ...]           # ("global", "nc", "f32")
    operands: tuple[Operand, ...]
    guard: str | None = None        # predicate register name
    negated: bool = False           # @!%p
    line: int = 0                   # PTX line
    loc: tuple[int, int, int] | None = None   # (.file number, line, column) from .loc
    text: str = ""

    @property
    def full(self) -> str:
        return ".".join((self.opcode, *self.mods))


@dataclass
class Label:
    name: str
    line: int


@dataclass
class Param:
    name: str
    type: str                       # "u32", "u64", "f32", ...
    line: int


@dataclass
class SharedVar:
    name: str
    nbytes: int
    align: int
    line: int
    dynamic: bool = False           # `.extern .shared x[]`: sized at launch (Triton's metadata)


@dataclass
class Variable:
    """A module-level .global/.const variable: its initial bytes."""
    name: str
    data: bytes
    line: int


@dataclass
class Entry:
    name: str
    params: list[Param]
    regs: dict[str, str] = field(default_factory=dict)      # register name -> type ("b32", "pred")
    shared: list[SharedVar] = field(default_factory=list)
    local: list[SharedVar] = field(default_factory=list)     # per-thread arrays (stack frames)
    body: list[Instruction | Label] = field(default_factory=list)
    line: int = 0
    problem: CompileError | None = None     # the first statement it could not read
    returns: list[Param] = field(default_factory=list)      # a .func's return parameters


@dataclass
class Module:
    version: str = ""
    target: str = ""
    address_size: int = 64
    entries: dict[str, Entry] = field(default_factory=dict)
    files: dict[int, str] = field(default_factory=dict)     # .file number -> path
    variables: dict[str, "Variable | str"] = field(default_factory=dict)  # name -> it, or why not
    shared: list[SharedVar] = field(default_factory=list)     # module-level .shared variables
    funcs: dict[str, Entry] = field(default_factory=dict)     # .func definitions, inlined at calls
    path: str = "<ptx>"
    text: str = ""                                            # the PTX as given (ptxas reads it for timing)


def ptx_error(module_path: str, line: int, message: str) -> CompileError:
    return CompileError(f"PTX line {line}: {message}", Loc(module_path, line, 0))


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_REG_DECL = re.compile(r"\.reg\s+\.(\w+)\s+(.+)")
_SHARED_DECL = re.compile(r"\.shared\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+([\w$]+)\s*(\[(\d*)\])?\s*$")
_PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(?:\.ptr\s+(?:\.\w+\s+)?(?:\.align\s+\d+\s+)?)?"
                    r"([\w$]+)(\s*\[\d*\])?")
_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)\s*\(", re.M)


def parse(text: str, path: str = "<ptx>") -> Module:
    """Read a PTX module; the statements of each ``.entry``, with line numbers."""
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.split("\n")
    mod = Module(path=path, text=text)
    i = 0
    while i < len(lines):
        raw = lines[i].strip()
        lineno = i + 1
        if not raw:
            i += 1
            continue
        if raw.startswith(".version"):
            mod.version = raw.split()[1]
        elif raw.startswith(".target"):
            mod.target = raw.split()[1].rstrip(",")
        elif raw.startswith(".address_size"):
            mod.address_size = int(raw.split()[1])
            if mod.address_size != 64:
                raise ptx_error(path, lineno, ".address_size 32 is not supported (64-bit PTX only)")
        elif raw.startswith(".file"):
            m = re.match(r'\.file\s+(\d+)\s+"([^"]*)"', raw)
            if m:         # a relative path is relative to the PTX file's folder
                name = m.group(2)
                if not os.path.isabs(name) and os.path.isabs(path):
                    name = os.path.join(os.path.dirname(path), name)
                mod.files[int(m.group(1))] = name
        elif raw.startswith(".section"):
            i = _skip_braces(lines, i)
            continue
        elif _ENTRY.match(raw):
            entry, i = _parse_entry(lines, i, path)
            mod.entries[entry.name] = entry
            continue
        elif re.match(r"(\.visible\s+|\.weak\s+|\.extern\s+)*\.func\b", raw):
            # device functions: a definition is read (and inlined where a kernel calls it); a
            # kernel calling one only declared here fails at its `call`
            end = _skip_declaration(lines, i)
            if "{" in "".join(lines[i:end]) and not raw.startswith(".extern"):
                func, i = _parse_entry(lines, i, path, func=True)
                mod.funcs[func.name] = func
            else:
                i = end
            continue
        elif re.match(r"(\.visible\s+|\.extern\s+|\.weak\s+)*\.(global|const|shared)\b", raw):
            # module-level variables: data a kernel reaches by address (a kernel using one
            # that could not be read fails on that operand)
            end = _skip_declaration(lines, i)
            _module_variable(mod, " ".join(lines[i:end]), lineno)
            i = end
            continue
        i += 1
    from .inline import inline_calls
    for entry in (*mod.entries.values(), *mod.funcs.values()):
        _bare_registers(entry)
    for entry in mod.entries.values():
        if entry.problem is None:
            try:
                entry.body = inline_calls(entry, mod.funcs, path)
            except CompileError as e:
                entry.problem = e
        used = {o.name for s in entry.body if isinstance(s, Instruction) for o in _symbols(s)}
        entry.shared += [v for v in mod.shared if v.name in used]
    return mod


def _bare_registers(entry: Entry) -> None:
    """Registers declared without a %, as inline asm does (`.reg .f16 low;`): read as
    registers, not symbols."""
    bare = {r for r in entry.regs if not r.startswith("%")}
    if not bare:
        return

    def fix(o):
        if isinstance(o, Sym) and o.name in bare:
            return Reg(o.name)
        if isinstance(o, Vec):
            return Vec(tuple(fix(x) for x in o.items))
        if isinstance(o, Mem):
            return Mem(fix(o.base), o.offset)
        return o
    for s in entry.body:
        if isinstance(s, Instruction):
            s.operands = tuple(fix(o) for o in s.operands)


def _symbols(s: Instruction):
    for o in s.operands:
        for x in (o.items if isinstance(o, Vec) else (o,)):
            x = x.base if isinstance(x, Mem) else x
            if isinstance(x, Sym):
                yield x


_VARIABLE = re.compile(r"^(?:\.visible\s+|\.extern\s+|\.weak\s+)*\.(global|const|shared)\s+"
                       r"(?:\.align\s+\d+\s+)?\.(\w+)\s+([\w$]+)\s*(?:\[(\d*)\])?"
                       r"\s*(?:=\s*(.*?))?\s*;\s*$", re.S)
_SIZES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "b32": 4, "u32": 4, "s32": 4,
          "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}


def _module_variable(mod: Module, text: str, line: int) -> None:
    m = _VARIABLE.match(text.strip())
    if not m:
        name = re.search(r"([\w$]+)\s*(\[\d*\])?\s*(=|;)", text)
        if name:
            mod.variables[name.group(1)] = f"PTX line {line}: cannot read `{text.strip()[:80]}`"
        return
    space, typ, name, count, init = m.groups()
    if space == "shared" and not init and _SIZES.get(typ):
        # per-block arrays declared at module scope (Numba's shared arrays; Triton's dynamic
        # `global_smem[]`): each kernel that names one gets it
        align = re.search(r"\.align\s+(\d+)", text)
        size = _SIZES[typ] * (int(count) if count else 1)
        mod.shared.append(SharedVar(name, 0 if count == "" else size,
                                    int(align.group(1)) if align else _SIZES[typ], line,
                                    dynamic=count == ""))
        return
    if space == "shared" or "extern" in text.split(name)[0]:
        mod.variables[name] = (f"PTX line {line}: {space} variables declared outside a kernel "
                               f"are not supported")
        return
    size = _SIZES.get(typ)
    if size is None or count == "":
        what = f".{typ} variable" + ("" if count != "" else " of unknown size")
        mod.variables[name] = f"PTX line {line}: a {what} is not supported"
        return
    n = int(count) if count else 1
    data = bytearray(n * size)
    if init:
        items = [x.strip() for x in init.strip().strip("{}").split(",") if x.strip()]
        try:
            for k, item in enumerate(items[:n]):
                data[k * size:(k + 1) * size] = _initial_bytes(item, typ, size)
        except ValueError:
            mod.variables[name] = f"PTX line {line}: the initializer of {name} is not supported"
            return
    mod.variables[name] = Variable(name, bytes(data), line)


def _initial_bytes(item: str, typ: str, size: int) -> bytes:
    import struct
    neg = item.startswith("-")
    body = item.lstrip("+-")
    for prefix, n, fmt in (("0f", 4, "f"), ("0d", 8, "d")):
        if body[:2].lower() == prefix and size == n:
            value = struct.unpack(">" + fmt, bytes.fromhex(body[2:]))[0]
            return struct.pack("<" + fmt, -value if neg else value)
    if typ == "f32":
        return struct.pack("<f", float(item))
    if typ == "f64":
        return struct.pack("<d", float(item))
    return (int(item.rstrip("U"), 0) % (1 << (8 * size))).to_bytes(size, "little")


def _skip_declaration(lines: list[str], i: int) -> int:
    """Past a declaration ending in ';' or a definition's braced body."""
    depth, started = 0, False
    while i < len(lines):
        line = lines[i]
        depth += line.count("{") - line.count("}")
        started = started or "{" in line
        i += 1
        if started and depth <= 0:
            return i
        if not started and line.rstrip().endswith(";") and depth <= 0:
            return i
    return i


def _skip_braces(lines: list[str], i: int) -> int:
    depth, started = 0, False
    while i < len(lines):
        depth += lines[i].count("{") - lines[i].count("}")
        started = started or "{" in lines[i]
        i += 1
        if started and depth <= 0:
            break
    return i


def _parse_entry(lines: list[str], i: int, path: str, func: bool = False) -> tuple[Entry, int]:
    start = i
    header = ""
    while "{" not in lines[i] or ")" not in header + lines[i]:
        header += lines[i] + "\n"
        i += 1
        if i >= len(lines):
            raise ptx_error(path, start + 1, "unterminated .entry")
    before, _, after = lines[i].partition("{")
    header += before
    rets = ""
    if func:
        m = re.search(r"\.func\s*(?:\(([^)]*)\))?\s*([\w$]+)\s*\(", header)
        if m is None:
            raise ptx_error(path, start + 1, "cannot read this .func header")
        rets, name = m.group(1) or "", m.group(2)
        plist = header[m.end():header.rindex(")")]
    else:
        name = _ENTRY.search(header).group(1)
        plist = header[header.index("(") + 1:header.rindex(")")]
    params = []
    for k, piece in enumerate(p.strip() for p in (plist.split(",") + ["|"] + rets.split(","))):
        if piece == "|":              # the return parameters follow
            returns, params = params, []
            continue
        if not piece:
            continue
        m = _PARAM.match(piece)
        if not m:
            raise ptx_error(path, start + 1, f"cannot read parameter {piece!r} of {name}")
        size = re.search(r"\[(\d+)\]", m.group(3) or "")
        if m.group(1) == "b8" and size and int(size.group(1)) in (2, 4, 8):
            # a 2-, 4- or 8-byte value passed as bytes (Triton's fp16 scalars): read as bits
            params.append(Param(m.group(2), f"b{8 * int(size.group(1))}", start + 1))
            continue
        if m.group(3):
            raise ptx_error(path, start + 1, f"parameter {m.group(2)} of {name} is passed by value "
                            f"as bytes (a struct or array argument): not supported in this version")
        params.append(Param(m.group(2), m.group(1), start + 1))
    params, returns = returns, params
    entry = Entry(name, params, line=start + 1, returns=returns)
    pending, pending_line = "", 0
    lines[i] = after
    depth = 1
    loc = None
    while i < len(lines):
        lineno = i + 1
        raw = lines[i].strip()
        i += 1
        if not raw:
            continue
        if re.match(r"\.loc\s", raw):
            parts = raw.replace(",", " ").split()
            loc = (int(parts[1]), int(parts[2]), int(parts[3]) if len(parts) > 3 else 0)
            continue
        if raw.startswith(".pragma"):
            continue
        for piece in re.split(r"(;)", raw):
            piece = piece.strip()
            if piece == ";":
                if pending.strip():
                    try:
                        _statement(entry, pending.strip(), pending_line, loc, path)
                    except CompileError as e:      # raised when this kernel is lowered
                        entry.problem = entry.problem or e
                pending = ""
                continue
            # braces at the start of a statement open and close scopes; later ones are vectors
            while not pending.strip() and piece[:1] in ("{", "}"):
                depth += 1 if piece[0] == "{" else -1
                if depth == 0:
                    return entry, i
                piece = piece[1:].strip()
            if not piece:
                continue
            m = re.match(r"^([\w$]+):(.*)$", piece)
            if m and not pending.strip():
                entry.body.append(Label(m.group(1), lineno))
                piece = m.group(2).strip()
                if not piece:
                    continue
            if not pending.strip():
                pending_line = lineno
            pending += " " + piece
    raise ptx_error(path, start + 1, f"unterminated body of .entry {name}")


def _statement(entry: Entry, text: str, line: int, loc, path: str) -> None:
    if text.startswith(".reg"):
        m = _REG_DECL.match(text)
        if not m:
            raise ptx_error(path, line, f"cannot read register declaration {text!r}")
        typ = m.group(1)
        # half registers are bit containers of their width (half.py reads them as halves)
        typ = {"f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32"}.get(typ, typ)
        for item in m.group(2).split(","):
            item = item.strip()
            rm = re.match(r"^(%[\w$]+)<(\d+)>$", item)
            if rm:
                for k in range(int(rm.group(2))):
                    entry.regs[f"{rm.group(1)}{k}"] = typ
            else:
                entry.regs[item] = typ
        return
    if text.startswith((".shared", ".local")):
        local = text.startswith(".local")
        m = _SHARED_DECL.match(text.replace(".local", ".shared", 1))
        if not m or (m.group(4) and not m.group(5)):
            raise ptx_error(path, line, f"only static arrays are supported, not {text!r} "
                            f"(dynamic shared memory comes in a later version)")
        esize = _SIZES.get(m.group(2))
        if esize is None:
            raise ptx_error(path, line, f"arrays of .{m.group(2)} are not supported")
        (entry.local if local else entry.shared).append(
            SharedVar(m.group(3), esize * int(m.group(5) or 1), int(m.group(1) or esize), line))
        return
    if text.startswith((".global", ".const")):
        raise ptx_error(path, line, f"{text.split()[0]} variables in a kernel are not supported in "
                        f"this version: {text}")
    if text.startswith(".param"):
        if not re.match(r"\.param\s+\.(b|u|s|f)(8|16|32|64)\s+[\w$]+\s*$", text):
            raise ptx_error(path, line, f"a call's parameter {text!r} (a struct or array passed "
                            f"by value) is not supported in this version")
        return                      # a call's scalar parameter: a register once inlined
    if text.startswith("."):
        raise ptx_error(path, line, f"directive {text.split()[0]} is not supported")
    entry.body.append(_instruction(text, line, loc, path))


def _instruction(text: str, line: int, loc, path: str) -> Instruction:
    guard, negated = None, False
    m = re.match(r"^@(!?)(%[\w$]+)\s+(.*)$", text)
    if m:
        negated, guard, text = m.group(1) == "!", m.group(2), m.group(3)
    head, _, rest = text.partition(" ")
    parts = head.split(".")
    if parts[0] == "call":            # read by inline.py from the text
        return Instruction(parts[0], tuple(parts[1:]), (), guard, negated, line, loc, text)
    try:
        operands = tuple(_operand(o) for o in _split_operands(rest.strip())) if rest.strip() else ()
    except ValueError as e:
        raise ptx_error(path, line, f"cannot read operands of `{text}`: {e}") from None
    return Instruction(parts[0], tuple(parts[1:]), operands, guard, negated, line, loc, text)


def _split_operands(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _atom(s: str) -> Reg | Imm | Sym:
    s = s.strip()
    if s.startswith("%") or "|" in s:
        return Reg(s.replace(" ", ""))          # "%r2|%p1", "_|%p1": a result and its predicate
    if re.match(r"^[-+]?(0[fFdD][0-9a-fA-F]+|0[xX][0-9a-fA-F]+U?|\d+U?|\d*\.\d+([eE][-+]?\d+)?)$", s):
        return Imm(s)
    if re.match(r"^[\w$]+$", s):
        return Sym(s)
    raise ValueError(f"unknown operand {s!r}")


def _operand(s: str) -> Operand:
    if s.startswith("{"):
        return Vec(tuple(_atom(x) for x in s[1:-1].split(",")))
    if s.startswith("["):
        inner = s[1:-1].strip()
        m = re.match(r"^([^+\-]+?)\s*([+-])\s*(-?\w+)$", inner)      # [%rd1+8], [%rd1+-4]
        if m:
            off = int(m.group(3), 0)
            return Mem(_atom(m.group(1)), -off if m.group(2) == "-" else off)
        return Mem(_atom(inner))
    if s.startswith("!"):
        raise ValueError("negated predicate operands are not supported")
    return _atom(s)
