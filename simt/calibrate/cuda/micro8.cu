// Loaded latency under writes: micro5.cu's DRAM chase (block 0, one lane, dependent loads,
// timed with clock64) while the other blocks write a 1 GB buffer (write) or copy one 1 GB
// buffer into another (copy), instead of only reading. What the written bytes do to a read's
// latency, beside what micro5 measured for read traffic alone. No profiler:
//
//   nvcc -O3 -arch=sm_90 -o micro8 micro8.cu && ./micro8 > loaded_latency_writes.csv
#include <cstdint>
#include "micro_common.cuh"

__global__ void k_loaded_w(const int *ring, int steps, const float4 *src, float4 *dst, size_t words4,
                           int copy, volatile int *done, unsigned long long *bytes, long long *out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      long long t0 = clock64();
      while (clock64() - t0 < 20000) {}     // let the streams start
      int j = 0;
      long long start = clock64();
      for (int i = 0; i < steps; i++) j = __ldcg(ring + j);
      long long stop = clock64();
      out[0] = stop - start;
      out[1] = j;
      __threadfence();
      *done = 1;
    }
    return;
  }
  size_t tid = (size_t)(blockIdx.x - 1) * blockDim.x + threadIdx.x;
  size_t step = (size_t)(gridDim.x - 1) * blockDim.x;
  size_t k = tid;
  unsigned long long n = 0;
  long long t0 = clock64();
  while (!*done) {
    for (int r = 0; r < 16; r++) {
      if (copy) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) v[u] = __ldcg(src + (k + u * step) % words4);
#pragma unroll
        for (int u = 0; u < 4; u++) __stcg(dst + (k + u * step) % words4, v[u]);
        n += 4;
      } else {
#pragma unroll
        for (int u = 0; u < 4; u++) __stcg(dst + (k + u * step) % words4, make_float4(k, u, r, 1.0f));
        n += 4;
      }
      k += 4 * step;
      if (k >= words4) k = tid;
    }
  }
  long long t1 = clock64();
  atomicAdd(bytes, n);
  if (threadIdx.x == 0 && blockIdx.x == 1) out[3] = t1 - t0;
}

int main() {
  size_t gb = (size_t)1 << 30;
  float4 *src, *dst;
  CHECK(cudaMalloc(&src, gb));
  CHECK(cudaMalloc(&dst, gb));
  CHECK(cudaMemset(src, 0, gb));
  CHECK(cudaMemset(dst, 0, gb));
  int *dram_ring = chase_ring((size_t)1 << 22, 21);     // 512 MB: every step misses
  LoadedChase probe;
  // float4s each stream thread moved: write = written, copy = read and written
  printf("mode,stream_blocks,threads,steps,chase_cycles,stream_float4s,stream_cycles\n");
  const int threads = 256;
  for (int copy = 0; copy < 2; copy++) {
    for (int blocks : {0, 8, 16, 33, 66, 132, 264, 528}) {
      probe.reset();
      int steps = 2000;
      k_loaded_w<<<blocks + 1, threads>>>(dram_ring, steps, src, dst, gb / 16, copy, probe.done, probe.bytes,
                                          probe.out);
      printf("%s,%d,%d,%d,", copy ? "copy" : "write", blocks, threads, steps);
      probe.print_result(blocks);
    }
  }
  return 0;
}
