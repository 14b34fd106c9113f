"""Per-launch counters of the precise engine, reported under Nsight Compute's metric names,
in total and per source line."""
from __future__ import annotations

import numpy as np

from ...ir.mir import Op, Space
from ..timing import model
from ..timing.indices import STALL_NAMES


class Counters:
    def __init__(self, prog, arch, warps_per_cta: int):
        self.prog, self.arch, self.warps_per_cta = prog, arch, warps_per_cta
        nb = len(prog.blocks)
        n_ins = sum(len(b.instrs) for b in prog.blocks)
        self.exec_warps = np.zeros(nb, dtype=np.int64)     # warp executions of each block
        self.exec_lanes = np.zeros(nb, dtype=np.int64)     # lane executions of each block
        self.uniform_targets = np.zeros(nb, dtype=np.int64)
        self.divergent_targets = np.zeros(nb, dtype=np.int64)
        # per instruction (global index): memory and stall counters
        self.mem = np.zeros((n_ins, 5), dtype=np.int64)    # warps, wavefronts, ideal, sectors, requests
        self.stalls = np.zeros((n_ins, len(STALL_NAMES)), dtype=np.float64)   # from the machine
        self.block_len = np.array([len(b.instrs) for b in prog.blocks], dtype=np.int64)

    def warp_instructions(self) -> int:
        return int(self.exec_warps @ self.block_len)

    def block_executed(self, blk, n_warps: int, n_lanes: int) -> None:
        self.exec_warps[blk.index] += n_warps
        self.exec_lanes[blk.index] += n_lanes

    def branch(self, blk, n_warps: int, divergent_warps: int) -> None:
        self.uniform_targets[blk.index] += n_warps - divergent_warps
        self.divergent_targets[blk.index] += 2 * divergent_warps

    def memory(self, index: int, warps: int, wavefronts: int, ideal: int, sectors: int) -> None:
        row = self.mem[index]
        row[0] += warps
        row[1] += wavefronts
        row[2] += ideal
        row[3] += sectors
        row[4] += warps if sectors else 0

    # ---- reports ----------------------------------------------------------------------------
    def _per_instruction(self):
        """(instr, block index, warp executions, lane executions) for every instruction."""
        for b, blk in enumerate(self.prog.blocks):
            for ins in blk.instrs:
                yield ins, b, self.exec_warps[b], self.exec_lanes[b]

    def metrics(self, occupancy: dict, recorder, total_ctas: int, shared_bytes: int,
                sample: bool = True, sass: bool = True) -> tuple[dict, dict]:
        """Counters, and with the timing model (``recorder`` not None) its cycles and memory
        metrics, under Nsight Compute's names; plus details (per-line table, stalls...)."""
        inst = self.warp_instructions()
        thread_inst = int(self.exec_lanes @ self.block_len)
        uniform = int(self.uniform_targets.sum())
        divergent = int(self.divergent_targets.sum())
        branches = uniform + divergent // 2
        targets = uniform + divergent
        m = {
            "smsp__inst_executed.sum": inst,
            "smsp__thread_inst_executed.sum": thread_inst,
            "smsp__thread_inst_executed_per_inst_executed.ratio": thread_inst / inst if inst else 0.0,
            "smsp__sass_inst_executed_op_branch.sum": branches,
            "smsp__sass_branch_targets.sum": targets,
            "smsp__sass_branch_targets_threads_uniform.sum": uniform,
            "smsp__sass_branch_targets_threads_divergent.sum": divergent,
            "smsp__sass_average_branch_targets_threads_uniform.pct":
                100.0 * uniform / targets if targets else 100.0,
        }
        m.update(occupancy_metrics(occupancy, shared_bytes))
        if recorder is None:      # the timing model and memory counters were switched off
            return m, {"lines": self.per_line, "occupancy": occupancy}
        m.update(self._memory_metrics())
        timing, details = model.simulate(self.prog, self.arch, recorder, total_ctas,
                                         self.warps_per_cta, occupancy, shared_bytes, sample, sass)
        self.stalls = details.pop("stall_table")
        m.update(timing)
        details["lines"] = self.per_line      # built when first asked for (pandas is slow to build)
        return m, details

    def _memory_metrics(self) -> dict:
        sums = {}
        names = {(Space.SHARED, Op.LD): "shared_op_ld", (Space.SHARED, Op.ST): "shared_op_st",
                 (Space.SHARED, Op.ATOM): "shared_op_atom", (Space.GLOBAL, Op.LD): "global_op_ld",
                 (Space.GLOBAL, Op.ST): "global_op_st", (Space.GLOBAL, Op.ATOM): "global_op_atom"}
        for key in names.values():
            sums[key] = np.zeros(5, dtype=np.int64)
        for k, (ins, *_rest) in enumerate(self._per_instruction()):
            if ins.op in (Op.LD, Op.ST, Op.ATOM):
                mem = ins.arg if ins.op is not Op.ATOM else ins.arg.mem
                # a generic pointer access counts where its lanes went: shared wavefronts and
                # global sectors are separate columns, so it adds to both; local goes with global
                spaces = ((Space.SHARED, Space.GLOBAL) if mem.space is Space.GENERIC else
                          (Space.GLOBAL,) if mem.space is Space.LOCAL else (mem.space,))
                for space in spaces:
                    sums[names[(space, ins.op)]] += self.mem[k]
        m = {}
        for kind in ("ld", "st", "atom"):
            s = sums[f"shared_op_{kind}"]
            m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum"] = int(s[1])
            m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{kind}.sum"] = int(s[1] - s[2])
            g = sums[f"global_op_{kind}"]
            m[f"l1tex__t_requests_pipe_lsu_mem_global_op_{kind}.sum"] = int(g[4])
            m[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{kind}.sum"] = int(g[3])
        return m

    def per_line(self):
        """Everything counted, per source line (a pandas DataFrame): ``file`` (the shortest
        unambiguous name; ``attrs["files"]`` maps it to the full path), ``line``, ``source``
        (the line's text, as Nsight Compute's source view shows it beside its counters), the
        counters of LINE_COUNTERS, ``stall_<reason>`` cycles, then ratios derived from them."""
        rows = {}
        width = len(LINE_COUNTERS) + len(STALL_NAMES)
        for k, (ins, b, warps, lanes) in enumerate(self._per_instruction()):
            key = (ins.loc.file, ins.loc.line) if ins.loc else ("", 0)
            r = rows.setdefault(key, np.zeros(width, dtype=np.float64))   # stalls are fractional
            r[0] += warps
            r[1] += lanes
            mem = self.mem[k]
            if ins.op in (Op.LD, Op.ST, Op.ATOM):
                space = (ins.arg.mem if ins.op is Op.ATOM else ins.arg).space
                if space in (Space.SHARED, Space.GENERIC):   # generic: either
                    r[2] += mem[1]
                    r[3] += mem[2]
                if space is not Space.SHARED:
                    r[4] += mem[3]
                    r[5] += mem[4]
            if ins.is_terminator and ins.op is not Op.RET:
                r[6] += self.uniform_targets[b] if ins.op is Op.CBR or ins.op is Op.BR else 0
                r[7] += self.divergent_targets[b]
            r[len(LINE_COUNTERS):] += self.stalls[k]
        return line_table(rows)


def occupancy_metrics(occupancy: dict, shared_bytes: int) -> dict:
    """Nsight Compute's launch statistics: each occupancy limit in blocks per SM, the registers
    per thread and the shared memory that decide them, the carveout the driver picks."""
    return {
        "launch__occupancy_limit_registers": occupancy["registers"],
        "launch__occupancy_limit_shared_mem": occupancy["shared"],
        "launch__occupancy_limit_warps": occupancy["warps"],
        "launch__occupancy_limit_blocks": occupancy["blocks"],
        "launch__registers_per_thread": occupancy["registers_per_thread"],
        "launch__shared_mem_per_block_static": shared_bytes,
        "launch__shared_mem_config_size": occupancy["carveout"],
    }


LINE_COUNTERS = ("inst_executed", "thread_inst_executed", "shared_wavefronts",
                 "shared_ideal_wavefronts", "global_sectors", "global_requests",
                 "branch_targets_uniform", "branch_targets_divergent")


def line_table(rows: dict):
    """The per-line DataFrame from {(file, line): counters then stall cycles}: the counters are
    whole numbers, the stall cycles come from the timing model and may be fractional."""
    import pandas as pd
    files = short_names([f for f, _ in rows])
    counters = list(LINE_COUNTERS) + [f"stall_{n}" for n in STALL_NAMES]
    df = pd.DataFrame([[files[f], ln, source_text(f, ln), *v] for (f, ln), v in rows.items()],
                      columns=["file", "line", "source", *counters])
    df[list(LINE_COUNTERS)] = df[list(LINE_COUNTERS)].astype(np.int64)   # stalls stay float
    df["bank_conflicts"] = df["shared_wavefronts"] - df["shared_ideal_wavefronts"]
    targets = df["branch_targets_uniform"] + df["branch_targets_divergent"]
    df["branch_efficiency_pct"] = 100.0 * df["branch_targets_uniform"] / targets.where(targets > 0)
    df = df.sort_values(["file", "line"], kind="stable").reset_index(drop=True)
    df.attrs["files"] = {short: full for full, short in files.items()}
    return df


def source_text(file: str, line: int) -> str:
    import linecache
    return linecache.getline(file, line).strip() if file and line > 0 else ""


def short_names(paths) -> dict[str, str]:
    """Each path -> its shortest trailing part (base name first) that no other path shares."""
    import os
    unique = sorted(set(paths))
    parts = {p: p.replace(os.sep, "/").split("/") for p in unique}
    out = {}
    for p in unique:
        for n in range(1, len(parts[p]) + 1):
            tail = "/".join(parts[p][-n:])
            if all("/".join(parts[q][-n:]) != tail for q in unique if q != p):
                break
        out[p] = tail
    return out
