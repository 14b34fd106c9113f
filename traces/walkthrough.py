"""The walkthrough of traces/README.md as one script: every snippet of the README, in order.

    python3 traces/walkthrough.py        (from anywhere; it works from the repository root)

Each ``# %%`` cell is one snippet of the README; its printed output is what the README shows.
Run traces/make_samples.py first if the sample traces are missing.
"""
# %% setup
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.chdir(ROOT)                       # the snippets use paths relative to the repository root
sys.path.insert(0, str(ROOT))

import numpy as np
import pandas as pd

import simt
from simt import analysis

pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
pd.set_option("display.float_format", "{:.2f}".format)

# %% record
from simt.suite.cuda_style import transpose_tile

src = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
a = simt.array(src, dtype=simt.float32)
b = simt.array(np.zeros_like(src), dtype=simt.float32)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "run.jsonl.gz")                    # .gz: gzip-compressed
    result = simt.launch(transpose_tile, dim=(16, 64), inputs=[a, b], block_dim=(8, 32),
                         device="cpu:trace", trace=path,
                         trace_options={"memory_only": False,   # every option is optional
                                        "blocks": [0, 3],       # linear block ids to keep
                                        "warps": [0],           # warp indices within a block
                                        "max_records": 100})    # cap on instruction records
    print(result.details["trace"]["records"], "records, truncated:",
          result.details["trace"]["truncated"])
    print(analysis.read_header(path)["filters"])
print(np.array_equal(b.numpy(), src.T), result.cycles)       # the launch itself is unchanged

# %% load
df = analysis.load_trace("traces/transpose_tile.jsonl.gz")
print(len(df), "records")
print(df.attrs["header"])
print(df.head())

# %% one memory record
row = df[df["op"] == "ld.shared"].iloc[0]
print(row[["block", "warp", "pc", "line", "col", "active", "cycle", "space", "width",
           "wavefronts", "ideal"]].to_dict())
print(row["addr"])                   # byte offsets in the block's shared window, one per lane

# %% bank conflicts per line
padded = analysis.load_trace("traces/transpose_tile_padded.jsonl.gz")
shown = ["line", "ops", "executions", "wavefronts", "ideal", "conflicts", "wavefronts_per_exec", "n_way"]
print(analysis.bank_conflicts(df, by="line")[shown])
print(analysis.bank_conflicts(padded, by="line")[shown])

# %% bank histogram
def first_shared_load(trace):
    """The pc of the first ld.shared in source order: the tile read column-wise."""
    by_pc = analysis.bank_conflicts(trace)
    return by_pc.loc[by_pc["op"] == "ld.shared", "pc"].iloc[0]


load_pc, padded_pc = first_shared_load(df), first_shared_load(padded)
print("the tile loads are", load_pc, "and", padded_pc)
# one warp's execution of the load: the first record of that pc in each trace
first = df.loc[[df.index[df["pc"] == load_pc][0]]]
padded_first = padded.loc[[padded.index[padded["pc"] == padded_pc][0]]]
print("unpadded, words per bank:", analysis.bank_histogram(first, load_pc)["words"].tolist())
print("padded,   words per bank:", analysis.bank_histogram(padded_first, padded_pc)["words"].tolist())
# over all executions of the instruction: words supplied, and the most in one access (n-way)
both = pd.concat({"unpadded": analysis.bank_histogram(df, load_pc),
                  "padded": analysis.bank_histogram(padded, padded_pc)}, axis=1)
print(both.T.iloc[:, :8])

# %% plots
from matplotlib.figure import Figure

fig = Figure(figsize=(15, 6.5), layout="constrained")
left, right = fig.subplots(1, 2)
analysis.plot_bank_heatmap(df, load_pc, ax=left)
analysis.plot_bank_heatmap(padded, padded_pc, ax=right)
left.set_title("transpose_tile (32x32 tile)\n" + left.get_title(), fontsize=9)
right.set_title("transpose_tile_padded (32x33 tile)\n" + right.get_title(), fontsize=9)
fig.savefig("traces/transpose_banks.png", dpi=80)

fig = Figure(figsize=(10, 4), layout="constrained")
left, right = fig.subplots(1, 2, sharey=True)
analysis.plot_line_conflicts(df, ax=left)
analysis.plot_line_conflicts(padded, ax=right)
left.set_title("transpose_tile: wavefronts per line")
right.set_title("transpose_tile_padded: wavefronts per line")
fig.savefig("traces/transpose_line_conflicts.png", dpi=80)

branches = analysis.load_trace("traces/nested_branches.jsonl.gz")
analysis.plot_warp_timeline(branches, "traces/nested_branches_timeline.png", blocks=[0])

# %% coalescing
print(analysis.coalescing(df))

# %% divergence
table = analysis.divergence(branches)
print(table[["pc", "line", "executions", "uniform", "divergent", "branch_efficiency_pct",
             "mean_active", "taken_pct"]])

# %% divergent records
cbr = branches[branches["op"] == "cbr"]
taken = cbr["taken"].to_numpy(dtype=np.int64)
lanes_taken = np.bitwise_count(taken.astype(np.uint64)).astype(np.int64)
split = cbr[(lanes_taken > 0) & (lanes_taken < cbr["active"])]
print(split[["block", "warp", "pc", "line", "active", "mask", "taken"]].head(3)
      .assign(mask=lambda d: d["mask"].map("{:#010x}".format),
              taken=lambda d: d["taken"].map("{:#010x}".format)))

# %% lane activity
lanes = analysis.active_lanes(branches, by="line")
print(lanes.sort_values("simd_efficiency_pct").head(5))

# %% engine counters
end = branches.attrs["end"]          # the trailer: the launch's own counters
ours = analysis.trace_metrics(branches)
print(len(ours), "counters recomputed from the trace;",
      "all equal the engine's:", all(end["metrics"][k] == v for k, v in ours.items()))
for name in ("smsp__inst_executed.sum", "smsp__sass_branch_targets_threads_divergent.sum",
             "smsp__sass_average_branch_targets_threads_uniform.pct"):
    print(f"{name:55s} trace {ours[name]:>8.2f}   engine {end['metrics'][name]:>8.2f}")

# %% fresh launch
from simt.suite.cuda_style import transpose_tile_padded

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "padded.jsonl.gz")
    result = simt.launch(transpose_tile_padded, dim=(16, 64), inputs=[a, b], block_dim=(8, 32),
                         device="cpu:trace", trace=path, trace_options={"memory_only": True})
    memory_counters = analysis.trace_metrics(path)   # a filtered trace: memory counters only
print(result.details["trace"]["records"], "records;", len(memory_counters), "counters, all equal:",
      all(result.metrics[k] == v for k, v in memory_counters.items()))
print("bank conflicts:", result["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"],
      "cycles:", result.cycles)

# %% per line
print(analysis.per_line(df)[["line", "inst_executed", "shared_wavefronts", "bank_conflicts",
                             "global_requests", "global_sectors"]])

# %% perfetto
with tempfile.TemporaryDirectory() as tmp:
    doc = analysis.to_perfetto(df, os.path.join(tmp, "transpose_tile.perfetto.json"))
events = doc["traceEvents"]
print(len(events), "events;", sum(e["name"] == "stall" for e in events), "stall slices")
print(doc["otherData"]["time_unit"])
print(events[-2])

# %% cli
def cli(*args):
    """``simt ARGS`` (here ``python3 -m simt``, the same program), printing what it prints."""
    done = subprocess.run([sys.executable, "-m", "simt", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    print(done.stdout + done.stderr, end="")


cli("report", "banks", "traces/transpose_tile.jsonl.gz")
cli("report", "banks", "traces/transpose_tile_padded.jsonl.gz", "--by", "line")
cli("report", "coalescing", "traces/transpose_tile.jsonl.gz")
cli("report", "divergence", "traces/nested_branches.jsonl.gz", "--by", "line")
cli("report", "lines", "traces/transpose_tile.jsonl.gz")

# %% simt run
with tempfile.TemporaryDirectory() as tmp:
    cli("run", "--trace", os.path.join(tmp, "t.jsonl.gz"), "traces/transpose_example.py")
    print(analysis.read_header(os.path.join(tmp, "t.jsonl.gz"))["kernel"])
