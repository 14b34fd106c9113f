"""How far a warp's stores to the same lines merge on the way to the L2 (simt calibrate's fit;
fit.py calls these): store_merge.cu's launches, stores with a loop test or dependent FMAs
between them, timed by the profiler's cycles; store_runs.cu's, runs of STGs with nothing or one
address computation between them, counted by the L2's write sectors and requests."""
from __future__ import annotations

import re

CYC = "sm__cycles_elapsed.max"
L2_SECTORS, L1_SECTORS = "lts__t_sectors_op_write.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
L2_REQUESTS, L1_REQUESTS = "lts__t_requests_srcunit_tex_op_write.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
# the profiler's counters store_runs.cu is measured with (runner.PARTS)
STORE_RUNS_METRICS = ",".join([CYC, L2_SECTORS, L2_REQUESTS, L1_SECTORS, L1_REQUESTS])

STORE_MERGE_SOURCE = ("store_merge.cu (store_merge.py): a thread's K words stored back to back against the same "
                      "with 16 dependent FMAs between them; a request of this many lines merges (back to back, "
                      "the launch takes under 0.75 of the time: out[K*i + j] at 2 and 4 lines, out[2K*i + j] at 4) "
                      "and one of more does not (8 lines)")
STORE_RUNS_SOURCE = ("store_runs.cu (benchmarks/timing/store_runs.py): a thread's S words stored with nothing between "
                     "the STGs (k_imm), lanes S words apart (requests of S lines): the most lines whose L2 write "
                     "sectors an L1 store sector, over the one-line launch's (nothing merged), are under 1/sqrt(2), "
                     "at every count of lines up to it (fit_stores.store_runs)")
STORE_RUNS_NEAR_SOURCE = ("store_runs.cu's k_step (one address computation between the STGs): as store_merge_lines "
                          "(fit_stores.store_runs)")
STORE_RUNS_SHARE_SOURCE = ("store_runs.cu's k_imm where it merges, at 4 lines and more: of a thread's S words stored "
                           "back to back, the first store's lines go to the L2, the second merges whole and each later "
                           "one sends this share of its lines, from the L2's write requests a store request "
                           "(fit_stores.store_runs)")


def store_merge_lines(df) -> int:
    """store_merge.cu's launches (``load("store_merge")``): the most lines a store request may
    have and still merge with the warp's store before it, back to back: the largest count of
    lines whose every kernel of K >= 2 stores runs in under 0.75 of its time with the stores
    apart (16 dependent FMAs between them); 0 where none does."""
    cyc = df.set_index(["bench", "value"])[CYC]
    merges = {}
    for bench in sorted(set(df.bench)):
        kind, k = bench.rstrip("0123456789"), int(bench[len(bench.rstrip("0123456789")):])
        if kind == "planes" or k < 2:
            continue
        lines = k if kind == "interleaved" else 2 * k             # (half: out[2K*i + j])
        ok = cyc[(bench, 0)] < 0.75 * cyc[(bench, 16)]
        merges[lines] = merges.get(lines, True) and bool(ok)
    return _most(merges)


def _most(merges: dict) -> int:
    """The largest count of lines at and under which every count merges; 0 if none."""
    best = 0
    for lines in sorted(merges):
        if not merges[lines]:
            break
        best = lines
    return best


def store_runs(df) -> tuple[int, int, float]:
    """store_runs.cu's launches (``load("store_runs")``, benches ``imm_sS_kK`` and
    ``step_sS_kK``): (store_merge_lines, store_merge_lines_near, store_merge_share), from the
    launches of K = S stores. Their L2 write sectors an L1 store sector over the one-line
    launch's, whose stores nothing merges (imm_s1_k1), is the share of the stores' lines that
    reach the L2: a request of S lines merges where that share is nearer, in ratio, to a pair
    of stores merged (1/2) than to none (1), under 1/sqrt(2). Of K merging stores of S lines
    the first sends its S lines, the second merges whole and each later one sends a share f
    of them: Q K = S + (K - 2) f S write requests, Q the L2's a store request; f the mean over
    the merging requests of 4 lines and more, to two places."""
    rows = {}
    for _, r in df.iterrows():
        m = re.fullmatch(r"(imm|step)_s(\d+)_k(\d+)", str(r["bench"]))
        if m and m.group(2) == m.group(3):           # K = S: each sector's words all stored
            rows[(m.group(1), int(m.group(2)))] = (r[L2_SECTORS] / r[L1_SECTORS], r[L2_REQUESTS] / r[L1_REQUESTS])
    alone = rows[("imm", 1)][0]
    lines = {k: {s: v[0] / alone < 0.5 ** 0.5 for (kind, s), v in rows.items() if kind == k and s > 1}
             for k in ("imm", "step")}
    most, near = _most(lines["imm"]), _most(lines["step"])
    shares = [(rows[("imm", s)][1] - 1.0) / (s - 2) for s in sorted(lines["imm"]) if 4 <= s <= most]
    share = round(min(1.0, max(0.0, sum(shares) / len(shares))), 2) if shares else 0.0
    return most, near, share
