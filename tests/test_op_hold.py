"""A long op that holds its warp (the timing section's ``op_hold``, fitted by
simt/calibrate/op_overlap.py): the warp's next instruction waits for it, so two independent
chains of the op take twice one chain's time, where an op that issues like one long
instruction lets them overlap. And the fit reads which ops hold from the two chains' steps."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simt as wp
from simt.calibrate import ncu_csv, op_overlap, probes

ROOT = Path(__file__).resolve().parent.parent
SM90 = ROOT / "simt" / "arch" / "sm_90.json"
H100 = ROOT / "benchmarks" / "timing" / "data" / "h100" / "op_overlap"


def _arch(tmp_path, holds) -> str:
    data = json.loads(SM90.read_text())
    if holds is None:
        data["timing"].pop("op_hold", None)
    else:
        data["timing"]["op_hold"] = holds
    path = tmp_path / f"arch_{len(holds or {})}.json"
    path.write_text(json.dumps(data))
    return str(path)


def _step(arch: str, op: str, chains: int, steps: int = 4) -> float:
    """Cycles a loop step adds per application of ``op`` (probes.py's two unrolls)."""
    fn, dtype, x, c, d = probes.PROBES[op]
    npt = np.float64 if dtype is wp.float64 else np.float32
    got = []
    with wp.ScopedModuleOptions({"arch": arch}):
        for unroll in (2, 4):
            k = op_overlap.make(fn, None if chains == 1 else fn, dtype, unroll)
            r = wp.launch(k, dim=32, block_dim=32, device="cpu:precise",
                          inputs=[wp.array(np.full(32, x, npt), dtype=dtype), wp.array(np.full(32, x, npt), dtype=dtype),
                                  steps, npt(c), npt(d), wp.zeros(32, dtype=dtype)])
            got.append(r.cycles)
    return (got[1] - got[0]) / (2 * steps)


def test_a_held_op_serialises_two_independent_chains(tmp_path):
    off = _arch(tmp_path, None)
    latency = json.loads(SM90.read_text())["timing"]["ops"]["SIN.f64"][1]
    on = _arch(tmp_path, {"SIN.f64": latency})
    one_off, two_off = _step(off, "f64_sin", 1), _step(off, "f64_sin", 2)
    one_on, two_on = _step(on, "f64_sin", 1), _step(on, "f64_sin", 2)
    # without a hold the second chain's op issues while the first's result is on its way
    assert two_off < 1.2 * one_off
    # held as long as its latency, the two chains take turns
    assert two_on > 1.8 * one_on
    # one chain waits for each result anyway: the hold costs it nothing
    assert one_on == pytest.approx(one_off, rel=0.02)


def test_a_hold_on_one_op_leaves_the_others_alone(tmp_path):
    off = _arch(tmp_path, None)
    on = _arch(tmp_path, {"SIN.f64": 300.0})
    assert _step(on, "f64_add", 2) == pytest.approx(_step(off, "f64_add", 2), rel=0.01)


def test_only_the_ops_named_are_held(monkeypatch):
    """A 64-bit division by a power of two (a shift) is not held though the division by a
    register (a called subroutine) is; keys match exactly."""
    from simt.sim.timing import isa, model
    hold = json.loads(SM90.read_text())["timing"]["op_hold"]
    assert "DIV.i64" in hold and not any(k.endswith(".pow2") for k in hold)

    @wp.kernel
    def halves(x: wp.array(dtype=wp.int64), out: wp.array(dtype=wp.int64)):
        i = wp.tid()
        out[i] = x[i] / wp.int64(4) + x[i] / x[(i + 1) % 32]

    seen = []
    real = model._tables
    monkeypatch.setattr(model, "_tables", lambda p, arch, sass=True: seen.append(p) or real(p, arch, sass))
    wp.launch(halves, dim=32, inputs=[wp.array(np.arange(1, 33, dtype=np.int64)), wp.zeros(32, dtype=wp.int64)],
              device="cpu:precise")
    held = {isa.op_key(ins): isa.op_hold(ins, hold, isa.Cost(isa.ALU, 0, 1.0, 1.0))
            for blk in seen[0].blocks for ins in blk.instrs if ins.op.name == "DIV"}
    assert held == {"DIV.i64.pow2": 0.0, "DIV.i64": hold["DIV.i64"]}


def _table(steps: dict) -> pd.DataFrame:
    """op_overlap's rows: each (op, chains) at cycles ``steps`` a step, both unrolls."""
    lo, hi = probes.UNROLLS
    rows = []
    for (op, chains), s in steps.items():
        for u in (lo, hi):
            rows.append({"op": op, "chains": chains, "unroll": u, op_overlap.CYC: 1000.0 + s * u * probes.STEPS})
    return pd.DataFrame(rows)


def test_the_fit_holds_the_ops_whose_chains_take_turns():
    ops = {"MUL.f64": [1.0, 8.0, "fp64"], "ADD.i32": [1.0, 2.0, "alu"]}
    df = _table({("f64_sin", 1): 300.0, ("f64_sin", 2): 600.0,          # take turns: held
                 ("f64_div", 1): 120.0, ("f64_div", 2): 125.0,          # overlap: not held
                 ("f64_exp_mul", 1): 230.0, ("f64_exp_mul", 2): 476.0,  # held, less its multiply
                 ("i64_div_vary_add", 1): 370.0, ("i64_div_vary_add", 2): 740.0})
    holds = op_overlap.holds(df, ops)
    assert holds["SIN.f64"] == 300.0 and "DIV.f64" not in holds
    assert holds["EXP.f64"] == 238.0 - 8.0
    # 64-bit division and remainder, signed or not, by a register or a constant: one subroutine;
    # by a power of two, a shift
    assert {holds[k] for k in ("DIV.i64", "REM.i64", "DIV.u64", "REM.u64", "DIV.i64.const", "REM.u64.const")} == {368.0}
    assert "DIV.i64.pow2" not in holds


def test_shipped_holds_refit_from_their_measurement():
    """The first H100 run's holds, and the fp64 arctangents' and tangent's from the later run
    that measured them (with_atan), which agrees with the first within a cycle where both did."""
    t = json.loads(SM90.read_text())["timing"]
    first = op_overlap.holds(ncu_csv.load("op_overlap", H100), t["ops"])
    later = op_overlap.holds(ncu_csv.load("op_overlap", H100 / "with_atan"), t["ops"])
    assert set(later) - set(first) == {"ATAN.f64", "ATAN2.f64", "TAN.f64"}
    assert all(abs(later[k] - first[k]) <= 1.0 for k in first)
    assert t["op_hold"] == {**first, **{k: later[k] for k in set(later) - set(first)}}
