"""The CLI records traces from a user's script and reports on them."""
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
    text = capsys.readouterr().out
    assert "ld.shared" in text or "shared" in text
