// Pipe rates of single SASS instruction classes and of mixes, on one GPU (read by pipe_mix.py):
// 8 independent chains a thread, each step one instruction of the class (ptxas's SASS checked
// with nvdisasm: pipe_mix.py --sass), 8 blocks of 256 a SM, at two step counts (the slope
// removes the launch and the prologue). The profiler counts each pipe's warp instructions.
//   nvcc -O3 -arch=sm_90 -o /tmp/pipe_mix pipe_mix.cu && ncu --clock-control none --csv --print-units base \
//     --metrics <pipe_mix.py METRICS> --log-file pipe_mix.csv /tmp/pipe_mix
#include <cstdio>
#include <cstring>
#define CHAINS 8
#define BODY(init, step, fold, T)                                                      \
  T v[CHAINS];                                                                         \
  _Pragma("unroll") for (int k = 0; k < CHAINS; k++) v[k] = init;                      \
  for (int i = 0; i < n; i++) {                                                        \
    _Pragma("unroll") for (int u = 0; u < 8; u++)                                      \
    _Pragma("unroll") for (int k = 0; k < CHAINS; k++) step;                           \
  }                                                                                    \
  T s = 0;                                                                             \
  _Pragma("unroll") for (int k = 0; k < CHAINS; k++) s = fold;                         \
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;

// one LOP3 a step: (v & a) ^ b, a and b differing by step
__global__ void k_lop3(int *out, const int *c, int n) {
  int a[8], b[8];
  for (int u = 0; u < 8; u++) { a[u] = c[u]; b[u] = c[u + 8]; }
  BODY(threadIdx.x + k, v[k] = (v[k] & a[u]) ^ b[u], s ^ v[k], int)
}
// one IADD3 of three registers a step (the neighbour chain keeps ptxas from summing the constants)
__global__ void k_iadd3(int *out, const int *c, int n) {
  int a[8];
  for (int u = 0; u < 8; u++) a[u] = c[u];
  BODY(threadIdx.x + k, v[k] = v[k] + v[(k + 1) % CHAINS] + a[u], s ^ v[k], int)
}
// an add of an immediate and a LOP3 a step
__global__ void k_viadd_lop3(int *out, const int *c, int n) {
  int a[8];
  for (int u = 0; u < 8; u++) a[u] = c[u];
  BODY(threadIdx.x + k, v[k] = (v[k] + 0x3f1) ^ a[u], s ^ v[k], int)
}
// one funnel shift a step
__global__ void k_shf(int *out, const int *c, int n) {
  int a[8];
  for (int u = 0; u < 8; u++) a[u] = c[u] & 31;
  BODY(threadIdx.x + k, v[k] = __funnelshift_l(v[k], v[k], a[u]), s ^ v[k], int)
}
// integer multiply-add with registers
__global__ void k_imad(int *out, const int *c, int n) {
  int a[8], b[8];
  for (int u = 0; u < 8; u++) { a[u] = c[u] | 1; b[u] = c[u + 8]; }
  BODY(threadIdx.x + k, v[k] = v[k] * a[u] + b[u], s ^ v[k], int)
}
// FFMA with three registers from two per-chain arrays
__global__ void k_ffma_reg(float *out, const float *c, int n) {
  float w[CHAINS], x[CHAINS];
  for (int k = 0; k < CHAINS; k++) { w[k] = c[k] + threadIdx.x * 1e-9f; x[k] = c[k + 8] + threadIdx.x * 1e-9f; }
  BODY(threadIdx.x * 0.001f + k, v[k] = v[k] * w[k] + x[k], s + v[k], float)
}
// half the chains LOP3, half FFMA
__global__ void k_lop3_ffma(float *out, const int *c, int n) {
  int a[8], b[8];
  for (int u = 0; u < 8; u++) { a[u] = c[u]; b[u] = c[u + 8]; }
  int iv[4]; float fv[4];
  for (int k = 0; k < 4; k++) { iv[k] = threadIdx.x + k; fv[k] = threadIdx.x * 0.001f + k; }
  float fa = __int_as_float(c[16]), fb = __int_as_float(c[17]);
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 4; k++) { iv[k] = (iv[k] & a[u]) ^ b[u]; fv[k] = fv[k] * fa + fb; }
  }
  float s = 0;
  for (int k = 0; k < 4; k++) s += fv[k] + (float)iv[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// half the chains LOP3, half IMAD
__global__ void k_lop3_imad(int *out, const int *c, int n) {
  int a[8], b[8];
  for (int u = 0; u < 8; u++) { a[u] = c[u] | 1; b[u] = c[u + 8]; }
  int iv[4], mv[4];
  for (int k = 0; k < 4; k++) { iv[k] = threadIdx.x + k; mv[k] = threadIdx.x * 3 + k; }
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 4; k++) { iv[k] = (iv[k] & a[u]) ^ b[u]; mv[k] = mv[k] * a[u] + b[u]; }
  }
  int s = 0;
  for (int k = 0; k < 4; k++) s ^= iv[k] ^ mv[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// half the chains IMAD, half FFMA
__global__ void k_imad_ffma(float *out, const int *c, int n) {
  int a[8], b[8];
  for (int u = 0; u < 8; u++) { a[u] = c[u] | 1; b[u] = c[u + 8]; }
  int mv[4]; float fv[4];
  for (int k = 0; k < 4; k++) { mv[k] = threadIdx.x * 3 + k; fv[k] = threadIdx.x * 0.001f + k; }
  float fa = __int_as_float(c[16]), fb = __int_as_float(c[17]);
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int k = 0; k < 4; k++) { mv[k] = mv[k] * a[u] + b[u]; fv[k] = fv[k] * fa + fb; }
  }
  float s = 0;
  for (int k = 0; k < 4; k++) s += fv[k] + (float)mv[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// a shift left by an immediate and a LOP3 a step
__global__ void k_shl_lop3(int *out, const int *c, int n) {
  int a[8];
  for (int u = 0; u < 8; u++) a[u] = c[u];
  BODY(threadIdx.x + k, v[k] = (v[k] << 3) ^ a[u], s ^ v[k], int)
}
// ISETP + SEL: a compare and a select a step
__global__ void k_isetp_sel(int *out, const int *c, int n) {
  int a[8], b[8];
  for (int u = 0; u < 8; u++) { a[u] = c[u]; b[u] = c[u + 8]; }
  BODY(threadIdx.x + k, v[k] = (v[k] > a[u]) ? b[u] : v[k] ^ a[u], s ^ v[k], int)
}
int main() {
  int grid = 132 * 8, block = 256;
  void *p; cudaMalloc(&p, grid * block * 4);
  int host[32];
  for (int i = 0; i < 32; i++) host[i] = 0x9e3779b9u * (i + 1) >> 3;
  float hf = 0.9999f, hb = 1e-4f;
  memcpy(&host[16], &hf, 4); memcpy(&host[17], &hb, 4);
  int *c; cudaMalloc(&c, sizeof host); cudaMemcpy(c, host, sizeof host, cudaMemcpyHostToDevice);
  float fc[32]; for (int i = 0; i < 32; i++) fc[i] = i < 8 ? 0.999f - i * 1e-4f : 1e-4f * i;
  float *cf; cudaMalloc(&cf, sizeof fc); cudaMemcpy(cf, fc, sizeof fc, cudaMemcpyHostToDevice);
  for (int n : {256, 1024}) {
    k_lop3<<<grid, block>>>((int *)p, c, n);
    k_iadd3<<<grid, block>>>((int *)p, c, n);
    k_viadd_lop3<<<grid, block>>>((int *)p, c, n);
    k_shf<<<grid, block>>>((int *)p, c, n);
    k_imad<<<grid, block>>>((int *)p, c, n);
    k_ffma_reg<<<grid, block>>>((float *)p, cf, n);
    k_lop3_ffma<<<grid, block>>>((float *)p, c, n);
    k_lop3_imad<<<grid, block>>>((int *)p, c, n);
    k_imad_ffma<<<grid, block>>>((float *)p, c, n);
    k_isetp_sel<<<grid, block>>>((int *)p, c, n);
    k_shl_lop3<<<grid, block>>>((int *)p, c, n);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", e == cudaSuccess ? "done" : cudaGetErrorString(e));
  return e != cudaSuccess;
}
