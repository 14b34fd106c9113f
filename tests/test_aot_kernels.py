"""Kernels and helpers for tests/test_aot.py and tests/test_aot_gpu.py (no tests here).

The kernels cover the ops the suite's kernels leave out: every integer width wrapping,
shifts past the width, saturating conversions, the math library, float16 and bfloat16,
votes and shuffles, atomics whose old value is used, a scan with barriers. The helpers
compile tests/test_aot_driver.cpp (a C++ program against simt/runtime.hpp) and run a launch
through it.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np

import simt as wp
from simt.suite.case import ArrayInput, ScalarInput

HERE = Path(__file__).resolve().parent
DRIVER_SOURCE = HERE / "test_aot_driver.cpp"


def compile_driver(out: Path) -> Path:
    """The C++ driver, built with g++ and the flags ``python -m simt config`` prints."""
    from simt import runtime
    exe = out / "aot_driver"
    cmd = [shutil.which("g++"), "-std=c++17", "-O0", "-Wall", "-Werror", *runtime.cflags(),
           str(DRIVER_SOURCE), "-o", str(exe), *runtime.libs()]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return exe


def run_driver(driver: Path, device: str, build_dir: Path, inputs: list, dim, block_dim, tmp: Path,
               block_override: int = 0) -> dict[str, np.ndarray]:
    """Every array argument after the launch, as the C++ program saw it ({name: array})."""
    return _run(driver, device, build_dir, inputs, dim, tmp, block_override)[0]


def run_driver_stdout(driver: Path, device: str, build_dir: Path, inputs: list, dim, block_dim,
                      tmp: Path) -> str:
    """What the launch printed."""
    return _run(driver, device, build_dir, inputs, dim, tmp, 0)[1]


def _run(driver: Path, device: str, build_dir: Path, inputs: list, dim, tmp: Path, block_override: int):
    manifest = json.loads((build_dir / "manifest.json").read_text())
    dims = dim if isinstance(dim, tuple) else (dim,)
    lines = [f"device {device}", f"kernel {manifest['kernel']} {build_dir}",
             "dim " + " ".join(str(d) for d in dims), f"block {block_override}"]
    arrays = {}
    for param, arg in zip(manifest["params"], inputs):
        if isinstance(arg, ScalarInput):
            value = np.asarray(arg.value)
            lines.append(f"scalar {value.dtype.name} {value.tobytes().hex()}")
        else:
            path = tmp / f"{arg.name}.bin"
            np.ascontiguousarray(arg.data).tofile(path)
            shape = arg.data.shape[:param["ndim"]]
            lines.append(f"array {arg.data.dtype.name} {len(shape)} {' '.join(map(str, shape))} {path}")
            arrays[arg.name] = (path, arg.data)
    job = tmp / "job.txt"
    job.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([str(driver), "run", str(job)], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"driver failed ({proc.returncode}): {proc.stderr.strip()}")
    return ({name: np.fromfile(f"{path}.out", dtype=data.dtype).reshape(data.shape)
             for name, (path, data) in arrays.items()}, proc.stdout)


def engine_outputs(kernel, inputs: list, dim, block_dim, device: str) -> dict[str, np.ndarray]:
    """Every array argument after a launch with simt.launch on ``device``."""
    from simt.suite.case import to_launch_args
    args = to_launch_args(inputs, wp, device)
    wp.launch(kernel, dim, inputs=args, block_dim=block_dim, device=device)
    return {a.name: arg.numpy().copy() for a, arg in zip(inputs, args) if isinstance(a, ArrayInput)}


def differing(a: dict, b: dict) -> list[str]:
    """Names whose arrays differ in any bit."""
    return [n for n in a if a[n].tobytes() != b[n].tobytes()]


def array_input(name: str, data: np.ndarray) -> ArrayInput:
    return ArrayInput(name, data, data.dtype.name)


def extra_cases(n: int = 256, seed: int = 5) -> dict:
    """{kernel name: (inputs, dim, block_dim)} for the kernels below."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a[:4] = [-2**31, 2**31 - 1, -1, 0]
    b = rng.integers(-300, 300, n).astype(np.int32)
    b[:6] = [-1, -1, 0, 7, 0, -3]
    x = (rng.standard_normal(n) * 10).astype(np.float32)
    y = (rng.standard_normal(n) * 5).astype(np.float32)
    y[3] = 0.0
    x[5] = np.nan
    ai = array_input
    z = np.zeros
    return {
        "int_wrap": ([ai("a", a), ai("b", b), ai("o32", z(n, np.int32)), ai("o8", z(n, np.int8)),
                      ai("ou8", z(n, np.uint8)), ai("o64", z(n, np.int64)), ai("ou32", z(n, np.uint32))], n, 64),
        "float_math": ([ai("x", x), ai("y", y), ai("out", z(n, np.float32)), ai("ints", z(n, np.int32)),
                        ai("d", z(n, np.float64))], n, 64),
        "half_types": ([ai("x", x * 1000), ai("h", z(n, np.float16)), ai("out", z(n, np.float32))], n, 64),
        "warp_votes": ([ai("x", b), ai("ballots", z(n, np.uint32)), ai("flags", z(n, np.int32)),
                        ai("moved", z(n, np.int32))], n, 64),
        "atomics_used": ([ai("x", b), ai("counter", np.array([0, 1000], np.int32)), ai("slots", z(n, np.int32)),
                          ai("fsum", z(3, np.float32)), ai("fmax", np.full(1, -1e9, np.float32))], n, 64),
        "shared_scan": ([ai("x", x), ai("out", z(n, np.float32)), ai("sums", z(1, np.float32))], n, 128),
    }


@wp.kernel
def int_wrap(a: wp.array(dtype=wp.int32), b: wp.array(dtype=wp.int32), out32: wp.array(dtype=wp.int32),
             out8: wp.array(dtype=wp.int8), outu8: wp.array(dtype=wp.uint8), out64: wp.array(dtype=wp.int64),
             outu32: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out32[i] = x * y + x / y - x % y + (x << (y & 40)) + (x >> (y & 37)) + wp.min(x, y) - wp.abs(x)
    s = wp.int8(x)
    t = wp.int8(y)
    out8[i] = s * t + s / t - s % t - s
    u = wp.uint8(x)
    v = wp.uint8(y)
    outu8[i] = u * v + u / v + u % v - (u >> wp.uint8(3))
    p = wp.int64(x) * wp.int64(2147483647) * wp.int64(y)
    out64[i] = p + p / wp.int64(y) + (p << wp.int64(y & 70))
    m = wp.uint32(x)
    n = wp.uint32(y)
    outu32[i] = m * n + m / n + m % n + (m >> (n & wp.uint32(35))) + ~m


@wp.kernel
def float_math(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float),
               ints: wp.array(dtype=wp.int32), d: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    w = y[i]
    r = wp.sin(v) + wp.cos(w) * wp.tan(v * 0.5) + wp.exp(v * 0.1) - wp.log(wp.abs(w) + 1.0)
    r = r + wp.atan2(v, w) + wp.pow(wp.abs(v), 0.37) + wp.sqrt(wp.abs(w)) + wp.cbrt(v)
    r = r + wp.tanh(v) + wp.sinh(w * 0.1) + wp.asin(wp.clamp(v * 0.1, -1.0, 1.0)) + wp.erf(w)
    r = r + wp.erfinv(wp.clamp(v * 0.09, -0.99, 0.99)) + wp.floor(v) + wp.ceil(w) + wp.round(v)
    r = r + wp.rint(w) + wp.trunc(v) + wp.min(v, w) * wp.max(v, w) + v / w + wp.mod(v, w)
    out[i] = r + wp.log2(wp.abs(v) + 2.0) + wp.exp(w * 0.3) + wp.log10(wp.abs(w) + 3.0)
    ints[i] = wp.int32(v * 1.0e9) + wp.int32(w)
    dv = wp.float64(v)
    d[i] = wp.sin(dv) * wp.exp(dv * wp.float64(0.25)) + wp.sqrt(wp.abs(dv)) / wp.float64(w)


@wp.kernel
def half_types(x: wp.array(dtype=float), h: wp.array(dtype=wp.float16), out: wp.array(dtype=float)):
    i = wp.tid()
    a = wp.float16(x[i])
    h[i] = a
    out[i] = float(h[i]) * 2.0 + float(wp.bfloat16(x[i]))


@wp.kernel
def warp_votes(x: wp.array(dtype=wp.int32), ballots: wp.array(dtype=wp.uint32),
               flags: wp.array(dtype=wp.int32), moved: wp.array(dtype=wp.int32)):
    i = wp.tid()
    v = x[i]
    b = wp.ballot_sync(wp.uint32(0xFFFFFFFF), v > 0)
    ballots[i] = b
    f = 0
    if wp.any_sync(wp.uint32(0xFFFFFFFF), v > 90):
        f = f + 1
    if wp.all_sync(wp.uint32(0xFFFFFFFF), v > -200):
        f = f + 2
    flags[i] = f
    moved[i] = wp.shfl_xor_sync(wp.uint32(0xFFFFFFFF), v, 5) + wp.shfl_up_sync(wp.uint32(0xFFFFFFFF), v, 3) \
        + wp.shfl_sync(wp.uint32(0xFFFFFFFF), v, 7)


@wp.kernel
def atomics_used(x: wp.array(dtype=wp.int32), counter: wp.array(dtype=wp.int32),
                 slots: wp.array(dtype=wp.int32), fsum: wp.array(dtype=float), fmax: wp.array(dtype=float)):
    i = wp.tid()
    k = wp.atomic_add(counter, 0, 1)
    slots[k] = x[i]
    wp.atomic_add(fsum, i % 3, float(x[i]) * 0.1)
    wp.atomic_max(fmax, 0, float(x[i]) * 0.5)
    wp.atomic_min(counter, 1, x[i])


@wp.kernel
def shared_scan(x: wp.array(dtype=float), out: wp.array(dtype=float), sums: wp.array(dtype=float)):
    buf = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    buf[t] = x[i]
    wp.sync_threads()
    offset = int(1)
    while offset < 128:
        v = float(0.0)
        if t >= offset:
            v = buf[t - offset]
        wp.sync_threads()
        buf[t] = buf[t] + v
        wp.sync_threads()
        offset = offset * 2
    out[i] = buf[t]
    wp.atomic_add(sums, 0, buf[t] * 0.001)
    v2 = wp.shfl_down_sync(wp.uint32(0xFFFFFFFF), buf[t], 1)
    out[i] = out[i] + v2 * 0.0


def _saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def saxpy_like():
    """A kernel named 'saxpy' (the bad-call checks name it)."""
    return wp.kernel(_saxpy, name="saxpy")


@wp.kernel
def saxpy_cli(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def reads_past_end(src: wp.array(dtype=wp.int32), dst: wp.array(dtype=wp.int32)):
    i = wp.tid()
    dst[i] = src[i + 1]


def _fill_1(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = 100 + i


def _fill_2(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = 200 + i


def fill_version(version: int):
    """Two kernels named 'fill' that write version * 100 + i."""
    return wp.kernel({1: _fill_1, 2: _fill_2}[version], name="fill")


@wp.kernel
def prints(x: wp.array(dtype=float), n: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.printf("%d: %5.2f %e %g|%x %u %+i %c%% %08.3f\n", i, x[i], x[i], x[i], n[i], n[i], n[i], 65 + i * 50, x[i])
    print(x[i])


@wp.struct
class Material:
    tint: wp.mat22
    glossy: wp.bool
    weight: wp.float64
    level: wp.int8
    half: wp.float16


@wp.struct
class Body:
    position: wp.vec3
    mass: float
    id: wp.int32
    material: Material
    flags: wp.uint8


@wp.kernel
def struct_params(b: Body, scale: float, extra: Material, out: wp.array(dtype=float),
                  ids: wp.array(dtype=wp.int32)):
    i = wp.tid()
    x = float(i) * scale
    v = b.position * x
    m = b.material
    r = v[0] + v[1] * m.tint[0, 1] - v[2] * m.tint[1, 0] + b.mass / (x + 1.0) + m.tint[1, 1]
    if m.glossy:
        r = r + float(m.half)
    if extra.glossy:
        r = r * extra.tint[0, 0] + float(extra.half)
    out[i] = r + float(m.weight * wp.float64(x)) - float(extra.weight)
    ids[i] = b.id * i + int(m.level) * 1000 + int(b.flags) + int(extra.level)


@wp.struct
class Holder:
    scale: float
    data: wp.array(dtype=float)
    grid: wp.array2d(dtype=wp.int32)


@wp.kernel
def struct_with_array(h: Holder, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = h.data[i] * h.scale + float(h.grid[i % h.grid.shape[0], i % h.grid.shape[1]])


@wp.struct
class Shelf:
    count: wp.int32
    items: wp.array(dtype=Material)


@wp.kernel
def struct_with_struct_array(s: Shelf, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = float(s.items[i].weight)


@wp.kernel
def array_of_structs(ms: wp.array(dtype=Material), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ms[i].tint[0, 0]


def aligned_dtype(st) -> np.dtype:
    """numpy's C layout (align=True) of a struct type: an oracle for the manifest's offsets."""
    from simt.ir.types import StructType, scalar_of
    from simt.types import component_shape
    parts = [(n, aligned_dtype(t) if isinstance(t, StructType) else (scalar_of(t).np, component_shape(t)))
             for n, t in st.fields]
    return np.dtype([(n, t) if isinstance(t, np.dtype) else (n, *t) for n, t in parts], align=True)


def struct_values(seed: int = 0) -> tuple:
    """(Body, scale, Material) with values that use every field (an odd bool byte included)."""
    rng = np.random.default_rng(seed)
    f = lambda: float(np.float32(rng.standard_normal() * 3))          # noqa: E731
    material = Material(tint=[[f(), f()], [f(), f()]], glossy=True, weight=rng.standard_normal(),
                        level=-77, half=f())
    body = Body(position=[f(), f(), f()], mass=f(), id=int(rng.integers(-2**20, 2**20)),
                material=material, flags=250)
    extra = Material(tint=[[f(), 0.0], [0.0, 1.0]], glossy=True, weight=rng.standard_normal(),
                     level=3, half=-1.5)
    return body, np.float32(f()), extra


def struct_argv(body, scale, extra) -> list[str]:
    """The values as STRUCT_PROGRAM reads them: floats in hex (exact), the rest in decimal."""
    def material(m):
        return [*(float(v).hex() for v in np.asarray(m.tint).reshape(-1)), str(int(m.glossy)),
                float(m.weight).hex(), str(int(m.level)), str(int(np.float16(m.half).view(np.uint16)))]
    return [float(scale).hex(), *(float(v).hex() for v in body.position), float(body.mass).hex(),
            str(int(body.id)), *material(body.material), str(int(body.flags)), *material(extra)]


def struct_inputs(n: int, seed: int = 0) -> list:
    """struct_params' inputs for a launch over ``n`` threads."""
    body, scale, extra = struct_values(seed)
    return [ScalarInput("b", body), ScalarInput("scale", scale),
            ScalarInput("extra", extra), array_input("out", np.zeros(n, np.float32)),
            array_input("ids", np.zeros(n, np.int32))]


def run_struct_program(program: Path, mode: str, device: str, build_dir: Path, n: int, inputs: list) -> str:
    """What tests/test_aot_struct.cpp printed for ``inputs`` (struct_inputs)."""
    body, scale, extra = (a.value for a in inputs[:3])
    argv = [str(program), mode, device, str(build_dir), *([str(n)] if mode == "run" else []),
            *struct_argv(body, scale, extra)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"struct program failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def struct_outputs(stdout: str) -> dict:
    """{"out": float32 array, "ids": int32 array} from the program's "out_bits id" lines."""
    rows = [line.split() for line in stdout.splitlines()]
    return {"out": np.array([int(a, 16) for a, _ in rows], np.uint32).view(np.float32),
            "ids": np.array([int(b) for _, b in rows], np.int32)}


# A C program passing struct_with_array's Holder, whose array fields are simt_array_view
# (device pointers on cuda): prog DEVICE DIR prints each output in hex, then what the runtime
# says of a null array field, a negative extent and (cpu) an index past the field's extent.
C_ARRAY_STRUCT_PROGRAM = r"""
#include "struct_with_array.h"

#define CHECK(call) do { if (call) { fprintf(stderr, "%s\n", simt_last_error()); return 1; } } while (0)

int main(int argc, char **argv) {
    simt_context *ctx;
    simt_kernel *k;
    enum { N = 40, R = 3, C = 5 };
    float data[N], out[N];
    int32_t grid[R * C];
    void *d_data, *d_grid, *d_out;
    if (argc != 3) return 2;
    CHECK(simt_context_create(argv[1], &ctx));
    CHECK(simt_load_kernel(ctx, "struct_with_array", argv[2], &k));
    for (int i = 0; i < N; i++) data[i] = 0.25f * i - 3.0f;
    for (int i = 0; i < R * C; i++) grid[i] = 7 * i - 20;
    CHECK(simt_alloc(ctx, sizeof data, &d_data) || simt_alloc(ctx, sizeof grid, &d_grid) ||
          simt_alloc(ctx, sizeof out, &d_out));
    CHECK(simt_copy_to_device(ctx, d_data, data, sizeof data) || simt_copy_to_device(ctx, d_grid, grid, sizeof grid));
    Holder h;
    memset(&h, 0, sizeof h);
    h.scale = 1.5f;
    h.data.data = d_data;
    h.data.shape[0] = N;
    h.grid.data = d_grid;
    h.grid.shape[0] = R;
    h.grid.shape[1] = C;
    int64_t n = N;
    simt_arg args[2] = {simt_arg_Holder(&h), simt_array_arg(SIMT_FLOAT32, d_out, 1, &n)};
    CHECK(simt_launch(k, 1, &n, args, 2, 0) || simt_synchronize(ctx));
    CHECK(simt_copy_to_host(ctx, out, d_out, sizeof out));
    for (int i = 0; i < N; i++) printf("%a\n", out[i]);
    h.grid.data = NULL;
    args[0] = simt_arg_Holder(&h);
    printf("null: %s\n", simt_launch(k, 1, &n, args, 2, 0) ? simt_last_error() : "accepted");
    h.grid.data = d_grid;
    h.grid.shape[1] = -5;
    args[0] = simt_arg_Holder(&h);
    printf("extent: %s\n", simt_launch(k, 1, &n, args, 2, 0) ? simt_last_error() : "accepted");
    if (!strcmp(argv[1], "cpu")) {
        h.grid.shape[1] = C;
        h.data.shape[0] = 10;
        args[0] = simt_arg_Holder(&h);
        printf("bounds: %s\n", simt_launch(k, 1, &n, args, 2, 0) ? simt_last_error() : "accepted");
    }
    simt_free(ctx, d_data); simt_free(ctx, d_grid); simt_free(ctx, d_out);
    simt_context_destroy(ctx);
    return 0;
}
"""


def compile_c_program(source: str, build_dir: Path, out: Path) -> Path:
    """A C program against the C runtime and the headers in ``build_dir``."""
    from simt import runtime
    src, exe = out / "main.c", out / "main"
    src.write_text(source)
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", *runtime.cflags(), f"-I{build_dir}", str(src),
                    "-o", str(exe), *runtime.libs()], check=True, capture_output=True, text=True)
    return exe


def array_struct_expected(device: str) -> tuple[dict, Holder]:
    """struct_with_array's output for C_ARRAY_STRUCT_PROGRAM's values, launched by simt on
    ``device``."""
    n, rows, cols = 40, 3, 5
    h = Holder(scale=1.5, data=wp.array(np.arange(n, dtype=np.float32) * np.float32(0.25) - np.float32(3.0),
                                        device=device),
               grid=wp.array((7 * np.arange(rows * cols, dtype=np.int32) - 20).reshape(rows, cols), device=device))
    out = wp.zeros(n, dtype=float, device=device)
    wp.launch(struct_with_array, n, inputs=[h, out], device=device)
    return {"out": out.numpy().copy()}, h


# A stand-in for libcuda.so.1 (no GPU): every call succeeds, memory is host memory, and
# cuLaunchKernel writes the bytes of each kernel parameter, one hex line each, to
# $SIMT_FAKE_LAUNCH, reading the parameters' sizes from $SIMT_FAKE_SIZES ("4,4,8,...").
FAKE_LIBCUDA = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cuInit(unsigned f) { (void)f; return 0; }
int cuDeviceGet(int *d, int o) { *d = o; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { static int ctx; (void)d; *c = &ctx; return 0; }
int cuCtxSetCurrent(void *c) { (void)c; return 0; }
int cuModuleLoadData(void **m, const void *image) { static int mod; (void)image; *m = &mod; return 0; }
int cuModuleGetFunction(void **f, void *m, const char *name) { static int fn; (void)m; (void)name; *f = &fn; return 0; }
int cuModuleUnload(void *m) { (void)m; return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuMemAlloc_v2(unsigned long long *p, size_t n) { *p = (unsigned long long)(size_t)calloc(1, n); return 0; }
int cuMemFree_v2(unsigned long long p) { free((void *)(size_t)p); return 0; }
int cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) { memcpy((void *)(size_t)d, s, n); return 0; }
int cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) { memcpy(d, (const void *)(size_t)s, n); return 0; }
int cuGetErrorName(int e, const char **s) { (void)e; *s = "CUDA_ERROR_FAKE"; return 0; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void *stream, void **params, void **extra) {
    (void)f; (void)shared; (void)stream; (void)extra;
    FILE *out = fopen(getenv("SIMT_FAKE_LAUNCH"), "a");
    const char *sizes = getenv("SIMT_FAKE_SIZES");
    if (!out || !sizes) return 1;
    fprintf(out, "grid %u %u %u block %u %u %u\n", gx, gy, gz, bx, by, bz);
    for (int k = 0; *sizes; k++) {
        char *end;
        long n = strtol(sizes, &end, 10);
        for (long b = 0; b < n; b++) fprintf(out, "%02x", ((const unsigned char *)params[k])[b]);
        fprintf(out, "\n");
        sizes = *end == ',' ? end + 1 : end;
    }
    fclose(out);
    return 0;
}
"""


STRUCT_SOURCE = HERE / "test_aot_struct.cpp"


def compile_struct_program(build_dir: Path, out: Path) -> Path:
    """tests/test_aot_struct.cpp against the struct_params.h in ``build_dir``."""
    from simt import runtime
    exe = out / "aot_struct"
    cmd = [shutil.which("g++"), "-std=c++17", "-O0", "-Wall", "-Werror", *runtime.cflags(), f"-I{build_dir}",
           str(STRUCT_SOURCE), "-o", str(exe), *runtime.libs()]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return exe


C_PROGRAM = r"""
#include <simt/runtime.h>

int main(int argc, char **argv) {
    simt_context *ctx;
    simt_kernel *k;
    if (simt_context_create("cpu", &ctx) || simt_load_kernel(ctx, "saxpy", argv[1], &k)) {
        fprintf(stderr, "%s\n", simt_last_error());
        return 1;
    }
    float x[16], y[16], a = 3.0f;
    for (int i = 0; i < 16; i++) { x[i] = 0.5f * i; y[i] = 1.0f; }
    int64_t n = 16;
    simt_arg args[3] = {simt_scalar_arg(SIMT_FLOAT32, &a), simt_array_arg(SIMT_FLOAT32, x, 1, &n),
                        simt_array_arg(SIMT_FLOAT32, y, 1, &n)};
    if (simt_launch(k, 1, &n, args, 3, 0) || simt_synchronize(ctx)) {
        fprintf(stderr, "%s\n", simt_last_error());
        return 1;
    }
    for (int i = 0; i < 16; i++) printf("%.9g\n", y[i]);
    simt_context_destroy(ctx);
    (void)argc;
    return 0;
}
"""


@wp.kernel
def vector_params(v: wp.vec3, m: wp.mat22, s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = v[0] * float(i) + v[1] - v[2] + m[0, 1] * m[1, 0] - m[1, 1] + s


@wp.kernel
def diverging_barrier(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if wp.thread_idx() < 16:
        wp.sync_threads()
    out[i] = 1


@wp.kernel
def endless(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    k = int(0)
    while out[i] == 0:
        k = k + 1
    out[i] = k
