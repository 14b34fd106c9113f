"""The op table of an architecture file's timing section (issue slots, dependent cycles and pipe
per MIR op, fitted from probes.py's measurements) and the SASS opcodes' pipes it ships beside
(sass_pipes.py): what fit.py writes about single instructions."""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import probes

CYC, INST = "sm__cycles_elapsed.max", "smsp__inst_executed.sum"

# SASS opcodes per pipe (sass_pipes.py): architecture knowledge, not a measurement; the fit writes it as is
SASS_PIPES = {
    "alu": ["LOP3", "LOP", "IADD3", "SHF", "SHL", "SHR", "ISETP", "ICMP", "SEL", "FSEL", "FSETP", "FSET",
        "FMNMX", "IMNMX", "VIMNMX", "VIMNMX3", "VIADDMNMX", "LEA", "PRMT", "MOV", "IABS", "BMSK", "SGXT",
        "PLOP3", "P2R", "R2P", "F2FP", "HSETP2", "HSET2", "HMNMX2", "VOTE", "ISCADD", "BFE", "BFI"],
    "imad": ["IMAD", "IMUL", "IDP", "VIADD", "IMADSP"],
    "fma": ["FFMA", "FADD", "FMUL", "FSWZADD", "HADD2", "HMUL2", "HFMA2", "I2FP"],
    "fp64": ["DFMA", "DADD", "DMUL", "DSETP", "DMNMX"],
    "mufu": ["MUFU", "F2I", "I2F", "F2F", "FRND", "POPC", "FLO", "BREV"],
    "adu": ["LDC"],
}
SASS_PIPES_SOURCE = ("SASS opcodes per pipe, from Nsight Compute's pipe definitions (alu: logic, compares, "
                     "selects, shifts, integer adds, moves, min/max; fma: FP32 arithmetic; its heavy half "
                     "alone (imad): integer multiplies and VIADD, as pipe_mix.cu measured; xu (mufu): "
                     "special functions, conversions, population count and bit scans; fp64: double "
                     "arithmetic; adu: constant loads from a register address (LDC; the uniform datapath's "
                     "ULDC is not one), as adu_tput.cu measured); opcodes not named take no math pipe (memory, "
                     "uniform datapath, control)")


def _steps(row, default: int) -> int:
    """The probe loop's step count: the manifest's (the clock64 mode runs longer loops) or probes.py's."""
    value = row.get("steps") if hasattr(row, "get") else None
    return int(value) if value is not None and not pd.isna(value) else default


ALU_UNITS = "sm__inst_executed_pipe_alu.sum"


def op_table(df, lat) -> dict:
    """Per MIR op [SASS instructions, dependent cycles, pipe] or, on the ALU pipe, [..., "alu", ALU
    warp instructions]: an op of several instructions puts only some on the ALU pipe (the rest on
    the FMA pipe, the uniform datapath...), and the ALU pipe takes a warp instruction every other
    cycle (micro.cu tput_lop3), so what binds is its ALU instructions, not its slots. Those come
    from the probes' ``sm__inst_executed_pipe_alu.sum`` where the profiler counted it."""
    per = {}
    for name, g in df.groupby("name", sort=False):
        if name.endswith("@loop"):
            continue
        a, b = g[g.unroll == 8].iloc[-1], g[g.unroll == 16].iloc[-1]
        n = 8 * _steps(b, probes.STEPS)
        if np.isfinite(a[INST]) and np.isfinite(b[INST]):   # (the clock64 fallback counts most)
            alu = (b[ALU_UNITS] - a[ALU_UNITS]) / n if ALU_UNITS in g else np.nan
            per[name] = ((b[INST] - a[INST]) / n, (b[CYC] - a[CYC]) / n, alu)

    def minus(name, *companions):
        s, c, _ = per[name]
        for comp in companions:
            s -= per[comp][0]
            c -= per[comp][1]
        return [round(max(1.0, s), 2), round(max(1.0, c), 2)]

    def entry(pipe, name, *companions):
        """[slots, cycles, pipe] of the op, and on the ALU pipe its ALU warp instructions where
        the profiler counted them: the probe's less its companions'."""
        e = [*minus(name, *companions), pipe]
        u = per[name][2] - sum(per[c][2] for c in companions)
        if pipe == "alu" and np.isfinite(u):
            e.append(round(float(np.clip(u, 0.0, e[0])), 2))
        return e

    def pair_op(name, either: bool):
        """One of the two ops of probe ``name``, whose other is an XOR (one LOP3, an ALU
        instruction: pipe_mix.cu). The XOR, or an op like it: one ALU instruction. The other
        (``either``: an add, a shift by a constant), which ptxas may make an IADD3 or SHF or a
        VIADD, IMAD.IADD or IMAD.SHL on the FMA pipe: either pipe ("alu|imad", balanced per
        block by the machine) where the probe's ALU count, less the XOR's, leaves under half an
        instruction for it; else the ALU's."""
        s, c = minus(name)
        e = [round(s / 2, 2), round(c / 2, 2), "alu"]
        left = per[name][2] - 1.0
        if not np.isfinite(left):
            return e
        if either and left < 0.5:
            e[2] = "alu|imad"
        return e + [1.0]

    ops = {
        "ADD.f32": entry("fma", "f32_add"), "SUB.f32": entry("fma", "f32_add"),
        "MUL.f32": entry("fma", "f32_mul"), "DIV.f32": entry("fma", "f32_div"),
        "SQRT.f32": entry("fma", "f32_sqrt"), "SIN.f32": entry("fma", "f32_sin"),
        "COS.f32": entry("fma", "f32_cos"), "EXP.f32": entry("fma", "f32_exp_mul", "f32_mul"),
        "LOG.f32": entry("fma", "f32_log_add", "f32_add"), "POW.f32": entry("fma", "f32_pow"),
        "FLOOR.f32": entry("alu", "f32_floor_add", "f32_add"),
        "MAX.f32": entry("alu", "f32_mul_max", "f32_mul"), "MIN.f32": entry("alu", "f32_mul_max", "f32_mul"),
        "ADD.i32": pair_op("i32_xor_add", True), "XOR.i32": pair_op("i32_xor_add", False),
        "SHL.i32": pair_op("i32_shift_xor", False), "SHL.i32.imm": pair_op("i32_shift_xor", True),
        "MUL.i32": entry("imad", "i32_mad"),
        "MIN.i32": entry("alu", "i32_min_add"),
        "ADD.f64": entry("fp64", "f64_add"), "MUL.f64": entry("fp64", "f64_mul"),
        "DIV.f64": entry("fp64", "f64_div"), "SQRT.f64": entry("fp64", "f64_sqrt"),
        "MUL.i64": entry("imad", "i64_mad"),
    }
    # fp64 math functions, where measured (probes4). They are called subroutines, mostly integer
    # and uniform-datapath work around a minority of fp64 instructions (on the H200's SASS of the
    # probes: exp 18 of 61, log 30 of 82, pow 84 of 178, sin none on its fast path), so even one
    # warp's chain of them is bound by issue, not by the fp64 pipe: they take the ALU pipe, whose
    # interval is about the issue's, rather than charging every slot to the fp64 pipe
    for key, name, companions in (("EXP.f64", "f64_exp_mul", ("f64_mul",)), ("LOG.f64", "f64_log_add", ("f64_add",)),
                                  ("SIN.f64", "f64_sin", ()), ("COS.f64", "f64_cos", ()), ("POW.f64", "f64_pow", ())):
        if name in per:
            ops[key] = entry("alu", name, *companions)
    # more fp64 functions, where measured (probes6): arctangents and the tangent, issue-bound
    # like exp and log (on the H100: atan 87 instructions, 29 of them fp64, the FP64 pipe taking
    # one every other cycle); floor is one FRND.F64, an XU-pipe instruction (the profiler's
    # pipe counts: one XU instruction a floor)
    for key, name, companions in (("ATAN.f64", "f64_atan_add", ("f64_add",)),
                                  ("ATAN2.f64", "f64_atan2_add", ("f64_add",)),
                                  ("TAN.f64", "f64_tan_mul_add", ("f64_mul", "f64_add"))):
        if name in per:
            ops[key] = entry("alu", name, *companions)
    if "f64_floor_add" in per:
        ops["FLOOR.f64"] = [*minus("f64_floor_add", "f64_add"), "mufu", 1.0]
    for div in ("div", "rem"):
        for kind in ("pow2", "const"):
            ops[f"{div.upper()}.i32.{kind}"] = entry("alu", f"i32_{div}_{kind}_add", "i32_mad")
        # a divisor in a register: the probe whose divisor changes every step
        ops[f"{div.upper()}.i32"] = entry("alu", f"i32_{div}_vary_add", "i32_mad")
    cvt = minus("f32_cvt_add", "f32_add")
    half = [round(cvt[0] / 2, 2), round(cvt[1] / 2, 2)]
    # float to int is one F2I, on the XU pipe that MUFU uses (benchmarks/timing/conv_tput.cu on
    # the H200: 8.23 cycles a warp instruction per scheduler, MUFU's interval 7.82); int to float
    # is I2FP on sm_90, an FMA-pipe instruction (conv_tput.cu: 1.05 cycles a warp instruction)
    ops["CVT.f32>i32"] = [*half, "mufu", 1.0]
    ops["CVT.i32>f32"] = [*half, "fma"]
    if "f64_cvt_add" in per:      # (probes6) double to int and back: an F2I.F64 and an I2F.F64, XU-pipe instructions
        cvt = minus("f64_cvt_add", "f64_add")
        half = [round(cvt[0] / 2, 2), round(cvt[1] / 2, 2)]
        ops["CVT.f64>i32"] = [*half, "mufu", 1.0]
        ops["CVT.i32>f64"] = [*half, "mufu", 1.0]
    # 64-bit division is a called subroutine, a constant divisor too (probes5: on the H200 ptxas
    # calls the same routine); ``+ d`` is one 64-bit add, subtracted. An unsigned constant
    # divisor takes the unsigned routine's cost (not probed)
    add64 = (2.0, 2 * lat["alu"])
    for div in ("div", "rem"):
        for key, name in ((".i64", f"i64_{div}_vary_add"), (".i64.const", f"i64_{div}_const_add"),
                          (".u64", f"u64_{div}_vary_add"), (".u64.const", f"u64_{div}_vary_add")):
            if name in per:
                s_, c_, a_ = per[name]
                ops[f"{div.upper()}{key}"] = [round(max(1.0, s_ - add64[0]), 2),
                                              round(max(1.0, c_ - add64[1]), 2), "alu"]
                if np.isfinite(a_):    # the add's two ALU instructions (IADD3, IADD3.X) subtracted
                    ops[f"{div.upper()}{key}"].append(round(float(np.clip(a_ - add64[0], 0.0, s_ - add64[0])), 2))
    sel = minus("f32_select")
    ops["SELECT.b"] = ops["SELECT.*"] = [1.0, round(sel[1] / 3, 2), "alu"]
    ops.setdefault("SUB.i32", list(ops["ADD.i32"]))
    # logic, shifts by a register, compares, min/max, negation: one ALU instruction each (LOP3, SHF,
    # ISETP, SEL on the ALU pipe alone: pipe_mix.cu)
    for name in ("AND", "OR", "SHR", "NEG", "NOT", "ABS", "MAX", "EQ", "NE", "LT", "LE", "GT", "GE"):
        ops.setdefault(f"{name}.i32", list(ops["XOR.i32"]))
    for name in ("EQ", "NE", "LT", "LE", "GT", "GE", "ABS", "NEG", "ISNAN", "ISINF"):
        ops.setdefault(f"{name}.f32", [1.0, ops["ADD.i32"][1], "alu"])
    for name in ("CEIL", "ROUND", "TRUNC"):
        ops[f"{name}.f32"] = list(ops["FLOOR.f32"])
    for name in ("EXP2",):
        ops[f"{name}.f32"] = list(ops["EXP.f32"])
    for name in ("LOG2", "LOG10"):
        ops[f"{name}.f32"] = list(ops["LOG.f32"])
    for base, names in (("EXP", ("EXP2",)), ("LOG", ("LOG2", "LOG10"))):
        if f"{base}.f64" in ops:
            for name in names:
                ops[f"{name}.f64"] = list(ops[f"{base}.f64"])
    # composites no probe measures: sums of the measured parts they are built from
    s, c = ops["SIN.f32"], ops["DIV.f32"]
    ops["TAN.f32"] = [s[0] + ops["COS.f32"][0] + c[0], s[1] + c[1], "fma"]
    lg, sq = ops["LOG.f32"], ops["SQRT.f32"]
    for name in ("ASIN", "ACOS", "ATAN", "ATAN2"):
        ops[f"{name}.f32"] = [lg[0], lg[1], "fma"]
    ex = ops["EXP.f32"]
    for name in ("SINH", "COSH", "TANH"):
        ops[f"{name}.f32"] = [2 * ex[0] + c[0], ex[1] + c[1], "fma"]
    # Derived, not probed: the special functions of simt/gpu/ptx_special.py, as sums of the
    # measured parts their PTX routines are built from; every other instruction of a routine
    # (a Horner step, a compare, a select) counts one issue slot and one dependent FMA latency.
    # erf/erfc: 1/|x| (a division) then a 10-step Horner polynomial, beside e^(-x^2); then ~5
    # dependent ops; ~41 other instructions in all (three polynomials, the special cases).
    # erfinv/erfcinv: a log, then a sqrt and a 9-step polynomial, then ~8 dependent ops; ~32
    # other instructions. cbrt: lg2, ex2 (MUFU) and a Newton step with two divisions (+ ~3
    # dependent ops); ~12 other instructions.
    fma, mufu = lat["fma"], lat["mufu"]
    erf_latency = max(c[1] + 11 * fma, ex[1] + 2 * fma) + 5 * fma
    ops["ERF.f32"] = ops["ERFC.f32"] = [ex[0] + c[0] + 41, round(erf_latency, 2), "fma"]
    ops["ERFINV.f32"] = ops["ERFCINV.f32"] = [lg[0] + sq[0] + 32,
                                              round(lg[1] + sq[1] + 17 * fma, 2), "fma"]
    ops["CBRT.f32"] = [2 * c[0] + 12, round(2 * mufu + 2 * c[1] + 3 * fma, 2), "fma"]
    # derived, not probed: rint is cvt.rni as floor is cvt.rmi; copysign and popc are single
    # simple ALU instructions
    ops["RINT.f32"] = list(ops["FLOOR.f32"])
    ops["COPYSIGN.f32"] = [1.0, ops["ADD.i32"][1], "alu"]
    ops["POPC.i32"] = list(ops["XOR.i32"])
    ops["RSQRT.f32"] = [1.0, round(lat["mufu"], 2), "mufu"]
    ops["SHFL.*"] = [1.0, round(lat["shfl"], 2), "shfl"]
    ops["VOTE.*"] = [1.0, round(lat["alu"], 2), "alu"]
    ops["ACTIVEMASK.*"] = [1.0, round(lat["alu"], 2), "alu"]
    ops["SYNCWARP.*"] = [1.0, round(lat["alu"], 2), "alu"]
    ops["SREG.*"] = [1.0, round(lat["shfl"], 2), "alu"]      # S2R: not isolated; the MIO latency of a shuffle
    ops["ADD.i64"] = ops["SUB.i64"] = [2.0, round(2 * lat["alu"], 2), "alu"]
    ops["*.f32"] = [1.0, round(lat["fma"], 2), "fma"]
    ops["*.f64"] = [1.0, round(lat["fp64"], 2), "fp64"]
    ops["*.i64"] = [2.0, round(2 * lat["alu"], 2), "alu"]
    for div in ("DIV", "REM"):       # by a power of two: shifts, not the subroutine
        for cls in ("i64", "u64"):
            if f"{div}.{cls}" in ops:
                ops[f"{div}.{cls}.pow2"] = list(ops["*.i64"])
    ops["*.*"] = [1.0, round(lat["alu"], 2), "alu"]
    return ops
