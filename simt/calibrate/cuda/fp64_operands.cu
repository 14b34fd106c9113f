// Double-precision arithmetic at full occupancy: what does a DADD or DMUL cost when its operands
// are registers, and what does a loop that loads a 64-bit coefficient each step cost? A
// Chebyshev sum by Clenshaw's recurrence (blind set 7) takes 1.23x its fp32 twin's cycles on the
// H200 with the same SASS instruction count, where simt, charging each fp64 instruction the
// DFMA's measured interval (micro.cu's k_dfma_tput: a constant operand, one register), predicts
// 0.96x. Many other fp64 launches of the sets are under-predicted by 7-19%.
//   k_dfma_c:   8 independent chains a thread, v = fma(v, a, b), a and b kernel parameters
//               (the interval simt's arch file holds);
//   k_dop_r (dadd_r, dmul_r): 4 chains, v = v + w or v = v * w, w a register of the chain's own;
//   k_dfma_r:   4 chains, v = fma(v, w, u), every operand a register;
//   k_clen2_r:  2 Clenshaw recurrences a thread (b0 = x2 * b1 - b2 + c: DMUL, DADD, DADD, each
//               waiting for the one before), c a register: the recurrence's fp64 work alone;
//   k_clen1_r:  one recurrence a thread (its chain's latency, 16 warps a scheduler);
//   k_clen_ldg (double, float: clen_ldg, clen_ldg_f32): the set's kernel: one recurrence, c loaded from global memory each step
//               (the same word across the warp), in double and in float;
//   k_ldg (ldg64, ldg32): the loads alone: s ^= coef[k] over the same words (a 64-bit or a 32-bit
//               load a step, the same address across the warp, integer work only).
// Every launch: 8 blocks of 256 threads an SM (16 warps a scheduler), n = 64 and n = 256 steps;
// the difference is the steps' cost alone. The manifest names each launch: kernel (bench),
// steps (value), grid, block and the warp-steps (work: warps x steps, per chain where a thread
// runs several). benchmarks/timing/fp64_operands.py prints the table and, with --model,
// simt's predictions of the same kernels.
#include "micro_common.cuh"

#define CHAINS8(stmt) _Pragma("unroll") for (int k = 0; k < 8; k++) { stmt; }
#define CHAINS4(stmt) _Pragma("unroll") for (int k = 0; k < 4; k++) { stmt; }

// a per-thread value near 1 without a division (a division is a called subroutine, whose
// registers would spill at 32 a thread)
__device__ __forceinline__ double near_one(int k) { return 1.0 - (double)(k + (threadIdx.x & 7)) * 0x1p-12; }

__global__ void __launch_bounds__(256, 8) k_dfma_c(double *out, double a, double b, int n) {
  double v[8];
  CHAINS8(v[k] = threadIdx.x + k)
  for (int i = 0; i < n; i++) CHAINS8(v[k] = fma(v[k], a, b))
  double s = 0;
  CHAINS8(s += v[k])
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// v = v * w (MUL) or v = v + w
template <bool MUL>
__global__ void __launch_bounds__(256, 8) k_dop_r(double *out, int n) {
  double v[4], w[4];
  CHAINS4(v[k] = threadIdx.x + k; w[k] = near_one(k))
  for (int i = 0; i < n; i++) CHAINS4(v[k] = MUL ? v[k] * w[k] : v[k] + w[k])
  double s = 0;
  CHAINS4(s += v[k])
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void __launch_bounds__(256, 8) k_dfma_r(double *out, int n) {
  double v[4], w[4], u[4];
  CHAINS4(v[k] = threadIdx.x + k; w[k] = near_one(k); u[k] = 0.5 * near_one(k + 3))
  for (int i = 0; i < n; i++) CHAINS4(v[k] = fma(v[k], w[k], u[k]))
  double s = 0;
  CHAINS4(s += v[k])
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// the recurrence as the set's kernel writes it (Warp does not contract: a DMUL, then two DADDs)
__device__ __forceinline__ double clenshaw_step(double x2, double b1, double b2, double c) {
  return __dadd_rn(__dadd_rn(__dmul_rn(x2, b1), -b2), c);
}

__device__ __forceinline__ float clenshaw_step(float x2, float b1, float b2, float c) {
  return __fadd_rn(__fadd_rn(__fmul_rn(x2, b1), -b2), c);
}

__global__ void __launch_bounds__(256, 8) k_clen2_r(double *out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  double b1[2], b2[2], x2[2], c[2];
#pragma unroll
  for (int k = 0; k < 2; k++) {
    b1[k] = 0; b2[k] = 0;
    x2[k] = 2.0 * ((double)((t * 7 + k * 13) & 1023) * 0x1p-10 - 0.5);
    c[k] = 0.5 * near_one(k);
  }
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int k = 0; k < 2; k++) {
      const double b0 = clenshaw_step(x2[k], b1[k], b2[k], c[k]);
      b2[k] = b1[k];
      b1[k] = b0;
    }
  }
  out[t] = b1[0] + b1[1] + b2[0];
}

__global__ void __launch_bounds__(256, 8) k_clen1_r(double *out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  double b1 = 0, b2 = 0;
  const double x2 = 2.0 * ((double)(t & 1023) * 0x1p-10 - 0.5), c = 0.5 * near_one(0);
  for (int i = 0; i < n; i++) {
    const double b0 = clenshaw_step(x2, b1, b2, c);
    b2 = b1;
    b1 = b0;
  }
  out[t] = b1 - b2;
}

template <typename T>
__global__ void __launch_bounds__(256, 8) k_clen_ldg(const T *xs, const T *coef, T *out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const T x = xs[t], x2 = T(2) * x;
  T b1 = 0, b2 = 0;
#pragma unroll 4
  for (int k = n - 1; k > 0; k--) {
    const T b0 = clenshaw_step(x2, b1, b2, coef[k]);
    b2 = b1;
    b1 = b0;
  }
  out[t] = clenshaw_step(x, b1, b2, coef[0]);
}

template <typename T>
__global__ void __launch_bounds__(256, 8) k_ldg(const T *coef, T *out, int n) {
  T s = threadIdx.x;
#pragma unroll 4
  for (int k = n - 1; k > 0; k--) s ^= coef[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int block = 256, grid = sm_count() * 8;
  const size_t threads = (size_t)grid * block;
  const long long warps = (long long)threads / 32;
  double *d = device_buffer<double>(threads, 0.0);
  float *f = device_buffer<float>(threads, 0.0f);
  double *dx = device_buffer<double>(threads, 0.25);
  float *fx = device_buffer<float>(threads, 0.25f);
  double *dc = device_buffer<double>(256, 0.125);
  float *fc = device_buffer<float>(256, 0.125f);
  for (int n : {64, 256}) {
    TIMED k_dfma_c<<<grid, block>>>(d, 0.999, 0.5, n);      done("dfma_c", "steps", n, grid, block, warps * n * 8);
    TIMED k_dop_r<false><<<grid, block>>>(d, n);            done("dadd_r", "steps", n, grid, block, warps * n * 4);
    TIMED k_dop_r<true><<<grid, block>>>(d, n);             done("dmul_r", "steps", n, grid, block, warps * n * 4);
    TIMED k_dfma_r<<<grid, block>>>(d, n);                  done("dfma_r", "steps", n, grid, block, warps * n * 4);
    TIMED k_clen2_r<<<grid, block>>>(d, n);                 done("clen2_r", "steps", n, grid, block, warps * n * 2);
    TIMED k_clen1_r<<<grid, block>>>(d, n);                 done("clen1_r", "steps", n, grid, block, warps * n);
    TIMED k_clen_ldg<<<grid, block>>>(dx, dc, d, n);        done("clen_ldg", "steps", n, grid, block, warps * n);
    TIMED k_clen_ldg<<<grid, block>>>(fx, fc, f, n);        done("clen_ldg_f32", "steps", n, grid, block, warps * n);
    TIMED k_ldg<<<grid, block>>>((const unsigned long long *)dc, (unsigned long long *)d, n);
    done("ldg64", "steps", n, grid, block, warps * n);
    TIMED k_ldg<<<grid, block>>>((const unsigned *)fc, (unsigned *)f, n);
    done("ldg32", "steps", n, grid, block, warps * n);
  }
  for (void *p : {(void *)d, (void *)f, (void *)dx, (void *)fx, (void *)dc, (void *)fc}) CHECK(cudaFree(p));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
