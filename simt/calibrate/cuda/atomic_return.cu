// Returning global atomics (ATOMG: the program reads the old value) against reductions (REDG)
// by how many lines a warp's request spans: does a unit keep a line longer when its old
// values go back, and where? atomic_hot.cu showed returning adds at 0.75x the reductions'
// rate with each lane on a word hashed over 2^7-2^11 lines (a request of ~32 lines), and at
// the same rate over 8 and 32 lines; a counter that one lane a warp bumps (stream
// compaction) runs on the H200 as a reduction would.
//   k_red_k / k_atom_k: each warp's 32 lanes on K lines (K = 1, 4 or 32) hashed over a table
//                       of L lines, 32 / K lanes a line, each lane its own word; red.add.u32,
//                       or atom.add.u32 with the old values summed and stored (one store a lane);
//   k_red_one / k_atom_one: lane 0 of each warp alone, on word 0 of a line hashed over L lines
//                       (L = 1: every warp on one word, as a compaction's cursor);
//   k_red_one_f32:      the same, red.add.f32 (a warp's sum added to a float accumulator);
//   k_red_pair:         lane 0 of each warp a float add to word 0 of a line of one table and an
//                       integer add to word 0 of the same line of another, one after the
//                       other (a query's revenue and count of rows: TPC-H Q6 in blind set 10):
//                       does the unit's float wait survive an integer update between?
// Tables of 2^5 to 2^14 lines (4 KB-2 MB: the L2 holds each); 4 blocks of 256 threads an SM;
// every kernel runs n = 4 and n = 16 steps, the difference is the steps' cost alone. The
// manifest names each launch: kernel (bench), 100 x (10 log2 L + log2 K) plus the steps
// (value, param "log2_lines_k"; the one-lane kernels K = 1), grid, block, and the lane
// operations (work). benchmarks/timing/atomic_return.py prints the table and, with --model,
// simt's predictions of the same kernels.
#include "micro_common.cuh"
#include "atomics.cuh"

// lane l of warp w at step i: line j = l % K of the warp's K lines, word l / K of it
__device__ __forceinline__ size_t word_of(unsigned w, unsigned i, unsigned warps, unsigned mask, int klog) {
  const unsigned l = threadIdx.x & 31, j = l & ((1u << klog) - 1);
  const unsigned line = mix32((w + i * warps) * 32 + j) & mask;
  return (size_t)line * 32 + (l >> klog);
}

__global__ void k_red_k(unsigned *p, unsigned mask, int klog, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  for (int i = 0; i < n; i++) red_add(p + word_of(t / 32, i, warps, mask, klog), 1u);
}

__global__ void k_atom_k(unsigned *p, unsigned *out, unsigned mask, int klog, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  unsigned s = 0;
  for (int i = 0; i < n; i++) s += atomicAdd(p + word_of(t / 32, i, warps, mask, klog), 1u);
  out[t] = s;
}

__global__ void k_red_one(unsigned *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  if ((t & 31) == 0)
    for (int i = 0; i < n; i++) red_add(p + (size_t)(mix32(t / 32 + i * warps) & mask) * 32, 1u);
}

__global__ void k_red_one_f32(float *p, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  if ((t & 31) == 0)
    for (int i = 0; i < n; i++) red_add_f32(p + (size_t)(mix32(t / 32 + i * warps) & mask) * 32, 1.0f);
}

__global__ void k_red_pair(float *p, unsigned *q, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  if ((t & 31) == 0)
    for (int i = 0; i < n; i++) {
      const size_t w = (size_t)(mix32(t / 32 + i * warps) & mask) * 32;
      red_add_f32(p + w, 1.0f);
      red_add(q + w, 1u);
    }
}

__global__ void k_atom_one(unsigned *p, unsigned *out, unsigned mask, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warps = gridDim.x * blockDim.x / 32;
  if ((t & 31) == 0) {
    unsigned s = 0;
    for (int i = 0; i < n; i++) s += atomicAdd(p + (size_t)(mix32(t / 32 + i * warps) & mask) * 32, 1u);
    out[t / 32] = s;
  }
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int grid = sm_count() * 4, block = 256;
  const long long lanes = (long long)grid * block, warps = lanes / 32;
  unsigned *p = device_buffer<unsigned>((size_t)32 << 14, 0u);
  unsigned *out = device_buffer<unsigned>((size_t)lanes, 0u);
  float *f = device_buffer<float>((size_t)32 << 11, 0.0f);
  for (int lg : {5, 8, 11, 14}) {
    const unsigned mask = (1u << lg) - 1;
    for (int klog : {0, 2, 5})
      for (int n : {4, 16}) {
        const int v = (lg * 10 + klog) * 100 + n;
        TIMED k_red_k<<<grid, block>>>(p, mask, klog, n);       done("red_k", "log2_lines_k", v, grid, block, lanes * n);
        TIMED k_atom_k<<<grid, block>>>(p, out, mask, klog, n); done("atom_k", "log2_lines_k", v, grid, block, lanes * n);
      }
  }
  for (int lg : {0, 5, 11})
    for (int n : {4, 16}) {
      const unsigned mask = (1u << lg) - 1;
      const int v = lg * 10 * 100 + n;
      TIMED k_red_one<<<grid, block>>>(p, mask, n);       done("red_one", "log2_lines_k", v, grid, block, warps * n);
      TIMED k_atom_one<<<grid, block>>>(p, out, mask, n); done("atom_one", "log2_lines_k", v, grid, block, warps * n);
      TIMED k_red_one_f32<<<grid, block>>>(f, mask, n);   done("red_one_f32", "log2_lines_k", v, grid, block, warps * n);
      TIMED k_red_pair<<<grid, block>>>(f, p, mask, n);   done("red_pair", "log2_lines_k", v, grid, block, 2 * warps * n);
    }
  CHECK(cudaFree(p));
  CHECK(cudaFree(out));
  CHECK(cudaFree(f));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
