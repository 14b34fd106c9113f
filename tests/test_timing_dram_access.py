"""What a DRAM fetch costs depends on what comes with it (the H200's measurements are the oracle):
micro.cu scatter_read, a sweep reading one float every 64, 128 and 256 bytes, costs 64, 71 and 86
bytes of a stream's DRAM time a 64-byte fetch, and atomic_lines.cu's one-lane loads of lines
hashed over 256 MB 99; one-lane stores hashed over 256 MB go at a quarter of the rate of the
same stores over 8 MB (9.6 against 38.9 a cycle GPU-wide), the DRAM reading and writing back a
sector for each. The kernels are benchmarks/timing's (check_micro.py, atomic_lines.py)."""
import sys
from pathlib import Path

import pytest

import simt as wp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "timing"))
import atomic_lines  # noqa: E402
from check_micro import scatter_read  # noqa: E402

THREADS = 1 << 19
GRID = 132 * 2           # blocks of 256: two an SM


def per_fetch(stride: int) -> float:
    """Cycles a 64-byte DRAM fetch of a sweep reading one float every ``stride`` floats."""
    args = [wp.zeros(THREADS * stride, dtype=float), stride, wp.zeros(THREADS, dtype=float)]
    r = wp.launch(scatter_read, THREADS, args, block_dim=256, device="cpu:precise")
    return r.cycles / (r.metrics["dram__bytes_read.sum"] / 64.0)


@pytest.fixture(scope="module")
def fetch_cycles():
    out = {s: per_fetch(s) for s in (16, 32, 64)}
    c = {n: atomic_lines.predict("ld_rand", 21, n, GRID, None) for n in (2, 8)}
    table = wp.zeros(32 << 21, dtype=wp.uint32)       # the same table, to count its fetches
    r = wp.launch(atomic_lines.ld_rand, GRID * 256, [table, wp.zeros(GRID * 256, dtype=wp.uint32),
                                                     wp.uint32((1 << 21) - 1), 8], block_dim=256, device="cpu:precise")
    out["random"] = (c[8] - c[2]) * 8 / 6 / (r.metrics["dram__bytes_read.sum"] / 64.0)
    return out


@pytest.mark.xfail(strict=True, reason=(
    "known gap since b0339a3: with each block's pipes from its SASS (sass_pipes.py) the random "
    "loads' step costs 0.0449 cycles a fetch against the 256-byte sweep's 0.0454 (0.99x; 0.049, "
    "1.08x, before; the H200 1.14x), why not yet found (the hash loop's pipes changed); the three "
    "sweeps still rise 1.11x and 1.09x a step (the H200 1.11x, 1.21x)"))
def test_a_fetch_costs_more_the_fewer_come_with_it(fetch_cycles):
    # the H200: 64.3, 71.4, 86.3 and 98.8 bytes a fetch (1.11x, 1.21x, 1.14x a step); with every
    # fetch at its 64 bytes the four came out alike
    f = fetch_cycles
    assert f[32] > 1.05 * f[16]
    assert f[64] > 1.08 * f[32]
    assert f["random"] > 1.05 * f[64]


def test_random_stores_beyond_the_l2_wait_for_dram():
    # one-lane stores hashed over 2^16 lines (8 MB) and 2^21 (256 MB): 38.9 and 9.6 a cycle on
    # the H200; written back without holding the stores, both came out at 38
    # (16 and 32 steps: past the L2's bound on dirty data, which 8 steps do not reach)
    def rate(lg):
        c16, c32 = (atomic_lines.predict("st_rand", lg, n, GRID, None) for n in (16, 32))
        return GRID * 256 * 16 / (c32 - c16)
    assert rate(16) > 2.0 * rate(21)
