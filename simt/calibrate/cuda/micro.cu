// Microbenchmarks that isolate the constants of simt's timing model (simt/arch/sm_90.json).
//
// Every launch is profiled by Nsight Compute (see measure_micro.sh); this program only runs the
// launches and writes a manifest (launch index, benchmark, parameters) so that the profiler's rows
// can be matched to what was run. fit_arch.py turns the profiler's CSV into the data file.
//
// Each benchmark is run at two or more sizes: a constant is a slope (cycles per step, per
// instruction, per byte) between sizes, so the fixed cost of a launch cancels out; the fixed cost
// itself is measured by the empty launches.
//
//   nvcc -O3 -arch=sm_90 -o micro micro.cu && ./micro manifest.csv [--l2-capacity]
#include <cstring>
#include <cstdint>
#include <string>
#include "micro_common.cuh"


// ---- launch floor and block dispatch ------------------------------------------------------------

__global__ void k_empty() {}

// ---- dependent chains: one warp, latency per step ------------------------------------------------

__global__ void k_ffma_chain(float *out, float a, float b, int n) {
  float v = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 32; u++) v = fmaf(v, a, b);
  }
  out[threadIdx.x] = v;
}

__global__ void k_fadd_chain(float *out, float a, int n) {
  float v = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 32; u++) v = v + a;
  }
  out[threadIdx.x] = v;
}

__global__ void k_imad_chain(int *out, int a, int b, int n) {
  int v = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 32; u++) v = v * a + b;
  }
  out[threadIdx.x] = v;
}

// an xor and an add per step: two dependent integer ALU instructions
__global__ void k_ialu_chain(int *out, int a, int b, int n) {
  int v = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 32; u++) v = (v ^ a) + b;
  }
  out[threadIdx.x] = v;
}

__global__ void k_dfma_chain(double *out, double a, double b, int n) {
  double v = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 32; u++) v = fma(v, a, b);
  }
  out[threadIdx.x] = v;
}

__device__ __forceinline__ float mufu_rsqrt(float v) {
  float r;
  asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

__global__ void k_mufu_chain(float *out, int n) {
  float v = 2.0f + threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 32; u++) v = mufu_rsqrt(v);
  }
  out[threadIdx.x] = v;
}

__global__ void k_shfl_chain(float *out, int n) {
  float v = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 32; u++) v = __shfl_xor_sync(0xffffffffu, v, 1);
  }
  out[threadIdx.x] = v;
}

__global__ void k_shared_chase(const int *ring, int *out, int n) {
  __shared__ int s[1024];
  for (int k = threadIdx.x; k < 1024; k += blockDim.x) s[k] = ring[k];
  __syncthreads();
  int j = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) j = s[j];
  }
  out[threadIdx.x] = j;
}

// Thread 0 chases a ring of 128-byte lines. First the whole block reads `warm_words` of the ring,
// pulling it into the caches (0: nothing, the chase goes to DRAM); with `cg` the chase bypasses L1.
__global__ void k_global_chase(const int *__restrict__ next, size_t warm_words, int n, int cg,
                               int *out) {
  int acc = 0;
  for (size_t k = threadIdx.x; k < warm_words; k += blockDim.x) acc += next[k];
  __syncthreads();
  if (threadIdx.x != 0) return;
  int j = 0;
  if (cg) {
    for (int i = 0; i < n; i++) {
#pragma unroll
      for (int u = 0; u < 16; u++) j = __ldcg(next + j);
    }
  } else {
    for (int i = 0; i < n; i++) {
#pragma unroll
      for (int u = 0; u < 16; u++) j = next[j];
    }
  }
  out[0] = j + (acc == 123456789);
}

__device__ __forceinline__ unsigned atom_add_global(unsigned *p, unsigned v) {
  unsigned old;
  asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}

__device__ __forceinline__ void red_add_global(unsigned *p, unsigned v) {
  asm volatile("red.global.add.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void red_add_global_f32(float *p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"(v) : "memory");
}

// one lane: each atomic's address depends on the previous one's result (mask = 0: one address)
__global__ void k_atomic_chain(unsigned *p, unsigned mask, int n, unsigned *out) {
  unsigned j = 0;
  for (int i = 0; i < n; i++) j = atom_add_global(p + (j & mask), 1u) & mask;
  out[0] = j;
}

__global__ void k_shared_atomic_chain(unsigned mask, int n, unsigned *out) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  unsigned j = 0;
  for (int i = 0; i < n; i++) j = atomicAdd(&s[j & mask], 1u) & mask;
  out[threadIdx.x] = j;
}

__global__ void k_barrier_loop(int *out, int n) {
  int v = threadIdx.x;
  for (int i = 0; i < n; i++) {
    __syncthreads();
    v += i;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// ---- issue throughput: many warps, 8 independent chains each ------------------------------------

__global__ void k_ffma_tput(float *out, float a, float b, int n) {
  float v[8];
#pragma unroll
  for (int k = 0; k < 8; k++) v[k] = threadIdx.x + k;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 8; k++) v[k] = fmaf(v[k], a, b);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) s += v[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void k_imad_tput(int *out, int a, int b, int n) {
  int v[8];
#pragma unroll
  for (int k = 0; k < 8; k++) v[k] = threadIdx.x + k;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 8; k++) v[k] = v[k] * a + b;
  }
  int s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) s ^= v[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void k_ialu_tput(int *out, int a, int b, int n) {
  int v[8];
#pragma unroll
  for (int k = 0; k < 8; k++) v[k] = threadIdx.x + k;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 8; k++) v[k] = (v[k] ^ a) + b;
  }
  int s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) s ^= v[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void k_lop3_tput(int *out, int a, int b, int n) {   // ALU pipe alone: one LOP3 a step
  int v[8];
#pragma unroll
  for (int k = 0; k < 8; k++) v[k] = threadIdx.x + k;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 8; k++) v[k] = (v[k] & (a + u)) ^ (b ^ u);
  }
  int s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) s ^= v[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void k_dfma_tput(double *out, double a, double b, int n) {
  double v[8];
#pragma unroll
  for (int k = 0; k < 8; k++) v[k] = threadIdx.x + k;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 8; k++) v[k] = fma(v[k], a, b);
  }
  double s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) s += v[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void k_mufu_tput(float *out, int n) {
  float v[8];
#pragma unroll
  for (int k = 0; k < 8; k++) v[k] = 2.0f + threadIdx.x + k;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 8; k++) v[k] = mufu_rsqrt(v[k]);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) s += v[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// constant loads from a register address (SASS LDC: the ADU pipe). The index is 0 in every
// lane but read from memory, so ptxas cannot hold it in a uniform register; 8 loads an
// iteration, each with one FADD (adu_tput.cu in benchmarks/timing shows the ADU, not the
// issue, bounds this loop)
__constant__ float c_ldc_table[1024];
__global__ void k_ldc_tput(float *out, const int *start, int n) {
  int idx = start[threadIdx.x & 1];
  float a[8];
#pragma unroll
  for (int k = 0; k < 8; k++) a[k] = threadIdx.x * 1e-3f + k;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int k = 0; k < 8; k++) a[k] += c_ldc_table[idx + 64 * k];
    idx = (idx + 1) & 63;
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) s += a[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void k_shfl_tput(float *out, int n) {
  float v[8];
#pragma unroll
  for (int k = 0; k < 8; k++) v[k] = threadIdx.x + k;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 8; k++) v[k] = __shfl_xor_sync(0xffffffffu, v[k], 1 + k);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) s += v[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// ---- shared memory and L1 throughput -------------------------------------------------------------

// 16 shared loads per step per thread; `stride` words between lanes (1: no conflict, 32: 32-way)
__global__ void k_lds_tput(float *out, int stride, int n) {
  __shared__ float s[32 * 33];
  for (int k = threadIdx.x; k < 32 * 33; k += blockDim.x) s[k] = k;
  __syncthreads();
  int lane = threadIdx.x & 31;
  int base = (lane * stride) % (32 * 32);
  float acc = 0;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) acc += s[(base + u * 33 + i) & 1023];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// global loads that hit in L1: each block reads its own 16 KB window over and over.
// stride 1: a warp's request is one line (4 sectors); stride 32: 32 lines of one sector each.
__global__ void k_l1_tput(const float *__restrict__ src, float *out, int stride, int n) {
  const float *win = src + (size_t)blockIdx.x * 4096;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int off = stride == 1 ? warp * 256 + lane : lane * 32;
  int step = stride == 1 ? 32 : 1;
  float acc = 0;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++) acc += win[(off + u * step + i * 8) & 4095];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// L2 bandwidth: every block streams a slice of an L2-resident buffer with ld.global.cg (no L1).
__global__ void k_l2_tput(const float4 *__restrict__ src, size_t words4, float *out, int n) {
  float4 acc = make_float4(0, 0, 0, 0);
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) {
    for (size_t k = tid; k < words4; k += step) {
      float4 v = __ldcg(src + k);
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  }
  out[tid] = acc.x + acc.y + acc.z + acc.w;
}

// ---- DRAM: streams over sizes, scattered sectors ---------------------------------------------------

__global__ void k_read_stream(const float4 *__restrict__ src, size_t words4, float *out) {
  float4 acc = make_float4(0, 0, 0, 0);
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (size_t k = tid; k < words4; k += step) {
    float4 v = src[k];
    acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
  }
  float s = acc.x + acc.y + acc.z + acc.w;
  if (s == 1234.5f) out[tid] = s;   // never true for the data used: keeps the loads alive
}

__global__ void k_copy_stream(const float4 *__restrict__ src, float4 *dst, size_t words4) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (size_t k = tid; k < words4; k += step) dst[k] = src[k];
}

__global__ void k_write_stream(float4 *dst, size_t words4) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (size_t k = tid; k < words4; k += step) dst[k] = make_float4(1, 2, 3, 4);
}

// one float per thread, `stride` floats apart: the bytes DRAM moves per sector asked for
__global__ void k_scatter_read(const float *__restrict__ src, size_t stride, float *out) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float v = src[tid * stride];
  if (v == 1234.5f) out[tid] = v;
}

// ---- atomics throughput at several contention levels ------------------------------------------------

// every thread does n reductions; address = (thread / group) % n_addr, group threads share one
__global__ void k_red_tput(unsigned *p, int group, int n_addr, int n) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned *a = p + ((tid / group) % n_addr) * 32;   // 128 bytes apart: separate lines
  for (int i = 0; i < n; i++) red_add_global(a, 1u);
}

__global__ void k_red_tput_f32(float *p, int group, int n_addr, int n) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  float *a = p + ((tid / group) % n_addr) * 32;
  for (int i = 0; i < n; i++) red_add_global_f32(a, 1.0f);
}

// each thread its own word, contiguous: a warp's reduction touches 4 sectors of one line
__global__ void k_red_tput_distinct(unsigned *p, int n) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < n; i++) red_add_global(p + tid, 1u);
}

// each lane its own line at random: update i of lane t goes to a hashed word of a table of
// mask + 1 words (a power of two), so a warp's 32 lanes touch 32 lines far apart and a line is
// seldom updated twice in a row (GUPS-like; the red_* levels above keep their lines hot)
__device__ __forceinline__ unsigned mix32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

__global__ void k_red_scatter(unsigned *p, unsigned mask, int n) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lanes = gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) red_add_global(p + (mix32(tid + i * lanes) & mask), 1u);
}

__global__ void k_shared_atomic_tput(unsigned *out, int n_addr, int n) {
  __shared__ unsigned s[1024];
  for (int k = threadIdx.x; k < 1024; k += blockDim.x) s[k] = 0;
  __syncthreads();
  unsigned *a = s + (threadIdx.x % n_addr);
  for (int i = 0; i < n; i++) atomicAdd(a, 1u);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

// ---- host ----------------------------------------------------------------------------------------------

static void l2_capacity(int sms) {
  // With the profiler's cache control off, a buffer read twice in a row: the second read's
  // DRAM bytes show how much of the buffer the L2 kept.
  size_t max_words4 = (size_t)160 << 20 >> 4;
  float4 *buf = device_buffer<float4>(max_words4, make_float4(1, 1, 1, 1));
  float *out = device_buffer<float>((size_t)sms * 8 * 256, 0.0f);
  const int mbs[] = {8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 160};
  for (int mb : mbs) {
    size_t w4 = (size_t)mb << 20 >> 4;
    for (int rep = 0; rep < 2; rep++) {
      TIMED k_read_stream<<<sms * 8, 256>>>(buf, w4, out);
      done(rep ? "l2_capacity_second" : "l2_capacity_first", "mb", mb, sms * 8, 256, (long long)mb << 20);
    }
  }
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv, " [--l2-capacity]")) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  if (argc > 2 && !strcmp(argv[2], "--l2-capacity")) {
    l2_capacity(sms);
    fclose(manifest);
    return 0;
  }

  float *fout = device_buffer<float>((size_t)sms * 16 * 1024, 0.0f);
  int *iout = (int *)fout;
  double *dout = device_buffer<double>((size_t)sms * 16 * 1024, 0.0);

  // launch floor: one warp, five times; then blocks per SM for the dispatch cost
  for (int r = 0; r < 5; r++) { TIMED k_empty<<<1, 32>>>(); done("floor", "rep", r, 1, 32, 0); }
  for (int per_sm : {1, 4, 16, 64, 256}) {
    TIMED k_empty<<<sms * per_sm, 32>>>(); done("dispatch32", "ctas_per_sm", per_sm, sms * per_sm, 32, per_sm);
    TIMED k_empty<<<sms * per_sm, 1024>>>(); done("dispatch1024", "ctas_per_sm", per_sm, sms * per_sm, 1024, per_sm);
  }

  // dependent chains, one warp; work = dependent steps
  for (int n : {256, 1024}) {
    TIMED k_ffma_chain<<<1, 32>>>(fout, 0.999f, 0.5f, n); done("chain_ffma", "n", n, 1, 32, 32LL * n);
    TIMED k_fadd_chain<<<1, 32>>>(fout, 0.5f, n); done("chain_fadd", "n", n, 1, 32, 32LL * n);
    TIMED k_imad_chain<<<1, 32>>>(iout, 3, 7, n); done("chain_imad", "n", n, 1, 32, 32LL * n);
    TIMED k_ialu_chain<<<1, 32>>>(iout, 0x55, 7, n); done("chain_ialu2", "n", n, 1, 32, 32LL * n);
    TIMED k_dfma_chain<<<1, 32>>>(dout, 0.999, 0.5, n); done("chain_dfma", "n", n, 1, 32, 32LL * n);
    TIMED k_mufu_chain<<<1, 32>>>(fout, n); done("chain_mufu", "n", n, 1, 32, 32LL * n);
    TIMED k_shfl_chain<<<1, 32>>>(fout, n); done("chain_shfl", "n", n, 1, 32, 32LL * n);
  }
  {
    std::vector<int> ring(1024);
    for (int k = 0; k < 1024; k++) ring[k] = (k + 33) % 1024;
    int *d_ring;
    CHECK(cudaMalloc(&d_ring, 1024 * sizeof(int)));
    CHECK(cudaMemcpy(d_ring, ring.data(), 1024 * sizeof(int), cudaMemcpyHostToDevice));
    for (int n : {256, 1024}) {
      TIMED k_shared_chase<<<1, 32>>>(d_ring, iout, n); done("chain_shared", "n", n, 1, 32, 16LL * n);
    }
  }
  // global pointer chases: 16 KB warmed into L1, 4 MB warmed into L2 (chased past L1), and
  // cold rings of 64 MB and 1 GB (every step a DRAM access: the profiler flushes the caches)
  {
    struct { const char *name; size_t bytes; bool warm, cg; int n1, n2; } levels[] = {
        {"chain_l1", 16 << 10, true, false, 256, 1024}, {"chain_l2", 4 << 20, true, true, 64, 256},
        {"chain_dram64m", (size_t)64 << 20, false, true, 32, 128},
        {"chain_dram1g", (size_t)1 << 30, false, true, 32, 128}};
    for (auto &lv : levels) {
      int *ring = chase_ring(lv.bytes / 128, 7);
      size_t warm = lv.warm ? lv.bytes / 4 : 0;
      for (int n : {lv.n1, lv.n2}) {
        TIMED k_global_chase<<<1, 1024>>>(ring, warm, n, lv.cg, iout); done(lv.name, "n", n, 1, 1024, 16LL * n);
      }
      CHECK(cudaFree(ring));
    }
  }
  {
    unsigned *cnt = device_buffer<unsigned>(1024, 0u);
    for (int n : {256, 1024}) {
      TIMED k_atomic_chain<<<1, 1>>>(cnt, 0u, n, (unsigned *)iout); done("chain_atomic_global", "n", n, 1, 1, n);
      TIMED k_shared_atomic_chain<<<1, 1>>>(0u, n, (unsigned *)iout); done("chain_atomic_shared", "n", n, 1, 1, n);
    }
    CHECK(cudaFree(cnt));
  }
  for (int threads : {32, 256, 1024}) {
#ifdef SIMT_SELF_TIMED
    for (int n : {1024, 8192}) {   // self-timed: longer, for the events' resolution
#else
    for (int n : {256, 1024}) {
#endif
      TIMED k_barrier_loop<<<1, threads>>>(iout, n);
      done(threads == 32 ? "chain_barrier32" : threads == 256 ? "chain_barrier256" : "chain_barrier1024",
           "n", n, 1, threads, n);
    }
  }

  // issue throughput: 8 blocks of 256 per SM; work = warp instructions of the measured op
  {
    const int grid = sms * 8, block = 256;
    const long long warps = (long long)grid * block / 32;
    for (int n : {64, 256}) {
      TIMED k_ffma_tput<<<grid, block>>>(fout, 0.999f, 0.5f, n); done("tput_ffma", "n", n, grid, block, warps * 64 * n);
      TIMED k_imad_tput<<<grid, block>>>(iout, 3, 7, n); done("tput_imad", "n", n, grid, block, warps * 64 * n);
      TIMED k_ialu_tput<<<grid, block>>>(iout, 0x55, 7, n); done("tput_ialu2", "n", n, grid, block, warps * 64 * n);
      TIMED k_lop3_tput<<<grid, block>>>(iout, 0x5f3759df, 0x2d, n); done("tput_lop3", "n", n, grid, block, warps * 64 * n);
      TIMED k_dfma_tput<<<grid, block>>>(dout, 0.999, 0.5, n / 4); done("tput_dfma", "n", n / 4, grid, block, warps * 64 * (n / 4));
      TIMED k_mufu_tput<<<grid, block>>>(fout, n / 4); done("tput_mufu", "n", n / 4, grid, block, warps * 64 * (n / 4));
      TIMED k_shfl_tput<<<grid, block>>>(fout, n / 4); done("tput_shfl", "n", n / 4, grid, block, warps * 64 * (n / 4));
    }
    // the ADU: work = the LDCs (8 an iteration); the table's index starts at 0 in every lane
    int *zeros = device_buffer<int>(2, 0);
    for (int n : {64, 256}) {
      TIMED k_ldc_tput<<<grid, block>>>(fout, zeros, n); done("tput_ldc", "n", n, grid, block, warps * 8 * n);
    }
  }

  // shared-memory loads: wavefronts per cycle per SM, conflict-free and 32-way
  {
    const int grid = sms * 8, block = 256;
    const long long warps = (long long)grid * block / 32;
    for (int n : {64, 256}) {
      TIMED k_lds_tput<<<grid, block>>>(fout, 1, n); done("tput_lds_stride1", "n", n, grid, block, warps * 16 * n);
      TIMED k_lds_tput<<<grid, block>>>(fout, 32, n / 8); done("tput_lds_stride32", "n", n / 8, grid, block, warps * 16 * (n / 8) * 32);
    }
  }
  // L1 hits: coalesced (one line per request) and scattered (32 lines per request)
  {
    const int grid = sms * 4, block = 256;
    const long long warps = (long long)grid * block / 32;
    float *src = device_buffer<float>((size_t)grid * 4096, 1.0f);
    for (int n : {64, 256}) {
      TIMED k_l1_tput<<<grid, block>>>(src, fout, 1, n); done("tput_l1_lines1", "n", n, grid, block, warps * 8 * n);
      TIMED k_l1_tput<<<grid, block>>>(src, fout, 32, n / 8); done("tput_l1_lines32", "n", n / 8, grid, block, warps * 8 * (n / 8) * 32);
    }
    CHECK(cudaFree(src));
  }
  // L2 bandwidth: a 16 MB buffer, read n times by the whole grid through the L2 only
  {
    const int grid = sms * 8, block = 256;
    size_t w4 = (size_t)16 << 20 >> 4;
    float4 *src = device_buffer<float4>(w4, make_float4(1, 1, 1, 1));
    for (int n : {4, 16}) {
      TIMED k_l2_tput<<<grid, block>>>(src, w4, fout, n); done("tput_l2", "n", n, grid, block, (long long)n * (16 << 20));
    }
    CHECK(cudaFree(src));
  }
  // DRAM streams: achievable bandwidth over sizes (work = bytes the kernel must move)
  {
    const int grid = sms * 8, block = 256;
    size_t max_bytes = (size_t)1 << 30;
    float4 *a = device_buffer<float4>(max_bytes / 16, make_float4(1, 1, 1, 1));
    float4 *b = device_buffer<float4>(max_bytes / 16, make_float4(0, 0, 0, 0));
    for (size_t mb : {4, 16, 64, 256, 1024}) {
      size_t w4 = (mb << 20) / 16;
      TIMED k_read_stream<<<grid, block>>>(a, w4, fout); done("stream_read", "mb", mb, grid, block, (long long)(mb << 20));
      TIMED k_copy_stream<<<grid, block>>>(a, b, w4); done("stream_copy", "mb", mb, grid, block, (long long)(2 * (mb << 20)));
      TIMED k_write_stream<<<grid, block>>>(b, w4); done("stream_write", "mb", mb, grid, block, (long long)(mb << 20));
    }
    // scattered reads: 4M threads, one float each, `stride` floats apart
    const int threads = 1 << 22;
    for (size_t stride : {8, 16, 32, 64}) {
      if ((size_t)threads * stride * 4 > max_bytes) continue;
      TIMED k_scatter_read<<<threads / 256, 256>>>((const float *)a, stride, fout);
      done("scatter_read", "stride", stride, threads / 256, 256, (long long)threads);
    }
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }
  // atomics: reductions per cycle at several contention levels; work = lane operations
  {
    const int grid = sms * 4, block = 256;
    const long long lanes = (long long)grid * block;
    unsigned *p = device_buffer<unsigned>((size_t)grid * block * 32, 0u);
    struct { const char *name; int group, n_addr; } levels[] = {
        {"red_one_address", 1, 1}, {"red_32_addresses", 1, 32}, {"red_1024_addresses", 1, 1024},
        {"red_per_warp_address", 32, 1 << 30}};
    for (auto &lv : levels) {
      for (int n : {4, 16}) {
        int n_this = lv.n_addr == 1 ? n / 4 : n;
        TIMED k_red_tput<<<grid, block>>>(p, lv.group, lv.n_addr, n_this);
        done(lv.name, "n", n_this, grid, block, lanes * n_this);
      }
    }
    for (int n : {1, 4}) {
      TIMED k_red_tput_f32<<<grid, block>>>((float *)p, 1, 1, n); done("red_one_address_f32", "n", n, grid, block, lanes * n);
    }
    for (int n : {16, 64}) {
      TIMED k_red_tput_distinct<<<grid, block>>>(p, n); done("red_distinct", "n", n, grid, block, lanes * n);
    }
    CHECK(cudaFree(p));
    // updates at random over a table the L2 holds (4 MB) and one it does not (256 MB), at this
    // grid and at twice the warps an SM; and the 1024 hot lines at twice the warps, beside
    const size_t big = (size_t)64 << 20;                       // words: 256 MB
    p = device_buffer<unsigned>(big, 0u);
    for (int g : {grid, 2 * grid}) {
      const long long gl = (long long)g * block;
      for (int n : {4, 16}) {
        TIMED k_red_scatter<<<g, block>>>(p, (1u << 20) - 1, n);
        done(g == grid ? "red_scatter_l2" : "red_scatter_l2_x2", "n", n, g, block, gl * n);
      }
    }
    for (int n : {4, 16}) {
      TIMED k_red_scatter<<<2 * grid, block>>>(p, (unsigned)(big - 1), n);
      done("red_scatter_dram", "n", n, 2 * grid, block, 2 * lanes * n);
    }
    for (int n : {4, 16}) {
      TIMED k_red_tput<<<2 * grid, block>>>(p, 1, 1024, n);
      done("red_1024_addresses_x2", "n", n, 2 * grid, block, 2 * lanes * n);
    }
    for (int n_addr : {1, 32}) {
      for (int n : {16, 64}) {
        TIMED k_shared_atomic_tput<<<grid, block>>>((unsigned *)iout, n_addr, n);
        done(n_addr == 1 ? "shared_atomic_one_address" : "shared_atomic_32_addresses", "n", n, grid, block, lanes * n);
      }
    }
    CHECK(cudaFree(p));
  }
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
