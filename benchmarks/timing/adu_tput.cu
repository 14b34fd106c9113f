// Constant loads from a register address (SASS LDC: Nsight Compute's ADU pipe) against the same
// loop without them. Measured on an H100 (data/h100/adu_tput/; read by adu_tput.py):
//   nvcc -O3 -arch=sm_90 -o /tmp/adu adu_tput.cu && ncu --clock-control none --csv --print-units base \
//     --metrics sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__inst_executed_pipe_adu.sum,sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_cbu.sum,sm__inst_executed_pipe_uniform.sum,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio \
//     --log-file adu_tput.csv /tmp/adu
// 8 blocks of 256 threads a SM, 8 independent chains a thread, at two step counts (the slope
// removes the launch and the prologue). The table index is the same in every lane but read
// from global memory, so ptxas cannot keep it in a uniform register: each load is an LDC.
#include <cstdio>
__constant__ float tab[1024];

__global__ void k_ldc(float *out, const int *start, int n) {
  int idx = start[threadIdx.x & 1];              // 0 in every lane, not provably uniform
  float a[8];
  for (int j = 0; j < 8; j++) a[j] = threadIdx.x * 1e-3f + j;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) a[j] += tab[idx + 64 * j];
    idx = (idx + 1) & 63;
  }
  float r = 0; for (int j = 0; j < 8; j++) r += a[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
// LDCs at one in four instructions: does the ADU bound the loop, or the issue?
__global__ void k_ldc_fma(float *out, const int *start, int n) {
  int idx = start[threadIdx.x & 1];
  float a[8], b[8];
  for (int j = 0; j < 8; j++) { a[j] = threadIdx.x * 1e-3f + j; b[j] = a[j] * 0.5f; }
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) { a[j] += tab[idx + 64 * j]; b[j] = b[j] * 0.999f + a[j]; b[j] = b[j] * 1.001f - 0.5f; }
    idx = (idx + 1) & 63;
  }
  float r = 0; for (int j = 0; j < 8; j++) r += a[j] + b[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
// the same loop, the table read from a register instead
__global__ void k_ctrl(float *out, const int *start, int n) {
  int idx = start[threadIdx.x & 1];
  float a[8];
  float t = threadIdx.x * 1e-6f;
  for (int j = 0; j < 8; j++) a[j] = threadIdx.x * 1e-3f + j;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) a[j] += t + (float)(64 * j);
    idx = (idx + 1) & 63;
    t += (float)idx;
  }
  float r = 0; for (int j = 0; j < 8; j++) r += a[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
int main() {
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int grid = sms * 8, block = 256; float *p; int *s;
  cudaMalloc(&p, grid * block * 4); cudaMalloc(&s, 8); cudaMemset(s, 0, 8);
  float h[1024]; for (int i = 0; i < 1024; i++) h[i] = i * 1e-3f;
  cudaMemcpyToSymbol(tab, h, sizeof h);
  for (int n : {256, 1024}) {
    k_ldc<<<grid, block>>>(p, s, n);
    k_ldc_fma<<<grid, block>>>(p, s, n);
    k_ctrl<<<grid, block>>>(p, s, n);
  }
  cudaDeviceSynchronize(); printf("done %d SMs\n", sms); return 0;
}
