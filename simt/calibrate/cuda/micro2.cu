// Second set of microbenchmarks (see micro.cu for the method): L1 with plain (not read-only)
// loads, requests whose lanes miss in several lines at once, shared and sector-level atomics
// without compiler aggregation, the L2's capacity inside one launch, and a loop's branch cost.
//
//   nvcc -O3 -arch=sm_90 -o micro2 micro2.cu && ./micro2 manifest.csv
#include <cstdint>
#include "micro_common.cuh"


// plain global loads (ld.global, cached in L1), as simt's PTX issues them
__global__ void k_l1_tput_plain(const float *src, float *out, int stride, int n) {
  const float *win = src + (size_t)blockIdx.x * 4096;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int off = stride == 1 ? warp * 256 + lane : lane * 32;
  int step = stride == 1 ? 32 : 1;
  int shift = stride == 1 ? 32 : 1;       // keeps a coalesced request inside one 128-byte line
  float acc = 0;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++) acc += win[(off + u * step + i * shift) & 4095];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Lanes 0..k-1 each chase their own point of one ring: every step is one load instruction
// whose k lanes need k different lines. The whole block first reads `warm_words` (0: cold).
__global__ void k_chase_lanes(const int *next, size_t warm_words, int k, int n, int cg,
                              size_t spread, int *out) {
  int acc = 0;
  for (size_t w = threadIdx.x; w < warm_words; w += blockDim.x) acc += next[w];
  __syncthreads();
  if (threadIdx.x >= k) return;
  int j = next[(size_t)threadIdx.x * spread * 32];
  if (cg) {
    for (int i = 0; i < n; i++) {
#pragma unroll
      for (int u = 0; u < 8; u++) j = __ldcg(next + j);
    }
  } else {
    for (int i = 0; i < n; i++) {
#pragma unroll
      for (int u = 0; u < 8; u++) j = next[j];
    }
  }
  out[threadIdx.x] = j + (acc == 123456789);
}

__device__ __forceinline__ void red_add(unsigned *p, unsigned v) {
  asm volatile("red.global.add.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

// every lane adds to word (lane % words) of one small region shared by the whole grid
__global__ void k_red_region(unsigned *p, int words, int n) {
  unsigned *a = p + (threadIdx.x & 31) % words;
  for (int i = 0; i < n; i++) red_add(a, 1u);
}

__device__ __forceinline__ unsigned atom_shared_add(unsigned addr, unsigned v) {
  unsigned old;
  asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(v) : "memory");
  return old;
}

__device__ __forceinline__ float atom_shared_add_f32(unsigned addr, float v) {
  float old;
  asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=f"(old) : "r"(addr), "f"(v) : "memory");
  return old;
}

// shared atomics, not aggregated: lanes use word (lane % words); `chain`: each uses the last result
__global__ void k_shared_atom(unsigned *out, int words, int n, int use_float) {
  __shared__ unsigned s[64];
  if (threadIdx.x < 64) s[threadIdx.x] = 0;
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(s);
  unsigned addr = base + 4u * ((threadIdx.x & 31) % words);
  unsigned acc = 0;
  if (use_float) {
    float f = 0;
    for (int i = 0; i < n; i++) f += atom_shared_add_f32(addr, 1.0f);
    acc = (unsigned)f;
  } else {
    for (int i = 0; i < n; i++) acc += atom_shared_add(addr, 1u);
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc + s[threadIdx.x & 63];
}

// Read `words4` float4 twice, separated by a grid-wide barrier (every block is resident): the
// second pass's DRAM traffic shows what the L2 kept of the first.
__global__ void k_read_twice(const float4 *src, size_t words4, unsigned *arrived, float *out) {
  float4 acc = make_float4(0, 0, 0, 0);
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = tid; k < words4; k += step) {
      float4 v = src[k];
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    if (pass == 0) {
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(arrived, 1u);
        while (atomicAdd(arrived, 0u) < gridDim.x) {}
      }
      __syncthreads();
    }
  }
  float s = acc.x + acc.y + acc.z + acc.w;
  if (s == 1234.5f) out[tid] = s;
}

// a counted loop with one dependent add per iteration: loop control and the taken branch
__global__ void k_branch_loop(int *out, int n) {
  int v = threadIdx.x;
  for (int i = 0; i < n; i++) v = (v + i) ^ 3;
  out[threadIdx.x] = v;
}

// stores into an L2-resident buffer from every SM: the L2's write bandwidth
__global__ void k_store_l2(float4 *dst, size_t words4, int n) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++)
    for (size_t k = tid; k < words4; k += step) dst[k] = make_float4(i, 1, 2, 3);
}


int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *fout;
  CHECK(cudaMalloc(&fout, (size_t)sms * 64 * 1024 * sizeof(float)));
  int *iout = (int *)fout;

  {  // L1 hits with plain loads
    const int grid = sms * 4, block = 256;
    const long long warps = (long long)grid * block / 32;
    std::vector<float> host((size_t)grid * 4096, 1.0f);
    float *src;
    CHECK(cudaMalloc(&src, host.size() * sizeof(float)));
    CHECK(cudaMemcpy(src, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    for (int n : {64, 256}) {
      TIMED k_l1_tput_plain<<<grid, block>>>(src, fout, 1, n); done("tput_l1plain_lines1", "n", n, grid, block, warps * 8 * n);
      TIMED k_l1_tput_plain<<<grid, block>>>(src, fout, 32, n / 8); done("tput_l1plain_lines32", "n", n / 8, grid, block, warps * 8 * (n / 8) * 32);
    }
    CHECK(cudaFree(src));
  }
  {  // chases: k lanes, cold DRAM ring (1 GB), L2-warm ring (4 MB, .cg), L1-warm ring (16 KB)
    int *big = chase_ring((size_t)1 << 23, 11);
    for (int k : {1, 2, 4, 8, 16, 32})
      for (int n : {16, 64}) {
        TIMED k_chase_lanes<<<1, 1024>>>(big, 0, k, n, 1, 4096, iout); done("chase_dram_lanes", "k", k * 1000 + n, 1, 1024, 8LL * n);
      }
    CHECK(cudaFree(big));
    int *l2 = chase_ring((size_t)1 << 15, 12);
    for (int k : {1, 8, 32})
      for (int n : {64, 256}) {
        TIMED k_chase_lanes<<<1, 1024>>>(l2, (size_t)1 << 20, k, n, 1, 1000, iout); done("chase_l2_lanes", "k", k * 1000 + n, 1, 1024, 8LL * n);
      }
    CHECK(cudaFree(l2));
    int *l1 = chase_ring(128, 13);
    for (int k : {1, 32})
      for (int n : {256, 1024}) {
        TIMED k_chase_lanes<<<1, 1024>>>(l1, 4096, k, n, 0, 4, iout); done("chase_l1plain_lanes", "k", k * 1000 + n, 1, 1024, 8LL * n);
      }
    CHECK(cudaFree(l1));
  }
  {  // global reductions into a region of 1, 8 (one sector) or 32 (one line) words
    const int grid = sms * 4, block = 256;
    const long long lanes = (long long)grid * block;
    std::vector<unsigned> zeros(1024, 0u);
    unsigned *p;
    CHECK(cudaMalloc(&p, 4096));
    CHECK(cudaMemcpy(p, zeros.data(), 4096, cudaMemcpyHostToDevice));
    for (int words : {1, 8, 32})
      for (int n : {1, 4}) {
        TIMED k_red_region<<<grid, block>>>(p, words, n); done("red_region", "words", words * 1000 + n, grid, block, lanes * n);
      }
    CHECK(cudaFree(p));
  }
  {  // shared atomics: 1 word (32-way), 32 words (no conflict); one warp and full occupancy
    for (int use_float : {0, 1})
      for (int words : {1, 32}) {
#ifdef SIMT_SELF_TIMED
        for (int n : {64, 512}) {   // self-timed: longer, for the events' resolution (n < 1000: value)
#else
        for (int n : {64, 256}) {
#endif
          TIMED k_shared_atom<<<1, 32>>>((unsigned *)iout, words, n, use_float);
          done(use_float ? "shared_atom_f32_1warp" : "shared_atom_1warp", "words", words * 1000 + n, 1, 32, n);
          TIMED k_shared_atom<<<sms * 8, 256>>>((unsigned *)iout, words, n, use_float);
          done(use_float ? "shared_atom_f32_full" : "shared_atom_full", "words", words * 1000 + n, sms * 8, 256,
               (long long)sms * 8 * 256 * n);
        }
      }
  }
  {  // L2 capacity inside one launch
    size_t max_bytes = (size_t)96 << 20;
    std::vector<float> host(max_bytes / 4, 1.0f);
    float4 *buf;
    unsigned *arrived;
    CHECK(cudaMalloc(&buf, max_bytes));
    CHECK(cudaMemcpy(buf, host.data(), max_bytes, cudaMemcpyHostToDevice));
    std::vector<unsigned> zeros(64, 0u);     // one arrival counter per launch (no memset kernels)
    CHECK(cudaMalloc(&arrived, 64 * 4));
    CHECK(cudaMemcpy(arrived, zeros.data(), 64 * 4, cudaMemcpyHostToDevice));
    int slot = 0;
    for (int mb : {8, 16, 24, 32, 40, 48, 64, 96}) {
      TIMED k_read_twice<<<sms, 1024>>>(buf, ((size_t)mb << 20) / 16, arrived + slot++, fout);
      done("l2_read_twice", "mb", mb, sms, 1024, (long long)mb << 20);
    }
    CHECK(cudaFree(buf));
  }
  for (int n : {1024, 4096}) {  // loop control
    TIMED k_branch_loop<<<1, 32>>>(iout, n); done("branch_loop", "n", n, 1, 32, n);
  }
  {  // L2 write bandwidth: a 16 MB buffer written n times by every SM
    float4 *dst;
    size_t w4 = ((size_t)16 << 20) / 16;
    CHECK(cudaMalloc(&dst, (size_t)16 << 20));
    for (int n : {4, 16}) {
      TIMED k_store_l2<<<sms * 8, 256>>>(dst, w4, n); done("store_l2", "n", n, sms * 8, 256, (long long)n * (16 << 20));
    }
    CHECK(cudaFree(dst));
  }
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
