// How much of the L2 a line read by many SMs can use: a buffer read twice by one block per SM,
// the second pass by the same SM (shift 0) or by another (shift 1, shift sms/2), and a random
// gather of one sector at a time over tables of 8-64 MB from every SM. Profiled with Nsight
// Compute (caches flushed before each launch); l2_sharing.py reads the CSV and sets simt's
// predictions beside it, and simt calibrate fits timing.l2_requests_per_cycle from it. Writes
// the manifest (launch,bench,mb,param) to the file its argument names, or to stdout (as for
// data/h200/l2_sharing.csv, the manifest's lines among the profiler's).
//
//   nvcc -O3 -arch=sm_90 -o /tmp/l2_sharing l2_sharing.cu
//   ncu --clock-control none --csv --print-units base --metrics dram__bytes_read.sum,\
//     sm__cycles_elapsed.max,lts__t_sectors_srcunit_tex_op_read.sum,\
//     lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum /tmp/l2_sharing > data/h200/l2_sharing.csv
#include <cstdio>
#include <cuda_runtime.h>

__global__ void read_twice_shift(const float4* src, size_t words4, unsigned* arrived, float* out, int shift) {
  float4 acc = make_float4(0, 0, 0, 0);
  size_t step = (size_t)gridDim.x * blockDim.x;
  for (int pass = 0; pass < 2; pass++) {
    size_t b = pass == 0 ? blockIdx.x : (blockIdx.x + shift) % gridDim.x;
    for (size_t k = b * blockDim.x + threadIdx.x; k < words4; k += step) {
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
  if (s == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// every thread reads `iters` random 32-byte sectors (a float4 of each) of a table of `sectors`
__global__ void gather(const float4* table, unsigned sectors, int iters, float* out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < iters; i++) {
    unsigned h = (t * 0x9E3779B1u) ^ (i * 0x85EBCA77u);
    h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12; h *= 0x297A2D39u; h ^= h >> 15;
    float4 v = table[(size_t)(h % sectors) * 2];
    s += v.x;
  }
  if (s == 1234.5f) out[t] = s;
}

int main(int argc, char** argv) {
  FILE* manifest = argc > 1 ? fopen(argv[1], "w") : stdout;
  if (!manifest) { perror(argv[1]); return 1; }
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float4* buf; cudaMalloc(&buf, (size_t)64 << 20); cudaMemset(buf, 0, (size_t)64 << 20);
  float* out; cudaMalloc(&out, (size_t)sms * 8 * 256 * 4);
  unsigned* arrived; cudaMalloc(&arrived, 4096); cudaMemset(arrived, 0, 4096);
  int launch = 0, slot = 0;
  fprintf(manifest, "launch,bench,mb,param\n");
  int shifts[3] = {0, 1, sms / 2};
  for (int mb : {16, 24, 32, 40, 48})
    for (int sh : shifts) {
      read_twice_shift<<<sms, 1024>>>(buf, ((size_t)mb << 20) / 16, arrived + slot++, out, sh);
      cudaDeviceSynchronize(); fprintf(manifest, "%d,read_twice_shift,%d,%d\n", launch++, mb, sh);
    }
  for (int mb : {8, 16, 24, 32, 40, 48, 64}) {
    unsigned sectors = (unsigned)(((size_t)mb << 20) / 32);
    int threads = sms * 8 * 256;
    int iters = (int)((8.0 * sectors) / threads + 0.5);   // 8 reads a sector on average
    gather<<<sms * 8, 256>>>(buf, sectors, iters, out);
    cudaDeviceSynchronize(); fprintf(manifest, "%d,gather,%d,%d\n", launch++, mb, iters);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
  if (manifest != stdout) fclose(manifest);
  return 0;
}
