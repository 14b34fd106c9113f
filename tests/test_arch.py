"""Architecture data and the occupancy formula (REFERENCE.md's measured H200 cases)."""
import pytest

from simt.arch import load_arch


@pytest.mark.parametrize("dynamic,blocks", [(16 * 1024, 13), (48 * 1024, 4), (100000, 2)])
def test_measured_h200_occupancy(dynamic, blocks):
    assert load_arch("sm_90").occupancy(128, 32, dynamic)["blocks_per_sm"] == blocks


def test_limits():
    a = load_arch("sm_90")
    assert a.occupancy(256, 32, 0) == {"blocks_per_sm": 8, "limiter": "warps", "warps": 8,
                                        "blocks": 32, "registers": 8, "shared": 228}
    assert a.occupancy(1024, 64, 0)["blocks_per_sm"] == 1
    assert a.occupancy(32, 16, 0)["limiter"] == "blocks"
    assert load_arch("sm_80").sm_count == 108


def test_unknown_arch():
    with pytest.raises(ValueError, match="known: sm_80, sm_90"):
        load_arch("sm_75")
