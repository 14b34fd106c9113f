"""Big launches replay a sample of the SMs (simt/sim/timing/model.py, sm_sample): the sample
must predict what replaying every SM does, and say how well."""
import copy

import numpy as np
import pytest

import simt as wp
from timing_kernels import streaming


def test_big_grids_are_sampled_and_say_how_well(monkeypatch):
    from simt.sim.precise import engine
    n = 132 * 2048 * 8
    args = lambda: [wp.zeros(n), wp.zeros(n), 1]      # noqa: E731
    wp.set_module_options({"timing_sample": False})      # the grid's prefix only, not the SMs
    try:
        full = wp.launch(streaming(n), n, args(), block_dim=256)
        assert full.metrics["simt__sampled_ctas.sum"] == n // 256
        monkeypatch.setattr(engine, "RECORD_BUDGET", 1)
        monkeypatch.setattr(engine, "MIN_RECORDED_WAVES", 2)
        sampled = wp.launch(streaming(n), n, args(), block_dim=256)
    finally:
        wp.set_module_options({"timing_sample": True})
    assert sampled.metrics["simt__sampled_ctas.sum"] < n // 256
    assert sampled.metrics["smsp__inst_executed.sum"] == full.metrics["smsp__inst_executed.sum"]
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.15)
    assert 0 <= sampled.metrics["simt__sampling_error.pct"] < 25


def _both_ways(kernel, n, make_args, block=256):
    """(every SM replayed, a sample of the SMs replayed) for one launch."""
    wp.set_module_options({"timing_sample": False})
    try:
        full = wp.launch(kernel, n, make_args(), block_dim=block)
    finally:
        wp.set_module_options({"timing_sample": True})
    return full, wp.launch(kernel, n, make_args(), block_dim=block)


@wp.kernel
def _bins(keys: wp.array(dtype=int), bins: wp.array(dtype=int)):
    wp.atomic_add(bins, keys[wp.tid()], 1)


@pytest.mark.parametrize("what", ["dram", "atomics"])
def test_a_sample_of_the_sms_predicts_what_replaying_them_all_does(monkeypatch, what):
    """With 1/8 of the SMs replayed, the L2, DRAM and atomic units must be scaled to their
    share: a DRAM-bound copy and an atomic hot spot (4 bins) would otherwise run about 8x
    faster sampled. Counters are scaled back to the whole grid."""
    from simt.sim.timing import model
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    if what == "dram":
        n = 132 * 256 * 16
        full, sampled = _both_ways(streaming(n), n, lambda: [wp.zeros(n * 8), wp.zeros(n), 8])
        counter = "dram__bytes_read.sum"
    else:
        n = 132 * 256 * 4
        keys = np.random.default_rng(0).integers(0, 4, n).astype(np.int32)
        full, sampled = _both_ways(_bins, n, lambda: [wp.array(keys, dtype=int), wp.zeros(4, dtype=int)])
        counter = "lts__t_sectors_op_atom.sum"
    assert full.metrics["simt__sampled_sms.sum"] == 132
    assert sampled.metrics["simt__sampled_sms.sum"] < 132
    assert sampled.details["sampling"]["sms"] < sampled.details["sampling"]["of_sms"] == 132
    assert sampled.metrics["simt__sampled_ctas.sum"] < full.metrics["simt__sampled_ctas.sum"]
    assert full.details["bottleneck"]["limiter"] == sampled.details["bottleneck"]["limiter"] == what
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.1)
    assert sampled.metrics[counter] == pytest.approx(full.metrics[counter], rel=0.05)
    assert sampled.metrics["smsp__inst_executed.sum"] == full.metrics["smsp__inst_executed.sum"]


@wp.kernel
def _gather_lines(table: wp.array(dtype=wp.uint32), mask: wp.uint32, steps: int, out: wp.array(dtype=wp.uint32)):
    t = wp.uint32(wp.tid())
    lanes = wp.uint32(wp.grid_dim() * wp.block_dim())
    s = wp.uint32(0)
    for i in range(steps):
        x = (t + wp.uint32(i) * lanes) * wp.uint32(0x9E3779B1)
        s = s + table[int((x ^ (x >> wp.uint32(15))) & mask) * 32]
    out[int(t)] = s


def test_a_sample_takes_the_l2_requests_of_the_reads_it_stands_for(monkeypatch, timing_data):
    """Every lane reads its own line of an 8 MB table, 16 times, each line read about 33
    times by lanes all over the GPU: once from DRAM, then as L2 hits, one one-sector request
    each, which bound the launch. A sample of the SMs sees each line fewer times, and its
    first reads stand for the GPU's reads again (counted as hits); they must take the L2's
    queue as those hits do. Without it the sample served 1.5x the requests a cycle that the
    full replay does and predicted 0.82x its cycles."""
    # (reads merged at the L2 left out: a sample sees a line's reads 1/f as often, so fewer of
    # them fall within the merging window; test_timing_l2_share.py bounds that difference)
    timing_data(l2_merge_window_cycles=0)
    from simt.sim.timing import model
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    n = 132 * 256 * 4
    lines = 1 << 16
    full, sampled = _both_ways(_gather_lines, n, lambda: [wp.zeros(lines * 32, dtype=wp.uint32),
                                                          wp.uint32(lines - 1), 16, wp.zeros(n, dtype=wp.uint32)])
    assert sampled.metrics["simt__sampled_sms.sum"] < 132 == full.metrics["simt__sampled_sms.sum"]
    assert full.details["bottleneck"]["limiter"] == "l2"
    assert sampled.metrics["lts__t_sectors_op_read.sum"] == pytest.approx(full.metrics["lts__t_sectors_op_read.sum"],
                                                                          rel=0.02)
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.08)


@wp.kernel
def _far_neighbours(x: wp.array(dtype=float), reach: int, stride: int, y: wp.array(dtype=float)):
    i = wp.tid()
    n = x.shape[0]
    s = float(0.0)
    for k in range(reach):
        s += x[(i + k * stride) % n]
    y[i] = s


@pytest.mark.xfail(strict=True, reason=(
    "known gap: a sample's first read of a line other SMs share waits out DRAM's latency, "
    "though on the GPU most of the reads it stands for hit on what another SM fetched; the "
    "full replay says 6,263 cycles, the sample 7,324 (9f2fbda). Counting the share of reads that hit as "
    "L2 hits fixed this and the depthwise convolution of blind set 7 (1.21x -> 1.03x of the "
    "full replay) but made forest inference (blind set 12) 15-17% fast: whether the GPU's "
    "other readers come with the first (a wait for the fill) or after it is not in the sample"))
def test_a_sample_waits_for_dram_as_often_as_the_gpu(monkeypatch):
    """Every block reads its own 512 bytes and those of the blocks 64, 128, ... 448 after it,
    which run on SMs far from its own: a line is fetched from DRAM once, by whichever block
    reads it first, and the other seven readers hit in the L2. A sample of 16 SMs sees the
    first read of most lines it reads (their other readers are not replayed): it counts each
    as a DRAM read stood for by a share (right: the DRAM bytes agree), but makes the warp wait
    out DRAM's latency for all of it, and this latency-bound launch runs 1.17x the full
    replay's cycles."""
    from simt.sim.timing import model
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    n = 132 * 128 * 8
    full, sampled = _both_ways(_far_neighbours, n, lambda: [wp.array(np.ones(n, np.float32)), 8, 64 * 128,
                                                            wp.zeros(n)], block=128)
    assert sampled.metrics["simt__sampled_sms.sum"] < 132 == full.metrics["simt__sampled_sms.sum"]
    assert sampled.metrics["dram__bytes_read.sum"] == pytest.approx(full.metrics["dram__bytes_read.sum"], rel=0.02)
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.08)


@wp.kernel
def _rows_out(x: wp.array(dtype=float), m: int, y: wp.array2d(dtype=float)):
    pad = wp.shared.array(shape=(12288,), dtype=float)     # 48 KB: four blocks an SM
    i = wp.tid()
    t = wp.thread_idx()
    pad[t] = x[(i * 8) & m]
    s = float(0.0)
    for k in range(4):
        s += x[(i * 8 + k * 977) & m]
    for j in range(16):
        y[j, i] = s + pad[t] + float(j)


def test_a_recorded_prefix_writes_back_what_the_grid_does(monkeypatch, timing_data):
    """A big grid records a prefix of its blocks (two waves here, of five), and the rest
    writes back what it dirties beyond the room the L2's bound on dirty data had left
    (model._steady_writebacks). Sampled, a dirty sector stands for as many as its line does:
    private output lines for f each. The room was counted over the average weight of every
    line, and the input every block reads (a line for itself) pulled it down: the room came
    out several times too large, and the sample wrote back 0.17 MB of the 1.2 MB the full
    replay writes (5.4 MB of output, a 4 MB bound; a depthwise convolution of blind set 7:
    1.2 MB of 6.7)."""
    from simt.sim.precise import engine
    from simt.sim.timing import model
    timing_data(l2_bytes=8 << 20, l2_dirty_bytes=4 << 20)
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    n, words = 132 * 4 * 32 * 5, 64 * 1024
    x = np.ones(words, np.float32)
    args = lambda: [wp.array(x), words - 1, wp.zeros((16, n))]      # noqa: E731
    wp.set_module_options({"timing_sample": False})
    try:
        full = wp.launch(_rows_out, n, args(), block_dim=32)
    finally:
        wp.set_module_options({"timing_sample": True})
    monkeypatch.setattr(engine, "RECORD_BUDGET", 1)
    monkeypatch.setattr(engine, "MIN_RECORDED_WAVES", 2)
    sampled = wp.launch(_rows_out, n, args(), block_dim=32)
    assert full.metrics["simt__sampled_ctas.sum"] == n // 32
    assert sampled.metrics["simt__sampled_sms.sum"] < 132
    assert sampled.metrics["simt__sampled_ctas.sum"] < n // 32 // 8       # a prefix of a sample
    written = full.metrics["dram__bytes_write.sum"]
    assert 0.5e6 < written < 0.5 * 16 * 4 * n                              # the bound keeps most of it
    assert sampled.metrics["dram__bytes_write.sum"] == pytest.approx(written, rel=0.1)


@pytest.mark.parametrize("words", [1 << 16, 1 << 22])
def test_a_sample_reads_scattered_atomics_sectors_once(monkeypatch, words):
    """Atomics at random over a table the L2 holds read each sector they touch from DRAM once
    (an atomic reads only its own sector): a sample of the SMs must say so too, whether every
    sector is updated many times (a 256 KB table) or most once (16 MB). Its first reads stand
    for the grid's sector by sector: taken by 64-byte halves, the first miss on a half's other
    sector counted as a read again and a sample read the small table 2x; weighed by the line,
    the big table's sectors, which the grid touches apart, stood for too few first reads."""
    from simt.sim.timing import model
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    n = 132 * 256 * 8                                 # 270K updates
    keys = np.random.default_rng(0).integers(0, words, n).astype(np.int32)
    full, sampled = _both_ways(_bins, n, lambda: [wp.array(keys, dtype=int), wp.zeros(words, dtype=int)])
    assert sampled.metrics["simt__sampled_sms.sum"] < 132
    hand = 4 * n + 32 * np.unique(keys // 8).size     # the keys streamed, every sector touched once
    assert full.metrics["dram__bytes_read.sum"] == pytest.approx(hand, rel=0.05)
    assert sampled.metrics["dram__bytes_read.sum"] == pytest.approx(hand, rel=0.1)


def test_a_sample_holds_as_much_dirty_data_as_the_gpu(monkeypatch, timing_data):
    """The L2 keeps a bound of dirty data before it writes back (l2_dirty_bytes). A sample's
    dirty sectors count by what their lines stand for: a table every block updates stands
    for itself, though the keys streamed beside it stand for f lines each. Scaled by the
    average over all lines, the bound fell to an eighth and the sample wrote the table back
    (the Bloom filter insert of blind set 6: 24 MB, where replaying every SM wrote none)."""
    from simt.sim.timing import model
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    timing_data(l2_bytes=1 << 20, l2_dirty_bytes=256 * 1024)
    n, words = 132 * 256 * 8, 48 * 1024                   # 1 MB of keys, a 192 KB table
    keys = np.random.default_rng(0).integers(0, words, n).astype(np.int32)
    full, sampled = _both_ways(_bins, n, lambda: [wp.array(keys, dtype=int), wp.zeros(words, dtype=int)])
    assert sampled.metrics["simt__sampled_sms.sum"] < 132
    assert full.metrics["dram__bytes_write.sum"] < 0.05 * 4 * words       # the table stays dirty in the L2
    assert sampled.metrics["dram__bytes_write.sum"] < 0.05 * 4 * words


@wp.kernel
def _every_block_reads_x(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for k in range(16):
        s += x[i % 256 + 256 * k]
    y[i] = s


def test_a_sample_reads_lines_the_whole_grid_shares_from_dram_once(monkeypatch, timing_data):
    """Every block reads the same 16 KB: the GPU reads it from DRAM once (a hand count),
    however many SMs are replayed. A sample that stood for 8x its SMs' DRAM traffic would
    report about 8x that."""
    timing_data(l2_merge_window_cycles=0)     # (its L2 read counts equal without merging)
    from simt.sim.timing import model
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    n = 132 * 256 * 4
    x = np.arange(4096, dtype=np.float32)
    full, sampled = _both_ways(_every_block_reads_x, n, lambda: [wp.array(x), wp.zeros(n)])
    assert sampled.metrics["simt__sampled_sms.sum"] < 132 == full.metrics["simt__sampled_sms.sum"]
    for r in (full, sampled):
        assert r.metrics["dram__bytes_read.sum"] == pytest.approx(x.nbytes, rel=0.15)
    assert sampled.metrics["lts__t_sectors_op_read.sum"] == full.metrics["lts__t_sectors_op_read.sum"]


def test_small_launches_replay_every_sm():
    n = 132 * 256
    r = wp.launch(streaming(n), n, [wp.zeros(n), wp.zeros(n), 1], block_dim=256)
    assert r.metrics["simt__sampled_sms.sum"] == 132
    assert r.metrics["simt__sampling_error.pct"] == 0
    assert r.details["sampling"] == {"sms": 132, "of_sms": 132, "blocks": n // 256, "of_blocks": n // 256,
                                     "error_pct": 0.0}


@wp.kernel
def _one_long_block(heavy: int, steps: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    n = 1
    if i // 256 == heavy:
        n = steps                    # a hub vertex's thread: one block runs long
    for k in range(n):
        s += x[(i + 97 * k) % 4096]
    y[i] = s


@pytest.mark.parametrize("heavy", [5, 131])
def test_a_sample_keeps_the_sm_of_the_longest_block(monkeypatch, heavy):
    """One block of 1056 loops 100x longer than the rest, so the launch ends when its SM
    does. A sample of the SMs that left that SM out would predict the short blocks' time;
    the sample must hold it wherever it lies in the grid (SM 5 and SM 131, the last)."""
    from simt.sim.timing import model
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    n = 132 * 256 * 8
    x = np.arange(4096, dtype=np.float32)
    full, sampled = _both_ways(_one_long_block, n, lambda: [heavy, 2000, wp.array(x), wp.zeros(n)])
    assert sampled.metrics["simt__sampled_sms.sum"] < 132 == full.metrics["simt__sampled_sms.sum"]
    short = wp.launch(_one_long_block, n, [-1, 2000, wp.array(x), wp.zeros(n)], block_dim=256)
    assert full.cycles > 3 * short.cycles              # the long block is the launch's time
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.1)


@wp.kernel
def _probe_and_stream(table: wp.array(dtype=float), mask: int, probes: int, x: wp.array(dtype=float),
                      y: wp.array(dtype=float)):
    i = wp.tid()
    h = i * 1103515245 + 12345
    s = x[i]
    for k in range(probes):
        h = h * 1664525 + 1013904223
        s += table[(h >> 8) & mask]
    y[i] = s


@pytest.mark.xfail(strict=True, reason=(
    "known gap (first at 8304bee): bound by the L2's request rate, a sample's L2 serves f times "
    "fewer, f times longer requests and its queue waits come out longer: 9,182 cycles against the "
    "full replay's 7,396 since its reads standing for hits take the L2's queue (9f2fbda); 8,966 "
    "with bursts spread (7371bdf); 7,759 against 7,127 between b0339a3 and it; "
    "9,001 against 7,441 before. DRAM bytes agree; the sampled launches of the blind sets are "
    "checked against full replays by check_sampling.py"))
def test_a_sample_keeps_in_the_l2_what_the_gpu_keeps(monkeypatch):
    """Every block probes one table at random while it streams its own data through the L2
    (256 KB here, two partitions of 128 KB, each keeping its own copy of a table every SM
    reads). A table of a quarter of the L2 stays there on the GPU (read from DRAM about once)
    however much private data streams past. A sample whose L2 is scaled down by the average
    line's share evicts it (its DRAM bytes several times a full replay's); footprint.py weighs
    each line instead, and memsys ages and places the lines of the SMs not replayed.
    (Bound by the L2's request rate, the sample still waits longer in the L2's queue: the xfail
    names the cycles.)"""
    full, sampled = _probe_with_small_l2(monkeypatch, 64)
    assert sampled.metrics["simt__sampled_sms.sum"] < 132 == full.metrics["simt__sampled_sms.sum"]
    # (the sample before footprint.py's weights: 10x the DRAM bytes, 1.14x the cycles)
    assert sampled.metrics["dram__bytes_read.sum"] == pytest.approx(full.metrics["dram__bytes_read.sum"], rel=0.4)
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.15)


def test_shared_data_the_l2_cannot_hold_replays_every_sm(monkeypatch):
    """The same probes into a table of four times the L2: the GPU reads it from DRAM again and
    again as the probes evict each other. A sample's weights and placeholders stand for the
    SMs not replayed by averages that hold while the shared data fits; here the sample counted
    0.86x the full replay's DRAM reads and 0.88x its cycles, and on the random walks and hash
    probes of blind sets 6-8 0.15-0.9x the DRAM reads. So the launch replays every SM, and it
    is the full replay."""
    full, again = _probe_with_small_l2(monkeypatch, 1024)
    assert full.metrics["simt__sampled_sms.sum"] == again.metrics["simt__sampled_sms.sum"] == 132
    assert again.details["sampling"]["sms"] == again.details["sampling"]["of_sms"]
    assert again.cycles == full.cycles
    assert again.metrics["dram__bytes_read.sum"] == full.metrics["dram__bytes_read.sum"]
    # the table is read from DRAM many times over: a sample that kept it would say about once
    assert full.metrics["dram__bytes_read.sum"] > 4 * 1024 * 1024


def _probe_with_small_l2(monkeypatch, table_kb):
    """(every SM replayed, sampled as the launch decides) for ``_probe_and_stream`` on an
    H200 whose L2 is 256 KB, sampling from any size on."""
    from simt.arch import Arch, load_arch
    from simt.sim.precise import engine
    from simt.sim.timing import model

    def small_l2(name):
        arch = load_arch(name)
        data = copy.deepcopy(arch.data)
        data["timing"]["l2_bytes"] = 256 << 10
        data["timing"]["l2_merge_window_cycles"] = 0      # (the sample's weights alone)
        return Arch(name, data)
    monkeypatch.setattr(engine, "load_arch", small_l2)
    monkeypatch.setattr(model, "SAMPLE_ABOVE", 1)
    n = 132 * 256 * 4
    words = table_kb * 256
    table = np.random.default_rng(1).random(words).astype(np.float32)
    return _both_ways(_probe_and_stream, n, lambda: [wp.array(table), words - 1, 4, wp.zeros(n), wp.zeros(n)])


@wp.kernel
def _uneven_blocks(trips: wp.array(dtype=int), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = x[i]
    for k in range(trips[i // 128]):
        s = s * 1.0001 + 0.5
    y[i] = s


@pytest.mark.parametrize("spread,rel", [("even", 0.01), ("1x-2.5x", 0.01), ("heavy", 0.25)])
def test_a_recorded_prefix_of_uneven_blocks_predicts_the_whole_grid(monkeypatch, spread, rel):
    """Blocks of even and uneven length (each loops 40 times, 16-40 times, or 8 + 8 Pareto(2)
    times): the prediction from a quarter of the grid's blocks must match the replay of them
    all. Blocks of a wave end together, and the prefix drains at its end, blocks finishing ever
    more slowly; the rest of the grid goes at the rate of the SMs while full, by Little's law
    (a rate read off the prefix's second half of block ends: 0.97x, 1.04x and 4.0x)."""
    from simt.sim.precise import engine
    blocks = 132 * 16 * 8
    rng = np.random.default_rng(3)
    trips = {"even": np.full(blocks, 40), "1x-2.5x": rng.integers(16, 41, blocks),
             "heavy": 8 + (rng.pareto(2.0, blocks) * 8).astype(int)}[spread]
    n = blocks * 128
    args = lambda: [wp.array(trips.astype(np.int32)), wp.zeros(n), wp.zeros(n)]      # noqa: E731
    with wp.ScopedModuleOptions({"timing_sample": False}):      # the grid's prefix only, not the SMs
        full = wp.launch(_uneven_blocks, n, args(), block_dim=128)
        monkeypatch.setattr(engine, "RECORD_BUDGET", 1)
        monkeypatch.setattr(engine, "MIN_RECORDED_WAVES", 2)
        prefix = wp.launch(_uneven_blocks, n, args(), block_dim=128)
    assert full.metrics["simt__sampled_ctas.sum"] == blocks
    assert prefix.metrics["simt__sampled_ctas.sum"] <= blocks // 3
    assert prefix.cycles == pytest.approx(full.cycles, rel=rel)


@wp.kernel
def _tally(x: wp.array(dtype=int), trips: int, y: wp.array(dtype=int)):
    i = wp.tid()
    n = x.shape[0]
    hist = wp.vector(length=16, dtype=int)
    for k in range(trips):
        hist[x[(i + k * 32) % n] & 15] += 1
    s = int(0)
    for b in range(16):
        s += hist[b] * b
    y[i] = s


def test_a_recorded_prefix_that_starts_with_blocks_leaving_one_by_one_predicts_the_whole_grid(monkeypatch):
    """ALU-bound blocks, six an SM: the scheduler favours the oldest warps, so the first
    blocks leave one by one (at about 0.3x, 0.5x, ... of the time a block takes once the SMs are
    full). The rest of the grid goes at the rate the SMs keep while full: the blocks done from
    the first end to the last start, each counting the share of its time there. Little's law
    with every block's mean time took the first blocks' for it: 0.93x of the replay of them all.
    A prefix of one wave has too few block ends to read that rate from (0.80x); it is held to
    the ALU pipe's own work over the grid, which no SM can finish sooner."""
    from simt.sim.precise import engine
    blocks = 132 * 6 * 8
    n = blocks * 256
    keys = np.random.default_rng(0).integers(0, 1 << 20, n).astype(np.int32)
    args = lambda: [wp.array(keys), 25, wp.zeros(n, dtype=int)]      # noqa: E731
    with wp.ScopedModuleOptions({"timing_sample": False}):      # the grid's prefix only, not the SMs
        monkeypatch.setattr(engine, "RECORD_BUDGET", 10**9)     # every block (122M warp instructions)
        full = wp.launch(_tally, n, args(), block_dim=256)
        monkeypatch.setattr(engine, "RECORD_BUDGET", 1)
        monkeypatch.setattr(engine, "MIN_RECORDED_WAVES", 2)
        prefix = wp.launch(_tally, n, args(), block_dim=256)
        monkeypatch.setattr(engine, "MIN_RECORDED_WAVES", 1)
        wave = wp.launch(_tally, n, args(), block_dim=256)
    assert full.details["bottleneck"]["limiter"] == "alu"
    assert full.metrics["simt__sampled_ctas.sum"] == blocks
    took = prefix.details["blocks"]["end"] - prefix.details["blocks"]["start"]
    first = np.argsort(prefix.details["blocks"]["start"], kind="stable")[:132]
    assert took[first].min() < 0.5 * np.median(took)        # the first blocks left early
    assert prefix.metrics["simt__sampled_ctas.sum"] <= blocks // 3
    assert prefix.cycles == pytest.approx(full.cycles, rel=0.03)
    assert wave.metrics["simt__sampled_ctas.sum"] < prefix.metrics["simt__sampled_ctas.sum"]
    assert wave.cycles == pytest.approx(full.cycles, rel=0.03)
