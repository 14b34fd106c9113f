"""Does a long op hold its warp? Two independent chains of an op against one, through simt's own
PTX (a part of ``simt calibrate``; benchmarks/timing/op_overlap.py prints the GPU's table beside
the model's).

The op probes (probes.py) measure an op's dependent latency L: one warp, a chain ``v = op(v)``.
Here the same warp also runs two chains side by side, ``v = op(v); w = op(w)``, from two arrays
(so ptxas cannot merge them). An op that issues like one long instruction lets the second
chain's op issue while the first's result is on its way: a step of both chains takes about L.
An op whose SASS branches (a slow path behind a call, a range reduction) keeps the warp in its
own instructions until it is done, and ptxas does not move the other chain's instructions
across those branches: a step takes about 2 L. Launches at U = 8 and U = 16 ops a chain per
loop step cancel the loop and the launch, as the probes do:

    cycles per step = (cycles(U = 16) - cycles(U = 8)) / (8 * STEPS)

The cycles an op holds its warp (the timing section's ``op_hold``) are half a step of two
chains, less the chain's companion op (``exp(v * c)``'s multiply), where two chains take at
least HOLD_RATIO steps of one; an op that overlaps gets none.

    python3 -m simt.calibrate.op_overlap --measure MANIFEST     # every launch once, on the GPU
"""
from pathlib import Path

import numpy as np

import simt as wp
from . import measure_main, probes

CYC = "sm__cycles_elapsed.max"
STEPS = probes.STEPS
HOLD_RATIO = 1.3          # two chains at least this many one-chain steps: the op holds its warp
# probe -> (the op table's keys it stands for, its chain's companion op): 64-bit division and
# remainder, signed or not, by a register or a constant, call the same kind of subroutine
# (probes5), measured on the signed division by a register alone (by a power of two they are
# shifts: not held); additions and multiplies are controls (they overlap), not fitted
FITTED = {
    "f32_div": (("DIV.f32",), None), "f32_sqrt": (("SQRT.f32",), None), "f32_sin": (("SIN.f32",), None),
    "f32_cos": (("COS.f32",), None), "f32_exp_mul": (("EXP.f32",), "MUL.f32"),
    "f32_log_add": (("LOG.f32",), "ADD.f32"), "f32_pow": (("POW.f32",), None),
    "f64_div": (("DIV.f64",), None), "f64_sqrt": (("SQRT.f64",), None), "f64_exp_mul": (("EXP.f64",), "MUL.f64"),
    "f64_log_add": (("LOG.f64",), "ADD.f64"), "f64_sin": (("SIN.f64",), None), "f64_cos": (("COS.f64",), None),
    "f64_pow": (("POW.f64",), None), "f64_atan_add": (("ATAN.f64",), "ADD.f64"),
    "f64_atan2_add": (("ATAN2.f64",), "ADD.f64"), "f64_tan_mul_add": (("TAN.f64",), ("MUL.f64", "ADD.f64")),
    "i32_div_vary_add": (("DIV.i32",), "ADD.i32"),
    "i32_rem_vary_add": (("REM.i32",), "ADD.i32"),
    "i64_div_vary_add": (tuple(f"{op}.{cls}{kind}" for op in ("DIV", "REM") for cls in ("i64", "u64")
                               for kind in ("", ".const")), "ADD.i32"),
}
CONTROLS = ("f32_add", "f64_add", "f64_mul")
OPS = CONTROLS + tuple(FITTED)
MIXED = {"f64_sin+f64_cos": ("f64_sin", "f64_cos"), "f32_sin+f32_cos": ("f32_sin", "f32_cos")}
_NP = {float: np.float32, int: np.int32, wp.float64: np.float64, wp.int64: np.int64}


def make(op1, op2, dtype, unroll: int):
    """One chain of ``op1`` (``op2`` None) or chains of ``op1`` and ``op2`` side by side."""
    if op2 is None:
        @wp.kernel
        def op_chain_one(x: wp.array(dtype=dtype), y: wp.array(dtype=dtype), steps: int, c: dtype, d: dtype,
                out: wp.array(dtype=dtype)):
            i = wp.tid()
            v = x[i]
            for k in range(steps):
                for u in range(unroll):
                    v = op1(v, c, d)
            out[i] = v
        return op_chain_one

    @wp.kernel
    def op_chain_two(x: wp.array(dtype=dtype), y: wp.array(dtype=dtype), steps: int, c: dtype, d: dtype,
            out: wp.array(dtype=dtype)):
        i = wp.tid()
        v = x[i]
        w = y[i]
        for k in range(steps):
            for u in range(unroll):
                v = op1(v, c, d)
                w = op2(w, c, d)
        out[i] = v + w
    return op_chain_two


def launches(device: str = "cpu:precise", only=None):
    """(op, chains, unroll, kernel, inputs) in launch order (``only``: these ops alone); a mixed
    pair (two ops side by side) has no one-chain rows of its own."""
    out = []
    pairs = [(name, (name, None)) for name in OPS] + list(MIXED.items())
    for label, (a, b) in pairs:
        if only and label not in only:
            continue
        op1, dtype, x, c, d = probes.PROBES[a]
        op2 = probes.PROBES[b][0] if b else None
        npt = _NP[dtype]
        for chains in ((2,) if b else (1, 2)):
            for unroll in probes.UNROLLS:
                kernel = make(op1, None if chains == 1 else op2 or op1, dtype, unroll)
                inputs = [wp.array(np.full(32, x, npt), dtype=dtype, device=device),
                          wp.array(np.full(32, x, npt), dtype=dtype, device=device), STEPS, npt(c), npt(d),
                          wp.zeros(32, dtype=dtype, device=device)]
                out.append((label, chains, unroll, kernel, inputs))
    return out


def steps(df) -> dict:
    """(op, chains) -> cycles a loop step of U ops a chain adds per op application, from rows
    with columns op, chains, unroll and the cycles (``ncu_csv.load("op_overlap", data)``)."""
    lo, hi = probes.UNROLLS
    out = {}
    for (op, chains), g in df.groupby(["op", "chains"], sort=False):
        a, b = g[g.unroll == lo].iloc[-1], g[g.unroll == hi].iloc[-1]
        out[(op, int(chains))] = (float(b[CYC]) - float(a[CYC])) / ((hi - lo) * STEPS)
    return out


def holds(df, ops: dict) -> dict:
    """The timing section's ``op_hold``: op table key -> cycles the op keeps its warp, for the
    fitted probes that hold it (half a step of two chains, less the companion's latency from
    the op table ``ops``); ops that overlap are left out."""
    s = steps(df)
    out = {}
    for probe, (keys, companion) in FITTED.items():
        if (probe, 1) not in s or (probe, 2) not in s:
            continue
        one, two = s[(probe, 1)], s[(probe, 2)]
        if two < HOLD_RATIO * one:
            continue
        companions = companion if isinstance(companion, tuple) else (companion,)
        hold = two / 2 - sum(float(ops[c][1]) for c in companions if c in ops)
        for key in keys:
            out[key] = round(hold, 1)
    # the other bases' exponentials and logarithms: held as exp's and log's, as the op table
    # costs them (fit_ops.op_table)
    for base, names in (("EXP.f64", ("EXP2.f64",)), ("LOG.f64", ("LOG2.f64", "LOG10.f64"))):
        if base in out:
            for name in names:
                out[name] = out[base]
    return out


def measure(manifest: str, only=None) -> None:
    rows = ["launch,op,chains,unroll"]
    for label, chains, unroll, kernel, inputs in launches("cuda", only):
        wp.launch(kernel, dim=32, inputs=inputs, block_dim=32, device="cuda")
        wp.synchronize()
        rows.append(f"{len(rows) - 1},{label},{chains},{unroll}")
    Path(manifest).write_text("\n".join(rows) + "\n")


def main(argv=None) -> int:
    return measure_main(__doc__.splitlines()[0], measure, argv, only=True)


if __name__ == "__main__":
    raise SystemExit(main())
