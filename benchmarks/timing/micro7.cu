// Seventh set of microbenchmarks (method in micro.cu): how much a grid-stride stream gets
// from DRAM for the lines it keeps in flight. 17.3M floats (69 MB, beyond the L2) are read
// by 1, 2, 4 or 8 resident blocks of 256 threads per SM, each warp one line (scalar floats)
// or four (float4) per load, or four independent scalar loads per step (unroll4): the same
// number of lines in flight reached by more warps or by wider or more loads per warp.
//
//   nvcc -O3 -arch=sm_90 -o micro7 micro7.cu && ./micro7 manifest.csv
#include "micro_common.cuh"

__global__ void k_read(const float *in, float *out, size_t n) {
  float acc = 0.0f;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    acc += in[i];
  if (acc == -1.0f) out[0] = acc;       // never true: keeps the loads
}
__global__ void k_read4(const float4 *in, float *out, size_t n4) {
  float acc = 0.0f;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == -1.0f) out[0] = acc;
}
__global__ void k_read_unroll4(const float *in, float *out, size_t n) {
  float acc = 0.0f;
  const size_t s = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 4 * s) {
    float a = in[i], b = in[i + s], c = in[i + 2 * s], d = in[i + 3 * s];
    acc += (a + b) + (c + d);
  }
  if (acc == -1.0f) out[0] = acc;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  const size_t n = (size_t)sms * 256 * 512;             // a multiple of 4 x every grid below
  float *in = random_buffer(n), *out;
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  // value = resident blocks of 256 threads per SM; work = floats read
  for (int per_sm : {1, 2, 4, 8}) {
    const int grid = sms * per_sm;
    k_read<<<grid, 256>>>(in, out, n); done("read", "ctas_per_sm", per_sm, grid, 256, n);
    k_read4<<<grid, 256>>>((const float4 *)in, out, n / 4); done("read4", "ctas_per_sm", per_sm, grid, 256, n);
    k_read_unroll4<<<grid, 256>>>(in, out, n); done("read_unroll4", "ctas_per_sm", per_sm, grid, 256, n);
    k_grid_stride_copy<<<grid, 256>>>(in, out, n); done("copy", "ctas_per_sm", per_sm, grid, 256, n);
  }
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
