"""The timing model's L1 against the GPU's own, measured by simt/calibrate/cuda/l1_assoc.cu on an
H100 (the H200's SM; benchmarks/timing/data/h100/l1_assoc): one thread chases a fixed cycle of
``n`` lines ``stride`` lines apart, five passes, and Nsight Compute counts the L1's hits.

The tests compare the model's steady hit rates with the GPU's on chases where the shape of the
L1 decides them (a working set near its size, at strides of many lines), and the hashed set
index the model used before against the folded one it uses now; they check against the
measured curves, not the architecture's numbers.
"""
import json

import numpy as np
import pandas as pd
import pytest

import simt as wp
from benchmark_scripts import timing_script

l1_assoc = timing_script("l1_assoc")


@pytest.fixture(scope="module")
def gpu():
    return l1_assoc.measured(l1_assoc.DATA).set_index(["stride", "n"])


def hits(arch, chases):
    plan = pd.DataFrame(chases, columns=["stride", "n"])
    return l1_assoc.model_hits(plan, arch)


def test_the_one_warp_chase_gets_the_carveout_the_gpus_driver_configured(gpu):
    """The driver gave l1_assoc.cu's one-warp kernel 32 KB of shared memory (the L1 the rest);
    the model configures the same for the same launch."""
    out = wp.zeros(1, dtype=wp.int32)
    nxt = wp.array(l1_assoc.cycle(1, 64, np.random.default_rng(0)), dtype=wp.int32)
    r = wp.launch(l1_assoc.ring, 32, [nxt, 64, out], block_dim=32, device="cpu:precise")
    assert r.metrics["launch__shared_mem_config_size"] == gpu["launch__shared_mem_config_size"].iloc[0]


def test_the_l1_keeps_a_working_set_near_its_size_at_any_power_of_two_stride(gpu):
    """The GPU keeps every one of 1,536 lines at strides of 1-512 lines; the model keeps them
    (l1_assoc.py's measure: hits at least 90% of the time), where the hashed index it had (sets
    of 8 ways) lost up to two thirds of them at strides of 128-512 lines."""
    chases = [(s, 1536) for s in (1, 8, 64, 128, 256, 512)]
    assert (gpu.loc[chases, "hit"] >= 0.99).all()
    model = hits(l1_assoc.arch_with_ways(None), chases)
    assert (model >= 0.9).all(), model
    hashed = hits(l1_assoc.arch_with_ways(8, 0), chases)
    assert hashed.min() < 0.6


def test_a_cycle_longer_than_the_l1_keeps_some_of_its_lines(gpu):
    """A 2,048-line cycle, 14% more than the 1,792 lines the L1 holds: the GPU still hits 46%
    of the time, at every stride. A fully associative LRU L1 of the same size keeps none (each
    line is evicted just before it comes round again); the model's keeps part, nearer the GPU."""
    chases = [(s, 2048) for s in (1, 16, 256)]
    measured = gpu.loc[chases, "hit"].to_numpy()
    assert (np.abs(measured - 0.46) < 0.02).all()
    model = hits(l1_assoc.arch_with_ways(None), chases)
    lru = hits(l1_assoc.arch_with_ways(0, 0), chases)
    assert (lru < 0.05).all()
    assert (np.abs(model - measured) < np.abs(lru - measured)).all()
    assert (model > 0.2).all(), model


def test_the_folded_index_is_the_architectures_and_an_arch_file_may_leave_it_out(tmp_path):
    """``timing.l1_set_fold`` is optional: a file without it hashes the L1's sets, and runs."""
    t = json.loads(l1_assoc.ARCH.read_text())["timing"]
    assert t["l1_set_fold"] > 0 and "l1_set_fold" in t["sources"]
    a = json.loads(l1_assoc.ARCH.read_text())
    del a["timing"]["l1_set_fold"], a["timing"]["sources"]["l1_set_fold"]
    path = tmp_path / "no_fold.json"
    path.write_text(json.dumps(a))
    assert hits(str(path), [(256, 1536)])[0] < hits(l1_assoc.arch_with_ways(None), [(256, 1536)])[0]
