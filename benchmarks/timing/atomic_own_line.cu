// Why a warp's reductions to its own line, again and again, go slower than the atomic units'
// rate (micro.cu red_distinct: each step about an atomic's latency on the H200): does a warp's
// update of a line wait for its previous one to the same line? One block of W warps on every SM
// (W = 1 to 32); each lane adds to its own word of its warp's own line, n = 16 and 64 times
//   k_own:      the same line every step;
//   k_two:      two lines of its own in turn (a line's updates one step apart);
//   k_new:      a new line of its own every step (its 64 lines in turn).
// The difference between n = 64 and n = 16 is the steps' cost alone. Measured once on the H200
// (data/h200/atomic_own_line.csv, its manifest and log; atomic_own_line.py prints the table):
//   nvcc -O3 -arch=sm_90 -o /tmp/aol atomic_own_line.cu && ncu --clock-control none --csv \
//     --print-units base --metrics sm__cycles_elapsed.max --log-file atomic_own_line.csv /tmp/aol m.csv
#include "../../simt/calibrate/cuda/micro_common.cuh"

__device__ __forceinline__ void red_add(unsigned *p, unsigned v) {
  asm volatile("red.global.add.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

__global__ void k_own(unsigned *p, int n) {
  unsigned *a = p + (size_t)((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * 64 * 32 + (threadIdx.x & 31);
  for (int i = 0; i < n; i++) red_add(a, 1u);
}

__global__ void k_two(unsigned *p, int n) {
  unsigned *a = p + (size_t)((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * 64 * 32 + (threadIdx.x & 31);
  for (int i = 0; i < n; i++) red_add(a + (i & 1) * 32, 1u);
}

__global__ void k_new(unsigned *p, int n) {
  unsigned *a = p + (size_t)((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * 64 * 32 + (threadIdx.x & 31);
  for (int i = 0; i < n; i++) red_add(a + (i & 63) * 32, 1u);
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  unsigned *p = device_buffer<unsigned>((size_t)sms * 32 * 64 * 32, 0u);    // 64 lines a warp
  for (int w : {1, 2, 4, 8, 16, 32}) {
    for (int n : {16, 64}) {
      const long long lanes = (long long)sms * w * 32;
      TIMED k_own<<<sms, 32 * w>>>(p, n);  done("own", "steps", n, sms, 32 * w, lanes * n);
      TIMED k_two<<<sms, 32 * w>>>(p, n);  done("two", "steps", n, sms, 32 * w, lanes * n);
      TIMED k_new<<<sms, 32 * w>>>(p, n);  done("new", "steps", n, sms, 32 * w, lanes * n);
    }
  }
  CHECK(cudaFree(p));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
