"""simt's sanitizers against the corpus's expected verdicts: every check that must report
does, on the lines the case marks, and nothing else reports (no false positives)."""
import pytest

import simt as wp
from sanitizer_corpus import CASES

CHECKS = ("race", "init", "sync")


def test_the_corpus_covers_what_it_must():
    assert len(CASES) >= 20
    kinds = {check: sum(check in c.expect for c in CASES) for check in CHECKS}
    assert all(n >= 2 for n in kinds.values()), kinds
    assert sum(not c.expect for c in CASES) >= 10      # race-free kernels, for false positives


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_verdict_and_lines(case):
    dim, inputs, block = case.make("cpu:precise")
    hazards = wp.launch(case.kernel, dim=dim, inputs=inputs, block_dim=block, check="all").hazards
    assert set(hazards.check) == set(case.expect), "\n\n".join(hazards.report)
    for check in case.expect:
        rows = hazards[hazards.check == check]
        want = case.expected_lines(check)
        if check == "race":
            reported = {tuple(sorted((int(a), int(b)))) for a, b in zip(rows.line, rows.other_line)}
        else:
            reported = {(int(a),) for a in rows.line}
        assert want in reported, (want, reported)
        assert (rows["count"] > 0).all()
