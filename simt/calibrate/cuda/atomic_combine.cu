// Reductions that several warps of an SM, or every warp of the GPU, send to one word or one
// line: are they combined before the L2's atomic unit, and does the float adder wait between
// them? Two kernels of the blind sets are far over on the H200 where this is the pattern:
// a segmented reduction whose runs span ~30 warps (lane 31 of each warp adds its run's sum
// to the run's word: 2.06x) and a gradient where each warp's 32 lanes add to word d of one
// shared line for d = 0..31 in turn (1.57x). atomic_own_line.cu found a warp alone on its
// SM updating its own line at 2.3 cycles a step, faster than any unit's turn.
//   k_blk_word[_f32]: lane 0 of every warp of a block adds to word 0 of the block's own line
//                     (a block's warps on one word, as a run's warps are);
//   k_blk_words:      lane 0 of warp w of a block adds to word w % 32 of the block's line
//                     (the same line, a word each: is the word or the line what combines?);
//   k_warp_line:      lane 0 of every warp adds to word 0 of the warp's own line (nothing
//                     shared: the reference);
//   k_line_seq[_f32]: every lane of every warp adds to word i % 32 of one line the whole
//                     GPU shares, at step i (a warp's 32 lanes on one word, the words in
//                     order: the gradient's pattern);
//   k_line_hash[_f32]: the same with the word hashed from the warp and the step (the words
//                     in no order: atomic_hot.cu's red_wword over 32 words);
//   k_run_f32:        one step: lane 0 of each warp adds to word g / R of the words' table,
//                     g the warp's index in the grid (R consecutive warps a word, as a
//                     segmented reduction's runs; R = 0: each warp word 0 of its own line).
// The block kernels run 4 blocks an SM of 32 or 256 threads (4 or 32 warps an SM); the line
// kernels 4 blocks of 256 an SM. Every kernel runs n = 4 and n = 16 steps: the difference is
// the steps' cost alone; k_run_f32 runs 256 blocks of 256 an SM once for each R (value: R).
// The manifest names each launch: kernel (bench), steps (value), grid,
// block and the lane operations (work). benchmarks/timing/atomic_combine.py prints the table
// and, with --model, simt's predictions of the same kernels.
#include "micro_common.cuh"
#include "atomics.cuh"

__global__ void k_blk_word(unsigned *p, int n) {
  if ((threadIdx.x & 31) == 0)
    for (int i = 0; i < n; i++) red_add(p + (size_t)blockIdx.x * 32, 1u);
}

__global__ void k_blk_word_f32(float *p, int n) {
  if ((threadIdx.x & 31) == 0)
    for (int i = 0; i < n; i++) red_add_f32(p + (size_t)blockIdx.x * 32, 1.0f);
}

__global__ void k_blk_words(unsigned *p, int n) {
  if ((threadIdx.x & 31) == 0)
    for (int i = 0; i < n; i++) red_add(p + (size_t)blockIdx.x * 32 + ((threadIdx.x >> 5) & 31), 1u);
}

__global__ void k_warp_line(unsigned *p, int n) {
  const size_t w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if ((threadIdx.x & 31) == 0)
    for (int i = 0; i < n; i++) red_add(p + w * 32, 1u);
}

// the line kernels add 1 or 2 by the lane's parity: a value that differs across the warp, so
// no compiler may fold the warp's lanes into one update (simt does where address and value
// are the same in every lane)
__global__ void k_line_seq(unsigned *p, int n) {
  const unsigned v = 1 + (threadIdx.x & 1);
  for (int i = 0; i < n; i++) red_add(p + (i & 31), v);
}

__global__ void k_line_seq_f32(float *p, int n) {
  const float v = 1.0f + (threadIdx.x & 1);
  for (int i = 0; i < n; i++) red_add_f32(p + (i & 31), v);
}

__global__ void k_line_hash(unsigned *p, int n) {
  const unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = gridDim.x * blockDim.x / 32;
  const unsigned v = 1 + (threadIdx.x & 1);
  for (int i = 0; i < n; i++) red_add(p + (mix32(w + i * warps) & 31), v);
}

__global__ void k_line_hash_f32(float *p, int n) {
  const unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = gridDim.x * blockDim.x / 32;
  const float v = 1.0f + (threadIdx.x & 1);
  for (int i = 0; i < n; i++) red_add_f32(p + (mix32(w + i * warps) & 31), v);
}

__global__ void k_run_f32(float *p, int r) {
  const unsigned g = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if ((threadIdx.x & 31) == 0) red_add_f32(p + (r ? g / r : (size_t)g * 32), 1.0f);
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int grid = sm_count() * 4;
  unsigned *p = device_buffer<unsigned>((size_t)grid * 8 * 32, 0u);     // a line a warp
  float *f = device_buffer<float>((size_t)grid * 8 * 32, 0.0f);
  for (int block : {32, 256}) {
    const long long warps = (long long)grid * block / 32;
    for (int n : {4, 16}) {
      TIMED k_blk_word<<<grid, block>>>(p, n);      done("blk_word", "steps", n, grid, block, warps * n);
      TIMED k_blk_word_f32<<<grid, block>>>(f, n);  done("blk_word_f32", "steps", n, grid, block, warps * n);
      TIMED k_blk_words<<<grid, block>>>(p, n);     done("blk_words", "steps", n, grid, block, warps * n);
      TIMED k_warp_line<<<grid, block>>>(p, n);     done("warp_line", "steps", n, grid, block, warps * n);
    }
  }
  const int block = 256;
  const long long lanes = (long long)grid * block;
  for (int n : {4, 16}) {
    TIMED k_line_seq<<<grid, block>>>(p, n);        done("line_seq", "steps", n, grid, block, lanes * n);
    TIMED k_line_seq_f32<<<grid, block>>>(f, n);    done("line_seq_f32", "steps", n, grid, block, lanes * n);
    TIMED k_line_hash<<<grid, block>>>(p, n);       done("line_hash", "steps", n, grid, block, lanes * n);
    TIMED k_line_hash_f32<<<grid, block>>>(f, n);   done("line_hash_f32", "steps", n, grid, block, lanes * n);
  }
  const int run_grid = sm_count() * 256;
  const long long run_warps = (long long)run_grid * block / 32;
  float *runs = device_buffer<float>((size_t)run_warps * 32, 0.0f);
  for (int r : {0, 1, 8, 32}) {
    TIMED k_run_f32<<<run_grid, block>>>(runs, r); done("run_f32", "warps_a_word", r, run_grid, block, run_warps);
  }
  CHECK(cudaFree(p));
  CHECK(cudaFree(f));
  CHECK(cudaFree(runs));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
