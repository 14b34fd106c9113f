"""The differential fuzzer (simt/fuzz.py) in CI: random kernels on ``cpu`` and ``cpu:precise``,
bit for bit; on a GPU, within docs/ulp.md's bounds.

Examples are derandomized (the same kernels every run). Compiling each kernel for the fast
engine is what a case costs, so a case is a whole kernel of several random statements.
``SIMT_FUZZ_EXAMPLES=N`` hunts instead: N new random kernels per test, different every run.

When a kernel fails, hypothesis shrinks it and the smallest failing kernel is written to
``$SIMT_FUZZ_FAILURES`` (default: the temporary directory's ``simt_fuzz_failures``); the
message names the file. Once the bug is fixed, copy the file into tests/fuzz_cases/: every
kernel there runs as a regression test below.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, find, given, settings  # noqa: E402

from simt import fuzz  # noqa: E402

CASES = sorted((Path(__file__).parent / "fuzz_cases").glob("*.py"))
FAILURES = Path(os.environ.get("SIMT_FUZZ_FAILURES") or
                Path(tempfile.gettempdir()) / "simt_fuzz_failures")
LONG = int(os.environ.get("SIMT_FUZZ_EXAMPLES", "0"))


def fuzz_settings(examples: int):
    return settings(max_examples=LONG or examples, derandomize=not LONG, deadline=None,
                    database=None, print_blob=False,
                    phases=[Phase.explicit, Phase.generate, Phase.shrink],   # no files written
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def save_failure(source: str) -> Path:
    FAILURES.mkdir(parents=True, exist_ok=True)
    path = FAILURES / f"case_{hashlib.sha256(source.encode()).hexdigest()[:12]}.py"
    path.write_text(source)
    return path


def check(source: str, devices=("cpu:precise", "cpu")) -> None:
    reference = fuzz.run(source, devices[0])
    for device in devices[1:]:
        found = fuzz.differences(reference, fuzz.run(source, device), gpu=device.startswith("cuda"),
                                 source=source)
        if found:
            path = save_failure(source)
            raise AssertionError(
                f"{device} and {devices[0]} differ on this kernel (saved as {path}; once fixed, "
                f"copy it into tests/fuzz_cases/ to keep it as a regression test):\n  "
                + "\n  ".join(found) + "\n\n" + source)


@fuzz_settings(12)
@given(fuzz.programs())
def test_random_kernels_agree_bit_for_bit(source):
    check(source)


@fuzz_settings(4)
@given(fuzz.programs(collectives=True))
def test_random_kernels_with_barriers_and_shuffles_agree(source):
    check(source)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_kept_regressions(path):
    check(path.read_text())


def test_a_failing_kernel_shrinks_small_and_is_saved(monkeypatch):
    """The mechanism itself: a 'bug' hit by any kernel using bit_count shrinks to a kernel
    of a statement or two, and a failure writes the kernel to a file the message names."""
    smallest = find(fuzz.programs(max_statements=2), lambda s: "wp.bit_count" in s,
                    settings=settings(database=None, derandomize=True, max_examples=60))
    body = smallest.split("shi = wp.shared.array(shape=(64,), dtype=wp.int32)\n")[1]
    statements = [x for x in body.splitlines() if not x.strip().startswith("out_")]
    assert len(statements) <= 3, smallest
    monkeypatch.setattr(fuzz, "run", lambda source, device, seed=0: {"x": fuzz.np.zeros(1)})
    monkeypatch.setattr(fuzz, "differences", lambda *a, **k: ["x: 1 element(s) differ"])
    monkeypatch.setattr(__import__(__name__), "FAILURES", FAILURES / "selftest", raising=False)
    with pytest.raises(AssertionError, match="tests/fuzz_cases") as info:
        check(smallest)
    saved = Path(str(info.value).split("saved as ")[1].split(";")[0])
    assert saved.read_text() == smallest


@pytest.mark.simt_gpu
@fuzz_settings(10)
@given(fuzz.programs(collectives=True, gpu=True))
def test_random_kernels_on_gpu_within_bounds(source):
    check(source, devices=("cpu:precise", "cuda"))
