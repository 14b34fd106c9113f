"""The CLI records traces from a user's script and reports on them."""
import csv
import io
import textwrap

from simt.cli import main


def test_run_with_trace_then_report(tmp_path, capsys):
    script = tmp_path / "user.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import simt as wp

        @wp.kernel
        def strided(a: wp.array(dtype=float), out: wp.array(dtype=float)):
            s = wp.shared.array(shape=(32 * 32,), dtype=float)
            i = wp.tid()
            lane = wp.lane_id()
            s[lane * 32] = a[i]
            out[i] = s[lane * 32]

        a = wp.array(np.arange(64, dtype=np.float32))
        out = wp.zeros(64)
        wp.launch(strided, 64, [a, out], block_dim=32)
        wp.launch(strided, 64, [a, out], block_dim=32)
        assert (out.numpy() == np.arange(64)).all()
    """))
    trace = tmp_path / "run.jsonl"
    assert main(["run", "--trace", str(trace), str(script)]) == 0
    assert trace.exists() and (tmp_path / "run.1.jsonl").exists()
    capsys.readouterr()
    assert main(["report", "banks", str(trace)]) == 0
    assert "ld.shared" in capsys.readouterr().out
    assert main(["report", "banks", "--csv", str(trace)]) == 0
    rows = {r["op"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    # by hand: lane * 32 puts all 32 lanes of a warp in bank 0 (4-byte words, 32 banks), so
    # each of the launch's 2 warps takes 32 wavefronts per access where 1 would do
    lines = script.read_text().splitlines()
    want_line = {"st.shared": lines.index("    s[lane * 32] = a[i]") + 1,
                 "ld.shared": lines.index("    out[i] = s[lane * 32]") + 1}
    assert sorted(rows) == ["ld.shared", "st.shared"]
    for op, r in rows.items():
        assert int(r["line"]) == want_line[op], (op, r)
        got = {k: int(r[k]) for k in ("executions", "wavefronts", "ideal", "conflicts", "n_way")}
        assert got == {"executions": 2, "wavefronts": 64, "ideal": 2, "conflicts": 62,
                       "n_way": 32}, (op, r)
