"""simt's sanitizers against the corpus's expected verdicts: every check that must report
does, on the lines the case marks, and nothing else reports (no false positives); and
against what compute-sanitizer reported on the same kernels (compute_sanitizer.csv, written
on an H200 by gpu_sanitizer.py): the same source lines, so a spurious row fails."""
import csv
import re
from pathlib import Path

import pytest

import simt as wp
from sanitizer_corpus import CASES

CHECKS = ("race", "init", "sync")
TOOL_OF = {"race": "racecheck", "init": "initcheck", "sync": "synccheck"}
HERE = Path(__file__).resolve().parent

with open(HERE / "compute_sanitizer.csv") as _f:
    GPU = {(row["case"], row["tool"]): row for row in csv.DictReader(_f)}

# (case, tool) whose compute-sanitizer output shows a sample of its hazards: there simt must
# report at least the lines it shows, and may report more
GPU_SHOWED_A_SAMPLE = {
    ("warp_reduce_without_syncwarp", "racecheck"):
        "racecheck printed 100 of its 249 hazards, all between lines a and the last step; "
        "simt reports each step against the next",
}


def test_the_corpus_covers_what_it_must():
    assert len(CASES) >= 20
    kinds = {check: sum(check in c.expect for c in CASES) for check in CHECKS}
    assert all(n >= 2 for n in kinds.values()), kinds
    assert sum(not c.expect for c in CASES) >= 10      # race-free kernels, for false positives


def test_every_case_and_tool_was_measured_on_a_gpu():
    assert set(GPU) == {(c.name, tool) for c in CASES for tool in TOOL_OF.values()}
    for (name, tool), why in GPU_SHOWED_A_SAMPLE.items():
        raw = (HERE / "raw" / f"{name}.{tool}.txt").read_text()
        shown, errors, warnings = map(int, re.search(
            r"(\d+) hazards displayed \((\d+) errors, (\d+) warnings\)", raw).groups())
        assert shown < errors + warnings, (name, tool, why)


def _reported_names(case, rows) -> set[str]:
    """The source lines of simt's reports, named as compute_sanitizer.csv names them (as the
    benchmark does): a line's ``# @marker``, else L<line>."""
    marks = {line: name for name, line in case.marker_lines().items()}
    lines = set(rows.line) | (set(rows.other_line.dropna()) if (rows.check == "race").any() else set())
    return {marks.get(int(x), f"L{int(x)}") for x in lines}


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
    # compute-sanitizer as the oracle: every line simt names, it named, and the other way round
    for check, tool in TOOL_OF.items():
        rows = hazards[hazards.check == check]
        if tool in case.gpu_differs:        # the tool cannot see this hazard: the case's lines
            got = set(rows.line) | (set(rows.other_line.dropna()) if check == "race" else set())
            assert got == set(case.expected_lines(check)), (tool, case.gpu_differs[tool])
            continue
        gpu = GPU[(case.name, tool)]
        assert gpu["verdict"] in ("reported", "clean"), gpu
        want = set(gpu["markers"].split())
        got = _reported_names(case, rows)
        assert bool(want) == (gpu["verdict"] == "reported"), gpu
        if (case.name, tool) in GPU_SHOWED_A_SAMPLE:
            assert want <= got, (tool, want, got)
        else:
            assert got == want, (tool, "compute-sanitizer:", want, "simt:", got,
                                 "\n\n".join(rows.report))
