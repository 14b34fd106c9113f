// The kernel suite (simt/suite/portable.py, simt/suite/cuda_style.py) written in CUDA C, the
// way one would write it by hand, for benchmarks/bench_gpu.py:
//     nvcc -O3 -fmad=false -arch=sm_90 -cubin
// (-fmad=false: simt never contracts a*b+c into an FMA, so neither may its equivalent here).
//
// Every kernel takes simt's kernel ABI, so the benchmark passes both versions the very same
// argument values: for each parameter in order, an array is a pointer followed by one int
// per dimension (its extents), a scalar is its value; then the launch dim as three ints.
// Multi-dimensional launches: the last dim is CUDA's x (dim1 for 2-D launches).

#include <cstdint>

#define LINEAR_TID(dim0)                                   \
    const int i = blockIdx.x * blockDim.x + threadIdx.x;   \
    if (i >= (dim0)) return;

#define DIMS int dim0, int dim1, int dim2

struct v3 { float x, y, z; };

__device__ __forceinline__ v3 load3(const float* p, int i) { return {p[3 * i], p[3 * i + 1], p[3 * i + 2]}; }
__device__ __forceinline__ void store3(float* p, int i, v3 v) { p[3 * i] = v.x; p[3 * i + 1] = v.y; p[3 * i + 2] = v.z; }
__device__ __forceinline__ v3 operator+(v3 a, v3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
__device__ __forceinline__ v3 operator-(v3 a, v3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
__device__ __forceinline__ v3 operator*(v3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
__device__ __forceinline__ float dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ __forceinline__ v3 cross(v3 a, v3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// ---- portable.py ---------------------------------------------------------------------------

extern "C" __global__ void saxpy(float a, const float* x, int xn, float* y, int yn, DIMS) {
    LINEAR_TID(dim0)
    y[i] = a * x[i] + y[i];
}

__device__ float intersect_triangle(v3 o, v3 d, v3 a, v3 b, v3 c) {
    v3 e1 = b - a, e2 = c - a;
    v3 p = cross(d, e2);
    float det = dot(e1, p);
    if (fabsf(det) < 1.0e-8f) return -1.0f;
    float inv_det = 1.0f / det;
    v3 s = o - a;
    float u = dot(s, p) * inv_det;
    if (u < 0.0f || u > 1.0f) return -1.0f;
    v3 q = cross(s, e1);
    float v = dot(d, q) * inv_det;
    if (v < 0.0f || u + v > 1.0f) return -1.0f;
    float t = dot(e2, q) * inv_det;
    return t <= 0.0f ? -1.0f : t;
}

extern "C" __global__ void ray_triangle(const float* origins, int on, const float* directions, int dn,
                                        const float* v0, int n0, const float* v1, int n1,
                                        const float* v2, int n2, int num_triangles,
                                        float* hit_t, int tn, int* hit_id, int hn, DIMS) {
    LINEAR_TID(dim0)
    v3 o = load3(origins, i), d = load3(directions, i);
    float best_t = -1.0f;
    int best_id = -1;
    for (int k = 0; k < num_triangles; ++k) {
        float t = intersect_triangle(o, d, load3(v0, k), load3(v1, k), load3(v2, k));
        if (t > 0.0f && (best_id < 0 || t < best_t)) {
            best_t = t;
            best_id = k;
        }
    }
    hit_t[i] = best_t;
    hit_id[i] = best_id;
}

struct q4 { float x, y, z, w; };

__device__ __forceinline__ v3 quat_rotate(q4 q, v3 v) {
    v3 u = {q.x, q.y, q.z};
    return v * (2.0f * q.w * q.w - 1.0f) + cross(u, v) * q.w * 2.0f + u * dot(u, v) * 2.0f;
}

__device__ __forceinline__ q4 quat_mul(q4 a, q4 b) {
    v3 av = {a.x, a.y, a.z}, bv = {b.x, b.y, b.z};
    v3 xyz = bv * a.w + av * b.w + cross(av, bv);
    return {xyz.x, xyz.y, xyz.z, a.w * b.w - dot(av, bv)};
}

extern "C" __global__ void vec_mat_quat(const float* points, int pn, const float* mats, int mn,
                                        const float* rots, int rn, int num_transforms,
                                        float* rotated, int n1, float* unit, int n2, float* crossed, int n3,
                                        float* transposed, int n4, float* twice, int n5,
                                        float* scalars, int n6, float* lengths, int n7, DIMS) {
    LINEAR_TID(dim0)
    v3 p = load3(points, i);
    int k = i % num_transforms;
    const float* m = mats + 9 * k;
    q4 q = {rots[4 * k], rots[4 * k + 1], rots[4 * k + 2], rots[4 * k + 3]};
    v3 mp = {m[0] * p.x + m[1] * p.y + m[2] * p.z, m[3] * p.x + m[4] * p.y + m[5] * p.z,
             m[6] * p.x + m[7] * p.y + m[8] * p.z};
    v3 r = quat_rotate(q, mp);
    store3(rotated, i, r);
    float len = sqrtf(dot(r, r));
    store3(unit, i, len > 0.0f ? r * (1.0f / len) : v3{0.0f, 0.0f, 0.0f});
    v3 c = cross(p, r);
    store3(crossed, i, c);
    v3 mtp = {m[0] * p.x + m[3] * p.y + m[6] * p.z, m[1] * p.x + m[4] * p.y + m[7] * p.z,
              m[2] * p.x + m[5] * p.y + m[8] * p.z};
    store3(transposed, i, mtp);
    store3(twice, i, quat_rotate(quat_mul(q, q), p));
    scalars[i] = dot(p, r) + c.x * 0.5f - r.y;
    v3 s = v3{p.x * 2.0f, p.y, -p.z} + c;
    lengths[i] = sqrtf(dot(s, s));
}

extern "C" __global__ void mandelbrot(int* counts, int h, int w, float x0, float y0, float step,
                                      int max_iter, DIMS) {
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= dim0 || j >= dim1) return;
    float cx = x0 + (float)j * step, cy = y0 + (float)i * step;
    float x = 0.0f, y = 0.0f;
    int n = 0;
    while (n < max_iter && x * x + y * y <= 4.0f) {
        float xt = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = xt;
        ++n;
    }
    counts[i * w + j] = n;
}

extern "C" __global__ void nested_branches(const int* values, int vn, int* out, int on, DIMS) {
    LINEAR_TID(dim0)
    int v = values[i];
    if (i % 7 == 3) { out[i] = -1; return; }
    int r = 0;
    if (v > 50) {
        if (i % 2 == 0) {
            r = v * 2;
        } else if (v > 80) {
            r = v - 80;
            if (r % 3 == 0) { out[i] = r + 1000; return; }
        } else {
            r = -v;
        }
    } else if (v < 10) {
        r = 7;
    } else {
        for (int k = 0; k < v % 13; ++k) {
            if (k % 3 == 1) continue;
            if (r > 40) break;
            r = r + (k * v) % 11;
        }
    }
    out[i] = r;
}

extern "C" __global__ void histogram_global(const float* values, int vn, int num_bins, int* bins,
                                            int bn, DIMS) {
    LINEAR_TID(dim0)
    int b = (int)(values[i] * (float)num_bins);
    b = min(max(b, 0), num_bins - 1);
    atomicAdd(&bins[b], 1);
}

extern "C" __global__ void stencil_2d(const float* u, int h, int w, float* jacobi, int jh, int jw,
                                      float* laplacian, int lh, int lw, DIMS) {
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= dim0 || j >= dim1) return;
    float c = u[i * w + j];
    float up = u[max(i - 1, 0) * w + j], down = u[min(i + 1, h - 1) * w + j];
    float left = u[i * w + max(j - 1, 0)], right = u[i * w + min(j + 1, w - 1)];
    laplacian[i * w + j] = up + down + left + right - 4.0f * c;
    if (i == 0 || j == 0 || i == h - 1 || j == w - 1) { jacobi[i * w + j] = c; return; }
    jacobi[i * w + j] = 0.25f * (up + down + left + right);
}

template <typename T>
__device__ __forceinline__ T floor_div(T a, T b) {
    T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

extern "C" __global__ void arith_semantics(const int* a, int an, const int* b, int bn,
                                           const int64_t* la, int lan, const int64_t* lb, int lbn,
                                           const float* fa, int fan, const float* fb, int fbn,
                                           int* ir, int ir0, int ir1, int64_t* lr, int lr0, int lr1,
                                           float* fr, int fr0, int fr1, double* pr, int pr0, int pr1,
                                           DIMS) {
    LINEAR_TID(dim0)
    int x = a[i], y = b[i];
    ir[0 * ir1 + i] = x / y;
    ir[1 * ir1 + i] = x % y;
    ir[2 * ir1 + i] = floor_div(x, y);
    ir[3 * ir1 + i] = x >> 3;
    ir[4 * ir1 + i] = (int)((unsigned)x * 65599u);
    ir[5 * ir1 + i] = (int)(0u - (unsigned)x + (unsigned)y * 3u);
    int64_t lx = la[i], ly = lb[i];
    lr[0 * lr1 + i] = lx / ly;
    lr[1 * lr1 + i] = lx % ly;
    lr[2 * lr1 + i] = floor_div(lx, ly);
    float fx = fa[i], fy = fb[i];
    fr[0 * fr1 + i] = fmodf(fx, fy);
    fr[1 * fr1 + i] = fx / fy;
    fr[2 * fr1 + i] = fx * 0.1f + 1.0f / 3.0f;
    pr[0 * pr1 + i] = (double)(1.0f / 3.0f);
    pr[1 * pr1 + i] = (double)(0.1f * (float)i);
    pr[2 * pr1 + i] = (double)fx / 3.0;
    pr[3 * pr1 + i] = 0.1;
}

// ---- cuda_style.py -------------------------------------------------------------------------

extern "C" __global__ void block_sum_shared(const float* x, int xn, int n, float* block_sums, int bn,
                                            DIMS) {
    __shared__ float partial[256];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = 128; stride > 0; stride /= 2) {
        if (t < stride) partial[t] = partial[t] + partial[t + stride];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

extern "C" __global__ void warp_shuffle_sum(const float* x, int xn, int n, float* warp_sums, int wn,
                                            float* total, int tn, DIMS) {
    LINEAR_TID(dim0)
    float v = i < n ? x[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, offset);
    if ((threadIdx.x & 31) == 0) {
        warp_sums[i / 32] = v;
        atomicAdd(total, v);
    }
}

template <int PITCH>
__device__ __forceinline__ void transpose(const float* src, int h, int w, float* dst) {
    __shared__ float tile[32][PITCH];
    const int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    for (int k = 0; k < 32; k += 8) tile[ty + k][tx] = src[(row + k) * w + col];
    __syncthreads();
    row = blockIdx.x * 32 + ty;
    col = blockIdx.y * 32 + tx;
    for (int k = 0; k < 32; k += 8) dst[(row + k) * h + col] = tile[tx][ty + k];
}

extern "C" __global__ void transpose_tile(const float* src, int h, int w, float* dst, int dh, int dw,
                                          DIMS) {
    transpose<32>(src, h, w, dst);
}

extern "C" __global__ void transpose_tile_padded(const float* src, int h, int w, float* dst, int dh,
                                                 int dw, DIMS) {
    transpose<33>(src, h, w, dst);
}

extern "C" __global__ void histogram_shared(const int* values, int vn, int n, int* bins, int bn, DIMS) {
    __shared__ int local_bins[64];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    if (t < 64) local_bins[t] = 0;
    __syncthreads();
    if (i < n) atomicAdd(&local_bins[values[i]], 1);
    __syncthreads();
    if (t < 64) atomicAdd(&bins[t], local_bins[t]);
}

extern "C" __global__ void matmul_tiled(const float* a, int m, int depth, const float* b, int bd,
                                        int n, float* c, int cm, int cn, DIMS) {
    __shared__ float a_tile[16][16];
    __shared__ float b_tile[16][16];
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < depth; k0 += 16) {
        a_tile[ty][tx] = (row < m && k0 + tx < depth) ? a[row * depth + k0 + tx] : 0.0f;
        b_tile[ty][tx] = (k0 + ty < depth && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk) acc = acc + a_tile[ty][kk] * b_tile[kk][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = acc;
}
