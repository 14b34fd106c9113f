"""Numba-CUDA kernels of the PTX corpus (numba_kernels.ptx is their PTX, written by
tools/gen_ptx_corpus.py) and of tests/test_ptx_frontends.py, which runs them against numpy."""
import math

from numba import cuda, float32, int64

TILE = 16


def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def transpose(src, dst):
    """A shared-memory tiled transpose of a 2-D array (16 x 16 tiles, padded)."""
    tile = cuda.shared.array((16, 17), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x, y = cuda.blockIdx.x * TILE + tx, cuda.blockIdx.y * TILE + ty
    if y < src.shape[0] and x < src.shape[1]:
        tile[ty, tx] = src[y, x]
    cuda.syncthreads()
    x, y = cuda.blockIdx.y * TILE + tx, cuda.blockIdx.x * TILE + ty
    if y < dst.shape[0] and x < dst.shape[1]:
        dst[y, x] = tile[tx, ty]


def block_sum(x, out):
    """A tree reduction in shared memory, one atomic add per block."""
    buf = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, buf[0])


def histogram(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i] % bins.size, 1)


def math_funcs(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.exp(v)
        out[i, 1] = math.sqrt(v)
        out[i, 2] = math.log(v + 1.0)
        out[i, 3] = math.sin(v)
        out[i, 4] = math.tanh(v)
        out[i, 5] = v ** 3


def int_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] // b[i]
        out[i, 1] = a[i] % b[i]
        out[i, 2] = (a[i] << 3) ^ (b[i] >> 1)
        out[i, 3] = max(a[i], b[i])
        out[i, 4] = min(a[i] * b[i], 1000)


def warp_reduce(x, out):
    """A warp-shuffle sum: one result per warp."""
    i = cuda.grid(1)
    v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


def f64_dot(x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        acc = 0.0
        for k in range(x.shape[1]):
            acc += x[i, k] * y[i, k]
        out[i] = acc


def misc_ops(x, n, out, largest):
    """int64 floor division in a local array, libdevice's pow (a .func the PTX calls) and
    atan2, an atomic max and a fence."""
    i = cuda.grid(1)
    loc = cuda.local.array(4, int64)
    if i < x.size:
        for k in range(4):
            loc[k] = n[i] * (k + 1) // 3 - n[i] % 7
        out[i, 0] = loc[0] + loc[3]
        out[i, 1] = int64(math.floor(x[i] * 10.0))
        out[i, 2] = int64(math.pow(abs(x[i]), 1.5) * 1000)
        out[i, 3] = int64(math.atan2(x[i], 1.0) * 1000)
        cuda.atomic.max(largest, 0, n[i])
        cuda.threadfence()


# name -> signature, as simt.from_numba takes them
SIGNATURES = {
    "axpy": "void(float32, float32[:], float32[:], float32[:])",
    "transpose": "void(float32[:, :], float32[:, :])",
    "block_sum": "void(float32[:], float32[:])",
    "histogram": "void(int32[:], int32[:])",
    "math_funcs": "void(float32[:], float32[:, :])",
    "int_ops": "void(int32[:], int32[:], int32[:, :])",
    "warp_reduce": "void(float32[:], float32[:])",
    "f64_dot": "void(float64[:, :], float64[:, :], float64[:])",
    "misc_ops": "void(float64[:], int64[:], int64[:, :], int64[:])",
}
