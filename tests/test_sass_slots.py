"""A plain loop issues, per iteration, the SASS instructions of the loop ptxas made of it
(sass_slots.py): the SASS table (simt.sass) is the oracle, not the op table."""
import sys
from pathlib import Path

import numpy as np
import pytest

import simt as wp
from simt.arch import load_arch
from simt.gpu import sass
from simt.ir.mir import LaunchSig
from simt.sim.precise.program import prepare
from simt.sim.timing import model, sass_slots

# the measured sets' own kernels: the H200's counts below are theirs
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from timing.blind5.kernels import point_in_polygon  # noqa: E402
from timing.blind6.kernels import lz_match, mish  # noqa: E402
from timing.blind12.kernels_media import BZ_RES as BZ, bezier_bernstein  # noqa: E402
from timing.blind.kernels import gemm_tiled  # noqa: E402
from timing.blind7.kernels import philox_uniform  # noqa: E402

pytestmark = pytest.mark.skipif(not sass.available(), reason="ptxas and a disassembler are needed")


@wp.kernel
def sines(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for _ in range(iters):
        v = wp.sin(v) * 1.01
    y[i] = v


@wp.kernel
def ramp(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for j in range(iters):
        v = v * 1.01 + float(j)
    y[i] = v


@wp.kernel
def branchy(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for _ in range(iters):
        if v > 0.5:
            v = wp.sin(v)
        else:
            v = wp.exp(v) * 0.1
    y[i] = v


@wp.kernel
def countdown(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    for j in range(iters, 0, -1):
        v = v * 1.01 + float(j)
    y[i] = v


@wp.kernel
def either(x: wp.array(dtype=float), y: wp.array(dtype=float), iters: int):
    i = wp.tid()
    v = x[i]
    w = x[i]
    for _ in range(iters):
        if w > 0.5:
            v = wp.sin(v) * 1.02
        else:
            v = wp.exp(v) * 0.2
    y[i] = v


def issued_per_iteration(kernel, value=0.5):
    """The model's issue slots a warp spends on one more iteration of the loop."""
    n = 1 << 12
    out = []
    for iters in (0, 64):
        x = wp.array(np.full(n, value, np.float32), device="cpu:precise")
        y = wp.zeros(n, dtype=float, device="cpu:precise")
        r = wp.launch(kernel, dim=n, inputs=[x, y, iters], device="cpu:precise")
        out.append(r.metrics["smsp__inst_issued.sum"])
    return (out[1] - out[0]) / (n // 32) / 64


def main_loop(kernel):
    df = wp.sass(kernel)
    loops = sass_slots._plain_sass_loops(df)
    return max(loops, key=lambda kl: len(kl[1]))[1]


@pytest.mark.parametrize("kernel, unroll", [(sines, 1), (ramp, 4), (countdown, 4)])
def test_an_iteration_issues_the_sass_loops_instructions(kernel, unroll):
    own = main_loop(kernel)
    counter_line = int(own["line"].iloc[-1])          # the back edge sits on the loop's line
    step = -1 if kernel is countdown else 1           # (a counter going down: IADD3 R2, R2, -0x4)
    assert sass_slots._unroll(own, counter_line, step) == unroll
    assert issued_per_iteration(kernel) == pytest.approx(len(own) / unroll, rel=0.05)


def test_a_loop_whose_body_branches_keeps_the_op_tables_slots():
    fn = branchy.compile(LaunchSig(1, 1))
    prog = prepare(fn)
    tab = model._tables(prog, load_arch("sm_90"))
    assert sass_slots.loop_scales(prog, wp.sass(branchy), tab) == {}


def test_a_loop_that_keeps_its_branch_issues_each_sides_sass():
    """ptxas keeps the branch of ``either`` in its loop (BSSY, two BRAs): an iteration down the
    sin side issues that side's SASS instructions, the exp side its own; the lines both sides
    share cost the same, so the difference per iteration is the two sides' SASS counts. The
    BSYNC where the sides join (ptxas credits it to the else line) issues on either side."""
    df = wp.sass(either)
    (k, own, lines), = sass_slots._sass_loops(df)
    assert k not in {j for j, _ in sass_slots._plain_sass_loops(df)}
    text = open(__file__).read().splitlines()
    then_line, else_line = (1 + next(n for n, t in enumerate(text) if t.strip() == stmt)
                            for stmt in ("v = wp.sin(v) * 1.02", "v = wp.exp(v) * 0.2"))
    counts = own[own["opcode"] != "BSYNC"]["line"].value_counts()
    want = int(counts[then_line]) - int(counts[else_line])
    got = issued_per_iteration(either, 0.9) - issued_per_iteration(either, 0.1)
    assert got == pytest.approx(want, rel=0.05)


# ---- code outside loops (straight_scales) -------------------------------------------------

@wp.kernel
def tanh64(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = wp.tanh(x[i])


def _issued_per_warp(kernel, dtype, n=1 << 14):
    x = wp.array((3.0 * np.random.default_rng(0).standard_normal(n)).astype(dtype), device="cpu:precise")
    y = wp.zeros(n, dtype=x.dtype, device="cpu:precise")
    r = wp.launch(kernel, dim=n, inputs=[x, y], device="cpu:precise", block_dim=256)
    return r.metrics["smsp__inst_issued.sum"] / (n // 32)


def _measured_per_warp(launch: str, threads: int = 16 * (1 << 20), group: str = "blind6") -> float:
    """smsp__inst_executed.sum a warp of a launch of a set (6 unless said) on the H200 (Nsight
    Compute's CSV and the set's manifest, as measured)."""
    import pandas as pd
    data = Path(__file__).resolve().parent.parent / "benchmarks" / "timing" / "data" / "h200"
    manifest = pd.read_csv(data / f"{group}_manifest.csv")
    row = manifest.index[manifest["name"] == launch][0]
    csv = pd.read_csv(data / f"{group}.csv", skiprows=3, thousands=",")
    per = csv[(csv["ID"] == row) & (csv["Metric Name"] == "smsp__inst_executed.sum")]
    return float(per["Metric Value"].iloc[0]) / (threads // 32)


@pytest.mark.parametrize("dtype, launch", [(np.float32, "mish@16M"), (np.float64, "mish_f64@16M")])
def test_straight_code_issues_what_the_h200_executes(dtype, launch, monkeypatch):
    """Mish outside any loop: exp, log and tanh in a branch. The H200 executed 143 SASS
    instructions a warp in fp32 and 276 in fp64 (set 6, Nsight Compute); the op table's sums say
    111 and 159 (fp64 tanh has no probe: one fp64 op; ptxas's range checks and the moves
    around the slow paths are not in the table). Taken from the SASS, the model issues within
    5% of the hardware, and without it (STRAIGHT off) over 15% short."""
    measured = _measured_per_warp(launch)
    assert _issued_per_warp(mish, dtype) == pytest.approx(measured, rel=0.05)
    monkeypatch.setattr(sass_slots, "STRAIGHT", False)
    assert _issued_per_warp(mish, dtype) < 0.85 * measured


def test_a_call_of_simts_fp64_function_issues_the_callees_instructions():
    """simt emits fp64 tanh as a PTX function; ptxas CALLs it. A warp issues the callee's SASS
    instructions (simt.sass: the function's rows) on the calling line, not one fp64 op."""
    df = wp.sass(tanh64)
    callee = df[(df["function"] != df["function"].iloc[0]) & (df["opcode"] != "NOP")]
    assert len(callee) > 40
    own = df[(df["function"] == df["function"].iloc[0]) & (df["opcode"] != "NOP")]
    issued = _issued_per_warp(tanh64, np.float64)
    assert len(callee) <= issued <= len(callee) + len(own)


def test_an_outer_loop_issues_its_sass_loops_own_instructions(monkeypatch):
    """An LZ match search: a rolled window loop around a divergent byte-matching loop. On random
    bytes the inner loop stops at its first compare, so the window loop's own instructions
    (convergence barriers, reloaded constants, its counter, 22 SASS instructions an iteration
    against 10.5 op-table slots) are a third of what a warp issues. The H200 executed 2,198 SASS
    instructions a warp (set 6, lz_random@512K); the model issues within 10% of that, and
    without the outer loop's SASS (OUTER off) over 15% short."""
    n = 1 << 14
    data = wp.array(np.random.default_rng(1).integers(0, 256, n).astype(np.uint8), device="cpu:precise")

    def issued():
        a = wp.zeros(n, dtype=wp.int16, device="cpu:precise")
        b = wp.zeros(n, dtype=wp.int16, device="cpu:precise")
        r = wp.launch(lz_match, dim=n, inputs=[data, 64, 32, a, b], device="cpu:precise", block_dim=128)
        return r.metrics["smsp__inst_issued.sum"] / (n // 32)

    measured = _measured_per_warp("lz_random@512K", 512 * 1024)
    assert issued() == pytest.approx(measured, rel=0.10)
    monkeypatch.setattr(sass_slots, "OUTER", False)
    assert issued() < 0.85 * measured


def test_a_line_issues_the_address_arithmetic_ptxas_gives_it(monkeypatch):
    """Point in polygon: every lane loads the same vertex, so ptxas computes the addresses on
    the uniform datapath (USHF, UIMAD.WIDE, UIADD3, then IMAD.U32 moves into vector registers):
    eight instructions a load that the MIR's load carries no ALU slot for. The line issues
    them all the same. The H200 executed 2,801 SASS instructions a warp over 64 vertices (set
    5, pip_v64@1M, Nsight Compute); the model issues within 10% of that, and without the
    lines' extra instructions (EXTRA off) over 15% short."""
    rng = np.random.default_rng(2)
    m, n = 64, 1 << 13
    a = np.sort(rng.random(m)) * 2 * np.pi
    r = 0.2 + 0.25 * rng.random(m)
    vx = wp.array((0.5 + r * np.cos(a)).astype(np.float32), device="cpu:precise")
    vy = wp.array((0.5 + r * np.sin(a)).astype(np.float32), device="cpu:precise")
    px = wp.array(rng.random(n).astype(np.float32), device="cpu:precise")
    py = wp.array(rng.random(n).astype(np.float32), device="cpu:precise")

    def issued():
        out = wp.zeros(n, dtype=int, device="cpu:precise")
        r_ = wp.launch(point_in_polygon, dim=n, inputs=[px, py, vx, vy, out], device="cpu:precise", block_dim=256)
        return r_.metrics["smsp__inst_issued.sum"] / (n // 32)

    measured = _measured_per_warp("pip_v64@1M", 1 << 20, "blind5")
    assert issued() == pytest.approx(measured, rel=0.10)
    monkeypatch.setattr(sass_slots, "EXTRA", False)
    assert issued() < 0.85 * measured


# ---- loops ptxas unrolled completely (unrolled_scales) ------------------------------------------

@wp.kernel
def counted(x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for a in range(-5, 60):
        s += x[i] * float(a)
    for b in range(0, 100, 3):
        s += float(b) * s
    for c in range(90, 0, -2):
        s += float(c) * s
    for d in range(n):
        s += 1.0
    y[i] = s


def test_trip_counts_of_constant_loops_are_pythons():
    """The loop's counter starts, steps and stops at constants: as many iterations as Python's
    range; a bound the launch gives is unknown (0). (Long ones: simt unrolls short ones
    itself.)"""
    fn = counted.compile(LaunchSig(1, 1))
    prog = prepare(fn)
    from simt.gpu.sass import loop_spans
    trips = sorted(sass_slots.trip_count(prog, t, b) for t, b in loop_spans(fn))
    assert trips == sorted([len(range(-5, 60)), len(range(0, 100, 3)), len(range(90, 0, -2)), 0])


def test_a_completely_unrolled_loop_issues_its_sass_over_its_trips(monkeypatch):
    """Bezier patches in Bernstein form: ptxas unrolls ``for j in range(4)`` completely, and
    a control point's read issues 53 SASS instructions an iteration (addresses, the three
    loads) where the op table says 37. The H200 executed 466 SASS instructions a warp (set 12,
    bz_bernstein@4K); the model issues within 15% of that, and without the unrolled loop's
    SASS (UNROLLED off) over 15% short."""
    patches = 64
    rng = np.random.default_rng(3)
    ctrl = wp.array(rng.uniform(-10, 10, (patches, 16, 3)).astype(np.float32), device="cpu:precise")
    n = patches * BZ * BZ

    def issued():
        out = wp.zeros((n, 3), dtype=float, device="cpu:precise")
        r = wp.launch(bezier_bernstein, dim=n, inputs=[ctrl, out], device="cpu:precise", block_dim=256)
        return r.metrics["smsp__inst_issued.sum"] / (n // 32)

    measured = _measured_per_warp("bz_bernstein@4K", 4096 * BZ * BZ, "blind12")
    assert issued() == pytest.approx(measured, rel=0.15)
    monkeypatch.setattr(sass_slots, "UNROLLED", False)
    assert issued() < 0.85 * measured


@wp.kernel
def rounds(seed: wp.uint32, out: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    a = wp.uint32(i) ^ seed
    b = wp.uint32(0xEFCDAB89)
    for r in range(64):
        f = wp.uint32(0)
        if r < 16:
            f = (a & b) | (~a & seed)
        elif r < 32:
            f = a ^ b
        else:
            f = b | ~a
        a, b = b, a + f + wp.uint32(r)
    out[i] = a ^ b


def test_an_unrolled_loop_that_branches_on_its_counter_issues_its_sass():
    """Each unrolled copy of MD5-like rounds holds one of the round functions (a branch on the
    counter, folded away), so a line's SASS over the trips is not what an iteration of the MIR
    runs there; but the SASS is one straight run, so a warp issues every instruction of it
    once: the branches' lines issue theirs on every iteration's account, none on their own."""
    df = wp.sass(rounds)
    kernel = df[df["function"] == df["function"].iloc[0]]
    assert (kernel["loop"] == -1).all() and not (kernel["opcode"] == "BRA").any() or \
        set(kernel.loc[kernel["opcode"] == "BRA", "target"]) <= set(kernel.loc[kernel["opcode"] == "BRA", "addr"])
    straight = int(((kernel["opcode"] != "NOP") & (kernel["opcode"] != "BRA")).sum())
    n = 1 << 12
    out = wp.zeros(n, dtype=wp.uint32, device="cpu:precise")
    r = wp.launch(rounds, dim=n, inputs=[wp.uint32(7), out], device="cpu:precise")
    per_warp = r.metrics["smsp__inst_issued.sum"] / (n // 32)
    assert per_warp == pytest.approx(straight, rel=0.1)
    tab_off = {}
    fn = rounds.compile(LaunchSig(1, 1))
    prog = prepare(fn)
    from simt.sim.timing import folding, isa
    tab = isa.tables(prog, load_arch("sm_90"), folding.folded(fn, folding.unrolled(fn, df)))
    scales = sass_slots.unrolled_scales(prog, df, tab, tab_off)
    assert scales and tab_off                # the branches' lines are priced from the SASS


# ---- a rolled loop around unrolled ones (nest_scales); fewer SASS than the op table (_fit) -------

def test_a_rolled_loop_around_unrolled_ones_issues_its_sass(monkeypatch):
    """A GEMM with 32x32 shared tiles: ptxas keeps the tile loop rolled and unrolls the
    ``for kk in range(32)`` inside it completely, folding the addresses into the loads' offsets
    and merging four of ``a_s[ty, kk]``'s loads into one LDS.128: an accumulation line issues
    an FFMA and a quarter of a load a ``kk``, where the op table says a load with its address
    arithmetic, a multiply and an add. The H200 executed 1,588 SASS instructions a warp (set 1,
    gemm_tiled@128, Nsight Compute), the op table's sum 2,749; the model issues within 10% of
    the H200's, and without the nest's SASS (NEST off) over 30% more."""
    n = 128
    rng = np.random.default_rng(4)
    a, b, c = (wp.array(rng.random((n, n), dtype=np.float32), device="cpu:precise") for _ in range(3))

    def issued():
        r = wp.launch(gemm_tiled, dim=(n // 4, n), inputs=[a, b, c, 1.5, 0.5], device="cpu:precise",
                      block_dim=(8, 32))
        return r.metrics["smsp__inst_issued.sum"] / (n * n // 4 // 32)

    measured = _measured_per_warp("gemm_tiled@128", n * n // 4, "blind")
    assert issued() == pytest.approx(measured, rel=0.10)
    monkeypatch.setattr(sass_slots, "NEST", False)
    assert issued() > 1.3 * measured


def test_a_nest_of_rolled_and_unrolled_loops_issues_its_sass(monkeypatch):
    """SHA-3, a thread a message: ptxas keeps the round loop and theta's ``for x`` / ``for y``
    rolled, and unrolls rho-pi's and chi's 5x5 loops into the round loop, where the state's
    run-time index becomes chains of SELs (about 1,900 SASS instructions a round on each of
    the two lines) that simt's folding prices as constant. The H200 executed 209,747 SASS
    instructions a warp (set 14, keccak_thread@32K, Nsight Compute); the model issues within
    10% of that, and without the mixed nest's SASS (MIXED_NESTS off) under 0.75 of it."""
    from timing.blind14 import cases as kc
    from timing.blind14.kernels_apps import keccak_thread
    n = 1024
    inputs, dim, block = kc.keccak(n, False)(np.random.default_rng(1))

    def issued():
        r = wp.launch(keccak_thread, dim=dim, inputs=[wp.array(x, device="cpu:precise") for x in inputs],
                      device="cpu:precise", block_dim=block)
        return r.metrics["smsp__inst_issued.sum"] / (n // 32)

    measured = _measured_per_warp("keccak_thread@32K", 32 * 1024, "blind14")
    assert issued() == pytest.approx(measured, rel=0.10)
    monkeypatch.setattr(sass_slots, "MIXED_NESTS", False)
    assert issued() < 0.75 * measured


def test_code_ptxas_makes_smaller_issues_its_sass(monkeypatch):
    """Philox4x32-10, its ten rounds unrolled by simt: a 32x32->64-bit product and the halves
    taken from it are one IMAD.WIDE.U32 in the SASS, where the op table prices 64-bit multiplies,
    shifts and masks; the lines' SASS is a fifth of their slots, ptxas crediting part of it to
    neighbouring lines (the pool of such lines: factor 0.2). The H200 executed 112 SASS
    instructions a warp (set 7, philox@64K); the model issues within 10% of that, and with the
    pool held to factors of 0.5 or more and no line's loads made cheaper (LOWER 0.5, FEWER off:
    the rules before) over 1.5 times as many."""
    n = 1 << 14

    def issued():
        out = wp.zeros(4 * n, dtype=float, device="cpu:precise")
        r = wp.launch(philox_uniform, dim=n, inputs=[np.uint32(7), out], device="cpu:precise", block_dim=256)
        return r.metrics["smsp__inst_issued.sum"] / (n // 32)

    measured = _measured_per_warp("philox@64K", n, "blind7")
    assert issued() == pytest.approx(measured, rel=0.10)
    monkeypatch.setattr(sass_slots, "LOWER", 0.5)
    monkeypatch.setattr(sass_slots, "FEWER", False)
    assert issued() > 1.5 * measured


# ---- stores ptxas puts back to back (stores.py) ---------------------------------------------------

@wp.kernel
def words_interleaved(out: wp.array(dtype=float)):
    i = wp.tid()
    v = float(i)
    out[2 * i] = v
    out[2 * i + 1] = v + 1.0


@wp.kernel
def words_planes(out: wp.array(dtype=float), n: int):
    i = wp.tid()
    v = float(i)
    out[i] = v
    out[n + i] = v + 1.0


def test_stores_back_to_back_to_the_same_lines_cost_the_l2_one_write(monkeypatch):
    """A thread's two words out[2*i], out[2*i + 1], stored back to back (ptxas puts the STGs
    together), cost the H200 what two coalesced stores to separate planes cost (23,209 and
    23,124 cycles at 4M threads, store_merge.cu, data/h200/store_merge.csv): the second merges
    with the first on the way to the L2. The model agrees within 10%; without merging
    (STORE_MERGE off) it says the interleaved words cost over 1.3 times as much."""
    n = 1 << 21

    def cycles():
        out = wp.zeros(2 * n, dtype=float, device="cpu:precise")
        a = wp.launch(words_interleaved, dim=n, inputs=[out], device="cpu:precise", block_dim=256)
        b = wp.launch(words_planes, dim=n, inputs=[out, n], device="cpu:precise", block_dim=256)
        return a.metrics["sm__cycles_elapsed.max"] / b.metrics["sm__cycles_elapsed.max"]

    assert cycles() == pytest.approx(1.0, abs=0.10)
    monkeypatch.setattr(model, "STORE_MERGE", False)
    assert cycles() > 1.3


def test_a_line_calling_a_slow_path_keeps_its_slots(monkeypatch):
    """NTT with ``(u64(a) * u64(w)) % u64(p)``: ptxas calls its 64-bit remainder subroutine
    from a block of the line; the counts leave such blocks out, so the line's own count is
    short and must not scale its slots. The model issues within 15% of what the H200
    executed a warp (set 12, Nsight Compute); pooled with the other lines, it issued 0.22x."""
    from timing.blind12 import cases as C12, kernels as K12
    measured = _measured_per_warp("ntt_mod@4M", 1 << 21, "blind12")
    values, _, _ = C12.ntt(14, 10, False)(np.random.default_rng(0))

    def issued():
        K12.ntt_stage_mod.clear_cache()
        args = [wp.array(v, device="cpu:precise") if isinstance(v, np.ndarray) else v for v in values]
        r = wp.launch(K12.ntt_stage_mod, dim=1 << 13, inputs=args, device="cpu:precise", block_dim=256)
        return r.metrics["smsp__inst_issued.sum"] / ((1 << 13) // 32)
    assert issued() == pytest.approx(measured, rel=0.15)
    monkeypatch.setattr(sass_slots, "SLOW_ALONE", False)
    assert issued() < 0.5 * measured


# ---- work ptxas predicated, shared or hid in libdevice's slow paths ------------------------------

def _case(group: str, name: str):
    import importlib
    return next(x for x in importlib.import_module(f"timing.{group}.cases").LAUNCHES if x.name == name)


def _issued_per_warp_of(group: str, name: str, make, flag: str, value: bool, monkeypatch) -> float:
    from timing import cases as base
    monkeypatch.setattr(sass_slots, flag, value)
    launch = _case(group, name)
    inputs, dim, block = base.instantiate(type(launch)(launch.name, launch.kernel, make, launch.limiter,
                                                       launch.dtypes), "cpu:precise")
    r = wp.launch(launch.kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:precise")
    return r.metrics["smsp__inst_issued.sum"] / (int(np.prod(dim)) // 32)


def test_libdevices_slow_path_is_not_what_a_warp_issues(monkeypatch):
    """Kepler's equation in fp64: sin and cos outside the Newton loop call libdevice, whose
    reduction of huge arguments (``$kepler_orbit$__internal_trig_reduction_slowpathd``, 151
    SASS instructions and a loop) runs for none of these angles. The H200 executed 1,290 SASS
    instructions a warp (set 15, kepler_low@1M); counting that slow path at every call makes
    it twice that."""
    from timing.blind15 import cases as c15
    measured = _measured_per_warp("kepler_low@1M", 1 << 20, "blind15")
    args = ("blind15", "kepler_low@1M", c15.kepler(4096, False), "LIBDEVICE_SLOW")
    assert _issued_per_warp_of(*args, True, monkeypatch) == pytest.approx(measured, rel=0.15)
    assert _issued_per_warp_of(*args, False, monkeypatch) > 1.5 * measured


def test_a_branch_ptxas_predicated_in_a_loop_issues_every_iteration(monkeypatch):
    """Adler-32 a thread a chunk: A and B are folded modulo 65521 every 256 bytes, under a
    branch the MIR takes once in 256 iterations; ptxas predicates the fold into its 4-way
    unrolled body, so every iteration issues it. The H200 executed 129,382 SASS instructions a
    warp (set 8, adler_thread@16Kx4K); with the fold issued only when taken, a third of that."""
    from timing.blind8 import cases as c8
    measured = _measured_per_warp("adler_thread@16Kx4K", 16 * 1024, "blind8")
    args = ("blind8", "adler_thread@16Kx4K", c8.chunks(256, c8.K4, False), "PREDICATED_LINES")
    assert _issued_per_warp_of(*args, True, monkeypatch) == pytest.approx(measured, rel=0.05)
    assert _issued_per_warp_of(*args, False, monkeypatch) < 0.5 * measured


def test_an_unrolled_window_with_predicated_branches_issues_its_straight_sass(monkeypatch):
    """A 5 x 5 census transform: two loops ptxas unrolls completely, a compare and a
    conditional bit per neighbour, all predicated: one straight run of SASS a warp issues once.
    The H200 executed 217 SASS instructions a warp (set 10, census5x5@2048)."""
    from timing.blind10 import cases as c10
    measured = _measured_per_warp("census5x5@2048", 2048 * 2048, "blind10")
    args = ("blind10", "census5x5@2048", c10.census(128, False), "PREDICATED_LINES")
    assert _issued_per_warp_of(*args, True, monkeypatch) == pytest.approx(measured, rel=0.05)
    assert _issued_per_warp_of(*args, False, monkeypatch) > 1.3 * measured


def test_a_loop_whose_loads_share_their_addresses_issues_its_sass(monkeypatch):
    """The Harris response read straight from global memory: 12 clamped reads an iteration of
    the window loop, whose address arithmetic ptxas shares (79 SASS instructions an iteration,
    the op table 140: a factor of 0.47, below the 0.5 a line's own factor may take). The H200
    executed 2,087 SASS instructions a warp (set 12, harris_direct@1024)."""
    from timing.blind12 import cases as c12
    measured = _measured_per_warp("harris_direct@1024", 1024 * 1024, "blind12")
    args = ("blind12", "harris_direct@1024", c12.harris(128, False), "WIDE_LOOPS")
    assert _issued_per_warp_of(*args, True, monkeypatch) == pytest.approx(measured, rel=0.1)
    assert _issued_per_warp_of(*args, False, monkeypatch) > 1.4 * measured


def test_a_loop_line_that_calls_keeps_its_slots(monkeypatch):
    """Miller-Rabin's modular products: a 64-bit remainder a step, which ptxas CALLs
    (``__internal_..._urem64``), in loops whose other lines ptxas shrinks. The calling line's
    SASS in the loop is the call and its moves, its work is in the callee: pooled with its
    neighbours it would issue almost nothing (0.22x of the H200's 15,132 SASS instructions a
    warp, set 10, mr_random@256K)."""
    from timing.blind10 import cases as c10
    measured = _measured_per_warp("mr_random@256K", 256 * 1024, "blind10")
    args = ("blind10", "mr_random@256K", c10.primes_or_random(8192, False), "POOL_LINES")
    assert _issued_per_warp_of(*args, True, monkeypatch) == pytest.approx(measured, rel=0.1)


def test_an_outer_loops_peeled_inner_iterations_are_the_inner_loops(monkeypatch):
    """t-SNE's perplexity search a warp a point: an outer bisection loop around a strided
    loop of two trips a lane, which ptxas unrolls by 4 and so runs entirely in the remainder
    copies it peels into the outer body, and a butterfly of 5 shuffles it unrolls completely.
    Those copies are the outer SASS loop's own rows but the MIR's inner loops issue them:
    counted on the outer loop's back edge too, a warp issued 1.38x what the H200 executed
    (set 14, perp_warp@32K); without them (OUTER_OWN_LINES) within 10%."""
    from timing.blind14 import cases as c14
    launch = _case("blind14", "perp_warp@32K")
    _, dim, _ = c14.instantiate(launch, "cpu:precise")
    measured = _measured_per_warp("perp_warp@32K", int(np.prod(dim)), "blind14")
    small = c14.perplexity(2048, 64, 20.0, True)
    on = _issued_per_warp_of("blind14", "perp_warp@32K", small, "OUTER_OWN_LINES", True, monkeypatch)
    off = _issued_per_warp_of("blind14", "perp_warp@32K", small, "OUTER_OWN_LINES", False, monkeypatch)
    assert on == pytest.approx(measured, rel=0.10)
    assert off > 1.25 * measured


def test_a_loop_dividing_on_the_fast_path_issues_its_sass(monkeypatch):
    """Non-local means: the search window's inner loop (its 3x3 patch unrolled) divides by
    h^2 every iteration. ptxas's division branches around a call of its slow path
    (``FCHK``, ``BSSY``/``BSYNC``), so the SASS loop has a second branch, and the loop was
    left at the op table's slots: 1.32x what the H200 executed (set 7, nlm_denoise@2048).
    Read as plain with the slow path's diamond aside (SLOW_DIAMONDS), a warp issues the fast
    path's SASS, within 5% of the H200's count; the data never takes the slow path."""
    from timing.blind7 import cases as c7
    measured = _measured_per_warp("nlm_denoise@2048", 2048 * 2048, "blind7")
    small = c7.denoise(256)
    on = _issued_per_warp_of("blind7", "nlm_denoise@2048", small, "SLOW_DIAMONDS", True, monkeypatch)
    off = _issued_per_warp_of("blind7", "nlm_denoise@2048", small, "SLOW_DIAMONDS", False, monkeypatch)
    assert on == pytest.approx(measured, rel=0.05)
    assert off > 1.2 * measured
