"""Register-bank conflicts as a cause of the issue cost the model lacks: pipe_mix.cu's and
reg_banks.cu's instruction streams, their hot loop's SASS (nvcc and a disassembler, here), and
the measured cycles per warp instruction per scheduler (pipe_mix.cu on the H200,
data/h200/pipes/; both files on an H100, data/h100/reg_banks/: the same SM, and pipe_mix.cu's
eleven streams agree within 0.01 cycles).

The model issues an instruction a cycle where no pipe is full. The GPU does not: an FFMA of
three registers runs at 1.35 cycles an instruction with eight warps a scheduler, an IMAD beside
an FFMA at 1.36. A source operand read from the register file (not from the operand reuse
cache: the SASS's ``.reuse`` flag) takes a bank's read port. Per stream this prints the hot
loop's share of instructions reading three registers and its conflicts per instruction if the
file had 2 or 4 banks (register number modulo the banks), beside the measured cycles per
instruction and the busiest pipe's bound (ALU and the FMA pipe's heavy half take one warp
instruction every other cycle).

What the probes show: an FFMA or FADD reading one or two registers issues every cycle, in any
banks (reg_banks.cu's five such streams: 1.00-1.01, one of them with both registers even), and
so does an FFMA reading three when two come from the reuse cache; three registers from the file
cost more (1.34), less when every other instruction reads two (1.21) and nothing when it reads
one (an FFMA of three registers between FADDs of one: 1.02): a budget of reads a cycle, not a
fixed cost an instruction. Neither bank count at a cycle a conflict fits every stream (with 4 banks, the
FFMA stream 1.42 against 1.35 measured, LOP3 beside IMAD 1.32 against 1.16, IMAD beside FFMA
1.21 against 1.36).

A diagnosis from the SASS and saved measurements; predicts nothing (the timing model has no
register banks).

    PYTHONPATH=. python3 benchmarks/timing/reg_banks.py
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parent)]

import pipe_mix  # noqa: E402

from simt.gpu import sass  # noqa: E402

_REG = re.compile(r"\bR(\d+)(\.reuse)?\b")
_OPERAND = re.compile(r",(?![^\[]*\])")            # commas outside an address's brackets


def source_registers(opcode: str, operands: str) -> set[int]:
    """The registers an instruction's sources name: the operands after its
    destination (all of them where it has none), RZ aside, addresses' registers included."""
    parts = [p.strip() for p in _OPERAND.split(operands)]
    srcs = parts if opcode in sass._NO_DEST else parts[1:]
    return {int(m.group(1)) for p in srcs for m in _REG.finditer(p)}


def conflicts(body: pd.DataFrame, banks: int) -> float:
    """Extra register-file read cycles per instruction of ``body`` with ``banks`` banks: per
    instruction, each bank's reads past the first; a source the instruction before flagged
    ``.reuse`` (in the same operand slot or not: an upper bound on the cache's hits) is read
    from the reuse cache, not the file."""
    extra, cached = 0, set()
    for op, operands in zip(body["opcode"], body["operands"]):
        read = source_registers(op, operands) - cached
        per_bank: dict[int, int] = {}
        for r in read:
            per_bank[r % banks] = per_bank.get(r % banks, 0) + 1
        extra += sum(n - 1 for n in per_bank.values() if n > 1)
        cached = {int(m.group(1)) for m in _REG.finditer(operands) if m.group(2)}
    return extra / max(1, len(body))


def hot_loops(source: str) -> dict[str, pd.DataFrame]:
    """Kernel name -> the SASS rows of its largest loop (the unrolled steady state), of the
    CUDA file ``source`` beside this script."""
    src = Path(__file__).resolve().parent / source
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "probes.cubin"
        subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-cubin", "-o", str(cubin), str(src)], check=True)
        _, text = sass.disassemble(cubin.read_bytes())
    df = sass.parse(text)
    out = {}
    for fn, g in df.groupby("function"):
        m = re.search(r"([kr]_[a-z0-9_]+?)P", fn)
        looped = g[g["loop"] >= 0]
        if m and len(looped):
            body = looped[looped["loop"] == looped["loop"].value_counts().idxmax()]
            out[m.group(1)] = body[~body["opcode"].isin(["NOP", "BRA"])]
    return out


def table(source: str, measured: pd.DataFrame, gpu: str) -> pd.DataFrame:
    rows = []
    for name, body in sorted(hot_loops(source).items()):
        reads = [len(source_registers(o, ops)) for o, ops in zip(body["opcode"], body["operands"])]
        row = measured.loc[name]
        rows.append({"kernel": name, "gpu": gpu, "measured cycles/inst": row["cycles/inst"],
                     "pipe bound": max(1.0, 2 * row["alu"], 2 * row["fmaheavy"]),
                     "3-register share": sum(r >= 3 for r in reads) / len(body),
                     "conflicts/inst, 2 banks": conflicts(body, 2),
                     "conflicts/inst, 4 banks": conflicts(body, 4)})
    return pd.DataFrame(rows)


def main() -> None:
    here = Path(__file__).resolve().parent / "data"
    def measured(path: str) -> pd.DataFrame:
        return pipe_mix.streams(here / path).set_index("kernel")

    d = pd.concat([table("pipe_mix.cu", measured("h200/pipes/pipe_mix.csv"), "H200"),
                   table("pipe_mix.cu", measured("h100/reg_banks/pipe_mix.csv"), "H100"),
                   table("reg_banks.cu", measured("h100/reg_banks/reg_banks.csv"), "H100")])
    pd.set_option("display.width", 200)
    print(d.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
