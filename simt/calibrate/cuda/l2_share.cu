// Whether the L2 serves lines that several SMs read at about the same time faster than lines
// each SM reads alone. l2_peak.cu: a stream of float4 loads through the L2 only reaches the
// same rate with 1 or 4 loads in flight a lane and at 16 or 64 warps an SM, so that rate is
// the L2's for lines read by one SM each; yet blind-set kernels whose lines many SMs read at
// once (the polyphase FIR's input rows, dedispersion's channels, an 8th-order stencil's
// planes) read more sectors a cycle from the L2 than that stream does.
// Every block (256 threads, 8 blocks an SM) reads a 16 KB region `n` times over through the L2
// only (__ldcg, float4, four loads a lane a pass, all issued before the first is used);
// blocks b, b + 1, ..., b + S - 1 read the same region, so S SMs read each line at about the
// same time (consecutive blocks go to different SMs); S = 1 reads 16.5 MB in all, as
// micro.cu's tput_l2 does, and S = 1,056 has every block read the one region. n = 16 and 64
// passes: the difference is 48 passes' cost. The manifest names each launch: bench
// "share<S>", param "passes", value n, work = the bytes the loads ask for.
// benchmarks/timing/l2_share.py prints the table.
#include "micro_common.cuh"

static const int REGION = 16 << 10;                       // bytes a block reads a pass
static const int BLOCK = 256;
static const int WORDS = REGION / 16;                     // float4s a region


__global__ void k_share(const float4 *src, int share, int n, int zero, float *out) {
  const float4 *r = src + (size_t)(blockIdx.x / share) * WORDS;
  float4 a = make_float4(0, 0, 0, 0), b = a, c = a, d = a;
  for (int i = 0; i < n; i++) {
    const float4 *q = r + i * zero;      // zero is 0: ptxas cannot hoist the loads out of the passes
    const float4 v0 = __ldcg(q + threadIdx.x);
    const float4 v1 = __ldcg(q + threadIdx.x + BLOCK);
    const float4 v2 = __ldcg(q + threadIdx.x + 2 * BLOCK);
    const float4 v3 = __ldcg(q + threadIdx.x + 3 * BLOCK);
    a.x += v0.x; a.y += v0.y; a.z += v0.z; a.w += v0.w;
    b.x += v1.x; b.y += v1.y; b.z += v1.z; b.w += v1.w;
    c.x += v2.x; c.y += v2.y; c.z += v2.z; c.w += v2.w;
    d.x += v3.x; d.y += v3.y; d.z += v3.z; d.w += v3.w;
  }
  out[blockIdx.x * BLOCK + threadIdx.x] = a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w +
                                          c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int sms = sm_count();
  const int grid = sms * 8;
  float *src = device_buffer<float>((size_t)grid * REGION / 4, 1.0f);
  float *out = device_buffer<float>((size_t)grid * BLOCK, 0.0f);
  for (int share : {1, 2, 4, 8, 16, 32, 132, grid}) {
    char bench[32];
    snprintf(bench, sizeof bench, "share%d", share);
    for (int n : {16, 64}) {
      TIMED k_share<<<grid, BLOCK>>>((const float4 *)src, share, n, 0, out);
      done(bench, "passes", n, grid, BLOCK, (long long)grid * REGION * n);
    }
  }
  CHECK(cudaFree(src));
  CHECK(cudaFree(out));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
