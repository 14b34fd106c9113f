"""Reductions that a block's warps, or every warp of the GPU, send to one word or one line,
from simt/calibrate/cuda/atomic_combine.cu's profile: per kernel and block, the SM cycles a
step and the reductions (warp requests) a cycle GPU-wide, from the difference between the
launches of 16 and 4 steps; for the runs (one step), the launch's cycles by warps a word. The
L2's reduction sectors per request, and where the second profile was taken the reduction
requests the SMs sent and the L2 received per warp request, say whether requests were
combined on the way (under 1.0 for a one-lane request: fewer reached the L2 than the warps
sent). With ``--model`` simt's cycles for the same kernels written in simt, and the ratio of
the model's cycles to the GPU's.

    PYTHONPATH=. python3 benchmarks/timing/atomic_combine.py [--data DIR] [--model] [--arch FILE]
    PYTHONPATH=. python3 benchmarks/timing/atomic_combine.py --model-only    (simt alone, before measuring)

What it asks: two kernels of the blind sets are far over on the H200 where several warps
reduce into one word or line: a segmented reduction whose runs span ~30 warps (one lane a
warp, 2.06x) and a gradient whose warps add their 32 lanes to word d of one shared line for
d = 0..31 in turn (1.57x). Does an SM combine its warps' reductions to one word (blk_word
against warp_line, the same per-warp steps with nothing shared), or to one line (blk_words)?
Does a float add wait for the adder when the words come in order (line_seq_f32 against
line_hash_f32 and the integer adds)?

To measure, from the repository root on the GPU's machine (BASE from ncu_metrics.sh; the
step ``atomiccomb`` of gpu_pending.sh does this, and a second profile of the requests):
    nvcc -O3 -arch=sm_90 -o /tmp/atomic_combine simt/calibrate/cuda/atomic_combine.cu
    ncu --clock-control none --csv --print-units base --metrics "$BASE" \\
        --log-file atomic_combine.csv /tmp/atomic_combine atomic_combine_manifest.csv
"""
from __future__ import annotations

import argparse
from pathlib import Path

import simt as wp
from simt.calibrate import ncu_csv

from atomic_lines import mix32

DATA = Path(__file__).parent / "data" / "h200" / "atomic_combine"
CYC = "sm__cycles_elapsed.max"
RED = "lts__t_sectors_op_red.sum"
# the second profile (gpu_pending.sh's atomiccomb): reduction requests the SMs send, the L2 receives
REQ_NAME = "atomic_combine_requests"
SM_REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"
L2_REQ = "lts__t_requests_op_red.sum"


def _pair(a: float, b: float) -> str:
    """Two per-request ratios, or '' where the second profile is missing."""
    return "" if a != a or b != b else f"{a:.2f} / {b:.2f}"


@wp.kernel
def blk_word(p: wp.array(dtype=wp.uint32), n: int):
    """Lane 0 of every warp of a block adds to word 0 of the block's own line."""
    if (wp.tid() & 31) == 0:
        for i in range(n):
            wp.atomic_add(p, wp.block_idx() * 32, wp.uint32(1))


@wp.kernel
def blk_word_f32(p: wp.array(dtype=wp.float32), n: int):
    if (wp.tid() & 31) == 0:
        for i in range(n):
            wp.atomic_add(p, wp.block_idx() * 32, 1.0)


@wp.kernel
def blk_words(p: wp.array(dtype=wp.uint32), n: int):
    """Lane 0 of warp w of a block adds to word w % 32 of the block's own line."""
    if (wp.tid() & 31) == 0:
        for i in range(n):
            wp.atomic_add(p, wp.block_idx() * 32 + ((wp.thread_idx() >> 5) & 31), wp.uint32(1))


@wp.kernel
def warp_line(p: wp.array(dtype=wp.uint32), n: int):
    """Lane 0 of every warp adds to word 0 of the warp's own line."""
    t = wp.tid()
    if (t & 31) == 0:
        for i in range(n):
            wp.atomic_add(p, (t >> 5) * 32, wp.uint32(1))


@wp.kernel
def line_seq(p: wp.array(dtype=wp.uint32), n: int):
    """Every lane adds 1 or 2 (by its parity: not the same in every lane, or simt would fold the
    warp's lanes into one update, and the .cu's lanes are not folded) to word i % 32 of one
    line at step i."""
    v = wp.uint32(1 + (wp.tid() & 1))
    for i in range(n):
        wp.atomic_add(p, i & 31, v)


@wp.kernel
def line_seq_f32(p: wp.array(dtype=wp.float32), n: int):
    v = float(1 + (wp.tid() & 1))
    for i in range(n):
        wp.atomic_add(p, i & 31, v)


@wp.func
def hashed_word(i: int):
    """The word of one line a warp adds to at step i, hashed from the warp and the step."""
    warps = wp.uint32(wp.grid_dim() * wp.block_dim() / 32)
    w = wp.uint32(wp.tid()) / wp.uint32(32)
    return int(mix32(w + wp.uint32(i) * warps) & wp.uint32(31))


@wp.kernel
def line_hash(p: wp.array(dtype=wp.uint32), n: int):
    v = wp.uint32(1 + (wp.tid() & 1))
    for i in range(n):
        wp.atomic_add(p, hashed_word(i), v)


@wp.kernel
def line_hash_f32(p: wp.array(dtype=wp.float32), n: int):
    v = float(1 + (wp.tid() & 1))
    for i in range(n):
        wp.atomic_add(p, hashed_word(i), v)


@wp.kernel
def run_f32(p: wp.array(dtype=wp.float32), r: int):
    """Lane 0 of each warp adds to word g / r (g the warp's index in the grid); r = 0: word 0
    of the warp's own line."""
    t = wp.tid()
    if (t & 31) == 0:
        g = t >> 5
        wp.atomic_add(p, g / r if r > 0 else g * 32, 1.0)


KERNELS = {"blk_word": blk_word, "blk_word_f32": blk_word_f32, "blk_words": blk_words,
           "warp_line": warp_line, "line_seq": line_seq, "line_seq_f32": line_seq_f32,
           "line_hash": line_hash, "line_hash_f32": line_hash_f32, "run_f32": run_f32}


def predict(bench: str, grid: int, block: int, value: int, arch: str | None) -> float:
    """simt's cycles for one launch of ``bench``: ``grid`` blocks of ``block``, ``value`` its
    steps (its warps a word for run_f32)."""
    words = grid * max(block // 32, 8) * 32
    dtype = wp.float32 if bench.endswith("f32") else wp.uint32
    extra = {"arch": arch} if arch else {}
    return float(wp.launch(KERNELS[bench], grid * block, [wp.zeros(words, dtype=dtype), value], block_dim=block,
                           device="cpu:precise", **extra).cycles)


def launches(sms: int = 132) -> list[tuple[str, int, int, int]]:
    """The .cu's launches in its order: (bench, grid, block, steps or warps a word)."""
    out = []
    for block in (32, 256):
        for n in (4, 16):
            out += [(b, 4 * sms, block, n) for b in ("blk_word", "blk_word_f32", "blk_words", "warp_line")]
    for n in (4, 16):
        out += [(b, 4 * sms, 256, n) for b in ("line_seq", "line_seq_f32", "line_hash", "line_hash_f32")]
    return out + [("run_f32", 256 * sms, 256, r) for r in (0, 1, 8, 32)]


def model_only(arch: str | None) -> None:
    """simt's cycles for the .cu's launches on a GPU of 132 SMs, before any measurement."""
    print(f"{'kernel':13s} {'block':>5s} {'steps / warps a word':>20s} {'model cycles':>12s}")
    for bench, grid, block, v in launches():
        print(f"{bench:13s} {block:5d} {v:20d} {predict(bench, grid, block, v, arch):12.0f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of atomic_combine.csv (default: data/h200/atomic_combine)")
    ap.add_argument("--model", action="store_true", help="predict each launch on cpu:precise too")
    ap.add_argument("--arch", help="architecture file for the model (default: the shipped sm_90.json)")
    ap.add_argument("--model-only", action="store_true", help="only simt's cycles for the .cu's launches (no measurement)")
    args = ap.parse_args()
    if args.model_only:
        return model_only(args.arch)
    if not (args.data / "atomic_combine.csv").exists():
        raise SystemExit(f"atomic_combine: not measured in {args.data} (no atomic_combine.csv; "
                         "the command is in this script's docstring)")
    try:
        df = ncu_csv.with_second_profile(ncu_csv.load("atomic_combine", args.data), REQ_NAME, args.data,
                                         (SM_REQ, L2_REQ))
    except ValueError as e:
        raise SystemExit(f"atomic_combine: {e}") from None
    warps = df.grid * df.block // 32
    # warp requests a launch: one a warp and step
    df["requests"] = warps * df.value.where(df.bench != "run_f32", 1)
    print(f"{'kernel':13s} {'warps an SM':>11s} {'cycles a step':>13s} {'requests a cycle':>16s} "
          f"{'L2 red sectors a request':>24s} {'SM / L2 red requests a request':>30s}"
          + ("  model cycles a step  cycles ratio" if args.model else ""))
    steps = df[df.bench != "run_f32"]
    for (bench, block), g in steps.groupby(["bench", "block"], sort=False):
        g = g.sort_values("value")
        a, z = g.iloc[0], g.iloc[-1]
        dn = z.value - a.value
        step = (z[CYC] - a[CYC]) / dn
        dr = z.requests - a.requests
        line = (f"{bench:13s} {4 * block // 32:11d} {step:13.1f} {dr / (z[CYC] - a[CYC]):16.2f} "
                f"{(z[RED] - a[RED]) / dr:24.2f} {_pair((z[SM_REQ] - a[SM_REQ]) / dr, (z[L2_REQ] - a[L2_REQ]) / dr):>30s}")
        if args.model:
            c0, c1 = (predict(bench, int(r.grid), int(block), int(r.value), args.arch) for r in (a, z))
            m = (c1 - c0) / dn
            line += f"  {m:19.1f}  {m / step:12.2f}"
        print(line, flush=True)
    runs = df[df.bench == "run_f32"].sort_values("value")
    if len(runs):
        print(f"\n{'run_f32':13s} {'warps a word':>12s} {'cycles':>10s} {'L2 red sectors a request':>24s} "
              f"{'SM / L2 red requests a request':>30s}" + ("  model cycles  cycles ratio" if args.model else ""))
        for _, r in runs.iterrows():
            line = (f"{'':13s} {('own line' if r.value == 0 else str(int(r.value))):>12s} {r[CYC]:10.0f} "
                    f"{r[RED] / r.requests:24.2f} {_pair(r[SM_REQ] / r.requests, r[L2_REQ] / r.requests):>30s}")
            if args.model:
                m = predict("run_f32", int(r.grid), int(r.block), int(r.value), args.arch)
                line += f"  {m:12.0f}  {m / r[CYC]:12.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
