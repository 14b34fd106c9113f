// How close a scheduler comes to issuing an instruction every cycle when nothing else holds it:
// independent instructions for two or three pipes in turn, so that no pipe is the limit and
// the issue slot is. micro.cu's tput_ffma, tput_ialu2 and tput_imad give each pipe's rate
// alone; kernels whose SASS simt counts right run 7% slower on the H200 than simt says
// where issue is their limit (the median of 181 such launches in the blind sets), and the
// fastest of them issue 0.95 instructions a cycle a scheduler, where simt's replay of some
// reaches 1.0. Each lane keeps 8 independent float and 8 independent integer chains; a step
// of the loop updates each chain once with the mode's instructions:
//   mode 1: FFMA                (the FMA pipe alone: 8 instructions a step)
//   mode 2: LOP3 then IADD3     (the ALU pipe alone: 16 a step)
//   mode 3: FFMA, LOP3, IADD3   (two pipes: 24 a step, 8 on the FMA pipe)
//   mode 5: FFMA, IMAD          (FMA and the IMAD half of the FMA pipe: 16 a step)
//   mode 7: FFMA, LOP3, IADD3, IMAD (32 a step)
//   mode 8: DFMA                (the FP64 pipe alone, 16 lanes a scheduler: 8 a step)
//   mode 10: DFMA, LOP3, IADD3  (FP64 and ALU: 24 a step, 8 on the FP64 pipe; whether a warp's
//                                DFMA, two cycles on its pipe, holds the issue slot for both)
// at 64, 32 and 16 warps an SM (blocks of 256), n = 256 and 1024 steps: the difference is
// 768 steps' cost. The manifest names each launch: bench "mix<mode>_w<warps>", param
// "steps", value n, work = the warp instructions of the steps (from the SASS, read by
// benchmarks/timing/issue_mix.py, which prints the table and, with --model, simt's replay).
#include "micro_common.cuh"

template <int MODE>
__global__ void k_mix(float *out, int n, float b, unsigned m) {
  float f[8];
  unsigned u[8];
  double d[8];
#pragma unroll
  for (int j = 0; j < 8; j++) {
    f[j] = (float)(threadIdx.x + j);
    u[j] = threadIdx.x * (j + 1);
    d[j] = (double)(threadIdx.x + j);
  }
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) {
      if (MODE & 1) f[j] = fmaf(f[j], b, 1.0f);
      if (MODE & 2) u[j] = (u[j] ^ m) + (unsigned)(j + 3);
      if (MODE & 4) u[j] = u[j] * m + (unsigned)j;
      if (MODE & 8) d[j] = fma(d[j], (double)b, 1.0);
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; j++) s += f[j] + (float)u[j] + (float)d[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int MODE>
static void run(float *out, int sms) {
  for (int warps : {64, 32, 16}) {
    const int block = 256, grid = sms * warps / 8;
    char bench[32];
    snprintf(bench, sizeof bench, "mix%d_w%d", MODE, warps);
    for (int n : {256, 1024}) {
      TIMED k_mix<MODE><<<grid, block>>>(out, n, 0.999f, 0x9E3779B9u);
      done(bench, "steps", n, grid, block, (long long)grid * (block / 32) * n);
    }
  }
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  float *out = device_buffer<float>((size_t)sms * 8 * 256, 0.0f);
  run<1>(out, sms);
  run<2>(out, sms);
  run<3>(out, sms);
  run<5>(out, sms);
  run<7>(out, sms);
  run<8>(out, sms);
  run<10>(out, sms);
  CHECK(cudaFree(out));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
