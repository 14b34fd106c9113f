// Sixth set of microbenchmarks (method in micro.cu): streams of one element per thread, the
// shape of most simple kernels (y[i] = f(x[i]), one block of 256 threads per 256 elements),
// from a grid that fits in the L2 to one whose data is well beyond it. Each block reads and
// writes once and exits, so these measure block turnover under memory load as well as the
// memory system: the float4 versions move the same bytes with a quarter of the threads, the
// grid-stride versions with 8 resident blocks per SM that never exit until the end.
//
//   nvcc -O3 -arch=sm_90 -o micro6 micro6.cu && ./micro6 manifest.csv
#include "micro_common.cuh"

__global__ void k_load_store(const float *in, float *out) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1.0f;
}
__global__ void k_load_store4(const float4 *in, float4 *out) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = in[i];
  out[i] = make_float4(v.x + 1.0f, v.y + 1.0f, v.z + 1.0f, v.w + 1.0f);
}
__global__ void k_load(const float *in, float *out) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (v == 1234.5f) out[0] = v;         // never true: the block ends without storing
}
__global__ void k_store(float *out) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = (float)threadIdx.x;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  const size_t most = (size_t)sms * 256 * 512;          // elements at 512 blocks per SM
  float *in = random_buffer(most), *out = random_buffer(most);
  // work = elements; value = blocks of 256 threads per SM in the one-element-per-thread shape
  for (int per_sm : {16, 64, 128, 256, 512}) {
    const int grid = sms * per_sm;
    const long long n = (long long)grid * 256;
    k_load_store<<<grid, 256>>>(in, out); done("elem_load_store", "ctas_per_sm", per_sm, grid, 256, n);
    k_load<<<grid, 256>>>(in, out); done("elem_load", "ctas_per_sm", per_sm, grid, 256, n);
    k_store<<<grid, 256>>>(out); done("elem_store", "ctas_per_sm", per_sm, grid, 256, n);
    k_load_store4<<<grid / 4, 256>>>((const float4 *)in, (float4 *)out);
    done("elem4_load_store", "ctas_per_sm", per_sm, grid / 4, 256, n);
    k_grid_stride_copy<<<sms * 8, 256>>>(in, out, (size_t)n);
    done("stride_load_store", "ctas_per_sm", per_sm, sms * 8, 256, n);
  }
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
