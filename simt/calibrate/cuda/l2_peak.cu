// How many sectors a cycle the L2 serves to loads that hit in it, and what holds a kernel below
// that. micro.cu's tput_l2 (float4 loads through the L2 only, __ldcg, a grid-stride loop, 64
// warps an SM) gives l2_read_bytes_per_cycle, 4,270 bytes (133 sectors) a cycle on the H200;
// yet kernels of the blind sets read 125-140 sectors a cycle from the L2 beside their writes
// (blind18's pfb_direct, blind9's wave3d_o8, blind16's dedisp_f32), so that figure may be a
// limit of its loop, not of the L2. Every kernel here reads a 16 MB buffer (it stays in the L2)
// `n` times over with a grid-stride loop, n = 4 and 16: the difference is 12 passes' cost.
//   - the word each lane loads: a float (a warp reads one line an instruction) or a float4
//     (four lines);
//   - through the L2 only (__ldcg) or through the L1 too (a plain load: the buffer is 64 times
//     the L1, so it misses there);
//   - U loads a lane issues before it uses the first: 1 (tput_l2's loop) or 4 (unrolled by
//     hand, four independent sums);
//   - 64 warps an SM (8 blocks of 256 on every SM) or 16 (2 blocks).
// The manifest names each launch: bench "rd_<word>_<path>_u<U>_w<warps>", param "n", value n,
// work = the bytes the loads ask for. benchmarks/timing/l2_peak.py prints the table.
#include "micro_common.cuh"

template <typename T> __device__ __forceinline__ float sum_of(T v);
template <> __device__ __forceinline__ float sum_of<float>(float v) { return v; }
template <> __device__ __forceinline__ float sum_of<float4>(float4 v) { return v.x + v.y + v.z + v.w; }

template <typename T, bool CG> __device__ __forceinline__ T load(const T *p) {
  if (CG) return __ldcg(p);
  return *p;
}

template <typename T, bool CG, int U>
__global__ void k_rd(const T *__restrict__ src, long words, float *out, int n) {
  float acc[U];
  for (int u = 0; u < U; u++) acc[u] = 0.0f;
  const long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
  const long step = (long)gridDim.x * blockDim.x;
  for (int i = 0; i < n; i++) {
    for (long k = tid; k < words; k += U * step) {
#pragma unroll
      for (int u = 0; u < U; u++) {
        const long j = k + u * step;
        if (j < words) acc[u] += sum_of(load<T, CG>(src + j));
      }
    }
  }
  float s = 0.0f;
  for (int u = 0; u < U; u++) s += acc[u];
  out[tid] = s;
}

template <typename T, bool CG, int U>
static void run(const char *name, const void *buf, size_t bytes, float *out, int sms) {
  const long words = (long)(bytes / sizeof(T));
  for (int warps : {64, 16}) {
    const int block = 256, grid = sms * warps / 8;
    char bench[64];
    snprintf(bench, sizeof bench, "%s_w%d", name, warps);
    for (int n : {4, 16}) {
      TIMED k_rd<T, CG, U><<<grid, block>>>((const T *)buf, words, out, n);
      done(bench, "n", n, grid, block, (long long)n * (long long)bytes);
    }
  }
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  const size_t bytes = (size_t)16 << 20;
  float *buf = device_buffer<float>(bytes / 4, 1.0f);
  float *out = device_buffer<float>((size_t)sms * 8 * 256, 0.0f);
  run<float4, true, 1>("rd_f4_cg_u1", buf, bytes, out, sms);     // micro.cu's tput_l2
  run<float4, true, 4>("rd_f4_cg_u4", buf, bytes, out, sms);
  run<float4, false, 1>("rd_f4_ca_u1", buf, bytes, out, sms);
  run<float4, false, 4>("rd_f4_ca_u4", buf, bytes, out, sms);
  run<float, true, 1>("rd_f1_cg_u1", buf, bytes, out, sms);
  run<float, true, 4>("rd_f1_cg_u4", buf, bytes, out, sms);
  run<float, false, 4>("rd_f1_ca_u4", buf, bytes, out, sms);
  CHECK(cudaFree(buf));
  CHECK(cudaFree(out));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
