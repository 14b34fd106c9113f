// One L1 data stage for shared memory and global memory? Each warp repeats, per step, LS
// shared loads with 32-way bank conflicts (32 wavefronts each), LG global loads that hit in
// L1 (one 128-byte line each) and SG global stores (one line each), at 4 blocks of 256 per SM.
// If shared wavefronts and global lines take turns on one data stage, a step costs about
// their sum; if they have separate pipes, the larger. The profiler counts both kinds of
// wavefront (l1tex__data_pipe_lsu_wavefronts).
//
//   nvcc -O3 -arch=sm_90 -o micro9 micro9.cu && ncu ... ./micro9 micro9_manifest.csv
#include "micro_common.cuh"

constexpr int WINDOW = 4096;          // floats of global memory per block: 16 KB, L1-resident

template <int LS, int LG, int SG>
__global__ void k_mix(const float *__restrict__ src, float *dst, float *out, int n) {
  __shared__ float s[1024];
  for (int k = threadIdx.x; k < 1024; k += blockDim.x) s[k] = k;
  __syncthreads();
  const float *win = src + (size_t)blockIdx.x * WINDOW;
  float *dwin = dst + (size_t)blockIdx.x * WINDOW;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int off = warp * 512 + lane;        // every request is one aligned line
  float acc = 0;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < LS; u++) acc += s[(lane * 32 + u * 33 + i) & 1023];    // one bank, 32 words
#pragma unroll
    for (int u = 0; u < LG; u++) acc += win[(off + u * 32 + i * 32) & (WINDOW - 1)];
#pragma unroll
    for (int u = 0; u < SG; u++) dwin[(off + u * 32 + i * 32) & (WINDOW - 1)] = acc;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <int LS, int LG, int SG>
static void run(const char *name, const float *src, float *dst, float *out, int sms, int n) {
  const int grid = sms * 4, block = 256;
  k_mix<LS, LG, SG><<<grid, block>>>(src, dst, out, n);
  // work: data-stage wavefronts a step would take if shared and global shared one stage
  done(name, "n", n, grid, block, (long long)grid * block / 32 * n * (32 * LS + LG + SG));
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  const size_t words = (size_t)sms * 4 * WINDOW;
  float *src, *dst, *out;
  CHECK(cudaMalloc(&src, words * sizeof(float)));
  CHECK(cudaMalloc(&dst, words * sizeof(float)));
  CHECK(cudaMalloc(&out, (size_t)sms * 4 * 256 * sizeof(float)));
  CHECK(cudaMemset(src, 0, words * sizeof(float)));
  for (int n : {32, 128}) {
    run<2, 0, 0>("lds2", src, dst, out, sms, n);
    run<0, 16, 0>("ldg16", src, dst, out, sms, n);
    run<0, 64, 0>("ldg64", src, dst, out, sms, n);
    run<2, 16, 0>("lds2_ldg16", src, dst, out, sms, n);
    run<2, 64, 0>("lds2_ldg64", src, dst, out, sms, n);
    run<1, 32, 0>("lds1_ldg32", src, dst, out, sms, n);
    run<0, 0, 4>("stg4", src, dst, out, sms, n);
    run<2, 0, 4>("lds2_stg4", src, dst, out, sms, n);
    run<2, 16, 4>("lds2_ldg16_stg4", src, dst, out, sms, n);
  }
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
