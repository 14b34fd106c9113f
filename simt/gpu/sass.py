"""What the GPU really runs: the SASS that ptxas makes of simt's PTX, as a table.

simt's MIR stands for the SASS instructions ptxas makes of it, but ptxas also reshapes the
code: it unrolls counted loops, issues several iterations' loads before the first use of
the first one, folds address arithmetic and moves uniform values to the uniform datapath.
This module assembles a kernel's PTX (with ``.loc`` line info) for an architecture,
disassembles the cubin and parses it into a pandas DataFrame, one row per instruction:

    addr, opcode, modifiers, operands, predicate, line, function, block, loop

``function`` names the function the instruction is in: the kernel's own, or a subroutine
ptxas calls from it (a division's or a square root's slow path, ``$__internal_...``).
``loop`` is the innermost loop (a backward branch and the code between its target and it)
the instruction is in, -1 outside loops. ``df.attrs`` holds the summaries:

- ``registers``: registers per thread (``ptxas -v``);
- ``loops``: per SASS loop, a dict: ``loop``, ``start``/``end`` (addresses), ``lines`` (source
  lines of its global and shared loads), ``loads`` (LDG and LDS in its body, inner loops left out),
  ``mir_loop`` (index of the MIR block that closes the source loop it was made from, or -1),
  ``mir_loads`` (global and shared loads per iteration of that MIR loop), ``unroll`` (source iterations
  per back edge: ``loads / mir_loads``, 0 when unknown), ``loads_before_first_use``
  (global and shared loads the body issues before the first instruction that reads the first load's
  result: the loads a warp has in flight);
- ``tool``: the disassembler used (nvdisasm gives source lines; cuobjdump does not).

The disassemblers come from the CUDA toolkit or from PyPI (``pip install simt[sass]``:
nvidia-cuda-nvdisasm and nvidia-cuda-cuobjdump); ptxas from the toolkit.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import DeviceError
from . import ptxas

_TOOLS = ("nvdisasm", "cuobjdump")


def find_tool(name: str) -> str | None:
    """``name`` on PATH, else in the bin folder of an installed nvidia-cuda-* wheel."""
    path = shutil.which(name)
    if path is not None:
        return path
    try:
        import nvidia  # the namespace package of NVIDIA's PyPI wheels
    except ImportError:
        return None
    for root in getattr(nvidia, "__path__", []):
        for found in sorted(glob.glob(os.path.join(root, "*", "bin", name))):
            if os.access(found, os.X_OK):
                return found
    return None


def find_disassembler() -> tuple[str, str]:
    """(tool name, path) of nvdisasm (preferred: it prints source lines) or cuobjdump."""
    for name in _TOOLS:
        path = find_tool(name)
        if path is not None:
            return name, path
    raise DeviceError("reading SASS needs nvdisasm or cuobjdump, found neither on PATH nor in an "
                      "installed nvidia-cuda-* wheel; install them with `pip install simt[sass]` "
                      "(nvidia-cuda-nvdisasm, nvidia-cuda-cuobjdump) or add <cuda>/bin to PATH")


def available() -> bool:
    """Whether ptxas and a disassembler are both here."""
    return shutil.which("ptxas") is not None and any(find_tool(n) for n in _TOOLS)


def assemble_cubin(ptx_text: str, arch: str) -> tuple[bytes, dict]:
    """ptxas -v -lineinfo: the cubin and the resource report (registers, ...)."""
    report, cubin = ptxas.run(ptx_text, arch, ["-v", "-lineinfo"])
    return cubin, ptxas.parse_report(report)


def disassemble(cubin: bytes) -> tuple[str, str]:
    """(tool, text): the cubin's SASS, with source lines where the tool prints them."""
    tool, path = find_disassembler()
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "kernel.cubin"
        f.write_bytes(cubin)
        cmd = [path, "-g", "-c", str(f)] if tool == "nvdisasm" else [path, "-sass", str(f)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise DeviceError(f"{tool} failed on the cubin:\n{(proc.stderr + proc.stdout).strip()}")
    return tool, proc.stdout


# ---- parsing ------------------------------------------------------------------------------

_INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
_FUNCTION = re.compile(r"^\s*\.type\s+([$\w.]+),\s*@function")
_NAME = re.compile(r"^\s*([$\w.]+):\s*$")
_LINE = re.compile(r'//## File "(.*)", line (\d+)')
_PRED = re.compile(r"^(@!?U?P(?:T|\d+))\s+")
_TARGET = re.compile(r"`\((\.L_x_\d+)\)|^(0x[0-9a-f]+)$")
_REG = re.compile(r"\bR(\d+)\b(?:\.(64|128))?")
_ENDS_BLOCK = {"BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "CALL", "BPT"}
# opcodes whose first operand is not a register they write
_NO_DEST = {"ST", "STG", "STS", "STL", "RED", "REDG", "BRA", "BRX", "JMP", "JMX", "EXIT", "RET",
            "CALL", "BAR", "MEMBAR", "NOP", "BSSY", "BSYNC", "WARPSYNC", "ERRBAR", "CCTL", "DEPBAR"}


def parse(text: str):
    """The SASS text of one kernel as a DataFrame (see the module docstring)."""
    import pandas as pd
    rows, labels, pending = [], {}, []
    line = -1
    functions, function = set(), ""
    for raw in text.splitlines():
        m = _FUNCTION.match(raw)
        if m:
            functions.add(m.group(1))
            continue
        m = _NAME.match(raw)
        if m and m.group(1) in functions:
            function = m.group(1)
            continue
        m = _LINE.search(raw)
        if m:
            line = int(m.group(2))
            continue
        m = _LABEL.match(raw)
        if m:
            pending.append(m.group(1))
            continue
        m = _INSTR.match(raw)
        if not m:
            continue
        addr, body = int(m.group(1), 16), m.group(2)
        for name in pending:
            labels[name] = addr
        pending = []
        pred = ""
        p = _PRED.match(body)
        if p:
            pred, body = p.group(1), body[p.end():]
        head, _, operands = body.partition(" ")
        opcode, *mods = head.split(".")
        rows.append({"addr": addr, "opcode": opcode, "modifiers": ".".join(mods),
                     "operands": operands.strip(), "predicate": pred, "line": line,
                     "function": function})
    df = pd.DataFrame(rows, columns=["addr", "opcode", "modifiers", "operands", "predicate", "line",
                                     "function"])
    target = []
    for op, operands in zip(df["opcode"], df["operands"]):
        t = _TARGET.search(operands.strip()) if op in ("BRA", "BSSY", "CALL") else None
        if t is None:
            target.append(-1)
        else:
            target.append(labels.get(t.group(1), -1) if t.group(1) else int(t.group(2), 16))
    df["target"] = target
    df["block"] = _blocks(df)
    df["loop"] = _loops(df)
    return df


def _blocks(df) -> list[int]:
    leaders = set(int(t) for t, op in zip(df["target"], df["opcode"]) if t >= 0 and op == "BRA")
    out, block, prev_ends = [], -1, True
    for addr, op in zip(df["addr"], df["opcode"]):
        if prev_ends or addr in leaders:
            block += 1
        out.append(block)
        prev_ends = op in _ENDS_BLOCK
    return out


def back_edges(df) -> list[tuple[int, int]]:
    """(target, branch address) of each backward branch: a loop's body spans them."""
    return [(int(t), int(a)) for a, t, op in zip(df["addr"], df["target"], df["opcode"])
            if op == "BRA" and 0 <= t < a]


def _loops(df) -> list[int]:
    edges = back_edges(df)
    out = []
    for addr in df["addr"]:
        inside = [(end - start, k) for k, (start, end) in enumerate(edges) if start <= addr <= end]
        out.append(min(inside)[1] if inside else -1)
    return out


def _regs(text: str) -> set[int]:
    out = set()
    for m in _REG.finditer(text):
        r, width = int(m.group(1)), m.group(2)
        out.update(range(r, r + (int(width) // 32 if width else 1)))
    return out


def _reads(op: str, operands: str) -> set[int]:
    if op in _NO_DEST:
        return _regs(operands)
    parts = operands.split(",", 1)
    return _regs(parts[1]) if len(parts) > 1 else set()


def loads_before_first_use(body) -> int:
    """Global and shared loads issued, in order, before the first read of the first one's result."""
    loads = 0
    dest: set[int] = set()
    for op, mods, operands in zip(body["opcode"], body["modifiers"], body["operands"]):
        if dest and _reads(op, operands) & dest:
            break
        if op in ("LDG", "LDS"):
            loads += 1
            if not dest:
                first = operands.split(",", 1)[0]
                width = {"64": 2, "128": 4}.get(next((m for m in mods.split(".") if m in ("64", "128")), ""), 1)
                dest = {int(first.strip()[1:]) + k for k in range(width)} if first.strip()[1:].isdigit() else set()
    return loads


# ---- MIR loops ------------------------------------------------------------------------------

def loop_spans(fn) -> list[tuple[int, int]]:
    """(first block, closing block) of each backward branch of a MIR function, in layout order:
    a loop is the blocks between its target and it."""
    from ..ir.mir import Op
    index = {b.label: k for k, b in enumerate(fn.blocks)}
    spans = []
    for b, blk in enumerate(fn.blocks):
        term = blk.instrs[-1] if blk.instrs else None
        if term is None or term.op not in (Op.BR, Op.CBR):
            continue
        for label in _labels(term):
            t = index.get(label)
            if t is not None and t <= b:
                spans.append((t, b))
    return spans


def mir_loops(fn) -> list[dict]:
    """Loops of a MIR function that a block closes with a backward branch: per loop the
    closing block, its first block, its global and shared loads per iteration (inner loops left out)
    and their source lines."""
    spans = loop_spans(fn)
    out = []
    for t, b in spans:
        inner = [s for s in spans if s != (t, b) and t <= s[0] and s[1] <= b]
        loads, nbytes, lines = 0, 0, set()
        for k in range(t, b + 1):
            if any(s[0] <= k <= s[1] for s in inner):
                continue
            for ins in fn.blocks[k].instrs:
                if is_load(ins):
                    loads += 1
                    nbytes += mir_load_bytes(ins)
                    if ins.loc is not None:
                        lines.add(ins.loc.line)
        out.append({"first": t, "last": b, "loads": loads, "bytes": nbytes, "lines": lines})
    return out


WIDE_LOADS = True    # False: a vector load (LDS.128) counts as one source load in an unroll factor


def load_bytes(modifiers: str) -> int:
    """Bytes a lane loads in one SASS LDG/LDS, from its modifiers (``E.128``: 16, ``64``: 8,
    ``U8``/``S8``: 1, ``U16``/``S16``: 2, else 4)."""
    mods = set(str(modifiers).split("."))
    for token, n in (("128", 16), ("64", 8), ("U16", 2), ("S16", 2), ("U8", 1), ("S8", 1)):
        if token in mods:
            return n
    return 4


def mir_load_bytes(ins) -> int:
    """Bytes a lane reads in one MIR load (its destination registers' scalars)."""
    elem = getattr(ins.arg, "elem", None)
    return max(1, len(ins.dsts)) * (elem.nbytes if elem is not None else 4)


def unroll_of(sass_loads, mir_loads: int, mir_bytes: int) -> float:
    """Source iterations the SASS loads ``sass_loads`` (rows of a SASS table) make, against an
    iteration's ``mir_loads`` loads of ``mir_bytes`` bytes: by bytes, as ptxas merges the
    loads of neighbouring iterations into one vector load (``vs[j]`` for 4 ``j`` in one
    LDS.128), else by count."""
    if WIDE_LOADS and mir_bytes:
        return sum(load_bytes(m) for m in sass_loads["modifiers"]) / mir_bytes
    return len(sass_loads) / mir_loads if mir_loads else 0.0


def is_load(ins) -> bool:
    """A MIR load of global or shared memory: what ptxas issues as LDG or LDS, and hoists
    ahead of its uses."""
    from ..ir.mir import Op, Space
    return ins.op is Op.LD and ins.arg.space in (Space.GLOBAL, Space.SHARED)


def _labels(term) -> list[str]:
    arg = term.arg
    if isinstance(arg, str):
        return [arg]
    if isinstance(arg, (tuple, list)):
        return [a for a in arg if isinstance(a, str)]
    return []


def loop_summaries(df, fn=None) -> list[dict]:
    """Per SASS loop: its global and shared loads, the MIR loop it comes from, unroll factor and loads
    in flight (see the module docstring)."""
    mloops = mir_loops(fn) if fn is not None else []
    out = []
    after = -1                                      # the MIR loop the previous SASS loop matched
    for k, (start, end) in sorted(enumerate(back_edges(df)), key=lambda e: e[1]):
        body = df[(df["addr"] >= start) & (df["addr"] <= end)]
        own = body[body["loop"] == k]
        ldg = own[own["opcode"].isin(["LDG", "LDS"])]           # global and shared loads
        lines = set(int(x) for x in ldg["line"] if x >= 0)
        best, best_n = None, 0
        with_loads = [ml for ml in mloops if ml["loads"]]
        if not lines and len(with_loads) == 1:     # no line info (cuobjdump): the only candidate
            best, best_n = with_loads[0], len(ldg)
        for ml in with_loads:
            n = int(ldg["line"].isin(ml["lines"]).sum())
            if n > best_n or (n == best_n and n and _in_order(ml, best, after, len(ldg))):
                best, best_n = ml, n
        if best is not None:
            after = best["last"]
        unroll = (round(unroll_of(ldg[ldg["line"].isin(best["lines"])] if lines else ldg,
                                  best["loads"], best["bytes"])) if best is not None else 0)
        out.append({"loop": k, "start": start, "end": end, "lines": sorted(lines),
                    "loads": len(ldg), "mir_loop": best["last"] if best else -1,
                    "mir_loads": best["loads"] if best else 0, "unroll": int(unroll),
                    "loads_before_first_use": loads_before_first_use(own)})
    return out


_GLOBAL_ATOMICS = ("ATOMG", "REDG", "ATOM", "RED")


def warp_aggregated_lines(df) -> set[int]:
    """Source lines whose global atomics ptxas aggregated per warp: at a uniform address, an
    integer atomic becomes a vote of the active lanes (VOTEU.ANY), a leader (FLO) and one
    atomic by the leader alone (predicated), with the lanes' values summed first (REDUX) or
    counted (POPC) and the old value shared by a shuffle. Such a warp sends one lane's
    atomic to the L2, not one a lane. Empty without line info (cuobjdump)."""
    if df is None or "line" not in df or not (df["line"] >= 0).any():
        return set()
    votes = set(df.loc[(df["opcode"] == "VOTEU") & df["modifiers"].str.contains("ANY"), "line"])
    atoms = df[df["opcode"].isin(_GLOBAL_ATOMICS) & (df["predicate"] != "") & df["line"].isin(votes)]
    return {int(x) for x in atoms["line"] if x >= 0}


def _in_order(ml, best, after: int, n_ldg: int) -> bool:
    """Between two MIR loops whose loads share the SASS loop's lines (nvcc's unrolled loop
    and its remainder loop carry one source line), prefer the next one in program order
    after the previous match whose loads per iteration divide the SASS loop's: ptxas lays
    loops out in the PTX's order."""
    def fits(m):
        return m["last"] > after and n_ldg % m["loads"] == 0
    return fits(ml) and not fits(best)


_ENTRY = re.compile(r"^[ \t]*(?:\.visible[ \t]+|\.weak[ \t]+)?\.entry[ \t]+([\w$.]+)", re.M)


def only_entry(text: str, name: str) -> str:
    """A PTX module with every kernel but ``name`` taken out (its functions, variables and
    header kept), so that the SASS disassembled is that kernel's alone."""
    out, at = [], 0
    for m in _ENTRY.finditer(text):
        if m.group(1) == name or m.start() < at:
            continue
        open_ = text.find("{", text.find(")", m.end()))
        if open_ < 0:
            break
        depth, k = 0, open_
        while k < len(text):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth == 0:
                break
            k += 1
        out.append(text[at:m.start()])
        at = k + 1
    out.append(text[at:])
    return "".join(out)


def sass_of_function(fn, arch: str = "sm_90"):
    """The SASS table of a compiled MIR function (cached on it per architecture)."""
    cache = fn.__dict__.setdefault("_sass_cache", {})
    if arch in cache:
        df = cache[arch]
        if df.attrs["wide_loads"] != WIDE_LOADS:     # (the unroll factors follow the switch)
            df.attrs["loops"], df.attrs["wide_loads"] = loop_summaries(df, fn), WIDE_LOADS
        return df.copy()
    source = fn.__dict__.get("source_ptx")          # an imported kernel: the PTX it came from
    if source is not None:
        ptx_text = only_entry(*source)
    else:
        from .ptx import emit
        ptx_text = emit(fn, arch, lineinfo=True)[0]
    cubin, info = assemble_cubin(ptx_text, arch)
    tool, text = disassemble(cubin)
    df = parse(text)
    df.attrs["arch"] = arch
    df.attrs["tool"] = tool
    df.attrs["registers"] = info["registers"]
    df.attrs["loops"], df.attrs["wide_loads"] = loop_summaries(df, fn), WIDE_LOADS
    cache[arch] = df
    return df.copy()
