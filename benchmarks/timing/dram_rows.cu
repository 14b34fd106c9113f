// What a DRAM access costs when the DRAM has not opened its part of memory lately. Seen in
// atomic_lines.cu over 256 MB: one-lane loads of hashed lines move 27 lines a cycle GPU-wide,
// about two thirds of what micro.cu's streams get for the same bytes, and hashed stores and
// updates (a read and a write each) under a third. Which size of region is "near" (read at the
// streams' rate once opened), what opening one costs, and how many regions DRAM keeps open at
// once (how far apart in time two reads of one region may be):
//   k_chunk_ld:  each lane reads chunks of S bytes at hashed places in 1 GB, one float of each
//                64-byte piece (one 64-byte fetch a step), S = 64 B .. 4 KB;
//   k_chunk_st:  the same chunks written, each 64-byte piece whole (four 16-byte stores: DRAM
//                writes it without reading it first);
//   k_streams:   1 GB read once as contiguous streams, a warp's lanes in g groups, each group
//                its own stream read 64 bytes a lane a step: g = 1 (2 KB of one stream a warp
//                step) .. 32 (a lane a stream, as a thread walking its own row).
// 4 blocks of 256 threads an SM. The chunk kernels run 4 KB and 16 KB a lane (the difference
// is the steps' cost alone). The manifest names each launch: kernel (bench), the parameter
// (value: 100 x log2 S + KB a lane for the chunk kernels, log2 g for the streams), grid,
// block and the 64-byte pieces read or written (work). dram_rows.py here prints the table and,
// with --model, simt's predictions of the same kernels. (simt calibrate fits the least DRAM
// time of an access, dram_access_bytes, from atomic_lines.cu's ld_rand, which this confirms.)
#include "../../simt/calibrate/cuda/micro_common.cuh"

__device__ __forceinline__ unsigned mix32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

constexpr size_t BUFFER = (size_t)1 << 30;

__global__ void k_chunk_ld(const float *p, float *out, int log2_s, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  const unsigned mask = (unsigned)(BUFFER >> log2_s) - 1;
  const int steps = 1 << (log2_s - 6);
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    const float *c = p + (((size_t)(mix32(t + i * lanes) & mask) << log2_s) >> 2);
#pragma unroll 8
    for (int j = 0; j < steps; j++) s += c[j * 16];
  }
  out[t] = s;
}

__global__ void k_chunk_st(float4 *p, int log2_s, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  const unsigned mask = (unsigned)(BUFFER >> log2_s) - 1;
  const int steps = 1 << (log2_s - 6);
  for (int i = 0; i < n; i++) {
    float4 *c = p + (((size_t)(mix32(t + i * lanes) & mask) << log2_s) >> 4);
#pragma unroll 4
    for (int j = 0; j < steps; j++)
      for (int q = 0; q < 4; q++) c[j * 4 + q] = make_float4((float)t, (float)i, (float)j, (float)q);
  }
}

__global__ void k_streams(const float *p, float *out, int log2_g, size_t region_floats, int steps) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lane = t & 31;
  const int per = 32 >> log2_g;                       // lanes a stream
  const size_t stream = (size_t)(t / 32) * (1u << log2_g) + lane / per;
  const float *c = p + stream * region_floats + (lane % per) * 16;
  float s = 0.0f;
#pragma unroll 8
  for (int j = 0; j < steps; j++) s += c[(size_t)j * per * 16];
  out[t] = s;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int grid = sm_count() * 4, block = 256;
  const long long lanes = (long long)grid * block;
  float *p = device_buffer<float>(BUFFER / 4, 1.0f);
  float *out = device_buffer<float>((size_t)lanes, 0.0f);
  for (int lg = 6; lg <= 12; lg++) {
    for (int kb : {4, 16}) {
      const int n = (kb << 10) >> lg;                   // chunks a lane
      const long long work = lanes * ((long long)kb << 10) / 64;
      TIMED k_chunk_ld<<<grid, block>>>(p, out, lg, n);     done("chunk_ld", "log2_bytes", lg * 100 + kb, grid, block, work);
      TIMED k_chunk_st<<<grid, block>>>((float4 *)p, lg, n); done("chunk_st", "log2_bytes", lg * 100 + kb, grid, block, work);
    }
  }
  const long long warps = lanes / 32;
  for (int lgg = 0; lgg <= 5; lgg++) {
    const long long streams = warps << lgg;
    const size_t region = (BUFFER / 4 / streams) / (16 * (32 >> lgg)) * (16 * (32 >> lgg));   // floats, whole steps
    const int steps = (int)(region / 16 / (32 >> lgg));
    TIMED k_streams<<<grid, block>>>(p, out, lgg, region, steps);
    done("streams", "log2_groups", lgg, grid, block, lanes * steps);
  }
  CHECK(cudaFree(p));
  CHECK(cudaFree(out));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
