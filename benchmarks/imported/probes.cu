// nvcc-compiled kernels for measuring simt's counters and cycles on imported PTX against an
// H200 (benchmarks/imported/README.md). Compiled by simt.from_cuda (nvcc -ptx -O3 -lineinfo).
//
// Counter probes: shared loads and stores at strides and widths, shared transposes, strided and
// misaligned global copies. Cycle kernels: the usual CUDA C shapes (streaming, reductions,
// tiles, stencils, atomics, shuffles, math, divergence).

// ---- counter probes ----------------------------------------------------------------------

// One warp per 32 lanes reads s[(lane * stride) % 1024] REPS times (32-bit words).
extern "C" __global__ void shared_ld32(float* out, int stride) {
    __shared__ float s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = (float)i;
    __syncthreads();
    float acc = 0.0f;
    int j = (threadIdx.x * stride) & 1023;
    #pragma unroll 1
    for (int r = 0; r < 16; ++r) { acc += s[j]; j = (j + 1) & 1023; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 64-bit shared loads: float2 at s2[(lane * stride) % 512].
extern "C" __global__ void shared_ld64(float* out, int stride) {
    __shared__ float2 s2[512];
    for (int i = threadIdx.x; i < 512; i += blockDim.x) s2[i] = make_float2((float)i, (float)-i);
    __syncthreads();
    float acc = 0.0f;
    int j = (threadIdx.x * stride) & 511;
    #pragma unroll 1
    for (int r = 0; r < 16; ++r) { float2 v = s2[j]; acc += v.x * v.y; j = (j + 1) & 511; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 128-bit shared loads: float4 at s4[(lane * stride) % 256].
extern "C" __global__ void shared_ld128(float* out, int stride) {
    __shared__ float4 s4[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s4[i] = make_float4(i, i + 1, i + 2, i + 3);
    __syncthreads();
    float acc = 0.0f;
    int j = (threadIdx.x * stride) & 255;
    #pragma unroll 1
    for (int r = 0; r < 16; ++r) { float4 v = s4[j]; acc += v.x + v.y * v.z - v.w; j = (j + 1) & 255; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Strided shared stores, then one conflict-free read back.
extern "C" __global__ void shared_st32(float* out, int stride) {
    __shared__ float s[1024];
    int j = (threadIdx.x * stride) & 1023;
    #pragma unroll 1
    for (int r = 0; r < 16; ++r) { s[j] = (float)(r + threadIdx.x); j = (j + 1) & 1023; }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

// A 32x32 tile through shared memory, PAD = 0 (column reads conflict 32 ways) or 1.
template <int PAD>
__global__ void transpose_tile(const float* in, float* out, int n) {
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x;
    for (int dy = threadIdx.y; dy < 32; dy += blockDim.y)
        tile[dy][threadIdx.x] = in[(blockIdx.y * 32 + dy) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    for (int dy = threadIdx.y; dy < 32; dy += blockDim.y)
        out[(blockIdx.x * 32 + dy) * n + x] = tile[threadIdx.x][dy];
}
template __global__ void transpose_tile<0>(const float*, float*, int);
template __global__ void transpose_tile<1>(const float*, float*, int);

// Naive transpose: coalesced reads, stores strided by n.
extern "C" __global__ void transpose_naive(const float* in, float* out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    out[x * n + y] = in[y * n + x];
}

// out[i] = in[i * stride] (gather with a constant stride).
extern "C" __global__ void copy_strided(const float* in, float* out, int stride, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride];
}

// A copy starting `offset` floats into the array (misaligned to 32-byte sectors for offset % 8).
extern "C" __global__ void copy_offset(const float* in, float* out, int offset, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + offset];
}

// 64-bit and 128-bit global loads.
extern "C" __global__ void copy_double(const double* in, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.0;
}
extern "C" __global__ void copy_float4(const float4* in, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float4 v = in[i]; out[i] = make_float4(v.w, v.z, v.y, v.x); }
}

// ---- cycle kernels ------------------------------------------------------------------------

extern "C" __global__ void saxpy_grid(int n, float a, const float* __restrict__ x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void reduce_shared(const float* in, float* out, int n) {
    __shared__ float buf[256];
    int t = threadIdx.x;
    float s = 0.0f;
    for (int i = blockIdx.x * 256 + t; i < n; i += 256 * gridDim.x) s += in[i];
    buf[t] = s;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if (t < w) buf[t] += buf[t + w];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, buf[0]);
}

extern "C" __global__ void reduce_shuffle(const float* in, float* out, int n) {
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i];
    for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffff, s, d);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

#define MT 16
extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
    __shared__ float as[MT][MT], bs[MT][MT];
    int row = blockIdx.y * MT + threadIdx.y, col = blockIdx.x * MT + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += MT) {
        as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < MT; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}

extern "C" __global__ void stencil5(const float* in, float* out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
    int i = y * n + x;
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);
}

extern "C" __global__ void histogram_shared(const unsigned int* data, unsigned int* bins, int n) {
    __shared__ unsigned int h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&h[data[i] & 255], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
}

extern "C" __global__ void histogram_global(const unsigned int* data, unsigned int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i] & 63], 1u);
}

extern "C" __global__ void black_scholes(const float* s, const float* k, const float* t, float* call, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float r = 0.02f, v = 0.3f;
    float sq = sqrtf(t[i]);
    float d1 = (logf(s[i] / k[i]) + (r + 0.5f * v * v) * t[i]) / (v * sq);
    float d2 = d1 - v * sq;
    float n1 = 0.5f * erfcf(-d1 * 0.70710678f), n2 = 0.5f * erfcf(-d2 * 0.70710678f);
    call[i] = s[i] * n1 - k[i] * expf(-r * t[i]) * n2;
}

extern "C" __global__ void mandel(int* out, int w, int h, int max_iter) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h, zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    out[y * w + x] = it;
}

extern "C" __global__ void spmv_csr(const int* rowptr, const int* cols, const float* vals, const float* x,
                                    float* y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int j = rowptr[r]; j < rowptr[r + 1]; ++j) s += vals[j] * x[cols[j]];
    y[r] = s;
}

extern "C" __global__ void softmax_warp(const float* in, float* out, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
    const float* p = in + (long long)row * cols;
    float m = -1e30f;
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, p[j]);
    for (int d = 16; d > 0; d >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, d));
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32) s += __expf(p[j] - m);
    for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffff, s, d);
    for (int j = lane; j < cols; j += 32) out[(long long)row * cols + j] = __expf(p[j] - m) / s;
}
