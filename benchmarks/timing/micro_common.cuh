// What every microbenchmark program (micro*.cu) shares: error checks, the manifest of
// launches (one row per launch, in the profiler's launch order) and a pointer-chase ring.
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
