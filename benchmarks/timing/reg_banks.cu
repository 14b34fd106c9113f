// Register-bank probes (read by reg_banks.py): FP32 streams whose instructions read 1, 2 or 3
// registers, from 8 independent chains a thread, 8 blocks of 256 a SM, at two step counts (the
// slope removes the launch and the prologue), as pipe_mix.cu. Which registers ptxas gave each
// operand, and so which banks, is read from the SASS (reg_banks.py --sass).
//   nvcc -O3 -arch=sm_90 -o /tmp/reg_banks reg_banks.cu && ncu --clock-control none --csv --print-units base \
//     --metrics "$(cat data/h200/pipes/pipe_metrics.txt)" --log-file reg_banks.csv /tmp/reg_banks
// (measured once on an H100, data/h100/reg_banks/, with pipe_mix.cu the same way beside it)
#include <cstdio>
#define CHAINS 8
#define BODY(step)                                                                     \
  float v[CHAINS];                                                                     \
  _Pragma("unroll") for (int k = 0; k < CHAINS; k++) v[k] = threadIdx.x * 0.001f + k;  \
  for (int i = 0; i < n; i++) {                                                        \
    _Pragma("unroll") for (int u = 0; u < 8; u++)                                      \
    _Pragma("unroll") for (int k = 0; k < CHAINS; k++) step;                           \
  }                                                                                    \
  float s = 0;                                                                         \
  _Pragma("unroll") for (int k = 0; k < CHAINS; k++) s += v[k];                        \
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;

// v * w + x: three registers, w and x per chain
__global__ void r_fma3(float *out, const float *c, int n) {
  float w[CHAINS], x[CHAINS];
  for (int k = 0; k < CHAINS; k++) { w[k] = c[k] + threadIdx.x * 1e-9f; x[k] = c[k + 8] + threadIdx.x * 1e-9f; }
  BODY(v[k] = v[k] * w[k] + x[k])
}
// v * v + x: two registers (v read twice)
__global__ void r_fma_sq(float *out, const float *c, int n) {
  float x[CHAINS];
  for (int k = 0; k < CHAINS; k++) x[k] = c[k + 8] * 1e-3f + threadIdx.x * 1e-9f;
  BODY(v[k] = v[k] * v[k] * 1e-3f + x[k])
}
// v * w + 1: two registers and an immediate
__global__ void r_fma_imm(float *out, const float *c, int n) {
  float w[CHAINS];
  for (int k = 0; k < CHAINS; k++) w[k] = c[k] + threadIdx.x * 1e-9f;
  BODY(v[k] = v[k] * w[k] + 1e-4f)
}
// v * a + x, a a kernel parameter (the constant bank): two registers
__global__ void r_fma_const(float *out, const float *c, int n, float a) {
  float x[CHAINS];
  for (int k = 0; k < CHAINS; k++) x[k] = c[k + 8] + threadIdx.x * 1e-9f;
  BODY(v[k] = v[k] * a + x[k])
}
// v * w + x with w and x shared by every chain: three registers, two the same each step
__global__ void r_fma_shared(float *out, const float *c, int n) {
  float w = c[0] + threadIdx.x * 1e-9f, x = c[8] + threadIdx.x * 1e-9f;
  BODY(v[k] = v[k] * w + x)
}
// v + w: two registers
__global__ void r_add2(float *out, const float *c, int n) {
  float w[CHAINS];
  for (int k = 0; k < CHAINS; k++) w[k] = c[k] * 1e-6f + threadIdx.x * 1e-9f;
  BODY(v[k] = v[k] + w[k])
}
// v + 1: one register
__global__ void r_add1(float *out, const float *c, int n) {
  BODY(v[k] = v[k] + 1e-4f)
}
// half the chains v * w + x (three registers), half v + 1 (one): does a three-register read
// cost where the next instruction reads one?
__global__ void r_fma3_add1(float *out, const float *c, int n) {
  float w[CHAINS], x[CHAINS];
  for (int k = 0; k < CHAINS; k++) { w[k] = c[k] + threadIdx.x * 1e-9f; x[k] = c[k + 8] + threadIdx.x * 1e-9f; }
  BODY(v[k] = (k & 1) ? v[k] + 1e-4f : v[k] * w[k] + x[k])
}
// half the chains v * w + x, half v + w (two registers)
__global__ void r_fma3_add2(float *out, const float *c, int n) {
  float w[CHAINS], x[CHAINS];
  for (int k = 0; k < CHAINS; k++) { w[k] = c[k] + threadIdx.x * 1e-9f; x[k] = c[k + 8] + threadIdx.x * 1e-9f; }
  BODY(v[k] = (k & 1) ? v[k] + w[k] : v[k] * w[k] + x[k])
}
// half the chains an integer LOP3 of three registers, half an FADD of one (ALU at half its rate)
__global__ void r_lop3_add1(float *out, const float *c, int n) {
  int a[CHAINS], b[CHAINS], iv[CHAINS];
  for (int k = 0; k < CHAINS; k++) { a[k] = __float_as_int(c[k]); b[k] = __float_as_int(c[k + 8]); iv[k] = threadIdx.x + k; }
  BODY(if (k & 1) v[k] = v[k] + 1e-4f; else iv[k] = (iv[k] & a[k]) ^ b[k])
  out[blockIdx.x * blockDim.x + threadIdx.x] += (float)(iv[0] ^ iv[2] ^ iv[4] ^ iv[6]);
}
int main() {
  int grid = 132 * 8, block = 256;
  float *p; cudaMalloc(&p, grid * block * 4);
  float fc[32]; for (int i = 0; i < 32; i++) fc[i] = i < 8 ? 0.999f - i * 1e-4f : 1e-4f * i;
  float *c; cudaMalloc(&c, sizeof fc); cudaMemcpy(c, fc, sizeof fc, cudaMemcpyHostToDevice);
  for (int n : {256, 1024}) {
    r_fma3<<<grid, block>>>(p, c, n);
    r_fma_sq<<<grid, block>>>(p, c, n);
    r_fma_imm<<<grid, block>>>(p, c, n);
    r_fma_const<<<grid, block>>>(p, c, n, 0.9999f);
    r_fma_shared<<<grid, block>>>(p, c, n);
    r_add2<<<grid, block>>>(p, c, n);
    r_add1<<<grid, block>>>(p, c, n);
    r_fma3_add1<<<grid, block>>>(p, c, n);
    r_fma3_add2<<<grid, block>>>(p, c, n);
    r_lop3_add1<<<grid, block>>>(p, c, n);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", e == cudaSuccess ? "done" : cudaGetErrorString(e));
  return e != cudaSuccess;
}
