// Float reductions on words other warps are also updating: how fast does an atomic unit take
// them? Two blind-set kernels disagree with the model's rule (a float add to a word the unit
// updated lately holds the unit for atomic_same_address_cycles_f32 a lane):
//   set 6's segmented reduction with long runs of one key (one lane a warp adds its run's sum
//   to the key's word: ~31 warps in a row on one word, consecutive words), simt 2.08x slow;
//   set 17's logistic-regression gradient (all 32 lanes of a warp on one word, the word
//   cycling over the 32 of one line), simt 1.57x slow.
// Each kernel runs n steps (16 and 64; the difference is the steps' cost alone) on 4 blocks of
// 256 an SM, each warp one reduction a step:
//   k_runs<R>:   lane 31 alone adds to word (step * warps + warp) / R: runs of R warps in a row
//                on one word, the words consecutive (R = 1, 4, 32, 256);
//   k_cycle<W>:  all 32 lanes add to word (step + warp) % W: W = 1 is red_one_address's case,
//                W = 32 the gradient's (one line, a warp's lanes on one word);
// each as f32 and u32 reductions. Measured once on an H100 (data/h100/atomic_words/: CSV, manifest, log;
// atomic_words.py prints the table):
//   nvcc -O3 -arch=sm_90 -o /tmp/aw atomic_words.cu && ncu --clock-control none --csv \
//     --print-units base --metrics sm__cycles_elapsed.max --log-file atomic_words.csv /tmp/aw m.csv
#include "../../simt/calibrate/cuda/micro_common.cuh"

__device__ __forceinline__ void red_add(float *p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"(v) : "memory");
}
__device__ __forceinline__ void red_add(unsigned *p, unsigned v) {
  asm volatile("red.global.add.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

template <typename T>
__global__ void k_runs(T *p, int n, int R) {
  const unsigned warps = gridDim.x * blockDim.x / 32;
  const unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if ((threadIdx.x & 31) != 31) return;
  for (int i = 0; i < n; i++) red_add(p + ((size_t)i * warps + w) / R, (T)1);
}

template <typename T>
__global__ void k_cycle(T *p, int n, int W) {
  const unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  for (int i = 0; i < n; i++) red_add(p + (i + w) % W, (T)1);
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  const int grid = 4 * sms, block = 256;
  const long long warps = (long long)grid * block / 32;
  float *pf = device_buffer<float>((size_t)64 * warps + 64, 0.0f);
  unsigned *pu = device_buffer<unsigned>((size_t)64 * warps + 64, 0u);
  char name[32];
  for (int R : {1, 4, 32, 256}) {
    for (int n : {16, 64}) {
      snprintf(name, sizeof name, "runs%d_f32", R);
      TIMED k_runs<float><<<grid, block>>>(pf, n, R);  done(name, "steps", n, grid, block, warps * n);
      snprintf(name, sizeof name, "runs%d_u32", R);
      TIMED k_runs<unsigned><<<grid, block>>>(pu, n, R);  done(name, "steps", n, grid, block, warps * n);
    }
  }
  for (int W : {1, 32}) {
    for (int n : {16, 64}) {
      snprintf(name, sizeof name, "cycle%d_f32", W);
      TIMED k_cycle<float><<<grid, block>>>(pf, n, W);  done(name, "steps", n, grid, block, warps * 32 * n);
      snprintf(name, sizeof name, "cycle%d_u32", W);
      TIMED k_cycle<unsigned><<<grid, block>>>(pu, n, W);  done(name, "steps", n, grid, block, warps * 32 * n);
    }
  }
  CHECK(cudaFree(pf));
  CHECK(cudaFree(pu));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
