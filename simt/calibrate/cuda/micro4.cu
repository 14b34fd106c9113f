// Fourth set of microbenchmarks (method in micro.cu): what a block's start and end cost.
// One block at a time per SM (a large dynamic shared allocation), rounds of blocks that
// store or do not, wait for a DRAM load or do not; and block dispatch with several block
// sizes, so the cost per block and per warp can be told apart.
//
//   nvcc -O3 -arch=sm_90 -o micro4 micro4.cu && ./micro4 manifest.csv
#include <cstring>
#include "micro_common.cuh"


__global__ void k_nothing() {}
__global__ void k_store(float *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }
__global__ void k_load(const float *in, float *out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (v == 1234.5f) out[0] = v;         // never true: the block ends without storing
}
__global__ void k_load_store(const float *in, float *out) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1.0f;
}

// a loop whose exit test waits on the value it computes: FMA -> compare -> branch -> FMA
__global__ void k_branch_chain(float *out, float a, float b, float limit) {
  float v = 0.0f;
  int n = 0;
  while (v < limit) {
    v = fmaf(v, a, b);
    n++;
  }
  out[threadIdx.x] = v + n;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *in, *out;
  CHECK(cudaMalloc(&in, (size_t)256 << 20));
  CHECK(cudaMalloc(&out, (size_t)256 << 20));
  {  // zeros by copy: a memset could show up as a launch of its own
    float *zeros = (float *)calloc((size_t)64 << 20, sizeof(float));
    CHECK(cudaMemcpy(in, zeros, (size_t)256 << 20, cudaMemcpyHostToDevice));
    free(zeros);
  }
  const int big = 200 * 1024;
  CHECK(cudaFuncSetAttribute(k_nothing, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  CHECK(cudaFuncSetAttribute(k_store, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  CHECK(cudaFuncSetAttribute(k_load, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  CHECK(cudaFuncSetAttribute(k_load_store, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
#ifdef SIMT_SELF_TIMED
  for (int rounds : {16, 128}) {   // self-timed: longer, for the events' resolution
#else
  for (int rounds : {2, 8}) {
#endif
    const int grid = sms * rounds;
    TIMED k_nothing<<<grid, 32, big>>>(); done("rounds_nothing", "rounds", rounds, grid, 32, rounds);
    TIMED k_store<<<grid, 32, big>>>(out); done("rounds_store", "rounds", rounds, grid, 32, rounds);
    TIMED k_load<<<grid, 32, big>>>(in, out); done("rounds_load", "rounds", rounds, grid, 32, rounds);
    TIMED k_load_store<<<grid, 32, big>>>(in, out); done("rounds_load_store", "rounds", rounds, grid, 32, rounds);
    TIMED k_nothing<<<grid, 256, big>>>(); done("rounds_nothing256", "rounds", rounds, grid, 256, rounds);
  }
  // dispatch throughput by block size: many empty blocks, no shared memory
  for (int threads : {64, 256})
#ifdef SIMT_SELF_TIMED
    for (int per_sm : {16, 256}) {   // self-timed: longer, for the events' resolution
#else
    for (int per_sm : {16, 64}) {
#endif
      TIMED k_nothing<<<sms * per_sm, threads>>>();
      done(threads == 64 ? "dispatch64" : "dispatch256", "ctas_per_sm", per_sm, sms * per_sm, threads, per_sm);
    }
  // one wave, many waves: blocks that load and store, 8 of them per SM
  for (int per_sm : {8, 32, 128}) {
    TIMED k_load_store<<<sms * per_sm, 256>>>(in, out);
    done("waves_load_store", "ctas_per_sm", per_sm, sms * per_sm, 256, per_sm);
  }
  for (int iters : {1000, 4000}) {   // v grows by 1 a step: iters steps
    TIMED k_branch_chain<<<1, 32>>>(out, 1.0f, 1.0f, (float)iters);
    done("branch_chain", "iters", iters, 1, 32, iters);
  }
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
