"""The sample traces shipped in traces/ (written by traces/make_samples.py) still load with
this version of simt and still show what traces/README.md says they show."""
from pathlib import Path

import pytest

from simt import analysis

TRACES = Path(__file__).resolve().parent.parent / "traces"
SAMPLES = ("transpose_tile", "transpose_tile_padded", "nested_branches")


def sample(name: str) -> Path:
    path = TRACES / f"{name}.jsonl.gz"
    if not path.exists():
        pytest.skip(f"{path} is missing; run traces/make_samples.py")
    return path


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_loads(name):
    df = analysis.load_trace(sample(name))
    header, end = df.attrs["header"], df.attrs["end"]
    assert header["kernel"] == name
    assert end is not None and not end["truncated"]
    assert len(df) == end["records"] > 0


def shared_load(name: str):
    table = analysis.bank_conflicts(sample(name))
    return table[table["op"] == "ld.shared"].iloc[0]


def test_unpadded_tile_load_is_a_32_way_conflict():
    load = shared_load("transpose_tile")
    assert load["n_way"] == 32
    assert load["conflicts"] == 31 * load["executions"] > 0


def test_padded_tile_has_no_bank_conflicts():
    table = analysis.bank_conflicts(sample("transpose_tile_padded"), by="line")
    assert len(table) == 2 and (table["conflicts"] == 0).all() and (table["n_way"] == 1).all()


def test_branch_sample_diverges():
    table = analysis.divergence(sample("nested_branches"))
    assert table["divergent"].sum() > 0
