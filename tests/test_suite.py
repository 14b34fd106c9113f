"""Every suite kernel on every engine, at the small size, against its numpy reference."""
from __future__ import annotations

import pytest

import simt
from simt import suite

# Engines the suite runs on; add a device string here when an engine lands.
ENGINES = ["cpu:precise", "cpu"]
COUNTING = {"cpu:precise"}          # engines that report instruction counters


def _case_id(case: suite.Case) -> str:
    return case.name


@pytest.mark.parametrize("device", ENGINES)
@pytest.mark.parametrize("case", suite.CASES, ids=_case_id)
def test_case_matches_reference(case: suite.Case, device: str):
    run = suite.run_case(case, "small", device=device, seed=1)
    run.check()
    metrics = run.result.metrics
    if device not in COUNTING:
        return
    assert metrics["smsp__inst_executed.sum"] > 0
    assert metrics["smsp__thread_inst_executed.sum"] >= metrics["smsp__inst_executed.sum"]
    assert metrics["smsp__thread_inst_executed.sum"] <= 32 * metrics["smsp__inst_executed.sum"]


@pytest.mark.parametrize("device", ENGINES)
def test_same_seed_same_results(device: str):
    """Launches are deterministic: atomics, barriers and scheduling included."""
    case = suite.get("histogram_shared")
    a = suite.run_case(case, "small", device=device, seed=3)
    b = suite.run_case(case, "small", device=device, seed=3)
    # every metric the engine reports, not only the ones both happen to lack
    assert dict(a.result.metrics) == dict(b.result.metrics)
    if device in COUNTING:
        assert a.result.metrics["smsp__inst_executed.sum"] > 0
    for name in case.outputs_to_check:
        assert (a.outputs[name] == b.outputs[name]).all()


BANK_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"


def test_padding_removes_transpose_bank_conflicts():
    plain = suite.run_case(suite.get("transpose_tile"), "small", device="cpu:precise")
    padded = suite.run_case(suite.get("transpose_tile_padded"), "small", device="cpu:precise")
    # Reading a column of a 32x32 float tile puts all 32 lanes in one bank: 31 extra
    # wavefronts per warp-load; the 33-float row pitch spreads them over all 32 banks.
    assert plain.result.metrics[BANK_CONFLICTS] > 0
    assert padded.result.metrics[BANK_CONFLICTS] == 0


def test_the_fast_engine_says_it_counts_no_bank_conflicts():
    run = suite.run_case(suite.get("transpose_tile"), "small", device="cpu")
    run.check()
    with pytest.raises(simt.MetricUnavailableError, match="cpu:precise"):
        run.result.metrics[BANK_CONFLICTS]


def test_case_names_unique_and_documented():
    names = [c.name for c in suite.CASES]
    assert len(names) == len(set(names))
    for c in suite.CASES:
        assert c.description, c.name
        assert set(c.sizes) >= {"small", "large"}, c.name
        assert suite.get(c.name) is c
