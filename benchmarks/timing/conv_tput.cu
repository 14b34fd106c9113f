// Measured once on the H200 (data/h200/conv_tput.csv; read by conv_tput.py):
//   nvcc -O3 -arch=sm_90 -o /tmp/conv conv_tput.cu && ncu --clock-control none --csv --print-units base \
//     --metrics sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum \
//     --log-file conv_tput.csv /tmp/conv
// Conversion throughput: 8 independent chains a thread, 8 blocks of 256 a SM.
#include <cstdio>
__global__ void k_f2i(int *out, float s, int n) {
  float x[8]; int a[8];
  for (int j = 0; j < 8; j++) { x[j] = threadIdx.x * 0.37f + j; a[j] = 0; }
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) { a[j] ^= __float2int_rz(x[j]); x[j] = x[j] * s; }
  }
  int r = 0; for (int j = 0; j < 8; j++) r += a[j]; out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
__global__ void k_i2f(float *out, int s, int n) {
  int x[8]; float a[8];
  for (int j = 0; j < 8; j++) { x[j] = threadIdx.x * 3 + j; a[j] = 0.f; }
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) { a[j] += __int2float_rn(x[j]); x[j] = x[j] ^ s; }
  }
  float r = 0; for (int j = 0; j < 8; j++) r += a[j]; out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
__global__ void k_ctrl(float *out, float s, int n) {   // the same companion ops, no conversion
  float x[8]; float a[8];
  for (int j = 0; j < 8; j++) { x[j] = threadIdx.x * 0.37f + j; a[j] = 0.f; }
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) { a[j] += x[j]; x[j] = x[j] * s; }
  }
  float r = 0; for (int j = 0; j < 8; j++) r += a[j]; out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
int main() {
  int grid = 132 * 8, block = 256; void *p; cudaMalloc(&p, grid * block * 4);
  for (int n : {256, 1024}) {
    k_f2i<<<grid, block>>>((int *)p, 1.0001f, n);
    k_i2f<<<grid, block>>>((float *)p, 5, n);
    k_ctrl<<<grid, block>>>((float *)p, 1.0001f, n);
  }
  cudaDeviceSynchronize(); printf("done\n"); return 0;
}
