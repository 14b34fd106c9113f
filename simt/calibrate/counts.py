"""The counters the clock64 fallback computes instead of reading them from Nsight Compute.

Without the profiler a launch gives only its time. The fit also reads counters that are not
times; where the benchmark knows them, this module computes them:

- instructions executed (``smsp__inst_executed.sum``): the SASS of the measured kernel (the
  program's own cubin, ``cuobjdump -sass``) times the trip counts the manifest gives. A
  benchmark's ``work`` counts executions of one marker instruction (an FFMA of a throughput
  kernel, an LDS of a chase); the kernel's hot loop (the SASS loop holding most markers)
  issues ``len(loop) / markers(loop)`` instructions per marker, so a launch issues ``work``
  times that (times the warps, where ``work`` counts one warp's iterations). ptxas's unroll
  factor cancels; the instructions outside the hot loop are left out, a constant per kernel
  that every slope the fit takes cancels too.
- global-load sectors of an L1 benchmark: the loop's LDG per marker, 32 lanes a line each;
- DRAM bytes of the streams: the bytes the kernel must move (the manifest's ``work``).

The op probes (simt's own PTX, probes.py) count the same way through ``simt.gpu.sass``: the
loop of the probe's SASS, its length over ptxas's unroll factor (the step of the loop's
counter), per step of the probe's loop (``probe_loop``).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import SimtError
from ..gpu import sass

INST = "smsp__inst_executed.sum"
SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
DRAM_READ, DRAM_WRITE = "dram__bytes_read.sum", "dram__bytes_write.sum"


class CountError(SimtError):
    """The SASS of a measured kernel cannot be read or has no loop of the expected shape."""


# bench -> (kernel symbol, marker: "OPCODE.MODIFIERS" as a regex, work counts one warp's markers)
INSTRUCTIONS = {
    "tput_ffma": ("_Z11k_ffma_tputPfffi", r"FFMA", False),
    "tput_imad": ("_Z11k_imad_tputPiiii", r"IMAD", False),
    "tput_ialu2": ("_Z11k_ialu_tputPiiii", r"LOP3\.LUT", False),
    "tput_lop3": ("_Z11k_lop3_tputPiiii", r"LOP3\.LUT", False),
    "tput_dfma": ("_Z11k_dfma_tputPdddi", r"DFMA", False),
    "tput_mufu": ("_Z11k_mufu_tputPfi", r"MUFU\.RSQ", False),
    "tput_shfl": ("_Z11k_shfl_tputPfi", r"SHFL\.BFLY", False),
    "chain_shared": ("_Z14k_shared_chasePKiPii", r"LDS", False),
    "chain_l1": ("_Z14k_global_chasePKimiiPi", r"LDG\.E", False),     # the plain loads: not the .cg loop
    "chain_atomic_shared": ("_Z21k_shared_atomic_chainjiPj", r"ATOMS\.ADD", False),
    "chain_atomic_global": ("_Z14k_atomic_chainPjjiS_", r"ATOMG\..*", False),
    "chain_barrier32": ("_Z14k_barrier_loopPii", r"BAR\.SYNC.*", True),
    "chain_barrier256": ("_Z14k_barrier_loopPii", r"BAR\.SYNC.*", True),
    "chain_barrier1024": ("_Z14k_barrier_loopPii", r"BAR\.SYNC.*", True),
}
# shared f32 atomics are a compare-and-swap loop inside the benchmark's loop: one round a lane
# on one word (value = 1000 words + n), so 32 / words rounds an iteration
CAS_LOOP = ("_Z13k_shared_atomPjiii", r"ATOMS\.CAS.*")
CAS_BENCHES = ("shared_atom_f32_1warp",)
# global-load sectors: work = lane loads, each lane its own line; marker FADD (one a load in source)
SECTOR_BENCHES = {"tput_l1plain_lines32": ("_Z15k_l1_tput_plainPKfPfii", r"LDG\.E", r"FADD")}
# DRAM bytes the kernel must move: bench -> (read share, write share) of ``work``
DRAM_BYTES = {"stream_read": (1.0, 0.0), "stream_copy": (0.5, 0.5)}


# ---- reading SASS ----------------------------------------------------------------------------

def split_functions(text: str) -> dict[str, str]:
    """``cuobjdump -sass`` of a program or cubin: {kernel symbol: its SASS text}."""
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            current = m.group(1)
            out[current] = []
        elif re.fullmatch(r"\s*\.{4,}\s*", line):       # the end of a function's listing
            current = None
        elif current is not None:
            out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def _table(functions: dict[str, str], symbol: str):
    if symbol not in functions:
        raise CountError(f"the SASS has no kernel {symbol} (it has {', '.join(sorted(functions)) or 'none'})")
    return sass.parse(functions[symbol])


def _ops(df) -> pd.Series:
    return (df["opcode"] + "." + df["modifiers"]).str.rstrip(".")


def _own(df, k: int):
    return df[df["loop"] == k]


def hot_loop(df, marker: str):
    """(instructions, markers) of the loop whose own body holds the most ``marker``s."""
    best = (0, 0)
    for k in range(len(sass.back_edges(df))):
        own = _own(df, k)
        n = int(_ops(own).str.fullmatch(marker).sum())
        if n > best[1]:
            best = (len(own), n)
    if best[1] == 0:
        raise CountError(f"no loop of the kernel holds an instruction matching {marker}")
    return best


def per_marker(functions: dict[str, str], symbol: str, marker: str) -> float:
    """Instructions the kernel's hot loop issues per ``marker`` instruction."""
    n, m = hot_loop(_table(functions, symbol), marker)
    return n / m


def cas_round(functions: dict[str, str]) -> tuple[float, float]:
    """(instructions of one CAS round, instructions of the enclosing loop per iteration
    outside its CAS loops: one CAS loop an iteration, ptxas unrolls) of the shared f32 atomic
    benchmark."""
    symbol, cas = CAS_LOOP
    df = _table(functions, symbol)
    edges = sass.back_edges(df)
    rounds, outer = [], None
    for k, (start, end) in enumerate(edges):
        own = _own(df, k)
        ops = _ops(own)
        if ops.str.fullmatch(cas).any():
            rounds.append(len(own))
            continue
        inner = [j for j, (s, e) in enumerate(edges) if j != k and start <= s and e <= end]
        if inner and all(_ops(_own(df, j)).str.fullmatch(cas).any() for j in inner):
            outer = (len(own), len(inner))
    if not rounds or outer is None:
        raise CountError(f"{symbol}: no loop around compare-and-swap loops in its SASS")
    return float(np.median(rounds)), outer[0] / outer[1]


def probe_loop(df) -> tuple[int, int]:
    """(instructions, unroll) of a probe's loop in its SASS table: the loop that repeats the
    most instructions, and ptxas's unroll factor, the step of the counter its exit compares."""
    edges = sass.back_edges(df)
    if not edges:
        raise CountError("the probe's SASS has no loop")
    k = max(range(len(edges)), key=lambda j: len(_own(df, j)))
    own = _own(df, k)
    slow = _slow_paths(own)
    if any(op == "CALL" and int(a) not in slow for op, a in zip(own["opcode"], own["addr"])):
        raise CountError("the probe's operation is a called subroutine (fp64 exp, log, sin, ...): the "
                         "instructions it runs depend on its branches, so the SASS listing does not give "
                         "them; only the profiler counts them")
    return len(own) - len(slow), _counter_step(own)


def _slow_paths(body) -> set[int]:
    """Addresses a loop body skips on its fast path: the code a predicated forward branch
    jumps over to avoid a CALL (the slow path of a division or square root, which the probes'
    operands never take)."""
    skipped: set[int] = set()
    for r in body.itertuples():
        if r.opcode == "BRA" and r.predicate and r.target > r.addr:
            over = body[(body["addr"] > r.addr) & (body["addr"] < r.target)]
            if (over["opcode"] == "CALL").any():
                skipped |= set(int(a) for a in over["addr"])
    return skipped


_ADD_IMM = re.compile(r"^(U?R\d+),\s*(U?R\d+),\s*(-?0x[0-9a-f]+)(?:,\s*U?RZ)?$")
_REGS = re.compile(r"\bU?R\d+\b")
_ADDS = ("IADD3", "VIADD", "UIADD3", "IMAD", "LEA")


def _counter_step(body) -> int:
    """The step of the counter that ends the loop: the immediate the loop adds to a register
    a compare tests (directly, or to one the tested register is made from). The compare that
    sets the back edge's predicate is tried first (the exit may also be a branch out of the
    middle, the back edge unconditional)."""
    rows = list(body.itertuples())
    pred = rows[-1].predicate.lstrip("@!")
    compares = [r for r in reversed(rows) if r.opcode in ("ISETP", "UISETP")]
    compares.sort(key=lambda r: r.operands.split(",")[0].strip() != pred)
    for compare in compares:
        step = _step_of(rows, set(_REGS.findall(compare.operands.split(",", 2)[2])))
        if step:
            return step
    raise CountError("cannot find the step of the loop's counter in its SASS")


def _step_of(rows, tested: set[str]) -> int:
    for _ in range(3):                 # follow a derived register back to the counter
        sources: set[str] = set()
        for r in rows:
            dest, _, rest = r.operands.partition(",")
            if r.opcode not in _ADDS or dest.strip() not in tested:
                continue
            m = _ADD_IMM.match(r.operands.strip())
            if m and m.group(1) == m.group(2):
                return abs(_signed(m.group(3)))
            sources |= set(_REGS.findall(rest))
        if not sources - tested:
            break
        tested |= sources
    return 0


def _signed(text: str) -> int:
    """A SASS immediate: -0x4, or 0xfffffffc for the same 32-bit value."""
    v = -int(text[1:], 16) if text.startswith("-") else int(text, 16)
    return v - (1 << 32) if v >= 1 << 31 else v


# ---- the counters of a part's launches ------------------------------------------------------

def counters(manifest: pd.DataFrame, functions: dict[str, str]) -> pd.DataFrame:
    """The computed counters of every launch of a part (NaN where nothing is computed)."""
    out = pd.DataFrame(index=manifest.index, columns=[INST, SECTORS, DRAM_READ, DRAM_WRITE], dtype=float)
    warps = (manifest["block"] + 31) // 32
    for bench, (symbol, marker, per_warp) in INSTRUCTIONS.items():
        rows = manifest["bench"] == bench
        if rows.any():
            factor = per_marker(functions, symbol, marker)
            out.loc[rows, INST] = manifest.loc[rows, "work"] * factor * (warps[rows] if per_warp else 1)
    rows = manifest["bench"].isin(CAS_BENCHES)
    if rows.any():
        per_round, outer = cas_round(functions)
        words, n = manifest.loc[rows, "value"] // 1000, manifest.loc[rows, "value"] % 1000
        out.loc[rows, INST] = manifest.loc[rows, "grid"] * warps[rows] * n * (outer + (32 // words) * per_round)
    for bench, (symbol, marker, per) in SECTOR_BENCHES.items():
        rows = manifest["bench"] == bench
        if rows.any():
            n_loads = hot_loop_count(_table(functions, symbol), per, marker)
            out.loc[rows, SECTORS] = manifest.loc[rows, "work"] * n_loads
    for bench, (read, write) in DRAM_BYTES.items():
        rows = manifest["bench"] == bench
        out.loc[rows, DRAM_READ] = manifest.loc[rows, "work"] * read
        out.loc[rows, DRAM_WRITE] = manifest.loc[rows, "work"] * write
    return out


def hot_loop_count(df, per: str, marker: str) -> float:
    """``marker`` instructions per ``per`` instruction in the loop that holds most ``per``s."""
    best, ratio = 0, 0.0
    for k in range(len(sass.back_edges(df))):
        ops = _ops(_own(df, k))
        n = int(ops.str.fullmatch(per).sum())
        if n > best:
            best, ratio = n, int(ops.str.fullmatch(marker).sum()) / n
    if best == 0:
        raise CountError(f"no loop of the kernel holds an instruction matching {per}")
    return ratio


def read_sass(path: Path) -> dict[str, str]:
    path = Path(path)
    if not path.exists():
        raise CountError(f"{path} is missing: the SASS of the part's program (simt calibrate --timer clock64 "
                         f"writes it with cuobjdump -sass)")
    return split_functions(path.read_text())


def probe_counts(kernel, ptx_arch: str, sass_arch: str | None = None) -> tuple[int, int]:
    """(instructions, unroll) of an op probe's loop: simt's PTX for ``ptx_arch`` as ptxas
    assembles it for ``sass_arch`` (the GPU's own, as the driver's JIT does)."""
    from ..gpu.ptx import emit
    from ..ir.mir import LaunchSig
    fn = kernel.compile(LaunchSig(1, 1))
    cubin, _ = sass.assemble_cubin(emit(fn, ptx_arch)[0], sass_arch or ptx_arch)
    return probe_loop(sass.parse(sass.disassemble(cubin)[1]))
