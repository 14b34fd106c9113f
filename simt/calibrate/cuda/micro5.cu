// Loaded latency: how a DRAM access's latency grows with the memory traffic of the rest of the
// GPU. Block 0 chases a pointer ring through DRAM (one lane, dependent loads) and times each
// step with clock64(); the other blocks stream a 1 GB buffer with float4 loads until the chase
// is done, and count the bytes they read. Every level of streaming blocks gives one row: the
// chase's cycles per step against the DRAM bandwidth in use at the time. (The same with an
// L2-resident ring gives the L2 latency under the same traffic.) Timed in-kernel, no profiler:
//
//   nvcc -O3 -arch=sm_90 -o micro5 micro5.cu && ./micro5 > loaded_latency.csv
#include <cstdint>
#include "micro_common.cuh"


__global__ void k_loaded(const int *ring, int steps, int warm_words, const float4 *stream,
                         size_t words4, volatile int *done, unsigned long long *bytes,
                         long long *out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      int acc = 0;
      for (int w = 0; w < warm_words; w += 32) acc += ring[w];     // L2 ring: bring it in
      // let the streams start
      long long t0 = clock64();
      while (clock64() - t0 < 20000) {}
      int j = acc == 123456789 ? 32 : 0;     // keeps the warm-up loads
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
  // stream until the chase is done
  float4 acc = make_float4(0, 0, 0, 0);
  size_t tid = (size_t)(blockIdx.x - 1) * blockDim.x + threadIdx.x;
  size_t step = (size_t)(gridDim.x - 1) * blockDim.x;
  size_t k = tid;
  unsigned long long n = 0;
  long long t0 = clock64();
  while (!*done) {
    for (int r = 0; r < 16; r++) {          // 8 independent loads in flight per thread
      float4 v[8];
#pragma unroll
      for (int u = 0; u < 8; u++) v[u] = __ldcg(stream + (k + u * step) % words4);
#pragma unroll
      for (int u = 0; u < 8; u++) { acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w; }
      n += 8 * 16;
      k += 8 * step;
      if (k >= words4) k = tid;
    }
  }
  long long t1 = clock64();
  if (acc.x == 1234.5f) out[2] = 1;
  atomicAdd(bytes, n);
  if (threadIdx.x == 0 && blockIdx.x == 1) out[3] = t1 - t0;
}


int main() {
  const int sms = sm_count();
  size_t gb = (size_t)1 << 30;
  float4 *stream;
  CHECK(cudaMalloc(&stream, gb));
  {
    std::vector<float> host(gb / 4, 1.0f);
    CHECK(cudaMemcpy(stream, host.data(), gb, cudaMemcpyHostToDevice));
  }
  int *dram_ring = chase_ring((size_t)1 << 22, 21);     // 512 MB: every step misses
  int *l2_ring = chase_ring((size_t)1 << 13, 22);       // 1 MB: stays in L2
  LoadedChase probe;
  printf("ring,stream_blocks,threads,steps,chase_cycles,stream_bytes,stream_cycles\n");
  const int threads = 256;
  for (int ring = 0; ring < 2; ring++) {
    for (int blocks : {0, 8, 16, 33, 66, 132, 264, 528, 1056}) {
      if (blocks + 1 > sms * 8) continue;
      probe.reset();
      int steps = 2000;
      k_loaded<<<blocks + 1, threads>>>(ring ? l2_ring : dram_ring, steps, ring ? (1 << 18) : 0,
                                        stream, gb / 16, probe.done, probe.bytes, probe.out);
      printf("%s,%d,%d,%d,", ring ? "l2" : "dram", blocks, threads, steps);
      probe.print_result(blocks);
    }
  }
  return 0;
}
