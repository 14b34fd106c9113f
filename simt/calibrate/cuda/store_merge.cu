// Stores of one warp that write parts of the same sectors, one instruction after another or
// with work between them: do they merge on the way to the L2? (simt calibrate's part
// store_merge: store_merge_lines, simt/calibrate/fit.py.) Seen in the held-out sets: a thread
// writing out[4*i + j] for j = 0..3 (Philox) or a pair x[2*i], x[2*i+1] (a Walsh stage) makes
// fewer L2 write sectors than the L1 sends (lts__t_sectors_op_write against
// l1tex__t_sectors_pipe_lsu_mem_global_op_st), and runs faster than the L2's rate per sector says.
// Every kernel: 4M threads in blocks of 256, each thread stores K floats (K = 1, 2, 4), 64 MB in
// all at K = 4, ``gap`` dependent FMAs before each store (0 and 16; other gaps after the
// manifest's name on the command line). The manifest names each launch: the kernel and K
// (bench), the gap (value). Measured on the H200 by benchmarks/timing/store_merge.py's
// commands (data/h200/store_merge.csv, store_merge_gaps.csv).
#include "micro_common.cuh"
__device__ __forceinline__ float work(float v, int gap) {   // dependent FMAs between stores
  for (int g = 0; g < gap; g++) v = v * 1.0001f + 0.5f;
  return v;
}
// thread i writes out[K*i + j]: K stores to the same sectors (interleaved words)
template <int K> __global__ void k_interleaved(float *out, int gap) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  float v = (float)i;
#pragma unroll
  for (int j = 0; j < K; j++) { v = work(v, gap); out[K * i + j] = v; }
}
// thread i writes out[j*n + i]: K coalesced stores to different lines (the baseline)
template <int K> __global__ void k_planes(float *out, long n, int gap) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  float v = (float)i;
#pragma unroll
  for (int j = 0; j < K; j++) { v = work(v, gap); out[j * n + i] = v; }
}
// thread i writes out[2*K*i + j]: K stores over half of each sector's words
template <int K> __global__ void k_half(float *out, int gap) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  float v = (float)i;
#pragma unroll
  for (int j = 0; j < K; j++) { v = work(v, gap); out[2 * K * i + j] = v; }
}
int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv, " [gap ...]")) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  std::vector<int> gaps = {0, 16};       // dependent FMAs before each store
  if (argc > 2) { gaps.clear(); for (int a = 2; a < argc; a++) gaps.push_back(atoi(argv[a])); }
  const long n = 4L << 20;
  const int block = 256, grid = n / block;
  float *p;
  CHECK(cudaMalloc(&p, 8 * n * sizeof(float)));
  for (int gap : gaps) {
    TIMED k_interleaved<1><<<grid, block>>>(p, gap); done("interleaved1", "gap", gap, grid, block, n * 4);
    TIMED k_interleaved<2><<<grid, block>>>(p, gap); done("interleaved2", "gap", gap, grid, block, n * 8);
    TIMED k_interleaved<4><<<grid, block>>>(p, gap); done("interleaved4", "gap", gap, grid, block, n * 16);
    TIMED k_planes<2><<<grid, block>>>(p, n, gap); done("planes2", "gap", gap, grid, block, n * 8);
    TIMED k_planes<4><<<grid, block>>>(p, n, gap); done("planes4", "gap", gap, grid, block, n * 16);
    TIMED k_half<2><<<grid, block>>>(p, gap); done("half2", "gap", gap, grid, block, n * 8);
    TIMED k_half<4><<<grid, block>>>(p, gap); done("half4", "gap", gap, grid, block, n * 16);
  }
  CHECK(cudaFree(p));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
