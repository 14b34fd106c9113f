"""Kernels imported from PTX on every engine: cpu (the fast engine) gives cpu:precise's bits,
check= sanitizers see pointer accesses, dynamic shared memory, calls, and cuda (on a GPU).

The corpus launches live in tests/ptx_cases.py; tools/ptx_gpu_check.sh runs all of them on a
GPU as well (the subset here keeps the fast engine's compile time small).
"""
from __future__ import annotations

import shutil
from fractions import Fraction

import numpy as np
import pytest

import simt
from simt.errors import CompileError, LaunchError, OutOfBoundsError
from ptx_cases import CASES, run_case

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
BY_NAME = {c[1]: c for c in CASES}
# FMA (saxpy, matmul), shared memory and barriers (block_sum, transpose: 2-d blocks), shuffles
# (warp_sum), global and shared atomics (histogram, atomics), vectors (reverse4), local
# memory, module data and float bit casts (transcend), f64 FMA (dbl), generic addresses
# (generic), 64-bit integer tricks (intops)
FAST_SUBSET = ["saxpy", "block_sum", "transpose", "warp_sum", "histogram", "atomics", "reverse4",
               "transcend", "dbl", "generic", "intops", "matmul"]


@pytest.mark.parametrize("name", FAST_SUBSET)
def test_fast_engine_gives_the_precise_engines_bits(name):
    case = BY_NAME[name]
    for seed in (0, 1):
        precise, fast = run_case(case, "cpu:precise", seed), run_case(case, "cpu", seed)
        for k, (p, f) in enumerate(zip(precise, fast)):
            assert p.dtype == f.dtype
            assert p.tobytes() == f.tobytes(), f"{name}, seed {seed}: array {k} differs"


def test_every_corpus_case_is_known():
    assert set(FAST_SUBSET) <= set(BY_NAME)


# --- FMA: one rounding, one implementation for both engines (simt/sim/mathlib.py) -------------

def _nearest_f32(exact: Fraction) -> np.float32:
    """The float32 nearest ``exact``, ties to even."""
    v = np.float32(float(exact))
    near = [np.nextafter(v, np.float32(-np.inf)), v, np.nextafter(v, np.float32(np.inf))]
    return min(near, key=lambda x: (abs(Fraction(float(x)) - exact), int(np.float32(x).view(np.uint32)) & 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_is_rounded_once(dtype):
    from simt.ir.mir import Op
    from simt.sim import mathlib
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(300).astype(dtype), rng.standard_normal(300).astype(dtype)
    # cancellation: x * y + z with z near -(x * y) keeps the product's low bits, which a
    # product rounded before the sum loses
    c = (-(a.astype(np.float64) * b) + rng.standard_normal(300) * 1e-9 * np.abs(a * b)).astype(dtype)
    got = mathlib.ufunc(Op.FMA, dtype)(a, b, c)
    exact = [Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)) for x, y, z in zip(a, b, c)]
    want = [_nearest_f32(e) if dtype == np.float32 else float(e) for e in exact]
    np.testing.assert_array_equal(got, np.array(want, dtype))
    assert (got != (a * b + c)).sum() > 100          # the unfused answer is a different one


def _directed_f32(exact: Fraction, mode: str) -> np.float32:
    """The float32 next to ``exact`` on the mode's side (exact: itself)."""
    v = np.float32(float(exact))
    near = [np.nextafter(v, np.float32(-np.inf)), v, np.nextafter(v, np.float32(np.inf))]
    down = max(x for x in near if Fraction(float(x)) <= exact)
    up = min(x for x in near if Fraction(float(x)) >= exact)
    return {"rm": down, "rp": up, "rz": down if exact > 0 else up}[mode]


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_fma_f32_directed_rounding(mode):
    from simt.ir.mir import Op
    from simt.sim import mathlib
    rng = np.random.default_rng(6)
    a, b, c = (rng.standard_normal(400).astype(np.float32) for _ in range(3))
    got = mathlib.ufunc(Op.FMA, np.float32, mode)(a, b, c)
    checked = 0
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        if Fraction(float(x) * float(y) + float(z)) != exact:
            continue              # the definition is exact where the sum fits a double
        assert g == _directed_f32(exact, mode), (x, y, z)
        checked += 1
    assert checked > 300


# --- errors: the same on both engines --------------------------------------------------------

OOB = r"""
extern "C" __global__ void shifted(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i + 1] = a[i];      // the last thread writes one past the end
}
"""


@needs_nvcc
def test_out_of_bounds_pointer_is_the_same_error_on_every_cpu_engine():
    k = simt.from_cuda(OOB, "shifted")
    messages = []
    a, b = simt.array(np.ones(64, np.float32)), simt.zeros(64)
    for device in ("cpu:precise", "cpu"):
        with pytest.raises(OutOfBoundsError) as e:
            simt.launch(k, grid=2, block=32, inputs=[a, b, 64], device=device)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert "out-of-bounds global write of 4 bytes" in messages[0] and "0 bytes past its end" in messages[0]
    assert "threadIdx (x=31" in messages[0] and "blockIdx (x=1" in messages[0]
    ok = simt.zeros(65)
    simt.launch(k, grid=2, block=32, inputs=[simt.array(np.ones(64, np.float32)), ok, 64], device="cpu")
    np.testing.assert_array_equal(ok.numpy(), [0] + [1] * 64)


# --- check= sanitizers on pointer accesses ---------------------------------------------------

RACE = r"""
extern "C" __global__ void rotate(const float* in, float* out, int sync) {
    __shared__ float s[64];
    s[threadIdx.x] = in[threadIdx.x];
    if (sync) __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 32) % 64];   // the other warp's value
}
"""


@needs_nvcc
@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_racecheck_finds_a_missing_syncthreads_in_cuda_c(device):
    k = simt.from_cuda(RACE, "rotate")
    x = np.arange(64, dtype=np.float32)
    out = simt.zeros(64)
    r = simt.launch(k, grid=1, block=64, inputs=[simt.array(x), out, 0], device=device, check="race")
    h = r.hazards
    assert len(h) and set(h.check) == {"race"} and set(h.space) == {"shared"}
    assert set(h.kind) & {"RAW", "WAR"}
    assert 6 in set(h.line) and 4 in set(h.other_line)      # the lines of the .cu source
    r = simt.launch(k, grid=1, block=64, inputs=[simt.array(x), out, 1], device=device, check="race")
    assert r.hazards.empty
    np.testing.assert_array_equal(out.numpy(), np.roll(x, -32))


INIT = r"""
extern "C" __global__ void gather(const float* in, float* out) {
    out[threadIdx.x] = in[threadIdx.x] + 1.0f;
}
"""


@needs_nvcc
def test_initcheck_sees_reads_of_unwritten_simt_empty_memory():
    k = simt.from_cuda(INIT, "gather")
    src, out = simt.empty(32, dtype=simt.float32), simt.zeros(32)
    r = simt.launch(k, grid=1, block=32, inputs=[src, out], device="cpu:precise", check="init")
    assert list(r.hazards.check) == ["init"] and r.hazards["count"].iloc[0] == 32
    written = simt.array(np.ones(32, np.float32))
    r = simt.launch(k, grid=1, block=32, inputs=[written, out], device="cpu:precise", check="init")
    assert r.hazards.empty


# --- dynamic shared memory and calls -----------------------------------------------------------

DYNAMIC = r"""
extern "C" __global__ void reverse_block(const int* in, int* out) {
    extern __shared__ int s[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    s[t] = in[base + t];
    __syncthreads();
    out[base + t] = s[blockDim.x - 1 - t];
}
"""


@needs_nvcc
@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_dynamic_shared_memory_sized_at_launch(device):
    k = simt.from_cuda(DYNAMIC, "reverse_block")
    x = np.random.default_rng(3).integers(-99, 99, 3 * 96).astype(np.int32)
    out = simt.zeros(x.size, dtype=simt.int32)
    simt.launch(k, grid=3, block=96, inputs=[simt.array(x), out], device=device, shared_bytes=96 * 4)
    np.testing.assert_array_equal(out.numpy(), x.reshape(3, 96)[:, ::-1].ravel())
    with pytest.raises(OutOfBoundsError, match="out-of-bounds shared write"):   # too little of it
        simt.launch(k, grid=3, block=96, inputs=[simt.array(x), out], device=device, shared_bytes=64 * 4)


@needs_nvcc
def test_shared_bytes_is_refused_where_it_means_nothing():
    k = simt.from_cuda(INIT, "gather")
    a = simt.zeros(32)
    with pytest.raises(LaunchError, match="no dynamic shared memory"):
        simt.launch(k, grid=1, block=32, inputs=[a, a], shared_bytes=128)
    with pytest.raises(LaunchError, match="shared_bytes must be a non-negative int"):
        simt.launch(simt.from_cuda(DYNAMIC, "reverse_block"), grid=1, block=32, inputs=[a, a],
                    shared_bytes=-4)


@needs_nvcc
@pytest.mark.parametrize("device", ["cpu", "cpu:precise"])
def test_a_call_nvcc_did_not_inline_runs_inlined(device):
    src = r"""
    __device__ __noinline__ float twice(float x) { return 2.0f * x; }
    extern "C" __global__ void use(float* a) { a[threadIdx.x] = twice(a[threadIdx.x]) + 1.0f; }
    """
    k = simt.from_cuda(src, "use")
    a = simt.array(np.arange(32, dtype=np.float32))
    simt.launch(k, grid=1, block=32, inputs=[a], device=device)
    assert np.array_equal(a.numpy(), 2.0 * np.arange(32, dtype=np.float32) + 1.0)


# --- line info ----------------------------------------------------------------------------------

LOOP = r"""
extern "C" __global__ void steps(int* out, int n) {
    int acc = 0;
    for (int k = 0; k < n; ++k)
        acc += k * threadIdx.x;
    out[threadIdx.x] = acc;
}
"""


@needs_nvcc
def test_lines_point_at_the_cuda_source_lines():
    k = simt.from_cuda(LOOP, "steps")
    out = simt.zeros(32, dtype=simt.int32)
    counts = []
    for n in (40, 80):
        r = simt.launch(k, grid=1, block=32, inputs=[out, n], device="cpu:precise")
        np.testing.assert_array_equal(out.numpy(), np.arange(32) * sum(range(n)))
        lines = r.lines
        by_line = dict(zip(lines["line"], lines["source"]))
        assert "acc += k * threadIdx.x;" in by_line[5] and "out[threadIdx.x] = acc;" in by_line[6]
        counts.append(dict(zip(lines["line"], lines["inst_executed"])))
    # the loop body's line runs twice as often for twice the trips; the store's line does not
    assert counts[1][5] >= 1.8 * counts[0][5] and counts[1][6] == counts[0][6]


# --- the GPU: the PTX as it is -------------------------------------------------------------------

GPU_CASES = CASES


@pytest.mark.simt_gpu
@pytest.mark.parametrize("case", GPU_CASES, ids=[c[1] for c in GPU_CASES])
def test_cuda_runs_the_ptx_and_matches_cpu_precise(case):
    exact = case[6]
    gpu, cpu = run_case(case, "cuda:0"), run_case(case, "cpu:precise")
    if case[1] == "atomics":
        # thread t's atomicCAS(&m[3], t, t + 1) succeeds only after thread t - 1's: how far the
        # chain gets depends on the order atomics land, so check it against the threads'
        # own outputs (cas_out[t] == t where thread t's CAS succeeded) instead
        for m, cas_out in ((gpu[0], gpu[2]), (cpu[0], cpu[2])):
            assert m[3] == np.count_nonzero(cas_out == np.arange(cas_out.size))
        gpu, cpu = [gpu[0][:3], gpu[1]], [cpu[0][:3], cpu[1]]
    for g, c in zip(gpu, cpu):
        if exact:
            assert g.tobytes() == c.tobytes()
        elif g.dtype.kind == "f":      # the GPU's own approximations, or float atomics' order
            np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)
        else:                          # atomics' order: the same values, in another order
            np.testing.assert_array_equal(np.sort(g), np.sort(c))


@pytest.mark.simt_gpu
def test_cuda_dynamic_shared_memory():
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    k = simt.from_cuda(DYNAMIC, "reverse_block")
    x = np.arange(2 * 128, dtype=np.int32)
    out = simt.zeros(x.size, dtype=simt.int32, device="cuda:0")
    simt.launch(k, grid=2, block=128, inputs=[simt.array(x, device="cuda:0"), out], device="cuda:0",
                shared_bytes=128 * 4)
    np.testing.assert_array_equal(out.numpy(), x.reshape(2, 128)[:, ::-1].ravel())
