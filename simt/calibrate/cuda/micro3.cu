// Third set of microbenchmarks (method in micro.cu): the cost of starting and retiring a block,
// the first work of a launch, stores that fill only part of a sector, and DRAM under mixes of
// reads and writes.
//
//   nvcc -O3 -arch=sm_90 -o micro3 micro3.cu && ./micro3 manifest.csv
#include "micro_common.cuh"


// a block that runs a dependent FMA chain of `n` steps and stores the result; with enough
// dynamic shared memory only one such block fits on an SM at a time
__global__ void k_block_work(float *out, float a, float b, int n) {
  extern __shared__ float pad[];
  float v = threadIdx.x;
  for (int i = 0; i < n; i++) v = fmaf(v, a, b);
  if (n < 0) pad[threadIdx.x] = v;          // the shared memory is reserved, never used
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// the first memory work of a launch: one warp stores, or loads (cold) and stores
__global__ void k_one_store(float *out) { out[threadIdx.x] = threadIdx.x; }
__global__ void k_load_store(const float *in, float *out) { out[threadIdx.x] = in[threadIdx.x] + 1.0f; }

// stores that write 4 bytes of a sector: lanes `stride` floats apart (32: a line each)
__global__ void k_scatter_store(float *dst, size_t stride, size_t words, int n) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t threads = (size_t)gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) dst[((tid + i * threads) * stride) % words] = i;
}

// streams with several reads or several writes per element (float4, grid-stride)
__global__ void k_r2w1(const float4 *a, const float4 *b, float4 *c, size_t n) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (size_t k = tid; k < n; k += step) {
    float4 x = a[k], y = b[k];
    c[k] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void k_r1w2(const float4 *a, float4 *b, float4 *c, size_t n) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (size_t k = tid; k < n; k += step) {
    float4 x = a[k];
    b[k] = x;
    c[k] = make_float4(x.w, x.z, x.y, x.x);
  }
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *out;
  CHECK(cudaMalloc(&out, (size_t)64 << 20));

  // blocks one after another on every SM: rounds x (work + the cost of a block)
  const int big = 200 * 1024;
  CHECK(cudaFuncSetAttribute(k_block_work, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  for (int n : {0, 512})
    for (int rounds : {2, 8}) {
      TIMED k_block_work<<<sms * rounds, 32, big>>>(out, 0.999f, 0.5f, n);
      done(n ? "block_rounds_work" : "block_rounds_empty", "rounds", rounds, sms * rounds, 32, n);
      TIMED k_block_work<<<sms * rounds, 256, big>>>(out, 0.999f, 0.5f, n);
      done(n ? "block_rounds_work256" : "block_rounds_empty256", "rounds", rounds, sms * rounds, 256, n);
    }
  TIMED k_block_work<<<1, 32, 0>>>(out, 0.999f, 0.5f, 0); done("one_block_chain0", "n", 0, 1, 32, 0);
  TIMED k_block_work<<<1, 32, 0>>>(out, 0.999f, 0.5f, 512); done("one_block_chain512", "n", 512, 1, 32, 512);
  for (int r = 0; r < 3; r++) {
    TIMED k_one_store<<<1, 32>>>(out); done("one_store", "rep", r, 1, 32, 0);
    TIMED k_load_store<<<1, 32>>>(out + (8 << 20), out); done("load_store", "rep", r, 1, 32, 0);
  }
  {  // partial-sector stores: into an L2-resident 8 MB region, and across 1 GB
    float *dst;
    size_t gb = (size_t)1 << 30;
    CHECK(cudaMalloc(&dst, gb));
    const int grid = sms * 8, block = 256;
    const long long lanes = (long long)grid * block;
    for (int n : {4, 16}) {
      TIMED k_scatter_store<<<grid, block>>>(dst, 32, (8 << 20) / 4, n);
      done("scatter_store_l2", "n", n, grid, block, lanes * n);
      TIMED k_scatter_store<<<grid, block>>>(dst, 32, gb / 4, n);
      done("scatter_store_dram", "n", n, grid, block, lanes * n);
      TIMED k_scatter_store<<<grid, block>>>(dst, 1, (8 << 20) / 4, n);
      done("coalesced_store_l2", "n", n, grid, block, lanes * n);
    }
    CHECK(cudaFree(dst));
  }
  {  // DRAM with 2 reads per write and 1 read per 2 writes (float4 streams)
    const int grid = sms * 8, block = 256;
    size_t mb = 256;
    size_t n4 = (mb << 20) / 16;
    float4 *a, *b, *c;
    CHECK(cudaMalloc(&a, mb << 20));
    CHECK(cudaMalloc(&b, mb << 20));
    CHECK(cudaMalloc(&c, mb << 20));
    std::vector<float> host((mb << 20) / 4, 1.0f);
    CHECK(cudaMemcpy(a, host.data(), mb << 20, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, host.data(), mb << 20, cudaMemcpyHostToDevice));
    for (size_t part : {4, 1}) {
      TIMED k_r2w1<<<grid, block>>>(a, b, c, n4 / part); done("stream_r2w1", "mb", mb / part, grid, block, 3 * (mb << 20) / part);
      TIMED k_r1w2<<<grid, block>>>(a, b, c, n4 / part); done("stream_r1w2", "mb", mb / part, grid, block, 3 * (mb << 20) / part);
    }
  }
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
