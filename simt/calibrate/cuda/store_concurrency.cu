// How fast the L2 takes scattered one-sector stores from the whole GPU, and what sets that
// pace: the number of warps storing on each SM, and whether a warp stores to the same lines
// step after step or to new ones. Seen in l1_store_data.cu: with a block of 16 warps on every
// SM, stores of 32 one-sector lines (the same 32 lines every step) go at 4.1 cycles a line
// per SM, about 32 lines a cycle GPU-wide, while micro3.cu's scatter_store_l2 (64 warps an
// SM, a new line every store) reaches about 38 lines a cycle; the L2 rate the timing model
// has (l2_write_cycles_per_line and _per_sector) comes from the second.
// A block of W warps on every SM (W = 2 to 32) or on an eighth of the SMs (W = 16, 32); each
// lane stores one word a step into a line of its own, the warp's 32 lanes into 32 lines:
//   k_st_same: the warp's own 32 lines every step (l1_store_data.cu's st32_out);
//   k_st_new:  32 new lines every step, walking a 16 MB region (it stays in the L2).
// Every kernel runs n = 256 and n = 1024 steps; the difference is the steps' cost alone. The
// manifest names each launch: the kernel (bench), the steps (value), the blocks (grid) and
// the threads a block (block). Not measured yet: benchmarks/timing/store_concurrency.py gives
// the command (its output goes to data/h200/store_concurrency.csv) and prints the table and,
// with --model, simt's predictions.
#include "micro_common.cuh"
#define LINE 32                                   // floats a line
#define REGION_LINES (128L * 1024)                // 16 MB of lines for k_st_new

__global__ void k_st_same(float *dst, int n) {
  float *b = dst + (((blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5) * 32 + (threadIdx.x & 31)) * LINE;
  for (int i = 0; i < n; i++) b[i & (LINE - 1)] = (float)i;
}

__global__ void k_st_new(float *dst, int n) {
  const long me = blockIdx.x * (long)blockDim.x + threadIdx.x;
  const long lanes = (long)gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) {
    const long line = (me + i * lanes) % REGION_LINES;
    dst[line * LINE + (i & 7)] = (float)i;
  }
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  const size_t floats = std::max((size_t)sms * 32 * 32 * LINE, (size_t)REGION_LINES * LINE);
  float *dst = device_buffer<float>(floats, 0.0f);
  const int shapes[7][2] = {{2, sms}, {4, sms}, {8, sms}, {16, sms}, {32, sms}, {16, sms / 8}, {32, sms / 8}};
  for (auto &shape : shapes) {
    const int w = shape[0], grid = shape[1], block = 32 * w;
    for (int n : {256, 1024}) {
      const long lines = (long)grid * w * n * 32;          // lines the kernel's stores touch
      TIMED k_st_same<<<grid, block>>>(dst, n);  done("st_same", "steps", n, grid, block, lines);
      TIMED k_st_new<<<grid, block>>>(dst, n);   done("st_new", "steps", n, grid, block, lines);
    }
  }
  CHECK(cudaFree(dst));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
