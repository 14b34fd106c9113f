"""Architecture data: the occupancy formula against hand counts of the CUDA occupancy
calculator, validation of architecture files, and an architecture given as a file path."""
import copy
import json
import os

import numpy as np
import pytest

import simt as wp
from simt.arch import ArchError, load_arch
from simt.gpu import sass
from simt.options import ARCHS, reset_module_options


@pytest.mark.parametrize("dynamic,blocks", [(16 * 1024, 13), (48 * 1024, 4), (100000, 2)])
def test_measured_h200_occupancy(dynamic, blocks):
    # REFERENCE.md: block 128, dynamic shared 16 KB / 48 KB / 100000 B, measured on an H200
    assert load_arch("sm_90").occupancy(128, 32, dynamic)["blocks_per_sm"] == blocks


# (threads, registers, shared bytes) -> blocks per SM by warps, registers, shared memory, and
# the limiter, counted by hand as the CUDA occupancy calculator does for the H200:
#   warps: 64 // ceil(T / 32);  registers: a warp takes roundup(R * 32, 256), each of the 4
#   quarters of the 65536-register file holds 16384 // that many warps;  shared: a block takes
#   roundup(S + 1024 reserved, 128) of the carveout the driver configures, which on the H200 is
#   the smallest of 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KB above 1.75 x the blocks the
#   warps allow (at most 12) x a block's shared memory + 2 KB (benchmarks/timing/carveout_fit.py; at least
#   the one holding the most blocks the other limits allow). Where the H200's profiler
#   reported the same shape, the carveout is its (the comment says how many launches).
@pytest.mark.parametrize("threads,regs,shared,warps,by_regs,by_shared,limiter,carveout_kb", [
    (256, 32, 0, 8, 8, 32, "warps", 32),           # 1 KB a block, 8 of them: > 16 KB (H200: 407 launches)
    (128, 64, 0, 16, 8, 32, "registers", 32),      # 2048 registers a warp, 12 blocks counted: > 23 KB (H200: 32)
    (128, 255, 0, 16, 2, 32, "registers", 32),     # 8160 -> 8192 a warp: 2 warps a quarter
    (256, 16, 40 * 1024, 8, 16, 5, "shared", 228),  # 41984 B a block: 5 fit in 228 KB
    (256, 16, 1024, 8, 16, 16, "warps", 32),       # 2048 B a block, 8 blocks: > 30 KB (H200: 15 launches)
    (128, 32, 48 * 1024, 16, 16, 4, "shared", 228),  # 50176 B a block: 4 fit in 228 KB
    # 512 registers a warp; 12 blocks of 1 KB counted: > 23 KB (the H200 configures 32 KB for
    # blocks of 32 or 64 threads with no shared memory, 10 launches; an H100 32 KB for
    # l1_assoc.cu's one warp, benchmarks/timing/data/h100/l1_assoc)
    (32, 16, 0, 64, 128, 32, "blocks", 32),
])
def test_occupancy_hand_counts(threads, regs, shared, warps, by_regs, by_shared, limiter, carveout_kb):
    occ = load_arch("sm_90").occupancy(threads, regs, shared)
    assert (occ["warps"], occ["registers"], occ["shared"]) == (warps, by_regs, by_shared)
    assert occ["blocks"] == 32
    assert occ["limiter"] == limiter
    assert occ["blocks_per_sm"] == min(warps, by_regs, by_shared, 32)
    assert occ["carveout"] == carveout_kb * 1024


def test_unknown_arch():
    with pytest.raises(ArchError, match="unknown arch 'sm_75'; simt models sm_90, sm_80"):
        load_arch("sm_75")
    assert ARCHS == ("sm_90", "sm_80")     # the JSON files of simt/arch


# ---- an architecture given as a file ---------------------------------------------------------

def arch_file(tmp_path, name="my_gpu", drop=None, **changes):
    """sm_90's data with ``changes`` (top-level keys), written to ``tmp_path/name.json``."""
    data = copy.deepcopy(load_arch("sm_90").data)
    data.update(changes)
    if drop:
        section, _, key = drop.rpartition(".")
        where = data
        for part in section.split(".") if section else ():
            where = where[part]
        del where[key]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("key", ["max_threads_per_block", "timing.l1_ways",
                                 "timing.dram_peak_bytes_per_second", "timing.latency.l2"])
def test_a_missing_key_is_named_with_the_file(tmp_path, key):
    path = arch_file(tmp_path, drop=key)
    with pytest.raises(ArchError) as e:
        load_arch(path)
    assert f"'{key}'" in str(e.value) and path in str(e.value)
    with pytest.raises(wp.SimtError, match=key.replace(".", r"\.")):
        wp.set_module_options({"arch": path})


@pytest.mark.skipif(not sass.available(), reason="ptxas and a disassembler are needed")
def test_the_adu_interval_is_needed_only_where_opcodes_take_the_adu(tmp_path):
    """A file written before the ADU pipe (no interval, no LDC in its SASS table) loads and
    predicts with no ADU work; one whose table puts LDC on the ADU without an interval is
    refused, naming the pipe and the file."""
    old = copy.deepcopy(load_arch("sm_90").data)
    del old["timing"]["pipe_interval"]["adu"]
    del old["timing"]["sass_pipes"]["adu"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    x, y = wp.array(np.arange(1024, dtype=np.float32)), wp.zeros(1024)
    runs = {a: wp.launch(scale, dim=1024, inputs=[x, y], block_dim=256, device="cpu:precise", arch=a)
            for a in ("sm_90", str(tmp_path / "old.json"))}
    np.testing.assert_array_equal(y.numpy(), np.arange(1024, dtype=np.float32) * 2)
    assert runs[str(tmp_path / "old.json")].metrics["sm__inst_executed_pipe_adu.sum"] == 0.0
    assert runs["sm_90"].metrics["sm__inst_executed_pipe_adu.sum"] > 0.0    # the stack pointer's LDC
    bad = copy.deepcopy(load_arch("sm_90").data)
    del bad["timing"]["pipe_interval"]["adu"]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(ArchError, match="'adu'") as e:
        load_arch(str(tmp_path / "bad.json"))
    assert str(tmp_path / "bad.json") in str(e.value)


@pytest.mark.parametrize("key, value", [("line_bytes", 64), ("sector_bytes", 64),
                                        ("shared_banks", 16), ("shared_bank_bytes", 8)])
def test_a_memory_geometry_the_model_cannot_replay_is_refused(tmp_path, key, value):
    with pytest.raises(ArchError, match=f"{key} is {value}"):
        load_arch(arch_file(tmp_path, **{key: value}))


def test_an_architecture_reserving_no_shared_memory(tmp_path):
    """Without a reserved part, a block using no shared memory is not limited by it."""
    arch = load_arch(arch_file(tmp_path, reserved_shared_per_block=0))
    occ = arch.occupancy(32, 16, 0)
    assert occ["shared"] == occ["blocks"] == occ["blocks_per_sm"]
    assert arch.occupancy(256, 16, 40 * 1024)["shared"] == 233472 // (40 * 1024)


def test_a_file_that_is_not_there_or_not_json(tmp_path):
    with pytest.raises(ArchError, match="cannot read"):
        load_arch(str(tmp_path / "nothing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ArchError, match="not valid JSON"):
        load_arch(str(bad))


@wp.kernel
def big_shared(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    stage = wp.shared.array(shape=(10240,), dtype=float)      # 40 KB
    t = wp.thread_idx()
    i = wp.tid()
    v = x[i]
    for k in range(200):            # a chain long enough that a wave outlasts the launch floor
        v = v * 1.0 + 0.0
    stage[t] = v
    wp.sync_threads()
    y[i] = stage[63 - t] * 2.0


@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * 2.0


def small_gpu(tmp_path):
    """A GPU with less of everything than the H200: 64 KB of shared memory per SM, blocks of
    at most 512 threads, 33 SMs."""
    return arch_file(tmp_path, shared_per_sm=64 * 1024, shared_carveouts_kb=[0, 8, 16, 32, 64],
                     max_threads_per_block=512, sm_count=33)


def test_launches_are_checked_against_the_files_limits(tmp_path):
    path = small_gpu(tmp_path)
    x, y = wp.zeros(1024), wp.zeros(1024)
    wp.launch(scale, dim=1024, inputs=[x, y], block_dim=1024)             # fits the H200
    with pytest.raises(wp.LaunchError, match=r"1024 threads is over the limit of 512"):
        wp.launch(scale, dim=1024, inputs=[x, y], block_dim=1024, arch=path)
    with pytest.raises(wp.LaunchError, match=r"1024 threads is over the limit of 512"):
        wp.launch(scale, dim=(1, 1024), inputs=[x.reshape((1, 1024)), y.reshape((1, 1024))],
                  block_dim=(1, 1024), arch=path)


def test_a_block_needing_more_shared_memory_than_an_sm_has(tmp_path):
    path = arch_file(tmp_path, shared_per_sm=32 * 1024, shared_carveouts_kb=[0, 8, 16, 32])
    x, y = wp.zeros(64), wp.zeros(64)
    with pytest.raises(wp.LaunchError, match=r"more than the 32768 bytes of shared memory an SM"):
        wp.launch(big_shared, dim=64, inputs=[x, y], block_dim=64, arch=path)


def test_timing_follows_the_files_machine(tmp_path):
    """Fewer SMs: more waves and more cycles. Less shared memory per SM: fewer resident blocks
    of a 40 KB block, more cycles."""
    fewer_sms = arch_file(tmp_path, "fewer_sms", sm_count=33)
    less_shared = arch_file(tmp_path, "less_shared", shared_per_sm=64 * 1024,
                            shared_carveouts_kb=[0, 8, 16, 32, 64])
    n = 132 * 5 * 64                      # one wave of 5 blocks an SM on the H200
    x = wp.array(np.random.default_rng(0).random(n, dtype=np.float32))
    runs = {}
    for arch in ("sm_90", fewer_sms, less_shared):
        y = wp.zeros(n)
        runs[arch] = wp.launch(big_shared, dim=n, inputs=[x, y], block_dim=64, arch=arch)
        np.testing.assert_array_equal(y.numpy()[:64], x.numpy()[63::-1] * 2)
    h200 = runs["sm_90"]
    assert runs[fewer_sms].cycles > 2 * h200.cycles
    assert h200.details["occupancy"]["blocks_per_sm"] == 5
    assert runs[less_shared].details["occupancy"]["blocks_per_sm"] == 1
    assert runs[less_shared].details["occupancy"]["limiter"] == "shared"
    assert runs[less_shared].cycles > 2 * h200.cycles


def test_module_option_takes_a_path(tmp_path):
    path = small_gpu(tmp_path)
    wp.set_module_options({"arch": path})
    try:
        x, y = wp.zeros(1024), wp.zeros(1024)
        with pytest.raises(wp.LaunchError, match="over the limit of 512"):
            wp.launch(scale, dim=1024, inputs=[x, y], block_dim=1024)
        wp.launch(scale, dim=1024, inputs=[x, y], block_dim=512)
    finally:
        reset_module_options()


def test_an_edited_architecture_file_is_read_again(tmp_path):
    first = load_arch(arch_file(tmp_path, sm_count=132))
    path = arch_file(tmp_path, sm_count=7)       # the same path, rewritten
    os.utime(path, ns=(1, 1))                   # a new mtime even on a coarse clock
    again = load_arch(path)
    assert (first.sm_count, again.sm_count) == (132, 7) and first.key != again.key
