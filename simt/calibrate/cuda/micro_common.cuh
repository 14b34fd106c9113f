// What every microbenchmark program (micro*.cu) shares: error checks, device buffers, the
// manifest of launches (one row per launch, in the profiler's launch order), a pointer-chase
// ring and the harness of the loaded-latency programs.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
              cudaGetErrorString(err_));                                              \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

static FILE *manifest;
static int launch_index = 0;

// Self-timed mode (nvcc -DSIMT_SELF_TIMED), the clock64 fallback of `simt calibrate` on a GPU
// without Nsight Compute: each launch is written `TIMED kernel<<<...>>>(...); done(...)`, and
// TIMED evicts the L2 (as the profiler's cache control does before every launch), queues a
// clock64 spin long enough for the host to queue the launch behind it (so the host's launch
// latency is not timed), then records a start event; done() records the stop event and adds
// "launch,ns" to the file $SIMT_TIMES. Without the flag TIMED is nothing: the program is the
// one the profiler runs, launch for launch.
#ifdef SIMT_SELF_TIMED
#define TIMED begin_launch();
#else
#define TIMED
#endif

static inline int sm_count() {
  int v;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  return v;
}

template <typename T>
static T *device_buffer(size_t count, T fill) {
  std::vector<T> host(count, fill);
  T *d;
  CHECK(cudaMalloc(&d, count * sizeof(T)));
  CHECK(cudaMemcpy(d, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// `count` floats uniform in [0, 1) from a fixed seed, on the device.
static inline float *random_buffer(size_t count, unsigned seed = 1) {
  std::vector<float> host(count);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (auto &v : host) v = u(rng);
  float *d;
  CHECK(cudaMalloc(&d, count * sizeof(float)));
  CHECK(cudaMemcpy(d, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

// out[i] = in[i] + 1 over n elements, grid-stride.
__global__ void k_grid_stride_copy(const float *in, float *out, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i] + 1.0f;
}

// What a loaded-latency kernel (micro5.cu, micro8.cu) reports: block 0 chases a ring and sets
// `done`; the other blocks stream until then, adding what they moved to `bytes`. out[0]: the
// chase's cycles, out[3]: the streaming blocks' cycles.
struct LoadedChase {
  int *done;
  unsigned long long *bytes;
  long long *out;
  LoadedChase() {
    CHECK(cudaMalloc(&done, 4));
    CHECK(cudaMalloc(&bytes, 8));
    CHECK(cudaMalloc(&out, 4 * 8));
  }
  void reset() {
    CHECK(cudaMemset(done, 0, 4));
    CHECK(cudaMemset(bytes, 0, 8));
  }
  // after a launch: (chase cycles, streamed amount, stream cycles) as one CSV tail
  void print_result(int blocks) {
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    long long h[4];
    unsigned long long b;
    CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&b, bytes, 8, cudaMemcpyDeviceToHost));
    printf("%lld,%llu,%lld\n", h[0], b, blocks ? h[3] : 0LL);
  }
};

#ifdef SIMT_SELF_TIMED
// the spin that hides the host's launch latency: about 200 us at 2 GHz
static const long long GATE_CYCLES = 400000;

__global__ void k_spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
}

// reads a buffer twice the L2's size: what the L2 held before is written back or dropped
__global__ void k_evict(const float4 *__restrict__ buf, size_t words4, float *sink) {
  float s = 0;
  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < words4; k += (size_t)gridDim.x * blockDim.x)
    s += buf[k].x;
  if (s == 1234.5f) *sink = s;
}

struct SelfTimer {
  cudaEvent_t start, stop;
  FILE *out;
  float4 *evict;
  size_t evict_words4;
  float *sink;
  int sms;
  bool armed;
};
static SelfTimer self_timer = {};

static void begin_launch() {
  SelfTimer &t = self_timer;
  if (!t.out) {
    const char *path = getenv("SIMT_TIMES");
    if (!path || !*path) {
      fprintf(stderr, "self-timed build: set SIMT_TIMES to the file the launch times go to\n");
      exit(2);
    }
    t.out = fopen(path, "w");
    if (!t.out) { perror(path); exit(1); }
    fprintf(t.out, "launch,ns\n");
    CHECK(cudaEventCreate(&t.start));
    CHECK(cudaEventCreate(&t.stop));
    int l2 = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CHECK(cudaDeviceGetAttribute(&t.sms, cudaDevAttrMultiProcessorCount, 0));
    t.evict_words4 = std::max((size_t)2 * l2, (size_t)64 << 20) / 16;
    CHECK(cudaMalloc(&t.evict, t.evict_words4 * 16));
    CHECK(cudaMemset(t.evict, 0, t.evict_words4 * 16));
    CHECK(cudaMalloc(&t.sink, sizeof(float)));
  }
  k_evict<<<t.sms * 4, 256>>>(t.evict, t.evict_words4, t.sink);
  k_spin<<<1, 1>>>(GATE_CYCLES);
  CHECK(cudaEventRecord(t.start));
  t.armed = true;
}

// after the launch: its time between the events, in ns, to $SIMT_TIMES
static void end_launch() {
  SelfTimer &t = self_timer;
  if (!t.armed) {
    fprintf(stderr, "self-timed build: launch %d has no TIMED before it\n", launch_index);
    exit(2);
  }
  CHECK(cudaEventRecord(t.stop));
  CHECK(cudaEventSynchronize(t.stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, t.start, t.stop));
  fprintf(t.out, "%d,%.1f\n", launch_index, ms * 1e6);
  fflush(t.out);
  t.armed = false;
}
#endif

// Record one launch (call right after the <<<>>>), and check it ran.
static inline void done(const char *bench, const char *param, long long value, int grid,
                        int block, long long work) {
#ifdef SIMT_SELF_TIMED
  end_launch();
#endif
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  fprintf(manifest, "%d,%s,%s,%lld,%d,%d,%lld\n", launch_index++, bench, param, value, grid,
          block, work);
  fflush(manifest);
}

// Open the manifest named by the first argument: 0, or the exit status after saying why not.
static inline int open_manifest(int argc, char **argv, const char *usage_tail = "") {
  if (argc < 2) {
    fprintf(stderr, "usage: %s manifest.csv%s\n", argv[0], usage_tail);
    return 2;
  }
  manifest = fopen(argv[1], "w");
  if (!manifest) { perror(argv[1]); return 1; }
  return 0;
}

// A random cycle from line 0 through `lines` 128-byte lines `stride` lines apart, as host words:
// one int per line (the first word of line k points to the first word of the next line).
static inline std::vector<int> ring_words(size_t lines, size_t stride, std::mt19937 &rng) {
  std::vector<int> order(lines);
  for (size_t i = 0; i < lines; i++) order[i] = (int)i;
  std::shuffle(order.begin() + 1, order.end(), rng);
  std::vector<int> host(lines * stride * 32, 0);
  for (size_t i = 0; i < lines; i++)
    host[(size_t)order[i] * stride * 32] = (int)((size_t)order[(i + 1) % lines] * stride * 32);
  return host;
}

// The same cycle through consecutive lines, on the device; lanes start on different lines of it.
static inline int *chase_ring(size_t lines, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> host = ring_words(lines, 1, rng);
  int *d;
  CHECK(cudaMalloc(&d, host.size() * sizeof(int)));
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice));
  return d;
}
