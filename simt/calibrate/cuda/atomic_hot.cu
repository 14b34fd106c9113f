// Global atomics on a few hot lines, as a histogram, a gridding or a cursor table makes them:
// how fast the L2's atomic units take lanes that update random words of a small table, for u32
// and f32 additions, with and without the old value returned. atomic_lines.cu measured tables
// of 2^10 lines and more, and only word 0 of each line; the blind sets' histograms and
// clustered scatters (128-512 hot lines, lanes on any word of a line) run 1.2-1.6x slower on
// the H200 than simt predicts.
//   k_red_word:     each lane a word hashed over a table of L lines (32 L words), red.add.u32;
//   k_red_word_f32: the same, red.add.f32;
//   k_atom_word:    the same, atom.add.u32, the old values summed and stored (one store a lane);
//   k_red_line:     each lane word 0 of a line hashed over L lines, red.add.u32 (atomic_lines.cu's
//                   red_rand, to fewer lines);
//   k_red_line_f32: the same, red.add.f32;
//   k_red_wword(_f32): a warp's 32 lanes all on one word, the word hashed over W words S words
//                   apart (W = 1, 32 or 1,024; S = 1 or 32: 32 words of one line, or a word
//                   a line), u32 or f32: a reduction into a few accumulators (a gradient, a
//                   segment's sum) as the blind sets' logistic-regression and segmented
//                   reductions make it.
// Tables of 2^3 to 2^11 lines (1-256 KB); red_wword's value is 100 x (10 log2 W + log2 S)
// plus the steps (param "words_stride"). 4 blocks of 256 threads an SM; every kernel runs
// n = 4 and n = 16 steps, the difference is the steps' cost alone. The manifest names each
// launch: kernel (bench), 100 x log2 of the table's lines plus the steps (value, param
// "log2_lines"), grid, block, and the lane operations (work). benchmarks/timing/atomic_hot.py
// prints the table and, with --model, simt's predictions of the same kernels.
#include "micro_common.cuh"
#include "atomics.cuh"

__global__ void k_red_word(unsigned *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) red_add(p + (mix32(t + i * lanes) & mask), 1u);
}

__global__ void k_red_word_f32(float *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) red_add_f32(p + (mix32(t + i * lanes) & mask), 1.0f);
}

__global__ void k_atom_word(unsigned *p, unsigned *out, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  unsigned s = 0;
  for (int i = 0; i < n; i++) s += atomicAdd(p + (mix32(t + i * lanes) & mask), 1u);
  out[t] = s;
}

__global__ void k_red_line(unsigned *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) red_add(p + (size_t)(mix32(t + i * lanes) & mask) * 32, 1u);
}

__global__ void k_red_line_f32(float *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lanes = gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) red_add_f32(p + (size_t)(mix32(t + i * lanes) & mask) * 32, 1.0f);
}

__global__ void k_red_wword(unsigned *p, unsigned mask, int stride, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  for (int i = 0; i < n; i++) red_add(p + (size_t)(mix32(t / 32 + i * warps) & mask) * stride, 1u);
}

__global__ void k_red_wword_f32(float *p, unsigned mask, int stride, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  for (int i = 0; i < n; i++) red_add_f32(p + (size_t)(mix32(t / 32 + i * warps) & mask) * stride, 1.0f);
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int grid = sm_count() * 4, block = 256;
  const long long lanes = (long long)grid * block;
  unsigned *p = device_buffer<unsigned>((size_t)32 << 11, 0u);
  float *f = device_buffer<float>((size_t)32 << 11, 0.0f);
  unsigned *out = device_buffer<unsigned>((size_t)lanes, 0u);
  for (int lg : {3, 5, 7, 9, 11}) {
    const unsigned words = (32u << lg) - 1, lines = (1u << lg) - 1;
    for (int n : {4, 16}) {
      const int v = lg * 100 + n;
      TIMED k_red_word<<<grid, block>>>(p, words, n);       done("red_word", "log2_lines", v, grid, block, lanes * n);
      TIMED k_red_word_f32<<<grid, block>>>(f, words, n);   done("red_word_f32", "log2_lines", v, grid, block, lanes * n);
      TIMED k_atom_word<<<grid, block>>>(p, out, words, n); done("atom_word", "log2_lines", v, grid, block, lanes * n);
      TIMED k_red_line<<<grid, block>>>(p, lines, n);       done("red_line", "log2_lines", v, grid, block, lanes * n);
      TIMED k_red_line_f32<<<grid, block>>>(f, lines, n);   done("red_line_f32", "log2_lines", v, grid, block, lanes * n);
    }
  }
  for (int lw : {0, 5, 10})
    for (int ls : {0, 5}) {
      if ((lw == 0 && ls == 5) || (lw == 10 && ls == 0)) continue;
      for (int n : {4, 16}) {
        const int v = (lw * 10 + ls) * 100 + n;
        TIMED k_red_wword<<<grid, block>>>(p, (1u << lw) - 1, 1 << ls, n);
        done("red_wword", "words_stride", v, grid, block, lanes * n);
        TIMED k_red_wword_f32<<<grid, block>>>(f, (1u << lw) - 1, 1 << ls, n);
        done("red_wword_f32", "words_stride", v, grid, block, lanes * n);
      }
    }
  CHECK(cudaFree(p));
  CHECK(cudaFree(f));
  CHECK(cudaFree(out));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
