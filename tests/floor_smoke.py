"""Run by tests/test_packaging.py in an environment holding the lowest versions pyproject.toml
declares: the kernel suite on the precise engine, some of it on the fast engine, the trace
analyses and the committed golden. Prints one line per check, then "ok"."""
import sys
from pathlib import Path

import numpy as np

import simt
from simt import analysis, suite, testing

HERE = Path(__file__).resolve().parent
print("numpy", np.__version__)
for case in suite.CASES:
    suite.run_case(case, "small", device="cpu:precise", seed=1).check()
print("suite on cpu:precise:", len(suite.CASES), "cases")
for name in ("histogram_shared", "transpose_tile", "nested_branches"):
    suite.run_case(suite.get(name), "small", device="cpu", seed=1).check()
print("suite on cpu: 3 cases")
samples = HERE.parent / "traces"
table = analysis.divergence(samples / "nested_branches.jsonl.gz")
assert table["divergent"].sum() > 0
assert analysis.bank_conflicts(samples / "transpose_tile.jsonl.gz")["conflicts"].sum() > 0
end = analysis.load_trace(samples / "nested_branches.jsonl.gz").attrs["end"]
assert all(end["metrics"][k] == v for k, v in analysis.trace_metrics(samples / "nested_branches.jsonl.gz").items())
print("trace analyses")
kernel, namespace = testing.load_target(f"{HERE / 'golden_kernels.py'}::golden_mix")
dim, inputs, block = testing.target_inputs(kernel, namespace, None)
report = testing.compare(kernel, dim, inputs, engines=["cpu:precise", "cpu"], block_dim=block,
                         golden=HERE / "golden" / "golden_mix.npz")
assert report.ok and report.compared
print("golden")
print("ok")
sys.exit(0)
