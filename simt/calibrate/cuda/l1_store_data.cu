// What a warp's store of 32 lines (a sector each, a lane a line) costs its SM, alone and
// between loads of 32 lines that hit in the L1 (simt calibrate's part l1_store_data:
// l1_store_line_cycles and l1_store_sector_cycles, simt/calibrate/fit.py l1_store_costs).
// A load's lines come back to the warp through the L1's data stage, a line a cycle: what does
// a store's line take on its way to the L2, is that the SM's own cost or the L2's, does it
// matter whether the stored lines are in the L1, and does a load of a line the warp has just
// written wait for the store? Seen in the held-out sets: threads that each walk a row (lanes
// a row apart) reading and writing as they go run 1.3-1.9x longer than predicted.
// W warps a block, a block on every SM (W = 4 and 16) or on an eighth of them (W = 16 and
// 4). Warp w has its own 32 lines to read (lane l reads line l) and its own 32 lines to
// write, a word a lane a step, the word moving along the line from step to step; every
// kernel runs n = 256 and n = 1024 steps, and the difference is the steps' cost alone. The
// manifest names each launch: the kernel (bench), the steps (value), the blocks (grid) and
// the threads a block (block). Measured once on the H200 by benchmarks/timing/l1_store_data.py's
// command (data/h200/l1_store_data.csv), which prints the table and simt's predictions.
#include "micro_common.cuh"
#define LINE 32                                    // floats a line
__device__ __forceinline__ long my_line(int l) {   // the first float of lane l's line of this warp
  return (((blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5) * 32 + l) * LINE;
}
__device__ __forceinline__ float warm(const float *p) {   // the line's 4 sectors into the L1
  return p[0] + p[8] + p[16] + p[24];
}
// loads of 32 lines that hit in the L1
__global__ void k_ld32(const float *src, float *out, int n) {
  const float *a = src + my_line(threadIdx.x & 31);
  float acc = warm(a);
  for (int i = 0; i < n; i++) acc += a[i & (LINE - 1)];
  if (acc == -1.0f) out[0] = acc;
}
// stores of 32 lines the warp read first (in the L1)
__global__ void k_st32_in(float *dst, int n) {
  float *b = dst + my_line(threadIdx.x & 31);
  float v = warm(b);
  for (int i = 0; i < n; i++) b[i & (LINE - 1)] = v + i;
}
// stores of 32 lines the SM never reads (not in the L1)
__global__ void k_st32_out(float *dst, int n) {
  float *b = dst + my_line(threadIdx.x & 31);
  for (int i = 0; i < n; i++) b[i & (LINE - 1)] = (float)i;
}
// each step a load of 32 L1 lines and a store of 32 other lines, read first (in the L1) ...
__global__ void k_ldst32_in(const float *src, float *dst, int n) {
  const float *a = src + my_line(threadIdx.x & 31);
  float *b = dst + my_line(threadIdx.x & 31);
  float acc = warm(a) + warm(b);
  for (int i = 0; i < n; i++) {
    acc += a[i & (LINE - 1)];
    b[i & (LINE - 1)] = (float)i;
  }
  if (acc == -1.0f) b[0] = acc;
}
// ... or never read (not in the L1)
__global__ void k_ldst32_out(const float *src, float *dst, int n) {
  const float *a = src + my_line(threadIdx.x & 31);
  float *b = dst + my_line(threadIdx.x & 31);
  float acc = warm(a);
  for (int i = 0; i < n; i++) {
    acc += a[i & (LINE - 1)];
    b[i & (LINE - 1)] = (float)i;
  }
  if (acc == -1.0f) b[0] = acc;
}
// each step a load of 32 lines and a store to the word just read: the next step reads the
// next word, in the sector the warp just wrote (a row walk that updates in place)
__global__ void k_rmw32(float *dst, int n) {
  float *b = dst + my_line(threadIdx.x & 31);
  float acc = warm(b);
  for (int i = 0; i < n; i++) {
    acc += b[i & (LINE - 1)];
    b[i & (LINE - 1)] = acc;
  }
}
// the same a line a request (lanes on adjacent words): the next step reads the next line
// of the warp's 32, which it wrote 32 steps before
__global__ void k_rmw1(float *dst, int n) {
  float *b = dst + my_line(0);
  float acc = warm(b + (threadIdx.x & 31) * LINE);
  for (int i = 0; i < n; i++) {
    acc += b[(i & 31) * LINE + (threadIdx.x & 31)];
    b[(i & 31) * LINE + (threadIdx.x & 31)] = acc;
  }
}
// for scale: a whole-line store each step (a word a lane, 4 sectors)
__global__ void k_st1(float *dst, int n) {
  float *b = dst + my_line(0);
  for (int i = 0; i < n; i++) b[(i & 31) * LINE + (threadIdx.x & 31)] = (float)i;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  const size_t floats = (size_t)sms * 16 * 32 * LINE;      // per SM: 16 warps x 32 lines
  float *src = device_buffer<float>(floats, 0.0f), *dst = device_buffer<float>(floats, 0.0f);
  float *out = device_buffer<float>(16, 0.0f);
  // (warps a block, blocks): a block on every SM, or on an eighth of them (is the cost the
  // SM's own, or the L2's, shared by every SM?)
  const int shapes[4][2] = {{4, sms}, {16, sms}, {16, sms / 8}, {4, sms / 8}};
  for (auto &shape : shapes) {
    const int w = shape[0], grid = shape[1], block = 32 * w;
    for (int n : {256, 1024}) {
      const long lines = (long)grid * w * n * 32;           // lines a kernel's loads or stores touch
      TIMED k_ld32<<<grid, block>>>(src, out, n);        done("ld32", "steps", n, grid, block, lines);
      TIMED k_st32_in<<<grid, block>>>(dst, n);          done("st32_in", "steps", n, grid, block, lines);
      TIMED k_st32_out<<<grid, block>>>(dst, n);         done("st32_out", "steps", n, grid, block, lines);
      TIMED k_ldst32_in<<<grid, block>>>(src, dst, n);   done("ldst32_in", "steps", n, grid, block, lines);
      TIMED k_ldst32_out<<<grid, block>>>(src, dst, n);  done("ldst32_out", "steps", n, grid, block, lines);
      TIMED k_st1<<<grid, block>>>(dst, n);              done("st1", "steps", n, grid, block, lines);
      TIMED k_rmw32<<<grid, block>>>(dst, n);            done("rmw32", "steps", n, grid, block, lines);
      TIMED k_rmw1<<<grid, block>>>(dst, n);             done("rmw1", "steps", n, grid, block, lines);
    }
  }
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  CHECK(cudaFree(out));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
