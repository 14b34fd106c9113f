"""Numba-CUDA and Triton kernels (and the hand-written PTX of tests/ptx_corpus/isa_extras.ptx)
run on a GPU exactly as their compilers made them, against the same PTX imported into simt
and run on cpu:precise: are the outputs the same bits?

    PYTHONPATH=. python3 benchmarks/gpu_frontends_check.py [--out benchmarks/results/gpu_frontends_check.txt]

Needs a GPU (sm_90 for isa_extras.ptx), cuda-python, numba-cuda and Triton. Each kernel is
compiled once; the GPU gets the compiler's PTX through cuModuleLoadData and the parameter
values simt's launch passes (ImportedKernel.prepare_launch: Numba's array ABI, Triton's
scratch pointers, its dynamic shared memory). Exact math must agree bit for bit; mma's
sums may differ in the last bits (the tensor core's summation order is not specified), so
those rows report the largest difference instead.
"""
from __future__ import annotations

import argparse
import ctypes
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "ptx_corpus"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(CORPUS))

import simt  # noqa: E402
from simt.ir import bfloat16  # noqa: E402

DRIVER_PTX = "9.0"      # the PTX ISA of CUDA 13.0's driver (580.x)
_CTYPES = {"u8": ctypes.c_uint8, "s8": ctypes.c_int8, "b8": ctypes.c_uint8,
           "u16": ctypes.c_uint16, "s16": ctypes.c_int16, "b16": ctypes.c_uint16,
           "u32": ctypes.c_uint32, "s32": ctypes.c_int32, "b32": ctypes.c_uint32,
           "u64": ctypes.c_uint64, "s64": ctypes.c_int64, "b64": ctypes.c_uint64,
           "f32": ctypes.c_float, "f64": ctypes.c_double}


def on_gpu(kernel, grid, block, inputs: list) -> None:
    """Launch the compiler's own PTX of ``kernel`` with simt's parameter values."""
    from simt.gpu import runtime
    values, grid, block = kernel.prepare_launch(list(inputs), grid, block)
    grid = tuple(grid) + (1,) * (3 - len(grid)) if isinstance(grid, tuple) else (grid, 1, 1)
    block = tuple(block) + (1,) * (3 - len(block)) if isinstance(block, tuple) else (block, 1, 1)
    packed = []
    for p, v in zip(kernel.entry.params, values):
        if isinstance(v, simt.array):
            packed.append(ctypes.c_uint64(v.ptr))
        else:
            raw = v.item() if hasattr(v, "item") else v
            packed.append(_CTYPES[p.type](raw))
    text = getattr(kernel, "ptx_text", None) or _ptx_of(kernel)
    try:
        module = runtime.load_module(text, 0, kernel.key)
    except simt.errors.DeviceError as e:
        # PTX from a newer compiler than this machine's driver: its .version lowered to the
        # driver's (the kernels here use nothing newer), said so in the output
        if "UNSUPPORTED_PTX_VERSION" not in str(e):
            raise
        old = re.search(r"^\.version\s+(\S+)", text, re.M).group(1)
        print(f"  ({kernel.key}: the driver does not take PTX ISA {old}; loading it as {DRIVER_PTX})")
        text = re.sub(r"^\.version\s+\S+", f".version {DRIVER_PTX}", text, count=1, flags=re.M)
        module = runtime.load_module(text, 0, kernel.key)
    function = runtime.get_function(module, kernel.entry.name, kernel.key)
    shared = getattr(kernel, "dynamic_shared_bytes", None) or 0
    runtime.launch_function(function, grid, block, packed, 0, kernel.key, shared_bytes=shared)
    runtime.synchronize(0)


def _ptx_of(kernel) -> str:
    path = Path(kernel.module.path)
    return path.read_text()


def both(make_kernel, grid, block, build, exact=True):
    """(gpu outputs, simt outputs, exact?) for inputs made by ``build(device)``."""
    k = make_kernel()
    gpu_inputs, gpu_outputs = build("cuda:0")
    on_gpu(k, grid, block, gpu_inputs)
    cpu_inputs, cpu_outputs = build("cpu")
    simt.launch(k, grid=grid, block=None if block is None else block, inputs=cpu_inputs,
                device="cpu:precise")
    return [o.numpy() for o in gpu_outputs], [o.numpy() for o in cpu_outputs], exact


def cases():
    import numba_kernels as nk
    import triton_kernels as tk

    def numba(name):
        def make():
            fn, sig = getattr(nk, name), nk.SIGNATURES[name]
            try:
                return simt.from_numba(fn, sig)
            except simt.errors.CompileError as e:   # this machine's numba-cuda cannot compile:
                if "numba-cuda could not compile" not in str(e):   # the corpus's PTX, made by
                    raise                                           # numba-cuda 0.30 (sm_80)
                print(f"  ({name}: {str(e).splitlines()[0][:90]}; using tests/ptx_corpus/numba/{name}_sm_80.ptx)")
                return simt.from_numba(fn, sig, ptx=CORPUS / "numba" / f"{name}_sm_80.ptx")
        return make

    def triton(name):
        sig, ce, opt = tk.KERNELS[name]
        return lambda: simt.from_triton(getattr(tk, name), sig, ce, **opt)

    rng = np.random.default_rng(0)
    x32, y32 = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    ints = rng.integers(-1000, 1000, 512).astype(np.int32)
    divs = (rng.integers(1, 50, 512) * rng.choice([-1, 1], 512)).astype(np.int32)
    h16 = (rng.standard_normal(512) * 8).astype(np.float16)
    bf = bfloat16.from_bits(bfloat16.to_bits(rng.standard_normal(512).astype(np.float32)))
    a16, b16 = rng.standard_normal((64, 96)).astype(np.float16), rng.standard_normal((96, 64)).astype(np.float16)
    words = [rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(3)]

    def arr(x, dev, dtype=None):
        return simt.array(x, dtype=dtype, device=dev)

    yield "numba axpy", numba("axpy"), 4, 256, lambda d: (
        lambda o: ([np.float32(1.5), arr(x32, d), arr(y32, d), o], [o]))(simt.zeros(1000, dtype=simt.float32, device=d)), True
    yield "numba transpose", numba("transpose"), (4, 2), (16, 16), lambda d: (
        lambda o: ([arr(x32[:960].reshape(30, 32), d), o], [o]))(simt.zeros((32, 30), dtype=simt.float32, device=d)), True
    yield "numba histogram", numba("histogram"), 2, 256, lambda d: (
        lambda o: ([arr(np.abs(ints), d), o], [o]))(simt.zeros(7, dtype=simt.int32, device=d)), True
    yield "numba int_ops", numba("int_ops"), 2, 256, lambda d: (
        lambda o: ([arr(ints, d), arr(divs, d), o], [o]))(simt.zeros((512, 5), dtype=simt.int32, device=d)), True
    yield "numba math_funcs (libdevice)", numba("math_funcs"), 1, 64, lambda d: (
        lambda o: ([arr(np.linspace(0.01, 40, 64, dtype=np.float32), d), o], [o]))(
        simt.zeros((64, 6), dtype=simt.float32, device=d)), False
    yield "triton add", triton("add_kernel"), (4,), None, lambda d: (
        lambda o: ([arr(x32, d), arr(y32, d), o, 1000], [o]))(simt.zeros(1000, dtype=simt.float32, device=d)), True
    yield "triton half (f16 mul, bf16 cvt)", triton("half_kernel"), (4,), None, lambda d: (
        lambda o: ([arr(h16, d), arr(bf, d, simt.bfloat16), o, 512], [o]))(simt.zeros(512, dtype=simt.float16, device=d)), True
    yield "triton fma.rn.f16", triton("half_fma_kernel"), (1,), None, lambda d: (
        lambda o: ([arr(h16, d), arr(h16[::-1].copy(), d), o, 512], [o]))(simt.zeros(512, dtype=simt.float16, device=d)), True
    yield "triton scan/argmax/atomics", triton("scan_argmax_kernel"), (1,), None, lambda d: (
        lambda c, i, h: ([arr(ints[:200], d), c, i, h, 200], [c, i, h]))(
        simt.zeros(200, dtype=simt.int32, device=d), simt.zeros(1, dtype=simt.int32, device=d),
        simt.zeros(8, dtype=simt.int32, device=d)), True
    yield "triton softmax (ex2.approx)", triton("softmax_kernel"), (4,), None, lambda d: (
        lambda o: ([o, arr(x32[:400].reshape(4, 100), d), 100, 100, 100], [o]))(
        simt.zeros((4, 100), dtype=simt.float32, device=d)), False
    yield "triton fp16 matmul (mma, ldmatrix)", triton("matmul_kernel"), (2, 2), None, lambda d: (
        lambda o: ([arr(a16, d), arr(b16, d), o, 64, 64, 96, 96, 1, 64, 1, 64, 1], [o]))(
        simt.zeros((64, 64), dtype=simt.float32, device=d)), False
    yield "triton bf16 matmul (cp.async)", triton("matmul_pipelined"), (2, 2), None, lambda d: (
        lambda o: ([arr(a16.astype(np.float32), d, simt.bfloat16), arr(b16.astype(np.float32), d, simt.bfloat16),
                    o, 64, 64, 96, 96, 64, 64], [o]))(simt.zeros((64, 64), dtype=simt.float32, device=d)), False
    extras = CORPUS / "isa_extras.ptx"
    yield "ptx prmt/lop3/carry", lambda: simt.from_ptx(extras, "bits"), 1, 64, lambda d: (
        lambda o: ([*(arr(w, d) for w in words), o], [o]))(simt.zeros(64 * 6, dtype=simt.uint32, device=d)), True
    yield "ptx redux/elect/vote.uni", lambda: simt.from_ptx(extras, "warp"), 1, 64, lambda d: (
        lambda o: ([arr(ints[:64], d), o], [o]))(simt.zeros(64 * 5, dtype=simt.uint32, device=d)), True
    yield "ptx ldmatrix/stmatrix x1/x2/trans", lambda: simt.from_ptx(extras, "ldm"), 1, 32, lambda d: (
        lambda o, b: ([o, b], [o, b]))(simt.zeros(32 * 5, dtype=simt.uint32, device=d),
                                       simt.zeros(96, dtype=simt.uint32, device=d)), True
    yield "triton tf32 dot (mma m16n8k8)", triton("dot_tile"), (1,), None, lambda d: (
        lambda o: ([arr(x32[:512].reshape(32, 16), d), arr(y32[:512].reshape(16, 32), d), o], [o]))(
        simt.zeros((32, 32), dtype=simt.float32, device=d)), False
    yield "ptx cp.async zero-fill/ignore-src", lambda: simt.from_ptx(extras, "async"), 1, 32, lambda d: (
        lambda o: ([arr(np.arange(1, 513, dtype=np.uint8), d), o], [o]))(simt.zeros(160, dtype=simt.uint32, device=d)), True
    hx = rng.standard_normal(128).astype(np.float16).view(np.uint16).view(np.uint32)
    hy = rng.standard_normal(128).astype(np.float16).view(np.uint16).view(np.uint32)
    yield "ptx f16x2/bf16x2", lambda: simt.from_ptx(extras, "halves"), 1, 64, lambda d: (
        lambda o: ([arr(hx, d), arr(hy, d), arr(x32[:64] * 100, d), arr(y32[:64], d), o], [o]))(
        simt.zeros(64 * 10, dtype=simt.uint32, device=d)), True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="also write the table to this file")
    ap.add_argument("--only", default="", help="run only the kernels whose name contains one of these "
                                               "comma-separated words")
    args = ap.parse_args()
    words = [w for w in args.only.split(",") if w]
    rows = ["| kernel | outputs bitwise equal | largest difference | expected equal |", "|---|---|---|---|"]
    print("\n".join(rows), flush=True)
    failures = 0
    for name, make, grid, block, build, exact in cases():
        if words and not any(w in name for w in words):
            continue
        if len(rows) > 2:
            print(rows[-1], flush=True)          # as it goes: a slow or stuck case shows
        try:
            gpu, cpu, _ = both(make, grid, block, build, exact)
        except Exception as e:  # noqa: BLE001 - report and go on
            rows.append(f"| {name} | error: {type(e).__name__}: {str(e)[:120]} | | {exact} |")
            failures += 1
            continue
        same = all(g.tobytes() == c.tobytes() for g, c in zip(gpu, cpu))
        diff = max(float(np.max(np.abs(g.astype(np.float64) - c.astype(np.float64)))) if g.dtype.kind in "fiu"
                   else 0.0 for g, c in zip(gpu, cpu))
        failures += exact and not same
        rows.append(f"| {name} | {same} | {diff:.3g} | {exact} |")
    text = "\n".join(rows) + f"\n\n{failures} kernels expected bitwise equal that are not\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
