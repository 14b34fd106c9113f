// Stores many warps make to one line (a flag every thread raises, a shared counter written
// without atomics): how fast the L2 takes them. Measured once on the H200
// (data/h200/hot_store.csv; read by hot_store.py):
//   nvcc -O3 -arch=sm_90 -o /tmp/hot_store hot_store.cu && ncu --clock-control none --csv --print-units base \
//     --metrics sm__cycles_elapsed.max,smsp__inst_executed_op_global_st.sum,lts__t_requests_srcunit_tex_op_write.sum \
//     --log-file hot_store.csv /tmp/hot_store
// 132 x 8 blocks of 256 threads (8448 warps); each warp stores n times, at n = 8 and n = 32.
#include <cstdio>
__global__ void k_one_word(int *p, int n) {          // every lane of every warp: one word
  volatile int *q = p;
  for (int i = 0; i < n; i++) q[0] = i;
}
__global__ void k_one_line(int *p, int n) {          // every warp: the same line, a word a lane
  volatile int *q = p;
  for (int i = 0; i < n; i++) q[threadIdx.x & 31] = i;
}
__global__ void k_line_per_sm(int *p, int n) {       // the warps of an SM: their SM's line
  volatile int *q = p;
  unsigned sm; asm("mov.u32 %0, %%smid;" : "=r"(sm));
  for (int i = 0; i < n; i++) q[sm * 32 + (threadIdx.x & 31)] = i;
}
__global__ void k_spread(int *p, int n) {            // a new line every store: the streaming rate
  volatile int *q = p;
  long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5, warps = (gridDim.x * (long)blockDim.x) >> 5;
  for (int i = 0; i < n; i++) q[(w + i * warps) * 32 + (threadIdx.x & 31)] = i;
}
int main() {
  int grid = 132 * 8, block = 256; void *p;
  size_t bytes = (size_t)grid * block / 32 * 32 * 128 * 4 + 4096;   // k_spread at n = 32: 8448 x 32 lines
  cudaMalloc(&p, bytes);
  for (int n : {8, 32}) {
    k_one_word<<<grid, block>>>((int *)p, n);
    k_one_line<<<grid, block>>>((int *)p, n);
    k_line_per_sm<<<grid, block>>>((int *)p, n);
    k_spread<<<grid, block>>>((int *)p, n);
  }
  cudaError_t e = cudaDeviceSynchronize(); printf("%s\n", e == cudaSuccess ? "done" : cudaGetErrorString(e)); return 0;
}
