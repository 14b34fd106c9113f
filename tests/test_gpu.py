"""The kernel suite on a real GPU: against each case's numpy reference and against cpu:precise.

Every test here is marked ``simt_gpu`` and skips cleanly where there is no usable GPU
(no driver, no device, no cuda-python), which is the case in CI.
"""
from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import suite, testing
from simt.suite.case import input_values, to_launch_args

pytestmark = pytest.mark.simt_gpu

GPU = "cuda"


def _case_id(case: suite.Case) -> str:
    return case.name


@pytest.mark.parametrize("case", suite.CASES, ids=_case_id)
def test_case_matches_reference_on_gpu(case: suite.Case):
    run = suite.run_case(case, "small", device=GPU, seed=1)
    run.check()
    assert run.result.device == "cuda:0"
    assert run.result.metrics["gpu_time_ms"] > 0


@pytest.mark.parametrize("case", suite.CASES, ids=_case_id)
def test_case_matches_precise_engine(case: suite.Case, simt_compare):
    """Every array the kernel sees, diffed against cpu:precise within the case's tolerance."""
    rng = np.random.default_rng(2)
    inputs, dim, block_dim = case.make_inputs(rng, case.sizes["small"])
    args = to_launch_args(inputs, simt, "cpu:precise")
    report = simt_compare(case.kernel, dim, args, engines=["cpu:precise", GPU],
                          block_dim=block_dim, rtol=max(case.rtol, 1e-6), atol=max(case.atol, 1e-6))
    assert report.compared


@pytest.mark.parametrize("case", [suite.get("saxpy"), suite.get("matmul_tiled")], ids=_case_id)
def test_large_size_matches_reference_on_gpu(case: suite.Case):
    suite.run_case(case, "large", device=GPU, seed=4).check()


def test_device_arrays_round_trip():
    data = np.arange(24, dtype=np.float32).reshape(8, 3)
    a = simt.array(data, dtype=simt.vec3, device=GPU)
    assert a.device == "cuda:0" and a.shape == (8,) and a.ptr % 256 == 0
    np.testing.assert_array_equal(a.numpy(), data)
    a.fill_(2.5)
    np.testing.assert_array_equal(a.numpy(), np.full((8, 3), 2.5, np.float32))
    b = simt.zeros(8, dtype=simt.vec3, device=GPU)
    simt.copy(b, simt.array(data, dtype=simt.vec3), dest_offset=2, src_offset=0, count=3)
    np.testing.assert_array_equal(b.numpy()[2:5], data[:3])
    host = b.to("cpu:precise")
    np.testing.assert_array_equal(host.numpy(), b.numpy())
    np.testing.assert_array_equal(simt.clone(b).numpy(), b.numpy())
    empty = simt.zeros(0, device=GPU)
    assert empty.numpy().shape == (0,)


def test_launch_result_and_cache():
    case = suite.get("saxpy")
    first = suite.run_case(case, "small", device=GPU)
    second = suite.run_case(case, "small", device=GPU)
    assert first.result.metrics["gpu_time_ms"] > 0 and second.result.metrics["gpu_time_ms"] > 0
    from simt.gpu import runtime
    fn = case.kernel.compile(simt.ir.mir.LaunchSig(1, 1))
    assert len(runtime._modules.get(fn, {})) == 1          # one module per (MIR, arch, device)


def test_mismatched_memory_is_a_launch_error():
    x = simt.zeros(4)                        # host memory
    y = simt.zeros(4, device=GPU)
    with pytest.raises(simt.LaunchError, match="copy it with .to"):
        simt.launch(suite.get("saxpy").kernel, dim=4, inputs=[1.0, x, y], device=GPU)


def test_int64_and_float64_arrays_and_int_scalars():
    """int64 and float64 arrays next to int32 ones: every width reaches the kernel intact."""
    case = suite.get("arith_semantics")
    run = suite.run_case(case, "small", device=GPU, seed=5)
    run.check()


def test_synchronize_and_device_queries():
    simt.synchronize()
    simt.synchronize_device(GPU)
    assert simt.is_cuda_available() and simt.get_cuda_device_count() >= 1
    assert "cuda:0" in simt.get_devices()


def test_compare_with_values_from_reference():
    """compare() and the numpy reference agree on what cpu:precise and the GPU produced."""
    case = suite.get("histogram_shared")
    rng = np.random.default_rng(9)
    inputs, dim, block_dim = case.make_inputs(rng, case.sizes["small"])
    expected = case.reference(input_values(inputs))
    report = testing.compare(case.kernel, dim, to_launch_args(inputs, simt, "cpu:precise"),
                             engines=["cpu:precise", GPU], block_dim=block_dim)
    np.testing.assert_array_equal(report.outputs[GPU]["bins"], expected["bins"])


_FAULTING_SCRIPT = '''
import numpy as np, simt
simt.set_module_options({"debug": DEBUG})

@simt.kernel
def far_write(x: simt.array(dtype=float)):
    i = simt.tid()
    x[i + 400000000] = 1.0

x = simt.zeros(64, device="cuda")
try:
    simt.launch(far_write, dim=64, inputs=[x], device="cuda")
    simt.synchronize()
except simt.SimtError as e:
    print(type(e).__name__ + ": " + str(e))
'''


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_gpu_fault_is_a_device_error_naming_the_cuda_error(debug, tmp_path):
    """A faulting kernel poisons its context, so it runs in a child process."""
    import subprocess
    import sys
    script = tmp_path / "fault.py"
    script.write_text(_FAULTING_SCRIPT.replace("DEBUG", str(debug)))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    assert out.startswith("DeviceError: "), out
    assert "CUDA_ERROR_" in out and "far_write" in out and "cpu:precise" in out, out
