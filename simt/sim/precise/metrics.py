"""Per-launch counters of the precise engine, reported under Nsight Compute's metric names."""
from __future__ import annotations


class Counters:
    def __init__(self):
        self.inst = 0              # warp-level instructions issued
        self.thread_inst = 0       # instructions times active lanes
        self.uniform_targets = 0   # branch executions whose active lanes all went one way
        self.divergent_targets = 0 # targets of branch executions that split the warp
        self.branches = 0          # warp-level branch instructions executed

    def block_executed(self, blk, n_warps: int, n_lanes: int) -> None:
        n = len(blk.instrs)
        self.inst += n * n_warps
        self.thread_inst += n * n_lanes

    def branch(self, n_warps: int, divergent_warps: int) -> None:
        self.branches += n_warps
        self.uniform_targets += n_warps - divergent_warps
        self.divergent_targets += 2 * divergent_warps

    def metrics(self) -> dict[str, float]:
        targets = self.uniform_targets + self.divergent_targets
        return {
            "smsp__inst_executed.sum": self.inst,
            "smsp__thread_inst_executed.sum": self.thread_inst,
            "smsp__thread_inst_executed_per_inst_executed.ratio":
                self.thread_inst / self.inst if self.inst else 0.0,
            "smsp__sass_inst_executed_op_branch.sum": self.branches,
            "smsp__sass_branch_targets.sum": targets,
            "smsp__sass_branch_targets_threads_uniform.sum": self.uniform_targets,
            "smsp__sass_branch_targets_threads_divergent.sum": self.divergent_targets,
            "smsp__sass_average_branch_targets_threads_uniform.pct":
                100.0 * self.uniform_targets / targets if targets else 100.0,
        }
