// What sets the pace of global reductions to many lines, and of random reads, writes and
// updates of a table DRAM holds. Seen in micro.cu: reductions of one lane a line go at about 35
// lines a cycle GPU-wide on 1,024 hot lines (red_1024_addresses: a warp's lanes on 32
// consecutive lines, every warp on the same 1,024) but at about 54 on lines hashed over a 4 MB
// table (red_scatter_l2), and the same hashed updates over 256 MB go at about 9.5 lane updates
// a cycle, far below what DRAM's bandwidth allows for the bytes they move. Which of the two
// differences sets the first: how often a unit sees a line again (the table's size), or a
// warp's lanes going to consecutive lines (several to one unit)?
//   k_red_rand:  each lane a line hashed over a table of L lines (word 0 of the line);
//   k_red_run:   each warp 32 consecutive lines at a hashed base (a multiple of 32 lines);
//   k_red_wline: each warp one hashed line, a word a lane (4 sectors a request);
//   k_ld_rand:   each lane loads word 0 of a hashed line (the sum kept, one store a lane);
//   k_ld_wline:  each warp loads one hashed line, a word a lane;
//   k_st_rand:   each lane stores word 0 of a hashed line.
// Tables of 2^10 to 2^16 lines (128 KB-8 MB, the L2 holds them) and 2^21 lines (256 MB, it
// does not). 4 blocks of 256 threads an SM; every kernel runs n = 4 and n = 16 steps, the
// difference is the steps' cost alone. The manifest names each launch: kernel (bench), 100 x
// log2 of the table's lines plus the steps (value, param "log2_lines"), grid, block, and the
// lane operations (work). A part of simt calibrate (simt.calibrate.fit.atomic_hot_window fits the
// window from red_rand over 2^12 lines); benchmarks/timing/atomic_lines.py prints the table and,
// with --model, simt's predictions of the same kernels.
#include "micro_common.cuh"
#include "atomics.cuh"

__global__ void k_red_rand(unsigned *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) red_add(p + (size_t)(mix32(t + i * lanes) & mask) * 32, 1u);
}

__global__ void k_red_run(unsigned *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  for (int i = 0; i < n; i++) {
    const unsigned base = mix32(t / 32 + i * warps) & mask & ~31u;
    red_add(p + (size_t)(base + (t & 31)) * 32, 1u);
  }
}

__global__ void k_red_wline(unsigned *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  for (int i = 0; i < n; i++) red_add(p + (size_t)(mix32(t / 32 + i * warps) & mask) * 32 + (t & 31), 1u);
}

__global__ void k_ld_rand(const unsigned *p, unsigned *out, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  unsigned s = 0;
  for (int i = 0; i < n; i++) s += p[(size_t)(mix32(t + i * lanes) & mask) * 32];
  out[t] = s;
}

__global__ void k_ld_wline(const unsigned *p, unsigned *out, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  unsigned s = 0;
  for (int i = 0; i < n; i++) s += p[(size_t)(mix32(t / 32 + i * warps) & mask) * 32 + (t & 31)];
  out[t] = s;
}

__global__ void k_st_rand(unsigned *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) p[(size_t)(mix32(t + i * lanes) & mask) * 32] = t + i;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int grid = sm_count() * 4, block = 256;
  const long long lanes = (long long)grid * block;
  unsigned *p = device_buffer<unsigned>((size_t)32 << 21, 0u);          // 2^21 lines: 256 MB
  unsigned *out = device_buffer<unsigned>((size_t)lanes, 0u);
  for (int lg : {10, 12, 14, 16, 21}) {
    const unsigned mask = (1u << lg) - 1;
    for (int n : {4, 16}) {
      TIMED k_red_rand<<<grid, block>>>(p, mask, n);       done("red_rand", "log2_lines", lg * 100 + n, grid, block, lanes * n);
      TIMED k_red_run<<<grid, block>>>(p, mask, n);        done("red_run", "log2_lines", lg * 100 + n, grid, block, lanes * n);
      TIMED k_red_wline<<<grid, block>>>(p, mask, n);      done("red_wline", "log2_lines", lg * 100 + n, grid, block, lanes * n);
      if (lg == 16 || lg == 21) {
        TIMED k_ld_rand<<<grid, block>>>(p, out, mask, n);  done("ld_rand", "log2_lines", lg * 100 + n, grid, block, lanes * n);
        TIMED k_ld_wline<<<grid, block>>>(p, out, mask, n); done("ld_wline", "log2_lines", lg * 100 + n, grid, block, lanes * n);
        TIMED k_st_rand<<<grid, block>>>(p, mask, n);       done("st_rand", "log2_lines", lg * 100 + n, grid, block, lanes * n);
      }
    }
  }
  CHECK(cudaFree(p));
  CHECK(cudaFree(out));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
