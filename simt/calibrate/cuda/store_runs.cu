// A thread's K words stored one right after another, the lanes S words apart: a warp's store
// is a request of S lines (of 32 sectors from S = 8 on), and K such requests follow each other
// in the SASS. Do they merge on the way to the L2 (lts__t_sectors_op_write over the L1's store
// sectors) when nothing stands between the STGs, and when one address computation does?
// store_merge.cu's launches kept ptxas's loop test, or one dependent FMA, between the stores;
// they cannot say how far a run of STGs with nothing between them merges. Here (simt calibrate's
// store_runs part; fit_stores.py fits store_merge_lines, store_merge_lines_near and
// store_merge_share from it; benchmarks/timing/store_runs.py prints the table):
//   k_imm<S,K>:   out[S*i + j], j < K, the offsets immediates of one address: the STGs back to
//                 back (the values computed first);
//   k_step<S,K>:  out[S*i + j*step] with step = 1 at run time: an address computed between STGs
//                 (an LEA or IADD, as ptxas does for a row stored a word at a time).
// Each on 4M threads in blocks of 256.
// By hand: benchmarks/timing/store_runs.sh DIR (cuobjdump -sass shows the STGs' spacing).
#include "micro_common.cuh"
template <int S, int K> __global__ void k_imm(float *out) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  float v = (float)i;
  float *p = out + S * i;
#pragma unroll
  for (int j = 0; j < K; j++) p[j] = v + (float)j;
}
template <int S, int K> __global__ void k_step(float *out, int step) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  float v = (float)i;
  float *p = out + S * i;
#pragma unroll
  for (int j = 0; j < K; j++) p[j * step] = v + (float)j;
}
#define RUN(S, K)                                                                             \
  TIMED k_imm<S, K><<<grid, block>>>(p); done("imm_s" #S "_k" #K, "S", S, grid, block, n * K); \
  TIMED k_step<S, K><<<grid, block>>>(p, 1); done("step_s" #S "_k" #K, "S", S, grid, block, n * K);
int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const long n = 4L << 20;
  const int block = 256, grid = n / block;
  float *p;
  CHECK(cudaMalloc(&p, 32 * n * sizeof(float)));
  RUN(1, 1) RUN(2, 2) RUN(4, 4) RUN(6, 6) RUN(7, 7) RUN(8, 8) RUN(8, 4) RUN(16, 8) RUN(16, 16) RUN(32, 8)
  CHECK(cudaFree(p));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
