"""The Warp-compatible suite kernels give the same results on warp-lang's CPU backend as on
simt, from the same source.

``simt/suite/portable.py`` starts with ``import simt as wp``; here it is re-executed as a
module of its own with ``import warp as wp`` instead, so warp-lang compiles the very same
kernel definitions.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

warp = pytest.importorskip("warp")

from simt import suite  # noqa: E402
from simt.suite import portable  # noqa: E402

SIMT_DEVICE = "cpu:precise"
WARP_MODULE_NAME = "simt_suite_portable_on_warp"
COMPATIBLE = [c for c in suite.CASES if c.warp_compatible]


def load_under_warp(source_file: Path, tmp_dir: Path, module_name: str):
    """Import ``source_file`` with ``import simt as wp`` rewritten to ``import warp as wp``.

    The rewritten source is written to a file because Warp reads kernel source with
    ``inspect``; the module is registered in ``sys.modules`` as Warp expects."""
    text = source_file.read_text()
    assert "import simt as wp" in text
    path = tmp_dir / f"{module_name}.py"
    path.write_text(text.replace("import simt as wp", "import warp as wp"))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def warp_portable(tmp_path_factory):
    warp.config.quiet = True
    warp.init()
    module = load_under_warp(Path(portable.__file__), tmp_path_factory.mktemp("warp_src"),
                             WARP_MODULE_NAME)
    yield module
    sys.modules.pop(WARP_MODULE_NAME, None)


def test_portable_source_imports_only_the_kernel_language():
    text = Path(portable.__file__).read_text()
    imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
    assert imports == ["import simt as wp"]


@pytest.mark.parametrize("case", COMPATIBLE, ids=lambda c: c.name)
def test_warp_matches_reference(case, warp_portable):
    run = suite.run_case(case, "small", device="cpu", api=warp, kernel=case.kernel_in(warp_portable))
    run.check()


@pytest.mark.parametrize("case", COMPATIBLE, ids=lambda c: c.name)
def test_simt_matches_warp(case, warp_portable):
    on_warp = suite.run_case(case, "small", device="cpu", api=warp,
                             kernel=case.kernel_in(warp_portable), seed=7)
    on_simt = suite.run_case(case, "small", device=SIMT_DEVICE, seed=7)
    for name in case.outputs_to_check:
        got, want = on_simt.outputs[name], on_warp.outputs[name]
        assert got.dtype == want.dtype, name
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol,
                                       err_msg=f"{case.name}: {name}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{case.name}: {name}")


def test_integer_division_and_literals_agree_with_warp(warp_portable):
    """The semantics most easy to get wrong, spelled out: C '/' and '%', floor '//', and
    float32 literals, on Warp and on simt."""
    case = suite.get("arith_semantics")
    for api, device, kernel in ((warp, "cpu", case.kernel_in(warp_portable)),
                                (None, SIMT_DEVICE, None)):
        run = suite.run_case(case, "small", device=device, api=api, kernel=kernel)
        q, r, fl = run.outputs["int_results"][:3, :4]
        np.testing.assert_array_equal(q, [-3, -3, 3, 3])       # -7/2, 7/-2, -7/-2, 7/2
        np.testing.assert_array_equal(r, [-1, 1, -1, 1])
        np.testing.assert_array_equal(fl, [-4, -4, 3, 3])
        third, tenth_i, _, exact_tenth = run.outputs["probes"][:, 1]
        assert third == float(np.float32(1.0) / np.float32(3.0)) != 1.0 / 3.0
        assert tenth_i == float(np.float32(0.1))
        assert exact_tenth == 0.1


DENSE_GEMM_SOURCE = '''import simt as wp


@wp.kernel
def gemm(t1: int, t2: int, A: wp.array(dtype=float), B: wp.array(dtype=float),
         C: wp.array(dtype=float)):
    wp.dense_gemm(3, 2, 4, t1, t2, A, B, C)
'''


def test_dense_gemm_transpose_flags_as_warp(tmp_path, warp_portable):
    """Warp's matnn.h multiplies for flags 0 and 1 only; any other pair (its own
    test_dense.py passes 3, 3) leaves C as it was."""
    source = tmp_path / "dense_gemm_kernels.py"
    source.write_text(DENSE_GEMM_SOURCE)
    on_warp = load_under_warp(source, tmp_path, "dense_gemm_on_warp")
    spec = importlib.util.spec_from_file_location("dense_gemm_on_simt", source)
    on_simt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(on_simt)
    import simt
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(12).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    before = np.full(6, 7.0, dtype=np.float32)
    try:
        for t1, t2 in ((0, 0), (1, 0), (0, 1), (1, 1), (3, 3), (2, 0), (0, -1), (1, 2)):
            outs = []
            for api, module, device in ((warp, on_warp, "cpu"), (simt, on_simt, SIMT_DEVICE)):
                c = api.array(before, dtype=float, device=device)
                api.launch(module.gemm, dim=1, inputs=[t1, t2, api.array(a, dtype=float, device=device),
                                                       api.array(b, dtype=float, device=device), c],
                           device=device)
                outs.append(c.numpy())
            np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6, err_msg=f"t1={t1}, t2={t2}")
            assert (outs[0] == before).all() == (t1 not in (0, 1) or t2 not in (0, 1))
    finally:
        sys.modules.pop("dense_gemm_on_warp", None)
