"""Imported kernels' checks proven once per block from the flow of a thread (simt/sim/fast/flow.py,
bounds.py): registers that PTX redefines (a grid-stride loop's index), the loop guard that
bounds them, byte offsets summed over several adds, and grid-stride loops that run once. Each
shortcut must leave results and errors as cpu:precise has them."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import simt
from simt.errors import OutOfBoundsError
from simt.sim.fast import codegen

PTX = Path(__file__).resolve().parent / "ptx_corpus" / "kernels.ptx"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
DEVICES = ("cpu:precise", "cpu")


def _mir(kernel, pointers=None):
    return kernel.compile(frozenset(pointers if pointers is not None
                                    else (p for p, t in kernel.params if t == "u64")))


def _error(launch) -> OutOfBoundsError:
    with pytest.raises(OutOfBoundsError) as e:
        launch()
    return e.value


def test_saxpys_loop_accesses_are_checked_once_per_block_and_its_loop_can_run_once():
    gen = codegen._Generator(_mir(simt.from_ptx(PTX, "saxpy")))
    assert len(gen.hoisting.pointers) == 3         # x[i], y[i] and the store to y[i]
    assert len(gen.hoisting.latches) == 1          # the loop's back edge
    source = gen.run().source
    assert "if fast and loops_once:" in source and "elif fast:" in source


def test_matmuls_shared_tiles_are_checked_once_per_block():
    fn = _mir(simt.from_ptx(PTX, "matmul"))
    gen = codegen._Generator(fn)
    shared = {m.name for m in gen.hoisting.pointers.values() if m.space.value == "shared"}
    assert shared == {"_ZZ6matmulE2As", "_ZZ6matmulE2Bs"}
    # 2 stores and 2 * 16 loads of the tiles
    assert sum(m.space.value == "shared" for m in gen.hoisting.pointers.values()) == 34


@pytest.mark.parametrize("n, blocks", [(4096, 16), (1000, 4), (4096, 3), (1000, 1), (5, 2)],
                         ids=["covered", "covered_partial", "strided", "strided_partial", "tiny"])
def test_saxpy_grid_stride_loop_gives_numpy_and_precise_bits(n, blocks):
    """Grids that cover n (each thread's loop runs at most once) and grids that do not (each
    thread goes round several times)."""
    k = simt.from_ptx(PTX, "saxpy")
    rng = np.random.default_rng(n + blocks)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = {}
    for device in DEVICES:
        ys = simt.array(y)
        simt.launch(k, grid=blocks, block=256, inputs=[n, 1.5, simt.array(x), ys], device=device)
        out[device] = ys.numpy()
    np.testing.assert_allclose(out["cpu"], np.float32(1.5) * x + y, rtol=1e-6)
    assert out["cpu"].tobytes() == out["cpu:precise"].tobytes()


@pytest.mark.parametrize("n, size, blocks", [(1000, 999, 4), (1000, 999, 1), (1024, 512, 4),
                                             (300, 299, 1)],
                         ids=["last_in_covering_grid", "last_in_loop", "half_in_covering_grid",
                              "second_round"])
def test_saxpy_with_n_past_the_arrays_raises_as_precise_does(n, size, blocks):
    """The loop guard bounds i by n, and n is past the arrays: the launch-time test fails,
    the checked copy runs and names the same thread, block, array and index."""
    k = simt.from_ptx(PTX, "saxpy")
    x = np.arange(size, dtype=np.float32)
    fast, precise = (_error(lambda d=d: simt.launch(k, grid=blocks, block=256,
                                                     inputs=[n, 2.0, simt.array(x), simt.zeros(size)],
                                                     device=d))
                     for d in ("cpu", "cpu:precise"))
    assert str(fast) == str(precise)
    assert "saxpy_param_2" in str(fast) or "x" in str(fast)


def test_repeat_launches_keep_checking():
    """The second launch of the same geometry binds its arguments again (ptx_import/repeat.py):
    an array too short for n still raises, and a good one still gives numpy's result."""
    k = simt.from_ptx(PTX, "saxpy")
    x = np.arange(512, dtype=np.float32)
    y = simt.zeros(512)
    for _ in range(2):
        simt.launch(k, grid=2, block=256, inputs=[512, 2.0, simt.array(x), y], device="cpu")
    np.testing.assert_array_equal(y.numpy(), 4 * x)
    fast = _error(lambda: simt.launch(k, grid=2, block=256, inputs=[512, 2.0, simt.array(x[:500]), y],
                                      device="cpu"))
    precise = _error(lambda: simt.launch(k, grid=2, block=256,
                                         inputs=[512, 2.0, simt.array(x[:500]), y], device="cpu:precise"))
    assert str(fast) == str(precise)


STRIDED = r"""
extern "C" __global__ void shifted_loop(const float* x, float* y, int n, int shift) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i + shift] = 2.0f * x[i];
}
extern "C" __global__ void redefined(const float* x, float* y, int n, int far) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int j = i;
    if (x[i] > 0.5f) j = far;
    y[j] = x[i];
}
extern "C" __global__ void tile(float* out, int stride) {
    __shared__ float s[64];
    s[threadIdx.x * stride] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
"""


@needs_nvcc
@pytest.mark.parametrize("shift, blocks", [(0, 4), (1, 4), (1, 1), (-1, 1), (0, 1)],
                         ids=["in_range", "past_end_covering", "past_end_looping", "before_start",
                              "in_range_looping"])
def test_an_access_past_the_guard_inside_a_grid_stride_loop(shift, blocks):
    """``y[i + shift]`` with ``i < n = len(y)``: in range for shift 0 only; the guard bounds
    i, not i + shift, so the checks must stay (or fail their block-wide test) elsewhere."""
    k = simt.from_cuda(STRIDED, "shifted_loop")
    n = 1000
    x = np.arange(n, dtype=np.float32)
    if shift == 0:
        for device in DEVICES:
            y = simt.zeros(n)
            simt.launch(k, grid=blocks, block=256, inputs=[simt.array(x), y, n, shift], device=device)
            np.testing.assert_array_equal(y.numpy(), 2 * x)
        return
    fast, precise = (_error(lambda d=d: simt.launch(k, grid=blocks, block=256,
                                                     inputs=[simt.array(x), simt.zeros(n), n,
                                                             shift % 2**32],
                                                     device=d))
                     for d in DEVICES)
    assert str(fast) == str(precise)


@needs_nvcc
@pytest.mark.parametrize("far", [5, 256, 10**6])
def test_a_register_written_on_two_paths_is_bounded_by_both(far):
    k = simt.from_cuda(STRIDED, "redefined")
    n = 256
    x = np.linspace(0, 1, n, dtype=np.float32)
    outs = {}
    errors = {}
    for device in DEVICES:
        y = simt.zeros(n)
        try:
            simt.launch(k, grid=2, block=128, inputs=[simt.array(x), y, n, far], device=device)
            outs[device] = y.numpy()
        except OutOfBoundsError as e:
            errors[device] = str(e)
    if far < n:
        assert outs["cpu"].tobytes() == outs["cpu:precise"].tobytes()
        assert outs["cpu"][far] == x[-1]
    else:
        assert errors["cpu"] == errors["cpu:precise"]


@needs_nvcc
@pytest.mark.parametrize("stride, threads", [(1, 64), (1, 32), (2, 32), (2, 33), (1, 65)])
def test_shared_offsets_in_range_from_the_block_size_alone(stride, threads):
    """``s[tid * stride]`` in a 64-float tile: in range while threads * stride <= 64."""
    k = simt.from_cuda(STRIDED, "tile")
    outs, errors = {}, {}
    for device in DEVICES:
        out = simt.zeros(2 * threads)
        try:
            simt.launch(k, grid=2, block=threads, inputs=[out, stride], device=device)
            outs[device] = out.numpy()
        except OutOfBoundsError as e:
            errors[device] = str(e)
    if threads * stride <= 64:
        want = np.zeros(64, np.float32)
        want[np.arange(threads) * stride] = np.arange(threads)
        tid = np.arange(threads)
        expect = np.tile(want[(tid + 1) % threads], 2)
        np.testing.assert_array_equal(outs["cpu"], expect)
        assert outs["cpu"].tobytes() == outs["cpu:precise"].tobytes()
    else:
        assert errors["cpu"] == errors["cpu:precise"]


ROUNDS = r"""
extern "C" __global__ void rounds(const int* in, int* out, int k) {
    __shared__ int s[128];
    int t = threadIdx.x;
    int base = blockIdx.x * 1000 + t;
    int same = (blockIdx.x + 3) * k;             // one value in the whole block
    int acc = in[blockIdx.x * blockDim.x + t];
    for (int r = 0; r < k; ++r) {
        s[t] = acc;
        __syncthreads();
        acc += s[(t + 1) % blockDim.x];
        int v = __shfl_down_sync(0xffffffff, acc, 1);
        if ((t & 1) == 0) acc ^= v;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = acc + base + same;
}
"""


def _rounds_oracle(x: np.ndarray, blocks: int, threads: int, k: int) -> np.ndarray:
    out = np.zeros_like(x)
    t = np.arange(threads)
    for b in range(blocks):
        acc = x[b * threads:(b + 1) * threads].astype(np.int64)
        for _ in range(k):
            acc = (acc + np.roll(acc, -1)).astype(np.int32).astype(np.int64)
            lane = t % 32
            src = np.where(lane + 1 < 32, t + 1, t)          # shfl_down by 1 within each warp
            v = acc[np.minimum(src, threads - 1)]
            acc = np.where(t % 2 == 0, acc ^ v, acc)
        out[b * threads:(b + 1) * threads] = (acc + b * 1000 + t + (b + 3) * k).astype(np.int32)
    return out


@needs_nvcc
@pytest.mark.parametrize("k", [0, 1, 3])
def test_registers_kept_across_barriers_and_shuffles_in_a_loop(k):
    """Registers written before the loop live in their slots from where they are written,
    block-uniform ones in variables all threads share; the loop's own are saved at each
    suspension: every round sees the values it should."""
    kern = simt.from_cuda(ROUNDS, "rounds")
    blocks, threads = 3, 128
    x = np.random.default_rng(k).integers(-1000, 1000, blocks * threads).astype(np.int32)
    outs = {}
    for device in DEVICES:
        out = simt.zeros(blocks * threads, dtype=simt.int32)
        simt.launch(kern, grid=blocks, block=threads, inputs=[simt.array(x), out, k], device=device)
        outs[device] = out.numpy()
    np.testing.assert_array_equal(outs["cpu"], _rounds_oracle(x, blocks, threads, k))
    np.testing.assert_array_equal(outs["cpu"], outs["cpu:precise"])


WRAPPING = r"""
extern "C" __global__ void wrapping_step(unsigned char* y, int n, int step) {
    int i = threadIdx.x;
    while (true) {
        i += step;
        if (i < n) y[i] = 1;
        else break;
        if (step == 0) break;
    }
}
"""


@needs_nvcc
@pytest.mark.parametrize("step", [1000, 2**31 - 16], ids=["leaves", "wraps_below_zero"])
def test_a_step_that_can_wrap_gives_no_lower_bound(step):
    """``i += step`` with no guard before it: a large step wraps i negative, and ``i < n``
    then holds; the access must stay checked and report what cpu:precise does (bytes: the
    index is the offset, with no multiply to reorder an empty interval's ends)."""
    k = simt.from_cuda(WRAPPING, "wrapping_step")
    n = 64
    outs, errors = {}, {}
    for device in DEVICES:
        y = simt.zeros(n, dtype=simt.uint8)
        try:
            simt.launch(k, grid=1, block=32, inputs=[y, n, step], device=device)
            outs[device] = y.numpy()
        except OutOfBoundsError as e:
            errors[device] = str(e)
    if step == 1000:
        np.testing.assert_array_equal(outs["cpu"], np.zeros(n, np.uint8))
    else:
        assert "cpu" in errors and errors["cpu"] == errors["cpu:precise"]


def test_a_repeat_launch_with_other_arguments_takes_the_full_path():
    """What the bound launcher does not bind (another array type, a value out of its
    parameter's range, a float for an int) goes through the full path and its errors; new
    arrays in other places give their own results."""
    from simt.errors import LaunchError
    k = simt.from_ptx(PTX, "vadd")

    def run(a, b, n, device="cpu"):
        c = simt.zeros(a.size if hasattr(a, "size") else 4)
        simt.launch(k, grid=1, block=64, inputs=[a, b, c, n], device=device)
        return c.numpy()

    x = np.arange(64, dtype=np.float32)
    for _ in range(2):
        np.testing.assert_array_equal(run(simt.array(x), simt.array(x), 64), 2 * x)
    other = np.arange(64, 128, dtype=np.float32)
    np.testing.assert_array_equal(run(simt.array(other), simt.array(x), 64), other + x)
    for bad in (2**32, 1.5, -1):
        errors = []
        for device in ("cpu", "cpu:precise"):
            try:
                run(simt.array(x), simt.array(x), bad, device)
                errors.append(None)
            except (LaunchError, OutOfBoundsError) as e:
                errors.append((type(e), str(e)))
        assert errors[0] == errors[1]
    # int32 arrays: the kernel reads their bytes as floats, as numpy's view does
    xi = np.arange(64, dtype=np.int32)
    ints = simt.array(xi)
    np.testing.assert_array_equal(run(ints, ints, 64), xi.view(np.float32) + xi.view(np.float32))


def test_generated_code_does_not_depend_on_the_hash_seed():
    """The flow analysis works with sets; the source it writes (and so the compiled code's
    cache entry) must come out the same in every process."""
    import os
    import subprocess
    import sys
    script = ("import hashlib, simt; from pathlib import Path; from simt.sim.fast import codegen\n"
              f"p = Path({str(PTX)!r})\n"
              "for name in ('saxpy', 'matmul'):\n"
              "    k = simt.from_ptx(p, name)\n"
              "    fn = k.compile(frozenset(q for q, t in k.params if t == 'u64'))\n"
              "    print(hashlib.sha1(codegen.generate(fn).source.encode()).hexdigest())\n")
    root = Path(__file__).resolve().parent.parent
    outs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}).stdout
            for seed in ("1", "2")]
    assert outs[0] == outs[1] and len(outs[0].split()) == 2


def test_the_step_limit_holds_where_a_grid_stride_loop_runs_once(monkeypatch):
    """The copy for blocks whose loops run once has no step test in the loop; it is taken
    only where the limit is above every block a thread could run. Each limit gives the error
    (or none) that the code with the test in the loop gives."""
    from simt.errors import StepLimitError
    n = 512
    x = np.arange(n, dtype=np.float32)

    def outcomes():
        k = simt.from_ptx(PTX, "saxpy")
        got = []
        for limit in range(0, 9):
            y = simt.zeros(n)
            try:
                simt.launch(k, grid=2, block=256, inputs=[n, 2.0, simt.array(x), y], device="cpu",
                            max_steps=limit)
                np.testing.assert_array_equal(y.numpy(), 2 * x)
                got.append(None)
            except StepLimitError as e:
                got.append(str(e).splitlines()[0])
        return got

    once = outcomes()
    monkeypatch.setattr(codegen._Generator, "_all_once", lambda self: False)
    assert once == outcomes()
    assert once[0] is not None and once[-1] is None      # the limit bites, and lets go


def test_repeat_launches_bind_the_arrays_given_and_let_go_of_them():
    """A repeat launch keeps the last launch's arrays bound: the same arrays in other places
    bind afresh, and arrays the program drops are not kept alive by the kernel."""
    import gc
    import weakref
    k = simt.from_ptx(PTX, "vadd")
    x = np.arange(64, dtype=np.float32)
    a, b, c = simt.array(x), simt.array(2 * x), simt.zeros(64)
    for _ in range(2):
        simt.launch(k, grid=1, block=64, inputs=[a, b, c, 64], device="cpu")
        np.testing.assert_array_equal(c.numpy(), 3 * x)
    simt.launch(k, grid=1, block=64, inputs=[a, a, b, 64], device="cpu")    # other places
    np.testing.assert_array_equal(b.numpy(), 2 * x)
    simt.launch(k, grid=1, block=64, inputs=[c, b, a, 64], device="cpu")
    np.testing.assert_array_equal(a.numpy(), 5 * x)
    gone = weakref.ref(c._buffer)
    del c
    gc.collect()
    assert gone() is None
