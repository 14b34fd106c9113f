"""What simt.verify hands back: the verdicts, and counterexamples that run on cpu:precise."""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import BarrierDivergenceError, KernelRuntimeError, OutOfBoundsError, SimtError

CHECKS = ("bounds", "race", "barrier")
_RANK = {"unsafe": 0, "unknown": 1, "safe": 2}


@dataclass
class Counterexample:
    """A concrete launch that shows a bug: replay() runs it on cpu:precise with bounds checks
    and every sanitizer on."""
    kernel: object
    check: str
    array: str
    dim: tuple
    block_dim: int
    scalars: dict
    shapes: dict
    loads: list = field(default_factory=list)       # (array, flat scalar index, value)
    threads: list = field(default_factory=list)     # ((block, thread), ...)
    line: int | None = None
    # what the arrays hold besides ``loads``: "zeros", or "distinct" (1, 2, 3, ... in
    # element order), which makes two writes that race write different values
    fill: str = "zeros"

    def inputs(self) -> list:
        import simt
        values = []
        for name, ptype in self.kernel.params:
            if name in self.shapes:
                arr = simt.zeros(tuple(self.shapes[name]), dtype=ptype.dtype, device="cpu")
                flat = arr.numpy().reshape(-1)
                if self.fill == "distinct":
                    flat[:] = (np.arange(flat.size) + 1).astype(flat.dtype)
                    values.append(arr)
                    continue
                for array, index, value in self.loads:
                    if array == name and 0 <= index < flat.size:
                        flat[index] = value
                values.append(arr)
            else:
                values.append(self.scalars[name])
        return values

    def replay(self):
        """The error the launch raises, else its hazards (a DataFrame, as LaunchResult.hazards)."""
        import simt
        try:
            result = simt.launch(self.kernel, dim=self.dim, inputs=self.inputs(),
                                 block_dim=self.block_dim, device="cpu:precise", check="all")
        except KernelRuntimeError as e:
            return e
        return result.hazards

    def reproduces(self) -> bool:
        """Whether the replay shows this counterexample's kind of bug on its array."""
        out = self.replay()
        if self.check == "bounds":
            return isinstance(out, OutOfBoundsError) and f"array '{self.array}'" in str(out)
        if isinstance(out, Exception):
            return self.check == "barrier" and isinstance(out, BarrierDivergenceError)
        kind = {"race": "race", "barrier": "sync"}[self.check]
        rows = out[out["check"] == kind]
        if self.check == "race":
            rows = rows[rows["array"] == self.array]
        return len(rows) > 0

    def __str__(self) -> str:
        threads = ", ".join(f"block {b} thread {t}" for b, t in self.threads)
        return (f"{self.check} bug in '{self.kernel.key}' (array {self.array!r}, line {self.line}): "
                f"dim={self.dim} block_dim={self.block_dim} scalars={self.scalars} "
                f"shapes={self.shapes} threads: {threads}"
                + (", arrays holding 1, 2, 3, ..." if self.fill == "distinct" else ""))


@dataclass
class Finding:
    check: str
    verdict: str
    line: int | None
    array: str
    detail: str
    counterexample: Counterexample | None = None


class VerifyReport:
    """``verdict(check)``: "safe", "unsafe", "unknown" (or "vacuous" when the assumptions
    contradict each other); ``verdicts``: one row per access site, array or barrier;
    ``solver_steps``: the solver's resource steps over the whole proof, the same for the same
    call whatever the process did before (``seconds`` is the wall clock)."""

    def __init__(self, kernel_name: str, checks, findings: list[Finding], assumptions: list[str],
                 vacuous: bool, seconds: float, solver_steps: int = 0):
        self.kernel_name = kernel_name
        self.checks = tuple(checks)
        self.findings = findings
        self.assumptions = list(assumptions)
        self.vacuous = vacuous
        self.seconds = seconds
        self.solver_steps = solver_steps

    def verdict(self, check: str) -> str:
        if check not in self.checks:
            raise SimtError(f"simt.verify: {check!r} was not checked (checked: {', '.join(self.checks)})")
        if self.vacuous:
            return "vacuous"
        found = [f.verdict for f in self.findings if f.check == check]
        return min(found, key=_RANK.__getitem__) if found else "safe"

    @property
    def verdicts(self) -> pd.DataFrame:
        rows = [(f.check, "vacuous" if self.vacuous else f.verdict, f.line, f.array, f.detail)
                for f in self.findings]
        return pd.DataFrame(rows, columns=["check", "verdict", "line", "array", "detail"])

    def counterexample(self, check: str) -> Counterexample | None:
        for f in self.findings:
            if f.check == check and f.verdict == "unsafe":
                return f.counterexample
        return None

    def __str__(self) -> str:
        lines = [f"simt.verify '{self.kernel_name}' ({self.seconds:.2f} s): "
                 + ", ".join(f"{c} {self.verdict(c)}" for c in self.checks)]
        for f in self.findings:
            if f.verdict != "safe":
                lines.append(f"  {f.check} {f.verdict} line {f.line} {f.array}: {f.detail}")
        if self.assumptions:
            lines.append("  assuming: " + "; ".join(self.assumptions))
        return "\n".join(lines)

    __repr__ = __str__


def model_int(model, term, signed: bool) -> int:
    v = model.eval(term, model_completion=True).as_long()
    bits = term.size()
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def model_scalar(model, term, stype):
    """A parameter or loaded value of the model as the Python/numpy value a launch takes."""
    import z3
    v = model.eval(term, model_completion=True)
    if z3.is_bool(v):
        return bool(z3.is_true(v))
    bits = v.as_long()
    if stype.is_float:
        if stype.bits == 16 and stype.value == "float16":
            return float(np.frombuffer(struct.pack("<H", bits), dtype=np.float16)[0])
        if stype.bits == 32:
            x = struct.unpack("<f", struct.pack("<I", bits))[0]
        elif stype.bits == 64:
            x = struct.unpack("<d", struct.pack("<Q", bits))[0]
        else:
            return bits
        return 0.0 if not np.isfinite(x) else x
    if stype.is_signed and bits >= 1 << (stype.bits - 1):
        bits -= 1 << stype.bits
    return bits
