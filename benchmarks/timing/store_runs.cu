// A thread's K words stored one right after another, the lanes S words apart: a warp's store
// is a request of S lines (S <= 8; 32 sectors at S >= 8), and K such requests follow each other
// in the SASS. Do they merge on the way to the L2 (lts__t_sectors_op_write over the L1's store
// sectors) when nothing stands between the STGs, and when one address computation does?
// store_merge.cu's launches (simt/calibrate/cuda) kept ptxas's loop test, or one dependent FMA,
// between the stores; there requests of 2-4 lines merged and 8 lines hardly did, which is where
// store_merge_lines = 4 came from. Here:
//   k_imm<S,K>:   out[S*i + j], j < K, the offsets immediates of one address: the STGs back to
//                 back (the values computed first);
//   k_step<S,K>:  out[S*i + j*step] with step = 1 at run time: an address computed between STGs
//                 (an LEA or IADD, as ptxas does for a row stored a word at a time).
// Each on 4M threads in blocks of 256.
//   nvcc -O3 -arch=sm_90 -o /tmp/store_runs store_runs.cu && cuobjdump -sass /tmp/store_runs (check
//   the STGs' spacing) && ncu --clock-control none --csv --print-units base --metrics \
//     sm__cycles_elapsed.max,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,\
//     l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum \
//     --log-file store_runs.csv /tmp/store_runs store_runs_manifest.csv
#include "../../simt/calibrate/cuda/micro_common.cuh"
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
