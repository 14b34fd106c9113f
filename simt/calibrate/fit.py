"""The one fit of the timing model: microbenchmark CSVs in, an architecture file's ``timing`` section out.

Every constant is the slope (or plateau) of one microbenchmark that isolates it: micro.cu to
micro4.cu (CUDA C, measured with Nsight Compute), the loaded-latency tables of micro5.cu and
micro8.cu (timed in-kernel with clock64) and the op probes (probes.py, simt's own PTX). Each
constant names what it came from in ``timing.sources``. Held-out launches are never read here.

The same fit reads the clock64 fallback's measurements (no profiler: ``timer="clock64"``):
clock64_csv.py gives each part the same table, event times on the profiler's cycle scale and
the counters computed (counts.py). Where a formula needs a counter nothing can compute, the
fallback's own measurement replaces it (dram_fetch_bytes, l2_bytes from times;
dram_write_cost between sizes), and what needs the profiler (NOT_MEASURED_BY_CLOCK64) is taken
from a shipped file and named.

``simt calibrate`` measures a GPU and calls ``fit``; benchmarks/timing/fit_arch.py calls it on
the committed H200 measurements (benchmarks/timing/data/h200) to write simt/arch/sm_90.json.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..arch import load_arch
from ..errors import SimtError
from . import clock64_csv, ncu_csv, op_overlap, probes
from .fit_atomics import ATOMIC_COLD_SOURCE, ATOMIC_WINDOW_SOURCE, atomic_cold_and_window
from .fit_dram import (DRAM_ACCESS_SOURCE, DRAM_PAGE_SOURCE, DRAM_RMW_SOURCE, dram_access_bytes, dram_page_bytes,
                       dram_rmw_access_bytes)
from .fit_ops import CYC, INST, SASS_PIPES, SASS_PIPES_SOURCE, _steps, op_table
from .fit_stores import (STORE_MERGE_SOURCE, STORE_RUNS_NEAR_SOURCE, STORE_RUNS_SHARE_SOURCE, STORE_RUNS_SOURCE,
                         store_merge_lines, store_runs)

TIME = "gpu__time_duration.sum"

# what the fit reads from a measurement directory, and the part of ``simt calibrate`` that makes it
NEEDED_FILES = {
    "micro.csv": "micro", "micro_manifest.csv": "micro",
    "micro2.csv": "micro2", "micro2_manifest.csv": "micro2",
    "micro3.csv": "micro3", "micro3_manifest.csv": "micro3",
    "micro4.csv": "micro4", "micro4_manifest.csv": "micro4",
    "loaded_latency.csv": "micro5", "loaded_latency_writes.csv": "micro8",
    "probes.csv": "probes", "probes_manifest.csv": "probes",
}
# later measurements of some probes (the H200's probes2/probes3) replace earlier ones
PROBE_PARTS = ("probes", "probes2", "probes3", "probes4", "probes5", "probes6")
# the clock64 fallback (no profiler): per part its manifest, its launch times and, for the CUDA C
# parts, the SASS of its program; clock.csv for the SM clock
CLOCK64_FILES = {
    **{f"{p}_manifest.csv": p for p in ("micro", "micro2", "micro3", "micro4", "probes")},
    **{clock64_csv.times_file(p): p for p in ("micro", "micro2", "micro3", "micro4", "probes")},
    **{f"{p}.sass": p for p in ("micro", "micro2", "micro3", "micro4")},
    clock64_csv.CLOCK_FILE: "clock", "loaded_latency.csv": "micro5", "loaded_latency_writes.csv": "micro8",
}
TIMERS = ("ncu", "clock64")
# what the clock64 fallback cannot measure without the profiler: taken from a shipped file
NOT_MEASURED_BY_CLOCK64 = {
    "time_offset_ns": "how gpu__time_duration.sum exceeds the SM cycles (an event time counts more of the launch)",
    "launch_floor_cycles": "an empty launch's SM cycles (event times count the launch's own start and end)",
    "l2_dirty_bytes": "the dirty bytes the L2 holds at a kernel's end (dram__bytes_write.sum of micro.cu stream_write)",
    "l2_requests_per_cycle": "the L2's read requests a cycle (lts__t_sectors.sum of atomic_lines.cu's ld_rand, "
                             "or lts__t_sectors_srcunit_tex_op_read.sum of benchmarks/timing/l2_sharing.cu)",
    "l1_tag_line_cycles": "the L1 tag stage's cycles a line (simt/calibrate/warp_words.py's records, simt kernels "
                          "timed by the profiler's cycles)",
    "store_merge_lines": "the most lines of a store request that merges with the one before it "
                         "(simt/calibrate/cuda/store_merge.cu, timed by the profiler's cycles, and store_runs.cu, "
                         "counted by its L2 write sectors)",
    "store_merge_lines_near": "the same with one instruction between the stores (simt/calibrate/cuda/store_runs.cu, "
                              "counted by the profiler's L2 write sectors)",
    "store_merge_share": "the share of its lines a store merged into a run after the second still sends "
                         "(simt/calibrate/cuda/store_runs.cu, counted by the profiler's L2 write requests)",
    "op_hold": "the cycles a long op keeps its warp (simt/calibrate/op_overlap.py, simt kernels timed by the "
               "profiler's cycles)",
    "l1_store_line_cycles": "the cycles a stored line takes on its SM's path to the L2 "
                            "(simt/calibrate/cuda/l1_store_data.cu, timed by the profiler's cycles)",
    "l1_store_sector_cycles": "the cycles each sector of a stored line adds on that path "
                              "(simt/calibrate/cuda/l1_store_data.cu, timed by the profiler's cycles)",
    "atomic_hot_window_cycles": "the window within which an atomic unit's update of a line makes the next one on "
                                "it slower (simt/calibrate/cuda/atomic_lines.cu, timed by the profiler's cycles)",
    "l1_data_store_line_cycles": "the cycles a stored line takes of the L1's data stage "
                                 "(simt/calibrate/cuda/l1_store_data.cu, timed by the profiler's cycles)",
    "dram_access_bytes": "the least DRAM time a lone access takes (simt/calibrate/cuda/atomic_lines.cu's random "
                         "loads over 256 MB, measured under the profiler)",
    "dram_rmw_access_bytes": "what a lone write-back of a partly written sector costs DRAM (simt/calibrate/cuda/"
                             "atomic_lines.cu's random stores over 256 MB, measured under the profiler)",
    "dram_page_bytes": "how far apart lone DRAM fetches share an access's time (micro.cu scatter_read against "
                       "dram_access_bytes, which needs the profiler)",
}
CLOCK64_NOTE = (" [clock64 fallback: cycles from CUDA-event times at the clock.cu clock (clock64_csv.py); "
                "instructions, sectors and DRAM bytes computed from the SASS and the manifests (counts.py)]")


class FitError(SimtError):
    """The measurements cannot be fitted: a file is missing or a benchmark has too few sizes."""


def missing_files(data: Path, timer: str = "ncu") -> list[str]:
    """The files ``fit`` needs that ``data`` lacks, each with the part that writes it."""
    needed = CLOCK64_FILES if timer == "clock64" else NEEDED_FILES
    return [f"{name} (part {part})" for name, part in needed.items() if not (Path(data) / name).exists()]


def slope(df, bench, x="work", y=CYC):
    """d y / d x between a benchmark's sizes (least squares when there are more than two)."""
    rows = df[df.bench == bench]
    if len(rows) < 2:
        raise KeyError(f"{bench}: fewer than two sizes measured")
    return float(np.polyfit(rows[x].astype(float), rows[y].astype(float), 1)[0])


def adu_interval(micro, n_sm: int, n_sched: int) -> tuple[float, str]:
    """(the ADU pipe's cycles per warp instruction per scheduler, where it comes from): micro.cu
    tput_ldc, the SM's cycles per LDC times its schedulers (the ADU is one unit an SM; the
    model's pipes are per scheduler), or, from measurements made without that benchmark,
    sm_90.json's value and source (measured apart from micro.cu, whose H200 CSVs predate it)."""
    if (micro["bench"] == "tput_ldc").sum() >= 2:
        return (round(slope(micro, "tput_ldc") * n_sm * n_sched, 3),
                "micro.cu tput_ldc: SM cycles per constant load from a register address (LDC) per SM, "
                "times the schedulers of an SM")
    shipped = load_arch("sm_90").data["timing"]
    return float(shipped["pipe_interval"]["adu"]), shipped["sources"]["pipe_interval"].split("; adu: ", 1)[1]


def dram_bpc_estimate(micro) -> float:
    rd = micro[(micro.bench == "stream_read") & (micro.value >= 256)]
    return 1.0 / float(np.polyfit(rd["dram__bytes_read.sum"], rd[CYC], 1)[0])


def harmonic(k):
    return sum(1.0 / i for i in range(1, int(k) + 1))


def loaded_latency(data: Path, csv: str, column: str, value: str, amount: str, unit_bytes: int):
    """A loaded-latency table (micro5.cu, micro8.cu: a chase timed while other blocks stream)
    at ``column`` == ``value``: per row with streaming blocks, the chase's latency over the
    idle chase's, and the bytes streamed per cycle (``amount`` x ``unit_bytes``)."""
    df = pd.read_csv(Path(data) / csv)
    df = df[df[column] == value]
    latency = df.chase_cycles / df.steps
    busy = df.stream_blocks > 0
    base = float(latency[df.stream_blocks == 0].iloc[0])
    moved = df[amount][busy] * unit_bytes / df.stream_cycles[busy].clip(lower=1)
    return latency[busy] - base, moved


def l1_store_steps(df) -> dict:
    """l1_store_data.cu's launches (``load("l1_store_data")``): the SM cycles a step of each
    kernel and shape, {(bench, warps a block, blocks): cycles}, from the launches of 1024 and
    256 steps (their difference: the launch's own cost drops out)."""
    out = {}
    for (bench, block, grid), g in df.groupby(["bench", "block", "grid"], sort=False):
        cyc = g.set_index("value")["sm__cycles_elapsed.max"]
        out[(bench, int(block) // 32, int(grid))] = float((cyc[1024] - cyc[256]) / 768)
    return out


def _few_sm_steps(df) -> dict:
    """{bench: SM cycles a step} of l1_store_data.cu's shape the store constants come from: 16
    warps a block on an eighth of the SMs (the L2 far from busy)."""
    steps = l1_store_steps(df)
    blocks = min(b for (_, w, b) in steps if w == 16)
    return {bench: c for (bench, w, b), c in steps.items() if (w, b) == (16, blocks)}


L1_STORE_SOURCE = ("l1_store_data.cu (benchmarks/timing/l1_store_data.py), 16 warps on each of an eighth of "
                   "the SMs (the L2 far from busy): stores of 32 one-sector lines (st32_out) and of one whole "
                   "line (st1), cycles a step over the lines a step; the line cost and the sector cost that "
                   "give both")


def l1_store_costs(df) -> tuple[float, float]:
    """The cycles a stored line and each of its sectors take on the SM's path to the L2
    (l1_store_line_cycles, l1_store_sector_cycles): l1_store_data.cu's stores of 32 one-sector
    lines and of one 4-sector line a warp a step, 16 warps on each of an eighth of the SMs:
    a + b = the first's cycles a line, a + 4b = the second's."""
    steps = _few_sm_steps(df)
    one = steps["st32_out"] / (32 * 16)
    whole = steps["st1"] / 16
    sector = (whole - one) / 3
    return round(one - sector, 3), round(sector, 3)


L1_DATA_STORE_SOURCE = ("l1_store_data.cu (benchmarks/timing/l1_store_data.py), 16 warps on each of an eighth "
                        "of the SMs: a step's load of 32 L1 lines and store of 32 one-sector lines (ldst32_in, "
                        "ldst32_out) less the load alone (ld32), cycles a step over the lines stored a step")


def l1_data_store_cycles(df) -> float:
    """The cycles a stored line takes of the L1's data stage, in turn with the lines loads
    bring back (l1_data_store_line_cycles): l1_store_data.cu's steps of a load of 32 L1 lines
    and a store of 32 one-sector lines, less the load's steps alone, 16 warps on each of an
    eighth of the SMs (where the stores alone go at their path's rate, below the sum)."""
    steps = _few_sm_steps(df)
    both = (steps["ldst32_in"] + steps["ldst32_out"]) / 2
    return round((both - steps["ld32"]) / (32 * 16), 3)


def queue_fit(extra, rho) -> float:
    """The service time q of an M/D/1 wait, extra = q * rho / (2 (1 - rho)): least squares over
    the rows below saturation (rho < 0.9)."""
    keep = rho < 0.9
    x = (rho / (2 * (1 - rho)))[keep]
    y = extra[keep]
    return round(float((x * y).sum() / (x * x).sum()), 2)


L1_WAYS_SOURCE = ("benchmarks/timing/l1_assoc.py --model (data/h100/l1_assoc: one thread chasing cycles of 4-3,072 "
                  "lines 1-4,096 lines apart on an H100, the H200's SM): of 4, 8 and 16 ways with the hashed or a "
                  "folded set index, 4 ways with l1_set_fold 6 fits the GPU's hit rates best (mean |difference| "
                  "0.005; the 8-way hashed L1 before it 0.019)")
L1_FOLD_SOURCE = ("benchmarks/timing/l1_assoc.py --model: the L1's set index, the line's number XORed with itself "
                  "shifted by 6 and 12 bits (0: a multiplicative hash); with it lines a power of two apart fill the "
                  "sets as consecutive lines do, as the H100's L1 keeps 1,536 lines at every stride of 1-512 lines; "
                  "folds of 7 and 8 fit about as well (0.005, 0.006)")
L2_MERGE_SOURCE = ("benchmarks/timing/l2_share.py --model (data/h100/l2_share: simt/calibrate/l2_share.py, blocks on "
                   "S = 4-132 SMs reading the same 256 KB regions through the L1, on an H100, the H200's SM and L2 "
                   "design; cuda/l2_share.cu shows the same with loads through the L2 only, S = 1-1,056): the GPU's "
                   "L2 counts 32-38% of the sectors asked for at S >= 8 and serves 2.3-2.7 times the stream's "
                   "sectors a cycle; a read reaching the L2 within l2_merge_window_cycles of another SM's read of "
                   "the same sectors is served with it, at most l2_merge_most reads at once, which fits both "
                   "(mean |log ratio| 0.060; windows of 75-200 cycles alike, the shortest taken; 4 reads at once "
                   "0.134, none 0.911)")
OP_HOLD_SOURCE = ("op_overlap.py: one warp running two independent chains of an op side by side against one "
                  "chain (simt's PTX, the profiler's cycles): half a step of two chains, less the chain's "
                  "companion op, for each op whose two chains take at least 1.3 steps of one (its SASS branches, "
                  "so neither the warp's next instructions nor the other chain's issue inside it); the 64-bit "
                  "division's for every 64-bit division and remainder but by a power of two, exp's and log's for "
                  "their other bases; an op not named overlaps")


def fit(data: Path, sm_count: int, schedulers_per_sm: int, l1_bytes: int, l1_source: str,
        dram_peak: float, dram_peak_source: str, timer: str = "ncu", shipped: tuple[dict, str] | None = None) -> dict:
    """The ``timing`` section from the measurements in ``data`` of a GPU with ``sm_count`` SMs
    of ``schedulers_per_sm`` warp schedulers.

    ``l1_bytes`` (the L1/shared array per SM) and ``dram_peak`` (bytes per second) are no
    measurements: the caller gives them (from the device) and their sources. ``timer``: how
    the launches were measured, ``ncu`` (Nsight Compute's CSVs) or ``clock64`` (the fallback
    without the profiler: self-timed launches, clock64_csv.py), which takes the constants in
    NOT_MEASURED_BY_CLOCK64 from ``shipped`` (a shipped file's timing section and its name).
    Raises FitError naming the missing files or the benchmark that cannot be fitted."""
    data = Path(data)
    if timer not in TIMERS:
        raise FitError(f"unknown timer {timer!r}; the timers are {', '.join(TIMERS)}")
    missing = missing_files(data, timer)
    if missing:
        raise FitError(f"cannot fit from {data}: missing {', '.join(missing)}")
    if timer == "clock64" and shipped is None:
        raise FitError("the clock64 fit needs a shipped timing section for the constants it cannot measure")
    try:
        return _fit(data, sm_count, schedulers_per_sm, l1_bytes, l1_source, dram_peak, dram_peak_source,
                    shipped if timer == "clock64" else None)
    except (KeyError, IndexError, ValueError, ZeroDivisionError, np.linalg.LinAlgError, SimtError) as e:
        if isinstance(e, FitError):
            raise
        raise FitError(f"cannot fit from {data}: {type(e).__name__}: {e}") from e


def _loader(data: Path, shipped: tuple[dict, str] | None):
    """How a part's table is read: the profiler's CSV, or (``shipped`` given) the self-timed
    launches on the profiler's cycle scale, the launch floor taken from ``shipped``."""
    if shipped is None:
        return lambda name: ncu_csv.load(name, data)
    clock, zero = clock64_csv.clock_mhz(data), clock64_csv.empty_launch_ns(data)
    floor = float(shipped[0]["launch_floor_cycles"])
    return lambda name: clock64_csv.load(name, data, clock, zero, floor)


def _fit(data: Path, n_sm: int, n_sched: int, l1_bytes: int, l1_source: str, dram_peak: float,
         dram_peak_source: str, shipped: tuple[dict, str] | None = None) -> dict:
    load = _loader(data, shipped)
    micro, micro2, micro3, micro4 = (load(n) for n in ("micro", "micro2", "micro3", "micro4"))
    # later measurements of a probe replace earlier ones (op_table takes the last row)
    parts = PROBE_PARTS if shipped is None else ("probes",)
    probe = pd.concat([load(n) for n in parts if (data / f"{n}_manifest.csv").exists()])
    t = {}
    sources: dict[str, str] = {}

    def note(key: str, value, source: str):
        sources[key] = source
        return value

    def not_measured(key: str):
        return note(key, shipped[0][key], f"not measured: {NOT_MEASURED_BY_CLOCK64[key]} needs the profiler; "
                                          f"the value of {shipped[1]}")

    # clocks and the launch floor
    if shipped is None:
        long = micro[micro[CYC] > 50_000]
        f, off = np.polyfit(long[TIME], long[CYC], 1)
        t["clock_mhz"] = note("clock_mhz", round(f * 1e3, 1), "micro.cu: sm__cycles_elapsed.max against gpu__time_duration.sum, launches over 50k cycles")
        t["time_offset_ns"] = note("time_offset_ns", round(-off / f, 1), "same fit: gpu__time_duration.sum = offset + cycles / clock")
        t["launch_floor_cycles"] = note("launch_floor_cycles", float(micro[micro.bench == "floor"][CYC].median()),
                                        "micro.cu floor: an empty one-warp kernel, median of 5")
    else:
        t["clock_mhz"] = note("clock_mhz", round(clock64_csv.clock_mhz(data), 1),
                              "clock.cu: every SM spinning, clock64 cycles against CUDA-event nanoseconds")
        t["time_offset_ns"] = not_measured("time_offset_ns")
        t["launch_floor_cycles"] = not_measured("launch_floor_cycles")
    per_sm = []
    for df, bench in ((micro, "dispatch32"), (micro4, "dispatch64"), (micro4, "dispatch256")):
        rows = df[(df.bench == bench) & (df.value >= 16)]
        per_sm.append(float(np.polyfit(rows.value, rows[CYC], 1)[0]))
    launch = float(np.mean(per_sm))
    t["cta_launch_cycles"] = note("cta_launch_cycles", round(launch, 2),
                                  "micro.cu dispatch32, micro4.cu dispatch64/256: empty blocks, many per SM: "
                                  "cycles per block per SM (an SM starts one block at a time)")
    t["cta_retire_cycles"] = note("cta_retire_cycles", round(slope(micro4, "rounds_nothing", x="value") - launch, 2),
                                  "micro4.cu rounds_nothing: empty blocks one at a time per SM: cycles per round "
                                  "less the launch (from a block's end until its slot takes the next)")
    # issue: pipe rates per scheduler (warp instructions per cycle) from the throughput kernels
    def rate(bench):
        return 1.0 / slope(micro, bench, x=INST) / (n_sched * n_sm)
    # the ALU pipe alone: tput_lop3 (tput_ialu2's adds of an immediate are VIADDs, FMA-pipe instructions
    # on sm_90, so its rate is the two pipes' together; pipe_mix.cu's profile of the pipes shows it)
    alu_bench = "tput_lop3" if (micro["bench"] == "tput_lop3").any() else "tput_ialu2"
    pipes = {"fma": rate("tput_ffma"), "alu": rate(alu_bench), "imad": rate("tput_imad"),
             "fp64": rate("tput_dfma"), "mufu": rate("tput_mufu"), "shfl": rate("tput_shfl"), "branch": 1.0}
    t["pipe_interval"] = {p: round(1.0 / r, 3) for p, r in pipes.items()}
    sources["pipe_interval"] = ("micro.cu tput_*: 8 blocks of 256 per SM, 8 independent chains: cycles per warp "
                                "instruction per scheduler (branch: one per cycle, micro2.cu branch_loop shows no penalty)")
    t["pipe_interval"]["adu"], adu_source = adu_interval(micro, n_sm, n_sched)
    sources["pipe_interval"] += "; adu: " + adu_source
    t["sass_pipes"] = {p: list(ops) for p, ops in SASS_PIPES.items()}
    sources["sass_pipes"] = SASS_PIPES_SOURCE

    # dependent latencies
    def chain(bench, df=micro):
        per_step = slope(df, bench)
        sass = slope(df, bench, y=INST)
        return per_step, sass
    alu = chain("chain_ialu2")[0] / 2
    lat = {"fma": chain("chain_ffma")[0], "alu": alu, "imad": chain("chain_imad")[0],
           "fp64": chain("chain_dfma")[0], "mufu": chain("chain_mufu")[0], "shfl": chain("chain_shfl")[0]}

    def memory(bench, df=micro):     # per step, less the address arithmetic the step also runs
        per_step, sass = chain(bench, df)
        return per_step - max(0.0, sass - 1.0) * alu
    lat["shared"] = memory("chain_shared")
    # a load or store is its address arithmetic plus the access: issue slots per chase step
    t["memory_issue_slots"] = note("memory_issue_slots",
                                   round((chain("chain_shared")[1] + chain("chain_l1")[1]) / 2, 3),
                                   "micro.cu chain_shared, chain_l1: SASS instructions per dependent load "
                                   "(the load and its address arithmetic)")
    lat["atomic_shared"] = memory("chain_atomic_shared")
    lat["atomic_global"] = memory("chain_atomic_global")
    lanes = micro2[micro2.bench.str.startswith("chase_")].copy()
    lanes["n"] = lanes.work // 8                      # work = 8 steps per iteration
    lanes["k"] = (lanes.value - lanes.n) // 1000      # value = 1000 k + n

    def per_k(bench):
        out = {}
        for k, g in lanes[lanes.bench == bench].groupby("k"):
            out[int(k)] = float(np.polyfit(g.work, g[CYC], 1)[0]) - alu   # less the address step
        return out
    l1k, l2k, dk = per_k("chase_l1plain_lanes"), per_k("chase_l2_lanes"), per_k("chase_dram_lanes")
    lat["l1"] = l1k[1]
    lat["l2"] = l2k[1]
    lat["dram"] = dk[1]
    t["latency"] = {k: round(v, 2) for k, v in lat.items()}
    # a block that stores keeps its slot until the stores have left: the extra cycles per
    # round over an empty block, less the store's own issue (two special registers, an add)
    stores = slope(micro4, "rounds_store", x="value") - slope(micro4, "rounds_nothing", x="value")
    t["store_retire_cycles"] = note("store_retire_cycles", round(stores - lat["shfl"] - alu, 2),
                                    "micro4.cu rounds_store against rounds_nothing, less the store's issue")
    # a loop whose exit test waits on the value it computes: FMA, compare, branch, per step
    bc = slope(micro4, "branch_chain", x="value")
    t["branch_cycles"] = note("branch_cycles", round(bc - lat["fma"] - alu - 1.0, 2),
                              "micro4.cu branch_chain: cycles per step less the FMA and compare latencies "
                              "and the branch's issue: a conditional branch resolving")
    sources["latency"] = ("micro.cu chain_*: one warp, dependent steps, cycles per step (memory chains less their "
                          "address arithmetic); l1/l2/dram: micro2.cu chase_*_lanes with one lane")
    ks = sorted(dk)
    h = np.array([harmonic(k) - 1 for k in ks])
    t["dram_tail_cycles"] = note("dram_tail_cycles", round(float(np.polyfit(h, [dk[k] for k in ks], 1)[0]), 2),
                                 "micro2.cu chase_dram_lanes: latency of k lanes missing at once = dram + tail * (H(k) - 1)")
    ks2 = sorted(l2k)
    h2 = np.array([harmonic(k) - 1 for k in ks2])
    t["l2_tail_cycles"] = note("l2_tail_cycles", round(float(np.polyfit(h2, [l2k[k] for k in ks2], 1)[0]), 2),
                               "micro2.cu chase_l2_lanes, as dram_tail_cycles")
    t["l1_line_step_cycles"] = note("l1_line_step_cycles", round((l1k[32] - l1k[1]) / 31, 3),
                                    "micro2.cu chase_l1plain_lanes: extra latency per extra L1 line of a request")

    # DRAM latency under load: a chase timed while other blocks stream (micro5.cu)
    extra, read = loaded_latency(data, "loaded_latency.csv", "ring", "dram", "stream_bytes", 1)
    t["dram_queue_cycles"] = note("dram_queue_cycles", queue_fit(extra, read / dram_bpc_estimate(micro)),
                                  "micro5.cu: DRAM chase latency while other blocks stream, against the DRAM "
                                  "use: extra = q * rho / (2 (1 - rho)), least squares below saturation")

    # memory throughput
    lines32 = micro2[micro2.bench == "tput_l1plain_lines32"]
    sectors = lines32["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / n_sm     # one sector per line
    t["l1_line_cycles"] = note("l1_line_cycles", round(float(np.polyfit(sectors, lines32[CYC], 1)[0]), 3),
                               "micro2.cu tput_l1plain_lines32: L1 hits, 32 lines a request: cycles per line per SM")
    lds1 = micro[micro.bench == "tput_lds_stride1"]
    lds32 = micro[micro.bench == "tput_lds_stride32"]
    t["shared_wavefront_cycles"] = note("shared_wavefront_cycles",
                                        round(float(np.polyfit(lds32.work / n_sm, lds32[CYC], 1)[0]), 3),
                                        "micro.cu tput_lds_stride32: 32-way conflicts, cycles per wavefront per SM")
    t["shared_instruction_cycles"] = note("shared_instruction_cycles",
                                          round(float(np.polyfit(lds1.work / n_sm, lds1[CYC], 1)[0]), 3),
                                          "micro.cu tput_lds_stride1: conflict-free loads, cycles per instruction per SM")
    t["l2_read_bytes_per_cycle"] = note("l2_read_bytes_per_cycle", round(1.0 / slope(micro, "tput_l2"), 1),
                                        "micro.cu tput_l2: a 16 MB buffer read repeatedly with ld.global.cg, bytes per cycle")
    # L2 writes cost per line and per sector: full-line float4 stores against one-sector stores
    full = slope(micro2, "store_l2") * 32 * 4           # cycles per line of 4 written sectors
    one = slope(micro3, "scatter_store_l2")              # cycles per line of 1 written sector
    per_sector = (full - one) / 3
    t["l2_write_cycles_per_sector"] = note("l2_write_cycles_per_sector", round(per_sector, 5),
                                           "micro2.cu store_l2 (4 sectors a line) and micro3.cu scatter_store_l2 "
                                           "(1 sector a line): GPU-wide L2 cycles per written sector")
    t["l2_write_cycles_per_line"] = note("l2_write_cycles_per_line", round(one - per_sector, 5),
                                         "same fit: GPU-wide L2 cycles per written line")
    rd = micro[(micro.bench == "stream_read") & (micro.value >= 256)]
    dram_bpc = 1.0 / float(np.polyfit(rd["dram__bytes_read.sum"], rd[CYC], 1)[0])
    t["dram_bytes_per_cycle"] = note("dram_bytes_per_cycle", round(dram_bpc, 1),
                                     "micro.cu stream_read 256 MB -> 1 GB: DRAM bytes read per cycle")
    cp = micro[(micro.bench == "stream_copy") & (micro.value >= 256)]
    x = cp[CYC] * dram_bpc - cp["dram__bytes_read.sum"]
    if shipped is not None:     # the bytes written are what the copy must write: between the two sizes,
        # where the part the L2 still holds at the end (l2_dirty_bytes) cancels
        t["dram_write_cost"] = note("dram_write_cost", round(float(np.polyfit(cp["dram__bytes_write.sum"], x, 1)[0]), 3),
                                    "micro.cu stream_copy 256 MB -> 1 GB: the DRAM time of the extra bytes written, "
                                    "in read bytes, per extra byte written")
    else:
        t["dram_write_cost"] = note("dram_write_cost", round(float(np.median(x / cp["dram__bytes_write.sum"])), 3),
                                    "micro.cu stream_copy 256 MB, 1 GB: a written byte costs this many read bytes of DRAM time")
    # ... and while they write (micro8.cu): written bytes take DRAM time at dram_write_cost,
    # and a read waits behind them as behind reads with a longer service time q_w
    extra, written = loaded_latency(data, "loaded_latency_writes.csv", "mode", "write", "stream_float4s", 16)
    rho_w = written * t["dram_write_cost"] / dram_bpc_estimate(micro)
    t["dram_write_queue_cycles"] = note("dram_write_queue_cycles", queue_fit(extra, rho_w),
                                        "micro8.cu: the DRAM chase while other blocks write, against the DRAM "
                                        "time of the writes: extra = q_w * rho_w / (2 (1 - rho_w)), least squares "
                                        "below saturation")
    sc = micro[(micro.bench == "scatter_read") & (micro.value >= 16)]
    if shipped is not None:       # no DRAM counter: the bytes the fastest scatter's time moves at stream rate
        fetched = float((sc[CYC] * dram_bpc / sc.work).min())
        t["dram_fetch_bytes"] = note("dram_fetch_bytes", int(round(fetched / 32) * 32),
                                     "micro.cu scatter_read, sectors 64 B or more apart: the launch's cycles x "
                                     "dram_bytes_per_cycle per sector asked for, least over the strides (the "
                                     "bandwidth-bound one), to 32 B")
    else:
        t["dram_fetch_bytes"] = note("dram_fetch_bytes", int(round(float(np.median(sc["dram__bytes_read.sum"] / sc.work)) / 32) * 32),
                                 "micro.cu scatter_read, sectors 64 B or more apart: DRAM bytes per sector asked for")
    if shipped is not None:
        t["l2_bytes"] = note("l2_bytes", l2_bytes_from_time(micro2),
                             "micro2.cu l2_read_twice: the size at which the cycles per byte of reading a "
                             "buffer twice are half-way from their least (the second read from the L2) to "
                             "the largest size's (from DRAM)")
    else:
        twice = micro2[micro2.bench == "l2_read_twice"].sort_values("value")
        reread = (twice["dram__bytes_read.sum"] - twice.work) / twice.work
        mb = twice.value.to_numpy(float)
        if not reread.min() <= 0.5 <= reread.max():
            raise FitError(f"micro2.cu l2_read_twice: a second read misses {reread.min():.0%} to {reread.max():.0%} "
                           f"over {mb[0]:.0f}-{mb[-1]:.0f} MB, so this GPU's L2 is outside the sizes measured "
                           f"(they suit L2s of about 16 to 90 MB)")
        cross = float(np.interp(0.5, reread.to_numpy(), mb))
        t["l2_bytes"] = note("l2_bytes", int(cross * (1 << 20)),
                             "micro2.cu l2_read_twice: the size at which half of a second read misses the L2")
    if shipped is not None:
        t["l2_dirty_bytes"] = not_measured("l2_dirty_bytes")
    else:
        wr = micro[(micro.bench == "stream_write") & (micro.value >= 64)]
        t["l2_dirty_bytes"] = note("l2_dirty_bytes", int(np.median(wr.work - wr["dram__bytes_write.sum"])),
                                   "micro.cu stream_write 64 MB - 1 GB: dirty bytes the L2 still holds when the kernel ends")
    t["l1_bytes"] = note("l1_bytes", int(l1_bytes), l1_source)
    t["l1_ways"] = note("l1_ways", 4, L1_WAYS_SOURCE)
    t["l1_set_fold"] = note("l1_set_fold", 6, L1_FOLD_SOURCE)
    t["l2_merge_window_cycles"] = note("l2_merge_window_cycles", 75, L2_MERGE_SOURCE)
    t["l2_merge_most"] = note("l2_merge_most", 3, L2_MERGE_SOURCE)
    t["l2_ways"] = note("l2_ways", 16, "not measured: the L2's associativity in the cache model (sets = lines / ways); "
                        "the value the model used before it was data")
    t["l2_partitions"] = note("l2_partitions", 2, "not measured by simt calibrate: NVIDIA's A100 and H100 "
                              "whitepapers (two L2 partitions); benchmarks/timing/l2_sharing.cu shows their effect")
    # atomic_lines.cu's launches (profiled only: none under clock64): the L2's request rate,
    # the atomic units' hot window and a lone DRAM fetch's time
    atomic_lines = load("atomic_lines") if shipped is None and (data / "atomic_lines_manifest.csv").exists() else None
    hit_rate = ncu_csv.l2_hit_request_rate(atomic_lines) if atomic_lines is not None else None
    if shipped is not None:
        t["l2_requests_per_cycle"] = not_measured("l2_requests_per_cycle")
    elif hit_rate is not None:
        # the difference of two launches of one kernel: l2_sharing.cu's gather, one launch a
        # table, counts the first reads from DRAM (whose fills take the L2's queue in the
        # model too) and the launch's ramp in its rate, 68.8 on the H200 against 79.9 here
        t["l2_requests_per_cycle"] = note("l2_requests_per_cycle", round(hit_rate, 2),
                                          "atomic_lines.cu ld_rand over 2^16 lines (an 8 MB table the L2 holds, each "
                                          "lane its own line): one-sector L2 read requests per cycle, the difference "
                                          "between its launches of 16 and 4 steps")
    elif (data / "l2_sharing_manifest.csv").exists():
        rate, mb = ncu_csv.l2_request_rate(load("l2_sharing"))
        t["l2_requests_per_cycle"] = note("l2_requests_per_cycle", round(rate, 2),
                                          f"l2_sharing.cu gather of a {mb:.0f} MB table from every SM (reads after "
                                          f"the first hit): one-sector L2 read requests per cycle")
    # (else left out, so L2 hits take the L2 for their bytes alone: a directory measured before
    # simt calibrate ran l2_sharing.cu)
    if shipped is not None:
        t["l1_tag_line_cycles"] = not_measured("l1_tag_line_cycles")
    elif (data / "warp_words_manifest.csv").exists():
        # warp_words.py's records 9 floats apart from the first 64K records (L1 hits, 9 lines a
        # request, no bank conflict), 4M and 8M threads
        ww = load("warp_words")
        s9 = ww[ww.case == "stride9_hot"]
        lines = s9.threads / 32 * 8 * 9 / n_sm
        t["l1_tag_line_cycles"] = note("l1_tag_line_cycles", round(float(np.polyfit(lines, s9[CYC], 1)[0]), 3),
                                       "warp_words.py stride9_hot: L1 hits, 9 lines a request and "
                                       "no bank conflict: cycles per line per SM (the tag stage)")
    # (else left out, so a load's lines take the L1's tag stage at l1_line_cycles a line and its
    # data stage a cycle a line: a directory measured before simt calibrate ran warp_words)
    if shipped is not None:
        for key in ("store_merge_lines", "store_merge_lines_near", "store_merge_share"):
            t[key] = not_measured(key)
    elif (data / "store_runs_manifest.csv").exists():
        most, near, share = store_runs(load("store_runs"))
        t["store_merge_lines"] = note("store_merge_lines", most, STORE_RUNS_SOURCE)
        t["store_merge_lines_near"] = note("store_merge_lines_near", near, STORE_RUNS_NEAR_SOURCE)
        t["store_merge_share"] = note("store_merge_share", share, STORE_RUNS_SHARE_SOURCE)
    elif (data / "store_merge_manifest.csv").exists():
        t["store_merge_lines"] = note("store_merge_lines", store_merge_lines(load("store_merge")), STORE_MERGE_SOURCE)
    # (else left out, so no store merges with the one before it: a directory measured before
    # simt calibrate ran store_merge.cu, or timed by clock64; without store_runs.cu, half as many
    # lines merge with an instruction between, and every merged store is free)
    if shipped is not None:
        t["l1_store_line_cycles"] = not_measured("l1_store_line_cycles")
        t["l1_store_sector_cycles"] = not_measured("l1_store_sector_cycles")
        t["l1_data_store_line_cycles"] = not_measured("l1_data_store_line_cycles")
    elif (data / "l1_store_data_manifest.csv").exists():
        stores = load("l1_store_data")
        line, sector = l1_store_costs(stores)
        t["l1_store_line_cycles"] = note("l1_store_line_cycles", line, L1_STORE_SOURCE)
        t["l1_store_sector_cycles"] = note("l1_store_sector_cycles", sector, L1_STORE_SOURCE)
        t["l1_data_store_line_cycles"] = note("l1_data_store_line_cycles", l1_data_store_cycles(stores),
                                              L1_DATA_STORE_SOURCE)
    # (else left out, so a stored line leaves its SM as fast as the tag stage takes it: a
    # directory measured before simt calibrate ran l1_store_data.cu, or timed by clock64)
    t["memory_queue_cycles"] = note("memory_queue_cycles", t["latency"]["l2"],
                                    "not measured: how far a store's or atomic's L2 queue may run ahead of its warp "
                                    "before the warp is held (lg_throttle): one L2 hit, latency.l2")
    t["dram_peak_bytes_per_second"] = note("dram_peak_bytes_per_second", float(dram_peak), dram_peak_source)

    # atomics
    same = slope(micro, "red_one_address")
    t["atomic_same_address_cycles"] = note("atomic_same_address_cycles", round(same, 3),
                                           "micro.cu red_one_address: cycles per u32 reduction to one address")
    t["atomic_same_address_cycles_f32"] = note("atomic_same_address_cycles_f32", round(slope(micro, "red_one_address_f32"), 3),
                                               "micro.cu red_one_address_f32: cycles per f32 reduction to one address")
    per_warp = 1.0 / slope(micro, "red_per_warp_address")        # lane operations per cycle
    t["atomic_units"] = note("atomic_units", int(round(per_warp * same)),
                             "micro.cu red_per_warp_address: lane operations per cycle x cycles per operation")
    region = micro2[micro2.bench == "red_region"].copy()
    region["words"] = region.value // 1000
    g8 = region[region.words == 8]
    per_request = float(np.polyfit(g8.work, g8[CYC], 1)[0]) * 32       # 8 words x 4 lanes each
    t["atomic_spread_cycles"] = note("atomic_spread_cycles", round(per_request / 4, 3),
                                     "micro2.cu red_region, 8 words of one sector, 4 lanes each: cycles per "
                                     "lane a word (a few lanes a word; red_one_address gives the deep case)")
    r32 = 1.0 / slope(micro, "red_32_addresses")
    lines_per_unit = 32.0 / (r32 * same)
    t["atomic_interleave_bytes"] = note("atomic_interleave_bytes", int(128 * 2 ** round(np.log2(lines_per_unit))),
                                        "micro.cu red_32_addresses: 32 consecutive lines share r * t units")
    # the same launch, one lane on each of a unit's lines: a line occupies its unit for at least
    # this long, however few lanes it carries (red_region's deep lines cost their lanes)
    units_used = 32.0 / 2 ** round(np.log2(lines_per_unit))
    t["atomic_line_cycles"] = note("atomic_line_cycles", round(units_used / r32, 3),
                                   "micro.cu red_32_addresses: units used / lane operations per cycle, one lane "
                                   "a line: the least a line's update occupies its atomic unit")
    # a line its unit did not update lately costs it less than one it did: the window from
    # atomic_lines.cu (each lane a line hashed over 2^12 lines), the cold cost from micro.cu's
    # red_scatter_l2 (over 2^15 lines), each given the other (a few rounds)
    # (atomic_lines.cu runs under the profiler only: timed by clock64, the window is the shipped one)
    if shipped is not None and "atomic_hot_window_cycles" in shipped[0]:
        t["atomic_hot_window_cycles"] = not_measured("atomic_hot_window_cycles")
    if (micro.bench == "red_scatter_l2").sum() >= 2:
        cold, window = atomic_cold_and_window(1.0 / slope(micro, "red_scatter_l2"), atomic_lines, t["atomic_units"],
                                              t["atomic_line_cycles"], t.get("atomic_hot_window_cycles", 0.0))
        t["atomic_cold_sector_cycles"] = note("atomic_cold_sector_cycles", round(cold, 3), ATOMIC_COLD_SOURCE)
        if atomic_lines is not None:
            t["atomic_hot_window_cycles"] = note("atomic_hot_window_cycles", round(window, 1), ATOMIC_WINDOW_SOURCE)
    # (else left out, so every line an atomic updates counts as hot: a directory measured before
    # micro.cu had red_scatter_l2 or simt calibrate ran atomic_lines.cu)
    # a lone DRAM fetch's time, from the same program's random loads over 256 MB, and the page
    # whose lone fetches in one request share it, from micro.cu's sweeps of every other line
    if shipped is not None and "dram_access_bytes" in shipped[0]:
        t["dram_access_bytes"] = not_measured("dram_access_bytes")
    elif atomic_lines is not None:
        t["dram_access_bytes"] = note("dram_access_bytes", round(dram_access_bytes(atomic_lines,
                                                                                   t["dram_bytes_per_cycle"]), 1),
                                      DRAM_ACCESS_SOURCE)
    if shipped is not None and "dram_rmw_access_bytes" in shipped[0]:
        t["dram_rmw_access_bytes"] = not_measured("dram_rmw_access_bytes")
    elif atomic_lines is not None and "dram_access_bytes" in t and "dram_write_cost" in t:
        t["dram_rmw_access_bytes"] = note("dram_rmw_access_bytes", round(dram_rmw_access_bytes(
            atomic_lines, t["dram_bytes_per_cycle"], t["dram_access_bytes"], t["dram_write_cost"]), 1), DRAM_RMW_SOURCE)
    if shipped is not None and "dram_page_bytes" in shipped[0]:
        t["dram_page_bytes"] = not_measured("dram_page_bytes")
    elif "dram_access_bytes" in t:
        t["dram_page_bytes"] = note("dram_page_bytes", dram_page_bytes(micro, t["dram_access_bytes"],
                                                                       t["dram_bytes_per_cycle"]), DRAM_PAGE_SOURCE)
    sa = micro2[micro2.bench.str.startswith("shared_atom")].copy()
    sa["words"], sa["n"] = sa.value // 1000, sa.value % 1000

    def per_instr(bench, words):
        g = sa[(sa.bench == bench) & (sa.words == words)]
        return float(np.polyfit(g.n, g[CYC], 1)[0])
    one, spread = per_instr("shared_atom_1warp", 1), per_instr("shared_atom_1warp", 32)
    t["shared_atomic_same_lane_cycles"] = note("shared_atomic_same_lane_cycles", round((one - spread) / 31, 3),
                                               "micro2.cu shared_atom_1warp: extra latency per lane on one word")
    full = sa[(sa.bench == "shared_atom_full") & (sa.words == 1)]
    t["shared_atomic_same_lane_throughput"] = note(
        "shared_atomic_same_lane_throughput", round(float(np.polyfit(full.work / n_sm, full[CYC], 1)[0]), 3),
        "micro2.cu shared_atom_full, one word: cycles per lane operation per SM")
    fone, fspread = per_instr("shared_atom_f32_1warp", 1), per_instr("shared_atom_f32_1warp", 32)
    t["shared_atomic_f32_round_cycles"] = note("shared_atomic_f32_round_cycles", round((fone - fspread) / 31, 2),
                                               "micro2.cu shared_atom_f32_1warp: f32 shared atomics are CAS loops, one lane a round")
    fg = sa[(sa.bench == "shared_atom_f32_1warp") & (sa.words == 1)]
    sass_round = float(np.polyfit(fg.n, fg[INST], 1)[0]) / 32
    t["shared_atomic_f32_round_sass"] = note("shared_atomic_f32_round_sass", round(sass_round, 2),
                                             "micro2.cu shared_atom_f32_1warp: instructions per CAS round")

    # barriers: per-iteration cycles of one block looping over a barrier, 1, 8 and 32 warps,
    # less the issue time of the loop's own instructions on one scheduler
    rows = []
    for threads in (32, 256, 1024):
        bench = f"chain_barrier{threads}"
        per_iter = slope(micro, bench)
        warps = threads // 32
        sass = slope(micro, bench, y=INST) / warps
        rows.append((warps, per_iter - sass * max(1, warps / n_sched)))
    w, c = zip(*rows)
    b, a = np.polyfit(w, c, 1)
    t["barrier_cycles"] = note("barrier_cycles", round(float(a), 2), "micro.cu chain_barrier32/256/1024: fixed part")
    t["barrier_cycles_per_warp"] = note("barrier_cycles_per_warp", round(float(b), 3), "same fit: part per warp")

    loop = probe[probe.name == f"{probes.LOOP_PROBE}@loop"].iloc[0]
    base = probe[(probe.name == probes.LOOP_PROBE) & (probe.unroll == probes.UNROLLS[0])].iloc[-1]
    per_step = (loop[INST] - base[INST]) / (_steps(loop, probes.LOOP_STEPS) - _steps(base, probes.STEPS))
    t["loop_control_factor"] = note("loop_control_factor", round((per_step - probes.UNROLLS[0]) / 3, 3),
                                    "probes.py f32_add at two step counts: issue slots of a counted loop's control "
                                    "(increment, compare, branch) per iteration / 3")
    t["ops"] = op_table(probe, lat)
    if shipped is not None:
        # probes whose operation is a called subroutine: the SASS does not give their counts
        for key in sorted(set(shipped[0]["ops"]) - set(t["ops"])):
            t["ops"][key] = list(shipped[0]["ops"][key])
            note(f"ops.{key}", t["ops"][key], f"not measured: its probe calls the operation, whose "
                                              f"instructions only the profiler counts; the value of {shipped[1]}")
    sources["ops"] = ("probes.py through simt's PTX: SASS instructions and dependent cycles per MIR op "
                      "(companion ops subtracted; 64-bit division: probes5); class fallbacks from the micro.cu "
                      "chains; a fourth entry: warp instructions on the named pipe where they are not the op's "
                      "slots (float to int: one F2I on the XU pipe, conv_tput.cu)")
    if shipped is not None:
        if "op_hold" in shipped[0]:
            t["op_hold"] = not_measured("op_hold")
    elif (data / "op_overlap_manifest.csv").exists():
        t["op_hold"] = note("op_hold", op_overlap.holds(load("op_overlap"), t["ops"]), OP_HOLD_SOURCE)
    # (else left out, so every op lets its warp's next instruction issue after its own issue
    # slots: a directory measured before simt calibrate ran op_overlap.py)
    if shipped is not None:
        for key in sources:
            if key not in NOT_MEASURED_BY_CLOCK64 and key not in ("clock_mhz", "l1_bytes", "dram_peak_bytes_per_second",
                                                                   "l1_ways", "l1_set_fold", "l2_ways", "l2_partitions",
                                                                   "l2_merge_window_cycles", "l2_merge_most",
                                                                   "sass_pipes"):
                sources[key] += CLOCK64_NOTE
    t["sources"] = sources
    return t


def l2_bytes_from_time(micro2) -> int:
    """The L2's capacity from the time alone of micro2.cu l2_read_twice: where the cycles per byte
    cross half-way from their least to the largest size's."""
    twice = micro2[micro2.bench == "l2_read_twice"].sort_values("value")
    per_byte = (twice[CYC] / twice.work).to_numpy(float)
    mb = twice.value.to_numpy(float)
    low_at = int(np.argmin(per_byte))
    half = (per_byte[low_at] + per_byte[-1]) / 2
    after = [k for k in range(low_at + 1, len(mb)) if per_byte[k] >= half]
    if not after or per_byte[-1] <= per_byte[low_at] * 1.02:
        raise FitError(f"micro2.cu l2_read_twice: the time per byte does not rise over {mb[0]:.0f}-{mb[-1]:.0f} MB, "
                       f"so this GPU's L2 is outside the sizes measured (they suit L2s of about 16 to 90 MB)")
    k = after[0]
    cross = np.interp(half, [per_byte[k - 1], per_byte[k]], [mb[k - 1], mb[k]])
    return int(cross * (1 << 20))
