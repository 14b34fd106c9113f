// Stores of one warp that write parts of the same sectors, one instruction after another or
// with work between them: does the path to the L2 merge them, and at what cost? Seen in the
// held-out sets: a thread writing out[4*i + j] for j = 0..3 (Philox) or a pair x[2*i], x[2*i+1]
// (a Walsh stage) makes fewer L2 write sectors than the L1 sends (lts__t_sectors_op_write
// against l1tex__t_sectors_pipe_lsu_mem_global_op_st), and runs faster than the L2's rate per
// sector says. Measured once on the H200 (data/h200/store_merge.csv; read by store_merge.py):
//   nvcc -O3 -arch=sm_90 -o /tmp/store_merge store_merge.cu && ncu --clock-control none --csv --print-units base \
//     --metrics sm__cycles_elapsed.max,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,\
//       l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,\
//       smsp__inst_executed_op_global_st.sum,dram__bytes_write.sum \
//     --log-file store_merge.csv /tmp/store_merge
// and the gaps in between (store_merge_gaps.csv): the same with /tmp/store_merge 1 2 4 8
// Every kernel: 4M threads in blocks of 256, each thread stores K floats (K = 1, 2, 4), 64 MB
// in all at K = 4. The launches, in order, are printed (and named by the kernel and K).
#include <cstdio>
#include <cstdlib>
#include <vector>
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
  std::vector<int> gaps = {0, 16};       // dependent FMAs before each store (argv: other gaps)
  if (argc > 1) { gaps.clear(); for (int a = 1; a < argc; a++) gaps.push_back(atoi(argv[a])); }
  const long n = 4L << 20;
  const int block = 256, grid = n / block;
  float *p;
  cudaMalloc(&p, 8 * n * sizeof(float));
  for (int gap : gaps) {
    k_interleaved<1><<<grid, block>>>(p, gap); printf("interleaved K=1 gap=%d\n", gap);
    k_interleaved<2><<<grid, block>>>(p, gap); printf("interleaved K=2 gap=%d\n", gap);
    k_interleaved<4><<<grid, block>>>(p, gap); printf("interleaved K=4 gap=%d\n", gap);
    k_planes<2><<<grid, block>>>(p, n, gap); printf("planes K=2 gap=%d\n", gap);
    k_planes<4><<<grid, block>>>(p, n, gap); printf("planes K=4 gap=%d\n", gap);
    k_half<2><<<grid, block>>>(p, gap); printf("half K=2 gap=%d\n", gap);
    k_half<4><<<grid, block>>>(p, gap); printf("half K=4 gap=%d\n", gap);
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("error: %s\n", cudaGetErrorString(e)); return 1; }
  cudaFree(p);
  return 0;
}
