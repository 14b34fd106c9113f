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

// Record one launch (call right after the <<<>>>), and check it ran.
static inline void done(const char *bench, const char *param, long long value, int grid,
                        int block, long long work) {
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

// A random cycle through `lines` 128-byte lines, one int per line (element 32*k points to the
// next line's first element); lanes start on different lines of the same cycle.
static inline int *chase_ring(size_t lines, unsigned seed) {
  std::vector<int> order(lines);
  for (size_t i = 0; i < lines; i++) order[i] = (int)i;
  std::mt19937 rng(seed);
  std::shuffle(order.begin() + 1, order.end(), rng);
  std::vector<int> host(lines * 32, 0);
  for (size_t i = 0; i < lines; i++) host[(size_t)order[i] * 32] = order[(i + 1) % lines] * 32;
  int *d;
  CHECK(cudaMalloc(&d, host.size() * sizeof(int)));
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice));
  return d;
}
