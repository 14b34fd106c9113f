"""simt.sass: the SASS ptxas makes of simt's PTX, against counts made by hand from the source."""
import pytest

import simt as wp
from simt.gpu import sass as sass_mod

pytestmark = pytest.mark.skipif(not sass_mod.available(),
                                reason="needs ptxas and nvdisasm or cuobjdump (pip install simt[sass])")


@wp.kernel
def straight(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    c[i] = a[i] * b[i] + b[2 * i]            # three global loads, one store


@wp.kernel
def row_sum(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):                        # a runtime trip count: ptxas unrolls it
        s += a[i * n + k]
    out[i] = s


@wp.kernel
def chase(nxt: wp.array(dtype=int), out: wp.array(dtype=int), n: int):
    i = wp.tid()
    p = i
    for k in range(n):
        p = nxt[p]                            # each address is the previous load's value
    out[i] = p


def test_straight_line_has_one_ldg_per_source_load():
    df = wp.sass(straight)
    assert (df["opcode"] == "LDG").sum() == 3
    assert (df["opcode"] == "STG").sum() == 1
    assert (df["loop"] == -1).all() and df.attrs["loops"] == []


def test_registers_match_ptxas_info():
    for k in (straight, row_sum, chase):
        assert wp.sass(k).attrs["registers"] == wp.ptxas_info(k)["registers"]


def test_lines_map_back_to_the_source():
    if sass_mod.find_disassembler()[0] != "nvdisasm":
        pytest.skip("cuobjdump prints no line info")
    import inspect
    first = inspect.getsourcelines(straight.func if hasattr(straight, "func") else straight)[1]
    df = wp.sass(straight)
    loads = df[df["opcode"] == "LDG"]
    assert set(loads["line"]) == {first + 3}       # the line of c[i] = a[i] * b[i] + b[2 * i]


def test_runtime_trip_count_loop_is_unrolled_with_loads_hoisted():
    df = wp.sass(row_sum)
    loops = [lp for lp in df.attrs["loops"] if lp["mir_loads"]]
    main = max(loops, key=lambda lp: lp["global_loads"])
    assert main["mir_loads"] == 1                   # one load per source iteration
    assert main["unroll"] >= 2
    assert main["global_loads"] == main["unroll"] * main["mir_loads"]
    assert main["loads_before_first_use"] >= 2
    body = df[df["loop"] == main["loop"]]
    assert (body["opcode"] == "BRA").sum() == 1     # one back edge per unrolled group


def test_pointer_chase_keeps_one_load_in_flight():
    df = wp.sass(chase)
    for lp in df.attrs["loops"]:
        if lp["global_loads"]:
            assert lp["loads_before_first_use"] == 1


def test_table_columns_and_cache():
    df = wp.sass(straight, arch="sm_80")
    for col in ("addr", "opcode", "modifiers", "operands", "predicate", "line", "block", "loop"):
        assert col in df.columns
    assert df.attrs["arch"] == "sm_80"
    again = wp.sass(straight, arch="sm_80")
    assert again.equals(df) and again is not df


def test_missing_disassembler_names_the_extra(monkeypatch):
    monkeypatch.setattr(sass_mod, "find_tool", lambda name: None)
    with pytest.raises(wp.errors.DeviceError, match=r"simt\[sass\]"):
        sass_mod.find_disassembler()
